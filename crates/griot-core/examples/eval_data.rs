//! Positions for fitting the learned sowing evaluation (`bench/fit_eval.py`): self-play games of
//! the default engine from seeded random openings, every position after the opening written as
//! its feature vector (`griot_core::search::learned::features`) and its result from the side to
//! move's view (1 win, 0.5 draw, 0 loss):
//!
//!     cargo run --release --example eval_data -- VARIANT GAMES DEPTH PLIES SEED [EGDB_DIR] > data.csv
//!
//! Each opening is `PLIES` random turns; a position's third occurrence ends the game by the
//! variant's endless-cycle rule. With `EGDB_DIR`, a position the endgame databases know exactly
//! is labelled with its value under best play rather than with the game's result: the result of
//! a game played on by a fallible engine is a noisy label, the database's is not. Deterministic
//! for a seed (fixed-depth searches).

use std::collections::HashMap;
use std::io::Write;

use griot_core::egdb::Egdb;
use griot_core::registry::{self, AnyGame, AnyPosition, SplitMix64};
use griot_core::search::{learned, Hooks, Limits, SearchOptions};
use griot_core::Player;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !(6..=7).contains(&args.len()) {
        eprintln!("usage: eval_data VARIANT GAMES DEPTH PLIES SEED [EGDB_DIR]");
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
    let egdb =
        args.get(6).map(|dir| Egdb::open(std::path::Path::new(dir), sowing).expect("endgame databases"));
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
        // Features, side to move, and the exact winner where the databases know it.
        type Sample = ([i32; learned::LEN], Player, Option<Option<Player>>);
        let mut sampled: Vec<Sample> = Vec::new();
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
                let exact = egdb.as_ref().and_then(|db| db.probe_winner(sowing, p));
                sampled.push((f, p.to_move, exact));
            }
            let tail = &history[history.len().saturating_sub(60)..];
            let r = game.search(&pos, tail, &options, Hooks::default()).expect("search");
            history.push(pos);
            pos = game.play_unchecked(&pos, &r.best.expect("a move")).unwrap();
        };
        for (f, side, exact) in sampled {
            let result = match exact.unwrap_or(winner) {
                None => 0.5,
                Some(w) if w == side => 1.0,
                Some(_) => 0.0,
            };
            let cells: Vec<String> = f.iter().map(|v| v.to_string()).collect();
            writeln!(out, "{},{result}", cells.join(",")).unwrap();
        }
    }
}
