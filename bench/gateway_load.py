"""Load on the analysis gateway: N concurrent live games, and whole-game analysis throughput.

    python bench/gateway_load.py live --games 100 --moves 4 --depth 12
    python bench/gateway_load.py live --games 1000 --moves 3 --depth 12
    python bench/gateway_load.py games --games 6 --plies 40 --depth 9
    python bench/gateway_load.py live --games 1000 --moves 3 --depth 14 --warm
    python bench/gateway_load.py echo --games 1000 --moves 3 --replies 2

By default the tool starts its own stack on loopback (two redis-servers, ``--workers`` Celery
workers with one pool process each, one gateway) and stops it afterwards; ``--gateway HOST:PORT``
uses a running one instead (then CPU figures are not measured).

live: every game is one ``LiveSession`` stream (its own ``x-client-id``, so fair share sees N
clients); it sends its start position, then plays ``--moves`` random moves (seeded per game, so
games share openings as real ones do), each time waiting for the final evaluation at ``--depth``.
Latency is from sending an update to its final evaluation. CPU is read from /proc: the gateway's
process against the worker processes and their pool children (the engine).

``--warm`` plays the same games a second time once the first pass is over (new streams, the
same positions): every update is then answered from the cache, so its ``warm`` figures are the
gateway's CPU per cached evaluation, with no search, dispatch or result message in it.

echo: the same streams and updates against ``bench/grpc_echo.py``, a ``grpc.aio`` server that
answers each update with ``--replies`` messages and does nothing else: gRPC-Python's own CPU per
evaluation on this machine, the floor under the gateway's.

games: analyses random games through ``AnalyzeGame`` (empty cache), then searches the same
positions with the engine in-process, one process per worker (``multiprocessing``), with the same
depth and every move scored: positions per second for both.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import griot
import grpc
from griot.client import search_limits
from griot.launcher import celery_worker_argv, redis_argv
from griot.v1 import analysis_pb2, analysis_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ["abapa", "awale", "bechi", "oware"]
TICK = os.sysconf("SC_CLK_TCK")


def child_path() -> str:
    """``PYTHONPATH`` for the processes the tool starts: this checkout (its ``python/`` too when
    it holds a built core, so a worktree's ``griot`` package is the one run, not the installed
    one), then the caller's own."""
    paths = [str(ROOT)]
    if any((ROOT / "python" / "griot").glob("_core*.so")):
        paths.insert(0, str(ROOT / "python"))
    return os.pathsep.join([*paths, *filter(None, [os.environ.get("PYTHONPATH")])])


def free_port() -> int:
    """A loopback port outside the ephemeral range (see griot.launcher.free_port)."""
    from griot.launcher import free_port as pick

    return pick("127.0.0.1")


# ---------------------------------------------------------------------------------------------
# CPU accounting from /proc


def _stat(pid: int) -> tuple[int, float] | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK  # ppid, utime + stime


