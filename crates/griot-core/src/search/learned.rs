//! A learned evaluation for two-row sowing games: features strong Oware programs weigh, with
//! weights fitted by logistic regression of game outcomes on positions (the Texel method) by
//! `bench/fit_eval.py`, stored in versioned data files in `rules/eval/` beside the rule files.
//!
//! Every feature is the side to move's count minus the opponent's, each player's holes numbered
//! in sowing order (hole 0 is the first of the player's row, hole n-1 the last before the
//! opponent's row); see [`FEATURES`].

use std::sync::OnceLock;

use crate::game::Player;
use crate::sowing::rules::{Direction, Territory};
use crate::sowing::{SowingGame, SowingPosition};

/// The version of the feature set: a weights file fitted on another version is refused.
pub const FEATURE_VERSION: u32 = 1;

/// Most holes per row a weights file covers.
pub const MAX_HOLES: usize = 8;

/// Features after the per-hole seed counts.
const EXTRA: usize = 7;

/// Length of a feature vector: the store difference, the seeds per hole, then [`FEATURES`]'s
/// extra terms, then the side to move (the tempo).
pub const LEN: usize = 1 + MAX_HOLES + EXTRA + 1;

/// The names of the features after the store difference and the per-hole counts, in order.
pub const FEATURES: [&str; EXTRA] = [
    // Own holes without seeds.
    "empty",
    // Own holes that one more seed makes capturable.
    "vulnerable",
    // Seeds the opponent would take from own holes its sowings reach and make capturable.
    "threatened",
    // Seeds in the biggest own hole when it holds a full lap or more (a "kroo").
    "kroo",
    // Whether that kroo's sowing ends on the opponent's row (where it captures).
    "kroo_reach",
    // Own holes whose sowing reaches the opponent's row (the moves that feed).
    "feeding",
    // Own holes whose sowing ends on the opponent's row on a hole it makes capturable.
    "captures",
];

/// The feature vector of `pos` (side to move's view), or None when the game's rules are outside
/// what these features describe (one direction of sowing, no relay sowing).
pub fn features(game: &SowingGame, pos: &SowingPosition) -> Option<[i32; LEN]> {
    let rules = game.rules();
    let n = game.holes();
    if n > MAX_HOLES || rules.direction != Direction::Ccw || rules.relay.is_some() {
        return None;
    }
    let me = pos.to_move;
    let capture = rules.capture.as_ref().filter(|c| c.territory == Territory::Opponent);
    let len = 2 * n;
    let lap = if rules.skip_origin { len - 1 } else { len };
    // The hole a sowing of `s` seeds from `i` ends on.
    let last = |i: usize, s: usize| -> usize {
        if rules.skip_origin {
            (i + (s - 1) % lap + 1) % len
        } else {
            (i + s) % len
        }
    };
    let captures_with = |c: u8| capture.is_some_and(|cap| cap.values.contains(c));
    let mut f = [0i32; LEN];
    f[0] = pos.stores[me.index()] as i32 - pos.stores[me.other().index()] as i32;
    for side in Player::BOTH {
        let sign = if side == me { 1 } else { -1 };
        let base = if side == Player::South { 0 } else { n };
        let theirs = if side == Player::South { n } else { 0 };
        let mut extra = [0i32; EXTRA];
        let mut kroo = 0usize;
        let mut kroo_hole = 0usize;
        for k in 0..n {
            let i = base + k;
            let c = pos.pits[i] as usize;
            f[1 + k] += sign * c as i32;
            if c == 0 {
                extra[0] += 1;
                continue;
            }
            if c < u8::MAX as usize && captures_with(c as u8 + 1) {
                extra[1] += 1;
                // Does an opponent's sowing end here (a single lap adds one seed)?
                let reached = (theirs..theirs + n).any(|j| {
                    let s = pos.pits[j] as usize;
                    s > 0 && s < lap && last(j, s) == i
                });
                if reached {
                    extra[2] += c as i32 + 1;
                }
            }
            if c >= lap && c > kroo {
                kroo = c;
                kroo_hole = i;
            }
            if c >= n - k {
                extra[5] += 1;
                let end = last(i, c);
                if (theirs..theirs + n).contains(&end) {
                    let laps = if c >= lap { 1 + (c - 1) / lap } else { 0 };
                    let after = pos.pits[end] as usize + 1 + laps.saturating_sub(1);
                    if after <= u8::MAX as usize && captures_with(after as u8) {
                        extra[6] += 1;
                    }
                }
            }
        }
        if kroo > 0 {
            extra[3] = kroo as i32;
            let end = last(kroo_hole, kroo);
            extra[4] = (theirs..theirs + n).contains(&end) as i32;
        }
        for (t, e) in extra.iter().enumerate() {
            f[1 + MAX_HOLES + t] += sign * e;
        }
    }
    f[LEN - 1] = 1;
    Some(f)
}

