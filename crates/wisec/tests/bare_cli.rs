//! `wisec bare` on the command line: usage errors, a short run against a
//! real guest with its JSON and report files, and nothing overwritten
//! without --force.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

fn wisec() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wisec"))
}

fn image() -> PathBuf {
    static IMAGE: OnceLock<PathBuf> = OnceLock::new();
    IMAGE
        .get_or_init(|| {
            let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bare-cli-image");
            let o = wisec()
                .args(["bare", "build", "--json", "--out"])
                .arg(&out)
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert!(v["file_bytes"].as_u64().unwrap() > 10_000, "{v}");
            PathBuf::from(v["image"].as_str().unwrap())
        })
        .clone()
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [
        &["bare", "run", "--sizes", "0"][..],
        &["bare", "run", "--sizes", "1401"],
        &["bare", "run", "--messages", "0"],
        &["bare", "run", "--no-guest", "--no-netns"],
        &["bare", "run", "--line-mbps", "-3"],
    ] {
        let o = wisec().args(args).output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.starts_with("wisec: error: "), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    let o = wisec()
        .args(["bare", "boot", "--key-file", "/nonexistent/key"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn a_short_run_reports_the_guests_timings_and_keeps_an_existing_report() {
    let img = image();
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bare-cli-run");
    let _ = std::fs::remove_dir_all(&out);
    let run = |extra: &[&str]| {
        wisec()
            .args([
                "bare",
                "run",
                "--sizes",
                "64",
                "--messages",
                "100",
                "--echoes",
                "50",
            ])
            .args(["--no-netns", "--quiet", "--json", "--image"])
            .arg(&img)
            .arg("--out")
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let g = &v["guest"][0];
    assert_eq!(g["responder"], "bare-x86_64");
    assert_eq!(g["n"], 64);
    assert_eq!(g["report"]["sink_received"][0], "100");
    assert!(g["server_d2_d3_ms"][1].as_f64().unwrap() > 0.0, "{g}");
    assert!(g["client_d0_d1_ms"][1].as_f64().unwrap() > 0.0, "{g}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("Bare server (QEMU guest)"), "{md}");
    assert!(md.contains("TCG"), "{md}");
    assert!(out.join("bare_server_linux_client.csv").is_file());
    // A second run does not overwrite the report without --force.
    let again = run(&[]);
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert_eq!(std::fs::read_to_string(out.join("report.md")).unwrap(), md);
}
