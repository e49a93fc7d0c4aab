//! Every game Griot plays, behind one enum for the boundary (Python, services, CLI): a variant
//! string becomes an [`AnyGame`], positions and moves travel as [`AnyPosition`] / [`AnyMove`].
//! The hot paths (perft, search) dispatch once and then run monomorphised code.
//!
//! To add a game family: implement [`Game`], add one line to `define_games!` below and one entry
//! to [`families`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use crate::error::{Error, IllegalMove, NotationError, VariantError};
use crate::game::{self, Event, Game, Geometry, MoveList, Outcome, Player};
use crate::ikibuguzo::{self, IkibuguzoGame};
use crate::sabouiyya::{self, SabouiyyaGame};
use crate::search::tt::TranspositionTable;
use crate::search::{Bound, Hooks, Limits, RootMove, Score, SearchOptions, SearchResult};
use crate::sowing::{self, RuleSet, SowingGame};
use crate::variant::{OptionSpec, Variant, VariantSpec};

pub use crate::rng::SplitMix64;

/// The rule files shipped with Griot, as (file name, text).
pub const BUILTIN_RULE_FILES: &[(&str, &str)] = &[
    ("2-4.toml", include_str!("../rules/2-4.toml")),
    ("abapa.toml", include_str!("../rules/abapa.toml")),
    ("adji-boto.toml", include_str!("../rules/adji-boto.toml")),
    ("adjito.toml", include_str!("../rules/adjito.toml")),
    ("awale.toml", include_str!("../rules/awale.toml")),
    ("dakar.toml", include_str!("../rules/dakar.toml")),
    ("darra.toml", include_str!("../rules/darra.toml")),
    ("french-wari.toml", include_str!("../rules/french-wari.toml")),
    ("halusa.toml", include_str!("../rules/halusa.toml")),
    ("jodu.toml", include_str!("../rules/jodu.toml")),
    ("kale.toml", include_str!("../rules/kale.toml")),
    ("leb-bbut-ahbochen.toml", include_str!("../rules/leb-bbut-ahbochen.toml")),
    ("nyakun.toml", include_str!("../rules/nyakun.toml")),
    ("ot-tjin.toml", include_str!("../rules/ot-tjin.toml")),
    ("oware.toml", include_str!("../rules/oware.toml")),
    ("songo-duala.toml", include_str!("../rules/songo-duala.toml")),
    ("vai-lung-thlan.toml", include_str!("../rules/vai-lung-thlan.toml")),
    ("wouri.toml", include_str!("../rules/wouri.toml")),
    ("erherhe.toml", include_str!("../rules/erherhe.toml")),
    ("readings/jodu-ludii.toml", include_str!("../rules/readings/jodu-ludii.toml")),
    ("readings/halusa-ludii.toml", include_str!("../rules/readings/halusa-ludii.toml")),
    ("readings/ot-tjin-ludii.toml", include_str!("../rules/readings/ot-tjin-ludii.toml")),
    ("readings/wouri-ludii.toml", include_str!("../rules/readings/wouri-ludii.toml")),
    ("readings/adji-boto-ludii.toml", include_str!("../rules/readings/adji-boto-ludii.toml")),
];

fn builtin_rules() -> &'static Vec<Arc<RuleSet>> {
    static RULES: OnceLock<Vec<Arc<RuleSet>>> = OnceLock::new();
    RULES.get_or_init(|| {
        BUILTIN_RULE_FILES
            .iter()
            .map(|(name, text)| {
                Arc::new(
                    RuleSet::from_toml(text).unwrap_or_else(|e| panic!("built-in rule file {name}: {e}")),
                )
            })
            .collect()
    })
}

fn user_rules() -> &'static RwLock<Vec<Arc<RuleSet>>> {
    static RULES: OnceLock<RwLock<Vec<Arc<RuleSet>>>> = OnceLock::new();
    RULES.get_or_init(|| RwLock::new(Vec::new()))
}

/// Registers a user rule file's text; its id becomes a variant. Replaces an earlier user file with
/// the same id; refuses the id of a built-in game.
pub fn register_rule_file(text: &str) -> Result<Arc<RuleSet>, VariantError> {
    let rules = Arc::new(RuleSet::from_toml(text)?);
    if families().iter().any(|f| f.id == rules.id && f.builtin) {
        return Err(VariantError::RuleFile {
            field: "id".into(),
            message: format!("{:?} is a built-in variant; give your rule file another id", rules.id),
        });
    }
    let mut list = user_rules().write().unwrap_or_else(|e| e.into_inner());
    list.retain(|r| r.id != rules.id);
    list.push(rules.clone());
    game_cache()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|k, _| VariantSpec::parse(k).map(|s| s.id != rules.id).unwrap_or(true));
    Ok(rules)
}

