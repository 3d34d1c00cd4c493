//! `wisec lab`: the simulator's experiments on the command line.
//!
//! `wisec lab run` takes a built-in scenario's name or a scenario file,
//! applies `--set` overrides (and the shorthand options below), runs the
//! experiment's trials with a progress bar, and writes the results, the
//! Markdown report, the plots and the channel captures to `--out DIR`.

mod all;
mod calibrate;
#[cfg(target_os = "linux")]
pub mod live;

use crate::error::Failure;
use anyhow::{anyhow, Context as _};
use clap::{Args, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use wisec_lab::cost::Calibration;
use wisec_lab::experiment;
use wisec_lab::output::{self, RunSettings, Status};
use wisec_lab::progress::ProgressMode;
use wisec_lab::scenario::{self, CaptureMode, Scenario};

const RUN_EXAMPLES: &str = "\
Examples:
  # 802.11b, basic access and RTS/CTS, 1 to 50 stations, beside Bianchi's
  # model; report, CSV/JSON, plots and the channel pcap in report/
  wisec lab run saturation --out report

  # a scenario file, with two fields overridden
  wisec lab run scenarios/saturation.toml --set phy.standard=g --set params.stations=[1,10]

  # 802.11g, RTS/CTS only, three trials (shorthand options of saturation)
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
    /// List the built-in experiments and their scenarios
    List(crate::tabular::TableFormat),
    /// Run a built-in experiment or a scenario file
    #[command(after_help = RUN_EXAMPLES)]
    Run(RunArgs),
    /// Measure this machine's crypto costs for the lab's cost model
    Calibrate(calibrate::CalibrateArgs),
    /// A live BSS until Ctrl-C: network namespaces with real programs, joined by the
    /// lab's 802.11 medium in real time (needs root)
    #[cfg(target_os = "linux")]
    Live(LiveCommandArgs),
}

#[cfg(target_os = "linux")]
#[derive(Debug, Args)]
struct LiveCommandArgs {
    #[command(flatten)]
    live: live::LiveArgs,
    /// The crypto cost model: a JSON file from 'wisec lab calibrate', 'nominal'
    /// (fixed round figures), or 'measure' (a short measurement now)
    #[arg(long, value_name = "FILE|nominal|measure", default_value = "measure")]
    calibration: String,
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

#[derive(Debug, Clone, Copy, ValueEnum)]
enum PcapArg {
    /// The first trial's channels
    First,
    /// Every trial's channels
    All,
    /// No capture
    None,
}

#[derive(Debug, Clone, Args)]
struct RunArgs {
    /// A built-in scenario (see 'wisec lab list'), a scenario file (.toml),
    /// or 'all': every experiment that runs simulated, each into
    /// DIR/NAME, with DIR/index.md (and index.json) listing them (needs
    /// --out; takes --trials, --seed, --quick, --calibration, --pcap,
    /// --no-plots, --force, -q)
    #[arg(value_name = "NAME|FILE")]
    name: String,
    /// Trials per point, 1 to 100000 (overrides the scenario's)
    #[arg(long, value_name = "N", value_parser = |s: &str| crate::cli::num::int(s, 1u32, 100_000))]
    trials: Option<u32>,
    /// Seed of every trial's random streams, 0 to 2^63-1 (overrides the scenario's)
    #[arg(long, value_name = "S", value_parser = crate::cli::num::seed)]
    seed: Option<u64>,
    /// Directory for the report, results, plots and captures; created if missing.
    /// A directory that is not empty is refused unless --force
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// With --out: remove what an earlier run wrote into DIR (the files it
    /// listed in DIR/.wisec-files, and its trials/ and channels/) first; other
    /// files stay
    #[arg(long, requires = "out")]
    force: bool,
    /// Override a scenario field: a dotted path (phy.rate, params.stations) and a
    /// TOML value, or a bare word as a string; a key without a dot that is not a
    /// top-level field is an experiment parameter (suites=open,ccmp128)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// A reduced version for a quick look
    #[arg(long)]
    quick: bool,
    /// Run live: the kernel's TCP/IP, iperf3 and ping in network namespaces over the
    /// lab's medium in real time, beside the simulated figures (needs root; see
    /// 'wisec lab list' for which experiments can)
    #[arg(long)]
    live: bool,
    /// The crypto cost model: a JSON file from 'wisec lab calibrate', 'nominal'
    /// (fixed round figures), or 'measure' (a short measurement now)
    #[arg(long, value_name = "FILE|nominal|measure", default_value = "measure")]
    calibration: String,
    /// Which trials' channels to capture (default: the scenario's, else the first)
    #[arg(long, value_enum)]
    pcap: Option<PcapArg>,
    /// Do not draw PNG plots
    #[arg(long)]
    no_plots: bool,
    /// No progress display
    #[arg(long, short)]
    quiet: bool,
    /// Print the results as JSON on standard output instead of tables
    #[arg(long)]
    json: bool,
    /// Station counts, comma-separated, each 1 to 1000 (saturation: params.stations;
    /// congestion: params.clients; attacks: one count, params.stations)
    #[arg(long, value_name = "N,N,...", value_delimiter = ',',
          value_parser = |s: &str| crate::cli::num::int(s, 1u32, 1000))]
    stations: Vec<u32>,
    /// RTS/CTS only (saturation: params.access; congestion, configs,
    /// multihop: params.rts)
    #[arg(long, conflicts_with = "basic")]
    rts: bool,
    /// Basic access only (saturation: params.access; congestion, configs,
    /// multihop: params.rts = false)
    #[arg(long)]
    basic: bool,
    /// PHY (saturation: phy.standard; the others refuse it)
    #[arg(long, value_enum)]
    phy: Option<PhyArg>,
    /// Data rate in Mb/s, above 0 (saturation: phy.rate; overhead: params.rates;
    /// discosec, attacks, multihop, configs: params.rate; congestion and ccm-udp
    /// refuse it)
    #[arg(long, value_name = "MBPS", allow_negative_numbers = true,
          value_parser = |s: &str| crate::cli::num::positive(s, 100_000.0))]
    rate: Option<f64>,
    /// Virtual seconds measured per run, above 0, at most 86400 (saturation,
    /// discosec: params.seconds)
    #[arg(long, value_name = "S", allow_negative_numbers = true,
          value_parser = |s: &str| crate::cli::num::positive(s, 86_400.0))]
    seconds: Option<f64>,
    /// saturation: the standard's retry limits and EIFS instead of the
    /// model's assumptions (params.model_assumptions = false)
    #[arg(long)]
    standard_mac: bool,
    /// ccm-udp: also run the exchange for real — the bare machine booted
    /// under QEMU, and two Linux endpoints in namespaces as root — with its
    /// report (beside the model and the seed) in DIR/bare/
    #[arg(long, value_name = "qemu", value_parser = ["qemu"])]
    bare: Option<String>,
}

