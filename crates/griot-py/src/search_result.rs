//! What a search returns: scores, root moves' scores, the result of an iteration.

use griot_core::registry::AnyMove;
use griot_core::search as engine;
use pyo3::prelude::*;

use crate::errors::GriotError;
use crate::position::{Move, Position};

/// A search score: a margin in centi-units, or a proven win or loss in a number of turns.
/// Orders like the engine's values (a win beats every margin).
#[pyclass(frozen, module = "griot._core")]
pub(crate) struct Score {
    pub(crate) score: engine::Score,
    pub(crate) value: i32,
}

pub(crate) fn score_py(value: i32) -> Score {
    Score { score: engine::Score::from_value(value), value }
}

#[pymethods]
impl Score {
    /// The score of an engine value (`Score.value`): a margin in centi-units, or a proven result
    /// within `WIN_BOUND` of `WIN`. Values beyond `WIN` raise GriotError.
    #[new]
    fn new(value: i32) -> PyResult<Self> {
        if value.unsigned_abs() > engine::score::WIN.unsigned_abs() {
            return Err(GriotError::new_err(format!(
                "score value {value} is outside [-{win}, {win}]",
                win = engine::score::WIN
            )));
        }
        Ok(score_py(value))
    }

    /// `"margin"`, `"win"` or `"loss"` (for the side to move).
    #[getter]
    fn kind(&self) -> &'static str {
        match self.score {
            engine::Score::Margin(_) => "margin",
            engine::Score::WinIn(_) => "win",
            engine::Score::LossIn(_) => "loss",
        }
    }

    /// The margin in centi-units (100 = one seed or piece), or None when proven.
    #[getter]
    fn centi(&self) -> Option<i32> {
        match self.score {
            engine::Score::Margin(c) => Some(c),
            _ => None,
        }
    }

    /// The margin in seeds or pieces, or None when proven.
    #[getter]
    fn margin(&self) -> Option<f64> {
        self.centi().map(|c| c as f64 / 100.0)
    }

    /// Turns until the proven end (both players' turns), or None for a margin.
    #[getter]
    fn turns(&self) -> Option<u32> {
        match self.score {
            engine::Score::Margin(_) => None,
            engine::Score::WinIn(n) | engine::Score::LossIn(n) => Some(n),
        }
    }

    /// A proven result in the side to move's own turns (a win ends on the mover's turn number
    /// `ceil(turns / 2)`, at least 1; a loss comes after `turns // 2` of them), or None.
    #[getter]
    fn own_turns(&self) -> Option<u32> {
        self.score.own_turns()
    }

    /// Whether the side to move is proven to win.
    #[getter]
    fn is_win(&self) -> bool {
        matches!(self.score, engine::Score::WinIn(_))
    }

    /// Whether the side to move is proven to lose.
    #[getter]
    fn is_loss(&self) -> bool {
        matches!(self.score, engine::Score::LossIn(_))
    }

    /// The engine's raw value: a total order over every score.
    #[getter]
    fn value(&self) -> i32 {
        self.value
    }

    fn __str__(&self) -> String {
        self.score.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Score({:?})", self.score.to_string())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Score>().is_ok_and(|o| o.get().value == self.value)
    }

    fn __lt__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.value < other.cast::<Score>()?.get().value)
    }

    fn __hash__(&self) -> u64 {
        self.value as u64
    }
}

/// One root move's score: `move`, `score`, `bound` (`exact`, `upper` or `lower`) and its line.
#[pyclass(frozen, get_all, module = "griot._core")]
pub(crate) struct MoveScore {
    /// The move in notation.
    #[pyo3(name = "move")]
    pub(crate) mv: String,
    pub(crate) score: Py<Score>,
    pub(crate) bound: &'static str,
    pub(crate) pv: Vec<String>,
}

#[pymethods]
impl MoveScore {
    fn __repr__(&self) -> String {
        format!(
            "MoveScore(move={:?}, score={:?}, bound={:?})",
            self.mv,
            self.score.get().score.to_string(),
            self.bound
        )
    }
}

/// What a search found (also passed to progress callbacks after each iteration).
#[pyclass(frozen, get_all, module = "griot._core")]
pub(crate) struct SearchResult {
    /// The best move, None when the game is over.
    pub(crate) best_move: Option<Py<Move>>,
    pub(crate) score: Py<Score>,
    /// The principal variation as move strings.
    pub(crate) pv: Vec<String>,
    pub(crate) depth: u32,
    pub(crate) seldepth: u32,
    pub(crate) nodes: u64,
    /// Seconds spent.
    pub(crate) time: f64,
    /// Nodes per second.
    pub(crate) nps: u64,
    /// Every root move with its score, best first.
    pub(crate) moves: Vec<Py<MoveScore>>,
    /// Table occupancy, per mille.
    pub(crate) hashfull: u32,
    /// What `score` says: `exact`, or under a search window `lower` / `upper` (fail-soft bound).
    pub(crate) bound: &'static str,
}

#[pymethods]
impl SearchResult {
    fn __repr__(&self) -> String {
        format!(
            "SearchResult(best_move={:?}, score={:?}, depth={}, nodes={}, pv={:?})",
            self.best_move.as_ref().map(|m| m.get().text.clone()),
            self.score.get().score.to_string(),
            self.depth,
            self.nodes,
            self.pv
        )
    }
}

pub(crate) fn search_result_py(
    py: Python<'_>,
    position: &Position,
    r: &engine::SearchResult<AnyMove>,
) -> PyResult<SearchResult> {
    let moves = r
        .moves
        .iter()
        .map(|m| {
            Py::new(
                py,
                MoveScore {
                    mv: m.text.clone(),
                    score: Py::new(py, score_py(m.value))?,
                    bound: m.bound.name(),
                    pv: m.pv.clone(),
                },
            )
        })
        .collect::<PyResult<Vec<_>>>()?;
    let best_move = match (&r.best, r.pv_text.first()) {
        (Some(_), Some(text)) => Some(Py::new(py, position.turn_move(py, text)?)?),
        _ => None,
    };
    Ok(SearchResult {
        best_move,
        score: Py::new(py, score_py(r.value))?,
        pv: r.pv_text.clone(),
        depth: r.depth,
        seldepth: r.seldepth,
        nodes: r.nodes,
        time: r.elapsed.as_secs_f64(),
        nps: r.nps(),
        moves,
        hashfull: r.hashfull,
        bound: r.bound.name(),
    })
}
