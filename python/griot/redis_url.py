"""Redis URLs that name a Sentinel-watched primary, for the cache Redis (``GRIOT_CACHE_URL``).

``redis+sentinel://[:password@]host:port[,host:port...]/<primary name>[/<db>]`` names the Sentinels
and the primary's name they watch; a client asks them where the primary is, and asks again after a
failover (redis-py's :class:`redis.sentinel.Sentinel`). Any other URL is redis-py's own
(``redis://``, ``rediss://``, ``unix://``).

A Redis Cluster (``GRIOT_CACHE_CLUSTER``) is named by one of its nodes, a ``redis://`` or
``rediss://`` URL (:func:`cluster_node_url`): its client learns the other nodes from it, and a
cluster fails over by itself, without Sentinels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

SCHEME = "redis+sentinel"


@dataclass(frozen=True)
class SentinelURL:
    """The Sentinels' addresses, the primary's name, the database and the password (of the primary
    and its replicas; the Sentinels take none here)."""

    sentinels: tuple[tuple[str, int], ...]
    service: str
    db: int = 0
    password: str | None = None


def parse_sentinel(url: str) -> SentinelURL | None:
    """The parts of a ``redis+sentinel://`` URL; None for any other URL. Raises ValueError for a
    malformed one (no Sentinel, no primary name, a bad port or database)."""
    if not url.startswith(SCHEME + "://"):
        return None
    parts = urlsplit(url)
    hosts = parts.netloc.rsplit("@", 1)[-1]
    sentinels = []
    for item in filter(None, hosts.split(",")):
        host, _, port = item.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"{url!r}: a Sentinel is host:port, not {item!r}")
        sentinels.append((host.strip("[]"), int(port)))
    path = [p for p in parts.path.split("/") if p]
    if not sentinels or not path:
        raise ValueError(f"{url!r}: want {SCHEME}://host:port[,host:port...]/<primary name>[/<db>]")
    if len(path) > 2 or (len(path) == 2 and not path[1].isdigit()):
        raise ValueError(f"{url!r}: the path is /<primary name>[/<db>]")
    password = unquote(parts.password) if parts.password else None
    return SentinelURL(tuple(sentinels), path[0], int(path[1]) if len(path) == 2 else 0, password)


def cluster_node_url(url: str) -> str:
    """``url`` when it may name a node of a Redis Cluster; ValueError for a Sentinel URL (a cluster
    has no Sentinels) or a Unix socket (its client reaches the other nodes by host and port)."""
    if url.startswith(SCHEME + "://"):
        raise ValueError(f"{url!r}: a Redis Cluster is named by one of its nodes, not by Sentinels")
    if not url.startswith(("redis://", "rediss://")):
        raise ValueError(f"{url!r}: a Redis Cluster node is a redis:// or rediss:// URL")
    return url


def sentinel_primary(url: SentinelURL, *, aio: bool = False, **kwargs: Any) -> Any:
    """A client of the primary the Sentinels name now and after any failover: redis-py's
    ``Sentinel(...).master_for`` (``redis.asyncio``'s with ``aio``); ``kwargs`` go to the client's
    connections (timeouts, client name)."""
    timeout = kwargs.get("socket_connect_timeout") or kwargs.get("socket_timeout") or 2.0
    sentinel_kwargs = {"socket_timeout": timeout, "socket_connect_timeout": timeout}
    if aio:
        from redis.asyncio.sentinel import Sentinel as AsyncSentinel

        watchers = AsyncSentinel(list(url.sentinels), sentinel_kwargs=sentinel_kwargs)  # type: ignore[no-untyped-call]
        return watchers.master_for(url.service, db=url.db, password=url.password, **kwargs)
    from redis.sentinel import Sentinel

    sync_watchers = Sentinel(list(url.sentinels), sentinel_kwargs=sentinel_kwargs)  # type: ignore[no-untyped-call]
    return sync_watchers.master_for(  # type: ignore[no-untyped-call]
        url.service, db=url.db, password=url.password, **kwargs
    )
