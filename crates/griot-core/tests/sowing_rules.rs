//! One test per rule of the two-row sowing engine, on hand-built boards.
//!
//! Every expected position and score below was worked out by hand from the Guillions' Awale rule
//! collection as docs/rules/awale-collection.md reads it, docs/NOTATION.md and the engine header
//! (crates/griot-core/src/sowing/mod.rs); the comments show the working.
//!
//! Board reminder (6 holes a row): South `a..f` = holes 0..5 from South's left, North `A..F` =
//! holes 6..11 from North's left; counter-clockwise is hole + 1 (f is followed by A, F by a);
//! hole `i` is opposite `11 - i` (a|F, b|E, c|D, d|C, e|B, f|A). A position is
//! `<variant> <south>/<north> <store-S>-<store-N> <side> <turns> <flags>`.
//!
//! User rule files (ids starting `t-`) test rule-language features no shipped variant uses.

use std::sync::Arc;

use griot_core::registry::{self, AnyGame, AnyPosition};
use griot_core::sowing::rules::{GrandSlam, RuleSet};
use griot_core::{CaptureKind, EndReason, Error, Event, Outcome, Player, VariantError};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

#[derive(Clone)]
struct Pos {
    g: Arc<AnyGame>,
    p: AnyPosition,
}

fn at(text: &str) -> Pos {
    let (g, p) = registry::parse_position(text).unwrap_or_else(|e| panic!("parse {text:?}: {e}"));
    let pos = Pos { g, p };
    assert_eq!(pos.text(), text, "the position must format back to the same text");
    pos
}

impl Pos {
    fn text(&self) -> String {
        self.g.format_position(&self.p).unwrap()
    }

    fn moves(&self) -> Vec<String> {
        self.g.legal_moves(&self.p).unwrap().iter().map(|m| self.g.format_move(&self.p, m).unwrap()).collect()
    }

    fn play_events(&self, mv: &str) -> (Pos, Vec<Event>) {
        let m = self.g.parse_move(&self.p, mv).unwrap_or_else(|e| panic!("parse move {mv:?}: {e}"));
        let (next, events) =
            self.g.play(&self.p, &m).unwrap_or_else(|e| panic!("{mv} in {}: {e}", self.text()));
        (Pos { g: self.g.clone(), p: next }, events)
    }

    fn play(&self, mv: &str) -> Pos {
        self.play_events(mv).0
    }

    /// The `check_move` reason code, or `"ok"`.
    fn code(&self, mv: &str) -> &'static str {
        let m = self.g.parse_move(&self.p, mv).unwrap_or_else(|e| panic!("parse move {mv:?}: {e}"));
        match self.g.check_move(&self.p, &m) {
            Ok(()) => "ok",
            Err(Error::Illegal(i)) => {
                // play refuses the move with the same code.
                match self.g.play(&self.p, &m) {
                    Err(Error::Illegal(j)) => assert_eq!(i.code, j.code),
                    other => panic!("check_move refused {mv} but play gave {other:?}"),
                }
                i.code
            }
            Err(e) => panic!("unexpected error {e:?}"),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.g.outcome(&self.p).unwrap()
    }
}

/// Plays `mv` from `text` and returns the new position's text.
fn after(text: &str, mv: &str) -> String {
    at(text).play(mv).text()
}

fn outcome_of(text: &str) -> Outcome {
    let pos = at(text);
    let o = pos.outcome().unwrap_or_else(|| panic!("{text} should be over"));
    assert!(pos.moves().is_empty(), "a finished game has no legal moves: {text}");
    o
}

fn assert_outcome(text: &str, scores: [i32; 2], winner: Option<Player>, reason: EndReason) {
    let o = outcome_of(text);
    assert_eq!((o.scores, o.winner, o.reason), (scores, winner, reason), "outcome of {text}");
}

fn assert_going_on(text: &str) {
    let pos = at(text);
    assert_eq!(pos.outcome(), None, "{text} should go on");
    assert!(!pos.moves().is_empty());
}

fn lap(origin: u8, lifted: u16, sown: &[u8]) -> Event {
    Event::Lap { origin, lifted, sown: sown.to_vec() }
}

fn cap(cell: u8, seeds: u16, player: Player, kind: CaptureKind) -> Event {
    Event::Capture { cell, seeds, player, kind }
}

/// Registers a user rule file and returns its id.
fn user_rules(text: &str) -> String {
    registry::register_rule_file(text).unwrap_or_else(|e| panic!("rule file: {e}\n{text}")).id.clone()
}

fn rule_file_error(text: &str) -> (String, String) {
    match RuleSet::from_toml(text) {
        Err(VariantError::RuleFile { field, message }) => (field, message),
        other => panic!("expected a rule-file error for\n{text}\ngot {other:?}"),
    }
}

use griot_core::Player::{North as N, South as S};

// ---------------------------------------------------------------------------------------------
// Multiple sowing: the values that end (or continue) a relay
// ---------------------------------------------------------------------------------------------

#[test]
fn relay_2_4_ends_on_1_2_or_4_and_continues_otherwise() {
    // a(3) leaves 1, sows 2: b 0->1, c 0->1. Last c made 1: the sowing ends; 1 is no capture.
    assert_eq!(after("2-4 3,0,0,0,0,0/2,2,2,2,2,2 0-0 S 0 -", "a"), "2-4 1,1,1,0,0,0/2,2,2,2,2,2 0-0 N 1 -");
    // a(3) sows b 0->1, c 2->3: 3 goes on; c leaves 1 and sows 2: d 0->1, e 1->2. 2 ends and is
    // captured; the chain looks back at d (1): no match.
    let (p, ev) = at("2-4 3,0,2,0,1,0/2,2,2,2,2,2 0-0 S 0 -").play_events("a");
    assert_eq!(p.text(), "2-4 1,1,1,1,0,0/2,2,2,2,2,2 2-0 N 1 -");
    assert_eq!(ev, vec![lap(0, 2, &[1, 2]), lap(2, 2, &[3, 4]), cap(4, 2, S, CaptureKind::Final)]);
    // a(3) sows b 0->1, c 3->4: 4 ends and is captured.
    assert_eq!(after("2-4 3,0,3,0,0,0/2,2,2,2,2,2 0-0 S 0 -", "a"), "2-4 1,1,0,0,0,0/2,2,2,2,2,2 4-0 N 1 -");
}

#[test]
fn relay_french_wari_and_jodu_end_in_an_empty_hole() {
    // b(2): c 0->1, d 1->2: goes on; d(2): e 0->1, f 0->1: ends on 1.
    // French Wari captures the hole opposite f, A (1): North keeps 5 seeds.
    assert_eq!(
        after("french-wari 0,2,0,1,0,0/1,1,1,1,1,1 0-0 S 0 -", "b"),
        "french-wari 0,0,1,0,1,1/0,1,1,1,1,1 1-0 N 1 -"
    );
    // Jodu takes the reached hole f (own row) and the hole opposite, A: 1 + 1.
    assert_eq!(
        after("jodu 0,2,0,1,0,0/1,1,1,1,1,1 0-0 S 0 -", "b"),
        "jodu 0,0,1,0,1,0/0,1,1,1,1,1 2-0 N 1 -"
    );
    // Jodu ending on the opponent's row captures nothing: f(2): A 1->2, B 0->1 (ends).
    assert_eq!(
        after("jodu 0,0,0,0,0,2/1,0,1,1,1,1 0-0 S 0 -", "f"),
        "jodu 0,0,0,0,0,0/2,1,1,1,1,1 0-0 N 1 -"
    );
}

#[test]
fn relay_ot_tjin_ends_on_1_or_3() {
    // a(2): b 1->2, c 1->2 (2 goes on); c(2): d 0->1, e 0->1: ends on 1, no capture.
    assert_eq!(
        after("ot-tjin 2,1,1,0,0,0/3,3,3,3,3,3 0-0 S 0 -", "a"),
        "ot-tjin 0,2,0,1,1,0/3,3,3,3,3,3 0-0 N 1 -"
    );
    // a(2): b 0->1, c 2->3: ends on 3 and captures it.
    assert_eq!(
        after("ot-tjin 2,0,2,0,0,0/3,3,3,3,3,3 0-0 S 0 -", "a"),
        "ot-tjin 0,1,0,0,0,0/3,3,3,3,3,3 3-0 N 1 -"
    );
    // a(1): b 3->4: 4 goes on in Ot-Tjin; b(4): c, d, e, f 0->1: ends on 1.
    assert_eq!(
        after("ot-tjin 1,3,0,0,0,0/3,3,3,3,3,3 0-0 S 0 -", "a"),
        "ot-tjin 0,0,1,1,1,1/3,3,3,3,3,3 0-0 N 1 -"
    );
}

#[test]
fn relay_oware_and_wouri_end_on_1_or_4() {
    // a(2): b 0->1 (not last), c 3->4 last: ends on 4, captured (cap=S recorded).
    assert_eq!(
        after("oware 2,0,3,0,0,0/1,1,1,1,1,1 0-0 S 0 -", "a"),
        "oware 0,1,0,0,0,0/1,1,1,1,1,1 4-0 N 1 cap=S"
    );
    // a(1): b 1->2 goes on; b(2): c 0->1, d 0->1: ends on 1.
    assert_eq!(
        after("oware 1,1,0,0,0,0/1,1,1,1,1,1 0-0 S 0 -", "a"),
        "oware 0,0,1,1,0,0/1,1,1,1,1,1 0-0 N 1 -"
    );
    assert_eq!(
        after("wouri 2,0,3,0,0,0/1,1,1,1,1,1 0-0 S 0 -", "a"),
        "wouri 0,1,0,0,0,0/1,1,1,1,1,1 4-0 N 1 cap=S"
    );
    // Ot-Tjin's 3 does not end an Oware sowing: a(1): b 2->3 goes on; b(3): c, d, e 0->1.
    assert_eq!(
        after("oware 1,2,0,0,0,0/1,1,1,1,1,1 0-0 S 0 -", "a"),
        "oware 0,0,1,1,1,0/1,1,1,1,1,1 0-0 N 1 -"
    );
}

