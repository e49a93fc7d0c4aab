//! Ikibuguzo, Opening 1: a four-row sowing game of the African Great Lakes.
//!
//! Rule decisions (sources: Murray, A History of Board-Games Other Than Chess (1951), p. 217, as the
//! Ludii portal summarises it, cited as "source"; `docs/rules/README.md` and the "Main decisions" of
//! `docs/rules/ikibuguzo.md`, cited as "main decisions", with its rule numbers in brackets;
//! `docs/NOTATION.md`):
//! - 4x8 board; each player owns an outer and an inner row of 8 and sows only round their own
//!   16-hole loop (main decisions). Loop index 0..7 = outer row left to right, 8..15 = inner row right to
//!   left, in the player's own view; anticlockwise is +1, clockwise -1 (NOTATION) [§1]. The mover's
//!   inner hole at column `c` (loop `15 - c`) faces the opponent's inner loop `8 + c` and outer loop
//!   `7 - c`.
//! - Start: both loops `0,6,0,0,0,0,0,17,0,3,0,3,0,3,0,0` (source's arrangement read from the bottom
//!   left anticlockwise). Six scripted turns S,N,S,N,S,N from `i3`, `i3`, `i5`, `i5`, `i7`, `i7`: two
//!   counters into the next hole anticlockwise, one into the one after; nothing else happens; they are
//!   the only legal moves (source "Opening play", main decisions) [1-3].
//! - A turn starts from any own hole holding 2 or more (source "Singletons cannot move") [4]. A lap
//!   lifts the whole hole and never skips its origin [5]. The last counter "lands in an empty hole"
//!   when that hole holds exactly 1 after the lap: the turn ends, whatever lies opposite [6].
//!   Otherwise a capture if the last hole is in the inner row and both facing opponent holes are
//!   non-empty (source's definition of opposition), else relay anticlockwise [7].
//! - A capture empties both facing opponent holes into the origin of the lap that just ended (source
//!   "places them in the empty hole from which the player lifted the counters"), which is then sown
//!   again as a new lap [8-9].
//! - Special holes `o1` and `i2` [11]. A clockwise lap is allowed only from them and only when that
//!   very lap ends in a capture (source "only ... if they immediately lead to a capture") [12]: as the
//!   turn's first play; when re-sowing a special capture hole, if every lap so far was clockwise or
//!   none was (source "Multiple captures ... only ... on the first sowing of the turn. Otherwise, only
//!   one clockwise capture") [13]; after `keep` [15]. Relay laps are always anticlockwise [14].
//! - `keep` (source "the captured counters may be placed in the hole and left there"): in a turn whose
//!   laps were all clockwise, after a capture the player may leave the counters and play the other
//!   special hole clockwise if that captures [15-16]; once a keep was made and no clockwise option is
//!   left, leave them and play any other hole of 2+ anticlockwise [17].
//! - Wins are checked right after each capture and stop the turn at once, the captured counters left
//!   unsown: the opponent has nothing left (source "captures all the opponent's counters") [20]; with
//!   option `end_holes_win` (default true, main decisions) captures this turn took both opponent inner end
//!   holes (flag `win=S`/`win=N`) [21].
//! - Relay cut: lap 1,001 is never started; the position gets the flag `cycle` (NOTATION, main decisions
//!   "Endless play") [22]. A turn captures each column at most once (the opponent's holes receive
//!   nothing during the turn), so a turn has at most 8 captures.
//! - Result order: win flag, a player without counters (capture-all), `cycle`, the player to move
//!   without a move loses (source "The player who cannot play loses"), turn limit. An endless cycle or
//!   the turn limit is won by the player with more counters on their side [23-24].
//! - Moves [25-27]: a turn is one API move (docs/rules/README.md, point 2), made of steps joined by `/`. This module's
//!   moves are the steps: the first play of a turn (`o3`, `i2:cw`), and where a capture offers more
//!   than one option the turn **pauses** ([`Game::mid_turn`]): the same player stays to move, the
//!   flags field records the turn so far (`choose=o1,laps=1,cw=all[,kept][,end=i1]`), and each
//!   option is a step: `ccw`, `cw`, `keep+o1:cw`, `keep+o5`. At most 18 steps are legal anywhere,
//!   so move lists stay fixed-size; whole turns grow exponentially with the captures of a clockwise
//!   turn (300 seen in random games), and the boundary ([`crate::registry::AnyGame::legal_turns`])
//!   lists them unbounded: `o1:cw/keep+i2:cw/keep+i4`. The search does not count a step that
//!   leaves the turn open as a ply. A turn's events list every lap, capture and keep so a frontend
//!   can animate it. `turns` counts steps.
//! - Positions hold at most 255 counters in all (compact `u8` holes); the start has 64.
//! - Readings of the Digital Ludeme Project's implementation [28-33], each an option defaulting
//!   to the reading above, all set by `ludii=true`: `cw_play_captures=false` (a clockwise first lap
//!   need not capture, only end in an inner hole facing two occupied holes), `cw_relay` (a relay
//!   from `o1`/`i2` may go
//!   clockwise under the re-sowing's conditions: the turn pauses with `ccw`/`cw`, flags word
//!   `relay`, no keep there), `cw_resow_once=false` (no limit on clockwise re-sowing),
//!   `cw_resow_captures=false` (a clockwise re-sowing or relay need not capture, only pass the same
//!   landing test), `keep=false`, `stop_on_capture_all=false` (the turn sows on after taking the
//!   opponent's last counters).
//! - A paused position is never over: the result is judged when the turn ends [23].

use arrayvec::ArrayVec;

use crate::error::{IllegalMove, NotationError, VariantError};
use crate::game::{CaptureKind, Cell, EndReason, Event, Game, Geometry, MoveList, Outcome, Player, Trace};
use crate::variant::{OptionSpec, OptionValue, Variant, VariantSpec};

/// Holes in each player's loop.
pub const HOLES: usize = 16;
/// Laps after which a turn is cut as an endless relay.
pub const MAX_LAPS: u32 = 1000;
const START_LOOP: [u8; HOLES] = [0, 6, 0, 0, 0, 0, 0, 17, 0, 3, 0, 3, 0, 3, 0, 0];
const OPENING_TURNS: u8 = 6;
const OPENING_HOLES: [usize; 3] = [13, 11, 9];
const SPECIAL: [usize; 2] = [0, 14];
const MAX_TOTAL: u32 = 255;

