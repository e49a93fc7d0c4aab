"""The analysis clients against the AnalysisService contract.

The gateway implements AnalysisService later; until then a small but real reference servicer here
answers with a greedy search over the native core (the score of a move is the material margin
after it, as the core's evaluation would count it). It runs on a real grpc.aio server on loopback
and exercises every RPC shape: server streams (Evaluate, AnalyzeGame), the bidirectional live
session and the unary BestMove, plus error mapping through the shared RPC wrapper."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import griot
import grpc
import pytest
from griot.client import AnalysisClient, AsyncAnalysisClient, search_limits
from griot.status import status_for
from griot.v1 import analysis_pb2, analysis_pb2_grpc, common_pb2

ABAPA = "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"


def _margin(pos: griot.Position, player: str) -> int:
    """Store margin for ``player`` from the position's notation (two-row sowing games)."""
    south, north = (int(x) for x in str(pos).split(" ")[2].split("-"))
    return 100 * (south - north if player == "S" else north - south)


def _scores(pos: griot.Position) -> list[tuple[str, int]]:
    me = pos.side_to_move
    return sorted(((m.text, _margin(after, me)) for m, after in pos.successors()), key=lambda x: -x[1])


class ReferenceAnalysis(analysis_pb2_grpc.AnalysisServiceServicer):
    """Greedy one-turn analysis: enough to exercise the contract end to end."""

    def __init__(self) -> None:
        self.jobs: dict[str, list[analysis_pb2.AnalyzeGameResponse]] = {}

    async def _abort(self, context: Any, e: griot.GriotError) -> None:
        await context.abort_with_status(status_for(e).to_grpc_status())

    async def Evaluate(self, request: Any, context: Any) -> AsyncIterator[analysis_pb2.EvaluateResponse]:
        try:
            pos = griot.Position(request.position)
        except griot.GriotError as e:
            await self._abort(context, e)
        scores = _scores(pos)
        depth_limit = request.limits.max_depth or 3
        for depth in range(1, depth_limit + 1):
            ev = analysis_pb2.Evaluation(depth=depth, nodes=depth * len(scores), final=depth == depth_limit)
            if scores:
                ev.best_move, ev.score.centi = scores[0]
                ev.pv.append(scores[0][0])
                if request.include_move_scores:
                    for mv, sc in scores:
                        ev.move_scores.add(move=mv, score=common_pb2.Score(centi=sc))
            yield analysis_pb2.EvaluateResponse(position=str(pos), evaluation=ev)

    async def AnalyzeGame(
        self, request: Any, context: Any
    ) -> AsyncIterator[analysis_pb2.AnalyzeGameResponse]:
        if request.WhichOneof("game") == "resume_job_id":
            if request.resume_job_id not in self.jobs:
                await context.abort(grpc.StatusCode.NOT_FOUND, "unknown job")
            for msg in self.jobs[request.resume_job_id]:
                yield msg
            return
        job = uuid.uuid4().hex
        sent: list[analysis_pb2.AnalyzeGameResponse] = []
        self.jobs[job] = sent
        try:
            pos = griot.Variant(request.moves.variant).start()
            report = analysis_pb2.GameReport(variant=pos.variant.canonical)
            for turn, mv in enumerate(request.moves.moves):
                scores = dict(_scores(pos))
                played = pos.parse_move(mv).text
                pos.check(played)
                best = max(scores, key=lambda m: scores[m])
                loss = scores[best] - scores[played]
                t = report.turns.add(
                    turn=turn, position=str(pos), played_move=played, best_move=best, loss=loss
                )
                t.player = common_pb2.PLAYER_SOUTH if pos.side_to_move == "S" else common_pb2.PLAYER_NORTH
                t.classification = (
                    analysis_pb2.MOVE_CLASSIFICATION_BEST
                    if loss == 0
                    else analysis_pb2.MOVE_CLASSIFICATION_BLUNDER
                )
                pos = pos.play(played)
                msg = analysis_pb2.AnalyzeGameResponse(job_id=job)
                msg.progress.positions_done = turn + 1
                msg.progress.positions_total = len(request.moves.moves)
                msg.progress.turn.CopyFrom(t)
                sent.append(msg)
                yield msg
        except griot.GriotError as e:
            await self._abort(context, e)
        final = analysis_pb2.AnalyzeGameResponse(job_id=job, report=report)
        sent.append(final)
        yield final

    async def LiveSession(
        self, request_iterator: Any, context: Any
    ) -> AsyncIterator[analysis_pb2.LiveSessionResponse]:
        session = uuid.uuid4().hex
        pos: griot.Position | None = None
        async for req in request_iterator:
            try:
                if req.WhichOneof("update") == "position":
                    pos = griot.Position(req.position)
                elif req.WhichOneof("update") == "move" and pos is not None:
                    pos = pos.play(req.move)
            except griot.GriotError as e:
                await self._abort(context, e)
            assert pos is not None
            resp = analysis_pb2.LiveSessionResponse(
                session_id=session, update_id=req.update_id, position=str(pos)
            )
            scores = _scores(pos)
            if scores:
                resp.evaluation.best_move, resp.evaluation.score.centi = scores[0]
                resp.evaluation.final = True
            yield resp

    async def BestMove(self, request: Any, context: Any) -> analysis_pb2.BestMoveResponse:
        try:
            scores = _scores(griot.Position(request.position))
        except griot.GriotError as e:
            await self._abort(context, e)
        return analysis_pb2.BestMoveResponse(
            move=scores[0][0], score=common_pb2.Score(centi=scores[0][1]), depth=1
        )


