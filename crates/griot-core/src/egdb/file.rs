//! The level file: one seed count of one rule set, written once and then memory-mapped
//! read-only. Every field is checked before a value is read: a file of another rule set, board,
//! seed count or format, a truncated file or one whose checksum does not match is refused with an
//! [`EgdbError`].
//!
//! Layout (little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `GRIOTEGB` |
//! | 8..12 | format version |
//! | 12..16 | seeds on the board |
//! | 16..20 | holes on the board (both rows) |
//! | 20..24 | length of the rule-set string |
//! | 24..32 | number of values |
//! | 32..40 | checksum of bytes 0..32, the rule-set string, everything after it and bytes 40..48 |
//! | 40..48 | `k`, the number of positions valued by a cycle |
//! | 48.. | the rule-set string (a variant string), zero-padded to a multiple of 8 |
//! | then | one byte a position: see [`encode`]; zero-padded to a multiple of 8 |
//! | then | the bounds of the `k` positions valued by a cycle, in index order, two signed bytes each: the side to move's lower and upper margin |
//!
//! A position's byte holds the side to move's margin over the board's seeds as a 7-bit signed
//! number (at most [`super::MAX_LEVEL_SEEDS`] seeds, so the margin fits) and, in its top bit,
//! whether the position is valued by a cycle: its two bounds differ, so its value is that of the
//! game in which endless play from it is shared out there, not exact under the rules. The bounds
//! of those positions are kept too, because a higher level that captures into one of them needs
//! both ([`LevelFile::bounds`]); a position not flagged has its value as both bounds. A flagged
//! position's bounds are found by its rank among the flagged positions, which a directory built
//! when the file is opened (a count every [`RANK_BLOCK`] positions) gives in a short scan.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::EgdbError;

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"GRIOTEGB";
/// The format this code writes and reads.
pub const FORMAT_VERSION: u32 = 3;
/// The top bit of a position's byte: valued by a cycle.
pub const CYCLE_BIT: u8 = 0x80;
/// Positions a count of the rank directory covers.
pub const RANK_BLOCK: usize = 256;

/// A position's byte: `margin` (within -64..=63) and whether it is valued by a cycle.
#[inline]
pub fn encode(margin: i8, cycle: bool) -> u8 {
    debug_assert!((-64..=63).contains(&margin), "{margin}");
    (margin as u8 & !CYCLE_BIT) | if cycle { CYCLE_BIT } else { 0 }
}

/// The margin and the cycle flag of a position's byte.
#[inline]
pub fn decode(byte: u8) -> (i8, bool) {
    (((byte << 1) as i8) >> 1, byte & CYCLE_BIT != 0)
}
const FIXED: usize = 48;

/// FNV-1a over 64-bit words (then the tail bytes): a checksum against truncation and bit rot,
/// not against tampering.
pub fn checksum(parts: &[&[u8]]) -> u64 {
    let mut h = Checksum::new();
    for part in parts {
        h.update(part);
        h.end_part();
    }
    h.value()
}

const PRIME: u64 = 0x0000_0100_0000_01B3;

/// [`checksum`] fed piece by piece: the parts' bytes in any slices, each part closed by
/// [`Checksum::end_part`].
pub struct Checksum {
    h: u64,
    buf: [u8; 8],
    held: usize,
    len: u64,
}

impl Default for Checksum {
    fn default() -> Self {
        Self::new()
    }
}

impl Checksum {
    /// Before any part.
    pub fn new() -> Checksum {
        Checksum { h: 0xCBF2_9CE4_8422_2325, buf: [0; 8], held: 0, len: 0 }
    }

    fn word(&mut self, w: u64) {
        self.h ^= w;
        self.h = self.h.wrapping_mul(PRIME);
        self.h ^= self.h >> 29;
    }

