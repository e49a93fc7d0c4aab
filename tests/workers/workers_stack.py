"""Real parts on loopback: redis-server instances (broker/results and the cache) and Celery worker
processes (prefork pool). No eager mode, no fake Redis. Every fixture and test is bounded in time."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

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

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None

    def restart(self, down_for: float = 0.0) -> None:
        self.stop()
        time.sleep(down_for)
        self.start(new_port_if_taken=False)


@dataclass
class Stack:
    broker: RedisServer
    cache: RedisServer
    env: dict[str, str]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="griot-workers-")))

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
            return make_app(Settings.from_env())
        finally:
            os.environ.clear()
            os.environ.update(old)


def make_stack(inflight_ms: int = 3000, visibility_timeout: int = 120) -> Stack:
    broker = RedisServer(free_port())
    cache = RedisServer(free_port(), ["--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru"])
    broker.start()
    cache.start()
    env = {
        **os.environ,
        "GRIOT_BROKER_URL": broker.url,
        "GRIOT_CACHE_URL": cache.url,
        "GRIOT_CACHE_MIN_DEPTH": "6",
        "GRIOT_HASH_MB": "16",
        "GRIOT_TASK_SOFT_LIMIT": "60",
        "GRIOT_TASK_HARD_LIMIT": "90",
        "GRIOT_VISIBILITY_TIMEOUT": str(visibility_timeout),
        "GRIOT_INFLIGHT_TTL_MS": str(inflight_ms),
        # This tree first, then the caller's path (a core built from this tree, say).
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    return Stack(broker, cache, env)


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    s = make_stack()
    try:
        yield s
    finally:
        s.stop_workers()
        s.broker.stop()
        s.cache.stop()


@pytest.fixture(scope="module")
def two_workers(stack: Stack) -> Iterator[Stack]:
    app = stack.app()
    stack.start_worker("w1")
    stack.start_worker("w2")
    stack.wait_ready(app, 2)
    yield stack