/// Fitted weights for one rule file's games, in centi-units per unit of each feature (the store
/// difference is 100 per seed).
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// The rule file id the weights were fitted for.
    pub rules: String,
    /// Holes per row.
    pub holes: usize,
    /// One weight per feature, as [`features`] orders them.
    pub weights: [i32; LEN],
}

/// The weights files shipped with Griot.
pub const BUILTIN: &[(&str, &str)] = &[("abapa.toml", include_str!("../../rules/eval/abapa.toml"))];

/// Parses a weights file: `version` (must be [`FEATURE_VERSION`]), `rules`, `holes`, and the
/// weights by feature name (`store`, `hole1`..`holeN`, the [`FEATURES`], `tempo`).
pub fn parse(text: &str) -> Result<Weights, String> {
    let table: toml::Table = text.parse().map_err(|e| format!("not TOML: {e}"))?;
    let int = |key: &str| -> Result<i64, String> {
        table.get(key).and_then(|v| v.as_integer()).ok_or_else(|| format!("{key}: missing or not an integer"))
    };
    let version = int("version")?;
    if version != FEATURE_VERSION as i64 {
        return Err(format!("version {version}: these features are version {FEATURE_VERSION}"));
    }
    let rules = table
        .get("rules")
        .and_then(|v| v.as_str())
        .ok_or_else(|| "rules: missing or not a string".to_string())?
        .to_string();
    let holes = int("holes")?;
    if !(1..=MAX_HOLES as i64).contains(&holes) {
        return Err(format!("holes {holes}: 1 to {MAX_HOLES}"));
    }
    let w = table
        .get("weights")
        .and_then(|v| v.as_table())
        .ok_or_else(|| "weights: missing table".to_string())?;
    let mut names: Vec<String> = vec!["store".into()];
    names.extend((1..=MAX_HOLES).map(|k| format!("hole{k}")));
    names.extend(FEATURES.iter().map(|s| s.to_string()));
    names.push("tempo".into());
    for key in w.keys() {
        if !names.contains(key) {
            return Err(format!("weights.{key}: not a feature"));
        }
    }
    let mut weights = [0i32; LEN];
    for (slot, name) in names.iter().enumerate() {
        if let Some(v) = w.get(name) {
            let v = v.as_integer().ok_or_else(|| format!("weights.{name}: not an integer"))?;
            weights[slot] = i32::try_from(v).map_err(|_| format!("weights.{name}: out of range"))?;
        }
    }
    Ok(Weights { rules, holes: holes as usize, weights })
}

fn builtin() -> &'static [Weights] {
    static LIST: OnceLock<Vec<Weights>> = OnceLock::new();
    LIST.get_or_init(|| {
        BUILTIN
            .iter()
            .map(|(name, text)| parse(text).unwrap_or_else(|e| panic!("built-in weights file {name}: {e}")))
            .collect()
    })
}

/// The shipped weights, summed up in 8 hex digits ([`digest`]). Cached values name it beside
/// `learned`, so values searched with other weights are never read after a refit.
pub fn builtin_digest() -> &'static str {
    static DIGEST: OnceLock<String> = OnceLock::new();
    DIGEST.get_or_init(|| digest(builtin()))
}

