//! One test per rule of Leb Bbut Ahbochen (Climent Tondo 2010, as docs/rules/leb-bbut-ahbochen.md
//! reads it) on hand-built positions. The expected positions were worked out by
//! hand (the same ones the Python reference's tests use) and agree with `tests/reference/leb.py`.

mod common;

use common::{after, after_with_events, illegal, moves, outcome, parse_error};
use griot_core::registry::game;
use griot_core::{EndReason, Event, Player};

const LEB: &str = "leb-bbut-ahbochen";

#[test]
fn every_board_size_starts_with_four_seeds_a_hole() {
    for holes in [2, 4, 6, 8, 10] {
        let g = game(&format!("{LEB}(holes={holes})")).unwrap();
        let row = vec!["4"; holes].join(",");
        let variant = if holes == 6 { LEB.to_string() } else { format!("{LEB}(holes={holes})") };
        let start = g.format_position(&g.start()).unwrap();
        assert_eq!(start, format!("{variant} {row}/{row} 0-0 S 0 -"));
        assert_eq!(moves(&start).len(), holes);
    }
}

#[test]
fn other_board_sizes_are_refused_with_a_clear_error() {
    for holes in [0, 1, 3, 5, 7, 12, 18] {
        let err = game(&format!("{LEB}(holes={holes})")).unwrap_err().to_string();
        assert!(err.contains("holes") && err.contains("2, 4, 6, 8, 10"), "holes={holes}: {err}");
    }
}

#[test]
fn sowing_is_counter_clockwise_and_a_full_lap_does_not_skip_the_origin() {
    assert_eq!(
        after(&format!("{LEB} 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"), "a"),
        format!("{LEB} 0,5,5,5,5,4/4,4,4,4,4,4 0-0 N 1 -")
    );
    // 13 seeds: b..f, A..F, a, b.
    assert_eq!(
        after(&format!("{LEB} 13,0,0,0,0,0/1,1,1,1,1,1 15-14 S 2 -"), "a"),
        format!("{LEB} 1,2,1,1,1,1/2,2,2,2,2,2 15-14 N 3 -")
    );
}

#[test]
fn extra_lap_on_an_opponent_hole_of_six() {
    // f: 1 seed into A (6 -> 7): lift 7, sow B, C, D, E, F, a, b; ends in own b.
    let (next, events) = after_with_events(&format!("{LEB} 2,2,2,2,2,1/6,1,1,1,1,1 13-13 S 10 -"), "f");
    assert_eq!(next, format!("{LEB} 3,3,2,2,2,0/0,2,2,2,2,2 13-13 N 11 -"));
    let laps = events.iter().filter(|e| matches!(e, Event::Lap { .. })).count();
    assert_eq!(laps, 2);
}

#[test]
fn no_extra_lap_on_an_own_hole_of_six_or_an_opponent_hole_of_five() {
    let position = format!("{LEB} 2,0,0,0,1,6/5,1,1,1,1,1 15-14 S 10 -");
    assert_eq!(after(&position, "e"), format!("{LEB} 2,0,0,0,0,7/5,1,1,1,1,1 15-14 N 11 -"));
    assert_eq!(after(&position, "f"), format!("{LEB} 2,0,0,0,1,0/6,0,0,0,0,0 25-14 N 11 -"));
}

#[test]
fn capture_after_the_extra_lap_stops_at_the_emptied_hole() {
    // 2x8. h: A 6 -> 7: lift 7, sow B..H. H 3 -> 4: take H 4, G 2, F 4, E 4; D 3 stops.
    assert_eq!(
        after(&format!("{LEB}(holes=8) 2,2,0,0,0,0,0,1/6,1,3,2,3,3,1,3 20-17 S 0 -"), "h"),
        format!("{LEB}(holes=8) 2,2,0,0,0,0,0,0/0,2,4,3,0,0,0,0 34-17 N 1 -")
    );
}

#[test]
fn backward_chain_stops_at_the_row_boundary() {
    // South e: f, A, B, C. C 2, B 4, A 2 taken; own f (now 2) is not.
    assert_eq!(
        after(&format!("{LEB} 0,3,0,0,4,1/1,3,1,1,0,2 16-16 S 4 -"), "e"),
        format!("{LEB} 0,3,0,0,0,2/0,0,0,1,0,2 24-16 N 5 -")
    );
    // North E: F, a, b, c. c 4, b 4, a 2 taken; North's own F (now 2) is not.
    assert_eq!(
        after(&format!("{LEB} 1,3,3,2,0,0/0,0,0,0,4,1 17-17 N 7 -"), "E"),
        format!("{LEB} 0,0,0,2,0,0/0,0,0,0,0,2 17-27 S 8 -")
    );
}

