"""A repeating game for the history tests: two lone seeds chase each other round an awale board,
and every twelve turns bring the position back (the turn count aside)."""

from __future__ import annotations

import griot

CYCLE_START = "awale 0,0,0,0,0,1/0,0,0,0,0,1 20-26 S 40 -"
CYCLE = ["f", "F", "a", "A", "b", "B", "c", "C", "d", "D", "e", "E"]


def played(moves: list[str], start: str = CYCLE_START) -> list[griot.Position]:
    """``start`` and every position after each of ``moves``."""
    out = [griot.Position(start)]
    for m in moves:
        out.append(out[-1].play(m))
    return out
