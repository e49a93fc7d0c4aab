//! One test per rule of Sabou'iyya on hand-built positions. Expected values are worked out by hand
//! in `tests/test_reference_ikibuguzo_sabouiyya.py` (with the working shown there) from Quemeneur
//! 1944 as docs/rules/sabouiyya.md reads it.

use griot_core::registry::parse_position;
use griot_core::{EndReason, Error, Event, Player};

fn moves(fen: &str) -> Vec<String> {
    let (g, p) = parse_position(fen).unwrap();
    let mut out: Vec<String> =
        g.legal_moves(&p).unwrap().iter().map(|m| g.format_move(&p, m).unwrap()).collect();
    out.sort();
    out
}

fn try_play(fen: &str, mv: &str) -> Result<String, Error> {
    let (g, p) = parse_position(fen)?;
    let m = g.parse_move(&p, mv)?;
    let (next, _) = g.play(&p, &m)?;
    g.format_position(&next)
}

fn play(fen: &str, mv: &str) -> String {
    try_play(fen, mv).unwrap_or_else(|e| panic!("{mv} at {fen}: {e}"))
}

fn illegal_code(fen: &str, mv: &str) -> &'static str {
    match try_play(fen, mv) {
        Err(Error::Illegal(e)) => e.code,
        other => panic!("{mv} at {fen}: expected an illegal move, got {other:?}"),
    }
}

fn outcome(fen: &str) -> Option<(Option<Player>, [i32; 2], EndReason)> {
    let (g, p) = parse_position(fen).unwrap();
    g.outcome(&p).unwrap().map(|o| (o.winner, o.scores, o.reason))
}

fn side(fen: &str) -> Player {
    let (g, p) = parse_position(fen).unwrap();
    g.side_to_move(&p).unwrap()
}

#[test]
fn first_placement_next_to_the_centre() {
    let start = "sabouiyya ...../...../...../...../..... S 0 12-12 -";
    assert_eq!(moves(start).len(), 86);
    assert_eq!(illegal_code(start, "a1,b1"), "first_piece_not_next_to_centre");
    assert_eq!(illegal_code(start, "c2,c3"), "centre");
    assert!(matches!(try_play(start, "d4,c2"), Err(Error::Notation(_))), "cells in cell order");
    let after = play(start, "c2,d4");
    assert_eq!(after, "sabouiyya ...../...S./...../..S../..... N 1 10-12 -");
    assert_eq!(moves(&after).len(), 60);
    let second = play(&after, "b3,e5");
    assert_eq!(moves(&second).len(), 190);
    assert_eq!(illegal_code(&second, "c2,e2"), "occupied");
}

#[test]
fn movement_starts_with_south_and_captures_in_every_direction() {
    let before = "sabouiyya SNSNS/NSSN./SN.NS/NSNSN/SNS.S N 11 0-2 -";
    assert_eq!(moves(before), ["d1,e4"]);
    let full = play(before, "d1,e4");
    assert_eq!(full, "sabouiyya SNSNS/NSSNN/SN.NS/NSNSN/SNSNS S 12 0-0 -");
    assert_eq!(moves(&full), ["c4-c3"]);
    let (g, p) = parse_position(&full).unwrap();
    let (_, events) = g.play(&p, &g.parse_move(&p, "c4-c3").unwrap()).unwrap();
    assert_eq!(events.iter().filter(|e| matches!(e, Event::Capture { .. })).count(), 3);
    assert_eq!(play(&full, "c4-c3"), "sabouiyya SNSNS/NS.NN/S.S.S/NS.SN/SNSNS N 13 0-0 -");
}

#[test]
fn only_the_moved_piece_captures() {
    let between = "sabouiyya ...../...../S.S../.N.../..... N 20 0-0 -";
    assert_eq!(play(between, "b2-b3"), "sabouiyya ...../...../SNS../...../..... S 21 0-0 -");
    let after = play("sabouiyya ..S../..N../SN.NS/..S../N.... S 20 0-0 -", "c2-c3");
    assert_eq!(after, "sabouiyya ..S../...../S.S.S/...../N.... N 21 0-0 -");
    assert_eq!(moves(&after), ["a1-a2", "a1-b1"]);
}

