//! `wisec lab` end to end: the list, a small saturation run with every
//! output file (its channel pcap read back by wisec's reader and by
//! tshark), determinism, scenario files with errors, and usage errors.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn wisec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(args)
        .output()
        .expect("running wisec")
}

fn small_run(out: &Path, extra: &[&str]) -> Output {
    let out = out.display().to_string();
    let mut args = vec![
        "lab",
        "run",
        "saturation",
        "--stations",
        "1,4",
        "--seconds",
        "0.5",
        "--seed",
        "5",
        "--trials",
        "2",
        "--calibration",
        "nominal",
        "--out",
        &out,
    ];
    args.extend_from_slice(extra);
    wisec(&args)
}

#[test]
fn list_names_the_saturation_experiment_and_its_scenario() {
    let o = wisec(&["lab", "list"]);
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("\n  saturation "), "{out}");
    assert!(out.contains("Bianchi"));
    assert!(out.contains("[scenarios/saturation.toml]"), "{out}");
}

#[test]
fn saturation_writes_its_report_and_is_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let out1 = dir.path().join("one");
    let out2 = dir.path().join("two");
    let o = small_run(&out1, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(table.contains("Bianchi (Mb/s)"), "{table}");
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
        serde_json::from_str(&std::fs::read_to_string(out1.join("results.json")).unwrap()).unwrap();
    assert_eq!(json["status"], "complete");
    assert_eq!(json["trials"].as_array().unwrap().len(), 8);
    assert_eq!(
        json["report"]["tables"][0]["rows"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
    let csv = std::fs::read_to_string(out1.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 9);
    assert!(csv.starts_with("index,label,seed,access,stations,trial,"));
    let sc = std::fs::read_to_string(out1.join("scenario.toml")).unwrap();
    assert!(sc.contains("stations = [1, 4]"), "{sc}");
    assert!(sc.contains("seed = 5"), "{sc}");
    let md = std::fs::read_to_string(out1.join("report.md")).unwrap();
    assert!(md.contains("![Saturation throughput"), "{md}");
    // The simulator's speed per trial: its virtual time and events, as in
    // results.json, over the trial's wall time.
    assert!(md.contains("## Simulator speed"), "{md}");
    let speed = std::fs::read_to_string(out1.join("speed.csv")).unwrap();
    let rows: Vec<&str> = speed.lines().skip(1).collect();
    assert_eq!(rows.len(), 8, "{speed}");
    for (row, trial) in rows.iter().zip(json["trials"].as_array().unwrap()) {
        let f: Vec<&str> = row.split(',').collect();
        assert_eq!(f[0], trial["spec"]["label"].as_str().unwrap());
        assert_eq!(f[2], trial["events"].to_string());
        let (sim, wall, per) = (
            f[1].parse::<f64>().unwrap(),
            f[3].parse::<f64>().unwrap(),
            f[4].parse::<f64>().unwrap(),
        );
        assert!((sim - trial["sim_time_ns"].as_f64().unwrap() / 1e9).abs() < 1e-6);
        assert!(
            wall > 0.0 && (per - sim / wall).abs() <= 1e-3 * per + 1e-3,
            "{row}"
        );
    }
    // The report's reproduction command, run as printed, gives the same
    // results.
    let cmd = md
        .lines()
        .find(|l| l.starts_with("wisec lab run ") && l.contains("scenario.toml"))
        .unwrap_or_else(|| panic!("no reproduction command in {md}"));
    let mut args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
    args.push("--quiet");
    let o = Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(&args)
        .current_dir(&out1)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read(out1.join("again").join("results.json")).unwrap(),
        std::fs::read(out1.join("results.json")).unwrap()
    );

    // The channel pcap: wisec's reader and tshark both read it whole.
    let pcap = out1.join("channels").join("basic-n001-t00-ch0.pcap");
    let (ifaces, packets) = common::read(&pcap);
    assert_eq!(ifaces.len(), 1);
    assert_eq!(ifaces[0].link_type, 127);
    assert!(packets.len() > 100);
    // Virtual time: the first PPDU starts within the first millisecond,
    // and time never goes backwards.
    assert!(packets[0].timestamp < 1_000_000, "{}", packets[0].timestamp);
    assert!(packets.windows(2).all(|w| w[0].timestamp <= w[1].timestamp));
    let t = Command::new("tshark")
        .args([
            "-r",
            pcap.to_str().unwrap(),
            "-T",
            "fields",
            "-e",
            "radiotap.datarate",
            "-e",
            "wlan.fc.type_subtype",
        ])
        .output()
        .expect("tshark is required (scripts/prereqs.sh installs it)");
    assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
    let stderr = String::from_utf8_lossy(&t.stderr);
    assert!(
        !stderr.to_lowercase().contains("error") && !stderr.contains("appears to be damaged"),
        "{stderr}"
    );
    let fields = String::from_utf8(t.stdout).unwrap();
    assert_eq!(fields.lines().count(), packets.len());
    // Data frames at 11 Mb/s, Acks at a basic rate (2 Mb/s).
    assert!(
        fields.lines().any(|l| l.starts_with("11\t0x0020")),
        "{fields}"
    );
    assert!(
        fields.lines().any(|l| l.starts_with("2\t0x001d")),
        "{fields}"
    );

    // The same command again: identical results.
    let o = small_run(&out2, &[]);
    assert!(o.status.success());
    for f in [
        "results.json",
        "results.csv",
        "saturation.csv",
        "scenario.toml",
    ] {
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
        "--calibration",
        "nominal",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["status"], "complete");
    let params = v["report"]["parameters"].as_array().unwrap();
    let get = |n: &str| params.iter().find(|p| p["name"] == n).unwrap()["value"].clone();
    assert_eq!(get("phy"), "802.11g");
    assert_eq!(get("rate_mbps"), 54.0);
    assert_eq!(get("access"), "rts");
    assert_eq!(v["trials"].as_array().unwrap().len(), 1);
    assert_eq!(v["trials"][0]["spec"]["params"]["access"], "rts");
}

#[test]
fn scenario_files_run_and_bad_ones_name_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("g.toml");
    std::fs::write(
        &good,
        "name = \"tiny\"\nexperiment = \"saturation\"\nseed = 3\n\n[phy]\nstandard = \"a\"\n\n\
         [params]\nstations = [2]\naccess = [\"basic\"]\nseconds = 0.2\n",
    )
    .unwrap();
    let o = wisec(&[
        "lab",
        "run",
        good.to_str().unwrap(),
        "--calibration",
        "nominal",
        "--set",
        "params.ip_len=500",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.starts_with("saturation: tiny"), "{out}");
    assert!(out.contains("802.11a at 54 Mb/s, 500-octet"), "{out}");

    let bad = dir.path().join("b.toml");
    std::fs::write(
        &bad,
        "name = \"tiny\"\nexperiment = \"saturation\"\n\n[phy]\nstandard = \"b\"\npreamble = \"short\"\n",
    )
    .unwrap();
    let o = wisec(&["lab", "run", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains(&format!(
            "{}:6:1: phy.preamble: unknown field `preamble`",
            bad.display()
        )),
        "{err}"
    );
    assert!(
        err.contains("expected one of `standard`, `rate`, `short_preamble`"),
        "{err}"
    );

    let o = wisec(&[
        "lab",
        "run",
        good.to_str().unwrap(),
        "--set",
        "params.stations=[0]",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("params.stations"), "{err}");

    let o = wisec(&[
        "lab",
        "run",
        dir.path().join("missing.toml").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.toml"));
}

#[test]
fn a_non_empty_out_directory_is_refused_unless_force_which_clears_the_earlier_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let o = small_run(&out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let manifest = std::fs::read_to_string(out.join(".wisec-files")).unwrap();
    for f in [
        "results.json",
        "saturation.csv",
        "report.md",
        "trials/rts-n004-t01.json",
    ] {
        assert!(manifest.lines().any(|l| l == f), "{f} in {manifest}");
    }
    // A trial file of an earlier, larger run, and a file of the user's.
    std::fs::write(out.join("trials/basic-n009-t07.json"), "{}").unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let before = std::fs::read(out.join("results.json")).unwrap();
    let o = small_run(&out, &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("not empty") && err.contains("--force"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read(out.join("results.json")).unwrap(), before);
    assert!(out.join("trials/basic-n009-t07.json").exists());
    // --force: the earlier run's files go, the user's stay; what remains
    // is this run's alone.
    let o = small_run(&out, &["--force"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!out.join("trials/basic-n009-t07.json").exists());
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    let trials = std::fs::read_dir(out.join("trials"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "json")
        })
        .count();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(json["trials"].as_array().unwrap().len(), trials);
    assert_eq!(trials, 8);
    // --force needs --out.
    let o = wisec(&["lab", "run", "saturation", "--force"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn calibrate_keeps_an_existing_file_unless_force() {
    let dir = tempfile::tempdir().unwrap();
    let cal = dir.path().join("cal.json");
    std::fs::write(&cal, "keep").unwrap();
    let args = [
        "lab",
        "calibrate",
        "--nominal",
        "--out",
        cal.to_str().unwrap(),
    ];
    let o = wisec(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    assert_eq!(std::fs::read_to_string(&cal).unwrap(), "keep");
    let mut forced = args.to_vec();
    forced.push("--force");
    let o = wisec(&forced);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cal).unwrap()).unwrap();
    assert!(v["suites"].is_object(), "{v}");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["lab", "run", "nosuch"][..],
        &["lab", "run", "saturation", "--stations", "0"],
        &["lab", "run", "saturation", "--seconds", "-1"],
        &["lab", "run", "saturation", "--rate", "54"],
        &["lab", "run", "saturation", "--trials", "0"],
        &["lab", "run", "saturation", "--seed", "9223372036854775808"],
        &["lab", "run", "saturation", "--rate", "-1"],
        &["lab", "run", "saturation", "--rts", "--basic"],
        &["lab", "run", "saturation", "--set", "novalue"],
        &["lab", "run", "saturation", "--set", "phy.colour=red"],
        &["lab", "frobnicate"],
    ] {
        let o = wisec(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(!o.stderr.is_empty());
    }
}

/// multihop's bad input is refused before anything is created: a nice
/// level Linux does not have, a chain without a relay, a run that is not
/// live.
#[test]
fn multihop_refuses_bad_input_before_it_starts() {
    for (set, says) in [
        ("nice=-21,0", "-21 is not a nice level"),
        ("nice=[19, 20]", "20 is not a nice level"),
        ("chain=2", "3 to 50 nodes"),
        ("live=false", "runs only live"),
        ("load_on=sender", "load_on"),
    ] {
        let o = wisec(&["lab", "run", "multihop", "--set", set]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{set}: {err}");
        assert!(err.contains(says), "{set}: {err}");
    }
}

#[test]
fn tshark_decrypts_the_channel_pcap_of_a_protected_run_with_the_passphrase() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ov");
    let o = wisec(&[
        "lab",
        "run",
        "overhead",
        "--quick",
        "--set",
        "suites=ccmp128",
        "--set",
        "measures=udp",
        "--calibration",
        "nominal",
        "--pcap",
        "all",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    // The report gives the keys of what went on the air.
    let line = md
        .lines()
        .find(|l| l.contains("keys: ccmp128"))
        .unwrap_or_else(|| panic!("{md}"));
    let field = |after: &str| line.split(after).nth(1).unwrap().split('`').nth(1).unwrap();
    let (ssid, pass) = (field("SSID "), field("passphrase "));
    let pcaps: Vec<_> = std::fs::read_dir(out.join("channels"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(pcaps.len(), 1, "{pcaps:?}");
    let count = |filter: &str, key: Option<String>| {
        let mut c = Command::new("tshark");
        c.args(["-r", pcaps[0].to_str().unwrap(), "-Y", filter]);
        if let Some(k) = key {
            c.args(["-o", "wlan.enable_decryption:TRUE", "-o", &k]);
        }
        let t = c
            .output()
            .expect("tshark is required (scripts/prereqs.sh installs it)");
        assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
        String::from_utf8(t.stdout).unwrap().lines().count()
    };
    let key = || Some(format!("uat:80211_keys:\"wpa-pwd\",\"{pass}:{ssid}\""));
    // Encrypted without the key, readable with it: every protected data
    // frame on the air decrypts (a decrypted frame shows its LLC header),
    // and they carry the UDP transfer.
    assert_eq!(count("udp", None), 0);
    let protected = "wlan.fc.protected == 1 && wlan.fc.type == 2";
    let on_air = count(protected, None);
    assert!(on_air > 50, "{on_air} protected data frames");
    assert_eq!(count(&format!("{protected} && llc"), key()), on_air);
    assert_eq!(count(&format!("{protected} && !llc"), key()), 0);
    let n = count("udp", key());
    assert!(
        n > 50 && n <= on_air,
        "{n} UDP datagrams decrypted of {on_air}"
    );
}

#[test]
fn ctrl_c_stops_after_the_current_trial_and_leaves_a_consistent_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("int");
    let child = Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args([
            "lab",
            "run",
            "saturation",
            "--stations",
            "1,2,3,4,5,6,7,8,9,10",
            "--seconds",
            "2",
            "--trials",
            "5",
            "--calibration",
            "nominal",
            "--out",
            out.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first trial's files, then interrupt as Ctrl-C does.
    let first = out.join("trials").join("basic-n001-t00.json");
    let start = std::time::Instant::now();
    while !first.exists() {
        assert!(start.elapsed().as_secs() < 120, "no trial completed");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let all: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(all["status"], "interrupted");
    let done = all["completed"].as_u64().unwrap();
    assert!((1..100).contains(&done), "{done}");
    // Every completed trial has its files, and nothing half-written is left.
    let trials: Vec<_> = std::fs::read_dir(out.join("trials"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(trials.len() as u64, 2 * done, "{trials:?}");
    assert!(trials
        .iter()
        .all(|p| !p.to_string_lossy().ends_with(".part")));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains(&format!(
            "Incomplete: interrupted after {done} of 100 trials"
        )),
        "{md}"
    );
}

/// A long trial shows its progress (virtual time) while it runs; the first
/// Ctrl-C says the current trial will be finished, the second stops at
/// once (exit 130) without waiting for it.
#[test]
fn a_long_trial_shows_progress_and_ctrl_c_says_what_it_does() {
    use std::io::{BufRead, BufReader};
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("long");
    // 50 saturated stations for 300 virtual seconds: about a minute of
    // simulation, stopped long before.
    let mut child = Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args([
            "lab",
            "run",
            "saturation",
            "--set",
            "params.stations=[50]",
            "--seconds",
            "300",
            "--trials",
            "1",
            "--calibration",
            "nominal",
            "--no-plots",
            "--out",
            out.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(err).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let wait_for = |what: &str, limit: Duration| -> String {
        let start = Instant::now();
        loop {
            let left = limit.saturating_sub(start.elapsed());
            match rx.recv_timeout(left) {
                Ok(l) if l.contains(what) => return l,
                Ok(_) => {}
                Err(e) => panic!("no line with {what:?}: {e}"),
            }
        }
    };
    let sigint = |pid: u32| {
        let k = Command::new("kill")
            .args(["-INT", &pid.to_string()])
            .status()
            .unwrap();
        assert!(k.success());
    };
    // Within the first trial: its virtual time, every 5 s without a
    // terminal.
    let line = wait_for("virtual s simulated", Duration::from_secs(60));
    assert!(line.starts_with("trial 1/2 (basic-n050-t00): "), "{line}");
    sigint(child.id());
    wait_for("finishing the current trial", Duration::from_secs(10));
    let again = Instant::now();
    sigint(child.id());
    wait_for("interrupted again; stopping now", Duration::from_secs(10));
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    // It did not wait for the trial (tens of seconds more).
    assert!(again.elapsed() < Duration::from_secs(10));
    reader.join().unwrap();
    // No trial completed, none half-written.
    let trials = out.join("trials");
    let written = std::fs::read_dir(&trials).map_or(0, |d| d.count());
    assert_eq!(written, 0, "{trials:?}");
}

/// The shorthands either map to the experiment's own parameter or are
/// refused (exit 2) naming the parameter to set instead.
#[test]
fn shorthands_map_to_each_experiment_or_name_the_parameter() {
    for (args, words) in [
        (
            &["lab", "run", "congestion", "--rate", "54"][..],
            "params.mcs",
        ),
        (
            &["lab", "run", "ccm-udp", "--rate", "54"],
            "params.link_mbps",
        ),
        (&["lab", "run", "overhead", "--phy", "g"], "params.rates"),
        (
            &["lab", "run", "attacks", "--seconds", "3"],
            "params.attack",
        ),
        (
            &["lab", "run", "discosec", "--standard-mac"],
            "only saturation",
        ),
        (&["lab", "run", "overhead", "--rts"], "RTS/CTS"),
        (
            &["lab", "run", "multihop", "--stations", "3"],
            "params.chain",
        ),
        (
            &["lab", "run", "configs", "--stations", "2"],
            "params.configs",
        ),
        (&["lab", "run", "configs", "--seconds", "3"], "params.bytes"),
    ] {
        let o = wisec(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(words), "{args:?}: {err}");
    }
    // Mapped: an out-of-range value is then refused by the experiment's
    // own parameter, by its name.
    let o = wisec(&["lab", "run", "discosec", "--rate", "7"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("rate"));
    let o = wisec(&["lab", "run", "overhead", "--rate", "7"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("rates"));
    let o = wisec(&["lab", "run", "configs", "--rate", "7"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("rate: '7.0' is not valid"));
}

/// `lab run all`: every experiment `lab list` names is in the index, each
/// simulated one with its report written as `lab run NAME` writes it (the
/// same results.json, byte for byte, for the same calibration), the
/// live-only ones with the command that runs them; and its usage errors.
#[test]
fn run_all_writes_every_experiment_and_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all");
    let o = out.display().to_string();

    let r = wisec(&["lab", "run", "all"]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("--out DIR"));
    let r = wisec(&["lab", "run", "all", "--out", &o, "--set", "trials=1"]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("--set"));
    assert!(!out.exists(), "nothing written on a usage error");

    let args = [
        "lab",
        "run",
        "all",
        "--quick",
        "--calibration",
        "nominal",
        "-q",
    ];
    let r = wisec(&[&args[..], &["--out", &o]].concat());
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));

    let list = wisec(&["lab", "list"]);
    let list = String::from_utf8_lossy(&list.stdout);
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("index.json")).unwrap()).unwrap();
    let md = std::fs::read_to_string(out.join("index.md")).unwrap();
    let listed: Vec<(&str, bool)> = list
        .lines()
        .skip(1)
        .filter_map(|l| {
            let name = l.split_whitespace().next()?;
            Some((name, l.contains("(live only)")))
        })
        .collect();
    let entries = index["experiments"].as_array().unwrap();
    assert_eq!(entries.len(), listed.len());
    assert!(listed.len() >= 8, "{list}");
    for (name, live_only) in &listed {
        let e = entries
            .iter()
            .find(|e| e["experiment"] == *name)
            .unwrap_or_else(|| panic!("{name} not in the index"));
        assert!(
            md.contains(&format!("| {name} |")),
            "{name} not in index.md"
        );
        if *live_only {
            assert_eq!(e["status"], "live only", "{name}");
            assert!(!out.join(name).exists());
        } else {
            assert_eq!(e["status"], "complete", "{name}");
            let report = e["report"].as_str().unwrap();
            assert!(out.join(report).is_file(), "{report}");
            assert!(md.contains(&format!("]({report})")));
            assert!(out.join(name).join("results.json").is_file(), "{name}");
        }
    }

    // As `lab run NAME` writes it, with the calibration the index kept.
    let one = dir.path().join("one");
    let cal = out.join("calibration.json").display().to_string();
    let r = wisec(&[
        "lab",
        "run",
        "saturation",
        "--quick",
        "--calibration",
        &cal,
        "-q",
        "--out",
        &one.display().to_string(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(
        std::fs::read(one.join("results.json")).unwrap(),
        std::fs::read(out.join("saturation").join("results.json")).unwrap()
    );

    // A second run into the same directory needs --force.
    let r = wisec(&[&args[..], &["--out", &o]].concat());
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("--force"));
}
