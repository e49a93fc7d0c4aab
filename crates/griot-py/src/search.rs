//! The search call, its stop handle and kept table, the AI levels and the fixed bench.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use griot_core::registry::{AnyMove, AnyPosition};
use griot_core::search::{
    self as engine, Bound as SearchBound, EvalStyle, Hooks, Limits, SearchOptions, SharedTable,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::databases::Egdb;
use crate::errors::{core, GriotError};
use crate::position::{Move, Position};
use crate::search_result::{search_result_py, SearchResult};
use crate::shared_table::PySharedTable;
use crate::subtree::SubtreeOptions;

/// A stop handle: pass it to `search`, call `set()` from any thread to stop the search (it
/// returns its last completed iteration).
#[pyclass(frozen, module = "griot._core")]
pub(crate) struct SearchStop {
    pub(crate) flag: Arc<AtomicBool>,
}

#[pymethods]
impl SearchStop {
    #[new]
    fn new() -> Self {
        SearchStop { flag: Arc::new(AtomicBool::new(false)) }
    }

    /// Asks the search to stop.
    fn set(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// Re-arms the handle for another search.
    fn clear(&self) {
        self.flag.store(false, Ordering::Relaxed);
    }

    /// Whether stop was asked.
    #[getter]
    fn is_set(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
}

pub(crate) fn eval_style(text: &str) -> PyResult<EvalStyle> {
    EvalStyle::parse(text).ok_or_else(|| {
        GriotError::new_err(format!(
            "eval {text:?}: expected 'learned' (the default), 'tuned', 'material' or up to four comma-separated weights"
        ))
    })
}

/// Runs a search with the GIL released; the progress callback reacquires it only to be called.
/// An exception in the callback stops the search and is raised.
pub(crate) fn run_search(
    py: Python<'_>,
    position: &Position,
    history: Vec<AnyPosition>,
    options: SearchOptions,
    progress: Option<Py<PyAny>>,
    shared: Option<PySharedTable>,
    table: Option<&SearchTable>,
) -> PyResult<engine::SearchResult<AnyMove>> {
    let game = position.game.clone();
    let mut shared = shared;
    let mut tt = match table {
        Some(t) => Some(
            t.table
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
                .ok_or_else(|| GriotError::new_err("this SearchTable is in use by another search"))?,
        ),
        None => None,
    };
    let pos = position.pos;
    let callback_error: Arc<Mutex<Option<PyErr>>> = Arc::new(Mutex::new(None));
    let errors = callback_error.clone();
    let stop = options.stop.clone();
    let r = py.detach(move || {
        let mut forward = |r: &engine::SearchResult<AnyMove>| {
            let Some(cb) = progress.as_ref() else { return };
            Python::attach(|py| {
                let call = search_result_py(py, position, r).and_then(|res| cb.call1(py, (res,)));
                if let Err(e) = call {
                    *errors.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                    if let Some(s) = &stop {
                        s.store(true, Ordering::Relaxed);
                    }
                }
            });
        };
        let hooks = Hooks {
            progress: Some(&mut forward),
            shared: shared.as_mut().map(|s| s as &mut dyn SharedTable),
        };
        let r = match tt.as_mut() {
            Some(tt) => game.search_with_table(&pos, &history, &options, hooks, tt),
            None => game.search(&pos, &history, &options, hooks),
        };
        (r, shared, tt)
    });
    let (r, shared, tt) = r;
    if let (Some(t), Some(tt)) = (table, tt) {
        *t.table.lock().unwrap_or_else(|e| e.into_inner()) = Some(tt);
    }
    if let Some(e) = shared.and_then(|s| s.error) {
        return Err(e);
    }
    if let Some(e) = callback_error.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(e);
    }
    core(py, r)
}

pub(crate) fn history_positions(position: &Position, history: Option<Vec<Py<Position>>>) -> Vec<AnyPosition> {
    history
        .unwrap_or_default()
        .iter()
        .map(|p| p.get().pos)
        .filter(|p| position.game.hash_key(p).is_ok())
        .collect()
}

/// A transposition table kept between searches (`SubtreeOptions(table=...)`): a worker process that
/// searches the same subtrees one depth deeper each time finds its earlier work in it. One search
/// at a time uses it.
#[pyclass(frozen, module = "griot._core")]
pub(crate) struct SearchTable {
    pub(crate) table: Mutex<Option<engine::tt::TranspositionTable>>,
}

#[pymethods]
impl SearchTable {
    #[new]
    #[pyo3(signature = (megabytes=64))]
    fn new(megabytes: usize) -> Self {
        SearchTable { table: Mutex::new(Some(engine::tt::TranspositionTable::new(megabytes))) }
    }

    /// Forgets every entry.
    fn clear(&self) {
        if let Some(t) = self.table.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            t.clear();
        }
    }

    /// Size in bytes.
    #[getter]
    fn bytes(&self) -> usize {
        self.table.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map_or(0, |t| t.bytes())
    }
}

/// Searches a position. Limits: `depth` (turns), `time` (seconds), `nodes`,
/// `clock=(seconds left, increment)` with `moves_to_go` (the search budgets the move from the
/// clock); none of them searches until `stop` is set. `multipv`: how many root moves get exact
/// scores (0 = every move). `history`: the game's earlier positions (repeating one ends the game
/// as an endless cycle). `progress(result)` is called after each completed iteration. `egdb`:
/// endgame databases whose exact results replace the search in their range.
/// `reductions=True`: late-move reductions, for play (the value is then not the full-width one).
/// `subtree`: what makes this search a piece of a distributed one ([`SubtreeOptions`]: window,
/// shared and kept tables, resumption). `threads`: threads searching at once, sharing the table
/// (1 to 256). Releases the GIL.
/// The most threads one search takes.
const MAX_THREADS: usize = 256;

#[pyfunction]
#[pyo3(signature = (position, depth=None, time=None, nodes=None, multipv=1, hash_mb=16, eval=EvalStyle::DEFAULT_NAME, progress=None, stop=None, history=None, egdb=None, clock=None, moves_to_go=None, reductions=false, threads=1, *, subtree=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn search(
    py: Python<'_>,
    position: &Position,
    depth: Option<u32>,
    time: Option<f64>,
    nodes: Option<u64>,
    multipv: usize,
    hash_mb: usize,
    eval: &str,
    progress: Option<Py<PyAny>>,
    stop: Option<Py<SearchStop>>,
    history: Option<Vec<Py<Position>>>,
    egdb: Option<Py<Egdb>>,
    clock: Option<(f64, f64)>,
    moves_to_go: Option<u32>,
    reductions: bool,
    threads: usize,
    subtree: Option<Py<SubtreeOptions>>,
) -> PyResult<SearchResult> {
    if !(1..=MAX_THREADS).contains(&threads) {
        return Err(GriotError::new_err(format!("threads must be 1 to {MAX_THREADS}")));
    }
    if time.is_some_and(|t| !(t >= 0.0 && t.is_finite())) {
        return Err(GriotError::new_err("time must be a non-negative number of seconds"));
    }
    let clock = match clock {
        None => None,
        Some((left, inc)) if left >= 0.0 && left.is_finite() && inc >= 0.0 && inc.is_finite() => {
            Some(engine::Clock {
                remaining: Duration::from_secs_f64(left),
                increment: Duration::from_secs_f64(inc),
                moves_to_go: moves_to_go.filter(|&m| m > 0),
            })
        }
        Some(_) => {
            return Err(GriotError::new_err("clock must be (seconds left, increment), non-negative numbers"));
        }
    };
    let subtree = subtree.as_ref().map(|s| s.get());
    let shared = subtree
        .and_then(|s| s.shared.as_ref())
        .map(|s| PySharedTable::new(py, s.clone_ref(py)))
        .transpose()?;
    let options = SearchOptions {
        limits: Limits { depth, nodes, time: time.map(Duration::from_secs_f64), clock },
        multipv: if multipv == 0 { usize::MAX } else { multipv },
        hash_mb,
        eval: eval_style(eval)?,
        stop: Some(stop.map(|s| s.get().flag.clone()).unwrap_or_else(|| Arc::new(AtomicBool::new(false)))),
        aspiration: true,
        window: subtree.and_then(|s| s.window),
        new_generation: subtree.is_none_or(|s| s.new_generation),
        iteration_windows: subtree.map(|s| s.iteration_windows.clone()).unwrap_or_default(),
        resume: subtree.is_some_and(|s| s.resume),
        egdb: egdb.map(|d| d.get().db.clone()),
        reductions,
        threads,
    };
    let history = history_positions(position, history);
    let table = subtree.and_then(|s| s.table.as_ref()).map(|t| t.get());
    let r = run_search(py, position, history, options, progress, shared, table)?;
    search_result_py(py, position, &r)
}

