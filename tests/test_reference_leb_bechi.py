"""One test per rule for the pure-Python references of Leb Bbut Ahbochen and Béchi.

Every expected position was worked out by hand from the rule texts and docs/rules/
(leb-bbut-ahbochen.md, bechi.md); the counters in each position add up to the game's total (board + stores
+ carry), so the same positions can be fed to the core.
"""

import pytest

from tests.reference import bechi, leb

LEB = "leb-bbut-ahbochen"


# =========================================================================== Leb Bbut Ahbochen


@pytest.mark.parametrize("holes", [2, 4, 6, 8, 10])
def test_leb_every_board_size_starts_right(holes):
    variant = LEB if holes == 6 else f"{LEB}(holes={holes})"
    row = ",".join(["4"] * holes)
    position = leb.start(f"{LEB}(holes={holes})")
    assert position == f"{variant} {row}/{row} 0-0 S 0 -"
    assert leb.legal_moves(position) == list("abcdefghij"[:holes])
    assert leb.outcome(position) is None


def test_leb_variant_strings():
    assert leb.start(f"{LEB}(max_turns=50,holes=4)") == (
        f"{LEB}(holes=4,max_turns=50) 4,4,4,4/4,4,4,4 0-0 S 0 -"
    )
    assert leb.start(f"{LEB}(holes=6,max_turns=2000)").startswith(f"{LEB} ")
    for bad in (f"{LEB}(holes=5)", f"{LEB}(holes=12)", f"{LEB}(holes=0)", f"{LEB}(seeds=4)", "oware"):
        with pytest.raises(ValueError):
            leb.start(bad)


def test_leb_first_move_sows_counter_clockwise():
    # a: 4 seeds into b, c, d, e.
    assert leb.play(leb.start(LEB), "a") == f"{LEB} 0,5,5,5,5,4/4,4,4,4,4,4 0-0 N 1 -"


def test_leb_full_lap_does_not_skip_the_origin():
    # a: 13 seeds: b..f, A..F, a, b. Last in own b: no capture.
    position = f"{LEB} 13,0,0,0,0,0/1,1,1,1,1,1 15-14 S 2 -"
    assert leb.play(position, "a") == f"{LEB} 1,2,1,1,1,1/2,2,2,2,2,2 15-14 N 3 -"


def test_leb_extra_lap_on_an_opponent_hole_of_six():
    # f: 1 seed into A (6 -> 7): lift 7, sow B, C, D, E, F, a, b; ends in own b.
    position = f"{LEB} 2,2,2,2,2,1/6,1,1,1,1,1 13-13 S 10 -"
    assert leb.play(position, "f") == f"{LEB} 3,3,2,2,2,0/0,2,2,2,2,2 13-13 N 11 -"


def test_leb_no_extra_lap_on_own_hole_of_six_or_opponent_hole_of_five():
    # e: 1 seed into own f (6 -> 7): the move ends.
    position = f"{LEB} 2,0,0,0,1,6/5,1,1,1,1,1 15-14 S 10 -"
    assert leb.play(position, "e") == f"{LEB} 2,0,0,0,0,7/5,1,1,1,1,1 15-14 N 11 -"
    # f: 6 seeds A..F; last into F (1 -> 2) is a capture; A (5 -> 6) is not sown again.
    # Walk back: F 2, E 2, D 2, C 2, B 2 taken; A 6 stops. 10 of 16 taken.
    assert leb.play(position, "f") == f"{LEB} 2,0,0,0,1,0/6,0,0,0,0,0 25-14 N 11 -"


def test_leb_capture_after_the_extra_lap_stops_at_the_emptied_hole():
    # 2x8. h: 1 seed into A (6 -> 7): lift 7, sow B..H. Last in H (3 -> 4): take H 4, G 2,
    # F 4, E 4; D is 3: stop. 14 taken, 9 stay on North's row.
    position = f"{LEB}(holes=8) 2,2,0,0,0,0,0,1/6,1,3,2,3,3,1,3 20-17 S 0 -"
    assert leb.play(position, "h") == f"{LEB}(holes=8) 2,2,0,0,0,0,0,0/0,2,4,3,0,0,0,0 34-17 N 1 -"


