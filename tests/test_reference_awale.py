"""Hand-worked checks of the pure-Python Awale-collection reference (tests/reference/awale.py).

Every expected value below was worked out by hand from the rule texts (the Guillions' Awale rule
collection, as docs/rules/awale-collection.md reads it) and docs/NOTATION.md; the comments show
the working.
Board reminder: South a..f left to right, North A..F continuing counter-clockwise;
hole d is opposite C, e opposite B, f opposite A.
"""

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # repo root, for `tests.`

from tests.reference import awale as A


def res(position, move):
    return A.play(position, move)


# --- notation --------------------------------------------------------------------------


def test_variants_and_start_positions():
    assert len(A.VARIANTS) == 17 and len(set(A.VARIANTS)) == 17
    assert A.start("abapa") == "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"
    assert A.start("abapa(seeds=3,holes=4)") == "abapa(holes=4,seeds=3) 3,3,3,3/3,3,3,3 0-0 S 0 -"
    assert A.start("abapa(holes=6,max_turns=2000,seeds=4)") == "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"
    assert A.start("adji-boto") == "adji-boto 8,8,8,8,8,8/8,8,8,8,8,8 0-0 S 0 -"
    assert A.start("songo-duala").startswith("songo-duala 8,8,8,8,8,8/")
    assert A.start("halusa").startswith("halusa 6,6,6,6,6,6/")
    assert A.start("ot-tjin").startswith("ot-tjin 3,3,3,3,3,3/")
    assert A.start("vai-lung-thlan").startswith("vai-lung-thlan 5,5,5,5,5,5/")
    assert A.start("oware(seeds=4)") == "oware 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"
    assert A.legal_moves(A.start("awale")) == ["a", "b", "c", "d", "e", "f"]
    with pytest.raises(ValueError):
        A.play(A.start("awale"), "A")  # not South's hole


# --- abapa -----------------------------------------------------------------------------


def test_abapa_grand_slam_captures_nothing():
    # f(2) -> A 1->2, B 1->2: B and A would be taken, leaving North nothing -> no capture.
    p = "abapa 0,0,0,0,0,2/1,1,0,0,0,0 0-0 S 0 -"
    assert A.legal_moves(p) == ["f"]
    assert res(p, "f") == "abapa 0,0,0,0,0,0/2,2,0,0,0,0 0-0 N 1 -"
    # Same with a seed left on F: B(2) and A(2) are captured.
    p = "abapa 0,0,0,0,0,2/1,1,0,0,0,1 0-0 S 0 -"
    assert res(p, "f") == "abapa 0,0,0,0,0,0/0,0,0,0,0,1 4-0 N 1 -"


def test_abapa_must_feed_and_store_over_24():
    # North is empty: a (sows b) does not feed, f (sows A) does.
    assert A.legal_moves("abapa 1,0,0,0,0,1/0,0,0,0,0,0 23-23 S 9 -") == ["f"]
    p = "abapa 1,0,0,0,0,0/0,0,0,0,0,1 25-21 S 10 -"
    assert A.legal_moves(p) == []
    assert A.outcome(p) == {"winner": "S", "score": (26, 22), "reason": "store-over"}


def test_awale_and_kale_on_the_songo_grand_slam_position():
    # f(3) -> A 1->2, B 2->3, C 1->2 (last).
    # Awale (2,3): C, B, A all match -> would take all of North -> nothing captured.
    assert res("awale 0,0,0,0,0,3/1,2,1,0,0,0 0-0 S 0 -", "f") == "awale 0,0,0,0,0,0/2,3,2,0,0,0 0-0 N 1 -"
    # Kale (2,4): C(2) taken, B(3) breaks the chain.
    assert res("kale 0,0,0,0,0,3/1,2,1,0,0,0 0-0 S 0 -", "f") == "kale 0,0,0,0,0,0/2,3,0,0,0,0 2-0 N 1 -"


# --- Songo Duala -----------------------------------------------------------------------


def test_songo_duala_grand_slam_spares_only_the_last_hole():
    # f(3) -> A 2, B 3, C 2 (last): C, B, A match 2..4; taking them all leaves North
    # nothing, so only the last hole C is spared; A and B (5 seeds) are captured.
    p = "songo-duala 0,0,0,0,0,3/1,2,1,0,0,0 0-0 S 0 -"
    assert res(p, "f") == "songo-duala 0,0,0,0,0,0/0,0,2,0,0,0 5-0 N 1 -"