/// What kind of game a family is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FamilyKind {
    /// A two-row sowing game described by a rule file.
    RuleFile,
    /// A game with its own module.
    Module,
}

/// A game family: one id, its options, its description.
#[derive(Clone, Debug)]
pub struct Family {
    /// The variant id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// How it is implemented.
    pub kind: FamilyKind,
    /// Whether it ships with Griot.
    pub builtin: bool,
    /// The options it takes.
    pub options: Vec<OptionSpec>,
    /// A paragraph about it.
    pub description: String,
    /// Where its rules come from.
    pub source: String,
}

/// Every game family: built-in rule files, built-in modules, then registered user rule files.
pub fn families() -> Vec<Family> {
    let mut out = Vec::new();
    let from_rules = |r: &Arc<RuleSet>, builtin: bool| Family {
        id: r.id.clone(),
        name: r.name.clone(),
        kind: FamilyKind::RuleFile,
        builtin,
        options: sowing::option_specs(r),
        description: r.description.clone(),
        source: r.source.clone(),
    };
    for r in builtin_rules() {
        out.push(from_rules(r, true));
    }
    out.extend(module_families());
    for r in user_rules().read().unwrap_or_else(|e| e.into_inner()).iter() {
        out.push(from_rules(r, false));
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// Families implemented as their own modules (not rule files).
fn module_families() -> Vec<Family> {
    vec![
        Family {
            id: crate::bechi::ID.into(),
            name: "Béchi".into(),
            kind: FamilyKind::Module,
            builtin: true,
            options: crate::bechi::option_specs(),
            description: "Kunama (Eritrea, Ethiopia), 2x4 or 2x3: direction by half of the row, the \
                          first counter back into the origin, even captures in either row on holes \
                          already moved, a forward chain; a match of rounds with refills between them."
                .into(),
            source: "R. Pankhurst, Gabata and Related Board Games of Ethiopia and the Horn of Africa (1971), quoting Townshend; docs/rules/bechi.md".into(),
        },
        Family {
            id: "ikibuguzo".into(),
            name: "Ikibuguzo (Opening 1)".into(),
            kind: FamilyKind::Module,
            builtin: true,
            options: ikibuguzo::option_specs(),
            description: "A four-row sowing game of the African Great Lakes: relay sowing round each \
                          player's own loop, captures by opposition, clockwise plays from two special \
                          holes, and a win by taking both opponent inner end holes in one turn."
                .into(),
            source: "H. J. R. Murray, A History of Board-Games Other Than Chess (1951), p. 217, via the Ludii portal; docs/rules/ikibuguzo.md".into(),
        },
        Family {
            id: "sabouiyya".into(),
            name: "Sabou'iyya".into(),
            kind: FamilyKind::Module,
            builtin: true,
            options: sabouiyya::option_specs(),
            description: "A Tunisian 5x5 capture game: placement two at a time, orthogonal steps with \
                          custodial capture and chains, and the H'ajeb remedy against a blockade."
                .into(),
            source: "J. Quemeneur, Le jeu de la kharbga (IBLA, 1944), via the Ludii portal; docs/rules/sabouiyya.md".into(),
        },
    ]
}

fn game_cache() -> &'static Mutex<HashMap<String, Arc<AnyGame>>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<AnyGame>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The game for a variant string, e.g. `abapa(holes=4)`. Games are immutable and shared.
pub fn game(variant: &str) -> Result<Arc<AnyGame>, VariantError> {
    if let Some(g) = game_cache().lock().unwrap_or_else(|e| e.into_inner()).get(variant) {
        return Ok(g.clone());
    }
    let spec = VariantSpec::parse(variant)?;
    let g = Arc::new(build_game(&spec)?);
    let mut cache = game_cache().lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() > 4096 {
        cache.clear();
    }
    cache.insert(variant.to_string(), g.clone());
    Ok(g)
}

fn build_game(spec: &VariantSpec) -> Result<AnyGame, VariantError> {
    if let Some(r) = builtin_rules().iter().find(|r| r.id == spec.id) {
        return Ok(AnyGame::Sowing(SowingGame::new(r.clone(), spec)?));
    }
    if let Some(g) = build_module_game(spec)? {
        return Ok(g);
    }
    let user = user_rules().read().unwrap_or_else(|e| e.into_inner());
    if let Some(r) = user.iter().find(|r| r.id == spec.id) {
        return Ok(AnyGame::Sowing(SowingGame::new(r.clone(), spec)?));
    }
    Err(VariantError::Unknown(spec.id.clone()))
}

/// Games with their own modules, by id.
fn build_module_game(spec: &VariantSpec) -> Result<Option<AnyGame>, VariantError> {
    Ok(match spec.id.as_str() {
        crate::bechi::ID => Some(AnyGame::Bechi(crate::bechi::BechiGame::new(spec)?)),
        "ikibuguzo" => Some(AnyGame::Ikibuguzo(IkibuguzoGame::new(spec)?)),
        "sabouiyya" => Some(AnyGame::Sabouiyya(SabouiyyaGame::new(spec)?)),
        _ => None,
    })
}

/// Parses a full position: variant string, space, body.
pub fn parse_position(text: &str) -> Result<(Arc<AnyGame>, AnyPosition), Error> {
    let text = text.trim();
    let (variant, body) = text.split_once(' ').ok_or_else(|| {
        NotationError::new("a position is the variant string, a space, then the board fields")
    })?;
    let g = game(variant)?;
    let pos = g.parse_body(body)?;
    Ok((g, pos))
}

fn mismatch() -> Error {
    Error::Notation(NotationError::new("the position or move belongs to another game"))
}

macro_rules! define_games {
    ($($name:ident: $game:ty),* $(,)?) => {
        /// Any game Griot plays.
        #[derive(Clone, Debug)]
        pub enum AnyGame { $(
            #[allow(missing_docs)]
            $name($game)
        ),* }

        /// A position of any game.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum AnyPosition { $(
            #[allow(missing_docs)]
            $name(<$game as Game>::Position)
        ),* }

        /// A move of any game.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum AnyMove { $(
            #[allow(missing_docs)]
            $name(<$game as Game>::Move)
        ),* }

        /// Runs `$body` with the concrete game bound to `$g`.
        macro_rules! with_game {
            ($self_:expr, $g_:ident => $body_:expr) => {
                match $self_ { $(AnyGame::$name($g_) => $body_),* }
            };
        }

        /// Runs `$body` with the concrete game and position bound, wrapping positions and moves
        /// back with the arm's constructor `$wrap`.
        macro_rules! with_pos {
            ($self_:expr, $pos_:expr, $g_:ident, $p_:ident, $wrap_:ident => $body_:expr) => {
                #[allow(unreachable_patterns)]
                match ($self_, $pos_) {
                    $((AnyGame::$name($g_), AnyPosition::$name($p_)) => {
                        #[allow(unused_imports)]
                        use AnyMove::$name as $wrap_;
                        $body_
                    })*
                    _ => Err(mismatch()),
                }
            };
        }

        /// Like `with_pos` with a move too.
        macro_rules! with_move {
            ($self_:expr, $pos_:expr, $mv_:expr, $g_:ident, $p_:ident, $m_:ident => $body_:expr) => {
                #[allow(unreachable_patterns)]
                match ($self_, $pos_, $mv_) {
                    $((AnyGame::$name($g_), AnyPosition::$name($p_), AnyMove::$name($m_)) => $body_,)*
                    _ => Err(mismatch()),
                }
            };
        }

        $(
            impl From<<$game as Game>::Position> for AnyPosition {
                fn from(p: <$game as Game>::Position) -> Self { AnyPosition::$name(p) }
            }
        )*
    };
}

