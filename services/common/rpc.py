"""The one place where a servicer's outcome becomes a gRPC status, counted in the metrics.

Servicer methods stay thin: they take the request and return the response, raising Griot's own
exceptions for bad input. :func:`unary` wraps them into ``grpc.aio`` handlers (:func:`unary_async`,
:func:`server_stream` and :func:`bidi_stream` do the same for coroutines and async generators that
also get the call's context) that

- map :class:`griot.GriotError` and :class:`griot.status.StatusError` to their status with a
  ``google.rpc.ErrorInfo`` detail (:func:`griot.status.status_for`);
- turn any other exception into ``INTERNAL`` with a generic message and an incident id, logging the
  traceback server-side only (a client never sees Python internals);
- record requests by status code, errors by reason and latency in Prometheus metrics.

The metrics of successful calls (most calls) are tallied in plain Python numbers on the event loop
and added to the Prometheus objects in batches (:class:`RpcMetrics`): a Prometheus update costs a
lock and, in the multiprocess mode of ``--workers N``, an mmap write and a ``getpid()`` system call,
and a call made five of them (~25 µs of a rules call's ~400 µs on the 2-core dev machine).
"""

from __future__ import annotations

import asyncio
import bisect
import functools
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
from griot import GriotError
from griot.status import StatusError, status_for
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

log = logging.getLogger("griot.rpc")

Req = TypeVar("Req")
Resp = TypeVar("Resp")

#: Latency buckets (seconds): rules RPCs take tens of microseconds; analysis RPCs take seconds.
LATENCY_BUCKETS = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)


#: Seconds between two batches of tallied outcomes added to the Prometheus metrics (see
#: :class:`RpcMetrics`). A scrape of this process's registry adds them first, so only the supervisor
#: of ``--workers N`` (reading the workers' files) can be this much behind.
FLUSH_SECONDS = 0.25


