"""Distributed deep search of one position (the caller's side; the gateway uses it).

The caller expands the top ``split`` plies of the tree itself and sends the subtrees below them
to the workers as ``griot.search_subtree`` tasks, each with an alpha-beta window. The top plies are
searched as a principal-variation search whose leaves are tasks:

- every top node keeps, for each child, an interval ``[lo, hi]`` of what the tasks proved about
  its value (exact results close it, fail-high/fail-low results move one end); the node is done
  when its best child is known exactly (or a bound settles its own window), so the root's value is
  the exact minimax value at the requested depth whatever order results arrive in;
- children are taken in the previous iteration's order; the first ("eldest brother") is searched
  with the node's window, the others with a null window at the best value so far, re-searched
  when they fail high (young brothers wait, as in YBWC);
- APHID-like speculation (``speculate="pv"``, the default: on the principal variation's nodes,
  whose eldest everything else waits for): while the eldest is still running, idle worker slots
  start its younger brothers with a null window at the node's value from the previous iteration
  of the same parity (sowing scores swing between odd and even depths); when the eldest's result
  sets a floor below a guess, that speculative search is revoked and searched again at the floor,
  as is one under the floor not sent yet; otherwise its result settles the brother (a fail low
  under the floor) or it is searched again;
- ``overlap`` (off by default): depth d + 1 starts beside depth d once depth d's root has its
  eldest's result, its tasks only in slots depth d has no task for;
- a central scheduler keeps at most ``capacity`` tasks in the queue, mandatory work before
  speculation, so the broker's FIFO never holds speculative work in front of the principal
  variation; subtrees a cut-off made useless are revoked (queued ones are dropped, running ones see a
  cancel key and stop their search).

Iterative deepening runs across the cluster: the first depths (tasks too small to be worth a
queue round trip) in one ``griot.search_position`` task, then one distributed iteration per depth,
each completed depth reported as it lands (:meth:`ClusterSearch.iterate` is an async iterator;
:meth:`ClusterSearch.search` a blocking call with a callback).

Failures: a task that raises ``BadTaskArguments`` fails the search with that error; other task
failures, tasks lost with a Redis restart and stragglers (no result after ``straggler_after``
seconds, e.g. a worker machine that vanished) are dispatched again, duplicates being harmless
(the first result wins, the in-flight marker makes the second wait for the first); a broker
unreachable for longer than ``outage_grace`` raises :class:`ClusterUnavailable`. A result is never
made from a partial task: incomplete subtree results are searched again or fail the depth.
"""

from __future__ import annotations

import asyncio
import contextvars
import heapq
import itertools
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import griot
import redis
import redis.asyncio as aioredis
from celery import Celery
from celery.result import AsyncResult
from celery.utils.nodenames import worker_direct
from griot import INFINITE, WIN, WIN_BOUND, redis_keys
from griot.workers.client import (
    RESULT_PREFIX,
    ResultNotifier,
    TaskRequest,
    TaskSender,
    backend_url,
)
from griot.workers.errors import BadTaskArguments, ClusterUnavailable, SearchDeadlineExceeded, TaskFailed
from griot.workers.task_args import SEARCH_POSITION, SEARCH_SUBTREE, position_args, subtree_args
from kombu.exceptions import OperationalError

log = logging.getLogger(__name__)

EXACT, LOWER, UPPER = "exact", "lower", "upper"


# -- score arithmetic (the core's score.rs) --------------------------------------------------


def to_child(v: int) -> int:
    """A parent-relative bound as seen one ply lower (``score::to_table(v, 1)``)."""
    if v >= WIN_BOUND:
        return min(v + 1, INFINITE)
    if v <= -WIN_BOUND:
        return max(v - 1, -INFINITE)
    return v


def from_child(v: int) -> int:
    """A child's node-relative value as seen from its parent (``score::from_table(v, 1)``)."""
    if v >= WIN_BOUND:
        return v - 1
    if v <= -WIN_BOUND:
        return v + 1
    return v


def window_bound(v: int, alpha: int, beta: int) -> str:
    return UPPER if v <= alpha else LOWER if v >= beta else EXACT


# -- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class MoveValue:
    """A root move's value: exact for the best move, an upper bound for the others."""

    move: str
    value: int
    bound: str


@dataclass(frozen=True)
class DepthResult:
    """One completed depth of a distributed search."""

    depth: int
    best_move: str | None
    value: int
    score: str
    pv: list[str]
    moves: list[MoveValue]
    nodes: int
    elapsed: float
    tasks: int
    cache_answers: int
    redispatched: int


def score_text(v: int) -> str:
    return str(griot.Score(v))


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


# -- the scheduler: tasks in flight and their results ----------------------------------------


@dataclass(order=True)
class _Job:
    priority: tuple[int, ...]  # (distributed iteration, speculative, ply): lowest first
    seq: int
    kwargs: dict[str, Any] = field(compare=False)
    future: asyncio.Future[dict[str, Any]] = field(compare=False)
    sent_at: float = field(default=0.0, compare=False)
    task_ids: list[str] = field(default_factory=list, compare=False)
    dispatches: int = field(default=0, compare=False)
    prefer: str | None = field(default=None, compare=False)
    queued_at: float = field(default_factory=time.time, compare=False)
    # The top-of-tree node this job searches (its ``worker`` is where its table is) and whether
    # the job was made while an earlier iteration was in flight (its node's worker may change).
    node: Any = field(default=None, compare=False)
    early: bool = field(default=False, compare=False)
    # Makes the task's arguments when it is sent (what earlier tasks on its node learnt by then).
    prepare: Callable[[], dict[str, Any]] | None = field(default=None, compare=False)


