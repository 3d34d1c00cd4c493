//! `wisec bench crypto` times every cipher suite of `wisec-crypto` on
//! frames of the seeds' sizes and, in the same run and on the same frames,
//! the CCM peers of `wisec-peers` (OpenSSL, Intel ipsec-mb, RustCrypto
//! `ccm`), after checking that each produces wisec's CCMP-128 bytes. It
//! reports the median of repeated samples with their spread, the ratios to
//! the peers and the seed 002 table (1 to 4 blocks: standard CCMP vs the
//! 2-way interleaved MIC vs the multi-frame engine).
//!
//! What each side pays, so the ratios compare like with like:
//!
//! - The peers seal and open out of place from inputs that never change,
//!   with nonce and AAD built once before timing. wisec's single-frame
//!   suites are called the same way (out of place), but build nonce and
//!   AAD from the MAC header and check the header in every call.
//! - The batch engine works in place, so every call must start again from
//!   the plaintext (protect) or the received frames (unprotect). That
//!   copy is the benchmark's doing, not work a transmitter repeats, and
//!   runs untimed before each call (`Job::prep`); the timed call still
//!   does the header checks, the CCMP header, the 8-octet body move,
//!   nonce and AAD, and the MIC, which the peers are spared.

mod clock;
mod report;
pub(crate) use clock::cpu_model;
mod stats;
pub(crate) mod workload;

pub use clock::Clock;
pub use report::{render, PeerOut, Ratio, Report, Row, RunLoad, Seed002Row};
pub use stats::Summary;
pub use workload::Op;

use crate::error::Failure;
use clap::Args;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};
use wisec_crypto::batch::Path;
use wisec_crypto::gcm::Gcm;
use wisec_crypto::suite::Suite;
use workload::Job;

pub(crate) const CRYPTO_HELP: &str = "\
Names for --suites: wep40 wep104 tkip ccmp128 ccmp256 gcmp128 gcmp256
  ccmp128-batch ccmp256-batch ccmp128-generic bip-cmac128 bip-cmac256 bip-gmac128 bip-gmac256
  aes-cmac icbc openssl ipsec-mb rustcrypto-ccm, and the groups all, peers.
  With --all-paths also ccmp128-batch-<path> for every batch code path the
  CPU runs (portable, aesni, avx2, avx512).

Frame size is the frame body in octets (the 24-octet MAC header is not
counted); GB/s is body octets per nanosecond. Build with --release.

Examples:
  cargo run --release -p wisec -- bench crypto
  wisec bench crypto --quick --json
  wisec bench crypto --suites ccmp128,ccmp128-batch,peers --sizes 64,1500 --json out.json";

/// Options of `wisec bench crypto`.
#[derive(Debug, Args)]
pub struct CryptoArgs {
    /// Suites and peers to measure, comma-separated (default: all)
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    suites: Vec<String>,
    /// Frame body sizes in octets, comma-separated
    /// (default: 16,32,48,64,50,250,500,750,1000,1500,2304)
    #[arg(long, value_name = "N,...", value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Operations, comma-separated: protect, unprotect (default: both)
    #[arg(long, value_name = "OPS", value_delimiter = ',')]
    ops: Vec<String>,
    /// Time of one sample, with its unit, at most 60s (default 15ms;
    /// --quick 1ms). A bare number, once milliseconds, is refused.
    #[arg(long, value_name = "DURATION",
          value_parser = |s: &str| crate::cli::num::duration(s, false, std::time::Duration::from_secs(60))
              .map(|d| d.as_secs_f64() * 1e3))]
    duration: Option<f64>,
    /// Samples per measurement; the median is reported (default 7; --quick 3)
    #[arg(long, value_name = "N")]
    samples: Option<usize>,
    /// Frames per call: the batch handed to the multi-frame engine and to
    /// ipsec-mb's job manager; single-frame code loops over it (default 64;
    /// --quick 8)
    #[arg(long, value_name = "N")]
    frames: Option<usize>,
    /// Also measure every code path of the batch engine and of GCM that
    /// this CPU runs (paths it lacks are never listed)
    #[arg(long)]
    all_paths: bool,
    /// Repeat the whole measurement N times and report, for every ratio to
    /// a peer, the minimum, median and maximum over the runs (default 1)
    #[arg(long, value_name = "N")]
    repeat: Option<usize>,
    /// A run of seconds, for smoke tests: 3 samples of 1 ms, 8 frames per call
    #[arg(long)]
    quick: bool,
    /// Write the report as JSON to FILE, or to standard output (the table
    /// then goes to standard error) when FILE is left out or is -
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    json: Option<PathBuf>,
    /// Write the results table as CSV (RFC 4180; columns named as the
    /// JSON's results fields, ns_per_frame.median and so on) to FILE, or
    /// to standard output (the table then goes to standard error) when
    /// FILE is left out or is -
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    csv: Option<PathBuf>,
}

