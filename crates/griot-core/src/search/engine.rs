//! The search: iterative deepening over a principal-variation (negamax alpha-beta) search with
//! aspiration windows, the transposition table, staged move ordering and per-move root scores.
//!
//! Decisions:
//! - **Game end** is scored as the rules end it: [`Game::outcome`] decides, and its winner makes
//!   the score a win or loss in the number of turns from the root; a draw scores 0.
//! - **Endless cycles**: a position that already occurred on the current search path (or in the
//!   game history the caller passes) ends the game there as an endless cycle, scored by
//!   [`Game::endless_outcome`]. The rules end a game at the occurrence of a position the
//!   variant's `repetitions` option names: the third by default, where a player who can force one
//!   repetition can force the others, so the first repetition is scored as the end the rules would
//!   reach (the common engine choice); the second (`repetitions=2`, the first repetition, as
//!   engines and match runners that follow them end it), where that scoring is the rules'.
//! - **Turn limit**: the position carries its turn count, so the limit ends lines exactly as the
//!   rules do. Table keys leave the turn count out, so near the limit (fewer turns left than the
//!   depth plus a margin) the table is neither trusted nor written.
//! - **No forward pruning** (null move): sowing games are full of zugzwang, and without a table
//!   the search returns exactly the minimax value (tested against [`super::reference::minimax`]).
//! - **A value at exactly the depth needed**: without reductions a table entry cuts a node only
//!   when it was searched to that node's remaining depth; a deeper entry orders the moves but
//!   does not answer. A fixed-depth search then has the full-width value at its depth whatever
//!   the table held before (a kept table's earlier, deeper searches, the shared table's entries,
//!   another distributed task's), the value the same search with a new table finds.
//! - **Late-move reductions only for play** ([`SearchOptions::reductions`], off by default): late
//!   quiet moves are searched a turn shallower first, and again to the full depth when they beat
//!   alpha. They buy depth at equal time (measured in `bench/RESULTS-strength.md`), but the value
//!   is then no longer the full-width alpha-beta value, which the windowed subtree tasks of the
//!   distributed search, resumed searches and the shared tables rely on; so the engine that plays
//!   (the engine protocol, the match bench) turns them on and analysis keeps them off.
//! - A position whose side to move does not change after a move (games with several moves in a
//!   turn) is searched without negating the child's score.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::eval::{EvalStyle, Evaluate};
use super::ordering::{Ordering, MAX_PLY};
use super::score::{
    from_table, is_proven, loss_in, to_table, win_in, Bound, Score, Value, INFINITE, WIN_BOUND,
};
use super::shared::{SharedEntry, SharedRequest, SharedTable};
use super::tt::{TranspositionTable, NO_MOVE};
use crate::game::{Game, MoveList, Outcome, Player};

/// Deepest iteration the search runs.
pub const MAX_DEPTH: u32 = 120;

/// Nodes with less remaining depth than this neither probe nor write the table: they are most
/// of the tree, their subtrees are tiny, and each probe is a cache miss.
const TABLE_MIN_DEPTH: u32 = 2;

/// Late-move reductions: the least remaining depth of a node whose moves may be reduced, and the
/// moves searched at full depth before the first reduced one (the table move, the best captures
/// and killers come first); from [`REDUCTION_DEEP_DEPTH`] on, outside the principal variation,
/// the moves after [`REDUCTION_DEEP_AFTER_MOVES`] lose two turns. Chosen by node-limited matches
/// (`bench/RESULTS-strength.md`).
const REDUCTION_MIN_DEPTH: u32 = 3;
const REDUCTION_AFTER_MOVES: usize = 2;
const REDUCTION_DEEP_DEPTH: u32 = 6;
const REDUCTION_DEEP_AFTER_MOVES: usize = 4;

/// Turns kept clear of the turn limit before the table is trusted again.
pub const TURN_LIMIT_MARGIN: u32 = 8;

/// Whether a search `depth` turns deep from a position `turns` turns (as the game counts them)
/// into a game may meet the game's `max_turns` limit (within [`TURN_LIMIT_MARGIN`]): its value then
/// depends on how many turns were played, not only on the position, so it must not be stored in or
/// read from a table shared with other paths (this engine's, the Redis tier, the gateway's cache).
/// `steps_per_turn` is [`Game::max_steps_per_turn`]: where the game counts the steps of a turn
/// (Ikibuguzo, Sabou'iyya), a turn of the search, and the rest of the turn under way, can move the
/// count by that much each.
#[inline]
pub fn near_turn_limit(turns: u32, depth: u32, max_turns: u32, steps_per_turn: u32) -> bool {
    let span =
        if steps_per_turn <= 1 { depth } else { depth.saturating_add(1).saturating_mul(steps_per_turn) };
    turns.saturating_add(span).saturating_add(TURN_LIMIT_MARGIN) >= max_turns
}

/// When a search stops. `None` everywhere searches until [`SearchOptions::stop`] is set (or
/// [`MAX_DEPTH`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration, in turns.
    pub depth: Option<u32>,
    /// Nodes to visit at most (deterministic).
    pub nodes: Option<u64>,
    /// Wall-clock time for this move: the search stops when it is up.
    pub time: Option<Duration>,
    /// A game clock: the search budgets the move from the time left (see [`Clock`]); with
    /// [`Limits::time`] too, the smaller limit holds.
    pub clock: Option<Clock>,
}

/// A game clock as a player's GUI gives it (`go wtime .. winc ..`): the mover's time left, the
/// increment added after each move, and the moves until the next time control, if any.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the mover's clock.
    pub remaining: Duration,
    /// Added to the clock after each move.
    pub increment: Duration,
    /// Moves until the clock is topped up (`None`: the time left is for the rest of the game).
    pub moves_to_go: Option<u32>,
}

/// Moves a game is assumed to still last when the clock does not say.
const CLOCK_MOVES_LEFT: u32 = 25;

/// Kept off the clock for the answer to reach the referee.
const CLOCK_OVERHEAD: Duration = Duration::from_millis(20);

/// On a clock, of the time a next iteration is expected to take, the share that must still fit
/// before the soft limit for it to start: the first root move (the previous best, most of an
/// iteration's work) and the moves that could refute it; a stopped iteration still plays a move
/// it proved better.
const NEXT_ITERATION_SHARE: f64 = 0.5;

