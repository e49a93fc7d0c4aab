"""A position on the command line: whole or only its body, the same in every command."""

from __future__ import annotations

import griot
import pytest
from click.testing import CliRunner
from griot.cli import main
from griot.positions import position_arg

WHOLE = "abapa 4,4,4,4,4,4/4,4,4,4,4,0 0-4 S 0 -"
BODY = WHOLE.split(" ", 1)[1]


@pytest.mark.parametrize(
    "variant", ["abapa", "bechi", "ikibuguzo", "sabouiyya", "leb-bbut-ahbochen(holes=4)"]
)
def test_whole_body_and_start_name_the_same_position(variant: str) -> None:
    start = griot.Variant(variant).start()
    body = str(start).split(" ", 1)[1]
    assert position_arg(variant, str(start)) == start
    assert position_arg(variant, body) == start
    assert position_arg(variant, None) == start
    assert position_arg(variant, "  ") == start


def test_a_whole_position_of_another_variant_is_refused() -> None:
    with pytest.raises(griot.NotationError, match="of abapa, not awale"):
        position_arg("awale", WHOLE)
    with pytest.raises(griot.NotationError):
        position_arg("abapa", "4,4 0-0 S 0 -")


@pytest.mark.parametrize(
    "command", [["show", "abapa"], ["analyze", "abapa", "--depth", "2", "--gateway", "off"]]
)
@pytest.mark.parametrize("text", [WHOLE, BODY])
def test_show_and_analyze_take_either_form(command: list[str], text: str) -> None:
    result = CliRunner().invoke(main, [*command, "--position", text])
    assert result.exit_code == 0, result.output
    assert "N 4" in result.output or "0-4" in result.output


def test_analyze_piped_ends_the_table_before_the_best_move() -> None:
    result = CliRunner().invoke(main, ["analyze", "abapa", "--depth", "2", "--gateway", "off"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    best = [line for line in lines if "best move" in line]
    assert best and best[-1].startswith("best move "), result.output


def test_show_says_the_refill_and_the_holes_out_of_play() -> None:
    # A rule file played in rounds: griot show names the refill between rounds and the holes out
    # of play, and lists the one refill move.
    out = CliRunner().invoke(
        main, ["show", "erherhe", "-p", "erherhe 4,0,0,0,0,0/0,0,0,0,0,0 14-30 N 33 refill"]
    )
    assert out.exit_code == 0, out.output
    assert "between rounds: refilling" in out.output and "fill:A" in out.output
    out = CliRunner().invoke(
        main, ["show", "erherhe", "-p", "erherhe 0,0,0,0,1,3/4,4,4,4,2,0 18-8 N 31 off=abcdF"]
    )
    assert "out of play: abcdF" in out.output
