"""Worker settings, from the environment (12-factor) with loopback defaults: one
:func:`griot.settings.setting` per field, its variable beside it (``GRIOT_*``: the names the
deploy files use). ``GRIOT_EVAL`` (the evaluation a task searches with when its caller names none)
is read by :func:`griot.tasks.args.deployment_eval`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from griot import settings
from griot.settings import BROKER_URL, CACHE_URL, setting
from griot.tasks.app import VISIBILITY_TIMEOUT

#: The most threads one search takes (the core's bound).
MAX_SEARCH_THREADS = 256


@dataclass(frozen=True)
class Settings:
    """Everything a worker reads from the environment."""

    broker_url: str = setting(
        BROKER_URL, env="GRIOT_BROKER_URL", help="the Celery broker (Redis, or RabbitMQ: amqp://...)"
    )
    result_url: str = setting(
        "",
        env="GRIOT_RESULT_URL",
        help="the Celery result backend, always Redis; empty: the broker's URL (a RabbitMQ broker needs it)",
    )
    cache_url: str = setting(
        CACHE_URL,
        env="GRIOT_CACHE_URL",
        help="the transposition cache, its own Redis (maxmemory + allkeys-lru), never the broker's",
    )
    cache_cluster: bool = setting(
        False,
        env="GRIOT_CACHE_CLUSTER",
        help="on: GRIOT_CACHE_URL names a node of a Redis Cluster (database 0 only), whose other nodes "
        "redis-py's cluster client learns from it: the cache spreads over the cluster's shards",
    )
    cache_ttl: int = setting(
        7 * 24 * 3600, env="GRIOT_CACHE_TTL", help="seconds a cache entry lives (0 = until evicted)"
    )
    cache_min_depth: int = setting(
        8, env="GRIOT_CACHE_MIN_DEPTH", help="only nodes with at least this remaining depth touch Redis"
    )
    cache_plies: int = setting(
        2,
        env="GRIOT_CACHE_PLIES",
        help="plies below a task's root exchanged with the cache, one batch an iteration",
    )
    cache_iterations: int = setting(
        3,
        env="GRIOT_CACHE_ITERATIONS",
        help="a subtree task exchanges with the cache in its last this many iterations only (0 = every "
        "iteration at least GRIOT_CACHE_MIN_DEPTH deep): its earlier ones are shallower than the entries",
    )
    hash_mb: int = setting(64, env="GRIOT_HASH_MB", help="the per-task transposition table (MB, Rust memory)")
    search_threads: int = setting(
        1,
        env="GRIOT_SEARCH_THREADS",
        help="threads a position task searches with (Lazy SMP, sharing its table; pool processes x "
        "threads at most the cores); a distributed search's subtree tasks search with one",
    )
    soft_limit: int = setting(
        300,
        env="GRIOT_TASK_SOFT_LIMIT",
        help="seconds; the task stops its search and returns the best so far",
    )
    hard_limit: int = setting(330, env="GRIOT_TASK_HARD_LIMIT", help="seconds; the pool process is killed")
    visibility_timeout: int = setting(
        VISIBILITY_TIMEOUT,
        env="GRIOT_VISIBILITY_TIMEOUT",
        help="seconds before an unacknowledged task is redelivered (must exceed the hard limit)",
    )
    inflight_ttl_ms: int = setting(
        5000, env="GRIOT_INFLIGHT_TTL_MS", help="lifetime of an in-flight marker without heartbeat (ms)"
    )
    concurrency: int = setting(
        env="GRIOT_WORKER_CONCURRENCY",
        help="pool processes per worker (default: the cores)",
        default_factory=lambda: os.cpu_count() or 1,
    )
    metrics_port: int | None = setting(
        None,
        env="GRIOT_WORKER_METRICS_PORT",
        help="a worker's Prometheus endpoint (multiprocess mode); unset: none",
    )
    metrics_host: str = setting(
        "127.0.0.1",
        env="GRIOT_WORKER_METRICS_HOST",
        help="the address the metrics endpoint listens on (0.0.0.0 in a container, for the scraper)",
    )

    @property
    def backend_url(self) -> str:
        return self.result_url or self.broker_url

    @classmethod
    def from_env(cls) -> Settings:
        s = settings.from_env(cls)
        if not 1 <= s.search_threads <= MAX_SEARCH_THREADS:
            raise ValueError(
                f"GRIOT_SEARCH_THREADS must be 1 to {MAX_SEARCH_THREADS} (got {s.search_threads})"
            )
        if not s.soft_limit < s.hard_limit < s.visibility_timeout:
            raise ValueError(
                "need GRIOT_TASK_SOFT_LIMIT < GRIOT_TASK_HARD_LIMIT < GRIOT_VISIBILITY_TIMEOUT "
                f"(got {s.soft_limit}, {s.hard_limit}, {s.visibility_timeout}): a task must be "
                "stopped before the broker redelivers it"
            )
        return s
