//! The live lab with real programs: a BSS of two stations and a wired
//! server in network namespaces, joined by the simulator's medium in real
//! time; ping and iperf3 across it; tshark decrypts the channel capture;
//! nothing of the run remains afterwards.
//!
//! These tests need root (CI runs as root) and iperf3, ping and tshark
//! (scripts/prereqs.sh installs them). They run one at a time: each owns
//! the machine's CPU while its medium keeps real time.
#![cfg(target_os = "linux")]

mod tshark;

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;
use wisec_lab::cost::{Calibration, Security};
use wisec_lab::live::bss::{BssConfig, LiveBss};
use wisec_lab::live::net::{lab_namespaces, PREFIX};
use wisec_lab::live::tools::{self, IperfSpec};
use wisec_lab::live::transfer;

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
    tshark::decrypted_protocols(pcap, &format!("\"wpa-pwd\",\"{pass}:{ssid}\""))
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

/// One PPDU of a capture as tshark reads it.
struct Ppdu {
    start_ns: u128,
    end_ns: u128,
    data: bool,
}

/// Every PPDU of an 802.11b capture, with its airtime computed from its
/// length and rate as IEEE Std 802.11-2020, 16.3.4 (long preamble: 192 µs
/// of PLCP preamble and header, then the PSDU, FCS included, at the data
/// rate), independently of the simulator's own PHY code.
fn dsss_ppdus(pcap: &Path) -> Vec<Ppdu> {
    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(pcap)
        .args([
            "-T",
            "fields",
            "-e",
            "frame.time_epoch",
            "-e",
            "frame.len",
            "-e",
            "radiotap.length",
            "-e",
            "radiotap.datarate",
            "-e",
            "wlan.fc.type",
        ])
        .output()
        .expect("tshark runs");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let (secs, frac) = f.first()?.split_once('.')?;
            let start_ns = secs.parse::<u128>().ok()? * 1_000_000_000
                + format!("{frac:0<9}")[..9].parse::<u128>().ok()?;
            let len: u128 = f.get(1)?.parse().ok()?;
            let rt: u128 = f.get(2)?.parse().ok()?;
            let mbps: f64 = f.get(3)?.parse().ok()?;
            let psdu_bits = (len - rt + 4) * 8;
            let air_ns = 192_000 + (psdu_bits as f64 * 1000.0 / mbps).ceil() as u128;
            Some(Ppdu {
                start_ns,
                end_ns: start_ns + air_ns,
                data: f.get(4)?.trim() == "2",
            })
        })
        .collect()
}

/// Pairs of data PPDUs that were on the air at the same time.
fn data_collisions(ppdus: &[Ppdu]) -> usize {
    let mut n = 0;
    for (i, a) in ppdus.iter().enumerate() {
        for b in &ppdus[i + 1..] {
            if b.start_ns >= a.end_ns {
                break;
            }
            if a.data && b.data {
                n += 1;
            }
        }
    }
    n
}

/// Two stations hidden from each other send UDP to the server at once:
/// their data frames collide at the AP without RTS/CTS; with RTS/CTS the
/// AP's CTS sets the other station's NAV and no two data frames overlap.
/// The collisions are counted from the channel capture alone.
#[test]
fn hidden_stations_collide_without_rts_cts_and_not_with_it() {
    let _g = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = BssConfig::new(Security::Ccmp128, 11.0, 2).unwrap();
    cfg.hidden.push(("sta1".into(), "sta2".into()));
    let server = cfg.hosts[0].ip;
    let mut bss = LiveBss::create(cfg, Some(dir.path())).unwrap();
    let mut counts = Vec::new();
    for rts in [None, Some(0)] {
        bss.reconfigure(|c| c.rts_threshold = rts).unwrap();
        let pcap = dir.path().join(format!("rts-{}.pcap", rts.is_some()));
        bss.start(&Calibration::nominal(), Some(&pcap)).unwrap();
        bss.wait_connected(Duration::from_secs(10)).unwrap();
        let srv_ns = bss.netns("server").unwrap().clone();
        // Both stations send 1.5 MB of UDP at once (no control connection
        // to lose in the collisions, unlike iperf3's).
        let senders: Vec<_> = ["sta1", "sta2"]
            .into_iter()
            .enumerate()
            .map(|(i, name)| {
                let (from, to) = (bss.netns(name).unwrap().clone(), srv_ns.clone());
                std::thread::spawn(move || {
                    transfer::udp(
                        &from,
                        &to,
                        server,
                        5301 + i as u16,
                        1_500_000,
                        1400,
                        Duration::from_millis(500),
                        Duration::from_secs(30),
                    )
                })
            })
            .collect();
        for s in senders {
            let t = s.join().unwrap().unwrap();
            assert!(t.received > 100_000, "{t:?}");
        }
        let out = bss.stop().unwrap();
        let ppdus = dsss_ppdus(&pcap);
        assert!(ppdus.len() > 500, "{} PPDUs", ppdus.len());
        let c = data_collisions(&ppdus);
        eprintln!(
            "rts {rts:?}: {} PPDUs, {c} data collisions, MAC failures {:?}",
            ppdus.len(),
            out.station_mac
                .iter()
                .map(|m| m.failures)
                .collect::<Vec<_>>()
        );
        counts.push(c);
    }
    assert!(counts[0] > 20, "without RTS/CTS: {counts:?}");
    assert_eq!(counts[1], 0, "with RTS/CTS: {counts:?}");
    assert!(bss.close().failures.is_empty());
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
    // This process's namespaces (the run's tag starts with its id).
    let ours = || {
        lab_namespaces()
            .into_iter()
            .filter(|n| n.starts_with(&format!("{PREFIX}{}-", std::process::id())))
            .filter(|n| n.ends_with("-ccm-srv") || n.ends_with("-ccm-cli"))
            .collect::<Vec<_>>()
    };
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
    assert!(
        ours().is_empty(),
        "the run's namespaces are gone: {:?}",
        ours()
    );
    assert_eq!(host_links(), links, "the host's interfaces are unchanged");
}
