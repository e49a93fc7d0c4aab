"""`griot up` as a user runs it: a real subprocess, real redis-server and rules service on loopback
(ephemeral ports), health, a call through griot.client, `griot status`, then signals; every child
process must be gone afterwards."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import queue
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import griot
import pytest
from griot.client import AnalysisClient, RulesClient
from griot.launcher import redis_ping
from griot.v1 import analysis_pb2

from .conftest import Up, needs_redis, pid_alive, start_make_up, start_up, stop_up, wait_gone

pytestmark = needs_redis

UP_TIMEOUT = 60


def _status(state_file: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
    env["GRIOT_STATE_FILE"] = str(state_file)
    return subprocess.run(
        [sys.executable, "-m", "griot.cli", "status", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (Celery's pool processes under a worker)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
    return found


def _loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or (mapped is not None and mapped.is_loopback)


def _listening(pids: list[int]) -> dict[int, str]:
    """Port -> address of every TCP socket listening in these processes (read from /proc, no traffic)."""
    by_inode: dict[str, tuple[str, int]] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] != "0A":  # LISTEN
                continue
            address, port = fields[1].split(":")
            raw = bytes.fromhex(address)
            # /proc writes each 32-bit word of the address in host (little-endian) order.
            words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
            by_inode[fields[9]] = (
                socket.inet_ntop(socket.AF_INET if len(raw) == 4 else socket.AF_INET6, words),
                int(port, 16),
            )
    out: dict[int, str] = {}
    for pid in pids:
        for proc in _descendants(pid):
            with contextlib.suppress(OSError):
                for fd in Path(f"/proc/{proc}/fd").iterdir():
                    with contextlib.suppress(OSError):
                        target = os.readlink(fd)
                        if target.startswith("socket:[") and target[8:-1] in by_inode:
                            address, port = by_inode[target[8:-1]]
                            out[port] = address
    return out


def test_up_serves_reports_and_stops_clean_on_ctrl_c(tmp_path: Path) -> None:
    up = start_up(tmp_path, "--workers", "1")
    try:
        up.wait_for("griot is up", UP_TIMEOUT)
        up.wait_for("Ctrl-C stops everything", 30)  # the banner's last line: all of it is read
        state = json.loads(up.state_file.read_text())
        out = up.output()
        # The banner tells how to call it, with the real addresses.
        assert f"grpcurl -plaintext {state['rules']} list" in out
        assert "from griot.client import RulesClient" in out
        # How one more worker joins: from here, and from another host with the Redis servers' URLs.
        assert "  griot worker " in out
        assert f"griot worker --broker-url {state['broker_url']} --cache-url {state['cache_url']}" in out
        assert "rules is healthy" in out and "broker is healthy" in out and "cache is healthy" in out
        # Coloured prefixes are off (--no-color) but every line carries its component's name.
        assert all(re.match(r"^[\w-]+ +\| ", line) for line in up.lines if line), out

        with RulesClient(state["rules"], timeout=10) as rules:
            start = rules.start_position("abapa").position.notation
            assert rules.apply_move(start, "c").position.notation == "abapa 4,4,0,5,5,5/5,4,4,4,4,4 0-0 N 1 -"

        # The browser API (Connect, as a plain JSON POST) through the web server griot up started.
        request = urllib.request.Request(
            state["web"] + "/griot.v1.RulesService/StartPosition",
            data=b'{"variant": "abapa"}',
            headers={"Content-Type": "application/json"},
        )
        body = json.loads(urllib.request.urlopen(request, timeout=10).read())
        assert body["position"]["notation"] == "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"
        assert "demo board (browser)" in out

        metrics = urllib.request.urlopen(state["rules_metrics"], timeout=5).read().decode()
        assert 'griot_rpc_requests_total{code="OK",method="ApplyMove",service="RulesService"} 1.0' in metrics

        result = _status(up.state_file, "--json")
        assert result.returncode == 0, result.stdout + result.stderr
        report = json.loads(result.stdout)
        assert report["healthy"] is True
        # The rules service and the gateway, both healthy.
        assert [s["status"] for s in report["services"]] == ["SERVING", "SERVING"]
        roles = {r["role"]: r for r in report["redis"]}
        assert roles["broker"]["policy"] == "noeviction"
        assert roles["cache"]["policy"] == "allkeys-lru" and roles["cache"]["maxmemory"] == 256 * 1024 * 1024
        assert report["queues"] == {"griot.interactive": 0, "griot.batch": 0}

        table = _status(up.state_file)
        assert table.returncode == 0 and "SERVING" in table.stdout
        assert "queues: griot.interactive 0" in table.stdout

        pids = list(state["components"].values())
        # Every listener of the stack, the workers' metrics included, is on the --host address
        # (127.0.0.1 by default), never on every interface.
        assert _listening([state["components"]["worker-0"]]), "the worker serves no metrics"
        listening = _listening(pids)
        assert listening and all(_loopback(address) for address in listening.values()), listening
    finally:
        code = stop_up(up, signal.SIGINT)
    assert code == 0, up.output()
    assert wait_gone(pids) == [], f"still running: {pids}\n{up.output()}"
    assert not up.state_file.exists()
    assert "stopped: broker (0), cache (0), rules (0)" in up.output() or "stopped:" in up.output()


def test_sigterm_stops_everything(tmp_path: Path) -> None:
    up = start_up(tmp_path, "--skip", "workers,gateway")
    up.wait_for("griot is up", UP_TIMEOUT)
    pids = list(json.loads(up.state_file.read_text())["components"].values())
    assert stop_up(up, signal.SIGTERM) == 0
    assert wait_gone(pids) == []


def _restarted(up: Up, name: str, old_pid: int, timeout: float) -> int:
    """Polls the state file until ``name`` runs under a new pid that is alive; returns that pid."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError):
            pid = int(json.loads(up.state_file.read_text())["components"][name])
            if pid != old_pid and pid_alive(pid):
                return pid
        time.sleep(0.1)
    raise AssertionError(f"{name} was not restarted in {timeout} s:\n{up.output()}")


