//! The cost of crypto in virtual time.
//!
//! Every protect and unprotect in the lab is really performed on the real
//! frame; what it costs in virtual time comes from a per-suite linear model
//! measured on the host ([`Calibration`]): `cycles = per_frame + per_byte ×
//! octets`, with host cycles = host nanoseconds × the host's clock in GHz.
//! A node's [`DeviceProfile`] turns host cycles into its own time: it
//! takes the cost of the code that device runs (the host's own AES path
//! when the device has AES instructions, otherwise the same operation on
//! the portable table AES of [`crate::softaes`], also measured on the
//! host), multiplies it by the device's architecture factor (its cycles
//! per host cycle on the same code, from its processor's documentation)
//! and divides by its clock (from the seed that describes the device).
//! Public-key work (DiscoSec's ECDH) is measured the same way
//! ([`EcdhCost`]) and scaled by the device's multi-precision factor.
//! No factor of a built-in profile is fitted to a seed's result.
//!
//! The calibration is the only measured input of a run: given one (a JSON
//! file written by `wisec lab calibrate --out FILE`), a seed and a
//! scenario, results are bit-for-bit reproducible. [`Calibration::nominal`]
//! is a fixed calibration for tests.

use crate::time::Time;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use wisec_crypto::suite::{DataKey, Suite};
use wisec_crypto::FrameProtector;
use wisec_proto::discosec::{AuthMode, Curve, KeyPair, MasterKey, Session};

/// The security of a link as the lab runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Security {
    /// No protection.
    Open,
    /// WEP with a static 40-bit key (IEEE Std 802.11-2020, 12.3.2).
    Wep40,
    /// WEP with a static 104-bit key.
    Wep104,
    /// TKIP (12.5.2) after a PSK 4-way handshake.
    Tkip,
    /// CCMP-128 (12.5.3) after a PSK 4-way handshake.
    Ccmp128,
    /// CCMP-256.
    Ccmp256,
    /// GCMP-128 (12.5.5).
    Gcmp128,
    /// GCMP-256.
    Gcmp256,
    /// DiscoSec (seed 003) with fast_auth data-frame authentication, no
    /// encryption.
    DiscosecFast,
    /// DiscoSec with full_auth data-frame authentication, no encryption.
    DiscosecFull,
}

impl Security {
    /// Every setting, in the order of the overhead tables.
    pub const ALL: [Security; 10] = [
        Security::Open,
        Security::Wep40,
        Security::Wep104,
        Security::Tkip,
        Security::Ccmp128,
        Security::Ccmp256,
        Security::Gcmp128,
        Security::Gcmp256,
        Security::DiscosecFast,
        Security::DiscosecFull,
    ];

    /// The short name (calibration keys, labels, `--suites`).
    pub const fn name(self) -> &'static str {
        match self {
            Security::Open => "open",
            Security::Wep40 => "wep40",
            Security::Wep104 => "wep104",
            Security::Tkip => "tkip",
            Security::Ccmp128 => "ccmp128",
            Security::Ccmp256 => "ccmp256",
            Security::Gcmp128 => "gcmp128",
            Security::Gcmp256 => "gcmp256",
            Security::DiscosecFast => "discosec-fast",
            Security::DiscosecFull => "discosec-full",
        }
    }

    /// The name in reports.
    pub const fn label(self) -> &'static str {
        match self {
            Security::Open => "Open",
            Security::Wep40 => "WEP-40",
            Security::Wep104 => "WEP-104",
            Security::Tkip => "TKIP",
            Security::Ccmp128 => "CCMP-128",
            Security::Ccmp256 => "CCMP-256",
            Security::Gcmp128 => "GCMP-128",
            Security::Gcmp256 => "GCMP-256",
            Security::DiscosecFast => "DiscoSec fast",
            Security::DiscosecFull => "DiscoSec full",
        }
    }

    /// The setting called `name`.
    pub fn from_name(name: &str) -> Option<Security> {
        Security::ALL.iter().copied().find(|s| s.name() == name)
    }

    /// The wisec-crypto data suite, for the suites that encrypt.
    pub const fn suite(self) -> Option<Suite> {
        match self {
            Security::Wep40 => Some(Suite::Wep40),
            Security::Wep104 => Some(Suite::Wep104),
            Security::Tkip => Some(Suite::Tkip),
            Security::Ccmp128 => Some(Suite::Ccmp128),
            Security::Ccmp256 => Some(Suite::Ccmp256),
            Security::Gcmp128 => Some(Suite::Gcmp128),
            Security::Gcmp256 => Some(Suite::Gcmp256),
            _ => None,
        }
    }

    /// True for the suites negotiated by a 4-way handshake.
    pub const fn is_rsn(self) -> bool {
        matches!(
            self,
            Security::Tkip
                | Security::Ccmp128
                | Security::Ccmp256
                | Security::Gcmp128
                | Security::Gcmp256
        )
    }

    /// The DiscoSec data authentication mode, for DiscoSec.
    pub const fn discosec_mode(self) -> Option<AuthMode> {
        match self {
            Security::DiscosecFast => Some(AuthMode::Fast),
            Security::DiscosecFull => Some(AuthMode::Full),
            _ => None,
        }
    }

    /// Octets the setting adds to each data MPDU on the air: the security
    /// header and trailer (12.3.2.2, 12.5.2.2, 12.5.3.2, 12.5.5.2) or
    /// DiscoSec's SEQ and MAC elements (33 octets).
    pub const fn overhead(self) -> usize {
        match self.suite() {
            Some(s) => s.overhead().total(),
            None => match self {
                Security::DiscosecFast | Security::DiscosecFull => {
                    wisec_wire::discosec::Trailer::LEN
                }
                _ => 0,
            },
        }
    }

    /// The primitive whose speed a device profile scales.
    pub const fn primitive(self) -> Primitive {
        match self {
            Security::Open => Primitive::None,
            Security::Wep40 | Security::Wep104 | Security::Tkip => Primitive::Rc4,
            _ => Primitive::Aes,
        }
    }
}

