//! The one trait every game family implements, and the values it speaks in.
//!
//! A [`Game`] is an immutable, parameterised rule set (a variant with its options). Positions are
//! small `Copy` values; playing a move returns a new position, so search copies positions instead
//! of undoing moves. Moves are small `Copy` values and move lists never allocate.

use std::fmt;
use std::hash::Hash;

use arrayvec::ArrayVec;

use crate::error::{IllegalMove, NotationError};
use crate::variant::Variant;

/// Upper bound on the number of legal moves in any position of any game.
pub const MAX_MOVES: usize = 512;

/// A legal-move list: fixed capacity, never allocates.
pub type MoveList<M> = ArrayVec<M, MAX_MOVES>;

/// The two sides. South (player 1, the bottom row) moves first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Player {
    /// Player 1, the bottom row(s), who moves first.
    South = 0,
    /// Player 2, the top row(s).
    North = 1,
}

impl Player {
    /// Both players, South first.
    pub const BOTH: [Player; 2] = [Player::South, Player::North];

    /// The other player.
    #[inline]
    pub fn other(self) -> Player {
        match self {
            Player::South => Player::North,
            Player::North => Player::South,
        }
    }

    /// 0 for South, 1 for North.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The player with the given index (0 or 1).
    #[inline]
    pub fn from_index(i: usize) -> Player {
        if i == 0 {
            Player::South
        } else {
            Player::North
        }
    }

    /// `S` or `N`, as in the notation.
    pub fn letter(self) -> char {
        match self {
            Player::South => 'S',
            Player::North => 'N',
        }
    }

    /// Parses `S` or `N`.
    pub fn from_letter(c: &str) -> Option<Player> {
        match c {
            "S" => Some(Player::South),
            "N" => Some(Player::North),
            _ => None,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::South => "South",
            Player::North => "North",
        })
    }
}

/// Why a game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The player to move cannot move and the rules end the game there (also: the mover could not
    /// sow on after a lap cut with `starving.lap_cut = "game-ends"`).
    Stuck,
    /// Neither player can move.
    NeitherCanMove,
    /// The board is empty.
    BoardEmpty,
    /// Fewer seeds than the variant's threshold are left on the board.
    FewSeeds,
    /// A player's captures passed the variant's threshold.
    StoreThreshold,
    /// Every hole holds at most one seed.
    AllSingletons,
    /// A relay sowing was cut, or a position occurred for the third time.
    EndlessCycle,
    /// The hard turn limit was reached.
    TurnLimit,
    /// A player captured everything of the opponent's.
    CapturedAll,
    /// The player to move is blocked (has no legal move) and loses.
    Blocked,
    /// A player captured both opposing inner-row end holes in one turn (Ikibuguzo).
    EndHoles,
    /// A player could not fill a hole between rounds and lost the match (Béchi), or held too few
    /// seeds when a round ended (rule files with `[rounds]`).
    MatchLost,
}

impl EndReason {
    /// A stable snake_case name, used in the API and in logs.
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Stuck => "stuck",
            EndReason::NeitherCanMove => "neither_can_move",
            EndReason::BoardEmpty => "board_empty",
            EndReason::FewSeeds => "few_seeds",
            EndReason::StoreThreshold => "store_threshold",
            EndReason::AllSingletons => "all_singletons",
            EndReason::EndlessCycle => "endless_cycle",
            EndReason::TurnLimit => "turn_limit",
            EndReason::CapturedAll => "captured_all",
            EndReason::Blocked => "blocked",
            EndReason::EndHoles => "end_holes",
            EndReason::MatchLost => "match_lost",
        }
    }
}

/// The result of a finished game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Player>,
    /// Final score of South and North (sowing games: seeds captured after the remaining seeds are
    /// shared out; capture games: pieces left).
    pub scores: [i32; 2],
    /// Why the game ended.
    pub reason: EndReason,
}

impl Outcome {
    /// An outcome decided by comparing the scores (higher wins, equal draws).
    pub fn by_score(scores: [i32; 2], reason: EndReason) -> Outcome {
        let winner = match scores[0].cmp(&scores[1]) {
            std::cmp::Ordering::Greater => Some(Player::South),
            std::cmp::Ordering::Less => Some(Player::North),
            std::cmp::Ordering::Equal => None,
        };
        Outcome { winner, scores, reason }
    }
}

/// What kind of capture an [`Event::Capture`] is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CaptureKind {
    /// The capture at the end of the sowing (the last hole or its target).
    Final,
    /// A hole taken while walking the capture chain.
    Chain,
    /// A flow capture during the sowing.
    Flow,
    /// Seeds left on the board shared out at the end of the game.
    Remaining,
    /// A custodial capture (Sabou'iyya) or a removal during a settlement.
    Piece,
}

