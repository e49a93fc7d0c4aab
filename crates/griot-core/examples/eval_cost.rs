//! CPU cost of one search evaluation, per variant and style, over positions of seeded random
//! games: `cargo run --release --example eval_cost -- [VARIANT...]`.

use std::hint::black_box;
use std::time::Instant;

use griot_core::registry::{self, AnyGame, SplitMix64};
use griot_core::search::{EvalStyle, Evaluate};
use griot_core::{Game, MoveList};

fn positions<G: Game>(g: &G, games: u32) -> Vec<G::Position> {
    let mut rng = SplitMix64(7);
    let mut out = Vec::new();
    let mut moves = MoveList::new();
    for _ in 0..games {
        let mut pos = g.start();
        for _ in 0..300 {
            moves.clear();
            g.legal_moves(&pos, &mut moves);
            if moves.is_empty() {
                break;
            }
            pos = g.play_unchecked(&pos, moves[rng.below(moves.len())]);
            out.push(pos);
        }
    }
    out
}

fn cost<G: Evaluate>(variant: &str, g: &G) {
    let all = positions(g, 40);
    for style in [EvalStyle::Material, EvalStyle::Tuned, EvalStyle::parse("1,1,1,1").unwrap()] {
        let rounds = (2_000_000 / all.len().max(1)).max(1);
        let t = Instant::now();
        let mut sum = 0i64;
        for _ in 0..rounds {
            for p in &all {
                sum += black_box(g.evaluate_search(black_box(p), &style)) as i64;
            }
        }
        let ns = t.elapsed().as_nanos() as f64 / (rounds * all.len()) as f64;
        println!("{variant:<24} {:<28} {ns:>7.1} ns/eval (checksum {sum})", format!("{style:?}"));
    }
}

fn main() {
    let mut variants: Vec<String> = std::env::args().skip(1).collect();
    if variants.is_empty() {
        variants = ["abapa", "bechi", "ikibuguzo", "sabouiyya"].map(String::from).to_vec();
    }
    for v in &variants {
        match &*registry::game(v).expect("a variant") {
            AnyGame::Sowing(g) => cost(v, g),
            AnyGame::Bechi(g) => cost(v, g),
            AnyGame::Ikibuguzo(g) => cost(v, g),
            AnyGame::Sabouiyya(g) => cost(v, g),
        }
    }
}
