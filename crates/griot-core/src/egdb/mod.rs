//! Endgame databases by retrograde analysis for two-row sowing games whose state is the board,
//! the stores and the side to move.
//!
//! **The value.** A level holds every board with `s` seeds, each with South and with North to
//! move. A position's value is the side to move's *margin over the board*: the seeds it takes from
//! the board by the end of the game (captures and the share of the remaining seeds) less the seeds
//! the opponent takes, with best play by both; the result of the game is the stores' difference
//! plus this margin. The stores and the turn count do not enter it, so it is computed with empty
//! stores and one turn played (see the limits below).
//!
//! **Levels.** A capture lowers the seeds on the board, so a capturing move leads to a lower,
//! already final level; the rest of the moves stay in the level. Each level is solved on its own,
//! in increasing seed count:
//! - positions are numbered by a stars-and-bars rank of the board ([`rank`]) times the side to
//!   move, no hash table;
//! - the game's own rules decide which positions end the game and how (its [`Game::outcome`]),
//!   which moves are legal and where they lead ([`Game::play_unchecked`]); a relay sowing cut
//!   after 1,000 laps ends the game as the rules end it, a function of the board;
//! - **cycles**: the rules end a game that repeats a position as an endless cycle, shared out by
//!   the rule set's `endless` rule at the position where it closes. Two fixpoints bound every
//!   value: `lo`, where South must force the end of the game (endless play counts as South's worst
//!   result), and `hi`, where North must (endless play is South's best); both are computed by
//!   value iteration from the extremes. Where `lo = hi` the value does not depend on the cycle rule.
//!   Otherwise neither side can force a result past `[lo, hi]` and the value is the cycle's share
//!   at this position, `clamp(endless, lo, hi)`: exactly the value of the game in which endless
//!   play is scored by this position's share. (The rules score the position where the repetition
//!   happens, which depends on the history: no history-free value is exact for every history.)
//!   Such positions are flagged *valued by a cycle* in the level file: the probe reports them as
//!   [`Probe::Cycle`], and neither the search nor [`Egdb::probe_winner`] takes their value as
//!   exact. A capture into a lower-level position takes that position's two bounds, its lower
//!   one into `lo` and its upper one into `hi` (both are its value unless it is itself valued by a
//!   cycle, whose bounds the level file keeps): so a position whose value depends on a lower
//!   cycle through a capture has bounds that differ, and is flagged too.
//!
//! **Which rule sets qualify** ([`qualifies`]): the rule files of the two-row family whose
//! remaining-seeds and endless rules read only the board and the side to move. Not the rule sets
//! giving the remaining seeds to the last capturer (Darra, Oware, Wouri, any file with
//! `last-capturer`):
//! the last capturer is part of the state, not of the board. Not the rule sets with an opening
//! (`[opening]`: the holes still to sow and the turns played are state too), nor those played in
//! rounds (`[rounds]`: the stores refill the rows). Not Béchi (a match of rounds, filling
//! holes from the stores between rounds: its state is the stores), Ikibuguzo (four rows, scripted
//! opening) and Sabou'iyya (not a sowing game).
//!
//! **Limits, checked by the probe ([`Egdb::probe`]):**
//! - store thresholds (`end.store_above`, as in Abapa and Dakar) read the stores. The database
//!   ignores them. A position is exactly valued when no store can pass the threshold before the
//!   end (each store plus the board's seeds at most the threshold). When a store can, the winner
//!   is still exact as long as the seeds in play are at most twice the threshold plus one: a
//!   store past the threshold then holds more than half of them and keeps the win whatever
//!   follows; the margin is not exact then ([`Probe::Winner`]). Otherwise the position is out of
//!   range.
//! - the hard turn limit is not modelled: positions within [`TURN_MARGIN`] turns of it are out
//!   of range;
//! - rule sets giving the remaining seeds to the last mover read whether a turn was played:
//!   values assume one was, and the start position (turn 0) is out of range.

mod build;
mod expand;
pub mod file;
pub mod graph;
pub mod rank;

use std::fmt;
use std::path::{Path, PathBuf};

