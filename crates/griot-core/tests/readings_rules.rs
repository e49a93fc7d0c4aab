//! One test per rule-language field that states a documented reading of a game (docs/RULE_FILES.md,
//! docs/rules/readings.md), on hand-built boards, in the style of `sowing_rules.rs`.
//!
//! Board reminder (6 holes a row): South `a..f` = holes 0..5 from South's left, North `A..F` =
//! holes 6..11 from North's left; counter-clockwise is hole + 1 (f is followed by A, F by a);
//! hole `i` is opposite `11 - i`. A position is
//! `<variant> <south>/<north> <store-S>-<store-N> <side> <turns> <flags>`.
//!
//! User rule files (ids starting `t-`) test fields no shipped reading uses.

mod common;

use common::{after, after_with_events, illegal, moves, outcome, parse_error};
use griot_core::registry;
use griot_core::sowing::rules::RuleSet;
use griot_core::{EndReason, Outcome, Player, VariantError};

use griot_core::Player::{North as N, South as S};

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

fn over(text: &str) -> Outcome {
    let o = outcome(text).unwrap_or_else(|| panic!("{text} should be over"));
    assert!(moves(text).is_empty(), "a finished game has no legal moves: {text}");
    o
}

fn assert_outcome(text: &str, scores: [i32; 2], winner: Option<Player>, reason: EndReason) {
    let o = over(text);
    assert_eq!((o.scores, o.winner, o.reason), (scores, winner, reason), "outcome of {text}");
}

fn describe(id: &str) -> Vec<String> {
    registry::game(id).unwrap().describe_rules()
}

// ---------------------------------------------------------------------------------------------
// End-of-game choices
// ---------------------------------------------------------------------------------------------

#[test]
fn neither_can_move_draw_when_both_are_stuck() {
    // Nobody can play: Ot-Tjin gives the board (nothing) to the last mover and the stores decide;
    // Ludii's end makes it a draw, the scores unchanged.
    assert_outcome(
        "ot-tjin 0,0,0,0,0,0/0,0,0,0,0,0 10-26 S 20 -",
        [10, 26],
        Some(N),
        EndReason::NeitherCanMove,
    );
    assert_outcome(
        "ot-tjin-ludii 0,0,0,0,0,0/0,0,0,0,0,0 10-26 S 20 -",
        [10, 26],
        None,
        EndReason::NeitherCanMove,
    );
    // Only South is stuck (North could sow F): not "both stuck", so the scores decide as in
    // Ot-Tjin: the last mover, North, takes the 2 left.
    assert_outcome("ot-tjin-ludii 0,0,0,0,0,0/0,0,0,0,0,2 10-24 S 20 -", [10, 26], Some(N), EndReason::Stuck);
    assert!(describe("ot-tjin-ludii").iter().any(|l| l.contains("both players are stuck")));
}

#[test]
fn neither_can_move_draw_when_both_pass_in_turn() {
    // A pass game: South cannot sow and North could, so South passes; with North empty too the
    // game ends at once (both would pass in turn) and is a draw.
    let id = user_rules(
        "id = \"t-pass-draw\"\n[capture]\nvalues = [2, 3]\nterritory = \"opponent\"\n\
         [end]\nstuck = \"pass\"\nneither_can_move = \"draw\"\n",
    );
    assert_eq!(moves(&format!("{id} 0,0,0,0,0,0/0,0,0,0,0,1 20-27 S 9 -")), ["pass"]);
    assert_eq!(outcome(&format!("{id} 0,0,0,0,0,0/0,0,0,0,0,1 20-27 S 9 -")), None);
    assert_outcome(
        &format!("{id} 0,0,0,0,0,0/0,0,0,0,0,0 20-28 S 9 -"),
        [20, 28],
        None,
        EndReason::NeitherCanMove,
    );
    assert!(describe(&id).iter().any(|l| l.contains("both players pass in turn")));
}

#[test]
fn stuck_result_draw() {
    let id = user_rules("id = \"t-stuck-draw\"\n[end]\nstuck_result = \"draw\"\n");
    // South cannot play, North could: a draw, whatever the seeds say (each takes their own row).
    assert_outcome(&format!("{id} 0,0,0,0,0,0/0,0,0,0,0,3 10-35 S 9 -"), [10, 38], None, EndReason::Stuck);
    // Neither can play: as stuck, a draw.
    assert_outcome(
        &format!("{id} 0,0,0,0,0,0/0,0,0,0,0,0 10-38 S 9 -"),
        [10, 38],
        None,
        EndReason::NeitherCanMove,
    );
    assert!(describe(&id)
        .iter()
        .any(|l| l == "Result: when the player to move cannot play, the game is a draw."));
}

