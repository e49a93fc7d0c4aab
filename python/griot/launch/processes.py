"""Component processes: free ports, command lines, health probes and the parent-death wrapper."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from griot.launch.components import ComponentSpec, Health


def module_available(name: str | None) -> bool:
    """Whether a component's module can be imported (without importing it)."""
    if name is None:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


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


def port_free(host: str, port: int) -> bool:
    """Whether nothing listens on ``port`` of ``host`` now (bound and released at once)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        # As the servers bind: a port whose last connection lingers in TIME_WAIT is free to them.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def http_ok(url: str, timeout: float) -> bool:
    """Whether ``url`` answers 200 (the web server's /healthz)."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
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


_MAIN_THREAD_IDENT = threading.main_thread().ident


def celery_worker_argv(name: str, queues: str, concurrency: int = 1, loglevel: str = "INFO") -> list[str]:
    """One search worker (prefork pool, no gossip or mingle) named ``name`` (``w1@%h``) on
    ``queues`` (comma-separated), for the test stacks and benches; the launcher's own workers
    are the ``worker`` component."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "griot.workers.app",
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


_PDEATHSIG = Path(__file__).parent.parent / "_pdeathsig.py"


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
    #: The replica's index and its filled-in template values, kept so a restart reuses its ports.
    index: int
    values: dict[str, Any]
    argv: list[str]
    health: Health
    popen: subprocess.Popen[bytes]
    ready_event: threading.Event = field(default_factory=threading.Event)
    tail: list[str] = field(default_factory=list)
    #: When it was started (``time.monotonic``): how long it ran decides its restart delay.
    started: float = field(default_factory=time.monotonic)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None


def killpg(pid: int, sig: int) -> None:
    """Signals a process group, if it still exists."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def wait_exit(proc: Process, timeout: float) -> None:
    """Waits up to ``timeout`` seconds for a process to exit."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.popen.wait(timeout=timeout)
