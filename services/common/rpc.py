"""The one place where a servicer's outcome becomes a gRPC status, counted in the metrics.

Servicer methods stay thin: they take the request and return the response, raising Griot's own
exceptions for bad input. :func:`unary` wraps them into ``grpc.aio`` handlers that

- map :class:`griot.GriotError` to its status with a ``google.rpc.ErrorInfo`` detail
  (:func:`griot.status.status_for`);
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
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
from griot import GriotError
from griot.status import status_for
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
            except GriotError as e:
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
