"""Hand-worked checks of the pure-Python references for Ikibuguzo and Sabou'iyya.

Every expected value below was worked out by hand from the rule texts (Murray 1951, Quemeneur
1944), docs/NOTATION.md and docs/rules/{ikibuguzo,sabouiyya}.md; the comments
show the working. One test per rule, on hand-built positions.

Ikibuguzo loop reminder (each player, own view): 0..7 = o1..o8 (outer, left to right),
8..15 = i8..i1 (inner, right to left); ccw = +1, cw = -1; the mover's inner loop h (column
c = 15 - h) faces the opponent's inner 8 + c and outer 7 - c; special holes o1 (0) and i2 (14).
"""

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # repo root, for `tests.`

from tests.reference import ikibuguzo as K
from tests.reference import sabouiyya as Y

# =========================================================================== Ikibuguzo helpers


def loop(**holes):
    """A 16-hole loop from keyword labels, e.g. loop(o1=2, i2=1)."""
    values = [0] * 16
    for label, count in holes.items():
        index = int(label[1:]) - 1 if label[0] == "o" else 16 - int(label[1:])
        values[index] = count
    return values


def iki(south, north, side="S", variant="ikibuguzo", turns=10, opening=0, flags="-"):
    text = lambda xs: ",".join(str(x) for x in xs)  # noqa: E731
    return f"{variant} {text(south)}/{text(north)} {side} {turns} {opening} {flags}"


def board_of(position):
    """(south loop, north loop) of a position string."""
    south, north = position.split(" ")[1].split("/")
    return [int(x) for x in south.split(",")], [int(x) for x in north.split(",")]


AFTER_OPENING = [0, 6, 0, 0, 0, 0, 0, 17, 0, 0, 2, 1, 2, 1, 2, 1]


def turn(position, *moves):
    """Plays one whole turn given as its moves (the first play, then a choice at each pause):
    every position before the last move is a pause with the same player to move."""
    side = position.split(" ")[2]
    for move in moves[:-1]:
        position = K.play(position, move)
        assert position.split(" ")[2] == side and " choose=" in position, position
    return K.play(position, moves[-1])


# =========================================================================== Ikibuguzo


def test_iki_variant_and_start():
    start = "ikibuguzo 0,6,0,0,0,0,0,17,0,3,0,3,0,3,0,0/0,6,0,0,0,0,0,17,0,3,0,3,0,3,0,0 S 0 6 -"
    assert K.start("ikibuguzo") == start
    assert K.start("ikibuguzo(max_turns=2000,end_holes_win=true)") == start
    assert K.start("ikibuguzo(max_turns=50,end_holes_win=false)").startswith(
        "ikibuguzo(end_holes_win=false,max_turns=50) "
    )
    for bad in ("ikibuguzo(holes=4)", "ikibuguzo(end_holes_win=1)", "awale", "ikibuguzo(max_turns=0)"):
        with pytest.raises(ValueError):
            K.start(bad)


def test_iki_opening_is_scripted():
    # Loop 13 = i3, 11 = i5, 9 = i7 hold the threes; each sows 2 into the next hole ccw, 1 into the
    # one after: i3 -> i2 += 2, i1 += 1; i5 -> i4 += 2, i3 += 1; i7 -> i6 += 2, i5 += 1.
    position = K.start("ikibuguzo")
    for expected in ("i3", "i3", "i5", "i5", "i7", "i7"):
        assert K.legal_moves(position) == [expected]
        assert K.outcome(position) is None
        position = K.play(position, expected)
    text = ",".join(map(str, AFTER_OPENING))
    assert position == f"ikibuguzo {text}/{text} S 6 0 -"
    # after South's first scripted turn only: South i3 emptied, i2 = 2, i1 = 1; North to move, 5 left
    first = K.play(K.start("ikibuguzo"), "i3")
    assert first.split(" ", 2)[2] == "N 1 5 -"
    assert board_of(first)[0] == [0, 6, 0, 0, 0, 0, 0, 17, 0, 3, 0, 3, 0, 0, 2, 1]
    with pytest.raises(ValueError):
        K.play(K.start("ikibuguzo"), "i5")  # not the scripted hole


