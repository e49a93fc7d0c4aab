"""How evenly the cache's keys, commands and bytes spread over a Redis Cluster's primaries, under
the two loads that use it: distributed searches (the workers' transposition table) and live games
through the gateway (its evaluation cache, sessions, in-flight markers).

    python bench/cluster_balance.py --positions 3 --search-depth 16 --games 300 --moves 3 --depth 12

Starts a Redis Cluster on loopback (three primaries, three replicas: ``tests/workers/redis_cluster.py``),
a Redis for Celery, ``--workers`` Celery workers (one pool process each) with the cluster as their
cache (``GRIOT_CACHE_CLUSTER=1``) and a gateway; reads each primary's ``INFO stats`` /
``INFO commandstats`` / ``DBSIZE`` before and after each load. Prints one JSON object per load:
per primary its share of the keys, commands and bytes, and ``max_over_mean`` (1.0 = perfectly
even; three primaries, so 3.0 = all on one). Command counts are load-independent; the machine's
load only changes how long a run takes (``load`` is the 1-minute load average at its start).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import griot
import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "workers"), str(ROOT / "tests" / "gateway")]

from gateway_stack import Gateway  # noqa: E402
from griot.tasks.distributed import ClusterSearch  # noqa: E402
from redis_cluster import RedisClusterServers  # noqa: E402
from workers_stack import make_stack  # noqa: E402


def snapshot(cluster: RedisClusterServers) -> dict[int, dict[str, Any]]:
    """Each primary's counters (by port)."""
    out = {}
    for n in cluster.primaries():
        with redis.Redis(port=n.port, socket_timeout=5) as c:
            stats = c.info("stats")
            cmds = c.info("commandstats")
            out[n.port] = {
                "slots": n.slots,
                "keys": int(c.dbsize()),
                "commands": int(stats["total_commands_processed"]),
                "bytes_in": int(stats["total_net_input_bytes"]),
                "bytes_out": int(stats["total_net_output_bytes"]),
                "by_command": {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in cmds.items()},
            }
    return out


def broker_snapshot(port: int) -> dict[str, int]:
    """The Celery Redis's (broker and results) command and byte counters."""
    with redis.Redis(port=port, socket_timeout=5) as c:
        stats = c.info("stats")
        return {
            "commands": int(stats["total_commands_processed"]),
            "bytes_in": int(stats["total_net_input_bytes"]),
            "bytes_out": int(stats["total_net_output_bytes"]),
        }


def per_unit(
    before: dict[int, dict[str, Any]],
    after: dict[int, dict[str, Any]],
    broker: tuple[dict[str, int], dict[str, int]],
    units: int,
) -> dict[str, Any]:
    """The cache's (all primaries) and the broker's commands and bytes per evaluation."""
    out: dict[str, Any] = {}
    for f in ("commands", "bytes_in", "bytes_out"):
        total = sum(after[p][f] - before.get(p, {}).get(f, 0) for p in after)
        out[f"cache_{f}_per_evaluation"] = round(total / max(1, units), 1)
        out[f"broker_{f}_per_evaluation"] = round((broker[1][f] - broker[0][f]) / max(1, units), 1)
    return out


def spread(before: dict[int, dict[str, Any]], after: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """Per primary: keys held after, and commands and bytes between the two snapshots; each
    measure's max over mean."""
    ports = sorted(after)
    rows: dict[str, list[int]] = {"keys": [after[p]["keys"] for p in ports]}
    for f in ("commands", "bytes_in", "bytes_out"):
        rows[f] = [after[p][f] - before.get(p, {}).get(f, 0) for p in ports]
    by_command: dict[str, list[int]] = {}
    for i, p in enumerate(ports):
        old = before.get(p, {}).get("by_command", {})
        for name, calls in after[p]["by_command"].items():
            d = calls - old.get(name, 0)
            if d and name not in ("info", "dbsize", "cluster|nodes", "cluster|info", "ping"):
                by_command.setdefault(name, [0] * len(ports))[i] = d
    out: dict[str, Any] = {"primaries": len(ports), "slots": [after[p]["slots"] for p in ports]}
    for f, values in rows.items():
        mean = sum(values) / len(values)
        out[f] = values
        out[f + "_max_over_mean"] = round(max(values) / mean, 3) if mean else None
    out["by_command"] = by_command
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--positions", type=int, default=3, help="distributed searches, one per position")
    ap.add_argument("--search-depth", type=int, default=16)
    ap.add_argument("--games", type=int, default=300, help="live games through the gateway")
    ap.add_argument("--moves", type=int, default=3)
    ap.add_argument("--depth", type=int, default=12, help="live games' evaluation depth")
    a = ap.parse_args()

    cluster = RedisClusterServers()
    cluster.start()
    stack = make_stack(cache_cluster=cluster)
    gateway = None
    try:
        # Production's cache depths, not the tests' shallower ones.
        stack.env.update(GRIOT_QUEUES="", GRIOT_CACHE_MIN_DEPTH="8", GRIOT_HASH_MB="64")
        app = stack.app()
        for i in range(a.workers):
            stack.start_worker(f"bal{i}")
        stack.wait_ready(app, a.workers)

        variants = ["awale", "abapa", "leb-bbut-ahbochen"]
        starts = [griot.Variant(variants[i % len(variants)]).start() for i in range(a.positions)]
        load = os.getloadavg()[0]
        before = snapshot(cluster)
        b0 = broker_snapshot(stack.broker.port)
        t = time.monotonic()
        cs = ClusterSearch(app)
        for pos in starts:
            cs.search(pos, a.search_depth, time_limit=600)
        after = snapshot(cluster)
        report = {
            "load": "distributed search",
            "positions": [str(p) for p in starts],
            "depth": a.search_depth,
            "seconds": round(time.monotonic() - t, 1),
            "load_average": round(load, 1),
            **per_unit(before, after, (b0, broker_snapshot(stack.broker.port)), len(starts)),
            **spread(before, after),
        }
        print(json.dumps(report), flush=True)

        gateway = Gateway(stack, ["--window", "4", "--log-level", "WARNING"]).start()
        load = os.getloadavg()[0]
        before = snapshot(cluster)
        b0 = broker_snapshot(stack.broker.port)
        t = time.monotonic()
        out = subprocess.run(
            [
                sys.executable,
                str(ROOT / "bench" / "gateway_load.py"),
                "live",
                "--gateway",
                gateway.target,
                "--games",
                str(a.games),
                "--moves",
                str(a.moves),
                "--depth",
                str(a.depth),
                "--json",
            ],
            capture_output=True,
            text=True,
            timeout=3600,
            check=True,
        )
        live = json.loads(out.stdout.strip().splitlines()[-1])
        after = snapshot(cluster)
        b1 = broker_snapshot(stack.broker.port)
        report = {
            "load": "live games",
            "games": a.games,
            "moves": a.moves,
            "depth": a.depth,
            "evaluations": live.get("evaluations"),
            "errors": live.get("errors"),
            "seconds": round(time.monotonic() - t, 1),
            "load_average": round(load, 1),
            "cache_hit_rate": live.get("cache_hit_rate"),
            **per_unit(before, after, (b0, b1), int(live.get("evaluations") or 1)),
            **spread(before, after),
        }
        print(json.dumps(report), flush=True)
    finally:
        if gateway is not None:
            gateway.stop()
        stack.stop()
        cluster.stop()


if __name__ == "__main__":
    main()
