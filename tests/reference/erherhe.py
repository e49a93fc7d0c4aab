"""Independent pure-Python reference for Érhérhé (`erherhe`), a whole match of rounds.

Written from docs/rules/erherhe.md (the game as R. Avelot's 1906 account is given by the Digital
Ludeme Project's Ludii portal, and Griot's decisions) and docs/NOTATION.md only. Slow and literal on
purpose: it exists to be compared with the Rust core on random games. Standard library only.

API (all on Griot notation strings)
-----------------------------------
    start(variant) -> position
    legal_moves(position) -> [move]     own hole labels in board order during a round; during a
                                        refill the one move: `fill:<hole>` or `pass`; [] when over
    play(position, move) -> position    the whole turn; ValueError on an illegal move
    outcome(position) -> None | {"winner": "S"|"N"|None, "score": (south, north), "reason": str}

Variant: `erherhe`, options `holes` (1-16, default 6), `seeds` (default 4; 2 x holes x seeds at
most 255) and `max_turns` (default 2000). Position: `<variant> <south>/<north> <store-S>-<store-N>
<side> <turns> <flags>`, flags `-` or a comma list of `off=<holes>`, `refill`, `passed`.

Readings (docs/rules/erherhe.md, "Griot's decisions", cited as D1..D7)
--------------------------------------------------------------------
E1  Sowing: all seeds of an own hole, one a hole anticlockwise (index + 1), skipping holes out of
    play, never skipping the origin.
E2  Capture: the last seed in the opponent's row making 2 or 4 takes that hole, and each of the
    two holes next to it in that row (index - 1, index + 1, same row, in play) that holds 2 or 4.
E3  After the sowing, an empty row ends the round: each takes their own row, no hole is out of
    play, the refill begins with the next player (D1).
E4  Refill turn: a player with seeds in store and an empty hole puts min(4, store) into the
    leftmost empty hole of their row; otherwise passes. A pass right after a pass starts the
    round: the holes still empty are out of play, the next player moves (D1, D3).
E5  End: a refill that begins (board empty) with an empty store ends the match; the other player
    wins; scores are the stores (D5). Otherwise at turns >= max_turns each adds their own row and
    the larger wins. A player to move during a round with no seed in their row cannot happen (D7);
    the reference treats it as the end, each taking their own row.
"""

from __future__ import annotations

GAME_ID = "erherhe"
DEFAULTS = {"holes": 6, "max_turns": 2000, "seeds": 4}
REFILL = 4
CAPTURE = (2, 4)
SIDES = "SN"


def parse_variant(text: str) -> dict:
    opts = dict(DEFAULTS)
    if "(" in text:
        if not text.endswith(")"):
            raise ValueError(f"variant {text!r}: missing ')'")
        gid, body = text[:-1].split("(", 1)
        for item in body.split(","):
            key, _, value = item.partition("=")
            if key not in DEFAULTS or not value.isdigit():
                raise ValueError(f"variant {text!r}: bad option {item!r}")
            opts[key] = int(value)
    else:
        gid = text
    if gid != GAME_ID:
        raise ValueError(f"variant {text!r}: not {GAME_ID}")
    if not 1 <= opts["holes"] <= 16 or 2 * opts["holes"] * opts["seeds"] > 255:
        raise ValueError(f"variant {text!r}: board out of range")
    return opts


def format_variant(opts: dict) -> str:
    changed = [f"{k}={opts[k]}" for k in sorted(opts) if opts[k] != DEFAULTS[k]]
    return GAME_ID + (f"({','.join(changed)})" if changed else "")


def _label(n: int, i: int) -> str:
    return chr(ord("a") + i) if i < n else chr(ord("A") + i - n)


def _row(n: int, side: int) -> range:
    return range(0, n) if side == 0 else range(n, 2 * n)


class _State:
    def __init__(self, opts, board, stores, side, turns, off, refill, passed):
        self.opts = opts
        self.board = board
        self.stores = stores
        self.side = side
        self.turns = turns
        self.off = off  # set of hole indices out of play
        self.refill = refill
        self.passed = passed

    @property
    def n(self) -> int:
        return self.opts["holes"]

    def copy(self) -> _State:
        return _State(
            self.opts,
            list(self.board),
            list(self.stores),
            self.side,
            self.turns,
            set(self.off),
            self.refill,
            self.passed,
        )

    def format(self) -> str:
        n = self.n
        rows = [",".join(str(self.board[i]) for i in _row(n, s)) for s in (0, 1)]
        flags = []
        if self.off:
            flags.append("off=" + "".join(_label(n, i) for i in sorted(self.off)))
        if self.refill:
            flags.append("refill")
        if self.passed:
            flags.append("passed")
        return (
            f"{format_variant(self.opts)} {rows[0]}/{rows[1]} {self.stores[0]}-{self.stores[1]} "
            f"{SIDES[self.side]} {self.turns} {','.join(flags) if flags else '-'}"
        )