/// The columns of `--csv`: the fields of the JSON's results.
pub const CSV_COLUMNS: [&str; 16] = [
    "id",
    "suite",
    "name",
    "implementation",
    "op",
    "size",
    "status",
    "reason",
    "frames_per_call",
    "calls_per_sample",
    "ns_per_frame",
    "run_medians",
    "gb_per_s",
    "cycles_per_byte",
    "iqr_rel",
    "range_rel",
];

/// The frame sizes of the seeds: 16/32/48/64 (seed 002),
/// 50/250/500/750/1000 (seed 000), 1500 and 2304.
pub const DEFAULT_SIZES: [usize; 11] = [16, 32, 48, 64, 50, 250, 500, 750, 1000, 1500, 2304];

/// Longest frame body a benchmark frame may have.
const MAX_SIZE: usize = 2304;

/// What a measured thing is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Data(Suite),
    /// A GCMP suite on a chosen GCM code path.
    DataPath(Suite, Path),
    Generic,
    Icbc,
    Bip(Suite),
    Cmac,
    Batch(Suite, Path),
    /// Entry `i` of [`PEER_SPECS`].
    Peer(usize),
}

/// What a peer implements, and with which key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PeerKind {
    /// AES-CCM with CCMP-128 framing.
    Ccm,
    /// AES-GCM with GCMP framing and a key of this many octets.
    Gcm(usize),
    /// RC4 re-keyed per frame with WEP-104's IV || key, over body || ICV.
    Rc4,
    /// RC4 keyed once: the keystream alone, over body || ICV.
    Rc4Stream,
}

/// A peer as `wisec bench crypto` measures it.
#[derive(Debug)]
pub(crate) struct PeerSpec {
    /// The `--suites` name and report id.
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// The framing it is measured on.
    pub suite: &'static str,
    /// The `wisec_peers` name behind it.
    pub library: &'static str,
    /// What it computes.
    pub kind: PeerKind,
    /// What its equality check compared it with.
    pub checked_against: &'static str,
}

/// Every peer, in table order.
pub(crate) const PEER_SPECS: [PeerSpec; 10] = [
    PeerSpec {
        id: "openssl",
        name: "OpenSSL EVP AES-128-CCM",
        suite: "CCMP-128",
        library: "openssl",
        kind: PeerKind::Ccm,
        checked_against: "wisec's CCMP-128",
    },
    PeerSpec {
        id: "ipsec-mb",
        name: "Intel ipsec-mb AES-128-CCM",
        suite: "CCMP-128",
        library: wisec_peers::ipsec_mb::NAME,
        kind: PeerKind::Ccm,
        checked_against: "wisec's CCMP-128",
    },
    PeerSpec {
        id: "ipsec-mb-avx2",
        name: "Intel ipsec-mb AES-128-CCM (AVX2 build)",
        suite: "CCMP-128",
        library: wisec_peers::ipsec_mb::NAME_AVX2,
        kind: PeerKind::Ccm,
        checked_against: "wisec's CCMP-128",
    },
    PeerSpec {
        id: "rustcrypto-ccm",
        name: "RustCrypto ccm AES-128-CCM",
        suite: "CCMP-128",
        library: wisec_peers::rustcrypto::NAME,
        kind: PeerKind::Ccm,
        checked_against: "wisec's CCMP-128",
    },
    PeerSpec {
        id: "openssl-gcm128",
        name: "OpenSSL EVP AES-128-GCM",
        suite: "GCMP-128",
        library: "openssl-gcm",
        kind: PeerKind::Gcm(16),
        checked_against: "wisec's GCMP-128",
    },
    PeerSpec {
        id: "ipsec-mb-gcm128",
        name: "Intel ipsec-mb AES-128-GCM",
        suite: "GCMP-128",
        library: wisec_peers::ipsec_mb::GCM_NAME,
        kind: PeerKind::Gcm(16),
        checked_against: "wisec's GCMP-128",
    },
    PeerSpec {
        id: "ipsec-mb-gcm128-avx2",
        name: "Intel ipsec-mb AES-128-GCM (AVX2 build)",
        suite: "GCMP-128",
        library: wisec_peers::ipsec_mb::GCM_NAME_AVX2,
        kind: PeerKind::Gcm(16),
        checked_against: "wisec's GCMP-128",
    },
    PeerSpec {
        id: "openssl-gcm256",
        name: "OpenSSL EVP AES-256-GCM",
        suite: "GCMP-256",
        library: "openssl-gcm",
        kind: PeerKind::Gcm(32),
        checked_against: "wisec's GCMP-256",
    },
    PeerSpec {
        id: "ipsec-mb-gcm256",
        name: "Intel ipsec-mb AES-256-GCM",
        suite: "GCMP-256",
        library: wisec_peers::ipsec_mb::GCM_NAME,
        kind: PeerKind::Gcm(32),
        checked_against: "wisec's GCMP-256",
    },
    PeerSpec {
        id: "openssl-rc4",
        name: "OpenSSL RC4 (key per frame, as WEP-104)",
        suite: "WEP-104",
        library: "openssl-rc4",
        kind: PeerKind::Rc4,
        checked_against: "the RC4 of wisec's WEP-104",
    },
];