def cpu_of_tree(root: int) -> float:
    """CPU seconds of a process and its live descendants."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _stat(int(entry))
            if st is not None:
                parents[int(entry)], cpu[int(entry)] = st
    total = 0.0
    for pid, c in cpu.items():
        p = pid
        while p and p != root:
            p = parents.get(p, 0)
        if p == root:
            total += c
    return total


# ---------------------------------------------------------------------------------------------
# The stack


class LocalStack:
    def __init__(self, workers: int, window: int, gateway_args: list[str]) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="griot-load-"))
        self.procs: list[subprocess.Popen[bytes]] = []
        self.broker, self.cache, self.gw_port = free_port(), free_port(), free_port()
        self.env = {
            **os.environ,
            "GRIOT_BROKER_URL": f"redis://127.0.0.1:{self.broker}/0",
            "GRIOT_CACHE_URL": f"redis://127.0.0.1:{self.cache}/0",
            "GRIOT_QUEUES": "",
            "GRIOT_HASH_MB": "16",
            "PYTHONPATH": child_path(),
        }
        for port, extra in (
            (self.broker, []),
            (self.cache, ["--maxmemory", "256mb", "--maxmemory-policy", "allkeys-lru"]),
        ):
            self._spawn(
                redis_argv(port, *extra),
                f"redis-{port}",
            )
        time.sleep(0.5)
        self.workers = [
            self._spawn(
                celery_worker_argv(f"load{i}@%h", "griot.interactive,griot.batch", loglevel="WARNING"),
                f"worker-{i}",
            )
            for i in range(workers)
        ]
        self.gateway = self._spawn(
            [
                sys.executable,
                "-m",
                "griot.services.gateway",
                "--port",
                str(self.gw_port),
                "--metrics-port",
                "off",
                "--window",
                str(window),
                "--log-level",
                "WARNING",
                *gateway_args,
            ],
            "gateway",
        )
        self.target = f"127.0.0.1:{self.gw_port}"
        from griot.launcher import grpc_health

        end = time.time() + 60
        while grpc_health(self.target, "griot.v1.AnalysisService") != "SERVING":
            if time.time() > end:
                raise RuntimeError(f"gateway not up; logs in {self.dir}")
            time.sleep(0.2)
        time.sleep(3)  # workers ready

    def _spawn(self, argv: list[str], name: str) -> subprocess.Popen[bytes]:
        p = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=self.env,
            stdout=open(self.dir / f"{name}.log", "wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.procs.append(p)
        return p

    def cpu(self) -> tuple[float, float]:
        """(gateway CPU s, workers' CPU s incl. pool processes)."""
        return cpu_of_tree(self.gateway.pid), sum(cpu_of_tree(w.pid) for w in self.workers)

    def flush(self) -> None:
        import redis

        redis.Redis(port=self.cache).flushdb()

    def stop(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        if not os.environ.get("GRIOT_LOAD_KEEP_LOGS"):
            shutil.rmtree(self.dir, ignore_errors=True)
        else:
            print(f"logs in {self.dir}", file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# Live games


def percentile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def live_game(stub: Any, index: int, moves: int, depth: int, out: dict[str, Any]) -> None:
    rng = random.Random(index // 3)  # three games in a row play the same moves: shared positions
    variant = VARIANTS[index % len(VARIANTS)]
    pos = griot.Variant(variant).start()
    updates: asyncio.Queue[analysis_pb2.LiveSessionRequest | None] = asyncio.Queue()
    limits = search_limits(max_depth=depth)
    await updates.put(analysis_pb2.LiveSessionRequest(update_id=1, position=str(pos), limits=limits))

    async def requests():  # type: ignore[no-untyped-def]
        while True:
            u = await updates.get()
            if u is None:
                return
            yield u

    sent_at = time.perf_counter()
    update_id = 1
    played = 0
    call = stub.LiveSession(requests(), metadata=[("x-client-id", f"game-{index}")], timeout=600)
    try:
        async for msg in call:
            out["messages"] += 1
            if not msg.HasField("evaluation"):
                out["bare"] += 1
            elif not msg.evaluation.final:
                out["depths"] += 1
            if msg.update_id != update_id or not msg.HasField("evaluation") or not msg.evaluation.final:
                if msg.HasField("outcome") and msg.update_id == update_id:
                    break
                continue
            out["latency"].append(time.perf_counter() - sent_at)
            out["cached"] += msg.evaluation.from_cache
            out["evaluations"] += 1
            if played >= moves:
                break
            legal = pos.legal_moves()
            if not legal:
                break
            move = rng.choice(legal)
            pos = pos.play(move)
            played += 1
            update_id += 1
            sent_at = time.perf_counter()
            await updates.put(analysis_pb2.LiveSessionRequest(update_id=update_id, move=move.text))
        await updates.put(None)
    except grpc.aio.AioRpcError as e:
        out["errors"].append(f"{e.code().name}: {e.details()}")
    finally:
        call.cancel()


async def run_live(target: str, games: int, moves: int, depth: int, channels: int) -> dict[str, Any]:
    chans = [
        grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(channels)
    ]
    stubs = [analysis_pb2_grpc.AnalysisServiceStub(c) for c in chans]
    out: dict[str, Any] = {"latency": [], "errors": [], "cached": 0, "evaluations": 0}
    out.update(messages=0, bare=0, depths=0)
    start = time.perf_counter()
    await asyncio.gather(*(live_game(stubs[i % channels], i, moves, depth, out) for i in range(games)))
    out["seconds"] = time.perf_counter() - start
    for c in chans:
        await c.close()
    return out


# ---------------------------------------------------------------------------------------------
# Whole games


def random_game(variant: str, plies: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pos = griot.Variant(variant).start()
    moves = []
    for _ in range(plies):
        legal = pos.legal_moves()
        if not legal:
            break
        m = rng.choice(legal)
        moves.append(m.text)
        pos = pos.play(m)
        if not pos.legal_moves():
            break
    return moves


def _engine(args: tuple[str, int]) -> int:
    pos, depth = args
    return griot.search(griot.Position(pos), depth=depth, multipv=0).nodes


async def run_games(target: str, games: int, plies: int, depth: int) -> dict[str, Any]:
    jobs = [
        (VARIANTS[i % len(VARIANTS)], random_game(VARIANTS[i % len(VARIANTS)], plies, 1000 + i))
        for i in range(games)
    ]
    async with grpc.aio.insecure_channel(target) as ch:
        stub = analysis_pb2_grpc.AnalysisServiceStub(ch)

        async def one(variant: str, moves: list[str]) -> int:
            req = analysis_pb2.AnalyzeGameRequest(
                moves=analysis_pb2.GameMoves(variant=variant, moves=moves),
                limits=search_limits(max_depth=depth),
            )
            n = 0
            async for msg in stub.AnalyzeGame(req, timeout=1200):
                if msg.HasField("report"):
                    n = len(msg.report.turns)
            return n

        start = time.perf_counter()
        counts = await asyncio.gather(*(one(v, m) for v, m in jobs))
        gw_seconds = time.perf_counter() - start
    positions = []
    for variant, moves in jobs:
        pos = griot.Variant(variant).start()
        for m in moves:
            positions.append((str(pos), depth))
            pos = pos.play(m)
    return {"positions": sum(counts), "gateway_seconds": gw_seconds, "engine_positions": positions}


def engine_throughput(positions: list[tuple[str, int]], processes: int) -> float:
    import multiprocessing

    start = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        pool.map(_engine, positions, chunksize=1)
    return len(positions) / (time.perf_counter() - start)


# ---------------------------------------------------------------------------------------------


class EchoServer:
    """``bench/grpc_echo.py`` in its own process."""

    def __init__(self, replies: int) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "bench" / "grpc_echo.py"),
                "--port",
                str(self.port),
                "--replies",
                str(replies),
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": child_path()},
            start_new_session=True,
        )
        self.target = f"127.0.0.1:{self.port}"
        ch = grpc.insecure_channel(self.target)
        try:
            grpc.channel_ready_future(ch).result(timeout=30)
        except grpc.FutureTimeoutError:
            self.stop()
            raise RuntimeError("bench/grpc_echo.py did not start") from None
        finally:
            ch.close()

    def cpu(self) -> float:
        return cpu_of_tree(self.proc.pid)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait(timeout=20)


def live_report(r: dict[str, Any]) -> dict[str, Any]:
    lat = r["latency"]
    return {
        "evaluations": r["evaluations"],
        "seconds": round(r["seconds"], 2),
        "throughput_per_s": round(r["evaluations"] / r["seconds"], 1),
        "p50_ms": round(1000 * percentile(lat, 0.5), 1),
        "p95_ms": round(1000 * percentile(lat, 0.95), 1),
        "p99_ms": round(1000 * percentile(lat, 0.99), 1),
        "errors": len(r["errors"]),
        "error_samples": r["errors"][:3],
        "cache_hit_rate": round(r["cached"] / max(1, r["evaluations"]), 3),
        "messages_per_evaluation": round(r["messages"] / max(1, r["evaluations"]), 2),
        # Of which: messages without an evaluation (acknowledgements) and non-final depths.
        "bare_per_evaluation": round(r["bare"] / max(1, r["evaluations"]), 2),
        "depths_per_evaluation": round(r["depths"] / max(1, r["evaluations"]), 2),
    }


def run_echo(a: argparse.Namespace) -> dict[str, Any]:
    server = EchoServer(a.replies)
    try:
        time.sleep(0.5)
        cpu0 = server.cpu()
        r = asyncio.run(run_live(server.target, a.games, a.moves, a.depth, a.channels))
        cpu = server.cpu() - cpu0
    finally:
        server.stop()
    report = {"games": a.games, "moves": a.moves, "replies": a.replies, **live_report(r)}
    report.update(
        server_cpu_s=round(cpu, 2),
        server_cpu_ms_per_evaluation=round(1000 * cpu / max(1, r["evaluations"]), 3),
    )
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["live", "games", "echo"])
    ap.add_argument("--gateway", help="use a running gateway (no CPU figures)")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--moves", type=int, default=4, help="live: moves each game plays")
    ap.add_argument("--plies", type=int, default=40, help="games: plies of each random game")
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--workers", type=int, default=2, help="Celery workers started (one pool process each)")
    ap.add_argument("--window", type=int, default=4)
    ap.add_argument("--channels", type=int, default=8)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--warm", action="store_true", help="live: play the same games again (all cached)")
    ap.add_argument("--replies", type=int, default=2, help="echo: messages per update")
    a = ap.parse_args()
    if a.mode == "echo":
        print(json.dumps(run_echo(a), indent=None if a.json else 2))
        return
    stack = None if a.gateway else LocalStack(a.workers, a.window, [])
    target = a.gateway or stack.target  # type: ignore[union-attr]
    try:
        time.sleep(1.5)  # the gateway flushes its counters every second
        cpu0 = stack.cpu() if stack else (0.0, 0.0)
        if a.mode == "live":
            r = asyncio.run(run_live(target, a.games, a.moves, a.depth, a.channels))
            cpu1 = stack.cpu() if stack else (0.0, 0.0)
            time.sleep(1.5)
            report = {"games": a.games, "moves": a.moves, "depth": a.depth, **live_report(r)}
            if a.warm:
                # The same games again: every position is in the cache now.
                w0 = stack.cpu() if stack else (0.0, 0.0)
                w = asyncio.run(run_live(target, a.games, a.moves, a.depth, a.channels))
                w1 = stack.cpu() if stack else (0.0, 0.0)
                warm = live_report(w)
                if stack:
                    warm.update(
                        gateway_cpu_s=round(w1[0] - w0[0], 2),
                        workers_cpu_s=round(w1[1] - w0[1], 2),
                        gateway_cpu_ms_per_evaluation=round(
                            1000 * (w1[0] - w0[0]) / max(1, w["evaluations"]), 3
                        ),
                    )
                report["warm"] = warm
        else:
            r = asyncio.run(run_games(target, a.games, a.plies, a.depth))
            cpu1 = stack.cpu() if stack else (0.0, 0.0)
            engine = engine_throughput(r["engine_positions"], a.workers)
            report = {
                "games": a.games,
                "depth": a.depth,
                "positions": r["positions"],
                "gateway_seconds": round(r["gateway_seconds"], 2),
                "gateway_positions_per_s": round(r["positions"] / r["gateway_seconds"], 1),
                "engine_positions_per_s": round(engine, 1),
                "engine_processes": a.workers,
            }
        if stack:
            import redis

            stats = redis.Redis(port=stack.cache).hgetall("griot:gateway:stats")
            report["gateway_stats"] = {k.decode(): int(v) for k, v in sorted(stats.items())}
            gw, eng = cpu1[0] - cpu0[0], cpu1[1] - cpu0[1]
            done = report.get("evaluations") or report.get("positions") or 1
            report.update(
                gateway_cpu_s=round(gw, 2),
                workers_cpu_s=round(eng, 2),
                gateway_cpu_ms_per_evaluation=round(1000 * gw / done, 2),
                gateway_cpu_pct_of_engine=round(100 * gw / eng, 1) if eng else None,
            )
        print(json.dumps(report, indent=None if a.json else 2))
    finally:
        if stack:
            stack.stop()


if __name__ == "__main__":
    main()
