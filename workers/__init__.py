"""Griot's search workers: Celery tasks that run the native search, a Redis transposition cache
shared by every worker, and the caller side of a distributed deep search.

- :mod:`griot.workers.config`: settings from the environment (``GRIOT_BROKER_URL``, ``GRIOT_CACHE_URL``, ...);
- :mod:`griot.workers.app`: the Celery app (production settings, queues, signals);
- :mod:`griot.workers.tasks`: the thin tasks (``griot.search_subtree``, ``griot.search_position``),
  over :mod:`griot.workers.runner` (how a search runs: thread, stop, liveness, budget) with their
  arguments in :mod:`griot.workers.task_args` (the schema the callers build them with);
- :mod:`griot.workers.cache`: the Redis second-level table behind the core's batched hook;
- :mod:`griot.workers.distributed`: one position searched across the cluster (used by the gateway);
- :mod:`griot.workers.metrics`: Prometheus metrics under the prefork pool (multiprocess mode).

Nothing here imports gRPC: the prefork pool forks after ``griot.workers.app`` is imported.
"""
