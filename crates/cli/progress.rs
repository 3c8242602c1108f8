//! A progress bar on stderr for long runs (bytes done / total, ETA).
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
        let show = !quiet && std::io::stderr().is_terminal() && !std::io::stdout().is_terminal();
        if !show {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(total_bytes), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
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
