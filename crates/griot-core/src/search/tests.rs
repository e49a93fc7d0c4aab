//! Tests of the search against plain minimax, exhaustive solutions, the rules and itself.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use super::*;
use crate::game::{Game, MoveList, Player};
use crate::registry::{self, AnyGame, SplitMix64};
use crate::sowing::SowingGame;

fn sowing(variant: &str) -> SowingGame {
    match &*registry::game(variant).unwrap() {
        AnyGame::Sowing(g) => g.clone(),
        #[allow(unreachable_patterns)]
        _ => panic!("{variant} is not a sowing game"),
    }
}

/// Positions met along seeded random games, the start first.
fn sample_positions<G: Game>(g: &G, games: u32, seed: u64) -> Vec<G::Position> {
    let mut rng = SplitMix64(seed);
    let mut out = vec![g.start()];
    let mut moves = MoveList::new();
    for _ in 0..games {
        let mut pos = g.start();
        loop {
            moves.clear();
            g.legal_moves(&pos, &mut moves);
            if moves.is_empty() {
                break;
            }
            pos = g.play_unchecked(&pos, moves[rng.below(moves.len())]);
            if rng.below(4) == 0 {
                out.push(pos);
            }
        }
    }
    out
}

fn options(depth: u32, hash_mb: usize) -> SearchOptions {
    SearchOptions {
        limits: Limits { depth: Some(depth), ..Limits::default() },
        hash_mb,
        ..SearchOptions::default()
    }
}

const SMALL: &[&str] = &[
    "abapa(holes=3,seeds=2)",
    "2-4(holes=3,seeds=2)",
    "awale(holes=3,seeds=2)",
    "oware(holes=3,seeds=2)",
    "songo-duala(holes=3,seeds=2)",
];

#[test]
fn without_table_the_search_returns_the_minimax_value() {
    for variant in SMALL {
        let g = sowing(variant);
        for (i, pos) in sample_positions(&g, 6, 7).iter().enumerate().take(25) {
            for depth in 1..=5 {
                for eval in [EvalStyle::Tuned, EvalStyle::Material] {
                    let mut o = options(depth, 0);
                    o.eval = eval;
                    let r = search(&g, pos, &[], &o, Hooks::default());
                    let mut path = Vec::new();
                    let want = reference::minimax(&g, pos, depth, &eval, &mut path);
                    assert_eq!(
                        r.value,
                        want,
                        "{variant} position {i} ({}) depth {depth} {eval:?}",
                        g.format_body(pos)
                    );
                }
            }
        }
    }
}

#[test]
fn every_root_move_gets_its_minimax_value() {
    for variant in SMALL {
        let g = sowing(variant);
        for pos in sample_positions(&g, 3, 11).iter().take(12) {
            let depth = 4;
            let mut o = options(depth, 0);
            o.multipv = usize::MAX;
            let r = search(&g, pos, &[], &o, Hooks::default());
            let mut moves = MoveList::new();
            g.legal_moves(pos, &mut moves);
            assert_eq!(r.moves.len(), moves.len());
            for rm in &r.moves {
                assert_eq!(rm.bound, Bound::Exact);
                let child = g.play_unchecked(pos, rm.mv);
                let mut path = vec![g.hash_key(pos)];
                let v = reference::minimax(&g, &child, depth - 1, &o.eval, &mut path);
                let v = if g.side_to_move(&child) == g.side_to_move(pos) { v } else { -v };
                // Root-relative: the child's proven distances are one turn longer from the root.
                let v = if score::is_proven(v) { v - v.signum() } else { v };
                assert_eq!(rm.value, v, "{variant} {} move {}", g.format_body(pos), rm.text);
            }
            // Best first.
            assert!(r.moves.windows(2).all(|w| w[0].value >= w[1].value));
        }
    }
}

#[test]
fn solved_small_boards_match_exhaustive_search() {
    // Small enough for minimax to reach every game end; the search (with its table) must agree.
    for variant in [
        "abapa(holes=2,seeds=2)",
        "awale(holes=2,seeds=2)",
        "oware(holes=2,seeds=2)",
        "2-4(holes=2,seeds=3)",
        "songo-duala(holes=2,seeds=2)",
    ] {
        let g = sowing(variant);
        let start = g.start();
        let mut path = Vec::new();
        let exhaustive = reference::minimax(&g, &start, 40, &EvalStyle::Material, &mut path);
        assert!(score::is_proven(exhaustive) || exhaustive == 0, "{variant}: {exhaustive}");
        let r = search(&g, &start, &[], &options(40, 4), Hooks::default());
        assert_eq!(r.value, exhaustive, "{variant}: {:?}", r.score);
    }
}

