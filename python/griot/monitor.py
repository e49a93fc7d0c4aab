"""What ``griot status`` reports: services' health, workers, queue lengths, cache size and hit rate.

Every figure is read from where the system keeps it, never from a side channel:

- services: the standard gRPC health check (``grpc.health.v1.Health/Check``) of each target;
- workers: a Celery ``ping`` broadcast over the broker (the same control channel ``celery inspect``
  uses), so any worker on any machine that shares the broker answers;
- queues: the messages waiting in each Celery queue, as the broker reports them to a passive queue
  declaration through kombu (any Celery broker: Redis, RabbitMQ);
- cache: ``DBSIZE`` and ``INFO`` of the cache database (memory, maxmemory, policy, evictions, Redis's
  own keyspace hit rate) and the transposition-cache counters the workers add to
  :func:`griot.redis_keys.tt_stats_keys` after each search task, summed (``tt_hit_rate`` is None until then).
- a Redis Cluster as the cache (``GRIOT_CACHE_CLUSTER``): ``CLUSTER NODES`` and ``CLUSTER INFO`` of
  the node the URL names (every primary and replica, the slots each primary serves, the slots
  assigned), then each node asked itself (``PING``, ``DBSIZE``, ``INFO``): a node that does not
  answer is reported, never raised. The counters below are read from the primary serving each
  key's slot (a primary that does not answer leaves its keys out, and says so).
- gateway: the counters every gateway replica adds to ``griot:gateway:stats`` in the cache
  (requests, evaluation-cache hits and misses, searches shared in a replica and across replicas,
  tasks sent and cancelled, requests refused, jobs and live sessions), plus ``griot:{jobs}:active``.
- endgame databases: each worker's answer to the ``griot_databases`` remote control command (over
  the broker, as the ping), and each gateway replica's ``griot:gateway:databases:<replica>`` entry
  in the cache: the rule sets each opened and their levels.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from griot import redis_keys
from griot.launcher import grpc_health, mask_url


@dataclass
class ServiceHealth:
    name: str
    target: str
    status: str
    ms: float


@dataclass
class RedisReport:
    role: str
    url: str
    ok: bool
    error: str = ""
    version: str = ""
    keys: int = 0
    used_memory: int = 0
    maxmemory: int = 0
    policy: str = ""
    evicted_keys: int = 0
    keyspace_hit_rate: float | None = None


@dataclass
class ClusterNode:
    """One node of a Redis Cluster cache, as the cluster sees it and as it answered."""

    address: str
    node_id: str
    #: ``primary`` or ``replica``.
    role: str
    #: A replica's primary (its address), as the cluster says.
    of: str = ""
    #: Slots a primary serves.
    slots: int = 0
    #: The cluster's view of the node: ``fail`` / ``fail?`` when the others find it down.
    flags: str = ""
    ok: bool = False
    error: str = ""
    keys: int = 0
    used_memory: int = 0
    maxmemory: int = 0


@dataclass
class ClusterReport:
    """A Redis Cluster cache: its nodes and slot coverage."""

    url: str
    ok: bool = False
    error: str = ""
    #: ``cluster_state`` of the node asked (``ok`` or ``fail``).
    state: str = ""
    #: Slots assigned to a primary (of 16384).
    slots_assigned: int = 0
    #: Slots served by a primary that answered.
    slots_served: int = 0
    nodes: list[ClusterNode] = field(default_factory=list)
    #: Slot ranges of each primary that answered, by address (for reading keys on their node).
    ranges: dict[str, list[tuple[int, int]]] = field(default_factory=dict, repr=False)

    @property
    def down(self) -> list[ClusterNode]:
        return [n for n in self.nodes if not n.ok]


@dataclass
class StatusReport:
    services: list[ServiceHealth] = field(default_factory=list)
    redis: list[RedisReport] = field(default_factory=list)
    #: The cache when it is a Redis Cluster (``GRIOT_CACHE_CLUSTER``): then it has no row in
    #: ``redis``.
    cache_cluster: ClusterReport | None = None
    queues: dict[str, int] = field(default_factory=dict)
    workers: list[str] | None = None
    workers_note: str = ""
    tt_hit_rate: float | None = None
    tt_stats: dict[str, int] = field(default_factory=dict)
    gateway_stats: dict[str, Any] = field(default_factory=dict)
    #: The endgame databases each worker and gateway replica opened: ``{"workers": {name: entry},
    #: "gateways": {replica: entry}}``, an entry ``{"dir": ..., "databases": [{"rules",
    #: "max_seeds"}]}``.
    databases: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        """Every service SERVING, every Redis answering (every node of a cluster, every slot
        served)."""
        cluster_ok = self.cache_cluster is None or self.cache_cluster.ok
        return (
            all(s.status == "SERVING" for s in self.services) and all(r.ok for r in self.redis) and cluster_ok
        )

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if self.cache_cluster is None:
            del out["cache_cluster"]
        else:
            del out["cache_cluster"]["ranges"]
        out["healthy"] = self.healthy
        return out


def check_service(name: str, target: str, service: str = "", timeout: float = 2.0) -> ServiceHealth:
    start = time.perf_counter()
    status = grpc_health(target, service, timeout=timeout)
    return ServiceHealth(name, target, status, round((time.perf_counter() - start) * 1000, 1))


def _redis(url: str, timeout: float) -> Any:
    import redis

    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)


def redis_report(role: str, url: str, timeout: float = 2.0) -> RedisReport:
    import redis

    report = RedisReport(role, mask_url(url), ok=False)
    try:
        client = _redis(url, timeout)
        try:
            client.ping()
            info = client.info()
            report.ok = True
            report.version = str(info.get("redis_version", ""))
            report.keys = int(client.dbsize())
            report.used_memory = int(info.get("used_memory", 0))
            report.maxmemory = int(info.get("maxmemory", 0))
            report.policy = str(info.get("maxmemory_policy", ""))
            report.evicted_keys = int(info.get("evicted_keys", 0))
            hits, misses = int(info.get("keyspace_hits", 0)), int(info.get("keyspace_misses", 0))
            report.keyspace_hit_rate = hits / (hits + misses) if hits + misses else None
        finally:
            client.close()
    except (redis.RedisError, OSError) as e:
        report.error = f"{type(e).__name__}: {e}"
    return report


def _error(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


def cluster_report(url: str, timeout: float = 2.0) -> ClusterReport:
    """The nodes of the Redis Cluster that ``url`` names a node of, each asked itself; slot
    coverage. Nothing raised: a node that does not answer is marked so."""
    import redis

    report = ClusterReport(mask_url(url))
    try:
        client = _redis(url, timeout)
        try:
            table = client.cluster("NODES")
            info = client.cluster("INFO")
        finally:
            client.close()
    except (redis.RedisError, OSError) as e:
        report.error = _error(e)
        return report
    report.state = str(info.get("cluster_state", ""))
    report.slots_assigned = int(info.get("cluster_slots_assigned", 0))
    by_id = {n["node_id"]: address for address, n in table.items()}
    for address, n in sorted(table.items()):
        flags = n["flags"].split(",")
        primary = "master" in flags
        ranges = [(int(r[0]), int(r[-1])) for r in n["slots"]]
        node = ClusterNode(
            address=address,
            node_id=n["node_id"],
            role="primary" if primary else "replica",
            of="" if primary else by_id.get(n["master_id"], n["master_id"]),
            slots=sum(b - a + 1 for a, b in ranges),
            flags=",".join(f for f in flags if f in ("fail", "fail?", "handshake", "noaddr")),
        )
        _ask_node(node, url, timeout)
        if node.ok and primary:
            report.slots_served += node.slots
            report.ranges[address] = ranges
        report.nodes.append(node)
    report.ok = report.state == "ok" and report.slots_served == 16384 and not report.down
    return report


def _node_url(cluster_url: str, address: str) -> str:
    """The URL of the node at ``address`` (host:port), with the cluster URL's scheme and
    credentials."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(cluster_url)
    auth = parts.netloc.rpartition("@")[0]
    netloc = f"{auth}@{address}" if auth else address
    return urlunsplit((parts.scheme, netloc, "/0", "", ""))


