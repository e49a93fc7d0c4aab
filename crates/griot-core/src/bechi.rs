//! Béchi (the Kunama game of Eritrea and Ethiopia) as a whole multi-round match.
//!
//! Sources: R. Pankhurst, "Gabata and Related Board Games of Ethiopia and the Horn of Africa" (1971),
//! quoting Townshend (Ludii evidence DLP.Evidence.1188), cited as "Source"; `docs/rules/bechi.md` (its
//! "Main decisions" cited as "main decisions", and the precise reading,
//! written together with the Python reference `tests/reference/bechi.py`; its numbered points are cited
//! as "bechi.md N") and `docs/NOTATION.md` section "Béchi".
//!
//! Béchi gets its own module rather than a rule file: the direction depends on the half of the row,
//! the capture depends on a per-round "already moved" set, the chain runs forward over either row,
//! and between rounds the players refill their holes in moves of their own. Only the board indexing
//! and labels are shared with the two-row sowing engine.
//!
//! Rule decisions, each with its source:
//! - Board 2x4 (default) or 2x3 (`holes` option), 6 counters a hole; South moves first in round 1.
//!   Source "2x4/2x3 board. Six counters per hole."; main decisions "Options: holes=4 ... or holes=3".
//! - Index `i` is `0..h` for South's `a..`, `h..2h` for North's `A..`; clockwise is `i - 1`,
//!   anti-clockwise `i + 1`, for both players (bechi.md "Board and directions"; NOTATION).
//! - A hole in the left half of its owner's row sows clockwise, in the right half anti-clockwise;
//!   the centre hole of the 2x3 board either way, as two moves `b:cw` / `b:ccw`. Source "Sowing occurs
//!   in a clockwise direction from the left half ... player's choice when there is a central hole";
//!   main decisions "Direction by start hole"; bechi.md table.
//! - Only an own hole in play holding 2 or more counters can be sown. Source "They could thus under no
//!   circumstances pick up a single ball"; main decisions "Holes with fewer than 2 cannot be played";
//!   bechi.md 1.
//! - All counters are lifted, the first goes back into the origin, one into each following hole in
//!   play; the origin is not skipped when the sowing comes round. Source "The first seed of sowing is
//!   placed in the hole from which the sowing began"; bechi.md 2.
//! - Holes out of play are skipped by the sowing. Source "This hole is not to be sown into"; bechi.md 3.
//! - Capture: the last counter lands in a hole (either row) that held at least one counter, now holds
//!   an even number, and was sown from in an earlier turn of this round by either player (the turn's
//!   own origin joins the moved set only after the turn). Source "provided the contents of that hole
//!   have already been moved"; main decisions "Already moved"; bechi.md 4 and 7.
//! - Chain: the following holes in the move's direction are taken while even, with no moved
//!   condition, crossing rows, skipping holes out of play; it stops at an odd hole, at an empty hole
//!   when `empty_breaks_chain` (default true; false treats 0 as even), or on coming back to the hole
//!   where it began. Source "Should the following hole also contain an even number"; main decisions option
//!   `empty_breaks_chain`; bechi.md 5. Captures go to the mover's store and end the turn (bechi.md 6).
//! - A player with no sowable hole while the opponent has one plays `pass` (a turn). Source "they must
//!   pass until the opponent plays in such a way that they may play"; bechi.md 8.
//! - When after a sowing turn neither player can sow, the round ends inside that turn: each takes the
//!   counters in their own row, moved and out-of-play sets are cleared, South is to move; a player
//!   with fewer than 6 counters (store + carry) loses the match (phase `over`), otherwise the refill
//!   begins (phase `fill-S`). Source "If neither player is able to move, they both capture the counters
//!   in their rows"; bechi.md 9-10.
//! - Refill: South then North, each one explicit move `fill:<labels>` even when forced; a player with
//!   `t` counters fills exactly `min(h, t / 6)` holes of their choice with 6, carries `t - 6k` over,
//!   and the unfilled holes are out of play for the round (in play with `empty_holes_in_play=true`).
//!   Source "count their counters by placing them six per hole ... The player chooses which hole to leave
//!   empty"; main decisions "Between rounds"; bechi.md 11-14.
//! - Rounds alternate the starting player: South in odd rounds, North in even rounds. Source "Players
//!   alternate being the starting player"; bechi.md 14.
//! - The match is lost by the player who cannot fill one hole; the other wins; each score is store +
//!   carry. Source "until one player cannot fill a hole with six counters"; bechi.md 15.
//! - `turns` counts every move (sowings, passes, fills) and never resets; at `max_turns` (default
//!   2000) the match ends as an endless cycle: store + own row + carry each, more wins. A match ended
//!   by `over` in the same turn is decided by `over`. main decisions "Everywhere"; bechi.md 16.
//! - The "shu" trick is not modelled, so holes out of play are always empty; repetition needs the
//!   game's history and is left to the caller. main decisions "shu"; bechi.md 17.
//! - Readings of the Digital Ludeme Project's Béchi (bechi.md "Readings", 18-19), options that
//!   default to the source's reading, both set by `ludii=true`: `chain_max` (the last hole and at
//!   most N following holes; Ludii 6) and `first_pass_starts` (the next round is started by the
//!   player who passed first, the opponent of the round's last sowing, unless that player filled
//!   more holes; recorded as the notation field `<passed>` during the refill).

use std::fmt::Write as _;

use crate::error::{IllegalMove, NotationError, VariantError};
use crate::game::{
    CaptureKind, Cell, EndReason, Event, Game, Geometry, MoveList, NoTrace, Outcome, Player, Trace,
};
use crate::notation;
use crate::variant::{Allowed, OptionSpec, OptionValue, Variant, VariantSpec};

