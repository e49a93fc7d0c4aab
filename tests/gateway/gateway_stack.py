"""Real parts on loopback for the gateway tests: the workers' stack (two redis-servers, Celery
worker processes; ``tests/workers/workers_stack.py``), the rules service and gateway processes
(``python -m griot.services.gateway``). Every wait is bounded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from griot.launcher import with_parent_death
from grpc_health.v1 import health_pb2, health_pb2_grpc

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "workers"))

from workers_stack import ROOT, Stack, free_port, make_stack  # noqa: E402

ANALYSIS = "griot.v1.AnalysisService"


def wait_serving(
    target: str, service: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 60
) -> None:
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"{target} exited with {proc.returncode}: {log.read_text()[-3000:]}")
        with grpc.insecure_channel(target) as ch:
            try:
                r = health_pb2_grpc.HealthStub(ch).Check(
                    health_pb2.HealthCheckRequest(service=service), timeout=0.5
                )
                if r.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
        time.sleep(0.1)
    raise RuntimeError(f"{target} not serving after {timeout} s: {log.read_text()[-3000:]}")


@dataclass
class Gateway:
    stack: Stack
    args: list[str]
    port: int = field(default_factory=free_port)
    metrics_port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.stack.logdir / f"gateway-{self.port}-{self.starts}.log"

    def start(self) -> Gateway:
        self.starts += 1
        out = open(self.log, "wb")
        self.proc = subprocess.Popen(
            with_parent_death(
                [
                    sys.executable,
                    "-m",
                    "griot.services.gateway",
                    "--port",
                    str(self.port),
                    "--metrics-port",
                    str(self.metrics_port),
                    "--log-format",
                    "text",
                    "--grace-seconds",
                    "1",
                    *self.args,
                ]
            ),
            cwd=ROOT,
            env=self.stack.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        out.close()  # the child has its own copy of the descriptor
        wait_serving(self.target, ANALYSIS, self.proc, self.log)
        return self

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        self.proc = None

    def metrics(self) -> str:
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5) as r:
            return r.read().decode()

    def metric(self, name: str, **labels: str) -> float:
        """The value of one sample of the gateway's /metrics (0 when absent)."""
        want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
        for line in self.metrics().splitlines():
            if line.startswith("#"):
                continue
            key, _, value = line.rpartition(" ")
            if (
                key == name
                or key == f"{name}{{{want}}}"
                or (
                    key.startswith(name + "{")
                    and labels
                    and all(f'{k}="{v}"' in key for k, v in labels.items())
                )
            ):
                return float(value)
        return 0.0


def start_rules(stack: Stack) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    log = stack.logdir / "rules.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            with_parent_death(
                [sys.executable, "-m", "griot.services.rules", "--port", str(port), "--metrics-port", "off"]
            ),
            cwd=ROOT,
            env=stack.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    target = f"127.0.0.1:{port}"
    wait_serving(target, "griot.v1.RulesService", proc, log)
    return proc, target


def worker_task_counts(stack: Stack, settle: float = 15.0) -> int:
    """Tasks the workers received, by their own count (``celery inspect stats``), once they are
    idle (no task running, the count steady), so that earlier tests' tasks are not counted later."""
    from griot.monitor import queue_lengths

    app = stack.app()
    try:
        last = None
        end = time.time() + settle
        while True:
            inspect = app.control.inspect(timeout=1.0)
            stats = inspect.stats() or {}
            active = inspect.active() or {}
            count = sum(sum(s.get("total", {}).values()) for s in stats.values())
            queued = sum(queue_lengths(stack.broker.url, ("griot.interactive", "griot.batch")).values())
            if (count == last and not any(active.values()) and not queued) or time.time() > end:
                return count
            last = count
            time.sleep(0.3)
    finally:
        app.close()


__all__ = ["Gateway", "Stack", "free_port", "make_stack", "start_rules", "worker_task_counts"]
