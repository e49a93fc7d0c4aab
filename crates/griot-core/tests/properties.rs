//! Property tests of the two-row sowing engine over random games of every built-in variant with
//! random options, and fuzzing of the notation, variant-string, move and rule-file parsers.
//!
//! Properties checked at every position of every random game:
//! - seed conservation: seeds on the board + in the stores never change;
//! - notation round trip: format -> parse gives the same position and the same text;
//! - the legal moves are exactly the moves `check_move` accepts (every hole label, with and
//!   without a direction suffix, and `pass`), and `play` accepts each of them;
//! - position keys: equal positions have equal key bytes and hash, the turn counter is not part of
//!   the key, different positions (turn counter aside) have different key bytes;
//! - `outcome` is `Some` exactly when there is no legal move.
//!
//! Case counts are moderate so the file runs in a few seconds; raise them with `PROPTEST_CASES`.
//! The runs are reproducible (fixed seed) unless `PROPTEST_RNG_SEED` is set.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use griot_core::game::Game;
use griot_core::registry::{self, AnyGame, AnyMove, AnyPosition, FamilyKind};
use griot_core::sowing::rules::{Remaining, RuleSet};
use griot_core::sowing::{SowingGame, SowingPosition};
use griot_core::variant::{Allowed, VariantSpec};
use griot_core::{EndReason, Error};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngSeed};

fn config(cases: u32) -> ProptestConfig {
    let mut c = ProptestConfig::default();
    if std::env::var("PROPTEST_CASES").is_err() {
        c.cases = cases;
    }
    if c.rng_seed == RngSeed::Random {
        c.rng_seed = RngSeed::Fixed(0x0067_7269_6f74);
    }
    c.failure_persistence = None;
    c
}

/// Built-in rule-file variants with their option specs.
fn builtin_families() -> Vec<registry::Family> {
    registry::families().into_iter().filter(|f| f.builtin && f.kind == FamilyKind::RuleFile).collect()
}

/// A variant string for family `fi` with holes / seeds / max_turns derived from raw numbers,
/// kept within the family's limits.
fn variant_string(fi: usize, h: u8, s: u8, max_turns: Option<u32>) -> String {
    let fams = builtin_families();
    let f = &fams[fi % fams.len()];
    let holes_spec = f.options.iter().find(|o| o.name == "holes").expect("holes option");
    let holes: i64 = match &holes_spec.allowed {
        Allowed::OneOf(v) => v[h as usize % v.len()],
        Allowed::Range(lo, hi) => lo + (h as i64 % (hi - lo + 1)),
        Allowed::Bool => unreachable!(),
    };
    // Seeds: 1..=6 a hole, within the 255-seed board limit.
    let max_seeds = (255 / (2 * holes)).min(6);
    let seeds = 1 + (s as i64 % max_seeds);
    let mut opts = vec![format!("holes={holes}"), format!("seeds={seeds}")];
    if let Some(m) = max_turns {
        opts.push(format!("max_turns={m}"));
    }
    format!("{}({})", f.id, opts.join(","))
}

fn sowing(pos: &AnyPosition) -> SowingPosition {
    #[allow(irrefutable_let_patterns)]
    let AnyPosition::Sowing(p) = pos
    else {
        panic!("not a sowing position")
    };
    *p
}

fn sowing_game(g: &AnyGame) -> &SowingGame {
    #[allow(irrefutable_let_patterns)]
    let AnyGame::Sowing(sg) = g
    else {
        panic!("not a sowing game")
    };
    sg
}

fn seeds_in_play(g: &SowingGame, p: &SowingPosition) -> u32 {
    let n = g.holes();
    p.pits[..2 * n].iter().map(|&s| s as u32).sum::<u32>() + p.stores[0] as u32 + p.stores[1] as u32
}

