"""Supervision: ``griot up`` starts the components in order, waits until each is healthy, streams
their logs with a coloured prefix, restarts a component that dies, and on Ctrl-C / SIGTERM stops
everything in reverse order (SIGTERM to each process group, a timeout, then SIGKILL), leaving no
stray process.

A component that exits while the stack runs is started again with the same command line and ports,
after a delay that doubles with each restart that did not stay up (:class:`Backoff`: 1 s, 2 s, 4 s
... up to 30 s; a process that ran :data:`Backoff.stable_after` seconds resets it), as Docker
Compose's ``restart: always`` and Kubernetes' restart back-off do. The rest of the stack keeps
running meanwhile: a client of the dead part sees errors and retries, as in a deployment. A
component that fails while the stack is still starting stops the start (:class:`LaunchError`).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import click

from griot.egdb import default_dir as egdb_default_dir
from griot.launch import components, processes
from griot.launch.components import (
    COMMON_ENV,
    PORT_KEYS,
    SERVER_EXTRA,
    WEB_APP_DIST,
    ComponentSpec,
    Health,
    LaunchError,
    UpConfig,
    default_state_file,
)
from griot.launch.processes import (
    Process,
    grpc_health,
    http_ok,
    killpg,
    module_available,
    port_free,
    wait_exit,
    with_parent_death,
)
from griot.launch.redis_discovery import find_redis_server, mask_url, redis_db_url, redis_ping


@dataclass
class Backoff:
    """Restart delays of one component: ``first`` seconds, doubled after each restart, at most
    ``cap``; back to ``first`` once a process has stayed up ``stable_after`` seconds."""

    first: float = 1.0
    cap: float = 30.0
    stable_after: float = 60.0
    restarts: int = 0

    def delay(self, ran_for: float) -> float:
        """The wait before the next start of a process that exited after ``ran_for`` seconds."""
        if ran_for >= self.stable_after:
            self.restarts = 0
        d = min(self.cap, self.first * 2.0**self.restarts)
        self.restarts += 1
        return d


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


_WARNING_LEVELS = frozenset({"warning", "error", "critical", "fatal"})
#: Celery's log lines: ``[2026-01-02 10:11:12,345: WARNING/MainProcess] message``.
_CELERY_LINE = re.compile(r"^\[\d{4}-\d\d-\d\d [\d:,.]+: (?P<level>[A-Z]+)/[\w-]+\] (?P<msg>.*)$")
#: redis-server's: ``123:M 02 Jan 2026 10:11:12.345 # message`` (``#`` warning, ``*`` notice ...).
_REDIS_LINE = re.compile(r"^\d+:[A-Z] \d+ \w+ \d{4} [\d:.]+ (?P<mark>[.*#-]) (?P<msg>.*)$")
_REDIS_LEVELS = {".": "debug", "-": "info", "*": "info", "#": "warning"}
#: What redis-server logs at its warning level as it starts and stops: not news on a console.
_REDIS_CHATTER = re.compile(
    r"Redis is starting|Redis version=|Configuration loaded|Server initialized|Ready to accept|"
    r"User requested shutdown|ready to exit|Received SIG\w+ scheduling shutdown|Saving the final"
)
#: A Python warning written to stderr: ``path.py:12: SomeWarning: message``.
_PY_WARNING = re.compile(r"^\S+:\d+: (?P<msg>\w*Warning: .*)$")


def classify_line(line: str) -> tuple[str | None, str]:
    """A component's log line as (level, message without time or pid); level None for a line
    without a known format (a traceback's, a banner's, a continuation)."""
    if line.startswith("{"):
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if isinstance(record, dict) and "msg" in record:
            return str(record.get("level", "info")).lower(), f"{record.get('logger', '')}: {record['msg']}"
    m = _CELERY_LINE.match(line)
    if m:
        return m["level"].lower(), m["msg"]
    m = _REDIS_LINE.match(line)
    if m:
        return "info" if _REDIS_CHATTER.search(m["msg"]) else _REDIS_LEVELS[m["mark"]], m["msg"]
    if "scheduling shutdown" in line:
        return "info", line
    m = _PY_WARNING.match(line)
    if m:
        return "warning", m["msg"]
    return None, line


class QuietFilter:
    """What the console shows without ``--verbose``: each warning once however many components
    print it (every worker warns of the same thing, both Redis servers too), every error, and the
    lines that continue an error (its traceback). Information lines (Celery's per-task lines,
    banners, start-up chatter) stay out; the launcher's own lines say what runs, and a process that
    exits has its last lines shown."""

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.continuing: dict[str, bool] = {}

    def show(self, component: str, line: str) -> bool:
        level, message = classify_line(line)
        if level is None:
            return self.continuing.get(component, False) and bool(line.strip())
        if level == "warning":
            shown = message not in self.seen
            self.seen.add(message)
        else:
            shown = level in _WARNING_LEVELS
        self.continuing[component] = shown and level != "warning"
        return shown


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
    """Starts, supervises and stops the components. Use :meth:`run` (blocking, handles signals) or
    :meth:`start` / :meth:`stop` (tests, embedding)."""

    def __init__(self, config: UpConfig, out: IO[str] | None = None) -> None:
        self.config = config
        self.out = out or sys.stdout
        self.processes: list[Process] = []
        #: The lock on this system's state file while it runs (:meth:`claim`).
        self._lock_fd: int | None = None
        self.lines: queue.Queue[tuple[str, str, str]] = queue.Queue()
        self.stopping = threading.Event()
        self.tmpdir = tempfile.mkdtemp(prefix="griot-up-")
        self.values: dict[str, Any] = {}
        self.active: list[ComponentSpec] = []
        self.skipped: list[tuple[str, str]] = []
        self.redis_origin = ""
        self.board = False
        self._width = 8
        self._backoff: dict[str, Backoff] = {}
        self.quiet = None if config.verbose else QuietFilter()

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

    def show_line(self, name: str, color: str, line: str) -> None:
        """A component's log line on the console, unless the quiet console leaves it out."""
        if self.quiet is None or self.quiet.show(name, line):
            self.echo(name, color, render_line(line, self.config.log_format))

    def show_tail(self, proc: Process) -> None:
        """The last lines of a process that exited, which the quiet console may have left out."""
        if self.quiet is not None and proc.tail:
            self.echo(proc.name, proc.spec.color, "last output:\n" + "\n".join(proc.tail[-15:]))

    def drain(self) -> None:
        """Prints the log lines read so far."""
        while True:
            try:
                name, color, line = self.lines.get_nowait()
            except queue.Empty:
                return
            self.show_line(name, color, line)

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
            # One directory of endgame databases for the whole stack: the CLI's, by the same rule.
            "egdb_dir": str(egdb_default_dir()),
        }
        self.board = (WEB_APP_DIST / "index.html").is_file()
        v["web_static"] = str(WEB_APP_DIST) if self.board else "off"
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
        for spec in components.COMPONENTS:
            group = "workers" if spec.name == "worker" else spec.name
            if spec.redis_role is not None and not private[spec.redis_role]:
                self.skipped.append((spec.name, f"external Redis {mask_url(v[spec.redis_role + '_url'])}"))
            elif group in c.skip or spec.name in c.skip:
                self.skipped.append((spec.name, "skipped (--skip)"))
            elif not module_available(spec.module):
                self.skipped.append((spec.name, f"not installed (no module {spec.module})"))
            elif missing := [m for m in spec.requires if not module_available(m)]:
                self.skipped.append(
                    (spec.name, f"not started: needs {', '.join(missing)} (pip install '{SERVER_EXTRA}')")
                )
            else:
                self.active.append(spec)
        if any(s.redis_role for s in self.active):
            v["redis_server"], self.redis_origin = find_redis_server(c.redis_server)
        names = [p for s in self.active for p in self._names(s)]
        self._width = max([8, *(len(n) for n in names)])

    def _free_port(self) -> int:
        """A free port that no other component of this stack was given."""
        while True:
            port = processes.free_port(self.config.host)
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
        return self._launch(spec, name, index, values)

    def _launch(self, spec: ComponentSpec, name: str, index: int, values: dict[str, Any]) -> Process:
        """Starts one process of ``spec`` from its filled-in values (a restart passes the dead
        process's values, so it comes back on the same ports)."""
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
        proc = Process(name, spec, index, values, argv, health, popen)
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
                    self.show_tail(proc)
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

    def refuse_a_second(self) -> None:
        """A :class:`LaunchError` in one line when a system already runs under this state file: its
        pid, its ports and how to stop it, or how to run another beside it."""
        other = read_state(self.config.state_file)
        if other is None or other.get("pid") == os.getpid():
            return
        pid = other["pid"]
        name = self.config.name
        which = f"griot up --name {name}" if name else "griot up"
        ports = ", ".join(
            f"{key} {other[key]}"
            for key in ("rules", "gateway", "web", "broker_url", "cache_url")
            if other.get(key)
        )
        raise LaunchError(
            f"{which} already runs here (pid {pid}: {ports}; state {self.config.state_file}): stop it "
            f"with Ctrl-C in its terminal or `kill {pid}`, or run another beside it with --name NAME"
        )

    def claim(self) -> None:
        """Holds a lock beside the state file for as long as this process lives (the kernel drops it
        when the process ends, however it ends), so that of two ``griot up`` started at once under
        one state file, one runs and the other stops; then :meth:`refuse_a_second`."""
        try:
            import fcntl
        except ImportError:  # not on this system: the state file's check alone
            self.refuse_a_second()
            return
        path = self.config.state_file.with_name(self.config.state_file.name + ".lock")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            self.refuse_a_second()
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            self.refuse_a_second()  # the other one's pid and ports, once it has written them
            raise LaunchError(
                f"another griot up is starting with the state file {self.config.state_file}: "
                "wait for it, or run another beside it with --name NAME"
            ) from None
        self._lock_fd = fd
        self.refuse_a_second()  # a system that holds no lock (an older griot up)

    def release(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def check_ports(self) -> None:
        """A :class:`LaunchError` naming the first port given that something already listens on
        (without it, the component would fail to bind and be restarted again and again)."""
        host, active = self.config.host, {s.name for s in self.active}
        for key in PORT_KEYS:
            port = int(self.values.get(key) or 0)
            if not port or port != getattr(self.config, key) or key.split("_")[0] not in active:
                continue  # not given, or its component does not run here
            count = self.config.worker_count() if key == "worker_metrics_port" else 1
            busy = [p for p in range(port, port + count) if not port_free(host, p)]
            if busy:
                port = busy[0]
                raise LaunchError(
                    f"port {port} ({key.replace('_', '-')}) is in use on {host}: another system? "
                    "`griot status` shows the running one; `griot up --name NAME` runs one beside it "
                    "on free ports"
                )

    def start(self) -> None:
        """Plans, starts every component in order and waits until each is healthy. On failure,
        stops what was started and raises :class:`LaunchError`."""
        try:
            self.claim()
        except LaunchError:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            raise
        self.plan()
        self.check_ports()
        if self.redis_origin:
            self.say(f"redis-server: {self.values['redis_server']} ({self.redis_origin})")
        for name, why in self.skipped:
            self.say(f"{name}: {why}")
        if hasattr(os, "geteuid") and os.geteuid() == 0 and any(s.name == "worker" for s in self.active):
            # Said once here, instead of by every worker in several lines.
            self.say("warning: the Celery workers run as root, which Celery advises against")
        if not self.board and any(s.name == "web" for s in self.active):
            self.say(
                "web: the demo board is not built (make web-build in a checkout; "
                "a released package carries it): serving the browser API only"
            )
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
        other = read_state(path)
        if other is not None and other.get("pid") != os.getpid():
            return  # another system's: never overwritten (start refuses to run beside it)
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.state(), indent=2))
            tmp.replace(path)

    def remove_state(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            if json.loads(self.config.state_file.read_text()).get("pid") == os.getpid():
                self.config.state_file.unlink()

    def join_line(self) -> str:
        """The command that joins one more worker to this system from this machine."""
        name = self.config.name
        line = f"griot worker --name {name}" if name else "griot worker"
        if self.config.state_file != default_state_file(name):
            line += f" --state-file {shlex.quote(str(self.config.state_file))}"
        return line

    def banner(self) -> str:
        v = self.values
        lines = ["", "griot is up:"]
        for spec in self.active:
            for label, template in spec.endpoints:
                lines.append(f"  {label:<28} {mask_url(_fill(template, v))}")
        rules = f"{v['host']}:{v['rules_port']}"
        lines += [
            "",
            "Try it:",
            "  griot status                 # health, workers, queues, cache",
            "  griot play abapa             # a game in the terminal against the engine",
            "  griot analyze abapa --depth 12",
            f"  {self.join_line()}{' ' * max(1, 29 - len(self.join_line()))}# one more search worker joins",
            "  python -c 'from griot.client import RulesClient; "
            f'print(RulesClient("{rules}").start_position("abapa").legal_moves)\'',
            f"  grpcurl -plaintext {rules} list   # any gRPC tool: the servers offer reflection",
            "",
            "A worker on another host (Redis listening on an address it reaches):",
            f"  griot worker --broker-url {mask_url(v['broker_url'])} --cache-url {mask_url(v['cache_url'])}",
            "",
            "Ctrl-C stops everything.",
        ]
        return "\n".join(lines)

    # -- watching and stopping -------------------------------------------------------------------

    def watch(self) -> int:
        """Streams logs and restarts the components that exit, until a signal (exit status 0)."""
        due: dict[int, float] = {}  # index in self.processes -> when its restart is due
        recovering: set[int] = set()  # restarted, not yet reported healthy
        while not self.stopping.is_set():
            try:
                name, color, line = self.lines.get(timeout=0.2)
                self.show_line(name, color, line)
            except queue.Empty:
                pass
            now = time.monotonic()
            for i, proc in enumerate(self.processes):
                if i in due:
                    if now >= due[i]:
                        del due[i]
                        self.processes[i] = self._launch(proc.spec, proc.name, proc.index, proc.values)
                        recovering.add(i)
                        self.say(f"{proc.name} restarted (pid {self.processes[i].pid})")
                        self.write_state()
                    continue
                if not proc.alive():
                    killpg(proc.pid, signal.SIGKILL)  # what it forked (a worker's pool) goes with it
                    self.drain()
                    backoff = self._backoff.setdefault(proc.name, Backoff())
                    delay = backoff.delay(now - proc.started)
                    self.say(
                        f"{proc.name} exited unexpectedly (status {proc.popen.returncode}); "
                        f"restarting in {delay:g} s"
                    )
                    self.show_tail(proc)
                    due[i] = now + delay
                    recovering.discard(i)
                elif i in recovering and self._healthy(proc):
                    recovering.discard(i)
                    self.say(f"{proc.name} is healthy again (pid {proc.pid})")
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
                killpg(proc.pid, signal.SIGTERM)
                # One at a time, so that the gateway stops before the workers, the workers before Redis.
                wait_exit(proc, max(0.0, deadline - time.monotonic()))
                self.drain()
        for proc in self.processes:
            if proc.alive():
                self.say(f"{proc.name} did not stop in {self.config.stop_timeout:g} s: SIGKILL")
                killpg(proc.pid, signal.SIGKILL)
                wait_exit(proc, 5)
            killpg(proc.pid, signal.SIGKILL)  # stragglers in the group (forked children)
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
            self.release()
            for s, handler in previous.items():
                signal.signal(s, handler)


def _queues() -> tuple[str, ...]:
    from griot.redis_keys import queues

    return queues()


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
