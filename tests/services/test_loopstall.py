"""The event-loop stall report (``griot.services.common.loopstall``) on real event loops (asyncio's
and uvloop's): one callback blocking the loop is reported with how long it held it; a loop kept
busy by many short callbacks is not stalled."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from griot.services.common.loopstall import LoopStallMonitor
from prometheus_client import CollectorRegistry

pytestmark = pytest.mark.timeout(60)

REPORT = 0.05


def _loops() -> list[str]:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return ["asyncio"]
    return ["asyncio", "uvloop"]


def _run(kind: str, main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    if kind == "uvloop":
        import uvloop

        uvloop.run(main())
    else:
        asyncio.run(main())


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


@pytest.mark.parametrize("kind", _loops())
def test_a_blocking_callback_is_reported_with_the_time_it_held_the_loop(kind: str) -> None:
    registry = CollectorRegistry()
    monitor = LoopStallMonitor(REPORT, registry)

    async def main() -> None:
        monitor.start()
        try:
            await asyncio.sleep(0.02)  # the sampler's first readings
            asyncio.get_running_loop().call_soon(time.sleep, 0.12)
            await asyncio.sleep(0.2)
        finally:
            monitor.stop()

    _run(kind, main)
    assert monitor.stalls == 1, monitor
    assert monitor.longest is not None and "sleep" in monitor.longest.callback
    # Asleep, the thread waits for no CPU: nearly all of the wall time is held.
    assert 0.1 <= monitor.longest.held <= monitor.longest.wall, monitor.longest
    assert registry.get_sample_value("griot_loop_stalls_total") == 1
    assert registry.get_sample_value("griot_loop_longest_stall_seconds") == monitor.longest.held


@pytest.mark.parametrize("kind", _loops())
def test_a_loop_busy_with_short_callbacks_is_not_stalled(kind: str) -> None:
    """A thousand 1 ms callbacks queued at once keep the loop busy for a second, and the
    last of them waits that long to run: queueing, which the report leaves out."""
    monitor = LoopStallMonitor(REPORT, CollectorRegistry())
    waited: list[float] = []

    async def main() -> None:
        monitor.start()
        try:
            loop = asyncio.get_running_loop()
            done = asyncio.Event()
            queued = time.perf_counter()
            for _ in range(1000):
                loop.call_soon(_spin, 0.001)
            loop.call_soon(lambda: (waited.append(time.perf_counter() - queued), done.set()))
            await asyncio.wait_for(done.wait(), 30)
        finally:
            monitor.stop()

    _run(kind, main)
    assert waited and waited[0] >= 1.0 > REPORT  # the last callback queued past the threshold
    assert monitor.stalls == 0, monitor.longest


def test_the_threshold_is_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        LoopStallMonitor(0.0, CollectorRegistry())
