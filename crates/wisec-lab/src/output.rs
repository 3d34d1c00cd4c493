//! Running an experiment into an output directory.
//!
//! [`run`] owns the loop over an [`Experiment`]'s trials. Each trial's
//! result is written as soon as the trial ends (`trials/LABEL.json`
//! and `.csv`, each written to a temporary name and renamed, so a file
//! that exists is whole); the channel captures of the trials chosen by the
//! scenario go to `channels/`. When the loop ends — all trials done, a
//! trial failed, or the run was interrupted — the summary is written over
//! the trials that completed: `results.json`, `results.csv`, one CSV per
//! table, one PNG per plot and `report.md`, which says plainly when the
//! run is incomplete and why.
//!
//! Nothing written depends on the wall clock or the machine beyond the
//! calibration, so the same scenario, seed and calibration give identical
//! JSON and CSV files.

use crate::cost::Calibration;
use crate::experiment::{Experiment, ExperimentError, Report, Table, TrialEnv, TrialResult, Value};
use crate::pcap::{RadioChannel, Recorder};
use crate::progress::{Progress, ProgressMode};
use crate::report::plot;
use crate::scenario::CaptureMode;
use serde::Serialize;
use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// At most this many MPDUs are kept per captured trial.
pub const CAPTURE_LIMIT: usize = 2_000_000;

/// How to run.
#[derive(Debug)]
pub struct RunSettings<'a> {
    /// Output directory; `None` runs without writing files.
    pub out: Option<PathBuf>,
    /// The crypto cost model.
    pub calibration: &'a Calibration,
    /// Which trials' channels to capture.
    pub capture: CaptureMode,
    /// Draw PNG plots.
    pub plots: bool,
    /// The scenario as run, written as `scenario.toml`.
    pub scenario_toml: Option<String>,
    /// The scenario's name, for the report's title.
    pub scenario_name: String,
    /// Set (by a Ctrl-C handler) to stop after the current trial.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// Progress display.
    pub progress: ProgressMode,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every planned trial completed.
    Complete,
    /// Stopped by the user; the completed trials are in the output.
    Interrupted,
    /// A trial failed; the trials before it are in the output.
    Failed,
}

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// How it ended.
    pub status: Status,
    /// The failing trial's error.
    pub error: Option<ExperimentError>,
    /// Trials planned.
    pub planned: usize,
    /// Completed trials.
    pub results: Vec<TrialResult>,
    /// The summary over the completed trials.
    pub report: Report,
    /// Files written, relative to the output directory.
    pub files: Vec<PathBuf>,
    /// How fast the simulator ran each completed trial.
    pub speed: Vec<TrialSpeed>,
}

/// How fast the simulator ran one trial: virtual time and events against
/// the wall clock. Unlike everything in `results.json`, these figures
/// change from run to run and machine to machine.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrialSpeed {
    /// The trial.
    pub label: String,
    /// Virtual seconds simulated.
    pub sim_s: f64,
    /// Simulator events processed.
    pub events: u64,
    /// Wall-clock seconds the trial took.
    pub wall_s: f64,
    /// Virtual seconds per wall-clock second.
    pub sim_per_wall: f64,
    /// Events per wall-clock second.
    pub events_per_s: f64,
}

impl TrialSpeed {
    fn of(r: &TrialResult, wall: std::time::Duration) -> TrialSpeed {
        let wall_s = wall.as_secs_f64().max(1e-9);
        let sim_s = r.sim_time_ns as f64 / 1e9;
        TrialSpeed {
            label: r.spec.label.clone(),
            sim_s,
            events: r.events,
            wall_s,
            sim_per_wall: sim_s / wall_s,
            events_per_s: r.events as f64 / wall_s,
        }
    }
}

/// The speed of the trials as CSV with a header line.
pub fn speed_csv(speed: &[TrialSpeed]) -> String {
    let mut s = String::from("label,sim_s,events,wall_s,sim_per_wall,events_per_s\n");
    for t in speed {
        let _ = writeln!(
            s,
            "{},{:.6},{},{:.6},{:.3},{:.0}",
            csv_cell(&t.label),
            t.sim_s,
            t.events,
            t.wall_s,
            t.sim_per_wall,
            t.events_per_s
        );
    }
    s
}

