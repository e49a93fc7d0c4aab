"""Distributed search measurements: time to depth in-process vs 1 vs 2 workers, the
Redis cache's effect, and the inputs of the scaling model (task sizes, queue latency).

    .venv/bin/python bench/distributed.py speed --depth 20 --split 1 --split 2
    .venv/bin/python bench/distributed.py cache --depth 16
    .venv/bin/python bench/distributed.py split --depth 19
    .venv/bin/python bench/distributed.py nodes --depth 20 --pv-split 2

Starts its own redis-server pair and Celery workers (prefork, concurrency 1 each) on loopback,
except ``nodes``, which runs the driver's tree with its subtree searches made here one at a time
(deterministic node counts, no Celery, no load noise).

Prints one JSON object per measurement. This machine has 2 cores shared with other builds:
read `load` (1-minute load average at the start of each measurement) before the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
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

from griot.tasks.distributed import ClusterSearch, cluster_workers  # noqa: E402
from griot.tasks.distributed import tree as dist  # noqa: E402
from griot.workers.cache import read_stats  # noqa: E402
from workers_stack import make_stack  # noqa: E402

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


def in_process(pos: str, depth: int, progress: Any = None) -> dict[str, Any]:
    t = time.perf_counter()
    cpu = time.thread_time()
    r = griot.search(pos, depth=depth, hash_mb=64, progress=progress)
    return dict(
        time=time.perf_counter() - t, cpu=time.thread_time() - cpu, value=r.score.value, nodes=r.nodes
    )


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
    queue = [t[0] for t in last]
    run = [t[1] for t in last]
    return dict(
        time=elapsed,
        value=r.value,
        nodes=r.nodes,
        tasks=cs.stats.sent,
        cache_answers=cs.stats.cache_answers,
        redispatched=cs.stats.redispatched,
        caller_cpu=time.process_time() - cpu,
        caller_cpu_ms_per_task=round(1000 * (time.process_time() - cpu) / max(1, cs.stats.sent), 2),
        results_notified=getattr(cs.stats, "notified", None),
        results_polled=getattr(cs.stats, "polled", None),
        wall_minus_task_s_per_task_ms=round(1000 * (elapsed - sum(run)) / max(1, cs.stats.sent), 2),
        worker_search_cpu=cs.stats.cpu,
        speculative=cs.stats.speculative,
        dropped=cs.stats.dropped,
        revoked=cs.stats.revoked,
        speculative_task_nodes=sum(
            n for t, (_, _, n, _, _) in zip(cs.stats.trace, last, strict=True) if t.get("spec")
        ),
        guesses=guess_errors(cs.stats.guesses),
        queue_latency_ms_median=1000 * statistics.median(queue) if queue else None,
        task_seconds_median=statistics.median(run) if run else None,
        task_seconds_max=max(run) if run else None,
        task_seconds_sum=sum(run),
        depths=depths,
        breakdown=breakdown(getattr(cs.stats, "trace", [])),
        parallelism=parallelism(cs.stats, sum(workers.values())),
        timings=[(round(q, 4), round(x, 4), n, d, s) for q, x, n, d, s in last],
    )


def guess_errors(guesses: list[tuple[int, int, int, int]]) -> dict[str, Any]:
    """How the speculative null windows' guesses stood against the floor each eldest set:
    above it (a fail low there settles nothing: revoked, or searched again), at it, below it
    (a fail low settles, a fail high does not), and the median distance."""
    diffs = [g - f for _, _, g, f in guesses]
    if not diffs:
        return {}
    return dict(
        n=len(diffs),
        above=sum(d > 0 for d in diffs),
        equal=sum(d == 0 for d in diffs),
        below=sum(d < 0 for d in diffs),
        median_abs=statistics.median(abs(d) for d in diffs),
        by_ply={p: [g - f for _, q, g, f in guesses if q == p] for p in sorted({x[1] for x in guesses})},
    )


SEGMENTS = {
    "broker_pickup": ("sent", "taken"),  # the caller's LPUSH to the worker's main process
    "pool_handoff": ("taken", "started"),  # main process to the prefork pool process
    "task_prologue": ("started", "search_started"),  # arguments, cache probe, in-flight marker
    "search": ("search_started", "search_ended"),  # the native search
    "task_epilogue": ("search_ended", "finished"),  # cache publish, the result dict
    "store_and_notify": ("finished", "notified"),  # result store + publish + the caller's wake
}


def breakdown(trace: list[dict[str, float]]) -> dict[str, Any]:
    """Per-task overheads (median and sum, ms) from the tasks' timestamps, and the time during the
    distributed depths when no task was in flight (the caller's own work between results and the
    next sends: with one worker, young-brothers-wait makes most of it sequential)."""
    out: dict[str, Any] = {}
    for name, (a, b) in SEGMENTS.items():
        xs = [t[b] - t[a] for t in trace if a in t and b in t]
        if xs:
            out[name] = dict(median_ms=round(1000 * statistics.median(xs), 2), sum_s=round(sum(xs), 3))
    idle = 0.0
    by_depth: dict[float, list[tuple[float, float]]] = {}
    for t in trace:
        if "sent" in t and "notified" in t:
            by_depth.setdefault(t["depth"], []).append((t["sent"], t["notified"]))
    for spans in by_depth.values():
        spans.sort()
        end = spans[0][1]
        for a, b in spans[1:]:
            if a > end:
                idle += a - end
            end = max(end, b)
    out["no_task_in_flight_s"] = round(idle, 3)
    out["tasks_traced"] = len(trace)
    return out


def parallelism(stats: Any, slots: int) -> dict[str, Any]:
    """How many of the ``slots`` workers were busy (a task started in a pool process and not yet
    returned), on average over the search (the first task's send to the last depth's result) and
    over its distributed depths, and where the idle worker-seconds went:

    - ``first_task``: until the first depths' single task's result came;
    - ``in_transit``: a task was sent and not started yet, or finished and its result not yet
      with the caller (broker, pool hand-off, store and notify, a job kept for its busy worker);
    - ``caller``: nothing in flight at all (the caller's own work between results and sends);
    - ``eldest_ply<k>``: one task ran alone and everything else waited for it; its ancestors down
      to ply ``k`` are eldest brothers, so the eldest at ply ``k`` (and every eldest above it) was
      not finished: young brothers wait for it; ``eldest_ply<split + pv_split>`` is the PV leaf;
    - ``tail``: one task ran alone, a younger brother of the root's eldest (the iteration's end).

    ``lone_task_idle_worker_s`` splits the idle time while one task ran alone by that task's
    kind: ``chain<k>-<spec|required>-<wide|null>-<again|first>`` (its eldest chain, speculative
    or not, its window, and whether its subtree had been searched at that depth before: a
    search repeated at the floor after a speculative guess, or a re-search after a fail high).
    """
    trace = list(getattr(stats, "trace", []))
    first = dict(getattr(stats, "first", {}))
    done = dict(getattr(stats, "depth_done", {}))
    if not trace or not done:
        return {}
    t0 = first.get("sent", min(t["sent"] for t in trace if "sent" in t))
    t_end = max(done.values())
    first_end = first.get("notified", t0)
    # (start, end, chain, kind); the first task: chain -1, kind "first_task"
    spans: list[tuple[float, float, float, str]] = []
    if "started" in first and "finished" in first:
        spans.append((first["started"], first["finished"], -1.0, "first_task"))
    transit: list[tuple[float, float]] = []
    for t in trace:
        if "started" in t and "finished" in t:
            spans.append((t["started"], t["finished"], t.get("chain", 0.0), task_kind(t)))
        if "sent" in t and "started" in t:
            transit.append((t["sent"], t["started"]))
        if "finished" in t and "notified" in t:
            transit.append((t["finished"], t["notified"]))
    cuts = {t0, t_end, first_end}
    for a, b, _, _ in spans:
        cuts.update((a, b))
    for a, b in transit:
        cuts.update((a, b))
    points = sorted(x for x in cuts if t0 <= x <= t_end)
    busy = busy_dist = 0.0
    idle: dict[str, float] = {}
    lone: dict[str, float] = {}
    for a, b in itertools.pairwise(points):
        mid, dt = (a + b) / 2, b - a
        running = [(c, kind) for x, y, c, kind in spans if x <= mid < y]
        run = [c for c, _ in running]
        if len(running) == 1 and slots > 1 and mid >= first_end:
            kind = running[0][1]
            lone[kind] = lone.get(kind, 0.0) + (slots - 1) * dt
        busy += len(run) * dt
        if mid >= first_end:
            busy_dist += len(run) * dt
        gap = max(0, slots - len(run)) * dt
        if gap <= 0:
            continue
        if mid < first_end:
            what = "first_task"
        elif any(x <= mid < y for x, y in transit):
            what = "in_transit"
        elif not run:
            what = "caller"
        else:
            chain = int(min(run))
            what = "tail" if chain == 0 else f"eldest_ply{chain}"
        idle[what] = idle.get(what, 0.0) + gap
    span = t_end - t0
    return dict(
        span_s=round(span, 3),
        mean_busy=round(busy / span, 3) if span > 0 else None,
        mean_busy_distributed=round(busy_dist / (t_end - first_end), 3) if t_end > first_end else None,
        first_task_s=round(first_end - t0, 3),
        idle_worker_s={k: round(v, 3) for k, v in sorted(idle.items(), key=lambda kv: -kv[1])},
        lone_task_idle_worker_s={
            k: round(v, 3) for k, v in sorted(lone.items(), key=lambda kv: -kv[1]) if v >= 0.01
        },
    )


def task_kind(t: dict[str, float]) -> str:
    """A subtree task's kind for ``lone_task_idle_worker_s`` (see :func:`parallelism`)."""
    return "-".join(
        (
            f"chain{int(t.get('chain', 0))}",
            "spec" if t.get("spec") else "required",
            "wide" if t.get("wide") else "null",
            "again" if t.get("again") else "first",
        )
    )


