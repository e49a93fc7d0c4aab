//! Sabou'iyya: a 5x5 placement-then-capture game with the H'ajeb remedy.
//!
//! Rule decisions (sources: Quemeneur, "Le jeu de la kharbga" (1944), as the Ludii portal records it,
//! cited as "source"; `docs/rules/README.md` and the "Main decisions" of `docs/rules/sabouiyya.md`,
//! cited as "main decisions", with its rule numbers in brackets; `docs/NOTATION.md`):
//! - Board 5x5, files `a..e`, ranks `1..5` from South; cell index `(rank - 1) * 5 + file`, which is
//!   also the cell order moves are written in [1]. Twelve pieces each; South moves first (main decisions).
//! - Placement: two pieces a turn, one API move naming both cells in cell order (`c2,d4`); never the
//!   centre `c3`; on a player's first placement turn at least one cell is orthogonally next to the
//!   centre (source "The first piece ... adjacent to the central spot") [3-5]. No capture during
//!   placement (main decisions). After the 12th placement turn South moves [6].
//! - Movement: one orthogonal step to an empty cell (source, main decisions) [7]; the moved piece takes
//!   every enemy piece orthogonally next to it with a friendly piece right behind, all four
//!   directions at once; a piece stepping between two enemies is safe [8]. After a capture the same
//!   piece may step on while each step captures, and may stop after any step; the whole chain is one
//!   move `c2-c3-c4`, every prefix is legal [9].
//! - End: a player without pieces loses (capture-all); in the movement phase the player to move
//!   without a legal move loses (blockade) (source "captures all ... or which blocks") [10, 12]. The
//!   turn limit (`max_turns`) and an endless cycle are draws scored by pieces on the board [11].
//! - H'ajeb (option `hajeb`, default true; main decisions) [13-24]:
//!   - North may play `hajeb` (its whole turn) once a game, in the movement phase, when it has a
//!     *safe mover*: a piece with an empty orthogonal neighbour whose cell plus the empty region
//!     reachable from those neighbours touches no South piece (the source's "blockade ... which can
//!     move infinitely without possibility of being taken") [13-15].
//!   - While it is in force (`on`) South moves like a queen, any distance orthogonally or
//!     diagonally through empty cells, capturing as in [8] (source "move any distance orthogonally or
//!     diagonally") [16]. South may capture with several pieces in one turn (source "not just with the
//!     same piece, but with more than one") [17]. South's whole turn is **one API move** (docs/rules/README.md, point 2),
//!     its queen moves the steps, joined by `/` at the boundary (`a1-c3/b2-b4/stop`): after a
//!     capturing step South stays to move in state `chain` ([`Game::mid_turn`]) while some queen
//!     move (any piece) would capture again; there it plays a further capturing queen move or
//!     `stop`. A non-capturing move, `stop`, or a capture after which none is left ends the turn.
//!     This module's moves are the steps, so no position has more moves than a fixed-capacity move
//!     list holds (whole turns reached ~2,600; [`crate::registry::AnyGame::legal_turns`] lists them
//!     unbounded), and the search does not count a step inside the turn as a ply [17].
//!   - North may `rescind` on any of its turns while `on` (not during South's chain) [19].
//!   - Settlement: when South is to move with `on`, both sides have pieces and no queen move
//!     captures, the settlement starts at once: North removes two South pieces (`remove:x,y`, or
//!     the last one), then South removes one North safe mover (or any North piece when none is
//!     left) (`remove:z`), then North moves with state `done` [20-22]. So North moves twice in a
//!     row around a settlement.
//!   - `turns` counts steps (each queen move and `stop` too) [23].
//! - Position notation `<ranks 5..1> <side> <turns> <hand-S>-<hand-N> <hajeb>`, validated as in [24]
//!   and section 7 of the reading.

use crate::error::{IllegalMove, NotationError, VariantError};
use crate::game::{CaptureKind, Cell, EndReason, Event, Game, Geometry, MoveList, Outcome, Player, Trace};
use crate::variant::{OptionSpec, Variant, VariantSpec};

/// Cells on the board.
pub const CELLS: usize = 25;
/// Pieces each player has.
pub const PIECES: u8 = 12;
const BOARD: u32 = (1 << CELLS) - 1;
const CENTRE: usize = 12;
const CENTRE_NEIGHBOURS: u32 = 1 << 7 | 1 << 11 | 1 << 13 | 1 << 17;
/// Orthogonal directions first (0..4: east, west, north, south), then the diagonals (4..8).
const DIRECTIONS: [(i8, i8); 8] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)];
/// Longest ordinary capture chain: every step after the first takes at least one of 12 pieces.
const MAX_WALK: usize = 13;

/// `NEIGHBOUR[cell][direction]`: the next cell that way, or `NONE`.
const NONE: u8 = 0xFF;
const NEIGHBOUR: [[u8; 8]; CELLS] = {
    let mut table = [[NONE; 8]; CELLS];
    let mut cell = 0;
    while cell < CELLS {
        let mut d = 0;
        while d < 8 {
            let file = (cell % 5) as i8 + DIRECTIONS[d].0;
            let rank = (cell / 5) as i8 + DIRECTIONS[d].1;
            if file >= 0 && file < 5 && rank >= 0 && rank < 5 {
                table[cell][d] = (rank * 5 + file) as u8;
            }
            d += 1;
        }
        cell += 1;
    }
    table
};

const FILE_A: u32 = 0b00001_00001_00001_00001_00001;
const FILE_E: u32 = FILE_A << 4;

