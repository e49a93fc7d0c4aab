"""The callers' side of the search tasks, on Celery's and redis-py's public APIs.

- :class:`TaskClient`: the one asynchronous task client (the gateway's dispatcher and the
  distributed search use it): publish, results by notification with a safety poll, cancel,
  liveness and re-dispatch of a task whose worker died, one retry policy.
- :class:`TaskRunner`: what the distributed search sends its subtree tasks through.
  :class:`ClientRunner` runs them on a :class:`TaskClient` of its own (standalone callers: CLI,
  bench); the gateway's runner admits them through its dispatcher, under the caller's quota.
- :class:`TaskSender` publishes tasks with ``Celery.send_task`` on one kept producer
  (``app.producer_or_acquire``), in a thread of its own so that the broker's round trips never
  block the caller's event loop; a batch of tasks is one hop to that thread. Any Celery broker
  works (Redis, RabbitMQ).
- :class:`ResultNotifier` learns of finished tasks from the result backend's pub/sub messages
  (Celery's Redis backend publishes each stored result on the channel named after its key),
  through ``redis.asyncio``'s :class:`~redis.asyncio.client.PubSub`.
- :func:`cancel` revokes tasks and asks running ones to stop.
- :data:`RETRY_POLICY`: how long a publish waits for a broker that fails (one policy for every
  caller); a client's ``outage_grace`` is how long it goes on trying after that (sends, and the
  safety poll of the result backend) before its tasks fail with ``ClusterUnavailable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import redis.asyncio as aioredis
from celery import Celery
from celery.result import AsyncResult
from celery.utils.nodenames import worker_direct
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from griot import redis_keys
from griot.tasks.errors import ClusterUnavailable
from griot.tasks.outcome import TaskOutcome
from griot.tasks.queues import waiting_messages

log = logging.getLogger(__name__)

RETRY_POLICY: dict[str, float] = {
    "max_retries": 2,
    "interval_start": 0.1,
    "interval_step": 0.2,
    "interval_max": 0.5,
}
"""How publishing tasks is retried: :meth:`TaskClient.send` tries again after these pauses (then on
for ``outage_grace``). The one policy: Celery publishes each batch once (``retry=False``), so a
failed batch is not retried inside Celery and again here."""

RESULT_PREFIX = "celery-task-meta-"
"""Celery's Redis backend: a task's result key and the channel its result is published on."""

CANCEL_PREFIX = redis_keys.CANCEL_PREFIX
"""``griot:cancel:<task id>`` (in the result backend's Redis): set by a caller that no longer
needs a running task's result; the task polls it and stops its search."""

RECONNECT_EVERY = 0.2
CONNECT_TIMEOUT = 5.0
CLIENT_NAME = "griot-results"
"""The result subscriber connection's name in ``CLIENT LIST``."""


@dataclass(frozen=True, slots=True)
class TaskRequest:
    """One task to publish: its name, id, keyword arguments and queue (a queue name, or a kombu
    ``Queue`` such as a worker's own), expiring at the Unix time ``expires`` if given.
    ``kwargsrepr`` is what a worker's log shows of the arguments (Celery would repr them all)."""

    name: str
    task_id: str
    kwargs: dict[str, Any]
    queue: Any
    expires: float | None = None
    kwargsrepr: str = ""


class TaskSender:
    """Publishes tasks through ``Celery.send_task`` on a thread of its own (see the module
    header): batches go out in the order they were given."""

    def __init__(self, app: Celery) -> None:
        self.app = app
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="griot-publish")

    def publish(self, requests: Sequence[TaskRequest]) -> int:
        """Publishes ``requests`` in the calling thread, as one batch of the producer where kombu
        batches (``Producer.batch``: the Redis transport sends the batch in one pipeline, on one
        client). A failure is raised with ``sent`` on it: how many surely went (none of a batch
        whose flush failed)."""
        sent = 0
        try:
            with self.app.producer_or_acquire() as producer:
                batch = getattr(producer, "batch", None)
                with batch() if batch is not None else contextlib.nullcontext():
                    for r in requests:
                        self.app.send_task(
                            r.name,
                            task_id=r.task_id,
                            kwargs=r.kwargs,
                            queue=r.queue,
                            expires=_expires(r.expires),
                            argsrepr="()",
                            kwargsrepr=r.kwargsrepr,
                            producer=producer,
                            retry=False,
                        )
                        if batch is None:
                            sent += 1
                sent = len(requests)
        except Exception as e:
            e.sent = sent  # type: ignore[attr-defined]
            raise
        return sent

    def warm(self) -> None:
        """Connects the producer (and loads the broker's transport) before the first task, and
        makes in this thread what ``send_task`` otherwise makes, and imports, on the first one:
        the app's message builder and its result backend (one per thread)."""
        self.app.amqp  # noqa: B018
        self.app.backend  # noqa: B018
        with self.app.producer_or_acquire() as producer:
            producer.connection.ensure_connection(max_retries=1)

    async def start(self) -> None:
        """:meth:`warm` off the event loop; a broker not reachable yet is only logged."""
        try:
            await asyncio.get_running_loop().run_in_executor(self._executor, self.warm)
        except Exception as e:
            log.warning("broker not reachable yet: %s", e)

    async def send(self, requests: Sequence[TaskRequest]) -> None:
        """Publishes ``requests`` off the event loop (raises what the broker raised; the
        exception's ``sent`` says how many went)."""
        if requests:
            await asyncio.get_running_loop().run_in_executor(self._executor, self.publish, requests)

    def cancel_soon(self, task_ids: Sequence[str]) -> asyncio.Future[None]:
        """:func:`cancel` off the event loop (best effort, after the tasks sent so far)."""
        return asyncio.get_running_loop().run_in_executor(self._executor, cancel, self.app, list(task_ids))

    def reachable(self) -> None:
        """Connects to the broker afresh (raises when it cannot): a connection made now, not the
        producer's, which a partition may hold open with nothing arriving."""
        with self.app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1)

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=False)


