//! Endgame tablebases (`xiangqi.tablebase`): the tables `xiangqi tb generate` makes, probed
//! in the style of python-chess's `chess.gaviota` (WDL and DTM in plies, `probe_*` raising
//! and `get_*` returning a default) with the perpetual-check rule's results beside them.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyError, PyOSError, PyValueError};
use pyo3::prelude::*;

use xiangqi::Position;
use xiangqi_tb::{RuleValue, TbError, Value};

use crate::board::Board;
use crate::Move;

create_exception!(
    xiangqi,
    MissingTableError,
    PyKeyError,
    "The position's piece set has no table in the folders opened (the message names the set and the file looked for)."
);

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Tablebase>()?;
    m.add_function(wrap_pyfunction!(open_tablebase, m)?)?;
    m.add_function(wrap_pyfunction!(generate_tablebase, m)?)?;
    m.add("MissingTableError", m.py().get_type::<MissingTableError>())?;
    Ok(())
}

fn tb_error(e: TbError) -> PyErr {
    match e {
        TbError::Missing { .. } => MissingTableError::new_err(e.to_string()),
        TbError::Io { .. } => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// The folders of a path list: a str, a path, or a list of them.
fn folders(directory: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    if let Ok(list) = directory.extract::<Vec<PathBuf>>() {
        if !directory.is_instance_of::<pyo3::types::PyString>() {
            return Ok(list);
        }
    }
    let p: PathBuf = directory.extract()?;
    Ok(vec![p])
}

/// Endgame tablebases opened from one or more folders of `.xqtb` files.
///
/// Values are for the side to move. ``probe_wdl`` gives 1 (win), 0 (draw) or -1 (loss);
/// ``probe_dtm`` the plies to mate, positive when the side to move mates, negative when it
/// is mated, 0 for a draw (and for a position already mated: ``probe_wdl`` tells them
/// apart). Repetition counts as a draw there; ``probe_rules`` gives the result under the
/// Asian rule on perpetual check as well (``"win-by-rule"``, ``"loss-by-rule"``).
#[pyclass(module = "xiangqi.tablebase", frozen)]
pub struct Tablebase {
    /// `None` once closed.
    inner: Mutex<Option<Arc<xiangqi_tb::Tablebase>>>,
}

impl Tablebase {
    fn tb(&self) -> PyResult<Arc<xiangqi_tb::Tablebase>> {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| PyValueError::new_err("the tablebase is closed"))
    }
}

fn wdl(v: Value) -> i32 {
    match v {
        Value::Win(_) => 1,
        Value::Draw => 0,
        Value::Loss(_) => -1,
    }
}

fn signed_dtm(v: Value) -> i32 {
    match v {
        Value::Win(d) => d as i32,
        Value::Draw => 0,
        Value::Loss(d) => -(d as i32),
    }
}

#[pymethods]
impl Tablebase {
    /// Opens the tables of `directory` (a folder, or a list of folders searched in order).
    #[new]
    fn new(directory: &Bound<'_, PyAny>) -> PyResult<Tablebase> {
        let dirs = folders(directory)?;
        let tb = xiangqi_tb::Tablebase::open_dirs(&dirs).map_err(tb_error)?;
        Ok(Tablebase {
            inner: Mutex::new(Some(Arc::new(tb))),
        })
    }

    /// Adds the tables of another folder (searched after those opened before).
    fn add_directory(&self, directory: PathBuf) -> PyResult<()> {
        let mut dirs = self.tb()?.dirs().to_vec();
        dirs.push(directory);
        let tb = xiangqi_tb::Tablebase::open_dirs(&dirs).map_err(tb_error)?;
        *self.inner.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(tb));
        Ok(())
    }

    /// The piece sets whose tables were found, by name (e.g. ``KRKA``).
    fn sets(&self) -> PyResult<Vec<String>> {
        Ok(self.tb()?.sets().iter().map(|m| m.to_string()).collect())
    }

    /// The most pieces (generals included) of a set found.
    #[getter]
    fn max_pieces(&self) -> PyResult<u32> {
        Ok(self.tb()?.max_pieces())
    }

    /// 1 if the side to move wins, 0 if drawn (repetition a draw), -1 if it loses.
    /// Raises ``MissingTableError`` when the set has no table.
    fn probe_wdl(&self, board: PyRef<'_, Board>) -> PyResult<i32> {
        Ok(wdl(self.probe(board.pos())?))
    }

    /// ``probe_wdl``, or `default` when the set has no table.
    #[pyo3(signature = (board, default=None))]
    fn get_wdl(&self, board: PyRef<'_, Board>, default: Option<i32>) -> PyResult<Option<i32>> {
        Ok(self.get(board.pos())?.map(wdl).or(default))
    }

    /// Plies to mate: positive when the side to move mates, negative when it is mated, 0 for
    /// a draw or a position already mated. Raises ``MissingTableError`` when the set has no
    /// table.
    fn probe_dtm(&self, board: PyRef<'_, Board>) -> PyResult<i32> {
        Ok(signed_dtm(self.probe(board.pos())?))
    }

    /// ``probe_dtm``, or `default` when the set has no table.
    #[pyo3(signature = (board, default=None))]
    fn get_dtm(&self, board: PyRef<'_, Board>, default: Option<i32>) -> PyResult<Option<i32>> {
        Ok(self.get(board.pos())?.map(signed_dtm).or(default))
    }

    /// The result under the perpetual-check rule as well: ``"win"``, ``"win-by-rule"``,
    /// ``"draw"``, ``"loss-by-rule"`` or ``"loss"`` (lichess's words for the standard
    /// ones). Raises ``MissingTableError`` when the set has no table.
    fn probe_rules(&self, board: PyRef<'_, Board>) -> PyResult<&'static str> {
        let tb = self.tb()?;
        tb.probe_rules(board.pos())
            .map(RuleValue::category)
            .map_err(tb_error)
    }

    /// Every legal move with the DTM of `board` if it is played (plies to mate, positive
    /// when the side to move mates; 0 for a draw), best first: the fastest win, then draws,
    /// then the longest defence.
    fn probe_moves(&self, board: PyRef<'_, Board>) -> PyResult<Vec<(Move, i32)>> {
        let tb = self.tb()?;
        let moves = tb.probe_moves(board.pos()).map_err(tb_error)?;
        Ok(moves
            .into_iter()
            .map(|(m, v)| (Move::new(m), signed_dtm(v.parent())))
            .collect())
    }

    /// Drops the tables (probing afterwards raises ``ValueError``).
    fn close(&self) {
        *self.inner.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        &self,
        _t: &Bound<'_, PyAny>,
        _v: &Bound<'_, PyAny>,
        _tb: &Bound<'_, PyAny>,
    ) -> bool {
        self.close();
        false
    }

    fn __repr__(&self) -> String {
        match self.tb() {
            Ok(tb) => format!(
                "Tablebase({:?}, {} sets)",
                tb.dirs()
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>(),
                tb.sets().len()
            ),
            Err(_) => "Tablebase(closed)".to_string(),
        }
    }
}

impl Tablebase {
    fn probe(&self, pos: &Position) -> PyResult<Value> {
        self.tb()?.probe(pos).map_err(tb_error)
    }

    /// The value, `None` when the set has no table; other failures raise.
    fn get(&self, pos: &Position) -> PyResult<Option<Value>> {
        match self.tb()?.probe(pos) {
            Ok(v) => Ok(Some(v)),
            Err(TbError::Missing { .. }) => Ok(None),
            Err(e) => Err(tb_error(e)),
        }
    }
}

/// Opens the tables of `directory` (a folder, or a list of folders), as python-chess's
/// ``chess.gaviota.open_tablebase``.
#[pyfunction]
fn open_tablebase(directory: &Bound<'_, PyAny>) -> PyResult<Tablebase> {
    Tablebase::new(directory)
}

/// Generates the tables of `sets` (e.g. ``["KRKA", "KHKAA"]``; the stronger side first,
/// WXF letters) and of the smaller sets their captures lead to into `directory`, skipping
/// those already there, as ``xiangqi tb generate`` does; returns the names of the sets
/// generated now. Sets of millions of positions take seconds; the largest, minutes and
/// gigabytes (docs/TABLEBASES.md): use the command line for those.
#[pyfunction]
#[pyo3(signature = (sets, directory, threads=1))]
fn generate_tablebase(
    py: Python<'_>,
    sets: Vec<String>,
    directory: PathBuf,
    threads: usize,
) -> PyResult<Vec<String>> {
    let built = py
        .detach(|| xiangqi_tb::build(&sets, &directory, threads.max(1), &mut |_| {}))
        .map_err(tb_error)?;
    Ok(built
        .into_iter()
        .filter(|b| b.stats.is_some())
        .map(|b| b.material.to_string())
        .collect())
}
