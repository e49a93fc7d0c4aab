"""The lab's fixtures: one lab (griot.lab) for the module's fault tests, healed between tests.

The lab needs root (network namespaces) and toxiproxy-server (make deploy-tools). Without them its
tests skip with the reason; under CI=true a missing toxiproxy-server fails instead.
``GRIOT_LAB_PREFIX`` names the tests' namespaces (``griotlab-`` by default), so that two runs on one
machine each lay out, sweep and remove only their own lab.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import griot
import pytest
from google.protobuf.json_format import MessageToDict
from griot.lab import Lab, LabShape, sweep
from griot.lab.netns import DEFAULT_PREFIX, lab_namespaces
from griot.lab.toxiproxy import server_binary
from griot.scores import score_message

#: The tests' settings on top of Compose's: evaluations 10 deep or more run distributed (Compose's
#: 18 is too slow for CI), and a distributed search's first task stops at its direct depth.
LAB_ENV = {
    "GRIOT_GATEWAY_DISTRIBUTED_DEPTH": "10",
    "GRIOT_GATEWAY_DISTRIBUTED_DIRECT_SECONDS": "0",
}


#: The prefix of the namespaces these tests make and sweep.
PREFIX = os.environ.get("GRIOT_LAB_PREFIX") or DEFAULT_PREFIX


def _can_make_namespaces() -> str | None:
    if os.geteuid() != 0:
        return "the lab needs root (network namespaces)"
    probe = PREFIX + "probe"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, check=False)
    subprocess.run(["ip", "netns", "delete", probe], capture_output=True, check=False)
    if made.returncode != 0:
        return f"cannot make network namespaces here: {made.stderr.strip()}"
    return None


def need_lab() -> None:
    """Skips (fails, under CI=true, without toxiproxy-server) where the lab cannot run."""
    if server_binary() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("toxiproxy-server is not installed (make deploy-tools): CI must run the lab")
        pytest.skip("toxiproxy-server is not installed (make deploy-tools)")
    reason = _can_make_namespaces()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="package")
def lab_up() -> Iterator[Lab]:
    need_lab()
    with Lab(LabShape(workers=2, gateways=2), prefix=PREFIX, env=LAB_ENV) as lab:
        yield lab
    assert lab_namespaces(PREFIX) == []


@pytest.fixture
def lab(lab_up: Lab) -> Iterator[Lab]:
    """The lab, with an empty cache; afterwards every link and host is healed and every killed
    host started again, so that the next test starts from a whole lab."""
    lab_up.redis("cache", lambda r: r.flushall())
    try:
        yield lab_up
    finally:
        assert lab_up.toxiproxy is not None
        lab_up.toxiproxy.reset()
        for host in lab_up.hosts:
            if host != "switch":
                lab_up.heal(host)
        for host, runs in list(lab_up.running.items()):
            if any(r.popen.poll() is not None for r in runs):
                lab_up.restart(host)


def expected_score(variant: str, moves: list[str], depth: int) -> dict[str, Any]:
    """The in-process search's value at ``depth``, as the client's JSON shows a score."""
    pos = griot.Variant(variant).start()
    for m in moves:
        pos = pos.play(m)
    result: dict[str, Any] = MessageToDict(score_message(griot.search(pos, depth=depth).score.value))
    return result


class Client:
    """The lab's client running on the client host while a test injects faults: its JSON lines as
    they come."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: list[dict[str, Any]] = []
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("{"):
                self._queue.put(json.loads(line))
        self._queue.put(None)

    def wait_for(self, what: str, match: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any]:
        """The first line (from now on, or already read) that ``match``es."""
        for line in self.lines:
            if match(line):
                return line
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"not within {timeout} s: {what}; lines: {self.lines[-5:]}")
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                self.proc.wait(10)
                err = self.proc.stderr.read()[-2000:] if self.proc.stderr is not None else ""
                raise AssertionError(f"the client ended before {what}; lines: {self.lines[-5:]}\n{err}")
            self.lines.append(line)
            if match(line):
                return line

    def finish(self, timeout: float) -> list[dict[str, Any]]:
        """Every line, once the client has ended (killed at ``timeout``)."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            raise AssertionError(
                f"the client did not end within {timeout} s; lines: {self.lines[-5:]}"
            ) from None
        self._reader.join(10)
        while True:
            line = self._queue.get_nowait() if not self._queue.empty() else None
            if line is None:
                break
            self.lines.append(line)
        if self.proc.stderr is not None:
            self.stderr = self.proc.stderr.read()
            self.proc.stderr.close()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        return self.lines


def game_moves(variant: str, turns: int) -> list[str]:
    """A short game's moves (each turn's legal moves taken in turn), the same in every run."""
    pos, moves = griot.Variant(variant).start(), []
    for i in range(turns):
        legal = [m.text for m in pos.legal_moves()]
        moves.append(legal[i % len(legal)])
        pos = pos.play(moves[-1])
    return moves


def analysis_through_fault(lab: Lab, depth: int, fault: Callable[[], None], timeout: float) -> None:
    """Analyses a ten-turn Abapa game at ``depth`` once as the reference, empties the cache, then
    again, calling ``fault()`` once part of the game is analysed. The client must see its analysis
    complete (at worst after an UNAVAILABLE that it resumes by the job's id) with the reference's
    report, every turn analysed. ``timeout``: the client's deadline for the faulted analysis."""
    moves = game_moves("abapa", 10)
    reference = lab.client("analyze", "abapa", *moves, "--depth", str(depth), "--timeout", "180", timeout=200)
    assert reference and reference[-1]["event"] == "report", reference[-3:]
    lab.redis("cache", lambda r: r.flushall())
    client = Client(
        lab.client_background(
            "analyze", "abapa", *moves, "--depth", str(depth), "--timeout", str(timeout), "--retries", "5"
        )
    )
    try:
        client.wait_for("the job's id", lambda line: line["event"] == "job", 60)
        client.wait_for("part of the game analysed", lambda line: line.get("done", 0) >= 2, 120)
        fault()
        lines = client.finish(timeout + 30)
    finally:
        if client.proc.poll() is None:
            client.proc.kill()
            client.proc.wait(5)
    errors = [line for line in lines if line["event"] == "error"]
    assert {e["code"] for e in errors} <= {"UNAVAILABLE"}, errors
    assert lines[-1]["event"] == "report", lines[-3:]
    assert lines[-1]["report"] == reference[-1]["report"]
    assert len(lines[-1]["report"]["turns"]) == len(moves)


@pytest.fixture
def background(lab: Lab) -> Iterator[Callable[..., Client]]:
    clients: list[Client] = []

    def start(*args: str) -> Client:
        client = Client(lab.client_background(*args))
        clients.append(client)
        return client

    yield start
    for c in clients:
        if c.proc.poll() is None:
            c.proc.kill()
        c.proc.wait(5)
        for stream in (c.proc.stdout, c.proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()


@pytest.fixture(scope="session", autouse=True)
def _no_stale_lab() -> Iterator[None]:
    """A lab left by an interrupted run is removed before the tests, and none is left after."""
    if os.geteuid() == 0:
        sweep(PREFIX)
    yield
    if os.geteuid() == 0:
        sweep(PREFIX)
