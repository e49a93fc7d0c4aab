"""A small Redis client for the gateway's hot paths: one connection, every command pipelined.

redis-py's asyncio client spends, per command, a pool checkout and release, a command packer
and encoder, an ``asyncio.StreamWriter`` write (one ``write`` system call each) and a stream
reader's parse: at 1,000 live games that was a quarter of the gateway's CPU, for a handful of
commands per evaluation (the session save, the cache script, the deletes of read results, the
task pushes). This client keeps one connection per server and sends every command written in
one turn of the event loop in one ``write``; Redis answers a connection's commands in order, so
replies are matched to their callers by a FIFO of futures. Replies are parsed from an
``asyncio.Protocol``'s buffer (no stream reader, no task per connection).

- :class:`RespClient`: ``await client.execute("HSET", key, ...)`` (bytes, int, ``None`` or a
  list; a Redis error reply raises :class:`ReplyError`), :meth:`RespClient.script` for Lua
  scripts (``EVALSHA``, ``EVAL`` once when the server does not know the script). A lost
  connection fails the commands waiting on it with :class:`ConnectionError`; the next command
  connects again. A server that stops answering for ``timeout`` seconds is disconnected.
- :class:`Subscription`: a pattern subscription on its own connection, each message handed to a
  callback as it is parsed.

It serves the commands the gateway sends in bulk; everything else (jobs, session reads, metrics)
stays on redis-py. No blocking command may go on a :class:`RespClient` (they would hold every
other caller's replies).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

# The wire format, the reply-parsing protocol and the URL reading are shared with the workers'
# result notifier (workers/resp.py).
from workers.resp import Address, ReplyError, RespProtocol, address, open_connection, pack, parse


def _address(url: str) -> Address:
    addr = address(url)
    if addr.tls:
        raise ValueError(f"TLS (rediss://) is not supported by the gateway's Redis client: {url}")
    return addr


class _Connection:
    def __init__(self, protocol: RespProtocol, waiting: deque[asyncio.Future[Any]]) -> None:
        #: The event loop it runs in (asyncio.get_running_loop() costs a getpid() system call on
        #: Python 3.11: looked up once here, not per command).
        self.loop = asyncio.get_running_loop()
        self.protocol = protocol
        self.waiting = waiting
        self.out: list[bytes] = []
        self.replies = 0  # replies read so far (the watchdog's progress count)
        #: A write of ``out`` is due in this turn of the loop (``call_soon``).
        self.soon = False
        #: A later write of ``out`` (commands sent with a ``delay`` and nothing due sooner).
        self.later: asyncio.TimerHandle | None = None


class RespClient:
    """One pipelined connection to one Redis server (see the module header)."""

    def __init__(self, url: str, timeout: float = 5.0) -> None:
        self.url = url
        self.addr = _address(url)
        self.timeout = timeout
        self._conn: _Connection | None = None
        self._connecting: asyncio.Future[_Connection] | None = None
        self._watchdog: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def connected(self) -> bool:
        """Whether a command sent now goes out without waiting for a connection."""
        return self._conn is not None

    async def execute(self, *args: Any) -> Any:
        """Sends one command (with the others of this turn of the loop) and returns its reply."""
        conn = self._conn or await self._connect()
        return await self._send(conn, pack(args))

    async def execute_many(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """Sends commands together (in this order, in one write) and returns their replies; the
        first error reply raises once every reply is in."""
        conn = self._conn or await self._connect()
        futures = [self._send(conn, pack(c)) for c in commands]
        replies = []
        error: BaseException | None = None
        for f in futures:
            try:
                replies.append(await f)
            except ReplyError as e:
                error = error or e
                replies.append(e)
        if error is not None:
            raise error
        return replies

    async def connect(self) -> None:
        """Returns once connected (raises ``ConnectionError`` if Redis cannot be reached)."""
        if self._conn is None:
            await self._connect()

    def send(self, *args: Any, delay: float = 0.0) -> asyncio.Future[Any] | None:
        """:meth:`execute` without a coroutine: the command is queued now and its reply comes in
        the future returned; None (nothing sent) while the client is not connected. With a
        ``delay`` (seconds) the command may wait that long for others to share its write: it
        goes with the next command sent without one, or when the delay is over, or at
        :meth:`hurry`, whichever comes first."""
        conn = self._conn
        return None if conn is None else self._send(conn, pack(args), delay)

    def hurry(self) -> None:
        """Writes the commands waiting out a ``delay`` in this turn of the loop."""
        conn = self._conn
        if conn is not None and conn.out and not conn.soon:
            conn.soon = True
            conn.loop.call_soon(self._flush, conn)

    def _send(self, conn: _Connection, data: bytes, delay: float = 0.0) -> asyncio.Future[Any]:
        loop = conn.loop
        fut: asyncio.Future[Any] = loop.create_future()
        if not conn.soon:
            if not delay:
                conn.soon = True
                loop.call_soon(self._flush, conn)
            elif conn.later is None:
                conn.later = loop.call_later(delay, self._flush, conn)
        conn.out.append(data)
        conn.waiting.append(fut)
        return fut

    def _flush(self, conn: _Connection) -> None:
        conn.soon = False
        if conn.later is not None:
            conn.later.cancel()
            conn.later = None
        if not conn.out:
            return  # written already (a delayed write overtaken by one due sooner)
        data, conn.out = b"".join(conn.out), []
        transport = conn.protocol.transport
        if conn is not self._conn or transport is None or transport.is_closing():
            return  # lost meanwhile: its waiters were failed with it
        transport.write(data)

    async def _connect(self) -> _Connection:
        if self._closed:
            raise ConnectionError("the client is closed")
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._open())
            self._connecting.add_done_callback(self._connected)
        return await asyncio.shield(self._connecting)

    def _connected(self, f: asyncio.Future[_Connection]) -> None:
        self._connecting = None
        if not f.cancelled() and f.exception() is None:
            self._conn = f.result()

    async def _open(self) -> _Connection:
        loop = asyncio.get_running_loop()
        waiting: deque[asyncio.Future[Any]] = deque()
        conn: _Connection | None = None

        def on_reply(reply: Any) -> None:
            assert conn is not None
            conn.replies += 1
            fut = waiting.popleft()
            if fut.done():
                return
            if isinstance(reply, ReplyError):
                fut.set_exception(reply)
            else:
                fut.set_result(reply)

        transport, protocol = await open_connection(self.addr, on_reply, self.timeout)
        conn = _Connection(protocol, waiting)
        protocol.lost.add_done_callback(lambda _: self._lost(conn))
        for command in self.addr.setup:
            fut = loop.create_future()
            waiting.append(fut)
            transport.write(pack(command))
            await asyncio.wait_for(fut, self.timeout)
        if self._watchdog is None or self._watchdog.done():
            self._watchdog = loop.create_task(self._watch())
        return conn

    def _lost(self, conn: _Connection) -> None:
        if self._conn is conn:
            self._conn = None
        err = ConnectionError(f"connection to Redis at {self.addr} lost")
        exc = conn.protocol.lost.exception() if not conn.protocol.lost.cancelled() else None
        while conn.waiting:
            fut = conn.waiting.popleft()
            if not fut.done():
                fut.set_exception(exc or err)
        conn.out.clear()

    async def _watch(self) -> None:
        """Closes a connection whose oldest command has waited ``timeout`` without any reply."""
        seen, since = -1, time.monotonic()
        while not self._closed:
            await asyncio.sleep(self.timeout / 4)
            conn = self._conn
            if conn is None or not conn.waiting:
                seen, since = -1, time.monotonic()
                continue
            if conn.replies != seen:
                seen, since = conn.replies, time.monotonic()
            elif time.monotonic() - since > self.timeout:
                transport = conn.protocol.transport
                if transport is not None:
                    transport.abort()
                seen, since = -1, time.monotonic()

    def script(self, source: str) -> Script:
        return Script(self, source)

    async def aclose(self) -> None:
        self._closed = True
        if self._watchdog is not None:
            self._watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._watchdog
        conn, self._conn = self._conn, None
        if conn is not None and conn.protocol.transport is not None:
            if conn.out:
                self._flush_now(conn)
            conn.protocol.transport.close()

    def _flush_now(self, conn: _Connection) -> None:
        data, conn.out = b"".join(conn.out), []
        assert conn.protocol.transport is not None
        conn.protocol.transport.write(data)


class Script:
    """A Lua script run by its SHA1 (``EVALSHA``), sent whole the first time a server lacks it."""

    def __init__(self, client: RespClient, source: str) -> None:
        self.client = client
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

    async def __call__(self, keys: Sequence[Any] = (), args: Sequence[Any] = ()) -> Any:
        """The script's reply (:meth:`send`, connecting first when the client is not connected)."""
        while (reply := self.send(keys, args)) is None:
            await self.client.connect()
        return await reply

    def send(
        self, keys: Sequence[Any] = (), args: Sequence[Any] = (), then: Callable[[Any], Any] | None = None
    ) -> asyncio.Future[Any] | None:
        """The script's reply (passed through ``then`` if given) in a future, with no task
        between the command and its caller (:meth:`RespClient.send`); None while the client is
        not connected. Cancelling the future does not take the command back."""
        first = self.client.send("EVALSHA", self.sha, len(keys), *keys, *args)
        if first is None:
            return None
        result: asyncio.Future[Any] = first.get_loop().create_future()

        def settle(f: asyncio.Future[Any]) -> None:
            if result.done():
                return
            if f.cancelled():
                result.cancel()
                return
            e = f.exception()
            if e is None:
                try:
                    result.set_result(f.result() if then is None else then(f.result()))
                except Exception as bad:
                    result.set_exception(bad)
            elif f is first and isinstance(e, ReplyError) and str(e).startswith("NOSCRIPT"):
                second = self.client.send("EVAL", self.source, len(keys), *keys, *args)
                if second is None:
                    result.set_exception(ConnectionError("connection to Redis lost"))
                else:
                    second.add_done_callback(settle)
            else:
                result.set_exception(e)

        first.add_done_callback(settle)
        return result


