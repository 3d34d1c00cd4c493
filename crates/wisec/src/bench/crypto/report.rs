//! The report of `wisec bench crypto`: rows, ratios to the peers, the
//! seed 002 table, the noise of the run; as JSON and as text tables.

use super::clock::Clock;
use super::stats::{median, Summary};
use super::{Op, ReportInputs};
use serde::Serialize;
use std::fmt::Write as _;

/// Identifies the JSON layout.
pub const SCHEMA: &str = "wisec-bench-crypto/2";

/// One measurement: a suite or peer, an operation, a frame size.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The `--suites` name (`ccmp128`, `ccmp128-batch`, `openssl`, ...).
    pub id: String,
    /// The suite whose framing is measured (`CCMP-128`, `BIP-GMAC-256`).
    pub suite: &'static str,
    /// Display name.
    pub name: String,
    /// `wisec` or the peer's name.
    pub implementation: &'static str,
    /// `protect` or `unprotect`.
    pub op: &'static str,
    /// Frame body in octets.
    pub size: usize,
    /// `ok`, `error` (a check failed), `missing` (a peer not installed),
    /// `unsupported` (the suite cannot carry this size) or `unavailable`
    /// (a code path this CPU lacks).
    pub status: &'static str,
    /// Why the status is not `ok`.
    pub reason: Option<String>,
    /// Frames processed per call.
    pub frames_per_call: usize,
    /// Calls per sample.
    pub calls_per_sample: u64,
    /// Nanoseconds per frame over the samples of every run.
    pub ns_per_frame: Option<Summary>,
    /// The median nanoseconds per frame of each run (`--repeat`).
    pub run_medians: Vec<f64>,
    /// Body octets per nanosecond at the median.
    pub gb_per_s: Option<f64>,
    /// Clock cycles per body octet at the median (see `clock`).
    pub cycles_per_byte: Option<f64>,
    /// Interquartile range of the samples relative to the median.
    pub iqr_rel: Option<f64>,
    /// (max - min) of the samples relative to the median.
    pub range_rel: Option<f64>,
}

impl Row {
    /// Computes throughput, cycles/byte and noise from `ns_per_frame`.
    pub(crate) fn fill_derived(&mut self, ghz: Option<f64>) {
        if let Some(s) = self.ns_per_frame {
            if s.median > 0.0 {
                self.gb_per_s = Some(self.size as f64 / s.median);
                self.cycles_per_byte = ghz.map(|g| s.median * g / self.size as f64);
            }
            self.iqr_rel = Some(s.iqr_rel());
            self.range_rel = Some(s.range_rel());
        }
    }

    fn median(&self) -> Option<f64> {
        self.ns_per_frame.map(|s| s.median)
    }
}

/// How busy the machine was during one run: the 1-minute load average
/// before and after it (`/proc/loadavg`; the benchmark itself adds about
/// 1).
#[derive(Debug, Clone, Serialize)]
pub struct RunLoad {
    /// Run number, from 1.
    pub run: usize,
    /// Load average when the run started.
    pub load_before: Option<f64>,
    /// Load average when it ended.
    pub load_after: Option<f64>,
}

/// A peer: what it is, and whether its output was checked.
#[derive(Debug, Clone, Serialize)]
pub struct PeerOut {
    /// The peer's row id (`openssl`, `ipsec-mb-gcm128`, `openssl-rc4`, ...).
    pub name: &'static str,
    /// The library peer behind it (`wisec_peers`).
    pub library: &'static str,
    /// What its output was checked against before it was timed.
    pub checked_against: &'static str,
    /// `available` or `missing`.
    pub status: &'static str,
    /// Library and version.
    pub version: Option<String>,
    /// Code path or other detail.
    pub detail: Option<String>,
    /// Why it is missing.
    pub reason: Option<String>,
    /// Whether it was measured in this run (selected by `--suites`).
    pub measured: bool,
    /// True when it produced exactly wisec's output (ciphertext and MIC,
    /// and opened wisec's frames; for RC4 the encrypted body and ICV) at
    /// every size measured, false when it did not at some size; absent
    /// when it was not measured.
    pub verified_identical: Option<bool>,
}

