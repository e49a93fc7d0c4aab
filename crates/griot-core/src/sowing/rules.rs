//! The rule language of two-row sowing games: a typed, validated [`RuleSet`] read from a TOML rule
//! file. It speaks the parameter language of the Guillions' Awale rule book (1996-1997: seeds per hole,
//! playable holes, minimum seeds to play, leave one behind, origin skipped on a full lap, multiple
//! sowing and its end values, flow capture, capture values / territory / target, chaining of
//! previous holes, starving, grand slam, game end, pass or end when stuck, who takes the remaining
//! seeds), plus what `docs/rules/awale-collection.md` asks the language to express as well (grand slam illegal, first
//! seed back into the origin, clockwise or chosen direction, capture of the hole after the last,
//! forward chains, holes skipped above a count, the end when every hole holds at most one seed or
//! a store passes a threshold, scoring of stores only or stores plus own row).
//!
//! `docs/RULE_FILES.md` documents every field. A bad file gets a [`VariantError::RuleFile`] naming
//! the field (`capture.values`) and the reason.

use toml::{Table, Value};

use crate::error::VariantError;

/// Most holes a row may have.
pub const MAX_HOLES_PER_ROW: usize = 18;
/// Most seeds a board may hold in all (positions store counts in bytes).
pub const MAX_TOTAL_SEEDS: u32 = 255;

/// A set of seed counts (0..=255), e.g. {2, 3} or "even".
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct CountSet([u64; 4]);

impl CountSet {
    /// The empty set.
    pub const EMPTY: CountSet = CountSet([0; 4]);

    /// Whether `count` is in the set.
    #[inline(always)]
    pub fn contains(&self, count: u8) -> bool {
        (self.0[(count >> 6) as usize] >> (count & 63)) & 1 == 1
    }

    /// Adds `count`.
    pub fn insert(&mut self, count: u8) {
        self.0[(count >> 6) as usize] |= 1 << (count & 63);
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    /// A readable description: `2, 3`, `1..48`, `even`.
    pub fn describe(&self) -> String {
        let members: Vec<u32> = (0..=255u32).filter(|&c| self.contains(c as u8)).collect();
        let evens: Vec<u32> = (2..=254u32).step_by(2).collect();
        if members == evens {
            return "even".into();
        }
        let odds: Vec<u32> = (1..=255u32).step_by(2).collect();
        if members == odds {
            return "odd".into();
        }
        let mut parts = Vec::new();
        let mut i = 0;
        while i < members.len() {
            let mut j = i;
            while j + 1 < members.len() && members[j + 1] == members[j] + 1 {
                j += 1;
            }
            if j >= i + 2 {
                parts.push(format!("{}..{}", members[i], members[j]));
            } else {
                for m in &members[i..=j] {
                    parts.push(m.to_string());
                }
            }
            i = j + 1;
        }
        parts.join(", ")
    }
}

/// Whose holes a rule is about, relative to the player making the move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Territory {
    /// The mover's row.
    Own,
    /// The opponent's row.
    Opponent,
    /// Either row.
    Any,
}

/// Which holes a player may sow from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Playable {
    /// Holes of the player's own row.
    Own,
    /// Any hole on the board (Nyakun).
    Any,
}

/// The direction of sowing.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Counter-clockwise: along South's row left to right, then North's row.
    Ccw,
    /// Clockwise.
    Cw,
    /// The player chooses for each move.
    Choice,
}

/// When a multiple (relay) sowing goes on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RelayMode {
    /// The sowing ends when the last seed makes the hole one of the values (in the territory);
    /// otherwise the player lifts the hole and sows on.
    EndsOn,
    /// The sowing goes on only when the last seed makes the hole one of the values (in the
    /// territory); otherwise it ends.
    ContinuesOn,
}

/// Multiple sowing.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Relay {
    /// Whether the values end or continue the sowing.
    pub mode: RelayMode,
    /// The counts that end (or continue) the sowing.
    pub values: CountSet,
    /// Where those counts count.
    pub territory: Territory,
    /// The counts that end (or continue) the sowing when the last hole is in the mover's own row,
    /// if they differ from `values` (which then count in the opponent's row).
    pub own_values: Option<CountSet>,
}

/// Who takes a flow capture.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FlowTaker {
    /// "For the player as well as his opponent ... only into his own territory": each player takes
    /// the matching holes of their own row.
    Owner,
    /// "For the player only ... only into his opponent's territory": the mover takes the matching
    /// holes of the opponent's row.
    MoverOnOpponentSide,
}

/// Flow capture: holes reached during the sowing, other than the last hole of a lap.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Flow {
    /// The counts that are captured.
    pub values: CountSet,
    /// Who takes them.
    pub taker: FlowTaker,
}

/// Which hole a capture takes, given the hole that matched.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// The hole itself.
    Reached,
    /// The hole opposite it.
    Opposite,
    /// The hole and the hole opposite it.
    ReachedAndOpposite,
    /// The hole after it in the sowing direction.
    Next,
    /// The hole and each of its two immediate neighbours in its row that holds one of the capture
    /// values (no chain beyond them): Érhérhé's capture (Avelot 1906, as Ludii gives it).
    ReachedAndNeighbours,
}

/// Which way the capture chain walks from the last hole.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Chain {
    /// No chain: only the last hole.
    None,
    /// Previous holes (against the sowing direction).
    Backward,
    /// Following holes (in the sowing direction).
    Forward,
}

/// Whether the capture chain may take the final lap's origin hole.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ChainOrigin {
    /// The chain may take the origin hole (and never goes past it).
    MayTake,
    /// The chain stops before the origin hole.
    StopsBefore,
    /// The chain goes on past the origin hole, once round the board at most (Ludii's Adjiboto).
    GoesPast,
}

/// Which hole's count a capture judges.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum JudgedHole {
    /// The last hole sown.
    Last,
    /// The hole after the last hole in the sowing direction (Ludii's Adjiboto), on its own count.
    AfterLast,
}

/// What happens when a capture would take every seed of the opponent's row.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GrandSlam {
    /// The capture is made.
    Allowed,
    /// "The capture isn't performed at all": the move stands and captures nothing.
    NoCapture,
    /// "The last hole isn't captured": only the last hole is spared.
    SpareLast,
    /// The move is illegal.
    Illegal,
}

/// The capture at the end of the sowing.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Capture {
    /// Counts that capture.
    pub values: CountSet,
    /// Where the last hole must be.
    pub territory: Territory,
    /// What is taken.
    pub target: Target,
    /// The chain of further holes.
    pub chain: Chain,
    /// Whether the chain may cross from one row to the other.
    pub chain_crosses: bool,
    /// Whether the chain may take the final lap's origin hole.
    pub chain_origin: ChainOrigin,
    /// The chain takes at most this many holes after the last hole.
    pub chain_max: Option<u8>,
    /// Which hole's count is judged: the capture, its target and its chain start from it.
    pub judged: JudgedHole,
    /// The grand-slam rule.
    pub grand_slam: GrandSlam,
}

