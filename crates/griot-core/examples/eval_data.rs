//! Positions for fitting the learned sowing evaluation (`tools/fit_eval.py`): self-play games of
//! the tuned engine from seeded random openings, every position after the opening written as its
//! feature vector (`griot_core::search::learned::features`) and the game's result from the side
//! to move's view (1 win, 0.5 draw, 0 loss):
//!
//!     cargo run --release --example eval_data -- VARIANT GAMES DEPTH PLIES SEED > data.csv
//!
//! Each opening is `PLIES` random turns; a position's third occurrence ends the game by the
//! variant's endless-cycle rule. Deterministic for a seed (fixed-depth searches).

use std::collections::HashMap;
use std::io::Write;

use griot_core::registry::{self, AnyGame, AnyPosition, SplitMix64};
use griot_core::search::{learned, Hooks, Limits, SearchOptions};
use griot_core::Player;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 6 {
        eprintln!("usage: eval_data VARIANT GAMES DEPTH PLIES SEED");
        std::process::exit(2);
    }
    let game = registry::game(&args[1]).expect("a variant");
    let AnyGame::Sowing(sowing) = &*game else {
        eprintln!("{}: not a two-row sowing game", args[1]);
        std::process::exit(2);
    };
    let games: u32 = args[2].parse().expect("games");
    let depth: u32 = args[3].parse().expect("depth");
    let plies: u32 = args[4].parse().expect("plies");
    let mut rng = SplitMix64(args[5].parse().expect("seed"));
    let options = SearchOptions {
        limits: Limits { depth: Some(depth), ..Limits::default() },
        hash_mb: 1,
        ..SearchOptions::default()
    };
    let out = std::io::stdout();
    let mut out = out.lock();
    let header: Vec<String> = (0..learned::LEN).map(|i| format!("f{i}")).collect();
    writeln!(out, "{},result", header.join(",")).unwrap();
    for _ in 0..games {
        let mut pos = game.start();
        let mut history: Vec<AnyPosition> = Vec::new();
        let mut chosen = 0;
        while chosen < plies && game.outcome(&pos).unwrap().is_none() {
            let moves = game.legal_moves(&pos).unwrap();
            chosen += 1;
            history.push(pos);
            pos = game.play_unchecked(&pos, &moves[rng.below(moves.len())]).unwrap();
        }
        let mut seen: HashMap<u64, u32> = HashMap::new();
        let mut sampled: Vec<([i32; learned::LEN], Player)> = Vec::new();
        let winner = loop {
            let mut outcome = game.outcome(&pos).unwrap();
            let n = seen.entry(game.hash_key(&pos).unwrap()).or_default();
            *n += 1;
            if outcome.is_none() && *n >= 3 {
                outcome = Some(game.endless_outcome(&pos).unwrap());
            }
            if let Some(o) = outcome {
                break o.winner;
            }
            let AnyPosition::Sowing(p) = &pos else { unreachable!("a sowing game's position") };
            if let Some(f) = learned::features(sowing, p) {
                sampled.push((f, p.to_move));
            }
            let tail = &history[history.len().saturating_sub(60)..];
            let r = game.search(&pos, tail, &options, Hooks::default()).expect("search");
            history.push(pos);
            pos = game.play_unchecked(&pos, &r.best.expect("a move")).unwrap();
        };
        for (f, side) in sampled {
            let result = match winner {
                None => 0.5,
                Some(w) if w == side => 1.0,
                Some(_) => 0.0,
            };
            let cells: Vec<String> = f.iter().map(|v| v.to_string()).collect();
            writeln!(out, "{},{result}", cells.join(",")).unwrap();
        }
    }
}
