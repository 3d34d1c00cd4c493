//! Every table has a `--csv` beside its `--json` with the same column
//! names: the CSV is read back by Python's `csv` module (an independent
//! RFC 4180 reader) and compared with the JSON, value by value where both
//! come from one computation (analyze, lab list) and by columns, rows and
//! the deterministic fields where a benchmark ran twice.

mod common;

use common::{ok, p};
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

/// The CSV as Python's csv module reads it: the header and the rows.
fn python_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut child = Command::new("python3")
        .args([
            "-c",
            "import csv, json, sys\n\
             rows = list(csv.reader(sys.stdin, strict=True))\n\
             json.dump(rows, sys.stdout)",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let mut rows: Vec<Vec<String>> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!rows.is_empty(), "no header: {text}");
    let header = rows.remove(0);
    for r in &rows {
        assert_eq!(r.len(), header.len(), "{r:?}");
    }
    (header, rows)
}

/// A JSON row as (path, value) pairs, nested values by their path.
fn paths(prefix: &str, v: &Value, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                paths(&format!("{prefix}.{i}"), x, out);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                paths(&p, x, out);
            }
        }
        x => out.push((prefix.to_string(), x.clone())),
    }
}

/// A CSV cell holds the JSON value: text as it is, null empty, numbers
/// equal as numbers.
fn same(cell: &str, v: &Value) -> bool {
    match v {
        Value::Null => cell.is_empty(),
        Value::String(s) => cell == s,
        // Within an ulp or two: serde_json's default float parsing is not
        // correctly rounded.
        Value::Number(n) => match (cell.parse::<f64>(), n.as_f64()) {
            (Ok(a), Some(b)) => a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs()),
            _ => false,
        },
        Value::Bool(b) => cell == b.to_string(),
        _ => false,
    }
}

/// Checks the CSV against the JSON rows: the same rows, every column a
/// field path of the JSON, and the fields `exact` (all when `None`) equal.
fn compare(csv: &str, json_rows: &[Value], exact: Option<&[&str]>) {
    let (header, rows) = python_csv(csv);
    assert_eq!(rows.len(), json_rows.len(), "{csv}");
    for (r, j) in rows.iter().zip(json_rows) {
        let mut fields = Vec::new();
        paths("", j, &mut fields);
        for (col, cell) in header.iter().zip(r) {
            let (_, v) = fields
                .iter()
                .find(|(p, _)| p == col)
                .unwrap_or_else(|| panic!("column {col} is no field of {j}"));
            let check = exact.is_none_or(|e| e.contains(&col.as_str()));
            if check {
                assert!(same(cell, v), "{col}: {cell:?} vs {v}");
            }
        }
    }
}

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