def stack_with(n: int):  # type: ignore[no-untyped-def]
    s = make_stack()
    app = s.app()
    for i in range(n):
        s.start_worker(
            f"b{i}",
            extra_env={
                "GRIOT_HASH_MB": os.environ.get("BENCH_HASH_MB", "64"),  # production and in-process: 64
                "GRIOT_CACHE_MIN_DEPTH": "10",
            },
        )
    s.wait_ready(app, n)
    return s, app


def speed(args: argparse.Namespace) -> None:
    """A fresh stack per measurement: the workers' tables must start cold. With ``--repeat N``
    one worker and two workers alternate N times (1, 2, 1, 2, ...: the box's speed drifts
    between minutes, so each two-worker run is compared with the one-worker run just before it)
    and a summary line gives each pair's ratio and the medians."""
    for name in args.position or list(POSITIONS):
        pos = POSITIONS[name]
        for split in args.split or [1]:
            runs: list[dict[str, Any]] = []
            refs: list[dict[str, Any]] = []
            for n in (1, 2) * max(1, args.repeat):
                if n == 1 and not args.skip_in_process:
                    # The in-process peer right before each one-worker run (the box's speed
                    # drifts: the overhead is each adjacent pair's ratio).
                    ref = in_process(pos, args.depth)
                    refs.append(dict(kind="in-process", position=name, depth=args.depth, load=load(), **ref))
                    emit(**refs[-1])
                s, app = stack_with(n)
                try:
                    workers = cluster_workers(app, "griot.interactive")
                    res = distributed(
                        app,
                        pos,
                        args.depth,
                        workers,
                        split=split,
                        direct_depth=args.direct,
                        min_task_depth=4,
                        pv_split=args.pv_split,
                        iteration_windows=not args.no_iteration_windows,
                        **({"direct_seconds": args.direct_seconds} if args.direct_seconds else {}),
                        **extra_options(args),
                    )
                    if not args.timings:
                        res.pop("timings")
                    line = dict(
                        overlap=args.overlap,
                        speculate=args.speculate,
                        guess=args.guess,
                        resume=not args.no_resume,
                        pv_split=args.pv_split,
                        direct=args.direct,
                        direct_seconds=args.direct_seconds,
                        kind=f"{n}-worker",
                        position=name,
                        depth=args.depth,
                        split=split,
                        load=load(),
                        **res,
                    )
                    emit(**line)
                    runs.append(line)
                finally:
                    s.stop_workers()
                    s.broker.stop()
                    s.cache.stop()
            if args.repeat > 1:
                emit(
                    **summary(runs, refs),
                    position=name,
                    depth=args.depth,
                    split=split,
                    pv_split=args.pv_split,
                )


