//! `wisec bench icbc`: seed 002's experiment under its own conditions.
//!
//! The seed times CCMP-128 encryption of 1 to 4 blocks in three parts
//! (Section VI.A): the header work (`construct_mic_iv`,
//! `construct_mic_header1/2`, `construct_ctr_preload`: building `B_0`, the
//! AAD blocks and the counter preload, no AES), the MIC calculation (the
//! CBC-MAC's AES chain) and the counter mode (`encrypt_mpdu`), and compares
//! standard CCMP with its 2-way interleaved CBC-MAC (ICBC), whose two MAC
//! chains can be computed in parallel. This bench times the same three
//! phases with `wisec_crypto::icbc`, whose standard and interleaved MACs
//! share every other line of code, and the whole frame protection of each.
//!
//! The seed ran a software AES (a 598.5 MHz Pentium M, C++). A build of
//! wisec without AES instructions (`scripts/soft-aes`, which passes
//! `--cfg aes_backend="soft"`) times the bit-sliced software AES of the aes
//! crate, which encrypts several independent blocks in one pass: there the
//! two chains cost about what one does, as the seed expected. With AES-NI a
//! block costs a few nanoseconds of latency and the chain is short, so the
//! saving is small. The report says which AES the binary ran.
//!
//! Each figure is the median of `--samples` samples with the spread,
//! timed on the thread's CPU-time clock (`CLOCK_THREAD_CPUTIME_ID`), so that
//! time the thread spends descheduled on a busy machine is not counted;
//! nothing asserts a time.

use super::crypto::workload::{data_frame, key, pn, HEADER_LEN};
use super::discosec::{measure_on, Figure};
use clap::Args;
use serde::Serialize;
use std::hint::black_box;
use std::time::Duration;
use wisec_crypto::icbc::ExperimentalIcbcCcmp128;

/// Options of `wisec bench icbc`.
#[derive(Debug, Args)]
pub struct IcbcArgs {
    /// A few short samples: a smoke test of the report
    #[arg(long)]
    quick: bool,
    /// Samples per figure; the median is reported (default 9; --quick 3)
    #[arg(long, value_name = "N")]
    samples: Option<usize>,
    /// Length of one sample, with its unit, 1ms to 10s (default 20ms;
    /// --quick 2ms)
    #[arg(long, value_name = "DURATION",
          value_parser = |s: &str| crate::cli::num::duration(s, false, Duration::from_secs(10)))]
    sample_time: Option<Duration>,
    /// Body sizes in octets, 1 to 2304 (default 16,32,48,64 — the seed's 1
    /// to 4 blocks — and 256,1500)
    #[arg(long, value_name = "N,...", value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Print the report as JSON
    #[arg(long)]
    json: bool,
}

/// The phases of one variant at one size.
#[derive(Debug, Clone, Serialize)]
pub struct Phases {
    /// Header work: B_0, AAD blocks, counter preload (no AES).
    pub header: Figure,
    /// The MIC's AES chain(s).
    pub mic: Figure,
    /// Counter mode over the body and S_0.
    pub ctr: Figure,
    /// The whole protection of a frame (copying the plaintext into the
    /// buffer, the three phases, the CCMP header, moving the body, the MIC
    /// encryption).
    pub total: Figure,
}

/// One body size.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Body octets.
    pub body: usize,
    /// 16-octet blocks of the body.
    pub blocks: usize,
    /// Standard CCMP-128 (one CBC-MAC chain).
    pub standard: Phases,
    /// The 2-way interleaved CBC-MAC (NOT 802.11).
    pub icbc: Phases,
    /// 1 - ICBC MIC time / standard MIC time (medians).
    pub mic_saving: f64,
    /// 1 - ICBC total / standard total (medians).
    pub total_saving: f64,
    /// Standard: (header + MIC) / total, the seed's "CBC MAC encryption
    /// time" share.
    pub cbc_mac_share: f64,
    /// Standard: header / (header + MIC), the seed's "IV and headers"
    /// share of the CBC-MAC time.
    pub header_share_of_cbc_mac: f64,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// `hardware` (AES instructions) or `software` (bit-sliced AES).
    pub aes: &'static str,
    /// Whether the binary was built with `--cfg aes_backend="soft"`.
    pub software_aes_build: bool,
    /// The CPU, from /proc/cpuinfo.
    pub cpu: Option<String>,
    /// Whether the binary was optimised (debug figures mean little).
    pub optimized: bool,
    /// Samples per figure.
    pub samples: usize,
    /// Sample length in milliseconds.
    pub sample_ms: f64,
    /// Octets of the MAC header (a non-QoS data frame: 22-octet AAD).
    pub header_len: usize,
    /// Per body size.
    pub rows: Vec<Row>,
    /// Standard total at 4 blocks / at 1 block (the seed: 4.407, "an
    /// increase of 340.7%"), when both were measured.
    pub growth_4_over_1: Option<f64>,
    /// What seed 002 reports, for the comparison.
    pub seed: SeedFigures,
}