def cancel(app: Celery, task_ids: Sequence[str]) -> None:
    """Revokes tasks still queued (workers drop them) and asks running ones to stop: a revoke
    with ``terminate`` would signal a pool process that may already run another task. Blocking
    (the broker and the backend): call it off the event loop (:meth:`TaskSender.cancel_soon`)."""
    try:
        app.control.revoke(list(task_ids))
        client = app.backend.client
        pipe = client.pipeline(transaction=False)
        for i in task_ids:
            pipe.set(CANCEL_PREFIX + i, b"1", px=600_000)
        pipe.execute()
        for i in task_ids:
            AsyncResult(i, app=app).forget()
    except Exception as e:  # best effort: the task's own deadline ends it anyway
        log.debug("cancel failed: %s", e)


def backend_url(app: Celery) -> str:
    """The result backend's Redis URL (:func:`griot.tasks.app.client_app` prefixes it with the backend's
    class)."""
    url = str(app.conf.result_backend or app.conf.broker_url)
    return url.split("+", 1)[1] if "+" in url.split("://", 1)[0] else url


def _redis_broker(app: Celery, backend: aioredis.Redis) -> aioredis.Redis | None:
    """A client of ``app``'s broker when it is a Redis server: ``backend`` when the result backend
    is the same URL, else a new one; None for another broker."""
    url = str(app.conf.broker_url or "")
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    if url == backend_url(app):
        return backend
    opts = app.conf.broker_transport_options or {}
    return aioredis.Redis.from_url(
        url,
        socket_timeout=opts.get("socket_timeout", 5),
        socket_connect_timeout=opts.get("socket_connect_timeout", 5),
    )


def _expires(at: float | None) -> dt.datetime | None:
    return dt.datetime.fromtimestamp(at, tz=dt.UTC) if at is not None else None


async def _close_pubsub(ps: aioredis.client.PubSub) -> None:
    """Closes ``ps`` and waits until its socket is closed. redis-py's ``PubSub.aclose`` only
    starts closing it (``disconnect(nowait=True)``): over TLS the socket stays open until the
    server answers the TLS shutdown, and if the event loop ends first it is never closed. So the
    connection is disconnected here first, waiting (the caller no longer reads from it) at most
    :data:`CONNECT_TIMEOUT`: redis-py bounds the wait only by the client's own connect timeout,
    which a caller's client may not set, and a server that never answers must not stop the
    subscription from being opened again."""
    try:
        if ps.connection is not None:
            await asyncio.wait_for(ps.connection.disconnect(), CONNECT_TIMEOUT)
    finally:
        await ps.aclose()  # type: ignore[no-untyped-call]


