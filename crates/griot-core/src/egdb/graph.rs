//! Solving a level in bounded memory: the level's move graph is expanded once, chunk by chunk,
//! into files that the value iteration then streams, and the two bounds live in a memory-mapped
//! file of two bytes a position. Nothing of a level is held in memory but a chunk's write buffers:
//! the lower levels, the graph and the bounds are mapped, and the kernel keeps in memory what fits.
//!
//! A chunk's graph is two files: `graph-<start>-<end>.meta`, a header then four bytes a position
//! (in-level move count, or [`TERMINAL`]; best exit for the lower bound or terminal value; best
//! exit for the upper bound; endless share, South's margins as signed bytes: the exits differ
//! where a capture leads to a lower position valued by a cycle), and `graph-<start>-<end>.kids`, the in-level children as 32-bit
//! indices in position order. Both are written to a temporary name and renamed, the children
//! first, so a present `.meta` file means a whole chunk.
//!
//! The bounds start from the extremes and only move towards their fixpoints, whatever the order
//! positions are relaxed in; so the in-place sweeps of one process and the pass-by-pass chunks of
//! the workers reach the same bounds, and any state the bounds file was left in by a kill is a
//! valid point to go on from.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use memmap2::{Mmap, MmapMut};

use super::expand::{check_level, Expanded, Expander, Lower, NO_EXIT};
use super::EgdbError;
use crate::sowing::SowingGame;

/// The move count of a terminal position in a graph's meta bytes.
pub const TERMINAL: u8 = u8::MAX;
const NONE: i8 = i8::MIN;
const MAGIC: &[u8; 8] = b"GRIOTEGH";
const ROW: usize = 4;
const HEADER: usize = 32;

fn io(path: &Path) -> impl Fn(std::io::Error) -> EgdbError + '_ {
    move |e| EgdbError::Io { path: path.to_path_buf(), message: e.to_string() }
}

/// The files of the graph of positions `start..end` under `work`.
pub fn graph_paths(work: &Path, start: u64, end: u64) -> (PathBuf, PathBuf) {
    (work.join(format!("graph-{start}-{end}.meta")), work.join(format!("graph-{start}-{end}.kids")))
}

/// The move graph of one chunk of a level, mapped read-only.
pub struct ChunkGraph {
    start: u64,
    end: u64,
    meta: Mmap,
    kids: Mmap,
}

