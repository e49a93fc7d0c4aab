//! The rule file's format: [`RuleFile`] is the TOML schema, derived with serde, and
//! `TryFrom<RuleFile> for RuleSet` checks what a field alone cannot say (a field that is required,
//! fields that must agree). The runtime [`RuleSet`] the engine plays from stays a plain struct of
//! its own: the file's defaults, required fields and spellings are the schema's business, not the
//! search's.
//!
//! Every error names the field by its dotted path (`capture.chain_origin`). The path comes from
//! `serde_path_to_error`, which records it while serde walks the tables, so it names the field
//! whatever failed there: a wrong type, a value out of range, an unknown word (the field types'
//! own messages), an unknown key (whose name ends the path). `toml`'s errors carry a byte span
//! instead; turning a span into a key path would take a second, spanned walk of the document to
//! find the key that holds the offset. Spans still name the line and column of a TOML syntax
//! error, where there is no field yet. The checks across fields run after the schema and name
//! their field themselves.
//!
//! Writing goes the same way back: a [`RuleSet`] becomes a [`RuleFile`] with every field set
//! (defaults included), serialized into a TOML table, whose keys are sorted.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_path_to_error::Segment;

use super::rules::{
    Capture, Chain, ChainOrigin, CountSet, Direction, EmptyHoles, End, Flow, FlowTaker, GrandSlam, Judged,
    JudgedHole, LapCut, NeitherCanMove, Opening, Playable, Relay, RelayMode, Remaining, Rounds, RuleSet,
    Scoring, Starving, Stuck, StuckResult, Target, Territory, Threshold, MAX_HOLES_PER_ROW,
    MAX_HOLES_WITH_MARKS,
};
use crate::error::VariantError;

fn err(field: &str, message: impl Into<String>) -> VariantError {
    VariantError::RuleFile { field: field.to_string(), message: message.into() }
}

// ---------------------------------------------------------------------------------------------
// Field types
// ---------------------------------------------------------------------------------------------

/// An integer from `LO` to `HI`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Int<const LO: u8, const HI: u8>(pub u8);

impl<const LO: u8, const HI: u8> Serialize for Int<LO, HI> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.0.into())
    }
}

impl<'de, const LO: u8, const HI: u8> Deserialize<'de> for Int<LO, HI> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const LO: u8, const HI: u8>;
        impl<const LO: u8, const HI: u8> Visitor<'_> for V<LO, HI> {
            type Value = Int<LO, HI>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "an integer from {LO} to {HI}")
            }
            fn visit_i64<E: de::Error>(self, i: i64) -> Result<Self::Value, E> {
                match u8::try_from(i) {
                    Ok(v) if (LO..=HI).contains(&v) => Ok(Int(v)),
                    _ => Err(E::custom(format!("{i} is outside {LO}..={HI}"))),
                }
            }
            fn visit_u64<E: de::Error>(self, i: u64) -> Result<Self::Value, E> {
                match u8::try_from(i) {
                    Ok(v) if (LO..=HI).contains(&v) => Ok(Int(v)),
                    _ => Err(E::custom(format!("{i} is outside {LO}..={HI}"))),
                }
            }
        }
        d.deserialize_any(V::<LO, HI>)
    }
}

/// A set of counts: an integer, a range string `"1..48"` / `"3.."`, `"even"`, `"odd"`, or a
/// list of these; never empty.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Counts(pub CountSet);

/// Adds one item of a count list to `set`.
fn add_count<E: de::Error>(item: CountItem<'_>, set: &mut CountSet) -> Result<(), E> {
    match item {
        CountItem::Int(i) => match u8::try_from(i) {
            Ok(c) => set.insert(c),
            Err(_) => return Err(E::custom(format!("count {i} is outside 0..=255"))),
        },
        CountItem::Text(s) => {
            let s = s.trim();
            match s {
                "even" => (2..=254u16).step_by(2).for_each(|c| set.insert(c as u8)),
                "odd" => (1..=255u16).step_by(2).for_each(|c| set.insert(c as u8)),
                _ => {
                    let (a, b) = s.split_once("..").ok_or_else(|| {
                        E::custom(format!(
                            "{s:?} is not a count, a range like \"1..48\", \"even\" or \"odd\""
                        ))
                    })?;
                    let lo: u16 = a.trim().parse().map_err(|_| E::custom(format!("{a:?} is not a count")))?;
                    let hi: u16 = if b.trim().is_empty() {
                        255
                    } else {
                        b.trim().parse().map_err(|_| E::custom(format!("{b:?} is not a count")))?
                    };
                    if lo > hi || hi > 255 {
                        return Err(E::custom(format!("range {s:?} is empty or goes past 255")));
                    }
                    (lo..=hi).for_each(|c| set.insert(c as u8));
                }
            }
        }
    }
    Ok(())
}

