//! `wisec bench discosec`: the cost of DiscoSec's key exchange and frame
//! authentication, the analogues of seed 003's Figures 4 and 5, beside the
//! same operations measured with OpenSSL in the same run.
//!
//! Key exchange, per curve (P-224, P-256, P-384):
//!
//! - AP without key caching: ECDH with PK_STA, then SK = low 128 bits of
//!   SHA-256(MK ‖ AT);
//! - AP with key caching: SK from the cached MK and a new AT (one hash);
//! - station without key caching: a fresh key pair, ECDH with PK_AP, SK;
//! - station with key caching: SK from the cached MK;
//! - OpenSSL: EC key generation and ECDH derive on the same curve, and
//!   SHA-256 of MK ‖ AT.
//!
//! Frame authentication, per frame size: the `fast_auth` tag (one
//! AES-CMAC block) and the `full_auth` tag (AES-CMAC over the whole frame)
//! as `wisec_proto::discosec::session::compute_tag` computes them, beside
//! OpenSSL's AES-CMAC over the same 16 bytes and the same frame. Both are
//! keyed once per key: wisec's `AesCmac` keeps its key schedule and is
//! cloned per frame, OpenSSL's context is keyed by one `CMAC_Init` and
//! restarted per frame without expanding the key again
//! (`wisec_peers::openssl_cmac`).
//!
//! Each figure is the median of `--samples` samples of about `--sample-time`
//! each, with the spread (min and max sample); nothing asserts a time.

use clap::Args;
use serde::Serialize;
use std::hint::black_box;
use std::time::{Duration, Instant};
use wisec_crypto::cmac::AesCmac;
use wisec_proto::discosec::{session::compute_tag, Curve, KeyPair, MasterKey};
use wisec_wire::discosec::AuthMode;

/// Options of `wisec bench discosec`.
#[derive(Debug, Args)]
pub struct DiscosecArgs {
    /// A few short samples: a smoke test of the report
    #[arg(long)]
    quick: bool,
    /// Samples per figure; the median is reported (default 9; --quick 3)
    #[arg(long, value_name = "N")]
    samples: Option<usize>,
    /// Length of one sample, with its unit, 1ms to 10s (default 50ms;
    /// --quick 2ms)
    #[arg(long, value_name = "DURATION",
          value_parser = |s: &str| crate::cli::num::duration(s, false, Duration::from_secs(10)))]
    sample_time: Option<Duration>,
    /// Renamed --sample-time (with a unit: --sample-time 50ms)
    #[arg(long, value_name = "MS", hide = true)]
    time_ms: Option<String>,
    /// Frame sizes in octets for the MAC figures
    /// (default 64,128,256,512,1024,1500,2304)
    #[arg(long, value_name = "N,...", value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Print the report as JSON
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print one table as CSV (RFC 4180), its columns named as the JSON's
    /// fields (a figure's median_ns, min_ns, ... as ap.median_ns):
    /// key-exchange or mac
    #[arg(long, value_name = "TABLE")]
    csv: Option<CsvTable>,
}

/// The tables of `--csv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CsvTable {
    /// Key exchange per curve (the JSON's key_exchange).
    KeyExchange,
    /// MAC time per frame size (the JSON's mac).
    Mac,
}

/// The columns of `--csv key-exchange`.
pub const KEY_EXCHANGE_COLUMNS: [&str; 9] = [
    "curve",
    "ap",
    "ap_cached",
    "sta",
    "sta_cached",
    "openssl_keygen",
    "openssl_ecdh",
    "openssl_sha256",
    "ap_vs_openssl",
];
/// The columns of `--csv mac`.
pub const MAC_COLUMNS: [&str; 6] = [
    "frame_len",
    "fast_auth",
    "full_auth",
    "openssl_cmac_block",
    "openssl_cmac_frame",
    "full_vs_openssl",
];

/// What went wrong.
#[derive(Debug)]
pub enum Error {
    /// A bad option.
    Usage(String),
    /// A peer failed.
    Runtime(anyhow::Error),
}

/// A timed figure: nanoseconds per operation.
#[derive(Debug, Clone, Serialize)]
pub struct Figure {
    /// Median of the samples.
    pub median_ns: f64,
    /// Fastest sample.
    pub min_ns: f64,
    /// Slowest sample.
    pub max_ns: f64,
    /// Samples taken.
    pub samples: usize,
}

