//! Every table has a `--csv` beside its `--json` with the same column
//! names: the CSV is read back by Python's `csv` module (an independent
//! RFC 4180 reader) and compared with the JSON, value by value where both
//! come from one computation (analyze, lab list) and by columns, rows and
//! the deterministic fields where a benchmark ran twice.

mod common;

use common::csv::compare;
use common::{ok, p};
use serde_json::Value;

#[test]
fn lab_list_csv_is_its_json() {
    let json: Value = serde_json::from_str(&ok(&["lab", "list", "--json"])).unwrap();
    let rows = json.as_array().unwrap();
    assert!(rows.len() >= 8);
    assert!(rows.iter().any(|r| r["name"] == "overhead"));
    compare(&ok(&["lab", "list", "--csv"]), rows, None);
    // One of the two, not both.
    let both = common::wisec(&["lab", "list", "--csv", "--json"]);
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn analyze_csv_is_the_json_rows() {
    let dir = tempfile::tempdir().unwrap();
    let cap = common::synth_capture(
        dir.path(),
        "s.pcap",
        "correct horse",
        "wisec",
        &["--stations", "2"],
    );
    let json: Value = serde_json::from_str(&ok(&["analyze", "--json", p(&cap)])).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert!(rows.len() >= 3);
    let csv = ok(&["analyze", "--csv", p(&cap)]);
    assert!(csv.starts_with("component,k,packets,groups,delay_us\r\n"));
    compare(&csv, rows, None);
}

#[test]
fn bench_lab_csv_has_the_json_points() {
    let json: Value = serde_json::from_str(&ok(&["bench", "lab", "--quick", "--json"])).unwrap();
    let csv = ok(&["bench", "lab", "--quick", "--csv"]);
    // A run is a function of its seed: only the wall-clock fields differ
    // between the two runs.
    compare(
        &csv,
        json["points"].as_array().unwrap(),
        Some(&["stations", "access", "sim_seconds", "events", "sim_mbps"]),
    );
}

#[test]
fn bench_discosec_csv_has_the_json_tables() {
    let args = ["bench", "discosec", "--quick", "--sizes", "64,1500"];
    let mut a = args.to_vec();
    a.push("--json");
    let json: Value = serde_json::from_str(&ok(&a)).unwrap();
    for (table, field, key) in [
        ("key-exchange", "key_exchange", "curve"),
        ("mac", "mac", "frame_len"),
    ] {
        let mut a = args.to_vec();
        a.extend(["--csv", table]);
        compare(
            &ok(&a),
            json[field].as_array().unwrap(),
            Some(&[key, "ap.samples", "fast_auth.samples"]),
        );
    }
}

#[test]
fn bench_crypto_csv_is_the_json_results_of_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    let json_path = dir.path().join("r.json");
    let out = common::wisec(&[
        "bench",
        "crypto",
        "--quick",
        "--suites",
        "ccmp128,gcmp128",
        "--sizes",
        "64,1500",
        "--json",
        p(&json_path),
        "--csv",
    ]);
    assert!(out.status.success(), "{out:?}");
    let json: Value = serde_json::from_slice(&std::fs::read(&json_path).unwrap()).unwrap();
    let rows = json["results"].as_array().unwrap();
    assert_eq!(rows.len(), 8);
    compare(&String::from_utf8(out.stdout).unwrap(), rows, None);
}

#[test]
fn attack_run_csv_is_its_json_but_the_timeline() {
    // The attack runs on a virtual clock: two runs with one seed agree.
    let args = [
        "attack",
        "run",
        "--attack",
        "deauth",
        "--protection",
        "pmf",
        "--duration",
        "1",
    ];
    let mut a = args.to_vec();
    a.push("--json");
    let mut json: Value = serde_json::from_str(&ok(&a)).unwrap();
    json.as_object_mut().unwrap().remove("timeline");
    let mut a = args.to_vec();
    a.push("--csv");
    compare(&ok(&a), &[json], None);
}
