//! The `configs` experiment (seed 001's Configurations 1-4 and Table 4-2)
//! in small versions, each checked against what the model must do for
//! reasons outside the simulator: a frame relayed by the AP crosses the
//! air twice; stations that cannot hear each other collide at the AP
//! unless RTS/CTS reserves the medium; a frame below the receiver's
//! sensitivity is lost as often as the standard's sensitivity figures and
//! the stated bit error curve say; and the theoretical maxima follow from the
//! standard's timing, worked out here without the crate's `phy` code.

use wisec_lab::cost::Calibration;
use wisec_lab::experiment::configs::theoretical_max;
use wisec_lab::experiment::{create, run_all, RunOptions, TrialEnv, TrialResult, Value};
use wisec_lab::{PhyProfile, Rate};

fn run(overrides: &[(&str, &str)]) -> (Vec<TrialResult>, wisec_lab::experiment::Report) {
    let opts = RunOptions {
        seed: 3,
        trials: Some(1),
        quick: false,
        overrides: overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..RunOptions::default()
    };
    let exp = create("configs", &opts).unwrap();
    let cal = Calibration::nominal();
    let mut env = TrialEnv::new(&cal);
    run_all(exp.as_ref(), &mut env, &mut |_, _, _| {}).unwrap()
}

fn metric(rs: &[TrialResult], config: u32, measure: &str, k: &str) -> f64 {
    let r = rs
        .iter()
        .find(|r| {
            r.spec.params.get("config") == Some(&Value::Int(i64::from(config)))
                && r.spec.params.get("measure") == Some(&Value::Text(measure.into()))
        })
        .unwrap_or_else(|| panic!("no trial of configuration {config}, {measure}"));
    eprintln!("{}: {:?}", r.spec.label, r.metrics);
    r.metric(k).unwrap_or_else(|| panic!("no metric {k}"))
}

/// Configuration 2 against Configuration 1: the same link, but every
/// frame goes laptop to AP and then AP to laptop, so the payload
/// throughput is at most half (and a little less, as the two senders now
/// also collide).
#[test]
fn client_to_client_through_the_ap_halves_throughput() {
    let (rs, _) = run(&[
        ("configs", "1,2"),
        ("suites", "open"),
        ("measures", "tcp,udp"),
        ("bytes", "200000"),
        ("maxima", "false"),
    ]);
    for m in ["tcp", "udp"] {
        let one = metric(&rs, 1, m, "throughput_kbps");
        let two = metric(&rs, 2, m, "throughput_kbps");
        let ratio = two / one;
        assert!(
            (0.40..=0.51).contains(&ratio),
            "{m}: {two} / {one} = {ratio}"
        );
    }
}

/// Configuration 4: the laptops do not hear each other, so the receiving
/// laptop's TCP acknowledgements collide with the sender's data at the
/// AP. With RTS/CTS the collisions fall on the short RTS frames and the
/// data frames get through.
#[test]
fn hidden_laptops_collide_and_rts_cts_protects_the_data() {
    let base = [
        ("configs", "2,4"),
        ("suites", "open"),
        ("measures", "tcp"),
        ("bytes", "100000"),
        ("maxima", "false"),
    ];
    let (plain, _) = run(&base);
    let fail = |rs: &[TrialResult], c| {
        metric(rs, c, "tcp", "laptop_data_failures") / metric(rs, c, "tcp", "laptop_data_attempts")
    };
    let hidden = fail(&plain, 4);
    let visible = fail(&plain, 2);
    assert!(
        hidden > 0.2,
        "hidden laptops: {hidden} of data frames failed"
    );
    assert!(
        hidden > 3.0 * visible,
        "hidden {hidden} against visible {visible}"
    );
    let mut with_rts = base.to_vec();
    with_rts.push(("rts", "true"));
    let (rts, _) = run(&with_rts);
    let protected = fail(&rts, 4);
    assert!(
        protected < 0.02,
        "with RTS/CTS: {protected} of data frames failed"
    );
    assert!(metric(&rts, 4, "tcp", "laptop_rts_failures") > 0.0);
    assert!(
        metric(&rts, 4, "tcp", "throughput_kbps") > metric(&plain, 4, "tcp", "throughput_kbps"),
        "RTS/CTS must pay for itself against hidden stations"
    );
}

