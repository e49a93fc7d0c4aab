use std::collections::{HashMap, HashSet};

use super::*;
use crate::game::MoveList;
use crate::registry::AnyGame;

fn sowing(variant: &str) -> SowingGame {
    match &*crate::registry::game(variant).unwrap() {
        AnyGame::Sowing(g) => g.clone(),
        _ => unreachable!(),
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("griot-egdb-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every board of `len` holes with `seeds` seeds.
fn boards(len: usize, seeds: u8) -> Vec<Vec<u8>> {
    fn go(len: usize, left: u8, prefix: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if prefix.len() + 1 == len {
            prefix.push(left);
            out.push(prefix.clone());
            prefix.pop();
            return;
        }
        for c in 0..=left {
            prefix.push(c);
            go(len, left - c, prefix, out);
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    go(len, seeds, &mut Vec::new(), &mut out);
    out
}

type Key = (Vec<u8>, Player);
/// A position of the reference: key, terminal value, exit values, in-level children, endless share.
type Node = (Key, Option<i16>, Vec<(i16, i16)>, Vec<Key>, i16);

fn canonical(g: &SowingGame, board: &[u8], side: Player) -> SowingPosition {
    let mut pos = g.start();
    pos.pits[..board.len()].copy_from_slice(board);
    pos.to_move = side;
    pos.stores = [0, 0];
    pos.turns = 1;
    pos
}

/// The values by another algorithm: positions in a hash map, each bound as the threshold sets
/// it defines (South can force the end with at least t / can keep every end at least t), solved
/// as sets. South's margin.
fn reference(g: &SowingGame, max_seeds: u8) -> HashMap<Key, i16> {
    reference_with_cycles(g, max_seeds).0
}

/// [`reference`] and the positions whose two bounds differ (valued by a cycle).
fn reference_with_cycles(g: &SowingGame, max_seeds: u8) -> (HashMap<Key, i16>, HashSet<Key>) {
    let len = 2 * g.holes();
    let mut value: HashMap<Key, i16> = HashMap::new();
    // South's two bounds of every position of the levels done.
    let mut bounds: HashMap<Key, (i16, i16)> = HashMap::new();
    let mut cycles: HashSet<Key> = HashSet::new();
    for s in 0..=max_seeds {
        // Each position: a terminal value, or exits (values) and in-level children.
        let mut nodes: Vec<Node> = Vec::new();
        for b in boards(len, s) {
            for side in Player::BOTH {
                let pos = canonical(g, &b, side);
                if let Some(o) = g.outcome(&pos) {
                    nodes.push((
                        (b.clone(), side),
                        Some((o.scores[0] - o.scores[1]) as i16),
                        vec![],
                        vec![],
                        0,
                    ));
                    continue;
                }
                let e = g.endless_outcome(&pos);
                let mut exits = Vec::new();
                let mut inner = Vec::new();
                let mut moves = MoveList::new();
                g.legal_moves(&pos, &mut moves);
                for &mv in &moves {
                    let c = g.play_unchecked(&pos, mv);
                    if c.is_cut() {
                        let o = g.outcome(&c).unwrap();
                        let v = (o.scores[0] - o.scores[1]) as i16;
                        exits.push((v, v));
                        continue;
                    }
                    let key = (c.pits[..len].to_vec(), c.to_move);
                    if c.stores == [0, 0] {
                        inner.push(key);
                    } else {
                        // A lower position gives its lower bound to `lo`, its upper one to `hi`.
                        let (l, h) = bounds[&key];
                        let st = c.stores[0] as i16 - c.stores[1] as i16;
                        exits.push((st + l, st + h));
                    }
                }
                nodes.push(((b.clone(), side), None, exits, inner, (e.scores[0] - e.scores[1]) as i16));
            }
        }
        let s = s as i16;
        let mut lo: HashMap<Key, i16> = HashMap::new();
        let mut hi: HashMap<Key, i16> = HashMap::new();
        for t in (-s..=s).rev() {
            // Least fixpoint: South forces an end at least t.
            let mut win: HashSet<Key> = HashSet::new();
            loop {
                let before = win.len();
                for (k, term, exits, inner, _) in &nodes {
                    if win.contains(k) {
                        continue;
                    }
                    let ok = match term {
                        Some(v) => *v >= t,
                        None if k.1 == Player::South => {
                            exits.iter().any(|&(v, _)| v >= t) || inner.iter().any(|c| win.contains(c))
                        }
                        None => exits.iter().all(|&(v, _)| v >= t) && inner.iter().all(|c| win.contains(c)),
                    };
                    if ok {
                        win.insert(k.clone());
                    }
                }
                if win.len() == before {
                    break;
                }
            }
            for k in &win {
                lo.entry(k.clone()).or_insert(t);
            }
            // Greatest fixpoint: South keeps every end at least t (endless play allowed).
            let mut keep: HashSet<Key> = nodes.iter().map(|n| n.0.clone()).collect();
            loop {
                let before = keep.len();
                for (k, term, exits, inner, _) in &nodes {
                    if !keep.contains(k) {
                        continue;
                    }
                    let ok = match term {
                        Some(v) => *v >= t,
                        None if k.1 == Player::South => {
                            exits.iter().any(|&(_, v)| v >= t) || inner.iter().any(|c| keep.contains(c))
                        }
                        None => exits.iter().all(|&(_, v)| v >= t) && inner.iter().all(|c| keep.contains(c)),
                    };
                    if !ok {
                        keep.remove(k);
                    }
                }
                if keep.len() == before {
                    break;
                }
            }
            for k in &keep {
                hi.entry(k.clone()).or_insert(t);
            }
        }
        for (k, term, _, _, endless) in &nodes {
            let (v, b) = match term {
                Some(v) => (*v, (*v, *v)),
                None => {
                    let l = *lo.get(k).unwrap_or(&-s);
                    let h = *hi.get(k).unwrap_or(&-s);
                    if l != h {
                        cycles.insert(k.clone());
                    }
                    ((*endless).clamp(l, h), (l, h))
                }
            };
            value.insert(k.clone(), v);
            bounds.insert(k.clone(), b);
        }
    }
    (value, cycles)
}

fn build_to(g: &SowingGame, dir: &Path, seeds: u32) -> Egdb {
    build(dir, g, seeds, &mut |_| {}).unwrap();
    Egdb::open(dir, g).unwrap()
}

fn stored(db: &Egdb, g: &SowingGame, board: &[u8], side: Player) -> i16 {
    let seeds: u32 = board.iter().map(|&c| c as u32).sum();
    let r = Ranker::new(board.len(), seeds as usize).unwrap();
    let v = db.value(seeds, index_of(&r, board, side)) as i16;
    let _ = g;
    if side == Player::South {
        v
    } else {
        -v
    }
}

#[test]
fn levels_equal_the_set_based_reference() {
    let cases = [
        ("abapa(holes=2)", 7),
        ("abapa(holes=3)", 6),
        ("abapa(holes=4)", 5),
        ("awale(holes=3)", 6),
        ("leb-bbut-ahbochen(holes=2)", 8),
        ("leb-bbut-ahbochen(holes=4)", 5),
        ("2-4(holes=3)", 5),
        ("nyakun(holes=2)", 6),
        ("jodu(holes=3)", 5),
        ("adji-boto(holes=3)", 5),
    ];
    let mut flagged_total = 0;
    for (variant, seeds) in cases {
        let g = sowing(variant);
        let dir = temp_dir(&format!("ref-{}", variant.replace(['(', ')', '='], "_")));
        let db = build_to(&g, &dir, seeds);
        let (want, cycles) = reference_with_cycles(&g, seeds as u8);
        for ((board, side), v) in &want {
            assert_eq!(stored(&db, &g, board, *side), *v, "{variant} {board:?} {side}");
            // Flagged exactly where the reference's bounds differ.
            let flagged = stored_cycle(&db, board, *side);
            assert_eq!(flagged, cycles.contains(&(board.clone(), *side)), "{variant} {board:?} {side}");
        }
        assert!(want.len() > 100, "{variant}: {}", want.len());
        flagged_total += cycles.len();
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert!(flagged_total > 100, "{flagged_total} positions valued by a cycle");
}

fn stored_cycle(db: &Egdb, board: &[u8], side: Player) -> bool {
    let seeds: u32 = board.iter().map(|&c| c as u32).sum();
    let r = Ranker::new(board.len(), seeds as usize).unwrap();
    db.cycle(seeds, index_of(&r, board, side))
}

/// The level's bytes as its file stores them.
fn stored_bytes(db: &Egdb, s: u32, n: u64) -> Vec<u8> {
    (0..n).map(|i| file::encode(db.value(s, i), db.cycle(s, i))).collect()
}

#[test]
fn the_byte_holds_the_margin_and_the_cycle_flag() {
    for m in -63i8..=63 {
        for c in [false, true] {
            assert_eq!(file::decode(file::encode(m, c)), (m, c));
        }
    }
}

/// South's margin by minimax to the end, the path's positions ending the game as the rules do on
/// a repetition; `None` when the search met a repetition (its value then depends on the path) or
/// ran out of `budget` nodes.
fn minimax(
    g: &SowingGame,
    pos: &SowingPosition,
    path: &mut Vec<SowingPosition>,
    memo: &mut HashMap<Key, i16>,
    budget: &mut u64,
) -> Option<i16> {
    let len = 2 * g.holes();
    let key = (pos.pits[..len].to_vec(), pos.to_move);
    let base = pos.stores[0] as i16 - pos.stores[1] as i16;
    if let Some(v) = memo.get(&key) {
        return Some(base + v);
    }
    if *budget == 0 || path.iter().any(|p| p.pits == pos.pits && p.to_move == pos.to_move) {
        return None;
    }
    *budget -= 1;
    if let Some(o) = g.outcome(pos) {
        return Some((o.scores[0] - o.scores[1]) as i16);
    }
    let mut moves = MoveList::new();
    g.legal_moves(pos, &mut moves);
    path.push(*pos);
    let mut best: Option<i16> = None;
    for &mv in &moves {
        let c = g.play_unchecked(pos, mv);
        let v = minimax(g, &c, path, memo, budget);
        let Some(v) = v else {
            path.pop();
            return None;
        };
        best = Some(match best {
            None => v,
            Some(b) if pos.to_move == Player::South => b.max(v),
            Some(b) => b.min(v),
        });
    }
    path.pop();
    let v = best.expect("a position that is not over has a move");
    memo.insert(key, v - base);
    Some(v)
}

#[test]
fn values_equal_minimax_to_the_end_where_no_cycle_is_reachable() {
    let mut compared = 0;
    for (variant, seeds) in [
        ("abapa(holes=3)", 6u32),
        ("abapa(holes=6)", 4),
        ("awale(holes=4)", 5),
        ("leb-bbut-ahbochen(holes=4)", 5),
    ] {
        let g = sowing(variant);
        let dir = temp_dir(&format!("mm-{}", variant.replace(['(', ')', '='], "_")));
        let db = build_to(&g, &dir, seeds);
        let len = 2 * g.holes();
        let mut memo = HashMap::new();
        for s in 0..=seeds as u8 {
            for b in boards(len, s) {
                for side in Player::BOTH {
                    let pos = canonical(&g, &b, side);
                    let mut budget = 200_000;
                    if let Some(v) = minimax(&g, &pos, &mut Vec::new(), &mut memo, &mut budget) {
                        assert_eq!(stored(&db, &g, &b, side), v, "{variant} {b:?} {side}");
                        compared += 1;
                    }
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert!(compared > 2_000, "{compared}");
}

#[test]
fn random_positions_with_more_seeds_equal_minimax_to_the_end() {
    // Abapa on 6 holes a side with 6 to 9 seeds: random positions searched to the end where no
    // repetition is reachable, and the set-based reference on 3 holes a side up to 9 seeds.
    let g = sowing("abapa");
    let dir = temp_dir("random");
    let db = build_to(&g, &dir, 9);
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut compared = 0;
    let mut memo = HashMap::new();
    for _ in 0..3000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut board = [0u8; 12];
        let seeds = 6 + (state % 4) as u32;
        let mut x = state;
        for _ in 0..seeds {
            x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
            board[((x >> 40) % 12) as usize] += 1;
        }
        let side = Player::from_index((state >> 60) as usize & 1);
        let pos = canonical(&g, &board, side);
        let mut budget = 100_000;
        if let Some(v) = minimax(&g, &pos, &mut Vec::new(), &mut memo, &mut budget) {
            assert_eq!(stored(&db, &g, &board, side), v, "{board:?} {side}");
            compared += 1;
        }
    }
    assert!(compared > 20, "{compared}");
    std::fs::remove_dir_all(&dir).unwrap();
    let g = sowing("abapa(holes=3)");
    let dir = temp_dir("random-3");
    let db = build_to(&g, &dir, 9);
    for ((board, side), v) in reference(&g, 9) {
        assert_eq!(stored(&db, &g, &board, side), v, "{board:?} {side}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_or_foreign_file_is_refused() {
    let g = sowing("abapa(holes=2)");
    let dir = temp_dir("damaged");
    build_to(&g, &dir, 4);
    let path = level_path(&dir, &g, 3);
    let good = std::fs::read(&path).unwrap();
    // A flipped value byte.
    let mut bad = good.clone();
    *bad.last_mut().unwrap() ^= 1;
    std::fs::write(&path, &bad).unwrap();
    let e = Egdb::open(&dir, &g).unwrap_err();
    assert!(matches!(e, EgdbError::Corrupt { ref message, .. } if message.contains("checksum")), "{e}");
    // Truncated.
    std::fs::write(&path, &good[..good.len() - 3]).unwrap();
    assert!(matches!(Egdb::open(&dir, &g).unwrap_err(), EgdbError::Corrupt { .. }));
    // Not a database.
    std::fs::write(&path, b"hello").unwrap();
    assert!(matches!(Egdb::open(&dir, &g).unwrap_err(), EgdbError::Corrupt { .. }));
    // Another format version.
    let mut other = good.clone();
    other[8] = 9;
    std::fs::write(&path, &other).unwrap();
    let e = Egdb::open(&dir, &g).unwrap_err();
    assert!(matches!(e, EgdbError::Mismatch { field: "format version", .. }), "{e}");
    // Another level's file in its place.
    std::fs::copy(level_path(&dir, &g, 2), &path).unwrap();
    let e = Egdb::open(&dir, &g).unwrap_err();
    assert!(matches!(e, EgdbError::Mismatch { field: "seeds", .. }), "{e}");
    // Another rule set's file.
    let awale = sowing("awale(holes=2)");
    let dir2 = temp_dir("damaged-awale");
    build_to(&awale, &dir2, 3);
    std::fs::copy(level_path(&dir2, &awale, 3), &path).unwrap();
    let e = Egdb::open(&dir, &g).unwrap_err();
    assert!(matches!(e, EgdbError::Mismatch { field: "rule set", .. }), "{e}");
    assert!(e.to_string().contains("refused"), "{e}");
    // A rebuild refuses to go on over the bad file rather than trusting it.
    assert!(build(&dir, &g, 5, &mut |_| {}).is_err());
    // Put back, it reads and the build resumes from level 5.
    std::fs::write(&path, &good).unwrap();
    let mut events = Vec::new();
    build(&dir, &g, 5, &mut |e| events.push(e.clone())).unwrap();
    let kept = events.iter().filter(|e| matches!(e, BuildEvent::Kept { .. })).count();
    let written = events.iter().filter(|e| matches!(e, BuildEvent::Written(_))).count();
    assert_eq!((kept, written), (5, 1));
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&dir2).unwrap();
}

#[test]
fn a_rebuilt_level_is_byte_identical() {
    let g = sowing("leb-bbut-ahbochen(holes=2)");
    let (a, b) = (temp_dir("ident-a"), temp_dir("ident-b"));
    build_to(&g, &a, 8);
    build_to(&g, &b, 6);
    // b resumes from 7 after a stop at 6.
    build_to(&g, &b, 8);
    for s in 0..=8 {
        assert_eq!(
            std::fs::read(level_path(&a, &g, s)).unwrap(),
            std::fs::read(level_path(&b, &g, s)).unwrap()
        );
    }
    std::fs::remove_dir_all(&a).unwrap();
    std::fs::remove_dir_all(&b).unwrap();
}

#[test]
fn rule_sets_that_read_the_last_capturer_do_not_qualify() {
    for v in ["oware", "darra", "wouri"] {
        let e = qualifies(&sowing(v)).unwrap_err();
        assert!(e.to_string().contains("captured last"), "{e}");
    }
    // An opening reads state the board does not show.
    let e = qualifies(&sowing("adji-boto-ludii")).unwrap_err();
    assert!(e.to_string().contains("opening"), "{e}");
    // So do the stores and holes out of play of a match of rounds.
    let e = qualifies(&sowing("erherhe")).unwrap_err();
    assert!(e.to_string().contains("rounds"), "{e}");
    for v in ["abapa", "awale", "leb-bbut-ahbochen(holes=2)", "kale", "dakar", "2-4", "jodu", "nyakun"] {
        assert!(qualifies(&sowing(v)).is_ok(), "{v}");
    }
}

#[test]
fn the_probe_reads_stores_thresholds_and_turns() {
    let g = sowing("abapa(holes=2,seeds=4)");
    let dir = temp_dir("probe");
    let db = build_to(&g, &dir, 6);
    assert_eq!(db.max_seeds(), Some(6));
    // A position of 4 seeds, not over, whose value does not depend on a cycle.
    let mut pos = boards(4, 4)
        .iter()
        .map(|b| canonical(&g, b, Player::South))
        .find(|p| g.outcome(p).is_none() && !matches!(db.probe(&g, p), Probe::Cycle { .. }))
        .expect("a position of 4 seeds valued exactly");
    pos.stores = [6, 6];
    pos.turns = 10;
    let margin = stored(&db, &g, &pos.pits[..4], Player::South) as i32;
    assert_eq!(db.probe(&g, &pos), Probe::Exact { margin });
    let mut far = pos;
    far.pits[0] += 3;
    assert!(matches!(db.probe(&g, &far), Probe::OutOfRange(_)));
    let mut late = pos;
    late.turns = g.variant().max_turns() - 10;
    assert!(matches!(db.probe(&g, &late), Probe::OutOfRange(_)));
    // 48 seeds in play, stores near the threshold of 24: the winner only.
    let big = sowing("abapa(holes=2,seeds=12)");
    let db12 = Egdb::open(&dir, &big).unwrap();
    let mut near = pos;
    near.stores = [20, 24];
    assert_eq!(db12.probe(&big, &near), Probe::Winner { margin });
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_search_reads_exact_results_within_range() {
    use crate::search::{search, Hooks, Limits, SearchOptions};
    let g = sowing("abapa(holes=3)");
    let dir = temp_dir("search");
    let db = std::sync::Arc::new(build_to(&g, &dir, 8));
    let with = |depth| SearchOptions {
        limits: Limits { depth: Some(depth), ..Limits::default() },
        egdb: Some(db.clone()),
        ..SearchOptions::default()
    };
    let without = |depth| SearchOptions {
        limits: Limits { depth: Some(depth), ..Limits::default() },
        ..SearchOptions::default()
    };
    let mut checked = 0;
    for b in boards(6, 8) {
        if checked > 25 {
            break;
        }
        let mut pos = canonical(&g, &b, Player::South);
        pos.stores = [8, 8];
        pos.turns = 10;
        if g.outcome(&pos).is_some() {
            continue;
        }
        let mut moves = MoveList::new();
        g.legal_moves(&pos, &mut moves);
        let children: Vec<_> = moves.iter().map(|&mv| g.play_unchecked(&pos, mv)).collect();
        if children.iter().any(|c| db.probe_winner(&g, c).is_none()) {
            // Valued by a cycle: see the next test.
            continue;
        }
        // The root's result is the best of its children's exact results.
        let results: Vec<i32> = children
            .iter()
            .map(|c| match db.probe_winner(&g, c).expect("in range") {
                Some(Player::South) => 1,
                Some(_) => -1,
                None => 0,
            })
            .collect();
        let best = *results.iter().max().unwrap();
        let r = search(&g, &pos, &[], &with(6), Hooks::default());
        assert_eq!(r.value.signum(), best, "{b:?}");
        assert_eq!(crate::search::score::is_proven(r.value), best != 0, "{b:?}");
        // Nothing is searched below a child: at most the root and its children per iteration.
        assert!(r.nodes <= 6 * (1 + moves.len() as u64), "{b:?}: {} nodes", r.nodes);
        assert_eq!(r.seldepth, 1, "{b:?}");
        let plain = search(&g, &pos, &[], &without(6), Hooks::default());
        assert!(plain.nodes > r.nodes, "{b:?}");
        checked += 1;
    }
    assert!(checked > 20, "{checked}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_search_goes_on_below_positions_valued_by_a_cycle() {
    use crate::search::{search, Hooks, Limits, SearchOptions};
    let g = sowing("abapa(holes=3)");
    let dir = temp_dir("search-cycle");
    let db = std::sync::Arc::new(build_to(&g, &dir, 8));
    let options = SearchOptions {
        limits: Limits { depth: Some(6), ..Limits::default() },
        egdb: Some(db.clone()),
        ..SearchOptions::default()
    };
    let mut checked = 0;
    for b in boards(6, 8) {
        let mut pos = canonical(&g, &b, Player::South);
        pos.stores = [8, 8];
        pos.turns = 10;
        let mut moves = MoveList::new();
        g.legal_moves(&pos, &mut moves);
        let children: Vec<_> = moves.iter().map(|&mv| g.play_unchecked(&pos, mv)).collect();
        let cycle = |c: &SowingPosition| matches!(db.probe(&g, c), Probe::Cycle { .. });
        // A root with a choice, a child valued by a cycle and no child a proven win (a single
        // move or a proven win ends the search at once).
        if g.outcome(&pos).is_some()
            || moves.len() < 2
            || !children.iter().any(cycle)
            || children.iter().any(|c| db.probe_winner(&g, c) == Some(Some(Player::South)))
        {
            continue;
        }
        for c in children.iter().filter(|c| cycle(c)) {
            assert_eq!(db.probe_winner(&g, c), None, "{b:?}");
        }
        // Children with exact results are leaves (ply 1); below a child valued by a cycle the
        // search goes on.
        let r = search(&g, &pos, &[], &options, Hooks::default());
        assert!(r.seldepth >= 2, "{b:?}: seldepth {}", r.seldepth);
        checked += 1;
        if checked == 20 {
            break;
        }
    }
    assert!(checked > 0, "no root with a child valued by a cycle");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn levels_solved_in_chunks_equal_levels_solved_in_memory() {
    for (variant, seeds) in [("abapa(holes=3)", 7u32), ("leb-bbut-ahbochen(holes=2)", 9)] {
        let g = sowing(variant);
        let dir = temp_dir(&format!("chunks-{}", variant.replace(['(', ')', '='], "_")));
        let db = build_to(&g, &dir, seeds);
        let lower = |s: u32, i: u64| db.bounds(s, i);
        for s in 0..=seeds {
            let n = level_key(&g, s).unwrap().positions;
            // Uneven chunks, passes until no chunk changes.
            let cuts: Vec<u64> = [0, n / 3, n / 3 + 1, n].into_iter().map(|c| c.min(n)).collect();
            let mut bounds: Option<Vec<u8>> = None;
            let mut passes = 0;
            loop {
                let mut next = Vec::new();
                let mut changed = false;
                for w in cuts.windows(2) {
                    let (part, c) = chunk_bounds(&g, s, w[0], w[1], &lower, bounds.as_deref()).unwrap();
                    next.extend(part);
                    changed |= c;
                }
                passes += 1;
                let first = bounds.is_none();
                bounds = Some(next);
                if !first && !changed {
                    break;
                }
                assert!(passes < 1000, "{variant} level {s} does not converge");
            }
            let b = bounds.unwrap();
            let mut values = Vec::new();
            for w in cuts.windows(2) {
                values.extend(chunk_values(&g, s, w[0], w[1], &lower, &b).unwrap());
            }
            assert_eq!(values, stored_bytes(&db, s, n), "{variant} level {s}");
        }
        // A chunk past the level is an error, not a panic.
        let n = level_key(&g, 2).unwrap().positions;
        assert!(chunk_bounds(&g, 2, 0, n + 1, &lower, None).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn levels_solved_in_bounded_memory_equal_the_in_memory_solve() {
    for (variant, seeds) in
        [("abapa(holes=3)", 8u32), ("leb-bbut-ahbochen(holes=2)", 10), ("awale(holes=2)", 8)]
    {
        let g = sowing(variant);
        let dir = temp_dir(&format!("bounded-{}", variant.replace(['(', ')', '='], "_")));
        // Small chunks on three threads: many graph files, expanded out of order.
        let options = BuildOptions { threads: 3, chunk_positions: 97 };
        build_with(&dir, &g, seeds, &options, &mut |_| {}).unwrap();
        let db = Egdb::open(&dir, &g).unwrap();
        let lower = |s: u32, i: u64| db.bounds(s, i);
        for s in 0..=seeds {
            let solved = solve_level(&g, s, &lower, &mut |_| {}).unwrap();
            let n = level_key(&g, s).unwrap().positions;
            assert_eq!(solved.values, stored_bytes(&db, s, n), "{variant} level {s}");
            // The bounds kept for positions valued by a cycle are the in-memory solve's too.
            let kept: Vec<(u64, i8, i8)> = (0..n)
                .filter(|&i| db.cycle(s, i))
                .map(|i| {
                    let (lo, hi) = db.bounds(s, i);
                    (i, lo, hi)
                })
                .collect();
            assert_eq!(solved.cycle_bounds, kept, "{variant} level {s}");
            assert!(kept.iter().all(|&(_, lo, hi)| lo < hi));
            assert!(!work_dir(&level_path(&dir, &g, s)).exists(), "the work directory is removed");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_level_interrupted_after_its_expansion_goes_on_from_its_work_files() {
    let g = sowing("abapa(holes=3)");
    let (a, b) = (temp_dir("resume-a"), temp_dir("resume-b"));
    let options = BuildOptions { threads: 2, chunk_positions: 50 };
    build_with(&a, &g, 7, &options, &mut |_| {}).unwrap();
    build_with(&b, &g, 6, &options, &mut |_| {}).unwrap();
    // Level 7's graph and a bounds file partly iterated, as a kill leaves them.
    let db = Egdb::open(&b, &g).unwrap();
    let lower = |s: u32, i: u64| db.bounds(s, i);
    let path = level_path(&b, &g, 7);
    let work = work_dir(&path);
    let n = level_key(&g, 7).unwrap().positions;
    let graphs: Vec<_> = (0..n.div_ceil(50))
        .map(|j| {
            graph::ChunkGraph::load_or_expand(&g, 7, j * 50, ((j + 1) * 50).min(n), &lower, &work).unwrap()
        })
        .collect();
    let mut bounds = graph::bounds_file(&work, 7, n, &graphs).unwrap();
    graphs[0].sweep(&mut graph::InPlace(&mut bounds[..]), false);
    drop(bounds);
    // A half-written graph chunk is redone.
    let (meta, _) = graph::graph_paths(&work, 50, 100);
    let bytes = std::fs::read(&meta).unwrap();
    std::fs::write(&meta, &bytes[..bytes.len() - 5]).unwrap();
    drop(graphs);
    build_with(&b, &g, 7, &options, &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(level_path(&a, &g, 7)).unwrap(), std::fs::read(&path).unwrap());
    assert!(!work.exists());
    std::fs::remove_dir_all(&a).unwrap();
    std::fs::remove_dir_all(&b).unwrap();
}

#[test]
fn bounds_an_older_format_left_are_started_over() {
    const LEVEL: u32 = 3;
    let g = sowing("abapa(holes=3)");
    let (a, b) = (temp_dir("older-a"), temp_dir("older-b"));
    let options = BuildOptions { threads: 2, chunk_positions: 50 };
    build_with(&a, &g, LEVEL, &options, &mut |_| {}).unwrap();
    build_with(&b, &g, LEVEL - 1, &options, &mut |_| {}).unwrap();
    // An interrupted build of an older format leaves a bounds file of the right size and no mark:
    // each lower bound above and each upper bound below any margin, which the sweeps take to the
    // other bound's fixpoint where the two differ (positions valued by a cycle).
    let path = level_path(&b, &g, LEVEL);
    let work = work_dir(&path);
    let n = level_key(&g, LEVEL).unwrap().positions;
    let older: Vec<u8> = (0..n).flat_map(|_| [100i8 as u8, -100i8 as u8]).collect();
    let fresh = Egdb::open(&a, &g).unwrap();
    assert!((0..n).any(|i| fresh.cycle(LEVEL, i)), "the level has positions valued by a cycle");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("bounds.local"), older.clone()).unwrap();
    build_with(&b, &g, LEVEL, &options, &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(level_path(&a, &g, LEVEL)).unwrap(), std::fs::read(&path).unwrap());
    // Under another format's mark the same.
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("bounds.local"), older.clone()).unwrap();
    std::fs::write(work.join("bounds.format"), "2").unwrap();
    build_with(&b, &g, LEVEL, &options, &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(level_path(&a, &g, LEVEL)).unwrap(), std::fs::read(&path).unwrap());
    // The same bounds under this format's mark are damage: refused, not a panic.
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("bounds.local"), older).unwrap();
    std::fs::write(work.join("bounds.format"), super::file::FORMAT_VERSION.to_string()).unwrap();
    let e = build_with(&b, &g, LEVEL, &options, &mut |_| {}).unwrap_err();
    assert!(matches!(&e, EgdbError::Corrupt { message, .. } if message.contains("above upper bound")), "{e}");
    assert!(!path.exists());
    std::fs::remove_dir_all(&a).unwrap();
    std::fs::remove_dir_all(&b).unwrap();
}

#[test]
fn chunk_passes_over_kept_graphs_equal_the_in_process_build() {
    let g = sowing("leb-bbut-ahbochen(holes=2)");
    let dir = temp_dir("chunk-pass");
    let db = build_to(&g, &dir, 9);
    let lower = |s: u32, i: u64| db.bounds(s, i);
    let work = dir.join("work");
    for s in 0..=9 {
        let n = level_key(&g, s).unwrap().positions;
        let cuts: Vec<u64> = [0, n / 3, n / 3 + 1, n].into_iter().map(|c| c.min(n)).collect();
        let mut bounds: Option<Vec<u8>> = None;
        let mut passes = 0;
        loop {
            let mut next = Vec::new();
            let mut changed = false;
            for w in cuts.windows(2) {
                let (part, c) =
                    chunk_pass(&g, s, w[0], w[1], &lower, &work.join(s.to_string()), bounds.as_deref())
                        .unwrap();
                next.extend(part);
                changed |= c;
            }
            passes += 1;
            let first = bounds.is_none();
            bounds = Some(next);
            if !first && !changed {
                break;
            }
            assert!(passes < 1000);
        }
        let b = bounds.unwrap();
        let mut values = Vec::new();
        for w in cuts.windows(2) {
            values
                .extend(chunk_pass_values(&g, s, w[0], w[1], &lower, &work.join(s.to_string()), &b).unwrap());
        }
        assert_eq!(values, stored_bytes(&db, s, n), "level {s}");
    }
    let n = level_key(&g, 2).unwrap().positions;
    assert!(chunk_pass(&g, 2, 0, n + 1, &lower, &work, None).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_checksum_fed_in_pieces_equals_the_checksum_of_the_whole() {
    let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
    let whole = file::checksum(&[b"head", &data]);
    for cut in [0, 1, 5, 8, 13, 999] {
        let mut h = file::Checksum::new();
        h.update(b"he");
        h.update(b"ad");
        h.end_part();
        h.update(&data[..cut]);
        h.update(&data[cut..]);
        h.end_part();
        assert_eq!(h.value(), whole, "{cut}");
    }
}

#[test]
fn a_capture_into_a_position_valued_by_a_cycle_is_valued_by_a_cycle() {
    let g = sowing("abapa(holes=3)");
    let dir = temp_dir("capture-cycle");
    let db = build_to(&g, &dir, 6);
    let (_, pos) = crate::registry::parse_position("abapa(holes=3) 2,1,1/1,1,0 9-9 S 11 -").unwrap();
    let crate::registry::AnyPosition::Sowing(pos) = pos else { unreachable!() };
    // Its best result comes through a capture into a lower position valued by a cycle.
    let mut moves = MoveList::new();
    g.legal_moves(&pos, &mut moves);
    let into_cycle = moves.iter().map(|&mv| g.play_unchecked(&pos, mv)).any(|c| {
        let on_board: u32 = c.pits[..6].iter().map(|&x| x as u32).sum();
        on_board < 6 && matches!(db.probe(&g, &c), Probe::Cycle { .. })
    });
    assert!(into_cycle);
    // Reading one value of the lower levels, its two bounds agree: it was called exact.
    let r = Ranker::new(6, 6).unwrap();
    let index = index_of(&r, &pos.pits[..6], Player::South);
    let one_value = |s: u32, i: u64| {
        let v = db.value(s, i);
        (v, v)
    };
    let old = solve_level(&g, 6, &one_value, &mut |_| {}).unwrap();
    assert_eq!(file::decode(old.values[index as usize]), (4, false));
    // With both bounds of the lower position, its bounds differ: valued by a cycle, not exact.
    let probe = db.probe(&g, &pos);
    assert!(matches!(probe, Probe::Cycle { .. }), "{probe:?}");
    assert_eq!(db.probe_winner(&g, &pos), None);
    let (lo, hi) = db.bounds(6, index);
    assert!(lo < hi && (lo..=hi).contains(&4), "{lo} {hi}");
    let (_, cycles) = reference_with_cycles(&g, 6);
    assert!(cycles.contains(&(pos.pits[..6].to_vec(), Player::South)));
    std::fs::remove_dir_all(&dir).unwrap();
}