/// Peer time over wisec time for one size and operation: above 1, wisec
/// is faster.
#[derive(Debug, Clone, Serialize)]
pub struct Ratio {
    /// `protect` or `unprotect`.
    pub op: &'static str,
    /// Frame body in octets.
    pub size: usize,
    /// The wisec measurement (`ccmp128`, `ccmp128-batch`, `gcmp128`, ...).
    pub wisec: String,
    /// The peer.
    pub peer: String,
    /// Peer median time / wisec median time: the median over the runs
    /// (one run: that run's ratio).
    pub speedup: f64,
    /// The smallest ratio of a run.
    pub min: f64,
    /// The largest ratio of a run.
    pub max: f64,
    /// The ratio of each run.
    pub runs: Vec<f64>,
}

/// Unprotect time over protect time of one measurement at one size.
#[derive(Debug, Clone, Serialize)]
pub struct OpBalance {
    /// The measurement (`ccmp128`, `ccmp128-batch`, ...).
    pub id: String,
    /// Frame body in octets.
    pub size: usize,
    /// Unprotect median time / protect median time.
    pub unprotect_over_protect: f64,
}

/// Time and throughput of one implementation at one size.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Point {
    /// Median nanoseconds per frame.
    pub ns: f64,
    /// Body octets per nanosecond.
    pub gb_per_s: f64,
}

/// Seed 002's experiment: CCMP-128 encryption of 1 to 4 blocks.
#[derive(Debug, Clone, Serialize)]
pub struct Seed002Row {
    /// 16-octet blocks of body.
    pub blocks: usize,
    /// Body octets.
    pub bytes: usize,
    /// Standard single-frame CCMP-128 (`Ccmp128`, its fastest path).
    pub standard: Option<Point>,
    /// Standard CCMP-128 on the generic CCM, one AES block call at a time
    /// as the interleaved variant computes its MIC.
    pub generic: Option<Point>,
    /// The 2-way interleaved CBC-MAC of seed 002 (non-standard MIC).
    pub icbc: Option<Point>,
    /// The multi-frame engine (standard MIC).
    pub batch: Option<Point>,
    /// 1 - icbc time / standard time.
    pub icbc_saving: Option<f64>,
    /// 1 - icbc time / generic time.
    pub icbc_saving_vs_generic: Option<f64>,
    /// 1 - batch time / standard time.
    pub batch_saving: Option<f64>,
}

/// How noisy the run was, over every `ok` row.
#[derive(Debug, Clone, Serialize)]
pub struct Noise {
    /// Rows summarised.
    pub rows: usize,
    /// Median of the rows' IQR/median.
    pub median_iqr_rel: Option<f64>,
    /// Largest IQR/median.
    pub max_iqr_rel: Option<f64>,
    /// Median of the rows' (max - min)/median.
    pub median_range_rel: Option<f64>,
    /// Largest (max - min)/median.
    pub max_range_rel: Option<f64>,
}

/// The machine the run was on.
#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    /// CPU model name.
    pub cpu: Option<String>,
    /// Logical CPUs the process may use.
    pub logical_cpus: usize,
    /// AES-related CPU features present.
    pub cpu_features: Vec<String>,
    /// The batch engine's code path on this CPU.
    pub batch_path: &'static str,
}

/// Settings of the run.
#[derive(Debug, Clone, Serialize)]
pub struct ConfigOut {
    /// Frame body sizes.
    pub sizes: Vec<usize>,
    /// Operations.
    pub ops: Vec<&'static str>,
    /// Samples per measurement.
    pub samples: usize,
    /// Milliseconds per sample.
    pub sample_ms: f64,
    /// Frames per call.
    pub frames_per_call: usize,
    /// `--quick`.
    pub quick: bool,
    /// Runs (`--repeat`).
    pub repeat: usize,
    /// `release` or `debug`: debug numbers mean nothing.
    pub build: &'static str,
    /// What "size" means.
    pub size_is: &'static str,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The schema name and version of this report.
    pub schema: &'static str,
    /// wisec's version.
    pub wisec_version: &'static str,
    /// The machine.
    pub machine: Machine,
    /// The clock behind cycles/byte.
    pub clock: Clock,
    /// The settings.
    pub config: ConfigOut,
    /// The peers, measured or not, available or missing.
    pub peers: Vec<PeerOut>,
    /// Every measurement.
    pub results: Vec<Row>,
    /// Peer time / wisec time.
    pub ratios: Vec<Ratio>,
    /// Unprotect time / protect time of wisec's CCMP.
    pub unprotect_vs_protect: Vec<OpBalance>,
    /// Seed 002's table.
    pub seed002: Vec<Seed002Row>,
    /// The spread of the samples.
    pub noise: Noise,
    /// The load of the machine around each run.
    pub load: Vec<RunLoad>,
    /// Wall time of the run in seconds.
    pub elapsed_s: f64,
}

