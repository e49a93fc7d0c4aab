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

Each ``--config NAME="FLAGS"`` gives the rules service's flags (besides port, metrics and workers);
leading ``VAR=value`` words set environment variables of that configuration's server, e.g.
``--config no-ee-poller="GRPC_EXPERIMENTS=-event_engine_poller"``.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rules_load  # bench/ is not a package: found through sys.path

#: A leading ``VAR=value`` word of a configuration: an environment variable of its server.
_ENV_WORD = re.compile(r"^[A-Z_][A-Z0-9_]*=")


class PerfCounter:
    """``perf stat`` attached to the server's processes (every thread) until :meth:`stop`."""

    #: perf event -> column name; events the machine cannot count (no PMU in a VM) are left out.
    EVENTS: ClassVar[dict[str, str]] = {
        "instructions:u": "user inst",
        "instructions:k": "kernel inst",
        "context-switches": "cswch",
    }

    def __init__(self, pids: list[int]) -> None:
        fd, self.out = tempfile.mkstemp(suffix=".perf")
        os.close(fd)
        events, targets = ",".join(self.EVENTS), ",".join(map(str, pids))
        self.proc = subprocess.Popen(
            ["perf", "stat", "-x", ",", "-o", self.out, "-e", events, "-p", targets],
            stdout=subprocess.DEVNULL,
        )

    def stop(self) -> dict[str, float]:
        """The counts since the start, by the short names of :attr:`EVENTS`."""
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=30)
        counts: dict[str, float] = {}
        with open(self.out) as f:
            for line in f:
                fields = line.strip().split(",")
                if len(fields) > 2 and fields[2] in self.EVENTS and fields[0].isdigit():
                    counts[self.EVENTS[fields[2]]] = float(fields[0])
        os.unlink(self.out)
        return counts


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
    parser.add_argument(
        "--perf",
        action="store_true",
        help="also count the server's instructions (user, kernel) and context switches per call "
        "with `perf stat` (steadier than CPU time on a busy machine)",
    )
    args = parser.parse_args()

    configs: list[tuple[str, list[str], dict[str, str]]] = []
    for c in args.config:
        name, sep, text = c.partition("=")
        if not sep or not name:
            parser.error(f'--config {c!r}: expected NAME="server flags"')
        words = shlex.split(text)
        env: dict[str, str] = {}
        while words and _ENV_WORD.match(words[0]):
            var, _, value = words.pop(0).partition("=")
            env[var] = value
        configs.append((name, words, env))
    variants = args.variants.split(",")
    rules_load.build_rust()
    figures: dict[str, dict[str, list[float]]] = {name: {} for name, _, _ in configs}
    print(
        f"# rules_server_ab: rounds={args.rounds} clients={args.clients} workers={args.server_workers} "
        f"duration={args.duration}s cpus={os.cpu_count()} loadavg={os.getloadavg()[0]:.2f}",
        flush=True,
    )
    for round_ in range(1, args.rounds + 1):
        for name, flags, env in configs:
            proc, target = rules_load.start_server(args.server_workers, flags, env)
            counter = PerfCounter(rules_load._descendants(proc.pid)) if args.perf else None
            try:
                before = rules_load.process_tree_cpu_seconds(proc.pid)
                r = rules_load.run_level_rust(target, args.clients, 1, args.duration, args.warmup, variants)
                used = rules_load.process_tree_cpu_seconds(proc.pid) - before
                counts = counter.stop() if counter is not None else {}
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=30)
            calls = max(1, r.answered)
            row = {"us/call": used / calls * 1e6, "req/s": r.rps}
            row.update({k: v / calls for k, v in counts.items()})
            for k, v in row.items():
                figures[name].setdefault(k, []).append(v)
            print(
                f"round {round_} {name:>16}: {r.rps:6.0f} req/s  p99 {r.p99_ms:6.2f} ms  errors {r.errors}  "
                f"server {row['us/call']:4.0f} us/call"
                + "".join(f"  {k} {v / calls:,.0f}" for k, v in counts.items())
                + f"  loadavg {os.getloadavg()[0]:.2f}",
                flush=True,
            )
    first = configs[0][0]
    keys = list(figures[first])
    print(f"\nmedian (range) over the rounds; ratio: the median against {first}'s")
    print(f"{'config':>16} " + " ".join(f"{k:>28}" for k in keys))
    for name, _, _ in configs:
        cells = []
        for k in keys:
            vals = figures[name][k]
            med = statistics.median(vals)
            ratio = med / statistics.median(figures[first][k])
            cells.append(f"{f'{med:,.0f} ({min(vals):,.0f}-{max(vals):,.0f}) {ratio:.2f}':>28}")
        print(f"{name:>16} " + " ".join(cells))
    print(f"# loadavg at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
