//! `wisec bench decrypt`: decrypts large `wisec synth` captures with wisec
//! and the peer programs that read them, in the same run, and reports
//! frames per second and the ratios. A program, never a timed test; build
//! with `--release`. The peers are required: the benchmark fails without
//! them.
//!
//! The captures: CCMP-128 (wisec with one thread and with every core,
//! airdecap-ng, tshark), TKIP and WEP-104 (wisec both ways, airdecap-ng)
//! and GCMP-128 (wisec both ways, tshark; airdecap-ng has no GCMP). The
//! WPA captures are decrypted from the passphrase (keys derived from the
//! handshakes in the capture), the WEP one from its key.
//!
//! Every decrypter runs the same way: a program started as a subprocess
//! on the capture file and timed from start to exit (wisec is this very
//! binary's `wisec decrypt`). The runs go round-robin (every decrypter of
//! a capture, then again), so a change in the machine's load falls on
//! all of them; the report gives the median and the fastest and slowest
//! run of each, and the ratios of the runs of one round. Beside the wall
//! time, each run's CPU time (user and system, from `getrusage` of the
//! children waited for) says how much work a decrypter did on however
//! many cores it used.
//!
//! Beside the decrypters, each capture is copied to a new file with `dd
//! conv=fdatasync` in the same rounds, for reference: what it costs here
//! to read the capture and put a copy of it on disk, decrypting nothing.
//! It is not a strict bound: `dd` syncs once at the end, where a tool
//! that sends its output to disk while it works (as `wisec decrypt`
//! does) overlaps the two.

use crate::synth::{self, SynthCipher, SynthConfig};
use anyhow::{bail, Context, Result};
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const PASSPHRASE: &str = "wisec bench passphrase";
const SSID: &str = "wisec-bench";
/// The WEP-104 key of the WEP capture.
const WEP_KEY: &str = "0102030405060708090a0b0c0d";
/// The largest capture the benchmark writes (about 15 GB and two copies).
const MAX_FRAMES: u64 = 100_000_000;
/// The GCMP capture holds this share of `--frames`: tshark, its only
/// peer, decrypts some 20 000 frames a second.
const GCMP_SHARE: usize = 10;

/// The captures `wisec bench decrypt` can time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BenchCapture {
    /// CCMP-128: wisec, airdecap-ng, tshark
    Ccmp,
    /// TKIP: wisec, airdecap-ng
    Tkip,
    /// WEP-104 (a CCMP capture decrypted and encrypted again): wisec,
    /// airdecap-ng
    Wep,
    /// GCMP-128, a tenth of the frames: wisec, tshark
    Gcmp,
}

impl BenchCapture {
    fn name(self) -> &'static str {
        match self {
            BenchCapture::Ccmp => "CCMP-128",
            BenchCapture::Tkip => "TKIP",
            BenchCapture::Wep => "WEP-104",
            BenchCapture::Gcmp => "GCMP-128",
        }
    }
}

/// Options of `wisec bench decrypt`.
#[derive(Debug, Args)]
pub struct DecryptBenchArgs {
    /// Protected unicast data frames in each capture (the GCMP one holds a
    /// tenth), 1 to 100000000 (default 1000000; --quick 20000)
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
    /// The captures to time, comma-separated
    #[arg(long, value_name = "LIST", value_enum, value_delimiter = ',',
          default_values_t = [BenchCapture::Ccmp, BenchCapture::Tkip, BenchCapture::Wep, BenchCapture::Gcmp])]
    captures: Vec<BenchCapture>,
    /// A smoke test: small captures and one run
    #[arg(long)]
    quick: bool,
    /// Write the captures into DIR and keep them there (the outputs of the
    /// runs are written there too, and removed after each capture's runs)
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
    #[command(flatten)]
    out: crate::tabular::TableFormat,
}

