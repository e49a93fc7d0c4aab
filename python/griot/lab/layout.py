"""What runs on each lab host, read from ``deploy/docker-compose.yml``: the same commands, flags and
environment as a Compose (and, through tests/ops/test_deploy_files.py, a Kubernetes) deployment, with
the service names Compose resolves (``broker``, ``cache``, ``rules``, ``gateway``) replaced by lab
addresses, and every link to Redis and the broker sent through the host's own Toxiproxy proxy.

What the lab adds to Compose's command lines, and why:
- Redis: ``--bind 0.0.0.0 --port 6379 --protected-mode no --dir <host dir>``, what the official
  image's entrypoint and working directory give its containers;
- workers: ``--hostname worker-N@lab``, the unique node name a container's or a pod's own host name
  gives Celery (the lab's hosts share the machine's host name);
- ``python`` and ``celery`` become this interpreter (``celery`` as ``python -m celery``), and the
  API keys secret is the example file Compose mounts.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from griot.lab.netns import LabError

REPO = Path(__file__).resolve().parents[3]
COMPOSE_FILE = REPO / "deploy" / "docker-compose.yml"
API_KEYS_FILE = REPO / "deploy" / "secrets" / "api-keys.example"
#: The key the lab's client sends (the example file's first).
CLIENT_API_KEY = "example-key-change-me"

#: Compose service name -> its port there (what ``GRIOT_*`` values name).
SERVICE_PORTS = {"broker": 6379, "cache": 6379, "rules": 50051, "gateway": 50052, "web": 8080}
#: Services reached through the client host's proxy (Toxiproxy) rather than directly.
PROXIED = ("broker", "cache")
_INTERPOLATION = re.compile(r"\$\{(\w+)(?::?-([^}]*))?\}")
_SERVICE_REF = re.compile(r"\b(broker|cache|rules|gateway):(\d+)\b")


def load_compose(path: Path = COMPOSE_FILE) -> dict[str, Any]:
    try:
        import yaml
    except ImportError:
        raise LabError("the lab reads deploy/docker-compose.yml with PyYAML: pip install pyyaml") from None
    data: dict[str, Any] = yaml.safe_load(path.read_text())
    return data


def interpolate(value: str, env: Mapping[str, str]) -> str:
    """Compose's ``${NAME}`` and ``${NAME:-default}``."""
    return _INTERPOLATION.sub(lambda m: env.get(m.group(1)) or (m.group(2) or ""), value)


@dataclass(frozen=True)
class Process:
    """One process of a host: its command line and environment (beyond the machine's)."""

    role: str
    argv: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    #: Compose's healthcheck command, run on the host (None: a log line, or alive is enough).
    health: tuple[str, ...] | None = None
    #: A line of its log that says it is ready.
    ready_pattern: str | None = None


@dataclass
class Plan:
    """Hosts in order (start order), the processes of each, and the proxied links."""

    hosts: list[str]
    processes: dict[str, list[Process]]
    #: (client host, service) -> proxy port on the proxy host.
    links: dict[tuple[str, str], int]


@dataclass(frozen=True)
class LabShape:
    """How many of each host the lab lays out."""

    workers: int = 2
    gateways: int = 2
    worker_concurrency: int = 1
    #: The broker: ``redis`` (Compose's) or ``rabbitmq``.
    broker: str = "redis"
    #: The cache Redis as a primary (``cache``) and a replica (``cache-replica``) watched by three
    #: Sentinels (on ``cache``, ``cache-replica`` and ``broker``); the gateways and workers name
    #: the Sentinels (``redis+sentinel://``) and reach the primary directly, not through a proxy.
    sentinel: bool = False


#: The name the Sentinels know the cache primary by.
SENTINEL_SERVICE = "griot-cache"
SENTINEL_PORT = 26379
SENTINEL_HOSTS = ("cache", "cache-replica", "broker")


def _command(argv: Sequence[Any], env: Mapping[str, str]) -> tuple[str, ...]:
    out = [interpolate(str(a), env) for a in argv]
    if out[0] == "python":
        out[0] = sys.executable
    elif out[0] == "celery":
        out[:1] = [sys.executable, "-m", "celery"]
    elif out[0] == "redis-server":
        out[0] = shutil.which("redis-server") or "redis-server"
    return tuple(out)