enum CountItem<'a> {
    Int(i64),
    Text(&'a str),
}

/// One item of a count list, added to the set as it is read.
struct CountInto<'s>(&'s mut CountSet);

impl<'de> de::DeserializeSeed<'de> for CountInto<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl Visitor<'_> for CountInto<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a count or a range of counts")
    }
    fn visit_i64<E: de::Error>(self, i: i64) -> Result<(), E> {
        add_count(CountItem::Int(i), self.0)
    }
    fn visit_u64<E: de::Error>(self, i: u64) -> Result<(), E> {
        add_count(CountItem::Int(i64::try_from(i).unwrap_or(i64::MAX)), self.0)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        add_count(CountItem::Text(s), self.0)
    }
}

impl<'de> Deserialize<'de> for Counts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Counts;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "counts: an integer, a range like \"1..48\", \"even\", \"odd\", or a list of these",
                )
            }
            fn visit_i64<E: de::Error>(self, i: i64) -> Result<Counts, E> {
                let mut set = CountSet::EMPTY;
                add_count(CountItem::Int(i), &mut set)?;
                Ok(Counts(set))
            }
            fn visit_u64<E: de::Error>(self, i: u64) -> Result<Counts, E> {
                self.visit_i64(i64::try_from(i).unwrap_or(i64::MAX))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Counts, E> {
                let mut set = CountSet::EMPTY;
                add_count(CountItem::Text(s), &mut set)?;
                Ok(Counts(set))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Counts, A::Error> {
                let mut set = CountSet::EMPTY;
                while items.next_element_seed(CountInto(&mut set))?.is_some() {}
                if set.is_empty() {
                    return Err(de::Error::custom("the set of counts is empty"));
                }
                Ok(Counts(set))
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Counts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((0..=255u8).filter(|&c| self.0.contains(c)).map(i64::from))
    }
}

/// A value of a rule field written as one of a fixed list of words.
trait Word: Copy + PartialEq + 'static {
    /// Each word and its value, in the order messages list them.
    const WORDS: &'static [(&'static str, Self)];
}

fn word_of<T: Word>(value: T) -> &'static str {
    T::WORDS.iter().find(|(_, v)| *v == value).map(|(w, _)| *w).expect("every value has a word")
}

fn serialize_word<T: Word, S: Serializer>(value: T, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(word_of(value))
}

fn deserialize_word<'de, T: Word, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    struct V<T>(PhantomData<T>);
    impl<T: Word> Visitor<'_> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "one of {}", words(T::WORDS))
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
            T::WORDS
                .iter()
                .find(|(w, _)| *w == s)
                .map(|(_, v)| *v)
                .ok_or_else(|| E::custom(format!("{s:?} is not one of {}", words(T::WORDS))))
        }
    }
    d.deserialize_any(V(PhantomData))
}

fn words<T>(list: &[(&str, T)]) -> String {
    list.iter().map(|(w, _)| *w).collect::<Vec<_>>().join(", ")
}

/// Implements [`Word`], `Serialize` and `Deserialize` for enums spelled as words.
macro_rules! words {
    ($($ty:ident { $($word:literal => $value:ident),+ $(,)? })+) => {$(
        impl Word for $ty {
            const WORDS: &'static [(&'static str, Self)] = &[$(($word, $ty::$value)),+];
        }
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                serialize_word(*self, s)
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                deserialize_word(d)
            }
        }
    )+};
}

/// `end.stuck_result` as the file spells it; the threshold of `mover-wins-below` is a field of its
/// own.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum StuckWord {
    /// The scores decide.
    #[default]
    Scores,
    /// A draw.
    Draw,
    /// The player who moved last wins below `end.stuck_threshold`.
    MoverWinsBelow,
}

