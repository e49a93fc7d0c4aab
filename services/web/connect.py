"""Griot's gRPC services over the Connect protocol and gRPC-Web, for browsers and ``curl``.

The runtime is `connectrpc` (connect-python, the Connect project's own Python implementation: the
Connect protocol with JSON or binary Protobuf, gRPC-Web, unary and streaming calls). No Connect code
is generated: every endpoint is built from the service's descriptor in the generated ``griot.v1``
code, so a new RPC or a new service appears without changes here. An endpoint is served in one of
two ways, both generic over services:

- **in process** (:func:`local_endpoints`): the very servicer objects a gRPC server gets. A
  :class:`~griot.services.common.server.ServiceSpec` adds its servicers to a recording stand-in for a
  ``grpc.aio.Server``; each recorded method handler is then called with a stand-in for the gRPC
  ``ServicerContext``. The servicer logic, its metrics and its error mapping
  (:mod:`griot.status`, ``abort_with_status`` with an ErrorInfo detail) are the gRPC server's own.
- **forwarded** (:func:`upstream_endpoints`): every call goes to a running gRPC server over a
  ``grpc.aio`` channel, with the caller's deadline and API key; the upstream's status, message and
  details come back unchanged. This is how a separately deployed service (the analysis gateway,
  with its own auth and quotas) reaches browsers.

Either way a failed call ends as a :class:`ConnectError` whose code is
:func:`griot.status.connect_code` of the gRPC status and whose details are the status's details
(the ``google.rpc.ErrorInfo`` with domain ``griot.v1``), so browsers get what gRPC clients get.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from griot.services.common.rpc import RpcMetrics
from griot.services.common.server import ServiceSpec
from griot.status import connect_code, status_details
from protobuf.wkt import Any as AnyPb

log = logging.getLogger("griot.web")

#: Request headers passed on to the servicer (as invocation metadata) or to an upstream server.
FORWARDED_HEADERS = ("x-api-key", "authorization", "x-request-id")


# ---------------------------------------------------------------------------------------------
# Errors


def connect_error(code: grpc.StatusCode, message: str, trailing_metadata: Any = ()) -> ConnectError:
    """The Connect error of a gRPC status: same code, message and details."""
    details = [_detail(d) for d in status_details(trailing_metadata)]
    return ConnectError(Code(connect_code(code)), message, details)


@functools.cache
def _error_details_registry() -> Any:
    """google/rpc/error_details.proto (ErrorInfo, RetryInfo, ...) for connectrpc's own protobuf
    runtime, so that JSON errors also show each detail decoded (its ``debug`` field) for people
    reading curl output. None if that runtime's descriptor loader is unavailable."""
    try:
        from google.protobuf import descriptor_pb2
        from google.rpc import error_details_pb2
        from protobuf import Registry
        from protobuf._codegen import file_desc
        from protobuf.wkt.google.protobuf import duration_pb

        fdp = descriptor_pb2.FileDescriptorProto.FromString(error_details_pb2.DESCRIPTOR.serialized_pb)

        def json_names(messages: Any) -> None:
            for m in messages:
                for f in m.field:
                    if not f.HasField("json_name"):
                        head, *rest = f.name.split("_")
                        f.json_name = head + "".join(w[:1].upper() + w[1:] for w in rest)
                json_names(m.nested_type)

        json_names(fdp.message_type)
        return Registry(file_desc(fdp.SerializeToString(), [duration_pb.desc()], {}))
    except Exception:  # pragma: no cover - an older or newer runtime: details stay undecoded
        log.warning("error details will carry no debug JSON", exc_info=True)
        return None


def _detail(d: Any) -> ErrorDetail:
    """A status detail (google.protobuf.Any) as a Connect error detail: the same type and bytes,
    decoded for the JSON ``debug`` field where the type is a google.rpc error detail."""
    raw = AnyPb(type_url=d.type_url, value=d.value)
    registry = _error_details_registry()
    if registry is not None:
        desc = registry.message(d.type_url.rpartition("/")[2])
        if desc is not None:
            try:
                unpacked = raw.unpack(desc)
            except Exception:  # pragma: no cover - malformed bytes: send them as they are
                unpacked = None
            if unpacked is not None:
                return ErrorDetail(unpacked)
    return ErrorDetail(raw)


def _internal(method: str, exc: BaseException) -> ConnectError:
    incident = uuid.uuid4().hex[:12]
    log.error("unexpected error", exc_info=exc, extra={"method": method, "incident": incident})
    return ConnectError(Code.INTERNAL, f"internal error (incident {incident})")


# ---------------------------------------------------------------------------------------------
# Limits shared by every endpoint