/// One experiment of `wisec lab list`.
#[derive(Debug, serde::Serialize)]
struct ListRow {
    /// Its name for `wisec lab run`.
    name: &'static str,
    /// What it runs.
    summary: &'static str,
    /// Its built-in scenario file.
    scenario: Option<&'static str>,
    /// "simulated", "simulated or live" (with --live) or "live only".
    runs: &'static str,
}

/// The columns of `wisec lab list --csv`, the fields of its JSON.
const LIST_COLUMNS: [&str; 4] = ["name", "summary", "scenario", "runs"];

/// Runs `wisec lab`.
pub fn run(a: LabArgs) -> Result<(), Failure> {
    match a.command {
        LabCommand::List(f) => {
            let rows: Vec<ListRow> = experiment::EXPERIMENTS
                .iter()
                .map(|e| ListRow {
                    name: e.name,
                    summary: e.summary,
                    scenario: scenario::builtin(e.name).map(|b| b.path),
                    runs: if experiment::live_only(e.name) {
                        "live only"
                    } else if experiment::not_live(e.name).is_none() {
                        "simulated or live"
                    } else {
                        "simulated"
                    },
                })
                .collect();
            let enc = |e: serde_json::Error| Failure::Runtime(anyhow::anyhow!("encoding: {e}"));
            if f.json {
                crate::outln!("{}", serde_json::to_string_pretty(&rows).map_err(enc)?);
                return Ok(());
            }
            if f.csv {
                let s = crate::tabular::csv(&LIST_COLUMNS, &rows).map_err(enc)?;
                crate::out!("{s}");
                return Ok(());
            }
            crate::outln!("Built-in experiments ('wisec lab run NAME'):");
            for r in &rows {
                let file = r.scenario.map_or(String::new(), |p| format!(" [{p}]"));
                let live = match r.runs {
                    "live only" => " (live only)",
                    "simulated or live" => " (also --live)",
                    _ => "",
                };
                crate::outln!("  {:<12} {}{file}{live}", r.name, r.summary);
            }
            Ok(())
        }
        LabCommand::Run(r) if r.name == "all" => all::run_all(r),
        LabCommand::Run(r) => run_scenario(r),
        LabCommand::Calibrate(c) => calibrate::calibrate(c),
        #[cfg(target_os = "linux")]
        LabCommand::Live(l) => {
            let cal = calibration(&l.calibration)?;
            live::run(l.live, interrupt_flag(), &cal)
        }
    }
}

