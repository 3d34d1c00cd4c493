//! The bare machine for real: the image is built from this workspace,
//! booted under QEMU (TCG), checked for its known-answer self-test on the
//! serial console, and driven over UDP through QEMU's loopback forward:
//! verified round trips, tampered, replayed, truncated, oversized,
//! wrong-key and wrong-nonce messages (each rejected and counted while the
//! guest keeps serving), the portable AES path, and an independent Python
//! client written from README.md's wire format.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use wisec_bare::wire::{self, Kind, HEADER_LEN, TAG_LEN};
use wisec_lab::bare::image;
use wisec_lab::bare::peer::{report_u64, Peer, ReportMap};
use wisec_lab::bare::qemu::{Guest, GuestOptions};

/// Builds the image once for all tests of this file.
fn image() -> PathBuf {
    static IMAGE: OnceLock<PathBuf> = OnceLock::new();
    IMAGE
        .get_or_init(|| {
            let root = image::workspace_root();
            let target = root.join("target/bare-image");
            let img = image::build(&root, &target, &target.join("test"))
                .unwrap_or_else(|e| panic!("building the image: {e}"));
            assert!(
                img.file_bytes > 10_000 && img.file_bytes < 2_000_000,
                "{img:?}"
            );
            img.image
        })
        .clone()
}

/// One guest at a time: each keeps a host core busy polling its NIC, and
/// on a two-core machine several at once starve QEMU's network thread.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn boot(cpu: &str, key: Option<&[u8; 16]>) -> Guest {
    let mut o = GuestOptions::new(&image());
    o.cpu = cpu.into();
    Guest::boot(&o, key).unwrap_or_else(|e| panic!("booting the guest: {e}"))
}

const KEY: [u8; 16] = *b"bare machine key";
const T: Duration = Duration::from_secs(10);

fn counter(r: &ReportMap, name: &str) -> u64 {
    report_u64(r, name, 0).unwrap_or_else(|| panic!("no {name} in {r:?}"))
}

/// Sends `payload` and expects no answer within 300 ms.
fn silent(peer: &mut Peer, payload: &[u8]) {
    let t = peer.send_raw(payload).unwrap();
    assert!(
        peer.recv(t + Duration::from_millis(300)).unwrap().is_none(),
        "the guest answered a message it should have refused"
    );
}

#[test]
fn the_guest_boots_checks_itself_and_completes_1000_verified_round_trips() {
    let _one = serial();
    let g = boot("max", Some(&KEY));
    let console = g.boot.console.join("\n");
    assert!(
        console.contains("selftest: 9/9 CCM and CCMP known-answer vectors passed (AES-NI"),
        "{console}"
    );
    assert!(console.contains(": OK"), "{console}");
    assert!(g.boot.aes_ni, "{console}");
    assert!(g.boot.tsc_hz > 100_000_000, "{console}");
    let mut peer = Peer::connect(g.addr, Some(&KEY)).unwrap();
    let e = peer.echo(1000, 100, true, T).unwrap();
    assert_eq!((e.sent, e.verified, e.lost), (1000, 1000, 0));
    assert!(peer.rejected.is_empty(), "{:?}", peer.rejected);
    let r = peer.report(true, T).unwrap();
    assert_eq!(report_u64(&r, "echo_protected", 0), Some(1000));
    // Every request verified by the guest, every answer by the peer.
    assert_eq!(counter(&r, "accepted_protected"), 1001);
    assert_eq!(counter(&r, "pn_accepted"), 1001);
    assert_eq!(counter(&r, "pn_sent"), 1000);
    for x in wire::Reject::ALL {
        assert_eq!(counter(&r, x.name()), 0, "{}", x.name());
    }
    assert_eq!(r["platform"], ["bare-x86_64"]);
}