#[test]
fn never_returns_an_illegal_move() {
    for variant in ["abapa", "oware", "2-4", "awale", "nyakun", "vai-lung-thlan", "dakar"] {
        let g = registry::game(variant).unwrap();
        let sg = sowing(variant);
        for pos in sample_positions(&sg, 3, 3).iter().take(30) {
            let mut o = options(5, 1);
            o.multipv = 2;
            let ap = (*pos).into();
            let r = g.search(&ap, &[], &o, Hooks::default()).unwrap();
            let legal = g.legal_moves(&ap).unwrap();
            match r.best {
                Some(m) => {
                    assert!(legal.contains(&m));
                    assert_eq!(r.pv.first(), Some(&m));
                    // The whole PV is playable.
                    let mut p = ap;
                    for mv in &r.pv {
                        g.check_move(&p, mv).unwrap();
                        p = g.play_unchecked(&p, mv).unwrap();
                    }
                }
                None => assert!(legal.is_empty()),
            }
            assert_eq!(r.moves.len(), legal.len());
        }
    }
}

#[test]
fn deterministic_under_depth_and_node_limits() {
    let g = sowing("abapa");
    let pos = g.start();
    let a = search(&g, &pos, &[], &options(9, 2), Hooks::default());
    let b = search(&g, &pos, &[], &options(9, 2), Hooks::default());
    assert_eq!((a.nodes, a.value, &a.pv, a.depth), (b.nodes, b.value, &b.pv, b.depth));
    let mut o = options(40, 2);
    o.limits.nodes = Some(20_000);
    let a = search(&g, &pos, &[], &o, Hooks::default());
    let b = search(&g, &pos, &[], &o, Hooks::default());
    assert_eq!(a.nodes, 20_000);
    assert_eq!((a.value, &a.pv, a.depth), (b.value, &b.pv, b.depth));
}

#[test]
fn limits_and_stop_flag() {
    let g = sowing("abapa");
    let pos = g.start();
    // A stop flag set before the search still gets a legal move from depth 1.
    let stop = Arc::new(AtomicBool::new(true));
    let o = SearchOptions { stop: Some(stop), ..SearchOptions::default() };
    let r = search(&g, &pos, &[], &o, Hooks::default());
    assert_eq!(r.depth, 1);
    assert!(r.best.is_some());
    // Time.
    let o = SearchOptions {
        limits: Limits { time: Some(Duration::from_millis(60)), ..Limits::default() },
        ..SearchOptions::default()
    };
    let r = search(&g, &pos, &[], &o, Hooks::default());
    assert!(r.elapsed < Duration::from_millis(400), "{:?}", r.elapsed);
    assert!(r.depth >= 2);
    // Progress after each iteration.
    let mut depths = Vec::new();
    let mut progress = |r: &SearchResult<_>| depths.push(r.depth);
    let hooks = Hooks { progress: Some(&mut progress), shared: None };
    search(&g, &pos, &[], &options(6, 1), hooks);
    assert_eq!(depths, vec![1, 2, 3, 4, 5, 6]);
}

#[test]
fn game_end_and_repetition_are_scored_by_the_rules() {
    let g = sowing("abapa");
    // South to move captures the last seeds it needs: 24 + 2 > 24.
    let pos = g.parse_body("0,0,0,0,0,1/1,0,0,0,0,1 24-21 S 40 -").unwrap();
    let r = search(&g, &pos, &[], &options(4, 1), Hooks::default());
    assert_eq!(r.score, Score::WinIn(1), "{:?}", r.pv_text);
    // Finished position: no move, the outcome's score.
    let over = g.parse_body("0,0,0,0,0,0/0,0,0,0,0,0 25-23 N 41 -").unwrap();
    let r = search(&g, &over, &[], &options(4, 1), Hooks::default());
    assert_eq!((r.best, r.score), (None, Score::LossIn(0)));
    // Two lone seeds chasing each other never capture: the game cycles, and the endless-cycle
    // rule (each takes their own row) makes it a draw at 24-22 + 1 each... unless someone wins.
    let cyc = g.parse_body("0,0,0,0,0,1/0,0,0,0,0,1 23-23 S 60 -").unwrap();
    let r = search(&g, &cyc, &[], &options(30, 1), Hooks::default());
    assert!(score::is_proven(r.value) || r.value == 0, "{:?}", r.score);
}