define_games! {
    Sowing: SowingGame,
    Bechi: crate::bechi::BechiGame,
    Ikibuguzo: IkibuguzoGame,
    Sabouiyya: SabouiyyaGame,
}

/// Separates the steps of one turn in move notation (`i2:cw/keep+o1:cw/ccw`).
pub const TURN_SEP: char = '/';

/// A whole turn: the steps one player plays before the turn passes ([`Game::mid_turn`]); one
/// step in most games. The boundary's move: Python, the services and the CLI speak turns.
pub type Turn = Vec<AnyMove>;

/// A legal turn, its notation and the position it leads to.
pub type TurnSuccessor = (Turn, String, AnyPosition);

impl AnyGame {
    /// The variant (canonical string via `Display`).
    pub fn variant(&self) -> &Variant {
        with_game!(self, g => g.variant())
    }

    /// The family id of this game.
    pub fn family_id(&self) -> &str {
        self.variant().id()
    }

    /// The start position.
    pub fn start(&self) -> AnyPosition {
        with_game!(self, g => g.start().into())
    }

    /// Parses a position body (without the variant string).
    pub fn parse_body(&self, body: &str) -> Result<AnyPosition, NotationError> {
        with_game!(self, g => g.parse_body(body).map(Into::into))
    }

    /// The position in full Griot notation.
    pub fn format_position(&self, pos: &AnyPosition) -> Result<String, Error> {
        with_pos!(self, pos, g, p, _w => Ok(g.format_position(p)))
    }

