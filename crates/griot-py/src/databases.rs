//! Endgame databases: opening and probing them, building levels in process or in chunks.

use std::sync::{Arc, Mutex};

use griot_core::registry::{self, AnyGame, AnyPosition};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors::{core, EgdbError};
use crate::position::{player_str, Position};

pub(crate) fn stats_dict<'py>(
    py: Python<'py>,
    st: &griot_core::egdb::LevelStats,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("seeds", st.seeds)?;
    d.set_item("positions", st.positions)?;
    d.set_item("passes", st.passes)?;
    d.set_item("cycle_valued", st.cycle_valued)?;
    d.set_item("millis", st.millis)?;
    d.set_item("file_bytes", st.file_bytes)?;
    Ok(d)
}

pub(crate) fn egdb_err(e: griot_core::egdb::EgdbError) -> PyErr {
    EgdbError::new_err(e.to_string())
}

pub(crate) fn sowing_game(py: Python<'_>, variant: &str) -> PyResult<griot_core::sowing::SowingGame> {
    match &*core(py, registry::game(variant))? {
        AnyGame::Sowing(g) => Ok(g.clone()),
        g => Err(EgdbError::new_err(format!(
            "{} cannot have an endgame database: only two-row sowing games of the rule language can",
            g.variant()
        ))),
    }
}

/// A rule set's endgame databases, opened read-only from a directory (levels 0 up to the first
/// missing file). A damaged or foreign file raises EgdbError and is never read.
#[pyclass(frozen, module = "griot._core")]
pub(crate) struct Egdb {
    pub(crate) db: Arc<griot_core::egdb::Egdb>,
}

#[pymethods]
impl Egdb {
    #[new]
    fn new(py: Python<'_>, variant: &str, dir: std::path::PathBuf) -> PyResult<Self> {
        let game = sowing_game(py, variant)?;
        let db = py.detach(|| griot_core::egdb::Egdb::open(&dir, &game)).map_err(egdb_err)?;
        Ok(Egdb { db: Arc::new(db) })
    }

    /// The rule set and board the levels are for, e.g. `abapa(holes=6)`.
    #[getter]
    fn rules(&self) -> String {
        self.db.rules_key().to_string()
    }

    /// The most seeds on the board a position may hold to be in range; None if no level is there.
    #[getter]
    fn max_seeds(&self) -> Option<u32> {
        self.db.max_seeds()
    }

    /// The result of `position` with best play, whether it is exact, or why it is out of range.
    fn probe(&self, position: &Position) -> PyResult<EgdbProbe> {
        let (AnyGame::Sowing(g), AnyPosition::Sowing(p)) = (&*position.game, &position.pos) else {
            return Ok(EgdbProbe::out("not a two-row sowing game"));
        };
        use griot_core::egdb::Probe;
        let (kind, margin, lo, hi, exact_margin) = match self.db.probe(g, p) {
            Probe::Exact { margin } => ("exact", margin, margin, margin, true),
            Probe::Winner { margin } => ("winner", margin, margin, margin, false),
            Probe::Cycle { margin, lo, hi, winner_only } => ("cycle", margin, lo, hi, !winner_only),
            Probe::OutOfRange(reason) => return Ok(EgdbProbe::out(reason)),
        };
        let winner = griot_core::egdb::winner_of(p, margin).map(|w| player_str(w).to_string());
        Ok(EgdbProbe {
            kind,
            margin: Some(margin),
            winner,
            reason: None,
            cycle: kind == "cycle",
            lo: Some(lo),
            hi: Some(hi),
            exact_margin,
        })
    }
}

/// What a probe found: `kind` is "exact" (margin exact), "winner" (the winner exact, the margin
/// that of the game without its store threshold), "cycle" (valued by a cycle: margin and winner
/// those of the game in which endless play from here is shared out here, not exact under the
/// rules, where a repetition may decide otherwise) or "out_of_range" (`reason` says why).
#[pyclass(frozen, get_all, module = "griot._core")]
pub(crate) struct EgdbProbe {
    pub(crate) kind: &'static str,
    /// The side to move's margin over the board's seeds with best play.
    pub(crate) margin: Option<i32>,
    /// "S", "N", or None for a draw (and out of range).
    pub(crate) winner: Option<String>,
    pub(crate) reason: Option<String>,
    /// Whether the position is valued by a cycle (`kind` "cycle"): its result is not exact.
    pub(crate) cycle: bool,
    /// The side to move's least and greatest margin with best play, whatever repetitions decide
    /// (both `margin` unless the position is valued by a cycle; None out of range). They compose
    /// over the moves as minimax does.
    pub(crate) lo: Option<i32>,
    pub(crate) hi: Option<i32>,
    /// Whether the margins are those of the game with its store threshold (else only the
    /// winner they give is exact).
    pub(crate) exact_margin: bool,
}