#[test]
fn a_move_into_the_history_ends_the_game_under_either_repetition_rule() {
    // South's only move sows d into e and f: no capture, and the game goes on.
    for variant in ["abapa(repetitions=2)", "abapa"] {
        let g = sowing(variant);
        let pos = g.parse_body("0,0,0,2,0,0/1,1,0,0,0,0 21-23 S 50 -").unwrap();
        let mut moves = MoveList::new();
        g.legal_moves(&pos, &mut moves);
        assert_eq!(moves.len(), 1);
        let after = g.play_unchecked(&pos, moves[0]);
        // Each side takes its own row: 23 against 25, North wins at the repetition.
        let end = g.endless_outcome(&after);
        assert_eq!(end.winner, Some(Player::North));
        for depth in [1, 4] {
            let seen = search(&g, &pos, &[g.hash_key(&after)], &options(depth, 1), Hooks::default());
            assert_eq!(seen.score, Score::LossIn(1), "{variant} depth {depth}");
            let fresh = search(&g, &pos, &[], &options(depth, 1), Hooks::default());
            assert_ne!(fresh.score, Score::LossIn(1), "{variant} depth {depth}");
        }
    }
    assert_eq!(sowing("abapa(repetitions=2)").variant().repetitions(), 2);
    assert_eq!(sowing("abapa").variant().repetitions(), 3);
    assert_eq!(sowing("abapa(repetitions=3)").variant().canonical(), "abapa");
    assert!(registry::game("abapa(repetitions=1)").is_err());
}

#[test]
fn turn_limit_ends_lines_like_the_rules() {
    let g = sowing("abapa(holes=4,max_turns=9,seeds=3)");
    let pos = g.start();
    let mut path = Vec::new();
    let want = reference::minimax(&g, &pos, 11, &EvalStyle::Tuned, &mut path);
    let r = search(&g, &pos, &[], &options(11, 1), Hooks::default());
    assert_eq!(r.value, want);
    assert!(score::is_proven(r.value) || r.value == 0);
}

#[test]
fn shared_table_is_used_in_batches() {
    let g = sowing("abapa");
    let pos = g.start();
    let mut table = MemoryTable { min_depth: 5, ..MemoryTable::default() };
    let o = options(9, 1);
    let first = search(&g, &pos, &[], &o, Hooks { progress: None, shared: Some(&mut table) });
    // One fetch and at most one publish per iteration of depth 5..=9.
    assert!(table.calls.0 <= 5 && table.calls.1 <= 5, "{:?}", table.calls);
    assert!(!table.entries.is_empty());
    assert!(table.entries.values().all(|e| e.depth >= 5));
    let second = search(&g, &pos, &[], &o, Hooks { progress: None, shared: Some(&mut table) });
    assert!(second.nodes < first.nodes, "{} vs {}", second.nodes, first.nodes);
    // Deeper entries from the table may change which of two close moves wins; both are real.
    assert_eq!(second.depth, first.depth);
    assert!(second.best.is_some());
}

#[test]
fn levels_play_legal_seeded_moves() {
    let g = sowing("abapa");
    let pos = g.start();
    let mut moves = MoveList::new();
    g.legal_moves(&pos, &mut moves);
    for l in 1..=8u8 {
        let lv = level::level(l);
        let o = lv.options(&SearchOptions::default());
        let r = search(&g, &pos, &[], &o, Hooks::default());
        let a = lv.choose(&r, 5).unwrap();
        assert!(moves.contains(&a));
        assert_eq!(lv.choose(&r, 5), Some(a));
    }
    // Level 1 strays: several seeds give several moves.
    let lv = level::level(1);
    let r = search(&g, &pos, &[], &lv.options(&SearchOptions::default()), Hooks::default());
    let picks: std::collections::HashSet<_> = (0..40).map(|s| lv.choose(&r, s)).collect();
    assert!(picks.len() > 1);
}