/// Key exchange figures of one curve.
#[derive(Debug, Clone, Serialize)]
pub struct KeyExchangeRow {
    /// The curve.
    pub curve: &'static str,
    /// AP: ECDH + SK.
    pub ap: Figure,
    /// AP: SK from a cached MK.
    pub ap_cached: Figure,
    /// Station: key generation + ECDH + SK.
    pub sta: Figure,
    /// Station: SK from a cached MK.
    pub sta_cached: Figure,
    /// OpenSSL: EC key generation.
    pub openssl_keygen: Figure,
    /// OpenSSL: ECDH derive.
    pub openssl_ecdh: Figure,
    /// OpenSSL: SHA-256 of MK ‖ AT.
    pub openssl_sha256: Figure,
    /// wisec AP ECDH+SK time / OpenSSL ECDH + SHA-256 time.
    pub ap_vs_openssl: f64,
}

/// MAC figures of one frame size.
#[derive(Debug, Clone, Serialize)]
pub struct MacRow {
    /// Frame length in octets (MAC header included).
    pub frame_len: usize,
    /// fast_auth tag.
    pub fast_auth: Figure,
    /// full_auth tag.
    pub full_auth: Figure,
    /// OpenSSL CMAC of one block.
    pub openssl_cmac_block: Figure,
    /// OpenSSL CMAC of the whole frame.
    pub openssl_cmac_frame: Figure,
    /// full_auth / OpenSSL CMAC of the frame.
    pub full_vs_openssl: f64,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Samples per figure.
    pub samples: usize,
    /// Sample length in milliseconds.
    pub sample_ms: u64,
    /// OpenSSL's version string.
    pub openssl: String,
    /// Whether the binary was optimised (debug figures mean little).
    pub optimized: bool,
    /// Key exchange per curve (Figure 4's analogue).
    pub key_exchange: Vec<KeyExchangeRow>,
    /// MAC time per frame size (Figure 5's analogue).
    pub mac: Vec<MacRow>,
}

/// Times `op`: `samples` samples of about `sample` each; ns per call of
/// wall-clock time.
pub(crate) fn measure(samples: usize, sample: Duration, op: impl FnMut()) -> Figure {
    let t0 = Instant::now();
    measure_on(move || t0.elapsed(), samples, sample, op)
}

/// Times `op` on the clock `now` (wall-clock or the thread's CPU time).
pub(crate) fn measure_on(
    now: impl Fn() -> Duration,
    samples: usize,
    sample: Duration,
    mut op: impl FnMut(),
) -> Figure {
    // Calibrate: how many calls fill one sample.
    let mut reps = 1u64;
    loop {
        let t = now();
        for _ in 0..reps {
            op();
        }
        let e = now().saturating_sub(t);
        if e >= sample / 4 || reps >= 1 << 24 {
            let per = e.as_secs_f64() / reps as f64;
            reps = ((sample.as_secs_f64() / per.max(1e-9)) as u64).max(1);
            break;
        }
        reps *= 4;
    }
    let mut v: Vec<f64> = (0..samples.max(1))
        .map(|_| {
            let t = now();
            for _ in 0..reps {
                op();
            }
            now().saturating_sub(t).as_secs_f64() * 1e9 / reps as f64
        })
        .collect();
    v.sort_by(f64::total_cmp);
    Figure {
        median_ns: v[v.len() / 2],
        min_ns: v[0],
        max_ns: v[v.len() - 1],
        samples: v.len(),
    }
}

fn curve_nid(c: Curve) -> openssl::nid::Nid {
    match c {
        Curve::P224 => openssl::nid::Nid::SECP224R1,
        Curve::P256 => openssl::nid::Nid::X9_62_PRIME256V1,
        Curve::P384 => openssl::nid::Nid::SECP384R1,
    }
}

/// A seeded generator for the key pairs of the benchmark.
struct BenchRng(u64);

impl rand_core_shim::TryRng for BenchRng {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.try_next_u64()? as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(wisec_lab::rng::splitmix64(&mut self.0))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for c in dst.chunks_mut(8) {
            let v = self.try_next_u64()?.to_le_bytes();
            c.copy_from_slice(&v[..c.len()]);
        }
        Ok(())
    }
}
// Key generation only needs unpredictability in real use; the benchmark
// needs speed and reproducibility, and its keys protect nothing.
impl rand_core_shim::TryCryptoRng for BenchRng {}

use rand::rand_core as rand_core_shim;

