//! Python bindings of `griot-core`: frozen classes over the core's values, one exception
//! hierarchy mapped from the core's errors in one place ([`to_py_err`]), the GIL released around
//! long work. No rules live here.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use griot_core::error::Error;
use griot_core::error::VariantError as CoreVariantError;
use griot_core::registry::{self, AnyGame, AnyMove, AnyPosition, FamilyKind, Turn};
use griot_core::search::{
    self as engine, Bound as SearchBound, EvalStyle, Hooks, Limits, SearchOptions, SharedEntry,
    SharedRequest, SharedTable,
};
use griot_core::variant::{Allowed, OptionValue};
use griot_core::{CaptureKind, Event, Outcome, Player};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

create_exception!(griot, GriotError, PyValueError, "Base of every error Griot raises for bad input.");
create_exception!(griot, NotationError, GriotError, "A position or move that could not be parsed.");
create_exception!(griot, VariantError, GriotError, "A malformed variant string or a bad option.");
create_exception!(griot, UnknownVariantError, VariantError, "No game has this variant id.");
create_exception!(griot, RuleFileError, VariantError, "A rule file with a bad field (see .field).");
create_exception!(
    griot,
    EgdbError,
    GriotError,
    "An endgame database that cannot be built or read: a rule set that cannot have one, a damaged or foreign file."
);
create_exception!(
    griot,
    IllegalMoveError,
    GriotError,
    "A move that is not legal in the position (see .code)."
);

/// Maps a core error to its Python exception. The only place this mapping is made.
fn to_py_err(py: Python<'_>, e: Error) -> PyErr {
    let err = match &e {
        Error::Notation(n) => NotationError::new_err(n.message.clone()),
        Error::Illegal(i) => IllegalMoveError::new_err(i.message.clone()),
        Error::Variant(CoreVariantError::Unknown(_)) => UnknownVariantError::new_err(e.to_string()),
        Error::Variant(CoreVariantError::RuleFile { .. }) => RuleFileError::new_err(e.to_string()),
        Error::Variant(_) => VariantError::new_err(e.to_string()),
    };
    let value = err.value(py);
    let set = |k: &str, v: Option<String>| {
        let _ = value.setattr(k, v);
    };
    // Every instance carries every attribute, None where it does not apply.
    for k in ["code", "field", "option"] {
        set(k, None);
    }
    match e {
        Error::Illegal(i) => set("code", Some(i.code.to_string())),
        Error::Variant(CoreVariantError::RuleFile { field, .. }) => set("field", Some(field)),
        Error::Variant(CoreVariantError::BadOption { option, .. }) => set("option", Some(option)),
        _ => {}
    }
    err
}

fn core<T>(py: Python<'_>, r: Result<T, impl Into<Error>>) -> PyResult<T> {
    r.map_err(|e| to_py_err(py, e.into()))
}

fn player_str(p: Player) -> &'static str {
    match p {
        Player::South => "S",
        Player::North => "N",
    }
}

/// A variant: a game with its options resolved. Compares and hashes by its canonical string.
#[pyclass(frozen, module = "griot._core")]
struct Variant {
    game: Arc<AnyGame>,
}

#[pymethods]
impl Variant {
    #[new]
    fn new(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = text_arg::<VariantError>(text, "a variant string")?;
        Ok(Variant { game: core(py, registry::game(&text))? })
    }

    /// The family id, e.g. `abapa`.
    #[getter]
    fn id(&self) -> String {
        self.game.family_id().to_string()
    }

    /// The canonical variant string, e.g. `abapa(holes=4)`.
    #[getter]
    fn canonical(&self) -> String {
        self.game.variant().to_string()
    }

    /// The display name.
    #[getter]
    fn name(&self) -> String {
        family(self.game.family_id()).map(|f| f.name).unwrap_or_default()
    }

    /// Every option with its value.
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.game.variant().options() {
            match v {
                OptionValue::Int(i) => d.set_item(k, *i)?,
                OptionValue::Bool(b) => d.set_item(k, *b)?,
            }
        }
        Ok(d)
    }

    /// The rules as readable sentences.
    #[getter]
    fn rules(&self) -> Vec<String> {
        self.game.describe_rules()
    }

    /// Board geometry: rows, cols, stores, sowing, and cells as dicts (row, col, owner, label).
    #[getter]
    fn geometry<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let g = self.game.geometry();
        let d = PyDict::new(py);
        d.set_item("rows", g.rows)?;
        d.set_item("cols", g.cols)?;
        d.set_item("stores", g.stores)?;
        d.set_item("sowing", g.sowing)?;
        let cells = PyList::empty(py);
        for c in g.cells {
            let cd = PyDict::new(py);
            cd.set_item("row", c.row)?;
            cd.set_item("col", c.col)?;
            cd.set_item("owner", c.owner.map(player_str))?;
            cd.set_item("label", c.label)?;
            cells.append(cd)?;
        }
        d.set_item("cells", cells)?;
        Ok(d)
    }

    /// The start position.
    fn start(&self) -> Position {
        Position { game: self.game.clone(), pos: self.game.start() }
    }

    /// Parses a position body (the notation without the variant string) of this variant.
    fn position(&self, py: Python<'_>, body: &Bound<'_, PyAny>) -> PyResult<Position> {
        let body = text_arg::<NotationError>(body, "a position")?;
        Ok(Position { game: self.game.clone(), pos: core(py, self.game.parse_body(&body))? })
    }

    fn __str__(&self) -> String {
        self.canonical()
    }

    fn __repr__(&self) -> String {
        format!("Variant({:?})", self.canonical())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Variant>() {
            Ok(o) => o.get().canonical() == self.canonical(),
            Err(_) => other.extract::<String>().is_ok_and(|s| s == self.canonical()),
        }
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.canonical().hash(&mut h);
        h.finish()
    }
}

fn family(id: &str) -> Option<registry::Family> {
    registry::families().into_iter().find(|f| f.id == id)
}

/// A move in a position: a whole turn (its steps joined by `/` where a turn takes several).
/// Compares equal to its notation string.
#[pyclass(frozen, module = "griot._core")]
struct Move {
    steps: Turn,
    text: String,
}

#[pymethods]
impl Move {
    /// The move in move notation.
    #[getter]
    fn text(&self) -> String {
        self.text.clone()
    }

    /// The turn's steps in notation (one for most moves).
    #[getter]
    fn steps(&self) -> Vec<String> {
        self.text.split(registry::TURN_SEP).map(str::to_string).collect()
    }

    fn __str__(&self) -> String {
        self.text.clone()
    }

    fn __repr__(&self) -> String {
        format!("Move({:?})", self.text)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Move>() {
            Ok(o) => o.get().steps == self.steps,
            Err(_) => other.extract::<String>().is_ok_and(|s| s == self.text),
        }
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.text.hash(&mut h);
        h.finish()
    }
}

/// How a finished game ended.
#[pyclass(frozen, get_all, module = "griot._core")]
struct GameOutcome {
    /// `"S"`, `"N"`, or `None` for a draw.
    winner: Option<String>,
    /// Final scores of South and North.
    scores: (i32, i32),
    /// Why the game ended, e.g. `stuck`, `store_threshold`, `endless_cycle`.
    reason: String,
}

