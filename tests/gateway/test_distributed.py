"""A distributed evaluation through the gateway, on real parts (redis-servers, Celery workers, the
rules service, gateway processes on 127.0.0.1): its subtree tasks are the caller's interactive
searches at the gateway's dispatcher, under the caller's quota and the gateway's window."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import griot
import grpc
import pytest
import redis
from gateway_stack import Gateway, Stack
from griot.client import AnalysisClient, ServiceError, search_limits
from griot.scores import score_message

ROOT = Path(__file__).resolve().parents[2]


def _as(name: str) -> list[tuple[str, str]]:
    return [("x-client-id", name)]


def _wait(what: str, check: Any, timeout: float = 60.0) -> None:
    end = time.time() + timeout
    while time.time() < end:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"not within {timeout} s: {what}")


@pytest.fixture(scope="module")
def narrow(stack: Stack) -> Iterator[Gateway]:
    """One task at the workers at once, one waiting search per client; evaluations 10 deep or
    more are distributed, their first task only up to its direct depth."""
    g = Gateway(
        stack,
        [
            "--window",
            "1",
            "--max-pending-per-client",
            "1",
            "--distributed-depth",
            "10",
            "--distributed-direct-seconds",
            "0",
        ],
    ).start()
    try:
        yield g
    finally:
        g.stop()


def test_distributed_subtrees_count_against_the_callers_quota(narrow: Gateway, stack: Stack) -> None:
    """Client ``x`` has one search running (the window's only slot) and one waiting (its whole
    quota): its distributed evaluation is refused with RESOURCE_EXHAUSTED (``quota``) when its first
    task asks the dispatcher for a place, and sends nothing. Client ``y``'s distributed evaluation
    then runs through the dispatcher: many tasks (counted by the gateway), never more than the
    window at the broker, and the engine's value."""
    stack.cache.flushdb()
    broker = redis.Redis.from_url(stack.broker.url)
    start = griot.Variant("awale").start()
    long_one, waiting, refused, allowed = (
        start,
        start.play("a"),
        start.play("b"),
        griot.Variant("abapa").start().play("c"),
    )
    outcomes: dict[str, Any] = {}

    def evaluate(key: str, who: str, pos: griot.Position, limits: Any) -> None:
        with AnalysisClient(narrow.target, metadata=_as(who)) as c:
            try:
                outcomes[key] = list(c.evaluate(pos, limits, timeout=120))
            except ServiceError as e:
                outcomes[key] = e

    sent_before = narrow.metric("griot_gateway_tasks_total", event="sent")
    # A single task (a node limit is never distributed) that runs until its time limit.
    runs = threading.Thread(
        target=evaluate,
        args=("long", "x", long_one, search_limits(max_depth=30, max_time=8, max_nodes=10**11)),
    )
    runs.start()
    # In flight is counted before the broker's send returns, sent after: wait for both, so that the
    # count of sent tasks below starts from the long search's.
    _wait(
        "the long search at the workers",
        lambda: (
            "long" in outcomes
            or (
                narrow.metric("griot_gateway_inflight_searches") == 1
                and narrow.metric("griot_gateway_tasks_total", event="sent") == sent_before + 1
            )
        ),
    )
    assert "long" not in outcomes, outcomes
    waits = threading.Thread(target=evaluate, args=("waiting", "x", waiting, search_limits(max_depth=8)))
    waits.start()
    _wait(
        "the second search waiting",
        lambda: narrow.metric("griot_gateway_queue_depth", priority="interactive") == 1,
    )
    rejected_before = narrow.metric("griot_gateway_rejected_total", reason="quota")
    evaluate("refused", "x", refused, search_limits(max_depth=12))
    error = outcomes["refused"]
    assert isinstance(error, ServiceError), error
    assert (error.code, error.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "quota")
    assert error.retry_after is not None and error.retry_after >= 1
    assert narrow.metric("griot_gateway_rejected_total", reason="quota") == rejected_before + 1
    # Nothing of the refused search reached the workers: still only the long search sent.
    assert narrow.metric("griot_gateway_tasks_total", event="sent") == sent_before + 1
    runs.join(60)
    waits.join(60)
    assert not isinstance(outcomes.get("long"), ServiceError), outcomes.get("long")
    assert not isinstance(outcomes.get("waiting"), ServiceError), outcomes.get("waiting")

    # Another client's distributed evaluation: through the dispatcher, one task at a time.
    sent_before = narrow.metric("griot_gateway_tasks_total", event="sent")
    queued: list[int] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            queued.append(int(broker.llen("griot.interactive")))
            stop.wait(0.01)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        evaluate("allowed", "y", allowed, search_limits(max_depth=12))
    finally:
        stop.set()
        sampler.join(10)
    result = outcomes["allowed"]
    assert not isinstance(result, ServiceError), result
    final = result[-1].evaluation
    assert final.final and final.depth == 12
    assert final.score == score_message(griot.search(allowed, depth=12).score.value)
    sent = narrow.metric("griot_gateway_tasks_total", event="sent") - sent_before
    assert sent > 2, sent  # the first task and the subtrees, all through the dispatcher
    assert queued and max(queued) <= 1, max(queued)


