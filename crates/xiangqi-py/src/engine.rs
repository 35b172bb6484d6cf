//! The engine in-process: `Engine`, `Score`, `PlayResult` (exported as `xiangqi.engine`).
//! A search runs on the engine's own thread while the calling thread waits without the GIL;
//! Ctrl-C (KeyboardInterrupt) stops it.

use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::time::Duration;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use xiangqi::Color;
use xiangqi_engine::{Event, Limits, SearchInfo};

use crate::board::Board;
use crate::{color_from_py, color_to_py, Move};

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Engine>()?;
    m.add_class::<Score>()?;
    m.add_class::<PlayResult>()?;
    Ok(())
}

/// A search score from the side to move's point of view: centipawns (`cp`) or moves to mate
/// (`mate`, negative when being mated). `pov(color)` turns it to one side's view.
#[pyclass(module = "xiangqi.engine", frozen)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Score {
    cp: Option<i32>,
    mate: Option<i32>,
    /// The side whose view it is.
    color: Color,
}

#[pymethods]
impl Score {
    /// Centipawns, or `None` for a mate score.
    #[getter]
    fn cp(&self) -> Option<i32> {
        self.cp
    }
    /// Moves to mate (negative: being mated), or `None`.
    #[getter]
    fn mate(&self) -> Option<i32> {
        self.mate
    }
    /// The side whose point of view this is (`RED`/`BLACK`).
    #[getter]
    fn turn(&self) -> bool {
        color_to_py(self.color)
    }
    /// Whether this is a mate score.
    fn is_mate(&self) -> bool {
        self.mate.is_some()
    }
    /// The score from `color`'s point of view.
    fn pov(&self, color: bool) -> Score {
        let c = color_from_py(color);
        if c == self.color {
            *self
        } else {
            Score {
                cp: self.cp.map(|v| -v),
                mate: self.mate.map(|v| -v),
                color: c,
            }
        }
    }
    /// Centipawns; a mate scores `mate_score` less the moves to it (`None` without
    /// `mate_score`), as python-chess's `score()`.
    #[pyo3(signature = (*, mate_score = None))]
    fn score(&self, mate_score: Option<i32>) -> Option<i32> {
        match (self.cp, self.mate, mate_score) {
            (Some(cp), _, _) => Some(cp),
            (_, Some(m), Some(ms)) if m > 0 => Some(ms - m),
            (_, Some(m), Some(ms)) => Some(-ms - m),
            _ => None,
        }
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Score>().is_ok_and(|o| *o.get() == *self)
    }
    fn __repr__(&self) -> String {
        let side = if self.color == Color::Red {
            "RED"
        } else {
            "BLACK"
        };
        match (self.cp, self.mate) {
            (Some(c), _) => format!("Score(cp={c}, turn={side})"),
            (_, Some(m)) => format!("Score(mate={m}, turn={side})"),
            _ => "Score()".into(),
        }
    }
}

/// What `Engine.play` chose: `move` (`None` when there is no legal move) and the expected
/// reply `ponder`.
#[pyclass(module = "xiangqi.engine", frozen)]
pub struct PlayResult {
    /// The move chosen (`None` when the side to move has no legal move).
    #[pyo3(get)]
    r#move: Option<Move>,
    /// The reply the engine expects (`None` when it has none).
    #[pyo3(get)]
    ponder: Option<Move>,
    /// The last search info of the main line (as a dict of `analyse`), or `None`.
    #[pyo3(get)]
    info: Option<Py<PyDict>>,
}