#[test]
fn relay_leb_extra_lap_only_from_an_opponent_hole_made_7() {
    // f(2): A 0->1, B 6->7 (opponent's, now 7): lift 7 and sow on from C: C, D, E, F 1->2,
    // a, b, c 0->1. c is South's own hole: the sowing ends; no capture on one's own row.
    let (p, ev) = at("leb-bbut-ahbochen 0,0,0,0,0,2/0,6,1,1,1,1 0-0 S 0 -").play_events("f");
    assert_eq!(p.text(), "leb-bbut-ahbochen 1,1,1,0,0,0/1,0,2,2,2,2 0-0 N 1 -");
    assert_eq!(ev, vec![lap(5, 2, &[6, 7]), lap(7, 7, &[8, 9, 10, 11, 0, 1, 2])]);
    // d(2): e 0->1, f 6->7: an own hole made 7 gives no extra lap.
    assert_eq!(
        after("leb-bbut-ahbochen 0,0,0,2,0,6/1,1,1,1,1,1 0-0 S 0 -", "d"),
        "leb-bbut-ahbochen 0,0,0,0,1,7/1,1,1,1,1,1 0-0 N 1 -"
    );
    // f(1): A 7->8: only exactly 7 goes on (and 8 captures nothing).
    assert_eq!(
        after("leb-bbut-ahbochen 1,0,0,0,0,1/7,1,1,1,1,1 0-0 S 0 -", "f"),
        "leb-bbut-ahbochen 1,0,0,0,0,0/8,1,1,1,1,1 0-0 N 1 -"
    );
}

// ---------------------------------------------------------------------------------------------
// Leave one behind, minimum seeds, the origin on a full lap
// ---------------------------------------------------------------------------------------------

#[test]
fn leave_one_behind_and_min_seeds_2_adji_boto() {
    let p = at("adji-boto 1,3,0,0,0,0/0,2,1,1,1,1 0-0 S 0 -");
    // a holds 1: fewer than the 2 a hole needs.
    assert_eq!(p.moves(), vec!["b"]);
    assert_eq!(p.code("a"), "too_few_seeds");
    // b(3) keeps 1 and sows 2: c, d 0->1 (own row, no capture).
    assert_eq!(p.play("b").text(), "adji-boto 1,1,1,1,0,0/0,2,1,1,1,1 0-0 N 1 -");
    // e(3) keeps 1: f 0->1, A 2->3: 3 on the opponent's row is captured (1, 3 or 5).
    assert_eq!(
        after("adji-boto 0,0,0,0,3,0/2,2,2,2,2,2 0-0 S 0 -", "e"),
        "adji-boto 0,0,0,0,1,1/0,2,2,2,2,2 3-0 N 1 -"
    );
    // A 3->4: 4 does not capture.
    assert_eq!(
        after("adji-boto 0,0,0,0,3,0/3,2,2,2,2,2 0-0 S 0 -", "e"),
        "adji-boto 0,0,0,0,1,1/4,2,2,2,2,2 0-0 N 1 -"
    );
}

#[test]
fn leave_one_behind_and_min_seeds_2_in_2_4() {
    let p = at("2-4 1,2,0,0,0,0/2,2,2,2,2,2 0-0 S 0 -");
    assert_eq!(p.moves(), vec!["b"]);
    assert_eq!(p.code("a"), "too_few_seeds");
    // b(2) keeps 1, sows 1: c 0->1, ends on 1.
    assert_eq!(p.play("b").text(), "2-4 1,1,1,0,0,0/2,2,2,2,2,2 0-0 N 1 -");
}

#[test]
fn origin_skipped_on_a_full_lap() {
    // Awale a(12): b..f and A..F get 1 (11 seeds), a is skipped, b gets the 12th (b = 2, own
    // row: no capture).
    assert_eq!(
        after("awale 12,0,0,0,0,0/0,0,0,0,0,1 0-0 S 0 -", "a"),
        "awale 0,2,1,1,1,1/1,1,1,1,1,2 0-0 N 1 -"
    );
    // Adji-Boto a(13) keeps 1 and sows 12: b..F (11), a skipped, b gets the 12th.
    assert_eq!(
        after("adji-boto 13,0,0,0,0,0/0,0,0,0,0,1 0-0 S 0 -", "a"),
        "adji-boto 1,2,1,1,1,1/1,1,1,1,1,2 0-0 N 1 -"
    );
}

#[test]
fn origin_not_skipped_on_a_full_lap() {
    // Halusa a(12): b..F (11), then a itself gets the 12th: a = 1, odd, no capture.
    assert_eq!(
        after("halusa 12,0,0,0,0,0/0,0,0,0,0,0 0-0 S 0 -", "a"),
        "halusa 1,1,1,1,1,1/1,1,1,1,1,1 0-0 N 1 -"
    );
    // 2-4 a(13) keeps 1 and sows 12: b..F, then a 1->2: ends on 2, a captured. The last hole
    // is the final lap's origin, so no chain: F (1->2) stays.
    assert_eq!(after("2-4 13,0,0,0,0,0/0,0,0,0,0,1 0-0 S 0 -", "a"), "2-4 0,1,1,1,1,1/1,1,1,1,1,2 2-0 N 1 -");
}

// ---------------------------------------------------------------------------------------------
// Flow capture
// ---------------------------------------------------------------------------------------------

#[test]
fn flow_darra_each_player_takes_4s_on_their_own_row() {
    // e(4): f 3->4 (South's row): South takes 4; A 3->4 (North's row): North takes 4 during
    // South's sowing; B 0->1; C 1->2 is the last hole: no capture. North captured last.
    let (p, ev) = at("darra 0,0,0,0,4,3/3,0,1,1,1,1 0-0 S 0 -").play_events("e");
    assert_eq!(p.text(), "darra 0,0,0,0,0,0/0,1,2,1,1,1 4-4 N 1 cap=N");
    assert_eq!(
        ev,
        vec![
            lap(4, 4, &[5]),
            cap(5, 4, S, CaptureKind::Flow),
            lap(4, 4, &[6]),
            cap(6, 4, N, CaptureKind::Flow),
            lap(4, 4, &[7, 8]),
        ]
    );
}

#[test]
fn flow_the_last_hole_of_a_lap_is_not_flow_captured() {
    // Darra f(2): A 0->1, B 3->4 is the last hole: not a flow capture by North but the final
    // capture (4 in any row) by the mover.
    let (p, ev) = at("darra 0,0,0,0,0,2/0,3,1,0,0,5 0-0 S 0 -").play_events("f");
    assert_eq!(p.text(), "darra 0,0,0,0,0,0/1,0,1,0,0,5 4-0 N 1 cap=S");
    assert_eq!(ev, vec![lap(5, 2, &[6, 7]), cap(7, 4, S, CaptureKind::Final)]);
}

#[test]
fn flow_oware_owner_takes_even_during_the_opponents_sowing() {
    // Same board as the Darra test, with Oware's relay: e(4): f 3->4 South takes, A 3->4 North
    // takes, B 0->1, C 1->2 last: goes on; C(2): D 1->2, E 1->2 last: goes on; E(2): F 1->2,
    // a 0->1 last: ends on 1. North captured last.
    assert_eq!(
        after("oware 0,0,0,0,4,3/3,0,1,1,1,1 0-0 S 0 -", "e"),
        "oware 1,0,0,0,0,0/0,1,0,2,0,2 4-4 N 1 cap=N"
    );
    // f(2): A 3->4 North takes; B 1->2 goes on; B(2): C 1->2, D 1->2 goes on; D(2): E, F 1->2
    // goes on; F(2): a, b 0->1 ends.
    assert_eq!(
        after("oware 0,0,0,0,0,2/3,1,1,1,1,1 0-0 S 0 -", "f"),
        "oware 1,1,0,0,0,0/0,0,2,0,2,0 0-4 N 1 cap=N"
    );
    // North sows F(2): a 3->4 is South's: South takes it during North's turn; b 0->1 ends.
    assert_eq!(
        after("oware 3,0,0,0,0,0/1,1,1,1,1,2 0-0 N 0 -", "F"),
        "oware 0,1,0,0,0,0/1,1,1,1,1,0 4-0 S 1 cap=S"
    );
}

#[test]
fn flow_wouri_only_the_mover_only_on_the_opponents_row() {
    // Same board again: f 3->4 is the mover's own: stays; A 3->4: the mover takes it; B 0->1,
    // C 1->2 last: goes on; C(2): D 1->2, E 1->2 goes on; E(2): F 1->2, a 0->1 ends.
    let (p, ev) = at("wouri 0,0,0,0,4,3/3,0,1,1,1,1 0-0 S 0 -").play_events("e");
    assert_eq!(p.text(), "wouri 1,0,0,0,0,4/0,1,0,2,0,2 4-0 N 1 cap=S");
    assert_eq!(
        ev,
        vec![
            lap(4, 4, &[5, 6]),
            cap(6, 4, S, CaptureKind::Flow),
            lap(4, 4, &[7, 8]),
            lap(8, 2, &[9, 10]),
            lap(10, 2, &[11, 0]),
        ]
    );
    // North moving: South's a 3->4 is taken by North (the mover), not by South.
    assert_eq!(
        after("wouri 3,0,0,0,0,0/1,1,1,1,1,2 0-0 N 0 -", "F"),
        "wouri 0,1,0,0,0,0/1,1,1,1,1,0 0-4 S 1 cap=N"
    );
}