/// Moves that leave the opponent without seeds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Starving {
    /// No rule.
    Allowed,
    /// "If possible, the player must not starve his opponent."
    Avoid,
    /// "The player isn't allowed to starve his opponent."
    Forbidden,
    /// When the opponent's row is empty, only moves that give them seeds are legal (abapa, Leb
    /// Bbut Ahbochen); with none, the player cannot move.
    MustFeed,
}

/// When the starving rule is judged.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Judged {
    /// On the position after the whole turn.
    Turn,
    /// After every lap as well: a move whose first lap leaves the opponent no seed starves; a later
    /// lap that would is not sown (the turn ends with the lap before it).
    Lap,
}

/// With legality judged per lap: what a later lap that would leave the opponent no seed does.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LapCut {
    /// The lap is not sown and the turn ends with the lap before it; the final capture is judged
    /// with the whole turn.
    TurnEnds,
    /// The lap, its capture included, is not sown, and the game ends after the lap before it
    /// (Ludii's J'odu and Wouri: the mover, who must sow on, has no lap left).
    GameEnds,
}

/// What happens when the player to move cannot play.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stuck {
    /// The game ends.
    Ends,
    /// The player misses the turn (the move `pass`); the game ends when neither can play.
    Pass,
}

/// The result when the game ends because the player to move cannot play.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum StuckResult {
    /// The scores decide (after the remaining seeds are shared out).
    Scores,
    /// A draw.
    Draw,
    /// The player who moved last wins if the stuck player has captured fewer seeds than the
    /// threshold; otherwise a draw.
    MoverWinsBelow(Threshold),
}

/// A seed count that may depend on the board the options give.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Threshold {
    /// A fixed count.
    Seeds(u16),
    /// The seeds of one row at the start (holes x seeds).
    StartRow,
}

impl Threshold {
    /// The count on a board of `holes` per row with `seeds` per hole.
    pub fn count(self, holes: u8, seeds: u8) -> u32 {
        match self {
            Threshold::Seeds(n) => n as u32,
            Threshold::StartRow => holes as u32 * seeds as u32,
        }
    }
}

/// The result when neither player can play.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum NeitherCanMove {
    /// As [`End::stuck_result`] says.
    AsStuck,
    /// A draw: in a `pass` game, when both players pass in turn; otherwise when both are stuck.
    Draw,
}

/// Conditions ending the game, checked before every turn.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct End {
    /// Stuck rule.
    pub stuck: Stuck,
    /// The game ends when the board is empty.
    pub board_empty: bool,
    /// The game ends when fewer than this many seeds are left on the board.
    pub fewer_than: Option<u16>,
    /// The game ends when a player has captured more than this many seeds.
    pub store_above: Option<u16>,
    /// The game ends when every hole holds at most one seed.
    pub all_singletons: bool,
    /// The result when the player to move cannot play.
    pub stuck_result: StuckResult,
    /// The result when neither player can play.
    pub neither_can_move: NeitherCanMove,
}

/// Rules that hold only for the first turns of a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Opening {
    /// Each player must sow each of their own holes once before sowing any hole a second time.
    pub each_hole_once: bool,
    /// The first this-many turns of the game capture nothing.
    pub no_capture_turns: u8,
}

impl Opening {
    /// Whether any opening rule is set.
    pub fn any(&self) -> bool {
        self.each_hole_once || self.no_capture_turns > 0
    }
}

/// The most holes a row may have with `opening.each_hole_once` (the holes still to sow are one
/// bit a hole in a 32-bit word).
pub const MAX_HOLES_WITH_MARKS: usize = 16;

/// What the holes a player leaves empty at a refill are for the next round.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EmptyHoles {
    /// Out of play for the round: the sowing skips them and no capture takes them.
    OutOfPlay,
    /// In play: sown into like any other hole.
    InPlay,
}

/// A match of rounds (`[rounds]`): the round ends after a move that leaves either row empty, each
/// player taking the seeds of their own row; then the players refill their rows from their stores.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rounds {
    /// A player holding fewer seeds than this when a round ends loses the match (1: an empty
    /// store).
    pub lose_below: u8,
    /// Seeds a player puts into their leftmost empty hole a refill turn (what is left, if fewer).
    pub refill_seeds: u8,
    /// What the holes left empty at the refill are for the round.
    pub empty_holes: EmptyHoles,
}

/// Who takes the seeds left on the board when the game ends.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Remaining {
    /// Each player takes the seeds in their own row.
    OwnRow,
    /// The player who made the last move takes them all.
    LastMover,
    /// The player who made the last capture takes them all (each their own row if nobody captured).
    LastCapturer,
    /// The player who is not stuck takes them all; if both are stuck, the last mover.
    NotStuckElseLastMover,
    /// The player who is not stuck takes them all; if both are stuck, each their own row.
    NotStuckElseOwnRow,
    /// When the player to move cannot move, the opponent takes them all; otherwise each their own.
    OpponentOfStuck,
    /// Nobody: they are not counted.
    Nobody,
}

/// What decides the winner.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Scoring {
    /// Captured seeds only.
    Store,
    /// Captured seeds plus those left in the player's own row.
    StoreAndRow,
}

/// A complete, validated rule set of a two-row sowing game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSet {
    /// The variant id (the slug of its name).
    pub id: String,
    /// The display name.
    pub name: String,
    /// A paragraph about the game.
    pub description: String,
    /// Where the rules come from.
    pub source: String,
    /// Default holes per row.
    pub holes: u8,
    /// Default seeds per hole.
    pub seeds: u8,
    /// The only board sizes allowed, if restricted.
    pub allowed_holes: Option<Vec<u8>>,
    /// Which holes may be played.
    pub playable: Playable,
    /// A hole must hold at least this many seeds to be played.
    pub min_seeds: u8,
    /// One seed stays in the hole when it is lifted.
    pub leave_one: bool,
    /// The origin hole of a lap is skipped when the lap goes round the board.
    pub skip_origin: bool,
    /// The first seed goes back into the origin hole.
    pub first_into_origin: bool,
    /// The sowing direction.
    pub direction: Direction,
    /// Holes holding more than this are skipped by the sowing.
    pub skip_above: Option<u8>,
    /// Multiple sowing.
    pub relay: Option<Relay>,
    /// Flow capture.
    pub flow: Option<Flow>,
    /// The capture at the end of the sowing.
    pub capture: Option<Capture>,
    /// The starving rule.
    pub starving: Starving,
    /// When the starving rule is judged.
    pub starving_judged: Judged,
    /// With legality judged per lap: what a later lap that would starve does.
    pub starving_lap_cut: LapCut,
    /// Rules of the first turns.
    pub opening: Opening,
    /// A match of rounds, if the game is played in rounds.
    pub rounds: Option<Rounds>,
    /// The end of the game.
    pub end: End,
    /// Who takes the remaining seeds at the end.
    pub remaining: Remaining,
    /// Who takes the seeds on the board after an endless cycle.
    pub endless: Remaining,
    /// What decides the winner.
    pub scoring: Scoring,
}

