//! Ikibuguzo, Opening 1 (seed 002): a four-row sowing game of the African Great Lakes.
//!
//! Rule decisions (sources: seed `002_5ab7eb09f2909b3e.txt`, `shared/rules/DECISIONS.md` sections
//! "Everywhere" and "Ikibuguzo", `docs/rules/ikibuguzo.md` (its rule numbers in brackets),
//! `docs/NOTATION.md`):
//! - 4x8 board; each player owns an outer and an inner row of 8 and sows only round their own
//!   16-hole loop (DECISIONS). Loop index 0..7 = outer row left to right, 8..15 = inner row right to
//!   left, in the player's own view; anticlockwise is +1, clockwise -1 (NOTATION) [§1]. The mover's
//!   inner hole at column `c` (loop `15 - c`) faces the opponent's inner loop `8 + c` and outer loop
//!   `7 - c`.
//! - Start: both loops `0,6,0,0,0,0,0,17,0,3,0,3,0,3,0,0` (seed's arrangement read from the bottom
//!   left anticlockwise). Six scripted turns S,N,S,N,S,N from `i3`, `i3`, `i5`, `i5`, `i7`, `i7`: two
//!   counters into the next hole anticlockwise, one into the one after; nothing else happens; they are
//!   the only legal moves (seed "Opening play", DECISIONS) [1-3].
//! - A turn starts from any own hole holding 2 or more (seed "Singletons cannot move") [4]. A lap
//!   lifts the whole hole and never skips its origin [5]. The last counter "lands in an empty hole"
//!   when that hole holds exactly 1 after the lap: the turn ends, whatever lies opposite [6].
//!   Otherwise a capture if the last hole is in the inner row and both facing opponent holes are
//!   non-empty (seed's definition of opposition), else relay anticlockwise [7].
//! - A capture empties both facing opponent holes into the origin of the lap that just ended (seed
//!   "places them in the empty hole from which the player lifted the counters"), which is then sown
//!   again as a new lap [8-9].
//! - Special holes `o1` and `i2` [11]. A clockwise lap is allowed only from them and only when that
//!   very lap ends in a capture (seed "only ... if they immediately lead to a capture") [12]: as the
//!   turn's first play; when re-sowing a special capture hole, if every lap so far was clockwise or
//!   none was (seed "Multiple captures ... only ... on the first sowing of the turn. Otherwise, only
//!   one clockwise capture") [13]; after `keep` [15]. Relay laps are always anticlockwise [14].
//! - `keep` (seed "the captured counters may be placed in the hole and left there"): in a turn whose
//!   laps were all clockwise, after a capture the player may leave the counters and play the other
//!   special hole clockwise if that captures [15-16]; once a keep was made and no clockwise option is
//!   left, leave them and play any other hole of 2+ anticlockwise [17].
//! - Wins are checked right after each capture and stop the turn at once, the captured counters left
//!   unsown: the opponent has nothing left (seed "captures all the opponent's counters") [20]; with
//!   option `end_holes_win` (default true, DECISIONS) captures this turn took both opponent inner end
//!   holes (flag `win=S`/`win=N`) [21].
//! - Relay cut: lap 1,001 is never started; the position gets the flag `cycle` (NOTATION, DECISIONS
//!   "Endless play") [22]. A turn captures each column at most once (the opponent's holes receive
//!   nothing during the turn), so a turn has at most 8 captures and a move at most 8 choice tokens.
//! - Result order: win flag, a player without counters (capture-all), `cycle`, the player to move
//!   without a move loses (seed "The player who cannot play loses"), turn limit. An endless cycle or
//!   the turn limit is won by the player with more counters on their side [23-24].
//! - A move is one whole turn: the first play (`o3`, `i2:cw`) and one token per capture that offered
//!   more than one option (`ccw`, `cw`, `keep+o1:cw`, `keep+o5`), joined by `+` [25-26]. Its events
//!   list every lap, capture and keep so a frontend can animate the turn.
//! - Positions hold at most 255 counters in all (compact `u8` holes); the start has 64.

use arrayvec::ArrayVec;