#[pymethods]
impl GameOutcome {
    fn __repr__(&self) -> String {
        let winner = self.winner.as_deref().map(|w| format!("'{w}'")).unwrap_or_else(|| "None".into());
        format!("Outcome(winner={winner}, scores={:?}, reason='{}')", self.scores, self.reason)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<GameOutcome>().is_ok_and(|o| {
            let o = o.get();
            o.winner == self.winner && o.scores == self.scores && o.reason == self.reason
        })
    }
}

fn outcome_py(o: Outcome) -> GameOutcome {
    GameOutcome {
        winner: o.winner.map(|p| player_str(p).to_string()),
        scores: (o.scores[0], o.scores[1]),
        reason: o.reason.name().to_string(),
    }
}

/// One step of a turn: `kind` is `lap`, `capture`, `capture_forfeited`, `pass`, `place`, `step`,
/// `fill`, `note` or `cut`; the other fields are set where the kind has them.
#[pyclass(frozen, get_all, module = "griot._core")]
struct TurnEvent {
    kind: String,
    /// The player concerned (`S`/`N`), if any.
    player: Option<String>,
    /// The cell concerned (origin of a lap, captured hole, placed cell, step origin).
    cell: Option<u8>,
    /// Cells in order: holes sown in a lap, forfeited holes, the destination of a step.
    cells: Vec<u32>,
    /// Seeds lifted, captured or filled.
    seeds: u32,
    /// For captures: `final`, `chain`, `flow`, `remaining` or `piece`; for notes: the note's name.
    detail: Option<String>,
}

#[pymethods]
impl TurnEvent {
    fn __repr__(&self) -> String {
        format!(
            "TurnEvent(kind='{}', player={}, cell={}, cells={:?}, seeds={}, detail={})",
            self.kind,
            py_opt(self.player.as_deref().map(|p| format!("'{p}'"))),
            py_opt(self.cell.map(|c| c.to_string())),
            self.cells,
            self.seeds,
            py_opt(self.detail.as_deref().map(|d| format!("'{d}'")))
        )
    }
}

/// Python's spelling of an optional value.
fn py_opt(v: Option<String>) -> String {
    v.unwrap_or_else(|| "None".into())
}

/// Text from Python: anything but a valid str (a lone surrogate, bytes) is the caller's error of
/// kind `E`, never a UnicodeEncodeError.
fn text_arg<E: pyo3::type_object::PyTypeInfo>(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    match obj.cast::<pyo3::types::PyString>() {
        Ok(s) => {
            s.to_str().map(str::to_owned).map_err(|_| PyErr::new::<E, _>(format!("{what} is not valid text")))
        }
        Err(_) => Err(PyErr::new::<E, _>(format!("{what} must be a str"))),
    }
}

fn event_py(e: Event) -> TurnEvent {
    let mut t = TurnEvent {
        kind: String::new(),
        player: None,
        cell: None,
        cells: Vec::new(),
        seeds: 0,
        detail: None,
    };
    match e {
        Event::Lap { origin, lifted, sown } => {
            t.kind = "lap".into();
            t.cell = Some(origin);
            t.seeds = lifted as u32;
            t.cells = sown.into_iter().map(u32::from).collect();
        }
        Event::Capture { cell, seeds, player, kind } => {
            t.kind = "capture".into();
            t.cell = Some(cell);
            t.seeds = seeds as u32;
            t.player = Some(player_str(player).into());
            t.detail = Some(
                match kind {
                    CaptureKind::Final => "final",
                    CaptureKind::Chain => "chain",
                    CaptureKind::Flow => "flow",
                    CaptureKind::Remaining => "remaining",
                    CaptureKind::Piece => "piece",
                }
                .into(),
            );
        }
        Event::CaptureForfeited { cells } => {
            t.kind = "capture_forfeited".into();
            t.cells = cells.into_iter().map(u32::from).collect();
        }
        Event::Pass { player } => {
            t.kind = "pass".into();
            t.player = Some(player_str(player).into());
        }
        Event::Place { cell, player } => {
            t.kind = "place".into();
            t.cell = Some(cell);
            t.player = Some(player_str(player).into());
        }
        Event::Step { from, to } => {
            t.kind = "step".into();
            t.cell = Some(from);
            t.cells = vec![u32::from(to)];
        }
        Event::Fill { cell, seeds, player } => {
            t.kind = "fill".into();
            t.cell = Some(cell);
            t.seeds = seeds as u32;
            t.player = Some(player_str(player).into());
        }
        Event::Note { name, player } => {
            t.kind = "note".into();
            t.detail = Some(name.into());
            t.player = player.map(|p| player_str(p).into());
        }
        Event::Cut { laps } => {
            t.kind = "cut".into();
            t.seeds = laps;
        }
    }
    t
}

/// A position of any game. Immutable; compares and hashes by its notation.
#[pyclass(frozen, module = "griot._core")]
struct Position {
    game: Arc<AnyGame>,
    pos: AnyPosition,
}

impl Position {
    fn with(&self, pos: AnyPosition) -> Position {
        Position { game: self.game.clone(), pos }
    }

    fn to_move(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> PyResult<Turn> {
        if let Ok(m) = mv.cast::<Move>() {
            return Ok(m.get().steps.clone());
        }
        let text: String =
            mv.extract().map_err(|_| NotationError::new_err("a move is a Move or its notation string"))?;
        core(py, self.game.parse_turn(&self.pos, &text))
    }

    fn turns_py(&self, py: Python<'_>) -> PyResult<Vec<(Move, Position)>> {
        let turns = core(py, self.game.legal_turns(&self.pos))?;
        Ok(turns.into_iter().map(|(steps, text, next)| (Move { steps, text }, self.with(next))).collect())
    }

    fn text(&self) -> String {
        self.game.format_position(&self.pos).expect("a position always belongs to its own game")
    }

    /// The move a search reported (a turn in notation) as a `Move`.
    fn turn_move(&self, py: Python<'_>, text: &str) -> PyResult<Move> {
        Ok(Move { steps: core(py, self.game.parse_turn(&self.pos, text))?, text: text.to_string() })
    }
}

#[pymethods]
impl Position {
    /// Parses a position in Griot notation: `<variant> <body>`.
    #[new]
    fn new(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = text_arg::<NotationError>(text, "a position")?;
        let (game, pos) = core(py, registry::parse_position(&text))?;
        Ok(Position { game, pos })
    }

    /// The variant.
    #[getter]
    fn variant(&self) -> Variant {
        Variant { game: self.game.clone() }
    }