def _ask_node(node: ClusterNode, cluster_url: str, timeout: float) -> None:
    import redis

    try:
        client = _redis(_node_url(cluster_url, node.address), timeout)
        try:
            client.ping()
            info = client.info()
            node.keys = int(client.dbsize())
            node.used_memory = int(info.get("used_memory", 0))
            node.maxmemory = int(info.get("maxmemory", 0))
            node.ok = True
        finally:
            client.close()
    except (redis.RedisError, OSError) as e:
        node.error = _error(e)


class _CacheReader:
    """Clients of the cache to read keys with: the one Redis, or on a cluster the primary that
    serves each key's slot (None when it did not answer)."""

    def __init__(self, url: str, timeout: float, cluster: ClusterReport | None) -> None:
        self.url, self.timeout, self.cluster = url, timeout, cluster
        self._clients: dict[str, Any] = {}

    def _client(self, address: str) -> Any:
        if address not in self._clients:
            url = self.url if self.cluster is None else _node_url(self.url, address)
            self._clients[address] = _redis(url, self.timeout)
        return self._clients[address]

    def for_key(self, key: str) -> Any:
        """The client of the Redis holding ``key`` (None: its primary does not answer)."""
        if self.cluster is None:
            return self._client("")
        from redis.crc import key_slot

        slot = key_slot(key.encode())
        for address, ranges in self.cluster.ranges.items():
            if any(a <= slot <= b for a, b in ranges):
                return self._client(address)
        return None

    def every(self) -> list[Any]:
        """A client of each Redis holding keys (each primary that answers)."""
        if self.cluster is None:
            return [self._client("")]
        return [self._client(address) for address in self.cluster.ranges]

    def close(self) -> None:
        for client in self._clients.values():
            client.close()


