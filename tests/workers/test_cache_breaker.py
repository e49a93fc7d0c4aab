"""The cache's breaker: a cache that does not answer is skipped for a while by every search of the
process, instead of costing each of their Redis calls the client's timeout."""

from __future__ import annotations

import socket
import time

import pytest
import redis
from griot.workers.cache import Breaker, Cache, CacheSkipped, breaker_of, connect


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_an_unreachable_cache_is_skipped_then_tried_again() -> None:
    client = connect(f"redis://127.0.0.1:{_closed_port()}/0")
    try:
        cache = Cache(client, "awale")
        cache.breaker.pause = 0.5
        with pytest.raises(redis.ConnectionError) as first:
            cache.get_many([b"k"])
        assert not isinstance(first.value, CacheSkipped)
        # Every cache of the process over this client skips now, the markers' calls too.
        other = Cache(client, "abapa")
        assert other.breaker is cache.breaker is breaker_of(client)
        for call in (lambda: other.get_many([b"k"]), lambda: other.try_claim(b"k", "me", 1000)):
            with pytest.raises(CacheSkipped):
                call()
        # Once the pause ends, the next call reaches for the server again.
        deadline = time.monotonic() + 10
        while True:
            try:
                cache.holder(b"k")
            except CacheSkipped:
                assert time.monotonic() < deadline, "still skipped 10 s after a 0.5 s pause"
                time.sleep(0.05)
                continue
            except redis.ConnectionError:
                break
    finally:
        client.close()


def test_an_answered_error_does_not_open_the_breaker() -> None:
    breaker = Breaker(pause=60)

    def answered() -> None:
        raise redis.ResponseError("ERR the server answered")

    with pytest.raises(redis.ResponseError):
        breaker.call(answered)
    assert breaker.call(lambda: "called") == "called"