impl Clock {
    /// The time to aim at (`soft`: no iteration starts that is not expected to fit) and the most
    /// this move may take (`hard`: the search stops), both from the search's start.
    pub fn budget(&self) -> (Duration, Duration) {
        let left = self.remaining.saturating_sub(CLOCK_OVERHEAD);
        let moves = self.moves_to_go.unwrap_or(CLOCK_MOVES_LEFT).max(1);
        let soft = (left + self.increment * (moves - 1)) / moves;
        let soft = soft.min(left / 2);
        let hard = (soft * 3).min(left * 3 / 5).max(soft);
        (soft.max(Duration::from_millis(1)), hard.max(Duration::from_millis(1)))
    }
}

impl Limits {
    /// The soft and hard time limits of this move (see [`Clock::budget`]), `None` without time
    /// limits. A per-move time is both.
    pub fn time_budget(&self) -> Option<(Duration, Duration)> {
        match (self.time, self.clock.map(|c| c.budget())) {
            (None, None) => None,
            (Some(t), None) => Some((t, t)),
            (None, Some(b)) => Some(b),
            (Some(t), Some((soft, hard))) => Some((soft.min(t), hard.min(t))),
        }
    }
}

/// How to search.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// When to stop.
    pub limits: Limits,
    /// How many root moves get an exact score (1 = the best only; `usize::MAX` = every move).
    pub multipv: usize,
    /// Transposition table size in MB (0 disables it).
    pub hash_mb: usize,
    /// The evaluation.
    pub eval: EvalStyle,
    /// Set by another thread to stop the search; the last completed iteration is returned.
    pub stop: Option<Arc<AtomicBool>>,
    /// Whether aspiration windows are used (multi-PV searches always use full windows).
    pub aspiration: bool,
    /// Searches the root with this window `(alpha, beta)` at every iteration instead of a full or
    /// aspiration window (subtree tasks of a distributed search). The result's value is then
    /// fail-soft: [`SearchResult::bound`] says whether it is exact or a bound. Implies one line.
    pub window: Option<(Value, Value)>,
    /// Whether the search starts a new table generation (default true): entries of earlier
    /// searches then age and give way, and the search's shallow results replace them. False for
    /// the subtree tasks of one distributed search over a kept table: they are parts of one
    /// search, so a task's first iterations do not overwrite what the previous depth's task
    /// proved deeper about the same positions (as the in-process search keeps its own).
    pub new_generation: bool,
    /// Windows `(depth, alpha, beta)` for chosen iterations below the last, used instead of
    /// [`SearchOptions::window`] at those depths: a subtree task repeats the windows its earlier
    /// tasks searched the same subtree with, so its kept table answers those iterations.
    pub iteration_windows: Vec<(u32, Value, Value)>,
    /// Resumes what the table already holds for the root (default false): when the table has
    /// the root searched to depth k, the iterations start at depth k + 1 (at most the depth
    /// limit) with the table's best move first, instead of deepening from 1 again. For a subtree
    /// task of a distributed search over a kept table: the previous depth's task left its
    /// subtree in the table, and the in-process search's iteration starts there the same way
    /// (measured: 1.17x -> 0.99x the in-process nodes on awale after c F to depth 22,
    /// bench/RESULTS-workers.md). Without such an entry it deepens from 1. A resumed search
    /// stopped before its first iteration completes falls back to depth 1 (an incomplete result).
    pub resume: bool,
    /// Endgame databases: every node within their range gets its exact result (a win, loss or
    /// draw with best play) instead of a search below it. `None` searches as without them.
    pub egdb: Option<Arc<crate::egdb::Egdb>>,
    /// Late-move reductions (default false): for play, not analysis (see the module's
    /// decisions). The search is still deterministic under depth and node limits.
    pub reductions: bool,
    /// Threads searching at once (default 1). The others are auxiliary threads sharing the
    /// table (Lazy SMP): each keeps one iteration ahead of the main thread, with its root moves
    /// in another order, and their entries answer the main thread's nodes. The main thread's result is the
    /// search's; it takes an auxiliary thread's value only where that thread searched exactly
    /// the depth it needs, so a full-width fixed-depth search finds the single-threaded value.
    /// Without a table (hash 0) or with a root window (subtree tasks) the search is
    /// single-threaded.
    pub threads: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            limits: Limits::default(),
            multipv: 1,
            hash_mb: 16,
            eval: EvalStyle::default(),
            stop: None,
            aspiration: true,
            window: None,
            new_generation: true,
            iteration_windows: Vec::new(),
            resume: false,
            egdb: None,
            reductions: false,
            threads: 1,
        }
    }
}

/// One root move with its score.
#[derive(Clone, Debug, PartialEq)]
pub struct RootMove<M> {
    /// The move.
    pub mv: M,
    /// The move in notation.
    pub text: String,
    /// Root-relative value.
    pub value: Value,
    /// The value as a user reads it.
    pub score: Score,
    /// Exact, or a bound (moves outside the multi-PV count get upper bounds).
    pub bound: Bound,
    /// The line this move starts, in notation.
    pub pv: Vec<String>,
}

/// What a search found: after each iteration (progress) and at the end.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<M> {
    /// The best move, `None` when the game is over at the root.
    pub best: Option<M>,
    /// The root value (side to move's view).
    pub value: Value,
    /// The value as a user reads it.
    pub score: Score,
    /// The principal variation.
    pub pv: Vec<M>,
    /// The principal variation in notation.
    pub pv_text: Vec<String>,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Nodes visited so far.
    pub nodes: u64,
    /// Time spent so far.
    pub elapsed: Duration,
    /// Every root move, best first.
    pub moves: Vec<RootMove<M>>,
    /// Table occupancy by this search, per mille.
    pub hashfull: u32,
    /// What `value` says: exact, except under [`SearchOptions::window`] where the search may
    /// fail low (upper bound) or high (lower bound).
    pub bound: Bound,
}

impl<M> SearchResult<M> {
    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            (self.nodes as f64 / s) as u64
        } else {
            0
        }
    }

    /// The same result with moves converted (e.g. into `AnyMove`).
    pub fn map<N>(&self, f: impl Fn(&M) -> N) -> SearchResult<N> {
        SearchResult {
            best: self.best.as_ref().map(&f),
            value: self.value,
            score: self.score,
            pv: self.pv.iter().map(&f).collect(),
            pv_text: self.pv_text.clone(),
            depth: self.depth,
            seldepth: self.seldepth,
            nodes: self.nodes,
            elapsed: self.elapsed,
            moves: self
                .moves
                .iter()
                .map(|r| RootMove {
                    mv: f(&r.mv),
                    text: r.text.clone(),
                    value: r.value,
                    score: r.score,
                    bound: r.bound,
                    pv: r.pv.clone(),
                })
                .collect(),
            hashfull: self.hashfull,
            bound: self.bound,
        }
    }
}

