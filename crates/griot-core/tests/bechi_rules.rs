//! One test per rule of Béchi (Pankhurst 1971, as docs/rules/bechi.md reads it) on hand-built
//! positions. The expected positions were worked out by hand (the same ones the Python reference's
//! tests use, plus a few more) and agree with `tests/reference/bechi.py`.

mod common;

use common::{after, after_with_events, illegal, moves, outcome, parse_error};
use griot_core::registry::game;
use griot_core::{CaptureKind, EndReason, Event, Player};

#[test]
fn start_positions_and_variant_strings() {
    let g = game("bechi").unwrap();
    assert_eq!(g.format_position(&g.start()).unwrap(), "bechi 6,6,6,6/6,6,6,6 0-0 S 0 1 play - - 0-0");
    let g = game("bechi(holes=3,empty_breaks_chain=false,empty_holes_in_play=false)").unwrap();
    assert_eq!(g.variant().to_string(), "bechi(empty_breaks_chain=false,holes=3)");
    assert_eq!(
        g.format_position(&g.start()).unwrap(),
        "bechi(empty_breaks_chain=false,holes=3) 6,6,6/6,6,6 0-0 S 0 1 play - - 0-0"
    );
    for bad in ["bechi(holes=5)", "bechi(empty_breaks_chain=yes)", "bechi(seeds=6)"] {
        assert!(game(bad).is_err(), "{bad}");
    }
    let err = game("bechi(holes=6)").unwrap_err().to_string();
    assert!(err.contains("holes") && err.contains("3, 4"), "{err}");
}

#[test]
fn direction_by_half_of_the_row_for_south() {
    let start = "bechi 6,6,6,6/6,6,6,6 0-0 S 0 1 play - - 0-0";
    assert_eq!(moves(start), ["a", "b", "c", "d"]);
    // a (left half, clockwise): a keeps 1, then D, C, B, A, d.
    assert_eq!(after(start, "a"), "bechi 1,6,6,7/7,7,7,7 0-0 N 1 1 play a - 0-0");
    assert_eq!(after(start, "b"), "bechi 7,1,6,6/7,7,7,7 0-0 N 1 1 play b - 0-0");
    // d (right half, anti-clockwise): d keeps 1, then A, B, C, D, a.
    assert_eq!(after(start, "d"), "bechi 7,6,6,1/7,7,7,7 0-0 N 1 1 play d - 0-0");
    assert_eq!(illegal(start, "a:ccw"), "wrong_direction");
    assert_eq!(illegal(start, "d:cw"), "wrong_direction");
}

#[test]
fn direction_by_half_of_the_row_for_north() {
    let position = "bechi 7,6,6,1/7,7,7,7 0-0 N 1 1 play d - 0-0";
    // A (North's left half, clockwise): d, c, b, a, D, C. C 8 has not moved: no capture.
    assert_eq!(after(position, "A"), "bechi 8,7,7,2/1,7,8,8 0-0 S 2 1 play dA - 0-0");
    assert_eq!(after(position, "D"), "bechi 8,7,7,2/8,8,7,1 0-0 S 2 1 play dD - 0-0");
}

#[test]
fn the_centre_hole_of_the_2x3_board_is_two_moves() {
    let position = "bechi(holes=3) 2,3,1/1,2,3 12-12 S 6 1 play aA - 0-0";
    assert_eq!(moves(position), ["a", "b:cw", "b:ccw"]);
    let g = game("bechi(holes=3)").unwrap();
    let p = g.parse_body("2,3,1/1,2,3 12-12 S 6 1 play aA - 0-0").unwrap();
    assert!(g.parse_move(&p, "b").is_err());
    let after_cw = after(position, "b:cw");
    assert_eq!(after_cw, "bechi(holes=3) 3,1,1/1,2,4 12-12 N 7 1 play abA - 0-0");
    // b:ccw: c, A. A (1 -> 2) has moved: take it, then B 2; C 3 stops.
    assert_eq!(after(position, "b:ccw"), "bechi(holes=3) 2,1,2/0,0,3 16-12 N 7 1 play abA - 0-0");
    assert_eq!(moves(&after_cw), ["B:cw", "B:ccw", "C"]);
}

#[test]
fn first_counter_back_into_the_origin_and_the_origin_not_skipped() {
    // d (9): d keeps 1, A, B, C, D, a, b, c, d (1 -> 2, moved): take 2; A 1 stops. Nobody can
    // sow: the round ends, South 20 + 2 + 3, North 19 + 4.
    assert_eq!(
        after("bechi 0,0,0,9/0,0,0,0 20-19 S 10 1 play d - 0-0", "d"),
        "bechi 0,0,0,0/0,0,0,0 25-23 S 11 1 fill-S - - 0-0"
    );
}

