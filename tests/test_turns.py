"""A move is a whole turn: where a turn takes several steps (Ikibuguzo's choices after a
capture, South's Sabou'iyya H'ajeb captures) the move is its steps joined by ``/``. Unfinished and
overlong turns are refused with their own codes, and a search scores every legal turn."""

from __future__ import annotations

import griot
import pytest

# North's i2:cw captures, then the turn offers choices (ccw, keep+o1:cw/..., ...).
IKIBUGUZO = "ikibuguzo 0,0,1,0,1,1,5,0,2,5,1,4,0,4,5,0/2,0,2,0,2,0,2,1,4,3,5,4,5,0,2,3 N 9 0 -"
# H'ajeb in force, South to move: a capture may be followed by further captures or stop.
SABOUIYYA = "sabouiyya .NS../...../...NS/S..../S...N S 30 0-0 on"
# Inside an Ikibuguzo turn (paused at a choice): valid notation, its moves finish the turn.
IKIBUGUZO_PAUSED = (
    "ikibuguzo 2,0,0,0,0,0,0,0,0,0,0,0,1,0,2,1/0,0,3,0,1,0,0,0,0,0,0,1,0,0,0,0 S 11 0 choose=o1,laps=1,cw=all"
)


def test_a_turn_of_several_steps_is_one_move() -> None:
    pos = griot.Position(IKIBUGUZO)
    moves = {m.text: m for m in pos.legal_moves()}
    assert "i2:cw/ccw" in moves and "i2:cw" not in moves
    m = moves["i2:cw/ccw"]
    assert m.steps == ["i2:cw", "ccw"] and m == "i2:cw/ccw"
    assert moves["i7"].steps == ["i7"]
    after, events = pos.play_with_events(m)
    assert not after.mid_turn and after.side_to_move == "S"
    assert after.turns == pos.turns + 2  # `turns` counts steps
    assert any(e.kind == "capture" for e in events)
    # Every legal turn is played through the API and leaves a position outside any turn.
    for mv, nxt in pos.successors():
        assert not nxt.mid_turn
        assert pos.play(mv) == nxt


def test_an_unfinished_turn_is_refused_with_its_continuations() -> None:
    pos = griot.Position(IKIBUGUZO)
    with pytest.raises(griot.IllegalMoveError) as e:
        pos.play("i2:cw")
    assert e.value.code == "turn_unfinished"
    assert "ccw" in str(e.value) and "keep+o1:cw/ccw" in str(e.value)
    assert not pos.is_legal("i2:cw")


@pytest.mark.parametrize("move", ["i2:cw/ccw/ccw", "i7/ccw"])
def test_steps_after_the_end_of_the_turn_are_refused(move: str) -> None:
    with pytest.raises(griot.IllegalMoveError) as e:
        griot.Position(IKIBUGUZO).check(move)
    assert e.value.code == "turn_over"
    assert "ends the turn" in str(e.value)


@pytest.mark.parametrize("move", ["i2:cw/zz", "/ccw", "i2:cw/", "A/", "i7//ccw"])
def test_a_malformed_step_is_a_notation_error(move: str) -> None:
    with pytest.raises(griot.NotationError):
        griot.Position(IKIBUGUZO).play(move)
    with pytest.raises(griot.NotationError):
        griot.Position(IKIBUGUZO).parse_move(move)


def test_an_illegal_step_before_the_last_is_refused_when_parsed() -> None:
    # The next step is read in the position the one before leaves, so that one must be legal.
    with pytest.raises(griot.IllegalMoveError) as e:
        griot.Variant("abapa").start().parse_move("A/b")
    assert e.value.code == "not_own_hole" and "step 1" in str(e.value)


def test_one_step_errors_keep_their_own_message() -> None:
    with pytest.raises(griot.IllegalMoveError) as e:
        griot.Variant("abapa").start().check("A")
    assert e.value.code == "not_own_hole"
    assert str(e.value).startswith("hole A belongs to North")


def test_sabouiyya_hajeb_captures_are_one_move() -> None:
    pos = griot.Position(SABOUIYYA)
    texts = [m.text for m in pos.legal_moves()]
    chains = [t for t in texts if "/" in t]
    assert "a1-c3/stop" in chains and "a1-c3/a2-a5" in chains
    with pytest.raises(griot.IllegalMoveError) as e:
        pos.play("a1-c3")
    assert e.value.code == "turn_unfinished"
    after = pos.play("a1-c3/stop")
    assert after.side_to_move == "N" and not after.mid_turn
    assert len(pos.divide(1)) == len(texts) == pos.perft(1)


def test_a_position_inside_a_turn_lists_its_completions() -> None:
    pos = griot.Position(IKIBUGUZO_PAUSED)
    assert pos.mid_turn and str(pos) == IKIBUGUZO_PAUSED
    for m in pos.legal_moves():
        nxt = pos.play(m)
        assert not nxt.mid_turn


def test_search_scores_every_legal_turn() -> None:
    pos = griot.Position(IKIBUGUZO)
    r = griot.search(pos, depth=3, multipv=0)
    assert sorted(m.move for m in r.moves) == sorted(m.text for m in pos.legal_moves())
    assert r.best_move is not None and r.best_move.text == r.moves[0].move
    assert all(m.pv and m.pv[0] == m.move for m in r.moves)
    # Each completion's score is the negated score of its position one turn shallower.
    for m in r.moves[:6]:
        child = griot.search(pos.play(m.move), depth=2)
        if child.score.centi is not None:
            assert m.score.centi == -child.score.centi
    # With one line asked for, the best move is still a whole turn.
    best = griot.search(pos, depth=3)
    assert best.best_move is not None and pos.is_legal(best.best_move)
    assert best.pv and best.pv[0] == best.best_move.text
