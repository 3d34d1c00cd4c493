//! The saturation simulator against Bianchi's model, where the model is
//! computed here, independently of the crate (its `bianchi` and `phy`
//! modules are not used): the frame durations are worked out from the
//! TXTIME equations of IEEE Std 802.11-2020 and the constants it prints,
//! and the fixed point is solved by its own bisection.
//!
//! Configurations (as other simulators and analyses commonly use them):
//!
//! - 802.11b at 11 Mb/s, long preamble, BSSBasicRateSet {1 Mb/s}, so Ack,
//!   CTS and RTS go at 1 Mb/s (10.6.6);
//! - 802.11g (ERP only) at 54 Mb/s, BSSBasicRateSet {6 Mb/s}, so control
//!   frames go at 6 Mb/s;
//!
//! 1500 octets of UDP payload per frame (1528-octet IP packets), the
//! throughput counting UDP payload, n = 1, 5, 10, 20, 50 saturated
//! stations, basic access and RTS/CTS, the MAC as the model assumes (no
//! retry limit, DIFS after a collision), no propagation delay.
//!
//! Every point must be within 2% of the model. The debug-build tests run
//! 2.5 virtual seconds per point for 802.11b and 1.5 for 802.11g (about
//! 1,200 and 4,000 successful frames at n = 50) after 0.3 s of warm-up; the
//! full run (10 s per point) is `wisec lab run saturation` with the
//! settings printed in README.md ("Validation against Bianchi's model").

use wisec_lab::experiment::saturation::{self, CollisionIfs, Counted, SaturationConfig};
use wisec_lab::{PhyStandard, Rate};

/// The model's fixed point for `n` stations, window `w` = CWmin + 1 and
/// `m` backoff stages: τ from eq. (7) of Bianchi (2000), p from eq. (9),
/// found by bisection on τ ∈ (0, 1).
fn tau_p(n: u32, w: f64, m: i32) -> (f64, f64) {
    let tau_of_p = |p: f64| {
        // Eq. (7); at p = 1/2 exactly its limit 2 / (W + 1 + W m / 2).
        if (1.0 - 2.0 * p).abs() < 1e-12 {
            return 2.0 / (w + 1.0 + w * f64::from(m) / 2.0);
        }
        2.0 * (1.0 - 2.0 * p) / ((1.0 - 2.0 * p) * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(m)))
    };
    let p_of_tau = |t: f64| 1.0 - (1.0 - t).powi(n as i32 - 1);
    if n == 1 {
        return (tau_of_p(0.0), 0.0);
    }
    // h(τ) = τ − τ(p(τ)) rises from −τ(0) < 0 at τ = 0 to > 0 at τ = 1.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if mid - tau_of_p(p_of_tau(mid)) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let tau = 0.5 * (lo + hi);
    (tau, p_of_tau(tau))
}

/// Eq. (13): S = Ps Ptr E[P] / ((1 − Ptr) σ + Ptr Ps Ts + Ptr (1 − Ps) Tc),
/// in Mb/s, durations in µs.
fn bianchi_mbps(n: u32, w: f64, m: i32, slot: f64, ts: f64, tc: f64, payload_bits: f64) -> f64 {
    let (tau, _) = tau_p(n, w, m);
    let nf = f64::from(n);
    let ptr = 1.0 - (1.0 - tau).powf(nf);
    let ps = nf * tau * (1.0 - tau).powf(nf - 1.0) / ptr;
    ps * ptr * payload_bits / ((1.0 - ptr) * slot + ptr * ps * ts + ptr * (1.0 - ps) * tc)
}

/// DSSS/CCK TXTIME (16.3.4, long PPDU format): 192 µs of PLCP preamble
/// and header, then ceiling(8 × octets / Mb/s) µs.
fn dsss_us(octets: u32, mbps: f64) -> f64 {
    192.0 + (8.0 * f64::from(octets) / mbps).ceil()
}

/// ERP-OFDM TXTIME (18.5.3 with 17.4.3): 16 µs preamble + 4 µs SIGNAL +
/// 4 µs × ceiling((16 + 8 × octets + 6) / N_DBPS), N_DBPS = 4 × Mb/s, plus
/// the 6 µs signal extension.
fn erp_us(octets: u32, mbps: f64) -> f64 {
    20.0 + 4.0 * ((16.0 + 8.0 * f64::from(octets) + 6.0) / (4.0 * mbps)).ceil() + 6.0
}

/// MPDU of a data frame carrying 1500 octets of UDP payload: 24 octets of
/// MAC header, 8 of LLC/SNAP, 20 of IPv4, 8 of UDP, 1500, 4 of FCS.
const DATA: u32 = 24 + 8 + 20 + 8 + 1500 + 4;
/// Ack and CTS (9.3.1.3, 9.3.1.4) and RTS (9.3.1.2) with FCS.
const ACK: u32 = 14;
const RTS: u32 = 20;

struct Phy {
    slot: f64,
    sifs: f64,
    w: f64,
    m: i32,
    data: f64,
    ack: f64,
    rts: f64,
}