/// Every move text worth trying: each label of both rows, bare and with each direction suffix,
/// labels just past the row, and `pass`.
fn candidate_moves(n: usize) -> Vec<String> {
    let mut out = vec!["pass".to_string()];
    for i in 0..=n {
        for base in [b'a', b'A'] {
            let label = ((base + i as u8) as char).to_string();
            for suffix in ["", ":cw", ":ccw"] {
                out.push(format!("{label}{suffix}"));
            }
            out.push(format!("fill:{label}"));
        }
    }
    out
}

/// Checks every per-position property; returns the legal moves.
fn check_position(
    g: &Arc<AnyGame>,
    pos: &AnyPosition,
    total: u32,
    keys: &mut HashMap<Vec<u8>, SowingPosition>,
    full_move_check: bool,
) -> Result<Vec<AnyMove>, TestCaseError> {
    let sg = sowing_game(g);
    let sp = sowing(pos);
    // Seed conservation.
    prop_assert_eq!(seeds_in_play(sg, &sp), total);

    // Notation round trip.
    let text = g.format_position(pos).unwrap();
    let (g2, pos2) =
        registry::parse_position(&text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
    prop_assert_eq!(&pos2, pos, "{}", text);
    prop_assert_eq!(g2.format_position(&pos2).unwrap(), text.clone());
    prop_assert_eq!(g2.variant(), g.variant());

    // Keys: equal positions, equal keys; the turn counter is not in the key, except the turns
    // played while an opening still forbids captures (`opening.no_capture_turns`).
    let key = g.key_bytes(pos).unwrap();
    prop_assert_eq!(&g2.key_bytes(&pos2).unwrap(), &key);
    prop_assert_eq!(g2.hash_key(&pos2).unwrap(), g.hash_key(pos).unwrap());
    let no_capture_turns = sg.rules().opening.no_capture_turns as u32;
    let mut other_turns = sp;
    other_turns.turns = sp.turns ^ 0x15;
    if sp.turns.min(no_capture_turns) == other_turns.turns.min(no_capture_turns) {
        let other: AnyPosition = other_turns.into();
        prop_assert_eq!(&g.key_bytes(&other).unwrap(), &key);
        prop_assert_eq!(g.hash_key(&other).unwrap(), g.hash_key(pos).unwrap());
    }
    // Different positions (turn counter aside) have different key bytes.
    let mut no_turns = sp;
    no_turns.turns = sp.turns.min(no_capture_turns);
    if let Some(seen) = keys.get(&key) {
        prop_assert_eq!(seen, &no_turns, "two positions share the key {:?}", key);
    } else {
        keys.insert(key, no_turns);
    }

    // Outcome is Some exactly when no move is legal.
    let legal = g.legal_moves(pos).unwrap();
    let outcome = g.outcome(pos).unwrap();
    prop_assert_eq!(outcome.is_some(), legal.is_empty(), "{}", text);

    // Legal moves are exactly the moves check_move accepts, and play accepts them.
    let legal_set: HashSet<AnyMove> = legal.iter().copied().collect();
    prop_assert_eq!(legal_set.len(), legal.len(), "duplicate legal moves in {}", text);
    for mv in &legal {
        let t = g.format_move(pos, mv).unwrap();
        prop_assert_eq!(&g.parse_move(pos, &t).unwrap(), mv, "{} in {}", t, text);
        prop_assert!(g.check_move(pos, mv).is_ok(), "{} in {}", t, text);
        let (after, _) = g.play(pos, mv).map_err(|e| TestCaseError::fail(format!("{t} in {text}: {e}")))?;
        prop_assert_eq!(after, g.play_unchecked(pos, mv).unwrap());
    }
    if full_move_check {
        let mut accepted = HashSet::new();
        for t in candidate_moves(sg.holes()) {
            let Ok(mv) = g.parse_move(pos, &t) else { continue };
            match g.check_move(pos, &mv) {
                Ok(()) => {
                    prop_assert!(legal_set.contains(&mv), "{} accepted but not legal in {}", t, text);
                    accepted.insert(mv);
                }
                Err(Error::Illegal(e)) => {
                    prop_assert!(
                        !legal_set.contains(&mv),
                        "{} legal but refused ({}) in {}",
                        t,
                        e.code,
                        text
                    );
                    if outcome.is_some() {
                        prop_assert_eq!(e.code, "game_over");
                    }
                    prop_assert!(g.play(pos, &mv).is_err());
                }
                Err(e) => return Err(TestCaseError::fail(format!("{t} in {text}: {e:?}"))),
            }
        }
        prop_assert_eq!(accepted, legal_set, "{}", text);
    }
    Ok(legal)
}

fn final_score_check(g: &AnyGame, pos: &AnyPosition, total: u32) -> Result<(), TestCaseError> {
    let sg = sowing_game(g);
    let sp = sowing(pos);
    let o = g.outcome(pos).unwrap().expect("over");
    let endless = matches!(o.reason, EndReason::EndlessCycle | EndReason::TurnLimit);
    let rule = if endless { sg.rules().endless } else { sg.rules().remaining };
    let sum = o.scores[0] + o.scores[1];
    if rule == Remaining::Nobody {
        prop_assert_eq!(sum, sp.stores[0] as i32 + sp.stores[1] as i32);
    } else {
        prop_assert_eq!(sum, total as i32, "every seed is counted at the end");
    }
    prop_assert!(o.scores[0] >= sp.stores[0] as i32 && o.scores[1] >= sp.stores[1] as i32);
    // The scores name the winner, unless the rules' end choices decide a blocked game otherwise.
    let end = &sg.rules().end;
    let end_choice = matches!(o.reason, EndReason::Stuck | EndReason::NeitherCanMove)
        && (end.stuck_result != griot_core::sowing::rules::StuckResult::Scores
            || end.neither_can_move != griot_core::sowing::rules::NeitherCanMove::AsStuck);
    if !end_choice {
        prop_assert_eq!(o.winner, griot_core::Outcome::by_score(o.scores, o.reason).winner);
    }
    Ok(())
}

fn random_game(variant: &str, choices: &[u16], full_every: usize) -> Result<(), TestCaseError> {
    let g = registry::game(variant).map_err(|e| TestCaseError::fail(format!("{variant}: {e}")))?;
    let mut pos = g.start();
    let total = seeds_in_play(sowing_game(&g), &sowing(&pos));
    let mut keys = HashMap::new();
    for (i, &c) in choices.iter().enumerate() {
        let legal = check_position(&g, &pos, total, &mut keys, i % full_every == 0)?;
        if legal.is_empty() {
            return final_score_check(&g, &pos, total);
        }
        pos = g.play(&pos, &legal[c as usize % legal.len()]).unwrap().0;
    }
    let legal = check_position(&g, &pos, total, &mut keys, true)?;
    if legal.is_empty() {
        final_score_check(&g, &pos, total)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(48))]

    /// Random games of every built-in variant with random board sizes, seeds and turn limits.
    #[test]
    fn random_games_keep_every_invariant(
        fi in 0usize..64,
        h in any::<u8>(),
        s in any::<u8>(),
        max_turns in prop::option::of(1u32..60),
        choices in prop::collection::vec(any::<u16>(), 0..120),
    ) {
        let v = variant_string(fi, h, s, max_turns);
        random_game(&v, &choices, 3)?;
    }
}

