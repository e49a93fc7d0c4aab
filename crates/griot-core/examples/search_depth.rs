//! Prints each iteration of a search from a position: `cargo run --release --example
//! search_depth -- [POSITION|VARIANT] [DEPTH] [HASH_MB] [EVAL] [THREADS]`.

use griot_core::registry;
use griot_core::search::{EvalStyle, Hooks, Limits, SearchOptions, SearchResult};
use griot_core::AnyMove;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let target = args.get(1).map(String::as_str).unwrap_or("abapa");
    let depth: u32 = args.get(2).and_then(|d| d.parse().ok()).unwrap_or(20);
    let hash_mb: usize = args.get(3).and_then(|d| d.parse().ok()).unwrap_or(64);
    let eval =
        args.get(4).map(|e| EvalStyle::parse(e).expect("tuned, material or weights")).unwrap_or_default();
    let threads: usize = args.get(5).and_then(|d| d.parse().ok()).unwrap_or(1);
    let (game, pos) = if target.contains(' ') {
        registry::parse_position(target).expect("a position")
    } else {
        let g = registry::game(target).expect("a variant");
        let p = g.start();
        (g, p)
    };
    let options = SearchOptions {
        limits: Limits { depth: Some(depth), ..Limits::default() },
        hash_mb,
        eval,
        threads,
        ..SearchOptions::default()
    };
    let mut progress = |r: &SearchResult<AnyMove>| {
        println!(
            "depth {:>2} score {:>8} nodes {:>11} time {:>8.3}s nps {:>9} pv {}",
            r.depth,
            r.score.to_string(),
            r.nodes,
            r.elapsed.as_secs_f64(),
            r.nps(),
            r.pv_text.join(" ")
        );
    };
    let hooks = Hooks { progress: Some(&mut progress), shared: None };
    game.search(&pos, &[], &options, hooks).expect("search");
}
