//! `wisec attack run` and `wisec bench discosec` from the command line:
//! their JSON reports parse and hold what they promise. No timing is
//! asserted.

use serde_json::Value;
use std::process::Command;

fn wisec(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(args)
        .output()
        .expect("run wisec");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn attack_run_json() {
    let (code, out, err) = wisec(&[
        "attack",
        "run",
        "--attack",
        "disassoc",
        "--protection",
        "discosec-full",
        "--stations",
        "2",
        "--rate",
        "50",
        "--duration",
        "1",
        "--seed",
        "3",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["attack"], "disassoc");
    assert_eq!(v["protection"], "discosec-full");
    assert_eq!(v["stations"], 2);
    assert_eq!(v["disconnections"], 0);
    assert_eq!(v["attacker"]["accepted"], 0);
    assert_eq!(v["attacker"]["sent"], 50);
    assert_eq!(v["token_protection"], true);
    assert!(v["ap"]["ecdh_ops"].is_u64());
    assert!(v["timeline"].is_array());
    // The table names the same figures.
    let (code, out, _) = wisec(&[
        "attack",
        "run",
        "--attack",
        "deauth",
        "--protection",
        "none",
        "--stations",
        "2",
        "--duration",
        "1",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("disconnections") && out.contains("attacker frames sent"));
}

#[test]
fn attack_run_refuses_bad_options() {
    for args in [
        &["attack", "run", "--attack", "nope", "--protection", "pmf"][..],
        &[
            "attack",
            "run",
            "--attack",
            "deauth",
            "--protection",
            "pmf",
            "--stations",
            "0",
        ],
        &[
            "attack",
            "run",
            "--attack",
            "deauth",
            "--protection",
            "pmf",
            "--duration",
            "-1",
        ],
        &[
            "attack",
            "run",
            "--attack",
            "deauth",
            "--protection",
            "pmf",
            "--rate",
            "NaN",
        ],
    ] {
        let (code, _, err) = wisec(args);
        assert_eq!(code, 2, "{args:?}: {err}");
    }
}

#[test]
fn bench_discosec_quick_json() {
    let (code, out, err) = wisec(&["bench", "discosec", "--quick", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let kx = v["key_exchange"].as_array().unwrap();
    let curves: Vec<&str> = kx.iter().map(|r| r["curve"].as_str().unwrap()).collect();
    assert_eq!(curves, ["P-224", "P-256", "P-384"]);
    for r in kx {
        for f in [
            "ap",
            "ap_cached",
            "sta",
            "sta_cached",
            "openssl_keygen",
            "openssl_ecdh",
            "openssl_sha256",
        ] {
            let fig = &r[f];
            let (lo, med, hi) = (
                fig["min_ns"].as_f64().unwrap(),
                fig["median_ns"].as_f64().unwrap(),
                fig["max_ns"].as_f64().unwrap(),
            );
            assert!(lo > 0.0 && lo <= med && med <= hi, "{f}: {fig}");
            assert_eq!(fig["samples"], 3);
        }
    }
    let mac = v["mac"].as_array().unwrap();
    let sizes: Vec<u64> = mac
        .iter()
        .map(|r| r["frame_len"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, [64, 1500]);
    for r in mac {
        for f in [
            "fast_auth",
            "full_auth",
            "openssl_cmac_block",
            "openssl_cmac_frame",
        ] {
            assert!(r[f]["median_ns"].as_f64().unwrap() > 0.0);
        }
    }
    assert!(v["openssl"].as_str().unwrap().starts_with("OpenSSL"));
}

/// `wisec bench icbc` (seed 002): a row per body size with the three
/// phases and the total for both MACs, the savings computed from those
/// medians, the AES the binary ran named; bad sizes are usage errors.
/// Times are never asserted.
#[test]
fn bench_icbc_quick_json() {
    let (code, out, err) = wisec(&["bench", "icbc", "--quick", "--sizes", "16,64", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(["hardware", "software"].contains(&v["aes"].as_str().unwrap()));
    assert_eq!(v["software_aes_build"], false);
    assert_eq!(v["seed"]["total_saving"], 0.30);
    let rows = v["rows"].as_array().unwrap();
    let bodies: Vec<u64> = rows.iter().map(|r| r["body"].as_u64().unwrap()).collect();
    assert_eq!(bodies, [16, 64]);
    let med = |r: &Value, v: &str, p: &str| r[v][p]["median_ns"].as_f64().unwrap();
    for r in rows {
        for variant in ["standard", "icbc"] {
            for p in ["header", "mic", "ctr", "total"] {
                let f = &r[variant][p];
                let (lo, m, hi) = (
                    f["min_ns"].as_f64().unwrap(),
                    f["median_ns"].as_f64().unwrap(),
                    f["max_ns"].as_f64().unwrap(),
                );
                assert!(lo > 0.0 && lo <= m && m <= hi, "{variant} {p}: {f}");
            }
        }
        let mic = 1.0 - med(r, "icbc", "mic") / med(r, "standard", "mic");
        assert!((r["mic_saving"].as_f64().unwrap() - mic).abs() < 1e-9);
        let cbc = med(r, "standard", "header") + med(r, "standard", "mic");
        let share = cbc / med(r, "standard", "total");
        assert!((r["cbc_mac_share"].as_f64().unwrap() - share).abs() < 1e-9);
    }
    assert!(v["growth_4_over_1"].as_f64().unwrap() > 0.0);
    let (code, _, err) = wisec(&["bench", "icbc", "--sizes", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--sizes"), "{err}");
}