/// A list of weights summed up in 8 hex digits: FNV-1a over the feature version and each file's
/// rules, board size and weights, not its text, so comments and layout do not count.
pub fn digest(list: &[Weights]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    eat(&FEATURE_VERSION.to_le_bytes());
    for w in list {
        eat(w.rules.as_bytes());
        eat(&[0]);
        eat(&(w.holes as u32).to_le_bytes());
        for x in w.weights {
            eat(&x.to_le_bytes());
        }
    }
    format!("{:08x}", (h >> 32) as u32 ^ h as u32)
}

/// The shipped weights for `game`'s rule file and board size, if any.
pub fn weights_for(game: &SowingGame) -> Option<&'static Weights> {
    builtin().iter().find(|w| w.rules == game.rules().id && w.holes == game.holes())
}

/// The learned evaluation in centi-units, or None when `game` has no weights or its rules are
/// outside the features.
#[inline]
pub fn evaluate(game: &SowingGame, weights: &Weights, pos: &SowingPosition) -> Option<i32> {
    let f = features(game, pos)?;
    Some(f.iter().zip(weights.weights.iter()).map(|(a, b)| a * b).sum())
}

/// Largest seed count a hole holds ([`SowingPosition::pits`] are bytes).
const COUNTS: usize = u8::MAX as usize + 1;

/// No capture to test: the hole's sowing does not end on the opponent's row.
const NO_END: u8 = u8::MAX;

/// The learned evaluation of one game with its weights, prepared for the search: every term that
/// depends on one hole's count is a table lookup by hole and count, so a node costs a pass over
/// the board with no division and few branches. Its values are [`evaluate`]'s exactly (the same
/// integer terms, summed in another order); `evaluate` stays the readable definition and the
/// test oracle.
#[derive(Clone, Debug)]
pub struct Prepared {
    n: usize,
    len: usize,
    lap: usize,
    store: i32,
    tempo: i32,
    kroo: i32,
    kroo_reach: i32,
    /// By own-row hole and count: the hole's weight times the count, plus the weights of the
    /// features the count alone decides (empty, vulnerable, feeding).
    local: Box<[[i32; COUNTS]; MAX_HOLES]>,
    /// By count: the `threatened` weight times (count + 1) where one more seed makes the hole
    /// capturable (the term counts when an opponent's sowing ends on the hole), else 0.
    threat: Box<[i32; COUNTS]>,
    /// By own-row hole and count: where the hole's sowing ends on the opponent's row (hole of
    /// that row, in its sowing order), or [`NO_END`] if it does not or the hole does not feed.
    end: Box<[[u8; COUNTS]; MAX_HOLES]>,
    /// By own-row hole and count: what the sowing adds to the hole it ends on (one seed a lap).
    adds: Box<[[u8; COUNTS]; MAX_HOLES]>,
    /// By count after a sowing: the `captures` weight if the count captures, else 0.
    captures: Box<[i32; 2 * COUNTS]>,
    /// By own-row hole and count: whether a sowing of the count ends on the opponent's row.
    reaches: Box<[[bool; COUNTS]; MAX_HOLES]>,
}

