"""Independent pure-Python reference for Ikibuguzo, Opening 1.

Written from the rule text (Murray 1951, as the Ludii portal summarises it), docs/rules/README.md
(every game), docs/NOTATION.md and docs/rules/ikibuguzo.md (the reading the core and this file
share; the numbers K1.. below are its sections). Slow and literal on purpose: it exists to be
compared with the Rust core on random games. Standard library only.

API (all on Griot notation strings)
-----------------------------------
    start(variant) -> position
    legal_moves(position) -> [move]     every legal move string, sorted by plain string order;
                                        [] when the game is over
    play(position, move) -> position    one move: a turn up to its end or to its next choice (K8);
                                        ValueError on an illegal move
    outcome(position) -> None | {"winner": "S"|"N"|None, "score": (south, north), "reason": str}

Variant: `ikibuguzo`, options `end_holes_win` (default true), `max_turns` (default 2000, >= 1), and
the readings of docs/rules/ikibuguzo.md section 13 (K9 below): `cw_play_captures`,
`cw_resow_once`, `cw_resow_captures`, `keep`, `stop_on_capture_all` (default true), `cw_relay`
(default false), and `ludii` (default false; when true the six default to the Digital Ludeme
Project's values: the first five false, `cw_relay` true).
Position: `<variant> <south-loop>/<north-loop> <side> <turns> <opening> <flags>`.
Reasons: "end-holes", "capture-all", "cycle", "no-move", "turn-limit".

Summary of the reading (docs/rules/ikibuguzo.md)
-------------------------------------------------
K1  Loop index 0..7 = outer row left to right, 8..15 = inner row right to left (player's view);
    anticlockwise (ccw) = +1, clockwise (cw) = -1 modulo 16. Labels o1..o8 = 0..7, ik = 16 - k.
K2  Opening: six scripted turns S,N,S,N,S,N from i3, i3, i5, i5, i7, i7: lift the 3, put 2 in the
    next hole anticlockwise and 1 in the one after. No relay, no capture.
K3  A lap lifts a whole hole and sows one counter a hole; the origin is never skipped. The last
    counter "lands in an empty hole" when the hole holds exactly 1 after the lap: the turn ends.
    Otherwise, if it is an inner-row hole whose two opposite holes are both non-empty: capture;
    otherwise relay: lift it and sow on anticlockwise.
K4  Capture: both opposite holes are emptied into the origin of the lap that ended (the capture
    hole), which is then sown again (a new lap; the whole hole is lifted).
K5  Special holes o1 (loop 0) and i2 (loop 14). A cw lap is only ever allowed from a special hole
    and only if that very lap ends in a capture. cw is possible (a) as the turn's first play, (b)
    for re-sowing the capture hole when it is special, if every lap so far was cw or no lap so far
    was cw, (c) after `keep` (see K6).
K6  After a capture made by a turn whose laps have all been cw: `keep` leaves the captured counters
    in the capture hole and plays the other special hole cw (if that lap captures); once a keep has
    been made and neither cw re-sowing nor a keep-switch is possible, `keep+<hole>` leaves them and
    plays any other hole with 2+ counters anticlockwise.
K7  A turn stops at once when it wins: opponent left with no counters, or (end_holes_win) both
    opponent inner end holes captured this turn (flag win=X). Lap 1,001 is never started: the turn
    is cut (flag cycle).
K8  Moves: the first play (`o3`, `i2:cw`) is one move. When a capture offers more than one option
    the turn pauses: the same player stays to move, the flags field records the turn so far
    (`choose=o1,laps=2,cw=all[,kept][,end=i1]`), and each option is a move of its own: `ccw`, `cw`,
    `keep+o1:cw`, `keep+o5`. A capture with a single option (anticlockwise re-sowing) goes on at
    once.
    Changed reading (docs/rules/ikibuguzo.md section 9): an earlier version made the whole turn one
    move listing every choice (`o1:cw+keep+i2:cw+ccw`). Clockwise turns branch at every capture,
    and random games reached 300 legal moves in one position, with no bound below the core's
    fixed-capacity move lists (512). The turns, and the positions they reach, are unchanged.
K9  Readings. cw_play_captures=false: o1:cw / i2:cw may start a turn from 2+ counters when the
    lap's last counter falls in an inner hole whose two facing opponent holes hold counters, that
    hole empty before or not (so the lap captures, or ends the turn in an empty hole).
    cw_resow_once=false: the condition "every lap so far cw or none" of K5 (b) is dropped.
    cw_resow_captures=false: a cw re-sowing need not end in a capture, but its last counter must
    fall in such an inner hole, as for cw_play_captures=false.
    cw_relay=true: a relay whose hole is special may go on clockwise under the conditions of a cw
    re-sowing (K5 (b) with the two options above); then the turn pauses with the options `ccw` and
    `cw` and the flags say `relay` (after `kept`); no keep is offered there; a relay that would be
    lap 1,001 is cut without a pause. keep=false: no `keep` options. stop_on_capture_all=false:
    capturing the opponent's last counters does not stop the turn; it goes on as after any capture.
K10 A position paused at a choice has no result: the game is judged once the turn is over (so a
    turn never ends on a pause, even when the opponent has nothing left or the turn limit is met).
"""

