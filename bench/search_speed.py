"""Search speed from Python (native search, one core): time and nodes per second to depths 14, 16,
18, 20 from the abapa start, and time to a fixed depth from the start of every other variant.

    python bench/search_speed.py [--depths 14,16,18,20] [--other-depth 12] [--hash 64]
"""

from __future__ import annotations

import argparse

import griot


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--depths", default="14,16,18,20")
    p.add_argument("--other-depth", type=int, default=12)
    p.add_argument("--hash", type=int, default=64)
    args = p.parse_args()
    depths = [int(d) for d in args.depths.split(",")]
    start = griot.Variant("abapa").start()
    times: dict[int, griot.SearchResult] = {}

    def progress(r: griot.SearchResult) -> None:
        if r.depth in depths:
            times[r.depth] = r

    griot.search(start, depth=max(depths), hash_mb=args.hash, progress=progress)
    print("| abapa start | depth | time (s) | nodes | nodes/s | score | best |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for d in depths:
        r = times[d]
        print(f"| | {d} | {r.time:.2f} | {r.nodes:,} | {r.nps:,} | {r.score} | {r.best_move} |")
    print()
    print("| variant (start) | depth | time (s) | nodes | nodes/s | score | best |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for info in griot.variants():
        if info.id == "abapa" or info.kind != "rule_file":
            continue
        pos = info.variant().start()
        r = griot.search(pos, depth=args.other_depth, hash_mb=args.hash)
        print(
            f"| {info.id} | {r.depth} | {r.time:.3f} | {r.nodes:,} | {r.nps:,} | {r.score} | {r.best_move} |"
        )


if __name__ == "__main__":
    main()