/// `rounds.end`: the only way a round ends.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RoundEnd {
    /// After a move that leaves either row empty.
    RowEmpty,
}

words! {
    Territory { "own" => Own, "opponent" => Opponent, "any" => Any }
    Playable { "own" => Own, "any" => Any }
    Direction { "ccw" => Ccw, "cw" => Cw, "choice" => Choice }
    RelayMode { "ends-on" => EndsOn, "continues-on" => ContinuesOn }
    FlowTaker { "owner" => Owner, "mover-on-opponent-side" => MoverOnOpponentSide }
    Target {
        "reached" => Reached,
        "opposite" => Opposite,
        "reached-and-opposite" => ReachedAndOpposite,
        "next" => Next,
        "reached-and-neighbours" => ReachedAndNeighbours,
    }
    Chain { "none" => None, "backward" => Backward, "forward" => Forward }
    ChainOrigin { "may-take" => MayTake, "stops-before" => StopsBefore, "goes-past" => GoesPast }
    JudgedHole { "last" => Last, "after-last" => AfterLast }
    GrandSlam { "allowed" => Allowed, "no-capture" => NoCapture, "spare-last" => SpareLast, "illegal" => Illegal }
    Starving { "allowed" => Allowed, "avoid" => Avoid, "forbidden" => Forbidden, "must-feed" => MustFeed }
    Judged { "turn" => Turn, "lap" => Lap }
    LapCut { "turn-ends" => TurnEnds, "game-ends" => GameEnds }
    EmptyHoles { "out-of-play" => OutOfPlay, "in-play" => InPlay }
    RoundEnd { "row-empty" => RowEmpty }
    Stuck { "ends" => Ends, "pass" => Pass }
    StuckWord { "scores" => Scores, "draw" => Draw, "mover-wins-below" => MoverWinsBelow }
    NeitherCanMove { "as-stuck" => AsStuck, "draw" => Draw }
    Remaining {
        "own-row" => OwnRow,
        "last-mover" => LastMover,
        "last-capturer" => LastCapturer,
        "not-stuck-else-last-mover" => NotStuckElseLastMover,
        "not-stuck-else-own-row" => NotStuckElseOwnRow,
        "opponent-of-stuck" => OpponentOfStuck,
        "nobody" => Nobody,
    }
    Scoring { "store" => Store, "store-and-row" => StoreAndRow }
}

impl Serialize for Threshold {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Threshold::Seeds(n) => s.serialize_i64(n.into()),
            Threshold::StartRow => s.serialize_str("start-row"),
        }
    }
}

impl<'de> Deserialize<'de> for Threshold {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Threshold;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a count 1..=255 or \"start-row\"")
            }
            fn visit_i64<E: de::Error>(self, i: i64) -> Result<Threshold, E> {
                match u16::try_from(i) {
                    Ok(n @ 1..=255) => Ok(Threshold::Seeds(n)),
                    _ => Err(E::custom(format!("expected a count 1..=255 or \"start-row\", found {i}"))),
                }
            }
            fn visit_u64<E: de::Error>(self, i: u64) -> Result<Threshold, E> {
                self.visit_i64(i64::try_from(i).unwrap_or(i64::MAX))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Threshold, E> {
                match s {
                    "start-row" => Ok(Threshold::StartRow),
                    _ => Err(E::custom(format!("expected a count 1..=255 or \"start-row\", found {s:?}"))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

// ---------------------------------------------------------------------------------------------
// The schema
// ---------------------------------------------------------------------------------------------

/// Holes a row may have.
type Holes = Int<1, { MAX_HOLES_PER_ROW as u8 }>;

/// `board.allowed_holes`: a list of row lengths.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct HoleList(pub Vec<Holes>);

impl<'de> Deserialize<'de> for HoleList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HoleList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a list of hole counts from 1 to {MAX_HOLES_PER_ROW}")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<HoleList, A::Error> {
                let mut list = Vec::new();
                while let Some(h) = items.next_element()? {
                    list.push(h);
                }
                Ok(HoleList(list))
            }
        }
        d.deserialize_any(V)
    }
}

