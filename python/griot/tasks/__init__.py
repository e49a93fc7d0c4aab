"""Sending tasks to Griot's search workers and reading their outcomes: the callers' side of the
Celery workers (the gateway, ``griot match --workers``, ``griot book build --workers``, the
benches). The workers themselves (``griot.workers``: the Celery app, the tasks, the cache) import
this package; it never imports them.

- :mod:`griot.tasks.args`: the tasks' names and arguments, one schema for the callers that build
  them and the tasks that check them (no Celery needed);
- :mod:`griot.tasks.errors`: the typed errors callers see (no Celery needed);
- :mod:`griot.tasks.outcome`: a finished task as a typed value, decoded once from Celery's result
  meta (no Celery needed);
- :mod:`griot.tasks.queues`: the messages waiting in a broker's queues (kombu, no Celery);
- :mod:`griot.tasks.app`: the Celery settings both sides share and a caller's Celery app;
- :mod:`griot.tasks.client`: the asynchronous task client (:class:`~griot.tasks.client.TaskClient`,
  :class:`~griot.tasks.client.Task`), the publisher, result notifications, cancelling, and the
  runners a distributed search sends through;
- :mod:`griot.tasks.blocking`: the runners of the blocking commands (a match's games, a book's
  searches);
- :mod:`griot.tasks.distributed`: one position searched across the cluster (its tree and the
  scheduler of its tasks).

Celery comes with the ``server`` extra: ``import griot`` does not import this package, and
``args``, ``errors``, ``outcome`` and ``queues`` import no Celery.
"""
