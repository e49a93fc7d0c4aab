"""The workers with real parts: redis-server, Celery worker processes (prefork), the distributed
search. Each test is bounded in time (``timeout`` arguments and deadlines); together they run in
well under two minutes on two cores."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
import threading
import time
from typing import Any

import griot
import pytest
import redis
from celery.utils.nodenames import worker_direct
from griot import redis_keys
from griot.tasks.distributed import ClusterSearch, cluster_workers
from griot.tasks.errors import BadTaskArguments
from griot.workers.cache import read_stats
from workers_stack import Stack, make_stack


def positions(variant: str, count: int, seed: int, max_turns: int = 30) -> list[griot.Position]:
    """Positions from random games (none over)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        p = griot.Variant(variant).start()
        for _ in range(rng.randrange(0, max_turns)):
            moves = p.legal_moves()
            if not moves:
                break
            p = p.play(rng.choice(moves))
        if p.legal_moves():
            out.append(p)
    return out


GAMES = [v for v in ("abapa", "awale", "leb-bbut-ahbochen", "bechi") if v in {i.id for i in griot.variants()}]


def test_distributed_value_equals_in_process_search(two_workers: Stack) -> None:
    """The exact minimax value across the cluster equals the in-process search's at the same depth
    (the best move may differ only between moves of equal value). Fresh tables and an empty cache:
    deeper results of earlier searches would answer these ones."""
    app = two_workers.app()
    cs = ClusterSearch(app, capacity=2, split=2, direct_depth=3, min_task_depth=2, fresh_tables=True)
    checked = 0
    for i, variant in enumerate(GAMES):
        for pos in positions(variant, 10, seed=i):
            two_workers.cache.flushdb()  # deeper entries of earlier searches must not answer this one
            depth = 7
            ref = griot.search(pos, depth=depth)
            got = cs.search(pos, depth, time_limit=60)
            assert got.depth == depth
            assert got.value == ref.score.value, (str(pos), got, ref)
            if got.best_move != str(ref.best_move):
                by_move = {m.move: m for m in griot.search(pos, depth=depth, multipv=0).moves}
                assert by_move[got.best_move].score.value == ref.score.value
            checked += 1
    assert checked == 10 * len(GAMES)


def test_distributed_value_equals_in_process_search_near_the_end(two_workers: Stack) -> None:
    """Proven wins and losses a few turns away: null windows at a win score must not become empty
    windows one ply lower (a window (WIN, WIN + 1) cannot hold a child's value)."""
    app = two_workers.app()
    cs = ClusterSearch(app, capacity=2, split=2, direct_depth=2, min_task_depth=2)
    starts = [griot.Position("abapa(max_turns=48) 0,0,0,0,1,1/1,1,0,0,0,0 23-21 S 40 -")]
    starts += [p for p in positions("abapa(max_turns=40)", 40, seed=11, max_turns=39) if p.turns >= 30]
    proven = 0
    for pos in starts[:8]:
        two_workers.cache.flushdb()
        depth = 9
        ref = griot.search(pos, depth=depth)
        got = cs.search(pos, depth, time_limit=60)
        assert got.value == ref.score.value, (str(pos), got, ref)
        proven += ref.score.kind != "margin"
    assert proven >= 1


def test_cache_counts_and_reuses(two_workers: Stack) -> None:
    app = two_workers.app()
    client = redis.Redis.from_url(two_workers.cache.url)
    client.flushdb()
    pos = griot.Variant("awale").start()
    cs = ClusterSearch(app, capacity=2, split=1, direct_depth=4, min_task_depth=2)
    first = cs.search(pos, 9, time_limit=60)
    stats1 = read_stats(client)
    assert stats1["writes"] > 0
    second = cs.search(pos, 9, time_limit=60)
    assert second.value == first.value == griot.search(pos, depth=9).score.value
    stats2 = read_stats(client)
    assert stats2["task_hits"] > stats1["task_hits"]
    assert cs.stats.cache_answers > 0
    # Keys: exact position bytes under the engine version, the evaluation and the variant, one hash
    # tag each.
    keys = [k.decode() for k in client.scan_iter("griot:tt:*")]
    scope = griot.eval_scope("learned")  # with its weights' digest
    assert keys and all(k.startswith(f"griot:tt:{{{griot.ENGINE_VERSION}:{scope}:awale:") for k in keys)
    assert any(client.exists(k) for k in redis_keys.tt_stats_keys())
    # What `griot status` prints.
    from griot.workers.__main__ import status
    from griot.workers.config import Settings

    st = status(Settings(broker_url=two_workers.broker.url, cache_url=two_workers.cache.url))
    assert st["cache"]["hits"] > 0 and 0 <= st["cache"]["hit_rate_pct"] <= 100
    assert st["cache"]["maxmemory"] == 64 * 1024 * 1024
    assert set(st["queues"]) == {"griot.interactive", "griot.batch"}


def _subtree_on_one_worker(app: Any, pos: griot.Position, depth: int, **kwargs: Any) -> dict[str, Any]:
    """A full-window ``griot.search_subtree`` task on the first worker's own queue, without the
    Redis cache; its value checked against the in-process search at that depth."""
    worker = sorted(cluster_workers(app, "griot.interactive"))[0]
    r = app.send_task(
        "griot.search_subtree",
        kwargs=dict(
            variant=pos.variant.canonical,
            position=str(pos),
            depth=depth,
            alpha=-1_000_001,
            beta=1_000_001,
            use_cache=False,
            **kwargs,
        ),
        queue=worker_direct(worker),
    )
    out: dict[str, Any] = r.get(timeout=60)
    assert out["worker"] == worker and out["complete"]
    assert out["value"] == griot.search(pos, depth=depth).score.value, (depth, kwargs)
    return out