pub use build::{
    build, build_with, chunk_bounds, chunk_pass, chunk_pass_values, chunk_values, solve_level, work_dir,
    BuildEvent, BuildOptions, LevelStats, SolvedLevel,
};
pub use expand::Lower;
use file::{LevelFile, LevelKey};
use rank::Ranker;

use crate::game::{Game, Player};
use crate::sowing::rules::Remaining;
use crate::sowing::{SowingGame, SowingPosition};

/// Positions this close to the turn limit are out of range: the database assumes no limit.
pub const TURN_MARGIN: u32 = 500;
/// Most seeds a level may hold: margins are stored in seven bits of a byte, the eighth flagging
/// positions valued by a cycle ([`file::encode`]).
pub const MAX_LEVEL_SEEDS: u32 = 63;

/// What went wrong with a database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EgdbError {
    /// The rule set cannot have a database (the reason says why).
    NotQualified {
        /// The variant string.
        variant: String,
        /// Why.
        reason: String,
    },
    /// A file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The system's message.
        message: String,
    },
    /// A level file is damaged: truncated, bad magic, bad checksum.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A level file is whole but belongs to another rule set, board, seed count or format.
    Mismatch {
        /// The file.
        path: PathBuf,
        /// The header field that differs.
        field: &'static str,
        /// What this database needs.
        expected: String,
        /// What the file says.
        found: String,
    },
    /// A level is too large to build or to index.
    TooLarge {
        /// Seeds on the board.
        seeds: u32,
        /// Why.
        message: String,
    },
}

impl fmt::Display for EgdbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EgdbError::NotQualified { variant, reason } => {
                write!(f, "{variant} cannot have an endgame database: {reason}")
            }
            EgdbError::Io { path, message } => write!(f, "{}: {message}", path.display()),
            EgdbError::Corrupt { path, message } => {
                write!(f, "{}: corrupt endgame database file, refused: {message}", path.display())
            }
            EgdbError::Mismatch { path, field, expected, found } => write!(
                f,
                "{}: endgame database file for another {field} (expected {expected}, found {found}), refused",
                path.display()
            ),
            EgdbError::TooLarge { seeds, message } => write!(f, "level {seeds}: {message}"),
        }
    }
}

impl std::error::Error for EgdbError {}

/// Whether `game` can have a database: `Ok` or the reason it cannot.
pub fn qualifies(game: &SowingGame) -> Result<(), EgdbError> {
    let r = game.rules();
    let no = |reason: &str| {
        Err(EgdbError::NotQualified { variant: game.variant().to_string(), reason: reason.to_string() })
    };
    if r.remaining == Remaining::LastCapturer || r.endless == Remaining::LastCapturer {
        return no("the remaining seeds go to the player who captured last, which the board does not show");
    }
    if r.opening.any() {
        return no("the opening's rules read the holes still to sow and the turns played, which the board does not show");
    }
    if r.rounds.is_some() {
        return no("it is a match of rounds: the stores refill the rows between rounds, so the stores and the holes out of play are state the board does not show");
    }
    Ok(())
}

/// The rule-set string a database is for: the rule set and the board size, the only options the
/// values depend on (seeds per hole and the turn limit do not enter them).
pub fn rules_key(game: &SowingGame) -> String {
    format!("{}(holes={})", game.rules().id, game.holes())
}

/// The directory of a rule set's levels under `dir`: the rule-set string with the characters a
/// file name should not hold replaced.
pub fn level_dir(dir: &Path, game: &SowingGame) -> PathBuf {
    let name: String = rules_key(game)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
        .collect();
    dir.join(name)
}

/// The file of level `seeds`.
pub fn level_path(dir: &Path, game: &SowingGame, seeds: u32) -> PathBuf {
    level_dir(dir, game).join(format!("{seeds:03}.egdb"))
}

