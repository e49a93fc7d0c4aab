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
- **tasks** go through the task client (:class:`griot.tasks.client.TaskClient`): each dispatch round's
  tasks are published together through Celery's ``send_task`` off the event loop (any Celery
  broker); results arrive by notification (one pattern subscription for results and progress
  reports) with a safety poll; a task whose worker died under it is sent again. A progress report
  carries the task's newest depth (depths done within one report interval fold into it), which goes
  to the search's ``on_progress`` if it is deeper than the last one;
- **distributed searches**: a deep evaluation's subtree tasks come through :class:`DispatcherRunner`,
  each one of the caller's interactive searches here (its quota, the bounds, the window, its turn
  among the other clients'), to the worker that holds its subtree's table when the search asks;
- **cancellation**: a search nobody waits for any more is dropped from its queue here, or, if sent,
  revoked and given the workers' cancel key (``griot:cancel:<task id>``) so the running search stops
  (off the event loop); tasks carry the caller's deadline (``expires`` + the task's own
  ``deadline`` argument), so a search nobody can use is never started.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import grpc
import redis.asyncio as aioredis
from celery import Celery
from griot.priority import Priority
from griot.services.gateway.config import GatewayConfig
from griot.services.gateway.metrics import GatewayMetrics
from griot.status import StatusError
from griot.tasks.client import Task, TaskClient
from griot.tasks.errors import BadTaskArguments, ClusterUnavailable, TaskRevoked, WorkerError
from griot.tasks.outcome import TaskOutcome

SAFETY_POLL = 0.5
"""Seconds between two reads of the running tasks' keys (``TaskClient``'s safety poll), and that
read results may wait for their ``DEL``."""

log = logging.getLogger("griot.gateway.dispatch")

INTERACTIVE, BATCH = Priority.INTERACTIVE, Priority.BATCH
PRIORITY_NAMES = ("interactive", "batch")
#: Seconds between two checks of the running searches' deadlines.
EXPIRE_EVERY = 0.5
#: Seconds the dispatcher's close waits for its tasks.
CLOSE_TIMEOUT = 5.0


@dataclass(eq=False)
class Search:
    """One search task, waiting here, running at a worker, or done (``future``)."""

    task: str
    kwargs: dict[str, Any]
    priority: int
    client: str
    deadline: float | None
    #: The task's outcome: a success (an error is raised as its status, unless ``raw``).
    future: asyncio.Future[TaskOutcome]
    submitted: float = field(default_factory=time.monotonic)
    task_id: str | None = None
    sent_at: float = 0.0
    #: Its task at the task client, once sent.
    sent: Task | None = None
    #: Called with each newly completed depth (a task's progress entry) before the result; set
    #: for tasks sent with ``progress=True`` (:func:`griot.redis_keys.progress_key`).
    on_progress: Callable[[dict[str, Any]], None] | None = None
    #: The deepest depth handed to ``on_progress`` so far.
    progress_depth: int = 0
    #: A worker whose own queue the task goes to (a distributed search's subtree: that worker's
    #: table holds its work), and what makes the task's arguments when it is sent.
    worker: str | None = None
    prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    #: The future holds the task's outcome whatever it is, a failure too.
    raw: bool = False
    #: Its task reached the broker (sent and not yet published: a publish may hang in a partition).
    published: bool = False


#: The retry hint of a search refused while the broker cannot be reached.
BROKER_RETRY_AFTER = 5.0