/// The bench signature: the total node count of `griot bench`. A functional change to the search
/// or the rules changes it; update it deliberately, in the same commit, with the reason.
#[test]
fn bench_signature() {
    let lines = crate::bench::run().unwrap();
    let total: u64 = lines.iter().map(|l| l.nodes).sum();
    assert_eq!(total, BENCH_SIGNATURE, "{lines:#?}");
}

const BENCH_SIGNATURE: u64 = 1_798_837;

/// A windowed search is fail-soft around the full-window value: exact inside the window, a
/// correct bound outside (the subtree tasks of the distributed search rely on it).
#[test]
fn windowed_search_bounds_the_value() {
    let g = sowing("abapa");
    for pos in sample_positions(&g, 6, 11).into_iter().take(30) {
        let full = search(&g, &pos, &[], &options(6, 0), Hooks::default());
        if full.best.is_none() {
            continue;
        }
        let v = full.value;
        for (alpha, beta) in [(v - 1, v + 1), (v, v + 1), (v - 1, v), (v + 30, v + 60), (v - 60, v - 30)] {
            let o = SearchOptions { window: Some((alpha, beta)), ..options(6, 0) };
            let r = search(&g, &pos, &[], &o, Hooks::default());
            match r.bound {
                Bound::Exact => assert_eq!(r.value, v),
                Bound::Lower => assert!(r.value >= beta && r.value <= v, "{} {v}", r.value),
                Bound::Upper => assert!(r.value <= alpha && r.value >= v, "{} {v}", r.value),
            }
            assert_eq!(r.bound, engine::window_bound(v, alpha, beta));
        }
    }
}

/// A table kept between searches gives the same values with fewer nodes.
#[test]
fn kept_table_searches_again_cheaper() {
    let g = sowing("abapa");
    let pos = g.start();
    let mut table = tt::TranspositionTable::new(16);
    let first = search_with_table(&g, &pos, &[], &options(10, 16), Hooks::default(), &mut table);
    let again = search_with_table(&g, &pos, &[], &options(10, 16), Hooks::default(), &mut table);
    assert_eq!(first.value, again.value);
    assert!(again.nodes < first.nodes);
    assert!(table.enabled());
}

/// Module games whose turns can take several steps (a choice after an Ikibuguzo capture,
/// Sabou'iyya's H'ajeb sequence): the search counts turns, not steps, and still matches minimax.
fn turns_are_plies<G: Evaluate>(g: &G, variant: &str) -> usize {
    let positions = sample_positions(g, 30, 5);
    let open: Vec<_> = positions.iter().filter(|p| g.mid_turn(p)).take(12).copied().collect();
    let closed: Vec<_> = positions.iter().filter(|p| !g.mid_turn(p)).take(8).copied().collect();
    for pos in open.iter().chain(&closed) {
        for depth in 1..=2 {
            let mut o = options(depth, 0);
            o.eval = EvalStyle::Material;
            let r = search(g, pos, &[], &o, Hooks::default());
            let want = reference::minimax(g, pos, depth, &o.eval, &mut Vec::new());
            assert_eq!(r.value, want, "{variant} {} depth {depth}", g.format_body(pos));
            // The line never stops inside a turn: a depth-1 line is a whole turn.
            let mut p = *pos;
            for &mv in &r.pv {
                p = g.play_unchecked(&p, mv);
            }
            assert!(
                r.pv.is_empty() || !g.mid_turn(&p),
                "{variant} {}: line ends mid-turn",
                g.format_body(pos)
            );
        }
    }
    open.len()
}

#[test]
fn a_turn_of_several_steps_is_one_ply() {
    for variant in ["ikibuguzo", "sabouiyya"] {
        let open = match &*registry::game(variant).unwrap() {
            AnyGame::Ikibuguzo(g) => turns_are_plies(g, variant),
            AnyGame::Sabouiyya(g) => turns_are_plies(g, variant),
            _ => unreachable!("{variant} is a module game"),
        };
        if variant == "ikibuguzo" {
            assert!(open > 0, "random Ikibuguzo games met no turn paused at a choice");
        }
    }
}

