"""Load benchmark of the rules service: concurrent clients on loopback playing random games.

Each client plays random games of several variants (all five seed games: the Awale collection and
Leb Bbut Ahbochen on the rule-file engine, Béchi, Ikibuguzo, Sabou'iyya) through ``ApplyMove``: the
next move is drawn from the response's ``legal_moves``, a finished game (or a failed call) restarts
from a start position fetched once, one call at a time (closed loop). After a warm-up, the benchmark
reports ApplyMove requests per second, p50/p99 latency and errors for each concurrency level, for
two load generators in turn:

- ``rust``: ``bench/rules-load`` (tonic, one thread by default), which leaves the server the CPU;
- ``python``: grpc.aio clients in ``--client-procs`` processes, the peer it is compared with.

It also reports what each call costs in CPU: the server's processes (read from ``/proc``) and the
load generator's, divided by the calls answered in the level (warm-up included). On a shared
machine these are steadier than requests per second.

    make rules-bench                                 # builds bench/rules-load, then this script
    python bench/rules_load.py                       # starts its own server, 1/16/64 clients
    python bench/rules_load.py --server-workers 2 --generators rust --duration 5
    python bench/rules_load.py --target 127.0.0.1:50051   # an already running server (no server CPU)

With several server workers every generator opens several connections (one per 8 clients by
default), because SO_REUSEPORT balances connections, not calls.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import random
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUST_DIR = ROOT / "bench" / "rules-load"
RUST_BIN = RUST_DIR / "target" / "release" / "rules-load"
DEFAULT_VARIANTS = [
    "awale",
    "abapa",
    "oware",
    "leb-bbut-ahbochen",
    "songo-duala",
    "2-4",
    "abapa(holes=4)",
    "bechi",
    "ikibuguzo",
    "sabouiyya",
]


@dataclass
class LevelResult:
    """The figures of one concurrency level with one load generator."""

    generator: str
    concurrency: int
    requests: int
    errors: int
    seconds: float
    p50_ms: float
    p99_ms: float
    #: Calls answered over the whole level, warm-up included (the CPU figures' denominator).
    answered: int
    server_cpu_s: float | None = None
    generator_cpu_s: float | None = None

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    def per_call_us(self, cpu_s: float | None) -> float | None:
        if cpu_s is None or self.answered == 0:
            return None
        return cpu_s / self.answered * 1e6


def percentile(sorted_values: list[float], q: float) -> float:
    """The nearest-rank percentile (as bench/rules-load computes it)."""
    if not sorted_values:
        return float("nan")
    rank = min(len(sorted_values), max(1, math.ceil(q * len(sorted_values))))
    return sorted_values[rank - 1]


# ---------------------------------------------------------------------------------------------
# CPU accounting from /proc


def _descendants(pid: int) -> list[int]:
    out = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for c in children:
            out.extend(_descendants(int(c)))
    return out


def process_tree_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and its descendants (live ones) so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for p in _descendants(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / ticks


def children_cpu_seconds() -> float:
    """CPU seconds of this process's waited-for children (the load generators)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# ---------------------------------------------------------------------------------------------
# The Python load generator (the peer)


async def _client_process_main(
    target: str, clients: int, duration: float, warmup: float, variants: list[str], seed: int, channels: int
) -> tuple[int, int, int, list[float]]:
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
    counts = [0, 0, 0]  # requests, errors, answered (warm-up included)
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
                counts[2] += 1
                if t0 >= t_measure:
                    counts[1] += 1
                position, moves = starts[rng.randrange(len(starts))]
                continue
            t1 = time.perf_counter()
            counts[2] += 1
            if t0 >= t_measure and t1 <= t_end:
                latencies.append((t1 - t0) * 1000)
                counts[0] += 1
            position, moves = resp.position.notation, list(resp.legal_moves)

    await asyncio.gather(*(one_client(i) for i in range(clients)))
    for c in chans:
        await c.close()
    return counts[0], counts[1], counts[2], latencies


def _client_process(
    args: tuple[str, int, float, float, list[str], int, int], out: multiprocessing.Queue
) -> None:  # type: ignore[type-arg]
    out.put(asyncio.run(_client_process_main(*args)))


def run_level_python(
    target: str, concurrency: int, procs: int, duration: float, warmup: float, variants: list[str]
) -> LevelResult:
    """Runs ``concurrency`` grpc.aio clients spread over ``procs`` processes."""
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
    lat = sorted(x for r in results for x in r[3])
    return LevelResult(
        "python",
        concurrency,
        requests=sum(r[0] for r in results),
        errors=sum(r[1] for r in results),
        seconds=duration,
        p50_ms=percentile(lat, 0.50),
        p99_ms=percentile(lat, 0.99),
        answered=sum(r[2] for r in results),
    )


# ---------------------------------------------------------------------------------------------
# The Rust load generator


def build_rust() -> Path:
    """Builds bench/rules-load (its own cargo workspace, release mode; a no-op when up to date)."""
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--manifest-path", str(RUST_DIR / "Cargo.toml")],
        check=True,
    )
    return RUST_BIN