def test_tasks_of_one_search_continue_the_workers_table(two_workers: Stack) -> None:
    """A pool process's subtree tasks of one distributed search (same ``search_id``) continue its
    kept table's search (no new generation); a task of another search, or without an id, starts
    a new one; every value is the in-process search's."""
    app = two_workers.app()
    pos = griot.Variant("abapa").start().play("c")
    steps = [("a", 6), ("a", 7), ("b", 7), ("b", 8), ("a", 8), (None, 8), (None, 9)]
    continued = [_subtree_on_one_worker(app, pos, depth, search_id=sid)["continued"] for sid, depth in steps]
    assert continued == [False, True, False, True, False, False, False]


def test_a_continuing_task_resumes_at_its_tables_depth(two_workers: Stack) -> None:
    """With ``resume``, a subtree task that continues its pool process's kept table (same
    ``search_id``) starts at the depth after the one the table holds its position searched to,
    instead of deepening from 1; a task of a new search, or without ``resume``, deepens from 1;
    every value is the in-process search's at that depth."""
    app = two_workers.app()
    pos = griot.Variant("awale").start().play("c").play("F")
    sid = f"resume-{time.time()}"
    steps = [(sid, 7, True), (sid, 8, True), (sid, 9, True), (sid, 10, False), (sid + "-other", 9, True)]
    first = [
        _subtree_on_one_worker(app, pos, depth, search_id=s, resume=resume)["first_depth"]
        for s, depth, resume in steps
    ]
    assert first == [1, 8, 9, 1, 1]


def test_a_task_after_a_deeper_search_keeps_the_fresh_value(two_workers: Stack) -> None:
    """A pool process keeps its table between searches, and an earlier search left deeper results
    there: a shallower search of the same position uses them to order its moves, not for its
    value, so with or without ``fresh`` (which empties the table first) it has the value a search
    from an empty table has, the in-process one; the kept table still saves nodes."""
    app = two_workers.app()
    pos = griot.Variant("abapa").start().play("d").play("B")
    worker = sorted(cluster_workers(app, "griot.interactive"))[0]

    def shallow_after_deep(fresh: bool) -> dict[str, Any]:
        _subtree_on_one_worker(app, pos, 12, search_id=f"deep-{time.time()}")
        kwargs = dict(variant="abapa", position=str(pos), depth=6, alpha=-1_000_001, beta=1_000_001)
        kwargs.update(use_cache=False, search_id=f"shallow-{time.time()}", fresh=fresh)
        out: dict[str, Any] = app.send_task(
            "griot.search_subtree", kwargs=kwargs, queue=worker_direct(worker)
        ).get(timeout=60)
        assert out["worker"] == worker and out["complete"] and not out["continued"]
        return out

    warm, fresh = shallow_after_deep(False), shallow_after_deep(True)
    assert warm["value"] == fresh["value"] == griot.search(pos, depth=6).score.value
    assert warm["nodes"] < fresh["nodes"], (warm, fresh)


def test_a_stated_depth_after_a_deeper_search_has_the_fresh_value(two_workers: Stack) -> None:
    """A worker searches Abapa's start to depth 12 with the shared table (it keeps its table, and
    the cache Redis keeps the deep entries of the top plies); then each worker, the warm one and
    the other (cold table, the same cache), searches it to depth 8, as a position task and as a
    subtree task answered or helped by the cache: every value is the in-process search's with a
    new table (here the warm table's deeper entries, were they to answer, give another value)."""
    app = two_workers.app()
    two_workers.cache.flushdb()
    pos = griot.Variant("abapa").start()
    workers = sorted(cluster_workers(app, "griot.interactive"))
    expected = griot.search(pos, depth=8).score.value
    deep = dict(variant="abapa", position=str(pos), depth=12)
    app.send_task("griot.search_position", kwargs=deep, queue=worker_direct(workers[0])).get(timeout=120)
    with redis.Redis.from_url(two_workers.cache.url) as client:
        assert client.keys("griot:tt:*"), "no deep entries in the cache for the next searches to meet"
    values = {}
    for worker in workers:
        position = dict(variant="abapa", position=str(pos), depth=8)
        subtree = dict(position, alpha=-1_000_001, beta=1_000_001, search_id=f"stated-{time.time()}")
        for name, kwargs in (("search_position", position), ("search_subtree", subtree)):
            out = app.send_task(f"griot.{name}", kwargs=kwargs, queue=worker_direct(worker)).get(timeout=60)
            values[worker, name] = out["value"]
    assert values == dict.fromkeys(values, expected), (expected, values)


