//! Python bindings of `griot-core`: frozen classes over the core's values, one exception
//! hierarchy mapped from the core's errors in one place ([`to_py_err`]), the GIL released around
//! long work. No rules live here.

use std::sync::Arc;

use griot_core::error::Error;
use griot_core::error::VariantError as CoreVariantError;
use griot_core::registry::{self, AnyGame, AnyMove, AnyPosition, FamilyKind};
use griot_core::variant::{Allowed, OptionValue};
use griot_core::{CaptureKind, Event, Outcome, Player};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

create_exception!(_core, GriotError, PyValueError, "Base of every error Griot raises for bad input.");
create_exception!(_core, NotationError, GriotError, "A position or move that could not be parsed.");
create_exception!(_core, VariantError, GriotError, "A malformed variant string or a bad option.");
create_exception!(_core, UnknownVariantError, VariantError, "No game has this variant id.");
create_exception!(_core, RuleFileError, VariantError, "A rule file with a bad field (see .field).");
create_exception!(
    _core,
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

/// A move in a position. Compares equal to its notation string.
#[pyclass(frozen, module = "griot._core")]
struct Move {
    mv: AnyMove,
    text: String,
}

#[pymethods]
impl Move {
    /// The move in move notation.
    #[getter]
    fn text(&self) -> String {
        self.text.clone()
    }

    fn __str__(&self) -> String {
        self.text.clone()
    }

    fn __repr__(&self) -> String {
        format!("Move({:?})", self.text)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Move>() {
            Ok(o) => o.get().mv == self.mv,
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

    fn to_move(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> PyResult<AnyMove> {
        if let Ok(m) = mv.cast::<Move>() {
            return Ok(m.get().mv);
        }
        let text: String =
            mv.extract().map_err(|_| NotationError::new_err("a move is a Move or its notation string"))?;
        core(py, self.game.parse_move(&self.pos, &text))
    }

    fn text(&self) -> String {
        self.game.format_position(&self.pos).expect("a position always belongs to its own game")
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

    /// The legal moves (none when the game is over).
    fn legal_moves(&self, py: Python<'_>) -> PyResult<Vec<Move>> {
        let moves = core(py, self.game.legal_moves(&self.pos))?;
        moves
            .into_iter()
            .map(|m| Ok(Move { text: core(py, self.game.format_move(&self.pos, &m))?, mv: m }))
            .collect()
    }

    /// Parses a move in this position (a `Move` is returned unchanged). Raises NotationError.
    fn parse_move(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Move> {
        let mv = self.to_move(py, text)?;
        Ok(Move { text: core(py, self.game.format_move(&self.pos, &mv))?, mv })
    }

    /// Raises IllegalMoveError (with `.code`) if the move is not legal here.
    fn check(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> PyResult<()> {
        let m = self.to_move(py, mv)?;
        core(py, self.game.check_move(&self.pos, &m))
    }

    /// Whether the move is legal here (False also for unparsable moves).
    fn is_legal(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> bool {
        match self.to_move(py, mv) {
            Ok(m) => self.game.check_move(&self.pos, &m).is_ok(),
            Err(_) => false,
        }
    }

    /// The position after the move (a Move or its notation). Raises IllegalMoveError.
    fn play(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> PyResult<Position> {
        let m = self.to_move(py, mv)?;
        let (next, _) = core(py, self.game.play(&self.pos, &m))?;
        Ok(self.with(next))
    }

    /// The position after the move and the turn's events, in order.
    fn play_with_events(
        &self,
        py: Python<'_>,
        mv: &Bound<'_, PyAny>,
    ) -> PyResult<(Position, Vec<TurnEvent>)> {
        let m = self.to_move(py, mv)?;
        let (next, events) = core(py, self.game.play(&self.pos, &m))?;
        Ok((self.with(next), events.into_iter().map(event_py).collect()))
    }

    /// Every legal move with the position it leads to.
    fn successors(&self, py: Python<'_>) -> PyResult<Vec<(Move, Position)>> {
        let succ = core(py, self.game.successors(&self.pos))?;
        succ.into_iter()
            .map(|(m, p)| {
                Ok((Move { text: core(py, self.game.format_move(&self.pos, &m))?, mv: m }, self.with(p)))
            })
            .collect()
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
        let r = py.detach(move || g.perft(&p, depth));
        core(py, r)
    }

    /// Perft split by root move: {move: leaves}. Releases the GIL.
    fn divide<'py>(&self, py: Python<'py>, depth: u32) -> PyResult<Bound<'py, PyDict>> {
        let (g, p) = (self.game.clone(), self.pos);
        let r = core(py, py.detach(move || g.divide(&p, depth)))?;
        let d = PyDict::new(py);
        for (m, n) in r {
            d.set_item(core(py, self.game.format_move(&self.pos, &m))?, n)?;
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
    registry::BUILTIN_RULE_FILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The native module: re-exported by the `griot` package.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ENGINE_VERSION", griot_core::ENGINE_VERSION)?;
    m.add_class::<Variant>()?;
    m.add_class::<Position>()?;
    m.add_class::<Move>()?;
    m.add_class::<GameOutcome>()?;
    m.add_class::<TurnEvent>()?;
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