def test_iki_first_main_phase_moves_and_relay():
    # Holes with >= 2: o2 (6), o8 (17), i6, i4, i2 (2 each); o1 is empty; i2:cw ends in i4 (loop 12,
    # column 3) facing North loop 11 (1) and loop 4 (0): no capture, so no clockwise move.
    position = iki(AFTER_OPENING, AFTER_OPENING, turns=6)
    assert K.legal_moves(position) == ["i2", "i4", "i6", "o2", "o8"]
    # i4 (loop 12, 2): 13 -> 2, 14 -> 3 (inner, faces North loops 9 = 0, 6 = 0): relay 3 from 14:
    # 15 -> 2, 0 -> 1, 1 -> 7 (outer): relay 7 from 1: 2..6 -> 1, 7 -> 18, 8 -> 1 (was empty): end.
    after = K.play(position, "i4")
    assert board_of(after) == ([1, 0, 1, 1, 1, 1, 1, 18, 1, 0, 2, 1, 0, 2, 0, 2], AFTER_OPENING)
    assert after.endswith(" N 7 0 -")


def test_iki_capture_into_origin_and_resow():
    # South i6 (loop 10) = 2, i4 (loop 12) = 1. Lap: 11 -> 1, 12 -> 2: inner, column 3, North loop 11
    # (3) and loop 4 (2) occupied: capture 5 into loop 10. Loop 10 is not special: forced ccw
    # re-sowing 5: 11 -> 2, 12 -> 3, 13, 14, 15 -> 1 (15 was empty): end.
    position = iki(loop(i6=2, i4=1), loop(i5=3, o5=2, o1=2))
    assert K.legal_moves(position) == ["i6"]
    after = K.play(position, "i6")
    assert board_of(after) == ([0] * 11 + [2, 3, 1, 1, 1], loop(o1=2))
    assert K.outcome(after) is None


def test_iki_north_captures_the_same_way():
    # The same position seen from North: North's loops and labels work exactly like South's.
    position = iki(loop(i5=3, o5=2, o1=2), loop(i6=2, i4=1), side="N")
    after = K.play(position, "i6")
    assert board_of(after) == (loop(o1=2), [0] * 11 + [2, 3, 1, 1, 1])
    assert after.endswith(" S 11 0 -")


def test_iki_last_counter_in_empty_hole_never_captures():
    # i6 (2): 11 -> 1, 12 -> 1: loop 12 was empty, so the turn ends although North loop 11 and 4
    # (facing it) are both occupied.
    position = iki(loop(i6=2), loop(i5=1, o5=1, o1=2))
    after = K.play(position, "i6")
    assert board_of(after) == (loop(i5=1, i4=1), loop(i5=1, o5=1, o1=2))


def test_iki_capture_goes_to_the_lap_origin_not_the_turn_origin():
    # o6 (loop 5) = 2: 6 -> 1, 7 -> 2 (outer: relay). Lap from 7 (2): 8 -> 1, 9 -> 2: inner, column 6,
    # North loop 14 (1) and loop 1 (1): capture 2 into loop 7 (this lap's origin). Forced ccw from 7
    # (2): 8 -> 2, 9 -> 3: North loop 14 now empty: relay 3 from 9: 10, 11, 12 -> 1: end.
    position = iki(loop(o6=2, o8=1, i7=1), loop(o2=1, i2=1, o4=2))
    assert K.legal_moves(position) == ["o6"]
    after = K.play(position, "o6")
    assert board_of(after) == ([0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 1, 1, 1, 0, 0, 0], loop(o4=2))


def test_iki_singletons_cannot_move_and_player_who_cannot_play_loses():
    position = iki([1] * 16, loop(o1=2), side="S")
    assert K.legal_moves(position) == []
    assert K.outcome(position) == {"winner": "N", "score": (16, 2), "reason": "no-move"}


