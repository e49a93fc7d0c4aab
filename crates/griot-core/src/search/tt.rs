//! The transposition table: a fixed-size, per-search cache of results in Rust memory.
//!
//! Entries are 16 bytes (the full 64-bit [`Game::hash_key`](crate::Game::hash_key) as
//! verification, score, best move as its index in the legal-move list, depth, bound and
//! generation), four to a 64-byte bucket. Replacement is depth-preferred with aging: an entry of the
//! same position is overwritten unless it is much deeper and of the same search; otherwise the
//! victim is the bucket's entry with the lowest `depth - 8 × age`, so stale deep entries of earlier
//! searches give way. Scores are node-relative for proven wins and losses (see
//! [`score::to_table`](super::score::to_table)).

use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU64, AtomicU8};

use super::score::{Bound, Value};

/// A move stored as its index in the position's legal-move list; `NO_MOVE` when none.
pub const NO_MOVE: u16 = u16::MAX;

/// One table entry as read back by a probe.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TableEntry {
    /// Node-relative score.
    pub value: Value,
    /// Remaining depth the score was searched to.
    pub depth: u8,
    /// What the score bounds.
    pub bound: Bound,
    /// Index of the best move in the legal-move list, or [`NO_MOVE`].
    pub best: u16,
    /// Whether an auxiliary thread of a parallel search stored it (see
    /// [`TranspositionTable::store_by`]).
    pub auxiliary: bool,
}

/// The bit of a slot's depth byte that marks an auxiliary thread's entry; depths stay below it.
const AUXILIARY: u8 = 0x80;

/// A slot's contents: score, best move, depth, and generation and bound.
#[derive(Copy, Clone, Default)]
struct Slot {
    key: u64,
    value: i32,
    best: u16,
    depth: u8,
    /// Generation in the high 6 bits, bound in the low 2 (0 = empty).
    gen_bound: u8,
}

impl Slot {
    #[inline(always)]
    fn data(&self) -> u64 {
        self.value as u32 as u64
            | (self.best as u64) << 32
            | (self.depth as u64) << 48
            | (self.gen_bound as u64) << 56
    }
}

/// A slot as the table holds it: two words written and read without locks by every thread of a
/// search. The first word is the key xored with the second, so a slot torn by two threads
/// writing at once (one's key word with the other's data word) fails the key check and reads as
/// another position's, never as a wrong entry of this one.
#[derive(Default)]
#[repr(C)]
struct AtomicSlot {
    check: AtomicU64,
    data: AtomicU64,
}

impl AtomicSlot {
    #[inline(always)]
    fn load(&self) -> Slot {
        let data = self.data.load(Relaxed);
        let check = self.check.load(Relaxed);
        Slot {
            key: check ^ data,
            value: data as u32 as i32,
            best: (data >> 32) as u16,
            depth: (data >> 48) as u8,
            gen_bound: (data >> 56) as u8,
        }
    }

    #[inline(always)]
    fn store(&self, s: &Slot) {
        let data = s.data();
        self.data.store(data, Relaxed);
        self.check.store(s.key ^ data, Relaxed);
    }

    fn clear(&self) {
        self.data.store(0, Relaxed);
        self.check.store(0, Relaxed);
    }
}

const SLOTS: usize = 4;

#[derive(Default)]
#[repr(C, align(64))]
struct Bucket([AtomicSlot; SLOTS]);

/// The buckets' memory: zeroed, aligned to huge pages when the table is big enough, and on Linux
/// advised to use them (the table is probed at random: with 4 KB pages nearly every probe of a
/// 64 MB table also misses the TLB).
struct Buckets {
    ptr: std::ptr::NonNull<Bucket>,
    len: usize,
}

/// Huge page size on x86-64 and aarch64 Linux.
const HUGE_PAGE: usize = 2 << 20;

#[cfg(target_os = "linux")]
extern "C" {
    fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: std::ffi::c_int) -> std::ffi::c_int;
}

