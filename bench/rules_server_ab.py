"""Interleaved A/B of rules service configurations: server CPU per ApplyMove and requests/s.

On a shared machine one run of each configuration says little: other people's work moves the
figures by tens of percent from one minute to the next. This script starts each configuration in
turn, round after round (A, B, C, A, B, C, ...), drives it with the Rust load generator
(bench/rules-load) for a short level, and reports each configuration's median and range over the
rounds, so that every configuration sees the same mix of quiet and busy moments.

    python bench/rules_server_ab.py --rounds 6 --clients 16 \\
        --config asyncio="--event-loop asyncio" \\
        --config uvloop="--event-loop uvloop" \\
        --config uvloop+pin="--event-loop uvloop --cpu-affinity on"

Each ``--config NAME="FLAGS"`` gives the rules service's flags (besides port, metrics and workers).
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rules_load  # bench/ is not a package: found through sys.path


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--config", action="append", required=True, help='NAME="server flags" (repeatable)')
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--server-workers", type=int, default=2)
    parser.add_argument("--duration", type=float, default=3.0, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--variants", default=",".join(rules_load.DEFAULT_VARIANTS))
    args = parser.parse_args()

    configs: list[tuple[str, list[str]]] = []
    for c in args.config:
        name, sep, flags = c.partition("=")
        if not sep or not name:
            parser.error(f'--config {c!r}: expected NAME="server flags"')
        configs.append((name, shlex.split(flags)))
    variants = args.variants.split(",")
    rules_load.build_rust()
    cpu: dict[str, list[float]] = {name: [] for name, _ in configs}
    rps: dict[str, list[float]] = {name: [] for name, _ in configs}
    print(
        f"# rules_server_ab: rounds={args.rounds} clients={args.clients} workers={args.server_workers} "
        f"duration={args.duration}s cpus={os.cpu_count()} loadavg={os.getloadavg()[0]:.2f}",
        flush=True,
    )
    for round_ in range(1, args.rounds + 1):
        for name, flags in configs:
            proc, target = rules_load.start_server(args.server_workers, flags)
            try:
                before = rules_load.process_tree_cpu_seconds(proc.pid)
                r = rules_load.run_level_rust(target, args.clients, 1, args.duration, args.warmup, variants)
                used = rules_load.process_tree_cpu_seconds(proc.pid) - before
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=30)
            per_call = used / max(1, r.answered) * 1e6
            cpu[name].append(per_call)
            rps[name].append(r.rps)
            print(
                f"round {round_} {name:>16}: {r.rps:6.0f} req/s  p99 {r.p99_ms:6.2f} ms  errors {r.errors}  "
                f"server {per_call:4.0f} us/call  loadavg {os.getloadavg()[0]:.2f}",
                flush=True,
            )
    first = configs[0][0]
    header = f"{'config':>16} {'server us/call (median, range)':>32} {'req/s (median)':>15}"
    print(f"\n{header} {'vs ' + first:>10}")
    for name, _ in configs:
        med = statistics.median(cpu[name])
        print(
            f"{name:>16} {med:>14.0f} ({min(cpu[name]):.0f}-{max(cpu[name]):.0f}){'':>9} "
            f"{statistics.median(rps[name]):>15.0f} {med / statistics.median(cpu[first]):>10.2f}"
        )
    print(f"# loadavg at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