/// A rule file. Tables that every game has ([board], [sowing], ...) default to their fields'
/// defaults; the optional rules ([relay], [capture], ...) are absent when the game has none. A
/// required field inside a table is an `Option` here and is asked for by the conversion, which
/// says what it needs.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a rule file")]
pub struct RuleFile {
    /// The variant id: lower-case letters, digits and '-'; required.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The display name (the id if absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A paragraph about the game.
    #[serde(default)]
    pub description: String,
    /// Where the rules come from.
    #[serde(default)]
    pub source: String,
    /// The board.
    #[serde(default)]
    pub board: BoardFile,
    /// Rules of the first turns.
    #[serde(default)]
    pub opening: OpeningFile,
    /// A match of rounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<RoundsFile>,
    /// The sowing.
    #[serde(default)]
    pub sowing: SowingFile,
    /// Multiple sowing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relay: Option<RelayFile>,
    /// Flow capture.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow_capture: Option<FlowFile>,
    /// The capture at the end of the sowing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture: Option<CaptureFile>,
    /// The starving rule.
    #[serde(default)]
    pub starving: StarvingFile,
    /// The end of the game.
    #[serde(default)]
    pub end: EndFile,
    /// Who takes the seeds left.
    #[serde(default)]
    pub remaining: RemainingFile,
    /// What decides the winner.
    #[serde(default)]
    pub scoring: ScoringFile,
}

/// `[board]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields, expecting = "a table [board]")]
pub struct BoardFile {
    /// Holes per row.
    pub holes: Holes,
    /// Seeds per hole at the start.
    pub seeds: Int<1, 255>,
    /// The only board sizes allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_holes: Option<HoleList>,
}

impl Default for BoardFile {
    fn default() -> Self {
        BoardFile { holes: Int(6), seeds: Int(4), allowed_holes: None }
    }
}

/// `[sowing]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields, expecting = "a table [sowing]")]
pub struct SowingFile {
    /// Which holes may be played.
    pub playable: Playable,
    /// Seeds a hole needs to be played.
    pub min_seeds: Int<1, 255>,
    /// One seed stays in the lifted hole.
    pub leave_one: bool,
    /// The origin is skipped on a full lap.
    pub skip_origin: bool,
    /// The first seed goes back into the origin.
    pub first_into_origin: bool,
    /// The sowing direction.
    pub direction: Direction,
    /// Holes holding more than this are skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_above: Option<Int<1, 254>>,
}

impl Default for SowingFile {
    fn default() -> Self {
        SowingFile {
            playable: Playable::Own,
            min_seeds: Int(1),
            leave_one: false,
            skip_origin: false,
            first_into_origin: false,
            direction: Direction::Ccw,
            skip_above: None,
        }
    }
}

/// `[relay]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a table [relay]")]
pub struct RelayFile {
    /// Required.
    pub mode: Option<RelayMode>,
    /// Required.
    pub values: Option<Counts>,
    /// Where the values count (any).
    #[serde(default = "any_territory")]
    pub territory: Territory,
    /// The values in the mover's own row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub own_values: Option<Counts>,
}

fn any_territory() -> Territory {
    Territory::Any
}

/// `[flow_capture]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a table [flow_capture]")]
pub struct FlowFile {
    /// Required.
    pub values: Option<Counts>,
    /// Required.
    pub taker: Option<FlowTaker>,
}

/// `[capture]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a table [capture]")]
pub struct CaptureFile {
    /// Required.
    pub values: Option<Counts>,
    /// Required.
    pub territory: Option<Territory>,
    /// What is taken (reached).
    #[serde(default = "reached")]
    pub target: Target,
    /// The chain (none).
    #[serde(default = "no_chain")]
    pub chain: Chain,
    /// Whether the chain crosses rows (false).
    #[serde(default)]
    pub chain_crosses: bool,
    /// The chain and the origin hole (may-take); written only with a chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain_origin: Option<ChainOrigin>,
    /// The most holes the chain takes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain_max: Option<Int<1, { 2 * MAX_HOLES_PER_ROW as u8 }>>,
    /// The hole whose count is judged (last).
    #[serde(default = "last_hole")]
    pub judged: JudgedHole,
    /// The grand-slam rule (allowed).
    #[serde(default = "grand_slam_allowed")]
    pub grand_slam: GrandSlam,
}

