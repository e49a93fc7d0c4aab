//! Evaluation for the search, per game family, in centi-units from the side to move's view.
//!
//! The rules know nothing of it: [`Game::evaluate`](crate::Game::evaluate) stays the material
//! baseline (the margin in seeds or pieces), and the search takes its evaluator from the
//! [`Evaluate`] trait, implemented here for every family. An [`EvalStyle`] picks the family's
//! tuned terms, the bare material, or custom weights for tuning by self-play.
//!
//! The sowing terms and their weights were measured by self-play, not guessed:
//! `bench/RESULTS-search.md` has the matches and the commands. Béchi, Ikibuguzo and Sabou'iyya
//! compute their own terms (each game module's `search_terms`, which knows its board) and combine
//! them here with [`with_terms`] and their tuned weights, measured the same way.

use super::exact::ExactResults;
use super::learned;
use crate::bechi::{BechiGame, BechiPosition};
use crate::game::{Game, Player};
use crate::ikibuguzo::{IkibuguzoGame, IkibuguzoPosition};
use crate::sabouiyya::{SabouiyyaGame, SabouiyyaPosition};
use crate::sowing::rules::Territory;
use crate::sowing::{SowingGame, SowingPosition, MAX_PITS};

/// The search's evaluator of a game: what the search calls at its leaves (and, through
/// [`ExactResults`], what it asks the endgame databases).
pub trait Evaluate: Game + ExactResults {
    /// The evaluation in centi-units (100 = one seed or piece of margin) from the side to move's
    /// view, with the terms and weights `style` picks.
    fn evaluate_search(&self, pos: &Self::Position, style: &EvalStyle) -> i32;

    /// What the search keeps to evaluate with one style: built once per search, so what does not
    /// change from node to node (tables, the weights that apply) is worked out once.
    type Evaluator: Clone + Send + Sync;

    /// The evaluator of `style` for this game.
    fn evaluator(&self, style: &EvalStyle) -> Self::Evaluator;

    /// [`Evaluate::evaluate_search`]'s value, through an evaluator of the same style.
    fn evaluate_with(&self, evaluator: &Self::Evaluator, pos: &Self::Position) -> i32;
}

/// A sowing game's evaluator: the learned evaluation's tables where it applies, else the style.
#[derive(Clone, Debug)]
pub enum SowingEvaluator {
    /// The learned evaluation, prepared.
    Learned(Box<learned::Prepared>),
    /// Any other style (or the learned one where the game has no weights: the tuned terms).
    Style(EvalStyle),
}

impl Evaluate for SowingGame {
    #[inline(always)]
    fn evaluate_search(&self, pos: &SowingPosition, style: &EvalStyle) -> i32 {
        if *style == EvalStyle::Learned {
            if let Some(v) = learned::weights_for(self).and_then(|w| learned::evaluate(self, w, pos)) {
                return v;
            }
        }
        sowing(self, pos, style)
    }

    type Evaluator = SowingEvaluator;

    fn evaluator(&self, style: &EvalStyle) -> SowingEvaluator {
        if *style == EvalStyle::Learned {
            if let Some(p) = learned::weights_for(self).and_then(|w| learned::Prepared::new(self, w)) {
                return SowingEvaluator::Learned(Box::new(p));
            }
        }
        SowingEvaluator::Style(*style)
    }

    #[inline(always)]
    fn evaluate_with(&self, evaluator: &SowingEvaluator, pos: &SowingPosition) -> i32 {
        match evaluator {
            SowingEvaluator::Learned(p) => p.evaluate(pos),
            SowingEvaluator::Style(style) => sowing(self, pos, style),
        }
    }
}

impl Evaluate for BechiGame {
    type Evaluator = EvalStyle;

    fn evaluator(&self, style: &EvalStyle) -> EvalStyle {
        *style
    }

    #[inline]
    fn evaluate_with(&self, style: &EvalStyle, pos: &BechiPosition) -> i32 {
        self.evaluate_search(pos, style)
    }

    fn evaluate_search(&self, pos: &BechiPosition, style: &EvalStyle) -> i32 {
        with_terms(100 * self.evaluate(pos), pos.to_move, style, BECHI_TUNED, |w| {
            self.search_terms(pos, &w.0)
        })
    }
}

impl Evaluate for IkibuguzoGame {
    type Evaluator = EvalStyle;

    fn evaluator(&self, style: &EvalStyle) -> EvalStyle {
        *style
    }

    #[inline]
    fn evaluate_with(&self, style: &EvalStyle, pos: &IkibuguzoPosition) -> i32 {
        self.evaluate_search(pos, style)
    }

