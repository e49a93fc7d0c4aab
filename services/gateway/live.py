"""Live analysis sessions (``LiveSession``): one :class:`LiveStream` per open stream, the session's
state saved in Redis (:class:`SessionSaver`) so that a client may resume it on any replica, and
its messages written through an :class:`~griot.services.gateway.outbox.Outbox`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from dataclasses import replace
from typing import Any

import griot
import grpc
from griot import redis_keys
from griot.history import REPETITION, earlier_from, follows, repeating, since_last_capture
from griot.messages import outcome_message
from griot.priority import Priority
from griot.services.gateway.auth import Guard, Principal
from griot.services.gateway.batch import Batcher
from griot.services.gateway.config import GatewayConfig
from griot.services.gateway.evaluator import INTERACTIVE, Evaluator, Want, Watch
from griot.services.gateway.jobs import OUTAGE_GRACE, REDIS_DOWN, RETRY_EVERY
from griot.services.gateway.metrics import GatewayMetrics
from griot.services.gateway.outbox import Outbox, OutRecord
from griot.services.gateway.wire import bad_request, check_want, finished, shared_evaluation, still_in_time
from griot.status import StatusError
from griot.v1 import analysis_pb2

log = logging.getLogger("griot.gateway")

#: Seconds a live update's session save may wait for others to share its Redis write (at most
#: half the acknowledgement's hold; a message that waits for the save hurries it).
SAVE_DELAY = 0.02

#: A live session's saves renew its hash's expiry once this share of the TTL has passed since the
#: last renewal (and at each whole save): an idle session stays in Redis for the TTL, less at most
#: this share of it, and a game's moves in quick succession cost one ``EXPIRE``, not one each.
RENEW_SHARE = 0.01


class SessionSaver:
    """Writes live sessions' state to Redis: ``HSET`` (+ ``EXPIRE``) on the batched client
    (:class:`~griot.services.gateway.batch.Batcher`), which sends the saves of one turn of the event
    loop in one pipeline (with the cache lookups queued in that turn). The batcher writes commands
    in the order they were queued, so a session's saves land in the order they were asked. A save
    writes the fields given; the hash keeps the others (:class:`LiveStream` gives the fields that
    changed since its last save) and its expiry (renewed by the saves that ask for it:
    :data:`RENEW_SHARE`)."""

    def __init__(self, client: Batcher, ttl: int, delay: float = 0.0) -> None:
        self.client = client
        self.ttl = ttl
        #: Seconds a save may wait for other commands to share its pipeline (:meth:`save_soon`).
        self.delay = delay

    @staticmethod
    def _hset(key: str, fields: dict[str, Any]) -> list[Any]:
        hset: list[Any] = ["HSET", key]
        for name, value in fields.items():
            hset.append(name)
            hset.append(value)
        return hset

    def save_soon(self, key: str, fields: dict[str, Any], renew: bool = True) -> asyncio.Future[None]:
        """Queues the save now (no task, no await) and returns a future done once Redis has
        written it (its exception if a command failed); ``renew``: the hash expires ``ttl``
        seconds from now. The save may wait up to ``delay`` for other commands to share its
        pipeline (``client.hurry()`` sends it at once)."""
        first = self.client.send(*self._hset(key, fields), delay=self.delay)
        last = self.client.send("EXPIRE", key, self.ttl, delay=self.delay) if renew else first
        saved: asyncio.Future[None] = first.get_loop().create_future()

        def done(f: asyncio.Future[Any]) -> None:
            # The replies come from one pipeline: the HSET's is in when the EXPIRE's is.
            if saved.done():
                return
            for g in (first, f):
                if g.cancelled():
                    saved.cancel()
                    return
                error = g.exception()
                if error is not None:
                    saved.set_exception(error)
                    return
            saved.set_result(None)

        last.add_done_callback(done)
        return saved

    async def save(self, key: str, fields: dict[str, Any]) -> None:
        """The save, awaited; a cancelled caller's save is still written (its commands are queued
        before any await)."""
        await asyncio.shield(self.save_soon(key, fields))


#: The retry hint of a live session ended by an unreachable cache Redis.
CACHE_RETRY_AFTER = 2.0


def cache_unreachable() -> StatusError:
    return StatusError(
        grpc.StatusCode.UNAVAILABLE,
        "cache_unavailable",
        f"the gateway cannot reach the cache Redis: resume the session in {CACHE_RETRY_AFTER:.0f} s",
        retry_after=CACHE_RETRY_AFTER,
    )


def session_key(session_id: str) -> str:
    return f"{redis_keys.SESSION_PREFIX}{session_id}"


class LiveSessions:
    """What every live stream of a gateway shares: the evaluator, the sessions' Redis (reads) and
    saver (writes), the key checks, the configuration and the metrics."""

    def __init__(
        self,
        evaluator: Evaluator,
        redis: Any,
        saves: Batcher,
        guard: Guard,
        config: GatewayConfig,
        metrics: GatewayMetrics,
    ) -> None:
        self.evaluator = evaluator
        self.redis = redis
        self.sessions = SessionSaver(saves, config.session_ttl, min(SAVE_DELAY, config.ack_hold / 2))
        self.guard = guard
        self.config = config
        self.metrics = metrics

    def want(
        self,
        limits: analysis_pb2.SearchLimits,
        priority: analysis_pb2.Priority.ValueType,
        default_priority: Priority,
        all_moves: bool,
        p: Principal,
        context: Any,
    ) -> Want:
        return check_want(self.guard, self.config, limits, priority, default_priority, all_moves, p, context)

    async def run(self, principal: Principal, context: Any) -> None:
        """Serves one open stream until it ends."""
        await LiveStream(self, principal, context).run()


class LiveStream:
    """One open ``LiveSession`` stream: reads updates, keeps the session in Redis, evaluates the
    current position and cancels the evaluation of a superseded one.

    Its outgoing messages wait in :class:`Outbox` as plain records and become messages only when
    the stream writes them, so that one written message says all that is known then: an update's
    acknowledgement waits for its position's cache lookup (one Redis round trip) and carries the
    evaluation ready by then; a depth that a newer depth of the same update replaced before it
    went out is not sent; nor is anything about an update a newer one replaced."""

    def __init__(self, sessions: LiveSessions, principal: Principal, context: Any) -> None:
        self.s = sessions
        self.p = principal
        self.context = context
        self.loop = asyncio.get_running_loop()
        self.out = Outbox(self.loop)
        self.session_id = ""
        self.update_id = 0
        self.position: griot.Position | None = None
        #: ``position`` in Griot's notation.
        self.text = ""
        #: The game's positions before ``position`` that it can still repeat (since its last
        #: capture), and the same in Griot's notation.
        self.earlier: list[griot.Position] = []
        self.earlier_texts: list[str] = []
        self.limits = analysis_pb2.SearchLimits()
        self._limits_bytes = b""
        self.all_moves = False
        #: The ``Want`` of the current limits, reused while they and ``all_moves`` stay the same
        #: (its deadline is the call's, which does not move).
        self._want: tuple[bytes, bool, Want] | None = None
        #: The current position's evaluation (closed when superseded or the stream ends).
        self.watch: Watch | None = None
        #: Set when the current evaluation is over, once the client closed its side.
        self._drained: asyncio.Future[None] | None = None
        #: The session's fields as last saved, and when every field was last saved.
        self._saved_limits: bytes | None = None
        self._saved_all_moves: bool | None = None
        self._saved_history: str | None = None
        self._saved_whole = -float("inf")
        self._renewed = -float("inf")
        #: Saves tried again while the cache Redis is down (:meth:`_until_saved`).
        self._retries: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        """Writes the stream's messages (``context.write``) while a task reads its updates."""
        s = self.s
        with s.guard.stream(self.p):
            s.metrics.sessions.inc()
            reader = self.loop.create_task(self._read())
            out = self.out
            write = self.context.write
            Response = analysis_pb2.LiveSessionResponse
            try:
                while True:
                    item = await out.get()
                    if item is None:
                        return
                    if isinstance(item, BaseException):
                        # The cache Redis down (a session's save or a resume's read failed): the
                        # client may resume the session once it is back, on any replica.
                        raise cache_unreachable() if isinstance(item, REDIS_DOWN) else item
                    message = Response(
                        session_id=self.session_id, update_id=item.update_id, position=item.text
                    )
                    if item.result is not None:
                        # CopyFrom: ~1 us cheaper than the constructor's evaluation= (upb).
                        message.evaluation.CopyFrom(shared_evaluation(item.result, item.final))
                    elif item.outcome is not None:
                        message.outcome.CopyFrom(item.outcome)
                    try:
                        await write(message)
                    except grpc.aio.AbortError:
                        raise
                    except Exception as e:
                        # The call is over (its client went away, the server stops): gRPC ends
                        # it as it did when it wrote the messages itself; no status to map.
                        log.debug("live stream write failed: %s: %s", type(e).__name__, e)
                        return
            finally:
                reader.cancel()
                for task in self._retries:
                    task.cancel()
                if self.watch is not None:
                    self.watch.close()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await reader
                s.metrics.sessions.dec()

    async def _read(self) -> None:
        read = self.context.read
        try:
            while (req := await read()) is not grpc.aio.EOF:
                await self._update(req)
            # The client closed its side: the current position's evaluations still arrive.
            if self.watch is not None and not self.watch.over:
                self._drained = self.loop.create_future()
                await self._drained
            self.out.put(None)
        except asyncio.CancelledError:
            raise
        except BaseException as e:
            self.out.put(e)

    async def _update(self, req: analysis_pb2.LiveSessionRequest) -> None:
        redis = self.s.redis
        which = req.WhichOneof("update")
        if not self.session_id:
            if req.session_id:
                data = await redis.hgetall(session_key(req.session_id))
                if not data:
                    raise StatusError(
                        grpc.StatusCode.NOT_FOUND, "unknown_session", f"no live session {req.session_id!r}"
                    )
                if self.p.authenticated and data.get(b"owner", b"").decode() != self.p.name:
                    raise StatusError(
                        grpc.StatusCode.PERMISSION_DENIED, "not_owner", "this session belongs to another key"
                    )
                self.session_id = req.session_id
                self.update_id = int(data[b"update_id"])
                self.text = data[b"position"].decode()
                self.position = griot.Position(self.text)
                history = data.get(b"history", b"").decode()
                self.earlier_texts = history.split("\n") if history else []
                self.earlier = [griot.Position(t) for t in self.earlier_texts]
                self._limits_bytes = data.get(b"limits", b"")
                self.limits = analysis_pb2.SearchLimits.FromString(self._limits_bytes)
                self.all_moves = data.get(b"all_moves") == b"1"
                self.s.metrics.count("sessions_resumed")
            elif which is None:
                raise bad_request(
                    "the first message of a session sets a position (or resumes with a session_id)"
                )
            else:
                self.session_id = uuid.uuid4().hex
                self.s.metrics.count("sessions_started")
        elif req.session_id and req.session_id != self.session_id:
            raise bad_request("a stream serves one session")
        if req.HasField("limits"):
            want = self.s.want(
                req.limits, analysis_pb2.PRIORITY_UNSPECIFIED, INTERACTIVE, False, self.p, self.context
            )  # checks the key's limits
            self.limits = req.limits
            self._limits_bytes = req.limits.SerializeToString()
            self._want = (self._limits_bytes, False, want)
        self.all_moves = req.include_move_scores or self.all_moves
        if which is not None:
            if req.update_id and req.update_id <= self.update_id:
                return  # stale: an older update arriving late
            if which == "position":
                new = griot.Position(req.position)
                if req.HasField("history"):
                    earlier = earlier_from(new, req.history)
                    texts = [str(p) for p in earlier]
                elif self.position is not None and follows(self.position, new):
                    earlier = [*self.earlier, self.position]
                    texts = [*self.earlier_texts, self.text]
                else:
                    earlier, texts = [], []
            else:
                if self.position is None:
                    raise bad_request("a move needs a position first")
                if req.HasField("history"):
                    raise bad_request("a history goes with a position, not with a move")
                try:
                    new = self.position.play(req.move)
                except griot.IllegalMoveError as e:
                    e.move = req.move  # type: ignore[attr-defined]
                    raise
                earlier = [*self.earlier, self.position]
                texts = [*self.earlier_texts, self.text]
            self.earlier = since_last_capture(new, earlier)
            self.earlier_texts = texts[len(texts) - len(self.earlier) :]  # the same suffix
            self.position = new
            self.text = str(new)
            self.update_id = req.update_id or self.update_id + 1
        assert self.position is not None
        fields: dict[str, Any] = {"position": self.text, "update_id": self.update_id}
        # The rest of the hash only when it changed, and all of it on the first save and again
        # after half the session's TTL (a hash that expired under an idle stream comes back whole).
        limits = self._limits_bytes
        now = time.monotonic()
        whole = now - self._saved_whole > self.s.sessions.ttl / 2
        if whole or limits != self._saved_limits:
            fields["limits"] = limits
        if whole or self.all_moves != self._saved_all_moves:
            fields["all_moves"] = "1" if self.all_moves else "0"
        history = "\n".join(self.earlier_texts)
        if whole or history != self._saved_history:
            fields["history"] = history
        if whole:
            fields["owner"] = self.p.name
        # Queued, not awaited: the evaluation starts in this turn of the loop (its cache lookup
        # goes out in the save's write) and nothing of this update goes out before the save is
        # written (the outbox holds it).
        key = session_key(self.session_id)
        ttl = self.s.sessions.ttl
        renew = whole or now - self._renewed > ttl * RENEW_SHARE
        saved = self._until_saved(self.s.sessions.save_soon(key, fields, renew), key)
        self.out.after(saved, self.s.sessions.client.hurry)
        self._saved_limits, self._saved_all_moves, self._saved_history = limits, self.all_moves, history
        if whole:
            self._saved_whole = now
        if renew:
            self._renewed = now
        self._evaluate_current()

    def _until_saved(self, first: asyncio.Future[None], key: str) -> asyncio.Future[None]:
        """Done when ``first`` is; or, when the cache Redis could not take it (down, restarting),
        once a save of the whole session went through, tried again every ``RETRY_EVERY`` seconds
        for ``OUTAGE_GRACE`` at most. The stream rides out a restart of the cache Redis (its
        messages wait in the outbox meanwhile), and the restarted server gets the whole session
        back, so that the client can still resume it elsewhere."""
        result: asyncio.Future[None] = self.loop.create_future()

        def done(f: asyncio.Future[None]) -> None:
            if result.done():
                return
            if f.cancelled():
                result.cancel()
                return
            error = f.exception()
            if error is None:
                result.set_result(None)
            elif isinstance(error, REDIS_DOWN):
                self._saved_whole = -float("inf")  # the next update's save writes every field too
                task = self.loop.create_task(self._save_again(key, result, error))
                self._retries.add(task)
                task.add_done_callback(self._retries.discard)
            else:
                result.set_exception(error)

        first.add_done_callback(done)
        return result

    async def _save_again(self, key: str, result: asyncio.Future[None], error: BaseException) -> None:
        end = self.loop.time() + OUTAGE_GRACE
        while not result.done():
            if self.loop.time() >= end:
                result.set_exception(error)
                return
            await asyncio.sleep(RETRY_EVERY)
            fields = {
                "position": self.text,
                "update_id": self.update_id,
                "limits": self._limits_bytes,
                "all_moves": "1" if self.all_moves else "0",
                "history": "\n".join(self.earlier_texts),
                "owner": self.p.name,
            }
            try:
                await self.s.sessions.save(key, fields)
            except REDIS_DOWN as e:
                error = e
                continue
            if not result.done():
                result.set_result(None)

    def _current_want(self) -> Want:
        cached = self._want
        if cached is not None and cached[0] is self._limits_bytes and cached[1] == self.all_moves:
            return still_in_time(cached[2])
        want = self.s.want(
            self.limits, analysis_pb2.PRIORITY_UNSPECIFIED, INTERACTIVE, self.all_moves, self.p, self.context
        )
        self._want = (self._limits_bytes, self.all_moves, want)
        return want

    def _evaluate_current(self) -> None:
        if self.watch is not None:
            self.watch.close()  # the superseded position's search is cancelled with it
            self.watch = None
        pos = self.position
        assert pos is not None
        text = self.text
        update_id = self.update_id
        out = self.out
        end = finished(pos, self.earlier)
        if end is not None:
            outcome = outcome_message(end[0])
            if end[1]:
                outcome.reason = REPETITION
            out.put(OutRecord(update_id, text, outcome=outcome))
            return
        # The acknowledgement: the evaluations delivered while it waits replace it.
        hold_until = self.loop.time() + self.s.config.ack_hold
        ack = OutRecord(update_id, text, hold_until=hold_until)
        out.put(ack)
        want = self._current_want()
        if self.earlier and repeating(pos, self.earlier):
            # Once the game has repeated a position, its searches score repetitions from its
            # history (and leave the shared cache: such a value holds in this game only).
            want = replace(want, history=tuple(self.earlier_texts))

        def deliver(item: Any) -> None:
            # Called by the flight as each result comes: queued as a record for the stream (no
            # task between the flight and the stream; the message is built when it is written).
            if isinstance(item, tuple):
                r, final = item
                out.put(OutRecord(update_id, text, r, final))
                if not final:
                    return
            elif isinstance(item, BaseException):
                out.put(item)
            if self._drained is not None and not self._drained.done():
                self._drained.set_result(None)

        self.watch = watch = self.s.evaluator.watch(pos, want, deliver)
        ack.lookup = watch.lookup()


__all__ = ["RENEW_SHARE", "SAVE_DELAY", "LiveSessions", "LiveStream", "SessionSaver", "session_key"]