def extra_options(args: argparse.Namespace) -> dict[str, Any]:
    """ClusterSearch options the command line sets only when given (their defaults otherwise)."""
    out: dict[str, Any] = {}
    if args.overlap is not None:
        out["overlap"] = args.overlap != "off"
        after = {"eldest": 0, "eldest1": 1, "eldest2": 2}
        out["overlap_after"] = after.get(args.overlap)
    if args.guess is not None:
        out["guess"] = args.guess
    if args.speculate is not None:
        out["speculate"] = {"on": True, "off": False}.get(args.speculate, args.speculate)
    if args.no_resume:
        out["resume"] = False
    return out


def summary(runs: list[dict[str, Any]], refs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Each (1 worker, 2 workers) pair's time ratio and node ratio, and the medians; the
    two-worker runs' mean busy workers and idle worker-seconds by cause (median per cause); with
    the in-process peers (``refs``, one before each one-worker run) each one-worker run's
    overhead: its wall time, its workers' search CPU and its nodes over the peer's."""
    pairs = []
    for one, two in zip(runs[::2], runs[1::2], strict=False):
        pairs.append(
            dict(
                t1=round(one["time"], 2),
                t2=round(two["time"], 2),
                speedup=round(one["time"] / two["time"], 3),
                nodes_2w_over_1w=round(two["nodes"] / one["nodes"], 3),
                load=(round(one["load"], 2), round(two["load"], 2)),
            )
        )
    twos = [r["parallelism"] for r in runs[1::2] if r.get("parallelism")]
    causes = sorted({k for p in twos for k in p["idle_worker_s"]})
    overhead = [
        dict(
            wall=round(one["time"] / ref["time"], 3),
            cpu=round(one["worker_search_cpu"] / ref["cpu"], 3),
            nodes=round(one["nodes"] / ref["nodes"], 3),
            load=(round(ref["load"], 2), round(one["load"], 2)),
        )
        for ref, one in zip(refs or [], runs[::2], strict=False)
    ]

    def median_of(key: str) -> float | None:
        return round(statistics.median(o[key] for o in overhead), 3) if overhead else None

    return dict(
        kind="summary",
        overhead_1w=overhead,
        median_overhead_1w_wall=median_of("wall"),
        median_overhead_1w_cpu=median_of("cpu"),
        pairs=pairs,
        median_speedup=round(statistics.median(p["speedup"] for p in pairs), 3) if pairs else None,
        median_nodes_2w_over_1w=round(statistics.median(p["nodes_2w_over_1w"] for p in pairs), 3)
        if pairs
        else None,
        mean_busy_2w=[p["mean_busy"] for p in twos],
        mean_busy_distributed_2w=[p["mean_busy_distributed"] for p in twos],
        idle_worker_s_2w_median={
            c: round(statistics.median(p["idle_worker_s"].get(c, 0.0) for p in twos), 3) for c in causes
        },
        lone_task_idle_worker_s_2w_median={
            k: round(statistics.median(p.get("lone_task_idle_worker_s", {}).get(k, 0.0) for p in twos), 3)
            for k in sorted({k for p in twos for k in p.get("lone_task_idle_worker_s", {})})
        },
    )


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


def model(args: argparse.Namespace) -> None:
    """The scaling model's inputs from one worker (every task alone on a core) and its forecast.

    Per distributed depth d: ``W_d`` = summed task time, ``C_d`` = the eldest brother's task (the
    first one sent at that depth: under young-brothers-wait nothing else starts before it ends),
    ``M_d`` = the longest other task, ``L`` = median queue latency plus the caller's poll. With p
    workers: ``T_p = sum_d C_d + max((W_d - C_d) / p, M_d) + r_d * L`` (``r_d`` rounds of dependent
    tasks: 2 for split 1), speedup ``T_1 / T_p``.
    """
    for sp in args.split or [1, 2]:
        s, app = stack_with(1)
        try:
            workers = cluster_workers(app, "griot.interactive")
            res = distributed(
                app,
                POSITIONS["abapa-start"],
                args.depth,
                workers,
                split=sp,
                direct_depth=args.direct,
                min_task_depth=4,
                pv_split=args.pv_split,
                iteration_windows=not args.no_iteration_windows,
            )
        finally:
            s.stop_workers()
            s.broker.stop()
            s.cache.stop()
        by_depth: dict[int, list[tuple[float, float, int, int, float]]] = {}
        for t in res["timings"]:
            by_depth.setdefault(t[3], []).append(t)
        latency = statistics.median(t[0] for t in res["timings"]) + 0.005
        rows = []
        for d, ts in sorted(by_depth.items()):
            ts.sort(key=lambda t: t[4])
            w = sum(t[1] for t in ts)
            c = ts[0][1]
            m = max((t[1] for t in ts[1:]), default=0.0)
            rows.append((d, len(ts), w, c, m))

        def t_p(p: int, rows: list[Any] = rows, sp: int = sp, latency: float = latency) -> float:
            return sum(c + max((w - c) / p, m) + 2 * sp * latency for _, _, w, c, m in rows)

        t1 = t_p(1)
        emit(
            kind="model",
            pv_split=args.pv_split,
            split=sp,
            depth=args.depth,
            load=load(),
            latency_s=round(latency, 4),
            per_depth=[
                dict(depth=d, tasks=n, work_s=round(w, 3), eldest_s=round(c, 3), longest_other_s=round(m, 3))
                for d, n, w, c, m in rows
            ],
            speedup={p: round(t1 / t_p(p), 2) for p in (1, 2, 4, 8, 16, 32, 64)},
            last_depth_ceiling=round(rows[-1][2] / max(rows[-1][3], rows[-1][4]), 2) if rows else None,
        )


class _LocalShared:
    """The Redis tier's semantics in a dict (deeper wins; at equal depth exact beats a bound)."""

    def __init__(
        self, store: dict[bytes, tuple[int, str, int, int | None]], min_depth: int, plies: int
    ) -> None:
        self.store, self.min_depth, self.plies = store, min_depth, plies

    def fetch(self, requests: list[tuple[bytes, int]]) -> list[tuple[bytes, int, str, int, int | None]]:
        return [(k, *self.store[k]) for k, _ in requests if k in self.store]

    def publish(self, entries: list[tuple[bytes, int, str, int, int | None]]) -> None:
        for key, depth, bound, value, best in entries:
            old = self.store.get(key)
            if old and (old[0] > depth or (old[0] == depth and old[1] == "exact" and bound != "exact")):
                continue
            self.store[key] = (depth, bound, value, best)