#[pymethods]
impl PlayResult {
    fn __repr__(&self) -> String {
        let s =
            |m: &Option<Move>| m.map_or("None".into(), |m| format!("Move.from_uci('{}')", m.inner));
        format!(
            "<PlayResult move={} ponder={}>",
            s(&self.r#move),
            s(&self.ponder)
        )
    }
}

/// The engine of this project, in-process: `Engine(hash_mb=16, threads=1)`. It searches on its
/// own threads; `analyse` and `play` release the GIL while they wait, so other Python threads
/// run meanwhile. One search at a time per engine (another thread's call waits for it).
#[pyclass(module = "xiangqi.engine")]
pub struct Engine {
    inner: Mutex<xiangqi_engine::Engine>,
}

fn limits(depth: Option<i32>, nodes: Option<u64>, time: Option<f64>) -> PyResult<Limits> {
    if depth.is_none() && nodes.is_none() && time.is_none() {
        return Err(PyValueError::new_err(
            "give a limit: depth, nodes or time (seconds)",
        ));
    }
    // The deepest iteration the search runs.
    let max_depth = xiangqi_engine::search::MAX_PLY as i32 - 10;
    if let Some(d) = depth {
        if !(1..=max_depth).contains(&d) {
            return Err(PyValueError::new_err(format!(
                "depth must be 1..{max_depth}, got {d}"
            )));
        }
    }
    if nodes == Some(0) {
        return Err(PyValueError::new_err("nodes must be at least 1"));
    }
    let movetime = match time {
        None => None,
        Some(t) if t.is_finite() && t > 0.0 => Some(((t * 1000.0).round() as u64).max(1)),
        Some(t) => {
            return Err(PyValueError::new_err(format!(
                "time must be a positive number of seconds, got {t}"
            )))
        }
    };
    Ok(Limits {
        depth,
        nodes,
        movetime,
        ..Limits::default()
    })
}

impl Engine {
    /// The engine, waiting without the GIL while another thread's search holds it.
    fn lock<'a>(&'a self, py: Python<'_>) -> PyResult<MutexGuard<'a, xiangqi_engine::Engine>> {
        loop {
            match self.inner.try_lock() {
                Ok(g) => return Ok(g),
                Err(std::sync::TryLockError::Poisoned(p)) => return Ok(p.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => {
                    py.detach(|| std::thread::sleep(Duration::from_millis(2)));
                    py.check_signals()?;
                }
            }
        }
    }

    /// Sets the board's game and searches; returns the events. KeyboardInterrupt stops it.
    fn run(
        &self,
        py: Python<'_>,
        board: &Board,
        limits: Limits,
        multipv: usize,
    ) -> PyResult<Vec<Event>> {
        let mut e = self.lock(py)?;
        e.set_option("MultiPV", &multipv.to_string())
            .map_err(PyValueError::new_err)?;
        e.set_position(board.game.start().clone(), &board.game.moves())
            .map_err(|err| PyValueError::new_err(err.to_string()))?;
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        e.go(
            limits,
            Arc::new(move |ev| {
                let _ = tx.lock().unwrap_or_else(|p| p.into_inner()).send(ev);
            }),
        );
        let mut events = Vec::new();
        let mut rx = rx;
        loop {
            let (got, back) = py.detach(move || {
                let r = rx.recv_timeout(Duration::from_millis(50));
                (r, rx)
            });
            rx = back;
            match got {
                Ok(ev) => {
                    let done = matches!(ev, Event::BestMove { .. });
                    events.push(ev);
                    if done {
                        break;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err(
                        "the search ended without a best move",
                    ))
                }
            }
            if let Err(err) = py.check_signals() {
                e.stop();
                e.wait();
                return Err(err);
            }
        }
        e.wait();
        Ok(events)
    }
}

fn info_dict<'py>(py: Python<'py>, i: &SearchInfo, turn: Color) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let (cp, mate) = match i.score {
        xiangqi_engine::Score::Cp(c) => (Some(c), None),
        xiangqi_engine::Score::Mate(m) => (None, Some(m)),
    };
    d.set_item(
        "score",
        Score {
            cp,
            mate,
            color: turn,
        },
    )?;
    d.set_item("pv", i.pv.iter().map(|&m| Move::new(m)).collect::<Vec<_>>())?;
    d.set_item("depth", i.depth)?;
    d.set_item("seldepth", i.seldepth)?;
    d.set_item("multipv", i.multipv)?;
    d.set_item("nodes", i.nodes)?;
    d.set_item("nps", i.nps)?;
    d.set_item("hashfull", i.hashfull)?;
    d.set_item("tbhits", i.tbhits)?;
    d.set_item("time", i.time_ms as f64 / 1000.0)?;
    if let Some(b) = i.bound {
        d.set_item(
            "bound",
            match b {
                xiangqi_engine::tt::Bound::Lower => "lower",
                xiangqi_engine::tt::Bound::Upper => "upper",
                _ => "exact",
            },
        )?;
    }
    Ok(d)
}

/// The last info of each line, by `multipv` (1 first).
fn last_infos(events: &[Event], lines: usize) -> Vec<&SearchInfo> {
    let mut best: Vec<Option<&SearchInfo>> = vec![None; lines.max(1)];
    for ev in events {
        if let Event::Info(i) = ev {
            if let Some(slot) = best.get_mut(i.multipv.saturating_sub(1)) {
                // Prefer an exact score of a later (or the same) depth to a bound.
                let better = match slot {
                    None => true,
                    Some(old) => i.depth >= old.depth && (i.bound.is_none() || old.bound.is_some()),
                };
                if better {
                    *slot = Some(i);
                }
            }
        }
    }
    best.into_iter().flatten().collect()
}

#[pymethods]
impl Engine {
    /// An engine with a `hash_mb` MiB transposition table and `threads` search threads.
    #[new]
    #[pyo3(signature = (hash_mb = 16, threads = 1))]
    fn py_new(hash_mb: usize, threads: usize) -> PyResult<Engine> {
        let mut e = xiangqi_engine::Engine::new();
        e.set_option("Hash", &hash_mb.to_string())
            .map_err(|err| PyValueError::new_err(format!("hash_mb: {err}")))?;
        e.set_option("Threads", &threads.to_string())
            .map_err(|err| PyValueError::new_err(format!("threads: {err}")))?;
        Ok(Engine {
            inner: Mutex::new(e),
        })
    }

