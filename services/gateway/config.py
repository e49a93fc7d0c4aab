"""The gateway's settings: the shared server flags (:mod:`griot.services.common.server`) plus its own,
each with a ``GRIOT_GATEWAY_*`` environment variable (the Redis URLs are the ``GRIOT_BROKER_URL`` /
``GRIOT_CACHE_URL`` every component shares)."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, fields
from typing import Any

from griot import redis_keys
from griot.priority import Priority
from griot.services.common.server import ServerConfig, add_arguments, config_from_args

PREFIX = "GRIOT_GATEWAY"


@dataclass(frozen=True)
class GatewayConfig:
    """What the gateway does besides serving (defaults fit a laptop with a few workers)."""

    #: Celery broker.
    broker_url: str = "redis://127.0.0.1:6379/0"
    #: Celery result backend (Redis); empty: the broker's URL (as the workers).
    result_url: str = ""
    #: The cache Redis: evaluations, jobs, live sessions, in-flight markers, counters.
    cache_url: str = "redis://127.0.0.1:6380/0"
    #: Queues of interactive and batch work (``GRIOT_QUEUES`` = "griot.interactive,griot.batch" names them).
    interactive_queue: str = redis_keys.QUEUE_INTERACTIVE
    batch_queue: str = redis_keys.QUEUE_BATCH
    #: Search tasks sent to the workers and not finished yet, at most (about 2x worker processes).
    window: int = 8
    #: Of the window, slots batch work may never take (kept for a person waiting).
    interactive_reserve: int = 2
    #: Searches waiting in the gateway, at most; more fail with RESOURCE_EXHAUSTED (overloaded).
    max_pending: int = 20000
    #: Searches one client may have waiting; more fail with RESOURCE_EXHAUSTED (quota).
    max_pending_per_client: int = 4000
    #: Depth of an evaluation when the request gives no limit, and of a game analysis.
    default_depth: int = 12
    #: Evaluations at least this deep run as a distributed search (one message per depth),
    #: except those asking for every move's score: one multi-PV task gives those exactly.
    distributed_depth: int = 18
    #: A distributed search's first task goes on past its direct depth while its next iteration
    #: is foreseen to end within this many seconds (0 = it stops at the direct depth).
    distributed_direct_seconds: float = 1.0
    #: API keys file ("key name [limit=value ...]" a line); unset = no authentication.
    api_keys_file: str | None = None
    #: TLS certificate chain and private key (PEM); both unset = plaintext.
    tls_cert: str | None = None
    tls_key: str | None = None
    #: Limits of callers without a key (authentication off) and of keys that name none.
    max_depth: int = 30
    max_time: float = 60.0
    max_game_moves: int = 1000
    max_streams: int = 2000
    #: Requests per minute per caller (0 = unlimited).
    rate_per_minute: int = 0
    #: Seconds a job, a session and an evaluation stay in Redis.
    job_ttl: int = 24 * 3600
    session_ttl: int = 3600
    eval_ttl: int = 7 * 24 * 3600
    #: Seconds a live session's acknowledgement of an update waits for an evaluation to carry.
    ack_hold: float = 0.05
    #: Opening books (``griot book build`` files, comma-separated) that answer ``BestMove`` at
    #: full strength in the positions they hold.
    books: str | None = None
    #: Report every callback holding the event loop this many seconds or more (asyncio's debug
    #: mode, :mod:`griot.services.common.loopstall`; it costs CPU); 0 = off.
    loop_stall_report: float = 0.0


def _env(name: str, default: Any) -> Any:
    return os.environ.get(f"{PREFIX}_{name}", default)


def add_gateway_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the gateway's flags (``--window``, ``--api-keys-file`` ...) to a parser."""
    d = GatewayConfig()
    parser.add_argument(
        "--broker-url",
        default=os.environ.get("GRIOT_BROKER_URL", d.broker_url),
        help="Celery broker [GRIOT_BROKER_URL]",
    )
    parser.add_argument(
        "--result-url",
        default=os.environ.get("GRIOT_RESULT_URL", d.result_url),
        help="Celery result backend, a Redis URL; empty: the broker's [GRIOT_RESULT_URL]",
    )
    parser.add_argument(
        "--cache-url",
        default=os.environ.get("GRIOT_CACHE_URL", d.cache_url),
        help="cache Redis: evaluations, jobs, sessions [GRIOT_CACHE_URL]",
    )
    parser.add_argument(
        "--interactive-queue",
        default=_env("INTERACTIVE_QUEUE", Priority.INTERACTIVE.queue),
        help=f"Celery queue of interactive work [{PREFIX}_INTERACTIVE_QUEUE, else GRIOT_QUEUES]",
    )
    parser.add_argument(
        "--batch-queue",
        default=_env("BATCH_QUEUE", Priority.BATCH.queue),
        help=f"Celery queue of batch work [{PREFIX}_BATCH_QUEUE, else GRIOT_QUEUES]",
    )
    for name, typ, text in (
        ("window", int, "search tasks at the workers at once"),
        ("interactive_reserve", int, "slots of the window batch work never takes"),
        ("max_pending", int, "searches waiting in the gateway; more: RESOURCE_EXHAUSTED"),
        ("max_pending_per_client", int, "searches one client may have waiting"),
        ("default_depth", int, "depth when a request gives no limit"),
        ("distributed_depth", int, "evaluations this deep run across the cluster"),
        (
            "distributed_direct_seconds",
            float,
            "seconds a distributed search's first task may take (0 = its direct depth only)",
        ),
        ("max_depth", int, "deepest search a caller without a key limit may ask"),
        ("max_time", float, "longest search time (s) a caller may ask"),
        ("max_game_moves", int, "longest game AnalyzeGame accepts"),
        ("max_streams", int, "streams one caller may hold open"),
        ("rate_per_minute", int, "requests per minute per caller, 0 = unlimited"),
        ("job_ttl", int, "seconds a game analysis stays in Redis"),
        ("session_ttl", int, "seconds an idle live session stays in Redis (less at most 1 %%)"),
        ("eval_ttl", int, "seconds a cached evaluation stays in Redis"),
        ("ack_hold", float, "seconds a live update's acknowledgement waits for an evaluation to carry"),
        (
            "loop_stall_report",
            float,
            "report callbacks holding the event loop this many seconds (debug mode, costs CPU); 0 = off",
        ),
    ):
        env = f"{PREFIX}_{name.upper()}"
        parser.add_argument(
            "--" + name.replace("_", "-"),
            type=typ,
            default=typ(_env(name.upper(), getattr(d, name))),
            help=f"{text} [{env}]",
        )
    parser.add_argument(
        "--api-keys-file",
        default=_env("API_KEYS_FILE", None),
        help=f"API keys, one 'key name [limit=value ...]' a line; unset = no auth [{PREFIX}_API_KEYS_FILE]",
    )
    parser.add_argument(
        "--books",
        default=_env("BOOKS", None),
        help=f"opening book files, comma-separated: BestMove at levels 9-10 plays from them [{PREFIX}_BOOKS]",
    )
    parser.add_argument(
        "--tls-cert", default=_env("TLS_CERT", None), help=f"PEM certificate chain [{PREFIX}_TLS_CERT]"
    )
    parser.add_argument(
        "--tls-key", default=_env("TLS_KEY", None), help=f"PEM private key [{PREFIX}_TLS_KEY]"
    )


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m griot.services.gateway``."""
    parser = argparse.ArgumentParser(
        prog="python -m griot.services.gateway",
        description="Griot analysis gateway: griot.v1.AnalysisService over gRPC on top of the Celery "
        "search workers, with a Redis cache, single-flight searches, live sessions and resumable jobs.",
    )
    add_arguments(
        parser,
        PREFIX,
        ServerConfig(
            port=50052,
            metrics_port=9465,
            max_receive_bytes=1024 * 1024,
            max_concurrent_rpcs=None,
            # uvloop when installed: a good part of the gateway's CPU is the event loop (Redis and
            # gRPC I/O; bench/RESULTS-gateway.md).
            event_loop="auto",
        ),
    )
    add_gateway_arguments(parser)
    return parser


def from_args(args: argparse.Namespace) -> tuple[ServerConfig, GatewayConfig]:
    """The server and gateway settings parsed by :func:`build_parser`."""
    values = {f.name: getattr(args, f.name) for f in fields(GatewayConfig)}
    if bool(values["tls_cert"]) != bool(values["tls_key"]):
        raise SystemExit("give both --tls-cert and --tls-key, or neither")
    return config_from_args(args), GatewayConfig(**values)
