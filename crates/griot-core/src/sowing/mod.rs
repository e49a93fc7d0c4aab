//! Two-row sowing games as data: one engine interprets a [`RuleSet`].
//!
//! Rule decisions of the engine (each stated with its reason in `docs/rules/README.md` for every game
//! and `docs/rules/awale-collection.md` for the rule language; cited below by file and point):
//! - Holes are indexed `0..n` for South's row from South's left and `n..2n` for North's row from
//!   North's left, so counter-clockwise sowing is index + 1 modulo 2n and the hole opposite `i` is
//!   `2n - 1 - i` (docs/NOTATION.md).
//! - A turn is the whole sowing with every lap and capture (README, point 2).
//! - Multiple sowing: when the last seed of a lap does not end the sowing, that hole is lifted (all,
//!   or all but one with `leave_one`) and sown on from the next hole; the capture rule is applied to
//!   the last hole of the final lap (awale-collection, point 2). "The origin" skipped on a full lap is the
//!   hole the current lap was lifted from. A lap that would lift nothing ends the sowing.
//! - A relay sowing is cut after 1,000 laps: the position gets the `cycle` flag and the game ends as
//!   an endless cycle (README, point 3; docs/NOTATION.md).
//! - Flow capture applies to holes reached during a lap other than its last hole (awale-collection, point 5); the
//!   seeds are taken at once and later seeds of the lap fall into the emptied hole.
//! - The capture chain walks from the last hole against (backward) or along (forward) the sowing
//!   direction while holes match the capture values and territory; without `chain_crosses` it stops at
//!   the edge of the last hole's row; it may take the final lap's origin hole but never goes past it
//!   (awale-collection, point 6), unless `capture.chain_origin = "goes-past"`, where it stops only on
//!   coming round to the hole it started from (docs/rules/readings.md).
//! - Grand slam: a final capture is a grand slam when the opponent's row holds no seed once it is
//!   made, whichever row the captured holes are on ("if capture doesn't leave any seed to the
//!   opponent", read literally). Flow captures never count as a grand slam.
//! - Starving is judged on the position after the whole turn: a move starves when the opponent's row
//!   is empty afterwards (awale-collection, point 9). With `starving.judged = "lap"` a later lap
//!   that would empty it is not sown; with `starving.lap_cut = "game-ends"` that lap is judged with
//!   its capture, and the game ends after the lap before it (flag `lap-cut`; the scores decide, the
//!   seeds left going by `remaining.to`), as the mover of Ludii's J'odu and Wouri, who must sow on,
//!   has no lap left (docs/rules/readings.md).
//! - A player who cannot play in a `pass` variant plays the move `pass` (one turn); the game ends when
//!   neither player can play (awale-collection, point 10).
//! - End conditions (a cut relay, store threshold, board empty, fewer than N seeds, all singletons)
//!   are checked before each turn; then a player to move without a legal move ends the game (or
//!   passes); only then the turn limit, so a natural end takes precedence over the limit.
//! - A capture judged on the hole after the last (`capture.judged = "after-last"`) reads the next
//!   hole on the board in the sowing direction, whatever the sowing skips; the target and the chain
//!   start from it, under the chain's usual bounds (docs/rules/readings.md).
//! - Opening (`[opening]`): the holes still to be sown in the opening are part of the position
//!   (flag `opening=`), and so are the turns played while captures are still off; a player none of
//!   whose holes still to sow can be played may sow any hole (docs/rules/readings.md).
//! - Rounds (`[rounds]`, docs/rules/erherhe.md): after a sowing that leaves either row empty each
//!   player takes their own row and the refill begins (flag `refill`); the turns keep alternating,
//!   each refill turn one move (`fill:<hole>` into the leftmost empty hole, or `pass`); two passes
//!   in a row (flag `passed` after the first) start the round, the holes still empty out of play
//!   (`off=`, one bit a hole in the marks word), skipped by the sowing. A refill that begins with a
//!   store below `lose_below` is the end of the match.
//! - "The player who performed the last capture" is the last player to take seeds by any capture
//!   (flow captures included, in the order they happened); if nobody has captured, each player takes
//!   their own row. Only variants whose rules read it record it (flag `cap=`). "The player who did the last move" is the opponent of the player to move.

pub mod rule_file;
pub mod rules;

use std::sync::Arc;

use crate::error::{IllegalMove, NotationError, VariantError};
use crate::game::{CaptureKind, Cell, EndReason, Event, Game, Geometry, MoveList, Outcome, Player, Trace};
use crate::notation;
use crate::variant::{Allowed, OptionSpec, Variant, VariantSpec};
pub use rules::RuleSet;
use rules::{
    Chain, Direction, EmptyHoles, FlowTaker, GrandSlam, NeitherCanMove, Playable, RelayMode, Remaining,
    Rounds, Scoring, Starving, Stuck, StuckResult, Target, Territory,
};

/// Largest number of holes on a board (both rows).
pub const MAX_PITS: usize = 2 * rules::MAX_HOLES_PER_ROW;
/// Laps after which a relay sowing is cut as an endless cycle.
pub const MAX_LAPS: u32 = 1000;

const FLAG_CAP_SOUTH: u8 = 1;
const FLAG_CAP_NORTH: u8 = 2;
const FLAG_CAP_MASK: u8 = 3;
const FLAG_CYCLE: u8 = 4;
/// With `[rounds]`: the players are refilling their rows between rounds.
const FLAG_REFILL: u8 = 8;
/// With `[rounds]`, during a refill: the last turn was a pass.
const FLAG_PASSED: u8 = 16;
/// With `starving.lap_cut = "game-ends"`: the last turn was cut before a lap that would have left
/// the opponent no seed, and the game is over.
const FLAG_LAP_CUT: u8 = 32;
/// The flags after which a position is not an ordinary position of play: one test on the common
/// path.
const FLAGS_SPECIAL: u8 = FLAG_CYCLE | FLAG_REFILL | FLAG_LAP_CUT;

/// A position of a two-row sowing game: 48 bytes, `Copy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SowingPosition {
    /// Seeds in each hole; holes past `2n` are always zero.
    pub pits: [u8; MAX_PITS],
    /// Seeds captured by South and North.
    pub stores: [u8; 2],
    /// Turns played.
    pub turns: u32,
    /// The player to move.
    pub to_move: Player,
    flags: u8,
    /// One bit a hole (bit `i` for hole `i`), only on boards of at most 32 holes: with
    /// `opening.each_hole_once`, the holes still to be sown in the opening; with `[rounds]`, the
    /// holes out of play for the round. Zero in every other rule set.
    marks: u32,
}

const _: () = assert!(std::mem::size_of::<SowingPosition>() == 48, "positions stay 48 bytes");

impl SowingPosition {
    /// The player who made the last capture, if any.
    pub fn last_capturer(&self) -> Option<Player> {
        match self.flags & FLAG_CAP_MASK {
            FLAG_CAP_SOUTH => Some(Player::South),
            FLAG_CAP_NORTH => Some(Player::North),
            _ => None,
        }
    }

    fn set_last_capturer(&mut self, p: Player) {
        self.flags =
            (self.flags & !FLAG_CAP_MASK) | if p == Player::South { FLAG_CAP_SOUTH } else { FLAG_CAP_NORTH };
    }

    /// Whether the last turn was cut as an endless relay sowing.
    pub fn is_cut(&self) -> bool {
        self.flags & FLAG_CYCLE != 0
    }

    /// With `starving.lap_cut = "game-ends"`: whether the last turn was cut before a lap that
    /// would have left the opponent no seed (the game is over).
    pub fn is_lap_cut(&self) -> bool {
        self.flags & FLAG_LAP_CUT != 0
    }

    /// With `opening.each_hole_once`: the holes still to be sown in the opening, one bit a hole.
    pub fn opening_holes(&self) -> u32 {
        self.marks
    }

    /// With `[rounds]`: the holes out of play for the round, one bit a hole.
    pub fn holes_out_of_play(&self) -> u32 {
        self.marks
    }

    /// With `[rounds]`: whether the players are refilling their rows between rounds.
    pub fn is_refill(&self) -> bool {
        self.flags & FLAG_REFILL != 0
    }
}

/// With `[rounds]`, during a refill: what the player to move does, or that the match is over.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum RefillTurn {
    /// A player held too few seeds when the round ended: the match is over.
    Over,
    /// The player puts seeds into this hole.
    Place(usize),
    /// The player has a full row or an empty store.
    Pass,
}

/// A sowing move: a hole and a direction, a refill of a hole between rounds, or a pass. One byte.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SowingMove(u8);

impl SowingMove {
    /// Missing the turn.
    pub const PASS: SowingMove = SowingMove(0xFF);
    const CW: u8 = 0x80;
    /// Set in passes and refills: one test tells them from sowings.
    const SPECIAL: u8 = 0x40;

    /// Sowing from `hole` counter-clockwise.
    pub fn ccw(hole: usize) -> Self {
        SowingMove(hole as u8)
    }

    /// Sowing from `hole` clockwise.
    pub fn cw(hole: usize) -> Self {
        SowingMove(hole as u8 | Self::CW)
    }

    /// Putting seeds from the store into `hole` between rounds.
    pub fn refill(hole: usize) -> Self {
        SowingMove(hole as u8 | Self::SPECIAL)
    }

    /// Whether this is a pass.
    pub fn is_pass(self) -> bool {
        self == Self::PASS
    }

    /// Whether this is a refill of a hole between rounds.
    pub fn is_refill(self) -> bool {
        self.0 & (Self::SPECIAL | Self::CW) == Self::SPECIAL
    }

    /// The hole sown from (or refilled).
    pub fn hole(self) -> usize {
        (self.0 & 0x3F) as usize
    }

    /// Whether the sowing goes clockwise.
    pub fn clockwise(self) -> bool {
        !self.is_pass() && self.0 & Self::CW != 0
    }
}

/// What a turn did, beyond the position: used for move legality.
#[derive(Copy, Clone, Default)]
struct TurnInfo {
    grand_slam: bool,
    /// With legality judged per lap: the first lap left the opponent's row empty.
    starved_lap: bool,
    /// With legality judged per lap: the laps that stood.
    laps: u16,
}

/// `board[i] += run[i]` (wrapping) for the 16 bytes, as one vector addition and one store.
#[inline(always)]
fn add_bytes(board: &mut [u8; 16], run: &[u8; 16]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_add_epi8, _mm_loadu_si128, _mm_storeu_si128};
        // SAFETY: SSE2 is part of x86-64; both arrays hold 16 bytes, read and written unaligned.
        unsafe {
            let b = _mm_loadu_si128(board.as_ptr() as *const __m128i);
            let r = _mm_loadu_si128(run.as_ptr() as *const __m128i);
            _mm_storeu_si128(board.as_mut_ptr() as *mut __m128i, _mm_add_epi8(b, r));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for (c, d) in board.iter_mut().zip(run) {
        *c = c.wrapping_add(*d);
    }
}

/// The opening rule: when some of `moves` sow a hole still to be sown in the opening (`open`, one
/// bit a hole), only those stay; otherwise every move stays.
fn keep_opening_holes(open: u32, moves: &mut MoveList<SowingMove>) {
    let is_open = |m: &SowingMove| (open >> m.hole()) & 1 == 1;
    if moves.iter().any(is_open) {
        moves.retain(|m| is_open(m));
    }
}