impl ChunkGraph {
    /// The chunk's graph under `work`: opened if its files are there and whole, else expanded and
    /// written. `lower` gives the values of the lower levels.
    pub fn load_or_expand(
        game: &SowingGame,
        seeds: u32,
        start: u64,
        end: u64,
        lower: &Lower<'_>,
        work: &Path,
    ) -> Result<ChunkGraph, EgdbError> {
        let key = check_level(game, seeds)?;
        if start > end || end > key.positions {
            return Err(EgdbError::TooLarge {
                seeds,
                message: format!("chunk {start}..{end} does not fit the level's {} positions", key.positions),
            });
        }
        if key.positions > u32::MAX as u64 {
            return Err(EgdbError::TooLarge {
                seeds,
                message: format!("{} positions: children are indexed in 32 bits", key.positions),
            });
        }
        let (meta_path, kids_path) = graph_paths(work, start, end);
        if meta_path.exists() {
            if let Ok(g) = ChunkGraph::open(&meta_path, &kids_path, start, end) {
                return Ok(g);
            }
        }
        std::fs::create_dir_all(work).map_err(io(work))?;
        let tmp = |p: &Path| {
            p.with_extension(format!("{}.tmp", p.extension().and_then(|e| e.to_str()).unwrap_or("")))
        };
        let (meta_tmp, kids_tmp) = (tmp(&meta_path), tmp(&kids_path));
        let mut meta = BufWriter::with_capacity(1 << 20, File::create(&meta_tmp).map_err(io(&meta_tmp))?);
        let mut kids = BufWriter::with_capacity(1 << 20, File::create(&kids_tmp).map_err(io(&kids_tmp))?);
        meta.write_all(&[0u8; HEADER]).map_err(io(&meta_tmp))?;
        let mut ex = Expander::new(game, seeds, lower);
        let mut children: Vec<u32> = Vec::new();
        let mut count = 0u64;
        for i in start..end {
            children.clear();
            let row = match ex.expand(i, &mut children) {
                Expanded::Terminal(v) => [TERMINAL, v as i8 as u8, v as i8 as u8, 0],
                Expanded::Inner { exit, endless } => {
                    if children.len() >= TERMINAL as usize {
                        return Err(EgdbError::TooLarge {
                            seeds,
                            message: format!("position {i} has {} moves within its level", children.len()),
                        });
                    }
                    let e = |x: i16| if x == NO_EXIT { NONE } else { x as i8 };
                    [children.len() as u8, e(exit.0) as u8, e(exit.1) as u8, endless as i8 as u8]
                }
            };
            meta.write_all(&row).map_err(io(&meta_tmp))?;
            for c in &children {
                kids.write_all(&c.to_le_bytes()).map_err(io(&kids_tmp))?;
            }
            count += children.len() as u64;
        }
        let mut kids = kids.into_inner().map_err(|e| io(&kids_tmp)(e.into_error()))?;
        // Not synced: a work file only has to survive a killed process, which the rename and the
        // length checks cover; the level file, which outlives the build, is synced.
        kids.flush().map_err(io(&kids_tmp))?;
        drop(kids);
        std::fs::rename(&kids_tmp, &kids_path).map_err(io(&kids_path))?;
        let mut meta = meta.into_inner().map_err(|e| io(&meta_tmp)(e.into_error()))?;
        let mut header = [0u8; HEADER];
        header[0..8].copy_from_slice(MAGIC);
        header[8..16].copy_from_slice(&start.to_le_bytes());
        header[16..24].copy_from_slice(&end.to_le_bytes());
        header[24..32].copy_from_slice(&count.to_le_bytes());
        use std::io::{Seek, SeekFrom};
        meta.seek(SeekFrom::Start(0)).map_err(io(&meta_tmp))?;
        meta.write_all(&header).map_err(io(&meta_tmp))?;
        meta.flush().map_err(io(&meta_tmp))?;
        drop(meta);
        std::fs::rename(&meta_tmp, &meta_path).map_err(io(&meta_path))?;
        ChunkGraph::open(&meta_path, &kids_path, start, end)
    }

    fn open(meta_path: &Path, kids_path: &Path, start: u64, end: u64) -> Result<ChunkGraph, EgdbError> {
        let map = |p: &Path| -> Result<Mmap, EgdbError> {
            let f = File::open(p).map_err(io(p))?;
            // SAFETY: read-only map of a file written once and renamed into place, never changed.
            unsafe { Mmap::map(&f) }.map_err(io(p))
        };
        let meta = map(meta_path)?;
        let bad = |m: &str| EgdbError::Corrupt { path: meta_path.to_path_buf(), message: m.to_string() };
        if meta.len() < HEADER || &meta[0..8] != MAGIC {
            return Err(bad("not a level graph"));
        }
        let u64_at = |i: usize| u64::from_le_bytes(meta[i..i + 8].try_into().expect("8 bytes"));
        if u64_at(8) != start
            || u64_at(16) != end
            || meta.len() as u64 != (HEADER + ROW * (end - start) as usize) as u64
        {
            return Err(bad("the graph is of another chunk or truncated"));
        }
        let count = u64_at(24);
        let kids = map(kids_path)?;
        if kids.len() as u64 != 4 * count {
            return Err(bad("the children file is truncated"));
        }
        Ok(ChunkGraph { start, end, meta, kids })
    }

    /// Positions `start..end` of the chunk.
    pub fn range(&self) -> (u64, u64) {
        (self.start, self.end)
    }

    #[inline]
    fn row(&self, i: u64) -> (u8, (i8, i8), i8) {
        let at = HEADER + ROW * (i - self.start) as usize;
        (self.meta[at], (self.meta[at + 1] as i8, self.meta[at + 2] as i8), self.meta[at + 3] as i8)
    }

    #[inline]
    fn kid(&self, k: usize) -> usize {
        u32::from_le_bytes(self.kids[4 * k..4 * k + 4].try_into().expect("4 bytes")) as usize
    }