use crate::error::{IllegalMove, NotationError, VariantError};
use crate::game::{CaptureKind, Cell, EndReason, Event, Game, Geometry, MoveList, Outcome, Player, Trace};
use crate::variant::{OptionSpec, Variant, VariantSpec};

/// Holes in each player's loop.
pub const HOLES: usize = 16;
/// Laps after which a turn is cut as an endless relay.
pub const MAX_LAPS: u32 = 1000;
/// Most choice tokens a move can carry: one per capture, at most one capture per column.
pub const MAX_CHOICES: usize = 8;
const START_LOOP: [u8; HOLES] = [0, 6, 0, 0, 0, 0, 0, 17, 0, 3, 0, 3, 0, 3, 0, 0];
const OPENING_TURNS: u8 = 6;
const OPENING_HOLES: [usize; 3] = [13, 11, 9];
const SPECIAL: [usize; 2] = [0, 14];
const MAX_TOTAL: u32 = 255;

const FLAG_WIN_SOUTH: u8 = 1;
const FLAG_WIN_NORTH: u8 = 2;
const FLAG_CYCLE: u8 = 3;

/// An Ikibuguzo position: both loops, side, opening counter, flag and turn counter (40 bytes).
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
}

const CW_BIT: u8 = 0x10;
const CHOICE_CCW: u8 = 0;
const CHOICE_CW: u8 = 1;
const CHOICE_KEEP_CW: u8 = 0x40;
const CHOICE_KEEP_CCW: u8 = 0x80;

/// A whole turn: the first play and the choices made at captures (10 bytes, `Copy`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IkibuguzoMove {
    first: u8,
    len: u8,
    choices: [u8; MAX_CHOICES],
}

impl IkibuguzoMove {
    fn play(hole: usize, clockwise: bool) -> Self {
        IkibuguzoMove {
            first: hole as u8 | if clockwise { CW_BIT } else { 0 },
            len: 0,
            choices: [0; MAX_CHOICES],
        }
    }

    /// The hole the turn starts from (loop index).
    pub fn hole(self) -> usize {
        (self.first & 0x0F) as usize
    }

    /// Whether the first play is clockwise.
    pub fn clockwise(self) -> bool {
        self.first & CW_BIT != 0
    }

    /// The choice tokens, in the order of the captures.
    pub fn choices(&self) -> &[u8] {
        &self.choices[..self.len as usize]
    }

