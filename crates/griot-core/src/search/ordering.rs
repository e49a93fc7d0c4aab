//! Move ordering: the table move first, then captures by the material they win, then the two
//! killer moves of the ply, then the rest by history.
//!
//! The search tries the table move before it plays anything else (a cut there saves playing the
//! other moves); the remaining moves are played once, scored here and searched best first.
//! Captures are recognised by the material delta of the move ([`Game::evaluate`] before and after),
//! which needs nothing from a game family beyond the trait.

use std::hash::{Hash, Hasher};

use crate::game::{Game, Player};

/// Plies the killer table covers.
pub const MAX_PLY: usize = 256;

const HISTORY_SIZE: usize = 4096;
const HISTORY_MAX: i32 = 1 << 20;

/// Ordering score bands: captures above killers above history.
const CAPTURE_BAND: i32 = 1 << 28;
const KILLER_BAND: i32 = 1 << 26;

/// Killer moves (quiet moves that caused a cut at the same ply) and the history heuristic
/// (how often a move caused cuts, weighted by depth), kept for one search.
pub struct Ordering<G: Game> {
    killers: Vec<[Option<G::Move>; 2]>,
    history: Vec<[i32; HISTORY_SIZE]>,
}

/// A small, fast hasher for moves (FxHash).
#[derive(Default)]
struct MoveHasher(u64);

impl Hasher for MoveHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
}

fn history_slot<M: Hash>(mv: &M) -> usize {
    let mut h = MoveHasher::default();
    mv.hash(&mut h);
    (h.finish() >> 20) as usize % HISTORY_SIZE
}

impl<G: Game> Default for Ordering<G> {
    fn default() -> Self {
        Self::new()
    }
}

impl<G: Game> Ordering<G> {
    /// Empty tables.
    pub fn new() -> Self {
        Ordering { killers: vec![[None; 2]; MAX_PLY], history: vec![[0; HISTORY_SIZE]; 2] }
    }

    /// Whether an ordering score (from [`Self::score`]) is a quiet move's: neither a capture nor
    /// a killer.
    #[inline]
    pub fn is_quiet(order: i32) -> bool {
        order < KILLER_BAND
    }

    /// Forgets the killers and halves the history between searches of one game.
    pub fn age(&mut self) {
        self.killers.fill([None; 2]);
        for side in &mut self.history {
            for h in side.iter_mut() {
                *h /= 2;
            }
        }
    }

    /// The ordering score of a move that wins `gain` centi-units of material for the mover.
    #[inline]
    pub fn score(&self, side: Player, ply: usize, mv: G::Move, gain: i32) -> i32 {
        if gain > 0 {
            return CAPTURE_BAND + gain;
        }
        if let Some(k) = self.killers.get(ply) {
            if k[0] == Some(mv) {
                return KILLER_BAND + 1;
            }
            if k[1] == Some(mv) {
                return KILLER_BAND;
            }
        }
        // Losing material is ordered by history too: in sowing games "losing" seeds to an
        // opponent's store is rare in one move, and gains below zero come from the rules.
        self.history[side.index()][history_slot(&mv)] + gain
    }

    /// Records a quiet move that caused a cut at `ply` with `depth` to go, and penalises the
    /// quiet moves tried before it.
    pub fn record_cut(
        &mut self,
        side: Player,
        ply: usize,
        depth: u32,
        mv: G::Move,
        tried_before: &[G::Move],
    ) {
        if let Some(k) = self.killers.get_mut(ply) {
            if k[0] != Some(mv) {
                k[1] = k[0];
                k[0] = Some(mv);
            }
        }
        let bonus = (depth * depth) as i32;
        let table = &mut self.history[side.index()];
        let mut update = |slot: usize, delta: i32| {
            let h = &mut table[slot];
            // Gravity keeps values within ±HISTORY_MAX.
            *h += delta - *h * delta.abs() / HISTORY_MAX;
        };
        update(history_slot(&mv), bonus);
        for m in tried_before {
            update(history_slot(m), -bonus);
        }
    }
}
