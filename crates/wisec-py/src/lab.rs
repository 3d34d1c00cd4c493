//! The lab for Python: a scenario resolved as `wisec lab run` resolves it,
//! run whole in this process, or trial by trial anywhere (each trial is a
//! pure function of its spec, which carries its seed, and of the
//! calibration) and merged into the report the command writes.

use crate::{guard, panic_text, UsageError};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;
use wisec::error::Failure;
use wisec_lab::cost::Calibration;
use wisec_lab::experiment::{Experiment, ExperimentError, TrialResult};
use wisec_lab::output::{self, ChannelPcap, Outcome, RunSettings, Status};
use wisec_lab::progress::ProgressMode;
use wisec_lab::scenario::{CaptureMode, Scenario};

/// A trial's channel captures from Python: (channel, pcap file).
type Captures = Vec<(usize, Vec<u8>)>;
/// One channel capture for Python.
type Capture<'py> = (usize, Bound<'py, PyBytes>);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("TrialFailed", m.py().get_type::<TrialFailed>())?;
    m.add_class::<LabPlan>()?;
    m.add_function(wrap_pyfunction!(lab_plan, m)?)?;
    m.add_function(wrap_pyfunction!(lab_run_trial, m)?)?;
    m.add_function(wrap_pyfunction!(lab_experiments, m)?)?;
    Ok(())
}

fn usage(f: Failure) -> PyErr {
    match f {
        Failure::Usage(m) => UsageError::new_err(m),
        Failure::Runtime(e) => PyValueError::new_err(format!("{e:#}")),
        Failure::Status(n) => PyRuntimeError::new_err(format!("exit status {n}")),
    }
}

/// The built-in experiments: (name, summary).
#[pyfunction]
fn lab_experiments() -> Vec<(&'static str, &'static str)> {
    wisec_lab::experiment::EXPERIMENTS
        .iter()
        .map(|e| (e.name, e.summary))
        .collect()
}

/// A scenario resolved with its overrides and calibration: what
/// `wisec lab run NAME --set K=V --calibration C` would run.
#[pyclass(frozen, module = "wisec.lab")]
pub struct LabPlan {
    toml: String,
    scenario: Scenario,
    calibration: Calibration,
}

fn experiment_of(sc: &Scenario) -> PyResult<Box<dyn Experiment>> {
    sc.create_experiment()
        .map_err(|e| UsageError::new_err(e.to_string()))
}

/// Resolves the scenario `name` (built-in or a file) with `overrides`
/// (`--set` pairs) and the calibration `calibration` (`nominal`,
/// `measure` or a file from `wisec lab calibrate`).
#[pyfunction]
fn lab_plan(
    py: Python<'_>,
    name: &str,
    overrides: Vec<(String, String)>,
    calibration: &str,
) -> PyResult<LabPlan> {
    let base = wisec::lab::load(name).map_err(usage)?;
    let ov: Vec<(String, String)> = overrides
        .into_iter()
        .map(|(k, v)| (wisec::lab::set_key(&k), v))
        .collect();
    let sc = base
        .with_overrides(&ov)
        .map_err(|e| UsageError::new_err(e.to_string()))?;
    if sc.live {
        return Err(UsageError::new_err(
            "live runs need root, network namespaces and real programs: run them with \
'wisec lab run NAME --live'",
        ));
    }
    experiment_of(&sc)?;
    let cal = py
        .detach(|| wisec::lab::calibration(calibration))
        .map_err(usage)?;
    Ok(LabPlan {
        toml: sc.to_toml(),
        scenario: sc,
        calibration: cal,
    })
}

fn capture_of(sc: &Scenario, pcap: Option<&str>) -> PyResult<CaptureMode> {
    Ok(match pcap {
        None => sc.output.pcap,
        Some("first") => CaptureMode::First,
        Some("all") => CaptureMode::All,
        Some("none") => CaptureMode::None,
        Some(other) => {
            return Err(UsageError::new_err(format!(
                "pcap: '{other}' is not first, all or none"
            )))
        }
    })
}

fn outcome_json(exp: &dyn Experiment, sc: &Scenario, o: &Outcome) -> PyResult<String> {
    let v = serde_json::json!({
        "experiment": exp.name(),
        "scenario": sc.name,
        "status": o.status,
        "error": o.error.as_ref().map(|e| e.0.clone()),
        "planned": o.planned,
        "trials": o.results,
        "report": o.report,
        "files": o.files,
    });
    serde_json::to_string(&v)
        .map_err(|e| PyRuntimeError::new_err(format!("encoding the results: {e}")))
}

