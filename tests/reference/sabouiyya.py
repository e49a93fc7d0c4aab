"""Independent pure-Python reference for Sabou'iyya.

Written from the rule text (Quemeneur 1944, as the Ludii portal records it), docs/rules/README.md
(every game), docs/NOTATION.md and docs/rules/sabouiyya.md (the reading the core and this file
share; the numbers Y1.. below are its sections). Slow and literal on purpose: it exists to be
compared with the Rust core on random games. Standard library only.

API (all on Griot notation strings)
-----------------------------------
    start(variant) -> position
    legal_moves(position) -> [move]     every legal move string, sorted by plain string order;
                                        [] when the game is over
    play(position, move) -> position    one move (a whole turn, except South's H'ajeb captures,
                                        see Y4); ValueError on an illegal move
    outcome(position) -> None | {"winner": "S"|"N"|None, "score": (south, north), "reason": str}

Variant: `sabouiyya`, options `hajeb` (default true), `max_turns` (default 2000, >= 1).
Position: `<variant> <rank5>/<rank4>/<rank3>/<rank2>/<rank1> <side> <turns> <hand-S>-<hand-N> <hajeb>`.
Reasons: "capture-all", "blockade", "turn-limit".

Summary of the reading (docs/rules/sabouiyya.md)
-------------------------------------------------
Y1  Placement: S, N, S, ... two cells a turn, written in cell order (a1 < b1 < ... < e1 < a2 < ...);
    never the centre c3; on a player's first placement turn (hand 12) at least one of the two cells
    is b3, c2, c4 or d3. After the 12th placement turn S moves first.
Y2  Movement: one orthogonal step to an empty cell; the moved piece captures every enemy piece
    orthogonally next to it that has a friendly piece right behind it. After a capturing step the
    same piece may step on, each further step must capture: `c2-c3-c4`, every prefix legal.
Y3  A player with no legal move on their turn loses; a player with no pieces loses.
Y4  H'ajeb (option hajeb): North may play `hajeb` (its whole turn) when it has a "safe mover": a
    piece with an empty orthogonal neighbour such that neither its cell nor any empty cell joined
    to those neighbours through empty cells is orthogonally next to a South piece.
    While `on`: South moves like a queen (`a1-d4`), one queen move per API move. A queen move that
    captures leaves South to move in state `chain` when another queen move (any South piece) would
    capture: South then plays a further capturing queen move or `stop`; when none is left, or
    after `stop` or a non-capturing move, the turn ends (state `on`, North to move). North may play
    `rescind` (its whole turn).
    Changed reading (docs/rules/sabouiyya.md section 5.3): an earlier version made each whole
    multi-piece sequence (`a1-d4,b2-b5`) one move; every ordering of the captures was a separate
    move and random games reached ~2,600 legal moves, more than the core's fixed-capacity move
    lists (512) hold. The sequences South can play, and the positions they reach, are unchanged.
    When South is to move with `on` and has no capturing move, the settlement starts at once
    with North to move: `remove:x,y` (two South pieces, or the last one), then South `remove:z` (a
    North safe mover, or any North piece when there is none), then North moves; state `done`.
    H'ajeb can be declared once a game.
Y5  The turn limit (turns >= max_turns, turns counting every step) ends the game only between
    turns: inside South's capture sequence (`chain`) South goes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, pairwise

GAME_ID = "sabouiyya"
DEFAULT_OPTIONS = {"hajeb": True, "max_turns": 2000}
SIZE = 5
PIECES = 12
CENTRE = 12  # c3
CENTRE_NEIGHBOURS = (7, 11, 13, 17)  # c2, b3, d3, c4
ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
ALL_DIRECTIONS = (*ORTHOGONAL, (1, 1), (1, -1), (-1, 1), (-1, -1))
SIDES = "SN"
HAJEB_STATES = ("-", "on", "chain", "settle-N", "settle-S", "done")


# --------------------------------------------------------------------------- variant strings


def parse_variant(text: str) -> dict:
    """Return the full option dict of a variant string; ValueError if it is not a valid one."""
    if "(" in text:
        if not text.endswith(")"):
            raise ValueError(f"variant {text!r}: missing ')'")
        game_id, body = text[:-1].split("(", 1)
        items = body.split(",")
        if body == "":
            raise ValueError(f"variant {text!r}: empty option list")
    else:
        game_id, items = text, []
    if game_id != GAME_ID:
        raise ValueError(f"variant {text!r}: not {GAME_ID}")
    options = dict(DEFAULT_OPTIONS)
    seen = set()
    for item in items:
        if item.count("=") != 1:
            raise ValueError(f"variant {text!r}: option {item!r} is not key=value")
        key, value = item.split("=")
        if key not in DEFAULT_OPTIONS:
            raise ValueError(f"variant {text!r}: unknown option {key!r}")
        if key in seen:
            raise ValueError(f"variant {text!r}: option {key!r} given twice")
        seen.add(key)
        if key == "hajeb":
            if value not in ("true", "false"):
                raise ValueError(f"variant {text!r}: option {key!r}: {value!r} is not true/false")
            options[key] = value == "true"
        else:
            if not value.isdigit():
                raise ValueError(f"variant {text!r}: option {key!r}: {value!r} is not an integer")
            options[key] = int(value)
    if options["max_turns"] < 1:
        raise ValueError(f"variant {text!r}: max_turns must be at least 1")
    return options


def format_variant(options: dict) -> str:
    """Canonical form: only non-default options, sorted by key."""

    def text(value):
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    changed = [f"{k}={text(options[k])}" for k in sorted(options) if options[k] != DEFAULT_OPTIONS[k]]
    return GAME_ID + (f"({','.join(changed)})" if changed else "")


# --------------------------------------------------------------------------- cells


def _name(cell: int) -> str:
    return "abcde"[cell % SIZE] + str(cell // SIZE + 1)


def _cell(name: str) -> int:
    if len(name) != 2 or name[0] not in "abcde" or name[1] not in "12345":
        raise ValueError(f"{name!r} is not a cell")
    return (int(name[1]) - 1) * SIZE + "abcde".index(name[0])


def _step(cell: int, direction: tuple) -> int | None:
    file, rank = cell % SIZE + direction[0], cell // SIZE + direction[1]
    if 0 <= file < SIZE and 0 <= rank < SIZE:
        return rank * SIZE + file
    return None


def _other(piece: str) -> str:
    return "N" if piece == "S" else "S"


# --------------------------------------------------------------------------- positions


@dataclass
class Position:
    options: dict
    board: list  # 25 cells, index = (rank - 1) * 5 + file, each "S", "N" or "."
    side: str
    turns: int
    hands: dict  # {"S": n, "N": n}
    hajeb: str

    def placing(self) -> bool:
        return self.hands["S"] > 0 or self.hands["N"] > 0

    def count(self, piece: str) -> int:
        return self.board.count(piece)


def parse_position(text: str) -> Position:
    fields = text.split(" ")
    if len(fields) != 6:
        raise ValueError(f"position {text!r}: expected 6 fields, got {len(fields)}")
    options = parse_variant(fields[0])
    ranks = fields[1].split("/")
    if len(ranks) != SIZE or any(len(r) != SIZE or set(r) - set("SN.") for r in ranks):
        raise ValueError("field 2 (board): expected five ranks of five characters S, N or .")
    board = [c for rank in reversed(ranks) for c in rank]
    if fields[2] not in SIDES:
        raise ValueError(f"field 3 (side): {fields[2]!r} is not S or N")
    side = fields[2]
    if not fields[3].isdigit():
        raise ValueError(f"field 4 (turns): {fields[3]!r} is not a number")
    turns = int(fields[3])
    hand_texts = fields[4].split("-")
    if len(hand_texts) != 2 or not all(h.isdigit() for h in hand_texts):
        raise ValueError(f"field 5 (hands): {fields[4]!r} is not <hand-S>-<hand-N>")
    hands = {"S": int(hand_texts[0]), "N": int(hand_texts[1])}
    for piece in SIDES:
        if hands[piece] % 2 or hands[piece] > PIECES:
            raise ValueError(f"field 5 (hands): hand of {piece} must be even and at most {PIECES}")
        if board.count(piece) + hands[piece] > PIECES:
            raise ValueError(f"field 2 (board): {piece} has more than {PIECES} pieces")
    hajeb = fields[5]
    if hajeb not in HAJEB_STATES:
        raise ValueError(f"field 6 (hajeb): {hajeb!r} is not one of {', '.join(HAJEB_STATES)}")
    pos = Position(options, board, side, turns, hands, hajeb)
    if pos.placing():
        if board[CENTRE] != ".":
            raise ValueError("field 2 (board): the centre is filled during placement")
        if hands["S"] == hands["N"]:
            expected = "S"
        elif hands["S"] == hands["N"] - 2:
            expected = "N"
        else:
            raise ValueError("field 5 (hands): hands that placement cannot produce")
        if side != expected:
            raise ValueError(f"field 3 (side): {expected} places next")
        if hajeb != "-":
            raise ValueError("field 6 (hajeb): H'ajeb during placement")
    if hajeb != "-" and not options["hajeb"]:
        raise ValueError("field 6 (hajeb): H'ajeb state but hajeb=false")
    if (hajeb == "settle-N" and side != "N") or (hajeb in ("settle-S", "chain") and side != "S"):
        raise ValueError(f"field 6 (hajeb): {hajeb} with {side} to move")
    if (
        hajeb == "on"
        and side == "S"
        and pos.count("S")
        and pos.count("N")
        and not _has_powered_capture(board)
    ):
        raise ValueError("field 6 (hajeb): on, South to move without a capture (settle-N is due)")
    if hajeb == "chain" and not (pos.count("N") and _has_powered_capture(board)):
        raise ValueError("field 6 (hajeb): chain without a capture left (the turn would have ended)")
    return pos


def format_position(pos: Position) -> str:
    ranks = ["".join(pos.board[r * SIZE : (r + 1) * SIZE]) for r in reversed(range(SIZE))]
    return (
        f"{format_variant(pos.options)} {'/'.join(ranks)} {pos.side} {pos.turns} "
        f"{pos.hands['S']}-{pos.hands['N']} {pos.hajeb}"
    )


def start(variant: str) -> str:
    options = parse_variant(variant)
    return format_position(Position(options, ["."] * 25, "S", 0, {"S": PIECES, "N": PIECES}, "-"))


# --------------------------------------------------------------------------- movement


def _capture(board: list, cell: int) -> list:
    """The moved piece on `cell` takes every enemy piece it sandwiches orthogonally. Returns them."""
    me = board[cell]
    taken = []
    for direction in ORTHOGONAL:
        next_cell = _step(cell, direction)
        if next_cell is None or board[next_cell] != _other(me):
            continue
        beyond = _step(next_cell, direction)
        if beyond is not None and board[beyond] == me:
            taken.append(next_cell)
    for cell_taken in taken:
        board[cell_taken] = "."
    return taken


def _move(board: list, origin: int, target: int) -> tuple[list, list]:
    """Board after moving origin -> target and capturing; and the cells taken."""
    after = list(board)
    after[target], after[origin] = after[origin], "."
    taken = _capture(after, target)
    return after, taken


def _steps_of(board: list, cell: int) -> list:
    """One orthogonal step to an empty cell."""
    targets = []
    for direction in ORTHOGONAL:
        target = _step(cell, direction)
        if target is not None and board[target] == ".":
            targets.append(target)
    return targets


def _normal_moves(board: list, me: str) -> list:
    """Steps and capture chains of the same piece (Y2)."""
    moves = []

    def chain(current: list, cell: int, path: list) -> None:
        for target in _steps_of(current, cell):
            after, taken = _move(current, cell, target)
            if taken:
                longer = [*path, _name(target)]
                moves.append("-".join(longer))
                chain(after, target, longer)

    for origin in range(25):
        if board[origin] != me:
            continue
        for target in _steps_of(board, origin):
            after, taken = _move(board, origin, target)
            moves.append(f"{_name(origin)}-{_name(target)}")
            if taken:
                chain(after, target, [_name(origin), _name(target)])
    return moves


def _queen_moves(board: list) -> list:
    """South's H'ajeb moves: any distance orthogonally or diagonally through empty cells."""
    moves = []
    for origin in range(25):
        if board[origin] != "S":
            continue
        for direction in ALL_DIRECTIONS:
            target = _step(origin, direction)
            while target is not None and board[target] == ".":
                moves.append((origin, target))
                target = _step(target, direction)
    return moves


def _has_powered_capture(board: list) -> bool:
    return any(_move(board, o, t)[1] for o, t in _queen_moves(board))


def _powered_moves(board: list, capturing_only: bool) -> list:
    """South's queen moves while H'ajeb is on (Y4), each one API move: `a1-d4`. In state `chain`
    only the capturing ones."""
    moves = []
    for origin, target in _queen_moves(board):
        if capturing_only and not _move(board, origin, target)[1]:
            continue
        moves.append(f"{_name(origin)}-{_name(target)}")
    return moves


def _safe_movers(board: list) -> list:
    """North pieces that "can move infinitely without possibility of being taken" (Y4)."""
    movers = []
    for cell in range(25):
        if board[cell] != "N":
            continue
        empty_neighbours = _steps_of(board, cell)
        if not empty_neighbours:
            continue
        zone, stack = {cell}, list(empty_neighbours)
        while stack:
            current = stack.pop()
            if current in zone:
                continue
            zone.add(current)
            stack.extend(_steps_of(board, current))
        touched = any(board[n] == "S" for z in zone for d in ORTHOGONAL if (n := _step(z, d)) is not None)
        if not touched:
            movers.append(cell)
    return movers


# --------------------------------------------------------------------------- turns


def _raw_moves(pos: Position) -> list:
    """Legal moves of the side to move, ignoring whether the game is over."""
    board, me = pos.board, pos.side
    if pos.placing():
        free = [c for c in range(25) if board[c] == "." and c != CENTRE]
        pairs = combinations(free, 2)  # in cell order
        if pos.hands[me] == PIECES:
            pairs = [p for p in pairs if p[0] in CENTRE_NEIGHBOURS or p[1] in CENTRE_NEIGHBOURS]
        return [f"{_name(a)},{_name(b)}" for a, b in pairs]
    if pos.hajeb == "settle-N":
        south = [c for c in range(25) if board[c] == "S"]
        if len(south) == 1:
            return [f"remove:{_name(south[0])}"]
        return [f"remove:{_name(a)},{_name(b)}" for a, b in combinations(south, 2)]
    if pos.hajeb == "settle-S":
        candidates = _safe_movers(board) or [c for c in range(25) if board[c] == "N"]
        return [f"remove:{_name(c)}" for c in candidates]
    if me == "S" and pos.hajeb == "on":
        return _powered_moves(board, capturing_only=False)
    if pos.hajeb == "chain":
        return [*_powered_moves(board, capturing_only=True), "stop"]
    moves = _normal_moves(board, me)
    if me == "N" and pos.hajeb == "-" and pos.options["hajeb"] and _safe_movers(board):
        moves.append("hajeb")
    if me == "N" and pos.hajeb == "on":
        moves.append("rescind")
    return moves


def _apply(pos: Position, move: str) -> Position:
    """The position after a legal move (the move must come from _raw_moves)."""
    board, me = list(pos.board), pos.side
    hands, hajeb, side = dict(pos.hands), pos.hajeb, _other(me)
    if pos.placing():
        for name in move.split(","):
            board[_cell(name)] = me
        hands[me] -= 2
    elif move == "hajeb":
        hajeb = "on"
    elif move == "rescind":
        hajeb = "done"
    elif move.startswith("remove:"):
        for name in move[len("remove:") :].split(","):
            board[_cell(name)] = "."
        hajeb = "settle-S" if hajeb == "settle-N" else "done"
    elif move == "stop":
        hajeb = "on"  # South ends its capture sequence; North moves
    elif me == "S" and hajeb in ("on", "chain"):
        origin, target = (_cell(name) for name in move.split("-"))
        board, taken = _move(board, origin, target)
        hajeb = "on"
        if taken and board.count("N") and _has_powered_capture(board):
            hajeb, side = "chain", "S"  # South may capture again, with any piece, or stop
    else:
        cells = [_cell(name) for name in move.split("-")]
        for origin, target in pairwise(cells):
            board, _ = _move(board, origin, target)
    if (
        hajeb == "on"
        and side == "S"
        and board.count("S")
        and board.count("N")
        and not _has_powered_capture(board)
    ):
        hajeb, side = "settle-N", "N"  # South cannot capture: the settlement starts at once
    return Position(pos.options, board, side, pos.turns + 1, hands, hajeb)


# --------------------------------------------------------------------------- API


def _outcome(pos: Position) -> dict | None:
    south, north = pos.count("S"), pos.count("N")
    score = (south, north)
    if not pos.placing():
        if north == 0 or south == 0:
            return {"winner": "S" if north == 0 else "N", "score": score, "reason": "capture-all"}
        if not _raw_moves(pos):
            return {"winner": _other(pos.side), "score": score, "reason": "blockade"}
    if pos.turns >= pos.options["max_turns"] and pos.hajeb != "chain":  # Y5
        return {"winner": None, "score": score, "reason": "turn-limit"}
    return None


def outcome(position: str) -> dict | None:
    return _outcome(parse_position(position))


def legal_moves(position: str) -> list:
    pos = parse_position(position)
    if _outcome(pos) is not None:
        return []
    return sorted(_raw_moves(pos))


def play(position: str, move: str) -> str:
    pos = parse_position(position)
    if _outcome(pos) is not None:
        raise ValueError(f"move {move!r}: the game is over")
    if move not in _raw_moves(pos):
        raise ValueError(f"move {move!r} is not legal here")
    return format_position(_apply(pos, move))


def turn_may_continue(position: str) -> bool:
    """Whether a move from ``position`` may leave the turn open (``mid_turn`` after it): only
    South's queen moves under H'ajeb can, so only in states ``on`` and ``chain`` (the text's last
    field; read without parsing the board)."""
    return position.split()[-1] in ("on", "chain")


def mid_turn(position: str) -> bool:
    """Whether South is inside its H'ajeb capture sequence (state ``chain``): South goes on with
    another capture or ``stop``, and the turn (one API move) is not over yet."""
    pos = parse_position(position)
    return pos.hajeb == "chain" and _outcome(pos) is None
