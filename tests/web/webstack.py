"""The endpoint tests' web servers (imported by test_connect.py): REAL servers on 127.0.0.1: the
rules gRPC server and the web (Connect) server under uvicorn, each on its own event loop thread, on
ports the OS picks, in front of the real analysis gateway of the shared stack (``griot_stack`` in
conftest.py: redis-servers, a Celery worker, the gateway)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import uvicorn
from griot.services.common.server import ServerConfig, start
from griot.services.rules import service_spec
from griot.services.web.app import WebConfig, create_app
from upstack import GriotStack

#: The request size limit of the test servers (small, so that oversized requests are cheap).
MAX_RECEIVE_BYTES = 16 * 1024


class LoopThread:
    """An event loop in a daemon thread."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self.thread.start()

    def run(self, coro: Any, timeout: float = 10) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="session")
def rules_grpc() -> Iterator[str]:
    """The rules service's gRPC server: its target."""
    lt = LoopThread("rules-grpc")
    config = ServerConfig(host="127.0.0.1", port=0, metrics_port=None, max_receive_bytes=MAX_RECEIVE_BYTES)
    running = lt.run(start(service_spec(), config))
    yield f"127.0.0.1:{running.port}"
    lt.run(running.stop(0))
    lt.stop()


@pytest.fixture(scope="session")
def analysis_grpc(griot_stack: GriotStack) -> str:
    """The real analysis gateway's gRPC target."""
    return griot_stack.gateway


class WebServer:
    """uvicorn serving the web app on a free port, in a thread."""

    def __init__(self, config: WebConfig) -> None:
        self.app = create_app(config)
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(self.app, log_config=None, lifespan="on", access_log=False, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("web server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="session")
def web_factory() -> Iterator[Callable[..., WebServer]]:
    """Starts web servers with a configuration's fields; all are stopped at the end."""
    started: list[WebServer] = []

    def make(**fields: Any) -> WebServer:
        fields.setdefault("max_receive_bytes", MAX_RECEIVE_BYTES)
        fields.setdefault("static_dir", None)
        server = WebServer(WebConfig(host="127.0.0.1", port=0, **fields))
        started.append(server)
        return server

    yield make
    for s in started:
        s.stop()


@pytest.fixture(scope="session")
def web_local(web_factory: Callable[..., WebServer], analysis_grpc: str) -> WebServer:
    """Rules in process, the analysis forwarded to the gateway, CORS for one origin."""
    return web_factory(
        services={"griot.v1.RulesService": "local", "griot.v1.AnalysisService": analysis_grpc},
        cors_origins=("http://allowed.example",),
    )


@pytest.fixture(scope="session")
def web_proxy(web_factory: Callable[..., WebServer], rules_grpc: str, analysis_grpc: str) -> WebServer:
    """Both services forwarded to real gRPC servers."""
    return web_factory(
        services={"griot.v1.RulesService": rules_grpc, "griot.v1.AnalysisService": analysis_grpc}
    )
