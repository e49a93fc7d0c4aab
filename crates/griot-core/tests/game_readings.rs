//! The Béchi and Ikibuguzo options that state other sources' readings (docs/rules/bechi.md and
//! docs/rules/ikibuguzo.md, "Readings"), one test per option on hand-built positions. Every
//! expected position was worked out by hand from those pages; the default reading of the same
//! position is checked alongside, so each test shows what the option changes.

mod common;

use common::{after, illegal, moves, outcome, parse_error};
use griot_core::registry::game;
use griot_core::{EndReason, Player};

fn loop16(holes: &[(&str, u8)]) -> String {
    let mut v = [0u8; 16];
    for (label, n) in holes {
        let k: usize = label[1..].parse().unwrap();
        v[if label.starts_with('o') { k - 1 } else { 16 - k }] = *n;
    }
    v.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",")
}

fn iki(variant: &str, south: &[(&str, u8)], north: &[(&str, u8)], rest: &str) -> String {
    format!("{variant} {}/{} {rest}", loop16(south), loop16(north))
}

fn error_names(variant: &str, option: &str) {
    let e = game(variant).unwrap_err().to_string();
    assert!(e.contains(option), "{variant}: {e}");
}

#[test]
fn options_are_validated_and_the_ludii_reading_is_canonical() {
    error_names("bechi(chain_max=8)", "chain_max");
    error_names("bechi(chain_max=-1)", "chain_max");
    error_names("bechi(first_pass_starts=yes)", "first_pass_starts");
    error_names("bechi(ludii=1)", "ludii");
    for option in [
        "cw_play_captures",
        "cw_relay",
        "cw_resow_once",
        "cw_resow_captures",
        "keep",
        "stop_on_capture_all",
        "ludii",
    ] {
        error_names(&format!("ikibuguzo({option}=2)"), option);
    }
    let canonical = |v: &str| game(v).unwrap().variant().to_string();
    assert_eq!(canonical("bechi(chain_max=6,ludii=true,first_pass_starts=true)"), "bechi(ludii=true)");
    // One game, one canonical string, however it is spelled: the spelling with fewer options.
    assert_eq!(canonical("bechi(chain_max=6,first_pass_starts=true)"), "bechi(ludii=true)");
    assert_eq!(canonical("bechi(ludii=true,chain_max=7)"), "bechi(first_pass_starts=true)");
    assert_eq!(canonical("bechi(ludii=true,first_pass_starts=false)"), "bechi(chain_max=6)");
    assert_eq!(canonical("bechi(ludii=true,chain_max=7,first_pass_starts=false)"), "bechi");
    assert_eq!(canonical("bechi(holes=3,chain_max=6,first_pass_starts=true)"), "bechi(holes=3,ludii=true)");
    assert_eq!(
        canonical("ikibuguzo(cw_play_captures=false,cw_relay=true,cw_resow_once=false,cw_resow_captures=false,keep=false,stop_on_capture_all=false)"),
        canonical("ikibuguzo(ludii=true)")
    );
    assert_eq!(canonical("bechi(chain_max=7,first_pass_starts=false)"), "bechi");
    assert_eq!(canonical("ikibuguzo(ludii=true,keep=false,cw_relay=true)"), "ikibuguzo(ludii=true)");
    assert_eq!(canonical("ikibuguzo(ludii=true,keep=true)"), "ikibuguzo(keep=true,ludii=true)");
    assert_eq!(canonical("ikibuguzo(keep=true,cw_relay=false)"), "ikibuguzo");
    let g = game("bechi(ludii=true)").unwrap();
    assert_eq!(
        g.format_position(&g.start()).unwrap(),
        "bechi(ludii=true) 6,6,6,6/6,6,6,6 0-0 S 0 1 play - - 0-0 -"
    );
}

#[test]
fn bechi_chain_takes_at_most_six_holes_after_the_last_in_ludii_reading() {
    // a (9, moved before, clockwise): a keeps 1, then D C B A d c b a; the last counter makes a 2
    // and every other hole 2. The seed's chain takes a and the seven holes after it; Ludii's takes
    // a, D, C, B, A, d, c and leaves b.
    let body = "9,1,1,1/1,1,1,1 0-0 S 10 1 play a - 8-8";
    assert_eq!(after(&format!("bechi {body}"), "a"), "bechi 0,0,0,0/0,0,0,0 16-0 S 11 1 fill-S - - 8-8");
    assert_eq!(
        after(&format!("bechi(chain_max=6) {body}"), "a"),
        "bechi(chain_max=6) 0,2,0,0/0,0,0,0 14-0 N 11 1 play a - 8-8"
    );
    assert_eq!(moves("bechi(chain_max=6) 0,2,0,0/0,0,0,0 14-0 N 11 1 play a - 8-8"), ["pass"]);
    // chain_max=0: the last hole alone.
    assert_eq!(
        after(&format!("bechi(chain_max=0) {body}"), "a"),
        "bechi(chain_max=0) 0,2,2,2/2,2,2,2 2-0 N 11 1 play a - 8-8"
    );
}