def test_leb_backward_chain_stops_at_the_row_boundary():
    # South e: 4 seeds f, A, B, C. C 2, B 4, A 2 taken; own f (now 2) is not.
    position = f"{LEB} 0,3,0,0,4,1/1,3,1,1,0,2 16-16 S 4 -"
    assert leb.play(position, "e") == f"{LEB} 0,3,0,0,0,2/0,0,0,1,0,2 24-16 N 5 -"
    # North E: 4 seeds F, a, b, c. c 4, b 4, a 2 taken; North's own F (now 2) is not.
    position = f"{LEB} 1,3,3,2,0,0/0,0,0,0,4,1 17-17 N 7 -"
    assert leb.play(position, "E") == f"{LEB} 0,0,0,2,0,0/0,0,0,0,0,2 17-27 S 8 -"


def test_leb_grand_slam_is_forfeited_and_the_move_stands():
    # f: 2 seeds into A (1 -> 2) and B (3 -> 4): that is every North seed: nothing taken.
    position = f"{LEB} 2,0,0,0,0,2/1,3,0,0,0,0 20-20 S 12 -"
    assert "f" in leb.legal_moves(position)
    assert leb.play(position, "f") == f"{LEB} 2,0,0,0,0,0/2,4,0,0,0,0 20-20 N 13 -"
    # With one more North seed in F the same capture takes 6 and leaves 1.
    position = f"{LEB} 2,0,0,0,0,2/1,3,0,0,0,1 20-19 S 12 -"
    assert leb.play(position, "f") == f"{LEB} 2,0,0,0,0,0/0,0,0,0,0,1 26-19 N 13 -"


def test_leb_must_feed_an_empty_opponent():
    # North is empty: a (to b) and c (to d, e, f) do not reach North; d and f do.
    position = f"{LEB} 1,0,3,3,0,1/0,0,0,0,0,0 22-18 S 20 -"
    assert leb.legal_moves(position) == ["d", "f"]
    with pytest.raises(ValueError):
        leb.play(position, "a")
    assert leb.play(position, "d") == f"{LEB} 1,0,3,0,1,2/1,0,0,0,0,0 22-18 N 21 -"


def test_leb_stuck_player_who_cannot_feed_gives_the_rest_to_the_opponent():
    # South to move cannot reach North's empty row: North takes the 2 seeds left.
    position = f"{LEB} 1,1,0,0,0,0/0,0,0,0,0,0 23-23 S 30 -"
    assert leb.legal_moves(position) == []
    assert leb.outcome(position) == {"winner": "N", "score": (23, 25), "reason": "stuck"}
    with pytest.raises(ValueError):
        leb.play(position, "a")


def test_leb_player_without_seeds_is_stuck_and_the_opponent_takes_the_rest():
    position = f"{LEB} 0,0,0,0,2,3/0,0,0,0,0,0 20-23 N 31 -"
    assert leb.legal_moves(position) == []
    assert leb.outcome(position) == {"winner": "S", "score": (25, 23), "reason": "stuck"}


def test_leb_move_that_leaves_the_opponent_stuck_ends_the_game():
    # North F: its last seed into South's a (3 -> 4). Taking a would take every South seed:
    # grand slam, forfeited. North's row is now empty.
    position = f"{LEB} 3,0,0,0,0,0/0,0,0,0,0,1 22-22 N 40 -"
    after = leb.play(position, "F")
    assert after == f"{LEB} 4,0,0,0,0,0/0,0,0,0,0,0 22-22 S 41 -"
    # South must feed, but a (4 seeds: b, c, d, e) cannot reach North: South is stuck and
    # North takes the 4 seeds left.
    assert leb.legal_moves(after) == []
    assert leb.outcome(after) == {"winner": "N", "score": (22, 26), "reason": "stuck"}