const FLAG_WIN_SOUTH: u8 = 1;
const FLAG_WIN_NORTH: u8 = 2;
const FLAG_CYCLE: u8 = 3;

/// An Ikibuguzo position: both loops, side, opening counter, flag, paused turn and turn counter
/// (44 bytes, `Copy`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct IkibuguzoPosition {
    /// Counters in each player's 16 holes (South, North), in loop order.
    pub loops: [[u8; HOLES]; 2],
    /// Turns played.
    pub turns: u32,
    /// The player to move.
    pub to_move: Player,
    /// Scripted opening turns still to play.
    pub opening: u8,
    flags: u8,
    /// A paused turn: the capture hole whose options are to be chosen (`NO_PAUSE` when none),
    /// the turn's memory bits and its laps so far.
    pause_hole: u8,
    pause_memory: u8,
    pause_laps: u16,
}

impl IkibuguzoPosition {
    fn total(&self, p: Player) -> i32 {
        self.loops[p.index()].iter().map(|&c| c as i32).sum()
    }

    fn win_flag(&self) -> Option<Player> {
        match self.flags {
            FLAG_WIN_SOUTH => Some(Player::South),
            FLAG_WIN_NORTH => Some(Player::North),
            _ => None,
        }
    }

    /// Whether the last turn was cut as an endless relay.
    pub fn is_cut(&self) -> bool {
        self.flags == FLAG_CYCLE
    }

    /// Whether a turn is paused at a choice (the player to move chooses how it goes on).
    pub fn is_paused(&self) -> bool {
        self.pause_hole != NO_PAUSE
    }
}

const NO_PAUSE: u8 = 0xFF;
const MEMORY_ALL_CW: u8 = 1;
const MEMORY_SOME_CW: u8 = 2;
const MEMORY_KEPT: u8 = 4;
const MEMORY_END_I1: u8 = 8;
const MEMORY_END_I8: u8 = 16;
const MEMORY_RELAY: u8 = 32;

const CW_BIT: u8 = 0x10;
const CHOICE_CCW: u8 = 0x20;
const CHOICE_CW: u8 = 0x21;
const CHOICE_KEEP_CW: u8 = 0x40;
const CHOICE_KEEP_CCW: u8 = 0x80;

/// A move (one byte, `Copy`): a turn's first play (a hole and a direction) or, while a turn is
/// paused, one of the options at that capture.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IkibuguzoMove(u8);

impl IkibuguzoMove {
    fn play(hole: usize, clockwise: bool) -> Self {
        IkibuguzoMove(hole as u8 | if clockwise { CW_BIT } else { 0 })
    }

    /// Whether this is a first play (not a choice at a pause).
    pub fn is_play(self) -> bool {
        self.0 < CHOICE_CCW
    }

    /// The hole of a first play (loop index).
    pub fn hole(self) -> usize {
        (self.0 & 0x0F) as usize
    }

    /// Whether a first play is clockwise.
    pub fn clockwise(self) -> bool {
        self.0 & CW_BIT != 0
    }
}

/// A hole's label in its owner's view: `o1..o8`, `i1..i8`.
pub fn label(hole: usize) -> String {
    if hole < 8 {
        format!("o{}", hole + 1)
    } else {
        format!("i{}", 16 - hole)
    }
}

fn parse_label(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    if b.len() != 2 || !(b'1'..=b'8').contains(&b[1]) {
        return None;
    }
    let k = (b[1] - b'0') as usize;
    match b[0] {
        b'o' => Some(k - 1),
        b'i' => Some(16 - k),
        _ => None,
    }
}

/// The opponent's (inner, outer) loop indices facing the mover's inner hole `hole`.
#[inline]
fn opposite(hole: usize) -> (usize, usize) {
    let column = 15 - hole;
    (8 + column, 7 - column)
}

#[inline]
fn step(hole: usize, clockwise: bool) -> usize {
    if clockwise {
        (hole + HOLES - 1) % HOLES
    } else {
        (hole + 1) % HOLES
    }
}

/// Lifts the whole `origin` hole and sows one counter a hole; returns the last hole.
#[inline]
fn sow(mine: &mut [u8; HOLES], origin: usize, clockwise: bool, sown: Option<&mut Vec<u8>>) -> usize {
    let counters = mine[origin];
    mine[origin] = 0;
    let mut hole = origin;
    match sown {
        None => {
            for _ in 0..counters {
                hole = step(hole, clockwise);
                mine[hole] += 1;
            }
        }
        Some(list) => {
            for _ in 0..counters {
                hole = step(hole, clockwise);
                mine[hole] += 1;
                list.push(hole as u8);
            }
        }
    }
    hole
}

/// After a lap ended in `last`: was it occupied before the last counter, and in opposition?
#[inline]
fn captures_here(mine: &[u8; HOLES], theirs: &[u8; HOLES], last: usize) -> bool {
    if mine[last] == 1 || last < 8 {
        return false;
    }
    let (inner, outer) = opposite(last);
    theirs[inner] > 0 && theirs[outer] > 0
}

/// Whether a lap from `origin` would end in a capture ("leads to a capture").
#[inline]
fn lap_captures(mine: &[u8; HOLES], theirs: &[u8; HOLES], origin: usize, clockwise: bool) -> bool {
    let mut trial = *mine;
    let last = sow(&mut trial, origin, clockwise, None);
    captures_here(&trial, theirs, last)
}

/// Whether a lap from `origin` would end in an inner hole facing two occupied opponent holes,
/// occupied or not before (the Digital Ludeme Project's test for a clockwise lap that need not
/// capture: docs/rules/ikibuguzo.md, points 28 and 31). The sowing never touches the opponent's
/// holes, so they are judged as they stand.
#[inline]
fn lap_lands_facing(mine: &[u8; HOLES], theirs: &[u8; HOLES], origin: usize, clockwise: bool) -> bool {
    let n = mine[origin] as usize % HOLES;
    let last = if clockwise { (origin + HOLES - n) % HOLES } else { (origin + n) % HOLES };
    if last < 8 {
        return false;
    }
    let (inner, outer) = opposite(last);
    theirs[inner] > 0 && theirs[outer] > 0
}

/// A turn in progress.
#[derive(Copy, Clone)]
struct Turn {
    mine: [u8; HOLES],
    theirs: [u8; HOLES],
    laps: u32,
    cw_laps: u32,
    all_cw: bool,
    kept: bool,
    end_columns: u8,
    won: bool,
    cut: bool,
}

