"""The cache Redis's primary lost, in a lab of its own: the cache as a primary and a replica watched by
three Sentinels, the gateway and the workers naming the Sentinels (``redis+sentinel://``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from griot.lab import Lab, LabShape
from griot.lab.layout import SENTINEL_PORT, SENTINEL_SERVICE
from griot.lab.netns import lab_namespaces

from .conftest import LAB_ENV, Client, need_lab
from .conftest import PREFIX as LAB_PREFIX
from .test_faults import _game

pytestmark = pytest.mark.timeout(300)

PREFIX = LAB_PREFIX + "f-"


@pytest.fixture(scope="module")
def sentinel_lab() -> Iterator[Lab]:
    need_lab()
    with Lab(LabShape(workers=2, gateways=1, sentinel=True), prefix=PREFIX, env=LAB_ENV) as lab:
        yield lab
    assert lab_namespaces(PREFIX) == []


def _primary(lab: Lab) -> str:
    """The primary's address, as the Sentinel on the replica's host names it."""
    host, _port = lab.redis(
        "cache-replica",
        lambda r: r.execute_command("SENTINEL", "get-master-addr-by-name", SENTINEL_SERVICE),
        port=SENTINEL_PORT,
    )
    return str(host.decode() if isinstance(host, bytes) else host)


def test_the_cache_primary_dies_during_a_game_analysis(sentinel_lab: Lab) -> None:
    """A whole-game analysis runs when the cache primary's host dies. The Sentinels notice within 2 s
    and promote the replica; the gateway and the workers ask them again (redis-py's Sentinel
    client) and go on with the new primary. The client sees its analysis complete (at worst an
    UNAVAILABLE it resumes by the job's id), with the report an uninterrupted run gives."""
    lab = sentinel_lab
    assert _primary(lab) == lab.address("cache")
    moves, depth = _game("abapa", 10), "9"
    reference = lab.client("analyze", "abapa", *moves, "--depth", depth, "--timeout", "180", timeout=200)
    assert reference and reference[-1]["event"] == "report", reference[-3:]
    lab.redis("cache", lambda r: r.flushall())
    client = Client(
        lab.client_background(
            "analyze", "abapa", *moves, "--depth", depth, "--timeout", "240", "--retries", "5"
        )
    )
    try:
        client.wait_for("the job's id", lambda line: line["event"] == "job", 60)
        client.wait_for("part of the game analysed", lambda line: line.get("done", 0) >= 2, 120)
        lab.kill("cache")
        lines = client.finish(270)
    finally:
        if client.proc.poll() is None:
            client.proc.kill()
            client.proc.wait(5)
    errors = [line for line in lines if line["event"] == "error"]
    assert {e["code"] for e in errors} <= {"UNAVAILABLE"}, errors
    assert lines[-1]["event"] == "report", lines[-3:]
    assert lines[-1]["report"] == reference[-1]["report"]
    assert _primary(lab) == lab.address("cache-replica")