    /// `"S"` or `"N"`.
    #[getter]
    fn side_to_move(&self, py: Python<'_>) -> PyResult<&'static str> {
        Ok(player_str(core(py, self.game.side_to_move(&self.pos))?))
    }

    /// Turns played so far.
    #[getter]
    fn turns(&self, py: Python<'_>) -> PyResult<u32> {
        core(py, self.game.turns(&self.pos))
    }

    /// Whether a search ``depth`` turns deep from here may meet the variant's turn limit (within
    /// the engine's margin; in games that count a turn's steps, as many steps a turn as one can
    /// take): its value then depends on the turns played, not only on the position, so it must
    /// not be cached or shared across games.
    fn near_turn_limit(&self, py: Python<'_>, depth: u32) -> PyResult<bool> {
        core(py, self.game.near_turn_limit(&self.pos, depth))
    }

    /// What each cell holds, indexed like the variant's geometry cells.
    #[getter]
    fn cells(&self, py: Python<'_>) -> PyResult<Vec<i32>> {
        core(py, self.game.cells(&self.pos))
    }

    /// (South, North) seeds or pieces held off the board, or None if the game has no stores.
    #[getter]
    fn stores(&self, py: Python<'_>) -> PyResult<Option<(i32, i32)>> {
        Ok(core(py, self.game.stores(&self.pos))?.map(|s| (s[0], s[1])))
    }

    /// The legal moves (none when the game is over), each a whole turn.
    fn legal_moves(&self, py: Python<'_>) -> PyResult<Vec<Move>> {
        let turns = core(py, self.game.legal_turn_moves(&self.pos))?;
        Ok(turns.into_iter().map(|(steps, text)| Move { steps, text }).collect())
    }

    /// Parses a move (a whole turn) in this position (a `Move` is returned unchanged). Raises
    /// NotationError, or IllegalMoveError for a step before the last that is not legal.
    fn parse_move(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Move> {
        let steps = self.to_move(py, text)?;
        Ok(Move { text: core(py, self.game.format_turn(&self.pos, &steps))?, steps })
    }

    /// Raises IllegalMoveError (with `.code`) if the move is not legal here (an unfinished turn
    /// is not: `turn_unfinished`, with the ways it may go on).
    fn check(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> PyResult<()> {
        let m = self.to_move(py, mv)?;
        core(py, self.game.check_turn(&self.pos, &m))
    }

    /// Whether the move is legal here (False also for unparsable moves).
    fn is_legal(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> bool {
        match self.to_move(py, mv) {
            Ok(m) => self.game.check_turn(&self.pos, &m).is_ok(),
            Err(_) => false,
        }
    }

    /// Whether this position is inside a turn (given in notation: the player who moved must go
    /// on; its legal moves are the turn's completions).
    #[getter]
    fn mid_turn(&self, py: Python<'_>) -> PyResult<bool> {
        core(py, self.game.mid_turn(&self.pos))
    }

    /// The position after the move (a Move or its notation). Raises IllegalMoveError.
    fn play(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> PyResult<Position> {
        let m = self.to_move(py, mv)?;
        let (next, _) = core(py, self.game.play_turn(&self.pos, &m))?;
        Ok(self.with(next))
    }

    /// The position after the move and the turn's events, in order.
    fn play_with_events(
        &self,
        py: Python<'_>,
        mv: &Bound<'_, PyAny>,
    ) -> PyResult<(Position, Vec<TurnEvent>)> {
        let m = self.to_move(py, mv)?;
        let (next, events) = core(py, self.game.play_turn(&self.pos, &m))?;
        Ok((self.with(next), events.into_iter().map(event_py).collect()))
    }

    /// Every legal move with the position it leads to.
    fn successors(&self, py: Python<'_>) -> PyResult<Vec<(Move, Position)>> {
        self.turns_py(py)
    }

    /// The outcome, or None while the game goes on.
    #[getter]
    fn outcome(&self, py: Python<'_>) -> PyResult<Option<GameOutcome>> {
        Ok(core(py, self.game.outcome(&self.pos))?.map(outcome_py))
    }

    /// Whether the game is over.
    #[getter]
    fn is_over(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(core(py, self.game.outcome(&self.pos))?.is_some())
    }

    /// The outcome if the game ended here as an endless cycle (a third repetition).
    fn endless_outcome(&self, py: Python<'_>) -> PyResult<GameOutcome> {
        Ok(outcome_py(core(py, self.game.endless_outcome(&self.pos))?))
    }

    /// The exact position key (everything but the turn counter), for caches.
    #[getter]
    fn key<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &core(py, self.game.key_bytes(&self.pos))?))
    }

    /// A 64-bit hash of the key.
    #[getter]
    fn zobrist(&self, py: Python<'_>) -> PyResult<u64> {
        core(py, self.game.hash_key(&self.pos))
    }

    /// Leaf count `depth` turns deep, every leaf made. Releases the GIL.
    fn perft(&self, py: Python<'_>, depth: u32) -> PyResult<u64> {
        let (g, p) = (self.game.clone(), self.pos);
        let r = py.detach(move || g.perft_turns(&p, depth));
        core(py, r)
    }

    /// Perft split by root move: {move: leaves}. Releases the GIL.
    fn divide<'py>(&self, py: Python<'py>, depth: u32) -> PyResult<Bound<'py, PyDict>> {
        let (g, p) = (self.game.clone(), self.pos);
        let r = core(py, py.detach(move || g.divide_turns(&p, depth)))?;
        let d = PyDict::new(py);
        for (m, n) in r {
            d.set_item(m, n)?;
        }
        Ok(d)
    }

    /// Plays `count` random games from here (deterministic for a seed); returns turns played.
    /// Releases the GIL.
    #[pyo3(signature = (count, seed=0))]
    fn random_playouts(&self, py: Python<'_>, count: u32, seed: u64) -> PyResult<u64> {
        let (g, p) = (self.game.clone(), self.pos);
        let r = py.detach(move || g.random_playouts(&p, count, seed));
        core(py, r)
    }

    fn __str__(&self) -> String {
        self.text()
    }

    fn __repr__(&self) -> String {
        format!("Position({:?})", self.text())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Position>() {
            Ok(o) => o.get().text() == self.text(),
            Err(_) => other.extract::<String>().is_ok_and(|s| s == self.text()),
        }
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.text().hash(&mut h);
        h.finish()
    }
}

/// Every game family as dicts: id, name, kind, builtin, description, source, options.
#[pyfunction]
fn families<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for f in registry::families() {
        let d = PyDict::new(py);
        d.set_item("id", &f.id)?;
        d.set_item("name", &f.name)?;
        d.set_item("kind", if f.kind == FamilyKind::RuleFile { "rule_file" } else { "module" })?;
        d.set_item("builtin", f.builtin)?;
        d.set_item("description", &f.description)?;
        d.set_item("source", &f.source)?;
        let opts = PyList::empty(py);
        for o in &f.options {
            let od = PyDict::new(py);
            od.set_item("name", &o.name)?;
            match &o.default {
                OptionValue::Int(i) => od.set_item("default", *i)?,
                OptionValue::Bool(b) => od.set_item("default", *b)?,
            }
            match &o.allowed {
                Allowed::Range(lo, hi) => {
                    od.set_item("type", "int")?;
                    od.set_item("min", *lo)?;
                    od.set_item("max", *hi)?;
                }
                Allowed::OneOf(v) => {
                    od.set_item("type", "int")?;
                    od.set_item("choices", PyTuple::new(py, v)?)?;
                }
                Allowed::Bool => od.set_item("type", "bool")?,
            }
            od.set_item("description", &o.description)?;
            opts.append(od)?;
        }
        d.set_item("options", opts)?;
        out.append(d)?;
    }
    Ok(out)
}

/// Registers a user rule file's text; returns its default variant. Raises RuleFileError.
#[pyfunction]
fn register_rule_file(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Variant> {
    let text = text_arg::<RuleFileError>(text, "a rule file")?;
    let rules = core(py, registry::register_rule_file(&text))?;
    Ok(Variant { game: core(py, registry::game(&rules.id))? })
}

/// The text of a built-in rule file by variant id, or None.
#[pyfunction]
fn builtin_rule_file(id: &str) -> Option<&'static str> {
    let name = format!("{id}.toml");
    // Readings live in a folder of their own; the file name is the id either way.
    registry::BUILTIN_RULE_FILES.iter().find(|(n, _)| n.rsplit('/').next() == Some(&name)).map(|(_, t)| *t)
}

