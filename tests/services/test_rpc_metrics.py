"""griot.services.common.rpc's metrics: successful calls are tallied on the event loop and reach the
Prometheus objects in batches, on a timer and before every scrape of the registry."""

from __future__ import annotations

import asyncio
from typing import Any

from griot.services.common.rpc import FLUSH_SECONDS, RpcMetrics, unary, unary_async
from prometheus_client import CollectorRegistry


def _ok_count(metrics: RpcMetrics) -> float:
    # Collected from the Counter itself: the registry would flush first.
    return sum(
        s.value
        for family in metrics.requests.collect()
        for s in family.samples
        if s.name.endswith("_total") and s.labels == {"service": "S", "method": "M", "code": "OK"}
    )


async def _until_count(metrics: RpcMetrics, want: float, within: float = 10.0) -> float:
    """Polls the counter until the timer's flush brought it to ``want`` (or the deadline passed)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while (got := _ok_count(metrics)) != want and loop.time() < deadline:
        await asyncio.sleep(FLUSH_SECONDS / 10)
    return got


def _servicer(metrics: RpcMetrics) -> Any:
    class Servicer:
        @unary("S", "M", metrics)
        def M(self, request: int) -> int:
            return request + 1

    return Servicer()


def test_tallies_reach_the_counters_on_a_timer() -> None:
    metrics = RpcMetrics(CollectorRegistry())
    servicer = _servicer(metrics)

    async def main() -> None:
        for i in range(3):
            assert await servicer.M(i, None) == i + 1
        assert _ok_count(metrics) == 0  # tallied, not added yet
        assert await _until_count(metrics, 3) == 3
        assert await servicer.M(5, None) == 6
        assert await _until_count(metrics, 4) == 4

    asyncio.run(main())


def test_a_call_longer_than_a_flush_is_flushed_when_it_ends() -> None:
    metrics = RpcMetrics(CollectorRegistry())

    class Servicer:
        @unary_async("S", "M", metrics)
        async def M(self, request: int, context: Any) -> int:
            await asyncio.sleep(FLUSH_SECONDS * 3)  # the flush its start scheduled runs meanwhile
            return request

    async def main() -> None:
        assert await Servicer().M(1, None) == 1
        assert _ok_count(metrics) == 0
        # No other call: only the flush its end scheduled can bring the count to 1.
        assert await _until_count(metrics, 1) == 1

    asyncio.run(main())


def test_a_scrape_adds_the_tallies_first() -> None:
    registry = CollectorRegistry()
    metrics = RpcMetrics(registry)
    servicer = _servicer(metrics)

    async def main() -> None:
        for i in range(5):
            await servicer.M(i, None)
        # A scrape on another thread (as the /metrics server's) waits for the loop's flush.
        labels = {"service": "S", "method": "M"}
        ok, count, inf = await asyncio.to_thread(
            lambda: (
                registry.get_sample_value("griot_rpc_requests_total", {**labels, "code": "OK"}),
                registry.get_sample_value("griot_rpc_duration_seconds_count", labels),
                registry.get_sample_value("griot_rpc_duration_seconds_bucket", {**labels, "le": "+Inf"}),
            )
        )
        assert (ok, count, inf) == (5, 5, 5)
        # On the loop's own thread (an ASGI /metrics app) it flushes in place.
        await servicer.M(0, None)
        assert registry.get_sample_value("griot_rpc_requests_total", {**labels, "code": "OK"}) == 6
        assert registry.get_sample_value("griot_rpc_in_flight", {"service": "S"}) == 0

    asyncio.run(main())


def test_without_an_event_loop_every_call_is_added_at_once() -> None:
    metrics = RpcMetrics(CollectorRegistry())
    servicer = _servicer(metrics)
    coro = servicer.M(1, None)
    try:
        coro.send(None)
    except StopIteration as done:
        assert done.value == 2
    # Driven by hand, outside a loop: the handler recorded the call's start at once, its end waits
    # for the next flush.
    metrics.flush()
    assert _ok_count(metrics) == 1