/// The cipher primitive that dominates a suite's cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Primitive {
    /// Nothing to compute.
    None,
    /// RC4 (WEP, TKIP; TKIP's Michael is counted with it).
    Rc4,
    /// AES (CCMP, GCMP, AES-CMAC).
    Aes,
}

/// Which way a frame goes through a suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Op {
    /// Encrypt and/or authenticate before sending.
    Protect,
    /// Verify and/or decrypt after receiving.
    Unprotect,
}

/// A linear cost in host cycles.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct OpCost {
    /// Cycles per frame, whatever its length.
    pub cycles_per_frame: f64,
    /// Cycles per octet of MPDU.
    pub cycles_per_byte: f64,
}

impl OpCost {
    /// Host cycles for an MPDU of `octets`.
    pub fn cycles(&self, octets: usize) -> f64 {
        (self.cycles_per_frame + self.cycles_per_byte * octets as f64).max(0.0)
    }
}

/// The costs of one suite.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct SuiteCost {
    /// Protecting a frame.
    pub protect: OpCost,
    /// Unprotecting a frame.
    pub unprotect: OpCost,
}

/// The host cycles of DiscoSec's public-key work on one curve.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct EcdhCost {
    /// One ECDH key agreement (a scalar multiplication of the peer's
    /// point and the point checks).
    pub agree_cycles: f64,
    /// One key-pair generation (a scalar multiplication of the base
    /// point).
    pub keygen_cycles: f64,
}

/// The calibration format this build reads and writes.
pub const CALIBRATION_VERSION: u32 = 2;

/// The measured cost model of the host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Format version ([`CALIBRATION_VERSION`]).
    pub version: u32,
    /// How it was obtained ("measured", "nominal", a file name...).
    pub source: String,
    /// The host clock used to turn nanoseconds into cycles, MHz.
    pub host_mhz: f64,
    /// Per suite, by [`Security::name`].
    pub suites: BTreeMap<String, SuiteCost>,
    /// Per AES suite, the same operation with its AES on the portable
    /// table AES ([`crate::softaes`]): the real code's measured cost less
    /// its AES blocks on the host's path, plus those blocks' measured cost
    /// on the table AES. What a processor without AES instructions runs. GCMP has no table-AES measurement of its own and
    /// is given CCM's (one AES block per 16 octets each, GHASH's table
    /// multiplication in place of CBC-MAC's second AES).
    pub soft_aes: BTreeMap<String, SuiteCost>,
    /// Per DiscoSec curve (`p224`, `p256`, `p384`), the public-key work.
    pub ecdh: BTreeMap<String, EcdhCost>,
}

/// The calibration key of a DiscoSec curve.
pub fn curve_name(c: Curve) -> &'static str {
    match c {
        Curve::P224 => "p224",
        Curve::P256 => "p256",
        Curve::P384 => "p384",
    }
}

impl Calibration {
    /// A fixed calibration with round figures close to a 3 GHz x86-64
    /// with AES instructions (for tests and for runs that must not depend
    /// on the machine): RC4 suites ~6 cycles/octet, AES suites 2-4; on the
    /// table AES about 19 cycles per octet of CCM and 9 of CMAC; a P-256
    /// key agreement 660 000 cycles (round figures of `wisec lab
    /// calibrate` on a 2.6 GHz x86-64).
    pub fn nominal() -> Calibration {
        let c = |pf: f64, pb: f64, uf: f64, ub: f64| SuiteCost {
            protect: OpCost {
                cycles_per_frame: pf,
                cycles_per_byte: pb,
            },
            unprotect: OpCost {
                cycles_per_frame: uf,
                cycles_per_byte: ub,
            },
        };
        let mut suites = BTreeMap::new();
        suites.insert("open".into(), SuiteCost::default());
        suites.insert("wep40".into(), c(2500.0, 7.0, 2500.0, 7.0));
        suites.insert("wep104".into(), c(2500.0, 7.0, 2500.0, 7.0));
        suites.insert("tkip".into(), c(4000.0, 9.0, 4000.0, 9.0));
        suites.insert("ccmp128".into(), c(600.0, 2.6, 600.0, 2.6));
        suites.insert("ccmp256".into(), c(800.0, 3.5, 800.0, 3.5));
        suites.insert("gcmp128".into(), c(700.0, 1.5, 700.0, 1.5));
        suites.insert("gcmp256".into(), c(800.0, 1.8, 800.0, 1.8));
        suites.insert("discosec-fast".into(), c(500.0, 0.0, 500.0, 0.0));
        suites.insert("discosec-full".into(), c(500.0, 1.3, 500.0, 1.3));
        let mut soft_aes = BTreeMap::new();
        for (k, pf, pb) in [
            ("ccmp128", 400.0, 19.0),
            ("ccmp256", 500.0, 25.0),
            ("gcmp128", 400.0, 19.0),
            ("gcmp256", 500.0, 25.0),
            ("discosec-fast", 750.0, 0.0),
            ("discosec-full", 1200.0, 8.7),
        ] {
            soft_aes.insert(k.into(), c(pf, pb, pf, pb));
        }
        let mut ecdh = BTreeMap::new();
        for (k, a) in [
            ("p224", 440_000.0),
            ("p256", 660_000.0),
            ("p384", 2_100_000.0),
        ] {
            ecdh.insert(
                k.into(),
                EcdhCost {
                    agree_cycles: a,
                    keygen_cycles: a,
                },
            );
        }
        Calibration {
            version: CALIBRATION_VERSION,
            source: "nominal".into(),
            host_mhz: 3000.0,
            suites,
            soft_aes,
            ecdh,
        }
    }