fn key_exchange(c: Curve, samples: usize, sample: Duration) -> anyhow::Result<KeyExchangeRow> {
    let mut rng = BenchRng(0x5eed ^ c.field_len() as u64);
    let ap = KeyPair::generate(c, &mut rng);
    let sta = KeyPair::generate(c, &mut rng);
    let mk: MasterKey = ap.agree(sta.public().as_bytes())?;
    let mut at = 0u32;
    let ap_f = measure(samples, sample, || {
        at = at.wrapping_add(1);
        let mk = ap
            .agree(black_box(sta.public().as_bytes()))
            .expect("valid point");
        black_box(mk.session_key(at));
    });
    let ap_cached = measure(samples, sample, || {
        at = at.wrapping_add(1);
        black_box(mk.session_key(black_box(at)));
    });
    let sta_f = measure(samples, sample, || {
        at = at.wrapping_add(1);
        let k = KeyPair::generate(c, &mut rng);
        let mk = k
            .agree(black_box(ap.public().as_bytes()))
            .expect("valid point");
        black_box(mk.session_key(at));
    });
    let sta_cached = measure(samples, sample, || {
        at = at.wrapping_add(1);
        black_box(mk.session_key(black_box(at)));
    });

    use openssl::derive::Deriver;
    use openssl::ec::{EcGroup, EcKey};
    use openssl::pkey::PKey;
    let group = EcGroup::from_curve_name(curve_nid(c))?;
    let ossl_ap = PKey::from_ec_key(EcKey::generate(&group)?)?;
    let ossl_peer = PKey::from_ec_key(EcKey::generate(&group)?)?;
    let openssl_keygen = measure(samples, sample, || {
        black_box(EcKey::generate(&group).expect("keygen"));
    });
    let openssl_ecdh = measure(samples, sample, || {
        let mut d = Deriver::new(&ossl_ap).expect("deriver");
        d.set_peer(&ossl_peer).expect("peer");
        black_box(d.derive_to_vec().expect("derive"));
    });
    let mut msg = vec![0u8; c.field_len() + 4];
    let openssl_sha256 = measure(samples, sample, || {
        msg[0] = msg[0].wrapping_add(1);
        black_box(openssl::sha::sha256(black_box(&msg)));
    });
    let ratio = ap_f.median_ns / (openssl_ecdh.median_ns + openssl_sha256.median_ns);
    Ok(KeyExchangeRow {
        curve: match c {
            Curve::P224 => "P-224",
            Curve::P256 => "P-256",
            Curve::P384 => "P-384",
        },
        ap: ap_f,
        ap_cached,
        sta: sta_f,
        sta_cached,
        openssl_keygen,
        openssl_ecdh,
        openssl_sha256,
        ap_vs_openssl: ratio,
    })
}

fn mac_row(len: usize, samples: usize, sample: Duration) -> anyhow::Result<MacRow> {
    let key = [0x2bu8; 16];
    let cmac = AesCmac::new(&key).map_err(|e| anyhow::anyhow!("{e}"))?;
    // A Data frame header (FC 0x0008) and a body up to `len` octets.
    let mut frame = vec![0u8; len.max(24)];
    frame[0] = 0x08;
    for (i, b) in frame.iter_mut().enumerate().skip(24) {
        *b = i as u8;
    }
    let mut seq = 0u32;
    let fast = measure(samples, sample, || {
        seq = seq.wrapping_add(1);
        black_box(compute_tag(&cmac, AuthMode::Fast, 7, seq, black_box(&frame)).expect("tag"));
    });
    let full = measure(samples, sample, || {
        seq = seq.wrapping_add(1);
        black_box(compute_tag(&cmac, AuthMode::Full, 7, seq, black_box(&frame)).expect("tag"));
    });
    let mut peer = wisec_peers::openssl_cmac::OpensslCmac::new(&key)
        .map_err(|e| anyhow::anyhow!("OpenSSL CMAC: {e}"))?;
    let block = [0x5au8; 16];
    // The peer is the same algorithm: check its tags before timing.
    for data in [&frame[..], &block[..]] {
        let mut m = cmac.clone();
        m.update(data);
        let t = peer
            .mac(data)
            .map_err(|e| anyhow::anyhow!("OpenSSL CMAC: {e}"))?;
        anyhow::ensure!(t == m.finalize(), "OpenSSL CMAC disagrees with wisec's");
    }
    let openssl_cmac_block = measure(samples, sample, || {
        black_box(peer.mac(black_box(&block)).expect("CMAC"));
    });
    let openssl_cmac_frame = measure(samples, sample, || {
        black_box(peer.mac(black_box(&frame)).expect("CMAC"));
    });
    let ratio = full.median_ns / openssl_cmac_frame.median_ns;
    Ok(MacRow {
        frame_len: frame.len(),
        fast_auth: fast,
        full_auth: full,
        openssl_cmac_block,
        openssl_cmac_frame,
        full_vs_openssl: ratio,
    })
}

