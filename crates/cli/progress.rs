//! A progress bar on stderr for long runs (bytes or records done / total, ETA).
//!
//! Shown only when stderr is a terminal, stdout is not (so it never garbles a
//! table on the same screen), and `--quiet` is not given.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    pub fn new(total_bytes: u64, quiet: bool) -> Progress {
        Self::with_template(total_bytes, quiet, "{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}")
    }

    /// Counting records instead of bytes.
    pub fn records(total: u64, quiet: bool) -> Progress {
        Self::with_template(total, quiet, "{bar:40} {human_pos}/{human_len} records {per_sec} ETA {eta}")
    }

    fn with_template(total: u64, quiet: bool, template: &str) -> Progress {
        let show = !quiet && std::io::stderr().is_terminal() && !std::io::stdout().is_terminal();
        if !show {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
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
        }
    }
}
