"""The live stream's outbox (griot.services.gateway.outbox.Outbox): what one written message replaces,
and how an acknowledgement waits for an evaluation to carry. The integration side (a cached
evaluation in the acknowledgement, depths streamed) is in test_gateway.py."""

from __future__ import annotations

import asyncio
from typing import Any

from griot.services.gateway.cache import EvalResult
from griot.services.gateway.outbox import Outbox, OutRecord


def ack(update: int, lookup: Any = None, hold: float = 0.0) -> OutRecord:
    return OutRecord(update, f"pos{update}", lookup=lookup, hold_until=hold)


def result(update: int, depth: int, final: bool = False) -> OutRecord:
    return OutRecord(update, f"pos{update}", EvalResult(depth=depth, value=0, best="a"), final)


def taken(box: Outbox) -> list[tuple[int, int | None, bool]]:
    """Everything the box gives now, as (update, depth or None, final)."""

    async def drain() -> list[Any]:
        out = []
        while box.items:
            out.append(await asyncio.wait_for(box.get(), 5))
        return out

    records = asyncio.run(drain())
    return [(r.update_id, r.result.depth if r.result is not None else None, r.final) for r in records]


def test_newest_depth_replaces_the_acknowledgement_and_older_depths() -> None:
    box = Outbox()
    for item in (ack(1), result(1, 4), result(1, 6), result(1, 8, final=True)):
        box.put(item)
    assert taken(box) == [(1, 8, True)]


def test_an_older_update_is_dropped_for_a_newer_one() -> None:
    box = Outbox()
    for item in (ack(1), result(1, 4), ack(2)):
        box.put(item)
    assert taken(box) == [(2, None, False)]
    for item in (result(2, 6, final=True), ack(3), result(3, 2)):
        box.put(item)
    assert taken(box) == [(3, 2, False)]


def test_an_exception_ends_the_coalescing() -> None:
    box = Outbox()
    error = RuntimeError("boom")
    for item in (ack(1), result(1, 4), error, result(1, 6)):
        box.put(item)

    async def drain() -> list[Any]:
        return [await box.get() for _ in range(3)]

    first, second, third = asyncio.run(drain())
    assert first.result.depth == 4 and second is error and third.result.depth == 6


def test_an_acknowledgement_waits_for_its_lookup_and_carries_what_it_delivered() -> None:
    async def main() -> tuple[list[Any], bool]:
        loop = asyncio.get_running_loop()
        lookup: asyncio.Future[None] = loop.create_future()
        box = Outbox()
        box.put(ack(1, lookup))
        getter = asyncio.ensure_future(box.get())
        for _ in range(20):
            await asyncio.sleep(0)
        waited = not getter.done()  # the lookup is on its way: nothing goes out
        box.put(result(1, 10, final=True))  # the cached answer, delivered as the lookup ends
        lookup.set_result(None)
        return await asyncio.wait_for(getter, 5), waited

    got, waited = asyncio.run(main())
    assert waited and got.result.depth == 10 and got.final


def test_a_bare_acknowledgement_goes_once_its_lookup_and_hold_are_over() -> None:
    async def main() -> list[Any]:
        loop = asyncio.get_running_loop()
        lookup: asyncio.Future[None] = loop.create_future()
        box = Outbox()
        box.put(ack(1, lookup, hold=loop.time() + 0.05))
        getter = asyncio.ensure_future(box.get())
        lookup.set_result(None)  # a miss: nothing delivered
        return await asyncio.wait_for(getter, 5)

    got = asyncio.run(main())
    assert got.update_id == 1 and got.result is None


def test_nothing_goes_out_before_the_session_save_is_written() -> None:
    """A live update's session save is queued, not awaited (``Outbox.after``): what the update
    makes, a cached answer too, waits for the save; the records behind a done save flow again."""

    hurried: list[int] = []

    async def main() -> tuple[bool, Any, Any]:
        loop = asyncio.get_running_loop()
        box = Outbox()
        saved: asyncio.Future[None] = loop.create_future()
        box.after(saved, lambda: hurried.append(1))
        box.put(result(1, 10, final=True))
        getter = asyncio.ensure_future(box.get())
        for _ in range(20):
            await asyncio.sleep(0)
        waited = not getter.done()
        saved.set_result(None)
        first = await asyncio.wait_for(getter, 5)
        box.after(loop.create_future())  # never written: the next record waits for ever
        box.put(result(2, 4))
        late = asyncio.ensure_future(box.get())
        for _ in range(20):
            await asyncio.sleep(0)
        held = not late.done()
        late.cancel()
        return waited, first, held

    waited, first, held = asyncio.run(main())
    assert waited and first.result.depth == 10 and first.final and held
    assert hurried  # a record waiting for the save hurries its write


def test_a_failed_session_save_is_what_goes_out_next() -> None:
    async def main() -> list[Any]:
        loop = asyncio.get_running_loop()
        box = Outbox()
        ok: asyncio.Future[None] = loop.create_future()
        failed: asyncio.Future[None] = loop.create_future()
        box.put(result(1, 6, final=True))
        box.after(ok)
        box.after(failed)
        box.put(result(2, 6, final=True))
        ok.set_result(None)
        failed.set_exception(ConnectionError("lost"))
        return [await asyncio.wait_for(box.get(), 5) for _ in range(2)]

    error, after = asyncio.run(main())
    assert isinstance(error, ConnectionError) and str(error) == "lost"
    assert after.update_id == 2  # the stream raises the error first; the rest stays in order