    /// The player to move.
    pub fn side_to_move(&self, pos: &AnyPosition) -> Result<Player, Error> {
        with_pos!(self, pos, g, p, _w => Ok(g.side_to_move(p)))
    }

    /// Turns played.
    pub fn turns(&self, pos: &AnyPosition) -> Result<u32, Error> {
        with_pos!(self, pos, g, p, _w => Ok(g.turns(p)))
    }

    /// The legal moves.
    pub fn legal_moves(&self, pos: &AnyPosition) -> Result<Vec<AnyMove>, Error> {
        with_pos!(self, pos, g, p, wrap => {
            let mut moves = MoveList::new();
            g.legal_moves(p, &mut moves);
            Ok(moves.into_iter().map(wrap).collect())
        })
    }

    /// Parses a move in this position (not checked for legality).
    pub fn parse_move(&self, pos: &AnyPosition, text: &str) -> Result<AnyMove, Error> {
        with_pos!(self, pos, g, p, wrap => Ok(wrap(g.parse_move(p, text)?)))
    }

    /// The move in move notation.
    pub fn format_move(&self, pos: &AnyPosition, mv: &AnyMove) -> Result<String, Error> {
        with_move!(self, pos, mv, g, p, m => Ok(g.format_move(p, *m)))
    }

    /// Why the move is illegal, or `Ok`.
    pub fn check_move(&self, pos: &AnyPosition, mv: &AnyMove) -> Result<(), Error> {
        with_move!(self, pos, mv, g, p, m => g.check_move(p, *m).map_err(Error::from))
    }

    /// Plays a legal move, returning the new position and the turn's events.
    pub fn play(&self, pos: &AnyPosition, mv: &AnyMove) -> Result<(AnyPosition, Vec<Event>), Error> {
        with_move!(self, pos, mv, g, p, m => {
            g.check_move(p, *m)?;
            let mut events = Vec::new();
            let next = g.play_traced(p, *m, &mut events);
            Ok((next.into(), events))
        })
    }

    /// Plays a move known to be legal (no check, no events).
    pub fn play_unchecked(&self, pos: &AnyPosition, mv: &AnyMove) -> Result<AnyPosition, Error> {
        with_move!(self, pos, mv, g, p, m => Ok(g.play_unchecked(p, *m).into()))
    }

    /// Whether a search `depth` turns deep from `pos` may meet the variant's turn limit, so that
    /// its value must not be cached or shared (see [`crate::search::near_turn_limit`]).
    pub fn near_turn_limit(&self, pos: &AnyPosition, depth: u32) -> Result<bool, Error> {
        with_pos!(self, pos, g, p, _w => Ok(crate::search::near_turn_limit(
            g.turns(p),
            depth,
            g.variant().max_turns(),
            g.max_steps_per_turn(),
        )))
    }

    /// Whether the position is inside a turn (see [`Game::mid_turn`]).
    pub fn mid_turn(&self, pos: &AnyPosition) -> Result<bool, Error> {
        with_pos!(self, pos, g, p, _w => Ok(g.mid_turn(p)))
    }

    /// Every legal turn, depth first in move-generation order, with its notation and the
    /// position it leads to. Unbounded (a `Vec`): a turn with choices at each of several
    /// captures has exponentially many completions.
    pub fn legal_turns(&self, pos: &AnyPosition) -> Result<Vec<TurnSuccessor>, Error> {
        let mut out = Vec::new();
        self.collect_turns(pos, &mut Vec::new(), &mut Vec::new(), &mut out)?;
        Ok(out)
    }

    /// Every legal turn with its notation, without the positions: where every turn is one step
    /// (most games) the moves are only listed, not played.
    pub fn legal_turn_moves(&self, pos: &AnyPosition) -> Result<Vec<(Turn, String)>, Error> {
        if !self.has_multi_step_turns() {
            return self
                .legal_moves(pos)?
                .into_iter()
                .map(|m| Ok((vec![m], self.format_move(pos, &m)?)))
                .collect();
        }
        Ok(self.legal_turns(pos)?.into_iter().map(|(steps, text, _)| (steps, text)).collect())
    }

    fn collect_turns(
        &self,
        pos: &AnyPosition,
        steps: &mut Turn,
        texts: &mut Vec<String>,
        out: &mut Vec<TurnSuccessor>,
    ) -> Result<(), Error> {
        for m in self.legal_moves(pos)? {
            texts.push(self.format_move(pos, &m)?);
            let next = self.play_unchecked(pos, &m)?;
            steps.push(m);
            if self.turn_goes_on(&next)? {
                self.collect_turns(&next, steps, texts, out)?;
            } else {
                out.push((steps.clone(), texts.join(&TURN_SEP.to_string()), next));
            }
            steps.pop();
            texts.pop();
        }
        Ok(())
    }