#[test]
fn stuck_result_mover_wins_below_a_threshold() {
    // A row held 6 x 4 = 24 seeds at the start: the stuck player must have captured 24 to draw.
    let id = user_rules(
        "id = \"t-threshold\"\n[end]\nstuck_result = \"mover-wins-below\"\nstuck_threshold = \"start-row\"\n",
    );
    // South stuck with 23 captured: North, who moved last, wins though South has more seeds.
    assert_outcome(&format!("{id} 0,0,0,0,0,0/0,0,0,0,0,3 23-22 S 9 -"), [23, 25], Some(N), EndReason::Stuck);
    // With 24 captured: a draw.
    assert_outcome(&format!("{id} 0,0,0,0,0,0/0,0,0,0,0,3 24-21 S 9 -"), [24, 24], None, EndReason::Stuck);
    // North stuck with 3: South wins.
    assert_outcome(&format!("{id} 0,1,0,0,0,0/0,0,0,0,0,0 44-3 N 9 -"), [45, 3], Some(S), EndReason::Stuck);
    // The threshold follows the board: 4 x 2 = 8 on a 4-hole board of 2 seeds.
    assert_outcome(
        &format!("{id}(holes=4,seeds=2) 0,0,0,0/0,0,0,1 7-8 S 9 -"),
        [7, 9],
        Some(N),
        EndReason::Stuck,
    );
    assert_outcome(
        &format!("{id}(holes=4,seeds=2) 0,0,0,0/0,0,0,1 8-7 S 9 -"),
        [8, 8],
        None,
        EndReason::Stuck,
    );
    // A fixed count.
    let fixed = user_rules(
        "id = \"t-threshold-50\"\n[end]\nstuck_result = \"mover-wins-below\"\nstuck_threshold = 50\n",
    );
    assert_outcome(
        &format!("{fixed} 0,0,0,0,0,0/0,0,0,0,0,3 45-0 S 9 -"),
        [45, 3],
        Some(N),
        EndReason::Stuck,
    );
    assert!(describe(&format!("{id}(holes=4,seeds=2)"))
        .iter()
        .any(|l| l.contains("fewer than 8 (a row's seeds at the start)")));
    // Neither can play but the rule says draw for that: the draw wins over the threshold.
    let both = user_rules(
        "id = \"t-threshold-both\"\n[end]\nstuck_result = \"mover-wins-below\"\nstuck_threshold = 50\n\
         neither_can_move = \"draw\"\n",
    );
    assert_outcome(
        &format!("{both} 0,0,0,0,0,0/0,0,0,0,0,0 45-3 S 9 -"),
        [45, 3],
        None,
        EndReason::NeitherCanMove,
    );
}

#[test]
fn end_choice_errors_name_the_field() {
    let (f, m) = rule_file_error("id = \"x\"\n[end]\nstuck_result = \"mover-wins-below\"\n");
    assert_eq!(f, "end.stuck_threshold");
    assert!(m.contains("missing"), "{m}");
    let (f, _) = rule_file_error("id = \"x\"\n[end]\nstuck_threshold = 50\n");
    assert_eq!(f, "end.stuck_threshold");
    let (f, _) =
        rule_file_error("id = \"x\"\n[end]\nstuck_result = \"mover-wins-below\"\nstuck_threshold = 0\n");
    assert_eq!(f, "end.stuck_threshold");
    let (f, _) = rule_file_error(
        "id = \"x\"\n[end]\nstuck_result = \"mover-wins-below\"\nstuck_threshold = \"row\"\n",
    );
    assert_eq!(f, "end.stuck_threshold");
    let (f, m) = rule_file_error("id = \"x\"\n[end]\nstuck_result = \"lose\"\n");
    assert_eq!(
        (f.as_str(), m.as_str()),
        ("end.stuck_result", "\"lose\" is not one of scores, draw, mover-wins-below")
    );
    let (f, _) = rule_file_error("id = \"x\"\n[end]\nneither_can_move = true\n");
    assert_eq!(f, "end.neither_can_move");
}

// ---------------------------------------------------------------------------------------------
// Chain bounds
// ---------------------------------------------------------------------------------------------

