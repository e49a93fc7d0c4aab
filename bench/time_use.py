"""How much of its time the search uses: per-move limits and a game clock.

    python bench/time_use.py --variant abapa --positions 30 --time 0.1 --seed 1
    python bench/time_use.py --variant abapa --clock 10 --increment 0.1 --seed 1

With ``--time``: positions from seeded random games are each searched with ``time=`` and the
elapsed share of the limit is reported (mean, min, max) with the depths reached. With ``--clock``:
one self-play game on a clock of that many seconds per side plus the increment, each move searched
with ``clock=(left, increment)``; it reports the moves played, the time used per move and the least
time left (a clock that runs out ends the run with an error). Timings depend on the machine's load.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

import griot


def sample_positions(variant: str, count: int, seed: int) -> list[griot.Position]:
    rng = random.Random(seed)
    out: list[griot.Position] = []
    while len(out) < count:
        pos = griot.Variant(variant).start()
        for _ in range(rng.randrange(4, 40)):
            if pos.is_over:
                break
            pos = pos.play(rng.choice(pos.legal_moves()))
        if not pos.is_over and len(pos.legal_moves()) > 1:
            out.append(pos)
    return out


def per_move(variant: str, count: int, seconds: float, seed: int) -> None:
    shares: list[float] = []
    depths: list[int] = []
    table = griot.SearchTable(16)  # kept, as griot uci keeps it: no table allocation in the timing
    for pos in sample_positions(variant, count, seed):
        table.clear()
        started = time.perf_counter()
        r = griot.search(pos, time=seconds, table=table)
        shares.append((time.perf_counter() - started) / seconds)
        depths.append(r.depth)
    print(
        f"{variant}, time={seconds} s, {len(shares)} positions: share of the limit used "
        f"mean {statistics.mean(shares):.2f}, min {min(shares):.2f}, max {max(shares):.2f}; "
        f"depth mean {statistics.mean(depths):.1f}"
    )


def on_clock(variant: str, clock: float, increment: float, seed: int) -> None:
    pos = sample_positions(variant, 1, seed)[0]
    left = {"S": clock, "N": clock}
    used: list[float] = []
    history: list[griot.Position] = []
    lowest = clock
    table = griot.SearchTable(16)
    while not pos.is_over and len(used) < 400:
        side = pos.side_to_move
        started = time.perf_counter()
        r = griot.search(pos, clock=(left[side], increment), history=history, table=table)
        spent = time.perf_counter() - started
        left[side] -= spent
        if left[side] < 0:
            sys.exit(f"move {len(used) + 1}: {side}'s clock ran out")
        lowest = min(lowest, left[side])
        left[side] += increment
        used.append(spent)
        history.append(pos)
        if r.best_move is None:
            break
        pos = pos.play(r.best_move)
    print(
        f"{variant}, clock {clock} s + {increment} s: {len(used)} moves, per move "
        f"mean {statistics.mean(used):.3f} s, max {max(used):.3f} s; least time left {lowest:.2f} s; "
        f"left at the end S {left['S']:.2f} s, N {left['N']:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="abapa")
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--time", type=float, default=None, help="seconds per move")
    parser.add_argument("--clock", type=float, default=None, help="seconds per side")
    parser.add_argument("--increment", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.clock is not None:
        on_clock(args.variant, args.clock, args.increment, args.seed)
    else:
        per_move(args.variant, args.positions, args.time or 0.1, args.seed)


if __name__ == "__main__":
    main()
