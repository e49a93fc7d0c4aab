"""Real parts on loopback: redis-server instances (broker/results and the cache) and Celery worker
processes (prefork pool). No eager mode, no fake Redis. Every fixture and test is bounded in time."""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from griot.launcher import celery_worker_argv, redis_argv, with_parent_death
from griot.launcher import free_port as launcher_free_port

ROOT = Path(__file__).resolve().parents[2]

if shutil.which("redis-server") is None:
    pytest.skip("redis-server is not installed", allow_module_level=True)
celery = pytest.importorskip("celery")
redis = pytest.importorskip("redis")


def free_port() -> int:
    """A loopback port nobody listens on, below the ephemeral range (see griot.launcher.free_port)."""
    return launcher_free_port("127.0.0.1")


@dataclass
class RedisServer:
    port: int
    extra: list[str] = field(default_factory=list)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, new_port_if_taken: bool = True) -> None:
        """Start it and wait until it answers. If it exits at once (its port was taken between the
        pick and its bind), try again: on a fresh port for a first start, on the same port for a
        restart (whose clients must find it where it was)."""
        deadline = time.monotonic() + 30
        while True:
            if self._spawn_and_ping(deadline):
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"redis-server on {self.port} did not start")
            if new_port_if_taken:
                self.port = free_port()
            else:
                time.sleep(0.2)

    def _spawn_and_ping(self, deadline: float) -> bool:
        self.proc = subprocess.Popen(
            with_parent_death(redis_argv(self.port, "--protected-mode", "no", *self.extra)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port)
        try:
            while time.monotonic() < deadline:
                try:
                    client.ping()
                    return True
                except redis.ConnectionError:
                    if self.proc.poll() is not None:
                        self.proc = None
                        return False
                    time.sleep(0.05)
            self.stop()
            return False
        finally:
            client.close()

    def flushdb(self) -> None:
        """Empties database 0 (on a client closed at once)."""
        with redis.Redis.from_url(self.url) as client:
            client.flushdb()

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None

    def restart(self, down_for: float = 0.0) -> None:
        self.stop()
        time.sleep(down_for)
        self.start(new_port_if_taken=False)


# The server's own script, not Debian's /usr/sbin wrapper (which switches to the rabbitmq user
# and its /var/lib/rabbitmq): the node runs as the tests' user in the tests' directories.
RABBITMQ = next(
    (p for p in ("/usr/lib/rabbitmq/bin/rabbitmq-server",) if Path(p).exists()),
    shutil.which("rabbitmq-server"),
)
#: The brokers the broker-facing tests run on.
BROKERS = ("redis", "rabbitmq")


@dataclass
class RabbitServer:
    """A private rabbitmq-server on loopback: its own node name, AMQP and distribution ports, data
    and log directories, Erlang cookie (in its own HOME) and epmd port, so that it neither meets
    nor disturbs another Erlang node on the machine. No plugins (no management API)."""

    base: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="griot-rabbitmq-")))
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    epmd_port: int = 0

    @property
    def url(self) -> str:
        return f"amqp://guest:guest@127.0.0.1:{self.port}//"

    def _env(self) -> dict[str, str]:
        home = self.base / "home"
        home.mkdir(exist_ok=True)
        cookie = home / ".erlang.cookie"
        if not cookie.exists():
            cookie.write_text(os.urandom(16).hex().upper())
            cookie.chmod(0o400)
        plugins = self.base / "enabled_plugins"
        plugins.write_text("[].\n")
        name = f"griot{self.port}@localhost"
        return {
            **{k: v for k, v in os.environ.items() if not k.startswith(("RABBITMQ_", "ERL_"))},
            "HOME": str(home),
            "RABBITMQ_NODENAME": name,
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_DIST_PORT": str(free_port()),
            "ERL_EPMD_PORT": str(self.epmd_port),
            "ERL_EPMD_ADDRESS": "127.0.0.1",
            "RABBITMQ_MNESIA_BASE": str(self.base / "mnesia"),
            "RABBITMQ_LOG_BASE": str(self.base / "log"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(plugins),
            "RABBITMQ_CONFIG_FILE": str(self.base / "rabbitmq"),
            "RABBITMQ_ADVANCED_CONFIG_FILE": str(self.base / "advanced.config"),
            "RABBITMQ_CONF_ENV_FILE": str(self.base / "rabbitmq-env.conf"),
            "ERL_CRASH_DUMP": str(self.base / "erl_crash.dump"),
        }

    def start(self, timeout: float = 120.0) -> None:
        """Start it and wait until it takes an AMQP connection."""
        from kombu import Connection

        assert RABBITMQ is not None
        self.port = self.port or free_port()
        self.epmd_port = self.epmd_port or free_port()
        env = self._env()
        with open(self.base / "server.log", "ab") as log:
            self.proc = subprocess.Popen(
                with_parent_death([RABBITMQ]),
                env=env,
                cwd=self.base,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"rabbitmq-server exited: {(self.base / 'server.log').read_text()[-3000:]}"
                )
            try:
                with Connection(self.url, connect_timeout=1) as conn:  # type: ignore[no-untyped-call]
                    conn.ensure_connection(max_retries=1)
                return
            except Exception:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"rabbitmq-server on {self.port} did not start; logs in {self.base}")

    def stop(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
            self.proc = None
        # The node started an epmd on its private port (a daemon of its own session): stop it.
        epmd = shutil.which("epmd") or "/usr/lib/erlang/bin/epmd"
        if self.epmd_port and Path(epmd).exists():
            subprocess.run(
                [epmd, "-port", str(self.epmd_port), "-kill"],
                env={**os.environ, "ERL_EPMD_PORT": str(self.epmd_port)},
                capture_output=True,
                timeout=10,
                check=False,
            )
        shutil.rmtree(self.base, ignore_errors=True)


@dataclass
class Stack:
    broker: RedisServer
    cache: RedisServer
    env: dict[str, str]
    #: The Celery broker when it is RabbitMQ (``broker`` then holds the results only).
    rabbit: RabbitServer | None = None
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    #: Every Celery app :meth:`app` made, closed by :meth:`stop` while its Redis still runs.
    apps: list[Any] = field(default_factory=list)
    logdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="griot-workers-")))
    #: False when ``cache`` is a Redis Cluster the stack borrowed (its owner stops it).
    owns_cache: bool = True

    @property
    def broker_url(self) -> str:
        """Celery's broker: RabbitMQ's URL, or the Redis ``broker``'s."""
        return self.rabbit.url if self.rabbit is not None else self.broker.url

    @property
    def result_url(self) -> str:
        """Celery's result backend (and the alive, cancel and progress keys): always Redis."""
        return self.broker.url

    def stop(self) -> None:
        """The callers' apps, the workers, then the servers.

        A task's ``AsyncResult`` tells its backend it is done when it is collected
        (``AsyncResult.__del__``), over the result Redis. Results held in reference cycles (a
        ``pytest.raises`` traceback, say) are collected whenever the collector next runs, which
        may be in a later test after this Redis is gone: the unsubscribe then fails there.
        Collecting them now, while Redis runs, keeps each module's results its own.
        """
        gc.collect()
        for app in self.apps:
            app.close()
        self.apps.clear()
        self.stop_workers()
        if self.rabbit is not None:
            self.rabbit.stop()
        self.broker.stop()
        if self.owns_cache:
            self.cache.stop()

    def start_worker(
        self,
        name: str,
        concurrency: int = 1,
        queues: str = "griot.interactive,griot.batch",
        extra_env: dict[str, str] | None = None,
    ) -> subprocess.Popen[bytes]:
        with open(self.logdir / f"{name}.log", "wb") as log:
            proc = subprocess.Popen(
                with_parent_death(celery_worker_argv(f"{name}@%h", queues, concurrency)),
                cwd=ROOT,
                env={**self.env, **(extra_env or {})},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.workers.append(proc)
        return proc

    def wait_ready(self, app: object, count: int, timeout: float = 60.0) -> None:
        end = time.time() + timeout
        while time.time() < end:
            replies = app.control.ping(timeout=0.5) or []  # type: ignore[attr-defined]
            if len(replies) >= count:
                return
        raise RuntimeError(f"{count} workers did not answer in {timeout} s; logs in {self.logdir}")

    def stop_workers(self) -> None:
        for p in self.workers:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.workers:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=5)
        self.workers.clear()

    def app(self):  # type: ignore[no-untyped-def]
        from griot.workers.app import make_app
        from griot.workers.config import Settings

        old = dict(os.environ)
        os.environ.update(self.env)
        try:
            app = make_app(Settings.from_env())
        finally:
            os.environ.clear()
            os.environ.update(old)
        self.apps.append(app)
        return app