def broker_report(url: str, timeout: float = 2.0) -> RedisReport:
    """The broker's row: a Redis broker's :func:`redis_report`; any other Celery broker (RabbitMQ)
    is checked by opening a kombu connection (the version is the server's own, when it says)."""
    if url.startswith(("redis://", "rediss://", "unix://")):
        return redis_report("broker", url, timeout)
    report = RedisReport("broker", mask_url(url), ok=False)
    try:
        from kombu.connection import Connection

        with Connection(url, connect_timeout=timeout) as conn:  # type: ignore[no-untyped-call]
            conn.ensure_connection(max_retries=1)
            properties = getattr(conn.connection, "server_properties", None) or {}
            version = properties.get("version", "")
            report.version = version.decode() if isinstance(version, bytes) else str(version)
            report.ok = True
    except Exception as e:  # kombu missing, or the broker unreachable
        report.error = f"{type(e).__name__}: {e}"
    return report


def queue_lengths(broker_url: str, queues: tuple[str, ...], timeout: float = 2.0) -> dict[str, int]:
    """Messages waiting per queue, as the broker says (kombu's passive ``queue_declare``; a queue
    the broker does not know holds none)."""
    from kombu.connection import Connection

    from griot.tasks.queues import waiting_messages

    with Connection(  # type: ignore[no-untyped-call]
        broker_url, connect_timeout=timeout, transport_options={"socket_timeout": timeout}
    ) as conn:
        conn.ensure_connection(max_retries=1)
        return waiting_messages(conn, queues)


def tt_stats(
    cache_url: str, timeout: float = 2.0, cluster: ClusterReport | None = None
) -> tuple[dict[str, int], int]:
    """The workers' cache counters: the sum of their hashes (:func:`griot.redis_keys.tt_stats_keys`),
    and how many of the hashes could not be read (on a primary of ``cluster`` that does not
    answer)."""
    reader = _CacheReader(cache_url, timeout, cluster)
    try:
        by_client: dict[int, tuple[Any, list[str]]] = {}
        unread = 0
        for key in redis_keys.tt_stats_keys():
            client = reader.for_key(key)
            if client is None:
                unread += 1
                continue
            by_client.setdefault(id(client), (client, []))[1].append(key)
        stats: dict[str, int] = {}
        for client, keys in by_client.values():
            pipe = client.pipeline(transaction=False)
            for key in keys:
                pipe.hgetall(key)
            for raw in pipe.execute():
                for k, v in raw.items():
                    stats[k.decode()] = stats.get(k.decode(), 0) + int(v)
        return stats, unread
    finally:
        reader.close()


def gateway_stats(
    cache_url: str, timeout: float = 2.0, cluster: ClusterReport | None = None
) -> dict[str, Any]:
    """The gateway replicas' shared counters, the active jobs and the evaluation-cache hit rate
    (empty when the primary that holds them does not answer)."""
    reader = _CacheReader(cache_url, timeout, cluster)
    try:
        client = reader.for_key(redis_keys.GATEWAY_STATS)
        raw = client.hgetall(redis_keys.GATEWAY_STATS) if client is not None else {}
        stats: dict[str, Any] = {k.decode(): int(v) for k, v in raw.items()}
        jobs = reader.for_key(redis_keys.ACTIVE_JOBS)
        if stats and jobs is not None:
            stats["jobs_active"] = int(jobs.zcard(redis_keys.ACTIVE_JOBS))
        if stats:
            hits, misses = stats.get("cache_hits", 0), stats.get("cache_misses", 0)
            stats["cache_hit_rate"] = hits / (hits + misses) if hits + misses else None
        return stats
    finally:
        reader.close()


def ping_workers(broker_url: str, timeout: float = 1.0) -> tuple[list[str] | None, str]:
    """Names of the Celery workers answering a ping over the broker (None: cannot ask)."""
    try:
        from celery import Celery
    except ImportError:
        return None, "celery is not installed here: workers not queried"
    app = Celery("griot-status", broker=broker_url)
    app.conf.broker_connection_retry_on_startup = False
    app.conf.broker_connection_max_retries = 0
    try:
        replies = app.control.ping(timeout=timeout) or []
    except Exception as e:  # the broker is down: reported with the Redis row
        return None, f"cannot ask workers: {type(e).__name__}"
    finally:
        app.close()
    return sorted(name for reply in replies for name in reply), ""