    /// Host cycles of `op` on an MPDU of `octets` under `sec` on the
    /// table AES (0 for a suite without AES or not listed).
    pub fn soft_cycles(&self, sec: Security, op: Op, octets: usize) -> f64 {
        match self.soft_aes.get(sec.name()) {
            Some(c) => match op {
                Op::Protect => c.protect.cycles(octets),
                Op::Unprotect => c.unprotect.cycles(octets),
            },
            None => 0.0,
        }
    }

    /// The public-key costs of `curve` (zero when not listed).
    pub fn ecdh_cost(&self, curve: Curve) -> EcdhCost {
        self.ecdh
            .get(curve_name(curve))
            .copied()
            .unwrap_or_default()
    }

    /// Host cycles of `op` on an MPDU of `octets` under `sec` (0 for a
    /// suite the calibration does not list).
    pub fn cycles(&self, sec: Security, op: Op, octets: usize) -> f64 {
        match self.suites.get(sec.name()) {
            Some(c) => match op {
                Op::Protect => c.protect.cycles(octets),
                Op::Unprotect => c.unprotect.cycles(octets),
            },
            None => 0.0,
        }
    }

    /// Measures the host: times protect and unprotect of 64- and
    /// 1500-octet data frames under every suite (median of repeated
    /// batches) and fits the linear model. Takes about `budget_ms`
    /// milliseconds of wall-clock time in all.
    pub fn measure(budget_ms: u64) -> Calibration {
        let host_mhz = host_mhz().unwrap_or(3000.0);
        let per_suite = (budget_ms.max(10) / Security::ALL.len() as u64).max(1);
        let mut suites = BTreeMap::new();
        let mut soft_aes = BTreeMap::new();
        for sec in Security::ALL {
            suites.insert(
                sec.name().to_string(),
                measure_suite(sec, per_suite, host_mhz),
            );
        }
        // One AES block on the host's own path (AES instructions when the
        // CPU has them), serial as in CBC-MAC and CMAC: the slope of the
        // host's AES-CMAC between 1 and 100 blocks.
        let hw_block = match wisec_crypto::cmac::AesCmac::new(&[0x5a; 16]) {
            Ok(k) => {
                let data = [0x33u8; 1600];
                let mut t = [0.0; 2];
                for (i, n) in [16usize, 1600].into_iter().enumerate() {
                    t[i] = median_ns(per_suite / 4, || {
                        let mut m = k.clone();
                        m.update(std::hint::black_box(&data[..n]));
                        std::hint::black_box(m.finalize());
                    });
                }
                ((t[1] - t[0]) / 99.0).max(0.0) * host_mhz / 1000.0
            }
            Err(_) => 0.0,
        };
        for sec in Security::ALL {
            let (Some(soft), Some(real)) = (
                measure_soft(sec, per_suite / 2, host_mhz),
                suites.get(sec.name()),
            ) else {
                continue;
            };
            soft_aes.insert(
                sec.name().to_string(),
                soft_path(sec, real, &soft, hw_block),
            );
        }
        let mut ecdh = BTreeMap::new();
        for curve in Curve::ALL {
            ecdh.insert(
                curve_name(curve).to_string(),
                measure_ecdh(curve, per_suite / 2, host_mhz),
            );
        }
        Calibration {
            version: CALIBRATION_VERSION,
            source: "measured".into(),
            host_mhz,
            suites,
            soft_aes,
            ecdh,
        }
    }

    /// Checks the values of a calibration read from a file.
    pub fn validate(&self) -> Result<(), String> {
        if self.version != CALIBRATION_VERSION {
            return Err(format!(
                "version {} (this build reads {CALIBRATION_VERSION}, which adds the table-AES and \
ECDH costs: run `wisec lab calibrate` again)",
                self.version
            ));
        }
        if !(self.host_mhz.is_finite() && self.host_mhz > 0.0) {
            return Err("host_mhz must be a positive number".into());
        }
        for (k, c) in &self.suites {
            if Security::from_name(k).is_none() {
                return Err(format!("unknown suite '{k}'"));
            }
            for o in [c.protect, c.unprotect] {
                let ok = |x: f64| x.is_finite() && x >= 0.0;
                if !ok(o.cycles_per_frame) || !ok(o.cycles_per_byte) {
                    return Err(format!(
                        "suite '{k}': costs must be finite and not negative"
                    ));
                }
            }
        }
        for sec in Security::ALL {
            if sec.primitive() == Primitive::Aes && !self.soft_aes.contains_key(sec.name()) {
                return Err(format!("soft_aes: no cost for suite '{}'", sec.name()));
            }
        }
        for (k, c) in &self.soft_aes {
            let ok = |x: f64| x.is_finite() && x >= 0.0;
            if Security::from_name(k).is_none_or(|s| s.primitive() != Primitive::Aes) {
                return Err(format!("soft_aes: '{k}' is not an AES suite"));
            }
            for o in [c.protect, c.unprotect] {
                if !ok(o.cycles_per_frame) || !ok(o.cycles_per_byte) {
                    return Err(format!(
                        "soft_aes '{k}': costs must be finite and not negative"
                    ));
                }
            }
        }
        for curve in Curve::ALL {
            let Some(c) = self.ecdh.get(curve_name(curve)) else {
                return Err(format!("ecdh: no cost for curve '{}'", curve_name(curve)));
            };
            if ![c.agree_cycles, c.keygen_cycles]
                .iter()
                .all(|x| x.is_finite() && *x >= 0.0)
            {
                return Err(format!(
                    "ecdh '{}': costs must be finite and not negative",
                    curve_name(curve)
                ));
            }
        }
        if let Some(k) = self
            .ecdh
            .keys()
            .find(|k| !Curve::ALL.iter().any(|c| curve_name(*c) == k.as_str()))
        {
            return Err(format!("ecdh: unknown curve '{k}'"));
        }
        Ok(())
    }
}

