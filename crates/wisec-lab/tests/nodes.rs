//! The lab's nodes end to end: real frames, real crypto, smoltcp hosts.
//!
//! - Every security setting connects and carries TCP, UDP and ping.
//! - On the air, each suite adds exactly its security header and trailer
//!   (the octet counts are the standard's, written out here).
//! - One station's UDP and TCP throughput through smoltcp is within 5% of
//!   the analytical DCF maximum on 802.11b and 802.11g.
//! - The same plan, seed and calibration give the same JSON.
//! - A small `overhead` run produces the seed's tables with its numbers.

use std::cell::RefCell;
use std::rc::Rc;
use wisec_lab::cost::{Calibration, Security};
use wisec_lab::experiment::overhead::{build, run, LinkScenario, STA_ADDR};
use wisec_lab::experiment::{self, RunOptions, TrialEnv};
use wisec_lab::net::Traffic;
use wisec_lab::Time;

#[test]
fn every_suite_connects_and_carries_tcp_udp_and_ping() {
    let cal = Calibration::nominal();
    for sec in Security::ALL {
        for traffic in [
            Traffic::TcpBulk { bytes: 30_000 },
            Traffic::UdpBulk {
                bytes: 14_720,
                payload: 1472,
            },
            Traffic::Ping {
                count: 3,
                interval: Time::from_ms(20),
                size: 32,
            },
        ] {
            let s = LinkScenario::new(sec, 11.0, traffic.clone(), 3).unwrap();
            let mut b = build(&s, &cal);
            let o = run(&mut b, &s);
            assert!(o.connected, "{sec:?} {traffic:?}");
            assert_eq!(o.integrity_failures, 0, "{sec:?}");
            match traffic {
                Traffic::Ping { .. } => assert_eq!(o.ping_replies, 3, "{sec:?}"),
                Traffic::UdpBulk { bytes, .. } | Traffic::TcpBulk { bytes } => {
                    assert_eq!(o.delivered, bytes, "{sec:?} {traffic:?}")
                }
                _ => {}
            }
        }
    }
}

/// The lengths of the station's data frames on the air carrying
/// `payload`-octet UDP datagrams.
fn uplink_lengths(sec: Security, payload: usize) -> Vec<usize> {
    let cal = Calibration::nominal();
    let t = Traffic::UdpBulk {
        bytes: payload as u64 * 10,
        payload,
    };
    let s = LinkScenario::new(sec, 54.0, t, 9).unwrap();
    let mut b = build(&s, &cal);
    let seen = Rc::new(RefCell::new(Vec::new()));
    let sink = Rc::clone(&seen);
    b.sim.set_observer(
        b.channel,
        Box::new(move |f| {
            for m in f.mpdus {
                // Data frames (type 2) from the station (Address 2).
                if m.len() > 200 && m[0] & 0x0c == 0x08 && m[10..16] == STA_ADDR.0 {
                    sink.borrow_mut().push(m.len());
                }
            }
        }),
    );
    let o = run(&mut b, &s);
    assert!(o.connected);
    let v = seen.borrow().clone();
    v
}

#[test]
fn each_suites_on_air_overhead_is_its_header_and_trailer() {
    // Data header 24 + LLC/SNAP 8 + IPv4 20 + UDP 8 + 1000 octets.
    let plain = 24 + 8 + 20 + 8 + 1000;
    // IEEE Std 802.11-2020: WEP IV 4 + ICV 4 (12.3.2.2); TKIP IV/Extended
    // IV 8 + Michael MIC 8 + ICV 4 (12.5.2.2); CCMP header 8 + MIC 8, or
    // 16 for CCMP-256 (12.5.3.2); GCMP header 8 + MIC 16 (12.5.5.2);
    // DiscoSec: SEQ element (2 + 3 OUI + 1 type + 4) and MAC element (2 +
    // 3 + 1 + 1 mode + 16 tag) = 33.
    let expect = [
        (Security::Open, 0),
        (Security::Wep40, 8),
        (Security::Wep104, 8),
        (Security::Tkip, 20),
        (Security::Ccmp128, 16),
        (Security::Ccmp256, 24),
        (Security::Gcmp128, 24),
        (Security::Gcmp256, 24),
        (Security::DiscosecFast, 33),
        (Security::DiscosecFull, 33),
    ];
    for (sec, extra) in expect {
        let lens = uplink_lengths(sec, 1000);
        assert!(lens.len() >= 10, "{sec:?}: {lens:?}");
        assert!(
            lens.iter().all(|&l| l == plain + extra),
            "{sec:?}: {lens:?}, expected {}",
            plain + extra
        );
    }
}

/// Throughput of one station's traffic through smoltcp, Mb/s of payload.
fn throughput(mbps: f64, traffic: Traffic) -> f64 {
    let cal = Calibration::nominal();
    let s = LinkScenario::new(Security::Open, mbps, traffic, 5).unwrap();
    let mut b = build(&s, &cal);
    let o = run(&mut b, &s);
    assert!(o.connected);
    o.throughput_mbps
}

/// DIFS + mean backoff (CWmin / 2 slots) + frame + SIFS + Ack, µs.
fn exchange(difs: f64, cw_min: f64, slot: f64, frame: f64, sifs: f64, ack: f64) -> f64 {
    difs + cw_min / 2.0 * slot + frame + sifs + ack
}

fn within(got: f64, expect: f64, what: &str) {
    assert!(
        ((got - expect) / expect).abs() < 0.05,
        "{what}: got {got:.3} Mb/s, analytical {expect:.3}"
    );
}