#[test]
fn holes_of_fewer_than_two_cannot_be_played() {
    let position = "bechi 1,0,2,1/6,6,6,6 10-10 S 4 1 play - - 0-0";
    assert_eq!(moves(position), ["c"]);
    assert_eq!(illegal(position, "a"), "too_few_seeds");
    assert_eq!(illegal(position, "b"), "too_few_seeds");
    assert_eq!(illegal(position, "A"), "not_own_hole");
    assert_eq!(illegal(position, "pass"), "cannot_pass");
    assert_eq!(illegal(position, "fill:abcd"), "wrong_phase");
}

#[test]
fn capture_only_on_a_hole_already_moved() {
    assert_eq!(
        after("bechi 5,5,5,2/3,1,5,5 9-8 S 8 1 play A - 0-0", "d"),
        "bechi 5,5,5,1/0,1,5,5 13-8 N 9 1 play dA - 0-0"
    );
    assert_eq!(
        after("bechi 5,5,5,2/3,1,5,5 9-8 S 8 1 play - - 0-0", "d"),
        "bechi 5,5,5,1/4,1,5,5 9-8 N 9 1 play d - 0-0"
    );
}

#[test]
fn the_turns_own_origin_is_not_yet_moved() {
    // d (9) comes back round into d (1 -> 2), but d had not moved before this turn: no capture.
    // North, all singletons, must pass.
    let next = after("bechi 0,0,0,9/0,0,0,0 20-19 S 10 1 play - - 0-0", "d");
    assert_eq!(next, "bechi 1,1,1,2/1,1,1,1 20-19 N 11 1 play d - 0-0");
    assert_eq!(moves(&next), ["pass"]);
}

#[test]
fn capture_on_the_movers_own_row() {
    assert_eq!(
        after("bechi 5,5,2,3/3,1,5,5 10-9 S 8 1 play d - 0-0", "c"),
        "bechi 5,5,1,0/3,1,5,5 14-9 N 9 1 play cd - 0-0"
    );
}

