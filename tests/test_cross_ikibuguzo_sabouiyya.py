"""The core against the independent references (tests/reference/ikibuguzo.py, sabouiyya.py) on
random games: the same position text, the same legal moves (whole turns: a reference's steps joined
while its ``mid_turn`` says the turn goes on) and the same outcome at every turn.

The default run plays about 1,300 whole games plus random walks from hand-built H'ajeb positions in
well under a minute; `-m slow` plays up to SLOW_FACTOR times as many (tests/crosscheck.py) to the full
turn limit.
"""

from __future__ import annotations

import random
from types import ModuleType

import griot
import pytest
from crosscheck import SLOW_FACTOR, after_turn, crosscheck, reference_turns
from reference import ikibuguzo, sabouiyya

# (reference module, variant, games)
CASES = [
    (ikibuguzo, "ikibuguzo", 500),
    (ikibuguzo, "ikibuguzo(end_holes_win=false)", 400),
    (ikibuguzo, "ikibuguzo(ludii=true)", 20),
    (ikibuguzo, "ikibuguzo(cw_play_captures=false)", 40),
    (ikibuguzo, "ikibuguzo(cw_relay=true)", 40),
    (ikibuguzo, "ikibuguzo(cw_relay=true,cw_resow_captures=false)", 40),
    (ikibuguzo, "ikibuguzo(cw_resow_once=false)", 40),
    (ikibuguzo, "ikibuguzo(cw_resow_captures=false)", 40),
    (ikibuguzo, "ikibuguzo(keep=false)", 40),
    (ikibuguzo, "ikibuguzo(stop_on_capture_all=false)", 40),
    (sabouiyya, "sabouiyya", 80),
    (sabouiyya, "sabouiyya(hajeb=false)", 60),
]

# H'ajeb in force, declarable, or about to settle: random play rarely spends long there.
HAJEB_POSITIONS = [
    "sabouiyya .NS../...../...NS/S..../S...N S 30 0-0 on",
    "sabouiyya NNS../.NS../NS.../S..../..... N 30 0-0 -",
    "sabouiyya NN.../.N.../N..../....S/...SS N 30 0-0 -",
    "sabouiyya NNS.S/NNS../S.N.S/.NS.N/S.N.S N 40 0-0 -",
    "sabouiyya N.NNN/N.N.S/SS..N/..SN./S.SSS S 40 0-0 on",
]


def _walks(ref: ModuleType, start: str, walks: int, seed: int, length: int = 60) -> list[str]:
    """Random walks from ``start``; returns the first disagreements found (empty when none)."""
    rng = random.Random(seed)
    problems = []
    for _ in range(walks):
        text, core = start, griot.Position(start)
        for _ in range(length):
            if str(core) != text:
                problems.append(f"position: core {core} reference {text}")
                break
            co = core.outcome
            ro = ref.outcome(text)
            if (co and (co.winner, tuple(co.scores))) != (ro and (ro["winner"], tuple(ro["score"]))):
                problems.append(f"outcome at {text}: core {co} reference {ro}")
                break
            if ro is not None:
                break
            turns = reference_turns(ref, text)
            cm, rm = sorted(str(m) for m in core.legal_moves()), sorted(turns)
            if cm != rm:
                problems.append(f"moves at {text}: core {cm} reference {rm}")
                break
            move = rng.choice(rm)
            core, text = core.play(move), after_turn(ref, text, turns, move)
        if problems:
            break
    return problems


@pytest.mark.parametrize(("ref", "variant", "games"), CASES, ids=[c[1] for c in CASES])
def test_core_agrees_with_reference(ref: ModuleType, variant: str, games: int) -> None:
    turns, disagreements = crosscheck(ref, variant, games=games, seed=20260402)
    assert not disagreements, "\n".join(map(str, disagreements))
    assert turns > 10 * games


@pytest.mark.parametrize("start", HAJEB_POSITIONS)
def test_core_agrees_with_reference_under_hajeb(start: str) -> None:
    assert not _walks(sabouiyya, start, walks=40, seed=3)


@pytest.mark.slow
@pytest.mark.parametrize(("ref", "variant", "games"), CASES, ids=[c[1] for c in CASES])
def test_core_agrees_with_reference_long(ref: ModuleType, variant: str, games: int) -> None:
    # Games to the full turn limit, up to SLOW_FACTOR x 400 a case: the two largest cases are
    # Ikibuguzo's slowest (minutes each in the reference), and the default run plays them already.
    long_games = SLOW_FACTOR * min(games, 400)
    _, disagreements = crosscheck(ref, variant, games=long_games, seed=11, max_turns=2000)
    assert not disagreements, "\n".join(map(str, disagreements))


@pytest.mark.slow
@pytest.mark.parametrize("start", HAJEB_POSITIONS)
def test_core_agrees_with_reference_under_hajeb_long(start: str) -> None:
    assert not _walks(sabouiyya, start, walks=50 * SLOW_FACTOR, seed=17, length=200)
