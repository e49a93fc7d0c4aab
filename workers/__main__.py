"""``python -m griot.workers status``: the cache counters and queue lengths, the figures ``griot status``
prints, as JSON, for scripts and probes."""

from __future__ import annotations

import json
import sys
from typing import Any

import redis
from griot.monitor import queue_lengths
from griot.workers.app import BATCH_QUEUE, INTERACTIVE_QUEUE
from griot.workers.cache import connect, read_stats
from griot.workers.config import Settings


def status(settings: Settings | None = None) -> dict[str, Any]:
    """Cache counters (``griot:cache:{stats}``, hit rate, memory) and the length of each queue."""
    s = settings or Settings.from_env()
    out: dict[str, Any] = {}
    try:
        out["cache"] = read_stats(connect(s.cache_url, s.cache_cluster))
    except redis.RedisError as e:
        out["cache"] = {"error": str(e)}
    try:
        out["queues"] = queue_lengths(s.broker_url, (INTERACTIVE_QUEUE, BATCH_QUEUE))
    except Exception as e:  # what the broker or kombu raised
        out["queues"] = {"error": str(e)}
    return out


def main(argv: list[str]) -> int:
    if argv[1:] != ["status"]:
        print("usage: python -m griot.workers status", file=sys.stderr)
        return 2
    print(json.dumps(status(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