// ---------------------------------------------------------------------------------------------
// Capture values, territory, target
// ---------------------------------------------------------------------------------------------

#[test]
fn capture_awale_2_or_3_on_the_opponents_row() {
    // f(1): A 2->3: captured.
    assert_eq!(
        after("awale 0,0,0,0,0,1/2,1,1,1,1,1 0-0 S 0 -", "f"),
        "awale 0,0,0,0,0,0/0,1,1,1,1,1 3-0 N 1 -"
    );
    // f(1): A 3->4: not a capture value.
    assert_eq!(
        after("awale 0,0,0,0,0,1/3,1,1,1,1,1 0-0 S 0 -", "f"),
        "awale 0,0,0,0,0,0/4,1,1,1,1,1 0-0 N 1 -"
    );
    // e(1): f 1->2 on the mover's own row: no capture.
    assert_eq!(
        after("awale 0,0,0,0,1,1/1,1,1,1,1,1 0-0 S 0 -", "e"),
        "awale 0,0,0,0,0,2/1,1,1,1,1,1 0-0 N 1 -"
    );
}

#[test]
fn capture_kale_2_or_4() {
    // f(1): A 3->4 captured; A 2->3 is not.
    assert_eq!(
        after("kale 0,0,0,0,0,1/3,1,1,1,1,1 0-0 S 0 -", "f"),
        "kale 0,0,0,0,0,0/0,1,1,1,1,1 4-0 N 1 -"
    );
    assert_eq!(
        after("kale 0,0,0,0,0,1/2,1,1,1,1,1 0-0 S 0 -", "f"),
        "kale 0,0,0,0,0,0/3,1,1,1,1,1 0-0 N 1 -"
    );
}

#[test]
fn capture_dakar_even_single_hole() {
    // f(3): A, B, C 1->2, C last: even on the opponent's row: C only (no chain).
    assert_eq!(
        after("dakar 0,0,0,0,0,3/1,1,1,5,5,5 0-0 S 0 -", "f"),
        "dakar 0,0,0,0,0,0/2,2,0,5,5,5 2-0 N 1 -"
    );
    // 6 is even too; 3 is not.
    assert_eq!(
        after("dakar 0,0,0,0,0,1/5,1,1,1,1,1 0-0 S 0 -", "f"),
        "dakar 0,0,0,0,0,0/0,1,1,1,1,1 6-0 N 1 -"
    );
    assert_eq!(
        after("dakar 0,0,0,0,0,1/2,1,1,1,1,1 0-0 S 0 -", "f"),
        "dakar 0,0,0,0,0,0/3,1,1,1,1,1 0-0 N 1 -"
    );
}

#[test]
fn capture_halusa_even_on_the_own_row() {
    // a(3): b 2->3, c 1->2, d 1->2 last: even on the own row: d, then back c (2), b (3) stops.
    assert_eq!(
        after("halusa 3,2,1,1,0,0/1,1,1,1,1,1 0-0 S 0 -", "a"),
        "halusa 0,3,0,0,0,0/1,1,1,1,1,1 4-0 N 1 -"
    );
    // f(2): A 1->2, B 1->2 last: even but on the opponent's row: nothing.
    assert_eq!(
        after("halusa 0,0,0,0,0,2/1,1,1,1,1,1 0-0 S 0 -", "f"),
        "halusa 0,0,0,0,0,0/2,2,1,1,1,1 0-0 N 1 -"
    );
}

#[test]
fn capture_songo_duala_2_to_4_in_either_row() {
    // a(2): b 1->2, c 1->2 last (own row): c, b taken; a (the emptied origin) stops.
    assert_eq!(
        after("songo-duala 2,1,1,0,0,0/5,5,5,5,5,5 0-0 S 0 -", "a"),
        "songo-duala 0,0,0,0,0,0/5,5,5,5,5,5 4-0 N 1 -"
    );
    // f(1): A 3->4 captured; A 4->5 is not.
    assert_eq!(
        after("songo-duala 0,0,0,0,0,1/3,5,5,5,5,5 0-0 S 0 -", "f"),
        "songo-duala 0,0,0,0,0,0/0,5,5,5,5,5 4-0 N 1 -"
    );
    assert_eq!(
        after("songo-duala 0,0,0,0,0,1/4,5,5,5,5,5 0-0 S 0 -", "f"),
        "songo-duala 0,0,0,0,0,0/5,5,5,5,5,5 0-0 N 1 -"
    );
}

#[test]
fn capture_adjito_opposite_hole_when_ending_on_the_own_row() {
    // c(2): d 0->1, e 0->1 last (own row, 1 in 1..48): the hole opposite e is B (1).
    assert_eq!(
        after("adjito 0,0,2,0,0,0/1,1,1,2,1,1 0-0 S 0 -", "c"),
        "adjito 0,0,0,1,1,0/1,0,1,2,1,1 1-0 N 1 -"
    );
    // A bigger own hole: c(1): d 7->8: opposite C (2) taken.
    assert_eq!(
        after("adjito 0,0,1,7,0,0/1,1,2,1,1,1 0-0 S 0 -", "c"),
        "adjito 0,0,0,8,0,0/1,1,0,1,1,1 2-0 N 1 -"
    );
    // Ending on the opponent's row: f(2): A, B: no capture.
    assert_eq!(
        after("adjito 0,0,0,0,0,2/1,1,1,1,1,1 0-0 S 0 -", "f"),
        "adjito 0,0,0,0,0,0/2,2,1,1,1,1 0-0 N 1 -"
    );
}

#[test]
fn capture_french_wari_opposite_hole_in_either_row() {
    // f(1): A 1->2 goes on; A(2): B 0->1, C 0->1 ends on North's row; the hole opposite C is
    // South's d (3): South takes its own seeds.
    assert_eq!(
        after("french-wari 0,0,0,3,0,1/1,0,0,0,0,0 0-0 S 0 -", "f"),
        "french-wari 0,0,0,0,0,0/0,1,1,0,0,0 3-0 N 1 -"
    );
}

#[test]
fn capture_jodu_reached_and_opposite_only_on_the_own_row() {
    // d(2): e 0->1, f 0->1 ends on the own row: f (1) and the hole opposite, A (3).
    assert_eq!(
        after("jodu 0,0,0,2,0,0/3,1,1,1,1,1 0-0 S 0 -", "d"),
        "jodu 0,0,0,0,1,0/0,1,1,1,1,1 4-0 N 1 -"
    );
}

#[test]
fn capture_nyakun_any_hole_any_row() {
    // South may play North's C(2): D 0->1, E 0->1 last: 1..3 anywhere: E, then D (1); C, the
    // emptied origin, stops the chain. The board is then empty: nobody can play.
    let p = at("nyakun 0,0,0,0,0,0/0,0,2,0,0,0 0-0 S 0 -");
    assert_eq!(p.moves(), vec!["C"]);
    let p = p.play("C");
    assert_eq!(p.text(), "nyakun 0,0,0,0,0,0/0,0,0,0,0,0 2-0 N 1 -");
    assert_eq!(p.outcome().unwrap().scores, [2, 0]);
    // Both rows are playable for both players.
    assert_eq!(at("nyakun 1,0,0,0,0,0/0,0,0,0,0,2 0-0 N 3 -").moves(), vec!["a", "F"]);
}

#[test]
fn capture_vai_lung_thlan_a_seed_reaching_an_empty_hole() {
    // e(3): f, A, B 0->1, B last: B, then back A and f (across rows); e (emptied) stops.
    assert_eq!(
        after("vai-lung-thlan 0,0,0,0,3,0/0,0,5,5,5,5 0-0 S 0 -", "e"),
        "vai-lung-thlan 0,0,0,0,0,0/0,0,5,5,5,5 3-0 N 1 -"
    );
}

// ---------------------------------------------------------------------------------------------
// Capture chains
// ---------------------------------------------------------------------------------------------

#[test]
fn chain_backward_within_the_opponents_row_awale_abapa_kale() {
    // f(3): A 0->1, B 2->3, C 1->2 last: C, B taken; A (1) stops the chain.
    let (p, ev) = at("awale 0,0,0,0,0,3/0,2,1,0,0,4 0-0 S 0 -").play_events("f");
    assert_eq!(p.text(), "awale 0,0,0,0,0,0/1,0,0,0,0,4 5-0 N 1 -");
    assert_eq!(
        ev,
        vec![lap(5, 3, &[6, 7, 8]), cap(8, 2, S, CaptureKind::Final), cap(7, 3, S, CaptureKind::Chain)]
    );
    assert_eq!(
        after("abapa 0,0,0,0,0,3/0,2,1,0,0,4 0-0 S 0 -", "f"),
        "abapa 0,0,0,0,0,0/1,0,0,0,0,4 5-0 N 1 -"
    );
    // Kale f(3): A 3->4, B 1->2, C 1->2: C, B, A (8); the chain ends at North's row edge.
    assert_eq!(
        after("kale 0,0,0,0,0,3/3,1,1,0,0,4 0-0 S 0 -", "f"),
        "kale 0,0,0,0,0,0/0,0,0,0,0,4 8-0 N 1 -"
    );
}

