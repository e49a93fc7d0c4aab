//! One test per rule of Ikibuguzo (Opening 1) on hand-built positions. Expected values are worked
//! out by hand in `tests/test_reference_ikibuguzo_sabouiyya.py` (with the working shown there) from
//! Murray 1951 as docs/rules/ikibuguzo.md reads it.

use griot_core::registry::parse_position;
use griot_core::{EndReason, Error, Event, Player};

/// A 16-hole loop from labels, e.g. `lp(&[("o1", 2), ("i2", 1)])`.
fn lp(holes: &[(&str, u8)]) -> [u8; 16] {
    let mut v = [0u8; 16];
    for (label, n) in holes {
        let k: usize = label[1..].parse().unwrap();
        v[if label.starts_with('o') { k - 1 } else { 16 - k }] = *n;
    }
    v
}

fn iki(variant: &str, south: [u8; 16], north: [u8; 16], rest: &str) -> String {
    let t = |l: [u8; 16]| l.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",");
    format!("{variant} {}/{} {rest}", t(south), t(north))
}

fn pos(south: [u8; 16], north: [u8; 16]) -> String {
    iki("ikibuguzo", south, north, "S 10 0 -")
}

fn moves(fen: &str) -> Vec<String> {
    let (g, p) = parse_position(fen).unwrap();
    let mut out: Vec<String> =
        g.legal_moves(&p).unwrap().iter().map(|m| g.format_move(&p, m).unwrap()).collect();
    out.sort();
    out
}

fn play(fen: &str, mv: &str) -> String {
    try_play(fen, mv).unwrap_or_else(|e| panic!("{mv} at {fen}: {e}"))
}

fn try_play(fen: &str, mv: &str) -> Result<String, Error> {
    let (g, p) = parse_position(fen)?;
    let m = g.parse_move(&p, mv)?;
    let (next, _) = g.play(&p, &m)?;
    g.format_position(&next)
}

/// Plays a whole turn given as its moves; every position before the last move is a pause with the
/// same player to move.
fn turn(fen: &str, moves: &[&str]) -> String {
    let side = fen.split(' ').nth(2).unwrap().to_string();
    let mut fen = fen.to_string();
    for (i, mv) in moves.iter().enumerate() {
        fen = play(&fen, mv);
        if i + 1 < moves.len() {
            assert!(fen.contains(" choose="), "{fen}");
            assert_eq!(fen.split(' ').nth(2).unwrap(), side);
        }
    }
    fen
}

fn illegal_code(fen: &str, mv: &str) -> &'static str {
    match try_play(fen, mv) {
        Err(Error::Illegal(e)) => e.code,
        other => panic!("{mv} at {fen}: expected an illegal move, got {other:?}"),
    }
}

fn board(fen: &str) -> String {
    fen.split(' ').nth(1).unwrap().to_string()
}

fn loops(south: [u8; 16], north: [u8; 16]) -> String {
    board(&pos(south, north))
}

const AFTER_OPENING: [u8; 16] = [0, 6, 0, 0, 0, 0, 0, 17, 0, 0, 2, 1, 2, 1, 2, 1];

#[test]
fn opening_is_scripted() {
    let (g, p) =
        parse_position("ikibuguzo 0,6,0,0,0,0,0,17,0,3,0,3,0,3,0,0/0,6,0,0,0,0,0,17,0,3,0,3,0,3,0,0 S 0 6 -")
            .unwrap();
    assert_eq!(g.format_position(&g.start()).unwrap(), g.format_position(&p).unwrap());
    let mut fen = g.format_position(&p).unwrap();
    for expected in ["i3", "i3", "i5", "i5", "i7", "i7"] {
        assert_eq!(moves(&fen), [expected]);
        fen = play(&fen, expected);
    }
    assert_eq!(fen, iki("ikibuguzo", AFTER_OPENING, AFTER_OPENING, "S 6 0 -"));
    assert_eq!(illegal_code(&g.format_position(&p).unwrap(), "i5"), "opening");
}

#[test]
fn relay_sowing_and_singletons() {
    let fen = iki("ikibuguzo", AFTER_OPENING, AFTER_OPENING, "S 6 0 -");
    assert_eq!(moves(&fen), ["i2", "i4", "i6", "o2", "o8"]);
    let after = play(&fen, "i4");
    assert_eq!(board(&after), loops([1, 0, 1, 1, 1, 1, 1, 18, 1, 0, 2, 1, 0, 2, 0, 2], AFTER_OPENING));
    assert!(after.ends_with(" N 7 0 -"));
    assert_eq!(illegal_code(&fen, "i3"), "singleton");
    assert_eq!(illegal_code(&fen, "o1"), "empty_hole");
}

