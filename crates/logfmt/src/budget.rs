//! One memory budget for the whole process (`--memory`).
//!
//! Every buffer whose size follows the data - a log reader's window when an
//! entry is large, a decoder's window when a record or a compressed block is
//! large, a zstd frame's history window - takes its bytes from one
//! [`Budget`] before it allocates them, through a [`Grant`] that gives them
//! back when it is dropped. What the process and each reading thread need
//! whatever the data ([`BASELINE`], [`PER_THREAD`]: code, output buffers, a
//! decoder's 128 KiB window, codec state) is not counted: the CLI's
//! `--memory` is the whole process's, and the budget it makes is what is
//! left of it after those ([`pool_for`]).
//!
//! A reservation never waits: it succeeds or fails at once
//! ([`Budget::try_reserve`]). Waiting while holding memory could deadlock two
//! threads that each hold half of the budget; instead a caller that is
//! refused either does without (a smaller read-ahead) or reports
//! [`crate::ErrorKind::MemoryBudget`], and the commands that run partitions
//! in parallel run a refused partition again alone, when nothing else holds
//! memory, so what they report does not depend on timing.
//!
//! Invariant: the bytes held by live grants never exceed the total.

use std::sync::atomic::{AtomicU64, Ordering};

/// Default budget: 64 MiB.
pub const DEFAULT_MEMORY: u64 = 64 << 20;

/// What the process needs whatever it reads (its code and libraries, output
/// buffers, the findings it keeps): not counted in the budget.
pub const BASELINE: u64 = 8 << 20;

/// What a reading thread needs whatever the data (a decoder's window, codec
/// state, its stack): not counted in the budget.
pub const PER_THREAD: u64 = 1 << 20;

/// The smallest `--memory` the CLI accepts.
pub const MIN_MEMORY: u64 = 16 << 20;

/// The budget left of `memory` for the whole process when `threads` read
/// at once, and the threads it allows: at most one per 4 × [`PER_THREAD`],
/// so that fixed costs never take more than a quarter of it.
pub fn pool_for(memory: u64, threads: usize) -> (u64, usize) {
    let cap =
        usize::try_from(memory.checked_div(PER_THREAD.saturating_mul(4)).unwrap_or(0)).unwrap_or(usize::MAX).max(1);
    let threads = threads.clamp(1, cap);
    let fixed = BASELINE.saturating_add(PER_THREAD.saturating_mul(threads as u64));
    (memory.saturating_sub(fixed).max(MIN_MEMORY / 2), threads)
}

/// A pool of bytes shared by every thread.
#[derive(Debug)]
pub struct Budget {
    total: u64,
    used: AtomicU64,
    peak: AtomicU64,
}

/// The budget `Limits::default()` uses: [`DEFAULT_MEMORY`].
pub static DEFAULT: Budget = Budget::new(DEFAULT_MEMORY);

impl PartialEq for Budget {
    /// Budgets are the same when they are the same pool.
    fn eq(&self, other: &Budget) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Budget {}

impl Budget {
    /// A budget of `total` bytes.
    pub const fn new(total: u64) -> Budget {
        Budget { total, used: AtomicU64::new(0), peak: AtomicU64::new(0) }
    }

    /// A budget that lives as long as the process (one per run of the CLI).
    pub fn leak(total: u64) -> &'static Budget {
        Box::leak(Box::new(Budget::new(total)))
    }

    /// Its size in bytes.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Bytes held by grants now.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// The most bytes grants have held at once.
    pub fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }

    /// Take `bytes` more if they are free now.
    fn take(&self, bytes: u64) -> bool {
        if bytes == 0 {
            return true;
        }
        let mut used = self.used.load(Ordering::Relaxed);
        loop {
            let Some(next) = used.checked_add(bytes).filter(|&n| n <= self.total) else { return false };
            match self.used.compare_exchange_weak(used, next, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => {
                    self.peak.fetch_max(next, Ordering::Relaxed);
                    return true;
                }
                Err(now) => used = now,
            }
        }
    }

    fn give(&self, bytes: u64) {
        // (never below zero: a grant gives back only what it took)
        let _ = self.used.fetch_update(Ordering::AcqRel, Ordering::Relaxed, |u| Some(u.saturating_sub(bytes)));
    }

    /// A grant of `bytes`, or `None` when fewer are free.
    pub fn try_reserve(&'static self, bytes: u64) -> Option<Grant> {
        self.take(bytes).then(|| Grant { budget: self, bytes })
    }

    /// A grant of nothing, to grow later.
    pub fn grant(&'static self) -> Grant {
        Grant { budget: self, bytes: 0 }
    }

    /// The error for a reservation of `needed` bytes this budget refused.
    pub fn short(&self, what: &'static str, needed: u64) -> Short {
        Short { what, needed, free: self.total.saturating_sub(self.used()), total: self.total }
    }
}

/// Bytes held from a [`Budget`]; given back on drop.
#[derive(Debug)]
pub struct Grant {
    budget: &'static Budget,
    bytes: u64,
}

