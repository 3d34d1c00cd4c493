//! The live lab with real programs: a BSS of two stations and a wired
//! server in network namespaces, joined by the simulator's medium in real
//! time; ping and iperf3 across it; tshark decrypts the channel capture;
//! nothing of the run remains afterwards.
//!
//! These tests need root (CI runs as root) and iperf3, ping and tshark
//! (scripts/prereqs.sh installs them). They run one at a time: each owns
//! the machine's CPU while its medium keeps real time.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;
use wisec_lab::cost::{Calibration, Security};
use wisec_lab::live::bss::{BssConfig, LiveBss};
use wisec_lab::live::net::{lab_namespaces, PREFIX};
use wisec_lab::live::tools::{self, IperfSpec};

static SERIAL: Mutex<()> = Mutex::new(());

/// The host's own interfaces, to check that a run left them as they were.
fn host_links() -> String {
    let out = Command::new("ip")
        .args(["-o", "link", "show"])
        .output()
        .unwrap();
    let mut v: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        .collect();
    v.sort();
    v.join(",")
}

/// Processes whose command line mentions the run's tag or run directory.
fn processes_mentioning(needle: &str) -> Vec<String> {
    let mut v = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let p = e.path().join("cmdline");
        if let Ok(c) = std::fs::read(&p) {
            let s = String::from_utf8_lossy(&c).replace('\0', " ");
            if s.contains(needle) {
                v.push(s);
            }
        }
    }
    v
}

