//! The search engine, generic over [`Game`]: every game family gets it.
//!
//! Separate modules with narrow interfaces, after Stockfish's layout:
//! - [`engine`]: iterative deepening, principal-variation search with aspiration windows, limits,
//!   stop flag, progress, per-move root scores (multi-PV); the rule decisions (game end, endless
//!   cycles, turn limit) are in its header;
//! - [`tt`]: the transposition table;
//! - [`ordering`]: move ordering (table move, captures, killers, history);
//! - [`eval`]: evaluation per family, in centi-units;
//! - [`exact`]: exact results from the endgame databases, for the families that have them;
//! - [`learned`]: the learned two-row sowing evaluation, its features and fitted weights files;
//! - [`score`]: values, proven wins/losses in N turns, bounds;
//! - [`shared`]: the batched second-level table hook (the Redis tier plugs in here);
//! - [`level`]: AI strength levels 1–10;
//! - [`reference`]: plain minimax, the search's test oracle;
//! - [`bench`]: the fixed bench whose node count is the search's signature.

pub mod engine;
pub mod eval;
pub mod exact;
pub mod learned;
pub mod level;
pub mod ordering;
pub mod reference;
pub mod score;
pub mod shared;
pub mod tt;

pub use engine::{
    near_turn_limit, Clock, Hooks, Limits, RootMove, SearchOptions, SearchResult, Searcher, MAX_DEPTH,
    TURN_LIMIT_MARGIN,
};
pub use eval::{EvalStyle, EvalWeights, Evaluate};
pub use exact::ExactResults;
pub use score::{Bound, Score, Value};
pub use shared::{MemoryTable, SharedEntry, SharedRequest, SharedTable};

/// Searches `root` once with a fresh table: see [`Searcher::search`].
pub fn search<G: Evaluate>(
    game: &G,
    root: &G::Position,
    history: &[u64],
    options: &SearchOptions,
    hooks: Hooks<'_, G::Move>,
) -> SearchResult<G::Move> {
    Searcher::new(game.clone(), options.clone()).search(root, history, hooks)
}

/// Searches `root` with a table kept by the caller between searches (its entries of earlier
/// searches order the moves and answer what they searched deep enough): see
/// [`Searcher::with_table`].
pub fn search_with_table<G: Evaluate>(
    game: &G,
    root: &G::Position,
    history: &[u64],
    options: &SearchOptions,
    hooks: Hooks<'_, G::Move>,
    table: &mut tt::TranspositionTable,
) -> SearchResult<G::Move> {
    let tt = std::mem::replace(table, tt::TranspositionTable::new(0));
    let mut searcher = Searcher::with_table(game.clone(), options.clone(), tt);
    let r = searcher.search(root, history, hooks);
    *table = searcher.into_table();
    r
}

#[cfg(test)]
mod eval_tests;
#[cfg(test)]
mod tests;