def broker_unreachable() -> StatusError:
    return StatusError(
        grpc.StatusCode.UNAVAILABLE,
        "broker_unavailable",
        f"the gateway cannot reach the broker: retry in {BROKER_RETRY_AFTER:.0f} s",
        retry_after=BROKER_RETRY_AFTER,
    )


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

    def __init__(
        self,
        app: Celery,
        config: GatewayConfig,
        metrics: GatewayMetrics,
        results: aioredis.Redis,
    ) -> None:
        self.app = app
        # Results come by notification: the poll is only for one whose message was lost and for a
        # dead worker's task, and each of its reads costs a redis-py round trip on the loop.
        self.tasks = TaskClient(app, results, safety_poll=SAFETY_POLL, delete_every=SAFETY_POLL)
        self.config = config
        self.metrics = metrics
        self.queues = (config.interactive_queue, config.batch_queue)
        self.waiting: list[OrderedDict[str, deque[Search]]] = [OrderedDict(), OrderedDict()]
        self.pending = 0
        self.pending_by_client: Counter[str] = Counter()
        self.running: dict[str, Search] = {}
        self.running_batch = 0
        self._wake = asyncio.Event()
        self._rate = 0.0  # completions per second (EWMA)
        self._last_done = time.monotonic()
        self._tasks: list[asyncio.Task[None]] = []
        # The metrics of every task, their labels looked up once (by priority where labelled so).
        self._queued = [metrics.queue_depth.labels(n) for n in PRIORITY_NAMES]
        self._latency = [metrics.search_latency.labels(n) for n in PRIORITY_NAMES]
        self._sent, self._done, self._failed, self._cancelled, self._routed = (
            metrics.tasks.labels(e) for e in ("sent", "done", "failed", "cancelled", "routed")
        )

    # -- the caller's side -----------------------------------------------------------------------

    def retry_after(self) -> float:
        """Seconds the backlog needs to drain at the measured rate (1 to 60)."""
        backlog = self.pending + len(self.running)
        rate = max(self._rate, 0.5)
        return float(min(60.0, max(1.0, backlog / rate)))

    def submit(
        self,
        task: str,
        kwargs: dict[str, Any],
        priority: int,
        client: str,
        deadline: float | None,
        *,
        worker: str | None = None,
        prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        raw: bool = False,
    ) -> Search:
        """Queues a search; raises ``RESOURCE_EXHAUSTED`` when the bounds are reached. ``worker``,
        ``prepare``, ``raw``: see :class:`Search`. While the broker cannot be reached, raises
        ``UNAVAILABLE`` (``broker_unavailable``) with a retry hint at once: waiting here would
        only spend the caller's deadline."""
        if self.tasks.broker_down():
            self.metrics.rejected.labels("broker_unavailable").inc()
            self.metrics.count("rejected")
            raise broker_unreachable()
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
        s.worker, s.prepare, s.raw = worker, prepare, raw
        self.waiting[priority].setdefault(client, deque()).append(s)
        self.pending += 1
        self.pending_by_client[client] += 1
        self._queued[priority].inc()
        self._wake.set()
        return s

    async def wait(self, s: Search) -> dict[str, Any]:
        """The task's result (a failure raised as its status); cancelling the caller cancels the
        search."""
        try:
            outcome = await s.future
        except asyncio.CancelledError:
            self.cancel(s)
            raise
        return outcome.result()

    async def outcome(self, s: Search) -> TaskOutcome:
        """The task's outcome; cancelling the caller cancels the search."""
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
        self._queued[BATCH].dec()
        self._queued[INTERACTIVE].inc()
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
            self._cancelled.inc()
            self.metrics.count("tasks_cancelled")
            if s.sent is not None:
                self.tasks.cancel(s.sent)
            self._wake.set()
        if not s.future.done():
            s.future.cancel()

    # -- the loop --------------------------------------------------------------------------------

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.tasks.start()
        self._tasks = [
            loop.create_task(self._loop(), name="gateway-dispatch"),
            loop.create_task(self._expiry(), name="gateway-expiry"),
        ]

    async def close(self) -> None:
        for s in list(self.running.values()):
            self.cancel(s)
        for prio in self.waiting:
            for q in prio.values():
                for s in q:
                    if not s.future.done():
                        s.future.cancel()
            prio.clear()
        for t in self._tasks:
            t.cancel()
        # Bounded: a task stuck in a Redis client's close must not hold the shutdown.
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=CLOSE_TIMEOUT)
        await self.tasks.close()

    async def _loop(self) -> None:
        """Sends what the window has room for, each time a search is submitted or one ends."""
        while True:
            try:
                await self._wake.wait()
                self._wake.clear()
                await self._dispatch()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the broker failed: fail nothing yet, try again
                log.warning("dispatch loop: %s: %s", type(e).__name__, e)
                await asyncio.sleep(0.2)
                self._wake.set()

    async def _expiry(self) -> None:
        """Fails the running searches whose deadline is long gone, now and then."""
        while True:
            await asyncio.sleep(EXPIRE_EVERY)
            if self.running:
                self._expire()

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

    async def _dispatch(self) -> None:
        """Sends what the window has room for, all in one publish."""
        window = self.config.window
        batch_slots = max(1, window - self.config.interactive_reserve)
        sent: list[tuple[Search, Task]] = []
        loop = asyncio.get_running_loop()
        while len(self.running) < window:
            s = self._next(batch_allowed=self.running_batch < batch_slots)
            if s is None:
                break
            self._unpend(s)
            if s.future.done():
                continue
            if s.deadline is not None and time.time() >= s.deadline:
                s.future.set_exception(deadline_exceeded())
                continue
            kwargs = dict(s.kwargs, deadline=s.deadline)
            t = Task(
                s.task,
                kwargs,
                self.queues[s.priority],
                loop.create_future(),
                expires=s.deadline,
                kwargsrepr=repr(kwargs),
                on_progress=None if s.on_progress is None else partial(self._progress, s),
                worker=s.worker,
                prepare=s.prepare,
            )
            s.task_id = self.tasks.assign(t)
            s.sent = t
            s.sent_at = time.monotonic()
            self.running[s.task_id] = s
            t.future.add_done_callback(partial(self._result, s))
            if s.priority == BATCH:
                self.running_batch += 1
            self.metrics.in_flight.inc()
            sent.append((s, t))
        if not sent:
            return
        try:
            await self.tasks.send([t for _, t in sent])
        except Exception as e:
            log.warning("cannot send search tasks: %s", e)
            for _, t in sent[getattr(e, "sent", 0) :]:
                if not t.future.done():
                    t.future.set_exception(broker_unreachable())
            self._wake.set()
            return
        for s, _ in sent:
            s.published = True
        self._sent.inc(len(sent))
        self._routed.inc(sum(1 for _, t in sent if t.worker is not None))
        self.metrics.count("tasks_sent", len(sent))

    def _result(self, s: Search, task: asyncio.Future[TaskOutcome]) -> None:
        """A sent search's task ended: its outcome, or the error that kept it from ending."""
        if s.task_id is None or self.running.pop(s.task_id, None) is None:
            return  # cancelled here
        self._finish_running(s)
        self._wake.set()  # a slot of the window is free
        now = time.monotonic()
        elapsed = now - self._last_done
        self._last_done = now
        self._rate = 0.9 * self._rate + 0.1 * (1.0 / max(elapsed, 1e-3))
        self._latency[s.priority].observe(now - s.submitted)
        if s.future.done():
            return
        if task.cancelled():
            s.future.cancel()
            return
        error = task.exception()
        if error is not None:
            self._failed.inc()
            if isinstance(error, ClusterUnavailable):
                error = unavailable(str(error))
            s.future.set_exception(error)
            return
        outcome = task.result()
        if outcome.ok:
            self._done.inc()
            s.future.set_result(outcome)
        elif s.raw:
            self._failed.inc()
            s.future.set_result(outcome)
        else:
            self._failed.inc()
            s.future.set_exception(task_error(outcome.error))

    def _progress(self, s: Search, value: bytes | str) -> None:
        """Hands the deepest depth a progress report newly brings to ``s.on_progress``: a message
        carries the task's newest depth, its key every depth so far; the depths a report lists
        together completed within one report interval, so they fold into one (the deepest)."""
        try:
            report = json.loads(value)
        except ValueError:
            return
        entry = report[-1] if isinstance(report, list) and report else report
        if not isinstance(entry, dict) or s.on_progress is None:
            return
        depth = entry.get("depth")
        if not isinstance(depth, int) or depth <= s.progress_depth:
            return
        s.progress_depth = depth
        s.on_progress(entry)

    def _expire(self) -> None:
        """Fails running searches whose deadline is long gone (their worker may be gone too), and,
        while the broker cannot be reached, the searches waiting here and those whose publish
        hangs (with the retry hint): a publish into a partition waits out the broker client's
        timeouts and retries, longer than most deadlines. A publish that goes through after all
        finds its task revoked."""
        if self.tasks.broker_down():
            for prio in self.waiting:
                for q in prio.values():
                    for s in q:
                        if not s.future.done():
                            s.future.set_exception(broker_unreachable())
            for s in list(self.running.values()):
                if not s.published:
                    if not s.future.done():
                        s.future.set_exception(broker_unreachable())
                    self.cancel(s)
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
        self._queued[s.priority].dec()

    def _finish_running(self, s: Search) -> None:
        self.metrics.in_flight.dec()
        if s.priority == BATCH:
            self.running_batch -= 1