/// The move an AI of strength `level` (1-10) plays: shallow searches and seeded randomness among
/// near-best moves at low levels, the best move at high ones. None when the game is over.
/// Releases the GIL.
#[pyfunction]
#[pyo3(signature = (position, level, seed=0, stop=None, history=None))]
pub(crate) fn best_move(
    py: Python<'_>,
    position: &Position,
    level: u8,
    seed: u64,
    stop: Option<Py<SearchStop>>,
    history: Option<Vec<Py<Position>>>,
) -> PyResult<Option<Move>> {
    if !engine::level::LEVELS.contains(&level) {
        return Err(GriotError::new_err(format!("level {level}: levels are 1 to 10")));
    }
    let lv = engine::level::level(level);
    let base = SearchOptions { stop: stop.map(|s| s.get().flag.clone()), ..SearchOptions::default() };
    let history = history_positions(position, history);
    let r = run_search(py, position, history, lv.options(&base), None, None, None)?;
    lv.choose(&r, seed)
        .map(|mv| {
            let text = r.moves.iter().find(|m| m.mv == mv).map(|m| m.text.clone()).unwrap_or_default();
            position.turn_move(py, &text)
        })
        .transpose()
}

/// A strength level's settings: `(depth, margin, seconds)`, the deepest iteration, the margin in
/// centi-seeds within which a move may be played, and the time cap (None below level 9). The
/// gateway plays levels by this table, as `best_move` does.
#[pyfunction]
pub(crate) fn level_settings(level: u8) -> PyResult<(u32, i32, Option<f64>)> {
    if !engine::level::LEVELS.contains(&level) {
        return Err(GriotError::new_err(format!("level {level}: levels are 1 to 10")));
    }
    let lv = engine::level::level(level);
    Ok((lv.depth, lv.margin, lv.time.map(|t| t.as_secs_f64())))
}