impl Grant {
    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The budget it is held from.
    pub fn budget(&self) -> &'static Budget {
        self.budget
    }

    /// Hold exactly `bytes`: shrinking always succeeds, growing only when the
    /// difference is free (otherwise nothing changes).
    pub fn try_resize(&mut self, bytes: u64) -> bool {
        if bytes <= self.bytes {
            self.budget.give(self.bytes.saturating_sub(bytes));
            self.bytes = bytes;
            return true;
        }
        if self.budget.take(bytes.saturating_sub(self.bytes)) {
            self.bytes = bytes;
            return true;
        }
        false
    }
}

impl Grant {
    /// Take over what `other` holds (from the same budget; from another one,
    /// `other` is simply given back).
    pub fn absorb(&mut self, mut other: Grant) {
        if other.budget == self.budget {
            self.bytes = self.bytes.saturating_add(std::mem::take(&mut other.bytes));
        }
    }

    /// Split off a grant of `bytes` (at most what is held).
    pub fn split(&mut self, bytes: u64) -> Grant {
        let bytes = bytes.min(self.bytes);
        self.bytes = self.bytes.saturating_sub(bytes);
        Grant { budget: self.budget, bytes }
    }
}

impl Drop for Grant {
    fn drop(&mut self) {
        self.budget.give(self.bytes);
    }
}

/// A reservation the budget refused: what it was for and how much.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Short {
    /// What needed the memory.
    pub what: &'static str,
    /// Bytes asked for.
    pub needed: u64,
    /// Bytes free when it was refused.
    pub free: u64,
    /// The budget's size.
    pub total: u64,
}

impl Short {
    /// The error to report.
    pub fn error(self, position: u64) -> crate::Error {
        crate::Error::at(
            position,
            crate::ErrorKind::MemoryBudget { what: self.what, needed: self.needed, budget: self.total },
        )
    }
}

/// A byte buffer whose capacity beyond a free allowance is held from a
/// budget: it grows only through [`Buf::reserve`], which takes the bytes
/// first, and gives them back when it shrinks or is dropped.
#[derive(Debug)]
pub struct Buf {
    vec: Vec<u8>,
    grant: Grant,
    free: usize,
}

impl Buf {
    /// An empty buffer; capacity up to `free` bytes is not counted.
    pub fn new(budget: &'static Budget, free: usize) -> Buf {
        Buf { vec: Vec::new(), grant: budget.grant(), free }
    }

    /// Make room for `additional` more bytes after `len()`, growing by at
    /// least half again when it must grow (so appending stays linear) but
    /// never beyond what the budget gives.
    pub fn reserve(&mut self, additional: usize, what: &'static str) -> Result<(), Short> {
        let cap = self.vec.capacity();
        let want = self.vec.len().saturating_add(additional);
        if want <= cap {
            return Ok(());
        }
        let generous = want.max(cap.saturating_add(cap / 2));
        for target in [generous, want] {
            if self.grant.try_resize(target.saturating_sub(self.free) as u64) {
                self.vec.reserve_exact(target.saturating_sub(self.vec.len()));
                return self.sync(what);
            }
        }
        Err(self.grant.budget.short(what, want.saturating_sub(self.free) as u64))
    }

    /// Hold exactly what the capacity needs (the allocator may round up).
    fn sync(&mut self, what: &'static str) -> Result<(), Short> {
        let need = self.vec.capacity().saturating_sub(self.free) as u64;
        if self.grant.try_resize(need.max(self.grant.bytes())) {
            Ok(())
        } else {
            let short = self.grant.budget.short(what, need.saturating_sub(self.grant.bytes()));
            self.shrink_to(0);
            Err(short)
        }
    }

    /// Give back capacity above `max(len, cap)`.
    pub fn shrink_to(&mut self, cap: usize) {
        self.vec.shrink_to(cap);
        let need = self.vec.capacity().saturating_sub(self.free) as u64;
        self.grant.try_resize(need);
    }

    /// The bytes.
    pub fn vec(&self) -> &Vec<u8> {
        &self.vec
    }

    /// The bytes, to change without growing: growing past the capacity
    /// through this would go uncounted ([`Buf::reserve`] first).
    pub fn vec_mut(&mut self) -> &mut Vec<u8> {
        &mut self.vec
    }

    /// Bytes held from the budget.
    pub fn held(&self) -> u64 {
        self.grant.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_hold_and_give_back() {
        let b = Budget::leak(100);
        let mut g = b.try_reserve(60).unwrap();
        assert!(b.try_reserve(41).is_none());
        let h = b.try_reserve(40).unwrap();
        assert_eq!(b.used(), 100);
        assert!(!g.try_resize(61));
        assert!(g.try_resize(10));
        assert_eq!(b.used(), 50);
        drop(h);
        drop(g);
        assert_eq!((b.used(), b.peak()), (0, 100));
    }

    #[test]
    fn a_buffer_counts_capacity_beyond_its_allowance() {
        let b = Budget::leak(1 << 20);
        let mut buf = Buf::new(b, 1000);
        buf.reserve(500, "t").unwrap();
        assert_eq!(b.used(), 0);
        buf.reserve(5000, "t").unwrap();
        assert!(b.used() >= 4000 && b.used() as usize + 1000 >= buf.vec().capacity());
        let short = buf.reserve(2 << 20, "t").unwrap_err();
        assert_eq!(short.total, 1 << 20);
        buf.shrink_to(0);
        assert_eq!(b.used(), 0);
        drop(buf);
        assert_eq!(b.used(), 0);
    }
}