/// A two-row sowing game: a rule set with board size and seeds fixed by the variant's options.
#[derive(Clone, Debug)]
pub struct SowingGame {
    rules: Arc<RuleSet>,
    variant: Variant,
    n: usize,
    len: usize,
    seeds: u8,
    max_turns: u32,
    /// Whether positions record the last capturer (only when a remaining-seeds rule reads it, so
    /// that positions differing only in history stay one position).
    track_capturer: bool,
    /// Whether a lap only drops one seed in each hole it passes (no seed back into the origin, no
    /// hole skipped for its count, no flow capture): then [`lift_and_sow`] sows it at once.
    plain_laps: bool,
    /// For plain laps on boards of at most 16 holes, by direction, origin and seeds (fewer than
    /// a round of the board): the holes that get a seed, one byte a hole, less the seeds lifted
    /// from the origin (wrapping).
    lap_runs: Arc<[[u8; 16]]>,
    /// For plain laps on boards of at most 12 holes, by direction, origin and seeds from
    /// `len - 1` to `2 * len - 2`: the run as in `lap_runs` (the origin skipped when the rules
    /// say so) and the last hole.
    long_laps: Arc<[([u8; 16], u8)]>,
    /// Whether the starving and grand-slam filters can never remove a move while the opponent's
    /// row holds seeds (see [`SowingGame::sowing_moves`]).
    filter_needs_empty_opponent: bool,
    /// Whether no filter ever removes a move.
    never_filtered: bool,
    /// Whether every sowing is one plain lap (no relay, no seed left in the origin): then
    /// [`SowingGame::apply`] sows it at once without the lap loop.
    single_lap: bool,
    /// Whether a row fits in one word for [`SowingGame::sowable`]: rows of at most 8 holes, only
    /// own holes playable, a minimum of at most 128 seeds.
    word_rows: bool,
    /// Whether the capture chain stops before the final lap's origin hole.
    chain_stops_before_origin: bool,
    /// Whether the capture chain goes on past the final lap's origin hole.
    chain_past_origin: bool,
    /// With legality judged per lap: a later lap that would starve, its capture included, ends
    /// the game.
    lap_cut_ends_game: bool,
    /// The most holes the chain takes after the last hole (`MAX_PITS` when unbounded).
    chain_max: usize,
    /// Whether the capture judges the hole after the last hole.
    capture_after_last: bool,
    /// Whether either of the two rules above applies (one test on the common path).
    capture_special: bool,
    /// The first this-many turns capture nothing (0 without the opening rule).
    no_capture_turns: u32,
    /// Whether each player must sow each own hole once before any hole a second time.
    opening_each_hole: bool,
    /// A match of rounds.
    rounds: Option<Rounds>,
    /// Whether holes left empty at a refill are out of play (sown past) for the round.
    off_holes: bool,
    /// Whether a rule reads the position after each sowing (the opening or rounds).
    after_sowing: bool,
    /// Which copy of the lap loop sows: bit 0 legality judged per lap, bit 1 holes out of play.
    lap_loop: u8,
    /// Whether the capture is of the reached hole and a chain that stays on the opponent's row,
    /// after a single lap from the mover's own row, on rows of at most 8 holes: the shape of
    /// Abapa, Awale and most of the collection. Then [`SowingGame::capture_row`] captures without
    /// the general walk (no origin bound can apply: the origin is on the mover's row).
    row_capture: bool,
    /// With `row_capture`: the capture values, and the direction the chain walks along the row
    /// (0 no chain, 1 to lower indices, 2 to higher), by sowing direction (counter-clockwise,
    /// clockwise).
    cap_values: rules::CountSet,
    chain_walk: [u8; 2],
    /// Whether an end rule other than a store threshold reads the board before each turn.
    end_checks: bool,
    /// A store above this ends the game (`u16::MAX` without the rule: stores are bytes).
    store_above: u16,
    /// With rows of at most 8 holes: the bytes of one row in a word read from its first hole.
    row_mask: u64,
    /// Whether [`Game::play_unchecked`] takes its inline path for every sowing: one plain lap
    /// (runs for boards of at most 16 holes), `row_capture`, no rule reading the position after
    /// the sowing.
    fast_play: bool,
    /// The minimum seeds to sow a hole, in each byte of a word (for [`SowingGame::sowable`]).
    min_word: u64,
    /// Whether moves are listed from [`SowingGame::sowable`]'s word: `word_rows` and one
    /// direction, whose bit in a move is `move_direction`.
    word_moves: bool,
    move_direction: u8,
}

/// The options a rule-file variant accepts.
pub fn option_specs(rules: &RuleSet) -> Vec<OptionSpec> {
    let holes_allowed = match &rules.allowed_holes {
        Some(list) => Allowed::OneOf(list.iter().map(|&h| h as i64).collect()),
        None => Allowed::Range(1, rules::MAX_HOLES_PER_ROW as i64),
    };
    vec![
        OptionSpec::int("holes", rules.holes as i64, holes_allowed, "holes in each row"),
        OptionSpec::int(
            "seeds",
            rules.seeds as i64,
            Allowed::Range(1, 255),
            "seeds in each hole at the start",
        ),
        OptionSpec::max_turns(),
        OptionSpec::repetitions(),
    ]
}

impl SowingGame {
    /// The game for `rules` with the options of `spec` (whose id must be the rule set's).
    pub fn new(rules: Arc<RuleSet>, spec: &VariantSpec) -> Result<SowingGame, VariantError> {
        let variant = Variant::resolve(spec, &option_specs(&rules))?;
        let holes = variant.int("holes") as u8;
        let seeds = variant.int("seeds") as u8;
        rules
            .check_size(holes, seeds)
            .map_err(|message| VariantError::BadOption { option: "seeds".into(), message })?;
        if (rules.opening.each_hole_once || rules.rounds.is_some())
            && holes as usize > rules::MAX_HOLES_WITH_MARKS
        {
            return Err(VariantError::BadOption {
                option: "holes".into(),
                message: format!(
                    "the {} rule of {} needs at most {} holes a row",
                    if rules.rounds.is_some() { "rounds" } else { "opening" },
                    rules.id,
                    rules::MAX_HOLES_WITH_MARKS
                ),
            });
        }
        let n = holes as usize;
        let track_capturer =
            rules.remaining == Remaining::LastCapturer || rules.endless == Remaining::LastCapturer;
        let plain_laps = !rules.first_into_origin && rules.skip_above.is_none() && rules.flow.is_none();
        let grand_slam_illegal = rules.capture.is_some_and(|c| c.grand_slam == GrandSlam::Illegal);
        let never_filtered = rules.starving == Starving::Allowed && !grand_slam_illegal;
        // Only captures empty the opponent's row; when no capture can and the opponent has seeds,
        // no move starves and none is a grand slam.
        let captures_cannot_empty = rules.relay.is_none()
            && rules.flow.is_none()
            && rules.capture.is_none_or(|c| c.grand_slam == GrandSlam::NoCapture);
        let lap_starving = rules.starving_judged == rules::Judged::Lap;
        let filter_needs_empty_opponent = !lap_starving && never_filtered
            || (rules.starving == Starving::MustFeed && !grand_slam_illegal)
            || captures_cannot_empty;
        let len = 2 * n;
        let mut lap_runs = Vec::new();
        if plain_laps && len <= 16 {
            for clockwise in [false, true] {
                for origin in 0..len {
                    for seeds in 0..len {
                        let mut pits = [0u8; MAX_PITS];
                        let mut hole = origin;
                        for _ in 0..seeds {
                            hole = if clockwise { (hole + len - 1) % len } else { (hole + 1) % len };
                            pits[hole] += 1;
                        }
                        let mut run = [0u8; 16];
                        run.copy_from_slice(&pits[..16]);
                        // Less the seeds lifted from the origin: one bytewise addition sows the lap.
                        run[origin] = run[origin].wrapping_sub(seeds as u8);
                        lap_runs.push(run);
                    }
                }
            }
        }
        // Laps of a round of the board or more, up to two rounds less one seed (a hole that
        // gathered seeds for a while), on boards of up to 12 holes: sown seed by seed under the
        // origin rule, as runs with the last hole beside them.
        let mut long_laps = Vec::new();
        if plain_laps && len <= 12 {
            for clockwise in [false, true] {
                for origin in 0..len {
                    for seeds in len - 1..2 * len - 1 {
                        let mut pits = [0u8; MAX_PITS];
                        let mut hole = origin;
                        for _ in 0..seeds {
                            loop {
                                hole = if clockwise { (hole + len - 1) % len } else { (hole + 1) % len };
                                if !(rules.skip_origin && hole == origin) {
                                    break;
                                }
                            }
                            pits[hole] += 1;
                        }
                        let mut run = [0u8; 16];
                        run.copy_from_slice(&pits[..16]);
                        run[origin] = run[origin].wrapping_sub(seeds as u8);
                        long_laps.push((run, hole as u8));
                    }
                }
            }
        }
        let word_rows = n <= 8 && rules.playable == Playable::Own && rules.min_seeds <= 128;
        let off_holes = rules.rounds.is_some_and(|r| r.empty_holes == EmptyHoles::OutOfPlay);
        let single_lap =
            plain_laps && rules.relay.is_none() && !rules.leave_one && !lap_starving && !off_holes;
        let chain_stops_before_origin =
            rules.capture.is_some_and(|c| c.chain_origin == rules::ChainOrigin::StopsBefore);
        let chain_max = rules.capture.and_then(|c| c.chain_max).map_or(MAX_PITS, |m| m as usize);
        let row_capture = n <= 8
            && rules.relay.is_none()
            && rules.playable == Playable::Own
            && rules.opening.no_capture_turns == 0
            && rules.capture.is_some_and(|c| {
                c.target == Target::Reached
                    && c.territory == Territory::Opponent
                    && !c.chain_crosses
                    && c.chain_max.is_none()
                    && c.judged == rules::JudgedHole::Last
            });
        let chain_walk = match rules.capture.map(|c| c.chain) {
            Some(Chain::Backward) => [1, 2],
            Some(Chain::Forward) => [2, 1],
            _ => [0, 0],
        };
        Ok(SowingGame {
            min_word: rules.min_seeds.max(1) as u64 * 0x0101_0101_0101_0101,
            word_moves: word_rows && rules.direction != Direction::Choice,
            move_direction: if rules.direction == Direction::Cw { SowingMove::CW } else { 0 },
            fast_play: single_lap
                && row_capture
                && !(rules.opening.each_hole_once || rules.rounds.is_some())
                && !lap_runs.is_empty(),
            row_capture,
            cap_values: rules.capture.map_or(rules::CountSet::EMPTY, |c| c.values),
            chain_walk,
            end_checks: rules.end.board_empty || rules.end.fewer_than.is_some() || rules.end.all_singletons,
            store_above: rules.end.store_above.unwrap_or(u16::MAX),
            row_mask: if n >= 8 { u64::MAX } else { (1u64 << (8 * n)) - 1 },
            capture_after_last: rules.capture.is_some_and(|c| c.judged == rules::JudgedHole::AfterLast),
            capture_special: rules.opening.no_capture_turns > 0
                || rules.capture.is_some_and(|c| c.judged == rules::JudgedHole::AfterLast),
            no_capture_turns: rules.opening.no_capture_turns as u32,
            opening_each_hole: rules.opening.each_hole_once,
            rounds: rules.rounds,
            off_holes,
            after_sowing: rules.opening.each_hole_once || rules.rounds.is_some(),
            lap_loop: lap_starving as u8 | (off_holes as u8) << 1,
            chain_stops_before_origin,
            chain_past_origin: rules.capture.is_some_and(|c| c.chain_origin == rules::ChainOrigin::GoesPast),
            lap_cut_ends_game: rules.starving_lap_cut == rules::LapCut::GameEnds,
            chain_max,
            single_lap,
            word_rows,
            n,
            len,
            lap_runs: lap_runs.into(),
            long_laps: long_laps.into(),
            seeds,
            max_turns: variant.max_turns(),
            track_capturer,
            plain_laps,
            filter_needs_empty_opponent,
            never_filtered,
            rules,
            variant,
        })
    }

    /// [`Game::play_traced`] on a position in place.
    #[inline(always)]
    fn play_in_place<T: Trace>(&self, p: &mut SowingPosition, mv: SowingMove, trace: &mut T) {
        if mv.0 & SowingMove::SPECIAL != 0 {
            if p.flags & FLAG_REFILL != 0 {
                self.play_refill(p, mv, trace);
            } else if T::ENABLED {
                trace.push(Event::Pass { player: p.to_move });
            }
        } else {
            self.apply(p, mv, trace);
            if self.after_sowing {
                if self.opening_each_hole {
                    // The hole sown is no longer to be sown in the opening.
                    p.marks &= !(1u32 << mv.hole());
                }
                if self.rounds.is_some() {
                    self.end_round_if_row_empty(p, trace);
                }
            }
        }
        p.to_move = p.to_move.other();
        p.turns = p.turns.saturating_add(1);
    }

