"""Cached values are keyed by the evaluation that found them: a value searched under one evaluation
(``learned``, the default, or ``tuned``, ``material``...) is never served to a search under another,
in the workers' transposition cache or the gateway's results."""

from __future__ import annotations

import re

import griot
import pytest
import redis
from griot import redis_keys
from griot.services.gateway import cache as gateway_cache
from griot.tasks.args import EVAL
from griot.workers import cache as tt

from .conftest import Redis, needs_redis


def test_the_default_evaluation_is_the_learned_one() -> None:
    assert griot.DEFAULT_EVAL == "learned"
    assert EVAL == griot.DEFAULT_EVAL
    pos = griot.Variant("abapa").start()
    # The default search is the learned one, and differs from the tuned one.
    default = griot.search(pos, depth=8, multipv=0)
    learned = griot.search(pos, depth=8, multipv=0, eval="learned")
    tuned = griot.search(pos, depth=8, multipv=0, eval="tuned")
    assert (default.nodes, default.score.value, default.pv) == (
        learned.nodes,
        learned.score.value,
        learned.pv,
    )
    assert [m.score.value for m in default.moves] != [m.score.value for m in tuned.moves]


LEARNED = griot.eval_scope("learned")
"""The learned evaluation as keys name it: with the digest of its shipped weights."""


def test_the_learned_evaluation_is_keyed_by_its_weights() -> None:
    """A refit changes the weights without a new engine version: keys name the learned
    evaluation with its weights' digest (the core's tests change a weight and see it change)."""
    assert re.fullmatch(r"learned\.[0-9a-f]{8}", LEARNED), LEARNED
    assert griot.eval_name("learned") == "learned"
    others = [griot.eval_scope(e) for e in ("tuned", "material", "10, 0,20,0")]
    assert others == ["tuned", "material", "10,0,20,0"]
    with pytest.raises(griot.GriotError):
        griot.eval_scope("best")


def test_keys_name_the_evaluation() -> None:
    key = b"\xff\x00"
    assert (
        redis_keys.tt_key("0.1.0", "learned", "abapa(holes=4)", key)
        == f"griot:tt:{{0.1.0:{LEARNED}:abapa(holes=4):ff00}}"
    )
    assert redis_keys.eval_key("0.1.0", "tuned", "abapa", key) == "griot:eval:v2:{0.1.0:tuned:abapa:ff00}"
    for make in (redis_keys.tt_key, redis_keys.busy_key, redis_keys.eval_key, redis_keys.flight_key):
        by_eval = {make("0.1.0", e, "abapa", key) for e in ("learned", "tuned", "material", "10,0,20,0")}
        assert len(by_eval) == 4
        for bad in ("", "a:b", "{x}"):
            with pytest.raises(ValueError, match="evaluation"):
                make("0.1.0", bad, "abapa", key)
    assert tt.entry_key("abapa", key) == f"griot:tt:{{{griot.ENGINE_VERSION}:{LEARNED}:abapa:ff00}}"
    assert tt.entry_key("abapa", key, "tuned") != tt.entry_key("abapa", key)
    assert tt.busy_key("abapa", key, "tuned") != tt.busy_key("abapa", key)


def test_the_gateway_keys_its_results_by_the_workers_evaluation() -> None:
    pos = griot.Variant("abapa").start()
    assert gateway_cache.entry_key(pos) == redis_keys.eval_key(griot.ENGINE_VERSION, EVAL, "abapa", pos.key)
    assert f":{griot.eval_scope(EVAL)}:abapa:" in gateway_cache.flight_key(pos)


@needs_redis
def test_a_search_reads_no_entry_of_another_evaluation(redis_server: Redis) -> None:
    client = redis.Redis.from_url(redis_server.url)
    pos = griot.Variant("abapa").start()

    def search(evaluation: str) -> tuple[tt.RedisTable, griot.SearchResult]:
        table = tt.RedisTable(tt.Cache(client, "abapa", evaluation=evaluation), min_depth=4, plies=2)
        return table, griot.search(pos, depth=9, eval=evaluation, shared=table)

    # A learned search alone (it reads back what its own earlier iterations wrote).
    alone, alone_result = search("learned")
    client.flushdb()
    _, first = search("tuned")
    written = sorted(k.decode() for k in client.scan_iter("griot:tt:*"))
    assert written and all(f"{{{griot.ENGINE_VERSION}:tuned:abapa:" in k for k in written)
    # The same evaluation finds them; the other one finds none of them: it searches as if alone.
    again, again_result = search("tuned")
    assert again.stats["hits"] > 0 and again_result.nodes < first.nodes
    learned, learned_result = search("learned")
    assert learned.stats["hits"] == alone.stats["hits"]
    assert (learned_result.nodes, learned_result.score.value) == (
        alone_result.nodes,
        alone_result.score.value,
    )
    assert any(
        f"{{{griot.ENGINE_VERSION}:{LEARNED}:abapa:" in k.decode() for k in client.scan_iter("griot:tt:*")
    )
    client.close()


def test_the_keys_of_one_position_share_a_cluster_slot_and_positions_spread() -> None:
    """Every script the workers and the gateway run touches one position's keys (or one job's and
    the active set): on a Redis Cluster they must hash to one slot, while different positions
    spread over the slots (the load over the shards)."""
    from redis.crc import key_slot

    slots = set()
    for pos in _random_positions("awale", 400, seed=3):
        keys = [
            make(griot.ENGINE_VERSION, "learned", "awale", pos.key)
            for make in (redis_keys.tt_key, redis_keys.busy_key, redis_keys.eval_key, redis_keys.flight_key)
        ]
        assert len({key_slot(k.encode()) for k in keys}) == 1, keys
        slots.add(key_slot(keys[0].encode()))
    # 400 positions over 16,384 slots: nearly all distinct (a shared tag would give one).
    assert len(slots) > 390
    # The workers' counters: one hash per worker process, each its own slot.
    stats = redis_keys.tt_stats_keys()
    assert stats[0] == redis_keys.TT_STATS and len(stats) == redis_keys.TT_STATS_SHARDS == 16
    # One in each sixteenth of the slots, so over a cluster's slot ranges as evenly as they allow.
    assert sorted(key_slot(k.encode()) // 1024 for k in stats) == list(range(16))
    job = redis_keys.JOB_PREFIX + "0123abcd"
    assert {key_slot(k.encode()) for k in (job, job + ":lease", redis_keys.ACTIVE_JOBS)} == {
        key_slot(redis_keys.ACTIVE_JOBS.encode())
    }


def _random_positions(variant: str, count: int, seed: int) -> list[griot.Position]:
    import random

    rng = random.Random(seed)
    out: dict[bytes, griot.Position] = {}
    while len(out) < count:
        p = griot.Variant(variant).start()
        for _ in range(rng.randrange(1, 40)):
            moves = p.legal_moves()
            if not moves:
                break
            p = p.play(rng.choice(moves))
        out[p.key] = p
    return list(out.values())