fn err(field: &str, message: impl Into<String>) -> VariantError {
    VariantError::RuleFile { field: field.to_string(), message: message.into() }
}

/// Reads typed fields from one TOML table, remembering which keys were used so unknown keys
/// are reported.
struct Section<'a> {
    name: &'a str,
    table: Option<&'a Table>,
    used: Vec<&'static str>,
}

impl<'a> Section<'a> {
    fn new(name: &'a str, table: Option<&'a Table>) -> Self {
        Section { name, table, used: Vec::new() }
    }

    fn path(&self, key: &str) -> String {
        if self.name.is_empty() {
            key.to_string()
        } else {
            format!("{}.{}", self.name, key)
        }
    }

    fn get(&mut self, key: &'static str) -> Option<&'a Value> {
        self.used.push(key);
        self.table.and_then(|t| t.get(key))
    }

    fn present(&self) -> bool {
        self.table.is_some()
    }

    fn string(&mut self, key: &'static str) -> Result<Option<String>, VariantError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(err(&self.path(key), format!("expected a string, found {}", v.type_str()))),
        }
    }

    fn boolean(&mut self, key: &'static str, default: bool) -> Result<bool, VariantError> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Boolean(b)) => Ok(*b),
            Some(v) => Err(err(&self.path(key), format!("expected true or false, found {}", v.type_str()))),
        }
    }

    fn int(&mut self, key: &'static str, lo: i64, hi: i64) -> Result<Option<i64>, VariantError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Integer(i)) if (lo..=hi).contains(i) => Ok(Some(*i)),
            Some(Value::Integer(i)) => Err(err(&self.path(key), format!("{i} is outside {lo}..={hi}"))),
            Some(v) => Err(err(&self.path(key), format!("expected an integer, found {}", v.type_str()))),
        }
    }

    fn word<T: Copy>(&mut self, key: &'static str, choices: &[(&str, T)]) -> Result<Option<T>, VariantError> {
        let Some(s) = self.string(key)? else {
            return Ok(None);
        };
        choices.iter().find(|(w, _)| *w == s).map(|(_, t)| Some(*t)).ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(w, _)| *w).collect();
            err(&self.path(key), format!("{s:?} is not one of {}", names.join(", ")))
        })
    }

    fn counts(&mut self, key: &'static str) -> Result<Option<CountSet>, VariantError> {
        let path = self.path(key);
        match self.get(key) {
            None => Ok(None),
            Some(v) => parse_counts(v, &path).map(Some),
        }
    }

    fn finish(self) -> Result<(), VariantError> {
        if let Some(t) = self.table {
            for k in t.keys() {
                if !self.used.iter().any(|u| u == k) {
                    return Err(err(
                        &self.path(k),
                        format!("unknown field (known: {})", self.used.join(", ")),
                    ));
                }
            }
        }
        Ok(())
    }
}

fn parse_count_item(item: &Value, path: &str, set: &mut CountSet) -> Result<(), VariantError> {
    match item {
        Value::Integer(i) if (0..=255).contains(i) => {
            set.insert(*i as u8);
            Ok(())
        }
        Value::Integer(i) => Err(err(path, format!("count {i} is outside 0..=255"))),
        Value::String(s) => {
            let s = s.trim();
            match s {
                "even" => (2..=254u16).step_by(2).for_each(|c| set.insert(c as u8)),
                "odd" => (1..=255u16).step_by(2).for_each(|c| set.insert(c as u8)),
                _ => {
                    let (a, b) = s.split_once("..").ok_or_else(|| {
                        err(
                            path,
                            format!("{s:?} is not a count, a range like \"1..48\", \"even\" or \"odd\""),
                        )
                    })?;
                    let lo: u16 = a.trim().parse().map_err(|_| err(path, format!("{a:?} is not a count")))?;
                    let hi: u16 = if b.trim().is_empty() {
                        255
                    } else {
                        b.trim().parse().map_err(|_| err(path, format!("{b:?} is not a count")))?
                    };
                    if lo > hi || hi > 255 {
                        return Err(err(path, format!("range {s:?} is empty or goes past 255")));
                    }
                    (lo..=hi).for_each(|c| set.insert(c as u8));
                }
            }
            Ok(())
        }
        v => Err(err(path, format!("expected counts, found {}", v.type_str()))),
    }
}

fn parse_counts(v: &Value, path: &str) -> Result<CountSet, VariantError> {
    let mut set = CountSet::EMPTY;
    match v {
        Value::Array(items) => {
            for item in items {
                parse_count_item(item, path, &mut set)?;
            }
        }
        other => parse_count_item(other, path, &mut set)?,
    }
    if set.is_empty() {
        return Err(err(path, "the set of counts is empty"));
    }
    Ok(set)
}

const TERRITORIES: [(&str, Territory); 3] =
    [("own", Territory::Own), ("opponent", Territory::Opponent), ("any", Territory::Any)];

const REMAINING: [(&str, Remaining); 7] = [
    ("own-row", Remaining::OwnRow),
    ("last-mover", Remaining::LastMover),
    ("last-capturer", Remaining::LastCapturer),
    ("not-stuck-else-last-mover", Remaining::NotStuckElseLastMover),
    ("not-stuck-else-own-row", Remaining::NotStuckElseOwnRow),
    ("opponent-of-stuck", Remaining::OpponentOfStuck),
    ("nobody", Remaining::Nobody),
];

fn sub_table<'a>(root: &'a Table, key: &str) -> Result<Option<&'a Table>, VariantError> {
    match root.get(key) {
        None => Ok(None),
        Some(Value::Table(t)) => Ok(Some(t)),
        Some(v) => Err(err(key, format!("expected a table [{key}], found {}", v.type_str()))),
    }
}

impl RuleSet {
    /// Parses and validates a rule file's text.
    pub fn from_toml(text: &str) -> Result<RuleSet, VariantError> {
        let root: Table = text.parse().map_err(|e: toml::de::Error| {
            let field = e.span().map(|s| line_col(text, s.start)).unwrap_or_else(|| "file".into());
            err(&field, e.message().to_string())
        })?;
        const SECTIONS: [&str; 11] = [
            "board",
            "opening",
            "rounds",
            "sowing",
            "relay",
            "flow_capture",
            "capture",
            "starving",
            "end",
            "remaining",
            "scoring",
        ];

        let mut top = Section::new("", Some(&root));
        let id = top.string("id")?.ok_or_else(|| err("id", "missing: every rule file needs an id"))?;
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') {
            return Err(err("id", format!("{id:?} must be lower-case letters, digits and '-'")));
        }
        let name = top.string("name")?.unwrap_or_else(|| id.clone());
        let description = top.string("description")?.unwrap_or_default();
        let source = top.string("source")?.unwrap_or_default();
        for s in SECTIONS {
            top.get(s);
        }
        top.finish()?;