/// The report's section on the simulator's speed.
fn speed_markdown(speed: &[TrialSpeed]) -> String {
    if speed.is_empty() {
        return "\n## Simulator speed\n\nNot measured: no trial of this report was timed here \
(the trials ran elsewhere, or none ran).\n"
            .to_string();
    }
    let mut s = String::from(
        "\n## Simulator speed\n\nWall-clock figures of this run on this machine: unlike the \
results above they change from run to run (other load on the machine changes them too). \
Data: [speed.csv](speed.csv)\n\n| trial | virtual s | events | wall s | virtual s per wall s | \
events per wall s |\n|---|---|---|---|---|---|\n",
    );
    for t in speed {
        let _ = writeln!(
            s,
            "| {} | {:.2} | {} | {:.3} | {:.0} | {:.3e} |",
            t.label.replace('|', "\\|"),
            t.sim_s,
            t.events,
            t.wall_s,
            t.sim_per_wall,
            t.events_per_s
        );
    }
    if let Some(line) = speed_summary(speed) {
        let _ = writeln!(s, "\n{line}");
    }
    s
}

/// One line on the simulator's speed over `speed`.
pub fn speed_summary(speed: &[TrialSpeed]) -> Option<String> {
    let sim: f64 = speed.iter().map(|t| t.sim_s).sum();
    let wall: f64 = speed.iter().map(|t| t.wall_s).sum();
    let events: u64 = speed.iter().map(|t| t.events).sum();
    (wall > 0.0 && !speed.is_empty()).then(|| {
        format!(
            "simulator: {sim:.1} virtual s in {wall:.2} wall s over {} trials: {:.0} virtual s \
per wall s, {:.3e} events per wall s",
            speed.len(),
            sim / wall,
            events as f64 / wall
        )
    })
}

/// An I/O failure while writing the output.
#[derive(Debug)]
pub struct OutputError {
    /// The file.
    pub path: PathBuf,
    /// What happened.
    pub error: io::Error,
}

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

impl std::error::Error for OutputError {}

#[derive(Serialize)]
struct Results<'a> {
    experiment: &'a str,
    scenario: &'a str,
    status: &'a Status,
    error: Option<&'a str>,
    planned: usize,
    completed: usize,
    calibration: &'a Calibration,
    trials: &'a [TrialResult],
    report: &'a Report,
    /// The parameters fitted to seed results the report depends on
    /// (empty: none; absent: not declared).
    fitted: Option<Vec<crate::experiment::Fitted>>,
}

/// Writes `body` to `dir/rel` through a temporary file and a rename, so
/// the file is either absent or whole.
pub fn write_atomic(dir: &Path, rel: &Path, body: &[u8]) -> Result<(), OutputError> {
    let path = dir.join(rel);
    let err = |error| OutputError {
        path: path.clone(),
        error,
    };
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(err)?;
    }
    let mut tmp = path.clone().into_os_string();
    tmp.push(".part");
    let tmp = PathBuf::from(tmp);
    fs::write(&tmp, body).map_err(err)?;
    fs::rename(&tmp, &path).map_err(err)
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn value_csv(v: &Value) -> String {
    match v {
        Value::Num(x) if x.is_finite() => format!("{x}"),
        other => csv_cell(&other.to_string()),
    }
}

/// The CSV columns of trials: index, label, seed, the parameters and the
/// metrics (names from every trial, sorted), simulated time and events.
fn trial_columns(results: &[&TrialResult]) -> (Vec<String>, Vec<String>) {
    let mut params: Vec<String> = Vec::new();
    let mut metrics: Vec<String> = Vec::new();
    for r in results {
        for k in r.spec.params.keys() {
            if !params.contains(k) {
                params.push(k.clone());
            }
        }
        for k in r.metrics.keys() {
            if !metrics.contains(k) {
                metrics.push(k.clone());
            }
        }
    }
    params.sort();
    metrics.sort();
    (params, metrics)
}

/// Trials as CSV with a header line.
pub fn trials_csv(results: &[&TrialResult]) -> String {
    let (params, metrics) = trial_columns(results);
    let mut s = String::from("index,label,seed");
    for p in &params {
        s.push(',');
        s.push_str(&csv_cell(p));
    }
    for m in &metrics {
        s.push(',');
        s.push_str(&csv_cell(m));
    }
    s.push_str(",sim_time_ns,events\n");
    for r in results {
        let _ = write!(
            s,
            "{},{},{}",
            r.spec.index,
            csv_cell(&r.spec.label),
            r.spec.seed
        );
        for p in &params {
            s.push(',');
            s.push_str(&r.spec.params.get(p).map(value_csv).unwrap_or_default());
        }
        for m in &metrics {
            s.push(',');
            s.push_str(&r.metrics.get(m).map(value_csv).unwrap_or_default());
        }
        let _ = writeln!(s, ",{},{}", r.sim_time_ns, r.events);
    }
    s
}

