"""Griot's search workers: Celery tasks that run the native search and a Redis transposition cache
shared by every worker. What callers send and read (the task client, the tasks' arguments, the
distributed search) is the library's :mod:`griot.tasks`.

- :mod:`griot.workers.config`: settings from the environment (``GRIOT_BROKER_URL``, ``GRIOT_CACHE_URL``, ...);
- :mod:`griot.workers.app`: the Celery app (production settings, queues, signals);
- :mod:`griot.workers.tasks`: the thin tasks (``griot.search_subtree``, ``griot.search_position``),
  over :mod:`griot.workers.runner` (how a search runs: thread, stop, liveness, budget) with their
  arguments checked by :mod:`griot.tasks.args` (the schema the callers build them with);
- :mod:`griot.workers.cache`: the Redis second-level table behind the core's batched hook;
- :mod:`griot.workers.metrics`: Prometheus metrics under the prefork pool (multiprocess mode).

Nothing here imports gRPC: the prefork pool forks after ``griot.workers.app`` is imported.
"""