def test_a_task_searches_under_its_caller_s_evaluation_in_a_table_of_its_own(two_workers: Stack) -> None:
    """A task names its evaluation: the worker searches under it, and in a kept table of that
    evaluation, so the deeper results a search under another evaluation left on the same pool
    process do not answer it."""
    app = two_workers.app()
    pos = griot.Variant("abapa").start().play("d").play("B")
    worker = sorted(cluster_workers(app, "griot.interactive"))[0]
    _subtree_on_one_worker(app, pos, 12, search_id=f"deep-{time.time()}")  # the default's table
    values = {}
    for evaluation in ("tuned", griot.DEFAULT_EVAL):
        kwargs = dict(variant="abapa", position=str(pos), depth=6, alpha=-1_000_001, beta=1_000_001)
        kwargs.update(use_cache=False, search_id=f"{evaluation}-{time.time()}", eval=evaluation)
        out: dict[str, Any] = app.send_task(
            "griot.search_subtree", kwargs=kwargs, queue=worker_direct(worker)
        ).get(timeout=60)
        assert out["worker"] == worker and out["complete"]
        values[evaluation] = out["value"]
    assert values["tuned"] == griot.search(pos, depth=6, eval="tuned").score.value
    # The two evaluations disagree here, so the check above tells whose table answered.
    assert values["tuned"] != values[griot.DEFAULT_EVAL]


def test_bad_arguments_fail_without_retries(two_workers: Stack) -> None:
    app = two_workers.app()
    start: dict[str, Any] = dict(
        variant="abapa", position="abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -", depth=5, alpha=0, beta=1
    )
    cases = [
        dict(variant="abapa", position="abapa nonsense", depth=5, alpha=-10, beta=10),
        dict(variant="nope", position="abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -", depth=5, alpha=0, beta=1),
        dict(variant="awale", position="abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -", depth=5, alpha=0, beta=1),
        dict(variant="abapa", position="abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -", depth=0, alpha=0, beta=1),
        dict(variant="abapa", position="abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -", depth=5, alpha=5, beta=5),
        dict(variant="abapa", position="abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -", depth="5", alpha=0, beta=1),
        # A good task but for one argument: an empty earlier window, a window at the task's own
        # depth, a resume or fresh that is not a boolean (1 is not True).
        *(
            dict(start, **bad)
            for bad in (
                {"windows": [[3, 7, 7]]},
                {"windows": [[5, 0, 1]]},
                {"resume": 1},
                {"fresh": "yes"},
                {"eval": "best"},
            )
        ),
    ]
    for kwargs in cases:
        r = app.send_task("griot.search_subtree", kwargs=kwargs, queue="griot.interactive")
        with pytest.raises(Exception) as e:
            r.get(timeout=20)
        assert type(e.value).__name__ == "BadTaskArguments", e.value
        assert r.state == "FAILURE"
        assert not r.retries, kwargs  # failed at once: no retry
    # The caller's driver raises the typed error too.
    cs = ClusterSearch(app, capacity=2)
    with pytest.raises(BadTaskArguments):
        cs.search(
            "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -", 3, history=["awale 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"]
        )


def test_soft_time_limit_returns_best_so_far() -> None:
    s = make_stack()
    try:
        app = s.app()
        s.start_worker("soft", extra_env={"GRIOT_TASK_SOFT_LIMIT": "1", "GRIOT_TASK_HARD_LIMIT": "20"})
        s.wait_ready(app, 1)
        pos = griot.Variant("awale").start()
        t = time.time()
        r = app.send_task(
            "griot.search_subtree",
            kwargs=dict(variant="awale", position=str(pos), depth=40, alpha=-1_000_001, beta=1_000_001),
        ).get(timeout=30)
        assert time.time() - t < 15
        assert r["complete"] is False and r["reason"] == "stopped" and 1 <= r["depth"] < 40
    finally:
        s.stop_workers()
        s.broker.stop()
        s.cache.stop()


def test_a_position_task_searches_with_the_workers_threads() -> None:
    """``GRIOT_SEARCH_THREADS=2``: a position task searches with two threads sharing its table
    (Lazy SMP) and finds the single-threaded value at a fixed depth; a bad count stops the worker
    at its start with the variable's name."""
    s = make_stack()
    try:
        app = s.app()
        s.start_worker("threads", extra_env={"GRIOT_SEARCH_THREADS": "2"})
        s.wait_ready(app, 1)
        for pos in positions("awale", 4, seed=5):
            ref = griot.search(pos, depth=9)
            r = app.send_task(
                "griot.search_position", kwargs=dict(variant="awale", position=str(pos), depth=9, fresh=True)
            ).get(timeout=60)
            assert r["threads"] == 2 and r["depth"] == 9 and r["complete"]
            assert r["value"] == ref.score.value, (str(pos), r, ref)
        bad = s.start_worker("bad", extra_env={"GRIOT_SEARCH_THREADS": "0"})
        assert bad.wait(timeout=60) != 0
        assert "GRIOT_SEARCH_THREADS" in (s.logdir / "bad.log").read_text()
    finally:
        s.stop_workers()
        s.broker.stop()
        s.cache.stop()


def _kill_a_searching_process(stack: Stack, stop: threading.Event, killed: list[int]) -> None:
    """SIGKILLs the pool process holding an in-flight marker (a task in the middle of a search)."""
    client = redis.Redis.from_url(stack.cache.url)
    while not stop.is_set() and not killed:
        for key in client.scan_iter("griot:tt:*:busy"):
            holder = client.get(key)
            if holder is None:
                continue
            pid = int(holder.decode().split(":")[1])
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except ProcessLookupError:
                continue
            return
        time.sleep(0.05)