#[test]
fn every_builtin_variant_plays_random_games_from_its_default_start() {
    // Deterministic sweep: each of the 19 variants and 5 readings with default options, a few games
    // each.
    let mut rng = registry::SplitMix64(7);
    for f in builtin_families() {
        for _ in 0..3 {
            let choices: Vec<u16> = (0..150).map(|_| rng.next_u64() as u16).collect();
            random_game(&f.id, &choices, 5).unwrap_or_else(|e| panic!("{}: {e}", f.id));
        }
    }
    assert_eq!(builtin_families().len(), 24);
}

// ---------------------------------------------------------------------------------------------
// Parser fuzzing
// ---------------------------------------------------------------------------------------------

/// Parses `text`; on success checks the round trip (format -> parse -> same position, same text).
fn parse_round_trips(text: &str) -> Result<(), TestCaseError> {
    if let Ok((g, pos)) = registry::parse_position(text) {
        let formatted = g.format_position(&pos).unwrap();
        let (g2, pos2) = registry::parse_position(&formatted).map_err(|e| {
            TestCaseError::fail(format!("{text:?} parsed, but its text {formatted:?} did not: {e}"))
        })?;
        prop_assert_eq!(pos2, pos);
        prop_assert_eq!(g2.format_position(&pos2).unwrap(), formatted);
        // Anything that parses can be asked every question without panicking.
        let _ = g.outcome(&pos).unwrap();
        let legal = g.legal_moves(&pos).unwrap();
        for mv in legal.iter().take(4) {
            let _ = g.play(&pos, mv).unwrap();
        }
        let _ = g.key_bytes(&pos).unwrap();
    }
    Ok(())
}