from __future__ import annotations

from dataclasses import dataclass, field

GAME_ID = "ikibuguzo"
DEFAULT_OPTIONS = {
    "cw_play_captures": True,
    "cw_relay": False,
    "cw_resow_captures": True,
    "cw_resow_once": True,
    "end_holes_win": True,
    "keep": True,
    "ludii": False,
    "max_turns": 2000,
    "stop_on_capture_all": True,
}
LUDII_DEFAULTS = {
    "cw_play_captures": False,
    "cw_relay": True,
    "cw_resow_captures": False,
    "cw_resow_once": False,
    "keep": False,
    "stop_on_capture_all": False,
}
HOLES = 16
START_LOOP = (0, 6, 0, 0, 0, 0, 0, 17, 0, 3, 0, 3, 0, 3, 0, 0)
OPENING_TURNS = 6
OPENING_HOLES = (13, 11, 9)  # i3, i5, i7: the holes holding three, left to right
SPECIAL_HOLES = (0, 14)  # o1 (outer row, leftmost) and i2 (inner row, second from the left)
LAP_LIMIT = 1000
CW, CCW = -1, +1
SIDES = "SN"
FLAGS = ("-", "win=S", "win=N", "cycle")  # or a pause: choose=<hole>,laps=<n>,cw=<memory>[,kept][,end=<hole>]
CW_MEMORY = ("none", "some", "all")


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
        if key != "max_turns":
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

    defaults = dict(DEFAULT_OPTIONS)
    if options["ludii"]:
        defaults.update(LUDII_DEFAULTS)
    changed = [f"{k}={text(options[k])}" for k in sorted(options) if options[k] != defaults[k]]
    return GAME_ID + (f"({','.join(changed)})" if changed else "")


# --------------------------------------------------------------------------- positions


@dataclass
class Position:
    options: dict
    loops: list  # loops[0] = South's 16 holes, loops[1] = North's, each in loop order
    side: int  # 0 = South, 1 = North
    turns: int
    opening: int  # scripted opening turns still to play
    flags: str


def _parse_int(text: str, what: str) -> int:
    if not text.isdigit():
        raise ValueError(f"{what}: {text!r} is not a number")
    return int(text)


