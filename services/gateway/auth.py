"""API keys, per-key limits, request quotas and stream counts.

Keys file (``--api-keys-file`` / ``GRIOT_GATEWAY_API_KEYS_FILE``; the deploy examples mount one from
a secret): one key a line, ``<key> <name> [limit=value ...]``, ``#`` starts a comment::

    example-key-change-me demo
    k3y-of-a-bot  bot-7  max_depth=16 max_time=5 max_streams=50 rate_per_minute=600

Limits a key may carry (any it omits takes the gateway's flag): ``max_depth``, ``max_time``
(seconds), ``max_game_moves``, ``max_streams`` (streams open at once, per replica) and
``rate_per_minute`` (requests; 0 = unlimited).

- No keys file: authentication is off (the local default of ``griot up``); callers are told apart
  for fair share and quotas by their ``x-client-id`` metadata, else their address.
- With a keys file, :class:`ApiKeyInterceptor` refuses every AnalysisService call without a known
  ``x-api-key`` (``UNAUTHENTICATED``, reason ``missing_api_key`` / ``bad_api_key``); health checks
  and reflection stay open. Asking more than the key allows fails with ``PERMISSION_DENIED``
  (reason ``limit``); more requests than its rate, or more streams than it may hold open, fail with
  ``RESOURCE_EXHAUSTED`` (reason ``quota``) and a retry hint.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import grpc
from griot.services.gateway.config import GatewayConfig
from griot.status import StatusError, status_for

API_KEY_HEADER = "x-api-key"
CLIENT_ID_HEADER = "x-client-id"
PROTECTED_PREFIX = "/griot.v1.AnalysisService/"


@dataclass(frozen=True)
class Limits:
    max_depth: int
    max_time: float
    max_game_moves: int
    max_streams: int
    rate_per_minute: int


@dataclass(frozen=True)
class Principal:
    """Who calls: a key's name (authenticated) or a client id / address, and their limits."""

    name: str
    limits: Limits
    authenticated: bool


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class KeyStore:
    """The keys file, by digest of the key (keys are never kept or logged in clear)."""

    def __init__(self, config: GatewayConfig) -> None:
        self.defaults = Limits(
            config.max_depth,
            config.max_time,
            config.max_game_moves,
            config.max_streams,
            config.rate_per_minute,
        )
        self.keys: dict[str, Principal] = {}
        self.enabled = bool(config.api_keys_file)
        if config.api_keys_file:
            self.load(Path(config.api_keys_file))

    def load(self, path: Path) -> None:
        keys = {}
        for number, line in enumerate(path.read_text().splitlines(), 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            key, *rest = text.split()
            name = rest[0] if rest and "=" not in rest[0] else f"key-{number}"
            limits = self.defaults
            for item in rest:
                if "=" not in item:
                    continue
                field, value = item.split("=", 1)
                if field not in Limits.__dataclass_fields__:
                    raise ValueError(f"{path}:{number}: unknown limit {field!r}")
                # Which field is known only at run time: checked against the dataclass's fields above.
                update: dict[str, Any] = {field: float(value) if field == "max_time" else int(value)}
                limits = replace(limits, **update)
            keys[_digest(key)] = Principal(name, limits, True)
        self.keys = keys

    def principal(self, metadata: Any, peer: str) -> Principal | None:
        """The caller of a call with this metadata (None: a bad or missing key)."""
        md = {k: v for k, v in (metadata or ()) if isinstance(v, str)}
        if not self.enabled:
            name = md.get(CLIENT_ID_HEADER) or _host(peer)
            return Principal(name, self.defaults, False)
        key = md.get(API_KEY_HEADER)
        return self.keys.get(_digest(key)) if key else None


def _host(peer: str) -> str:
    # "ipv4:127.0.0.1:5555" / "ipv6:[::1]:5555" -> the address without the port
    text = peer.split(":", 1)[1] if ":" in peer else peer
    return text.rsplit(":", 1)[0] if ":" in text else text


class ApiKeyInterceptor(grpc.aio.ServerInterceptor):
    """Refuses AnalysisService calls without a known ``x-api-key`` (when keys are configured)."""

    def __init__(self, keys: KeyStore) -> None:
        self.keys = keys

    async def intercept_service(self, continuation: Any, details: Any) -> Any:
        handler = await continuation(details)
        if not self.keys.enabled or not details.method.startswith(PROTECTED_PREFIX) or handler is None:
            return handler
        md = {k: v for k, v in (details.invocation_metadata or ()) if isinstance(v, str)}
        key = md.get(API_KEY_HEADER)
        if key and _digest(key) in self.keys.keys:
            return handler
        error = (
            StatusError(grpc.StatusCode.UNAUTHENTICATED, "bad_api_key", "unknown API key")
            if key
            else StatusError(
                grpc.StatusCode.UNAUTHENTICATED,
                "missing_api_key",
                f"an API key is required ({API_KEY_HEADER} metadata)",
            )
        )
        return _refusal(handler, error)


def _refusal(handler: Any, error: StatusError) -> Any:
    status = status_for(error).to_grpc_status()

    async def abort(_request: Any, context: Any) -> Any:
        await context.abort_with_status(status)

    async def abort_stream(_request: Any, context: Any) -> Any:
        await context.abort_with_status(status)
        yield  # pragma: no cover

    kw = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(abort_stream, **kw)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(abort_stream, **kw)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(abort, **kw)
    return grpc.unary_unary_rpc_method_handler(abort, **kw)


class Guard:
    """Per-caller checks the servicers make: who calls, limits, rate, open streams."""

    def __init__(self, keys: KeyStore) -> None:
        self.keys = keys
        self.streams: Counter[str] = Counter()
        self._buckets: dict[str, tuple[float, float]] = {}

    def caller(self, context: Any) -> Principal:
        p = self.keys.principal(context.invocation_metadata(), context.peer() or "")
        if p is None:  # the interceptor lets no such call through; a safety net
            raise StatusError(grpc.StatusCode.UNAUTHENTICATED, "bad_api_key", "unknown API key")
        self._rate(p)
        return p

    def check_depth(self, p: Principal, depth: int) -> None:
        if depth > p.limits.max_depth:
            raise denied(f"depth {depth} is beyond this caller's limit of {p.limits.max_depth}")

    def check_time(self, p: Principal, seconds: float | None) -> None:
        if seconds is not None and seconds > p.limits.max_time:
            raise denied(f"time {seconds:g} s is beyond this caller's limit of {p.limits.max_time:g} s")

    def check_game(self, p: Principal, moves: int) -> None:
        if moves > p.limits.max_game_moves:
            raise denied(
                f"a game of {moves} moves is beyond this caller's limit of {p.limits.max_game_moves}"
            )

    @contextlib.contextmanager
    def stream(self, p: Principal) -> Iterator[None]:
        """Counts an open stream of ``p`` (refused past ``max_streams``)."""
        if self.streams[p.name] >= p.limits.max_streams:
            raise StatusError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "quota",
                f"{self.streams[p.name]} streams open already (at most {p.limits.max_streams})",
                retry_after=5.0,
            )
        self.streams[p.name] += 1
        try:
            yield
        finally:
            self.streams[p.name] -= 1
            if self.streams[p.name] <= 0:
                del self.streams[p.name]

    def _rate(self, p: Principal) -> None:
        rate = p.limits.rate_per_minute
        if rate <= 0:
            return
        now = time.monotonic()
        tokens, last = self._buckets.get(p.name, (float(rate), now))
        tokens = min(float(rate), tokens + (now - last) * rate / 60.0)
        if tokens < 1.0:
            self._buckets[p.name] = (tokens, now)
            raise StatusError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "quota",
                f"more than {rate} requests a minute",
                retry_after=(1.0 - tokens) * 60.0 / rate,
            )
        self._buckets[p.name] = (tokens - 1.0, now)


def denied(message: str) -> StatusError:
    return StatusError(grpc.StatusCode.PERMISSION_DENIED, "limit", message)