    /// Whether the turn must go on from `pos`: inside a turn with a step to play.
    fn turn_goes_on(&self, pos: &AnyPosition) -> Result<bool, Error> {
        Ok(self.mid_turn(pos)? && self.outcome(pos)?.is_none())
    }

    /// Parses a turn: its steps joined by [`TURN_SEP`]. Every step but the last is checked (the
    /// next one is read in the position it leaves); the last one and the turn's completeness are
    /// checked by [`AnyGame::check_turn`].
    pub fn parse_turn(&self, pos: &AnyPosition, text: &str) -> Result<Turn, Error> {
        let parts: Vec<&str> = text.split(TURN_SEP).map(str::trim).collect();
        // Malformed before illegal: an empty step is a notation error whatever the steps before it.
        if parts.len() > 1 && parts.iter().any(|p| p.is_empty()) {
            return Err(Error::Notation(NotationError::new(format!(
                "{text:?} is not a move: a step between '{TURN_SEP}' separators is empty"
            ))));
        }
        let mut cur = *pos;
        let mut steps = Vec::with_capacity(parts.len());
        for (i, part) in parts.iter().enumerate() {
            let m = self.parse_move(&cur, part)?;
            if i + 1 < parts.len() {
                self.check_move(&cur, &m).map_err(|e| step_error(e, i, part))?;
                cur = self.play_unchecked(&cur, &m)?;
                if !self.turn_goes_on(&cur)? {
                    return Err(illegal(
                        "turn_over",
                        format!(
                            "{part:?} ends the turn: nothing may follow it (here: {:?})",
                            parts[i + 1..].join("/")
                        ),
                    ));
                }
            }
            steps.push(m);
        }
        Ok(steps)
    }

    /// The turn in notation: its steps joined by [`TURN_SEP`].
    pub fn format_turn(&self, pos: &AnyPosition, turn: &[AnyMove]) -> Result<String, Error> {
        let mut cur = *pos;
        let mut texts = Vec::with_capacity(turn.len());
        for (i, m) in turn.iter().enumerate() {
            texts.push(self.format_move(&cur, m)?);
            if i + 1 < turn.len() {
                cur = self.play_unchecked(&cur, m)?;
            }
        }
        Ok(texts.join(&TURN_SEP.to_string()))
    }

    /// Plays a whole turn, returning the new position and every step's events in order. Each step
    /// must be legal, and the turn must be finished: an unfinished one is refused with the ways
    /// it may go on.
    pub fn play_turn(&self, pos: &AnyPosition, turn: &[AnyMove]) -> Result<(AnyPosition, Vec<Event>), Error> {
        if turn.is_empty() {
            return Err(illegal("empty_turn", "a turn needs at least one move"));
        }
        let mut cur = *pos;
        let mut events = Vec::new();
        for (i, m) in turn.iter().enumerate() {
            if i > 0 && !self.turn_goes_on(&cur)? {
                return Err(illegal("turn_over", format!("step {} comes after the end of the turn", i + 1)));
            }
            // A one-step turn's error is the move's own; a longer turn's names the step.
            let (next, ev) = self.play(&cur, m).map_err(|e| match self.format_move(&cur, m) {
                Ok(text) if turn.len() > 1 => step_error(e, i, &text),
                _ => e,
            })?;
            events.extend(ev);
            cur = next;
        }
        if self.turn_goes_on(&cur)? {
            let options = self.legal_turns(&cur)?.into_iter().map(|(_, t, _)| t).collect::<Vec<_>>();
            let shown = options.iter().take(12).cloned().collect::<Vec<_>>().join(", ");
            let more =
                if options.len() > 12 { format!(" and {} more", options.len() - 12) } else { String::new() };
            return Err(illegal(
                "turn_unfinished",
                format!(
                    "the turn is not finished: after {:?} it goes on with one of {shown}{more} (join the steps with '{TURN_SEP}')",
                    self.format_turn(pos, turn)?
                ),
            ));
        }
        Ok((cur, events))
    }

    /// Why the turn is illegal, or `Ok`.
    pub fn check_turn(&self, pos: &AnyPosition, turn: &[AnyMove]) -> Result<(), Error> {
        self.play_turn(pos, turn).map(|_| ())
    }