/// A progress callback: receives the result of each completed iteration.
pub type Progress<'a, M> = dyn FnMut(&SearchResult<M>) + 'a;

/// How long the next iteration is expected to take, from the times of the completed ones: the
/// last times its growth from the iteration before the last of the same parity (sowing searches
/// alternate cheap and costly depths), clamped to a plausible range.
fn expected_next_iteration(times: &[Duration]) -> Duration {
    let n = times.len();
    let last = match times.last() {
        Some(&t) => t,
        None => return Duration::ZERO,
    };
    let growth = if n >= 3 && !times[n - 3].is_zero() {
        // Two iterations' growth, spread over one.
        (times[n - 1].as_secs_f64() / times[n - 3].as_secs_f64()).sqrt()
    } else if n >= 2 && !times[n - 2].is_zero() {
        times[n - 1].as_secs_f64() / times[n - 2].as_secs_f64()
    } else {
        4.0
    };
    last.mul_f64(growth.clamp(1.5, 8.0))
}

/// A root or interior move waiting to be searched: ordering score, index in the legal-move list,
/// the position it leads to and that position's hash key.
type Scored<P> = (i32, u16, P, u64);

/// The callbacks of one search.
pub struct Hooks<'a, M> {
    /// Called after each completed iteration.
    pub progress: Option<&'a mut Progress<'a, M>>,
    /// The second-level table.
    pub shared: Option<&'a mut dyn SharedTable>,
}

impl<M> Default for Hooks<'_, M> {
    fn default() -> Self {
        Hooks { progress: None, shared: None }
    }
}

struct RootEntry<G: Game> {
    mv: G::Move,
    index: u16,
    child: G::Position,
    value: Value,
    bound: Bound,
    pv: Vec<G::Move>,
    /// What the current iteration's completed searches of this move proved: its value at this
    /// depth is at least `lower` and at most `upper`.
    lower: Value,
    upper: Value,
}

/// A searcher: the game, the options and the tables, reusable for several searches of one game
/// (the table and history carry over).
pub struct Searcher<G: Evaluate> {
    game: G,
    options: SearchOptions,
    tt: Arc<TranspositionTable>,
    /// An auxiliary thread of a parallel search (its entries are marked, its result unused), and
    /// which one (its root moves are rotated by this much).
    auxiliary: usize,
    /// The depth the main thread of a parallel search is searching: auxiliary threads keep one
    /// iteration ahead of it, so the entries the main thread's next iteration needs are being
    /// made while it finishes this one.
    main_depth: Option<Arc<AtomicU32>>,
    ordering: Ordering<G>,
    /// The evaluator of `options.eval` (rebuilt when a search starts with another style).
    evaluator: G::Evaluator,
    evaluator_style: EvalStyle,
    // Per-search state.
    nodes: u64,
    seldepth: u32,
    start: Instant,
    stopped: bool,
    can_stop: bool,
    /// Soft and hard time limits of this search (see [`Limits::time_budget`]).
    budget: Option<(Duration, Duration)>,
    /// Time each completed iteration took, by depth.
    iteration_times: Vec<Duration>,
    path: Path,
    pv: Vec<Vec<G::Move>>,
    scratch: Vec<Vec<Scored<G::Position>>>,
    tried: Vec<Vec<G::Move>>,
    max_turns: u32,
    steps_per_turn: u32,
}

impl<G: Evaluate> Searcher<G> {
    /// A searcher with a fresh table of `options.hash_mb` MB.
    pub fn new(game: G, options: SearchOptions) -> Self {
        let tt = TranspositionTable::new(options.hash_mb);
        Self::with_table(game, options, tt)
    }

    /// A searcher over a table the caller keeps between searches (a worker process searching
    /// the same subtrees one depth deeper each time); `options.hash_mb` is then ignored.
    pub fn with_table(game: G, options: SearchOptions, tt: TranspositionTable) -> Self {
        Self::sharing(game, options, Arc::new(tt))
    }

    fn sharing(game: G, options: SearchOptions, tt: Arc<TranspositionTable>) -> Self {
        let max_turns = game.variant().max_turns();
        let steps_per_turn = game.max_steps_per_turn();
        Searcher {
            tt,
            auxiliary: 0,
            main_depth: None,
            ordering: Ordering::new(),
            evaluator: game.evaluator(&options.eval),
            evaluator_style: options.eval,
            options,
            nodes: 0,
            seldepth: 0,
            start: Instant::now(),
            stopped: false,
            can_stop: false,
            budget: None,
            iteration_times: Vec::new(),
            path: Path::new(),
            pv: (0..=MAX_PLY).map(|_| Vec::with_capacity(MAX_PLY)).collect(),
            scratch: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            tried: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            max_turns,
            steps_per_turn,
            game,
        }
    }

    /// Gives the table back (see [`Searcher::with_table`]).
    pub fn into_table(self) -> TranspositionTable {
        // Auxiliary threads hold the table only while a search runs.
        Arc::try_unwrap(self.tt).unwrap_or_else(|_| unreachable!("an auxiliary thread outlived its search"))
    }

    /// The options, to change limits between searches.
    pub fn options_mut(&mut self) -> &mut SearchOptions {
        &mut self.options
    }