/// Valid positions of a few variants, as seeds for mutation.
fn valid_positions() -> Vec<String> {
    let mut out = Vec::new();
    let mut rng = registry::SplitMix64(11);
    for v in [
        "abapa",
        "oware",
        "darra(holes=4,seeds=3)",
        "leb-bbut-ahbochen(holes=2)",
        "nyakun",
        "2-4(max_turns=9)",
    ] {
        let g = registry::game(v).unwrap();
        let mut pos = g.start();
        for _ in 0..12 {
            let legal = g.legal_moves(&pos).unwrap();
            if legal.is_empty() {
                break;
            }
            out.push(g.format_position(&pos).unwrap());
            pos = g.play_unchecked(&pos, &legal[rng.below(legal.len())]).unwrap();
        }
        out.push(g.format_position(&pos).unwrap());
    }
    // A match of rounds: holes out of play, a refill, a refill after a pass.
    out.extend(
        [
            "erherhe 0,0,0,0,1,3/4,4,4,4,2,0 18-8 N 31 off=abcdF",
            "erherhe 4,0,0,0,0,0/0,0,0,0,0,0 14-30 N 33 refill",
            "erherhe 4,4,4,4,2,0/4,4,4,4,4,0 0-10 N 43 refill,passed",
        ]
        .map(String::from),
    );
    out
}

/// Characters mutations insert: the notation's own alphabet and a few strangers.
const ALPHABET: &[char] = &[
    '0', '1', '2', '5', '9', ',', '/', '-', ' ', 'S', 'N', '(', ')', '=', 'a', 'A', 'x', '=', ':', '\t',
    '\n', 'é', '\u{0}', '+', '.', '9', '2', '5', '6', ',',
];

#[derive(Clone, Debug)]
enum Mutation {
    Replace(usize, char),
    Insert(usize, char),
    Delete(usize, usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let ch = prop::sample::select(ALPHABET);
    prop_oneof![
        (any::<usize>(), ch.clone()).prop_map(|(i, c)| Mutation::Replace(i, c)),
        (any::<usize>(), ch).prop_map(|(i, c)| Mutation::Insert(i, c)),
        (any::<usize>(), 1usize..6).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), 1usize..8).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
    ]
}

