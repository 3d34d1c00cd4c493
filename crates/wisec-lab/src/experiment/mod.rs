//! The lab's built-in experiments.

pub mod saturation;

/// A built-in experiment, as `wisec lab list` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExperimentInfo {
    /// The name given to `wisec lab run`.
    pub name: &'static str,
    /// One line on what it measures.
    pub summary: &'static str,
}

/// Every built-in experiment.
pub const EXPERIMENTS: &[ExperimentInfo] = &[ExperimentInfo {
    name: "saturation",
    summary: "DCF saturation throughput for 1-50 stations, basic access and RTS/CTS, \
beside Bianchi's analytical model (IEEE JSAC 18(3), 2000)",
}];

/// The experiment called `name`.
pub fn find(name: &str) -> Option<&'static ExperimentInfo> {
    EXPERIMENTS.iter().find(|e| e.name == name)
}
