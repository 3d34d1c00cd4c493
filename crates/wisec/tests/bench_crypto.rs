//! `wisec bench crypto` end to end: a quick run's JSON has every part the
//! report promises, the peers were checked against wisec before they were
//! timed, and bad options are usage errors. Timings are never asserted.

use serde_json::Value;
use std::process::Command;

const IDS: [&str; 30] = [
    "wep40",
    "wep104",
    "tkip",
    "ccmp128",
    "ccmp128-batch",
    "ccmp128-batch-avx2",
    "ccmp128-generic",
    "icbc",
    "ccmp256",
    "ccmp256-batch",
    "gcmp128",
    "gcmp128-avx2",
    "gcmp256",
    "gcmp256-avx2",
    "bip-cmac128",
    "bip-cmac256",
    "bip-gmac128",
    "bip-gmac256",
    "aes-cmac",
    "openssl",
    "ipsec-mb",
    "ipsec-mb-avx2",
    "rustcrypto-ccm",
    "openssl-gcm128",
    "ipsec-mb-gcm128",
    "ipsec-mb-gcm128-avx2",
    "openssl-gcm256",
    "ipsec-mb-gcm256",
    "openssl-rc4",
    "openssl-rc4-stream",
];
const SIZES: [u64; 11] = [16, 32, 48, 50, 64, 250, 500, 750, 1000, 1500, 2304];
const PEERS: [&str; 11] = [
    "openssl",
    "ipsec-mb",
    "ipsec-mb-avx2",
    "rustcrypto-ccm",
    "openssl-gcm128",
    "ipsec-mb-gcm128",
    "ipsec-mb-gcm128-avx2",
    "openssl-gcm256",
    "ipsec-mb-gcm256",
    "openssl-rc4",
    "openssl-rc4-stream",
];
/// The wisec rows and peers the report divides (`report::PAIRS`).
const PAIRS: [(&str, &str); 16] = [
    ("ccmp128", "openssl"),
    ("ccmp128", "ipsec-mb"),
    ("ccmp128", "rustcrypto-ccm"),
    ("ccmp128-batch", "openssl"),
    ("ccmp128-batch", "ipsec-mb"),
    ("ccmp128-batch", "rustcrypto-ccm"),
    ("ccmp128-batch-avx2", "ipsec-mb-avx2"),
    ("gcmp128", "openssl-gcm128"),
    ("gcmp128", "ipsec-mb-gcm128"),
    ("gcmp128-avx2", "ipsec-mb-gcm128-avx2"),
    ("gcmp256", "openssl-gcm256"),
    ("gcmp256", "ipsec-mb-gcm256"),
    ("wep104", "openssl-rc4"),
    ("wep104", "openssl-rc4-stream"),
    ("tkip", "openssl-rc4"),
    ("tkip", "openssl-rc4-stream"),
];

