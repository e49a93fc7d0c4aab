"""The analysis gateway: ``griot.v1.AnalysisService`` over gRPC, on top of the Celery search workers.

Run it with ``python -m griot.services.gateway`` (``--help`` lists the flags; each has a
``GRIOT_GATEWAY_*`` environment variable; the Redis URLs are the shared ``GRIOT_BROKER_URL`` and
``GRIOT_CACHE_URL``). Modules, from the wire inwards:

- :mod:`~griot.services.gateway.servicer`: thin handlers of the four RPCs (parse, check, call, build),
  with :mod:`~griot.services.gateway.wire` (request checks, result messages);
- :mod:`~griot.services.gateway.live`: live sessions (one stream each, state saved in Redis), their
  messages ordered by :mod:`~griot.services.gateway.outbox`;
- :mod:`~griot.services.gateway.auth`: API keys (interceptor), per-key limits, rates, stream counts;
- :mod:`~griot.services.gateway.jobs`: whole-game analyses as resumable jobs in Redis;
- :mod:`~griot.services.gateway.evaluator`: cache, single flight (in a replica and across replicas),
  cancellation of searches nobody waits for;
- :mod:`~griot.services.gateway.dispatch`: prioritised, fair, bounded dispatch of search tasks to the
  workers' queues, with batched result polling and revocation;
- :mod:`~griot.services.gateway.cache`: the Redis evaluation cache (deeper wins, atomically);
- :mod:`griot.scores` (the library): scores, classification thresholds per family, AI levels;
- :mod:`~griot.services.gateway.metrics`: Prometheus metrics and the counters ``griot status`` reads.

The gateway imports no search engine work of its own: every search runs in a worker.
"""

from typing import Any

__all__ = ["SERVICE_NAME"]


def __getattr__(name: str) -> Any:
    # The servicer (and Celery under it) loads only when asked for: the package imports on an
    # install without the server extra, so ``python -m griot.services.gateway`` can say what is missing.
    if name == "SERVICE_NAME":
        from griot.services.gateway.servicer import SERVICE_NAME

        return SERVICE_NAME
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
