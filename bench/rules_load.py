"""Load benchmark of the rules service: concurrent clients on loopback playing random games.

Each client plays random games of several variants through ``ApplyMove`` (the next move is drawn from
the response's ``legal_moves``; a finished game restarts from a start position fetched once), one
call at a time. The benchmark reports ApplyMove requests per second and p50/p99 latency for each
concurrency level.

    python bench/rules_load.py                       # starts its own server, 1/16/64 clients
    python bench/rules_load.py --server-workers 2 --client-procs 2 --duration 5
    python bench/rules_load.py --target 127.0.0.1:50051   # an already running server

Load generation costs CPU too: with ``--client-procs P`` the clients are spread over P processes,
each with its own connections, so that the SO_REUSEPORT kernel balancing reaches every server worker.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_VARIANTS = ["awale", "abapa", "oware", "leb-bbut-ahbochen", "songo-duala", "2-4", "abapa(holes=4)"]


@dataclass
class LevelResult:
    """The figures of one concurrency level."""

    concurrency: int
    requests: int
    errors: int
    seconds: float
    latencies_ms: list[float]

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    def percentile(self, q: float) -> float:
        if not self.latencies_ms:
            return float("nan")
        return statistics.quantiles(self.latencies_ms, n=1000, method="inclusive")[int(q * 1000) - 1]


async def _client_process_main(
    target: str, clients: int, duration: float, warmup: float, variants: list[str], seed: int, channels: int
) -> tuple[int, int, list[float]]:
    import grpc
    from griot.v1 import rules_pb2, rules_pb2_grpc

    # A local subchannel pool gives each channel its own TCP connection (SO_REUSEPORT balances
    # connections, not calls).
    opts = [("grpc.use_local_subchannel_pool", 1)]
    chans = [grpc.aio.insecure_channel(target, options=opts) for _ in range(max(1, channels))]
    stubs = [rules_pb2_grpc.RulesServiceStub(c) for c in chans]
    starts = []
    for v in variants:
        resp = await stubs[0].StartPosition(rules_pb2.StartPositionRequest(variant=v))
        starts.append((resp.position.notation, list(resp.legal_moves)))

    latencies: list[float] = []
    counts = [0, 0]  # requests, errors
    t_start = time.perf_counter()
    t_measure = t_start + warmup
    t_end = t_measure + duration

    async def one_client(i: int) -> None:
        rng = random.Random(seed * 1000 + i)
        stub = stubs[i % len(stubs)]
        position, moves = starts[rng.randrange(len(starts))]
        while True:
            now = time.perf_counter()
            if now >= t_end:
                return
            if not moves:
                position, moves = starts[rng.randrange(len(starts))]
            req = rules_pb2.ApplyMoveRequest(position=position, move=rng.choice(moves))
            t0 = time.perf_counter()
            try:
                resp = await stub.ApplyMove(req, timeout=5)
            except grpc.RpcError:
                if t0 >= t_measure:
                    counts[1] += 1
                position, moves = starts[rng.randrange(len(starts))]
                continue
            t1 = time.perf_counter()
            if t0 >= t_measure and t1 <= t_end:
                latencies.append((t1 - t0) * 1000)
                counts[0] += 1
            position, moves = resp.position.notation, list(resp.legal_moves)

    await asyncio.gather(*(one_client(i) for i in range(clients)))
    for c in chans:
        await c.close()
    return counts[0], counts[1], latencies


def _client_process(
    args: tuple[str, int, float, float, list[str], int, int], out: multiprocessing.Queue
) -> None:  # type: ignore[type-arg]
    out.put(asyncio.run(_client_process_main(*args)))


def run_level(
    target: str, concurrency: int, procs: int, duration: float, warmup: float, variants: list[str]
) -> LevelResult:
    """Runs ``concurrency`` clients spread over ``procs`` processes for ``duration`` seconds."""
    procs = max(1, min(procs, concurrency))
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    shares = [concurrency // procs + (1 if i < concurrency % procs else 0) for i in range(procs)]
    workers = []
    for i, n in enumerate(shares):
        channels = max(1, n // 8)
        p = ctx.Process(
            target=_client_process, args=((target, n, duration, warmup, variants, i, channels), out)
        )
        p.start()
        workers.append(p)
    results = [out.get() for _ in workers]
    for p in workers:
        p.join()
    lat = [x for r in results for x in r[2]]
    return LevelResult(concurrency, sum(r[0] for r in results), sum(r[1] for r in results), duration, lat)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(workers: int) -> tuple[subprocess.Popen[bytes], str]:
    """Starts ``python -m services.rules`` and waits until it answers health checks."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cmd = [
        sys.executable,
        "-m",
        "services.rules",
        "--port",
        str(port),
        "--metrics-port",
        "off",
        "--workers",
        str(workers),
        "--log-level",
        "WARNING",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
    target = f"127.0.0.1:{port}"
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            with grpc.insecure_channel(target) as ch:
                resp = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=1)
                if resp.status == health_pb2.HealthCheckResponse.SERVING:
                    time.sleep(0.5 * workers)  # let every worker bind
                    return proc, target
        except grpc.RpcError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the rules service did not start")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--target", help="host:port of a running server (default: start one)")
    parser.add_argument("--server-workers", type=int, default=2, help="server processes when starting one")
    parser.add_argument("--client-procs", type=int, default=2, help="load-generator processes")
    parser.add_argument("--concurrency", default="1,16,64", help="comma-separated client counts")
    parser.add_argument("--duration", type=float, default=5.0, help="measured seconds per level")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds before each level")
    parser.add_argument("--variants", default=",".join(DEFAULT_VARIANTS))
    args = parser.parse_args()

    proc = None
    target = args.target
    if target is None:
        proc, target = start_server(args.server_workers)
    variants = args.variants.split(",")
    try:
        print(
            f"# rules_load: target={target} server_workers={args.server_workers if proc else '?'} "
            f"client_procs={args.client_procs} duration={args.duration}s variants={len(variants)} "
            f"cpus={os.cpu_count()}"
        )
        print(f"{'clients':>8} {'requests':>9} {'errors':>7} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}")
        for c in [int(x) for x in args.concurrency.split(",")]:
            r = run_level(target, c, args.client_procs, args.duration, args.warmup, variants)
            print(
                f"{c:>8} {r.requests:>9} {r.errors:>7} {r.rps:>9.0f} "
                f"{r.percentile(0.5):>8.2f} {r.percentile(0.99):>8.2f}",
                flush=True,
            )
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