class ResultNotifier:
    """Watches the result channels of chosen tasks: ``on_result(task_id, payload)`` for each
    result published (the payload is the whole stored result meta: no read needed).

    :meth:`watch` before a task is sent, then ``await`` :meth:`subscribed` before publishing it:
    the ``SUBSCRIBE`` is written first, so the result cannot be published before the caller
    listens. :meth:`unwatch` once its result is handled. A lost connection is reopened (every
    :data:`RECONNECT_EVERY` seconds while it fails) and every watched channel subscribed again;
    ``on_reconnect`` then tells the caller that messages may have been lost meanwhile, so it reads
    its results once. Call :meth:`start` in the event loop that runs the callbacks, :meth:`close`
    at the end."""

    def __init__(
        self,
        url: str,
        on_result: Callable[[str, bytes], None],
        on_reconnect: Callable[[], None] = lambda: None,
        prefix: str = RESULT_PREFIX,
    ) -> None:
        # No retries inside redis-py: a lost subscription is noticed here (on_reconnect).
        self.client = aioredis.Redis.from_url(
            url,
            socket_connect_timeout=CONNECT_TIMEOUT,
            client_name=CLIENT_NAME,
            retry=Retry(NoBackoff(), 0),
        )
        self.on_result = on_result
        self.on_reconnect = on_reconnect
        self.prefix = prefix
        self.watched: set[str] = set()
        self.messages = 0
        self.reconnects = 0
        self._pubsub: aioredis.client.PubSub | None = None
        self._to_subscribe: set[str] = set()
        self._to_unsubscribe: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self._writer: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    @property
    def connected(self) -> bool:
        return self._pubsub is not None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def wait_connected(self, timeout: float) -> bool:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), timeout)
        return self.connected

    def watch(self, task_ids: Iterable[str]) -> None:
        """Watches these tasks' result channels (subscribed by the next :meth:`subscribed`)."""
        new = [t for t in task_ids if t not in self.watched]
        self.watched.update(new)
        self._to_subscribe.update(new)
        self._to_unsubscribe.difference_update(new)

    def unwatch(self, task_ids: Iterable[str]) -> None:
        gone = [t for t in task_ids if t in self.watched]
        self.watched.difference_update(gone)
        self._to_subscribe.difference_update(gone)
        self._to_unsubscribe.update(gone)
        if self._to_unsubscribe and (self._writer is None or self._writer.done()):
            self._writer = asyncio.get_running_loop().create_task(self.subscribed())

    async def subscribed(self) -> None:
        """Writes the pending ``SUBSCRIBE`` and ``UNSUBSCRIBE`` commands. Not connected: the
        reconnection subscribes every watched channel."""
        ps = self._pubsub
        if ps is None:
            return
        try:
            if self._to_subscribe:
                channels = [self.prefix + t for t in self._to_subscribe]
                self._to_subscribe.clear()
                await ps.subscribe(*channels)
            if self._to_unsubscribe:
                channels = [self.prefix + t for t in self._to_unsubscribe]
                self._to_unsubscribe.clear()
                await ps.unsubscribe(*channels)
        except (aioredis.RedisError, OSError) as e:  # the reader notices and reconnects
            log.debug("result subscription: %s", e)

    async def _run(self) -> None:
        first = True
        while True:
            ps = self.client.pubsub()
            try:
                await ps.connect()  # type: ignore[no-untyped-call]
                self._to_subscribe.clear()
                self._to_unsubscribe.clear()
                if self.watched:
                    await ps.subscribe(*[self.prefix + t for t in self.watched])
                self._pubsub = ps
                self._ready.set()
                if not first:
                    self.reconnects += 1
                    log.info("result subscription: connected again")
                if self.watched:
                    # Results published while the connection was down (or before it first came
                    # up) reached nobody: the caller reads them once.
                    self.on_reconnect()
                first = False
                await self._read(ps)
            except asyncio.CancelledError:
                raise
            except (aioredis.RedisError, OSError, RuntimeError) as e:
                if self._pubsub is not None:
                    log.warning("result subscription lost (%s): reconnecting", e)
                else:
                    log.debug("result subscription: cannot connect (%s)", e)
            finally:
                self._pubsub = None
                with contextlib.suppress(Exception):
                    await _close_pubsub(ps)
            await asyncio.sleep(RECONNECT_EVERY)

    async def _read(self, ps: aioredis.client.PubSub) -> None:
        prefix = self.prefix.encode()
        while True:
            msg = await ps.get_message(timeout=None)
            if msg is None or msg.get("type") != "message":
                continue
            channel = msg["channel"]
            if isinstance(channel, bytes) and channel.startswith(prefix):
                task_id = channel[len(prefix) :].decode()
                if task_id in self.watched:
                    self.messages += 1
                    self.on_result(task_id, msg["data"])

    async def close(self) -> None:
        # Both are cancelled before either is awaited: a subscribe the writer sent while the
        # reader was being awaited could reconnect the subscription after it was closed.
        tasks = [t for t in (self._task, self._writer) if t is not None]
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        self._pubsub = None
        with contextlib.suppress(Exception):
            await self.client.aclose()


SAFETY_POLL = 0.2
"""Seconds between two reads of the running tasks' keys (results whose message was lost, progress,
liveness)."""
DELETE_EVERY = 0.1
"""Seconds a batch of read result keys may wait before its ``DEL``."""
MAX_DISPATCHES = 3
"""Times a task is sent in all when its worker keeps dying under it."""
START_PATIENCE = 3.0
"""Seconds a task may wait to start before its worker is pinged (sent to a worker's own queue) or
its queue is looked at (sent to a shared one), and between two such looks."""
QUEUE_CHECK_EVERY = 1.0
"""Seconds between two looks at the queues of tasks that have not started
(:meth:`TaskClient._check_unstarted`)."""
#: Seconds between two fresh connections to a broker a publish could not reach.
BROKER_PROBE_EVERY = 1.0
#: Seconds a publish may take before the broker counts as unreachable (a healthy one answers in
#: milliseconds; a partition lets a publish hang for the client's timeouts, 2 x 5 s).
PUBLISH_STALL = 2.0
PING_TIMEOUT = 2.0
"""Seconds a worker suspected dead has to answer a ping."""
BROKER_WATCH_EVERY = 1.0
"""Seconds between two reads of a Redis broker's ``run_id`` (:meth:`TaskClient._watch_broker`)."""