def _parse(text: str) -> _State:
    fields = text.split(" ")
    if len(fields) != 6:
        raise ValueError(f"position {text!r}: expected 6 fields")
    opts = parse_variant(fields[0])
    n = opts["holes"]
    rows = fields[1].split("/")
    board = [int(c) for row in rows for c in row.split(",")]
    if len(rows) != 2 or len(board) != 2 * n:
        raise ValueError(f"position {text!r}: bad board")
    stores = [int(s) for s in fields[2].split("-")]
    side = SIDES.index(fields[3])
    turns = int(fields[4])
    off: set[int] = set()
    refill = passed = False
    if fields[5] != "-":
        for flag in fields[5].split(","):
            if flag.startswith("off="):
                labels = [_label(n, i) for i in range(2 * n)]
                off = {labels.index(c) for c in flag[4:]}
            elif flag == "refill":
                refill = True
            elif flag == "passed":
                passed = True
            else:
                raise ValueError(f"position {text!r}: unknown flag {flag!r}")
    return _State(opts, board, stores, side, turns, off, refill, passed)


def start(variant: str) -> str:
    opts = parse_variant(variant)
    n = opts["holes"]
    return _State(opts, [opts["seeds"]] * (2 * n), [0, 0], 0, 0, set(), False, False).format()


def _match_lost(st: _State) -> bool:
    return st.refill and sum(st.board) == 0 and 0 in st.stores


def _refill_move(st: _State) -> str:
    empty = [i for i in _row(st.n, st.side) if st.board[i] == 0]
    if st.stores[st.side] == 0 or not empty:
        return "pass"
    return "fill:" + _label(st.n, empty[0])


def _sowable(st: _State) -> list[int]:
    return [i for i in _row(st.n, st.side) if st.board[i] > 0]


def outcome(position: str) -> dict | None:
    st = _parse(position)
    if _match_lost(st):
        s, n = st.stores
        winner = "N" if s == 0 and n > 0 else "S" if n == 0 and s > 0 else None
        return {"winner": winner, "score": (s, n), "reason": "match-lost"}
    own = [st.stores[s] + sum(st.board[i] for i in _row(st.n, s)) for s in (0, 1)]
    if not st.refill and not _sowable(st):
        return _result(own, "stuck")
    if st.turns >= st.opts["max_turns"]:
        return _result(own, "turn-limit")
    return None


def _result(score: list[int], reason: str) -> dict:
    winner = "S" if score[0] > score[1] else "N" if score[1] > score[0] else None
    return {"winner": winner, "score": (score[0], score[1]), "reason": reason}


def legal_moves(position: str) -> list[str]:
    if outcome(position) is not None:
        return []
    st = _parse(position)
    if st.refill:
        return [_refill_move(st)]
    return [_label(st.n, i) for i in _sowable(st)]


def play(position: str, move: str) -> str:
    if move not in legal_moves(position):
        raise ValueError(f"{move!r} is not legal in {position!r}")
    st = _parse(position).copy()
    n = st.n
    if st.refill:
        if move == "pass":
            if st.passed:
                st.refill = st.passed = False
                st.off = {i for i in range(2 * n) if st.board[i] == 0}
            else:
                st.passed = True
        else:
            hole = [_label(n, i) for i in range(2 * n)].index(move[len("fill:") :])
            put = min(REFILL, st.stores[st.side])
            st.stores[st.side] -= put
            st.board[hole] += put
            st.passed = False
    else:
        origin = [_label(n, i) for i in range(2 * n)].index(move)
        seeds = st.board[origin]
        st.board[origin] = 0
        hole = origin
        while seeds:
            hole = (hole + 1) % (2 * n)
            if hole in st.off:
                continue
            st.board[hole] += 1
            seeds -= 1
        opponent = 1 - st.side
        if hole in _row(n, opponent) and st.board[hole] in CAPTURE:
            taken = [hole]
            for beside in (hole - 1, hole + 1):
                if beside in _row(n, opponent) and beside not in st.off and st.board[beside] in CAPTURE:
                    taken.append(beside)
            for h in taken:
                st.stores[st.side] += st.board[h]
                st.board[h] = 0
        if any(all(st.board[i] == 0 for i in _row(n, s)) for s in (0, 1)):
            for s in (0, 1):
                for i in _row(n, s):
                    st.stores[s] += st.board[i]
                    st.board[i] = 0
            st.off = set()
            st.refill, st.passed = True, False
    st.side = 1 - st.side
    st.turns += 1
    return st.format()
