//! Game records: `read_games` (every format `xiangqi_record::detect` knows), `Game` and
//! `GameNode` (the move tree with comments and variations), `write_pgn`.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyString};

use xiangqi::game::Game as RGame;
use xiangqi::Position;
use xiangqi_record::detect::{read_any_with, RecordError as RError};
use xiangqi_record::{GameRecord, GameResult, MoveNode};

use crate::board::{parse_notation, Board};
use crate::{any_to_string, Move, RecordError};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GameNode>()?;
    m.add_class::<Game>()?;
    m.add_function(wrap_pyfunction!(read_games, m)?)?;
    m.add_function(wrap_pyfunction!(read_game, m)?)?;
    m.add_function(wrap_pyfunction!(write_pgn, m)?)?;
    Ok(())
}

struct NodeData {
    mv: Option<xiangqi::Move>,
    comment: Option<String>,
    nags: Vec<u8>,
    parent: Option<usize>,
    children: Vec<usize>,
}

/// A read record and its move tree as nodes (node 0 is the start).
struct Tree {
    rec: GameRecord,
    format: &'static str,
    warnings: Vec<String>,
    nodes: Vec<NodeData>,
}

impl Tree {
    fn new(rec: GameRecord, format: &'static str, warnings: Vec<String>) -> Tree {
        let mut nodes = vec![NodeData {
            mv: None,
            comment: rec.comment.clone(),
            nags: Vec::new(),
            parent: None,
            children: Vec::new(),
        }];
        add_line(&mut nodes, 0, &rec.moves);
        Tree {
            rec,
            format,
            warnings,
            nodes,
        }
    }
    /// The moves from the start to node `idx`.
    fn path(&self, mut idx: usize) -> Vec<xiangqi::Move> {
        let mut v = Vec::new();
        while let Some(p) = self.nodes[idx].parent {
            v.push(self.nodes[idx].mv.expect("a move below the root"));
            idx = p;
        }
        v.reverse();
        v
    }
}

/// Adds `line` below node `parent`: each move is the main child of the one before; its
/// variations are further children of the same parent, after it.
fn add_line(nodes: &mut Vec<NodeData>, parent: usize, line: &[MoveNode]) {
    let mut cur = parent;
    for n in line {
        let idx = nodes.len();
        nodes.push(NodeData {
            mv: Some(n.mv),
            comment: n.comment.clone(),
            nags: n.nags.clone(),
            parent: Some(cur),
            children: Vec::new(),
        });
        nodes[cur].children.push(idx);
        for v in &n.variations {
            add_line(nodes, cur, v);
        }
        cur = idx;
    }
}

fn node_object(py: Python<'_>, tree: &Arc<Tree>, idx: usize) -> PyResult<Py<PyAny>> {
    let node = GameNode {
        tree: tree.clone(),
        idx,
    };
    if idx == 0 {
        Ok(Py::new(py, PyClassInitializer::from(node).add_subclass(Game {}))?.into_any())
    } else {
        Ok(Py::new(py, node)?.into_any())
    }
}

/// A node of a game's move tree: the move that leads to it (`None` at the start), its
/// comment and NAGs, and `variations`, the moves that may follow (the first is the main
/// line). Read-only.
#[pyclass(module = "xiangqi", subclass, frozen)]
pub struct GameNode {
    tree: Arc<Tree>,
    idx: usize,
}

impl GameNode {
    fn data(&self) -> &NodeData {
        &self.tree.nodes[self.idx]
    }
}

