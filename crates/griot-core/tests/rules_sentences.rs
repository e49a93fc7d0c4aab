//! `griot rules` prints each game's rules as sentences built from its options. Every built-in game,
//! with its defaults and with each boolean option turned over (and its first and last integer
//! values, where the board takes them), is rendered here and checked for the slips generated text falls into: an article that
//! does not fit ("a any"), a word written twice, "(s)" plurals, empty clauses, stray spaces.

use griot_core::registry::{families, game};
use griot_core::variant::{Allowed, OptionValue};

fn variants() -> Vec<String> {
    let mut out = Vec::new();
    for f in families().into_iter().filter(|f| f.builtin) {
        out.push(f.id.clone());
        for o in &f.options {
            if o.name == "max_turns" {
                continue;
            }
            let values: Vec<String> = match (&o.allowed, &o.default) {
                (Allowed::Bool, OptionValue::Bool(b)) => vec![(!b).to_string()],
                (Allowed::Range(lo, hi), _) => vec![lo.to_string(), hi.to_string()],
                (Allowed::OneOf(v), _) => v.iter().map(|x| x.to_string()).collect(),
                _ => vec![],
            };
            for v in values {
                out.push(format!("{}({}={v})", f.id, o.name));
            }
        }
    }
    out
}

fn slips(sentence: &str) -> Vec<String> {
    let mut found = Vec::new();
    let words: Vec<String> = sentence
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
        .collect();
    for pair in words.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if !a.is_empty() && a == b && a.chars().all(char::is_alphabetic) {
            found.push(format!("doubled word {a:?}"));
        }
        let vowel = b.starts_with(['a', 'e', 'i', 'o']) && !b.starts_with("one");
        if a == "a" && vowel {
            found.push(format!("\"a {b}\""));
        }
        if a == "an" && !vowel && !b.is_empty() && !b.starts_with('u') {
            found.push(format!("\"an {b}\""));
        }
    }
    for bad in ["(s)", "  ", " ,", " .", ",,", "..", ",.", "()", "; ;"] {
        if sentence.contains(bad) {
            found.push(format!("{bad:?}"));
        }
    }
    if !sentence.ends_with('.') {
        found.push("no full stop at the end".into());
    }
    if !sentence.chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit()) {
        found.push("no capital at the start".into());
    }
    found
}

#[test]
fn every_rule_sentence_reads_cleanly() {
    let mut problems = Vec::new();
    let all = variants();
    assert!(all.len() > 40, "{} variants", all.len());
    for v in &all {
        // An option's extreme may not fit the board (255 seeds a hole): that is an error, not a
        // sentence.
        let Ok(g) = game(v) else { continue };
        let rules = g.describe_rules();
        assert!(!rules.is_empty(), "{v}");
        for sentence in rules {
            for slip in slips(&sentence) {
                problems.push(format!("{v}: {slip}: {sentence}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checker_catches_the_slips() {
    assert!(!slips("Play: a any non-empty hole holding at least 1 seed(s); all are lifted.").is_empty());
    assert!(!slips("Sowing: the the origin hole.").is_empty());
    assert!(!slips("Capture: an hole.").is_empty());
    assert!(slips("Play: any hole of either row holding at least 1 seed; all are lifted.").is_empty());
}
