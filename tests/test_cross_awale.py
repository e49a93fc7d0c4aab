"""The core against the independent reference (tests/reference/awale.py) on random games."""

from __future__ import annotations

import pytest
from crosscheck import crosscheck
from reference import awale

OPTIONS = [
    "abapa(holes=4,seeds=3)",
    "awale(holes=5)",
    "oware(seeds=3)",
    "2-4(holes=4)",
    "nyakun(holes=4,seeds=2)",
]


@pytest.mark.parametrize("variant", awale.VARIANTS + awale.READINGS + OPTIONS)
def test_core_agrees_with_reference(variant: str) -> None:
    turns, disagreements = crosscheck(awale, variant, games=60, seed=20261122)
    assert not disagreements, "\n".join(map(str, disagreements))
    assert turns > 200


@pytest.mark.slow
@pytest.mark.parametrize("variant", awale.VARIANTS)
def test_core_agrees_with_reference_long(variant: str) -> None:
    turns, disagreements = crosscheck(awale, variant, games=400, seed=7)
    assert not disagreements, "\n".join(map(str, disagreements))
    assert turns > 1000
