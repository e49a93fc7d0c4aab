"""End to end in a real browser: the built demo board (web/app/dist) in Debian's headless Chromium,
driven by playwright-core (web/e2e/play.mjs), against the real stack on loopback: the rules gRPC
server and a stand-in analysis gateway as processes, and the web (Connect) server as a process
forwarding to them and serving the app. Games are played by clicking; after every move the board
must show what the API says the position holds. Screenshots: test-artifacts/e2e/.

Needs `make web-install web-build` (node modules, the built app, Chromium): skipped with the
reason when they are missing, failed instead when CI is set."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import griot
import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
DIST = WEB / "app" / "dist"
SCRIPT = WEB / "e2e" / "play.mjs"
ARTIFACTS = ROOT / "test-artifacts" / "e2e"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not (WEB / "node_modules" / "playwright-core").is_dir():
        return "web/node_modules is missing: run `make web-install`"
    if not (DIST / "index.html").is_file():
        return "the demo app is not built: run `make web-build`"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM}: run `make web-install` (apt-get install chromium)"
    return None


def _need_stack() -> None:
    reason = _missing()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"end-to-end prerequisites missing in CI: {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Stack:
    """The processes of the stack, stopped together."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[bytes]] = []
        self.logs = ARTIFACTS / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)

    def spawn(self, name: str, *args: str) -> None:
        log = (self.logs / f"{name}.log").open("wb")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        self.procs.append(
            subprocess.Popen([sys.executable, *args], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
        )

    def wait_web(self, url: str) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for p in self.procs:
                if p.poll() is not None:
                    raise RuntimeError(f"{p.args} exited with {p.returncode}; see {self.logs}")
            try:
                r = httpx.post(
                    f"{url}/api/griot.v1.RulesService/StartPosition", json={"variant": "abapa"}, timeout=2
                )
                if r.status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"{url} did not answer; see {self.logs}")

    def stop(self) -> None:
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


@pytest.fixture(scope="module")
def stack() -> Iterator[dict[str, str]]:
    """Rules server, stand-in gateway, and two web servers: one with the engine, one without."""
    _need_stack()
    s = Stack()
    rules, gateway, online, offline = (_free_port() for _ in range(4))
    try:
        s.spawn("rules", "-m", "services.rules", "--port", str(rules), "--metrics-port", "off")
        s.spawn("gateway", "tests/web/reference_gateway.py", str(gateway))
        common = ["--static", str(DIST), "--log-format", "text"]
        s.spawn(
            "web-online", "-m", "services.web", "--port", str(online),
            "--rules", f"127.0.0.1:{rules}", "--analysis", f"127.0.0.1:{gateway}", *common,
        )  # fmt: skip
        s.spawn("web-offline", "-m", "services.web", "--port", str(offline), "--analysis", "off", *common)
        urls = {"online": f"http://127.0.0.1:{online}", "offline": f"http://127.0.0.1:{offline}"}
        for url in urls.values():
            s.wait_web(url)
        yield urls
    finally:
        s.stop()


def _play(url: str, variant: str, engine: str, moves: int = 3) -> dict[str, object]:
    out = ARTIFACTS / engine
    proc = subprocess.run(
        ["node", str(SCRIPT), "--url", url, "--variant", variant, "--engine", engine,
         "--moves", str(moves), "--out", str(out), "--chromium", CHROMIUM],
        cwd=WEB, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    lines = proc.stdout.strip().splitlines()
    summary: dict[str, object] = json.loads(lines[-1]) if lines else {}
    assert proc.returncode == 0, f"{proc.stderr}\n{proc.stdout}"
    return summary


def test_abapa_against_the_engine(stack: dict[str, str]) -> None:
    summary = _play(stack["online"], "abapa", "online")
    moves = summary["moves"]
    assert isinstance(moves, list) and len(moves) == 3
    assert moves[0]["before"] == "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"
    assert "depth" in str(summary["evaluation"])
    assert summary["enginePlayed"]
    assert summary["graphPoints"] >= 4  # three moves by clicking, one or two by the engine


def test_abapa_without_a_gateway(stack: dict[str, str]) -> None:
    summary = _play(stack["offline"], "abapa", "offline", moves=2)
    assert len(summary["moves"]) == 2  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", ["sabouiyya", "ikibuguzo", "bechi"])
def test_other_boards(stack: dict[str, str], variant: str) -> None:
    ids = {v.id for v in griot.variants()}
    if variant not in ids:
        pytest.skip(f"{variant} is not in this build's registry (variants: {', '.join(sorted(ids))})")
    summary = _play(stack["offline"], variant, "offline")
    assert summary["moves"]
