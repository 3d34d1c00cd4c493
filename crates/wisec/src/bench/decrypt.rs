//! `wisec bench decrypt`: decrypts one large `wisec synth` capture (CCMP-128,
//! WPA2-PSK, keys derived from the passphrase in the capture's handshakes)
//! with wisec, airdecap-ng and tshark in the same run, and reports frames
//! per second and the ratios. A program, never a timed test; build with
//! `--release`. The peers are required: the benchmark fails without them.
//!
//! Every decrypter runs the same way: a program started as a subprocess
//! on the capture file and timed from start to exit (wisec is this very
//! binary's `wisec decrypt`). The runs go round-robin (wisec, airdecap-ng,
//! tshark, then again), so a change in the machine's load falls on all of
//! them; the report gives the median and the fastest and slowest run of
//! each, and the ratios of the runs of one round.

use crate::synth::{self, SynthConfig};
use anyhow::{bail, Context, Result};
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const PASSPHRASE: &str = "wisec bench passphrase";
const SSID: &str = "wisec-bench";
/// The largest capture the benchmark writes (about 15 GB and two copies).
const MAX_FRAMES: u64 = 100_000_000;

/// Options of `wisec bench decrypt`.
#[derive(Debug, Args)]
pub struct DecryptBenchArgs {
    /// Protected unicast data frames in the capture, 1 to 100000000
    /// (default 1000000; --quick 20000)
    #[arg(long, value_name = "N",
          value_parser = |s: &str| crate::cli::num::int(s, 1usize, MAX_FRAMES as usize))]
    frames: Option<usize>,
    /// Stations sharing the frames, 1 to 65535
    #[arg(long, value_name = "N", default_value_t = 8,
          value_parser = |s: &str| crate::cli::num::int(s, 1usize, 65_535))]
    stations: usize,
    /// Runs of each decrypter, 1 to 100, taken round-robin; the median and
    /// the fastest and slowest run are reported (default 3; --quick 1)
    #[arg(long, value_name = "N", value_parser = |s: &str| crate::cli::num::int(s, 1usize, 100))]
    runs: Option<usize>,
    /// A smoke test: a small capture and one run
    #[arg(long)]
    quick: bool,
    /// Keep the capture and the outputs in DIR
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
    #[command(flatten)]
    out: crate::tabular::TableFormat,
}

/// The columns of `--csv`: the fields of the JSON's results.
pub const CSV_COLUMNS: [&str; 11] = [
    "name",
    "seconds",
    "seconds_min",
    "seconds_max",
    "frames_per_s",
    "decrypted",
    "expected",
    "wisec_speedup",
    "wisec_speedup_min",
    "wisec_speedup_max",
    "does",
];

/// One decrypter's figures.
#[derive(Debug, Clone, Serialize)]
pub struct Measured {
    /// Name.
    pub name: String,
    /// What the program does besides decrypting, so the figures are read
    /// for what they are.
    pub does: &'static str,
    /// Median wall time of a run in seconds.
    pub seconds: f64,
    /// Fastest and slowest run in seconds.
    pub seconds_min: f64,
    pub seconds_max: f64,
    /// Frames of the capture per second (median run).
    pub frames_per_s: f64,
    /// Frames it decrypted.
    pub decrypted: u64,
    /// Frames it should decrypt with the keys it can have.
    pub expected: u64,
    /// wisec's frames/s divided by this one's (medians).
    pub wisec_speedup: f64,
    /// The lowest and highest of the per-round ratios (this run's time
    /// over wisec's run of the same round).
    pub wisec_speedup_min: f64,
    pub wisec_speedup_max: f64,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct DecryptBenchReport {
    /// Frames in the capture.
    pub frames: u64,
    /// Protected frames in the capture.
    pub protected: u64,
    /// Of them, protected unicast data frames (the ones under pairwise
    /// keys, which is all airdecap-ng can decrypt).
    pub unicast_data: u64,
    /// Capture size in bytes.
    pub bytes: u64,
    /// Runs per decrypter.
    pub runs: usize,
    /// The 1-minute load average before and after the runs: above the
    /// machine's core count, other work shared the cores.
    pub load_before: Option<f64>,
    pub load_after: Option<f64>,
    /// wisec first, then the peers.
    pub results: Vec<Measured>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn min_max(v: &[f64]) -> (f64, f64) {
    v.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        })
}