/// The game id.
pub const ID: &str = "bechi";
/// Counters in a hole at the start and in a refilled hole.
pub const COUNTERS_PER_HOLE: u8 = 6;
/// Most holes per row (the Kunama 2x4 board).
const MAX_HOLES: usize = 4;
/// Most holes on the board.
const MAX_PITS: usize = 2 * MAX_HOLES;
/// Most counters a position may hold in all (counts are stored in bytes).
const MAX_TOTAL: u32 = 255;
/// A chain bound no chain reaches: it stops on coming back to its first hole, after 2h - 1 holes.
const CHAIN_NO_LIMIT: i64 = (MAX_PITS - 1) as i64;
/// The chain bound of the Digital Ludeme Project's Béchi: the last hole and six more.
const LUDII_CHAIN_MAX: i64 = 6;

/// The options Béchi accepts.
pub fn option_specs() -> Vec<OptionSpec> {
    vec![
        OptionSpec::int(
            "holes",
            4,
            Allowed::OneOf(vec![3, 4]),
            "holes in each row: 4 (the Kunama board) or 3",
        ),
        OptionSpec::flag(
            "empty_breaks_chain",
            true,
            "an empty hole stops the capture chain (false: 0 counts as even and the chain walks on)",
        ),
        OptionSpec::flag(
            "empty_holes_in_play",
            false,
            "holes left empty at a refill stay in play (sown into) instead of being out of play",
        ),
        OptionSpec::int(
            "chain_max",
            CHAIN_NO_LIMIT,
            Allowed::Range(0, CHAIN_NO_LIMIT),
            "the most holes the capture chain takes after the last hole (7, the default, never stops \
             a chain; 6 is the Digital Ludeme Project's reading)",
        ),
        OptionSpec::flag(
            "first_pass_starts",
            false,
            "the next round is started by the player who passed first at the end of the round, \
             unless that player filled more holes (the Digital Ludeme Project's reading; false: rounds \
             alternate the starting player)",
        ),
        OptionSpec::flag(
            "ludii",
            false,
            "the Digital Ludeme Project's reading: chain_max and first_pass_starts default to 6 and \
             true",
        ),
        OptionSpec::max_turns(),
    ]
}

/// The options `ludii=true` sets: the defaults of the Digital Ludeme Project's reading.
fn ludii_reading() -> [(&'static str, OptionValue); 2] {
    [("chain_max", OptionValue::Int(LUDII_CHAIN_MAX)), ("first_pass_starts", OptionValue::Bool(true))]
}

/// Where the match stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Phase {
    /// A round is being played.
    Play = 0,
    /// Between rounds: South refills.
    FillSouth = 1,
    /// Between rounds: North refills.
    FillNorth = 2,
    /// The match is decided.
    Over = 3,
}

impl Phase {
    const ALL: [Phase; 4] = [Phase::Play, Phase::FillSouth, Phase::FillNorth, Phase::Over];

    /// The notation word: `play`, `fill-S`, `fill-N`, `over`.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Play => "play",
            Phase::FillSouth => "fill-S",
            Phase::FillNorth => "fill-N",
            Phase::Over => "over",
        }
    }

    /// The player who refills in this phase.
    pub fn filler(self) -> Option<Player> {
        match self {
            Phase::FillSouth => Some(Player::South),
            Phase::FillNorth => Some(Player::North),
            _ => None,
        }
    }
}

/// A Béchi position: the whole match state in 24 bytes, `Copy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct BechiPosition {
    /// Counters in each hole; holes past `2h` are always zero.
    pub pits: [u8; MAX_PITS],
    /// Counters South and North captured this round (during a refill: what they took in the round
    /// just finished, until they have filled).
    pub stores: [u8; 2],
    /// Counters South and North put aside from earlier rounds.
    pub carry: [u8; 2],
    /// Turns played in the whole match (sowings, passes and fills).
    pub turns: u32,
    /// The round number from 1 (kept through the refill after the round).
    pub round: u16,
    /// The player to move.
    pub to_move: Player,
    /// Play, refill or over.
    pub phase: Phase,
    /// Bit `i`: hole `i` was sown from in an earlier turn of this round.
    pub moved: u8,
    /// Bit `i`: hole `i` is out of play this round (left empty at the refill).
    pub off: u8,
    /// With `first_pass_starts`, during a refill: the player who passed first at the end of the
    /// round (1 South, 2 North); 0 otherwise.
    pub first_passer: u8,
}

/// A Béchi move: a sowing, a pass, or a refill. Three bytes, `Copy`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BechiMove {
    /// Sowing from `hole` in the given direction.
    Sow {
        /// Board index of the hole.
        hole: u8,
        /// Clockwise (index - 1) rather than anti-clockwise (index + 1).
        clockwise: bool,
    },
    /// The player cannot sow and misses the turn.
    Pass,
    /// Refilling the holes of the bitmask (board indices) with 6 counters each.
    Fill {
        /// Bit `i`: hole `i` is filled.
        holes: u8,
    },
}

/// Béchi with its options fixed.
#[derive(Clone, Debug)]
pub struct BechiGame {
    variant: Variant,
    h: usize,
    len: usize,
    empty_breaks_chain: bool,
    empty_holes_in_play: bool,
    chain_max: usize,
    first_pass_starts: bool,
    max_turns: u32,
}

#[inline(always)]
fn bit(i: usize) -> u8 {
    1 << i
}

impl BechiGame {
    /// The game for a variant spec whose id is `bechi`.
    pub fn new(spec: &VariantSpec) -> Result<BechiGame, VariantError> {
        let variant = Variant::resolve_with_reading(spec, &option_specs(), "ludii", &ludii_reading())?;
        let h = variant.int("holes") as usize;
        Ok(BechiGame {
            h,
            len: 2 * h,
            empty_breaks_chain: variant.flag("empty_breaks_chain"),
            empty_holes_in_play: variant.flag("empty_holes_in_play"),
            chain_max: variant.int("chain_max") as usize,
            first_pass_starts: variant.flag("first_pass_starts"),
            max_turns: variant.max_turns(),
            variant,
        })
    }

    /// Holes per row.
    pub fn holes(&self) -> usize {
        self.h
    }

    #[inline(always)]
    fn owner(&self, hole: usize) -> Player {
        if hole < self.h {
            Player::South
        } else {
            Player::North
        }
    }