class Scheduler:
    """Sends subtree tasks (at most ``capacity`` queued or running), learns of their results from
    the result backend's pub/sub messages (:class:`griot.workers.client.ResultNotifier`, subscribed
    before each task is sent) with a safety poll (one MGET every ``safety_poll`` seconds) for a
    message lost with a connection, re-dispatches lost tasks and revokes abandoned ones. It never
    polls while tasks run: it sleeps until a message, a new job, a worker's ping or the next
    check is due."""

    def __init__(
        self,
        app: Celery,
        queue: str,
        capacity: int,
        deadline: float | None,
        straggler_after: float,
        outage_grace: float,
        poll: float,
        stats: TaskStats,
        workers: dict[str, int] | None = None,
    ) -> None:
        self.app = app
        self.workers = workers
        self.on_worker: dict[str, str] = {}
        self.queue = queue
        self.capacity = max(1, capacity)
        self.deadline = deadline
        self.straggler_after = straggler_after
        self.outage_grace = outage_grace
        self.poll = poll
        self.stats = stats
        self.waiting: list[_Job] = []
        self.running: dict[str, _Job] = {}  # task id -> job (a job may have two ids)
        self.seq = itertools.count()
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None
        self.outage_since: float | None = None
        self.seen_alive: set[str] = set()  # task ids whose alive key was seen (they started)
        self._alive_checked = 0.0
        self.lost_workers: set[str] = set()
        self.suspects: set[str] = set()  # workers that lost a task, pinged
        self.sent_at: dict[str, float] = {}  # task id -> when it was sent
        self.start_checked: set[str] = set()  # tasks whose late start made their worker a suspect
        self.safety_poll = SAFETY_POLL
        self.notified: dict[str, tuple[bytes, float]] = {}  # task id -> (message, when it came)
        self.notifier = ResultNotifier(backend_url(app), self._on_message, self._on_reconnect)
        self.sender = TaskSender(app)
        # The result backend, asynchronously: nothing here blocks the caller's event loop.
        self.redis = aioredis.Redis.from_url(backend_url(app), socket_timeout=5, socket_connect_timeout=5)
        self._deletes: set[asyncio.Task[None]] = set()
        self._outbox: list[TaskRequest] = []  # tasks to publish (:meth:`flush`)
        self._polled = 0.0
        self._poll_now = False
        self._steal_at: float | None = None  # when a job kept for its busy worker may be stolen
        self._watchers: dict[str, asyncio.Event] = {}  # single tasks awaited by ``wait_result``
        self._last_iteration: tuple[int, ...] = (1 << 30,)  # (iteration, speculative) of the last result

    async def run(
        self,
        kwargs: dict[str, Any],
        priority: tuple[int, ...],
        prefer: str | None = None,
        node: Any = None,
        prepare: Callable[[], dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Runs one subtree task (on worker ``prefer`` if it is free); cancelling the caller
        revokes it. Jobs go out lowest ``priority`` first; a job whose first element (its
        iteration) is above that of a job still waiting is not sent at all: a later iteration
        only fills slots the earlier one has no work for, and a job on ``node`` waits while an
        earlier iteration's job on the same node runs (then follows it to that worker's table:
        ``node.worker``). ``prepare``, if given, makes the task's arguments when it is sent."""
        if self._failure is not None:
            raise self._failure
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        job = _Job(priority, next(self.seq), kwargs, fut, prefer=prefer, node=node, prepare=prepare)
        job.early = node is not None and any(
            j.priority[0] < priority[0] for j in itertools.chain(self.waiting, self.running.values())
        )
        heapq.heappush(self.waiting, job)
        self._wake.set()
        try:
            return await fut
        except asyncio.CancelledError:
            self._abandon(job)
            raise

    def start(self) -> None:
        self.notifier.start()
        self._loop_task = asyncio.get_running_loop().create_task(self._loop())

    async def close(self) -> None:
        for job in list(self.running.values()):
            self._abandon(job)
        self.waiting.clear()
        if self._loop_task is not None:
            self._loop_task.cancel()
            try:
                await self._loop_task
            except (asyncio.CancelledError, Exception):
                pass
        self.stats.resubscribed += self.notifier.reconnects
        await self.notifier.close()
        self.sender.close()
        if self._deletes:
            await asyncio.wait(self._deletes, timeout=2.0)
        await self.redis.aclose()

    def _on_message(self, task_id: str, payload: bytes) -> None:
        if task_id in self.running or task_id in self._watchers:
            self.notified[task_id] = (payload, time.time())
            self._wake.set()
            ev = self._watchers.get(task_id)
            if ev is not None:
                ev.set()

    def _on_reconnect(self) -> None:
        # Messages may have been published while the subscription was down: read once now.
        self._poll_now = True
        self._wake.set()
        for ev in self._watchers.values():
            ev.set()

    def send(self, name: str, task_id: str, kwargs: dict[str, Any], queue: Any, kwargsrepr: str = "") -> None:
        """Queues task ``name`` for ``queue`` (a queue name or a worker's own ``Queue``); it is
        published by the next :meth:`flush`."""
        self._outbox.append(TaskRequest(name, task_id, kwargs, queue, self.deadline, kwargsrepr))

    async def flush(self) -> None:
        """Subscribes the queued tasks' result channels, then publishes the tasks (Celery's
        ``send_task``, off the event loop). A failure raises; what did not go is sent again,
        under new ids, once the broker is back (``_redispatch_all``)."""
        if not self._outbox:
            return
        await self.notifier.subscribed()
        batch, self._outbox = self._outbox, []
        await self.sender.send(batch)

    def withdraw(self, task_id: str) -> None:
        """Takes a task not yet published out of the outbox."""
        self._outbox = [r for r in self._outbox if r.task_id != task_id]
        self.notifier.unwatch([task_id])

    def new_task_id(self) -> str:
        """A task id whose result channel is subscribed from now on (call before sending)."""
        task_id = str(uuid.uuid4())
        self.notifier.watch([task_id])
        return task_id

    def done_with(self, task_ids: Sequence[str]) -> None:
        """Unsubscribes and deletes these tasks' results (read, or no longer wanted)."""
        if not task_ids:
            return
        self.notifier.unwatch(task_ids)
        for i in task_ids:
            self.notified.pop(i, None)
            self._watchers.pop(i, None)
        task = asyncio.get_running_loop().create_task(self._delete([RESULT_PREFIX + i for i in task_ids]))
        self._deletes.add(task)
        task.add_done_callback(self._deletes.discard)

    async def _delete(self, keys: list[str]) -> None:
        try:
            await self.redis.delete(*keys)
        except (redis.RedisError, OSError) as e:  # they expire anyway (result_expires)
            log.debug("cannot delete read results: %s", e)

    async def read_results(self, task_ids: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
        """The stored results of those of ``task_ids`` that are over (one ``MGET``)."""
        if not task_ids:
            return []
        raw = await self.redis.mget([RESULT_PREFIX + i for i in task_ids])
        out = []
        for task_id, value in zip(task_ids, raw, strict=True):
            if value is not None:
                meta = self.app.backend.decode_result(value)
                if meta.get("status") in READY_STATES:
                    out.append((task_id, dict(meta)))
        return out

    async def wait_result(self, task_id: str, timeout: float) -> dict[str, Any] | None:
        """The result of one task sent with :meth:`new_task_id` (not a scheduled job), waiting at
        most ``timeout`` seconds for its message; read directly at the end of the wait (the
        safety poll) if no message came. None: not ready."""
        ev = self._watchers.setdefault(task_id, asyncio.Event())
        if task_id not in self.notified:
            try:
                await asyncio.wait_for(ev.wait(), timeout)
            except TimeoutError:
                pass
        ev.clear()
        got = self.notified.pop(task_id, None)
        meta = self._ready(got[0]) if got is not None else None
        if meta is not None:
            return meta
        for _, meta in await self.read_results([task_id]):
            self.stats.polled += 1
            return meta
        return None

    def _abandon(self, job: _Job) -> None:
        if job in self.waiting:
            self.waiting.remove(job)
            heapq.heapify(self.waiting)
        ids = [i for i, j in self.running.items() if j is job]
        for i in ids:
            del self.running[i]
            self.sent_at.pop(i, None)
        if ids:
            self.stats.revoked += len(ids)
            self.notifier.unwatch(ids)
            self._outbox = [r for r in self._outbox if r.task_id not in ids]
            self.sender.cancel_soon(ids)

    def _send(self, job: _Job, worker: str | None = None) -> None:
        if job.prepare is not None:
            job.kwargs = job.prepare()
        kwargs = dict(job.kwargs, deadline=self.deadline)
        task_id = self.new_task_id()
        queue = worker_direct(worker) if worker else self.queue
        k = kwargs
        where = f"{k.get('position')} depth {k.get('depth')} ({k.get('alpha')}, {k.get('beta')})"
        try:
            self.send(SEARCH_SUBTREE, task_id, kwargs, queue, where)
        except BaseException:
            self.notifier.unwatch([task_id])
            raise
        if worker:
            self.on_worker[task_id] = worker
        job.task_ids.append(task_id)
        job.sent_at = self.sent_at[task_id] = time.time()
        job.dispatches += 1
        self.running[task_id] = job
        self.stats.sent += 1

    def _in_flight(self) -> int:
        return len({id(j) for j in self.running.values()})

    async def _loop(self) -> None:
        # Tasks sent before the subscription is up are read by the poll that follows it.
        await self.notifier.wait_connected(1.0)
        try:
            while True:
                self._wake.clear()
                try:
                    # Results first: the slots they free go to the waiting jobs at once.
                    if await self._collect() and self._later_waiting():
                        # The searches waiting for these results make their next jobs within a
                        # few loop turns: let them, so a later iteration's job does not take a
                        # slot the current iteration is about to need.
                        for _ in range(YIELD_TURNS):
                            await asyncio.sleep(0)
                        await self._collect()
                    self._dispatch()
                    await self.flush()
                    if self.outage_since is not None:
                        log.warning(
                            "broker back after %.1f s: dispatching lost tasks again",
                            time.time() - self.outage_since,
                        )
                        self.outage_since = None
                        self._redispatch_all()
                        await self.flush()
                except (redis.ConnectionError, redis.TimeoutError, OperationalError, OSError) as e:
                    now = time.time()
                    if self.outage_since is None:
                        self.outage_since = now
                        log.warning("broker or result backend unreachable: %s", e)
                    if now - self.outage_since > self.outage_grace:
                        raise ClusterUnavailable(
                            f"the broker or result backend has been unreachable for "
                            f"{now - self.outage_since:.1f} s: {e}"
                        ) from e
                    await asyncio.sleep(0.2)
                    continue
                if self.running or self.waiting:
                    timeout = max(0.0005, self._next_check() - time.time())
                    try:
                        await asyncio.wait_for(self._wake.wait(), timeout)
                    except TimeoutError:
                        pass
                else:
                    await self._wake.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as e:
            self._failure = e
            for job in set(self.running.values()) | set(self.waiting):
                if not job.future.done():
                    job.future.set_exception(e)
            self.running.clear()
            self.waiting.clear()

    def _next_check(self) -> float:
        """When the loop must look again without a message: the safety poll, the alive check, a
        job kept for its busy worker becoming free to steal, the deadline's grace."""
        due = self._polled + self.safety_poll
        if self.running:
            due = min(due, self._alive_checked + ALIVE_CHECK_EVERY)
        if self._steal_at is not None:
            due = min(due, self._steal_at)
        if self.deadline is not None:
            for t in (self.deadline, self.deadline + DEADLINE_GRACE):
                if t > time.time():
                    due = min(due, t)
                    break
        if not self.notifier.connected:
            due = min(due, time.time() + self.poll * 25)  # no messages: poll every ~50 ms
        return due

    def _free_slots(self) -> dict[str, int]:
        assert self.workers is not None
        free = {w: n for w, n in self.workers.items() if w not in self.suspects} or dict(self.workers)
        for task_id in self.running:
            w = self.on_worker.get(task_id)
            if w in free:
                free[w] -= 1
        return free

    def _dispatch(self) -> None:
        if self.workers is None:
            while self.waiting and self._in_flight() < self.capacity:
                jobs = self._eligible()
                if not jobs:
                    break
                self._send(jobs[0])
                self.waiting.remove(jobs[0])
                heapq.heapify(self.waiting)
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
        if not self.waiting or max(free.values(), default=0) <= 0:
            return False
        jobs = self._eligible()
        sent = set()
        for job in jobs:
            if job.prefer is not None and free.get(job.prefer, 0) > 0:
                self._send(job, job.prefer)
                free[job.prefer] -= 1
                sent.add(id(job))
        now = time.time()
        recent = self.stats.timings[-8:]
        patience = 0.5 * sorted(t[1] for t in recent)[len(recent) // 2] if recent else 0.0
        self._steal_at = None
        for job in jobs:
            if id(job) in sent:
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
            sent.add(id(job))
        if sent:
            self.waiting = [j for j in self.waiting if id(j) not in sent]
            heapq.heapify(self.waiting)
        return bool(sent)

    def _redispatch_all(self) -> None:
        for task_id, job in list({id(j): (i, j) for i, j in self.running.items()}.values()):
            self.stats.redispatched += 1
            self._send(job, self.on_worker.get(task_id))

    def _ready(self, payload: bytes) -> dict[str, Any] | None:
        """The result meta a notification carried, if the task is over (counted as notified)."""
        meta = self.app.backend.decode_result(payload)
        if meta.get("status") not in READY_STATES:
            return None
        self.stats.notified += 1
        return dict(meta)

    async def _results(self, now: float) -> list[tuple[str, dict[str, Any], float]]:
        """(task id, result meta, when the caller learnt it) of running tasks that finished:
        those whose message came, and on a safety poll every other one that has a result."""
        out = []
        for task_id, (payload, at) in list(self.notified.items()):
            if task_id not in self.running:
                continue
            del self.notified[task_id]
            meta = self._ready(payload)
            if meta is not None:
                out.append((task_id, meta, at))
        if self._poll_now or now - self._polled >= self.safety_poll:
            self._poll_now = False
            self._polled = now
            seen = {t for t, _, _ in out}
            ids = [i for i in self.running if i not in seen]
            for task_id, meta in await self.read_results(ids):
                if task_id in self.running:
                    self.stats.polled += 1
                    out.append((task_id, meta, now))
        return out

    async def _collect(self) -> bool:
        """Reads finished tasks' results (True: some came)."""
        if not self.running:
            self._polled = time.time()
            return False
        now = time.time()
        results = await self._results(now)
        alive = await self._read_alive(now)
        finished: list[str] = []
        try:
            self._collect_results(now, finished, results, alive)
        finally:
            self.done_with(finished)
        return bool(finished)

    async def _read_alive(self, now: float) -> list[tuple[str, bytes | str | None]]:
        """The running tasks' alive keys, twice a second (empty between)."""
        if now - self._alive_checked < ALIVE_CHECK_EVERY or not self.running:
            return []
        self._alive_checked = now
        ids = list(self.running)
        values = await self.redis.mget([ALIVE_PREFIX + i for i in ids])
        return list(zip(ids, values, strict=True))

    def waiting_on(self, node: Any) -> bool:
        """A job on ``node`` is waiting (not sent yet)."""
        return any(j.node is node for j in self.waiting)

    def _later_waiting(self) -> bool:
        """A job waits that goes after another job (a later iteration, or speculative) waiting or
        running, or after the job of a result just read (``_last_iteration``)."""
        its = {j.priority[:2] for j in itertools.chain(self.waiting, self.running.values())}
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
        for j in self.running.values():
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

    def _collect_results(
        self,
        now: float,
        finished: list[str],
        results: list[tuple[str, dict[str, Any], float]],
        alive: list[tuple[str, bytes | str | None]],
    ) -> None:
        for task_id, meta, at in results:
            job = self.running.pop(task_id, None)
            self.seen_alive.discard(task_id)
            self.sent_at.pop(task_id, None)
            self.start_checked.discard(task_id)
            finished.append(task_id)
            if job is None or job.future.done():
                continue
            status = meta.get("status")
            result = meta.get("result")
            if status == "SUCCESS" and isinstance(result, dict) and result.get("complete"):
                for other in [i for i, j in self.running.items() if j is job]:
                    del self.running[other]
                    self.notifier.unwatch([other])
                    self._revoke_quietly(other)
                result["notified"] = at
                result["sent"] = job.sent_at
                self._last_iteration = job.priority[:2]
                job.future.set_result(result)
                continue
            if isinstance(result, BadTaskArguments) or (
                isinstance(result, Exception) and type(result).__name__ == "BadTaskArguments"
            ):
                job.future.set_exception(BadTaskArguments(str(result)))
                continue
            if self.deadline is not None and now >= self.deadline:
                job.future.set_exception(
                    SearchDeadlineExceeded("the deadline passed in the middle of a depth")
                )
                continue
            if any(j is job for j in self.running.values()):
                continue  # a duplicate is still running
            if job.dispatches >= 4:
                job.future.set_exception(
                    TaskFailed(f"subtree task failed {job.dispatches} times: {result!r}")
                )
                continue
            log.info("subtree task %s ended %s (%r): dispatching it again", task_id, status, result)
            self.stats.redispatched += 1
            heapq.heappush(self.waiting, job)
        self._check_alive(now, alive)
        if self.deadline is not None and now >= self.deadline + DEADLINE_GRACE:
            # Tasks stop at the deadline and answer (incomplete); one that has not answered by
            # now may never answer (its worker vanished): end the depth without it.
            for job in {id(j): j for j in self.running.values()}.values():
                if not job.future.done():
                    job.future.set_exception(
                        SearchDeadlineExceeded("the deadline passed in the middle of a depth")
                    )
            return
        # Stragglers: a task that should long be done (its worker machine may be gone).
        for job in {id(j): j for j in self.running.values()}.values():
            if now - job.sent_at > self.straggler_after and job.dispatches < 3:
                log.info("subtree task has run %.1f s: sending a duplicate", now - job.sent_at)
                self.stats.redispatched += 1
                self._send(job, self._other_worker(job))

    def _check_alive(self, now: float, alive: list[tuple[str, bytes | str | None]]) -> None:
        """Tasks that started (their alive key was seen) and whose key expired without a result
        died with their worker (a SIGKILLed pool process or Celery main process, a lost
        machine): send them again now rather than after the broker's visibility timeout (a
        duplicate of a task that was only late is harmless: the first result wins). Their worker
        becomes a suspect: no work goes to it until it answers a ping; one that does not answer
        leaves the affinity set, and the tasks waiting on its own queue are sent again. Checked
        twice a second (:meth:`_read_alive`)."""
        lost: list[str] = []
        for task_id, value in alive:
            if task_id not in self.running:
                continue
            if value is not None:
                self.seen_alive.add(task_id)
            elif task_id in self.seen_alive:
                lost.append(task_id)
            elif (
                task_id not in self.start_checked
                and now - self.sent_at.get(task_id, now) > START_PATIENCE
                and self.on_worker.get(task_id) is not None
            ):
                # Sent to a worker's own queue (never more tasks than its pool) and not started:
                # the worker may have died between tasks. Ping it; if it does not answer, its
                # queued tasks go elsewhere (``_pinged``).
                self.start_checked.add(task_id)
                self._suspect(self.on_worker[task_id])
        for task_id in lost:
            self.seen_alive.discard(task_id)
            worker = self.on_worker.get(task_id)
            if worker is not None:
                self._suspect(worker)
            log.warning("subtree task %s died with its worker: dispatching it again", task_id)
            self._requeue(task_id)

    def _requeue(self, task_id: str) -> None:
        job = self.running.pop(task_id, None)
        self.sent_at.pop(task_id, None)
        self.start_checked.discard(task_id)
        if job is None:
            return
        self.notifier.unwatch([task_id])
        self.sender.cancel_soon([task_id])  # should the broker redeliver it later: drop it
        if job.future.done() or any(j is job for j in self.running.values()):
            return
        self.stats.redispatched += 1
        job.prefer = None
        job.queued_at = 0.0
        heapq.heappush(self.waiting, job)

    def _suspect(self, worker: str) -> None:
        if self.workers is None or worker in self.suspects or worker not in self.workers:
            return
        self.suspects.add(worker)
        fut = asyncio.get_running_loop().run_in_executor(None, self._ping, worker)
        fut.add_done_callback(lambda f: self._pinged(worker, bool(not f.exception() and f.result())))

    def _ping(self, worker: str) -> bool:
        return bool(self.app.control.ping(destination=[worker], timeout=PING_TIMEOUT))

    def _pinged(self, worker: str, alive: bool) -> None:
        self.suspects.discard(worker)
        if not alive and self.workers is not None and len(self.workers) > 1:
            self.workers.pop(worker, None)
            self.lost_workers.add(worker)
            log.warning("worker %s lost a task and does not answer: no more work goes to it", worker)
            # Tasks on its own queue that never started would wait there forever.
            for task_id in [i for i in self.running if self.on_worker.get(i) == worker]:
                if task_id not in self.seen_alive:
                    self._requeue(task_id)
        self._wake.set()

    def _other_worker(self, job: _Job) -> str | None:
        """The freest worker not already running ``job`` (None: the shared queue)."""
        if self.workers is None:
            return None
        busy = {self.on_worker.get(i) for i in job.task_ids}
        free = {w: n for w, n in self._free_slots().items() if w not in busy}
        return max(free, key=lambda k: free[k]) if free else None

    def _revoke_quietly(self, task_id: str) -> None:
        self.sender.cancel_soon([task_id])


ALIVE_PREFIX = redis_keys.ALIVE_PREFIX
"""``griot:alive:<task id>``: renewed by a running task (``griot.workers.runner.ALIVE_PREFIX``)."""
_TAG: contextvars.ContextVar[tuple[int, int, int]] = contextvars.ContextVar("griot_cluster_tag")
"""(distributed iteration, eldest chain, 1 if below a speculative search) of the subtree searches
made in this asyncio task."""
TRACE_KEYS = ("sent", "taken", "started", "search_started", "search_ended", "finished", "notified")
SAFETY_POLL = 0.2
"""Seconds between two reads of every running task's result: the safety net for a result message
lost (the subscriber's connection dropped and came back between two messages); results normally
arrive by message."""
READY_STATES = frozenset({"SUCCESS", "FAILURE", "REVOKED"})
ALIVE_CHECK_EVERY = 0.5
START_PATIENCE = 3.0
"""Seconds a task sent to a worker's own queue may wait to start before the worker is pinged."""
PING_TIMEOUT = 2.0
"""Seconds a worker suspected dead has to answer a ping."""
YIELD_TURNS = 64
"""Event-loop turns the scheduler lets pass after results came, before it fills free slots with a
later iteration's jobs (the current iteration makes its follow-up jobs in a few)."""
DEADLINE_GRACE = 2.0
"""Seconds past the deadline after which tasks still without an answer are given up."""

# -- the top of the tree ---------------------------------------------------------------------


class _Node:
    """A position in the top plies: its children (made once) and what earlier iterations learnt."""

    __slots__ = ("children", "estimates", "key", "order", "position", "text", "windows", "worker")

    def __init__(self, position: griot.Position) -> None:
        self.position = position
        self.text = str(position)
        self.key = position.zobrist
        self.children: list[tuple[str, _Node, int]] | None = None  # (move, node, sign)
        self.order: list[int] | None = None
        self.estimates: dict[int, int] = {}  # depth -> value found (node-relative)
        self.worker: str | None = None  # the worker that searched this subtree last
        # depth -> the window (node-relative) of the last task that searched this subtree to
        # that depth: the next, deeper task repeats them in its shallower iterations.
        self.windows: dict[int, tuple[int, int]] = {}

    def expand(self) -> list[tuple[str, _Node, int]]:
        if self.children is None:
            side = self.position.side_to_move
            self.children = [
                (str(m), _Node(c), -1 if c.side_to_move != side else 1) for m, c in self.position.successors()
            ]
            self.order = list(range(len(self.children)))
        return self.children

    def estimate(self, depth: int, low: bool = False) -> int | None:
        """The value this node is expected to have at ``depth``: its value at the previous depth
        of the same parity, else the nearest earlier one; ``low``: the lower of the two previous
        depths' values, when both are known."""
        if low and depth - 1 in self.estimates and depth - 2 in self.estimates:
            return min(self.estimates[depth - 1], self.estimates[depth - 2])
        for d in (depth - 2, depth - 1, depth - 3):
            if d in self.estimates:
                return self.estimates[d]
        return None


def _outcome_value(pos: griot.Position, outcome: Any) -> int:
    if outcome.winner is None:
        return 0
    return WIN if outcome.winner == pos.side_to_move else -WIN


@dataclass
class _Found:
    value: int
    bound: str
    pv: list[str]


async def _decided(fails_low: bool, sign: int) -> _Found:
    """A child's result for a window beyond every possible value, in the child's terms: seen from
    the parent an upper bound of a win in one ply (``fails_low``) or a lower bound of a loss in one."""
    v, bound = (WIN - 1, UPPER) if fails_low else (1 - WIN, LOWER)
    if sign < 0:
        return _Found(-to_child(v), {LOWER: UPPER, UPPER: LOWER}[bound], [])
    return _Found(to_child(v), bound, [])


class ClusterSearch:
    """Searches positions across the Celery workers (see the module header).

    ``capacity``: tasks kept queued or running (about the number of pool processes of the
    workers serving ``queue``); ``split``: top plies the caller expands (1 = root moves, 2 = their
    replies); ``direct_depth``: depths up to this one run as a single task (too small to split);
    ``min_task_depth``: a subtree shallower than this is not split further; ``pv_split``: extra
    plies split along the principal variation (its eldest-brother chain is the critical path of
    young-brothers-wait; splitting it deeper shortens that path); ``workers``: the
    worker nodes and their pool sizes (:func:`cluster_workers`): subtrees then go to the worker
    that searched them at the previous depth (its table holds that work), through its own queue;
    None sends every task to ``queue``, for any free worker. ``direct_seconds``: the first
    task goes on past ``direct_depth`` (up to the search's depth) as long as its next iteration
    is foreseen to end within that many seconds: the distributed iterations then start where a
    depth's work is large enough for tasks to be worth their fixed cost (a few ms each).
    ``overlap``: depth ``d + 1`` is searched beside depth ``d``, its tasks sent only into slots
    depth ``d`` has no task for (its eldest brothers' waits, its tail), at a lower priority than
    every task of depth ``d``; each depth's value stays exact (per-child intervals), depths are
    still reported in order, the last one exact; an earlier depth's value may take a deeper
    value from the next depth's entries in the workers' tables and the Redis tier ("deeper
    wins"), so it can differ from the in-process value at that depth: off by default.
    ``overlap_after``: depth ``d + 1`` starts once depth ``d``'s
    principal-variation node at that ply has its eldest child's result (0: the root; the
    principal variation below it, which orders depth ``d + 1``'s, is then searched); None: at
    once. ``speculate``: True everywhere, ``"pv"`` on the principal variation's nodes
    only (their younger brothers start while the eldest runs, in slots nothing else needs).
    ``guess``: where those speculative null windows go: ``"low"`` (the default) the lower of
    the node's values at the two previous depths, ``"previous"`` its value at the previous depth
    of the same parity. A guess above the value the eldest then sets is revoked and searched
    again at it, which the lower guess makes rarer (bench/RESULTS-workers.md: at depth 24 two
    workers then search as many nodes as one).
    """

    def __init__(
        self,
        app: Celery,
        *,
        queue: str = "griot.interactive",
        capacity: int = 2,
        split: int = 1,
        direct_depth: int = 8,
        min_task_depth: int = 4,
        speculate: bool | str = "pv",
        use_cache: bool = True,
        straggler_after: float = 60.0,
        outage_grace: float = 30.0,
        poll: float = 0.002,
        workers: dict[str, int] | None = None,
        pv_split: int = 2,
        iteration_windows: bool = True,
        direct_seconds: float | None = None,
        overlap: bool = False,
        overlap_after: int | None = 0,
        guess: str = "low",
        resume: bool = True,
    ) -> None:
        if guess not in ("previous", "low"):
            raise ValueError(f"guess must be 'previous' or 'low', got {guess!r}")
        self.guess = guess
        self.resume = resume
        self.app = app
        self.overlap = overlap
        self.overlap_after = overlap_after
        self._pv_eldest: dict[tuple[int, int], asyncio.Event] = {}
        self.direct_seconds = direct_seconds
        self.iteration_windows = iteration_windows
        self.workers = workers
        self.pv_split = pv_split
        self._iteration = 0
        self._search_id = ""
        self.queue = queue
        self.capacity = capacity
        self.split = split
        self.direct_depth = direct_depth
        self.min_task_depth = min_task_depth
        self.speculate = speculate
        self.use_cache = use_cache
        self.straggler_after = straggler_after
        self.outage_grace = outage_grace
        self.poll = poll
        self.stats = TaskStats()

    # -- public API ----------------------------------------------------------------------------

    async def iterate(
        self,
        position: griot.Position | str,
        depth: int,
        *,
        time_limit: float | None = None,
        history: Sequence[griot.Position | str] = (),
    ) -> AsyncIterator[DepthResult]:
        """Yields one :class:`DepthResult` per completed depth, up to ``depth``; stops early when
        ``time_limit`` seconds pass (the last completed depth stands)."""
        pos = position if isinstance(position, griot.Position) else griot.Position(position)
        hist = [h if isinstance(h, griot.Position) else griot.Position(h) for h in history]
        start = time.time()
        deadline = start + time_limit if time_limit is not None else None
        self.stats = TaskStats()
        # Names this search for the workers: its tasks on one pool process continue one table
        # generation (griot.workers.runner._generation).
        self._search_id = uuid.uuid4().hex
        sched = Scheduler(
            self.app,
            self.queue,
            self.capacity,
            deadline,
            self.straggler_after,
            self.outage_grace,
            self.poll,
            self.stats,
            workers=self.workers,
        )
        sched.start()
        root = _Node(pos)
        iterations: dict[int, asyncio.Task[_Found]] = {}
        distributed: set[int] = set()  # depths begun as distributed iterations
        self._pv_eldest = {}

        def begin(d: int) -> None:
            async def run() -> _Found:
                _TAG.set((d, 0, 0))
                if self.overlap_after is not None and d - 1 in distributed:
                    # Depth d's principal variation below that ply is then searched: depth
                    # d + 1's eldest chain is ordered by it.
                    await self._eldest_done(d - 1, self.overlap_after).wait()
                return await self._node(sched, root, d, -INFINITE, INFINITE, [*hist], 0)

            if d not in distributed and d <= depth:
                distributed.add(d)
                iterations[d] = asyncio.get_running_loop().create_task(run())

        try:
            first = min(depth, self.direct_depth)
            if not pos.legal_moves():
                first = depth
            direct = await self._direct(sched, root, hist, first, start, deadline, depth)
            first = max(first, direct.depth) if direct.depth <= depth else first
            yield direct
            for d in range(first + 1, depth + 1):
                if deadline is not None and time.time() >= deadline:
                    return
                self._iteration = d
                begin(d)
                if self.overlap:
                    # The next depth runs beside this one, its jobs after every job of this one
                    # (Scheduler: a later iteration only fills slots this one leaves free).
                    begin(d + 1)
                try:
                    found = await iterations.pop(d)
                except SearchDeadlineExceeded:
                    return
                self.stats.depth_done[d] = time.time()
                if self.overlap_after is not None:  # (that node may have been one task)
                    self._eldest_done(d, self.overlap_after).set()
                yield self._result(root, d, found, start)
        finally:
            for t in iterations.values():
                t.cancel()
            if iterations:
                await asyncio.gather(*iterations.values(), return_exceptions=True)
            await sched.close()

    def search(
        self,
        position: griot.Position | str,
        depth: int,
        *,
        time_limit: float | None = None,
        history: Sequence[griot.Position | str] = (),
        on_depth: Callable[[DepthResult], object] | None = None,
    ) -> DepthResult:
        """Blocking form of :meth:`iterate`: returns the deepest completed depth."""

        async def run() -> DepthResult:
            last = None
            async for r in self.iterate(position, depth, time_limit=time_limit, history=history):
                last = r
                if on_depth is not None:
                    on_depth(r)
            if last is None:
                raise SearchDeadlineExceeded("no depth completed before the deadline")
            return last

        return asyncio.run(run())

    # -- internals -----------------------------------------------------------------------------

    def _tag(self) -> tuple[int, int, int]:
        """This asyncio task's :data:`_TAG`: (its iteration, eldest chain, below a speculative
        search), the current iteration's untagged default outside any."""
        return _TAG.get((self._iteration, 0, 0))

    def _eldest_done(self, depth: int, ply: int) -> asyncio.Event:
        """Set when the principal variation's node at ``ply`` has its eldest child's first
        result at ``depth``."""
        return self._pv_eldest.setdefault((depth, ply), asyncio.Event())

    async def _direct(
        self,
        sched: Scheduler,
        root: _Node,
        hist: list[griot.Position],
        depth: int,
        start: float,
        deadline: float | None,
        max_depth: int | None = None,
    ) -> DepthResult:
        """The first depths in one task (multi-PV, so every root move gets an exact score that
        orders the next iteration): ``depth``, or with ``direct_seconds`` as many up to
        ``max_depth`` as fit in that time."""
        budgeted = self.direct_seconds is not None and max_depth is not None and max_depth > depth
        kwargs = position_args(
            root.position.variant.canonical,
            root.text,
            depth=max_depth if budgeted else depth,
            multipv=0,
            history=[str(h) for h in hist],
            deadline=deadline,
            search_id=self._search_id,
            min_depth=depth if budgeted else None,
            budget=self.direct_seconds if budgeted else None,
        )

        async def send() -> AsyncResult:
            task_id = sched.new_task_id()
            sched.send(SEARCH_POSITION, task_id, kwargs, self.queue, f"{root.text} depth {depth}")
            try:
                await sched.flush()
            except BaseException:
                sched.withdraw(task_id)  # sent again with a new id
                raise
            self.stats.sent += 1
            return AsyncResult(task_id, app=self.app)

        sent_at = time.time()
        r = await self._guarded_async(send)
        seen_alive, checked = False, time.time()
        while True:
            # Woken by the result's message; read directly at least every safety poll.
            try:
                meta = await self._guarded_async(partial(sched.wait_result, r.id, SAFETY_POLL))
            except asyncio.CancelledError:
                # The search was cancelled: its first task stops too (with ``direct_seconds`` it
                # may have a second of work left).
                sched.done_with([r.id])
                sched.sender.cancel_soon([r.id])
                raise
            if meta is not None:
                break
            now = time.time()
            if deadline is not None and now > deadline:
                sched.done_with([r.id])
                sched.sender.cancel_soon([r.id])
                raise SearchDeadlineExceeded("the first depth did not complete before the deadline")
            if now - checked >= ALIVE_CHECK_EVERY:
                # As for subtrees (Scheduler._check_alive): a task whose alive key was seen and
                # expired without a result died with its worker; send it again at once.
                checked = now
                alive = await self._guarded_async(partial(sched.redis.exists, ALIVE_PREFIX + r.id))
                if alive:
                    seen_alive = True
                elif seen_alive and not await self._guarded_async(partial(sched.read_results, [r.id])):
                    log.warning("position task %s died with its worker: dispatching it again", r.id)
                    sched.done_with([r.id])
                    sched.sender.cancel_soon([r.id])
                    self.stats.redispatched += 1
                    r = await self._guarded_async(send)
                    seen_alive = False
        sched.done_with([r.id])
        res = meta.get("result")
        self.stats.first = {"sent": sent_at, "notified": time.time()}
        if isinstance(res, dict):
            self.stats.first |= {k: res[k] for k in ("started", "finished") if isinstance(res.get(k), float)}
        if meta.get("status") != "SUCCESS":
            if type(res).__name__ == "BadTaskArguments":
                raise BadTaskArguments(str(res))
            raise TaskFailed(f"search_position failed: {res!r}")
        self.stats.nodes += res["nodes"]
        root.estimates[res["depth"]] = res["value"]
        moves = [MoveValue(m["move"], m["value"], m["bound"]) for m in res["moves"]]
        if root.position.legal_moves():
            children = root.expand()
            index = {m: i for i, (m, _, _) in enumerate(children)}
            root.order = [index[m.move] for m in moves if m.move in index]
            for _, subtree, _ in children:  # that worker's kept table holds them
                subtree.worker = res.get("node")
                # searched there with full windows (multi-PV) to every depth below the task's
                subtree.windows = {d: (-INFINITE, INFINITE) for d in range(1, res["depth"])}
            for mv in moves:  # child estimates from the exact per-move scores
                child = children[index[mv.move]]
                child[1].estimates[res["depth"] - 1] = (
                    child[2] * to_child(mv.value) if child[2] < 0 else to_child(mv.value)
                )
        return DepthResult(
            depth=res["depth"],
            best_move=res["best"],
            value=res["value"],
            score=res["score"],
            pv=res["pv"],
            moves=moves,
            nodes=self.stats.nodes,
            elapsed=time.time() - start,
            tasks=self.stats.sent,
            cache_answers=self.stats.cache_answers,
            redispatched=self.stats.redispatched,
        )

    async def _guarded_async(self, fn: Callable[[], Awaitable[Any]]) -> Any:
        """``await fn()``, retried while the broker or the result backend is unreachable, up to
        ``outage_grace`` seconds."""
        since = None
        while True:
            try:
                return await fn()
            except (redis.ConnectionError, redis.TimeoutError, OperationalError, OSError) as e:
                since = await self._outage(since, e)

    async def _outage(self, since: float | None, error: Exception) -> float:
        """One failed attempt of an outage that began at ``since`` (now if None): raises
        ClusterUnavailable once it has lasted ``outage_grace`` seconds, else waits 0.2 s before
        the next attempt. Returns when the outage began."""
        now = time.time()
        since = since or now
        if now - since > self.outage_grace:
            raise ClusterUnavailable(
                f"the broker or result backend has been unreachable for {now - since:.1f} s: {error}"
            ) from error
        await asyncio.sleep(0.2)
        return since

    def _result(self, root: _Node, depth: int, found: _Found, start: float) -> DepthResult:
        assert found.bound == EXACT, found
        moves = []
        for i in root.order or []:
            mv, child, sign = root.children[i]  # type: ignore[index]
            v = child.estimates.get(depth - 1)
            if v is None:
                continue
            pv = from_child(v) * sign if sign < 0 else from_child(v)
            best = found.pv[0] if found.pv else None
            moves.append(MoveValue(mv, pv, EXACT if mv == best else UPPER))
        return DepthResult(
            depth=depth,
            best_move=found.pv[0] if found.pv else None,
            value=found.value,
            score=score_text(found.value),
            pv=found.pv,
            moves=moves,
            nodes=self.stats.nodes,
            elapsed=time.time() - start,
            tasks=self.stats.sent,
            cache_answers=self.stats.cache_answers,
            redispatched=self.stats.redispatched,
        )

    async def _leaf(
        self,
        sched: Scheduler,
        node: _Node,
        depth: int,
        alpha: int,
        beta: int,
        path: list[griot.Position],
        priority: tuple[int, ...],
    ) -> _Found:
        iteration, chain, _ = self._tag()
        again = depth in node.windows  # searched at this depth already (another window)
        kwargs = subtree_args(
            node.position.variant.canonical,
            node.text,
            depth,
            alpha,
            beta,
            history=[str(p) for p in path],
            use_cache=self.use_cache,
            search_id=self._search_id,
            resume=True if self.resume else None,
        )

        def prepare() -> dict[str, Any]:
            # At sending time: an earlier iteration's task on this node may have ended since.
            if self.iteration_windows:
                kwargs["windows"] = [[d, a, b] for d, (a, b) in sorted(node.windows.items()) if d < depth]
            return kwargs

        r = await sched.run(kwargs, (iteration, *priority), prefer=node.worker, node=node, prepare=prepare)
        if r.get("source") == "search":
            node.windows[depth] = (alpha, beta)
            node.worker = r.get("worker")
            self.stats.nodes += r["nodes"]
            self.stats.cpu += r.get("search_cpu", 0.0)
            self.stats.timings.append(
                (
                    r["started"] - r["sent"],
                    r["finished"] - r["started"],
                    r["nodes"],
                    iteration,
                    r["sent"],
                )
            )
            self.stats.trace.append(
                {k: r[k] for k in TRACE_KEYS if isinstance(r.get(k), float)}
                | {
                    "depth": iteration,
                    "chain": chain,
                    "ply": priority[-1],
                    "spec": priority[0],
                    "wide": float(beta - alpha > 1),
                    "again": float(again),
                }
            )
        else:
            self.stats.cache_answers += 1
        return _Found(r["value"], r["bound"], list(r.get("pv") or []))

    async def _node(
        self,
        sched: Scheduler,
        node: _Node,
        depth: int,
        alpha: int,
        beta: int,
        path: list[griot.Position],
        ply: int,
        pv: bool = True,
    ) -> _Found:
        """The value of ``node`` searched to ``depth`` with window ``(alpha, beta)`` (fail-soft,
        node-relative), its top plies here, the rest in tasks. Nodes on the principal variation
        (``pv``: eldest children from the root down) are split ``pv_split`` plies deeper: their
        subtrees are the ones everything else waits for."""
        limit = self.split + (self.pv_split if pv else 0)
        pos = node.position
        if ply > 0 and any(p.zobrist == node.key for p in path):
            # A repetition ends the game as an endless cycle, as in the core.
            return _Found(_outcome_value(pos, pos.endless_outcome()), EXACT, [])
        outcome = pos.outcome
        if outcome is not None and not pos.legal_moves():
            return _Found(_outcome_value(pos, outcome), EXACT, [])
        if ply >= limit or depth - 1 < self.min_task_depth or not pos.legal_moves():
            found = await self._leaf(sched, node, depth, alpha, beta, path, (self._tag()[2], ply))
            node.estimates[depth] = found.value
            return found

        children = node.expand()
        assert node.order is not None
        n = len(children)
        lo = [-INFINITE] * n
        hi = [INFINITE] * n
        pvs: list[list[str]] = [[] for _ in range(n)]
        running: dict[int, asyncio.Task[_Found]] = {}
        windows: dict[int, tuple[int, int]] = {}
        eldest = node.order[0]
        child_path = [*path, pos]
        # (With one slot nothing is idle while the eldest runs: no speculation.)
        spec = (self.speculate is True or (self.speculate == "pv" and pv)) and sched.capacity > 1
        specs: set[int] = set()  # children whose running search is speculative
        dropped: list[asyncio.Task[_Found]] = []
        est = node.estimate(depth, low=self.guess == "low") if spec else None
        attempts = [0] * n
        guess: int | None = None  # the speculative null window's, until the eldest sets the floor

        def launch(i: int, a: int, b: int, speculative: bool) -> None:
            _, child, sign = children[i]
            if a >= WIN - 1 or b <= 1 - WIN:
                # Seen from here a child is worth at most a win (or at least a loss) in one ply, so
                # this window is decided without a search; one ply lower it would be empty.
                windows[i] = (a, b)
                attempts[i] += 1
                running[i] = asyncio.get_running_loop().create_task(_decided(a >= WIN - 1, sign))
                return
            if sign < 0:
                ca, cb = -to_child(b), -to_child(a)
            else:
                ca, cb = to_child(a), to_child(b)
            ca, cb = max(ca, -INFINITE), min(cb, INFINITE)
            windows[i] = (a, b)
            attempts[i] += 1
            below = self._tag()[2]
            prio = (1 if speculative or below else 0, ply)
            if speculative:
                specs.add(i)
                self.stats.speculative += 1
            else:
                specs.discard(i)

            child_pv = pv and i == eldest
            child_limit = self.split + (self.pv_split if child_pv else 0)

            async def go() -> _Found:
                it, chain, _ = self._tag()
                # (A speculative search's subtree is speculative all the way down.)
                _TAG.set((it, ply + 1 if child_pv else chain, prio[0]))
                if ply + 1 >= child_limit or depth - 2 < self.min_task_depth:
                    return await self._leaf_or_terminal(
                        sched, child, depth - 1, ca, cb, child_path, prio, ply + 1
                    )
                return await self._node(sched, child, depth - 1, ca, cb, child_path, ply + 1, child_pv)

            running[i] = asyncio.get_running_loop().create_task(go())

        try:
            while True:
                best_lo = max(lo)
                floor = max(alpha, best_lo)
                if guess is not None and best_lo > -INFINITE:
                    self.stats.guesses.append((self._tag()[0], ply, guess, best_lo))
                    guess = None
                if best_lo >= beta:
                    found = _Found(best_lo, LOWER, pvs[lo.index(best_lo)])
                    break
                unresolved = [i for i in node.order if hi[i] > floor and lo[i] < hi[i]]
                if not unresolved:
                    if best_lo > alpha:
                        found = _Found(best_lo, EXACT, pvs[lo.index(best_lo)])
                    else:
                        found = _Found(max(hi), UPPER, [])
                    break
                started_any = any(lo[i] > -INFINITE or hi[i] < INFINITE for i in range(n))
                for i in [
                    i
                    for i in specs
                    if i in running
                    and floor > -INFINITE
                    and (
                        windows[i][0] > floor or (windows[i][0] != floor and sched.waiting_on(children[i][1]))
                    )
                ]:
                    # A speculative null window above the floor: its likely answer (fails low)
                    # would not settle the child against the floor. Revoked; searched again at
                    # the floor below. One below the floor that has not been sent yet is
                    # replaced at no cost by the search at the floor.
                    specs.discard(i)
                    t = running.pop(i)
                    t.cancel()
                    dropped.append(t)
                    self.stats.dropped += 1
                for i in unresolved:
                    if i in running:
                        continue
                    if i == eldest and not started_any:
                        launch(i, alpha, beta, False)
                    elif best_lo > -INFINITE and lo[i] == best_lo and best_lo > alpha:
                        # The best so far, known only as a bound: its exact value is needed.
                        others = max([alpha] + [lo[j] for j in range(n) if j != i])
                        launch(i, others, beta, False)
                    elif floor > -INFINITE and (started_any or i == eldest):
                        launch(i, floor, floor + 1, False)
                    elif est is not None and spec and not started_any:
                        g = min(max(alpha, est), beta - 1)
                        guess = g
                        launch(i, g, g + 1, True)
                if not running:
                    raise RuntimeError(f"distributed search stalled at {node.text} depth {depth}")
                done, _ = await asyncio.wait(running.values(), return_when=asyncio.FIRST_COMPLETED)
                for i, t in list(running.items()):
                    if t not in done:
                        continue
                    del running[i]
                    specs.discard(i)
                    r = t.result()
                    mv, child, sign = children[i]
                    v = from_child(r.value)
                    b = r.bound
                    if sign < 0:
                        v = -v
                        b = {LOWER: UPPER, UPPER: LOWER}.get(b, b)
                    if b == EXACT:
                        lo[i] = hi[i] = v
                    elif b == LOWER:
                        lo[i] = max(lo[i], v)
                    else:
                        hi[i] = min(hi[i], v)
                    if lo[i] > hi[i]:
                        # Two searches disagree (a deeper cached value in one of them): trust
                        # the latest alone.
                        lo[i], hi[i] = (
                            (v, v) if b == EXACT else ((v, INFINITE) if b == LOWER else (-INFINITE, v))
                        )
                    if b != UPPER:
                        pvs[i] = [mv, *r.pv]
                    if pv and i == eldest and self.overlap and ply == self.overlap_after:
                        self._eldest_done(depth, ply).set()
                    if attempts[i] > 8:
                        raise TaskFailed(f"child {mv} of {node.text} would not settle")
        finally:
            for t in running.values():
                t.cancel()
            if running or dropped:
                await asyncio.gather(*running.values(), *dropped, return_exceptions=True)

        # Next iteration's order: exact and lower-bounded children by value, then the rest by
        # their upper bound (the engine's root ordering).
        rank = {i: k for k, i in enumerate(node.order)}
        node.order = sorted(
            range(n),
            key=lambda i: (
                (0, -lo[i]) if lo[i] > -INFINITE else (1, -hi[i]) if hi[i] < INFINITE else (2, rank[i])
            ),
        )
        for i, (_, child, sign) in enumerate(children):
            if lo[i] > -INFINITE or hi[i] < INFINITE:
                v = lo[i] if lo[i] > -INFINITE else hi[i]
                child.estimates[depth - 1] = -to_child(v) if sign < 0 else to_child(v)
        node.estimates[depth] = found.value
        return found

    async def _leaf_or_terminal(
        self,
        sched: Scheduler,
        node: _Node,
        depth: int,
        alpha: int,
        beta: int,
        path: list[griot.Position],
        priority: tuple[int, ...],
        ply: int,
    ) -> _Found:
        pos = node.position
        if any(p.zobrist == node.key for p in path):
            return _Found(_outcome_value(pos, pos.endless_outcome()), EXACT, [])
        outcome = pos.outcome
        if outcome is not None and not pos.legal_moves():
            return _Found(_outcome_value(pos, outcome), EXACT, [])
        return await self._leaf(sched, node, depth, alpha, beta, path, priority)


def cluster_workers(app: Celery, queue: str, timeout: float = 1.0) -> dict[str, int]:
    """The worker nodes consuming ``queue`` and their pool sizes (asks them)."""
    insp = app.control.inspect(timeout=timeout)
    stats = insp.stats() or {}
    active = insp.active_queues() or {}
    out = {}
    for worker, info in stats.items():
        if any(q.get("name") == queue for q in active.get(worker, [])):
            out[worker] = int(info.get("pool", {}).get("max-concurrency", 1))
    return out