#[test]
fn tampered_replayed_truncated_oversized_wrong_key_and_nonce_are_rejected_and_counted() {
    let _one = serial();
    let g = boot("max", Some(&KEY));
    let mut peer = Peer::connect(g.addr, Some(&KEY)).unwrap();
    peer.next_session();

    // A valid echo, answered; then the same octets again: a replay.
    let good = peer
        .build(Kind::Echo, true, b"first, and only once")
        .unwrap();
    let t = peer.send_raw(&good).unwrap();
    assert!(peer.recv(t + T).unwrap().is_some());
    silent(&mut peer, &good);

    // Tampered: one ciphertext octet, the tag, the AAD (session field).
    for at in [HEADER_LEN + 3, usize::MAX, 5] {
        let mut bad = peer.build(Kind::Echo, true, b"tampered in flight").unwrap();
        let at = at.min(bad.len() - 1);
        bad[at] ^= 0x01;
        silent(&mut peer, &bad);
    }

    // Wrong key.
    let mut other = Peer::connect(g.addr, Some(&[0x55; 16])).unwrap();
    let wrong_key = other.build(Kind::Echo, true, b"wrong key").unwrap();
    silent(&mut peer, &wrong_key);

    // Wrong nonce: sealed under a nonce whose PN differs from the header's.
    let mut wrong_nonce = peer.build(Kind::Echo, false, b"wrong nonce").unwrap();
    wrong_nonce[2] = 1;
    let mut header = [0u8; HEADER_LEN];
    header.copy_from_slice(&wrong_nonce[..HEADER_LEN]);
    header[15] = header[15].wrapping_add(1);
    let mut nonce = wire::nonce(&header);
    nonce[12] ^= 0x80;
    let ccm = wisec_crypto::ccm::Ccm::new(&KEY, TAG_LEN, wire::CCM_L).unwrap();
    let mut body = wrong_nonce[HEADER_LEN..].to_vec();
    let mut tag = [0u8; TAG_LEN];
    ccm.encrypt_in_place_detached(&nonce, &header, &mut body, &mut tag)
        .unwrap();
    let mut msg = header.to_vec();
    msg.extend_from_slice(&body);
    msg.extend_from_slice(&tag);
    silent(&mut peer, &msg);

    // Truncated: shorter than the header; protected without room for a
    // tag; a STREAM without its count.
    silent(&mut peer, &good[..10]);
    silent(&mut peer, &good[..HEADER_LEN + 5]);
    let stream = peer.build(Kind::Stream, false, &[0, 0]).unwrap();
    silent(&mut peer, &stream);

    // Oversized: data over 1400 octets in one frame, and a datagram that
    // needs IPv4 fragments (the guest never reassembles).
    let big = peer.build(Kind::Echo, false, &[7u8; 1401]).unwrap();
    silent(&mut peer, &big);
    let huge = peer.build(Kind::Echo, false, &[7u8; 3000]);
    assert!(huge.is_err(), "the peer refuses to build it");
    let mut frag = good.clone();
    frag.resize(3000, 0);
    silent(&mut peer, &frag);

    // The guest keeps serving.
    let e = peer.echo(20, 64, true, T).unwrap();
    assert_eq!(e.verified, 20);
    let r = peer.report(true, T).unwrap();
    assert_eq!(counter(&r, "rejected_replay"), 1, "{r:?}");
    assert_eq!(counter(&r, "rejected_integrity"), 5, "{r:?}");
    assert_eq!(counter(&r, "rejected_truncated"), 3, "{r:?}");
    // The 1417-octet payload, and every fragment of the 3000-octet one.
    assert!(counter(&r, "rejected_oversized") >= 3, "{r:?}");
    assert!(counter(&r, "ip_fragments") >= 2, "{r:?}");
    assert_eq!(counter(&r, "rejected_malformed"), 0, "{r:?}");
}