class DispatcherRunner:
    """A :class:`griot.tasks.client.TaskRunner` for one caller's distributed search: each task
    is one of the caller's searches at the dispatcher, at the caller's priority, so it counts
    against the caller's quota and the gateway's bounds (``RESOURCE_EXHAUSTED`` raised to the
    search), waits its turn among everyone's searches and shares the window. The dispatcher's task
    client does the rest."""

    def __init__(self, dispatcher: Dispatcher, client: str, priority: int = INTERACTIVE) -> None:
        self.dispatcher = dispatcher
        self.client = client
        self.priority = priority
        config = dispatcher.config
        #: The search's tasks at once: within the window and within the caller's quota of waiting
        #: searches (a search alone never exceeds it).
        self.capacity = max(1, min(config.window, config.max_pending_per_client))

    @property
    def tasks(self) -> TaskClient:
        return self.dispatcher.tasks

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass

    async def run(self, task: Task) -> TaskOutcome:
        s = self.dispatcher.submit(
            task.name,
            task.kwargs,
            self.priority,
            self.client,
            task.expires,
            worker=task.worker,
            prepare=task.prepare,
            raw=True,
        )
        try:
            return await self.dispatcher.outcome(s)
        finally:
            sent = s.sent
            if sent is not None:
                task.task_id, task.dispatches = sent.task_id, sent.dispatches
                task.sent_at, task.done_at, task.learnt = sent.sent_at, sent.done_at, sent.learnt


def unavailable(message: str) -> StatusError:
    return StatusError(grpc.StatusCode.UNAVAILABLE, "workers_unavailable", message)


def deadline_exceeded() -> StatusError:
    return StatusError(
        grpc.StatusCode.DEADLINE_EXCEEDED, "deadline", "the deadline passed before a result was ready"
    )


def task_error(error: WorkerError | None) -> StatusError:
    """The status of a failed task: bad arguments are the caller's fault, a revoked task ran out
    of time, anything else is ours."""
    if isinstance(error, BadTaskArguments):
        return StatusError(grpc.StatusCode.INVALID_ARGUMENT, "bad_request", str(error))
    if isinstance(error, TaskRevoked):
        return deadline_exceeded()
    return StatusError(grpc.StatusCode.UNAVAILABLE, "search_failed", f"the search failed: {error}")
