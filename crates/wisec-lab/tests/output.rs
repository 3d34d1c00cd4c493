//! The output directory of a run: files well formed, identical for the
//! same scenario, seed and calibration, and consistent when a run stops
//! early (a failing trial, an interrupt).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use wisec_lab::cost::Calibration;
use wisec_lab::experiment::{
    Experiment, ExperimentError, Param, Report, TrialEnv, TrialResult, TrialSpec,
};
use wisec_lab::output::{self, RunSettings, Status};
use wisec_lab::progress::ProgressMode;
use wisec_lab::scenario::{self, CaptureMode, Scenario};

fn small() -> Box<dyn Experiment> {
    let b = scenario::builtin("saturation").unwrap();
    let o = |k: &str, v: &str| (k.to_string(), v.to_string());
    Scenario::parse(b.path, b.text)
        .unwrap()
        .with_overrides(&[
            o("params.stations", "[1, 3]"),
            o("params.seconds", "0.2"),
            o("params.warmup", "0.05"),
            o("trials", "2"),
            o("seed", "11"),
        ])
        .unwrap()
        .create_experiment()
        .unwrap()
}

fn settings<'a>(out: &Path, cal: &'a Calibration) -> RunSettings<'a> {
    RunSettings {
        out: Some(out.to_path_buf()),
        calibration: cal,
        capture: CaptureMode::First,
        plots: true,
        scenario_toml: Some("name = \"t\"\n".into()),
        scenario_name: "t".into(),
        interrupt: None,
        progress: ProgressMode::Quiet,
    }
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&read(p)).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn files_are_written_and_well_formed() {
    let dir = tempfile::tempdir().unwrap();
    let cal = Calibration::nominal();
    let exp = small();
    let o = output::run(exp.as_ref(), &settings(dir.path(), &cal)).unwrap();
    assert_eq!(o.status, Status::Complete);
    assert_eq!(o.results.len(), 8);
    let d = dir.path();
    let all = json(&d.join("results.json"));
    assert_eq!(all["status"], "complete");
    assert_eq!(all["completed"], 8);
    assert_eq!(all["trials"].as_array().unwrap().len(), 8);
    assert_eq!(all["calibration"]["source"], "nominal");
    // One station: no collision, the model's value within 5%.
    let t0 = &all["trials"][0];
    assert_eq!(t0["spec"]["params"]["stations"], 1);
    assert!(
        t0["metrics"]["rel_error"].as_f64().unwrap().abs() < 0.05,
        "{t0}"
    );
    let csv = read(&d.join("results.csv"));
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert!(
        header.starts_with("index,label,seed,access,stations,trial,"),
        "{header}"
    );
    let cols = header.split(',').count();
    assert_eq!(lines.clone().count(), 8);
    assert!(lines.all(|l| l.split(',').count() == cols), "{csv}");
    // One JSON and one CSV per trial.
    for r in &o.results {
        let stem = output::trial_stem(r);
        let j = json(&d.join("trials").join(format!("{stem}.json")));
        assert_eq!(j["spec"]["label"], r.spec.label.as_str());
        let c = read(&d.join("trials").join(format!("{stem}.csv")));
        assert_eq!(c.lines().count(), 2);
        assert_eq!(c.lines().next(), Some(header));
    }
    // The summary table, as CSV with its header.
    let table = read(&d.join("saturation.csv"));
    assert!(
        table.starts_with("stations,access,trials,simulated (Mb/s)"),
        "{table}"
    );
    assert_eq!(table.lines().count(), 5);
    // The PNG decodes to the documented size.
    let png = std::fs::read(d.join("saturation.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let img = image::load_from_memory_with_format(&png, image::ImageFormat::Png).unwrap();
    assert_eq!(
        (img.width(), img.height()),
        (
            wisec_lab::report::plot::WIDTH,
            wisec_lab::report::plot::HEIGHT
        )
    );
    // Only the first trial's channel is captured; the pcap header is the
    // nanosecond one with link type 127, and records follow.
    let pcaps: Vec<_> = std::fs::read_dir(d.join("channels")).unwrap().collect();
    assert_eq!(pcaps.len(), 1);
    let pcap = std::fs::read(d.join("channels").join("basic-n001-t00-ch0.pcap")).unwrap();
    assert_eq!(&pcap[..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
    assert_eq!(u32::from_le_bytes(pcap[20..24].try_into().unwrap()), 127);
    assert!(pcap.len() > 24 + 16 * 100);
    // The report has the table, the figure and the files.
    let md = read(&d.join("report.md"));
    for want in [
        "# saturation: t",
        "## Parameters",
        "| stations | access | trials | simulated (Mb/s)",
        "![Saturation throughput, 802.11b](saturation.png)",
        "channels/basic-n001-t00-ch0.pcap",
    ] {
        assert!(md.contains(want), "{want}\n{md}");
    }
    assert!(!md.contains("Incomplete"), "{md}");
    // No temporary file is left behind.
    for e in walk(d) {
        assert!(!e.to_string_lossy().ends_with(".part"), "{}", e.display());
    }
}

fn walk(d: &Path) -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(d).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            v.extend(walk(&p));
        } else {
            v.push(p);
        }
    }
    v.sort();
    v
}

#[test]
fn same_scenario_seed_and_calibration_give_identical_files() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let cal = Calibration::nominal();
    let exp = small();
    output::run(exp.as_ref(), &settings(a.path(), &cal)).unwrap();
    output::run(small().as_ref(), &settings(b.path(), &cal)).unwrap();
    let fa = walk(a.path());
    let fb = walk(b.path());
    assert_eq!(fa.len(), fb.len());
    let mut compared = 0;
    // Everything but the simulator's wall-clock speed (speed.csv and the
    // report's last section), which is a measurement of the machine.
    let results_part = |p: &Path| {
        let text = std::fs::read(p).unwrap();
        if p.extension().is_some_and(|e| e == "md") {
            let s = String::from_utf8(text).unwrap();
            let cut = s.find("\n## Simulator speed").expect("speed section");
            return s.as_bytes()[..cut].to_vec();
        }
        text
    };
    for (x, y) in fa.iter().zip(&fb) {
        assert_eq!(x.strip_prefix(a.path()), y.strip_prefix(b.path()));
        let ext = x.extension().and_then(|e| e.to_str()).unwrap_or("");
        if x.file_name().is_some_and(|n| n == "speed.csv") {
            // The same trials, each with its events and virtual time.
            let rows = |p: &Path| -> Vec<String> {
                std::fs::read_to_string(p)
                    .unwrap()
                    .lines()
                    .map(|l| l.split(',').take(3).collect::<Vec<_>>().join(","))
                    .collect()
            };
            assert_eq!(rows(x), rows(y));
            continue;
        }
        if matches!(ext, "json" | "csv" | "md" | "pcap" | "toml") {
            assert_eq!(results_part(x), results_part(y), "{}", x.display());
            compared += 1;
        }
    }
    assert!(compared >= 20, "{compared}");
    // Another seed changes the results.
    let c = tempfile::tempdir().unwrap();
    let other = Scenario::parse(
        "s.toml",
        "name = \"s\"\nexperiment = \"saturation\"\nseed = 12\ntrials = 2\n\
         [params]\nstations = [1, 3]\nseconds = 0.2\nwarmup = 0.05\n",
    )
    .unwrap()
    .create_experiment()
    .unwrap();
    output::run(other.as_ref(), &settings(c.path(), &cal)).unwrap();
    assert_ne!(
        std::fs::read(a.path().join("results.csv")).unwrap(),
        std::fs::read(c.path().join("results.csv")).unwrap()
    );
}