/// Walls: Configuration 3 at 11 Mb/s with 27 dB more loss puts the laptop
/// at −77 dBm, 1 dB below 11 Mb/s's sensitivity of −76 dBm (IEEE Std
/// 802.11-2020, 16.3.8.2: 8% of 1024-octet frames lost there). The stated
/// curve: the bit error ratio at the sensitivity is 1 − 0.92^(1/8192), so
/// γ₀ = −ln(2·BER₀); 1 dB less power gives γ = γ₀·10^(−0.1), BER =
/// exp(−γ)/2, and a 1536-octet frame fails with 1 − (1 − BER)^12288 (about
/// 68%). The station's failed data frames must match it, and its
/// throughput must fall. `rate = auto` (an 802.11g PHY) must step down to
/// 12 Mb/s: its sensitivity is −79 dBm (Table 17-18), 2 dB of margin,
/// while 18 Mb/s (−77 dBm) would lose 10% of 1000-octet frames and more of
/// full ones.
#[test]
fn walls_lose_frames_as_the_sensitivity_says_and_lower_the_rate() {
    let base = [
        ("configs", "3"),
        ("suites", "open"),
        ("measures", "udp"),
        ("bytes", "500000"),
        ("maxima", "false"),
        ("rate", "11"),
    ];
    let (clear, _) = run(&base);
    let mut walled = base.to_vec();
    walled.push(("attenuation", "27"));
    let (weak, _) = run(&walled);
    assert_eq!(metric(&weak, 3, "udp", "client_dbm"), -77.0);
    let ber0 = 1.0 - 0.92f64.powf(1.0 / 8192.0);
    let gamma = -(2.0 * ber0).ln() * 10f64.powf(-0.1);
    let ber = 0.5 * (-gamma).exp();
    let expected = 1.0 - (1.0 - ber).powf(12288.0);
    let failed = metric(&weak, 3, "udp", "laptop_data_failures")
        / metric(&weak, 3, "udp", "laptop_data_attempts");
    assert!(
        (failed - expected).abs() < 0.07,
        "failed {failed}, the model says {expected}"
    );
    let before = metric(&clear, 3, "udp", "throughput_kbps");
    let after = metric(&weak, 3, "udp", "throughput_kbps");
    assert!(after < 0.8 * before, "{after} against {before}");

    let mut auto = walled.clone();
    auto.retain(|(k, _)| *k != "rate");
    auto.push(("rate", "auto"));
    let (stepped, _) = run(&auto);
    assert_eq!(metric(&stepped, 3, "udp", "client_rate_mbps"), 12.0);
    let failed = metric(&stepped, 3, "udp", "laptop_data_failures")
        / metric(&stepped, 3, "udp", "laptop_data_attempts");
    assert!(failed < 0.05, "at 12 Mb/s with 2 dB of margin: {failed}");
}

/// Table 4-2: the theoretical maximum from the standard's numbers, worked
/// out here. 802.11b, long preamble (clause 16: 192 µs PLCP preamble and
/// header, then 8 bits per octet at 11 Mb/s, rounded up to a µs), slot
/// 20 µs, SIFS 10 µs, DIFS 50 µs, CWmin 31 (mean backoff 15.5 slots), Ack
/// of 14 octets at 2 Mb/s (the highest basic rate of {1, 2} not above the
/// data rate, 10.6.6.5). 802.11g ERP-OFDM at 54 Mb/s (clause 18): 20 µs
/// preamble and SIGNAL, 4 µs symbols of 216 data bits carrying 16 service
/// bits, the PSDU and 6 tail bits, 6 µs signal extension; slot 9 µs, SIFS
/// 10 µs, CWmin 15; Ack at 24 Mb/s (96 bits per symbol). A 1500-octet
/// datagram is a 1536-octet PSDU (24 header, 8 LLC/SNAP, 4 FCS) carrying
/// 1472 octets of UDP payload; TCP carries 1460 per segment and one
/// 76-octet TCP acknowledgement frame per two segments.
#[test]
fn theoretical_maxima_follow_the_standards_timing() {
    fn dsss(octets: u64, units: u64) -> f64 {
        192.0 + (16 * octets).div_ceil(units) as f64
    }
    fn erp(octets: u64, ndbps: u64) -> f64 {
        20.0 + 4.0 * (16 + 8 * octets + 6).div_ceil(ndbps) as f64 + 6.0
    }
    let b = |octets| 50.0 + 15.5 * 20.0 + dsss(octets, 22) + 10.0 + dsss(14, 4);
    let g = |octets| 28.0 + 7.5 * 9.0 + erp(octets, 216) + 10.0 + erp(14, 96);
    for (phy, rate, t) in [
        (PhyProfile::b(), Rate::CCK_11, &b as &dyn Fn(u64) -> f64),
        (PhyProfile::g(), Rate::OFDM_54, &g),
    ] {
        let udp = 1472.0 * 8.0 / t(1536);
        let tcp = 2.0 * 1460.0 * 8.0 / (2.0 * t(1536) + t(76));
        let (lab_tcp, lab_udp) = theoretical_max(&phy, rate);
        assert!(
            (lab_udp - udp).abs() < 1e-3,
            "{rate}: {lab_udp} against {udp}"
        );
        assert!(
            (lab_tcp - tcp).abs() < 1e-3,
            "{rate}: {lab_tcp} against {tcp}"
        );
    }
    // 1928 µs per 1472 octets at 11 Mb/s: 6.108 Mb/s.
    assert!((1472.0 * 8.0 / b(1536) - 6.108).abs() < 1e-3);

    // The measured maxima of the quick run (open, one station, 100 KB):
    // below the theory by what beacons, ARP and the start cost, never
    // above it by more than the backoff draws' noise.
    let opts = RunOptions {
        seed: 2,
        quick: true,
        overrides: vec![("configs".into(), "[]".into())],
        ..RunOptions::default()
    };
    let exp = create("configs", &opts).unwrap();
    let cal = Calibration::nominal();
    let mut env = TrialEnv::new(&cal);
    let (_, report) = run_all(exp.as_ref(), &mut env, &mut |_, _, _| {}).unwrap();
    let t = report
        .tables
        .iter()
        .find(|t| t.name == "table_4_2")
        .unwrap();
    let col = |n: &str| t.column_index(n).unwrap();
    assert_eq!(t.rows.len(), 2);
    for (row, theory) in t
        .rows
        .iter()
        .zip([1472.0 * 8.0 / b(1536), 1472.0 * 8.0 / g(1536)])
    {
        let measured = row[col("measured UDP")].as_f64().unwrap();
        let ratio = measured / theory;
        assert!((0.93..=1.02).contains(&ratio), "{row:?}: {ratio}");
        assert!(row[col("seed 001 UDP")].as_f64().is_some());
    }
}
