"""Cross-check of the core against the independent Python reference for Érhérhé.

Random games are played through the core (``griot.Position``) and ``tests/reference/erherhe.py``
side by side (``crosscheck.crosscheck``): at every turn both must agree on the position text, the
legal moves and the outcome. Whole matches are played, rounds and refills included; the ``slow``
run plays more of them (``pytest -m slow tests/test_cross_erherhe.py``).
"""

from __future__ import annotations

import griot
import pytest
from crosscheck import SLOW_FACTOR, crosscheck

from tests.reference import erherhe

# (variant, games, turns a game at most). Random matches last some hundred turns; a short turn
# limit exercises the limit's scores as well.
RUNS = [
    ("erherhe", 15, 2000),
    ("erherhe(holes=4)", 25, 2000),
    ("erherhe(holes=3,seeds=3)", 60, 2000),
    ("erherhe(max_turns=50)", 40, 2000),
]


def _run(variant: str, games: int, turns: int, seed: int) -> None:
    played, found = crosscheck(erherhe, variant, games, seed=seed, max_turns=turns)
    assert not found, found[0]
    assert played > games


@pytest.mark.parametrize(("variant", "games", "turns"), RUNS)
def test_core_agrees_with_reference(variant: str, games: int, turns: int) -> None:
    _run(variant, games, turns, seed=1)


def test_random_matches_reach_rounds_refills_and_the_end() -> None:
    # The cross-check means something only if the games get past the first round: count the
    # refills, the rounds with holes out of play and the matches decided by an empty store.
    import random

    rng = random.Random(7)
    refills = off_rounds = lost = 0
    for _ in range(30):
        pos = griot.Variant("erherhe").start()
        while not pos.is_over:
            flags = str(pos).split(" ")[-1]
            refills += "refill" in flags
            off_rounds += "off=" in flags
            pos = pos.play(rng.choice(pos.legal_moves()))
        lost += pos.outcome is not None and pos.outcome.reason == "match_lost"
    assert refills > 100 and off_rounds > 100 and lost > 5, (refills, off_rounds, lost)


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "games", "turns"), RUNS)
def test_core_agrees_with_reference_many(variant: str, games: int, turns: int) -> None:
    _run(variant, SLOW_FACTOR * games, turns, seed=1000)
