"""Worker metrics for Prometheus under the prefork pool: ``prometheus_client`` multiprocess mode.

Why this and not Celery events + an exporter: the numbers that matter (nodes searched, cache
hits, search seconds) are known only inside the pool process that ran the search; multiprocess
mode lets every pool process write them to memory-mapped files in ``PROMETHEUS_MULTIPROC_DIR``
and the worker's main process serve their sum, with no event stream to run or lose.

Setup: :func:`prepare` runs when ``griot.workers.app`` is imported in the worker's main process, before
the pool forks, so ``PROMETHEUS_MULTIPROC_DIR`` is set before ``prometheus_client`` is imported
anywhere; the main process serves ``/metrics`` on ``GRIOT_WORKER_METRICS_PORT``; a pool process
that exits is marked dead (its live gauges drop out).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

_metrics: dict[str, Any] = {}


def prepare(port: int | None) -> None:
    """Points multiprocess mode at a fresh directory (before any ``prometheus_client`` import)."""
    if port is None:
        return
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not path:
        path = tempfile.mkdtemp(prefix="griot-worker-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = path
    else:
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path, exist_ok=True)


def serve(port: int, host: str = "127.0.0.1") -> None:
    """Serves the sum over pool processes on ``host`` (main process only)."""
    from prometheus_client import CollectorRegistry, multiprocess, start_http_server

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # unannotated upstream
    start_http_server(port, addr=host, registry=registry)


def process_dead(pid: int) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]  # unannotated upstream


def enabled() -> bool:
    return bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))


def get() -> dict[str, Any]:
    """The metric objects (created on first use, in the pool process)."""
    if not _metrics and enabled():
        from prometheus_client import Counter, Gauge, Histogram

        _metrics.update(
            tasks=Counter("griot_worker_tasks_total", "Tasks run", ["task", "outcome"]),
            seconds=Histogram(
                "griot_worker_task_seconds",
                "Task wall time",
                ["task"],
                buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300),
            ),
            nodes=Counter("griot_worker_nodes_total", "Search nodes visited", ["variant"]),
            cache=Counter("griot_worker_cache_total", "Transposition cache events", ["event"]),
            busy=Gauge("griot_worker_busy", "Pool processes running a search", multiprocess_mode="livesum"),
        )
    return _metrics
