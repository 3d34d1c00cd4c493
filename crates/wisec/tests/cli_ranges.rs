//! The command line's numbers, units and names across commands: every
//! count, rate, duration and seed out of its documented range is a usage
//! error (exit status 2) found before any work, with a message naming the
//! option; `attack run` sends exactly rate × duration frames and names
//! attacks and protections as the command line does.

mod common;

use serde_json::Value;

fn wisec(args: &[&str]) -> (i32, String, String) {
    let o = common::wisec(args);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Frames the attacker of a one-station authflood sent, with `extra`
/// options.
fn frames_sent(extra: &[&str]) -> Value {
    let mut args = vec![
        "attack",
        "run",
        "--attack",
        "authflood",
        "--protection",
        "none",
        "--stations",
        "1",
        "--json",
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = wisec(&args);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    v["attacker"]["sent"].clone()
}

const TOO_BIG_SEED: &str = "9223372036854775808"; // 2^63

#[test]
fn attack_sends_rate_times_duration_frames() {
    for (rate, secs, want) in [("100", "10", 1000), ("200", "10", 2000), ("7", "3", 21)] {
        let sent = frames_sent(&["--rate", rate, "--duration", secs]);
        assert_eq!(sent, want, "{rate}/s for {secs} s");
    }
    // A duration with its unit: 500 ms at 100/s is 50 frames.
    assert_eq!(frames_sent(&["--duration", "500ms"]), 50);
}

#[test]
fn attack_table_names_attack_and_protection_as_the_command_line_does() {
    let (code, out, err) = wisec(&[
        "attack",
        "run",
        "--attack",
        "assoc-spoof",
        "--protection",
        "discosec-fast",
        "--stations",
        "1",
        "--duration",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("attack assoc-spoof against discosec-fast:"),
        "{out}"
    );
    assert!(!out.contains("AssocSpoof") && !out.contains("DiscosecFast"));
}

#[test]
fn numbers_out_of_range_are_usage_errors_naming_the_option() {
    let attack = ["attack", "run", "--attack", "deauth", "--protection", "pmf"];
    let with = |extra: &[&'static str]| {
        let mut v: Vec<&str> = attack.to_vec();
        v.extend_from_slice(extra);
        v
    };
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (with(&["--seed", TOO_BIG_SEED]), "--seed"),
        (with(&["--rate", "-1"]), "--rate"),
        (with(&["--rate", "0"]), "--rate"),
        (with(&["--stations", "0"]), "--stations"),
        (with(&["--stations", "201"]), "--stations"),
        (with(&["--duration", "0"]), "--duration"),
        (with(&["--duration", "2h"]), "--duration"),
        (with(&["--tokens", "63"]), "--tokens"),
        (
            vec!["synth", "x.pcap", "--ssid", "s", "--seed", TOO_BIG_SEED],
            "--seed",
        ),
        (
            vec!["lab", "run", "saturation", "--seed", TOO_BIG_SEED],
            "--seed",
        ),
        (vec!["bench", "decrypt", "--frames", "0"], "--frames"),
        (vec!["bench", "decrypt", "--runs", "0"], "--runs"),
        (vec!["bench", "decrypt", "--stations", "0"], "--stations"),
        (vec!["bench", "crypto", "--duration", "15"], "--duration"),
        (vec!["bench", "crypto", "--duration", "2m"], "--duration"),
        (vec!["bench", "discosec", "--time-ms", "5"], "--sample-time"),
        (
            vec!["bench", "discosec", "--sample-time", "0ms"],
            "--sample-time",
        ),
    ];
    for (args, option) in cases {
        let (code, out, err) = wisec(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: nothing done, nothing printed");
        assert!(err.contains(option), "{args:?} should name {option}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // The largest seed is accepted.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.pcap");
    let (code, _, err) = wisec(&[
        "synth",
        out.to_str().unwrap(),
        "--ssid",
        "lab",
        "--passphrase",
        "correct horse",
        "--frames",
        "1",
        "--seed",
        "9223372036854775807",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn synth_errors_name_the_option_that_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.pcap");
    let out = out.to_str().unwrap();
    // No passphrase: the missing --passphrase, not its length.
    let (code, _, err) = wisec(&["synth", out, "--ssid", "lab"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--passphrase"), "{err}");
    assert!(!err.contains("shorter than 8"), "{err}");
    // A 33-octet SSID: --ssid, not the passphrase.
    let long = "s".repeat(33);
    let (code, _, err) = wisec(&[
        "synth",
        out,
        "--ssid",
        &long,
        "--passphrase",
        "correct horse",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--ssid") && err.contains("33"), "{err}");
    assert!(!err.contains("passphrase"), "{err}");
    assert!(!std::path::Path::new(out).exists());
}