#[test]
fn chain_backward_within_the_row_songo_duala_stops_at_the_row_edge() {
    // e(3): f 1->2, A 2->3, B 1->2 last: B, A taken; f (2, a capture value in a capturing row)
    // is across the row edge: kept.
    assert_eq!(
        after("songo-duala 0,0,0,0,3,1/2,1,5,5,5,5 0-0 S 0 -", "e"),
        "songo-duala 0,0,0,0,0,2/0,0,5,5,5,5 5-0 N 1 -"
    );
}

#[test]
fn chain_backward_halusa_and_leb() {
    // Halusa a(3): b, c, d 1->2: d, c, b (6); a, the emptied origin, stops.
    assert_eq!(
        after("halusa 3,1,1,1,0,0/1,1,1,1,1,1 0-0 S 0 -", "a"),
        "halusa 0,0,0,0,0,0/1,1,1,1,1,1 6-0 N 1 -"
    );
    // Leb f(3): A 1->2, B 3->4, C 1->2: C, B, A (8); North keeps F (4).
    assert_eq!(
        after("leb-bbut-ahbochen 0,0,0,0,0,3/1,3,1,0,0,4 0-0 S 0 -", "f"),
        "leb-bbut-ahbochen 0,0,0,0,0,0/0,0,0,0,0,4 8-0 N 1 -"
    );
    // Leb f(3): A 2->3 breaks the chain: C (2), B (4) only.
    assert_eq!(
        after("leb-bbut-ahbochen 0,0,0,0,0,3/2,3,1,0,0,4 0-0 S 0 -", "f"),
        "leb-bbut-ahbochen 0,0,0,0,0,0/3,0,0,0,0,4 6-0 N 1 -"
    );
}

#[test]
fn chain_across_rows_2_4() {
    // e(3) keeps 1: f 1->2, A 1->2 last: ends on 2: A, then f across the row edge; e (1) stops.
    assert_eq!(after("2-4 0,0,0,0,3,1/1,2,2,2,2,2 0-0 S 0 -", "e"), "2-4 0,0,0,0,1,0/0,2,2,2,2,2 4-0 N 1 -");
}

#[test]
fn chain_across_rows_nyakun() {
    // e(2): f 1->2, A 0->1 last: A, then f across rows (2 in 1..3); e, the emptied origin,
    // stops the chain.
    assert_eq!(
        after("nyakun 0,0,0,0,2,1/0,1,4,4,4,4 0-0 S 0 -", "e"),
        "nyakun 0,0,0,0,0,0/0,1,4,4,4,4 3-0 N 1 -"
    );
}

#[test]
fn chain_none_dakar_darra_adji_boto_ot_tjin() {
    // Dakar takes only the last hole (capture_dakar_even_single_hole).
    // Darra d(3): e 3->4 and f 3->4 are flow captures (South's row, South takes them); A 3->4
    // is the last hole: the final capture of A alone (12 in all); no chain.
    assert_eq!(
        after("darra 0,0,0,3,3,3/3,1,1,1,1,1 0-0 S 0 -", "d"),
        "darra 0,0,0,0,0,0/0,1,1,1,1,1 12-0 N 1 cap=S"
    );
    // Adji-Boto e(3) keeps 1: f 0->1, A 2->3 last: A only; f (1) is not looked at.
    assert_eq!(
        after("adji-boto 0,0,0,0,3,0/2,2,2,2,2,2 0-0 S 0 -", "e"),
        "adji-boto 0,0,0,0,1,1/0,2,2,2,2,2 3-0 N 1 -"
    );
    // Ot-Tjin e(2): f 2->3, A 2->3 last: ends on 3: A only, f (3) stays.
    assert_eq!(
        after("ot-tjin 0,0,0,0,2,2/2,1,1,1,1,1 0-0 S 0 -", "e"),
        "ot-tjin 0,0,0,0,0,3/0,1,1,1,1,1 3-0 N 1 -"
    );
}

#[test]
fn chain_stops_at_the_final_laps_origin() {
    // A user rule: leave one behind, capture 1 anywhere, chain backward across rows.
    let id = user_rules(
        "id = \"t-origin-stop\"\n[sowing]\nmin_seeds = 2\nleave_one = true\n\
         [capture]\nvalues = [1]\nterritory = \"any\"\nchain = \"backward\"\nchain_crosses = true\n",
    );
    // e(3) keeps 1, sows f 0->1, A 0->1 last: A, f, then e itself (the origin, holding 1) is
    // taken, but d (1) is past the origin: kept.
    assert_eq!(
        after(&format!("{id} 1,1,1,1,3,0/0,1,1,1,1,1 0-0 S 0 -"), "e"),
        format!("{id} 1,1,1,1,0,0/0,1,1,1,1,1 3-0 N 1 -")
    );
    // 2-4 relay: a(3) keeps 1: b 0->1, c 2->3 goes on; c keeps 1: d 1->2, e 1->2 last: ends
    // on 2: e, d (2), then c (the final lap's origin, holding 1): no match.
    assert_eq!(after("2-4 3,0,2,1,1,0/2,2,2,2,2,2 0-0 S 0 -", "a"), "2-4 1,1,1,0,0,0/2,2,2,2,2,2 4-0 N 1 -");
}

// ---------------------------------------------------------------------------------------------
// Grand slam
// ---------------------------------------------------------------------------------------------

#[test]
fn grand_slam_no_capture() {
    // f(2): A 1->2, B 1->2: taking B and A would leave North nothing: the capture is not made,
    // the move stands.
    for v in ["abapa", "awale", "leb-bbut-ahbochen"] {
        let (p, ev) = at(&format!("{v} 0,0,0,0,0,2/1,1,0,0,0,0 0-0 S 0 -")).play_events("f");
        assert_eq!(p.text(), format!("{v} 0,0,0,0,0,0/2,2,0,0,0,0 0-0 N 1 -"));
        assert_eq!(ev, vec![lap(5, 2, &[6, 7]), Event::CaptureForfeited { cells: vec![7, 6] }]);
        // With one more North seed on F the same move captures 4.
        assert_eq!(
            after(&format!("{v} 0,0,0,0,0,2/1,1,0,0,0,1 0-0 S 0 -"), "f"),
            format!("{v} 0,0,0,0,0,0/0,0,0,0,0,1 4-0 N 1 -")
        );
    }
    // Kale: A 1->2, B 3->4 would be everything.
    assert_eq!(
        after("kale 0,0,0,0,0,2/1,3,0,0,0,0 0-0 S 0 -", "f"),
        "kale 0,0,0,0,0,0/2,4,0,0,0,0 0-0 N 1 -"
    );
    // Dakar: A 1->2 is North's only seeds.
    assert_eq!(
        after("dakar 0,0,0,0,0,1/1,0,0,0,0,0 0-0 S 0 -", "f"),
        "dakar 0,0,0,0,0,0/2,0,0,0,0,0 0-0 N 1 -"
    );
    // Adjito: d(1): e 0->1 (own row): the hole opposite, B (3), is all North has.
    assert_eq!(
        after("adjito 0,0,0,1,0,0/0,3,0,0,0,0 0-0 S 0 -", "d"),
        "adjito 0,0,0,0,1,0/0,3,0,0,0,0 0-0 N 1 -"
    );
    // French Wari: e(1): f 0->1 ends; the hole opposite, A (3), is all North has.
    assert_eq!(
        after("french-wari 0,0,0,0,1,0/3,0,0,0,0,0 0-0 S 0 -", "e"),
        "french-wari 0,0,0,0,0,1/3,0,0,0,0,0 0-0 N 1 -"
    );
}

#[test]
fn grand_slam_spare_last_songo_duala() {
    // f(2): A 1->2, B 1->2 last: B and A would empty North's row: the last hole B is spared,
    // A is still taken.
    let (p, ev) = at("songo-duala 0,0,0,0,0,2/1,1,0,0,0,0 0-0 S 0 -").play_events("f");
    assert_eq!(p.text(), "songo-duala 0,0,0,0,0,0/0,2,0,0,0,0 2-0 N 1 -");
    assert_eq!(
        ev,
        vec![
            lap(5, 2, &[6, 7]),
            Event::CaptureForfeited { cells: vec![7] },
            cap(6, 2, S, CaptureKind::Chain)
        ]
    );
    // Read literally ("if capture doesn't leave any seed to the opponent"), a capture on the own
    // row while North's row is empty is a grand slam too: a(2): b 1->2, c 1->2: c spared, b
    // taken. No move feeds North, so every move is legal ("if possible").
    let p = at("songo-duala 2,1,1,0,0,0/0,0,0,0,0,0 0-0 S 5 -");
    assert_eq!(p.moves(), vec!["a", "b", "c"]);
    assert_eq!(p.play("a").text(), "songo-duala 0,0,2,0,0,0/0,0,0,0,0,0 2-0 N 6 -");
}

#[test]
fn grand_slam_spare_last_halusa_is_only_reachable_through_starving() {
    // Halusa's captures are on the mover's own row, so a grand slam means North's row is empty
    // after the sowing, and starving is forbidden: the spare-last rule can never act.
    let g = registry::game("halusa").unwrap();
    #[allow(irrefutable_let_patterns)]
    let AnyGame::Sowing(sg) = &*g
    else {
        panic!("halusa is a sowing game")
    };
    assert_eq!(sg.rules().capture.unwrap().grand_slam, GrandSlam::SpareLast);
    // a(2): b 1->2, c 1->2 (own, even) would be a spared grand slam, but North is left empty.
    let p = at("halusa 2,1,1,0,0,1/0,0,0,0,0,0 0-0 S 0 -");
    assert_eq!(p.code("a"), "must_not_starve");
    assert_eq!(p.moves(), vec!["f"]);
}