fn json(v: &impl Serialize) -> Vec<u8> {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("\"{e}\""));
    s.push('\n');
    s.into_bytes()
}

fn safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The file stem of a trial: its label (unique within a plan).
pub fn trial_stem(r: &TrialResult) -> String {
    safe(&r.spec.label)
}

/// Runs `exp` with `settings`. Returns `Ok` with the outcome whatever
/// happened to the trials (see [`Outcome::status`]); `Err` only when the
/// output could not be written.
pub fn run(exp: &dyn Experiment, settings: &RunSettings<'_>) -> Result<Outcome, OutputError> {
    let plan = exp.plan();
    let out = settings.out.as_deref();
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(dir) = out {
        write_preamble(dir, settings, &mut files)?;
    }
    let progress = Progress::new(plan.len(), settings.progress);
    let mut results: Vec<TrialResult> = Vec::new();
    let mut speed: Vec<TrialSpeed> = Vec::new();
    let mut status = Status::Complete;
    let mut error = None;
    for spec in &plan {
        if settings
            .interrupt
            .as_ref()
            .is_some_and(|f| f.load(Ordering::SeqCst))
        {
            status = Status::Interrupted;
            break;
        }
        let capture = out.is_some()
            && match settings.capture {
                CaptureMode::All => true,
                CaptureMode::First => results.is_empty(),
                CaptureMode::None => false,
            };
        let recorder = capture.then(|| Recorder::new(CAPTURE_LIMIT));
        let mut env = TrialEnv::new(settings.calibration);
        env.observer = recorder.as_ref().map(Recorder::observer);
        env.interrupt.clone_from(&settings.interrupt);
        env.tick = progress.within_trial(results.len(), &spec.label);
        // A live trial writes its capture as it runs: into a part file
        // renamed when the trial is done.
        let live_capture = match out {
            Some(dir) if capture => {
                let d = dir.join("channels");
                fs::create_dir_all(&d).map_err(|error| OutputError {
                    path: d.clone(),
                    error,
                })?;
                Some(d.join(format!("{}-live.pcap", safe(&spec.label))))
            }
            _ => None,
        };
        env.capture_file = live_capture
            .as_ref()
            .map(|p| PathBuf::from(format!("{}.part", p.display())));
        env.work_dir = out.map(|d| d.join("live"));
        let started = std::time::Instant::now();
        let r = match exp.run_trial(spec, &mut env) {
            Ok(r) => {
                speed.push(TrialSpeed::of(&r, started.elapsed()));
                r
            }
            Err(e) => {
                if let Some(p) = &env.capture_file {
                    let _ = fs::remove_file(p);
                }
                if e.is_interrupted() {
                    progress.note(&format!(
                        "trial {} ({}) interrupted",
                        spec.index, spec.label
                    ));
                    status = Status::Interrupted;
                    break;
                }
                progress.note(&format!(
                    "trial {} ({}) failed: {e}",
                    spec.index, spec.label
                ));
                status = Status::Failed;
                error = Some(e);
                break;
            }
        };
        if let (Some(part), Some(path), Some(dir)) = (&env.capture_file, &live_capture, out) {
            if part.exists() {
                fs::rename(part, path).map_err(|error| OutputError {
                    path: path.clone(),
                    error,
                })?;
                if let Ok(rel) = path.strip_prefix(dir) {
                    files.push(rel.to_path_buf());
                }
            }
        }
        drop(env);
        if let Some(dir) = out {
            write_trial(dir, &r, &mut files)?;
            if let Some(rec) = &recorder {
                let rec = rec.borrow();
                for ch in rec.channels() {
                    let radio = channel_radio(&r, ch);
                    let rel = channel_file(&r, ch);
                    let path = dir.join(&rel);
                    let err = |error| OutputError {
                        path: path.clone(),
                        error,
                    };
                    fs::create_dir_all(dir.join("channels")).map_err(err)?;
                    let mut tmp = path.clone().into_os_string();
                    tmp.push(".part");
                    let tmp = PathBuf::from(tmp);
                    rec.write_channel(ch, radio, &tmp).map_err(err)?;
                    fs::rename(&tmp, &path).map_err(err)?;
                    files.push(rel);
                }
                if rec.dropped() > 0 {
                    progress.note(&format!(
                        "capture of trial {} kept the first {} MPDUs and left out {}",
                        r.spec.index,
                        rec.len(),
                        rec.dropped()
                    ));
                }
            }
        }
        let what = describe(&r);
        results.push(r);
        progress.trial_done(results.len(), &what);
    }
    progress.finish();
    conclude(exp, settings, status, error, results, files, speed)
}