#[test]
fn capture_chain_by_the_same_piece() {
    let fen = "sabouiyya ...../.SSS./.NNN./...../..S.. S 20 0-0 -";
    assert_eq!(
        moves(fen),
        ["b4-a4", "b4-b5", "c1-b1", "c1-c2", "c1-c2-b2", "c1-c2-d2", "c1-d1", "c4-c5", "d4-d5", "d4-e4"]
    );
    assert_eq!(play(fen, "c1-c2-b2"), "sabouiyya ...../.SSS./...N./.S.../..... N 21 0-0 -");
    assert_eq!(illegal_code(fen, "c1-c2-c3"), "chain_must_capture");
    assert_eq!(illegal_code(fen, "c1-e1"), "not_a_step");
}

#[test]
fn capture_all_and_blockade_win() {
    let won = play("sabouiyya ..S../..N../SN.NS/..S../..... S 20 0-0 -", "c2-c3");
    assert_eq!(outcome(&won), Some((Some(Player::South), [4, 0], EndReason::CapturedAll)));
    let blocked = "sabouiyya ...../...../...../S..../NS... N 30 0-0 -";
    assert!(moves(blocked).is_empty());
    assert_eq!(outcome(blocked), Some((Some(Player::South), [2, 1], EndReason::Blocked)));
    assert_eq!(illegal_code(blocked, "a1-a2"), "game_over");
}

#[test]
fn turn_limit_is_a_draw() {
    let fen = "sabouiyya(max_turns=3) ....N/...S./.N.../..S../..... S 3 10-10 -";
    assert_eq!(outcome(fen), Some((None, [2, 2], EndReason::TurnLimit)));
}

#[test]
fn hajeb_needs_a_safe_mover() {
    let fen = "sabouiyya NNS../.NS../NS.../S..../..... N 30 0-0 -";
    assert_eq!(moves(fen), ["a3-a4", "a5-a4", "b4-a4", "hajeb"]);
    let off = fen.replace("sabouiyya ", "sabouiyya(hajeb=false) ");
    assert_eq!(moves(&off), ["a3-a4", "a5-a4", "b4-a4"]);
    assert_eq!(illegal_code(&off, "hajeb"), "hajeb_disabled");
    assert_eq!(illegal_code("sabouiyya ..S../..N../SN.NS/..S../N.... N 20 0-0 -", "hajeb"), "no_safe_mover");
    let declared = play(fen, "hajeb");
    assert_eq!(declared, "sabouiyya NNS../.NS../NS.../S..../..... S 31 0-0 on");
    assert_eq!(play(&declared, "b3-a4"), "sabouiyya NNS../S.S../...../S..../..... N 32 0-0 on");
}

#[test]
fn hajeb_capture_sequence_is_one_queen_move_at_a_time() {
    let fen = "sabouiyya .NS../...../...NS/S..../S...N S 30 0-0 on";
    assert_eq!(moves(fen).len(), 33);
    assert_eq!(play(fen, "a1-b1"), "sabouiyya .NS../...../...NS/S..../.S..N N 31 0-0 on");
    let chain = play(fen, "a1-c3");
    assert_eq!(chain, "sabouiyya .NS../...../..S.S/S..../....N S 31 0-0 chain");
    assert_eq!(side(&chain), Player::South, "South moves twice in a row");
    assert_eq!(moves(&chain), ["a2-a5", "c3-a5", "stop"]);
    assert_eq!(illegal_code(&chain, "a2-a3"), "must_capture");
    assert_eq!(play(&chain, "stop"), "sabouiyya .NS../...../..S.S/S..../....N N 32 0-0 on");
    let after = play(&chain, "a2-a5");
    assert_eq!(after, "sabouiyya S.S../...../..S.S/...../....N N 32 0-0 on");
    assert_eq!(moves(&after), ["e1-d1", "e1-e2", "rescind"]);
    assert_eq!(illegal_code(fen, "a1-c2"), "not_a_line");
}