def test_iki_clockwise_only_when_it_captures_at_once():
    # o1 (2) cw: 15 -> 1, 14 -> 2: inner, column 1, North loop 9 (1) and 6 (1): capture 2 into o1.
    # Then cw from o1 (2) would end in 14 facing the emptied loop 9; keep: i2 (2) cw -> 13, 12 (empty):
    # no. So the only option is ccw (no token): o1 (2) -> 1, 2: end.
    position = iki(loop(o1=2, i2=1), loop(i7=1, o7=1, o4=5))
    assert K.legal_moves(position) == ["o1", "o1:cw"]
    assert board_of(K.play(position, "o1:cw")) == (loop(o2=1, o3=1, i2=2, i1=1), loop(o4=5))
    assert board_of(K.play(position, "o1")) == (loop(o2=1, o3=1, i2=1), loop(i7=1, o7=1, o4=5))
    # A clockwise sowing that does not capture at once is illegal: i2 is a singleton here, and with
    # i2 = 2 the cw lap would end in i4, which is empty.
    no_capture = iki(loop(i2=2), loop(i5=1, o5=1, o4=5))
    assert K.legal_moves(no_capture) == ["i2"]
    with pytest.raises(ValueError):
        K.play(no_capture, "i2:cw")
    # Only the special holes sow clockwise.
    with pytest.raises(ValueError):
        K.play(iki(loop(o2=2, i1=1), loop(i8=1, o8=1)), "o2:cw")


def test_iki_multiple_clockwise_captures_on_the_first_sowing():
    # i2 (2) cw: 13 -> 1, 12 -> 2: column 3, North loop 11 (2) + loop 4 (1): 3 into i2.
    # Options: ccw, cw (i2 (3) cw: 13 -> 2, 12 -> 3, 11 -> 2: column 4, North 12 (1) + 3 (1)); keep no
    # (o1 empty).  cw: capture 2 into i2; then cw (ends in 12 facing emptied 11) and keep impossible:
    # forced ccw 15 -> 1, 0 -> 1.  ccw: i2 (3) -> 15, 0, 1: end.
    position = iki(loop(i2=2, i4=1, i5=1), loop(i5=2, o5=1, i4=1, o4=1, o1=2))
    assert K.legal_moves(position) == ["i2", "i2:cw"]
    # The capture into i2 offers a choice: the turn pauses, South stays to move.
    paused = K.play(position, "i2:cw")
    assert paused == iki(
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 1, 3, 0],
        loop(i5=0, o5=0, i4=1, o4=1, o1=2),
        turns=11,
        flags="choose=i2,laps=1,cw=all",
    )
    assert K.legal_moves(paused) == ["ccw", "cw"]
    assert board_of(turn(position, "i2:cw", "cw")) == (
        [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 2, 0, 1],
        loop(o1=2),
    )
    assert board_of(turn(position, "i2:cw", "ccw")) == (
        [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 1, 0, 1],
        loop(o1=2, i4=1, o4=1),
    )
    assert K.play(paused, "cw").endswith(" N 12 0 -")


def test_iki_only_one_clockwise_capture_after_an_anticlockwise_start():
    # o1 (9) ccw: 1..8 -> 1, 9 -> 2: column 6, North 14 (1) + 1 (1): 2 into o1 (the lap origin).
    # Options: ccw, or cw (o1 (2) cw: 15 -> 1, 14 -> 2: column 1, North 9 (2) + 6 (1): capture 3).
    # After that cw capture, cw from o1 (3) would end in 13 (1 -> 2, facing North 10 and 5, both 1),
    # but the turn began anticlockwise: only one clockwise capture, forced ccw: o1 (3) -> 1, 2, 3
    # (outer, 2: relay) -> 4, 5 (relay) -> 6, 7 (relay) -> 8, 9 (3, North 14 empty: relay) -> 10, 11,
    # 12: end.
    south = [9, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0]
    north = [0, 1, 0, 3, 0, 1, 1, 0, 0, 2, 1, 0, 0, 0, 1, 0]
    position = iki(south, north)
    assert K.legal_moves(position) == ["o1"]
    assert K.legal_moves(K.play(position, "o1")) == ["ccw", "cw"]
    assert K.play(position, "o1").endswith(" S 11 0 choose=o1,laps=1,cw=none")
    assert board_of(turn(position, "o1", "cw")) == (
        [0, 2, 2, 0, 2, 0, 2, 0, 2, 0, 1, 1, 1, 1, 2, 1],
        [0, 0, 0, 3, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0],
    )
    # ccw instead: o1 (2) -> 1, 2 (relay) -> 3, 4 (relay) -> 5, 6 (relay) -> 7, 8 (column 7, North 15
    # empty: relay) -> 9 (3), 10 (1): end.
    assert board_of(turn(position, "o1", "ccw")) == (
        [0, 2, 0, 2, 0, 2, 0, 2, 0, 3, 1, 0, 0, 1, 1, 0],
        [0, 0, 0, 3, 0, 1, 1, 0, 0, 2, 1, 0, 0, 0, 0, 0],
    )


