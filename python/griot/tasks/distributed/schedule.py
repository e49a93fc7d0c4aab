"""The order in which one distributed search sends its tasks (the task client and the runner do the
sending: :mod:`griot.tasks.client`).

:class:`SubtreeQueue` keeps at most ``capacity`` of the search's tasks at the workers, mandatory
work before speculation and an earlier iteration's before a later one's, so the broker's FIFO never
holds speculative work in front of the principal variation; with ``workers`` (the worker nodes and
their pool sizes) a subtree goes back to the worker that searched it one depth shallower, through
that worker's own queue. Everything else (publishing, results, cancelling, lost workers, outages,
and in the gateway the caller's quota and the shared window) is the runner's.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from celery import Celery

from griot.tasks.args import SEARCH_SUBTREE
from griot.tasks.client import Task, TaskRunner
from griot.tasks.errors import BadTaskArguments, SearchDeadlineExceeded, TaskFailed
from griot.tasks.outcome import TaskOutcome

log = logging.getLogger(__name__)

YIELD_TURNS = 64
"""Event-loop turns the queue lets pass after results came, before it fills free slots with a
later iteration's jobs (the current iteration makes its follow-up jobs in a few)."""
DEADLINE_GRACE = 2.0
"""Seconds past the deadline after which tasks still without an answer are given up."""
MAX_ATTEMPTS = 4
"""Times a task is run in all when it fails or ends incomplete before the deadline."""


@dataclass
class TaskStats:
    sent: int = 0
    cache_answers: int = 0
    redispatched: int = 0
    nodes: int = 0
    cpu: float = 0.0  # CPU seconds the workers' searches used (their threads' clocks)
    notified: int = 0  # results the caller learnt from their pub/sub message
    polled: int = 0  # results the caller found by its safety poll (a message lost or late)
    resubscribed: int = 0  # times the result subscription's connection was lost and reopened
    speculative: int = 0  # speculative child searches started (``speculate``)
    dropped: int = 0  # speculative child searches revoked as useless
    revoked: int = 0  # sent tasks whose result was no longer wanted (revoked, never read)
    # (iteration, ply, guess, floor) of every speculating node once its eldest set the floor: how
    # far the speculative null windows were from the value they stood in for (node-relative).
    guesses: list[tuple[int, int, int, int]] = field(default_factory=list)
    # (queued s, run s, nodes, iteration depth, sent at) of every searched subtree: the model input.
    timings: list[tuple[float, float, int, int, float]] = field(default_factory=list)
    # Every searched subtree's timestamps (Unix seconds): ``sent`` by the caller, ``taken`` off
    # the queue by the worker's main process, ``started`` in its pool process, ``search_started``
    # and ``search_ended`` (the native search), ``finished`` (the task returns), ``notified`` (the
    # caller learnt the result), ``depth`` (the distributed iteration).
    # (``chain``: how many plies from the root the task's ancestors are all eldest brothers; 0: a
    # younger brother of the root's eldest, 1 + ``pv_split`` + ``split``: the PV leaf itself;
    # ``spec``: 1 for a speculative search; ``wide``: 1 for a window wider than a null window;
    # ``again``: 1 if the subtree was searched at this depth before, with another window.)
    trace: list[dict[str, float]] = field(default_factory=list)
    # The first depths' task: ``sent``, ``started``, ``finished``, ``notified`` (Unix seconds).
    first: dict[str, float] = field(default_factory=dict)
    # Distributed depth -> when the caller had its exact value (Unix seconds).
    depth_done: dict[int, float] = field(default_factory=dict)


@dataclass(order=True)
class _Job:
    priority: tuple[int, ...]  # (distributed iteration, speculative, ply): lowest first
    seq: int
    name: str = field(compare=False)
    kwargs: dict[str, Any] = field(compare=False)
    future: asyncio.Future[dict[str, Any]] = field(compare=False)
    whole: bool = field(default=False, compare=False)  # any success is the answer (not a subtree)
    prefer: str | None = field(default=None, compare=False)
    queued_at: float = field(default_factory=time.time, compare=False)
    # The top-of-tree node this job searches (its ``worker`` is where its table is) and whether
    # the job was made while an earlier iteration was in flight (its node's worker may change).
    node: Any = field(default=None, compare=False)
    early: bool = field(default=False, compare=False)
    prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = field(default=None, compare=False)
    attempts: int = field(default=0, compare=False)
    worker: str | None = field(default=None, compare=False)  # where it was sent
    running: asyncio.Task[TaskOutcome] | None = field(default=None, compare=False)

    def __hash__(self) -> int:  # (equal only to itself: ``seq`` is unique)
        return id(self)