    /// The bounds the iteration starts from, two bytes a position: a terminal value twice, else
    /// the extremes `-seeds, seeds`.
    pub fn initial_bounds(&self, seeds: u32, out: &mut [u8]) {
        let s = seeds as i8;
        for i in self.start..self.end {
            let (n, (v, _), _) = self.row(i);
            let (lo, hi) = if n == TERMINAL { (v, v) } else { (-s, s) };
            let at = 2 * (i - self.start) as usize;
            out[at] = lo as u8;
            out[at + 1] = hi as u8;
        }
    }

    /// One sweep over the chunk, forward or backward, relaxing each position's bounds from its
    /// exit and its children's bounds as `store` has them now. Whether any changed.
    pub fn sweep(&self, store: &mut dyn Bounds, backward: bool) -> bool {
        let mut changed = false;
        let total = self.kids.len() / 4;
        let mut step = |i: u64, first: usize| -> usize {
            let (n, exit, _) = self.row(i);
            if n == TERMINAL {
                return 0;
            }
            let n = n as usize;
            let south = i % 2 == 0;
            let some = |x: i8| if x == NONE { None } else { Some(x) };
            let (mut lo, mut hi) = (some(exit.0), some(exit.1));
            for k in first..first + n {
                let (cl, ch) = store.get(self.kid(k));
                lo = Some(match lo {
                    None => cl,
                    Some(b) if south => b.max(cl),
                    Some(b) => b.min(cl),
                });
                hi = Some(match hi {
                    None => ch,
                    Some(b) if south => b.max(ch),
                    Some(b) => b.min(ch),
                });
            }
            let (Some(lo), Some(hi)) = (lo, hi) else {
                // No move and not over: the rules give such a position no value to move to.
                return 0;
            };
            if store.get(i as usize) != (lo, hi) {
                store.set(i as usize, lo, hi);
                changed = true;
            }
            n
        };
        if backward {
            let mut k = total;
            for i in (self.start..self.end).rev() {
                let (n, _, _) = self.row(i);
                let n = if n == TERMINAL { 0 } else { n as usize };
                k -= n;
                step(i, k);
            }
        } else {
            let mut k = 0;
            for i in self.start..self.end {
                k += step(i, k);
            }
        }
        changed
    }

    /// The values of the chunk's positions from the final bounds: the terminal value, else the
    /// endless share clamped into the bounds; the side to move's margin, flagged where the bounds
    /// differ ([`super::file::encode`]). Returns how many are flagged, or the first position whose
    /// bounds cross (a damaged bounds file: sound sweeps keep `lo <= hi`).
    pub fn values(&self, bounds: &dyn Fn(usize) -> (i8, i8), out: &mut Vec<u8>) -> Result<u64, u64> {
        let mut cycle_valued = 0;
        for i in self.start..self.end {
            let (n, (v, _), endless) = self.row(i);
            let (v, cycle) = if n == TERMINAL {
                (v, false)
            } else {
                let (lo, hi) = bounds(i as usize);
                if lo > hi {
                    return Err(i);
                }
                (endless.clamp(lo, hi), lo != hi)
            };
            cycle_valued += cycle as u64;
            out.push(super::file::encode(if i % 2 == 0 { v } else { -v }, cycle));
        }
        Ok(cycle_valued)
    }
}

/// The error of a bounds file whose bounds of position `i` cross.
pub fn crossed(path: &Path, i: u64, (lo, hi): (i8, i8)) -> EgdbError {
    EgdbError::Corrupt {
        path: path.to_path_buf(),
        message: format!("position {i}: lower bound {lo} above upper bound {hi}"),
    }
}

/// Where a sweep reads and writes bounds, by position index of the whole level.
pub trait Bounds {
    /// `(lo, hi)` of position `i`.
    fn get(&self, i: usize) -> (i8, i8);
    /// Sets the bounds of position `i`.
    fn set(&mut self, i: usize, lo: i8, hi: i8);
}

/// The whole level's bounds, updated in place (one process).
pub struct InPlace<'a>(pub &'a mut [u8]);