#[test]
fn without_aes_ni_the_portable_aes_serves_the_same_exchange() {
    let _one = serial();
    let g = boot("qemu64", Some(&KEY));
    let console = g.boot.console.join("\n");
    assert!(!g.boot.aes_ni, "{console}");
    assert!(console.contains("(portable AES"), "{console}");
    let mut peer = Peer::connect(g.addr, Some(&KEY)).unwrap();
    let e = peer.echo(50, 300, true, T).unwrap();
    assert_eq!(e.verified, 50);
    let s = peer.stream(50, 200, T).unwrap();
    assert_eq!((s.received, s.wrong), ([50, 50], 0));
    let r = peer.report(true, T).unwrap();
    assert_eq!(counter(&r, "aes_ni"), 0);
    assert!(counter(&r, "d3_ticks") > 0);
}

#[test]
fn figure_12_both_ways_delivers_every_datagram_and_reports_d0_to_d3() {
    let _one = serial();
    let g = boot("max", Some(&KEY));
    let mut peer = Peer::connect(g.addr, Some(&KEY)).unwrap();
    // Paced well below the seed's 100 Mb/s: this checks delivery and the
    // report, and a busy test machine must not starve QEMU's network
    // thread into dropping datagrams.
    peer.line_mbps = 20.0;
    let c = peer.stream(300, 500, T).unwrap();
    assert_eq!((c.received, c.wrong), ([300, 300], 0));
    assert!(c.d0_ms.is_some() && c.d1_ms.is_some() && c.d5_ms.is_some());
    let s = peer.sink(300, 500, T).unwrap();
    assert_eq!(s.sent, [300, 300]);
    let r = peer.report(true, T).unwrap();
    assert_eq!(r["sink_received"], ["300", "300"]);
    assert_eq!(counter(&r, "sink_wrong"), 0);
    for d in ["d0_ticks", "d1_ticks", "d2_ticks", "d3_ticks"] {
        assert!(counter(&r, d) > 0, "{d}");
    }
    // The Linux server paced its 300 plain frames to 20 Mb/s: each 16 + 8
    // + 500 octets of payload, 42 of headers and 24 of preamble, FCS and
    // gap take 236 us on the line.
    let line_ms = 300.0 * (524.0 + 42.0 + 24.0) * 8.0 / 20e6 * 1e3;
    let d2 = s.d2_ms.unwrap();
    assert!(d2 >= 0.95 * line_ms, "D2 {d2} ms, line {line_ms} ms");
}

fn python() -> PathBuf {
    let root = image::workspace_root();
    let venv = root.join(".venv/bin/python3");
    assert!(
        venv.is_file(),
        "{}: missing; scripts/prereqs.sh creates the project's Python venv with the cryptography package",
        venv.display()
    );
    venv
}

#[test]
fn an_independent_python_client_written_from_the_readme_interoperates() {
    let _one = serial();
    let g = boot("max", Some(&KEY));
    let script = image::workspace_root().join("crates/wisec-bare/tests/python/ccm_udp_client.py");
    let key_hex: String = KEY.iter().map(|b| format!("{b:02x}")).collect();
    let t0 = Instant::now();
    let out = Command::new(python())
        .arg(&script)
        .args(["--host", "127.0.0.1", "--port", &g.addr.port().to_string()])
        .args([
            "--key", &key_hex, "--echoes", "200", "--size", "300", "--stream", "100",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["echo_protected_verified"], 200, "{v}");
    assert_eq!(v["echo_plain_verified"], 200, "{v}");
    assert_eq!(v["stream_received"], 100, "{v}");
    assert_eq!(v["stream_wrong"], 0, "{v}");
    assert_eq!(v["replay_answered"], false, "{v}");
    assert_eq!(v["report"]["rejected_replay"], "1", "{v}");
    assert_eq!(v["report"]["accepted_protected"], "202", "{v}");
    assert_eq!(v["report"]["rejected_integrity"], "0", "{v}");
    assert!(t0.elapsed() < Duration::from_secs(60));
}
