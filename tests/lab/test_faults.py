"""Faults across hosts, through the real parts as deploy/docker-compose.yml runs them (griot.lab): each
test says what the client sees, and checks that the search completes, nothing is lost and the value
is the in-process search's at the same depth. Shallow depths and small games keep them short; the
heavier cases are bench/lab_latency.py's.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from griot.lab import Lab

from .conftest import Client, expected_score

pytestmark = pytest.mark.timeout(240)

#: The deadline the client gives a search that loses a worker host: the documented bound within
#: which it completes on the others (a lost task is sent again once its in-flight marker, 5 s
#: without a heartbeat, has expired).
WORKER_LOSS_BOUND = 90.0


def _is_depth(at_least: int) -> Callable[[dict[str, Any]], bool]:
    return lambda line: line["event"] == "evaluation" and line["depth"] >= at_least


def _received(lab: Lab, host: str) -> int:
    return len(re.findall(r"Task \S+\[[0-9a-f-]+\] received", lab.log(host, "worker")))


def _poll(what: str, check: Callable[[], bool], timeout: float) -> None:
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.05)


def _final(lines: list[dict[str, Any]], depth: int) -> dict[str, Any]:
    assert lines, "the client printed nothing"
    final = lines[-1]
    assert final["event"] == "evaluation", final
    assert final["final"] and final["depth"] == depth, final
    return final


def test_worker_host_cut_then_killed_mid_search(lab: Lab, background: Callable[..., Client]) -> None:
    """A worker host's network is cut while it holds a task of a distributed search, then the host
    dies. The client sees its evaluation stream go on, depth by depth, and end with the final depth
    within its deadline (WORKER_LOSS_BOUND), no error; the value is the in-process search's: the
    lost task was searched again by the other worker."""
    moves, depth = ["c", "d"], 14
    before = _received(lab, "worker-1")
    client = background(
        "evaluate", "abapa", *moves, "--depth", str(depth), "--timeout", str(WORKER_LOSS_BOUND)
    )
    client.wait_for("the distributed depths", _is_depth(10), 60)
    _poll("worker-1 holding a task", lambda: _received(lab, "worker-1") > before, 60)
    lab.cut("worker-1")
    cut_at = client.lines[-1]["depth"] if client.lines else 0
    client.wait_for("a depth completed while worker-1 is cut", _is_depth(cut_at + 1), WORKER_LOSS_BOUND)
    lab.kill("worker-1")
    lines = client.finish(WORKER_LOSS_BOUND + 15)
    assert not [line for line in lines if line["event"] == "error"], lines[-3:]
    final = _final(lines, depth)
    assert final["score"] == expected_score("abapa", moves, depth)


def test_workers_cut_from_the_cache(lab: Lab) -> None:
    """Every worker's link to the cache Redis carries nothing (open connections hang, as in a
    partition) for the whole search. The client sees an ordinary evaluation: every depth, no error;
    the workers search with their own tables only, and the value is the in-process search's."""
    moves, depth = ["b"], 12
    for host in ("worker-1", "worker-2"):
        lab.cut_link(host, "cache")
    lines = lab.client("evaluate", "abapa", *moves, "--depth", str(depth), "--timeout", "120")
    assert not [line for line in lines if line["event"] == "error"], lines[-3:]
    final = _final(lines, depth)
    assert final["score"] == expected_score("abapa", moves, depth)


def test_a_slow_link_never_holds_a_request_past_its_deadline(lab: Lab) -> None:
    """Every link to Redis and the broker is slow (200 ms spikes, 64 KB/s). A client asking for more
    than its deadline allows sees its stream end by the deadline: the deepest value reached, or
    DEADLINE_EXCEEDED; never a call left hanging. Once the links are well again, the next request
    is answered in full."""
    assert lab.toxiproxy is not None
    for name in lab.links():
        lab.toxiproxy.latency(name, 100, jitter_ms=200)
        lab.toxiproxy.bandwidth(name, 64)
    deadline = 4.0
    started = time.monotonic()
    lines = lab.client("evaluate", "abapa", "e", "--depth", "30", "--timeout", str(deadline), timeout=60)
    took = time.monotonic() - started
    assert lines, "the client printed nothing"
    last = lines[-1]
    if last["event"] == "error":
        assert last["code"] in ("DEADLINE_EXCEEDED", "UNAVAILABLE"), last
    else:
        assert last["event"] == "evaluation" and last["final"], last
    # The call itself ended by its deadline (the client's clock, from its start); the process
    # around it adds its own start-up.
    assert last["t"] <= deadline + 1.0, last
    assert took < 60
    lab.toxiproxy.reset()
    lines = lab.client("evaluate", "abapa", "e", "--depth", "8", "--timeout", "60")
    final = _final(lines, 8)
    assert final["score"] == expected_score("abapa", ["e"], 8)
