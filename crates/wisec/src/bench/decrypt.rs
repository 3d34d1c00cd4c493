//! `wisec bench decrypt`: decrypts one large `wisec synth` capture (CCMP-128,
//! WPA2-PSK, keys derived from the passphrase in the capture's handshakes)
//! with wisec, airdecap-ng and tshark in the same run, and reports frames
//! per second and the ratios. A program, never a timed test; build with
//! `--release`. The peers are required: the benchmark fails without them.

use crate::capture::{CaptureReader, CaptureWriter};
use crate::decrypt::keys::StaticKeys;
use crate::decrypt::pipeline::{self, DecryptConfig};
use crate::decrypt::tracked::TrackedKeys;
use crate::synth::{self, SynthConfig};
use anyhow::{bail, Context, Result};
use clap::Args;
use serde::Serialize;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;
use wisec_proto::tracker::Tracker;

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
    /// Runs of each decrypter, 1 to 100; the median is reported (default 3; --quick 1)
    #[arg(long, value_name = "N", value_parser = |s: &str| crate::cli::num::int(s, 1usize, 100))]
    runs: Option<usize>,
    /// A smoke test: a small capture and one run
    #[arg(long)]
    quick: bool,
    /// Keep the capture and the outputs in DIR
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
    /// Print the report as JSON
    #[arg(long)]
    json: bool,
}

/// One decrypter's figures.
#[derive(Debug, Clone, Serialize)]
pub struct Measured {
    /// Name.
    pub name: String,
    /// Median wall time of a run in seconds.
    pub seconds: f64,
    /// Frames of the capture per second.
    pub frames_per_s: f64,
    /// Frames it decrypted.
    pub decrypted: u64,
    /// wisec's frames/s divided by this one's.
    pub wisec_speedup: f64,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct DecryptBenchReport {
    /// Frames in the capture.
    pub frames: u64,
    /// Protected frames in the capture.
    pub protected: u64,
    /// Capture size in bytes.
    pub bytes: u64,
    /// Runs per decrypter.
    pub runs: usize,
    /// wisec first, then the peers.
    pub results: Vec<Measured>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn wisec_run(input: &Path, out: &Path) -> Result<u64> {
    let mut tracker = Tracker::new();
    tracker
        .add_passphrase(PASSPHRASE.as_bytes(), None)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut keys = TrackedKeys::new(StaticKeys::new(), tracker, false);
    let mut r = CaptureReader::open(input)?;
    let w = BufWriter::with_capacity(1 << 20, File::create(out)?);
    let mut w = CaptureWriter::new(w, r.format());
    let s = pipeline::decrypt(
        &mut r,
        &mut w,
        &mut keys,
        DecryptConfig::default(),
        &mut || {},
    )?;
    w.into_inner()?.flush()?;
    Ok(s.decrypted)
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

fn time<T>(runs: usize, mut f: impl FnMut() -> Result<T>) -> Result<(f64, T)> {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let v = f()?;
        times.push(t.elapsed().as_secs_f64());
        last = Some(v);
    }
    let v = last.context("no run")?;
    Ok((median(times), v))
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

    eprintln!("wisec: bench: wisec decrypt");
    let out = dir.join("wisec-dec.pcap");
    let (ws, wd) = time(runs, || wisec_run(&input, &out))?;
    if wd != summary.protected {
        bail!(
            "wisec decrypted {wd} of {} protected frames",
            summary.protected
        );
    }
    eprintln!("wisec: bench: airdecap-ng");
    let out = dir.join("airdecap-dec.pcap");
    let (asecs, ad) = time(runs, || airdecap_run(&input, &out))?;
    eprintln!("wisec: bench: tshark");
    let (ts, td) = time(runs, || tshark_run(&input))?;
    let n = summary.frames as f64;
    let wfps = n / ws;
    let m = |name: &str, s: f64, d: u64| Measured {
        name: name.to_string(),
        seconds: s,
        frames_per_s: n / s,
        decrypted: d,
        wisec_speedup: wfps / (n / s),
    };
    Ok(DecryptBenchReport {
        frames: summary.frames,
        protected: summary.protected,
        bytes,
        runs,
        results: vec![
            m("wisec decrypt", ws, wd),
            m("airdecap-ng", asecs, ad),
            m("tshark -o wlan.enable_decryption:TRUE", ts, td),
        ],
    })
}

/// Prints a report.
pub fn print(r: &DecryptBenchReport, json: bool) {
    if json {
        crate::outln!("{}", serde_json::to_string_pretty(r).unwrap_or_default());
        return;
    }
    crate::outln!(
        "capture: {} frames ({} protected, CCMP-128), {:.1} MB; median of {} run(s)",
        r.frames,
        r.protected,
        r.bytes as f64 / 1e6,
        r.runs
    );
    crate::outln!(
        "{:<40} {:>9} {:>12} {:>10} {:>14}",
        "decrypter",
        "seconds",
        "frames/s",
        "decrypted",
        "wisec speedup"
    );
    for m in &r.results {
        crate::outln!(
            "{:<40} {:>9.3} {:>12.0} {:>10} {:>13.1}x",
            m.name,
            m.seconds,
            m.frames_per_s,
            m.decrypted,
            m.wisec_speedup
        );
    }
}

impl DecryptBenchArgs {
    /// True when the report goes out as JSON.
    pub fn json(&self) -> bool {
        self.json
    }
}