/// The scenario `name`: a scenario file (`.toml`, or any file that
/// exists), else a built-in experiment's.
pub fn load(name: &str) -> Result<Scenario, Failure> {
    let as_path = Path::new(name);
    if name.ends_with(".toml") || as_path.is_file() {
        return Scenario::from_file(as_path).map_err(|e| Failure::Usage(e.to_string()));
    }
    match scenario::builtin(name) {
        Some(b) => Scenario::parse(b.path, b.text).map_err(|e| Failure::Usage(e.to_string())),
        None => {
            let names: Vec<&str> = scenario::BUILTIN.iter().map(|b| b.name).collect();
            Err(Failure::Usage(format!(
                "no experiment '{name}' (there is: {}; 'all' for every one; or give a scenario file)",
                names.join(", ")
            )))
        }
    }
}

/// The scenario's top-level fields and sections: `--set` keys that are
/// not experiment parameters.
const TOP_LEVEL: &[&str] = &[
    "name",
    "description",
    "experiment",
    "seed",
    "trials",
    "quick",
    "live",
    "params",
    "phy",
    "mac",
    "security",
    "profiles",
    "nodes",
    "topology",
    "traffic",
    "attacks",
    "output",
];

/// The shorthand options (`--stations`, `--rts`, `--basic`, `--phy`,
/// `--rate`, `--seconds`, `--standard-mac`) as overrides of experiment
/// `exp`'s fields; one that `exp` has no field for is a usage error naming
/// what to set instead.
fn shorthands(a: &RunArgs, exp: &str, v: &mut Vec<(String, String)>) -> Result<(), Failure> {
    let refuse = |flag: &str, instead: &str| {
        Err(Failure::Usage(format!(
            "{flag}: experiment {exp} has no such setting; {instead}"
        )))
    };
    if !a.stations.is_empty() {
        let l: Vec<String> = a.stations.iter().map(u32::to_string).collect();
        match exp {
            "saturation" => v.push(("params.stations".into(), format!("[{}]", l.join(", ")))),
            "congestion" => v.push(("params.clients".into(), format!("[{}]", l.join(", ")))),
            "attacks" if l.len() == 1 => v.push(("params.stations".into(), l[0].clone())),
            "attacks" => return refuse("--stations", "attacks takes one count (params.stations)"),
            "multihop" => return refuse("--stations", "its chain length is params.chain"),
            "configs" => {
                return refuse(
                    "--stations",
                    "its configurations fix one or two laptops; choose them with params.configs",
                )
            }
            _ => {
                return refuse(
                    "--stations",
                    "see 'wisec lab list' and README for its parameters",
                )
            }
        }
    }
    if a.rts || a.basic {
        let flag = if a.rts { "--rts" } else { "--basic" };
        match exp {
            "saturation" => v.push((
                "params.access".into(),
                if a.rts { "[\"rts\"]" } else { "[\"basic\"]" }.into(),
            )),
            "congestion" | "multihop" | "configs" => {
                v.push(("params.rts".into(), a.rts.to_string()))
            }
            "overhead" | "discosec" | "attacks" => {
                return refuse(flag, "its frames go without RTS/CTS ([mac] is not read)")
            }
            _ => return refuse(flag, "it has no wireless medium"),
        }
    }
    if let Some(p) = a.phy {
        let s = match p {
            PhyArg::B => "b",
            PhyArg::G => "g",
            PhyArg::A => "a",
        };
        match exp {
            "saturation" => v.push(("phy.standard".into(), s.into())),
            "overhead" => {
                return refuse(
                    "--phy",
                    "its PHY follows each rate of params.rates (1-11: 802.11b, 6-54: 802.11g)",
                )
            }
            "congestion" => return refuse("--phy", "it runs 802.11n; set params.mcs"),
            "configs" => {
                return refuse(
                    "--phy",
                    "its PHY follows params.rate (1-11: 802.11b, 6-54 or auto: 802.11g)",
                )
            }
            "multihop" => return refuse("--phy", "its chain runs 802.11b; set params.rate"),
            "discosec" | "attacks" => return refuse("--phy", "it runs 802.11g; set params.rate"),
            _ => return refuse("--phy", "it has no wireless medium"),
        }
    }
    if let Some(r) = a.rate {
        match exp {
            "saturation" => v.push(("phy.rate".into(), format!("{r:?}"))),
            "overhead" => v.push(("params.rates".into(), format!("[{r:?}]"))),
            "discosec" | "attacks" | "multihop" | "configs" => {
                v.push(("params.rate".into(), format!("{r:?}")))
            }
            "congestion" => return refuse("--rate", "its rate is an HT MCS: params.mcs"),
            _ => return refuse("--rate", "its link speed is params.link_mbps"),
        }
    }
    if let Some(s) = a.seconds {
        match exp {
            "saturation" | "discosec" => v.push(("params.seconds".into(), format!("{s:?}"))),
            "attacks" => {
                return refuse(
                    "--seconds",
                    "its phases are params.warmup, params.attack, params.tail",
                )
            }
            "overhead" | "congestion" | "configs" => {
                return refuse("--seconds", "it runs transfers of params.bytes")
            }
            "multihop" => {
                return refuse(
                    "--seconds",
                    "its runs last params.warmup and params.timeout",
                )
            }
            _ => return refuse("--seconds", "it runs params.packets exchanges"),
        }
    }
    if a.standard_mac {
        if exp != "saturation" {
            return refuse(
                "--standard-mac",
                "only saturation configures the MAC's retry limits and IFS",
            );
        }
        v.push(("params.model_assumptions".into(), "false".into()));
    }
    Ok(())
}