def test_iki_keep_and_play_the_other_special_hole():
    # docs/rules/ikibuguzo.md §11, worked there step by step.
    position = iki(loop(o1=2, i2=1, i4=1), loop(i7=1, o7=1, i5=1, o5=1, o3=3))
    assert K.legal_moves(position) == ["o1", "o1:cw"]
    first = K.play(position, "o1:cw")
    assert first.endswith(" S 11 0 choose=o1,laps=1,cw=all")
    assert K.legal_moves(first) == ["ccw", "keep+i2:cw"]
    second = K.play(first, "keep+i2:cw")
    assert second.endswith(" S 12 0 choose=i2,laps=2,cw=all,kept")
    assert K.legal_moves(second) == ["ccw", "keep+i4", "keep+o1"]
    north_after = loop(o3=3)
    # ccw: o1 (2) -> o2, o3.
    assert board_of(turn(position, "o1:cw", "ccw")) == (
        loop(o2=1, o3=1, i4=1, i2=2, i1=1),
        loop(o3=3, i5=1, o5=1),
    )
    # keep 2 in o1; i2 (2) cw -> i3, i4 (2): capture 2 into i2; ccw: i2 (2) -> i1 (2), o1 (3): relay
    # 3 -> o2, o3, o4: end.
    assert board_of(turn(position, "o1:cw", "keep+i2:cw", "ccw")) == (
        loop(o2=1, o3=1, o4=1, i4=2, i3=1, i1=2),
        north_after,
    )
    # keep again, then o1 (2) anticlockwise -> o2, o3.
    assert board_of(turn(position, "o1:cw", "keep+i2:cw", "keep+o1")) == (
        loop(o2=1, o3=1, i4=2, i3=1, i2=2, i1=1),
        north_after,
    )
    # keep again, then i4 (2) anticlockwise -> i3 (2), i2 (3, facing emptied North 9): relay 3 ->
    # i1 (2), o1 (3), o2 (1): end.
    assert board_of(turn(position, "o1:cw", "keep+i2:cw", "keep+i4")) == (
        loop(o1=3, o2=1, i3=2, i1=2),
        north_after,
    )
    with pytest.raises(ValueError):
        K.play(position, "o1:cw+keep+i2:cw")  # whole turns are no longer one move
    with pytest.raises(ValueError):
        K.play(second, "keep+i2")  # the capture hole itself is just `ccw`
    with pytest.raises(ValueError):
        K.play(first, "o2")  # during a pause only the options are moves


def test_iki_end_holes_win_stops_the_turn():
    # o7 (loop 6, 2): 7 -> 1, 8 -> 2: column 7 (South i8), North 15 (8) + 0 (1): 9 into o7.
    # Forced ccw o7 (9): 7 -> 2, 8 -> 3, 9..14 -> 1, 15 -> 2: column 0, North 8 (1) + 7 (1): capture 2
    # into o7. Both North inner end holes (loops 15 and 8) taken this turn: win, turn stops.
    south, north = loop(o7=2, i8=1, i1=1), loop(i1=8, o1=1, i8=1, o8=1, o4=2)
    position = iki(south, north)
    assert K.legal_moves(position) == ["o7"]
    after = K.play(position, "o7")
    assert after == iki(
        [0, 0, 0, 0, 0, 0, 2, 2, 3, 1, 1, 1, 1, 1, 1, 2], loop(o4=2), side="N", turns=11, flags="win=S"
    )
    assert K.outcome(after) == {"winner": "S", "score": (15, 2), "reason": "end-holes"}
    assert K.legal_moves(after) == []
    # Option off: the turn goes on: o7 (2) -> 7 (3), 8 (4): column 7, North 15 empty: relay 4 -> 9..12
    # (2 each): column 3, North 11 empty: relay 2 -> 13 (2), 14 (2): relay 2 -> 15 (3), 0 (1): end.
    variant = "ikibuguzo(end_holes_win=false)"
    off = K.play(iki(south, north, variant=variant), "o7")
    assert off == iki(
        [1, 0, 0, 0, 0, 0, 0, 3, 0, 2, 2, 2, 0, 2, 0, 3], loop(o4=2), side="N", turns=11, variant=variant
    )
    assert K.outcome(off) is None