@dataclass
class Limits:
    """What a call may use: the gRPC server's limits, applied the same way."""

    #: Largest request body; larger ones fail with ``RESOURCE_EXHAUSTED`` (connectrpc checks).
    max_receive_bytes: int = 64 * 1024
    #: Largest response message; larger ones fail with ``RESOURCE_EXHAUSTED``.
    max_send_bytes: int = 4 * 1024 * 1024
    #: Calls handled at once; more fail with ``RESOURCE_EXHAUSTED``. None: no limit.
    max_concurrent_rpcs: int | None = 1024
    in_flight: int = field(default=0, init=False)

    def enter(self) -> None:
        if self.max_concurrent_rpcs is not None and self.in_flight >= self.max_concurrent_rpcs:
            raise ConnectError(Code.RESOURCE_EXHAUSTED, "too many concurrent calls")
        self.in_flight += 1

    def leave(self) -> None:
        self.in_flight -= 1

    def check_send(self, message: Message) -> Message:
        size = message.ByteSize()
        if size > self.max_send_bytes:
            raise ConnectError(
                Code.RESOURCE_EXHAUSTED, f"response larger than max ({size} vs. {self.max_send_bytes})"
            )
        return message


# ---------------------------------------------------------------------------------------------
# Method descriptions


def service_descriptor(name: str) -> ServiceDescriptor:
    """A service of the generated code by its full name, e.g. ``griot.v1.RulesService``."""
    import griot.v1.analysis_pb2
    import griot.v1.rules_pb2  # noqa: F401

    return descriptor_pool.Default().FindServiceByName(name)


def _stream_type(m: MethodDescriptor) -> StreamType:
    if m.client_streaming and m.server_streaming:
        return StreamType.BIDI_STREAM
    if m.client_streaming:
        return StreamType.CLIENT_STREAM
    if m.server_streaming:
        return StreamType.SERVER_STREAM
    return StreamType.UNARY


_IDEMPOTENCY = {
    0: IdempotencyLevel.UNKNOWN,
    1: IdempotencyLevel.NO_SIDE_EFFECTS,
    2: IdempotencyLevel.IDEMPOTENT,
}


def method_info(m: MethodDescriptor) -> MethodInfo[Any, Any]:
    """connectrpc's description of one RPC, from its descriptor."""
    return MethodInfo(
        name=m.name,
        service_name=m.containing_service.full_name,
        input=message_factory.GetMessageClass(m.input_type),
        output=message_factory.GetMessageClass(m.output_type),
        idempotency_level=_IDEMPOTENCY.get(m.GetOptions().idempotency_level, IdempotencyLevel.UNKNOWN),
        stream_type=_stream_type(m),
    )


def _path(m: MethodDescriptor) -> str:
    return f"/{m.containing_service.full_name}/{m.name}"


def _forwarded(ctx: RequestContext[Any, Any]) -> list[tuple[str, str]]:
    headers = ctx.request_headers
    return [(k, v) for k in FORWARDED_HEADERS if (v := headers.get(k)) is not None]


def _timeout(ctx: RequestContext[Any, Any]) -> float | None:
    ms = ctx.timeout_ms
    return None if ms is None else ms / 1000


