"""The command line on an install without the ``server`` extra: every command either works or says
in one line which extra it needs, never with a traceback. The extra's packages are made impossible
to import in the subprocess (a ``sitecustomize`` that refuses them), as if they were not installed;
tests/ops/test_newcomer.py does the same in a fresh virtual environment with the built wheel."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import needs_redis, start_up, stop_up

ROOT = Path(__file__).resolve().parents[2]
EXTRA = "pip install 'griot-mancala[server]'"

BLOCKER = """
import importlib.abc
import sys

BLOCKED = {"celery", "kombu", "billiard", "uvicorn", "starlette", "connectrpc", "matplotlib"}


class _NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
"""


@pytest.fixture
def bare_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a process in which the server extra's packages cannot be imported."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLOCKER)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["GRIOT_STATE_FILE"] = str(tmp_path / "none.json")
    env["COLUMNS"] = "200"
    return env


def _griot(
    env: dict[str, str], *args: str, stdin: str = "", cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "griot.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def test_the_blocker_blocks(bare_env: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, "-c", "import celery"], env=bare_env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0 and "No module named 'celery'" in result.stderr


def test_every_command_has_help(bare_env: dict[str, str]) -> None:
    top = _griot(bare_env, "--help")
    assert top.returncode == 0, top.stderr
    commands = [line.split()[0] for line in top.stdout.split("Commands:", 1)[1].splitlines() if line.strip()]
    assert {"up", "status", "play", "analyze", "analyze-game", "egdb", "match", "uci"} <= set(commands)
    for command in commands:
        result = _griot(bare_env, command, "--help")
        assert result.returncode == 0 and "Traceback" not in result.stderr, (command, result.stderr)


@pytest.mark.parametrize(
    "args",
    [
        ("variants",),
        ("rules", "abapa"),
        ("show", "abapa"),
        ("perft", "abapa", "3"),
        ("analyze", "abapa", "--depth", "4", "--gateway", "off"),
        ("match", "griot;depth=2", "griot;depth=2", "--games", "1"),
        ("egdb", "probe", "abapa 0,0,0,1,2,0/1,0,0,0,0,1 20-23 S 80 -"),
    ],
)
def test_commands_that_need_no_extra_work(bare_env: dict[str, str], args: tuple[str, ...]) -> None:
    result = _griot(bare_env, *args)
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    assert result.returncode == 0 or args[0] == "egdb", result.stdout + result.stderr


def test_play_works_in_process(bare_env: dict[str, str]) -> None:
    result = _griot(bare_env, "play", "abapa", "--gateway", "off", stdin="c\nquit\n")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "North plays" in result.stdout and "Traceback" not in result.stderr


def test_analyze_game_without_the_extra_skips_only_the_graph(
    bare_env: dict[str, str], tmp_path: Path
) -> None:
    png = tmp_path / "g.png"
    record = str(ROOT / "python/griot/examples/game.griot")
    result = _griot(
        bare_env, "analyze-game", record, "--depth", "3", "--gateway", "off", "--png", str(png),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "scores are the mover's" in result.stdout
    assert EXTRA in result.stdout and not png.exists()


@pytest.mark.parametrize(
    "args",
    [
        ("egdb", "build", "abapa", "--seeds", "2", "--dir", "{tmp}/egdb"),
        ("match", "griot;depth=1", "griot;depth=1", "--games", "1", "--workers"),
    ],
)
def test_a_command_that_needs_the_extra_says_so_in_one_line(
    bare_env: dict[str, str], tmp_path: Path, args: tuple[str, ...]
) -> None:
    result = _griot(bare_env, *(a.format(tmp=tmp_path) for a in args))
    assert result.returncode == 1
    errors = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    assert len(errors) == 1 and EXTRA in errors[0], errors


@pytest.mark.parametrize("module", ["griot.services.web", "griot.services.gateway"])
def test_the_server_modules_say_what_they_need(bare_env: dict[str, str], module: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", module, "--port", "0"],
        capture_output=True, text=True, env=bare_env, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [result.stderr.strip()] and EXTRA in result.stderr, (
        result.stderr
    )


@needs_redis
def test_up_runs_what_it_can_and_names_the_extra(bare_env: dict[str, str], tmp_path: Path) -> None:
    env = {k: v for k, v in bare_env.items() if k != "GRIOT_STATE_FILE"}
    up = start_up(tmp_path, env={"PYTHONPATH": env["PYTHONPATH"]})
    try:
        up.wait_for("griot is up", 60)
        out = up.output()
        for component, package in (("worker", "celery"), ("gateway", "celery"), ("web", "uvicorn")):
            assert f"{component}: not started: needs {package}" in out and EXTRA in out, out
        assert "rules is healthy" in out and "Traceback" not in out
    finally:
        assert stop_up(up, signal.SIGINT) == 0
