"""The names the gateway shares with the core and the workers: scores from the core's encoding,
priorities and their queues from one reader of ``GRIOT_QUEUES``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import griot
import pytest
from griot import scores
from griot.priority import Priority
from griot.v1 import analysis_pb2

ROOT = Path(__file__).resolve().parents[2]


def test_score_message_counts_proven_results_in_the_movers_turns() -> None:
    assert scores.WIN_BOUND == griot.WIN_BOUND
    assert scores.score_message(250).centi == 250
    assert scores.score_message(griot.WIN_BOUND - 1).centi == griot.WIN_BOUND - 1
    # Both players' turns in the core's value; the mover's own turns on the wire.
    win = {n: scores.score_message(griot.WIN - n) for n in (0, 1, 2, 3, 8)}
    assert {n: m.wins_in for n, m in win.items()} == {0: 1, 1: 1, 2: 1, 3: 2, 8: 4}
    assert all(m.WhichOneof("value") == "wins_in" for m in win.values())
    loss = {n: scores.score_message(-griot.WIN + n) for n in (0, 1, 2, 5)}
    assert {n: m.loses_in for n, m in loss.items()} == {0: 0, 1: 0, 2: 1, 5: 2}
    assert all(m.WhichOneof("value") == "loses_in" for m in loss.values())


def test_exact_margins_classify_a_move_by_the_seeds_it_gives_away() -> None:
    """Where the databases give both moves' final margins, a move that still wins loses the seeds
    it gives away (the search's values rate both moves alike), and a change of result is a
    blunder whatever the seeds."""
    pos = griot.Position("abapa(holes=3) 2,1,1/1,1,0 9-9 S 11 -")  # three legal moves
    win_by = lambda n: {"result": "win", "margin": n}  # noqa: E731
    same = scores.turn_analysis(0, pos, "a", "c", griot.WIN - 1, griot.WIN - 1, win_by(4), win_by(2))
    assert (same.loss, same.classification) == (200, analysis_pb2.MOVE_CLASSIFICATION_INACCURACY)
    assert same.best_score.final_margin == 4 and same.played_score.final_margin == 2
    assert same.south_score.final_margin == 2  # South moved: South's view is the mover's
    drawn = {"result": "draw", "margin": 0}
    draw = scores.turn_analysis(0, pos, "a", "c", griot.WIN - 1, 0, win_by(4), drawn)
    assert (draw.loss, draw.classification) == (400, analysis_pb2.MOVE_CLASSIFICATION_BLUNDER)
    # Without the databases' margins, the search's values decide as before.
    plain = scores.turn_analysis(0, pos, "a", "c", griot.WIN - 1, griot.WIN - 1)
    assert plain.classification == analysis_pb2.MOVE_CLASSIFICATION_BEST


def _queues_seen(env_queues: str | None) -> dict[str, list[str]]:
    """What the workers' Celery app and the gateway's flags take for queues under GRIOT_QUEUES."""
    code = (
        "import json, argparse\n"
        "from griot.workers.app import INTERACTIVE_QUEUE, BATCH_QUEUE, make_app\n"
        "from griot.services.gateway.config import add_gateway_arguments\n"
        "p = argparse.ArgumentParser(); add_gateway_arguments(p); a = p.parse_args([])\n"
        "print(json.dumps({'workers': [INTERACTIVE_QUEUE, BATCH_QUEUE],\n"
        "                  'gateway': [a.interactive_queue, a.batch_queue]}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
    if env_queues is not None:
        env["GRIOT_QUEUES"] = env_queues
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    seen: dict[str, list[str]] = json.loads(out.stdout)
    return seen


@pytest.mark.parametrize(
    ("env_queues", "want"),
    [
        (None, ["griot.interactive", "griot.batch"]),
        ("fast, slow", ["fast", "slow"]),
        ("only", ["only", "griot.batch"]),
    ],
)
def test_workers_and_gateway_read_the_same_queues(env_queues: str | None, want: list[str]) -> None:
    seen = _queues_seen(env_queues)
    assert seen == {"workers": want, "gateway": want}


def test_priority_orders_and_names_its_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    assert sorted([Priority.BATCH, Priority.INTERACTIVE]) == [Priority.INTERACTIVE, Priority.BATCH]
    monkeypatch.setenv("GRIOT_QUEUES", "a,b")
    assert (Priority.INTERACTIVE.queue, Priority.BATCH.queue) == ("a", "b")
    monkeypatch.delenv("GRIOT_QUEUES")
    assert (Priority.INTERACTIVE.queue, Priority.BATCH.queue) == ("griot.interactive", "griot.batch")
