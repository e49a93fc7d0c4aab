"""What every Griot gRPC server shares: configuration, health checking, server reflection,
Prometheus metrics on their own HTTP port, structured logging, graceful shutdown and, for CPU-bound
services, several worker processes sharing one port (``SO_REUSEPORT``).

A service supplies a :class:`ServiceSpec` (its name, its full gRPC service names and a function
adding its servicers); :func:`run` does the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import os
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast
from wsgiref.simple_server import WSGIServer

import grpc
from griot import settings
from griot.services.common.rpc import RpcMetrics
from griot.settings import RULES_METRICS_PORT, RULES_PORT, setting
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc
from prometheus_client import CollectorRegistry, start_http_server

log = logging.getLogger("griot.server")

EVENT_LOOPS = ("asyncio", "uvloop", "auto")


@dataclass(frozen=True)
class ServerConfig:
    """How a server listens and what it accepts. Every field is a flag and a ``<prefix>_*``
    environment variable of its server (:func:`add_arguments`, :mod:`griot.settings`)."""

    host: str = setting("127.0.0.1", help="listen address")
    port: int = setting(RULES_PORT, help="gRPC port, 0 = any")
    metrics_port: int | None = setting(
        RULES_METRICS_PORT, help="Prometheus /metrics port, 0 = any, 'off' = none"
    )
    metrics_host: str = setting("127.0.0.1", help="the address /metrics listens on")
    max_receive_bytes: int = setting(
        64 * 1024, help="largest request accepted; larger ones fail with RESOURCE_EXHAUSTED"
    )
    max_send_bytes: int = setting(4 * 1024 * 1024, help="largest response sent")
    max_concurrent_rpcs: int | None = setting(
        1024, help="RPCs at once per worker, more fail with RESOURCE_EXHAUSTED; 'off' = no limit"
    )
    grace_seconds: float = setting(5.0, help="seconds in-flight RPCs get to finish on SIGTERM/SIGINT")
    workers: int = setting(
        1, help="server processes sharing the port (SO_REUSEPORT); 1 serves in this process"
    )
    log_level: str = setting("INFO", help="log level")
    log_format: str = setting(
        "json", choices=("json", "text"), help="json (one object a line, for log shippers) or text"
    )
    event_loop: str = setting(
        "asyncio",
        choices=EVENT_LOOPS,
        help="asyncio, uvloop (fails if it is not installed), or auto: uvloop when installed",
    )
    cpu_affinity: bool = setting(
        False,
        help="on: with several workers, pin worker i (and its threads) to CPU i modulo the CPUs this "
        "process may use, so that its event loop and gRPC's threads hand calls over on one core",
    )
    #: Further gRPC core channel arguments of the server, ``(name, value)`` pairs, e.g.
    #: ``("grpc.max_concurrent_streams", 100)``; values that read as integers are passed as such.
    #: They win over the arguments the fields above set (e.g. ``grpc.max_receive_message_length``).
    #: (A repeatable flag, ``--grpc-option``, its variable comma-separated: :func:`add_arguments`.)
    grpc_options: tuple[tuple[str, int | str], ...] = ()


@dataclass(frozen=True)
class ServiceSpec:
    """One gRPC service to serve."""

    #: Short name used in logs and metrics, e.g. ``rules``.
    name: str
    #: Full names of the gRPC services the servicers implement, e.g. ``griot.v1.RulesService``.
    service_names: Sequence[str]
    #: Adds the servicers to the server; gets the metrics to record into.
    add_servicers: Callable[[grpc.aio.Server, RpcMetrics], None]
    #: Environment variable prefix of the configuration, e.g. ``GRIOT_RULES``.
    env_prefix: str = "GRIOT"
    extra: dict[str, Any] = field(default_factory=dict)
    #: Server interceptors (e.g. the gateway's API-key check), outermost first.
    interceptors: Sequence[grpc.aio.ServerInterceptor] = ()
    #: TLS: the port is served with these credentials instead of plaintext.
    credentials: grpc.ServerCredentials | None = None
    #: Runs in the server's event loop before it starts serving (opens connections, starts tasks).
    on_start: Callable[[], Awaitable[None]] | None = None
    #: Runs after the server stopped (closes what ``on_start`` opened).
    on_stop: Callable[[], Awaitable[None]] | None = None


# ---------------------------------------------------------------------------------------------
# Logging


# uvicorn adds ``color_message``, the message again with terminal colour codes: not a field of the event.
_STANDARD_RECORD_FIELDS = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "color_message"}


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, then any ``extra=`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": round(record.created, 6),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            "pid": record.process,
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD_RECORD_FIELDS and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def setup_logging(level: str, fmt: str) -> None:
    """Configures the root logger once, to stderr."""
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


# ---------------------------------------------------------------------------------------------
# One server


@dataclass
class RunningServer:
    """A started server: its bound ports and what :meth:`stop` needs."""

    server: grpc.aio.Server
    port: int
    health: health.aio.HealthServicer
    spec: ServiceSpec
    metrics_port: int | None = None
    metrics_registry: CollectorRegistry | None = None
    rpc_metrics: RpcMetrics | None = None
    _metrics_http: WSGIServer | None = None

    async def stop(self, grace: float | None) -> None:
        """Reports NOT_SERVING, lets in-flight RPCs finish for ``grace`` seconds, then stops."""
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)
        if self.rpc_metrics is not None:
            self.rpc_metrics.flush()  # the last calls' tallies (a worker's files outlive it)
        if self.spec.on_stop is not None:
            await self.spec.on_stop()
        if self._metrics_http is not None:
            self._metrics_http.shutdown()
            self._metrics_http.server_close()


class _GenericHandlersOnly:
    """The server as the generated ``add_*Servicer_to_server`` functions see it: their handlers are
    added as generic handlers only, never as registered methods.

    grpc.aio keeps one pending request per registered method and waits on all of them
    (``asyncio.wait``) for every incoming call: with the rules service, health and reflection that
    was 13 futures, each checked, given a done callback and relieved of it per call. Generic
    handlers share one pending request, and finding the handler is a dict look-up per service:
    13% fewer user-space instructions per ApplyMove (bench/RESULTS-rules.md).
    """

    def __init__(self, server: grpc.aio.Server) -> None:
        self._server = server

    def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        self._server.add_generic_rpc_handlers(handlers)

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        """Ignored: the same handlers came through :meth:`add_generic_rpc_handlers`."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._server, name)


