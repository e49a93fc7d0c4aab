//! The distributed search's side of a search: what makes one search a piece of a longer one (a
//! subtree task of a distributed search), kept apart from the user's options of `search`.

use pyo3::prelude::*;

use griot_core::search as engine;

use crate::errors::GriotError;
use crate::search::SearchTable;

/// How a search is a piece of a longer computation, as the subtree tasks of a distributed search
/// are (`search(..., subtree=SubtreeOptions(...))`). `window=(alpha, beta)` searches the root
/// with that window (values as `Score.value`; the result's `bound` says what its score is).
/// `shared`: a second-level table (an object with `min_depth`, `plies`, `fetch(requests)` and
/// `publish(entries)`, read when the search starts). `table`: a `SearchTable` kept between
/// searches (the search's `hash_mb` is then ignored). `new_generation=False`: this search
/// continues the table's previous one (the subtree tasks of one distributed search), so its
/// entries do not age. `iteration_windows=[(depth, alpha, beta)]` (with `window`): those
/// iterations below the last use these windows instead (a subtree task repeating its earlier
/// tasks' windows, which its kept table answers). `resume=True`: start at the depth after the
/// one the table holds the position searched to (its best move first) instead of deepening
/// from 1. Windows out of range raise `GriotError` here.
#[pyclass(frozen, get_all, module = "griot._core")]
pub(crate) struct SubtreeOptions {
    pub(crate) window: Option<(i32, i32)>,
    pub(crate) shared: Option<Py<PyAny>>,
    pub(crate) table: Option<Py<SearchTable>>,
    pub(crate) new_generation: bool,
    pub(crate) iteration_windows: Vec<(u32, i32, i32)>,
    pub(crate) resume: bool,
}

fn check_window(what: &str, (alpha, beta): (i32, i32)) -> PyResult<()> {
    let inf = engine::score::INFINITE;
    if -inf <= alpha && alpha < beta && beta <= inf {
        Ok(())
    } else {
        Err(GriotError::new_err(format!("{what}({alpha}, {beta}): need -{inf} <= alpha < beta <= {inf}")))
    }
}

#[pymethods]
impl SubtreeOptions {
    #[new]
    #[pyo3(signature = (*, window=None, shared=None, table=None, new_generation=true, iteration_windows=None, resume=false))]
    fn new(
        window: Option<(i32, i32)>,
        shared: Option<Py<PyAny>>,
        table: Option<Py<SearchTable>>,
        new_generation: bool,
        iteration_windows: Option<Vec<(u32, i32, i32)>>,
        resume: bool,
    ) -> PyResult<Self> {
        let iteration_windows = iteration_windows.unwrap_or_default();
        for &(depth, alpha, beta) in &iteration_windows {
            check_window(&format!("iteration window {depth}: "), (alpha, beta))?;
        }
        if let Some(w) = window {
            check_window("window ", w)?;
        }
        Ok(SubtreeOptions { window, shared, table, new_generation, iteration_windows, resume })
    }

    fn __repr__(&self) -> String {
        let table = if self.table.is_some() { "<SearchTable>" } else { "None" };
        let shared = if self.shared.is_some() { "<shared>" } else { "None" };
        let window = self.window.map_or("None".to_string(), |w| format!("{w:?}"));
        let resume = if self.resume { "True" } else { "False" };
        let new_generation = if self.new_generation { "True" } else { "False" };
        format!(
            "SubtreeOptions(window={window}, shared={shared}, table={table}, new_generation={new_generation}, \
             iteration_windows={:?}, resume={resume})",
            self.iteration_windows
        )
    }
}
