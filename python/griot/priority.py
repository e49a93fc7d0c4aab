"""How urgent a search is, and the Celery queue that carries it.

One type for the gateway (which orders its waiting searches by it) and the workers (which consume
one queue per priority). The queue names come from :func:`griot.redis_keys.queues`, the one reader
of ``GRIOT_QUEUES``: its first name carries interactive work, its second batch work.
"""

from __future__ import annotations

from enum import IntEnum

from griot import redis_keys


class Priority(IntEnum):
    """A person waiting (play, live analysis) beats a batch job (whole-game analysis). The values
    order the two: a lower one is served first."""

    INTERACTIVE = 0
    BATCH = 1

    @property
    def queue(self) -> str:
        """This priority's Celery queue: its place in ``GRIOT_QUEUES``, else the default name."""
        names = redis_keys.queues()
        return names[self] if len(names) > self else redis_keys.DEFAULT_QUEUES[self]


__all__ = ["Priority"]
