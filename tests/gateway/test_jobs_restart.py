"""Whole-game analysis jobs across a cache Redis restarted empty (``griot up`` runs it without
persistence): two gateway replicas share a cache Redis of their own, the job runs on one and its
client resumes on the other."""

from __future__ import annotations

import dataclasses
import signal
import time

import grpc
import pytest
from gateway_stack import Gateway, Stack
from griot.client import AnalysisClient, ServiceError, search_limits
from workers_stack import RedisServer, free_port

#: Two turns of an awale opening, each searched for a second: a job is still
#: running (none of its turns written) when the cache Redis restarts just after it was made.
MOVES = ["c", "D"]
LIMITS = search_limits(max_depth=30, max_time=1.0)


def start_job(g: Gateway) -> str:
    with AnalysisClient(g.target) as client:
        first = next(iter(client.analyze_game("awale", MOVES, limits=LIMITS, timeout=60)))
    assert first.job_id and first.progress.positions_done == 0
    return first.job_id


def report_turns(g: Gateway, job_id: str) -> list[int]:
    with AnalysisClient(g.target) as client:
        msgs = list(client.analyze_game(resume_job_id=job_id, timeout=60))
    assert {m.job_id for m in msgs} == {job_id}
    return [t.turn for t in msgs[-1].report.turns]


def test_jobs_survive_the_cache_redis_restarted_empty(stack: Stack) -> None:
    cache = RedisServer(free_port())
    cache.start()
    own = dataclasses.replace(stack, env={**stack.env, "GRIOT_CACHE_URL": cache.url})
    runs = Gateway(own, ["--window", "2"])
    other = Gateway(own, ["--window", "2"])
    try:
        runs.start()
        other.start()

        # Lost while its replica runs it, before any turn was written: resumed on the other.
        running = start_job(runs)
        cache.restart()
        assert report_turns(other, running) == [0, 1]

        # Its replica killed at once, then the cache Redis lost it before another replica took it
        # over (its lease had not expired): the other replica's sweep saw it active and writes it
        # again.
        orphan = start_job(runs)
        runs.stop(signal.SIGKILL)
        deadline = time.monotonic() + 15
        while other.metric("griot_gateway_jobs_held") < 2:  # the first job, streamed, and this
            assert time.monotonic() < deadline, "the other replica never saw the job"
            time.sleep(0.1)
        cache.restart()
        assert report_turns(other, orphan) == [0, 1]
        # And the first, finished, whose report the other replica streamed before.
        assert report_turns(other, running) == [0, 1]

        # No cache Redis at all: a new analysis is refused as unavailable for now, not failed.
        cache.stop()
        with pytest.raises(ServiceError) as refused:
            start_job(other)
        assert refused.value.code == grpc.StatusCode.UNAVAILABLE
        assert refused.value.reason == "cache_unavailable"
    finally:
        other.stop()
        runs.stop()
        cache.stop()
