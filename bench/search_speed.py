"""Search speed from Python (native search, one core): time and nodes per second to depths 14, 16,
18, 20 from the abapa start, time to a fixed depth from the start of every other two-row variant,
and from the start of Béchi (both boards), Ikibuguzo and Sabou'iyya (both H'ajeb settings), each
to its own depth (their turns cost very differently: Sabou'iyya's placement has ~270 moves a turn).

    python bench/search_speed.py [--depths 14,16,18,20] [--other-depth 12] [--hash 64]
        [--module-depths "bechi=26,bechi(holes=3)=26,ikibuguzo=22,sabouiyya=5,sabouiyya(hajeb=false)=5"]
        [--only-modules]

Time is the search's own clock (wall time of one thread); CPU is the thread's CPU time, which a
busy machine does not inflate.
"""

from __future__ import annotations

import argparse
import time

import griot

MODULE_DEPTHS = "bechi=26,bechi(holes=3)=26,ikibuguzo=22,sabouiyya=5,sabouiyya(hajeb=false)=5"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--depths", default="14,16,18,20")
    p.add_argument("--other-depth", type=int, default=12)
    p.add_argument("--hash", type=int, default=64)
    p.add_argument("--module-depths", default=MODULE_DEPTHS, help="variant=depth,... of the module games")
    p.add_argument("--only-modules", action="store_true", help="skip abapa and the two-row variants")
    args = p.parse_args()
    if not args.only_modules:
        two_row(args)
    print()
    print("| variant (start) | depth | time (s) | CPU (s) | nodes | nodes/s | score | best |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for item in args.module_depths.split(","):
        variant, depth = item.rsplit("=", 1)
        pos = griot.Variant(variant).start()
        t = time.thread_time()
        r = griot.search(pos, depth=int(depth), hash_mb=args.hash)
        cpu = time.thread_time() - t
        print(
            f"| {variant} | {r.depth} | {r.time:.3f} | {cpu:.3f} | {r.nodes:,} | {r.nps:,} | {r.score} "
            f"| {r.best_move} |"
        )


def two_row(args: argparse.Namespace) -> None:
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