/// tshark's decryption of `pcap` with the passphrase: the protocols of
/// every decrypted frame.
fn tshark_protocols(pcap: &Path, ssid: &str, pass: &str) -> Vec<String> {
    let key = format!("uat:80211_keys:\"wpa-pwd\",\"{pass}:{ssid}\"");
    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(pcap)
        .args([
            "-o",
            "wlan.enable_decryption:TRUE",
            "-o",
            &key,
            "-T",
            "fields",
            "-e",
            "frame.protocols",
        ])
        .output()
        .expect("tshark runs (Debian package tshark)");
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

#[test]
fn bss_with_ping_iperf3_and_a_decryptable_capture() {
    let _g = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let links_before = host_links();
    let dir = tempfile::tempdir().unwrap();
    let cfg = BssConfig::new(Security::Ccmp128, 54.0, 2).unwrap();
    let (sta_ips, server_ip) = (
        cfg.stations.iter().map(|s| s.ip).collect::<Vec<_>>(),
        cfg.hosts[0].ip,
    );
    let mut bss = LiveBss::create(cfg, Some(dir.path())).unwrap();
    let tag = bss.net().tag().to_string();
    let pcap = dir.path().join("channel.pcap");
    bss.start(&Calibration::nominal(), Some(&pcap)).unwrap();
    let st = bss.wait_connected(Duration::from_secs(10)).unwrap();
    assert!(st.connected_s.iter().all(Option::is_some), "{st:?}");

    let server_ns = bss.netns("server").unwrap().clone();
    let mut pings = Vec::new();
    for name in ["sta1", "sta2"] {
        let ns = bss.netns(name).unwrap().clone();
        let p = tools::ping(
            bss.net_mut(),
            &ns,
            server_ip,
            3,
            Duration::from_millis(200),
            56,
            &format!("ping-{name}"),
        )
        .unwrap();
        assert_eq!(p.received, 3, "{name}: {p:?}");
        pings.push(p);
    }
    // The server reaches a station too (the AP forwards to the air).
    let p = tools::ping(
        bss.net_mut(),
        &server_ns,
        sta_ips[1],
        2,
        Duration::from_millis(200),
        56,
        "ping-server",
    )
    .unwrap();
    assert_eq!(p.received, 2, "{p:?}");

    tools::iperf3_server(bss.net_mut(), &server_ns, server_ip, "iperf3-server").unwrap();
    let sta1 = bss.netns("sta1").unwrap().clone();
    let r = tools::iperf3_client(
        bss.net_mut(),
        &sta1,
        server_ip,
        &IperfSpec::tcp_for(5.0),
        "iperf3-tcp",
        Duration::from_secs(30),
    )
    .unwrap();
    let out = bss.stop().unwrap();
    let mbps = r.receiver_bps / 1e6;
    eprintln!(
        "TCP {mbps:.2} Mb/s; ping {:?} ms; medium lag p50 {:.1} p99 {:.1} max {:.1} us; CPU {:.0}%",
        pings.iter().map(|p| p.avg_ms).collect::<Vec<_>>(),
        out.medium.lag.p50_us,
        out.medium.lag.p99_us,
        out.medium.lag.max_us,
        out.medium.cpu_share * 100.0
    );
    // 802.11g at 54 Mb/s carries at most about 30 Mb/s of TCP (one
    // station, no aggregation); a working link carries well above 10.
    assert!((10.0..32.0).contains(&mbps), "TCP {mbps} Mb/s, {out:?}");
    assert!(
        out.medium.frames_in > 1000 && out.medium.frames_out > 1000,
        "{out:?}"
    );
    assert_eq!(out.stations[0].integrity_failures, 0);
    assert!(out.medium.pcap_records > 1000);

    // tshark, given only the passphrase, decrypts the ICMP and the TCP.
    let protos = tshark_protocols(&pcap, wisec_lab::bss::SSID, wisec_lab::bss::PASSPHRASE);
    let icmp = protos.iter().filter(|p| p.contains(":icmp")).count();
    let tcp = protos.iter().filter(|p| p.contains(":tcp")).count();
    assert!(icmp >= 2 * (3 + 3 + 2), "{icmp} ICMP frames decrypted");
    assert!(tcp > 1000, "{tcp} TCP frames decrypted");
    assert!(protos.iter().any(|p| p.contains("eapol")));

    let report = bss.close();
    assert!(report.failures.is_empty(), "{report:?}");
    assert!(report.namespaces >= 4, "{report:?}");
    // Nothing of the run remains: namespaces, processes, host interfaces.
    let left: Vec<String> = lab_namespaces()
        .into_iter()
        .filter(|n| n.starts_with(&format!("{PREFIX}{tag}-")))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    assert!(processes_mentioning(&tag).is_empty());
    assert_eq!(host_links(), links_before);
}

/// The CCM-UDP exchange of the bare machine (seed 000) between two Linux
/// endpoints with real UDP sockets in two namespaces joined by a veth
/// pair: the bare machine's responder code on a Linux socket, the same
/// initiator as against the guest.
#[test]
fn ccm_udp_between_two_linux_namespaces_delivers_everything_and_cleans_up() {
    let _one = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let links = host_links();
    let before = lab_namespaces();
    let cfg = wisec_lab::bare::run::RunConfig {
        sizes: vec![200, 1000],
        m: 200,
        echoes: 100,
        line_mbps: 100.0,
        timeout: Duration::from_secs(10),
    };
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let runs = wisec_lab::bare::run::run_netns(&cfg, None, &stop, |_| {})
        .expect("the namespaces run (needs root)");
    assert_eq!(runs.len(), 2);
    for r in &runs {
        assert_eq!(r.responder, "linux");
        assert!(r.clean(), "n = {}: {r:?}", r.n);
        assert!(r.server_d2_d3_ms.iter().all(Option::is_some), "{r:?}");
        assert!(r.client_d0_d1_ms.iter().all(Option::is_some), "{r:?}");
        assert!(r.linux_client.d5_ms.is_some() && r.linux_server.d5_ms.is_some());
        // The initiator paced its 200 plain DATA to 100 Mb/s.
        let frame = 16 + 8 + r.n + 42 + 24;
        let line_ms = 200.0 * frame as f64 * 8.0 / 100e6 * 1e3;
        assert!(r.linux_server.d2_ms.unwrap() >= 0.95 * line_ms, "{r:?}");
    }
    assert_eq!(lab_namespaces(), before, "the run's namespaces are gone");
    assert_eq!(host_links(), links, "the host's interfaces are unchanged");
}
