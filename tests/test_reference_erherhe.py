"""One test per rule for the pure-Python reference of Érhérhé (tests/reference/erherhe.py).

Every expected position was worked out by hand from docs/rules/erherhe.md; the seeds of each
position add up to 48 (board + stores), so the same positions can be fed to the core.
"""

import pytest

from tests.reference import erherhe


def test_start_and_variant_strings() -> None:
    assert erherhe.start("erherhe") == "erherhe 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"
    assert (
        erherhe.start("erherhe(max_turns=9,holes=4)")
        == "erherhe(holes=4,max_turns=9) 4,4,4,4/4,4,4,4 0-0 S 0 -"
    )
    for bad in ("erherhe(holes=17)", "erherhe(colour=2)", "abapa"):
        with pytest.raises(ValueError):
            erherhe.start(bad)


def test_sowing_skips_holes_out_of_play_then_the_round_ends() -> None:
    # E's 2 seeds skip F and a..d: e makes 2, f makes 4; f and its neighbour e are taken, South's
    # row is empty: each takes their own row, South refills first.
    pos = "erherhe 0,0,0,0,1,3/4,4,4,4,2,0 18-8 N 31 off=abcdF"
    assert erherhe.play(pos, "E") == "erherhe 0,0,0,0,0,0/0,0,0,0,0,0 18-30 S 32 refill"
    assert erherhe.play("erherhe 0,0,0,0,1,3/4,4,4,4,2,0 18-8 N 31 -", "E") == (
        "erherhe 1,0,0,0,1,3/4,4,4,4,0,1 18-8 S 32 -"
    )


def test_neighbours_out_of_play_are_not_taken() -> None:
    pos = "erherhe 4,4,0,0,0,1/1,0,2,4,4,4 10-14 S 40 off=cdeB"
    assert erherhe.play(pos, "f") == "erherhe 4,4,0,0,0,0/0,0,2,4,4,4 12-14 N 41 off=cdeB"


def test_the_refill_alternates_until_two_passes_in_a_row() -> None:
    pos = "erherhe 0,0,0,0,0,0/0,0,0,0,0,0 18-30 S 32 refill"
    for mv in [
        "fill:a",
        "fill:A",
        "fill:b",
        "fill:B",
        "fill:c",
        "fill:C",
        "fill:d",
        "fill:D",
        "fill:e",
        "fill:E",
    ]:
        assert erherhe.legal_moves(pos) == [mv]
        pos = erherhe.play(pos, mv)
    assert pos == "erherhe 4,4,4,4,2,0/4,4,4,4,4,0 0-10 S 42 refill"
    pos = erherhe.play(pos, "pass")
    assert pos == "erherhe 4,4,4,4,2,0/4,4,4,4,4,0 0-10 N 43 refill,passed"
    pos = erherhe.play(erherhe.play(pos, "fill:F"), "pass")
    assert pos == "erherhe 4,4,4,4,2,0/4,4,4,4,4,4 0-6 N 45 refill,passed"
    assert erherhe.play(pos, "pass") == "erherhe 4,4,4,4,2,0/4,4,4,4,4,4 0-6 S 46 off=f"


def test_an_empty_store_after_a_round_loses_the_match() -> None:
    pos = erherhe.play("erherhe 0,0,0,0,0,1/0,0,0,0,0,3 0-44 S 60 -", "f")
    assert pos == "erherhe 0,0,0,0,0,0/0,0,0,0,0,0 0-48 N 61 refill"
    assert erherhe.outcome(pos) == {"winner": "N", "score": (0, 48), "reason": "match-lost"}
    assert erherhe.legal_moves(pos) == []


def test_the_turn_limit_adds_each_row() -> None:
    o = erherhe.outcome("erherhe(max_turns=10) 4,4,4,4,2,0/4,4,4,4,4,4 0-6 S 10 off=f")
    assert o == {"winner": "N", "score": (18, 30), "reason": "turn-limit"}