    fn evaluate_search(&self, pos: &IkibuguzoPosition, style: &EvalStyle) -> i32 {
        with_terms(100 * self.evaluate(pos), pos.to_move, style, IKIBUGUZO_TUNED, |w| {
            self.search_terms(pos, &w.0)
        })
    }
}

impl Evaluate for SabouiyyaGame {
    type Evaluator = EvalStyle;

    fn evaluator(&self, style: &EvalStyle) -> EvalStyle {
        *style
    }

    #[inline]
    fn evaluate_with(&self, style: &EvalStyle, pos: &SabouiyyaPosition) -> i32 {
        self.evaluate_search(pos, style)
    }

    fn evaluate_search(&self, pos: &SabouiyyaPosition, style: &EvalStyle) -> i32 {
        with_terms(100 * self.evaluate(pos), pos.to_move, style, SABOUIYYA_TUNED, |w| {
            self.search_terms(pos, &w.0)
        })
    }
}

/// Weights of a family's positional terms, in centi-units per unit of the term. Each family
/// documents what its slots mean; unused slots are ignored.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct EvalWeights(pub [i32; 4]);

/// Which evaluation the search uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum EvalStyle {
    /// The family's measured positional terms on top of material.
    Tuned,
    /// Material only: 100 × [`Game::evaluate`](crate::Game::evaluate).
    Material,
    /// The family's terms with these weights.
    Custom(EvalWeights),
    /// The learned evaluation ([`super::learned`]) where weights were fitted for the game's
    /// rules; the tuned one elsewhere. The default: it beat the tuned one in self-play.
    #[default]
    Learned,
}

impl EvalStyle {
    /// The name of the default style, as [`EvalStyle::parse`] reads it and [`EvalStyle::name`]
    /// writes it.
    pub const DEFAULT_NAME: &'static str = "learned";

    /// The style's name as [`EvalStyle::parse`] reads it: `tuned`, `material`, `learned`, or the
    /// four weights joined by commas.
    pub fn name(&self) -> String {
        match self {
            EvalStyle::Tuned => "tuned".into(),
            EvalStyle::Material => "material".into(),
            EvalStyle::Learned => "learned".into(),
            EvalStyle::Custom(w) => w.0.map(|x| x.to_string()).join(","),
        }
    }

    /// What names this evaluation in cached values' keys: [`EvalStyle::name`], and for the learned
    /// evaluation the digest of its shipped weights (`learned.<hex>`), which a refit changes
    /// without a new engine version. The other styles' terms are code: the engine version
    /// covers them.
    pub fn cache_scope(&self) -> String {
        match self {
            EvalStyle::Learned => format!("learned.{}", super::learned::builtin_digest()),
            other => other.name(),
        }
    }

    /// Parses `tuned`, `material`, `learned` or `w0,w1,w2,w3` (custom weights).
    pub fn parse(text: &str) -> Option<EvalStyle> {
        match text {
            "tuned" => Some(EvalStyle::Tuned),
            "material" => Some(EvalStyle::Material),
            "learned" => Some(EvalStyle::Learned),
            _ => {
                let mut w = [0; 4];
                let parts: Vec<&str> = text.split(',').collect();
                if parts.is_empty() || parts.len() > 4 {
                    return None;
                }
                for (i, p) in parts.iter().enumerate() {
                    w[i] = p.trim().parse().ok()?;
                }
                Some(EvalStyle::Custom(EvalWeights(w)))
            }
        }
    }

    /// The weights this style puts on a family's terms (`tuned`: the family's own), or None for
    /// material only.
    #[inline(always)]
    fn weights(&self, tuned: EvalWeights) -> Option<EvalWeights> {
        match self {
            EvalStyle::Material => None,
            EvalStyle::Tuned | EvalStyle::Learned => Some(tuned),
            EvalStyle::Custom(w) => Some(*w),
        }
    }
}

/// `material` plus, for each slot, its weight times the side to move's term (`mine`) minus the
/// opponent's (`theirs`).
#[inline(always)]
fn weighted(material: i32, w: &EvalWeights, mine: &[i32; 4], theirs: &[i32; 4]) -> i32 {
    let mut score = material;
    for i in 0..4 {
        score += w.0[i] * (mine[i] - theirs[i]);
    }
    score
}

/// Tuned weights of the two-row sowing evaluation (see [`sowing`]).
pub const SOWING_TUNED: EvalWeights = EvalWeights([10, 0, 20, 0]);

/// Tuned weights of Béchi's terms (`BechiGame::search_terms`): exposed counters and safe
/// counters; mobility and the best capture measured no better than material.
pub const BECHI_TUNED: EvalWeights = EvalWeights([0, 10, 0, 5]);

/// Tuned weights of Ikibuguzo's terms (`IkibuguzoGame::search_terms`): none measured better than
/// material (games are decided by the first big capturing turn, which the search sees), so the
/// tuned evaluation is the material one.
pub const IKIBUGUZO_TUNED: EvalWeights = EvalWeights([0, 0, 0, 0]);

