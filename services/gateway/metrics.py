"""The gateway's Prometheus metrics (beside the shared ``griot_rpc_*`` ones) and the counters it
adds to Redis for ``griot status`` (``griot:gateway:stats``, flushed once a second)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter as Tally
from typing import Any

from griot import redis_keys
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

log = logging.getLogger("griot.gateway")

STATS_KEY = redis_keys.GATEWAY_STATS
"""Hash of counters every replica adds to: ``requests``, ``cache_hits``, ``cache_misses``,
``dedup_local``, ``dedup_remote``, ``tasks_sent``, ``tasks_cancelled``, ``rejected``,
``jobs_started``, ``jobs_resumed``, ``jobs_done``, ``jobs_restored``, ``sessions_started``,
``sessions_resumed``."""

DATABASES_PREFIX = redis_keys.GATEWAY_DATABASES_PREFIX
"""``<prefix><replica>``: JSON ``{"dir": ..., "databases": [{"rules", "max_seeds"}]}``, the endgame
databases the replica scores with, rewritten every :data:`DATABASES_EVERY` seconds with a TTL of
three times that (a stopped replica's entry expires)."""
DATABASES_EVERY = 20.0

SEARCH_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class GatewayMetrics:
    """Metric objects plus a tally flushed to :data:`STATS_KEY`."""

    def __init__(self, registry: CollectorRegistry | None) -> None:
        kw: dict[str, Any] = {"registry": registry}
        self.queue_depth = Gauge(
            "griot_gateway_queue_depth", "Searches waiting in the gateway, by priority.", ["priority"], **kw
        )
        self.in_flight = Gauge(
            "griot_gateway_inflight_searches", "Search tasks sent to the workers, not finished.", **kw
        )
        self.cache = Counter(
            "griot_gateway_cache", "Evaluation cache lookups, by result (hit, miss).", ["result"], **kw
        )
        self.dedup = Counter(
            "griot_gateway_dedup",
            "Requests served by another request's search (local: same replica, remote: another).",
            ["kind"],
            **kw,
        )
        self.tasks = Counter(
            "griot_gateway_tasks",
            "Search tasks, by event (sent, done, failed, cancelled; routed: sent to a worker's own queue).",
            ["event"],
            **kw,
        )
        self.rejected = Counter(
            "griot_gateway_rejected",
            "Requests refused, by reason (overloaded, quota, ...).",
            ["reason"],
            **kw,
        )
        self.search_latency = Histogram(
            "griot_gateway_search_seconds",
            "From a search's submission to its result, by priority.",
            ["priority"],
            buckets=SEARCH_BUCKETS,
            **kw,
        )
        self.sessions = Gauge("griot_gateway_live_sessions", "Live sessions streaming now.", **kw)
        self.jobs = Gauge("griot_gateway_jobs_running", "Game analyses this replica runs now.", **kw)
        self.jobs_held = Gauge(
            "griot_gateway_jobs_held",
            "Game analyses this replica could write again if the cache Redis lost them.",
            **kw,
        )
        self.tally: Tally[str] = Tally()

    def count(self, name: str, n: int = 1) -> None:
        """Adds to a Redis counter (flushed in batches)."""
        self.tally[name] += n

    async def flush_forever(self, client: Any, every: float = 1.0) -> None:
        """Adds the tally to :data:`STATS_KEY` once per ``every`` seconds (best effort)."""
        while True:
            await asyncio.sleep(every)
            await self.flush(client)

    async def flush(self, client: Any) -> None:
        if not self.tally:
            return
        tally, self.tally = self.tally, Tally()
        try:
            pipe = client.pipeline(transaction=False)
            for k, v in tally.items():
                pipe.hincrby(STATS_KEY, k, v)
            await pipe.execute()
        except Exception as e:  # Redis down: the counts are lost, never the requests
            with contextlib.suppress(Exception):
                log.debug("stats flush failed: %s", e)
