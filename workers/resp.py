"""RESP2, Redis's wire format, for the clients that speak it directly on an ``asyncio.Protocol``:
the gateway's pipelined client and pattern subscription (:mod:`services.gateway.resp`) and the
distributed search's result notifier (:mod:`workers.notify`). Commands are packed into bytes;
replies are parsed from a buffer that may hold several replies or part of one
(:class:`RespProtocol` hands each to a callback as it arrives); :func:`address` reads a Redis URL
once and :func:`open_connection` connects to it (TCP or a Unix socket)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from redis.connection import parse_url

_CRLF = b"\r\n"
MORE = object()
"""Marks a reply not yet complete in the buffer."""


class ReplyError(Exception):
    """An error reply of Redis (``-ERR ...``, ``-NOSCRIPT ...``)."""


def _arg(a: Any) -> bytes:
    if isinstance(a, bool):
        raise TypeError("bool is not a Redis argument")
    if isinstance(a, int | float):
        return repr(a).encode()
    raise TypeError(f"{type(a).__name__} is not a Redis argument")


def pack(args: Sequence[Any]) -> bytes:
    """One command in the RESP wire format."""
    parts = [b"*%d\r\n" % len(args)]
    append = parts.append
    for a in args:
        cls = a.__class__
        if cls is str:
            b = a.encode()
        elif cls is bytes:
            b = a
        elif cls is int:
            b = b"%d" % a
        else:
            b = _arg(a)
        append(b"$%d\r\n%b\r\n" % (len(b), b))
    return b"".join(parts)


def parse(buf: bytearray, pos: int) -> tuple[Any, int]:
    """The reply starting at ``buf[pos]`` and where the next one starts, or ``(MORE, pos)``
    when it is not all there yet. Error replies are returned as :class:`ReplyError` values."""
    end = buf.find(_CRLF, pos)
    if end < 0:
        return MORE, pos
    kind = buf[pos]
    if kind == 36:  # $ bulk string
        n = int(buf[pos + 1 : end])
        if n < 0:
            return None, end + 2
        start = end + 2
        if len(buf) < start + n + 2:
            return MORE, pos
        return bytes(buf[start : start + n]), start + n + 2
    if kind == 42:  # * array
        n = int(buf[pos + 1 : end])
        if n < 0:
            return None, end + 2
        items = []
        p = end + 2
        for _ in range(n):
            item, p = parse(buf, p)
            if item is MORE:
                return MORE, pos
            items.append(item)
        return items, p
    if kind == 58:  # : integer
        return int(buf[pos + 1 : end]), end + 2
    if kind == 43:  # + simple string
        return bytes(buf[pos + 1 : end]), end + 2
    if kind == 45:  # - error
        return ReplyError(buf[pos + 1 : end].decode(errors="replace")), end + 2
    raise ConnectionError(f"not a RESP reply: {bytes(buf[pos:end])[:40]!r}")


class RespProtocol(asyncio.Protocol):
    """Parses replies as they arrive and hands each to ``on_reply``. ``lost`` is done when the
    connection ends: its result is None, or a :class:`ConnectionError` when the stream was garbled
    (the connection is then closed: nothing after it can be matched to a command)."""

    def __init__(self, on_reply: Callable[[Any], None]) -> None:
        self.on_reply = on_reply
        self.buf = bytearray()
        self.transport: asyncio.Transport | None = None
        self.lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's are not subclasses

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        pos = 0
        try:
            while pos < len(buf):
                reply, pos = parse(buf, pos)
                if reply is MORE:
                    break
                self.on_reply(reply)
        except Exception as e:
            del buf[:]
            if self.transport is not None:
                self.transport.close()
            if not self.lost.done():
                self.lost.set_exception(ConnectionError(f"bad reply from Redis: {e}"))
            return
        del buf[:pos]

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        if not self.lost.done():
            self.lost.set_result(None)


@dataclass(frozen=True)
class Address:
    """Where a Redis URL points (``host``/``port``, or a Unix socket ``path``), the commands that
    open a connection to it (``AUTH``, ``SELECT``) and whether it asks for TLS (``rediss://``,
    which these clients do not speak)."""

    host: str
    port: int
    path: str | None
    setup: tuple[tuple[Any, ...], ...]
    tls: bool

    def __str__(self) -> str:
        return self.path or f"{self.host}:{self.port}"


def address(url: str) -> Address:
    """Reads a ``redis://``, ``rediss://`` or ``unix://`` URL (redis-py's syntax)."""
    opts: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
    setup: list[tuple[Any, ...]] = []
    if opts.get("password"):
        user = opts.get("username")
        setup.append(("AUTH", user, opts["password"]) if user else ("AUTH", opts["password"]))
    if int(opts.get("db") or 0):
        setup.append(("SELECT", int(opts["db"])))
    return Address(
        host=opts.get("host", "localhost"),
        port=int(opts.get("port", 6379)),
        path=opts.get("path"),
        setup=tuple(setup),
        tls=opts.get("connection_class") is not None and not opts.get("path"),
    )


async def open_connection(
    addr: Address, on_reply: Callable[[Any], None], timeout: float
) -> tuple[asyncio.Transport, RespProtocol]:
    """Connects to ``addr`` within ``timeout`` seconds with a :class:`RespProtocol` handing each
    reply to ``on_reply``; the caller writes the setup commands."""
    if addr.tls:
        raise ConnectionError(f"TLS (rediss://) is not supported by this client: {addr}")
    loop = asyncio.get_running_loop()
    if addr.path:
        connect = loop.create_unix_connection(lambda: RespProtocol(on_reply), addr.path)
    else:
        connect = loop.create_connection(lambda: RespProtocol(on_reply), addr.host, addr.port)
    transport, protocol = await asyncio.wait_for(connect, timeout)
    return transport, protocol
