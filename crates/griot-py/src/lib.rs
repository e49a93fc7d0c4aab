//! Python bindings of `griot-core`: frozen classes over the core's values, one exception
//! hierarchy mapped from the core's errors in one place ([`errors::to_py_err`]), the GIL released
//! around long work. No rules live here. One module an area: errors, variants and rule files,
//! positions and moves, search (its call, its results, the distributed search's options and
//! second-level table), endgame databases.

mod databases;
mod errors;
mod position;
mod search;
mod search_result;
mod shared_table;
mod subtree;
mod variant;

use griot_core::search::{self as engine, EvalStyle};
use pyo3::prelude::*;

use databases::{Egdb, EgdbProbe};
use errors::{
    EgdbError, GriotError, IllegalMoveError, NotationError, RuleFileError, UnknownVariantError, VariantError,
};
use position::{GameOutcome, Move, Position, TurnEvent};
use search::{SearchStop, SearchTable};
use search_result::{MoveScore, Score, SearchResult};
use variant::Variant;

/// The native module: re-exported by the `griot` package.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ENGINE_VERSION", griot_core::ENGINE_VERSION)?;
    m.add("DEFAULT_EVAL", EvalStyle::DEFAULT_NAME)?;
    // The score encoding (search::score): proven results sit within WIN_BOUND..=WIN of either end.
    m.add("WIN", engine::score::WIN)?;
    m.add("WIN_BOUND", engine::score::WIN_BOUND)?;
    m.add("MAX_PLIES", engine::score::MAX_PLIES)?;
    m.add("INFINITE", engine::score::INFINITE)?;
    m.add_class::<Variant>()?;
    m.add_class::<Position>()?;
    m.add_class::<Move>()?;
    m.add_class::<GameOutcome>()?;
    m.add_class::<TurnEvent>()?;
    m.add_class::<Score>()?;
    m.add_class::<MoveScore>()?;
    m.add_class::<SearchResult>()?;
    m.add_class::<SearchStop>()?;
    m.add_class::<SearchTable>()?;
    m.add_class::<subtree::SubtreeOptions>()?;
    m.add_function(wrap_pyfunction!(search::search, m)?)?;
    m.add_function(wrap_pyfunction!(search::eval_name, m)?)?;
    m.add_function(wrap_pyfunction!(search::eval_scope, m)?)?;
    m.add_function(wrap_pyfunction!(search::score_bound_to_child, m)?)?;
    m.add_function(wrap_pyfunction!(search::score_from_child, m)?)?;
    m.add_class::<Egdb>()?;
    m.add_class::<EgdbProbe>()?;
    m.add_function(wrap_pyfunction!(databases::egdb_build, m)?)?;
    m.add_function(wrap_pyfunction!(databases::egdb_level_info, m)?)?;
    m.add_function(wrap_pyfunction!(databases::egdb_mark_work, m)?)?;
    m.add_function(wrap_pyfunction!(databases::egdb_chunk_bounds, m)?)?;
    m.add_function(wrap_pyfunction!(databases::egdb_chunk_values, m)?)?;
    m.add_function(wrap_pyfunction!(databases::egdb_write_level, m)?)?;
    m.add("EgdbError", py.get_type::<EgdbError>())?;
    m.add_function(wrap_pyfunction!(search::best_move, m)?)?;
    m.add_function(wrap_pyfunction!(search::level_settings, m)?)?;
    m.add_function(wrap_pyfunction!(search::level_choice, m)?)?;
    m.add_function(wrap_pyfunction!(search::run_bench, m)?)?;
    m.add_function(wrap_pyfunction!(variant::families, m)?)?;
    m.add_function(wrap_pyfunction!(variant::register_rule_file, m)?)?;
    m.add_function(wrap_pyfunction!(variant::builtin_rule_file, m)?)?;
    // Class-level defaults, so every instance has every attribute (None where it does not apply).
    for k in ["code", "field", "option"] {
        py.get_type::<GriotError>().setattr(k, py.None())?;
    }
    m.add("GriotError", py.get_type::<GriotError>())?;
    m.add("NotationError", py.get_type::<NotationError>())?;
    m.add("VariantError", py.get_type::<VariantError>())?;
    m.add("UnknownVariantError", py.get_type::<UnknownVariantError>())?;
    m.add("RuleFileError", py.get_type::<RuleFileError>())?;
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    Ok(())
}