/// `small()`, but trial `fail_at` fails and trial `stop_at` raises the
/// interrupt flag (as Ctrl-C does) while it runs.
struct Faulty {
    inner: Box<dyn Experiment>,
    fail_at: usize,
    stop_at: usize,
    flag: Arc<AtomicBool>,
}

impl Experiment for Faulty {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn description(&self) -> String {
        self.inner.description()
    }
    fn parameters(&self) -> Vec<Param> {
        self.inner.parameters()
    }
    fn plan(&self) -> Vec<TrialSpec> {
        self.inner.plan()
    }
    fn run_trial(
        &self,
        spec: &TrialSpec,
        env: &mut TrialEnv<'_>,
    ) -> Result<TrialResult, ExperimentError> {
        if spec.index == self.fail_at {
            return Err(ExperimentError("the station lost its key".into()));
        }
        if spec.index == self.stop_at {
            self.flag.store(true, Ordering::SeqCst);
        }
        self.inner.run_trial(spec, env)
    }
    fn summarize(&self, results: &[TrialResult]) -> Report {
        self.inner.summarize(results)
    }
}

#[test]
fn a_failing_trial_leaves_the_earlier_trials_readable() {
    let dir = tempfile::tempdir().unwrap();
    let cal = Calibration::nominal();
    let flag = Arc::new(AtomicBool::new(false));
    let exp = Faulty {
        inner: small(),
        fail_at: 3,
        stop_at: usize::MAX,
        flag,
    };
    let o = output::run(&exp, &settings(dir.path(), &cal)).unwrap();
    assert_eq!(o.status, Status::Failed);
    assert_eq!(o.results.len(), 3);
    assert_eq!(o.error.as_ref().unwrap().0, "the station lost its key");
    let d = dir.path();
    let trials: Vec<_> = walk(&d.join("trials"));
    assert_eq!(trials.len(), 6, "{trials:?}");
    for t in trials.iter().filter(|t| t.extension().unwrap() == "json") {
        json(t);
    }
    let all = json(&d.join("results.json"));
    assert_eq!(all["status"], "failed");
    assert_eq!(all["planned"], 8);
    assert_eq!(all["completed"], 3);
    assert_eq!(all["error"], "the station lost its key");
    let md = read(&d.join("report.md"));
    assert!(
        md.contains("Incomplete: trial 3 failed (the station lost its key)"),
        "{md}"
    );
    // The summary covers what completed: one point with two trials, one with one.
    let table = read(&d.join("saturation.csv"));
    assert_eq!(table.lines().count(), 3, "{table}");
}