/// The keystream-only RC4 row (not a separate library peer): OpenSSL's
/// RC4 keyed once, over the same octets.
pub(crate) const RC4_STREAM: PeerSpec = PeerSpec {
    id: "openssl-rc4-stream",
    name: "OpenSSL RC4 keystream (one key)",
    suite: "WEP-104",
    library: "openssl-rc4",
    kind: PeerKind::Rc4Stream,
    checked_against: "wisec's RC4 keystream",
};

/// Every peer row: [`PEER_SPECS`] and the keystream-only RC4.
pub(crate) fn peer_specs() -> impl Iterator<Item = &'static PeerSpec> {
    PEER_SPECS.iter().chain(std::iter::once(&RC4_STREAM))
}

/// A thing `--suites` can name.
#[derive(Debug, Clone)]
struct Target {
    id: String,
    suite: &'static str,
    name: String,
    implementation: &'static str,
    kind: Kind,
}

fn targets(all_paths: bool) -> Vec<Target> {
    let t = |id: &str, suite, name: &str, implementation, kind| Target {
        id: id.to_string(),
        suite,
        name: name.to_string(),
        implementation,
        kind,
    };
    let best = Path::best();
    let gcm_best = Gcm::best_path();
    let mut v = Vec::new();
    for s in [Suite::Wep40, Suite::Wep104, Suite::Tkip] {
        v.push(t(
            s.name(),
            s.standard_name(),
            s.standard_name(),
            "wisec",
            Kind::Data(s),
        ));
    }
    v.push(t(
        "ccmp128",
        "CCMP-128",
        "CCMP-128",
        "wisec",
        Kind::Data(Suite::Ccmp128),
    ));
    v.push(t(
        "ccmp128-batch",
        "CCMP-128",
        &format!("CCMP-128 batch ({})", best.name()),
        "wisec",
        Kind::Batch(Suite::Ccmp128, best),
    ));
    // The AVX2 path, measured beside ipsec-mb's AVX2 build: what a CPU
    // without AVX-512 gets.
    v.push(t(
        "ccmp128-batch-avx2",
        "CCMP-128",
        "CCMP-128 batch (avx2)",
        "wisec",
        Kind::Batch(Suite::Ccmp128, Path::Avx2),
    ));
    if all_paths {
        for p in Path::ALL.into_iter().filter(|p| p.is_available()) {
            v.push(t(
                &format!("ccmp128-batch-{}-path", p.name()),
                "CCMP-128",
                &format!("CCMP-128 batch ({}, --all-paths)", p.name()),
                "wisec",
                Kind::Batch(Suite::Ccmp128, p),
            ));
        }
    }
    v.push(t(
        "ccmp128-generic",
        "CCMP-128",
        "CCMP-128 generic CCM (block at a time)",
        "wisec",
        Kind::Generic,
    ));
    v.push(t(
        "icbc",
        "CCMP-128",
        "ICBC-CCMP-128 (seed 002, NOT 802.11)",
        "wisec",
        Kind::Icbc,
    ));
    v.push(t(
        "ccmp256",
        "CCMP-256",
        "CCMP-256",
        "wisec",
        Kind::Data(Suite::Ccmp256),
    ));
    v.push(t(
        "ccmp256-batch",
        "CCMP-256",
        &format!("CCMP-256 batch ({})", best.name()),
        "wisec",
        Kind::Batch(Suite::Ccmp256, best),
    ));
    for s in [Suite::Gcmp128, Suite::Gcmp256] {
        v.push(t(
            s.name(),
            s.standard_name(),
            &format!("{} ({})", s.standard_name(), gcm_best.name()),
            "wisec",
            Kind::Data(s),
        ));
        v.push(t(
            &format!("{}-avx2", s.name()),
            s.standard_name(),
            &format!("{} (avx2)", s.standard_name()),
            "wisec",
            Kind::DataPath(s, Path::Avx2),
        ));
        if all_paths {
            for p in Path::ALL.into_iter().filter(|p| Gcm::path_available(*p)) {
                v.push(t(
                    &format!("{}-{}-path", s.name(), p.name()),
                    s.standard_name(),
                    &format!("{} ({}, --all-paths)", s.standard_name(), p.name()),
                    "wisec",
                    Kind::DataPath(s, p),
                ));
            }
        }
    }
    for s in [
        Suite::BipCmac128,
        Suite::BipCmac256,
        Suite::BipGmac128,
        Suite::BipGmac256,
    ] {
        v.push(t(
            s.name(),
            s.standard_name(),
            s.standard_name(),
            "wisec",
            Kind::Bip(s),
        ));
    }
    v.push(t(
        "aes-cmac",
        "AES-128-CMAC",
        "AES-CMAC (DiscoSec)",
        "wisec",
        Kind::Cmac,
    ));
    for (i, p) in PEER_SPECS.iter().enumerate() {
        v.push(t(p.id, p.suite, p.name, p.library, Kind::Peer(i)));
    }
    v.push(t(
        RC4_STREAM.id,
        RC4_STREAM.suite,
        RC4_STREAM.name,
        RC4_STREAM.library,
        Kind::Peer(PEER_SPECS.len()),
    ));
    v
}

