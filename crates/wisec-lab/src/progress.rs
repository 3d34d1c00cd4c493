//! Progress of a run on standard error: a bar on a terminal, one line per
//! trial otherwise (logs, CI), nothing when quiet.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressMode {
    /// A bar when standard error is a terminal, else a line per trial.
    Auto,
    /// A line per trial.
    Lines,
    /// Nothing.
    Quiet,
}

/// Progress of one run.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
    lines: bool,
    total: usize,
}

impl Progress {
    /// Starts showing the progress of `total` trials.
    pub fn new(total: usize, mode: ProgressMode) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = (mode == ProgressMode::Auto && terminal).then(|| {
            let b = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:32} {pos}/{len} trials, eta {eta} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            b.set_style(style);
            b
        });
        Progress {
            lines: bar.is_none() && mode != ProgressMode::Quiet,
            bar,
            total,
        }
    }

    /// A trial is done: `done` of the total, described by `what`.
    pub fn trial_done(&self, done: usize, what: &str) {
        if let Some(b) = &self.bar {
            b.set_position(done as u64);
            b.set_message(what.to_string());
        } else if self.lines {
            eprintln!("[{done}/{}] {what}", self.total);
        }
    }

    /// Prints a message without breaking the bar.
    pub fn note(&self, msg: &str) {
        match &self.bar {
            Some(b) => b.println(msg),
            None if self.lines => eprintln!("{msg}"),
            None => {}
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