class LocalSearch(ClusterSearch):
    """The distributed search's tree (``ClusterSearch._node``) with each subtree searched here,
    one at a time, as one worker's pool process would (kept table, the Redis hook in the last
    ``cache_iterations`` iterations, ``new_generation=False`` within the search when
    ``continue_table``): node counts are deterministic."""

    def __init__(self, hash_mb: int, continue_table: bool, cache_min_depth: int = 10, **kw: Any) -> None:
        kw.setdefault("speculate", False)  # one search at a time: one slot, nothing idle
        super().__init__(None, **kw)
        self.table = griot.SearchTable(hash_mb)
        self.store: dict[bytes, tuple[int, str, int, int | None]] = {}
        self.continue_table = continue_table
        self.cache_min_depth = cache_min_depth
        self.last: dict[int, int] = {}  # distributed depth -> nodes of the tasks' last iterations

    async def _leaf(  # type: ignore[override]
        self, sched: Any, node: Any, depth: int, alpha: int, beta: int, path: Any, priority: Any
    ) -> Any:
        pos = node.position
        early = [(d, a, b) for d, (a, b) in sorted(node.windows.items()) if d < depth]
        node.windows[depth] = (alpha, beta)
        hook = max(self.cache_min_depth, depth - 3 + 1)
        shared = _LocalShared(self.store, hook, 2) if depth >= self.cache_min_depth else None
        steps: list[int] = []
        extra: dict[str, Any] = {"new_generation": False} if self.continue_table else {}
        if self.iteration_windows:
            extra["iteration_windows"] = early
        if self.resume:
            extra["resume"] = True
        cpu = time.thread_time()
        r = griot.search(
            pos,
            depth=depth,
            history=path,
            window=(alpha, beta),
            shared=shared,
            table=self.table,
            progress=lambda x: steps.append(x.nodes),
            **extra,
        )
        self.stats.cpu += time.thread_time() - cpu
        if shared is not None:
            shared.publish([(pos.key, depth, r.bound, r.score.value, None)])
        self.stats.nodes += r.nodes
        self.stats.sent += 1
        last = steps[-1] - (steps[-2] if len(steps) > 1 else 0) if steps else 0
        self.last[self._iteration] = self.last.get(self._iteration, 0) + last
        return dist._Found(r.score.value, r.bound, list(r.pv))

    def run(self, text: str, depth: int, direct: int) -> dict[str, Any]:
        pos = griot.Position(text)
        root = dist._Node(pos)
        cpu = time.thread_time()
        r = griot.search(pos, depth=direct, multipv=0, table=self.table)
        self.stats.cpu += time.thread_time() - cpu
        self.stats.nodes += r.nodes
        children = root.expand()
        index = {m: i for i, (m, _, _) in enumerate(children)}
        root.order = [index[m.move] for m in r.moves]
        for _, child, _ in children:
            child.windows = {d: (-griot.INFINITE, griot.INFINITE) for d in range(1, direct)}
        for m in r.moves:
            sign = children[index[m.move]][2]
            v = dist.to_child(m.score.value)
            children[index[m.move]][1].estimates[direct - 1] = -v if sign < 0 else v
        per_depth = {}
        value = r.score.value
        for d in range(direct + 1, depth + 1):
            self._iteration = d
            before = self.stats.nodes
            found = asyncio.run(self._node(None, root, d, -griot.INFINITE, griot.INFINITE, [], 0))  # type: ignore[arg-type]
            per_depth[d] = self.stats.nodes - before
            value = found.value
        st = self.stats
        return dict(value=value, nodes=st.nodes, tasks=st.sent, cpu=st.cpu, per_depth=per_depth)


