//! Validation of the simulator against analytical references: Bianchi's
//! model for saturation, and the standard's timing for a single station.

use wisec_lab::experiment::saturation::{self, SaturationConfig};
use wisec_lab::sim::{MacConfig, Simulator};
use wisec_lab::traffic::{SaturatedSource, Sink};
use wisec_lab::{PhyProfile, PhyStandard, Rate, Time};
use wisec_wire::MacAddr;

/// Saturation throughput of 802.11b (11 Mb/s, long preamble, 1500-octet
/// IP packets) within 5% of Bianchi's model at 5, 10, 20 and 50 stations,
/// basic access and RTS/CTS, with the MAC configured as the model assumes
/// (no retry limit, DIFS after a collision, W = 32, m = 5).
#[test]
fn saturation_80211b_within_5_percent_of_bianchi() {
    let cfg = SaturationConfig {
        phy: PhyStandard::B,
        stations: vec![5, 10, 20, 50],
        access: vec![false, true],
        seconds: 8.0,
        warmup: 0.5,
        seed: 2000,
        trials: 1,
        ..Default::default()
    };
    let report = saturation::run(&cfg, &mut |_| {});
    assert_eq!(report.model.w, 32.0);
    assert_eq!(report.model.m, 5);
    assert_eq!(report.points.len(), 8);
    for p in &report.points {
        assert!(
            p.rel_error.abs() < 0.05,
            "{} stations {}: sim {:.3} Mb/s, model {:.3} Mb/s",
            p.stations,
            p.access,
            p.sim_mbps,
            p.model_mbps
        );
        // The collision probability agrees too (within 0.05 absolute).
        assert!(
            (p.sim_p - p.model_p).abs() < 0.05,
            "{} {}: p {} vs {}",
            p.stations,
            p.access,
            p.sim_p,
            p.model_p
        );
    }
    // The model's shape: basic access loses more to collisions as n grows,
    // RTS/CTS stays nearly flat and overtakes it with 1500-octet frames
    // only at large n on 802.11b (the RTS/CTS overhead is large at 2 Mb/s).
    let get = |n: u32, a: &str| {
        report
            .points
            .iter()
            .find(|p| p.stations == n && p.access == a)
            .map(|p| p.sim_mbps)
            .unwrap()
    };
    assert!(get(50, "basic") < get(5, "basic") * 0.85);
    assert!(get(50, "rts") > get(5, "rts") * 0.9);
}

/// The same configuration with the standard's MAC (retry limits, EIFS):
/// the model with Tc from EIFS still holds within 5%.
#[test]
fn saturation_80211b_standard_mac_within_5_percent() {
    let mut cfg = SaturationConfig {
        stations: vec![10, 50],
        access: vec![false],
        seconds: 5.0,
        seed: 7,
        ..Default::default()
    };
    cfg.set_model_assumptions(false);
    let report = saturation::run(&cfg, &mut |_| {});
    for p in &report.points {
        assert!(p.rel_error.abs() < 0.05, "{p:?}");
    }
}

fn addr(i: u8) -> MacAddr {
    MacAddr([2, 0, 0, 0, 0, i])
}

/// UDP payload goodput of one saturated station on `phy` at `rate`.
fn single_station_udp(phy: PhyProfile, rate: Rate, seconds: u64) -> f64 {
    let mut sim = Simulator::new(42);
    let ch = sim.add_channel(phy);
    let ap = sim.add_node(Sink::new());
    sim.attach(ap, ch, MacConfig::dcf(addr(1), rate));
    let sta = sim.add_node(SaturatedSource::new(addr(2), addr(1), 1500));
    sim.attach(sta, ch, MacConfig::dcf(addr(2), rate));
    let warm = Time::from_ms(200);
    sim.run_until(warm);
    let c0 = sim.node::<Sink>(ap).unwrap().counters;
    sim.run_until(warm + Time::from_secs(seconds));
    let c1 = sim.node::<Sink>(ap).unwrap().counters;
    (c1.udp_payload_octets - c0.udp_payload_octets) as f64 * 8.0 / seconds as f64
}

/// The analytical DCF maximum: UDP payload over DIFS + mean backoff
/// (CWmin / 2 slots) + DATA + SIFS + ACK. The durations are worked out
/// here by hand from the standard's TXTIME equations and constants, not
/// taken from the simulator's PHY code.
fn analytical_bps(difs: f64, cw_min: f64, slot: f64, data: f64, sifs: f64, ack: f64) -> f64 {
    let t_us = difs + cw_min / 2.0 * slot + data + sifs + ack;
    1472.0 * 8.0 / (t_us * 1e-6)
}