impl Bounds for InPlace<'_> {
    #[inline]
    fn get(&self, i: usize) -> (i8, i8) {
        (self.0[2 * i] as i8, self.0[2 * i + 1] as i8)
    }
    #[inline]
    fn set(&mut self, i: usize, lo: i8, hi: i8) {
        self.0[2 * i] = lo as u8;
        self.0[2 * i + 1] = hi as u8;
    }
}

/// The previous pass's bounds of the whole level, read-only, under the new bounds of one chunk
/// (a worker's task): positions of the chunk read their new bounds, the others the previous.
pub struct Overlay<'a> {
    /// The whole level's bounds after the previous pass.
    pub prev: &'a [u8],
    /// First position of the chunk.
    pub start: usize,
    /// The chunk's bounds, two bytes a position.
    pub chunk: Vec<u8>,
}

impl Bounds for Overlay<'_> {
    #[inline]
    fn get(&self, i: usize) -> (i8, i8) {
        match i.checked_sub(self.start) {
            Some(j) if 2 * j < self.chunk.len() => (self.chunk[2 * j] as i8, self.chunk[2 * j + 1] as i8),
            _ => (self.prev[2 * i] as i8, self.prev[2 * i + 1] as i8),
        }
    }
    #[inline]
    fn set(&mut self, i: usize, lo: i8, hi: i8) {
        let j = i - self.start;
        self.chunk[2 * j] = lo as u8;
        self.chunk[2 * j + 1] = hi as u8;
    }
}

/// Marks `work` as holding bounds of this level file format (`<work>/bounds.format`). Bounds an
/// interrupted build of another format (or of one older than the mark) left there, in process
/// (`bounds.local`) or across workers (`bounds.<pass>.all`, `bounds-<pass>-<chunk>.chunk`), are no
/// point to go on from, since they may be tighter than this format's fixpoint: they are removed
/// before the mark is written, so a kill in between leaves none under it. The move graphs check
/// their own format.
pub fn mark_bounds_format(work: &Path) -> Result<(), EgdbError> {
    let mark = work.join("bounds.format");
    let format = super::file::FORMAT_VERSION.to_string();
    if std::fs::read_to_string(&mark).ok().as_deref() == Some(format.as_str()) {
        return Ok(());
    }
    std::fs::create_dir_all(work).map_err(io(work))?;
    for entry in std::fs::read_dir(work).map_err(io(work))? {
        let path = entry.map_err(io(work))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let stale = name == "bounds.local"
            || (name.starts_with("bounds.") && name.ends_with(".all"))
            || (name.starts_with("bounds-") && name.ends_with(".chunk"));
        if stale {
            std::fs::remove_file(&path).map_err(io(&path))?;
        }
    }
    std::fs::write(&mark, &format).map_err(io(&mark))
}

/// A whole level's bounds in a file mapped read-write: `<work>/bounds.local`, created from the
/// chunks' initial bounds (written to a temporary name, then renamed), or reopened as a kill left
/// it under this format's mark ([`mark_bounds_format`]).
pub fn bounds_file(
    work: &Path,
    seeds: u32,
    positions: u64,
    graphs: &[ChunkGraph],
) -> Result<MmapMut, EgdbError> {
    mark_bounds_format(work)?;
    let path = work.join("bounds.local");
    let open = |p: &Path| -> Result<MmapMut, EgdbError> {
        let f = std::fs::OpenOptions::new().read(true).write(true).open(p).map_err(io(p))?;
        // SAFETY: the work file is this build's own; nothing else maps it while the level is solved.
        unsafe { MmapMut::map_mut(&f) }.map_err(io(p))
    };
    if path.exists() {
        let m = open(&path)?;
        if m.len() as u64 == 2 * positions {
            return Ok(m);
        }
    }
    let tmp = work.join("bounds.local.tmp");
    {
        let f = File::create(&tmp).map_err(io(&tmp))?;
        f.set_len(2 * positions).map_err(io(&tmp))?;
    }
    let mut m = open(&tmp)?;
    for g in graphs {
        let (a, b) = g.range();
        g.initial_bounds(seeds, &mut m[2 * a as usize..2 * b as usize]);
    }
    // The pages are the file's from the start: a killed process loses none of them.
    m.flush_async().map_err(io(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io(&path))?;
    Ok(m)
}
