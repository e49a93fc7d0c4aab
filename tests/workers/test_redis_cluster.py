"""The transposition cache on a real Redis Cluster (three primaries, three replicas on loopback):
distributed searches through real Celery workers give the in-process search's values with the
cluster as their cache, while a primary dies (its replica takes over) and while slots move
between primaries. Shallow depths: a few seconds of search each."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import griot
import pytest
import redis
from griot import monitor, redis_keys
from griot.tasks.distributed import ClusterSearch
from griot.workers import cache as tt
from griot.workers.cache import read_stats
from redis.cluster import RedisCluster
from redis_cluster import RedisClusterServers, running_cluster
from test_workers import positions
from workers_stack import Stack, make_stack

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def cluster() -> Iterator[RedisClusterServers]:
    yield from running_cluster()


@pytest.fixture(scope="module")
def cluster_workers(cluster: RedisClusterServers) -> Iterator[Stack]:
    s = make_stack(cache_cluster=cluster)
    try:
        app = s.app()
        s.start_worker("w1")
        s.start_worker("w2")
        s.wait_ready(app, 2)
        yield s
    finally:
        s.stop()


def _entries_by_primary(cluster: RedisClusterServers) -> dict[int, int]:
    """Transposition entries each primary holds."""
    out = {}
    for n in cluster.primaries():
        with redis.Redis(port=n.port, socket_timeout=2) as client:
            out[n.port] = sum(1 for _ in client.scan_iter(match="griot:tt:*", count=1000))
    return out


def _connections_received(port: int) -> int:
    """Client connections a node has accepted so far (this one included)."""
    with redis.Redis(port=port, socket_timeout=2) as client:
        return int(client.info("stats")["total_connections_received"])


def _getkeys_calls(cluster: RedisClusterServers) -> int:
    total = 0
    for n in cluster.primaries():
        with redis.Redis(port=n.port) as c:
            total += int(c.info("commandstats").get("cmdstat_command|getkeys", {}).get("calls", 0))
    return total


def _search(stack: Stack) -> ClusterSearch:
    return ClusterSearch(
        stack.app(), capacity=2, split=2, direct_depth=3, min_task_depth=2, fresh_tables=True
    )


def test_cluster_client_reads_and_writes_across_slots(cluster: RedisClusterServers) -> None:
    """One MGET and one pipeline of scripts over positions of every shard, through redis-py's
    cluster client: depth-preferred writes, reads in order, counters, memory summed over the
    primaries."""
    cluster.flushall()
    client = tt.connect(cluster.url, cluster=True)
    assert isinstance(client, RedisCluster)
    cache = tt.Cache(client, "awale")
    keys = [p.key for p in positions("awale", 60, seed=11)]
    keys = list(dict.fromkeys(keys))
    deep = [(k, tt.Entry(10, "exact", i, 0)) for i, k in enumerate(keys)]
    getkeys = _getkeys_calls(cluster)
    assert cache.put_many(deep) == (len(keys), 0)
    assert cache.put_many((k, tt.Entry(4, "exact", -1, 1)) for k in keys) == (0, len(keys))
    assert [e.value if e else None for e in cache.get_many(keys)] == list(range(len(keys)))
    # The scripts went by their keys: no node was asked for them (COMMAND GETKEYS).
    assert _getkeys_calls(cluster) == getkeys
    by_primary = _entries_by_primary(cluster)
    assert len(by_primary) == 3 and all(by_primary.values()), by_primary
    assert sum(by_primary.values()) == len(keys)
    # A script the server does not hold (a fresh or promoted node) is loaded and its calls sent again.
    for n in cluster.primaries():
        with redis.Redis(port=n.port) as c:
            c.script_flush()
    assert cache.put_many((k, tt.Entry(12, "lower", 7, None)) for k in keys) == (len(keys), 0)
    assert all(e is not None and e.depth == 12 for e in cache.get_many(keys))
    cache.count(hits=3, probes=5)
    stats = read_stats(client)
    assert stats["hits"] == 3 and stats["hit_rate_pct"] == 60
    assert stats["used_memory"] > 3 * 100_000  # three primaries' worth
    tt.close(client)


def test_distributed_values_equal_in_process_search_on_a_cluster(
    cluster: RedisClusterServers, cluster_workers: Stack
) -> None:
    """The distributed search's values equal the in-process search's with the cluster as the
    workers' cache, and its entries land on every primary."""
    cs = _search(cluster_workers)
    cluster.flushall()
    checked = 0
    for i, variant in enumerate(("awale", "abapa")):
        for pos in positions(variant, 3, seed=20 + i):
            depth = 9
            ref = griot.search(pos, depth=depth)
            got = cs.search(pos, depth, time_limit=60)
            assert (got.depth, got.value) == (depth, ref.score.value), (str(pos), got, ref)
            checked += 1
    assert checked == 6
    by_primary = _entries_by_primary(cluster)
    assert all(by_primary.values()), by_primary
    client = tt.connect(cluster.url, cluster=True)
    try:
        stats = read_stats(client)
        assert stats["writes"] > 0 and stats["errors"] == 0, stats
    finally:
        tt.close(client)


