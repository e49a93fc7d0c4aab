//! The bench: a fixed set of positions of several variants, each searched to a fixed depth with a
//! fresh table. The total node count is the search's signature: any functional change to the
//! search, ordering, evaluation or rules changes it, so a test pins it and such changes are
//! deliberate (update the pinned number in the same commit).

use std::time::{Duration, Instant};

use crate::error::Error;
use crate::registry;

use crate::search::engine::{Hooks, Limits, SearchOptions};

/// The bench positions: variant, moves played from its start, depth.
pub const BENCH_POSITIONS: &[(&str, &str, u32)] = &[
    ("abapa", "", 14),
    ("abapa", "c D b E a F e A", 14),
    ("abapa", "f B e C d A c D b E a F", 14),
    ("oware", "", 12),
    ("awale", "", 12),
    ("2-4", "", 10),
    ("abapa(holes=4,seeds=3)", "", 16),
];

/// Table size of the bench searches, in MB.
pub const BENCH_HASH_MB: usize = 16;

/// One bench position's figures.
#[derive(Clone, Debug)]
pub struct BenchLine {
    /// The position in notation.
    pub position: String,
    /// Depth searched.
    pub depth: u32,
    /// Nodes visited.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
    /// The best move found.
    pub best: String,
    /// The score, as text.
    pub score: String,
}

/// Runs the bench: every position with a fresh table of [`BENCH_HASH_MB`] MB.
pub fn run() -> Result<Vec<BenchLine>, Error> {
    let mut out = Vec::new();
    for &(variant, moves, depth) in BENCH_POSITIONS {
        let game = registry::game(variant)?;
        let mut pos = game.start();
        for m in moves.split_whitespace() {
            let mv = game.parse_move(&pos, m)?;
            pos = game.play(&pos, &mv)?.0;
        }
        let options = SearchOptions {
            limits: Limits { depth: Some(depth), ..Limits::default() },
            hash_mb: BENCH_HASH_MB,
            ..SearchOptions::default()
        };
        let start = Instant::now();
        let r = game.search(&pos, &[], &options, Hooks::default())?;
        out.push(BenchLine {
            position: game.format_position(&pos)?,
            depth,
            nodes: r.nodes,
            elapsed: start.elapsed(),
            best: r.pv_text.first().cloned().unwrap_or_default(),
            score: r.score.to_string(),
        });
    }
    Ok(out)
}
