"""The gateway's dispatcher (tasks through Celery's send_task, result notifications) and cache
scripts, in process against the real Redis servers and Celery workers of the gateway tests' stack
(no gateway process)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import griot
import pytest
import redis
from gateway_stack import Stack
from griot import redis_keys
from griot.redis_keys import progress_key
from griot.services.gateway.batch import Batcher, connect
from griot.services.gateway.cache import EvalCache, EvalResult, entry_key, flight_key
from griot.services.gateway.config import GatewayConfig
from griot.services.gateway.dispatch import INTERACTIVE, Dispatcher, Search
from griot.services.gateway.metrics import GatewayMetrics
from griot.tasks import client as task_client
from griot.tasks.client import RESULT_PREFIX
from kombu import Connection
from prometheus_client import CollectorRegistry
from workers_stack import RedisServer, free_port

NOBODY = "griot.test-nobody"  # a queue no worker consumes


async def _bounded(what: Callable[[], Awaitable[Any]], timeout: float = 30.0) -> Any:
    return await asyncio.wait_for(what(), timeout)


def _dispatcher(stack: Stack, app: Any, queue: str | None = None) -> tuple[Dispatcher, list[Any]]:
    config = GatewayConfig(
        broker_url=stack.broker_url,
        cache_url=stack.cache.url,
        window=2,
        **({"interactive_queue": queue} if queue else {}),
    )
    results = connect(stack.result_url)
    d = Dispatcher(app, config, GatewayMetrics(CollectorRegistry()), results)
    return d, [results]


def _take(broker_url: str, queue: str, n: int, timeout: float = 30.0) -> list[dict[str, Any]]:
    """The headers of ``n`` messages taken from ``queue`` (kombu's consumer API, any broker)."""
    with Connection(broker_url) as conn:
        q = conn.SimpleQueue(queue)
        try:
            out = []
            for _ in range(n):
                m = q.get(timeout=timeout)
                out.append(dict(m.headers))
                m.ack()
            return out
        finally:
            q.close()


def test_result_arrives_by_notification_from_a_real_worker(
    broker_stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the safety poll out of the way, a worker's result reaches the gateway by its message
    alone, and the read result key is deleted (on each broker)."""
    stack = broker_stack
    monkeypatch.setattr(task_client, "SAFETY_POLL", 3600.0)
    app = stack.app()
    pos = griot.Variant("awale").start().play("c").play("D")
    r = redis.Redis.from_url(stack.result_url)

    async def run() -> tuple[dict[str, Any], str]:
        d, clients = _dispatcher(stack, app)
        d.start()
        try:
            s = d.submit(
                "griot.search_position",
                {"variant": "awale", "position": str(pos), "depth": 7, "multipv": 1},
                INTERACTIVE,
                "me",
                time.time() + 60,
            )
            result = await _bounded(lambda: d.wait(s))
            assert s.task_id is not None
            for _ in range(300):  # read keys go in the next batch of deletes
                if not r.exists(RESULT_PREFIX + s.task_id):
                    break
                await asyncio.sleep(0.01)
            return result, s.task_id
        finally:
            await d.close()
            for c in clients:
                await c.aclose()

    result, task_id = asyncio.run(run())
    app.close()
    expected = griot.search(pos, depth=7)
    assert result["depth"] == 7 and result["value"] == expected.score.value
    assert not r.exists(RESULT_PREFIX + task_id)


def test_progress_messages_and_the_safety_poll(stack: Stack) -> None:
    """Progress messages reach ``on_progress`` deepest-first-wins (an older depth is dropped); a
    result whose message was lost (only its key written) is found by the safety poll; a result
    announced only by its message is taken at once."""
    app = stack.app()
    r = redis.Redis.from_url(stack.broker.url)
    r.delete(NOBODY)

    def meta(task_id: str, depth: int) -> str:
        return json.dumps(
            {"status": "SUCCESS", "task_id": task_id, "result": {"depth": depth, "value": 1, "best": "a"}}
        )

    async def run() -> tuple[list[int], dict[str, Any], dict[str, Any]]:
        d, clients = _dispatcher(stack, app, NOBODY)
        d.start()
        seen: list[int] = []
        try:
            for _ in range(500):  # subscribed before anything is sent
                if d.tasks.listening:
                    break
                await asyncio.sleep(0.01)
            a = d.submit("griot.search_position", {"variant": "abapa"}, INTERACTIVE, "me", None)
            a.on_progress = lambda entry: seen.append(entry["depth"])
            b = d.submit("griot.search_position", {"variant": "abapa"}, INTERACTIVE, "you", None)
            sent = await asyncio.to_thread(_take, stack.broker.url, NOBODY, 2)
            assert {h["task"] for h in sent} == {"griot.search_position"}
            assert {h["id"] for h in sent} == {a.task_id, b.task_id}
            assert a.task_id is not None and b.task_id is not None
            channel = progress_key(a.task_id)
            for depth in (3, 2, 5):
                r.publish(channel, json.dumps({"depth": depth, "value": 0}))
            r.set(RESULT_PREFIX + a.task_id, meta(a.task_id, 9))  # no message
            r.publish(RESULT_PREFIX + b.task_id, meta(b.task_id, 8))  # no key
            ra = await _bounded(lambda: d.wait(a))
            rb = await _bounded(lambda: d.wait(b))
            return seen, ra, rb
        finally:
            await d.close()
            for c in clients:
                await c.aclose()
            r.delete(NOBODY)

    seen, ra, rb = asyncio.run(run())
    app.close()
    assert seen == [3, 5]
    assert ra["depth"] == 9 and rb["depth"] == 8


def test_read_result_keys_are_deleted(stack: Stack) -> None:
    """The key of a result read by the safety poll is deleted by the batch of deletes."""
    app = stack.app()
    r = redis.Redis.from_url(stack.broker.url)

    async def run() -> bool:
        d, clients = _dispatcher(stack, app, NOBODY)
        d.start()
        try:
            a = d.submit("griot.search_position", {"variant": "abapa"}, INTERACTIVE, "me", None)
            for _ in range(500):
                if a.task_id is not None and d.metrics.tasks.labels("sent")._value.get() >= 1:
                    break
                await asyncio.sleep(0.01)
            assert a.task_id is not None
            key = RESULT_PREFIX + a.task_id
            meta = {"status": "SUCCESS", "task_id": a.task_id, "result": {"depth": 3, "value": 0}}
            r.set(key, json.dumps(meta))
            d.tasks._poll_now.set()  # the safety poll reads it
            got = await _bounded(lambda: d.wait(a))
            assert got == {"depth": 3, "value": 0}
            for _ in range(500):
                if not r.exists(key):
                    break
                await asyncio.sleep(0.01)
            return bool(r.exists(key))
        finally:
            await d.close()
            for c in clients:
                await c.aclose()
            await asyncio.to_thread(_take, stack.broker.url, NOBODY, 1)

    left = asyncio.run(run())
    app.close()
    assert not left


def test_lookup_claims_once_and_store_releases(stack: Stack) -> None:
    """One script reads the entry and claims the in-flight marker; another replica learns whose
    search runs; storing the result releases the holder's marker (releasing is the holder's
    only)."""
    pos = griot.Variant("oware").start().play("a")
    r = redis.Redis.from_url(stack.cache.url)
    r.delete(flight_key(pos))

    async def run() -> list[Any]:
        redis_client = connect(stack.cache.url)
        client = Batcher(redis_client)
        cache = EvalCache(client, 60)
        out: list[Any] = []
        try:
            await client.execute("DEL", entry_key(pos))
            out.append(await cache.lookup(pos, 10, False, "one", 10_000))
            out.append(await cache.lookup(pos, 10, False, "two", 10_000))
            out.append(await cache.lookup(pos, 10, False, "two", 10_000, claim=False))
            await cache.release(pos, "two")  # not the holder: nothing happens
            out.append(r.exists(flight_key(pos)))
            await cache.put(pos, EvalResult(depth=10, value=5, best="b"), release="one")
            out.append(r.exists(flight_key(pos)))
            out.append(await cache.lookup(pos, 8, False, "two", 10_000))
            out.append(await cache.lookup(pos, 8, True, "two", 10_000))
            out.append(await cache.lookup(pos, 12, True, "two", 10_000))
            await cache.release(pos, "two")
            out.append(r.exists(flight_key(pos)))
        finally:
            await client.aclose()
            await redis_client.aclose()
        return out

    first, second, peek, held, after_store, hit, behind, deeper, released = asyncio.run(run())
    assert first.entry is None and first.other is None and first.claimed
    assert second.entry is None and second.other == (10, False) and not second.claimed
    assert peek.other == (10, False) and not peek.claimed
    assert held == 1 and after_store == 0
    assert hit.entry is not None and hit.entry.depth == 10 and hit.other is None and not hit.claimed
    # Every move asked behind a deeper best-move entry: the caller will search to depth 10 and
    # claims for that itself.
    assert behind.entry is not None and behind.entry.depth == 10 and not behind.claimed
    assert deeper.entry is not None and deeper.claimed and deeper.other is None
    assert released == 0


def test_result_subscription_survives_a_cut_and_a_restart(stack: Stack) -> None:
    """The dispatcher's result subscription (its own result backend here, so that only its
    connection is cut): after ``CLIENT KILL`` of the subscriber and after a restart of the
    server, it subscribes again, and a result announced only by its message (no key) arrives."""
    app = stack.app()
    backend = RedisServer(free_port())
    backend.start()
    admin = redis.Redis.from_url(backend.url)

    def meta(task_id: str, depth: int) -> str:
        return json.dumps({"status": "SUCCESS", "task_id": task_id, "result": {"depth": depth, "value": 0}})

    async def listening(d: Dispatcher) -> None:
        for _ in range(3000):
            if admin.pubsub_numpat() == 2:  # 0 right after a cut or a restart
                return
            await asyncio.sleep(0.01)
        raise AssertionError("not subscribed again")

    async def run() -> list[int]:
        config = GatewayConfig(
            broker_url=stack.broker.url, cache_url=stack.cache.url, window=4, interactive_queue=NOBODY
        )
        client = connect(backend.url)
        d = Dispatcher(app, config, GatewayMetrics(CollectorRegistry()), client)
        d.start()
        depths = []
        try:
            for depth, cut in ((3, "kill"), (4, "restart")):
                await listening(d)
                if cut == "kill":
                    killed = admin.client_kill_filter(_type="pubsub")
                    assert killed == 1
                else:
                    await asyncio.to_thread(backend.restart)
                await listening(d)
                s = d.submit("griot.search_position", {"variant": "abapa"}, INTERACTIVE, "me", None)
                for _ in range(500):
                    if s.task_id is not None:
                        break
                    await asyncio.sleep(0.01)
                assert s.task_id is not None
                admin.publish(RESULT_PREFIX + s.task_id, meta(s.task_id, depth))  # no key
                depths.append((await _bounded(lambda s=s: d.wait(s)))["depth"])
            return depths
        finally:
            await d.close()
            await client.aclose()
            await asyncio.to_thread(_take, stack.broker.url, NOBODY, 2)

    try:
        assert asyncio.run(run()) == [3, 4]
    finally:
        app.close()
        backend.stop()


def _sent_again(
    stack: Stack, lose: Callable[[Search, redis.Redis], Awaitable[None]], wait: float = 30.0
) -> None:
    """A task taken from its queue, then lost as ``lose(search, result_redis)`` makes it, is sent
    again under a new id with the same arguments (taken within ``wait`` seconds), and the new
    task's result ends the search."""
    app = stack.app()
    r = redis.Redis.from_url(stack.result_url)

    async def run() -> tuple[list[dict[str, Any]], dict[str, Any], int]:
        d, clients = _dispatcher(stack, app, NOBODY)
        d.start()
        try:
            s = d.submit("griot.search_position", {"variant": "abapa", "depth": 4}, INTERACTIVE, "me", None)
            first = await asyncio.to_thread(_take, stack.broker_url, NOBODY, 1)
            assert s.task_id == first[0]["id"]
            await lose(s, r)
            second = await asyncio.to_thread(_take, stack.broker_url, NOBODY, 1, wait)
            assert s.sent is not None and second[0]["id"] == s.sent.task_id != first[0]["id"]
            meta = {"status": "SUCCESS", "task_id": s.sent.task_id, "result": {"depth": 4, "value": 1}}
            r.publish(RESULT_PREFIX + s.sent.task_id, json.dumps(meta))
            got = await _bounded(lambda: d.wait(s))
            return first + second, got, d.tasks.redispatched
        finally:
            await d.close()
            for c in clients:
                await c.aclose()

    sent, got, redispatched = asyncio.run(run())
    app.close()
    assert sent[0]["kwargsrepr"] == sent[1]["kwargsrepr"]
    assert got == {"depth": 4, "value": 1} and redispatched == 1


