"""An opt-in report of event-loop stalls: single callbacks that hold the loop.

A *stall* here is one callback (a task's step, a future's done-callback, a protocol's
``data_received`` ...) running for long on the loop's thread, so that nothing else on the loop
can run meanwhile: a blocking system call, a synchronous network round trip, a long computation.
It is not the time a ready callback waits behind many short ones (queueing on a busy loop); a
probe task that measures how late it wakes up sees both and cannot tell them apart, so this
monitor does not use one.

asyncio's debug mode (and uvloop's, which mirrors it) times every callback and logs those
running at least ``slow_callback_duration``; the monitor turns it on and takes those reports. A
callback's wall time includes the time the kernel kept the loop's thread runnable but off a CPU (a
loaded machine, not the code); on Linux a sampling thread reads the loop thread's run-queue wait
from ``/proc/self/task/<tid>/schedstat`` every few milliseconds and the monitor subtracts that
wait during the callback, interpolated between the readings around the callback's start. Waits for the
GIL while another thread of the process runs Python count as stall: that thread holds the loop.

Debug mode costs CPU (every handle records where it was created), which is why the monitor is
opt-in: for tests and for finding what blocks a misbehaving server, not for production traffic.
"""

from __future__ import annotations

import asyncio
import bisect
import collections
import contextlib
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge

log = logging.getLogger("griot.loop")

SAMPLE_EVERY = 0.005
"""Seconds between two readings of the loop thread's run-queue wait."""

HISTORY = 4000
"""Readings kept (20 s at :data:`SAMPLE_EVERY`): longer callbacks are not corrected for the
machine's load."""


def schedstat(tid: int) -> tuple[float, float] | None:
    """Seconds thread ``tid`` of this process has spent on a CPU and runnable but waiting for one,
    or None where the kernel does not say (not Linux, no schedstats)."""
    try:
        with open(f"/proc/self/task/{tid}/schedstat") as f:
            cpu, wait = f.read().split()[:2]
        return int(cpu) / 1e9, int(wait) / 1e9
    except (OSError, ValueError):
        return None


@dataclass
class Stall:
    """One callback that held the loop: its description, wall time, and of that time the part its
    thread spent waiting for a CPU and the part it ran on one."""

    callback: str
    wall: float
    run_queue: float = 0.0
    cpu: float = 0.0

    @property
    def held(self) -> float:
        return max(0.0, self.wall - self.run_queue)


@dataclass
class LoopStallMonitor:
    """Reports callbacks of the running loop that hold it for ``report`` seconds or more (after the
    machine's share is taken out): logged as a warning, counted, and the longest kept.

    ``start()`` on the loop to watch, ``stop()`` when done. With a registry the figures are the
    Prometheus metrics ``griot_loop_longest_stall_seconds`` and ``griot_loop_stalls_total``."""

    report: float
    registry: CollectorRegistry | None = None
    longest: Stall | None = None
    stalls: int = 0
    _samples: collections.deque[tuple[float, float, float]] = field(
        default_factory=lambda: collections.deque(maxlen=HISTORY)
    )
    _tid: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _sampler: threading.Thread | None = None
    _filter: logging.Filter | None = None

    def __post_init__(self) -> None:
        if self.report <= 0:
            raise ValueError(f"stall report threshold {self.report!r}: give a positive number of seconds")
        kw: dict[str, Any] = {"registry": self.registry}
        self._longest_gauge = Gauge(
            "griot_loop_longest_stall_seconds",
            "Longest time one callback held the event loop (less the thread's run-queue wait), "
            "since start; 0 until one passed the report threshold.",
            **kw,
        )
        self._count = Counter(
            "griot_loop_stalls",
            "Callbacks that held the event loop past the report threshold.",
            **kw,
        )

    def start(self) -> None:
        """Turns on the running loop's debug mode and starts taking its slow-callback reports."""
        loop = asyncio.get_running_loop()
        self._tid = threading.get_native_id()
        loop.set_debug(True)
        loop.slow_callback_duration = self.report
        monitor = self

        class TakeSlowCallbacks(logging.Filter):
            def filter(self, record: logging.LogRecord) -> bool:
                if record.msg == "Executing %s took %.3f seconds" and isinstance(record.args, tuple):
                    callback, seconds = record.args[0], record.args[1]
                    if isinstance(seconds, float):
                        monitor._reported(str(callback), seconds)
                    return False
                return True

        self._filter = TakeSlowCallbacks()
        logging.getLogger("asyncio").addFilter(self._filter)
        if schedstat(self._tid) is not None:
            self._sampler = threading.Thread(target=self._sample, name="loop-stall-sampler", daemon=True)
            self._sampler.start()

    def stop(self) -> None:
        self._stop.set()
        if self._filter is not None:
            logging.getLogger("asyncio").removeFilter(self._filter)
            self._filter = None
        if self._sampler is not None:
            self._sampler.join(timeout=1)

    def _sample(self) -> None:
        while not self._stop.wait(SAMPLE_EVERY):
            now = schedstat(self._tid)
            if now is None:
                return
            self._samples.append((time.monotonic(), *now))

    def _since(self, start: float) -> tuple[float, float]:
        """The loop thread's CPU time and run-queue wait from ``start`` to now (called on the
        loop's thread as the slow callback returns). A callback running Python code holds the GIL,
        so the sampler seldom reads during it: the figures at ``start`` are interpolated between
        the readings on either side of it."""
        now = schedstat(self._tid)
        if now is None or not self._samples:
            return 0.0, 0.0
        samples = [*self._samples, (time.monotonic(), *now)]
        i = bisect.bisect_left(samples, (start, -1.0, -1.0))
        if i == 0:
            cpu, wait = samples[0][1:]
        else:
            (t0, c0, w0), (t1, c1, w1) = samples[i - 1], samples[i]
            f = (start - t0) / (t1 - t0) if t1 > t0 else 1.0
            cpu, wait = c0 + (c1 - c0) * f, w0 + (w1 - w0) * f
        return max(0.0, now[0] - cpu), max(0.0, now[1] - wait)

    def _reported(self, callback: str, wall: float) -> None:
        cpu, waited = self._since(time.monotonic() - wall)
        stall = Stall(callback[:300], wall, waited, cpu)
        if stall.held < self.report:
            return
        self.stalls += 1
        self._count.inc()
        if self.longest is None or stall.held > self.longest.held:
            self.longest = stall
            self._longest_gauge.set(stall.held)
        with contextlib.suppress(Exception):
            log.warning(
                "event loop held %.1f ms by one callback (%.1f ms wall, %.1f ms waiting for a CPU, "
                "%.1f ms on one): %s",
                stall.held * 1e3,
                stall.wall * 1e3,
                stall.run_queue * 1e3,
                stall.cpu * 1e3,
                stall.callback,
            )