def test_iki_capturing_everything_wins_at_once():
    # i6 (2): 11 -> 1, 12 -> 2: capture North's last 2 counters into loop 10; turn stops unsown.
    after = K.play(iki(loop(i6=2, i4=1), loop(i5=1, o5=1)), "i6")
    assert board_of(after) == (loop(i6=2, i5=1, i4=2), [0] * 16)
    assert K.outcome(after) == {"winner": "S", "score": (5, 0), "reason": "capture-all"}
    assert K.legal_moves(after) == []


def test_iki_endless_relay_is_cut():
    # This South loop, sown from o1 (loop 0), relays without end: it returns to the same board with
    # o1 to sow after 104 laps (North's counters are all in its outer row, so nothing is ever
    # captured). The turn is cut after lap 1,000: flag `cycle`, counters unchanged on each side, the
    # player with more on their side wins.
    south = [2, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 1, 2, 1]
    after = K.play(iki(south, loop(o1=2)), "o1")
    assert after.endswith(" N 11 0 cycle")
    assert sum(board_of(after)[0]) == 16 and board_of(after)[1] == loop(o1=2)
    assert K.outcome(after) == {"winner": "S", "score": (16, 2), "reason": "cycle"}
    assert K.legal_moves(after) == []


def test_iki_turn_limit():
    position = K.start("ikibuguzo(max_turns=3)")
    for move in ("i3", "i3", "i5"):
        position = K.play(position, move)
    assert K.outcome(position) == {"winner": None, "score": (32, 32), "reason": "turn-limit"}
    assert K.legal_moves(position) == []
    with pytest.raises(ValueError):
        K.play(position, "i5")


def test_iki_position_parsing():
    good = iki(AFTER_OPENING, AFTER_OPENING, turns=6)
    assert K.play(good, "o2")  # parses
    for bad in (
        good.replace(" S 6 0 -", " S 6 0 x"),  # unknown flag
        good.replace(" S 6 0 -", " S 6 2 -"),  # opening 2 but i7 does not hold 3
        K.start("ikibuguzo").replace(" S 0 6 -", " N 0 6 -"),  # South plays the first scripted turn
        good.replace("0,6,0,0", "0,6,0", 1),  # 15 holes
        good.replace(" S ", " X "),
        iki(AFTER_OPENING, AFTER_OPENING, variant="ikibuguzo(end_holes_win=false)", flags="win=S"),
        good.replace(" S 6 0 -", " S 6 0 choose=o1,laps=1,cw=all"),  # no choice here
        good.replace(" S 6 0 -", " S 6 0 choose=o9,laps=1,cw=all"),
        good.replace(" S 6 0 -", " S 6 0 choose=o1,laps=0,cw=all"),
        good.replace(" S 6 0 -", " S 6 0 choose=o1,laps=1,cw=most"),
    ):
        with pytest.raises(ValueError):
            K.legal_moves(bad)


# =========================================================================== Sabou'iyya


def test_sab_start_and_variants():
    assert Y.start("sabouiyya") == "sabouiyya ...../...../...../...../..... S 0 12-12 -"
    assert Y.start("sabouiyya(max_turns=2000,hajeb=true)") == Y.start("sabouiyya")
    assert Y.start("sabouiyya(hajeb=false)").startswith("sabouiyya(hajeb=false) ")
    with pytest.raises(ValueError):
        Y.start("sabouiyya(hajeb=yes)")