#[test]
fn bechi_next_round_starts_with_the_first_to_pass_unless_that_player_filled_more() {
    // North's C (2) sows C, D: D held nothing, no capture, and neither player can sow: the round
    // ends inside North's turn. South, left without a sowing, is the one who passed first.
    let v = "bechi(first_pass_starts=true)";
    let end = after(&format!("{v} 1,0,0,0/0,0,2,0 20-10 N 30 1 play - - 1-1 -"), "C");
    assert_eq!(end, format!("{v} 0,0,0,0/0,0,0,0 21-12 S 31 1 fill-S - - 1-1 S"));
    let south_filled = after(&end, "fill:abc");
    assert_eq!(south_filled, format!("{v} 6,6,6,0/0,0,0,0 0-12 N 32 1 fill-N - d 4-1 S"));
    // South filled 3, North 2. Played out as Ludii's alternating fills (S, N, S, N, S, then North
    // passes, South passes), South, who passed first, makes the last fill and passes last: North
    // starts round 2.
    assert_eq!(after(&south_filled, "fill:AB"), format!("{v} 6,6,6,0/6,6,0,0 0-0 N 33 2 play - dCD 4-1 -"));
    // The seed's reading alternates: North starts round 2 here too, whoever filled more.
    let seed = after("bechi 1,0,0,0/0,0,2,0 20-10 N 30 1 play - - 1-1", "C");
    let seed = after(&after(&seed, "fill:abc"), "fill:AB");
    assert_eq!(seed, "bechi 6,6,6,0/6,6,0,0 0-0 N 33 2 play - dCD 4-1");
    // North fills more holes (4 against South's 1): S, N, then South passes, N, S passes, N, S
    // passes, N, S passes, N passes: South, who passed first, starts.
    let end = after(&format!("{v} 1,0,0,0/0,0,2,0 4-28 N 30 1 play - - 1-1 -"), "C");
    let next = after(&after(&end, "fill:a"), "fill:ABCD");
    assert_eq!(next, format!("{v} 6,0,0,0/6,6,6,6 0-0 S 33 2 play - bcd 0-7 -"));
    // Equal counts (South 12, North 13 counters: two holes each): S, N, S, N, then South passes
    // first and starts.
    let end = after(&format!("{v} 1,0,0,0/0,0,2,0 10-10 N 30 1 play - - 1-1 -"), "C");
    assert_eq!(end, format!("{v} 0,0,0,0/0,0,0,0 11-12 S 31 1 fill-S - - 1-1 S"));
    let next = after(&after(&end, "fill:bd"), "fill:AD");
    assert_eq!(next, format!("{v} 0,6,0,6/6,0,0,6 0-0 S 33 2 play - acBC 0-1 -"));
    // The Ludii reading on the 2x3 board, holes in play: North's A (3) sows clockwise A, c, b; b held
    // nothing, no capture, and no hole holds two: the round ends, South (left without a sowing)
    // passed first. South takes its row (3), North its A (1). South fills all three holes, North
    // one: South filled more, so North starts.
    let v3 = "bechi(empty_breaks_chain=false,empty_holes_in_play=true,holes=3,ludii=true)";
    let end = after(&format!("{v3} 1,0,0/3,0,0 26-6 N 19 1 play abcABC - 0-0 -"), "A");
    assert_eq!(end, format!("{v3} 0,0,0/0,0,0 29-7 S 20 1 fill-S - - 0-0 S"));
    let next = after(&after(&end, "fill:abc"), "fill:A");
    assert_eq!(next, format!("{v3} 6,6,6/6,0,0 0-0 N 22 2 play - - 11-1 -"));
    // The field is S or N during a refill and - otherwise.
    assert!(parse_error(&format!("{v} 0,0,0,0/0,0,0,0 21-12 S 31 1 fill-S - - 1-1 -")).contains("passed"));
    assert!(parse_error(&format!("{v} 1,0,0,0/0,0,2,0 20-10 N 30 1 play - - 1-1 S")).contains("passed"));
    assert!(parse_error(&format!("{v} 1,0,0,0/0,0,2,0 20-10 N 30 1 play - - 1-1")).contains("10 fields"));
}

