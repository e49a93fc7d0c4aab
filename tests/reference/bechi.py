"""Independent pure-Python reference for Béchi.

Written from the rule text (Pankhurst 1971), the project's decisions (docs/rules/README.md for every
game, docs/rules/bechi.md: the reading the core and this file share) and docs/NOTATION.md. Slow and
literal on purpose: it exists to be compared with the Rust core on random games. Standard library
only.

API (all on Griot notation strings)
-----------------------------------
    start(variant) -> position
    legal_moves(position) -> [move]     play: own labels in board order, `b:cw` before `b:ccw`;
                                        ["pass"]; fill phase: `fill:<labels>` in lexicographic
                                        order of the chosen holes; [] when the match is over
    play(position, move) -> position    the whole turn; ValueError on an illegal move
    outcome(position) -> None | {"winner": "S"|"N"|None, "score": (south, north), "reason": str}

Variant: `bechi`, options `holes` in {3,4} (default 4), `empty_breaks_chain` (default true),
`empty_holes_in_play` (default false), `chain_max` 0..7 (default 7), `first_pass_starts` (default
false), `ludii` (default false; when true, `chain_max` and `first_pass_starts` default to 6 and
true, the Digital Ludeme Project's reading), `max_turns` (default 2000, integer >= 1).
Position: `<variant> <south>/<north> <store-S>-<store-N> <side> <turns> <round> <phase> <moved>
<off> <carry-S>-<carry-N>`, then `<passed>` (S or N during a refill, else -) with
first_pass_starts. Reasons: "cannot-fill", "turn-limit".

Readings made beyond the rule text (numbers refer to docs/rules/bechi.md)
-------------------------------------------------------------------------
B1  Clockwise is index - 1, anti-clockwise index + 1, for both players; a hole's half is judged
    from its owner's left (label a/A = left end). 2x4: a,b,A,B cw; c,d,C,D ccw. 2x3: a,A cw;
    c,C ccw; b,B both (`:cw`/`:ccw`). (table)
B2  The origin is not skipped when a sowing comes round again; holes out of play are skipped. (2, 3)
B3  Capture needs: the hole held >= 1 before the last counter, now even, and was in the moved set
    before this turn (the turn's origin joins the set afterwards). (4)
B4  The chain follows the move's direction, skips holes out of play, needs no moved condition,
    stops at odd, at empty (if empty_breaks_chain), or on coming back to the chain's first hole. (5)
B5  `pass` is the only move when the mover has no sowable hole and the opponent has one. The round
    ends inside the sowing turn after which neither can sow: rows go to the stores, board empty,
    moved and off cleared, side S, then phase `over` if a player has < 6 counters (store + carry),
    else `fill-S`. (8, 9)
B6  Refill: South then North, each an explicit move even when forced; a player with t = store +
    carry fills exactly min(h, t // 6) holes of their choice; carry = t - 6k; store = 0; unfilled
    holes go to `off` unless empty_holes_in_play. After fill-N: round + 1, phase play, moved `-`,
    side S in odd rounds, N in even rounds. The round number is kept through fill and over. (10-14)
B7  Outcome: `over`: the player who could fill wins, score = store + carry. turns >= max_turns in
    any other phase: score = store + own row + carry, larger wins, equal draws. Every move (sowing,
    pass, fill) counts one turn; turns never resets. (15, 16)
B8  `moved`/`off` are written in board-index order (a b c d A B C D). The shu trick and repetition
    are not modelled. Counters in a hole listed as out of play are a parse error. (17, notation)
    A `play` position where neither player can sow is never produced (the round would have ended);
    if one is given, legal_moves() returns [] and outcome() None.
B9  chain_max: the chain takes the last hole and at most chain_max following holes (docs/rules/
    bechi.md, "Readings"). first_pass_starts: the player who passed first at the end of a round is
    the one who could not sow after its last sowing (the opponent of that sowing's mover); after
    both refills that player starts the next round unless that player filled more holes (equal: the
    one who passed first). The player is written as a last field during the refill.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

GAME_ID = "bechi"
COUNTERS_PER_HOLE = 6
DEFAULT_OPTIONS = {
    "chain_max": 7,
    "empty_breaks_chain": True,
    "empty_holes_in_play": False,
    "first_pass_starts": False,
    "holes": 4,
    "ludii": False,
    "max_turns": 2000,
}
LUDII_DEFAULTS = {"chain_max": 6, "first_pass_starts": True}
BOOL_OPTIONS = ("empty_breaks_chain", "empty_holes_in_play", "first_pass_starts", "ludii")
SIDES = "SN"
PHASES = ("play", "fill-S", "fill-N", "over")
CW, CCW = -1, +1


# --------------------------------------------------------------------------- variant strings


def parse_variant(text: str) -> dict:
    """Return the full option dict of a variant string; ValueError if it is not a valid one."""
    if "(" in text:
        if not text.endswith(")"):
            raise ValueError(f"variant {text!r}: missing ')'")
        game_id, body = text[:-1].split("(", 1)
        items = body.split(",") if body else []
        if not items:
            raise ValueError(f"variant {text!r}: empty option list")
    else:
        game_id, items = text, []
    if game_id != GAME_ID:
        raise ValueError(f"variant {text!r}: not {GAME_ID}")
    options = dict(DEFAULT_OPTIONS)
    if "ludii=true" in items:
        options.update(LUDII_DEFAULTS)
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
        if key in BOOL_OPTIONS:
            if value not in ("true", "false"):
                raise ValueError(f"variant {text!r}: option {key!r}: {value!r} is not true/false")
            options[key] = value == "true"
        else:
            if not value.isdigit():
                raise ValueError(f"variant {text!r}: option {key!r}: {value!r} is not an integer")
            options[key] = int(value)
    if options["holes"] not in (3, 4):
        raise ValueError(f"variant {text!r}: holes must be 3 or 4")
    if options["max_turns"] < 1:
        raise ValueError(f"variant {text!r}: max_turns must be at least 1")
    if options["chain_max"] > 7:
        raise ValueError(f"variant {text!r}: chain_max must be 0 to 7")
    return options


def _option_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def format_variant(options: dict) -> str:
    """Canonical form: only non-default options, sorted by key."""
    defaults = dict(DEFAULT_OPTIONS)
    if options["ludii"]:
        defaults.update(LUDII_DEFAULTS)
    changed = [f"{k}={_option_text(options[k])}" for k in sorted(options) if options[k] != defaults[k]]
    return GAME_ID + (f"({','.join(changed)})" if changed else "")


# --------------------------------------------------------------------------- positions


@dataclass
class Position:
    options: dict
    board: list  # 2h counts; 0..h-1 South a.., h..2h-1 North A..
    stores: list  # [south, north]: taken this round
    side: int  # 0 = South, 1 = North
    turns: int
    round: int
    phase: str
    moved: set  # hole indices sown from in an earlier turn of this round
    off: set  # hole indices out of play this round
    carry: list  # [south, north]
    passed: int | None = None  # first_pass_starts, during a refill: who passed first

    @property
    def h(self) -> int:
        return self.options["holes"]

    def copy(self) -> Position:
        return Position(
            dict(self.options),
            list(self.board),
            list(self.stores),
            self.side,
            self.turns,
            self.round,
            self.phase,
            set(self.moved),
            set(self.off),
            list(self.carry),
            self.passed,
        )


def _label(h: int, index: int) -> str:
    return chr(ord("a") + index) if index < h else chr(ord("A") + index - h)


def _index(h: int, label: str) -> int:
    for i in range(2 * h):
        if _label(h, i) == label:
            return i
    raise ValueError(f"no hole {label!r}")


def _count(field: str, what: str, text: str) -> int:
    if not text.isdigit():
        raise ValueError(f"{field}: {what}: {text!r} is not a number")
    return int(text)


def _pair(field: str, text: str) -> list:
    parts = text.split("-")
    if len(parts) != 2:
        raise ValueError(f"{field}: expected <south>-<north>")
    return [_count(field, name, p) for p, name in zip(parts, ("South", "North"), strict=True)]


def _hole_set(field: str, h: int, text: str) -> set:
    if text == "-":
        return set()
    indices = []
    for ch in text:
        try:
            indices.append(_index(h, ch))
        except ValueError:
            raise ValueError(f"{field}: {ch!r} is not a hole label") from None
    if indices != sorted(set(indices)):
        raise ValueError(f"{field}: labels must be distinct and in board order")
    return set(indices)


def _hole_text(h: int, holes: set) -> str:
    return "".join(_label(h, i) for i in sorted(holes)) or "-"


def parse(text: str) -> Position:
    fields = text.split(" ")
    options = parse_variant(fields[0])
    want = 11 if options["first_pass_starts"] else 10
    if len(fields) != want:
        raise ValueError(f"position: expected {want} fields, got {len(fields)}")
    h = options["holes"]
    rows = fields[1].split("/")
    if len(rows) != 2:
        raise ValueError("field 2 (board): expected <south>/<north>")
    board = []
    for row, name in zip(rows, ("South", "North"), strict=True):
        cells = row.split(",")
        if len(cells) != h:
            raise ValueError(f"field 2 (board): {name} has {len(cells)} holes, expected {h}")
        board += [_count("field 2 (board)", f"hole {i + 1} of {name}", c) for i, c in enumerate(cells)]
    stores = _pair("field 3 (stores)", fields[2])
    if fields[3] not in ("S", "N"):
        raise ValueError(f"field 4 (side): {fields[3]!r} is not S or N")
    side = SIDES.index(fields[3])
    turns = _count("field 5 (turns)", "turns", fields[4])
    round_number = _count("field 6 (round)", "round", fields[5])
    if round_number < 1:
        raise ValueError("field 6 (round): rounds start at 1")
    if fields[6] not in PHASES:
        raise ValueError(f"field 7 (phase): {fields[6]!r} is not one of {PHASES}")
    if fields[6] in ("fill-S", "fill-N") and fields[3] != fields[6][-1]:
        raise ValueError(f"field 4 (side): {fields[3]} does not match phase {fields[6]}")
    moved = _hole_set("field 8 (moved)", h, fields[7])
    off = _hole_set("field 9 (off)", h, fields[8])
    if off and options["empty_holes_in_play"]:
        raise ValueError("field 9 (off): no hole is out of play with empty_holes_in_play=true")
    if any(board[i] for i in off):
        raise ValueError("field 9 (off): a hole out of play holds counters")
    carry = _pair("field 10 (carry)", fields[9])
    passed = None
    if options["first_pass_starts"]:
        refill = fields[6] in ("fill-S", "fill-N")
        if refill and fields[10] in SIDES:
            passed = SIDES.index(fields[10])
        elif refill or fields[10] != "-":
            raise ValueError(f"field 11 (passed): {fields[10]!r} does not fit phase {fields[6]}")
    return Position(options, board, stores, side, turns, round_number, fields[6], moved, off, carry, passed)


def format_position(pos: Position) -> str:
    h = pos.h
    south = ",".join(str(c) for c in pos.board[:h])
    north = ",".join(str(c) for c in pos.board[h:])
    return (
        f"{format_variant(pos.options)} {south}/{north} {pos.stores[0]}-{pos.stores[1]} "
        f"{SIDES[pos.side]} {pos.turns} {pos.round} {pos.phase} {_hole_text(h, pos.moved)} "
        f"{_hole_text(h, pos.off)} {pos.carry[0]}-{pos.carry[1]}"
        + (f" {'-' if pos.passed is None else SIDES[pos.passed]}" if pos.options["first_pass_starts"] else "")
    )


def start(variant: str) -> str:
    options = parse_variant(variant)
    board = [COUNTERS_PER_HOLE] * (2 * options["holes"])
    return format_position(Position(options, board, [0, 0], 0, 0, 1, "play", set(), set(), [0, 0]))


# --------------------------------------------------------------------------- rules


def _row(h: int, side: int) -> range:
    return range(h) if side == 0 else range(h, 2 * h)


def _directions(h: int, index: int) -> list:
    """Directions a sowing from this hole may take, judged from the owner's left (a / A = 0)."""
    from_left = index if index < h else index - h
    if 2 * from_left + 1 < h:
        return [CW]  # left half
    if 2 * from_left + 1 > h:
        return [CCW]  # right half
    return [CW, CCW]  # centre hole of the 2x3 board


