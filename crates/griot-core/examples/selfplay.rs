//! Self-play matches between two engine settings on any variant, in Rust (the evaluation under
//! test need not be in the installed Python package):
//!
//!     cargo run --release --example selfplay -- VARIANT A B [OPENINGS] [PLIES] [SEED]
//!
//! `A` and `B` are `;`-separated settings: `depth=6`, `nodes=20000`, `time=0.05` (seconds),
//! `eval=learned|tuned|material|w0,w1,w2,w3` (default `learned`), `hash=16` (MB). Each opening
//! is `PLIES` random turns from the start (turns with one legal move, such as Ikibuguzo's
//! scripted opening, do not count), seeded by `SEED`, and is played twice with colours swapped. A position's third occurrence at a turn's
//! start ends the game by the variant's endless-cycle rule, as in `bench/strength.py`. Prints A's
//! score (win 1, draw 0.5) ± 1.96 standard errors, wins/draws/losses and the Elo difference.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use griot_core::registry::{self, AnyGame, AnyPosition, SplitMix64};
use griot_core::search::{EvalStyle, Hooks, Limits, SearchOptions};
use griot_core::Player;

#[derive(Clone, Debug)]
struct Engine {
    text: String,
    options: SearchOptions,
}

impl Engine {
    fn parse(text: &str) -> Engine {
        let mut limits = Limits::default();
        let mut eval = EvalStyle::default();
        let mut hash_mb = 16;
        for field in text.split(';').filter(|f| !f.is_empty()) {
            let (k, v) = field.split_once('=').expect("key=value");
            match k {
                "depth" => limits.depth = Some(v.parse().expect("depth")),
                "nodes" => limits.nodes = Some(v.parse().expect("nodes")),
                "time" => limits.time = Some(Duration::from_secs_f64(v.parse().expect("seconds"))),
                "eval" => eval = EvalStyle::parse(v).expect("learned, tuned, material or weights"),
                "hash" => hash_mb = v.parse().expect("MB"),
                _ => panic!("unknown setting {k:?}"),
            }
        }
        let options = SearchOptions { limits, hash_mb, eval, ..SearchOptions::default() };
        Engine { text: text.to_string(), options }
    }
}

fn opening(game: &AnyGame, plies: u32, rng: &mut SplitMix64) -> (AnyPosition, Vec<AnyPosition>) {
    loop {
        let mut pos = game.start();
        let mut history = Vec::new();
        let mut chosen = 0;
        while chosen < plies && game.outcome(&pos).unwrap().is_none() {
            let turns = game.legal_turns(&pos).unwrap();
            if turns.len() > 1 {
                chosen += 1;
            }
            let (_, _, next) = &turns[rng.below(turns.len())];
            history.push(pos);
            pos = *next;
        }
        if game.outcome(&pos).unwrap().is_none() {
            return (pos, history);
        }
    }
}

/// South's points in the game from `pos`.
fn play(
    game: &AnyGame,
    mut pos: AnyPosition,
    mut history: Vec<AnyPosition>,
    south: &Engine,
    north: &Engine,
) -> (f64, u32) {
    let mut seen: HashMap<u64, u32> = HashMap::new();
    for p in &history {
        if !game.mid_turn(p).unwrap() {
            *seen.entry(game.hash_key(p).unwrap()).or_default() += 1;
        }
    }
    let mut turns = 0;
    loop {
        let mid = game.mid_turn(&pos).unwrap();
        let mut outcome = game.outcome(&pos).unwrap();
        if !mid {
            let n = seen.entry(game.hash_key(&pos).unwrap()).or_default();
            *n += 1;
            if outcome.is_none() && *n >= 3 {
                outcome = Some(game.endless_outcome(&pos).unwrap());
            }
            turns += 1;
        }
        if let Some(o) = outcome {
            let points = match o.winner {
                Some(Player::South) => 1.0,
                Some(Player::North) => 0.0,
                None => 0.5,
            };
            return (points, turns);
        }
        let engine = if game.side_to_move(&pos).unwrap() == Player::South { south } else { north };
        let tail = &history[history.len().saturating_sub(60)..];
        let r = game.search(&pos, tail, &engine.options, Hooks::default()).expect("search");
        let mv = r.best.expect("a move");
        history.push(pos);
        pos = game.play_unchecked(&pos, &mv).unwrap();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: selfplay VARIANT A B [OPENINGS] [PLIES] [SEED]");
        std::process::exit(2);
    }
    let game = registry::game(&args[1]).expect("a variant");
    let a = Engine::parse(&args[2]);
    let b = Engine::parse(&args[3]);
    let openings: u32 = args.get(4).map_or(20, |s| s.parse().expect("openings"));
    let plies: u32 = args.get(5).map_or(4, |s| s.parse().expect("plies"));
    let seed: u64 = args.get(6).map_or(1, |s| s.parse().expect("seed"));
    let mut rng = SplitMix64(seed);
    let mut points = Vec::new();
    let mut total_turns = 0;
    let t = Instant::now();
    for _ in 0..openings {
        let (pos, history) = opening(&game, plies, &mut rng);
        let (p, n1) = play(&game, pos, history.clone(), &a, &b);
        let (q, n2) = play(&game, pos, history, &b, &a);
        points.push(p);
        points.push(1.0 - q);
        total_turns += n1 + n2;
    }
    let n = points.len() as f64;
    let mean = points.iter().sum::<f64>() / n;
    let var = points.iter().map(|p| (p - mean) * (p - mean)).sum::<f64>() / (n - 1.0).max(1.0);
    let err = 1.96 * (var / n).sqrt();
    let count = |v: f64| points.iter().filter(|&&p| p == v).count();
    let elo = if mean > 0.0 && mean < 1.0 {
        format!(", Elo {:+.0}", -400.0 * (1.0 / mean - 1.0).log10())
    } else {
        String::new()
    };
    println!(
        "{}: A={} vs B={}: A scores {mean:.3} ± {err:.3} over {} games (W {} D {} L {}{elo}) [{:.0} s, {:.0} turns/game, seed {seed}, plies {plies}]",
        args[1],
        a.text,
        b.text,
        points.len(),
        count(1.0),
        count(0.5),
        count(0.0),
        t.elapsed().as_secs_f64(),
        total_turns as f64 / n,
    );
}