#[test]
fn chain_stops_before_the_origin_hole() {
    // c(26) goes round twice (24 seeds: every hole +2, c back to 2), then d, e: d 1->4, e 1->4.
    // The last hole e (4, even, own row) is taken; the chain walks back: d (4) is taken, then the
    // origin c (2, even). The collection's Halusa takes it and stops; Ludii's chain stops before it.
    let start = "1,1,26,1,1,3/2,2,2,2,2,2 14-13 S 10 -";
    assert_eq!(after(&format!("halusa {start}"), "c"), "halusa 3,3,0,0,0,5/4,4,4,4,4,4 24-13 N 11 -");
    assert_eq!(
        after(&format!("halusa-ludii {start}"), "c"),
        "halusa-ludii 3,3,2,0,0,5/4,4,4,4,4,4 22-13 N 11 -"
    );
    // A chain that stops at the emptied origin anyway: d(2) -> e 1->2, f 1->2: f is taken, then e;
    // d holds nothing.
    assert_eq!(
        after("halusa-ludii 0,0,0,2,1,1/2,2,2,2,2,2 14-13 S 10 -", "d"),
        "halusa-ludii 0,0,0,0,0,0/2,2,2,2,2,2 18-13 N 11 -"
    );
    assert!(describe("halusa-ludii")
        .iter()
        .any(|l| l.contains("stops before the hole the last lap started from")));
    assert!(describe("halusa").iter().any(|l| l.contains("may take the hole the last lap started from")));
}

#[test]
fn chain_of_at_most_n_holes() {
    let body = "[capture]\nvalues = [2, 3]\nterritory = \"opponent\"\nchain = \"backward\"\n";
    let one = user_rules(&format!("id = \"t-chain-one\"\n{body}chain_max = 1\n"));
    let all = user_rules(&format!("id = \"t-chain-all\"\n{body}"));
    // f(3) -> A 1->2, B 1->2, C 1->2 (last). The whole chain takes C, B and A; with at most one
    // hole after the last, C and B.
    let start = "0,0,0,0,0,3/1,1,1,0,0,4 0-0 S 0 -";
    assert_eq!(after(&format!("{all} {start}"), "f"), format!("{all} 0,0,0,0,0,0/0,0,0,0,0,4 6-0 N 1 -"));
    assert_eq!(after(&format!("{one} {start}"), "f"), format!("{one} 0,0,0,0,0,0/2,0,0,0,0,4 4-0 N 1 -"));
    assert!(describe(&one).iter().any(|l| l.ends_with("; at most 1 hole after the last hole.")));
}

#[test]
fn chain_bound_errors_name_the_field() {
    let cap = "id = \"x\"\n[capture]\nvalues = [2]\nterritory = \"any\"\n";
    let (f, m) = rule_file_error(&format!("{cap}chain_max = 3\n"));
    assert_eq!((f.as_str(), m.as_str()), ("capture.chain_max", "needs a chain: capture.chain is \"none\""));
    let (f, _) = rule_file_error(&format!("{cap}chain_origin = \"stops-before\"\n"));
    assert_eq!(f, "capture.chain_origin");
    let (f, _) = rule_file_error(&format!("{cap}chain = \"forward\"\nchain_origin = \"never\"\n"));
    assert_eq!(f, "capture.chain_origin");
    let (f, m) = rule_file_error(&format!("{cap}chain = \"forward\"\nchain_max = 0\n"));
    assert_eq!((f.as_str(), m.as_str()), ("capture.chain_max", "0 is outside 1..=36"));
}

// ---------------------------------------------------------------------------------------------
// Legality judged per lap
// ---------------------------------------------------------------------------------------------

#[test]
fn starving_judged_after_every_lap() {
    // North is empty. d(1) -> e 1->2: not 1, so e is lifted: f 0->1, A 0->1, the sowing ends on 1
    // in North's row (no capture). After the whole turn North has a seed; after the first lap it had
    // none. e(1) -> f 0->1: ends; f is South's, so f and the empty A are taken; North stays empty.
    let start = "0,0,0,1,1,0/0,0,0,0,0,0 20-27 S 9 -";
    assert_eq!(moves(&format!("jodu {start}")), ["d", "e"]);
    assert_eq!(after(&format!("jodu {start}"), "d"), "jodu 0,0,0,0,0,1/1,0,0,0,0,0 20-27 N 10 -");
    // Judged per lap, both starve: South cannot play, North neither (an empty row).
    assert_eq!(illegal(&format!("jodu-ludii {start}"), "d"), "game_over");
    let o = outcome(&format!("jodu-ludii {start}")).unwrap();
    assert_eq!((o.scores, o.winner, o.reason), ([22, 27], Some(N), EndReason::NeitherCanMove));
    // With North holding a seed, d is legal and plays as in Jodu.
    let fed = "0,0,0,1,1,0/0,0,0,0,0,1 20-26 S 9 -";
    assert_eq!(after(&format!("jodu-ludii {fed}"), "d"), "jodu-ludii 0,0,0,0,0,1/1,0,0,0,0,1 20-26 N 10 -");
    assert!(describe("jodu-ludii").iter().any(|l| l.starts_with("Starving per lap:")));
}