fn reached() -> Target {
    Target::Reached
}

fn no_chain() -> Chain {
    Chain::None
}

fn last_hole() -> JudgedHole {
    JudgedHole::Last
}

fn grand_slam_allowed() -> GrandSlam {
    GrandSlam::Allowed
}

/// `[starving]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields, expecting = "a table [starving]")]
pub struct StarvingFile {
    /// The rule.
    pub rule: Starving,
    /// When it is judged.
    pub judged: Judged,
    /// What a later lap that would starve does.
    pub lap_cut: LapCut,
}

impl Default for StarvingFile {
    fn default() -> Self {
        StarvingFile { rule: Starving::Allowed, judged: Judged::Turn, lap_cut: LapCut::TurnEnds }
    }
}

/// `[opening]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields, expecting = "a table [opening]")]
pub struct OpeningFile {
    /// Each hole once before any twice.
    pub each_hole_once: bool,
    /// Turns without captures.
    pub no_capture_turns: Int<0, 100>,
}

impl Default for OpeningFile {
    fn default() -> Self {
        OpeningFile { each_hole_once: false, no_capture_turns: Int(0) }
    }
}

/// `[rounds]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a table [rounds]")]
pub struct RoundsFile {
    /// Required.
    pub end: Option<RoundEnd>,
    /// Required.
    pub refill_seeds: Option<Int<1, 255>>,
    /// Fewer seeds than this lose the match (1).
    #[serde(default = "one")]
    pub lose_below: Int<1, 255>,
    /// Holes left empty at the refill (out-of-play).
    #[serde(default = "out_of_play")]
    pub empty_holes: EmptyHoles,
}

fn one() -> Int<1, 255> {
    Int(1)
}

fn out_of_play() -> EmptyHoles {
    EmptyHoles::OutOfPlay
}

/// `[end]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields, expecting = "a table [end]")]
pub struct EndFile {
    /// The stuck rule.
    pub stuck: Stuck,
    /// Ends on an empty board.
    pub board_empty: bool,
    /// Ends below this many seeds on the board.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fewer_than: Option<Int<1, 255>>,
    /// Ends when a store passes this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_above: Option<Int<0, 255>>,
    /// Ends when every hole holds at most one seed.
    pub all_singletons: bool,
    /// The result when stuck.
    pub stuck_result: StuckWord,
    /// The threshold of `mover-wins-below`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stuck_threshold: Option<Threshold>,
    /// The result when neither can move.
    pub neither_can_move: NeitherCanMove,
}

impl Default for EndFile {
    fn default() -> Self {
        EndFile {
            stuck: Stuck::Ends,
            board_empty: false,
            fewer_than: None,
            store_above: None,
            all_singletons: false,
            stuck_result: StuckWord::Scores,
            stuck_threshold: None,
            neither_can_move: NeitherCanMove::AsStuck,
        }
    }
}

/// `[remaining]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields, expecting = "a table [remaining]")]
pub struct RemainingFile {
    /// Who takes the seeds left at the end.
    pub to: Remaining,
    /// Who takes them after an endless cycle.
    pub endless: Remaining,
}

impl Default for RemainingFile {
    fn default() -> Self {
        RemainingFile { to: Remaining::OwnRow, endless: Remaining::OwnRow }
    }
}

/// `[scoring]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields, expecting = "a table [scoring]")]
pub struct ScoringFile {
    /// What decides the winner.
    pub count: Scoring,
}

impl Default for ScoringFile {
    fn default() -> Self {
        ScoringFile { count: Scoring::Store }
    }
}

// ---------------------------------------------------------------------------------------------
// Reading and writing
// ---------------------------------------------------------------------------------------------

/// "line 2, column 7" for a byte offset of `text`.
fn line_col(text: &str, offset: usize) -> String {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map(|i| offset - i).unwrap_or(offset + 1);
    format!("line {line}, column {col}")
}