    /// Perft over turns: leaves `depth` turns deep, every turn one move.
    pub fn perft_turns(&self, pos: &AnyPosition, depth: u32) -> Result<u64, Error> {
        if !self.has_multi_step_turns() {
            return self.perft(pos, depth);
        }
        if depth == 0 {
            return Ok(1);
        }
        let turns = self.legal_turns(pos)?;
        if depth == 1 {
            return Ok(turns.len() as u64);
        }
        turns.iter().map(|(_, _, next)| self.perft_turns(next, depth - 1)).sum()
    }

    /// [`AnyGame::perft_turns`] split by root turn.
    pub fn divide_turns(&self, pos: &AnyPosition, depth: u32) -> Result<Vec<(String, u64)>, Error> {
        if !self.has_multi_step_turns() {
            return self
                .divide(pos, depth)?
                .into_iter()
                .map(|(m, n)| Ok((self.format_move(pos, &m)?, n)))
                .collect();
        }
        self.legal_turns(pos)?
            .into_iter()
            .map(|(_, t, next)| Ok((t, self.perft_turns(&next, depth.saturating_sub(1))?)))
            .collect()
    }

    /// A line of steps in notation (a search's principal variation) as turns: the steps of each
    /// turn joined. A line cut inside a turn (a node limit, a stop, the table's line) is finished
    /// greedily, each further step the one the static evaluation likes best for the mover.
    pub fn turn_line(&self, pos: &AnyPosition, steps: &[String]) -> Result<Vec<String>, Error> {
        let mut out = Vec::new();
        let mut cur = *pos;
        let mut turn: Vec<String> = Vec::new();
        for text in steps {
            let m = self.parse_move(&cur, text)?;
            cur = self.play_unchecked(&cur, &m)?;
            turn.push(text.clone());
            if !self.turn_goes_on(&cur)? {
                out.push(turn.join(&TURN_SEP.to_string()));
                turn.clear();
            }
        }
        if !turn.is_empty() {
            while self.turn_goes_on(&cur)? {
                let side = self.side_to_move(&cur)?;
                let mut best: Option<(i32, AnyMove, AnyPosition)> = None;
                for m in self.legal_moves(&cur)? {
                    let next = self.play_unchecked(&cur, &m)?;
                    let v = self.evaluate(&next)?;
                    let v = if self.side_to_move(&next)? == side { v } else { -v };
                    if best.as_ref().is_none_or(|b| v > b.0) {
                        best = Some((v, m, next));
                    }
                }
                let Some((_, m, next)) = best else { break };
                turn.push(self.format_move(&cur, &m)?);
                cur = next;
            }
            out.push(turn.join(&TURN_SEP.to_string()));
        }
        Ok(out)
    }

    /// The search result with its moves as turns: the line, the best move's text and every root
    /// move's text and line (a root step is reported as the turn its own line completes).
    pub fn turn_result(&self, pos: &AnyPosition, r: &mut SearchResult<AnyMove>) -> Result<(), Error> {
        if !self.has_multi_step_turns() {
            return Ok(());
        }
        r.pv_text = self.turn_line(pos, &r.pv_text)?;
        for rm in r.moves.iter_mut() {
            let line = if rm.pv.first() == Some(&rm.text) { rm.pv.clone() } else { vec![rm.text.clone()] };
            rm.pv = self.turn_line(pos, &line)?;
            if let Some(first) = rm.pv.first() {
                rm.text = first.clone();
            }
        }
        Ok(())
    }

    fn has_multi_step_turns(&self) -> bool {
        with_game!(self, g => g.multi_step_turns())
    }

    /// The outcome, or `None` while the game goes on.
    pub fn outcome(&self, pos: &AnyPosition) -> Result<Option<Outcome>, Error> {
        with_pos!(self, pos, g, p, _w => Ok(g.outcome(p)))
    }

    /// The outcome if the game ended now as an endless cycle (a third repetition).
    pub fn endless_outcome(&self, pos: &AnyPosition) -> Result<Outcome, Error> {
        with_pos!(self, pos, g, p, _w => Ok(g.endless_outcome(p)))
    }

    /// The 64-bit position hash (turn counter excluded).
    pub fn hash_key(&self, pos: &AnyPosition) -> Result<u64, Error> {
        with_pos!(self, pos, g, p, _w => Ok(g.hash_key(p)))
    }

    /// The exact position key (turn counter excluded).
    pub fn key_bytes(&self, pos: &AnyPosition) -> Result<Vec<u8>, Error> {
        with_pos!(self, pos, g, p, _w => {
            let mut out = Vec::with_capacity(48);
            g.write_key(p, &mut out);
            Ok(out)
        })
    }

    /// Static evaluation from the side to move's view.
    pub fn evaluate(&self, pos: &AnyPosition) -> Result<i32, Error> {
        with_pos!(self, pos, g, p, _w => Ok(g.evaluate(p)))
    }

