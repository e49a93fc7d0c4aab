"""Search tasks sent to the broker from the event loop, many in one round trip.

``Celery.send_task`` builds each message through several layers (routing, argument reprs, kombu's
producer pool, a synchronous Redis ``LPUSH`` that blocks the event loop for the round trip): about
0.7 ms of CPU per task, a good part of the gateway's cost per search. The gateway sends one kind of
message only (a task by name, keyword arguments, a queue, an optional expiry), so it writes that
message itself, in Celery's task protocol 2 inside kombu's Redis envelope, exactly what
``send_task`` puts on the queue (``tests/gateway/test_dispatch.py`` compares the two), and pushes
every message of a dispatch round in one write (:class:`~services.gateway.resp.RespClient`). The
message itself is built by :func:`workers.messages.task_message`, which the distributed search's
caller uses too.

The Redis transport's anonymous exchange delivers a message whose routing key is the queue name by
``LPUSH`` on the list of that name (priority 0 keeps the plain name), where the workers' ``BRPOP``
takes it.
"""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass
from typing import Any

from services.gateway.resp import RespClient
from workers.messages import task_message


@dataclass(frozen=True)
class TaskMessage:
    """One message ready to push: its task id, its queue and its bytes."""

    task_id: str
    queue: str
    data: str


class TaskPublisher:
    """Builds task messages and pushes them on their queues (a pipelined client of the broker)."""

    def __init__(self, client: RespClient, reply_to: str) -> None:
        self.client = client
        self.reply_to = reply_to
        self.origin = f"gen{os.getpid()}@{socket.gethostname()}"

    def message(
        self, name: str, kwargs: dict[str, Any], queue: str, expires: float | None, task_id: str | None = None
    ) -> TaskMessage:
        """The message of task ``name`` with ``kwargs`` for ``queue``, expiring at ``expires``
        (a Unix time) if given."""
        task_id = task_id or str(uuid.uuid4())
        data = task_message(name, task_id, kwargs, queue, expires, self.reply_to, repr(kwargs), self.origin)
        return TaskMessage(task_id, queue, data)

    async def push(self, messages: list[TaskMessage]) -> None:
        """Pushes ``messages`` in one round trip (raises the Redis error if it fails)."""
        await self.client.execute_many([("LPUSH", m.queue, m.data) for m in messages])