/// Cells orthogonally next to any cell of `b`.
#[inline]
fn orthogonal_neighbours(b: u32) -> u32 {
    ((b << 5) & BOARD) | (b >> 5) | ((b << 1) & !FILE_A & BOARD) | ((b >> 1) & !FILE_E)
}

/// `b` moved one cell in orthogonal direction `d` (0..4: east, west, north, south), off-board
/// bits dropped.
#[inline]
fn shift(b: u32, d: usize) -> u32 {
    match d {
        0 => (b << 1) & !FILE_A & BOARD,
        1 => (b >> 1) & !FILE_E,
        2 => (b << 5) & BOARD,
        _ => b >> 5,
    }
}

/// The orthogonal direction opposite `d`.
#[inline]
fn opposite_direction(d: usize) -> usize {
    d ^ 1
}

/// The H'ajeb state, the position's `<hajeb>` field.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Hajeb {
    /// Not declared (`-`).
    Undeclared,
    /// Declared and in force (`on`).
    On,
    /// In force, South in the middle of a capture sequence (`chain`).
    Chain,
    /// Settlement: North removes South pieces (`settle-N`).
    SettleNorth,
    /// Settlement: South removes a North piece (`settle-S`).
    SettleSouth,
    /// Ended, cannot be declared again (`done`).
    Done,
}

impl Hajeb {
    const ALL: [Hajeb; 6] =
        [Hajeb::Undeclared, Hajeb::On, Hajeb::Chain, Hajeb::SettleNorth, Hajeb::SettleSouth, Hajeb::Done];

    /// The notation of the state.
    pub fn text(self) -> &'static str {
        match self {
            Hajeb::Undeclared => "-",
            Hajeb::On => "on",
            Hajeb::Chain => "chain",
            Hajeb::SettleNorth => "settle-N",
            Hajeb::SettleSouth => "settle-S",
            Hajeb::Done => "done",
        }
    }
}

/// A Sabou'iyya position: two 25-bit boards, hands, side, state and turn counter (16 bytes).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SabouiyyaPosition {
    /// Cells holding a piece of South / North (bit = cell index).
    pub pieces: [u32; 2],
    /// Turns (API moves) played.
    pub turns: u32,
    /// Pieces each player has still to place.
    pub hands: [u8; 2],
    /// The player to move.
    pub to_move: Player,
    /// The H'ajeb state.
    pub hajeb: Hajeb,
}

impl SabouiyyaPosition {
    fn placing(&self) -> bool {
        self.hands != [0, 0]
    }

    fn empty(&self) -> u32 {
        !(self.pieces[0] | self.pieces[1]) & BOARD
    }

    fn count(&self, p: Player) -> u32 {
        self.pieces[p.index()].count_ones()
    }
}

/// A Sabou'iyya move (8 bytes, `Copy`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)] // the variants' docs say what their fields mean
pub enum SabouiyyaMove {
    /// Placement of two pieces, cells in cell order.
    Place(u8, u8),
    /// An ordinary step or capture chain: start cell, number of steps, 2 bits of direction
    /// (east, west, north, south) per step.
    Walk { from: u8, steps: u8, dirs: u32 },
    /// A South queen move while H'ajeb is in force.
    Queen { from: u8, to: u8 },
    /// North declares H'ajeb.
    Declare,
    /// North rescinds H'ajeb.
    Rescind,
    /// South ends its H'ajeb capture sequence.
    Stop,
    /// A settlement removal of one or two pieces (`second` is `NONE` for one).
    Remove { first: u8, second: u8 },
}

impl SabouiyyaMove {
    fn walk_cells(from: u8, steps: u8, dirs: u32) -> Option<[u8; MAX_WALK + 1]> {
        let mut cells = [NONE; MAX_WALK + 1];
        cells[0] = from;
        let mut at = from;
        for i in 0..steps as usize {
            let d = (dirs >> (2 * i)) & 3;
            at = NEIGHBOUR[at as usize][d as usize];
            if at == NONE {
                return None;
            }
            cells[i + 1] = at;
        }
        Some(cells)
    }
}

/// The name of a cell, e.g. `c3`.
pub fn cell_name(cell: usize) -> String {
    format!("{}{}", (b'a' + (cell % 5) as u8) as char, cell / 5 + 1)
}

fn parse_cell(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    if b.len() != 2 || !(b'a'..=b'e').contains(&b[0]) || !(b'1'..=b'5').contains(&b[1]) {
        return None;
    }
    Some((b[1] - b'1') as usize * 5 + (b[0] - b'a') as usize)
}

fn bits(b: u32) -> impl Iterator<Item = usize> {
    let mut rest = b;
    std::iter::from_fn(move || {
        if rest == 0 {
            return None;
        }
        let i = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        Some(i)
    })
}

/// Sabou'iyya with its options (`hajeb`, `max_turns`).
#[derive(Clone, Debug)]
pub struct SabouiyyaGame {
    variant: Variant,
    hajeb: bool,
    max_turns: u32,
}

/// The options Sabou'iyya accepts.
pub fn option_specs() -> Vec<OptionSpec> {
    vec![
        OptionSpec::flag("hajeb", true, "the second player may declare H'ajeb (Quemeneur 1944)"),
        OptionSpec::max_turns(),
    ]
}

/// The board after `from` moves to `to` (any distance) and captures; with the cells taken.
#[inline]
fn move_and_capture(pieces: [u32; 2], me: usize, from: usize, to: usize) -> ([u32; 2], u32) {
    let mut p = pieces;
    p[me] = (p[me] & !(1 << from)) | 1 << to;
    let taken = captured_by(&p, me, to);
    p[1 - me] &= !taken;
    (p, taken)
}