#[pymethods]
impl GameNode {
    /// The move that leads to this node (`None` for the game itself).
    #[getter]
    fn r#move(&self) -> Option<Move> {
        self.data().mv.map(Move::new)
    }
    /// The comment after the move (for the game: before the first move); `""` for none.
    #[getter]
    fn comment(&self) -> String {
        self.data().comment.clone().unwrap_or_default()
    }
    /// The numeric annotation glyphs (`$1` is 1).
    #[getter]
    fn nags(&self) -> Vec<u32> {
        self.data().nags.iter().map(|&n| n as u32).collect()
    }
    /// The moves that may follow, as nodes: the main line first, then the alternatives.
    #[getter]
    fn variations(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        self.data()
            .children
            .iter()
            .map(|&c| node_object(py, &self.tree, c))
            .collect()
    }
    /// The node before (`None` for the game).
    #[getter]
    fn parent(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.data()
            .parent
            .map(|p| node_object(py, &self.tree, p))
            .transpose()
    }
    /// The game this node belongs to.
    fn game(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        node_object(py, &self.tree, 0)
    }
    /// The main continuation (`None` at the end of a line).
    fn next(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.data()
            .children
            .first()
            .map(|&c| node_object(py, &self.tree, c))
            .transpose()
    }
    /// The last node of the main line from here.
    fn end(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut i = self.idx;
        while let Some(&c) = self.tree.nodes[i].children.first() {
            i = c;
        }
        node_object(py, &self.tree, i)
    }
    /// The nodes of the main line after this one.
    fn mainline(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        let mut v = Vec::new();
        let mut i = self.idx;
        while let Some(&c) = self.tree.nodes[i].children.first() {
            v.push(node_object(py, &self.tree, c)?);
            i = c;
        }
        Ok(v)
    }
    /// The moves of the main line after this node.
    fn mainline_moves(&self) -> Vec<Move> {
        let mut v = Vec::new();
        let mut i = self.idx;
        while let Some(&c) = self.tree.nodes[i].children.first() {
            v.push(Move::new(
                self.tree.nodes[c].mv.expect("a move below the root"),
            ));
            i = c;
        }
        v
    }
    /// Whether this node is on the game's main line.
    fn is_mainline(&self) -> bool {
        let mut i = self.idx;
        while let Some(p) = self.tree.nodes[i].parent {
            if self.tree.nodes[p].children.first() != Some(&i) {
                return false;
            }
            i = p;
        }
        true
    }
    /// The number of moves from the start to this node.
    fn ply(&self) -> usize {
        let mut n = 0;
        let mut i = self.idx;
        while let Some(p) = self.tree.nodes[i].parent {
            n += 1;
            i = p;
        }
        n
    }
    /// The board after this node's move, with the moves from the game's start on its stack.
    fn board(&self) -> Board {
        let mut game = RGame::new(self.tree.rec.start.clone());
        for m in self.tree.path(self.idx) {
            game.push_unchecked(m);
        }
        Board { game }
    }
    /// The move of this node in WXF notation (`None` for the game).
    fn wxf(&self) -> Option<String> {
        self.move_text(xiangqi::notation::Notation::Wxf)
    }
    /// The move of this node in Chinese notation (`None` for the game).
    fn chinese(&self) -> Option<String> {
        self.move_text(xiangqi::notation::Notation::Chinese)
    }
    fn __repr__(&self) -> String {
        match self.data().mv {
            None => format!("<Game at {} moves>", self.tree.rec.moves.len()),
            Some(m) => format!("<GameNode {m} at ply {}>", self.ply()),
        }
    }
}

impl GameNode {
    fn move_text(&self, n: xiangqi::notation::Notation) -> Option<String> {
        let m = self.data().mv?;
        let mut pos: Position = self.tree.rec.start.clone();
        let path = self.tree.path(self.idx);
        for &p in &path[..path.len() - 1] {
            pos.play_unchecked(p);
        }
        Some(n.write(&pos, m))
    }
}

/// A game read from a record (or made with `Game.from_board`): `headers`, the start
/// `board()`, the move tree (a `GameNode`) with comments and variations.
#[pyclass(module = "xiangqi", extends = GameNode, frozen)]
pub struct Game {}