/// A search score: a margin in centi-units, or a proven win or loss in a number of turns.
/// Orders like the engine's values (a win beats every margin).
#[pyclass(frozen, module = "griot._core")]
struct Score {
    score: engine::Score,
    value: i32,
}

fn score_py(value: i32) -> Score {
    Score { score: engine::Score::from_value(value), value }
}

#[pymethods]
impl Score {
    /// The score of an engine value (`Score.value`): a margin in centi-units, or a proven result
    /// within `WIN_BOUND` of `WIN`. Values beyond `WIN` raise GriotError.
    #[new]
    fn new(value: i32) -> PyResult<Self> {
        if value.unsigned_abs() > engine::score::WIN.unsigned_abs() {
            return Err(GriotError::new_err(format!(
                "score value {value} is outside [-{win}, {win}]",
                win = engine::score::WIN
            )));
        }
        Ok(score_py(value))
    }

    /// `"margin"`, `"win"` or `"loss"` (for the side to move).
    #[getter]
    fn kind(&self) -> &'static str {
        match self.score {
            engine::Score::Margin(_) => "margin",
            engine::Score::WinIn(_) => "win",
            engine::Score::LossIn(_) => "loss",
        }
    }

    /// The margin in centi-units (100 = one seed or piece), or None when proven.
    #[getter]
    fn centi(&self) -> Option<i32> {
        match self.score {
            engine::Score::Margin(c) => Some(c),
            _ => None,
        }
    }

    /// The margin in seeds or pieces, or None when proven.
    #[getter]
    fn margin(&self) -> Option<f64> {
        self.centi().map(|c| c as f64 / 100.0)
    }

    /// Turns until the proven end (both players' turns), or None for a margin.
    #[getter]
    fn turns(&self) -> Option<u32> {
        match self.score {
            engine::Score::Margin(_) => None,
            engine::Score::WinIn(n) | engine::Score::LossIn(n) => Some(n),
        }
    }

    /// A proven result in the side to move's own turns (a win ends on the mover's turn number
    /// `ceil(turns / 2)`, at least 1; a loss comes after `turns // 2` of them), or None.
    #[getter]
    fn own_turns(&self) -> Option<u32> {
        self.score.own_turns()
    }

    /// Whether the side to move is proven to win.
    #[getter]
    fn is_win(&self) -> bool {
        matches!(self.score, engine::Score::WinIn(_))
    }

    /// Whether the side to move is proven to lose.
    #[getter]
    fn is_loss(&self) -> bool {
        matches!(self.score, engine::Score::LossIn(_))
    }

    /// The engine's raw value: a total order over every score.
    #[getter]
    fn value(&self) -> i32 {
        self.value
    }

    fn __str__(&self) -> String {
        self.score.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Score({:?})", self.score.to_string())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Score>().is_ok_and(|o| o.get().value == self.value)
    }

    fn __lt__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.value < other.cast::<Score>()?.get().value)
    }

    fn __hash__(&self) -> u64 {
        self.value as u64
    }
}

/// One root move's score: `move`, `score`, `bound` (`exact`, `upper` or `lower`) and its line.
#[pyclass(frozen, get_all, module = "griot._core")]
struct MoveScore {
    /// The move in notation.
    #[pyo3(name = "move")]
    mv: String,
    score: Py<Score>,
    bound: &'static str,
    pv: Vec<String>,
}

#[pymethods]
impl MoveScore {
    fn __repr__(&self) -> String {
        format!(
            "MoveScore(move={:?}, score={:?}, bound={:?})",
            self.mv,
            self.score.get().score.to_string(),
            self.bound
        )
    }
}

/// What a search found (also passed to progress callbacks after each iteration).
#[pyclass(frozen, get_all, module = "griot._core")]
struct SearchResult {
    /// The best move, None when the game is over.
    best_move: Option<Py<Move>>,
    score: Py<Score>,
    /// The principal variation as move strings.
    pv: Vec<String>,
    depth: u32,
    seldepth: u32,
    nodes: u64,
    /// Seconds spent.
    time: f64,
    /// Nodes per second.
    nps: u64,
    /// Every root move with its score, best first.
    moves: Vec<Py<MoveScore>>,
    /// Table occupancy, per mille.
    hashfull: u32,
    /// What `score` says: `exact`, or under a search window `lower` / `upper` (fail-soft bound).
    bound: &'static str,
}

#[pymethods]
impl SearchResult {
    fn __repr__(&self) -> String {
        format!(
            "SearchResult(best_move={:?}, score={:?}, depth={}, nodes={}, pv={:?})",
            self.best_move.as_ref().map(|m| m.get().text.clone()),
            self.score.get().score.to_string(),
            self.depth,
            self.nodes,
            self.pv
        )
    }
}

fn search_result_py(
    py: Python<'_>,
    position: &Position,
    r: &engine::SearchResult<AnyMove>,
) -> PyResult<SearchResult> {
    let moves = r
        .moves
        .iter()
        .map(|m| {
            Py::new(
                py,
                MoveScore {
                    mv: m.text.clone(),
                    score: Py::new(py, score_py(m.value))?,
                    bound: m.bound.name(),
                    pv: m.pv.clone(),
                },
            )
        })
        .collect::<PyResult<Vec<_>>>()?;
    let best_move = match (&r.best, r.pv_text.first()) {
        (Some(_), Some(text)) => Some(Py::new(py, position.turn_move(py, text)?)?),
        _ => None,
    };
    Ok(SearchResult {
        best_move,
        score: Py::new(py, score_py(r.value))?,
        pv: r.pv_text.clone(),
        depth: r.depth,
        seldepth: r.seldepth,
        nodes: r.nodes,
        time: r.elapsed.as_secs_f64(),
        nps: r.nps(),
        moves,
        hashfull: r.hashfull,
        bound: r.bound.name(),
    })
}

/// A stop handle: pass it to `search`, call `set()` from any thread to stop the search (it
/// returns its last completed iteration).
#[pyclass(frozen, module = "griot._core")]
struct SearchStop {
    flag: Arc<AtomicBool>,
}

#[pymethods]
impl SearchStop {
    #[new]
    fn new() -> Self {
        SearchStop { flag: Arc::new(AtomicBool::new(false)) }
    }

