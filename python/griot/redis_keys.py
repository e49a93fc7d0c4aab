"""The Redis names Griot's components share: queues on the broker, keys on the cache.

One module so that the workers, the gateway, ``griot status`` and the deploy files agree on every
name. Two Redis roles, never mixed:

- **broker** (``GRIOT_BROKER_URL``, ``maxmemory-policy noeviction``): Celery's queues, kombu's
  business: Griot reads no key of them; ``griot status`` asks the broker through kombu how many
  messages each queue holds.
- **cache** (``GRIOT_CACHE_URL``, ``maxmemory-policy allkeys-lru`` with ``maxmemory``): the shared
  transposition table and the gateway's results, jobs and live sessions. Every key starts with
  ``griot:``. The cache may be one Redis or a Redis Cluster (``GRIOT_CACHE_CLUSTER``): every
  script and transaction touches keys of one hash slot. The keys of one position (its
  transposition entry and marker, the gateway's evaluation and in-flight marker) share a hash tag
  (the braces: the part of the key a cluster hashes), so each position's keys live in one slot
  while positions spread over all slots; every job key shares the tag ``{jobs}`` (a job is written
  in transactions with the set of active jobs: few, in one slot); the other keys stand alone
  (one key per command, or pipelines that the cluster client splits by node).

Cache key layout (engine version first: a new engine never reads an old engine's scores; then
the evaluation the value was searched with, ``learned.<weights digest>``, ``tuned``..., so a value
found under one evaluation, or under other learned weights, is never served for another):

======================================================  ===========================================
``griot:tt:{<engine>:<eval>:<variant>:<poskey>}``       a transposition entry (depth, bound, score,
                                                        move), keyed by the exact position key, not
                                                        a hash, so there are no false hits
``griot:tt:{<engine>:<eval>:<variant>:<k>}:busy``       a marker (SET NX PX) while a worker
                                                        searches it
``griot:cache:{stats}``, ``griot:cache:{stats.<n>}``   hashes of the workers' cache counters
                                                        (``hits``, ``misses``, ``writes``, ``kept``
                                                        ..., HINCRBY), a flush adding to one drawn
                                                        at random; their sum is the counters
``griot:eval:v2:{<engine>:<eval>:<variant>:<k>}``       the gateway's finished evaluations (``v2``:
                                                        the value's format, which holds the endgame
                                                        databases' results)
``griot:gwflight:{<engine>:<eval>:<variant>:<k>}``      a gateway replica's search of a position
                                                        running (SET NX PX)
``griot:gateway:stats``                                 hash of the gateway replicas' counters
``griot:gateway:databases:<replica>``                   the endgame databases a replica scores with
``griot:{jobs}:active`` / ``griot:{jobs}:job:<id>``    the running analyses (sorted set) and each
                                                        analysis job (and its ``:lease``)
``griot:{jobs}:epoch``                                  the token of this server's life (and when it
                                                        began), the start of every job id made in it
``griot:session:<id>``                                  a live session
``griot:progress:<task id>``                            (result backend) a search task's completed
                                                        depths so far, for the gateway's stream
``griot:alive:<task id>``                               (result backend) renewed by a running task:
                                                        its caller sees a dead worker by its expiry
``griot:cancel:<task id>``                              (result backend) set by a caller that wants
                                                        a running task stopped
======================================================  ===========================================
"""

from __future__ import annotations

import functools
import os

from griot._core import GriotError, eval_scope

#: Celery queues: a person waiting (play, live analysis) beats a batch job (whole-game analysis).
QUEUE_INTERACTIVE = "griot.interactive"
QUEUE_BATCH = "griot.batch"
DEFAULT_QUEUES: tuple[str, ...] = (QUEUE_INTERACTIVE, QUEUE_BATCH)

PREFIX = "griot:"
TT_PREFIX = PREFIX + "tt:"
TT_STATS = PREFIX + "cache:{stats}"
#: The workers' cache counters are spread over this many hashes, each flush adding to one drawn
#: at random: every search task adds to them, and on a Redis Cluster one hash is one slot, so
#: one primary's hot spot. Readers add the hashes up (:func:`tt_stats_keys`).
TT_STATS_SHARDS = 16
#: The tags ``{stats.<n>}`` of the counters' hashes besides :data:`TT_STATS`, chosen so that the
#: sixteen fall one in each sixteenth of the 16,384 cluster slots: a cluster's primaries hold
#: ranges of slots, so the hashes spread over them as evenly as the ranges allow (CRC16 of
#: neighbouring names lands in neighbouring slots; ``stats.1`` to ``stats.15`` put nine of
#: sixteen on one of three primaries). ``tests/ops/test_cache_keys.py`` checks the spacing.
_TT_STATS_TAGS = (22, 3, 40, 62, 23, 2, 41, 20, 1, 42, 60, 21, 0, 43, 61)
#: Another gateway replica's search of a position (the gateway's in-flight marker).
FLIGHT_PREFIX = PREFIX + "gwflight:"
#: Hash of counters every gateway replica adds to (``griot status`` reads it).
GATEWAY_STATS = PREFIX + "gateway:stats"
#: ``<prefix><replica>``: the endgame databases a gateway replica scores with.
GATEWAY_DATABASES_PREFIX = PREFIX + "gateway:databases:"
#: The hash tag of every job key: a job is created, restored and finished in a transaction with
#: :data:`ACTIVE_JOBS`, which a Redis Cluster runs only on keys of one slot.
JOBS_TAG = "{jobs}"
#: Sorted set of the whole-game analyses running, by lease time.
ACTIVE_JOBS = PREFIX + JOBS_TAG + ":active"
#: ``v2``: the evaluation's JSON holds the endgame databases' results; a gateway of the format
#: before it would refuse their fields, so the two never share entries.
EVAL_PREFIX = PREFIX + "eval:v2:"
JOB_PREFIX = PREFIX + JOBS_TAG + ":job:"
#: ``<token>:<wall-clock seconds>``: the life of the cache Redis the jobs are in, set by the first
#: gateway replica to find it missing; a job id starts with the token of the life it was made in.
JOBS_EPOCH = PREFIX + JOBS_TAG + ":epoch"
SESSION_PREFIX = PREFIX + "session:"
PROGRESS_PREFIX = PREFIX + "progress:"
#: Result-backend keys of running tasks: set by a caller that wants a task stopped, and renewed
#: by a running task (its liveness).
CANCEL_PREFIX = PREFIX + "cancel:"
ALIVE_PREFIX = PREFIX + "alive:"

