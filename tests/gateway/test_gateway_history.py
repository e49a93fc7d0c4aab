"""A game's history through the gateway (real gateway, real workers, real Redis): a third
occurrence evaluates as the finished game, the search scores a repetition of the game's positions
as the game's end, and evaluations with a history keep out of the shared cache."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from gateway_stack import Gateway
from griot.client import AnalysisClient, ServiceError, search_limits
from griot.history import HistoryError
from griot.status import error_info
from griot.v1 import analysis_pb2, common_pb2

from tests.history_cycle import CYCLE, CYCLE_START, played

LINE = [str(p) for p in played(CYCLE * 2)]


def test_a_third_occurrence_is_the_finished_game(gateway: Gateway) -> None:
    with AnalysisClient(gateway.target) as client:
        msgs = list(client.evaluate(LINE[-1], search_limits(max_depth=4), history=LINE[:-1], timeout=30))
        assert len(msgs) == 1
        e = msgs[0].evaluation
        # South to move; the repetition ends the game with North ahead (27 to 21).
        assert e.final and e.depth == 0 and not e.best_move
        assert e.score.WhichOneof("value") == "loses_in" and e.score.loses_in == 0
        with pytest.raises(ServiceError) as over:
            client.best_move(LINE[-1], level=5, history=LINE[:-1], timeout=30)
        assert over.value.code == grpc.StatusCode.INVALID_ARGUMENT and over.value.reason == "game_over"
        # The same moves as a GameHistory of moves from a start position.
        moves = common_pb2.GameHistory(start_position=CYCLE_START, moves=CYCLE * 2)
        again = list(client.evaluate(LINE[-1], search_limits(max_depth=4), history=moves, timeout=30))
        assert again[-1].evaluation.depth == 0 and again[-1].evaluation.score.loses_in == 0


def test_the_search_sees_the_coming_repetition_and_keeps_out_of_the_cache(gateway: Gateway) -> None:
    """One move before the third occurrence, North's only move repeats the position a third time
    and wins: a shallow search sees it with the history and cannot without it. Neither result is
    served to the other."""
    before = LINE[-2]
    limits = search_limits(max_depth=3)
    with AnalysisClient(gateway.target) as client:
        bare = list(client.evaluate(before, limits, timeout=60))[-1].evaluation
        assert bare.final and bare.score.WhichOneof("value") == "centi"
        with_history = list(client.evaluate(before, limits, history=LINE[:-2], timeout=60))
        e = with_history[-1].evaluation
        assert e.final and not e.from_cache
        assert e.best_move == CYCLE[-1]
        assert e.score.WhichOneof("value") == "wins_in" and e.score.wins_in == 1
        # Asked again, the history's evaluation is searched again, and the bare one still comes
        # from the cache, unchanged.
        second = list(client.evaluate(before, limits, history=LINE[:-2], timeout=60))[-1].evaluation
        assert not second.from_cache and second.score.wins_in == 1
        cached = list(client.evaluate(before, limits, timeout=60))[-1].evaluation
        assert cached.from_cache and cached.score == bare.score
        best = client.best_move(before, level=10, history=LINE[:-2], timeout=60)
        assert best.move == CYCLE[-1] and best.score.wins_in == 1


def test_a_bad_history_is_invalid_argument(gateway: Gateway) -> None:
    gapped = LINE[:3] + LINE[4:-1]
    with AnalysisClient(gateway.target) as client:
        with pytest.raises(HistoryError, match="position 4 does not follow position 3") as e:
            list(client.evaluate(LINE[-1], search_limits(max_depth=2), history=gapped, timeout=30))
        assert e.value.index == 3
        call = client.stub.Evaluate(
            analysis_pb2.EvaluateRequest(position=LINE[-1], history=common_pb2.GameHistory(positions=gapped)),
            timeout=30,
        )
        with pytest.raises(grpc.RpcError) as raw:
            list(call)
    assert raw.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = error_info(raw.value)
    assert info is not None and info.reason == "bad_history" and info.metadata["index"] == "3"


def _live(client: AnalysisClient, updates: list[analysis_pb2.LiveSessionRequest]) -> list[Any]:
    """Sends the updates, then closes its side: every message until the session's stream ends."""
    return list(client.live_session(iter(updates), timeout=60))


def test_a_live_session_ends_at_a_third_occurrence(gateway: Gateway) -> None:
    """A session that plays the cycle twice by moves ends at the third occurrence, with the
    repetition as the reason; the same position sent bare is a game that goes on."""
    limits = search_limits(max_depth=2)
    updates = [analysis_pb2.LiveSessionRequest(update_id=1, position=CYCLE_START, limits=limits)]
    updates += [analysis_pb2.LiveSessionRequest(update_id=i + 2, move=m) for i, m in enumerate(CYCLE * 2)]
    with AnalysisClient(gateway.target) as client:
        msgs = _live(client, updates)
        last = [m for m in msgs if m.update_id == len(updates)]
        assert last and last[-1].HasField("outcome"), last
        assert last[-1].position == LINE[-1]
        assert (
            last[-1].outcome.reason == "repetition"
            and last[-1].outcome.result == common_pb2.GAME_RESULT_NORTH_WINS
        )
        assert not any(m.HasField("outcome") for m in msgs if m.update_id < len(updates))
        bare = _live(client, [analysis_pb2.LiveSessionRequest(update_id=1, position=LINE[-1], limits=limits)])
        assert not any(m.HasField("outcome") for m in bare)
        assert bare[-1].evaluation.final


def test_a_live_session_takes_a_history_keeps_it_and_searches_with_it(gateway: Gateway) -> None:
    """Given the game so far with its position, the session's search sees the coming repetition
    (North's only move repeats the position a third time and wins); resumed on a new stream, the
    session still knows the game, and the repeating move ends it."""
    limits = search_limits(max_depth=3)
    first = analysis_pb2.LiveSessionRequest(
        update_id=1,
        position=LINE[-2],
        limits=limits,
        history=common_pb2.GameHistory(positions=LINE[:-2]),
    )
    with AnalysisClient(gateway.target) as client:
        msgs = _live(client, [first])
        e = msgs[-1].evaluation
        assert e.final and not e.from_cache and e.best_move == CYCLE[-1]
        assert e.score.WhichOneof("value") == "wins_in" and e.score.wins_in == 1
        session_id = msgs[-1].session_id
        again = _live(
            client, [analysis_pb2.LiveSessionRequest(session_id=session_id, update_id=2, move=CYCLE[-1])]
        )
        assert again[-1].HasField("outcome") and again[-1].outcome.reason == "repetition"
        assert again[-1].position == LINE[-1]
        # A history goes with a position, not with a move.
        with pytest.raises(ServiceError) as bad:
            _live(
                client,
                [
                    analysis_pb2.LiveSessionRequest(update_id=1, position=CYCLE_START, limits=limits),
                    analysis_pb2.LiveSessionRequest(
                        update_id=2, move="f", history=common_pb2.GameHistory(positions=[CYCLE_START])
                    ),
                ],
            )
        assert bad.value.code == grpc.StatusCode.INVALID_ARGUMENT
