"""A service a command needs does not answer: one line that names it and says how to start it.

The command line turns :class:`Unreachable`, and a client's :class:`~griot.client.ServiceError`,
into that line (:func:`error_line`) instead of a traceback. Commands that hand work to the Celery
workers check the broker first (:func:`check_broker`): Celery itself would retry for half a minute
and then print its own multi-line message.
"""

from __future__ import annotations

import sys
from urllib.parse import urlsplit, urlunsplit

__all__ = ["START_HINT", "Unreachable", "check_broker", "error_line"]

#: How to start everything a client command talks to.
START_HINT = "start the system with `griot up`"


class Unreachable(Exception):
    """``what`` at ``address`` does not answer (``cause``); ``hint`` says how to start it or do
    without it."""

    def __init__(self, what: str, address: str, cause: str, hint: str = START_HINT) -> None:
        super().__init__(f"{what} at {address} is unreachable ({cause}): {hint}")
        self.what = what
        self.address = address
        self.cause = cause
        self.hint = hint


def _cause(text: str) -> str:
    """The last clause of a transport error (``... ipv4:127.0.0.1:1: Connection refused``,
    ``Error 111 connecting to 127.0.0.1:1. Connection refused.``), which says what happened."""
    last = text.strip().rstrip(".").rsplit(": ", 1)[-1].rsplit(". ", 1)[-1]
    return (last or text or "no answer").strip().lower()


def _safe_url(url: str) -> str:
    """``url`` without its password, fit to print."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def check_broker(broker_url: str, result_url: str = "", hint: str = START_HINT, timeout: float = 3.0) -> None:
    """Raises :class:`Unreachable` unless the workers' broker (and a Redis result backend) accept
    a connection within ``timeout`` seconds."""
    from kombu.connection import Connection

    conn = Connection(broker_url, connect_timeout=timeout)  # type: ignore[no-untyped-call]
    try:
        conn.ensure_connection(max_retries=1, timeout=timeout)  # type: ignore[no-untyped-call]
    except Exception as e:  # kombu raises the transport's own errors: any of them means no broker
        raise Unreachable("the workers' broker", _safe_url(broker_url), _cause(str(e)), hint) from None
    finally:
        conn.release()  # type: ignore[no-untyped-call]
    if result_url and urlsplit(result_url).scheme in ("redis", "rediss"):
        import redis

        client = redis.Redis.from_url(result_url, socket_connect_timeout=timeout, socket_timeout=timeout)
        try:
            client.ping()
        except redis.RedisError as e:
            what = "the workers' result backend"
            raise Unreachable(what, _safe_url(result_url), _cause(str(e)), hint) from None
        finally:
            client.close()


_GATEWAY_HINT = f"{START_HINT}, or give --gateway off to work in this process"


def error_line(e: BaseException) -> str | None:
    """The one line for an error of an unreachable or failing service; None for any other error."""
    if isinstance(e, Unreachable):
        return str(e)
    client = sys.modules.get("griot.client")  # a ServiceError exists only once the client is loaded
    if client is None or not isinstance(e, client.ServiceError):
        return None
    what = e.service or "the service"
    where = f"{what} at {e.target}" if e.target else what
    if e.code.name == "UNAVAILABLE":
        hint = _GATEWAY_HINT if e.service == "the gateway" else START_HINT
        return f"{where} is unreachable ({_cause(e.message)}): {hint}"
    return f"{where} failed: {e.code.name}: {e.message}"
