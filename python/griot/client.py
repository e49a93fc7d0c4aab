"""Typed clients of Griot's gRPC services, sync and async.

Bad input comes back as the same exceptions the native core raises (``NotationError``,
``UnknownVariantError``, ``IllegalMoveError`` with ``.code``, ...; see :mod:`griot.status`); any other
failure (server unavailable, deadline exceeded, internal error) raises :class:`ServiceError` with
the status code.

    >>> from griot.client import RulesClient
    >>> with RulesClient("127.0.0.1:50051") as rules:            # doctest: +SKIP
    ...     start = rules.start_position("abapa").position.notation
    ...     rules.apply_move(start, "c").position.notation
    'abapa 4,4,0,5,5,5/5,4,4,4,4,4 0-0 N 1 -'

Positions, variants and moves may be given as strings or as the core's ``Position``/``Variant``/
``Move`` values (sent as their notation).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Sequence
from types import TracebackType
from typing import Any, TypeVar

import grpc
from google.protobuf import duration_pb2

from griot._core import Move, Position, Variant
from griot.status import error_from_rpc, error_info, retry_delay
from griot.v1 import analysis_pb2, analysis_pb2_grpc, common_pb2, rules_pb2, rules_pb2_grpc

__all__ = [
    "AnalysisClient",
    "AsyncAnalysisClient",
    "AsyncRulesClient",
    "RulesClient",
    "ServiceError",
    "score_sentence",
    "search_limits",
]

PositionLike = str | Position
VariantLike = str | Variant
MoveLike = str | Move
#: A game's history: its earlier positions (oldest first), or a ``GameHistory`` message (which may
#: give the moves from a start position instead).
HistoryLike = Sequence[PositionLike] | common_pb2.GameHistory
Metadata = Sequence[tuple[str, str]]
T = TypeVar("T")

#: Channel options every client uses: keepalive so that idle live sessions survive proxies.
DEFAULT_CHANNEL_OPTIONS: list[tuple[str, Any]] = [
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
]
# Behind a Kubernetes headless Service (one DNS name, every pod's address), ``round_robin`` spreads
# the calls of one channel over every pod; gRPC's default (pick_first) would pin one pod.
# deploy/k8s sets GRIOT_GRPC_LB_POLICY=round_robin and targets ``dns:///name:port``.
if os.environ.get("GRIOT_GRPC_LB_POLICY"):
    DEFAULT_CHANNEL_OPTIONS.append(("grpc.lb_policy_name", os.environ["GRIOT_GRPC_LB_POLICY"]))


class ServiceError(Exception):
    """A call that failed for a reason other than bad input: the server is unavailable, a deadline
    passed, a quota is spent, the server failed. ``code`` is the gRPC status code; ``reason`` the
    ErrorInfo reason when the server gave one (``overloaded``, ``quota``, ``unknown_job`` ...);
    ``retry_after`` the seconds its RetryInfo asks to wait; ``target`` the ``host:port`` the client
    called (empty when it was given a channel) and ``service`` which server that is ("the gateway",
    "the rules service")."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        reason: str = "",
        retry_after: float | None = None,
        target: str = "",
        service: str = "",
    ) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        self.reason = reason
        self.retry_after = retry_after
        self.target = target
        self.service = service


def _error(e: grpc.RpcError, target: str | None = None, service: str = "") -> Exception:
    """The exception a failed call raises: a Griot error when the server said so, else ServiceError."""
    call: Any = e  # sync errors are grpc.Call, aio errors are AioRpcError: same accessors
    griot_error = error_from_rpc(call)
    if griot_error is not None:
        return griot_error
    info = error_info(call)
    reason = info.reason if info else ""
    return ServiceError(call.code(), call.details() or "", reason, retry_delay(call), target or "", service)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _duration(seconds: float | None) -> duration_pb2.Duration | None:
    if seconds is None:
        return None
    d = duration_pb2.Duration()
    d.FromTimedelta(datetime.timedelta(seconds=seconds))
    return d