    /// Asks the search to stop.
    fn set(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// Re-arms the handle for another search.
    fn clear(&self) {
        self.flag.store(false, Ordering::Relaxed);
    }

    /// Whether stop was asked.
    #[getter]
    fn is_set(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
}

fn eval_style(text: &str) -> PyResult<EvalStyle> {
    EvalStyle::parse(text).ok_or_else(|| {
        GriotError::new_err(format!(
            "eval {text:?}: expected 'learned' (the default), 'tuned', 'material' or up to four comma-separated weights"
        ))
    })
}

/// Runs a search with the GIL released; the progress callback reacquires it only to be called.
/// An exception in the callback stops the search and is raised.
fn run_search(
    py: Python<'_>,
    position: &Position,
    history: Vec<AnyPosition>,
    options: SearchOptions,
    progress: Option<Py<PyAny>>,
    shared: Option<PySharedTable>,
    table: Option<&SearchTable>,
) -> PyResult<engine::SearchResult<AnyMove>> {
    let game = position.game.clone();
    let mut shared = shared;
    let mut tt = match table {
        Some(t) => Some(
            t.table
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
                .ok_or_else(|| GriotError::new_err("this SearchTable is in use by another search"))?,
        ),
        None => None,
    };
    let pos = position.pos;
    let callback_error: Arc<Mutex<Option<PyErr>>> = Arc::new(Mutex::new(None));
    let errors = callback_error.clone();
    let stop = options.stop.clone();
    let r = py.detach(move || {
        let mut forward = |r: &engine::SearchResult<AnyMove>| {
            let Some(cb) = progress.as_ref() else { return };
            Python::attach(|py| {
                let call = search_result_py(py, position, r).and_then(|res| cb.call1(py, (res,)));
                if let Err(e) = call {
                    *errors.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                    if let Some(s) = &stop {
                        s.store(true, Ordering::Relaxed);
                    }
                }
            });
        };
        let hooks = Hooks {
            progress: Some(&mut forward),
            shared: shared.as_mut().map(|s| s as &mut dyn SharedTable),
        };
        let r = match tt.as_mut() {
            Some(tt) => game.search_with_table(&pos, &history, &options, hooks, tt),
            None => game.search(&pos, &history, &options, hooks),
        };
        (r, shared, tt)
    });
    let (r, shared, tt) = r;
    if let (Some(t), Some(tt)) = (table, tt) {
        *t.table.lock().unwrap_or_else(|e| e.into_inner()) = Some(tt);
    }
    if let Some(e) = shared.and_then(|s| s.error) {
        return Err(e);
    }
    if let Some(e) = callback_error.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(e);
    }
    core(py, r)
}

fn history_positions(position: &Position, history: Option<Vec<Py<Position>>>) -> Vec<AnyPosition> {
    history
        .unwrap_or_default()
        .iter()
        .map(|p| p.get().pos)
        .filter(|p| position.game.hash_key(p).is_ok())
        .collect()
}

/// A transposition table kept between searches (`search(..., table=...)`): a worker process that
/// searches the same subtrees one depth deeper each time finds its earlier work in it. One search
/// at a time uses it.
#[pyclass(frozen, module = "griot._core")]
struct SearchTable {
    table: Mutex<Option<engine::tt::TranspositionTable>>,
}

#[pymethods]
impl SearchTable {
    #[new]
    #[pyo3(signature = (megabytes=64))]
    fn new(megabytes: usize) -> Self {
        SearchTable { table: Mutex::new(Some(engine::tt::TranspositionTable::new(megabytes))) }
    }

    /// Forgets every entry.
    fn clear(&self) {
        if let Some(t) = self.table.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            t.clear();
        }
    }

    /// Size in bytes.
    #[getter]
    fn bytes(&self) -> usize {
        self.table.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map_or(0, |t| t.bytes())
    }
}

/// A Python object as the search's second-level table (see `griot_core::search::shared`): its
/// `min_depth` and `plies` attributes are read once; `fetch(requests)` gets a list of
/// `(key: bytes, depth: int)` once per iteration and returns entries; `publish(entries)` gets the
/// new deep entries once per iteration. An entry is `(key, depth, bound, value, best)` with `bound`
/// one of `lower`, `upper`, `exact`, a node-relative `value` and `best` the index of the best move
/// in the legal-move list (or None). The GIL is taken only for these calls; an exception in them
/// stops the search and is raised.
struct PySharedTable {
    table: Py<PyAny>,
    min_depth: u32,
    plies: u32,
    error: Option<PyErr>,
}

impl PySharedTable {
    fn new(py: Python<'_>, table: Py<PyAny>) -> PyResult<Self> {
        let min_depth = table.getattr(py, "min_depth")?.extract::<u32>(py)?;
        let plies = table.getattr(py, "plies")?.extract::<u32>(py)?;
        Ok(PySharedTable { table, min_depth: min_depth.max(1), plies: plies.min(4), error: None })
    }

    fn entry(item: &Bound<'_, PyAny>) -> PyResult<SharedEntry> {
        let (key, depth, bound, value, best): (Vec<u8>, u32, String, i32, Option<u16>) = item.extract()?;
        let bound = match bound.as_str() {
            "lower" => SearchBound::Lower,
            "upper" => SearchBound::Upper,
            "exact" => SearchBound::Exact,
            other => {
                return Err(GriotError::new_err(format!(
                    "shared table entry: bound {other:?} is not lower, upper or exact"
                )))
            }
        };
        Ok(SharedEntry { key, depth, bound, value, best })
    }
}

impl SharedTable for PySharedTable {
    fn min_depth(&self) -> u32 {
        self.min_depth
    }

    fn plies(&self) -> u32 {
        self.plies
    }

    fn fetch(&mut self, requests: &[SharedRequest]) -> Vec<SharedEntry> {
        if self.error.is_some() {
            return Vec::new();
        }
        let r = Python::attach(|py| -> PyResult<Vec<SharedEntry>> {
            let list = PyList::empty(py);
            for q in requests {
                list.append((PyBytes::new(py, &q.key), q.depth))?;
            }
            let out = self.table.call_method1(py, "fetch", (list,))?;
            out.bind(py).try_iter()?.map(|item| Self::entry(&item?)).collect()
        });
        r.unwrap_or_else(|e| {
            self.error = Some(e);
            Vec::new()
        })
    }

    fn publish(&mut self, entries: Vec<SharedEntry>) {
        if self.error.is_some() {
            return;
        }
        let r = Python::attach(|py| -> PyResult<()> {
            let list = PyList::empty(py);
            for e in entries {
                list.append((PyBytes::new(py, &e.key), e.depth, e.bound.name(), e.value, e.best))?;
            }
            self.table.call_method1(py, "publish", (list,))?;
            Ok(())
        });
        if let Err(e) = r {
            self.error = Some(e);
        }
    }
}