class _Tally:
    """One method's successful calls and latencies since the last flush (event-loop thread only)."""

    __slots__ = ("buckets", "latency_child", "ok", "ok_child", "seconds")

    def __init__(self, ok_child: Any, latency_child: Any) -> None:
        self.ok = 0
        #: Observations per latency bucket (the last one is +Inf), as in the histogram's storage.
        self.buckets = [0] * (len(LATENCY_BUCKETS) + 1)
        self.seconds = 0.0
        self.ok_child, self.latency_child = ok_child, latency_child

    def observe(self, seconds: float) -> None:
        self.buckets[bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1
        self.seconds += seconds

    def flush(self) -> None:
        if self.ok:
            ok, self.ok = self.ok, 0
            self.ok_child.inc(ok)
        if self.seconds or any(self.buckets):
            buckets, self.buckets = self.buckets, [0] * len(self.buckets)
            seconds, self.seconds = self.seconds, 0.0
            # Histogram storage: one value per bucket (not cumulative) and the sum; observe() would
            # add them one observation at a time.
            self.latency_child._sum.inc(seconds)
            for i, n in enumerate(buckets):
                if n:
                    self.latency_child._buckets[i].inc(n)


class _InFlight:
    """RPCs of one service being handled now; the gauge is set from it at each flush."""

    __slots__ = ("child", "n", "shown")

    def __init__(self, child: Any) -> None:
        self.n = 0
        self.shown = 0
        self.child = child

    def flush(self) -> None:
        if self.n != self.shown:
            self.shown = self.n
            self.child.set(self.n)


class _FlushBeforeCollect:
    """A collector registered before the metrics: a scrape of the registry first adds the tallies
    (on the event loop that keeps them), so that it reads every call answered so far."""

    def __init__(self, metrics: RpcMetrics) -> None:
        self.metrics = metrics

    def describe(self) -> list[Any]:
        return []

    def collect(self) -> list[Any]:
        self.metrics.flush_from_any_thread()
        return []


class RpcMetrics:
    """Prometheus metrics of a server's RPCs.

    The handlers below tally successful calls, latencies and in-flight counts in plain Python numbers
    (:meth:`tally`, :meth:`in_flight_of`), on the event loop's thread, and :meth:`flush` adds them to
    the Prometheus objects: :data:`FLUSH_SECONDS` after the first call since the last flush, and
    before every scrape of :attr:`registry`. Errors are rare and recorded at once.
    """

    def __init__(self, registry: CollectorRegistry) -> None:
        #: Where a service adds metrics of its own (served on the same /metrics).
        self.registry = registry
        registry.register(_FlushBeforeCollect(self))
        self.requests = Counter(
            "griot_rpc_requests",
            "RPCs handled, by service, method and gRPC status code.",
            ["service", "method", "code"],
            registry=registry,
        )
        self.errors = Counter(
            "griot_rpc_errors",
            "RPCs that failed, by service, method, status code and ErrorInfo reason.",
            ["service", "method", "code", "reason"],
            registry=registry,
        )
        self.latency = Histogram(
            "griot_rpc_duration_seconds",
            "Time spent handling an RPC in the servicer, by service and method.",
            ["service", "method"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.in_flight = Gauge(
            "griot_rpc_in_flight",
            "RPCs being handled now.",
            ["service"],
            registry=registry,
            multiprocess_mode="livesum",
        )
        self._tallies: list[_Tally] = []
        self._in_flight: dict[str, _InFlight] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._flush_pending = False

    def tally(self, service: str, method: str) -> _Tally:
        """The tally of one method's successful calls and latencies."""
        t = _Tally(self.requests.labels(service, method, "OK"), self.latency.labels(service, method))
        self._tallies.append(t)
        return t

    def in_flight_of(self, service: str) -> _InFlight:
        """The in-flight count of one service (shared by its methods)."""
        if service not in self._in_flight:
            self._in_flight[service] = _InFlight(self.in_flight.labels(service))
        return self._in_flight[service]

    def schedule_flush(self) -> None:
        """Flushes in :data:`FLUSH_SECONDS` (handlers call it when a call starts or ends and
        nothing is scheduled yet)."""
        self._flush_pending = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not on an event loop: no batching
            self.flush()
            return
        self._loop, self._loop_thread = loop, threading.get_ident()
        loop.call_later(FLUSH_SECONDS, self.flush)

    def flush(self) -> None:
        """Adds the tallies to the Prometheus metrics (on the thread that keeps them)."""
        self._flush_pending = False
        for t in self._tallies:
            t.flush()
        for f in self._in_flight.values():
            f.flush()

    def flush_from_any_thread(self, timeout: float = 2.0) -> None:
        """:meth:`flush` run on the event loop that keeps the tallies, waited for (a scrape)."""
        loop = self._loop
        if loop is None or loop.is_closed() or not loop.is_running():
            self.flush()
            return
        if threading.get_ident() == self._loop_thread:  # e.g. an ASGI /metrics on the same loop
            self.flush()
            return
        done = threading.Event()

        def run() -> None:
            try:
                self.flush()
            finally:
                done.set()

        try:
            loop.call_soon_threadsafe(run)
        except RuntimeError:  # the loop closed meanwhile
            self.flush()
            return
        done.wait(timeout)


Handler = Callable[[Any, Req, grpc.aio.ServicerContext[Req, Resp]], Awaitable[Resp]]


def _end(in_flight: _InFlight, tally: _Tally, start: float, metrics: RpcMetrics) -> None:
    """Counts a call out of flight and times it."""
    in_flight.n -= 1
    tally.observe(time.perf_counter() - start)
    if not metrics._flush_pending:  # flushed while this call ran (a long one)
        metrics.schedule_flush()


def unary(
    service: str, method: str, metrics: RpcMetrics
) -> Callable[[Callable[[Any, Req], Resp]], Handler[Req, Resp]]:
    """Wraps a thin unary servicer method ``(self, request) -> response`` into an aio handler."""

    def wrap(fn: Callable[[Any, Req], Resp]) -> Handler[Req, Resp]:
        tally = metrics.tally(service, method)
        in_flight = metrics.in_flight_of(service)
        clock = time.perf_counter

        @functools.wraps(fn)
        async def handler(self: Any, request: Req, context: grpc.aio.ServicerContext[Req, Resp]) -> Resp:
            start = clock()
            in_flight.n += 1
            if not metrics._flush_pending:
                metrics.schedule_flush()
            ended = False
            try:
                response = fn(self, request)
                tally.ok += 1
                return response
            except (GriotError, StatusError) as e:
                status = status_for(e)
                code = status.code.name
                metrics.requests.labels(service, method, code).inc()
                metrics.errors.labels(service, method, code, status.reason).inc()
                log.debug("bad input", extra={"method": method, "code": code, "reason": status.reason})
                # Aborting sends the status at once: the call is counted before, so that a scrape
                # made after the client saw the error holds it.
                _end(in_flight, tally, start, metrics)
                ended = True
                await context.abort_with_status(status.to_grpc_status())
                raise  # unreachable: abort raises
            except asyncio.CancelledError:
                metrics.requests.labels(service, method, "CANCELLED").inc()
                raise
            except Exception:
                incident = uuid.uuid4().hex[:12]
                metrics.requests.labels(service, method, "INTERNAL").inc()
                metrics.errors.labels(service, method, "INTERNAL", "internal").inc()
                log.exception("unexpected error", extra={"method": method, "incident": incident})
                _end(in_flight, tally, start, metrics)
                ended = True
                await context.abort(grpc.StatusCode.INTERNAL, f"internal error (incident {incident})")
                raise  # unreachable: abort raises
            finally:
                if not ended:
                    _end(in_flight, tally, start, metrics)

        return handler

    return wrap


class _Call:
    """Metrics and the one error mapping around one call of an async handler."""

    def __init__(self, service: str, method: str, metrics: RpcMetrics) -> None:
        self.service, self.method, self.metrics = service, method, metrics
        self.tally = metrics.tally(service, method)
        self.in_flight = metrics.in_flight_of(service)

    def begin(self) -> float:
        """Counts the call in flight; returns its start time."""
        self.in_flight.n += 1
        if not self.metrics._flush_pending:
            self.metrics.schedule_flush()
        return time.perf_counter()

    def end(self, start: float) -> None:
        _end(self.in_flight, self.tally, start, self.metrics)

    async def fail(self, e: BaseException, context: Any, start: float) -> None:
        """Ends the call with the status ``e`` stands for (re-raises cancellation). The call is
        counted out first: aborting sends the status at once, and a scrape made after the client
        saw it must hold the call."""
        self.end(start)
        m, service, method = self.metrics, self.service, self.method
        if isinstance(e, asyncio.CancelledError):
            m.requests.labels(service, method, "CANCELLED").inc()
            raise e
        if isinstance(e, GeneratorExit):
            # A stream closed by the server because its client cancelled or went away: nobody
            # is left to receive a status (aborting fails), and it is no internal error.
            m.requests.labels(service, method, "CANCELLED").inc()
            return
        if isinstance(e, GriotError | StatusError):
            status = status_for(e)
            code = status.code.name
            m.requests.labels(service, method, code).inc()
            m.errors.labels(service, method, code, status.reason).inc()
            log.debug("request refused", extra={"method": method, "code": code, "reason": status.reason})
            await context.abort_with_status(status.to_grpc_status())
            return
        if isinstance(e, grpc.aio.AbortError):
            raise e
        incident = uuid.uuid4().hex[:12]
        m.requests.labels(service, method, "INTERNAL").inc()
        m.errors.labels(service, method, "INTERNAL", "internal").inc()
        log.error("unexpected error", exc_info=e, extra={"method": method, "incident": incident})
        await context.abort(grpc.StatusCode.INTERNAL, f"internal error (incident {incident})")


def unary_async(service: str, method: str, metrics: RpcMetrics) -> Callable[[Any], Any]:
    """Wraps ``async def (self, request, context) -> response``."""

    def wrap(fn: Any) -> Any:
        call = _Call(service, method, metrics)

        @functools.wraps(fn)
        async def handler(self: Any, request: Any, context: Any) -> Any:
            start = call.begin()
            ended = False
            try:
                response = await fn(self, request, context)
                call.tally.ok += 1
                return response
            except BaseException as e:
                ended = True
                await call.fail(e, context, start)
                raise
            finally:
                if not ended:
                    call.end(start)

        return handler

    return wrap


def server_stream(service: str, method: str, metrics: RpcMetrics) -> Callable[[Any], Any]:
    """Wraps an async generator ``(self, request_or_iterator, context)`` yielding responses (a
    server-streaming or bidirectional method): errors raised while it streams end the call with
    their status, as for unary methods."""

    def wrap(fn: Any) -> Any:
        call = _Call(service, method, metrics)

        @functools.wraps(fn)
        async def handler(self: Any, request: Any, context: Any) -> AsyncIterator[Any]:
            start = call.begin()
            ended = False
            try:
                async for response in fn(self, request, context):
                    yield response
                call.tally.ok += 1
            except BaseException as e:
                ended = True
                await call.fail(e, context, start)
                raise
            finally:
                if not ended:
                    call.end(start)

        return handler

    return wrap


bidi_stream = server_stream
