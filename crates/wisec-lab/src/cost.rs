//! The cost of crypto in virtual time.
//!
//! Every protect and unprotect in the lab is really performed on the real
//! frame; what it costs in virtual time comes from a per-suite linear model
//! measured on the host ([`Calibration`]): `cycles = per_frame + per_byte ×
//! octets`, with host cycles = host nanoseconds × the host's clock in GHz.
//! A node's [`DeviceProfile`] turns host cycles into its own time: it
//! multiplies them by a cycles-per-byte factor for the suite's primitive
//! (AES or RC4; the host is 1) and divides by its clock.
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
use wisec_proto::discosec::{AuthMode, MasterKey, Session};

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

/// The measured cost model of the host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Format version (1).
    pub version: u32,
    /// How it was obtained ("measured", "nominal", a file name...).
    pub source: String,
    /// The host clock used to turn nanoseconds into cycles, MHz.
    pub host_mhz: f64,
    /// Per suite, by [`Security::name`].
    pub suites: BTreeMap<String, SuiteCost>,
}

impl Calibration {
    /// A fixed calibration with round figures close to a 3 GHz x86-64
    /// with AES instructions (for tests and for runs that must not depend
    /// on the machine): RC4 suites ~6 cycles/octet, AES suites 2-4.
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
        Calibration {
            version: 1,
            source: "nominal".into(),
            host_mhz: 3000.0,
            suites,
        }
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
        for sec in Security::ALL {
            suites.insert(
                sec.name().to_string(),
                measure_suite(sec, per_suite, host_mhz),
            );
        }
        Calibration {
            version: 1,
            source: "measured".into(),
            host_mhz,
            suites,
        }
    }

    /// Checks the values of a calibration read from a file.
    pub fn validate(&self) -> Result<(), String> {
        if self.version != 1 {
            return Err(format!("version {} (this build reads 1)", self.version));
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
    let fit = |t: [f64; 2], small: usize, large: usize| {
        let per_byte = ((t[1] - t[0]) / (large - small) as f64).max(0.0);
        let per_frame = (t[0] - per_byte * small as f64).max(0.0);
        OpCost {
            cycles_per_frame: per_frame * ghz,
            cycles_per_byte: per_byte * ghz,
        }
    };
    let (s, l) = (24 + SMALL, 24 + LARGE);
    SuiteCost {
        protect: fit(pt, s, l),
        unprotect: fit(ut, s, l),
    }
}

/// A device class: a clock and how many times more cycles per octet than
/// the host it needs for AES and for RC4.
///
/// The factors of the built-in profiles are estimates for software
/// implementations on those processors set against a host with AES
/// instructions (the reference machine of DESIGN.md): table-driven
/// software AES costs tens of cycles per octet on 32-bit cores of that era
/// against about one with AES instructions, while RC4 is a byte loop
/// everywhere. Define your own with measured figures where you have them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceProfile {
    /// Name (`host`, `cube`, ...).
    pub name: String,
    /// What it stands for.
    pub description: String,
    /// Clock in MHz; `None` for the host's own (the calibration's).
    pub clock_mhz: Option<f64>,
    /// Cycles-per-octet factor for AES relative to the host.
    pub aes_factor: f64,
    /// Cycles-per-octet factor for RC4 relative to the host.
    pub rc4_factor: f64,
}

impl DeviceProfile {
    /// The machine running the lab, as calibrated.
    pub fn host() -> DeviceProfile {
        DeviceProfile {
            name: "host".into(),
            description: "the machine running the lab, as calibrated".into(),
            clock_mhz: None,
            aes_factor: 1.0,
            rc4_factor: 1.0,
        }
    }

    /// Seed 003's weakest AP: a Cube with a MIPS core at 324 MHz.
    pub fn cube() -> DeviceProfile {
        DeviceProfile {
            name: "cube".into(),
            description: "seed 003's Cube: MIPS at 324 MHz, software AES".into(),
            clock_mhz: Some(324.0),
            aes_factor: 20.0,
            rc4_factor: 2.0,
        }
    }

