//! Reports: the Markdown report, PNG plots and per-trial files of a run.

pub mod plot;
