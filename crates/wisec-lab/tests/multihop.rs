//! Seed 004's network, live: three nodes of an ad hoc chain in network
//! namespaces over the lab's medium, routed by babeld, with strongSwan's
//! charon on the two ends; checked with ping, with tshark on the channel
//! capture, and for what is left afterwards.
//!
//! These tests need root (CI runs as root) and babeld, strongSwan, nft,
//! ffmpeg and tshark (scripts/prereqs.sh installs them). They run one at
//! a time.
#![cfg(target_os = "linux")]

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use wisec_lab::cost::Calibration;
use wisec_lab::experiment::{self, RunOptions, Value};
use wisec_lab::ipsec_trace;
use wisec_lab::live::adhoc::Reach;
use wisec_lab::live::babel::BabelSettings;
use wisec_lab::live::ipsec::{IkeSuite, KeyType, Mode};
use wisec_lab::live::net::{lab_namespaces, PREFIX};
use wisec_lab::live::secure_chain::{ChainSettings, SecureChain};
use wisec_lab::output::{self, RunSettings, Status};
use wisec_lab::pcap::read_radiotap;
use wisec_lab::progress::ProgressMode;
use wisec_lab::scenario::CaptureMode;

static SERIAL: Mutex<()> = Mutex::new(());

/// tshark's reading of `pcap`: one line per frame matching `filter`, with
/// `fields`.
fn tshark(pcap: &Path, filter: &str, fields: &[&str]) -> Vec<String> {
    let mut cmd = Command::new("tshark");
    cmd.args(["-n", "-r"])
        .arg(pcap)
        .args(["-Y", filter, "-T", "fields"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("tshark runs (Debian package tshark)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Processes whose command line mentions `needle`.
fn processes_mentioning(needle: &str) -> Vec<String> {
    let mut v = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(c) = std::fs::read(e.path().join("cmdline")) {
            let s = String::from_utf8_lossy(&c).replace('\0', " ");
            if s.contains(needle) {
                v.push(s);
            }
        }
    }
    v
}

/// Mount points of this (the host's) mount namespace under `dir`.
fn mounts_under(dir: &Path) -> Vec<String> {
    let m = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    let d = dir.display().to_string();
    m.lines()
        .filter(|l| l.contains(&d))
        .map(str::to_string)
        .collect()
}

/// Control groups of the run with tag `tag`, in either cgroup layout.
fn groups_of(tag: &str) -> Vec<String> {
    ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup"]
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flat_map(|rd| rd.flatten())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(&format!("{PREFIX}{tag}")))
        .collect()
}

fn quick_settings() -> ChainSettings {
    ChainSettings {
        babel: BabelSettings { hello_s: 0.5 },
        key: KeyType::Ecdsa256,
        ..ChainSettings::default()
    }
}

/// The kernel's route from A to C, as `ip route get` in A's namespace
/// shows it, goes via B.
fn assert_a_routes_to_c_through_b(chain: &SecureChain) {
    let ns_a = chain.ns(0).unwrap();
    let c = chain.responder();
    let out = chain
        .net()
        .ip_in(&ns_a, &["-4", "route", "get", &c.ip.to_string()])
        .unwrap();
    let route = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        route.contains(&format!("via {}", chain.node(1).ip)),
        "{route}"
    );
}

/// Three nodes, A and C out of each other's range: babeld gives both ends
/// a route through B; IKEv2 establishes a CHILD_SA between A and C; a
/// ping from A to C gets its replies; on the air, tshark sees A's and C's
/// frames only as UDP-encapsulated ESP (and IKE), never as cleartext
/// ICMP, and sees every ESP frame between them go to or come from B, with
/// B relaying packets both ways; afterwards no namespace, process or mount
/// of the run remains.
#[test]
fn ikev2_between_the_ends_of_a_babel_routed_chain() {
    let _g = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let setup_pcap = dir.path().join("setup.pcap");
    let mut chain =
        SecureChain::create(quick_settings(), Some(dir.path()), Some(&setup_pcap), None).unwrap();
    let tag = chain.net().tag().to_string();
    assert!(chain.convergence() > Duration::ZERO);
    if chain.node_groups() {
        assert_eq!(groups_of(&tag).len(), 3, "{:?}", groups_of(&tag));
        // Each end's charon runs in its node's group.
        for i in [0, 2] {
            let pid = chain.charon_pid(i).unwrap();
            let cg = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap();
            let want = format!("{PREFIX}{tag}-{}", chain.node(i).name);
            assert!(cg.contains(&want), "{cg}");
        }
    }
    let (a, c) = (chain.initiator(), chain.responder());
    let b_mac = chain.node(1).addr;
    assert_a_routes_to_c_through_b(&chain);

    chain
        .use_suite(&IkeSuite::ikev2_gcm(), Mode::Tunnel)
        .unwrap();
    let pcap = dir.path().join("channel.pcap");
    chain.switch_medium(Some(&pcap)).unwrap();
    let e = chain
        .establish(Duration::from_millis(5), Duration::from_secs(20))
        .unwrap();
    assert!(e.established, "{e:?}");
    assert!(e.first_data_ms.is_some(), "{e:?}");
    let sas = chain.charons().1.clone().list_sas(chain.net_mut()).unwrap();
    assert!(
        sas.contains("ESTABLISHED") && sas.contains("INSTALLED"),
        "{sas}"
    );
    let ping = chain.ping(0, c.ip, 3, "ping-a-c").unwrap();
    assert_eq!(ping.received, 3, "{ping:?}");
    chain.teardown(Duration::from_secs(30)).unwrap();
    let outcome = chain.switch_medium(None).unwrap().unwrap();
    assert!(outcome.medium.pcap_records > 0);

    // tshark's view of the capture.
    let (ai, ci) = (a.ip.to_string(), c.ip.to_string());
    let between = format!("ip.addr=={ai} && ip.addr=={ci}");
    let icmp = tshark(&pcap, &format!("{between} && icmp"), &["frame.number"]);
    assert!(icmp.is_empty(), "cleartext ICMP between A and C: {icmp:?}");
    let esp = tshark(
        &pcap,
        &format!("{between} && udp.port==4500 && esp"),
        &["wlan.ta", "wlan.ra", "esp.spi", "esp.sequence"],
    );
    assert!(esp.len() >= 6, "ESP frames: {esp:?}");
    let ike = tshark(
        &pcap,
        &format!("{between} && isakmp"),
        &["isakmp.exchangetype"],
    );
    assert!(!ike.is_empty());
    // A-C packets cross the air from their end to B, and from B to the
    // other end: every ESP frame is sent to B or by B, and B relays packets
    // (SPI and sequence number) its ends sent it, in both directions.
    // Counting frames would not do: the MAC retries a frame whose ACK did
    // not come, and a packet may be lost.
    let (b, ends) = (b_mac.to_string(), [a.mac.to_string(), c.mac.to_string()]);
    let fields: Vec<Vec<&str>> = esp.iter().map(|l| l.split('\t').collect()).collect();
    let hop = |f: &[&str]| {
        (f[0] == b && ends.contains(&f[1].to_string()))
            || (f[1] == b && ends.contains(&f[0].to_string()))
    };
    assert!(fields.iter().all(|f| f.len() == 4 && hop(f)), "{esp:?}");
    let sent: BTreeSet<(&str, &str)> = fields
        .iter()
        .filter(|f| f[1] == b)
        .map(|f| (f[2], f[3]))
        .collect();
    let relayed: BTreeSet<(&str, &str)> = fields
        .iter()
        .filter(|f| f[0] == b)
        .map(|f| (f[2], f[3]))
        .collect();
    assert!(relayed.is_subset(&sent), "{esp:?}");
    let spis = |s: &BTreeSet<(&str, &str)>| s.iter().map(|p| p.0).collect::<BTreeSet<_>>().len();
    assert_eq!(spis(&relayed), 2, "{esp:?}");
    let others = tshark(
        &pcap,
        &format!("{between} && !isakmp && !esp && !udpencap"),
        &["frame.protocols"],
    );
    assert!(others.is_empty(), "cleartext between A and C: {others:?}");
    // IBSS beacons, as tshark reads them.
    let beacons = tshark(
        &pcap,
        "wlan.fc.type_subtype == 0x0008 && wlan.fixed.capabilities.ibss == 1",
        &["wlan.bssid"],
    );
    assert!(!beacons.is_empty());

    // The setup as the lab reads it.
    let packets = ipsec_trace::packets(&read_radiotap(&pcap).unwrap());
    let s = ipsec_trace::setup(&packets, a, c, b_mac).unwrap();
    assert!(s.setup_ms.is_some_and(|ms| ms > 0.0), "{s:?}");
    assert!(s.ike_sent >= 4, "{s:?}");
    assert!(ipsec_trace::cleartext_between(&packets, a.ip, c.ip).is_empty());

    let report = chain.close();
    assert!(report.failures.is_empty(), "{report:?}");
    let left: Vec<String> = lab_namespaces()
        .into_iter()
        .filter(|n| n.starts_with(&format!("{PREFIX}{tag}")))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    assert!(processes_mentioning(&dir.path().display().to_string()).is_empty());
    assert!(mounts_under(dir.path()).is_empty());
    assert!(groups_of(&tag).is_empty(), "{:?}", groups_of(&tag));
}

/// A two-point sweep of the stream load on the receiver at nice -20 and
/// 19 with IKEv1 (main and quick mode, 3DES).
fn ikev1_sweep() -> RunOptions {
    let set = |k: &str, v: &str| (k.to_string(), v.to_string());
    RunOptions {
        seed: 3,
        trials: Some(1),
        quick: false,
        live: true,
        overrides: vec![
            set("ike", "ikev1"),
            set("load_on", "receiver"),
            set("nice", "-20,19"),
            set("baseline", "false"),
            set("hello", "0.5"),
            set("key", "ecdsa256"),
            set("warmup", "0.5"),
            set("stream_size", "320x240"),
        ],
    }
}

/// [`ikev1_sweep`] through the lab's runner into `out`, every channel
/// captured.
fn run_sweep(out: &Path, interrupt: Option<Arc<AtomicBool>>) -> output::Outcome {
    let exp = experiment::create("multihop", &ikev1_sweep()).unwrap();
    let cal = Calibration::nominal();
    let settings = RunSettings {
        out: Some(out.to_path_buf()),
        calibration: &cal,
        capture: CaptureMode::All,
        plots: false,
        scenario_toml: None,
        scenario_name: "multihop-test".into(),
        interrupt,
        progress: ProgressMode::Quiet,
    };
    output::run(exp.as_ref(), &settings).unwrap()
}

/// The tests take the lab's namespaces one at a time.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Nothing of this process's live runs is left: namespaces, processes
/// and mounts under `out`, control groups.
fn assert_nothing_left(out: &Path) {
    let me = format!("{PREFIX}{}-", std::process::id());
    let left: Vec<String> = lab_namespaces()
        .into_iter()
        .filter(|n| n.starts_with(&me))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    assert!(processes_mentioning(&out.display().to_string()).is_empty());
    assert!(mounts_under(out).is_empty());
    assert!(groups_of(&format!("{}", std::process::id())).is_empty());
}

/// `multihop` through the lab's runner: [`ikev1_sweep`] returns a setup
/// time for each point and a report that says what ran; afterwards
/// nothing of the run remains.
#[test]
fn a_two_point_sweep_on_the_receiver_with_ikev1() {
    let _g = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let outcome = run_sweep(&out, None);
    assert_eq!(outcome.status, Status::Complete, "{:?}", outcome.error);
    assert_eq!(outcome.results.len(), 2);
    let report = &outcome.report;
    let connection = report
        .tables
        .iter()
        .find(|t| t.name == "connection")
        .unwrap();
    let row = &connection.rows[0];
    assert_eq!(row[0], Value::from("ikev1"));
    if row[2] == Value::Bool(true) {
        // IKEv1 ran: each point has its setup time, from the capture.
        for r in &outcome.results {
            assert_eq!(
                r.metrics.get("established"),
                Some(&Value::Bool(true)),
                "{r:?}"
            );
            assert!(r.metric("setup_ms").is_some_and(|ms| ms > 0.0), "{r:?}");
            // Main mode's six messages and quick mode's first two at least.
            assert!(r.metric("ike_sent").is_some_and(|n| n >= 8.0), "{r:?}");
            assert_eq!(r.metric("cleartext_from_initiator"), Some(0.0));
        }
        let mode = row[3].as_str().unwrap();
        assert!(mode == "tunnel" || mode == "transport");
        // tshark sees main mode (Identity Protection) and quick mode.
        let pcap = out.join("channels/ikev1-receiver-n-20-t00-live.pcap");
        let ex = tshark(&pcap, "isakmp", &["isakmp.exchangetype"]);
        assert!(ex.iter().any(|e| e == "2"), "{ex:?}");
        assert!(ex.iter().any(|e| e == "32"), "{ex:?}");
    } else {
        // Or the report says why not.
        assert!(row[4].as_str().is_some_and(|w| !w.is_empty()), "{row:?}");
    }
    let fig9 = report.tables.iter().find(|t| t.name == "figure_9").unwrap();
    assert_eq!(fig9.rows.len(), 2);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("Figure 9"), "{md}");
    assert!(md.contains("babeld"), "{md}");
    // The stream reached the initiator.
    assert!(
        outcome.results.iter().any(|r| r
            .metric("stream_kbps_at_initiator")
            .is_some_and(|k| k > 0.0)),
        "{:?}",
        outcome.results
    );
    assert_nothing_left(&out);
}

