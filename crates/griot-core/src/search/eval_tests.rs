//! Tests of the evaluation of Béchi, Ikibuguzo and Sabou'iyya: each term's value on a hand-built
//! position, how the weights combine, the side-to-move symmetry, and the search still matching
//! plain minimax under the tuned and custom evaluations.

use super::eval::{self, EvalStyle, EvalWeights, Evaluate};
use super::{reference, search, Hooks, Limits, SearchOptions};
use crate::bechi::BechiGame;
use crate::game::{Game, MoveList, Player};
use crate::ikibuguzo::IkibuguzoGame;
use crate::registry::{self, AnyGame, SplitMix64};
use crate::sabouiyya::SabouiyyaGame;

fn bechi() -> BechiGame {
    match &*registry::game("bechi").unwrap() {
        AnyGame::Bechi(g) => g.clone(),
        _ => unreachable!(),
    }
}

fn ikibuguzo() -> IkibuguzoGame {
    match &*registry::game("ikibuguzo").unwrap() {
        AnyGame::Ikibuguzo(g) => g.clone(),
        _ => unreachable!(),
    }
}

fn sabouiyya(variant: &str) -> SabouiyyaGame {
    match &*registry::game(variant).unwrap() {
        AnyGame::Sabouiyya(g) => g.clone(),
        _ => unreachable!(),
    }
}

const ALL: EvalWeights = EvalWeights([1, 1, 1, 1]);

#[test]
fn parse_reads_weights_of_every_family() {
    assert_eq!(EvalStyle::parse("tuned"), Some(EvalStyle::Tuned));
    assert_eq!(EvalStyle::parse("material"), Some(EvalStyle::Material));
    assert_eq!(EvalStyle::parse("0,-5,30,7"), Some(EvalStyle::Custom(EvalWeights([0, -5, 30, 7]))));
    assert_eq!(EvalStyle::parse("40"), Some(EvalStyle::Custom(EvalWeights([40, 0, 0, 0]))));
    assert_eq!(EvalStyle::parse("1,2,3,4,5"), None);
    assert_eq!(EvalStyle::parse("1,x"), None);
}

#[test]
fn the_default_is_learned_and_names_read_back() {
    assert_eq!(EvalStyle::default(), EvalStyle::Learned);
    assert_eq!(EvalStyle::parse(EvalStyle::DEFAULT_NAME), Some(EvalStyle::default()));
    assert_eq!(crate::search::engine::SearchOptions::default().eval, EvalStyle::Learned);
    for style in [
        EvalStyle::Tuned,
        EvalStyle::Material,
        EvalStyle::Learned,
        EvalStyle::Custom(EvalWeights([0, -5, 30, 7])),
    ] {
        assert_eq!(EvalStyle::parse(&style.name()), Some(style), "{style:?}");
    }
}

#[test]
fn bechi_terms_on_a_hand_built_position() {
    let g = bechi();
    // South: a=2 (moved) b=2 c=1 d=0; North: A=5 B=0 C=4 D=1 (moved). South's `a` sows 1 into D
    // (now 2, even, moved: taken) and the chain takes C (4): South's margin grows by 10.
    let pos = g.parse_body("2,2,1,0/5,0,4,1 3-2 S 10 1 play aD - 0-0").unwrap();
    let t = g.search_terms(&pos, &ALL.0);
    // mobility, exposed (negated), best capture, safe counters
    assert_eq!(t[Player::South.index()], [2, 0, 10, 3]);
    assert_eq!(t[Player::North.index()], [2, -2, 0, 9]);
    // The costly slot is skipped when its weight is 0.
    assert_eq!(g.search_terms(&pos, &[1, 1, 0, 1])[0][2], 0);
    // Material: South 3 + 5 = 8, North 2 + 10 = 12.
    assert_eq!(g.evaluate_search(&pos, &EvalStyle::Material), -400);
    assert_eq!(g.evaluate_search(&pos, &EvalStyle::Custom(ALL)), -400 + 2 + 10 - 6);
    assert_eq!(
        g.evaluate_search(&pos, &EvalStyle::Custom(EvalWeights([10, 20, 30, 40]))),
        -400 + 20 * 2 + 30 * 10 - 40 * 6
    );
    // Between rounds there are no positional terms.
    let fill = g.parse_body("0,0,0,0/0,0,0,0 24-24 S 40 1 fill-S - - 0-0").unwrap();
    assert_eq!(g.search_terms(&fill, &ALL.0), [[0; 4]; 2]);
}