fn overrides(a: &RunArgs, exp: &str) -> Result<Vec<(String, String)>, Failure> {
    let mut v = Vec::new();
    if let Some(t) = a.trials {
        v.push(("trials".into(), t.to_string()));
    }
    if let Some(s) = a.seed {
        v.push(("seed".into(), s.to_string()));
    }
    if a.quick {
        v.push(("quick".into(), "true".into()));
    }
    if a.live {
        v.push(("live".into(), "true".into()));
    }
    shorthands(a, exp, &mut v)?;
    for s in &a.set {
        let (k, val) = s
            .split_once('=')
            .ok_or_else(|| Failure::Usage(format!("--set {s}: give KEY=VALUE")))?;
        v.push((set_key(k), val.trim().to_string()));
    }
    Ok(v)
}

/// The scenario path a `--set` key names: a dotted path or a top-level
/// field as it is, any other word an experiment parameter (`params.KEY`).
pub fn set_key(k: &str) -> String {
    let k = k.trim();
    if k.contains('.') || TOP_LEVEL.contains(&k) {
        k.to_string()
    } else {
        format!("params.{k}")
    }
}

/// The crypto cost model of `--calibration`: `nominal`, `measure` or a
/// file written by `wisec lab calibrate`.
pub fn calibration(spec: &str) -> Result<Calibration, Failure> {
    match spec {
        "nominal" => Ok(Calibration::nominal()),
        "measure" => Ok(Calibration::measure(300)),
        file => {
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("reading the calibration {file}"))?;
            let c: Calibration =
                serde_json::from_str(&text).map_err(|e| Failure::Usage(format!("{file}: {e}")))?;
            c.validate()
                .map_err(|e| Failure::Usage(format!("{file}: {e}")))?;
            Ok(c)
        }
    }
}

/// A failure to write the output directory given by `--out`.
fn out_error(e: output::OutputError) -> Failure {
    Failure::Runtime(anyhow!("--out: {e}"))
}

/// Before a run writes into `dir`: a directory with entries is refused
/// unless `force`, so that the results of two runs never mix; with
/// `force`, what an earlier run wrote there goes first.
fn prepare_out(dir: &Path, force: bool) -> Result<(), Failure> {
    if !force {
        let n = output::dir_entries(dir).map_err(out_error)?.len();
        if n > 0 {
            return Err(Failure::Usage(format!(
                "--out {}: the directory is not empty ({n} entries); give --force to \
replace the results of an earlier run there, or name a new directory",
                dir.display()
            )));
        }
        return Ok(());
    }
    output::clear_previous(dir).map_err(out_error)?;
    Ok(())
}

