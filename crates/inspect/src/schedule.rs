//! Partition work on a thread pool under the memory budget: the one
//! scheduler of the commands that walk partitions (`verify`, `stats`).
//!
//! Invariants:
//! * results come back in the order the items were given;
//! * the largest items start first (longest-processing-time order), so the
//!   small ones fill in around them; each item is told whether it should
//!   read ahead (and check batches in parallel): only when cores would
//!   otherwise idle - fewer items than threads - or when it is larger than
//!   a thread's share of all the bytes, which would leave it finishing alone
//!   on one core;
//! * an item the memory budget refused while other threads held memory
//!   ([`Refusal::refused_by_budget`]) is run again alone once every other
//!   item is done (thread caches released first, no read-ahead), so what is
//!   reported never depends on timing; what still does not fit is the
//!   item's own answer.

use rayon::prelude::*;

/// How an item is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Beside the others; `read_ahead`: whether it should read ahead.
    Shared {
        /// Read ahead and work batch-parallel.
        read_ahead: bool,
    },
    /// Again, alone, after the memory budget refused it beside the others.
    Alone,
}

impl Pass {
    /// Whether the item should read ahead.
    pub fn read_ahead(self) -> bool {
        matches!(self, Pass::Shared { read_ahead: true })
    }
}

/// A result that may say the memory budget refused the work.
pub trait Refusal {
    /// The memory budget refused the work (it may fit alone).
    fn refused_by_budget(&self) -> bool;
}

impl<T> Refusal for logfmt::error::Result<T> {
    fn refused_by_budget(&self) -> bool {
        self.as_ref().err().is_some_and(|e| e.class() == logfmt::error::ErrorClass::Memory)
    }
}

/// Run `run` over `items` (each with its size in bytes) on `threads`
/// threads, as the module docs say; the results in the order given.
pub fn run<W, T>(
    items: Vec<(W, u64)>,
    threads: usize,
    run: impl Fn(&W, Pass) -> T + Sync,
) -> Result<Vec<T>, rayon::ThreadPoolBuildError>
where
    W: Send + Sync,
    T: Send + Refusal,
{
    let count = items.len();
    let total: u64 = items.iter().map(|(_, s)| *s).sum();
    let share = total.checked_div(threads as u64).unwrap_or(total);
    let mut order: Vec<(usize, u64, W)> = items.into_iter().enumerate().map(|(i, (w, size))| (i, size, w)).collect();
    order.sort_by_key(|(_, size, _)| std::cmp::Reverse(*size));
    let order: Vec<(usize, W, Pass)> = order
        .into_iter()
        .map(|(i, size, w)| (i, w, Pass::Shared { read_ahead: count < threads || size > share }))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    let mut done: Vec<(usize, W, T)> = pool.install(|| {
        order
            .into_par_iter()
            .with_max_len(1)
            .map(|(i, w, pass)| {
                let r = run(&w, pass);
                (i, w, r)
            })
            .collect()
    });
    if done.iter().any(|(.., r)| r.refused_by_budget()) {
        pool.broadcast(|_| logfmt::compression::release_thread_caches());
        for (_, w, r) in &mut done {
            if r.refused_by_budget() {
                *r = run(w, Pass::Alone);
            }
        }
    }
    done.sort_by_key(|(i, ..)| *i);
    Ok(done.into_iter().map(|(.., r)| r).collect())
}

/// The largest slab: reads this large cost no more a byte than larger ones,
/// and a few per thread stay within a small memory budget.
const MAX_SLAB: usize = 4 << 20;

/// How much of a segment to read at a time: as large as the memory budget
/// allows when every thread holds a few slabs (reading, being worked on,
/// recycled), between 256 KiB and [`MAX_SLAB`].
pub fn slab_size(limits: &logfmt::limits::Limits) -> usize {
    let threads = rayon::current_num_threads().max(1) as u64;
    let share = limits.budget.total().checked_div(threads.saturating_mul(12)).unwrap_or(0);
    usize::try_from(share).unwrap_or(MAX_SLAB).clamp(256 << 10, MAX_SLAB)
}

/// Read `reader`'s slabs of `size` bytes in order and give each to `each`,
/// until it returns false. With `read_ahead`, the next slab is read on a
/// thread of its own while `each` works on the one before (at most two
/// waiting; the slabs `each` is done with go back to the reader, which
/// reuses their buffers). A read error ends the walk and is returned, once
/// `each` has seen every slab before it.
pub fn slabs(
    reader: &mut logfmt::log::LogReader,
    size: usize,
    read_ahead: bool,
    mut each: impl FnMut(&logfmt::log::Slab) -> bool,
) -> logfmt::error::Result<()> {
    if !read_ahead {
        while let Some(slab) = reader.next_slab(size)? {
            let go_on = each(&slab);
            reader.recycle(slab);
            if !go_on {
                break;
            }
        }
        return Ok(());
    }
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel(2);
        let (back_tx, back_rx) = std::sync::mpsc::channel::<logfmt::log::Slab>();
        scope.spawn(move || {
            loop {
                if let Ok(done) = back_rx.try_recv() {
                    reader.recycle(done);
                }
                let slab = reader.next_slab(size);
                let stop = !matches!(slab, Ok(Some(_)));
                if tx.send(slab).is_err() || stop {
                    break;
                }
            }
        });
        for slab in rx {
            match slab? {
                Some(slab) => {
                    let go_on = each(&slab);
                    let _ = back_tx.send(slab);
                    if !go_on {
                        // (the reader stops at its next send)
                        break;
                    }
                }
                None => break,
            }
        }
        Ok(())
    })
}
