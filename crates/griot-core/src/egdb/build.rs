//! Solving one level, and building a rule set's levels in order with resumption: a level whose
//! file is present and checks out is kept, not rebuilt.

use std::path::Path;
use std::time::Instant;

use super::expand::{check_level, Expanded, Expander, Lower, NO_EXIT};
use super::file::{encode, LevelFile};
use super::{level_key, level_path, qualifies, EgdbError};
use crate::sowing::SowingGame;

/// Most positions a level may have to be solved in memory (about 40 bytes a position).
const MAX_LEVEL_POSITIONS: u64 = 400_000_000;

/// What a build reports as it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildEvent {
    /// A level's file was present and whole: kept.
    Kept {
        /// Seeds on the board.
        seeds: u32,
        /// Positions.
        positions: u64,
    },
    /// A level is being solved.
    Started {
        /// Seeds on the board.
        seeds: u32,
        /// Positions.
        positions: u64,
    },
    /// Positions of the level expanded so far (its moves generated and played).
    Expanded {
        /// Seeds on the board.
        seeds: u32,
        /// Positions done.
        done: u64,
    },
    /// A level was solved and written.
    Written(LevelStats),
}

/// Figures of one solved level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelStats {
    /// Seeds on the board.
    pub seeds: u32,
    /// Positions.
    pub positions: u64,
    /// Value-iteration passes until both bounds were stable.
    pub passes: u32,
    /// Positions whose value is the cycle's share (the bounds differ).
    pub cycle_valued: u64,
    /// Wall time to solve, in milliseconds.
    pub millis: u64,
    /// Size of the file, in bytes.
    pub file_bytes: u64,
}

/// A level solved in memory ([`solve_level`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolvedLevel {
    /// One byte a position as the level file stores it: the side to move's margin and whether a
    /// cycle values it ([`encode`]).
    pub values: Vec<u8>,
    /// The side to move's bounds `(lo, hi)` of the positions valued by a cycle, by index.
    pub cycle_bounds: Vec<(u64, i8, i8)>,
    /// The passes the bounds took.
    pub passes: u32,
}

/// Solves level `seeds` of `game` in memory. `lower` gives the bounds of the positions of lower
/// levels.
pub fn solve_level(
    game: &SowingGame,
    seeds: u32,
    lower: &Lower<'_>,
    progress: &mut dyn FnMut(u64),
) -> Result<SolvedLevel, EgdbError> {
    let key = check_level(game, seeds)?;
    if key.positions > MAX_LEVEL_POSITIONS {
        return Err(EgdbError::TooLarge {
            seeds,
            message: format!(
                "{} positions; at most {MAX_LEVEL_POSITIONS} are solved in memory",
                key.positions
            ),
        });
    }
    let n = key.positions as usize;
    let s = seeds as i16;

    // Expansion: each position's terminal value or its best exit and its moves within the level.
    // Values are South's margin while solving.
    let mut ex = Expander::new(game, seeds, lower);
    let mut terminal = vec![NO_EXIT; n];
    let mut exit = vec![(NO_EXIT, NO_EXIT); n];
    let mut endless = vec![0i16; n];
    let mut offsets: Vec<u32> = Vec::with_capacity(n + 1);
    let mut children: Vec<u32> = Vec::new();
    offsets.push(0);
    for i in 0..n {
        if i % (1 << 16) == 0 {
            progress(i as u64);
        }
        match ex.expand(i as u64, &mut children) {
            Expanded::Terminal(v) => terminal[i] = v,
            Expanded::Inner { exit: e, endless: end } => {
                exit[i] = e;
                endless[i] = end;
            }
        }
        offsets.push(children.len() as u32);
    }
    progress(n as u64);

    // The two fixpoints by value iteration from the extremes, in place (Gauss-Seidel), sweeping
    // forward and backward in turn.
    let bound = |start: i16, upper: bool| -> (Vec<i16>, u32) {
        let mut v: Vec<i16> = terminal.iter().map(|&t| if t == NO_EXIT { start } else { t }).collect();
        let mut passes = 0;
        loop {
            passes += 1;
            let mut changed = false;
            let mut step = |i: usize, v: &mut Vec<i16>| {
                if terminal[i] != NO_EXIT {
                    return;
                }
                let kids = &children[offsets[i] as usize..offsets[i + 1] as usize];
                let e = if upper { exit[i].1 } else { exit[i].0 };
                let best = relax(i, e, kids, |c| v[c]);
                if best != v[i] {
                    v[i] = best;
                    changed = true;
                }
            };
            if passes % 2 == 1 {
                (0..n).for_each(|i| step(i, &mut v));
            } else {
                (0..n).rev().for_each(|i| step(i, &mut v));
            }
            if !changed {
                return (v, passes);
            }
        }
    };
    let (lo, lo_passes) = bound(-s, false);
    let (hi, hi_passes) = bound(s, true);
    let mut cycle_bounds = Vec::new();
    let values: Vec<u8> = (0..n)
        .map(|i| {
            let cycle = terminal[i] == NO_EXIT && lo[i] != hi[i];
            let v = if terminal[i] != NO_EXIT { terminal[i] } else { endless[i].clamp(lo[i], hi[i]) };
            if cycle {
                let (l, h) = super::file::mover_bounds(i as u64, lo[i] as i8, hi[i] as i8);
                cycle_bounds.push((i as u64, l, h));
            }
            encode((if i % 2 == 0 { v } else { -v }) as i8, cycle)
        })
        .collect();
    Ok(SolvedLevel { values, cycle_bounds, passes: lo_passes.max(hi_passes) })
}

