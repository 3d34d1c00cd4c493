//! How fast the clock runs, to turn nanoseconds into cycles.
//!
//! The time-stamp counter is read against the monotonic clock for a short
//! while; with an invariant TSC (`constant_tsc` and `nonstop_tsc` in
//! `/proc/cpuinfo`) that rate is the reference clock, and cycles computed
//! from it are reference cycles (a core running above its base clock does
//! more core cycles in the same time). Without an invariant TSC the
//! `cpu MHz` line of `/proc/cpuinfo` is used, else no cycles are reported.

use serde::Serialize;
use std::time::{Duration, Instant};

/// The clock the cycles/byte figures are based on.
#[derive(Debug, Clone, Serialize)]
pub struct Clock {
    /// Where `ghz` came from: `tsc`, `proc-cpuinfo` or `none`.
    pub source: &'static str,
    /// Cycles per nanosecond, when known.
    pub ghz: Option<f64>,
    /// The TSC rate measured against the monotonic clock.
    pub tsc_ghz: Option<f64>,
    /// Whether `/proc/cpuinfo` lists an invariant TSC.
    pub invariant_tsc: bool,
    /// The first `cpu MHz` of `/proc/cpuinfo`, in GHz.
    pub cpuinfo_ghz: Option<f64>,
    /// How `ghz` was found, in words.
    pub method: String,
}

/// Measures the TSC rate over `window` and picks the clock.
pub fn estimate(window: Duration) -> Clock {
    let tsc_ghz = measure_tsc(window);
    let invariant_tsc = wisec_peers::tsc::invariant();
    let cpuinfo_ghz = cpuinfo_mhz().map(|m| m / 1000.0);
    match (tsc_ghz, invariant_tsc, cpuinfo_ghz) {
        (Some(g), true, _) => Clock {
            source: "tsc",
            ghz: Some(g),
            tsc_ghz,
            invariant_tsc,
            cpuinfo_ghz,
            method: format!(
                "invariant TSC measured against the monotonic clock over {} ms: \
                 reference cycles",
                window.as_millis()
            ),
        },
        (_, _, Some(g)) => Clock {
            source: "proc-cpuinfo",
            ghz: Some(g),
            tsc_ghz,
            invariant_tsc,
            cpuinfo_ghz,
            method: "cpu MHz of /proc/cpuinfo (no invariant TSC)".to_string(),
        },
        _ => Clock {
            source: "none",
            ghz: None,
            tsc_ghz,
            invariant_tsc,
            cpuinfo_ghz,
            method: "no clock rate known: cycles/byte not reported".to_string(),
        },
    }
}

fn measure_tsc(window: Duration) -> Option<f64> {
    let t0 = Instant::now();
    let c0 = wisec_peers::tsc::read()?;
    // Spin rather than sleep so that the core stays busy, as in a benchmark.
    while t0.elapsed() < window {
        std::hint::spin_loop();
    }
    let c1 = wisec_peers::tsc::read()?;
    let ns = t0.elapsed().as_nanos() as f64;
    let ghz = c1.checked_sub(c0)? as f64 / ns;
    (ghz.is_finite() && ghz > 0.05).then_some(ghz)
}

fn cpuinfo_mhz() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    parse_cpuinfo_field(&s, "cpu MHz")?.parse().ok()
}

/// The CPU model name of `/proc/cpuinfo`.
pub fn cpu_model() -> Option<String> {
    let s = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    parse_cpuinfo_field(&s, "model name").map(str::to_string)
}

/// The CPU features of `/proc/cpuinfo` that matter to AES code paths.
pub fn aes_features() -> Vec<String> {
    let Ok(s) = std::fs::read_to_string("/proc/cpuinfo") else {
        return Vec::new();
    };
    let flags = parse_cpuinfo_field(&s, "flags").unwrap_or("");
    let have: Vec<&str> = flags.split_whitespace().collect();
    ["aes", "pclmulqdq", "avx2", "avx512f", "vaes", "vpclmulqdq"]
        .into_iter()
        .filter(|f| have.contains(f))
        .map(str::to_string)
        .collect()
}

fn parse_cpuinfo_field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then_some(v.trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpuinfo_fields() {
        let text = "processor\t: 0\nmodel name\t: Some CPU @ 2.00GHz\ncpu MHz\t\t: 1999.999\n";
        assert_eq!(
            parse_cpuinfo_field(text, "model name"),
            Some("Some CPU @ 2.00GHz")
        );
        assert_eq!(parse_cpuinfo_field(text, "cpu MHz"), Some("1999.999"));
        assert_eq!(parse_cpuinfo_field(text, "flags"), None);
    }

    #[test]
    fn estimate_reports_its_source() {
        let c = estimate(Duration::from_millis(2));
        match c.source {
            "tsc" => assert!(c.invariant_tsc && c.ghz == c.tsc_ghz),
            "proc-cpuinfo" => assert!(c.ghz == c.cpuinfo_ghz),
            _ => assert!(c.ghz.is_none()),
        }
        if let Some(g) = c.ghz {
            assert!(g > 0.05 && g < 20.0, "{g}");
        }
    }
}
