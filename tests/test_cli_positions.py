"""A position on the command line: whole or only its body, the same in every command."""

from __future__ import annotations

import griot
import pytest
from click.testing import CliRunner
from griot.cli import main
from griot.positions import FORMS, position_arg

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


# A few seeds left: in the endgame databases of up to 3 seeds, and a different board from the start.
ENDING = "abapa 0,0,0,1,0,0/1,0,0,0,0,1 22-23 S 80 -"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A tiny opening book and endgame databases for the probes."""
    root = tmp_path_factory.mktemp("positions")
    book, egdb = str(root / "abapa.book"), str(root / "egdb")
    for args in (
        ["book", "build", "abapa", "--plies", "1", "--depth", "2", "--out", book],
        ["egdb", "build", "abapa", "--seeds", "3", "--local", "--dir", egdb],
    ):
        out = CliRunner().invoke(main, args)
        assert out.exit_code == 0, out.output
    return {"book": book, "egdb": egdb}


def _commands(files: dict[str, str]) -> dict[str, tuple[list[str], list[str]]]:
    """Each command that takes a position: the options before and after it."""
    return {
        "show": (["show"], []),
        "perft": (["perft"], ["3"]),
        "analyze": (["analyze"], ["--depth", "2", "--gateway", "off"]),
        "play": (["play"], ["--gateway", "off"]),
        "egdb probe": (["egdb", "probe"], ["--moves", "--dir", files["egdb"]]),
        "book probe": (["book", "probe"], ["--book", files["book"]]),
    }


def _forms(whole: str) -> list[list[str]]:
    """Every way of giving ``whole``: as one argument, unquoted, with --position, a variant and its
    body (with --position or as the argument)."""
    variant, body = whole.split(" ", 1)
    return [[whole], whole.split(), ["--position", whole], [variant, "-p", body], [variant, body]]


def _run(args: list[str]) -> str:
    out = CliRunner().invoke(main, args, input="quit\n")
    assert out.exit_code == 0, (args, out.output)
    lines = out.stdout.splitlines()
    # analyze's table carries its nodes per second; its first line is the position it searches.
    return lines[0] if args[0] == "analyze" else out.stdout


@pytest.mark.parametrize("command", ["show", "perft", "analyze", "play", "egdb probe", "book probe"])
def test_every_command_takes_a_position_in_every_form(command: str, files: dict[str, str]) -> None:
    head, tail = _commands(files)[command]
    whole = ENDING if command == "egdb probe" else WHOLE
    outputs = {" ".join(form): _run([*head, *form, *tail]) for form in _forms(whole)}
    assert len(set(outputs.values())) == 1, outputs
    if command not in ("egdb probe", "book probe"):  # a probe needs a whole position
        start = _run([*head, "abapa", *tail])
        assert start not in outputs.values(), start


@pytest.mark.parametrize("command", ["show", "perft", "analyze", "play", "egdb probe", "book probe"])
@pytest.mark.parametrize("bad", [["abapa", "4,4"], ["--position", "4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"], []])
def test_a_bad_position_gets_one_line_that_lists_the_forms(
    command: str, bad: list[str], files: dict[str, str]
) -> None:
    head, tail = _commands(files)[command]
    out = CliRunner().invoke(main, [*head, *bad, *tail], input="quit\n")
    assert out.exit_code == 2, out.output
    lines = [line for line in out.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and FORMS in lines[0], out.output


def test_a_variant_alone_that_is_unknown_says_only_that() -> None:
    out = CliRunner().invoke(main, ["show", "abap"])
    assert out.exit_code == 2 and 'unknown variant "abap"' in out.output and FORMS not in out.output
