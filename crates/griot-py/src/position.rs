//! Positions and moves in Griot's notation: playing turns, their events, the game's outcome.

use std::sync::Arc;

use griot_core::registry::{self, AnyGame, AnyPosition, Turn};
use griot_core::{CaptureKind, Event, Outcome, Player};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::errors::{core, text_arg, NotationError};
use crate::variant::Variant;

pub(crate) fn player_str(p: Player) -> &'static str {
    match p {
        Player::South => "S",
        Player::North => "N",
    }
}

/// A move in a position: a whole turn (its steps joined by `/` where a turn takes several).
/// Compares equal to its notation string.
#[pyclass(frozen, module = "griot._core")]
pub(crate) struct Move {
    pub(crate) steps: Turn,
    pub(crate) text: String,
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
pub(crate) struct GameOutcome {
    /// `"S"`, `"N"`, or `None` for a draw.
    pub(crate) winner: Option<String>,
    /// Final scores of South and North.
    pub(crate) scores: (i32, i32),
    /// Why the game ended, e.g. `stuck`, `store_threshold`, `endless_cycle`.
    pub(crate) reason: String,
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

pub(crate) fn outcome_py(o: Outcome) -> GameOutcome {
    GameOutcome {
        winner: o.winner.map(|p| player_str(p).to_string()),
        scores: (o.scores[0], o.scores[1]),
        reason: o.reason.name().to_string(),
    }
}

/// One step of a turn: `kind` is `lap`, `capture`, `capture_forfeited`, `pass`, `place`, `step`,
/// `fill`, `note` or `cut`; the other fields are set where the kind has them.
#[pyclass(frozen, get_all, module = "griot._core")]
pub(crate) struct TurnEvent {
    pub(crate) kind: String,
    /// The player concerned (`S`/`N`), if any.
    pub(crate) player: Option<String>,
    /// The cell concerned (origin of a lap, captured hole, placed cell, step origin).
    pub(crate) cell: Option<u8>,
    /// Cells in order: holes sown in a lap, forfeited holes, the destination of a step.
    pub(crate) cells: Vec<u32>,
    /// Seeds lifted, captured or filled.
    pub(crate) seeds: u32,
    /// For captures: `final`, `chain`, `flow`, `remaining` or `piece`; for notes: the note's name.
    pub(crate) detail: Option<String>,
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
pub(crate) fn py_opt(v: Option<String>) -> String {
    v.unwrap_or_else(|| "None".into())
}

pub(crate) fn event_py(e: Event) -> TurnEvent {
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
pub(crate) struct Position {
    pub(crate) game: Arc<AnyGame>,
    pub(crate) pos: AnyPosition,
}

impl Position {
    pub(crate) fn with(&self, pos: AnyPosition) -> Position {
        Position { game: self.game.clone(), pos }
    }

    pub(crate) fn to_move(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> PyResult<Turn> {
        if let Ok(m) = mv.cast::<Move>() {
            return Ok(m.get().steps.clone());
        }
        let text: String =
            mv.extract().map_err(|_| NotationError::new_err("a move is a Move or its notation string"))?;
        core(py, self.game.parse_turn(&self.pos, &text))
    }

    pub(crate) fn turns_py(&self, py: Python<'_>) -> PyResult<Vec<(Move, Position)>> {
        let turns = core(py, self.game.legal_turns(&self.pos))?;
        Ok(turns.into_iter().map(|(steps, text, next)| (Move { steps, text }, self.with(next))).collect())
    }

    pub(crate) fn text(&self) -> String {
        self.game.format_position(&self.pos).expect("a position always belongs to its own game")
    }

    /// The move a search reported (a turn in notation) as a `Move`.
    pub(crate) fn turn_move(&self, py: Python<'_>, text: &str) -> PyResult<Move> {
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