    /// [`Game::play_unchecked`] for the moves and rules `fast_play` leaves out.
    #[inline(never)]
    fn play_other(&self, pos: &mut SowingPosition, mv: SowingMove) {
        self.play_in_place(pos, mv, &mut crate::game::NoTrace);
    }

    /// The rule set.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// Holes per row.
    pub fn holes(&self) -> usize {
        self.n
    }

    #[inline(always)]
    fn owner(&self, hole: usize) -> Player {
        if hole < self.n {
            Player::South
        } else {
            Player::North
        }
    }

    #[inline(always)]
    fn row_range(&self, p: Player) -> std::ops::Range<usize> {
        match p {
            Player::South => 0..self.n,
            Player::North => self.n..self.len,
        }
    }

    /// With [`SowingGame::word_rows`]: the first hole of `player`'s row and a word whose byte `i`
    /// has its high bit set when hole `first + i` holds enough seeds to be sown (the other bits
    /// are clear). One pass over the row without a branch per hole.
    #[inline(always)]
    fn sowable(&self, pos: &SowingPosition, player: Player) -> (usize, u64) {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x80 * ONES;
        let start = if player == Player::South { 0 } else { self.n };
        let bytes: [u8; 8] = pos.pits[start..start + 8].try_into().expect("8 bytes");
        let x = u64::from_le_bytes(bytes);
        // Bytes of 128 or more have the high bit already; below it, setting the high bit and
        // subtracting the minimum (at most 128, in each byte of `min_word`) keeps it exactly when
        // the byte is at least the minimum, and never borrows from the next byte.
        let at_least = (((x | HIGH) - self.min_word) | x) & HIGH;
        (start, at_least & self.row_mask)
    }

    #[inline(always)]
    fn row_sum(&self, pos: &SowingPosition, p: Player) -> u32 {
        pos.pits[self.row_range(p)].iter().map(|&s| s as u32).sum()
    }

    #[inline(always)]
    fn step(&self, hole: usize, clockwise: bool) -> usize {
        if clockwise {
            if hole == 0 {
                self.len - 1
            } else {
                hole - 1
            }
        } else if hole + 1 == self.len {
            0
        } else {
            hole + 1
        }
    }

    #[inline(always)]
    fn in_territory(&self, hole: usize, t: Territory, mover: Player) -> bool {
        match t {
            Territory::Any => true,
            Territory::Own => self.owner(hole) == mover,
            Territory::Opponent => self.owner(hole) != mover,
        }
    }

    /// Hole label: `a..` for South, `A..` for North.
    pub fn label(&self, hole: usize) -> String {
        if hole < self.n {
            ((b'a' + hole as u8) as char).to_string()
        } else {
            ((b'A' + (hole - self.n) as u8) as char).to_string()
        }
    }

    fn parse_label(&self, s: &str) -> Option<usize> {
        let mut chars = s.chars();
        let c = chars.next()?;
        if chars.next().is_some() {
            return None;
        }
        let (base, offset) = if c.is_ascii_lowercase() {
            (b'a', 0)
        } else if c.is_ascii_uppercase() {
            (b'A', self.n)
        } else {
            return None;
        };
        let i = (c as u8 - base) as usize;
        (i < self.n).then_some(i + offset)
    }

    /// The holes of an `opening=` flag: labels in board order (South's a.., then North's A..), each
    /// once, in a variant with the opening rule.
    fn parse_opening_flag(&self, labels: &str) -> Result<u32, String> {
        if !self.opening_each_hole {
            return Err(format!("opening={labels}: {} has no opening rule", self.variant));
        }
        self.parse_holes_flag("opening", labels)
    }

    /// The holes of a flag `name=<labels>`: labels in board order, each once, at least one.
    fn parse_holes_flag(&self, name: &str, labels: &str) -> Result<u32, String> {
        let mut marks = 0u32;
        let mut previous: Option<usize> = None;
        for c in labels.chars() {
            let h = self
                .parse_label(&c.to_string())
                .ok_or_else(|| format!("{name}={labels}: {c:?} is not a hole of this board"))?;
            if previous.is_some_and(|p| p >= h) {
                return Err(format!("{name}={labels}: holes must be listed once, in board order (a.., A..)"));
            }
            previous = Some(h);
            marks |= 1 << h;
        }
        if marks == 0 {
            return Err(format!("{name}= lists no hole: leave the flag out when there is none"));
        }
        Ok(marks)
    }

    /// With `[rounds]`: whether a parsed position is one the game can reach (what the formatter
    /// writes); the message names the flaw.
    fn check_rounds_position(&self, pos: &SowingPosition, rounds: &Rounds) -> Result<(), String> {
        if let Some(h) = (0..self.len).find(|&h| (pos.marks >> h) & 1 == 1 && pos.pits[h] > 0) {
            return Err(format!(
                "off: hole {} is out of play but holds {} seeds",
                self.label(h),
                pos.pits[h]
            ));
        }
        if !pos.is_refill() {
            if pos.flags & FLAG_PASSED != 0 {
                return Err("passed: only a refill between rounds records a pass".into());
            }
            if !pos.is_cut() && Player::BOTH.iter().any(|&q| self.row_empty(pos, q)) {
                return Err("a row is empty during a round: the round would have ended (flag refill?)".into());
            }
            return Ok(());
        }
        if pos.marks != 0 {
            return Err("off= and refill: holes are out of play only once the round has started".into());
        }
        if pos.is_cut() {
            return Err("cycle and refill: a refill is not a sowing and cannot be cut".into());
        }
        for q in Player::BOTH {
            let row = self.row_range(q);
            let filled = row.clone().take_while(|&h| pos.pits[h] > 0).count();
            if let Some(h) = row.clone().skip(filled).find(|&h| pos.pits[h] > 0) {
                return Err(format!(
                    "refill: hole {} holds seeds but a hole before it is empty (rows are refilled from \
                     their first hole)",
                    self.label(h)
                ));
            }
            for (i, h) in row.take(filled).enumerate() {
                let c = pos.pits[h];
                let last = i + 1 == filled;
                if c > rounds.refill_seeds
                    || (c < rounds.refill_seeds && !(last && pos.stores[q.index()] == 0))
                {
                    return Err(format!(
                        "refill: hole {} holds {c} seeds; a refill puts {} into a hole (fewer only with \
                         the store's last seeds)",
                        self.label(h),
                        rounds.refill_seeds
                    ));
                }
            }
        }
        Ok(())
    }

    /// [`SowingGame::lift_and_sow`] for plain laps, inlined where a lap is shorter than a round of
    /// a board of at most 16 holes (one run added, the last hole by arithmetic) or shorter than
    /// two rounds of a board of at most 12 (a run and its last hole from `long_laps`); `origin`
    /// when there is no seed to sow.
    #[inline(always)]
    fn sow_lap(&self, pits: &mut [u8; MAX_PITS], origin: usize, seeds: u8, clockwise: bool) -> usize {
        let (len, k) = (self.len, seeds as usize);
        if k == 0 {
            return origin;
        }
        if k >= len - 1 || self.lap_runs.is_empty() {
            // Here `k >= len - 1` whenever there are long laps (they need the short runs).
            if !self.long_laps.is_empty() && k - (len - 1) < len {
                let (run, last) = &self.long_laps[(clockwise as usize * len + origin) * len + k - (len - 1)];
                let board: &mut [u8; 16] = (&mut pits[..16]).try_into().expect("16 holes");
                add_bytes(board, run);
                return *last as usize;
            }
            return self.lift_and_sow(pits, origin, seeds, clockwise);
        }
        // Fewer seeds than holes other than the origin: no hole is skipped, whatever the rules.
        let run = &self.lap_runs[(clockwise as usize * len + origin) * len + k];
        let board: &mut [u8; 16] = (&mut pits[..16]).try_into().expect("16 holes");
        add_bytes(board, run);
        if clockwise {
            if k <= origin {
                origin - k
            } else {
                origin + len - k
            }
        } else if origin + k < len {
            origin + k
        } else {
            origin + k - len
        }
    }

    /// The capture after a sowing that ended in `last`, untraced, with `row_capture`: the last
    /// hole on the opponent's row holding a capture value, the chain along that row while holes
    /// do, a grand slam when the opponent's row holds no other seed. What
    /// [`SowingGame::capture_reached`] does for these rules, without the general walk. The test
    /// is inline; the capture itself (a minority of moves) is not.
    #[inline(always)]
    fn capture_row(&self, p: &mut SowingPosition, last: usize, clockwise: bool, mover: Player) -> TurnInfo {
        let lo = if mover == Player::South { self.n } else { 0 };
        let j = last.wrapping_sub(lo);
        if j >= self.n || !self.cap_values.contains(p.pits[last]) {
            return TurnInfo::default();
        }
        self.take_row(p, lo, j, clockwise, mover)
    }

    /// [`SowingGame::capture_row`] once the last hole (`lo + j`, on the opponent's row starting at
    /// `lo`) matched.
    #[inline(never)]
    fn take_row(
        &self,
        p: &mut SowingPosition,
        lo: usize,
        j: usize,
        clockwise: bool,
        mover: Player,
    ) -> TurnInfo {
        let (n, values) = (self.n, &self.cap_values);
        // The matched holes are the row's holes `a..=b` (offsets from `lo`).
        let (mut a, mut b) = (j, j);
        match self.chain_walk[clockwise as usize] {
            1 => {
                while a > 0 && values.contains(p.pits[lo + a - 1]) {
                    a -= 1;
                }
            }
            2 => {
                while b + 1 < n && values.contains(p.pits[lo + b + 1]) {
                    b += 1;
                }
            }
            _ => {}
        }
        // The row as a word (rows of at most 8 holes end by byte 16 of the 32).
        let below = |k: usize| if k >= 8 { u64::MAX } else { (1u64 << (8 * k)) - 1 };
        let bytes: [u8; 8] = p.pits[lo..lo + 8].try_into().expect("8 bytes");
        let word = u64::from_le_bytes(bytes);
        let grand_slam = word & self.row_mask & !(below(b + 1) ^ below(a)) == 0;
        if grand_slam {
            let cap = self.rules.capture.as_ref().expect("a capture rule");
            match cap.grand_slam {
                GrandSlam::Allowed => {}
                // The last hole is spared: the chain's other holes are taken.
                GrandSlam::SpareLast => {
                    if a == j {
                        a += 1;
                    } else {
                        b -= 1;
                    }
                }
                GrandSlam::NoCapture | GrandSlam::Illegal => {
                    return TurnInfo { grand_slam, ..TurnInfo::default() }
                }
            }
        }
        let taken_bytes = word & (below(b + 1) & !below(a));
        // The bytes' sum in the top byte: the board holds at most 255 seeds, so no partial sum
        // carries into the next byte.
        let taken = (taken_bytes.wrapping_mul(0x0101_0101_0101_0101) >> 56) as u8;
        if taken > 0 {
            p.pits[lo..lo + 8].copy_from_slice(&(word & !taken_bytes).to_le_bytes());
            p.stores[mover.index()] += taken;
            if self.track_capturer {
                p.set_last_capturer(mover);
            }
        }
        TurnInfo { grand_slam, ..TurnInfo::default() }
    }