    /// More bytes of the current part.
    pub fn update(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len() as u64;
        if self.held > 0 {
            let take = (8 - self.held).min(bytes.len());
            self.buf[self.held..self.held + take].copy_from_slice(&bytes[..take]);
            self.held += take;
            bytes = &bytes[take..];
            if self.held < 8 {
                return;
            }
            self.word(u64::from_le_bytes(self.buf));
            self.held = 0;
        }
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.word(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        self.buf[..rest.len()].copy_from_slice(rest);
        self.held = rest.len();
    }

    /// Closes the current part: its tail bytes, then its length (the part boundary counts: "ab"
    /// + "c" differs from "a" + "bc").
    pub fn end_part(&mut self) {
        for i in 0..self.held {
            self.h ^= self.buf[i] as u64;
            self.h = self.h.wrapping_mul(PRIME);
        }
        self.h ^= self.len;
        self.h = self.h.wrapping_mul(PRIME);
        self.held = 0;
        self.len = 0;
    }

    /// The checksum.
    pub fn value(&self) -> u64 {
        self.h
    }
}

fn padded(len: usize) -> usize {
    len.div_ceil(8) * 8
}

/// What a level file must be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelKey {
    /// The rule-set string.
    pub rules: String,
    /// Holes on the board, both rows.
    pub holes: u32,
    /// Seeds on the board.
    pub seeds: u32,
    /// Values the level holds.
    pub positions: u64,
}

fn fixed_header(key: &LevelKey) -> [u8; 32] {
    let mut h = [0u8; 32];
    h[0..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&key.seeds.to_le_bytes());
    h[16..20].copy_from_slice(&key.holes.to_le_bytes());
    h[20..24].copy_from_slice(&(key.rules.len() as u32).to_le_bytes());
    h[24..32].copy_from_slice(&key.positions.to_le_bytes());
    h
}

/// Writes a level atomically: into a temporary file beside `path`, synced, then renamed, so a
/// crash leaves either no file or a whole one. `values` are the positions' bytes ([`encode`]);
/// `bounds` gives the side to move's bounds of a position valued by a cycle, by index.
pub fn write_level(
    path: &Path,
    key: &LevelKey,
    values: &[u8],
    bounds: &dyn Fn(u64) -> (i8, i8),
) -> Result<(), EgdbError> {
    let mut w = LevelWriter::create(path, key)?;
    w.write(values, bounds)?;
    w.finish()
}

/// The side to move's `(lo, hi)` margins of position `index` from South's bounds `lo`, `hi`.
#[inline]
pub fn mover_bounds(index: u64, lo: i8, hi: i8) -> (i8, i8) {
    if index % 2 == 0 {
        (lo, hi)
    } else {
        (-hi, -lo)
    }
}

/// A level file written piece by piece, values in index order, then checked for its count,
/// checksummed, synced and renamed into place by [`LevelWriter::finish`].
pub struct LevelWriter {
    path: PathBuf,
    tmp: PathBuf,
    file: std::io::BufWriter<File>,
    fixed: [u8; 32],
    sum: Checksum,
    written: u64,
    positions: u64,
    /// The bounds of the flagged positions so far, in a file beside the temporary one (they
    /// follow the values, and a level may have more of them than is worth holding in memory).
    bounds_tmp: PathBuf,
    bounds: std::io::BufWriter<File>,
    flagged: u64,
}

impl LevelWriter {
    /// Starts the level `key` at `path` (under a temporary name until finished).
    pub fn create(path: &Path, key: &LevelKey) -> Result<LevelWriter, EgdbError> {
        let tmp = path.with_extension("tmp");
        let io = |e: std::io::Error| EgdbError::Io { path: tmp.clone(), message: e.to_string() };
        let fixed = fixed_header(key);
        let mut name = key.rules.clone().into_bytes();
        name.resize(padded(name.len()), 0);
        let mut file = std::io::BufWriter::with_capacity(1 << 20, File::create(&tmp).map_err(io)?);
        file.write_all(&fixed).map_err(io)?;
        // The checksum, written when the values are all in.
        file.write_all(&[0u8; 16]).map_err(io)?;
        file.write_all(&name).map_err(io)?;
        let bounds_tmp = path.with_extension("bounds.tmp");
        let bounds = std::io::BufWriter::with_capacity(
            1 << 20,
            File::create(&bounds_tmp)
                .map_err(|e| EgdbError::Io { path: bounds_tmp.clone(), message: e.to_string() })?,
        );
        let mut sum = Checksum::new();
        sum.update(&fixed);
        sum.end_part();
        sum.update(key.rules.as_bytes());
        sum.end_part();
        Ok(LevelWriter {
            path: path.to_path_buf(),
            tmp,
            file,
            fixed,
            sum,
            written: 0,
            positions: key.positions,
            bounds_tmp,
            bounds,
            flagged: 0,
        })
    }