/// The host clock from /proc/cpuinfo (the highest "cpu MHz" listed).
fn host_mhz() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    s.lines()
        .filter(|l| l.starts_with("cpu MHz"))
        .filter_map(|l| l.split(':').nth(1)?.trim().parse::<f64>().ok())
        .filter(|m| m.is_finite() && *m > 100.0)
        .fold(None, |acc: Option<f64>, m| {
            Some(acc.map_or(m, |a| a.max(m)))
        })
}

/// A QoS-less To-DS data frame header (24 octets) followed by `body`
/// octets of LLC/SNAP + payload.
fn sample_frame(body: usize) -> Vec<u8> {
    let mut f = vec![0u8; 24 + body];
    f[0] = 0x08;
    f[1] = 0x01;
    f[4..10].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
    f[10..16].copy_from_slice(&[2, 0, 0, 0, 0, 2]);
    f[16..22].copy_from_slice(&[2, 0, 0, 0, 0, 3]);
    for (i, b) in f[24..].iter_mut().enumerate() {
        *b = i as u8;
    }
    f
}

/// Median nanoseconds per call of `f` over batches.
fn median_ns(budget_ms: u64, mut f: impl FnMut()) -> f64 {
    use std::time::Instant;
    // Warm up and size a batch to ~50 µs.
    let t = Instant::now();
    let mut n = 0u32;
    while t.elapsed().as_micros() < 50 {
        f();
        n += 1;
    }
    let batch = n.max(1);
    let deadline = Instant::now() + std::time::Duration::from_millis(budget_ms.max(1));
    let mut samples = Vec::new();
    while Instant::now() < deadline || samples.len() < 5 {
        let t = Instant::now();
        for _ in 0..batch {
            f();
        }
        samples.push(t.elapsed().as_nanos() as f64 / f64::from(batch));
        if samples.len() > 10_000 {
            break;
        }
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn measure_suite(sec: Security, budget_ms: u64, host_mhz: f64) -> SuiteCost {
    const SMALL: usize = 64;
    const LARGE: usize = 1500;
    let ghz = host_mhz / 1000.0;
    let mut pt = [0.0f64; 2];
    let mut ut = [0.0f64; 2];
    for (i, body) in [SMALL, LARGE].into_iter().enumerate() {
        let plain = sample_frame(body);
        let mut buf = vec![0u8; plain.len() + 64];
        let budget = budget_ms / 4;
        if let Some(suite) = sec.suite() {
            let key = vec![0x5au8; suite.key_len()];
            let Ok(k) = DataKey::new(suite, &key) else {
                continue;
            };
            let mut pn = 1u64;
            pt[i] = median_ns(budget, || {
                buf[..plain.len()].copy_from_slice(&plain);
                pn += 1;
                let _ = k.protect_in_place(&mut buf, plain.len(), pn, 0);
            });
            let mut prot = vec![0u8; plain.len() + 64];
            let n = k.protect(&plain, 1, 0, &mut prot).unwrap_or(0);
            prot.truncate(n);
            let mut work = prot.clone();
            ut[i] = median_ns(budget, || {
                work.copy_from_slice(&prot);
                let _ = k.unprotect_in_place(&mut work);
            });
        } else if let Some(mode) = sec.discosec_mode() {
            let Ok(mk) = MasterKey::from_slice(&[0x5a; 32]) else {
                continue;
            };
            let Ok(mut s) = Session::new(&mk.session_key(7), 7, mode, 1 << 30) else {
                continue;
            };
            pt[i] = median_ns(budget, || {
                buf[..plain.len()].copy_from_slice(&plain);
                let _ = s.seal(&mut buf, plain.len());
            });
            let mut sealed = vec![0u8; plain.len() + 64];
            sealed[..plain.len()].copy_from_slice(&plain);
            let n = s.seal(&mut sealed, plain.len()).unwrap_or(0);
            sealed.truncate(n);
            ut[i] = median_ns(budget, || {
                let _ = s.verify(&sealed);
            });
        }
    }
    let (s, l) = (24 + SMALL, 24 + LARGE);
    SuiteCost {
        protect: fit(pt, s, l, ghz),
        unprotect: fit(ut, s, l, ghz),
    }
}

/// The linear model through two timings (ns) of MPDUs of `small` and
/// `large` octets, in host cycles.
fn fit(t: [f64; 2], small: usize, large: usize, ghz: f64) -> OpCost {
    let per_byte = ((t[1] - t[0]) / (large - small) as f64).max(0.0);
    let per_frame = (t[0] - per_byte * small as f64).max(0.0);
    OpCost {
        cycles_per_frame: per_frame * ghz,
        cycles_per_byte: per_byte * ghz,
    }
}

/// The AES blocks `sec` encrypts per frame and per octet of MPDU: CCM
/// (CCMP, and GCMP standing in) B0, two blocks of AAD and S0, then two per
/// 16 octets of body; DiscoSec full_auth one per 16 octets of the covered
/// frame; fast_auth one.
fn aes_blocks(sec: Security) -> (f64, f64) {
    match sec.discosec_mode() {
        Some(AuthMode::Fast) => (1.0, 0.0),
        Some(_) => (15.0 / 16.0, 1.0 / 16.0),
        None => (4.0 - 2.0 * 24.0 / 16.0, 2.0 / 16.0),
    }
}

/// The cost of `sec` on a processor without AES instructions: the real
/// code's measured cost less its AES blocks on the host's path
/// (`hw_block` cycles each), plus the same blocks on the table AES (the
/// `soft` kernel's measurement).
fn soft_path(sec: Security, real: &SuiteCost, soft: &SuiteCost, hw_block: f64) -> SuiteCost {
    let (bf, bb) = aes_blocks(sec);
    let one = |r: OpCost, s: OpCost| OpCost {
        cycles_per_frame: s.cycles_per_frame + (r.cycles_per_frame - bf * hw_block).max(0.0),
        cycles_per_byte: s.cycles_per_byte + (r.cycles_per_byte - bb * hw_block).max(0.0),
    };
    SuiteCost {
        protect: one(real.protect, soft.protect),
        unprotect: one(real.unprotect, soft.unprotect),
    }
}

/// The AES work of `sec`'s protect on the table AES ([`crate::softaes`]),
/// for 64- and 1500-octet bodies as [`measure_suite`]: CCM with CCMP's
/// 22-octet AAD and 13-octet nonce over the body (CCMP and, standing in,
/// GCMP), AES-CMAC over the covered frame (DiscoSec full_auth: header,
/// body and SEQ element) or over one block (fast_auth). Unprotect does the
/// same AES work (CBC-MAC and CTR both ways; the CMAC recomputed), so the
/// two get the same cost. `None` for suites without AES.
fn measure_soft(sec: Security, budget_ms: u64, host_mhz: f64) -> Option<SuiteCost> {
    use crate::softaes::{ccm_seal, CmacKey, SoftAes};
    const SMALL: usize = 64;
    const LARGE: usize = 1500;
    if sec.primitive() != Primitive::Aes {
        return None;
    }
    let (key_len, tag) = match sec {
        Security::Ccmp256 | Security::Gcmp256 => (32, 16),
        _ => (16, 8),
    };
    let key = vec![0x5au8; key_len];
    let mut t = [0.0f64; 2];
    for (i, body) in [SMALL, LARGE].into_iter().enumerate() {
        let frame = sample_frame(body);
        let budget = budget_ms.max(2) / 2;
        t[i] = match sec.discosec_mode() {
            Some(mode) => {
                let k = CmacKey::new(&key)?;
                // The covered part: the frame and its SEQ element (the
                // MAC element is not covered); fast_auth MACs one block.
                let mut covered = frame.clone();
                covered.extend_from_slice(&[0u8; 15]);
                let data: &[u8] = if mode == AuthMode::Fast {
                    covered.get(..16)?
                } else {
                    &covered
                };
                median_ns(budget, || {
                    std::hint::black_box(k.mac(std::hint::black_box(data)));
                })
            }
            None => {
                let aes = SoftAes::new(&key)?;
                let nonce = [7u8; 13];
                let aad = [3u8; 22];
                let mut data = frame.get(24..)?.to_vec();
                median_ns(budget, || {
                    std::hint::black_box(ccm_seal(&aes, &nonce, &aad, &mut data, tag));
                })
            }
        };
    }
    let c = fit(t, 24 + SMALL, 24 + LARGE, host_mhz / 1000.0);
    Some(SuiteCost {
        protect: c,
        unprotect: c,
    })
}

/// The host cycles of one key agreement and one key-pair generation on
/// `curve` (the real `wisec-proto` DiscoSec code), medians of repeats.
fn measure_ecdh(curve: Curve, budget_ms: u64, host_mhz: f64) -> EcdhCost {
    let mut rng = crate::bss::LabRng::new(0x5eed);
    let ours = KeyPair::generate(curve, &mut rng);
    let theirs = KeyPair::generate(curve, &mut rng);
    let peer = *theirs.public();
    let budget = budget_ms.max(2) / 2;
    let agree = median_ns(budget, || {
        let _ = std::hint::black_box(ours.agree(std::hint::black_box(peer.as_bytes())));
    });
    let keygen = median_ns(budget, || {
        std::hint::black_box(KeyPair::generate(curve, &mut rng));
    });
    let ghz = host_mhz / 1000.0;
    EcdhCost {
        agree_cycles: agree * ghz,
        keygen_cycles: keygen * ghz,
    }
}

/// The host's x86-64 core: it decodes up to four instructions per cycle
/// (AMD's and Intel's optimisation manuals for every x86-64 core since
/// Core 2 and Zen); the architecture factors below are the host's issue
/// width over the device's.
pub const HOST_ISSUE_WIDTH: f64 = 4.0;

/// A device class: its clock and how many cycles it spends per host cycle
/// on the same code.
///
/// Each built-in profile takes its clock from the seed that describes the
/// device and its architecture factor from the documented issue width of
/// its processor core against the host's ([`HOST_ISSUE_WIDTH`]): an
/// in-order single-issue core retires at most one instruction per cycle
/// where the host can retire four, so the same portable code (the table
/// AES, RC4) costs it up to four times the host's cycles. The issue width
/// is a ceiling, not a measured rate: the factors are estimates from the
/// processors' documentation, fitted to no seed result. Multi-precision
/// arithmetic (ECDH) gets the architecture factor times (64 / word bits)²
/// on a 32-bit core: a schoolbook product of 32-bit words needs four
/// times the word multiplications of 64-bit ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceProfile {
    /// Name (`host`, `cube`, ...).
    pub name: String,
    /// What it stands for.
    pub description: String,
    /// Clock in MHz; `None` for the host's own (the calibration's).
    pub clock_mhz: Option<f64>,
    /// The processor has AES instructions: AES suites cost what the host's
    /// own code costs. Without, they cost the table AES's measurement.
    pub aes_instructions: bool,
    /// Cycles per host cycle on the same portable code.
    pub arch_factor: f64,
    /// Cycles per host cycle on multi-precision arithmetic (ECDH).
    pub bignum_factor: f64,
    /// Where the clock and the factors come from.
    pub source: String,
}

/// The multi-precision factor of a core with `word_bits`-bit words and
/// architecture factor `arch` (against the host's 64-bit words).
pub fn bignum_factor(arch: f64, word_bits: u32) -> f64 {
    let r = 64.0 / f64::from(word_bits.clamp(8, 64));
    arch * r * r
}

impl DeviceProfile {
    /// The machine running the lab, as calibrated.
    pub fn host() -> DeviceProfile {
        DeviceProfile {
            name: "host".into(),
            description: "the machine running the lab, as calibrated".into(),
            clock_mhz: None,
            aes_instructions: true,
            arch_factor: 1.0,
            bignum_factor: 1.0,
            source: "the calibration: this host's measured costs at its own clock".into(),
        }
    }

    /// A core without AES instructions: `clock` MHz, `issue` instructions
    /// per cycle at most, `word` bits.
    fn soft(
        name: &str,
        description: &str,
        clock: f64,
        issue: f64,
        word: u32,
        source: &str,
    ) -> DeviceProfile {
        let arch = HOST_ISSUE_WIDTH / issue;
        DeviceProfile {
            name: name.into(),
            description: description.into(),
            clock_mhz: Some(clock),
            aes_instructions: false,
            arch_factor: arch,
            bignum_factor: bignum_factor(arch, word),
            source: source.into(),
        }
    }

    /// Seed 003's weakest AP: a Cube with a MIPS core at 324 MHz.
    pub fn cube() -> DeviceProfile {
        DeviceProfile::soft(
            "cube",
            "seed 003's Cube: 32-bit MIPS at 324 MHz, software AES",
            324.0,
            1.0,
            32,
            "clock: seed 003's device table (MIPS, 324 MHz); core: MIPS32 4K class, single-issue \
in-order five-stage pipeline (MIPS Technologies, MIPS32 4Kc core datasheet), 32-bit words",
        )
    }

    /// Seed 003's Routerboard: AMD Geode at 266 MHz.
    pub fn routerboard() -> DeviceProfile {
        DeviceProfile::soft(
            "routerboard",
            "seed 003's Routerboard RB230: Geode SC1100 (x86) at 266 MHz, software AES",
            266.0,
            1.0,
            32,
            "clock: seed 003's device table (Geode, 266 MHz); core: Geode SC1100, a GX1 core, \
single-issue in order, 'equivalent to the Intel Pentium MMX architecture' (seed 003, 5.3; AMD \
Geode SC1100 data book), 32-bit words",
        )
    }

    /// Seed 003's laptop: Pentium III at 1.4 GHz.
    pub fn laptop() -> DeviceProfile {
        DeviceProfile::soft(
            "laptop",
            "seed 003's laptop: Pentium III at 1.4 GHz, software AES",
            1400.0,
            3.0,
            32,
            "clock: seed 003's device table (Pentium 3, 1400 MHz); core: P6, decodes three x86 \
instructions per cycle (Intel Architecture Optimization Reference Manual, P6 family), 32-bit \
words",
        )
    }

    /// Seed 001's SOHO access point: a Linksys WRT54G (Broadcom MIPS32 at
    /// 200 MHz).
    pub fn wrt54g() -> DeviceProfile {
        DeviceProfile::soft(
            "wrt54g",
            "seed 001's SOHO AP: Linksys WRT54G, Broadcom MIPS32 at 200 MHz, software AES",
            200.0,
            1.0,
            32,
            "clock: seed 001 (Broadcom MIPS32, 200 MHz); core: MIPS32 4K class, single-issue in \
order (MIPS32 4Kc core datasheet), 32-bit words",
        )
    }

    /// Seed 001's client: Laptop #2, Pentium 4 at 3.2 GHz.
    pub fn pentium4() -> DeviceProfile {
        DeviceProfile::soft(
            "pentium4",
            "seed 001's client laptop: Pentium 4 at 3.2 GHz, software AES",
            3200.0,
            3.0,
            32,
            "clock: seed 001 (Pentium 4, 3.2 GHz); core: NetBurst, its trace cache delivers three \
micro-ops per cycle (Intel Pentium 4 and Xeon optimization manual), 32-bit words",
        )
    }

    /// Seed 000's machine: a Dell OptiPlex GX 960 (Core 2 at 3 GHz).
    pub fn gx960() -> DeviceProfile {
        DeviceProfile::soft(
            "gx960",
            "seed 000's Dell GX 960: Core 2 at 3 GHz, software AES",
            3000.0,
            4.0,
            64,
            "clock: seed 000 (Dell GX 960, 3 GHz); core: Core 2, four instructions per cycle like \
the host (Intel 64 and IA-32 Architectures Optimization Reference Manual), 64-bit words, no AES \
instructions (they arrived with Westmere, after Core 2)",
        )
    }

    /// Every built-in profile.
    pub fn builtin() -> Vec<DeviceProfile> {
        vec![
            DeviceProfile::host(),
            DeviceProfile::cube(),
            DeviceProfile::routerboard(),
            DeviceProfile::laptop(),
            DeviceProfile::wrt54g(),
            DeviceProfile::pentium4(),
            DeviceProfile::gx960(),
        ]
    }

    /// The built-in profile called `name`.
    pub fn by_name(name: &str) -> Option<DeviceProfile> {
        DeviceProfile::builtin()
            .into_iter()
            .find(|p| p.name == name)
    }

    fn mhz(&self, cal: &Calibration) -> f64 {
        self.clock_mhz.unwrap_or(cal.host_mhz).max(1e-3)
    }

    /// Host cycles of `op` on an MPDU of `octets` under `sec` on the code
    /// this device runs, before its architecture factor.
    pub fn host_cycles(&self, cal: &Calibration, sec: Security, op: Op, octets: usize) -> f64 {
        match sec.primitive() {
            Primitive::None => 0.0,
            Primitive::Aes if !self.aes_instructions => cal.soft_cycles(sec, op, octets),
            _ => cal.cycles(sec, op, octets),
        }
    }

    /// Virtual time this device spends on `op` of an MPDU of `octets`
    /// under `sec`, rounded to the nanosecond: the measured host cycles of
    /// the code it runs × its architecture factor ÷ its clock.
    pub fn time(&self, cal: &Calibration, sec: Security, op: Op, octets: usize) -> Time {
        let cycles = self.host_cycles(cal, sec, op, octets) * self.arch_factor.max(0.0);
        // cycles / (MHz × 1e6) s = cycles × 1000 / MHz ns.
        Time::from_ns((cycles * 1000.0 / self.mhz(cal)).round() as u64)
    }

    /// Virtual time of DiscoSec's public-key work on `curve`: `agreements`
    /// ECDH key agreements and `keygens` key-pair generations, the
    /// measured host cycles × the multi-precision factor ÷ the clock.
    pub fn ecdh_time(
        &self,
        cal: &Calibration,
        curve: Curve,
        agreements: u64,
        keygens: u64,
    ) -> Time {
        let c = cal.ecdh_cost(curve);
        let cycles = (c.agree_cycles * agreements as f64 + c.keygen_cycles * keygens as f64)
            * self.bignum_factor.max(0.0);
        Time::from_ns((cycles * 1000.0 / self.mhz(cal)).round() as u64)
    }
}

/// A node's processor: crypto work runs on it one job at a time, beside
/// a background load that takes a constant share of it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cpu {
    free_at: Time,
    busy: Time,
    load: f64,
}