@pytest.fixture(scope="module")
def analysis_target() -> Iterator[str]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def start() -> tuple[grpc.aio.Server, int]:
        server = grpc.aio.server()
        analysis_pb2_grpc.add_AnalysisServiceServicer_to_server(ReferenceAnalysis(), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        return server, port

    server, port = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    yield f"127.0.0.1:{port}"
    asyncio.run_coroutine_threadsafe(server.stop(0), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()


def test_evaluate_streams_one_message_per_depth(analysis_target: str) -> None:
    with AnalysisClient(analysis_target) as c:
        msgs = list(
            c.evaluate(ABAPA, search_limits(max_depth=4, max_time=2.5), include_move_scores=True, timeout=10)
        )
    assert [m.evaluation.depth for m in msgs] == [1, 2, 3, 4]
    assert [m.evaluation.final for m in msgs] == [False, False, False, True]
    assert len(msgs[-1].evaluation.move_scores) == 6
    assert msgs[-1].evaluation.score.WhichOneof("value") == "centi"


def test_evaluate_bad_position_raises_notation_error(analysis_target: str) -> None:
    with AnalysisClient(analysis_target) as c, pytest.raises(griot.NotationError):
        list(c.evaluate("abapa nonsense", timeout=10))


def test_analyze_game_progress_report_and_resume(analysis_target: str) -> None:
    moves = ["c", "A", "d", "B"]
    with AnalysisClient(analysis_target) as c:
        msgs = list(c.analyze_game("abapa", moves, timeout=10))
        assert [m.WhichOneof("update") for m in msgs] == ["progress"] * 4 + ["report"]
        job = msgs[0].job_id
        assert job and all(m.job_id == job for m in msgs)
        report = msgs[-1].report
        assert [t.played_move for t in report.turns] == moves
        resumed = list(c.analyze_game(resume_job_id=job, timeout=10))
        assert resumed[-1].report == report
        with pytest.raises(griot.IllegalMoveError) as e:
            list(c.analyze_game("abapa", ["c", "c"], timeout=10))
        assert e.value.code == "not_own_hole"  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        AnalysisClient(analysis_target).analyze_game("abapa", moves, record="x")


def test_live_session_and_best_move_async(analysis_target: str) -> None:
    async def scenario() -> None:
        async with AsyncAnalysisClient(analysis_target) as c:
            updates = [
                analysis_pb2.LiveSessionRequest(update_id=1, position=ABAPA),
                analysis_pb2.LiveSessionRequest(update_id=2, move="c"),
            ]
            got = [m async for m in c.live_session(updates, timeout=10)]
            assert [m.update_id for m in got] == [1, 2]
            assert got[1].position == str(griot.Position(ABAPA).play("c"))
            assert got[0].session_id and got[0].session_id == got[1].session_id
            best = await c.best_move(ABAPA, level=5, max_time=1.0)
            assert best.move in "abcdef" and best.depth == 1
            with pytest.raises(griot.UnknownVariantError):
                await c.best_move("chess x", level=5)
            with pytest.raises(ValueError):
                await c.best_move(ABAPA, level=11)

    asyncio.run(scenario())