/// Waits for `rx` without the interpreter, looking at Python's signals
/// every 100 ms; a KeyboardInterrupt sets `interrupt` (the run stops after
/// its current trial and writes the report of the trials done) and is
/// raised once the run has stopped.
fn wait_interruptible<T: Send>(
    py: Python<'_>,
    rx: &std::sync::Mutex<mpsc::Receiver<T>>,
    interrupt: &AtomicBool,
) -> PyResult<T> {
    let mut interrupted = None;
    loop {
        match py.detach(|| {
            rx.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .recv_timeout(Duration::from_millis(100))
        }) {
            Ok(v) => {
                return match interrupted {
                    Some(e) => Err(e),
                    None => Ok(v),
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("the lab run stopped unexpectedly"))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if interrupted.is_none() {
                    if let Err(e) = py.check_signals() {
                        interrupt.store(true, Ordering::SeqCst);
                        interrupted = Some(e);
                    }
                }
            }
        }
    }
}

#[pymethods]
impl LabPlan {
    /// The scenario as run (after overrides), as `scenario.toml` holds it.
    #[getter]
    fn toml(&self) -> &str {
        &self.toml
    }

    /// The scenario's name.
    #[getter]
    fn scenario(&self) -> &str {
        &self.scenario.name
    }

    /// The experiment's name.
    #[getter]
    fn experiment(&self) -> String {
        self.scenario.experiment.get_ref().clone()
    }

    /// The calibration, as `calibration.json` holds it.
    #[getter]
    fn calibration_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.calibration)
            .map_err(|e| PyRuntimeError::new_err(format!("encoding the calibration: {e}")))
    }

    /// The plan's trials, as JSON: a list of {index, label, seed, params}.
    fn trials_json(&self) -> PyResult<String> {
        let exp = experiment_of(&self.scenario)?;
        serde_json::to_string(&exp.plan())
            .map_err(|e| PyRuntimeError::new_err(format!("encoding the plan: {e}")))
    }

    /// Which trials' channels are captured with `pcap` (None: the
    /// scenario's choice): "first", "all" or "none".
    #[pyo3(signature = (pcap = None))]
    fn capture(&self, pcap: Option<&str>) -> PyResult<&'static str> {
        Ok(match capture_of(&self.scenario, pcap)? {
            CaptureMode::First => "first",
            CaptureMode::All => "all",
            CaptureMode::None => "none",
        })
    }

    /// Runs every trial in this process into `out` (None: no files), as
    /// `wisec lab run` does. Returns the results as JSON.
    #[pyo3(signature = (out = None, pcap = None, plots = true, progress = false))]
    fn run(
        &self,
        py: Python<'_>,
        out: Option<PathBuf>,
        pcap: Option<&str>,
        plots: bool,
        progress: bool,
    ) -> PyResult<String> {
        let capture = capture_of(&self.scenario, pcap)?;
        let plots = plots && self.scenario.output.plots.unwrap_or(true);
        let sc = self.scenario.clone();
        let cal = self.calibration.clone();
        let toml = self.toml.clone();
        let interrupt = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&interrupt);
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("wisec-lab".into())
            .spawn(move || {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let exp = sc
                        .create_experiment()
                        .map_err(|e| UsageError::new_err(e.to_string()))?;
                    let settings = RunSettings {
                        out,
                        calibration: &cal,
                        capture,
                        plots,
                        scenario_toml: Some(toml),
                        scenario_name: sc.name.clone(),
                        interrupt: Some(flag),
                        progress: if progress {
                            ProgressMode::Auto
                        } else {
                            ProgressMode::Quiet
                        },
                    };
                    let o = output::run(exp.as_ref(), &settings)
                        .map_err(|e| PyValueError::new_err(e.to_string()))?;
                    outcome_json(exp.as_ref(), &sc, &o)
                }))
                .unwrap_or_else(|p| {
                    Err(PyRuntimeError::new_err(format!(
                        "internal error in the lab: {} (please report it)",
                        panic_text(&p)
                    )))
                });
                let _ = tx.send(r);
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
        wait_interruptible(py, &std::sync::Mutex::new(rx), &interrupt)?
    }

    /// Writes the output of trials that ran elsewhere (`lab_run_trial`),
    /// given in plan order with their channel captures, exactly as `run`
    /// writes it. `error` (trial failed) marks the run failed after them.
    #[pyo3(signature = (trials, out = None, pcap = None, plots = true, error = None))]
    fn merge(
        &self,
        trials: Vec<(String, Captures)>,
        out: Option<PathBuf>,
        pcap: Option<&str>,
        plots: bool,
        error: Option<String>,
    ) -> PyResult<String> {
        let capture = capture_of(&self.scenario, pcap)?;
        let plots = plots && self.scenario.output.plots.unwrap_or(true);
        let exp = experiment_of(&self.scenario)?;
        let plan = exp.plan();
        let mut done = Vec::with_capacity(trials.len());
        for (i, (json, pcaps)) in trials.into_iter().enumerate() {
            let r: TrialResult = serde_json::from_str(&json).map_err(|e| {
                PyValueError::new_err(format!("trial {i}: not a trial result: {e}"))
            })?;
            let want = plan.get(i).ok_or_else(|| {
                PyValueError::new_err(format!("trial {i}: the plan has {} trials", plan.len()))
            })?;
            if r.spec != *want {
                return Err(PyValueError::new_err(format!(
                    "trial {i}: result of '{}' where the plan has '{}'",
                    r.spec.label, want.label
                )));
            }
            let pcaps = pcaps
                .into_iter()
                .map(|(channel, pcap)| ChannelPcap { channel, pcap })
                .collect();
            done.push((r, pcaps));
        }
        let (status, err) = match error {
            Some(e) => (Status::Failed, Some(ExperimentError(e))),
            None if done.len() < plan.len() => (Status::Interrupted, None),
            None => (Status::Complete, None),
        };
        let settings = RunSettings {
            out,
            calibration: &self.calibration,
            capture,
            plots,
            scenario_toml: Some(self.toml.clone()),
            scenario_name: self.scenario.name.clone(),
            interrupt: None,
            progress: ProgressMode::Quiet,
        };
        let o = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            output::write_completed(exp.as_ref(), &settings, done, status, err)
        }))
        .map_err(|p| {
            PyRuntimeError::new_err(format!(
                "internal error in the lab: {} (please report it)",
                panic_text(&p)
            ))
        })?
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
        outcome_json(exp.as_ref(), &self.scenario, &o)
    }
}