impl Cpu {
    /// Sets the background load, 0 to 0.95 of the processor: a job then
    /// takes its cost ÷ (1 − load) of time (processor sharing).
    pub fn set_load(&mut self, load: f64) {
        self.load = if load.is_finite() {
            load.clamp(0.0, 0.95)
        } else {
            0.0
        };
    }

    /// Runs a job of `cost` that can start at `now`; returns when it ends.
    pub fn run(&mut self, now: Time, cost: Time) -> Time {
        let cost = if self.load > 0.0 {
            Time::from_ns((cost.as_ns() as f64 / (1.0 - self.load)).round() as u64)
        } else {
            cost
        };
        let start = self.free_at.max(now);
        self.free_at = start + cost;
        self.busy += cost;
        self.free_at
    }

    /// When the last job queued so far ends.
    pub fn free_at(&self) -> Time {
        self.free_at
    }

    /// Total time spent on jobs.
    pub fn busy(&self) -> Time {
        self.busy
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overheads_are_the_standards_header_and_trailer_bytes() {
        // 12.3.2.2: IV 4 + ICV 4; 12.5.2.2: IV/ExtIV 8 + MIC 8 + ICV 4;
        // 12.5.3.2: CCMP header 8 + MIC 8 (16 for CCMP-256); 12.5.5.2:
        // GCMP header 8 + MIC 16; DiscoSec: SEQ element (2+4... ) and MAC
        // element, 33 octets (wisec_wire::discosec::Trailer).
        let expect = [0, 8, 8, 20, 16, 24, 24, 24, 33, 33];
        for (s, e) in Security::ALL.iter().zip(expect) {
            assert_eq!(s.overhead(), e, "{s:?}");
            assert_eq!(Security::from_name(s.name()), Some(*s));
        }
    }

    #[test]
    fn device_time_scales_with_clock_and_factor() {
        let cal = Calibration::nominal();
        let host = DeviceProfile::host();
        // CCMP-128 protect of 1524 octets: 600 + 2.6 × 1524 = 4562.4
        // cycles at 3000 MHz = 1520.8 ns.
        let t = host.time(&cal, Security::Ccmp128, Op::Protect, 1524);
        assert_eq!(t, Time::from_ns(1521));
        // A device without AES instructions runs the table AES: its
        // time is the calibration's table-AES cycles × its architecture
        // factor ÷ its clock.
        let cube = DeviceProfile::cube();
        let soft = cal.soft_cycles(Security::Ccmp128, Op::Protect, 1524);
        assert_eq!(soft, 400.0 + 19.0 * 1524.0);
        let c = cube.time(&cal, Security::Ccmp128, Op::Protect, 1524);
        assert_eq!(
            c,
            Time::from_ns((soft * cube.arch_factor * 1000.0 / 324.0).round() as u64)
        );
        // Twice the clock, half the time; a wider core, less time.
        let fast = DeviceProfile {
            clock_mhz: Some(648.0),
            ..cube.clone()
        };
        let f = fast.time(&cal, Security::Ccmp128, Op::Protect, 1524);
        assert!(f.as_ns().abs_diff(c.as_ns() / 2) <= 1, "{f} {c}");
        assert!(DeviceProfile::laptop().time(&cal, Security::Ccmp128, Op::Protect, 1524) < c);
        // RC4 has no instructions anywhere: the host's cost × factor.
        let w = cube.time(&cal, Security::Wep104, Op::Protect, 1524);
        let wc = cal.cycles(Security::Wep104, Op::Protect, 1524);
        assert_eq!(
            w,
            Time::from_ns((wc * cube.arch_factor * 1000.0 / 324.0).round() as u64)
        );
        let mut cpu = Cpu::default();
        assert_eq!(
            cpu.run(Time::from_us(5), Time::from_us(2)),
            Time::from_us(7)
        );
        assert_eq!(
            cpu.run(Time::from_us(6), Time::from_us(2)),
            Time::from_us(9)
        );
        assert_eq!(
            cpu.run(Time::from_us(20), Time::from_us(1)),
            Time::from_us(21)
        );
        assert_eq!(cpu.busy(), Time::from_us(5));
        // Half the processor taken: every job takes twice its cost.
        let mut cpu = Cpu::default();
        cpu.set_load(0.5);
        assert_eq!(cpu.run(Time::ZERO, Time::from_us(3)), Time::from_us(6));
    }

    #[test]
    fn ecdh_time_is_the_measured_cost_times_the_word_and_issue_factors() {
        let cal = Calibration::nominal();
        let p256 = cal.ecdh_cost(Curve::P256);
        let host = DeviceProfile::host();
        assert_eq!(
            host.ecdh_time(&cal, Curve::P256, 1, 0),
            Time::from_ns((p256.agree_cycles * 1000.0 / 3000.0).round() as u64)
        );
        let cube = DeviceProfile::cube();
        // A 32-bit single-issue core: 4 (issue) × 4 (word size) the cycles.
        assert_eq!(cube.bignum_factor, 16.0);
        assert_eq!(
            cube.ecdh_time(&cal, Curve::P256, 1, 1),
            Time::from_ns(
                ((p256.agree_cycles + p256.keygen_cycles) * 16.0 * 1000.0 / 324.0).round() as u64
            )
        );
        // Slower clock, longer exchange; a larger curve costs more.
        let rb = DeviceProfile::routerboard();
        assert!(rb.ecdh_time(&cal, Curve::P256, 1, 0) > cube.ecdh_time(&cal, Curve::P256, 1, 0));
        assert!(cube.ecdh_time(&cal, Curve::P384, 1, 0) > cube.ecdh_time(&cal, Curve::P256, 1, 0));
        assert_eq!(host.ecdh_time(&cal, Curve::P256, 0, 0), Time::ZERO);
    }

    #[test]
    fn calibration_round_trips_and_validates() {
        let cal = Calibration::nominal();
        let s = serde_json::to_string(&cal).unwrap();
        let back: Calibration = serde_json::from_str(&s).unwrap();
        assert_eq!(back, cal);
        assert!(cal.validate().is_ok());
        let mut bad = cal.clone();
        bad.host_mhz = -1.0;
        assert!(bad.validate().is_err());
        let mut bad = cal.clone();
        bad.suites.insert("rot13".into(), SuiteCost::default());
        assert!(bad.validate().is_err());
        let mut old = cal.clone();
        old.version = 1;
        assert!(old.validate().unwrap_err().contains("calibrate"));
        let mut bad = cal.clone();
        bad.soft_aes.remove("discosec-full");
        assert!(bad.validate().is_err());
        let mut bad = cal;
        bad.ecdh.remove("p256");
        assert!(bad.validate().is_err());
    }

    #[test]
    fn measurement_gives_positive_costs_for_every_cipher() {
        let cal = Calibration::measure(50);
        assert!(cal.validate().is_ok());
        for sec in Security::ALL.iter().skip(1) {
            let c = cal.cycles(*sec, Op::Protect, 1500);
            assert!(c > 0.0, "{sec:?}: {c}");
            if sec.primitive() == Primitive::Aes {
                let s = cal.soft_cycles(*sec, Op::Protect, 1500);
                assert!(s > 0.0, "{sec:?}: {s}");
            }
        }
        // The table AES CMACs a 1500-octet frame in more cycles than one
        // block (fast_auth).
        assert!(
            cal.soft_cycles(Security::DiscosecFull, Op::Unprotect, 1500)
                > cal.soft_cycles(Security::DiscosecFast, Op::Unprotect, 1500)
        );
        for c in Curve::ALL {
            assert!(cal.ecdh_cost(c).agree_cycles > 0.0, "{c:?}");
        }
    }
}
