//! `wisec lab run NAME` for the experiments behind the generic
//! [`wisec_lab::experiment::Experiment`] interface, and `wisec lab
//! calibrate`.
//!
//! The run loads the crypto cost model (or measures it), runs every trial
//! of the plan in order with a progress line, and in `--out DIR` writes
//! `calibration.json`, one `trials/LABEL.json` per trial as soon as it
//! finishes, `results.json` (every trial), `report.json`, `report.md` and
//! one CSV per table.

use crate::error::Failure;
use anyhow::Context as _;
use clap::Args;
use std::path::PathBuf;
use wisec_lab::cost::Calibration;

/// Arguments of `wisec lab calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Where to write the calibration (JSON); an existing file is kept
    /// unless --force
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Replace FILE if it exists
    #[arg(long)]
    force: bool,
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
    if !a.force && a.out.exists() {
        return Err(Failure::Usage(format!(
            "--out {}: the file exists; give --force to replace it",
            a.out.display()
        )));
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
    let pending = crate::outfile::Pending::create(&a.out, a.force)?;
    {
        use std::io::Write;
        let mut f = pending.handle()?;
        f.write_all((text + "\n").as_bytes())
            .with_context(|| format!("writing {}", a.out.display()))?;
    }
    pending.commit()?;
    crate::outln!(
        "calibration ({}, host {:.0} MHz) written to {}",
        cal.source,
        cal.host_mhz,
        a.out.display()
    );
    for (title, suites) in [
        (None, &cal.suites),
        (
            Some("  on the table AES (devices without AES instructions):"),
            &cal.soft_aes,
        ),
    ] {
        if let Some(t) = title {
            crate::outln!("{t}");
        }
        for (k, c) in suites {
            crate::outln!(
                "  {k:<14} protect {:>8.0} + {:>6.2}/octet cycles, unprotect {:>8.0} + {:>6.2}/octet",
                c.protect.cycles_per_frame,
                c.protect.cycles_per_byte,
                c.unprotect.cycles_per_frame,
                c.unprotect.cycles_per_byte
            );
        }
    }
    for (k, c) in &cal.ecdh {
        crate::outln!(
            "  ECDH {k:<9} agreement {:>10.0} cycles, key pair {:>10.0} cycles",
            c.agree_cycles,
            c.keygen_cycles
        );
    }
    Ok(())
}