impl Turn {
    /// The turn recorded in a paused position.
    fn resumed(pos: &IkibuguzoPosition) -> Turn {
        let mut t = Turn::new(pos);
        let m = pos.pause_memory;
        t.laps = pos.pause_laps as u32;
        t.all_cw = m & MEMORY_ALL_CW != 0;
        t.cw_laps = u32::from(m & (MEMORY_ALL_CW | MEMORY_SOME_CW) != 0);
        t.kept = m & MEMORY_KEPT != 0;
        t.end_columns = u8::from(m & MEMORY_END_I1 != 0) | u8::from(m & MEMORY_END_I8 != 0) << 1;
        t
    }

    /// The memory bits of this turn for a pause (only what the rest of the turn can use).
    fn memory(&self, end_holes_win: bool) -> u8 {
        let mut m = if self.all_cw {
            MEMORY_ALL_CW
        } else if self.cw_laps > 0 {
            MEMORY_SOME_CW
        } else {
            0
        };
        if self.kept {
            m |= MEMORY_KEPT;
        }
        if end_holes_win {
            m |= ((self.end_columns & 1) * MEMORY_END_I1) | ((self.end_columns >> 1) * MEMORY_END_I8);
        }
        m
    }

    fn new(pos: &IkibuguzoPosition) -> Turn {
        let me = pos.to_move.index();
        Turn {
            mine: pos.loops[me],
            theirs: pos.loops[1 - me],
            laps: 0,
            cw_laps: 0,
            all_cw: true,
            kept: false,
            end_columns: 0,
            won: false,
            cut: false,
        }
    }
}

/// One option after a capture.
#[derive(Copy, Clone)]
struct Choice {
    code: u8,
    origin: usize,
    clockwise: bool,
}

/// How a lap ended.
enum LapEnd {
    /// The turn is over (empty landing, a win, or the cut).
    Over,
    /// A capture was made and the turn goes on from the capture hole.
    Captured,
    /// Relay from this hole.
    Relay(usize),
}

/// Ikibuguzo (Opening 1) with its options.
#[derive(Clone, Debug)]
pub struct IkibuguzoGame {
    variant: Variant,
    end_holes_win: bool,
    cw_play_captures: bool,
    cw_relay: bool,
    cw_resow_once: bool,
    cw_resow_captures: bool,
    keep: bool,
    stop_on_capture_all: bool,
    max_turns: u32,
}

/// The options `ludii=true` sets, with the Digital Ludeme Project's values.
const LUDII_READING: [(&str, bool); 6] = [
    ("cw_play_captures", false),
    ("cw_relay", true),
    ("cw_resow_once", false),
    ("cw_resow_captures", false),
    ("keep", false),
    ("stop_on_capture_all", false),
];

/// The options Ikibuguzo accepts.
pub fn option_specs() -> Vec<OptionSpec> {
    vec![
        OptionSpec::flag(
            "end_holes_win",
            true,
            "capturing both opponent inner-row end holes in one turn wins (Murray 1951)",
        ),
        OptionSpec::flag(
            "cw_play_captures",
            true,
            "a turn may begin clockwise from o1 or i2 only when that lap captures (false: when it \
             ends in an inner hole facing two occupied holes, captured or not)",
        ),
        OptionSpec::flag(
            "cw_relay",
            false,
            "a relay from o1 or i2 may go on clockwise, under the conditions of a clockwise re-sowing",
        ),
        OptionSpec::flag(
            "cw_resow_once",
            true,
            "a turn that did not begin clockwise re-sows clockwise at most once, and a clockwise turn \
             stays clockwise to re-sow clockwise (false: no limit)",
        ),
        OptionSpec::flag(
            "cw_resow_captures",
            true,
            "captured counters in o1 or i2 are re-sown clockwise only when that lap captures (false: \
             when it ends in an inner hole facing two occupied holes, captured or not)",
        ),
        OptionSpec::flag(
            "keep",
            true,
            "in a clockwise turn the captured counters may be kept while the other special hole plays",
        ),
        OptionSpec::flag(
            "stop_on_capture_all",
            true,
            "the turn stops when it captures the opponent's last counters (false: it sows on)",
        ),
        OptionSpec::flag(
            "ludii",
            false,
            "the Digital Ludeme Project's reading: the six options above default to its values \
             (cw_play_captures, cw_resow_once, cw_resow_captures, keep and stop_on_capture_all false, \
             cw_relay true)",
        ),
        OptionSpec::max_turns(),
    ]
}

impl IkibuguzoGame {
    /// The game for `spec` (id `ikibuguzo`).
    pub fn new(spec: &VariantSpec) -> Result<IkibuguzoGame, VariantError> {
        let reading: Vec<(&str, OptionValue)> =
            LUDII_READING.iter().map(|(name, v)| (*name, OptionValue::Bool(*v))).collect();
        let variant = Variant::resolve_with_reading(spec, &option_specs(), "ludii", &reading)?;
        Ok(IkibuguzoGame {
            end_holes_win: variant.flag("end_holes_win"),
            cw_play_captures: variant.flag("cw_play_captures"),
            cw_relay: variant.flag("cw_relay"),
            cw_resow_once: variant.flag("cw_resow_once"),
            cw_resow_captures: variant.flag("cw_resow_captures"),
            keep: variant.flag("keep"),
            stop_on_capture_all: variant.flag("stop_on_capture_all"),
            max_turns: variant.max_turns(),
            variant,
        })
    }