#[test]
fn grand_slam_allowed() {
    // 2-4 f(3) keeps 1: A 1->2, B 1->2 last: B, A (4): North's row emptied, allowed.
    let p = at("2-4 0,0,0,0,0,3/1,1,0,0,0,0 0-0 S 0 -").play("f");
    assert_eq!(p.text(), "2-4 0,0,0,0,0,1/0,0,0,0,0,0 4-0 N 1 -");
    // Then neither can play (f holds 1 < 2); nobody takes the seed left.
    let o = p.outcome().unwrap();
    assert_eq!((o.scores, o.winner, o.reason), ([4, 0], Some(S), EndReason::NeitherCanMove));
    // Vai Lung Thlan f(2): A 0->1, B 0->1: B, A: everything North has.
    assert_eq!(
        after("vai-lung-thlan 1,0,0,0,0,2/0,0,0,0,0,0 0-0 S 0 -", "f"),
        "vai-lung-thlan 1,0,0,0,0,0/0,0,0,0,0,0 2-0 N 1 -"
    );
}

// ---------------------------------------------------------------------------------------------
// Starving
// ---------------------------------------------------------------------------------------------

#[test]
fn starving_avoid_requires_a_feeding_move_when_one_exists() {
    // Awale, North empty: e(1) -> f 2 does not feed; f(1) -> A 1 does.
    let p = at("awale 0,0,0,0,1,1/0,0,0,0,0,0 0-0 S 0 -");
    assert_eq!(p.moves(), vec!["f"]);
    assert_eq!(p.code("e"), "must_not_starve");
    // No move feeds: every move is legal.
    let p = at("awale 1,1,0,0,0,0/0,0,0,0,0,0 0-0 S 0 -");
    assert_eq!(p.moves(), vec!["a", "b"]);
    assert_eq!(p.play("a").text(), "awale 0,2,0,0,0,0/0,0,0,0,0,0 0-0 N 1 -");
    // Adji-Boto (grand slam allowed): f(2) keeps 1: A 2->3 captured leaves North nothing;
    // c(2) keeps 1: d 0->1 leaves A. Only c.
    let p = at("adji-boto 0,0,2,0,0,2/2,0,0,0,0,0 0-0 S 0 -");
    assert_eq!(p.moves(), vec!["c"]);
    assert_eq!(p.code("f"), "must_not_starve");
    // Only the starving capture: it is legal.
    let p = at("adji-boto 0,0,0,0,0,2/2,0,0,0,0,0 0-0 S 0 -");
    assert_eq!(p.moves(), vec!["f"]);
    assert_eq!(p.play("f").text(), "adji-boto 0,0,0,0,0,1/0,0,0,0,0,0 3-0 N 1 -");
}

#[test]
fn starving_forbidden_dakar_and_halusa() {
    // Dakar, North empty: a(1) -> b does not feed: illegal; f(1) -> A feeds.
    let p = at("dakar 1,0,0,0,0,1/0,0,0,0,0,0 0-0 S 0 -");
    assert_eq!(p.moves(), vec!["f"]);
    assert_eq!(p.code("a"), "must_not_starve");
    // No feeding move: South is stuck with seeds on the board; North has none either.
    assert_outcome("dakar 1,0,0,0,0,0/0,0,0,0,0,0 3-4 S 9 -", [4, 4], None, EndReason::NeitherCanMove);
    let p = at("halusa 1,0,0,0,0,1/0,0,0,0,0,0 0-0 S 0 -");
    assert_eq!(p.moves(), vec!["f"]);
    assert_eq!(p.code("a"), "must_not_starve");
    assert!(at("halusa 1,1,0,0,0,0/0,0,0,0,0,0 0-0 S 0 -").moves().is_empty());
}

#[test]
fn starving_must_feed_abapa_and_leb() {
    // North empty: only feeding moves.
    for v in ["abapa", "leb-bbut-ahbochen"] {
        let p = at(&format!("{v} 0,0,0,0,1,1/0,0,0,0,0,0 0-0 S 3 -"));
        assert_eq!(p.moves(), vec!["f"]);
        assert_eq!(p.code("e"), "must_feed");
        assert_eq!(p.play("f").text(), format!("{v} 0,0,0,0,1,0/1,0,0,0,0,0 0-0 N 4 -"));
    }
    // No feeding move: the game is over (abapa: each takes their own row).
    assert_outcome(
        "abapa 1,0,0,0,0,0/0,0,0,0,0,0 10-20 S 30 -",
        [11, 20],
        Some(N),
        EndReason::NeitherCanMove,
    );
    assert_eq!(at("abapa 1,0,0,0,0,0/0,0,0,0,0,0 10-20 S 30 -").code("a"), "game_over");
}

#[test]
fn starving_must_feed_applies_only_when_the_opponents_row_is_empty() {
    // Two user rules that differ only in the starving rule, grand slam allowed: f(1): A 1->2 is
    // captured and empties North's row; e(1): f 1->2 does not.
    let body = "[capture]\nvalues = [2, 3]\nterritory = \"opponent\"\n";
    let feed = user_rules(&format!("id = \"t-must-feed\"\n{body}[starving]\nrule = \"must-feed\"\n"));
    let avoid = user_rules(&format!("id = \"t-avoid\"\n{body}[starving]\nrule = \"avoid\"\n"));
    let board = "0,0,0,0,1,1/1,0,0,0,0,0 0-0 S 0 -";
    // Must feed: North has seeds, so the rule does not apply: both moves.
    assert_eq!(at(&format!("{feed} {board}")).moves(), vec!["e", "f"]);
    assert_eq!(after(&format!("{feed} {board}"), "f"), format!("{feed} 0,0,0,0,1,0/0,0,0,0,0,0 2-0 N 1 -"));
    // Avoid: the capture f starves North while e leaves North its seed: only e.
    assert_eq!(at(&format!("{avoid} {board}")).moves(), vec!["e"]);
    assert_eq!(at(&format!("{avoid} {board}")).code("f"), "must_not_starve");
}

// ---------------------------------------------------------------------------------------------
// End conditions
// ---------------------------------------------------------------------------------------------

#[test]
fn end_stuck_ends_the_game() {
    // Awale: South to move has no seeds; North can move: the game ends, own rows.
    assert_outcome("awale 0,0,0,0,0,0/1,2,0,0,0,0 3-5 S 9 -", [3, 8], Some(N), EndReason::Stuck);
}

#[test]
fn end_pass_variants_pass_while_the_opponent_can_play() {
    for v in ["2-4", "darra", "jodu", "oware", "vai-lung-thlan", "wouri"] {
        // South has nothing playable (2-4 needs 2 seeds), North can play.
        let south = if v == "2-4" { "1,1,0,0,0,0" } else { "0,0,0,0,0,0" };
        let text = format!("{v} {south}/2,2,2,2,2,2 0-0 S 7 -");
        let p = at(&text);
        assert_eq!(p.outcome(), None, "{text}");
        assert_eq!(p.moves(), vec!["pass"], "{text}");
        if v == "2-4" {
            assert_eq!(p.code("a"), "too_few_seeds");
        } else {
            assert_eq!(p.code("a"), "empty_hole");
        }
        let (q, ev) = p.play_events("pass");
        assert_eq!(q.text(), format!("{v} {south}/2,2,2,2,2,2 0-0 N 8 -"));
        assert_eq!(ev, vec![Event::Pass { player: S }]);
        // North, who can play, may not pass.
        assert_eq!(q.code("pass"), "cannot_pass");
    }
    // Neither can play: the game ends (2-4: nobody takes the seeds left).
    assert_outcome("2-4 1,1,0,0,0,0/1,0,0,0,0,0 3-4 S 5 -", [3, 4], Some(N), EndReason::NeitherCanMove);
}

#[test]
fn end_board_empty() {
    // Vai Lung Thlan f(1): A 0->1 captured; f emptied: the board is empty.
    let p = at("vai-lung-thlan 0,0,0,0,0,1/0,0,0,0,0,0 29-30 S 50 -").play("f");
    assert_eq!(p.text(), "vai-lung-thlan 0,0,0,0,0,0/0,0,0,0,0,0 30-30 N 51 -");
    let o = p.outcome().unwrap();
    assert_eq!((o.scores, o.winner, o.reason), ([30, 30], None, EndReason::BoardEmpty));
    assert_outcome("2-4 0,0,0,0,0,0/0,0,0,0,0,0 10-38 N 40 -", [10, 38], Some(N), EndReason::BoardEmpty);
}

#[test]
fn end_fewer_than_5_seeds() {
    // 4 seeds on the board: over. Nobody has captured: each takes their own row.
    assert_outcome("oware 0,0,0,0,1,1/1,1,0,0,0,0 20-20 S 30 -", [22, 22], None, EndReason::FewSeeds);
    // North captured last: North takes all 4.
    assert_outcome("oware 0,0,0,0,1,1/1,1,0,0,0,0 20-20 S 30 cap=N", [20, 24], Some(N), EndReason::FewSeeds);
    assert_outcome("wouri 0,0,0,0,1,1/1,1,0,0,0,0 20-20 S 30 cap=S", [24, 20], Some(S), EndReason::FewSeeds);
    // 5 seeds: the game goes on.
    assert_going_on("darra 0,0,0,0,1,1/1,1,1,0,0,0 20-20 S 30 -");
    // Reached by a move: Darra f(2): A 0->1, B 3->4 captured (S): 2 seeds left, South captured
    // last and takes them.
    let p = at("darra 0,0,0,0,0,2/0,3,1,0,0,0 0-0 S 0 -").play("f");
    assert_eq!(p.text(), "darra 0,0,0,0,0,0/1,0,1,0,0,0 4-0 N 1 cap=S");
    let o = p.outcome().unwrap();
    assert_eq!((o.scores, o.winner, o.reason), ([6, 0], Some(S), EndReason::FewSeeds));
}