    /// Lifts `seeds` seeds from `origin` and sows them one to a hole (skipping the origin itself
    /// on a full lap when the rules say so); returns the hole of the last seed. What the lap loop
    /// of [`SowingGame::apply`] does seed by seed, for laps without flow captures or skipped
    /// holes: whole rounds of the board at once, then the rest in at most two runs of holes.
    #[inline]
    fn lift_and_sow(&self, pits: &mut [u8; MAX_PITS], origin: usize, seeds: u8, clockwise: bool) -> usize {
        let len = self.len;
        let skip_origin = self.rules.skip_origin;
        let k = seeds as usize;
        let round = if skip_origin { len - 1 } else { len };
        let rest = if k < round {
            if !self.lap_runs.is_empty() {
                // Boards of up to 16 holes: the run less the lifted seeds, added byte by byte with
                // wrapping, gives each hole its exact new count (a board holds at most 255 seeds).
                // One 16-byte addition and store: later whole-board reads of the position are
                // forwarded from one store.
                let run = &self.lap_runs[(clockwise as usize * len + origin) * len + k];
                let board: &mut [u8; 16] = (&mut pits[..16]).try_into().expect("16 holes");
                add_bytes(board, run);
            } else {
                pits[origin] -= seeds;
                self.sow_runs(pits, origin, k, clockwise);
            }
            k
        } else {
            let (rounds, rest) = (k / round, k % round);
            pits[origin] -= seeds;
            for c in &mut pits[..len] {
                *c += rounds as u8;
            }
            if skip_origin {
                pits[origin] -= rounds as u8;
            }
            self.sow_runs(pits, origin, rest, clockwise);
            rest
        };
        // The last hole (no `%`: a division costs more than the whole lap).
        if clockwise {
            if rest > 0 {
                if rest <= origin {
                    origin - rest
                } else {
                    origin + len - rest
                }
            } else if skip_origin {
                if origin + 1 == len {
                    0
                } else {
                    origin + 1
                }
            } else {
                origin
            }
        } else {
            let end = origin + rest;
            if rest > 0 {
                if end < len {
                    end
                } else {
                    end - len
                }
            } else if skip_origin {
                if origin == 0 {
                    len - 1
                } else {
                    origin - 1
                }
            } else {
                origin
            }
        }
    }

    /// One seed in each of the `rest` holes after `origin` (fewer than a round of the board).
    #[inline]
    fn sow_runs(&self, pits: &mut [u8; MAX_PITS], origin: usize, rest: usize, clockwise: bool) {
        let len = self.len;
        let (first_start, first, second_start, second) = if clockwise {
            let first = rest.min(origin);
            (origin - first, first, len - (rest - first), rest - first)
        } else {
            let first = rest.min(len - 1 - origin);
            (origin + 1, first, 0, rest - first)
        };
        for c in &mut pits[first_start..first_start + first] {
            *c += 1;
        }
        for c in &mut pits[second_start..second_start + second] {
            *c += 1;
        }
    }

    /// Sows `pos` for `mover` from `mv`, then captures. Returns what the legality check needs.
    #[inline(always)]
    fn apply<T: Trace>(&self, p: &mut SowingPosition, mv: SowingMove, trace: &mut T) -> TurnInfo {
        if !T::ENABLED && self.single_lap {
            // One lap sown at once, then the capture: what the lap loop below does for these
            // rules, without its per-lap bookkeeping.
            let origin = mv.hole();
            let clockwise = mv.clockwise();
            let seeds = p.pits[origin];
            let last = self.sow_lap(&mut p.pits, origin, seeds, clockwise);
            return self.capture(p, last, origin, clockwise, p.to_move, trace);
        }
        // Legality judged per lap and holes out of play need work every other game would pay for
        // on each lap or seed: they get their own copies of the lap loop, chosen out of line.
        if self.lap_loop == 0 {
            self.apply_laps::<T, false, false>(p, mv, trace)
        } else {
            self.apply_special_laps(p, mv, trace)
        }
    }

    /// [`SowingGame::apply`] with legality judged per lap or holes out of play.
    #[inline(never)]
    fn apply_special_laps<T: Trace>(
        &self,
        p: &mut SowingPosition,
        mv: SowingMove,
        trace: &mut T,
    ) -> TurnInfo {
        match self.lap_loop {
            1 => self.apply_laps::<T, true, false>(p, mv, trace),
            2 => self.apply_laps::<T, false, true>(p, mv, trace),
            _ => self.apply_laps::<T, true, true>(p, mv, trace),
        }
    }

    /// [`SowingGame::apply`] for any rules: lap by lap. `LAP_STARVING` is `self.lap_starving`,
    /// `OFF_HOLES` is `self.off_holes`.
    fn apply_laps<T: Trace, const LAP_STARVING: bool, const OFF_HOLES: bool>(
        &self,
        p: &mut SowingPosition,
        mv: SowingMove,
        trace: &mut T,
    ) -> TurnInfo {
        let r = &*self.rules;
        let mover = p.to_move;
        let clockwise = mv.clockwise();
        let mut lap_origin = mv.hole();
        let mut lifted = p.pits[lap_origin] - if r.leave_one { 1 } else { 0 };
        let mut laps = 1u32;
        let mut last;
        // Legality judged per lap: the position before the current lap and that lap's origin, to
        // cut the turn before a lap that leaves the opponent no seed. A traced turn stops after the
        // laps an untraced one keeps, so no event of a cut lap is recorded.
        let mut before_lap: Option<(SowingPosition, usize)> = None;
        let mut starved_lap = false;
        let mut lap_cut = false;
        let (lap_limit, traced_starved, traced_cut) = if T::ENABLED && LAP_STARVING {
            let mut q = *p;
            let info = self.apply_laps::<_, true, OFF_HOLES>(&mut q, mv, &mut crate::game::NoTrace);
            // A sowing cut as endless keeps every lap (its turn reports no lap count): the traced
            // loop cuts it the same way. The cycle flag alone cannot tell, since a position played
            // from may carry it already.
            (if info.laps == 0 { u32::MAX } else { info.laps as u32 }, info.starved_lap, q.is_lap_cut())
        } else {
            (u32::MAX, false, false)
        };
        loop {
            let mut sown: Vec<u8> = Vec::new();
            let lap_lifted = lifted;
            let mut hole = lap_origin;
            last = lap_origin;
            if !T::ENABLED && self.plain_laps && (!OFF_HOLES || p.marks == 0) {
                if lifted > 0 {
                    hole = self.lift_and_sow(&mut p.pits, lap_origin, lifted, clockwise);
                    lifted = 0;
                }
            } else {
                p.pits[lap_origin] -= lifted;
            }
            if r.first_into_origin && lifted > 0 {
                p.pits[lap_origin] += 1;
                lifted -= 1;
                if T::ENABLED {
                    sown.push(lap_origin as u8);
                }
            }
            let mut skipped_in_a_row = 0;
            while lifted > 0 {
                hole = self.step(hole, clockwise);
                if (r.skip_origin && hole == lap_origin)
                    || r.skip_above.is_some_and(|m| p.pits[hole] > m)
                    || (OFF_HOLES && (p.marks >> hole) & 1 == 1)
                {
                    skipped_in_a_row += 1;
                    if skipped_in_a_row >= self.len {
                        // Nowhere to sow: the rest goes back into the origin.
                        p.pits[lap_origin] += lifted;
                        lifted = 0;
                        hole = lap_origin;
                    }
                    continue;
                }
                skipped_in_a_row = 0;
                p.pits[hole] += 1;
                lifted -= 1;
                if T::ENABLED {
                    sown.push(hole as u8);
                }
                if lifted > 0 {
                    if let Some(flow) = &r.flow {
                        if flow.values.contains(p.pits[hole]) {
                            let owner = self.owner(hole);
                            let taker = match flow.taker {
                                FlowTaker::Owner => Some(owner),
                                FlowTaker::MoverOnOpponentSide => (owner != mover).then_some(mover),
                            };
                            if let Some(taker) = taker {
                                let seeds = p.pits[hole];
                                p.pits[hole] = 0;
                                p.stores[taker.index()] += seeds;
                                if self.track_capturer {
                                    p.set_last_capturer(taker);
                                }
                                if T::ENABLED {
                                    trace.push(Event::Lap {
                                        origin: lap_origin as u8,
                                        lifted: lap_lifted as u16,
                                        sown: std::mem::take(&mut sown),
                                    });
                                    trace.push(Event::Capture {
                                        cell: hole as u8,
                                        seeds: seeds as u16,
                                        player: taker,
                                        kind: CaptureKind::Flow,
                                    });
                                }
                            }
                        }
                    }
                }
            }
            last = if lap_lifted == 0 { last } else { hole };
            if T::ENABLED && !sown.is_empty() {
                trace.push(Event::Lap { origin: lap_origin as u8, lifted: lap_lifted as u16, sown });
            }
            if LAP_STARVING && !T::ENABLED && self.row_empty(p, mover.other()) {
                if let Some((before, origin)) = before_lap {
                    *p = before;
                    last = lap_origin;
                    lap_origin = origin;
                    laps -= 1;
                    lap_cut = self.lap_cut_ends_game;
                    break;
                }
                starved_lap = true;
            }
            let Some(relay) = &r.relay else { break };
            if lap_lifted == 0 {
                break;
            }
            let matches = match relay.own_values {
                Some(own) if self.owner(last) == mover => own.contains(p.pits[last]),
                _ => relay.values.contains(p.pits[last]) && self.in_territory(last, relay.territory, mover),
            };
            let goes_on = match relay.mode {
                RelayMode::EndsOn => !matches,
                RelayMode::ContinuesOn => matches,
            };
            if !goes_on {
                break;
            }
            let take = p.pits[last] - if r.leave_one { 1 } else { 0 };
            if take == 0 {
                break;
            }
            if laps >= MAX_LAPS {
                p.flags |= FLAG_CYCLE;
                if T::ENABLED {
                    trace.push(Event::Cut { laps });
                }
                return TurnInfo { starved_lap: starved_lap || traced_starved, ..TurnInfo::default() };
            }
            if LAP_STARVING {
                if laps >= lap_limit {
                    lap_cut = traced_cut;
                    break;
                }
                before_lap = Some((*p, lap_origin));
            }
            laps += 1;
            lap_origin = last;
            lifted = take;
        }
        if LAP_STARVING && lap_cut {
            // The lap before the cut relayed: it captures nothing, and the game is over.
            p.flags |= FLAG_LAP_CUT;
            if T::ENABLED {
                trace.push(Event::Note { name: "lap_cut", player: Some(mover) });
            }
            return TurnInfo {
                starved_lap: starved_lap || traced_starved,
                laps: laps as u16,
                ..TurnInfo::default()
            };
        }
        let before_capture =
            if LAP_STARVING && self.lap_cut_ends_game { before_lap.map(|(b, _)| b) } else { None };
        let mut info = self.capture(p, last, lap_origin, clockwise, mover, trace);
        if let Some(before) = before_capture {
            if !T::ENABLED && self.row_empty(p, mover.other()) {
                // A later lap whose capture leaves the opponent no seed is not sown either.
                *p = before;
                p.flags |= FLAG_LAP_CUT;
                return TurnInfo { starved_lap, laps: laps as u16 - 1, ..TurnInfo::default() };
            }
        }
        if LAP_STARVING {
            info.starved_lap = starved_lap || traced_starved;
            info.laps = laps as u16;
        }
        info
    }

    /// The capture after a sowing that ended in `last`.
    #[inline(always)]
    fn capture<T: Trace>(
        &self,
        p: &mut SowingPosition,
        last: usize,
        lap_origin: usize,
        clockwise: bool,
        mover: Player,
        trace: &mut T,
    ) -> TurnInfo {
        if !T::ENABLED && self.row_capture {
            return self.capture_row(p, last, clockwise, mover);
        }
        let Some(cap) = &self.rules.capture else {
            return TurnInfo::default();
        };
        let last = if self.capture_special {
            if p.turns < self.no_capture_turns {
                return TurnInfo::default();
            }
            // The hole whose count is judged: the target and the chain start from it.
            if self.capture_after_last {
                self.step(last, clockwise)
            } else {
                last
            }
        } else {
            last
        };
        if !self.in_territory(last, cap.territory, mover) || !cap.values.contains(p.pits[last]) {
            return TurnInfo::default();
        }
        if !T::ENABLED && cap.target == Target::Reached {
            return self.capture_reached(p, last, lap_origin, clockwise, mover);
        }
        self.capture_targets(p, last, lap_origin, clockwise, mover, trace)
    }