        let mut board = Section::new("board", sub_table(&root, "board")?);
        let holes = board.int("holes", 1, MAX_HOLES_PER_ROW as i64)?.unwrap_or(6) as u8;
        let seeds = board.int("seeds", 1, 255)?.unwrap_or(4) as u8;
        let allowed_holes = match board.get("allowed_holes") {
            None => None,
            Some(Value::Array(items)) => {
                let mut out = Vec::new();
                for it in items {
                    match it {
                        Value::Integer(i) if (1..=MAX_HOLES_PER_ROW as i64).contains(i) => out.push(*i as u8),
                        _ => return Err(err("board.allowed_holes", "expected integers from 1 to 18")),
                    }
                }
                if !out.contains(&holes) {
                    return Err(err("board.allowed_holes", format!("does not contain the default {holes}")));
                }
                Some(out)
            }
            Some(_) => return Err(err("board.allowed_holes", "expected an array of integers")),
        };
        board.finish()?;

        let mut sowing = Section::new("sowing", sub_table(&root, "sowing")?);
        let playable = sowing
            .word("playable", &[("own", Playable::Own), ("any", Playable::Any)])?
            .unwrap_or(Playable::Own);
        let min_seeds = sowing.int("min_seeds", 1, 255)?.unwrap_or(1) as u8;
        let leave_one = sowing.boolean("leave_one", false)?;
        let skip_origin = sowing.boolean("skip_origin", false)?;
        let first_into_origin = sowing.boolean("first_into_origin", false)?;
        let direction = sowing
            .word(
                "direction",
                &[("ccw", Direction::Ccw), ("cw", Direction::Cw), ("choice", Direction::Choice)],
            )?
            .unwrap_or(Direction::Ccw);
        let skip_above = sowing.int("skip_above", 1, 254)?.map(|v| v as u8);
        sowing.finish()?;
        if leave_one && min_seeds < 2 {
            return Err(err("sowing.min_seeds", "must be at least 2 when sowing.leave_one is true"));
        }
        if first_into_origin && skip_origin {
            return Err(err("sowing.first_into_origin", "cannot be combined with sowing.skip_origin"));
        }

        let mut relay_s = Section::new("relay", sub_table(&root, "relay")?);
        let relay = if relay_s.present() {
            let mode = relay_s
                .word("mode", &[("ends-on", RelayMode::EndsOn), ("continues-on", RelayMode::ContinuesOn)])?
                .ok_or_else(|| err("relay.mode", "missing: \"ends-on\" or \"continues-on\""))?;
            let values = relay_s.counts("values")?.ok_or_else(|| err("relay.values", "missing"))?;
            let territory = relay_s.word("territory", &TERRITORIES)?.unwrap_or(Territory::Any);
            let own_values = relay_s.counts("own_values")?;
            if own_values.is_some() && territory != Territory::Any {
                return Err(err(
                    "relay.own_values",
                    "needs relay.territory = \"any\" (values then count in the opponent's row)",
                ));
            }
            Some(Relay { mode, values, territory, own_values })
        } else {
            None
        };
        relay_s.finish()?;

        let mut flow_s = Section::new("flow_capture", sub_table(&root, "flow_capture")?);
        let flow = if flow_s.present() {
            let values = flow_s.counts("values")?.ok_or_else(|| err("flow_capture.values", "missing"))?;
            let taker = flow_s
                .word(
                    "taker",
                    &[
                        ("owner", FlowTaker::Owner),
                        ("mover-on-opponent-side", FlowTaker::MoverOnOpponentSide),
                    ],
                )?
                .ok_or_else(|| {
                    err("flow_capture.taker", "missing: \"owner\" or \"mover-on-opponent-side\"")
                })?;
            Some(Flow { values, taker })
        } else {
            None
        };
        flow_s.finish()?;

        let mut cap_s = Section::new("capture", sub_table(&root, "capture")?);
        let capture = if cap_s.present() {
            let values = cap_s.counts("values")?.ok_or_else(|| err("capture.values", "missing"))?;
            let territory = cap_s
                .word("territory", &TERRITORIES)?
                .ok_or_else(|| err("capture.territory", "missing: \"own\", \"opponent\" or \"any\""))?;
            let target = cap_s
                .word(
                    "target",
                    &[
                        ("reached", Target::Reached),
                        ("opposite", Target::Opposite),
                        ("reached-and-opposite", Target::ReachedAndOpposite),
                        ("next", Target::Next),
                        ("reached-and-neighbours", Target::ReachedAndNeighbours),
                    ],
                )?
                .unwrap_or(Target::Reached);
            let chain = cap_s
                .word(
                    "chain",
                    &[("none", Chain::None), ("backward", Chain::Backward), ("forward", Chain::Forward)],
                )?
                .unwrap_or(Chain::None);
            let chain_crosses = cap_s.boolean("chain_crosses", false)?;
            let chain_origin = cap_s
                .word(
                    "chain_origin",
                    &[
                        ("may-take", ChainOrigin::MayTake),
                        ("stops-before", ChainOrigin::StopsBefore),
                        ("goes-past", ChainOrigin::GoesPast),
                    ],
                )?
                .unwrap_or(ChainOrigin::MayTake);
            let chain_max = cap_s.int("chain_max", 1, MAX_HOLES_PER_ROW as i64 * 2)?.map(|v| v as u8);
            let judged = cap_s
                .word("judged", &[("last", JudgedHole::Last), ("after-last", JudgedHole::AfterLast)])?
                .unwrap_or(JudgedHole::Last);
            if chain == Chain::None && (chain_max.is_some() || chain_origin != ChainOrigin::MayTake) {
                let field = if chain_max.is_some() { "capture.chain_max" } else { "capture.chain_origin" };
                return Err(err(field, "needs a chain: capture.chain is \"none\""));
            }
            if target == Target::ReachedAndNeighbours && chain != Chain::None {
                return Err(err(
                    "capture.target",
                    "\"reached-and-neighbours\" takes the neighbours only: it needs capture.chain = \"none\"",
                ));
            }
            let grand_slam = cap_s
                .word(
                    "grand_slam",
                    &[
                        ("allowed", GrandSlam::Allowed),
                        ("no-capture", GrandSlam::NoCapture),
                        ("spare-last", GrandSlam::SpareLast),
                        ("illegal", GrandSlam::Illegal),
                    ],
                )?
                .unwrap_or(GrandSlam::Allowed);
            Some(Capture {
                values,
                territory,
                target,
                chain,
                chain_crosses,
                chain_origin,
                chain_max,
                judged,
                grand_slam,
            })
        } else {
            None
        };
        cap_s.finish()?;

