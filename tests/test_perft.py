"""Runs every perft table in tests/perft/*.txt through the Python API (shared with cargo test).
The ``*.steps.txt`` tables count the core's steps (a turn's choices one at a time): only cargo test
reads them; the API's moves are whole turns."""

from __future__ import annotations

from pathlib import Path

import griot
import pytest

TABLES = sorted(
    p for p in (Path(__file__).parent / "perft").glob("*.txt") if not p.name.endswith(".steps.txt")
)


def _entries() -> list[tuple[str, str, int, int]]:
    out = []
    for path in TABLES:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fen, *rest = line.split(" ; ")
            for entry in rest:
                depth, leaves = entry.split()
                out.append((f"{path.name}:{n}", fen, int(depth), int(leaves)))
    return out


ENTRIES = _entries()


def test_tables_are_not_empty() -> None:
    assert len(ENTRIES) > 100


@pytest.mark.parametrize(
    ("where", "fen", "depth", "leaves"), ENTRIES, ids=[f"{e[0]}-d{e[2]}" for e in ENTRIES]
)
def test_perft(where: str, fen: str, depth: int, leaves: int) -> None:
    assert griot.perft(fen, depth) == leaves, where