    /// Searches `root`. `history` holds the [`Game::hash_key`]s of the game's earlier positions
    /// (oldest first) so repetitions of them count as endless cycles.
    pub fn search(
        &mut self,
        root: &G::Position,
        history: &[u64],
        hooks: Hooks<'_, G::Move>,
    ) -> SearchResult<G::Move> {
        if self.options.new_generation {
            self.tt.new_search();
        }
        let auxiliaries = self.options.threads.max(1) - 1;
        if auxiliaries == 0 || !self.tt.enabled() || self.options.window.is_some() {
            return self.search_thread(root, history, hooks);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let options = SearchOptions {
            // Auxiliary threads deepen as far as the main thread may, and stop when it ends.
            limits: Limits { depth: self.options.limits.depth, ..Limits::default() },
            multipv: 1,
            stop: Some(stop.clone()),
            // Aspiration windows as the main thread's: a full-width root window makes an
            // auxiliary thread slower than the main one, and its entries arrive too late.
            window: None,
            new_generation: false,
            iteration_windows: Vec::new(),
            resume: false,
            threads: 1,
            ..self.options.clone()
        };
        let main_depth = Arc::new(AtomicU32::new(0));
        self.main_depth = Some(main_depth.clone());
        let auxiliary_nodes = AtomicU64::new(0);
        let mut result = std::thread::scope(|scope| {
            for i in 1..=auxiliaries {
                let mut h = Searcher::sharing(self.game.clone(), options.clone(), self.tt.clone());
                h.auxiliary = i;
                h.main_depth = Some(main_depth.clone());
                let (stop, nodes) = (&stop, &auxiliary_nodes);
                scope.spawn(move || {
                    h.search_thread(root, history, Hooks::default());
                    nodes.fetch_add(h.nodes, AtomicOrdering::Relaxed);
                    // One that solved the root leaves the others to the main thread's end.
                    let _ = stop;
                });
            }
            let r = self.search_thread(root, history, hooks);
            stop.store(true, AtomicOrdering::Relaxed);
            r
        });
        self.main_depth = None;
        result.nodes += auxiliary_nodes.load(AtomicOrdering::Relaxed);
        result
    }

    /// One thread's search: the main thread's, or an auxiliary thread's (see
    /// [`SearchOptions::threads`]).
    fn search_thread(
        &mut self,
        root: &G::Position,
        history: &[u64],
        mut hooks: Hooks<'_, G::Move>,
    ) -> SearchResult<G::Move> {
        self.start = Instant::now();
        if self.evaluator_style != self.options.eval {
            self.evaluator = self.game.evaluator(&self.options.eval);
            self.evaluator_style = self.options.eval;
        }
        self.nodes = 0;
        self.seldepth = 0;
        self.stopped = false;
        self.budget = self.options.limits.time_budget();
        self.iteration_times.clear();
        self.ordering.age();
        self.path.clear();
        for &k in history {
            self.path.push(k);
        }
        let g = self.game.clone();
        let side = g.side_to_move(root);

        let mut moves = MoveList::new();
        g.legal_moves(root, &mut moves);
        if moves.is_empty() {
            let value = match g.outcome(root) {
                Some(o) => outcome_value(&o, side, 0),
                None => self.static_eval(root),
            };
            return self.result(root, value, 0, Vec::new());
        }
        let mut root_moves: Vec<RootEntry<G>> = moves
            .iter()
            .enumerate()
            .map(|(i, &mv)| RootEntry {
                mv,
                index: i as u16,
                child: g.play_unchecked(root, mv),
                value: -INFINITE,
                bound: Bound::Upper,
                pv: vec![mv],
                lower: -INFINITE,
                upper: INFINITE,
            })
            .collect();
        let multipv =
            if self.options.window.is_some() { 1 } else { self.options.multipv.clamp(1, root_moves.len()) };
        let max_depth = self.options.limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let shared_positions =
            hooks.shared.as_ref().map(|s| top_positions(&g, root, s.plies())).unwrap_or_default();
        let mut exchanged: std::collections::HashMap<u64, u32> = Default::default();
        let mut completed: Option<SearchResult<G::Move>> = None;
        // Values of the last two iterations: sowing scores swing between odd and even depths, so
        // the aspiration window centres on the last iteration of the same parity.
        let mut prev_values = [0; 2];

        let mut depth = 1;
        if self.options.resume {
            if let Some((resumed, value)) = self.resume_depth(root, &mut root_moves, max_depth) {
                depth = resumed;
                // The aspiration window (without a window of its own) centres on the table's value.
                prev_values = [value.unwrap_or(0); 2];
            }
        }
        while depth <= max_depth {
            if let Some(main_depth) = &self.main_depth {
                if self.auxiliary == 0 {
                    main_depth.store(depth, AtomicOrdering::Relaxed);
                } else {
                    depth = depth.max((main_depth.load(AtomicOrdering::Relaxed) + 1).min(max_depth));
                }
            }
            // Depth 1 always completes; a resumed first iteration may stop (see below).
            self.can_stop = depth > 1;
            let iteration_start = self.start.elapsed();
            for rm in root_moves.iter_mut() {
                rm.lower = -INFINITE;
                rm.upper = INFINITE;
            }
            if let Some(shared) = hooks.shared.as_deref_mut() {
                if depth >= shared.min_depth() {
                    self.fetch_shared(shared, &shared_positions, depth, &mut exchanged);
                }
            }
            let window = self.options.window.map(|w| {
                let early = self.options.iteration_windows.iter().find(|e| e.0 == depth && depth < max_depth);
                early.map_or(w, |e| (e.1, e.2))
            });
            let value = if let Some((alpha, beta)) = window {
                self.root_pass(root, &mut root_moves, depth, alpha, beta, 1)
            } else if multipv == 1 && self.options.aspiration && depth >= 4 {
                self.aspiration(root, &mut root_moves, depth, prev_values[depth as usize % 2])
            } else {
                self.root_pass(root, &mut root_moves, depth, -INFINITE, INFINITE, multipv)
            };
            if self.stopped {
                if completed.is_none() {
                    // A resumed search stopped in its first iteration: depth 1 gives it a result
                    // (incomplete: the caller sees its depth).
                    self.stopped = false;
                    depth = 1;
                    continue;
                }
                if multipv == 1 && window.is_none() {
                    if let Some(result) = completed.as_mut() {
                        self.proven_better(root, &root_moves, result);
                    }
                }
                break;
            }
            self.iteration_times.push(self.start.elapsed().saturating_sub(iteration_start));
            if self.auxiliary > 0 {
                // Auxiliary threads start each iteration on other root moves than the main one.
                let k = self.auxiliary % root_moves.len();
                root_moves.rotate_left(k);
            }
            prev_values[depth as usize % 2] = value;
            let mut result = self.result_from(root, &root_moves, depth);
            if let Some((alpha, beta)) = window {
                result.value = value;
                result.score = Score::from_value(value);
                result.bound = window_bound(value, alpha, beta);
            }
            if let Some(progress) = hooks.progress.as_deref_mut() {
                progress(&result);
            }
            if let Some(shared) = hooks.shared.as_deref_mut() {
                if depth >= shared.min_depth() {
                    self.publish_shared(shared, &shared_positions, &mut exchanged);
                }
            }
            // Solved when the best move wins by force, or when every move's value is final: exact,
            // or an upper bound that is already a forced loss (it can only lose faster), as the
            // moves outside the multi-PV count are when the best one loses.
            let solved = root_moves.iter().take(multipv).all(|r| is_proven(r.value))
                && (root_moves[0].value >= WIN_BOUND
                    || root_moves.iter().all(|r| r.bound == Bound::Exact || r.value <= -WIN_BOUND));
            completed = Some(result);
            let solved = solved && self.options.window.is_none();
            if solved || self.out_of_time_for_next_iteration() {
                break;
            }
            depth += 1;
        }
        let mut result = completed.expect("depth 1 always completes");
        result.nodes = self.nodes;
        result.elapsed = self.start.elapsed();
        result
    }

    /// The first iteration of a resumed search: one past the depth the table holds the root
    /// searched to (at most `max_depth`), the table's best move put first, and the table's value
    /// when exact; None without an entry.
    fn resume_depth(
        &self,
        root: &G::Position,
        root_moves: &mut [RootEntry<G>],
        max_depth: u32,
    ) -> Option<(u32, Option<Value>)> {
        let e = self.tt.probe(self.game.hash_key(root))?;
        if let Some(i) = root_moves.iter().position(|r| r.index == e.best) {
            root_moves[..=i].rotate_right(1);
        }
        let value = (e.bound == Bound::Exact).then(|| from_table(e.value, 0));
        Some(((e.depth as u32 + 1).clamp(1, max_depth), value))
    }

    fn aspiration(
        &mut self,
        root: &G::Position,
        root_moves: &mut [RootEntry<G>],
        depth: u32,
        prev: Value,
    ) -> Value {
        if is_proven(prev) {
            return self.root_pass(root, root_moves, depth, -INFINITE, INFINITE, 1);
        }
        let mut delta = 50;
        let mut alpha = (prev - delta).max(-INFINITE);
        let mut beta = (prev + delta).min(INFINITE);
        loop {
            let v = self.root_pass(root, root_moves, depth, alpha, beta, 1);
            if self.stopped {
                return v;
            }
            if v <= alpha && alpha > -INFINITE {
                alpha = if delta > 800 { -INFINITE } else { (v - delta).max(-INFINITE) };
            } else if v >= beta && beta < INFINITE {
                beta = if delta > 800 { INFINITE } else { (v + delta).min(INFINITE) };
            } else {
                return v;
            }
            delta *= 3;
        }
    }

    /// One pass over the root moves with window (alpha, beta); the first `multipv` moves get exact
    /// scores. Sorts the root moves best first.
    fn root_pass(
        &mut self,
        root: &G::Position,
        root_moves: &mut [RootEntry<G>],
        depth: u32,
        alpha: Value,
        beta: Value,
        multipv: usize,
    ) -> Value {
        let g = self.game.clone();
        let side = g.side_to_move(root);
        let root_key = g.hash_key(root);
        self.path.push(root_key);
        let mut best = -INFINITE;
        let mut alpha = alpha;
        let mut exact: Vec<Value> = Vec::with_capacity(multipv);
        let mut cut = false;
        for rm in root_moves.iter_mut() {
            if cut {
                rm.bound = Bound::Upper;
                if self.options.window.is_some() {
                    // Not searched at this depth: its old value must not outrank the cut.
                    rm.value = -INFINITE;
                }
                continue;
            }
            // With several lines the threshold is the multipv-th best exact score so far.
            let floor = if multipv > 1 {
                if exact.len() >= multipv {
                    exact[multipv - 1]
                } else {
                    -INFINITE
                }
            } else {
                alpha
            };
            let child = rm.child;
            let key = g.hash_key(&child);
            let same_side = g.side_to_move(&child) == side;
            let full = |s: &mut Self, a: Value, b: Value| {
                s.child_value(&child, key, same_side, depth - 1, 1, a, b, true)
            };
            let v = if floor == -INFINITE || best == -INFINITE {
                full(self, floor, beta)
            } else {
                let v = self.child_value(&child, key, same_side, depth - 1, 1, floor, floor + 1, false);
                if !self.stopped && v > floor {
                    rm.lower = rm.lower.max(v);
                }
                if v > floor && v < beta && !self.stopped {
                    full(self, floor, beta)
                } else {
                    v
                }
            };
            if self.stopped {
                break;
            }
            if v > floor {
                rm.lower = rm.lower.max(v);
            }
            if v < beta {
                rm.upper = rm.upper.min(v);
            }
            rm.value = v;
            rm.bound = if v <= floor {
                Bound::Upper
            } else if v >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            if rm.bound == Bound::Exact {
                rm.pv.clear();
                rm.pv.push(rm.mv);
                rm.pv.extend_from_slice(&self.pv[1]);
                exact.push(v);
                exact.sort_unstable_by(|a, b| b.cmp(a));
            } else {
                rm.pv.truncate(1);
            }
            if v > best {
                best = v;
            }
            if v > alpha {
                alpha = v;
            }
            if multipv == 1 && alpha >= beta {
                cut = true;
            }
        }
        self.path.pop();
        if !self.stopped {
            // Best first; among equal values exact scores before bounds, then the earlier move.
            root_moves.sort_by(|a, b| {
                b.value.cmp(&a.value).then((b.bound == Bound::Exact).cmp(&(a.bound == Bound::Exact)))
            });
            let b = &root_moves[0];
            let bound = if best <= -INFINITE { Bound::Upper } else { b.bound };
            if !self.near_turn_limit(root, depth) {
                self.tt.store_by(
                    root_key,
                    to_table(best, 0),
                    depth as u8,
                    bound,
                    b.index,
                    self.auxiliary > 0,
                );
            }
        }
        best
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn child_value(
        &mut self,
        child: &G::Position,
        key: u64,
        same_side: bool,
        depth: u32,
        ply: usize,
        alpha: Value,
        beta: Value,
        pv_node: bool,
    ) -> Value {
        // A step that leaves the turn open is not a ply: every turn is searched to its end, and
        // depth counts turns as the boundary's moves do.
        let depth = if self.game.mid_turn(child) { depth + 1 } else { depth };
        if same_side {
            self.node(child, key, depth, ply, alpha, beta, pv_node)
        } else {
            -self.node(child, key, depth, ply, -beta, -alpha, pv_node)
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn node(
        &mut self,
        pos: &G::Position,
        key: u64,
        depth: u32,
        ply: usize,
        mut alpha: Value,
        beta: Value,
        pv_node: bool,
    ) -> Value {
        self.pv[ply].clear();
        if !self.enter(ply) {
            return 0;
        }
        let g = &self.game;
        let side = g.side_to_move(pos);
        if self.repeats(key) {
            return outcome_value(&g.endless_outcome(pos), side, ply);
        }
        if let Some(db) = &self.options.egdb {
            if let Some(winner) = g.exact_winner(db, pos) {
                return winner_value(winner, side, ply);
            }
        }
        let mut moves = MoveList::new();
        g.legal_moves(pos, &mut moves);
        if moves.is_empty() {
            return match g.outcome(pos) {
                Some(o) => outcome_value(&o, side, ply),
                None => self.static_eval(pos),
            };
        }
        if depth == 0 || ply >= MAX_PLY {
            return self.static_eval(pos);
        }
        if depth == 1 {
            return self.frontier(pos, key, side, &moves, ply, alpha, beta, pv_node);
        }

        let use_table = depth >= TABLE_MIN_DEPTH && !self.near_turn_limit(pos, depth);
        let mut tt_move = NO_MOVE;
        if use_table {
            if let Some(e) = self.tt.probe(key) {
                tt_move = e.best;
                // A full-width search takes a value only at exactly the depth needed: a deeper one
                // (kept from an earlier search, fetched from the shared table, or a transposition
                // searched deeper) would make the value depend on what the table held before. Its
                // move still orders. With reductions (play) a deeper value answers too, except an
                // auxiliary thread's to the main thread (SearchOptions::threads).
                let deep_enough = e.depth as u32 == depth
                    || (self.options.reductions
                        && e.depth as u32 > depth
                        && (!e.auxiliary || self.auxiliary > 0));
                if !pv_node && deep_enough {
                    let v = from_table(e.value, ply as u32);
                    let cut = match e.bound {
                        Bound::Exact => true,
                        Bound::Lower => v >= beta,
                        Bound::Upper => v <= alpha,
                    };
                    if cut {
                        return v;
                    }
                }
            }
        }

        let orig_alpha = alpha;
        let mut best = -INFINITE;
        let mut best_index = NO_MOVE;
        self.path.push(key);
        self.tried[ply].clear();
        let mut searched = 0usize;

        // Stage 1: the table move, before the others are played.
        if (tt_move as usize) < moves.len() {
            let mv = moves[tt_move as usize];
            let child = self.game.play_unchecked(pos, mv);
            let child_key = self.game.hash_key(&child);
            let same = self.game.side_to_move(&child) == side;
            let v = self.child_value(&child, child_key, same, depth - 1, ply + 1, alpha, beta, pv_node);
            searched += 1;
            if self.stopped {
                self.path.pop();
                return 0;
            }
            best = v;
            best_index = tt_move;
            if v > alpha {
                alpha = v;
                if pv_node {
                    self.update_pv(ply, mv);
                }
            }
        }

        // Stage 2: the other moves, played once, scored and searched best first.
        if alpha < beta {
            let material = self.game.evaluate(pos);
            let mut list = std::mem::take(&mut self.scratch[ply]);
            list.clear();
            for (i, &mv) in moves.iter().enumerate() {
                if i == tt_move as usize {
                    continue;
                }
                let child = self.game.play_unchecked(pos, mv);
                let after = self.game.evaluate(&child);
                let mine = if self.game.side_to_move(&child) == side { after } else { -after };
                let order = self.ordering.score(side, ply, mv, 100 * (mine - material));
                // Children that probe the table get their key now, to prefetch their bucket;
                // the others when they are searched (most are not: the first often cuts).
                let child_key = if depth > TABLE_MIN_DEPTH {
                    let k = self.game.hash_key(&child);
                    self.tt.prefetch(k);
                    k
                } else {
                    0
                };
                // i32::MIN marks a move taken (below).
                list.push((order.max(i32::MIN + 1), i as u16, child, child_key));
            }
            // Best first, the earlier move among equals (a stable sort's order), picked as they
            // are searched: a cut after the first leaves the rest unsorted.
            // A move taken is marked with the lowest order, which no move scores.
            for _ in 0..list.len() {
                let mut pick = 0;
                for j in 1..list.len() {
                    if list[j].0 > list[pick].0 {
                        pick = j;
                    }
                }
                let (order, i, child, ck) = list[pick];
                list[pick].0 = i32::MIN;
                let ck = if depth > TABLE_MIN_DEPTH { ck } else { self.game.hash_key(&child) };
                let mv = moves[i as usize];
                let same = self.game.side_to_move(&child) == side;
                let d = depth - 1;
                let v = if searched == 0 {
                    self.child_value(&child, ck, same, d, ply + 1, alpha, beta, pv_node)
                } else {
                    let r = self.reduction(depth, searched, order, pv_node);
                    // A reduced move that beats alpha is searched again at the full depth.
                    let mut v = alpha + 1;
                    if r > 0 {
                        v = self.child_value(&child, ck, same, d - r, ply + 1, alpha, alpha + 1, false);
                    }
                    if v > alpha && !self.stopped {
                        v = self.child_value(&child, ck, same, d, ply + 1, alpha, alpha + 1, false);
                    }
                    if pv_node && v > alpha && v < beta && !self.stopped {
                        self.child_value(&child, ck, same, d, ply + 1, alpha, beta, true)
                    } else {
                        v
                    }
                };
                searched += 1;
                if self.stopped {
                    break;
                }
                if v > best {
                    best = v;
                    best_index = i;
                }
                if v > alpha {
                    alpha = v;
                    if pv_node {
                        self.update_pv(ply, mv);
                    }
                    if alpha >= beta {
                        let capture = self.is_capture(pos, &child, side);
                        if !capture {
                            let tried = std::mem::take(&mut self.tried[ply]);
                            self.ordering.record_cut(side, ply, depth, mv, &tried);
                            self.tried[ply] = tried;
                        }
                        break;
                    }
                }
                self.tried[ply].push(mv);
            }
            self.scratch[ply] = list;
        }
        self.path.pop();
        if self.stopped {
            return 0;
        }
        if use_table {
            let bound = if best <= orig_alpha {
                Bound::Upper
            } else if best >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            self.tt.store_by(
                key,
                to_table(best, ply as u32),
                depth.min(255) as u8,
                bound,
                best_index,
                self.auxiliary > 0,
            );
        }
        best
    }

    /// The turns a move of a node `depth` turns from the leaves is first searched with less: the
    /// `searched`-th move tried there, with ordering score `order` (see the reduction constants).
    #[inline]
    fn reduction(&self, depth: u32, searched: usize, order: i32, pv_node: bool) -> u32 {
        if !self.options.reductions
            || depth < REDUCTION_MIN_DEPTH
            || searched < REDUCTION_AFTER_MOVES
            || !Ordering::<G>::is_quiet(order)
        {
            0
        } else if depth >= REDUCTION_DEEP_DEPTH && searched >= REDUCTION_DEEP_AFTER_MOVES && !pv_node {
            2
        } else {
            1
        }
    }

    /// A node one turn above the leaves: its children are evaluated as they are played, with no
    /// ordering (a leaf costs about what scoring it for the order would), until one fails high.
    /// Each child is counted and scored exactly as [`Self::node`] scores a leaf.
    #[allow(clippy::too_many_arguments)]
    fn frontier(
        &mut self,
        pos: &G::Position,
        key: u64,
        side: Player,
        moves: &MoveList<G::Move>,
        ply: usize,
        mut alpha: Value,
        beta: Value,
        pv_node: bool,
    ) -> Value {
        let mut best = -INFINITE;
        self.path.push(key);
        for &mv in moves.iter() {
            let child = self.game.play_unchecked(pos, mv);
            let child_key = self.game.hash_key(&child);
            let same = self.game.side_to_move(&child) == side;
            let v = if self.game.mid_turn(&child) {
                self.child_value(&child, child_key, same, 0, ply + 1, alpha, beta, pv_node)
            } else {
                if pv_node {
                    self.pv[ply + 1].clear();
                }
                let v = self.leaf(&child, child_key, ply + 1);
                if same {
                    v
                } else {
                    -v
                }
            };
            if self.stopped {
                break;
            }
            if v > best {
                best = v;
            }
            if v > alpha {
                alpha = v;
                if pv_node {
                    self.update_pv(ply, mv);
                }
                if alpha >= beta {
                    break;
                }
            }
        }
        self.path.pop();
        if self.stopped {
            return 0;
        }
        best
    }

    /// Counts a node `ply` turns below the root and checks the stop: false when the search must
    /// unwind (stopped), true to go on (the deepest ply reached is recorded).
    #[inline]
    fn enter(&mut self, ply: usize) -> bool {
        self.nodes += 1;
        if self.can_stop && self.should_stop() {
            self.stopped = true;
        }
        if self.stopped {
            return false;
        }
        if ply as u32 > self.seldepth {
            self.seldepth = ply as u32;
        }
        true
    }

    /// A node with no depth left, scored as [`Self::node`] scores it.
    #[inline]
    fn leaf(&mut self, pos: &G::Position, key: u64, ply: usize) -> Value {
        if !self.enter(ply) {
            return 0;
        }
        let g = &self.game;
        if self.repeats(key) {
            return outcome_value(&g.endless_outcome(pos), g.side_to_move(pos), ply);
        }
        if let Some(db) = &self.options.egdb {
            if let Some(winner) = g.exact_winner(db, pos) {
                return winner_value(winner, g.side_to_move(pos), ply);
            }
        }
        if !g.has_legal_move(pos) {
            if let Some(o) = g.outcome(pos) {
                return outcome_value(&o, g.side_to_move(pos), ply);
            }
        }
        self.static_eval(pos)
    }

    fn is_capture(&self, pos: &G::Position, child: &G::Position, side: Player) -> bool {
        let after = self.game.evaluate(child);
        let mine = if self.game.side_to_move(child) == side { after } else { -after };
        mine > self.game.evaluate(pos)
    }

    #[inline]
    fn update_pv(&mut self, ply: usize, mv: G::Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(mv);
        line.extend_from_slice(&tail[0]);
    }

    #[inline]
    fn repeats(&self, key: u64) -> bool {
        self.path.contains(key)
    }

    #[inline]
    fn static_eval(&self, pos: &G::Position) -> Value {
        self.game.evaluate_with(&self.evaluator, pos).clamp(-WIN_BOUND + 1, WIN_BOUND - 1)
    }

    #[inline]
    fn near_turn_limit(&self, pos: &G::Position, depth: u32) -> bool {
        near_turn_limit(self.game.turns(pos), depth, self.max_turns, self.steps_per_turn)
    }

    #[inline]
    fn should_stop(&self) -> bool {
        let limits = &self.options.limits;
        if limits.nodes.is_some_and(|n| self.nodes >= n) {
            return true;
        }
        if self.nodes & 1023 == 0 {
            if self.options.stop.as_ref().is_some_and(|s| s.load(AtomicOrdering::Relaxed)) {
                return true;
            }
            if self.budget.is_some_and(|(_, hard)| self.start.elapsed() >= hard) {
                return true;
            }
        }
        false
    }

    fn out_of_time_for_next_iteration(&self) -> bool {
        if self.options.stop.as_ref().is_some_and(|s| s.load(AtomicOrdering::Relaxed)) {
            return true;
        }
        let Some((soft, hard)) = self.budget else {
            return false;
        };
        let elapsed = self.start.elapsed();
        if self.options.limits.clock.is_none() {
            // A time for this move only: what is not used is lost, and a stopped iteration still
            // gives its move, so the search runs until the time is up.
            return elapsed >= hard;
        }
        elapsed + expected_next_iteration(&self.iteration_times).mul_f64(NEXT_ITERATION_SHARE) >= soft
    }

    /// After a stop inside an iteration: when the iteration's completed searches proved a root
    /// move better at the new depth than the last completed iteration's best, `result` plays it
    /// (its value is what the search proved: a lower bound, or exact). Otherwise `result` stays.
    fn proven_better(
        &self,
        root: &G::Position,
        root_moves: &[RootEntry<G>],
        result: &mut SearchResult<G::Move>,
    ) {
        let Some(best) = result.best else { return };
        let Some(old) = root_moves.iter().find(|r| r.mv == best) else { return };
        let Some(better) = root_moves
            .iter()
            .filter(|r| r.mv != best && r.lower > old.upper && r.lower > -INFINITE)
            .max_by_key(|r| r.lower)
        else {
            return;
        };
        let exact = better.lower == better.upper;
        let Some(i) = result.moves.iter().position(|r| r.mv == better.mv) else { return };
        let mut entry = result.moves.remove(i);
        let pv =
            if exact && better.pv.first() == Some(&better.mv) { better.pv.clone() } else { vec![better.mv] };
        let g = &self.game;
        let mut pos = *root;
        let mut text = Vec::with_capacity(pv.len());
        for &m in &pv {
            text.push(g.format_move(&pos, m));
            pos = g.play_unchecked(&pos, m);
        }
        entry.value = better.lower;
        entry.score = Score::from_value(better.lower);
        entry.bound = if exact { Bound::Exact } else { Bound::Lower };
        entry.pv = text.clone();
        result.moves.insert(0, entry);
        result.best = Some(better.mv);
        result.value = better.lower;
        result.score = Score::from_value(better.lower);
        result.pv = pv;
        result.pv_text = text;
    }

    fn result_from(
        &self,
        root: &G::Position,
        root_moves: &[RootEntry<G>],
        depth: u32,
    ) -> SearchResult<G::Move> {
        let g = &self.game;
        let line_text = |pv: &[G::Move]| {
            let mut pos = *root;
            let mut out = Vec::with_capacity(pv.len());
            for &m in pv {
                out.push(g.format_move(&pos, m));
                pos = g.play_unchecked(&pos, m);
            }
            out
        };
        let best = &root_moves[0];
        SearchResult {
            best: Some(best.mv),
            value: best.value,
            score: Score::from_value(best.value),
            pv: best.pv.clone(),
            pv_text: line_text(&best.pv),
            depth,
            seldepth: self.seldepth,
            nodes: self.nodes,
            elapsed: self.start.elapsed(),
            moves: root_moves
                .iter()
                .map(|r| RootMove {
                    mv: r.mv,
                    text: g.format_move(root, r.mv),
                    value: r.value,
                    score: Score::from_value(r.value),
                    bound: r.bound,
                    pv: line_text(&r.pv),
                })
                .collect(),
            hashfull: self.tt.fill_permille(),
            bound: Bound::Exact,
        }
    }

    fn result(
        &self,
        _root: &G::Position,
        value: Value,
        depth: u32,
        pv: Vec<G::Move>,
    ) -> SearchResult<G::Move> {
        SearchResult {
            best: None,
            value,
            score: Score::from_value(value),
            pv,
            pv_text: Vec::new(),
            depth,
            seldepth: 0,
            nodes: self.nodes,
            elapsed: self.start.elapsed(),
            moves: Vec::new(),
            hashfull: 0,
            bound: Bound::Exact,
        }
    }

    fn fetch_shared(
        &mut self,
        shared: &mut dyn SharedTable,
        positions: &[TopPosition],
        depth: u32,
        exchanged: &mut std::collections::HashMap<u64, u32>,
    ) {
        let min = shared.min_depth();
        let requests: Vec<SharedRequest> = positions
            .iter()
            .filter(|p| depth.saturating_sub(p.ply) >= min)
            .filter(|p| exchanged.get(&p.hash).is_none_or(|&d| d < depth - p.ply))
            .map(|p| SharedRequest { key: p.key.clone(), depth: depth - p.ply })
            .collect();
        if requests.is_empty() {
            return;
        }
        for e in shared.fetch(&requests) {
            let Some(p) = positions.iter().find(|p| p.key == e.key) else {
                continue;
            };
            // The entry at the depth this search needs is the one whose value it can use; a
            // deeper one only orders, and does not displace the needed depth's.
            let need = depth - p.ply;
            let known = self.tt.probe(p.hash).map_or(0, |t| t.depth as u32);
            if known != need && (e.depth == need || e.depth > known) {
                self.tt.store(p.hash, e.value, e.depth.min(255) as u8, e.bound, e.best.unwrap_or(NO_MOVE));
            }
            let d = exchanged.entry(p.hash).or_insert(0);
            *d = (*d).max(e.depth);
        }
    }

    fn publish_shared(
        &mut self,
        shared: &mut dyn SharedTable,
        positions: &[TopPosition],
        exchanged: &mut std::collections::HashMap<u64, u32>,
    ) {
        let min = shared.min_depth();
        let mut out = Vec::new();
        for p in positions {
            let Some(e) = self.tt.probe(p.hash) else {
                continue;
            };
            let d = e.depth as u32;
            if d >= min && exchanged.get(&p.hash).is_none_or(|&old| old < d) {
                exchanged.insert(p.hash, d);
                out.push(SharedEntry {
                    key: p.key.clone(),
                    depth: d,
                    bound: e.bound,
                    value: e.value,
                    best: (e.best != NO_MOVE).then_some(e.best),
                });
            }
        }
        if !out.is_empty() {
            shared.publish(out);
        }
    }
}

/// The keys of the positions on the search path (and the game history before the root), for
/// the repetition check every node makes. A count per filter slot (slot = top bits of the key)
/// says when no key on the path can match, so nearly every check is one load instead of a scan
/// of the whole path.
struct Path {
    keys: Vec<u64>,
    counts: Box<[u32; PATH_FILTER]>,
}

/// Slots of the path's filter (a power of two).
const PATH_FILTER: usize = 1024;

impl Path {
    fn new() -> Path {
        Path { keys: Vec::with_capacity(MAX_PLY + 64), counts: Box::new([0; PATH_FILTER]) }
    }

    #[inline(always)]
    fn slot(key: u64) -> usize {
        (key >> (64 - PATH_FILTER.trailing_zeros())) as usize
    }

    fn clear(&mut self) {
        self.keys.clear();
        self.counts.fill(0);
    }

    #[inline]
    fn push(&mut self, key: u64) {
        self.keys.push(key);
        let c = &mut self.counts[Self::slot(key)];
        *c += 1;
    }

    #[inline]
    fn pop(&mut self) {
        if let Some(key) = self.keys.pop() {
            let c = &mut self.counts[Self::slot(key)];
            *c -= 1;
        }
    }

    /// Whether `key` is on the path.
    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.counts[Self::slot(key)] != 0 && self.keys.iter().rev().any(|&k| k == key)
    }
}

/// A position near the root exchanged with the second-level table.
struct TopPosition {
    ply: u32,
    hash: u64,
    key: Vec<u8>,
}

fn top_positions<G: Game>(g: &G, root: &G::Position, plies: u32) -> Vec<TopPosition> {
    let mut out: Vec<TopPosition> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut frontier = vec![*root];
    for ply in 0..=plies {
        let mut next = Vec::new();
        for pos in &frontier {
            let hash = g.hash_key(pos);
            if !seen.insert(hash) {
                continue;
            }
            let mut key = Vec::new();
            g.write_key(pos, &mut key);
            out.push(TopPosition { ply, hash, key });
            if ply < plies {
                let mut moves = MoveList::new();
                g.legal_moves(pos, &mut moves);
                next.extend(moves.iter().map(|&m| g.play_unchecked(pos, m)));
            }
        }
        frontier = next;
        if out.len() > 4096 {
            break;
        }
    }
    out
}

/// What a fail-soft `value` found with window `(alpha, beta)` says about the true value.
pub fn window_bound(value: Value, alpha: Value, beta: Value) -> Bound {
    if value <= alpha {
        Bound::Upper
    } else if value >= beta {
        Bound::Lower
    } else {
        Bound::Exact
    }
}

/// The value of a finished game for `side`, `ply` turns below the root.
pub fn outcome_value(o: &Outcome, side: Player, ply: usize) -> Value {
    winner_value(o.winner, side, ply)
}

/// The value of a game won by `winner` (`None`: drawn) for `side`, `ply` turns below the root. A
/// database result counts as reached at its node: the number of turns to the end is not stored.
pub fn winner_value(winner: Option<Player>, side: Player, ply: usize) -> Value {
    match winner {
        Some(w) if w == side => win_in(ply as u32),
        Some(_) => loss_in(ply as u32),
        None => 0,
    }
}