/// The summary over the completed trials, written (with `settings.out`)
/// after them: the end of [`run`] and of [`write_completed`].
fn conclude(
    exp: &dyn Experiment,
    settings: &RunSettings<'_>,
    status: Status,
    error: Option<ExperimentError>,
    results: Vec<TrialResult>,
    mut files: Vec<PathBuf>,
    speed: Vec<TrialSpeed>,
) -> Result<Outcome, OutputError> {
    let planned = exp.plan().len();
    let report = exp.summarize(&results);
    if let Some(dir) = settings.out.as_deref() {
        write_summary(
            dir,
            exp,
            settings,
            &status,
            error.as_ref(),
            planned,
            &results,
            &report,
            &speed,
            &mut files,
        )?;
    }
    Ok(Outcome {
        status,
        error,
        planned,
        results,
        report,
        files,
        speed,
    })
}

/// Creates the output directory and writes what precedes the trials:
/// `scenario.toml` and `calibration.json`.
fn write_preamble(
    dir: &Path,
    settings: &RunSettings<'_>,
    files: &mut Vec<PathBuf>,
) -> Result<(), OutputError> {
    fs::create_dir_all(dir).map_err(|error| OutputError {
        path: dir.to_path_buf(),
        error,
    })?;
    if let Some(t) = &settings.scenario_toml {
        write_atomic(dir, Path::new("scenario.toml"), t.as_bytes())?;
        files.push("scenario.toml".into());
    }
    write_atomic(
        dir,
        Path::new("calibration.json"),
        &json(settings.calibration),
    )?;
    files.push("calibration.json".into());
    Ok(())
}

/// Writes a completed trial's `trials/STEM.json` and `.csv`.
fn write_trial(dir: &Path, r: &TrialResult, files: &mut Vec<PathBuf>) -> Result<(), OutputError> {
    let stem = trial_stem(r);
    let jp = PathBuf::from("trials").join(format!("{stem}.json"));
    write_atomic(dir, &jp, &json(r))?;
    let cp = PathBuf::from("trials").join(format!("{stem}.csv"));
    write_atomic(dir, &cp, trials_csv(&[r]).as_bytes())?;
    files.push(jp);
    files.push(cp);
    Ok(())
}

/// The radio of channel `ch` of a trial, for its pcap's radiotap headers.
pub fn channel_radio(r: &TrialResult, ch: usize) -> RadioChannel {
    r.channels.iter().find(|c| c.id == ch).map_or(
        RadioChannel {
            freq: 2412,
            standard: crate::phy::PhyStandard::G,
            short_preamble: false,
        },
        RadioChannel::from_info,
    )
}

/// Where a trial's capture of channel `ch` goes, relative to the output
/// directory.
pub fn channel_file(r: &TrialResult, ch: usize) -> PathBuf {
    PathBuf::from("channels").join(format!("{}-ch{ch}.pcap", trial_stem(r)))
}

/// One channel capture of a trial run elsewhere: the pcap file that
/// [`run`] writes at [`channel_file`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelPcap {
    /// The channel.
    pub channel: usize,
    /// The whole pcap file.
    pub pcap: Vec<u8>,
}