    /// The rules as readable sentences.
    pub fn describe(&self) -> Vec<String> {
        let mut out = vec![
            "4x8 board: each player owns an outer and an inner row and sows only round their own \
             16-hole loop, anticlockwise."
                .to_string(),
            "Start: 0,6,0,0,0,0,0,17 along the outer row and 0,3,0,3,0,3,0,0 back along the inner row; \
             the first six turns are scripted from i3, i3, i5, i5, i7, i7 (two counters, then one)."
                .to_string(),
            "A turn starts from a hole of 2 or more. A lap ending in an empty hole ends the turn; in an \
             occupied inner hole whose two facing opponent holes are occupied it captures them into \
             the hole the lap started from, which is sown again; otherwise the sowing relays."
                .to_string(),
        ];
        out.push(if self.cw_play_captures {
            "A turn may begin clockwise from o1 or i2 when that lap captures at once.".to_string()
        } else {
            "A turn may begin clockwise from o1 or i2 when that lap ends in an inner hole facing two \
             occupied opponent holes; it need not capture."
                .to_string()
        });
        let when = if self.cw_resow_captures {
            " when that lap captures at once"
        } else {
            " when that lap ends in an inner hole facing two occupied opponent holes"
        };
        out.push(format!(
            "Captured counters in o1 or i2 may be re-sown clockwise{when}{}.",
            if self.cw_resow_once {
                ", as often as the turn stays clockwise, or once in a turn that began anticlockwise"
            } else {
                ", with no limit on how often"
            }
        ));
        if self.cw_relay {
            out.push(format!(
                "A relay from o1 or i2 may go on clockwise{when}, like a re-sowing; other relays go \
                 anticlockwise."
            ));
        } else {
            out.push("Relays always go anticlockwise.".to_string());
        }
        if self.keep {
            out.push(
                "In a clockwise turn the captured counters may be kept while the other special hole \
                 plays clockwise."
                    .to_string(),
            );
        }
        out.push(if self.stop_on_capture_all {
            "Capturing everything wins at once; a player who cannot move loses.".to_string()
        } else {
            "Capturing everything wins once the turn ends (the captured counters are sown on); a \
             player who cannot move loses."
                .to_string()
        });
        if self.end_holes_win {
            out.push("Capturing both opponent inner-row end holes in one turn wins.".to_string());
        }
        out.push(format!(
            "A relay of more than {MAX_LAPS} laps, or {} turns, ends the game; more counters wins.",
            self.max_turns
        ));
        let ludii: Vec<String> = LUDII_READING
            .iter()
            .filter(|(name, v)| self.variant.flag(name) == *v)
            .map(|(name, v)| format!("{name}={v}"))
            .collect();
        if !ludii.is_empty() {
            out.push(format!(
                "Read as the Digital Ludeme Project reads the game: {}; the rest as Murray's text is read \
                 in docs/rules/ikibuguzo.md.",
                ludii.join(", ")
            ));
        }
        out
    }

    /// Ends the lap from `origin` that left its last counter in `last`: capture, relay or stop.
    fn after_lap<T: Trace>(
        &self,
        t: &mut Turn,
        me: Player,
        origin: usize,
        last: usize,
        trace: &mut T,
    ) -> LapEnd {
        if t.mine[last] == 1 {
            return LapEnd::Over;
        }
        if !captures_here(&t.mine, &t.theirs, last) {
            return LapEnd::Relay(last);
        }
        let (inner, outer) = opposite(last);
        let taken = t.theirs[inner] + t.theirs[outer];
        if T::ENABLED {
            let base = 16 * me.other().index() as u8;
            for hole in [inner, outer] {
                trace.push(Event::Capture {
                    cell: base + hole as u8,
                    seeds: t.theirs[hole] as u16,
                    player: me,
                    kind: CaptureKind::Final,
                });
            }
            trace.push(Event::Fill {
                cell: 16 * me.index() as u8 + origin as u8,
                seeds: taken as u16,
                player: me,
            });
        }
        t.mine[origin] += taken;
        t.theirs[inner] = 0;
        t.theirs[outer] = 0;
        let column = 15 - last;
        if column == 0 {
            t.end_columns |= 1;
        } else if column == 7 {
            t.end_columns |= 2;
        }
        if self.end_holes_win && t.end_columns == 3 {
            t.won = true;
            if T::ENABLED {
                trace.push(Event::Note { name: "end_holes", player: Some(me) });
            }
            return LapEnd::Over;
        }
        if self.stop_on_capture_all && t.theirs.iter().all(|&c| c == 0) {
            return LapEnd::Over;
        }
        if t.laps == MAX_LAPS {
            t.cut = true;
            if T::ENABLED {
                trace.push(Event::Cut { laps: t.laps });
            }
            return LapEnd::Over;
        }
        LapEnd::Captured
    }

    /// Whether `hole` may be sown clockwise now as a re-sowing or a relay [13, 31].
    #[inline]
    fn cw_resow_allowed(&self, t: &Turn, hole: usize) -> bool {
        SPECIAL.contains(&hole)
            && (!self.cw_resow_once || t.all_cw || t.cw_laps == 0)
            && if self.cw_resow_captures {
                lap_captures(&t.mine, &t.theirs, hole, true)
            } else {
                lap_lands_facing(&t.mine, &t.theirs, hole, true)
            }
    }

    /// Whether a turn may begin clockwise from the special hole `hole` [12, 28].
    #[inline]
    fn cw_play_allowed(&self, mine: &[u8; HOLES], theirs: &[u8; HOLES], hole: usize) -> bool {
        if self.cw_play_captures {
            lap_captures(mine, theirs, hole, true)
        } else {
            lap_lands_facing(mine, theirs, hole, true)
        }
    }

    /// The options after a capture into `capture_hole` [13, 15, 17], or, with `relay`, at a relay
    /// from a special hole (`cw_relay`): `ccw` and, when allowed, `cw`.
    fn choices(&self, t: &Turn, capture_hole: usize, relay: bool) -> ArrayVec<Choice, { HOLES + 2 }> {
        let mut out = ArrayVec::new();
        out.push(Choice { code: CHOICE_CCW, origin: capture_hole, clockwise: false });
        let cw_resow = self.cw_resow_allowed(t, capture_hole);
        if cw_resow {
            out.push(Choice { code: CHOICE_CW, origin: capture_hole, clockwise: true });
        }
        if t.all_cw && self.keep && !relay {
            let other = if capture_hole == SPECIAL[0] { SPECIAL[1] } else { SPECIAL[0] };
            let switch = t.mine[other] >= 2 && lap_captures(&t.mine, &t.theirs, other, true);
            if switch {
                out.push(Choice { code: CHOICE_KEEP_CW | other as u8, origin: other, clockwise: true });
            }
            if t.kept && !cw_resow && !switch {
                for hole in 0..HOLES {
                    if hole != capture_hole && t.mine[hole] >= 2 {
                        out.push(Choice {
                            code: CHOICE_KEEP_CCW | hole as u8,
                            origin: hole,
                            clockwise: false,
                        });
                    }
                }
            }
        }
        out
    }