    /// The next values (bytes as stored, see [`encode`]); `bounds` gives the side to move's
    /// `(lo, hi)` of those valued by a cycle, by index in the level.
    pub fn write(&mut self, values: &[u8], bounds: &dyn Fn(u64) -> (i8, i8)) -> Result<(), EgdbError> {
        let io = |e: std::io::Error| EgdbError::Io { path: self.tmp.clone(), message: e.to_string() };
        for (j, &b) in values.iter().enumerate() {
            if b & CYCLE_BIT != 0 {
                let (lo, hi) = bounds(self.written + j as u64);
                self.bounds
                    .write_all(&[lo as u8, hi as u8])
                    .map_err(|e| EgdbError::Io { path: self.bounds_tmp.clone(), message: e.to_string() })?;
                self.flagged += 1;
            }
        }
        self.file.write_all(values).map_err(io)?;
        self.sum.update(values);
        self.written += values.len() as u64;
        Ok(())
    }

    /// Checks the count, writes the checksum, syncs and renames the file into place.
    pub fn finish(mut self) -> Result<(), EgdbError> {
        use std::io::{Seek, SeekFrom};
        if self.written != self.positions {
            return Err(EgdbError::Corrupt {
                path: self.path.clone(),
                message: format!("{} values for a level of {} positions", self.written, self.positions),
            });
        }
        let tmp = self.tmp.clone();
        let io = |e: std::io::Error| EgdbError::Io { path: tmp.clone(), message: e.to_string() };
        let pad = vec![0u8; padded(self.positions as usize) - self.positions as usize];
        self.file.write_all(&pad).map_err(io)?;
        self.sum.update(&pad);
        {
            use std::io::Read;
            let bio =
                |e: std::io::Error| EgdbError::Io { path: self.bounds_tmp.clone(), message: e.to_string() };
            self.bounds.flush().map_err(bio)?;
            let mut src = File::open(&self.bounds_tmp).map_err(bio)?;
            let mut buf = vec![0u8; 1 << 20];
            loop {
                let got = src.read(&mut buf).map_err(bio)?;
                if got == 0 {
                    break;
                }
                self.file.write_all(&buf[..got]).map_err(io)?;
                self.sum.update(&buf[..got]);
            }
            std::fs::remove_file(&self.bounds_tmp).map_err(bio)?;
        }
        self.sum.end_part();
        let count = self.flagged.to_le_bytes();
        self.sum.update(&count);
        self.sum.end_part();
        let mut f = self.file.into_inner().map_err(|e| io(e.into_error()))?;
        f.seek(SeekFrom::Start(self.fixed.len() as u64)).map_err(io)?;
        f.write_all(&self.sum.value().to_le_bytes()).map_err(io)?;
        f.write_all(&count).map_err(io)?;
        f.sync_all().map_err(io)?;
        drop(f);
        std::fs::rename(&self.tmp, &self.path)
            .map_err(|e| EgdbError::Io { path: self.path.clone(), message: e.to_string() })
    }
}

/// How many of `bytes` have the cycle flag.
fn flags_in(bytes: &[u8]) -> u64 {
    let mut words = bytes.chunks_exact(8);
    let mut n = 0u64;
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        n += (w & 0x8080_8080_8080_8080).count_ones() as u64;
    }
    n + words.remainder().iter().filter(|&&b| b & CYCLE_BIT != 0).count() as u64
}

/// A level file mapped read-only and checked.
#[derive(Debug)]
pub struct LevelFile {
    map: Mmap,
    start: usize,
    positions: usize,
    /// Where the bounds of the positions valued by a cycle start, and how many there are.
    table: usize,
    flagged: usize,
    /// The number of flagged positions before each block of [`RANK_BLOCK`] positions.
    ranks: Vec<u64>,
    path: PathBuf,
}

