"""Search tasks sent to the broker from the event loop, many in one round trip.

``Celery.send_task`` builds each message through several layers (routing, argument reprs, kombu's
producer pool, a synchronous Redis ``LPUSH`` that blocks the event loop for the round trip): about
0.7 ms of CPU per task, a good part of the gateway's cost per search. The gateway sends one kind of
message only (a task by name, keyword arguments, a queue, an optional expiry), so it writes that
message itself, in Celery's task protocol 2 inside kombu's Redis envelope, exactly what
``send_task`` puts on the queue (``tests/gateway/test_dispatch.py`` compares the two), and pushes
every message of a dispatch round in one write (:class:`~services.gateway.resp.RespClient`).

The Redis transport's anonymous exchange delivers a message whose routing key is the queue name by
``LPUSH`` on the list of that name (priority 0 keeps the plain name), where the workers' ``BRPOP``
takes it.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import os
import socket
import time
import uuid
from dataclasses import dataclass
from typing import Any

from services.gateway.resp import RespClient

#: The part of a protocol-2 body after the arguments: no callbacks, errbacks, chain or chord.
_EMBED = '{"callbacks": null, "errbacks": null, "chain": null, "chord": null}'


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
        body = f"[[], {json.dumps(kwargs)}, {_EMBED}]"
        headers = {
            "lang": "py",
            "task": name,
            "id": task_id,
            "shadow": None,
            "eta": None,
            "expires": None,
            "group": None,
            "group_index": None,
            "retries": 0,
            "timelimit": [None, None],
            "root_id": task_id,
            "parent_id": None,
            "argsrepr": "()",
            "kwargsrepr": repr(kwargs),
            "origin": self.origin,
            "ignore_result": None,
            "replaced_task_nesting": 0,
            "stamped_headers": None,
            "stamps": {},
        }
        properties: dict[str, Any] = {
            "correlation_id": task_id,
            "reply_to": self.reply_to,
            "delivery_mode": 2,
            "delivery_info": {"exchange": "", "routing_key": queue},
            "priority": 0,
            "body_encoding": "base64",
            "delivery_tag": str(uuid.uuid4()),
        }
        if expires is not None:
            headers["expires"] = dt.datetime.fromtimestamp(expires, tz=dt.UTC).isoformat()
            properties["expiration"] = str(max(0, int((expires - time.time()) * 1000)))
        envelope = {
            "body": base64.b64encode(body.encode()).decode(),
            "content-encoding": "utf-8",
            "content-type": "application/json",
            "headers": headers,
            "properties": properties,
        }
        return TaskMessage(task_id, queue, json.dumps(envelope))

    async def push(self, messages: list[TaskMessage]) -> None:
        """Pushes ``messages`` in one round trip (raises the Redis error if it fails)."""
        await self.client.execute_many([("LPUSH", m.queue, m.data) for m in messages])