/// The best of `exit` and the children's `bound`s for the side to move at index `i`.
fn relax(i: usize, exit: i16, kids: &[u32], bound: impl Fn(usize) -> i16) -> i16 {
    let south = i % 2 == 0;
    let mut best = exit;
    for &c in kids {
        let x = bound(c as usize);
        best = if best == NO_EXIT {
            x
        } else if south {
            best.max(x)
        } else {
            best.min(x)
        };
    }
    best
}

/// One pass of a level solved in chunks (the distributed build): the bounds `(lo, hi)` of
/// positions `start..end`, two signed bytes each, computed from `prev`, the whole level's bounds
/// after the previous pass (`None`: the first pass, which gives the starting extremes). Also
/// whether any of them changed. Passes until no chunk changes give the bounds [`solve_level`]
/// finds: both iterations start from the extremes and converge to the same fixpoints.
pub fn chunk_bounds(
    game: &SowingGame,
    seeds: u32,
    start: u64,
    end: u64,
    lower: &Lower<'_>,
    prev: Option<&[u8]>,
) -> Result<(Vec<u8>, bool), EgdbError> {
    let key = check_level(game, seeds)?;
    if start > end || end > key.positions || prev.is_some_and(|p| p.len() as u64 != 2 * key.positions) {
        return Err(EgdbError::TooLarge {
            seeds,
            message: format!(
                "chunk {start}..{end} or bounds do not fit the level's {} positions",
                key.positions
            ),
        });
    }
    let mut ex = Expander::new(game, seeds, lower);
    let s = seeds as i16;
    let mut out = Vec::with_capacity(2 * (end - start) as usize);
    let mut changed = false;
    let mut kids = Vec::new();
    for i in start..end {
        kids.clear();
        let (lo, hi) = match (ex.expand(i, &mut kids), prev) {
            (Expanded::Terminal(v), _) => (v, v),
            (Expanded::Inner { .. }, None) => (-s, s),
            (Expanded::Inner { exit, .. }, Some(p)) => {
                let lo = relax(i as usize, exit.0, &kids, |c| p[2 * c] as i8 as i16);
                let hi = relax(i as usize, exit.1, &kids, |c| p[2 * c + 1] as i8 as i16);
                (lo, hi)
            }
        };
        if let Some(p) = prev {
            let at = 2 * i as usize;
            changed |= p[at] as i8 as i16 != lo || p[at + 1] as i8 as i16 != hi;
        }
        out.push(lo as i8 as u8);
        out.push(hi as i8 as u8);
    }
    Ok((out, changed))
}

/// The bytes of positions `start..end` ([`encode`]) from the level's final bounds (see
/// [`chunk_bounds`]).
pub fn chunk_values(
    game: &SowingGame,
    seeds: u32,
    start: u64,
    end: u64,
    lower: &Lower<'_>,
    bounds: &[u8],
) -> Result<Vec<u8>, EgdbError> {
    let key = check_level(game, seeds)?;
    if start > end || end > key.positions || bounds.len() as u64 != 2 * key.positions {
        return Err(EgdbError::TooLarge {
            seeds,
            message: format!(
                "chunk {start}..{end} or bounds do not fit the level's {} positions",
                key.positions
            ),
        });
    }
    let mut ex = Expander::new(game, seeds, lower);
    let mut kids = Vec::new();
    Ok((start..end)
        .map(|i| {
            kids.clear();
            let (v, cycle) = match ex.expand(i, &mut kids) {
                Expanded::Terminal(v) => (v, false),
                Expanded::Inner { endless, .. } => {
                    let at = 2 * i as usize;
                    let (lo, hi) = (bounds[at] as i8 as i16, bounds[at + 1] as i8 as i16);
                    (endless.clamp(lo, hi), lo != hi)
                }
            };
            encode((if i % 2 == 0 { v } else { -v }) as i8, cycle)
        })
        .collect())
}