impl Phy {
    /// (Ts, Tc) for basic access or RTS/CTS, DIFS after a collision, δ = 0.
    fn ts_tc(&self, rts: bool) -> (f64, f64) {
        let difs = self.sifs + 2.0 * self.slot;
        let cts = self.ack;
        if rts {
            (
                self.rts + self.sifs + cts + self.sifs + self.data + self.sifs + self.ack + difs,
                self.rts + difs,
            )
        } else {
            (self.data + self.sifs + self.ack + difs, self.data + difs)
        }
    }
}

/// 802.11b: slot 20 µs, SIFS 10 µs, aCWmin 31, aCWmax 1023 (Table 15-5 /
/// 16-4): W = 32, CWmax + 1 = 2^5 W.
fn phy_b() -> Phy {
    Phy {
        slot: 20.0,
        sifs: 10.0,
        w: 32.0,
        m: 5,
        data: dsss_us(DATA, 11.0),
        ack: dsss_us(ACK, 1.0),
        rts: dsss_us(RTS, 1.0),
    }
}

/// 802.11g, ERP stations only: slot 9 µs, SIFS 10 µs, aCWmin 15, aCWmax
/// 1023 (Table 18-5): W = 16, CWmax + 1 = 2^6 W.
fn phy_g() -> Phy {
    Phy {
        slot: 9.0,
        sifs: 10.0,
        w: 16.0,
        m: 6,
        data: erp_us(DATA, 54.0),
        ack: erp_us(ACK, 6.0),
        rts: erp_us(RTS, 6.0),
    }
}

fn config(phy: PhyStandard, basic: Rate, stations: Vec<u32>, seconds: f64) -> SaturationConfig {
    SaturationConfig {
        phy,
        short_preamble: false,
        rate: None,
        stations,
        access: vec![false, true],
        seconds,
        warmup: 0.3,
        seed: 17,
        trials: 1,
        ip_len: 1528,
        basic_rates: Some(vec![basic]),
        short_retry_limit: None,
        long_retry_limit: None,
        collision_ifs: CollisionIfs::Difs,
        throughput: Counted::Udp,
    }
}

fn check(phy: &Phy, cfg: &SaturationConfig) {
    let report = saturation::run(cfg, &mut |_| {});
    assert_eq!(report.points.len(), 2 * cfg.stations.len());
    for p in &report.points {
        let rts = p.access == "rts";
        let (ts, tc) = phy.ts_tc(rts);
        let model = bianchi_mbps(p.stations, phy.w, phy.m, phy.slot, ts, tc, 12_000.0);
        let err = (p.sim_mbps - model) / model;
        let line = format!(
            "{:?} n={:>2} {:<5} sim {:.4} Mb/s, independent model {:.4} Mb/s, {:+.2}%",
            cfg.phy,
            p.stations,
            p.access,
            p.sim_mbps,
            model,
            100.0 * err
        );
        eprintln!("{line}");
        assert!(err.abs() < 0.02, "{line}");
    }
}

#[test]
fn the_test_model_has_the_known_shape() {
    // Bianchi (2000), Table/Fig. values for W = 32, m = 5 are not printed
    // with enough digits to assert; check the fixed point's defining
    // equations and its limits instead.
    let (tau1, p1) = tau_p(1, 32.0, 5);
    assert!((tau1 - 2.0 / 33.0).abs() < 1e-12 && p1 == 0.0);
    for n in [2, 10, 50] {
        let (tau, p) = tau_p(n, 32.0, 5);
        assert!((p - (1.0 - (1.0 - tau).powi(n as i32 - 1))).abs() < 1e-9);
        let rhs =
            2.0 * (1.0 - 2.0 * p) / ((1.0 - 2.0 * p) * 33.0 + p * 32.0 * (1.0 - (2.0 * p).powi(5)));
        assert!((tau - rhs).abs() < 1e-9, "n={n}");
    }
    // Worked durations: 1564 octets at 11 Mb/s = 192 + ceil(1137.45) µs;
    // an Ack at 1 Mb/s 304 µs; at 54 Mb/s ceil(12534 / 216) = 59 symbols.
    assert_eq!(dsss_us(DATA, 11.0), 1330.0);
    assert_eq!(dsss_us(ACK, 1.0), 304.0);
    assert_eq!(erp_us(DATA, 54.0), 20.0 + 4.0 * 59.0 + 6.0);
    assert_eq!(erp_us(ACK, 6.0), 50.0);
    assert_eq!(erp_us(RTS, 6.0), 58.0);
}

#[test]
fn saturation_80211b_11_mbps_control_at_1_mbps_within_2_percent_of_bianchi() {
    let cfg = config(PhyStandard::B, Rate::DSSS_1, vec![1, 5, 10, 20, 50], 2.5);
    check(&phy_b(), &cfg);
}

#[test]
fn saturation_80211g_54_mbps_control_at_6_mbps_within_2_percent_of_bianchi() {
    let cfg = config(PhyStandard::G, Rate::OFDM_6, vec![1, 5, 10, 20, 50], 1.5);
    check(&phy_g(), &cfg);
}
