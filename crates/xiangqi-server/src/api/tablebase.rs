//! `GET /api/tablebase?fen=FEN`: a position's result and every legal move's from the
//! endgame tablebases (`xiangqi serve --tb DIR`, docs/TABLEBASES.md), in the shape of
//! lichess's tablebase service (tablebase.lichess.ovh `/standard?fen=`): `category`
//! (`win`, `draw`, `loss` or `unknown`), `dtm` (plies, negative when losing), the flags
//! `checkmate`, `stalemate` and `insufficient_material`, and `moves` best first, each
//! valued for the side to move after it (so a winning move is a `loss`), as lichess does.
//! The tables hold no DTZ: `dtz` and `precise_dtz` are always `null`. Beside lichess's fields,
//! `rules` gives the result under the rule on perpetual check, which this server's games apply
//! (`win-by-rule` and `loss-by-rule` where a standard draw is won by it).

use std::sync::Arc;

use axum::extract::State;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;
use xiangqi::adjudicate::insufficient_material;
use xiangqi::notation::Notation;
use xiangqi::Position;
use xiangqi_tb::{Material, RuleValue, Tablebase, TbError, Value};

use super::error::ApiError;
use super::request::{self as req, Query};
use crate::App;

/// A position's value in the tables.
#[derive(Debug, Serialize, ToSchema)]
pub struct TablebaseJson {
    /// `win`, `draw` or `loss` for the side to move; `unknown` where no table holds the
    /// material (or the server has none).
    pub category: &'static str,
    /// Plies to mate with best play: positive when the side to move wins, negative (or 0,
    /// mated now) when it loses; `null` for a draw or unknown.
    #[schema(required)]
    pub dtm: Option<i32>,
    /// Always `null`: the tables keep the distance to mate only.
    #[schema(required)]
    pub dtz: Option<i32>,
    /// Always `null`.
    #[schema(required)]
    pub precise_dtz: Option<i32>,
    /// The side to move is checkmated (a loss).
    pub checkmate: bool,
    /// The side to move has no legal move and is not in check (a loss in Xiangqi).
    pub stalemate: bool,
    /// Neither side has a chariot, horse, cannon or soldier: drawn unless the side to move
    /// has no legal move.
    pub insufficient_material: bool,
    /// Always false (lichess's variant fields).
    pub variant_win: bool,
    pub variant_loss: bool,
    /// The result under the Asian rule on perpetual check (docs/RULES.md §5), which this
    /// server's games apply: `win-by-rule` or `loss-by-rule` where the position is a standard
    /// draw that one side wins by the rule (the other side can hold it only by checking
    /// forever), else the same as `category`; `null` where the table keeps no such results
    /// (one made before the rule) or the result is unknown.
    #[schema(required)]
    pub rules: Option<&'static str>,
    /// The table's set (`KRKA`, stronger side first), `null` when none was used.
    #[schema(required)]
    pub set: Option<String>,
    /// Every legal move, best for the side to move first: its wins (fastest first), moves
    /// of unknown value, draws (those it wins by the rule on perpetual check first, those it
    /// loses by it last), its losses (slowest first); ties by `uci`.
    pub moves: Vec<TablebaseMove>,
}

/// A legal move and the value of the position it reaches, for the side to move there.
#[derive(Debug, Serialize, ToSchema)]
pub struct TablebaseMove {
    /// The move in coordinates, as the board API takes it (`a8a9`).
    pub uci: String,
    /// The move in WXF notation (lichess's `san` field holds the same).
    pub san: String,
    pub wxf: String,
    /// The move in Chinese notation.
    pub chinese: String,
    /// The value after the move for the opponent: `loss` is a winning move.
    pub category: &'static str,
    /// Plies to mate after the move, signed for the opponent (negative: the mover wins).
    #[schema(required)]
    pub dtm: Option<i32>,
    /// The value after the move under the rule on perpetual check, for the opponent (as
    /// the position's `rules`): `loss-by-rule` is a move that wins by the rule.
    #[schema(required)]
    pub rules: Option<&'static str>,
    #[schema(required)]
    pub dtz: Option<i32>,
    #[schema(required)]
    pub precise_dtz: Option<i32>,
    /// A capture (it starts the move-limit count again).
    pub zeroing: bool,
    pub checkmate: bool,
    pub stalemate: bool,
    pub insufficient_material: bool,
    pub variant_win: bool,
    pub variant_loss: bool,
}

fn signed(v: Value) -> Option<i32> {
    match v {
        Value::Win(d) => Some(d as i32),
        Value::Loss(d) => Some(-(d as i32)),
        Value::Draw => None,
    }
}

/// The tables' value of `pos` if they have one (or it needs none), `None` otherwise.
fn value(tb: Option<&Tablebase>, pos: &Position) -> Result<Option<Value>, ApiError> {
    let m = Material::of_board(pos.board());
    if !m.any_attacker() {
        return Ok(Some(xiangqi_tb::bare_value(pos)));
    }
    match tb {
        Some(tb) if tb.covers(pos) => tb.probe(pos).map(Some).map_err(|e| {
            ApiError::new(
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                format!("the tablebase: {e}"),
            )
        }),
        _ => Ok(None),
    }
}

