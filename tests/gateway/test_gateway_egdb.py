"""Exact results from the endgame databases through the gateway (real gateway, a real worker, real
Redis): an evaluation the worker's databases decide arrives marked exact with its final margin,
from the search and again from the cache; a heuristic one does not; a game's report marks its
exact moves; the worker and the gateway report the databases they opened.

The worker and the gateway are given different directories: the worker has Abapa 2x3's levels,
the gateway only Abapa 2x2's, so an exact 2x3 result can only have come from the worker's task
result and the cache entry."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import griot
import pytest
from gateway_stack import Gateway, make_stack
from griot import egdb, monitor
from griot.client import AnalysisClient, score_sentence, search_limits
from griot.v1 import analysis_pb2, common_pb2
from workers_stack import Stack

VARIANT = "abapa(holes=3)"
#: South to move wins by 2 with best play (stores 9-9, six seeds on the board): a keeps it, b
#: draws.
WON = "abapa(holes=3) 1,2,0/2,0,1 9-9 S 11 -"
#: Valued by a cycle: its best move, c, captures into a position valued by a cycle.
CYCLE = "abapa(holes=3) 2,1,1/1,1,0 9-9 S 11 -"
START = "abapa(holes=3) 4,4,4/4,4,4 0-0 S 0 -"


# Every test here ends within 120 s or fails on its own (pytest-timeout).
pytestmark = pytest.mark.timeout(120)


@dataclass
class Setup:
    stack: Stack
    gateway: Gateway
    worker_dir: Path
    gateway_dir: Path
    db: griot.Egdb


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    worker_dir, gateway_dir = tmp_path_factory.mktemp("worker-egdb"), tmp_path_factory.mktemp("gateway-egdb")
    egdb.build(VARIANT, 6, worker_dir)
    egdb.build("abapa(holes=2)", 3, gateway_dir)
    s = make_stack()
    s.env["GRIOT_QUEUES"] = ""
    try:
        app = s.app()
        s.start_worker("egdb1", extra_env={"GRIOT_EGDB_DIR": str(worker_dir)})
        s.wait_ready(app, 1)
        s.env["GRIOT_EGDB_DIR"] = str(gateway_dir)
        g = Gateway(s, ["--default-depth", "4"]).start()
        try:
            yield Setup(s, g, worker_dir, gateway_dir, egdb.open_databases(VARIANT, worker_dir))
        finally:
            g.stop()
    finally:
        s.stop()


def _final(client: AnalysisClient, position: str, all_moves: bool = False) -> analysis_pb2.Evaluation:
    msgs = list(
        client.evaluate(position, search_limits(max_depth=4), include_move_scores=all_moves, timeout=60)
    )
    assert msgs[-1].evaluation.final
    return msgs[-1].evaluation


def test_an_exact_result_arrives_marked_exact_and_a_heuristic_one_does_not(setup: Setup) -> None:
    pos = griot.Position(WON)
    with AnalysisClient(setup.gateway.target) as client:
        e = _final(client, WON, all_moves=True)
        assert not e.from_cache
        assert e.score.source == common_pb2.SCORE_SOURCE_DATABASE
        assert e.score.WhichOneof("value") == "wins_in" and e.score.final_margin == 2
        # The client's sentence is the databases' own.
        assert score_sentence(e.score, "S") == egdb.sentence(setup.db.probe(pos), pos)
        assert score_sentence(e.score, "S") == "South wins by 2 with best play"
        moves = {m.move: m.score for m in e.move_scores}
        assert {m: (moves[m].WhichOneof("value"), moves[m].final_margin) for m in "ab"} == {
            "a": ("wins_in", 2),
            "b": ("draw", 0),
        }
        assert all(moves[m].source == common_pb2.SCORE_SOURCE_DATABASE for m in "ab")
        # c captures into a position valued by a cycle: neither c nor the position it is played
        # from is exact, so neither is the databases' score.
        cyc = griot.Position(CYCLE)
        assert setup.db.probe(cyc.play("c")).cycle and setup.db.probe(cyc).cycle
        c = _final(client, CYCLE, all_moves=True)
        assert c.score.source != common_pb2.SCORE_SOURCE_DATABASE
        assert {m.move: m.score for m in c.move_scores}["c"].source != common_pb2.SCORE_SOURCE_DATABASE
        # From the cache, still exact.
        again = _final(client, WON, all_moves=True)
        assert again.from_cache and again.score == e.score
        # Twenty-four seeds on the board: out of the databases' range, a heuristic score.
        h = _final(client, START)
        assert h.score.source == common_pb2.SCORE_SOURCE_HEURISTIC and h.score.WhichOneof("value") == "centi"
        assert not h.score.HasField("final_margin") and score_sentence(h.score, "S") is None
        best = client.best_move(WON, level=10, timeout=60)
        assert best.move == "a" and best.score.final_margin == 2


def test_a_game_report_marks_its_exact_moves(setup: Setup) -> None:
    with AnalysisClient(setup.gateway.target) as client:
        msgs = list(
            client.analyze_game(
                VARIANT, ["b"], start_position=WON, limits=search_limits(max_depth=4), timeout=60
            )
        )
    report = msgs[-1].report
    (turn,) = report.turns
    # South played b (a draw) where a wins by 2: a blunder, every score exact.
    assert turn.best_move == "a" and turn.best_score.final_margin == 2
    assert turn.played_score.WhichOneof("value") == "draw" and turn.played_score.final_margin == 0
    assert turn.south_score.source == common_pb2.SCORE_SOURCE_DATABASE
    assert turn.classification == analysis_pb2.MOVE_CLASSIFICATION_BLUNDER
    assert turn.loss == 200  # the two seeds of the win given away


def test_the_worker_and_the_gateway_report_their_databases(setup: Setup) -> None:
    deadline = time.monotonic() + 30
    while True:
        report = monitor.collect(
            rules=None,
            gateway=setup.gateway.target,
            broker_url=setup.stack.broker_url,
            cache_url=setup.stack.cache.url,
        )
        if report.databases.get("gateways") or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    (worker,) = report.databases["workers"].values()
    assert worker == {"dir": str(setup.worker_dir), "databases": [{"rules": VARIANT, "max_seeds": 6}]}
    (gateway,) = report.databases["gateways"].values()
    assert gateway == {
        "dir": str(setup.gateway_dir),
        "databases": [{"rules": "abapa(holes=2)", "max_seeds": 3}],
    }
