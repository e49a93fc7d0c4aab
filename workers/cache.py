"""The Redis transposition cache: the second level behind the core's batched table hook.

Keys (every key of one position shares a Redis Cluster hash tag, so a position's entry and its
in-flight marker live in one slot while positions spread over all slots)::

    griot:tt:{<engine>:<eval>:<variant>:<key hex>}         entry: "depth,bound,value,best"
    griot:tt:{<engine>:<eval>:<variant>:<key hex>}:busy    in-flight marker: "host:pid:task:depth"
    griot:cache:{stats}, griot:cache:{stats.<n>}          hashes of counters, one drawn per flush
                                                           (summed by ``griot status``)

``<engine>`` is ``griot.ENGINE_VERSION`` (a new engine never reads an old engine's values),
``<eval>`` the evaluation the searches use (``griot.search``'s ``eval``, each task's own) as
``griot.eval_scope`` writes it (the learned one with its weights' digest, ``learned.<hex>``), so a
value found under one evaluation, or under other learned weights, never answers a search under
another,
``<variant>`` the canonical variant string and ``<key hex>`` the position's exact key bytes
(``Position.key``, the same bytes the core hashes): no false hits from hash collisions.

Values: remaining depth, bound (``e``xact, ``l``ower, ``u``pper), node-relative value (proven
results count turns from the stored position) and the best move as its index in the legal-move
list (``-`` when none). Replacement is depth-preferred and atomic in Redis (:data:`STORE_SCRIPT`,
run by EVALSHA): a shallower result never overwrites a deeper one; at equal depth an exact value
is not replaced by a bound.

Memory is bounded by the instance (``maxmemory`` + ``maxmemory-policy allkeys-lru``; it is the
cache's own instance, never the broker's, so eviction cannot touch queued tasks) and by a TTL per
entry (``GRIOT_CACHE_TTL``) for deployments that must share an instance (then use
``volatile-lru``).

The cache is one Redis or a Redis Cluster (``GRIOT_CACHE_CLUSTER``, :func:`connect`): the keys of
an iteration are grouped by the primary that serves them (redis-py's slot table), and each primary
gets one pipeline from its own client (an MGET per slot: an entry read is one key's, atomicity
across keys is not needed; an EVALSHA per entry), a slot that moved meanwhile being followed by
redis-py's cluster client; every script touches one position's keys (one slot, their hash tag).
A node that does not know a script yet (a replica promoted after a failover, say) answers
NOSCRIPT: the script is loaded on that node and the calls it refused are sent again.

Only nodes with a large remaining depth touch Redis (``min_depth``), one MGET per iteration and one
pipeline of EVALSHA per iteration: never per node. Redis errors make the cache miss (counted in
``errors``), they never fail a search. A cache that does not answer (a connection refused, a read
timing out: a partition, a dead host) is left alone for :data:`UNREACHABLE_PAUSE` seconds by every
search of the process (:class:`Breaker`): without it, each of a task's few Redis calls waits out
the client's timeout, and a partitioned worker's tasks each take seconds longer than the search.
On a cluster the breaker is per node: a primary that does not answer (before its replica takes
over, or with none) costs its own keys (misses), while the keys of the other primaries still
reach the cache; the calls of an iteration go to each primary in turn, so that a node's failure
is known to be its own, and are not tried again (redis-py's cluster client would send each command
of a node that failed again, each waiting out the timeout); the client learns the slots again
meanwhile (a replica may be taking over).
"""

from __future__ import annotations

import logging
import os
import random
import socket
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import griot
import redis
from griot import redis_keys
from griot.redis_url import cluster_node_url, parse_sentinel, sentinel_primary
from griot.workers import metrics
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.commands.core import Script
from redis.retry import Retry

log = logging.getLogger(__name__)

