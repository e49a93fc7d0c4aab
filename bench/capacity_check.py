"""Measured runs for checking the capacity model (``bench/capacity_sim.py``) on this machine.

    python bench/capacity_check.py --games 100,300,1000 --moves 3 --depth 12 --workers 2
    python bench/capacity_check.py --games 300 --spread

For each number of live games: first a probe of the CPU this machine gives a runnable process at
its present load (``--probe-procs`` busy loops for ``--probe-seconds``; each one's CPU time over
the wall time is the fraction of a core one process gets, its loops per CPU second how fast that
core computes), then ``bench/gateway_load.py``'s live load on a fresh stack (two redis-servers,
``--workers`` Celery workers with one pool process each, one gateway): every game sends its start
and ``--moves`` moves, each as soon as the previous update has its final evaluation (a closed
loop, no pause). It records the throughput and latency percentiles, the gateway's counters
(``griot:gateway:stats``: requests, cache hits, deduplicated requests, tasks sent), CPU of the
gateway, of the workers and of the load generator (this process), Redis commands and CPU
(``INFO cpu``) on the cache and on the broker, and the load average before and after. One
JSON object per run; ``capacity_sim.py check FILE`` reads them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gateway_load import LocalStack, live_report, run_live


def _busy(seconds: float, out: Any) -> None:
    t0 = time.perf_counter()
    c0 = time.process_time()
    x = 0
    loops = 0
    while time.perf_counter() - t0 < seconds:
        for i in range(10_000):
            x += i
        loops += 1
    cpu = time.process_time() - c0
    out.put((cpu / (time.perf_counter() - t0), loops / max(cpu, 1e-9)))


def core_share(procs: int, seconds: float) -> tuple[float, float]:
    """The fraction of a core one runnable process gets now, and how fast that core computes
    (its loops of 10,000 additions per CPU second): medians over ``procs`` at once."""
    q: Any = multiprocessing.Queue()
    ps = [multiprocessing.Process(target=_busy, args=(seconds, q)) for _ in range(procs)]
    for p in ps:
        p.start()
    got = [q.get(timeout=seconds + 30) for _ in ps]
    for p in ps:
        p.join()
    shares = sorted(g[0] for g in got)
    rates = sorted(g[1] for g in got)
    return shares[len(shares) // 2], rates[len(rates) // 2]


def counters(port: int) -> dict[str, int]:
    with redis.Redis(port=port, socket_timeout=5) as c:
        s = c.info("stats")
        u = c.info("cpu")
    cpu = float(u["used_cpu_user"]) + float(u["used_cpu_sys"])
    return {"commands": int(s["total_commands_processed"]), "cpu_us": int(cpu * 1e6)}


def gateway_stats(port: int) -> dict[str, int]:
    with redis.Redis(port=port, socket_timeout=5) as c:
        h = c.hgetall("griot:gateway:stats")
    return {k.decode(): int(v) for k, v in h.items()}


def measure(a: argparse.Namespace, games: int) -> dict[str, Any]:
    load0 = os.getloadavg()[0]
    share, rate = core_share(a.probe_procs, a.probe_seconds)
    stack = LocalStack(a.workers, a.window, [])
    try:
        time.sleep(1.5)
        c0, b0, cpu0 = counters(stack.cache), counters(stack.broker), stack.cpu()
        s0 = gateway_stats(stack.cache)
        client0 = time.process_time()
        r = asyncio.run(run_live(stack.target, games, a.moves, a.depth, 8))
        client = time.process_time() - client0  # the load generator: this process
        cpu1 = stack.cpu()
        time.sleep(1.5)  # the gateway adds its counters once a second
        c1, b1, s1 = counters(stack.cache), counters(stack.broker), gateway_stats(stack.cache)
    finally:
        stack.stop()
    rep = live_report(r)
    stats = {k: s1.get(k, 0) - s0.get(k, 0) for k in s1}
    return {
        "games": games,
        "moves": a.moves,
        "depth": a.depth,
        "workers": a.workers,
        "load_before": round(load0, 1),
        "load_after": round(os.getloadavg()[0], 1),
        "cores": os.cpu_count(),
        "core_share": round(share, 3),
        "probe_rate": round(rate),
        "probe_procs": a.probe_procs,
        **{k: rep[k] for k in ("evaluations", "errors", "seconds", "throughput_per_s", "p50_ms", "p99_ms")},
        "cache_hit_rate": rep["cache_hit_rate"],
        "gateway_stats": stats,
        "gateway_cpu_s": round(cpu1[0] - cpu0[0], 3),
        "workers_cpu_s": round(cpu1[1] - cpu0[1], 3),
        "client_cpu_s": round(client, 3),
        "cache_commands": c1["commands"] - c0["commands"],
        "broker_commands": b1["commands"] - b0["commands"],
        "cache_cpu_s": round((c1["cpu_us"] - c0["cpu_us"]) / 1e6, 3),
        "broker_cpu_s": round((b1["cpu_us"] - b0["cpu_us"]) / 1e6, 3),
    }


def search_spread(games: int, moves: int, depth: int) -> dict[str, Any]:
    """CPU time of an in-process search of each distinct position the load sends (a fresh table
    each): the spread of a search's time, which the simulation's ``search_cv`` takes."""
    import griot
    from capacity_sim import load_sequences

    positions = sorted({p for seq in load_sequences(games, moves) for p in seq})
    times = []
    for text in positions:
        c0 = time.process_time()
        griot.search(text, depth=depth, hash_mb=16)
        times.append(time.process_time() - c0)
    mean = sum(times) / len(times)
    sd = (sum((t - mean) ** 2 for t in times) / len(times)) ** 0.5
    cv = round(sd / mean, 3)
    return {"positions": len(times), "depth": depth, "mean_ms": round(1000 * mean, 2), "cv": cv}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default="100,300,1000")
    ap.add_argument("--moves", type=int, default=3)
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--window", type=int, default=4)
    ap.add_argument("--probe-procs", type=int, default=2)
    ap.add_argument("--probe-seconds", type=float, default=3.0)
    ap.add_argument("--spread", action="store_true", help="only the searches' spread (first --games)")
    a = ap.parse_args()
    if a.spread:
        print(json.dumps(search_spread(int(a.games.split(",")[0]), a.moves, a.depth)), flush=True)
        return
    for g in (int(x) for x in a.games.split(",")):
        print(json.dumps(measure(a, g)), flush=True)


if __name__ == "__main__":
    main()