    /// Starts a lap (bookkeeping shared by enumeration and replay); `false` when the turn is cut.
    #[inline]
    fn start_lap<T: Trace>(t: &mut Turn, clockwise: bool, trace: &mut T) -> bool {
        if t.laps == MAX_LAPS {
            t.cut = true;
            if T::ENABLED {
                trace.push(Event::Cut { laps: t.laps });
            }
            return false;
        }
        t.laps += 1;
        if clockwise {
            t.cw_laps += 1;
        } else {
            t.all_cw = false;
        }
        true
    }

    /// Plays laps from `origin` until the turn ends or pauses at a choice; returns the hole of the
    /// pause and whether it is a relay (else a capture).
    fn run<T: Trace>(
        &self,
        t: &mut Turn,
        me: Player,
        mut origin: usize,
        mut clockwise: bool,
        trace: &mut T,
    ) -> Option<(usize, bool)> {
        let base = 16 * me.index() as u8;
        loop {
            if !Self::start_lap(t, clockwise, trace) {
                return None;
            }
            let lifted = t.mine[origin];
            let last = if T::ENABLED {
                let mut sown = Vec::with_capacity(lifted as usize);
                let last = sow(&mut t.mine, origin, clockwise, Some(&mut sown));
                trace.push(Event::Lap {
                    origin: base + origin as u8,
                    lifted: lifted as u16,
                    sown: sown.into_iter().map(|h| base + h).collect(),
                });
                last
            } else {
                sow(&mut t.mine, origin, clockwise, None)
            };
            match self.after_lap(t, me, origin, last, trace) {
                LapEnd::Over => return None,
                LapEnd::Relay(hole) => {
                    origin = hole;
                    clockwise = false;
                    if self.cw_relay && self.cw_resow_allowed(t, hole) {
                        if t.laps == MAX_LAPS {
                            // The relay would be lap 1,001: the turn is cut, with no choice.
                            continue;
                        }
                        if T::ENABLED {
                            trace.push(Event::Note { name: "choose", player: Some(me) });
                        }
                        return Some((hole, true));
                    }
                }
                LapEnd::Captured => {
                    if self.choices(t, origin, false).len() > 1 {
                        if T::ENABLED {
                            trace.push(Event::Note { name: "choose", player: Some(me) });
                        }
                        return Some((origin, false));
                    }
                    clockwise = false;
                }
            }
        }
    }

    /// The position after a move whose turn is now `t`, paused at `pause` or over.
    fn finish(&self, pos: &IkibuguzoPosition, t: &Turn, pause: Option<(usize, bool)>) -> IkibuguzoPosition {
        let me = pos.to_move;
        let mut p = *pos;
        p.loops[me.index()] = t.mine;
        p.loops[me.other().index()] = t.theirs;
        p.turns = p.turns.saturating_add(1);
        p.opening = p.opening.saturating_sub(1);
        p.flags = 0;
        p.pause_hole = NO_PAUSE;
        p.pause_memory = 0;
        p.pause_laps = 0;
        if let Some((hole, relay)) = pause {
            p.pause_hole = hole as u8;
            p.pause_memory = t.memory(self.end_holes_win) | if relay { MEMORY_RELAY } else { 0 };
            p.pause_laps = t.laps as u16;
            return p;
        }
        if t.won {
            p.flags = if me == Player::South { FLAG_WIN_SOUTH } else { FLAG_WIN_NORTH };
        } else if t.cut {
            p.flags = FLAG_CYCLE;
        }
        p.to_move = me.other();
        p
    }

    /// Why `mv` is not legal here (the game is not over and `mv` is not in the legal moves).
    fn diagnose(&self, pos: &IkibuguzoPosition, mv: IkibuguzoMove) -> IllegalMove {
        let mine = &pos.loops[pos.to_move.index()];
        let theirs = &pos.loops[pos.to_move.other().index()];
        if pos.opening > 0 {
            let scripted = OPENING_HOLES[((OPENING_TURNS - pos.opening) / 2) as usize];
            return IllegalMove::new(
                "opening",
                format!("the opening is scripted: this turn plays {}", label(scripted)),
            );
        }
        if pos.is_paused() {
            let hole = pos.pause_hole as usize;
            let relay = pos.pause_memory & MEMORY_RELAY != 0;
            let options = self.choices(&Turn::resumed(pos), hole, relay);
            let list = options.iter().map(|c| choice_text(c.code)).collect::<Vec<_>>().join(", ");
            return if mv.is_play() {
                IllegalMove::new(
                    "choice_pending",
                    format!(
                        "the turn is paused {} {}: choose {list}",
                        if relay { "at the relay from" } else { "after the capture into" },
                        label(hole)
                    ),
                )
            } else {
                IllegalMove::new(
                    "choice_unavailable",
                    format!("{} is not an option here; the options are {list}", choice_text(mv.0)),
                )
            };
        }
        if !mv.is_play() {
            return IllegalMove::new("no_choice", "no capture is waiting for a choice: play a hole");
        }
        let hole = mv.hole();
        if mine[hole] < 2 {
            return IllegalMove::new(
                if mine[hole] == 0 { "empty_hole" } else { "singleton" },
                format!("{} holds {}; a turn starts from a hole of 2 or more", label(hole), mine[hole]),
            );
        }
        if mv.clockwise() && !SPECIAL.contains(&hole) {
            return IllegalMove::new("cw_not_special", "only o1 and i2 can be played clockwise");
        }
        if mv.clockwise() && !self.cw_play_allowed(mine, theirs, hole) {
            return if self.cw_play_captures {
                IllegalMove::new(
                    "cw_no_capture",
                    format!("{} can be played clockwise only when that lap captures", label(hole)),
                )
            } else {
                IllegalMove::new(
                    "cw_no_opposition",
                    format!(
                        "{} can be played clockwise only when that lap ends in an inner hole facing two \
                         occupied holes",
                        label(hole)
                    ),
                )
            };
        }
        IllegalMove::new("not_legal", format!("{} is not a legal move here", self.format_move(pos, mv)))
    }

    fn pause_text(&self, pos: &IkibuguzoPosition) -> String {
        let m = pos.pause_memory;
        let cw = if m & MEMORY_ALL_CW != 0 {
            "all"
        } else if m & MEMORY_SOME_CW != 0 {
            "some"
        } else {
            "none"
        };
        let mut out = format!("choose={},laps={},cw={cw}", label(pos.pause_hole as usize), pos.pause_laps);
        if m & MEMORY_KEPT != 0 {
            out.push_str(",kept");
        }
        if m & MEMORY_RELAY != 0 {
            out.push_str(",relay");
        }
        if m & MEMORY_END_I1 != 0 {
            out.push_str(",end=i1");
        }
        if m & MEMORY_END_I8 != 0 {
            out.push_str(",end=i8");
        }
        out
    }