/// The header a level must have.
pub fn level_key(game: &SowingGame, seeds: u32) -> Result<LevelKey, EgdbError> {
    let holes = 2 * game.holes();
    let ranker = Ranker::new(holes, seeds as usize)
        .ok_or_else(|| EgdbError::TooLarge { seeds, message: "the level cannot be indexed".into() })?;
    let positions = ranker
        .count()
        .checked_mul(2)
        .ok_or_else(|| EgdbError::TooLarge { seeds, message: "the level cannot be indexed".into() })?;
    Ok(LevelKey { rules: rules_key(game), holes: holes as u32, seeds, positions })
}

/// The index of a position in its level: board rank times two, plus the side to move.
pub fn index_of(ranker: &Ranker, pits: &[u8], to_move: Player) -> u64 {
    ranker.rank(pits) * 2 + to_move.index() as u64
}

/// The position of level index `index` as the database values it: empty stores, one turn played.
pub fn position_at(game: &SowingGame, ranker: &Ranker, index: u64) -> SowingPosition {
    let mut pos = game.start();
    let len = 2 * game.holes();
    ranker.unrank(index / 2, &mut pos.pits[..len]);
    pos.to_move = Player::from_index((index % 2) as usize);
    pos.stores = [0, 0];
    pos.turns = 1;
    pos
}

/// What a probe found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Probe {
    /// The side to move's exact margin over the board's seeds with best play.
    Exact {
        /// Seeds won from the board less seeds lost.
        margin: i32,
    },
    /// The winner is exact but the margin is not (a store threshold may end the game first): the
    /// margin the game would have without the threshold.
    Winner {
        /// The margin without the threshold; its sign with the stores gives the winner.
        margin: i32,
    },
    /// The position is valued by a cycle (its bounds differ): the margin of the game in which
    /// endless play from here is shared out here. Under the rules a repetition elsewhere on the
    /// game's path may decide otherwise, so neither the margin nor the winner is exact: the
    /// result with best play lies between `lo` and `hi`, and those compose over the moves as
    /// minimax does (a position's bounds are the best of its moves' bounds), where the margins
    /// of positions valued by a cycle do not.
    Cycle {
        /// The margin if endless play from here is shared out here.
        margin: i32,
        /// The side to move's least margin with best play, whatever repetitions decide.
        lo: i32,
        /// The side to move's greatest margin with best play, whatever repetitions decide.
        hi: i32,
        /// Whether the bounds are the margins of the game without its store threshold, which
        /// may end the game first: then only the winner at each bound is exact, as for
        /// [`Probe::Winner`].
        winner_only: bool,
    },
    /// The position is not in the databases (the reason says why).
    OutOfRange(&'static str),
}

/// A rule set's levels `0..=max`, mapped read-only.
#[derive(Debug)]
pub struct Egdb {
    key: String,
    id: String,
    holes: usize,
    levels: Vec<LevelFile>,
    rankers: Vec<Ranker>,
}

impl Egdb {
    /// Opens the levels of `game`'s rule set under `dir`, from 0 up to the first missing file.
    /// A file that is present but damaged or of another rule set is an error, never read.
    pub fn open(dir: &Path, game: &SowingGame) -> Result<Egdb, EgdbError> {
        qualifies(game)?;
        let mut levels = Vec::new();
        let mut rankers = Vec::new();
        for seeds in 0..=MAX_LEVEL_SEEDS {
            let path = level_path(dir, game, seeds);
            if !path.exists() {
                break;
            }
            let key = level_key(game, seeds)?;
            levels.push(LevelFile::open(&path, &key)?);
            rankers.push(Ranker::new(2 * game.holes(), seeds as usize).expect("indexed by level_key"));
        }
        Ok(Egdb { key: rules_key(game), id: game.rules().id.clone(), holes: game.holes(), levels, rankers })
    }

    /// The rule-set string.
    pub fn rules_key(&self) -> &str {
        &self.key
    }

    /// The most seeds on the board a position may hold to be in range, or `None` if no level is
    /// loaded.
    pub fn max_seeds(&self) -> Option<u32> {
        self.levels.len().checked_sub(1).map(|m| m as u32)
    }

    /// The stored value of level `seeds` at `index` (the side to move's margin).
    pub fn value(&self, seeds: u32, index: u64) -> i8 {
        self.levels[seeds as usize].get(index)
    }

