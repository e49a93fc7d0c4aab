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
//! The file format, its schema and the checks across fields, is in `super::rule_file`;
//! `docs/RULE_FILES.md` documents every field. A bad file gets a [`crate::VariantError::RuleFile`]
//! naming the field (`capture.values`) and the reason.

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

impl RuleSet {
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
