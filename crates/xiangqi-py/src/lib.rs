//! The `xiangqi` Python package's native module (`xiangqi._xiangqi`): the rules core, notation,
//! records and the engine of this workspace behind an API in python-chess's style. The pure
//! Python parts (`xiangqi.svg`, `xiangqi.engine`, the stubs) are in `python/xiangqi/`.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyType;

use xiangqi::{Color, Piece as RPiece, Role, Square};

mod board;
mod engine;
mod record;
mod tablebase;

create_exception!(
    xiangqi,
    InvalidFenError,
    PyValueError,
    "A FEN that cannot be read or is no legal position (the message says what and where)."
);
create_exception!(
    xiangqi,
    InvalidMoveError,
    PyValueError,
    "A move text that is malformed: not coordinates, WXF or Chinese notation."
);
create_exception!(
    xiangqi,
    IllegalMoveError,
    PyValueError,
    "A well-formed move that is not legal in the position."
);
create_exception!(
    xiangqi,
    AmbiguousMoveError,
    PyValueError,
    "A WXF or Chinese move that fits more than one legal move."
);
create_exception!(
    xiangqi,
    RecordError,
    PyValueError,
    "A game record that cannot be read: an unknown format or a broken game (the message names the file, game and place)."
);

/// `True` for Red (who moves first), as python-chess's `WHITE`.
pub const RED: bool = true;

pub(crate) fn color_to_py(c: Color) -> bool {
    c == Color::Red
}
pub(crate) fn color_from_py(b: bool) -> Color {
    if b {
        Color::Red
    } else {
        Color::Black
    }
}

pub(crate) fn square_from_py(sq: i64) -> PyResult<Square> {
    u8::try_from(sq)
        .ok()
        .and_then(Square::new)
        .ok_or_else(|| PyValueError::new_err(format!("{sq} is not a square (0..89)")))
}

/// The name of a square, `a0` .. `i9` (file a-i from Red's left, rank 0-9 from Red's side).
#[pyfunction]
fn square_name(square: i64) -> PyResult<String> {
    Ok(square_from_py(square)?.to_string())
}

/// The square of a name such as `e0` (0 .. 89: `rank * 9 + file`).
#[pyfunction]
fn parse_square(name: &str) -> PyResult<u8> {
    name.parse::<Square>()
        .map(|s| s.index() as u8)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The square on `file` (0-8, a-i) and `rank` (0-9).
#[pyfunction]
fn square(file: i64, rank: i64) -> PyResult<u8> {
    if !(0..9).contains(&file) || !(0..10).contains(&rank) {
        return Err(PyValueError::new_err(format!(
            "no square at file {file}, rank {rank} (files 0-8, ranks 0-9)"
        )));
    }
    Ok((rank * 9 + file) as u8)
}

/// The file (0-8) of a square.
#[pyfunction]
fn square_file(square: i64) -> PyResult<u8> {
    Ok(square_from_py(square)?.file().index())
}

/// The rank (0-9) of a square.
#[pyfunction]
fn square_rank(square: i64) -> PyResult<u8> {
    Ok(square_from_py(square)?.rank().index())
}

/// A move from one square to another. Compare with `==`, hashable; `str(move)` is its
/// coordinates (`h2e2`). Whether it is legal depends on a board.
#[pyclass(module = "xiangqi", frozen, eq, hash, ord, from_py_object)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    pub(crate) inner: xiangqi::Move,
}

impl Move {
    pub(crate) fn new(m: xiangqi::Move) -> Move {
        Move { inner: m }
    }
}

#[pymethods]
impl Move {
    /// A move from `from_square` to `to_square` (0 .. 89).
    #[new]
    fn py_new(from_square: i64, to_square: i64) -> PyResult<Move> {
        let (f, t) = (square_from_py(from_square)?, square_from_py(to_square)?);
        if f == t {
            return Err(InvalidMoveError::new_err(format!(
                "a move needs two different squares, got {f} twice"
            )));
        }
        Ok(Move::new(xiangqi::Move::new(f, t)))
    }
    /// Reads coordinates: `h2e2` (UCI, as Pikafish writes them) or `H2-E2` (ICCS).
    #[classmethod]
    fn from_uci(_cls: &Bound<'_, PyType>, uci: &str) -> PyResult<Move> {
        let u: xiangqi::UciMove = uci
            .parse()
            .map_err(|e: xiangqi::ParseUciMoveError| InvalidMoveError::new_err(e.to_string()))?;
        if u.from == u.to {
            return Err(InvalidMoveError::new_err(format!(
                "'{uci}' is not a move: the two squares are the same"
            )));
        }
        Ok(Move::new(xiangqi::Move::new(u.from, u.to)))
    }
    /// The coordinates, `h2e2`.
    fn uci(&self) -> String {
        self.inner.to_string()
    }
    /// The coordinates in ICCS form, `H2-E2`.
    fn iccs(&self) -> String {
        xiangqi::UciMove::from_move(self.inner).to_iccs()
    }
    /// The square the piece leaves (0 .. 89).
    #[getter]
    #[allow(clippy::wrong_self_convention)] // python-chess's name
    fn from_square(&self) -> u8 {
        self.inner.from().index() as u8
    }
    /// The square the piece goes to (0 .. 89).
    #[getter]
    #[allow(clippy::wrong_self_convention)] // python-chess's name
    fn to_square(&self) -> u8 {
        self.inner.to().index() as u8
    }
    fn __str__(&self) -> String {
        self.uci()
    }
    fn __repr__(&self) -> String {
        format!("Move.from_uci('{}')", self.inner)
    }
}