#[test]
fn ikibuguzo_terms_on_a_hand_built_position() {
    let g = ikibuguzo();
    // South's i7 (loop 9, 3 counters) ends in i4 (loop 12, occupied), facing North's inner 11
    // and outer 4, both occupied: a capturing play. South's columns 0 (i1 + o8) and 7 (i8 + o1)
    // are exposed; North's column 3 (inner 11, outer 4) is.
    let pos =
        g.parse_body("2,0,0,0,0,0,0,1,1,3,0,0,1,0,0,2/0,0,0,0,1,0,0,0,0,0,0,2,0,0,0,0 S 20 0 -").unwrap();
    let t = g.search_terms(&pos, &ALL.0);
    // inner counters, capturing plays, exposed (negated), mobility
    assert_eq!(t[Player::South.index()], [7, 1, -6, 3]);
    assert_eq!(t[Player::North.index()], [2, 0, -3, 1]);
    assert_eq!(g.search_terms(&pos, &[1, 0, 1, 1])[0][1], 0);
    assert_eq!(g.evaluate_search(&pos, &EvalStyle::Material), 700);
    assert_eq!(g.evaluate_search(&pos, &EvalStyle::Custom(EvalWeights([0, 50, 0, 0]))), 750);
    assert_eq!(g.evaluate_search(&pos, &EvalStyle::Custom(ALL)), 700 + 5 + 1 - 3 + 2);
}

#[test]
fn sabouiyya_terms_on_a_hand_built_position() {
    let g = sabouiyya("sabouiyya");
    // South b3 c2 e3, North c3 b1. North's b1 can step to c1 and take c2 (c3 behind it); South's
    // e3 can step to d3 and take c3 (b3 behind it).
    let pos = g.parse_body("...../...../.SN.S/..S../.N... S 40 0-0 -").unwrap();
    let t = g.search_terms(&pos, &ALL.0);
    // mobility, at risk (negated), centre, frozen (negated)
    assert_eq!(t[Player::South.index()], [9, -1, 2, 0]);
    assert_eq!(t[Player::North.index()], [5, -1, 1, 0]);
    // A piece boxed in on all four sides is frozen: North a1 next to South a2 and b1.
    let boxed = g.parse_body("...../...../...../S..../NS... N 40 0-0 -").unwrap();
    let t = g.search_terms(&boxed, &ALL.0);
    assert_eq!(t[Player::North.index()], [0, 0, 0, -1]);
    assert_eq!(t[Player::South.index()], [4, 0, 0, 0]);
    assert_eq!(g.evaluate_search(&pos, &EvalStyle::Material), 100);
    assert_eq!(g.evaluate_search(&pos, &EvalStyle::Custom(EvalWeights([10, 0, 0, 0]))), 140);
    assert_eq!(g.evaluate_search(&pos, &EvalStyle::Custom(ALL)), 100 + 4 + 1);
}

/// Positions met along seeded random games, the start first.
fn sample<G: Game>(g: &G, games: u32, seed: u64, every: usize) -> Vec<G::Position> {
    let mut rng = SplitMix64(seed);
    let mut out = vec![g.start()];
    let mut moves = MoveList::new();
    for _ in 0..games {
        let mut pos = g.start();
        for _ in 0..400 {
            moves.clear();
            g.legal_moves(&pos, &mut moves);
            if moves.is_empty() {
                break;
            }
            pos = g.play_unchecked(&pos, moves[rng.below(moves.len())]);
            if rng.below(every) == 0 {
                out.push(pos);
            }
        }
    }
    out
}