#[test]
fn even_chain_runs_forward_across_rows_then_the_opponent_passes() {
    let position = "bechi 0,3,5,4/2,2,4,1 14-13 S 12 1 play D - 0-0";
    let (next, events) = after_with_events(position, "b");
    assert_eq!(next, "bechi 1,1,5,0/0,0,0,0 28-13 N 13 1 play bD - 0-0");
    let kinds: Vec<CaptureKind> = events
        .iter()
        .filter_map(|e| match e {
            Event::Capture { kind, .. } => Some(*kind),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        [CaptureKind::Final, CaptureKind::Chain, CaptureKind::Chain, CaptureKind::Chain, CaptureKind::Chain]
    );
    assert_eq!(moves(&next), ["pass"]);
    assert_eq!(illegal(&next, "A"), "must_pass");
    let (passed, events) = after_with_events(&next, "pass");
    assert_eq!(passed, "bechi 1,1,5,0/0,0,0,0 28-13 S 14 1 play bD - 0-0");
    assert_eq!(events, [Event::Pass { player: Player::North }]);
    assert_eq!(moves(&passed), ["c"]);
}

#[test]
fn an_empty_hole_breaks_the_chain_by_default() {
    assert_eq!(
        after("bechi 6,6,6,2/1,0,2,3 11-11 S 20 1 play A - 0-0", "d"),
        "bechi 6,6,6,1/0,0,2,3 13-11 N 21 1 play dA - 0-0"
    );
}

#[test]
fn an_empty_hole_does_not_break_the_chain_with_the_option_off() {
    let v = "bechi(empty_breaks_chain=false)";
    assert_eq!(
        after(&format!("{v} 6,6,6,2/1,0,2,3 11-11 S 20 1 play A - 0-0"), "d"),
        format!("{v} 6,6,6,1/0,0,0,3 15-11 N 21 1 play dA - 0-0")
    );
    // Every hole ends at 2 and the chain stops on coming back round to d.
    assert_eq!(
        after(&format!("{v} 1,1,1,9/1,1,1,1 16-16 S 40 1 play d - 0-0"), "d"),
        format!("{v} 0,0,0,0/0,0,0,0 32-16 S 41 1 fill-S - - 0-0")
    );
}

#[test]
fn the_round_ends_when_neither_can_sow_and_each_takes_their_row() {
    let (ended, events) = after_with_events("bechi 1,1,5,0/0,0,0,0 28-13 S 14 1 play bD - 0-0", "c");
    assert_eq!(ended, "bechi 0,0,0,0/0,0,0,0 32-16 S 15 1 fill-S - - 0-0");
    assert!(events.contains(&Event::Note { name: "round_end", player: None }));
    assert!(outcome(&ended).is_none());
    assert_eq!(illegal(&ended, "a"), "wrong_phase");
    assert_eq!(illegal(&ended, "pass"), "wrong_phase");
}

#[test]
fn refill_choices_carry_and_alternating_start() {
    let ended = "bechi 0,0,0,0/0,0,0,0 32-16 S 15 1 fill-S - - 0-0";
    // A forced refill is still a move.
    assert_eq!(moves(ended), ["fill:abcd"]);
    let (south_filled, events) = after_with_events(ended, "fill:abcd");
    assert_eq!(south_filled, "bechi 6,6,6,6/0,0,0,0 0-16 N 16 1 fill-N - - 8-0");
    assert_eq!(events.iter().filter(|e| matches!(e, Event::Fill { seeds: 6, .. })).count(), 4);
    assert_eq!(moves(&south_filled), ["fill:AB", "fill:AC", "fill:AD", "fill:BC", "fill:BD", "fill:CD"]);
    assert_eq!(illegal(&south_filled, "fill:A"), "bad_fill");
    assert_eq!(illegal(&south_filled, "fill:ABC"), "bad_fill");
    assert_eq!(illegal(&south_filled, "fill:ab"), "not_own_hole");
    // Round 2 starts with North; B and C are out of play.
    let (round2, events) = after_with_events(&south_filled, "fill:AD");
    assert_eq!(round2, "bechi 6,6,6,6/6,0,0,6 0-0 N 17 2 play - BC 8-4");
    assert!(events.contains(&Event::Note { name: "round_start", player: Some(Player::North) }));
    // Any order of labels names the same fill.
    assert_eq!(after(&south_filled, "fill:DA"), round2);
}

#[test]
fn refill_uses_the_carry_and_round_parity_picks_the_starter() {
    let position = "bechi 0,0,0,0/0,0,0,0 10-30 S 50 3 fill-S - - 3-5";
    assert_eq!(moves(position).len(), 6);
    let next = after(position, "fill:bd");
    assert_eq!(next, "bechi 0,6,0,6/0,0,0,0 0-30 N 51 3 fill-N - ac 1-5");
    assert_eq!(after(&next, "fill:ABCD"), "bechi 0,6,0,6/6,6,6,6 0-0 N 52 4 play - ac 1-11");
    // Round 5 starts with South.
    assert_eq!(
        after("bechi 0,6,0,6/0,0,0,0 0-30 N 71 4 fill-N - ac 1-5", "fill:ABCD"),
        "bechi 0,6,0,6/6,6,6,6 0-0 S 72 5 play - ac 1-11"
    );
}

#[test]
fn holes_out_of_play_are_skipped_by_sowing_and_chain_and_cannot_be_sown() {
    assert_eq!(
        after("bechi 5,6,6,3/0,0,6,5 2-3 S 30 2 play cD AB 6-6", "d"),
        "bechi 5,6,6,1/0,0,7,0 8-3 N 31 2 play cdD AB 6-6"
    );
    assert_eq!(
        after("bechi 6,6,2,3/0,0,2,5 4-4 S 30 2 play d AB 8-8", "c"),
        "bechi 6,6,1,0/0,0,0,5 10-4 N 31 2 play cd AB 8-8"
    );
    assert_eq!(illegal("bechi 0,6,2,3/0,0,2,5 4-4 S 30 2 play d aAB 14-8", "a"), "hole_out_of_play");
}

#[test]
fn empty_holes_stay_in_play_with_the_option() {
    let v = "bechi(empty_holes_in_play=true)";
    assert_eq!(
        after(&format!("{v} 5,6,6,3/0,0,6,5 2-3 S 30 2 play cD - 6-6"), "d"),
        format!("{v} 5,6,6,1/1,1,6,5 2-3 N 31 2 play cdD - 6-6")
    );
    assert_eq!(
        after(&format!("{v} 6,6,6,6/0,0,0,0 0-16 N 16 1 fill-N - - 8-0"), "fill:AD"),
        format!("{v} 6,6,6,6/6,0,0,6 0-0 N 17 2 play - - 8-4")
    );
}

#[test]
fn the_match_is_lost_by_the_player_who_cannot_fill_a_hole() {
    let (over, events) = after_with_events("bechi 0,0,0,2/0,0,0,1 30-2 S 60 3 play - - 12-1", "d");
    assert_eq!(over, "bechi 0,0,0,0/0,0,0,0 31-4 S 61 3 over - - 12-1");
    assert!(events.contains(&Event::Note { name: "match_lost", player: Some(Player::North) }));
    assert!(moves(&over).is_empty());
    let o = outcome(&over).unwrap();
    assert_eq!((o.winner, o.scores, o.reason), (Some(Player::South), [43, 5], EndReason::MatchLost));
    assert_eq!(illegal(&over, "fill:abcd"), "game_over");
}

#[test]
fn turn_limit_counts_store_row_and_carry() {
    let position = "bechi(max_turns=10) 6,6,6,6/6,6,6,6 0-0 S 10 1 play - - 0-0";
    assert!(moves(position).is_empty());
    let o = outcome(position).unwrap();
    assert_eq!((o.winner, o.scores, o.reason), (None, [24, 24], EndReason::TurnLimit));
    let o = outcome("bechi(max_turns=16) 6,6,6,6/0,0,0,0 0-16 N 16 1 fill-N - - 8-0").unwrap();
    assert_eq!((o.winner, o.scores, o.reason), (Some(Player::South), [32, 16], EndReason::TurnLimit));
    // The match's own end beats the limit.
    let o = outcome("bechi(max_turns=61) 0,0,0,0/0,0,0,0 31-4 S 61 3 over - - 12-1").unwrap();
    assert_eq!(o.reason, EndReason::MatchLost);
}

#[test]
fn parse_errors_name_the_field() {
    for (bad, field) in [
        ("bechi 6,6,6,6/6,6,6,6 0-0 S 0 1 play - - 0", "field 10 (carry)"),
        ("bechi 6,6,6,6/6,6,6,6 0-0 S 0 1 sow - - 0-0", "field 7 (phase)"),
        ("bechi 6,6,6,6/6,6,6,6 0-0 S 0 1 play - a 0-0", "field 9 (off)"),
        ("bechi 6,6,6,6/6,6,6,6 0-0 S 0 1 play ba - 0-0", "field 8 (moved)"),
        ("bechi 6,6,6,6/6,6,6,6 0-0 S 0 1 play ax - 0-0", "field 8 (moved)"),
        ("bechi 0,0,0,0/0,0,0,0 0-0 N 0 1 fill-S - - 24-24", "field 4 (side)"),
        ("bechi 6,6,6/6,6,6,6 0-0 S 0 1 play - - 0-0", "field 2 (board)"),
        ("bechi 6,6,6,6/6,6,6,6 0-0 S 0 0 play - - 0-0", "field 6 (round)"),
        ("bechi 6,6,6,6/6,6,6,6 0-0 S x 1 play - - 0-0", "field 5 (turns)"),
        ("bechi 1,1,1,1/1,1,1,1 20-20 S 9 1 play - - 0-0", "field 7 (phase)"),
        ("bechi 0,0,0,0/0,0,0,0 20-25 S 9 1 over - - 0-3", "field 7 (phase)"),
        ("bechi(empty_holes_in_play=true) 6,6,6,0/6,6,6,6 0-0 S 0 1 play - d 6-0", "field 9 (off)"),
    ] {
        let err = parse_error(bad);
        assert!(err.contains(field), "{bad}: {err}");
    }
}

#[test]
fn notation_round_trips_through_a_match() {
    let g = game("bechi(holes=3)").unwrap();
    let mut pos = g.start();
    for _ in 0..400 {
        let text = g.format_position(&pos).unwrap();
        let body = text.split_once(' ').unwrap().1;
        assert_eq!(g.parse_body(body).unwrap(), pos, "{text}");
        let moves = g.legal_moves(&pos).unwrap();
        let Some(mv) = moves.first() else { break };
        let written = g.format_move(&pos, mv).unwrap();
        assert_eq!(&g.parse_move(&pos, &written).unwrap(), mv);
        pos = g.play(&pos, mv).unwrap().0;
    }
}

#[test]
fn geometry_for_frontends() {
    let geo = game("bechi").unwrap().geometry();
    assert_eq!((geo.rows, geo.cols, geo.stores), (2, 4, true));
    let labels: Vec<(&str, u8, u8)> = geo.cells.iter().map(|c| (c.label.as_str(), c.row, c.col)).collect();
    assert_eq!(labels[0], ("a", 0, 0));
    assert_eq!(labels[4], ("A", 1, 3));
    assert_eq!(labels[7], ("D", 1, 0));
}