    /// Perft: leaves `depth` turns deep.
    pub fn perft(&self, pos: &AnyPosition, depth: u32) -> Result<u64, Error> {
        with_pos!(self, pos, g, p, _w => Ok(game::perft(g, p, depth)))
    }

    /// Perft split by root move.
    pub fn divide(&self, pos: &AnyPosition, depth: u32) -> Result<Vec<(AnyMove, u64)>, Error> {
        with_pos!(self, pos, g, p, wrap => Ok(game::divide(g, p, depth).into_iter().map(|(m, n)| (wrap(m), n)).collect()))
    }

    /// What each cell holds (see [`Game::cells`]).
    pub fn cells(&self, pos: &AnyPosition) -> Result<Vec<i32>, Error> {
        with_pos!(self, pos, g, p, _w => Ok(g.cells(p)))
    }

    /// Seeds or pieces held off the board, if the game has stores.
    pub fn stores(&self, pos: &AnyPosition) -> Result<Option<[i32; 2]>, Error> {
        with_pos!(self, pos, g, p, _w => Ok(g.stores(p)))
    }

    /// Searches the position (see [`crate::search`]). `history` holds the game's earlier
    /// positions, oldest first: repeating one of them ends the game as an endless cycle.
    /// Progress and the shared table come through `hooks`, with moves as [`AnyMove`].
    ///
    /// Moves are whole turns, as everywhere at the boundary. Where a game's turns take several
    /// steps the engine scores each first step by its best completion; when every move is asked
    /// for (a multi-PV count covering every root step), the turns no step's line names are then scored by a
    /// search of the position each leads to, one turn shallower, so that every legal turn has its
    /// score ([`AnyGame::score_every_turn`]).
    pub fn search(
        &self,
        pos: &AnyPosition,
        history: &[AnyPosition],
        options: &SearchOptions,
        hooks: Hooks<'_, AnyMove>,
    ) -> Result<SearchResult<AnyMove>, Error> {
        let keys = history.iter().map(|h| self.hash_key(h)).collect::<Result<Vec<u64>, Error>>()?;
        let mut r = self.search_keys(pos, &keys, options, hooks, None)?;
        self.score_every_turn(pos, &keys, options, &mut r)?;
        Ok(r)
    }

    /// [`AnyGame::search`] with a table kept by the caller between searches (see
    /// [`crate::search::search_with_table`]).
    pub fn search_with_table(
        &self,
        pos: &AnyPosition,
        history: &[AnyPosition],
        options: &SearchOptions,
        hooks: Hooks<'_, AnyMove>,
        table: &mut TranspositionTable,
    ) -> Result<SearchResult<AnyMove>, Error> {
        let keys = history.iter().map(|h| self.hash_key(h)).collect::<Result<Vec<u64>, Error>>()?;
        let mut r = self.search_keys(pos, &keys, options, hooks, Some(table))?;
        self.score_every_turn(pos, &keys, options, &mut r)?;
        Ok(r)
    }

    /// The search, with the history as hash keys and an optional kept table; moves as turns.
    fn search_keys(
        &self,
        pos: &AnyPosition,
        keys: &[u64],
        options: &SearchOptions,
        hooks: Hooks<'_, AnyMove>,
        table: Option<&mut TranspositionTable>,
    ) -> Result<SearchResult<AnyMove>, Error> {
        let Hooks { mut progress, mut shared } = hooks;
        with_pos!(self, pos, g, p, wrap => {
            let mut forward = |r: &SearchResult<_>| {
                if let Some(f) = progress.as_deref_mut() {
                    let mut r = r.map(|m| wrap(*m));
                    if self.turn_result(pos, &mut r).is_ok() {
                        f(&r);
                    }
                }
            };
            let shared = shared.as_mut().map(|s| &mut **s as &mut dyn crate::search::SharedTable);
            let hooks = Hooks { progress: Some(&mut forward), shared };
            let r = match table {
                Some(t) => crate::search::search_with_table(g, p, keys, options, hooks, t),
                None => crate::search::search(g, p, keys, options, hooks),
            };
            let mut r = r.map(|m| wrap(*m));
            self.turn_result(pos, &mut r)?;
            Ok(r)
        })
    }