class Subscription:
    """A pattern subscription on its own connection: :meth:`run` connects, subscribes to
    ``patterns``, calls ``on_subscribed(pattern)`` as each is confirmed and ``on_message(channel,
    data)`` for each message, and returns (raises ``ConnectionError``) when the connection is
    lost; the caller subscribes again."""

    def __init__(
        self,
        url: str,
        patterns: Sequence[str],
        on_message: Callable[[bytes, bytes], None],
        on_subscribed: Callable[[bytes], None],
        timeout: float = 5.0,
    ) -> None:
        self.addr = _address(url)
        self.patterns = list(patterns)
        self.on_message = on_message
        self.on_subscribed = on_subscribed
        self.timeout = timeout
        self._transport: asyncio.Transport | None = None

    def _reply(self, reply: Any) -> None:
        if isinstance(reply, ReplyError):
            raise reply
        if isinstance(reply, list) and reply:
            kind = reply[0]
            if kind == b"pmessage" and len(reply) == 4:
                self.on_message(reply[2], reply[3])
            elif kind == b"psubscribe":
                self.on_subscribed(reply[1])
        # +OK of AUTH / SELECT

    async def run(self) -> None:
        transport, protocol = await open_connection(self.addr, self._reply, self.timeout)
        self._transport = transport
        try:
            for command in self.addr.setup:
                transport.write(pack(command))
            transport.write(pack(["PSUBSCRIBE", *self.patterns]))
            await protocol.lost
            raise ConnectionError(f"subscription to Redis at {self.addr} lost")
        finally:
            transport.close()
            self._transport = None


__all__ = ["ReplyError", "RespClient", "Script", "Subscription", "pack", "parse"]