impl Prepared {
    /// The tables for `game` with `weights`, or None when its rules are outside the features
    /// (as [`features`] says) or the weights are for another board size.
    pub fn new(game: &SowingGame, weights: &Weights) -> Option<Prepared> {
        let rules = game.rules();
        let n = game.holes();
        if n > MAX_HOLES || n != weights.holes || rules.direction != Direction::Ccw || rules.relay.is_some() {
            return None;
        }
        let w = &weights.weights;
        let capture = rules.capture.as_ref().filter(|c| c.territory == Territory::Opponent);
        let captures_with =
            |c: usize| c <= u8::MAX as usize && capture.is_some_and(|cap| cap.values.contains(c as u8));
        let len = 2 * n;
        let lap = if rules.skip_origin { len - 1 } else { len };
        // The hole (counted from the sowing hole's row start) a sowing of `s` from own hole `k` ends on.
        let last = |k: usize, s: usize| -> usize {
            if rules.skip_origin {
                (k + (s - 1) % lap + 1) % len
            } else {
                (k + s) % len
            }
        };
        let at = |name: &str| -> i32 {
            w[1 + MAX_HOLES + FEATURES.iter().position(|f| *f == name).expect("a feature")]
        };
        let mut p = Prepared {
            n,
            len,
            lap,
            store: w[0],
            tempo: w[LEN - 1],
            kroo: at("kroo"),
            kroo_reach: at("kroo_reach"),
            local: Box::new([[0; COUNTS]; MAX_HOLES]),
            threat: Box::new([0; COUNTS]),
            end: Box::new([[NO_END; COUNTS]; MAX_HOLES]),
            adds: Box::new([[0; COUNTS]; MAX_HOLES]),
            captures: Box::new([0; 2 * COUNTS]),
            reaches: Box::new([[false; COUNTS]; MAX_HOLES]),
        };
        for c in 1..COUNTS - 1 {
            if captures_with(c + 1) {
                p.threat[c] = at("threatened") * (c as i32 + 1);
            }
        }
        for (after, slot) in p.captures.iter_mut().enumerate() {
            if captures_with(after) {
                *slot = at("captures");
            }
        }
        for k in 0..n {
            for c in 0..COUNTS {
                let mut v = w[1 + k] * c as i32;
                if c == 0 {
                    v += at("empty");
                } else {
                    if captures_with(c + 1) {
                        v += at("vulnerable");
                    }
                    let end = last(k, c);
                    let on_theirs = (n..len).contains(&end);
                    p.reaches[k][c] = on_theirs;
                    if c >= n - k {
                        v += at("feeding");
                        if on_theirs {
                            let laps = if c >= lap { 1 + (c - 1) / lap } else { 0 };
                            p.end[k][c] = (end - n) as u8;
                            p.adds[k][c] = (1 + laps.saturating_sub(1)) as u8;
                        }
                    }
                }
                p.local[k][c] = v;
            }
        }
        Some(p)
    }

    /// The holes that single-lap sowings from `row` (the `n` holes from `base`) end on, one bit a
    /// hole of the board.
    #[inline(always)]
    fn reached_from(&self, pits: &[u8], base: usize) -> u32 {
        let mut mask = 0u32;
        for (j, &s) in pits.iter().enumerate().skip(base).take(self.n) {
            let s = s as usize;
            let t = j + s;
            let t = if t >= self.len { t - self.len } else { t };
            // A count of 0 or a full lap reaches nothing here: the bit is shifted out of use.
            let live = (s != 0 && s < self.lap) as u32;
            mask |= live << (t & 31);
        }
        mask
    }

    /// The side whose row starts at `base` (opponent's row at `theirs`): its terms, with
    /// `reached` the holes the opponent's single-lap sowings end on.
    #[inline(always)]
    fn side(&self, pits: &[u8], base: usize, theirs: usize, reached: u32) -> i32 {
        let mut v = 0;
        let mut kroo = 0usize;
        let mut kroo_hole = 0usize;
        for k in 0..self.n {
            let c = pits[base + k] as usize;
            v += self.local[k][c];
            if (reached >> (base + k)) & 1 != 0 {
                v += self.threat[c];
            }
            let e = self.end[k][c];
            if e != NO_END {
                let after = pits[theirs + e as usize] as usize + self.adds[k][c] as usize;
                v += self.captures[after];
            }
            if c >= self.lap && c > kroo {
                kroo = c;
                kroo_hole = k;
            }
        }
        if kroo > 0 {
            v += self.kroo * kroo as i32;
            if self.reaches[kroo_hole][kroo] {
                v += self.kroo_reach;
            }
        }
        v
    }

    /// The learned evaluation of `pos` in centi-units, side to move's view: [`evaluate`]'s value.
    #[inline]
    pub fn evaluate(&self, pos: &SowingPosition) -> i32 {
        let pits = &pos.pits[..];
        let n = self.n;
        let from_south = self.reached_from(pits, 0);
        let from_north = self.reached_from(pits, n);
        let south = self.side(pits, 0, n, from_north);
        let north = self.side(pits, n, 0, from_south);
        let stores = pos.stores[0] as i32 - pos.stores[1] as i32;
        let v = self.store * stores + south - north;
        self.tempo + if pos.to_move == Player::South { v } else { -v }
    }
}