    fn with(mut self, choice: u8) -> Self {
        self.choices[self.len as usize] = choice;
        self.len += 1;
        self
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

/// Ikibuguzo (Opening 1) with its options (`end_holes_win`, `max_turns`).
#[derive(Clone, Debug)]
pub struct IkibuguzoGame {
    variant: Variant,
    end_holes_win: bool,
    max_turns: u32,
}

/// The options Ikibuguzo accepts.
pub fn option_specs() -> Vec<OptionSpec> {
    vec![
        OptionSpec::flag(
            "end_holes_win",
            true,
            "capturing both opponent inner-row end holes in one turn wins (seed 002)",
        ),
        OptionSpec::max_turns(),
    ]
}

impl IkibuguzoGame {
    /// The game for `spec` (id `ikibuguzo`).
    pub fn new(spec: &VariantSpec) -> Result<IkibuguzoGame, VariantError> {
        let variant = Variant::resolve(spec, &option_specs())?;
        Ok(IkibuguzoGame {
            end_holes_win: variant.flag("end_holes_win"),
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
            "o1 and i2 may be played clockwise when the lap captures at once; captured counters there \
             may be re-sown clockwise, or kept while the other special hole plays clockwise."
                .to_string(),
            "Capturing everything wins; a player who cannot move loses.".to_string(),
        ];
        if self.end_holes_win {
            out.push("Capturing both opponent inner-row end holes in one turn wins.".to_string());
        }
        out.push(format!(
            "A relay of more than {MAX_LAPS} laps, or {} turns, ends the game; more counters wins.",
            self.max_turns
        ));
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
        if t.theirs.iter().all(|&c| c == 0) {
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

    /// The options after a capture into `capture_hole` [13, 15, 17].
    fn choices(&self, t: &Turn, capture_hole: usize) -> ArrayVec<Choice, { HOLES + 2 }> {
        let mut out = ArrayVec::new();
        out.push(Choice { code: CHOICE_CCW, origin: capture_hole, clockwise: false });
        let cw_resow = SPECIAL.contains(&capture_hole)
            && (t.all_cw || t.cw_laps == 0)
            && lap_captures(&t.mine, &t.theirs, capture_hole, true);
        if cw_resow {
            out.push(Choice { code: CHOICE_CW, origin: capture_hole, clockwise: true });
        }
        if t.all_cw {
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

    /// Appends every way the turn can go on from a lap at `origin`.
    fn enumerate(
        &self,
        mut t: Turn,
        me: Player,
        mut origin: usize,
        mut clockwise: bool,
        mv: IkibuguzoMove,
        out: &mut MoveList<IkibuguzoMove>,
    ) {
        loop {
            if !Self::start_lap(&mut t, clockwise, &mut crate::game::NoTrace) {
                out.push(mv);
                return;
            }
            let last = sow(&mut t.mine, origin, clockwise, None);
            match self.after_lap(&mut t, me, origin, last, &mut crate::game::NoTrace) {
                LapEnd::Over => {
                    out.push(mv);
                    return;
                }
                LapEnd::Relay(hole) => {
                    debug_assert!(!clockwise, "a clockwise lap always captures");
                    origin = hole;
                }
                LapEnd::Captured => {
                    let options = self.choices(&t, origin);
                    if options.len() == 1 {
                        clockwise = false;
                        continue;
                    }
                    for c in options {
                        let mut branch = t;
                        branch.kept |= c.code & (CHOICE_KEEP_CW | CHOICE_KEEP_CCW) != 0;
                        self.enumerate(branch, me, c.origin, c.clockwise, mv.with(c.code), out);
                    }
                    return;
                }
            }
        }
    }

    /// Plays the move's turn; `Err` names the first point where the move does not fit the turn.
    fn replay<T: Trace>(
        &self,
        pos: &IkibuguzoPosition,
        mv: IkibuguzoMove,
        trace: &mut T,
    ) -> Result<Turn, IllegalMove> {
        let me = pos.to_move;
        let mut t = Turn::new(pos);
        let mut origin = mv.hole();
        let mut clockwise = mv.clockwise();
        let mut used = 0usize;
        let base = 16 * me.index() as u8;
        loop {
            if !Self::start_lap(&mut t, clockwise, trace) {
                break;
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
            match self.after_lap(&mut t, me, origin, last, trace) {
                LapEnd::Over => break,
                LapEnd::Relay(hole) => origin = hole,
                LapEnd::Captured => {
                    let options = self.choices(&t, origin);
                    if options.len() == 1 {
                        clockwise = false;
                        continue;
                    }
                    let Some(&code) = mv.choices().get(used) else {
                        return Err(IllegalMove::new(
                            "choice_missing",
                            format!(
                                "after capture into {} the move must say how to go on: {}",
                                label(origin),
                                options.iter().map(|c| choice_text(c.code)).collect::<Vec<_>>().join(", ")
                            ),
                        ));
                    };
                    used += 1;
                    let Some(c) = options.iter().find(|c| c.code == code) else {
                        return Err(IllegalMove::new(
                            "choice_unavailable",
                            format!(
                                "{} is not possible after the capture into {}; the options are {}",
                                choice_text(code),
                                label(origin),
                                options.iter().map(|c| choice_text(c.code)).collect::<Vec<_>>().join(", ")
                            ),
                        ));
                    };
                    if code & (CHOICE_KEEP_CW | CHOICE_KEEP_CCW) != 0 {
                        t.kept = true;
                        if T::ENABLED {
                            trace.push(Event::Note { name: "keep", player: Some(me) });
                        }
                    }
                    origin = c.origin;
                    clockwise = c.clockwise;
                }
            }
        }
        if used < mv.choices().len() {
            return Err(IllegalMove::new(
                "choice_extra",
                format!("the turn ends before the choice {}", choice_text(mv.choices()[used])),
            ));
        }
        Ok(t)
    }

    /// Why the first play of `mv` is not possible, if it is not.
    fn check_first_play(&self, pos: &IkibuguzoPosition, mv: IkibuguzoMove) -> Result<(), IllegalMove> {
        let mine = &pos.loops[pos.to_move.index()];
        let theirs = &pos.loops[pos.to_move.other().index()];
        let hole = mv.hole();
        if pos.opening > 0 {
            let scripted = OPENING_HOLES[((OPENING_TURNS - pos.opening) / 2) as usize];
            if hole != scripted || mv.clockwise() || mv.len != 0 {
                return Err(IllegalMove::new(
                    "opening",
                    format!("the opening is scripted: this turn plays {}", label(scripted)),
                ));
            }
            return Ok(());
        }
        if mine[hole] < 2 {
            return Err(IllegalMove::new(
                if mine[hole] == 0 { "empty_hole" } else { "singleton" },
                format!("{} holds {}; a turn starts from a hole of 2 or more", label(hole), mine[hole]),
            ));
        }
        if mv.clockwise() {
            if !SPECIAL.contains(&hole) {
                return Err(IllegalMove::new("cw_not_special", "only o1 and i2 can be played clockwise"));
            }
            if !lap_captures(mine, theirs, hole, true) {
                return Err(IllegalMove::new(
                    "cw_no_capture",
                    format!("{} can be played clockwise only when that lap captures", label(hole)),
                ));
            }
        }
        Ok(())
    }

    fn finish(&self, pos: &IkibuguzoPosition, t: &Turn) -> IkibuguzoPosition {
        let me = pos.to_move;
        let mut p = *pos;
        p.loops[me.index()] = t.mine;
        p.loops[me.other().index()] = t.theirs;
        p.flags = if t.won {
            if me == Player::South {
                FLAG_WIN_SOUTH
            } else {
                FLAG_WIN_NORTH
            }
        } else if t.cut {
            FLAG_CYCLE
        } else {
            0
        };
        p.to_move = me.other();
        p.turns = p.turns.saturating_add(1);
        p.opening = p.opening.saturating_sub(1);
        p
    }

    fn has_move(&self, pos: &IkibuguzoPosition) -> bool {
        pos.opening > 0 || pos.loops[pos.to_move.index()].iter().any(|&c| c >= 2)
    }
}

fn choice_text(code: u8) -> String {
    match code {
        CHOICE_CCW => "ccw".into(),
        CHOICE_CW => "cw".into(),
        c if c & CHOICE_KEEP_CW != 0 => format!("keep+{}:cw", label((c & 0x0F) as usize)),
        c => format!("keep+{}", label((c & 0x0F) as usize)),
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
        }
    }

    fn side_to_move(&self, pos: &IkibuguzoPosition) -> Player {
        pos.to_move
    }

    fn turns(&self, pos: &IkibuguzoPosition) -> u32 {
        pos.turns
    }

    fn legal_moves(&self, pos: &IkibuguzoPosition, moves: &mut MoveList<IkibuguzoMove>) {
        if self.outcome(pos).is_some() {
            return;
        }
        if pos.opening > 0 {
            moves.push(IkibuguzoMove::play(
                OPENING_HOLES[((OPENING_TURNS - pos.opening) / 2) as usize],
                false,
            ));
            return;
        }
        let me = pos.to_move;
        let mine = &pos.loops[me.index()];
        let theirs = &pos.loops[me.other().index()];
        for hole in 0..HOLES {
            if mine[hole] < 2 {
                continue;
            }
            self.enumerate(Turn::new(pos), me, hole, false, IkibuguzoMove::play(hole, false), moves);
            if SPECIAL.contains(&hole) && lap_captures(mine, theirs, hole, true) {
                self.enumerate(Turn::new(pos), me, hole, true, IkibuguzoMove::play(hole, true), moves);
            }
        }
    }

    fn play_traced<T: Trace>(
        &self,
        pos: &IkibuguzoPosition,
        mv: IkibuguzoMove,
        trace: &mut T,
    ) -> IkibuguzoPosition {
        if pos.opening > 0 {
            let me = pos.to_move;
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
            return self.finish(pos, &t);
        }
        match self.replay(pos, mv, trace) {
            Ok(t) => self.finish(pos, &t),
            Err(e) => panic!("play_traced: illegal move {}: {}", self.format_move(pos, mv), e.message),
        }
    }

    fn outcome(&self, pos: &IkibuguzoPosition) -> Option<Outcome> {
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
        let tail = pos.to_move as u64 | (pos.opening as u64) << 8 | (pos.flags as u64) << 16;
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
    }

    fn format_body(&self, pos: &IkibuguzoPosition) -> String {
        let row = |l: &[u8; HOLES]| l.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",");
        let flags = match pos.flags {
            FLAG_WIN_SOUTH => "win=S",
            FLAG_WIN_NORTH => "win=N",
            FLAG_CYCLE => "cycle",
            _ => "-",
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
        let to_move =
            Player::from_letter(fields[1]).ok_or_else(|| f(1, format!("{:?} is not S or N", fields[1])))?;
        let turns: u32 =
            fields[2].parse().map_err(|_| f(2, format!("{:?} is not a number of turns", fields[2])))?;
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
        let flags = match fields[4] {
            "-" => 0,
            "win=S" => FLAG_WIN_SOUTH,
            "win=N" => FLAG_WIN_NORTH,
            "cycle" => FLAG_CYCLE,
            other => return Err(f(4, format!("{other:?} is not one of -, win=S, win=N, cycle"))),
        };
        if flags != 0 && opening > 0 {
            return Err(f(4, "no flag can be set during the opening".into()));
        }
        if matches!(flags, FLAG_WIN_SOUTH | FLAG_WIN_NORTH) && !self.end_holes_win {
            return Err(f(4, "a win flag but this variant has end_holes_win=false".into()));
        }
        Ok(IkibuguzoPosition { loops, turns, to_move, opening, flags })
    }

    fn format_move(&self, _pos: &IkibuguzoPosition, mv: IkibuguzoMove) -> String {
        let mut out = label(mv.hole());
        if mv.clockwise() {
            out.push_str(":cw");
        }
        for &c in mv.choices() {
            out.push('+');
            out.push_str(&choice_text(c));
        }
        out
    }

    fn parse_move(&self, _pos: &IkibuguzoPosition, text: &str) -> Result<IkibuguzoMove, NotationError> {
        let text = text.trim();
        let bad = |m: String| NotationError::new(format!("{text:?}: {m}"));
        let hole_of = |s: &str| -> Result<(usize, bool), NotationError> {
            let (l, cw) = match s.strip_suffix(":cw") {
                Some(l) => (l, true),
                None => (s, false),
            };
            let hole = parse_label(l).ok_or_else(|| bad(format!("{l:?} is not a hole (o1..o8, i1..i8)")))?;
            Ok((hole, cw))
        };
        let mut parts = text.split('+');
        let (hole, cw) = hole_of(parts.next().unwrap_or(""))?;
        let mut mv = IkibuguzoMove::play(hole, cw);
        while let Some(part) = parts.next() {
            let code = match part {
                "ccw" => CHOICE_CCW,
                "cw" => CHOICE_CW,
                "keep" => {
                    let next =
                        parts.next().ok_or_else(|| bad("keep needs a hole: keep+o1:cw, keep+o5".into()))?;
                    let (h, cw) = hole_of(next)?;
                    if cw {
                        CHOICE_KEEP_CW | h as u8
                    } else {
                        CHOICE_KEEP_CCW | h as u8
                    }
                }
                other => {
                    return Err(bad(format!(
                        "{other:?} is not a choice (ccw, cw, keep+<hole>, keep+<hole>:cw)"
                    )))
                }
            };
            if mv.len as usize == MAX_CHOICES {
                return Err(bad(format!("a turn makes at most {MAX_CHOICES} choices (one per capture)")));
            }
            mv = mv.with(code);
        }
        Ok(mv)
    }

    fn check_move(&self, pos: &IkibuguzoPosition, mv: IkibuguzoMove) -> Result<(), IllegalMove> {
        if self.outcome(pos).is_some() {
            return Err(IllegalMove::new("game_over", "the game is over"));
        }
        self.check_first_play(pos, mv)?;
        if pos.opening > 0 {
            return Ok(());
        }
        self.replay(pos, mv, &mut crate::game::NoTrace).map(|_| ())
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