impl EgdbProbe {
    pub(crate) fn out(reason: &str) -> Self {
        EgdbProbe {
            kind: "out_of_range",
            margin: None,
            winner: None,
            reason: Some(reason.to_string()),
            cycle: false,
            lo: None,
            hi: None,
            exact_margin: false,
        }
    }
}

/// Builds the levels 0..=seeds of `variant`'s rule set under `dir` in this process, keeping the
/// levels whose files are present and whole. `progress` is called with a dict per event (event:
/// "kept", "started", "expanded" or "written"). Returns the stats of the levels solved. Releases
/// the GIL.
#[pyfunction]
#[pyo3(signature = (variant, dir, seeds, progress=None, threads=None))]
pub(crate) fn egdb_build<'py>(
    py: Python<'py>,
    variant: &str,
    dir: std::path::PathBuf,
    seeds: u32,
    progress: Option<Py<PyAny>>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    use griot_core::egdb::BuildEvent;
    let game = sowing_game(py, variant)?;
    let callback_error: Mutex<Option<PyErr>> = Mutex::new(None);
    let r = py.detach(|| {
        let mut options = griot_core::egdb::BuildOptions::default();
        if let Some(t) = threads {
            options.threads = t.max(1);
        }
        griot_core::egdb::build_with(&dir, &game, seeds, &options, &mut |e| {
            let Some(cb) = progress.as_ref() else { return };
            Python::attach(|py| {
                let call = (|| -> PyResult<()> {
                    let d = PyDict::new(py);
                    match e {
                        BuildEvent::Kept { seeds, positions } => {
                            d.set_item("event", "kept")?;
                            d.set_item("seeds", seeds)?;
                            d.set_item("positions", positions)?;
                        }
                        BuildEvent::Started { seeds, positions } => {
                            d.set_item("event", "started")?;
                            d.set_item("seeds", seeds)?;
                            d.set_item("positions", positions)?;
                        }
                        BuildEvent::Expanded { seeds, done } => {
                            d.set_item("event", "expanded")?;
                            d.set_item("seeds", seeds)?;
                            d.set_item("done", done)?;
                        }
                        BuildEvent::Written(st) => {
                            let s = stats_dict(py, st)?;
                            s.set_item("event", "written")?;
                            return cb.call1(py, (s,)).map(|_| ());
                        }
                    }
                    cb.call1(py, (d,)).map(|_| ())
                })();
                if let Err(err) = call {
                    let mut slot = callback_error.lock().unwrap_or_else(|e| e.into_inner());
                    slot.get_or_insert(err);
                }
            });
        })
    });
    if let Some(e) = callback_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let stats = r.map_err(egdb_err)?;
    let out = PyList::empty(py);
    for st in &stats {
        out.append(stats_dict(py, st)?)?;
    }
    Ok(out)
}

pub(crate) fn map_file(path: &std::path::Path) -> PyResult<memmap2::Mmap> {
    let f = std::fs::File::open(path).map_err(|e| EgdbError::new_err(format!("{}: {e}", path.display())))?;
    // SAFETY: read-only map of a file the build writes once, by rename, and never changes in place.
    unsafe { memmap2::Mmap::map(&f) }.map_err(|e| EgdbError::new_err(format!("{}: {e}", path.display())))
}

pub(crate) fn write_file(path: &std::path::Path, bytes: &[u8]) -> PyResult<()> {
    // Into a temporary name beside it (its whole name plus a suffix, unique per file), then
    // renamed: a reader never sees half a file.
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".part");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| EgdbError::new_err(format!("{}: {e}", path.display())))
}

/// The directory a chunk task keeps its graph in: beside the file it writes.
pub(crate) fn work_of(out: &std::path::Path) -> std::path::PathBuf {
    out.parent().map(|p| p.to_path_buf()).unwrap_or_default()
}

/// The lower levels of `game` under `dir`, which a level of `seeds` needs all of.
pub(crate) fn lower_levels(
    game: &griot_core::sowing::SowingGame,
    dir: &std::path::Path,
    seeds: u32,
) -> PyResult<griot_core::egdb::Egdb> {
    let db = griot_core::egdb::Egdb::open(dir, game).map_err(egdb_err)?;
    let have = db.max_seeds().map(|m| m + 1).unwrap_or(0);
    if have < seeds {
        return Err(EgdbError::new_err(format!(
            "level {seeds} needs levels 0..{seeds} under {}; only {have} are there",
            dir.display()
        )));
    }
    Ok(db)
}

