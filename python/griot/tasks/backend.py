"""The result backend: Celery's Redis backend without the per-task pub/sub subscription.

Callers learn their tasks' results from the backend's pub/sub messages themselves
(:class:`griot.tasks.client.TaskClient`), with a safety poll (``backend.get_many``); they never
block in ``AsyncResult.get``. Celery's Redis backend
subscribes to a pub/sub channel for every task sent, messages nobody reads then pile up in
Redis's output buffer, and when Redis restarts the subscriber's reconnection gives up with
"the Celery application must be restarted". ``AsyncResult.get`` still works: it subscribes
when it waits.
"""

from __future__ import annotations

import logging
from typing import Any

from celery.backends.redis import RedisBackend

log = logging.getLogger(__name__)


class PollingRedisBackend(RedisBackend):  # type: ignore[misc]
    """Stores and reads results like ``RedisBackend``; sending a task subscribes to nothing."""

    def on_task_call(self, producer: Any, task_id: str) -> None:
        return None

    def on_result_fulfilled(self, result: Any) -> None:
        """Stops listening for ``result`` (after ``AsyncResult.get``). Celery also calls this from
        ``AsyncResult.__del__``, whenever the collector frees a result, which may be after its Redis
        has gone (a caller's stack stopped, a server restarted): there is then no subscription left
        to end, and a finalizer must not raise."""
        try:
            super().on_result_fulfilled(result)
        except Exception as e:
            log.debug("unsubscribe for task %s skipped: %s: %s", result.id, type(e).__name__, e)
