"""Fixtures of the ops tests: real processes on 127.0.0.1 (redis-server, `griot up`), bounded in time."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from griot.launcher import free_port, redis_argv, redis_ping, with_parent_death

REDIS = shutil.which("redis-server")
needs_redis = pytest.mark.skipif(REDIS is None, reason="redis-server is not installed (.ci/run installs it)")


@dataclass
class Redis:
    url: str
    proc: subprocess.Popen[bytes]


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[Redis]:
    """A throwaway redis-server on a free loopback port."""
    if REDIS is None:
        pytest.skip("redis-server is not installed")
    port = free_port("127.0.0.1")
    proc = subprocess.Popen(
        with_parent_death(redis_argv(port, "--dir", str(tmp_path), "--loglevel", "warning", server=REDIS)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 10
    while not redis_ping(url, 0.2):
        assert time.monotonic() < deadline, "redis-server did not start"
        time.sleep(0.05)
    yield Redis(url, proc)
    proc.terminate()
    proc.wait(10)


@dataclass
class Up:
    """A `griot up` subprocess and what it printed."""

    proc: subprocess.Popen[str]
    state_file: Path
    lines: list[str] = field(default_factory=list)

    def wait_for(self, text: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(text in line for line in self.lines):
                return
            if self.proc.poll() is not None:
                time.sleep(0.2)
                raise AssertionError(f"griot up exited ({self.proc.returncode}):\n" + "\n".join(self.lines))
            time.sleep(0.05)
        raise AssertionError(f"{text!r} not printed in {timeout} s:\n" + "\n".join(self.lines))

    def output(self) -> str:
        return "\n".join(self.lines)


def start_up(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None, python: str = sys.executable
) -> Up:
    """Runs `griot up` (of ``python``'s installation) in ``tmp_path`` with ephemeral ports and its own
    state file."""
    state_file = tmp_path / "up.json"
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
    full_env.update({"GRIOT_STATE_FILE": str(state_file), "PYTHONUNBUFFERED": "1"})
    full_env.update(env or {})
    argv = [
        python,
        "-m",
        "griot.cli",
        "up",
        "--no-color",
        "--rules-port",
        "0",
        "--rules-metrics-port",
        "0",
        "--gateway-port",
        "0",
        "--gateway-metrics-port",
        "0",
        "--web-port",
        "0",
        "--worker-metrics-port",
        "0",
        "--start-timeout",
        "40",
        *args,
    ]
    proc = subprocess.Popen(
        with_parent_death(argv),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=full_env,
        cwd=tmp_path,
    )
    up = Up(proc, state_file)

    def read() -> None:
        assert proc.stdout is not None
        with proc.stdout:
            for line in proc.stdout:
                up.lines.append(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return up


def start_make_up(tmp_path: Path, env: dict[str, str]) -> Up:
    """Runs the README's ``make up`` from the checkout (its installs, the board's build, then `griot
    up` with the settings in ``env``, ``GRIOT_*`` variables for its options), in a session of its
    own: stop it with ``os.killpg``, as Ctrl-C stops a terminal's foreground group."""
    state_file = tmp_path / "up.json"
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
    full_env.update({"GRIOT_STATE_FILE": str(state_file), "PYTHONUNBUFFERED": "1", **env})
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "-C", str(root), f"PYTHON={sys.executable}", "up"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=full_env,
        start_new_session=True,
    )
    up = Up(proc, state_file)

    def read() -> None:
        assert proc.stdout is not None
        with proc.stdout:
            for line in proc.stdout:
                up.lines.append(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return up


def stop_up(up: Up, sig: int = signal.SIGINT, timeout: float = 30) -> int:
    if up.proc.poll() is None:
        up.proc.send_signal(sig)
    try:
        return up.proc.wait(timeout)
    except subprocess.TimeoutExpired:
        up.proc.kill()
        raise


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes (its parent has not reaped it yet).
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False
    return True


def wait_gone(pids: list[int], timeout: float = 10) -> list[int]:
    deadline = time.monotonic() + timeout
    alive = pids
    while time.monotonic() < deadline:
        alive = [p for p in pids if pid_alive(p) or (group_alive(p) and _group_has_live(p))]
        if not alive:
            return []
        time.sleep(0.1)
    return alive


def _group_has_live(pgid: int) -> bool:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        rest = stat.rsplit(") ", 1)[1].split()
        if int(rest[2]) == pgid and rest[0] != "Z":
            return True
    return False
