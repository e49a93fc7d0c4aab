//! Plain minimax (negamax without pruning, table or ordering), the reference the search is
//! tested against: same game end, repetition and evaluation rules as [`super::engine`].

use super::engine::outcome_value;
use super::eval::{EvalStyle, Evaluate};
use super::score::{Value, WIN_BOUND};
use crate::game::MoveList;

/// The minimax value of `pos` searched `depth` turns deep, from the side to move's view; `path`
/// holds the hash keys of the positions before it (repetitions of them end the game).
pub fn minimax<G: Evaluate>(
    g: &G,
    pos: &G::Position,
    depth: u32,
    eval: &EvalStyle,
    path: &mut Vec<u64>,
) -> Value {
    minimax_at(g, pos, depth, 0, eval, path)
}

fn minimax_at<G: Evaluate>(
    g: &G,
    pos: &G::Position,
    depth: u32,
    ply: usize,
    eval: &EvalStyle,
    path: &mut Vec<u64>,
) -> Value {
    let side = g.side_to_move(pos);
    let key = g.hash_key(pos);
    if ply > 0 && path.contains(&key) {
        return outcome_value(&g.endless_outcome(pos), side, ply);
    }
    let mut moves = MoveList::new();
    g.legal_moves(pos, &mut moves);
    if moves.is_empty() {
        return match g.outcome(pos) {
            Some(o) => outcome_value(&o, side, ply),
            None => g.evaluate_search(pos, eval).clamp(-WIN_BOUND + 1, WIN_BOUND - 1),
        };
    }
    if depth == 0 {
        return g.evaluate_search(pos, eval).clamp(-WIN_BOUND + 1, WIN_BOUND - 1);
    }
    path.push(key);
    let mut best = Value::MIN;
    for &mv in &moves {
        let child = g.play_unchecked(pos, mv);
        // As the engine: a step that leaves the turn open is not a ply.
        let d = if g.mid_turn(&child) { depth } else { depth - 1 };
        let v = minimax_at(g, &child, d, ply + 1, eval, path);
        let v = if g.side_to_move(&child) == side { v } else { -v };
        best = best.max(v);
    }
    path.pop();
    best
}