/// Runs one trial of `exp` on its own, as [`run`] runs it, with its
/// channels captured when `capture` is set: what a worker of a sweep
/// does. Simulated trials only (a live trial needs the run's directory).
pub fn run_one(
    exp: &dyn Experiment,
    spec: &crate::experiment::TrialSpec,
    calibration: &Calibration,
    capture: bool,
) -> Result<(TrialResult, Vec<ChannelPcap>), ExperimentError> {
    let recorder = capture.then(|| Recorder::new(CAPTURE_LIMIT));
    let mut env = TrialEnv::new(calibration);
    env.observer = recorder.as_ref().map(Recorder::observer);
    let r = exp.run_trial(spec, &mut env)?;
    drop(env);
    let mut pcaps = Vec::new();
    if let Some(rec) = &recorder {
        let rec = rec.borrow();
        for ch in rec.channels() {
            let pcap = rec
                .channel_pcap(ch, channel_radio(&r, ch))
                .map_err(|e| ExperimentError(format!("capture of channel {ch}: {e}")))?;
            pcaps.push(ChannelPcap { channel: ch, pcap });
        }
    }
    Ok((r, pcaps))
}

/// Writes the output of a run whose trials ran elsewhere (split across
/// processes or machines with [`run_one`] and gathered back in plan
/// order, each with its channel captures) exactly as [`run`] writes it
/// for the same trials: the same files, byte for byte, except the
/// simulator's speed, which only a run that timed its own trials has
/// (`speed.csv` is then empty and the report says so). `status` and
/// `error` say how the run ended, as [`Outcome`] does.
pub fn write_completed(
    exp: &dyn Experiment,
    settings: &RunSettings<'_>,
    trials: Vec<(TrialResult, Vec<ChannelPcap>)>,
    status: Status,
    error: Option<ExperimentError>,
) -> Result<Outcome, OutputError> {
    let mut files: Vec<PathBuf> = Vec::new();
    let out = settings.out.as_deref();
    if let Some(dir) = out {
        write_preamble(dir, settings, &mut files)?;
    }
    let mut results = Vec::with_capacity(trials.len());
    for (r, pcaps) in trials {
        if let Some(dir) = out {
            write_trial(dir, &r, &mut files)?;
            for c in &pcaps {
                let rel = channel_file(&r, c.channel);
                write_atomic(dir, &rel, &c.pcap)?;
                files.push(rel);
            }
        }
        results.push(r);
    }
    conclude(exp, settings, status, error, results, files, Vec::new())
}

fn describe(r: &TrialResult) -> String {
    let mut s = r.spec.label.clone();
    let mut shown: Vec<(&String, &Value)> = r
        .metrics
        .iter()
        .filter(|(k, _)| k.contains("mbps") || k.ends_with("_ms"))
        .collect();
    if shown.is_empty() {
        shown = r.metrics.iter().collect();
    }
    for (k, v) in shown.into_iter().take(3) {
        let _ = write!(s, " {k}={v}");
    }
    s
}

#[allow(clippy::too_many_arguments)]
fn write_summary(
    dir: &Path,
    exp: &dyn Experiment,
    settings: &RunSettings<'_>,
    status: &Status,
    error: Option<&ExperimentError>,
    planned: usize,
    results: &[TrialResult],
    report: &Report,
    speed: &[TrialSpeed],
    files: &mut Vec<PathBuf>,
) -> Result<(), OutputError> {
    let err_text = error.map(|e| e.0.clone());
    let all = Results {
        experiment: exp.name(),
        scenario: &settings.scenario_name,
        status,
        error: err_text.as_deref(),
        planned,
        completed: results.len(),
        calibration: settings.calibration,
        trials: results,
        report,
        fitted: exp.fitted(),
    };
    write_atomic(dir, Path::new("results.json"), &json(&all))?;
    let refs: Vec<&TrialResult> = results.iter().collect();
    write_atomic(dir, Path::new("results.csv"), trials_csv(&refs).as_bytes())?;
    files.push("results.json".into());
    files.push("results.csv".into());
    write_atomic(dir, Path::new("speed.csv"), speed_csv(speed).as_bytes())?;
    files.push("speed.csv".into());
    let mut table_files = Vec::new();
    for t in &report.tables {
        let rel = PathBuf::from(format!("{}.csv", safe(&t.name)));
        write_atomic(dir, &rel, t.to_csv().as_bytes())?;
        table_files.push(rel.clone());
        files.push(rel);
    }
    let mut plot_files = Vec::new();
    let mut plot_errors = Vec::new();
    if settings.plots {
        for p in &report.plots {
            let rel = PathBuf::from(format!("{}.png", safe(&p.name)));
            match plot::render(p, &dir.join(&rel), true) {
                Ok(()) => {
                    plot_files.push(Some(rel.clone()));
                    files.push(rel);
                }
                Err(e) => {
                    plot_files.push(None);
                    plot_errors.push(e);
                }
            }
        }
    }
    let mut md = markdown(
        exp,
        settings,
        status,
        error,
        planned,
        results,
        report,
        &table_files,
        &plot_files,
        &plot_errors,
        files,
    );
    md.push_str(&speed_markdown(speed));
    write_atomic(dir, Path::new("report.md"), md.as_bytes())?;
    files.push("report.md".into());
    let mut list = String::new();
    for f in files.iter() {
        let _ = writeln!(list, "{}", f.display());
    }
    write_atomic(dir, Path::new(MANIFEST), list.as_bytes())?;
    Ok(())
}