def test_leb_relay_cut_sets_cycle_and_each_player_takes_their_own_row(monkeypatch):
    # The real bound (1,000 laps) cannot be reached on these boards; lower it to exercise the cut.
    monkeypatch.setattr(leb, "MAX_LAPS", 1)
    position = f"{LEB} 2,2,2,2,2,1/6,1,1,1,1,1 13-13 S 10 -"
    after = leb.play(position, "f")
    assert after == f"{LEB} 2,2,2,2,2,0/7,1,1,1,1,1 13-13 N 11 cycle"
    assert leb.legal_moves(after) == []
    assert leb.outcome(after) == {"winner": "N", "score": (23, 25), "reason": "cycle"}


def test_leb_turn_limit_ends_like_an_endless_cycle():
    position = f"{LEB}(max_turns=10) 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 10 -"
    assert leb.legal_moves(position) == []
    assert leb.outcome(position) == {"winner": None, "score": (24, 24), "reason": "turn-limit"}
    before = f"{LEB}(max_turns=10) 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 9 -"
    assert leb.outcome(before) is None
    assert leb.outcome(leb.play(before, "a"))["reason"] == "turn-limit"


def test_leb_parse_errors():
    for bad in (
        f"{LEB} 4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -",
        f"{LEB} 4,4,4,4,4,4/4,4,4,4,4,4 0-0 X 0 -",
        f"{LEB} 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0",
        f"{LEB} 4,4,4,4,4,x/4,4,4,4,4,4 0-0 S 0 -",
        f"{LEB} 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 cap=S",
    ):
        with pytest.raises(ValueError):
            leb.legal_moves(bad)


# =========================================================================== Béchi


def test_bechi_start_positions_and_variant_strings():
    assert bechi.start("bechi") == "bechi 6,6,6,6/6,6,6,6 0-0 S 0 1 play - - 0-0"
    assert bechi.start("bechi(holes=4,empty_holes_in_play=false)") == bechi.start("bechi")
    assert bechi.legal_moves(bechi.start("bechi")) == ["a", "b", "c", "d"]
    three = bechi.start("bechi(holes=3)")
    assert three == "bechi(holes=3) 6,6,6/6,6,6 0-0 S 0 1 play - - 0-0"
    assert bechi.legal_moves(three) == ["a", "b:cw", "b:ccw", "c"]
    assert bechi.start("bechi(holes=3,empty_breaks_chain=false)").startswith(
        "bechi(empty_breaks_chain=false,holes=3) "
    )
    for bad in ("bechi(holes=5)", "bechi(empty_breaks_chain=yes)", "bechi(seeds=6)"):
        with pytest.raises(ValueError):
            bechi.start(bad)


def test_bechi_direction_by_half_for_south():
    start = bechi.start("bechi")
    # a (left half, clockwise): a keeps 1, then D, C, B, A, d.
    assert bechi.play(start, "a") == "bechi 1,6,6,7/7,7,7,7 0-0 N 1 1 play a - 0-0"
    # b (left half, clockwise): b keeps 1, then a, D, C, B, A.
    assert bechi.play(start, "b") == "bechi 7,1,6,6/7,7,7,7 0-0 N 1 1 play b - 0-0"
    # d (right half, anti-clockwise): d keeps 1, then A, B, C, D, a.
    assert bechi.play(start, "d") == "bechi 7,6,6,1/7,7,7,7 0-0 N 1 1 play d - 0-0"


def test_bechi_direction_by_half_for_north():
    position = "bechi 7,6,6,1/7,7,7,7 0-0 N 1 1 play d - 0-0"
    # A (North's left half, clockwise): A keeps 1, then d, c, b, a, D, C. C (7 -> 8) is even
    # but has not moved: no capture.
    assert bechi.play(position, "A") == "bechi 8,7,7,2/1,7,8,8 0-0 S 2 1 play dA - 0-0"
    # D (North's right half, anti-clockwise): D keeps 1, then a, b, c, d, A, B.
    assert bechi.play(position, "D") == "bechi 8,7,7,2/8,8,7,1 0-0 S 2 1 play dD - 0-0"