impl Buckets {
    fn layout(len: usize) -> std::alloc::Layout {
        let bytes = len * std::mem::size_of::<Bucket>();
        let align = if bytes >= HUGE_PAGE { HUGE_PAGE } else { std::mem::align_of::<Bucket>() };
        std::alloc::Layout::from_size_align(bytes, align).expect("table size")
    }

    fn new(len: usize) -> Buckets {
        if len == 0 {
            return Buckets { ptr: std::ptr::NonNull::dangling(), len: 0 };
        }
        let layout = Self::layout(len);
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { std::alloc::alloc(layout) };
        let Some(ptr) = std::ptr::NonNull::new(raw as *mut Bucket) else {
            std::alloc::handle_alloc_error(layout)
        };
        #[cfg(target_os = "linux")]
        if layout.align() == HUGE_PAGE {
            const MADV_HUGEPAGE: std::ffi::c_int = 14;
            // SAFETY: the range is the allocation just made; the advice is only a hint (a
            // kernel without transparent huge pages returns an error, ignored).
            unsafe { madvise(raw as *mut std::ffi::c_void, layout.size(), MADV_HUGEPAGE) };
        }
        // Zeroed after the advice, so that the first touch of each range faults in a huge page.
        // SAFETY: `raw` holds `layout.size()` writable bytes; all zeros is a valid `Bucket` (atomic
        // integers of 0).
        unsafe { std::ptr::write_bytes(raw, 0, layout.size()) };
        Buckets { ptr, len }
    }
}

impl std::ops::Deref for Buckets {
    type Target = [Bucket];
    fn deref(&self) -> &[Bucket] {
        // SAFETY: `ptr` holds `len` initialised buckets (or is dangling with `len` 0).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Buckets {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: allocated in `new` with this layout.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr() as *mut u8, Self::layout(self.len)) };
        }
    }
}

// SAFETY: `Buckets` owns its memory like a `Vec<Bucket>`; `Bucket` is atomics.
unsafe impl Send for Buckets {}
// SAFETY: shared access goes through the slots' atomics.
unsafe impl Sync for Buckets {}

/// The transposition table. A size of 0 MB disables it (every probe misses).
pub struct TranspositionTable {
    buckets: Buckets,
    generation: AtomicU8,
}