def test_sab_first_placement_next_to_centre():
    start = Y.start("sabouiyya")
    moves = Y.legal_moves(start)
    # 276 pairs of the 24 non-centre cells, minus the 190 pairs avoiding b3, c2, c4, d3.
    assert len(moves) == 86
    assert "a1,c2" in moves and "c2,b3" in moves and "b3,c4" in moves
    assert "a1,b1" not in moves and "c2,c3" not in moves
    for illegal in ("a1,b1", "d4,c2", "c3,c2", "c2,c2"):
        with pytest.raises(ValueError):
            Y.play(start, illegal)
    after = Y.play(start, "c2,d4")
    assert after == "sabouiyya ...../...S./...../..S../..... N 1 10-12 -"
    # North's first turn: 22 free non-centre cells, 3 centre neighbours left: 231 - C(19, 2) = 60.
    assert len(Y.legal_moves(after)) == 60
    assert len(Y.legal_moves(Y.play(start, "c2,b3"))) == 231 - 190  # two neighbours taken
    # South's second turn is free: C(20, 2) = 190.
    second = Y.play(after, "b3,e5")
    assert second == "sabouiyya ....N/...S./.N.../..S../..... S 2 10-10 -"
    assert len(Y.legal_moves(second)) == 190


def test_sab_movement_starts_with_south_and_multi_direction_capture():
    before = "sabouiyya SNSNS/NSSN./SN.NS/NSNSN/SNS.S N 11 0-2 -"
    assert Y.legal_moves(before) == ["d1,e4"]
    full = Y.play(before, "d1,e4")
    assert full == "sabouiyya SNSNS/NSSNN/SN.NS/NSNSN/SNSNS S 12 0-0 -"
    # Only c4 (South) touches the empty centre. At c3: b3 (a3 S behind), d3 (e3), c2 (c1) are taken at
    # once; no step from c3 then captures again.
    assert Y.legal_moves(full) == ["c4-c3"]
    assert Y.play(full, "c4-c3") == "sabouiyya SNSNS/NS.NN/S.S.S/NS.SN/SNSNS N 13 0-0 -"


def test_sab_capture_needs_the_moved_piece_and_a_partner():
    position = "sabouiyya ..S../..N../SN.NS/..S../N.... S 20 0-0 -"
    after = Y.play(position, "c2-c3")  # takes b3, d3, c4
    assert after == "sabouiyya ..S../...../S.S.S/...../N.... N 21 0-0 -"
    assert Y.outcome(after) is None
    # North's a1 moving between nothing captures nothing; a piece may step between two enemies.
    assert Y.legal_moves(after) == ["a1-a2", "a1-b1"]
    between = "sabouiyya ...../...../S.S../.N.../..... N 20 0-0 -"
    assert Y.play(between, "b2-b3") == "sabouiyya ...../...../SNS../...../..... S 21 0-0 -"


def test_sab_capture_chain_same_piece_every_prefix():
    position = "sabouiyya ...../.SSS./.NNN./...../..S.. S 20 0-0 -"
    # c1-c2 takes c3 (c4 behind); from c2, b2 takes b3 (b4), d2 takes d3 (d4); c3 captures nothing.
    assert Y.legal_moves(position) == [
        "b4-a4",
        "b4-b5",
        "c1-b1",
        "c1-c2",
        "c1-c2-b2",
        "c1-c2-d2",
        "c1-d1",
        "c4-c5",
        "d4-d5",
        "d4-e4",
    ]
    assert Y.play(position, "c1-c2") == "sabouiyya ...../.SSS./.N.N./..S../..... N 21 0-0 -"
    assert Y.play(position, "c1-c2-b2") == "sabouiyya ...../.SSS./...N./.S.../..... N 21 0-0 -"
    for illegal in ("c1-c2-c3", "c1-c2-b2-a2", "b4-a4-a3", "c1-c3", "c1-d2"):
        with pytest.raises(ValueError):
            Y.play(position, illegal)