    /// The matched holes of a capture: `last` (which matched), then the chain the rules walk.
    /// Returns them, the last hole first, and how many there are. The walk never comes back to a
    /// hole, so they are distinct.
    #[inline(always)]
    fn matched_holes(
        &self,
        p: &SowingPosition,
        last: usize,
        lap_origin: usize,
        clockwise: bool,
        mover: Player,
    ) -> ([u8; MAX_PITS], usize) {
        let cap = self.rules.capture.as_ref().expect("a capture rule");
        let mut matched = [0u8; MAX_PITS];
        let mut count = 1;
        matched[0] = last as u8;
        // Past the origin the chain is bounded only by coming round to the judged hole.
        let origin = if self.chain_past_origin { MAX_PITS } else { lap_origin };
        if cap.chain != Chain::None && last != origin {
            let backward = cap.chain == Chain::Backward;
            let walk_cw = if backward { !clockwise } else { clockwise };
            let mut h = last;
            loop {
                h = self.step(h, walk_cw);
                if h == last
                    || (!cap.chain_crosses && self.owner(h) != self.owner(last))
                    || !self.in_territory(h, cap.territory, mover)
                    || !cap.values.contains(p.pits[h])
                    || (h == origin && self.chain_stops_before_origin)
                    || count > self.chain_max
                {
                    break;
                }
                matched[count] = h as u8;
                count += 1;
                if h == origin {
                    break;
                }
            }
        }
        (matched, count)
    }

    /// [`SowingGame::capture_targets`] when the rules take the matched holes themselves (no
    /// trace): the targets are the matched holes that hold seeds, already distinct.
    #[inline]
    fn capture_reached(
        &self,
        p: &mut SowingPosition,
        last: usize,
        lap_origin: usize,
        clockwise: bool,
        mover: Player,
    ) -> TurnInfo {
        let cap = self.rules.capture.as_ref().expect("a capture rule");
        let (matched, count) = self.matched_holes(p, last, lap_origin, clockwise, mover);
        let matched = &matched[..count];
        let opponent = mover.other();
        let mut any = false;
        let mut opp_taken = 0u32;
        for &m in matched {
            let seeds = p.pits[m as usize];
            any |= seeds > 0;
            if self.owner(m as usize) == opponent {
                opp_taken += seeds as u32;
            }
        }
        if !any {
            return TurnInfo::default();
        }
        let grand_slam = opp_taken == self.row_sum(p, opponent);
        // Matched holes skipped: the last hole is the first target when it holds seeds, and
        // skipping it when it is empty changes nothing.
        let skip = if grand_slam {
            match cap.grand_slam {
                GrandSlam::Allowed => 0,
                GrandSlam::SpareLast => 1,
                GrandSlam::NoCapture | GrandSlam::Illegal => count,
            }
        } else {
            0
        };
        for &c in &matched[skip.min(count)..] {
            let c = c as usize;
            let seeds = p.pits[c];
            if seeds > 0 {
                p.pits[c] = 0;
                p.stores[mover.index()] += seeds;
                if self.track_capturer {
                    p.set_last_capturer(mover);
                }
            }
        }
        TurnInfo { grand_slam, ..TurnInfo::default() }
    }

    /// The capture for any target rule, recording its events into `trace`.
    fn capture_targets<T: Trace>(
        &self,
        p: &mut SowingPosition,
        last: usize,
        lap_origin: usize,
        clockwise: bool,
        mover: Player,
        trace: &mut T,
    ) -> TurnInfo {
        let cap = self.rules.capture.as_ref().expect("a capture rule");
        // Matching holes, the last hole first.
        let (matched, count) = self.matched_holes(p, last, lap_origin, clockwise, mover);
        // Target holes, deduplicated, in the order matched.
        let mut targets = [0u8; 2 * MAX_PITS];
        let mut nt = 0;
        let mut first_group = 0;
        for (i, &m) in matched[..count].iter().enumerate() {
            let m = m as usize;
            let opp = self.len - 1 - m;
            let cells: [Option<usize>; 3] = match cap.target {
                Target::Reached => [Some(m), None, None],
                Target::Opposite => [Some(opp), None, None],
                Target::ReachedAndOpposite => [Some(m), Some(opp), None],
                Target::Next => [Some(self.step(m, clockwise)), None, None],
                Target::ReachedAndNeighbours => {
                    let row = self.row_range(self.owner(m));
                    let beside = |h: usize| (row.contains(&h) && cap.values.contains(p.pits[h])).then_some(h);
                    [Some(m), m.checked_sub(1).and_then(beside), beside(m + 1)]
                }
            };
            for c in cells.into_iter().flatten() {
                if p.pits[c] > 0 && !targets[..nt].contains(&(c as u8)) {
                    targets[nt] = c as u8;
                    nt += 1;
                }
            }
            if i == 0 {
                first_group = nt;
            }
        }
        if nt == 0 {
            return TurnInfo::default();
        }
        let opponent = mover.other();
        let opp_before = self.row_sum(p, opponent);
        let opp_taken: u32 = targets[..nt]
            .iter()
            .filter(|&&c| self.owner(c as usize) == opponent)
            .map(|&c| p.pits[c as usize] as u32)
            .sum();
        // "If capture doesn't leave any seed to the opponent": the opponent's row is empty once the
        // capture is made, whichever row the captured holes are on.
        let grand_slam = opp_taken == opp_before;
        let mut info = TurnInfo { grand_slam, ..TurnInfo::default() };
        let take_from = if grand_slam {
            match cap.grand_slam {
                GrandSlam::Allowed => 0,
                GrandSlam::SpareLast => first_group,
                GrandSlam::NoCapture | GrandSlam::Illegal => nt,
            }
        } else {
            0
        };
        if T::ENABLED && take_from > 0 {
            trace.push(Event::CaptureForfeited { cells: targets[..take_from].to_vec() });
        }
        for (i, &c) in targets[..nt].iter().enumerate().skip(take_from) {
            let c = c as usize;
            let seeds = p.pits[c];
            p.pits[c] = 0;
            p.stores[mover.index()] += seeds;
            if self.track_capturer {
                p.set_last_capturer(mover);
            }
            if T::ENABLED {
                let kind = if i < first_group { CaptureKind::Final } else { CaptureKind::Chain };
                trace.push(Event::Capture { cell: c as u8, seeds: seeds as u16, player: mover, kind });
            }
        }
        if grand_slam && cap.grand_slam == GrandSlam::Illegal {
            info.grand_slam = true;
        }
        info
    }

    /// Sowing moves for `player` in `pos` (ignoring whose turn it is), with the starving and
    /// grand-slam filters applied.
    #[inline(always)]
    fn sowing_moves(&self, pos: &SowingPosition, player: Player, moves: &mut MoveList<SowingMove>) {
        if self.word_moves {
            let (start, mut mask) = self.sowable(pos, player);
            let cw = self.move_direction;
            while mask != 0 {
                let h = start + (mask.trailing_zeros() / 8) as usize;
                moves.push(SowingMove(h as u8 | cw));
                mask &= mask - 1;
            }
        } else {
            self.push_sowings(pos, player, moves);
        }
        if self.opening_each_hole {
            keep_opening_holes(pos.marks, moves);
        }
        self.filter_moves(pos, player, moves);
    }

    /// The sowing moves of `player`'s holes one hole at a time (any board).
    fn push_sowings(&self, pos: &SowingPosition, player: Player, moves: &mut MoveList<SowingMove>) {
        let r = &*self.rules;
        let min = r.min_seeds.max(1);
        let range = match r.playable {
            Playable::Own => self.row_range(player),
            Playable::Any => 0..self.len,
        };
        for h in range {
            if pos.pits[h] >= min {
                match r.direction {
                    Direction::Ccw => moves.push(SowingMove::ccw(h)),
                    Direction::Cw => moves.push(SowingMove::cw(h)),
                    Direction::Choice => {
                        moves.push(SowingMove::ccw(h));
                        moves.push(SowingMove::cw(h));
                    }
                }
            }
        }
    }

    /// The starving and grand-slam filters over `player`'s sowing moves.
    #[inline]
    fn filter_moves(&self, pos: &SowingPosition, player: Player, moves: &mut MoveList<SowingMove>) {
        if self.never_filtered {
            return;
        }
        let opponent = player.other();
        let opponent_empty = self.row_empty(pos, opponent);
        // Must feed only filters when the opponent is empty; without captures that can empty a row
        // neither does any other rule.
        if !opponent_empty && self.filter_needs_empty_opponent {
            return;
        }
        self.play_filters(pos, player, opponent_empty, moves);
    }

    /// The filters' work: each move played to see whether it starves or is an illegal grand slam
    /// (rare in a search: out of line, so the common path stays small enough to inline).
    #[inline(never)]
    fn play_filters(
        &self,
        pos: &SowingPosition,
        player: Player,
        opponent_empty: bool,
        moves: &mut MoveList<SowingMove>,
    ) {
        let r = &*self.rules;
        let grand_slam_illegal = r.capture.is_some_and(|c| c.grand_slam == GrandSlam::Illegal);
        let opponent = player.other();
        let mut starving = [false; crate::game::MAX_MOVES];
        let mut any_feeding = false;
        let mut keep = [true; crate::game::MAX_MOVES];
        for (i, &mv) in moves.iter().enumerate() {
            let mut next = *pos;
            next.to_move = player;
            let info = self.apply(&mut next, mv, &mut crate::game::NoTrace);
            if grand_slam_illegal && info.grand_slam {
                keep[i] = false;
                continue;
            }
            starving[i] = (!next.is_cut() && self.row_sum(&next, opponent) == 0) || info.starved_lap;
            any_feeding |= !starving[i];
        }
        let drop_starving = match r.starving {
            Starving::Allowed => false,
            Starving::Avoid => any_feeding,
            Starving::Forbidden => true,
            Starving::MustFeed => opponent_empty,
        };
        let mut i = 0;
        moves.retain(|_| {
            let k = keep[i] && !(drop_starving && starving[i]);
            i += 1;
            k
        });
    }

    /// The end conditions checked before a turn, other than being unable to move.
    #[inline]
    fn terminal_by_rule(&self, pos: &SowingPosition) -> Option<EndReason> {
        if pos.is_cut() {
            return Some(EndReason::EndlessCycle);
        }
        if pos.stores[0] as u16 > self.store_above || pos.stores[1] as u16 > self.store_above {
            return Some(EndReason::StoreThreshold);
        }
        if !self.end_checks {
            return None;
        }
        let e = &self.rules.end;
        if e.board_empty || e.fewer_than.is_some() {
            let on_board: u32 = pos.pits[..self.len].iter().map(|&s| s as u32).sum();
            if e.board_empty && on_board == 0 {
                return Some(EndReason::BoardEmpty);
            }
            if let Some(n) = e.fewer_than {
                if on_board < n as u32 {
                    return Some(EndReason::FewSeeds);
                }
            }
        }
        if e.all_singletons && pos.pits[..self.len].iter().all(|&s| s <= 1) {
            return Some(EndReason::AllSingletons);
        }
        None
    }

    fn at_turn_limit(&self, pos: &SowingPosition) -> bool {
        pos.turns >= self.max_turns
    }

    #[inline(always)]
    fn has_sowing_move(&self, pos: &SowingPosition, player: Player) -> bool {
        if self.never_filtered || (self.filter_needs_empty_opponent && !self.row_empty(pos, player.other())) {
            // No filter applies: any hole with enough seeds is a move.
            if self.word_rows {
                return self.sowable(pos, player).1 != 0;
            }
            let min = self.rules.min_seeds.max(1);
            let range = match self.rules.playable {
                Playable::Own => self.row_range(player),
                Playable::Any => 0..self.len,
            };
            return pos.pits[range].iter().any(|&c| c >= min);
        }
        let mut moves = MoveList::new();
        self.sowing_moves(pos, player, &mut moves);
        !moves.is_empty()
    }