impl RuleFile {
    /// Reads a rule file's text against the schema: TOML syntax errors name the line and column,
    /// every other error the field's dotted path (list positions left out: `capture.values`).
    pub fn parse(text: &str) -> Result<RuleFile, VariantError> {
        let root: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let field = e.span().map(|s| line_col(text, s.start)).unwrap_or_else(|| "file".into());
            err(&field, e.message())
        })?;
        serde_path_to_error::deserialize(toml::Value::Table(root)).map_err(|e| {
            let keys: Vec<&str> = e
                .path()
                .iter()
                .filter_map(|s| match s {
                    Segment::Map { key } => Some(key.as_str()),
                    _ => None,
                })
                .collect();
            let field = if keys.is_empty() { "file".to_string() } else { keys.join(".") };
            err(&field, e.inner().message())
        })
    }

    /// The file as TOML text: tables after plain values, keys sorted.
    pub fn to_text(&self) -> String {
        let table = toml::Table::try_from(self).expect("a rule file serialises as a table");
        toml::to_string(&table).expect("a table of plain values serialises")
    }
}

impl RuleSet {
    /// Parses and validates a rule file's text.
    pub fn from_toml(text: &str) -> Result<RuleSet, VariantError> {
        RuleSet::try_from(RuleFile::parse(text)?)
    }

    /// The rule set as a rule file that [`RuleSet::from_toml`] reads back to the same rule set
    /// (every field written, defaults included).
    pub fn to_toml(&self) -> String {
        RuleFile::from(self).to_text()
    }
}

impl TryFrom<RuleFile> for RuleSet {
    type Error = VariantError;

    /// The checks a field cannot make alone: required fields, and fields that must agree.
    fn try_from(f: RuleFile) -> Result<RuleSet, VariantError> {
        let id = f.id.ok_or_else(|| err("id", "missing: every rule file needs an id"))?;
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') {
            return Err(err("id", format!("{id:?} must be lower-case letters, digits and '-'")));
        }
        let name = f.name.unwrap_or_else(|| id.clone());

        let holes = f.board.holes.0;
        let seeds = f.board.seeds.0;
        let allowed_holes = match f.board.allowed_holes {
            None => None,
            Some(list) => {
                let list: Vec<u8> = list.0.into_iter().map(|h| h.0).collect();
                if !list.contains(&holes) {
                    return Err(err("board.allowed_holes", format!("does not contain the default {holes}")));
                }
                Some(list)
            }
        };

        let s = f.sowing;
        if s.leave_one && s.min_seeds.0 < 2 {
            return Err(err("sowing.min_seeds", "must be at least 2 when sowing.leave_one is true"));
        }
        if s.first_into_origin && s.skip_origin {
            return Err(err("sowing.first_into_origin", "cannot be combined with sowing.skip_origin"));
        }

        let relay = match f.relay {
            None => None,
            Some(r) => {
                let mode =
                    r.mode.ok_or_else(|| err("relay.mode", "missing: \"ends-on\" or \"continues-on\""))?;
                let values = r.values.ok_or_else(|| err("relay.values", "missing"))?.0;
                if r.own_values.is_some() && r.territory != Territory::Any {
                    return Err(err(
                        "relay.own_values",
                        "needs relay.territory = \"any\" (values then count in the opponent's row)",
                    ));
                }
                Some(Relay { mode, values, territory: r.territory, own_values: r.own_values.map(|c| c.0) })
            }
        };

        let flow = match f.flow_capture {
            None => None,
            Some(fl) => {
                let values = fl.values.ok_or_else(|| err("flow_capture.values", "missing"))?.0;
                let taker = fl.taker.ok_or_else(|| {
                    err("flow_capture.taker", "missing: \"owner\" or \"mover-on-opponent-side\"")
                })?;
                Some(Flow { values, taker })
            }
        };

