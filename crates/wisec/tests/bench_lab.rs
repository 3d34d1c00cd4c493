//! `wisec bench lab` end to end: the JSON has a point per station count
//! with consistent figures (simulated time and events over the wall time
//! of each run), and bad options are usage errors. Timings are never
//! asserted.

use serde_json::Value;
use std::process::Command;

fn wisec(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(args)
        .output()
        .expect("run wisec")
}

#[test]
fn quick_json_has_a_consistent_point_per_station_count() {
    let out = wisec(&["bench", "lab", "--quick", "--stations", "1,3", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["schema"], "wisec-bench-lab/1");
    assert_eq!(r["repeat"], 2);
    let points = r["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    for (p, n) in points.iter().zip([1, 3]) {
        assert_eq!(p["stations"], n);
        assert_eq!(p["access"], "basic");
        assert_eq!(p["sim_seconds"], 1.5);
        let events = p["events"].as_f64().unwrap();
        assert!(events > 0.0);
        let wall: Vec<f64> = p["wall_s"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_f64().unwrap())
            .collect();
        assert_eq!(wall.len(), 2);
        // The figures are the run's virtual time and events over its wall
        // time: median, fastest, slowest.
        let per: Vec<f64> = wall.iter().map(|w| 1.5 / w).collect();
        let lo = per.iter().copied().fold(f64::MAX, f64::min);
        let hi = per.iter().copied().fold(0.0, f64::max);
        let s = &p["sim_per_wall"];
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
        assert!(close(s[1].as_f64().unwrap(), lo) && close(s[2].as_f64().unwrap(), hi));
        assert!(close(s[0].as_f64().unwrap(), (lo + hi) / 2.0));
        let e = &p["events_per_s"];
        assert!(close(e[1].as_f64().unwrap(), events * lo / 1.5));
        // The experiment's own result comes with it: a saturated 802.11b
        // link carries a few Mb/s.
        let mbps = p["sim_mbps"].as_f64().unwrap();
        assert!(mbps > 3.0 && mbps < 8.0, "{mbps}");
    }
    let table = wisec(&["bench", "lab", "--quick", "--stations", "2"]);
    assert!(table.status.success());
    assert!(String::from_utf8_lossy(&table.stdout).contains("sim s / wall s"));
}

#[test]
fn bad_options_are_usage_errors() {
    for args in [
        &["bench", "lab", "--stations", "0"][..],
        &["bench", "lab", "--seconds", "-1"],
        &["bench", "lab", "--repeat", "0"],
    ] {
        let out = wisec(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}
