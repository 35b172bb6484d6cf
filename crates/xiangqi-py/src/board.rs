//! `Board` (a game: start position, move stack, rulings), `LegalMoveGenerator`, `Outcome`,
//! `Termination`.

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyIterator, PyList};

use xiangqi::game::{Game, Reason, Rules};
use xiangqi::notation::{Notation, NotationError, ReadMoveError};
use xiangqi::prose::{self, Lang};
use xiangqi::{Color, Position, Square, UciError, UciMove};

use crate::{
    color_from_py, color_to_py, role_from_py, square_from_py, AmbiguousMoveError, IllegalMoveError,
    InvalidFenError, InvalidMoveError, Move, Piece,
};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Board>()?;
    m.add_class::<LegalMoveGenerator>()?;
    m.add_class::<Outcome>()?;
    m.add_class::<Termination>()?;
    Ok(())
}

fn illegal(pos: &Position, text: &str, reason: &str) -> PyErr {
    IllegalMoveError::new_err(format!("illegal move {text}: {reason} (in {})", pos.fen()))
}

pub(crate) fn read_move_error(pos: &Position, e: ReadMoveError) -> PyErr {
    match e {
        ReadMoveError::Parse(p) => InvalidMoveError::new_err(p.to_string()),
        ReadMoveError::Move(NotationError::Illegal { notation, reason }) => {
            illegal(pos, &notation, reason)
        }
        ReadMoveError::Move(a @ NotationError::Ambiguous { .. }) => {
            AmbiguousMoveError::new_err(format!("{a} (in {})", pos.fen()))
        }
    }
}

