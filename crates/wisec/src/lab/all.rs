//! `wisec lab run all --out DIR`: every built-in experiment that runs
//! simulated, each into `DIR/NAME` exactly as `wisec lab run NAME --out
//! DIR/NAME` writes it, and `DIR/index.md` (and `index.json`) listing
//! them with their status and a link to each report. The live-only
//! experiments are listed with the command that runs them.
//!
//! The index is rewritten before and after each experiment, so a run
//! stopped by Ctrl-C or a failure leaves an index that says how far it
//! got.

use super::{calibration, out_error, prepare_out, run_scenario, RunArgs};
use crate::error::Failure;
use anyhow::anyhow;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;
use wisec_lab::experiment::{self, EXPERIMENTS};
use wisec_lab::output;

/// What became of one experiment.
#[derive(Debug, Clone, Serialize)]
struct Entry {
    experiment: &'static str,
    summary: &'static str,
    /// `pending`, `running`, `complete`, `failed`, `live only`.
    status: &'static str,
    /// Why it failed, or how to run a live-only experiment.
    detail: String,
    /// The report, relative to the index.
    report: Option<String>,
    wall_s: Option<f64>,
}

/// The options that choose one experiment's setting: they have no
/// meaning across all of them.
fn refuse_per_experiment_options(a: &RunArgs) -> Result<(), Failure> {
    let given: [(bool, &str); 11] = [
        (!a.set.is_empty(), "--set"),
        (!a.stations.is_empty(), "--stations"),
        (a.rts, "--rts"),
        (a.basic, "--basic"),
        (a.phy.is_some(), "--phy"),
        (a.rate.is_some(), "--rate"),
        (a.seconds.is_some(), "--seconds"),
        (a.standard_mac, "--standard-mac"),
        (a.bare.is_some(), "--bare"),
        (a.live, "--live"),
        (a.json, "--json"),
    ];
    if let Some((_, flag)) = given.iter().find(|(on, _)| *on) {
        let hint = if *flag == "--json" {
            "; 'all' writes DIR/index.json".to_string()
        } else {
            " of one experiment; give it to 'wisec lab run NAME'".to_string()
        };
        return Err(Failure::Usage(format!(
            "all: {flag} sets a parameter{hint}"
        )));
    }
    Ok(())
}

