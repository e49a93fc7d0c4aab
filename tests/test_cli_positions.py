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
