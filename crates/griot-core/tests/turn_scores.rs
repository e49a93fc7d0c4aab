//! At the boundary a move is a whole turn. A search asked for every move must score every legal
//! turn, also the completions of a first step that the engine's per-step list does not name
//! (Ikibuguzo's choices after a capture), each with its minimax value.

use std::collections::HashSet;

use griot_core::registry::{self, AnyGame, AnyPosition};
use griot_core::search::score::from_table;
use griot_core::search::{reference, Bound, EvalStyle, Hooks, Limits, SearchOptions, Value};

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// Positions of random games (whole turns) where a first step has several completions.
fn positions_with_choices(game: &AnyGame, want: usize, seed: u64) -> Vec<AnyPosition> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for _ in 0..400 {
        let mut pos = game.start();
        loop {
            let turns = game.legal_turns(&pos).unwrap();
            if turns.is_empty() {
                break;
            }
            let first_steps: HashSet<_> = turns.iter().map(|(steps, _, _)| steps[0]).collect();
            if turns.len() > first_steps.len() && turns.len() <= 24 {
                out.push(pos);
                if out.len() == want {
                    return out;
                }
            }
            pos = turns[rng.below(turns.len())].2;
        }
    }
    out
}

/// The minimax value of `child` for the player to move at `root`, seen from `root`.
fn expected(game: &AnyGame, root: &AnyPosition, child: &AnyPosition, depth: u32, steps: usize) -> Value {
    let mut path = vec![game.hash_key(root).unwrap()];
    let eval = EvalStyle::Material;
    let v = match (game, child) {
        (AnyGame::Ikibuguzo(g), AnyPosition::Ikibuguzo(p)) => {
            reference::minimax(g, p, depth, &eval, &mut path)
        }
        (AnyGame::Sabouiyya(g), AnyPosition::Sabouiyya(p)) => {
            reference::minimax(g, p, depth, &eval, &mut path)
        }
        _ => unreachable!("a game with turns of several steps"),
    };
    let same = game.side_to_move(child).unwrap() == game.side_to_move(root).unwrap();
    from_table(if same { v } else { -v }, steps as u32)
}

#[test]
fn every_legal_turn_is_scored_with_its_minimax_value() {
    let game = registry::game("ikibuguzo").unwrap();
    let positions = positions_with_choices(&game, 6, 7);
    assert!(positions.len() >= 3, "random Ikibuguzo games offered too few turns with choices");
    let depth = 2;
    let options = SearchOptions {
        limits: Limits { depth: Some(depth), ..Limits::default() },
        multipv: usize::MAX,
        hash_mb: 0,
        eval: EvalStyle::Material,
        ..SearchOptions::default()
    };
    let mut completed = 0;
    for pos in &positions {
        let text = game.format_position(pos).unwrap();
        let turns = game.legal_turns(pos).unwrap();
        let r = game.search(pos, &[], &options, Hooks::default()).unwrap();
        let mut listed: Vec<&str> = r.moves.iter().map(|m| m.text.as_str()).collect();
        listed.sort_unstable();
        let mut legal: Vec<&str> = turns.iter().map(|(_, t, _)| t.as_str()).collect();
        legal.sort_unstable();
        assert_eq!(listed, legal, "{text}: the scored moves are the legal turns, each once");
        assert_eq!(r.moves[0].value, r.value, "{text}: the best move comes first");
        for m in &r.moves {
            let (steps, _, child) = turns.iter().find(|(_, t, _)| *t == m.text).unwrap();
            assert_eq!(m.bound, Bound::Exact, "{text} {}", m.text);
            assert_eq!(m.pv.first(), Some(&m.text), "{text}: a move's line starts with it");
            assert!(m.value <= r.value, "{text} {}: no move beats the best", m.text);
            let want = expected(&game, pos, child, depth - 1, steps.len());
            assert_eq!(m.value, want, "{text} {}: minimax value", m.text);
        }
        // The engine names one completion per first step; the others were searched here.
        let first_steps: HashSet<_> = turns.iter().map(|(s, _, _)| s[0]).collect();
        completed += turns.len() - first_steps.len();
    }
    assert!(completed > 0, "no position had a first step with several completions");
}

#[test]
fn one_move_asked_for_searches_no_completion() {
    // With the best move only asked for, no extra searches: one entry per first step.
    let game = registry::game("ikibuguzo").unwrap();
    let pos = positions_with_choices(&game, 1, 11)[0];
    let options =
        SearchOptions { limits: Limits { depth: Some(2), ..Limits::default() }, ..SearchOptions::default() };
    let r = game.search(&pos, &[], &options, Hooks::default()).unwrap();
    let turns = game.legal_turns(&pos).unwrap();
    let first_steps: HashSet<_> = turns.iter().map(|(s, _, _)| s[0]).collect();
    assert_eq!(r.moves.len(), first_steps.len());
    assert!(r.moves.len() < turns.len());
}
