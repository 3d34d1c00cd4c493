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

mod tshark;

use std::sync::Mutex;
use std::time::Duration;
use wisec_lab::cost::Calibration;
use wisec_lab::live::enterprise::{AuthResult, AuthTrial, Credentials, EnterpriseLab};
use wisec_lab::live::leap_server::LeapRadiusServer;
use wisec_lab::live::net::{lab_namespaces, LiveNet, PREFIX};
use wisec_lab::live::radius::{start_freeradius, FreeRadiusConfig, PASSWORD, SHARED_SECRET, USER};
use wisec_lab::live::supplicant::EapMethod;

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

    // FreeRADIUS's own client, radclient, gets a verified answer to
    // Status-Server (RFC 5997) from it.
    let args: Vec<String> = [
        "-x",
        "-r",
        "1",
        "-t",
        "2",
        "127.0.0.1:1645",
        "status",
        SHARED_SECRET,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    std::fs::write(
        dir.path().join("status.in"),
        "Message-Authenticator = 0x00\n",
    )
    .unwrap();
    let (mut cmd, _) = net.command(&ns, "radclient", &args, "radclient").unwrap();
    cmd.stdin(std::fs::File::open(dir.path().join("status.in")).unwrap());
    let out = cmd.output().unwrap();
    let log = std::fs::read_to_string(dir.path().join("radclient.log")).unwrap();
    assert!(out.status.success(), "{log}");
    assert!(log.contains("Received Access-Accept"), "{log}");

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

/// The MSK as tshark takes it: 64 to 128 octets; LEAP's 16-octet session
/// key is padded with zeros (its PMK is the key followed by zeros).
fn msk_for_tshark(hex: &str) -> String {
    let mut h = hex.to_string();
    while h.len() < 128 {
        h.push('0');
    }
    h
}

/// One whole WPA2-Enterprise association of `method`: EAP-Success, the
/// 4-way handshake with the MSK's PMK, three pings across CCMP, the MSK
/// the AP got from the RADIUS server equal to the one wpa_supplicant
/// derived, and tshark decrypting the ICMP from the MSK alone. Nothing of
/// the run remains afterwards.
fn whole_association(method: EapMethod) {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let mut lab = EnterpriseLab::create(Some(dir.path()), None).unwrap();
    let tag = lab.bss().net().tag().to_string();
    let mut t = AuthTrial::new(method);
    t.ping_count = 3;
    let pcap = dir.path().join("channel.pcap");
    let o = lab.trial(&t, &Calibration::nominal(), &pcap).unwrap();
    assert_eq!(o.result, AuthResult::Success, "{o:?}");
    assert!(o.channel.eap_success && !o.channel.eap_failure, "{o:?}");
    let (eap, msg4) = (o.channel.eap_ms.unwrap(), o.channel.to_msg4_ms.unwrap());
    assert!(eap > 0.0 && msg4 > eap, "{:?}", o.channel);
    let ping = o.ping.as_ref().unwrap();
    assert_eq!(ping.received, 3, "{ping:?}");
    let ap_msk = o.ap_msk.clone().unwrap();
    assert_eq!(o.station_msk.as_deref(), Some(ap_msk.as_str()));
    let rec = o.record.as_ref().unwrap();
    assert_eq!(rec.identity, USER);
    assert!(rec.radius_requests >= 2, "{rec:?}");
    eprintln!(
        "{}: EAP {eap:.1} ms, to message 4 {msg4:.1} ms, {} RADIUS round trips, ping {:.2} ms",
        method.label(),
        rec.radius_requests,
        ping.avg_ms
    );
    let protos =
        tshark::decrypted_protocols(&pcap, &format!("\"msk\",\"{}\"", msk_for_tshark(&ap_msk)));
    let icmp = protos.iter().filter(|p| p.contains(":icmp")).count();
    assert!(
        icmp >= 6,
        "{icmp} ICMP frames decrypted of {}",
        protos.len()
    );
    assert!(protos.iter().any(|p| p.contains("eapol")));

    let report = lab.close();
    assert!(report.failures.is_empty(), "{report:?}");
    assert!(leftovers(&tag).is_empty());
    assert!(processes_mentioning(&tag).is_empty());
    assert!(processes_mentioning(&dir.path().display().to_string()).is_empty());
}

#[test]
fn peap_association() {
    whole_association(EapMethod::Peap);
}

#[test]
fn eap_tls_association() {
    whole_association(EapMethod::Tls);
}

#[test]
fn leap_association() {
    whole_association(EapMethod::Leap);
}

#[test]
fn eap_ttls_association() {
    whole_association(EapMethod::Ttls);
}

/// EAP-MD5 derives no keys: FreeRADIUS accepts, EAP-Success crosses the
/// air, and the trial ends there — a time, no MSK, no 4-way handshake.
/// A wrong password is an Access-Reject like any other method's.
#[test]
fn eap_md5_succeeds_without_keys() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let mut lab = EnterpriseLab::create(Some(dir.path()), None).unwrap();
    let t = AuthTrial::new(EapMethod::Md5);
    let o = lab
        .trial(&t, &Calibration::nominal(), &dir.path().join("md5.pcap"))
        .unwrap();
    assert_eq!(o.result, AuthResult::Success, "{o:?}");
    assert!(o.channel.eap_success && !o.channel.eap_failure, "{o:?}");
    assert!(o.channel.eap_ms.is_some_and(|ms| ms > 0.0), "{o:?}");
    assert_eq!(o.channel.to_msg4_ms, None, "{o:?}");
    assert!(o.ap_msk.is_none() && o.station_msk.is_none(), "{o:?}");
    // Identity; FreeRADIUS proposes its default, PEAP, and the peer
    // answers with a Legacy Nak naming MD5; the MD5-Challenge: three
    // RADIUS round trips.
    assert_eq!(o.record.as_ref().unwrap().radius_requests, 3, "{o:?}");
    // tshark sees the same on the air: the Nak, the MD5 response, the
    // Success.
    let out = std::process::Command::new("tshark")
        .args(["-n", "-r"])
        .arg(dir.path().join("md5.pcap"))
        .args([
            "-Y", "eap", "-T", "fields", "-e", "eap.code", "-e", "eap.type",
        ])
        .output()
        .expect("tshark runs (Debian package tshark)");
    let eap = String::from_utf8_lossy(&out.stdout);
    let eap: Vec<&str> = eap.lines().map(str::trim).collect();
    assert!(eap.contains(&"2\t3"), "no Nak: {eap:?}");
    assert!(eap.contains(&"2\t4"), "no MD5 response: {eap:?}");
    assert_eq!(eap.last(), Some(&"3"), "{eap:?}");

    let mut t = AuthTrial::new(EapMethod::Md5);
    t.credentials = Credentials::WrongPassword;
    let o = lab
        .trial(
            &t,
            &Calibration::nominal(),
            &dir.path().join("md5-bad.pcap"),
        )
        .unwrap();
    let AuthResult::Failed(why) = &o.result else {
        panic!("EAP-MD5 with a wrong password: {o:?}")
    };
    assert!(why.contains("Access-Reject"), "{why}");
    assert!(o.channel.eap_failure && o.channel.eap_ms.is_none(), "{o:?}");
    assert!(lab.close().failures.is_empty());
}