#[test]
fn ikibuguzo_clockwise_first_play_need_not_capture() {
    // o1 (2) clockwise sows i1, i2, both empty before: no capture, the turn ends. i2 faces North's
    // i7 and o7, both occupied: Ludii's test of a clockwise play holds, so the reading allows it.
    let south = [("o1", 2), ("i5", 1)];
    let north = [("o3", 3), ("i7", 1), ("o7", 1)];
    assert_eq!(moves(&iki("ikibuguzo", &south, &north, "S 10 0 -")), ["o1"]);
    let v = "ikibuguzo(cw_play_captures=false)";
    let p = iki(v, &south, &north, "S 10 0 -");
    assert_eq!(moves(&p), ["o1", "o1:cw"]);
    assert_eq!(after(&p, "o1:cw"), iki(v, &[("i1", 1), ("i2", 1), ("i5", 1)], &north, "N 11 0 -"));
    // With North's o7 empty, i2 faces an empty hole: no clockwise play, in either reading.
    let north = [("o3", 3), ("i7", 1)];
    assert_eq!(moves(&iki(v, &south, &north, "S 10 0 -")), ["o1"]);
    assert_eq!(illegal(&iki(v, &south, &north, "S 10 0 -"), "o1:cw"), "cw_no_opposition");
    // Ludii's game has no i2:cw here: i2 (2) clockwise ends in i4, facing North's empty i5 and
    // occupied o5 (o1 is empty).
    let p = "ikibuguzo(end_holes_win=false,ludii=true) \
             0,9,1,0,1,3,1,0,2,0,2,0,6,5,2,5/2,1,0,2,1,0,1,18,1,0,0,0,0,0,1,0 S 10 0 -";
    assert!(moves(p).iter().all(|m| !m.ends_with(":cw")), "{:?}", moves(p));
    assert_eq!(illegal(p, "i2:cw"), "cw_no_opposition");
}

#[test]
fn ikibuguzo_relay_from_a_special_hole_may_go_on_clockwise() {
    // i3 (3) sows i2 (1 -> 2), i1, o1 (1 -> 2): o1 is occupied in the outer row, so it relays.
    let south = [("i3", 3), ("o1", 1), ("i2", 1)];
    let north = [("o1", 2), ("o7", 2), ("i7", 1)];
    // The seed's reading: the relay goes anticlockwise, o1 (2) into o2, o3 (empty): the turn ends.
    let seed = iki("ikibuguzo", &south, &north, "S 10 0 -");
    assert_eq!(
        after(&seed, "i3"),
        iki("ikibuguzo", &[("o2", 1), ("o3", 1), ("i1", 1), ("i2", 2)], &north, "N 11 0 -")
    );
    // cw_relay: o1's clockwise lap (i1, i2 now 3, facing North's i7 and o7) captures, so the turn
    // pauses at the relay with both directions offered.
    let v = "ikibuguzo(cw_relay=true)";
    let paused = after(&iki(v, &south, &north, "S 10 0 -"), "i3");
    assert_eq!(
        paused,
        iki(v, &[("o1", 2), ("i1", 1), ("i2", 2)], &north, "S 11 0 choose=o1,laps=1,cw=none,relay")
    );
    assert_eq!(moves(&paused), ["ccw", "cw"]);
    // cw: i1 2, i2 3; North's i7 and o7 (3) go into o1, which is re-sown anticlockwise (one
    // clockwise lap already made): o2, o3, o4 (empty) end the turn.
    assert_eq!(
        after(&paused, "cw"),
        iki(v, &[("o2", 1), ("o3", 1), ("o4", 1), ("i1", 2), ("i2", 3)], &[("o1", 2)], "N 12 0 -")
    );
    assert_eq!(
        after(&paused, "ccw"),
        iki(v, &[("o2", 1), ("o3", 1), ("i1", 1), ("i2", 2)], &north, "N 12 0 -")
    );
}

