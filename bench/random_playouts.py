"""Random-playout speed of chosen variants: whole games from the start, one core, GIL released.

    python bench/random_playouts.py [--games 2000] [--repeat 3] VARIANT...

`Position.random_playouts(count, seed)` plays `count` random games in Rust and returns the turns
(API moves) played; the best of `--repeat` runs is reported.
"""

from __future__ import annotations

import argparse
import time

import griot


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'variant':34} {'games/s':>10} {'turns/s':>12} {'turns/game':>10}")
    for variant in args.variants:
        start = griot.Variant(variant).start()
        best = float("inf")
        for r in range(args.repeat):
            t = time.perf_counter()
            turns = start.random_playouts(args.games, r + 1)
            best = min(best, time.perf_counter() - t)
        print(f"{variant:34} {args.games / best:10.0f} {turns / best:12.0f} {turns / args.games:10.1f}")


if __name__ == "__main__":
    main()