def test_songo_duala_chain_stops_at_the_row_boundary():
    # e(3) -> f 1->2, A 1->2, B 1->2 (last, any territory): B, A taken; f also holds 2
    # but the chain may not cross into South's row.
    p = "songo-duala 0,0,0,0,3,1/1,1,0,0,0,5 0-0 S 0 -"
    assert res(p, "e") == "songo-duala 0,0,0,0,0,2/0,0,0,0,0,5 4-0 N 1 -"


# --- 2-4 -------------------------------------------------------------------------------


def test_2_4_leave_one_multiple_sowing_and_chain_across_rows():
    # c(3): grab 2, leave 1; d 0->1, e 2->3 (last, 3 is not an end value).
    # lap 2 from e(3): grab 2, leave 1; f 1->2, A 1->2 (last, 2 ends).
    # capture A(2); chain back: f(2) yes (rows may be crossed), e(1) = lap origin, no.
    p = "2-4 2,0,3,0,2,1/1,0,0,0,0,0 0-0 S 0 -"
    assert A.legal_moves(p) == ["a", "c", "e"]
    q = res(p, "c")
    assert q == "2-4 2,0,1,1,1,0/0,0,0,0,0,0 4-0 N 1 -"
    # North cannot play (no hole with 2), South can (a): North misses the turn.
    assert A.outcome(q) is None
    assert A.legal_moves(q) == ["pass"]
    assert res(q, "pass") == "2-4 2,0,1,1,1,0/0,0,0,0,0,0 4-0 S 2 -"


def test_2_4_none_can_play_leaves_single_seeds_uncounted():
    p = "2-4 0,0,3,0,2,1/1,0,0,0,0,0 0-0 S 0 -"
    q = res(p, "c")
    assert q == "2-4 0,0,1,1,1,0/0,0,0,0,0,0 4-0 N 1 -"
    assert A.legal_moves(q) == []
    assert A.outcome(q) == {"winner": "S", "score": (4, 0), "reason": "none-can-play"}


# --- Adji-Boto -------------------------------------------------------------------------


def test_adji_boto_leave_one_skip_origin_and_capture():
    # f(2): grab 1 -> A 0->1, a 1 in North's row -> captured.
    assert (
        res("adji-boto 0,0,0,0,0,2/0,4,0,0,0,0 0-0 S 0 -", "f")
        == "adji-boto 0,0,0,0,0,1/0,4,0,0,0,0 1-0 N 1 -"
    )
    # a(13): grab 12, leave 1; b..f, A..F (11), skip a, b (12th, last, own row).
    q = res("adji-boto 13,0,0,0,0,0/0,0,0,0,0,0 0-0 S 0 -", "a")
    assert q == "adji-boto 1,2,1,1,1,1/1,1,1,1,1,1 0-0 N 1 -"
    # North has no hole with 2 seeds: stuck; South (b=2) is not, and takes all 13 left.
    assert A.outcome(q) == {"winner": "S", "score": (13, 0), "reason": "stuck"}


def test_adji_boto_remaining_seeds():
    # South stuck, North could play F: the player not stuck (North) takes all 4.
    assert A.outcome("adji-boto 1,1,0,0,0,0/0,0,0,0,0,2 40-52 S 60 -") == {
        "winner": "N",
        "score": (40, 56),
        "reason": "stuck",
    }
    # Nobody can play: "otherwise" -> the player who did the last move (North) takes 3.
    assert A.outcome("adji-boto 1,1,0,0,0,0/0,0,0,0,0,1 41-52 S 60 -") == {
        "winner": "N",
        "score": (41, 55),
        "reason": "none-can-play",
    }


# --- Adjito ----------------------------------------------------------------------------


def test_adjito_captures_the_opposite_hole():
    # b(2) -> c 1, d 1 (last, own row): take the hole opposite d, i.e. C (3).
    p = "adjito 0,2,0,0,0,0/1,1,3,1,0,0 0-0 S 0 -"
    assert res(p, "b") == "adjito 0,0,1,1,0,0/1,1,0,1,0,0 3-0 N 1 -"
    # Taking C would leave North nothing: the capture isn't performed at all.
    p = "adjito 0,2,0,0,0,0/0,0,3,0,0,0 0-0 S 0 -"
    assert res(p, "b") == "adjito 0,0,1,1,0,0/0,0,3,0,0,0 0-0 N 1 -"


# --- Dakar -----------------------------------------------------------------------------


