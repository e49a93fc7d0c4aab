"""What one evaluation costs, and how the cost grows with the depth, the number of live games and
the number of workers sharing a table: gateway CPU, worker CPU, cache Redis commands and bytes,
broker (Celery's Redis: queues and results) commands and bytes, each per evaluation.

    python bench/evaluation_costs.py --depths 8,12,16 --games 100,300 --workers 1,2 --moves 3

Each configuration runs ``bench/gateway_load.py``'s live load (``--games`` live games, each
playing ``--moves`` moves and waiting for every final evaluation) on a fresh stack of its own
(two redis-servers, the workers, one gateway: ``gateway_load.LocalStack``), the default
configuration being depth 12, the first games count and the last workers count; every other
run changes one of the three. CPU comes from /proc (the gateway's process; the workers and their
pool processes); Redis counts from ``INFO stats`` before and after. Counts do not depend on the
machine's load; CPU seconds do (contention inflates them), so ``load`` (the 1-minute load average
at the start) is printed beside each row. One JSON object per configuration.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gateway_load import LocalStack, live_report, run_live


def counters(port: int) -> dict[str, int]:
    with redis.Redis(port=port, socket_timeout=5) as c:
        s = c.info("stats")
    return {
        "commands": int(s["total_commands_processed"]),
        "bytes_in": int(s["total_net_input_bytes"]),
        "bytes_out": int(s["total_net_output_bytes"]),
    }


def measure(games: int, moves: int, depth: int, workers: int, window: int) -> dict[str, Any]:
    load = os.getloadavg()[0]
    stack = LocalStack(workers, window, [])
    try:
        time.sleep(1.5)
        cache0, broker0, cpu0 = counters(stack.cache), counters(stack.broker), stack.cpu()
        r = asyncio.run(run_live(stack.target, games, moves, depth, 8))
        cpu1 = stack.cpu()
        cache1, broker1 = counters(stack.cache), counters(stack.broker)
    finally:
        stack.stop()
    rep = live_report(r)
    n = max(1, rep["evaluations"])
    out: dict[str, Any] = {
        "games": games,
        "moves": moves,
        "depth": depth,
        "workers": workers,
        "load": round(load, 1),
        "evaluations": rep["evaluations"],
        "errors": rep["errors"],
        "throughput_per_s": rep["throughput_per_s"],
        "p99_ms": rep["p99_ms"],
        "gateway_cpu_ms": round(1000 * (cpu1[0] - cpu0[0]) / n, 3),
        "workers_cpu_ms": round(1000 * (cpu1[1] - cpu0[1]) / n, 2),
    }
    for role, (a, b) in (("cache", (cache0, cache1)), ("broker", (broker0, broker1))):
        for f in ("commands", "bytes_in", "bytes_out"):
            out[f"{role}_{f}"] = round((b[f] - a[f]) / n, 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depths", default="8,12,16")
    ap.add_argument("--games", default="100,300")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--moves", type=int, default=3)
    ap.add_argument("--window", type=int, default=4)
    a = ap.parse_args()
    depths = [int(x) for x in a.depths.split(",")]
    games = [int(x) for x in a.games.split(",")]
    workers = [int(x) for x in a.workers.split(",")]
    base = (games[0], 12 if 12 in depths else depths[0], workers[-1])
    runs = [base]
    runs += [(games[0], d, workers[-1]) for d in depths if (games[0], d, workers[-1]) != base]
    runs += [(g, base[1], workers[-1]) for g in games[1:]]
    runs += [(games[0], base[1], w) for w in workers if w != workers[-1]]
    for g, d, w in runs:
        print(json.dumps(measure(g, a.moves, d, w, a.window)), flush=True)


if __name__ == "__main__":
    main()