def search_limits(
    max_depth: int = 0, max_time: float | None = None, max_nodes: int = 0
) -> analysis_pb2.SearchLimits:
    """Search limits: depth in turns, time in seconds, nodes (0/None = server default)."""
    return analysis_pb2.SearchLimits(max_depth=max_depth, max_time=_duration(max_time), max_nodes=max_nodes)


class _Base:
    #: Which server the client calls, as an error names it.
    service = ""

    def __init__(
        self,
        target: str | None,
        channel: Any,
        timeout: float | None,
        metadata: Metadata | None,
        secure: bool,
        aio: bool,
    ) -> None:
        if channel is None:
            if target is None:
                raise ValueError("give a target ('host:port') or a channel")
            mod: Any = grpc.aio if aio else grpc
            if secure:
                channel = mod.secure_channel(
                    target, grpc.ssl_channel_credentials(), options=DEFAULT_CHANNEL_OPTIONS
                )
            else:
                channel = mod.insecure_channel(target, options=DEFAULT_CHANNEL_OPTIONS)
            self._owns_channel = True
        else:
            self._owns_channel = False
        self.target = target
        self.channel = channel
        self.timeout = timeout
        self.metadata = tuple(metadata or ())

    def _kw(self, timeout: float | None) -> dict[str, Any]:
        return {"timeout": self.timeout if timeout is None else timeout, "metadata": self.metadata}


class _SyncBase(_Base):
    def __init__(
        self,
        target: str | None = None,
        *,
        channel: grpc.Channel | None = None,
        timeout: float | None = 10.0,
        metadata: Metadata | None = None,
        secure: bool = False,
    ) -> None:
        """Connects to ``target`` (``host:port``), or uses ``channel`` (left open on close).
        ``timeout`` is each unary call's deadline in seconds; ``metadata`` is sent with every call
        (e.g. ``[("x-api-key", key)]``)."""
        super().__init__(target, channel, timeout, metadata, secure, aio=False)

    def close(self) -> None:
        """Closes the channel if this client opened it."""
        if self._owns_channel:
            self.channel.close()

    def __enter__(self: T) -> T:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: Any, request: Any, timeout: float | None) -> Any:
        try:
            return method(request, **self._kw(timeout))
        except grpc.RpcError as e:
            raise _error(e, self.target, self.service) from None

    def _stream(self, calls: Iterator[T]) -> Iterator[T]:
        try:
            yield from calls
        except grpc.RpcError as e:
            raise _error(e, self.target, self.service) from None


class _AsyncBase(_Base):
    def __init__(
        self,
        target: str | None = None,
        *,
        channel: grpc.aio.Channel | None = None,
        timeout: float | None = 10.0,
        metadata: Metadata | None = None,
        secure: bool = False,
    ) -> None:
        """As the sync client, over a ``grpc.aio`` channel (create it inside the event loop)."""
        super().__init__(target, channel, timeout, metadata, secure, aio=True)

    async def close(self) -> None:
        """Closes the channel if this client opened it."""
        if self._owns_channel:
            await self.channel.close()

    async def __aenter__(self: T) -> T:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def _call(self, method: Any, request: Any, timeout: float | None) -> Any:
        try:
            return await method(request, **self._kw(timeout))
        except grpc.RpcError as e:
            raise _error(e, self.target, self.service) from None

    async def _stream(self, call: AsyncIterable[T]) -> AsyncIterator[T]:
        try:
            async for item in call:
                yield item
        except grpc.RpcError as e:
            raise _error(e, self.target, self.service) from None


# ---------------------------------------------------------------------------------------------
# Rules


