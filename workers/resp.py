"""RESP2, Redis's wire format, for the clients that speak it directly on an ``asyncio.Protocol``:
the gateway's pipelined client (:mod:`services.gateway.resp`) and the distributed search's result
notifier (:mod:`workers.notify`). Commands are packed into bytes; replies are parsed from a buffer
that may hold several replies or part of one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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
        if a.__class__ is str:
            b = a.encode()
        elif a.__class__ is not bytes:
            b = _arg(a)
        else:
            b = a
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