fn styles() -> [EvalStyle; 3] {
    [EvalStyle::Tuned, EvalStyle::Custom(EvalWeights([7, -3, 11, 5])), EvalStyle::Custom(ALL)]
}

/// The evaluation is the side to move's view: the same board with the other side to move
/// scores the negation (every term is a difference between the players).
fn symmetric<G: Evaluate>(g: &G, positions: &[G::Position], flip: impl Fn(&G::Position) -> G::Position) {
    for pos in positions {
        for style in styles() {
            let a = g.evaluate_search(pos, &style);
            let b = g.evaluate_search(&flip(pos), &style);
            assert_eq!(a, -b, "{} {style:?}", g.format_body(pos));
        }
    }
}

#[test]
fn evaluations_are_antisymmetric() {
    let b = bechi();
    symmetric(&b, &sample(&b, 4, 3, 5), |p| {
        let mut q = *p;
        q.to_move = q.to_move.other();
        q
    });
    let k = ikibuguzo();
    let open = sample(&k, 4, 3, 5);
    symmetric(&k, &open.into_iter().filter(|p| !k.mid_turn(p)).collect::<Vec<_>>(), |p| {
        let mut q = *p;
        q.to_move = q.to_move.other();
        q
    });
    let s = sabouiyya("sabouiyya");
    symmetric(&s, &sample(&s, 4, 3, 5), |p| {
        let mut q = *p;
        q.to_move = q.to_move.other();
        q
    });
}

/// Positional terms change values, not the search's correctness: without a table it returns
/// the minimax value under each evaluation.
fn matches_minimax<G: Evaluate>(g: &G, positions: &[G::Position], depths: std::ops::RangeInclusive<u32>) {
    for pos in positions {
        for depth in depths.clone() {
            for style in styles() {
                let o = SearchOptions {
                    limits: Limits { depth: Some(depth), ..Limits::default() },
                    hash_mb: 0,
                    eval: style,
                    ..SearchOptions::default()
                };
                let r = search(g, pos, &[], &o, Hooks::default());
                let want = reference::minimax(g, pos, depth, &style, &mut Vec::new());
                assert_eq!(r.value, want, "{} depth {depth} {style:?}", g.format_body(pos));
            }
        }
    }
}

#[test]
fn the_search_matches_minimax_under_the_new_evaluations() {
    let b = bechi();
    matches_minimax(&b, &sample(&b, 3, 9, 8).into_iter().take(12).collect::<Vec<_>>(), 1..=4);
    let k = ikibuguzo();
    matches_minimax(&k, &sample(&k, 3, 9, 8).into_iter().take(12).collect::<Vec<_>>(), 1..=3);
    for variant in ["sabouiyya", "sabouiyya(hajeb=false)"] {
        let s = sabouiyya(variant);
        // Movement-phase positions (placement has hundreds of moves a turn).
        let moving: Vec<_> = sample(&s, 3, 9, 6).into_iter().filter(|p| p.hands == [0, 0]).take(10).collect();
        assert!(!moving.is_empty());
        matches_minimax(&s, &moving, 1..=2);
    }
}

#[test]
fn tuned_weights_are_the_documented_constants() {
    // `Tuned` means the measured weights of each family (bench/RESULTS-search.md).
    let pos = bechi().parse_body("2,2,1,0/5,0,4,1 3-2 S 10 1 play aD - 0-0").unwrap();
    assert_eq!(
        bechi().evaluate_search(&pos, &EvalStyle::Tuned),
        bechi().evaluate_search(&pos, &EvalStyle::Custom(eval::BECHI_TUNED))
    );
    let s = sabouiyya("sabouiyya");
    let pos = s.parse_body("...../...../.SN.S/..S../.N... S 40 0-0 -").unwrap();
    assert_eq!(
        s.evaluate_search(&pos, &EvalStyle::Tuned),
        s.evaluate_search(&pos, &EvalStyle::Custom(eval::SABOUIYYA_TUNED))
    );
    let k = ikibuguzo();
    let pos =
        k.parse_body("2,0,0,0,0,0,0,1,1,3,0,0,1,0,0,2/0,0,0,0,1,0,0,0,0,0,0,2,0,0,0,0 S 20 0 -").unwrap();
    assert_eq!(
        k.evaluate_search(&pos, &EvalStyle::Tuned),
        k.evaluate_search(&pos, &EvalStyle::Custom(eval::IKIBUGUZO_TUNED))
    );
}

