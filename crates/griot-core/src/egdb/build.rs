//! Solving one level, and building a rule set's levels in order with resumption: a level whose
//! file is present and checks out is kept, not rebuilt.

use std::path::Path;
use std::time::Instant;

use super::file::{write_level, LevelFile};
use super::rank::Ranker;
use super::{level_key, level_path, position_at, qualifies, EgdbError, MAX_LEVEL_SEEDS};
use crate::game::{Game, MoveList, Player};
use crate::sowing::SowingGame;

/// Most positions a level may have to be solved in memory (about 40 bytes a position).
const MAX_LEVEL_POSITIONS: u64 = 400_000_000;

/// What a build reports as it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildEvent {
    /// A level's file was present and whole: kept.
    Kept {
        /// Seeds on the board.
        seeds: u32,
        /// Positions.
        positions: u64,
    },
    /// A level is being solved.
    Started {
        /// Seeds on the board.
        seeds: u32,
        /// Positions.
        positions: u64,
    },
    /// Positions of the level expanded so far (its moves generated and played).
    Expanded {
        /// Seeds on the board.
        seeds: u32,
        /// Positions done.
        done: u64,
    },
    /// A level was solved and written.
    Written(LevelStats),
}

/// Figures of one solved level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelStats {
    /// Seeds on the board.
    pub seeds: u32,
    /// Positions.
    pub positions: u64,
    /// Value-iteration passes until both bounds were stable.
    pub passes: u32,
    /// Positions whose value is the cycle's share (the bounds differ).
    pub cycle_valued: u64,
    /// Wall time to solve, in milliseconds.
    pub millis: u64,
    /// Size of the file, in bytes.
    pub file_bytes: u64,
}

const NO_EXIT: i16 = i16::MIN;

/// Solves level `seeds` of `game`: one value a position, the side to move's margin. `lower`
/// gives the value of a position of a lower level, by seed count and index.
pub fn solve_level(
    game: &SowingGame,
    seeds: u32,
    lower: &dyn Fn(u32, u64) -> i8,
    progress: &mut dyn FnMut(u64),
) -> Result<(Vec<i8>, u32, u64), EgdbError> {
    qualifies(game)?;
    if seeds > MAX_LEVEL_SEEDS {
        return Err(EgdbError::TooLarge {
            seeds,
            message: format!("at most {MAX_LEVEL_SEEDS} seeds a level"),
        });
    }
    let key = level_key(game, seeds)?;
    if key.positions > MAX_LEVEL_POSITIONS {
        return Err(EgdbError::TooLarge {
            seeds,
            message: format!(
                "{} positions; at most {MAX_LEVEL_POSITIONS} are solved in memory",
                key.positions
            ),
        });
    }
    let len = 2 * game.holes();
    let ranker = Ranker::new(len, seeds as usize).expect("indexed by level_key");
    let lower_rankers: Vec<Ranker> =
        (0..seeds).map(|s| Ranker::new(len, s as usize).expect("smaller than this level")).collect();
    let n = key.positions as usize;
    let s = seeds as i16;

    // Expansion: each position's terminal value or its best exit (a move leaving the level) and
    // its moves within the level. Values are South's margin while solving.
    let mut terminal = vec![NO_EXIT; n];
    let mut exit = vec![NO_EXIT; n];
    let mut endless = vec![0i16; n];
    let mut offsets: Vec<u32> = Vec::with_capacity(n + 1);
    let mut children: Vec<u32> = Vec::new();
    let mut moves = MoveList::new();
    offsets.push(0);
    for (i, ((term, ex), end)) in terminal.iter_mut().zip(exit.iter_mut()).zip(endless.iter_mut()).enumerate()
    {
        if i % (1 << 16) == 0 {
            progress(i as u64);
        }
        let pos = position_at(game, &ranker, i as u64);
        let south = pos.to_move == Player::South;
        if let Some(o) = game.outcome(&pos) {
            *term = (o.scores[0] - o.scores[1]) as i16;
            offsets.push(children.len() as u32);
            continue;
        }
        let e = game.endless_outcome(&pos);
        *end = (e.scores[0] - e.scores[1]) as i16;
        moves.clear();
        game.legal_moves(&pos, &mut moves);
        let mut best = NO_EXIT;
        for &mv in &moves {
            let child = game.play_unchecked(&pos, mv);
            let on_board: u32 = child.pits[..len].iter().map(|&c| c as u32).sum();
            let value = if child.is_cut() {
                let o = game.outcome(&child).expect("a cut sowing ends the game");
                (o.scores[0] - o.scores[1]) as i16
            } else if on_board == seeds {
                debug_assert_eq!(child.stores, [0, 0]);
                let c = super::index_of(&ranker, &child.pits[..len], child.to_move);
                children.push(c as u32);
                continue;
            } else {
                let c = super::index_of(&lower_rankers[on_board as usize], &child.pits[..len], child.to_move);
                let v = lower(on_board, c) as i16;
                let v = if child.to_move == Player::South { v } else { -v };
                child.stores[0] as i16 - child.stores[1] as i16 + v
            };
            best = if best == NO_EXIT {
                value
            } else if south {
                best.max(value)
            } else {
                best.min(value)
            };
        }
        *ex = best;
        offsets.push(children.len() as u32);
    }
    progress(n as u64);

    // The two fixpoints by value iteration from the extremes, in place (Gauss-Seidel), sweeping
    // forward and backward in turn.
    let bound = |start: i16| -> (Vec<i16>, u32) {
        let mut v: Vec<i16> = terminal.iter().map(|&t| if t == NO_EXIT { start } else { t }).collect();
        let mut passes = 0;
        loop {
            passes += 1;
            let mut changed = false;
            let mut relax = |i: usize, v: &mut Vec<i16>| {
                if terminal[i] != NO_EXIT {
                    return;
                }
                let south = i % 2 == 0;
                let mut best = exit[i];
                for &c in &children[offsets[i] as usize..offsets[i + 1] as usize] {
                    let x = v[c as usize];
                    best = if best == NO_EXIT {
                        x
                    } else if south {
                        best.max(x)
                    } else {
                        best.min(x)
                    };
                }
                if best != v[i] {
                    v[i] = best;
                    changed = true;
                }
            };
            if passes % 2 == 1 {
                (0..n).for_each(|i| relax(i, &mut v));
            } else {
                (0..n).rev().for_each(|i| relax(i, &mut v));
            }
            if !changed {
                return (v, passes);
            }
        }
    };
    let (lo, lo_passes) = bound(-s);
    let (hi, hi_passes) = bound(s);
    let mut cycle_valued = 0u64;
    let values: Vec<i8> = (0..n)
        .map(|i| {
            let v = if terminal[i] != NO_EXIT {
                terminal[i]
            } else {
                if lo[i] != hi[i] {
                    cycle_valued += 1;
                }
                endless[i].clamp(lo[i], hi[i])
            };
            (if i % 2 == 0 { v } else { -v }) as i8
        })
        .collect();
    Ok((values, lo_passes.max(hi_passes), cycle_valued))
}

