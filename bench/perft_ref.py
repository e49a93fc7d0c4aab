"""Abapa perft: Griot's rules engine against a tight hand-written C perft of the same rules.

    python3 bench/perft_ref.py [--griot BINARY] [--depth 11] [--pairs 5] [--cc cc]

Builds bench/perft_ref/abapa.c with `cc -O3 -march=native` (into a temporary directory) and, unless
`--griot` names a binary, Griot's `perft_speed` example with `cargo build --release -p griot-core
--example perft_speed` (honouring CARGO_TARGET_DIR). Each pair runs both once from each position,
alternating which goes first; the figure is each child's user + system CPU time (getrusage through
os.wait4). Leaf counts must agree. Prints one line per pair and position, then the median ratio of
rates (Griot's leaves per CPU second over the reference's) per position.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "bench" / "perft_ref" / "abapa.c"
CFLAGS = ["-O3", "-march=native"]
POSITIONS = [
    "4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0",
    "3,4,5,5,9,0/0,10,2,2,4,4 0-0 S 10",
]


def build_griot() -> str:
    """Builds the release `perft_speed` example; returns its path."""
    out = subprocess.run(
        ["cargo", "build", "--release", "-p", "griot-core", "--example", "perft_speed",
         "--message-format=json"],
        cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True,
    ).stdout  # fmt: skip
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == "perft_speed":
            exe = msg.get("executable")
            if exe:
                return str(exe)
    raise SystemExit("cargo built no perft_speed executable")


def cpu_seconds(argv: list[str]) -> tuple[float, int]:
    """Runs one perft in a child process; returns its user + system CPU seconds and the leaves."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv} failed")
    return usage.ru_utime + usage.ru_stime, int(out.split("\t")[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--griot", help="a built perft_speed binary (default: build this checkout's)")
    ap.add_argument("--depth", type=int, default=11)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--start-only", action="store_true", help="only the start position")
    args = ap.parse_args()
    griot = args.griot or build_griot()
    positions = POSITIONS[:1] if args.start_only else POSITIONS
    with tempfile.TemporaryDirectory() as tmp:
        ref = str(Path(tmp) / "abapa")
        subprocess.run([args.cc, *CFLAGS, "-o", ref, str(SOURCE)], check=True)
        print(f"reference: {args.cc} {' '.join(CFLAGS)}; griot: {griot}; depth {args.depth}")
        ratios: dict[str, list[float]] = {p: [] for p in positions}
        for pair in range(args.pairs):
            load = os.getloadavg()[0]
            for position in positions:
                runs = {
                    "c": [ref, str(args.depth), position],
                    "griot": [griot, str(args.depth), f"abapa {position} -"],
                }
                order = ["c", "griot"] if pair % 2 == 0 else ["griot", "c"]
                cpu: dict[str, float] = {}
                leaves: dict[str, int] = {}
                for name in order:
                    cpu[name], leaves[name] = cpu_seconds(runs[name])
                if leaves["c"] != leaves["griot"]:
                    raise SystemExit(f"{position}: leaves differ {leaves}")
                ratio = cpu["c"] / cpu["griot"]
                ratios[position].append(ratio)
                print(
                    f"pair {pair + 1} load {load:.1f} [{position}] depth {args.depth} "
                    f"({leaves['c']} leaves): c {cpu['c']:.3f} s "
                    f"({leaves['c'] / cpu['c'] / 1e6:.1f} M/s), griot {cpu['griot']:.3f} s "
                    f"({leaves['griot'] / cpu['griot'] / 1e6:.1f} M/s), griot/c rate {ratio:.3f}",
                    flush=True,
                )
        for position, values in ratios.items():
            each = ", ".join(f"{r:.3f}" for r in values)
            print(f"[{position}]: median griot/c rate {statistics.median(values):.3f} ({each})")


if __name__ == "__main__":
    main()