    #[inline(always)]
    fn row_mask(&self, p: Player) -> u8 {
        let row = (1u8 << self.h) - 1;
        match p {
            Player::South => row,
            Player::North => row << self.h,
        }
    }

    fn row_range(&self, p: Player) -> std::ops::Range<usize> {
        match p {
            Player::South => 0..self.h,
            Player::North => self.h..self.len,
        }
    }

    fn row_sum(&self, pos: &BechiPosition, p: Player) -> u32 {
        pos.pits[self.row_range(p)].iter().map(|&c| c as u32).sum()
    }

    /// Which ways a sowing from `hole` may go: (clockwise, anti-clockwise). Judged from the
    /// owner's left (labels `a`/`A` are the left ends).
    #[inline(always)]
    pub fn directions(&self, hole: usize) -> (bool, bool) {
        let from_left = if hole < self.h { hole } else { hole - self.h };
        let twice = 2 * from_left + 1;
        (twice <= self.h, twice >= self.h)
    }

    /// The next hole in play from `hole` (holes in `off` are skipped).
    #[inline(always)]
    fn step(&self, off: u8, hole: usize, clockwise: bool) -> usize {
        let mut i = hole;
        loop {
            i = if clockwise {
                if i == 0 {
                    self.len - 1
                } else {
                    i - 1
                }
            } else if i + 1 == self.len {
                0
            } else {
                i + 1
            };
            if off & bit(i) == 0 || i == hole {
                return i;
            }
        }
    }

    #[inline(always)]
    fn sowable(&self, pos: &BechiPosition, hole: usize) -> bool {
        pos.pits[hole] >= 2 && pos.off & bit(hole) == 0
    }

    fn can_sow(&self, pos: &BechiPosition, p: Player) -> bool {
        self.row_range(p).any(|i| self.sowable(pos, i))
    }

    /// Counters a player holds between rounds: store plus carry.
    fn holding(pos: &BechiPosition, p: Player) -> u32 {
        pos.stores[p.index()] as u32 + pos.carry[p.index()] as u32
    }

    /// The number of holes a refilling player fills: `min(h, counters / 6)`.
    fn fill_count(&self, pos: &BechiPosition, p: Player) -> usize {
        (Self::holding(pos, p) as usize / COUNTERS_PER_HOLE as usize).min(self.h)
    }

    fn at_turn_limit(&self, pos: &BechiPosition) -> bool {
        pos.turns >= self.max_turns
    }

    /// Each player's counters: store + own row + carry.
    fn totals(&self, pos: &BechiPosition) -> [i32; 2] {
        Player::BOTH.map(|p| {
            (pos.stores[p.index()] as u32 + pos.carry[p.index()] as u32 + self.row_sum(pos, p)) as i32
        })
    }

    /// Hole label: `a..` for South, `A..` for North.
    pub fn label(&self, hole: usize) -> char {
        if hole < self.h {
            (b'a' + hole as u8) as char
        } else {
            (b'A' + (hole - self.h) as u8) as char
        }
    }

    fn parse_label(&self, c: char) -> Option<usize> {
        if c.is_ascii_lowercase() {
            let i = (c as u8 - b'a') as usize;
            (i < self.h).then_some(i)
        } else if c.is_ascii_uppercase() {
            let i = (c as u8 - b'A') as usize;
            (i < self.h).then_some(i + self.h)
        } else {
            None
        }
    }

    fn labels(&self, mask: u8) -> String {
        if mask == 0 {
            return "-".into();
        }
        (0..self.len).filter(|&i| mask & bit(i) != 0).map(|i| self.label(i)).collect()
    }

    fn sow<T: Trace>(&self, p: &mut BechiPosition, hole: usize, clockwise: bool, trace: &mut T) {
        let mover = p.to_move;
        let moved_before = p.moved;
        let lifted = p.pits[hole];
        p.pits[hole] = 1;
        let mut in_hand = lifted - 1;
        let mut sown = Vec::new();
        if T::ENABLED {
            sown.push(hole as u8);
        }
        let mut at = hole;
        let mut held_before = 0;
        while in_hand > 0 {
            at = self.step(p.off, at, clockwise);
            held_before = p.pits[at];
            p.pits[at] += 1;
            in_hand -= 1;
            if T::ENABLED {
                sown.push(at as u8);
            }
        }
        if T::ENABLED {
            trace.push(Event::Lap { origin: hole as u8, lifted: lifted as u16, sown });
        }
        let last = at;
        if held_before > 0 && p.pits[last] % 2 == 0 && moved_before & bit(last) != 0 {
            let mut taken = [0u8; MAX_PITS];
            let mut count = 1;
            taken[0] = last as u8;
            let mut walk = self.step(p.off, last, clockwise);
            while walk != last && count <= self.chain_max {
                let c = p.pits[walk];
                if c % 2 == 1 || (c == 0 && self.empty_breaks_chain) {
                    break;
                }
                taken[count] = walk as u8;
                count += 1;
                walk = self.step(p.off, walk, clockwise);
            }
            for (k, &cell) in taken[..count].iter().enumerate() {
                let seeds = std::mem::take(&mut p.pits[cell as usize]);
                p.stores[mover.index()] += seeds;
                if T::ENABLED && seeds > 0 {
                    trace.push(Event::Capture {
                        cell,
                        seeds: seeds as u16,
                        player: mover,
                        kind: if k == 0 { CaptureKind::Final } else { CaptureKind::Chain },
                    });
                }
            }
        }
        p.moved |= bit(hole);
        if !self.can_sow(p, Player::South) && !self.can_sow(p, Player::North) {
            self.end_round(p, trace);
        }
    }

