"""A game's history through the rules service: a position's third occurrence ends the game (outcome
reason ``repetition``) when the caller says what came before, in either form of ``GameHistory``;
a history that cannot be the game before the position is refused with ``bad_history``."""

from __future__ import annotations

import griot
import grpc
import pytest
from griot.client import RulesClient
from griot.history import HistoryError
from griot.status import error_info
from griot.v1 import common_pb2, rules_pb2

from tests.history_cycle import CYCLE, CYCLE_START, played


def test_a_game_played_through_apply_move_ends_at_the_third_occurrence(rules: RulesClient) -> None:
    """A client that sends the positions so far ends the game where the rules do; without a
    history the same moves play on."""
    positions = [CYCLE_START]
    ended_at = None
    for i, move in enumerate(CYCLE * 3):
        r = rules.apply_move(positions[-1], move, history=positions[:-1])
        positions.append(r.position.notation)
        if r.position.HasField("outcome"):
            ended_at = i + 1
            assert r.position.outcome.reason == "repetition"
            assert list(r.legal_moves) == []
            # Each player takes the seeds on their own side: 20 + 1 against 26 + 1.
            assert (r.position.outcome.south_score, r.position.outcome.north_score) == (21, 27)
            assert r.position.outcome.result == common_pb2.GAME_RESULT_NORTH_WINS
            break
        assert list(r.legal_moves), "the game goes on until the third occurrence"
    assert ended_at == 24
    bare = rules.apply_move(positions[-2], CYCLE[-1])
    assert not bare.position.HasField("outcome") and list(bare.legal_moves)


def test_moves_from_a_start_position_are_a_history_too(rules: RulesClient) -> None:
    line = [str(p) for p in played(CYCLE * 2)]
    history = common_pb2.GameHistory(start_position=CYCLE_START, moves=CYCLE * 2)
    assert rules.legal_moves(line[-1], history=history) == []
    assert rules.legal_moves(line[-1]) == ["f"]
    v = rules.validate_move(line[-1], "f", history=history)
    assert (v.legal, v.reason) == (False, "game_over")
    with pytest.raises(griot.IllegalMoveError) as e:
        rules.apply_move(line[-1], "f", history=history)
    assert getattr(e.value, "code", None) == "game_over"
    # One occurrence short of the third: the game goes on.
    short = common_pb2.GameHistory(start_position=CYCLE_START, moves=CYCLE)
    assert rules.legal_moves(line[12], history=short) == ["f"]


def test_a_history_that_does_not_lead_to_the_position_is_refused(rules: RulesClient) -> None:
    line = [str(p) for p in played(CYCLE)]
    gapped = line[:3] + line[4:-1]
    with pytest.raises(HistoryError, match="does not follow") as e:
        rules.legal_moves(line[-1], history=gapped)
    assert e.value.index == 3
    try:
        rules.stub.ListLegalMoves(
            rules_pb2.ListLegalMovesRequest(
                position=line[-1],
                history=common_pb2.GameHistory(start_position=CYCLE_START, moves=["f", "q"]),
            ),
            timeout=10,
        )
    except grpc.RpcError as err:
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
        info = error_info(err)
        assert info is not None
        assert (info.reason, info.metadata["error"], info.metadata["index"]) == (
            "bad_history",
            "history",
            "1",
        )
        assert "move 2" in (err.details() or "")
    else:
        pytest.fail("a history with an unreadable move was accepted")