/// The peer of a `Kind::Peer` index.
fn peer_spec(i: usize) -> &'static PeerSpec {
    PEER_SPECS.get(i).unwrap_or(&RC4_STREAM)
}

fn select(all: Vec<Target>, names: &[String]) -> Result<Vec<Target>, String> {
    if names.is_empty() {
        return Ok(all);
    }
    let mut want: Vec<String> = Vec::new();
    for n in names {
        let n = n.trim().to_ascii_lowercase();
        match n.as_str() {
            "all" => want.extend(all.iter().map(|t| t.id.clone())),
            "peers" => want.extend(peer_specs().map(|p| p.id.to_string())),
            "ccm-peers" => want.extend(
                peer_specs()
                    .filter(|p| p.kind == PeerKind::Ccm)
                    .map(|p| p.id.to_string()),
            ),
            "gcm-peers" => want.extend(
                peer_specs()
                    .filter(|p| matches!(p.kind, PeerKind::Gcm(_)))
                    .map(|p| p.id.to_string()),
            ),
            "rc4-peers" => want.extend(
                peer_specs()
                    .filter(|p| matches!(p.kind, PeerKind::Rc4 | PeerKind::Rc4Stream))
                    .map(|p| p.id.to_string()),
            ),
            "ccmp" => want.push("ccmp128".to_string()),
            "gcmp" => want.push("gcmp128".to_string()),
            "rustcrypto" => want.push("rustcrypto-ccm".to_string()),
            _ if all.iter().any(|t| t.id == n) => want.push(n),
            _ => {
                let names: Vec<&str> = all.iter().map(|t| t.id.as_str()).collect();
                return Err(format!(
                    "--suites: unknown name '{n}' (known: {}, all, peers, ccm-peers, \
                     gcm-peers, rc4-peers)",
                    names.join(", ")
                ));
            }
        }
    }
    Ok(all.into_iter().filter(|t| want.contains(&t.id)).collect())
}

/// The settings of one run.
#[derive(Debug, Clone)]
struct Config {
    sizes: Vec<usize>,
    ops: Vec<Op>,
    samples: usize,
    sample_time: Duration,
    frames: usize,
    quick: bool,
    repeat: usize,
    targets: Vec<Target>,
}

