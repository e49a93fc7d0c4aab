"""Interleaved A/B of the gateway load bench: another checkout (``--base``, e.g. main) against
this one, the same load, runs alternating (base first in odd pairs, this checkout first in even
ones, so a drifting machine load favours neither), a Markdown table at the end.

    python bench/gateway_ab.py --base /path/to/main --pairs 3 -- live --games 1000 --moves 3 --depth 14

Each run is ``bench/gateway_load.py`` of its own checkout (its own gateway, workers and
redis-servers), started with this Python, or for the base with ``--base-python`` (the base's own
environment, needed when its package layout differs: the tool imports the checkout's ``griot``);
the load average before each run is recorded with it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run(checkout: Path, load_args: list[str], python: str = sys.executable) -> dict[str, Any]:
    load = os.getloadavg()[0]
    out = subprocess.run(
        [python, str(checkout / "bench" / "gateway_load.py"), *load_args, "--json"],
        capture_output=True,
        text=True,
        timeout=1800,
        check=True,
    )
    report: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    report["load_before"] = load
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, type=Path, help="the other checkout (A)")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--base-python", default=sys.executable, help="the interpreter of the base's runs")
    ap.add_argument("load_args", nargs=argparse.REMAINDER, help="gateway_load.py arguments, after --")
    a = ap.parse_args()
    load_args = [x for x in a.load_args if x != "--"] or [
        "live",
        "--games",
        "1000",
        "--moves",
        "3",
        "--depth",
        "14",
    ]
    rows: list[tuple[int, str, dict[str, Any]]] = []
    for pair in range(1, a.pairs + 1):
        base, this = ("A", a.base, a.base_python), ("B", ROOT, sys.executable)
        for name, checkout, python in [base, this] if pair % 2 else [this, base]:
            r = run(checkout, load_args, python)
            rows.append((pair, name, r))
            print(f"pair {pair} {name}: {r['gateway_cpu_ms_per_evaluation']} ms/eval", file=sys.stderr)
    print(
        "| pair | checkout | load before | evaluations | errors | cache hit rate | gateway CPU | "
        "gateway CPU per evaluation |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for pair, name, r in rows:
        print(
            f"| {pair} | {name} | {r['load_before']:.1f} | {r['evaluations']} | {r['errors']} | "
            f"{r['cache_hit_rate']:.3f} | {r['gateway_cpu_s']:.2f} s | "
            f"{r['gateway_cpu_ms_per_evaluation']:.2f} ms |"
        )
    per = {n: [r["gateway_cpu_ms_per_evaluation"] for _, m, r in rows if m == n] for n in ("A", "B")}
    ratios = [b / a for a, b in zip(per["A"], per["B"], strict=True)]
    med_a, med_b = statistics.median(per["A"]), statistics.median(per["B"])
    print(
        f"\nmedian per evaluation: A {med_a:.2f} ms, B {med_b:.2f} ms; "
        f"B/A per pair: {', '.join(f'{x:.2f}' for x in ratios)} (median {statistics.median(ratios):.2f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
