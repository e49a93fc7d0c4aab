"""The Celery queues as every party declares them (a caller's Celery app: :mod:`griot.tasks.app`).

The workers (``griot.workers.app``), the gateway and the command line (``griot egdb build``) all
publish to, or consume from, the same queues: they must declare them alike, since a broker such
as RabbitMQ refuses to declare an existing queue again with other arguments. Celery and kombu are
imported only when an app or a queue is asked for (they come with the ``workers`` extra).

Any broker Celery supports works: ``redis://`` and ``amqp://`` (RabbitMQ) are the ones tested.
"""

from __future__ import annotations

from typing import Any

from griot.priority import Priority

__all__ = ["MAX_MESSAGE_PRIORITY", "queue_names", "task_queues"]


def queue_names() -> tuple[str, ...]:
    """The queues, interactive first (``GRIOT_QUEUES``)."""
    return tuple(p.queue for p in Priority)


#: Message priorities a queue honours on RabbitMQ (its ``x-max-priority`` argument; RabbitMQ
#: advises at most 10). Griot's priority is the queue a task goes to, and its callers send no
#: message priority; one sent with Celery's ``priority`` is ordered by it within its queue.
MAX_MESSAGE_PRIORITY = 9


def task_queues() -> list[Any]:
    """Celery's ``task_queues``: one durable kombu queue per :class:`~griot.priority.Priority`,
    declared with ``x-max-priority`` (a Redis broker ignores queue arguments). Every party
    declares them through this function: RabbitMQ refuses a queue declared again with other
    arguments."""
    from kombu.entity import Queue

    return [
        Queue(name, queue_arguments={"x-max-priority": MAX_MESSAGE_PRIORITY})  # type: ignore[no-untyped-call]
        for name in queue_names()
    ]
