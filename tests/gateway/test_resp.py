"""The gateway's pipelined Redis client (:mod:`services.gateway.resp`) against the real
redis-server of the gateway tests' stack: replies matched to their callers, errors, scripts, lost
connections, the watchdog and the pattern subscription."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis
from gateway_stack import Stack

from services.gateway.resp import ReplyError, RespClient, Subscription, pack, parse


async def _bounded(what: Callable[[], Awaitable[Any]], timeout: float = 30.0) -> Any:
    return await asyncio.wait_for(what(), timeout)


def test_replies_split_anywhere_parse_the_same() -> None:
    """A reply cut at any byte is incomplete until its last byte arrives; nested arrays, nil,
    integers and errors parse to their values."""
    wire = b"*4\r\n$3\r\nabc\r\n$-1\r\n:42\r\n*2\r\n+OK\r\n-ERR bad\r\n"
    for cut in range(1, len(wire)):
        head, _ = parse(bytearray(wire[:cut]), 0)
        assert head is not None and not isinstance(head, list)  # the "more" marker
    value, end = parse(bytearray(wire), 0)
    assert end == len(wire)
    assert value[:3] == [b"abc", None, 42]
    assert value[3][0] == b"OK" and isinstance(value[3][1], ReplyError) and str(value[3][1]) == "ERR bad"
    assert pack(["SET", "k", b"v\r\n", 7]) == b"*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\nv\r\n\r\n$1\r\n7\r\n"
    with pytest.raises(TypeError):
        pack(["SET", "k", True])


def test_concurrent_commands_get_their_own_replies(stack: Stack) -> None:
    """Hundreds of commands sent in one turn of the loop (one write) each get their own reply,
    in order; a big value arriving in many reads too; an error reply fails its caller only."""
    big = bytes(range(256)) * 2000  # 512 kB: many reads

    async def run() -> tuple[list[Any], list[Any], Any, Any, list[Any]]:
        c = RespClient(stack.cache.url)
        try:
            await c.execute("DEL", "griot:test:resp:n")
            counts = await _bounded(
                lambda: asyncio.gather(*(c.execute("INCR", "griot:test:resp:n") for _ in range(300)))
            )
            await c.execute_many([("SET", f"griot:test:resp:{i}", f"v{i}") for i in range(50)])
            values = await asyncio.gather(*(c.execute("GET", f"griot:test:resp:{i}") for i in range(50)))
            await c.execute("SET", "griot:test:resp:big", big)
            got_big = await c.execute("GET", "griot:test:resp:big")
            with pytest.raises(ReplyError, match="WRONGTYPE"):
                await c.execute("LPUSH", "griot:test:resp:big", "x")
            after = await c.execute("STRLEN", "griot:test:resp:big")
            with pytest.raises(ReplyError):
                await c.execute_many([("INCR", "griot:test:resp:n"), ("HSET", "griot:test:resp:big", "a", 1)])
            mixed = await c.execute_many([("INCR", "griot:test:resp:n"), ("GET", "griot:test:resp:none")])
            return counts, values, got_big, after, mixed
        finally:
            await c.aclose()

    counts, values, got_big, after, mixed = asyncio.run(run())
    assert counts == list(range(1, 301))
    assert values == [f"v{i}".encode() for i in range(50)]
    assert got_big == big and after == len(big)
    assert mixed == [302, None]  # the failed pair's INCR ran (301), the error failed its caller


def test_script_is_loaded_once_and_db_from_the_url(stack: Stack) -> None:
    """A script the server does not know is sent whole once, then run by its SHA1; the URL's
    database is selected on connect."""
    source = "return redis.call('INCRBY', KEYS[1], ARGV[1])"
    sha = hashlib.sha1(source.encode()).hexdigest()
    r = redis.Redis.from_url(stack.cache.url)
    r.script_flush()
    url = stack.cache.url.rsplit("/", 1)[0] + "/3"
    r3 = redis.Redis.from_url(url)
    r3.delete("griot:test:resp:script")

    async def run() -> list[int]:
        c = RespClient(url)
        try:
            script = c.script(source)
            return [await script(keys=["griot:test:resp:script"], args=[n]) for n in (2, 3)]
        finally:
            await c.aclose()

    assert asyncio.run(run()) == [2, 5]
    assert r3.get("griot:test:resp:script") == b"5"
    assert not r.exists("griot:test:resp:script")  # db 0 untouched
    assert r.script_exists(sha) == [True]


def test_script_sent_without_a_task(stack: Stack) -> None:
    """``Script.send`` (the evaluator's cache lookup): nothing sent while the client is not
    connected; once it is, the reply comes in the future returned, through ``then``, including
    after the server forgot the script (sent whole once more); an error reply fails the future."""
    source = "return redis.call('INCRBY', KEYS[1], ARGV[1]) + 0 * 17"
    sha = hashlib.sha1(source.encode()).hexdigest()
    r = redis.Redis.from_url(stack.cache.url)
    r.delete("griot:test:resp:soon")

    async def run() -> tuple[Any, list[Any], Any]:
        c = RespClient(stack.cache.url)
        try:
            script = c.script(source)
            before = script.send(keys=["griot:test:resp:soon"], args=[1])
            await c.execute("PING")  # connected now
            r.script_flush()  # the server does not know the script: EVALSHA fails, EVAL follows
            got = []
            for n in (2, 3):
                f = script.send(keys=["griot:test:resp:soon"], args=[n], then=lambda v: ("then", v))
                assert f is not None
                got.append(await _bounded(lambda f=f: f))  # type: ignore[misc]
            bad = script.send(keys=["griot:test:resp:soon"], args=["not a number"])
            assert bad is not None
            with pytest.raises(ReplyError):
                await _bounded(lambda: bad)
            return before, got, None
        finally:
            await c.aclose()

    before, got, _ = asyncio.run(run())
    assert before is None
    assert got == [("then", 2), ("then", 5)]
    assert r.get("griot:test:resp:soon") == b"5"
    assert r.script_exists(sha) == [True]


class _Counting(RespClient):
    """Records how many commands each write carried."""

    writes: list[int]

    def _flush(self, conn: Any) -> None:
        if conn.out:
            self.writes.append(len(conn.out))
        super()._flush(conn)


def test_delayed_commands_share_the_next_write(stack: Stack) -> None:
    """A command sent with a ``delay`` (a live session's save) goes out with the next command
    sent without one, in one write; alone, it goes when hurried (or its delay is over); replies
    still reach their callers in order."""

    async def run() -> tuple[list[int], list[Any], list[int], Any]:
        c = _Counting(stack.cache.url)
        c.writes = []
        try:
            await c.execute("DEL", "griot:test:resp:later")
            c.writes.clear()
            saves = [c.send("RPUSH", "griot:test:resp:later", i, delay=60.0) for i in range(3)]
            for _ in range(5):
                await asyncio.sleep(0)
            waited = list(c.writes)  # nothing written: the delay is long and nothing else came
            now = c.send("LRANGE", "griot:test:resp:later", 0, -1)
            assert now is not None and all(f is not None for f in saves)
            got = await _bounded(lambda: asyncio.gather(*saves, now))  # type: ignore[arg-type]
            together = list(c.writes)
            alone = c.send("RPUSH", "griot:test:resp:later", 3, delay=60.0)
            assert alone is not None
            c.hurry()
            last = await _bounded(lambda: alone)
            return waited, got, together, last
        finally:
            await c.aclose()

    waited, got, together, last = asyncio.run(run())
    assert waited == []
    assert got == [1, 2, 3, [b"0", b"1", b"2"]]
    assert together == [4]  # the three delayed pushes rode with the read: one write
    assert last == 4


def test_lost_connection_fails_waiting_commands_and_reconnects(stack: Stack) -> None:
    """A connection killed under a waiting command fails it with ``ConnectionError``; a server
    that stops answering is disconnected by the watchdog; the next command connects again."""
    r = redis.Redis.from_url(stack.cache.url)
    r.delete("griot:test:resp:list")

    async def run() -> tuple[type[BaseException], type[BaseException], Any, Any]:
        c = RespClient(stack.cache.url, timeout=0.4)
        try:
            my_id = await c.execute("CLIENT", "ID")
            # A blocking command (never sent by the gateway) stands for a reply that is late.
            waiting = asyncio.ensure_future(c.execute("BLPOP", "griot:test:resp:list", 20))
            await asyncio.sleep(0.1)
            r.client_kill_filter(_id=my_id)
            killed = await _bounded(lambda: asyncio.wait([waiting]))
            first = type(waiting.exception())
            again = await c.execute("PING")
            slow = asyncio.ensure_future(c.execute("BLPOP", "griot:test:resp:list", 20))
            await _bounded(lambda: asyncio.wait([slow]))  # the watchdog (0.4 s), not the 20 s
            second = type(slow.exception())
            back = await c.execute("PING")
            assert killed
            return first, second, again, back
        finally:
            await c.aclose()

    first, second, again, back = asyncio.run(run())
    assert issubclass(first, ConnectionError) and issubclass(second, ConnectionError)
    assert again == b"PONG" and back == b"PONG"


def test_subscription_delivers_pattern_messages_until_lost(stack: Stack) -> None:
    """Both patterns are confirmed, matching messages arrive with their channel and data (others
    do not), and a killed subscription ends ``run`` with ``ConnectionError``."""
    r = redis.Redis.from_url(stack.cache.url)

    async def run() -> tuple[list[bytes], list[tuple[bytes, bytes]], BaseException | None]:
        subscribed: list[bytes] = []
        messages: list[tuple[bytes, bytes]] = []
        sub = Subscription(
            stack.cache.url,
            ["griot:test:a:*", "griot:test:b:*"],
            lambda ch, data: messages.append((ch, data)),
            subscribed.append,
        )
        task = asyncio.ensure_future(sub.run())
        for _ in range(500):
            if len(subscribed) == 2:
                break
            await asyncio.sleep(0.01)
        r.publish("griot:test:a:1", b"one")
        r.publish("griot:test:c:1", b"none")
        r.publish("griot:test:b:2", b"two" * 10000)
        for _ in range(500):
            if len(messages) == 2:
                break
            await asyncio.sleep(0.01)
        r.client_kill_filter(_type="pubsub")
        await _bounded(lambda: asyncio.wait([task]))
        return subscribed, messages, task.exception()

    subscribed, messages, error = asyncio.run(run())
    assert subscribed == [b"griot:test:a:*", b"griot:test:b:*"]
    assert messages == [(b"griot:test:a:1", b"one"), (b"griot:test:b:2", b"two" * 10000)]
    assert isinstance(error, ConnectionError)