fn config(a: &CryptoArgs) -> Result<Config, Failure> {
    let usage = |m: String| Failure::Usage(m);
    let dash = |p: &Option<PathBuf>| p.as_ref().is_some_and(|p| p.as_os_str() == "-");
    if dash(&a.json) && dash(&a.csv) {
        return Err(usage(
            "--json and --csv cannot both go to standard output: give one a FILE".into(),
        ));
    }
    let targets = select(targets(a.all_paths), &a.suites).map_err(usage)?;
    let mut sizes = if a.sizes.is_empty() {
        DEFAULT_SIZES.to_vec()
    } else {
        a.sizes.clone()
    };
    if let Some(&s) = sizes.iter().find(|&&s| s == 0 || s > MAX_SIZE) {
        return Err(usage(format!("--sizes: {s} is not within 1..={MAX_SIZE}")));
    }
    sizes.sort_unstable();
    sizes.dedup();
    let mut ops = Vec::new();
    for o in &a.ops {
        match o.trim().to_ascii_lowercase().as_str() {
            "protect" | "encrypt" | "seal" => ops.push(Op::Protect),
            "unprotect" | "decrypt" | "open" | "verify" => ops.push(Op::Unprotect),
            other => {
                return Err(usage(format!(
                    "--ops: unknown operation '{other}' (protect, unprotect)"
                )))
            }
        }
    }
    if ops.is_empty() {
        ops = vec![Op::Protect, Op::Unprotect];
    }
    ops.sort();
    ops.dedup();
    let samples = a.samples.unwrap_or(if a.quick { 3 } else { 7 });
    if samples == 0 || samples > 1000 {
        return Err(usage("--samples: must be within 1..=1000".to_string()));
    }
    let ms = a.duration.unwrap_or(if a.quick { 1.0 } else { 15.0 });
    if !(ms.is_finite() && ms > 0.0 && ms <= 60_000.0) {
        return Err(usage(
            "--duration: must be within (0, 60000] ms".to_string(),
        ));
    }
    let frames = a.frames.unwrap_or(if a.quick { 8 } else { 64 });
    if frames == 0 || frames > 4096 {
        return Err(usage("--frames: must be within 1..=4096".to_string()));
    }
    let repeat = a.repeat.unwrap_or(1);
    if repeat == 0 || repeat > 100 {
        return Err(usage("--repeat: must be within 1..=100".to_string()));
    }
    Ok(Config {
        sizes,
        ops,
        samples,
        sample_time: Duration::from_secs_f64(ms / 1000.0),
        frames,
        quick: a.quick,
        repeat,
        targets,
    })
}

pub(crate) fn crypto(a: CryptoArgs) -> Result<(), Failure> {
    let cfg = config(&a)?;
    let progress = std::io::stderr().is_terminal();
    let report = measure(&cfg, progress);
    let table = render(&report);
    let enc = |e: serde_json::Error| Failure::Runtime(e.into());
    let json = match &a.json {
        Some(p) => Some((
            p,
            serde_json::to_string_pretty(&report).map_err(enc)? + "\n",
        )),
        None => None,
    };
    let csv = match &a.csv {
        Some(p) => Some((
            p,
            crate::tabular::csv(&CSV_COLUMNS, &report.results).map_err(enc)?,
        )),
        None => None,
    };
    let to_stdout = |p: &PathBuf| p.as_os_str() == "-";
    if json.iter().chain(csv.iter()).any(|(p, _)| to_stdout(p)) {
        eprint!("{table}");
    } else {
        crate::out!("{table}");
    }
    for (p, text) in json.into_iter().chain(csv) {
        if to_stdout(p) {
            crate::out!("{text}");
        } else {
            std::fs::write(p, text).map_err(|e| {
                Failure::Runtime(anyhow::anyhow!("cannot write {}: {e}", p.display()))
            })?;
        }
    }
    let failed = report
        .results
        .iter()
        .filter(|r| r.status == "error")
        .count();
    if failed > 0 {
        return Err(Failure::Runtime(anyhow::anyhow!(
            "{failed} measurements failed their checks (status \"error\" in the report)"
        )));
    }
    Ok(())
}

/// One measurement in progress.
struct Slot {
    target: usize,
    op: Op,
    job: Option<Job>,
    calls: u64,
    samples: Vec<f64>,
    status: &'static str,
    reason: Option<String>,
}

/// Time of `n` calls of `job`, or its error. A job with a `prep` step
/// (the in-place batch engine resetting its buffers) is timed call by
/// call with `prep` outside the clock; a call lasts microseconds, so the
/// two clock reads per call cost well under 1%.
fn time_calls(job: &mut Job, n: u64) -> Result<Duration, String> {
    if let Some(prep) = job.prep.as_mut() {
        let mut total = Duration::ZERO;
        for _ in 0..n {
            prep()?;
            let t0 = Instant::now();
            (job.run)()?;
            total += t0.elapsed();
        }
        return Ok(total);
    }
    let t0 = Instant::now();
    for _ in 0..n {
        (job.run)()?;
    }
    Ok(t0.elapsed())
}

