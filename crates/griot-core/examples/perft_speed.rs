//! Perft speed of positions, for interleaved A/B runs between two builds:
//! `cargo run --release --example perft_speed -- DEPTH POSITION...` prints leaves and seconds per
//! position (every leaf made, one core).

use std::time::Instant;

use griot_core::registry;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let depth: u32 = args.get(1).and_then(|d| d.parse().ok()).expect("a depth");
    for text in &args[2..] {
        let (game, pos) = registry::parse_position(text).expect("a position");
        let start = Instant::now();
        let leaves = game.perft_turns(&pos, depth).expect("perft");
        println!("{:.4}\t{leaves}\t{text}", start.elapsed().as_secs_f64());
    }
}
