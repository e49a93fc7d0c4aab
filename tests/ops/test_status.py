"""`griot status` reads the real data sources: queue lengths as the broker reports them, the
transposition-table counters and INFO on the cache, gRPC health of the services."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import redis
from griot import monitor, redis_keys

from .conftest import needs_redis

pytestmark = needs_redis


def test_queue_lengths_and_hit_rate(redis_server) -> None:  # type: ignore[no-untyped-def]
    from kombu import Connection

    broker_url = redis_server.url
    cache_url = broker_url.rsplit("/", 1)[0] + "/1"
    with Connection(broker_url) as conn:
        for queue, n, priority in (("griot.interactive", 3, 0), ("griot.batch", 1, 0), ("griot.batch", 1, 3)):
            q = conn.SimpleQueue(queue)
            for i in range(n):
                q.put({"n": i}, priority=priority)  # priority 3: a priority step of the queue
            q.close()
    c = redis.Redis.from_url(cache_url)
    c.hset(redis_keys.TT_STATS, mapping={"hits": 30, "misses": 10, "writes": 7})
    c.set(redis_keys.tt_key("0.1.0", "abapa", b"\x01\x02"), b"entry")

    report = monitor.collect(
        rules=None, gateway=None, broker_url=broker_url, cache_url=cache_url, ask_workers=False
    )
    assert report.queues == {"griot.interactive": 3, "griot.batch": 2}
    assert report.tt_hit_rate == 0.75
    assert report.tt_stats == {"hits": 30, "misses": 10, "writes": 7}
    cache = next(r for r in report.redis if r.role == "cache")
    assert cache.ok and cache.keys == 2
    assert report.healthy


def test_unreachable_parts_are_reported_not_raised() -> None:
    report = monitor.collect(
        rules="127.0.0.1:1", gateway=None, broker_url="redis://127.0.0.1:1/0", cache_url=None, timeout=0.5
    )
    assert report.services[0].status == "UNREACHABLE"
    assert report.redis[0].ok is False and report.redis[0].error
    assert not report.healthy


def test_cli_exit_status_and_json(tmp_path) -> None:  # type: ignore[no-untyped-def]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
    env["GRIOT_STATE_FILE"] = str(tmp_path / "none.json")
    result = subprocess.run(
        [sys.executable, "-m", "griot.cli", "status", "--json", "--rules", "127.0.0.1:1", "--timeout", "0.5"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert json.loads(result.stdout)["services"][0]["status"] == "UNREACHABLE"


def test_cache_keys_have_no_hash_tags_and_reject_separators() -> None:
    key = redis_keys.tt_key("0.1.0", "abapa(holes=4)", b"\xff\x00")
    assert key == "griot:tt:0.1.0:abapa(holes=4):ff00"
    assert "{" not in key
    import pytest

    with pytest.raises(ValueError):
        redis_keys.tt_key("0.1.0", "a:b", b"")