/// Calls per sample so that one sample lasts about `sample_time`.
fn calibrate(job: &mut Job, sample_time: Duration) -> Result<u64, String> {
    // Warm up: caches, branch predictors, lazy state.
    time_calls(job, 1)?;
    let mut n = 1u64;
    loop {
        let t = time_calls(job, n)?;
        if t >= sample_time / 8 || n >= 1 << 30 {
            let per_call = t.as_secs_f64() / n as f64;
            let calls = (sample_time.as_secs_f64() / per_call.max(1e-9)).round();
            return Ok((calls as u64).max(1));
        }
        n *= 4;
    }
}

fn jobs_for(
    t: &Target,
    data: &Rc<Vec<Vec<u8>>>,
    mgmt: &Rc<Vec<Vec<u8>>>,
    size: usize,
) -> Result<Vec<Job>, (&'static str, String)> {
    let error = |e: String| ("error", e);
    match t.kind {
        Kind::Data(s) => workload::data_suite(s, data).map_err(error),
        Kind::Generic => workload::ccmp_generic(data).map_err(error),
        Kind::Icbc => workload::icbc(data).map_err(error),
        Kind::Bip(s) => {
            let mme = s.overhead().total();
            if size + mme > wisec_crypto::bip::MAX_BODY_LEN {
                return Err((
                    "unsupported",
                    format!(
                        "body + MME ({} octets) exceeds the {}-octet MMPDU body BIP takes",
                        size + mme,
                        wisec_crypto::bip::MAX_BODY_LEN
                    ),
                ));
            }
            workload::bip(s, mgmt).map_err(error)
        }
        Kind::Cmac => workload::aes_cmac(mgmt).map_err(error),
        Kind::Batch(s, p) => {
            if !p.is_available() {
                return Err((
                    "unavailable",
                    format!("this CPU lacks the {} path", p.name()),
                ));
            }
            workload::ccmp_batch(s, p, data).map_err(error)
        }
        Kind::DataPath(s, p) => {
            if !Gcm::path_available(p) {
                return Err((
                    "unavailable",
                    format!("this CPU lacks the {} GCM path", p.name()),
                ));
            }
            workload::gcmp_path(s, p, data).map_err(error)
        }
        Kind::Peer(i) => {
            let spec = peer_spec(i);
            let name = spec.library;
            // Two keyed instances of the library peer `name` (one seals,
            // one opens), or why it is missing.
            fn pick<T>(all: Vec<(&str, Result<T, String>)>, name: &str) -> Result<T, String> {
                all.into_iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, p)| p)
                    .unwrap_or_else(|| Err(format!("unknown peer {name}")))
            }
            let missing = |r| ("missing", r);
            match spec.kind {
                PeerKind::Ccm => {
                    let key = workload::key(16);
                    let seal = pick(wisec_peers::all_peers(&key), name).map_err(missing)?;
                    let open = pick(wisec_peers::all_peers(&key), name).map_err(missing)?;
                    workload::ccm_peer(seal, open, data).map_err(error)
                }
                PeerKind::Gcm(key_len) => {
                    let key = workload::key(key_len);
                    let seal = pick(wisec_peers::gcm_peers(&key), name).map_err(missing)?;
                    let open = pick(wisec_peers::gcm_peers(&key), name).map_err(missing)?;
                    workload::gcm_peer(seal, open, key_len, data).map_err(error)
                }
                PeerKind::Rc4 | PeerKind::Rc4Stream => {
                    let p = wisec_peers::rc4_peer().map_err(|r| ("missing", r))?;
                    workload::rc4_peer(p, spec.kind == PeerKind::Rc4Stream, data).map_err(error)
                }
            }
        }
    }
}

/// One measurement of one run.
struct RunRow {
    target: usize,
    op: Op,
    size: usize,
    status: &'static str,
    reason: Option<String>,
    calls: u64,
    samples: Vec<f64>,
}