#[test]
fn end_fewer_than_1_seed_jodu() {
    assert_outcome("jodu 0,0,0,0,0,0/0,0,0,0,0,0 20-28 S 30 -", [20, 28], Some(N), EndReason::FewSeeds);
    // One seed left: North plays it (South would pass).
    let p = at("jodu 0,0,0,0,0,0/1,0,0,0,0,0 20-27 N 30 -");
    assert_eq!(p.moves(), vec!["A"]);
    // A(1): B 0->1 ends on North's own row: B and the hole opposite (e, empty): North takes 1.
    let p = p.play("A");
    assert_eq!(p.text(), "jodu 0,0,0,0,0,0/0,0,0,0,0,0 20-28 S 31 -");
    assert_eq!(p.outcome().unwrap().reason, EndReason::FewSeeds);
}

#[test]
fn end_store_above_24() {
    assert_going_on("abapa 1,1,1,1,1,1/1,1,1,1,1,1 24-0 S 40 -");
    assert_outcome(
        "abapa 1,1,1,1,1,1/1,1,1,1,1,1 25-11 S 40 -",
        [31, 17],
        Some(S),
        EndReason::StoreThreshold,
    );
    assert_outcome(
        "dakar 1,1,1,1,1,1/1,1,1,1,1,1 11-25 S 40 -",
        [17, 31],
        Some(N),
        EndReason::StoreThreshold,
    );
    // Reached by a capture: f(2): A, B 1->2: 4 more makes 27.
    let p = at("abapa 0,0,0,0,0,2/1,1,0,0,0,1 23-0 S 40 -").play("f");
    assert_eq!(p.text(), "abapa 0,0,0,0,0,0/0,0,0,0,0,1 27-0 N 41 -");
    let o = p.outcome().unwrap();
    assert_eq!((o.scores, o.winner, o.reason), ([27, 1], Some(S), EndReason::StoreThreshold));
    // Variants without the threshold go on.
    assert_going_on("awale 1,1,1,1,1,1/1,1,1,1,1,1 30-0 S 40 -");
}

#[test]
fn end_turn_limit() {
    let p = at("abapa(max_turns=10) 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 9 -");
    assert_eq!(p.outcome(), None);
    // a(4): b..e 4->5. Turn 10 reaches the limit: an endless cycle, own rows: 24-24.
    let p = p.play("a");
    assert_eq!(p.text(), "abapa(max_turns=10) 0,5,5,5,5,4/4,4,4,4,4,4 0-0 N 10 -");
    let o = p.outcome().unwrap();
    assert_eq!((o.scores, o.winner, o.reason), ([24, 24], None, EndReason::TurnLimit));
    assert!(p.moves().is_empty());
    assert_eq!(p.code("A"), "game_over");
    // A natural end at the limit takes precedence.
    // (North's F can feed South, so South alone is stuck.)
    assert_outcome(
        "abapa(max_turns=10) 0,0,0,0,0,0/0,0,0,0,0,1 0-0 S 10 -",
        [0, 1],
        Some(N),
        EndReason::Stuck,
    );
    // When North could not feed South either, neither can move.
    assert_outcome(
        "abapa(max_turns=10) 0,0,0,0,0,0/1,0,0,0,0,0 0-0 S 10 -",
        [0, 1],
        Some(N),
        EndReason::NeitherCanMove,
    );
    // The notation refuses a turn count past the limit, naming the field.
    match registry::parse_position("abapa(max_turns=10) 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 11 -") {
        Err(Error::Notation(e)) => assert!(e.message.starts_with("field 5 (turns)"), "{}", e.message),
        other => panic!("{other:?}"),
    }
}

#[test]
fn end_relay_cut_after_1000_laps() {
    // A user rule whose relay never ends: every lap goes on while the last hole holds a seed.
    let id = user_rules(
        "id = \"t-endless\"\n[relay]\nmode = \"continues-on\"\nvalues = [\"1..\"]\n\
         [remaining]\nto = \"nobody\"\nendless = \"own-row\"\n",
    );
    // One seed moves one hole a lap: lap k ends on hole k (mod 12); lap 1,000 ends on hole
    // 1000 mod 12 = 4 (e) and would go on: the turn is cut there.
    let (p, ev) = at(&format!("{id} 1,0,0,0,0,0/0,0,0,0,0,0 2-3 S 0 -")).play_events("a");
    assert_eq!(p.text(), format!("{id} 0,0,0,0,1,0/0,0,0,0,0,0 2-3 N 1 cycle"));
    assert_eq!(ev.len(), 1001);
    assert_eq!(ev[0], lap(0, 1, &[1]));
    assert_eq!(ev[999], lap(3, 1, &[4]));
    assert_eq!(ev[1000], Event::Cut { laps: 1000 });
    // The game is over as an endless cycle: own rows (the endless rule), not "nobody".
    let o = p.outcome().unwrap();
    assert_eq!((o.scores, o.winner, o.reason), ([3, 3], None, EndReason::EndlessCycle));
    assert!(p.moves().is_empty());
    // The flag parses back and ends a built-in game the same way.
    assert_outcome("awale 4,4,4,4,4,4/4,4,4,4,4,3 0-1 N 7 cycle", [24, 24], None, EndReason::EndlessCycle);
}

// ---------------------------------------------------------------------------------------------
// Who takes the remaining seeds
// ---------------------------------------------------------------------------------------------

#[test]
fn remaining_own_row() {
    assert_outcome("kale 0,0,0,0,0,0/1,2,0,0,0,0 3-5 S 9 -", [3, 8], Some(N), EndReason::Stuck);
    assert_outcome("adjito 0,0,0,0,0,0/1,2,0,0,0,0 3-5 S 9 -", [3, 8], Some(N), EndReason::Stuck);
    assert_outcome("songo-duala 0,1,0,0,0,0/0,0,0,0,0,0 3-5 N 9 -", [4, 5], Some(N), EndReason::Stuck);
}

#[test]
fn remaining_last_mover() {
    // Ot-Tjin: South cannot move; the last move was North's: North takes the board.
    assert_outcome("ot-tjin 0,0,0,0,0,0/1,2,0,0,0,0 4-5 S 9 -", [4, 8], Some(N), EndReason::Stuck);
    // A user rule where a stuck player can still hold seeds (min 2): the last mover (North)
    // takes South's seeds too.
    let id = user_rules("id = \"t-last-mover\"\n[sowing]\nmin_seeds = 2\n[remaining]\nto = \"last-mover\"\n");
    assert_outcome(&format!("{id} 1,1,0,0,0,0/0,0,3,0,0,0 4-5 S 9 -"), [4, 10], Some(N), EndReason::Stuck);
}

#[test]
fn remaining_last_capturer_with_the_nobody_captured_fallback() {
    // Darra: fewer than 5 seeds; cap=S: South takes all 4.
    assert_outcome("darra 0,0,0,0,1,1/1,1,0,0,0,0 20-20 N 30 cap=S", [24, 20], Some(S), EndReason::FewSeeds);
    // Nobody captured: each takes their own row.
    assert_outcome("darra 0,0,0,0,1,0/1,1,1,0,0,0 20-20 N 30 -", [21, 23], Some(N), EndReason::FewSeeds);
    // The flag is kept by later turns without captures: a(1): b 0->1.
    assert_eq!(
        after("oware 1,0,0,0,0,0/1,1,1,1,1,1 4-0 S 3 cap=N", "a"),
        "oware 0,1,0,0,0,0/1,1,1,1,1,1 4-0 N 4 cap=N"
    );
    // Variants whose rules do not read it refuse the flag.
    assert!(registry::parse_position("awale 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 cap=S").is_err());
}

#[test]
fn remaining_not_stuck_else_last_mover_adji_boto() {
    // South (1, 1: fewer than 2 each) is stuck; North can play C: North takes everything.
    assert_outcome("adji-boto 1,1,0,0,0,0/0,0,3,0,0,0 2-3 S 9 -", [2, 8], Some(N), EndReason::Stuck);
    // Both stuck: the last mover (North) takes everything.
    assert_outcome("adji-boto 1,1,0,0,0,0/0,0,1,0,0,0 2-3 S 9 -", [2, 6], Some(N), EndReason::NeitherCanMove);
}

#[test]
fn remaining_not_stuck_else_own_row_halusa() {
    // South has nothing; North can play (F feeds South): North takes the board.
    assert_outcome("halusa 0,0,0,0,0,0/1,0,0,0,0,2 4-5 S 7 -", [4, 8], Some(N), EndReason::Stuck);
    // North's only move A(1) -> B would starve South, which is forbidden: neither can move;
    // each takes their own row (the same 3 seeds for North here).
    assert_outcome("halusa 0,0,0,0,0,0/1,2,0,0,0,0 4-5 S 7 -", [4, 8], Some(N), EndReason::NeitherCanMove);
    // South's only move starves North and North has nothing: both stuck: own rows.
    assert_outcome("halusa 1,0,0,0,0,0/0,0,0,0,0,0 5-3 S 10 -", [6, 3], Some(S), EndReason::NeitherCanMove);
}