/// The columns of `--csv`: the fields of the JSON's results.
pub const CSV_COLUMNS: [&str; 13] = [
    "suite",
    "name",
    "seconds",
    "seconds_min",
    "seconds_max",
    "cpu_seconds",
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
    /// Median CPU time of a run in seconds, user and system, every thread
    /// (`None` when the system did not tell).
    pub cpu_seconds: Option<f64>,
    /// Frames of the capture per second (median run).
    pub frames_per_s: f64,
    /// Frames it decrypted.
    pub decrypted: u64,
    /// Frames it should decrypt with the keys it can have.
    pub expected: u64,
    /// wisec's frames/s (every core) divided by this one's (medians).
    pub wisec_speedup: f64,
    /// The lowest and highest of the per-round ratios (this run's time
    /// over wisec's run of the same round).
    pub wisec_speedup_min: f64,
    pub wisec_speedup_max: f64,
}

/// The figures of one capture.
#[derive(Debug, Clone, Serialize)]
pub struct CaptureReport {
    /// Which capture.
    pub capture: BenchCapture,
    /// Its cipher suite.
    pub suite: &'static str,
    /// Frames in the capture.
    pub frames: u64,
    /// Protected frames in the capture.
    pub protected: u64,
    /// Of them, protected unicast data frames (the ones under pairwise
    /// keys, which is all airdecap-ng can decrypt of a WPA capture).
    pub unicast_data: u64,
    /// Capture size in bytes.
    pub bytes: u64,
    /// wisec with every core first, then wisec with one thread, then the
    /// peers.
    pub results: Vec<Measured>,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct DecryptBenchReport {
    /// Runs per decrypter.
    pub runs: usize,
    /// Cores wisec's default `--threads` uses.
    pub cores: usize,
    /// The 1-minute load average before and after the runs: above the
    /// machine's core count, other work shared the cores.
    pub load_before: Option<f64>,
    pub load_after: Option<f64>,
    /// Per capture.
    pub captures: Vec<CaptureReport>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// CPU seconds, user and system, of the children waited for so far
/// (`getrusage` of `RUSAGE_CHILDREN`).
fn children_cpu_s() -> Option<f64> {
    use nix::sys::resource::{getrusage, UsageWho};
    let u = getrusage(UsageWho::RUSAGE_CHILDREN).ok()?;
    let s = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    Some(s(u.user_time()) + s(u.system_time()))
}

fn min_max(v: &[f64]) -> (f64, f64) {
    v.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        })
}