def host_names(shape: LabShape) -> list[str]:
    return [
        "proxy",
        "cache",
        *(["cache-replica"] if shape.sentinel else []),
        "broker",
        "rules",
        *[f"gateway-{i + 1}" for i in range(shape.gateways)],
        *[f"worker-{i + 1}" for i in range(shape.workers)],
        "web",
        "client",
    ]


def plan(
    shape: LabShape,
    addresses: Mapping[str, str],
    data_dir: Path,
    compose: dict[str, Any] | None = None,
    outer_env: Mapping[str, str] | None = None,
) -> Plan:
    """The lab's hosts and processes from Compose's services. ``addresses``: host name -> address."""
    compose = compose or load_compose()
    services = compose["services"]
    outer = dict(os.environ if outer_env is None else outer_env)
    outer.setdefault("GRIOT_WORKER_CONCURRENCY", str(shape.worker_concurrency))
    hosts = host_names(shape)
    links: dict[tuple[str, str], int] = {}
    clients = [h for h in hosts if h.startswith(("gateway-", "worker-"))]
    proxied = ("broker",) if shape.sentinel else PROXIED
    for i, client in enumerate(clients):
        for j, service in enumerate(PROXIED):
            if service in proxied:
                links[(client, service)] = 20000 + 10 * i + j

    def resolve(value: str, host: str) -> str:
        def sub(m: re.Match[str]) -> str:
            service, port = m.group(1), m.group(2)
            if (host, service) in links:
                return f"{addresses['proxy']}:{links[(host, service)]}"
            if service == "gateway":
                # Compose's DNS name of a scaled service resolves to every replica.
                return gateway_target(addresses, port)
            return f"{addresses[service]}:{port}"

        return _SERVICE_REF.sub(sub, value)

    def environment(service: str, host: str) -> dict[str, str]:
        env = {
            k: resolve(interpolate(str(v), outer), host) for k, v in services[service]["environment"].items()
        }
        if shape.sentinel and "GRIOT_CACHE_URL" in env:
            db = env["GRIOT_CACHE_URL"].rsplit("/", 1)[-1]
            watchers = ",".join(f"{addresses[h]}:{SENTINEL_PORT}" for h in SENTINEL_HOSTS)
            env["GRIOT_CACHE_URL"] = f"redis+sentinel://{watchers}/{SENTINEL_SERVICE}/{db}"
        if "GRIOT_GATEWAY_API_KEYS_FILE" in env:
            env["GRIOT_GATEWAY_API_KEYS_FILE"] = str(API_KEYS_FILE)
        if shape.broker == "rabbitmq":
            env["GRIOT_BROKER_URL"] = f"amqp://guest:guest@{resolve('broker:6379', host)}//"
            # RabbitMQ carries the tasks; the results stay in Redis (the cache instance).
            env["GRIOT_RESULT_URL"] = resolve("redis://cache:6379/2", host)
        return env

    def health(service: str) -> tuple[str, ...] | None:
        test = services[service].get("healthcheck", {}).get("test")
        if not test or test[0] != "CMD":
            return None
        return _command(test[1:], outer)

    processes: dict[str, list[Process]] = {h: [] for h in hosts}
    redis_extra = ("--bind", "0.0.0.0", "--port", "6379", "--protected-mode", "no")
    cache_argv = _command(services["cache"]["command"], outer)
    processes["cache"].append(
        Process("redis", (*cache_argv, *redis_extra, "--dir", str(data_dir / "cache")), ready_pattern=None)
    )
    if shape.sentinel:
        replica_dir = data_dir / "cache-replica"
        processes["cache-replica"].append(
            Process(
                "redis",
                (
                    *cache_argv,
                    *redis_extra,
                    "--dir",
                    str(replica_dir),
                    "--replicaof",
                    addresses["cache"],
                    "6379",
                ),
            )
        )
    if shape.broker == "redis":
        broker_argv = _command(services["broker"]["command"], outer)
        processes["broker"].append(
            Process("redis", (*broker_argv, *redis_extra, "--dir", str(data_dir / "broker")))
        )
    else:
        processes["broker"].append(rabbitmq_process(addresses["broker"], data_dir / "broker"))
    if shape.sentinel:
        for host in SENTINEL_HOSTS:
            processes[host].append(sentinel_process(addresses["cache"], data_dir / host))
    processes["rules"].append(
        Process(
            "rules",
            _command(services["rules"]["command"], outer),
            environment("rules", "rules"),
            health=health("rules"),
        )
    )
    for host in hosts:
        if host.startswith("gateway-"):
            processes[host].append(
                Process(
                    "gateway",
                    _command(services["gateway"]["command"], outer),
                    environment("gateway", host),
                    health=health("gateway"),
                )
            )
        elif host.startswith("worker-"):
            argv = list(_command(services["worker"]["command"], outer))
            argv[argv.index("worker") + 1 : argv.index("worker") + 1] = ["--hostname", f"{host}@lab"]
            processes[host].append(
                Process("worker", tuple(argv), environment("worker", host), ready_pattern=r"\bready\.")
            )
    processes["web"].append(
        Process(
            "web",
            _command(services["web"]["command"], outer),
            environment("web", "web"),
            health=health("web"),
        )
    )
    return Plan(hosts, processes, links)


