"""Cross-check of the core against the independent Python references for Leb Bbut Ahbochen and Béchi.

Random games are played through the core (``griot.Position``) and the reference
(``tests/reference/leb.py``, ``tests/reference/bechi.py``) side by side. At every turn both must agree
on the position text, the sorted legal moves and the outcome (winner and scores; reason strings are
worded differently and not compared); the reference's text must also parse in the core to the same
position. The default run covers every board size and option with 942 games; the ``slow`` run
plays 20 times as many (``pytest -m slow tests/test_cross_leb_bechi.py``).
"""

from __future__ import annotations

import random
from types import ModuleType

import griot
import pytest
from crosscheck import SLOW_FACTOR

from tests.reference import bechi, leb

Outcome = tuple[str | None, tuple[int, int]] | None


def _core_outcome(pos: griot.Position) -> Outcome:
    o = pos.outcome
    return None if o is None else (o.winner, (o.scores[0], o.scores[1]))


def _ref_outcome(ref: ModuleType, text: str) -> Outcome:
    o = ref.outcome(text)
    return None if o is None else (o["winner"], tuple(o["score"]))


def crosscheck(ref: ModuleType, variant: str, games: int, seed: int) -> int:
    """Plays `games` random games; fails at the first disagreement. Returns the turns played."""
    rng = random.Random(seed)
    turns = 0
    for game in range(games):
        core = griot.Variant(variant).start()
        text = ref.start(variant)
        while True:
            where = f"{variant} game {game} (seed {seed}) at {text!r}"
            assert str(core) == text, f"{where}: position differs, core {str(core)!r}"
            assert griot.Position(text) == core, f"{where}: the reference's text parses differently"
            core_moves = sorted(str(m) for m in core.legal_moves())
            ref_moves = sorted(ref.legal_moves(text))
            assert core_moves == ref_moves, f"{where}: legal moves differ"
            assert _core_outcome(core) == _ref_outcome(ref, text), f"{where}: outcome differs"
            if not ref_moves:
                assert core.outcome is not None, f"{where}: no move but no outcome"
                break
            move = rng.choice(ref_moves)
            core = core.play(move)
            text = ref.play(text, move)
            turns += 1
    return turns


LEB = "leb-bbut-ahbochen"

# (variant, games in the default run). The 2x2 board never ends before the turn limit in random
# play, so most of its games use a shorter limit; a few play the full 2,000 turns.
LEB_RUNS = [
    (f"{LEB}(holes=2,max_turns=150)", 100),
    (f"{LEB}(holes=2)", 2),
    (f"{LEB}(holes=4)", 40),
    (LEB, 80),
    (f"{LEB}(holes=8)", 50),
    (f"{LEB}(holes=10)", 40),
    (f"{LEB}(holes=6,max_turns=40)", 100),
]

BECHI_RUNS = [
    ("bechi", 80),
    ("bechi(holes=3)", 100),
    ("bechi(empty_breaks_chain=false)", 60),
    ("bechi(empty_breaks_chain=false,holes=3)", 80),
    ("bechi(empty_holes_in_play=true)", 15),
    ("bechi(empty_holes_in_play=true,holes=3)", 40),
    ("bechi(empty_breaks_chain=false,empty_holes_in_play=true)", 15),
    ("bechi(empty_breaks_chain=false,empty_holes_in_play=true,holes=3)", 40),
    ("bechi(max_turns=60)", 100),
    ("bechi(ludii=true)", 40),
    ("bechi(holes=3,ludii=true)", 60),
    ("bechi(chain_max=2,empty_breaks_chain=false)", 30),
    ("bechi(empty_holes_in_play=true,first_pass_starts=true)", 15),
]


@pytest.mark.parametrize(("variant", "games"), LEB_RUNS)
def test_leb_core_agrees_with_reference(variant: str, games: int) -> None:
    assert crosscheck(leb, variant, games, seed=1) > 0


@pytest.mark.parametrize(("variant", "games"), BECHI_RUNS)
def test_bechi_core_agrees_with_reference(variant: str, games: int) -> None:
    assert crosscheck(bechi, variant, games, seed=1) > 0


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "games"), LEB_RUNS)
def test_leb_core_agrees_with_reference_many(variant: str, games: int) -> None:
    assert crosscheck(leb, variant, SLOW_FACTOR * games, seed=1000) > 0


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "games"), BECHI_RUNS)
def test_bechi_core_agrees_with_reference_many(variant: str, games: int) -> None:
    assert crosscheck(bechi, variant, SLOW_FACTOR * games, seed=1000) > 0