def test_sigkilled_worker_process_still_gives_the_right_answer() -> None:
    """A pool process SIGKILLed in the middle of a subtree: ``task_reject_on_worker_lost`` puts the
    message back, another process runs it (after the dead holder's in-flight marker expires), the
    search completes with the in-process value."""
    s = make_stack(inflight_ms=1500)
    try:
        app = s.app()
        s.start_worker("k1")
        s.start_worker("k2")
        s.wait_ready(app, 2)
        pos = positions("awale", 1, seed=7, max_turns=6)[0]
        depth = 12
        ref = griot.search(pos, depth=depth)
        stop, killed = threading.Event(), []
        killer = threading.Thread(target=_kill_a_searching_process, args=(s, stop, killed))
        killer.start()
        cs = ClusterSearch(app, capacity=2, split=1, direct_depth=8, min_task_depth=4)
        try:
            got = cs.search(pos, depth, time_limit=90)
        finally:
            stop.set()
            killer.join(5)
        assert killed, "no task was caught in the middle of a search"
        assert got.depth == depth and got.value == ref.score.value
    finally:
        s.stop_workers()
        s.broker.stop()
        s.cache.stop()


def _main_process_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError):
        return None


def _kill_a_searching_worker(stack: Stack, stop: threading.Event, killed: list[int]) -> None:
    """SIGKILLs a whole worker (its Celery main process and its pool: the process group, as when
    a machine is lost) whose pool process is in the middle of a subtree the search needs. (A pool
    process outlives its SIGKILLed parent long enough to finish and store its task.) A needed
    subtree: the only one running (the eldest brother its siblings wait for), not cancelled (one
    abandoned after a cutoff, or after the last depth, is not sent again), not finished (its
    result not stored: a finished task's alive key outlives it by up to 3 s), at least 10 plies
    deep, with its alive key written, and still holding its subtree. Subtrees last from a few
    milliseconds to a second, so a candidate seen on one poll may end before the next: the worker
    is first frozen (SIGSTOP of its group), then checked, then killed, or thawed (SIGCONT) if its
    task ended in between. A frozen task cannot end, so the kill never lands between two tasks (a
    kill there can catch a message the worker took off the queue before it wrote its alive key,
    which only the visibility timeout recovers: an hour here)."""
    cache = redis.Redis.from_url(stack.cache.url)
    broker = redis.Redis.from_url(stack.broker.url)
    mains = {p.pid for p in stack.workers}
    while not stop.is_set() and not killed:
        marks = ((k, cache.get(k)) for k in cache.scan_iter("griot:tt:*:busy"))
        held = [(k, h) for k, h in marks if h is not None]
        if len(held) == 1:
            busy_key, holder = held[0]
            _, pid, task_id, depth = holder.decode().rsplit(":", 3)
            parent = _main_process_of(int(pid))
            if int(depth) >= 10 and parent is not None:
                assert parent in mains, (parent, mains)
                os.killpg(parent, signal.SIGSTOP)
                needed = (
                    broker.exists(f"griot:alive:{task_id}")
                    and not broker.exists(f"griot:cancel:{task_id}")
                    and not broker.exists(f"celery-task-meta-{task_id}")  # not finished already
                    and cache.get(busy_key) == holder  # still searching that subtree
                )
                if needed:
                    os.killpg(parent, signal.SIGKILL)
                    killed.append(parent)
                    return
                os.killpg(parent, signal.SIGCONT)
        time.sleep(0.02)


@pytest.mark.parametrize("affinity", [False, True], ids=["shared-queue", "worker-affinity"])
def test_sigkilled_worker_main_process_still_gives_the_right_answer(affinity: bool) -> None:
    """The whole worker dies (SIGKILL of its process group: the Celery parent and its pool) in the middle
    of a subtree. The broker would redeliver the unacknowledged message only after the
    visibility timeout (an hour here), so the search can finish before its 120 s deadline only
    through the tasks' alive keys:
    the caller sees the running task's key expire without a result and sends the task again
    (with affinity, also every task waiting on the dead worker's own queue, and no more work
    goes there). The value equals the in-process search's."""
    s = make_stack(inflight_ms=1500, visibility_timeout=3600)
    try:
        app = s.app()
        s.start_worker("m1")
        s.start_worker("m2")
        s.wait_ready(app, 2)
        pos = griot.Variant("abapa").start()
        depth = 20  # about 3 s in all: some 25 single-subtree moments at 10 plies or more
        ref = griot.search(pos, depth=depth)
        workers = None
        if affinity:
            from griot.tasks.distributed import cluster_workers

            workers = cluster_workers(app, "griot.interactive", timeout=5.0)  # a loaded box answers late
            assert len(workers) == 2
        stop, killed = threading.Event(), []
        killer = threading.Thread(target=_kill_a_searching_worker, args=(s, stop, killed))
        killer.start()
        # Young brothers wait, without speculation: the killer's "needed subtree" is then the one
        # task running, the eldest its brothers wait for (speculation would fill the other slot).
        cs = ClusterSearch(
            app,
            capacity=2,
            split=1,
            direct_depth=8,
            min_task_depth=4,
            workers=workers,
            speculate=False,
        )
        try:
            got = cs.search(pos, depth, time_limit=120)
        finally:
            stop.set()
            killer.join(5)
        assert killed, "no worker was caught in the middle of a subtree"
        assert all(p.poll() is not None for p in s.workers if p.pid in killed)
        assert got.depth == depth and got.value == ref.score.value
        assert cs.stats.redispatched >= 1
    finally:
        s.stop_workers()
        s.broker.stop()
        s.cache.stop()


