"""Regenerates tests/perft/ikibuguzo.txt and tests/perft/sabouiyya.txt: perft over whole turns.

    python tests/perft/make_turn_tables.py

The positions are those of the step tables (``*.steps.txt``, the core's moves one choice at a
time). Here a move is a whole turn, as at the API: Ikibuguzo's choices after a capture and South's
H'ajeb capture sequence are part of the turn they continue. A position inside a turn (``choose=``,
``chain``) counts the ways its turn can end as its first level. Perft is counted by the core to
CORE_LEAVES leaves; every count up to REF_LEAVES leaves is recounted by the independent Python
reference (tests/reference/, its moves joined into turns by ``tests/crosscheck.reference_turns``)
and the script stops on any difference.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import griot  # noqa: E402
from crosscheck import after_turn, reference_turns  # noqa: E402

from tests.reference import ikibuguzo, sabouiyya  # noqa: E402

CORE_LEAVES = 400_000
REF_LEAVES = 30_000
MAX_DEPTH = 12

HEADER = """\
# Perft of {name} over whole turns: <position> ; <depth> <leaves> ; ...  A move is a whole turn, as
# at the API ({what}), so depth counts turns; a position inside a turn first counts the
# ways its turn can end. Every leaf is made. Counts up to {ref:,} leaves were recounted by the
# independent reference tests/reference/{module}.py (its steps joined into turns) before being
# frozen. Positions: those of {module}.steps.txt (the core's steps). Made by
# tests/perft/make_turn_tables.py; read by crates/griot-core/tests/perft.rs and tests/test_perft.py.
"""

WHAT = {
    "ikibuguzo": "the choices after a capture belong to the turn",
    "sabouiyya": "South's H'ajeb capture sequence is one turn",
}


def reference_perft(ref: ModuleType, text: str, depth: int) -> int:
    if depth == 0:
        return 1
    if ref.outcome(text) is not None:
        return 0
    turns = reference_turns(ref, text)
    if depth == 1:
        return len(turns)
    return sum(reference_perft(ref, after_turn(ref, text, turns, m), depth - 1) for m in turns)


def table(module: str, ref: ModuleType) -> str:
    steps = (ROOT / "tests" / "perft" / f"{module}.steps.txt").read_text().splitlines()
    lines = [HEADER.format(name=module, what=WHAT[module], ref=REF_LEAVES, module=module)]
    for line in steps:
        if not line.strip() or line.startswith("#"):
            continue
        fen = line.split(" ; ")[0]
        pos = griot.Position(fen)
        entries = []
        for depth in range(1, MAX_DEPTH + 1):
            leaves = pos.perft(depth)
            if leaves <= REF_LEAVES:
                theirs = reference_perft(ref, fen, depth)
                if theirs != leaves:
                    sys.exit(f"{fen}: perft {depth}: core {leaves}, reference {theirs}")
            entries.append(f"{depth} {leaves}")
            if leaves > CORE_LEAVES // 8 or leaves == 0:
                break
        lines.append(" ; ".join([fen, *entries]) + "\n")
        print(lines[-1], end="", flush=True)
    return "".join(lines)


def main() -> None:
    for module, ref in (("ikibuguzo", ikibuguzo), ("sabouiyya", sabouiyya)):
        (ROOT / "tests" / "perft" / f"{module}.txt").write_text(table(module, ref))


if __name__ == "__main__":
    main()