def test_bechi_centre_hole_gives_two_moves():
    position = "bechi(holes=3) 2,3,1/1,2,3 12-12 S 6 1 play aA - 0-0"
    assert bechi.legal_moves(position) == ["a", "b:cw", "b:ccw"]
    with pytest.raises(ValueError):
        bechi.play(position, "b")
    # b:cw: b keeps 1, a, C. C (3 -> 4) has not moved: no capture.
    after_cw = bechi.play(position, "b:cw")
    assert after_cw == "bechi(holes=3) 3,1,1/1,2,4 12-12 N 7 1 play abA - 0-0"
    # b:ccw: b keeps 1, c, A. A (1 -> 2) has moved: take it, then B 2; C 3 stops.
    assert bechi.play(position, "b:ccw") == "bechi(holes=3) 2,1,2/0,0,3 16-12 N 7 1 play abA - 0-0"
    # North's centre hole too.
    assert bechi.legal_moves(after_cw) == ["B:cw", "B:ccw", "C"]


def test_bechi_first_counter_back_into_origin_and_origin_not_skipped():
    # d (9, anti-clockwise): d keeps 1, then A, B, C, D, a, b, c and d again (1 -> 2). d moved
    # in an earlier turn: take its 2; A (1) stops the chain. Then nobody can sow: round over.
    position = "bechi 0,0,0,9/0,0,0,0 20-19 S 10 1 play d - 0-0"
    # South 20 + 2 + row 3 = 25, North 19 + row 4 = 23.
    assert bechi.play(position, "d") == "bechi 0,0,0,0/0,0,0,0 25-23 S 11 1 fill-S - - 0-0"


def test_bechi_holes_of_fewer_than_two_cannot_be_played():
    position = "bechi 1,0,2,1/6,6,6,6 10-10 S 4 1 play - - 0-0"
    assert bechi.legal_moves(position) == ["c"]
    for move in ("a", "b", "d", "pass", "A"):
        with pytest.raises(ValueError):
            bechi.play(position, move)


def test_bechi_capture_only_on_an_already_moved_hole():
    # d (2, anti-clockwise): d keeps 1, A (3 -> 4).
    moved = "bechi 5,5,5,2/3,1,5,5 9-8 S 8 1 play A - 0-0"
    assert bechi.play(moved, "d") == "bechi 5,5,5,1/0,1,5,5 13-8 N 9 1 play dA - 0-0"
    fresh = "bechi 5,5,5,2/3,1,5,5 9-8 S 8 1 play - - 0-0"
    assert bechi.play(fresh, "d") == "bechi 5,5,5,1/4,1,5,5 9-8 N 9 1 play d - 0-0"


def test_bechi_capture_on_the_movers_own_row():
    # c (2, anti-clockwise): c keeps 1, d (3 -> 4, moved): taken; A 3 stops.
    position = "bechi 5,5,2,3/3,1,5,5 10-9 S 8 1 play d - 0-0"
    assert bechi.play(position, "c") == "bechi 5,5,1,0/3,1,5,5 14-9 N 9 1 play cd - 0-0"


def test_bechi_even_chain_forward_crosses_rows_then_opponent_passes():
    # b (3, clockwise): b keeps 1, a, D (1 -> 2, moved). Chain clockwise: C 4, B 2, A 2, d 4
    # taken (none of them moved); c 5 stops. 14 taken.
    position = "bechi 0,3,5,4/2,2,4,1 14-13 S 12 1 play D - 0-0"
    after = bechi.play(position, "b")
    assert after == "bechi 1,1,5,0/0,0,0,0 28-13 N 13 1 play bD - 0-0"
    # North has nothing to sow, South has c: North passes.
    assert bechi.legal_moves(after) == ["pass"]
    after_pass = bechi.play(after, "pass")
    assert after_pass == "bechi 1,1,5,0/0,0,0,0 28-13 S 14 1 play bD - 0-0"
    assert bechi.legal_moves(after_pass) == ["c"]