/// A wrong password (PEAP) and an expired client certificate (EAP-TLS)
/// are failed trials — Access-Reject, EAP-Failure on the air, no keys, no
/// times — not errors.
#[test]
fn wrong_password_and_expired_certificate_fail() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let mut lab = EnterpriseLab::create(Some(dir.path()), None).unwrap();
    for (method, cred) in [
        (EapMethod::Peap, Credentials::WrongPassword),
        (EapMethod::Leap, Credentials::WrongPassword),
        (EapMethod::Tls, Credentials::ExpiredCertificate),
    ] {
        let mut t = AuthTrial::new(method);
        t.credentials = cred;
        let pcap = dir.path().join(format!("{}.pcap", method.name()));
        let o = lab.trial(&t, &Calibration::nominal(), &pcap).unwrap();
        let AuthResult::Failed(why) = &o.result else {
            panic!("{method:?} with {cred:?}: {o:?}")
        };
        assert!(why.contains("Access-Reject"), "{why}");
        assert!(o.channel.eap_failure, "{:?}", o.channel);
        assert_eq!((o.channel.eap_ms, o.channel.to_msg4_ms), (None, None));
        assert!(o.ap_msk.is_none() && o.ping.is_none());
    }
    // FreeRADIUS says why it refused the certificate.
    let log = std::fs::read_to_string(dir.path().join("freeradius.log")).unwrap();
    assert!(log.contains("expired"), "{log}");
    assert!(lab.close().failures.is_empty());
}

/// A RADIUS server that does not answer is an error that says so, and the
/// lab removes everything it made.
#[test]
fn a_silent_radius_server_is_an_error() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let mut lab = EnterpriseLab::create(Some(dir.path()), None).unwrap();
    let tag = lab.bss().net().tag().to_string();
    lab.stop_freeradius();
    let mut t = AuthTrial::new(EapMethod::Peap);
    t.radius_timeout_ms = 200;
    t.radius_tries = 2;
    let e = lab
        .trial(&t, &Calibration::nominal(), &dir.path().join("c.pcap"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("10.99.0.2:1812 did not answer"), "{e}");
    assert!(e.contains("refused"), "{e}");
    assert!(lab.close().failures.is_empty());
    assert!(leftovers(&tag).is_empty());
    assert!(processes_mentioning(&tag).is_empty());
    assert!(processes_mentioning(&dir.path().display().to_string()).is_empty());
}

/// A FreeRADIUS that cannot start (here: its certificate is missing) is a
/// clear error quoting its log; nothing is left running.
#[test]
fn a_radius_server_that_does_not_start_is_an_error() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let mut net = LiveNet::new(Some(dir.path())).unwrap();
    let tag = net.tag().to_string();
    let ns = net.add_namespace("radius").unwrap();
    let mut pki = wisec_lab::live::radius::make_pki(&dir.path().join("pki")).unwrap();
    pki.server_cert = dir.path().join("pki/missing.pem");
    let cfg = FreeRadiusConfig {
        dir: dir.path().join("raddb"),
        listen: "127.0.0.1:1812".parse().unwrap(),
        client: "127.0.0.1".parse().unwrap(),
        secret: SHARED_SECRET.into(),
        users: vec![(USER.into(), PASSWORD.into())],
        pki,
    };
    let e = start_freeradius(&mut net, &ns, &cfg)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("freeradius") && e.contains("exited before it was ready"),
        "{e}"
    );
    assert!(e.contains("missing.pem"), "{e}");
    let r = net.cleanup();
    assert!(r.failures.is_empty(), "{r:?}");
    assert!(leftovers(&tag).is_empty());
    assert!(processes_mentioning(&dir.path().display().to_string()).is_empty());
}