def _worker_and_cache_came_back(up: Up, before: dict[str, int]) -> tuple[int, int, dict[str, int]]:
    """After worker-0 and the cache were SIGKILLed: both restarted and healthy again, the console
    said why, and only they were restarted (the rest kept their processes). Their new pids, and
    every component's."""
    worker = _restarted(up, "worker-0", before["worker-0"], 60)
    cache = _restarted(up, "cache", before["cache"], 60)
    up.wait_for("worker-0 is healthy again", 90)
    up.wait_for("cache is healthy again", 30)
    out = up.output()
    assert "worker-0 exited unexpectedly (status -9)" in out and "cache exited unexpectedly" in out
    after = json.loads(up.state_file.read_text())["components"]
    assert {k for k in before if after[k] != before[k]} == {"worker-0", "cache"}
    return worker, cache, after


def test_killed_worker_and_cache_come_back_and_serve(tmp_path: Path) -> None:
    """Supervision: a SIGKILLed Celery worker and the SIGKILLed cache redis-server are started
    again (same ports) while the rest keeps running, and an evaluation through the gateway then
    completes on the restarted worker with the restarted cache."""
    up = start_up(tmp_path, "--workers", "1", "--skip", "web", env={"GRIOT_STOP_TIMEOUT": "20"})
    pids: list[int] = []
    try:
        up.wait_for("griot is up", 90)
        state = json.loads(up.state_file.read_text())
        before = dict(state["components"])
        os.kill(before["worker-0"], signal.SIGKILL)
        os.kill(before["cache"], signal.SIGKILL)
        worker, cache, after = _worker_and_cache_came_back(up, before)
        assert redis_ping(state["cache_url"], 2.0)

        pos = "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"
        with AnalysisClient(state["gateway"], timeout=30) as client:
            msgs = list(client.evaluate(pos, analysis_pb2.SearchLimits(max_depth=8), timeout=120))
        final = msgs[-1].evaluation
        assert final.final and final.depth == 8 and not final.from_cache
        assert final.best_move in {m.text for m in griot.Position(pos).legal_moves()}
        assert pid_alive(worker) and pid_alive(cache)
        pids = list(after.values())
    finally:
        code = stop_up(up, timeout=60)
    assert code == 0, up.output()
    assert wait_gone(pids, timeout=20) == [], up.output()