def test_bechi_empty_hole_breaks_the_chain_by_default():
    # d (2, anti-clockwise): d keeps 1, A (1 -> 2, moved): taken; B is empty: stop.
    position = "bechi 6,6,6,2/1,0,2,3 11-11 S 20 1 play A - 0-0"
    assert bechi.play(position, "d") == "bechi 6,6,6,1/0,0,2,3 13-11 N 21 1 play dA - 0-0"


def test_bechi_empty_hole_does_not_break_the_chain_when_option_off():
    variant = "bechi(empty_breaks_chain=false)"
    # Same move: A 2 taken, B 0 walked over, C 2 taken, D 3 stops.
    position = f"{variant} 6,6,6,2/1,0,2,3 11-11 S 20 1 play A - 0-0"
    assert bechi.play(position, "d") == f"{variant} 6,6,6,1/0,0,0,3 15-11 N 21 1 play dA - 0-0"


def test_bechi_chain_of_empties_stops_after_one_round():
    variant = "bechi(empty_breaks_chain=false)"
    # d (9): every hole ends at 2, last in d (moved): the chain takes all 16 and stops on
    # reaching d again; the board is empty, so the round ends.
    position = f"{variant} 1,1,1,9/1,1,1,1 16-16 S 40 1 play d - 0-0"
    assert bechi.play(position, "d") == f"{variant} 0,0,0,0/0,0,0,0 32-16 S 41 1 fill-S - - 0-0"


def test_bechi_round_end_refill_choices_and_carry():
    position = "bechi 1,1,5,0/0,0,0,0 28-13 S 14 1 play bD - 0-0"
    # c (5, anti-clockwise): c keeps 1, d, A, B, C (empty: no capture). Nobody can sow now:
    # South takes 4, North 3.
    ended = bechi.play(position, "c")
    assert ended == "bechi 0,0,0,0/0,0,0,0 32-16 S 15 1 fill-S - - 0-0"
    assert bechi.outcome(ended) is None
    # South has 32 >= 24: one forced fill, still a move.
    assert bechi.legal_moves(ended) == ["fill:abcd"]
    south_filled = bechi.play(ended, "fill:abcd")
    assert south_filled == "bechi 6,6,6,6/0,0,0,0 0-16 N 16 1 fill-N - - 8-0"
    # North has 16: two holes of its choice, 4 put aside.
    assert bechi.legal_moves(south_filled) == [
        "fill:AB",
        "fill:AC",
        "fill:AD",
        "fill:BC",
        "fill:BD",
        "fill:CD",
    ]
    with pytest.raises(ValueError):
        bechi.play(south_filled, "fill:A")
    # Round 2 starts with North; B and C are out of play.
    assert bechi.play(south_filled, "fill:AD") == "bechi 6,6,6,6/6,0,0,6 0-0 N 17 2 play - BC 8-4"


def test_bechi_refill_uses_the_carry():
    # South: 10 + 3 carried = 13: two holes, 1 put aside.
    position = "bechi 0,0,0,0/0,0,0,0 10-30 S 50 3 fill-S - - 3-5"
    assert len(bechi.legal_moves(position)) == 6
    after = bechi.play(position, "fill:bd")
    assert after == "bechi 0,6,0,6/0,0,0,0 0-30 N 51 3 fill-N - ac 1-5"
    # North: 30 + 5 = 35: all four, 11 aside. Round 4 starts with North.
    assert bechi.play(after, "fill:ABCD") == "bechi 0,6,0,6/6,6,6,6 0-0 N 52 4 play - ac 1-11"