        let capture = match f.capture {
            None => None,
            Some(c) => {
                let values = c.values.ok_or_else(|| err("capture.values", "missing"))?.0;
                let territory = c
                    .territory
                    .ok_or_else(|| err("capture.territory", "missing: \"own\", \"opponent\" or \"any\""))?;
                let chain_origin = c.chain_origin.unwrap_or(ChainOrigin::MayTake);
                let chain_max = c.chain_max.map(|n| n.0);
                if c.chain == Chain::None && (chain_max.is_some() || chain_origin != ChainOrigin::MayTake) {
                    let field =
                        if chain_max.is_some() { "capture.chain_max" } else { "capture.chain_origin" };
                    return Err(err(field, "needs a chain: capture.chain is \"none\""));
                }
                if c.target == Target::ReachedAndNeighbours && c.chain != Chain::None {
                    return Err(err(
                        "capture.target",
                        "\"reached-and-neighbours\" takes the neighbours only: it needs capture.chain = \"none\"",
                    ));
                }
                Some(Capture {
                    values,
                    territory,
                    target: c.target,
                    chain: c.chain,
                    chain_crosses: c.chain_crosses,
                    chain_origin,
                    chain_max,
                    judged: c.judged,
                    grand_slam: c.grand_slam,
                })
            }
        };

        let st = f.starving;
        if st.judged == Judged::Lap && st.rule == Starving::Allowed {
            return Err(err("starving.judged", "\"lap\" needs a starving.rule other than \"allowed\""));
        }
        if st.lap_cut == LapCut::GameEnds && st.judged != Judged::Lap {
            return Err(err("starving.lap_cut", "\"game-ends\" needs starving.judged = \"lap\""));
        }

        let opening = Opening {
            each_hole_once: f.opening.each_hole_once,
            no_capture_turns: f.opening.no_capture_turns.0,
        };
        if opening.each_hole_once && holes as usize > MAX_HOLES_WITH_MARKS {
            return Err(err(
                "opening.each_hole_once",
                format!("needs at most {MAX_HOLES_WITH_MARKS} holes a row (board.holes is {holes})"),
            ));
        }
        if opening.no_capture_turns > 0 && capture.is_none() {
            return Err(err("opening.no_capture_turns", "needs a [capture] rule"));
        }

        let rounds = match f.rounds {
            None => None,
            Some(r) => {
                r.end
                    .ok_or_else(|| err("rounds.end", "missing: \"row-empty\" (the only way a round ends)"))?;
                let refill_seeds = r
                    .refill_seeds
                    .ok_or_else(|| {
                        err("rounds.refill_seeds", "missing: the seeds put into a hole a refill turn")
                    })?
                    .0;
                Some(Rounds { lose_below: r.lose_below.0, refill_seeds, empty_holes: r.empty_holes })
            }
        };
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

        let e = f.end;
        let stuck_result = match (e.stuck_result, e.stuck_threshold) {
            (StuckWord::MoverWinsBelow, Some(t)) => StuckResult::MoverWinsBelow(t),
            (StuckWord::MoverWinsBelow, None) => {
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
            (StuckWord::Draw, None) => StuckResult::Draw,
            (StuckWord::Scores, None) => StuckResult::Scores,
        };
        let end = End {
            stuck: e.stuck,
            board_empty: e.board_empty,
            fewer_than: e.fewer_than.map(|n| n.0.into()),
            store_above: e.store_above.map(|n| n.0.into()),
            all_singletons: e.all_singletons,
            stuck_result,
            neither_can_move: e.neither_can_move,
        };

        let rules = RuleSet {
            id,
            name,
            description: f.description,
            source: f.source,
            holes,
            seeds,
            allowed_holes,
            playable: s.playable,
            min_seeds: s.min_seeds.0,
            leave_one: s.leave_one,
            skip_origin: s.skip_origin,
            first_into_origin: s.first_into_origin,
            direction: s.direction,
            skip_above: s.skip_above.map(|n| n.0),
            relay,
            flow,
            capture,
            starving: st.rule,
            starving_judged: st.judged,
            starving_lap_cut: st.lap_cut,
            opening,
            rounds,
            end,
            remaining: f.remaining.to,
            endless: f.remaining.endless,
            scoring: f.scoring.count,
        };
        rules.check_size(holes, seeds).map_err(|m| err("board.seeds", m))?;
        Ok(rules)
    }
}

/// A byte-sized field of a rule set, which the loader has bounded.
fn int<const LO: u8, const HI: u8>(n: impl TryInto<u8>) -> Int<LO, HI> {
    Int(n.try_into().unwrap_or(u8::MAX))
}

