"""Search work to the Celery workers: prioritised, fair per client, bounded, cancellable.

The gateway never queues without bound at the broker. It keeps at most ``window`` search tasks at
the workers (sent, not finished); everything else waits here, in one FIFO per client and priority:

- **priority**: interactive work (a person waiting) is always sent before batch work, and batch
  work never takes the last ``interactive_reserve`` slots of the window, so a person's request
  waits at most for one running task to finish. Each goes to its own Celery queue
  (``griot.interactive`` / ``griot.batch``, the workers' queues);
- **fair share**: within a priority, clients are served round-robin, one search each in turn, so a
  client with a thousand searches waiting delays another client's one search by at most one task;
- **bounds**: more than ``max_pending`` searches waiting in all, or ``max_pending_per_client`` for one
  client, fail at once with ``RESOURCE_EXHAUSTED`` (``overloaded`` / ``quota``) and a retry hint: the
  time the current backlog takes to drain at the measured completion rate;
- **results** are read by one poller for every task (one ``MGET`` of the result keys per tick, the
  workers' polling result backend, no pub/sub per task) and deleted once read; a task sent with
  ``progress`` also has its progress key in that ``MGET``, and each depth it newly lists goes to
  the search's ``on_progress`` before the result;
- **cancellation**: a search nobody waits for any more is dropped from its queue here, or, if sent,
  revoked and given the workers' cancel key (``griot:cancel:<task id>``) so the running search stops
  (:func:`workers.distributed.cancel`); tasks carry the caller's deadline (``expires`` + the
  task's own ``deadline`` argument), so a search nobody can use is never started.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from celery import Celery
from griot.redis_keys import progress_key
from griot.status import StatusError

from services.gateway.config import GatewayConfig
from services.gateway.metrics import GatewayMetrics

log = logging.getLogger("griot.gateway.dispatch")

INTERACTIVE, BATCH = 0, 1
PRIORITY_NAMES = ("interactive", "batch")
RETRY_POLICY = {"max_retries": 2, "interval_start": 0.05, "interval_step": 0.2, "interval_max": 0.5}


@dataclass(eq=False)
class Search:
    """One search task, waiting here, running at a worker, or done (``future``)."""

    task: str
    kwargs: dict[str, Any]
    priority: int
    client: str
    deadline: float | None
    future: asyncio.Future[dict[str, Any]]
    submitted: float = field(default_factory=time.monotonic)
    task_id: str | None = None
    sent_at: float = 0.0
    #: Called with each newly completed depth (a task's progress entry) before the result; set
    #: for tasks sent with ``progress=True`` (:func:`griot.redis_keys.progress_key`).
    on_progress: Callable[[dict[str, Any]], None] | None = None
    progress_seen: int = 0


def overloaded(retry_after: float) -> StatusError:
    return StatusError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "overloaded",
        f"the gateway is saturated: retry in {retry_after:.0f} s",
        retry_after=retry_after,
    )


def quota(message: str, retry_after: float) -> StatusError:
    return StatusError(grpc.StatusCode.RESOURCE_EXHAUSTED, "quota", message, retry_after=retry_after)


class Dispatcher:
    """Sends searches to the workers (see the module header). Runs in the server's event loop."""

    def __init__(self, app: Celery, config: GatewayConfig, metrics: GatewayMetrics, results: Any) -> None:
        self.app = app
        self.config = config
        self.metrics = metrics
        self.results = results  # redis.asyncio client of the result backend
        self.queues = (config.interactive_queue, config.batch_queue)
        self.waiting: list[OrderedDict[str, deque[Search]]] = [OrderedDict(), OrderedDict()]
        self.pending = 0
        self.pending_by_client: Counter[str] = Counter()
        self.running: dict[str, Search] = {}
        self.running_batch = 0
        self._wake = asyncio.Event()
        self._rate = 0.0  # completions per second (EWMA)
        self._last_done = time.monotonic()
        self._recent_run: deque[float] = deque(maxlen=16)
        self._task: asyncio.Task[None] | None = None
        self._stale: list[str] = []  # progress keys of cancelled tasks, deleted at the next poll

    # -- the caller's side -----------------------------------------------------------------------

    def retry_after(self) -> float:
        """Seconds the backlog needs to drain at the measured rate (1 to 60)."""
        backlog = self.pending + len(self.running)
        rate = max(self._rate, 0.5)
        return float(min(60.0, max(1.0, backlog / rate)))

    def submit(
        self, task: str, kwargs: dict[str, Any], priority: int, client: str, deadline: float | None
    ) -> Search:
        """Queues a search; raises ``RESOURCE_EXHAUSTED`` when the bounds are reached."""
        if self.pending >= self.config.max_pending:
            self.metrics.rejected.labels("overloaded").inc()
            self.metrics.count("rejected")
            raise overloaded(self.retry_after())
        if self.pending_by_client[client] >= self.config.max_pending_per_client:
            self.metrics.rejected.labels("quota").inc()
            self.metrics.count("rejected")
            raise quota(
                f"{self.pending_by_client[client]} searches of yours are waiting already "
                f"(at most {self.config.max_pending_per_client})",
                self.retry_after(),
            )
        s = Search(task, kwargs, priority, client, deadline, asyncio.get_running_loop().create_future())
        self.waiting[priority].setdefault(client, deque()).append(s)
        self.pending += 1
        self.pending_by_client[client] += 1
        self.metrics.queue_depth.labels(PRIORITY_NAMES[priority]).inc()
        self._wake.set()
        return s

    async def wait(self, s: Search) -> dict[str, Any]:
        """The task's result; cancelling the caller cancels the search."""
        try:
            return await s.future
        except asyncio.CancelledError:
            self.cancel(s)
            raise

    async def run_search(
        self, task: str, kwargs: dict[str, Any], priority: int, client: str, deadline: float | None
    ) -> dict[str, Any]:
        return await self.wait(self.submit(task, kwargs, priority, client, deadline))

    def promote(self, s: Search) -> None:
        """Moves a batch search still waiting here to the interactive queue (a person joined it)."""
        if s.priority != BATCH or s.task_id is not None:
            return
        q = self.waiting[BATCH].get(s.client)
        if q is None or s not in q:
            return
        q.remove(s)
        if not q:
            del self.waiting[BATCH][s.client]
        self.metrics.queue_depth.labels("batch").dec()
        self.metrics.queue_depth.labels("interactive").inc()
        s.priority = INTERACTIVE
        self.waiting[INTERACTIVE].setdefault(s.client, deque()).append(s)
        self._wake.set()

    def cancel(self, s: Search) -> None:
        """Drops a waiting search, or revokes a sent one and asks its worker to stop it."""
        if s.task_id is None:
            q = self.waiting[s.priority].get(s.client)
            if q is not None and s in q:
                q.remove(s)
                if not q:
                    del self.waiting[s.priority][s.client]
                self._unpend(s)
        elif self.running.pop(s.task_id, None) is not None:
            self._finish_running(s)
            self.metrics.tasks.labels("cancelled").inc()
            self.metrics.count("tasks_cancelled")
            from workers.distributed import cancel

            cancel(self.app, [s.task_id])
            if s.on_progress is not None:
                self._stale.append(progress_key(s.task_id))
        if not s.future.done():
            s.future.cancel()

    # -- the loop --------------------------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="gateway-dispatch")

    async def close(self) -> None:
        for s in list(self.running.values()):
            self.cancel(s)
        for prio in self.waiting:
            for q in prio.values():
                for s in q:
                    if not s.future.done():
                        s.future.cancel()
            prio.clear()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass

    async def _loop(self) -> None:
        while True:
            try:
                self._dispatch()
                if self.running:
                    await self._poll()
                    self._expire()
                    await asyncio.sleep(self._interval())
                else:
                    self._wake.clear()
                    if not self.pending:
                        await asyncio.wait_for(self._wake.wait(), timeout=1.0)
            except TimeoutError:
                continue
            except asyncio.CancelledError:
                raise
            except Exception as e:  # Redis or the broker failed: fail nothing yet, try again
                log.warning("dispatch loop: %s: %s", type(e).__name__, e)
                await asyncio.sleep(0.2)

    def _interval(self) -> float:
        """5 % of a typical task's run time, between 4 and 25 ms: a poll costs the gateway CPU,
        a late one costs the caller latency."""
        if not self._recent_run:
            return 0.005
        run = sorted(self._recent_run)[len(self._recent_run) // 2]
        return min(0.025, max(0.004, 0.05 * run))

    def _next(self, batch_allowed: bool) -> Search | None:
        for prio in (INTERACTIVE, BATCH):
            if prio == BATCH and not batch_allowed:
                return None
            clients = self.waiting[prio]
            if clients:
                client, q = next(iter(clients.items()))
                s = q.popleft()
                if q:
                    clients.move_to_end(client)
                else:
                    del clients[client]
                return s
        return None

    def _dispatch(self) -> None:
        window = self.config.window
        batch_slots = max(1, window - self.config.interactive_reserve)
        while len(self.running) < window:
            s = self._next(batch_allowed=self.running_batch < batch_slots)
            if s is None:
                return
            self._unpend(s)
            if s.future.done():
                continue
            now = time.time()
            if s.deadline is not None and now >= s.deadline:
                s.future.set_exception(deadline_exceeded())
                continue
            expires = dt.datetime.fromtimestamp(s.deadline, tz=dt.UTC) if s.deadline is not None else None
            try:
                r = self.app.send_task(
                    s.task,
                    kwargs=dict(s.kwargs, deadline=s.deadline),
                    queue=self.queues[s.priority],
                    expires=expires,
                    retry=True,
                    retry_policy=RETRY_POLICY,
                )
            except Exception as e:
                log.warning("cannot send a search task: %s", e)
                s.future.set_exception(
                    StatusError(
                        grpc.StatusCode.UNAVAILABLE, "workers_unavailable", f"cannot reach the broker: {e}"
                    )
                )
                continue
            s.task_id = r.id
            s.sent_at = time.monotonic()
            self.running[r.id] = s
            if s.priority == BATCH:
                self.running_batch += 1
            self.metrics.in_flight.inc()
            self.metrics.tasks.labels("sent").inc()
            self.metrics.count("tasks_sent")

    async def _poll(self) -> None:
        ids = list(self.running)
        backend = self.app.backend
        watched = [i for i in ids if self.running[i].on_progress is not None]
        raw = await self.results.mget(
            [backend.get_key_for_task(i) for i in ids] + [progress_key(i) for i in watched]
        )
        done_keys = []
        for task_id, value in zip(watched, raw[len(ids) :], strict=True):
            if value is not None:
                self._progress(self.running[task_id], value)
        now = time.monotonic()
        for task_id, value in zip(ids, raw[: len(ids)], strict=True):
            if value is None:
                continue
            meta = json.loads(value)
            status = meta.get("status")
            if status not in ("SUCCESS", "FAILURE", "REVOKED"):
                continue
            done_keys.append(backend.get_key_for_task(task_id))
            s = self.running.pop(task_id, None)
            if s is None:
                continue
            if s.on_progress is not None:
                done_keys.append(progress_key(task_id))
            self._finish_running(s)
            self._recent_run.append(now - s.sent_at)
            elapsed = now - self._last_done
            self._last_done = now
            self._rate = 0.9 * self._rate + 0.1 * (1.0 / max(elapsed, 1e-3))
            self.metrics.search_latency.labels(PRIORITY_NAMES[s.priority]).observe(now - s.submitted)
            if s.future.done():
                continue
            result = meta.get("result")
            if status == "SUCCESS" and isinstance(result, dict):
                self.metrics.tasks.labels("done").inc()
                s.future.set_result(result)
            elif status == "REVOKED":
                self.metrics.tasks.labels("failed").inc()
                s.future.set_exception(deadline_exceeded())
            else:
                self.metrics.tasks.labels("failed").inc()
                s.future.set_exception(task_error(result))
        done_keys += self._stale
        self._stale = []
        if done_keys:
            await self.results.delete(*done_keys)

    def _progress(self, s: Search, value: bytes | str) -> None:
        """Hands the depths a task's progress key newly lists to ``s.on_progress``."""
        try:
            depths = json.loads(value)
        except ValueError:
            return
        if not isinstance(depths, list) or s.on_progress is None:
            return
        for entry in depths[s.progress_seen :]:
            if isinstance(entry, dict):
                s.on_progress(entry)
        s.progress_seen = max(s.progress_seen, len(depths))

    def _expire(self) -> None:
        """Fails running searches whose deadline is long gone (their worker may be gone too)."""
        now = time.time()
        for s in list(self.running.values()):
            if s.deadline is not None and now > s.deadline + 5.0:
                if not s.future.done():
                    s.future.set_exception(deadline_exceeded())
                self.cancel(s)

    def _unpend(self, s: Search) -> None:
        self.pending -= 1
        self.pending_by_client[s.client] -= 1
        if self.pending_by_client[s.client] <= 0:
            del self.pending_by_client[s.client]
        self.metrics.queue_depth.labels(PRIORITY_NAMES[s.priority]).dec()

    def _finish_running(self, s: Search) -> None:
        self.metrics.in_flight.dec()
        if s.priority == BATCH:
            self.running_batch -= 1


def deadline_exceeded() -> StatusError:
    return StatusError(
        grpc.StatusCode.DEADLINE_EXCEEDED, "deadline", "the deadline passed before a result was ready"
    )


def task_error(result: Any) -> StatusError:
    """The status of a failed task: bad arguments are the caller's fault, anything else ours."""
    exc_type = result.get("exc_type") if isinstance(result, dict) else None
    message = result.get("exc_message") if isinstance(result, dict) else result
    if isinstance(message, list | tuple):
        message = " ".join(str(m) for m in message)
    if exc_type == "BadTaskArguments":
        return StatusError(grpc.StatusCode.INVALID_ARGUMENT, "bad_request", str(message))
    return StatusError(
        grpc.StatusCode.UNAVAILABLE, "search_failed", f"the search failed: {exc_type}: {message}"
    )