def worker_databases(broker_url: str, timeout: float = 1.0) -> dict[str, Any]:
    """Each answering worker's endgame databases (its ``griot_databases`` control command)."""
    from celery import Celery

    app = Celery("griot-status", broker=broker_url)
    app.conf.broker_connection_retry_on_startup = False
    app.conf.broker_connection_max_retries = 0
    try:
        replies = app.control.broadcast("griot_databases", reply=True, timeout=timeout) or []
    finally:
        app.close()
    return {name: answer for reply in replies for name, answer in reply.items() if isinstance(answer, dict)}


def gateway_databases(
    cache_url: str, timeout: float = 2.0, cluster: ClusterReport | None = None
) -> dict[str, Any]:
    """Each running gateway replica's endgame databases (its entry in the cache; on a cluster,
    those on the primaries that answer)."""
    reader = _CacheReader(cache_url, timeout, cluster)
    out: dict[str, Any] = {}
    try:
        for client in reader.every():
            keys = sorted(client.scan_iter(match=redis_keys.GATEWAY_DATABASES_PREFIX + "*", count=100))
            # One GET each: on a cluster the keys of one node may lie in many slots.
            pipe = client.pipeline(transaction=False)
            for k in keys:
                pipe.get(k)
            for k, v in zip(keys, pipe.execute() if keys else [], strict=True):
                if v:
                    out[k.decode()[len(redis_keys.GATEWAY_DATABASES_PREFIX) :]] = json.loads(v)
        return dict(sorted(out.items()))
    finally:
        reader.close()


def collect(
    *,
    rules: str | None,
    gateway: str | None,
    broker_url: str | None,
    cache_url: str | None,
    queues: tuple[str, ...] | None = None,
    timeout: float = 2.0,
    ask_workers: bool = True,
    cache_cluster: bool = False,
) -> StatusReport:
    """Everything ``griot status`` shows; a part with no address is left out. With
    ``cache_cluster``, ``cache_url`` names a node of a Redis Cluster."""
    from griot.launcher import ANALYSIS_SERVICE, RULES_SERVICE

    report = StatusReport()
    if rules:
        report.services.append(check_service("rules", rules, RULES_SERVICE, timeout))
    if gateway:
        report.services.append(check_service("gateway", gateway, ANALYSIS_SERVICE, timeout))
    queues = queues or redis_keys.queues()
    if broker_url:
        broker = broker_report(broker_url, timeout)
        report.redis.append(broker)
        if broker.ok:
            try:
                report.queues = queue_lengths(broker_url, queues, timeout)
            except Exception as e:  # kombu missing, or the broker failed meanwhile
                report.notes.append(f"queue lengths: {type(e).__name__}: {e}")
            if ask_workers:
                report.workers, report.workers_note = ping_workers(broker_url, min(timeout, 1.0))
                if report.workers:
                    try:
                        report.databases["workers"] = worker_databases(broker_url, min(timeout, 1.0))
                    except Exception as e:  # the broker failed meanwhile
                        report.notes.append(f"workers' databases: {type(e).__name__}: {e}")
    cache_ok = False
    cluster: ClusterReport | None = None
    if cache_url and cache_cluster:
        cluster = report.cache_cluster = cluster_report(cache_url, timeout)
        cache_ok = bool(cluster.ranges)
    elif cache_url:
        cache = redis_report("cache", cache_url, timeout)
        report.redis.append(cache)
        cache_ok = cache.ok
    if cache_url and cache_ok:
        import redis

        try:
            report.tt_stats, unread = tt_stats(cache_url, timeout, cluster)
            report.gateway_stats = gateway_stats(cache_url, timeout, cluster)
            report.databases["gateways"] = gateway_databases(cache_url, timeout, cluster)
        except (redis.RedisError, OSError) as e:  # a node failed meanwhile
            report.notes.append(f"cache counters: {_error(e)}")
            unread = 0
        if unread:
            report.notes.append(
                f"{unread} of {len(redis_keys.tt_stats_keys())} hashes of transposition-cache counters "
                "are on a primary that does not answer: left out of the sums"
            )
        hits = report.tt_stats.get(redis_keys.STAT_HITS, 0)
        misses = report.tt_stats.get(redis_keys.STAT_MISSES, 0)
        if hits + misses:
            report.tt_hit_rate = hits / (hits + misses)
        else:
            report.notes.append(
                f"no transposition-cache counters in {redis_keys.TT_STATS} yet "
                "(the search workers add them after each task)"
            )
    return report
