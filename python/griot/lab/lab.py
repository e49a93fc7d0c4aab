"""The lab as a whole: lays out the hosts (:mod:`griot.lab.netns`), starts on each what
:mod:`griot.lab.layout` reads from Compose, puts a Toxiproxy proxy on every link to Redis and the
broker, and drives faults. ``with Lab(...) as lab:`` tears everything down on the way out, also
on an error or Ctrl-C; an ``atexit`` hook and the sweep at set-up cover a process that died
before its ``finally`` ran.
"""

from __future__ import annotations

import atexit
import json
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from griot.lab import layout
from griot.lab.netns import DEFAULT_PREFIX, DEFAULT_SUBNET, Host, LabError, Network
from griot.lab.toxiproxy import API_PORT, Link, Toxiproxy, server_binary

#: Seconds the whole lab may take to come up.
START_TIMEOUT = 120.0


@dataclass
class Running:
    """A started process of a host."""

    spec: layout.Process
    popen: subprocess.Popen[bytes]
    log_path: Path
    log: IO[bytes]
    #: Where this run's lines start in the log (a restarted host appends to its log).
    log_offset: int = 0


class Lab:
    """Hosts on one bridge running Griot as Compose does. ``up()`` is idempotent (a previous lab
    with the same prefix is swept first); ``down()`` leaves no namespace, interface or process."""

    def __init__(
        self,
        shape: layout.LabShape | None = None,
        prefix: str = DEFAULT_PREFIX,
        subnet: str = DEFAULT_SUBNET,
        data_dir: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.shape = shape or layout.LabShape()
        self.net = Network(prefix, subnet)
        self._own_dir = data_dir is None
        self.data_dir = data_dir or Path(tempfile.mkdtemp(prefix="griot-lab-"))
        self.extra_env = dict(env or {})
        self.running: dict[str, list[Running]] = {}
        self.plan: layout.Plan | None = None
        self.toxiproxy: Toxiproxy | None = None
        self._atexit = False

    # --- lifecycle ------------------------------------------------------------------------------

    def __enter__(self) -> Lab:
        try:
            self.up()
        except BaseException:
            self.down()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.down()

    @property
    def hosts(self) -> dict[str, Host]:
        return self.net.hosts

    def address(self, host: str) -> str:
        return self.net.hosts[host].address

    def up(self, timeout: float = START_TIMEOUT) -> None:
        binary = server_binary()
        if binary is None:
            raise LabError("toxiproxy-server is not installed (make deploy-tools)")
        if not self._atexit:
            atexit.register(self.down)
            self._atexit = True
        names = layout.host_names(self.shape)
        self.net.up(names)
        addresses = {n: h.address for n, h in self.net.hosts.items()}
        env = {**_base_env(), **self.extra_env}
        self.plan = layout.plan(self.shape, addresses, self.data_dir, outer_env={**env})
        for host in self.plan.hosts:
            (self.data_dir / host).mkdir(parents=True, exist_ok=True)
        (self.data_dir / "cache").mkdir(exist_ok=True)
        (self.data_dir / "broker").mkdir(exist_ok=True)
        deadline = time.monotonic() + timeout
        # The proxy host first: every link goes through it.
        proxy_addr = addresses["proxy"]
        self._start(
            "proxy",
            layout.Process("toxiproxy", (binary, "-host", proxy_addr, "-port", str(API_PORT))),
        )
        self.toxiproxy = Toxiproxy(
            f"http://{proxy_addr}:{API_PORT}", runner=lambda fn: self.net.call("proxy", fn)
        )
        _poll("Toxiproxy's API", self._toxiproxy_answers, deadline, self)
        for (client, service), port in self.plan.links.items():
            upstream_port = 5672 if (service == "broker" and self.shape.broker == "rabbitmq") else 6379
            self.toxiproxy.create(
                Link(
                    link_name(client, service),
                    f"{proxy_addr}:{port}",
                    f"{addresses[service]}:{upstream_port}",
                )
            )
        for host in self.plan.hosts:
            for proc in self.plan.processes[host]:
                self._start(host, proc)
            for proc in self.plan.processes[host]:
                self._wait_ready(host, proc, deadline)

    def down(self) -> None:
        for runs in self.running.values():
            for r in runs:
                _stop(r.popen)
                r.log.close()
        self.running.clear()
        self.net.down()
        if self._own_dir and self.data_dir.exists() and not _keep_logs():
            shutil.rmtree(self.data_dir, ignore_errors=True)

    # --- processes ------------------------------------------------------------------------------

    def _env(self, proc: layout.Process, env: dict[str, str] | None) -> dict[str, str]:
        """A process's environment (and its health probe's): the lab's, the process's, ``env``."""
        return {**_base_env(), **self.extra_env, **proc.env, **(env or {})}

    def _start(self, host: str, proc: layout.Process, env: dict[str, str] | None = None) -> Running:
        log_path = self.data_dir / host / f"{proc.role}.log"
        offset = log_path.stat().st_size if log_path.exists() else 0
        log = open(log_path, "ab")  # closed by down() or restart()
        popen = self.net.spawn(host, proc.argv, self._env(proc, env), log=log, cwd=self.data_dir / host)
        run = Running(proc, popen, log_path, log, offset)
        self.running.setdefault(host, []).append(run)
        return run

    def _wait_ready(
        self, host: str, proc: layout.Process, deadline: float, env: dict[str, str] | None = None
    ) -> None:
        run = next(r for r in self.running[host] if r.spec is proc)
        if proc.role in ("redis", "sentinel"):
            port = layout.SENTINEL_PORT if proc.role == "sentinel" else 6379
            _poll(
                f"{host}'s {proc.role}", lambda: self.redis_ping(host, port), deadline, self, alive=run.popen
            )
        elif proc.health is not None:
            probe_env = self._env(proc, env)
            health = proc.health

            def healthy() -> bool:
                # A probe that hangs (a service still binding its port) is a "not yet", like a
                # failing one: the start timeout, not the probe's, decides when to give up.
                left = max(1.0, min(10.0, deadline - time.monotonic()))
                try:
                    return self.net.run(host, health, probe_env, timeout=left).returncode == 0
                except subprocess.TimeoutExpired:
                    return False

            _poll(
                f"{host}'s {proc.role} health check",
                healthy,
                deadline,
                self,
                alive=run.popen,
            )
        elif proc.ready_pattern is not None:
            pattern = re.compile(proc.ready_pattern)
            _poll(
                f"{host}'s {proc.role} ready",
                lambda: bool(
                    pattern.search(run.log_path.read_bytes()[run.log_offset :].decode(errors="replace"))
                ),
                deadline,
                self,
                alive=run.popen,
            )

    def log(self, host: str, role: str | None = None) -> str:
        return "".join(
            r.log_path.read_text(errors="replace")
            for r in self.running.get(host, [])
            if role is None or r.spec.role == role
        )

    def restart(self, host: str, timeout: float = 90.0, env: dict[str, str] | None = None) -> None:
        """Starts again what the host ran (after :meth:`kill`, or stops it first); ``env``: settings
        over the lab's for this run of its processes (a later restart goes back to the lab's)."""
        assert self.plan is not None
        for r in self.running.pop(host, []):
            _stop(r.popen)
            r.log.close()
        deadline = time.monotonic() + timeout
        for proc in self.plan.processes[host]:
            self._start(host, proc, env)
        for proc in self.plan.processes[host]:
            self._wait_ready(host, proc, deadline, env)

    # --- faults ---------------------------------------------------------------------------------

    def cut(self, host: str) -> None:
        """The host's network is cut (its interface down): it neither sends nor receives."""
        self.net.cut(host)

    def heal(self, host: str) -> None:
        self.net.heal(host)

    def kill(self, host: str) -> None:
        """The host dies: every process on it SIGKILLed."""
        self.net.kill(host)
        for r in self.running.get(host, []):
            _reap(r.popen)

    def cut_link(self, host: str, service: str) -> None:
        """``host``'s link to ``service`` (``cache`` or ``broker``) carries nothing, and stays open."""
        assert self.toxiproxy is not None
        self.toxiproxy.blackhole(link_name(host, service))

    def heal_link(self, host: str, service: str) -> None:
        assert self.toxiproxy is not None
        self.toxiproxy.unblackhole(link_name(host, service))

    def latency(self, round_trip_ms: float, jitter_ms: float = 0.0) -> None:
        """Every link to Redis and the broker gets this round trip."""
        assert self.toxiproxy is not None and self.plan is not None
        for client, service in self.plan.links:
            self.toxiproxy.latency(link_name(client, service), round_trip_ms, jitter_ms)

    def links(self) -> list[str]:
        assert self.plan is not None
        return [link_name(c, s) for c, s in self.plan.links]

    # --- the client host ------------------------------------------------------------------------

    def gateway_target(self, hosts: Sequence[str] | None = None) -> str:
        """A gRPC target naming every gateway replica (the client balances over them, and goes on
        through the others when one fails)."""
        if hosts is None:
            return layout.gateway_target({n: h.address for n, h in self.net.hosts.items()})
        return "ipv4:" + ",".join(f"{self.address(h)}:{layout.SERVICE_PORTS['gateway']}" for h in hosts)

    def web_url(self) -> str:
        """The web server's base URL (the board and the browser API), as the client host calls it."""
        return f"http://{self.address('web')}:{layout.SERVICE_PORTS['web']}"

    def client_argv(self, *args: str) -> list[str]:
        return [
            sys.executable,
            "-m",
            "griot.lab.client",
            "--target",
            self.gateway_target(),
            "--web",
            self.web_url(),
            *args,
        ]

    def client(self, *args: str, timeout: float = 120.0) -> list[dict[str, Any]]:
        """Runs the lab's client (:mod:`griot.lab.client`) on the client host; its JSON lines."""
        result = self.net.run("client", self.client_argv(*args), client_env(), timeout=timeout)
        if result.returncode not in (0, 3):
            raise LabError(f"client {args}: exit {result.returncode}\n{result.stderr[-3000:]}")
        return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]

    def client_background(self, *args: str) -> subprocess.Popen[str]:
        """The lab's client on the client host, running on while the caller injects faults: read
        its JSON lines from ``stdout``."""
        return subprocess.Popen(
            ["ip", "netns", "exec", self.net.hosts["client"].namespace, *self.client_argv(*args)],
            env=client_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    # --- Redis, from inside the lab -------------------------------------------------------------

    def redis(self, host: str, fn: Callable[[Any], Any], port: int = 6379, db: int = 0) -> Any:
        """Calls ``fn(client)`` with a redis-py client of the Redis on ``host``, from inside its
        namespace."""
        import redis

        def call() -> Any:
            client = redis.Redis(host=self.address(host), port=port, db=db, socket_timeout=5)
            try:
                return fn(client)
            finally:
                client.close()

        return self.net.call(host, call)

    def redis_ping(self, host: str, port: int = 6379) -> bool:
        try:
            return bool(self.redis(host, lambda r: r.ping(), port=port))
        except Exception:
            return False

    def _toxiproxy_answers(self) -> bool:
        assert self.toxiproxy is not None
        try:
            self.toxiproxy.version()
            return True
        except Exception:
            return False


def link_name(client: str, service: str) -> str:
    return f"{client}->{service}"


def _base_env() -> dict[str, str]:
    """The environment every lab process starts from: the machine's, without anything that could
    send it elsewhere (proxies)."""
    import os

    env = {
        k: v
        for k, v in os.environ.items()
        if k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
        and not k.startswith(("GRIOT_", "CELERY_", "RABBITMQ_", "ERL_"))
    }
    env["PYTHONUNBUFFERED"] = "1"
    return env


def client_env() -> dict[str, str]:
    """The client host's environment: the SDK balances its calls over every replica the target
    names, as deploy/k8s has clients do (``GRIOT_GRPC_LB_POLICY``)."""
    return {**_base_env(), "GRIOT_GRPC_LB_POLICY": "round_robin"}


def _keep_logs() -> bool:
    import os

    return os.environ.get("GRIOT_LAB_KEEP_LOGS") == "1"


def _poll(
    what: str,
    check: Callable[[], bool],
    deadline: float,
    lab: Lab,
    alive: subprocess.Popen[bytes] | None = None,
) -> None:
    while True:
        if check():
            return
        if alive is not None and alive.poll() is not None:
            raise LabError(f"{what}: the process exited ({alive.returncode})\n{_tails(lab)}")
        if time.monotonic() > deadline:
            raise LabError(f"{what}: not within the lab's start timeout\n{_tails(lab)}")
        time.sleep(0.1)


def _tails(lab: Lab) -> str:
    out = []
    for host, runs in lab.running.items():
        for r in runs:
            text = r.log_path.read_text(errors="replace") if r.log_path.exists() else ""
            out.append(f"--- {host} {r.spec.role}\n{text[-1500:]}")
    return "\n".join(out)


def _stop(popen: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    if popen.poll() is None:
        try:
            popen.send_signal(signal.SIGTERM)
            popen.wait(grace)
        except subprocess.TimeoutExpired:
            popen.kill()
        except ProcessLookupError:
            pass
    _reap(popen)


def _reap(popen: subprocess.Popen[bytes]) -> None:
    try:
        popen.wait(5)
    except subprocess.TimeoutExpired:
        popen.kill()
        popen.wait(5)