def test_worker_dead_between_tasks_does_not_hold_its_queued_subtrees() -> None:
    """With worker affinity, the subtrees of the next depth go to the worker that searched them
    at the previous one, through that worker's own queue. Here that worker (the one that ran the
    first depths) is SIGKILLed between tasks, before the next depth is sent: its queued tasks
    never start, so no alive key ever expires. The caller pings a worker whose tasks do not start
    within a few seconds and, when it does not answer, sends them to the other worker; the
    search completes before its deadline with the in-process value."""
    from griot.tasks.distributed import cluster_workers

    s = make_stack(visibility_timeout=3600)
    try:
        app = s.app()
        s.start_worker("i1")
        s.start_worker("i2")
        s.wait_ready(app, 2)
        pos = positions("abapa", 1, seed=5, max_turns=6)[0]
        depth, direct = 12, 8
        ref = griot.search(pos, depth=depth)
        broker = redis.Redis.from_url(s.broker.url)
        mains = {p.pid for p in s.workers}
        killed: list[int] = []

        def kill_the_first_depths_worker(r: object) -> None:
            if killed or getattr(r, "depth", 0) != direct:
                return
            # Only the first depths' task has run: its alive key names its pool process.
            keys = list(broker.scan_iter("griot:alive:*"))
            assert len(keys) == 1, keys
            pid = int(broker.get(keys[0]).decode().rsplit(":", 1)[1])
            parent = _main_process_of(pid)
            assert parent in mains, (parent, mains)
            os.killpg(parent, signal.SIGKILL)
            killed.append(parent)
            for p in s.workers:
                if p.pid == parent:
                    p.wait(10)

        cs = ClusterSearch(
            app,
            capacity=2,
            split=1,
            direct_depth=direct,
            min_task_depth=4,
            workers=cluster_workers(app, "griot.interactive", timeout=5.0),
        )
        got = cs.search(pos, depth, time_limit=120, on_depth=kill_the_first_depths_worker)
        assert killed
        assert got.depth == depth and got.value == ref.score.value
        assert cs.stats.redispatched >= 1
    finally:
        s.stop_workers()
        s.broker.stop()
        s.cache.stop()


def test_worker_killed_in_the_first_depths_task_is_replaced() -> None:
    """The first depths run as one task (``direct_depth``). Its whole worker is SIGKILLed while
    it searches: the caller sees that task's alive key expire without a result and sends it
    again, and the search ends with the in-process value long before the broker's visibility
    timeout (an hour here) would have redelivered it."""
    s = make_stack(visibility_timeout=3600)
    try:
        app = s.app()
        s.start_worker("d1")
        s.start_worker("d2")
        s.wait_ready(app, 2)
        pos = griot.Variant("abapa").start()
        depth = 17  # all root moves' exact scores: a second or more
        ref = griot.search(pos, depth=depth)
        broker = redis.Redis.from_url(s.broker.url)
        mains = {p.pid for p in s.workers}
        stop, killed = threading.Event(), []

        def kill_it() -> None:
            while not stop.is_set() and not killed:
                for key in broker.scan_iter("griot:alive:*"):
                    task_id = key.decode().rsplit(":", 1)[1]
                    holder = broker.get(key)
                    if holder is None or broker.exists(f"celery-task-meta-{task_id}"):
                        continue
                    if holder.decode().endswith(":received"):
                        continue  # its worker took it off the queue; no pool process runs it yet
                    parent = _main_process_of(int(holder.decode().rsplit(":", 1)[1]))
                    assert parent in mains, (parent, mains)
                    os.killpg(parent, signal.SIGKILL)
                    killed.append(parent)
                    return
                time.sleep(0.01)

        killer = threading.Thread(target=kill_it)
        killer.start()
        cs = ClusterSearch(app, capacity=2, direct_depth=depth)
        try:
            got = cs.search(pos, depth, time_limit=120)
        finally:
            stop.set()
            killer.join(5)
        assert killed, "the first depths' task was not caught running"
        assert got.depth == depth and got.value == ref.score.value
        assert got.tasks == 2 and cs.stats.redispatched == 1
    finally:
        s.stop_workers()
        s.broker.stop()
        s.cache.stop()