/// One run over every size and target.
fn measure_once(cfg: &Config, progress: bool, run: usize) -> Vec<RunRow> {
    let mut rows = Vec::new();
    for &size in &cfg.sizes {
        if progress {
            if cfg.repeat > 1 {
                eprintln!(
                    "wisec bench crypto: run {}/{}, {size}-octet frames ...",
                    run + 1,
                    cfg.repeat
                );
            } else {
                eprintln!("wisec bench crypto: {size}-octet frames ...");
            }
        }
        let data = Rc::new(
            (0..cfg.frames)
                .map(|i| workload::data_frame(i, size))
                .collect(),
        );
        let mgmt = Rc::new(
            (0..cfg.frames)
                .map(|i| workload::mgmt_frame(i, size))
                .collect(),
        );
        let mut slots: Vec<Slot> = Vec::new();
        for (ti, t) in cfg.targets.iter().enumerate() {
            match jobs_for(t, &data, &mgmt, size) {
                Ok(jobs) => {
                    for job in jobs.into_iter().filter(|j| cfg.ops.contains(&j.op)) {
                        slots.push(Slot {
                            target: ti,
                            op: job.op,
                            job: Some(job),
                            calls: 0,
                            samples: Vec::new(),
                            status: "ok",
                            reason: None,
                        });
                    }
                }
                Err((status, reason)) => {
                    for &op in &cfg.ops {
                        slots.push(Slot {
                            target: ti,
                            op,
                            job: None,
                            calls: 0,
                            samples: Vec::new(),
                            status,
                            reason: Some(reason.clone()),
                        });
                    }
                }
            }
        }
        for s in slots.iter_mut() {
            if let Some(job) = s.job.as_mut() {
                match calibrate(job, cfg.sample_time) {
                    Ok(c) => s.calls = c,
                    Err(e) => {
                        s.status = "error";
                        s.reason = Some(e);
                        s.job = None;
                    }
                }
            }
        }
        // Round robin: every measurement takes its k-th sample before any
        // takes its (k+1)-th, so drift of the machine spreads evenly.
        for _ in 0..cfg.samples {
            for s in slots.iter_mut() {
                let Some(job) = s.job.as_mut() else { continue };
                match time_calls(job, s.calls) {
                    Ok(t) => {
                        let frames = s.calls as f64 * cfg.frames as f64;
                        s.samples.push(t.as_nanos() as f64 / frames);
                    }
                    Err(e) => {
                        s.status = "error";
                        s.reason = Some(e);
                        s.job = None;
                    }
                }
            }
        }
        rows.extend(slots.into_iter().map(|s| RunRow {
            target: s.target,
            op: s.op,
            size,
            status: s.status,
            reason: s.reason,
            calls: s.calls,
            samples: s.samples,
        }));
    }
    rows
}

/// The 1-minute load average of the machine (`/proc/loadavg`), to say how
/// busy it was while measuring.
pub(crate) fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn measure(cfg: &Config, progress: bool) -> Report {
    let started = Instant::now();
    let clock = clock::estimate(Duration::from_millis(if cfg.quick { 5 } else { 100 }));
    let mut runs: Vec<Vec<RunRow>> = Vec::new();
    let mut loads = Vec::new();
    for r in 0..cfg.repeat {
        let before = load_average();
        runs.push(measure_once(cfg, progress, r));
        loads.push(RunLoad {
            run: r + 1,
            load_before: before,
            load_after: load_average(),
        });
    }
    // Rows in the order of the first run; each pools the samples of every
    // run, and keeps each run's median for the ratio spread.
    let mut rows = Vec::new();
    let first = runs.first().map(|r| r.len()).unwrap_or(0);
    for i in 0..first {
        let r0 = &runs[0][i];
        let t = &cfg.targets[r0.target];
        let same = |x: &&RunRow| x.target == r0.target && x.op == r0.op && x.size == r0.size;
        let all: Vec<&RunRow> = runs
            .iter()
            .filter_map(|run| run.iter().find(same))
            .collect();
        let bad = all.iter().find(|x| x.status != "ok");
        let (status, reason) = match bad {
            Some(b) => (b.status, b.reason.clone()),
            None => ("ok", None),
        };
        let pooled: Vec<f64> = all.iter().flat_map(|x| x.samples.iter().copied()).collect();
        let run_medians: Vec<f64> = all
            .iter()
            .filter_map(|x| Summary::of(&x.samples).map(|s| s.median))
            .collect();
        let summary = if status == "ok" {
            Summary::of(&pooled)
        } else {
            None
        };
        let mut row = Row {
            id: t.id.clone(),
            suite: t.suite,
            name: t.name.clone(),
            implementation: t.implementation,
            op: r0.op.name(),
            size: r0.size,
            status,
            reason,
            frames_per_call: cfg.frames,
            calls_per_sample: r0.calls,
            ns_per_frame: summary,
            run_medians: if status == "ok" {
                run_medians
            } else {
                Vec::new()
            },
            gb_per_s: None,
            cycles_per_byte: None,
            iqr_rel: None,
            range_rel: None,
        };
        row.fill_derived(clock.ghz);
        rows.push(row);
    }
    Report::new(
        ReportInputs {
            sizes: &cfg.sizes,
            ops: &cfg.ops,
            samples: cfg.samples,
            sample_time: cfg.sample_time,
            frames: cfg.frames,
            quick: cfg.quick,
            repeat: cfg.repeat,
            loads,
            clock,
            elapsed: started.elapsed(),
        },
        rows,
    )
}