#[test]
fn rescind_ends_hajeb_for_good() {
    let on = "sabouiyya S.S../...../..S.S/...../....N N 31 0-0 on";
    let after = play(on, "rescind");
    assert_eq!(after, "sabouiyya S.S../...../..S.S/...../....N S 32 0-0 done");
    assert!(moves(&after).contains(&"c3-c4".to_string()));
    assert!(!moves(&after).contains(&"c3-d4".to_string()));
    assert_eq!(illegal_code("sabouiyya NNS../.NS../NS.../S..../..... N 30 0-0 -", "rescind"), "not_declared");
}

#[test]
fn settlement_two_for_one() {
    let fen = "sabouiyya NN.../.N.../N..../....S/...SS N 30 0-0 -";
    let settle = play(fen, "hajeb");
    assert_eq!(settle, "sabouiyya NN.../.N.../N..../....S/...SS N 31 0-0 settle-N");
    assert_eq!(side(&settle), Player::North, "North moves twice in a row");
    assert_eq!(moves(&settle), ["remove:d1,e1", "remove:d1,e2", "remove:e1,e2"]);
    assert_eq!(illegal_code(&settle, "remove:d1"), "wrong_count");
    let south_removes = play(&settle, "remove:d1,e1");
    assert_eq!(south_removes, "sabouiyya NN.../.N.../N..../....S/..... S 32 0-0 settle-S");
    assert_eq!(moves(&south_removes), ["remove:a5"]);
    assert_eq!(illegal_code(&south_removes, "remove:b4"), "not_safe_mover");
    let done = play(&south_removes, "remove:a5");
    assert_eq!(done, "sabouiyya .N.../.N.../N..../....S/..... N 33 0-0 done");
    assert_eq!(illegal_code(&done, "hajeb"), "hajeb_declared");
}

#[test]
fn parse_errors_name_the_field() {
    for (bad, field) in [
        ("sabouiyya ...../...../..S../...../..... N 1 10-12 -", "field 2 (board)"),
        ("sabouiyya ...../...../...../...../..... N 0 12-12 -", "field 3 (side)"),
        ("sabouiyya(hajeb=false) NNS../.NS../NS.../S..../..... N 30 0-0 on", "field 6 (hajeb)"),
        ("sabouiyya NN.../.N.../N..../....S/...SS S 31 0-0 on", "field 6 (hajeb)"),
        ("sabouiyya .NS../...../..S.S/S..../....N N 31 0-0 chain", "field 6 (hajeb)"),
        ("sabouiyya S.S../...../..S.S/...../....N S 32 0-0 chain", "field 6 (hajeb)"),
        ("sabouiyya ...../...../...../...../..... S 0 11-12 -", "field 5 (hands)"),
        ("sabouiyya ...../...../...x./...../..... S 0 12-12 -", "field 2 (board)"),
        ("sabouiyya ...../...../...../...../..... S zero 12-12 -", "field 4 (turns)"),
    ] {
        let e = parse_position(bad).unwrap_err().to_string();
        assert!(e.starts_with(field), "{bad}: {e}");
    }
}

#[test]
fn keys_evaluation_and_geometry() {
    let a = "sabouiyya .NS../...../...NS/S..../S...N S 30 0-0 on";
    let b = "sabouiyya .NS../...../...NS/S..../S...N S 90 0-0 on";
    let (g, pa) = parse_position(a).unwrap();
    let (_, pb) = parse_position(b).unwrap();
    assert_eq!(g.hash_key(&pa).unwrap(), g.hash_key(&pb).unwrap());
    assert_eq!(g.key_bytes(&pa).unwrap(), g.key_bytes(&pb).unwrap());
    assert_eq!(g.key_bytes(&pa).unwrap().len(), 12);
    assert_eq!(g.evaluate(&pa).unwrap(), 1); // South 4, North 3
    let geo = g.geometry();
    assert_eq!((geo.rows, geo.cols, geo.cells.len()), (5, 5, 25));
    assert!(geo.cells.iter().all(|c| c.owner.is_none()));
}