def parse_position(text: str) -> Position:
    fields = text.split(" ")
    if len(fields) != 6:
        raise ValueError(f"position {text!r}: expected 6 fields, got {len(fields)}")
    options = parse_variant(fields[0])
    rows = fields[1].split("/")
    if len(rows) != 2:
        raise ValueError("field 2 (board): expected <south>/<north>")
    loops = []
    for player, row in zip(("South", "North"), rows, strict=True):
        holes = row.split(",")
        if len(holes) != HOLES:
            raise ValueError(f"field 2 (board): {player} has {len(holes)} holes, not {HOLES}")
        loops.append(
            [_parse_int(h, f"field 2 (board): hole {i + 1} of {player}") for i, h in enumerate(holes)]
        )
    if fields[2] not in SIDES:
        raise ValueError(f"field 3 (side): {fields[2]!r} is not S or N")
    side = SIDES.index(fields[2])
    turns = _parse_int(fields[3], "field 4 (turns)")
    opening = _parse_int(fields[4], "field 5 (opening)")
    if opening > OPENING_TURNS:
        raise ValueError(f"field 5 (opening): {opening} is more than {OPENING_TURNS}")
    if opening and side != (OPENING_TURNS - opening) % 2:
        raise ValueError("field 5 (opening): the side to move does not match the opening turn")
    if opening:
        hole = OPENING_HOLES[(OPENING_TURNS - opening) // 2]
        if loops[side][hole] != 3:
            raise ValueError(f"field 5 (opening): scripted hole {_label(hole)} does not hold 3")
    flags = fields[5]
    if flags not in FLAGS and not flags.startswith("choose="):
        raise ValueError(f"field 6 (flags): {flags!r} is not one of {', '.join(FLAGS)} or choose=...")
    if flags != "-" and opening:
        raise ValueError("field 6 (flags): a flag during the opening")
    if flags.startswith("win") and not options["end_holes_win"]:
        raise ValueError("field 6 (flags): win flag but end_holes_win=false")
    pos = Position(options, loops, side, turns, opening, flags)
    if flags.startswith("choose="):
        turn, hole = _paused_turn(pos)  # validates the syntax
        if format_pause(turn, hole, options["end_holes_win"]) != flags:
            raise ValueError(f"field 6 (flags): {flags!r} is not in canonical form")
        if turn.relay and not options["cw_relay"]:
            raise ValueError("field 6 (flags): a relay pause but cw_relay=false")
        if len(_decisions(turn, hole, options)) < 2:
            raise ValueError("field 6 (flags): the paused turn offers no choice")
    return pos


def format_pause(turn: _Turn, hole: int, end_holes_win: bool) -> str:
    """The flags of a turn paused at a choice after a capture into `hole` (K8)."""
    cw = "all" if turn.all_cw else ("some" if turn.cw_laps else "none")
    parts = [f"choose={_label(hole)}", f"laps={turn.laps}", f"cw={cw}"]
    if turn.kept:
        parts.append("kept")
    if turn.relay:
        parts.append("relay")
    if end_holes_win:
        parts += [f"end={_label(15 - column)}" for column in sorted(turn.end_columns)]
    return ",".join(parts)


def _paused_turn(pos: Position) -> tuple[_Turn, int]:
    """The turn in progress recorded in a `choose=` flags field, and its capture hole."""
    bad = ValueError(
        f"field 6 (flags): {pos.flags!r} is not choose=<hole>,laps=<n>,cw=<none|some|all>"
        "[,kept][,end=<i1|i8>]"
    )
    parts = pos.flags.split(",")
    if len(parts) < 3 or not parts[1].startswith("laps=") or not parts[2].startswith("cw="):
        raise bad
    labels = {_label(h): h for h in range(HOLES)}
    hole = labels.get(parts[0][len("choose=") :])
    laps_text, cw = parts[1][len("laps=") :], parts[2][len("cw=") :]
    if hole is None or not laps_text.isdigit() or cw not in CW_MEMORY:
        raise bad
    laps = int(laps_text)
    if not 1 <= laps < LAP_LIMIT:
        raise ValueError(f"field 6 (flags): laps must be 1 to {LAP_LIMIT - 1}")
    turn = _Turn(
        list(pos.loops[pos.side]),
        list(pos.loops[1 - pos.side]),
        laps=laps,
        cw_laps=0 if cw == "none" else 1,
        all_cw=cw == "all",
    )
    for part in parts[3:]:
        if part == "kept":
            turn.kept = True
        elif part == "relay":
            turn.relay = True
        elif part in ("end=i1", "end=i8"):
            turn.end_columns.add(0 if part == "end=i1" else 7)
        else:
            raise bad
    return turn, hole


def format_position(pos: Position) -> str:
    board = "/".join(",".join(str(n) for n in loop) for loop in pos.loops)
    return f"{format_variant(pos.options)} {board} {SIDES[pos.side]} {pos.turns} {pos.opening} {pos.flags}"


def start(variant: str) -> str:
    options = parse_variant(variant)
    return format_position(Position(options, [list(START_LOOP), list(START_LOOP)], 0, 0, OPENING_TURNS, "-"))


# --------------------------------------------------------------------------- holes and labels


def _label(hole: int) -> str:
    """o1..o8 = loop 0..7 (outer, left to right); i1..i8 = loop 15..8 (inner, left to right)."""
    return f"o{hole + 1}" if hole < 8 else f"i{16 - hole}"


def _is_inner(hole: int) -> bool:
    return hole >= 8


def _opposite(hole: int) -> tuple[int, int]:
    """The opponent's (inner, outer) loop indices facing the mover's inner hole `hole`."""
    column = 15 - hole  # 0 = the mover's left
    return 8 + column, 7 - column


def _other_special(hole: int) -> int:
    return SPECIAL_HOLES[1] if hole == SPECIAL_HOLES[0] else SPECIAL_HOLES[0]


# --------------------------------------------------------------------------- sowing


def _sow_lap(mine: list, origin: int, direction: int) -> int:
    """Lift the whole origin hole and sow one counter a hole; return the last hole."""
    counters = mine[origin]
    mine[origin] = 0
    hole = origin
    for _ in range(counters):
        hole = (hole + direction) % HOLES
        mine[hole] += 1
    return hole


def _captures_here(mine: list, theirs: list, last: int) -> bool:
    """After a lap ended in `last`: was the hole occupied before the last counter, and in opposition?"""
    if mine[last] == 1 or not _is_inner(last):
        return False
    inner, outer = _opposite(last)
    return theirs[inner] > 0 and theirs[outer] > 0


def _lap_captures(mine: list, theirs: list, origin: int, direction: int) -> bool:
    """Would a lap from `origin` in `direction` end in a capture ("leads to a capture", K5)?"""
    trial = list(mine)
    last = _sow_lap(trial, origin, direction)
    return _captures_here(trial, theirs, last)


def _lap_faces_two(mine: list, theirs: list, origin: int, direction: int) -> bool:
    """Would a lap from `origin` in `direction` end in an inner hole facing two occupied opponent
    holes, whatever that hole held before (K9)?"""
    trial = list(mine)
    last = _sow_lap(trial, origin, direction)
    if not _is_inner(last):
        return False
    inner, outer = _opposite(last)
    return theirs[inner] > 0 and theirs[outer] > 0


def _cw_test(options: dict, strict: str) -> object:
    """The test a clockwise lap must pass: it captures (option `strict` true) or it ends facing two
    occupied holes (K9)."""
    return _lap_captures if options[strict] else _lap_faces_two


@dataclass
class _Turn:
    """A turn in progress: the mover's and the opponent's loops and the turn's memory."""

    mine: list
    theirs: list
    laps: int = 0  # laps started so far (the first sowing is lap 1)
    cw_laps: int = 0
    all_cw: bool = True  # every lap so far was clockwise
    kept: bool = False  # a `keep` has been made this turn
    end_columns: set = field(default_factory=set)  # columns 0 / 7 where a capture took an end hole
    won: bool = False  # end-holes win
    cut: bool = False  # relay cut after LAP_LIMIT laps
    relay: bool = False  # paused at a relay (cw_relay), not after a capture

    def copy(self) -> _Turn:
        return _Turn(
            list(self.mine),
            list(self.theirs),
            self.laps,
            self.cw_laps,
            self.all_cw,
            self.kept,
            set(self.end_columns),
            self.won,
            self.cut,
            self.relay,
        )


def _cw_resow(turn: _Turn, hole: int, options: dict) -> bool:
    """May `hole` be sown clockwise now, as a re-sowing or (cw_relay) a relay (K5 (b), K9)?"""
    if hole not in SPECIAL_HOLES:
        return False
    if options["cw_resow_once"] and not (turn.all_cw or turn.cw_laps == 0):
        return False
    return bool(_cw_test(options, "cw_resow_captures")(turn.mine, turn.theirs, hole, CW))


def _decisions(turn: _Turn, capture_hole: int, options: dict) -> list:
    """Options after a capture (K5, K6), or at a relay pause (K9): (token, origin, direction, is_keep)."""
    choices = [("ccw", capture_hole, CCW, False)]
    cw_resow = _cw_resow(turn, capture_hole, options)
    if cw_resow:
        choices.append(("cw", capture_hole, CW, False))
    if turn.all_cw and options["keep"] and not turn.relay:
        other = _other_special(capture_hole)
        switch = turn.mine[other] >= 2 and _lap_captures(turn.mine, turn.theirs, other, CW)
        if switch:
            choices.append((f"keep+{_label(other)}:cw", other, CW, True))
        if turn.kept and not cw_resow and not switch:
            for hole in range(HOLES):
                if hole != capture_hole and turn.mine[hole] >= 2:
                    choices.append((f"keep+{_label(hole)}", hole, CCW, True))
    return choices


def _run(turn: _Turn, origin: int, direction: int, options: dict) -> tuple[_Turn, int | None]:
    """Play laps from `origin` until the turn ends, or pauses at a choice (the hole is returned as
    the second value; turn.relay says whether it is a relay)."""
    turn.relay = False
    while True:
        if turn.laps == LAP_LIMIT:
            turn.cut = True
            return turn, None
        turn.laps += 1
        if direction == CW:
            turn.cw_laps += 1
        else:
            turn.all_cw = False
        last = _sow_lap(turn.mine, origin, direction)
        if turn.mine[last] == 1:  # landed in an empty hole: the turn is over
            return turn, None
        if _captures_here(turn.mine, turn.theirs, last):
            inner, outer = _opposite(last)
            turn.mine[origin] += turn.theirs[inner] + turn.theirs[outer]
            turn.theirs[inner] = turn.theirs[outer] = 0
            column = 15 - last
            if column in (0, 7):
                turn.end_columns.add(column)
            if options["end_holes_win"] and turn.end_columns == {0, 7}:
                turn.won = True
                return turn, None
            if options["stop_on_capture_all"] and sum(turn.theirs) == 0:
                return turn, None
            if turn.laps == LAP_LIMIT:
                turn.cut = True
                return turn, None
            choices = _decisions(turn, origin, options)
            if len(choices) == 1:
                _, origin, direction, _ = choices[0]
                continue
            return turn, origin  # a choice: the turn pauses, the player stays to move
        # occupied, no capture: relay, anticlockwise unless a special hole may go on clockwise.
        origin, direction = last, CCW
        if options["cw_relay"] and turn.laps < LAP_LIMIT and _cw_resow(turn, last, options):
            turn.relay = True
            return turn, last


def _successors(pos: Position) -> dict:
    """Every legal move of the side to move -> the position after it (ignores whether the game is over)."""
    mine = pos.loops[pos.side]
    theirs = pos.loops[1 - pos.side]
    other_side = 1 - pos.side

    def finish(loops_by_side, flags):
        loops = [None, None]
        loops[pos.side], loops[other_side] = loops_by_side
        return Position(pos.options, loops, other_side, pos.turns + 1, max(pos.opening - 1, 0), flags)

    if pos.opening:
        hole = OPENING_HOLES[(OPENING_TURNS - pos.opening) // 2]
        after = list(mine)
        after[hole] = 0
        after[(hole + 1) % HOLES] += 2
        after[(hole + 2) % HOLES] += 1
        return {_label(hole): finish((after, list(theirs)), "-")}

    options = pos.options
    end_holes_win = options["end_holes_win"]

    def after(turn: _Turn, pause: int | None) -> Position:
        loops = [None, None]
        loops[pos.side], loops[other_side] = turn.mine, turn.theirs
        if pause is not None:  # the same player chooses how the turn goes on
            return Position(
                pos.options, loops, pos.side, pos.turns + 1, 0, format_pause(turn, pause, end_holes_win)
            )
        flags = f"win={SIDES[pos.side]}" if turn.won else ("cycle" if turn.cut else "-")
        return Position(pos.options, loops, other_side, pos.turns + 1, 0, flags)

    successors = {}
    if pos.flags.startswith("choose="):
        paused, hole = _paused_turn(pos)
        for token, origin, direction, is_keep in _decisions(paused, hole, options):
            turn = paused.copy()
            turn.kept = turn.kept or is_keep
            successors[token] = after(*_run(turn, origin, direction, options))
        return successors
    for hole in range(HOLES):
        if mine[hole] < 2:
            continue
        turn = _Turn(list(mine), list(theirs))
        successors[_label(hole)] = after(*_run(turn, hole, CCW, options))
        if hole in SPECIAL_HOLES and _cw_test(options, "cw_play_captures")(mine, theirs, hole, CW):
            turn = _Turn(list(mine), list(theirs))
            successors[_label(hole) + ":cw"] = after(*_run(turn, hole, CW, options))
    return successors


# --------------------------------------------------------------------------- API


def _shared_out(south: int, north: int, reason: str) -> dict:
    winner = "S" if south > north else "N" if north > south else None
    return {"winner": winner, "score": (south, north), "reason": reason}


def _outcome(pos: Position) -> dict | None:
    if pos.flags.startswith("choose="):
        return None  # K10
    south, north = sum(pos.loops[0]), sum(pos.loops[1])
    score = (south, north)
    if pos.flags.startswith("win="):
        return {"winner": pos.flags[4], "score": score, "reason": "end-holes"}
    if south == 0 or north == 0:
        return {"winner": "S" if north == 0 else "N", "score": score, "reason": "capture-all"}
    if pos.flags == "cycle":
        return _shared_out(south, north, "cycle")
    if not pos.opening and not _successors(pos):
        return {"winner": SIDES[1 - pos.side], "score": score, "reason": "no-move"}
    if pos.turns >= pos.options["max_turns"]:
        return _shared_out(south, north, "turn-limit")
    return None


def outcome(position: str) -> dict | None:
    return _outcome(parse_position(position))


def legal_moves(position: str) -> list:
    pos = parse_position(position)
    if _outcome(pos) is not None:
        return []
    return sorted(_successors(pos))


def play(position: str, move: str) -> str:
    pos = parse_position(position)
    if _outcome(pos) is not None:
        raise ValueError(f"move {move!r}: the game is over")
    successors = _successors(pos)
    if move not in successors:
        raise ValueError(f"move {move!r} is not legal here")
    return format_position(successors[move])


def mid_turn(position: str) -> bool:
    """Whether the turn is paused at a choice (after a capture, or at a relay with cw_relay): the
    same player goes on, and the turn (one API move) is not over yet."""
    pos = parse_position(position)
    return pos.flags.startswith("choose=") and _outcome(pos) is None