/// Seed 002's figures (Section VI).
#[derive(Debug, Clone, Serialize)]
pub struct SeedFigures {
    /// "the CBC MAC encryption time takes up to 80% of the total".
    pub cbc_mac_share: f64,
    /// "the IV and headers take up to about 3%" of the CBC-MAC time.
    pub header_share_of_cbc_mac: f64,
    /// "The approximate percentage decrease in time taken is about 30%".
    pub total_saving: f64,
    /// 4 blocks take 340.7% more time than 1 block.
    pub growth_4_over_1: f64,
    /// The seed's machine.
    pub machine: &'static str,
}

const SEED: SeedFigures = SeedFigures {
    cbc_mac_share: 0.80,
    header_share_of_cbc_mac: 0.03,
    total_saving: 0.30,
    growth_4_over_1: 4.407,
    machine: "Pentium M at 598.5 MHz, software AES in C++ (Windows XP)",
};

/// Frames per size, processed round robin (distinct sequence numbers and
/// bodies).
const FRAMES: usize = 16;

/// The calling thread's CPU time.
fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Times `op` on the thread's CPU time: ns per call.
fn measure(samples: usize, sample: Duration, op: impl FnMut()) -> Figure {
    measure_on(thread_cpu, samples, sample, op)
}

fn phases(
    k: &ExperimentalIcbcCcmp128,
    frames: &[Vec<u8>],
    interleaved: bool,
    samples: usize,
    sample: Duration,
) -> anyhow::Result<Phases> {
    let preps = frames
        .iter()
        .enumerate()
        .map(|(i, f)| k.phase_header(f, f.len(), pn(i)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("icbc header: {e}"))?;
    let mut i = 0usize;
    let mut next = || {
        i = (i + 1) % frames.len();
        i
    };
    let header = measure(samples, sample, || {
        let j = next();
        let f = &frames[j];
        black_box(k.phase_header(black_box(f), f.len(), pn(j)).ok());
    });
    let mic = measure(samples, sample, || {
        let j = next();
        let p = &preps[j];
        black_box(k.phase_mic(p, black_box(&frames[j][p.header_len()..]), interleaved));
    });
    let mut scratch: Vec<Vec<u8>> = frames.iter().map(|f| f[HEADER_LEN..].to_vec()).collect();
    let ctr = measure(samples, sample, || {
        let j = next();
        black_box(k.phase_ctr(&preps[j], black_box(&mut scratch[j])));
    });
    let extra = 16;
    let mut bufs: Vec<Vec<u8>> = frames.iter().map(|f| vec![0u8; f.len() + extra]).collect();
    let mut failed = None;
    let total = measure(samples, sample, || {
        let j = next();
        let f = &frames[j];
        bufs[j][..f.len()].copy_from_slice(f);
        if let Err(e) = k.protect_in_place_with(&mut bufs[j], f.len(), pn(j), 0, interleaved) {
            failed = Some(e);
        }
        black_box(&bufs[j]);
    });
    if let Some(e) = failed {
        anyhow::bail!("icbc protect: {e}");
    }
    Ok(Phases {
        header,
        mic,
        ctr,
        total,
    })
}

fn saving(new: &Figure, old: &Figure) -> f64 {
    1.0 - new.median_ns / old.median_ns
}

/// Runs the bench.
pub fn bench(
    samples: usize,
    sample: Duration,
    sizes: &[usize],
    progress: bool,
) -> anyhow::Result<Report> {
    let k = ExperimentalIcbcCcmp128::new(&key(16)).map_err(|e| anyhow::anyhow!("key: {e}"))?;
    let mut rows = Vec::new();
    for (n, &body) in sizes.iter().enumerate() {
        if progress {
            eprintln!(
                "wisec bench icbc: {body}-octet bodies ({}/{}) ...",
                n + 1,
                sizes.len()
            );
        }
        let frames: Vec<Vec<u8>> = (0..FRAMES).map(|i| data_frame(i, body)).collect();
        let standard = phases(&k, &frames, false, samples, sample)?;
        let icbc = phases(&k, &frames, true, samples, sample)?;
        let cbc = standard.header.median_ns + standard.mic.median_ns;
        rows.push(Row {
            body,
            blocks: body.div_ceil(16),
            mic_saving: saving(&icbc.mic, &standard.mic),
            total_saving: saving(&icbc.total, &standard.total),
            cbc_mac_share: cbc / standard.total.median_ns,
            header_share_of_cbc_mac: standard.header.median_ns / cbc,
            standard,
            icbc,
        });
    }
    let at = |b: usize| {
        rows.iter()
            .find(|r| r.body == b)
            .map(|r| r.standard.total.median_ns)
    };
    let growth_4_over_1 = match (at(16), at(64)) {
        (Some(one), Some(four)) => Some(four / one),
        _ => None,
    };
    let hw = wisec_crypto::hardware_aes();
    Ok(Report {
        aes: if hw { "hardware" } else { "software" },
        software_aes_build: wisec_crypto::software_aes_build(),
        cpu: super::crypto::cpu_model(),
        optimized: !cfg!(debug_assertions),
        samples,
        sample_ms: sample.as_secs_f64() * 1e3,
        header_len: HEADER_LEN,
        rows,
        growth_4_over_1,
        seed: SEED,
    })
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// The report as text tables.
pub fn render(r: &Report) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let aes = if r.aes == "hardware" {
        "hardware AES (AES-NI)"
    } else if r.software_aes_build {
        "software AES (bit-sliced; a --cfg aes_backend=\"soft\" build)"
    } else {
        "software AES (bit-sliced; this CPU has no AES instructions)"
    };
    let _ = writeln!(
        s,
        "seed 002: CCMP-128 encryption by phase, standard CBC-MAC vs 2-way interleaved CBC-MAC \
         (ICBC, NOT 802.11)\n{aes}; {}; median of {} samples of {:.0} ms; ns per frame, \
         {}-octet MAC header{}",
        r.cpu.as_deref().unwrap_or("unknown CPU"),
        r.samples,
        r.sample_ms,
        r.header_len,
        if r.optimized {
            ""
        } else {
            "; DEBUG BUILD: figures mean little"
        }
    );
    let _ = writeln!(
        s,
        "{:>5} {:>3} | {:>8} {:>8} {:>8} {:>8} | {:>8} {:>8} | {:>6} {:>6} | {:>7} {:>7}",
        "body",
        "blk",
        "header",
        "MIC",
        "CTR",
        "total",
        "ICBC MIC",
        "ICBC tot",
        "-MIC",
        "-total",
        "CBC/tot",
        "hdr/CBC"
    );
    for row in &r.rows {
        let st = &row.standard;
        let _ = writeln!(
            s,
            "{:>5} {:>3} | {:>8.1} {:>8.1} {:>8.1} {:>8.1} | {:>8.1} {:>8.1} | {:>6} {:>6} | {:>7} {:>7}",
            row.body,
            row.blocks,
            st.header.median_ns,
            st.mic.median_ns,
            st.ctr.median_ns,
            st.total.median_ns,
            row.icbc.mic.median_ns,
            row.icbc.total.median_ns,
            pct(row.mic_saving),
            pct(row.total_saving),
            pct(row.cbc_mac_share),
            pct(row.header_share_of_cbc_mac),
        );
    }
    let _ = writeln!(
        s,
        "seed 002 ({}): CBC-MAC about {} of the total, IV and headers about {} of the \
         CBC-MAC, ICBC about {} less time, 4 blocks {:.2}x the time of 1{}",
        r.seed.machine,
        pct(r.seed.cbc_mac_share),
        pct(r.seed.header_share_of_cbc_mac),
        pct(r.seed.total_saving),
        r.seed.growth_4_over_1,
        match r.growth_4_over_1 {
            Some(g) => format!(" (here {g:.2}x)"),
            None => String::new(),
        }
    );
    let _ = writeln!(
        s,
        "-MIC, -total: time ICBC saves against the standard; CBC/tot: (header + MIC) / total; \
         hdr/CBC: header / (header + MIC); total includes copying the plaintext in"
    );
    s
}

/// Checks the options and runs the bench.
pub fn main(a: IcbcArgs) -> Result<(), crate::error::Failure> {
    use crate::error::Failure;
    let samples = a.samples.unwrap_or(if a.quick { 3 } else { 9 });
    if !(1..=1000).contains(&samples) {
        return Err(Failure::Usage("--samples: 1 to 1000".into()));
    }
    let sample = a
        .sample_time
        .unwrap_or(Duration::from_millis(if a.quick { 2 } else { 20 }));
    if sample < Duration::from_millis(1) {
        return Err(Failure::Usage("--sample-time: 1ms to 10s".into()));
    }
    let sizes = if a.sizes.is_empty() {
        vec![16, 32, 48, 64, 256, 1500]
    } else {
        a.sizes
    };
    if let Some(bad) = sizes.iter().find(|&&s| !(1..=2304).contains(&s)) {
        return Err(Failure::Usage(format!(
            "--sizes: {bad} is out of range; body sizes are 1 to 2304 octets"
        )));
    }
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let r = bench(samples, sample, &sizes, progress).map_err(Failure::Runtime)?;
    if a.json {
        let j = serde_json::to_string_pretty(&r).map_err(|e| Failure::Runtime(e.into()))?;
        crate::outln!("{j}");
    } else {
        crate::out!("{}", render(&r));
    }
    Ok(())
}