def test_bechi_holes_out_of_play_are_skipped_by_sowing_and_chain():
    # d (3, anti-clockwise): d keeps 1; A, B out of play; C 6 -> 7; D 5 -> 6 (moved): taken;
    # the chain goes on to a 5 (odd): stop.
    position = "bechi 5,6,6,3/0,0,6,5 2-3 S 30 2 play cD AB 6-6"
    assert bechi.play(position, "d") == "bechi 5,6,6,1/0,0,7,0 8-3 N 31 2 play cdD AB 6-6"
    # c (2): c keeps 1, d 3 -> 4 (moved): taken; the chain skips A and B (out of play) and
    # takes C 2; D 5 stops.
    position = "bechi 6,6,2,3/0,0,2,5 4-4 S 30 2 play d AB 8-8"
    assert bechi.play(position, "c") == "bechi 6,6,1,0/0,0,0,5 10-4 N 31 2 play cd AB 8-8"


def test_bechi_empty_holes_in_play_option_sows_into_them():
    variant = "bechi(empty_holes_in_play=true)"
    # Same first move: A and B are in play: d keeps 1, A 1, B 1 (empty before: no capture).
    position = f"{variant} 5,6,6,3/0,0,6,5 2-3 S 30 2 play cD - 6-6"
    assert bechi.play(position, "d") == f"{variant} 5,6,6,1/1,1,6,5 2-3 N 31 2 play cdD - 6-6"
    # The refill leaves the unfilled holes in play: off stays "-".
    fill = f"{variant} 6,6,6,6/0,0,0,0 0-16 N 16 1 fill-N - - 8-0"
    assert bechi.play(fill, "fill:AD") == f"{variant} 6,6,6,6/6,0,0,6 0-0 N 17 2 play - - 8-4"


def test_bechi_match_lost_when_a_player_cannot_fill_a_hole():
    # d (2): d keeps 1, A 1 (empty before). Nobody can sow: South takes 1, North 2.
    # North has 4 + 1 carried = 5 < 6: the match is over.
    position = "bechi 0,0,0,2/0,0,0,1 30-2 S 60 3 play - - 12-1"
    over = bechi.play(position, "d")
    assert over == "bechi 0,0,0,0/0,0,0,0 31-4 S 61 3 over - - 12-1"
    assert bechi.legal_moves(over) == []
    assert bechi.outcome(over) == {"winner": "S", "score": (43, 5), "reason": "cannot-fill"}


def test_bechi_turn_limit():
    position = "bechi(max_turns=10) 6,6,6,6/6,6,6,6 0-0 S 10 1 play - - 0-0"
    assert bechi.legal_moves(position) == []
    assert bechi.outcome(position) == {"winner": None, "score": (24, 24), "reason": "turn-limit"}
    # In a fill phase: store + own row + carry.
    position = "bechi(max_turns=16) 6,6,6,6/0,0,0,0 0-16 N 16 1 fill-N - - 8-0"
    assert bechi.outcome(position) == {"winner": "S", "score": (32, 16), "reason": "turn-limit"}


def test_bechi_parse_errors():
    for bad in (
        "bechi 6,6,6,6/6,6,6,6 0-0 S 0 1 play - - 0",  # carry
        "bechi 6,6,6,6/6,6,6,6 0-0 S 0 1 sow - - 0-0",  # phase
        "bechi 6,6,6,6/6,6,6,6 0-0 S 0 1 play - a 0-0",  # off hole with counters
        "bechi 6,6,6,6/6,6,6,6 0-0 S 0 1 play ba - 0-0",  # moved not in board order
        "bechi 0,0,0,0/0,0,0,0 0-0 N 0 1 fill-S - - 24-24",  # side vs phase
        "bechi 6,6,6/6,6,6,6 0-0 S 0 1 play - - 0-0",
    ):
        with pytest.raises(ValueError):
            bechi.legal_moves(bad)