    /// Parses `choose=<hole>,laps=<n>,cw=<none|some|all>[,kept][,end=i1][,end=i8]` into `pos`.
    fn parse_pause(&self, text: &str, pos: &mut IkibuguzoPosition) -> Result<(), String> {
        let usage = || {
            format!(
                "{text:?} is not choose=<hole>,laps=<n>,cw=<none|some|all>[,kept][,relay][,end=<i1|i8>] in canonical form"
            )
        };
        let mut parts = text.split(',');
        let hole =
            parts.next().and_then(|p| p.strip_prefix("choose=")).and_then(parse_label).ok_or_else(usage)?;
        let laps: u32 = parts
            .next()
            .and_then(|p| p.strip_prefix("laps="))
            .and_then(|n| n.parse().ok())
            .ok_or_else(usage)?;
        if laps == 0 || laps >= MAX_LAPS {
            return Err(format!("laps must be 1 to {}", MAX_LAPS - 1));
        }
        let mut memory = match parts.next().and_then(|p| p.strip_prefix("cw=")) {
            Some("none") => 0,
            Some("some") => MEMORY_SOME_CW,
            Some("all") => MEMORY_ALL_CW,
            _ => return Err(usage()),
        };
        for part in parts {
            memory |= match part {
                "kept" => MEMORY_KEPT,
                "relay" if self.cw_relay => MEMORY_RELAY,
                "end=i1" if self.end_holes_win => MEMORY_END_I1,
                "end=i8" if self.end_holes_win => MEMORY_END_I8,
                _ => return Err(usage()),
            };
        }
        pos.pause_hole = hole as u8;
        pos.pause_memory = memory;
        pos.pause_laps = laps as u16;
        if self.pause_text(pos) != text {
            return Err(usage());
        }
        let relay = memory & MEMORY_RELAY != 0;
        if self.choices(&Turn::resumed(pos), hole, relay).len() < 2 {
            return Err(format!(
                "the {} {} offers no choice",
                if relay { "relay from" } else { "capture into" },
                label(hole)
            ));
        }
        Ok(())
    }

    /// The positional terms of the search's evaluation, per player (South, North), by slot (the
    /// search weighs them; `weights` says which slots it wants):
    /// 0. inner-row counters (captures are made from the inner row, and the inner row is what a
    ///    capture empties first);
    /// 1. capturing plays: own holes of 2 or more whose first lap would capture (anticlockwise, or
    ///    clockwise from `o1`/`i2`);
    /// 2. exposed counters (negated): counters in own columns whose inner and outer holes are both
    ///    occupied (only such a column can be captured);
    /// 3. mobility: own holes of 2 or more (a player without one loses).
    ///
    /// Slot 1 costs a trial lap per playable hole: it is left 0 when its weight is 0.
    pub fn search_terms(&self, pos: &IkibuguzoPosition, weights: &[i32; 4]) -> [[i32; 4]; 2] {
        let mut terms = [[0i32; 4]; 2];
        for p in Player::BOTH {
            let mine = &pos.loops[p.index()];
            let theirs = &pos.loops[p.other().index()];
            let t = &mut terms[p.index()];
            t[0] = mine[8..].iter().map(|&c| c as i32).sum();
            for column in 0..8 {
                let (inner, outer) = (mine[8 + column], mine[7 - column]);
                if inner > 0 && outer > 0 {
                    t[2] -= (inner + outer) as i32;
                }
            }
            for (hole, &c) in mine.iter().enumerate() {
                if c < 2 {
                    continue;
                }
                t[3] += 1;
                if weights[1] != 0
                    && (lap_captures(mine, theirs, hole, false)
                        || (SPECIAL.contains(&hole) && lap_captures(mine, theirs, hole, true)))
                {
                    t[1] += 1;
                }
            }
        }
        terms
    }

    fn has_move(&self, pos: &IkibuguzoPosition) -> bool {
        pos.opening > 0 || pos.is_paused() || pos.loops[pos.to_move.index()].iter().any(|&c| c >= 2)
    }
}

fn choice_text(code: u8) -> String {
    match code {
        CHOICE_CCW => "ccw".into(),
        CHOICE_CW => "cw".into(),
        c if c & CHOICE_KEEP_CW != 0 => format!("keep+{}:cw", label((c & 0x0F) as usize)),
        c if c & CHOICE_KEEP_CCW != 0 => format!("keep+{}", label((c & 0x0F) as usize)),
        c => format!("{}{}", label((c & 0x0F) as usize), if c & CW_BIT != 0 { ":cw" } else { "" }),
    }
}

impl Game for IkibuguzoGame {
    type Position = IkibuguzoPosition;
    type Move = IkibuguzoMove;

    fn variant(&self) -> &Variant {
        &self.variant
    }

    fn start(&self) -> IkibuguzoPosition {
        IkibuguzoPosition {
            loops: [START_LOOP, START_LOOP],
            turns: 0,
            to_move: Player::South,
            opening: OPENING_TURNS,
            flags: 0,
            pause_hole: NO_PAUSE,
            pause_memory: 0,
            pause_laps: 0,
        }
    }

    fn side_to_move(&self, pos: &IkibuguzoPosition) -> Player {
        pos.to_move
    }

    fn turns(&self, pos: &IkibuguzoPosition) -> u32 {
        pos.turns
    }

    fn multi_step_turns(&self) -> bool {
        true
    }

    fn max_steps_per_turn(&self) -> u32 {
        // The first play, then at most one pause per capture, and a turn captures each of the
        // opponent's 8 columns at most once (the opponent's holes receive nothing during it).
        // A relay may pause too with `cw_relay`, once a lap at most.
        1 + (HOLES / 2) as u32 + if self.cw_relay { MAX_LAPS } else { 0 }
    }

    fn mid_turn(&self, pos: &IkibuguzoPosition) -> bool {
        pos.is_paused()
    }