        let mut starve_s = Section::new("starving", sub_table(&root, "starving")?);
        let starving = starve_s
            .word(
                "rule",
                &[
                    ("allowed", Starving::Allowed),
                    ("avoid", Starving::Avoid),
                    ("forbidden", Starving::Forbidden),
                    ("must-feed", Starving::MustFeed),
                ],
            )?
            .unwrap_or(Starving::Allowed);
        let starving_judged =
            starve_s.word("judged", &[("turn", Judged::Turn), ("lap", Judged::Lap)])?.unwrap_or(Judged::Turn);
        let starving_lap_cut = starve_s
            .word("lap_cut", &[("turn-ends", LapCut::TurnEnds), ("game-ends", LapCut::GameEnds)])?
            .unwrap_or(LapCut::TurnEnds);
        starve_s.finish()?;
        if starving_judged == Judged::Lap && starving == Starving::Allowed {
            return Err(err("starving.judged", "\"lap\" needs a starving.rule other than \"allowed\""));
        }
        if starving_lap_cut == LapCut::GameEnds && starving_judged != Judged::Lap {
            return Err(err("starving.lap_cut", "\"game-ends\" needs starving.judged = \"lap\""));
        }

        let mut open_s = Section::new("opening", sub_table(&root, "opening")?);
        let opening = Opening {
            each_hole_once: open_s.boolean("each_hole_once", false)?,
            no_capture_turns: open_s.int("no_capture_turns", 0, 100)?.unwrap_or(0) as u8,
        };
        open_s.finish()?;
        if opening.each_hole_once && holes as usize > MAX_HOLES_WITH_MARKS {
            return Err(err(
                "opening.each_hole_once",
                format!("needs at most {MAX_HOLES_WITH_MARKS} holes a row (board.holes is {holes})"),
            ));
        }
        if opening.no_capture_turns > 0 && capture.is_none() {
            return Err(err("opening.no_capture_turns", "needs a [capture] rule"));
        }

        let mut rounds_s = Section::new("rounds", sub_table(&root, "rounds")?);
        let rounds = if rounds_s.present() {
            rounds_s
                .word("end", &[("row-empty", ())])?
                .ok_or_else(|| err("rounds.end", "missing: \"row-empty\" (the only way a round ends)"))?;
            let refill_seeds = rounds_s.int("refill_seeds", 1, 255)?.ok_or_else(|| {
                err("rounds.refill_seeds", "missing: the seeds put into a hole a refill turn")
            })? as u8;
            let lose_below = rounds_s.int("lose_below", 1, 255)?.unwrap_or(1) as u8;
            let empty_holes = rounds_s
                .word(
                    "empty_holes",
                    &[("out-of-play", EmptyHoles::OutOfPlay), ("in-play", EmptyHoles::InPlay)],
                )?
                .unwrap_or(EmptyHoles::OutOfPlay);
            Some(Rounds { lose_below, refill_seeds, empty_holes })
        } else {
            None
        };
        rounds_s.finish()?;
        if rounds.is_some() {
            if holes as usize > MAX_HOLES_WITH_MARKS {
                return Err(err(
                    "rounds",
                    format!("needs at most {MAX_HOLES_WITH_MARKS} holes a row (board.holes is {holes})"),
                ));
            }
            if opening.each_hole_once {
                return Err(err(
                    "rounds",
                    "cannot be combined with opening.each_hole_once (a round has no opening)",
                ));
            }
        }

        let mut end_s = Section::new("end", sub_table(&root, "end")?);
        let stuck =
            end_s.word("stuck", &[("ends", Stuck::Ends), ("pass", Stuck::Pass)])?.unwrap_or(Stuck::Ends);
        let board_empty = end_s.boolean("board_empty", false)?;
        let fewer_than = end_s.int("fewer_than", 1, 255)?.map(|v| v as u16);
        let store_above = end_s.int("store_above", 0, 255)?.map(|v| v as u16);
        let all_singletons = end_s.boolean("all_singletons", false)?;
        let stuck_word =
            end_s.word("stuck_result", &[("scores", 0), ("draw", 1), ("mover-wins-below", 2)])?;
        let threshold = match end_s.get("stuck_threshold") {
            None => None,
            Some(Value::Integer(i)) if (1..=255).contains(i) => Some(Threshold::Seeds(*i as u16)),
            Some(Value::String(s)) if s == "start-row" => Some(Threshold::StartRow),
            Some(v) => {
                return Err(err(
                    "end.stuck_threshold",
                    format!("expected a count 1..=255 or \"start-row\", found {v}"),
                ))
            }
        };
        let stuck_result = match (stuck_word, threshold) {
            (Some(2), Some(t)) => StuckResult::MoverWinsBelow(t),
            (Some(2), None) => {
                return Err(err(
                    "end.stuck_threshold",
                    "missing: end.stuck_result \"mover-wins-below\" needs it",
                ))
            }
            (_, Some(_)) => {
                return Err(err(
                    "end.stuck_threshold",
                    "only read with end.stuck_result = \"mover-wins-below\"",
                ))
            }
            (Some(1), None) => StuckResult::Draw,
            _ => StuckResult::Scores,
        };
        let neither_can_move = end_s
            .word(
                "neither_can_move",
                &[("as-stuck", NeitherCanMove::AsStuck), ("draw", NeitherCanMove::Draw)],
            )?
            .unwrap_or(NeitherCanMove::AsStuck);
        end_s.finish()?;
        let end = End {
            stuck,
            board_empty,
            fewer_than,
            store_above,
            all_singletons,
            stuck_result,
            neither_can_move,
        };

        let mut rem_s = Section::new("remaining", sub_table(&root, "remaining")?);
        let remaining = rem_s.word("to", &REMAINING)?.unwrap_or(Remaining::OwnRow);
        let endless = rem_s.word("endless", &REMAINING)?.unwrap_or(Remaining::OwnRow);
        rem_s.finish()?;

        let mut score_s = Section::new("scoring", sub_table(&root, "scoring")?);
        let scoring = score_s
            .word("count", &[("store", Scoring::Store), ("store-and-row", Scoring::StoreAndRow)])?
            .unwrap_or(Scoring::Store);
        score_s.finish()?;