fn parse_lang(lang: &str) -> PyResult<Lang> {
    lang.parse::<Lang>()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A position with the moves that led to it, judged by the rules of Xiangqi (checkmate and
/// stalemate lose; perpetual check and perpetual chase lose; the move limit and repetitions
/// draw). `Board()` is the start position; `Board(fen)` any legal position.
#[pyclass(module = "xiangqi")]
#[derive(Clone)]
pub struct Board {
    pub(crate) game: Game,
}

impl Board {
    pub(crate) fn pos(&self) -> &Position {
        self.game.position()
    }
    fn legal(&self, m: &Move) -> PyResult<()> {
        UciMove::from_move(m.inner)
            .to_move(self.pos())
            .map(|_| ())
            .map_err(|e| illegal(self.pos(), &m.inner.to_string(), e.reason))
    }
    fn read(&self, notation: Notation, text: &str) -> PyResult<Move> {
        notation
            .read(self.pos(), text)
            .map(Move::new)
            .map_err(|e| read_move_error(self.pos(), e))
    }
    fn judged(&self, rules: Rules) -> std::borrow::Cow<'_, Game> {
        if *self.game.rules() == rules {
            std::borrow::Cow::Borrowed(&self.game)
        } else {
            let mut g = self.game.clone();
            g.set_rules(rules);
            std::borrow::Cow::Owned(g)
        }
    }
}

fn rules(repetitions: u32, move_limit: Option<u32>, chase_rule: bool) -> PyResult<Rules> {
    if repetitions < 2 {
        return Err(PyValueError::new_err(format!(
            "repetitions must be 2 or more, got {repetitions}"
        )));
    }
    Ok(Rules::default()
        .with_repetitions(repetitions)
        .with_move_limit(move_limit)
        .with_chase_rule(chase_rule))
}

#[pymethods]
impl Board {
    /// The start position, or the position of `fen` (`InvalidFenError` names what is wrong).
    #[new]
    #[pyo3(signature = (fen = None))]
    fn py_new(fen: Option<&str>) -> PyResult<Board> {
        let start = match fen {
            None => Position::new(),
            Some(f) => Position::from_fen(f)
                .map_err(|e| InvalidFenError::new_err(format!("bad FEN '{f}': {e}")))?,
        };
        Ok(Board {
            game: Game::new(start),
        })
    }

    /// The FEN of the position: `rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1`.
    fn fen(&self) -> String {
        self.pos().fen()
    }
    /// The piece placement part of the FEN.
    fn board_fen(&self) -> String {
        xiangqi::fen::board_fen(self.pos().board())
    }
    /// Sets up the position of `fen` and clears the move stack.
    fn set_fen(&mut self, fen: &str) -> PyResult<()> {
        *self = Board::py_new(Some(fen))?;
        Ok(())
    }
    /// Back to the start position with no moves.
    fn reset(&mut self) {
        self.game = Game::default();
    }
    /// The side to move: `RED` (`True`) or `BLACK` (`False`).
    #[getter]
    fn turn(&self) -> bool {
        color_to_py(self.pos().turn())
    }
    /// Plies since the last capture (the FEN's halfmove field).
    #[getter]
    fn halfmove_clock(&self) -> u32 {
        self.pos().halfmoves()
    }
    /// The move number (starts at 1, goes up after Black's move).
    #[getter]
    fn fullmove_number(&self) -> u32 {
        self.pos().fullmoves()
    }
    /// The number of moves on the move stack.
    fn ply(&self) -> usize {
        self.game.len()
    }
    /// The piece on `square`, or `None`.
    fn piece_at(&self, square: i64) -> PyResult<Option<Piece>> {
        Ok(self
            .pos()
            .piece_at(square_from_py(square)?)
            .map(|p| Piece { inner: p }))
    }
    /// Every piece by its square.
    fn piece_map<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for s in Square::all() {
            if let Some(p) = self.pos().piece_at(s) {
                d.set_item(s.index(), Piece { inner: p })?;
            }
        }
        Ok(d)
    }
    /// The squares of the pieces of `piece_type` and `color`, ascending.
    fn pieces(&self, piece_type: i64, color: bool) -> PyResult<Vec<u32>> {
        let want = xiangqi::Piece::new(color_from_py(color), role_from_py(piece_type)?);
        Ok(Square::all()
            .filter(|&s| self.pos().piece_at(s) == Some(want))
            .map(|s| s.index() as u32)
            .collect())
    }
    /// The legal moves: iterable, with `len()` and `in`. It looks at the board as it is when
    /// used.
    #[getter]
    fn legal_moves(slf: &Bound<'_, Self>) -> LegalMoveGenerator {
        LegalMoveGenerator {
            board: slf.clone().unbind(),
        }
    }
    /// Whether `move` is legal here.
    fn is_legal(&self, r#move: &Move) -> bool {
        self.pos().is_legal(r#move.inner)
    }
    /// Whether the legal `move` captures.
    fn is_capture(&self, r#move: &Move) -> PyResult<bool> {
        self.legal(r#move)?;
        Ok(self.pos().is_capture(r#move.inner))
    }
    /// Whether the legal `move` gives check.
    fn gives_check(&self, r#move: &Move) -> PyResult<bool> {
        self.legal(r#move)?;
        Ok(self.pos().gives_check(r#move.inner))
    }
    /// Plays a legal move (else `IllegalMoveError`) and returns it.
    fn push(&mut self, r#move: Move) -> PyResult<Move> {
        self.legal(&r#move)?;
        self.game.push_unchecked(r#move.inner);
        Ok(r#move)
    }
    /// Reads coordinates (`h2e2` or `H2-E2`) as a legal move, without playing it.
    fn parse_uci(&self, uci: &str) -> PyResult<Move> {
        match self.pos().parse_uci(uci) {
            Ok(m) => Ok(Move::new(m)),
            Err(UciError::Parse(e)) => Err(InvalidMoveError::new_err(e.to_string())),
            Err(UciError::Illegal(e)) => Err(illegal(self.pos(), uci, e.reason)),
        }
    }
    /// Reads and plays coordinates (`h2e2` or `H2-E2`); returns the move.
    fn push_uci(&mut self, uci: &str) -> PyResult<Move> {
        let m = self.parse_uci(uci)?;
        self.game.push_unchecked(m.inner);
        Ok(m)
    }
    /// Reads a WXF move (`C2.5`, `+R1.2`, `H8+7`) as a legal move, without playing it.
    fn parse_wxf(&self, wxf: &str) -> PyResult<Move> {
        self.read(Notation::Wxf, wxf)
    }
    /// Reads and plays a WXF move; returns it.
    fn push_wxf(&mut self, wxf: &str) -> PyResult<Move> {
        let m = self.parse_wxf(wxf)?;
        self.game.push_unchecked(m.inner);
        Ok(m)
    }
    /// Reads a move in Chinese notation (`炮二平五`, also traditional characters and full-width
    /// digits) as a legal move, without playing it.
    fn parse_chinese(&self, text: &str) -> PyResult<Move> {
        self.read(Notation::Chinese, text)
    }
    /// Reads and plays a move in Chinese notation; returns it.
    fn push_chinese(&mut self, text: &str) -> PyResult<Move> {
        let m = self.parse_chinese(text)?;
        self.game.push_unchecked(m.inner);
        Ok(m)
    }
    /// Reads a move in whichever notation it is written in (coordinates, WXF or Chinese).
    fn parse_move(&self, text: &str) -> PyResult<Move> {
        let n = Notation::guess(text.trim()).ok_or_else(|| {
            InvalidMoveError::new_err(format!(
                "'{text}' is not a move in coordinates, WXF or Chinese notation"
            ))
        })?;
        self.read(n, text.trim())
    }
    /// Takes back the last move and returns it (`IndexError` when there is none).
    fn pop(&mut self) -> PyResult<Move> {
        self.game
            .pop()
            .map(Move::new)
            .ok_or_else(|| PyIndexError::new_err("pop from an empty move stack"))
    }
    /// The last move played (`IndexError` when there is none).
    fn peek(&self) -> PyResult<Move> {
        self.game
            .moves()
            .last()
            .map(|&m| Move::new(m))
            .ok_or_else(|| PyIndexError::new_err("peek at an empty move stack"))
    }
    /// The moves played from the start position, oldest first.
    #[getter]
    fn move_stack(&self) -> Vec<Move> {
        self.game.moves().into_iter().map(Move::new).collect()
    }
    /// A copy; with `stack=False` the copy starts at the current position with no moves.
    #[pyo3(signature = (*, stack = true))]
    fn copy(&self, stack: bool) -> Board {
        if stack {
            self.clone()
        } else {
            Board {
                game: Game::new(self.pos().clone()),
            }
        }
    }
    fn __copy__(&self) -> Board {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Board {
        self.clone()
    }
    /// The board at the start position of the move stack.
    fn root(&self) -> Board {
        Board {
            game: Game::new(self.game.start().clone()),
        }
    }
    /// Whether the side to move is in check.
    fn is_check(&self) -> bool {
        self.pos().is_check()
    }
    /// The squares of the pieces giving check, ascending.
    fn checkers(&self) -> Vec<u32> {
        let c = self.pos().checkers();
        Square::all()
            .filter(|&s| c.contains(s))
            .map(|s| s.index() as u32)
            .collect()
    }
    /// Whether the side to move is checkmated.
    fn is_checkmate(&self) -> bool {
        self.pos().is_checkmate()
    }
    /// Whether the side to move has no legal move and is not in check (a loss in Xiangqi).
    fn is_stalemate(&self) -> bool {
        self.pos().is_stalemate()
    }
    /// Whether `outcome()` with the same rules is not `None`.
    #[pyo3(
        signature = (repetitions = 3, move_limit = Some(120), chase_rule = true),
        text_signature = "(self, repetitions=3, move_limit=120, chase_rule=True)"
    )]
    fn is_game_over(
        &self,
        repetitions: u32,
        move_limit: Option<u32>,
        chase_rule: bool,
    ) -> PyResult<bool> {
        Ok(self
            .judged(rules(repetitions, move_limit, chase_rule)?)
            .outcome()
            .is_some())
    }
    /// How the game has ended, or `None` while it goes on: checkmate, stalemate, perpetual
    /// check or chase (the side that did it loses), a drawn repetition (the `repetitions`-th
    /// occurrence of a position), the move limit (`move_limit` plies without capture, `None`
    /// for none), insufficient material. With `chase_rule=False` perpetual chasing is allowed.
    /// A game stays ended when moves are played after its end.
    #[pyo3(
        signature = (repetitions = 3, move_limit = Some(120), chase_rule = true),
        text_signature = "(self, repetitions=3, move_limit=120, chase_rule=True)"
    )]
    fn outcome(
        &self,
        repetitions: u32,
        move_limit: Option<u32>,
        chase_rule: bool,
    ) -> PyResult<Option<Outcome>> {
        let g = self.judged(rules(repetitions, move_limit, chase_rule)?);
        Ok(g.outcome().map(|o| Outcome {
            winner: o.winner,
            reason: o.reason,
            game: g.into_owned(),
        }))
    }
    /// A plain-language account of where the game stands: the ruling if it has ended (for a
    /// repetition: who checked or chased what, move by move), else who is to move. `lang` is
    /// `"en"` or `"zh"` (Chinese, with the moves in Chinese notation).
    #[pyo3(
        signature = (lang = "en", *, repetitions = 3, move_limit = Some(120), chase_rule = true),
        text_signature = "(self, lang='en', *, repetitions=3, move_limit=120, chase_rule=True)"
    )]
    fn explain(
        &self,
        lang: &str,
        repetitions: u32,
        move_limit: Option<u32>,
        chase_rule: bool,
    ) -> PyResult<String> {
        let lang = parse_lang(lang)?;
        let g = self.judged(rules(repetitions, move_limit, chase_rule)?);
        Ok(prose::explain(&g, lang))
    }
    /// The legal `move` in coordinates (`h2e2`).
    fn uci(&self, r#move: &Move) -> PyResult<String> {
        self.legal(r#move)?;
        Ok(r#move.inner.to_string())
    }
    /// The legal `move` in WXF notation (`C2.5`).
    fn wxf(&self, r#move: &Move) -> PyResult<String> {
        self.legal(r#move)?;
        Ok(Notation::Wxf.write(self.pos(), r#move.inner))
    }
    /// The legal `move` in Chinese notation (`炮二平五`).
    fn chinese(&self, r#move: &Move) -> PyResult<String> {
        self.legal(r#move)?;
        Ok(Notation::Chinese.write(self.pos(), r#move.inner))
    }
    /// The moves of the stack in a notation (`"uci"`, `"wxf"` or `"chinese"`), each written
    /// in the position it was played in.
    #[pyo3(signature = (notation = "wxf"))]
    fn variation_text(&self, notation: &str) -> PyResult<Vec<String>> {
        let n = parse_notation(notation)?;
        let h = self.game.history();
        Ok((0..self.game.len())
            .map(|i| n.write(h.position_at(i), h.move_at(i + 1).expect("a move per ply")))
            .collect())
    }
    /// The Zobrist key of the position (pieces and side to move), as the engine uses it.
    fn zobrist_hash(&self) -> u64 {
        self.pos().key()
    }
    /// Draws the board as SVG for Jupyter (the last move marked); see `xiangqi.svg.board`.
    fn _repr_svg_(slf: &Bound<'_, Self>) -> PyResult<String> {
        let py = slf.py();
        let svg = py.import("xiangqi.svg")?;
        let last = slf.borrow().game.moves().last().map(|&m| Move::new(m));
        let kwargs = PyDict::new(py);
        kwargs.set_item("lastmove", last)?;
        svg.call_method("board", (slf,), Some(&kwargs))?.extract()
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Board>() {
            Ok(o) => self.pos() == o.borrow().pos(),
            Err(_) => false,
        }
    }
    fn __hash__(&self) -> u64 {
        self.pos().key()
    }
    fn __repr__(&self) -> String {
        format!("Board('{}')", self.pos().fen())
    }
    /// The board as text, rank 9 at the top: FEN letters, `.` for empty points.
    fn __str__(&self) -> String {
        let mut s = String::new();
        for r in (0..10u8).rev() {
            for f in 0..9u8 {
                let sq = Square::new(r * 9 + f).expect("on the board");
                let c = self.pos().piece_at(sq).map_or('.', |p| p.char());
                s.push(c);
                if f < 8 {
                    s.push(' ');
                }
            }
            if r > 0 {
                s.push('\n');
            }
        }
        s
    }
}

pub(crate) fn parse_notation(s: &str) -> PyResult<Notation> {
    Notation::from_format_tag(s).ok_or_else(|| {
        PyValueError::new_err(format!(
            "'{s}' is not a notation (uci, iccs, wxf or chinese)"
        ))
    })
}

/// The legal moves of a board: iterate, `len()`, `move in board.legal_moves`.
#[pyclass(module = "xiangqi")]
pub struct LegalMoveGenerator {
    board: Py<Board>,
}

#[pymethods]
impl LegalMoveGenerator {
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyIterator>> {
        let b = self.board.borrow(py);
        let moves = b.pos().legal_moves();
        PyList::new(py, moves.iter().map(|&m| Move::new(m)))?.try_iter()
    }
    fn __len__(&self, py: Python<'_>) -> usize {
        self.board.borrow(py).pos().count_legal_moves()
    }
    fn __bool__(&self, py: Python<'_>) -> bool {
        !self.board.borrow(py).pos().has_no_legal_move()
    }
    fn __contains__(&self, py: Python<'_>, r#move: &Bound<'_, PyAny>) -> bool {
        match r#move.extract::<Move>() {
            Ok(m) => self.board.borrow(py).pos().is_legal(m.inner),
            Err(_) => false,
        }
    }
    /// The legal moves in coordinates (`h2e2`), as a list of strings.
    fn uci(&self, py: Python<'_>) -> Vec<String> {
        let b = self.board.borrow(py);
        b.pos()
            .legal_moves()
            .iter()
            .map(|m| m.to_string())
            .collect()
    }
    fn __repr__(&self, py: Python<'_>) -> String {
        let b = self.board.borrow(py);
        let ms: Vec<String> = b
            .pos()
            .legal_moves()
            .iter()
            .map(|m| m.to_string())
            .collect();
        format!("<LegalMoveGenerator ({})>", ms.join(", "))
    }
}

/// Why a game ended; `.value` is the Rust `Reason`'s name (`"perpetual-chase"`).
#[pyclass(module = "xiangqi", eq, eq_int, frozen, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum Termination {
    #[pyo3(name = "CHECKMATE")]
    Checkmate,
    #[pyo3(name = "STALEMATE")]
    Stalemate,
    #[pyo3(name = "PERPETUAL_CHECK")]
    PerpetualCheck,
    #[pyo3(name = "PERPETUAL_CHASE")]
    PerpetualChase,
    #[pyo3(name = "REPETITION")]
    Repetition,
    #[pyo3(name = "MOVE_LIMIT")]
    MoveLimit,
    #[pyo3(name = "INSUFFICIENT_MATERIAL")]
    InsufficientMaterial,
    #[pyo3(name = "RESIGNATION")]
    Resignation,
    #[pyo3(name = "AGREEMENT")]
    Agreement,
    #[pyo3(name = "TIME")]
    Time,
}

impl Termination {
    fn from_reason(r: Reason) -> Termination {
        match r {
            Reason::Checkmate => Termination::Checkmate,
            Reason::Stalemate => Termination::Stalemate,
            Reason::PerpetualCheck => Termination::PerpetualCheck,
            Reason::PerpetualChase => Termination::PerpetualChase,
            Reason::Repetition => Termination::Repetition,
            Reason::MoveLimit => Termination::MoveLimit,
            Reason::InsufficientMaterial => Termination::InsufficientMaterial,
            Reason::Resignation => Termination::Resignation,
            Reason::Agreement => Termination::Agreement,
            Reason::Time => Termination::Time,
        }
    }
    fn reason(self) -> Reason {
        Reason::ALL[self as usize]
    }
}

#[pymethods]
impl Termination {
    /// The Rust `Reason`'s name: `checkmate`, `perpetual-chase`, `move-limit`, ...
    #[getter]
    fn value(&self) -> &'static str {
        self.reason().as_str()
    }
    /// The reason in plain words: `perpetual chase`.
    fn words(&self) -> &'static str {
        self.reason().words()
    }
    fn __str__(&self) -> &'static str {
        self.reason().as_str()
    }
}

/// How a game ended: `winner` (`RED`, `BLACK` or `None` for a draw) and `termination`.
#[pyclass(module = "xiangqi", frozen)]
pub struct Outcome {
    winner: Option<Color>,
    reason: Reason,
    game: Game,
}

#[pymethods]
impl Outcome {
    /// `RED` (`True`), `BLACK` (`False`) or `None` for a draw.
    #[getter]
    fn winner(&self) -> Option<bool> {
        self.winner.map(color_to_py)
    }
    /// Why the game ended.
    #[getter]
    fn termination(&self) -> Termination {
        Termination::from_reason(self.reason)
    }
    /// `1-0` (Red won), `0-1` or `1/2-1/2`.
    fn result(&self) -> &'static str {
        match self.winner {
            Some(Color::Red) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
    /// The ruling in plain words, in English (`lang="en"`) or Chinese (`lang="zh"`): for a
    /// repetition, which side checked or chased which piece on which moves of the cycle.
    #[pyo3(signature = (lang = "en"))]
    fn explain(&self, lang: &str) -> PyResult<String> {
        Ok(prose::explain(&self.game, parse_lang(lang)?))
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Outcome>() {
            Ok(o) => {
                let o = o.get();
                o.winner == self.winner && o.reason == self.reason
            }
            Err(_) => false,
        }
    }
    fn __hash__(&self) -> u64 {
        (self.reason as u64) * 3 + self.winner.map_or(2, |c| c.index() as u64)
    }
    fn __repr__(&self) -> String {
        let w = match self.winner {
            Some(Color::Red) => "RED",
            Some(Color::Black) => "BLACK",
            None => "None",
        };
        format!(
            "Outcome(termination=Termination.{}, winner={w})",
            self.reason.as_str().replace('-', "_").to_ascii_uppercase()
        )
    }
}