#[test]
fn chain_stops_at_a_hole_that_is_not_two_or_four() {
    // South f: 3 seeds A (1 -> 2), B (2 -> 3), C (1 -> 2). C taken; B 3 stops: A stays.
    assert_eq!(
        after(&format!("{LEB} 0,0,0,0,2,3/1,2,1,5,5,5 10-14 S 20 -"), "f"),
        format!("{LEB} 0,0,0,0,2,0/2,3,0,5,5,5 12-14 N 21 -")
    );
}

#[test]
fn grand_slam_is_forfeited_and_the_move_stands() {
    let position = format!("{LEB} 2,0,0,0,0,2/1,3,0,0,0,0 20-20 S 12 -");
    assert!(moves(&position).contains(&"f".to_string()));
    let (next, events) = after_with_events(&position, "f");
    assert_eq!(next, format!("{LEB} 2,0,0,0,0,0/2,4,0,0,0,0 20-20 N 13 -"));
    assert!(events.iter().any(|e| matches!(e, Event::CaptureForfeited { .. })));
    // One more North seed: the same capture takes 6 and leaves 1.
    assert_eq!(
        after(&format!("{LEB} 2,0,0,0,0,2/1,3,0,0,0,1 20-19 S 12 -"), "f"),
        format!("{LEB} 2,0,0,0,0,0/0,0,0,0,0,1 26-19 N 13 -")
    );
}

#[test]
fn must_feed_an_empty_opponent() {
    let position = format!("{LEB} 1,0,3,3,0,1/0,0,0,0,0,0 22-18 S 20 -");
    assert_eq!(moves(&position), ["d", "f"]);
    assert_eq!(illegal(&position, "a"), "must_feed");
    assert_eq!(illegal(&position, "b"), "empty_hole");
    assert_eq!(illegal(&position, "A"), "not_own_hole");
    assert_eq!(after(&position, "d"), format!("{LEB} 1,0,3,0,1,2/1,0,0,0,0,0 22-18 N 21 -"));
}

#[test]
fn a_player_who_cannot_feed_is_stuck_and_the_opponent_takes_the_rest() {
    let position = format!("{LEB} 1,1,0,0,0,0/0,0,0,0,0,0 23-23 S 30 -");
    assert!(moves(&position).is_empty());
    let o = outcome(&position).unwrap();
    assert_eq!((o.winner, o.scores), (Some(Player::North), [23, 25]));
    assert_eq!(illegal(&position, "a"), "game_over");
}

#[test]
fn a_player_without_seeds_is_stuck_and_the_opponent_takes_the_rest() {
    let o = outcome(&format!("{LEB} 0,0,0,0,2,3/0,0,0,0,0,0 20-23 N 31 -")).unwrap();
    assert_eq!((o.winner, o.scores), (Some(Player::South), [25, 23]));
}

#[test]
fn a_move_that_leaves_the_opponent_stuck_ends_the_game() {
    // North F into a (3 -> 4): taking a would take every South seed: forfeited.
    let next = after(&format!("{LEB} 3,0,0,0,0,0/0,0,0,0,0,1 22-22 N 40 -"), "F");
    assert_eq!(next, format!("{LEB} 4,0,0,0,0,0/0,0,0,0,0,0 22-22 S 41 -"));
    // South must feed but a (b, c, d, e) cannot reach North: North takes the 4 left.
    assert!(moves(&next).is_empty());
    let o = outcome(&next).unwrap();
    assert_eq!((o.winner, o.scores), (Some(Player::North), [22, 26]));
}

#[test]
fn endless_cycle_gives_each_player_their_own_row() {
    // A relay cut after 1,000 laps sets `cycle`; the game is over and each takes their own row.
    let position = format!("{LEB} 2,2,2,2,2,0/7,1,1,1,1,1 13-13 N 11 cycle");
    assert!(moves(&position).is_empty());
    let o = outcome(&position).unwrap();
    assert_eq!((o.winner, o.scores, o.reason), (Some(Player::North), [23, 25], EndReason::EndlessCycle));
}

#[test]
fn turn_limit_ends_like_an_endless_cycle() {
    let position = format!("{LEB}(max_turns=10) 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 10 -");
    assert!(moves(&position).is_empty());
    let o = outcome(&position).unwrap();
    assert_eq!((o.winner, o.scores, o.reason), (None, [24, 24], EndReason::TurnLimit));
}

#[test]
fn positions_carry_no_last_capturer_flag() {
    // Leb's remaining seeds never go to the last capturer: `cap=` is not part of its positions.
    let err = parse_error(&format!("{LEB} 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 cap=S"));
    assert!(err.contains("field 6 (flags)"), "{err}");
    let next = after(&format!("{LEB} 0,0,0,0,4,1/1,3,1,1,0,2 16-16 S 4 -"), "e");
    assert!(next.ends_with(" -"), "{next}");
}