/// The ratios the report computes: a wisec measurement and a peer that
/// does the same work (for RC4, the cipher part of the suite's work).
pub const PAIRS: [(&str, &str); 16] = [
    ("ccmp128", "openssl"),
    ("ccmp128", "ipsec-mb"),
    ("ccmp128", "rustcrypto-ccm"),
    ("ccmp128-batch", "openssl"),
    ("ccmp128-batch", "ipsec-mb"),
    ("ccmp128-batch", "rustcrypto-ccm"),
    ("ccmp128-batch-avx2", "ipsec-mb-avx2"),
    ("gcmp128", "openssl-gcm128"),
    ("gcmp128", "ipsec-mb-gcm128"),
    ("gcmp128-avx2", "ipsec-mb-gcm128-avx2"),
    ("gcmp256", "openssl-gcm256"),
    ("gcmp256", "ipsec-mb-gcm256"),
    ("wep104", "openssl-rc4"),
    ("wep104", "openssl-rc4-stream"),
    ("tkip", "openssl-rc4"),
    ("tkip", "openssl-rc4-stream"),
];
const BALANCE: [&str; 4] = ["ccmp128", "ccmp128-batch", "ccmp256", "ccmp256-batch"];

impl Report {
    /// Assembles the report from the rows of a run.
    pub(crate) fn new(i: ReportInputs<'_>, results: Vec<Row>) -> Report {
        let find = |id: &str, op: &str, size: usize| {
            results
                .iter()
                .find(|r| r.id == id && r.op == op && r.size == size && r.status == "ok")
                .and_then(Row::median)
        };
        let row = |id: &str, op: &str, size: usize| {
            results
                .iter()
                .find(|r| r.id == id && r.op == op && r.size == size && r.status == "ok")
        };
        let mut ratios = Vec::new();
        for &op in i.ops {
            for &size in i.sizes {
                for (w, p) in PAIRS {
                    let (Some(wr), Some(pr)) = (row(w, op.name(), size), row(p, op.name(), size))
                    else {
                        continue;
                    };
                    let runs: Vec<f64> = wr
                        .run_medians
                        .iter()
                        .zip(&pr.run_medians)
                        .map(|(wt, pt)| pt / wt)
                        .collect();
                    let Some(spread) = Summary::of(&runs) else {
                        continue;
                    };
                    ratios.push(Ratio {
                        op: op.name(),
                        size,
                        wisec: w.to_string(),
                        peer: p.to_string(),
                        speedup: spread.median,
                        min: spread.min,
                        max: spread.max,
                        runs,
                    });
                }
            }
        }
        let mut unprotect_vs_protect = Vec::new();
        for id in BALANCE {
            for &size in i.sizes {
                if let (Some(p), Some(u)) = (find(id, "protect", size), find(id, "unprotect", size))
                {
                    unprotect_vs_protect.push(OpBalance {
                        id: id.to_string(),
                        size,
                        unprotect_over_protect: u / p,
                    });
                }
            }
        }
        let point = |id: &str, size: usize| {
            find(id, "protect", size).map(|ns| Point {
                ns,
                gb_per_s: size as f64 / ns,
            })
        };
        let seed002 = [16, 32, 48, 64]
            .into_iter()
            .filter(|s| i.sizes.contains(s) && i.ops.contains(&Op::Protect))
            .map(|size| {
                let standard = point("ccmp128", size);
                let generic = point("ccmp128-generic", size);
                let icbc = point("icbc", size);
                let batch = point("ccmp128-batch", size);
                let saving = |x: Option<Point>, base: Option<Point>| {
                    Some(1.0 - x?.ns / base?.ns).filter(|v| v.is_finite())
                };
                Seed002Row {
                    blocks: size / 16,
                    bytes: size,
                    standard,
                    generic,
                    icbc,
                    batch,
                    icbc_saving: saving(icbc, standard),
                    icbc_saving_vs_generic: saving(icbc, generic),
                    batch_saving: saving(batch, standard),
                }
            })
            .collect();
        let iqr: Vec<f64> = results.iter().filter_map(|r| r.iqr_rel).collect();
        let range: Vec<f64> = results.iter().filter_map(|r| r.range_rel).collect();
        let max = |v: &[f64]| v.iter().copied().reduce(f64::max);
        let noise = Noise {
            rows: iqr.len(),
            median_iqr_rel: median(&iqr),
            max_iqr_rel: max(&iqr),
            median_range_rel: median(&range),
            max_range_rel: max(&range),
        };
        let libs = wisec_peers::availability();
        let peers = super::peer_specs()
            .map(|spec| {
                let name = spec.id;
                let a = libs
                    .iter()
                    .find(|(n, _)| *n == spec.library)
                    .map(|(_, a)| a.clone())
                    .unwrap_or(wisec_peers::Availability::Missing {
                        reason: format!("no peer {} in this build", spec.library),
                    });
                let rows: Vec<&Row> = results.iter().filter(|r| r.id == name).collect();
                let measured = !rows.is_empty();
                let verified_identical = if rows.iter().any(|r| r.status == "error") {
                    Some(false)
                } else if measured && rows.iter().all(|r| r.status == "ok") {
                    Some(true)
                } else {
                    None
                };
                match a {
                    wisec_peers::Availability::Available { version, detail } => PeerOut {
                        name,
                        library: spec.library,
                        checked_against: spec.checked_against,
                        status: "available",
                        version: Some(version),
                        detail: Some(detail),
                        reason: None,
                        measured,
                        verified_identical,
                    },
                    wisec_peers::Availability::Missing { reason } => PeerOut {
                        name,
                        library: spec.library,
                        checked_against: spec.checked_against,
                        status: "missing",
                        version: None,
                        detail: None,
                        reason: Some(reason),
                        measured,
                        verified_identical: None,
                    },
                }
            })
            .collect();
        Report {
            schema: SCHEMA,
            wisec_version: env!("CARGO_PKG_VERSION"),
            machine: Machine {
                cpu: super::clock::cpu_model(),
                logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
                cpu_features: super::clock::aes_features(),
                batch_path: wisec_crypto::batch::Path::best().name(),
            },
            clock: i.clock,
            config: ConfigOut {
                sizes: i.sizes.to_vec(),
                ops: i.ops.iter().map(|o| o.name()).collect(),
                samples: i.samples,
                sample_ms: i.sample_time.as_secs_f64() * 1000.0,
                frames_per_call: i.frames,
                quick: i.quick,
                repeat: i.repeat,
                build: if cfg!(debug_assertions) {
                    "debug"
                } else {
                    "release"
                },
                size_is: "frame body octets (the 24-octet MAC header is not counted)",
            },
            peers,
            results,
            ratios,
            unprotect_vs_protect,
            seed002,
            noise,
            load: i.loads,
            elapsed_s: i.elapsed.as_secs_f64(),
        }
    }
}