/// The longest turn (in steps) met along seeded random games; checks on the way that `turns`
/// counts every step.
fn longest_turn<G: Game>(g: &G, games: u32, seed: u64) -> u32 {
    let mut rng = SplitMix64(seed);
    let mut moves = MoveList::new();
    let mut longest = 0;
    for _ in 0..games {
        let mut pos = g.start();
        let mut steps = 0;
        loop {
            moves.clear();
            g.legal_moves(&pos, &mut moves);
            if moves.is_empty() {
                break;
            }
            let next = g.play_unchecked(&pos, moves[rng.below(moves.len())]);
            assert_eq!(g.turns(&next), g.turns(&pos) + 1, "a step that is not counted");
            steps += 1;
            if !g.mid_turn(&next) {
                longest = longest.max(steps);
                steps = 0;
            }
            pos = next;
        }
    }
    longest
}

/// The turn-limit rule's bound on a turn's steps holds, and matters: where `turns` counts steps, a
/// search near the limit by steps (not by turns) is kept out of the tables.
#[test]
fn turn_limit_margin_counts_the_steps_of_a_turn() {
    for variant in ["ikibuguzo", "sabouiyya"] {
        let (longest, bound) = match &*registry::game(variant).unwrap() {
            AnyGame::Ikibuguzo(g) => (longest_turn(g, 60, 11), g.max_steps_per_turn()),
            AnyGame::Sabouiyya(g) => (longest_turn(g, 20, 11), g.max_steps_per_turn()),
            _ => unreachable!("{variant} is a module game"),
        };
        assert!(longest <= bound, "{variant}: a turn of {longest} steps, bound {bound}");
        if variant == "ikibuguzo" {
            assert!(longest > 1, "random Ikibuguzo games met no turn of several steps");
        }
        // 10 turns of up to `bound` steps, plus the rest of the turn under way, reach the limit.
        let max_turns = 11 * bound + TURN_LIMIT_MARGIN;
        assert!(near_turn_limit(0, 10, max_turns, bound));
        assert!(!near_turn_limit(0, 9, max_turns, bound));
        assert!(near_turn_limit(0, 10, max_turns, 1) == (10 + TURN_LIMIT_MARGIN >= max_turns));
    }
    // One step a turn: the margin alone, as before.
    assert!(near_turn_limit(12, 20, 40, 1));
    assert!(!near_turn_limit(11, 20, 40, 1));
}

/// A search that continues its table's previous one (`new_generation: false`, the subtree tasks of
/// one distributed search) keeps that search's deeper results where a new search's shallow bounds
/// replace them, and finds the same values.
#[test]
fn continued_search_keeps_deeper_entries() {
    let g = sowing("abapa");
    let pos = g.start();
    let mut moves = MoveList::new();
    g.legal_moves(&pos, &mut moves);
    let children: Vec<u64> = moves.iter().map(|&m| g.hash_key(&g.play_unchecked(&pos, m))).collect();
    let deep_children = |table: &tt::TranspositionTable| {
        children.iter().filter(|&&k| table.probe(k).is_some_and(|e| e.depth >= 9)).count()
    };
    let fresh = search(&g, &pos, &[], &options(10, 16), Hooks::default());
    let mut kept = Vec::new();
    for new_generation in [true, false] {
        let mut table = tt::TranspositionTable::new(16);
        search_with_table(&g, &pos, &[], &options(10, 16), Hooks::default(), &mut table);
        assert_eq!(deep_children(&table), children.len());
        // A shallow null-window search, as a subtree task's first iterations.
        let shallow =
            SearchOptions { window: Some((fresh.value, fresh.value + 1)), new_generation, ..options(4, 16) };
        search_with_table(&g, &pos, &[], &shallow, Hooks::default(), &mut table);
        kept.push(deep_children(&table));
        let again = SearchOptions { new_generation, ..options(10, 16) };
        assert_eq!(search_with_table(&g, &pos, &[], &again, Hooks::default(), &mut table).value, fresh.value);
    }
    assert!(kept[0] < children.len(), "a new search replaces the deep entries: {kept:?}");
    assert_eq!(kept[1], children.len(), "a continued search keeps them");
}