/// Tuned weights of Sabou'iyya's terms (`SabouiyyaGame::search_terms`): mobility and pieces at
/// risk; the centre and frozen pieces measured no better than material.
pub const SABOUIYYA_TUNED: EvalWeights = EvalWeights([10, 30, 0, 0]);

/// A family's evaluation from its parts: `material` (centi-units, side to move's view) plus, for
/// each slot, its weight times the side to move's term minus the opponent's. `terms` gives each
/// player's terms (South, North) for these weights (it may skip a costly slot whose weight is 0)
/// and is not called when every weight is zero, so a style without positional terms costs
/// nothing.
#[inline]
pub fn with_terms(
    material: i32,
    me: Player,
    style: &EvalStyle,
    tuned: EvalWeights,
    terms: impl FnOnce(&EvalWeights) -> [[i32; 4]; 2],
) -> i32 {
    let Some(w) = style.weights(tuned) else {
        return material;
    };
    if w.0 == [0; 4] {
        return material;
    }
    let t = terms(&w);
    weighted(material, &w, &t[me.index()], &t[me.other().index()])
}

/// The two-row sowing evaluation: the store difference (100 per seed) plus, each as the side to
/// move's count minus the opponent's, weighted by [`EvalWeights`] slots:
/// 0. seeds on the player's own row (they count at most endings, and are the player's moves);
/// 1. seeds at risk: seeds the opponent would take from a hole of the player's that one more seed
///    makes capturable (negated: fewer is better);
/// 2. mobility: non-empty holes of the player's own row;
/// 3. big holes: holes holding a full lap of seeds or more (they reach round the board).
#[inline(always)]
pub fn sowing(game: &SowingGame, pos: &SowingPosition, style: &EvalStyle) -> i32 {
    let me = pos.to_move;
    let material = 100 * (pos.stores[me.index()] as i32 - pos.stores[me.other().index()] as i32);
    let Some(w) = style.weights(SOWING_TUNED) else {
        return material;
    };
    let n = game.holes();
    if w.0[1] == 0 && w.0[3] == 0 {
        // Only the row terms (the tuned weights): one pass per row, same value.
        let south = row_seeds_and_filled(&pos.pits, 0, n);
        let north = row_seeds_and_filled(&pos.pits, n, n);
        let (mine, theirs) = if me == Player::South { (south, north) } else { (north, south) };
        return material + w.0[0] * (mine.0 - theirs.0) + w.0[2] * (mine.1 - theirs.1);
    }
    let lap = 2 * n as u8 - 1;
    // Holes a side's opponent can capture from: those on the player's row when captures are on
    // the opponent's territory or anywhere.
    let capture = game.rules().capture.filter(|c| c.territory != Territory::Own);
    let mut terms = [[0i32; 4]; 2];
    for side in Player::BOTH {
        let row = match side {
            Player::South => &pos.pits[..n],
            Player::North => &pos.pits[n..2 * n],
        };
        let t = &mut terms[side.index()];
        for &c in row {
            t[0] += c as i32;
            if let Some(cap) = &capture {
                if c < u8::MAX && cap.values.contains(c + 1) {
                    t[1] -= c as i32 + 1;
                }
            }
            t[2] += (c > 0) as i32;
            t[3] += (c >= lap) as i32;
        }
    }
    weighted(material, &w, &terms[me.index()], &terms[me.other().index()])
}

/// Seeds in the `n` holes from `start`, and how many of them hold seeds.
#[inline(always)]
fn row_seeds_and_filled(pits: &[u8; MAX_PITS], start: usize, n: usize) -> (i32, i32) {
    if n <= 8 {
        // The row as the low bytes of a word. A board holds at most 255 seeds, so the running
        // byte sums of the multiplication never carry and its top byte is the row's total.
        const ONES: u64 = 0x0101_0101_0101_0101;
        let bytes: [u8; 8] = pits[start..start + 8].try_into().expect("8 bytes");
        let mask = if n == 8 { u64::MAX } else { (1u64 << (8 * n)) - 1 };
        let x = u64::from_le_bytes(bytes) & mask;
        let seeds = (x.wrapping_mul(ONES) >> 56) as i32;
        // High bit of each byte set when the byte is not zero.
        let low7 = 0x7F * ONES;
        let filled = (((x & low7) + low7) | x) & (0x80 * ONES);
        let filled = ((filled >> 7).wrapping_mul(ONES) >> 56) as i32;
        (seeds, filled)
    } else {
        let row = &pits[start..start + n];
        (row.iter().map(|&c| c as i32).sum(), row.iter().filter(|&&c| c > 0).count() as i32)
    }
}