/// The flag the first Ctrl-C (or SIGTERM, SIGHUP) sets; a second one ends
/// the process (after removing what live runs created).
pub fn interrupt_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = Arc::clone(&flag);
        let _ = ctrlc::set_handler(move || {
            if f.swap(true, Ordering::SeqCst) {
                eprintln!("\nwisec: interrupted again; stopping now");
                // A live run's namespaces and processes go before the
                // process does.
                #[cfg(target_os = "linux")]
                wisec_lab::live::net::emergency_cleanup();
                // And the bare machine's QEMU guests.
                wisec_lab::bare::qemu::kill_all();
                std::process::exit(130);
            }
            eprintln!(
                "\nwisec: interrupted; finishing the current trial (a live one stops at once) and \
writing the report, removing what a live run created (Ctrl-C again to stop at once)"
            );
        });
        flag
    })
    .clone()
}

fn run_scenario(a: RunArgs) -> Result<(), Failure> {
    let base = load(&a.name)?;
    if a.bare.is_some() && base.experiment.get_ref() != "ccm-udp" {
        return Err(Failure::Usage(format!(
            "--bare: only the ccm-udp experiment has a bare machine, not {}",
            base.experiment.get_ref()
        )));
    }
    let sc = base
        .with_overrides(&overrides(&a, base.experiment.get_ref())?)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let exp = sc
        .create_experiment()
        .map_err(|e| Failure::Usage(e.to_string()))?;
    if sc.live || experiment::live_only(exp.name()) {
        // Before anything is created or measured.
        #[cfg(target_os = "linux")]
        {
            use wisec_lab::live::sys;
            sys::require_privileges().map_err(|e| Failure::Runtime(anyhow!("{e}")))?;
            sys::require_programs(&exp.live_programs())
                .map_err(|e| Failure::Runtime(anyhow!("{e}")))?;
        }
    }
    // After the checks above, so that a run refused for want of privileges
    // or programs leaves an earlier run's results alone even with --force.
    if let Some(dir) = &a.out {
        prepare_out(dir, a.force)?;
    }
    let cal = calibration(&a.calibration)?;
    let capture = match a.pcap {
        Some(PcapArg::First) => CaptureMode::First,
        Some(PcapArg::All) => CaptureMode::All,
        Some(PcapArg::None) => CaptureMode::None,
        None => sc.output.pcap,
    };
    let settings = RunSettings {
        out: a.out.clone(),
        calibration: &cal,
        capture,
        plots: !a.no_plots && sc.output.plots.unwrap_or(true),
        scenario_toml: Some(sc.to_toml()),
        scenario_name: sc.name.clone(),
        interrupt: Some(interrupt_flag()),
        progress: if a.quiet {
            ProgressMode::Quiet
        } else {
            ProgressMode::Auto
        },
    };
    let outcome = output::run(exp.as_ref(), &settings).map_err(|e| anyhow!("{e}"))?;
    if a.json {
        let v = serde_json::json!({
            "experiment": exp.name(),
            "scenario": sc.name,
            "status": outcome.status,
            "trials": outcome.results,
            "report": outcome.report,
            "speed": outcome.speed,
        });
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&v).context("encoding the results")?
        );
    } else {
        crate::outln!("{}: {}", exp.name(), sc.name);
        crate::out!("{}", output::text_tables(&outcome.report));
        if let Some(line) = output::speed_summary(&outcome.speed) {
            crate::outln!("{line}");
        }
        if let Some(dir) = &a.out {
            crate::outln!("report: {}", dir.join("report.md").display());
        }
    }
    if a.bare.is_some() && outcome.status == Status::Complete {
        crate::bare::run_for_lab(a.quick, &a.set, a.out.as_deref(), a.quiet, interrupt_flag())?;
    }
    match outcome.status {
        Status::Complete => Ok(()),
        Status::Interrupted => {
            eprintln!(
                "wisec: interrupted after {} of {} trials; the completed trials are in the output",
                outcome.results.len(),
                outcome.planned
            );
            // A live experiment removes its namespaces and programs when
            // dropped; exit does not run destructors.
            drop(exp);
            std::process::exit(130);
        }
        Status::Failed => Err(Failure::Runtime(anyhow!(
            "trial {} failed: {}",
            outcome.results.len(),
            outcome.error.map_or_else(String::new, |e| e.0)
        ))),
    }
}