#[test]
fn an_interrupted_run_stops_after_the_current_trial_and_writes_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let cal = Calibration::nominal();
    let flag = Arc::new(AtomicBool::new(false));
    let exp = Faulty {
        inner: small(),
        fail_at: usize::MAX,
        stop_at: 1,
        flag: Arc::clone(&flag),
    };
    let mut s = settings(dir.path(), &cal);
    s.interrupt = Some(flag);
    let o = output::run(&exp, &s).unwrap();
    assert_eq!(o.status, Status::Interrupted);
    assert_eq!(o.results.len(), 2);
    let d = dir.path();
    assert_eq!(walk(&d.join("trials")).len(), 4);
    let all = json(&d.join("results.json"));
    assert_eq!(all["status"], "interrupted");
    assert_eq!(all["trials"].as_array().unwrap().len(), 2);
    assert_eq!(read(&d.join("results.csv")).lines().count(), 3);
    let md = read(&d.join("report.md"));
    assert!(
        md.contains("Incomplete: interrupted after 2 of 8 trials"),
        "{md}"
    );
}

#[test]
fn without_an_output_directory_nothing_is_written() {
    let cal = Calibration::nominal();
    let exp = small();
    let mut s = settings(Path::new("/nonexistent/never"), &cal);
    s.out = None;
    let o = output::run(exp.as_ref(), &s).unwrap();
    assert_eq!(o.status, Status::Complete);
    assert!(o.files.is_empty());
    assert!(!Path::new("/nonexistent/never").exists());
}
