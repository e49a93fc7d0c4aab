"""The gateway's settings: the shared server flags (:mod:`griot.services.common.server`) plus its own
(:class:`GatewayConfig`), each with a ``GRIOT_GATEWAY_*`` environment variable (the Redis URLs are
the ``GRIOT_BROKER_URL``, ``GRIOT_RESULT_URL`` and ``GRIOT_CACHE_URL`` every component shares),
made by :mod:`griot.settings`."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from griot import settings
from griot.priority import Priority
from griot.services.common.server import ServerConfig, add_arguments, config_from_args
from griot.settings import BROKER_URL, CACHE_URL, GATEWAY_METRICS_PORT, GATEWAY_PORT, setting

PREFIX = "GRIOT_GATEWAY"


@dataclass(frozen=True)
class GatewayConfig:
    """What the gateway does besides serving (defaults fit a laptop with a few workers). Each field
    is a flag and a ``GRIOT_GATEWAY_*`` variable (the Redis URLs: the ``GRIOT_BROKER_URL``,
    ``GRIOT_RESULT_URL`` and ``GRIOT_CACHE_URL`` every component shares)."""

    broker_url: str = setting(BROKER_URL, env="GRIOT_BROKER_URL", help="Celery broker")
    result_url: str = setting(
        "", env="GRIOT_RESULT_URL", help="Celery result backend, a Redis URL; empty: the broker's"
    )
    cache_url: str = setting(
        CACHE_URL,
        env="GRIOT_CACHE_URL",
        help="cache Redis: evaluations, jobs, live sessions, in-flight markers, counters",
    )
    cache_cluster: bool = setting(
        False,
        env="GRIOT_CACHE_CLUSTER",
        help="on: the cache URL names a node of a Redis Cluster (redis-py's cluster clients find the rest)",
    )
    interactive_queue: str = setting(
        help="Celery queue of interactive work (default: the first of GRIOT_QUEUES)",
        default_factory=lambda: Priority.INTERACTIVE.queue,
    )
    batch_queue: str = setting(
        help="Celery queue of batch work (default: the second of GRIOT_QUEUES)",
        default_factory=lambda: Priority.BATCH.queue,
    )
    window: int = setting(8, help="search tasks at the workers at once (about 2x worker processes)")
    interactive_reserve: int = setting(2, help="slots of the window batch work never takes")
    max_pending: int = setting(20000, help="searches waiting in the gateway; more: RESOURCE_EXHAUSTED")
    max_pending_per_client: int = setting(
        4000, help="searches one client may have waiting; more: RESOURCE_EXHAUSTED (quota)"
    )
    default_depth: int = setting(12, help="depth when a request gives no limit, and of a game analysis")
    distributed_depth: int = setting(
        18,
        help="evaluations this deep run across the cluster (except those asking for every move's score)",
    )
    distributed_direct_seconds: float = setting(
        1.0,
        help="seconds a distributed search's first task goes on past its direct depth while its next "
        "iteration is foreseen to end in time (0 = its direct depth only)",
    )
    distributed_routing: bool = setting(
        False,
        help="on: a distributed search sends each subtree back to the worker holding its table and "
        "keeps no more tasks out than the workers have processes (the workers learnt by a broadcast)",
    )
    distributed_split: int = setting(
        2,
        help="plies a distributed search expands here: their leaves are the subtree tasks "
        "(1 = the root's moves: fewer, longer tasks, fewer round trips)",
    )
    api_keys_file: str | None = setting(
        None, help="API keys, one 'key name [limit=value ...]' a line; unset = no authentication"
    )
    tls_cert: str | None = setting(None, help="PEM certificate chain (with --tls-key; unset = plaintext)")
    tls_key: str | None = setting(None, help="PEM private key")
    max_depth: int = setting(30, help="deepest search a caller without a key limit may ask")
    max_time: float = setting(60.0, help="longest search time (s) a caller may ask")
    max_game_moves: int = setting(1000, help="longest game AnalyzeGame accepts")
    max_streams: int = setting(2000, help="streams one caller may hold open")
    rate_per_minute: int = setting(0, help="requests per minute per caller, 0 = unlimited")
    job_ttl: int = setting(24 * 3600, help="seconds a game analysis stays in Redis")
    session_ttl: int = setting(3600, help="seconds an idle live session stays in Redis (less at most 1 %)")
    eval_ttl: int = setting(7 * 24 * 3600, help="seconds a cached evaluation stays in Redis")
    ack_hold: float = setting(
        0.05, help="seconds a live update's acknowledgement waits for an evaluation to carry"
    )
    books: str | None = setting(
        None, help="opening book files, comma-separated: BestMove at levels 9-10 plays from them"
    )
    loop_stall_report: float = setting(
        0.0,
        help="report callbacks holding the event loop this many seconds (asyncio's debug mode, "
        "griot.services.common.loopstall; it costs CPU); 0 = off",
    )


def add_gateway_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the gateway's flags (``--window``, ``--api-keys-file`` ...) to a parser."""
    settings.add_arguments(parser, GatewayConfig, PREFIX)


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
            port=GATEWAY_PORT,
            metrics_port=GATEWAY_METRICS_PORT,
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
    config = settings.from_args(GatewayConfig, args)
    if bool(config.tls_cert) != bool(config.tls_key):
        raise SystemExit("give both --tls-cert and --tls-key, or neither")
    if not 1 <= config.distributed_split <= 3:
        raise SystemExit(f"--distributed-split must be 1, 2 or 3, not {config.distributed_split}")
    return config_from_args(args), config