    #[inline(always)]
    fn row_empty(&self, pos: &SowingPosition, p: Player) -> bool {
        if self.n <= 8 {
            // One word from the row's first hole (the board has 32 bytes, rows of 8 end by 16).
            let start = if p == Player::South { 0 } else { self.n };
            let bytes: [u8; 8] = pos.pits[start..start + 8].try_into().expect("8 bytes");
            return u64::from_le_bytes(bytes) & self.row_mask == 0;
        }
        pos.pits[self.row_range(p)].iter().all(|&c| c == 0)
    }

    /// With `[rounds]`, during a refill: what the player to move does.
    fn refill_turn(&self, pos: &SowingPosition, rounds: &Rounds) -> RefillTurn {
        let start_of_refill = pos.pits[..self.len].iter().all(|&c| c == 0);
        if start_of_refill && pos.stores.iter().any(|&s| s < rounds.lose_below) {
            return RefillTurn::Over;
        }
        let me = pos.to_move;
        if pos.stores[me.index()] == 0 {
            return RefillTurn::Pass;
        }
        match self.row_range(me).find(|&h| pos.pits[h] == 0) {
            Some(h) => RefillTurn::Place(h),
            None => RefillTurn::Pass,
        }
    }

    /// With `[rounds]`, after a sowing: when either row is empty, each player takes the seeds of
    /// their own row and the refill between rounds begins (or the match is over).
    #[inline(never)]
    fn end_round_if_row_empty<T: Trace>(&self, p: &mut SowingPosition, trace: &mut T) {
        if p.is_cut() || !(self.row_empty(p, Player::South) || self.row_empty(p, Player::North)) {
            return;
        }
        for player in Player::BOTH {
            let seeds = self.row_sum(p, player) as u8;
            p.stores[player.index()] += seeds;
            for h in self.row_range(player) {
                p.pits[h] = 0;
            }
        }
        p.marks = 0;
        p.flags = (p.flags | FLAG_REFILL) & !FLAG_PASSED;
        if T::ENABLED {
            trace.push(Event::Note { name: "round_end", player: None });
            if let Some(rounds) = &self.rounds {
                for player in Player::BOTH {
                    if p.stores[player.index()] < rounds.lose_below {
                        trace.push(Event::Note { name: "match_lost", player: Some(player) });
                    }
                }
            }
        }
    }

    /// With `[rounds]`: a refill or a pass between rounds by the player to move (`mv` is the move
    /// [`SowingGame::refill_turn`] allows). After two passes in a row the next round starts, the
    /// holes still empty out of play with `empty_holes = "out-of-play"`.
    fn play_refill<T: Trace>(&self, p: &mut SowingPosition, mv: SowingMove, trace: &mut T) {
        let me = p.to_move;
        if mv.is_refill() {
            let rounds = self.rounds.as_ref().expect("a refill needs rounds");
            let h = mv.hole();
            let seeds = p.stores[me.index()].min(rounds.refill_seeds);
            p.stores[me.index()] -= seeds;
            p.pits[h] += seeds;
            p.flags &= !FLAG_PASSED;
            if T::ENABLED {
                trace.push(Event::Fill { cell: h as u8, seeds: seeds as u16, player: me });
            }
        } else if p.flags & FLAG_PASSED != 0 {
            p.flags &= !(FLAG_REFILL | FLAG_PASSED);
            if self.off_holes {
                p.marks = (0..self.len).filter(|&h| p.pits[h] == 0).fold(0, |m, h| m | 1 << h);
            }
            if T::ENABLED {
                trace.push(Event::Pass { player: me });
                trace.push(Event::Note { name: "round_start", player: Some(me.other()) });
            }
        } else {
            p.flags |= FLAG_PASSED;
            if T::ENABLED {
                trace.push(Event::Pass { player: me });
            }
        }
    }

    /// The moves of a position in the refill phase, cut as endless or cut at a lap (flags in
    /// [`FLAGS_SPECIAL`]).
    #[inline(never)]
    fn special_legal_moves(&self, pos: &SowingPosition, moves: &mut MoveList<SowingMove>) {
        if pos.is_cut() || pos.is_lap_cut() || self.at_turn_limit(pos) {
            return;
        }
        let Some(rounds) = &self.rounds else { return };
        match self.refill_turn(pos, rounds) {
            RefillTurn::Over => {}
            RefillTurn::Place(h) => moves.push(SowingMove::refill(h)),
            RefillTurn::Pass => moves.push(SowingMove::PASS),
        }
    }

    /// The outcome of a position in the refill phase, cut as endless or cut at a lap.
    #[inline(never)]
    fn special_outcome(&self, pos: &SowingPosition) -> Option<Outcome> {
        if pos.is_cut() {
            return Some(self.endless_outcome(pos));
        }
        if pos.is_lap_cut() {
            let scores = self.final_scores(pos, self.rules.remaining, false, false);
            return Some(Outcome::by_score(scores, EndReason::Stuck));
        }
        let rounds = self.rounds.as_ref()?;
        if self.refill_turn(pos, rounds) == RefillTurn::Over {
            let scores = [pos.stores[0] as i32, pos.stores[1] as i32];
            let short = Player::BOTH.map(|q| pos.stores[q.index()] < rounds.lose_below);
            let by_score = Outcome::by_score(scores, EndReason::MatchLost);
            return Some(match short {
                [true, false] => Outcome { winner: Some(Player::North), ..by_score },
                [false, true] => Outcome { winner: Some(Player::South), ..by_score },
                _ => by_score,
            });
        }
        if self.at_turn_limit(pos) {
            let mut o = self.endless_outcome(pos);
            o.reason = EndReason::TurnLimit;
            return Some(o);
        }
        None
    }

    /// Final scores when the game ends with `pos` under `rule`; `stuck` says whether the player to
    /// move cannot move, and `other_can_move` whether the opponent could.
    fn final_scores(
        &self,
        pos: &SowingPosition,
        rule: Remaining,
        stuck: bool,
        other_can_move: bool,
    ) -> [i32; 2] {
        let mut scores = [pos.stores[0] as i32, pos.stores[1] as i32];
        let rows = [self.row_sum(pos, Player::South) as i32, self.row_sum(pos, Player::North) as i32];
        let all = rows[0] + rows[1];
        let last_mover = (pos.turns > 0).then(|| pos.to_move.other());
        let give_all = |scores: &mut [i32; 2], p: Player| scores[p.index()] += all;
        let own_rows = |scores: &mut [i32; 2]| {
            scores[0] += rows[0];
            scores[1] += rows[1];
        };
        let not_stuck = (stuck && other_can_move).then(|| pos.to_move.other());
        match rule {
            Remaining::OwnRow => own_rows(&mut scores),
            Remaining::Nobody => {}
            Remaining::LastMover => match last_mover {
                Some(p) => give_all(&mut scores, p),
                None => own_rows(&mut scores),
            },
            Remaining::LastCapturer => match pos.last_capturer() {
                Some(p) => give_all(&mut scores, p),
                None => own_rows(&mut scores),
            },
            Remaining::NotStuckElseLastMover => match not_stuck.or(last_mover) {
                Some(p) => give_all(&mut scores, p),
                None => own_rows(&mut scores),
            },
            Remaining::NotStuckElseOwnRow => match not_stuck {
                Some(p) => give_all(&mut scores, p),
                None => own_rows(&mut scores),
            },
            Remaining::OpponentOfStuck => {
                if stuck {
                    give_all(&mut scores, pos.to_move.other())
                } else {
                    own_rows(&mut scores)
                }
            }
        }
        if self.rules.scoring == Scoring::StoreAndRow && matches!(rule, Remaining::Nobody) {
            scores[0] += rows[0];
            scores[1] += rows[1];
        }
        scores
    }
}

impl SowingGame {
    /// The outcome when the player to move cannot play, by the rules' end choices.
    fn stuck_outcome(&self, pos: &SowingPosition, scores: [i32; 2], reason: EndReason) -> Outcome {
        let e = &self.rules.end;
        let by_score = Outcome::by_score(scores, reason);
        if reason == EndReason::NeitherCanMove && e.neither_can_move == NeitherCanMove::Draw {
            return Outcome { winner: None, ..by_score };
        }
        match e.stuck_result {
            StuckResult::Scores => by_score,
            StuckResult::Draw => Outcome { winner: None, ..by_score },
            StuckResult::MoverWinsBelow(t) => {
                let stuck = pos.to_move;
                let below = (pos.stores[stuck.index()] as u32) < t.count(self.n as u8, self.seeds);
                Outcome { winner: below.then(|| stuck.other()), ..by_score }
            }
        }
    }
}

impl Game for SowingGame {
    #[inline(always)]
    fn play_unchecked(&self, pos: &SowingPosition, mv: SowingMove) -> SowingPosition {
        // One position written in place by either path: no copy between them.
        let mut p = *pos;
        if self.fast_play && mv.0 & SowingMove::SPECIAL == 0 {
            // One lap and a capture on the opponent's row (`fast_play`): small enough to inline
            // into a search's or perft's move loop.
            let origin = mv.hole();
            let clockwise = mv.clockwise();
            let (seeds, mover) = (p.pits[origin], p.to_move);
            let last = self.sow_lap(&mut p.pits, origin, seeds, clockwise);
            self.capture_row(&mut p, last, clockwise, mover);
            p.to_move = p.to_move.other();
            p.turns = p.turns.saturating_add(1);
        } else {
            self.play_other(&mut p, mv);
        }
        p
    }

    type Position = SowingPosition;
    type Move = SowingMove;

    fn variant(&self) -> &Variant {
        &self.variant
    }

    fn start(&self) -> SowingPosition {
        let mut pits = [0u8; MAX_PITS];
        pits[..self.len].fill(self.seeds);
        let marks = if self.opening_each_hole { ((1u64 << self.len) - 1) as u32 } else { 0 };
        SowingPosition { pits, stores: [0, 0], turns: 0, to_move: Player::South, flags: 0, marks }
    }

    fn side_to_move(&self, pos: &SowingPosition) -> Player {
        pos.to_move
    }

    fn turns(&self, pos: &SowingPosition) -> u32 {
        pos.turns
    }

    fn legal_moves(&self, pos: &SowingPosition, moves: &mut MoveList<SowingMove>) {
        if pos.flags & FLAGS_SPECIAL != 0 {
            return self.special_legal_moves(pos, moves);
        }
        if self.terminal_by_rule(pos).is_some() || self.at_turn_limit(pos) {
            return;
        }
        self.sowing_moves(pos, pos.to_move, moves);
        if moves.is_empty()
            && self.rules.end.stuck == Stuck::Pass
            && self.has_sowing_move(pos, pos.to_move.other())
        {
            moves.push(SowingMove::PASS);
        }
    }

    #[inline]
    fn has_legal_move(&self, pos: &SowingPosition) -> bool {
        if pos.flags & FLAGS_SPECIAL != 0 {
            let mut moves = MoveList::new();
            self.special_legal_moves(pos, &mut moves);
            return !moves.is_empty();
        }
        if self.terminal_by_rule(pos).is_some() || self.at_turn_limit(pos) {
            return false;
        }
        self.has_sowing_move(pos, pos.to_move)
            || (self.rules.end.stuck == Stuck::Pass && self.has_sowing_move(pos, pos.to_move.other()))
    }

    #[inline(always)]
    fn play_traced<T: Trace>(&self, pos: &SowingPosition, mv: SowingMove, trace: &mut T) -> SowingPosition {
        let mut p = *pos;
        self.play_in_place(&mut p, mv, trace);
        p
    }