class RulesClient(_SyncBase):
    """Blocking client of ``griot.v1.RulesService``."""

    service = "the rules service"

    def __init__(self, target: str | None = None, **kwargs: Any) -> None:
        super().__init__(target, **kwargs)
        self.stub = rules_pb2_grpc.RulesServiceStub(self.channel)

    def list_variants(self, *, timeout: float | None = None) -> list[rules_pb2.VariantFamily]:
        """Every game family with its options, sorted by id."""
        return list(self._call(self.stub.ListVariants, rules_pb2.ListVariantsRequest(), timeout).families)

    def describe_variant(
        self, variant: VariantLike, *, timeout: float | None = None
    ) -> rules_pb2.DescribeVariantResponse:
        """Rules text, options and board geometry of a variant."""
        req = rules_pb2.DescribeVariantRequest(variant=_text(variant))
        result: rules_pb2.DescribeVariantResponse = self._call(self.stub.DescribeVariant, req, timeout)
        return result

    def start_position(
        self, variant: VariantLike, *, timeout: float | None = None
    ) -> rules_pb2.StartPositionResponse:
        """The start position of a variant, with its legal moves."""
        req = rules_pb2.StartPositionRequest(variant=_text(variant))
        result: rules_pb2.StartPositionResponse = self._call(self.stub.StartPosition, req, timeout)
        return result

    def legal_moves(
        self, position: PositionLike, *, history: HistoryLike | None = None, timeout: float | None = None
    ) -> list[str]:
        """The legal moves in move notation (none after a third occurrence, given ``history``)."""
        req = rules_pb2.ListLegalMovesRequest(position=_text(position), history=_history(history))
        return list(self._call(self.stub.ListLegalMoves, req, timeout).moves)

    def apply_move(
        self,
        position: PositionLike,
        move: MoveLike,
        *,
        history: HistoryLike | None = None,
        timeout: float | None = None,
    ) -> rules_pb2.ApplyMoveResponse:
        """Plays a move: the new position, the turn's events, the outcome if the game ended.
        Raises IllegalMoveError (``.code``) or NotationError. With ``history`` (the game's earlier
        positions, or a ``GameHistory``), a move that makes a position's third occurrence ends the
        game (outcome reason ``repetition``)."""
        req = rules_pb2.ApplyMoveRequest(
            position=_text(position), move=_text(move), history=_history(history)
        )
        result: rules_pb2.ApplyMoveResponse = self._call(self.stub.ApplyMove, req, timeout)
        return result

    def validate_move(
        self,
        position: PositionLike,
        move: MoveLike,
        *,
        history: HistoryLike | None = None,
        timeout: float | None = None,
    ) -> rules_pb2.ValidateMoveResponse:
        """Whether a move is legal, and if not why (``reason``, ``message``)."""
        req = rules_pb2.ValidateMoveRequest(
            position=_text(position), move=_text(move), history=_history(history)
        )
        result: rules_pb2.ValidateMoveResponse = self._call(self.stub.ValidateMove, req, timeout)
        return result

    def parse_position(
        self, position: PositionLike, *, timeout: float | None = None
    ) -> common_pb2.PositionInfo:
        """The canonical notation and fields of a position."""
        req = rules_pb2.ParsePositionRequest(position=_text(position))
        result: common_pb2.PositionInfo = self._call(self.stub.ParsePosition, req, timeout).position
        return result

    def format_position(
        self, variant: VariantLike, body: str, *, timeout: float | None = None
    ) -> common_pb2.PositionInfo:
        """The position of a variant with this body, in canonical notation."""
        req = rules_pb2.FormatPositionRequest(variant=_text(variant), body=body)
        result: common_pb2.PositionInfo = self._call(self.stub.FormatPosition, req, timeout).position
        return result