STATS_KEY = redis_keys.TT_STATS
"""The first hash of counters (:func:`griot.redis_keys.tt_stats_keys` lists them all; each
flush adds to one drawn at random, :func:`read_stats` sums them): ``fetches`` (batched calls), ``probes``
(positions asked), ``hits``, ``misses``, ``writes`` (entries stored), ``kept`` (a deeper entry
was kept), ``task_hits`` (subtree tasks answered from the cache without searching),
``inflight_waits`` (a task waited for another worker's marker), ``inflight_reused`` (and then
used its result), ``errors``."""

STATS_FIELDS = (
    "fetches",
    "probes",
    "hits",
    "misses",
    "writes",
    "kept",
    "task_hits",
    "inflight_waits",
    "inflight_reused",
    "errors",
)

STORE_SCRIPT = """
-- KEYS[1]: entry key; ARGV[1]: "depth,bound,value,best"; ARGV[2]: TTL in ms (0 = none).
-- Depth-preferred: keep a deeper entry; at equal depth keep an exact value against a bound.
local new = ARGV[1]
local nd = tonumber(string.match(new, '^(%d+),'))
local old = redis.call('GET', KEYS[1])
if old then
  local od = tonumber(string.match(old, '^(%d+),'))
  if od and od > nd then return 0 end
  if od == nd and string.match(old, '^%d+,e,') and not string.match(new, '^%d+,e,') then
    return 0
  end
end
local ttl = tonumber(ARGV[2])
if ttl > 0 then
  redis.call('SET', KEYS[1], new, 'PX', ttl)
else
  redis.call('SET', KEYS[1], new)
end
return 1
"""

