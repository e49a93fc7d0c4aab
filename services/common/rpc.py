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
"""

from __future__ import annotations

import asyncio
import functools
import logging
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


class RpcMetrics:
    """Prometheus metrics of a server's RPCs."""

    def __init__(self, registry: CollectorRegistry) -> None:
        #: Where a service adds metrics of its own (served on the same /metrics).
        self.registry = registry
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


Handler = Callable[[Any, Req, grpc.aio.ServicerContext[Req, Resp]], Awaitable[Resp]]


def unary(
    service: str, method: str, metrics: RpcMetrics
) -> Callable[[Callable[[Any, Req], Resp]], Handler[Req, Resp]]:
    """Wraps a thin unary servicer method ``(self, request) -> response`` into an aio handler."""

    def wrap(fn: Callable[[Any, Req], Resp]) -> Handler[Req, Resp]:
        ok = metrics.requests.labels(service, method, "OK")
        latency = metrics.latency.labels(service, method)
        in_flight = metrics.in_flight.labels(service)

        @functools.wraps(fn)
        async def handler(self: Any, request: Req, context: grpc.aio.ServicerContext[Req, Resp]) -> Resp:
            start = time.perf_counter()
            in_flight.inc()
            try:
                response = fn(self, request)
                ok.inc()
                return response
            except (GriotError, StatusError) as e:
                status = status_for(e)
                code = status.code.name
                metrics.requests.labels(service, method, code).inc()
                metrics.errors.labels(service, method, code, status.reason).inc()
                log.debug("bad input", extra={"method": method, "code": code, "reason": status.reason})
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
                await context.abort(grpc.StatusCode.INTERNAL, f"internal error (incident {incident})")
                raise  # unreachable: abort raises
            finally:
                in_flight.dec()
                latency.observe(time.perf_counter() - start)

        return handler

    return wrap


class _Call:
    """Metrics and the one error mapping around one call of an async handler."""

    def __init__(self, service: str, method: str, metrics: RpcMetrics) -> None:
        self.service, self.method, self.metrics = service, method, metrics
        self.ok = metrics.requests.labels(service, method, "OK")
        self.latency = metrics.latency.labels(service, method)
        self.in_flight = metrics.in_flight.labels(service)

    async def fail(self, e: BaseException, context: Any) -> None:
        """Ends the call with the status ``e`` stands for (re-raises cancellation)."""
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
        log.error(
            "unexpected error", exc_info=e, extra={"method": method, "incident": incident}
        )
        await context.abort(grpc.StatusCode.INTERNAL, f"internal error (incident {incident})")


def unary_async(service: str, method: str, metrics: RpcMetrics) -> Callable[[Any], Any]:
    """Wraps ``async def (self, request, context) -> response``."""

    def wrap(fn: Any) -> Any:
        call = _Call(service, method, metrics)

        @functools.wraps(fn)
        async def handler(self: Any, request: Any, context: Any) -> Any:
            start = time.perf_counter()
            call.in_flight.inc()
            try:
                response = await fn(self, request, context)
                call.ok.inc()
                return response
            except BaseException as e:
                await call.fail(e, context)
                raise
            finally:
                call.in_flight.dec()
                call.latency.observe(time.perf_counter() - start)

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
            start = time.perf_counter()
            call.in_flight.inc()
            try:
                async for response in fn(self, request, context):
                    yield response
                call.ok.inc()
            except BaseException as e:
                await call.fail(e, context)
                raise
            finally:
                call.in_flight.dec()
                call.latency.observe(time.perf_counter() - start)

        return handler

    return wrap


bidi_stream = server_stream
