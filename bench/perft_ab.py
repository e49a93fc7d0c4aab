"""Perft CPU time of two builds of the core, interleaved A/B, on a loaded machine.

    cargo build --release -p griot-core --example perft_speed      # in each checkout
    python3 bench/perft_ab.py OLD_BINARY NEW_BINARY [--pairs 5]

Each pair runs every position once with each build, alternating which build goes first. The figure
is the child's user + system CPU time (getrusage through os.wait4), not wall time, so that other work
on the machine shows as little as possible; the load average is printed with every pair. The
binaries are `crates/griot-core/examples/perft_speed` built in each checkout (copy the example into
an older checkout that lacks it). Prints one line per pair and variant, and the median ratio new/old.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess

POSITIONS = [
    ("abapa", 10, "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"),
    ("oware", 11, "oware 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"),
    ("leb-bbut-ahbochen", 10, "leb-bbut-ahbochen 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"),
    ("bechi", 13, "bechi 6,6,6,6/6,6,6,6 0-0 S 0 1 play - - 0-0"),
    (
        "ikibuguzo",
        8,
        "ikibuguzo 0,6,0,0,0,0,0,17,0,0,2,1,2,1,2,1/0,6,0,0,0,0,0,17,0,0,2,1,2,1,2,1 S 6 0 -",
    ),
]


def cpu_seconds(binary: str, depth: int, position: str) -> tuple[float, int]:
    """Runs one perft in a child process; returns its user + system CPU seconds and the leaves."""
    proc = subprocess.Popen([binary, str(depth), position], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{binary} failed on {position!r}")
    return usage.ru_utime + usage.ru_stime, int(out.split("\t")[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--pairs", type=int, default=5)
    args = ap.parse_args()
    ratios: dict[str, list[float]] = {name: [] for name, _, _ in POSITIONS}
    for pair in range(args.pairs):
        load = os.getloadavg()[0]
        for name, depth, position in POSITIONS:
            order = [("old", args.old), ("new", args.new)]
            if pair % 2:
                order.reverse()
            cpu: dict[str, float] = {}
            leaves: dict[str, int] = {}
            for label, binary in order:
                cpu[label], leaves[label] = cpu_seconds(binary, depth, position)
            if leaves["old"] != leaves["new"]:
                raise SystemExit(f"{name}: leaves differ {leaves}")
            ratio = cpu["new"] / cpu["old"]
            ratios[name].append(ratio)
            print(
                f"pair {pair + 1} load {load:.1f} {name} depth {depth} ({leaves['new']} leaves): "
                f"old {cpu['old']:.3f} s new {cpu['new']:.3f} s new/old {ratio:.3f}",
                flush=True,
            )
    for name, values in ratios.items():
        each = ", ".join(f"{r:.3f}" for r in values)
        print(f"{name}: median new/old {statistics.median(values):.3f} ({each})")


if __name__ == "__main__":
    main()