    /// The side to move's bounds `(lo, hi)` of level `seeds` at `index`: the value twice unless
    /// the position is valued by a cycle.
    pub fn bounds(&self, seeds: u32, index: u64) -> (i8, i8) {
        self.levels[seeds as usize].bounds(index)
    }

    /// Whether the position of level `seeds` at `index` is valued by a cycle.
    pub fn cycle(&self, seeds: u32, index: u64) -> bool {
        self.levels[seeds as usize].cycle(index)
    }

    /// The value of `pos` in `game` (which must be this database's rule set and board).
    pub fn probe(&self, game: &SowingGame, pos: &SowingPosition) -> Probe {
        if game.holes() != self.holes || game.rules().id != self.id {
            return Probe::OutOfRange("another rule set or board");
        }
        let len = 2 * self.holes;
        let seeds: u32 = pos.pits[..len].iter().map(|&c| c as u32).sum();
        if seeds as usize >= self.levels.len() {
            return Probe::OutOfRange("more seeds on the board than the databases hold");
        }
        if pos.is_cut() || pos.last_capturer().is_some() {
            return Probe::OutOfRange("the game ended in a cut sowing");
        }
        let max_turns = game.variant().max_turns();
        if pos.turns.saturating_add(TURN_MARGIN) >= max_turns {
            return Probe::OutOfRange("too close to the turn limit");
        }
        let r = game.rules();
        let last_mover_rules = [Remaining::LastMover, Remaining::NotStuckElseLastMover];
        if pos.turns == 0
            && (last_mover_rules.contains(&r.remaining) || last_mover_rules.contains(&r.endless))
        {
            return Probe::OutOfRange("no turn played yet: the last mover is not defined");
        }
        let index = index_of(&self.rankers[seeds as usize], &pos.pits[..len], pos.to_move);
        let margin = self.value(seeds, index) as i32;
        let cycle = self.cycle(seeds, index);
        let (lo, hi) = self.bounds(seeds, index);
        let (lo, hi) = (lo as i32, hi as i32);
        if let Some(t) = r.end.store_above {
            let t = t as u32;
            let stores = [pos.stores[0] as u32, pos.stores[1] as u32];
            if stores.iter().any(|&st| st > t) {
                return Probe::OutOfRange("a store is past the threshold: the game is over");
            }
            if stores.iter().any(|&st| st + seeds > t) {
                let in_play = stores[0] + stores[1] + seeds;
                return if in_play > 2 * t + 1 {
                    Probe::OutOfRange("a store threshold may end the game first")
                } else if cycle {
                    Probe::Cycle { margin, lo, hi, winner_only: true }
                } else {
                    Probe::Winner { margin }
                };
            }
        }
        if cycle {
            Probe::Cycle { margin, lo, hi, winner_only: false }
        } else {
            Probe::Exact { margin }
        }
    }

    /// The winner of `pos` with best play (`Some(None)` for a draw), or `None` when the
    /// databases do not know it exactly (out of range, or valued by a cycle): what the search
    /// needs.
    pub fn probe_winner(&self, game: &SowingGame, pos: &SowingPosition) -> Option<Option<Player>> {
        match self.probe(game, pos) {
            Probe::Exact { margin } | Probe::Winner { margin } => Some(winner_of(pos, margin)),
            Probe::Cycle { .. } | Probe::OutOfRange(_) => None,
        }
    }
}

/// The winner of `pos` if the side to move ends `margin` seeds ahead of the board's share
/// (`None` for a draw).
pub fn winner_of(pos: &SowingPosition, margin: i32) -> Option<Player> {
    let me = pos.to_move;
    let lead = pos.stores[me.index()] as i32 - pos.stores[me.other().index()] as i32 + margin;
    match lead.cmp(&0) {
        std::cmp::Ordering::Greater => Some(me),
        std::cmp::Ordering::Less => Some(me.other()),
        std::cmp::Ordering::Equal => None,
    }
}

#[cfg(test)]
mod tests;