/// Runs trial `index` of the scenario `toml` (as a `LabPlan` gives it)
/// with the calibration `calibration_json`: what each worker of a sweep
/// does. `label` and `seed` must be the plan's for that index. Returns the
/// trial's result as JSON and, with `capture`, its channel captures.
#[pyfunction]
fn lab_run_trial<'py>(
    py: Python<'py>,
    toml: &str,
    calibration_json: &str,
    index: usize,
    label: &str,
    seed: u64,
    capture: bool,
) -> PyResult<(String, Vec<Capture<'py>>)> {
    let sc = Scenario::parse("scenario", toml).map_err(|e| UsageError::new_err(e.to_string()))?;
    let cal: Calibration = serde_json::from_str(calibration_json)
        .map_err(|e| PyValueError::new_err(format!("calibration: {e}")))?;
    let r = py.detach(|| {
        guard("lab trial", || {
            let exp = experiment_of(&sc)?;
            let plan = exp.plan();
            let spec = plan.get(index).ok_or_else(|| {
                PyValueError::new_err(format!("index: the plan has {} trials", plan.len()))
            })?;
            if spec.label != label || spec.seed != seed {
                return Err(PyValueError::new_err(format!(
                    "trial {index} of this scenario is '{}' (seed {}), not '{label}' (seed {seed})",
                    spec.label, spec.seed
                )));
            }
            let (r, pcaps) = output::run_one(exp.as_ref(), spec, &cal, capture)
                .map_err(|e| TrialFailed::new_err(e.0))?;
            let j = serde_json::to_string(&r)
                .map_err(|e| PyRuntimeError::new_err(format!("encoding the result: {e}")))?;
            Ok((j, pcaps))
        })
    })?;
    let pcaps =
        r.1.into_iter()
            .map(|c| (c.channel, PyBytes::new(py, &c.pcap)))
            .collect();
    Ok((r.0, pcaps))
}

pyo3::create_exception!(
    wisec,
    TrialFailed,
    PyRuntimeError,
    "A lab trial failed; the message is the experiment's."
);