class AsyncRulesClient(_AsyncBase):
    """``asyncio`` client of ``griot.v1.RulesService``; the same methods as :class:`RulesClient`."""

    service = "the rules service"

    def __init__(self, target: str | None = None, **kwargs: Any) -> None:
        super().__init__(target, **kwargs)
        self.stub = rules_pb2_grpc.RulesServiceStub(self.channel)

    async def list_variants(self, *, timeout: float | None = None) -> list[rules_pb2.VariantFamily]:
        """Every game family with its options, sorted by id."""
        resp = await self._call(self.stub.ListVariants, rules_pb2.ListVariantsRequest(), timeout)
        return list(resp.families)

    async def describe_variant(
        self, variant: VariantLike, *, timeout: float | None = None
    ) -> rules_pb2.DescribeVariantResponse:
        """Rules text, options and board geometry of a variant."""
        req = rules_pb2.DescribeVariantRequest(variant=_text(variant))
        result: rules_pb2.DescribeVariantResponse = await self._call(self.stub.DescribeVariant, req, timeout)
        return result

    async def start_position(
        self, variant: VariantLike, *, timeout: float | None = None
    ) -> rules_pb2.StartPositionResponse:
        """The start position of a variant, with its legal moves."""
        req = rules_pb2.StartPositionRequest(variant=_text(variant))
        result: rules_pb2.StartPositionResponse = await self._call(self.stub.StartPosition, req, timeout)
        return result

    async def legal_moves(
        self, position: PositionLike, *, history: HistoryLike | None = None, timeout: float | None = None
    ) -> list[str]:
        """The legal moves in move notation (none after a third occurrence, given ``history``)."""
        req = rules_pb2.ListLegalMovesRequest(position=_text(position), history=_history(history))
        return list((await self._call(self.stub.ListLegalMoves, req, timeout)).moves)

    async def apply_move(
        self,
        position: PositionLike,
        move: MoveLike,
        *,
        history: HistoryLike | None = None,
        timeout: float | None = None,
    ) -> rules_pb2.ApplyMoveResponse:
        """Plays a move (see :meth:`RulesClient.apply_move`)."""
        req = rules_pb2.ApplyMoveRequest(
            position=_text(position), move=_text(move), history=_history(history)
        )
        result: rules_pb2.ApplyMoveResponse = await self._call(self.stub.ApplyMove, req, timeout)
        return result

    async def validate_move(
        self,
        position: PositionLike,
        move: MoveLike,
        *,
        history: HistoryLike | None = None,
        timeout: float | None = None,
    ) -> rules_pb2.ValidateMoveResponse:
        """Whether a move is legal, and if not why."""
        req = rules_pb2.ValidateMoveRequest(
            position=_text(position), move=_text(move), history=_history(history)
        )
        result: rules_pb2.ValidateMoveResponse = await self._call(self.stub.ValidateMove, req, timeout)
        return result

    async def parse_position(
        self, position: PositionLike, *, timeout: float | None = None
    ) -> common_pb2.PositionInfo:
        """The canonical notation and fields of a position."""
        req = rules_pb2.ParsePositionRequest(position=_text(position))
        result: common_pb2.PositionInfo = (await self._call(self.stub.ParsePosition, req, timeout)).position
        return result

    async def format_position(
        self, variant: VariantLike, body: str, *, timeout: float | None = None
    ) -> common_pb2.PositionInfo:
        """The position of a variant with this body, in canonical notation."""
        req = rules_pb2.FormatPositionRequest(variant=_text(variant), body=body)
        result: common_pb2.PositionInfo = (await self._call(self.stub.FormatPosition, req, timeout)).position
        return result


# ---------------------------------------------------------------------------------------------
# Analysis


def _history(history: HistoryLike | None) -> common_pb2.GameHistory | None:
    if history is None or isinstance(history, common_pb2.GameHistory):
        return history
    return common_pb2.GameHistory(positions=[_text(p) for p in history])


def _evaluate_request(
    position: PositionLike,
    limits: analysis_pb2.SearchLimits | None,
    include_move_scores: bool,
    priority: analysis_pb2.Priority.ValueType,
    history: HistoryLike | None,
) -> analysis_pb2.EvaluateRequest:
    return analysis_pb2.EvaluateRequest(
        position=_text(position),
        limits=limits,
        include_move_scores=include_move_scores,
        priority=priority,
        history=_history(history),
    )