#[test]
fn remaining_opponent_of_stuck_leb() {
    // South cannot feed North: North takes South's seed.
    assert_outcome(
        "leb-bbut-ahbochen 1,0,0,0,0,0/0,0,0,0,0,0 3-4 S 9 -",
        [3, 5],
        Some(N),
        EndReason::NeitherCanMove,
    );
    // South has nothing; North can feed South (F): North takes its own.
    assert_outcome("leb-bbut-ahbochen 0,0,0,0,0,0/0,0,0,0,0,2 3-4 S 9 -", [3, 6], Some(N), EndReason::Stuck);
    // An endless cycle (turn limit) is own rows.
    let o = outcome_of("leb-bbut-ahbochen(max_turns=5) 1,0,0,0,0,0/0,2,0,0,0,0 3-4 S 5 -");
    assert_eq!((o.scores, o.reason), ([4, 6], EndReason::TurnLimit));
}

#[test]
fn remaining_nobody() {
    assert_outcome("2-4 1,1,0,0,0,0/1,0,0,0,0,0 3-4 S 5 -", [3, 4], Some(N), EndReason::NeitherCanMove);
    // Nyakun (any hole playable) can only end naturally on an empty board, where nobody's
    // share is 0; its endless cycle is own rows.
    let o = outcome_of("nyakun(max_turns=5) 1,0,0,0,0,0/0,0,2,0,0,0 3-4 S 5 -");
    assert_eq!((o.scores, o.reason), ([4, 6], EndReason::TurnLimit));
}

// ---------------------------------------------------------------------------------------------
// check_move reason codes
// ---------------------------------------------------------------------------------------------

#[test]
fn check_move_reason_codes() {
    let start = at("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -");
    assert_eq!(start.code("a"), "ok");
    assert_eq!(start.code("A"), "not_own_hole");
    assert_eq!(start.code("pass"), "cannot_pass");
    assert_eq!(at("abapa 0,4,4,4,4,4/4,4,4,4,4,4 0-0 S 1 -").code("a"), "empty_hole");
    assert_eq!(at("adji-boto 1,8,8,8,8,8/8,8,8,8,8,8 0-0 S 0 -").code("a"), "too_few_seeds");
    assert_eq!(at("abapa 0,0,0,0,1,1/0,0,0,0,0,0 0-0 S 0 -").code("e"), "must_feed");
    assert_eq!(at("awale 0,0,0,0,1,1/0,0,0,0,0,0 0-0 S 0 -").code("e"), "must_not_starve");
    assert_eq!(at("awale 0,0,0,0,0,0/1,0,0,0,0,0 0-0 S 0 -").code("A"), "game_over");
    // North's turn: South's holes are not North's.
    assert_eq!(at("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 N 0 -").code("f"), "not_own_hole");
    // Labels past the row do not parse.
    let p = at("abapa(holes=4) 4,4,4,4/4,4,4,4 0-0 S 0 -");
    assert!(matches!(p.g.parse_move(&p.p, "e"), Err(Error::Notation(_))));
    assert!(matches!(p.g.parse_move(&p.p, "a:cw"), Err(Error::Notation(_))));
}

// ---------------------------------------------------------------------------------------------
// Rule-language features no shipped variant uses (user rule files)
// ---------------------------------------------------------------------------------------------

#[test]
fn user_rule_direction_clockwise() {
    let id = user_rules("id = \"t-cw\"\n[sowing]\ndirection = \"cw\"\n");
    // c(3) clockwise: b, a, then F.
    let p = at(&format!("{id} 0,0,3,0,0,0/0,0,0,0,0,1 0-0 S 0 -"));
    assert_eq!(p.moves(), vec!["c"]);
    assert_eq!(p.play("c").text(), format!("{id} 1,1,0,0,0,0/0,0,0,0,0,2 0-0 N 1 -"));
    assert_eq!(p.play("c:cw").text(), format!("{id} 1,1,0,0,0,0/0,0,0,0,0,2 0-0 N 1 -"));
    assert!(matches!(p.g.parse_move(&p.p, "c:ccw"), Err(Error::Notation(_))));
    // North sows clockwise too: A(2): f, e.
    assert_eq!(
        after(&format!("{id} 0,0,0,0,0,0/2,0,0,0,0,0 0-0 N 0 -"), "A"),
        format!("{id} 0,0,0,0,1,1/0,0,0,0,0,0 0-0 S 1 -")
    );
}

#[test]
fn user_rule_direction_choice() {
    let id = user_rules(
        "id = \"t-choice\"\n[sowing]\ndirection = \"choice\"\n\
         [capture]\nvalues = [2]\nterritory = \"opponent\"\n",
    );
    let p = at(&format!("{id} 0,0,0,0,0,0/1,2,1,0,0,1 0-0 N 0 -"));
    assert_eq!(p.moves(), vec!["A:ccw", "A:cw", "B:ccw", "B:cw", "C:ccw", "C:cw", "F:ccw", "F:cw"]);
    // B(2) counter-clockwise: C 1->2, D 0->1 (North's own row): nothing.
    assert_eq!(p.play("B:ccw").text(), format!("{id} 0,0,0,0,0,0/1,0,2,1,0,1 0-0 S 1 -"));
    // B(2) clockwise: A 1->2, f 0->1: f is South's but holds 1.
    assert_eq!(p.play("B:cw").text(), format!("{id} 0,0,0,0,0,1/2,0,1,0,0,1 0-0 S 1 -"));
    // A bare label needs a direction here.
    assert!(matches!(p.g.parse_move(&p.p, "B"), Err(Error::Notation(_))));
    // Clockwise with a capture: South a(1) clockwise: F 1->2 captured.
    assert_eq!(
        after(&format!("{id} 1,0,0,0,0,0/1,0,0,0,0,1 0-0 S 0 -"), "a:cw"),
        format!("{id} 0,0,0,0,0,0/1,0,0,0,0,0 2-0 N 1 -")
    );
}

#[test]
fn user_rule_first_seed_into_the_origin() {
    let id = user_rules("id = \"t-first\"\n[sowing]\nfirst_into_origin = true\n");
    // c(3): c 0->1, d, e 0->1.
    let (p, ev) = at(&format!("{id} 0,0,3,0,0,0/1,0,0,0,0,0 0-0 S 0 -")).play_events("c");
    assert_eq!(p.text(), format!("{id} 0,0,1,1,1,0/1,0,0,0,0,0 0-0 N 1 -"));
    assert_eq!(ev, vec![lap(2, 3, &[2, 3, 4])]);
    // A single seed goes straight back: a legal move that changes nothing on the board.
    assert_eq!(
        after(&format!("{id} 0,0,1,0,0,0/1,0,0,0,0,0 0-0 S 0 -"), "c"),
        format!("{id} 0,0,1,0,0,0/1,0,0,0,0,0 0-0 N 1 -")
    );
}

#[test]
fn user_rule_skip_above() {
    let id = user_rules("id = \"t-skip-above\"\n[sowing]\nskip_above = 3\n");
    // a(3): b holds 5 > 3: skipped; c holds 3 (not above): 4; d, e 0->1.
    assert_eq!(
        after(&format!("{id} 3,5,3,0,0,0/1,0,0,0,0,0 0-0 S 0 -"), "a"),
        format!("{id} 0,5,4,1,1,0/1,0,0,0,0,0 0-0 N 1 -")
    );
}

#[test]
fn user_rule_capture_target_next() {
    let id = user_rules("id = \"t-next\"\n[capture]\nvalues = [2]\nterritory = \"any\"\ntarget = \"next\"\n");
    // c(1): d 1->2: the hole after it, e (3), is taken; d stays.
    assert_eq!(
        after(&format!("{id} 0,0,1,1,3,0/1,1,1,1,1,1 0-0 S 0 -"), "c"),
        format!("{id} 0,0,0,2,0,0/1,1,1,1,1,1 3-0 N 1 -")
    );
}

#[test]
fn user_rule_forward_chain() {
    let id = user_rules(
        "id = \"t-forward\"\n[capture]\nvalues = [2, 3]\nterritory = \"opponent\"\nchain = \"forward\"\n",
    );
    // f(2): A 1->2, B 1->2 last: B, then forward C (2) taken, D (1) stops; A (behind) stays.
    assert_eq!(
        after(&format!("{id} 0,0,0,0,0,2/1,1,2,1,1,1 0-0 S 0 -"), "f"),
        format!("{id} 0,0,0,0,0,0/2,0,0,1,1,1 4-0 N 1 -")
    );
}

#[test]
fn user_rule_grand_slam_illegal() {
    let id = user_rules(
        "id = \"t-gs-illegal\"\n[capture]\nvalues = [2, 3]\nterritory = \"opponent\"\n\
         chain = \"backward\"\ngrand_slam = \"illegal\"\n",
    );
    // f(2): A, B 1->2 would take everything North has: illegal; e(1): f 2->3 is fine.
    let p = at(&format!("{id} 0,0,0,0,1,2/1,1,0,0,0,0 0-0 S 0 -"));
    assert_eq!(p.moves(), vec!["e"]);
    assert_eq!(p.code("f"), "grand_slam");
    // When the grand slam is the only move, the player cannot move: the game ends.
    assert_outcome(&format!("{id} 0,0,0,0,0,2/1,1,0,0,0,0 0-0 S 0 -"), [2, 2], None, EndReason::Stuck);
}

#[test]
fn user_rule_end_all_singletons() {
    let id = user_rules("id = \"t-singletons\"\n[end]\nall_singletons = true\n");
    assert_outcome(
        &format!("{id} 1,1,0,0,0,0/1,0,0,0,0,1 4-6 S 2 -"),
        [6, 8],
        Some(N),
        EndReason::AllSingletons,
    );
    assert_going_on(&format!("{id} 1,2,0,0,0,0/1,0,0,0,0,1 4-6 S 2 -"));
    // Reached by a move: b(2): c 0->1, d 0->1.
    let p = at(&format!("{id} 0,2,0,0,0,0/1,0,0,0,0,1 4-6 S 2 -")).play("b");
    assert_eq!(p.outcome().unwrap().reason, EndReason::AllSingletons);
}

