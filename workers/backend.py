"""The result backend: Celery's Redis backend without the per-task pub/sub subscription.

Callers learn their tasks' results from the backend's pub/sub messages themselves
(:class:`griot.workers.client.TaskClient`), with a safety poll (``backend.get_many``); they never
block in ``AsyncResult.get``. Celery's Redis backend
subscribes to a pub/sub channel for every task sent, messages nobody reads then pile up in
Redis's output buffer, and when Redis restarts the subscriber's reconnection gives up with
"the Celery application must be restarted". ``AsyncResult.get`` still works: it subscribes
when it waits.
"""

from __future__ import annotations

from typing import Any

from celery.backends.redis import RedisBackend


class PollingRedisBackend(RedisBackend):  # type: ignore[misc]
    """Stores and reads results like ``RedisBackend``; sending a task subscribes to nothing."""

    def on_task_call(self, producer: Any, task_id: str) -> None:
        return None
