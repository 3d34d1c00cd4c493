//! The CCM-UDP exchange between two Linux endpoints with real UDP sockets
//! in two network namespaces joined by a veth pair: the bare machine's
//! responder code on a Linux socket, the same initiator as against the
//! guest. Needs root (CI runs as root); nothing of the run remains.
#![cfg(target_os = "linux")]

use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use wisec_lab::bare::run::{self, RunConfig};
use wisec_lab::live::net::lab_namespaces;

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

#[test]
fn linux_to_linux_in_namespaces_delivers_everything_and_cleans_up() {
    let links = host_links();
    let before = lab_namespaces();
    let cfg = RunConfig {
        sizes: vec![200, 1000],
        m: 200,
        echoes: 100,
        line_mbps: 100.0,
        timeout: Duration::from_secs(10),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let runs = run::run_netns(&cfg, None, &stop, |_| {}).expect("the namespaces run (needs root)");
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