/// Runs `wisec lab run all`.
pub(super) fn run_all(a: RunArgs) -> Result<(), Failure> {
    refuse_per_experiment_options(&a)?;
    let Some(dir) = a.out.clone() else {
        return Err(Failure::Usage(
            "all: give --out DIR (each experiment's report goes to DIR/NAME, \
             and DIR/index.md lists them)"
                .into(),
        ));
    };
    if !a.force {
        prepare_out(&dir, false)?;
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| Failure::Runtime(anyhow!("--out {}: {e}", dir.display())))?;
    // One calibration for every experiment, kept beside the index.
    let cal = calibration(&a.calibration)?;
    let cal_json = serde_json::to_vec_pretty(&cal).map_err(|e| anyhow!("{e}"))?;
    output::write_atomic(&dir, Path::new("calibration.json"), &cal_json).map_err(out_error)?;
    let cal_file = dir.join("calibration.json");

    let mut entries: Vec<Entry> = EXPERIMENTS
        .iter()
        .map(|e| {
            let live = experiment::live_only(e.name);
            Entry {
                experiment: e.name,
                summary: e.summary,
                status: if live { "live only" } else { "pending" },
                detail: if live {
                    format!("sudo wisec lab run {} --out DIR/{}", e.name, e.name)
                } else {
                    String::new()
                },
                report: None,
                wall_s: None,
            }
        })
        .collect();
    let runnable = entries.iter().filter(|e| e.status == "pending").count();
    let mut failed: Vec<&str> = Vec::new();
    let mut done = 0;
    for i in 0..entries.len() {
        if entries[i].status != "pending" {
            continue;
        }
        let name = entries[i].experiment;
        done += 1;
        if !a.quiet {
            eprintln!("==> [{done}/{runnable}] {name}");
        }
        entries[i].status = "running";
        write_index(&dir, &a, &entries)?;
        let mut sub = a.clone();
        sub.name = name.to_string();
        sub.out = Some(dir.join(name));
        sub.calibration = cal_file.to_string_lossy().into_owned();
        let start = Instant::now();
        let result = run_scenario(sub);
        entries[i].wall_s = Some(start.elapsed().as_secs_f64());
        match result {
            Ok(()) => {
                entries[i].status = "complete";
                entries[i].report = Some(format!("{name}/report.md"));
            }
            // Standard output closed by its reader: stop quietly.
            Err(Failure::Status(code)) if code == crate::error::EXIT_BROKEN_PIPE => {
                return Err(Failure::Status(code));
            }
            Err(e) => {
                entries[i].status = "failed";
                entries[i].detail = match e {
                    Failure::Usage(m) => m,
                    Failure::Runtime(e) => format!("{e:#}"),
                    Failure::Status(code) => format!("exit status {code}"),
                };
                if dir.join(name).join("report.md").is_file() {
                    entries[i].report = Some(format!("{name}/report.md"));
                }
                failed.push(name);
            }
        }
        write_index(&dir, &a, &entries)?;
    }
    if !a.quiet {
        eprintln!("index: {}", dir.join("index.md").display());
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Failure::Runtime(anyhow!(
            "{} of {runnable} experiments failed: {} (see {})",
            failed.len(),
            failed.join(", "),
            dir.join("index.md").display()
        )))
    }
}

/// The command line that reproduces this run (the options that matter).
fn command(a: &RunArgs, dir: &Path) -> String {
    let mut c = format!("wisec lab run all --out {}", dir.display());
    if a.quick {
        c.push_str(" --quick");
    }
    if let Some(t) = a.trials {
        let _ = write!(c, " --trials {t}");
    }
    if let Some(s) = a.seed {
        let _ = write!(c, " --seed {s}");
    }
    if a.calibration != "measure" {
        let _ = write!(c, " --calibration {}", a.calibration);
    }
    c
}

fn write_index(dir: &Path, a: &RunArgs, entries: &[Entry]) -> Result<(), Failure> {
    let mut md = String::from("# wisec lab: every experiment\n\n");
    let _ = writeln!(md, "Made by `{}`.\n", command(a, dir));
    md.push_str(
        "Each experiment's report is in its own directory, written exactly as \
         `wisec lab run NAME --out DIR/NAME` writes it, with the same \
         calibration ([calibration.json](calibration.json)).\n\n\
         | experiment | what it measures | status | report | wall time (s) |\n\
         |---|---|---|---|---|\n",
    );
    for e in entries {
        let report = e
            .report
            .as_ref()
            .map_or(String::new(), |r| format!("[{r}]({r})"));
        let wall = e.wall_s.map_or(String::new(), |w| format!("{w:.1}"));
        let status = if e.detail.is_empty() {
            e.status.to_string()
        } else {
            format!("{}: {}", e.status, e.detail.replace('|', "\\|"))
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            e.experiment,
            e.summary.replace('|', "\\|"),
            status,
            report,
            wall
        );
    }
    if entries.iter().any(|e| e.status == "live only") {
        md.push_str(
            "\nThe live-only experiments run real daemons in network namespaces \
             (root needed); run each with the command given.\n",
        );
    }
    output::write_atomic(dir, Path::new("index.md"), md.as_bytes()).map_err(out_error)?;
    let json = serde_json::to_vec_pretty(&serde_json::json!({
        "command": command(a, dir),
        "experiments": entries,
    }))
    .map_err(|e| anyhow!("{e}"))?;
    output::write_atomic(dir, Path::new("index.json"), &json).map_err(out_error)?;
    Ok(())
}