def test_sab_capture_all_and_blockade_win():
    won = Y.play("sabouiyya ..S../..N../SN.NS/..S../..... S 20 0-0 -", "c2-c3")
    assert Y.outcome(won) == {"winner": "S", "score": (4, 0), "reason": "capture-all"}
    assert Y.legal_moves(won) == []
    blocked = "sabouiyya ...../...../...../S..../NS... N 30 0-0 -"
    assert Y.legal_moves(blocked) == []
    assert Y.outcome(blocked) == {"winner": "S", "score": (2, 1), "reason": "blockade"}


def test_sab_turn_limit_is_a_draw():
    position = Y.start("sabouiyya(max_turns=3)")
    for move in ("c2,d4", "b3,e5", "a1,a2"):
        position = Y.play(position, move)
    assert Y.outcome(position) == {"winner": None, "score": (4, 2), "reason": "turn-limit"}
    assert Y.legal_moves(position) == []


def test_sab_hajeb_declaration_needs_a_safe_mover():
    # a5 with empty a4: zone {a5, a4}; a4 borders a3, b4 (North) only: safe. b4 and a3 touch South.
    position = "sabouiyya NNS../.NS../NS.../S..../..... N 30 0-0 -"
    assert Y.legal_moves(position) == ["a3-a4", "a5-a4", "b4-a4", "hajeb"]
    # Without the option: no declaration.
    assert Y.legal_moves(position.replace("sabouiyya ", "sabouiyya(hajeb=false) ")) == [
        "a3-a4",
        "a5-a4",
        "b4-a4",
    ]
    # North pieces all in contact with South's area: no safe mover, no hajeb.
    assert "hajeb" not in Y.legal_moves("sabouiyya ..S../..N../SN.NS/..S../N.... N 20 0-0 -")
    # South can never declare.
    assert "hajeb" not in Y.legal_moves("sabouiyya SNS../.NS../NS.../S..../..... S 30 0-0 -")
    declared = Y.play(position, "hajeb")
    assert declared == "sabouiyya NNS../.NS../NS.../S..../..... S 31 0-0 on"
    # South now moves like a queen: b3-a4 (diagonal) takes a3 (a2 behind) and b4 (c4 behind).
    moves = Y.legal_moves(declared)
    assert "b3-a4" in moves and "c4-e2" in moves and "b3-d1" in moves
    assert Y.play(declared, "b3-a4") == "sabouiyya NNS../S.S../...../S..../..... N 32 0-0 on"


def test_sab_hajeb_multi_piece_captures():
    position = "sabouiyya .NS../...../...NS/S..../S...N S 30 0-0 on"
    moves = Y.legal_moves(position)
    # Single queen moves, one API move each: c5 9 (d5 e5, c4..c1, b4 a3, d4), e3 6 (e4 e5, e2, d4,
    # d2 c1), a2 11 (a3..a5, b2..e2, b3 c4 d5, b1), a1 7 (b1 c1 d1, b2 c3 d4 e5) = 33. A move need
    # not capture.
    assert len(moves) == 33 and "a1-b1" in moves and "c5-a3" in moves
    assert not any("," in m for m in moves)
    # A non-capturing move ends the turn.
    assert Y.play(position, "a1-b1") == "sabouiyya .NS../...../...NS/S..../.S..N N 31 0-0 on"
    # a1-c3 takes d3 (e3 behind). Another capture is left (b5, from a5 with c5 behind), so South
    # stays to move in state `chain`: a further capture by any South piece, or `stop`.
    chain = Y.play(position, "a1-c3")
    assert chain == "sabouiyya .NS../...../..S.S/S..../....N S 31 0-0 chain"
    assert Y.legal_moves(chain) == ["a2-a5", "c3-a5", "stop"]
    assert Y.play(chain, "stop") == "sabouiyya .NS../...../..S.S/S..../....N N 32 0-0 on"
    with pytest.raises(ValueError):
        Y.play(chain, "a2-a3")  # in a chain every move must capture
    # b5 taken: no capture left (e1 is a corner), so the turn ends at once: North to move.
    after = Y.play(chain, "a2-a5")
    assert after == "sabouiyya S.S../...../..S.S/...../....N N 32 0-0 on"
    # The same end by the other order: a2-a5 first, then c5-c3 or a5-c3 (or a1-c3) takes d3.
    first = Y.play(position, "a2-a5")
    assert first == "sabouiyya S.S../...../...NS/...../S...N S 31 0-0 chain"
    assert Y.legal_moves(first) == ["a1-c3", "a5-c3", "c5-c3", "stop"]
    assert Y.play(first, "a1-c3") == after
    with pytest.raises(ValueError):
        Y.play(position, "a1-c3,a2-a5")  # sequences are no longer one move
    # North moves normally, or rescinds.
    assert Y.legal_moves(after) == ["e1-d1", "e1-e2", "rescind"]


