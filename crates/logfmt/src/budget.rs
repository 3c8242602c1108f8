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
        // split and absorb move bytes between grants, holding the same total
        let part = g.split(4);
        assert_eq!((g.bytes(), part.bytes(), b.used()), (6, 4, 10));
        g.absorb(part);
        assert_eq!((g.bytes(), b.used()), (10, 10));
        let other = Budget::leak(10).try_reserve(3).unwrap();
        g.absorb(other);
        assert_eq!((g.bytes(), b.used()), (10, 10));
        drop(g);
        assert_eq!((b.used(), b.peak()), (0, 100));
    }
}