#: Fields of :data:`TT_STATS`.
STAT_HITS = "hits"
STAT_MISSES = "misses"
STAT_WRITES = "writes"


def queues() -> tuple[str, ...]:
    """The queue names, from ``GRIOT_QUEUES`` (comma-separated) or :data:`DEFAULT_QUEUES`."""
    text = os.environ.get("GRIOT_QUEUES", "")
    names = tuple(q.strip() for q in text.split(",") if q.strip())
    return names or DEFAULT_QUEUES


def position_tag(engine: str, evaluation: str, variant: str, position_key: bytes) -> str:
    """``{<engine>:<eval>:<variant>:<key hex>}``: the Redis Cluster hash tag of every key about one
    position (its transposition entry and marker, the gateway's evaluation and marker), so that a
    script over a position's keys runs in one slot, and positions spread over all slots."""
    return f"{{{key_scope(engine, evaluation, variant)}:{position_key.hex()}}}"


def key_scope(engine: str, evaluation: str, variant: str) -> str:
    """``<engine>:<eval>:<variant>``, the part of a cached value's key that says what computed
    it: the engine version, the evaluation (``griot.search``'s ``eval``, written as
    :func:`griot.eval_scope` writes it: the learned one with its weights' digest) and the
    canonical variant. Raises ``ValueError`` for a part that would make keys ambiguous."""
    scope = _scope(evaluation)
    for part, what in ((engine, "engine version"), (scope, "evaluation"), (variant, "variant")):
        if not part or any(c in part for c in "{}: \n"):
            raise ValueError(f"{what} {part!r} cannot be part of a cache key")
    return f"{engine}:{scope}:{variant}"


@functools.lru_cache(maxsize=1024)
def _scope(evaluation: str) -> str:
    """:func:`griot.eval_scope`, remembered (a key is built per position)."""
    try:
        return eval_scope(evaluation)
    except GriotError as e:
        raise ValueError(f"evaluation {evaluation!r} cannot be part of a cache key: {e}") from None


def tt_stats_key(shard: int) -> str:
    """The hash of cache counters number ``shard`` (of :data:`TT_STATS_SHARDS`): :data:`TT_STATS`
    for 0, ``griot:cache:{stats.<n>}`` (its own hash tag, so its own slot) for the others."""
    i = shard % TT_STATS_SHARDS
    return TT_STATS if i == 0 else f"{PREFIX}cache:{{stats.{_TT_STATS_TAGS[i - 1]}}}"


def tt_stats_keys() -> list[str]:
    """Every hash of cache counters: their sum is the workers' counters."""
    return [tt_stats_key(i) for i in range(TT_STATS_SHARDS)]


def tt_key(engine: str, evaluation: str, variant: str, position_key: bytes) -> str:
    """The transposition entry of a position: ``griot:tt:{<engine>:<eval>:<variant>:<key hex>}``.
    The braces are a Redis Cluster hash tag: the entry and its marker (:func:`busy_key`) share a
    slot, and positions spread over all slots."""
    return TT_PREFIX + position_tag(engine, evaluation, variant, position_key)


def busy_key(engine: str, evaluation: str, variant: str, position_key: bytes) -> str:
    """The marker a worker sets while it searches a position (``SET NX PX``), in its entry's slot."""
    return tt_key(engine, evaluation, variant, position_key) + ":busy"


def eval_key(engine: str, evaluation: str, variant: str, position_key: bytes) -> str:
    """The gateway's cached evaluation of a position (in the slot of its transposition entry)."""
    return EVAL_PREFIX + position_tag(engine, evaluation, variant, position_key)


def flight_key(engine: str, evaluation: str, variant: str, position_key: bytes) -> str:
    """The marker a gateway replica sets while its search of a position runs (in the slot of
    the position's evaluation: one script reads or writes both)."""
    return FLIGHT_PREFIX + position_tag(engine, evaluation, variant, position_key)


def progress_key(task_id: str) -> str:
    """Where a ``griot.search_position`` task sent with ``progress`` reports its completed depths:
    a JSON list, one entry per depth (as the task's result), rewritten as depths complete."""
    return PROGRESS_PREFIX + task_id