def test_dakar_starving_forbidden_ends_the_game():
    # e(1) would sow into f only, leaving North empty: illegal even though it is the
    # only move, so South is stuck (and North has nothing either).
    p = "dakar 0,0,0,0,1,0/0,0,0,0,0,0 24-23 S 40 -"
    assert A.legal_moves(p) == []
    assert A.outcome(p) == {"winner": "S", "score": (25, 23), "reason": "none-can-play"}
    # Awale ("if possible") lets the same move be played.
    assert A.legal_moves("awale 0,0,0,0,1,0/0,0,0,0,0,0 24-23 S 40 -") == ["e"]
    # South to move with an empty row while North could feed: stuck, own rows counted.
    assert A.outcome("dakar 0,0,0,0,0,0/0,0,0,0,0,2 23-23 S 30 -") == {
        "winner": "N",
        "score": (23, 25),
        "reason": "stuck",
    }


def test_dakar_even_capture_and_store_over_24():
    # e(2) -> f 1, A 3->4 (even, North's row): captured, no chain.
    p = "dakar 0,0,0,0,2,0/3,0,0,0,0,1 20-22 S 40 -"
    q = res(p, "e")
    assert q == "dakar 0,0,0,0,0,1/0,0,0,0,0,1 24-22 N 41 -"
    assert A.outcome(q) is None  # 24 is not more than 24
    q = res("dakar 0,0,0,0,2,0/3,0,0,0,0,1 21-21 S 40 -", "e")
    assert A.outcome(q) == {"winner": "S", "score": (26, 22), "reason": "store-over"}


# --- Darra / Oware / Wouri: flow capture ----------------------------------------------


def test_oware_flow_capture_belongs_to_the_row_owner():
    # c(5): d 3->4 (flow, South's row: South takes 4), e 1, f 1, A 3->4 (flow, North's
    # row: North takes 4), B 0->1 (last, 1 ends the multiple sowing, no capture).
    p = "oware 0,0,5,3,0,0/3,0,0,0,0,0 0-0 S 0 -"
    q = res(p, "c")
    assert q == "oware 0,0,0,0,1,1/0,1,0,0,0,0 4-4 N 1 cap=N"
    # 3 seeds left (< 5): game over, they go to the last capturer, North.
    assert A.outcome(q) == {"winner": "N", "score": (4, 7), "reason": "few-seeds"}


def test_darra_flow_capture_and_last_hole_capture():
    # c(5): d 3->4 (South takes 4), e 1, f 1, A 3->4 (North takes 4), B 3->4 (last,
    # "4 in any territory": the mover South takes it).
    p = "darra 0,0,5,3,0,0/3,3,0,0,1,1 0-0 S 0 -"
    q = res(p, "c")
    assert q == "darra 0,0,0,0,1,1/0,0,0,0,1,1 8-4 N 1 cap=S"
    assert A.outcome(q) == {"winner": "S", "score": (12, 4), "reason": "few-seeds"}


def test_wouri_flow_capture_only_on_the_opponent_row_by_the_mover():
    # c(5): d 3->4 (own row: no flow capture), e 1, f 1, A 3->4 (South takes it),
    # B 0->1 (last, ends).
    p = "wouri 0,0,5,3,0,0/3,0,0,0,0,0 0-0 S 0 -"
    q = res(p, "c")
    assert q == "wouri 0,0,0,4,1,1/0,1,0,0,0,0 4-0 N 1 cap=S"
    assert A.outcome(q) is None
    assert A.legal_moves(q) == ["B"]


# --- French Wari / Jodu ----------------------------------------------------------------


def test_french_wari_takes_the_opposite_hole_even_its_own():
    # e(2) -> f 3->4, A 0->1 (last, 1 ends): the hole opposite A is South's own f (4).
    p = "french-wari 0,0,0,0,2,3/0,0,0,0,0,0 0-0 S 0 -"
    assert A.legal_moves(p) == ["e", "f"]
    assert res(p, "e") == "french-wari 0,0,0,0,0,0/1,0,0,0,0,0 4-0 N 1 -"


def test_jodu_takes_reached_and_opposite_hole_then_pass():
    # c(2) -> d 1, e 1 (last, own row): take e (1) and the opposite B (3).
    p = "jodu 0,0,2,0,0,0/0,3,0,0,0,0 0-0 S 0 -"
    q = res(p, "c")
    assert q == "jodu 0,0,0,1,0,0/0,0,0,0,0,0 4-0 N 1 -"
    assert A.legal_moves(q) == ["pass"]