/// The enemy pieces a piece of `me` standing on `at` sandwiches orthogonally.
#[inline]
fn captured_by(p: &[u32; 2], me: usize, at: usize) -> u32 {
    let mut taken = 0;
    for (d, &next) in NEIGHBOUR[at][..4].iter().enumerate() {
        if next == NONE || p[1 - me] & 1 << next == 0 {
            continue;
        }
        let beyond = NEIGHBOUR[next as usize][d];
        if beyond != NONE && p[me] & 1 << beyond != 0 {
            taken |= 1 << next;
        }
    }
    taken
}

impl SabouiyyaGame {
    /// The game for `spec` (id `sabouiyya`).
    pub fn new(spec: &VariantSpec) -> Result<SabouiyyaGame, VariantError> {
        let variant = Variant::resolve(spec, &option_specs())?;
        Ok(SabouiyyaGame { hajeb: variant.flag("hajeb"), max_turns: variant.max_turns(), variant })
    }

    /// The rules as readable sentences.
    pub fn describe(&self) -> Vec<String> {
        let mut out = vec![
            "5x5 board, twelve pieces each; South moves first.".to_string(),
            "Placement: two pieces a turn on empty cells, never the centre c3; a player's first \
             placement turn uses at least one cell next to the centre."
                .to_string(),
            "Movement: one orthogonal step to an empty cell. The moved piece captures every enemy \
             piece orthogonally next to it that has a friendly piece right behind it. After a capture \
             the same piece may step on while each step captures (c2-c3-c4)."
                .to_string(),
            "A player with no pieces, or with no legal move, loses.".to_string(),
        ];
        if self.hajeb {
            out.push(
                "H'ajeb: once a game North may declare it when one of its pieces can move for ever \
                 without being taken. South then moves like a queen (one move at a time) and may \
                 capture with several pieces in a turn, or stop. North may rescind it. When South is \
                 to move and cannot capture, North removes two South pieces and South one North \
                 piece that could move for ever."
                    .to_string(),
            );
        }
        out.push(format!("The game is drawn after {} turns.", self.max_turns));
        out
    }

    /// Every queen move of South: (from, to).
    fn queen_moves(&self, pos: &SabouiyyaPosition, mut f: impl FnMut(usize, usize)) {
        let empty = pos.empty();
        for from in bits(pos.pieces[0]) {
            for (d, &first) in NEIGHBOUR[from].iter().enumerate() {
                let mut at = first;
                while at != NONE && empty & 1 << at != 0 {
                    f(from, at as usize);
                    at = NEIGHBOUR[at as usize][d];
                }
            }
        }
    }

    /// Whether some South queen move captures.
    fn has_queen_capture(&self, pos: &SabouiyyaPosition) -> bool {
        // A capture needs an empty target next to a North piece with a South piece behind it; the
        // mover cannot be that South piece (its path would cross the North piece).
        let north = pos.pieces[1];
        let empty = pos.empty();
        let mut targets = 0u32;
        for t in bits(empty) {
            if captured_by(&pos.pieces, 0, t) != 0 {
                targets |= 1 << t;
            }
        }
        if targets == 0 || north == 0 {
            return false;
        }
        let mut found = false;
        self.queen_moves(pos, |_, to| found |= targets & 1 << to != 0);
        found
    }

    /// North pieces that can move for ever without being taken (reading rule 13).
    fn safe_movers(&self, pos: &SabouiyyaPosition) -> u32 {
        let empty = pos.empty();
        let mut movers = 0;
        for cell in bits(pos.pieces[1]) {
            let start = orthogonal_neighbours(1 << cell) & empty;
            if start == 0 {
                continue;
            }
            let mut zone = start;
            loop {
                let grown = zone | (orthogonal_neighbours(zone) & empty);
                if grown == zone {
                    break;
                }
                zone = grown;
            }
            zone |= 1 << cell;
            if orthogonal_neighbours(zone) & pos.pieces[0] == 0 {
                movers |= 1 << cell;
            }
        }
        movers
    }

