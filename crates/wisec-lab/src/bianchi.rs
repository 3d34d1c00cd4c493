//! Bianchi's analytical model of DCF saturation throughput.
//!
//! G. Bianchi, "Performance Analysis of the IEEE 802.11 Distributed
//! Coordination Function", IEEE JSAC 18(3), 2000. With `n` saturated
//! stations, minimum window `W` (= CWmin + 1) and `m` backoff stages
//! (CWmax + 1 = 2^m W), the probability τ that a station transmits in a
//! slot and the probability p that its transmission collides solve
//!
//! - τ = 2(1 − 2p) / ((1 − 2p)(W + 1) + pW(1 − (2p)^m))   (eq. 7)
//! - p = 1 − (1 − τ)^(n − 1)                              (eq. 9)
//!
//! and the throughput is S = Ps·Ptr·E\[P\] / ((1 − Ptr)σ + Ptr·Ps·Ts +
//! Ptr(1 − Ps)·Tc) (eq. 13) with Ptr = 1 − (1 − τ)^n and Ps = nτ(1 −
//! τ)^(n−1) / Ptr. The model has no retry limit.

use crate::phy::{PhyTiming, Rate, ACK_LEN, RTS_LEN};
use crate::time::Time;
use serde::{Deserialize, Serialize};

/// τ as a function of p (eq. 7), written as 2 / (1 + W + pW Σ_{i<m}
/// (2p)^i), which equals eq. 7 and has no 0/0 at p = 1/2.
pub fn tau_of_p(p: f64, w: f64, m: u32) -> f64 {
    let mut sum = 0.0;
    let mut term = 1.0;
    for _ in 0..m {
        sum += term;
        term *= 2.0 * p;
    }
    2.0 / (1.0 + w + p * w * sum)
}

/// The fixed point (τ, p) for `n` stations, by bisection on p: the
/// function p ↦ 1 − (1 − τ(p))^(n−1) − p decreases from a non-negative
/// value at p = 0 to a negative one at p = 1.
pub fn fixed_point(n: u32, w: f64, m: u32) -> (f64, f64) {
    if n <= 1 {
        return (tau_of_p(0.0, w, m), 0.0);
    }
    let g = |p: f64| 1.0 - (1.0 - tau_of_p(p, w, m)).powi(n as i32 - 1) - p;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let p = 0.5 * (lo + hi);
    (tau_of_p(p, w, m), p)
}

/// The durations the model needs, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ModelTiming {
    /// σ: the empty slot.
    pub slot: f64,
    /// Ts: a successful transmission, IFS included.
    pub ts: f64,
    /// Tc: a collision, IFS included.
    pub tc: f64,
    /// E\[P\]: payload bits per successful transmission.
    pub payload_bits: f64,
}

impl ModelTiming {
    /// The timing of the DCF on `phy` for frames whose PSDU is `psdu_len`
    /// octets at `rate` carrying `payload_octets` of payload, with basic
    /// access or RTS/CTS (δ = 0: the simulator has no propagation delay):
    ///
    /// - basic: Ts = DATA + SIFS + ACK + DIFS, Tc = DATA + DIFS;
    /// - RTS/CTS: Ts = RTS + SIFS + CTS + SIFS + DATA + SIFS + ACK + DIFS,
    ///   Tc = RTS + DIFS;
    ///
    /// with EIFS in place of DIFS in Tc when `eifs` (the stations that were
    /// not in the collision saw an erroneous frame, 10.3.2.3.7).
    pub fn dcf(
        phy: &dyn PhyTiming,
        psdu_len: usize,
        payload_octets: usize,
        rate: Rate,
        rts: bool,
        eifs: bool,
    ) -> ModelTiming {
        let s = |t: Time| t.as_secs_f64();
        let resp = phy.response_rate(rate);
        let data = phy.ppdu_duration(psdu_len, rate);
        let ack = phy.ppdu_duration(ACK_LEN, resp);
        let sifs = phy.sifs();
        let difs = phy.difs();
        let after_collision = if eifs { phy.eifs() } else { difs };
        let (ts, tc) = if rts {
            let rts_t = phy.ppdu_duration(RTS_LEN, resp);
            let cts_t = phy.ppdu_duration(ACK_LEN, phy.response_rate(resp));
            (
                rts_t + sifs + cts_t + sifs + data + sifs + ack + difs,
                rts_t + after_collision,
            )
        } else {
            (data + sifs + ack + difs, data + after_collision)
        };
        ModelTiming {
            slot: s(phy.slot()),
            ts: s(ts),
            tc: s(tc),
            payload_bits: 8.0 * payload_octets as f64,
        }
    }
}

/// The model's answer for one station count.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ModelResult {
    /// Stations.
    pub n: u32,
    /// τ.
    pub tau: f64,
    /// p.
    pub p: f64,
    /// Ptr.
    pub p_tr: f64,
    /// Ps.
    pub p_s: f64,
    /// Saturation throughput in bit/s.
    pub throughput_bps: f64,
}

/// Saturation throughput for `n` stations (eq. 13).
pub fn throughput(n: u32, w: f64, m: u32, t: &ModelTiming) -> ModelResult {
    let (tau, p) = fixed_point(n, w, m);
    let nf = f64::from(n.max(1));
    let p_tr = 1.0 - (1.0 - tau).powf(nf);
    let p_s = if p_tr > 0.0 {
        nf * tau * (1.0 - tau).powf(nf - 1.0) / p_tr
    } else {
        0.0
    };
    let denom = (1.0 - p_tr) * t.slot + p_tr * p_s * t.ts + p_tr * (1.0 - p_s) * t.tc;
    let throughput_bps = if denom > 0.0 {
        p_s * p_tr * t.payload_bits / denom
    } else {
        0.0
    };
    ModelResult {
        n,
        tau,
        p,
        p_tr,
        p_s,
        throughput_bps,
    }
}

