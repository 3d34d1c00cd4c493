//! `wisec lab` end to end: the experiment list, a small saturation run
//! with its JSON and CSV outputs, determinism, and usage errors.

use std::process::{Command, Output};

fn wisec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(args)
        .output()
        .expect("running wisec")
}

#[test]
fn list_names_the_saturation_experiment() {
    let o = wisec(&["lab", "list"]);
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.starts_with("saturation "), "{out}");
    assert!(out.contains("Bianchi"));
}

#[test]
fn saturation_writes_json_and_csv_and_is_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let out1 = dir.path().join("one");
    let out2 = dir.path().join("two");
    let args = |out: &std::path::Path| {
        vec![
            "lab".to_string(),
            "run".into(),
            "saturation".into(),
            "--stations".into(),
            "1,4".into(),
            "--seconds".into(),
            "0.5".into(),
            "--seed".into(),
            "5".into(),
            "--trials".into(),
            "2".into(),
            "--out".into(),
            out.display().to_string(),
        ]
    };
    let a1: Vec<String> = args(&out1);
    let o = wisec(&a1.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(table.contains("Bianchi Mb/s"), "{table}");
    // Two station counts × two access methods.
    assert_eq!(
        table
            .lines()
            .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
            .count(),
        4,
        "{table}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out1.join("saturation.json")).unwrap())
            .unwrap();
    assert_eq!(json["points"].as_array().unwrap().len(), 4);
    assert_eq!(json["runs"].as_array().unwrap().len(), 8);
    // One station: no collisions, and the model's value within 5%.
    let p0 = &json["points"][0];
    assert_eq!(p0["stations"], 1);
    assert!(p0["rel_error"].as_f64().unwrap().abs() < 0.05, "{p0}");
    let csv = std::fs::read_to_string(out1.join("saturation_runs.csv")).unwrap();
    assert_eq!(csv.lines().count(), 9);
    assert!(csv.starts_with("stations,access,trial,seed,sim_mbps,model_mbps"));
    assert_eq!(
        std::fs::read_to_string(out1.join("saturation.csv"))
            .unwrap()
            .lines()
            .count(),
        5
    );
    // The same command again: identical files.
    let a2: Vec<String> = args(&out2);
    let o = wisec(&a2.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success());
    for f in ["saturation.json", "saturation.csv", "saturation_runs.csv"] {
        assert_eq!(
            std::fs::read(out1.join(f)).unwrap(),
            std::fs::read(out2.join(f)).unwrap(),
            "{f}"
        );
    }
}

#[test]
fn json_on_stdout_for_g_with_rts_only() {
    let o = wisec(&[
        "lab",
        "run",
        "saturation",
        "--phy",
        "g",
        "--rts",
        "--stations",
        "3",
        "--seconds",
        "0.2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["config"]["phy"], "G");
    assert_eq!(v["points"][0]["access"], "rts");
    assert_eq!(v["model"]["w"], 16.0);
    assert_eq!(v["points"].as_array().unwrap().len(), 1);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["lab", "run", "nosuch"][..],
        &["lab", "run", "saturation", "--stations", "0"],
        &["lab", "run", "saturation", "--seconds", "-1"],
        &["lab", "run", "saturation", "--rate", "54"],
        &["lab", "run", "saturation", "--trials", "0"],
        &["lab", "run", "saturation", "--rts", "--basic"],
        &["lab", "frobnicate"],
    ] {
        let o = wisec(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(!o.stderr.is_empty());
    }
}