/// The value of `pos` under the rule on perpetual check, if the tables keep it (or it needs
/// none).
fn rule_value(tb: Option<&Tablebase>, pos: &Position) -> Result<Option<RuleValue>, ApiError> {
    let m = Material::of_board(pos.board());
    if !m.any_attacker() {
        return Ok(Some(RuleValue::from(xiangqi_tb::bare_value(pos))));
    }
    match tb {
        Some(tb) if tb.covers(pos) => match tb.probe_rules(pos) {
            Ok(v) => Ok(Some(v)),
            Err(TbError::NoRuleResults { .. }) => Ok(None),
            Err(e) => Err(ApiError::new(
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                format!("the tablebase: {e}"),
            )),
        },
        _ => Ok(None),
    }
}

/// The answer for `pos` from `tb` (none: every value `unknown`, but checkmate, stalemate
/// and bare material, which need no table).
pub fn answer(tb: Option<&Tablebase>, pos: &Position) -> Result<TablebaseJson, ApiError> {
    let legal = pos.legal_moves();
    let mated = legal.is_empty();
    let (here, here_rules) = if mated {
        (Some(Value::Loss(0)), Some(RuleValue::Loss(0)))
    } else {
        (value(tb, pos)?, rule_value(tb, pos)?)
    };
    let m = Material::of_board(pos.board());
    let set = (here.is_some() && m.any_attacker()).then(|| m.canonical().to_string());
    let mut moves = Vec::with_capacity(legal.len());
    for &mv in legal.iter() {
        let mut child = pos.clone();
        let zeroing = child.play_unchecked(mv).is_some();
        let replies = child.has_no_legal_move();
        let (v, rules) = if replies {
            (Some(Value::Loss(0)), Some(RuleValue::Loss(0)))
        } else {
            (value(tb, &child)?, rule_value(tb, &child)?)
        };
        let wxf = Notation::Wxf.write(pos, mv);
        // Among the standard draws, a win by the rule first and a loss by it last.
        let by_rule = match rules {
            Some(RuleValue::LossByRule) => 1,
            Some(RuleValue::WinByRule) => -1,
            _ => 0,
        };
        moves.push((
            (v.map_or(500, |v| v.parent().rank()), by_rule),
            TablebaseMove {
                uci: mv.to_string(),
                san: wxf.clone(),
                wxf,
                chinese: Notation::Chinese.write(pos, mv),
                category: v.map_or("unknown", Value::category),
                dtm: v.and_then(signed),
                rules: rules.map(RuleValue::category),
                dtz: None,
                precise_dtz: None,
                zeroing,
                checkmate: replies && child.is_check(),
                stalemate: replies && !child.is_check(),
                insufficient_material: insufficient_material(child.board()),
                variant_win: false,
                variant_loss: false,
            },
        ));
    }
    // Unknown moves rank between the wins (rank above 500) and the draws (0).
    moves.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.uci.cmp(&b.1.uci)));
    Ok(TablebaseJson {
        category: here.map_or("unknown", Value::category),
        dtm: here.and_then(signed),
        rules: here_rules.map(RuleValue::category),
        dtz: None,
        precise_dtz: None,
        checkmate: mated && pos.is_check(),
        stalemate: mated && !pos.is_check(),
        insufficient_material: insufficient_material(pos.board()),
        variant_win: false,
        variant_loss: false,
        set,
        moves: moves.into_iter().map(|(_, m)| m).collect(),
    })
}

/// `GET /api/tablebase`
#[utoipa::path(
    get,
    path = "/api/tablebase",
    tag = "tablebase",
    params(req::TablebaseQuery),
    responses(
        (status = 200, description = "The position's value and every legal move's, best first (`unknown` where no table holds the material)", body = TablebaseJson),
        (status = 400, description = "Malformed input: no `fen`, a bad FEN (named by the field `fen`), an unknown parameter", body = super::error::ErrorBody),
        (status = 500, description = "A damaged table file (named)", body = super::error::ErrorBody),
    )
)]
pub async fn tablebase(
    State(app): State<Arc<App>>,
    Query(q): Query<req::TablebaseQuery>,
) -> Result<Json<TablebaseJson>, ApiError> {
    let fen = q.fen.0.trim().to_string();
    let pos = Position::from_fen(&fen)
        .map_err(|e| ApiError::bad(format!("bad FEN '{fen}': {e}")).field("fen"))?;
    let tb = app.tablebase.clone();
    // A probe may read a file and inflate blocks: off the async threads.
    let json = tokio::task::spawn_blocking(move || answer(tb.as_deref(), &pos))
        .await
        .map_err(|e| {
            ApiError::new(
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                format!("the tablebase probe failed: {e}"),
            )
        })??;
    Ok(Json(json))
}