def _step(pos: Position, index: int, direction: int) -> int:
    """The next hole in play from `index` in `direction` (holes out of play are skipped)."""
    size = 2 * pos.h
    index = (index + direction) % size
    while index in pos.off:
        index = (index + direction) % size
    return index


def _sowable(pos: Position, side: int) -> list:
    return [i for i in _row(pos.h, side) if i not in pos.off and pos.board[i] >= 2]


def _play_moves(pos: Position) -> list:
    """(move text, origin, direction) for the side to move, by the rules of play alone."""
    moves = []
    for i in _sowable(pos, pos.side):
        directions = _directions(pos.h, i)
        for d in directions:
            suffix = "" if len(directions) == 1 else (":cw" if d == CW else ":ccw")
            moves.append((_label(pos.h, i) + suffix, i, d))
    return moves


def _fill_moves(pos: Position) -> list:
    """(move text, chosen holes) for the filling player."""
    filler = 0 if pos.phase == "fill-S" else 1
    total = pos.stores[filler] + pos.carry[filler]
    k = min(pos.h, total // COUNTERS_PER_HOLE)
    if k == 0:
        return []
    return [
        ("fill:" + "".join(_label(pos.h, i) for i in chosen), chosen)
        for chosen in combinations(_row(pos.h, filler), k)
    ]


def _finished(pos: Position) -> bool:
    return pos.phase == "over" or pos.turns >= pos.options["max_turns"]


def legal_moves(position: str) -> list:
    pos = parse(position)
    if _finished(pos):
        return []
    if pos.phase == "play":
        moves = [m for m, _, _ in _play_moves(pos)]
        if not moves and _sowable(pos, 1 - pos.side):
            return ["pass"]
        return moves
    return [m for m, _ in _fill_moves(pos)]


def _sow(pos: Position, origin: int, direction: int) -> Position:
    new = pos.copy()
    board, mover = new.board, new.side
    in_hand = board[origin]
    board[origin] = 1  # the first counter goes back into the origin
    in_hand -= 1
    hole = origin
    held_before = 0
    while in_hand:
        hole = _step(new, hole, direction)
        held_before = board[hole]
        board[hole] += 1
        in_hand -= 1
    last = hole
    if held_before > 0 and board[last] % 2 == 0 and last in pos.moved:
        taken = [last]
        walk = _step(new, last, direction)
        while walk != last and len(taken) <= new.options["chain_max"]:
            count = board[walk]
            if count % 2 == 1:
                break
            if count == 0 and new.options["empty_breaks_chain"]:
                break
            taken.append(walk)
            walk = _step(new, walk, direction)
        for i in taken:
            new.stores[mover] += board[i]
            board[i] = 0
    new.moved.add(origin)
    new.side = 1 - mover
    new.turns += 1
    if not _sowable(new, 0) and not _sowable(new, 1):
        _end_round(new, mover)
    return new


def _end_round(pos: Position, last_mover: int) -> None:
    for side in (0, 1):
        for i in _row(pos.h, side):
            pos.stores[side] += pos.board[i]
            pos.board[i] = 0
    pos.moved = set()
    pos.off = set()
    pos.side = 0
    if any(pos.stores[s] + pos.carry[s] < COUNTERS_PER_HOLE for s in (0, 1)):
        pos.phase = "over"
    else:
        pos.phase = "fill-S"
        if pos.options["first_pass_starts"]:
            # Played out as passes, the player left without a sowing would pass first.
            pos.passed = 1 - last_mover


def _fill(pos: Position, chosen: tuple) -> Position:
    new = pos.copy()
    filler = 0 if pos.phase == "fill-S" else 1
    total = new.stores[filler] + new.carry[filler]
    for i in chosen:
        new.board[i] = COUNTERS_PER_HOLE
    new.carry[filler] = total - COUNTERS_PER_HOLE * len(chosen)
    new.stores[filler] = 0
    if not new.options["empty_holes_in_play"]:
        new.off |= {i for i in _row(new.h, filler) if i not in chosen}
    new.turns += 1
    if filler == 0:
        new.phase = "fill-N"
        new.side = 1
    else:
        new.phase = "play"
        new.round += 1
        new.moved = set()
        if new.options["first_pass_starts"]:
            first = new.passed
            filled = [sum(1 for i in _row(new.h, s) if new.board[i]) for s in (0, 1)]
            new.side = 1 - first if filled[first] > filled[1 - first] else first
            new.passed = None
        else:
            new.side = 0 if new.round % 2 == 1 else 1
    return new


def play(position: str, move: str) -> str:
    pos = parse(position)
    if move not in legal_moves(position):
        raise ValueError(f"illegal move {move!r} in {position!r}")
    if move == "pass":
        new = pos.copy()
        new.side = 1 - pos.side
        new.turns += 1
        return format_position(new)
    if pos.phase == "play":
        for text, origin, direction in _play_moves(pos):
            if text == move:
                return format_position(_sow(pos, origin, direction))
    for text, chosen in _fill_moves(pos):
        if text == move:
            return format_position(_fill(pos, chosen))
    raise AssertionError("unreachable: a legal move matched nothing")


def _result(south: int, north: int, reason: str, winner=None) -> dict:
    if winner is None:
        winner = "S" if south > north else "N" if north > south else None
    return {"winner": winner, "score": (south, north), "reason": reason}


def outcome(position: str) -> dict | None:
    pos = parse(position)
    scores = [pos.stores[s] + pos.carry[s] + sum(pos.board[i] for i in _row(pos.h, s)) for s in (0, 1)]
    if pos.phase == "over":
        short = [s for s in (0, 1) if pos.stores[s] + pos.carry[s] < COUNTERS_PER_HOLE]
        if len(short) != 1:
            raise ValueError("phase over, but not exactly one player is short of a hole's worth")
        return _result(scores[0], scores[1], "cannot-fill", winner=SIDES[1 - short[0]])
    if pos.turns >= pos.options["max_turns"]:
        return _result(scores[0], scores[1], "turn-limit")
    return None