def _endpoint(
    m: MethodDescriptor,
    limits: Limits,
    unary: Callable[[Any, RequestContext[Any, Any]], Any],
    server_stream: Callable[[Any, RequestContext[Any, Any]], AsyncIterator[Any]],
    bidi: Callable[[AsyncIterator[Any], RequestContext[Any, Any]], AsyncIterator[Any]],
    client_stream: Callable[[AsyncIterator[Any], RequestContext[Any, Any]], Any],
) -> Endpoint[Any, Any]:
    """An endpoint around one of four call shapes, counting the call against the limits."""
    info = method_info(m)
    st = info.stream_type
    path = _path(m)

    if st is StreamType.UNARY or st is StreamType.CLIENT_STREAM:
        fn = unary if st is StreamType.UNARY else client_stream

        async def call(request: Any, ctx: RequestContext[Any, Any]) -> Any:
            limits.enter()
            try:
                return limits.check_send(await fn(request, ctx))
            except (ConnectError, asyncio.CancelledError):
                raise
            except Exception as e:
                raise _internal(path, e) from None
            finally:
                limits.leave()

        if st is StreamType.UNARY:
            return Endpoint.unary(info, call)
        return Endpoint.client_stream(info, call)

    sfn = server_stream if st is StreamType.SERVER_STREAM else bidi

    async def stream(request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        limits.enter()
        try:
            async for response in sfn(request, ctx):
                yield limits.check_send(response)
        except (ConnectError, asyncio.CancelledError, GeneratorExit):
            raise
        except Exception as e:
            raise _internal(path, e) from None
        finally:
            limits.leave()

    if st is StreamType.SERVER_STREAM:
        return Endpoint.server_stream(info, stream)
    return Endpoint.bidi_stream(info, stream)


# ---------------------------------------------------------------------------------------------
# In process: the gRPC servicers themselves


class _Aborted(Exception):
    """Raised by the context stand-in's ``abort``: the call ends with this Connect error."""

    def __init__(self, error: ConnectError) -> None:
        super().__init__(error.message)
        self.error = error


class ServicerContext:
    """What a servicer sees of a call served over Connect: the parts of ``grpc.aio.ServicerContext``
    servicers use (abort, metadata, deadline, code and details)."""

    def __init__(self, ctx: RequestContext[Any, Any]) -> None:
        self._ctx = ctx
        self._deadline = None if ctx.timeout_ms is None else time.monotonic() + ctx.timeout_ms / 1000
        self._code: grpc.StatusCode | None = None
        self._details: str | None = None
        self._trailing: Sequence[tuple[str, str | bytes]] = ()
        self._cancelled = False

    async def abort(self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()) -> None:
        raise _Aborted(connect_error(code, details, trailing_metadata))

    async def abort_with_status(self, status: grpc.Status) -> None:
        raise _Aborted(connect_error(status.code, status.details, status.trailing_metadata))

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return tuple(_forwarded(self._ctx))

    def time_remaining(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def peer(self) -> str:
        return f"connect:{self._ctx.client_address or 'unknown'}"

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code

    def set_details(self, details: str) -> None:
        self._details = details

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def details(self) -> str | None:
        return self._details

    def set_trailing_metadata(self, metadata: Sequence[tuple[str, str | bytes]]) -> None:
        self._trailing = tuple(metadata)

    async def send_initial_metadata(self, metadata: Iterable[tuple[str, str]]) -> None:
        headers = self._ctx.response_headers
        for k, v in metadata:
            headers[k] = v

    def cancelled(self) -> bool:
        return self._cancelled

    def done(self) -> bool:
        return False

    def add_done_callback(self, _callback: Any) -> None:  # pragma: no cover - not used by Griot
        pass

    def raise_if_failed(self) -> None:
        """Ends the call with the code a servicer set with ``set_code`` (and returned normally)."""
        if self._code is not None and self._code is not grpc.StatusCode.OK:
            raise connect_error(self._code, self._details or "", self._trailing)


class _RecordingServer:
    """Stands in for ``grpc.aio.Server`` while a ServiceSpec adds its servicers: keeps each
    service's method handlers (what the generated ``add_*Servicer_to_server`` registers)."""

    def __init__(self) -> None:
        self.handlers: dict[str, Mapping[str, grpc.RpcMethodHandler[Any, Any]]] = {}

    def add_registered_method_handlers(
        self, service: str, handlers: Mapping[str, grpc.RpcMethodHandler[Any, Any]]
    ) -> None:
        self.handlers[service] = handlers

    def add_generic_rpc_handlers(self, _handlers: Any) -> None:
        pass  # the registered handlers above carry the same methods


def _local(
    name: str, handler: grpc.RpcMethodHandler[Any, Any], m: MethodDescriptor, limits: Limits
) -> Endpoint[Any, Any]:
    path = _path(m)

    async def run(fn: Any, request: Any, ctx: RequestContext[Any, Any]) -> Any:
        sctx = ServicerContext(ctx)
        try:
            response = await fn(request, sctx)
        except _Aborted as a:
            raise a.error from None
        except (ConnectError, asyncio.CancelledError):
            raise
        except Exception as e:
            raise _internal(path, e) from None
        sctx.raise_if_failed()
        return response

    async def unary(request: Any, ctx: RequestContext[Any, Any]) -> Any:
        return await run(handler.unary_unary, request, ctx)

    async def client_stream(requests: AsyncIterator[Any], ctx: RequestContext[Any, Any]) -> Any:
        return await run(handler.stream_unary, requests, ctx)

    async def _stream(fn: Any, request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        sctx = ServicerContext(ctx)
        try:
            async for response in fn(request, sctx):
                yield response
        except _Aborted as a:
            raise a.error from None
        except (ConnectError, asyncio.CancelledError, GeneratorExit):
            raise
        except Exception as e:
            raise _internal(path, e) from None
        sctx.raise_if_failed()

    def server_stream(request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        return _stream(handler.unary_stream, request, ctx)

    def bidi(requests: AsyncIterator[Any], ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        return _stream(handler.stream_stream, requests, ctx)

    return _endpoint(m, limits, unary, server_stream, bidi, client_stream)


def local_endpoints(spec: ServiceSpec, metrics: RpcMetrics, limits: Limits) -> dict[str, Endpoint[Any, Any]]:
    """Endpoints serving a ServiceSpec's servicers in this process, one per RPC of each service."""
    server = _RecordingServer()
    spec.add_servicers(server, metrics)  # type: ignore[arg-type]
    endpoints: dict[str, Endpoint[Any, Any]] = {}
    for service, handlers in server.handlers.items():
        desc = service_descriptor(service)
        for m in desc.methods:
            if m.name in handlers:
                endpoints[_path(m)] = _local(service, handlers[m.name], m, limits)
    return endpoints


# ---------------------------------------------------------------------------------------------
# Forwarded to a gRPC server


class Upstream:
    """A gRPC server calls are forwarded to. The channel is made on first use, in the serving
    event loop."""

    def __init__(self, target: str, max_receive_bytes: int, max_send_bytes: int) -> None:
        self.target = target
        self._options: list[tuple[str, Any]] = [
            ("grpc.max_send_message_length", max_receive_bytes),
            ("grpc.max_receive_message_length", max_send_bytes),
        ]
        # A target naming several replicas (a headless Service, Compose's scaled service name):
        # round_robin sends each call to the next one and passes over a dead one, as the SDK does.
        policy = os.environ.get("GRIOT_GRPC_LB_POLICY")
        if policy:
            self._options.append(("grpc.lb_policy_name", policy))
        self._channel: grpc.aio.Channel | None = None

    @property
    def channel(self) -> grpc.aio.Channel:
        if self._channel is None:
            self._channel = grpc.aio.insecure_channel(self.target, options=self._options)
        return self._channel

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel = None


def _upstream(up: Upstream, m: MethodDescriptor, limits: Limits) -> Endpoint[Any, Any]:
    path = _path(m)
    info = method_info(m)
    ser = info.input.SerializeToString
    de = info.output.FromString

    def failed(e: grpc.aio.AioRpcError) -> ConnectError:
        return connect_error(e.code(), e.details() or "", e.trailing_metadata())

    async def unary(request: Any, ctx: RequestContext[Any, Any]) -> Any:
        call = up.channel.unary_unary(path, request_serializer=ser, response_deserializer=de)
        try:
            return await call(request, metadata=_forwarded(ctx), timeout=_timeout(ctx))
        except grpc.aio.AioRpcError as e:
            raise failed(e) from None

    async def client_stream(requests: AsyncIterator[Any], ctx: RequestContext[Any, Any]) -> Any:
        call = up.channel.stream_unary(path, request_serializer=ser, response_deserializer=de)
        try:
            return await call(requests, metadata=_forwarded(ctx), timeout=_timeout(ctx))
        except grpc.aio.AioRpcError as e:
            raise failed(e) from None

    async def _stream(call: Any) -> AsyncIterator[Any]:
        try:
            async for response in call:
                yield response
        except grpc.aio.AioRpcError as e:
            raise failed(e) from None
        finally:
            call.cancel()  # the browser went away: stop the upstream work too

    def server_stream(request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        mc = up.channel.unary_stream(path, request_serializer=ser, response_deserializer=de)
        return _stream(mc(request, metadata=_forwarded(ctx), timeout=_timeout(ctx)))

    def bidi(requests: AsyncIterator[Any], ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        mc = up.channel.stream_stream(path, request_serializer=ser, response_deserializer=de)
        return _stream(mc(requests, metadata=_forwarded(ctx), timeout=_timeout(ctx)))

    return _endpoint(m, limits, unary, server_stream, bidi, client_stream)


def upstream_endpoints(
    service_names: Iterable[str], upstream: Upstream, limits: Limits
) -> dict[str, Endpoint[Any, Any]]:
    """Endpoints forwarding every RPC of these services to a gRPC server."""
    endpoints: dict[str, Endpoint[Any, Any]] = {}
    for name in service_names:
        for m in service_descriptor(name).methods:
            endpoints[_path(m)] = _upstream(upstream, m, limits)
    return endpoints


# ---------------------------------------------------------------------------------------------
# The ASGI application


class ConnectApp(ConnectASGIApplication[None]):
    """The Connect/gRPC-Web ASGI application of a set of endpoints (any number of services)."""

    def __init__(self, endpoints: Mapping[str, Endpoint[Any, Any]], read_max_bytes: int) -> None:
        from connectrpc.compat import google_protobuf_codecs

        super().__init__(
            service=None,
            # The endpoints are connectrpc's own (Endpoint.unary / server_stream ...), which it
            # types as a closed union only in a private module; its public Endpoint is the base.
            endpoints=lambda _svc: endpoints,  # type: ignore[arg-type,return-value]
            read_max_bytes=read_max_bytes,
            codecs=google_protobuf_codecs(),
        )
        self.endpoint_paths = frozenset(endpoints)

    @property
    def path(self) -> str:
        return "/"
