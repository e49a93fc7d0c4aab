//! The second-level table hook: how a search exchanges deep results with a cache shared by many
//! searches (the Redis tier of the distributed search), in batches, never per node.
//!
//! Once per iteration whose depth reaches [`SharedTable::min_depth`], the search
//! 1. lists the positions of the top [`SharedTable::plies`] plies of the tree (the root, its
//!    children, ...; each once) with the depth it will search them to, and asks for all of them
//!    in one [`SharedTable::fetch`] call; entries that come back go into the transposition table;
//! 2. after the iteration, sends in one [`SharedTable::publish`] call the table entries of those
//!    positions that are at least `min_depth` deep and deeper than what was exchanged before.
//!
//! Positions are keyed by [`Game::write_key`](crate::Game::write_key) bytes (exact, never
//! confused); callers add the variant and [`ENGINE_VERSION`](crate::ENGINE_VERSION) to their own
//! keys. Scores are node-relative: a proven win is "win in N turns from this position".

use super::score::{Bound, Value};

/// A position the search would like a deep entry for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedRequest {
    /// The position's exact key ([`Game::write_key`](crate::Game::write_key)).
    pub key: Vec<u8>,
    /// The remaining depth the search will give it; shallower entries still help ordering.
    pub depth: u32,
}

/// A result about one position, as stored in a shared table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedEntry {
    /// The position's exact key.
    pub key: Vec<u8>,
    /// Remaining depth searched.
    pub depth: u32,
    /// What the value bounds.
    pub bound: Bound,
    /// Node-relative value (centi-units, or a proven result as in [`score`](super::score)).
    pub value: Value,
    /// The best move as its index in the position's legal-move list.
    pub best: Option<u16>,
}

/// A second-level table the caller plugs into a search.
pub trait SharedTable {
    /// Only iterations at least this deep talk to the table, and only entries at least this deep
    /// are published.
    fn min_depth(&self) -> u32 {
        12
    }

    /// How many plies below the root the exchanged positions reach (0 = the root only).
    fn plies(&self) -> u32 {
        2
    }

    /// Entries for as many of `requests` as the table holds, in any order. One call per
    /// iteration.
    fn fetch(&mut self, requests: &[SharedRequest]) -> Vec<SharedEntry>;

    /// Newly proven deep entries. One call per iteration, none when there is nothing new.
    fn publish(&mut self, entries: Vec<SharedEntry>);
}

/// An in-memory shared table, for tests and for sharing results between searches of one
/// process. Keeps the deeper entry of each position ("deeper wins").
#[derive(Default, Debug)]
pub struct MemoryTable {
    /// The entries by key.
    pub entries: std::collections::HashMap<Vec<u8>, SharedEntry>,
    /// Calls to `fetch` and `publish` so far.
    pub calls: (u32, u32),
    /// The `min_depth` it reports.
    pub min_depth: u32,
}

impl SharedTable for MemoryTable {
    fn min_depth(&self) -> u32 {
        self.min_depth
    }

    fn fetch(&mut self, requests: &[SharedRequest]) -> Vec<SharedEntry> {
        self.calls.0 += 1;
        requests.iter().filter_map(|r| self.entries.get(&r.key).cloned()).collect()
    }

    fn publish(&mut self, entries: Vec<SharedEntry>) {
        self.calls.1 += 1;
        for e in entries {
            let keep_old = self.entries.get(&e.key).is_some_and(|old| old.depth > e.depth);
            if !keep_old {
                self.entries.insert(e.key.clone(), e);
            }
        }
    }
}