#[test]
fn user_rule_scoring_store_and_row() {
    let base = "[sowing]\nmin_seeds = 2\n[remaining]\nto = \"nobody\"\n";
    let rows = user_rules(&format!("id = \"t-store-and-row\"\n{base}[scoring]\ncount = \"store-and-row\"\n"));
    let store = user_rules(&format!("id = \"t-store-only\"\n{base}[scoring]\ncount = \"store\"\n"));
    // Neither can play (singletons). Stores only: 4-5, North wins; stores plus own rows:
    // 4+3 = 7 against 5+1 = 6, South wins.
    let board = "1,1,1,0,0,0/1,0,0,0,0,0 4-5 S 8 -";
    assert_outcome(&format!("{store} {board}"), [4, 5], Some(N), EndReason::NeitherCanMove);
    assert_outcome(&format!("{rows} {board}"), [7, 6], Some(S), EndReason::NeitherCanMove);
}

#[test]
fn user_rule_options_and_registration() {
    let id = user_rules("id = \"t-options\"\n[board]\nholes = 4\nseeds = 3\nallowed_holes = [2, 4]\n");
    let p = at(&format!("{id} 3,3,3,3/3,3,3,3 0-0 S 0 -"));
    assert_eq!(
        p.text(),
        registry::game(&id).unwrap().format_position(&registry::game(&id).unwrap().start()).unwrap()
    );
    assert_eq!(registry::game("t-options(holes=2)").unwrap().variant().canonical(), "t-options(holes=2)");
    assert!(matches!(
        registry::game("t-options(holes=6)"),
        Err(VariantError::BadOption { ref option, .. }) if option == "holes"
    ));
    // A built-in id cannot be taken.
    assert!(matches!(
        registry::register_rule_file("id = \"awale\"\n"),
        Err(VariantError::RuleFile { ref field, .. }) if field == "id"
    ));
    // Re-registering replaces the rules.
    let id2 = user_rules("id = \"t-options\"\n[board]\nholes = 2\n");
    assert_eq!(id2, id);
    assert_eq!(
        registry::game("t-options")
            .unwrap()
            .format_position(&registry::game("t-options").unwrap().start())
            .unwrap(),
        "t-options 4,4/4,4 0-0 S 0 -"
    );
}

#[test]
fn rule_file_errors_name_the_field() {
    let cases: &[(&str, &str)] = &[
        ("name = \"x\"\n", "id"),
        ("id = \"Bad Id\"\n", "id"),
        ("id = \"x\"\ncolour = \"red\"\n", "colour"),
        ("id = \"x\"\nboard = 3\n", "board"),
        ("id = \"x\"\n[board]\nholes = 19\n", "board.holes"),
        ("id = \"x\"\n[board]\nholes = \"six\"\n", "board.holes"),
        ("id = \"x\"\n[board]\nholes = 18\nseeds = 8\n", "board.seeds"),
        ("id = \"x\"\n[board]\nallowed_holes = [4, 8]\n", "board.allowed_holes"),
        ("id = \"x\"\n[sowing]\ndirection = \"up\"\n", "sowing.direction"),
        ("id = \"x\"\n[sowing]\nplayable = \"mine\"\n", "sowing.playable"),
        ("id = \"x\"\n[sowing]\nleave_one = true\n", "sowing.min_seeds"),
        ("id = \"x\"\n[sowing]\nleave_one = \"yes\"\nmin_seeds = 2\n", "sowing.leave_one"),
        ("id = \"x\"\n[sowing]\nfirst_into_origin = true\nskip_origin = true\n", "sowing.first_into_origin"),
        ("id = \"x\"\n[sowing]\nskip_above = 0\n", "sowing.skip_above"),
        ("id = \"x\"\n[sowing]\nskip_origins = true\n", "sowing.skip_origins"),
        ("id = \"x\"\n[relay]\nvalues = [1]\n", "relay.mode"),
        ("id = \"x\"\n[relay]\nmode = \"ends-on\"\n", "relay.values"),
        ("id = \"x\"\n[relay]\nmode = \"ends-on\"\nvalues = [256]\n", "relay.values"),
        ("id = \"x\"\n[flow_capture]\nvalues = [4]\n", "flow_capture.taker"),
        ("id = \"x\"\n[capture]\nvalues = [2]\n", "capture.territory"),
        ("id = \"x\"\n[capture]\nvalues = []\nterritory = \"any\"\n", "capture.values"),
        ("id = \"x\"\n[capture]\nvalues = [\"3..1\"]\nterritory = \"any\"\n", "capture.values"),
        ("id = \"x\"\n[capture]\nvalues = [\"many\"]\nterritory = \"any\"\n", "capture.values"),
        ("id = \"x\"\n[capture]\nvalues = [2]\nterritory = \"any\"\ntarget = \"far\"\n", "capture.target"),
        ("id = \"x\"\n[capture]\nvalues = [2]\nterritory = \"any\"\nchain = \"both\"\n", "capture.chain"),
        (
            "id = \"x\"\n[capture]\nvalues = [2]\nterritory = \"any\"\ngrand_slam = \"no\"\n",
            "capture.grand_slam",
        ),
        ("id = \"x\"\n[starving]\nrule = \"sometimes\"\n", "starving.rule"),
        ("id = \"x\"\n[end]\nstuck = \"wait\"\n", "end.stuck"),
        ("id = \"x\"\n[end]\nfewer_than = 0\n", "end.fewer_than"),
        ("id = \"x\"\n[remaining]\nto = \"winner\"\n", "remaining.to"),
        ("id = \"x\"\n[remaining]\nendless = \"winner\"\n", "remaining.endless"),
        ("id = \"x\"\n[scoring]\ncount = \"points\"\n", "scoring.count"),
    ];
    for (text, field) in cases {
        let (f, message) = rule_file_error(text);
        assert_eq!(&f, field, "{text}: {message}");
        assert!(!message.is_empty());
    }
    // TOML syntax errors name the line and column.
    let (f, _) = rule_file_error("id = \"x\"\n[board\n");
    assert!(f.starts_with("line 2"), "{f}");
    // The message says what is wrong.
    let (_, message) = rule_file_error("id = \"x\"\n[capture]\nvalues = [2]\nterritory = \"theirs\"\n");
    assert!(message.contains("\"theirs\"") && message.contains("opponent"), "{message}");
}

#[test]
fn builtin_rule_files_read_as_the_seed_says() {
    use griot_core::sowing::rules::{Remaining, Starving, Stuck};
    let rules = |id: &str| {
        let g = registry::game(id).unwrap();
        #[allow(irrefutable_let_patterns)]
        let AnyGame::Sowing(sg) = &*g
        else {
            panic!("{id} is a sowing game")
        };
        sg.rules().clone()
    };
    let start = |id: &str| {
        let g = registry::game(id).unwrap();
        g.format_position(&g.start()).unwrap()
    };
    // Seeds per hole from each text.
    for (id, seeds) in [
        ("2-4", 4),
        ("adji-boto", 8),
        ("adjito", 4),
        ("awale", 4),
        ("dakar", 4),
        ("darra", 4),
        ("french-wari", 4),
        ("halusa", 6),
        ("jodu", 4),
        ("kale", 4),
        ("nyakun", 4),
        ("ot-tjin", 3),
        ("oware", 4),
        ("songo-duala", 8),
        ("vai-lung-thlan", 5),
        ("wouri", 4),
        ("abapa", 4),
        ("leb-bbut-ahbochen", 4),
    ] {
        let row = vec![seeds.to_string(); 6].join(",");
        assert_eq!(start(id), format!("{id} {row}/{row} 0-0 S 0 -"));
    }
    assert_eq!(rules("adji-boto").remaining, Remaining::NotStuckElseLastMover);
    assert_eq!(rules("halusa").remaining, Remaining::NotStuckElseOwnRow);
    assert_eq!(rules("ot-tjin").remaining, Remaining::LastMover);
    assert_eq!(rules("dakar").starving, Starving::Forbidden);
    assert_eq!(rules("abapa").starving, Starving::MustFeed);
    assert_eq!(rules("vai-lung-thlan").end.stuck, Stuck::Pass);
    assert_eq!(rules("leb-bbut-ahbochen").allowed_holes, Some(vec![2, 4, 6, 8, 10]));
    assert!(matches!(
        registry::game("leb-bbut-ahbochen(holes=3)"),
        Err(VariantError::BadOption { ref option, .. }) if option == "holes"
    ));
    assert!(matches!(
        registry::game("abapa(holes=12,seeds=11)"),
        Err(VariantError::BadOption { ref option, .. }) if option == "seeds"
    ));
    assert!(matches!(registry::game("mancala"), Err(VariantError::Unknown(_))));
}

#[test]
fn turn_counter_counts_past_65535_when_the_limit_allows() {
    // max_turns accepts up to 1,000,000, so the turn counter must count that far: the position
    // after turn 65,535 is turn 65,536, and a game with max_turns=70000 must be able to reach
    // its limit (otherwise the hard turn limit never ends it).
    let p = at("abapa(max_turns=70000) 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 65535 -").play("a");
    assert_eq!(p.text(), "abapa(max_turns=70000) 0,5,5,5,5,4/4,4,4,4,4,4 0-0 N 65536 -");
    assert_outcome(
        "abapa(max_turns=70000) 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 70000 -",
        [24, 24],
        None,
        EndReason::TurnLimit,
    );
}
