"""Task messages written by the distributed search's caller itself, pushed with one ``LPUSH``.

``Celery.send_task`` spent about 2.5 ms of the caller's CPU per subtree task (two thirds of all
it did per task once results came by notification, measured with cProfile): Celery builds the
``argsrepr``/``kwargsrepr`` headers with its recursive ``saferepr`` (the history list makes it
long), and kombu's Redis transport makes a new ``redis.Redis`` client for every publish. The
caller sends one kind of message (a task by name, keyword arguments, a queue, an expiry), so it
writes Celery's task protocol 2 inside kombu's Redis envelope, which is what ``send_task`` puts
on the list (``tests/workers`` checks a worker runs it, and that the two carry the same fields),
and pushes it on the queue's list with a kept client.

kombu's Redis transport delivers a message for the anonymous exchange with the queue's name as
routing key by ``LPUSH`` on the list of that name (priority 0: the plain name), where the
workers' ``BRPOP`` takes it; a worker's own queue (``<node>.dq2``) is such a list too. An
unacknowledged message is put back on the list named by its routing key.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import os
import socket
import time
import uuid
from typing import Any

_TAIL = '{"callbacks": null, "errbacks": null, "chain": null, "chord": null}'
"""The protocol-2 body's last part: no callbacks, errbacks, chain or chord."""

ORIGIN = f"griot-caller{os.getpid()}@{socket.gethostname()}"


def task_message(
    name: str,
    task_id: str,
    kwargs: dict[str, Any],
    queue: str,
    expires: float | None,
    reply_to: str,
    kwargsrepr: str = "",
    origin: str = ORIGIN,
) -> str:
    """The message of task ``name`` (id ``task_id``, keyword arguments ``kwargs``) for the list
    ``queue``, expiring at the Unix time ``expires`` if given. ``kwargsrepr`` is what a worker's
    log shows of the arguments (Celery's would repr them all); ``origin`` names the sender. The
    gateway's publisher writes its messages with this function too."""
    body = f"[[], {json.dumps(kwargs)}, {_TAIL}]"
    headers: dict[str, Any] = {
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
        "kwargsrepr": kwargsrepr,
        "origin": origin,
        "ignore_result": None,
        "replaced_task_nesting": 0,
        "stamped_headers": None,
        "stamps": {},
    }
    if expires is not None:
        headers["expires"] = dt.datetime.fromtimestamp(expires, tz=dt.UTC).isoformat()
    properties: dict[str, Any] = {
        "correlation_id": task_id,
        "reply_to": reply_to,
        "delivery_mode": 2,
        "delivery_info": {"exchange": "", "routing_key": queue},
        "priority": 0,
        "body_encoding": "base64",
        "delivery_tag": str(uuid.uuid4()),
    }
    if expires is not None:  # as kombu writes it (milliseconds left; AMQP's message TTL)
        properties["expiration"] = str(max(0, int((expires - time.time()) * 1000)))
    return json.dumps(
        {
            "body": base64.b64encode(body.encode()).decode(),
            "content-encoding": "utf-8",
            "content-type": "application/json",
            "headers": headers,
            "properties": properties,
        }
    )