    fn outcome(&self, pos: &SowingPosition) -> Option<Outcome> {
        if pos.flags & FLAGS_SPECIAL != 0 {
            return self.special_outcome(pos);
        }
        if let Some(reason) = self.terminal_by_rule(pos) {
            if reason == EndReason::EndlessCycle {
                return Some(self.endless_outcome(pos));
            }
            return Some(Outcome::by_score(
                self.final_scores(pos, self.rules.remaining, false, false),
                reason,
            ));
        }
        // A natural end (the player to move cannot move) takes precedence over the turn limit.
        let turn_limit = || {
            let mut o = self.endless_outcome(pos);
            o.reason = EndReason::TurnLimit;
            Some(o)
        };
        if self.has_sowing_move(pos, pos.to_move) {
            return if self.at_turn_limit(pos) { turn_limit() } else { None };
        }
        let other_can_move = self.has_sowing_move(pos, pos.to_move.other());
        if self.rules.end.stuck == Stuck::Pass && other_can_move {
            return if self.at_turn_limit(pos) { turn_limit() } else { None };
        }
        let reason = if other_can_move { EndReason::Stuck } else { EndReason::NeitherCanMove };
        let scores = self.final_scores(pos, self.rules.remaining, true, other_can_move);
        Some(self.stuck_outcome(pos, scores, reason))
    }

    fn endless_outcome(&self, pos: &SowingPosition) -> Outcome {
        Outcome::by_score(self.final_scores(pos, self.rules.endless, false, false), EndReason::EndlessCycle)
    }

    fn hash_key(&self, pos: &SowingPosition) -> u64 {
        // Three multiply-folds, the first two independent: the whole board in few cycles. Each
        // word of holes is xored with a constant whose bytes add up to more seeds than a board
        // holds, so no factor is ever zero.
        const S: [u64; 6] = [
            0x9E37_79B9_7F4A_7C15,
            0xBF58_476D_1CE4_E5B9,
            0x94D0_49BB_1331_11EB,
            0xD6E8_FEB8_6659_FD93,
            0xA076_1D64_78BD_642F,
            0xE703_7ED1_A0B4_28DB,
        ];
        #[inline(always)]
        fn fold(a: u64, b: u64) -> u64 {
            let m = a as u128 * b as u128;
            m as u64 ^ (m >> 64) as u64
        }
        const _: () = assert!(MAX_PITS == 36, "the hash reads 4 words and 4 bytes of holes");
        let p = &pos.pits;
        let word = |i: usize| u64::from_le_bytes(p[8 * i..8 * i + 8].try_into().expect("8 bytes"));
        // Holes 32..36 are empty on the boards that have marks (at most 32 holes): the marks share
        // their word. The turns before the first capture is allowed read as part of the position.
        let last = (u32::from_le_bytes(p[32..36].try_into().expect("4 bytes")) ^ pos.marks) as u64;
        let tail = last
            | (pos.turns.min(self.no_capture_turns) as u64) << 49
            | (pos.stores[0] as u64) << 32
            | (pos.stores[1] as u64) << 40
            | (pos.to_move as u64) << 48
            | (pos.flags as u64) << 56;
        let x = fold(word(0) ^ S[0], word(1) ^ S[1]);
        let y = fold(word(2) ^ S[2], word(3) ^ S[3]);
        fold(tail ^ S[4], x ^ y ^ S[5])
    }

    fn write_key(&self, pos: &SowingPosition, out: &mut Vec<u8>) {
        out.extend_from_slice(&pos.pits[..self.len]);
        out.extend_from_slice(&pos.stores);
        out.push(pos.to_move as u8);
        out.push(pos.flags);
        if self.opening_each_hole || self.off_holes {
            out.extend_from_slice(&pos.marks.to_le_bytes());
        }
        if self.no_capture_turns > 0 {
            out.push(pos.turns.min(self.no_capture_turns) as u8);
        }
    }

    fn format_body(&self, pos: &SowingPosition) -> String {
        let row = |r: std::ops::Range<usize>| notation::format_counts(&pos.pits[r]);
        let mut flags = Vec::new();
        if let Some(p) = pos.last_capturer() {
            flags.push(format!("cap={}", p.letter()));
        }
        if pos.marks != 0 {
            let labels: String =
                (0..self.len).filter(|&h| (pos.marks >> h) & 1 == 1).map(|h| self.label(h)).collect();
            let name = if self.opening_each_hole { "opening" } else { "off" };
            flags.push(format!("{name}={labels}"));
        }
        if pos.is_refill() {
            flags.push("refill".to_string());
        }
        if pos.flags & FLAG_PASSED != 0 {
            flags.push("passed".to_string());
        }
        if pos.is_cut() {
            flags.push("cycle".to_string());
        }
        if pos.is_lap_cut() {
            flags.push("lap-cut".to_string());
        }
        format!(
            "{}/{} {}-{} {} {} {}",
            row(0..self.n),
            row(self.n..self.len),
            pos.stores[0],
            pos.stores[1],
            pos.to_move.letter(),
            pos.turns,
            if flags.is_empty() { "-".to_string() } else { flags.join(",") }
        )
    }

    fn parse_body(&self, body: &str) -> Result<SowingPosition, NotationError> {
        let fields: Vec<&str> = body.split(' ').collect();
        const NAMES: [&str; 5] = ["board", "stores", "side", "turns", "flags"];
        if fields.len() != NAMES.len() {
            return Err(NotationError::new(format!(
                "expected {} fields after the variant (board stores side turns flags), found {}",
                NAMES.len(),
                fields.len()
            )));
        }
        let f = |i: usize, m: String| NotationError::field(i + 2, NAMES[i], m);
        let mut pos = SowingPosition {
            pits: [0; MAX_PITS],
            stores: [0; 2],
            turns: 0,
            to_move: Player::South,
            flags: 0,
            marks: 0,
        };
        let mut total = notation::parse_two_rows(fields[0], self.n, &self.variant, "seed", &mut pos.pits)
            .map_err(|m| f(0, m))?;
        pos.stores = notation::parse_pair(fields[1], "store", "seed").map_err(|m| f(1, m))?;
        total += pos.stores.iter().map(|&s| s as u32).sum::<u32>();
        if total > rules::MAX_TOTAL_SEEDS {
            return Err(NotationError::new(format!(
                "{total} seeds in all; a board holds at most {}",
                rules::MAX_TOTAL_SEEDS
            )));
        }
        pos.to_move = notation::parse_side(fields[2]).map_err(|m| f(2, m))?;
        pos.turns = notation::parse_turns(fields[3], self.max_turns).map_err(|m| f(3, m))?;
        if fields[4] != "-" {
            for flag in fields[4].split(',') {
                match flag {
                    "cap=S" | "cap=N" if !self.track_capturer => {
                        return Err(f(
                            4,
                            format!("{flag}: {} does not record the last capturer", self.variant),
                        ))
                    }
                    "cap=S" => pos.set_last_capturer(Player::South),
                    "cap=N" => pos.set_last_capturer(Player::North),
                    "cycle" => pos.flags |= FLAG_CYCLE,
                    "lap-cut" if !self.lap_cut_ends_game => {
                        return Err(f(
                            4,
                            format!("{flag}: {} does not end the game at a cut lap", self.variant),
                        ))
                    }
                    "lap-cut" => pos.flags |= FLAG_LAP_CUT,
                    _ if flag.starts_with("opening=") => {
                        pos.marks =
                            self.parse_opening_flag(&flag["opening=".len()..]).map_err(|m| f(4, m))?;
                    }
                    "refill" | "passed" if self.rounds.is_none() => {
                        return Err(f(4, format!("{flag}: {} is not played in rounds", self.variant)))
                    }
                    "refill" => pos.flags |= FLAG_REFILL,
                    "passed" => pos.flags |= FLAG_PASSED,
                    _ if flag.starts_with("off=") => {
                        let labels = &flag["off=".len()..];
                        if !self.off_holes {
                            return Err(f(4, format!("{flag}: {} has no holes out of play", self.variant)));
                        }
                        pos.marks = self.parse_holes_flag("off", labels).map_err(|m| f(4, m))?;
                    }
                    _ => {
                        return Err(f(
                            4,
                            format!(
                                "unknown flag {flag:?} (flags are cap=S, cap=N, opening=<holes>, \
                                 off=<holes>, refill, passed, cycle, or -)"
                            ),
                        ))
                    }
                }
            }
        }
        if let Some(rounds) = &self.rounds {
            self.check_rounds_position(&pos, rounds).map_err(|m| f(4, m))?;
        }
        Ok(pos)
    }

    fn format_move(&self, _pos: &SowingPosition, mv: SowingMove) -> String {
        if mv.is_pass() {
            return "pass".into();
        }
        if mv.is_refill() {
            return format!("fill:{}", self.label(mv.hole()));
        }
        let label = self.label(mv.hole());
        if self.rules.direction == Direction::Choice {
            format!("{label}:{}", if mv.clockwise() { "cw" } else { "ccw" })
        } else {
            label
        }
    }

    fn parse_move(&self, _pos: &SowingPosition, text: &str) -> Result<SowingMove, NotationError> {
        let text = text.trim();
        if text == "pass" {
            return Ok(SowingMove::PASS);
        }
        if let Some(label) = text.strip_prefix("fill:") {
            if self.rounds.is_none() {
                return Err(NotationError::new(format!(
                    "{text:?}: holes are refilled only in games played in rounds"
                )));
            }
            let hole = self.parse_label(label).ok_or_else(|| {
                NotationError::new(format!("{text:?}: {label:?} is not a hole label of this board"))
            })?;
            return Ok(SowingMove::refill(hole));
        }
        let (label, dir) = match text.split_once(':') {
            Some((l, d)) => (l, Some(d)),
            None => (text, None),
        };
        let hole = self.parse_label(label).ok_or_else(|| {
            NotationError::new(format!(
                "{text:?} is not a move: moves are a hole label a-{} (South) or A-{} (North), or pass",
                (b'a' + self.n as u8 - 1) as char,
                (b'A' + self.n as u8 - 1) as char
            ))
        })?;
        let clockwise = match (dir, self.rules.direction) {
            (None, Direction::Cw) => true,
            (None, Direction::Ccw) => false,
            (None, Direction::Choice) => {
                return Err(NotationError::new(format!(
                    "{text:?}: this variant needs a direction, {label}:cw or {label}:ccw"
                )))
            }
            (Some("cw"), Direction::Cw | Direction::Choice) => true,
            (Some("ccw"), Direction::Ccw | Direction::Choice) => false,
            (Some(d), _) => {
                return Err(NotationError::new(format!(
                    "{text:?}: direction {d:?} is not available in this variant"
                )))
            }
        };
        Ok(if clockwise { SowingMove::cw(hole) } else { SowingMove::ccw(hole) })
    }

    fn check_move(&self, pos: &SowingPosition, mv: SowingMove) -> Result<(), IllegalMove> {
        if let Some(o) = self.outcome(pos) {
            return Err(IllegalMove::new("game_over", format!("the game is over ({})", o.reason.name())));
        }
        let mut moves = MoveList::new();
        self.legal_moves(pos, &mut moves);
        if moves.contains(&mv) {
            return Ok(());
        }
        let me = pos.to_move;
        if pos.is_refill() {
            let want = moves.first().map(|&m| self.format_move(pos, m)).unwrap_or_default();
            return Err(IllegalMove::new(
                "refill",
                format!(
                    "{me} refills between rounds (the leftmost empty hole of their row, or pass when the \
                     row is full or the store empty): the move is {want}"
                ),
            ));
        }
        if mv.is_refill() {
            return Err(IllegalMove::new(
                "not_refill",
                "a round is being played; holes are refilled only between rounds".to_string(),
            ));
        }
        if mv.is_pass() {
            return Err(IllegalMove::new("cannot_pass", format!("{me} has a move and may not pass")));
        }
        let h = mv.hole();
        let label = self.label(h);
        let r = &*self.rules;
        if r.playable == Playable::Own && self.owner(h) != me {
            return Err(IllegalMove::new(
                "not_own_hole",
                format!("hole {label} belongs to {}; {me} plays from their own row", me.other()),
            ));
        }
        if pos.pits[h] == 0 {
            return Err(IllegalMove::new("empty_hole", format!("hole {label} is empty")));
        }
        if pos.pits[h] < r.min_seeds {
            return Err(IllegalMove::new(
                "too_few_seeds",
                format!(
                    "hole {label} holds {} seed(s); a hole needs at least {} to be played",
                    pos.pits[h], r.min_seeds
                ),
            ));
        }
        if self.opening_each_hole && (pos.marks >> h) & 1 == 0 {
            let mut sowable = MoveList::new();
            self.push_sowings(pos, me, &mut sowable);
            if sowable.iter().any(|m| (pos.marks >> m.hole()) & 1 == 1) {
                return Err(IllegalMove::new(
                    "opening_order",
                    format!(
                        "hole {label} was already sown in the opening; {me} must first sow each of their \
                         holes once"
                    ),
                ));
            }
        }
        let mut next = *pos;
        let info = self.apply(&mut next, mv, &mut crate::game::NoTrace);
        if info.grand_slam && r.capture.is_some_and(|c| c.grand_slam == GrandSlam::Illegal) {
            return Err(IllegalMove::new(
                "grand_slam",
                format!("{label} would capture every seed of {}'s row", me.other()),
            ));
        }
        if (self.row_sum(&next, me.other()) == 0 || info.starved_lap) && r.starving != Starving::Allowed {
            if r.starving == Starving::MustFeed {
                return Err(IllegalMove::new(
                    "must_feed",
                    format!("{} has no seeds: {label} does not give them any, and a move must", me.other()),
                ));
            }
            return Err(IllegalMove::new(
                "must_not_starve",
                format!(
                    "{label} would leave {} without seeds; a move that gives them seeds must be played",
                    me.other()
                ),
            ));
        }
        Err(IllegalMove::new("not_legal", format!("{} is not a legal move here", self.format_move(pos, mv))))
    }

