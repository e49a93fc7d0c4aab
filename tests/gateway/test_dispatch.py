"""The gateway's own task messages, result notifications and cache scripts, in process against the
real Redis servers and Celery workers of the gateway tests' stack (no gateway process)."""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import griot
import pytest
import redis
from gateway_stack import Stack
from prometheus_client import CollectorRegistry

from services.gateway import dispatch
from services.gateway.cache import EvalCache, EvalResult, entry_key, flight_key
from services.gateway.config import GatewayConfig
from services.gateway.dispatch import INTERACTIVE, Dispatcher
from services.gateway.metrics import GatewayMetrics
from services.gateway.publish import TaskPublisher
from services.gateway.resp import RespClient

NOBODY = "griot.test-nobody"  # a queue no worker consumes


async def _bounded(what: Callable[[], Awaitable[Any]], timeout: float = 30.0) -> Any:
    return await asyncio.wait_for(what(), timeout)


def _dispatcher(stack: Stack, app: Any, queue: str | None = None) -> tuple[Dispatcher, list[Any]]:
    config = GatewayConfig(
        broker_url=stack.broker.url,
        cache_url=stack.cache.url,
        window=2,
        **({"interactive_queue": queue} if queue else {}),
    )
    results = RespClient(stack.broker.url)
    broker = RespClient(stack.broker.url)
    d = Dispatcher(app, config, GatewayMetrics(CollectorRegistry()), results, broker)
    return d, [results, broker]


def test_task_message_is_what_send_task_sends(stack: Stack) -> None:
    """The gateway writes Celery's message itself: field for field what ``send_task`` writes."""
    app = stack.app()
    r = redis.Redis.from_url(stack.broker.url)
    kwargs = {
        "variant": "abapa",
        "position": str(griot.Variant("abapa").start()),
        "depth": 6,
        "deadline": None,
    }
    deadline = time.time() + 600
    sent = app.send_task(
        "griot.search_position",
        kwargs=kwargs,
        queue="griot.test-celery",
        expires=dt.datetime.fromtimestamp(deadline, tz=dt.UTC),
    )
    theirs = json.loads(r.lpop("griot.test-celery"))

    async def push() -> str:
        client = RespClient(stack.broker.url)
        try:
            p = TaskPublisher(client, app.thread_oid)
            m = p.message("griot.search_position", kwargs, "griot.test-ours", deadline)
            await p.push([m])
            return m.task_id
        finally:
            await client.aclose()

    task_id = asyncio.run(push())
    ours = json.loads(r.lpop("griot.test-ours"))
    app.close()

    assert ours.keys() == theirs.keys()
    assert base64.b64decode(ours["body"]) and json.loads(base64.b64decode(ours["body"])) == json.loads(
        base64.b64decode(theirs["body"])
    )
    for part, own in (
        ("headers", {"id", "root_id", "origin"}),
        ("properties", {"correlation_id", "delivery_tag"}),
    ):
        assert ours[part].keys() == theirs[part].keys(), part
        for k, v in theirs[part].items():
            if k in own:
                continue
            if k == "expiration":
                assert abs(int(ours[part][k]) - int(v)) < 60_000
            elif k == "delivery_info":
                assert ours[part][k] == {**v, "routing_key": "griot.test-ours"}
            else:
                assert ours[part][k] == v, (part, k)
    assert (
        theirs["headers"]["id"] == sent.id and ours["headers"]["id"] == ours["headers"]["root_id"] == task_id
    )
    assert ours["properties"]["correlation_id"] == task_id
    host = theirs["headers"]["origin"].split("@", 1)[1]
    assert ours["headers"]["origin"].startswith("gen") and ours["headers"]["origin"].endswith("@" + host)