/// Ctrl-C soon after the sweep's first trial began (its channel capture
/// exists): the run ends as interrupted before its second point, says so
/// in its report, and nothing of it remains.
#[test]
fn an_interrupt_during_a_trial_ends_the_sweep_and_leaves_nothing() {
    let _g = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let flag = Arc::new(AtomicBool::new(false));
    let first = out.join("channels/ikev1-receiver-n-20-t00-live.pcap");
    let outcome = std::thread::scope(|s| {
        let (flag, first) = (&flag, &first);
        s.spawn(move || {
            // The first trial has begun when its capture exists; the
            // interrupt then comes during that trial or between the two
            // points. A run that never gets there is stopped too.
            let until = std::time::Instant::now() + Duration::from_secs(120);
            while !first.exists() && std::time::Instant::now() < until {
                std::thread::sleep(Duration::from_millis(20));
            }
            std::thread::sleep(Duration::from_millis(300));
            flag.store(true, Ordering::SeqCst);
        });
        run_sweep(&out, Some(flag.clone()))
    });
    assert!(first.exists(), "the first trial never started");
    assert_eq!(outcome.status, Status::Interrupted, "{:?}", outcome.error);
    assert!(outcome.results.len() < 2, "{:?}", outcome.results);
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("interrupted"), "{md}");
    assert_nothing_left(&out);
}

