//! Progress of a run on standard error: a bar on a terminal, one line per
//! trial otherwise (logs, CI), nothing when quiet; within a long simulated
//! trial, its virtual time.

use crate::Time;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::Cell;
use std::io::IsTerminal;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Without a terminal, a trial still running prints a line this often.
pub const LINE_INTERVAL: Duration = Duration::from_secs(5);

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

    /// The progress within trial `index` (`label`) of a run, told the
    /// virtual time as the simulation advances: the bar's message on a
    /// terminal (twice a second at most), a line every
    /// [`LINE_INTERVAL`] otherwise; `None` when quiet.
    pub fn within_trial(&self, index: usize, label: &str) -> Option<Rc<dyn Fn(Time)>> {
        if self.bar.is_none() && !self.lines {
            return None;
        }
        let bar = self.bar.clone();
        let total = self.total;
        let label = label.to_string();
        let start = Instant::now();
        let last = Cell::new(start);
        let every = if bar.is_some() {
            Duration::from_millis(500)
        } else {
            LINE_INTERVAL
        };
        Some(Rc::new(move |now: Time| {
            if last.get().elapsed() < every {
                return;
            }
            last.set(Instant::now());
            let msg = format!(
                "trial {}/{total} ({label}): {:.1} virtual s simulated in {:.0} s",
                index + 1,
                now.as_secs_f64(),
                start.elapsed().as_secs_f64()
            );
            match &bar {
                Some(b) => b.set_message(msg),
                None => eprintln!("{msg}"),
            }
        }))
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