/// A windowed search's iterations below the last can take other windows (`iteration_windows`: a
/// subtree task repeating the windows its earlier tasks used): each of those iterations reports
/// the bound its own window gives, and the last iteration is the plain windowed search's.
#[test]
fn iteration_windows_apply_below_the_last_iteration() {
    let g = sowing("abapa");
    let pos = g.start();
    let exact: Vec<Value> =
        (1..=8).map(|d| search(&g, &pos, &[], &options(d, 16), Hooks::default()).value).collect();
    let v = exact[7];
    let plain = SearchOptions { window: Some((v - 1, v + 1)), ..options(8, 16) };
    // Depths 3 and 5 far above their values (upper bounds; the task's window gives lower bounds
    // there), depth 6 far below (a lower bound); depth 8, the last, keeps the task's window
    // whatever the list says.
    let above = |d: usize| (exact[d - 1] + 100, score::INFINITE);
    let below = (-score::INFINITE, exact[5] - 100);
    let early = SearchOptions {
        iteration_windows: vec![
            (3, above(3).0, above(3).1),
            (5, above(5).0, above(5).1),
            (6, below.0, below.1),
            (8, v + 500, v + 501),
        ],
        ..plain.clone()
    };
    let mut bounds = Vec::new();
    let mut progress = |r: &SearchResult<_>| bounds.push((r.depth, r.bound));
    let r = search(&g, &pos, &[], &early, Hooks { progress: Some(&mut progress), shared: None });
    let want = search(&g, &pos, &[], &plain, Hooks::default());
    assert_eq!((r.value, r.bound), (want.value, want.bound));
    assert_eq!((r.value, r.bound), (v, Bound::Exact));
    assert_eq!(bounds[2], (3, Bound::Upper));
    assert_eq!(bounds[4], (5, Bound::Upper));
    assert_eq!(bounds[5], (6, Bound::Lower));
    assert_eq!(bounds[7], (8, Bound::Exact));
}

/// The depths a search over `table` completed, and its result.
fn searched_depths(
    g: &SowingGame,
    pos: &<SowingGame as Game>::Position,
    options: &SearchOptions,
    table: &mut tt::TranspositionTable,
) -> (Vec<u32>, SearchResult<<SowingGame as Game>::Move>) {
    let mut depths = Vec::new();
    let mut progress = |r: &SearchResult<_>| depths.push(r.depth);
    let r =
        search_with_table(g, pos, &[], options, Hooks { progress: Some(&mut progress), shared: None }, table);
    (depths, r)
}

/// A resumed search (`resume`: a subtree task over its kept table) starts one past the depth the
/// table holds the root searched to, and finds the value a search deepening from 1 finds; with
/// no entry for the root it deepens from 1.
#[test]
fn a_resumed_search_starts_past_the_tables_depth_with_the_same_value() {
    let g = sowing("awale");
    let mut tested = 0;
    for (k, pos) in sample_positions(&g, 3, 7).into_iter().take(12).enumerate() {
        let fresh = search(&g, &pos, &[], &options(9, 16), Hooks::default());
        if fresh.depth < 9 {
            continue; // solved or over before depth 9
        }
        tested += 1;
        let resumed = SearchOptions { resume: true, new_generation: false, ..options(9, 16) };
        let mut table = tt::TranspositionTable::new(16);
        search_with_table(&g, &pos, &[], &options(8, 16), Hooks::default(), &mut table);
        let (depths, r) = searched_depths(&g, &pos, &resumed, &mut table);
        assert_eq!(depths, vec![9], "position {k}: resumed from the table's depth 8");
        assert_eq!((r.value, r.depth), (fresh.value, 9), "position {k}");

        // The same with a window, as a subtree task searches: the same bound as deepening.
        let w = Some((fresh.value - 1, fresh.value));
        let mut table = tt::TranspositionTable::new(16);
        let shallower = SearchOptions { window: w, ..options(8, 16) };
        search_with_table(&g, &pos, &[], &shallower, Hooks::default(), &mut table);
        let plain = search(&g, &pos, &[], &SearchOptions { window: w, ..options(9, 16) }, Hooks::default());
        let (depths, r) =
            searched_depths(&g, &pos, &SearchOptions { window: w, ..resumed.clone() }, &mut table);
        assert_eq!(depths, vec![9], "position {k}, window {w:?}");
        assert_eq!((r.value, r.bound), (plain.value, plain.bound), "position {k}, window {w:?}");

        // An empty table: nothing to resume, so it deepens from 1.
        let (depths, r) = searched_depths(&g, &pos, &resumed, &mut tt::TranspositionTable::new(16));
        assert_eq!(depths, (1..=9).collect::<Vec<_>>(), "position {k}");
        assert_eq!(r.value, fresh.value, "position {k}");
    }
    assert!(tested >= 8, "only {tested} positions searched to depth 9");
}