#[test]
fn a_later_lap_that_starves_is_not_sown() {
    // f(1) -> A 5->6: not 1, so A is lifted (6): B..F 3->4 each, flow-captured by their owner,
    // North (20), and a 0->1, the last seed: 1 ends the sowing and a (own row) is taken. North's
    // row is then empty.
    let body = "[relay]\nmode = \"ends-on\"\nvalues = [1]\n[flow_capture]\nvalues = [4]\ntaker = \"owner\"\n\
                [capture]\nvalues = [1]\nterritory = \"own\"\n";
    let free = user_rules(&format!("id = \"t-lap-free\"\n{body}"));
    let turn = user_rules(&format!("id = \"t-lap-turn\"\n{body}[starving]\nrule = \"forbidden\"\n"));
    let lap = user_rules(&format!(
        "id = \"t-lap-lap\"\n{body}[starving]\nrule = \"forbidden\"\njudged = \"lap\"\n"
    ));
    let start = "0,0,0,0,0,1/5,3,3,3,3,3 0-0 S 0 -";
    assert_eq!(after(&format!("{free} {start}"), "f"), format!("{free} 0,0,0,0,0,0/0,0,0,0,0,0 1-20 N 1 -"));
    // Judged on the turn, f starves North: no move.
    assert!(moves(&format!("{turn} {start}")).is_empty());
    // Judged per lap, the first lap leaves North seeds; the second would not and is not sown.
    let (text, events) = after_with_events(&format!("{lap} {start}"), "f");
    assert_eq!(text, format!("{lap} 0,0,0,0,0,0/6,3,3,3,3,3 0-0 N 1 -"));
    assert_eq!(events.len(), 1, "only the first lap is traced: {events:?}");
    // Ending the game at the cut (Ludii's J'odu and Wouri): the same turn, and the game is over,
    // each player taking their own row.
    let ends = user_rules(&format!(
        "id = \"t-lap-ends\"\n{body}[starving]\nrule = \"forbidden\"\njudged = \"lap\"\nlap_cut = \"game-ends\"\n"
    ));
    let (text, events) = after_with_events(&format!("{ends} {start}"), "f");
    assert_eq!(text, format!("{ends} 0,0,0,0,0,0/6,3,3,3,3,3 0-0 N 1 lap-cut"));
    assert_eq!(events.len(), 2, "the first lap and the cut: {events:?}");
    let o = outcome(&text).unwrap();
    assert_eq!((o.winner, o.scores, o.reason), (Some(Player::North), [0, 21], EndReason::Stuck));
    assert!(moves(&text).is_empty());
    // A later lap whose capture would take the opponent's last seed is cut the same way (Ludii's
    // J'odu): a (1) makes b 2, which would sow c and d, empty, South's: d and the hole opposite,
    // North's C, North's last seed. Without game-ends the capture is judged with the whole turn,
    // and a starves North: not a move.
    let start = "1,1,1,0,0,1/0,0,1,0,0,0 18-25 S 44 -";
    assert_eq!(
        after(&format!("jodu-ludii {start}"), "a"),
        "jodu-ludii 0,2,1,0,0,1/0,0,1,0,0,0 18-25 N 45 lap-cut"
    );
    let turn_ends = user_rules(&crate_rules_with(
        "jodu-ludii",
        "lap_cut = \"game-ends\"",
        "lap_cut = \"turn-ends\"",
        "t-jodu-turn-ends",
    ));
    assert_eq!(moves(&format!("{turn_ends} {start}")), ["b", "f"]);
    assert_eq!(moves(&format!("jodu-ludii {start}")), ["a", "b", "f"]);
    assert!(
        parse_error(&format!("{turn_ends} 0,2,1,0,0,1/0,0,1,0,0,0 18-25 N 45 lap-cut")).contains("lap-cut")
    );
    let (f, _) = rule_file_error("id = \"x\"\n[starving]\nrule = \"forbidden\"\nlap_cut = \"game-ends\"\n");
    assert_eq!(f, "starving.lap_cut");
    let (f, m) = rule_file_error("id = \"x\"\n[starving]\njudged = \"lap\"\n");
    assert_eq!(
        (f.as_str(), m.as_str()),
        ("starving.judged", "\"lap\" needs a starving.rule other than \"allowed\"")
    );
    let (f, _) = rule_file_error("id = \"x\"\n[starving]\nrule = \"avoid\"\njudged = \"sowing\"\n");
    assert_eq!(f, "starving.judged");
}