/// Runs the benchmark.
pub fn bench(samples: usize, sample: Duration, sizes: &[usize]) -> anyhow::Result<Report> {
    let mut key_exchange_rows = vec![];
    for c in [Curve::P224, Curve::P256, Curve::P384] {
        key_exchange_rows.push(key_exchange(c, samples, sample)?);
    }
    let mut mac = vec![];
    for &s in sizes {
        mac.push(mac_row(s, samples, sample)?);
    }
    Ok(Report {
        samples,
        sample_ms: sample.as_millis() as u64,
        openssl: openssl::version::version().to_string(),
        optimized: !cfg!(debug_assertions),
        key_exchange: key_exchange_rows,
        mac,
    })
}

fn us(f: &Figure) -> String {
    format!("{:.1}", f.median_ns / 1000.0)
}

/// The human-readable tables.
pub fn render(r: &Report) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "DiscoSec key exchange (µs per operation, median of {} samples; {}){}",
        r.samples,
        r.openssl,
        if r.optimized {
            ""
        } else {
            " [debug build: build with --release]"
        }
    );
    let _ = writeln!(
        o,
        "{:<7}{:>10}{:>11}{:>10}{:>11}{:>14}{:>13}{:>12}{:>9}",
        "curve",
        "AP",
        "AP cached",
        "STA",
        "STA cached",
        "OpenSSL gen",
        "OpenSSL DH",
        "SHA-256",
        "AP/OSSL"
    );
    for k in &r.key_exchange {
        let _ = writeln!(
            o,
            "{:<7}{:>10}{:>11}{:>10}{:>11}{:>14}{:>13}{:>12}{:>9.2}",
            k.curve,
            us(&k.ap),
            us(&k.ap_cached),
            us(&k.sta),
            us(&k.sta_cached),
            us(&k.openssl_keygen),
            us(&k.openssl_ecdh),
            us(&k.openssl_sha256),
            k.ap_vs_openssl
        );
    }
    let _ = writeln!(o, "\nDiscoSec MAC time (µs per frame)");
    let _ = writeln!(
        o,
        "{:>7}{:>11}{:>11}{:>16}{:>16}{:>11}",
        "octets", "fast_auth", "full_auth", "OpenSSL block", "OpenSSL frame", "full/OSSL"
    );
    for m in &r.mac {
        let _ = writeln!(
            o,
            "{:>7}{:>11.3}{:>11.3}{:>16.3}{:>16.3}{:>11.2}",
            m.frame_len,
            m.fast_auth.median_ns / 1000.0,
            m.full_auth.median_ns / 1000.0,
            m.openssl_cmac_block.median_ns / 1000.0,
            m.openssl_cmac_frame.median_ns / 1000.0,
            m.full_vs_openssl
        );
    }
    o
}

/// Runs `wisec bench discosec`.
pub fn main(a: DiscosecArgs) -> Result<(), Error> {
    let samples = a.samples.unwrap_or(if a.quick { 3 } else { 9 });
    if let Some(ms) = a.time_ms {
        return Err(Error::Usage(format!(
            "--time-ms is now --sample-time, with a unit: --sample-time {ms}ms"
        )));
    }
    let sample = a
        .sample_time
        .unwrap_or(Duration::from_millis(if a.quick { 2 } else { 50 }));
    if !(1..=1000).contains(&samples) {
        return Err(Error::Usage("--samples: 1 to 1000".into()));
    }
    if sample < Duration::from_millis(1) {
        return Err(Error::Usage("--sample-time: 1ms to 10s".into()));
    }
    let sizes = if a.sizes.is_empty() {
        if a.quick {
            vec![64, 1500]
        } else {
            vec![64, 128, 256, 512, 1024, 1500, 2304]
        }
    } else {
        a.sizes
    };
    if sizes.iter().any(|&s| !(24..=2346).contains(&s)) {
        return Err(Error::Usage(
            "--sizes: frame lengths of 24 to 2346 octets".into(),
        ));
    }
    let r = bench(samples, sample, &sizes).map_err(Error::Runtime)?;
    let csv = match a.csv {
        Some(CsvTable::KeyExchange) => {
            Some(crate::tabular::csv(&KEY_EXCHANGE_COLUMNS, &r.key_exchange))
        }
        Some(CsvTable::Mac) => Some(crate::tabular::csv(&MAC_COLUMNS, &r.mac)),
        None => None,
    };
    if let Some(c) = csv {
        crate::out!("{}", c.map_err(|e| Error::Runtime(e.into()))?);
    } else if a.json {
        let j = serde_json::to_string_pretty(&r).map_err(|e| Error::Runtime(e.into()))?;
        crate::outln!("{j}");
    } else {
        crate::out!("{}", render(&r));
    }
    Ok(())
}