    /// Sets engine options by their UCI names (`{"Skill Level": 10, "Hash": 64}`).
    fn configure(&self, py: Python<'_>, options: &Bound<'_, PyDict>) -> PyResult<()> {
        let mut e = self.lock(py)?;
        for (k, v) in options.iter() {
            let name: String = k.extract()?;
            let value = if let Ok(b) = v.extract::<bool>() {
                b.to_string()
            } else {
                crate::any_to_string(&v)
            };
            e.set_option(&name, &value)
                .map_err(|err| PyValueError::new_err(format!("{name}: {err}")))?;
        }
        Ok(())
    }

    /// The current options by name (`Hash`, `Threads`, `MultiPV`, `Skill Level`, ...).
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let e = self.lock(py)?;
        let o = e.options();
        let d = PyDict::new(py);
        d.set_item("Hash", o.hash_mb)?;
        d.set_item("Threads", o.threads)?;
        d.set_item("MultiPV", o.multipv)?;
        d.set_item("Skill Level", o.skill_level)?;
        d.set_item("UCI_LimitStrength", o.limit_strength)?;
        d.set_item("UCI_Elo", o.elo)?;
        d.set_item("Move Overhead", o.move_overhead_ms)?;
        d.set_item("Use NNUE", o.use_nnue)?;
        d.set_item("EvalFile", o.eval_file.as_str())?;
        d.set_item("OwnBook", o.own_book)?;
        d.set_item("BookFile", o.book_file.as_str())?;
        d.set_item("TbPath", o.tb_path.as_str())?;
        d.set_item("TbProbeDepth", o.tb_probe_depth)?;
        d.set_item("TbProbeRoot", o.tb_probe_root)?;
        Ok(d)
    }

    /// Analyses `board` (its position and the moves before it, for repetitions) to `depth`
    /// plies, `nodes` nodes or `time` seconds (at least one); returns a list of `multipv`
    /// dicts, best line first, each with `score` (a `Score` for the side to move), `pv`
    /// (moves), `depth`, `seldepth`, `nodes`, `nps`, `time` (seconds), `hashfull`, `tbhits`,
    /// `multipv`.
    /// When the side to move has no legal move: one line, `pv` empty and `score.mate == 0`.
    #[pyo3(signature = (board, depth = None, nodes = None, time = None, multipv = 1))]
    fn analyse<'py>(
        &self,
        py: Python<'py>,
        board: &Board,
        depth: Option<i32>,
        nodes: Option<u64>,
        time: Option<f64>,
        multipv: usize,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        if !(1..=128).contains(&multipv) {
            return Err(PyValueError::new_err(format!(
                "multipv must be 1..128, got {multipv}"
            )));
        }
        let l = limits(depth, nodes, time)?;
        let events = self.run(py, board, l, multipv)?;
        let turn = board.pos().turn();
        last_infos(&events, multipv)
            .into_iter()
            .map(|i| info_dict(py, i, turn))
            .collect()
    }

    /// Chooses a move for `board` within `depth`, `nodes` or `time` seconds (at least one).
    #[pyo3(signature = (board, depth = None, nodes = None, time = None))]
    fn play(
        &self,
        py: Python<'_>,
        board: &Board,
        depth: Option<i32>,
        nodes: Option<u64>,
        time: Option<f64>,
    ) -> PyResult<PlayResult> {
        let l = limits(depth, nodes, time)?;
        let events = self.run(py, board, l, 1)?;
        let (best, ponder) = events
            .iter()
            .rev()
            .find_map(|e| match e {
                Event::BestMove { best, ponder } => Some((*best, *ponder)),
                _ => None,
            })
            .unwrap_or((None, None));
        let turn = board.pos().turn();
        let info = last_infos(&events, 1)
            .first()
            .map(|i| info_dict(py, i, turn).map(|d| d.unbind()))
            .transpose()?;
        Ok(PlayResult {
            r#move: best.map(Move::new),
            ponder: ponder.map(Move::new),
            info,
        })
    }

    /// Forgets what the last games taught it (clears the hash table).
    fn new_game(&self, py: Python<'_>) -> PyResult<()> {
        self.lock(py)?.new_game();
        Ok(())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }
    fn __exit__(
        &self,
        _a: &Bound<'_, PyAny>,
        _b: &Bound<'_, PyAny>,
        _c: &Bound<'_, PyAny>,
    ) -> bool {
        false
    }
    /// Nothing to close (no subprocess); kept for python-chess's `engine.quit()`.
    fn quit(&self) {}
}