def _new_future() -> asyncio.Future[TaskOutcome]:
    return asyncio.get_running_loop().create_future()


@dataclass(eq=False)
class Task:
    """One task of a :class:`TaskClient`: sent, then done (``future``: its
    :class:`~griot.tasks.outcome.TaskOutcome`; or the exception that kept it from ending, such as
    :class:`~griot.tasks.errors.ClusterUnavailable`)."""

    name: str
    kwargs: dict[str, Any]
    queue: Any
    future: asyncio.Future[TaskOutcome] = field(default_factory=_new_future)
    expires: float | None = None
    kwargsrepr: str = ""
    #: Called with each progress report the task publishes (:func:`griot.redis_keys.progress_key`).
    on_progress: Callable[[bytes | str], None] | None = None
    #: A worker node whose own queue the task goes to (its kept table holds the task's work);
    #: ``queue`` if that worker turns out dead.
    worker: str | None = None
    #: Makes the arguments at each send from ``kwargs`` (what the caller learnt meanwhile).
    prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    task_id: str = ""
    dispatches: int = 0
    alive_seen: bool = False
    start_checked: bool = False
    #: Sent to a shared queue and not seen started: when its queue is next looked at (Unix
    #: seconds; :meth:`TaskClient._check_unstarted`).
    queue_check_at: float = 0.0
    #: When it was last sent and when its result came (Unix seconds), and how: ``"message"`` or
    #: ``"poll"`` (a message lost or late).
    sent_at: float = 0.0
    done_at: float = 0.0
    learnt: str = ""

    def request(self) -> TaskRequest:
        if self.prepare is not None:
            self.kwargs = self.prepare(self.kwargs)
        queue = worker_direct(self.worker) if self.worker else self.queue
        return TaskRequest(self.name, self.task_id, self.kwargs, queue, self.expires, self.kwargsrepr)


