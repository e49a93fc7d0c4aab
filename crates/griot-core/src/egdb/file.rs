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
//! | 32..40 | checksum of bytes 0..32, the rule-set string and the values |
//! | 40..48 | zero |
//! | 48.. | the rule-set string (a variant string), zero-padded to a multiple of 8 |
//! | then | one signed byte a position: the side to move's margin over the board's seeds |

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::EgdbError;

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"GRIOTEGB";
/// The format this code writes and reads.
pub const FORMAT_VERSION: u32 = 1;
const FIXED: usize = 48;

/// FNV-1a over 64-bit words (then the tail bytes): a checksum against truncation and bit rot,
/// not against tampering.
pub fn checksum(parts: &[&[u8]]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01B3;
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for part in parts {
        let mut words = part.chunks_exact(8);
        for w in &mut words {
            h ^= u64::from_le_bytes(w.try_into().expect("8 bytes"));
            h = h.wrapping_mul(PRIME);
            h ^= h >> 29;
        }
        for &b in words.remainder() {
            h ^= b as u64;
            h = h.wrapping_mul(PRIME);
        }
        // The part boundary counts: "ab" + "c" differs from "a" + "bc".
        h ^= part.len() as u64;
        h = h.wrapping_mul(PRIME);
    }
    h
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
/// crash leaves either no file or a whole one.
pub fn write_level(path: &Path, key: &LevelKey, values: &[i8]) -> Result<(), EgdbError> {
    let io = |e: std::io::Error| EgdbError::Io { path: path.to_path_buf(), message: e.to_string() };
    assert_eq!(values.len() as u64, key.positions, "a level holds one value a position");
    // SAFETY-free reinterpretation: i8 and u8 have the same size and any bit pattern is valid.
    let bytes: Vec<u8> = values.iter().map(|&v| v as u8).collect();
    let fixed = fixed_header(key);
    let mut name = key.rules.clone().into_bytes();
    name.resize(padded(name.len()), 0);
    let sum = checksum(&[&fixed, key.rules.as_bytes(), &bytes]);
    let tmp = path.with_extension("tmp");
    {
        let mut f = File::create(&tmp).map_err(io)?;
        f.write_all(&fixed).map_err(io)?;
        f.write_all(&sum.to_le_bytes()).map_err(io)?;
        f.write_all(&[0u8; 8]).map_err(io)?;
        f.write_all(&name).map_err(io)?;
        f.write_all(&bytes).map_err(io)?;
        f.sync_all().map_err(io)?;
    }
    std::fs::rename(&tmp, path).map_err(io)
}

/// A level file mapped read-only and checked.
#[derive(Debug)]
pub struct LevelFile {
    map: Mmap,
    start: usize,
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
        let end = start as u64 + found.positions;
        if map.len() as u64 != end {
            return Err(bad(&format!("{} bytes where the header says {end}", map.len())));
        }
        let stored = u64_at(32);
        let sum = checksum(&[&map[0..32], rules.as_bytes(), &map[start..]]);
        if sum != stored {
            return Err(EgdbError::Corrupt {
                path: p.clone(),
                message: format!("checksum {sum:016x} where the header says {stored:016x}"),
            });
        }
        Ok(LevelFile { map, start, path: p })
    }

    /// The value at `index` (below the level's position count).
    #[inline]
    pub fn get(&self, index: u64) -> i8 {
        self.map[self.start + index as usize] as i8
    }

    /// The values.
    pub fn values(&self) -> &[u8] {
        &self.map[self.start..]
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
