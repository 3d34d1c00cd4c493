//! `wisec bench lab`: the speed of the lab's simulator on the saturation
//! experiment (n saturated 802.11b stations sending 1500-octet packets to
//! one access point), in simulated seconds per wall-clock second and in
//! simulator events per second, for n = 1, 10 and 50 by default.
//!
//! Each point runs the experiment's own trial (`saturation::run_one`:
//! the same scenario `wisec lab run saturation` measures) `--repeat` times
//! and reports the median with the fastest and slowest run. A run is a
//! pure function of its seed, so every repeat does the same work: the
//! spread is the machine's. There is no other simulator to run beside it;
//! the figures are for comparing builds and machines.

use crate::bench::crypto::load_average;
use clap::Args;
use serde::Serialize;
use std::time::Instant;
use wisec_lab::experiment::saturation::{run_one, SaturationConfig};

/// Options of `wisec bench lab`.
#[derive(Debug, Args)]
pub struct LabBenchArgs {
    /// Station counts, comma-separated (default 1,10,50)
    #[arg(long, value_name = "N,...", value_delimiter = ',')]
    stations: Vec<u32>,
    /// Virtual seconds simulated per run after 0.5 s of warm-up (default
    /// 20; --quick 1)
    #[arg(long, value_name = "S")]
    seconds: Option<f64>,
    /// Use RTS/CTS instead of basic access
    #[arg(long)]
    rts: bool,
    /// Runs per point; the median is reported (default 5; --quick 2)
    #[arg(long, value_name = "N")]
    repeat: Option<usize>,
    /// A run of about a second, for smoke tests
    #[arg(long)]
    quick: bool,
    #[command(flatten)]
    out: crate::tabular::TableFormat,
}

/// The columns of `--csv`: the fields of the JSON's points.
pub const CSV_COLUMNS: [&str; 8] = [
    "stations",
    "access",
    "sim_seconds",
    "events",
    "wall_s",
    "sim_per_wall",
    "events_per_s",
    "sim_mbps",
];

/// One point: a station count.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    /// Stations.
    pub stations: u32,
    /// "basic" or "rts".
    pub access: &'static str,
    /// Virtual seconds per run (warm-up included).
    pub sim_seconds: f64,
    /// Simulator events per run.
    pub events: u64,
    /// Wall seconds of each run.
    pub wall_s: Vec<f64>,
    /// Simulated seconds per wall second: median, min, max over the runs.
    pub sim_per_wall: [f64; 3],
    /// Events per wall second: median, min, max.
    pub events_per_s: [f64; 3],
    /// Simulated MSDU throughput of the run, Mb/s (the experiment's
    /// result, the same in every run).
    pub sim_mbps: f64,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Identifies the JSON layout.
    pub schema: &'static str,
    /// Runs per point.
    pub repeat: usize,
    /// `release` or `debug`.
    pub build: &'static str,
    /// The 1-minute load average before and after (`/proc/loadavg`).
    pub load: [Option<f64>; 2],
    /// Logical CPUs.
    pub logical_cpus: usize,
    /// The points.
    pub points: Vec<Point>,
}

/// Median, min, max of non-empty `v`.
fn spread(v: &[f64]) -> [f64; 3] {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let med = if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    };
    [med, s[0], s[n - 1]]
}

/// Runs the benchmark.
pub fn run(a: &LabBenchArgs) -> Result<Report, String> {
    let stations = if a.stations.is_empty() {
        vec![1, 10, 50]
    } else {
        a.stations.clone()
    };
    if let Some(&n) = stations.iter().find(|&&n| n == 0 || n > 1000) {
        return Err(format!("--stations: {n} is not within 1..=1000"));
    }
    let seconds = a.seconds.unwrap_or(if a.quick { 1.0 } else { 20.0 });
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= 10_000.0) {
        return Err("--seconds: must be within (0, 10000]".to_string());
    }
    let repeat = a.repeat.unwrap_or(if a.quick { 2 } else { 5 });
    if !(1..=100).contains(&repeat) {
        return Err("--repeat: must be within 1..=100".to_string());
    }
    let cfg = SaturationConfig {
        seconds,
        stations: stations.clone(),
        access: vec![a.rts],
        ..SaturationConfig::default()
    };
    let before = load_average();
    let mut points = Vec::new();
    for &n in &stations {
        let mut wall = Vec::new();
        let mut last = None;
        for _ in 0..repeat {
            let t = Instant::now();
            let r = run_one(&cfg, n, a.rts, 0);
            wall.push(t.elapsed().as_secs_f64().max(1e-9));
            last = Some(r);
        }
        let Some(r) = last else { continue };
        let sim_seconds = cfg.warmup + cfg.seconds;
        let sim_per_wall: Vec<f64> = wall.iter().map(|w| sim_seconds / w).collect();
        let events_per_s: Vec<f64> = wall.iter().map(|w| r.events as f64 / w).collect();
        points.push(Point {
            stations: n,
            access: if a.rts { "rts" } else { "basic" },
            sim_seconds,
            events: r.events,
            wall_s: wall,
            sim_per_wall: spread(&sim_per_wall),
            events_per_s: spread(&events_per_s),
            sim_mbps: r.sim_mbps,
        });
    }
    Ok(Report {
        schema: "wisec-bench-lab/1",
        repeat,
        build: if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        load: [before, load_average()],
        logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        points,
    })
}

/// The report as a table.
pub fn render(r: &Report) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "wisec bench lab: saturation experiment (802.11b, 11 Mb/s, 1500-octet packets), \
         {} runs per point, {} build",
        r.repeat, r.build
    );
    if r.build == "debug" {
        let _ = writeln!(
            s,
            "NOTE: debug build; build with --release for real numbers"
        );
    }
    let _ = writeln!(
        s,
        "{:>8} {:<6} {:>10} {:>11} {:>24} {:>28} {:>9}",
        "stations", "access", "virtual s", "events", "sim s / wall s", "events / wall s", "Mb/s"
    );
    for p in &r.points {
        let _ = writeln!(
            s,
            "{:>8} {:<6} {:>10.1} {:>11} {:>9.0} ({:>5.0}-{:<6.0}) {:>10.2e} ({:.2e}-{:.2e}) {:>9.3}",
            p.stations,
            p.access,
            p.sim_seconds,
            p.events,
            p.sim_per_wall[0],
            p.sim_per_wall[1],
            p.sim_per_wall[2],
            p.events_per_s[0],
            p.events_per_s[1],
            p.events_per_s[2],
            p.sim_mbps
        );
    }
    let f = |x: Option<f64>| x.map_or("?".to_string(), |v| format!("{v:.2}"));
    let _ = writeln!(
        s,
        "median (fastest-slowest run); load average (1 min) {} -> {} on {} logical CPUs",
        f(r.load[0]),
        f(r.load[1]),
        r.logical_cpus
    );
    s
}

/// `wisec bench lab`.
pub fn main(a: LabBenchArgs) -> Result<(), crate::error::Failure> {
    let r = run(&a).map_err(crate::error::Failure::Usage)?;
    if let Some(done) = crate::tabular::print(a.out, &r, &CSV_COLUMNS, &r.points) {
        return done;
    }
    crate::out!("{}", render(&r));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_is_median_min_max() {
        assert_eq!(spread(&[3.0, 1.0, 2.0]), [2.0, 1.0, 3.0]);
        assert_eq!(spread(&[4.0, 1.0]), [2.5, 1.0, 4.0]);
    }
}