def _analyze_request(
    variant: VariantLike | None,
    moves: Iterable[MoveLike] | None,
    start_position: PositionLike | None,
    record: str | None,
    resume_job_id: str | None,
    limits: analysis_pb2.SearchLimits | None,
    priority: analysis_pb2.Priority.ValueType,
) -> analysis_pb2.AnalyzeGameRequest:
    req = analysis_pb2.AnalyzeGameRequest(limits=limits, priority=priority)
    given = sum(x is not None for x in (moves, record, resume_job_id))
    if given != 1:
        raise ValueError("give exactly one of moves (with variant), record or resume_job_id")
    if resume_job_id is not None:
        req.resume_job_id = resume_job_id
    elif record is not None:
        req.record = record
    else:
        if variant is None:
            raise ValueError("moves need a variant")
        req.moves.variant = _text(variant)
        req.moves.start_position = "" if start_position is None else _text(start_position)
        req.moves.moves.extend(_text(m) for m in moves or ())
    return req


def _best_move_request(
    position: PositionLike, level: int, max_time: float | None, seed: int, history: HistoryLike | None
) -> analysis_pb2.BestMoveRequest:
    if not 1 <= level <= 10:
        raise ValueError("level is 1..10")
    return analysis_pb2.BestMoveRequest(
        position=_text(position),
        level=level,
        max_time=_duration(max_time),
        seed=seed,
        history=_history(history),
    )


class AnalysisClient(_SyncBase):
    """Blocking client of ``griot.v1.AnalysisService`` (served by the gateway). Streaming methods
    return iterators; a stream's deadline is the ``timeout`` argument (None: no deadline)."""

    service = "the gateway"

    def __init__(self, target: str | None = None, **kwargs: Any) -> None:
        super().__init__(target, **kwargs)
        self.stub = analysis_pb2_grpc.AnalysisServiceStub(self.channel)

    def evaluate(
        self,
        position: PositionLike,
        limits: analysis_pb2.SearchLimits | None = None,
        *,
        include_move_scores: bool = False,
        priority: analysis_pb2.Priority.ValueType = analysis_pb2.PRIORITY_UNSPECIFIED,
        history: HistoryLike | None = None,
        timeout: float | None = None,
    ) -> Iterator[analysis_pb2.EvaluateResponse]:
        """One evaluation per completed depth; the last has ``evaluation.final`` set."""
        req = _evaluate_request(position, limits, include_move_scores, priority, history)
        return self._stream(self.stub.Evaluate(req, timeout=timeout, metadata=self.metadata))

    def analyze_game(
        self,
        variant: VariantLike | None = None,
        moves: Iterable[MoveLike] | None = None,
        *,
        start_position: PositionLike | None = None,
        record: str | None = None,
        resume_job_id: str | None = None,
        limits: analysis_pb2.SearchLimits | None = None,
        priority: analysis_pb2.Priority.ValueType = analysis_pb2.PRIORITY_UNSPECIFIED,
        timeout: float | None = None,
    ) -> Iterator[analysis_pb2.AnalyzeGameResponse]:
        """Progress messages then the report, for a move list, a game record, or a job to resume."""
        req = _analyze_request(variant, moves, start_position, record, resume_job_id, limits, priority)
        return self._stream(self.stub.AnalyzeGame(req, timeout=timeout, metadata=self.metadata))

    def live_session(
        self, updates: Iterable[analysis_pb2.LiveSessionRequest], *, timeout: float | None = None
    ) -> Iterator[analysis_pb2.LiveSessionResponse]:
        """A live session: send position/move updates, receive evaluations of the current position.
        An update's first message may already carry its evaluation (even the final one, when
        cached); read ``evaluation`` on every message, and ``update_id`` to drop stale ones."""
        return self._stream(self.stub.LiveSession(iter(updates), timeout=timeout, metadata=self.metadata))

    def best_move(
        self,
        position: PositionLike,
        level: int = 10,
        *,
        max_time: float | None = None,
        seed: int = 0,
        history: HistoryLike | None = None,
        timeout: float | None = None,
    ) -> analysis_pb2.BestMoveResponse:
        """A move for an AI opponent at a strength level (1..10)."""
        req = _best_move_request(position, level, max_time, seed, history)
        result: analysis_pb2.BestMoveResponse = self._call(self.stub.BestMove, req, timeout)
        return result