/// A resumed search stopped before its first iteration completes still returns a result: depth
/// 1's, so the caller sees it incomplete (a subtree task revoked or out of time).
#[test]
fn a_resumed_search_stopped_in_its_first_iteration_returns_depth_one() {
    let g = sowing("awale");
    let pos = g.start();
    let mut table = tt::TranspositionTable::new(16);
    search_with_table(&g, &pos, &[], &options(10, 16), Hooks::default(), &mut table);
    let limited = SearchOptions {
        resume: true,
        new_generation: false,
        limits: Limits { depth: Some(14), nodes: Some(200), ..Limits::default() },
        ..options(14, 16)
    };
    let r = search_with_table(&g, &pos, &[], &limited, Hooks::default(), &mut table);
    assert_eq!(r.depth, 1);
    assert!(!r.pv.is_empty(), "depth 1 gives a move");
    let one = search(&g, &pos, &[], &options(1, 16), Hooks::default());
    assert_eq!(r.value, one.value);
}

#[test]
fn a_clock_budget_stays_within_the_clock() {
    for remaining in [0u64, 5, 30, 100, 1000, 10_000, 300_000] {
        for increment in [0u64, 10, 1000] {
            for moves_to_go in [None, Some(1), Some(5), Some(40)] {
                let clock = Clock {
                    remaining: Duration::from_millis(remaining),
                    increment: Duration::from_millis(increment),
                    moves_to_go,
                };
                let (soft, hard) = clock.budget();
                assert!(soft <= hard, "{clock:?}");
                assert!(soft >= Duration::from_millis(1), "{clock:?}");
                // At most 60% of what is left (a millisecond when nothing is).
                assert!(
                    hard <= Duration::from_millis(remaining * 3 / 5).max(Duration::from_millis(1)),
                    "{clock:?}"
                );
            }
        }
    }
    // A per-move time bounds a clock's budget.
    let limits = Limits {
        time: Some(Duration::from_millis(50)),
        clock: Some(Clock { remaining: Duration::from_secs(100), ..Clock::default() }),
        ..Limits::default()
    };
    let (soft, hard) = limits.time_budget().unwrap();
    assert!(soft <= Duration::from_millis(50) && hard == Duration::from_millis(50));
    assert_eq!(Limits::default().time_budget(), None);
}

#[test]
fn a_clock_search_plays_a_legal_move() {
    let g = sowing("abapa");
    for pos in sample_positions(&g, 3, 11).into_iter().take(6) {
        let clock = Clock {
            remaining: Duration::from_secs(3),
            increment: Duration::from_millis(50),
            moves_to_go: None,
        };
        let o = SearchOptions {
            limits: Limits { clock: Some(clock), ..Limits::default() },
            ..SearchOptions::default()
        };
        let r = search(&g, &pos, &[], &o, Hooks::default());
        let mut moves = MoveList::new();
        g.legal_moves(&pos, &mut moves);
        assert_eq!(r.best.is_some(), !moves.is_empty());
        if let Some(best) = r.best {
            assert!(moves.contains(&best));
            assert!(r.depth >= 1);
        }
    }
}