    /// Neither player can sow: each takes their own row; then the match is over or the refill
    /// begins (bechi.md 9).
    fn end_round<T: Trace>(&self, p: &mut BechiPosition, trace: &mut T) {
        for i in 0..self.len {
            let owner = self.owner(i);
            let seeds = std::mem::take(&mut p.pits[i]);
            p.stores[owner.index()] += seeds;
            if T::ENABLED && seeds > 0 {
                trace.push(Event::Capture {
                    cell: i as u8,
                    seeds: seeds as u16,
                    player: owner,
                    kind: CaptureKind::Remaining,
                });
            }
        }
        p.moved = 0;
        p.off = 0;
        if self.first_pass_starts {
            // Neither can sow after the mover's sowing: played out as passes, the opponent
            // would pass first.
            p.first_passer = 1 + p.to_move.other() as u8;
        }
        p.to_move = Player::South;
        if T::ENABLED {
            trace.push(Event::Note { name: "round_end", player: None });
        }
        let short = Player::BOTH.into_iter().find(|&q| Self::holding(p, q) < COUNTERS_PER_HOLE as u32);
        if let Some(loser) = short {
            p.phase = Phase::Over;
            if T::ENABLED {
                trace.push(Event::Note { name: "match_lost", player: Some(loser) });
            }
        } else {
            p.phase = Phase::FillSouth;
        }
        if p.phase == Phase::Over {
            p.first_passer = 0;
        }
    }

    fn fill<T: Trace>(&self, p: &mut BechiPosition, holes: u8, trace: &mut T) {
        let filler = p.to_move;
        let total = Self::holding(p, filler);
        let filled = holes.count_ones();
        for i in self.row_range(filler) {
            if holes & bit(i) != 0 {
                p.pits[i] = COUNTERS_PER_HOLE;
                if T::ENABLED {
                    trace.push(Event::Fill {
                        cell: i as u8,
                        seeds: COUNTERS_PER_HOLE as u16,
                        player: filler,
                    });
                }
            }
        }
        p.carry[filler.index()] = (total - filled * COUNTERS_PER_HOLE as u32) as u8;
        p.stores[filler.index()] = 0;
        if !self.empty_holes_in_play {
            p.off |= self.row_mask(filler) & !holes;
        }
        if filler == Player::South {
            p.phase = Phase::FillNorth;
            p.to_move = Player::North;
        } else {
            p.round = p.round.saturating_add(1);
            p.phase = Phase::Play;
            p.moved = 0;
            p.to_move = if self.first_pass_starts {
                self.next_starter(p)
            } else if p.round % 2 == 1 {
                Player::South
            } else {
                Player::North
            };
            p.first_passer = 0;
            if T::ENABLED {
                trace.push(Event::Note { name: "round_start", player: Some(p.to_move) });
            }
        }
    }

    /// The starter of the next round with `first_pass_starts`, after both refills: the player who
    /// passed first, unless that player filled more holes (bechi.md 19: played out as Ludii's
    /// alternating fills, the one who fills more fills last and then passes first, so the other
    /// moves first after the two passes).
    fn next_starter(&self, p: &BechiPosition) -> Player {
        let passer = if p.first_passer == 2 { Player::North } else { Player::South };
        // Filled holes hold their six counters; holes left empty are empty until play begins.
        let filled = |q: Player| self.row_range(q).filter(|&i| p.pits[i] > 0).count();
        if filled(passer) > filled(passer.other()) {
            passer.other()
        } else {
            passer
        }
    }

    /// The positional terms of the search's evaluation, per player (South, North), by slot (the
    /// search weighs them; `weights` says which slots it wants); all zero outside the play phase:
    /// 0. mobility: own holes that can be sown (2 or more counters, in play);
    /// 1. exposed counters (negated): what a capture would take from each own hole already moved
    ///    this round holding an odd number (one more counter makes it even and capturable);
    /// 2. best capture: the most the player's margin (store + own row + carry) would grow by one
    ///    sowing of theirs, were it their turn;
    /// 3. safe counters: counters in own holes not yet moved this round (no capture can take them
    ///    until their hole is sown from).
    ///
    /// Slot 2 costs a sowing per legal move: it is left 0 when its weight is 0.
    pub fn search_terms(&self, pos: &BechiPosition, weights: &[i32; 4]) -> [[i32; 4]; 2] {
        let mut terms = [[0i32; 4]; 2];
        if pos.phase != Phase::Play {
            return terms;
        }
        for p in Player::BOTH {
            let t = &mut terms[p.index()];
            for i in self.row_range(p) {
                let c = pos.pits[i] as i32;
                if self.sowable(pos, i) {
                    t[0] += 1;
                }
                if pos.moved & bit(i) != 0 {
                    if c % 2 == 1 {
                        t[1] -= c + 1;
                    }
                } else {
                    t[3] += c;
                }
            }
        }
        if weights[2] != 0 {
            for p in Player::BOTH {
                terms[p.index()][2] = self.best_capture(pos, p);
            }
        }
        terms
    }

    /// The most `p`'s margin grows by one sowing of theirs from `pos` (0 when none captures).
    fn best_capture(&self, pos: &BechiPosition, p: Player) -> i32 {
        let margin = |q: &BechiPosition| {
            let t = self.totals(q);
            t[p.index()] - t[p.other().index()]
        };
        let before = margin(pos);
        let mut best = 0;
        for i in self.row_range(p) {
            if !self.sowable(pos, i) {
                continue;
            }
            let (cw, ccw) = self.directions(i);
            for (ok, clockwise) in [(cw, true), (ccw, false)] {
                if ok {
                    let mut q = *pos;
                    q.to_move = p;
                    self.sow(&mut q, i, clockwise, &mut NoTrace);
                    best = best.max(margin(&q) - before);
                }
            }
        }
        best
    }

