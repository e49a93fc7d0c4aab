"""Independent pure-Python reference for Leb Bbut Ahbochen.

Written from the rule text (Climent Tondo 2010), the project's decisions (docs/rules/README.md,
docs/rules/leb-bbut-ahbochen.md) and docs/NOTATION.md only. Slow and literal on purpose: it exists
to be compared with the Rust core on random games. Standard library only.

API (all on Griot notation strings)
-----------------------------------
    start(variant) -> position
    legal_moves(position) -> [move]     own hole labels in board order; [] when the game is over
    play(position, move) -> position    the whole turn; ValueError on an illegal move
    outcome(position) -> None | {"winner": "S"|"N"|None, "score": (south, north), "reason": str}

Variant: `leb-bbut-ahbochen`, options `holes` in {2,4,6,8,10} (default 6) and `max_turns` (default
2000, an integer >= 1). Position: `<variant> <south>/<north> <store-S>-<store-N> <side> <turns>
<flags>`, flags `-` or `cycle`. Reasons: "stuck", "cycle", "turn-limit".

Readings made beyond the rule text (also in docs/rules/leb-bbut-ahbochen.md)
---------------------------------------------------------------------------
L1  Every lap starts in the hole after the lifted hole; the turn's origin is never skipped, on any lap.
L2  Relay: the last seed of a lap lands in a hole of the mover's opponent that now holds 7 (held 6):
    lift the 7 and sow on. Only the last seed of a lap matters.
L3  Relay cut: when lap 1,000 ends with a relay due, the sowing stops there (the 7 seeds stay in
    that hole), nothing is captured, the flag `cycle` is set, and the game is over (endless cycle).
L4  Capture walk: from the last hole of the final lap backwards while the hole is on the opponent's
    row and holds 2 or 4. This is "made 2 or 4 by this turn": every hole the walk can reach was sown
    by the final lap, except the final relay lap's own (emptied) hole, which holds 0 and stops it.
L5  Grand slam: if the holes to capture hold every seed left on the opponent's row after the sowing,
    nothing is captured and the move stands.
L6  Must feed: when the opponent's row is empty before the turn, a move is legal only if the
    opponent's row holds at least one seed after the whole turn.
L7  End: the player to move has no legal move ("stuck"): the position stays as it is and outcome()
    gives every seed on the board to the other player. Flag `cycle` or turns >= max_turns: each player
    adds their own row. Precedence: cycle, then stuck, then turn-limit. Winner: larger score, equal
    is a draw. play() never moves seeds into the stores at the end of the game.
"""

from __future__ import annotations

from dataclasses import dataclass

GAME_ID = "leb-bbut-ahbochen"
SEEDS_PER_HOLE = 4
BOARD_SIZES = (2, 4, 6, 8, 10)
DEFAULT_OPTIONS = {"holes": 6, "max_turns": 2000}
MAX_LAPS = 1000
RELAY_COUNT = 7  # an opponent hole that held six holds seven once the last seed is in
CAPTURE_COUNTS = (2, 4)
SIDES = "SN"


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
        if not value.isdigit():
            raise ValueError(f"variant {text!r}: option {key!r}: {value!r} is not an integer")
        options[key] = int(value)
    if options["holes"] not in BOARD_SIZES:
        raise ValueError(f"variant {text!r}: holes must be one of {BOARD_SIZES}")
    if options["max_turns"] < 1:
        raise ValueError(f"variant {text!r}: max_turns must be at least 1")
    return options


def format_variant(options: dict) -> str:
    """Canonical form: only non-default options, sorted by key."""
    changed = [f"{k}={options[k]}" for k in sorted(options) if options[k] != DEFAULT_OPTIONS[k]]
    return GAME_ID + (f"({','.join(changed)})" if changed else "")


# --------------------------------------------------------------------------- positions


@dataclass
class Position:
    options: dict
    board: list  # 2n counts; 0..n-1 South a.., n..2n-1 North A..
    stores: list  # [south, north]
    side: int  # 0 = South, 1 = North
    turns: int
    cycle: bool

    @property
    def n(self) -> int:
        return self.options["holes"]

    def copy(self) -> Position:
        return Position(
            dict(self.options), list(self.board), list(self.stores), self.side, self.turns, self.cycle
        )


def _count(field: str, what: str, text: str) -> int:
    if not text.isdigit():
        raise ValueError(f"{field}: {what}: {text!r} is not a number")
    return int(text)