// ---------------------------------------------------------------------------------------------
// Relay values by row
// ---------------------------------------------------------------------------------------------

#[test]
fn relay_values_differ_in_the_own_row() {
    // c(2) -> d 1->2, e 3->4 (last, South's own row). Wouri: 4 ends the sowing and is captured.
    let start = "0,0,2,1,3,0/0,0,0,2,0,0 20-20 S 9 -";
    assert_eq!(after(&format!("wouri {start}"), "c"), "wouri 0,0,0,2,0,0/0,0,0,2,0,0 24-20 N 10 cap=S");
    // Ludii's Wouri: 4 in the own row relays: e(4) -> f, A, B, C, each 0->1; C (1) ends, no capture.
    assert_eq!(
        after(&format!("wouri-ludii {start}"), "c"),
        "wouri-ludii 0,0,0,2,0,1/1,1,1,2,0,0 20-20 N 10 -"
    );
    // In the opponent's row 4 still ends the sowing and is captured: f(2) -> A 0->1, B 3->4.
    assert_eq!(
        after("wouri-ludii 0,0,0,0,0,2/0,3,0,2,0,0 20-20 S 9 -", "f"),
        "wouri-ludii 0,0,0,0,0,0/1,0,0,2,0,0 24-20 N 10 cap=S"
    );
    assert!(describe("wouri-ludii")
        .iter()
        .any(|l| l.starts_with("Relay by row: in the player's own row the counts are 1")));
    let (f, _) = rule_file_error(
        "id = \"x\"\n[relay]\nmode = \"ends-on\"\nvalues = [1]\nterritory = \"own\"\nown_values = [2]\n",
    );
    assert_eq!(f, "relay.own_values");
    let (f, _) = rule_file_error("id = \"x\"\n[relay]\nmode = \"ends-on\"\nvalues = [1]\nown_values = []\n");
    assert_eq!(f, "relay.own_values");
}

// ---------------------------------------------------------------------------------------------
// Capture judged on the hole after the last
// ---------------------------------------------------------------------------------------------
// Ludii's Adjiboto board: 5 holes a row, South a..e = 0..4, North A..E = 5..9; e is followed by A.

#[test]
fn capture_judged_on_the_hole_after_the_last() {
    // c(3): the first seed back into c, then d, e (last). The hole after it, A, holds 3: taken,
    // and the chain goes on over B (1) and stops at C (2).
    let start = "0,0,3,0,0/3,1,2,0,0 10-20 S 5 -";
    assert_eq!(
        after(&format!("adji-boto-ludii {start}"), "c"),
        "adji-boto-ludii 0,0,1,1,1/0,0,2,0,0 14-20 N 6 -"
    );
    // The same rules judging the last hole: e (1) is taken, then A and B.
    let last = user_rules(&crate_rules_with(
        "adji-boto-ludii",
        "judged = \"after-last\"",
        "judged = \"last\"",
        "t-judged-last",
    ));
    assert_eq!(after(&format!("{last} {start}"), "c"), format!("{last} 0,0,1,1,0/0,0,2,0,0 15-20 N 6 -"));
    // The hole after the last holding 2: nothing, though the last hole holds 1.
    assert_eq!(
        after("adji-boto-ludii 0,0,3,0,0/2,1,1,0,0 10-20 S 5 -", "c"),
        "adji-boto-ludii 0,0,1,1,1/2,1,1,0,0 10-20 N 6 -"
    );
    // The chain walks round the board from A, takes the origin d (1) and goes on past it (Ludii's
    // game): e, the last hole, is taken too, and the walk ends on coming back to A.
    let start = "1,1,1,2,0/1,1,1,1,1 10-20 S 5 -";
    assert_eq!(
        after(&format!("adji-boto-ludii {start}"), "d"),
        "adji-boto-ludii 0,0,0,0,0/0,0,0,0,0 20-20 N 6 -"
    );
    // With the collection's bound the chain ends at the origin: e stays.
    let bounded = user_rules(&crate_rules_with(
        "adji-boto-ludii",
        "chain_origin = \"goes-past\"",
        "chain_origin = \"may-take\"",
        "t-chain-may-take",
    ));
    assert_eq!(
        after(&format!("{bounded} {start}"), "d"),
        format!("{bounded} 0,0,0,0,1/0,0,0,0,0 19-20 N 6 -")
    );
    assert!(describe("adji-boto-ludii").iter().any(|l| {
        l.starts_with(
        "Capture: when after the sowing the hole after the last hole holds 1, 3 or 5 in either row, the player \
         takes that hole, and the following holes that match, across rows."
    )
    }));
    let (f, m) =
        rule_file_error("id = \"x\"\n[capture]\nvalues = [1]\nterritory = \"any\"\njudged = \"next\"\n");
    assert_eq!((f.as_str(), m.as_str()), ("capture.judged", "\"next\" is not one of last, after-last"));
}