    /// The rules as readable sentences.
    pub fn describe_rules(&self) -> Vec<String> {
        let h = self.h;
        let mut out = vec![
            format!("Board: 2 rows of {h} holes, 6 counters in each hole; South starts round 1."),
            if h == 4 {
                "Direction: a hole in the left half of its owner's row (a, b / A, B) sows clockwise, \
                 one in the right half (c, d / C, D) anti-clockwise."
                    .to_string()
            } else {
                "Direction: the left hole (a / A) sows clockwise, the right hole (c / C) \
                 anti-clockwise, the centre hole (b / B) either way (moves b:cw and b:ccw)."
                    .to_string()
            },
            "Play: an own hole holding at least 2 counters; lift them all, put the first back into \
             the hole, then one into each following hole (the origin is not skipped)."
                .to_string(),
            "Capture: the last counter lands in an occupied hole of either row that now holds an \
             even number and was sown from in an earlier turn of this round; it is taken, then the \
             following holes in the sowing direction while even; the turn ends."
                .to_string(),
        ];
        out.push(if self.empty_breaks_chain {
            "An empty hole stops the capture chain.".to_string()
        } else {
            "An empty hole counts as even: the chain walks on over it (at most once round).".to_string()
        });
        if self.chain_max < 2 * h - 1 {
            out.push(format!(
                "The chain takes at most {} after the last hole (the Digital Ludeme Project's reading).",
                match self.chain_max {
                    0 => "no hole".to_string(),
                    1 => "one hole".to_string(),
                    n => format!("{n} holes"),
                }
            ));
        }
        out.push(
            "A player who cannot sow passes; when neither can, each takes the counters in their own \
             row and the round ends."
                .to_string(),
        );
        out.push(format!(
            "Between rounds each player (South first) fills holes of their choice with 6 counters \
             from their takings and keeps the rest aside; holes left empty are {}. {}",
            if self.empty_holes_in_play {
                "in play as usual"
            } else {
                "out of play for the round (not sown into)"
            },
            if self.first_pass_starts {
                "The next round is started by the player who passed first at the end of the round \
                 (the one left without a sowing by the round's last sowing), unless that player filled \
                 more holes (the Digital Ludeme Project's reading)."
            } else {
                "Rounds alternate the starting player."
            }
        ));
        out.push(
            "The match is lost by the player who cannot fill one hole (fewer than 6 counters).".to_string(),
        );
        out.push(format!(
            "After {} turns the match ends: each counts store, own row and counters aside; more wins.",
            self.max_turns
        ));
        out
    }

    fn illegal_sow(&self, pos: &BechiPosition, hole: usize, clockwise: bool) -> Result<(), IllegalMove> {
        let me = pos.to_move;
        if hole >= self.len {
            return Err(IllegalMove::new("no_such_hole", "no such hole"));
        }
        let label = self.label(hole);
        if self.owner(hole) != me {
            return Err(IllegalMove::new(
                "not_own_hole",
                format!("hole {label} belongs to {}; {me} sows from their own row", me.other()),
            ));
        }
        if !self.can_sow(pos, me) {
            return Err(IllegalMove::new(
                "must_pass",
                format!("{me} has no hole of 2 or more counters to sow and must pass"),
            ));
        }
        if pos.off & bit(hole) != 0 {
            return Err(IllegalMove::new(
                "hole_out_of_play",
                format!("hole {label} was left empty at the refill and is out of play this round"),
            ));
        }
        if pos.pits[hole] < 2 {
            return Err(IllegalMove::new(
                "too_few_seeds",
                format!(
                    "hole {label} holds {} counter(s); a hole needs at least 2 to be sown",
                    pos.pits[hole]
                ),
            ));
        }
        let (cw, ccw) = self.directions(hole);
        if (clockwise && !cw) || (!clockwise && !ccw) {
            return Err(IllegalMove::new(
                "wrong_direction",
                format!(
                    "hole {label} is in the {} half of the row and sows {} only",
                    if cw { "left" } else { "right" },
                    if cw { "clockwise" } else { "anti-clockwise" }
                ),
            ));
        }
        Ok(())
    }

    fn illegal_fill(&self, pos: &BechiPosition, holes: u8) -> Result<(), IllegalMove> {
        let me = pos.to_move;
        if holes & !self.row_mask(me) != 0 {
            return Err(IllegalMove::new(
                "not_own_hole",
                format!(
                    "fill:{} names holes of {}; {me} fills their own row",
                    self.labels(holes),
                    me.other()
                ),
            ));
        }
        let k = self.fill_count(pos, me);
        if holes.count_ones() as usize != k {
            return Err(IllegalMove::new(
                "bad_fill",
                format!(
                    "{me} has {} counters and fills exactly {k} hole(s) with 6, not {}",
                    Self::holding(pos, me),
                    holes.count_ones()
                ),
            ));
        }
        Ok(())
    }
}

impl Game for BechiGame {
    type Position = BechiPosition;
    type Move = BechiMove;

    fn variant(&self) -> &Variant {
        &self.variant
    }

    fn start(&self) -> BechiPosition {
        let mut pits = [0u8; MAX_PITS];
        pits[..self.len].fill(COUNTERS_PER_HOLE);
        BechiPosition {
            pits,
            stores: [0; 2],
            carry: [0; 2],
            turns: 0,
            round: 1,
            to_move: Player::South,
            phase: Phase::Play,
            moved: 0,
            off: 0,
            first_passer: 0,
        }
    }

    fn side_to_move(&self, pos: &BechiPosition) -> Player {
        pos.to_move
    }

    fn turns(&self, pos: &BechiPosition) -> u32 {
        pos.turns
    }

    fn legal_moves(&self, pos: &BechiPosition, moves: &mut MoveList<BechiMove>) {
        if pos.phase == Phase::Over || self.at_turn_limit(pos) {
            return;
        }
        let me = pos.to_move;
        if pos.phase == Phase::Play {
            for i in self.row_range(me) {
                if self.sowable(pos, i) {
                    let (cw, ccw) = self.directions(i);
                    if cw {
                        moves.push(BechiMove::Sow { hole: i as u8, clockwise: true });
                    }
                    if ccw {
                        moves.push(BechiMove::Sow { hole: i as u8, clockwise: false });
                    }
                }
            }
            if moves.is_empty() && self.can_sow(pos, me.other()) {
                moves.push(BechiMove::Pass);
            }
            return;
        }
        // A refill: every k-subset of the own row, in lexicographic order of the chosen holes.
        let k = self.fill_count(pos, me) as u32;
        let base = self.row_range(me).start;
        let mut subsets: ArrayVecU8 = ArrayVecU8::new();
        for local in 0u8..(1 << self.h) {
            if local.count_ones() == k {
                subsets.push(local);
            }
        }
        // Lexicographic order of label strings = order of the reversed bit patterns.
        subsets.sort_by_key(|&m| std::cmp::Reverse(m.reverse_bits()));
        for local in subsets {
            moves.push(BechiMove::Fill { holes: local << base });
        }
    }

