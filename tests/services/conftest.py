"""Fixtures of the service tests: a REAL rules server on 127.0.0.1, port 0, talked to through the
client SDK. The server runs in this process on its own event loop thread (fast to start, and its
metrics are scrapable); tests of the entry point, signals and worker processes start
``python -m griot.services.rules`` as a subprocess instead (test_rules_process.py)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from griot.client import RulesClient
from griot.services.common.server import RunningServer, ServerConfig, start
from griot.services.rules import service_spec

#: The request size limit of the test server (small, so that oversized requests are cheap to make).
MAX_RECEIVE_BYTES = 16 * 1024


@dataclass
class ServerHandle:
    """A running in-process server: where it listens and how to stop it."""

    target: str
    metrics_port: int
    running: RunningServer
    loop: asyncio.AbstractEventLoop
    thread: threading.Thread

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.running.stop(0), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        if not self.thread.is_alive():
            self.loop.close()


def start_in_thread(config: ServerConfig) -> ServerHandle:
    """Starts the rules service on a fresh event loop in a daemon thread."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="rules-server", daemon=True)
    thread.start()
    running = asyncio.run_coroutine_threadsafe(start(service_spec(), config), loop).result(10)
    assert running.metrics_port is not None
    return ServerHandle(f"127.0.0.1:{running.port}", running.metrics_port, running, loop, thread)


@pytest.fixture(scope="session")
def rules_server() -> Iterator[ServerHandle]:
    handle = start_in_thread(
        ServerConfig(host="127.0.0.1", port=0, metrics_port=0, max_receive_bytes=MAX_RECEIVE_BYTES)
    )
    yield handle
    handle.stop()


@pytest.fixture(scope="session")
def rules(rules_server: ServerHandle) -> Iterator[RulesClient]:
    with RulesClient(rules_server.target, timeout=10) as client:
        yield client