#[pymethods]
impl Game {
    /// The tags in file order (`Event`, `Red`, `Black`, `Result`, `FEN` when the start is not
    /// the standard one, ...). A new dict each time: changing it changes no game.
    #[getter]
    fn headers<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let tree = &slf.as_super().get().tree;
        let d = PyDict::new(slf.py());
        for (k, v) in &tree.rec.tags {
            d.set_item(k, v)?;
        }
        if !d.contains("Result")? {
            d.set_item("Result", tree.rec.result.as_pgn())?;
        }
        let fen = tree.rec.start.fen();
        if fen != xiangqi::START_FEN && !d.contains("FEN")? {
            d.set_item("FEN", fen)?;
        }
        Ok(d)
    }
    /// The result: `1-0`, `0-1`, `1/2-1/2` or `*`.
    #[getter]
    fn result(slf: &Bound<'_, Self>) -> &'static str {
        slf.as_super().get().tree.rec.result.as_pgn()
    }
    /// The format the game was read from (`PGN`, `XQF`, `CBR`, `CBL`, `CBF`, `DhtmlXQ`,
    /// `XieXie WXF`), or `None` for a game made in Python.
    #[getter]
    fn format(slf: &Bound<'_, Self>) -> Option<&'static str> {
        let f = slf.as_super().get().tree.format;
        (!f.is_empty()).then_some(f)
    }
    /// What the lenient reader left out of this game (a variation dropped from an illegal
    /// move on, ...), each naming its place; empty when reading strictly.
    #[getter]
    fn warnings(slf: &Bound<'_, Self>) -> Vec<String> {
        slf.as_super().get().tree.warnings.clone()
    }
    /// The board at the start of the game.
    fn board(slf: &Bound<'_, Self>) -> Board {
        Board {
            game: RGame::new(slf.as_super().get().tree.rec.start.clone()),
        }
    }
    /// A game of the moves on `board`'s stack from its start, with `headers` (the `Result` tag
    /// or, without one, the board's outcome gives the result).
    #[classmethod]
    #[pyo3(signature = (board, headers = None))]
    fn from_board(
        _cls: &Bound<'_, pyo3::types::PyType>,
        py: Python<'_>,
        board: &Board,
        headers: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let mut rec = GameRecord {
            start: board.game.start().clone(),
            moves: board.game.moves().into_iter().map(MoveNode::new).collect(),
            ..GameRecord::default()
        };
        rec.result = match board.game.outcome().map(|o| o.winner) {
            Some(Some(xiangqi::Color::Red)) => GameResult::RedWins,
            Some(Some(xiangqi::Color::Black)) => GameResult::BlackWins,
            Some(None) => GameResult::Draw,
            None => GameResult::Unknown,
        };
        if let Some(h) = headers {
            for (k, v) in h.iter() {
                let (k, v) = (any_to_string(&k), any_to_string(&v));
                match k.as_str() {
                    "FEN" | "SetUp" | "Format" => {}
                    "Result" => {
                        rec.result = xiangqi_record::pgn::parse_result(&v).ok_or_else(|| {
                            PyValueError::new_err(format!(
                                "'{v}' is not a result (1-0, 0-1, 1/2-1/2 or *)"
                            ))
                        })?
                    }
                    _ => rec.set_tag(&k, v),
                }
            }
        }
        node_object(py, &Arc::new(Tree::new(rec, "", Vec::new())), 0)
    }
}

/// Reads `source`: bytes, a path (`str` or `os.PathLike`) or a binary file object.
fn source_bytes(source: &Bound<'_, PyAny>) -> PyResult<(Vec<u8>, String)> {
    if let Ok(b) = source.cast::<PyBytes>() {
        return Ok((b.as_bytes().to_vec(), "<bytes>".into()));
    }
    if let Ok(b) = source.cast::<PyByteArray>() {
        return Ok((b.to_vec(), "<bytes>".into()));
    }
    if source.hasattr("read")? && !source.is_instance_of::<PyString>() {
        let data = source.call_method0("read")?;
        let name = source
            .getattr("name")
            .map(|n| any_to_string(&n))
            .unwrap_or_else(|_| "<file>".into());
        if let Ok(s) = data.cast::<PyString>() {
            return Ok((s.to_cow()?.as_bytes().to_vec(), name));
        }
        if let Ok(b) = data.cast::<PyBytes>() {
            return Ok((b.as_bytes().to_vec(), name));
        }
        return Err(PyValueError::new_err(format!(
            "{name}: read() gave neither bytes nor str"
        )));
    }
    let path: PathBuf = source.extract().map_err(|_| {
        PyValueError::new_err(format!(
            "read_games takes bytes, a path or a file object, not {}",
            source
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let bytes = std::fs::read(&path)?;
    Ok((bytes, path.display().to_string()))
}

fn read_all(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    strict: bool,
    skip: bool,
) -> PyResult<Vec<Py<PyAny>>> {
    let (bytes, name) = source_bytes(source)?;
    let all = py
        .detach(|| read_any_with(&bytes, strict))
        .map_err(|e| RecordError::new_err(format!("{name}: {e}")))?;
    let format = all.format.name();
    let mut warnings: Vec<Vec<String>> = vec![Vec::new(); all.games.len()];
    for w in &all.warnings {
        let i = w.game().unwrap_or(1).saturating_sub(1);
        if let Some(v) = warnings.get_mut(i) {
            v.push(format!("{name}: {w}"));
        }
    }
    let mut out = Vec::new();
    for (i, g) in all.games.into_iter().enumerate() {
        match g {
            Ok(rec) => {
                let t = Tree::new(rec, format, std::mem::take(&mut warnings[i]));
                out.push(node_object(py, &Arc::new(t), 0)?);
            }
            Err(e) if !skip => {
                let e: RError = e;
                let which = if e.game().is_none() {
                    format!(" (game {})", i + 1)
                } else {
                    String::new()
                };
                return Err(RecordError::new_err(format!("{name}{which}: {e}")));
            }
            Err(_) => {}
        }
    }
    Ok(out)
}

fn errors_mode(errors: &str) -> PyResult<bool> {
    match errors {
        "raise" => Ok(false),
        "skip" => Ok(true),
        _ => Err(PyValueError::new_err(format!(
            "errors must be 'raise' or 'skip', not '{errors}'"
        ))),
    }
}

/// Every game of a record: PGN (coordinates, WXF or Chinese moves; UTF-8, GBK or Big5), XQF,
/// DhtmlXQ, CBF, CBR, CBL, XieXie — the format is recognised from the content. `source` is
/// bytes, a path or a binary file object. A broken game raises `RecordError` naming the
/// file, game and place (with `errors="skip"` it is left out). Lenient by default: a
/// variation with an illegal move is cut there (see `Game.warnings`); `strict=True` refuses
/// such a game instead.
#[pyfunction]
#[pyo3(signature = (source, *, strict = false, errors = "raise"))]
fn read_games(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    strict: bool,
    errors: &str,
) -> PyResult<Vec<Py<PyAny>>> {
    let skip = errors_mode(errors)?;
    read_all(py, source, strict, skip)
}

/// The first game of a record (`RecordError` if it has none or it is broken).
#[pyfunction]
#[pyo3(signature = (source, *, strict = false))]
fn read_game(py: Python<'_>, source: &Bound<'_, PyAny>, strict: bool) -> PyResult<Py<PyAny>> {
    read_all(py, source, strict, false)?
        .into_iter()
        .next()
        .ok_or_else(|| RecordError::new_err("no game in the record"))
}

/// PGN text of a game (or a list of games) with moves in `notation`: `"wxf"` (default),
/// `"chinese"` or `"iccs"`/`"uci"`; comments, NAGs and variations included.
#[pyfunction]
#[pyo3(signature = (game, notation = "wxf"))]
fn write_pgn(game: &Bound<'_, PyAny>, notation: &str) -> PyResult<String> {
    let n = parse_notation(notation)?;
    let mut out = String::new();
    let one = |g: &Bound<'_, PyAny>, out: &mut String| -> PyResult<()> {
        let node = g.cast::<GameNode>().map_err(|_| {
            PyValueError::new_err(format!(
                "write_pgn takes a Game or a list of games, not {}",
                g.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?;
        let tree = &node.get().tree;
        xiangqi_record::pgn::write_game(out, &tree.rec, n);
        Ok(())
    };
    if game.cast::<GameNode>().is_ok() {
        one(game, &mut out)?;
    } else {
        for g in game.try_iter()? {
            one(&g?, &mut out)?;
        }
    }
    Ok(out)
}