/// How a build in one process runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Threads expanding a level's chunks.
    pub threads: usize,
    /// Positions a chunk of a level's graph holds.
    pub chunk_positions: u64,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            threads: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            chunk_positions: 1 << 22,
        }
    }
}

/// Builds the levels `0..=max_seeds` of `game`'s rule set under `dir`, in increasing seed count;
/// a level whose file is present and checks out is kept. Returns the stats of the levels solved.
pub fn build(
    dir: &Path,
    game: &SowingGame,
    max_seeds: u32,
    events: &mut dyn FnMut(&BuildEvent),
) -> Result<Vec<LevelStats>, EgdbError> {
    build_with(dir, game, max_seeds, &BuildOptions::default(), events)
}

/// [`build`] with its options. Each level is solved in bounded memory ([`super::graph`]): its
/// move graph is expanded chunk by chunk into `<level>.work/` (by `threads` threads), the bounds
/// are iterated in a mapped file, the values are written as they are computed; the work
/// directory is removed once the level's file is in place, and kept by an interrupted build,
/// which goes on from it.
pub fn build_with(
    dir: &Path,
    game: &SowingGame,
    max_seeds: u32,
    options: &BuildOptions,
    events: &mut dyn FnMut(&BuildEvent),
) -> Result<Vec<LevelStats>, EgdbError> {
    qualifies(game)?;
    let level_dir = super::level_dir(dir, game);
    std::fs::create_dir_all(&level_dir)
        .map_err(|e| EgdbError::Io { path: level_dir.clone(), message: e.to_string() })?;
    let mut levels: Vec<LevelFile> = Vec::new();
    let mut stats = Vec::new();
    for seeds in 0..=max_seeds {
        let key = level_key(game, seeds)?;
        let path = level_path(dir, game, seeds);
        if path.exists() {
            levels.push(LevelFile::open(&path, &key)?);
            events(&BuildEvent::Kept { seeds, positions: key.positions });
            continue;
        }
        events(&BuildEvent::Started { seeds, positions: key.positions });
        let start = Instant::now();
        let lower = |s: u32, i: u64| levels[s as usize].bounds(i);
        let (passes, cycle_valued) = solve_level_to_file(game, seeds, &lower, &path, options, events)?;
        let millis = start.elapsed().as_millis() as u64;
        let file = LevelFile::open(&path, &key)?;
        let file_bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        levels.push(file);
        let st = LevelStats { seeds, positions: key.positions, passes, cycle_valued, millis, file_bytes };
        events(&BuildEvent::Written(st.clone()));
        stats.push(st);
    }
    Ok(stats)
}

/// The work directory of the level file `path`.
pub fn work_dir(path: &Path) -> std::path::PathBuf {
    path.with_extension("work")
}