class AsyncAnalysisClient(_AsyncBase):
    """``asyncio`` client of ``griot.v1.AnalysisService``; the same methods as :class:`AnalysisClient`,
    streams as async iterators."""

    service = "the gateway"

    def __init__(self, target: str | None = None, **kwargs: Any) -> None:
        super().__init__(target, **kwargs)
        self.stub = analysis_pb2_grpc.AnalysisServiceStub(self.channel)

    def evaluate(
        self,
        position: PositionLike,
        limits: analysis_pb2.SearchLimits | None = None,
        *,
        include_move_scores: bool = False,
        priority: analysis_pb2.Priority.ValueType = analysis_pb2.PRIORITY_UNSPECIFIED,
        history: HistoryLike | None = None,
        timeout: float | None = None,
    ) -> AsyncIterator[analysis_pb2.EvaluateResponse]:
        """One evaluation per completed depth; the last has ``evaluation.final`` set."""
        req = _evaluate_request(position, limits, include_move_scores, priority, history)
        return self._stream(self.stub.Evaluate(req, timeout=timeout, metadata=self.metadata))

    def analyze_game(
        self,
        variant: VariantLike | None = None,
        moves: Iterable[MoveLike] | None = None,
        *,
        start_position: PositionLike | None = None,
        record: str | None = None,
        resume_job_id: str | None = None,
        limits: analysis_pb2.SearchLimits | None = None,
        priority: analysis_pb2.Priority.ValueType = analysis_pb2.PRIORITY_UNSPECIFIED,
        timeout: float | None = None,
    ) -> AsyncIterator[analysis_pb2.AnalyzeGameResponse]:
        """Progress messages then the report."""
        req = _analyze_request(variant, moves, start_position, record, resume_job_id, limits, priority)
        return self._stream(self.stub.AnalyzeGame(req, timeout=timeout, metadata=self.metadata))

    def live_session(
        self,
        updates: AsyncIterable[analysis_pb2.LiveSessionRequest] | Iterable[analysis_pb2.LiveSessionRequest],
        *,
        timeout: float | None = None,
    ) -> AsyncIterator[analysis_pb2.LiveSessionResponse]:
        """A live session over an (async) iterable of updates (see the synchronous client's)."""
        return self._stream(self.stub.LiveSession(updates, timeout=timeout, metadata=self.metadata))

    async def best_move(
        self,
        position: PositionLike,
        level: int = 10,
        *,
        max_time: float | None = None,
        seed: int = 0,
        history: HistoryLike | None = None,
        timeout: float | None = None,
    ) -> analysis_pb2.BestMoveResponse:
        """A move for an AI opponent at a strength level (1..10)."""
        req = _best_move_request(position, level, max_time, seed, history)
        result: analysis_pb2.BestMoveResponse = await self._call(self.stub.BestMove, req, timeout)
        return result


def score_sentence(score: common_pb2.Score, side_to_move: str) -> str | None:
    """A proven score as a person reads it: "South wins by 4 with best play" (the endgame
    databases' final margin), "North wins with best play", "draw with best play"; ``score`` is from
    ``side_to_move``'s point of view ("S" or "N"). None for a heuristic score."""
    which = score.WhichOneof("value")
    exact = score.source in (common_pb2.SCORE_SOURCE_DATABASE, common_pb2.SCORE_SOURCE_SEARCH)
    if not exact or which is None or which == "centi":
        return None
    if which == "draw":
        return "draw with best play"
    me, other = ("South", "North") if side_to_move == "S" else ("North", "South")
    winner = me if which == "wins_in" else other
    if score.HasField("final_margin"):
        return f"{winner} wins by {abs(score.final_margin)} with best play"
    return f"{winner} wins with best play"