    fn walks(&self, pos: &SabouiyyaPosition, moves: &mut MoveList<SabouiyyaMove>) {
        let me = pos.to_move.index();
        let empty = pos.empty();
        for from in bits(pos.pieces[me]) {
            for (d, &to) in NEIGHBOUR[from][..4].iter().enumerate() {
                if to == NONE || empty & 1 << to == 0 {
                    continue;
                }
                moves.push(SabouiyyaMove::Walk { from: from as u8, steps: 1, dirs: d as u32 });
                let (after, taken) = move_and_capture(pos.pieces, me, from, to as usize);
                if taken != 0 {
                    self.chain(after, me, from as u8, to as usize, 1, d as u32, moves);
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn chain(
        &self,
        pieces: [u32; 2],
        me: usize,
        from: u8,
        at: usize,
        steps: u8,
        dirs: u32,
        moves: &mut MoveList<SabouiyyaMove>,
    ) {
        let empty = !(pieces[0] | pieces[1]) & BOARD;
        for (d, &to) in NEIGHBOUR[at][..4].iter().enumerate() {
            if to == NONE || empty & 1 << to == 0 {
                continue;
            }
            let (after, taken) = move_and_capture(pieces, me, at, to as usize);
            if taken != 0 {
                let dirs = dirs | (d as u32) << (2 * steps);
                moves.push(SabouiyyaMove::Walk { from, steps: steps + 1, dirs });
                self.chain(after, me, from, to as usize, steps + 1, dirs, moves);
            }
        }
    }

    /// The legal moves, ignoring whether the game is over.
    fn raw_moves(&self, pos: &SabouiyyaPosition, moves: &mut MoveList<SabouiyyaMove>) {
        let me = pos.to_move;
        if pos.placing() {
            let free = pos.empty() & !(1 << CENTRE);
            let first_turn = pos.hands[me.index()] == PIECES;
            for a in bits(free) {
                for b in bits(free & !((2u32 << a) - 1)) {
                    if first_turn && CENTRE_NEIGHBOURS & (1 << a | 1 << b) == 0 {
                        continue;
                    }
                    moves.push(SabouiyyaMove::Place(a as u8, b as u8));
                }
            }
            return;
        }
        match pos.hajeb {
            Hajeb::SettleNorth => {
                let south = pos.pieces[0];
                if south.count_ones() == 1 {
                    let c = south.trailing_zeros() as u8;
                    moves.push(SabouiyyaMove::Remove { first: c, second: NONE });
                } else {
                    for a in bits(south) {
                        for b in bits(south & !((2u32 << a) - 1)) {
                            moves.push(SabouiyyaMove::Remove { first: a as u8, second: b as u8 });
                        }
                    }
                }
                return;
            }
            Hajeb::SettleSouth => {
                let safe = self.safe_movers(pos);
                let candidates = if safe != 0 { safe } else { pos.pieces[1] };
                for c in bits(candidates) {
                    moves.push(SabouiyyaMove::Remove { first: c as u8, second: NONE });
                }
                return;
            }
            Hajeb::Chain => {
                self.queen_moves(pos, |from, to| {
                    if move_and_capture(pos.pieces, 0, from, to).1 != 0 {
                        moves.push(SabouiyyaMove::Queen { from: from as u8, to: to as u8 });
                    }
                });
                moves.push(SabouiyyaMove::Stop);
                return;
            }
            Hajeb::On if me == Player::South => {
                self.queen_moves(pos, |from, to| {
                    moves.push(SabouiyyaMove::Queen { from: from as u8, to: to as u8 })
                });
                return;
            }
            _ => {}
        }
        self.walks(pos, moves);
        if me == Player::North {
            if pos.hajeb == Hajeb::Undeclared && self.hajeb && self.safe_movers(pos) != 0 {
                moves.push(SabouiyyaMove::Declare);
            }
            if pos.hajeb == Hajeb::On {
                moves.push(SabouiyyaMove::Rescind);
            }
        }
    }

    /// The positional terms of the search's evaluation, per player (South, North), by slot (the
    /// search weighs them; bitboard counts, no move generation):
    /// 0. mobility: the player's one-step moves (piece, empty orthogonal neighbour);
    /// 1. pieces at risk (negated): the player's pieces with an enemy piece on one side and, on
    ///    the other, an empty cell an enemy piece can step into (a capture next move);
    /// 2. centre: pieces on the inner 3x3 cells;
    /// 3. frozen pieces (negated): pieces with no empty orthogonal neighbour.
    pub fn search_terms(&self, pos: &SabouiyyaPosition, _weights: &[i32; 4]) -> [[i32; 4]; 2] {
        const INNER: u32 = 0b01110_01110_01110 << 5;
        let empty = pos.empty();
        let mut terms = [[0i32; 4]; 2];
        for p in Player::BOTH {
            let mine = pos.pieces[p.index()];
            let theirs = pos.pieces[p.other().index()];
            let reach = empty & orthogonal_neighbours(theirs);
            let t = &mut terms[p.index()];
            let mut risk = 0;
            for d in 0..4 {
                // Pieces of mine whose d-neighbour is empty; whose d-neighbour is an enemy piece.
                let toward = |b: u32| shift(b, opposite_direction(d));
                t[0] += (mine & toward(empty)).count_ones() as i32;
                risk |= mine & toward(theirs) & shift(reach, d);
            }
            t[1] = -(risk.count_ones() as i32);
            t[2] = (mine & INNER).count_ones() as i32;
            t[3] = -((mine & !orthogonal_neighbours(empty)).count_ones() as i32);
        }
        terms
    }

    /// Whether the side to move has a legal move (movement phase).
    fn has_move(&self, pos: &SabouiyyaPosition) -> bool {
        match pos.hajeb {
            Hajeb::SettleNorth | Hajeb::SettleSouth | Hajeb::Chain => return true,
            Hajeb::On => return true, // North may rescind; South's turn is settled when it cannot capture
            _ => {}
        }
        let me = pos.to_move.index();
        if orthogonal_neighbours(pos.pieces[me]) & pos.empty() != 0 {
            return true;
        }
        pos.to_move == Player::North
            && pos.hajeb == Hajeb::Undeclared
            && self.hajeb
            && self.safe_movers(pos) != 0
    }

    fn diagnose(&self, pos: &SabouiyyaPosition, mv: SabouiyyaMove) -> IllegalMove {
        fn bad(code: &'static str, message: impl Into<String>) -> IllegalMove {
            IllegalMove::new(code, message)
        }
        let me = pos.to_move;
        let own = pos.pieces[me.index()];
        let empty = pos.empty();
        let name = |c: u8| cell_name(c as usize);
        match mv {
            SabouiyyaMove::Place(a, b) => {
                if !pos.placing() {
                    return bad("not_placement", "the pieces are all placed; pieces move now");
                }
                for c in [a, b] {
                    if c as usize == CENTRE {
                        return bad("centre", "the centre c3 stays empty during placement");
                    }
                    if empty & 1 << c == 0 {
                        return bad("occupied", format!("{} is occupied", name(c)));
                    }
                }
                if a >= b {
                    return bad("same_cell", "the two cells must differ");
                }
                if pos.hands[me.index()] == PIECES && CENTRE_NEIGHBOURS & (1 << a | 1 << b) == 0 {
                    return bad(
                        "first_piece_not_next_to_centre",
                        "a player's first piece goes next to the centre (b3, c2, c4 or d3)",
                    );
                }
            }
            _ if pos.placing() => {
                return bad("placement", "pieces are still being placed: name two empty cells, e.g. c2,d4")
            }
            SabouiyyaMove::Remove { first, second } => {
                let (expected, victims) = match pos.hajeb {
                    Hajeb::SettleNorth => (Player::North, pos.pieces[0]),
                    Hajeb::SettleSouth => (Player::South, pos.pieces[1]),
                    _ => return bad("no_settlement", "removals happen only during the H'ajeb settlement"),
                };
                debug_assert_eq!(expected, me);
                for c in [first, second] {
                    if c != NONE && victims & 1 << c == 0 {
                        return bad("not_enemy_piece", format!("{} holds no piece to remove", name(c)));
                    }
                }
                if pos.hajeb == Hajeb::SettleNorth {
                    let need = victims.count_ones().min(2);
                    let given = if second == NONE { 1 } else { 2 };
                    if given != need {
                        return bad("wrong_count", format!("North removes {need} South piece(s)"));
                    }
                } else if second != NONE {
                    return bad("wrong_count", "South removes one North piece");
                } else if self.safe_movers(pos) & 1 << first == 0 {
                    return bad("not_safe_mover", "South must remove a North piece that can move for ever");
                }
            }
            _ if matches!(pos.hajeb, Hajeb::SettleNorth | Hajeb::SettleSouth) => {
                return bad("settlement", "the H'ajeb settlement is due: remove:<cells>");
            }
            SabouiyyaMove::Declare => {
                if !self.hajeb {
                    return bad("hajeb_disabled", "this variant has no H'ajeb");
                }
                if me != Player::North {
                    return bad("not_north", "only North (the second player) declares H'ajeb");
                }
                if pos.hajeb != Hajeb::Undeclared {
                    return bad("hajeb_declared", "H'ajeb can be declared once a game");
                }
                if self.safe_movers(pos) == 0 {
                    return bad(
                        "no_safe_mover",
                        "North has no piece that can move for ever without being taken",
                    );
                }
            }
            SabouiyyaMove::Rescind => {
                if pos.hajeb != Hajeb::On || me != Player::North {
                    return bad("not_declared", "only North rescinds, on its turn while H'ajeb is in force");
                }
            }
            SabouiyyaMove::Stop => {
                if pos.hajeb != Hajeb::Chain {
                    return bad("no_chain", "stop ends South's H'ajeb capture sequence; none is under way");
                }
            }
            SabouiyyaMove::Queen { from, to } => {
                let powered = me == Player::South && matches!(pos.hajeb, Hajeb::On | Hajeb::Chain);
                if own & 1 << from == 0 {
                    return bad("not_your_piece", format!("{} holds no piece of {me}", name(from)));
                }
                if empty & 1 << to == 0 {
                    return bad("occupied", format!("{} is not empty", name(to)));
                }
                if !powered {
                    return bad("not_a_step", "pieces step to an orthogonally adjacent cell");
                }
                let mut reachable = false;
                self.queen_moves(pos, |f, t| reachable |= f == from as usize && t == to as usize);
                if !reachable {
                    return bad("not_a_line", "a queen move goes along a line through empty cells");
                }
                if pos.hajeb == Hajeb::Chain {
                    return bad("must_capture", "in a capture sequence every further move must capture");
                }
            }
            SabouiyyaMove::Walk { from, steps, dirs } => {
                if me == Player::South && matches!(pos.hajeb, Hajeb::On | Hajeb::Chain) {
                    return bad("queen_move", "under H'ajeb South plays one queen move at a time");
                }
                if own & 1 << from == 0 {
                    return bad("not_your_piece", format!("{} holds no piece of {me}", name(from)));
                }
                let Some(cells) = SabouiyyaMove::walk_cells(from, steps, dirs) else {
                    return bad("off_board", "the move leaves the board");
                };
                let mut pieces = pos.pieces;
                for i in 0..steps as usize {
                    let (a, b) = (cells[i] as usize, cells[i + 1] as usize);
                    if (pieces[0] | pieces[1]) & 1 << b != 0 {
                        return bad("occupied", format!("{} is not empty", name(cells[i + 1])));
                    }
                    let (after, taken) = move_and_capture(pieces, me.index(), a, b);
                    if i > 0 && taken == 0 {
                        return bad("chain_must_capture", "every step after the first must capture");
                    }
                    pieces = after;
                }
            }
        }
        bad("not_legal", format!("{} is not a legal move here", self.format_move(pos, mv)))
    }
}

impl Game for SabouiyyaGame {
    type Position = SabouiyyaPosition;
    type Move = SabouiyyaMove;

    fn variant(&self) -> &Variant {
        &self.variant
    }

    fn start(&self) -> SabouiyyaPosition {
        SabouiyyaPosition {
            pieces: [0, 0],
            turns: 0,
            hands: [PIECES, PIECES],
            to_move: Player::South,
            hajeb: Hajeb::Undeclared,
        }
    }

    fn side_to_move(&self, pos: &SabouiyyaPosition) -> Player {
        pos.to_move
    }

    fn turns(&self, pos: &SabouiyyaPosition) -> u32 {
        pos.turns
    }

    fn multi_step_turns(&self) -> bool {
        true
    }

    fn max_steps_per_turn(&self) -> u32 {
        // South's H'ajeb turn: every step but `stop` captures at least one of North's pieces.
        PIECES as u32 + 1
    }

    fn mid_turn(&self, pos: &SabouiyyaPosition) -> bool {
        pos.hajeb == Hajeb::Chain
    }

    fn legal_moves(&self, pos: &SabouiyyaPosition, moves: &mut MoveList<SabouiyyaMove>) {
        if self.outcome(pos).is_none() {
            self.raw_moves(pos, moves);
        }
    }

    fn play_traced<T: Trace>(
        &self,
        pos: &SabouiyyaPosition,
        mv: SabouiyyaMove,
        trace: &mut T,
    ) -> SabouiyyaPosition {
        let mut p = *pos;
        let me = pos.to_move;
        let mut next = me.other();
        let capture_events = |trace: &mut T, taken: u32, player: Player| {
            if T::ENABLED {
                for c in bits(taken) {
                    trace.push(Event::Capture { cell: c as u8, seeds: 1, player, kind: CaptureKind::Piece });
                }
            }
        };
        match mv {
            SabouiyyaMove::Place(a, b) => {
                p.pieces[me.index()] |= 1 << a | 1 << b;
                p.hands[me.index()] -= 2;
                if T::ENABLED {
                    trace.push(Event::Place { cell: a, player: me });
                    trace.push(Event::Place { cell: b, player: me });
                    if !p.placing() {
                        trace.push(Event::Note { name: "movement_phase", player: None });
                    }
                }
            }
            SabouiyyaMove::Walk { from, steps, dirs } => {
                let cells = SabouiyyaMove::walk_cells(from, steps, dirs).expect("a legal walk");
                for i in 0..steps as usize {
                    let (a, b) = (cells[i], cells[i + 1]);
                    let (after, taken) = move_and_capture(p.pieces, me.index(), a as usize, b as usize);
                    p.pieces = after;
                    if T::ENABLED {
                        trace.push(Event::Step { from: a, to: b });
                    }
                    capture_events(trace, taken, me);
                }
            }
            SabouiyyaMove::Queen { from, to } => {
                let (after, taken) = move_and_capture(p.pieces, 0, from as usize, to as usize);
                p.pieces = after;
                if T::ENABLED {
                    trace.push(Event::Step { from, to });
                }
                capture_events(trace, taken, me);
                p.hajeb = Hajeb::On;
                if taken != 0 && p.pieces[1] != 0 && self.has_queen_capture(&p) {
                    p.hajeb = Hajeb::Chain;
                    next = Player::South;
                    if T::ENABLED {
                        trace.push(Event::Note { name: "chain", player: Some(me) });
                    }
                }
            }
            SabouiyyaMove::Declare => {
                p.hajeb = Hajeb::On;
                if T::ENABLED {
                    trace.push(Event::Note { name: "hajeb", player: Some(me) });
                }
            }
            SabouiyyaMove::Rescind => {
                p.hajeb = Hajeb::Done;
                if T::ENABLED {
                    trace.push(Event::Note { name: "rescind", player: Some(me) });
                }
            }
            SabouiyyaMove::Stop => {
                p.hajeb = Hajeb::On;
                if T::ENABLED {
                    trace.push(Event::Note { name: "stop", player: Some(me) });
                }
            }
            SabouiyyaMove::Remove { first, second } => {
                let mut taken = 1 << first;
                if second != NONE {
                    taken |= 1 << second;
                }
                p.pieces[me.other().index()] &= !taken;
                capture_events(trace, taken, me);
                p.hajeb = if pos.hajeb == Hajeb::SettleNorth { Hajeb::SettleSouth } else { Hajeb::Done };
            }
        }
        p.to_move = next;
        p.turns = p.turns.saturating_add(1);
        if p.hajeb == Hajeb::On
            && p.to_move == Player::South
            && p.pieces[0] != 0
            && p.pieces[1] != 0
            && !self.has_queen_capture(&p)
        {
            p.hajeb = Hajeb::SettleNorth;
            p.to_move = Player::North;
            if T::ENABLED {
                trace.push(Event::Note { name: "settlement", player: None });
            }
        }
        p
    }

    fn outcome(&self, pos: &SabouiyyaPosition) -> Option<Outcome> {
        let scores = [pos.count(Player::South) as i32, pos.count(Player::North) as i32];
        if !pos.placing() {
            if scores[0] == 0 || scores[1] == 0 {
                let winner = if scores[1] == 0 { Player::South } else { Player::North };
                return Some(Outcome { winner: Some(winner), scores, reason: EndReason::CapturedAll });
            }
            if !self.has_move(pos) {
                return Some(Outcome {
                    winner: Some(pos.to_move.other()),
                    scores,
                    reason: EndReason::Blocked,
                });
            }
        }
        // The limit is judged when a turn ends: inside South's chain the turn goes on, so that no
        // move ends inside a turn (rule 11).
        if pos.turns >= self.max_turns && !self.mid_turn(pos) {
            return Some(Outcome { winner: None, scores, reason: EndReason::TurnLimit });
        }
        None
    }

    fn endless_outcome(&self, pos: &SabouiyyaPosition) -> Outcome {
        let scores = [pos.count(Player::South) as i32, pos.count(Player::North) as i32];
        Outcome { winner: None, scores, reason: EndReason::EndlessCycle }
    }

    fn hash_key(&self, pos: &SabouiyyaPosition) -> u64 {
        let a = pos.pieces[0] as u64 | (pos.pieces[1] as u64) << 32;
        let b = pos.hands[0] as u64
            | (pos.hands[1] as u64) << 8
            | (pos.to_move as u64) << 16
            | (pos.hajeb as u64) << 24;
        let mut h = (a ^ 0x9E37_79B9_7F4A_7C15).wrapping_mul(0x2127_599B_F432_5C37);
        h = (h.rotate_left(23) ^ b).wrapping_mul(0x2127_599B_F432_5C37);
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^ (h >> 32)
    }

    fn write_key(&self, pos: &SabouiyyaPosition, out: &mut Vec<u8>) {
        out.extend_from_slice(&pos.pieces[0].to_le_bytes());
        out.extend_from_slice(&pos.pieces[1].to_le_bytes());
        out.extend_from_slice(&pos.hands);
        out.push(pos.to_move as u8);
        out.push(pos.hajeb as u8);
    }

    fn format_body(&self, pos: &SabouiyyaPosition) -> String {
        let mut ranks = Vec::with_capacity(5);
        for rank in (0..5).rev() {
            let row: String = (0..5)
                .map(|file| {
                    let bit = 1 << (rank * 5 + file);
                    if pos.pieces[0] & bit != 0 {
                        'S'
                    } else if pos.pieces[1] & bit != 0 {
                        'N'
                    } else {
                        '.'
                    }
                })
                .collect();
            ranks.push(row);
        }
        format!(
            "{} {} {} {}-{} {}",
            ranks.join("/"),
            pos.to_move.letter(),
            pos.turns,
            pos.hands[0],
            pos.hands[1],
            pos.hajeb.text()
        )
    }

    fn parse_body(&self, body: &str) -> Result<SabouiyyaPosition, NotationError> {
        const NAMES: [&str; 5] = ["board", "side", "turns", "hands", "hajeb"];
        let fields: Vec<&str> = body.split(' ').collect();
        if fields.len() != NAMES.len() {
            return Err(NotationError::new(format!(
                "expected {} fields after the variant (board side turns hands hajeb), found {}",
                NAMES.len(),
                fields.len()
            )));
        }
        let f = |i: usize, m: String| NotationError::field(i + 2, NAMES[i], m);
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 5 {
            return Err(f(
                0,
                format!("expected five ranks (5 to 1) separated by '/', found {}", ranks.len()),
            ));
        }
        let mut pieces = [0u32; 2];
        for (i, rank_text) in ranks.iter().enumerate() {
            let rank = 4 - i;
            if rank_text.len() != 5 {
                return Err(f(0, format!("rank {} {rank_text:?} is not five cells", rank + 1)));
            }
            for (file, c) in rank_text.chars().enumerate() {
                let bit = 1 << (rank * 5 + file);
                match c {
                    'S' => pieces[0] |= bit,
                    'N' => pieces[1] |= bit,
                    '.' => {}
                    _ => return Err(f(0, format!("rank {}: {c:?} is not S, N or .", rank + 1))),
                }
            }
        }
        let to_move = crate::notation::parse_side(fields[1]).map_err(|m| f(1, m))?;
        let turns = crate::notation::parse_turns(fields[2], self.variant.max_turns()).map_err(|m| f(2, m))?;
        let (hs, hn) = fields[3]
            .split_once('-')
            .ok_or_else(|| f(3, format!("{:?} is not <hand-S>-<hand-N>", fields[3])))?;
        let mut hands = [0u8; 2];
        for (i, (who, text)) in [("South", hs), ("North", hn)].into_iter().enumerate() {
            let v: u8 = text.parse().map_err(|_| f(3, format!("{who}'s hand {text:?} is not a number")))?;
            if v % 2 != 0 || v > PIECES {
                return Err(f(3, format!("{who}'s hand must be even and at most {PIECES}, not {v}")));
            }
            if pieces[i].count_ones() + v as u32 > PIECES as u32 {
                return Err(f(0, format!("{who} has more than {PIECES} pieces on the board and in hand")));
            }
            hands[i] = v;
        }
        let hajeb = Hajeb::ALL.into_iter().find(|h| h.text() == fields[4]).ok_or_else(|| {
            f(4, format!("{:?} is not one of -, on, chain, settle-N, settle-S, done", fields[4]))
        })?;
        let pos = SabouiyyaPosition { pieces, turns, hands, to_move, hajeb };
        if pos.placing() {
            if pieces[0] & 1 << CENTRE != 0 || pieces[1] & 1 << CENTRE != 0 {
                return Err(f(0, "the centre c3 is filled during placement".into()));
            }
            let expected = if hands[0] == hands[1] {
                Player::South
            } else if hands[0] + 2 == hands[1] {
                Player::North
            } else {
                return Err(f(3, format!("placement cannot produce hands {hs}-{hn}")));
            };
            if to_move != expected {
                return Err(f(1, format!("{} places next", expected.letter())));
            }
            if hajeb != Hajeb::Undeclared {
                return Err(f(4, "H'ajeb cannot be in play during placement".into()));
            }
        }
        if hajeb != Hajeb::Undeclared && !self.hajeb {
            return Err(f(4, format!("{:?} but this variant has hajeb=false", hajeb.text())));
        }
        let needs = match hajeb {
            Hajeb::SettleNorth => Some(Player::North),
            Hajeb::SettleSouth | Hajeb::Chain => Some(Player::South),
            _ => None,
        };
        if let Some(side) = needs {
            if side != to_move {
                return Err(f(4, format!("{} needs {} to move", hajeb.text(), side.letter())));
            }
        }
        if hajeb == Hajeb::On
            && to_move == Player::South
            && pieces[0] != 0
            && pieces[1] != 0
            && !self.has_queen_capture(&pos)
        {
            return Err(f(4, "on with South to move and no capture for South: settle-N is due".into()));
        }
        if hajeb == Hajeb::Chain && (pieces[1] == 0 || !self.has_queen_capture(&pos)) {
            return Err(f(4, "chain with no capture left for South: the turn would have ended".into()));
        }
        Ok(pos)
    }

    fn format_move(&self, _pos: &SabouiyyaPosition, mv: SabouiyyaMove) -> String {
        let name = |c: u8| cell_name(c as usize);
        match mv {
            SabouiyyaMove::Place(a, b) => format!("{},{}", name(a), name(b)),
            SabouiyyaMove::Walk { from, steps, dirs } => match SabouiyyaMove::walk_cells(from, steps, dirs) {
                Some(cells) => {
                    cells[..=steps as usize].iter().map(|&c| name(c)).collect::<Vec<_>>().join("-")
                }
                None => format!("{}-?", name(from)),
            },
            SabouiyyaMove::Queen { from, to } => format!("{}-{}", name(from), name(to)),
            SabouiyyaMove::Declare => "hajeb".into(),
            SabouiyyaMove::Rescind => "rescind".into(),
            SabouiyyaMove::Stop => "stop".into(),
            SabouiyyaMove::Remove { first, second } if second == NONE => format!("remove:{}", name(first)),
            SabouiyyaMove::Remove { first, second } => format!("remove:{},{}", name(first), name(second)),
        }
    }

    fn parse_move(&self, pos: &SabouiyyaPosition, text: &str) -> Result<SabouiyyaMove, NotationError> {
        let text = text.trim();
        let cell = |s: &str| {
            parse_cell(s)
                .ok_or_else(|| NotationError::new(format!("{text:?}: {s:?} is not a cell (a1 to e5)")))
        };
        let sorted_pair = |list: &str| -> Result<(u8, u8), NotationError> {
            let (a, b) = list
                .split_once(',')
                .ok_or_else(|| NotationError::new(format!("{text:?}: expected two cells joined by ','")))?;
            let (a, b) = (cell(a)?, cell(b)?);
            if a >= b {
                return Err(NotationError::new(format!(
                    "{text:?}: two different cells in cell order (a1 < b1 < ... < e1 < a2 < ... < e5)"
                )));
            }
            Ok((a as u8, b as u8))
        };
        match text {
            "hajeb" => return Ok(SabouiyyaMove::Declare),
            "rescind" => return Ok(SabouiyyaMove::Rescind),
            "stop" => return Ok(SabouiyyaMove::Stop),
            _ => {}
        }
        if let Some(list) = text.strip_prefix("remove:") {
            if list.contains(',') {
                let (a, b) = sorted_pair(list)?;
                return Ok(SabouiyyaMove::Remove { first: a, second: b });
            }
            return Ok(SabouiyyaMove::Remove { first: cell(list)? as u8, second: NONE });
        }
        if text.contains(',') {
            let (a, b) = sorted_pair(text)?;
            return Ok(SabouiyyaMove::Place(a, b));
        }
        let cells = text.split('-').map(cell).collect::<Result<Vec<_>, _>>()?;
        if cells.len() < 2 {
            return Err(NotationError::new(format!(
                "{text:?} is not a move: c2,d4 (placement), c2-c3 (step or chain c2-c3-c4), hajeb, \
                 rescind, stop or remove:<cells>"
            )));
        }
        let powered = pos.to_move == Player::South && matches!(pos.hajeb, Hajeb::On | Hajeb::Chain);
        let mut dirs = 0u32;
        let mut orthogonal = cells.len() <= MAX_WALK + 1;
        for (i, pair) in cells.windows(2).enumerate() {
            match (0..4).find(|&d| NEIGHBOUR[pair[0]][d] == pair[1] as u8) {
                Some(d) if orthogonal => dirs |= (d as u32) << (2 * i),
                _ => orthogonal = false,
            }
        }
        if cells.len() == 2 && (powered || !orthogonal) {
            return Ok(SabouiyyaMove::Queen { from: cells[0] as u8, to: cells[1] as u8 });
        }
        if !orthogonal {
            return Err(NotationError::new(format!(
                "{text:?}: every step of a chain goes to an orthogonally adjacent cell"
            )));
        }
        Ok(SabouiyyaMove::Walk { from: cells[0] as u8, steps: cells.len() as u8 - 1, dirs })
    }

    fn check_move(&self, pos: &SabouiyyaPosition, mv: SabouiyyaMove) -> Result<(), IllegalMove> {
        if self.outcome(pos).is_some() {
            return Err(IllegalMove::new("game_over", "the game is over"));
        }
        let mut moves = MoveList::new();
        self.raw_moves(pos, &mut moves);
        if moves.contains(&mv) {
            Ok(())
        } else {
            Err(self.diagnose(pos, mv))
        }
    }

    fn evaluate(&self, pos: &SabouiyyaPosition) -> i32 {
        let me = pos.to_move.index();
        let material = |i: usize| pos.pieces[i].count_ones() as i32 + pos.hands[i] as i32;
        material(me) - material(1 - me)
    }

    fn cells(&self, pos: &SabouiyyaPosition) -> Vec<i32> {
        (0..CELLS)
            .map(|c| {
                if pos.pieces[0] & 1 << c != 0 {
                    1
                } else if pos.pieces[1] & 1 << c != 0 {
                    2
                } else {
                    0
                }
            })
            .collect()
    }

    fn geometry(&self) -> Geometry {
        Geometry {
            rows: 5,
            cols: 5,
            cells: (0..CELLS)
                .map(|c| Cell { row: (c / 5) as u8, col: (c % 5) as u8, owner: None, label: cell_name(c) })
                .collect(),
            stores: false,
            sowing: String::new(),
        }
    }
}