/// Seed 004's own arrangement: all three nodes in radio range, the ends'
/// frames to each other dropped by a firewall rule in each namespace. babeld
/// then routes A to C through B (a direct route would be the shorter one
/// without the rule), and what A sends C is relayed by B on the air.
#[test]
fn the_firewall_keeps_the_ends_apart_as_the_seed_did() {
    let _g = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let settings = ChainSettings {
        reach: Reach::Firewall,
        ..quick_settings()
    };
    let mut chain = SecureChain::create(settings, Some(dir.path()), None, None).unwrap();
    let c = chain.responder();
    assert_a_routes_to_c_through_b(&chain);
    // The rule in A's namespace names C's address, and only C's.
    let rules = std::fs::read_to_string(dir.path().join("nft-a.conf")).unwrap();
    assert!(
        rules.contains(&format!("ether saddr {{ {} }} drop", c.mac)),
        "{rules}"
    );
    chain
        .use_suite(&IkeSuite::ikev2_gcm(), Mode::Tunnel)
        .unwrap();
    let pcap = dir.path().join("channel.pcap");
    chain.switch_medium(Some(&pcap)).unwrap();
    let e = chain
        .establish(Duration::from_millis(5), Duration::from_secs(20))
        .unwrap();
    assert!(e.established, "{e:?}");
    chain.teardown(Duration::from_secs(30)).unwrap();
    chain.switch_medium(None).unwrap();
    let hops = tshark(
        &pcap,
        &format!(
            "ip.src=={} && ip.dst=={} && esp",
            chain.initiator().ip,
            c.ip
        ),
        &["wlan.ta", "wlan.ra"],
    );
    let b = chain.node(1).addr.to_string();
    assert!(!hops.is_empty());
    assert!(
        hops.iter().all(|l| l.contains(&b)),
        "every frame of A's ESP goes to or comes from B: {hops:?}"
    );
    let report = chain.close();
    assert!(report.failures.is_empty(), "{report:?}");
}