def test_relay_cut_after_1000_laps():
    # 2x1 board, a=3, A=1: every lap sows 3 seeds and ends on a 3; after the even lap
    # 1,000 the board is back to 3/1 and the sowing would go on: cut, flag cycle.
    q = res("french-wari(holes=1) 3/1 0-0 S 0 -", "a")
    assert q == "french-wari(holes=1) 3/1 0-0 N 1 cycle"
    assert A.legal_moves(q) == []
    assert A.outcome(q) == {"winner": "S", "score": (3, 1), "reason": "cycle"}


# --- Halusa ----------------------------------------------------------------------------


def test_halusa_own_row_even_capture_with_chain():
    # a(3) -> b 2, c 2, d 2 (last, even, own row): d, c, b taken; a (origin, 0) stops.
    p = "halusa 3,1,1,1,0,0/0,0,0,0,0,1 0-0 S 0 -"
    q = res(p, "a")
    assert q == "halusa 0,0,0,0,0,0/0,0,0,0,0,1 6-0 N 1 -"
    assert A.legal_moves(q) == ["F"]


def test_halusa_remaining_seeds():
    # South has nothing; North's F feeds South, so North is not stuck and takes all.
    assert A.outcome("halusa 0,0,0,0,0,0/0,0,0,0,0,1 30-41 S 50 -") == {
        "winner": "N",
        "score": (30, 42),
        "reason": "stuck",
    }
    # North's only move (A -> B) would starve South: nobody can play -> own rows.
    assert A.outcome("halusa 0,0,0,0,0,0/2,0,0,0,0,0 30-40 S 50 -") == {
        "winner": "N",
        "score": (30, 42),
        "reason": "none-can-play",
    }


# --- Nyakun / Vai Lung Thlan / Ot-Tjin -------------------------------------------------


def test_nyakun_any_hole_playable():
    assert A.legal_moves("nyakun 0,0,0,0,0,5/0,0,2,0,0,0 10-10 S 5 -") == ["f", "C"]
    assert len(A.legal_moves(A.start("nyakun"))) == 12
    # South sows North's C: D 1, E 1 (last, 1..3): E and D captured by South.
    q = res("nyakun 0,0,0,0,0,0/0,0,2,0,0,0 10-10 S 5 -", "C")
    assert q == "nyakun 0,0,0,0,0,0/0,0,0,0,0,0 12-10 N 6 -"
    assert A.outcome(q) == {"winner": "S", "score": (12, 10), "reason": "none-can-play"}


def test_nyakun_chain_stops_at_the_lap_origin():
    # a(13): b..f, A..F (11), a (12th, origin not skipped) -> 1, b (13th, last) -> 2.
    # Capture b (2); chain back: a (the origin, 1) taken, then the walk stops.
    q = res("nyakun 13,0,0,0,0,0/0,0,0,0,0,0 0-0 S 0 -", "a")
    assert q == "nyakun 0,0,1,1,1,1/1,1,1,1,1,1 3-0 N 1 -"


def test_vai_lung_thlan_chain_crosses_rows_until_board_empty():
    # e(3) -> f 1, A 1, B 1 (last): B, A, f taken; e (origin, 0) stops the chain.
    q = res("vai-lung-thlan 0,0,0,0,3,0/0,0,0,0,0,0 57-0 S 20 -", "e")
    assert q == "vai-lung-thlan 0,0,0,0,0,0/0,0,0,0,0,0 60-0 N 21 -"
    assert A.outcome(q) == {"winner": "S", "score": (60, 0), "reason": "board-empty"}


def test_ot_tjin_remaining_to_last_mover():
    assert A.outcome("ot-tjin 0,0,0,0,0,0/0,0,1,1,0,0 10-24 S 30 -") == {
        "winner": "N",
        "score": (10, 26),
        "reason": "stuck",
    }
    # b(2) -> c 1, d 2->3 (last): 3 ends the sowing and is captured.
    assert (
        res("ot-tjin 0,2,0,2,0,0/1,0,0,0,0,0 0-0 S 0 -", "b") == "ot-tjin 0,0,1,0,0,0/1,0,0,0,0,0 3-0 N 1 -"
    )


def test_turn_limit_counts_own_rows():
    p = "awale(max_turns=10) 1,0,0,0,0,0/0,0,0,0,2,0 20-25 S 10 -"
    assert A.legal_moves(p) == []
    assert A.outcome(p) == {"winner": "N", "score": (21, 27), "reason": "turn-limit"}
