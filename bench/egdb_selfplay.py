"""Self-play with and without endgame databases: the same search (fixed depth) plays itself from
random endgame positions, once with the databases and once without, colours swapped.

    python bench/egdb_selfplay.py --dir /tmp/egdb3-local --starts 100 --depth 6 --board-seeds 28
    python bench/egdb_selfplay.py --dir /tmp/egdb3-local --sample-levels 14

Every start position (random moves from Abapa's start until at most ``--board-seeds`` seeds are
left on the board, seeded) is played twice, the engine with databases taking each side once. It
prints the engine with databases' score (win 1, draw 1/2) with a 95% interval over the pairs of
games, and for each engine the share of its moves that are optimal by the databases among the
moves it played in positions they cover: a move keeps the best result when it leads to a win
(draw) where one is there with best play, and reaches the best margin when the final margin it
leads to (the databases' value of the position after it, stores included) is the best of all
legal moves'. While a store may still pass the rules' threshold (24 for Abapa) the databases'
margin is that of the game without it (docs/EGDB.md); the result is exact either way. It also
counts the moves after which the mover's result by the databases is below their value of the
position, and how many of those were played where no move keeps that value: a position valued by
a cycle, whose value holds only if endless play is shared out there (docs/EGDB.md, "Cycles").
A position's third occurrence ends the game by the rules' endless cycle.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import griot
from griot import egdb


def value(db: griot.Egdb, pos: griot.Position, player: str) -> tuple[int, int] | None:
    """``player``'s result from ``pos`` with best play by the databases: (1 win, 0 draw, -1 loss;
    the final margin, stores included), or None out of their range. Where a store may still pass
    the rules' threshold the result is exact and the margin is that of the game without the
    threshold (docs/EGDB.md)."""
    probe = db.probe(pos)
    if probe.kind == "out_of_range" or probe.margin is None:
        return None
    result = 0 if probe.winner is None else (1 if probe.winner == player else -1)
    stores = pos.stores or (0, 0)
    me = 0 if pos.side_to_move == "S" else 1
    mine = stores[me] - stores[1 - me] + probe.margin
    return result, (mine if pos.side_to_move == player else -mine)


def optimal(db: griot.Egdb, pos: griot.Position, move: str) -> tuple[bool, bool, bool, bool] | None:
    """Whether ``move`` keeps the best result the databases give among ``pos``'s moves; whether it
    reaches the best final margin; whether it lowers the mover's result below the databases' value
    of ``pos``; and whether that value is the best of the moves' (False for a position valued by a
    cycle whose value no move keeps). None when they do not cover ``pos`` and every move."""
    mover = pos.side_to_move
    values: dict[str, tuple[int, int]] = {}
    for m in pos.legal_moves():
        v = value(db, pos.play(m), mover)
        if v is None:
            return None
        values[m.text] = v
    here = value(db, pos, mover)
    if here is None:
        return None
    best_result = max(r for r, _ in values.values())
    best_margin = max(x for _, x in values.values())
    return (
        values[move][0] == best_result,
        values[move][1] == best_margin,
        values[move][0] < here[0],
        here[0] == best_result,
    )


@dataclass
class Tally:
    covered: int = 0
    optimal: int = 0  # kept the best result (win, draw, loss)
    margin_optimal: int = 0  # reached the best final margin
    lowered: int = 0  # moves after which the mover's result is below the position's value
    lowered_consistent: int = 0  # of those, in positions whose value one of the moves keeps
    moves: int = 0
    seconds: float = 0.0


@dataclass
class Match:
    points: list[float] = field(default_factory=list)  # the engine with databases, game by game
    results: Counter[str] = field(default_factory=Counter)
    tallies: dict[str, Tally] = field(default_factory=lambda: {"with": Tally(), "without": Tally()})


def start_position(variant: griot.Variant, board_seeds: int, rng: random.Random) -> griot.Position:
    while True:
        pos = variant.start()
        for _ in range(400):
            if pos.is_over or sum(pos.cells) <= board_seeds:
                break
            pos = pos.play(rng.choice(pos.legal_moves()))
        if not pos.is_over and sum(pos.cells) <= board_seeds and pos.legal_moves():
            return pos


def play(start: griot.Position, db: griot.Egdb, with_db_side: str, depth: int, m: Match) -> float:
    """One game; returns the engine with databases' points."""
    pos = start
    history: list[griot.Position] = []
    seen: Counter[bytes] = Counter([pos.key])
    while True:
        outcome = pos.outcome
        how = "end"
        if outcome is None and seen[pos.key] >= 3:
            outcome, how = pos.endless_outcome(), "repetition"
        if outcome is not None:
            if outcome.winner is None:
                m.results[f"draw ({how})"] += 1
                return 0.5
            won = outcome.winner == with_db_side
            m.results[f"{'with' if won else 'without'} wins ({how})"] += 1
            return 1.0 if won else 0.0
        name = "with" if pos.side_to_move == with_db_side else "without"
        t0 = time.process_time()
        r = griot.search(pos, depth=depth, history=history, egdb=db if name == "with" else None)
        tally = m.tallies[name]
        tally.seconds += time.process_time() - t0
        tally.moves += 1
        move = str(r.best_move)
        good = optimal(db, pos, move)
        if good is not None:
            tally.covered += 1
            tally.optimal += int(good[0])
            tally.margin_optimal += int(good[1])
            if good[2]:
                tally.lowered += 1
                tally.lowered_consistent += int(good[3])
        history.append(pos)
        pos = pos.play(pos.parse_move(move))
        seen[pos.key] += 1