def gateway_target(addresses: Mapping[str, str], port: int | str = SERVICE_PORTS["gateway"]) -> str:
    """A gRPC target naming every gateway replica, as Compose's name ``gateway`` resolves to each
    (its clients balance over them with ``GRIOT_GRPC_LB_POLICY``, and go on through the others
    when one fails)."""
    names = sorted((h for h in addresses if h.startswith("gateway-")), key=lambda h: int(h.split("-")[1]))
    return "ipv4:" + ",".join(f"{addresses[h]}:{port}" for h in names)


def sentinel_process(primary: str, host_dir: Path) -> Process:
    """A Sentinel watching the cache primary (quorum 2 of 3; a primary silent for 2 s is down).
    Its configuration file is written here: Sentinel rewrites it as it learns."""
    host_dir.mkdir(parents=True, exist_ok=True)
    conf = host_dir / "sentinel.conf"
    conf.write_text(
        f"port {SENTINEL_PORT}\nbind 0.0.0.0\nprotected-mode no\ndir {host_dir}\n"
        f"sentinel monitor {SENTINEL_SERVICE} {primary} 6379 2\n"
        f"sentinel down-after-milliseconds {SENTINEL_SERVICE} 2000\n"
        f"sentinel failover-timeout {SENTINEL_SERVICE} 10000\n"
        f"sentinel parallel-syncs {SENTINEL_SERVICE} 1\n"
    )
    server = shutil.which("redis-server") or "redis-server"
    return Process("sentinel", (server, str(conf), "--sentinel"))


def rabbitmq_process(address: str, data_dir: Path) -> Process:
    """A private RabbitMQ node on the broker host (the server's own script, as tests/workers does),
    taking the ``guest`` user from other hosts (``loopback_users = none``: the lab's bridge reaches
    nothing else)."""
    script = "/usr/lib/rabbitmq/bin/rabbitmq-server"
    if not Path(script).exists():
        raise LabError("rabbitmq-server is not installed (make tools)")
    home = data_dir / "home"
    home.mkdir(parents=True, exist_ok=True)
    cookie = home / ".erlang.cookie"
    if not cookie.exists():
        cookie.write_text(os.urandom(16).hex().upper())
        cookie.chmod(0o400)
    (data_dir / "enabled_plugins").write_text("[].\n")
    (data_dir / "rabbitmq.conf").write_text("loopback_users = none\n")
    env = {
        "HOME": str(home),
        "RABBITMQ_NODENAME": "griotlab@localhost",
        "RABBITMQ_NODE_IP_ADDRESS": "0.0.0.0",
        "RABBITMQ_NODE_PORT": "5672",
        "RABBITMQ_DIST_PORT": "25672",
        "RABBITMQ_MNESIA_BASE": str(data_dir / "mnesia"),
        "RABBITMQ_LOG_BASE": str(data_dir / "log"),
        "RABBITMQ_ENABLED_PLUGINS_FILE": str(data_dir / "enabled_plugins"),
        "RABBITMQ_CONFIG_FILE": str(data_dir / "rabbitmq"),
        "RABBITMQ_ADVANCED_CONFIG_FILE": str(data_dir / "advanced.config"),
        "RABBITMQ_CONF_ENV_FILE": str(data_dir / "rabbitmq-env.conf"),
        "ERL_CRASH_DUMP": str(data_dir / "erl_crash.dump"),
    }
    return Process("rabbitmq", (script,), env, ready_pattern=r"Starting broker\.\.\. completed")