async def start(
    spec: ServiceSpec,
    config: ServerConfig,
    *,
    registry: CollectorRegistry | None = None,
    serve_metrics: bool = True,
) -> RunningServer:
    """Starts the service on ``config.host:config.port`` (port 0 picks a free one)."""
    registry = registry if registry is not None else CollectorRegistry()
    metrics = RpcMetrics(registry)
    # gRPC core keeps the first value of a repeated argument: the explicit options come first.
    options: list[tuple[str, Any]] = [
        *config.grpc_options,
        ("grpc.max_receive_message_length", config.max_receive_bytes),
        ("grpc.max_send_message_length", config.max_send_bytes),
        ("grpc.so_reuseport", 1 if config.workers > 1 else 0),
    ]
    server = grpc.aio.server(
        options=options,
        maximum_concurrent_rpcs=config.max_concurrent_rpcs,
        interceptors=list(spec.interceptors) or None,
    )
    registrar = cast(grpc.aio.Server, _GenericHandlersOnly(server))
    spec.add_servicers(registrar, metrics)
    if spec.on_start is not None:
        await spec.on_start()

    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, registrar)
    # (reflection.enable_server_reflection picks the aio servicer only for a real aio server)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(
        reflection.aio.ReflectionServicer(
            [*spec.service_names, health.SERVICE_NAME, reflection.SERVICE_NAME]
        ),
        registrar,
    )
    address = f"{config.host}:{config.port}"
    if spec.credentials is not None:
        port = server.add_secure_port(address, spec.credentials)
    else:
        port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {config.host}:{config.port}")
    await server.start()
    for name in ["", *spec.service_names]:
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)

    running = RunningServer(
        server, port, health_servicer, spec, metrics_registry=registry, rpc_metrics=metrics
    )
    if serve_metrics and config.metrics_port is not None:
        httpd, _ = start_http_server(config.metrics_port, config.metrics_host, registry)
        running._metrics_http = httpd
        running.metrics_port = httpd.server_port
    log.info(
        "serving",
        extra={
            "service": spec.name,
            "address": f"{config.host}:{port}",
            "tls": spec.credentials is not None,
            "metrics_port": running.metrics_port,
            "max_receive_bytes": config.max_receive_bytes,
            "max_concurrent_rpcs": config.max_concurrent_rpcs,
            "event_loop": type(asyncio.get_running_loop()).__module__.split(".")[0],
        },
    )
    return running


async def serve_until_signalled(spec: ServiceSpec, config: ServerConfig, serve_metrics: bool = True) -> None:
    """Serves until SIGTERM or SIGINT, then shuts down gracefully."""
    running = await start(spec, config, serve_metrics=serve_metrics)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting down", extra={"service": spec.name, "grace_seconds": config.grace_seconds})
    await running.stop(config.grace_seconds)
    log.info("stopped", extra={"service": spec.name})


# ---------------------------------------------------------------------------------------------
# Several worker processes on one port


def run_event_loop(main: Awaitable[None], event_loop: str) -> None:
    """Runs ``main`` to completion on the configured event loop (see ``ServerConfig.event_loop``)."""
    if event_loop not in EVENT_LOOPS:
        raise ValueError(f"event loop {event_loop!r}: choose one of {', '.join(EVENT_LOOPS)}")
    if event_loop != "asyncio":
        try:
            import uvloop
        except ImportError:
            if event_loop == "uvloop":
                raise RuntimeError("event loop 'uvloop': the uvloop package is not installed") from None
        else:
            uvloop.run(main)  # type: ignore[arg-type]
            return
    asyncio.run(main)  # type: ignore[arg-type]