fn mutate(text: &str, mutations: &[Mutation]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for m in mutations {
        let len = chars.len();
        match *m {
            Mutation::Replace(i, c) if len > 0 => chars[i % len] = c,
            Mutation::Insert(i, c) => chars.insert(i % (len + 1), c),
            Mutation::Delete(i, n) if len > 0 => {
                let at = i % len;
                chars.drain(at..(at + n).min(len));
            }
            Mutation::Duplicate(i, n) if len > 0 => {
                let at = i % len;
                let piece: Vec<char> = chars[at..(at + n).min(len)].to_vec();
                for (k, c) in piece.into_iter().enumerate() {
                    chars.insert(at + k, c);
                }
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn notation_parser_survives_arbitrary_text(text in "\\PC{0,80}") {
        parse_round_trips(&text)?;
    }

    #[test]
    fn notation_parser_survives_near_valid_text(
        text in "(abapa|awale|oware|jodu|leb-bbut-ahbochen|nyakun|2-4)(\\((holes|seeds|max_turns)=[0-9]{1,3}\\))? \
                 [0-9]{1,3}(,[0-9]{1,3}){0,7}/[0-9]{1,3}(,[0-9]{1,3}){0,7} [0-9]{1,3}-[0-9]{1,3} [SNX] [0-9]{1,6} \
                 (-|cap=S|cap=N|cycle|cap=N,cycle|cycle,cycle)"
    ) {
        parse_round_trips(&text)?;
    }

    #[test]
    fn notation_parser_survives_mutated_positions(
        which in any::<usize>(),
        mutations in prop::collection::vec(mutation(), 1..5),
    ) {
        let valid = valid_positions();
        let text = mutate(&valid[which % valid.len()], &mutations);
        parse_round_trips(&text)?;
    }

    #[test]
    fn move_parser_survives_arbitrary_text(which in any::<usize>(), text in "\\PC{0,12}|[a-zA-Z]{1,2}(:(cw|ccw|x))?|pass") {
        let valid = valid_positions();
        let (g, pos) = registry::parse_position(&valid[which % valid.len()]).unwrap();
        if let Ok(mv) = g.parse_move(&pos, &text) {
            let formatted = g.format_move(&pos, &mv).unwrap();
            prop_assert_eq!(g.parse_move(&pos, &formatted).unwrap(), mv);
            // check_move answers with a reason; play agrees with it.
            prop_assert_eq!(g.check_move(&pos, &mv).is_ok(), g.play(&pos, &mv).is_ok());
        }
    }

    #[test]
    fn variant_parser_survives_arbitrary_text(
        text in "\\PC{0,40}|(abapa|oware|leb-bbut-ahbochen|x)(\\(([a-z_]{1,9}=[a-z0-9-]{0,4},?){0,4}\\)?)?"
    ) {
        if let Ok(g) = registry::game(&text) {
            let canonical = g.variant().canonical().to_string();
            let g2 = registry::game(&canonical).unwrap();
            prop_assert_eq!(g2.variant().canonical(), canonical.as_str());
            let start = g.start();
            let _ = g.format_position(&start).unwrap();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rule-file fuzzing
// ---------------------------------------------------------------------------------------------

/// A rule set that parsed must give a playable game: start, a short random game with seed
/// conservation and the notation round trip, and its description.
fn rules_are_usable(rules: RuleSet, choices: &[u16]) -> Result<(), TestCaseError> {
    let _ = rules.describe(rules.holes, rules.seeds);
    // The rule set written back as a file reads as the same rules.
    let text = rules.to_toml();
    let back = RuleSet::from_toml(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    prop_assert_eq!(&back, &rules, "{}", text);
    let spec =
        VariantSpec::parse(&rules.id).map_err(|e| TestCaseError::fail(format!("id {:?}: {e}", rules.id)))?;
    let g = SowingGame::new(Arc::new(rules), &spec).map_err(|e| TestCaseError::fail(format!("{e}")))?;
    let mut pos = g.start();
    let total = seeds_in_play(&g, &pos);
    let mut moves = griot_core::MoveList::new();
    for &c in choices {
        let body = g.format_body(&pos);
        prop_assert_eq!(g.parse_body(&body).unwrap(), pos, "{}", body);
        prop_assert_eq!(seeds_in_play(&g, &pos), total);
        moves.clear();
        g.legal_moves(&pos, &mut moves);
        prop_assert_eq!(g.outcome(&pos).is_some(), moves.is_empty());
        if moves.is_empty() {
            break;
        }
        let mv = moves[c as usize % moves.len()];
        prop_assert!(g.check_move(&pos, mv).is_ok());
        pos = g.play_unchecked(&pos, mv);
    }
    Ok(())
}

/// Characters rule-file mutations insert.
const TOML_ALPHABET: &[char] = &[
    '=', '[', ']', '"', '0', '1', '2', '7', '9', '.', ',', '-', '\n', ' ', '#', 'a', 'e', 'x', '{', '}',
    '\'', 't', 'r', 'u', 'f', 's',
];

fn toml_mutation() -> impl Strategy<Value = Mutation> {
    let ch = prop::sample::select(TOML_ALPHABET);
    prop_oneof![
        (any::<usize>(), ch.clone()).prop_map(|(i, c)| Mutation::Replace(i, c)),
        (any::<usize>(), ch).prop_map(|(i, c)| Mutation::Insert(i, c)),
        (any::<usize>(), 1usize..12).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<usize>(), 1usize..20).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
    ]
}

/// Values a rule file line may be switched to: every word of the language and some bad ones.
const VALUE_SWAPS: &[&str] = &[
    "\"any\"",
    "\"own\"",
    "\"opponent\"",
    "\"even\"",
    "\"odd\"",
    "[1]",
    "[0]",
    "[1, 3]",
    "[\"1..\"]",
    "[\"2..4\"]",
    "\"0..255\"",
    "true",
    "false",
    "0",
    "1",
    "2",
    "7",
    "18",
    "255",
    "300",
    "\"cw\"",
    "\"choice\"",
    "\"pass\"",
    "\"nobody\"",
    "\"last-capturer\"",
    "\"opponent-of-stuck\"",
    "\"next\"",
    "\"forward\"",
    "\"illegal\"",
    "\"spare-last\"",
    "\"must-feed\"",
    "\"forbidden\"",
    "\"continues-on\"",
    "\"store-and-row\"",
    "[]",
    "{}",
    "\"\"",
    "-1",
];

/// Replaces the value of the `line`-th `key = value` line with `VALUE_SWAPS[value]`.
fn swap_value(text: &str, line: usize, value: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let assignments: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains(" = ") && !l.starts_with('#'))
        .map(|(i, _)| i)
        .collect();
    if assignments.is_empty() {
        return text.to_string();
    }
    let target = assignments[line % assignments.len()];
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i == target {
            let key = l.split(" = ").next().unwrap();
            out.push(format!("{key} = {}", VALUE_SWAPS[value % VALUE_SWAPS.len()]));
        } else {
            out.push(l.to_string());
        }
    }
    out.join("\n")
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn rule_file_parser_survives_arbitrary_text(text in "\\PC{0,120}") {
        if let Ok(rules) = RuleSet::from_toml(&text) {
            rules_are_usable(rules, &[0, 1, 2, 3])?;
        }
    }

    #[test]
    fn rule_file_parser_survives_mutated_files(
        which in any::<usize>(),
        mutations in prop::collection::vec(toml_mutation(), 1..4),
        choices in prop::collection::vec(any::<u16>(), 0..40),
    ) {
        let files = registry::BUILTIN_RULE_FILES;
        let text = mutate(files[which % files.len()].1, &mutations);
        match RuleSet::from_toml(&text) {
            Ok(rules) => rules_are_usable(rules, &choices)?,
            Err(griot_core::VariantError::RuleFile { field, message }) => {
                prop_assert!(!field.is_empty() && !message.is_empty());
            }
            Err(e) => prop_assert!(false, "a rule file error must be RuleFile, got {:?}", e),
        }
    }

    #[test]
    fn rule_file_parser_survives_swapped_values(
        which in any::<usize>(),
        swaps in prop::collection::vec((any::<usize>(), any::<usize>()), 1..4),
        choices in prop::collection::vec(any::<u16>(), 0..40),
    ) {
        let files = registry::BUILTIN_RULE_FILES;
        let mut text = files[which % files.len()].1.to_string();
        for (line, value) in swaps {
            text = swap_value(&text, line, value);
        }
        match RuleSet::from_toml(&text) {
            Ok(rules) => rules_are_usable(rules, &choices)?,
            Err(griot_core::VariantError::RuleFile { field, message }) => {
                prop_assert!(!field.is_empty() && !message.is_empty());
            }
            Err(e) => prop_assert!(false, "a rule file error must be RuleFile, got {:?}", e),
        }
    }
}