def make_stack(
    inflight_ms: int = 3000,
    visibility_timeout: int = 120,
    broker_kind: str = "redis",
    cache_cluster: Any = None,
) -> Stack:
    """Redis for results (``broker``) and the cache; Celery's broker on that Redis too, or with
    ``broker_kind="rabbitmq"`` on a private RabbitMQ. ``cache_cluster``: a running Redis Cluster
    (``redis_cluster.RedisClusterServers``) as the cache instead, left running by :meth:`Stack.stop`."""
    broker = RedisServer(free_port())
    cache = cache_cluster or RedisServer(
        free_port(), ["--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru"]
    )
    rabbit = RabbitServer() if broker_kind == "rabbitmq" else None
    broker.start()
    if cache_cluster is None:
        cache.start()
    if rabbit is not None:
        try:
            rabbit.start()
        except BaseException:
            broker.stop()
            if cache_cluster is None:
                cache.stop()
            raise
    env = {
        **os.environ,
        "GRIOT_BROKER_URL": rabbit.url if rabbit is not None else broker.url,
        "GRIOT_RESULT_URL": broker.url,
        "GRIOT_CACHE_URL": cache.url,
        "GRIOT_CACHE_CLUSTER": "1" if cache_cluster is not None else "0",
        "GRIOT_CACHE_MIN_DEPTH": "6",
        "GRIOT_HASH_MB": "16",
        "GRIOT_TASK_SOFT_LIMIT": "60",
        "GRIOT_TASK_HARD_LIMIT": "90",
        "GRIOT_VISIBILITY_TIMEOUT": str(visibility_timeout),
        "GRIOT_INFLIGHT_TTL_MS": str(inflight_ms),
        # No endgame databases a developer built in the default directory: a test that wants some
        # gives its own directory.
        "GRIOT_EGDB_DIR": os.path.join(tempfile.gettempdir(), "griot-tests-no-egdb"),
        # This tree first, then the caller's path (a core built from this tree, say).
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    return Stack(broker, cache, env, rabbit=rabbit, owns_cache=cache_cluster is None)


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    s = make_stack()
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture(scope="module")
def two_workers(stack: Stack) -> Iterator[Stack]:
    app = stack.app()
    stack.start_worker("w1")
    stack.start_worker("w2")
    stack.wait_ready(app, 2)
    yield stack