def parse(text: str) -> Position:
    fields = text.split(" ")
    if len(fields) != 6:
        raise ValueError(f"position: expected 6 fields, got {len(fields)}")
    options = parse_variant(fields[0])
    n = options["holes"]
    rows = fields[1].split("/")
    if len(rows) != 2:
        raise ValueError("field 2 (board): expected <south>/<north>")
    board = []
    for row, name in zip(rows, ("South", "North"), strict=True):
        cells = row.split(",")
        if len(cells) != n:
            raise ValueError(f"field 2 (board): {name} has {len(cells)} holes, expected {n}")
        board += [_count("field 2 (board)", f"hole {i + 1} of {name}", c) for i, c in enumerate(cells)]
    stores = fields[2].split("-")
    if len(stores) != 2:
        raise ValueError("field 3 (stores): expected <south>-<north>")
    stores = [_count("field 3 (stores)", name, s) for s, name in zip(stores, ("South", "North"), strict=True)]
    if fields[3] not in ("S", "N"):
        raise ValueError(f"field 4 (side): {fields[3]!r} is not S or N")
    side = SIDES.index(fields[3])
    turns = _count("field 5 (turns)", "turns", fields[4])
    if fields[5] not in ("-", "cycle"):
        raise ValueError(f"field 6 (flags): {fields[5]!r} is not '-' or 'cycle'")
    return Position(options, board, stores, side, turns, fields[5] == "cycle")


def format_position(pos: Position) -> str:
    n = pos.n
    south = ",".join(str(c) for c in pos.board[:n])
    north = ",".join(str(c) for c in pos.board[n:])
    flags = "cycle" if pos.cycle else "-"
    return (
        f"{format_variant(pos.options)} {south}/{north} {pos.stores[0]}-{pos.stores[1]} "
        f"{SIDES[pos.side]} {pos.turns} {flags}"
    )


def start(variant: str) -> str:
    options = parse_variant(variant)
    board = [SEEDS_PER_HOLE] * (2 * options["holes"])
    return format_position(Position(options, board, [0, 0], 0, 0, False))


# --------------------------------------------------------------------------- rules


def _row(n: int, side: int) -> range:
    """Hole indices of a player's row."""
    return range(n) if side == 0 else range(n, 2 * n)


def _label(n: int, index: int) -> str:
    return chr(ord("a") + index) if index < n else chr(ord("A") + index - n)


def _sow_and_capture(pos: Position, origin: int) -> Position:
    """The whole turn from `origin`, without legality checks. Returns the new position."""
    new = pos.copy()
    board, n, mover = new.board, new.n, new.side
    opponent_row = _row(n, 1 - mover)
    hole = origin
    in_hand = board[hole]
    board[hole] = 0
    laps = 1
    while True:
        while in_hand:  # one lap: next hole onwards, nothing skipped
            hole = (hole + 1) % (2 * n)
            board[hole] += 1
            in_hand -= 1
        if hole in opponent_row and board[hole] == RELAY_COUNT:
            if laps == MAX_LAPS:
                new.cycle = True  # cut: board as it stands, no capture, game over
                break
            in_hand = board[hole]
            board[hole] = 0
            laps += 1
            continue
        break
    if not new.cycle and hole in opponent_row and board[hole] in CAPTURE_COUNTS:
        taken = []
        walk = hole
        while walk in opponent_row and board[walk] in CAPTURE_COUNTS:
            taken.append(walk)
            walk -= 1  # backwards; leaving the row (index n-1 or -1) stops the walk
        left_on_row = sum(board[i] for i in opponent_row)
        if sum(board[i] for i in taken) < left_on_row:  # otherwise grand slam: forfeited
            for i in taken:
                new.stores[mover] += board[i]
                board[i] = 0
    new.side = 1 - mover
    new.turns += 1
    return new


def _rule_moves(pos: Position) -> list:
    """Legal moves by the rules of play alone (ignoring cycle flag and turn limit), as indices."""
    n = pos.n
    own = [i for i in _row(n, pos.side) if pos.board[i] > 0]
    opponent_row = _row(n, 1 - pos.side)
    if any(pos.board[i] for i in opponent_row):
        return own
    return [i for i in own if any(_sow_and_capture(pos, i).board[j] for j in opponent_row)]


def _over_by_limit(pos: Position) -> bool:
    return pos.cycle or pos.turns >= pos.options["max_turns"]


def legal_moves(position: str) -> list:
    pos = parse(position)
    if _over_by_limit(pos):
        return []
    return [_label(pos.n, i) for i in _rule_moves(pos)]


def play(position: str, move: str) -> str:
    pos = parse(position)
    if move not in legal_moves(position):
        raise ValueError(f"illegal move {move!r} in {position!r}")
    labels = [_label(pos.n, i) for i in range(2 * pos.n)]
    return format_position(_sow_and_capture(pos, labels.index(move)))


def _result(south: int, north: int, reason: str) -> dict:
    winner = "S" if south > north else "N" if north > south else None
    return {"winner": winner, "score": (south, north), "reason": reason}


def outcome(position: str) -> dict | None:
    pos = parse(position)
    n = pos.n
    own_rows = [sum(pos.board[i] for i in _row(n, s)) for s in (0, 1)]
    if pos.cycle:
        return _result(pos.stores[0] + own_rows[0], pos.stores[1] + own_rows[1], "cycle")
    if not _rule_moves(pos):
        scores = list(pos.stores)
        scores[1 - pos.side] += sum(pos.board)
        return _result(scores[0], scores[1], "stuck")
    if pos.turns >= pos.options["max_turns"]:
        return _result(pos.stores[0] + own_rows[0], pos.stores[1] + own_rows[1], "turn-limit")
    return None
