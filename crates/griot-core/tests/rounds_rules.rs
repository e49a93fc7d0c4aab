//! The rule language's rounds (`[rounds]`, docs/RULE_FILES.md) and Érhérhé (`erherhe`,
//! docs/rules/erherhe.md) on hand-built boards, in the style of `sowing_rules.rs`.
//!
//! Board reminder (6 holes a row): South `a..f` = holes 0..5 from South's left, North `A..F` =
//! holes 6..11 from North's left; counter-clockwise is hole + 1 (f is followed by A, F by a).
//! A position is `<variant> <south>/<north> <store-S>-<store-N> <side> <turns> <flags>`; flags
//! `off=<holes>` (out of play for the round), `refill` (between rounds) and `passed` (the last
//! refill turn was a pass).

mod common;

use common::{after, after_with_events, illegal, moves, outcome, parse_error};
use griot_core::registry;
use griot_core::sowing::rules::RuleSet;
use griot_core::{EndReason, Event, Player, VariantError};

fn user_rules(text: &str) -> String {
    registry::register_rule_file(text).unwrap_or_else(|e| panic!("rule file: {e}\n{text}")).id.clone()
}

fn rule_file_error(text: &str) -> (String, String) {
    match RuleSet::from_toml(text) {
        Err(VariantError::RuleFile { field, message }) => (field, message),
        other => panic!("expected a rule-file error for\n{text}\ngot {other:?}"),
    }
}

/// Plays `moves` in turn from `position`.
fn after_all(position: &str, moves: &[&str]) -> String {
    moves.iter().fold(position.to_string(), |p, m| after(&p, m))
}

#[test]
fn sowing_skips_holes_out_of_play_and_an_empty_row_ends_the_round() {
    // North sows E's 2 seeds: F and a..d are out of play, so they land in e (2) and f (4), in
    // South's row: f and its neighbour e are taken (6). South's row is then empty: each takes
    // their own row (North 16) and the refill begins, South first (the turn passes as usual).
    let start = "erherhe 0,0,0,0,1,3/4,4,4,4,2,0 18-8 N 31 off=abcdF";
    let (next, events) = after_with_events(start, "E");
    assert_eq!(next, "erherhe 0,0,0,0,0,0/0,0,0,0,0,0 18-30 S 32 refill");
    assert!(events.iter().any(|e| matches!(e, Event::Note { name: "round_end", .. })));
    // The same board with every hole in play: the seeds go to F and a, and nothing is taken.
    assert_eq!(
        after("erherhe 0,0,0,0,1,3/4,4,4,4,2,0 18-8 N 31 -", "E"),
        "erherhe 1,0,0,0,1,3/4,4,4,4,0,1 18-8 S 32 -"
    );
}

#[test]
fn the_refill_alternates_until_both_pass_in_a_row() {
    // South holds 18: a..d get 4 each and e the last 2; North holds 30: its whole row, 6 left.
    // South passes (empty store), North fills F, South passes again, North passes (full row):
    // two passes in a row start the round, South's empty f out of play, South to move.
    let start = "erherhe 0,0,0,0,0,0/0,0,0,0,0,0 18-30 S 32 refill";
    assert_eq!(moves(start), ["fill:a"]);
    let mut pos = start.to_string();
    for (mv, want) in [
        ("fill:a", "erherhe 4,0,0,0,0,0/0,0,0,0,0,0 14-30 N 33 refill"),
        ("fill:A", "erherhe 4,0,0,0,0,0/4,0,0,0,0,0 14-26 S 34 refill"),
    ] {
        pos = after(&pos, mv);
        assert_eq!(pos, want);
    }
    pos = after_all(&pos, &["fill:b", "fill:B", "fill:c", "fill:C", "fill:d", "fill:D", "fill:e", "fill:E"]);
    assert_eq!(pos, "erherhe 4,4,4,4,2,0/4,4,4,4,4,0 0-10 S 42 refill");
    assert_eq!(moves(&pos), ["pass"]);
    pos = after(&pos, "pass");
    assert_eq!(pos, "erherhe 4,4,4,4,2,0/4,4,4,4,4,0 0-10 N 43 refill,passed");
    pos = after(&pos, "fill:F");
    assert_eq!(pos, "erherhe 4,4,4,4,2,0/4,4,4,4,4,4 0-6 S 44 refill");
    pos = after(&pos, "pass");
    assert_eq!(moves(&pos), ["pass"]);
    let (pos, events) = after_with_events(&pos, "pass");
    assert_eq!(pos, "erherhe 4,4,4,4,2,0/4,4,4,4,4,4 0-6 S 46 off=f");
    assert!(events
        .iter()
        .any(|e| matches!(e, Event::Note { name: "round_start", player: Some(Player::South) })));
    assert_eq!(moves(&pos), ["a", "b", "c", "d", "e"]);
}

