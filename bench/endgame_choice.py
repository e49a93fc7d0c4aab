"""How often a search without endgame databases picks an optimal move in endings they cover.

    python bench/endgame_choice.py --dir DB --positions 600 --depth 8 \\
        --engine learned=python3:learned --engine tuned=python3:tuned \\
        --engine older=/path/to/older/.venv/bin/python:tuned

Positions come from random games (seeded) from the variant's start, taken once the board holds
at most ``--board-seeds`` seeds, and kept when the databases value the position and every move
from it exactly (no value that depends on a cycle) and not every move keeps the best result: a
position where any move does is no test. Each engine (a name, the Python of a Griot build, and
its evaluation's name) searches every position to the same depth or time, without databases and
with an empty table, in a process of its own: an older build plays through its own ``griot``.
Printed per engine: the share of positions in which its move keeps the best result (win, draw or
loss) and the share in which it reaches the best final margin, each with a 95% interval.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import griot
from egdb_selfplay import optimal
from griot import egdb

SEARCHER = """
import json, sys, griot
variant, depth, seconds, ev = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
v = griot.Variant(variant)
for line in sys.stdin:
    pos = v.position(line.strip())
    r = griot.search(
        pos,
        depth=int(depth) if depth != "-" else None,
        time=float(seconds) if seconds != "-" else None,
        eval=ev,
        table=griot.SearchTable(16),
    )
    print(json.dumps(str(r.best_move)), flush=True)
"""


def sample(
    db: griot.Egdb, variant: griot.Variant, n: int, board_seeds: int, seed: int
) -> list[griot.Position]:
    rng = random.Random(seed)
    found: list[griot.Position] = []
    seen: set[bytes] = set()
    while len(found) < n:
        pos = variant.start()
        for _ in range(400):
            if pos.is_over:
                break
            if sum(pos.cells) <= board_seeds and pos.key not in seen:
                seen.add(pos.key)
                verdicts = [optimal(db, pos, m.text) for m in pos.legal_moves()]
                if all(v is not None for v in verdicts) and not all(v[0] for v in verdicts if v):
                    found.append(pos)
                    break
            pos = pos.play(rng.choice(pos.legal_moves()))
    return found


def share(k: int, n: int) -> str:
    """``k/n`` with its Wilson 95% interval."""
    if n == 0:
        return "-"
    p, z = k / n, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"{p:.3f} [{centre - half:.3f}, {centre + half:.3f}]"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="abapa")
    ap.add_argument("--dir", type=Path, default=egdb.default_dir())
    ap.add_argument("--positions", type=int, default=400)
    ap.add_argument("--board-seeds", type=int, default=14, help="at most this many seeds on the board")
    ap.add_argument("--depth", type=int)
    ap.add_argument("--time", type=float, help="seconds a position (instead of --depth)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--engine",
        action="append",
        required=True,
        metavar="NAME=PYTHON:EVAL",
        help="a build's Python and the evaluation to search with (repeatable)",
    )
    args = ap.parse_args()
    if (args.depth is None) == (args.time is None):
        ap.error("give --depth or --time")

    variant = griot.Variant(args.variant)
    db = egdb.open_databases(variant.canonical, args.dir)
    board_seeds = min(args.board_seeds, db.max_seeds)
    positions = sample(db, variant, args.positions, board_seeds, args.seed)
    limit = f"depth {args.depth}" if args.depth is not None else f"{args.time} s"
    print(
        f"{len(positions)} positions with at most {board_seeds} seeds on the board, each with a move "
        f"that does not keep the best result (seed {args.seed}); {limit} a position",
        flush=True,
    )
    text = "".join(str(p).split(" ", 1)[1] + "\n" for p in positions)
    for spec in args.engine:
        name, _, rest = spec.partition("=")
        python, _, ev = rest.rpartition(":")
        out = subprocess.run(
            [
                python,
                "-c",
                SEARCHER,
                variant.canonical,
                str(args.depth) if args.depth is not None else "-",
                str(args.time) if args.time is not None else "-",
                ev,
            ],
            input=text,
            capture_output=True,
            text=True,
            check=True,
        )
        moves = [json.loads(line) for line in out.stdout.split()]
        result = margin = 0
        for pos, move in zip(positions, moves, strict=True):
            got = optimal(db, pos, move)
            assert got is not None
            result += int(got[0])
            margin += int(got[1])
        n = len(positions)
        print(f"{name}: keeps the best result {share(result, n)}, reaches the best margin {share(margin, n)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