/// A built-in rule file with one field changed, under a new id.
fn crate_rules_with(id: &str, from: &str, to: &str, new_id: &str) -> String {
    let (_, text) = registry::BUILTIN_RULE_FILES
        .iter()
        .find(|(_, t)| t.contains(&format!("id = \"{id}\"")))
        .expect("a built-in file");
    assert!(text.contains(from), "{id} has {from}");
    text.replacen(from, to, 1).replacen(&format!("id = \"{id}\""), &format!("id = \"{new_id}\""), 1)
}

// ---------------------------------------------------------------------------------------------
// Opening phases
// ---------------------------------------------------------------------------------------------

#[test]
fn opening_each_hole_once() {
    // The start lists every hole still to sow.
    let start = registry::game("adji-boto-ludii")
        .unwrap()
        .format_position(&registry::game("adji-boto-ludii").unwrap().start())
        .unwrap();
    assert_eq!(start, "adji-boto-ludii 10,10,10,10,10/10,10,10,10,10 0-0 S 0 opening=abcdeABCDE");
    // South has sown a: it may not be sown again while b..e wait, though it holds 3.
    let pos = "adji-boto-ludii 3,11,11,11,11/11,11,11,11,11 0-0 S 2 opening=bcdeBCDE";
    assert_eq!(moves(pos), ["b", "c", "d", "e"]);
    assert_eq!(illegal(pos, "a"), "opening_order");
    // Sowing b takes it off the list.
    assert!(after(pos, "b").ends_with(" N 3 opening=cdeBCDE"), "{}", after(pos, "b"));
    // South's last hole to sow: afterwards only North's are listed, and South may sow any hole.
    let last = "adji-boto-ludii 3,3,3,3,11/11,11,11,11,11 0-0 S 8 opening=eE";
    assert_eq!(moves(last), ["e"]);
    let next = after(last, "e");
    assert!(next.ends_with(" N 9 opening=E"), "{next}");
    assert_eq!(moves("adji-boto-ludii 3,3,3,3,1/11,11,11,11,11 0-0 S 10 opening=E"), ["a", "b", "c", "d"]);
    // When no hole still to sow can be played, any hole may be.
    assert_eq!(moves("adji-boto-ludii 3,1,0,3,3/11,11,11,11,11 0-0 S 4 opening=bcBCDE"), ["a", "d", "e"]);
    // The rules without the opening: any hole.
    let free = user_rules(&crate_rules_with(
        "adji-boto-ludii",
        "each_hole_once = true",
        "each_hole_once = false",
        "t-no-opening",
    ));
    assert_eq!(moves(&format!("{free} 3,11,11,11,11/11,11,11,11,11 0-0 S 2 -")), ["a", "b", "c", "d", "e"]);
    assert!(describe("adji-boto-ludii").iter().any(|l| l.starts_with(
        "Opening: each player must sow each of their own holes once before sowing any hole a second time"
    )));
}

#[test]
fn opening_flag_in_the_notation() {
    use common::parse_error;
    // Only variants with the opening rule, listed once in board order, naming holes of the board.
    assert!(parse_error("awale 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 opening=a").contains("has no opening rule"));
    assert!(parse_error("adji-boto-ludii 10,10,10,10,10/10,10,10,10,10 0-0 S 0 opening=ba")
        .contains("board order"));
    assert!(parse_error("adji-boto-ludii 10,10,10,10,10/10,10,10,10,10 0-0 S 0 opening=af")
        .contains("not a hole"));
    assert!(parse_error("adji-boto-ludii 10,10,10,10,10/10,10,10,10,10 0-0 S 0 opening=").contains("no hole"));
    // It round-trips with the other flags, and the hash and key tell positions apart by it.
    let (g, a) =
        registry::parse_position("adji-boto-ludii 3,3,3,3,11/11,11,11,11,11 0-0 S 8 opening=eE").unwrap();
    let (_, b) =
        registry::parse_position("adji-boto-ludii 3,3,3,3,11/11,11,11,11,11 0-0 S 8 opening=E").unwrap();
    assert_eq!(
        g.format_position(&a).unwrap(),
        "adji-boto-ludii 3,3,3,3,11/11,11,11,11,11 0-0 S 8 opening=eE"
    );
    assert_ne!(g.hash_key(&a).unwrap(), g.hash_key(&b).unwrap());
    assert_ne!(g.key_bytes(&a).unwrap(), g.key_bytes(&b).unwrap());
}