    /// Seed 003's Routerboard: AMD Geode at 266 MHz.
    pub fn routerboard() -> DeviceProfile {
        DeviceProfile {
            name: "routerboard".into(),
            description: "seed 003's Routerboard: AMD Geode (x86) at 266 MHz".into(),
            clock_mhz: Some(266.0),
            aes_factor: 14.0,
            rc4_factor: 1.5,
        }
    }

    /// Seed 003's laptop: Pentium III at 1.4 GHz.
    pub fn laptop() -> DeviceProfile {
        DeviceProfile {
            name: "laptop".into(),
            description: "seed 003's laptop: Pentium III at 1.4 GHz".into(),
            clock_mhz: Some(1400.0),
            aes_factor: 12.0,
            rc4_factor: 1.3,
        }
    }

    /// Seed 001's SOHO access point: a Linksys WRT54G (Broadcom MIPS32 at
    /// 200 MHz).
    pub fn wrt54g() -> DeviceProfile {
        DeviceProfile {
            name: "wrt54g".into(),
            description: "seed 001's SOHO AP: Linksys WRT54G, Broadcom MIPS32 at 200 MHz".into(),
            clock_mhz: Some(200.0),
            aes_factor: 20.0,
            rc4_factor: 2.0,
        }
    }

    /// Seed 001's client: Laptop #2, Pentium 4 at 3.2 GHz.
    pub fn pentium4() -> DeviceProfile {
        DeviceProfile {
            name: "pentium4".into(),
            description: "seed 001's client laptop: Pentium 4 at 3.2 GHz".into(),
            clock_mhz: Some(3200.0),
            aes_factor: 14.0,
            rc4_factor: 1.5,
        }
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
        ]
    }

    /// The built-in profile called `name`.
    pub fn by_name(name: &str) -> Option<DeviceProfile> {
        DeviceProfile::builtin()
            .into_iter()
            .find(|p| p.name == name)
    }

    /// Virtual time this device spends on `op` of an MPDU of `octets`
    /// under `sec`, rounded to the nanosecond.
    pub fn time(&self, cal: &Calibration, sec: Security, op: Op, octets: usize) -> Time {
        let factor = match sec.primitive() {
            Primitive::None => return Time::ZERO,
            Primitive::Aes => self.aes_factor,
            Primitive::Rc4 => self.rc4_factor,
        };
        let mhz = self.clock_mhz.unwrap_or(cal.host_mhz).max(1e-3);
        let cycles = cal.cycles(sec, op, octets) * factor.max(0.0);
        // cycles / (MHz × 1e6) s = cycles × 1000 / MHz ns.
        Time::from_ns((cycles * 1000.0 / mhz).round() as u64)
    }
}

/// A node's processor: crypto work runs on it one job at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cpu {
    free_at: Time,
    busy: Time,
}

impl Cpu {
    /// Runs a job of `cost` that can start at `now`; returns when it ends.
    pub fn run(&mut self, now: Time, cost: Time) -> Time {
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
        let cube = DeviceProfile::cube();
        // × 20 / 324 MHz.
        let c = cube.time(&cal, Security::Ccmp128, Op::Protect, 1524);
        assert_eq!(
            c,
            Time::from_ns((4562.4 * 20.0 * 1000.0 / 324.0_f64).round() as u64)
        );
        assert_eq!(
            host.time(&cal, Security::Open, Op::Protect, 1500),
            Time::ZERO
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
        let mut bad = cal;
        bad.suites.insert("rot13".into(), SuiteCost::default());
        assert!(bad.validate().is_err());
    }

    #[test]
    fn measurement_gives_positive_costs_for_every_cipher() {
        let cal = Calibration::measure(50);
        assert!(cal.validate().is_ok());
        for sec in Security::ALL.iter().skip(1) {
            let c = cal.cycles(*sec, Op::Protect, 1500);
            assert!(c > 0.0, "{sec:?}: {c}");
        }
    }
}