/// Builds the levels `0..=max_seeds` of `game`'s rule set under `dir`, in increasing seed count;
/// a level whose file is present and checks out is kept. Returns the stats of the levels solved.
pub fn build(
    dir: &Path,
    game: &SowingGame,
    max_seeds: u32,
    events: &mut dyn FnMut(&BuildEvent),
) -> Result<Vec<LevelStats>, EgdbError> {
    qualifies(game)?;
    let level_dir = super::level_dir(dir, game);
    std::fs::create_dir_all(&level_dir)
        .map_err(|e| EgdbError::Io { path: level_dir.clone(), message: e.to_string() })?;
    let mut levels: Vec<LevelFile> = Vec::new();
    let mut stats = Vec::new();
    for seeds in 0..=max_seeds {
        let key = level_key(game, seeds)?;
        let path = level_path(dir, game, seeds);
        if path.exists() {
            levels.push(LevelFile::open(&path, &key)?);
            events(&BuildEvent::Kept { seeds, positions: key.positions });
            continue;
        }
        events(&BuildEvent::Started { seeds, positions: key.positions });
        let start = Instant::now();
        let lower = |s: u32, i: u64| levels[s as usize].get(i);
        let (values, passes, cycle_valued) =
            solve_level(game, seeds, &lower, &mut |done| events(&BuildEvent::Expanded { seeds, done }))?;
        let millis = start.elapsed().as_millis() as u64;
        write_level(&path, &key, &values)?;
        let file = LevelFile::open(&path, &key)?;
        let file_bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        levels.push(file);
        let st = LevelStats { seeds, positions: key.positions, passes, cycle_valued, millis, file_bytes };
        events(&BuildEvent::Written(st.clone()));
        stats.push(st);
    }
    Ok(stats)
}