#[test]
fn opening_turns_without_capture() {
    // The first turn: a(10) sows a (first seed) and b..E; the hole after E, a, holds 1 but the
    // first turn captures nothing.
    let start = "adji-boto-ludii 10,10,10,10,10/10,10,10,10,10 0-0 S 0 opening=abcdeABCDE";
    assert_eq!(after(start, "a"), "adji-boto-ludii 1,11,11,11,11/11,11,11,11,11 0-0 N 1 opening=bcdeABCDE");
    // The same board later in the game: a is taken.
    assert_eq!(
        after("adji-boto-ludii 10,10,10,10,10/10,10,10,10,10 0-0 S 2 opening=abcdeABCDE", "a"),
        "adji-boto-ludii 0,11,11,11,11/11,11,11,11,11 1-0 N 3 opening=bcdeABCDE"
    );
    // The turns before captures are allowed are part of the position's key.
    let (g, a) = registry::parse_position("adji-boto-ludii 10,10,10,10,10/10,10,10,10,10 0-0 S 0 -").unwrap();
    let (_, b) = registry::parse_position("adji-boto-ludii 10,10,10,10,10/10,10,10,10,10 0-0 S 2 -").unwrap();
    assert_ne!(g.hash_key(&a).unwrap(), g.hash_key(&b).unwrap());
    assert_ne!(g.key_bytes(&a).unwrap(), g.key_bytes(&b).unwrap());
    assert!(describe("adji-boto-ludii")
        .iter()
        .any(|l| l == "Opening: the first turn of the game captures nothing."));
}

#[test]
fn search_plays_the_opening() {
    // The search scores exactly the opening's legal moves, and its table (which keys the holes
    // still to sow and the turns without capture) changes no value.
    use griot_core::search::{EvalStyle, Limits, SearchOptions};
    for text in [
        "adji-boto-ludii 10,10,10,10,10/10,10,10,10,10 0-0 S 0 opening=abcdeABCDE",
        "adji-boto-ludii 3,11,11,11,11/11,11,11,11,11 0-0 S 2 opening=bcdeBCDE",
        "adji-boto-ludii 3,1,5,2,1/1,3,2,5,1 37-40 S 20 -",
    ] {
        let (g, pos) = registry::parse_position(text).unwrap();
        let mut values = Vec::new();
        for hash_mb in [0, 4] {
            let options = SearchOptions {
                limits: Limits { depth: Some(5), ..Limits::default() },
                multipv: usize::MAX,
                hash_mb,
                eval: EvalStyle::Material,
                ..SearchOptions::default()
            };
            let r = g.search(&pos, &[], &options, griot_core::search::Hooks::default()).unwrap();
            let mut listed: Vec<String> = r.moves.iter().map(|m| m.text.clone()).collect();
            listed.sort_unstable();
            assert_eq!(listed, moves(text), "{text}");
            values.push(r.moves.iter().map(|m| (m.text.clone(), m.value)).collect::<Vec<_>>());
        }
        assert_eq!(values[0], values[1], "{text}: with and without the table");
    }
}

#[test]
fn opening_errors_name_the_field() {
    let (f, m) =
        rule_file_error("id = \"x\"\n[board]\nholes = 17\nseeds = 1\n[opening]\neach_hole_once = true\n");
    assert_eq!(
        (f.as_str(), m.as_str()),
        ("opening.each_hole_once", "needs at most 16 holes a row (board.holes is 17)")
    );
    let (f, m) = rule_file_error("id = \"x\"\n[opening]\nno_capture_turns = 2\n");
    assert_eq!((f.as_str(), m.as_str()), ("opening.no_capture_turns", "needs a [capture] rule"));
    let (f, _) = rule_file_error(
        "id = \"x\"\n[capture]\nvalues = [2]\nterritory = \"any\"\n[opening]\nno_capture_turns = 101\n",
    );
    assert_eq!(f, "opening.no_capture_turns");
    let (f, _) = rule_file_error("id = \"x\"\n[opening]\neach_hole_twice = true\n");
    assert_eq!(f, "opening.each_hole_twice");
    let (f, _) = rule_file_error("id = \"x\"\n[opening]\neach_hole_once = 1\n");
    assert_eq!(f, "opening.each_hole_once");
    // The holes option is bounded the same way.
    let e = match registry::game("adji-boto-ludii(holes=17,seeds=1)") {
        Err(e) => e.to_string(),
        Ok(_) => panic!("17 holes a row accepted"),
    };
    assert!(e.contains("at most 16 holes"), "{e}");
}

