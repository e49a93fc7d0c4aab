"""`griot status` reads the real data sources: queue lengths as the broker reports them, the
transposition-table counters and INFO on the cache, gRPC health of the services."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import griot
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
    c.set(redis_keys.tt_key("0.1.0", "learned", "abapa", b"\x01\x02"), b"entry")

    report = monitor.collect(
        rules=None, gateway=None, broker_url=broker_url, cache_url=cache_url, ask_workers=False
    )
    assert report.queues == {"griot.interactive": 3, "griot.batch": 2}
    assert report.tt_hit_rate == 0.75
    assert report.tt_stats == {"hits": 30, "misses": 10, "writes": 7}
    cache = next(r for r in report.redis if r.role == "cache")
    assert cache.ok and cache.keys == 2
    assert report.healthy


def _status_json(*args: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
    result = subprocess.run(
        [sys.executable, "-m", "griot.cli", "status", "--json", "--timeout", "2", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.stdout, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_status_shows_the_counters_a_real_worker_task_wrote() -> None:
    """A real Celery worker searches with the Redis cache; `griot status` (the CLI, in its own
    process) shows the counters that worker added, the same the workers' own reader sees."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workers"))
    from griot.workers.cache import read_stats
    from workers_stack import make_stack

    s = make_stack()
    try:
        app = s.app()
        s.start_worker("status1")
        s.wait_ready(app, 1)
        pos = griot.Variant("abapa").start()
        task = app.send_task(
            "griot.search_subtree",
            kwargs=dict(
                variant="abapa", position=str(pos), depth=9, alpha=-griot.INFINITE, beta=griot.INFINITE
            ),
        )
        assert task.get(timeout=120)["complete"]
        app.close()
        args = ("--broker-url", s.broker.url, "--cache-url", s.cache.url, "--rules", "127.0.0.1:1")
        deadline = time.monotonic() + 30  # the worker adds its counters as the task ends
        while not (report := _status_json(*args))["tt_stats"].get("writes"):
            assert time.monotonic() < deadline, report
            time.sleep(0.2)
        with redis.Redis.from_url(s.cache.url) as cache:
            workers_view = read_stats(cache)
        stats = report["tt_stats"]
        assert stats["writes"] > 0 and stats["probes"] > 0
        assert stats["hits"] + stats["misses"] == stats["probes"]
        assert {k: workers_view[k] for k in stats} == stats
        assert report["tt_hit_rate"] == stats["hits"] / stats["probes"]
        assert not any("counters" in n for n in report["notes"])
    finally:
        s.stop()


def test_unreachable_parts_are_reported_not_raised() -> None:
    report = monitor.collect(
        rules="127.0.0.1:1", gateway=None, broker_url="redis://127.0.0.1:1/0", cache_url=None, timeout=0.5
    )
    assert report.services[0].status == "UNREACHABLE"
    assert report.redis[0].ok is False and report.redis[0].error
    assert not report.healthy


def test_a_cluster_that_does_not_answer_is_reported_not_raised() -> None:
    report = monitor.collect(
        rules=None,
        gateway=None,
        broker_url=None,
        cache_url="redis://127.0.0.1:1/0",
        cache_cluster=True,
        timeout=0.5,
    )
    assert report.cache_cluster is not None and report.cache_cluster.error and not report.cache_cluster.nodes
    assert report.redis == [] and not report.healthy
    assert "cache_cluster" in report.to_dict() and "ranges" not in report.to_dict()["cache_cluster"]


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


def test_the_workers_cache_keys_are_the_ones_redis_keys_builds() -> None:
    """One module builds every key: the workers' entries and markers carry a Redis Cluster hash
    tag (a position's entry and marker in one slot), and a part that would make keys ambiguous is
    refused."""
    import pytest
    from griot.workers import cache as tt

    key = redis_keys.tt_key("0.1.0", "learned", "abapa(holes=4)", b"\xff\x00")
    assert key == f"griot:tt:{{0.1.0:{griot.eval_scope('learned')}:abapa(holes=4):ff00}}"
    busy = redis_keys.busy_key("0.1.0", "learned", "abapa(holes=4)", b"\xff\x00")
    assert busy == key + ":busy"
    assert tt.entry_key("abapa", b"\x01", "tuned") == redis_keys.tt_key(
        griot.ENGINE_VERSION, "tuned", "abapa", b"\x01"
    )
    assert tt.busy_key("abapa", b"\x01", "tuned") == redis_keys.busy_key(
        griot.ENGINE_VERSION, "tuned", "abapa", b"\x01"
    )
    with pytest.raises(ValueError):
        redis_keys.tt_key("0.1.0", "learned", "a:b", b"")
