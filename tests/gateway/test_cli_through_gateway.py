"""The CLI's analysis commands against the real stack: `griot analyze`, `griot analyze-game` and
`griot play` through a running gateway (redis-server, Celery workers, rules service, gateway on loopback)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from gateway_stack import Gateway
from griot.cli import main
from griot.record import load


def test_analyze_through_the_gateway(gateway: Gateway) -> None:
    result = CliRunner().invoke(main, ["analyze", "abapa", "--depth", "8", "--gateway", gateway.target])
    assert result.exit_code == 0, result.output
    assert "best move" in result.output
    # The progress line names the gateway it went through ("via host:port"; rich may wrap it).
    assert "via" in result.output and gateway.target.split(":")[1] in result.output.replace("\n", "")
    assert "depth 8 · " in result.output and " nodes/s · via " in result.output
    # The same question again is answered from the cache, which searched no nodes this time.
    again = CliRunner().invoke(main, ["analyze", "abapa", "--depth", "8", "--gateway", gateway.target])
    assert again.exit_code == 0, again.output
    assert "depth 8 · from the cache · via " in again.output and "nodes/s" not in again.output
    assert again.output.splitlines()[-1].startswith("best move ")


def test_analyze_game_through_the_gateway_writes_report_and_graph(gateway: Gateway, tmp_path: Path) -> None:
    record = tmp_path / "game.griot"
    record.write_text('[Variant "abapa"]\n\n1. c 2. D 3. b 4. E\n')
    png = tmp_path / "graph.png"
    result = CliRunner().invoke(
        main, ["analyze-game", str(record), "--depth", "6", "--png", str(png), "--gateway", gateway.target]
    )
    assert result.exit_code == 0, result.output
    # One row a turn with the played move, and a summary row per player.
    for move in ("c", "D", "b", "E"):
        assert f" {move} " in result.output
    assert "South" in result.output and "North" in result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_play_through_the_gateway_reads_like_play_in_process(
    gateway: Gateway, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    script = "eval\nc\nsave game.griot\nquit\n"
    result = CliRunner().invoke(
        main, ["play", "abapa", "--level", "2", "--gateway", gateway.target], input=script
    )
    assert result.exit_code == 0, result.output
    # eval: one line in words (the side, the score, the depth, the best move), not a message dump
    evaluation = next(line for line in result.output.splitlines() if line.startswith("evaluation: "))
    assert (
        evaluation.startswith("evaluation: South ") and " at depth " in evaluation and "· best " in evaluation
    )
    assert "{" not in result.output and "move_scores" not in result.output
    # after the person's c, the board is shown before the engine answers
    after_c = result.output.split("> c", 1)[1]
    assert 0 <= after_c.index(" 0 c ") < after_c.index("North plays ")
    # the record names the engine, not the address it was reached at
    rec = load(tmp_path / "game.griot")
    assert rec.tags["North"] == "Griot engine, level 2"
    assert gateway.target not in (tmp_path / "game.griot").read_text()
