//! `wisec lab run auth` as a user runs it (as root, which CI is): a small
//! run of PEAP and LEAP whose report sets the times beside seed 001's
//! Table 6-19, whose channel capture `wisec decrypt --msk` decrypts with
//! the MSK the report gives, and a run with a wrong password whose trials
//! fail and say so.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Mutex;

static SERIAL: Mutex<()> = Mutex::new(());

fn wisec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(args)
        .output()
        .expect("running wisec")
}

fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `wisec lab run auth --quick` into `out`, with `extra` arguments.
fn run_auth(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "lab",
        "run",
        "auth",
        "--quick",
        "--calibration",
        "nominal",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    wisec(&args)
}

fn trial(dir: &Path, label: &str) -> serde_json::Value {
    let p = dir.join("trials").join(format!("{label}.json"));
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

#[test]
fn auth_runs_live_and_its_capture_decrypts_with_the_msk() {
    let _g = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let list = wisec(&["lab", "list"]);
    assert!(
        text(&list).contains("auth") && text(&list).contains("(live only)"),
        "{}",
        text(&list)
    );

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("auth");
    let o = run_auth(&out, &["--pcap", "all"]);
    assert!(o.status.success(), "{}", text(&o));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("Table 6-19"), "{md}");
    assert!(md.contains("79.400") && md.contains("65.400"), "{md}");
    for (label, method) in [
        ("peap-ccmp128-2mbps-c1-t00", "peap"),
        ("leap-ccmp128-2mbps-c1-t00", "leap"),
    ] {
        let t = trial(&out, label);
        assert_eq!(t["spec"]["params"]["method"], method);
        assert_eq!(t["metrics"]["outcome"], "success", "{t}");
        assert_eq!(t["metrics"]["msk_match"], true, "{t}");
        assert!(t["metrics"]["eap_ms"].as_f64().unwrap() > 0.0, "{t}");
        assert_eq!(t["metrics"]["ping_replies"], 3, "{t}");
        let msk = t["secrets"]["msk_hex"].as_str().unwrap().to_string();
        assert!(md.contains(&msk), "the report gives the MSK of {label}");
        // wisec decrypt, given only the MSK, finds the 4-way handshake,
        // derives the PTK and decrypts the pings.
        let pcap = out.join("channels").join(format!("{label}-live.pcap"));
        let dec = dir.path().join(format!("{label}-dec.pcap"));
        let d = wisec(&[
            "decrypt",
            "--msk",
            &msk,
            pcap.to_str().unwrap(),
            dec.to_str().unwrap(),
        ]);
        let s = text(&d);
        assert!(d.status.success(), "{s}");
        assert!(s.contains("PTKs 1"), "{s}");
        let decrypted: u64 = s
            .lines()
            .find(|l| l.starts_with("frames read"))
            .and_then(|l| l.split("decrypted ").nth(1))
            .and_then(|x| x.split(',').next())
            .and_then(|x| x.trim().parse().ok())
            .unwrap();
        assert!(decrypted >= 6, "{s}");
    }

    // A wrong password: the run completes, its trials failed and say why.
    let bad = dir.path().join("bad");
    let o = run_auth(
        &bad,
        &[
            "--set",
            "methods=peap",
            "--set",
            "credentials=wrong-password",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let t = trial(&bad, "peap-ccmp128-2mbps-c1-t00");
    assert_eq!(t["metrics"]["outcome"], "failed", "{t}");
    assert!(t["metrics"]["failure"]
        .as_str()
        .unwrap()
        .contains("Access-Reject"));
    assert!(t["metrics"].get("eap_ms").is_none(), "{t}");

    // A parameter the experiment does not have is a usage error.
    let o = wisec(&["lab", "run", "auth", "--set", "methods=eke"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("eke"), "{}", text(&o));
}

/// Ctrl-C during a run: the completed trials are written, the exit
/// status is 130, and no namespace, FreeRADIUS or wpa_supplicant of the
/// run remains.
#[test]
fn an_interrupted_run_removes_its_lab() {
    let _g = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("auth");
    let child = Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(["lab", "run", "auth", "--calibration", "nominal", "-q"])
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("running wisec");
    let pid = child.id();
    // Wait for the first trial, so that the lab and its servers exist.
    let t0 = std::time::Instant::now();
    while std::fs::read_dir(out.join("trials")).map_or(true, |d| d.count() == 0) {
        assert!(t0.elapsed().as_secs() < 60, "no trial within a minute");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let k = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(k.success());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted after"), "{err}");
    assert!(out.join("report.md").exists());
    let ns = Command::new("ip").args(["netns", "list"]).output().unwrap();
    let ns = String::from_utf8_lossy(&ns.stdout);
    assert!(
        !ns.contains(&format!("wisec-{pid}-")),
        "namespaces left: {ns}"
    );
    let needle = dir.path().display().to_string();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(c) = std::fs::read(e.path().join("cmdline")) {
            let s = String::from_utf8_lossy(&c).replace('\0', " ");
            assert!(!s.contains(&needle), "left running: {s}");
        }
    }
}