#[test]
fn learned_weights_files_parse_and_features_are_antisymmetric() {
    use super::learned;
    for (name, text) in learned::BUILTIN {
        let w = learned::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(w.weights[0], 100, "{name}: the store difference is 100 per seed");
    }
    assert!(learned::parse("version = 0\nrules = \"abapa\"\nholes = 6\n[weights]\n")
        .unwrap_err()
        .contains("version"));
    assert!(learned::parse("version = 1\nrules = \"abapa\"\nholes = 6\n[weights]\nnone = 3\n")
        .unwrap_err()
        .contains("not a feature"));
    let g = match &*registry::game("abapa").unwrap() {
        AnyGame::Sowing(g) => g.clone(),
        _ => unreachable!(),
    };
    assert!(learned::weights_for(&g).is_some());
    let n = g.holes();
    for pos in sample(&g, 6, 3, 2) {
        let f = learned::features(&g, &pos).unwrap();
        // The same board seen from the other side: rows, stores and the side to move swapped.
        let mut flipped = pos;
        for i in 0..n {
            flipped.pits[i] = pos.pits[n + i];
            flipped.pits[n + i] = pos.pits[i];
        }
        flipped.stores = [pos.stores[1], pos.stores[0]];
        flipped.to_move = pos.to_move.other();
        let h = learned::features(&g, &flipped).unwrap();
        for i in 0..learned::LEN - 1 {
            assert_eq!(f[i], h[i], "feature {i} of {}", g.format_body(&pos));
        }
        // The learned evaluation is the weights' dot product.
        let w = learned::weights_for(&g).unwrap();
        let expect: i32 = f.iter().zip(w.weights.iter()).map(|(a, b)| a * b).sum();
        assert_eq!(g.evaluate_search(&pos, &EvalStyle::Learned), expect);
    }
    // Families and rules without weights fall back to the tuned evaluation.
    let other = match &*registry::game("awale").unwrap() {
        AnyGame::Sowing(g) => g.clone(),
        _ => unreachable!(),
    };
    for pos in sample(&other, 2, 4, 3) {
        assert_eq!(
            other.evaluate_search(&pos, &EvalStyle::Learned),
            other.evaluate_search(&pos, &EvalStyle::Tuned)
        );
    }
}