    fn legal_moves(&self, pos: &IkibuguzoPosition, moves: &mut MoveList<IkibuguzoMove>) {
        if self.outcome(pos).is_some() {
            return;
        }
        if pos.opening > 0 {
            let hole = OPENING_HOLES[((OPENING_TURNS - pos.opening) / 2) as usize];
            moves.push(IkibuguzoMove::play(hole, false));
            return;
        }
        if pos.is_paused() {
            let relay = pos.pause_memory & MEMORY_RELAY != 0;
            for c in self.choices(&Turn::resumed(pos), pos.pause_hole as usize, relay) {
                moves.push(IkibuguzoMove(c.code));
            }
            return;
        }
        let mine = &pos.loops[pos.to_move.index()];
        let theirs = &pos.loops[pos.to_move.other().index()];
        for hole in 0..HOLES {
            if mine[hole] >= 2 {
                moves.push(IkibuguzoMove::play(hole, false));
                if SPECIAL.contains(&hole) && self.cw_play_allowed(mine, theirs, hole) {
                    moves.push(IkibuguzoMove::play(hole, true));
                }
            }
        }
    }

    fn play_traced<T: Trace>(
        &self,
        pos: &IkibuguzoPosition,
        mv: IkibuguzoMove,
        trace: &mut T,
    ) -> IkibuguzoPosition {
        let me = pos.to_move;
        if pos.opening > 0 {
            let hole = mv.hole();
            let mut t = Turn::new(pos);
            let (a, b) = (step(hole, false), step(step(hole, false), false));
            if T::ENABLED {
                let base = 16 * me.index() as u8;
                let sown = vec![base + a as u8, base + a as u8, base + b as u8];
                trace.push(Event::Lap { origin: base + hole as u8, lifted: t.mine[hole] as u16, sown });
            }
            let lifted = t.mine[hole];
            t.mine[hole] = 0;
            t.mine[a] += lifted.min(2);
            t.mine[b] += lifted.saturating_sub(2);
            return self.finish(pos, &t, None);
        }
        if pos.is_paused() {
            let mut t = Turn::resumed(pos);
            let relay = pos.pause_memory & MEMORY_RELAY != 0;
            let options = self.choices(&t, pos.pause_hole as usize, relay);
            let c = options.iter().find(|c| c.code == mv.0).copied().unwrap_or(options[0]);
            if c.code & (CHOICE_KEEP_CW | CHOICE_KEEP_CCW) != 0 {
                t.kept = true;
                if T::ENABLED {
                    trace.push(Event::Note { name: "keep", player: Some(me) });
                }
            }
            let pause = self.run(&mut t, me, c.origin, c.clockwise, trace);
            return self.finish(pos, &t, pause);
        }
        let mut t = Turn::new(pos);
        let pause = self.run(&mut t, me, mv.hole(), mv.clockwise(), trace);
        self.finish(pos, &t, pause)
    }

    fn outcome(&self, pos: &IkibuguzoPosition) -> Option<Outcome> {
        if pos.is_paused() {
            // Inside a turn the game goes on: it is judged when the turn ends, so that no move
            // ends inside a turn (a capture of everything with `stop_on_capture_all=false`, the
            // turn limit reached by a step) [23, 33].
            return None;
        }
        let scores = [pos.total(Player::South), pos.total(Player::North)];
        if let Some(w) = pos.win_flag() {
            return Some(Outcome { winner: Some(w), scores, reason: EndReason::EndHoles });
        }
        if scores[0] == 0 || scores[1] == 0 {
            let winner = if scores[1] == 0 { Player::South } else { Player::North };
            return Some(Outcome { winner: Some(winner), scores, reason: EndReason::CapturedAll });
        }
        if pos.is_cut() {
            return Some(Outcome::by_score(scores, EndReason::EndlessCycle));
        }
        if !self.has_move(pos) {
            return Some(Outcome { winner: Some(pos.to_move.other()), scores, reason: EndReason::Blocked });
        }
        if pos.turns >= self.max_turns {
            return Some(Outcome::by_score(scores, EndReason::TurnLimit));
        }
        None
    }

    fn endless_outcome(&self, pos: &IkibuguzoPosition) -> Outcome {
        Outcome::by_score([pos.total(Player::South), pos.total(Player::North)], EndReason::EndlessCycle)
    }

    fn hash_key(&self, pos: &IkibuguzoPosition) -> u64 {
        let mut h: u64 = 0x9E37_79B9_7F4A_7C15;
        for side in &pos.loops {
            for chunk in side.chunks(8) {
                let w = u64::from_le_bytes(chunk.try_into().expect("8 holes"));
                h = (h.rotate_left(23) ^ w).wrapping_mul(0x2127_599B_F432_5C37);
            }
        }
        let tail = pos.to_move as u64
            | (pos.opening as u64) << 8
            | (pos.flags as u64) << 16
            | (pos.pause_hole as u64) << 24
            | (pos.pause_memory as u64) << 32
            | (pos.pause_laps as u64) << 40;
        h = (h.rotate_left(23) ^ tail).wrapping_mul(0x2127_599B_F432_5C37);
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^ (h >> 32)
    }

    fn write_key(&self, pos: &IkibuguzoPosition, out: &mut Vec<u8>) {
        out.extend_from_slice(&pos.loops[0]);
        out.extend_from_slice(&pos.loops[1]);
        out.push(pos.to_move as u8);
        out.push(pos.opening);
        out.push(pos.flags);
        out.push(pos.pause_hole);
        out.push(pos.pause_memory);
        out.extend_from_slice(&pos.pause_laps.to_le_bytes());
    }

