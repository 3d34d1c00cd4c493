//! `wisec lab`: the simulator's experiments on the command line.

use crate::cli::Failure;
use anyhow::Context as _;
use clap::{Args, Subcommand, ValueEnum};
use std::fs;
use std::path::{Path, PathBuf};
use wisec_lab::experiment::{self, saturation};
use wisec_lab::{PhyStandard, Rate};

const RUN_EXAMPLES: &str = "\
Examples:
  # 802.11b, basic access and RTS/CTS, 1 to 50 stations, beside Bianchi's model
  wisec lab run saturation

  # 802.11g, RTS/CTS only, three trials, results as JSON and CSV in out/
  wisec lab run saturation --phy g --rts --trials 3 --out out

  # seed 001's overhead experiment, reproducibly from a calibration file
  wisec lab calibrate --out cal.json
  wisec lab run overhead --calibration cal.json --out overhead

  # a small version: 11 Mb/s, 100 KB transfers, one trial
  wisec lab run overhead --quick --set suites=open,ccmp128,tkip";

/// Arguments of `wisec lab`.
#[derive(Debug, Args)]
pub struct LabArgs {
    #[command(subcommand)]
    command: LabCommand,
}

#[derive(Debug, Subcommand)]
enum LabCommand {
    /// List the built-in experiments
    List,
    /// Run a built-in experiment
    #[command(after_help = RUN_EXAMPLES)]
    Run(RunArgs),
    /// Measure this machine's crypto costs for the lab's cost model
    Calibrate(crate::lab_run::CalibrateArgs),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PhyArg {
    /// 802.11b (DSSS/CCK, 11 Mb/s, long preamble)
    B,
    /// 802.11g, ERP stations only (OFDM, 54 Mb/s, short slot)
    G,
    /// 802.11a (OFDM, 54 Mb/s)
    A,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// The experiment (see 'wisec lab list')
    #[arg(value_name = "NAME")]
    name: String,
    /// Station counts, comma-separated
    #[arg(
        long,
        value_name = "N,N,...",
        value_delimiter = ',',
        default_value = "1,5,10,20,50"
    )]
    stations: Vec<u32>,
    /// RTS/CTS only (default: basic access and RTS/CTS)
    #[arg(long, conflicts_with = "basic")]
    rts: bool,
    /// Basic access only
    #[arg(long)]
    basic: bool,
    /// PHY
    #[arg(long, value_enum, default_value = "b")]
    phy: PhyArg,
    /// Data rate in Mb/s (default: the PHY's highest)
    #[arg(long, value_name = "MBPS")]
    rate: Option<f64>,
    /// Virtual seconds measured per run
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    seconds: f64,
    /// Seed of every run's random streams
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Runs per point, each with its own derived seed (default: 1 for
    /// saturation, 10 for overhead)
    #[arg(long, value_name = "N")]
    trials: Option<u32>,
    /// A reduced version of the experiment (overhead: 11 Mb/s only,
    /// 100 KB transfers, one trial)
    #[arg(long)]
    quick: bool,
    /// The crypto cost model from a file written by 'wisec lab calibrate'
    /// (default: measured at start, which makes runs machine-dependent)
    #[arg(long, value_name = "FILE")]
    calibration: Option<PathBuf>,
    /// Set an experiment parameter (overhead: suites, rates, measures,
    /// bytes, soho, ap, sta, soho-ap); repeatable
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// The standard's retry limits and EIFS instead of the model's
    /// assumptions (no retry limit, DIFS after a collision)
    #[arg(long)]
    standard_mac: bool,
    /// Directory for the results (JSON and CSV); created if missing
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the results as JSON on standard output instead of a table
    #[arg(long)]
    json: bool,
}

/// Runs `wisec lab`.
pub fn run(a: LabArgs) -> Result<(), Failure> {
    match a.command {
        LabCommand::List => {
            for e in experiment::EXPERIMENTS {
                println!("{:<12} {}", e.name, e.summary);
            }
            Ok(())
        }
        LabCommand::Run(r) => run_experiment(r),
        LabCommand::Calibrate(c) => crate::lab_run::calibrate(c),
    }
}

