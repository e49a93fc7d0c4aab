"""The Celery configuration the workers and their callers share, and a caller's Celery app.

A caller (the gateway, ``griot match --workers``, ``griot egdb build``, a bench) and the workers
must agree on the queues (:func:`griot.broker.task_queues`), the serializer and the result
backend: :func:`connection_conf` is that part, which the workers' app (``griot.workers.app``)
extends with what only a worker does. The result backend is :mod:`griot.tasks.backend` on a Redis
URL: Celery's Redis backend without its per-task subscription (callers learn results from the
backend's messages themselves, :class:`griot.tasks.client.TaskClient`).
"""

from __future__ import annotations

from typing import Any

from celery import Celery

from griot.broker import task_queues
from griot.priority import Priority

__all__ = ["VISIBILITY_TIMEOUT", "backend_conf", "client_app", "connection_conf"]

#: Seconds before an unacknowledged task is redelivered (Redis broker), unless configured.
VISIBILITY_TIMEOUT = 600


def backend_conf(url: str) -> str:
    """Celery's ``result_backend`` for the Redis URL ``url`` (another scheme is given as is)."""
    if url.startswith(("redis://", "rediss://", "unix://")):
        return f"griot.tasks.backend:PollingRedisBackend+{url}"
    return url


def connection_conf(
    broker_url: str, result_url: str = "", *, visibility_timeout: int = VISIBILITY_TIMEOUT
) -> dict[str, Any]:
    """The settings of a Celery app that both sides share: the broker and its transport, the
    result backend (``result_url``, default the broker's URL), JSON only, the queues.

    On RabbitMQ a publish waits for the broker's confirm (py-amqp's ``confirm_publish``): a task
    is sent once the broker holds it in its durable queue, so a broker that dies and starts again
    has every task a caller counts as sent, and one it never confirmed fails the publish, which
    the caller retries."""
    transport: dict[str, Any] = {
        "visibility_timeout": visibility_timeout,
        "socket_timeout": 5,
        "socket_connect_timeout": 5,
        "retry_on_timeout": True,
    }
    if broker_url.startswith(("amqp://", "amqps://", "pyamqp://")):
        transport["confirm_publish"] = True
    return {
        "broker_url": broker_url,
        "result_backend": backend_conf(result_url or broker_url),
        "broker_transport_options": transport,
        "result_backend_transport_options": {
            "retry_policy": {"timeout": 10.0},
            "socket_timeout": 5,
            "socket_connect_timeout": 5,
        },
        "result_backend_always_retry": True,
        "result_backend_max_retries": 10,
        "result_expires": 3600,
        "broker_connection_retry_on_startup": True,
        "broker_connection_max_retries": None,
        "task_serializer": "json",
        "result_serializer": "json",
        "accept_content": ["json"],
        "task_queues": task_queues(),
        "task_default_queue": Priority.BATCH.queue,
    }


def client_app(
    broker_url: str,
    result_url: str = "",
    *,
    visibility_timeout: int = VISIBILITY_TIMEOUT,
    name: str = "griot",
) -> Celery:
    """A Celery app that sends the workers' tasks by name (batch queue by default) and reads their
    results from ``result_url`` (default: the broker's URL). It runs no task itself."""
    app = Celery(name)
    app.conf.update(connection_conf(broker_url, result_url, visibility_timeout=visibility_timeout))
    return app