/// The list of files a run wrote into its output directory, one relative
/// path a line, so that a later `--force` run removes exactly those.
pub const MANIFEST: &str = ".wisec-files";

/// What a run writes into its output directory besides the files its
/// manifest lists: files and directories of fixed names (also those of a
/// run interrupted before its manifest was written).
const FIXED_NAMES: [&str; 9] = [
    "scenario.toml",
    "calibration.json",
    "results.json",
    "results.csv",
    "report.md",
    "trials",
    "channels",
    "live",
    MANIFEST,
];

/// The entries of `dir`, or an empty list when it does not exist.
pub fn dir_entries(dir: &Path) -> Result<Vec<PathBuf>, OutputError> {
    match fs::read_dir(dir) {
        Ok(rd) => rd
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| OutputError {
                path: dir.to_path_buf(),
                error,
            }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(vec![]),
        Err(error) => Err(OutputError {
            path: dir.to_path_buf(),
            error,
        }),
    }
}

/// Removes from `dir` what an earlier run wrote there: the files its
/// manifest lists and the entries of fixed names. Anything else (a file
/// of the user's) stays. Returns how many entries were removed. Paths in
/// the manifest that leave `dir` (absolute, or with `..`) are ignored.
pub fn clear_previous(dir: &Path) -> Result<usize, OutputError> {
    let mut names: Vec<PathBuf> = Vec::new();
    if let Ok(text) = fs::read_to_string(dir.join(MANIFEST)) {
        for line in text.lines() {
            let rel = Path::new(line);
            let inside = !line.is_empty()
                && rel
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)));
            if inside {
                names.push(rel.to_path_buf());
            }
        }
    }
    names.extend(FIXED_NAMES.iter().map(PathBuf::from));
    let mut removed = 0;
    for rel in names {
        let path = dir.join(&rel);
        let r = match fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => fs::remove_dir_all(&path),
            Ok(_) => fs::remove_file(&path),
            Err(_) => continue,
        };
        match r {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(OutputError { path, error }),
        }
    }
    Ok(removed)
}

