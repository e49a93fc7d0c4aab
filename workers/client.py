"""The callers' side of the search tasks, on Celery's and redis-py's public APIs.

- :class:`TaskSender` publishes tasks with ``Celery.send_task`` on one kept producer
  (``app.producer_or_acquire``), in a thread of its own so that the broker's round trips never
  block the caller's event loop; a batch of tasks is one hop to that thread. Any Celery broker
  works (Redis, RabbitMQ).
- :class:`ResultNotifier` learns of finished tasks from the result backend's pub/sub messages
  (Celery's Redis backend publishes each stored result on the channel named after its key),
  through ``redis.asyncio``'s :class:`~redis.asyncio.client.PubSub`.
- :func:`cancel` revokes tasks and asks running ones to stop.
- :data:`RETRY_POLICY`: how long a publish waits for a broker that fails (one policy for every
  caller).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from celery import Celery
from celery.result import AsyncResult
from griot import redis_keys
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

log = logging.getLogger(__name__)

RETRY_POLICY: dict[str, float] = {
    "max_retries": 2,
    "interval_start": 0.1,
    "interval_step": 0.2,
    "interval_max": 0.5,
}
"""Celery's ``retry_policy`` for publishing a task (and the caller's own retries of a batch)."""

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
        """Publishes ``requests`` in the calling thread; returns how many went before a failure
        (raised, with ``sent`` set on the exception)."""
        sent = 0
        try:
            with self.app.producer_or_acquire() as producer:
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
                        retry=True,
                        retry_policy=RETRY_POLICY,
                    )
                    sent += 1
        except Exception as e:
            e.sent = sent  # type: ignore[attr-defined]
            raise
        return sent

    async def send(self, requests: Sequence[TaskRequest]) -> None:
        """Publishes ``requests`` off the event loop (raises what the broker raised; the
        exception's ``sent`` says how many went)."""
        if requests:
            await asyncio.get_running_loop().run_in_executor(self._executor, self.publish, requests)

    def cancel_soon(self, task_ids: Sequence[str]) -> asyncio.Future[None]:
        """:func:`cancel` off the event loop (best effort, after the tasks sent so far)."""
        return asyncio.get_running_loop().run_in_executor(self._executor, cancel, self.app, list(task_ids))

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
    """The result backend's Redis URL (``workers.app`` prefixes it with the backend's class)."""
    url = str(app.conf.result_backend or app.conf.broker_url)
    return url.split("+", 1)[1] if "+" in url.split("://", 1)[0] else url


def _expires(at: float | None) -> dt.datetime | None:
    return dt.datetime.fromtimestamp(at, tz=dt.UTC) if at is not None else None


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
                    await ps.aclose()  # type: ignore[no-untyped-call]
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
        for t in (self._task, self._writer):
            if t is not None:
                t.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await t
        self._pubsub = None
        with contextlib.suppress(Exception):
            await self.client.aclose()
