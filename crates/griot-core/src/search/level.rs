//! AI strength levels 1–10 for frontends: a depth cap (and a time cap at the top levels) plus
//! controlled, seeded randomness among near-best moves.
//!
//! Weak levels search shallow and pick uniformly among the moves scored within a margin of the
//! best (every root move is scored exactly for that); strong levels play the best move. Levels
//! 1–8 are deterministic for a seed; 9 and 10 are capped by time as well.

use std::time::Duration;

use super::engine::{Limits, SearchOptions, SearchResult};
use super::score::{Bound, WIN_BOUND};
use crate::rng::SplitMix64;

/// Lowest and highest level.
pub const LEVELS: std::ops::RangeInclusive<u8> = 1..=10;

/// What a level searches and how much it strays.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Level {
    /// Deepest iteration.
    pub depth: u32,
    /// Time cap, if any.
    pub time: Option<Duration>,
    /// Moves within this many centi-units of the best may be played.
    pub margin: i32,
}

/// The settings of `level` (clamped to 1–10).
pub fn level(level: u8) -> Level {
    let l = level.clamp(*LEVELS.start(), *LEVELS.end());
    let (depth, margin, time_ms) = match l {
        1 => (1, 400, None),
        2 => (2, 300, None),
        3 => (3, 200, None),
        4 => (4, 150, None),
        5 => (6, 100, None),
        6 => (8, 60, None),
        7 => (10, 30, None),
        8 => (12, 10, None),
        9 => (18, 0, Some(1000)),
        _ => (super::engine::MAX_DEPTH, 0, Some(3000)),
    };
    Level { depth, time: time_ms.map(Duration::from_millis), margin }
}

impl Level {
    /// Search options for this level on top of `base` (table size, evaluation, stop flag).
    pub fn options(&self, base: &SearchOptions) -> SearchOptions {
        SearchOptions {
            limits: Limits { depth: Some(self.depth), nodes: None, time: self.time, clock: None },
            multipv: if self.margin > 0 { usize::MAX } else { 1 },
            ..base.clone()
        }
    }

    /// Picks the move to play from a search made with [`Level::options`]: uniformly among the
    /// exactly scored moves within the margin of the best, never a proven loss when the best is
    /// not one. `None` when the game is over. The pick is [`Level::choose_text`]'s over the
    /// moves' notation, so a caller holding only the moves' text, values and bounds (the gateway,
    /// from the workers' results) picks the same move for the same seed.
    pub fn choose<M: Clone>(&self, result: &SearchResult<M>, seed: u64) -> Option<M> {
        let moves: Vec<(&str, i32, Bound)> =
            result.moves.iter().map(|m| (m.text.as_str(), m.value, m.bound)).collect();
        let text = self.choose_text(&moves, seed)?;
        result.moves.iter().find(|m| m.text == text).map(|m| m.mv.clone())
    }

    /// [`Level::choose`] over root moves given as `(text, value, bound)`, best first. The
    /// candidates are drawn in the order of their text, so the pick does not depend on how
    /// moves of equal value were ordered.
    pub fn choose_text<'a>(&self, moves: &[(&'a str, i32, Bound)], seed: u64) -> Option<&'a str> {
        let &(best, best_value, _) = moves.first()?;
        if self.margin == 0 {
            return Some(best);
        }
        let floor = if best_value >= WIN_BOUND || best_value <= -WIN_BOUND {
            best_value
        } else {
            (best_value - self.margin).max(-WIN_BOUND + 1)
        };
        let mut candidates: Vec<&'a str> = moves
            .iter()
            .filter(|&&(_, value, bound)| bound == Bound::Exact && value >= floor)
            .map(|&(text, _, _)| text)
            .collect();
        if candidates.is_empty() {
            return Some(best);
        }
        candidates.sort_unstable();
        let mut rng = SplitMix64(seed ^ 0x6772_696f_745f_6169);
        Some(candidates[rng.below(candidates.len())])
    }
}