/// Formats a number to about three significant digits in `w` columns.
fn num(x: Option<f64>, w: usize) -> String {
    let s = match x {
        None => "-".to_string(),
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) if v >= 10.0 => format!("{v:.1}"),
        Some(v) if v >= 1.0 => format!("{v:.2}"),
        Some(v) => format!("{v:.3}"),
    };
    format!("{s:>w$}")
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |v| format!("{:.0}%", v * 100.0))
}

/// The report as text tables.
pub fn render(r: &Report) -> String {
    let mut o = String::new();
    let c = &r.config;
    let _ = writeln!(
        o,
        "wisec bench crypto: {} ({} logical CPUs; {}), {} build",
        r.machine.cpu.as_deref().unwrap_or("unknown CPU"),
        r.machine.logical_cpus,
        r.machine.cpu_features.join(" "),
        c.build
    );
    let _ = writeln!(
        o,
        "median of {} samples of {:.3} ms, {} frames per call; size = {}; GB/s = body octets/ns",
        c.samples, c.sample_ms, c.frames_per_call, c.size_is
    );
    let _ = writeln!(
        o,
        "cycles: {}{}",
        r.clock.method,
        r.clock
            .ghz
            .map_or(String::new(), |g| format!(", {g:.3} GHz"))
    );
    if c.build == "debug" {
        let _ = writeln!(
            o,
            "NOTE: debug build; build with --release for real numbers"
        );
    }
    let _ = writeln!(o);

    // Rows in the order of the run, one per (id, op).
    let mut keys: Vec<(&str, &str, &str)> = Vec::new();
    for row in &r.results {
        let k = (row.id.as_str(), row.name.as_str(), row.op);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let w = 7;
    let name_w = keys.iter().map(|k| k.1.len()).max().unwrap_or(10).max(10);
    let header = |o: &mut String, title: &str| {
        let _ = write!(o, "{title:<name_w$}");
        for s in &c.sizes {
            let _ = write!(o, "{s:>w$}");
        }
        let _ = writeln!(o);
    };
    let cell = |id: &str, op: &str, size: usize, f: &dyn Fn(&Row) -> Option<f64>| {
        let row = r
            .results
            .iter()
            .find(|x| x.id == id && x.op == op && x.size == size);
        match row {
            Some(x) if x.status == "ok" => num(f(x), w),
            Some(x) => format!("{:>w$}", abbreviate(x.status)),
            None => format!("{:>w$}", ""),
        }
    };
    type Metric = (&'static str, fn(&Row) -> Option<f64>);
    let metrics: [Metric; 3] = [
        ("ns/frame", |x| x.median()),
        ("GB/s", |x| x.gb_per_s),
        ("cycles/byte", |x| x.cycles_per_byte),
    ];
    for op in &c.ops {
        for (metric, f) in metrics {
            if metric == "cycles/byte" && r.clock.ghz.is_none() {
                continue;
            }
            header(&mut o, &format!("{metric}, {op}"));
            for (id, name, kop) in keys.iter().filter(|k| k.2 == *op) {
                let _ = write!(o, "{name:<name_w$}");
                for &s in &c.sizes {
                    o.push_str(&cell(id, kop, s, &f));
                }
                let _ = writeln!(o);
            }
            let _ = writeln!(o);
        }
    }
    if !r.ratios.is_empty() {
        let pair_w = PAIRS
            .iter()
            .map(|(a, b)| a.len() + b.len() + 4)
            .max()
            .unwrap_or(10)
            .max(name_w);
        let ratio_of = |op: &str, s: usize, wid: &str, p: &str| {
            r.ratios
                .iter()
                .find(|x| x.op == op && x.size == s && x.wisec == wid && x.peer == p)
        };
        let title = if c.repeat > 1 {
            format!(
                "peer time / wisec time (above 1: wisec is faster), median of {} runs",
                c.repeat
            )
        } else {
            "peer time / wisec time (above 1: wisec is faster)".to_string()
        };
        let _ = writeln!(o, "{title}");
        for op in &c.ops {
            let _ = write!(o, "{op:<pair_w$}");
            for s in &c.sizes {
                let _ = write!(o, "{s:>w$}");
            }
            let _ = writeln!(o);
            for (wid, p) in PAIRS {
                let cells: Vec<Option<f64>> = c
                    .sizes
                    .iter()
                    .map(|&s| ratio_of(op, s, wid, p).map(|x| x.speedup))
                    .collect();
                if cells.iter().all(Option::is_none) {
                    continue;
                }
                let _ = write!(o, "{:<pair_w$}", format!("{wid} vs {p}"));
                for x in cells {
                    o.push_str(&num(x, w));
                }
                let _ = writeln!(o);
            }
            let _ = writeln!(o);
        }
        if c.repeat > 1 {
            let sw = 12;
            let _ = writeln!(
                o,
                "spread of the ratio over {} runs: min-max (median above)",
                c.repeat
            );
            for op in &c.ops {
                let _ = write!(o, "{op:<pair_w$}");
                for s in &c.sizes {
                    let _ = write!(o, "{s:>sw$}");
                }
                let _ = writeln!(o);
                for (wid, p) in PAIRS {
                    let cells: Vec<Option<(f64, f64)>> = c
                        .sizes
                        .iter()
                        .map(|&s| ratio_of(op, s, wid, p).map(|x| (x.min, x.max)))
                        .collect();
                    if cells.iter().all(Option::is_none) {
                        continue;
                    }
                    let _ = write!(o, "{:<pair_w$}", format!("{wid} vs {p}"));
                    for x in cells {
                        let cell = x.map_or("-".to_string(), |(lo, hi)| {
                            format!("{}-{}", num(Some(lo), 0), num(Some(hi), 0))
                        });
                        let _ = write!(o, "{cell:>sw$}");
                    }
                    let _ = writeln!(o);
                }
                let _ = writeln!(o);
            }
        }
    }
    if !r.unprotect_vs_protect.is_empty() {
        header(&mut o, "unprotect time / protect time");
        for id in BALANCE {
            let cells: Vec<Option<f64>> = c
                .sizes
                .iter()
                .map(|&s| {
                    r.unprotect_vs_protect
                        .iter()
                        .find(|x| x.id == id && x.size == s)
                        .map(|x| x.unprotect_over_protect)
                })
                .collect();
            if cells.iter().all(Option::is_none) {
                continue;
            }
            let _ = write!(o, "{id:<name_w$}");
            for x in cells {
                o.push_str(&num(x, w));
            }
            let _ = writeln!(o);
        }
        let _ = writeln!(o);
    }
    if !r.seed002.is_empty() {
        let _ = writeln!(
            o,
            "seed 002: CCMP-128 encryption, ns/frame and GB/s; \"saved\" = time saved against \
             the standard (std) or the generic CCM (gen)"
        );
        let _ = writeln!(
            o,
            "{:>6} {:>5} | {:>14} | {:>14} | {:>28} | {:>21}",
            "blocks",
            "bytes",
            "standard",
            "generic CCM",
            "2-way ICBC (NOT 802.11)",
            "multi-frame batch"
        );
        let _ = writeln!(
            o,
            "{:>6} {:>5} | {:>7}{:>7} | {:>7}{:>7} | {:>7}{:>7}{:>7}{:>7} | {:>7}{:>7}{:>7}",
            "", "", "ns", "GB/s", "ns", "GB/s", "ns", "GB/s", "-std", "-gen", "ns", "GB/s", "-std"
        );
        let pt = |x: Option<Point>| {
            format!(
                "{}{}",
                num(x.map(|p| p.ns), 7),
                num(x.map(|p| p.gb_per_s), 7)
            )
        };
        for s in &r.seed002 {
            let _ = writeln!(
                o,
                "{:>6} {:>5} | {} | {} | {}{:>7}{:>7} | {}{:>7}",
                s.blocks,
                s.bytes,
                pt(s.standard),
                pt(s.generic),
                pt(s.icbc),
                pct(s.icbc_saving),
                pct(s.icbc_saving_vs_generic),
                pt(s.batch),
                pct(s.batch_saving)
            );
        }
        let _ = writeln!(o);
    }
    let _ = writeln!(o, "peers:");
    for p in &r.peers {
        let state = match (p.status, p.measured, p.verified_identical) {
            ("missing", _, _) => format!(
                "MISSING: {}",
                p.reason.as_deref().unwrap_or("not available")
            ),
            (_, false, _) => "available, not selected".to_string(),
            (_, _, Some(true)) => format!("output identical to {}", p.checked_against),
            (_, _, Some(false)) => format!("DIFFERS from {}: not timed", p.checked_against),
            _ => "measured".to_string(),
        };
        let _ = writeln!(
            o,
            "  {:<20} {} [{}{}]",
            p.name,
            state,
            p.version.as_deref().unwrap_or("-"),
            p.detail
                .as_deref()
                .map_or(String::new(), |d| format!("; {d}"))
        );
    }
    let n = &r.noise;
    let _ = writeln!(
        o,
        "noise over {} measurements: IQR/median median {} (max {}), (max-min)/median median {} (max {})",
        n.rows,
        pct(n.median_iqr_rel),
        pct(n.max_iqr_rel),
        pct(n.median_range_rel),
        pct(n.max_range_rel)
    );
    let notes: Vec<&Row> = r.results.iter().filter(|x| x.status != "ok").collect();
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for x in notes {
        let reason = x.reason.as_deref().unwrap_or("");
        if !seen.contains(&(x.id.as_str(), reason)) {
            seen.push((x.id.as_str(), reason));
            let _ = writeln!(
                o,
                "  {} {} at {} octets: {}",
                x.id, x.status, x.size, reason
            );
        }
    }
    let loads: Vec<String> = r
        .load
        .iter()
        .map(|l| {
            let f = |x: Option<f64>| x.map_or("?".to_string(), |v| format!("{v:.2}"));
            format!("{} -> {}", f(l.load_before), f(l.load_after))
        })
        .collect();
    if !loads.is_empty() {
        let _ = writeln!(
            o,
            "load average (1 min) around each run: {} on {} logical CPUs",
            loads.join(", "),
            r.machine.logical_cpus
        );
    }
    let _ = writeln!(o, "run took {:.2} s", r.elapsed_s);
    o
}

fn abbreviate(status: &str) -> &'static str {
    match status {
        "missing" => "missing",
        "unsupported" => "n/a",
        "unavailable" => "n/a",
        _ => "ERROR",
    }
}
