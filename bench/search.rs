//! Criterion benchmarks of the search: fixed-depth searches from start positions, one core.
//! `cargo bench -p griot-core --bench search`

use criterion::{criterion_group, criterion_main, Criterion};
use griot_core::registry;
use griot_core::search::{Hooks, Limits, SearchOptions};

fn fixed_depth(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for (variant, depth) in [("abapa", 14), ("abapa", 16), ("oware", 14), ("awale", 14), ("2-4", 12)] {
        let game = registry::game(variant).unwrap();
        let pos = game.start();
        let options = SearchOptions {
            limits: Limits { depth: Some(depth), ..Limits::default() },
            hash_mb: 64,
            ..SearchOptions::default()
        };
        group.bench_function(format!("{variant} start depth {depth}"), |b| {
            b.iter(|| game.search(&pos, &[], &options, Hooks::default()).unwrap().nodes)
        });
    }
    group.finish();
}

criterion_group!(benches, fixed_depth);
criterion_main!(benches);
