"""How many messages wait in a broker's queues, through kombu's public API (Redis or RabbitMQ)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any


def waiting_messages(conn: Any, queues: Iterable[str]) -> dict[str, int]:
    """Messages waiting in each of ``queues`` on ``conn`` (an open ``kombu.Connection``), by a
    passive ``queue_declare`` a queue. A queue the broker does not know holds none: a Redis
    broker keeps no key for an empty queue. Blocking."""
    sizes: dict[str, int] = {}
    for name in queues:
        # A channel per queue: an AMQP broker closes the channel that asked for a missing one.
        channel = conn.channel()
        try:
            sizes[name] = int(channel.queue_declare(queue=name, passive=True).message_count)
        except conn.channel_errors:
            sizes[name] = 0
        finally:
            with contextlib.suppress(Exception):  # the channel may have gone with the error
                channel.close()
    return sizes
