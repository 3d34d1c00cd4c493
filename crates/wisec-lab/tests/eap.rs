//! 802.1X in the live lab with real programs: wisec's LEAP RADIUS server
//! against eapol_test's LEAP peer (wpa_supplicant's own EAP code), and
//! whole WPA2-Enterprise associations — wpa_supplicant on the station's
//! TAP, FreeRADIUS behind the AP, wisec's authenticator and 4-way
//! handshake — checked by ping across the protected link and by tshark
//! decrypting the channel capture from the MSK.
//!
//! These tests need root (CI runs as root) and freeradius, wpasupplicant,
//! eapoltest, openssl and tshark (scripts/prereqs.sh installs them). They
//! run one at a time.
#![cfg(target_os = "linux")]

use std::sync::Mutex;
use std::time::Duration;
use wisec_lab::live::leap_server::LeapRadiusServer;
use wisec_lab::live::net::{lab_namespaces, LiveNet, PREFIX};
use wisec_lab::live::radius::{PASSWORD, SHARED_SECRET, USER};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
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

fn leftovers(tag: &str) -> Vec<String> {
    lab_namespaces()
        .into_iter()
        .filter(|n| n.starts_with(&format!("{PREFIX}{tag}-")))
        .collect()
}

/// Runs eapol_test (its LEAP peer and RADIUS client) in `ns` of `net`
/// against the server at 127.0.0.1:`port`; its exit status and output.
fn eapol_test(net: &mut LiveNet, ns: &str, password: &str, port: u16, log: &str) -> (bool, String) {
    let conf = net.run_dir().join(format!("{log}.conf"));
    std::fs::write(
        &conf,
        format!(
            "network={{\n\tkey_mgmt=IEEE8021X\n\teap=LEAP\n\tidentity=\"{USER}\"\n\tpassword=\"{password}\"\n}}\n"
        ),
    )
    .unwrap();
    let ns = net.netns(ns).unwrap().clone();
    let args: Vec<String> = vec![
        "-c".into(),
        conf.display().to_string(),
        "-a".into(),
        "127.0.0.1".into(),
        "-p".into(),
        port.to_string(),
        "-s".into(),
        SHARED_SECRET.into(),
        "-t".into(),
        "10".into(),
    ];
    let id = net.start(&ns, "eapol_test", &args, log).unwrap();
    let status = net.wait(id, Duration::from_secs(20)).unwrap();
    let out = std::fs::read_to_string(net.run_dir().join(format!("{log}.out"))).unwrap();
    (status.is_some_and(|s| s.success()), out)
}

/// The hex of eapol_test's `LEAP PMK from EAPOL - hexdump(len=16): …`.
fn leap_pmk(out: &str) -> Option<String> {
    let l = out.lines().find(|l| l.contains("LEAP PMK from EAPOL"))?;
    let hex = l.split_once("):")?.1;
    Some(hex.split_whitespace().collect())
}

#[test]
fn leap_server_against_eapol_test() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let mut net = LiveNet::new(Some(dir.path())).unwrap();
    let tag = net.tag().to_string();
    let ns = net.add_namespace("radius").unwrap();
    let users = vec![(USER.to_string(), PASSWORD.to_string())];
    let server = LeapRadiusServer::start(
        &ns,
        "127.0.0.1:1645".parse().unwrap(),
        SHARED_SECRET,
        &users,
        Some(dir.path().join("leap-server.log")),
    )
    .unwrap();

    // The right password: eapol_test's peer and RADIUS client accept, the
    // MPPE check passes, and its PMK is the server's session key.
    let (ok, out) = eapol_test(&mut net, "radius", PASSWORD, 1645, "eapol-right");
    assert!(ok, "{out}");
    assert!(out.contains("MPPE keys OK: 1  mismatch: 0"), "{out}");
    assert!(out.contains("method 17 (LEAP) selected"), "{out}");
    let st = server.stats();
    assert_eq!((st.accepts, st.rejects), (1, 0), "{st:?}");
    assert_eq!(
        leap_pmk(&out).as_deref(),
        Some(st.session_keys[0].as_str()),
        "{out}"
    );

    // A wrong password: Access-Reject, and eapol_test fails.
    let (ok, out) = eapol_test(&mut net, "radius", "wrong horse", 1645, "eapol-wrong");
    assert!(!ok, "{out}");
    assert!(out.contains("code=3 (Access-Reject)"), "{out}");
    let st = server.stop();
    assert_eq!((st.accepts, st.rejects), (1, 1), "{st:?}");
    assert_eq!(st.discarded, 0);

    // A client with another secret is not answered at all.
    let server = LeapRadiusServer::start(
        &ns,
        "127.0.0.1:1646".parse().unwrap(),
        "another-secret",
        &users,
        None,
    )
    .unwrap();
    let conf = dir.path().join("eapol-secret.conf");
    std::fs::write(
        &conf,
        format!("network={{\n\tkey_mgmt=IEEE8021X\n\teap=LEAP\n\tidentity=\"{USER}\"\n\tpassword=\"{PASSWORD}\"\n}}\n"),
    )
    .unwrap();
    let args: Vec<String> = [
        "-c",
        &conf.display().to_string(),
        "-p",
        "1646",
        "-s",
        SHARED_SECRET,
        "-t",
        "2",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let id = net.start(&ns, "eapol_test", &args, "eapol-secret").unwrap();
    let _ = net.wait(id, Duration::from_secs(10)).unwrap();
    let st = server.stop();
    assert!(
        st.discarded >= 1 && st.accepts == 0 && st.rejects == 0,
        "{st:?}"
    );

    let report = net.cleanup();
    assert!(report.failures.is_empty(), "{report:?}");
    assert!(leftovers(&tag).is_empty());
    assert!(processes_mentioning(&tag).is_empty());
}
