"""The ``griot.v1.AnalysisService`` servicer: parse and check the request, call the gateway's
core (:mod:`~griot.services.gateway.evaluator`, :mod:`~griot.services.gateway.jobs`), build the responses.
Errors are raised as Griot's exceptions or :class:`griot.status.StatusError` and become statuses in
one place (:mod:`griot.services.common.rpc`)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import Any

import griot
import grpc
from google.protobuf import duration_pb2
from griot import record as records
from griot import redis_keys, scores
from griot.messages import outcome_message
from griot.priority import Priority
from griot.services.common.rpc import RpcMetrics, server_stream, unary_async
from griot.services.gateway.auth import Guard, Principal
from griot.services.gateway.batch import Batcher
from griot.services.gateway.cache import EvalResult
from griot.services.gateway.config import GatewayConfig
from griot.services.gateway.evaluator import BATCH, INTERACTIVE, Evaluator, Want, Watch
from griot.services.gateway.jobs import Jobs, JobSpec
from griot.services.gateway.metrics import GatewayMetrics
from griot.status import StatusError
from griot.v1 import analysis_pb2, analysis_pb2_grpc

log = logging.getLogger("griot.gateway")

SERVICE_NAME: str = analysis_pb2.DESCRIPTOR.services_by_name["AnalysisService"].full_name
#: Time kept back from the caller's deadline for the answer to travel.
DEADLINE_MARGIN = 0.15
MAX_NODES = 10**12
#: Seconds a live update's session save may wait for others to share its Redis write (at most
#: half the acknowledgement's hold; a message that waits for the save hurries it).
SAVE_DELAY = 0.02
#: An acknowledgement's hold this close to its end (seconds) is over (event loop timers are
#: kept in milliseconds).
HOLD_SLACK = 0.001
PRIORITIES = frozenset(analysis_pb2.Priority.values())
"""Largest ``max_nodes`` taken (the workers' bound)."""


def bad_request(message: str) -> StatusError:
    return StatusError(grpc.StatusCode.INVALID_ARGUMENT, "bad_request", message)


def _seconds(d: duration_pb2.Duration) -> float:
    return d.seconds + d.nanos / 1e9


def evaluation(r: EvalResult, final: bool) -> analysis_pb2.Evaluation:
    """An :class:`EvalResult` as a message (move scores only when every move was scored)."""
    e = analysis_pb2.Evaluation(
        depth=r.depth,
        score=scores.score_message(r.value),
        best_move=r.best or "",
        pv=r.pv,
        nodes=r.nodes,
        nps=int(r.nodes / r.time) if r.time > 0 else 0,
        final=final,
        from_cache=r.from_cache,
    )
    e.elapsed.FromNanoseconds(int(r.time * 1e9))
    if r.all:
        for move, value, _bound in r.moves:
            e.move_scores.add(move=move, score=scores.score_message(value))
    return e


def shared_evaluation(r: EvalResult, final: bool) -> analysis_pb2.Evaluation:
    """:func:`evaluation`, built once per result (every subscriber of a flight gets the same)."""
    e = r.messages.get(final)
    if e is None:
        e = r.messages[final] = evaluation(r, final)
    return e


def _over(pos: griot.Position) -> EvalResult | None:
    """The evaluation of a finished game (no search)."""
    outcome = pos.outcome
    if outcome is None or pos.legal_moves():
        return None
    value = 0 if outcome.winner is None else (griot.WIN if outcome.winner == pos.side_to_move else -griot.WIN)
    return EvalResult(depth=0, value=value, best=None)


class AnalysisServicer(analysis_pb2_grpc.AnalysisServiceServicer):
    """Thin handlers over the gateway's core."""

    def __init__(
        self,
        evaluator: Evaluator,
        jobs: Jobs,
        sessions: Any,
        saves: Batcher,
        guard: Guard,
        config: GatewayConfig,
        metrics: GatewayMetrics,
    ) -> None:
        self.evaluator = evaluator
        self.jobs = jobs
        self.redis = sessions
        self.sessions = SessionSaver(saves, config.session_ttl, min(SAVE_DELAY, config.ack_hold / 2))
        self.guard = guard
        self.config = config
        self.metrics = metrics

    # -- request checking ------------------------------------------------------------------------

    def _want(
        self,
        limits: analysis_pb2.SearchLimits,
        priority: analysis_pb2.Priority.ValueType,
        default_priority: Priority,
        all_moves: bool,
        p: Principal,
        context: Any,
    ) -> Want:
        if priority not in PRIORITIES:
            raise bad_request(f"unknown priority {priority}")
        prio = {
            analysis_pb2.PRIORITY_INTERACTIVE: INTERACTIVE,
            analysis_pb2.PRIORITY_BATCH: BATCH,
        }.get(priority, default_priority)
        seconds = None
        if limits.HasField("max_time"):
            if limits.max_time.seconds < 0 or limits.max_time.nanos < 0:
                raise bad_request("max_time must not be negative")
            seconds = _seconds(limits.max_time) or None
        self.guard.check_time(p, seconds)
        if limits.max_depth:
            self.guard.check_depth(p, limits.max_depth)
            depth = limits.max_depth
        elif seconds is not None:
            depth = p.limits.max_depth
        else:
            depth = min(self.config.default_depth, p.limits.max_depth)
        deadline = None
        remaining = context.time_remaining()
        if remaining is not None:
            if remaining <= DEADLINE_MARGIN:
                raise StatusError(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline", "the deadline is too close")
            deadline = time.time() + remaining - DEADLINE_MARGIN
        nodes = limits.max_nodes or None
        if nodes is not None and nodes > MAX_NODES:
            raise bad_request(f"max_nodes {nodes} is beyond {MAX_NODES}")
        return Want(depth, seconds, all_moves, prio, p.name, deadline, nodes)

    # -- Evaluate --------------------------------------------------------------------------------

    async def Evaluate(
        self, request: analysis_pb2.EvaluateRequest, context: Any
    ) -> AsyncIterator[analysis_pb2.EvaluateResponse]:
        p = self.guard.caller(context)
        self.metrics.count("requests")
        pos = griot.Position(request.position)
        want = self._want(
            request.limits, request.priority, INTERACTIVE, request.include_move_scores, p, context
        )
        text = str(pos)
        over = _over(pos)
        if over is not None:
            yield analysis_pb2.EvaluateResponse(position=text, evaluation=evaluation(over, True))
            return
        with self.guard.stream(p):
            async for r, final in self.evaluator.evaluate(pos, want):
                yield analysis_pb2.EvaluateResponse(position=text, evaluation=shared_evaluation(r, final))

    # -- BestMove --------------------------------------------------------------------------------

    async def BestMove(
        self, request: analysis_pb2.BestMoveRequest, context: Any
    ) -> analysis_pb2.BestMoveResponse:
        p = self.guard.caller(context)
        self.metrics.count("requests")
        pos = griot.Position(request.position)
        if not 1 <= request.level <= 10:
            raise bad_request(f"level {request.level}: levels are 1 to 10")
        if not pos.legal_moves():
            raise StatusError(
                grpc.StatusCode.INVALID_ARGUMENT, "game_over", "the game is over: no move to choose"
            )
        level = scores.LEVELS[request.level]
        limits = analysis_pb2.SearchLimits(max_depth=min(level.depth, p.limits.max_depth))
        seconds = level.time
        if request.HasField("max_time"):
            asked = _seconds(request.max_time)
            if asked < 0:
                raise bad_request("max_time must not be negative")
            self.guard.check_time(p, asked)
            seconds = asked if seconds is None else min(seconds, asked)
        if seconds:
            limits.max_time.FromNanoseconds(int(seconds * 1e9))
        want = self._want(
            limits, analysis_pb2.PRIORITY_INTERACTIVE, INTERACTIVE, level.margin > 0, p, context
        )
        if want.deadline is not None:
            left = want.deadline - time.time() - 0.1
            want = replace(want, time=left if want.time is None else min(want.time, left))
        result = None
        async for r, final in self.evaluator.evaluate(pos, want):
            result = r
            if final:
                break
        assert result is not None
        move = scores.choose(level, result.moves, result.best, request.seed) or str(pos.legal_moves()[0])
        value = next((v for m, v, _ in result.moves if m == move), result.value)
        return analysis_pb2.BestMoveResponse(move=move, score=scores.score_message(value), depth=result.depth)

    # -- AnalyzeGame -----------------------------------------------------------------------------

    async def AnalyzeGame(
        self, request: analysis_pb2.AnalyzeGameRequest, context: Any
    ) -> AsyncIterator[analysis_pb2.AnalyzeGameResponse]:
        p = self.guard.caller(context)
        self.metrics.count("requests")
        which = request.WhichOneof("game")
        if which is None:
            raise bad_request("give moves, a record or a resume_job_id")
        with self.guard.stream(p):
            if which == "resume_job_id":
                job_id = request.resume_job_id
                if not job_id.isalnum() or len(job_id) > 64:
                    raise bad_request("resume_job_id is not a job id")
                await self.jobs.resume(job_id, p.name, p.authenticated)
            else:
                if which == "record":
                    rec = records.loads(request.record)
                    start, moves = rec.start_position(), list(rec.moves)
                else:
                    variant = griot.Variant(request.moves.variant)
                    if request.moves.start_position:
                        start = griot.Position(request.moves.start_position)
                        if start.variant.canonical != variant.canonical:
                            raise bad_request(
                                f"start position is a position of {start.variant.canonical}, "
                                f"not {variant.canonical}"
                            )
                    else:
                        start = variant.start()
                    moves = list(request.moves.moves)
                self.guard.check_game(p, len(moves))
                pos = start
                played = []
                for i, m in enumerate(moves):
                    try:
                        mv = pos.parse_move(m)
                        pos = pos.play(mv)
                    except griot.IllegalMoveError as e:
                        e.move = m  # type: ignore[attr-defined]
                        raise
                    except griot.NotationError as e:
                        raise griot.NotationError(f"move {i + 1} {m!r}: {e}") from None
                    played.append(mv.text)
                want = self._want(request.limits, request.priority, BATCH, True, p, context)
                spec = JobSpec(
                    variant=start.variant.canonical,
                    start=str(start),
                    moves=played,
                    depth=want.depth,
                    time=want.time,
                    nodes=want.nodes,
                    priority=want.priority,
                    client=p.name,
                )
                job_id = await self.jobs.create(spec)
            async for message in self.jobs.follow(job_id):
                yield message

    # -- LiveSession -----------------------------------------------------------------------------

    # grpc.aio also takes a handler that reads and writes through its context and returns None;
    # the generated stub's signature knows only the iterator forms.
    async def LiveSession(  # type: ignore[override]
        self, requests: AsyncIterator[analysis_pb2.LiveSessionRequest], context: Any
    ) -> None:
        # A coroutine that reads and writes through the context (``read()``/``write()``), not an
        # async generator over the request iterator: every update and every message passes no
        # generator layer (three per message and one per update before: gRPC's loop over the
        # responses, the metrics wrapper's and the stream's own).
        p = self.guard.caller(context)
        self.metrics.count("requests")
        await LiveStream(self, p, context).run()


def servicer_class(metrics: RpcMetrics) -> type[AnalysisServicer]:
    """The servicer with its handlers wrapped for this server's metrics and error mapping."""

    class Servicer(AnalysisServicer):
        pass

    for name, wrapper in (
        ("Evaluate", server_stream),
        ("BestMove", unary_async),
        ("AnalyzeGame", server_stream),
        ("LiveSession", unary_async),  # a coroutine writing its messages itself
    ):
        setattr(Servicer, name, wrapper("AnalysisService", name, metrics)(getattr(AnalysisServicer, name)))
    return Servicer


class SessionSaver:
    """Writes live sessions' state to Redis: ``HSET`` + ``EXPIRE`` on the batched client
    (:class:`~griot.services.gateway.batch.Batcher`), which sends the saves of one turn of the event
    loop in one pipeline (with the cache lookups queued in that turn). The batcher writes commands
    in the order they were queued, so a session's saves land in the order they were asked. A save
    writes the fields given; the hash keeps the others (:class:`LiveStream` gives the fields that
    changed since its last save)."""

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

    def save_soon(self, key: str, fields: dict[str, Any]) -> asyncio.Future[None]:
        """Queues the save now (no task, no await) and returns a future done once Redis has
        written it (its exception if either command failed). The save may wait up to ``delay``
        for other commands to share its pipeline (``client.hurry()`` sends it at once)."""
        first = self.client.send(*self._hset(key, fields), delay=self.delay)
        second = self.client.send("EXPIRE", key, self.ttl, delay=self.delay)
        saved: asyncio.Future[None] = first.get_loop().create_future()

        def done(f: asyncio.Future[Any]) -> None:
            # Both replies come from one pipeline: the HSET's is in when the EXPIRE's is.
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

        second.add_done_callback(done)
        return saved

    async def save(self, key: str, fields: dict[str, Any]) -> None:
        """The save, awaited; a cancelled caller's save is still written (its commands are queued
        before any await)."""
        await asyncio.shield(self.save_soon(key, fields))


def session_key(session_id: str) -> str:
    return f"{redis_keys.SESSION_PREFIX}{session_id}"


class LiveStream:
    """One open ``LiveSession`` stream: reads updates, keeps the session in Redis, evaluates the
    current position and cancels the evaluation of a superseded one.

    Its outgoing messages wait in :class:`Outbox` as plain records and become messages only when
    the stream writes them, so that one written message says all that is known then: an update's
    acknowledgement waits for its position's cache lookup (one Redis round trip) and carries the
    evaluation ready by then; a depth that a newer depth of the same update replaced before it
    went out is not sent; nor is anything about an update a newer one replaced."""

    def __init__(self, servicer: AnalysisServicer, principal: Principal, context: Any) -> None:
        self.s = servicer
        self.p = principal
        self.context = context
        self.loop = asyncio.get_running_loop()
        self.out = Outbox(self.loop)
        self.session_id = ""
        self.update_id = 0
        self.position: griot.Position | None = None
        self.limits = analysis_pb2.SearchLimits()
        self._limits_bytes = b""
        self.all_moves = False
        #: The ``Want`` of the current limits, reused while they and ``all_moves`` stay the same
        #: (a call without a deadline: with one, each update has its own).
        self._want: tuple[bytes, bool, Want] | None = None
        #: The current position's evaluation (closed when superseded or the stream ends).
        self.watch: Watch | None = None
        #: Set when the current evaluation is over, once the client closed its side.
        self._drained: asyncio.Future[None] | None = None
        #: The session's fields as last saved, and when every field was last saved.
        self._saved_limits: bytes | None = None
        self._saved_all_moves: bool | None = None
        self._saved_whole = -float("inf")

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
                        raise item
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
                self.position = griot.Position(data[b"position"].decode())
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
            self.s._want(
                req.limits, analysis_pb2.PRIORITY_UNSPECIFIED, INTERACTIVE, False, self.p, self.context
            )  # checks the key's limits
            self.limits = req.limits
            self._limits_bytes = req.limits.SerializeToString()
        self.all_moves = req.include_move_scores or self.all_moves
        if which is not None:
            if req.update_id and req.update_id <= self.update_id:
                return  # stale: an older update arriving late
            if which == "position":
                new = griot.Position(req.position)
            else:
                if self.position is None:
                    raise bad_request("a move needs a position first")
                try:
                    new = self.position.play(req.move)
                except griot.IllegalMoveError as e:
                    e.move = req.move  # type: ignore[attr-defined]
                    raise
            self.position = new
            self.update_id = req.update_id or self.update_id + 1
        assert self.position is not None
        fields: dict[str, Any] = {"position": str(self.position), "update_id": self.update_id}
        # The rest of the hash only when it changed, and all of it on the first save and again
        # after half the session's TTL (a hash that expired under an idle stream comes back whole).
        limits = self._limits_bytes
        now = time.monotonic()
        whole = now - self._saved_whole > self.s.sessions.ttl / 2
        if whole or limits != self._saved_limits:
            fields["limits"] = limits
        if whole or self.all_moves != self._saved_all_moves:
            fields["all_moves"] = "1" if self.all_moves else "0"
        if whole:
            fields["owner"] = self.p.name
        # Queued, not awaited: the evaluation starts in this turn of the loop (its cache lookup
        # goes out in the save's write) and nothing of this update goes out before the save is
        # written (the outbox holds it).
        key = session_key(self.session_id)
        saved = self.s.sessions.save_soon(key, fields)
        self.out.after(saved, self.s.sessions.client.hurry)
        self._saved_limits, self._saved_all_moves = limits, self.all_moves
        if whole:
            self._saved_whole = now
        self._evaluate_current()

    def _current_want(self) -> Want:
        cached = self._want
        if cached is not None and cached[0] is self._limits_bytes and cached[1] == self.all_moves:
            return cached[2]
        want = self.s._want(
            self.limits, analysis_pb2.PRIORITY_UNSPECIFIED, INTERACTIVE, self.all_moves, self.p, self.context
        )
        # With a deadline the Want carries it and is made anew each time.
        self._want = (self._limits_bytes, self.all_moves, want) if want.deadline is None else None
        return want

    def _evaluate_current(self) -> None:
        if self.watch is not None:
            self.watch.close()  # the superseded position's search is cancelled with it
            self.watch = None
        pos = self.position
        assert pos is not None
        text = str(pos)
        update_id = self.update_id
        out = self.out
        over = _over(pos)
        if over is not None:
            assert pos.outcome is not None
            out.put(OutRecord(update_id, text, outcome=outcome_message(pos.outcome)))
            return
        # The acknowledgement: the evaluations delivered while it waits replace it.
        hold_until = self.loop.time() + self.s.config.ack_hold
        ack = OutRecord(update_id, text, hold_until=hold_until)
        out.put(ack)
        want = self._current_want()

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
