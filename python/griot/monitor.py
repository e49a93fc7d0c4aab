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
class StatusReport:
    services: list[ServiceHealth] = field(default_factory=list)
    redis: list[RedisReport] = field(default_factory=list)
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
        """Every service SERVING and every Redis answering."""
        return all(s.status == "SERVING" for s in self.services) and all(r.ok for r in self.redis)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
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

    lengths: dict[str, int] = {}
    with Connection(  # type: ignore[no-untyped-call]
        broker_url, connect_timeout=timeout, transport_options={"socket_timeout": timeout}
    ) as conn:
        conn.ensure_connection(max_retries=1)
        for q in queues:
            # A channel per queue: an AMQP broker closes the channel that asked for a missing one.
            channel = conn.channel()
            try:
                lengths[q] = int(channel.queue_declare(queue=q, passive=True).message_count)
            except conn.channel_errors:
                lengths[q] = 0
            finally:
                channel.close()
    return lengths


def tt_stats(cache_url: str, timeout: float = 2.0) -> dict[str, int]:
    """The workers' cache counters: the sum of their hashes (:func:`griot.redis_keys.tt_stats_keys`)."""
    client = _redis(cache_url, timeout)
    try:
        pipe = client.pipeline(transaction=False)
        for key in redis_keys.tt_stats_keys():
            pipe.hgetall(key)
        stats: dict[str, int] = {}
        for raw in pipe.execute():
            for k, v in raw.items():
                stats[k.decode()] = stats.get(k.decode(), 0) + int(v)
        return stats
    finally:
        client.close()


def gateway_stats(cache_url: str, timeout: float = 2.0) -> dict[str, Any]:
    """The gateway replicas' shared counters, the active jobs and the evaluation-cache hit rate."""
    client = _redis(cache_url, timeout)
    try:
        raw = client.hgetall(redis_keys.GATEWAY_STATS)
        stats: dict[str, Any] = {k.decode(): int(v) for k, v in raw.items()}
        if stats:
            stats["jobs_active"] = int(client.zcard(redis_keys.ACTIVE_JOBS))
            hits, misses = stats.get("cache_hits", 0), stats.get("cache_misses", 0)
            stats["cache_hit_rate"] = hits / (hits + misses) if hits + misses else None
        return stats
    finally:
        client.close()


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


def gateway_databases(cache_url: str, timeout: float = 2.0) -> dict[str, Any]:
    """Each running gateway replica's endgame databases (its entry in the cache)."""
    client = _redis(cache_url, timeout)
    try:
        keys = sorted(client.scan_iter(match=redis_keys.GATEWAY_DATABASES_PREFIX + "*", count=100))
        values = client.mget(keys) if keys else []
        return {
            k.decode()[len(redis_keys.GATEWAY_DATABASES_PREFIX) :]: json.loads(v)
            for k, v in zip(keys, values, strict=True)
            if v
        }
    finally:
        client.close()


def collect(
    *,
    rules: str | None,
    gateway: str | None,
    broker_url: str | None,
    cache_url: str | None,
    queues: tuple[str, ...] | None = None,
    timeout: float = 2.0,
    ask_workers: bool = True,
) -> StatusReport:
    """Everything ``griot status`` shows; a part with no address is left out."""
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
    if cache_url:
        cache = redis_report("cache", cache_url, timeout)
        report.redis.append(cache)
        if cache.ok:
            report.tt_stats = tt_stats(cache_url, timeout)
            report.gateway_stats = gateway_stats(cache_url, timeout)
            report.databases["gateways"] = gateway_databases(cache_url, timeout)
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
