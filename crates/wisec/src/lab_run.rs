//! `wisec lab run NAME` for the experiments behind the generic
//! [`wisec_lab::experiment::Experiment`] interface, and `wisec lab
//! calibrate`.
//!
//! The run loads the crypto cost model (or measures it), runs every trial
//! of the plan in order with a progress line, and in `--out DIR` writes
//! `calibration.json`, one `trials/LABEL.json` per trial as soon as it
//! finishes, `results.json` (every trial), `report.json`, `report.md` and
//! one CSV per table.

use crate::cli::Failure;
use anyhow::{anyhow, Context as _};
use clap::Args;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use wisec_lab::cost::Calibration;
use wisec_lab::experiment::{self, Report, RunOptions, TrialEnv, TrialResult};

/// Arguments of `wisec lab calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Where to write the calibration (JSON)
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Wall-clock milliseconds to spend measuring
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    budget_ms: u64,
    /// Write the fixed nominal calibration instead of measuring
    #[arg(long)]
    nominal: bool,
}

/// Runs `wisec lab calibrate`.
pub fn calibrate(a: CalibrateArgs) -> Result<(), Failure> {
    if a.budget_ms == 0 || a.budget_ms > 600_000 {
        return Err(Failure::Usage("--budget-ms: 1 to 600000".into()));
    }
    if !a.nominal && cfg!(debug_assertions) {
        eprintln!(
            "warning: this is an unoptimised build; its crypto is many times slower than a \
release build's (cargo run --release -- lab calibrate)"
        );
    }
    let cal = if a.nominal {
        Calibration::nominal()
    } else {
        Calibration::measure(a.budget_ms)
    };
    let text = serde_json::to_string_pretty(&cal).context("encoding the calibration")?;
    fs::write(&a.out, text + "\n").with_context(|| format!("writing {}", a.out.display()))?;
    println!(
        "calibration ({}, host {:.0} MHz) written to {}",
        cal.source,
        cal.host_mhz,
        a.out.display()
    );
    for (k, c) in &cal.suites {
        println!(
            "  {k:<14} protect {:>8.0} + {:>6.2}/octet cycles, unprotect {:>8.0} + {:>6.2}/octet",
            c.protect.cycles_per_frame,
            c.protect.cycles_per_byte,
            c.unprotect.cycles_per_frame,
            c.unprotect.cycles_per_byte
        );
    }
    Ok(())
}

/// Reads and checks a calibration file.
pub fn load_calibration(path: &Path) -> anyhow::Result<Calibration> {
    let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let cal: Calibration = serde_json::from_str(&text).map_err(|e| {
        anyhow!(
            "{}: line {}, column {}: {e}",
            path.display(),
            e.line(),
            e.column()
        )
    })?;
    cal.validate()
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok(cal)
}

/// What `wisec lab run` passes on for a generic experiment.
#[derive(Debug)]
pub struct GenericArgs {
    /// The experiment.
    pub name: String,
    /// Seed.
    pub seed: u64,
    /// Trials per point.
    pub trials: Option<u32>,
    /// Reduced version.
    pub quick: bool,
    /// Calibration file.
    pub calibration: Option<PathBuf>,
    /// `KEY=VALUE` overrides.
    pub set: Vec<String>,
    /// Output directory.
    pub out: Option<PathBuf>,
    /// Print the report as JSON.
    pub json: bool,
}

fn write(dir: &Path, name: &str, body: &str) -> anyhow::Result<()> {
    let p = dir.join(name);
    fs::write(&p, body).with_context(|| format!("writing {}", p.display()))
}

