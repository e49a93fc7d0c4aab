"""``redis+sentinel://`` URLs (griot.redis_url): parsed into the Sentinels, the primary's name, the
database and the password; anything else is left to redis-py; a Redis Cluster is named by a node."""

from __future__ import annotations

import pytest
from griot.redis_url import SentinelURL, cluster_node_url, parse_sentinel


def test_a_sentinel_url_names_the_sentinels_the_primary_and_the_database() -> None:
    url = "redis+sentinel://:s%40cret@10.0.0.1:26379,[::1]:26380,cache:26381/griot-cache/2"
    assert parse_sentinel(url) == SentinelURL(
        (("10.0.0.1", 26379), ("::1", 26380), ("cache", 26381)), "griot-cache", 2, "s@cret"
    )
    assert parse_sentinel("redis+sentinel://a:1/main") == SentinelURL((("a", 1),), "main", 0, None)


def test_other_urls_are_redis_pys() -> None:
    for url in ("redis://127.0.0.1:6379/0", "rediss://h:6380/1", "unix:///run/redis.sock"):
        assert parse_sentinel(url) is None


@pytest.mark.parametrize(
    "url",
    [
        "redis+sentinel://a:1",  # no primary name
        "redis+sentinel:///main",  # no Sentinel
        "redis+sentinel://a:x/main",  # a bad port
        "redis+sentinel://a:1/main/db",  # a bad database
        "redis+sentinel://a:1/main/0/extra",
    ],
)
def test_a_malformed_sentinel_url_is_refused(url: str) -> None:
    with pytest.raises(ValueError):
        parse_sentinel(url)


def test_a_cluster_is_named_by_a_node_not_by_sentinels() -> None:
    assert cluster_node_url("redis://127.0.0.1:7000/0") == "redis://127.0.0.1:7000/0"
    assert cluster_node_url("rediss://u:p@h:7000") == "rediss://u:p@h:7000"
    with pytest.raises(ValueError, match="not by Sentinels"):
        cluster_node_url("redis+sentinel://a:1/main")
    with pytest.raises(ValueError, match="redis:// or rediss://"):
        cluster_node_url("unix:///run/redis.sock")