    fn play_traced<T: Trace>(&self, pos: &BechiPosition, mv: BechiMove, trace: &mut T) -> BechiPosition {
        let mut p = *pos;
        match mv {
            BechiMove::Sow { hole, clockwise } => {
                self.sow(&mut p, hole as usize, clockwise, trace);
                // A round that ended inside the turn has already set South to move.
                if p.phase == Phase::Play {
                    p.to_move = pos.to_move.other();
                }
            }
            BechiMove::Pass => {
                if T::ENABLED {
                    trace.push(Event::Pass { player: p.to_move });
                }
                p.to_move = p.to_move.other();
            }
            BechiMove::Fill { holes } => self.fill(&mut p, holes, trace),
        }
        p.turns = p.turns.saturating_add(1);
        p
    }

    fn outcome(&self, pos: &BechiPosition) -> Option<Outcome> {
        if pos.phase == Phase::Over {
            let scores = self.totals(pos);
            // The parser and `end_round` guarantee exactly one player is short.
            let loser = Player::BOTH.into_iter().find(|&q| Self::holding(pos, q) < COUNTERS_PER_HOLE as u32);
            return Some(Outcome { winner: loser.map(Player::other), scores, reason: EndReason::MatchLost });
        }
        if self.at_turn_limit(pos) {
            let mut o = self.endless_outcome(pos);
            o.reason = EndReason::TurnLimit;
            return Some(o);
        }
        None
    }

    fn endless_outcome(&self, pos: &BechiPosition) -> Outcome {
        Outcome::by_score(self.totals(pos), EndReason::EndlessCycle)
    }

    fn hash_key(&self, pos: &BechiPosition) -> u64 {
        // Everything but the turn counter, in two words (holes past 2h are always zero).
        let board = u64::from_le_bytes(pos.pits);
        let rest = u64::from_le_bytes([
            pos.stores[0],
            pos.stores[1],
            pos.carry[0],
            pos.carry[1],
            pos.moved,
            pos.off,
            pos.to_move as u8 | (pos.phase as u8) << 1,
            pos.first_passer,
        ]) ^ (pos.round as u64) << 56;
        let mut h: u64 = 0x9E37_79B9_7F4A_7C15;
        for w in [board, rest] {
            h = (h.rotate_left(23) ^ w).wrapping_mul(0x2127_599B_F432_5C37);
        }
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^ (h >> 32)
    }

    fn write_key(&self, pos: &BechiPosition, out: &mut Vec<u8>) {
        out.extend_from_slice(&pos.pits[..self.len]);
        out.extend_from_slice(&pos.stores);
        out.extend_from_slice(&pos.carry);
        out.extend_from_slice(&pos.round.to_le_bytes());
        out.push(pos.to_move as u8);
        out.push(pos.phase as u8);
        out.push(pos.moved);
        out.push(pos.off);
        if self.first_pass_starts {
            out.push(pos.first_passer);
        }
    }

    fn format_body(&self, pos: &BechiPosition) -> String {
        let row = |p: Player| notation::format_counts(&pos.pits[self.row_range(p)]);
        let mut s = String::with_capacity(48);
        let _ = write!(
            s,
            "{}/{} {}-{} {} {} {} {} {} {} {}-{}",
            row(Player::South),
            row(Player::North),
            pos.stores[0],
            pos.stores[1],
            pos.to_move.letter(),
            pos.turns,
            pos.round,
            pos.phase.name(),
            self.labels(pos.moved),
            self.labels(pos.off),
            pos.carry[0],
            pos.carry[1]
        );
        if self.first_pass_starts {
            s.push(' ');
            s.push_str(match pos.first_passer {
                1 => "S",
                2 => "N",
                _ => "-",
            });
        }
        s
    }