/// The report as Markdown.
pub fn markdown(report: &Report) -> String {
    let mut md = format!(
        "# {}\n\n{}\n\n## Parameters\n\n",
        report.experiment, report.description
    );
    md.push_str("| parameter | value | meaning |\n|---|---|---|\n");
    for p in &report.parameters {
        md.push_str(&format!(
            "| {} | {} | {} |\n",
            p.name, p.value, p.description
        ));
    }
    md.push_str("\n## Results\n\n");
    for t in &report.tables {
        md.push_str(&t.to_markdown());
        md.push('\n');
    }
    if !report.notes.is_empty() {
        md.push_str("## Where and why the lab differs from the seed\n\n");
        for n in &report.notes {
            md.push_str(&format!("- {n}\n"));
        }
    }
    md
}

/// Runs a generic experiment.
pub fn run(a: GenericArgs) -> Result<(), Failure> {
    if a.trials.is_some_and(|t| t == 0 || t > 1000) {
        return Err(Failure::Usage("--trials: give 1 to 1000".to_string()));
    }
    let mut overrides = Vec::new();
    for s in &a.set {
        let Some((k, v)) = s.split_once('=') else {
            return Err(Failure::Usage(format!("--set {s}: give KEY=VALUE")));
        };
        overrides.push((k.trim().to_string(), v.trim().to_string()));
    }
    let opts = RunOptions {
        seed: a.seed,
        trials: a.trials,
        quick: a.quick,
        overrides,
    };
    let exp = experiment::create(&a.name, &opts).map_err(|e| Failure::Usage(e.0))?;
    let cal = match &a.calibration {
        Some(p) => load_calibration(p)?,
        None => {
            eprintln!(
                "measuring the crypto cost model (give --calibration FILE for reproducible runs)"
            );
            Calibration::measure(500)
        }
    };
    if let Some(dir) = &a.out {
        fs::create_dir_all(dir.join("trials"))
            .with_context(|| format!("creating {}", dir.display()))?;
        let text = serde_json::to_string_pretty(&cal).context("encoding the calibration")?;
        write(dir, "calibration.json", &(text + "\n"))?;
    }
    let mut env = TrialEnv::new(&cal);
    let plan = exp.plan();
    let total = plan.len();
    let mut results: Vec<TrialResult> = Vec::with_capacity(total);
    for (i, spec) in plan.iter().enumerate() {
        let r = exp
            .run_trial(spec, &mut env)
            .map_err(|e| Failure::Runtime(anyhow!("{e}")))?;
        let summary = match (r.metric("throughput_kbps"), r.metric("ping_ms")) {
            (Some(k), _) => format!("{k:.1} kb/s"),
            (None, Some(p)) => format!("{p:.3} ms"),
            _ => String::new(),
        };
        eprint!("\r[{}/{total}] {:<40} {summary:<16}", i + 1, spec.label);
        let _ = std::io::stderr().flush();
        if let Some(dir) = &a.out {
            let text = serde_json::to_string_pretty(&r).context("encoding a trial")?;
            write(
                &dir.join("trials"),
                &format!("{}.json", spec.label),
                &(text + "\n"),
            )?;
        }
        results.push(r);
    }
    eprintln!();
    let report = exp.summarize(&results);
    if let Some(dir) = &a.out {
        let text = serde_json::to_string_pretty(&results).context("encoding the results")?;
        write(dir, "results.json", &(text + "\n"))?;
        let text = serde_json::to_string_pretty(&report).context("encoding the report")?;
        write(dir, "report.json", &(text + "\n"))?;
        write(dir, "report.md", &markdown(&report))?;
        for t in &report.tables {
            write(dir, &format!("{}.csv", t.name), &t.to_csv())?;
        }
    }
    let mut stdout = std::io::stdout().lock();
    if a.json {
        let text = serde_json::to_string_pretty(&report).context("encoding the report")?;
        let _ = writeln!(stdout, "{text}");
    } else {
        for t in &report.tables {
            let _ = writeln!(stdout, "{}", t.to_text());
        }
        if let Some(dir) = &a.out {
            let _ = writeln!(stdout, "results written to {}", dir.display());
        }
    }
    Ok(())
}