#[test]
fn ikibuguzo_clockwise_resowing_without_limit() {
    // o1 (8) anticlockwise ends in i8 (1 -> 2), facing North's i1 and o1: 2 into o1. o1 (2)
    // clockwise ends in i2 (1 -> 2), facing North's i7 and o7 (1 + 2): 3 into o1. A turn that began
    // anticlockwise has had its one clockwise lap; without the limit, o1 (3) may go clockwise again
    // (i1, i2, i3 1 -> 2, facing North's i6 and o6).
    let south = [("o1", 8), ("i8", 1), ("i3", 1), ("i2", 1)];
    let north = [("o1", 1), ("i1", 1), ("i7", 1), ("o7", 2), ("i6", 1), ("o6", 1), ("o3", 2)];
    let seed = after(&iki("ikibuguzo", &south, &north, "S 10 0 -"), "o1");
    assert_eq!(moves(&seed), ["ccw", "cw"]);
    let seed = after(&seed, "cw");
    assert!(seed.ends_with(" N 12 0 -"), "{seed}");
    let v = "ikibuguzo(cw_resow_once=false)";
    let free = after(&after(&iki(v, &south, &north, "S 10 0 -"), "o1"), "cw");
    assert!(free.ends_with(" S 12 0 choose=o1,laps=2,cw=some,end=i8"), "{free}");
    assert_eq!(moves(&free), ["ccw", "cw"]);
}

/// The position of docs/rules/ikibuguzo.md's keep example, after `o1:cw` captured 2 into o1.
const KEEP_SOUTH: [(&str, u8); 3] = [("o1", 2), ("i4", 1), ("i2", 1)];
const KEEP_NORTH: [(&str, u8); 5] = [("o3", 3), ("o5", 1), ("o7", 1), ("i7", 1), ("i5", 1)];

#[test]
fn ikibuguzo_clockwise_resowing_need_not_capture() {
    let seed = after(&iki("ikibuguzo", &KEEP_SOUTH, &KEEP_NORTH, "S 10 0 -"), "o1:cw");
    assert_eq!(moves(&seed), ["ccw", "keep+i2:cw"]);
    // o1 (2) clockwise would end in i2, facing the holes just emptied: not in either reading.
    let v = "ikibuguzo(cw_resow_captures=false)";
    let free = after(&iki(v, &KEEP_SOUTH, &KEEP_NORTH, "S 10 0 -"), "o1:cw");
    assert_eq!(moves(&free), ["ccw", "keep+i2:cw"]);
    // o1 (2) clockwise: i1, i2 (1 -> 2), facing North's i7 and o7 (1 + 2): 3 into o1. Re-sown
    // clockwise, o1 (3) ends in i3, empty before (no capture) but facing North's i6 and o6, both
    // occupied: only the reading allows it. The seed's reading re-sows anticlockwise at once:
    // o2, o3, o4.
    let south = [("o1", 2), ("i2", 1)];
    let north = [("o3", 3), ("i7", 1), ("o7", 2), ("i6", 1), ("o6", 1)];
    let rest = [("o3", 3), ("i6", 1), ("o6", 1)];
    assert_eq!(
        after(&iki("ikibuguzo", &south, &north, "S 10 0 -"), "o1:cw"),
        iki("ikibuguzo", &[("o2", 1), ("o3", 1), ("o4", 1), ("i1", 1), ("i2", 2)], &rest, "N 11 0 -")
    );
    let paused = after(&iki(v, &south, &north, "S 10 0 -"), "o1:cw");
    assert_eq!(paused, iki(v, &[("o1", 3), ("i1", 1), ("i2", 2)], &rest, "S 11 0 choose=o1,laps=1,cw=all"));
    assert_eq!(moves(&paused), ["ccw", "cw"]);
    assert_eq!(after(&paused, "cw"), iki(v, &[("i1", 2), ("i2", 3), ("i3", 1)], &rest, "N 12 0 -"));
}

#[test]
fn ikibuguzo_without_keep() {
    // Only ccw is left after the capture into o1, so the turn does not pause: o1 (2) into o2, o3.
    let v = "ikibuguzo(keep=false)";
    let done = after(&iki(v, &KEEP_SOUTH, &KEEP_NORTH, "S 10 0 -"), "o1:cw");
    assert_eq!(
        done,
        iki(
            v,
            &[("o2", 1), ("o3", 1), ("i4", 1), ("i2", 2), ("i1", 1)],
            &[("o3", 3), ("o5", 1), ("i5", 1)],
            "N 11 0 -"
        )
    );
}