impl TranspositionTable {
    /// A table of about `megabytes` MB (0 disables it).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let n = megabytes.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>();
        TranspositionTable { buckets: Buckets::new(n), generation: AtomicU8::new(0) }
    }

    /// Whether the table has any room.
    pub fn enabled(&self) -> bool {
        !self.buckets.is_empty()
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Starts a new search: entries of earlier searches age.
    pub fn new_search(&self) {
        self.generation.store((self.generation.load(Relaxed) + 1) & 63, Relaxed);
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for b in self.buckets.iter() {
            for s in &b.0 {
                s.clear();
            }
        }
    }

    #[inline(always)]
    fn bucket_index(&self, key: u64) -> usize {
        ((key as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    /// Asks the CPU to bring `key`'s bucket into cache ahead of the probe: table probes are
    /// memory-latency bound, and the search knows a child's key before it searches the child.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        if !self.buckets.is_empty() {
            let p = &self.buckets[self.bucket_index(key)] as *const Bucket as *const i8;
            // SAFETY: prefetching is a hint; the pointer is in bounds.
            unsafe { std::arch::x86_64::_mm_prefetch(p, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry for `key`, if the table holds one.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<TableEntry> {
        if self.buckets.is_empty() {
            return None;
        }
        let b = &self.buckets[self.bucket_index(key)];
        b.0.iter().map(AtomicSlot::load).find(|s| s.key == key && s.gen_bound & 3 != 0).map(|s| TableEntry {
            value: s.value,
            depth: s.depth & !AUXILIARY,
            bound: Bound::from_bits(s.gen_bound).expect("non-empty slot"),
            best: s.best,
            auxiliary: s.depth & AUXILIARY != 0,
        })
    }

    /// Stores a result (node-relative `value`). Several threads may store at once (see
    /// [`AtomicSlot`]).
    #[inline]
    pub fn store(&self, key: u64, value: Value, depth: u8, bound: Bound, best: u16) {
        self.store_by(key, value, depth, bound, best, false);
    }

    /// [`TranspositionTable::store`], marked as an auxiliary thread's (`auxiliary`) or not: the
    /// main thread of a parallel search trusts an auxiliary thread's value only at the depth it
    /// needs, so that its result stays the single-threaded search's. Depths are capped at 127.
    #[inline]
    pub fn store_by(&self, key: u64, value: Value, depth: u8, bound: Bound, best: u16, auxiliary: bool) {
        if self.buckets.is_empty() {
            return;
        }
        let depth = depth.min(AUXILIARY - 1);
        let generation = self.generation.load(Relaxed);
        let i = self.bucket_index(key);
        let slots = &self.buckets[i].0;
        let b = [slots[0].load(), slots[1].load(), slots[2].load(), slots[3].load()];
        let age = |s: &Slot| (generation.wrapping_sub(s.gen_bound >> 2) & 63) as i32;
        let victim = match b.iter().position(|s| s.key == key && s.gen_bound & 3 != 0) {
            Some(j) => {
                let s = &b[j];
                // Keep a much deeper result of this search for the same position, but its move
                // is still the freshest guess when the new one has none.
                if bound != Bound::Exact && age(s) == 0 && (s.depth & !AUXILIARY) as i32 > depth as i32 + 3 {
                    return;
                }
                j
            }
            None => (0..SLOTS)
                .min_by_key(|&j| {
                    let s = &b[j];
                    if s.gen_bound & 3 == 0 {
                        i32::MIN
                    } else {
                        (s.depth & !AUXILIARY) as i32 - 8 * age(s)
                    }
                })
                .expect("buckets are not empty"),
        };
        let old = b[victim];
        let best = if best == NO_MOVE && old.key == key { old.best } else { best };
        let depth = if auxiliary { depth | AUXILIARY } else { depth };
        slots[victim].store(&Slot { key, value, best, depth, gen_bound: (generation << 2) | bound as u8 });
    }

    /// Per mille of the first 1,000 buckets' slots used by this search (like UCI `hashfull`).
    pub fn fill_permille(&self) -> u32 {
        let generation = self.generation.load(Relaxed);
        let n = self.buckets.len().min(1000);
        if n == 0 {
            return 0;
        }
        let used: usize = self.buckets[..n]
            .iter()
            .map(|b| {
                b.0.iter()
                    .map(AtomicSlot::load)
                    .filter(|s| s.gen_bound & 3 != 0 && s.gen_bound >> 2 == generation)
                    .count()
            })
            .sum();
        (used * 1000 / (n * SLOTS)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_probes() {
        let tt = TranspositionTable::new(1);
        assert!(tt.probe(42).is_none());
        tt.store(42, 17, 5, Bound::Lower, 3);
        let e = tt.probe(42).unwrap();
        assert_eq!((e.value, e.depth, e.bound, e.best), (17, 5, Bound::Lower, 3));
        // A shallower non-exact result of the same search does not evict a much deeper one.
        tt.store(42, 1, 1, Bound::Upper, NO_MOVE);
        assert_eq!(tt.probe(42).unwrap().depth, 5);
        // Without a move the old move is kept.
        tt.store(42, 9, 6, Bound::Upper, NO_MOVE);
        assert_eq!(tt.probe(42).unwrap().best, 3);
    }

    #[test]
    fn disabled_table_misses() {
        let tt = TranspositionTable::new(0);
        tt.store(1, 1, 1, Bound::Exact, 0);
        assert!(tt.probe(1).is_none());
    }

    #[test]
    fn old_entries_give_way() {
        let tt = TranspositionTable::new(1);
        let n = tt.buckets.len() as u128;
        // Five keys in bucket 0.
        let keys: Vec<u64> = (0..5u128).map(|i| ((i << 64) / n / 8) as u64 + 1).collect();
        for &k in &keys[..4] {
            tt.store(k, 0, 30, Bound::Exact, 0);
        }
        for _ in 0..8 {
            tt.new_search();
        }
        tt.store(keys[4], 0, 2, Bound::Exact, 0);
        assert!(tt.probe(keys[4]).is_some());
    }
}
