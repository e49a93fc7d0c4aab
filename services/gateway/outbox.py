"""What a live stream has yet to write, and in which order: :class:`Outbox` of :class:`OutRecord`."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from griot.services.gateway.cache import EvalResult

#: An acknowledgement's hold this close to its end (seconds) is over (event loop timers are
#: kept in milliseconds).
HOLD_SLACK = 0.001


@dataclass(slots=True)
class OutRecord:
    """A message a live stream has yet to write: about ``update_id`` (its position ``text``), an
    evaluation (``result``, ``final``), a finished game's ``outcome``, or neither (a bare
    acknowledgement, which waits for its position's cache ``lookup`` and until ``hold_until``,
    event loop time)."""

    update_id: int
    text: str
    result: EvalResult | None = None
    final: bool = False
    outcome: Any = None
    lookup: asyncio.Future[Any] | None = None
    hold_until: float = 0.0

    @property
    def bare(self) -> bool:
        """An acknowledgement with nothing to carry yet."""
        return self.result is None and self.outcome is None


class Outbox:
    """The messages a live stream has yet to write, as :class:`OutRecord` s (or an exception to
    raise, or None for the end), taken in order with what the later ones make useless left out:

    - a record of an older update than the next one is dropped (the client drops it anyway);
    - a record of the same update without an evaluation (the acknowledgement), or with a
      non-final one, is replaced by a next one with an evaluation: the newest depth goes out;
    - an acknowledgement alone in the box waits for its position's cache lookup (``lookup``, see
      :meth:`~griot.services.gateway.evaluator.Watch.lookup`) and until ``hold until`` (event loop
      time, ``--ack-hold`` after the update) for an evaluation to carry: a cached one, the
      latest depth of a search already running, or a depth done meanwhile;
    - nothing goes out before the writes given to :meth:`after` (the session's saves) are done,
      and a failed one is what goes out next.

    The stream's writer is woken only when something may go out: an acknowledgement put while it
    waits for an empty box wakes it when its hold is over, not at once (it could only start to
    wait again), and a write it waits for is hurried."""

    __slots__ = ("_idle", "_loop", "_timer", "_wake", "items", "writes")

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.items: collections.deque[Any] = collections.deque()
        self._wake: asyncio.Future[None] | None = None
        #: The stream's event loop (else the one :meth:`get` first runs in).
        self._loop = loop
        #: The writer waits for the box to be non-empty.
        self._idle = False
        #: The wake at the end of an acknowledgement's hold (:meth:`put`), until the writer wakes.
        self._timer: asyncio.TimerHandle | None = None
        #: Writes still on their way, oldest first, each with what hurries it (or None).
        self.writes: collections.deque[tuple[asyncio.Future[None], Callable[[], None] | None]] = (
            collections.deque()
        )

    def put(self, item: Any) -> None:
        self.items.append(item)
        loop = self._loop
        if (
            self._idle
            and loop is not None
            and item.__class__ is OutRecord
            and item.bare
            and len(self.items) == 1
            and item.hold_until > loop.time()
        ):
            # The acknowledgement would only be held: the writer is woken when its hold is over
            # (or by what comes meanwhile).
            if self._timer is not None:
                self._timer.cancel()
            self._timer = loop.call_at(item.hold_until, self._woken)
            return
        self._woken()

    def after(self, write: asyncio.Future[None], hurry: Callable[[], None] | None = None) -> None:
        """Holds every record (those already here too) until ``write`` is done; if it fails,
        its exception is the next item. ``hurry`` is called when a record waits for it."""
        self.writes.append((write, hurry))

    def _woken(self, _: Any = None) -> None:
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    async def _sleep(self) -> None:
        assert self._loop is not None
        self._wake = self._loop.create_future()
        await self._wake

    async def get(self) -> Any:
        items = self.items
        # The loop, looked up once per stream (get_running_loop() costs a getpid() system call
        # on Python 3.11).
        loop = self._loop or asyncio.get_running_loop()
        self._loop = loop
        writes = self.writes
        while True:
            if not items:
                self._idle = True
                try:
                    while not items:
                        await self._sleep()
                finally:
                    self._idle = False
                    if self._timer is not None:
                        # Awake (an evaluation came during the hold, say): the hold's wake, if
                        # still needed, is the hold logic's below.
                        self._timer.cancel()
                        self._timer = None
            head = items[0]
            if isinstance(head, OutRecord):
                if len(items) == 1 and head.bare:
                    # A bare acknowledgement: hold it while an evaluation may come to fill it.
                    lookup = head.lookup
                    if lookup is not None and lookup.done():
                        lookup = head.lookup = None
                    left = head.hold_until - loop.time()
                    if lookup is not None or left > HOLD_SLACK:
                        timer = None
                        if lookup is not None:
                            lookup.add_done_callback(self._woken)
                        else:
                            timer = loop.call_later(left, self._woken)
                        try:
                            await self._sleep()
                        finally:
                            if timer is not None:
                                timer.cancel()
                            if lookup is not None:
                                lookup.remove_done_callback(self._woken)
                        continue
                items.popleft()
                while items and isinstance(items[0], OutRecord):
                    nxt = items[0]
                    if nxt.update_id > head.update_id or (
                        nxt.update_id == head.update_id
                        and nxt.result is not None
                        and not head.final
                        and head.outcome is None
                    ):
                        head = items.popleft()
                    else:
                        break
                if (
                    not items
                    and head.bare
                    and (head.lookup is not None or head.hold_until - loop.time() > HOLD_SLACK)
                ):
                    items.appendleft(head)  # a newer acknowledgement took the head's place: hold it
                    continue
            else:
                items.popleft()
            # The writes asked so far are done before anything goes out.
            while writes and writes[0][0].done():
                write = writes.popleft()[0]
                cancelled = write.cancelled()
                error = ConnectionError("a session save was cancelled") if cancelled else write.exception()
                if error is not None:
                    items.appendleft(head)
                    return error
            if not writes:
                return head
            items.appendleft(head)
            write, hurry = writes[0]
            if hurry is not None:
                hurry()
            write.add_done_callback(self._woken)
            try:
                await self._sleep()
            finally:
                write.remove_done_callback(self._woken)


__all__ = ["HOLD_SLACK", "OutRecord", "Outbox"]
