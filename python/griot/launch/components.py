"""The table of components ``griot up`` runs, as data: what each is (its command line, health
check, replicas, endpoints) and the settings its templates are filled from (:class:`UpConfig`).

A new component is one more :class:`ComponentSpec` in :data:`COMPONENTS`; the start order is the
table's order and the stop order its reverse.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: The extra that brings every optional part ``griot up`` runs (Celery, the web server).
SERVER_EXTRA = "griot[server]"


class LaunchError(RuntimeError):
    """``griot up`` could not start the system (the message says which part and why)."""


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
    #: The browser API (Connect, gRPC-Web) and the demo board (griot.services.web).
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
    #: Every log line of every component; otherwise warnings and errors only, each once.
    verbose: bool = False
    color: bool | None = None
    state_file: Path = field(default_factory=default_state_file)
    python: str = sys.executable

    def worker_count(self) -> int:
        return self.workers if self.workers > 0 else (os.cpu_count() or 1)


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
    """One kind of process ``griot up`` runs. Strings are templates over the launcher's values (``{host}``,
    ``{rules_port}``, ``{broker_url}``, ``{index}``, ``{metrics_port}`` ...)."""

    name: str
    color: str
    argv: Sequence[str]
    health: Health
    #: Python module that must be importable for the component to start (None: always).
    module: str | None = None
    #: Optional packages it needs (the ``server`` extra's): without them it is not started.
    requires: Sequence[str] = ()
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


#: The built demo board, inside the package (``make web-build`` writes it; wheels and sdists carry it),
#: served by the web component when present.
WEB_APP_DIST = Path(__file__).resolve().parents[1] / "board"


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
        module="griot.services.rules",
        argv=(
            "{python}",
            "-m",
            "griot.services.rules",
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
        module="griot.workers.app",
        requires=("celery",),
        replicas="worker_count",
        metrics_port_key="worker_metrics_port",
        argv=(
            "{python}",
            "-m",
            "celery",
            "-A",
            "griot.workers.app",
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
        env={
            "GRIOT_WORKER_METRICS_PORT": "{metrics_port}",
            "GRIOT_WORKER_METRICS_HOST": "{host}",
            "GRIOT_WORKER_INDEX": "{index}",
            # Celery's warning about root, several lines from every worker: the launcher says it once.
            "PYTHONWARNINGS": "ignore:You're running the worker with superuser privileges",
        },
        health=Health("log", pattern=r"\bready\."),
        endpoints=(("workers", "{worker_count} Celery workers on queues {queues}"),),
    ),
    ComponentSpec(
        name="gateway",
        color="magenta",
        module="griot.services.gateway",
        requires=("celery",),
        argv=(
            "{python}",
            "-m",
            "griot.services.gateway",
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
        module="griot.services.web",
        requires=("uvicorn", "starlette", "connectrpc"),
        argv=(
            "{python}",
            "-m",
            "griot.services.web",
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
    "GRIOT_EGDB_DIR": "{egdb_dir}",
    "GRIOT_RULES_LOG_FORMAT": "json",
    "GRIOT_GATEWAY_LOG_FORMAT": "json",
    "GRIOT_LOG_FORMAT": "json",
    "PYTHONUNBUFFERED": "1",
}

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


def iter_specs() -> Iterator[ComponentSpec]:
    """Every component ``griot up`` knows (for tests that keep the deploy files in step)."""
    yield from COMPONENTS


def spec(name: str) -> ComponentSpec:
    """The component called ``name``."""
    for s in COMPONENTS:
        if s.name == name:
            return s
    raise KeyError(name)
