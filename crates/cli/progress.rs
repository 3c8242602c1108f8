//! A progress bar on stderr for long runs (bytes or records done / total, ETA).
//!
//! Shown when stderr is a terminal, the work is long (at least
//! [`LONG_BYTES`] or [`LONG_RECORDS`]) and `--quiet` is not given. While a
//! bar is shown, output to the same screen goes through [`suspend`]: the bar
//! is cleared, the lines written and flushed, then the bar drawn again, so a
//! table on stdout is never garbled.

use std::io::IsTerminal;
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// Less than this many bytes is done before a bar would be worth drawing.
const LONG_BYTES: u64 = 256 << 20;
/// Likewise in records.
const LONG_RECORDS: u64 = 2_000_000;

/// The bar being shown, if any (one command runs at a time).
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

#[derive(Clone)]
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    pub fn new(total_bytes: u64, quiet: bool) -> Progress {
        let template = "{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}";
        Self::with_template(total_bytes, total_bytes >= LONG_BYTES, quiet, template)
    }

    /// Counting records instead of bytes.
    pub fn records(total: u64, quiet: bool) -> Progress {
        let template = "{bar:40} {human_pos}/{human_len} records {rate} ETA {eta}";
        Self::with_template(total, total >= LONG_RECORDS, quiet, template)
    }

    fn with_template(total: u64, long: bool, quiet: bool, template: &str) -> Progress {
        // LOGTOOL_TEST_PROGRESS: a bar for work of any size (tests, on a
        // pseudo-terminal)
        let long = long || std::env::var_os("LOGTOOL_TEST_PROGRESS").is_some();
        let show = !quiet && long && std::io::stderr().is_terminal();
        if !show {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        // no ETA until there is a rate to base one on (a first frame's
        // estimate is noise: "ETA 55m")
        let style = ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key("eta", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                if s.pos() == 0 || s.elapsed() < std::time::Duration::from_secs(2) {
                    let _ = w.write_str("…");
                } else {
                    let _ = write!(w, "{:#}", indicatif::HumanDuration(s.eta()));
                }
            })
            // a whole number of records a second, grouped (not `245,712.2241/s`)
            .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}/s", logfmt::report::grouped(s.per_sec() as u64));
            });
        bar.set_style(style);
        if let Ok(mut a) = ACTIVE.lock() {
            *a = Some(bar.clone());
        }
        // the first frame at once (then at most 20 a second)
        bar.tick();
        Progress { bar: Some(bar) }
    }

    pub fn inc(&self, bytes: u64) {
        if let Some(b) = &self.bar {
            b.inc(bytes);
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
            if let Ok(mut a) = ACTIVE.lock() {
                *a = None;
            }
        }
    }
}

/// Run `f` (which writes to the terminal) with the bar, if one is shown,
/// cleared meanwhile; returns whether a bar is shown (the caller then flushes
/// inside `f`).
pub fn suspend<R>(f: impl FnOnce(bool) -> R) -> R {
    let bar = ACTIVE.lock().ok().and_then(|a| a.clone());
    match bar {
        Some(b) => b.suspend(|| f(true)),
        None => f(false),
    }
}
