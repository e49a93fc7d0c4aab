"""Independent pure-Python endgame solver: the value of every position with up to N seeds on the
board, for the two-row sowing games the references in this directory play.

Written from docs/EGDB.md's definition of a value and from the rules as the references play them
(``awale.py`` for the Awale collection and Abapa, ``leb.py`` for Leb Bbut Ahbochen), never from the
Rust code. Slow and literal on purpose. Standard library only.

Definition (docs/EGDB.md)
-------------------------
A position is a board and a side to move (stores 0-0, one turn played). Its value is the side to
move's margin over the board's seeds at the end of the game with best play: seeds it takes less
seeds its opponent takes. Levels by seed count on the board; a move that captures leads to a lower
level. Within a level, two bounds on South's margin:
- ``lo``: South must reach an end of the game (endless play is South's worst, -seeds);
- ``hi``: North must (endless play is South's best, +seeds).
Where they differ the value is the endless-cycle share at the position (each player their own row)
clamped into ``[lo, hi]``. A capture into a lower level reads both bounds of the position it
leads to: its ``lo`` counts towards ``lo``, its ``hi`` towards ``hi`` (they are its value unless
that position's own bounds differ).

Here the bounds are computed as threshold games, one per margin t: South "reaches t" when it can
force an end worth at least t (``lo`` = the largest such t), South "keeps t" when it can keep
every end at least t, endless play allowed (``hi`` = the largest such t). Both are solved with
predecessor counts (retrograde), not by sweeping values.

API
---
    solve(variant, max_seeds, cycles=None) -> {(board tuple, side "S"|"N"): margin for the side
    to move}; a set passed as ``cycles`` receives the positions whose bounds differ (valued by a
    cycle).
"""

from __future__ import annotations

from collections import deque
from itertools import combinations

from tests.reference import awale, leb


def _rules(variant: str):
    return leb if variant.startswith("leb-bbut-ahbochen") else awale


def _holes(variant: str) -> int:
    if "holes=" in variant:
        return int(variant.split("holes=")[1].split(",")[0].rstrip(")"))
    return 6


def _boards(cells: int, seeds: int):
    """Every way of putting ``seeds`` seeds in ``cells`` holes (stars and bars)."""
    for bars in combinations(range(seeds + cells - 1), cells - 1):
        board, prev = [], -1
        for b in (*bars, seeds + cells - 1):
            board.append(b - prev - 1)
            prev = b
        yield tuple(board)


def _text(variant: str, board: tuple[int, ...], side: str) -> str:
    n = len(board) // 2
    south = ",".join(map(str, board[:n]))
    north = ",".join(map(str, board[n:]))
    return f"{variant} {south}/{north} 0-0 {side} 1 -"


def _parse(text: str) -> tuple[tuple[int, ...], tuple[int, int], str, bool]:
    fields = text.split(" ")
    south, north = fields[1].split("/")
    board = tuple(int(c) for c in south.split(",") + north.split(","))
    s, n = fields[2].split("-")
    return board, (int(s), int(n)), fields[3], "cycle" in fields[5]


def _margin(result: dict) -> int:
    """South's margin over the board of a finished game whose stores were 0-0."""
    south, north = result["score"]
    return south - north


def _own_rows(board: tuple[int, ...]) -> int:
    n = len(board) // 2
    return sum(board[:n]) - sum(board[n:])


def solve(
    variant: str, max_seeds: int, cycles: set[tuple[tuple[int, ...], str]] | None = None
) -> dict[tuple[tuple[int, ...], str], int]:
    rules = _rules(variant)
    cells = 2 * _holes(variant)
    values: dict[tuple[tuple[int, ...], str], int] = {}  # South's margin
    bounds: dict[tuple[tuple[int, ...], str], tuple[int, int]] = {}  # South's (lo, hi)
    for seeds in range(max_seeds + 1):
        keys = [(b, side) for b in _boards(cells, seeds) for side in "SN"]
        terminal: dict = {}
        exits: dict = {}
        inner: dict = {}
        preds: dict = {k: [] for k in keys}
        endless: dict = {}
        for key in keys:
            board, side = key
            text = _text(variant, board, side)
            result = rules.outcome(text)
            if result is not None:
                terminal[key] = _margin(result)
                continue
            endless[key] = _own_rows(board)
            exits[key], inner[key] = [], []
            for mv in rules.legal_moves(text):
                child = rules.play(text, mv)
                cboard, cstores, cside, cut = _parse(child)
                if cut:
                    v = _margin(rules.outcome(child))
                    exits[key].append((v, v))
                elif cstores == (0, 0):
                    inner[key].append((cboard, cside))
                    preds[(cboard, cside)].append(key)
                else:
                    low, high = bounds[(cboard, cside)]
                    gain = cstores[0] - cstores[1]
                    exits[key].append((gain + low, gain + high))
        lo = {k: -seeds for k in keys}
        hi = {k: -seeds for k in keys}
        for t in range(-seeds, seeds + 1):
            for k in _reach(keys, terminal, exits, inner, preds, t):
                lo[k] = max(lo[k], t)
            for k in _keep(keys, terminal, exits, inner, preds, t):
                hi[k] = max(hi[k], t)
        for key in keys:
            if key in terminal:
                values[key] = terminal[key]
                bounds[key] = (terminal[key], terminal[key])
            else:
                bounds[key] = (lo[key], hi[key])
                values[key] = min(max(endless[key], lo[key]), hi[key])
                if cycles is not None and lo[key] != hi[key]:
                    cycles.add(key)
    return {(b, side): (v if side == "S" else -v) for (b, side), v in values.items()}


def _reach(keys, terminal, exits, inner, preds, t):
    """Positions from which South forces an end worth at least ``t`` (an attractor, by counts).
    An exit counts by its lower bound."""
    won = set()
    # North positions: how many of their in-level moves are not yet known to be won for South.
    left = {}
    queue = deque()
    for k in keys:
        if k in terminal:
            ok = terminal[k] >= t
        elif k[1] == "S":
            ok = any(low >= t for low, _ in exits[k])
        else:
            left[k] = len(inner[k])
            ok = all(low >= t for low, _ in exits[k]) and not inner[k]
        if ok:
            won.add(k)
            queue.append(k)
    while queue:
        k = queue.popleft()
        for p in preds[k]:
            if p in won:
                continue
            if p[1] == "S":
                won.add(p)
                queue.append(p)
            else:
                left[p] -= 1
                if left[p] == 0 and all(low >= t for low, _ in exits[p]):
                    won.add(p)
                    queue.append(p)
    return won


def _keep(keys, terminal, exits, inner, preds, t):
    """Positions from which South keeps every end at least ``t``, endless play allowed: the
    complement of North's attractor to an end below ``t``. An exit counts by its upper bound."""
    lost = set()
    left = {}
    queue = deque()
    for k in keys:
        if k in terminal:
            bad = terminal[k] < t
        elif k[1] == "N":
            bad = any(high < t for _, high in exits[k])
        else:
            left[k] = len(inner[k])
            bad = all(high < t for _, high in exits[k]) and not inner[k]
        if bad:
            lost.add(k)
            queue.append(k)
    while queue:
        k = queue.popleft()
        for p in preds[k]:
            if p in lost:
                continue
            if p[1] == "N":
                lost.add(p)
                queue.append(p)
            else:
                left[p] -= 1
                if left[p] == 0 and all(high < t for _, high in exits[p]):
                    lost.add(p)
                    queue.append(p)
    return {k for k in keys if k not in lost}
