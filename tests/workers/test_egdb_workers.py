"""The distributed endgame-database build on real Celery workers and Redis: the same files as the
in-process build, and a build stopped mid-level that resumes to byte-identical files."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import pytest
import redis
from click.testing import CliRunner
from griot import egdb
from griot._core import egdb_level_info
from griot.cli import main
from griot.egdb_build import build
from griot.tasks.args import SEARCH_POSITION, position_args
from workers_stack import Stack, make_stack

# Every test here ends within 300 s or fails on its own (pytest-timeout).
pytestmark = pytest.mark.timeout(300)


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.egdb"))}


@pytest.mark.slow
def test_levels_built_across_workers_equal_the_local_build(two_workers: Stack, tmp_path: Path) -> None:
    app = two_workers.app()
    local, across = tmp_path / "local", tmp_path / "across"
    egdb.build("abapa(holes=3)", 7, local)
    events: list[dict[str, object]] = []
    assert build(app, "abapa(holes=3)", 7, across, chunks=3, timeout=120, progress=events.append)
    assert _files(across) == _files(local) and len(_files(local)) == 8
    # Several passes a level, each a group of three chunks.
    assert max(int(str(e["pass"])) for e in events if e["event"] == "pass") >= 3
    # Built again: every level kept, nothing sent.
    again: list[dict[str, object]] = []
    assert build(app, "abapa(holes=3)", 7, across, chunks=3, timeout=120, progress=again.append)
    assert [e["event"] for e in again] == ["kept"] * 8


@pytest.mark.slow
def test_the_command_builds_across_the_workers_named_by_the_broker(
    two_workers: Stack, tmp_path: Path
) -> None:
    """``griot egdb build`` without ``--local``: the command's own Celery client (the library's,
    from the broker's URL) sends the workers' tasks by name."""
    local, across = tmp_path / "local", tmp_path / "across"
    egdb.build("abapa(holes=3)", 5, local)
    argv = ["egdb", "build", "abapa(holes=3)", "--seeds", "5", "--chunks", "2", "--dir", str(across)]
    result = CliRunner().invoke(main, [*argv, "--broker-url", two_workers.broker.url])
    assert result.exit_code == 0, result.output
    assert "level   5: written" in result.output
    assert _files(across) == _files(local) and len(_files(local)) == 6


@pytest.mark.slow
def test_a_build_stopped_mid_level_resumes_to_identical_files(two_workers: Stack, tmp_path: Path) -> None:
    app = two_workers.app()
    local, across = tmp_path / "local", tmp_path / "across"
    egdb.build("leb-bbut-ahbochen(holes=2)", 10, local)
    # Stopped after 20 passes in all: in the middle of a level, its last pass's bounds kept.
    assert not build(app, "leb-bbut-ahbochen(holes=2)", 10, across, chunks=2, timeout=120, pass_limit=20)
    assert list(across.rglob("bounds.*.all")), "a level's state is kept"
    # A worker killed in between does not matter: the tasks are plain functions of the files.
    victim = two_workers.workers[0]
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=10)
    two_workers.workers.remove(victim)
    two_workers.start_worker("w3")
    two_workers.wait_ready(app, 2)
    assert build(app, "leb-bbut-ahbochen(holes=2)", 10, across, chunks=2, timeout=120)
    assert _files(across) == _files(local) and len(_files(local)) == 11
    assert not list(across.rglob("*.work"))


def test_bounds_an_older_format_left_are_started_over(two_workers: Stack, tmp_path: Path) -> None:
    """A level's work directory an interrupted build of an older format left (bounds without this
    format's mark) is no point to go on from: the build starts that level's bounds over."""
    app = two_workers.app()
    variant = "abapa(holes=3)"
    local, across = tmp_path / "local", tmp_path / "across"
    egdb.build(variant, 3, local)
    assert build(app, variant, 2, across, chunks=2, timeout=120)
    positions, level = egdb_level_info(variant, across.resolve(), 3)
    work = Path(level).with_suffix(".work")
    work.mkdir()
    # Each lower bound above and each upper bound below any margin: where the two differ (a
    # cycle), the passes would carry them to the wrong fixpoints.
    (work / "bounds.0.all").write_bytes(bytes([100, 256 - 100]) * positions)
    assert build(app, variant, 3, across, chunks=2, timeout=120)
    assert _files(across) == _files(local) and len(_files(local)) == 4
    assert not work.exists()


@pytest.mark.slow
def test_a_build_whose_redis_restarts_mid_level_resumes_to_identical_files(tmp_path: Path) -> None:
    local, across = tmp_path / "local", tmp_path / "across"
    variant = "leb-bbut-ahbochen(holes=2)"
    egdb.build(variant, 10, local)
    # A stack of its own: the restart is not the other tests' business.
    s = make_stack()
    outcome: dict[str, object] = {}
    try:
        app = s.app()
        s.start_worker("r1")
        s.start_worker("r2")
        s.wait_ready(app, 2)
        mid_level = threading.Event()

        def progress(e: dict[str, object]) -> None:
            # Level 9's second pass is done: its bounds are on disk, its next group is under way.
            if e["event"] == "pass" and e["seeds"] == 9 and int(str(e["pass"])) >= 1:
                mid_level.set()

        def run() -> None:
            try:
                outcome["done"] = build(app, variant, 10, across, chunks=2, timeout=20, progress=progress)
            except Exception as exc:  # the restart may lose the group's results: any error stops it
                outcome["error"] = exc

        first = threading.Thread(target=run, daemon=True)
        first.start()
        assert mid_level.wait(timeout=120), "the build did not reach level 9"
        assert list(across.rglob("*.work")), "a level is in flight"
        # The broker and result store (one redis-server, no persistence) restarted on its port:
        # the queued tasks and the results of the group in flight are gone.
        s.broker.restart(down_for=0.5)
        first.join(timeout=60)
        assert not first.is_alive()
        # A new caller, as a new `griot egdb build` would be; the workers reconnect on their own.
        again = s.app()
        deadline = time.monotonic() + 60
        while True:
            try:
                s.wait_ready(again, 2, timeout=10)
                break
            except (redis.ConnectionError, RuntimeError):
                # A pooled connection from before the restart fails once; the next is new.
                if time.monotonic() > deadline:
                    raise
        assert build(again, variant, 10, across, chunks=2, timeout=120)
        assert _files(across) == _files(local) and len(_files(local)) == 11
        assert not list(across.rglob("*.work"))
    finally:
        # The first build's error holds its results through its traceback: freed while Redis runs.
        outcome.clear()
        s.stop()


def test_a_damaged_level_stops_the_build(two_workers: Stack, tmp_path: Path) -> None:
    app = two_workers.app()
    egdb.build("awale(holes=2)", 4, tmp_path)
    level = next(tmp_path.rglob("003.egdb"))
    level.write_bytes(level.read_bytes()[:-1])
    with pytest.raises(egdb.EgdbError, match="refused"):
        build(app, "awale(holes=2)", 5, tmp_path, timeout=60)


def test_workers_search_with_the_databases_of_their_directory(tmp_path: Path) -> None:
    import griot

    egdb.build("abapa(holes=3)", 6, tmp_path)
    db = egdb.open_databases("abapa(holes=3)", tmp_path)
    # South wins by 2 with best play: a keeps it, b draws.
    position = "abapa(holes=3) 1,2,0/2,0,1 9-9 S 11 -"
    exact = griot.search(griot.Position(position), depth=6, egdb=db)
    plain = griot.search(griot.Position(position), depth=6)
    # The databases cut the search at the root's children: far fewer nodes.
    assert exact.nodes < plain.nodes
    s = make_stack()
    try:
        app = s.app()
        # GRIOT_EGDB_DIR, the setting the CLI and `griot up` share.
        s.start_worker("e1", extra_env={"GRIOT_EGDB_DIR": str(tmp_path)})
        s.wait_ready(app, 1)
        got = app.send_task(SEARCH_POSITION, kwargs=position_args("abapa(holes=3)", position, depth=6)).get(
            timeout=60
        )
        assert (got["value"], got["nodes"]) == (exact.score.value, exact.nodes)
        # The result carries the databases' result, stores included.
        assert got["exact"] == {"result": "win", "margin": 2}
        won = position
        pos = griot.Position(won)
        assert egdb.sentence(db.probe(pos), pos) == "South wins by 2 with best play"
        every = app.send_task(
            SEARCH_POSITION, kwargs=position_args("abapa(holes=3)", won, depth=4, multipv=0)
        ).get(timeout=60)
        assert every["exact"] == egdb.exact(db, pos) == {"result": "win", "margin": 2}
        # Each move's result for the mover: a keeps the win, b draws.
        exacts = {m["move"]: m.get("exact") for m in every["moves"]}
        assert exacts == {"a": {"result": "win", "margin": 2}, "b": {"result": "draw", "margin": 0}}
        # South's best move here, c, captures into a position valued by a cycle, whose result a
        # repetition may decide: neither c nor the position is exact.
        cycle = "abapa(holes=3) 2,1,1/1,1,0 9-9 S 11 -"
        pos = griot.Position(cycle)
        assert db.probe(pos.play("c")).cycle and db.probe(pos).cycle
        every = app.send_task(
            SEARCH_POSITION, kwargs=position_args("abapa(holes=3)", cycle, depth=4, multipv=0)
        ).get(timeout=60)
        assert "exact" not in every
        assert {m["move"]: m.get("exact") for m in every["moves"]}["c"] is None
        # Out of the databases' range (24 seeds on the board): no exact result.
        start = "abapa(holes=3) 4,4,4/4,4,4 0-0 S 0 -"
        heuristic = app.send_task(
            SEARCH_POSITION, kwargs=position_args("abapa(holes=3)", start, depth=4)
        ).get(timeout=60)
        assert "exact" not in heuristic and "exact" not in heuristic["moves"][0]
        # The worker says which databases it opened: over the control channel, as `griot status` asks.
        replies = app.control.broadcast("griot_databases", reply=True, timeout=5)
        assert [next(iter(r.values())) for r in replies] == [
            {"dir": str(tmp_path), "databases": [{"rules": "abapa(holes=3)", "max_seeds": 6}]}
        ]
        from griot import monitor

        report = monitor.collect(rules=None, gateway=None, broker_url=s.broker_url, cache_url=None)
        (entry,) = report.databases["workers"].values()
        assert entry["databases"] == [{"rules": "abapa(holes=3)", "max_seeds": 6}]
    finally:
        s.stop()
