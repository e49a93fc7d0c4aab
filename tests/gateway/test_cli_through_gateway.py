"""The CLI's analysis commands against the real stack: `griot analyze` and `griot analyze-game`
through a running gateway (redis-server, Celery workers, rules service, gateway on loopback)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from gateway_stack import Gateway
from griot.cli import main


def test_analyze_through_the_gateway(gateway: Gateway) -> None:
    result = CliRunner().invoke(main, ["analyze", "abapa", "--depth", "8", "--gateway", gateway.target])
    assert result.exit_code == 0, result.output
    assert "best move" in result.output
    # The progress line names the gateway it went through ("via host:port"; rich may wrap it).
    assert "via" in result.output and gateway.target.split(":")[1] in result.output.replace("\n", "")


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