    fn parse_body(&self, body: &str) -> Result<BechiPosition, NotationError> {
        const NAMES: [&str; 10] =
            ["board", "stores", "side", "turns", "round", "phase", "moved", "off", "carry", "passed"];
        let fields: Vec<&str> = body.split(' ').collect();
        let want = if self.first_pass_starts { 10 } else { 9 };
        if fields.len() != want {
            return Err(NotationError::new(format!(
                "expected {want} fields after the variant (board stores side turns round phase moved \
                 off carry{}), found {}",
                if self.first_pass_starts { " passed" } else { "" },
                fields.len()
            )));
        }
        let f = |i: usize, m: String| NotationError::field(i + 2, NAMES[i], m);
        let mut pos = self.start();
        pos.pits = [0; MAX_PITS];
        let mut total = notation::parse_two_rows(fields[0], self.h, &self.variant, "counter", &mut pos.pits)
            .map_err(|m| f(0, m))?;

        let pair =
            |i: usize, what: &str| notation::parse_pair(fields[i], what, "counter").map_err(|m| f(i, m));
        pos.stores = pair(1, "store")?;
        pos.carry = pair(8, "carry")?;
        total += pos.stores.iter().chain(&pos.carry).map(|&c| c as u32).sum::<u32>();
        if total > MAX_TOTAL {
            return Err(NotationError::new(format!(
                "{total} counters in all (board, stores and carry); a position holds at most {MAX_TOTAL}"
            )));
        }

        pos.to_move = notation::parse_side(fields[2]).map_err(|m| f(2, m))?;
        pos.turns = notation::parse_turns(fields[3], self.max_turns).map_err(|m| f(3, m))?;
        pos.round = match fields[4].parse::<u16>() {
            Ok(r) if r >= 1 => r,
            _ => return Err(f(4, format!("{:?} is not a round number (1-65535)", fields[4]))),
        };
        pos.phase = Phase::ALL
            .into_iter()
            .find(|p| p.name() == fields[5])
            .ok_or_else(|| f(5, format!("{:?} is not a phase (play, fill-S, fill-N or over)", fields[5])))?;

        let holes = |i: usize| -> Result<u8, NotationError> {
            if fields[i] == "-" {
                return Ok(0);
            }
            let mut mask = 0u8;
            let mut last: Option<usize> = None;
            for c in fields[i].chars() {
                let hole = self.parse_label(c).ok_or_else(|| {
                    f(
                        i,
                        format!(
                            "{c:?} is not a hole label (a-{} or A-{})",
                            self.label(self.h - 1),
                            self.label(self.len - 1)
                        ),
                    )
                })?;
                if last.is_some_and(|l| l >= hole) {
                    return Err(f(
                        i,
                        format!(
                            "{:?}: labels must be distinct and in board order (a b c d A B C D)",
                            fields[i]
                        ),
                    ));
                }
                last = Some(hole);
                mask |= bit(hole);
            }
            Ok(mask)
        };
        pos.moved = holes(6)?;
        pos.off = holes(7)?;
        if self.first_pass_starts {
            let filling = matches!(pos.phase, Phase::FillSouth | Phase::FillNorth);
            pos.first_passer = match (fields[9], filling) {
                ("S", true) => 1,
                ("N", true) => 2,
                ("-", false) => 0,
                (_, true) => {
                    return Err(f(9, format!("{:?}: during a refill, S or N passed first", fields[9])))
                }
                (_, false) => {
                    return Err(f(9, format!("{:?}: only a refill records who passed first (-)", fields[9])))
                }
            };
        }

        // Consistency: what the formatter can write.
        if pos.off != 0 && self.empty_holes_in_play {
            return Err(f(
                7,
                format!("no hole is out of play in {} (empty_holes_in_play=true)", self.variant),
            ));
        }
        if let Some(i) = (0..self.len).find(|&i| pos.off & bit(i) != 0 && pos.pits[i] > 0) {
            return Err(f(
                7,
                format!("hole {} is out of play but holds {} counter(s)", self.label(i), pos.pits[i]),
            ));
        }
        if pos.moved & pos.off != 0 {
            return Err(f(
                6,
                format!(
                    "hole(s) {} are out of play and cannot have been sown from",
                    self.labels(pos.moved & pos.off)
                ),
            ));
        }
        if pos.phase != Phase::Play && pos.moved != 0 {
            return Err(f(
                6,
                format!(
                    "no hole has moved in phase {} (the set is cleared at the round's end)",
                    pos.phase.name()
                ),
            ));
        }
        let board_empty = |mask: u8| (0..self.len).all(|i| mask & bit(i) == 0 || pos.pits[i] == 0);
        match pos.phase {
            Phase::Play => {
                if !self.can_sow(&pos, Player::South) && !self.can_sow(&pos, Player::North) {
                    return Err(f(
                        5,
                        "play, but neither player has a hole of 2 or more counters in play (the \
                         round would have ended)"
                            .to_string(),
                    ));
                }
            }
            Phase::FillSouth | Phase::FillNorth => {
                let filler = pos.phase.filler().unwrap_or(Player::South);
                if pos.to_move != filler {
                    return Err(f(
                        2,
                        format!("{} is to move in phase {}", filler.letter(), pos.phase.name()),
                    ));
                }
                let must_be_empty = if filler == Player::South { 0xFF } else { self.row_mask(Player::North) };
                if !board_empty(must_be_empty) {
                    return Err(f(0, format!("{filler} refills an empty row, but it holds counters")));
                }
                let early_off =
                    if filler == Player::South { pos.off } else { pos.off & self.row_mask(Player::North) };
                if early_off != 0 {
                    return Err(f(
                        7,
                        format!("{} cannot be out of play before {filler} refills", self.labels(early_off)),
                    ));
                }
                for q in Player::BOTH {
                    if (filler == Player::South || q == Player::North)
                        && Self::holding(&pos, q) < COUNTERS_PER_HOLE as u32
                    {
                        return Err(f(
                            5,
                            format!("{q} has fewer than 6 counters to refill with: the phase would be over"),
                        ));
                    }
                }
            }
            Phase::Over => {
                if !board_empty(0xFF) || pos.off != 0 {
                    return Err(f(5, "over, but the board is not cleared (holes or off set)".to_string()));
                }
                let short = Player::BOTH
                    .into_iter()
                    .filter(|&q| Self::holding(&pos, q) < COUNTERS_PER_HOLE as u32)
                    .count();
                if short != 1 {
                    return Err(f(
                        5,
                        format!(
                            "over needs exactly one player with fewer than 6 counters (store + carry); {short} have"
                        ),
                    ));
                }
            }
        }
        Ok(pos)
    }

    fn format_move(&self, _pos: &BechiPosition, mv: BechiMove) -> String {
        match mv {
            BechiMove::Pass => "pass".into(),
            BechiMove::Fill { holes } => format!("fill:{}", self.labels(holes)),
            BechiMove::Sow { hole, clockwise } => {
                let hole = hole as usize;
                if hole >= self.len {
                    return format!("?{hole}");
                }
                let (cw, ccw) = self.directions(hole);
                let forced = (cw != ccw) && (clockwise == cw);
                if forced {
                    self.label(hole).to_string()
                } else {
                    format!("{}:{}", self.label(hole), if clockwise { "cw" } else { "ccw" })
                }
            }
        }
    }