def run_level_rust(
    target: str, concurrency: int, threads: int, duration: float, warmup: float, variants: list[str]
) -> LevelResult:
    """Runs ``concurrency`` clients in bench/rules-load."""
    cmd = [
        str(RUST_BIN),
        "--target",
        target,
        "--clients",
        str(concurrency),
        "--threads",
        str(threads),
        "--warmup",
        str(warmup),
        "--duration",
        str(duration),
        "--variants",
        ",".join(variants),
    ]
    proc = subprocess.run(cmd, check=True, capture_output=True, text=True)
    r = json.loads(proc.stdout)
    nan = float("nan")
    return LevelResult(
        "rust",
        concurrency,
        requests=r["requests"],
        errors=r["errors"],
        seconds=duration,
        p50_ms=r["p50_ms"] if r["p50_ms"] is not None else nan,
        p99_ms=r["p99_ms"] if r["p99_ms"] is not None else nan,
        answered=r["answered"],
    )


# ---------------------------------------------------------------------------------------------
# The server


def _free_port() -> int:
    """A loopback port outside the ephemeral range (see griot.launcher.free_port)."""
    from griot.launcher import free_port as pick

    return pick("127.0.0.1")


def start_server(
    workers: int, extra_args: list[str], extra_env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """Starts ``python -m griot.services.rules`` (with ``extra_env`` added to this process's environment)
    and waits until it answers health checks. In ``extra_env``, ``GRIOT_BENCH_ROOT`` serves another
    checkout's ``services`` (e.g. ``git archive HEAD`` unpacked somewhere, to A/B a change),
    ``GRIOT_BENCH_PYTHON`` runs the server with another interpreter (a venv with another grpcio)
    and ``GRIOT_BENCH_SERVER`` runs another module with the same flags (``grpc_floor_server``: a
    trivial grpc.aio server, the floor of a call's cost)."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    port = _free_port()
    root = Path((extra_env or {}).get("GRIOT_BENCH_ROOT", ROOT))
    env = {
        **os.environ,
        **(extra_env or {}),
        "PYTHONPATH": os.pathsep.join([str(root), str(ROOT / "bench"), os.environ.get("PYTHONPATH", "")]),
    }
    cmd = [
        env.get("GRIOT_BENCH_PYTHON", sys.executable),
        "-m",
        env.get("GRIOT_BENCH_SERVER", "griot.services.rules"),
        "--port",
        str(port),
        "--metrics-port",
        "off",
        "--workers",
        str(workers),
        "--log-level",
        "WARNING",
        *extra_args,
    ]
    proc = subprocess.Popen(cmd, cwd=root, env=env)
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


def _fmt(x: float | None, digits: int = 0) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--target", help="host:port of a running server (default: start one)")
    parser.add_argument("--server-workers", type=int, default=2, help="server processes when starting one")
    parser.add_argument(
        "--server-arg", action="append", default=[], help="an extra flag for the server (repeatable)"
    )
    parser.add_argument(
        "--generators", default="rust,python", help="load generators to run in turn: rust, python"
    )
    parser.add_argument("--client-procs", type=int, default=2, help="processes of the Python generator")
    parser.add_argument("--rust-threads", type=int, default=1, help="threads of the Rust generator")
    parser.add_argument("--concurrency", default="1,16,64", help="comma-separated client counts")
    parser.add_argument("--duration", type=float, default=5.0, help="measured seconds per level")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds before each level")
    parser.add_argument("--variants", default=",".join(DEFAULT_VARIANTS))
    args = parser.parse_args()

    generators = [g.strip() for g in args.generators.split(",") if g.strip()]
    unknown = set(generators) - {"rust", "python"}
    if unknown:
        parser.error(f"--generators: unknown {sorted(unknown)}; choose from rust, python")
    if "rust" in generators:
        build_rust()
    proc = None
    target = args.target
    if target is None:
        proc, target = start_server(args.server_workers, args.server_arg)
    variants = args.variants.split(",")
    try:
        print(
            f"# rules_load: target={target} server_workers={args.server_workers if proc else '?'} "
            f"server_args={args.server_arg} client_procs={args.client_procs} "
            f"rust_threads={args.rust_threads} warmup={args.warmup}s duration={args.duration}s "
            f"variants={len(variants)} cpus={os.cpu_count()} loadavg={os.getloadavg()[0]:.2f}"
        )
        print(
            f"{'generator':>9} {'clients':>7} {'requests':>9} {'errors':>6} {'req/s':>7} "
            f"{'p50 ms':>7} {'p99 ms':>7} {'server CPU us/call':>18} {'generator CPU us/call':>21}"
        )
        for c in [int(x) for x in args.concurrency.split(",")]:
            for g in generators:
                server0 = process_tree_cpu_seconds(proc.pid) if proc else None
                gen0 = children_cpu_seconds()
                if g == "rust":
                    r = run_level_rust(target, c, args.rust_threads, args.duration, args.warmup, variants)
                else:
                    r = run_level_python(target, c, args.client_procs, args.duration, args.warmup, variants)
                if proc is not None and server0 is not None:
                    r.server_cpu_s = process_tree_cpu_seconds(proc.pid) - server0
                r.generator_cpu_s = children_cpu_seconds() - gen0
                print(
                    f"{g:>9} {c:>7} {r.requests:>9} {r.errors:>6} {r.rps:>7.0f} "
                    f"{r.p50_ms:>7.2f} {r.p99_ms:>7.2f} {_fmt(r.per_call_us(r.server_cpu_s)):>18} "
                    f"{_fmt(r.per_call_us(r.generator_cpu_s)):>21}",
                    flush=True,
                )
        print(f"# loadavg at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
