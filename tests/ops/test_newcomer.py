"""The newcomer's path, from the package to the board: the wheel is built (the board inside it),
installed into a fresh virtual environment, first alone, where the command line works and names the
``server`` extra for what needs it, then with that extra; `griot up` runs from a folder outside the
repository, and the board it serves is loaded in headless Chromium, where one move gets the
gateway's evaluation. Slow: a release build of the core and two installs."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import urllib.request
import venv
import zipfile
from pathlib import Path

import pytest

from .conftest import needs_redis, start_up, stop_up

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
BOARD = ROOT / "python" / "griot" / "board"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
EXTRA = "pip install 'griot-mancala[server]'"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600), needs_redis]


def _missing() -> str | None:
    if not (BOARD / "index.html").is_file():
        return "the board is not built: run `make web-build`"
    if shutil.which("cargo") is None:
        return "no Rust toolchain to build the wheel"
    if shutil.which("node") is None or not (WEB / "node_modules" / "playwright-core").is_dir():
        return "node or web/node_modules is missing: run `make web-install`"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM}"
    return None


def _run(
    argv: list[str], timeout: float, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, check=False, cwd=cwd, env=env
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    reason = _missing()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the newcomer test's prerequisites are missing in CI: {reason}")
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("wheels")
    built = _run(
        [sys.executable, "-m", "maturin", "build", "--release", "--out", str(out)], timeout=3000, cwd=ROOT
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (path,) = out.glob("griot_mancala-*.whl")
    return path


def test_the_wheel_ships_the_board_and_no_top_level_servers(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/", 1)[0] for n in names}
    assert "services" not in top and "workers" not in top, sorted(top)
    assert "griot/board/index.html" in names
    assert any(n.startswith("griot/board/assets/") and n.endswith(".js") for n in names)
    assert "griot/services/web/__main__.py" in names and "griot/workers/app.py" in names
    # The README's example files, which `griot examples` writes out for a user without a checkout.
    assert {"griot/examples/game.griot", "griot/examples/my-rules.toml"} <= set(names)


def test_from_the_wheel_to_an_evaluation_in_the_browser(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = str(env_dir / "bin" / "python")
    home = tmp_path / "home"  # outside the repository: nothing of the checkout is importable
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRIOT_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(
        {"PATH": f"{env_dir / 'bin'}{os.pathsep}{env['PATH']}", "GRIOT_STATE_FILE": str(home / "s.json")}
    )

    installed = _run([python, "-m", "pip", "install", "-q", str(wheel)], timeout=900, env=env, cwd=home)
    assert installed.returncode == 0, installed.stderr[-3000:]
    where = _run([python, "-c", "import griot; print(griot.__file__)"], timeout=60, env=env, cwd=home)
    assert str(env_dir) in where.stdout, where.stdout + where.stderr
    # Alone, the command line works, and what needs the extra says so in one line.
    shown = _run([python, "-m", "griot.cli", "show", "abapa"], timeout=120, env=env, cwd=home)
    assert shown.returncode == 0 and "legal moves: a b c d e f" in shown.stdout, shown.stderr
    build = _run(
        [python, "-m", "griot.cli", "egdb", "build", "abapa", "--seeds", "2", "--dir", str(home / "egdb")],
        timeout=120, env=env, cwd=home,
    )  # fmt: skip
    lines = [line for line in (build.stdout + build.stderr).splitlines() if line.strip()]
    assert build.returncode == 1 and len(lines) == 1 and EXTRA in lines[0], lines
    # The README's example files come with the wheel.
    examples = _run([python, "-m", "griot.cli", "examples"], timeout=60, env=env, cwd=home)
    record = home / "game.griot"
    assert examples.returncode == 0 and record.is_file(), examples.stdout + examples.stderr
    report = _run(
        [python, "-m", "griot.cli", "analyze-game", str(record), "--depth", "3", "--gateway", "off"],
        timeout=300, env=env, cwd=home,
    )  # fmt: skip
    assert report.returncode == 0 and EXTRA in report.stdout, report.stdout + report.stderr
    top = _run([python, "-m", "griot.cli", "--help"], timeout=60, env=env, cwd=home)
    for command in [
        line.split()[0] for line in top.stdout.split("Commands:", 1)[1].splitlines() if line.strip()
    ]:
        helped = _run([python, "-m", "griot.cli", command, "--help"], timeout=60, env=env, cwd=home)
        assert helped.returncode == 0 and "Traceback" not in helped.stderr, (command, helped.stderr)

    # With the one extra, `griot up` runs everything, the board included.
    extra = _run(
        [python, "-m", "pip", "install", "-q", f"griot-mancala[server] @ {wheel.as_uri()}"],
        timeout=900,
        env=env,
        cwd=home,
    )
    assert extra.returncode == 0, extra.stderr[-3000:]
    up = start_up(home, "--workers", "1", env={"PATH": env["PATH"]}, python=python)
    try:
        up.wait_for("griot is up", 120)
        out = up.output()
        assert "not started" not in out and "not built" not in out, out
        state = json.loads(up.state_file.read_text())
        page = urllib.request.urlopen(state["web"] + "/", timeout=10).read().decode()
        assert "<script" in page

        artifacts = tmp_path / "e2e"
        played = _run(
            ["node", str(WEB / "e2e" / "play.mjs"), "--url", state["web"], "--variant", "abapa",
             "--engine", "online", "--mode", "he", "--level", "1", "--moves", "1",
             "--out", str(artifacts), "--chromium", CHROMIUM],
            timeout=600, cwd=WEB,
        )  # fmt: skip
        assert played.returncode == 0, played.stderr + played.stdout
        summary = json.loads(played.stdout.strip().splitlines()[-1])
        assert summary["evaluations"], summary
        first = summary["evaluations"][0]
        assert first["position"] == summary["moves"][0]["before"]
        assert first["text"].startswith(f"depth {first['depth']}: ") and first["depth"] >= 1
    finally:
        code = stop_up(up, signal.SIGINT, timeout=60)
    assert code == 0, up.output()
