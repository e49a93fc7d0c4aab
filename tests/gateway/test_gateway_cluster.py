"""The gateway with its cache on a real Redis Cluster (three primaries, three replicas on
loopback; ``GRIOT_CACHE_CLUSTER=1``): evaluations cached and served again, a game analysis (a
job: transactions on the ``{jobs}`` slot), a live session, with every key where the layout says."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Iterator
from typing import Any

import griot
import pytest
import test_gateway
from gateway_stack import Gateway, Stack, make_stack, start_rules
from griot import redis_keys
from griot.client import AnalysisClient, search_limits
from griot.services.gateway.batch import ClusterBatcher, NodeSkipped, batcher, connect_cluster
from griot.services.gateway.cache import EvalCache, EvalResult, entry_key
from griot.v1 import analysis_pb2
from griot.workers import cache as tt
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import RedisCluster
from redis.crc import key_slot
from redis.exceptions import MaxConnectionsError
from redis_cluster import RedisClusterServers, running_cluster
from test_gateway import game, midgame

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def cluster() -> Iterator[RedisClusterServers]:
    yield from running_cluster()


@pytest.fixture(scope="module")
def cluster_gateway(cluster: RedisClusterServers) -> Iterator[Gateway]:
    s: Stack | None = None
    rules = None
    g = None
    try:
        s = make_stack(cache_cluster=cluster)
        s.env["GRIOT_QUEUES"] = ""
        app = s.app()
        s.start_worker("gc1")
        s.wait_ready(app, 1)
        app.close()
        rules, target = start_rules(s)
        s.env["GRIOT_RULES_TARGET"] = target
        g = Gateway(s, ["--window", "4", "--default-depth", "6"]).start()
        yield g
    finally:
        if g is not None:
            g.stop()
        if rules is not None:
            os.killpg(rules.pid, signal.SIGTERM)
            rules.wait(timeout=10)
        if s is not None:
            s.stop()


def _client(g: Gateway) -> RedisCluster:
    return _client_of(g.stack.cache)


def _client_of(cluster: RedisClusterServers) -> RedisCluster:
    client = tt.connect(cluster.url, cluster=True)
    assert isinstance(client, RedisCluster)
    return client


def test_evaluations_spread_over_the_shards_and_are_served_again(cluster_gateway: Gateway) -> None:
    cache = _client(cluster_gateway)
    try:
        positions = [midgame("awale", plies, seed=plies) for plies in range(4, 16)]
        positions = list({p.key: p for p in positions}.values())
        with AnalysisClient(cluster_gateway.target) as client:
            for pos in positions:
                last = list(client.evaluate(pos, search_limits(max_depth=5), timeout=60))[-1]
                assert last.evaluation.final and last.evaluation.depth == 5
                assert last.evaluation.score.centi == griot.search(pos, depth=5).score.centi
            for pos in positions:
                again = list(client.evaluate(pos, search_limits(max_depth=5), timeout=10))
                assert len(again) == 1 and again[0].evaluation.from_cache
        keys = [
            redis_keys.eval_key(griot.ENGINE_VERSION, griot.DEFAULT_EVAL, "awale", p.key) for p in positions
        ]
        assert all(cache.exists(k) for k in keys)
        owners = {cache.get_node_from_key(k).name for k in keys}
        assert len(owners) >= 2, owners  # positions spread over the primaries
    finally:
        tt.close(cache)


def test_game_analysis_on_a_cluster(cluster_gateway: Gateway) -> None:
    """A job lives in the ``{jobs}`` slot: created, run and finished in transactions."""
    test_gateway.test_analyze_game_report_and_cache(cluster_gateway, "awale")
    cache = _client(cluster_gateway)
    try:
        assert cache.zcard(redis_keys.ACTIVE_JOBS) == 0  # finished: off the active set
        slot = key_slot(redis_keys.ACTIVE_JOBS.encode())
        jobs = [
            k for k in cache.scan_iter(match=redis_keys.JOB_PREFIX + "*", count=1000) if key_slot(k) == slot
        ]
        assert jobs and all(cache.hget(k, "state") == b"done" for k in jobs if not k.endswith(b":lease"))
    finally:
        tt.close(cache)


def test_live_session_on_a_cluster(cluster_gateway: Gateway) -> None:
    variant = "awale"
    moves = game(variant, 3, seed=9)
    start = griot.Variant(variant).start()
    limits = search_limits(max_depth=4)
    updates = [analysis_pb2.LiveSessionRequest(update_id=1, position=str(start), limits=limits)]
    updates += [analysis_pb2.LiveSessionRequest(update_id=i + 2, move=m) for i, m in enumerate(moves)]
    sent = threading.Event()

    def requests() -> Iterator[analysis_pb2.LiveSessionRequest]:
        for u in updates:
            yield u
            sent.wait(30)
            sent.clear()

    finals = {}
    session_id = ""
    with AnalysisClient(cluster_gateway.target) as client:
        for msg in client.live_session(requests(), timeout=60):
            session_id = msg.session_id
            if msg.HasField("evaluation") and msg.evaluation.final:
                finals[msg.update_id] = msg
                sent.set()
            if len(finals) == len(updates):
                break
    assert set(finals) == set(range(1, len(updates) + 1))
    pos = start
    for m in moves:
        pos = pos.play(m)
    cache = _client(cluster_gateway)
    try:
        saved = cache.hgetall(redis_keys.SESSION_PREFIX + session_id)
        assert saved[b"position"].decode() == str(pos)
        assert int(saved[b"update_id"]) == len(updates)
    finally:
        tt.close(cache)


def test_a_burst_waits_for_the_cluster_clients_connections(cluster: RedisClusterServers) -> None:
    """Many more cache calls at once than a node may have connections: redis-py's cluster client
    refuses the excess (``MaxConnectionsError``, it has no waiting pool); the gateway's client
    makes them wait their turn, and every one succeeds, scripts the nodes lost (sent again one
    by one) included."""
    limit, burst = 3, 120
    positions = [midgame("abapa", plies, seed=100 + plies) for plies in range(4, 24)]
    positions = list({p.key: p for p in positions}.values())

    async def plain() -> list[BaseException | None]:
        client = AsyncRedisCluster.from_url(cluster.url, max_connections=limit)
        try:
            return await asyncio.gather(
                *(client.get(f"burst:{i}") for i in range(burst)), return_exceptions=True
            )
        finally:
            await client.aclose()

    async def waiting() -> tuple[list[Any], list[Any], list[Any]]:
        client = connect_cluster(cluster.url, max_connections=limit)
        cache = EvalCache(batcher(client), ttl_seconds=60)
        try:
            sets = await asyncio.gather(*(client.set(f"burst:{i}", i) for i in range(burst)))
            cluster.flush_scripts()  # every batched script call is refused, then run on its own
            stored = await asyncio.gather(
                *(cache.put(pos, EvalResult(depth=3, value=i, best=None)) for i, pos in enumerate(positions))
            )
            read = await asyncio.gather(*(cache.get(pos) for pos in positions))
            gets = await asyncio.gather(*(client.get(f"burst:{i}") for i in range(burst)))
            return sets + stored, gets, read
        finally:
            await cache.client.aclose()
            await client.aclose()

    refused = asyncio.run(plain())
    assert any(isinstance(r, MaxConnectionsError) for r in refused)
    done, gets, read = asyncio.run(waiting())
    assert all(done) and len(done) == burst + len(positions)
    assert gets == [str(i).encode() for i in range(burst)]
    assert [r.value if r else None for r in read] == list(range(len(positions)))


def test_an_unreachable_node_costs_the_evaluation_cache_only_its_own_keys(
    cluster: RedisClusterServers,
) -> None:
    """One primary stops answering (no failover yet): the evaluations on the other primaries are
    still read, exact; those on the stopped one fail, the first batch waiting out the timeout
    and the next ones skipping the node at once."""
    positions = [midgame("awale", plies, seed=200 + plies) for plies in range(4, 30)]
    positions = list({p.key: p for p in positions}.values())
    asked = int(cluster.url.rsplit(":", 1)[1].split("/")[0])
    victim = next(n for n in cluster.primaries() if n.port != asked)
    sync_client = _client_of(cluster)
    try:
        on_victim = [sync_client.get_node_from_key(entry_key(p)).port == victim.port for p in positions]
    finally:
        tt.close(sync_client)
    assert any(on_victim) and not all(on_victim)

    async def run() -> tuple[list[list[Any]], dict[str, int]]:
        client = connect_cluster(cluster.url, max_connections=4)
        b = batcher(client)
        assert isinstance(b, ClusterBatcher)
        cache = EvalCache(b, ttl_seconds=60)
        try:
            await asyncio.gather(
                *(cache.put(pos, EvalResult(depth=4, value=i, best=None)) for i, pos in enumerate(positions))
            )
            rounds = []
            with cluster.unreachable(victim):
                for _ in range(3):
                    rounds.append(
                        await asyncio.gather(*(cache.get(p) for p in positions), return_exceptions=True)
                    )
            return rounds, dict(b.trips)
        finally:
            await b.aclose()
            await client.aclose()

    rounds, trips = asyncio.run(run())
    assert trips == {f"127.0.0.1:{victim.port}": 1}
    for n, got in enumerate(rounds):
        for i, (stopped, r) in enumerate(zip(on_victim, got, strict=True)):
            if stopped:
                assert isinstance(r, NodeSkipped if n else Exception), r
            else:
                assert isinstance(r, EvalResult) and r.value == i, r