/// The piece types, as python-chess numbers its: `GENERAL` (1) .. `SOLDIER` (7).
pub(crate) fn role_from_py(t: i64) -> PyResult<Role> {
    usize::try_from(t.saturating_sub(1))
        .ok()
        .and_then(Role::from_index)
        .ok_or_else(|| PyValueError::new_err(format!("{t} is not a piece type (1..7)")))
}

/// A piece: its type (`GENERAL` .. `SOLDIER`) and colour (`RED` or `BLACK`).
#[pyclass(module = "xiangqi", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    pub(crate) inner: RPiece,
}

const CHINESE: [[char; 7]; 2] = [
    ['帅', '仕', '相', '马', '车', '炮', '兵'],
    ['将', '士', '象', '马', '车', '炮', '卒'],
];

#[pymethods]
impl Piece {
    /// A piece of `piece_type` (1..7) and `color` (`RED`/`BLACK`).
    #[new]
    fn py_new(piece_type: i64, color: bool) -> PyResult<Piece> {
        Ok(Piece {
            inner: RPiece::new(color_from_py(color), role_from_py(piece_type)?),
        })
    }
    /// The piece of a FEN letter: upper case Red, lower case Black (`K A B N R C P`; `E` and `H`
    /// are read as elephant and horse).
    #[classmethod]
    fn from_symbol(_cls: &Bound<'_, PyType>, symbol: &str) -> PyResult<Piece> {
        let mut cs = symbol.chars();
        match (cs.next(), cs.next()) {
            (Some(c), None) => RPiece::from_char(c)
                .map(|p| Piece { inner: p })
                .ok_or_else(|| PyValueError::new_err(format!("'{symbol}' is not a piece letter"))),
            _ => Err(PyValueError::new_err(format!(
                "'{symbol}' is not a piece letter"
            ))),
        }
    }
    /// 1 (general) .. 7 (soldier).
    #[getter]
    fn piece_type(&self) -> u8 {
        self.inner.role.index() as u8 + 1
    }
    /// `RED` (`True`) or `BLACK` (`False`).
    #[getter]
    fn color(&self) -> bool {
        color_to_py(self.inner.color)
    }
    /// The FEN letter: `K` for Red's general, `p` for a Black soldier.
    fn symbol(&self) -> String {
        self.inner.char().to_string()
    }
    /// The Chinese character: 帅 将 仕 士 相 象 马 车 炮 兵 卒.
    fn chinese(&self) -> String {
        CHINESE[self.inner.color.index()][self.inner.role.index()].to_string()
    }
    /// The English name: `general`, `chariot`, ...
    fn name(&self) -> &'static str {
        self.inner.role.name()
    }
    fn __str__(&self) -> String {
        self.symbol()
    }
    fn __repr__(&self) -> String {
        format!("Piece.from_symbol('{}')", self.inner.char())
    }
}

/// The type names as python-chess's `piece_name`.
#[pyfunction]
fn piece_name(piece_type: i64) -> PyResult<&'static str> {
    Ok(role_from_py(piece_type)?.name())
}

pub(crate) fn any_to_string(obj: &Bound<'_, PyAny>) -> String {
    obj.str().map(|s| s.to_string()).unwrap_or_default()
}

#[pymodule]
fn _xiangqi(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("RED", true)?;
    m.add("BLACK", false)?;
    m.add("COLORS", vec![true, false])?;
    m.add("COLOR_NAMES", vec!["black", "red"])?;
    for (i, r) in Role::ALL.iter().enumerate() {
        m.add(r.name().to_ascii_uppercase().as_str(), i + 1)?;
    }
    m.add("PIECE_TYPES", (1..=7).collect::<Vec<u32>>())?;
    m.add("PIECE_NAMES", {
        let mut v: Vec<Option<&str>> = vec![None];
        v.extend(Role::ALL.iter().map(|r| Some(r.name())));
        v
    })?;
    m.add("SQUARES", (0..90u32).collect::<Vec<u32>>())?;
    m.add(
        "SQUARE_NAMES",
        Square::all().map(|s| s.to_string()).collect::<Vec<_>>(),
    )?;
    for s in Square::all() {
        m.add(s.to_string().to_ascii_uppercase().as_str(), s.index())?;
    }
    m.add(
        "FILE_NAMES",
        ["a", "b", "c", "d", "e", "f", "g", "h", "i"].to_vec(),
    )?;
    m.add(
        "RANK_NAMES",
        ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"].to_vec(),
    )?;
    m.add("STARTING_FEN", xiangqi::START_FEN)?;
    m.add("InvalidFenError", py.get_type::<InvalidFenError>())?;
    m.add("InvalidMoveError", py.get_type::<InvalidMoveError>())?;
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    m.add("AmbiguousMoveError", py.get_type::<AmbiguousMoveError>())?;
    m.add("RecordError", py.get_type::<RecordError>())?;
    m.add_function(wrap_pyfunction!(square_name, m)?)?;
    m.add_function(wrap_pyfunction!(parse_square, m)?)?;
    m.add_function(wrap_pyfunction!(square, m)?)?;
    m.add_function(wrap_pyfunction!(square_file, m)?)?;
    m.add_function(wrap_pyfunction!(square_rank, m)?)?;
    m.add_function(wrap_pyfunction!(piece_name, m)?)?;
    m.add_class::<Move>()?;
    m.add_class::<Piece>()?;
    board::register(m)?;
    record::register(m)?;
    engine::register(m)?;
    tablebase::register(m)?;
    Ok(())
}