#[test]
fn the_learned_cache_scope_names_the_weights_not_their_text() {
    use super::learned;
    let shipped: Vec<_> = learned::BUILTIN.iter().map(|(_, text)| learned::parse(text).unwrap()).collect();
    let digest = learned::builtin_digest();
    assert_eq!(digest.len(), 8);
    assert!(digest.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(learned::digest(&shipped), digest);
    assert_eq!(EvalStyle::Learned.cache_scope(), format!("learned.{digest}"));
    assert_eq!(EvalStyle::Tuned.cache_scope(), "tuned");
    assert_eq!(EvalStyle::Material.cache_scope(), "material");
    // Comments and layout do not count; any weight, board size or rule file does.
    let (_, text) = learned::BUILTIN[0];
    let commented = learned::parse(&format!("# refitted comment\n\n{text}")).unwrap();
    assert_eq!(learned::digest(&[commented]), learned::digest(&shipped[..1]));
    let mut changed = shipped.clone();
    changed[0].weights[3] += 1;
    assert_ne!(learned::digest(&changed), digest);
    let mut wider = shipped.clone();
    wider[0].holes += 1;
    assert_ne!(learned::digest(&wider), digest);
    let mut other = shipped;
    other[0].rules.push('x');
    assert_ne!(learned::digest(&other), digest);
}

/// Positions of `g` for comparing evaluations: from seeded random games, and random boards (any
/// count in any hole, big holes included), half of each.
fn random_positions(
    g: &crate::sowing::SowingGame,
    count: usize,
    seed: u64,
) -> impl Iterator<Item = crate::sowing::SowingPosition> + '_ {
    let mut rng = SplitMix64(seed);
    let mut moves = MoveList::new();
    let mut game = g.start();
    (0..count).map(move |i| {
        if i % 2 == 0 {
            moves.clear();
            g.legal_moves(&game, &mut moves);
            if moves.is_empty() || game.turns > 300 {
                game = g.start();
                moves.clear();
                g.legal_moves(&game, &mut moves);
            }
            game = g.play_unchecked(&game, moves[rng.below(moves.len())]);
            game
        } else {
            let mut pos = g.start();
            let top = [2, 5, 13, 30, 100][rng.below(5)];
            for c in pos.pits[..2 * g.holes()].iter_mut() {
                *c = rng.below(top) as u8;
            }
            if rng.below(50) == 0 {
                pos.pits[rng.below(2 * g.holes())] = 255 - rng.below(3) as u8;
            }
            pos.stores = [rng.below(40) as u8, rng.below(40) as u8];
            pos.to_move = if rng.below(2) == 0 { Player::South } else { Player::North };
            pos
        }
    })
}

/// The prepared learned evaluation (the search's) against its definition, on `count` positions
/// of every built-in sowing rule set the features describe: with the shipped weights where there
/// are some, with random weights for every rule set (any weights file fitted later).
fn prepared_matches_definition(count: usize) {
    use super::learned;
    let mut covered = 0;
    for (file, _) in registry::BUILTIN_RULE_FILES {
        // Readings (`readings/x.toml`) are registered under their own ids: their base rule set is covered.
        let Ok(game) = registry::game(file.trim_end_matches(".toml")) else { continue };
        let AnyGame::Sowing(g) = &*game else { continue };
        let id = g.rules().id.as_str();
        if learned::features(g, &g.start()).is_none() {
            continue;
        }
        covered += 1;
        let mut rng = SplitMix64(covered);
        let mut random =
            learned::Weights { rules: id.to_string(), holes: g.holes(), weights: [0; learned::LEN] };
        for w in random.weights.iter_mut() {
            *w = rng.below(401) as i32 - 200;
        }
        let mut list = vec![random];
        list.extend(learned::weights_for(g).cloned());
        for weights in &list {
            let prepared = learned::Prepared::new(g, weights).expect("the features describe these rules");
            for pos in random_positions(g, count, 11 + covered) {
                assert_eq!(
                    prepared.evaluate(&pos),
                    learned::evaluate(g, weights, &pos).unwrap(),
                    "{id} {} with {:?}",
                    g.format_body(&pos),
                    weights.weights
                );
            }
        }
    }
    assert!(covered >= 5, "only {covered} rule sets have the learned features");
}

#[test]
fn prepared_learned_evaluation_is_the_definition() {
    prepared_matches_definition(20_000);
    // The search evaluates through the prepared tables.
    let AnyGame::Sowing(g) = &*registry::game("abapa").unwrap() else { unreachable!() };
    let e = g.evaluator(&EvalStyle::Learned);
    assert!(matches!(e, eval::SowingEvaluator::Learned(_)));
    for pos in sample(g, 3, 5, 2) {
        assert_eq!(g.evaluate_with(&e, &pos), g.evaluate_search(&pos, &EvalStyle::Learned));
    }
}

/// A million positions of each rule set: `cargo test --release -p griot-core
/// prepared_learned_evaluation_on_a_million -- --ignored`.
#[test]
#[ignore]
fn prepared_learned_evaluation_on_a_million() {
    prepared_matches_definition(1_000_000);
}
