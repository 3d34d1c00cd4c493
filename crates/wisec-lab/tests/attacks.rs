//! The `attacks` experiment in small versions: outcomes that must hold
//! with airtime, as the in-process attack runner finds them without it.

use wisec_lab::cost::Calibration;
use wisec_lab::experiment::{create, RunOptions, TrialEnv, TrialResult};

fn run(attack: &str, protection: &str) -> TrialResult {
    let opts = RunOptions {
        seed: 5,
        trials: Some(1),
        quick: true,
        overrides: vec![
            ("attacks".into(), attack.into()),
            ("protections".into(), protection.into()),
        ],
        ..RunOptions::default()
    };
    let exp = create("attacks", &opts).unwrap();
    let plan = exp.plan();
    assert_eq!(plan.len(), 1);
    let cal = Calibration::nominal();
    let mut env = TrialEnv::new(&cal);
    let r = exp.run_trial(&plan[0], &mut env).unwrap();
    eprintln!("{attack} {protection}: {:?}", r.metrics);
    r
}

fn m(r: &TrialResult, k: &str) -> f64 {
    r.metric(k).unwrap_or_else(|| panic!("no metric {k}"))
}

#[test]
fn forged_deauth_and_disassoc_disconnect_unprotected_stations() {
    for a in ["deauth", "disassoc"] {
        let r = run(a, "none");
        assert_eq!(m(&r, "stations_disconnected"), 2.0, "{a}");
        assert!(m(&r, "mbps_before") > 3.0, "{a}");
        assert!(
            m(&r, "mbps_during") < 0.5 * m(&r, "mbps_before"),
            "{a}: throughput must collapse"
        );
    }
}

#[test]
fn pmf_and_discosec_keep_stations_and_throughput() {
    for p in ["pmf", "discosec-fast", "discosec-full"] {
        for a in ["deauth", "disassoc"] {
            let r = run(a, p);
            assert_eq!(m(&r, "disconnects"), 0.0, "{a} {p}");
            assert_eq!(m(&r, "ap_lost_associations"), 0.0, "{a} {p}");
            assert_eq!(m(&r, "min_connected"), 2.0, "{a} {p}");
            assert!(
                m(&r, "mbps_during") > 0.85 * m(&r, "mbps_before"),
                "{a} {p}: throughput must hold"
            );
        }
    }
}

#[test]
fn replays_are_rejected_with_protection_only() {
    // No protection: nothing rejects and the replayed datagrams reach the
    // server on top of what the stations send.
    let r = run("replay", "none");
    assert!(m(&r, "injected") > 50.0);
    assert_eq!(m(&r, "replays_rejected"), 0.0);
    assert!(m(&r, "mbps_during") > 1.1 * m(&r, "mbps_before"));
    for p in ["pmf", "discosec-fast", "discosec-full"] {
        let r = run("replay", p);
        let n = m(&r, "injected");
        assert!(m(&r, "replays_recorded") > 10.0, "{p}");
        assert!(n > 50.0, "{p}");
        // Sent once each: a few may collide, none may pass.
        assert!(m(&r, "replays_rejected") >= 0.97 * n, "{p}");
        assert!(m(&r, "replays_rejected") <= n, "{p}");
        assert!(
            m(&r, "mbps_during") <= 1.02 * m(&r, "mbps_before").max(4.0),
            "{p}"
        );
        assert_eq!(m(&r, "disconnects"), 0.0, "{p}");
    }
}

#[test]
fn auth_flood_with_tokens_bounds_ap_state_and_ecdh() {
    let open = run("authflood100", "none");
    assert!(
        m(&open, "peak_entries") > 50.0,
        "entries grow without tokens"
    );
    let r = run("authflood1000", "discosec-fast");
    let tokens = m(&r, "tokens_per_interval");
    assert!(tokens > 0.0);
    assert!(m(&r, "ecdh_max_per_interval") <= tokens);
    assert!(m(&r, "peak_entries") < 2.0 + 2.0 * tokens);
    assert!(m(&r, "injected") > 500.0);
    assert_eq!(m(&r, "disconnects"), 0.0);
}

