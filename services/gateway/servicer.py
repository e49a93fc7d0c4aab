"""The ``griot.v1.AnalysisService`` servicer: parse and check the request
(:mod:`~griot.services.gateway.wire`), call the gateway's core (:mod:`~griot.services.gateway.evaluator`,
:mod:`~griot.services.gateway.jobs`, :mod:`~griot.services.gateway.live` for live sessions), build
the responses.
Errors are raised as Griot's exceptions or :class:`griot.status.StatusError` and become statuses in
one place (:mod:`griot.services.common.rpc`)."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import griot
import grpc
from griot import record as records
from griot import scores
from griot.book import Book, BookError
from griot.history import earlier_from, repeating, repetition_outcome
from griot.priority import Priority
from griot.services.common.rpc import RpcMetrics, server_stream, unary_async
from griot.services.gateway.auth import Guard, Principal
from griot.services.gateway.batch import Batcher
from griot.services.gateway.config import GatewayConfig
from griot.services.gateway.evaluator import BATCH, INTERACTIVE, Evaluator, Want
from griot.services.gateway.jobs import Jobs, JobSpec
from griot.services.gateway.live import LiveSessions
from griot.services.gateway.metrics import GatewayMetrics
from griot.services.gateway.wire import (
    bad_request,
    check_want,
    evaluation,
    game_over,
    seconds_of,
    shared_evaluation,
)
from griot.status import StatusError
from griot.v1 import analysis_pb2, analysis_pb2_grpc

log = logging.getLogger("griot.gateway")

SERVICE_NAME: str = analysis_pb2.DESCRIPTOR.services_by_name["AnalysisService"].full_name


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
        self.live = LiveSessions(evaluator, sessions, saves, guard, config, metrics)
        self.guard = guard
        self.config = config
        self.metrics = metrics
        self.books = load_books(config.books)

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
        return check_want(self.guard, self.config, limits, priority, default_priority, all_moves, p, context)

    # -- Evaluate --------------------------------------------------------------------------------

    async def Evaluate(
        self, request: analysis_pb2.EvaluateRequest, context: Any
    ) -> AsyncIterator[analysis_pb2.EvaluateResponse]:
        p = self.guard.caller(context)
        self.metrics.count("requests")
        pos = griot.Position(request.position)
        earlier = earlier_from(pos, request.history if request.HasField("history") else None)
        want = self._want(
            request.limits, request.priority, INTERACTIVE, request.include_move_scores, p, context
        )
        if earlier:
            want = replace(want, history=tuple(str(h) for h in earlier))
        text = str(pos)
        over = game_over(pos, earlier)
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
        earlier = earlier_from(pos, request.history if request.HasField("history") else None)
        if not 1 <= request.level <= 10:
            raise bad_request(f"level {request.level}: levels are 1 to 10")
        if not pos.legal_moves() or (earlier and repetition_outcome(pos, earlier) is not None):
            raise StatusError(
                grpc.StatusCode.INVALID_ARGUMENT, "game_over", "the game is over: no move to choose"
            )
        level = scores.LEVELS[request.level]
        # At full strength a booked position plays the book's move, unless the game has repeated
        # a position (the move could then end it by repetition, which the book does not know).
        booked = self.books.get(pos.variant.canonical)
        entry = booked.probe(pos) if booked is not None and level.margin == 0 else None
        if entry is not None and not (earlier and repeating(pos, earlier)):
            self.metrics.count("book_moves")
            return analysis_pb2.BestMoveResponse(
                move=entry.best, score=scores.score_message(entry.value), depth=entry.depth, book=True
            )
        limits = analysis_pb2.SearchLimits(max_depth=min(level.depth, p.limits.max_depth))
        seconds = level.time
        if request.HasField("max_time"):
            asked = seconds_of(request.max_time)
            if asked < 0:
                raise bad_request("max_time must not be negative")
            self.guard.check_time(p, asked)
            seconds = asked if seconds is None else min(seconds, asked)
        if seconds:
            limits.max_time.FromNanoseconds(int(seconds * 1e9))
        want = self._want(
            limits, analysis_pb2.PRIORITY_INTERACTIVE, INTERACTIVE, level.margin > 0, p, context
        )
        if earlier:
            want = replace(want, history=tuple(str(h) for h in earlier))
        if want.deadline is not None:
            left = want.deadline - time.time() - 0.1
            want = replace(want, time=left if want.time is None else min(want.time, left))
        result = None
        async for r, final in self.evaluator.evaluate(pos, want):
            result = r
            if final:
                break
        assert result is not None
        move = scores.choose(request.level, result.moves, result.best, request.seed) or str(
            pos.legal_moves()[0]
        )
        value = next((v for m, v, _ in result.moves if m == move), result.value)
        exact = result.move_exact.get(move, result.exact if move == result.best else None)
        score = scores.score_message(value, exact)
        return analysis_pb2.BestMoveResponse(move=move, score=score, depth=result.depth)

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
        await self.live.run(p, context)


def load_books(paths: str | None) -> dict[str, Book]:
    """The opening books named (comma-separated files) by variant; a file that cannot be read
    stops the gateway at start with the book's own message."""
    books: dict[str, Book] = {}
    for path in filter(None, (p.strip() for p in (paths or "").split(","))):
        try:
            book = Book.load(path)
        except (OSError, BookError) as e:
            raise SystemExit(f"opening book: {e}") from None
        if book.variant in books:
            raise SystemExit(f"two opening books for {book.variant}: give one a variant")
        books[book.variant] = book
        log.info("opening book %s: %s, %d positions, depth %d", path, book.variant, len(book), book.depth)
    return books


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