class SubtreeQueue:
    """Orders one search's tasks (see the module header) and runs them through ``runner``.
    ``deadline``: Unix time the tasks carry; past it, and :data:`DEADLINE_GRACE` later for those
    running, jobs fail with :class:`SearchDeadlineExceeded`."""

    def __init__(
        self,
        runner: TaskRunner,
        queue: str,
        capacity: int,
        deadline: float | None,
        stats: TaskStats,
        workers: dict[str, int] | None = None,
    ) -> None:
        self.runner = runner
        self.queue = queue
        self.capacity = max(1, capacity)
        self.deadline = deadline
        self.stats = stats
        self.workers = dict(workers) if workers else None
        self.waiting: list[_Job] = []
        self.running: set[_Job] = set()
        self.seq = itertools.count()
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._steal_at: float | None = None  # when a job kept for its busy worker may be stolen
        self._came = False  # results came since the last dispatch
        self._last_iteration: tuple[int, ...] = (1 << 30,)  # (iteration, speculative) of the last result

    def start(self) -> None:
        self._loop_task = asyncio.get_running_loop().create_task(self._loop())

    async def close(self) -> None:
        tasks = [j.running for j in self.running if j.running is not None]
        for job in list(self.running):
            self._abandon(job)
        if tasks:
            await asyncio.wait(tasks, timeout=5.0)
        for job in self.waiting:
            if not job.future.done():
                job.future.cancel()
        self.waiting.clear()
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._loop_task

    async def run(
        self,
        kwargs: dict[str, Any],
        priority: tuple[int, ...],
        prefer: str | None = None,
        node: Any = None,
        prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        name: str = SEARCH_SUBTREE,
        whole: bool = False,
    ) -> dict[str, Any]:
        """Runs one task (a subtree, or with ``whole`` any task whose success is the answer) and
        returns its result (with ``sent`` and ``notified`` added: Unix seconds); cancelling the
        caller revokes it. Jobs go out lowest ``priority`` first; a job whose first element (its
        iteration) is above that of a job still waiting is not sent at all: a later iteration
        only fills slots the earlier one has no work for, and a job on ``node`` waits while an
        earlier iteration's job on the same node runs (then follows it to that worker's table:
        ``node.worker``). ``prefer``: the worker to send it to if that one has a free slot.
        ``prepare`` makes the task's arguments from ``kwargs`` when it is sent."""
        if self.deadline is not None and time.time() >= self.deadline:
            raise SearchDeadlineExceeded("the deadline passed in the middle of a depth")
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        job = _Job(priority, next(self.seq), name, kwargs, fut, whole, prefer, node=node, prepare=prepare)
        job.early = node is not None and any(
            j.priority[0] < priority[0] for j in itertools.chain(self.waiting, self.running)
        )
        heapq.heappush(self.waiting, job)
        self._wake.set()
        try:
            return await fut
        except asyncio.CancelledError:
            self._abandon(job)
            raise

    def waiting_on(self, node: Any) -> bool:
        """A job on ``node`` is waiting (not sent yet)."""
        return any(j.node is node for j in self.waiting)

    # -- internals -------------------------------------------------------------------------------

    def _abandon(self, job: _Job) -> None:
        if job in self.waiting:
            self.waiting.remove(job)
            heapq.heapify(self.waiting)
        if job in self.running:
            self.running.discard(job)
            self.stats.revoked += 1
            if job.running is not None:
                job.running.cancel()
            self._wake.set()

    async def _loop(self) -> None:
        try:
            await self._serve()
        except asyncio.CancelledError:
            raise
        except BaseException as e:  # a bug here must fail the search, not hang it
            log.exception("search queue failed")
            for job in [*self.running, *self.waiting]:
                if not job.future.done():
                    job.future.set_exception(e)
            self.running.clear()
            self.waiting.clear()

    async def _serve(self) -> None:
        while True:
            if self._came and self._later_waiting():
                # The searches waiting for these results make their next jobs within a few loop
                # turns: let them, so a later iteration's job does not take a slot the current
                # iteration is about to need.
                for _ in range(YIELD_TURNS):
                    await asyncio.sleep(0)
            self._came = False
            self._wake.clear()
            self._dispatch()
            timeout = None
            now = time.time()
            if self._steal_at is not None:
                timeout = max(0.0005, self._steal_at - now)
            if self.deadline is not None and self.running:
                end = self.deadline + DEADLINE_GRACE
                if now >= end:
                    # Tasks stop at the deadline and answer (incomplete); one that has not
                    # answered by now may never answer (its worker vanished).
                    for job in list(self.running):
                        self._fail(
                            job, SearchDeadlineExceeded("the deadline passed in the middle of a depth")
                        )
                    continue
                timeout = end - now if timeout is None else min(timeout, end - now)
            # (A timer, not ``asyncio.wait_for``: a cancellation must end this loop at once.)
            timer = (
                None if timeout is None else asyncio.get_running_loop().call_later(timeout, self._wake.set)
            )
            try:
                await self._wake.wait()
            finally:
                if timer is not None:
                    timer.cancel()

    def _fail(self, job: _Job, error: BaseException) -> None:
        self.running.discard(job)
        if job.running is not None:
            job.running.cancel()
        if not job.future.done():
            job.future.set_exception(error)

    def _send(self, job: _Job, worker: str | None = None) -> None:
        self.waiting.remove(job)
        job.worker = worker
        job.attempts += 1
        kwargs = dict(job.kwargs, deadline=self.deadline)
        k = kwargs
        where = f"{k.get('position')} depth {k.get('depth')}"
        if "alpha" in k:
            where += f" ({k.get('alpha')}, {k.get('beta')})"
        prepare = job.prepare
        task = Task(
            job.name,
            kwargs,
            self.queue,
            expires=self.deadline,
            kwargsrepr=where,
            worker=worker,
            prepare=(lambda kw: dict(prepare(kw), deadline=self.deadline)) if prepare is not None else None,
        )
        self.running.add(job)
        job.running = asyncio.get_running_loop().create_task(self.runner.run(task))
        job.running.add_done_callback(lambda f: self._finished(job, task, f))

    def _finished(self, job: _Job, task: Task, f: asyncio.Future[TaskOutcome]) -> None:
        self.stats.sent += task.dispatches
        self.stats.redispatched += max(0, task.dispatches - 1)
        if job not in self.running:
            return  # abandoned or failed already
        self.running.discard(job)
        self._came = True
        self._wake.set()
        if job.future.done():
            return
        if f.cancelled():
            job.future.cancel()
            return
        error = f.exception()
        if error is not None:
            if self.deadline is not None and time.time() >= self.deadline:
                error = SearchDeadlineExceeded("the deadline passed in the middle of a depth")
            job.future.set_exception(error)
            return
        outcome = f.result()
        if task.learnt == "poll":
            self.stats.polled += 1
        elif task.learnt:
            self.stats.notified += 1
        result = outcome.value
        if result is not None and (job.whole or result.get("complete")):
            result["notified"] = task.done_at or time.time()
            result["sent"] = task.sent_at
            self._last_iteration = job.priority[:2]
            job.future.set_result(result)
            return
        if isinstance(outcome.error, BadTaskArguments):
            job.future.set_exception(outcome.error)
            return
        if self.deadline is not None and time.time() >= self.deadline:
            job.future.set_exception(SearchDeadlineExceeded("the deadline passed in the middle of a depth"))
            return
        why = outcome.error if result is None else "incomplete"
        if job.attempts >= MAX_ATTEMPTS or job.whole:
            job.future.set_exception(TaskFailed(f"{job.name} failed {job.attempts} times: {why}"))
            return
        log.info("task %s ended %s (%s): dispatching it again", task.task_id, outcome.status, why)
        self.stats.redispatched += 1
        heapq.heappush(self.waiting, job)

    def _free_slots(self) -> dict[str, int]:
        assert self.workers is not None
        lost = self.runner.tasks.lost_workers
        for w in lost & self.workers.keys():
            if len(self.workers) > 1:
                del self.workers[w]
        free = dict(self.workers)
        for job in self.running:
            if job.worker in free:
                free[job.worker] -= 1
        return free

    def _dispatch(self) -> None:
        if self.workers is None:
            while self.waiting and len(self.running) < self.capacity:
                jobs = self._eligible()
                if not jobs:
                    break
                self._send(jobs[0])
            return
        # Sending an iteration's last waiting job makes the next iteration's eligible.
        while self.waiting and self._dispatch_eligible():
            pass

    def _dispatch_eligible(self) -> bool:
        """Sends what it can of :meth:`_eligible` (True: some went)."""
        # Affinity: a subtree goes back to the worker that searched it one depth shallower (its
        # table holds that work) when that worker has a free slot. Jobs without a preference go
        # to any free worker; a job whose worker stays busy is stolen by a free one after a
        # while (half a typical task), since a cold table costs less than an idle worker.
        free = self._free_slots()
        if not self.waiting or max(free.values(), default=0) <= 0 or len(self.running) >= self.capacity:
            return False
        jobs = self._eligible()
        sent = False
        for job in jobs:
            if len(self.running) >= self.capacity:
                return sent
            if job.prefer is not None and free.get(job.prefer, 0) > 0:
                self._send(job, job.prefer)
                free[job.prefer] -= 1
                sent = True
        now = time.time()
        recent = self.stats.timings[-8:]
        patience = 0.5 * sorted(t[1] for t in recent)[len(recent) // 2] if recent else 0.0
        self._steal_at = None
        for job in jobs:
            if len(self.running) >= self.capacity:
                break
            if job in self.running:
                continue
            if job.prefer in free and now - job.queued_at < patience:
                if max(free.values()) > 0:  # another worker could take it once patience runs out
                    steal = job.queued_at + patience
                    self._steal_at = steal if self._steal_at is None else min(self._steal_at, steal)
                continue
            w = max(free, key=lambda k: free[k])
            if free[w] <= 0:
                break
            self._send(job, w)
            free[w] -= 1
            sent = True
        return sent

    def _later_waiting(self) -> bool:
        """A job waits that goes after another job (a later iteration, or speculative) waiting or
        running, or after the job of a result just read (``_last_iteration``)."""
        its = {j.priority[:2] for j in itertools.chain(self.waiting, self.running)}
        its.add(self._last_iteration)
        return any(j.priority[:2] > min(its) for j in self.waiting)

    def _eligible(self) -> list[_Job]:
        """The waiting jobs that may go now, best first: those of the earliest iteration that has
        any waiting (a later iteration waits while an earlier one has jobs to send), except a job
        whose node an earlier iteration's job is searching: it waits for that one's table."""
        jobs = sorted(self.waiting)
        if not jobs:
            return []
        running: dict[int, int] = {}
        for j in self.running:
            if j.node is not None:
                k = id(j.node)
                running[k] = min(running.get(k, j.priority[0]), j.priority[0])
        out = []
        for j in jobs:
            if j.priority[0] != jobs[0].priority[0]:
                break
            if j.node is not None:
                if running.get(id(j.node), j.priority[0]) < j.priority[0]:
                    continue
                if j.early:
                    j.prefer = getattr(j.node, "worker", None) or j.prefer
            out.append(j)
        return out


def cluster_workers(app: Celery, queue: str, timeout: float = 1.0) -> dict[str, int]:
    """The worker nodes consuming ``queue`` and their pool sizes (asks them: blocking; from an
    event loop call it through ``asyncio.to_thread``)."""
    insp = app.control.inspect(timeout=timeout)
    stats = insp.stats() or {}
    active = insp.active_queues() or {}
    out = {}
    for worker, info in stats.items():
        if any(q.get("name") == queue for q in active.get(worker, [])):
            out[worker] = int(info.get("pool", {}).get("max-concurrency", 1))
    return out
