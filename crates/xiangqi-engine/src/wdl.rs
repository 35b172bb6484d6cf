//! `UCI_ShowWDL`: win, draw and loss per mille from a score, by the model of
//! [`xiangqi_nnue::wdl`] with the coefficients fitted on the engine's self-play games
//! (docs/STRENGTH.md, "Win/draw/loss from a score", gives the data and the command).

use xiangqi::Board;
use xiangqi_nnue::wdl::{material_x, WdlModel};

use crate::search::Score;

/// The fitted model (`xiangqi-nnue wdl-fit`, docs/STRENGTH.md), kept beside the fitter so
/// that `wdl-fit` measures a new fit against it.
pub const MODEL: WdlModel = xiangqi_nnue::wdl::SHIPPED;

/// Win, draw and loss per mille for the side to move of `score` with `board`'s material:
/// certain for mate scores.
pub fn wdl(score: Score, board: &Board) -> [u32; 3] {
    match score {
        Score::Mate(m) if m > 0 => [1000, 0, 0],
        Score::Mate(_) => [0, 0, 1000],
        Score::Cp(cp) => MODEL.wdl(cp, material_x(board)),
    }
}