#[test]
fn capture_into_origin_and_resow() {
    let fen = pos(lp(&[("i6", 2), ("i4", 1)]), lp(&[("i5", 3), ("o5", 2), ("o1", 2)]));
    assert_eq!(moves(&fen), ["i6"]);
    let mut south = [0u8; 16];
    south[11..].copy_from_slice(&[2, 3, 1, 1, 1]);
    assert_eq!(board(&play(&fen, "i6")), loops(south, lp(&[("o1", 2)])));
}

#[test]
fn north_captures_the_same_way() {
    let fen =
        iki("ikibuguzo", lp(&[("i5", 3), ("o5", 2), ("o1", 2)]), lp(&[("i6", 2), ("i4", 1)]), "N 10 0 -");
    let mut north = [0u8; 16];
    north[11..].copy_from_slice(&[2, 3, 1, 1, 1]);
    let after = play(&fen, "i6");
    assert_eq!(board(&after), loops(lp(&[("o1", 2)]), north));
    assert!(after.ends_with(" S 11 0 -"));
}

#[test]
fn last_counter_in_empty_hole_ends_the_turn() {
    let fen = pos(lp(&[("i6", 2)]), lp(&[("i5", 1), ("o5", 1), ("o1", 2)]));
    assert_eq!(
        board(&play(&fen, "i6")),
        loops(lp(&[("i5", 1), ("i4", 1)]), lp(&[("i5", 1), ("o5", 1), ("o1", 2)]))
    );
}

#[test]
fn capture_goes_to_the_lap_origin() {
    let fen = pos(lp(&[("o6", 2), ("o8", 1), ("i7", 1)]), lp(&[("o2", 1), ("i2", 1), ("o4", 2)]));
    assert_eq!(moves(&fen), ["o6"]);
    assert_eq!(
        board(&play(&fen, "o6")),
        loops([0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 1, 1, 1, 0, 0, 0], lp(&[("o4", 2)]))
    );
}

#[test]
fn player_who_cannot_play_loses() {
    let fen = pos([1; 16], lp(&[("o1", 2)]));
    assert!(moves(&fen).is_empty());
    let (g, p) = parse_position(&fen).unwrap();
    let o = g.outcome(&p).unwrap().unwrap();
    assert_eq!((o.winner, o.scores, o.reason), (Some(Player::North), [16, 2], EndReason::Blocked));
}

#[test]
fn clockwise_only_from_special_holes_when_it_captures() {
    let fen = pos(lp(&[("o1", 2), ("i2", 1)]), lp(&[("i7", 1), ("o7", 1), ("o4", 5)]));
    assert_eq!(moves(&fen), ["o1", "o1:cw"]);
    assert_eq!(
        board(&play(&fen, "o1:cw")),
        loops(lp(&[("o2", 1), ("o3", 1), ("i2", 2), ("i1", 1)]), lp(&[("o4", 5)]))
    );
    let no_capture = pos(lp(&[("i2", 2)]), lp(&[("i5", 1), ("o5", 1), ("o4", 5)]));
    assert_eq!(moves(&no_capture), ["i2"]);
    assert_eq!(illegal_code(&no_capture, "i2:cw"), "cw_no_capture");
    assert_eq!(
        illegal_code(&pos(lp(&[("o2", 2), ("i1", 1)]), lp(&[("i8", 1), ("o8", 1)])), "o2:cw"),
        "cw_not_special"
    );
}

#[test]
fn multiple_clockwise_captures_on_the_first_sowing() {
    let fen = pos(
        lp(&[("i2", 2), ("i4", 1), ("i5", 1)]),
        lp(&[("i5", 2), ("o5", 1), ("i4", 1), ("o4", 1), ("o1", 2)]),
    );
    assert_eq!(moves(&fen), ["i2", "i2:cw"]);
    let paused = play(&fen, "i2:cw");
    assert!(paused.ends_with(" S 11 0 choose=i2,laps=1,cw=all"), "{paused}");
    assert_eq!(moves(&paused), ["ccw", "cw"]);
    assert_eq!(illegal_code(&paused, "o1"), "choice_pending");
    assert_eq!(
        board(&turn(&fen, &["i2:cw", "cw"])),
        loops([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 2, 0, 1], lp(&[("o1", 2)]))
    );
}