/// Searches a position. Limits: `depth` (turns), `time` (seconds), `nodes`,
/// `clock=(seconds left, increment)` with `moves_to_go` (the search budgets the move from the
/// clock); none of them searches until `stop` is set. `multipv`: how many root moves get exact scores (0 = every move).
/// `history`: the game's earlier positions (repeating one ends the game as an endless cycle).
/// `progress(result)` is called after each completed iteration. `window=(alpha, beta)` searches
/// the root with that window (values as `Score.value`; the result's `bound` says what its score
/// is). `shared`: a second-level table (see `PySharedTable`).
/// `new_generation=False`: this search continues the table's previous one (the subtree tasks of
/// one distributed search), so its entries do not age. `iteration_windows=[(depth, alpha, beta)]`
/// (with `window`): those iterations below the last use these windows instead (a subtree task
/// repeating its earlier tasks' windows, which its kept table answers). `resume=True`: start at
/// the depth after the one the table holds the position searched to (its best move first)
/// instead of deepening from 1. `reductions=True`: late-move reductions, for play (the value is
/// then not the full-width one). Releases the GIL.
#[pyfunction]
#[pyo3(signature = (position, depth=None, time=None, nodes=None, multipv=1, hash_mb=16, eval=EvalStyle::DEFAULT_NAME, progress=None, stop=None, history=None, window=None, shared=None, table=None, new_generation=true, iteration_windows=None, resume=false, egdb=None, clock=None, moves_to_go=None, reductions=false))]
#[allow(clippy::too_many_arguments)]
fn search(
    py: Python<'_>,
    position: &Position,
    depth: Option<u32>,
    time: Option<f64>,
    nodes: Option<u64>,
    multipv: usize,
    hash_mb: usize,
    eval: &str,
    progress: Option<Py<PyAny>>,
    stop: Option<Py<SearchStop>>,
    history: Option<Vec<Py<Position>>>,
    window: Option<(i32, i32)>,
    shared: Option<Py<PyAny>>,
    table: Option<Py<SearchTable>>,
    new_generation: bool,
    iteration_windows: Option<Vec<(u32, i32, i32)>>,
    resume: bool,
    egdb: Option<Py<Egdb>>,
    clock: Option<(f64, f64)>,
    moves_to_go: Option<u32>,
    reductions: bool,
) -> PyResult<SearchResult> {
    let inf = engine::score::INFINITE;
    let iteration_windows = iteration_windows.unwrap_or_default();
    if let Some(&(d, alpha, beta)) =
        iteration_windows.iter().find(|&&(_, alpha, beta)| !(-inf <= alpha && alpha < beta && beta <= inf))
    {
        return Err(GriotError::new_err(format!(
            "iteration window {d}: ({alpha}, {beta}): need -{inf} <= alpha < beta <= {inf}"
        )));
    }
    if let Some((alpha, beta)) = window {
        if !(-inf <= alpha && alpha < beta && beta <= inf) {
            return Err(GriotError::new_err(format!(
                "window ({alpha}, {beta}): need -{inf} <= alpha < beta <= {inf}"
            )));
        }
    }
    let shared = shared.map(|s| PySharedTable::new(py, s)).transpose()?;
    if time.is_some_and(|t| !(t >= 0.0 && t.is_finite())) {
        return Err(GriotError::new_err("time must be a non-negative number of seconds"));
    }
    let clock = match clock {
        None => None,
        Some((left, inc)) if left >= 0.0 && left.is_finite() && inc >= 0.0 && inc.is_finite() => {
            Some(engine::Clock {
                remaining: Duration::from_secs_f64(left),
                increment: Duration::from_secs_f64(inc),
                moves_to_go: moves_to_go.filter(|&m| m > 0),
            })
        }
        Some(_) => {
            return Err(GriotError::new_err("clock must be (seconds left, increment), non-negative numbers"));
        }
    };
    let options = SearchOptions {
        limits: Limits { depth, nodes, time: time.map(Duration::from_secs_f64), clock },
        multipv: if multipv == 0 { usize::MAX } else { multipv },
        hash_mb,
        eval: eval_style(eval)?,
        stop: Some(stop.map(|s| s.get().flag.clone()).unwrap_or_else(|| Arc::new(AtomicBool::new(false)))),
        aspiration: true,
        window,
        new_generation,
        iteration_windows,
        resume,
        egdb: egdb.map(|d| d.get().db.clone()),
        reductions,
    };
    let history = history_positions(position, history);
    let r = run_search(py, position, history, options, progress, shared, table.as_ref().map(|t| t.get()))?;
    search_result_py(py, position, &r)
}

/// The move an AI of strength `level` (1-10) plays: shallow searches and seeded randomness among
/// near-best moves at low levels, the best move at high ones. None when the game is over.
/// Releases the GIL.
#[pyfunction]
#[pyo3(signature = (position, level, seed=0, stop=None, history=None))]
fn best_move(
    py: Python<'_>,
    position: &Position,
    level: u8,
    seed: u64,
    stop: Option<Py<SearchStop>>,
    history: Option<Vec<Py<Position>>>,
) -> PyResult<Option<Move>> {
    if !engine::level::LEVELS.contains(&level) {
        return Err(GriotError::new_err(format!("level {level}: levels are 1 to 10")));
    }
    let lv = engine::level::level(level);
    let base = SearchOptions { stop: stop.map(|s| s.get().flag.clone()), ..SearchOptions::default() };
    let history = history_positions(position, history);
    let r = run_search(py, position, history, lv.options(&base), None, None, None)?;
    lv.choose(&r, seed)
        .map(|mv| {
            let text = r.moves.iter().find(|m| m.mv == mv).map(|m| m.text.clone()).unwrap_or_default();
            position.turn_move(py, &text)
        })
        .transpose()
}

/// Runs the fixed bench (see `griot bench`): a list of dicts (position, depth, nodes, time, best,
/// score). The total node count is the search's signature. Releases the GIL.
#[pyfunction]
#[pyo3(name = "bench")]
fn run_bench<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let lines = core(py, py.detach(griot_core::bench::run))?;
    let out = PyList::empty(py);
    for l in lines {
        let d = PyDict::new(py);
        d.set_item("position", l.position)?;
        d.set_item("depth", l.depth)?;
        d.set_item("nodes", l.nodes)?;
        d.set_item("time", l.elapsed.as_secs_f64())?;
        d.set_item("best", l.best)?;
        d.set_item("score", l.score)?;
        out.append(d)?;
    }
    Ok(out)
}

/// A window bound of a node as its child sees it, one ply lower, within ±INFINITE (the core's
/// `score::bound_to_child`): the distributed search splits windows with it.
#[pyfunction]
fn score_bound_to_child(value: i32) -> i32 {
    engine::score::bound_to_child(value)
}

/// A child's value as its parent sees it, one ply higher (the core's `score::value_from_child`).
#[pyfunction]
fn score_from_child(value: i32) -> i32 {
    engine::score::value_from_child(value)
}

/// An evaluation's name as searches write it (`learned`, `tuned`, `material`, or
/// custom weights in their canonical form); raises `GriotError` for a name no search takes.
#[pyfunction]
fn eval_name(text: &str) -> PyResult<String> {
    Ok(eval_style(text)?.name())
}

/// What names an evaluation in cached values' keys: its name, and for `learned` the digest of
/// the shipped weights (`learned.<hex>`); raises `GriotError` for a name no search takes.
#[pyfunction]
fn eval_scope(text: &str) -> PyResult<String> {
    Ok(eval_style(text)?.cache_scope())
}

