//! `wisec lab live` and `wisec lab run overhead --live` as a user runs
//! them (as root, which CI is): cleanup on SIGTERM, SIGINT and after a
//! killed run, the refusal without privileges, bad input, and the live
//! overhead report with a channel capture that tshark and `wisec decrypt`
//! read from the passphrase; `wisec bench live`'s CSV against its JSON.
#![cfg(target_os = "linux")]

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One live run at a time: each wants the CPU for its medium, and the
/// leftover test must see its own leftovers.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn wisec(args: &[&str]) -> Output {
    wisec_pid(args).0
}

/// Runs wisec; its output and its process id (the first part of its run
/// tags).
fn wisec_pid(args: &[&str]) -> (Output, u32) {
    run_pid(Command::new(env!("CARGO_BIN_EXE_wisec")).args(args))
}

fn run_pid(cmd: &mut Command) -> (Output, u32) {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running wisec");
    let pid = child.id();
    (child.wait_with_output().expect("waiting for wisec"), pid)
}

/// Namespaces made by the process `pid` (other live runs on the machine
/// are not this test's business).
fn namespaces_of_pid(pid: u32) -> Vec<String> {
    namespaces_of(&pid.to_string())
}

/// Namespaces of live runs that exist now.
fn lab_namespaces() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("/run/netns")
        .map(|rd| {
            rd.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.starts_with("wisec-"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn namespaces_of(tag: &str) -> Vec<String> {
    lab_namespaces()
        .into_iter()
        .filter(|n| n.starts_with(&format!("wisec-{tag}-")))
        .collect()
}

/// Starts `wisec lab live ARGS` and waits for its "live BSS up" line; the
/// child and the run's tag.
fn start_live(args: &[&str]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(["lab", "live", "--calibration", "nominal"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running wisec");
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(Instant::now() < deadline, "no 'live BSS up' line");
        let Some(Ok(l)) = lines.next() else {
            let out = child.wait_with_output().unwrap();
            panic!(
                "wisec lab live ended early: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        if let Some(rest) = l.strip_prefix("live BSS up (run ") {
            let tag = rest.split(')').next().unwrap().to_string();
            // Keep reading in the background so that the child never
            // blocks on a full pipe.
            std::thread::spawn(move || for _ in lines {});
            return (child, tag);
        }
    }
}

fn wait_exit(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(
            Instant::now() < deadline,
            "wisec did not end after the signal"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

#[test]
fn sigterm_and_sigint_remove_everything_the_run_created() {
    let _g = serial();
    for sig in ["-TERM", "-INT"] {
        let (mut child, tag) = start_live(&["--stations", "1"]);
        assert_eq!(namespaces_of(&tag).len(), 3, "sta1, ap, server");
        let tmp = std::env::temp_dir().join(format!("wisec-{tag}"));
        assert!(tmp.is_dir(), "the run directory exists while it runs");
        signal(&child, sig);
        let st = wait_exit(&mut child, Duration::from_secs(20));
        assert_eq!(st.code(), Some(130), "{sig}");
        assert!(
            namespaces_of(&tag).is_empty(),
            "{sig}: {:?}",
            namespaces_of(&tag)
        );
        assert!(!tmp.exists(), "{sig}: the temporary run directory is gone");
    }
}

#[test]
fn a_killed_run_is_cleaned_up_by_the_next_one() {
    let _g = serial();
    let (mut child, tag) = start_live(&["--stations", "1"]);
    child.kill().unwrap();
    child.wait().unwrap();
    let left = namespaces_of(&tag);
    assert_eq!(left.len(), 3, "SIGKILL leaves the namespaces: {left:?}");
    let tmp = std::env::temp_dir().join(format!("wisec-{tag}"));
    assert!(tmp.is_dir(), "SIGKILL leaves the temporary run directory");
    let o = wisec(&[
        "lab",
        "live",
        "--calibration",
        "nominal",
        "--duration",
        "0.5",
        "--stations",
        "1",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("namespace(s) left by a live run"), "{err}");
    for n in &left {
        assert!(err.contains(n.as_str()), "{err}");
    }
    assert!(namespaces_of(&tag).is_empty());
    assert!(err.contains("temporary run directory(ies) left"), "{err}");
    assert!(!tmp.exists(), "the next run removed {}", tmp.display());
}

#[test]
fn a_timed_run_reports_its_medium_and_leaves_nothing() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let (o, pid) = wisec_pid(&[
        "lab",
        "live",
        "--calibration",
        "nominal",
        "--duration",
        "1",
        "--phy",
        "b",
        "--suite",
        "tkip",
        "--json",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let tag = v["tag"].as_str().unwrap();
    assert_eq!(v["namespaces"].as_array().unwrap().len(), 4);
    let m = &v["outcome"]["medium"];
    assert!(m["wall_s"].as_f64().unwrap() >= 1.0);
    assert!(m["lag"]["samples"].as_u64().unwrap() > 0);
    assert!(m["cpu_s"].as_f64().is_some());
    let phases = v["outcome"]["status"]["phases"].as_array().unwrap();
    assert!(phases.iter().all(|p| p == "Connected"), "{phases:?}");
    assert!(dir.path().join("channel.pcap").exists());
    assert!(dir.path().join("live.json").exists());
    assert!(tag.starts_with(&format!("{pid}-")));
    assert!(namespaces_of(tag).is_empty());
    assert!(namespaces_of_pid(pid).is_empty());
}

#[test]
fn without_privileges_nothing_is_created() {
    let _g = serial();
    // setpriv execs wisec in its own process: the pid is wisec's.
    let (o, pid) = run_pid(
        Command::new("setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "--inh-caps=-all",
            ])
            .arg(env!("CARGO_BIN_EXE_wisec"))
            .args(["lab", "live", "--calibration", "nominal", "--duration", "1"]),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("the live lab needs root"), "{err}");
    assert!(namespaces_of_pid(pid).is_empty());
}

#[test]
fn bad_input_is_refused_before_anything_is_created() {
    let _g = serial();
    let usage = |args: &[&str], says: &str| {
        let mut a = vec!["lab", "live", "--calibration", "nominal", "--duration", "1"];
        a.extend_from_slice(args);
        let (o, pid) = wisec_pid(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(namespaces_of_pid(pid).is_empty(), "{args:?}");
    };
    usage(&["--stations", "0"], "--stations 0");
    usage(&["--hidden", "sta1,nosuch"], "hidden: no node 'nosuch'");
    usage(&["--loss", "sta1,ap,2"], "--loss sta1,ap,2");
    usage(&["--suite", "rot13"], "--suite rot13");
    usage(&["--phy", "b", "--rate", "54"], "--rate 54");
    usage(&["--mcs", "3"], "go with --phy n");
    usage(&["--phy", "n", "--mcs", "9"], "--mcs 9");
    // An experiment that cannot run live says so.
    let o = wisec(&["lab", "run", "saturation", "--live", "--quick"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot run live"));
    // Missing programs are named at once with their Debian packages (no
    // iperf3 or ping on this PATH; `ip` is found in /usr/sbin).
    let (o, pid) = run_pid(
        Command::new(env!("CARGO_BIN_EXE_wisec"))
            .args(["lab", "run", "overhead", "--live", "--quick"])
            .env("PATH", "/nonexistent"),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("iperf3, ping are not installed (Debian packages: iperf3 iputils-ping"),
        "{err}"
    );
    assert!(namespaces_of_pid(pid).is_empty());
}

/// tshark's count of decrypted frames carrying `proto`.
fn tshark_count(pcap: &Path, proto: &str) -> usize {
    let key = format!(
        "uat:80211_keys:\"wpa-pwd\",\"{}:{}\"",
        wisec_lab::bss::PASSPHRASE,
        wisec_lab::bss::SSID
    );
    let o = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(pcap)
        .args(["-o", "wlan.enable_decryption:TRUE", "-o", &key, "-Y", proto])
        .output()
        .expect("tshark");
    assert!(o.status.success());
    String::from_utf8_lossy(&o.stdout).lines().count()
}

#[test]
fn live_overhead_sets_the_simulator_beside_real_programs() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ov");
    let (o, pid) = wisec_pid(&[
        "lab",
        "run",
        "overhead",
        "--live",
        "--quick",
        "--set",
        "suites=open,ccmp128",
        "--set",
        "measures=tcp,udp,ping",
        "--calibration",
        "nominal",
        "--pcap",
        "all",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("live - simulated (%)"), "{report}");
    assert!(report.contains("The live medium at 11 Mb/s"), "{report}");
    for suite in ["open", "ccmp128"] {
        let t: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(
                out.join(format!("trials/enterprise-{suite}-tcp-11mbps-t00.json")),
            )
            .unwrap(),
        )
        .unwrap();
        let m = &t["metrics"];
        let live = m["throughput_kbps"].as_f64().unwrap();
        let sim = m["sim_throughput_kbps"].as_f64().unwrap();
        // 100 KB over 802.11b at 11 Mb/s: a few Mb/s, live and simulated.
        assert!((2000.0..7500.0).contains(&live), "{suite}: live {live}");
        assert!((2000.0..7500.0).contains(&sim), "{suite}: simulated {sim}");
        assert!(m["lag_p99_us"].as_f64().is_some() && m["valid"].is_boolean());
        let p: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(
                out.join(format!("trials/enterprise-{suite}-ping-11mbps-t00.json")),
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(p["metrics"]["ping_replies"].as_u64(), Some(3));
        // Every UDP datagram arrives: the path is primed before the timed
        // transfer, and the TAP's queue holds the whole of it.
        let u: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(
                out.join(format!("trials/enterprise-{suite}-udp-11mbps-t00.json")),
            )
            .unwrap(),
        )
        .unwrap();
        let m = &u["metrics"];
        assert_eq!(m["delivered_bytes"], m["sent_bytes"], "{suite}: {m}");
        assert_eq!(m["sent_bytes"].as_u64(), Some(100_000));
    }
    // The CCMP-128 TCP trial's capture: tshark decrypts it from the
    // passphrase alone, and so does wisec.
    let pcap = out.join("channels/enterprise-ccmp128-tcp-11mbps-t00-live.pcap");
    let tcp = tshark_count(&pcap, "tcp.len > 1000");
    assert!(tcp >= 70, "tshark decrypted {tcp} full TCP segments");
    let plain = dir.path().join("plain.pcap");
    let o = wisec(&[
        "decrypt",
        pcap.to_str().unwrap(),
        plain.to_str().unwrap(),
        "--passphrase",
        wisec_lab::bss::PASSPHRASE,
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let decrypted = v["decrypted"].as_u64().unwrap_or(0);
    assert!(decrypted as usize >= tcp, "{v}");
    // The run left nothing behind.
    assert!(namespaces_of_pid(pid).is_empty());
}

/// Every copy of `program` where wisec looks for it: `PATH` and the
/// directories it adds (the sbin directories, strongSwan's libexec).
fn installed_copies(program: &str) -> Vec<String> {
    let path = std::env::var("PATH").unwrap_or_default();
    let mut dirs: Vec<&str> = path.split(':').collect();
    dirs.extend([
        "/usr/local/sbin",
        "/usr/sbin",
        "/sbin",
        "/usr/lib/ipsec",
        "/usr/libexec/ipsec",
    ]);
    let mut v: Vec<String> = dirs
        .iter()
        .map(|d| format!("{d}/{program}"))
        .filter(|p| Path::new(p).is_file())
        .filter_map(|p| std::fs::canonicalize(&p).ok())
        .map(|p| p.display().to_string())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// `lab run multihop` with a daemon or the load program missing — hidden
/// behind /dev/null in a private mount namespace, the host's files
/// untouched — names it with its Debian package and exits 1 before
/// anything is created: no output directory, no namespace.
#[test]
fn multihop_names_a_missing_daemon_before_anything_starts() {
    let _g = serial();
    for (program, package) in [
        ("babeld", "babeld"),
        ("charon", "strongswan-charon"),
        ("swanctl", "strongswan-swanctl"),
        ("ffmpeg", "ffmpeg"),
    ] {
        let copies = installed_copies(program);
        assert!(
            !copies.is_empty(),
            "{program} is installed (scripts/prereqs.sh)"
        );
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("mh");
        let hide: Vec<String> = copies
            .iter()
            .map(|p| format!("mount --bind /dev/null {p}"))
            .collect();
        // unshare execs the shell, which execs wisec: one process id.
        let script = format!("{} && exec \"$0\" \"$@\"", hide.join(" && "));
        let (o, pid) = run_pid(
            Command::new("unshare")
                .args(["--mount", "--propagation", "private", "sh", "-c"])
                .arg(&script)
                .arg(env!("CARGO_BIN_EXE_wisec"))
                .args(["lab", "run", "multihop", "--quick", "-q", "--out"])
                .arg(&out),
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{program}: {err}");
        assert!(
            err.contains(&format!(
                "{program} is not installed (Debian package: {package}"
            )),
            "{program}: {err}"
        );
        assert!(!out.exists(), "{program}: {}", out.display());
        assert!(namespaces_of_pid(pid).is_empty(), "{program}");
    }
}

#[test]
fn bench_live_csv_has_the_json_rows() {
    let _g = serial();
    let args = [
        "bench",
        "live",
        "--links",
        "b11",
        "--seconds",
        "1",
        "--runs",
        "1",
    ];
    let run = |fmt: &str| {
        let mut a = args.to_vec();
        a.push(fmt);
        let (o, pid) = wisec_pid(&a);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(namespaces_of_pid(pid).is_empty());
        String::from_utf8(o.stdout).unwrap()
    };
    let json: serde_json::Value = serde_json::from_str(&run("--json")).unwrap();
    let rows = json["rows"].as_array().unwrap();
    // One UDP and one TCP test of the one link, each with a medium that
    // carried frames.
    assert_eq!(rows.len(), 2, "{json}");
    assert!(rows.iter().all(|r| r["frames"].as_u64().unwrap() > 0));
    let csv = run("--csv");
    assert!(csv.starts_with("link,rate,traffic,offered_mbps,run,live_mbps,"));
    assert!(csv.contains(",lag.p50_us,"), "{csv}");
    // Two runs of a live test: only what does not depend on timing is
    // compared value by value; every column is a field of the JSON rows.
    common::csv::compare(
        &csv,
        rows,
        Some(&["link", "rate", "traffic", "offered_mbps", "run"]),
    );
    // One of the two, not both.
    let mut a = args.to_vec();
    a.extend(["--csv", "--json"]);
    assert_eq!(wisec(&a).status.code(), Some(2));
}
