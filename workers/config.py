"""Worker and caller settings, from the environment (12-factor) with loopback defaults.

- ``GRIOT_BROKER_URL`` (``redis://127.0.0.1:6379/0``): the Celery broker (Redis, or RabbitMQ:
  ``amqp://...``);
- ``GRIOT_RESULT_URL`` (the broker URL): the Celery result backend, always Redis (with a RabbitMQ
  broker it must be given);
- ``GRIOT_CACHE_URL`` (``redis://127.0.0.1:6380/0``): the transposition cache, its own instance
  (``maxmemory`` + ``allkeys-lru``), never the broker's;
- ``GRIOT_CACHE_TTL`` (``604800``): seconds an entry lives (0 = until evicted);
- ``GRIOT_CACHE_MIN_DEPTH`` (``8``): only nodes with at least this remaining depth touch Redis;
- ``GRIOT_CACHE_PLIES`` (``2``): plies below a task's root exchanged with the cache, one batch
  per iteration;
- ``GRIOT_CACHE_ITERATIONS`` (``3``): a subtree task exchanges with the cache in its last this
  many iterations only (0 = every iteration at least ``GRIOT_CACHE_MIN_DEPTH`` deep): its earlier
  iterations are shallower than its subtree's entries already are;
- ``GRIOT_HASH_MB`` (``64``): the per-task transposition table (Rust memory);
- ``GRIOT_EVAL`` (``learned``): the evaluation the searches use (``learned``, ``tuned``, ``material``
  or custom weights), read by :func:`griot.tasks.args.deployment_eval`; a caller (the
  gateway, the CLI) sends its own with each search task, and a worker searches under the task's;
- ``GRIOT_TASK_SOFT_LIMIT`` (``300``): seconds; the task stops its search, returns the best so far;
- ``GRIOT_TASK_HARD_LIMIT`` (``330``): seconds; the pool process is killed;
- ``GRIOT_VISIBILITY_TIMEOUT`` (``600``): seconds before an unacknowledged task is redelivered
  (must exceed the hard limit);
- ``GRIOT_INFLIGHT_TTL_MS`` (``5000``): lifetime of an in-flight marker without heartbeat;
- ``GRIOT_WORKER_CONCURRENCY`` (cores): pool processes per worker;
- ``GRIOT_WORKER_METRICS_PORT`` (unset): a worker's Prometheus endpoint (multiprocess mode);
- ``GRIOT_WORKER_METRICS_HOST`` (``127.0.0.1``): the address it listens on (``0.0.0.0`` in a
  container, for the scraper).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"environment variable {name}={raw!r} is not an integer") from None


@dataclass(frozen=True)
class Settings:
    """Everything the workers and the distributed search read from the environment."""

    broker_url: str = "redis://127.0.0.1:6379/0"
    result_url: str = ""
    cache_url: str = "redis://127.0.0.1:6380/0"
    cache_ttl: int = 7 * 24 * 3600
    cache_min_depth: int = 8
    cache_plies: int = 2
    cache_iterations: int = 3
    hash_mb: int = 64
    soft_limit: int = 300
    hard_limit: int = 330
    visibility_timeout: int = 600
    inflight_ttl_ms: int = 5000
    concurrency: int = field(default_factory=lambda: os.cpu_count() or 1)
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"

    @property
    def backend_url(self) -> str:
        return self.result_url or self.broker_url

    @classmethod
    def from_env(cls) -> Settings:
        port = os.environ.get("GRIOT_WORKER_METRICS_PORT")
        s = cls(
            broker_url=os.environ.get("GRIOT_BROKER_URL", cls.broker_url),
            result_url=os.environ.get("GRIOT_RESULT_URL", ""),
            cache_url=os.environ.get("GRIOT_CACHE_URL", cls.cache_url),
            cache_ttl=_int("GRIOT_CACHE_TTL", cls.cache_ttl),
            cache_min_depth=_int("GRIOT_CACHE_MIN_DEPTH", cls.cache_min_depth),
            cache_plies=_int("GRIOT_CACHE_PLIES", cls.cache_plies),
            cache_iterations=_int("GRIOT_CACHE_ITERATIONS", cls.cache_iterations),
            hash_mb=_int("GRIOT_HASH_MB", cls.hash_mb),
            soft_limit=_int("GRIOT_TASK_SOFT_LIMIT", cls.soft_limit),
            hard_limit=_int("GRIOT_TASK_HARD_LIMIT", cls.hard_limit),
            visibility_timeout=_int("GRIOT_VISIBILITY_TIMEOUT", cls.visibility_timeout),
            inflight_ttl_ms=_int("GRIOT_INFLIGHT_TTL_MS", cls.inflight_ttl_ms),
            concurrency=_int("GRIOT_WORKER_CONCURRENCY", os.cpu_count() or 1),
            metrics_port=int(port) if port else None,
            metrics_host=os.environ.get("GRIOT_WORKER_METRICS_HOST", cls.metrics_host),
        )
        if not s.soft_limit < s.hard_limit < s.visibility_timeout:
            raise ValueError(
                "need GRIOT_TASK_SOFT_LIMIT < GRIOT_TASK_HARD_LIMIT < GRIOT_VISIBILITY_TIMEOUT "
                f"(got {s.soft_limit}, {s.hard_limit}, {s.visibility_timeout}): a task must be "
                "stopped before the broker redelivers it"
            )
        return s