        let rules = RuleSet {
            id,
            name,
            description,
            source,
            holes,
            seeds,
            allowed_holes,
            playable,
            min_seeds,
            leave_one,
            skip_origin,
            first_into_origin,
            direction,
            skip_above,
            relay,
            flow,
            capture,
            starving,
            starving_judged,
            starving_lap_cut,
            opening,
            rounds,
            end,
            remaining,
            endless,
            scoring,
        };
        rules.check_size(holes, seeds).map_err(|m| err("board.seeds", m))?;
        Ok(rules)
    }

    /// The rule set as a rule file that [`RuleSet::from_toml`] reads back to the same rule set
    /// (every field written, defaults included).
    pub fn to_toml(&self) -> String {
        fn counts(c: &CountSet) -> Value {
            Value::Array(
                (0..=255u32).filter(|&v| c.contains(v as u8)).map(|v| Value::Integer(v as i64)).collect(),
            )
        }
        fn word(w: &str) -> Value {
            Value::String(w.into())
        }
        fn int(i: impl Into<i64>) -> Value {
            Value::Integer(i.into())
        }
        fn territory(t: Territory) -> Value {
            word(match t {
                Territory::Own => "own",
                Territory::Opponent => "opponent",
                Territory::Any => "any",
            })
        }
        fn remaining(r: Remaining) -> Value {
            word(REMAINING.iter().find(|(_, v)| *v == r).map(|(w, _)| *w).expect("every rule has a word"))
        }
        let mut root = Table::new();
        root.insert("id".into(), word(&self.id));
        root.insert("name".into(), word(&self.name));
        root.insert("description".into(), word(&self.description));
        root.insert("source".into(), word(&self.source));
        let mut board = Table::new();
        board.insert("holes".into(), int(self.holes));
        board.insert("seeds".into(), int(self.seeds));
        if let Some(list) = &self.allowed_holes {
            board.insert("allowed_holes".into(), Value::Array(list.iter().map(|&h| int(h)).collect()));
        }
        root.insert("board".into(), Value::Table(board));
        let mut sowing = Table::new();
        sowing.insert("playable".into(), word(if self.playable == Playable::Own { "own" } else { "any" }));
        sowing.insert("min_seeds".into(), int(self.min_seeds));
        sowing.insert("leave_one".into(), Value::Boolean(self.leave_one));
        sowing.insert("skip_origin".into(), Value::Boolean(self.skip_origin));
        sowing.insert("first_into_origin".into(), Value::Boolean(self.first_into_origin));
        sowing.insert(
            "direction".into(),
            word(match self.direction {
                Direction::Ccw => "ccw",
                Direction::Cw => "cw",
                Direction::Choice => "choice",
            }),
        );
        if let Some(m) = self.skip_above {
            sowing.insert("skip_above".into(), int(m));
        }
        root.insert("sowing".into(), Value::Table(sowing));
        if let Some(r) = &self.relay {
            let mut t = Table::new();
            t.insert(
                "mode".into(),
                word(if r.mode == RelayMode::EndsOn { "ends-on" } else { "continues-on" }),
            );
            t.insert("values".into(), counts(&r.values));
            t.insert("territory".into(), territory(r.territory));
            if let Some(own) = &r.own_values {
                t.insert("own_values".into(), counts(own));
            }
            root.insert("relay".into(), Value::Table(t));
        }
        if let Some(f) = &self.flow {
            let mut t = Table::new();
            t.insert("values".into(), counts(&f.values));
            t.insert(
                "taker".into(),
                word(if f.taker == FlowTaker::Owner { "owner" } else { "mover-on-opponent-side" }),
            );
            root.insert("flow_capture".into(), Value::Table(t));
        }
        if let Some(c) = &self.capture {
            let mut t = Table::new();
            t.insert("values".into(), counts(&c.values));
            t.insert("territory".into(), territory(c.territory));
            t.insert(
                "target".into(),
                word(match c.target {
                    Target::Reached => "reached",
                    Target::Opposite => "opposite",
                    Target::ReachedAndOpposite => "reached-and-opposite",
                    Target::Next => "next",
                    Target::ReachedAndNeighbours => "reached-and-neighbours",
                }),
            );
            t.insert(
                "chain".into(),
                word(match c.chain {
                    Chain::None => "none",
                    Chain::Backward => "backward",
                    Chain::Forward => "forward",
                }),
            );
            t.insert("chain_crosses".into(), Value::Boolean(c.chain_crosses));
            if c.chain != Chain::None {
                t.insert(
                    "chain_origin".into(),
                    word(match c.chain_origin {
                        ChainOrigin::MayTake => "may-take",
                        ChainOrigin::StopsBefore => "stops-before",
                        ChainOrigin::GoesPast => "goes-past",
                    }),
                );
            }
            if let Some(m) = c.chain_max {
                t.insert("chain_max".into(), int(m));
            }
            t.insert("judged".into(), word(if c.judged == JudgedHole::Last { "last" } else { "after-last" }));
            t.insert(
                "grand_slam".into(),
                word(match c.grand_slam {
                    GrandSlam::Allowed => "allowed",
                    GrandSlam::NoCapture => "no-capture",
                    GrandSlam::SpareLast => "spare-last",
                    GrandSlam::Illegal => "illegal",
                }),
            );
            root.insert("capture".into(), Value::Table(t));
        }
        let mut starving = Table::new();
        starving.insert(
            "rule".into(),
            word(match self.starving {
                Starving::Allowed => "allowed",
                Starving::Avoid => "avoid",
                Starving::Forbidden => "forbidden",
                Starving::MustFeed => "must-feed",
            }),
        );
        starving
            .insert("judged".into(), word(if self.starving_judged == Judged::Turn { "turn" } else { "lap" }));
        starving.insert(
            "lap_cut".into(),
            word(if self.starving_lap_cut == LapCut::TurnEnds { "turn-ends" } else { "game-ends" }),
        );
        root.insert("starving".into(), Value::Table(starving));
        let mut opening = Table::new();
        opening.insert("each_hole_once".into(), Value::Boolean(self.opening.each_hole_once));
        opening.insert("no_capture_turns".into(), int(self.opening.no_capture_turns));
        root.insert("opening".into(), Value::Table(opening));
        if let Some(r) = &self.rounds {
            let mut t = Table::new();
            t.insert("end".into(), word("row-empty"));
            t.insert("refill_seeds".into(), int(r.refill_seeds));
            t.insert("lose_below".into(), int(r.lose_below));
            t.insert(
                "empty_holes".into(),
                word(if r.empty_holes == EmptyHoles::OutOfPlay { "out-of-play" } else { "in-play" }),
            );
            root.insert("rounds".into(), Value::Table(t));
        }
        let e = &self.end;
        let mut end = Table::new();
        end.insert("stuck".into(), word(if e.stuck == Stuck::Ends { "ends" } else { "pass" }));
        end.insert("board_empty".into(), Value::Boolean(e.board_empty));
        if let Some(n) = e.fewer_than {
            end.insert("fewer_than".into(), int(n));
        }
        if let Some(n) = e.store_above {
            end.insert("store_above".into(), int(n));
        }
        end.insert("all_singletons".into(), Value::Boolean(e.all_singletons));
        match e.stuck_result {
            StuckResult::Scores => end.insert("stuck_result".into(), word("scores")),
            StuckResult::Draw => end.insert("stuck_result".into(), word("draw")),
            StuckResult::MoverWinsBelow(t) => {
                end.insert("stuck_result".into(), word("mover-wins-below"));
                end.insert(
                    "stuck_threshold".into(),
                    match t {
                        Threshold::Seeds(n) => int(n),
                        Threshold::StartRow => word("start-row"),
                    },
                )
            }
        };
        end.insert(
            "neither_can_move".into(),
            word(if e.neither_can_move == NeitherCanMove::AsStuck { "as-stuck" } else { "draw" }),
        );
        root.insert("end".into(), Value::Table(end));
        let mut rem = Table::new();
        rem.insert("to".into(), remaining(self.remaining));
        rem.insert("endless".into(), remaining(self.endless));
        root.insert("remaining".into(), Value::Table(rem));
        let mut scoring = Table::new();
        scoring.insert(
            "count".into(),
            word(if self.scoring == Scoring::Store { "store" } else { "store-and-row" }),
        );
        root.insert("scoring".into(), Value::Table(scoring));
        toml::to_string(&root).expect("a table of plain values serialises")
    }

    /// Checks that a board of `holes` per row with `seeds` per hole fits the engine.
    pub fn check_size(&self, holes: u8, seeds: u8) -> Result<(), String> {
        let total = 2 * holes as u32 * seeds as u32;
        if total > MAX_TOTAL_SEEDS {
            return Err(format!(
                "2 x {holes} holes x {seeds} seeds = {total} seeds; a board holds at most {MAX_TOTAL_SEEDS}"
            ));
        }
        Ok(())
    }

    /// The rule set as readable sentences, in the order of the seed's parameter language.
    pub fn describe(&self, holes: u8, seeds: u8) -> Vec<String> {
        let mut out = Vec::new();
        // "2, 4..6" as a sentence says it: "2 or 4 to 6".
        let spoken = |set: String| {
            let set = set.replace("..", " to ");
            match set.rfind(", ") {
                Some(k) => format!("{} or {}", &set[..k], &set[k + 2..]),
                None => set,
            }
        };
        let terr = |t: Territory| match t {
            Territory::Own => "in the player's own row",
            Territory::Opponent => "in the opponent's row",
            Territory::Any => "in either row",
        };
        out.push(format!("Board: 2 rows of {holes} holes, {seeds} seeds in each hole."));
        let min = self.min_seeds.max(1);
        out.push(format!(
            "Play: {} holding at least {min} {}; {}.",
            if self.playable == Playable::Own {
                "a hole of the player's own row"
            } else {
                "any hole of either row"
            },
            if min == 1 { "seed" } else { "seeds" },
            if self.leave_one { "all its seeds but one are lifted" } else { "all its seeds are lifted" }
        ));
        out.push(format!(
            "Sowing: {}, one seed a hole{}{}{}.",
            match self.direction {
                Direction::Ccw => "counter-clockwise",
                Direction::Cw => "clockwise",
                Direction::Choice => "in the direction the player chooses",
            },
            if self.first_into_origin { ", the first seed back into the origin hole" } else { "" },
            if self.skip_origin {
                ", skipping the origin hole on a full lap"
            } else {
                ", the origin hole is not skipped"
            },
            self.skip_above.map(|n| format!(", skipping holes holding more than {n}")).unwrap_or_default()
        ));
        if let Some(r) = &self.relay {
            if let Some(own) = r.own_values {
                out.push(format!(
                    "Relay by row: in the player's own row the counts are {} instead; {} count in the opponent's row.",
                    spoken(own.describe()),
                    spoken(r.values.describe())
                ));
            }
            out.push(match r.mode {
                RelayMode::EndsOn => format!(
                    "Multiple sowing: the last hole is lifted and sown on, until the last seed makes a hole {} {}.",
                    spoken(r.values.describe()),
                    terr(r.territory)
                ),
                RelayMode::ContinuesOn => format!(
                    "Extra laps: when the last seed makes a hole {} {}, it is lifted and sown on.",
                    spoken(r.values.describe()),
                    terr(r.territory)
                ),
            });
        }
        if let Some(f) = &self.flow {
            out.push(format!(
                "Flow capture: a hole reached during the sowing that now holds {} is taken {}.",
                spoken(f.values.describe()),
                match f.taker {
                    FlowTaker::Owner => "by the owner of its row",
                    FlowTaker::MoverOnOpponentSide => "by the mover, on the opponent's row only",
                }
            ));
        }
        if self.opening.each_hole_once {
            out.push(
                "Opening: each player must sow each of their own holes once before sowing any hole a \
                 second time (when none of the holes still to sow can be played, any hole may be)."
                    .into(),
            );
        }
        if self.opening.no_capture_turns > 0 {
            let n = self.opening.no_capture_turns;
            out.push(if n == 1 {
                "Opening: the first turn of the game captures nothing.".to_string()
            } else {
                format!("Opening: the first {n} turns of the game capture nothing.")
            });
        }
        if let Some(c) = &self.capture {
            out.push(format!(
                "Capture: when {} {} {}, the player takes {}{}.",
                match c.judged {
                    JudgedHole::Last => "the last seed makes a hole",
                    JudgedHole::AfterLast => "after the sowing the hole after the last hole holds",
                },
                spoken(c.values.describe()),
                terr(c.territory),
                match c.target {
                    Target::Reached => "that hole",
                    Target::Opposite => "the hole opposite",
                    Target::ReachedAndOpposite => "that hole and the hole opposite",
                    Target::Next => "the hole after it",
                    Target::ReachedAndNeighbours => {
                        "that hole and each hole beside it in its row that holds one of those counts"
                    }
                },
                match (c.chain, c.chain_crosses) {
                    (Chain::None, _) => String::new(),
                    (Chain::Backward, false) => ", and the previous holes that match, within the row".into(),
                    (Chain::Backward, true) => ", and the previous holes that match, across rows".into(),
                    (Chain::Forward, false) => ", and the following holes that match, within the row".into(),
                    (Chain::Forward, true) => ", and the following holes that match, across rows".into(),
                }
            ));
            if c.chain != Chain::None {
                out.push(format!(
                    "Chain: {}{}.",
                    match c.chain_origin {
                        ChainOrigin::MayTake =>
                            "it may take the hole the last lap started from, never going past it",
                        ChainOrigin::StopsBefore => "it stops before the hole the last lap started from",
                        ChainOrigin::GoesPast =>
                            "it goes on past the hole the last lap started from, once round the board at most",
                    },
                    c.chain_max
                        .map(|n| format!(
                            "; at most {n} {} after the last hole",
                            if n == 1 { "hole" } else { "holes" }
                        ))
                        .unwrap_or_default()
                ));
            }
            out.push(
                match c.grand_slam {
                    GrandSlam::Allowed => "Grand slam: allowed.",
                    GrandSlam::NoCapture => {
                        "Grand slam: a capture that would empty the opponent's row takes nothing."
                    }
                    GrandSlam::SpareLast => {
                        "Grand slam: a capture that would empty the opponent's row spares the last hole."
                    }
                    GrandSlam::Illegal => {
                        "Grand slam: a move capturing every seed of the opponent's row is illegal."
                    }
                }
                .into(),
            );
        } else {
            out.push("Capture: none at the end of the sowing.".into());
        }
        out.push(
            match self.starving {
                Starving::Allowed => "Starving: allowed.",
                Starving::Avoid => "Starving: if possible, a move must leave the opponent seeds.",
                Starving::Forbidden => "Starving: a move must leave the opponent seeds.",
                Starving::MustFeed => {
                    "Must feed: when the opponent has no seeds, a move must give them some."
                }
            }
            .into(),
        );
        if self.starving_judged == Judged::Lap {
            out.push(
                "Starving per lap: the opponent must have seeds after every lap; a move whose first lap \
                 leaves them none starves, and a later lap that would is not sown (the turn ends before it)."
                    .into(),
            );
            if self.starving_lap_cut == LapCut::GameEnds {
                out.push(
                    "A later lap is judged with its capture; when one is not sown, the game ends after the \
                     lap before it, and the scores decide."
                        .into(),
                );
            }
        }
        if let Some(r) = &self.rounds {
            out.push(format!(
                "Rounds: after a move that leaves either row empty, each player takes the seeds in their \
                 own row and the round ends; a player then holding {} loses the match.",
                if r.lose_below == 1 {
                    "no seed".to_string()
                } else {
                    format!("fewer than {} seeds", r.lose_below)
                }
            ));
            let n = r.refill_seeds;
            out.push(format!(
                "Between rounds: the players take turns, the player to move first, to put {n} {} (or what \
                 is left, if fewer) from their store into the leftmost empty hole of their own row; a \
                 player with a full row or an empty store passes, and the next round starts when both \
                 pass in a row.",
                if n == 1 { "seed" } else { "seeds" }
            ));
            out.push(
                match r.empty_holes {
                    EmptyHoles::OutOfPlay => {
                        "Holes left empty are out of play for the round: the sowing skips them and no \
                         capture takes them."
                    }
                    EmptyHoles::InPlay => "Holes left empty stay in play: the sowing goes into them.",
                }
                .into(),
            );
        }
        let mut ends = vec![match self.end.stuck {
            Stuck::Ends => "the player to move cannot play".to_string(),
            Stuck::Pass => "neither player can play (a player who cannot play misses the turn)".to_string(),
        }];
        if self.end.board_empty {
            ends.push("the board is empty".into());
        }
        if let Some(n) = self.end.fewer_than {
            ends.push(format!("fewer than {n} seeds are left on the board"));
        }
        if let Some(n) = self.end.store_above {
            ends.push(format!("a player has captured more than {n}"));
        }
        if self.end.all_singletons {
            ends.push("every hole holds at most one seed".into());
        }
        out.push(format!("End: when {}; or on an endless cycle.", ends.join("; or when ")));
        match self.end.stuck_result {
            StuckResult::Scores => {}
            StuckResult::Draw => {
                out.push("Result: when the player to move cannot play, the game is a draw.".into())
            }
            StuckResult::MoverWinsBelow(t) => out.push(format!(
                "Result: when the player to move cannot play, the player who moved last wins if the \
                 stuck player has captured fewer than {} seeds; otherwise the game is a draw.",
                match t {
                    Threshold::Seeds(n) => n.to_string(),
                    Threshold::StartRow => format!("{} (a row's seeds at the start)", t.count(holes, seeds)),
                }
            )),
        }
        if self.end.neither_can_move == NeitherCanMove::Draw {
            out.push(
                match self.end.stuck {
                    Stuck::Pass => {
                        "Result: when both players pass in turn (neither can play), the game is a draw."
                    }
                    Stuck::Ends => {
                        "Result: when both players are stuck (neither can play), the game is a draw."
                    }
                }
                .into(),
            );
        }
        let rem = |r: Remaining| match r {
            Remaining::OwnRow => "each player takes the seeds in their own row",
            Remaining::LastMover => "the player who moved last takes them",
            Remaining::LastCapturer => "the player who captured last takes them",
            Remaining::NotStuckElseLastMover => {
                "the player who is not stuck takes them, otherwise the last mover"
            }
            Remaining::NotStuckElseOwnRow => {
                "the player who is not stuck takes them, otherwise each their own row"
            }
            Remaining::OpponentOfStuck => "if the player to move cannot move, the opponent takes them",
            Remaining::Nobody => "nobody takes them",
        };
        out.push(format!(
            "Remaining seeds: {}; after an endless cycle {}.",
            rem(self.remaining),
            rem(self.endless)
        ));
        out.push(
            match self.scoring {
                Scoring::Store => "Winner: the player who captured more.",
                Scoring::StoreAndRow => {
                    "Winner: the player with more seeds captured plus seeds in their own row."
                }
            }
            .into(),
        );
        out
    }
}

