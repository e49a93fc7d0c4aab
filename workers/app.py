"""The Celery app: explicit task modules, configuration from :mod:`griot.workers.config` over the
settings the callers share (:func:`griot.tasks.app.connection_conf`).

Start a worker (one per machine; the pool has one process per core)::

    celery -A griot.workers.app worker -Q griot.interactive,griot.batch --concurrency $(nproc) -P prefork

Production settings and why:
- ``task_acks_late`` + ``task_reject_on_worker_lost``: a task is acknowledged after it ran, and a
  pool process killed in the middle puts the message back on the queue (redelivery);
- ``worker_prefetch_multiplier = 1``: a busy process never hoards tasks its neighbours could run;
- ``visibility_timeout`` (Redis transport) longer than the hard time limit: an unacknowledged task
  is redelivered only once it cannot still be running;
- soft time limit: the task stops its search and returns the last completed iteration (marked
  incomplete); hard limit: the process is killed;
- two queues, ``griot.interactive`` (a person waits) and ``griot.batch``: run dedicated workers
  per queue (or at least list ``griot.interactive`` first) so batch work never delays a person;
- JSON only; results expire after an hour (the caller forgets them once read);
- the result backend (:mod:`griot.tasks.backend`) is Redis without Celery's per-task pub/sub
  subscriber: callers learn results from the backend's messages themselves
  (:class:`griot.tasks.client.TaskClient`); workers retry storing them
  (``result_backend_always_retry``) so a Redis restart delays results instead of losing them.
Nothing here creates a gRPC channel or a Redis connection: pool processes fork after this module
is imported and open their own connections (``worker_process_init``).
"""

from __future__ import annotations

from celery import Celery
from griot.priority import Priority
from griot.tasks.app import connection_conf
from griot.workers.config import Settings

#: The queues of interactive and batch work (GRIOT_QUEUES names them).
INTERACTIVE_QUEUE, BATCH_QUEUE = Priority.INTERACTIVE.queue, Priority.BATCH.queue


def make_app(settings: Settings | None = None) -> Celery:
    """A Celery app configured from ``settings`` (default: the environment)."""
    s = settings or Settings.from_env()
    app = Celery("griot", include=["griot.workers.tasks", "griot.workers.egdb_tasks"])
    app.conf.update(
        connection_conf(s.broker_url, s.result_url, visibility_timeout=s.visibility_timeout),
        worker_cancel_long_running_tasks_on_connection_loss=True,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_soft_time_limit=s.soft_limit,
        task_time_limit=s.hard_limit,
        task_track_started=False,
        worker_concurrency=s.concurrency,
        worker_max_memory_per_child=2_000_000,  # KiB: recycle a process whose tables grew past 2 GB
        worker_send_task_events=False,
        # Every worker also consumes its own queue (``<name>.dq2``): the distributed search sends
        # a subtree back to the worker whose table holds it.
        worker_direct=True,
    )
    app.conf.griot_settings = s
    return app


app = make_app()