#[test]
fn single_station_udp_and_tcp_within_5_percent_of_the_dcf_maximum() {
    // 802.11b at 11 Mb/s, long preamble: a 1500-octet IP packet is a
    // 1536-octet PSDU, 192 + ceil(1536 × 8 / 11) = 1310 µs (16.3.4); the
    // Ack 14 octets at 2 Mb/s, 248 µs; DIFS 50, slot 20, CWmin 31, SIFS 10.
    // A TCP Ack segment (40 octets of IP) is a 76-octet PSDU: 192 + 56.
    let data = exchange(50.0, 31.0, 20.0, 1310.0, 10.0, 248.0);
    let ack = exchange(50.0, 31.0, 20.0, 248.0, 10.0, 248.0);
    let udp = 1472.0 * 8.0 / data;
    let got = throughput(
        11.0,
        Traffic::UdpBulk {
            bytes: 3_000_000,
            payload: 1472,
        },
    );
    within(got, udp, "802.11b UDP");
    // TCP: 1460 octets per segment, one Ack segment per two segments
    // (delayed acknowledgement, RFC 1122 4.2.3.2).
    let tcp = 2.0 * 1460.0 * 8.0 / (2.0 * data + ack);
    let got = throughput(11.0, Traffic::TcpBulk { bytes: 3_000_000 });
    within(got, tcp, "802.11b TCP");
    // The AP's backoff for the Ack segment runs in the same idle slots as
    // the station's: the channel pays between none and all of it.
    let no_backoff = 2.0 * 1460.0 * 8.0 / (2.0 * data + ack - 31.0 / 2.0 * 20.0);
    assert!(
        got > tcp && got < no_backoff,
        "{got} outside [{tcp}, {no_backoff}]"
    );

    // 802.11g at 54 Mb/s (ERP only): 20 + 4 × ceil((16 + 12288 + 6) / 216)
    // + 6 = 254 µs; the Ack at 24 Mb/s 34 µs; DIFS 28, slot 9, CWmin 15.
    // The TCP Ack segment: 20 + 4 × ceil((16 + 608 + 6) / 216) + 6 = 38.
    let data = exchange(28.0, 15.0, 9.0, 254.0, 10.0, 34.0);
    let ack = exchange(28.0, 15.0, 9.0, 38.0, 10.0, 34.0);
    let udp = 1472.0 * 8.0 / data;
    let got = throughput(
        54.0,
        Traffic::UdpBulk {
            bytes: 10_000_000,
            payload: 1472,
        },
    );
    within(got, udp, "802.11g UDP");
    let tcp = 2.0 * 1460.0 * 8.0 / (2.0 * data + ack);
    let got = throughput(54.0, Traffic::TcpBulk { bytes: 10_000_000 });
    within(got, tcp, "802.11g TCP");
    let no_backoff = 2.0 * 1460.0 * 8.0 / (2.0 * data + ack - 15.0 / 2.0 * 9.0);
    assert!(
        got > tcp && got < no_backoff,
        "{got} outside [{tcp}, {no_backoff}]"
    );
}

fn quick(overrides: &[(&str, &str)], seed: u64) -> RunOptions {
    RunOptions {
        seed,
        trials: Some(1),
        quick: true,
        overrides: overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        live: false,
    }
}

#[test]
fn same_plan_seed_and_calibration_give_the_same_json() {
    let cal = Calibration::nominal();
    let run_json = |seed| {
        let opts = quick(&[("suites", "open,ccmp128,discosec-fast")], seed);
        let exp = experiment::create("overhead", &opts).unwrap();
        let mut env = TrialEnv::new(&cal);
        let (results, report) =
            experiment::run_all(exp.as_ref(), &mut env, &mut |_, _, _| {}).unwrap();
        serde_json::to_string(&(results, report)).unwrap()
    };
    let a = run_json(7);
    assert_eq!(a, run_json(7));
    assert_ne!(a, run_json(8));
}

#[test]
fn a_small_overhead_run_sets_the_seeds_tables_beside_its_own() {
    let cal = Calibration::nominal();
    let opts = quick(
        &[
            ("suites", "open,wep40,tkip,ccmp128"),
            ("rates", "2"),
            ("bytes", "60000"),
            ("soho", "true"),
        ],
        1,
    );
    let exp = experiment::create("overhead", &opts).unwrap();
    let mut env = TrialEnv::new(&cal);
    let (results, report) = experiment::run_all(exp.as_ref(), &mut env, &mut |_, _, _| {}).unwrap();
    // 4 suites × 3 measures at 2 Mb/s, 4 suites × 3 measures in SOHO.
    assert_eq!(results.len(), 24);
    let t = report
        .tables
        .iter()
        .find(|t| t.name == "enterprise_tcp_2mbps")
        .unwrap();
    let md = t.to_markdown();
    // Table 6-4's open average, beside the lab's.
    assert!(md.contains("1577.800"), "{md}");
    let mean = t.column_index("mean").unwrap();
    for row in &t.rows {
        let v = row[mean].as_f64().unwrap();
        // 2 Mb/s DSSS: goodput between 1.2 and the 1.75 Mb/s maximum.
        assert!((1200.0..1800.0).contains(&v), "{row:?}");
    }
    let soho = report
        .tables
        .iter()
        .find(|t| t.name == "soho_overhead_11mbps")
        .unwrap();
    assert!(
        soho.to_markdown().contains("3.810"),
        "{}",
        soho.to_markdown()
    );
    assert!(report
        .tables
        .iter()
        .any(|t| t.name == "enterprise_ping_2mbps"));
}