class TaskClient:
    """The asynchronous task client (one per event loop): publishes tasks through Celery's
    ``send_task`` off the loop (:class:`TaskSender`, retried with :data:`RETRY_POLICY`), learns
    their results from the result backend's pub/sub messages (one pattern subscription for results
    and progress reports, through ``redis.asyncio``) with a safety poll, cancels them, and
    re-dispatches a task whose worker died under it (its alive key, renewed while it runs, expired
    without a result; or, sent to a worker's own queue, it did not start and the worker does not
    answer a ping: it then goes to the shared queue, and the worker is in :attr:`lost_workers`), or
    that left the shared queue without reaching any worker (:meth:`_check_unstarted`).

    Outages: a send that fails is retried (:data:`RETRY_POLICY`, then on for ``outage_grace``
    seconds); while the result backend cannot be read, running tasks wait, and fail with
    :class:`ClusterUnavailable` once that has lasted ``outage_grace`` seconds (None: they wait
    for their deadline); when it can be read again every running task without a result is sent
    again (a restarted Redis without persistence lost its queue; duplicates are harmless).

    ``owns_backend``: :meth:`close` closes ``backend`` too. ``safety_poll``: seconds between two
    reads of the running tasks' keys; ``delete_every``: seconds read result keys may wait for
    their ``DEL`` (each is a Redis round trip through redis-py)."""

    def __init__(
        self,
        app: Celery,
        backend: aioredis.Redis,
        progress_prefix: str | None = None,
        *,
        outage_grace: float | None = None,
        owns_backend: bool = False,
        safety_poll: float = SAFETY_POLL,
        delete_every: float = DELETE_EVERY,
    ) -> None:
        self.app = app
        self.backend = backend
        self.owns_backend = owns_backend
        self.outage_grace = outage_grace
        self.safety_poll = safety_poll
        self.delete_every = delete_every
        self.sender = TaskSender(app)
        self.progress_prefix = progress_prefix if progress_prefix is not None else redis_keys.PROGRESS_PREFIX
        self.running: dict[str, Task] = {}
        self.listening = False
        self.redispatched = 0
        #: Times the result subscription was made again (a lost connection).
        self.resubscribed = 0
        #: Workers that lost a task and did not answer a ping: no task goes to their own queue.
        self.lost_workers: set[str] = set()
        self.outage_since: float | None = None
        #: Since when a publish could not reach the broker (None: the last one went, or a fresh
        #: connection has reached it since): callers refuse new work meanwhile.
        self.broker_down_since: float | None = None
        self._publishing_since: float | None = None
        self._subscribed_once = False
        self._progress_due = False
        self._pinging: set[str] = set()
        self._checking_queues = False
        self._next_queue_check = 0.0
        self._stale: list[str] = []
        self._poll_now = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._side: set[asyncio.Future[Any]] = set()
        #: A Redis broker's client (the result backend's when they are one server), watched for
        #: restarts; None for another broker (RabbitMQ confirms each publish and redelivers).
        self._broker = _redis_broker(app, backend)
        #: The Redis broker's ``run_id`` as last read (None: not read yet, or another broker).
        self.broker_run_id: str | None = None
        #: Times a restarted Redis broker made the tasks not yet started go again.
        self.broker_restarts = 0

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self.sender.start(), name="griot-task-warm"),
            loop.create_task(self._listen(), name="griot-task-results"),
            loop.create_task(self._safety(), name="griot-task-poll"),
            loop.create_task(self._delete_read(), name="griot-task-delete"),
        ]
        if self._broker is not None:
            self._tasks.append(loop.create_task(self._watch_broker(), name="griot-task-broker"))

    async def close(self) -> None:
        for task in list(self.running.values()):
            self.cancel(task)
        for t in self._tasks:
            t.cancel()
        for f in self._side:
            f.cancel()
        pending = [*self._tasks, *self._side]
        if pending:
            await asyncio.wait(pending, timeout=5.0)
        if self._stale:
            with contextlib.suppress(Exception):
                await self.backend.delete(*self._stale)
        self.sender.close()
        if self.owns_backend:
            with contextlib.suppress(Exception):
                await self.backend.aclose()
        if self._broker is not None and self._broker is not self.backend:
            with contextlib.suppress(Exception):
                await self._broker.aclose()

    def _spawn(self, coro: Any) -> None:
        f = asyncio.ensure_future(coro)
        self._side.add(f)
        f.add_done_callback(self._side.discard)

    # -- sending ---------------------------------------------------------------------------------

    def assign(self, task: Task) -> str:
        """Gives ``task`` its id (before :meth:`send`) and listens for its result."""
        task.task_id = str(uuid.uuid4())
        self.running[task.task_id] = task
        return task.task_id

    async def send(self, tasks: Sequence[Task]) -> None:
        """Publishes tasks (given ids by :meth:`assign`) in one hop off the loop, retrying what
        did not go with :data:`RETRY_POLICY` (and on for ``outage_grace`` seconds); raises the
        broker's error once that is spent, with ``sent``, how many went, on it (the others are
        no longer watched)."""
        now = time.time()
        for t in tasks:
            if not t.task_id:
                self.assign(t)
            if t.worker in self.lost_workers:
                t.worker = None
            t.dispatches += 1
            t.sent_at = now
        requests = [t.request() for t in tasks]
        done = 0
        attempt = 0
        since = time.monotonic()
        retries = int(RETRY_POLICY["max_retries"])
        while True:
            try:
                self._publishing_since = time.monotonic()
                try:
                    await self.sender.send(requests[done:])
                finally:
                    self._publishing_since = None
                self.broker_down_since = None
                return
            except Exception as e:
                done += getattr(e, "sent", 0)
                attempt += 1
                if self.broker_down_since is None:
                    self.broker_down_since = time.monotonic()
                    self._spawn(self._probe_broker())
                if attempt > retries and time.monotonic() - since >= (self.outage_grace or 0.0):
                    for t in tasks[done:]:
                        self.running.pop(t.task_id, None)
                    e.sent = done  # type: ignore[attr-defined]
                    raise
                if attempt == 1:
                    log.warning("cannot publish tasks (%s): trying again", e)
                await asyncio.sleep(
                    min(
                        RETRY_POLICY["interval_max"],
                        RETRY_POLICY["interval_start"] + (attempt - 1) * RETRY_POLICY["interval_step"],
                    )
                )

    def broker_down(self) -> bool:
        """The broker cannot be reached now: a publish failed and no fresh connection has reached
        it since, or one has been hanging for :data:`PUBLISH_STALL` seconds."""
        if self.broker_down_since is not None:
            return True
        since = self._publishing_since
        return since is not None and time.monotonic() - since > PUBLISH_STALL

    async def _probe_broker(self) -> None:
        """While the broker is down, connects afresh every :data:`BROKER_PROBE_EVERY` seconds (off
        the loop, beside the publishing thread a partition may hold); the first that reaches it
        ends the outage."""
        while self.broker_down_since is not None:
            try:
                await asyncio.get_running_loop().run_in_executor(None, self.sender.reachable)
            except Exception:
                await asyncio.sleep(BROKER_PROBE_EVERY)
                continue
            if self.broker_down_since is not None:
                log.warning("broker reachable again after %.1f s", time.monotonic() - self.broker_down_since)
            self.broker_down_since = None

    def cancel(self, task: Task) -> None:
        """Stops watching ``task``, revokes it and asks its worker to stop it (off the loop)."""
        if self.running.pop(task.task_id, None) is None:
            return
        self.sender.cancel_soon([task.task_id]).add_done_callback(_logged("cancel a task"))
        if task.on_progress is not None:
            self._stale.append(self.progress_prefix + task.task_id)
        if not task.future.done():
            task.future.cancel()

    # -- results ---------------------------------------------------------------------------------

    async def _listen(self) -> None:
        results, progress = RESULT_PREFIX + "*", self.progress_prefix + "*"
        while True:
            pubsub = self.backend.pubsub()
            try:
                await pubsub.psubscribe(results, progress)
                while True:
                    m = await pubsub.get_message(timeout=None)
                    if m is None:
                        continue
                    kind = m["type"]
                    if kind == "pmessage":
                        self._message(m["channel"], m["data"])
                    elif kind == "psubscribe" and m["channel"] == progress.encode():
                        # Subscribed (again, maybe after redis-py reconnected): what was
                        # published meanwhile is in the keys.
                        if self._subscribed_once:
                            self.resubscribed += 1
                        self._subscribed_once = True
                        self.listening = True
                        self._progress_due = True
                        self._poll_now.set()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # Redis gone: the safety poll delivers until it is back
                log.warning("result subscription: %s: %s", type(e).__name__, e)
            finally:
                self.listening = False
                with contextlib.suppress(Exception):
                    await _close_pubsub(pubsub)
            await asyncio.sleep(0.5)

    def _message(self, channel: bytes, data: bytes) -> None:
        name = channel.decode()
        if name.startswith(RESULT_PREFIX):
            task_id = name[len(RESULT_PREFIX) :]
            if task_id in self.running:
                self._result(task_id, data, "message")
        elif name.startswith(self.progress_prefix):
            t = self.running.get(name[len(self.progress_prefix) :])
            if t is not None and t.on_progress is not None:
                t.on_progress(data)

    def _result(self, task_id: str, value: bytes | str, learnt: str) -> None:
        outcome = TaskOutcome.decode(value)
        if outcome is None:
            return
        t = self.running.pop(task_id, None)
        if t is None:
            return
        self._stale.append(RESULT_PREFIX + task_id)
        if t.on_progress is not None:
            self._stale.append(self.progress_prefix + task_id)
        t.done_at = time.time()
        t.learnt = learnt
        if not t.future.done():
            t.future.set_result(outcome)

    async def _safety(self) -> None:
        while True:
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._poll_now.wait(), timeout=self.safety_poll)
                self._poll_now.clear()
                if self.running:
                    await self._poll()
                if self.outage_since is not None:
                    log.warning(
                        "result backend back after %.1f s: sending the running tasks again",
                        time.monotonic() - self.outage_since,
                    )
                    self.outage_since = None
                    for t in list(self.running.values()):
                        self._spawn(self._redispatch(t, lost=False))
            except asyncio.CancelledError:
                raise
            except Exception as e:  # Redis failed: try again at the next tick
                self._outage(e)

    def _outage(self, error: Exception) -> None:
        now = time.monotonic()
        if self.outage_since is None:
            self.outage_since = now
            log.warning("result poll: %s: %s", type(error).__name__, error)
        if self.outage_grace is not None and now - self.outage_since > self.outage_grace:
            failure = ClusterUnavailable(
                f"the broker or result backend has been unreachable for {now - self.outage_since:.1f} s: "
                f"{error}"
            )
            for t in list(self.running.values()):
                self.running.pop(t.task_id, None)
                if not t.future.done():
                    t.future.set_exception(failure)

    async def _poll(self) -> None:
        """One ``MGET`` of every running task's result, alive and (if watched) progress keys."""
        ids = list(self.running)
        # While subscribed the progress reports come by message: read here before the subscription
        # is made, and once after it is made (again), for those published meanwhile.
        catch_up, self._progress_due = self._progress_due, False
        polled = catch_up or not self.listening
        watched = [i for i in ids if self.running[i].on_progress is not None] if polled else []
        n = len(ids)
        raw = await self.backend.mget(
            [RESULT_PREFIX + i for i in ids]
            + [redis_keys.ALIVE_PREFIX + i for i in ids]
            + [self.progress_prefix + i for i in watched]
        )
        for task_id, value in zip(watched, raw[2 * n :], strict=True):
            t = self.running.get(task_id)
            if value is not None and t is not None and t.on_progress is not None:
                t.on_progress(value)
        dead: list[Task] = []
        unstarted: list[Task] = []
        now = time.time()
        for task_id, value, alive in zip(ids, raw[:n], raw[n : 2 * n], strict=True):
            if value is not None and task_id in self.running:
                self._result(task_id, value, "poll")
            t = self.running.get(task_id)
            if t is None:
                continue
            if alive is not None:
                t.alive_seen = True
            elif t.alive_seen:
                dead.append(t)
            elif t.worker is not None and not t.start_checked and now - t.sent_at > START_PATIENCE:
                # Sent to a worker's own queue and not started: the worker may have died
                # between tasks, and nothing else would take its queue's tasks.
                t.start_checked = True
                self._suspect(t.worker)
            elif (
                t.worker is None
                and isinstance(t.queue, str)
                and now - t.sent_at > START_PATIENCE
                and now >= t.queue_check_at
            ):
                unstarted.append(t)
        if unstarted and not self._checking_queues and now >= self._next_queue_check:
            # One look at the queues a second at most, however many tasks wait: behind a long
            # queue many tasks pass the patience at different polls, and each look is a broker
            # connection.
            self._checking_queues = True
            self._next_queue_check = now + QUEUE_CHECK_EVERY
            self._spawn(self._check_unstarted(unstarted))
        for t in dead:
            if t.worker is not None:
                self._suspect(t.worker)
            await self._redispatch(t)

    async def _check_unstarted(self, tasks: list[Task]) -> None:
        """Sends again the tasks of ``tasks`` that left their shared queue without any worker
        receiving them. A worker whose network was cut while it waited on the queue (its blocking
        read still open at the broker, or at a proxy in between) is handed the next message, which
        then never reaches it: nothing is acknowledged, nothing is redelivered (a Redis broker
        takes it off the list as it hands it out), no alive key is written, and the search would
        wait for it until its deadline. A task still waiting in its queue is left there (a busy
        cluster); one whose queue is empty and whose alive key is still unseen went to such a
        worker. Looked at again every :data:`START_PATIENCE` seconds while unstarted; a task
        that was only slow to write its key runs twice, harmlessly (the first id is revoked)."""
        # Each as it was sent when found unstarted: one sent again meanwhile (a broker restart,
        # its worker lost) is a new task, not looked at yet.
        sent = {id(t): t.task_id for t in tasks}

        def unchanged(t: Task) -> bool:
            return t.task_id == sent[id(t)] and self.running.get(t.task_id) is t and not t.alive_seen

        try:
            queues = sorted({t.queue for t in tasks})
            try:
                sizes = await asyncio.to_thread(self._queue_sizes, queues)
            except Exception as e:  # the broker unreachable: its outage handling covers that
                log.debug("queue sizes: %s", e)
                return
            now = time.time()
            for t in tasks:
                t.queue_check_at = now + START_PATIENCE
            gone = [t for t in tasks if sizes.get(t.queue) == 0 and unchanged(t)]
            if not gone:
                return
            # A worker that took one just before the count writes its key at once: read them now.
            try:
                alive = await self.backend.mget([redis_keys.ALIVE_PREFIX + t.task_id for t in gone])
            except Exception as e:  # the result backend's outage: the safety poll handles it
                log.debug("alive keys: %s", e)
                return
            for t, key in zip(gone, alive, strict=True):
                if key is not None:
                    t.alive_seen = True
                elif unchanged(t):
                    await self._redispatch(t, why="left its queue and no worker received it")
        finally:
            self._checking_queues = False

    def _queue_sizes(self, queues: Sequence[str]) -> dict[str, int]:
        """The messages waiting in each of ``queues`` (a passive declare on a fresh connection:
        blocking). A queue the broker does not know is empty (a Redis broker's empty queue has no
        key)."""
        with self.app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1)
            return waiting_messages(conn, queues)

    def workers_seen(self, workers: Iterable[str]) -> None:
        """``workers`` answered a broadcast just now: none of them is lost any more (a host
        started again keeps its worker's name, and its own queue serves again)."""
        self.lost_workers.difference_update(workers)

    def _suspect(self, worker: str) -> None:
        """Pings ``worker`` (off the loop); one that does not answer joins :attr:`lost_workers`
        and the tasks waiting on its own queue go to the shared one."""
        if worker in self._pinging or worker in self.lost_workers:
            return
        self._pinging.add(worker)
        self._spawn(self._ping(worker))

    async def _ping(self, worker: str) -> None:
        try:
            answer = await asyncio.to_thread(
                self.app.control.ping, destination=[worker], timeout=PING_TIMEOUT
            )
        except Exception as e:
            log.debug("ping %s: %s", worker, e)
            answer = []
        finally:
            self._pinging.discard(worker)
        if answer:
            return
        self.lost_workers.add(worker)
        log.warning("worker %s lost a task and does not answer: no more tasks to its own queue", worker)
        for t in [t for t in self.running.values() if t.worker == worker and not t.alive_seen]:
            await self._redispatch(t)

    async def _redispatch(self, t: Task, lost: bool = True, why: str = "died with its worker") -> None:
        """Sends again, under a new id, a task whose worker died under it (its alive key expired
        without a result) or that a broker outage may have lost; gives up after
        :data:`MAX_DISPATCHES` lost workers."""
        if self.running.pop(t.task_id, None) is None:
            return
        self.sender.cancel_soon([t.task_id]).add_done_callback(_logged("cancel a task"))
        if t.future.done():
            return
        if lost and t.dispatches >= MAX_DISPATCHES:
            t.future.set_exception(ClusterUnavailable(f"task {t.name} lost its worker {t.dispatches} times"))
            return
        if lost:
            log.warning("task %s %s: dispatching it again", t.task_id, why)
            if t.worker is not None:
                t.worker = None  # wherever a worker is free
        t.alive_seen = t.start_checked = False
        t.queue_check_at = 0.0
        self.assign(t)
        self.redispatched += 1
        try:
            await self.send([t])
        except Exception as e:
            if not t.future.done():
                t.future.set_exception(ClusterUnavailable(f"cannot reach the broker: {e}"))

    async def _watch_broker(self) -> None:
        """Reads a Redis broker's ``run_id`` every :data:`BROKER_WATCH_EVERY` seconds; when it
        changes (the server started again) every running task no worker has been seen to start is
        sent again. Such a task may be gone: published just before the restart and acknowledged
        but not yet in the broker's append-only file, or taken from its queue by a worker (as a
        prefetched message) that lost its connection before starting it, which the broker gives
        back only after its visibility timeout. A restart that fell between two reads of the
        result backend (redis-py's own retries can hide it) goes unseen there. Duplicates are
        harmless: the earlier id is revoked."""
        assert self._broker is not None
        while True:
            try:
                info = await self._broker.info("server")
                run = str(info.get("run_id", ""))
            except asyncio.CancelledError:
                raise
            except Exception as e:  # down or unreachable: the outage handling covers it
                log.debug("broker run_id: %s", e)
            else:
                if self.broker_run_id is not None and run != self.broker_run_id:
                    waiting = [t for t in self.running.values() if not t.alive_seen]
                    log.warning(
                        "the broker started again: sending %d tasks not yet started again", len(waiting)
                    )
                    self.broker_restarts += 1
                    for t in waiting:
                        self._spawn(self._redispatch(t, lost=False))
                self.broker_run_id = run
            await asyncio.sleep(BROKER_WATCH_EVERY)

    async def _delete_read(self) -> None:
        """Deletes the keys of read results and abandoned progress reports, in batches."""
        while True:
            await asyncio.sleep(self.delete_every)
            if not self._stale:
                continue
            keys, self._stale = self._stale, []
            try:
                await self.backend.delete(*keys)
            except asyncio.CancelledError:
                self._stale += keys
                raise
            except Exception as e:  # they expire anyway (the backend's result_expires)
                log.warning("cannot delete read results: %s", e)


