"""The distributed endgame-database build against the in-process one: starts a redis-server and N
Celery workers on loopback, builds a rule set's levels across them, times every level and compares
the files byte for byte with a directory built by ``griot egdb build --local``.

    python bench/egdb_across.py abapa --seeds 16 --workers 2 --chunks 8 --against /tmp/egdb-local

Prints one line a level (seconds, passes) and whether every file equals its in-process twin.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from griot.launcher import celery_worker_argv, free_port, redis_argv, with_parent_death

ROOT = Path(__file__).resolve().parents[1]


def _wait_for_redis(port: int, deadline: float) -> None:
    import redis

    client = redis.Redis(port=port)
    try:
        while time.monotonic() < deadline:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
    finally:
        client.close()
    raise RuntimeError(f"redis-server on {port} did not answer")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variant")
    ap.add_argument("--seeds", type=int, required=True)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chunks", type=int, default=8)
    ap.add_argument("--against", type=Path, help="a directory built with --local to compare with")
    ap.add_argument("--dir", type=Path, help="where to build (default: a new temporary directory)")
    args = ap.parse_args()

    port = free_port("127.0.0.1")
    redis_proc = subprocess.Popen(
        with_parent_death(redis_argv(port, "--protected-mode", "no")),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: list[subprocess.Popen[bytes]] = []
    directory = args.dir or Path(tempfile.mkdtemp(prefix="griot-egdb-across-"))
    env = {
        **os.environ,
        "GRIOT_BROKER_URL": f"redis://127.0.0.1:{port}/0",
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    try:
        _wait_for_redis(port, time.monotonic() + 30)
        os.environ.update(env)
        sys.path.insert(0, str(ROOT))
        from griot.egdb_build import build
        from griot.workers.app import make_app
        from griot.workers.config import Settings

        app = make_app(Settings.from_env())
        for k in range(args.workers):
            workers.append(
                subprocess.Popen(
                    with_parent_death(celery_worker_argv(f"egdb{k}@%h", "griot.interactive,griot.batch", 1)),
                    cwd=ROOT,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            )
        deadline = time.time() + 120
        while len(app.control.ping(timeout=0.5) or []) < args.workers:
            if time.time() > deadline:
                raise RuntimeError("the workers did not answer")
        started: dict[int, float] = {}
        t0 = time.monotonic()

        def progress(e: dict[str, Any]) -> None:
            if e["event"] == "started":
                started[e["seeds"]] = time.monotonic()
            elif e["event"] == "written":
                took = time.monotonic() - started[e["seeds"]]
                rate = e["positions"] / max(took, 1e-9)
                print(
                    f"level {e['seeds']:3}: {e['positions']:,} positions in {took:.2f} s "
                    f"({rate:,.0f}/s), {e['passes']} passes",
                    flush=True,
                )

        build(
            app, args.variant, args.seeds, directory, chunks=args.chunks, timeout=24 * 3600, progress=progress
        )
        took = time.monotonic() - t0
        print(f"levels 0-{args.seeds} across {args.workers} workers: {took:.1f} s", flush=True)
        if args.against:
            mine = sorted(directory.rglob("*.egdb"))
            same = all(p.read_bytes() == (args.against / p.relative_to(directory)).read_bytes() for p in mine)
            print(f"{len(mine)} files, byte-identical to {args.against}: {same}")
            return 0 if same else 1
        return 0
    finally:
        for w in workers:
            if w.poll() is None:
                os.killpg(w.pid, 15)
        for w in workers:
            try:
                w.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(w.pid, 9)
        redis_proc.terminate()
        redis_proc.wait(timeout=10)
        if args.dir is None:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