def test_a_task_whose_worker_died_is_sent_again(broker_stack: Stack) -> None:
    """A task whose alive key was seen and then expired without a result (its worker died under
    it: the key is what a running task renews) is sent again under a new id with the same
    arguments; the new task's result ends the search (on each broker)."""

    async def worker_dies(s: Search, r: redis.Redis) -> None:
        assert s.task_id is not None
        r.set(redis_keys.ALIVE_PREFIX + s.task_id, b"1", px=1500)  # taken by a worker...
        for _ in range(500):
            if s.sent is not None and s.sent.alive_seen:
                break
            await asyncio.sleep(0.01)
        assert s.sent is not None and s.sent.alive_seen
        # ...that dies: the key expires without a result, and the task goes out again.

    _sent_again(broker_stack, worker_dies)


def test_a_task_taken_from_its_queue_and_never_received_is_sent_again(broker_stack: Stack) -> None:
    """A task leaves its queue and no worker ever receives it (a worker whose network was cut while
    it waited on the queue: the broker hands it the next message, which never arrives; no alive key
    is ever written). Once its queue is empty and the task still unseen, it is sent again under a
    new id with the same arguments; the new task's result ends the search (on each broker)."""

    async def never_received(_s: Search, _r: redis.Redis) -> None:
        """Taken and acknowledged, as by a consumer that vanishes with it: gone from the broker."""

    _sent_again(broker_stack, never_received, wait=3 * task_client.START_PATIENCE)


def test_a_task_waiting_in_its_queue_is_not_sent_again(broker_stack: Stack) -> None:
    """A task that waits in its queue past the start patience (every worker busy) is left there:
    its queue is looked at, found holding it, and nothing is sent again."""
    stack = broker_stack
    app = stack.app()

    async def run() -> tuple[str, list[dict[str, Any]], int]:
        d, clients = _dispatcher(stack, app, NOBODY)
        d.start()
        try:
            s = d.submit("griot.search_position", {"variant": "abapa", "depth": 4}, INTERACTIVE, "me", None)

            async def looked_at() -> None:
                while s.sent is None or s.sent.queue_check_at == 0.0:
                    await asyncio.sleep(0.05)

            await _bounded(looked_at, 4 * task_client.START_PATIENCE)
            assert s.task_id is not None
            return (
                s.task_id,
                await asyncio.to_thread(_take, stack.broker_url, NOBODY, 1),
                d.tasks.redispatched,
            )
        finally:
            await d.close()
            for c in clients:
                await c.aclose()

    task_id, taken, redispatched = asyncio.run(run())
    app.close()
    assert redispatched == 0
    assert [m["id"] for m in taken] == [task_id]