fn run_experiment(a: RunArgs) -> Result<(), Failure> {
    if experiment::find(&a.name).is_none() {
        let names: Vec<&str> = experiment::EXPERIMENTS.iter().map(|e| e.name).collect();
        return Err(Failure::Usage(format!(
            "no experiment '{}' (there is: {})",
            a.name,
            names.join(", ")
        )));
    }
    if a.name != "saturation" {
        return crate::lab_run::run(crate::lab_run::GenericArgs {
            name: a.name,
            seed: a.seed,
            trials: a.trials,
            quick: a.quick,
            calibration: a.calibration,
            set: a.set,
            out: a.out,
            json: a.json,
        });
    }
    let trials = a.trials.unwrap_or(1);
    if a.stations.is_empty() || a.stations.iter().any(|&n| n == 0 || n > 1000) {
        return Err(Failure::Usage(
            "--stations: give counts from 1 to 1000".to_string(),
        ));
    }
    if !(a.seconds.is_finite() && a.seconds > 0.0 && a.seconds <= 3600.0) {
        return Err(Failure::Usage(
            "--seconds: give a duration above 0 and at most 3600".to_string(),
        ));
    }
    if trials == 0 || trials > 1000 {
        return Err(Failure::Usage("--trials: give 1 to 1000".to_string()));
    }
    let phy = match a.phy {
        PhyArg::B => PhyStandard::B,
        PhyArg::G => PhyStandard::G,
        PhyArg::A => PhyStandard::A,
    };
    let mut cfg = saturation::SaturationConfig {
        phy,
        stations: a.stations.clone(),
        access: match (a.rts, a.basic) {
            (true, _) => vec![true],
            (false, true) => vec![false],
            (false, false) => vec![false, true],
        },
        seconds: a.seconds,
        seed: a.seed,
        trials,
        model_assumptions: !a.standard_mac,
        ..Default::default()
    };
    if let Some(mbps) = a.rate {
        let rate = Rate::from_mbps(mbps)
            .filter(|r| cfg.profile().supports(*r))
            .ok_or_else(|| {
                Failure::Usage(format!("--rate: {mbps} Mb/s is not a rate of this PHY"))
            })?;
        cfg.rate = Some(rate);
    }
    let total = cfg.stations.len() * cfg.access.len() * cfg.trials as usize;
    let mut done = 0;
    let report = saturation::run(&cfg, &mut |r| {
        done += 1;
        eprintln!(
            "[{done}/{total}] {} stations, {}, trial {}: {:.3} Mb/s (model {:.3})",
            r.stations, r.access, r.trial, r.sim_mbps, r.model_mbps
        );
    });
    if let Some(dir) = &a.out {
        write_outputs(dir, &report)?;
    }
    if a.json {
        let s = serde_json::to_string_pretty(&report).context("encoding the results")?;
        println!("{s}");
    } else {
        println!(
            "saturation: 802.11{} at {}, {}-octet IP packets, {} s per run, seed {}{}",
            match phy {
                PhyStandard::B => "b",
                PhyStandard::G => "g",
                PhyStandard::A => "a",
            },
            cfg.data_rate(),
            cfg.ip_len,
            cfg.seconds,
            cfg.seed,
            if cfg.model_assumptions {
                " (MAC as the model assumes: no retry limit, DIFS after collisions)"
            } else {
                " (standard retry limits and EIFS)"
            }
        );
        let m = &report.model;
        println!(
            "Bianchi: W = {}, m = {}, slot {} µs, basic Ts/Tc {:.0}/{:.0} µs, RTS/CTS Ts/Tc {:.0}/{:.0} µs",
            m.w, m.m, m.slot_us, m.basic_ts_tc_us.0, m.basic_ts_tc_us.1, m.rts_ts_tc_us.0, m.rts_ts_tc_us.1
        );
        print!("{}", report.table());
        if let Some(dir) = &a.out {
            println!("results written to {}", dir.display());
        }
    }
    Ok(())
}

fn write_outputs(dir: &Path, report: &saturation::SaturationReport) -> Result<(), Failure> {
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let json = serde_json::to_string_pretty(report).context("encoding the results")?;
    let files = [
        ("saturation.json", json + "\n"),
        ("saturation.csv", report.points_csv()),
        ("saturation_runs.csv", report.runs_csv()),
    ];
    for (name, body) in files {
        let p = dir.join(name);
        fs::write(&p, body).with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(())
}
