"""Random-playout speed of Leb Bbut Ahbochen (every board) and Béchi (every board and option).

    python bench/playouts_leb_bechi.py [--games 20000] [--seed 1] [--repeat 3]

Each line plays `--games` random games from the start with the core's own generator
(`Position.random_playouts(count, seed)`, one core, GIL released) and reports the turns played and
the speed (best of `--repeat` runs, the same games each time). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import time

import griot

LEB = "leb-bbut-ahbochen"
VARIANTS = [
    f"{LEB}(holes=2)",
    f"{LEB}(holes=4)",
    LEB,
    f"{LEB}(holes=8)",
    f"{LEB}(holes=10)",
    "bechi",
    "bechi(holes=3)",
    "bechi(empty_breaks_chain=false)",
    "bechi(empty_breaks_chain=false,holes=3)",
    "bechi(empty_holes_in_play=true)",
    "bechi(empty_holes_in_play=true,holes=3)",
    "bechi(empty_breaks_chain=false,empty_holes_in_play=true)",
    "bechi(empty_breaks_chain=false,empty_holes_in_play=true,holes=3)",
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print("| variant | games | turns | turns/game | seconds | games/s | turns/s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for variant in VARIANTS:
        start = griot.Variant(variant).start()
        dt = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            turns = start.random_playouts(args.games, args.seed)
            dt = min(dt, time.perf_counter() - t0)
        print(
            f"| `{variant}` | {args.games} | {turns} | {turns / args.games:.0f} | {dt:.3f} "
            f"| {args.games / dt:,.0f} | {turns / dt / 1e6:.2f} M |"
        )


if __name__ == "__main__":
    main()