fn line_col(text: &str, offset: usize) -> String {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map(|i| offset - i).unwrap_or(offset + 1);
    format!("line {line}, column {col}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_sets() {
        let v: Value = toml::Value::Array(vec![Value::Integer(2), Value::String("4..6".into())]);
        let s = parse_counts(&v, "x").unwrap();
        assert!(s.contains(2) && s.contains(4) && s.contains(6) && !s.contains(3) && !s.contains(7));
        assert_eq!(s.describe(), "2, 4..6");
        let s = parse_counts(&Value::String("even".into()), "x").unwrap();
        assert!(s.contains(200) && !s.contains(0) && !s.contains(201));
        assert_eq!(s.describe(), "even");
        assert!(parse_counts(&Value::String("9..3".into()), "x").is_err());
    }

    #[test]
    fn bad_files_name_the_field() {
        let e =
            RuleSet::from_toml("id = \"x\"\n[capture]\nvalues = [2]\nterritory = \"theirs\"\n").unwrap_err();
        assert_eq!(e, err("capture.territory", "\"theirs\" is not one of own, opponent, any"));
        let e = RuleSet::from_toml("id = \"x\"\n[sowing]\nleave_on = true\n").unwrap_err();
        assert!(matches!(e, VariantError::RuleFile { ref field, .. } if field == "sowing.leave_on"), "{e:?}");
        let e = RuleSet::from_toml("name = \"x\"\n").unwrap_err();
        assert!(matches!(e, VariantError::RuleFile { ref field, .. } if field == "id"));
        let e = RuleSet::from_toml("id = \"x\"\n[board]\nholes = 18\nseeds = 10\n").unwrap_err();
        assert!(matches!(e, VariantError::RuleFile { ref field, .. } if field == "board.seeds"));
        let e = RuleSet::from_toml("id = \"x\"\n[board\n").unwrap_err();
        assert!(
            matches!(e, VariantError::RuleFile { ref field, .. } if field.starts_with("line 2")),
            "{e:?}"
        );
    }
}