    fn parse_move(&self, _pos: &BechiPosition, text: &str) -> Result<BechiMove, NotationError> {
        let text = text.trim();
        if text == "pass" {
            return Ok(BechiMove::Pass);
        }
        let bad_label = |c: &str| {
            NotationError::new(format!(
                "{text:?}: {c:?} is not a hole label (a-{} for South, A-{} for North)",
                self.label(self.h - 1),
                (b'A' + self.h as u8 - 1) as char
            ))
        };
        if let Some(list) = text.strip_prefix("fill:") {
            if list.is_empty() {
                return Err(NotationError::new(format!(
                    "{text:?}: name the holes filled with 6, e.g. fill:{}",
                    self.labels(self.row_mask(Player::South))
                )));
            }
            let mut holes = 0u8;
            for c in list.chars() {
                let i = self.parse_label(c).ok_or_else(|| bad_label(&c.to_string()))?;
                if holes & bit(i) != 0 {
                    return Err(NotationError::new(format!("{text:?}: hole {c} is named twice")));
                }
                holes |= bit(i);
            }
            return Ok(BechiMove::Fill { holes });
        }
        let (label, dir) = match text.split_once(':') {
            Some((l, d)) => (l, Some(d)),
            None => (text, None),
        };
        let mut chars = label.chars();
        let hole = match (chars.next(), chars.next()) {
            (Some(c), None) => self.parse_label(c).ok_or_else(|| bad_label(label))?,
            _ => {
                return Err(NotationError::new(format!(
                    "{text:?} is not a move: moves are a hole label (b, C, b:cw on the 2x3 centre \
                     hole), pass, or fill:<labels>"
                )))
            }
        };
        let (cw, ccw) = self.directions(hole);
        let clockwise = match dir {
            Some("cw") => true,
            Some("ccw") => false,
            Some(d) => return Err(NotationError::new(format!("{text:?}: direction {d:?} is not cw or ccw"))),
            None if cw && ccw => {
                return Err(NotationError::new(format!(
                    "{text:?}: the centre hole sows either way: write {label}:cw or {label}:ccw"
                )))
            }
            None => cw,
        };
        Ok(BechiMove::Sow { hole: hole as u8, clockwise })
    }

    fn check_move(&self, pos: &BechiPosition, mv: BechiMove) -> Result<(), IllegalMove> {
        if let Some(o) = self.outcome(pos) {
            return Err(IllegalMove::new("game_over", format!("the match is over ({})", o.reason.name())));
        }
        let me = pos.to_move;
        match (pos.phase, mv) {
            (Phase::Play, BechiMove::Sow { hole, clockwise }) => {
                self.illegal_sow(pos, hole as usize, clockwise)
            }
            (Phase::Play, BechiMove::Pass) => {
                if self.can_sow(pos, me) {
                    Err(IllegalMove::new("cannot_pass", format!("{me} has a hole to sow and may not pass")))
                } else {
                    Ok(())
                }
            }
            (Phase::Play, BechiMove::Fill { .. }) => Err(IllegalMove::new(
                "wrong_phase",
                format!("round {} is being played; holes are refilled only between rounds", pos.round),
            )),
            (_, BechiMove::Fill { holes }) => self.illegal_fill(pos, holes),
            (_, _) => Err(IllegalMove::new(
                "wrong_phase",
                format!(
                    "{me} refills between rounds: the move is fill:<labels> naming {} hole(s)",
                    self.fill_count(pos, me)
                ),
            )),
        }
    }

    fn evaluate(&self, pos: &BechiPosition) -> i32 {
        let t = self.totals(pos);
        let me = pos.to_move.index();
        t[me] - t[1 - me]
    }

    fn cells(&self, pos: &BechiPosition) -> Vec<i32> {
        pos.pits[..self.len].iter().map(|&c| c as i32).collect()
    }

    /// What each player took this round (during a refill: until they have filled). Counters put
    /// aside from earlier rounds are the `<carry>` field of the notation.
    fn stores(&self, pos: &BechiPosition) -> Option<[i32; 2]> {
        Some([pos.stores[0] as i32, pos.stores[1] as i32])
    }

    fn geometry(&self) -> Geometry {
        let cells = (0..self.len)
            .map(|i| {
                let (row, col) = if i < self.h { (0u8, i) } else { (1u8, self.len - 1 - i) };
                Cell { row, col: col as u8, owner: Some(self.owner(i)), label: self.label(i).to_string() }
            })
            .collect();
        Geometry {
            rows: 2,
            cols: self.h as u8,
            cells,
            stores: true,
            sowing: if self.h == 4 {
                "by half of the row: left half clockwise, right half anti-clockwise".into()
            } else {
                "by half of the row: left hole clockwise, right hole anti-clockwise, centre hole \
                 either way"
                    .into()
            },
        }
    }
}

/// Fill subsets of one row (at most 2^4).
type ArrayVecU8 = arrayvec::ArrayVec<u8, 16>;

#[cfg(test)]
mod tests {
    use super::*;

    fn game(v: &str) -> BechiGame {
        BechiGame::new(&VariantSpec::parse(v).unwrap()).unwrap()
    }

    #[test]
    fn directions_by_half() {
        let g = game("bechi");
        assert_eq!(g.directions(0), (true, false));
        assert_eq!(g.directions(1), (true, false));
        assert_eq!(g.directions(2), (false, true));
        assert_eq!(g.directions(7), (false, true));
        let g = game("bechi(holes=3)");
        assert_eq!(g.directions(0), (true, false));
        assert_eq!(g.directions(1), (true, true));
        assert_eq!(g.directions(4), (true, true));
        assert_eq!(g.directions(5), (false, true));
    }

    #[test]
    fn positions_and_moves_are_small() {
        assert!(std::mem::size_of::<BechiPosition>() <= 24);
        assert!(std::mem::size_of::<BechiMove>() <= 3);
    }

    #[test]
    fn hash_ignores_the_turn_counter_only() {
        let g = game("bechi");
        let a = g.start();
        let mut b = a;
        b.turns = 7;
        assert_eq!(g.hash_key(&a), g.hash_key(&b));
        let mut c = a;
        c.moved = 1;
        assert_ne!(g.hash_key(&a), g.hash_key(&c));
        let mut d = a;
        d.round = 2;
        assert_ne!(g.hash_key(&a), g.hash_key(&d));
    }

    #[test]
    fn fill_moves_are_lexicographic() {
        let g = game("bechi");
        let pos = g.parse_body("6,6,6,6/0,0,0,0 0-16 N 16 1 fill-N - - 8-0").unwrap();
        let mut moves = MoveList::new();
        g.legal_moves(&pos, &mut moves);
        let texts: Vec<String> = moves.iter().map(|&m| g.format_move(&pos, m)).collect();
        assert_eq!(texts, ["fill:AB", "fill:AC", "fill:AD", "fill:BC", "fill:BD", "fill:CD"]);
    }
}