/// The move `level` plays among root moves `(move, value, bound)` best first (bound "exact",
/// "lower" or "upper"), for `seed`: the pick `best_move` makes from its own search, so a caller
/// with another search's moves (the gateway) plays the same move from the same values.
#[pyfunction]
pub(crate) fn level_choice(
    level: u8,
    moves: Vec<(String, i32, String)>,
    seed: u64,
) -> PyResult<Option<String>> {
    if !engine::level::LEVELS.contains(&level) {
        return Err(GriotError::new_err(format!("level {level}: levels are 1 to 10")));
    }
    let mut rows = Vec::with_capacity(moves.len());
    for (text, value, bound) in &moves {
        let bound = match bound.as_str() {
            "lower" => SearchBound::Lower,
            "upper" => SearchBound::Upper,
            "exact" => SearchBound::Exact,
            other => {
                return Err(GriotError::new_err(format!("bound {other:?} is not lower, upper or exact")))
            }
        };
        rows.push((text.as_str(), *value, bound));
    }
    Ok(engine::level::level(level).choose_text(&rows, seed).map(str::to_string))
}

/// Runs the fixed bench (see `griot bench`): a list of dicts (position, depth, nodes, time, best,
/// score). The total node count is the search's signature. Releases the GIL.
#[pyfunction]
#[pyo3(name = "bench")]
pub(crate) fn run_bench<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let lines = core(py, py.detach(griot_core::bench::run))?;
    let out = PyList::empty(py);
    for l in lines {
        let d = PyDict::new(py);
        d.set_item("position", l.position)?;
        d.set_item("depth", l.depth)?;
        d.set_item("nodes", l.nodes)?;
        d.set_item("time", l.elapsed.as_secs_f64())?;
        d.set_item("best", l.best)?;
        d.set_item("score", l.score)?;
        out.append(d)?;
    }
    Ok(out)
}

/// A window bound of a node as its child sees it, one ply lower, within ±INFINITE (the core's
/// `score::bound_to_child`): the distributed search splits windows with it.
#[pyfunction]
pub(crate) fn score_bound_to_child(value: i32) -> i32 {
    engine::score::bound_to_child(value)
}

/// A child's value as its parent sees it, one ply higher (the core's `score::value_from_child`).
#[pyfunction]
pub(crate) fn score_from_child(value: i32) -> i32 {
    engine::score::value_from_child(value)
}

/// An evaluation's name as searches write it (`learned`, `tuned`, `material`, or
/// custom weights in their canonical form); raises `GriotError` for a name no search takes.
#[pyfunction]
pub(crate) fn eval_name(text: &str) -> PyResult<String> {
    Ok(eval_style(text)?.name())
}

/// What names an evaluation in cached values' keys: its name, and for `learned` the digest of
/// the shipped weights (`learned.<hex>`); raises `GriotError` for a name no search takes.
#[pyfunction]
pub(crate) fn eval_scope(text: &str) -> PyResult<String> {
    Ok(eval_style(text)?.cache_scope())
}