def _logged(what: str) -> Callable[[asyncio.Future[None]], None]:
    def done(f: asyncio.Future[None]) -> None:
        if not f.cancelled() and f.exception() is not None:
            log.warning("cannot %s: %s", what, f.exception())

    return done


# -- runners: how the distributed search's tasks reach the workers -------------------------------


class TaskRunner(Protocol):
    """Runs tasks for one distributed search (:class:`griot.tasks.distributed.ClusterSearch`).

    :meth:`run` sends ``task`` and returns its :class:`~griot.tasks.outcome.TaskOutcome`;
    cancelling it revokes the task. It raises what kept the task from being
    run (the broker unreachable: :class:`ClusterUnavailable`; a gateway's quota: its status).
    ``capacity``: tasks the search may have at the workers at once; ``tasks``: the task client
    underneath (its lost workers, its subscription's counters)."""

    capacity: int

    @property
    def tasks(self) -> TaskClient: ...

    async def start(self) -> None: ...

    async def run(self, task: Task) -> TaskOutcome: ...

    async def close(self) -> None: ...


class ClientRunner:
    """A :class:`TaskRunner` on a :class:`TaskClient` of its own (standalone callers: the CLI, the
    bench, tests), made by :meth:`start` in the running event loop and closed by :meth:`close`.
    The tasks of one turn of the event loop are published together."""

    def __init__(self, app: Celery, *, capacity: int = 2, outage_grace: float = 30.0) -> None:
        self.app = app
        self.capacity = max(1, capacity)
        self.outage_grace = outage_grace
        self._client: TaskClient | None = None
        self._outbox: list[Task] = []
        self._flusher: asyncio.Task[None] | None = None

    @property
    def tasks(self) -> TaskClient:
        if self._client is None:
            raise RuntimeError("ClientRunner.start() first")
        return self._client

    async def start(self) -> None:
        backend = aioredis.Redis.from_url(
            backend_url(self.app),
            socket_connect_timeout=CONNECT_TIMEOUT,
            client_name=CLIENT_NAME,
            retry=Retry(NoBackoff(), 0),
        )
        self._client = TaskClient(self.app, backend, outage_grace=self.outage_grace, owns_backend=True)
        self._client.start()

    async def close(self) -> None:
        if self._flusher is not None:
            self._flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._flusher
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def run(self, task: Task) -> TaskOutcome:
        client = self.tasks
        client.assign(task)
        self._outbox.append(task)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush())
        try:
            return await task.future
        except asyncio.CancelledError:
            if task in self._outbox:
                self._outbox.remove(task)
                client.running.pop(task.task_id, None)
            else:
                client.cancel(task)
            raise

    async def _flush(self) -> None:
        await asyncio.sleep(0)  # the tasks made in this turn of the loop go together
        while self._outbox:
            batch, self._outbox = self._outbox, []
            try:
                await self.tasks.send(batch)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                for t in batch[getattr(e, "sent", 0) :]:
                    if not t.future.done():
                        t.future.set_exception(
                            ClusterUnavailable(
                                f"the broker has been unreachable for {self.outage_grace:.0f} s: {e}"
                            )
                        )