def _pin_to_cpu(index: int) -> None:
    """Pins this process (and the threads it starts later) to one of the CPUs it may use."""
    cpus = sorted(os.sched_getaffinity(0))
    cpu = cpus[index % len(cpus)]
    os.sched_setaffinity(0, {cpu})
    log.info("pinned to a CPU", extra={"cpu": cpu})


def _worker_main(spec_factory: Callable[[], ServiceSpec], config: ServerConfig, index: int) -> None:
    setup_logging(config.log_level, config.log_format)
    logging.getLogger().handlers[0].addFilter(_WorkerFilter(index))
    if config.cpu_affinity:
        _pin_to_cpu(index)
    # Workers record into the multiprocess metrics directory; the parent serves /metrics.
    with contextlib.suppress(KeyboardInterrupt):
        run_event_loop(serve_until_signalled(spec_factory(), config, serve_metrics=False), config.event_loop)


class _WorkerFilter(logging.Filter):
    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index

    def filter(self, record: logging.LogRecord) -> bool:
        record.worker = self.index
        return True


def _reserve_port(host: str, port: int) -> socket.socket:
    """Binds (without listening) a SO_REUSEPORT socket so that every worker gets the same port,
    also when the configured port is 0."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    return sock


def run(spec_factory: Callable[[], ServiceSpec], config: ServerConfig) -> None:
    """Runs the service until SIGTERM/SIGINT: in this process, or in ``config.workers`` processes
    sharing the port, with the parent serving their combined metrics."""
    setup_logging(config.log_level, config.log_format)
    if config.workers <= 1:
        run_event_loop(serve_until_signalled(spec_factory(), config), config.event_loop)
        return

    from prometheus_client import multiprocess

    metrics_dir = tempfile.mkdtemp(prefix="griot-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
    reserved = _reserve_port(config.host, config.port)
    config = replace(config, port=reserved.getsockname()[1])
    ctx = multiprocessing.get_context("spawn")
    workers = [
        ctx.Process(target=_worker_main, args=(spec_factory, config, i), name=f"worker-{i}", daemon=False)
        for i in range(config.workers)
    ]
    for w in workers:
        w.start()

    httpd = None
    if config.metrics_port is not None:
        registry = CollectorRegistry()
        # prometheus_client's multiprocess module carries no annotations.
        multiprocess.MultiProcessCollector(registry, path=metrics_dir)  # type: ignore[no-untyped-call]
        httpd, _ = start_http_server(config.metrics_port, config.metrics_host, registry)
    log.info(
        "supervising workers",
        extra={
            "workers": config.workers,
            "address": f"{config.host}:{config.port}",
            "metrics_port": httpd.server_port if httpd else None,
        },
    )

    stopping = False

    def forward(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        for w in workers:
            if w.is_alive() and w.pid is not None:
                os.kill(w.pid, signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    while any(w.is_alive() for w in workers):
        for w in workers:
            w.join(timeout=0.5)
            if not w.is_alive() and w.pid is not None:
                multiprocess.mark_process_dead(w.pid, metrics_dir)  # type: ignore[no-untyped-call]
            if not w.is_alive() and not stopping:
                log.error(
                    "worker exited; stopping the others", extra={"worker": w.name, "exitcode": w.exitcode}
                )
                forward(signal.SIGTERM, None)
        time.sleep(0.1)
    reserved.close()
    if httpd is not None:
        httpd.shutdown()
    log.info("stopped", extra={"workers": config.workers})


# ---------------------------------------------------------------------------------------------
# Configuration from flags and environment


def add_arguments(parser: Any, prefix: str, defaults: ServerConfig) -> None:
    """Adds ``--port`` etc. to an argparse parser; each defaults to ``<prefix>_PORT`` etc., else
    to ``defaults``."""
    settings.add_arguments(parser, ServerConfig, prefix, defaults)
    parser.add_argument(
        "--grpc-option",
        action="append",
        type=parse_grpc_option,
        default=parse_grpc_options(os.environ.get(f"{prefix}_GRPC_OPTIONS", "")),
        metavar="NAME=VALUE",
        help="a gRPC core channel argument of the server, repeatable, e.g. "
        f"grpc.max_concurrent_streams=100 [{prefix}_GRPC_OPTIONS: comma-separated]",
    )


def parse_grpc_option(text: str) -> tuple[str, int | str]:
    """``NAME=VALUE`` as a gRPC channel argument: the value an int when it reads as one."""
    name, sep, value = text.strip().partition("=")
    if not sep or not name.startswith("grpc."):
        raise ValueError(f"gRPC option {text!r}: expected grpc.NAME=VALUE")
    try:
        return name, int(value)
    except ValueError:
        return name, value


def parse_grpc_options(text: str) -> list[tuple[str, int | str]]:
    """A comma-separated list of ``NAME=VALUE`` (the ``*_GRPC_OPTIONS`` variable)."""
    return [parse_grpc_option(t) for t in text.split(",") if t.strip()]


def config_from_args(args: Any) -> ServerConfig:
    """The configuration parsed by a parser set up with :func:`add_arguments`."""
    return settings.from_args(
        ServerConfig, args, grpc_options=tuple(getattr(args, "grpc_option", None) or ())
    )