def test_result_arrives_by_notification_from_a_real_worker(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the safety poll out of the way, a worker's result reaches the gateway by its message
    alone, and the read result key is deleted."""
    monkeypatch.setattr(dispatch, "SAFETY_POLL", 3600.0)
    app = stack.app()
    pos = griot.Variant("awale").start().play("c").play("D")
    r = redis.Redis.from_url(stack.broker.url)

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
                if not r.exists(dispatch.RESULT_PREFIX + s.task_id):
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
    assert not r.exists(dispatch.RESULT_PREFIX + task_id)


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
                if d._listening:
                    break
                await asyncio.sleep(0.01)
            a = d.submit("griot.search_position", {"variant": "abapa"}, INTERACTIVE, "me", None)
            a.on_progress = lambda entry: seen.append(entry["depth"])
            b = d.submit("griot.search_position", {"variant": "abapa"}, INTERACTIVE, "you", None)
            for _ in range(500):
                if r.llen(NOBODY) == 2:
                    break
                await asyncio.sleep(0.01)
            sent = [json.loads(m)["headers"] for m in r.lrange(NOBODY, 0, -1)]
            assert {h["task"] for h in sent} == {"griot.search_position"}
            assert {h["id"] for h in sent} == {a.task_id, b.task_id}
            assert a.task_id is not None and b.task_id is not None
            channel = dispatch.PROGRESS_PREFIX + a.task_id
            for depth in (3, 2, 5):
                r.publish(channel, json.dumps({"depth": depth, "value": 0}))
            r.set(dispatch.RESULT_PREFIX + a.task_id, meta(a.task_id, 9))  # no message
            r.publish(dispatch.RESULT_PREFIX + b.task_id, meta(b.task_id, 8))  # no key
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


def test_read_result_keys_go_with_the_next_tasks_write(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    """With one client for the broker and the backend (the gateway's default), the keys of read
    results are deleted in the next dispatch round's write, not only by the batch of deletes
    (held off here)."""
    monkeypatch.setattr(dispatch, "DELETE_EVERY", 3600.0)
    app = stack.app()
    r = redis.Redis.from_url(stack.broker.url)
    r.delete(NOBODY)

    async def run() -> tuple[bool, bool]:
        config = GatewayConfig(
            broker_url=stack.broker.url, cache_url=stack.cache.url, window=2, interactive_queue=NOBODY
        )
        client = RespClient(stack.broker.url)
        d = Dispatcher(app, config, GatewayMetrics(CollectorRegistry()), client, client)
        d.start()
        try:
            a = d.submit("griot.search_position", {"variant": "abapa"}, INTERACTIVE, "me", None)
            for _ in range(500):
                if r.llen(NOBODY) == 1:
                    break
                await asyncio.sleep(0.01)
            assert a.task_id is not None
            key = dispatch.RESULT_PREFIX + a.task_id
            meta = {"status": "SUCCESS", "task_id": a.task_id, "result": {"depth": 3, "value": 0}}
            r.set(key, json.dumps(meta))
            d._poll_now.set()  # the safety poll reads it
            await _bounded(lambda: d.wait(a))
            kept = bool(r.exists(key))  # read, not yet deleted
            d.submit("griot.search_position", {"variant": "abapa"}, INTERACTIVE, "me", None)
            for _ in range(500):
                if not r.exists(key):
                    break
                await asyncio.sleep(0.01)
            return kept, bool(r.exists(key))
        finally:
            await d.close()
            await client.aclose()
            r.delete(NOBODY)

    kept, left = asyncio.run(run())
    app.close()
    assert kept and not left


def test_lookup_claims_once_and_store_releases(stack: Stack) -> None:
    """One script reads the entry and claims the in-flight marker; another replica learns whose
    search runs; storing the result releases the holder's marker (releasing is the holder's
    only)."""
    pos = griot.Variant("oware").start().play("a")
    r = redis.Redis.from_url(stack.cache.url)
    r.delete(flight_key(pos))

    async def run() -> list[Any]:
        client = RespClient(stack.cache.url)
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