def sample_levels(db: griot.Egdb, variant: griot.Variant, top: int, per_level: int, seed: int) -> None:
    """For each level up to ``top``: of ``per_level`` random positions (stores 10-10, either side
    to move) with every move's result exact, how many have a value no move keeps."""
    rng = random.Random(seed)
    holes = len(variant.start().cells)
    half = holes // 2
    for seeds in range(1, top + 1):
        n = off = 0
        while n < per_level:
            cells = [0] * holes
            for _ in range(seeds):
                cells[rng.randrange(holes)] += 1
            body = f"{','.join(map(str, cells[:half]))}/{','.join(map(str, cells[half:]))}"
            pos = variant.position(f"{body} 10-10 {rng.choice('SN')} 30 -")
            if pos.is_over or not pos.legal_moves():
                continue
            move = pos.legal_moves()[0].text
            got = optimal(db, pos, move)
            if got is None:
                continue
            n += 1
            off += int(not got[3])
        print(f"level {seeds:2}: {off} of {n} positions have a value no move keeps", flush=True)


def interval(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return mean, 1.96 * math.sqrt(var / n)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="abapa")
    ap.add_argument("--dir", type=Path, default=egdb.default_dir())
    ap.add_argument("--starts", type=int, default=100, help="start positions (two games each)")
    ap.add_argument("--depth", type=int, default=6)
    ap.add_argument("--board-seeds", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--sample-levels", type=int, metavar="TOP", help="only sample the levels up to TOP (no games)"
    )
    ap.add_argument("--per-level", type=int, default=400)
    args = ap.parse_args()

    variant = griot.Variant(args.variant)
    db = egdb.open_databases(variant.canonical, args.dir)
    print(f"databases: {db.rules}, levels 0-{db.max_seeds}", flush=True)
    if args.sample_levels is not None:
        sample_levels(db, variant, args.sample_levels, args.per_level, args.seed)
        return 0
    rng = random.Random(args.seed)
    m = Match()
    pairs: list[float] = []
    t0 = time.monotonic()
    for i in range(args.starts):
        start = start_position(variant, args.board_seeds, rng)
        a = play(start, db, "S", args.depth, m)
        b = play(start, db, "N", args.depth, m)
        m.points += [a, b]
        pairs.append((a + b) / 2)
        if (i + 1) % 10 == 0:
            mean, half = interval(pairs)
            print(f"{2 * (i + 1)} games: {mean:.3f} +- {half:.3f}", flush=True)
    mean, half = interval(pairs)
    print(
        f"{len(m.points)} games from {args.starts} starts (at most {args.board_seeds} seeds on the board), "
        f"depth {args.depth}, {time.monotonic() - t0:.0f} s"
    )
    print(f"with databases: {mean:.3f} +- {half:.3f} (95%, over pairs); {dict(m.results)}")
    for name, t in m.tallies.items():
        share = t.optimal / t.covered if t.covered else float("nan")
        margin = t.margin_optimal / t.covered if t.covered else float("nan")
        print(
            f"{name} databases: {t.moves} moves, {t.covered} in positions the databases cover, "
            f"{t.optimal} keep the best result ({share:.1%}), "
            f"{t.margin_optimal} reach the best margin ({margin:.1%}), {t.lowered} lower the mover's "
            f"result below the position's value ({t.lowered - t.lowered_consistent} of them where no "
            f"move keeps that value); {t.seconds / max(1, t.moves) * 1000:.1f} ms CPU a move"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