impl CaptureKind {
    /// A stable snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            CaptureKind::Final => "final",
            CaptureKind::Chain => "chain",
            CaptureKind::Flow => "flow",
            CaptureKind::Remaining => "remaining",
            CaptureKind::Piece => "piece",
        }
    }
}

/// One step of a turn, in order, for frontends to animate and for analysis to explain.
/// Cells are the game's cell indices as described by its [`Geometry`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the variants' docs say what their fields mean
pub enum Event {
    /// A lap of sowing: `lifted` seeds taken from `origin` and dropped one by one into `sown`.
    Lap { origin: u8, lifted: u16, sown: Vec<u8> },
    /// `seeds` taken from `cell` by `player`.
    Capture { cell: u8, seeds: u16, player: Player, kind: CaptureKind },
    /// A capture that the rules forfeited (a grand slam): nothing was taken.
    CaptureForfeited { cells: Vec<u8> },
    /// The player could not move and missed the turn.
    Pass { player: Player },
    /// A piece placed on `cell`.
    Place { cell: u8, player: Player },
    /// A piece moved from `from` to `to`.
    Step { from: u8, to: u8 },
    /// Counters put into `cell` (refills between rounds).
    Fill { cell: u8, seeds: u16, player: Player },
    /// A game-specific announcement (a declaration, a phase change), with a stable name.
    Note { name: &'static str, player: Option<Player> },
    /// The turn was cut after too many laps: the game ends as an endless cycle.
    Cut { laps: u32 },
}

/// How a cell is drawn and who owns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// Row from the bottom (0 = South's outermost row).
    pub row: u8,
    /// Column from South's left.
    pub col: u8,
    /// The owner of the cell, if the game gives cells owners.
    pub owner: Option<Player>,
    /// The label moves use for this cell.
    pub label: String,
}

/// Board geometry a frontend can draw from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Number of rows.
    pub rows: u8,
    /// Number of columns.
    pub cols: u8,
    /// Every cell, indexed by cell index.
    pub cells: Vec<Cell>,
    /// Whether the game keeps captured seeds in stores.
    pub stores: bool,
    /// A short description of the sowing direction (empty for non-sowing games).
    pub sowing: String,
}

/// Receives the events of a turn. The search plays through [`NoTrace`], which compiles away.
pub trait Trace {
    /// Whether events are recorded at all; lets engines skip building them.
    const ENABLED: bool;
    /// Records one event.
    fn push(&mut self, event: Event);
}

/// A tracer that records nothing.
pub struct NoTrace;

impl Trace for NoTrace {
    const ENABLED: bool = false;
    #[inline(always)]
    fn push(&mut self, _event: Event) {}
}

impl Trace for Vec<Event> {
    const ENABLED: bool = true;
    fn push(&mut self, event: Event) {
        Vec::push(self, event)
    }
}