/// What the report needs from the run besides its rows.
pub struct ReportInputs<'a> {
    sizes: &'a [usize],
    ops: &'a [Op],
    samples: usize,
    sample_time: Duration,
    frames: usize,
    quick: bool,
    repeat: usize,
    loads: Vec<RunLoad>,
    clock: Clock,
    elapsed: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn try_args(extra: &[&str]) -> Result<CryptoArgs, clap::Error> {
        use clap::Parser;
        #[derive(Parser)]
        struct T {
            #[command(flatten)]
            a: CryptoArgs,
        }
        let mut v = vec!["t"];
        v.extend_from_slice(extra);
        T::try_parse_from(v).map(|t| t.a)
    }

    fn args(extra: &[&str]) -> CryptoArgs {
        try_args(extra).unwrap()
    }

    #[test]
    fn selection_and_defaults() {
        let c = config(&args(&[])).unwrap();
        assert_eq!(
            c.sizes,
            [16, 32, 48, 50, 64, 250, 500, 750, 1000, 1500, 2304]
        );
        assert_eq!(c.ops, [Op::Protect, Op::Unprotect]);
        assert_eq!((c.samples, c.frames), (7, 64));
        let ids: Vec<&str> = c.targets.iter().map(|t| t.id.as_str()).collect();
        for want in [
            "wep40",
            "wep104",
            "tkip",
            "ccmp128",
            "ccmp128-batch",
            "ccmp128-generic",
            "icbc",
            "ccmp256",
            "ccmp256-batch",
            "gcmp128",
            "gcmp256",
            "bip-cmac128",
            "bip-cmac256",
            "bip-gmac128",
            "bip-gmac256",
            "aes-cmac",
            "openssl",
            "ipsec-mb",
            "rustcrypto-ccm",
            "ccmp128-batch-avx2",
            "gcmp128-avx2",
            "ipsec-mb-avx2",
            "openssl-gcm128",
            "ipsec-mb-gcm256",
            "openssl-rc4",
            "openssl-rc4-stream",
        ] {
            assert!(ids.contains(&want), "{want}");
        }
        // --all-paths rows exist only for the paths this CPU runs.
        let c = config(&args(&["--all-paths"])).unwrap();
        for p in Path::ALL {
            let id = format!("gcmp128-{}-path", p.name());
            assert_eq!(
                c.targets.iter().any(|t| t.id == id),
                Gcm::path_available(p),
                "{id}"
            );
        }
        let c = config(&args(&[
            "--quick",
            "--suites",
            "ccmp,ccm-peers",
            "--sizes",
            "64,16,64",
        ]))
        .unwrap();
        let ids: Vec<&str> = c.targets.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "ccmp128",
                "openssl",
                "ipsec-mb",
                "ipsec-mb-avx2",
                "rustcrypto-ccm"
            ]
        );
        assert_eq!(c.sizes, [16, 64]);
        assert_eq!((c.samples, c.frames), (3, 8));
        let c = config(&args(&["--suites", "gcm-peers,rc4-peers", "--repeat", "5"])).unwrap();
        let ids: Vec<&str> = c.targets.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "openssl-gcm128",
                "ipsec-mb-gcm128",
                "ipsec-mb-gcm128-avx2",
                "openssl-gcm256",
                "ipsec-mb-gcm256",
                "openssl-rc4",
                "openssl-rc4-stream"
            ]
        );
        assert_eq!(c.repeat, 5);
        for bad in [
            &["--suites", "ccmp512"][..],
            &["--sizes", "0"],
            &["--sizes", "2305"],
            &["--ops", "sign"],
            &["--samples", "0"],
            &["--repeat", "0"],
            &["--repeat", "101"],
            &["--duration", "0"],
            &["--duration", "0ms"],
            &["--duration", "15"],
            &["--duration", "61s"],
            &["--duration", "inf"],
            &["--frames", "0"],
        ] {
            // Refused by the command line's parser, or by the checks
            // after it: a usage error either way.
            if let Ok(a) = try_args(bad) {
                assert!(matches!(config(&a), Err(Failure::Usage(_))), "{bad:?}");
            }
        }
        let t = config(&args(&["--duration", "2.5ms"])).unwrap().sample_time;
        assert!((t.as_secs_f64() - 0.0025).abs() < 1e-9, "{t:?}");
    }

    #[test]
    fn json_flag_with_and_without_file() {
        assert_eq!(args(&["--json"]).json, Some(PathBuf::from("-")));
        assert_eq!(
            args(&["--json", "x.json"]).json,
            Some(PathBuf::from("x.json"))
        );
        assert_eq!(args(&[]).json, None);
    }
}
