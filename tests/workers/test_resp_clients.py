"""The direct-protocol Redis clients share one wire layer (:mod:`workers.resp`): one URL reading
(TCP or Unix socket, AUTH, SELECT) and one reply-parsing protocol, used by the distributed search's
result notifier (:mod:`workers.notify`) and the gateway's pipelined client and pattern
subscription (:mod:`services.gateway.resp`). Here all three go through a real redis-server that
listens on a Unix socket and asks for a password."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import pytest
import redis
from workers_stack import RedisServer, free_port

from services.gateway.resp import RespClient, Subscription
from workers.notify import RESULT_PREFIX, ResultNotifier
from workers.resp import address


def test_urls_are_read_once_for_every_client() -> None:
    """Host and port, or a socket path; AUTH with or without a user name; SELECT only for a
    database other than 0; TLS noticed (these clients do not speak it: the gateway refuses it)."""
    a = address("redis://u:pw@10.0.0.5:6390/3")
    assert (a.host, a.port, a.path, a.tls) == ("10.0.0.5", 6390, None, False)
    assert a.setup == (("AUTH", "u", "pw"), ("SELECT", 3))
    assert address("redis://127.0.0.1:6379/0").setup == ()
    u = address("unix:///run/redis.sock?db=2&password=pw")
    assert (u.path, u.tls, u.setup) == ("/run/redis.sock", False, (("AUTH", "pw"), ("SELECT", 2)))
    assert str(u) == "/run/redis.sock"
    assert address("rediss://h:6380/0").tls
    with pytest.raises(ValueError, match="TLS"):
        RespClient("rediss://h:6380/0")


def test_every_client_works_over_a_unix_socket_with_a_password() -> None:
    """The gateway's client (its commands land in the URL's database), its pattern subscription
    and the result notifier (a task's result channel) all connect through the socket, send AUTH
    and hear what is published."""
    with tempfile.TemporaryDirectory(prefix="griot-resp-") as tmp:
        sock = str(Path(tmp) / "redis.sock")
        server = RedisServer(free_port(), extra=["--unixsocket", sock, "--unixsocketperm", "700"])
        server.start()
        try:
            admin = redis.Redis(unix_socket_path=sock)
            admin.config_set("requirepass", "s3cret")
            admin = redis.Redis(unix_socket_path=sock, password="s3cret")
            url = f"unix://{sock}?db=2&password=s3cret"

            async def run() -> tuple[Any, list[tuple[bytes, bytes]], list[tuple[str, bytes]]]:
                client = RespClient(url)
                await client.execute("SET", "griot:test:unix", "v")
                got = await client.execute("GET", "griot:test:unix")
                await client.aclose()

                messages: list[tuple[bytes, bytes]] = []
                subscribed: list[bytes] = []
                sub = Subscription(
                    url, ["griot:test:u:*"], lambda c, d: messages.append((c, d)), subscribed.append
                )
                sub_task = asyncio.ensure_future(sub.run())

                results: list[tuple[str, bytes]] = []
                notifier = ResultNotifier(url, lambda t, p: results.append((t, p)))
                notifier.start()
                assert await notifier.wait_connected(10)
                notifier.watch(["task-1"])
                for _ in range(500):
                    # The notifier's SUBSCRIBE and the subscription's PSUBSCRIBE are in.
                    if subscribed and admin.pubsub_numsub(RESULT_PREFIX + b"task-1")[0][1] == 1:
                        break
                    await asyncio.sleep(0.01)
                admin.publish("griot:test:u:1", b"one")
                admin.publish(RESULT_PREFIX + b"task-1", b'{"status": "SUCCESS"}')
                admin.publish(RESULT_PREFIX + b"task-2", b"not watched")
                for _ in range(500):
                    if messages and results:
                        break
                    await asyncio.sleep(0.01)
                sub_task.cancel()
                await asyncio.gather(sub_task, return_exceptions=True)
                await notifier.close()
                return got, messages, results

            got, messages, results = asyncio.run(asyncio.wait_for(run(), 30))
            assert got == b"v"
            # The commands went to database 2 (SELECT from the URL), not 0.
            assert redis.Redis(unix_socket_path=sock, password="s3cret", db=2).get("griot:test:unix") == b"v"
            assert admin.get("griot:test:unix") is None
            assert messages == [(b"griot:test:u:1", b"one")]
            assert results == [("task-1", b'{"status": "SUCCESS"}')]
        finally:
            server.stop()