/// Runs a wisec subcommand of this binary and returns its JSON summary.
fn wisec_json(exe: &Path, args: &[&std::ffi::OsStr]) -> Result<serde_json::Value> {
    let o = Command::new(exe)
        .args(args)
        .arg("--json")
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    if !o.status.success() {
        bail!(
            "wisec {} failed: {}",
            args.first()
                .map(|a| a.to_string_lossy())
                .unwrap_or_default(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    serde_json::from_slice(&o.stdout).context("wisec printed no JSON summary")
}

/// `wisec decrypt` of this binary, as a user runs it.
fn wisec_run(
    exe: &Path,
    input: &Path,
    out: &Path,
    wep: bool,
    threads: Option<usize>,
) -> Result<u64> {
    let mut args: Vec<std::ffi::OsString> =
        vec!["decrypt".into(), input.into(), out.into(), "--force".into()];
    if wep {
        args.extend(["--wep".into(), WEP_KEY.into()]);
    } else {
        args.extend([
            "--passphrase".into(),
            PASSPHRASE.into(),
            "--ssid".into(),
            SSID.into(),
        ]);
    }
    if let Some(t) = threads {
        args.extend(["--threads".into(), t.to_string().into()]);
    }
    let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    wisec_json(exe, &args)?["decrypted"]
        .as_u64()
        .context("wisec decrypt's summary has no count of decrypted frames")
}

fn airdecap_run(input: &Path, out: &Path, wep: bool) -> Result<u64> {
    let mut c = Command::new("airdecap-ng");
    if wep {
        c.args(["-w", WEP_KEY]);
    } else {
        c.args(["-e", SSID, "-p", PASSPHRASE]);
    }
    let o = c
        .arg("-o")
        .arg(out)
        .arg(input)
        .output()
        .context("airdecap-ng is required (apt-get install aircrack-ng)")?;
    if !o.status.success() {
        bail!("airdecap-ng failed: {}", String::from_utf8_lossy(&o.stderr));
    }
    let text = String::from_utf8_lossy(&o.stdout);
    let line = if wep {
        "Number of decrypted WEP  packets"
    } else {
        "Number of decrypted WPA  packets"
    };
    let n = text
        .lines()
        .find(|l| l.contains(line))
        .and_then(|l| l.split_whitespace().last())
        .and_then(|n| n.parse().ok())
        .context("airdecap-ng printed no count of decrypted packets")?;
    Ok(n)
}

/// Copies `input` to the new file `out` with `dd` and syncs it; fails
/// unless every byte arrived. Decrypts nothing: returns 0.
fn copy_run(input: &Path, out: &Path) -> Result<u64> {
    let mut from = std::ffi::OsString::from("if=");
    from.push(input);
    let mut to = std::ffi::OsString::from("of=");
    to.push(out);
    let o = Command::new("dd")
        .arg(from)
        .arg(to)
        .args(["bs=1M", "conv=fdatasync,excl", "status=none"])
        .output()
        .context("cannot run dd (coreutils)")?;
    if !o.status.success() {
        bail!("dd failed: {}", String::from_utf8_lossy(&o.stderr));
    }
    let (a, b) = (
        std::fs::metadata(input)?.len(),
        std::fs::metadata(out)?.len(),
    );
    if a != b {
        bail!("dd copied {b} of the capture's {a} bytes");
    }
    Ok(0)
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

/// Protected data frames (group addressed too with `group`) whose body
/// starts like an LLC header, two equal octets then 3: airdecap-ng takes
/// such a frame for plaintext and leaves it (its "plaintext data
/// packets"), and a TKIP or WEP IV sometimes starts so (a CCMP header
/// never: its third octet is reserved, 0).
fn llc_lookalikes(input: &Path, group: bool) -> Result<u64> {
    use crate::capture::Record;
    let mut r = crate::capture::CaptureReader::open(input)?;
    let mut n = 0u64;
    while let Some(rec) = r.next_record()? {
        let Record::Packet(p) = rec else { continue };
        let Ok(h) = wisec_wire::Header::new_checked(&p.data[..]) else {
            continue;
        };
        let fc = h.frame_control();
        if !fc.is_data() || !fc.protected() || (h.ra().is_group() && !group) {
            continue;
        }
        if let Some([a, b, 3]) = p.data.get(h.header_len()..h.header_len() + 3) {
            n += u64::from(a == b);
        }
    }
    Ok(n)
}

/// The decrypters of the benchmark.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tool {
    /// wisec decrypt, with `--threads` or every core.
    Wisec(Option<usize>),
    Airdecap,
    Tshark,
    /// The capture copied byte for byte and synced, for reference.
    Copy,
}

impl Tool {
    fn name(self) -> String {
        match self {
            Tool::Wisec(None) => "wisec decrypt".into(),
            Tool::Wisec(Some(t)) => format!("wisec decrypt --threads {t}"),
            Tool::Airdecap => "airdecap-ng".into(),
            Tool::Tshark => "tshark -o wlan.enable_decryption:TRUE".into(),
            Tool::Copy => "dd conv=fdatasync (no decrypting)".into(),
        }
    }

    fn does(self, wep: bool) -> &'static str {
        match (self, wep) {
            (Tool::Wisec(None), _) => {
                "verifies every MIC (ICV) and replay counter, writes every frame (decrypted or not) as pcap; unprotects on every core"
            }
            (Tool::Wisec(Some(_)), _) => {
                "the same, with one thread unprotecting (reading, ordering and writing run beside it)"
            }
            (Tool::Airdecap, false) => {
                "no group keys: decrypts unicast frames only, and not those whose IV starts like an LLC header (it takes them for plaintext); writes the decrypted ones as Ethernet"
            }
            (Tool::Airdecap, true) => {
                "checks every ICV, skips frames whose IV starts like an LLC header (it takes them for plaintext); writes the decrypted ones as Ethernet"
            }
            (Tool::Tshark, _) => {
                "dissects every layer of every frame; prints one field per decrypted frame, writes no capture"
            }
            (Tool::Copy, _) => {
                "reads the capture and writes it unchanged to a new file in 1 MiB blocks, then waits for the disk (fdatasync): what a durable copy costs, decrypting nothing"
            }
        }
    }
}

/// A capture written and what each decrypter should decrypt of it.
struct Prepared {
    frames: u64,
    protected: u64,
    unicast_data: u64,
    tools: Vec<(Tool, u64)>,
}

/// Writes the capture `which` to `input`.
fn prepare(
    which: BenchCapture,
    exe: &Path,
    dir: &Path,
    input: &Path,
    frames: usize,
    stations: usize,
) -> Result<Prepared> {
    let mut cfg = SynthConfig::new(PASSPHRASE, SSID);
    cfg.stations = stations;
    let frames = if which == BenchCapture::Gcmp {
        frames.div_ceil(GCMP_SHARE)
    } else {
        frames
    };
    cfg.frames = frames.div_ceil(stations);
    cfg.cipher = match which {
        BenchCapture::Tkip => SynthCipher::Tkip,
        BenchCapture::Gcmp => SynthCipher::Gcmp128,
        BenchCapture::Ccmp | BenchCapture::Wep => SynthCipher::Ccmp128,
    };
    // The capture and two decrypted copies of it.
    let need = synth::estimated_bytes(&cfg).saturating_mul(3);
    crate::outfile::check_space(dir, need, "the benchmark")?;
    eprintln!(
        "wisec: bench: writing {} with {} {} frames",
        input.display(),
        cfg.frames * stations,
        which.name()
    );
    let both = [Tool::Wisec(None), Tool::Wisec(Some(1))];
    if which != BenchCapture::Wep {
        let s = synth::write_capture(&cfg, input, true)?;
        // Every protected frame with the keys the handshakes give;
        // airdecap-ng keeps no group keys, so only the unicast data
        // frames.
        let mut tools: Vec<(Tool, u64)> = both.iter().map(|t| (*t, s.protected)).collect();
        if which != BenchCapture::Gcmp {
            tools.push((Tool::Airdecap, s.data - llc_lookalikes(input, false)?));
        }
        if matches!(which, BenchCapture::Ccmp | BenchCapture::Gcmp) {
            tools.push((Tool::Tshark, s.protected));
        }
        return Ok(Prepared {
            frames: s.frames,
            protected: s.protected,
            unicast_data: s.data,
            tools,
        });
    }
    // WEP: a CCMP session decrypted, then every data frame encrypted with
    // one WEP-104 key (as a WEP network has no handshake, its EAPOL frames
    // are data like the others). The IVs start at 1000: airdecap-ng counts
    // the frames of the lowest IVs as plaintext.
    let ccmp = dir.join("bench-wep-source.pcap");
    let plain = dir.join("bench-wep-plain.pcap");
    let s = synth::write_capture(&cfg, &ccmp, true)?;
    let os = |p: &Path| p.as_os_str().to_owned();
    let r = (|| -> Result<serde_json::Value> {
        wisec_run(exe, &ccmp, &plain, false, None)?;
        let args = [
            "encrypt".into(),
            os(&plain),
            os(input),
            "--suite".into(),
            "wep104".into(),
            "--key".into(),
            WEP_KEY.into(),
            "--pn".into(),
            "1000".into(),
            "--force".into(),
        ];
        let args: Vec<std::ffi::OsString> = args.into_iter().collect();
        let a: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        wisec_json(exe, &a)
    })();
    let _ = std::fs::remove_file(&ccmp);
    let _ = std::fs::remove_file(&plain);
    let enc = r?;
    let protected = enc["data_protected"]
        .as_u64()
        .context("wisec encrypt's summary has no count of protected frames")?;
    // One key for every frame: each decrypter decrypts them all (but
    // airdecap-ng those it takes for plaintext).
    let mut tools: Vec<(Tool, u64)> = both.iter().map(|t| (*t, protected)).collect();
    tools.push((Tool::Airdecap, protected - llc_lookalikes(input, true)?));
    Ok(Prepared {
        frames: s.frames,
        protected,
        unicast_data: s.data,
        tools,
    })
}

/// Times the decrypters of one capture, round-robin.
fn measure(
    which: BenchCapture,
    exe: &Path,
    dir: &Path,
    p: &Prepared,
    input: &Path,
    runs: usize,
) -> Result<Vec<Measured>> {
    let wep = which == BenchCapture::Wep;
    let wout = dir.join("wisec-dec.pcap");
    let aout = dir.join("airdecap-dec.pcap");
    let cout = dir.join("dd-copy.pcap");
    let outputs = [&wout, &aout, &cout];
    let n = p.tools.len();
    // Seconds of each run, per decrypter, wall and CPU (`None` where the
    // system could not tell); the count of the last run.
    let mut secs: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut cpu: Vec<Vec<Option<f64>>> = vec![Vec::new(); n];
    let mut counts = vec![0u64; n];
    for round in 1..=runs {
        eprintln!(
            "wisec: bench: {}: round {round} of {runs}: {}",
            which.name(),
            p.tools
                .iter()
                .map(|(t, _)| t.name())
                .collect::<Vec<_>>()
                .join(", ")
        );
        for (i, (tool, _)) in p.tools.iter().enumerate() {
            // Every decrypter writes a new file: the last run's output is
            // removed before the clock starts, not freed inside the run
            // that replaces it.
            for out in outputs {
                match std::fs::remove_file(out) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(e).with_context(|| format!("cannot remove {}", out.display()))
                    }
                    _ => {}
                }
            }
            let c0 = children_cpu_s();
            let t = Instant::now();
            counts[i] = match *tool {
                Tool::Wisec(threads) => wisec_run(exe, input, &wout, wep, threads)?,
                Tool::Airdecap => airdecap_run(input, &aout, wep)?,
                Tool::Tshark => tshark_run(input)?,
                Tool::Copy => copy_run(input, &cout)?,
            };
            secs[i].push(t.elapsed().as_secs_f64());
            // Each run waits for its program, whose CPU time then counts.
            cpu[i].push(c0.zip(children_cpu_s()).map(|(a, b)| b - a));
        }
    }
    for out in outputs {
        let _ = std::fs::remove_file(out);
    }
    for (i, (tool, want)) in p.tools.iter().enumerate() {
        if counts[i] != *want {
            bail!(
                "{}: {} decrypted {} frames where {want} should be",
                which.name(),
                tool.name(),
                counts[i],
            );
        }
    }
    let frames = p.frames as f64;
    let wmed = median(secs[0].clone());
    Ok(p.tools
        .iter()
        .enumerate()
        .map(|(i, (tool, want))| {
            let med = median(secs[i].clone());
            let (lo, hi) = min_max(&secs[i]);
            let ratios: Vec<f64> = secs[i].iter().zip(&secs[0]).map(|(p, w)| p / w).collect();
            let (rlo, rhi) = min_max(&ratios);
            Measured {
                name: tool.name(),
                does: tool.does(wep),
                seconds: med,
                seconds_min: lo,
                seconds_max: hi,
                cpu_seconds: cpu[i]
                    .iter()
                    .copied()
                    .collect::<Option<Vec<f64>>>()
                    .map(median),
                frames_per_s: frames / med,
                decrypted: counts[i],
                expected: *want,
                wisec_speedup: med / wmed,
                wisec_speedup_min: rlo,
                wisec_speedup_max: rhi,
            }
        })
        .collect())
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
    let mut which: Vec<BenchCapture> = Vec::new();
    for c in &a.captures {
        if !which.contains(c) {
            which.push(*c);
        }
    }
    if which.is_empty() {
        bail!("--captures: name at least one of ccmp, tkip, wep, gcmp");
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
    let exe = std::env::current_exe().context("cannot find the wisec binary")?;
    let load_before = super::crypto::load_average();
    let mut captures = Vec::new();
    for w in which {
        let input = dir.join(format!("bench-{}.pcap", w.name().to_ascii_lowercase()));
        let mut p = prepare(w, &exe, &dir, &input, frames, a.stations)?;
        // Every capture is also copied, decrypting nothing.
        p.tools.push((Tool::Copy, 0));
        let bytes = std::fs::metadata(&input)?.len();
        let results = measure(w, &exe, &dir, &p, &input, runs)?;
        if a.keep.is_none() {
            let _ = std::fs::remove_file(&input);
        }
        captures.push(CaptureReport {
            capture: w,
            suite: w.name(),
            frames: p.frames,
            protected: p.protected,
            unicast_data: p.unicast_data,
            bytes,
            results,
        });
    }
    let load_after = super::crypto::load_average();
    let cores = crate::decrypt::pipeline::DecryptConfig::default().engine_threads();
    Ok(DecryptBenchReport {
        runs,
        cores,
        load_before,
        load_after,
        captures,
    })
}

/// Prints a report.
pub fn print(
    r: &DecryptBenchReport,
    out: crate::tabular::TableFormat,
) -> Result<(), crate::error::Failure> {
    // One CSV row per capture and decrypter, named by the capture's suite.
    let rows: Vec<serde_json::Value> = r
        .captures
        .iter()
        .flat_map(|c| {
            c.results.iter().map(move |m| {
                let mut v = serde_json::to_value(m).unwrap_or_default();
                if let Some(o) = v.as_object_mut() {
                    o.insert("suite".into(), c.suite.into());
                }
                v
            })
        })
        .collect();
    if let Some(done) = crate::tabular::print(out, r, &CSV_COLUMNS, &rows) {
        return done;
    }
    let load = |l: Option<f64>| l.map_or("?".to_string(), |l| format!("{l:.2}"));
    crate::outln!(
        "median of {} run(s), each decrypter a subprocess timed start to exit \
         (into a new output file), CPU s its user and system time on every core; \
         wisec's default --threads is {} here; load average {} before, {} after",
        r.runs,
        r.cores,
        load(r.load_before),
        load(r.load_after)
    );
    for c in &r.captures {
        crate::outln!(
            "\ncapture: {} frames ({} protected, {} of them unicast data; {}), {:.1} MB",
            c.frames,
            c.protected,
            c.unicast_data,
            c.suite,
            c.bytes as f64 / 1e6,
        );
        crate::outln!(
            "{:<40} {:>9} {:>17} {:>9} {:>12} {:>10} {:>20}",
            "decrypter",
            "seconds",
            "(min-max)",
            "CPU s",
            "frames/s",
            "decrypted",
            "wisec speedup"
        );
        for m in &c.results {
            crate::outln!(
                "{:<40} {:>9.3} {:>17} {:>9} {:>12.0} {:>10} {:>7.2}x ({:.2}-{:.2}x)",
                m.name,
                m.seconds,
                format!("({:.3}-{:.3})", m.seconds_min, m.seconds_max),
                m.cpu_seconds.map_or("?".to_string(), |c| format!("{c:.3}")),
                m.frames_per_s,
                m.decrypted,
                m.wisec_speedup,
                m.wisec_speedup_min,
                m.wisec_speedup_max
            );
        }
        for m in &c.results {
            crate::outln!("  {}: {}", m.name, m.does);
        }
    }
    Ok(())
}

impl DecryptBenchArgs {
    /// How the report goes out.
    pub fn format(&self) -> crate::tabular::TableFormat {
        self.out
    }
}