def test_every_move_scored_at_a_distributed_depth(narrow: Gateway, stack: Stack) -> None:
    """An evaluation deep enough to be distributed that asks for every move's score runs as one
    multi-PV task (the distributed search bounds the moves it does not play): every depth it
    streams scores every legal move, and its value is the engine's."""
    stack.cache.flushdb()
    pos = griot.Variant("abapa").start().play("d")
    legal = {m.text for m in pos.legal_moves()}
    sent_before = narrow.metric("griot_gateway_tasks_total", event="sent")
    with AnalysisClient(narrow.target, metadata=_as("z")) as c:
        msgs = list(c.evaluate(pos, search_limits(max_depth=11), include_move_scores=True, timeout=120))
    final = msgs[-1].evaluation
    assert final.final and final.depth == 11 and not final.from_cache
    for m in msgs:
        assert {s.move for s in m.evaluation.move_scores} == legal, m.evaluation
    assert final.score == score_message(griot.search(pos, depth=11).score.value)
    assert {s.move: s.score for s in final.move_scores}[final.best_move] == final.score
    assert narrow.metric("griot_gateway_tasks_total", event="sent") - sent_before == 1


STALL_LIMIT = 0.05
"""Seconds one callback may hold the gateway's event loop."""


@pytest.fixture
def watched(stack: Stack) -> Iterator[Gateway]:
    """A gateway reporting every callback that holds its event loop 20 ms or more; evaluations
    12 deep or more are distributed."""
    g = Gateway(
        stack,
        [
            "--window",
            "4",
            "--distributed-depth",
            "12",
            "--distributed-direct-seconds",
            "0",
            "--loop-stall-report",
            "0.02",
        ],
    ).start()
    try:
        yield g
    finally:
        g.stop()


def test_no_callback_holds_the_gateway_loop_under_live_games_and_a_distributed_search(
    watched: Gateway, stack: Stack
) -> None:
    """A load process (``bench/live_load.py``) plays 100 live games against a gateway process and
    asks it for an evaluation 14 deep, which the gateway distributes across the workers. The
    gateway's stall report (``--loop-stall-report``: asyncio's debug-mode timing of every callback,
    less the time the loop's thread waited for a CPU) finds no single callback that held the loop
    50 ms or more: publishing tasks, reading results, cancelling, saving sessions never block it.

    What this measures is a stall: one callback running that long, during which nothing else on the
    loop can run. It does not measure queueing (how late a ready callback runs behind many short
    ones on a saturated loop), which on a shared two-core machine is the machine's load as much as
    the gateway's and is not a defect of any one callback."""
    stack.cache.flushdb()
    assert "griot_loop_longest_stall_seconds" in watched.metrics()  # the report is on
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "live_load.py"),
            watched.target,
            "--games",
            "100",
            "--deep",
            "14",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        env=stack.env,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"games": 100, "deep": 14}
    assert watched.metric("griot_gateway_tasks_total", event="sent") > 100  # the subtrees too
    longest = watched.metric("griot_loop_longest_stall_seconds")
    stalls = re.findall(r"event loop held .*", watched.log.read_text())
    assert longest < STALL_LIMIT, stalls[-10:]


def test_subtrees_go_back_to_the_worker_that_holds_their_table(stack: Stack) -> None:
    """Routed, with the window's default width (more slots than the workers have processes), a
    distributed evaluation sends its subtrees to the worker that searched them one depth shallower, through
    that worker's own queue, and never has more tasks out than the workers have processes; its
    value is the engine's."""
    flags = ["--distributed-routing", "on", "--distributed-depth", "10", "--distributed-direct-seconds", "0"]
    g = Gateway(stack, flags).start()
    try:
        stack.cache.flushdb()
        pos = griot.Variant("abapa").start().play("b")
        sent_before = g.metric("griot_gateway_tasks_total", event="sent")
        routed_before = g.metric("griot_gateway_tasks_total", event="routed")
        most = [0]
        stop = threading.Event()

        def sample() -> None:
            while not stop.is_set():
                most[0] = max(most[0], int(g.metric("griot_gateway_inflight_searches")))
                stop.wait(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            with AnalysisClient(g.target, metadata=_as("w")) as c:
                msgs = list(c.evaluate(pos, search_limits(max_depth=13), timeout=120))
        finally:
            stop.set()
            sampler.join(10)
        final = msgs[-1].evaluation
        assert final.final and final.depth == 13
        assert final.score == score_message(griot.search(pos, depth=13).score.value)
        sent = g.metric("griot_gateway_tasks_total", event="sent") - sent_before
        routed = g.metric("griot_gateway_tasks_total", event="routed") - routed_before
        assert sent > 4 and routed > 0, (sent, routed)
        assert 0 < most[0] <= 2, most[0]  # the stack's two workers, one process each
    finally:
        g.stop()