impl From<&RuleSet> for RuleFile {
    /// Every field written, defaults included; `capture.chain_origin` only with a chain, where it
    /// is read.
    fn from(r: &RuleSet) -> RuleFile {
        let (stuck_result, stuck_threshold) = match r.end.stuck_result {
            StuckResult::Scores => (StuckWord::Scores, None),
            StuckResult::Draw => (StuckWord::Draw, None),
            StuckResult::MoverWinsBelow(t) => (StuckWord::MoverWinsBelow, Some(t)),
        };
        RuleFile {
            id: Some(r.id.clone()),
            name: Some(r.name.clone()),
            description: r.description.clone(),
            source: r.source.clone(),
            board: BoardFile {
                holes: int(r.holes),
                seeds: int(r.seeds),
                allowed_holes: r
                    .allowed_holes
                    .as_ref()
                    .map(|l| HoleList(l.iter().map(|&h| int(h)).collect())),
            },
            opening: OpeningFile {
                each_hole_once: r.opening.each_hole_once,
                no_capture_turns: int(r.opening.no_capture_turns),
            },
            rounds: r.rounds.map(|x| RoundsFile {
                end: Some(RoundEnd::RowEmpty),
                refill_seeds: Some(int(x.refill_seeds)),
                lose_below: int(x.lose_below),
                empty_holes: x.empty_holes,
            }),
            sowing: SowingFile {
                playable: r.playable,
                min_seeds: int(r.min_seeds),
                leave_one: r.leave_one,
                skip_origin: r.skip_origin,
                first_into_origin: r.first_into_origin,
                direction: r.direction,
                skip_above: r.skip_above.map(int),
            },
            relay: r.relay.map(|x| RelayFile {
                mode: Some(x.mode),
                values: Some(Counts(x.values)),
                territory: x.territory,
                own_values: x.own_values.map(Counts),
            }),
            flow_capture: r.flow.map(|x| FlowFile { values: Some(Counts(x.values)), taker: Some(x.taker) }),
            capture: r.capture.map(|c| CaptureFile {
                values: Some(Counts(c.values)),
                territory: Some(c.territory),
                target: c.target,
                chain: c.chain,
                chain_crosses: c.chain_crosses,
                chain_origin: (c.chain != Chain::None).then_some(c.chain_origin),
                chain_max: c.chain_max.map(int),
                judged: c.judged,
                grand_slam: c.grand_slam,
            }),
            starving: StarvingFile {
                rule: r.starving,
                judged: r.starving_judged,
                lap_cut: r.starving_lap_cut,
            },
            end: EndFile {
                stuck: r.end.stuck,
                board_empty: r.end.board_empty,
                fewer_than: r.end.fewer_than.map(int),
                store_above: r.end.store_above.map(int),
                all_singletons: r.end.all_singletons,
                stuck_result,
                stuck_threshold,
                neither_can_move: r.end.neither_can_move,
            },
            remaining: RemainingFile { to: r.remaining, endless: r.endless },
            scoring: ScoringFile { count: r.scoring },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(v: toml::Value) -> Result<CountSet, String> {
        Counts::deserialize(v).map(|c| c.0).map_err(|e| e.message().to_string())
    }

    #[test]
    fn count_sets() {
        let s = counts(toml::Value::Array(vec![2.into(), "4..6".into()])).unwrap();
        assert!(s.contains(2) && s.contains(4) && s.contains(6) && !s.contains(3) && !s.contains(7));
        assert_eq!(s.describe(), "2, 4..6");
        let s = counts("even".into()).unwrap();
        assert!(s.contains(200) && !s.contains(0) && !s.contains(201));
        assert_eq!(s.describe(), "even");
        assert_eq!(counts("250..".into()).unwrap().describe(), "250..255");
        assert_eq!(counts("9..3".into()).unwrap_err(), "range \"9..3\" is empty or goes past 255");
        assert_eq!(counts(toml::Value::Array(vec![])).unwrap_err(), "the set of counts is empty");
    }

    #[test]
    fn counts_are_written_as_the_list_of_their_members() {
        let s = counts(toml::Value::Array(vec![9.into(), "1..3".into()])).unwrap();
        assert_eq!(toml::Value::try_from(Counts(s)).unwrap().to_string(), "[1, 2, 3, 9]");
    }
}
