//! Search scores: one `i32` in centi-units from the side to move's view, with a band at each end
//! for proven results.
//!
//! A heuristic score is a margin: 100 = one seed (or piece) ahead. A proven result is stored as
//! `WIN - plies` (the side to move wins after `plies` more turns) or `-(WIN - plies)`; inside the
//! search `plies` counts from the root, in the transposition table from the stored node (see
//! [`to_table`] / [`from_table`]) so an entry stays right wherever the position recurs.

use std::fmt;

/// A score value: centi-units, or a proven win/loss encoded near [`WIN`].
pub type Value = i32;

/// The score of a win right now (no more turns).
pub const WIN: Value = 1_000_000;
/// Longest distance to a proven end the encoding keeps; past it a win reads as a large margin.
pub const MAX_PLIES: Value = 10_000;
/// Above every score: the window bound of a full-window search.
pub const INFINITE: Value = WIN + 1;
/// The smallest value that means "proven win".
pub const WIN_BOUND: Value = WIN - MAX_PLIES;

/// The score of winning `plies` turns from the root.
#[inline]
pub fn win_in(plies: u32) -> Value {
    WIN - plies as Value
}

/// The score of losing `plies` turns from the root.
#[inline]
pub fn loss_in(plies: u32) -> Value {
    -WIN + plies as Value
}

/// Whether `v` is a proven win or loss.
#[inline]
pub fn is_proven(v: Value) -> bool {
    v.abs() >= WIN_BOUND
}

/// Converts a root-relative score found `ply` turns below the root to a node-relative one for the
/// table.
#[inline]
pub fn to_table(v: Value, ply: u32) -> Value {
    if v >= WIN_BOUND {
        v + ply as Value
    } else if v <= -WIN_BOUND {
        v - ply as Value
    } else {
        v
    }
}

/// Converts a node-relative table score back to a root-relative one `ply` turns below the root.
#[inline]
pub fn from_table(v: Value, ply: u32) -> Value {
    if v >= WIN_BOUND {
        v - ply as Value
    } else if v <= -WIN_BOUND {
        v + ply as Value
    } else {
        v
    }
}

/// A window bound of a node as its child sees it, one ply lower (`to_table(v, 1)`), kept within
/// `±INFINITE`: an open window stays open. The distributed search splits windows with it.
#[inline]
pub fn bound_to_child(v: Value) -> Value {
    to_table(v, 1).clamp(-INFINITE, INFINITE)
}

/// A child's value as its parent sees it, one ply higher (`from_table(v, 1)`).
#[inline]
pub fn value_from_child(v: Value) -> Value {
    from_table(v, 1)
}

/// A score a user reads: a margin, or a proven win or loss in a number of turns.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// Centi-units of margin for the side to move (100 = one seed or piece ahead); proven draws
    /// read as `Margin(0)` with an exact bound.
    Margin(i32),
    /// The side to move wins after this many more turns (both players' turns counted).
    WinIn(u32),
    /// The side to move loses after this many more turns.
    LossIn(u32),
}

impl Score {
    /// Reads a root-relative [`Value`].
    pub fn from_value(v: Value) -> Score {
        if v >= WIN_BOUND {
            Score::WinIn((WIN - v) as u32)
        } else if v <= -WIN_BOUND {
            Score::LossIn((WIN + v) as u32)
        } else {
            Score::Margin(v)
        }
    }

    /// The root-relative [`Value`] of this score.
    pub fn value(self) -> Value {
        match self {
            Score::Margin(c) => c,
            Score::WinIn(n) => win_in(n),
            Score::LossIn(n) => loss_in(n),
        }
    }

    /// A proven result counted in the side to move's own turns, as a player reads it ("wins on
    /// my 3rd turn"), or `None` for a margin. A win `n` turns away (both players' turns) ends on
    /// the mover's own turn number `ceil(n / 2)`, at least 1; a loss `n` turns away comes after
    /// `floor(n / 2)` of the mover's turns.
    pub fn own_turns(self) -> Option<u32> {
        match self {
            Score::Margin(_) => None,
            Score::WinIn(n) => Some(n.div_ceil(2).max(1)),
            Score::LossIn(n) => Some(n / 2),
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Score::Margin(c) => write!(f, "{:+.2}", c as f64 / 100.0),
            Score::WinIn(n) => write!(f, "win in {n}"),
            Score::LossIn(n) => write!(f, "loss in {n}"),
        }
    }
}

/// What a score says about the true value: exact, or a bound from a cut-off search.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Bound {
    /// The true value is at least the score (the search failed high).
    Lower = 1,
    /// The true value is at most the score (the search failed low).
    Upper = 2,
    /// The score is the value at this depth.
    Exact = 3,
}

impl Bound {
    /// A stable name: `lower`, `upper`, `exact`.
    pub fn name(self) -> &'static str {
        match self {
            Bound::Lower => "lower",
            Bound::Upper => "upper",
            Bound::Exact => "exact",
        }
    }

    pub(crate) fn from_bits(b: u8) -> Option<Bound> {
        match b & 3 {
            1 => Some(Bound::Lower),
            2 => Some(Bound::Upper),
            3 => Some(Bound::Exact),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_round_trip_keeps_distances() {
        for ply in [0u32, 1, 7, 40] {
            for v in [win_in(ply + 3), loss_in(ply + 5), 250, -1200, 0] {
                assert_eq!(from_table(to_table(v, ply), ply), v);
            }
        }
        // A win 3 turns below a node 5 plies deep is stored as "win in 3" at the node.
        assert_eq!(to_table(win_in(8), 5), win_in(3));
        assert_eq!(Score::from_value(loss_in(4)), Score::LossIn(4));
        assert_eq!(Score::from_value(-150).to_string(), "-1.50");
    }

    #[test]
    fn one_ply_steps_keep_open_windows_open() {
        // A win found 3 turns below the parent is a win in 2 below the child, and back.
        assert_eq!(bound_to_child(win_in(3)), win_in(2));
        assert_eq!(value_from_child(win_in(2)), win_in(3));
        assert_eq!(bound_to_child(loss_in(3)), loss_in(2));
        assert_eq!(value_from_child(loss_in(2)), loss_in(3));
        assert_eq!((bound_to_child(-250), value_from_child(-250)), (-250, -250));
        // An open bound stays open rather than passing INFINITE.
        assert_eq!(bound_to_child(INFINITE), INFINITE);
        assert_eq!(bound_to_child(-INFINITE), -INFINITE);
        assert_eq!(bound_to_child(WIN), INFINITE);
    }

    #[test]
    fn own_turns_count_the_movers_turns() {
        let own = |v| Score::from_value(v).own_turns();
        assert_eq!(
            [own(win_in(0)), own(win_in(1)), own(win_in(2)), own(win_in(3))],
            [Some(1), Some(1), Some(1), Some(2)]
        );
        assert_eq!(
            [own(loss_in(0)), own(loss_in(1)), own(loss_in(2)), own(loss_in(5))],
            [Some(0), Some(0), Some(1), Some(2)]
        );
        assert_eq!(own(-150), None);
    }
}