/// W and m for a contention window from `cw_min` to `cw_max`: W = CWmin +
/// 1 and m = log2((CWmax + 1) / W), rounded down.
pub fn window(cw_min: u32, cw_max: u32) -> (f64, u32) {
    let w = u64::from(cw_min) + 1;
    let mut m = 0;
    while (w << (m + 1)) <= u64::from(cw_max) + 1 {
        m += 1;
    }
    (w as f64, m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::PhyProfile;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-300)
    }

    #[test]
    fn tau_matches_eq7_away_from_one_half() {
        for &p in &[0.0, 0.1, 0.3, 0.49, 0.51, 0.7, 0.95] {
            for &(w, m) in &[(32.0, 5u32), (16.0, 6), (128.0, 3)] {
                let eq7 = 2.0 * (1.0 - 2.0 * p)
                    / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0f64 * p).powi(m as i32)));
                assert!(close(tau_of_p(p, w, m), eq7, 1e-12), "p={p} w={w} m={m}");
            }
        }
    }

    #[test]
    fn fixed_point_solves_both_equations() {
        for n in [2u32, 5, 10, 20, 50] {
            let (tau, p) = fixed_point(n, 32.0, 5);
            assert!(close(tau, tau_of_p(p, 32.0, 5), 1e-9));
            assert!(close(p, 1.0 - (1.0 - tau).powi(n as i32 - 1), 1e-9));
            assert!(p > 0.0 && p < 1.0);
        }
        // More stations, more collisions.
        assert!(fixed_point(50, 32.0, 5).1 > fixed_point(10, 32.0, 5).1);
        assert_eq!(fixed_point(1, 32.0, 5), (2.0 / 33.0, 0.0));
    }

    #[test]
    fn reproduces_bianchi_2000_figure() {
        // The paper's FHSS parameters (Table II): 1 Mb/s, payload 8184
        // bits, MAC header 272, PHY header 128, Ack 112 + PHY header,
        // RTS 160 + PHY, CTS 112 + PHY, slot 50 µs, SIFS 28 µs, DIFS 128
        // µs, δ = 1 µs. Eq. 14/15 give Ts and Tc; the paper's Fig. 6 shows
        // basic access with W = 32, m = 3 and RTS/CTS with W = 32, m = 3
        // near 0.8 and 0.84 of the 1 Mb/s channel at n = 10 and 50, and
        // the basic curve falling under the RTS one as n grows.
        let (h, p, ack, rts, cts) = (400.0, 8184.0, 240.0, 288.0, 240.0);
        let (sifs, difs, d) = (28.0, 128.0, 1.0);
        let us = 1e-6;
        let basic = ModelTiming {
            slot: 50.0 * us,
            ts: (h + p + sifs + d + ack + difs + d) * us,
            tc: (h + p + difs + d) * us,
            payload_bits: p,
        };
        let rtscts = ModelTiming {
            slot: 50.0 * us,
            ts: (rts + sifs + d + cts + sifs + d + h + p + sifs + d + ack + difs + d) * us,
            tc: (rts + difs + d) * us,
            payload_bits: p,
        };
        let b10 = throughput(10, 32.0, 3, &basic).throughput_bps / 1e6;
        let b50 = throughput(50, 32.0, 3, &basic).throughput_bps / 1e6;
        let r50 = throughput(50, 32.0, 3, &rtscts).throughput_bps / 1e6;
        assert!(b10 > 0.75 && b10 < 0.85, "{b10}");
        assert!(b50 < b10);
        assert!(r50 > b50 && r50 > 0.8 && r50 < 0.88, "{r50}");
    }

    #[test]
    fn windows() {
        assert_eq!(window(31, 1023), (32.0, 5));
        assert_eq!(window(15, 1023), (16.0, 6));
        assert_eq!(window(15, 15), (16.0, 0));
    }

    #[test]
    fn dcf_timing_for_80211b() {
        let b = PhyProfile::b();
        // 1536-octet PSDU at 11 Mb/s: 1310 µs; Ack at 2 Mb/s 248 µs;
        // SIFS 10, DIFS 50; RTS (20 octets) and CTS at 2 Mb/s: 272, 248.
        let t = ModelTiming::dcf(&b, 1536, 1508, Rate::CCK_11, false, false);
        assert!(close(t.ts, (1310.0 + 10.0 + 248.0 + 50.0) * 1e-6, 1e-12));
        assert!(close(t.tc, (1310.0 + 50.0) * 1e-6, 1e-12));
        let t = ModelTiming::dcf(&b, 1536, 1508, Rate::CCK_11, true, false);
        assert!(close(
            t.ts,
            (272.0 + 10.0 + 248.0 + 10.0 + 1310.0 + 10.0 + 248.0 + 50.0) * 1e-6,
            1e-12
        ));
        assert!(close(t.tc, (272.0 + 50.0) * 1e-6, 1e-12));
        let t = ModelTiming::dcf(&b, 1536, 1508, Rate::CCK_11, false, true);
        assert!(close(t.tc, (1310.0 + 364.0) * 1e-6, 1e-12));
    }
}