#[allow(clippy::too_many_arguments)]
fn markdown(
    exp: &dyn Experiment,
    settings: &RunSettings<'_>,
    status: &Status,
    error: Option<&ExperimentError>,
    planned: usize,
    results: &[TrialResult],
    report: &Report,
    table_files: &[PathBuf],
    plot_files: &[Option<PathBuf>],
    plot_errors: &[String],
    files: &[PathBuf],
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {}: {}\n", exp.name(), settings.scenario_name);
    match status {
        Status::Complete => {}
        Status::Interrupted => {
            let _ = writeln!(
                s,
                "> **Incomplete: interrupted after {} of {planned} trials.** The tables \
below cover the completed trials only.\n",
                results.len()
            );
        }
        Status::Failed => {
            let _ = writeln!(
                s,
                "> **Incomplete: trial {} failed ({}).** The tables below cover the {} \
trials completed before it.\n",
                results.len(),
                error.map_or("unknown error", |e| e.0.as_str()),
                results.len()
            );
        }
    }
    let _ = writeln!(s, "{}\n", report.description);
    let _ = writeln!(
        s,
        "Trials: {} of {planned} planned. Crypto cost calibration: {} (host clock {} MHz).\n",
        results.len(),
        settings.calibration.source,
        settings.calibration.host_mhz
    );
    if !report.parameters.is_empty() {
        s.push_str(&parameters_markdown(&report.parameters));
    }
    if !report.tables.is_empty() {
        s.push_str("## Results\n\n");
        for (t, f) in report.tables.iter().zip(table_files) {
            s.push_str(&t.to_markdown());
            let _ = writeln!(s, "\nData: [{}]({})\n", f.display(), f.display());
        }
    }
    if !report.plots.is_empty() {
        s.push_str("## Figures\n\n");
        for (p, f) in report
            .plots
            .iter()
            .zip(plot_files.iter().chain(std::iter::repeat(&None)))
        {
            match f {
                Some(f) => {
                    let _ = writeln!(s, "![{}]({})\n", p.title, f.display());
                }
                None => {
                    let _ = writeln!(s, "*{}: not drawn.*\n", p.title);
                }
            }
        }
        if plot::font().is_none() && settings.plots {
            s.push_str(
                "*No TrueType font was found (install Debian's `fonts-dejavu-core`, or set \
`WISEC_FONT`), so the plots carry no text; the tables above have the numbers.*\n\n",
            );
        }
        for e in plot_errors {
            let _ = writeln!(s, "*Plot error: {e}*\n");
        }
    }
    s.push_str(&crate::experiment::fitted_markdown(exp.fitted().as_deref()));
    if !report.notes.is_empty() {
        s.push_str("## Notes\n\n");
        for n in &report.notes {
            let _ = writeln!(s, "{n}\n");
        }
    }
    if settings.out.is_some() {
        // scenario.toml holds the seed, the trials and every override as
        // run, calibration.json the cost model: together they give the
        // same results.json and CSV again. Relative to this directory, so
        // the report does not depend on where it was written.
        s.push_str(
            "## Reproduce\n\nIn this directory, the same tables, results.json and results.csv again (the \
scenario as run holds the seed, the trials and every override; the calibration file the \
crypto cost model):\n\n```sh\nwisec lab run scenario.toml --calibration calibration.json \
--out again\n```\n\n",
        );
    }
    s.push_str("## Files\n\n");
    s.push_str(
        "- `results.json`, `results.csv`: every completed trial and this summary\n\
- `trials/`: one JSON and one CSV per trial, written as each trial completed\n\
- `scenario.toml`: the scenario as run (after overrides); `calibration.json`: the cost model\n",
    );
    let pcaps: Vec<&PathBuf> = files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "pcap"))
        .collect();
    if !pcaps.is_empty() {
        s.push_str(
            "- channel captures (radiotap, link type 127, virtual time from 1970-01-01), \
for Wireshark or tshark:\n",
        );
        for p in &pcaps {
            let _ = writeln!(s, "  - `{}`", p.display());
        }
        let secrets: Vec<String> = results
            .iter()
            .filter_map(|r| r.secrets.as_ref())
            .map(|k| match (&k.passphrase, &k.wep_key_hex, &k.msk_hex) {
                (Some(p), _, _) => format!("{}: SSID `{}`, passphrase `{p}`", k.suite, k.ssid),
                (None, Some(w), _) => format!("{}: WEP key `{w}`", k.suite),
                (None, None, Some(_)) => format!(
                    "{}: 802.1X, each trial's MSK in its `secrets.msk_hex` (`wisec decrypt --msk`, \
tshark's `msk` key), below for the captured trials",
                    k.suite
                ),
                (None, None, None) => format!("{}: no keys", k.suite),
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        for k in secrets {
            let _ = writeln!(s, "  - keys: {k}");
        }
        for p in &pcaps {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let msk = results.iter().find_map(|r| {
                let m = r.secrets.as_ref()?.msk_hex.as_ref()?;
                name.starts_with(&format!("{}-", trial_stem(r)))
                    .then_some(m)
            });
            if let Some(m) = msk {
                let _ = writeln!(s, "  - `{}`: MSK `{m}`", p.display());
            }
        }
    }
    s
}

/// A report's parameters as a Markdown section ("## Parameters" and a
/// table of name, value and meaning), ending with a blank line.
pub fn parameters_markdown(parameters: &[crate::experiment::Param]) -> String {
    let mut s = String::from("## Parameters\n\n| parameter | value | meaning |\n|---|---|---|\n");
    for p in parameters {
        let _ = writeln!(
            s,
            "| {} | {} | {} |",
            p.name,
            p.value.to_string().replace('|', "\\|"),
            p.description.replace('|', "\\|")
        );
    }
    s.push('\n');
    s
}

/// Renders a table as aligned text for a terminal (the report's tables
/// printed at the end of a run).
pub fn text_tables(report: &Report) -> String {
    report
        .tables
        .iter()
        .map(Table::to_text)
        .collect::<Vec<_>>()
        .join("\n")
}