/// Marks the work directory `work` of a level build as holding bounds of this file format,
/// removing the bounds another format's interrupted build left there (the core's
/// `egdb::graph::mark_bounds_format`, which the in-process build calls too).
#[pyfunction]
pub(crate) fn egdb_mark_work(work: std::path::PathBuf) -> PyResult<()> {
    griot_core::egdb::graph::mark_bounds_format(&work).map_err(egdb_err)
}

/// `(positions, path)` of level `seeds` of `variant`'s rule set under `dir`.
#[pyfunction]
pub(crate) fn egdb_level_info(
    py: Python<'_>,
    variant: &str,
    dir: std::path::PathBuf,
    seeds: u32,
) -> PyResult<(u64, String)> {
    let game = sowing_game(py, variant)?;
    griot_core::egdb::qualifies(&game).map_err(egdb_err)?;
    let key = griot_core::egdb::level_key(&game, seeds).map_err(egdb_err)?;
    let path = griot_core::egdb::level_path(&dir, &game, seeds);
    Ok((key.positions, path.to_string_lossy().into_owned()))
}

/// One pass over positions `start..end` of a level solved in chunks: reads the level's bounds
/// after the previous pass from `prev` (None: the first pass), writes the chunk's new bounds to
/// `out`, returns whether any changed. The chunk's move graph is expanded on the first pass into
/// `out`'s directory and read from there after. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (variant, dir, seeds, start, end, prev, out))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn egdb_chunk_bounds(
    py: Python<'_>,
    variant: &str,
    dir: std::path::PathBuf,
    seeds: u32,
    start: u64,
    end: u64,
    prev: Option<std::path::PathBuf>,
    out: std::path::PathBuf,
) -> PyResult<bool> {
    let game = sowing_game(py, variant)?;
    py.detach(|| {
        let db = lower_levels(&game, &dir, seeds)?;
        let prev = prev.map(|p| map_file(&p)).transpose()?;
        let lower = |s: u32, i: u64| db.bounds(s, i);
        let (bytes, changed) =
            griot_core::egdb::chunk_pass(&game, seeds, start, end, &lower, &work_of(&out), prev.as_deref())
                .map_err(egdb_err)?;
        write_file(&out, &bytes)?;
        Ok(changed)
    })
}

/// The values of positions `start..end` from the level's final bounds in `bounds`, written to
/// `out` (one byte a position as the level file stores it). Releases the GIL.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub(crate) fn egdb_chunk_values(
    py: Python<'_>,
    variant: &str,
    dir: std::path::PathBuf,
    seeds: u32,
    start: u64,
    end: u64,
    bounds: std::path::PathBuf,
    out: std::path::PathBuf,
) -> PyResult<()> {
    let game = sowing_game(py, variant)?;
    py.detach(|| {
        let db = lower_levels(&game, &dir, seeds)?;
        let bounds = map_file(&bounds)?;
        let lower = |s: u32, i: u64| db.bounds(s, i);
        let values =
            griot_core::egdb::chunk_pass_values(&game, seeds, start, end, &lower, &work_of(&out), &bounds)
                .map_err(egdb_err)?;
        write_file(&out, &values)
    })
}

/// Writes level `seeds` (header and checksum) from `values`, the level's values in index order,
/// and `bounds`, its final bounds (which give the positions valued by a cycle their two bounds),
/// and checks it reads back.
#[pyfunction]
pub(crate) fn egdb_write_level(
    py: Python<'_>,
    variant: &str,
    dir: std::path::PathBuf,
    seeds: u32,
    values: std::path::PathBuf,
    bounds: std::path::PathBuf,
) -> PyResult<()> {
    let game = sowing_game(py, variant)?;
    py.detach(|| {
        let key = griot_core::egdb::level_key(&game, seeds).map_err(egdb_err)?;
        let bytes = map_file(&values)?;
        let b = map_file(&bounds)?;
        for (path, len, per) in [(&values, bytes.len(), 1), (&bounds, b.len(), 2)] {
            if len as u64 != per * key.positions {
                return Err(EgdbError::new_err(format!(
                    "{}: {len} bytes for a level of {} positions",
                    path.display(),
                    key.positions
                )));
            }
        }
        let path = griot_core::egdb::level_path(&dir, &game, seeds);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| EgdbError::new_err(format!("{}: {e}", parent.display())))?;
        }
        let mut w = griot_core::egdb::file::LevelWriter::create(&path, &key).map_err(egdb_err)?;
        let read = |i: u64| {
            let at = 2 * i as usize;
            griot_core::egdb::file::mover_bounds(i, b[at] as i8, b[at + 1] as i8)
        };
        w.write(&bytes, &read).map_err(egdb_err)?;
        w.finish().map_err(egdb_err)?;
        griot_core::egdb::file::LevelFile::open(&path, &key).map_err(egdb_err)?;
        Ok(())
    })
}