RELEASE_SCRIPT = """
-- Deletes an in-flight marker only if this holder still owns it.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

REFRESH_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

_BOUND_CODE = {"exact": "e", "lower": "l", "upper": "u"}
_BOUND_NAME = {v: k for k, v in _BOUND_CODE.items()}


@dataclass(frozen=True)
class Entry:
    """One cached result about a position (node-relative value)."""

    depth: int
    bound: str
    value: int
    best: int | None

    def encode(self) -> str:
        best = "-" if self.best is None else str(self.best)
        return f"{self.depth},{_BOUND_CODE[self.bound]},{self.value},{best}"

    @classmethod
    def decode(cls, raw: bytes | str) -> Entry | None:
        text = raw.decode() if isinstance(raw, bytes) else raw
        try:
            depth, bound, value, best = text.split(",")
            return cls(int(depth), _BOUND_NAME[bound], int(value), None if best == "-" else int(best))
        except (ValueError, KeyError):
            return None

    def answers(self, depth: int, alpha: int, beta: int) -> bool:
        """Whether this entry settles a search to ``depth`` with window ``(alpha, beta)``: only
        an entry of exactly that depth does (a deeper one would give the value at another depth,
        as the engine's own table does not either)."""
        if self.depth != depth:
            return False
        if self.bound == "exact":
            return True
        if self.bound == "lower":
            return self.value >= beta
        return self.value <= alpha


def entry_key(variant: str, key: bytes, evaluation: str = griot.DEFAULT_EVAL) -> str:
    """The Redis key of a position's entry (see the module header)."""
    return redis_keys.tt_key(griot.ENGINE_VERSION, evaluation, variant, key)


def busy_key(variant: str, key: bytes, evaluation: str = griot.DEFAULT_EVAL) -> str:
    """The in-flight marker of a position (same hash slot as its entry)."""
    return redis_keys.busy_key(griot.ENGINE_VERSION, evaluation, variant, key)


CacheClient: TypeAlias = "redis.Redis | RedisCluster"
"""A client of the cache: one Redis, or a Redis Cluster."""


def connect(url: str, cluster: bool = False) -> CacheClient:
    """A client for the cache: short timeouts, since a slow cache must not stall a search. A
    ``redis+sentinel://`` URL (:mod:`griot.redis_url`) gives a client of the primary the Sentinels
    name, which follows a failover. With ``cluster``, ``url`` names one node of a Redis Cluster
    (``GRIOT_CACHE_CLUSTER``) and the client is redis-py's :class:`~redis.cluster.RedisCluster`,
    which learns the others from it and follows the slots as they move (a failover, a reshard);
    a call that fails is not tried again (a miss; see :class:`Breaker`)."""
    options: dict[str, Any] = dict(
        socket_timeout=2.0,
        socket_connect_timeout=2.0,
        health_check_interval=30,
        client_name=f"griot-cache:{socket.gethostname()}:{os.getpid()}",
    )
    if cluster:
        # No retries of a call that met a node's failure (redis-py's default: three, each
        # waiting out the timeout and refreshing the slots): the call is a miss, the node's
        # breaker opens, and the slots were refreshed for the next call.
        return RedisCluster.from_url(cluster_node_url(url), retry=Retry(NoBackoff(), 0), **options)
    sentinel = parse_sentinel(url)
    if sentinel is not None:
        client: redis.Redis = sentinel_primary(sentinel, **options)
        return client
    return redis.Redis.from_url(url, **options)


#: Seconds a cache that did not answer is skipped before the next call tries it again.
UNREACHABLE_PAUSE = 10.0


#: What a failed cache call raises: redis-py's errors, and its cluster client's own (a slot no
#: node is known to serve, say).
CACHE_ERRORS = (redis.RedisError, redis.exceptions.RedisClusterException)


class CacheSkipped(redis.ConnectionError):
    """The cache did not answer a moment ago: the call was not made (a miss, as any Redis error)."""


class Breaker:
    """Skips a server's calls for ``pause`` seconds after one failed to reach it (connection
    error or timeout); the first call after the pause tries again. Errors Redis answers with
    (a script error, a full instance) do not count: the server is there."""

    def __init__(self, pause: float = UNREACHABLE_PAUSE) -> None:
        self.pause = pause
        self._skip_until = 0.0
        #: Calls that failed to reach the server (each opened the breaker).
        self.trips = 0

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        left = self._skip_until - time.monotonic()
        if left > 0:
            raise CacheSkipped(f"the cache did not answer: skipped for {left:.1f} s more")
        try:
            return fn(*args, **kwargs)
        except (redis.ConnectionError, redis.TimeoutError):
            self._skip_until = time.monotonic() + self.pause
            self.trips += 1
            raise


_breakers: weakref.WeakKeyDictionary[CacheClient, dict[str | None, Breaker]] = weakref.WeakKeyDictionary()
_breakers_lock = threading.Lock()


def close(client: CacheClient) -> None:
    """Closes a cache client and its connections. redis-py's ``RedisCluster.close`` releases its
    nodes' clients but leaves the connection pools it made for them connected (it made them
    itself, so the node clients do not own them): their sockets stay open until collected."""
    client.close()
    if isinstance(client, RedisCluster):
        cluster: Any = client  # its methods carry no types
        cluster.disconnect_connection_pools()


def breaker_of(client: CacheClient, node: str | None = None) -> Breaker:
    """The one :class:`Breaker` of a client, shared by every :class:`Cache` over it; of a
    cluster client, one per ``node`` (its name, ``host:port``) as well: a primary that does not
    answer is skipped alone."""
    with _breakers_lock:
        by_node = _breakers.get(client)
        if by_node is None:
            by_node = _breakers[client] = {}
        breaker = by_node.get(node)
        if breaker is None:
            breaker = by_node[node] = Breaker()
        return breaker


#: Replies of a cluster node about a slot it does not serve (now): MOVED, ASK, TRYAGAIN.
_MOVED = (redis.exceptions.MovedError, redis.exceptions.AskError, redis.exceptions.TryAgainError)

_refreshing: weakref.WeakSet[RedisCluster] = weakref.WeakSet()


def refresh_slots(client: CacheClient) -> None:
    """Has a cluster client learn the slots again (redis-py's ``nodes_manager.initialize``), in a
    thread of its own so that no search waits for it; one at a time per client."""
    if not isinstance(client, RedisCluster):
        return
    with _breakers_lock:
        if client in _refreshing:
            return
        _refreshing.add(client)

    def run() -> None:
        try:
            cluster: Any = client  # its methods carry no types
            cluster.nodes_manager.initialize()
        except CACHE_ERRORS as e:
            log.warning("cannot learn the cluster's slots again (%s)", e)
        finally:
            with _breakers_lock:
                _refreshing.discard(client)

    threading.Thread(target=run, name="griot-cache-slots", daemon=True).start()


def node_of(client: RedisCluster, key: str) -> str:
    """The name (``host:port``) of the primary serving ``key``'s slot, as the client knows it
    (``?`` while it knows none: the call goes and redis-py finds one)."""
    cluster: Any = client  # its methods carry no types
    try:
        node = cluster.get_node_from_key(key)
    except CACHE_ERRORS:
        return "?"
    return str(node.name) if node is not None else "?"


class Cache:
    """The cache of one variant, over one client: batched reads and atomic depth-preferred
    writes. Safe to share between threads (redis-py pools connections). Its calls go through the
    client's :class:`Breaker` (a cluster's: the breaker of the node each call goes to)."""

    def __init__(
        self, client: CacheClient, variant: str, ttl_seconds: int = 0, evaluation: str = griot.DEFAULT_EVAL
    ) -> None:
        self.client = client
        self.cluster = isinstance(client, RedisCluster)
        self.variant = variant
        #: The evaluation of the searches whose values this cache holds (part of every key).
        self.evaluation = evaluation
        self.ttl_ms = max(0, ttl_seconds) * 1000
        self._store = client.register_script(STORE_SCRIPT)
        self._release = client.register_script(RELEASE_SCRIPT)
        self._refresh = client.register_script(REFRESH_SCRIPT)
        self.breaker = breaker_of(client)

    def _breaker(self, name: str) -> Breaker:
        """The breaker of the server that holds the key ``name``."""
        if isinstance(self.client, RedisCluster):
            return breaker_of(self.client, node_of(self.client, name))
        return self.breaker

    def _by_node(self, names: Sequence[str]) -> dict[str, list[int]]:
        """The indexes of ``names`` grouped by the cluster node that holds them."""
        assert isinstance(self.client, RedisCluster)
        groups: dict[str, list[int]] = {}
        for i, name in enumerate(names):
            groups.setdefault(node_of(self.client, name), []).append(i)
        return groups

    # -- entries -----------------------------------------------------------------------------

    def get_many(self, keys: Sequence[bytes]) -> list[Entry | None]:
        """The entries of ``keys`` in one MGET (``None`` for misses). Raises redis errors."""
        entries, errors = self.read_many(keys)
        if errors:
            raise errors[0]
        return entries

    def read_many(self, keys: Sequence[bytes]) -> tuple[list[Entry | None], list[Exception]]:
        """The entries of ``keys`` (``None`` for misses), and the errors met: one MGET, on a
        cluster one per primary (redis-py splits it by slot), the keys of a node that failed or
        is skipped missing."""
        if not keys:
            return [], []
        names = [entry_key(self.variant, k, self.evaluation) for k in keys]
        raw: list[Any] = [None] * len(names)
        errors: list[Exception] = []
        if isinstance(self.client, RedisCluster):
            for node, where in self._by_node(names).items():
                try:
                    got = self._on_node(node, self._read_on, node, [names[i] for i in where])
                except CACHE_ERRORS as e:
                    errors.append(e)
                    continue
                for i, r in zip(where, got, strict=True):
                    raw[i] = r
        else:
            try:
                raw = self.breaker.call(self.client.mget, names)
            except CACHE_ERRORS as e:
                errors.append(e)
        return [Entry.decode(r) if r is not None else None for r in raw], errors

    def put_many(self, items: Iterable[tuple[bytes, Entry]]) -> tuple[int, int]:
        """Stores entries in one pipeline of EVALSHA (depth-preferred, atomic per key).
        Returns (written, kept because deeper). Raises redis errors."""
        written, kept, errors = self.write_many(items)
        if errors:
            raise errors[0]
        return written, kept

    def write_many(self, items: Iterable[tuple[bytes, Entry]]) -> tuple[int, int, list[Exception]]:
        """:meth:`put_many` that goes on past a failing node: (written, kept because deeper,
        the errors met); on a cluster one pipeline per primary, the entries of a node that
        failed or is skipped not written."""
        calls = [
            ([entry_key(self.variant, key, self.evaluation)], [e.encode(), self.ttl_ms]) for key, e in items
        ]
        if not calls:
            return (0, 0, [])
        errors: list[Exception] = []
        written = kept = 0
        if isinstance(self.client, RedisCluster):
            groups = self._by_node([keys[0] for keys, _ in calls])
            parts: list[tuple[str | None, list[tuple[list[str], list[Any]]]]] = [
                (node, [calls[i] for i in where]) for node, where in groups.items()
            ]
        else:
            parts = [(None, calls)]
        for node, part in parts:
            try:
                if node is None:
                    replies = self.breaker.call(self._run_script, self._store, part)
                else:
                    replies = self._on_node(node, self._run_script, self._store, part, node)
                stored = sum(int(x) for x in replies)
            except CACHE_ERRORS as e:
                errors.append(e)
                continue
            written += stored
            kept += len(part) - stored
        return written, kept, errors

    def _on_node(self, node: str, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``, a call to the cluster node ``node``, through its breaker. A call that
        does not reach it has the client's slot table refreshed meanwhile (a replica may be
        taking over its slots)."""
        try:
            return breaker_of(self.client, node).call(fn, *args)
        except CacheSkipped:
            raise
        except (redis.ConnectionError, redis.TimeoutError):
            refresh_slots(self.client)
            raise

    def _node_client(self, node: str) -> Any:
        """The client of the cluster node named ``node`` (None when the cluster client knows none
        by that name)."""
        cluster: Any = self.client  # a RedisCluster (its methods carry no types)
        found = cluster.get_node(node_name=node) if node != "?" else None
        return cluster.get_redis_connection(found) if found is not None else None

    def _read_on(self, node: str, names: list[str]) -> list[Any]:
        """The values of ``names`` (keys the node ``node`` serves): an MGET per slot in one
        pipeline to that node alone, so a node that does not answer costs one timeout (redis-py's
        cluster pipeline sends each command of a node that failed again on its own, each waiting
        out the timeout). The keys of a slot that moved meanwhile (MOVED, ASK) are read again
        through the cluster client, which follows them."""
        cluster: Any = self.client  # a RedisCluster (its methods carry no types)
        client = self._node_client(node)
        if client is None:
            return list(cluster.mget_nonatomic(names))
        by_slot: dict[int, list[int]] = {}
        for i, name in enumerate(names):
            by_slot.setdefault(cluster.keyslot(name), []).append(i)
        pipe = client.pipeline(transaction=False)
        for where in by_slot.values():
            pipe.mget([names[i] for i in where])
        out: list[Any] = [None] * len(names)
        moved: list[int] = []
        for where, reply in zip(by_slot.values(), pipe.execute(raise_on_error=False), strict=True):
            if isinstance(reply, _MOVED):
                moved.extend(where)
            elif isinstance(reply, Exception):
                raise reply
            else:
                for i, r in zip(where, reply, strict=True):
                    out[i] = r
        if moved:
            for i, r in zip(moved, cluster.mget_nonatomic([names[i] for i in moved]), strict=True):
                out[i] = r
        return out

    def _evalsha(
        self, script: Script, calls: list[tuple[list[str], list[Any]]], node: str | None = None
    ) -> list[Any]:
        """EVALSHA of each call, error replies in place: with ``node``, in one pipeline to that
        node alone (as :meth:`_read_on`; calls whose slot moved are sent again as below), else
        through a cluster pipeline (redis-py's cluster pipeline runs scripts as plain commands).
        There each goes to the node of its first key, named: without ``target_nodes`` redis-py's
        cluster pipeline (8.x) asks a node for the keys of every EVALSHA (``COMMAND GETKEYS``: a
        round trip each, all to one node). A call that meets a moved slot is sent again where
        the cluster says (redis-py)."""
        cluster: Any = self.client  # a RedisCluster (its methods carry no types)
        client = self._node_client(node) if node is not None else None
        if client is not None:
            pipe = client.pipeline(transaction=False)
            for keys, args in calls:
                pipe.evalsha(script.sha, len(keys), *keys, *args)
            replies = list(pipe.execute(raise_on_error=False))
            moved = [i for i, r in enumerate(replies) if isinstance(r, _MOVED)]
            if moved:
                for i, r in zip(moved, self._evalsha(script, [calls[i] for i in moved]), strict=True):
                    replies[i] = r
            return replies
        pipe = cluster.pipeline(transaction=False)
        for keys, args in calls:
            target = cluster.get_node_from_key(keys[0])
            pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args, target_nodes=target)
        return list(pipe.execute(raise_on_error=False))

    def _run_script(
        self, script: Script, calls: list[tuple[list[str], list[Any]]], node: str | None = None
    ) -> list[Any]:
        """The replies of ``script`` run once per (keys, args) of ``calls``, in one pipeline (on
        a cluster, to ``node`` when given: the node of every call's key). A cluster node that
        does not know the script refuses its calls (NOSCRIPT): the script is loaded (on that
        node, else on every primary) and those calls are sent again. Raises redis errors."""
        if not self.cluster:  # redis-py's pipeline loads the script itself
            pipe = self.client.pipeline(transaction=False)
            for keys, args in calls:
                script(keys=keys, args=args, client=pipe)
            return list(pipe.execute())
        replies = self._evalsha(script, calls, node)
        refused = [i for i, r in enumerate(replies) if isinstance(r, redis.exceptions.NoScriptError)]
        if refused:
            client = self._node_client(node) if node is not None else None
            (client or self.client).script_load(script.script)
            for i, r in zip(refused, self._evalsha(script, [calls[i] for i in refused], node), strict=True):
                replies[i] = r
        for r in replies:
            if isinstance(r, Exception):
                raise r
        return replies

    def count(self, **fields: int) -> None:
        """Adds to the shared counters (best effort), and to this worker's Prometheus counter
        ``griot_worker_cache_total`` (label ``event``: the field's name)."""
        fields = {k: v for k, v in fields.items() if v}
        if not fields:
            return
        m = metrics.get()
        if m:
            for k, v in fields.items():
                m["cache"].labels(k).inc(v)
        # One of the hashes of counters, drawn each time: on a cluster they spread over the
        # primaries however few processes add to them.
        key = redis_keys.tt_stats_key(random.randrange(redis_keys.TT_STATS_SHARDS))
        try:
            pipe = self.client.pipeline(transaction=False)
            for k, v in fields.items():
                pipe.hincrby(key, k, v)
            self._breaker(key).call(pipe.execute)
        except CACHE_ERRORS:
            pass

    # -- in-flight markers -------------------------------------------------------------------

    def try_claim(self, key: bytes, holder: str, ttl_ms: int) -> bool:
        """Claims a position for searching (SET NX PX); False when another worker holds it."""
        marker = busy_key(self.variant, key, self.evaluation)
        return bool(self._breaker(marker).call(self.client.set, marker, holder, nx=True, px=ttl_ms))

    def holder(self, key: bytes) -> str | None:
        marker = busy_key(self.variant, key, self.evaluation)
        raw = self._breaker(marker).call(self.client.get, marker)
        if raw is None:
            return None
        return raw.decode() if isinstance(raw, bytes) else str(raw)

    def refresh(self, key: bytes, holder: str, ttl_ms: int) -> bool:
        marker = busy_key(self.variant, key, self.evaluation)
        return bool(self._breaker(marker).call(self._refresh, keys=[marker], args=[holder, ttl_ms]))

    def release(self, key: bytes, holder: str) -> None:
        marker = busy_key(self.variant, key, self.evaluation)
        self._breaker(marker).call(self._release, keys=[marker], args=[holder])


class RedisTable:
    """The core's second-level table (``griot.search(shared=...)``) backed by :class:`Cache`.

    The search calls :meth:`fetch` once per iteration at least ``min_depth`` deep with the
    positions of its top ``plies`` plies, and :meth:`publish` once per such iteration with its
    new deep entries. Redis failures are misses (counted), never search failures.
    """

    def __init__(self, cache: Cache, min_depth: int = 8, plies: int = 2) -> None:
        self.cache = cache
        self.min_depth = min_depth
        self.plies = plies
        self.stats = dict.fromkeys(STATS_FIELDS, 0)

    def fetch(self, requests: list[tuple[bytes, int]]) -> list[tuple[bytes, int, str, int, int | None]]:
        self.stats["fetches"] += 1
        self.stats["probes"] += len(requests)
        entries, errors = self.cache.read_many([k for k, _ in requests])
        if errors:
            # One per server that failed or was skipped: on a cluster, the others still answered.
            self.stats["errors"] += len(errors)
            log.warning("cache fetch failed (%s): searching without it", errors[0])
        out: list[tuple[bytes, int, str, int, int | None]] = []
        for (key, _depth), entry in zip(requests, entries, strict=True):
            if entry is None:
                self.stats["misses"] += 1
                continue
            self.stats["hits"] += 1
            out.append((key, entry.depth, entry.bound, entry.value, entry.best))
        return out

    def publish(self, entries: list[tuple[bytes, int, str, int, int | None]]) -> None:
        written, kept, errors = self.cache.write_many(
            (key, Entry(depth, bound, value, best)) for key, depth, bound, value, best in entries
        )
        if errors:
            self.stats["errors"] += len(errors)
            log.warning("cache publish failed (%s)", errors[0])
        self.stats["writes"] += written
        self.stats["kept"] += kept

    def flush_stats(self) -> None:
        """Adds this table's counters to the shared ones and resets them."""
        self.cache.count(**self.stats)
        self.stats = dict.fromkeys(STATS_FIELDS, 0)


class Heartbeat:
    """Keeps an in-flight marker alive from a thread while the search runs (the GIL is free)."""

    def __init__(self, cache: Cache, key: bytes, holder: str, ttl_ms: int) -> None:
        self._args = (cache, key, holder, ttl_ms)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="griot-inflight", daemon=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        cache, key, holder, _ = self._args
        try:
            cache.release(key, holder)
        except CACHE_ERRORS:
            pass

    def _run(self) -> None:
        cache, key, holder, ttl_ms = self._args
        while not self._stop.wait(ttl_ms / 3000):
            try:
                cache.refresh(key, holder, ttl_ms)
            except CACHE_ERRORS:
                pass


def read_stats(client: CacheClient) -> dict[str, int]:
    """The shared counters plus ``hit_rate`` (per cent of probes) and the instance's memory use
    (a cluster's: the sum over its primaries): what ``griot status`` prints."""
    pipe = client.pipeline(transaction=False)
    for key in redis_keys.tt_stats_keys():
        pipe.hgetall(key)
    stats = {f: 0 for f in STATS_FIELDS}
    for raw in pipe.execute():
        for k, v in raw.items():
            name = k.decode() if isinstance(k, bytes) else k
            stats[name] = stats.get(name, 0) + int(v)
    probes = stats["probes"]
    stats["hit_rate_pct"] = round(100 * stats["hits"] / probes) if probes else 0
    if isinstance(client, RedisCluster):
        by_node: dict[Any, Any] = client.info("memory", target_nodes=RedisCluster.PRIMARIES)
        infos = list(by_node.values())
    else:
        infos = [client.info("memory")]
    stats["used_memory"] = sum(int(i.get("used_memory", 0)) for i in infos)
    stats["maxmemory"] = sum(int(i.get("maxmemory", 0)) for i in infos)
    return stats


def wait_for_holder(cache: Cache, key: bytes, deadline: float, poll: float = 0.05) -> bool:
    """Waits while another worker holds ``key``'s marker; True if it went away before
    ``deadline``."""
    while time.time() < deadline:
        if cache.holder(key) is None:
            return True
        time.sleep(poll)
    return False
