"""`python -m griot.probe`, the containers' health checks (docker-compose.yml), against real
servers on loopback: an HTTP server answering /healthz, a redis-server, and nothing listening."""

from __future__ import annotations

import http.server
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
from griot.launcher import free_port

from .conftest import Redis, needs_redis


class _Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/healthz" else 404)
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture
def web() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _probe(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "griot.probe", *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_http_probe_is_healthy_on_200_only(web: str) -> None:
    ok = _probe("http", web + "/healthz")
    assert ok.returncode == 0 and "200" in ok.stderr, ok.stderr
    assert _probe("http", web + "/missing").returncode == 1
    assert _probe("http", f"http://127.0.0.1:{free_port('127.0.0.1')}/healthz").returncode == 1


@needs_redis
def test_redis_probe(redis_server: Redis) -> None:
    assert _probe("redis", redis_server.url).returncode == 0
    assert _probe("redis", f"redis://127.0.0.1:{free_port('127.0.0.1')}/0").returncode == 1


def test_usage_errors_exit_2() -> None:
    wrong = _probe("ftp", "x")
    assert wrong.returncode == 2 and "usage" in wrong.stderr
