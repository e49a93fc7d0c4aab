"""Every command that talks to a service, given one that does not answer (127.0.0.1 on a closed
port): one line naming what is unreachable and how to start it, a non-zero exit, no traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import click
import pytest
from griot.cli import main

ROOT = Path(__file__).resolve().parents[2]
RECORD = str(ROOT / "python/griot/examples/game.griot")

#: Commands that talk to no service (they never need a running system).
LOCAL = {
    "variants", "rules", "show", "perft", "bench", "uci", "up", "egdb probe", "book probe", "examples",
}  # fmt: skip


def _closed_port() -> int:
    """A loopback port nobody listens on: bound, then released."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _client_commands(gateway: str, broker: str) -> dict[str, tuple[list[str], str]]:
    """Each client command: its arguments aimed at the dead address, and what its error names."""
    return {
        "analyze": (["analyze", "abapa", "--depth", "4", "--gateway", gateway], f"the gateway at {gateway}"),
        "analyze-game": (["analyze-game", RECORD, "--gateway", gateway], f"the gateway at {gateway}"),
        "play": (["play", "abapa", "--side", "N", "--gateway", gateway], f"the gateway at {gateway}"),
        "match": (
            ["match", "griot;depth=2", "griot;depth=2", "--games", "1", "--workers", "--broker-url", broker],
            f"the workers' broker at {broker}",
        ),
        "book build": (
            ["book", "build", "abapa", "--depth", "2", "--plies", "1", "--workers", "--broker-url", broker],
            f"the workers' broker at {broker}",
        ),
        "egdb build": (
            ["egdb", "build", "abapa", "--seeds", "2", "--broker-url", broker],
            f"the workers' broker at {broker}",
        ),
    }


def _names(group: click.Group, prefix: str = "") -> set[str]:
    names: set[str] = set()
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            names |= _names(command, f"{prefix}{name} ")
        else:
            names.add(f"{prefix}{name}")
    return names


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """No running system to fall back on, no address from the environment."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
    clean["GRIOT_STATE_FILE"] = str(tmp_path / "no-griot-up.json")
    clean["GRIOT_EGDB_DIR"] = str(tmp_path / "egdb")
    clean["COLUMNS"] = "80"
    return clean


#: Commands that start the system they talk to, and reach only its own hosts.
SELF_STARTED = {"lab"}
#: Servers that join a system: they wait for its services to answer, as a Celery worker waits for
#: its broker, rather than end on the first refusal.
SERVERS = {"worker"}


def test_every_command_is_a_client_command_or_a_local_one() -> None:
    # A new command that talks to a service joins the table below, and so the test.
    every = LOCAL | SELF_STARTED | SERVERS | set(_client_commands("x", "y")) | {"status"}
    assert _names(main) == every, "classify the new command here"


@pytest.mark.parametrize("command", sorted(_client_commands("x", "y")))
def test_a_dead_address_gets_one_line_and_a_failure(
    command: str, env: dict[str, str], tmp_path: Path
) -> None:
    port = _closed_port()
    args, names = _client_commands(f"127.0.0.1:{port}", f"redis://127.0.0.1:{port}/0")[command]
    result = subprocess.run(
        [sys.executable, "-m", "griot.cli", *args],
        env=env,
        cwd=tmp_path,
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "Traceback" not in out, out
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1, out
    assert errors[0].startswith(f"error: {names} is unreachable (connection refused)"), errors
    assert "griot up" in errors[0], errors


def test_status_reports_each_dead_address_without_a_traceback(env: dict[str, str]) -> None:
    port = _closed_port()
    target, url = f"127.0.0.1:{port}", f"redis://127.0.0.1:{port}/0"
    addresses = ["--rules", target, "--gateway", target, "--broker-url", url, "--cache-url", url]
    result = subprocess.run(
        [sys.executable, "-m", "griot.cli", "status", *addresses, "--timeout", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out = result.stdout + result.stderr
    assert result.returncode == 1 and "Traceback" not in out, out
    assert target in result.stdout and url in result.stdout, out
