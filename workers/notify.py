"""Result notifications for the distributed search's caller: no polling while tasks run.

Celery's Redis result backend stores a result and, in the same pipeline, publishes it on the
channel named after its key (``celery-task-meta-<task id>``). :class:`ResultNotifier` keeps one
subscriber connection and subscribes to the channel of each task just before the task is sent:
the ``SUBSCRIBE`` is written to the socket synchronously, so Redis has it before the task's
message is even on the queue and no result can be published before the caller listens. Each
message carries the whole stored result, handed to ``on_result(task_id, payload)``; the caller
needs no read.

A lost connection is reopened (every 0.2 s while it fails) and every watched channel subscribed
again; ``on_reconnect`` then tells the caller that messages may have been lost while it was down,
so it reads its results once (the caller also reads them every few hundred milliseconds as a
safety net, :data:`workers.distributed.SAFETY_POLL`).

The connection speaks RESP directly through :class:`workers.resp.RespProtocol` (a subscriber needs only
``SUBSCRIBE``, ``UNSUBSCRIBE``, ``AUTH`` and the push messages): no stream reader, no task per
message, and the synchronous write that orders a subscription before its task.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from typing import Any

from workers.resp import RespProtocol, address, open_connection, pack

log = logging.getLogger(__name__)

RESULT_PREFIX = b"celery-task-meta-"
RECONNECT_EVERY = 0.2
CONNECT_TIMEOUT = 5.0
CLIENT_NAME = b"griot-results"
"""The subscriber connection's name in ``CLIENT LIST``."""


class ResultNotifier:
    """Watches result channels (see the module header). ``watch`` before sending a task,
    ``unwatch`` once its result is handled. Call :meth:`start` in the event loop that runs the
    callbacks, :meth:`close` at the end."""

    def __init__(
        self,
        url: str,
        on_result: Callable[[str, bytes], None],
        on_reconnect: Callable[[], None] = lambda: None,
        prefix: bytes = RESULT_PREFIX,
    ) -> None:
        self.addr = address(url)
        self.on_result = on_result
        self.on_reconnect = on_reconnect
        self.prefix = prefix
        self.watched: set[str] = set()
        self.proto: RespProtocol | None = None
        self.messages = 0
        self.reconnects = 0
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    @property
    def connected(self) -> bool:
        return self.proto is not None and self.proto.transport is not None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def wait_connected(self, timeout: float) -> bool:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), timeout)
        return self.connected

    def watch(self, task_ids: Iterable[str]) -> None:
        """Subscribes to these tasks' result channels now (the write is synchronous)."""
        new = [t for t in task_ids if t not in self.watched]
        self.watched.update(new)
        if new:
            self._write(b"SUBSCRIBE", *[self.prefix + t.encode() for t in new])

    def unwatch(self, task_ids: Iterable[str]) -> None:
        gone = [t for t in task_ids if t in self.watched]
        self.watched.difference_update(gone)
        if gone:
            self._write(b"UNSUBSCRIBE", *[self.prefix + t.encode() for t in gone])

    def _write(self, *args: bytes) -> None:
        proto = self.proto
        if proto is not None and proto.transport is not None:
            proto.transport.write(pack(args))
        # Not connected: the reconnection subscribes every watched channel.

    def _reply(self, reply: Any) -> None:
        if isinstance(reply, list) and len(reply) == 3 and reply[0] == b"message":
            channel = reply[1]
            if isinstance(channel, bytes) and channel.startswith(self.prefix):
                task_id = channel[len(self.prefix) :].decode()
                if task_id in self.watched:
                    self.messages += 1
                    self.on_result(task_id, reply[2])
        elif isinstance(reply, Exception):
            log.warning("result subscription: %s", reply)

    async def _run(self) -> None:
        first = True
        while True:
            try:
                _, proto = await open_connection(self.addr, self._reply, CONNECT_TIMEOUT)
            except (OSError, TimeoutError) as e:
                log.debug("result subscription: cannot connect (%s)", e)
                await asyncio.sleep(RECONNECT_EVERY)
                continue
            self.proto = proto
            for command in self.addr.setup:
                self._write(*command)
            self._write(b"CLIENT", b"SETNAME", CLIENT_NAME)
            if self.watched:
                self._write(b"SUBSCRIBE", *[self.prefix + t.encode() for t in self.watched])
            self._ready.set()
            if not first:
                self.reconnects += 1
                log.info("result subscription: connected again")
            if self.watched:
                # Results published while the connection was down (or before it first came up)
                # reached nobody: the caller reads them once.
                self.on_reconnect()
            first = False
            with contextlib.suppress(ConnectionError):  # a garbled stream: closed, reconnect
                await proto.lost
            self.proto = None
            log.warning("result subscription lost: reconnecting")
            await asyncio.sleep(RECONNECT_EVERY)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self.proto is not None and self.proto.transport is not None:
            self.proto.transport.close()
        self.proto = None