def nodes(args: argparse.Namespace) -> None:
    """Node counts of the distributed search, deterministic: its tree with the subtrees searched
    here one at a time (one worker), each table generation policy, against the in-process search
    (per depth: the distributed depth's nodes, its tasks' last iterations, the in-process
    iteration)."""
    for name in args.position or list(POSITIONS):
        pos = POSITIONS[name]
        per: dict[int, int] = {}
        seen = [0]

        def step(r: Any, per: dict[int, int] = per, seen: list[int] = seen) -> None:
            per[r.depth] = r.nodes - seen[0]
            seen[0] = r.nodes

        ref = in_process(pos, args.depth, progress=step)
        emit(kind="in-process", position=name, depth=args.depth, load=load(), **ref)
        for cont in (False, True) if args.both_generations else (True,):
            ls = LocalSearch(
                int(os.environ.get("BENCH_HASH_MB", "256")),
                continue_table=cont,
                iteration_windows=not args.no_iteration_windows,
                split=args.split[0] if args.split else 1,
                pv_split=args.pv_split,
                min_task_depth=4,
                resume=not args.no_resume,
            )
            res = ls.run(pos, args.depth, args.direct)
            assert res["value"] == ref["value"], (name, res["value"], ref["value"])
            emit(
                kind="local",
                continue_table=cont,
                position=name,
                depth=args.depth,
                load=load(),
                nodes_ratio=round(res["nodes"] / ref["nodes"], 3),
                cpu_ratio=round(res["cpu"] / ref["cpu"], 3),
                per_depth={d: (n, ls.last.get(d, 0), per.get(d, 0)) for d, n in res.pop("per_depth").items()},
                **res,
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["speed", "cache", "split", "model", "nodes"])
    ap.add_argument("--depth", type=int, default=19)
    ap.add_argument("--direct", type=int, default=12, help="depths run as one task")
    ap.add_argument(
        "--direct-seconds",
        type=float,
        help="the first task goes on past --direct while its next depth fits in this time",
    )
    ap.add_argument("--split", type=int, action="append")
    ap.add_argument("--position", action="append", choices=list(POSITIONS))
    ap.add_argument("--pv-split", type=int, default=0, help="extra plies split along the PV")
    ap.add_argument("--timings", action="store_true", help="print every task's (queue, run, nodes)")
    ap.add_argument(
        "--repeat", type=int, default=1, help="speed: 1 and 2 workers alternately N times, then a summary"
    )
    ap.add_argument(
        "--overlap",
        choices=["on", "off", "eldest", "eldest1", "eldest2"],
        help="speed: depth d + 1 beside depth d (overlap=); eldest<k>: after d's PV eldest at ply k",
    )
    ap.add_argument("--speculate", choices=["on", "off", "pv"], help="speed: ClusterSearch(speculate=)")
    ap.add_argument("--guess", choices=["previous", "low"], help="speed: ClusterSearch(guess=)")
    ap.add_argument("--skip-in-process", action="store_true", help="speed: the distributed runs only")
    ap.add_argument(
        "--no-iteration-windows",
        action="store_true",
        help="subtree tasks search every iteration with their own window (the old way)",
    )
    ap.add_argument(
        "--no-resume",
        action="store_true",
        help="subtree tasks deepen from 1 even when their kept table holds the previous depth (the old way)",
    )
    ap.add_argument(
        "--both-generations", action="store_true", help="nodes: also a new table generation per task"
    )
    args = ap.parse_args()
    {"speed": speed, "cache": cache, "split": split, "model": model, "nodes": nodes}[args.what](args)


if __name__ == "__main__":
    main()
