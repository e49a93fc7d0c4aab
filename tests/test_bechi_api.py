"""Béchi and Leb Bbut Ahbochen through the Python API and the CLI: errors, events, rendering."""

from __future__ import annotations

import griot
import pytest
from click.testing import CliRunner
from griot.cli import main
from griot.render import bechi_state


def test_bechi_is_listed_with_its_options() -> None:
    info = next(i for i in griot.variants() if i.id == "bechi")
    assert {o.name for o in info.options} == {
        "holes",
        "empty_breaks_chain",
        "empty_holes_in_play",
        "chain_max",
        "first_pass_starts",
        "ludii",
        "max_turns",
    }
    assert str(info.variant(holes=3, empty_breaks_chain=False)) == "bechi(empty_breaks_chain=false,holes=3)"


@pytest.mark.parametrize(
    ("position", "move", "code"),
    [
        ("bechi 1,0,2,1/6,6,6,6 10-10 S 4 1 play - - 0-0", "a", "too_few_seeds"),
        ("bechi 1,0,2,1/6,6,6,6 10-10 S 4 1 play - - 0-0", "A", "not_own_hole"),
        ("bechi 1,0,2,1/6,6,6,6 10-10 S 4 1 play - - 0-0", "pass", "cannot_pass"),
        ("bechi 1,1,5,0/0,0,0,0 28-13 N 13 1 play bD - 0-0", "A", "must_pass"),
        ("bechi 0,6,2,3/0,0,2,5 4-4 S 30 2 play d aAB 14-8", "a", "hole_out_of_play"),
        ("bechi 0,0,0,0/0,0,0,0 32-16 S 15 1 fill-S - - 0-0", "a", "wrong_phase"),
        ("bechi 6,6,6,6/0,0,0,0 0-16 N 16 1 fill-N - - 8-0", "fill:A", "bad_fill"),
        ("bechi 0,0,0,0/0,0,0,0 31-4 S 61 3 over - - 12-1", "fill:abcd", "game_over"),
    ],
)
def test_illegal_moves_say_why(position: str, move: str, code: str) -> None:
    with pytest.raises(griot.IllegalMoveError) as err:
        griot.Position(position).play(move)
    assert err.value.code == code


def test_parse_errors_name_the_field() -> None:
    with pytest.raises(griot.NotationError, match=r"field 9 \(off\)"):
        griot.Position("bechi 6,6,6,6/6,6,6,6 0-0 S 0 1 play - a 0-0")


def test_events_of_a_round_end_and_a_refill() -> None:
    pos = griot.Position("bechi 1,1,5,0/0,0,0,0 28-13 S 14 1 play bD - 0-0")
    ended, events = pos.play_with_events("c")
    assert events[0].kind == "lap"
    assert ("note", "round_end") in [(e.kind, e.detail) for e in events]
    assert [e.detail for e in events if e.kind == "capture"] == ["remaining"] * 7
    _, events = ended.play_with_events("fill:abcd")
    assert [(e.kind, e.cell, e.seeds) for e in events] == [("fill", i, 6) for i in range(4)]


def test_bechi_state_and_cli_show() -> None:
    text = "bechi 5,6,6,3/0,0,6,5 2-3 S 30 2 play cD AB 6-6"
    assert bechi_state(griot.Position(text)) == {
        "round": "2",
        "phase": "play",
        "moved": "cD",
        "off": "AB",
        "carry": "6-6",
    }
    out = CliRunner().invoke(main, ["show", "bechi", "-p", text]).output
    assert "round 2 (play)" in out and "aside S 6 - N 6" in out and "x A" in out


def test_bechi_state_with_the_first_to_pass() -> None:
    text = "bechi(ludii=true) 0,0,0,0/0,0,0,0 21-12 S 31 1 fill-S - - 1-1 S"
    state = bechi_state(griot.Position(text))
    assert state is not None and state["passed"] == "S" and state["carry"] == "1-1"
    out = CliRunner().invoke(main, ["show", "bechi(ludii=true)", "-p", text]).output
    assert "South passed first" in out


def test_cli_refuses_other_leb_board_sizes() -> None:
    result = CliRunner().invoke(main, ["show", "leb-bbut-ahbochen(holes=5)"])
    assert result.exit_code == 2
    assert "2, 4, 6, 8, 10" in result.output