#[test]
fn one_clockwise_capture_after_an_anticlockwise_start() {
    let south = [9, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0];
    let north = [0, 1, 0, 3, 0, 1, 1, 0, 0, 2, 1, 0, 0, 0, 1, 0];
    let fen = pos(south, north);
    assert_eq!(moves(&fen), ["o1"]);
    assert_eq!(moves(&play(&fen, "o1")), ["ccw", "cw"]);
    assert_eq!(
        board(&turn(&fen, &["o1", "cw"])),
        loops(
            [0, 2, 2, 0, 2, 0, 2, 0, 2, 0, 1, 1, 1, 1, 2, 1],
            [0, 0, 0, 3, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]
        )
    );
    assert_eq!(illegal_code(&fen, "ccw"), "no_choice");
}

#[test]
fn keep_and_play_the_other_special_hole() {
    let fen = pos(
        lp(&[("o1", 2), ("i2", 1), ("i4", 1)]),
        lp(&[("i7", 1), ("o7", 1), ("i5", 1), ("o5", 1), ("o3", 3)]),
    );
    assert_eq!(moves(&fen), ["o1", "o1:cw"]);
    let first = play(&fen, "o1:cw");
    assert!(first.ends_with(" S 11 0 choose=o1,laps=1,cw=all"), "{first}");
    assert_eq!(moves(&first), ["ccw", "keep+i2:cw"]);
    let second = play(&first, "keep+i2:cw");
    assert!(second.ends_with(" S 12 0 choose=i2,laps=2,cw=all,kept"), "{second}");
    assert_eq!(moves(&second), ["ccw", "keep+i4", "keep+o1"]);
    assert_eq!(
        board(&turn(&fen, &["o1:cw", "keep+i2:cw", "keep+i4"])),
        loops(lp(&[("o1", 3), ("o2", 1), ("i3", 2), ("i1", 2)]), lp(&[("o3", 3)]))
    );
    assert_eq!(illegal_code(&second, "keep+i2"), "choice_unavailable");
    assert!(matches!(try_play(&fen, "o1:cw+keep+i2:cw"), Err(Error::Notation(_))));
    // The events let a frontend animate each move: laps, captures, the keep, the pause.
    let (g, p) = parse_position(&first).unwrap();
    let (_, events) = g.play(&p, &g.parse_move(&p, "keep+i2:cw").unwrap()).unwrap();
    let count = |f: fn(&Event) -> bool| events.iter().filter(|e| f(e)).count();
    assert_eq!(count(|e| matches!(e, Event::Lap { .. })), 1);
    assert_eq!(count(|e| matches!(e, Event::Capture { .. })), 2);
    assert_eq!(count(|e| matches!(e, Event::Note { name: "keep", .. })), 1);
    assert_eq!(count(|e| matches!(e, Event::Note { name: "choose", .. })), 1);
}

#[test]
fn end_holes_win_stops_the_turn() {
    let south = lp(&[("o7", 2), ("i8", 1), ("i1", 1)]);
    let north = lp(&[("i1", 8), ("o1", 1), ("i8", 1), ("o8", 1), ("o4", 2)]);
    let after = play(&pos(south, north), "o7");
    assert_eq!(
        after,
        iki("ikibuguzo", [0, 0, 0, 0, 0, 0, 2, 2, 3, 1, 1, 1, 1, 1, 1, 2], lp(&[("o4", 2)]), "N 11 0 win=S")
    );
    let (g, p) = parse_position(&after).unwrap();
    assert_eq!(g.outcome(&p).unwrap().unwrap().reason, EndReason::EndHoles);
    let v = "ikibuguzo(end_holes_win=false)";
    let off = play(&iki(v, south, north, "S 10 0 -"), "o7");
    assert_eq!(off, iki(v, [1, 0, 0, 0, 0, 0, 0, 3, 0, 2, 2, 2, 0, 2, 0, 3], lp(&[("o4", 2)]), "N 11 0 -"));
}

#[test]
fn capturing_everything_wins_at_once() {
    let after = play(&pos(lp(&[("i6", 2), ("i4", 1)]), lp(&[("i5", 1), ("o5", 1)])), "i6");
    assert_eq!(board(&after), loops(lp(&[("i6", 2), ("i5", 1), ("i4", 2)]), [0; 16]));
    let (g, p) = parse_position(&after).unwrap();
    let o = g.outcome(&p).unwrap().unwrap();
    assert_eq!((o.winner, o.reason), (Some(Player::South), EndReason::CapturedAll));
}