def test_sab_rescind_ends_hajeb_for_good():
    on = "sabouiyya S.S../...../..S.S/...../....N N 31 0-0 on"
    after = Y.play(on, "rescind")
    assert after == "sabouiyya S.S../...../..S.S/...../....N S 32 0-0 done"
    moves = Y.legal_moves(after)
    assert "c3-c4" in moves and "c3-d4" not in moves and "c3-c1" not in moves  # steps only again
    with pytest.raises(ValueError):
        Y.play("sabouiyya NNS../.NS../NS.../S..../..... N 30 0-0 -", "rescind")  # not in force


def test_sab_hajeb_settlement():
    position = "sabouiyya NN.../.N.../N..../....S/...SS N 30 0-0 -"
    assert "hajeb" in Y.legal_moves(position)  # a5 is a safe mover
    # No South queen move captures: a5 is a corner, b5 needs a South a5, a3 and b4 need two South
    # pieces round them. So the settlement starts at once, North to move.
    settle = Y.play(position, "hajeb")
    assert settle == "sabouiyya NN.../.N.../N..../....S/...SS N 31 0-0 settle-N"
    assert Y.legal_moves(settle) == ["remove:d1,e1", "remove:d1,e2", "remove:e1,e2"]
    south_removes = Y.play(settle, "remove:d1,e1")
    assert south_removes == "sabouiyya NN.../.N.../N..../....S/..... S 32 0-0 settle-S"
    # Only a5 can move infinitely without being taken (b4, a3, b5 border the open area by e2).
    assert Y.legal_moves(south_removes) == ["remove:a5"]
    done = Y.play(south_removes, "remove:a5")
    assert done == "sabouiyya .N.../.N.../N..../....S/..... N 33 0-0 done"
    assert "hajeb" not in Y.legal_moves(done)  # once a game
    assert Y.outcome(done) is None


def test_sab_settlement_removing_the_last_south_piece():
    # South has one piece: it can never capture; North's removal takes it and wins.
    settle = Y.play("sabouiyya NN.../.N.../N..../...../....S N 30 0-0 -", "hajeb")
    assert settle.endswith(" N 31 0-0 settle-N")
    assert Y.legal_moves(settle) == ["remove:e1"]
    after = Y.play(settle, "remove:e1")
    assert after == "sabouiyya NN.../.N.../N..../...../..... S 32 0-0 settle-S"
    assert Y.outcome(after) == {"winner": "N", "score": (0, 4), "reason": "capture-all"}


def test_sab_position_parsing():
    for bad in (
        "sabouiyya ...../...../..S../...../..... N 1 10-12 -",  # centre filled during placement
        "sabouiyya ...../...../...../...../..... N 0 12-12 -",  # South places first
        "sabouiyya(hajeb=false) NNS../.NS../NS.../S..../..... N 30 0-0 on",
        "sabouiyya NN.../.N.../N..../....S/...SS S 31 0-0 on",  # settle-N is due
        "sabouiyya NN.../.N.../N..../....S/...SS S 31 0-0 settle-N",
        "sabouiyya NN.../.N.../N..../....S/...SS N 31 0-0 maybe",
        "sabouiyya .NS../...../..S.S/S..../....N N 31 0-0 chain",  # chain: South to move
        "sabouiyya S.S../...../..S.S/...../....N S 32 0-0 chain",  # chain without a capture left
        "sabouiyya NN.../.N.../N..../....S/...S N 31 0-0 -",
        "sabouiyya ...../...../...../...../..... S 0 11-12 -",
    ):
        with pytest.raises(ValueError):
            Y.legal_moves(bad)
