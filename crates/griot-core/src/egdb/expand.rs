//! Expanding one position of a level into its exits and in-level children: the step that solving
//! in memory ([`super::build`]) and solving in bounded memory ([`super::graph`]) share.

use super::file::LevelKey;
use super::rank::Ranker;
use super::{index_of, level_key, position_at, qualifies, EgdbError, MAX_LEVEL_SEEDS};
use crate::game::{Game, MoveList, Player};
use crate::sowing::{SowingGame, SowingMove};

/// No exit: a position whose moves all stay in its level (or, as a terminal value, not terminal).
pub(super) const NO_EXIT: i16 = i16::MIN;

/// The side to move's bounds `(lo, hi)` on the margin of a lower-level position, by seed count
/// and index: its value twice unless it is valued by a cycle ([`super::file::LevelFile::bounds`]).
pub type Lower<'a> = dyn Fn(u32, u64) -> (i8, i8) + 'a;

/// One position of a level, expanded: its terminal value, or its best exit (a move leaving the
/// level, `NO_EXIT` if none) for each bound and its endless share, its in-level children pushed
/// onto `children`. South's margins. A capture into a lower position valued by a cycle gives the
/// lower bound its lower bound and the upper bound its upper bound, so that a position whose
/// value depends on that cycle through the capture has bounds that differ too.
pub(super) struct Expander<'a> {
    game: &'a SowingGame,
    seeds: u32,
    len: usize,
    ranker: Ranker,
    lower_rankers: Vec<Ranker>,
    lower: &'a Lower<'a>,
    moves: MoveList<SowingMove>,
}

pub(super) enum Expanded {
    Terminal(i16),
    /// `exit`: the best exit for the lower bound and for the upper bound.
    Inner {
        exit: (i16, i16),
        endless: i16,
    },
}

impl<'a> Expander<'a> {
    pub(super) fn new(game: &'a SowingGame, seeds: u32, lower: &'a Lower<'a>) -> Self {
        let len = 2 * game.holes();
        Expander {
            game,
            seeds,
            len,
            ranker: Ranker::new(len, seeds as usize).expect("indexed by level_key"),
            lower_rankers: (0..seeds)
                .map(|s| Ranker::new(len, s as usize).expect("smaller than this level"))
                .collect(),
            lower,
            moves: MoveList::new(),
        }
    }

    pub(super) fn expand(&mut self, i: u64, children: &mut Vec<u32>) -> Expanded {
        let (game, len, seeds) = (self.game, self.len, self.seeds);
        let pos = position_at(game, &self.ranker, i);
        let south = pos.to_move == Player::South;
        if let Some(o) = game.outcome(&pos) {
            return Expanded::Terminal((o.scores[0] - o.scores[1]) as i16);
        }
        let e = game.endless_outcome(&pos);
        let endless = (e.scores[0] - e.scores[1]) as i16;
        self.moves.clear();
        game.legal_moves(&pos, &mut self.moves);
        let (mut best_lo, mut best_hi) = (NO_EXIT, NO_EXIT);
        let better = |best: i16, value: i16| {
            if best == NO_EXIT {
                value
            } else if south {
                best.max(value)
            } else {
                best.min(value)
            }
        };
        for &mv in &self.moves {
            let child = game.play_unchecked(&pos, mv);
            let on_board: u32 = child.pits[..len].iter().map(|&c| c as u32).sum();
            let (lo, hi) = if child.is_cut() {
                let o = game.outcome(&child).expect("a cut sowing ends the game");
                let v = (o.scores[0] - o.scores[1]) as i16;
                (v, v)
            } else if on_board == seeds {
                debug_assert_eq!(child.stores, [0, 0]);
                children.push(index_of(&self.ranker, &child.pits[..len], child.to_move) as u32);
                continue;
            } else {
                let r = &self.lower_rankers[on_board as usize];
                let (l, h) = (self.lower)(on_board, index_of(r, &child.pits[..len], child.to_move));
                // South's bounds: North's lower margin is South's upper one.
                let (l, h) = if child.to_move == Player::South {
                    (l as i16, h as i16)
                } else {
                    (-h as i16, -l as i16)
                };
                let stores = child.stores[0] as i16 - child.stores[1] as i16;
                (stores + l, stores + h)
            };
            best_lo = better(best_lo, lo);
            best_hi = better(best_hi, hi);
        }
        Expanded::Inner { exit: (best_lo, best_hi), endless }
    }
}

/// The key of level `seeds` of `game`, if the game has databases and the level is within bounds.
pub(super) fn check_level(game: &SowingGame, seeds: u32) -> Result<LevelKey, EgdbError> {
    qualifies(game)?;
    if seeds > MAX_LEVEL_SEEDS {
        return Err(EgdbError::TooLarge {
            seeds,
            message: format!("at most {MAX_LEVEL_SEEDS} seeds a level"),
        });
    }
    level_key(game, seeds)
}