/// The rules of one game family, parameterised by a variant.
///
/// Implementors give move generation, playing, the end of the game and the notation; the trait
/// provides checked play, tracing and counting on top.
pub trait Game: Clone + Send + Sync + 'static {
    /// A position: a small `Copy` value holding everything the rules need.
    type Position: Copy + Eq + Hash + fmt::Debug + Send + Sync + 'static;
    /// A move: a small `Copy` value.
    type Move: Copy + Eq + Hash + fmt::Debug + Send + Sync + 'static;

    /// The variant this game plays.
    fn variant(&self) -> &Variant;

    /// The start position.
    fn start(&self) -> Self::Position;

    /// The player whose turn it is.
    fn side_to_move(&self, pos: &Self::Position) -> Player;

    /// Turns played so far.
    fn turns(&self, pos: &Self::Position) -> u32;

    /// Whether the position is inside a turn: the player who just moved must go on (a choice
    /// after an Ikibuguzo capture, South's H'ajeb capture sequence in Sabou'iyya). The core's
    /// moves are the steps of a turn; the boundary ([`crate::registry`]) joins a turn's steps
    /// into one move, and the search does not count a step that leaves the turn open as a ply.
    fn mid_turn(&self, _pos: &Self::Position) -> bool {
        false
    }

    /// Whether [`Game::mid_turn`] can ever be true in this game (lets the boundary skip the
    /// work of joining steps into turns where every turn is one step).
    fn multi_step_turns(&self) -> bool {
        false
    }

    /// The most steps one turn can take (1 where every turn is one step): [`Game::turns`] counts
    /// steps, so a search `d` turns deep can move it by up to `d` times this (see
    /// [`crate::search::near_turn_limit`]).
    fn max_steps_per_turn(&self) -> u32 {
        1
    }

    /// Appends the legal moves to `moves` (which the caller has cleared). A finished game has none.
    fn legal_moves(&self, pos: &Self::Position, moves: &mut MoveList<Self::Move>);

    /// Whether the position has a legal move (what `legal_moves` finds, without listing them).
    fn has_legal_move(&self, pos: &Self::Position) -> bool {
        let mut moves = MoveList::new();
        self.legal_moves(pos, &mut moves);
        !moves.is_empty()
    }

    /// Plays a move known to be legal, recording the turn's events into `trace`.
    fn play_traced<T: Trace>(&self, pos: &Self::Position, mv: Self::Move, trace: &mut T) -> Self::Position;

    /// The outcome, or `None` while the game goes on.
    fn outcome(&self, pos: &Self::Position) -> Option<Outcome>;

    /// The outcome if the game ended now as an endless cycle (used for repetitions).
    fn endless_outcome(&self, pos: &Self::Position) -> Outcome;

    /// A 64-bit hash of everything but the turn counter, for transposition tables.
    fn hash_key(&self, pos: &Self::Position) -> u64;

    /// The exact, compact key of the position (everything but the turn counter), for shared caches
    /// that must never confuse two positions.
    fn write_key(&self, pos: &Self::Position, out: &mut Vec<u8>);

    /// The position's body in Griot notation (without the variant string).
    fn format_body(&self, pos: &Self::Position) -> String;

    /// Parses a body in Griot notation and validates it.
    fn parse_body(&self, body: &str) -> Result<Self::Position, NotationError>;

    /// The move in move notation.
    fn format_move(&self, pos: &Self::Position, mv: Self::Move) -> String;

    /// Parses a move in move notation. The move is not checked for legality.
    fn parse_move(&self, pos: &Self::Position, text: &str) -> Result<Self::Move, NotationError>;

    /// Why `mv` is illegal here, or `Ok` when it is legal.
    fn check_move(&self, pos: &Self::Position, mv: Self::Move) -> Result<(), IllegalMove> {
        if self.outcome(pos).is_some() {
            return Err(IllegalMove::new("game_over", "the game is over"));
        }
        let mut moves = MoveList::new();
        self.legal_moves(pos, &mut moves);
        if moves.contains(&mv) {
            Ok(())
        } else {
            Err(IllegalMove::new(
                "not_legal",
                format!("{} is not a legal move here", self.format_move(pos, mv)),
            ))
        }
    }

    /// A static evaluation from the side to move's point of view (material margin by default).
    fn evaluate(&self, pos: &Self::Position) -> i32;

    /// Board geometry for frontends.
    fn geometry(&self) -> Geometry;

    /// What each cell holds, indexed like [`Geometry::cells`]: seeds for sowing games; for
    /// placement games 0 (empty), 1 (South's piece) or 2 (North's piece).
    fn cells(&self, _pos: &Self::Position) -> Vec<i32> {
        Vec::new()
    }

    /// Seeds or pieces each player holds off the board (stores, captures), if the game has them.
    fn stores(&self, _pos: &Self::Position) -> Option<[i32; 2]> {
        None
    }

    /// Plays a move known to be legal.
    #[inline]
    fn play_unchecked(&self, pos: &Self::Position, mv: Self::Move) -> Self::Position {
        self.play_traced(pos, mv, &mut NoTrace)
    }

    /// Plays a move after checking it is legal.
    fn play(&self, pos: &Self::Position, mv: Self::Move) -> Result<Self::Position, IllegalMove> {
        self.check_move(pos, mv)?;
        Ok(self.play_unchecked(pos, mv))
    }

    /// The position in full Griot notation: variant string, space, body.
    fn format_position(&self, pos: &Self::Position) -> String {
        format!("{} {}", self.variant(), self.format_body(pos))
    }
}

/// Counts the leaves of the game tree `depth` turns deep, making every leaf move.
pub fn perft<G: Game>(game: &G, pos: &G::Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = MoveList::new();
    game.legal_moves(pos, &mut moves);
    let mut total = 0;
    for &mv in &moves {
        // black_box: every leaf is really made, never optimised away.
        let next = std::hint::black_box(game.play_unchecked(pos, mv));
        total += if depth == 1 { 1 } else { perft(game, &next, depth - 1) };
    }
    total
}

/// Perft split by root move: each legal move with the leaf count below it.
pub fn divide<G: Game>(game: &G, pos: &G::Position, depth: u32) -> Vec<(G::Move, u64)> {
    let mut moves = MoveList::new();
    game.legal_moves(pos, &mut moves);
    moves
        .iter()
        .map(|&mv| {
            let next = game.play_unchecked(pos, mv);
            (mv, perft(game, &next, depth.saturating_sub(1)))
        })
        .collect()
}