#[test]
fn endless_relay_is_cut() {
    let south = [2, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 1, 2, 1];
    let fen = pos(south, lp(&[("o1", 2)]));
    let after = play(&fen, "o1");
    assert!(after.ends_with(" N 11 0 cycle"), "{after}");
    let (g, p) = parse_position(&after).unwrap();
    let o = g.outcome(&p).unwrap().unwrap();
    assert_eq!((o.winner, o.scores, o.reason), (Some(Player::South), [16, 2], EndReason::EndlessCycle));
    let (g, p) = parse_position(&fen).unwrap();
    let (_, events) = g.play(&p, &g.parse_move(&p, "o1").unwrap()).unwrap();
    assert_eq!(events.iter().filter(|e| matches!(e, Event::Lap { .. })).count(), 1000);
    assert!(matches!(events.last(), Some(Event::Cut { laps: 1000 })));
}

#[test]
fn turn_limit_shares_by_counters() {
    let fen = iki("ikibuguzo(max_turns=3)", AFTER_OPENING, AFTER_OPENING, "N 3 3 -");
    let fen = fen.replace("0,0,2,1,2,1,2,1 N", "0,3,0,3,0,3,0,0 N");
    let (g, p) = parse_position(&fen).unwrap();
    let o = g.outcome(&p).unwrap().unwrap();
    assert_eq!((o.winner, o.reason), (None, EndReason::TurnLimit));
    assert!(g.legal_moves(&p).unwrap().is_empty());
}

#[test]
fn parse_errors_name_the_field() {
    let good = iki("ikibuguzo", AFTER_OPENING, AFTER_OPENING, "S 6 0 -");
    for (bad, field) in [
        (good.replace(" S 6 0 -", " S 6 0 x"), "field 6 (flags)"),
        (good.replace(" S 6 0 -", " S 6 2 -"), "field 5 (opening)"),
        (good.replacen("0,6,0,0", "0,6,0", 1), "field 2 (board)"),
        (good.replace(" S ", " X "), "field 3 (side)"),
        (good.replace(" S 6 ", " S x "), "field 4 (turns)"),
    ] {
        let e = parse_position(&bad).unwrap_err().to_string();
        assert!(e.starts_with(field), "{bad}: {e}");
    }
    let off = iki("ikibuguzo(end_holes_win=false)", AFTER_OPENING, AFTER_OPENING, "S 6 0 win=S");
    assert!(parse_position(&off).is_err());
    for pause in
        ["choose=o1,laps=1,cw=all", "choose=o9,laps=1,cw=all", "choose=o1,laps=0,cw=all", "choose=o1"]
    {
        let e = parse_position(&good.replace(" S 6 0 -", &format!(" S 6 0 {pause}"))).unwrap_err();
        assert!(e.to_string().starts_with("field 6 (flags)"), "{pause}: {e}");
    }
}

#[test]
fn keys_exclude_the_turn_counter() {
    let a = iki("ikibuguzo", AFTER_OPENING, AFTER_OPENING, "S 6 0 -");
    let b = iki("ikibuguzo", AFTER_OPENING, AFTER_OPENING, "S 60 0 -");
    let (g, pa) = parse_position(&a).unwrap();
    let (_, pb) = parse_position(&b).unwrap();
    assert_eq!(g.hash_key(&pa).unwrap(), g.hash_key(&pb).unwrap());
    assert_eq!(g.key_bytes(&pa).unwrap(), g.key_bytes(&pb).unwrap());
    assert_eq!(g.key_bytes(&pa).unwrap().len(), 39);
    assert_eq!(g.evaluate(&pa).unwrap(), 0);
    assert_eq!(g.geometry().cells.len(), 32);
}

#[test]
fn positions_and_moves_are_small() {
    use griot_core::ikibuguzo::{IkibuguzoMove, IkibuguzoPosition};
    use griot_core::sabouiyya::{SabouiyyaMove, SabouiyyaPosition};
    assert!(std::mem::size_of::<IkibuguzoPosition>() <= 48);
    assert_eq!(std::mem::size_of::<IkibuguzoMove>(), 1);
    assert!(std::mem::size_of::<SabouiyyaPosition>() <= 16);
    assert!(std::mem::size_of::<SabouiyyaMove>() <= 12);
}