fn wisec(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(args)
        .output()
        .expect("run wisec")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn quick_json_report_has_every_part() {
    let out = wisec(&["bench", "crypto", "--quick", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // JSON alone on stdout, the table on stderr.
    let r: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert!(stderr.contains("ns/frame, protect"), "{stderr}");
    assert!(stderr.contains("seed 002"), "{stderr}");

    assert_eq!(r["schema"], "wisec-bench-crypto/2");
    let c = &r["config"];
    assert_eq!(c["quick"], true);
    assert_eq!(c["samples"], 3);
    assert_eq!(c["ops"], serde_json::json!(["protect", "unprotect"]));
    let sizes: Vec<u64> = c["sizes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(sizes, SIZES);
    assert!(r["machine"]["logical_cpus"].as_u64().unwrap() >= 1);
    let ghz = r["clock"]["ghz"].as_f64();
    assert!(["tsc", "proc-cpuinfo", "none"].contains(&r["clock"]["source"].as_str().unwrap()));

    // One row per id, operation and size.
    let rows = r["results"].as_array().unwrap();
    let ids = IDS;
    assert_eq!(rows.len(), ids.len() * 2 * SIZES.len());
    for id in ids {
        for op in ["protect", "unprotect"] {
            for size in SIZES {
                let row = rows
                    .iter()
                    .find(|x| x["id"] == *id && x["op"] == op && x["size"] == size)
                    .unwrap_or_else(|| panic!("no row {id} {op} {size}"));
                check_row(row, ghz);
            }
        }
    }

    // BIP cannot carry a 2304-octet body plus its MME; every other wisec
    // row was measured.
    for x in rows {
        let id = x["id"].as_str().unwrap();
        let status = x["status"].as_str().unwrap();
        if PEERS.contains(&id) {
            continue;
        }
        if id.starts_with("bip-") && x["size"] == 2304 {
            assert_eq!(status, "unsupported", "{x}");
        } else if id.ends_with("-avx2") && status == "unavailable" {
            // A path this CPU lacks is listed as such, never timed.
            assert!(x["reason"].as_str().unwrap().contains("lacks"), "{x}");
        } else {
            assert_eq!(status, "ok", "{x}");
        }
    }

    // Every peer is listed; a missing one says why and has "missing" rows,
    // an available one was verified identical to wisec and measured.
    let peers = r["peers"].as_array().unwrap();
    let names: Vec<&str> = peers.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, PEERS);
    for p in peers {
        let name = p["name"].as_str().unwrap();
        let prows: Vec<&Value> = rows.iter().filter(|x| x["id"] == name).collect();
        match p["status"].as_str().unwrap() {
            "available" => {
                assert_eq!(p["verified_identical"], true, "{p}");
                assert!(prows.iter().all(|x| x["status"] == "ok"), "{name}");
                assert!(p["version"].is_string());
            }
            "missing" => {
                assert!(!p["reason"].as_str().unwrap().is_empty());
                assert!(prows.iter().all(|x| x["status"] == "missing"), "{name}");
                assert!(stderr.contains("MISSING"), "{stderr}");
            }
            s => panic!("peer status {s}"),
        }
    }

    // Ratios are peer median / wisec median of the rows they name.
    let median = |id: &str, op: &str, size: u64| {
        rows.iter()
            .find(|x| x["id"] == id && x["op"] == op && x["size"] == size)
            .and_then(|x| x["ns_per_frame"]["median"].as_f64())
    };
    let ratios = r["ratios"].as_array().unwrap();
    for x in ratios {
        let (op, size) = (x["op"].as_str().unwrap(), x["size"].as_u64().unwrap());
        let w = median(x["wisec"].as_str().unwrap(), op, size).unwrap();
        let p = median(x["peer"].as_str().unwrap(), op, size).unwrap();
        // One run: its ratio is the median of the pooled samples' ratio.
        assert!(close(x["speedup"].as_f64().unwrap(), p / w), "{x}");
        assert_eq!(x["min"], x["speedup"], "{x}");
        assert_eq!(x["max"], x["speedup"], "{x}");
        assert_eq!(x["runs"].as_array().unwrap().len(), 1);
    }
    // Every pair whose two rows were measured has a ratio per size and op.
    let ok = |id: &str| rows.iter().any(|x| x["id"] == id && x["status"] == "ok");
    let pairs = PAIRS.iter().filter(|(w, p)| ok(w) && ok(p)).count();
    assert_eq!(ratios.len(), pairs * 2 * SIZES.len());
    assert_eq!(r["load"].as_array().unwrap().len(), 1);

    // Unprotect over protect for wisec's CCMP, from the same rows.
    let bal = r["unprotect_vs_protect"].as_array().unwrap();
    assert_eq!(bal.len(), 4 * SIZES.len());
    for x in bal {
        let (id, size) = (x["id"].as_str().unwrap(), x["size"].as_u64().unwrap());
        let want = median(id, "unprotect", size).unwrap() / median(id, "protect", size).unwrap();
        assert!(
            close(x["unprotect_over_protect"].as_f64().unwrap(), want),
            "{x}"
        );
    }

    // Seed 002: 1 to 4 blocks, all four implementations measured.
    let seed = r["seed002"].as_array().unwrap();
    assert_eq!(seed.len(), 4);
    for (i, s) in seed.iter().enumerate() {
        assert_eq!(s["blocks"], i as u64 + 1);
        assert_eq!(s["bytes"], 16 * (i as u64 + 1));
        for k in ["standard", "generic", "icbc", "batch"] {
            let ns = s[k]["ns"].as_f64().unwrap();
            assert!(close(
                s[k]["gb_per_s"].as_f64().unwrap(),
                16.0 * (i + 1) as f64 / ns
            ));
        }
        let want = 1.0 - s["icbc"]["ns"].as_f64().unwrap() / s["standard"]["ns"].as_f64().unwrap();
        assert!(close(s["icbc_saving"].as_f64().unwrap(), want));
    }

    let n = &r["noise"];
    assert!(n["rows"].as_u64().unwrap() > 0);
    assert!(n["median_iqr_rel"].as_f64().unwrap() >= 0.0);
    assert!(n["max_range_rel"].as_f64().unwrap() >= n["median_range_rel"].as_f64().unwrap());
}

fn check_row(x: &Value, ghz: Option<f64>) {
    let status = x["status"].as_str().unwrap();
    assert!(
        ["ok", "error", "missing", "unsupported", "unavailable"].contains(&status),
        "{x}"
    );
    if status != "ok" {
        assert!(
            x["ns_per_frame"].is_null() && x["gb_per_s"].is_null(),
            "{x}"
        );
        assert!(x["reason"].is_string(), "{x}");
        return;
    }
    let s = &x["ns_per_frame"];
    let (min, q1, med, q3, max) = (
        s["min"].as_f64().unwrap(),
        s["q1"].as_f64().unwrap(),
        s["median"].as_f64().unwrap(),
        s["q3"].as_f64().unwrap(),
        s["max"].as_f64().unwrap(),
    );
    assert!(
        0.0 < min && min <= q1 && q1 <= med && med <= q3 && q3 <= max,
        "{x}"
    );
    assert_eq!(s["samples"], 3);
    let size = x["size"].as_f64().unwrap();
    assert!(close(x["gb_per_s"].as_f64().unwrap(), size / med), "{x}");
    match ghz {
        Some(g) => assert!(close(
            x["cycles_per_byte"].as_f64().unwrap(),
            med * g / size
        )),
        None => assert!(x["cycles_per_byte"].is_null()),
    }
    assert!(
        close(x["iqr_rel"].as_f64().unwrap(), (q3 - q1) / med),
        "{x}"
    );
    assert!(x["calls_per_sample"].as_u64().unwrap() >= 1);
    assert_eq!(x["frames_per_call"], 8);
    assert_eq!(x["run_medians"].as_array().unwrap().len(), 1);
}

#[test]
fn repeat_reports_the_spread_of_the_ratios() {
    let out = wisec(&[
        "bench",
        "crypto",
        "--quick",
        "--repeat",
        "3",
        "--suites",
        "gcmp128,gcm-peers,wep104,rc4-peers",
        "--sizes",
        "64",
        "--ops",
        "protect",
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["config"]["repeat"], 3);
    assert_eq!(r["load"].as_array().unwrap().len(), 3);
    let rows = r["results"].as_array().unwrap();
    for x in rows.iter().filter(|x| x["status"] == "ok") {
        // Samples of every run pooled; one median per run.
        assert_eq!(x["ns_per_frame"]["samples"], 9, "{x}");
        assert_eq!(x["run_medians"].as_array().unwrap().len(), 3, "{x}");
    }
    let ratios = r["ratios"].as_array().unwrap();
    assert!(!ratios.is_empty());
    for x in ratios {
        let runs: Vec<f64> = x["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(runs.len(), 3, "{x}");
        let (min, med, max) = (
            x["min"].as_f64().unwrap(),
            x["speedup"].as_f64().unwrap(),
            x["max"].as_f64().unwrap(),
        );
        let mut s = runs.clone();
        s.sort_by(f64::total_cmp);
        assert!(
            close(min, s[0]) && close(med, s[1]) && close(max, s[2]),
            "{x}"
        );
        // Each run's ratio is the peer's median over wisec's in that run.
        let med_of = |id: &str, k: usize| {
            rows.iter().find(|y| y["id"] == id).unwrap()["run_medians"][k]
                .as_f64()
                .unwrap()
        };
        for (k, v) in runs.iter().enumerate() {
            let want =
                med_of(x["peer"].as_str().unwrap(), k) / med_of(x["wisec"].as_str().unwrap(), k);
            assert!(close(*v, want), "{x}");
        }
    }
    assert!(
        stderr.contains("spread of the ratio over 3 runs"),
        "{stderr}"
    );
    assert!(stderr.contains("load average"), "{stderr}");
}

#[test]
fn json_file_and_selection() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.json");
    let p = path.to_str().unwrap();
    let out = wisec(&[
        "bench",
        "crypto",
        "--quick",
        "--suites",
        "ccmp128,peers",
        "--sizes",
        "64,16",
        "--ops",
        "protect",
        "--json",
        p,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("peer time / wisec time"), "{table}");
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let rows = r["results"].as_array().unwrap();
    // ccmp128 and every peer, at two sizes.
    assert_eq!(rows.len(), (1 + PEERS.len()) * 2);
    assert!(rows.iter().all(|x| x["op"] == "protect"));
    assert_eq!(r["config"]["sizes"], serde_json::json!([16, 64]));
    // No ICBC or batch measured: the seed 002 rows say so with nulls.
    assert!(r["seed002"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["icbc"].is_null()));
}

#[test]
fn bad_options_are_usage_errors() {
    for args in [
        &["bench", "crypto", "--suites", "ccmp512"][..],
        &["bench", "crypto", "--sizes", "4000"],
        &["bench", "crypto", "--ops", "sign"],
        &["bench", "crypto", "--samples", "0"],
        &["bench", "crypto", "--repeat", "0"],
        &["bench", "nothing"],
    ] {
        let out = wisec(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("error"),
            "{args:?}"
        );
    }
}
