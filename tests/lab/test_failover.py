"""The cache Redis's primary lost, in a lab of its own: the cache as a primary and a replica watched by
three Sentinels, the gateway and the workers naming the Sentinels (``redis+sentinel://``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from griot.lab import Lab, LabShape
from griot.lab.layout import SENTINEL_PORT, SENTINEL_SERVICE
from griot.lab.netns import lab_namespaces

from .conftest import LAB_ENV, analysis_through_fault, need_lab
from .conftest import PREFIX as LAB_PREFIX

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
    analysis_through_fault(lab, 9, lambda: lab.kill("cache"), timeout=240)
    assert _primary(lab) == lab.address("cache-replica")