impl LevelFile {
    /// Maps `path` and checks it is the level `want`; the values are read only if every check
    /// passes.
    pub fn open(path: &Path, want: &LevelKey) -> Result<LevelFile, EgdbError> {
        let p = path.to_path_buf();
        let io = |e: std::io::Error| EgdbError::Io { path: p.clone(), message: e.to_string() };
        let file = File::open(path).map_err(io)?;
        // SAFETY: the map is read-only and level files are written once, by rename, never changed
        // in place; a file truncated by someone else under a live map is outside what this guards.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        let bad = |what: &str| EgdbError::Corrupt { path: p.clone(), message: what.to_string() };
        if map.len() < FIXED {
            return Err(bad(&format!("{} bytes, shorter than the {FIXED}-byte header", map.len())));
        }
        if &map[0..8] != MAGIC {
            return Err(bad("not a Griot endgame database (bad magic)"));
        }
        let u32_at = |i: usize| u32::from_le_bytes(map[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(map[i..i + 8].try_into().expect("8 bytes"));
        let version = u32_at(8);
        if version != FORMAT_VERSION {
            return Err(EgdbError::Mismatch {
                path: p.clone(),
                field: "format version",
                expected: FORMAT_VERSION.to_string(),
                found: version.to_string(),
            });
        }
        let name_len = u32_at(20) as usize;
        let start = FIXED + padded(name_len);
        if map.len() < start {
            return Err(bad("truncated in the rule-set string"));
        }
        let rules = std::str::from_utf8(&map[FIXED..FIXED + name_len])
            .map_err(|_| bad("the rule-set string is not UTF-8"))?;
        let found = LevelKey {
            rules: rules.to_string(),
            holes: u32_at(16),
            seeds: u32_at(12),
            positions: u64_at(24),
        };
        let fields: [(&'static str, String, String); 4] = [
            ("rule set", want.rules.clone(), found.rules.clone()),
            ("holes", want.holes.to_string(), found.holes.to_string()),
            ("seeds", want.seeds.to_string(), found.seeds.to_string()),
            ("positions", want.positions.to_string(), found.positions.to_string()),
        ];
        for (field, expected, got) in fields {
            if expected != got {
                return Err(EgdbError::Mismatch { path: p.clone(), field, expected, found: got });
            }
        }
        let flagged = u64_at(40);
        let table = start as u64 + padded(found.positions as usize) as u64;
        let end = flagged.checked_mul(2).and_then(|t| t.checked_add(table));
        if end != Some(map.len() as u64) {
            return Err(bad(&format!(
                "{} bytes where the header says {} positions, {flagged} valued by a cycle",
                map.len(),
                found.positions
            )));
        }
        let stored = u64_at(32);
        let sum = checksum(&[&map[0..32], rules.as_bytes(), &map[start..], &map[40..48]]);
        if sum != stored {
            return Err(EgdbError::Corrupt {
                path: p.clone(),
                message: format!("checksum {sum:016x} where the header says {stored:016x}"),
            });
        }
        let values = &map[start..start + found.positions as usize];
        let mut ranks = Vec::with_capacity(values.len() / RANK_BLOCK + 1);
        let mut marked = 0u64;
        for block in values.chunks(RANK_BLOCK) {
            ranks.push(marked);
            marked += flags_in(block);
        }
        // A file that passes its checksum but whose count of bounds does not match its flags was
        // written wrong: refused rather than read.
        if marked != flagged {
            return Err(bad(&format!("{marked} positions flagged, the header says {flagged}")));
        }
        Ok(LevelFile {
            start,
            positions: found.positions as usize,
            table: table as usize,
            flagged: flagged as usize,
            ranks,
            path: p.clone(),
            map,
        })
    }

    /// The margin at `index` (below the level's position count).
    #[inline]
    pub fn get(&self, index: u64) -> i8 {
        decode(self.map[self.start + index as usize]).0
    }

    /// Whether the position at `index` is valued by a cycle.
    #[inline]
    pub fn cycle(&self, index: u64) -> bool {
        decode(self.map[self.start + index as usize]).1
    }

    /// The side to move's bounds `(lo, hi)` at `index`: the value twice, or for a position
    /// valued by a cycle the bounds its level's two fixpoints gave it.
    pub fn bounds(&self, index: u64) -> (i8, i8) {
        let (v, cycle) = decode(self.map[self.start + index as usize]);
        if !cycle {
            return (v, v);
        }
        let i = index as usize;
        let block = i / RANK_BLOCK;
        let from = self.start + block * RANK_BLOCK;
        let rank = self.ranks[block] + flags_in(&self.map[from..self.start + i]);
        // Below `flagged`: open checked the count of flags.
        let at = self.table + 2 * rank as usize;
        (self.map[at] as i8, self.map[at + 1] as i8)
    }

    /// How many positions are valued by a cycle.
    pub fn cycle_valued(&self) -> u64 {
        self.flagged as u64
    }

    /// The positions' bytes, as stored.
    pub fn values(&self) -> &[u8] {
        &self.map[self.start..self.start + self.positions]
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