def test_redis_restart_mid_search_gives_the_right_answer_or_a_clear_error() -> None:
    """The broker's Redis (queues and results, no persistence) restarts during a search: the caller
    sees the outage, waits for Redis, dispatches what was lost again and returns the in-process
    value; were Redis to stay down past the grace period it would raise ClusterUnavailable."""
    from griot.tasks.errors import ClusterUnavailable

    s = make_stack()
    try:
        app = s.app()
        s.start_worker("r1")
        s.start_worker("r2")
        s.wait_ready(app, 2)
        pos = positions("abapa", 1, seed=3, max_turns=8)[0]
        depth = 12
        ref = griot.search(pos, depth=depth)
        restarted = threading.Event()

        def restart_once(r: object) -> None:
            if r.depth >= 9 and not restarted.is_set():  # type: ignore[attr-defined]
                restarted.set()
                threading.Thread(target=s.broker.restart, kwargs={"down_for": 1.0}).start()

        cs = ClusterSearch(app, capacity=2, split=1, direct_depth=8, min_task_depth=4, outage_grace=20)
        try:
            got = cs.search(pos, depth, time_limit=90, on_depth=restart_once)
        except ClusterUnavailable:
            pytest.fail("Redis came back within the grace period")
        assert restarted.is_set()
        assert got.depth == depth and got.value == ref.score.value
        # And a Redis that stays down is a clear error, soon.
        s.broker.stop()
        cs2 = ClusterSearch(app, capacity=2, split=1, direct_depth=2, min_task_depth=2, outage_grace=2)
        t = time.time()
        with pytest.raises(ClusterUnavailable):
            cs2.search(pos, 6, time_limit=30)
        assert time.time() - t < 30
    finally:
        s.stop_workers()
        s.broker.stop()
        s.cache.stop()


def test_a_task_the_restarted_broker_lost_is_sent_again() -> None:
    """A task waits in the broker's queue (no worker yet) when the broker's Redis starts again
    without it (as after a kill that its append-only file had not yet kept the task through), so
    quickly that the caller's result client, retrying as the gateway's does, never sees an error:
    the caller sees the broker's new ``run_id``, sends the task again, and once a worker starts
    it gets the result, the in-process value."""
    import redis.asyncio as aioredis
    from griot.priority import Priority
    from griot.tasks.client import Task, TaskClient, backend_url
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff

    s = make_stack()
    try:
        app = s.app()
        pos = griot.Variant("abapa").start().play("c")

        async def run() -> tuple[dict[str, Any], int, int]:
            backend = aioredis.Redis.from_url(
                backend_url(app),
                socket_connect_timeout=5,
                retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 3),
            )
            client = TaskClient(app, backend, owns_backend=True, safety_poll=0.5)
            client.start()
            try:
                task = Task(
                    "griot.search_position",
                    dict(variant="abapa", position=str(pos), depth=6),
                    Priority.INTERACTIVE.queue,
                )
                client.assign(task)
                await client.send([task])
                end = time.monotonic() + 10
                while client.broker_run_id is None:  # the first run_id read
                    assert time.monotonic() < end, "the broker's run_id was never read"
                    await asyncio.sleep(0.05)
                await asyncio.to_thread(s.broker.restart)  # without its data: the task is gone
                await asyncio.to_thread(s.start_worker, "lost1")
                outcome = await asyncio.wait_for(task.future, 60)
                return outcome.result(), client.broker_restarts, client.redispatched
            finally:
                await client.close()

        result, restarts, redispatched = asyncio.run(run())
        assert restarts == 1 and redispatched >= 1
        assert result["value"] == griot.search(pos, depth=6).score.value
    finally:
        s.stop_workers()
        s.broker.stop()
        s.cache.stop()