#[test]
fn a_player_with_an_empty_store_after_a_round_loses_the_match() {
    // South sows its last seed into A (1: no capture); South's row is empty, the round ends and
    // South has captured nothing: North wins the match with every seed.
    let pos = after("erherhe 0,0,0,0,0,1/0,0,0,0,0,3 0-44 S 60 -", "f");
    assert_eq!(pos, "erherhe 0,0,0,0,0,0/0,0,0,0,0,0 0-48 N 61 refill");
    let o = outcome(&pos).expect("the match is over");
    assert_eq!((o.scores, o.winner, o.reason), ([0, 48], Some(Player::North), EndReason::MatchLost));
    assert!(moves(&pos).is_empty());
    // A threshold above one: a player holding fewer seeds than it loses.
    let id = user_rules(
        "id = \"t-rounds-five\"\n[capture]\nvalues = [2, 4]\nterritory = \"opponent\"\n\
         [rounds]\nend = \"row-empty\"\nrefill_seeds = 4\nlose_below = 5\n",
    );
    let pos = after(&format!("{id} 0,0,0,0,0,1/0,0,0,0,0,3 4-40 S 60 -"), "f");
    assert_eq!(pos, format!("{id} 0,0,0,0,0,0/0,0,0,0,0,0 4-44 N 61 refill"));
    assert_eq!(outcome(&pos).unwrap().winner, Some(Player::North));
    // Five seeds are enough: the refill begins, North (to move) first.
    let pos = after(&format!("{id} 0,0,0,0,0,1/0,0,0,0,0,3 5-39 S 60 -"), "f");
    assert_eq!(moves(&pos), ["fill:A"]);
    assert!(outcome(&pos).is_none());
}

#[test]
fn holes_left_empty_stay_in_play_when_the_rules_say_so() {
    let id = user_rules(
        "id = \"t-rounds-in-play\"\n[capture]\nvalues = [2, 4]\nterritory = \"opponent\"\n\
         [rounds]\nend = \"row-empty\"\nrefill_seeds = 4\nempty_holes = \"in-play\"\n",
    );
    // The refill ends with no hole out of play; the sowing goes into the empty holes.
    let pos = after(&format!("{id} 4,0,0,0,0,0/4,4,0,0,0,0 0-0 N 9 refill,passed"), "pass");
    assert_eq!(pos, format!("{id} 4,0,0,0,0,0/4,4,0,0,0,0 0-0 S 10 -"));
    assert_eq!(after(&pos, "a"), format!("{id} 0,1,1,1,1,0/4,4,0,0,0,0 0-0 N 11 -"));
    assert!(
        parse_error(&format!("{id} 4,0,0,0,0,0/4,4,0,0,0,0 0-0 S 10 off=b")).contains("no holes out of play")
    );
}

#[test]
fn neighbour_captures_ignore_holes_out_of_play() {
    // South sows f's 1 seed into A (2): A is taken, B (out of play) is nothing to take, and C's
    // 2 is not A's neighbour.
    let pos = after("erherhe 4,4,0,0,0,1/1,0,2,4,4,4 10-14 S 40 off=cdeB", "f");
    assert_eq!(pos, "erherhe 4,4,0,0,0,0/0,0,2,4,4,4 12-14 N 41 off=cdeB");
}

#[test]
fn moves_out_of_their_phase_are_refused_with_reasons() {
    let refill = "erherhe 4,0,0,0,0,0/0,0,0,0,0,0 14-30 N 33 refill";
    assert_eq!(illegal(refill, "A"), "refill");
    assert_eq!(illegal(refill, "fill:B"), "refill");
    assert_eq!(illegal(refill, "pass"), "refill");
    assert_eq!(illegal("erherhe 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -", "fill:a"), "not_refill");
}