def _searches_in_thread(
    stack: Stack, pos_list: list[griot.Position], depth: int
) -> tuple[threading.Thread, list[tuple[griot.Position, int]], list[BaseException]]:
    """Runs distributed searches of ``pos_list`` one after the other in a thread; their values
    and any error collect in the lists returned."""
    results: list[tuple[griot.Position, int]] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            cs = _search(stack)
            for pos in pos_list:
                got = cs.search(pos, depth, time_limit=90)
                assert got.depth == depth
                results.append((pos, got.value))
        except BaseException as e:
            errors.append(e)

    t = threading.Thread(target=run, name="searches", daemon=True)
    t.start()
    return t, results, errors


def _wait_for_entries(cluster: RedisClusterServers, t: threading.Thread, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while sum(_entries_by_primary(cluster).values()) < 20:
        assert t.is_alive(), "the searches ended before the cache held their entries"
        assert time.monotonic() < deadline, "no entries in the cache"
        time.sleep(0.05)


def test_reshard_while_searches_run(cluster: RedisClusterServers, cluster_workers: Stack) -> None:
    """Slots (with their entries) move from one primary to another while distributed searches
    use the cache: the searches' values stay right and the slots moved."""
    cluster.flushall()
    pos_list = positions("awale", 4, seed=31)
    depth = 10
    t, results, errors = _searches_in_thread(cluster_workers, pos_list, depth)
    _wait_for_entries(cluster, t)
    source, target = cluster.primaries()[:2]
    assert len(results) < len(pos_list)  # the slots move while a search runs
    cluster.reshard(source, target, 1500)
    t.join(timeout=180)
    assert not t.is_alive() and not errors, errors
    moved = {n.node_id: n.slots for n in cluster.primaries()}
    assert moved[source.node_id] == source.slots - 1500 and moved[target.node_id] == target.slots + 1500
    assert len(results) == len(pos_list)
    for pos, value in results:
        assert value == griot.search(pos, depth=depth).score.value, str(pos)
    cluster.wait_ok()


def test_status_reports_every_node_of_the_cluster(cluster: RedisClusterServers, tmp_path: Path) -> None:
    """``griot status --cache-cluster --json``: each primary with its slots and each replica with
    its primary, all answering, every slot served, and the counters summed over every shard."""
    client = tt.connect(cluster.url, cluster=True)
    try:
        cache = tt.Cache(client, "awale")
        for _ in range(20):  # each adds to a hash drawn at random: spread over the shards
            cache.count(hits=1, probes=2)
        expected = read_stats(client)
    finally:
        tt.close(client)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
    env["GRIOT_STATE_FILE"] = str(tmp_path / "none.json")
    env["GRIOT_CACHE_CLUSTER"] = "1"
    args = ["status", "--json", "--cache-url", cluster.url, "--rules", "127.0.0.1:1", "--timeout", "1"]
    result = subprocess.run(
        [sys.executable, "-m", "griot.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    report = json.loads(result.stdout)
    assert report["redis"] == []  # the cluster has its own section
    seen = report["cache_cluster"]
    assert seen["ok"] and seen["state"] == "ok" and seen["slots_served"] == seen["slots_assigned"] == 16384
    nodes = {n["address"]: n for n in seen["nodes"]}
    assert len(nodes) == len(cluster.nodes()) and all(n["ok"] for n in nodes.values())
    primaries = {f"127.0.0.1:{n.port}": n for n in cluster.primaries()}
    assert {a: n["slots"] for a, n in nodes.items() if n["role"] == "primary"} == {
        a: n.slots for a, n in primaries.items()
    }
    assert all(n["of"] in primaries for n in nodes.values() if n["role"] == "replica")
    assert report["tt_stats"]["hits"] == expected["hits"] >= 20
    assert report["tt_stats"]["probes"] == expected["probes"]


def test_an_unreachable_primary_costs_only_its_own_keys(cluster: RedisClusterServers) -> None:
    """One primary stops answering (no failover yet): searches skip its keys alone, per node
    (its breaker's one timeout, then misses counted in errors), still find the other primaries'
    entries, and give the in-process search's values."""
    cluster.flushall()
    client = tt.connect(cluster.url, cluster=True)
    assert isinstance(client, RedisCluster)
    pos_list = positions("awale", 3, seed=51)
    depth = 10

    def search(pos: griot.Position) -> tuple[tt.RedisTable, int]:
        table = tt.RedisTable(tt.Cache(client, "awale"), min_depth=4, plies=2)
        return table, griot.search(pos, depth=depth, shared=table).score.value

    try:
        expected = [griot.search(pos, depth=depth).score.value for pos in pos_list]
        assert [search(pos)[1] for pos in pos_list] == expected  # the cache filled
        asked = int(cluster.url.rsplit(":", 1)[1].split("/")[0])  # the node status asks
        victim = next(n for n in cluster.primaries() if n.port != asked)
        breakers = {n.port: tt.breaker_of(client, f"127.0.0.1:{n.port}") for n in cluster.primaries()}
        for b in breakers.values():
            b.pause = 120  # no second try within the test
        connections = _connections_received(victim.port)
        with cluster.unreachable(victim):
            # A read of many keys, a third of them on the stopped node: their slots' MGETs fail.
            _, errors = tt.Cache(client, "awale").read_many([p.key for p in positions("awale", 60, seed=52)])
            assert len(errors) == 1 and isinstance(errors[0], redis.TimeoutError), errors
            for pos, value in zip(pos_list, expected, strict=True):
                table, got = search(pos)
                assert got == value, str(pos)
                assert table.stats["hits"] > 0 and table.stats["errors"] > 0, table.stats
            # `griot status` says which node is down and which slots are not served, sums the
            # counters it can read and says how many it could not.
            report = monitor.collect(
                rules=None,
                gateway=None,
                broker_url=None,
                cache_url=cluster.url,
                cache_cluster=True,
                timeout=0.5,
            )
            assert report.cache_cluster is not None and not report.healthy
            nodes = {int(n.address.rsplit(":", 1)[1]): n for n in report.cache_cluster.nodes}
            assert not nodes[victim.port].ok and nodes[victim.port].error
            assert all(n.ok for port, n in nodes.items() if port != victim.port)
            assert report.cache_cluster.slots_served == 16384 - victim.slots
            on_victim = sum(
                client.get_node_from_key(k).port == victim.port for k in redis_keys.tt_stats_keys()
            )
            assert on_victim and any(f"{on_victim} of " in note for note in report.notes), report.notes
            # The stopped node was asked on the connections the client had: redis-py's cluster
            # pipeline would have opened one for each of its commands, to send each again (a
            # timeout each). Counted by the node once it runs again (status asked it once).
            cluster.procs[victim.port].send_signal(signal.SIGCONT)
            assert _connections_received(victim.port) - connections - 1 <= 2
        # One call waited for the stopped node; the others skipped it; no other node was skipped.
        assert {port: b.trips for port, b in breakers.items()} == {
            port: int(port == victim.port) for port in breakers
        }
    finally:
        tt.close(client)


def test_primary_killed_during_a_distributed_search(
    cluster: RedisClusterServers, cluster_workers: Stack
) -> None:
    """A primary is killed while distributed searches write to the cache: its replica takes over
    and the searches finish with the in-process search's values. Runs last: the cluster has one
    replica fewer after it."""
    cluster.flushall()
    pos_list = positions("abapa", 4, seed=41)
    depth = 10
    t, results, errors = _searches_in_thread(cluster_workers, pos_list, depth)
    _wait_for_entries(cluster, t)
    victim = cluster.primaries()[-1]
    assert len(results) < len(pos_list)  # the primary dies while a search runs
    cluster.kill(victim.port)
    promoted = cluster.wait_failover(victim)
    assert promoted.port != victim.port
    t.join(timeout=180)
    assert not t.is_alive() and not errors, errors
    assert len(results) == len(pos_list)
    for pos, value in results:
        assert value == griot.search(pos, depth=depth).score.value, str(pos)
    # The cache works on the promoted primary: new entries reach it. A worker process that met
    # the dead primary skips the cache for tt.UNREACHABLE_PAUSE seconds after, so new positions
    # are searched until their entries arrive, within a deadline.
    client = tt.connect(cluster.url, cluster=True)
    try:
        before = read_stats(client)["writes"]
        cs = _search(cluster_workers)
        deadline = time.monotonic() + 3 * tt.UNREACHABLE_PAUSE + 60
        for pos in positions("awale", 20, seed=43):
            assert cs.search(pos, 9, time_limit=60).value == griot.search(pos, depth=9).score.value
            if read_stats(client)["writes"] > before:
                break
            assert time.monotonic() < deadline, "no entry written after the failover"
        assert read_stats(client)["writes"] > before
    finally:
        tt.close(client)