#[test]
fn ludii_adjiboto_end() {
    // South cannot sow (no hole of 2): North wins while South has captured fewer than 50 (a row's
    // seeds at the start, 5 x 10), a draw from 50 on.
    assert_outcome("adji-boto-ludii 1,1,0,1,0/3,3,0,0,0 49-42 S 30 -", [52, 48], Some(N), EndReason::Stuck);
    assert_outcome("adji-boto-ludii 1,1,0,1,0/3,3,0,0,0 50-41 S 30 -", [53, 47], None, EndReason::Stuck);
}

// ---------------------------------------------------------------------------------------------
// Neighbour captures
// ---------------------------------------------------------------------------------------------

#[test]
fn capture_of_the_reached_hole_and_its_neighbours() {
    let body = "[capture]\nvalues = [2, 4]\nterritory = \"opponent\"\n";
    let reached = user_rules(&format!("id = \"t-reached-only\"\n{body}"));
    let beside = user_rules(&format!("id = \"t-neighbours\"\n{body}target = \"reached-and-neighbours\"\n"));
    // f(3) -> A 1->2, B 3->4, C 1->2 (last). C is taken with its neighbours B (4) and D (2); A (2)
    // is no neighbour of C and there is no chain.
    let start = "0,0,0,0,0,3/1,3,1,2,0,0 0-0 S 3 -";
    assert_eq!(
        after(&format!("{reached} {start}"), "f"),
        format!("{reached} 0,0,0,0,0,0/2,4,0,2,0,0 2-0 N 4 -")
    );
    assert_eq!(
        after(&format!("{beside} {start}"), "f"),
        format!("{beside} 0,0,0,0,0,0/2,0,0,0,0,0 8-0 N 4 -")
    );
    // Neighbours stay in the row: e(2) -> f 3->4, A 1->2 (last): A and B are taken, f (4, South's
    // row) is not.
    assert_eq!(
        after(&format!("{beside} 0,0,0,0,2,3/1,2,0,0,0,3 0-0 S 3 -"), "e"),
        format!("{beside} 0,0,0,0,0,4/0,0,0,0,0,3 4-0 N 4 -")
    );
    // A neighbour holding another count stays: C 1->2 with B 3 and D 0.
    assert_eq!(
        after(&format!("{beside} 0,0,0,0,0,3/1,2,1,0,0,0 0-0 S 3 -"), "f"),
        format!("{beside} 0,0,0,0,0,0/2,3,0,0,0,0 2-0 N 4 -")
    );
    assert!(describe(&beside).iter().any(|l| l.contains(
        "the player takes that hole and each hole beside it in its row that holds one of those counts."
    )));
    let (f, _) = rule_file_error(&format!(
        "id = \"x\"\n{body}target = \"reached-and-neighbours\"\nchain = \"backward\"\n"
    ));
    assert_eq!(f, "capture.target");
}

// ---------------------------------------------------------------------------------------------
// Rule files round-trip
// ---------------------------------------------------------------------------------------------

#[test]
fn every_built_in_rule_file_round_trips_through_the_loader() {
    // Written back with every field, each built-in file reads as the same rules and describes them
    // in the same sentences; registered under a new id, it plays as the original on random games.
    for (name, text) in registry::BUILTIN_RULE_FILES {
        let rules = RuleSet::from_toml(text).unwrap();
        let written = rules.to_toml();
        let back = RuleSet::from_toml(&written).unwrap_or_else(|e| panic!("{name}: {e}\n{written}"));
        assert_eq!(back, rules, "{name}\n{written}");
        assert_eq!(back.describe(6, 4), rules.describe(6, 4), "{name}");
        let copy_id = format!("t-copy-{}", rules.id);
        let copy = user_rules(&written.replacen(
            &format!("id = \"{}\"", rules.id),
            &format!("id = \"{copy_id}\""),
            1,
        ));
        assert_eq!(copy, copy_id, "{name}");
        // Six holes a row whatever the file's default, no opening flag: the rules past the opening.
        let (g, a) =
            registry::parse_position(&format!("{}(holes=6) 3,0,5,1,2,9/4,0,2,7,1,3 5-6 S 12 -", rules.id))
                .unwrap();
        let (h, b) =
            registry::parse_position(&format!("{copy_id}(holes=6) 3,0,5,1,2,9/4,0,2,7,1,3 5-6 S 12 -"))
                .unwrap();
        assert_eq!(g.perft_turns(&a, 4).unwrap(), h.perft_turns(&b, 4).unwrap(), "{name}");
    }
}