fn run_with(attack: &str, protection: &str, extra: &[(&str, &str)]) -> TrialResult {
    let mut overrides = vec![
        ("attacks".to_string(), attack.to_string()),
        ("protections".to_string(), protection.to_string()),
    ];
    overrides.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let opts = RunOptions {
        seed: 5,
        trials: Some(1),
        quick: true,
        overrides,
        ..RunOptions::default()
    };
    let exp = create("attacks", &opts).unwrap();
    let plan = exp.plan();
    let cal = Calibration::nominal();
    let mut env = TrialEnv::new(&cal);
    let r = exp.run_trial(&plan[0], &mut env).unwrap();
    eprintln!("{attack} {protection} {extra:?}: {:?}", r.metrics);
    r
}

/// Seed 003 Figure 3: a flood of 100 authentications per second from new
/// addresses, larger than the AP's station table, freezes an AP without
/// protection (and one with PMF, which does not protect Open System
/// Authentication from a new address); DiscoSec's tokens keep the table
/// from filling. With an unbounded table the same flood costs only
/// airtime: the collapse is the table's doing.
#[test]
fn a_flood_past_the_station_table_freezes_the_ap_unless_tokens_bound_it() {
    let small = [("ap_table", "30"), ("attack", "1.5")];
    for p in ["none", "pmf"] {
        let r = run_with("authflood100", p, &small);
        assert!(m(&r, "ap_exhaustions") >= 1.0, "{p}");
        assert!(m(&r, "ap_frozen_s") >= 1.0, "{p}");
        assert!(m(&r, "ap_frozen_share") > 0.5, "{p}");
        assert!(m(&r, "ap_frozen_drops") > 10.0, "{p}");
        assert!(m(&r, "mbps_before") > 3.0, "{p}");
        assert!(
            m(&r, "mbps_during") < 0.6 * m(&r, "mbps_before"),
            "{p}: service must collapse while the AP is frozen"
        );
    }
    let r = run_with("authflood100", "discosec-fast", &small);
    assert_eq!(m(&r, "ap_exhaustions"), 0.0);
    assert_eq!(m(&r, "ap_frozen_s"), 0.0);
    assert_eq!(m(&r, "ap_frozen_share"), 0.0);
    assert!(m(&r, "mbps_during") > 0.85 * m(&r, "mbps_before"));
    let r = run_with(
        "authflood100",
        "none",
        &[("ap_table", "0"), ("attack", "1.5")],
    );
    assert_eq!(m(&r, "ap_exhaustions"), 0.0);
    assert!(m(&r, "peak_entries") > 100.0);
    assert!(m(&r, "mbps_during") > 0.85 * m(&r, "mbps_before"));
}

#[test]
fn trials_are_deterministic() {
    let a = run("deauth", "none");
    let b = run("deauth", "none");
    assert_eq!(a, b);
}

#[test]
fn the_report_plots_throughput_over_time_per_protection() {
    let opts = RunOptions {
        seed: 2,
        trials: Some(1),
        quick: true,
        overrides: vec![
            ("attacks".into(), "disassoc".into()),
            ("protections".into(), "none,pmf".into()),
        ],
        ..RunOptions::default()
    };
    let exp = create("attacks", &opts).unwrap();
    let cal = Calibration::nominal();
    let mut env = TrialEnv::new(&cal);
    let results: Vec<TrialResult> = exp
        .plan()
        .iter()
        .map(|s| exp.run_trial(s, &mut env).unwrap())
        .collect();
    let rep = exp.summarize(&results);
    let plot = rep
        .plots
        .iter()
        .find(|p| p.name == "attacks_disassoc")
        .unwrap();
    let labels: Vec<&str> = plot.series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["none", "pmf"]);
    // Sampled every 100 ms over 2 + 1 + 0.3 s.
    assert!(plot.series.iter().all(|s| s.points.len() >= 30));
    let assoc = rep
        .plots
        .iter()
        .find(|p| p.name == "attacks_disassoc_associated")
        .unwrap();
    // Without protection the association count drops to zero during the
    // attack; with PMF it stays at both stations once they joined.
    let during = |s: &wisec_lab::experiment::Series| -> Vec<f64> {
        s.points
            .iter()
            .filter(|(t, _)| *t > 2.1 && *t <= 3.0)
            .map(|p| p.1)
            .collect()
    };
    assert!(during(&assoc.series[0]).contains(&0.0));
    assert!(during(&assoc.series[1]).iter().all(|n| *n == 2.0));
    let t = &rep.tables[0];
    assert_eq!(t.rows.len(), 2);
    let hit = t.column_index("stations disconnected").unwrap();
    assert_eq!(t.rows[0][hit].as_f64(), Some(2.0));
    assert_eq!(t.rows[1][hit].as_f64(), Some(0.0));
}