/// The native module: re-exported by the `griot` package.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ENGINE_VERSION", griot_core::ENGINE_VERSION)?;
    m.add("DEFAULT_EVAL", EvalStyle::DEFAULT_NAME)?;
    // The score encoding (search::score): proven results sit within WIN_BOUND..=WIN of either end.
    m.add("WIN", engine::score::WIN)?;
    m.add("WIN_BOUND", engine::score::WIN_BOUND)?;
    m.add("MAX_PLIES", engine::score::MAX_PLIES)?;
    m.add("INFINITE", engine::score::INFINITE)?;
    m.add_class::<Variant>()?;
    m.add_class::<Position>()?;
    m.add_class::<Move>()?;
    m.add_class::<GameOutcome>()?;
    m.add_class::<TurnEvent>()?;
    m.add_class::<Score>()?;
    m.add_class::<MoveScore>()?;
    m.add_class::<SearchResult>()?;
    m.add_class::<SearchStop>()?;
    m.add_class::<SearchTable>()?;
    m.add_function(wrap_pyfunction!(search, m)?)?;
    m.add_function(wrap_pyfunction!(eval_name, m)?)?;
    m.add_function(wrap_pyfunction!(eval_scope, m)?)?;
    m.add_function(wrap_pyfunction!(score_bound_to_child, m)?)?;
    m.add_function(wrap_pyfunction!(score_from_child, m)?)?;
    m.add_class::<Egdb>()?;
    m.add_class::<EgdbProbe>()?;
    m.add_function(wrap_pyfunction!(egdb_build, m)?)?;
    m.add_function(wrap_pyfunction!(egdb_level_info, m)?)?;
    m.add_function(wrap_pyfunction!(egdb_mark_work, m)?)?;
    m.add_function(wrap_pyfunction!(egdb_chunk_bounds, m)?)?;
    m.add_function(wrap_pyfunction!(egdb_chunk_values, m)?)?;
    m.add_function(wrap_pyfunction!(egdb_write_level, m)?)?;
    m.add("EgdbError", py.get_type::<EgdbError>())?;
    m.add_function(wrap_pyfunction!(best_move, m)?)?;
    m.add_function(wrap_pyfunction!(run_bench, m)?)?;
    m.add_function(wrap_pyfunction!(families, m)?)?;
    m.add_function(wrap_pyfunction!(register_rule_file, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_rule_file, m)?)?;
    // Class-level defaults, so every instance has every attribute (None where it does not apply).
    for k in ["code", "field", "option"] {
        py.get_type::<GriotError>().setattr(k, py.None())?;
    }
    m.add("GriotError", py.get_type::<GriotError>())?;
    m.add("NotationError", py.get_type::<NotationError>())?;
    m.add("VariantError", py.get_type::<VariantError>())?;
    m.add("UnknownVariantError", py.get_type::<UnknownVariantError>())?;
    m.add("RuleFileError", py.get_type::<RuleFileError>())?;
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    Ok(())
}

fn stats_dict<'py>(py: Python<'py>, st: &griot_core::egdb::LevelStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("seeds", st.seeds)?;
    d.set_item("positions", st.positions)?;
    d.set_item("passes", st.passes)?;
    d.set_item("cycle_valued", st.cycle_valued)?;
    d.set_item("millis", st.millis)?;
    d.set_item("file_bytes", st.file_bytes)?;
    Ok(d)
}

fn egdb_err(e: griot_core::egdb::EgdbError) -> PyErr {
    EgdbError::new_err(e.to_string())
}

fn sowing_game(py: Python<'_>, variant: &str) -> PyResult<griot_core::sowing::SowingGame> {
    match &*core(py, registry::game(variant))? {
        AnyGame::Sowing(g) => Ok(g.clone()),
        g => Err(EgdbError::new_err(format!(
            "{} cannot have an endgame database: only two-row sowing games of the rule language can",
            g.variant()
        ))),
    }
}

/// A rule set's endgame databases, opened read-only from a directory (levels 0 up to the first
/// missing file). A damaged or foreign file raises EgdbError and is never read.
#[pyclass(frozen, module = "griot._core")]
struct Egdb {
    db: Arc<griot_core::egdb::Egdb>,
}

#[pymethods]
impl Egdb {
    #[new]
    fn new(py: Python<'_>, variant: &str, dir: std::path::PathBuf) -> PyResult<Self> {
        let game = sowing_game(py, variant)?;
        let db = py.detach(|| griot_core::egdb::Egdb::open(&dir, &game)).map_err(egdb_err)?;
        Ok(Egdb { db: Arc::new(db) })
    }

    /// The rule set and board the levels are for, e.g. `abapa(holes=6)`.
    #[getter]
    fn rules(&self) -> String {
        self.db.rules_key().to_string()
    }

    /// The most seeds on the board a position may hold to be in range; None if no level is there.
    #[getter]
    fn max_seeds(&self) -> Option<u32> {
        self.db.max_seeds()
    }

    /// The result of `position` with best play, whether it is exact, or why it is out of range.
    fn probe(&self, position: &Position) -> PyResult<EgdbProbe> {
        let (AnyGame::Sowing(g), AnyPosition::Sowing(p)) = (&*position.game, &position.pos) else {
            return Ok(EgdbProbe::out("not a two-row sowing game"));
        };
        use griot_core::egdb::Probe;
        let (kind, margin) = match self.db.probe(g, p) {
            Probe::Exact { margin } => ("exact", margin),
            Probe::Winner { margin } => ("winner", margin),
            Probe::Cycle { margin } => ("cycle", margin),
            Probe::OutOfRange(reason) => return Ok(EgdbProbe::out(reason)),
        };
        let winner = griot_core::egdb::winner_of(p, margin).map(|w| player_str(w).to_string());
        Ok(EgdbProbe { kind, margin: Some(margin), winner, reason: None, cycle: kind == "cycle" })
    }
}

/// What a probe found: `kind` is "exact" (margin exact), "winner" (the winner exact, the margin
/// that of the game without its store threshold), "cycle" (valued by a cycle: margin and winner
/// those of the game in which endless play from here is shared out here, not exact under the
/// rules, where a repetition may decide otherwise) or "out_of_range" (`reason` says why).
#[pyclass(frozen, get_all, module = "griot._core")]
struct EgdbProbe {
    kind: &'static str,
    /// The side to move's margin over the board's seeds with best play.
    margin: Option<i32>,
    /// "S", "N", or None for a draw (and out of range).
    winner: Option<String>,
    reason: Option<String>,
    /// Whether the position is valued by a cycle (`kind` "cycle"): its result is not exact.
    cycle: bool,
}

impl EgdbProbe {
    fn out(reason: &str) -> Self {
        EgdbProbe {
            kind: "out_of_range",
            margin: None,
            winner: None,
            reason: Some(reason.to_string()),
            cycle: false,
        }
    }
}

/// Builds the levels 0..=seeds of `variant`'s rule set under `dir` in this process, keeping the
/// levels whose files are present and whole. `progress` is called with a dict per event (event:
/// "kept", "started", "expanded" or "written"). Returns the stats of the levels solved. Releases
/// the GIL.
#[pyfunction]
#[pyo3(signature = (variant, dir, seeds, progress=None, threads=None))]
fn egdb_build<'py>(
    py: Python<'py>,
    variant: &str,
    dir: std::path::PathBuf,
    seeds: u32,
    progress: Option<Py<PyAny>>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    use griot_core::egdb::BuildEvent;
    let game = sowing_game(py, variant)?;
    let callback_error: Mutex<Option<PyErr>> = Mutex::new(None);
    let r = py.detach(|| {
        let mut options = griot_core::egdb::BuildOptions::default();
        if let Some(t) = threads {
            options.threads = t.max(1);
        }
        griot_core::egdb::build_with(&dir, &game, seeds, &options, &mut |e| {
            let Some(cb) = progress.as_ref() else { return };
            Python::attach(|py| {
                let call = (|| -> PyResult<()> {
                    let d = PyDict::new(py);
                    match e {
                        BuildEvent::Kept { seeds, positions } => {
                            d.set_item("event", "kept")?;
                            d.set_item("seeds", seeds)?;
                            d.set_item("positions", positions)?;
                        }
                        BuildEvent::Started { seeds, positions } => {
                            d.set_item("event", "started")?;
                            d.set_item("seeds", seeds)?;
                            d.set_item("positions", positions)?;
                        }
                        BuildEvent::Expanded { seeds, done } => {
                            d.set_item("event", "expanded")?;
                            d.set_item("seeds", seeds)?;
                            d.set_item("done", done)?;
                        }
                        BuildEvent::Written(st) => {
                            let s = stats_dict(py, st)?;
                            s.set_item("event", "written")?;
                            return cb.call1(py, (s,)).map(|_| ());
                        }
                    }
                    cb.call1(py, (d,)).map(|_| ())
                })();
                if let Err(err) = call {
                    let mut slot = callback_error.lock().unwrap_or_else(|e| e.into_inner());
                    slot.get_or_insert(err);
                }
            });
        })
    });
    if let Some(e) = callback_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let stats = r.map_err(egdb_err)?;
    let out = PyList::empty(py);
    for st in &stats {
        out.append(stats_dict(py, st)?)?;
    }
    Ok(out)
}