    /// Completes the per-move scores of a search in a game whose turns take several steps: when
    /// every move was asked for (a multi-PV count covering every root step), each legal turn that no step's
    /// line names (another completion of a first step) is scored by a search of the position it
    /// leads to, to one turn less than the search's depth (at least 1), all of them sharing one
    /// table. A turn ending the game is scored by its outcome. Stops early with the search's stop
    /// flag (the turns not reached stay unlisted). Nodes and time of these searches are added.
    fn score_every_turn(
        &self,
        pos: &AnyPosition,
        keys: &[u64],
        options: &SearchOptions,
        r: &mut SearchResult<AnyMove>,
    ) -> Result<(), Error> {
        let every_move = options.multipv > 1 && options.multipv >= r.moves.len();
        if !self.has_multi_step_turns() || !every_move || r.moves.is_empty() || options.window.is_some() {
            return Ok(());
        }
        let listed: std::collections::HashSet<String> = r.moves.iter().map(|m| m.text.clone()).collect();
        let missing: Vec<TurnSuccessor> =
            self.legal_turns(pos)?.into_iter().filter(|(_, text, _)| !listed.contains(text)).collect();
        if missing.is_empty() {
            return Ok(());
        }
        let mut child_keys = keys.to_vec();
        child_keys.push(self.hash_key(pos)?);
        let child_options = SearchOptions {
            limits: Limits {
                depth: Some(r.depth.saturating_sub(1).max(1)),
                nodes: None,
                time: None,
                clock: None,
            },
            multipv: 1,
            window: None,
            ..options.clone()
        };
        let mut table = TranspositionTable::new(options.hash_mb);
        let side = self.side_to_move(pos)?;
        for (steps, text, next) in missing {
            if options.stop.as_ref().is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
                break;
            }
            let c =
                self.search_keys(&next, &child_keys, &child_options, Hooks::default(), Some(&mut table))?;
            let v = if self.side_to_move(&next)? == side { c.value } else { -c.value };
            // A proven end is as many plies further from the root as the turn has steps (the
            // engine counts a step as a ply of distance, though not of depth).
            let value = crate::search::score::from_table(v, steps.len() as u32);
            let mut pv = Vec::with_capacity(c.pv_text.len() + 1);
            pv.push(text.clone());
            pv.extend(c.pv_text);
            r.nodes += c.nodes;
            r.elapsed += c.elapsed;
            r.moves.push(RootMove {
                mv: steps[0],
                text,
                value,
                score: Score::from_value(value),
                bound: Bound::Exact,
                pv,
            });
        }
        // Stable: among equal values the engine's own order stays, so the best move stays first.
        r.moves.sort_by_key(|m| std::cmp::Reverse(m.value));
        Ok(())
    }

    /// Board geometry for frontends.
    pub fn geometry(&self) -> Geometry {
        with_game!(self, g => g.geometry())
    }

    /// The rules as readable sentences.
    pub fn describe_rules(&self) -> Vec<String> {
        match self {
            AnyGame::Ikibuguzo(g) => g.describe(),
            AnyGame::Sabouiyya(g) => g.describe(),
            AnyGame::Sowing(g) => {
                let v = g.variant();
                g.rules().describe(v.int("holes") as u8, v.int("seeds") as u8)
            }
            AnyGame::Bechi(g) => g.describe_rules(),
        }
    }

    /// Plays `count` random games from `pos` with a small deterministic generator seeded by `seed`;
    /// returns the total number of turns played (a benchmark of move generation and play).
    pub fn random_playouts(&self, pos: &AnyPosition, count: u32, seed: u64) -> Result<u64, Error> {
        with_pos!(self, pos, g, p, _w => Ok(random_playouts(g, p, count, seed)))
    }
}

/// Plays `count` random games from `start`; returns the turns played in all.
pub fn random_playouts<G: Game>(g: &G, start: &G::Position, count: u32, seed: u64) -> u64 {
    let mut rng = SplitMix64(seed);
    let mut turns = 0u64;
    let mut moves = MoveList::new();
    for _ in 0..count {
        let mut pos = *start;
        loop {
            moves.clear();
            g.legal_moves(&pos, &mut moves);
            if moves.is_empty() {
                break;
            }
            pos = g.play_unchecked(&pos, moves[rng.below(moves.len())]);
            turns += 1;
        }
    }
    turns
}

#[allow(dead_code)]
fn _assert_send_sync() {
    fn is<T: Send + Sync>() {}
    is::<AnyGame>();
    is::<AnyPosition>();
    is::<AnyMove>();
}

/// An illegal move as an [`Error`].
pub fn illegal(code: &'static str, message: impl Into<String>) -> Error {
    Error::Illegal(IllegalMove::new(code, message))
}

/// A step's error within a turn, naming the step.
fn step_error(e: Error, index: usize, text: &str) -> Error {
    match e {
        Error::Illegal(m) => Error::Illegal(IllegalMove::new(
            m.code,
            format!("step {} ({text:?}) of the turn: {}", index + 1, m.message),
        )),
        other => other,
    }
}
