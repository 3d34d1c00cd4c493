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
    let r = run("replay", "none");
    assert!(m(&r, "injected") > 50.0);
    assert_eq!(m(&r, "replays_accepted"), m(&r, "injected"));
    for p in ["pmf", "discosec-fast", "discosec-full"] {
        let r = run("replay", p);
        assert!(m(&r, "replays_recorded") > 10.0, "{p}");
        assert!(m(&r, "injected") > 50.0, "{p}");
        assert_eq!(m(&r, "replays_accepted"), 0.0, "{p}");
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

#[test]
fn trials_are_deterministic() {
    let a = run("deauth", "none");
    let b = run("deauth", "none");
    assert_eq!(a, b);
}
