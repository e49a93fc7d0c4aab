"""A match and an opening book on real Celery workers and Redis: the same games and the same book
as in this process (depth-limited searches are deterministic), through the task client."""

from __future__ import annotations

from pathlib import Path

import griot
import pytest
from click.testing import CliRunner
from griot import book as books
from griot.cli import main
from griot.match import EngineSpec, MatchError, game_record, run_match
from griot.record import dumps
from griot.tasks.blocking import games_runner
from workers_stack import Stack

ABAPA = griot.Variant("abapa")


# Every test here ends within 120 s or fails on its own (pytest-timeout).
pytestmark = pytest.mark.timeout(120)


def test_a_ten_game_match_on_the_workers_plays_the_local_games(two_workers: Stack) -> None:
    a, b = EngineSpec.parse("griot;depth=3;hash=4"), EngineSpec.parse("griot;depth=2;hash=4;eval=material")
    local = run_match(ABAPA, a, b, games=10, plies=2, seed=7)
    seen: list[int] = []
    across = run_match(
        ABAPA,
        a,
        b,
        games=10,
        plies=2,
        seed=7,
        games_runner=games_runner(two_workers.app()),
        on_game=lambda g, s: seen.append(s.games),
    )
    assert seen == list(range(1, 11))
    assert [dumps(game_record(ABAPA, g, a, b)) for g in across.games] == [
        dumps(game_record(ABAPA, g, a, b)) for g in local.games
    ]
    assert across.stats.points == local.stats.points
    assert across.stats.games == 10 and sum(across.stats.wdl) == 10
    assert len({tuple(g.opening) for g in across.games}) == 5


def test_a_game_that_fails_on_a_worker_fails_the_match_with_its_reason(two_workers: Stack) -> None:
    a = EngineSpec.parse("griot;depth=2;book=/nonexistent/abapa.book")
    with pytest.raises(MatchError, match=r"game 1 failed on the workers: MatchError.*abapa\.book"):
        run_match(
            ABAPA, a, EngineSpec.parse("griot;depth=1"), games=2, games_runner=games_runner(two_workers.app())
        )


def test_the_match_command_runs_its_games_on_the_workers(two_workers: Stack) -> None:
    argv = ["match", "griot;depth=2;hash=4", "griot;depth=1;hash=4", "--games", "2", "--plies", "2"]
    local = CliRunner().invoke(main, argv)
    across = CliRunner().invoke(main, [*argv, "--workers", "--broker-url", two_workers.broker.url])
    assert local.exit_code == 0, local.output
    assert across.exit_code == 0, across.output
    summary = [line for line in local.output.splitlines() if line.startswith("A: ")]
    assert summary and summary[0].startswith("A: score") and "over 2 games" in summary[0]
    assert summary == [line for line in across.output.splitlines() if line.startswith("A: ")]


def test_a_book_built_on_the_workers_equals_the_book_built_in_process(
    two_workers: Stack, tmp_path: Path
) -> None:
    local = books.build("abapa", 2, 4, books.local_evaluator())
    local.write(tmp_path / "local.book")
    argv = ["book", "build", "abapa", "--plies", "2", "--depth", "4", "-o", str(tmp_path / "across.book")]
    result = CliRunner().invoke(main, [*argv, "--workers", "--broker-url", two_workers.broker.url])
    assert result.exit_code == 0, result.output
    assert "43 positions" in result.output
    assert (tmp_path / "across.book").read_text() == (tmp_path / "local.book").read_text()
    # Every position within two turns of the start is in it, with a legal best move.
    start = ABAPA.start()
    assert len(local) == 1 + 6 + 36
    entry = local.probe(start)
    assert entry is not None and entry.depth == 6 and entry.ply == 0
    # The start's move is the best of its children's backed-up values.
    values = {}
    for m in start.legal_moves():
        child = local.probe(start.play(m))
        assert child is not None
        values[m.text] = books.backed_up(start, start.play(m), child.value)
    assert entry.value == max(values.values()) and values[entry.best] == entry.value