fn map_file(path: &std::path::Path) -> PyResult<memmap2::Mmap> {
    let f = std::fs::File::open(path).map_err(|e| EgdbError::new_err(format!("{}: {e}", path.display())))?;
    // SAFETY: read-only map of a file the build writes once, by rename, and never changes in place.
    unsafe { memmap2::Mmap::map(&f) }.map_err(|e| EgdbError::new_err(format!("{}: {e}", path.display())))
}

fn write_file(path: &std::path::Path, bytes: &[u8]) -> PyResult<()> {
    // Into a temporary name beside it (its whole name plus a suffix, unique per file), then
    // renamed: a reader never sees half a file.
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".part");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| EgdbError::new_err(format!("{}: {e}", path.display())))
}

/// The directory a chunk task keeps its graph in: beside the file it writes.
fn work_of(out: &std::path::Path) -> std::path::PathBuf {
    out.parent().map(|p| p.to_path_buf()).unwrap_or_default()
}

/// The lower levels of `game` under `dir`, which a level of `seeds` needs all of.
fn lower_levels(
    game: &griot_core::sowing::SowingGame,
    dir: &std::path::Path,
    seeds: u32,
) -> PyResult<griot_core::egdb::Egdb> {
    let db = griot_core::egdb::Egdb::open(dir, game).map_err(egdb_err)?;
    let have = db.max_seeds().map(|m| m + 1).unwrap_or(0);
    if have < seeds {
        return Err(EgdbError::new_err(format!(
            "level {seeds} needs levels 0..{seeds} under {}; only {have} are there",
            dir.display()
        )));
    }
    Ok(db)
}

/// Marks the work directory `work` of a level build as holding bounds of this file format,
/// removing the bounds another format's interrupted build left there (the core's
/// `egdb::graph::mark_bounds_format`, which the in-process build calls too).
#[pyfunction]
fn egdb_mark_work(work: std::path::PathBuf) -> PyResult<()> {
    griot_core::egdb::graph::mark_bounds_format(&work).map_err(egdb_err)
}

/// `(positions, path)` of level `seeds` of `variant`'s rule set under `dir`.
#[pyfunction]
fn egdb_level_info(
    py: Python<'_>,
    variant: &str,
    dir: std::path::PathBuf,
    seeds: u32,
) -> PyResult<(u64, String)> {
    let game = sowing_game(py, variant)?;
    griot_core::egdb::qualifies(&game).map_err(egdb_err)?;
    let key = griot_core::egdb::level_key(&game, seeds).map_err(egdb_err)?;
    let path = griot_core::egdb::level_path(&dir, &game, seeds);
    Ok((key.positions, path.to_string_lossy().into_owned()))
}

/// One pass over positions `start..end` of a level solved in chunks: reads the level's bounds
/// after the previous pass from `prev` (None: the first pass), writes the chunk's new bounds to
/// `out`, returns whether any changed. The chunk's move graph is expanded on the first pass into
/// `out`'s directory and read from there after. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (variant, dir, seeds, start, end, prev, out))]
#[allow(clippy::too_many_arguments)]
fn egdb_chunk_bounds(
    py: Python<'_>,
    variant: &str,
    dir: std::path::PathBuf,
    seeds: u32,
    start: u64,
    end: u64,
    prev: Option<std::path::PathBuf>,
    out: std::path::PathBuf,
) -> PyResult<bool> {
    let game = sowing_game(py, variant)?;
    py.detach(|| {
        let db = lower_levels(&game, &dir, seeds)?;
        let prev = prev.map(|p| map_file(&p)).transpose()?;
        let lower = |s: u32, i: u64| db.bounds(s, i);
        let (bytes, changed) =
            griot_core::egdb::chunk_pass(&game, seeds, start, end, &lower, &work_of(&out), prev.as_deref())
                .map_err(egdb_err)?;
        write_file(&out, &bytes)?;
        Ok(changed)
    })
}

/// The values of positions `start..end` from the level's final bounds in `bounds`, written to
/// `out` (one byte a position as the level file stores it). Releases the GIL.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn egdb_chunk_values(
    py: Python<'_>,
    variant: &str,
    dir: std::path::PathBuf,
    seeds: u32,
    start: u64,
    end: u64,
    bounds: std::path::PathBuf,
    out: std::path::PathBuf,
) -> PyResult<()> {
    let game = sowing_game(py, variant)?;
    py.detach(|| {
        let db = lower_levels(&game, &dir, seeds)?;
        let bounds = map_file(&bounds)?;
        let lower = |s: u32, i: u64| db.bounds(s, i);
        let values =
            griot_core::egdb::chunk_pass_values(&game, seeds, start, end, &lower, &work_of(&out), &bounds)
                .map_err(egdb_err)?;
        write_file(&out, &values)
    })
}

/// Writes level `seeds` (header and checksum) from `values`, the level's values in index order,
/// and `bounds`, its final bounds (which give the positions valued by a cycle their two bounds),
/// and checks it reads back.
#[pyfunction]
fn egdb_write_level(
    py: Python<'_>,
    variant: &str,
    dir: std::path::PathBuf,
    seeds: u32,
    values: std::path::PathBuf,
    bounds: std::path::PathBuf,
) -> PyResult<()> {
    let game = sowing_game(py, variant)?;
    py.detach(|| {
        let key = griot_core::egdb::level_key(&game, seeds).map_err(egdb_err)?;
        let bytes = map_file(&values)?;
        let b = map_file(&bounds)?;
        for (path, len, per) in [(&values, bytes.len(), 1), (&bounds, b.len(), 2)] {
            if len as u64 != per * key.positions {
                return Err(EgdbError::new_err(format!(
                    "{}: {len} bytes for a level of {} positions",
                    path.display(),
                    key.positions
                )));
            }
        }
        let path = griot_core::egdb::level_path(&dir, &game, seeds);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| EgdbError::new_err(format!("{}: {e}", parent.display())))?;
        }
        let mut w = griot_core::egdb::file::LevelWriter::create(&path, &key).map_err(egdb_err)?;
        let read = |i: u64| {
            let at = 2 * i as usize;
            griot_core::egdb::file::mover_bounds(i, b[at] as i8, b[at + 1] as i8)
        };
        w.write(&bytes, &read).map_err(egdb_err)?;
        w.finish().map_err(egdb_err)?;
        griot_core::egdb::file::LevelFile::open(&path, &key).map_err(egdb_err)?;
        Ok(())
    })
}