def test_lost_result_messages_are_recovered_by_the_safety_poll(
    two_workers: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every other result message never reaches the caller (as when its subscriber connection
    drops between two messages): the safety poll reads those results and the search returns the
    in-process value. Without the poll the search would wait for ever on the first lost one."""
    from griot.tasks.client import RESULT_PREFIX, TaskClient

    dropped: list[str] = []
    seen: list[str] = []
    original = TaskClient._message

    def lossy(self: TaskClient, channel: bytes, data: bytes) -> None:
        task_id = channel.decode()[len(RESULT_PREFIX) :]
        if channel.startswith(RESULT_PREFIX.encode()) and task_id in self.running:
            seen.append(task_id)
            if len(dropped) < 1000 and len(seen) % 2 == 0:
                dropped.append(task_id)
                return
        original(self, channel, data)

    monkeypatch.setattr(TaskClient, "_message", lossy)
    app = two_workers.app()
    two_workers.cache.flushdb()
    pos = positions("abapa", 1, seed=11, max_turns=10)[0]
    depth = 9
    ref = griot.search(pos, depth=depth)
    cs = ClusterSearch(app, capacity=2, split=1, direct_depth=5, min_task_depth=2)
    got = cs.search(pos, depth, time_limit=60)
    assert got.depth == depth and got.value == ref.score.value
    # Each lost message's result was read by the poll, unless its task was revoked first (a
    # speculation that became useless).
    assert dropped and cs.stats.polled + cs.stats.revoked >= len(dropped)
    assert cs.stats.notified > 0
    # Every task sent was read, sent again, or revoked unread (a speculation that became useless).
    assert cs.stats.notified + cs.stats.polled >= cs.stats.sent - cs.stats.redispatched - cs.stats.revoked


def test_result_subscription_cut_mid_search_reconnects(two_workers: Stack) -> None:
    """Redis drops the caller's result subscription (``CLIENT KILL``) several times during
    a search: the subscriber connects again, subscribes every running task's channel again, reads
    what it may have missed, and the search returns the in-process value. The cuts come from a
    thread (at any moment, tasks running or not) and after every depth but the last (so at
    least one comes, however fast the search: a depth's tasks then wait for the reconnection or
    the safety poll)."""
    app = two_workers.app()
    two_workers.cache.flushdb()
    pos = positions("abapa", 1, seed=12, max_turns=6)[0]
    depth = 11
    ref = griot.search(pos, depth=depth)
    killer = redis.Redis.from_url(two_workers.broker.url)
    kills: list[int] = []
    stop = threading.Event()

    def cut_now() -> None:
        # Only the caller's subscriber (the workers' own pub/sub connections carry their
        # remote control: cutting those is another test's business).
        for c in killer.client_list(_type="pubsub"):
            if c.get("name") == "griot-results":
                kills.append(killer.client_kill_filter(_id=c["id"]))

    def cut() -> None:
        while not stop.is_set() and len(kills) < 6:
            cut_now()
            stop.wait(0.15)

    t = threading.Thread(target=cut, daemon=True)
    cs = ClusterSearch(app, capacity=2, split=1, direct_depth=7, min_task_depth=4)
    t.start()
    try:
        got = cs.search(pos, depth, time_limit=90, on_depth=lambda r: cut_now() if r.depth < depth else None)
    finally:
        stop.set()
        t.join(timeout=5)
    assert got.depth == depth and got.value == ref.score.value
    assert sum(kills) >= 1, "no subscription was cut"
    assert cs.stats.resubscribed >= 1


def test_first_task_sized_by_time_budget(two_workers: Stack) -> None:
    """``direct_seconds``: the first task goes on past ``direct_depth`` while its next depth is
    foreseen to fit in the budget; the distributed depths start where it stopped and the value is
    the in-process one. A budget that holds the whole search makes it one task."""
    app = two_workers.app()
    pos = griot.Variant("abapa").start()
    depth = 16
    ref = griot.search(pos, depth=depth)
    two_workers.cache.flushdb()
    seen: list[int] = []
    # Fresh tables: a kept table holding an earlier test's deeper search of this position would
    # answer every depth at once and carry the first task to the end.
    cs = ClusterSearch(
        app, capacity=2, split=1, direct_depth=4, min_task_depth=2, direct_seconds=0.05, fresh_tables=True
    )
    got = cs.search(pos, depth, time_limit=120, on_depth=lambda r: seen.append(r.depth))
    assert got.depth == depth and got.value == ref.score.value
    assert 4 < seen[0] < depth, seen  # the first task went past direct_depth, not to the end
    assert seen == list(range(seen[0], depth + 1))
    assert got.tasks > 1
    # Another position, which the first search's tree holds: fresh tables, or the workers' kept
    # tables' deeper results of it would answer the shallower search ("deeper wins").
    other = positions("abapa", 1, seed=21, max_turns=12)[0]
    two_workers.cache.flushdb()
    whole = ClusterSearch(
        app, capacity=2, split=1, direct_depth=4, min_task_depth=2, direct_seconds=600, fresh_tables=True
    )
    got = whole.search(other, 10, time_limit=120)
    assert got.depth == 10 and got.value == griot.search(other, depth=10).score.value
    assert got.tasks == 1


@pytest.mark.parametrize(
    ("overlap", "after", "speculate", "guess"),
    [
        (False, None, "pv", "previous"),
        (False, None, "pv", "low"),
        (True, None, False, "previous"),
        (True, 0, "pv", "previous"),
    ],
)
def test_speculation_and_overlapped_iterations_keep_the_in_process_value(
    two_workers: Stack, overlap: bool, after: int | None, speculate: bool | str, guess: str
) -> None:
    """``speculate="pv"``: the principal variation's younger brothers start while their eldest
    runs: every reported depth has the in-process search's value at that depth. ``overlap``:
    depth d + 1 runs beside depth d (into slots depth d leaves free; at once, or once depth d's
    root has its eldest's result): the depths come in order, the next depth's tasks did start
    before the current one ended, and the last depth has the in-process value (an earlier depth
    may have taken a deeper value from the next depth's table entries). Fresh tables and an empty
    cache: deeper results of earlier searches would answer these ones."""
    app = two_workers.app()
    client = redis.Redis.from_url(two_workers.cache.url)
    overlapped = speculated = 0
    checked = 0
    windows: set[tuple[float, float]] = set()  # (wide, again) of the traced tasks
    for i, variant in enumerate(GAMES):
        seed = 1000 + 100 * (2 * overlap + (after is not None)) + 50 * (guess == "low") + i
        fresh = [p for p in positions(variant, 6, seed=seed) if p.turns > 0][:3]
        for k, pos in enumerate(fresh):
            client.flushdb()  # deeper entries of earlier searches must not answer this one
            workers = cluster_workers(app, "griot.interactive") if k % 2 else None
            cs = ClusterSearch(
                app,
                capacity=2,
                split=1,
                direct_depth=3,
                min_task_depth=2,
                workers=workers,
                overlap=overlap,
                overlap_after=after,
                speculate=speculate,
                guess=guess,
                fresh_tables=True,
            )
            seen: list[tuple[int, int]] = []
            got = cs.search(pos, 9, time_limit=60, on_depth=lambda r, s=seen: s.append((r.depth, r.value)))
            assert got.depth == 9
            assert [d for d, _ in seen] == list(range(3, 10))
            for d, value in seen if not overlap else seen[-1:]:
                assert value == griot.search(pos, depth=d).score.value, (str(pos), d, seen)
                checked += 1
            done = cs.stats.depth_done
            overlapped += any(
                t["depth"] - 1 in done and t["sent"] < done[int(t["depth"]) - 1] for t in cs.stats.trace
            )
            speculated += cs.stats.speculative
            windows |= {(t["wide"], t["again"]) for t in cs.stats.trace}
    # The principal variation's leaves get full windows, the younger brothers null ones.
    assert {w for w, _ in windows} == {0.0, 1.0} and {a for _, a in windows} <= {0.0, 1.0}
    assert checked == (1 if overlap else 7) * 3 * len(GAMES)
    assert (speculated > 0) == (speculate == "pv")
    if overlap:
        assert overlapped >= len(GAMES)  # most searches overlap; at least one per game
    else:
        assert overlapped == 0


def test_search_queue_sends_an_earlier_iterations_job_first(two_workers: Stack) -> None:
    """Both workers busy; a job of iteration 6 is queued, then one of iteration 5: when a slot frees
    the iteration-5 job goes first (a later iteration only fills slots the earlier one leaves)."""
    from griot.tasks.client import ClientRunner
    from griot.tasks.distributed import SubtreeQueue, TaskStats

    app = two_workers.app()
    two_workers.cache.flushdb()
    pos = griot.Variant("abapa").start()
    children = [str(c) for _, c in pos.successors()]
    workers = cluster_workers(app, "griot.interactive")

    def job(text: str, depth: int) -> dict[str, object]:
        return dict(
            variant="abapa", position=text, depth=depth, alpha=-1_000_001, beta=1_000_001, use_cache=False
        )

    async def run() -> list[dict[str, object]]:
        runner = ClientRunner(app, capacity=2)
        await runner.start()
        sched = SubtreeQueue(runner, "griot.interactive", 2, None, TaskStats(), workers=workers)
        sched.start()
        try:
            busy = [asyncio.create_task(sched.run(job(c, 16), (5, 0, 1))) for c in children[:2]]
            await asyncio.sleep(0.05)
            later = asyncio.create_task(sched.run(job(children[2], 6), (6, 0, 1)))
            await asyncio.sleep(0.05)
            earlier = asyncio.create_task(sched.run(job(children[3], 6), (5, 0, 1)))
            return list(await asyncio.gather(*busy, later, earlier))
        finally:
            await sched.close()
            await runner.close()

    *busy, later, earlier = asyncio.run(run())
    assert all(b["complete"] for b in (*busy, later, earlier))
    first_free = min(float(b["finished"]) for b in busy)  # type: ignore[arg-type]
    assert float(later["sent"]) >= first_free  # type: ignore[arg-type]  # it waited for a free slot
    assert float(earlier["sent"]) < float(later["sent"])  # type: ignore[arg-type]


def test_workers_import_no_grpc() -> None:
    """Nothing gRPC exists before the pool forks: the worker modules do not import it."""
    import subprocess

    code = "import sys, griot.workers.app, griot.workers.tasks; print('grpc' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_worker_metrics_sum_over_pool_processes() -> None:
    """prometheus_client multiprocess mode: the main process serves what pool processes counted."""
    import urllib.request

    from workers_stack import free_port

    s = make_stack()
    port = free_port()
    try:
        app = s.app()
        s.start_worker("m1", concurrency=2, extra_env={"GRIOT_WORKER_METRICS_PORT": str(port)})
        s.wait_ready(app, 1)
        pos = griot.Variant("abapa").start()
        results = [
            app.send_task(
                "griot.search_subtree",
                kwargs=dict(variant="abapa", position=str(pos), depth=5, alpha=-1_000_001, beta=1_000_001),
            )
            for _ in range(4)
        ]
        # Deep enough for the shared cache (GRIOT_CACHE_MIN_DEPTH 6): its events are counted too.
        results.append(
            app.send_task("griot.search_position", kwargs=dict(variant="abapa", position=str(pos), depth=8))
        )
        for r in results:
            assert r.get(timeout=30)["complete"]
        text = ""
        for _ in range(50):
            try:
                text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2).read().decode()
                break
            except OSError:
                time.sleep(0.1)
        line = next(
            ln
            for ln in text.splitlines()
            if ln.startswith("griot_worker_tasks_total{") and 'task="search_subtree"' in ln
        )
        assert float(line.rsplit(" ", 1)[1]) == 4.0
        assert "griot_worker_nodes_total" in text
        # The dashboard's cache hit rate reads these (deploy/grafana).
        probes = next(
            ln for ln in text.splitlines() if ln.startswith('griot_worker_cache_total{event="probes"}')
        )
        assert float(probes.rsplit(" ", 1)[1]) > 0
    finally:
        s.stop_workers()
        s.broker.stop()
        s.cache.stop()


def test_speculative_guess_is_the_previous_same_parity_value_or_the_lower_of_two() -> None:
    """``_Node.estimate``: the value at depth d - 2 (same parity), else d - 1, else d - 3; with
    ``low`` the lower of d - 1 and d - 2 when both are known. A bad ``guess`` is refused."""
    from griot.tasks.distributed.tree import _Node

    node = _Node(griot.Variant("abapa").start())
    assert node.estimate(10) is None
    node.estimates[9] = 40
    assert node.estimate(10) == 40 and node.estimate(10, low=True) == 40
    node.estimates[8] = 60
    assert node.estimate(10) == 60
    assert node.estimate(10, low=True) == 40
    node.estimates[9] = 80
    assert node.estimate(10, low=True) == 60
    with pytest.raises(ValueError, match="guess"):
        ClusterSearch(None, guess="high")  # type: ignore[arg-type]