def _random_game(variant: str, plies: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pos, moves = griot.Variant(variant).start(), []
    while len(moves) < plies and pos.legal_moves():
        move = rng.choice(pos.legal_moves())
        moves.append(move.text)
        pos = pos.play(move)
    return moves


def test_a_game_analysis_completes_through_a_killed_worker_and_cache(tmp_path: Path) -> None:
    """Supervision during a whole-game analysis: once ``AnalyzeGame`` has reported its first
    analysed turns, one of the two Celery worker processes and the cache redis-server (the job's
    own store) are SIGKILLed. Both are started again, and the analysis still ends with a report
    that has every move of the game evaluated: on the same stream, or, if the stream failed, on the
    stream resumed with its ``job_id`` (as a client that lost its stream does)."""
    up = start_up(tmp_path, "--workers", "2", "--skip", "web", env={"GRIOT_STOP_TIMEOUT": "20"})
    pids: list[int] = []
    moves = _random_game("awale", 40, seed=5)
    messages: queue.SimpleQueue[analysis_pb2.AnalyzeGameResponse | Exception | None] = queue.SimpleQueue()
    try:
        up.wait_for("griot is up", 90)
        state = json.loads(up.state_file.read_text())
        before = dict(state["components"])
        limits = analysis_pb2.SearchLimits(max_depth=14)

        def follow(**game: Any) -> None:
            try:
                with AnalysisClient(state["gateway"], timeout=30) as client:
                    for m in client.analyze_game(limits=limits, timeout=150, **game):
                        messages.put(m)
                messages.put(None)
            except Exception as e:  # the stream failed: the main thread resumes the job
                messages.put(e)

        threading.Thread(target=follow, kwargs={"variant": "awale", "moves": moves}, daemon=True).start()
        deadline = time.monotonic() + 150
        job_id, report, killed, resumed, last = "", None, False, 0, ""
        while report is None:
            try:
                m = messages.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                # What the launcher's components said is the only account of where the job stuck.
                pytest.fail(
                    f"no report in 150 s (killed={killed}, resumed={resumed}, job {job_id!r}, "
                    f"last progress {last!r})\n{up.output()}"
                )
            if isinstance(m, Exception) or m is None:
                assert killed and resumed < 3 and job_id, f"the analysis stream ended: {m!r}\n{up.output()}"
                resumed += 1
                threading.Thread(target=follow, kwargs={"resume_job_id": job_id}, daemon=True).start()
                continue
            job_id = job_id or m.job_id
            if m.HasField("progress"):
                last = f"{m.progress.positions_done}/{m.progress.positions_total}"
            if m.HasField("report"):
                report = m.report
            elif not killed and m.progress.positions_done >= 1:
                assert m.progress.positions_done < m.progress.positions_total, "done before the kill"
                os.kill(before["worker-0"], signal.SIGKILL)
                os.kill(before["cache"], signal.SIGKILL)
                killed = True
        assert killed
        worker, cache, after = _worker_and_cache_came_back(up, before)

        assert [t.played_move for t in report.turns] == moves
        positions = [griot.Position(t.position) for t in report.turns]
        for turn, pos in zip(report.turns, positions, strict=True):
            assert turn.best_move in {m.text for m in pos.legal_moves()}, turn
            assert turn.HasField("best_score"), turn
        assert pid_alive(worker) and pid_alive(cache)
        pids = list(after.values())
    finally:
        code = stop_up(up, timeout=60)
    assert code == 0, up.output()
    assert wait_gone(pids, timeout=20) == [], up.output()


def test_a_killed_launcher_leaves_no_orphans(tmp_path: Path) -> None:
    up = start_up(tmp_path, "--skip", "workers,gateway")
    up.wait_for("griot is up", UP_TIMEOUT)
    pids = list(json.loads(up.state_file.read_text())["components"].values())
    up.proc.kill()  # SIGKILL: no cleanup code runs; the children's parent-death signal does it
    up.proc.wait(10)
    assert wait_gone(pids, timeout=15) == []


def test_external_redis_url_uses_two_databases(tmp_path: Path, redis_server) -> None:  # type: ignore[no-untyped-def]
    up = start_up(tmp_path, "--skip", "workers,gateway", env={"GRIOT_REDIS_URL": redis_server.url})
    try:
        up.wait_for("griot is up", UP_TIMEOUT)
        state = json.loads(up.state_file.read_text())
        base = redis_server.url.rsplit("/", 1)[0]
        assert state["broker_url"] == base + "/0" and state["cache_url"] == base + "/1"
        assert set(state["components"]) == {"rules", "web"}
        assert "broker: external Redis" in up.output()
        report = json.loads(_status(up.state_file, "--json").stdout)
        assert report["healthy"] is True and len(report["redis"]) == 2
    finally:
        assert stop_up(up) == 0


def _status_of(env: dict[str, str], *args: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-m", "griot.cli", "status", "--json", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_one_system_per_machine_unless_named(tmp_path: Path) -> None:
    """A second `griot up` says in one line where the first runs and exits non-zero, leaving its
    state alone; one named runs beside it with its own state, which `griot status --name` finds,
    and its stop leaves the first one's state, which `griot status` still finds."""
    run = tmp_path / "run"
    run.mkdir()
    # The state files where a user's are (the runtime directory), not a file given by the test.
    mine = {"GRIOT_STATE_FILE": "", "XDG_RUNTIME_DIR": str(run)}
    lean = ("--skip", "workers,gateway,web")
    first = start_up(tmp_path, *lean, env=mine)
    default_file, named_file = run / "griot-up.json", run / "griot-up-second.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
    env["XDG_RUNTIME_DIR"] = str(run)
    try:
        first.wait_for("griot is up", UP_TIMEOUT)
        state = json.loads(default_file.read_text())
        assert state["pid"] == first.proc.pid

        again = start_up(tmp_path, *lean, env=mine)
        assert again.proc.wait(60) == 1, again.output()
        errors = [line for line in again.lines if "error:" in line]
        assert len(errors) == 1 and "already runs here" in errors[0], again.output()
        assert f"pid {state['pid']}" in errors[0] and state["rules"] in errors[0], errors
        assert "--name" in errors[0] and "Traceback" not in again.output(), again.output()
        assert json.loads(default_file.read_text()) == state  # not overwritten, not removed

        second = start_up(tmp_path, *lean, "--name", "second", env=mine)
        try:
            second.wait_for("griot is up", UP_TIMEOUT)
            # The join lines follow the "up" line in the banner: wait for them, not just the line.
            second.wait_for("griot worker --name second", 30)
            named = json.loads(named_file.read_text())
            assert named["pid"] == second.proc.pid and named["rules"] != state["rules"]
            assert named["broker_url"] != state["broker_url"]
            assert json.loads(default_file.read_text()) == state
            # Each status finds its own system.
            assert _status_of(env, "--name", "second")["services"][0]["target"] == named["rules"]
            assert _status_of(env)["services"][0]["target"] == state["rules"]
        finally:
            assert stop_up(second) == 0, second.output()
        assert not named_file.exists()
        assert json.loads(default_file.read_text()) == state
        assert _status_of(env)["healthy"] is True
    finally:
        code = stop_up(first)
    assert code == 0, first.output()
    assert not default_file.exists()


def test_worker_without_a_system_says_how_to_name_one(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
    env["GRIOT_STATE_FILE"] = str(tmp_path / "none.json")
    result = subprocess.run(
        [sys.executable, "-m", "griot.cli", "worker"], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "no griot up runs here" in result.stdout and "--broker-url" in result.stdout, result.stdout
    assert "Traceback" not in result.stdout + result.stderr
    # A name that cannot be a system's, where a client looks for one: one line, no search.
    env = {k: v for k, v in env.items() if k != "GRIOT_STATE_FILE"}
    env["GRIOT_NAME"] = "../elsewhere"
    result = subprocess.run(
        [sys.executable, "-m", "griot.cli", "analyze", "abapa", "--depth", "2"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2, result.stdout + result.stderr
    assert "cannot name a system" in result.stderr and "Traceback" not in result.stderr, result


def test_port_in_use_fails_clearly(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        up = start_up(tmp_path, "--skip", "workers,gateway,broker,cache", "--rules-port", str(port))
        code = up.proc.wait(60)
    assert code == 1
    # Said before anything starts, in one line, rather than a rules service restarted in a loop.
    assert f"error: port {port} (rules-port) is in use on 127.0.0.1" in up.output(), up.output()
    assert "rules is healthy" not in up.output() and "Traceback" not in up.output(), up.output()


@pytest.mark.skipif(
    __import__("importlib.util").util.find_spec("celery") is None,
    reason="celery is not installed (the workers extra brings it)",
)
def test_celery_workers_plug_in(tmp_path: Path) -> None:
    """The worker entry of the launcher's component list, run with real Celery on the private broker:
    a stand-in `griot.workers.app` module is enough to start them, without the search tasks."""
    pkg = tmp_path / "stub" / "workers"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "app.py").write_text(
        textwrap.dedent("""
        import os
        from celery import Celery
        app = Celery("griot", broker=os.environ["GRIOT_BROKER_URL"])
        app.conf.worker_hijack_root_logger = True
    """)
    )
    up = start_up(
        tmp_path,
        "--workers",
        "2",
        "--skip",
        "gateway",
        env={"PYTHONPATH": str(tmp_path / "stub"), "GRIOT_STOP_TIMEOUT": "20"},
    )
    try:
        up.wait_for("griot is up", 90)
        state = json.loads(up.state_file.read_text())
        assert {"worker-0", "worker-1"} <= set(state["components"])
        report = json.loads(_status(up.state_file, "--json").stdout)
        assert len(report["workers"]) == 2, report
        pids = list(state["components"].values())
    finally:
        code = stop_up(up)
    assert code == 0, up.output()
    assert wait_gone(pids, timeout=20) == [], up.output()


def _readme_blocks(kind: str) -> list[str]:
    """The README's shell blocks marked ``<!-- readme-test: KIND -->`` (tests/test_readme.py)."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    pattern = r"<!-- readme-test: " + re.escape(kind) + r"(?: \([^)]*\))? -->\n```sh\n(.*?)```"
    return re.findall(pattern, readme, re.S)


def _a_readme_worker_joins(up: Up, state: dict[str, str], env: dict[str, str], tmp_path: Path) -> None:
    """The README's command for one more worker (`griot up` prints it), which finds this stack
    through its state file: `griot status` counts it, and it stops with its process group."""
    (script,) = _readme_blocks("worker with griot up")
    assert "griot worker" in script and "griot worker" in up.output(), (script, up.output())
    before = len(json.loads(_status(up.state_file, "--json").stdout)["workers"])
    with open(tmp_path / "worker.log", "wb") as log:
        worker = subprocess.Popen(
            ["bash", "-c", script], env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while len(json.loads(_status(up.state_file, "--json").stdout)["workers"]) != before + 1:
            assert worker.poll() is None, (tmp_path / "worker.log").read_text()
            assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()
            time.sleep(0.5)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)
    assert wait_gone([worker.pid], timeout=20) == []


@pytest.mark.timeout(900)
def test_make_up_runs_the_system_with_the_board(tmp_path: Path) -> None:
    """The README's first command from a checkout: `make up` installs, builds the board and runs
    `griot up`, whose web server serves the board and whose gateway evaluates; Ctrl-C stops all."""
    missing = [tool for tool in ("make", "npm") if shutil.which(tool) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"make up needs {missing} in CI")
        pytest.skip(f"make up needs {missing}")
    ports = ("RULES_PORT", "RULES_METRICS_PORT", "GATEWAY_PORT", "GATEWAY_METRICS_PORT", "UP_WEB_PORT")
    env = {f"GRIOT_{p}": "0" for p in (*ports, "WORKER_METRICS_PORT")}
    env.update({"GRIOT_WORKERS": "1", "GRIOT_STOP_TIMEOUT": "20", "GRIOT_START_TIMEOUT": "60"})
    up = start_make_up(tmp_path, env)
    pids: list[int] = []
    try:
        up.wait_for("griot is up", 600)
        state = json.loads(up.state_file.read_text())
        pids = list(state["components"].values())
        page = urllib.request.urlopen(state["web"] + "/", timeout=10).read().decode()
        assert "<title>" in page and "/assets/" in page, page[:500]
        pos = "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"
        with AnalysisClient(state["gateway"], timeout=30) as client:
            msgs = list(client.evaluate(pos, analysis_pb2.SearchLimits(max_depth=6), timeout=120))
        assert msgs[-1].evaluation.final and msgs[-1].evaluation.depth == 6
    finally:
        if up.proc.poll() is None:
            os.killpg(up.proc.pid, signal.SIGINT)
        up.proc.wait(timeout=60)
    assert "stopped:" in up.output(), up.output()
    assert wait_gone(pids, timeout=20) == [], up.output()


def test_the_console_is_quiet_and_status_fits_80_columns(tmp_path: Path) -> None:
    """Without --verbose the console says what started, then only warnings and errors, each once:
    an evaluation through the gateway prints no task line. `griot status` then fits 80 columns,
    and the README's commands for a running system work, a worker joining it among them."""
    egdb_dir = str(tmp_path / "egdb")  # the stack's and the README's commands', not ~/.cache
    up = start_up(tmp_path, "--workers", "2", env={"GRIOT_STOP_TIMEOUT": "20", "GRIOT_EGDB_DIR": egdb_dir})
    try:
        up.wait_for("griot is up", 90)
        state = json.loads(up.state_file.read_text())
        pos = "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"
        with AnalysisClient(state["gateway"], timeout=30) as client:
            msgs = list(client.evaluate(pos, analysis_pb2.SearchLimits(max_depth=8), timeout=120))
        assert msgs[-1].evaluation.final and msgs[-1].evaluation.depth == 8

        env = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
        env.update({"GRIOT_STATE_FILE": str(up.state_file), "COLUMNS": "80"})
        table = subprocess.run(
            [sys.executable, "-m", "griot.cli", "status"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert table.returncode == 0, table.stdout + table.stderr
        lines = table.stdout.splitlines()
        assert max(len(line) for line in lines) <= 80, table.stdout
        # Addresses are whole on their line, not broken across two.
        for address in (state["rules"], state["gateway"], state["broker_url"], state["cache_url"]):
            assert any(address in line for line in lines), (address, table.stdout)
        assert any(line.lstrip().startswith("cache: Redis") and "allkeys-lru" in line for line in lines)
        assert "workers: 2" in table.stdout

        # The README's commands for a running system, on this stack's addresses.
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        env["GRIOT_EGDB_DIR"] = egdb_dir
        blocks = _readme_blocks("with griot up")
        assert blocks
        for block in blocks:
            for line in filter(str.strip, block.splitlines()):
                line = line.replace("127.0.0.1:50051", state["rules"]).replace(
                    "127.0.0.1:50052", state["gateway"]
                )
                result = subprocess.run(
                    ["bash", "-c", line], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
                )
                assert result.returncode == 0 and result.stdout.strip(), (line, result.stdout, result.stderr)
        # `griot egdb build` without a broker named used this stack's workers, into its directory.
        assert sorted(p.name for p in Path(egdb_dir).rglob("*.egdb"))[-1] == "012.egdb"
        _a_readme_worker_joins(up, state, env, tmp_path)
    finally:
        code = stop_up(up, timeout=60)
    assert code == 0, up.output()
    out = up.output()
    # Celery's per-task lines and its start-up banner stay out of the quiet console.
    assert "griot.search" not in out and not re.search(r"\] (received|succeeded in)", out), out
    assert "[tasks]" not in out and "celery@" not in out, out
    # uvicorn's coloured copy of each message is not a field of the log line.
    assert "color_message" not in out, out
    # Each component is reported healthy once; the launcher's own lines come first.
    for name in ("broker", "cache", "rules", "worker-0", "worker-1", "gateway", "web"):
        assert sum(f"{name} is healthy (pid" in line for line in up.lines) == 1, out
    # A warning several components print (both Redis servers' on memory overcommit when the kernel
    # does not allow it, every worker's when run as root) is shown at most once.
    assert sum("overcommit" in line for line in up.lines) <= 1, out
    assert sum("superuser privileges" in line for line in up.lines) <= 1, out


def test_verbose_shows_every_line(tmp_path: Path) -> None:
    """--verbose passes the components' information lines through (the rules service's, uvicorn's
    in the web server), rendered without uvicorn's coloured copy of each message."""
    up = start_up(tmp_path, "--verbose", "--skip", "workers,gateway")
    try:
        up.wait_for("griot is up", UP_TIMEOUT)
        up.wait_for("Uvicorn running on", 30)
        out = up.output()
        assert any(line.startswith("rules    | info") for line in up.lines), out
        assert "color_message" not in out, out
    finally:
        assert stop_up(up) == 0
