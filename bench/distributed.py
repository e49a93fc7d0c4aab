"""Distributed search measurements (issue 7): time to depth in-process vs 1 vs 2 workers, the
Redis cache's effect, and the inputs of the scaling model (task sizes, queue latency).

    .venv/bin/python bench/distributed.py speed --depth 20 --split 1 --split 2
    .venv/bin/python bench/distributed.py cache --depth 16
    .venv/bin/python bench/distributed.py split --depth 19

Starts its own redis-server pair and Celery workers (prefork, concurrency 1 each) on loopback.
Prints one JSON object per measurement. This machine has 2 cores shared with other builds:
read `load` (1-minute load average at the start of each measurement) before the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import griot
import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "workers")]

from workers_stack import make_stack  # noqa: E402

from workers.cache import read_stats  # noqa: E402
from workers.distributed import ClusterSearch, cluster_workers  # noqa: E402

POSITIONS = {
    "abapa-start": "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -",
    "awale-after-c-F": None,  # filled below
    "leb-start": str(griot.Variant("leb-bbut-ahbochen").start()),
}
POSITIONS["awale-after-c-F"] = str(griot.Variant("awale").start().play("c").play("F"))


def load() -> float:
    return os.getloadavg()[0]


def emit(**kw: Any) -> None:
    print(json.dumps(kw), flush=True)


def in_process(pos: str, depth: int) -> dict[str, Any]:
    t = time.perf_counter()
    r = griot.search(pos, depth=depth, hash_mb=64)
    return dict(time=time.perf_counter() - t, value=r.score.value, nodes=r.nodes)


def distributed(app: Any, pos: str, depth: int, workers: dict[str, int], **opts: Any) -> dict[str, Any]:
    cs = ClusterSearch(app, capacity=sum(workers.values()), workers=workers, **opts)
    cpu = time.process_time()
    t = time.perf_counter()
    depths = []
    r = cs.search(
        pos, depth, time_limit=600, on_depth=lambda d: depths.append((d.depth, round(d.elapsed, 2)))
    )
    elapsed = time.perf_counter() - t
    last = [x for x in cs.stats.timings]
    queue = [q for q, _, _ in last]
    run = [x for _, x, _ in last]
    return dict(
        time=elapsed,
        value=r.value,
        nodes=r.nodes,
        tasks=cs.stats.sent,
        cache_answers=cs.stats.cache_answers,
        redispatched=cs.stats.redispatched,
        caller_cpu=time.process_time() - cpu,
        queue_latency_ms_median=1000 * statistics.median(queue) if queue else None,
        task_seconds_median=statistics.median(run) if run else None,
        task_seconds_max=max(run) if run else None,
        task_seconds_sum=sum(run),
        depths=depths,
        timings=[(round(q, 4), round(x, 4), n) for q, x, n in last],
    )


def stack_with(n: int):  # type: ignore[no-untyped-def]
    s = make_stack()
    app = s.app()
    for i in range(n):
        s.start_worker(
            f"b{i}",
            extra_env={
                "GRIOT_HASH_MB": os.environ.get("BENCH_HASH_MB", "256"),
                "GRIOT_CACHE_MIN_DEPTH": "10",
            },
        )
    s.wait_ready(app, n)
    return s, app


def speed(args: argparse.Namespace) -> None:
    """A fresh stack per measurement: the workers' tables must start cold."""
    for name in args.position or list(POSITIONS):
        pos = POSITIONS[name]
        emit(kind="in-process", position=name, depth=args.depth, load=load(), **in_process(pos, args.depth))
        for split in args.split or [1]:
            for n in (1, 2):
                s, app = stack_with(n)
                try:
                    workers = cluster_workers(app, "griot.interactive")
                    res = distributed(
                        app, pos, args.depth, workers, split=split, direct_depth=args.direct, min_task_depth=4
                    )
                    if not args.timings:
                        res.pop("timings")
                    emit(kind=f"{n}-worker", position=name, depth=args.depth, split=split, load=load(), **res)
                finally:
                    s.stop_workers()
                    s.broker.stop()
                    s.cache.stop()


def cache(args: argparse.Namespace) -> None:
    s, app = stack_with(2)
    try:
        workers = cluster_workers(app, "griot.interactive")
        client = redis.Redis.from_url(s.cache.url)
        client.flushdb()
        pos = POSITIONS["abapa-start"]
        for run in ("first", "second"):
            before = read_stats(client)
            res = distributed(
                app, pos, args.depth, workers, split=2, direct_depth=args.direct, min_task_depth=4
            )
            after = read_stats(client)
            res.pop("timings")
            emit(
                kind=f"same analysis, {run} run",
                load=load(),
                **{k: v for k, v in res.items() if k != "depths"},
                cache={k: after[k] - before.get(k, 0) for k in ("probes", "hits", "writes", "task_hits")},
            )
        # Two games sharing an opening: every position of game A, then of game B (same first moves).
        client.flushdb()
        opening = ["c", "F", "b", "E"]
        game_a = [*opening, "a", "D"]
        game_b = [*opening, "d", "A"]
        for label, moves in (("game A", game_a), ("game B (same 4-move opening)", game_b)):
            before = read_stats(client)
            p = griot.Variant("abapa").start()
            t = time.perf_counter()
            tasks = answers = 0
            for mv in moves:
                p = p.play(mv)
                r = distributed(
                    app, str(p), args.depth - 2, workers, split=2, direct_depth=args.direct, min_task_depth=4
                )
                tasks += r["tasks"]
                answers += r["cache_answers"]
            after = read_stats(client)
            probes = after["probes"] - before.get("probes", 0)
            hits = after["hits"] - before.get("hits", 0)
            emit(
                kind=label,
                positions=len(moves),
                depth=args.depth - 2,
                time=time.perf_counter() - t,
                tasks=tasks,
                tasks_answered_by_cache=answers,
                table_probes=probes,
                table_hits=hits,
                hit_rate=round(hits / probes, 3) if probes else None,
                load=load(),
            )
    finally:
        s.stop_workers()
        s.broker.stop()
        s.cache.stop()


def split(args: argparse.Namespace) -> None:
    """Split depth and speculation, 2 workers, a fresh stack per measurement."""
    pos = POSITIONS["abapa-start"]
    emit(kind="in-process", depth=args.depth, load=load(), **in_process(pos, args.depth))
    for sp in (1, 2, 3):
        for spec in (False, True):
            s, app = stack_with(2)
            try:
                workers = cluster_workers(app, "griot.interactive")
                res = distributed(
                    app,
                    pos,
                    args.depth,
                    workers,
                    split=sp,
                    direct_depth=args.direct,
                    min_task_depth=4,
                    speculate=spec,
                )
                res.pop("timings")
                emit(kind="2-worker", split=sp, speculate=spec, depth=args.depth, load=load(), **res)
            finally:
                s.stop_workers()
                s.broker.stop()
                s.cache.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["speed", "cache", "split"])
    ap.add_argument("--depth", type=int, default=19)
    ap.add_argument("--direct", type=int, default=12, help="depths run as one task")
    ap.add_argument("--split", type=int, action="append")
    ap.add_argument("--position", action="append", choices=list(POSITIONS))
    ap.add_argument("--timings", action="store_true", help="print every task's (queue, run, nodes)")
    args = ap.parse_args()
    {"speed": speed, "cache": cache, "split": split}[args.what](args)


if __name__ == "__main__":
    main()