    fn evaluate(&self, pos: &SowingPosition) -> i32 {
        let me = pos.to_move.index();
        pos.stores[me] as i32 - pos.stores[1 - me] as i32
    }

    fn cells(&self, pos: &SowingPosition) -> Vec<i32> {
        pos.pits[..self.len].iter().map(|&s| s as i32).collect()
    }

    fn stores(&self, pos: &SowingPosition) -> Option<[i32; 2]> {
        Some([pos.stores[0] as i32, pos.stores[1] as i32])
    }

    fn geometry(&self) -> Geometry {
        let mut cells = Vec::with_capacity(self.len);
        for i in 0..self.len {
            let (row, col) = if i < self.n { (0u8, i) } else { (1u8, self.len - 1 - i) };
            cells.push(Cell { row, col: col as u8, owner: Some(self.owner(i)), label: self.label(i) });
        }
        Geometry {
            rows: 2,
            cols: self.n as u8,
            cells,
            stores: true,
            sowing: match self.rules.direction {
                Direction::Ccw => "counter-clockwise".into(),
                Direction::Cw => "clockwise".into(),
                Direction::Choice => "chosen by the player".into(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small seeded generator (xorshift64) for the random games of these tests.
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// Seed by seed, as the lap loop of `apply` sows.
    fn sow_one_by_one(
        pits: &mut [u8; MAX_PITS],
        len: usize,
        origin: usize,
        seeds: u8,
        clockwise: bool,
        skip_origin: bool,
    ) -> usize {
        let mut hole = origin;
        for _ in 0..seeds {
            loop {
                hole = if clockwise { (hole + len - 1) % len } else { (hole + 1) % len };
                if !(skip_origin && hole == origin) {
                    break;
                }
            }
            pits[hole] += 1;
        }
        hole
    }

    #[test]
    fn a_lap_sown_at_once_matches_seed_by_seed() {
        // Plain-lap rule sets with and without the origin skipped, on every board size: 16 holes
        // or fewer use the 128-bit runs, more the loops.
        for id in ["abapa", "2-4"] {
            for holes in 1..=rules::MAX_HOLES_PER_ROW {
                let spec = format!("{id}(holes={holes},seeds=1)");
                let g = match &*crate::registry::game(&spec).unwrap() {
                    crate::registry::AnyGame::Sowing(g) => g.clone(),
                    _ => unreachable!(),
                };
                assert!(g.plain_laps);
                assert_eq!(g.lap_runs.is_empty(), g.len > 16);
                let len = g.len;
                for origin in 0..len {
                    for seeds in 1..=200u8 {
                        for clockwise in [false, true] {
                            let mut start = [0u8; MAX_PITS];
                            for (i, c) in start[..len].iter_mut().enumerate() {
                                *c = ((i * 7 + origin) % 5) as u8;
                            }
                            start[origin] = seeds + (origin % 2) as u8;
                            let (mut a, mut b) = (start, start);
                            let last_a = g.lift_and_sow(&mut a, origin, seeds, clockwise);
                            b[origin] -= seeds;
                            let skip = g.rules.skip_origin;
                            let last_b = sow_one_by_one(&mut b, len, origin, seeds, clockwise, skip);
                            assert_eq!(
                                (a, last_a),
                                (b, last_b),
                                "{spec} origin {origin} seeds {seeds} cw {clockwise} skip {skip}"
                            );
                            // The inline lap of the single-lap path (runs, long laps, else the
                            // above) sows the same.
                            let mut c = start;
                            let last_c = g.sow_lap(&mut c, origin, seeds, clockwise);
                            assert_eq!(
                                (c, last_c),
                                (b, last_b),
                                "sow_lap {spec} origin {origin} seeds {seeds}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn sowable_holes_as_a_word_match_hole_by_hole() {
        // Every rule file whose rows fit a word, on every row size it allows up to 8, with holes
        // of up to 200 seeds (the high-bit case included): the word gives the holes the hole-by-hole
        // test gives, and the move lists are the same.
        let mut checked = 0;
        let mut next = xorshift(0x2545_F491_4F6C_DD1Du64);
        for (_, text) in crate::registry::BUILTIN_RULE_FILES {
            let id = RuleSet::from_toml(text).unwrap().id;
            for holes in 1..=8 {
                let Ok(g) = crate::registry::game(&format!("{id}(holes={holes})")) else {
                    continue;
                };
                let crate::registry::AnyGame::Sowing(g) = &*g else { continue };
                if !g.word_rows {
                    continue;
                }
                for _ in 0..200 {
                    let mut pos = g.start();
                    // At most 255 seeds on the board: small holes and at most one big one.
                    for c in &mut pos.pits[..g.len] {
                        *c = if next() % 3 == 0 { 0 } else { (next() % 4) as u8 };
                    }
                    if next() % 2 == 0 {
                        let big = [127, 128, 129, 200][(next() % 4) as usize];
                        pos.pits[(next() % g.len as u64) as usize] = big;
                    }
                    for player in Player::BOTH {
                        let (start, mask) = g.sowable(&pos, player);
                        let min = g.rules.min_seeds.max(1);
                        for h in 0..8 {
                            let want =
                                g.row_range(player).contains(&(start + h)) && pos.pits[start + h] >= min;
                            assert_eq!(
                                mask >> (8 * h + 7) & 1 == 1,
                                want,
                                "{id} holes {holes} {:?}",
                                pos.pits
                            );
                        }
                        assert_eq!(mask & !(0x80 * 0x0101_0101_0101_0101u64), 0);
                        let mut fast = MoveList::new();
                        g.sowing_moves(&pos, player, &mut fast);
                        let mut slow = MoveList::new();
                        g.push_sowings(&pos, player, &mut slow);
                        g.filter_moves(&pos, player, &mut slow);
                        assert_eq!(fast, slow, "{id} holes {holes}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn the_specialised_paths_match_the_general_ones() {
        // Every rule set and board size (2-8 holes) whose captures take the row path: the same
        // game with the specialised paths off plays the same successors, legality answers and
        // perft counts over random games.
        let mut next = xorshift(0x2F1D_8C3B_5A79_E604u64);
        let (mut games, mut fast_games, mut checked, mut captured) = (Vec::new(), 0, 0, 0);
        for (_, text) in crate::registry::BUILTIN_RULE_FILES {
            let id = RuleSet::from_toml(text).unwrap().id;
            for holes in 2..=8 {
                let Ok(g) = crate::registry::game(&format!("{id}(holes={holes})")) else {
                    continue;
                };
                let crate::registry::AnyGame::Sowing(g) = &*g else { continue };
                if !g.row_capture {
                    continue;
                }
                fast_games += g.fast_play as u32;
                let mut general = g.clone();
                general.row_capture = false;
                general.fast_play = false;
                for _ in 0..20 {
                    let mut pos = g.start();
                    for _ in 0..80 {
                        let (mut fast, mut slow) = (MoveList::new(), MoveList::new());
                        g.legal_moves(&pos, &mut fast);
                        general.legal_moves(&pos, &mut slow);
                        assert_eq!(fast, slow, "{id} holes {holes} {pos:?}");
                        // Every hole with seeds, legal or not: the filters play them all.
                        for h in (0..g.len).filter(|&h| pos.pits[h] > 0) {
                            for mv in [SowingMove::ccw(h), SowingMove::cw(h)] {
                                let a = g.play_unchecked(&pos, mv);
                                let b = general.play_unchecked(&pos, mv);
                                assert_eq!(a, b, "{id} holes {holes} {mv:?} from {pos:?}");
                                let (mut x, mut y) = (pos, pos);
                                let fi = g.apply(&mut x, mv, &mut crate::game::NoTrace);
                                let gi = general.apply(&mut y, mv, &mut crate::game::NoTrace);
                                assert_eq!((x, fi.grand_slam), (y, gi.grand_slam), "{id} {mv:?} {pos:?}");
                                captured += (a.stores != pos.stores) as u32;
                                checked += 1;
                            }
                        }
                        if fast.is_empty() {
                            break;
                        }
                        pos = g.play_unchecked(&pos, fast[(next() % fast.len() as u64) as usize]);
                    }
                }
                games.push(id.clone());
                let start = g.start();
                for depth in 1..=4 {
                    assert_eq!(
                        crate::game::perft(g, &start, depth),
                        crate::game::perft(&general, &start, depth),
                        "{id} holes {holes} depth {depth}"
                    );
                }
            }
        }
        for id in ["abapa", "awale", "dakar", "kale"] {
            assert!(games.iter().any(|g| g == id), "{id} takes the row path");
        }
        assert!(
            fast_games >= 4 * 7 && checked > 50_000 && captured > 5_000,
            "{fast_games} {checked} {captured}"
        );
    }

    #[test]
    fn untraced_turns_match_the_traced_lap_loop() {
        // The untraced sowing takes shortcuts (one lap at once, captures of the matched holes);
        // the traced one goes lap by lap through the general capture. On random games of every
        // rule file and board size up to 8 they give the same position and legality answer.
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15u64);
        let mut checked = 0;
        let mut captured = 0;
        for (_, text) in crate::registry::BUILTIN_RULE_FILES {
            let id = RuleSet::from_toml(text).unwrap().id;
            for holes in 2..=8 {
                let Ok(g) = crate::registry::game(&format!("{id}(holes={holes})")) else {
                    continue;
                };
                let crate::registry::AnyGame::Sowing(g) = &*g else { continue };
                for _ in 0..20 {
                    let mut pos = g.start();
                    for _ in 0..60 {
                        let mut moves = MoveList::new();
                        g.legal_moves(&pos, &mut moves);
                        // Every hole with seeds, legal or not: the filters play them all.
                        for h in 0..g.len {
                            if pos.pits[h] == 0 {
                                continue;
                            }
                            for mv in [SowingMove::ccw(h), SowingMove::cw(h)] {
                                let (mut fast, mut slow) = (pos, pos);
                                let a = g.apply(&mut fast, mv, &mut crate::game::NoTrace);
                                let mut events = Vec::new();
                                let b = g.apply(&mut slow, mv, &mut events);
                                assert_eq!(fast, slow, "{id} holes {holes} {mv:?} from {pos:?}");
                                assert_eq!(
                                    a.grand_slam, b.grand_slam,
                                    "{id} holes {holes} {mv:?} from {pos:?}"
                                );
                                captured += (fast.stores != pos.stores) as u32;
                                checked += 1;
                            }
                        }
                        if moves.is_empty() {
                            break;
                        }
                        let mv = moves[(next() % moves.len() as u64) as usize];
                        pos = g.play_unchecked(&pos, mv);
                    }
                }
            }
        }
        assert!(checked > 50_000 && captured > 1_000, "{checked} {captured}");
    }
}