    fn format_body(&self, pos: &IkibuguzoPosition) -> String {
        let row = |l: &[u8; HOLES]| l.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",");
        let flags = match pos.flags {
            _ if pos.is_paused() => self.pause_text(pos),
            FLAG_WIN_SOUTH => "win=S".into(),
            FLAG_WIN_NORTH => "win=N".into(),
            FLAG_CYCLE => "cycle".into(),
            _ => "-".into(),
        };
        format!(
            "{}/{} {} {} {} {}",
            row(&pos.loops[0]),
            row(&pos.loops[1]),
            pos.to_move.letter(),
            pos.turns,
            pos.opening,
            flags
        )
    }

    fn parse_body(&self, body: &str) -> Result<IkibuguzoPosition, NotationError> {
        const NAMES: [&str; 5] = ["board", "side", "turns", "opening", "flags"];
        let fields: Vec<&str> = body.split(' ').collect();
        if fields.len() != NAMES.len() {
            return Err(NotationError::new(format!(
                "expected {} fields after the variant (board side turns opening flags), found {}",
                NAMES.len(),
                fields.len()
            )));
        }
        let f = |i: usize, m: String| NotationError::field(i + 2, NAMES[i], m);
        let rows: Vec<&str> = fields[0].split('/').collect();
        if rows.len() != 2 {
            return Err(f(0, format!("expected <south>/<north>, found {} loop(s)", rows.len())));
        }
        let mut loops = [[0u8; HOLES]; 2];
        let mut total = 0u32;
        for (r, row) in rows.iter().enumerate() {
            let who = if r == 0 { "South" } else { "North" };
            let holes: Vec<&str> = row.split(',').collect();
            if holes.len() != HOLES {
                return Err(f(0, format!("{who} has {} holes, not {HOLES}", holes.len())));
            }
            for (i, h) in holes.iter().enumerate() {
                let v: u8 = h
                    .parse()
                    .map_err(|_| f(0, format!("hole {} of {who}: {h:?} is not a number (0-255)", i + 1)))?;
                loops[r][i] = v;
                total += v as u32;
            }
        }
        if total > MAX_TOTAL {
            return Err(f(0, format!("{total} counters in all; a position holds at most {MAX_TOTAL}")));
        }
        let to_move = crate::notation::parse_side(fields[1]).map_err(|m| f(1, m))?;
        let turns = crate::notation::parse_turns(fields[2], self.variant.max_turns()).map_err(|m| f(2, m))?;
        let opening: u8 = fields[3].parse().map_err(|_| f(3, format!("{:?} is not a number", fields[3])))?;
        if opening > OPENING_TURNS {
            return Err(f(3, format!("{opening} is more than {OPENING_TURNS}")));
        }
        if opening > 0 {
            let expected = Player::from_index(((OPENING_TURNS - opening) % 2) as usize);
            if to_move != expected {
                return Err(f(3, format!("opening turn {} is {}'s", OPENING_TURNS - opening + 1, expected)));
            }
            let hole = OPENING_HOLES[((OPENING_TURNS - opening) / 2) as usize];
            if loops[to_move.index()][hole] != 3 {
                return Err(f(3, format!("the scripted hole {} does not hold 3", label(hole))));
            }
        }
        let mut pos = IkibuguzoPosition {
            loops,
            turns,
            to_move,
            opening,
            flags: 0,
            pause_hole: NO_PAUSE,
            pause_memory: 0,
            pause_laps: 0,
        };
        match fields[4] {
            "-" => {}
            "win=S" => pos.flags = FLAG_WIN_SOUTH,
            "win=N" => pos.flags = FLAG_WIN_NORTH,
            "cycle" => pos.flags = FLAG_CYCLE,
            text if text.starts_with("choose=") && opening == 0 => {
                self.parse_pause(text, &mut pos).map_err(|m| f(4, m))?;
            }
            other if opening == 0 => {
                return Err(f(4, format!("{other:?} is not one of -, win=S, win=N, cycle, choose=...")))
            }
            _ => {}
        }
        if fields[4] != "-" && opening > 0 {
            return Err(f(4, "no flag can be set during the opening".into()));
        }
        if matches!(pos.flags, FLAG_WIN_SOUTH | FLAG_WIN_NORTH) && !self.end_holes_win {
            return Err(f(4, "a win flag but this variant has end_holes_win=false".into()));
        }
        Ok(pos)
    }

    fn format_move(&self, _pos: &IkibuguzoPosition, mv: IkibuguzoMove) -> String {
        choice_text(mv.0)
    }

    fn parse_move(&self, _pos: &IkibuguzoPosition, text: &str) -> Result<IkibuguzoMove, NotationError> {
        let text = text.trim();
        let hole_of = |s: &str| -> Result<(usize, bool), NotationError> {
            let (l, cw) = match s.strip_suffix(":cw") {
                Some(l) => (l, true),
                None => (s, false),
            };
            let hole = parse_label(l).ok_or_else(|| {
                NotationError::new(format!(
                    "{text:?} is not a move: a hole (o1..o8, i1..i8, with :cw for clockwise), or at a \
                     pause ccw, cw, keep+<hole>:cw, keep+<hole>"
                ))
            })?;
            Ok((hole, cw))
        };
        Ok(match text {
            "ccw" => IkibuguzoMove(CHOICE_CCW),
            "cw" => IkibuguzoMove(CHOICE_CW),
            _ => match text.strip_prefix("keep+") {
                Some(rest) => {
                    let (hole, cw) = hole_of(rest)?;
                    IkibuguzoMove(if cw { CHOICE_KEEP_CW } else { CHOICE_KEEP_CCW } | hole as u8)
                }
                None => {
                    let (hole, cw) = hole_of(text)?;
                    IkibuguzoMove::play(hole, cw)
                }
            },
        })
    }

    fn check_move(&self, pos: &IkibuguzoPosition, mv: IkibuguzoMove) -> Result<(), IllegalMove> {
        if self.outcome(pos).is_some() {
            return Err(IllegalMove::new("game_over", "the game is over"));
        }
        let mut moves = MoveList::new();
        self.legal_moves(pos, &mut moves);
        if moves.contains(&mv) {
            Ok(())
        } else {
            Err(self.diagnose(pos, mv))
        }
    }

    fn evaluate(&self, pos: &IkibuguzoPosition) -> i32 {
        pos.total(pos.to_move) - pos.total(pos.to_move.other())
    }

    fn cells(&self, pos: &IkibuguzoPosition) -> Vec<i32> {
        pos.loops.iter().flatten().map(|&c| c as i32).collect()
    }

    fn geometry(&self) -> Geometry {
        let mut cells = Vec::with_capacity(2 * HOLES);
        for player in Player::BOTH {
            for hole in 0..HOLES {
                // South: outer row 0, inner row 1, columns from South's left. North: inner row 2,
                // outer row 3; North's column c (its own left) is South's column 7 - c.
                let (row, col) = match (player, hole < 8) {
                    (Player::South, true) => (0, hole),
                    (Player::South, false) => (1, 15 - hole),
                    (Player::North, false) => (2, hole - 8),
                    (Player::North, true) => (3, 7 - hole),
                };
                cells.push(Cell { row, col: col as u8, owner: Some(player), label: label(hole) });
            }
        }
        Geometry {
            rows: 4,
            cols: 8,
            cells,
            stores: false,
            sowing: "anticlockwise round each player's own 16-hole loop (o1..o8, then i8..i1)".into(),
        }
    }
}