#[test]
fn single_station_udp_80211b_within_5_percent_of_the_dcf_maximum() {
    // MPDU: 24 header + 8 LLC/SNAP + 1500 IP + 4 FCS = 1536 octets.
    // 16.3.4: 192 µs long PLCP + ceil(1536 × 8 / 11) = 1118 µs.
    // Ack: 14 octets at 2 Mb/s (highest basic rate ≤ 11): 192 + 56.
    // DIFS = 10 + 2 × 20 = 50 µs; CWmin 31.
    let expect = analytical_bps(50.0, 31.0, 20.0, 192.0 + 1118.0, 10.0, 248.0);
    let got = single_station_udp(PhyProfile::b(), Rate::CCK_11, 5);
    assert!(
        ((got - expect) / expect).abs() < 0.05,
        "got {got}, expected {expect}"
    );
    // Short preamble: 96 µs PLCP, Ack 96 + 56.
    let expect = analytical_bps(50.0, 31.0, 20.0, 96.0 + 1118.0, 10.0, 152.0);
    let got = single_station_udp(PhyProfile::b_short(), Rate::CCK_11, 5);
    assert!(
        ((got - expect) / expect).abs() < 0.05,
        "got {got}, expected {expect}"
    );
    // 1 Mb/s: 192 + 12288 µs, Ack at 1 Mb/s 304 µs.
    let expect = analytical_bps(50.0, 31.0, 20.0, 192.0 + 12288.0, 10.0, 304.0);
    let got = single_station_udp(PhyProfile::b(), Rate::DSSS_1, 10);
    assert!(
        ((got - expect) / expect).abs() < 0.05,
        "got {got}, expected {expect}"
    );
}

#[test]
fn single_station_udp_80211g_within_5_percent_of_the_dcf_maximum() {
    // 18.5.3 / 17.4.3: 20 µs + 4 µs × ceil((16 + 12288 + 6) / 216) = 57
    // symbols, + 6 µs signal extension = 254 µs. Ack at 24 Mb/s: 20 + 4 ×
    // ceil(134 / 96) + 6 = 34 µs. SIFS 10, slot 9, DIFS 28, CWmin 15.
    let expect = analytical_bps(28.0, 15.0, 9.0, 254.0, 10.0, 34.0);
    let got = single_station_udp(PhyProfile::g(), Rate::OFDM_54, 3);
    assert!(
        ((got - expect) / expect).abs() < 0.05,
        "got {got}, expected {expect}"
    );
    // 6 Mb/s: 20 + 4 × ceil(12310 / 24) = 20 + 2052, + 6; Ack at 6 Mb/s
    // 44 + 6.
    let expect = analytical_bps(28.0, 15.0, 9.0, 2078.0, 10.0, 50.0);
    let got = single_station_udp(PhyProfile::g(), Rate::OFDM_6, 3);
    assert!(
        ((got - expect) / expect).abs() < 0.05,
        "got {got}, expected {expect}"
    );
    // A wrong PHY is caught: 802.11a timing (SIFS 16, no extension) gives
    // a different maximum than the 802.11g one above.
    let a = single_station_udp(PhyProfile::a(), Rate::OFDM_54, 3);
    let g_expect = analytical_bps(28.0, 15.0, 9.0, 254.0, 10.0, 34.0);
    let a_expect = analytical_bps(34.0, 15.0, 9.0, 248.0, 16.0, 28.0);
    assert!(
        ((a - a_expect) / a_expect).abs() < 0.05,
        "{a} vs {a_expect}"
    );
    assert!((a - g_expect).abs() > 0.001 * g_expect);
}

/// Same configuration and seed: identical JSON. Another seed: different
/// numbers.
#[test]
fn same_seed_same_results() {
    let cfg = SaturationConfig {
        stations: vec![3, 8],
        access: vec![false, true],
        seconds: 0.5,
        warmup: 0.1,
        seed: 99,
        trials: 2,
        ..Default::default()
    };
    let a = serde_json::to_string(&saturation::run(&cfg, &mut |_| {})).unwrap();
    let b = serde_json::to_string(&saturation::run(&cfg, &mut |_| {})).unwrap();
    assert_eq!(a, b);
    let other = SaturationConfig { seed: 100, ..cfg };
    let c = serde_json::to_string(&saturation::run(&other, &mut |_| {})).unwrap();
    assert_ne!(a, c);
    // Trials of one point differ from each other (their seeds do).
    let r = saturation::run(&other, &mut |_| {});
    assert_ne!(r.runs[0].seed, r.runs[1].seed);
    assert_ne!(r.runs[0].sim_mbps, r.runs[1].sim_mbps);
}