/// A search stopped inside an iteration plays the last completed iteration's move, or a move
/// whose value at the stopped depth is better than that move's (checked by minimax: without a
/// table the search's bounds are bounds on the minimax values).
#[test]
fn a_stopped_iteration_plays_only_a_move_it_proved_better() {
    let g = sowing("abapa");
    let mut switched = 0;
    for pos in sample_positions(&g, 4, 21).into_iter().take(16) {
        let key = g.hash_key(&pos);
        for depth in 3..=5u32 {
            let done = search(&g, &pos, &[], &options(depth - 1, 0), Hooks::default());
            let full = search(&g, &pos, &[], &options(depth, 0), Hooks::default());
            let (Some(old), Some(_)) = (done.best, full.best) else { continue };
            // Nodes to stop at: across the iteration at `depth`.
            for share in [0.3, 0.6, 0.9] {
                let nodes = done.nodes + ((full.nodes - done.nodes) as f64 * share) as u64;
                let mut o = options(depth, 0);
                o.limits.nodes = Some(nodes);
                let r = search(&g, &pos, &[], &o, Hooks::default());
                let best = r.best.unwrap();
                if r.depth < depth - 1 || best == old {
                    continue;
                }
                assert_eq!(r.depth, depth - 1);
                let value = |mv| {
                    let child = g.play_unchecked(&pos, mv);
                    -reference::minimax(&g, &child, depth - 1, &o.eval, &mut vec![key])
                };
                assert!(value(best) > value(old), "{} depth {depth} nodes {nodes}", g.format_body(&pos));
                assert_eq!(r.moves[0].mv, best);
                switched += 1;
            }
        }
    }
    assert!(switched > 0, "no stopped iteration found a better move");
}

/// A lost root stops deepening once every move is a proven loss, with one line as with all of
/// them: the moves outside the first line are upper bounds, already forced losses.
#[test]
fn a_proven_loss_ends_the_iterations_with_one_line_as_with_all() {
    let mut lost = 0;
    for v in SMALL {
        let g = sowing(v);
        for pos in sample_positions(&g, 40, 11) {
            let mut all = options(8, 1);
            all.multipv = usize::MAX;
            let want = search(&g, &pos, &[], &all, Hooks::default());
            if want.moves.is_empty() || want.value > -score::WIN_BOUND || want.depth >= 8 {
                continue;
            }
            lost += 1;
            let got = search(&g, &pos, &[], &options(8, 1), Hooks::default());
            assert_eq!((got.depth, got.value), (want.depth, want.value), "{v}: {}", g.format_position(&pos));
        }
    }
    assert!(lost >= 10, "only {lost} proven losses among the samples");
}

/// Late-move reductions (for play) reach each depth with fewer nodes over a sample (a position
/// may cost more: a reduced move that beats alpha is searched twice), stay deterministic, and
/// play a legal move; off, the search is the full-width one the other tests check.
#[test]
fn reductions_reach_the_depth_with_fewer_nodes() {
    let (mut full_nodes, mut reduced_nodes) = (0, 0);
    for v in ["abapa", "oware", "2-4"] {
        let g = sowing(v);
        for pos in sample_positions(&g, 3, 5).into_iter().take(6) {
            let full = search(&g, &pos, &[], &options(10, 4), Hooks::default());
            if full.best.is_none() {
                continue;
            }
            let mut o = options(10, 4);
            o.reductions = true;
            let a = search(&g, &pos, &[], &o, Hooks::default());
            let b = search(&g, &pos, &[], &o, Hooks::default());
            assert!(a.depth <= 10 && (a.depth == 10 || score::is_proven(a.value)));
            assert_eq!((a.nodes, a.value, &a.pv), (b.nodes, b.value, &b.pv));
            let mut moves = MoveList::new();
            g.legal_moves(&pos, &mut moves);
            assert!(moves.contains(&a.best.unwrap()));
            full_nodes += full.nodes;
            reduced_nodes += a.nodes;
        }
    }
    assert!(reduced_nodes * 10 < full_nodes * 9, "{reduced_nodes} vs {full_nodes}");
}

#[test]
fn several_threads_find_the_single_threaded_value_at_fixed_depths() {
    for variant in ["abapa", "awale", "oware"] {
        let g = sowing(variant);
        for pos in sample_positions(&g, 2, 13).into_iter().step_by(9).take(4) {
            for (depth, threads) in [(7, 2), (10, 2), (10, 3)] {
                let one = search(&g, &pos, &[], &options(depth, 4), Hooks::default());
                let two =
                    search(&g, &pos, &[], &SearchOptions { threads, ..options(depth, 4) }, Hooks::default());
                let at = format!("{variant} {} depth {depth}, {threads} threads", g.format_body(&pos));
                assert_eq!(two.value, one.value, "{at}");
                // A proven result ends the iterations early, maybe at another depth.
                assert!(two.depth == depth || score::is_proven(two.value), "{at}");
                assert!(two.best.is_some_and(|m| g.check_move(&pos, m).is_ok()));
            }
        }
    }
}
