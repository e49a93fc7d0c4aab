"""Regenerates tests/perft/readings.txt: perft of the readings shipped in
crates/griot-core/rules/readings/ (docs/rules/readings.md).

    python tests/perft/make_readings.py

For each reading: its start, the position after a fixed random game of 10 turns, and the
hand-built positions of EXTRA. Perft is
counted by the core up to CORE_LEAVES leaves; every count up to REF_LEAVES leaves is recounted by
the independent reference tests/reference/awale.py (written from the rule text), and the script
stops on any difference.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import griot  # noqa: E402

from tests.reference import awale  # noqa: E402

CORE_LEAVES = 2_000_000
REF_LEAVES = 40_000
MAX_DEPTH = 10
RANDOM_TURNS = 10

#: Hand-built positions where a reading's point shows within a few turns.
EXTRA = {
    # c(26) goes round twice and its chain reaches back to the origin.
    "halusa-ludii": ["halusa-ludii 1,1,26,1,1,3/2,2,2,2,2,2 14-13 S 10 -"],
    # Past the opening, small odd counts: chains judged from the hole after the last, across
    # rows and up to the origin.
    # ... and a chain that goes on past the origin.
    "adji-boto-ludii": [
        "adji-boto-ludii 3,1,5,2,1/1,3,2,5,1 37-40 S 20 -",
        "adji-boto-ludii 19,12,16,1,1/10,0,15,17,7 2-0 N 15 -",
    ],
    # A later lap whose capture would take North's last seed ends the game.
    "jodu-ludii": ["jodu-ludii 1,1,1,0,0,1/0,0,1,0,0,0 18-25 S 44 -"],
}

HEADER = """\
# Perft of the readings in crates/griot-core/rules/readings/: <position> ; <depth> <leaves> ; ...
# Every leaf is made. Counts up to {ref:,} leaves were recounted by the independent reference
# tests/reference/awale.py (written from the rule text) before being frozen. Made by
# tests/perft/make_readings.py; read by crates/griot-core/tests/perft.rs and tests/test_perft.py.
"""


def reference_perft(text: str, depth: int) -> int:
    if depth == 0:
        return 1
    moves = awale.legal_moves(text)
    if depth == 1:
        return len(moves)
    return sum(reference_perft(awale.play(text, m), depth - 1) for m in moves)


def positions(variant: str) -> list[str]:
    start = griot.Variant(variant).start()
    rng = random.Random(variant)
    pos = start
    for _ in range(RANDOM_TURNS):
        moves = pos.legal_moves()
        if not moves:
            break
        pos = pos.play(rng.choice(moves))
    return [str(start), str(pos), *EXTRA.get(variant, [])]


def line(fen: str) -> str:
    pos = griot.Position(fen)
    entries = []
    for depth in range(1, MAX_DEPTH + 1):
        leaves = pos.perft(depth)
        if leaves <= REF_LEAVES:
            theirs = reference_perft(fen, depth)
            if theirs != leaves:
                sys.exit(f"{fen}: perft {depth}: core {leaves}, reference {theirs}")
        entries.append(f"{depth} {leaves}")
        if leaves > CORE_LEAVES // 8 or leaves == 0:
            break
    return " ; ".join([fen, *entries]) + "\n"


def main() -> None:
    lines = [HEADER.format(ref=REF_LEAVES)]
    for variant in awale.READINGS:
        for fen in positions(variant):
            lines.append(line(fen))
            print(lines[-1], end="", flush=True)
    (ROOT / "tests" / "perft" / "readings.txt").write_text("".join(lines))


if __name__ == "__main__":
    main()