/// Solves level `seeds` in bounded memory and writes its file at `path`. Returns the passes and
/// the count of positions valued by a cycle.
fn solve_level_to_file(
    game: &SowingGame,
    seeds: u32,
    lower: &(dyn Fn(u32, u64) -> (i8, i8) + Sync),
    path: &Path,
    options: &BuildOptions,
    events: &mut dyn FnMut(&BuildEvent),
) -> Result<(u32, u64), EgdbError> {
    use super::graph::{bounds_file, crossed, ChunkGraph, InPlace};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let key = check_level(game, seeds)?;
    let work = work_dir(path);
    std::fs::create_dir_all(&work)
        .map_err(|e| EgdbError::Io { path: work.clone(), message: e.to_string() })?;
    let n = key.positions;
    let size = options.chunk_positions.max(1);
    let cuts: Vec<(u64, u64)> = (0..n.div_ceil(size)).map(|j| (j * size, ((j + 1) * size).min(n))).collect();

    // Expansion, chunk by chunk on `threads` threads; the chunks already on disk are reopened.
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<ChunkGraph, EgdbError>)>();
    let mut slots: Vec<Option<ChunkGraph>> = (0..cuts.len()).map(|_| None).collect();
    let mut failure = None;
    std::thread::scope(|scope| {
        for _ in 0..options.threads.max(1).min(cuts.len().max(1)) {
            let tx = tx.clone();
            let (next, cuts, work) = (&next, &cuts, &work);
            scope.spawn(move || loop {
                let j = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(a, b)) = cuts.get(j) else { break };
                let r = ChunkGraph::load_or_expand(game, seeds, a, b, lower, work);
                let stop = r.is_err();
                if tx.send((j, r)).is_err() || stop {
                    // Nothing more is started once a chunk failed.
                    next.store(cuts.len(), Ordering::Relaxed);
                    break;
                }
            });
        }
        drop(tx);
        let mut done = 0;
        for (j, r) in rx {
            match r {
                Ok(g) => {
                    done += g.range().1 - g.range().0;
                    slots[j] = Some(g);
                    events(&BuildEvent::Expanded { seeds, done });
                }
                Err(e) => failure = failure.take().or(Some(e)),
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let graphs: Vec<ChunkGraph> = slots.into_iter().map(|g| g.expect("every chunk reported")).collect();

    // The two bounds, in place, sweeping forward and backward in turn until neither changes.
    let mut bounds = bounds_file(&work, seeds, n, &graphs)?;
    let mut passes = 0u32;
    loop {
        passes += 1;
        let backward = passes % 2 == 0;
        let mut store = InPlace(&mut bounds[..]);
        let mut changed = false;
        if backward {
            for g in graphs.iter().rev() {
                changed |= g.sweep(&mut store, true);
            }
        } else {
            for g in &graphs {
                changed |= g.sweep(&mut store, false);
            }
        }
        if !changed {
            break;
        }
    }

    // The values, chunk by chunk into the level file.
    let mut writer = super::file::LevelWriter::create(path, &key)?;
    let mut cycle_valued = 0;
    let mut buf = Vec::new();
    let b = &bounds[..];
    let read = |i: usize| (b[2 * i] as i8, b[2 * i + 1] as i8);
    for g in &graphs {
        buf.clear();
        cycle_valued += g
            .values(&read, &mut buf)
            .map_err(|i| crossed(&work.join("bounds.local"), i, read(i as usize)))?;
        writer.write(&buf, &|i| {
            let (lo, hi) = read(i as usize);
            super::file::mover_bounds(i, lo, hi)
        })?;
    }
    writer.finish()?;
    drop(graphs);
    drop(bounds);
    std::fs::remove_dir_all(&work)
        .map_err(|e| EgdbError::Io { path: work.clone(), message: e.to_string() })?;
    Ok((passes, cycle_valued))
}

/// One pass over the chunk `start..end` of a level whose move graph is kept under `work`
/// (expanded on the first call, read from there after): the chunk's bounds, two signed bytes a
/// position, from `prev`, the whole level's bounds after the previous pass (`None`: the first
/// pass, which gives the starting extremes), the chunk's own positions read as this pass updates
/// them. Also whether any changed. Passes until none changes give the bounds of the in-process
/// solve (both move only towards the same fixpoints).
pub fn chunk_pass(
    game: &SowingGame,
    seeds: u32,
    start: u64,
    end: u64,
    lower: &Lower<'_>,
    work: &Path,
    prev: Option<&[u8]>,
) -> Result<(Vec<u8>, bool), EgdbError> {
    use super::graph::{ChunkGraph, Overlay};
    let key = check_level(game, seeds)?;
    if prev.is_some_and(|p| p.len() as u64 != 2 * key.positions) {
        return Err(EgdbError::TooLarge {
            seeds,
            message: format!("the bounds do not fit the level's {} positions", key.positions),
        });
    }
    let g = ChunkGraph::load_or_expand(game, seeds, start, end, lower, work)?;
    let mut chunk = vec![0u8; 2 * (end - start) as usize];
    let Some(prev) = prev else {
        g.initial_bounds(seeds, &mut chunk);
        return Ok((chunk, false));
    };
    chunk.copy_from_slice(&prev[2 * start as usize..2 * end as usize]);
    let mut store = Overlay { prev, start: start as usize, chunk };
    let changed = g.sweep(&mut store, false);
    Ok((store.chunk, changed))
}

/// The values of the chunk `start..end` (graph under `work`) from the level's final bounds.
pub fn chunk_pass_values(
    game: &SowingGame,
    seeds: u32,
    start: u64,
    end: u64,
    lower: &Lower<'_>,
    work: &Path,
    bounds: &[u8],
) -> Result<Vec<u8>, EgdbError> {
    use super::graph::{crossed, ChunkGraph};
    let key = check_level(game, seeds)?;
    if bounds.len() as u64 != 2 * key.positions {
        return Err(EgdbError::TooLarge {
            seeds,
            message: format!("the bounds do not fit the level's {} positions", key.positions),
        });
    }
    let g = ChunkGraph::load_or_expand(game, seeds, start, end, lower, work)?;
    let mut out = Vec::with_capacity((end - start) as usize);
    let read = |i: usize| (bounds[2 * i] as i8, bounds[2 * i + 1] as i8);
    g.values(&read, &mut out).map_err(|i| crossed(work, i, read(i as usize)))?;
    Ok(out)
}