#[test]
fn ikibuguzo_sowing_on_after_every_opposing_counter_is_captured() {
    // i3 (2) sows i2, i1 (1 -> 2), facing North's only counters (i8, o8): 2 into i3.
    let south = [("i3", 2), ("i1", 1)];
    let north = [("i8", 1), ("o8", 1)];
    let seed = after(&iki("ikibuguzo", &south, &north, "S 10 0 -"), "i3");
    assert_eq!(seed, iki("ikibuguzo", &[("i3", 2), ("i2", 1), ("i1", 2)], &[], "N 11 0 -"));
    // Sowing on: i3 (2) into i2, i1 (3), which relays into o1, o2, o3 (empty): the turn ends.
    let v = "ikibuguzo(stop_on_capture_all=false)";
    let on = after(&iki(v, &south, &north, "S 10 0 -"), "i3");
    assert_eq!(on, iki(v, &[("o1", 1), ("o2", 1), ("o3", 1), ("i2", 2)], &[], "N 11 0 -"));
    for p in [seed, on] {
        let o = outcome(&p).unwrap();
        assert_eq!((o.winner, o.reason), (Some(Player::South), EndReason::CapturedAll));
    }
}

#[test]
fn ikibuguzo_a_capture_of_everything_at_a_choice_does_not_end_the_game_inside_the_turn() {
    // o1 (2) clockwise: i1, i2 (1 -> 2) facing North's i7 and o7: 2 into o1. Kept, i2 (2)
    // clockwise: i3, i4 (1 -> 2) facing North's i5 and o5, its last counters: 2 into i2.
    let south = [("o1", 2), ("i2", 1), ("i4", 1)];
    let north = [("o5", 1), ("o7", 1), ("i7", 1), ("i5", 1)];
    let after_all = [("o1", 2), ("i1", 1), ("i2", 2), ("i3", 1), ("i4", 2)];
    // The seed's reading stops there: South has won.
    let seed = after(&after(&iki("ikibuguzo", &south, &north, "S 10 0 -"), "o1:cw"), "keep+i2:cw");
    assert_eq!(seed, iki("ikibuguzo", &after_all, &[], "N 12 0 -"));
    assert_eq!(outcome(&seed).unwrap().reason, EndReason::CapturedAll);
    // Sowing on, the turn pauses: the kept counters' hole may be left for any other hole of 2 or
    // more, played anticlockwise (o1, i4), or i2 re-sown anticlockwise. The pause is not over.
    let v = "ikibuguzo(stop_on_capture_all=false)";
    let paused = after(&after(&iki(v, &south, &north, "S 10 0 -"), "o1:cw"), "keep+i2:cw");
    assert_eq!(paused, iki(v, &after_all, &[], "S 12 0 choose=i2,laps=2,cw=all,kept"));
    assert_eq!(outcome(&paused), None);
    assert_eq!(moves(&paused), ["ccw", "keep+o1", "keep+i4"]);
    // keep+o1: o1 (2) into o2, o3 (empty): the turn ends, and South has won.
    let done = after(&paused, "keep+o1");
    assert_eq!(
        done,
        iki(v, &[("o2", 1), ("o3", 1), ("i1", 1), ("i2", 2), ("i3", 1), ("i4", 2)], &[], "N 13 0 -")
    );
    let o = outcome(&done).unwrap();
    assert_eq!((o.winner, o.reason), (Some(Player::South), EndReason::CapturedAll));
    // ccw: i2 (2) into i1, o1 (2 -> 3), which relays into o2, o3, o4 (empty).
    assert_eq!(
        after(&paused, "ccw"),
        iki(v, &[("o2", 1), ("o3", 1), ("o4", 1), ("i1", 2), ("i3", 1), ("i4", 2)], &[], "N 13 0 -")
    );
}

#[test]
fn the_ludii_readings_describe_themselves() {
    let rules = |v: &str| game(v).unwrap().describe_rules().join(" ");
    let b = rules("bechi(ludii=true)");
    assert!(b.contains("at most 6 holes after the last hole") && b.contains("passed first"), "{b}");
    assert!(rules("bechi").contains("Rounds alternate the starting player."));
    let i = rules("ikibuguzo(ludii=true)");
    for needle in ["need not capture", "may go on clockwise", "no limit", "sown on"] {
        assert!(i.contains(needle), "{needle}: {i}");
    }
    assert!(!i.contains("kept"), "{i}");
    assert!(i.contains("Read as the Digital Ludeme Project reads the game: cw_play_captures=false"), "{i}");
    assert!(!rules("ikibuguzo").contains("Digital Ludeme Project"));
}
