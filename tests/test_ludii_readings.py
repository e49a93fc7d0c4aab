"""The readings named after the Digital Ludeme Project's Ludii games, through the Python API: one
position for each point where Ludii's own game was found to differ from the option or rule file
that bears its name (docs/rules/readings.md, docs/rules/bechi.md point 19, docs/rules/ikibuguzo.md
points 23, 28, 31 and 33). Each result was worked out by hand from Ludii's game description."""

from __future__ import annotations

import griot


def test_bechi_the_first_to_pass_starts_unless_they_filled_more() -> None:
    # North's A (3) sows A, c, b clockwise; b held nothing and no hole holds two: the round ends.
    # South, left without a sowing, passed first; South fills three holes, North one.
    v = "bechi(empty_breaks_chain=false,empty_holes_in_play=true,holes=3,ludii=true)"
    pos = griot.Position(f"{v} 1,0,0/3,0,0 26-6 N 19 1 play abcABC - 0-0 -")
    pos = pos.play("A").play("fill:abc").play("fill:A")
    assert str(pos) == f"{v} 6,6,6/6,0,0 0-0 N 22 2 play - - 11-1 -"
    assert pos.side_to_move == "N"


def test_ikibuguzo_a_clockwise_play_must_land_facing_two_occupied_holes() -> None:
    pos = griot.Position(
        "ikibuguzo(end_holes_win=false,ludii=true) "
        "0,9,1,0,1,3,1,0,2,0,2,0,6,5,2,5/2,1,0,2,1,0,1,18,1,0,0,0,0,0,1,0 S 10 0 -"
    )
    moves = [str(m) for m in pos.legal_moves()]
    assert "i2" in moves and not any(m.startswith("i2:cw") for m in moves)
    assert not pos.is_legal("i2:cw")


def test_ikibuguzo_capturing_everything_finishes_the_turn() -> None:
    pos = griot.Position(
        "ikibuguzo(end_holes_win=false,ludii=true) "
        "2,3,1,0,1,2,1,0,0,2,1,3,0,5,3,3/0,1,0,2,2,3,2,1,1,1,2,0,9,0,13,0 N 29 0 -"
    )
    # Every turn from here ends outside a turn; the one that took North's last counters at a
    # choice point used to stop there, over, inside the turn.
    successors = pos.successors()
    assert successors
    for move, after in successors:
        assert not after.mid_turn, (str(move), str(after))


def test_adji_boto_the_chain_goes_past_the_origin() -> None:
    # North's A (10) sows A itself, then B to e. The hole after e is A, the origin, now 1: taken,
    # and so is B (1), past it; C (16) ends the chain.
    pos = griot.Position("adji-boto-ludii 19,12,16,1,1/10,0,15,17,7 2-0 N 15 -").play("A")
    assert str(pos) == "adji-boto-ludii 20,13,17,2,2/0,0,16,18,8 2-2 S 16 -"


def test_jodu_a_later_lap_that_would_starve_ends_the_game() -> None:
    # a's seed makes b 2, which would relay into c and d; d, South's and empty before, would take
    # North's last seed (C). That lap is not sown: the turn ends after the first, and so does the
    # game, each player taking their own row.
    pos = griot.Position("jodu-ludii 1,1,1,0,0,1/0,0,1,0,0,0 18-25 S 44 -")
    assert [str(m) for m in pos.legal_moves()] == ["a", "b", "f"]
    after = pos.play("a")
    assert str(after) == "jodu-ludii 0,2,1,0,0,1/0,0,1,0,0,0 18-25 N 45 lap-cut"
    outcome = after.outcome
    assert outcome is not None
    assert (outcome.winner, outcome.scores) == ("N", (22, 26))
    assert after.legal_moves() == []