/// `wisec decrypt` of this binary, as a user runs it.
fn wisec_run(exe: &Path, input: &Path, out: &Path) -> Result<u64> {
    let o = Command::new(exe)
        .arg("decrypt")
        .arg(input)
        .arg(out)
        .args([
            "--passphrase",
            PASSPHRASE,
            "--ssid",
            SSID,
            "--force",
            "--json",
        ])
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    if !o.status.success() {
        bail!(
            "wisec decrypt failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).context("wisec decrypt printed no JSON summary")?;
    v["decrypted"]
        .as_u64()
        .context("wisec decrypt's summary has no count of decrypted frames")
}

fn airdecap_run(input: &Path, out: &Path) -> Result<u64> {
    let o = Command::new("airdecap-ng")
        .args(["-e", SSID, "-p", PASSPHRASE, "-o"])
        .arg(out)
        .arg(input)
        .output()
        .context("airdecap-ng is required (apt-get install aircrack-ng)")?;
    if !o.status.success() {
        bail!("airdecap-ng failed: {}", String::from_utf8_lossy(&o.stderr));
    }
    let text = String::from_utf8_lossy(&o.stdout);
    let n = text
        .lines()
        .find(|l| l.contains("Number of decrypted WPA  packets"))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|n| n.parse().ok())
        .context("airdecap-ng printed no count of decrypted packets")?;
    Ok(n)
}

fn tshark_run(input: &Path) -> Result<u64> {
    let key = format!("uat:80211_keys:\"wpa-pwd\",\"{PASSPHRASE}:{SSID}\"");
    let mut child = Command::new("tshark")
        .arg("-r")
        .arg(input)
        .args(["-o", "wlan.enable_decryption:TRUE", "-o", &key])
        // A display filter on a layer only decryption reveals makes
        // tshark dissect (and so decrypt) every frame.
        .args([
            "-Y",
            "wlan.fc.protected == 1 && llc",
            "-T",
            "fields",
            "-e",
            "frame.number",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("tshark is required (apt-get install tshark)")?;
    let mut count = 0u64;
    if let Some(out) = child.stdout.take() {
        use std::io::BufRead;
        for line in std::io::BufReader::new(out).lines() {
            line?;
            count += 1;
        }
    }
    if !child.wait()?.success() {
        bail!("tshark failed");
    }
    Ok(count)
}

/// Runs the benchmark.
pub fn run(a: DecryptBenchArgs) -> Result<DecryptBenchReport> {
    if cfg!(debug_assertions) {
        eprintln!("wisec: bench: this is a debug build; build with --release for figures");
    }
    let frames = a.frames.unwrap_or(if a.quick { 20_000 } else { 1_000_000 });
    let runs = a.runs.unwrap_or(if a.quick { 1 } else { 3 });
    if a.stations == 0 {
        bail!("--stations: at least 1");
    }
    if frames == 0 || frames as u64 > MAX_FRAMES {
        bail!("--frames: 1 to {MAX_FRAMES}");
    }
    // Removed when the run ends, also on SIGINT or SIGTERM.
    let tmp = crate::outfile::PendingDir::new()?;
    let dir = match &a.keep {
        Some(d) => {
            std::fs::create_dir_all(d)?;
            d.clone()
        }
        None => tmp.path().to_path_buf(),
    };
    let input = dir.join("bench-ccmp.pcap");
    let mut cfg = SynthConfig::new(PASSPHRASE, SSID);
    cfg.stations = a.stations;
    cfg.frames = frames.div_ceil(a.stations);
    // The capture and two decrypted copies of it.
    let need = synth::estimated_bytes(&cfg).saturating_mul(3);
    crate::outfile::check_space(&dir, need, "the benchmark")?;
    eprintln!(
        "wisec: bench: writing {} with {frames} CCMP frames",
        input.display()
    );
    let summary = synth::write_capture(&cfg, &input, true)?;
    let bytes = std::fs::metadata(&input)?.len();

    let exe = std::env::current_exe().context("cannot find the wisec binary")?;
    let wout = dir.join("wisec-dec.pcap");
    let aout = dir.join("airdecap-dec.pcap");
    let load_before = super::crypto::load_average();
    // Seconds of each run, per decrypter; the count of the last run.
    let mut secs: [Vec<f64>; 3] = Default::default();
    let mut counts = [0u64; 3];
    for round in 1..=runs {
        eprintln!("wisec: bench: round {round} of {runs}: wisec decrypt, airdecap-ng, tshark");
        for (i, s) in secs.iter_mut().enumerate() {
            let t = Instant::now();
            counts[i] = match i {
                0 => wisec_run(&exe, &input, &wout)?,
                1 => airdecap_run(&input, &aout)?,
                _ => tshark_run(&input)?,
            };
            s.push(t.elapsed().as_secs_f64());
        }
    }
    let load_after = super::crypto::load_average();
    // What each should decrypt: every protected frame with the keys the
    // handshakes give; airdecap-ng keeps no group keys, so only the
    // unicast data frames.
    let expected = [summary.protected, summary.data, summary.protected];
    let names = [
        "wisec decrypt",
        "airdecap-ng",
        "tshark -o wlan.enable_decryption:TRUE",
    ];
    for i in 0..3 {
        if counts[i] != expected[i] {
            bail!(
                "{} decrypted {} frames where {} should be",
                names[i],
                counts[i],
                expected[i]
            );
        }
    }
    let does = [
        "verifies every MIC and replay counter, writes every frame (decrypted or not) as pcap",
        "no group keys: decrypts unicast frames only; writes the decrypted ones as Ethernet",
        "dissects every layer of every frame; prints one field per decrypted frame, writes no capture",
    ];
    let n = summary.frames as f64;
    let wmed = median(secs[0].clone());
    let results = (0..3)
        .map(|i| {
            let med = median(secs[i].clone());
            let (lo, hi) = min_max(&secs[i]);
            let ratios: Vec<f64> = secs[i].iter().zip(&secs[0]).map(|(p, w)| p / w).collect();
            let (rlo, rhi) = min_max(&ratios);
            Measured {
                name: names[i].to_string(),
                does: does[i],
                seconds: med,
                seconds_min: lo,
                seconds_max: hi,
                frames_per_s: n / med,
                decrypted: counts[i],
                expected: expected[i],
                wisec_speedup: med / wmed,
                wisec_speedup_min: rlo,
                wisec_speedup_max: rhi,
            }
        })
        .collect();
    Ok(DecryptBenchReport {
        frames: summary.frames,
        protected: summary.protected,
        unicast_data: summary.data,
        bytes,
        runs,
        load_before,
        load_after,
        results,
    })
}

/// Prints a report.
pub fn print(
    r: &DecryptBenchReport,
    out: crate::tabular::TableFormat,
) -> Result<(), crate::error::Failure> {
    if let Some(done) = crate::tabular::print(out, r, &CSV_COLUMNS, &r.results) {
        return done;
    }
    let load = |l: Option<f64>| l.map_or("?".to_string(), |l| format!("{l:.2}"));
    crate::outln!(
        "capture: {} frames ({} protected, {} of them unicast data; CCMP-128), {:.1} MB; \
         median of {} run(s), each decrypter a subprocess timed start to exit; \
         load average {} before, {} after",
        r.frames,
        r.protected,
        r.unicast_data,
        r.bytes as f64 / 1e6,
        r.runs,
        load(r.load_before),
        load(r.load_after)
    );
    crate::outln!(
        "{:<40} {:>9} {:>17} {:>12} {:>10} {:>20}",
        "decrypter",
        "seconds",
        "(min-max)",
        "frames/s",
        "decrypted",
        "wisec speedup"
    );
    for m in &r.results {
        crate::outln!(
            "{:<40} {:>9.3} {:>17} {:>12.0} {:>10} {:>7.1}x ({:.1}-{:.1}x)",
            m.name,
            m.seconds,
            format!("({:.3}-{:.3})", m.seconds_min, m.seconds_max),
            m.frames_per_s,
            m.decrypted,
            m.wisec_speedup,
            m.wisec_speedup_min,
            m.wisec_speedup_max
        );
    }
    for m in &r.results {
        crate::outln!("  {}: {}", m.name, m.does);
    }
    Ok(())
}

impl DecryptBenchArgs {
    /// How the report goes out.
    pub fn format(&self) -> crate::tabular::TableFormat {
        self.out
    }
}