#[test]
fn the_notation_round_trips_and_refuses_impossible_positions() {
    for text in [
        "erherhe 0,0,0,0,1,3/4,4,4,4,2,0 18-8 N 31 off=abcdF",
        "erherhe 4,4,4,4,2,0/4,4,4,4,4,0 0-10 N 43 refill,passed",
        "erherhe 0,0,0,0,0,0/0,0,0,0,0,0 18-30 S 32 refill",
    ] {
        let (g, p) = registry::parse_position(text).unwrap();
        assert_eq!(g.format_position(&p).unwrap(), text);
    }
    for (text, says) in [
        ("erherhe 1,0,0,0,1,3/4,4,4,4,2,0 18-8 N 31 off=abcdF", "out of play but holds"),
        ("erherhe 0,0,0,0,1,3/4,4,4,4,2,0 18-8 N 31 off=dcab", "board order"),
        ("erherhe 0,0,0,0,1,3/4,4,4,4,2,0 18-8 N 31 off=az", "not a hole"),
        ("erherhe 0,0,0,0,1,3/4,4,4,4,2,0 18-8 N 31 off=", "lists no hole"),
        ("erherhe 0,0,0,0,0,0/4,4,4,4,2,0 18-8 N 31 -", "round would have ended"),
        ("erherhe 4,0,4,0,0,0/0,0,0,0,0,0 18-8 N 31 refill", "a hole before it is empty"),
        ("erherhe 4,3,0,0,0,0/0,0,0,0,0,0 18-8 N 31 refill", "holds 3 seeds"),
        ("erherhe 4,0,0,0,0,0/0,0,0,0,0,0 18-8 N 31 refill,off=b", "out of play only once"),
        ("erherhe 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 passed", "only a refill"),
        ("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 refill", "not played in rounds"),
        ("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 off=a", "no holes out of play"),
    ] {
        let e = parse_error(text);
        assert!(e.contains(says), "{text}: {e}");
    }
    let (g, p) = registry::parse_position("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -").unwrap();
    assert!(g.parse_move(&p, "fill:a").unwrap_err().to_string().contains("rounds"));
}

#[test]
fn rounds_fields_are_validated_by_name() {
    let base = "id = \"x\"\n[capture]\nvalues = [2]\nterritory = \"opponent\"\n";
    for (extra, field, says) in [
        ("[rounds]\nrefill_seeds = 4\n", "rounds.end", "missing"),
        ("[rounds]\nend = \"board-empty\"\nrefill_seeds = 4\n", "rounds.end", "not one of"),
        ("[rounds]\nend = \"row-empty\"\n", "rounds.refill_seeds", "missing"),
        ("[rounds]\nend = \"row-empty\"\nrefill_seeds = 0\n", "rounds.refill_seeds", "outside"),
        ("[rounds]\nend = \"row-empty\"\nrefill_seeds = 4\nlose_below = 0\n", "rounds.lose_below", "outside"),
        (
            "[rounds]\nend = \"row-empty\"\nrefill_seeds = 4\nempty_holes = \"gone\"\n",
            "rounds.empty_holes",
            "not one of",
        ),
        ("[rounds]\nend = \"row-empty\"\nrefill_seeds = 4\nrefill = 2\n", "rounds.refill", "unknown field"),
        (
            "[board]\nholes = 17\nseeds = 1\n[rounds]\nend = \"row-empty\"\nrefill_seeds = 4\n",
            "rounds",
            "16 holes",
        ),
        (
            "[opening]\neach_hole_once = true\n[rounds]\nend = \"row-empty\"\nrefill_seeds = 4\n",
            "rounds",
            "opening",
        ),
    ] {
        let (f, m) = rule_file_error(&format!("{base}{extra}"));
        assert_eq!(f, field, "{extra}: {m}");
        assert!(m.contains(says), "{extra}: {m}");
    }
    // Round trip through to_toml.
    let rules = RuleSet::from_toml(
        registry::BUILTIN_RULE_FILES.iter().find(|(n, _)| *n == "erherhe.toml").unwrap().1,
    )
    .unwrap();
    assert_eq!(RuleSet::from_toml(&rules.to_toml()).unwrap(), rules);
    assert!(registry::game("erherhe(holes=17,seeds=1)").is_err());
}

#[test]
fn rules_in_sentences_say_the_rounds() {
    let lines = registry::game("erherhe").unwrap().describe_rules();
    let all = lines.join("\n");
    assert!(all.contains("each player takes the seeds in their own row and the round ends"), "{all}");
    assert!(all.contains("holding no seed loses the match"), "{all}");
    assert!(all.contains("put 4 seeds (or what is left, if fewer)"), "{all}");
    assert!(all.contains("out of play for the round"), "{all}");
    assert!(all.contains("each hole beside it in its row"), "{all}");
}
