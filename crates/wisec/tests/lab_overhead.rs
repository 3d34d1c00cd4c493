//! The lab's channel frames against independent decryptors: the station's
//! 4-way handshake and protected data, captured from the simulated
//! channel, decrypt with `wisec decrypt --passphrase` and with tshark given
//! the lab's passphrase; WEP with the lab's static key. And `wisec lab run
//! overhead` end to end: reproducible from a calibration file. tshark is
//! required: these tests fail when it is missing.

use std::cell::RefCell;
use std::path::Path;
use std::process::Command;
use std::rc::Rc;
use wisec::capture::{CaptureWriter, Format, Interface, Packet, LINKTYPE_IEEE802_11};
use wisec_lab::bss::{PASSPHRASE, SSID};
use wisec_lab::cost::{Calibration, Security};
use wisec_lab::experiment::overhead::{build, run, LinkScenario};
use wisec_lab::net::Traffic;

/// MPDUs with their start times in µs.
type Captured = Vec<(u64, Vec<u8>)>;

/// Runs a UDP transfer of `n` 600-octet datagrams under `sec` and writes
/// every MPDU put on the channel to a pcap at `path`; returns how many
/// UDP datagrams the server received.
fn capture(sec: Security, n: u64, path: &Path) -> u64 {
    let cal = Calibration::nominal();
    let t = Traffic::UdpBulk {
        bytes: 600 * n,
        payload: 600,
    };
    let s = LinkScenario::new(sec, 54.0, t, 11).unwrap();
    let mut b = build(&s, &cal);
    let frames: Rc<RefCell<Captured>> = Rc::default();
    let sink = Rc::clone(&frames);
    b.sim.set_observer(
        b.channel,
        Box::new(move |f| {
            for m in f.mpdus {
                sink.borrow_mut().push((f.start.as_ns() / 1000, m.to_vec()));
            }
        }),
    );
    let o = run(&mut b, &s);
    assert!(o.connected && o.delivered == 600 * n, "{o:?}");
    let file = std::fs::File::create(path).unwrap();
    let mut w = CaptureWriter::new(std::io::BufWriter::new(file), Format::Pcap);
    let iface = Interface {
        fcslen: Some(0),
        ..Interface::new(LINKTYPE_IEEE802_11, 65535)
    };
    w.write_interface(&iface).unwrap();
    for (ts, m) in frames.borrow().iter() {
        w.write_packet(&Packet {
            interface: 0,
            timestamp: 1_700_000_000_000_000 + ts,
            orig_len: m.len() as u32,
            data: m.clone(),
        })
        .unwrap();
    }
    drop(w.into_inner().unwrap());
    n
}

fn wisec(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(args)
        .output()
        .expect("running wisec")
}

/// UDP datagrams of 600 octets tshark sees in the capture with `key`.
fn tshark_udp(file: &Path, key_type: &str, key: &str) -> usize {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(file)
        .args([
            "-o",
            "wlan.enable_decryption:TRUE",
            "-o",
            &format!("uat:80211_keys:\"{key_type}\",\"{key}\""),
            "-Y",
            "udp.length == 608",
            "-T",
            "fields",
            "-e",
            "udp.dstport",
        ])
        .output()
        .expect("tshark is required for the interoperability tests (apt-get install tshark)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.trim() == "5001")
        .count()
}

#[test]
fn channel_frames_decrypt_with_the_passphrase_in_wisec_and_tshark() {
    let dir = tempfile::tempdir().unwrap();
    for sec in [Security::Ccmp128, Security::Tkip, Security::Gcmp256] {
        let cap = dir.path().join(format!("{}.pcap", sec.name()));
        let n = capture(sec, 12, &cap);
        // Without a key tshark sees no datagram.
        assert_eq!(tshark_udp(&cap, "wep", "0000000000"), 0, "{sec:?}");
        let key = format!("{PASSPHRASE}:{SSID}");
        assert_eq!(tshark_udp(&cap, "wpa-pwd", &key), n as usize, "{sec:?}");
        let plain = dir.path().join(format!("{}-plain.pcap", sec.name()));
        let o = wisec(&[
            "decrypt",
            cap.to_str().unwrap(),
            plain.to_str().unwrap(),
            "--passphrase",
            PASSPHRASE,
            "--json",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // The decrypted capture holds the datagrams in the clear: tshark
        // reads them with no key at all.
        assert_eq!(
            tshark_udp(&plain, "wep", "0000000000"),
            n as usize,
            "{sec:?}"
        );
    }
}

#[test]
fn wep_channel_frames_decrypt_with_the_static_key() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("wep.pcap");
    let n = capture(Security::Wep104, 8, &cap);
    // '9' × 13 in hex.
    assert_eq!(
        tshark_udp(&cap, "wep", "39393939393939393939393939"),
        n as usize
    );
    let plain = dir.path().join("wep-plain.pcap");
    let o = wisec(&[
        "decrypt",
        cap.to_str().unwrap(),
        plain.to_str().unwrap(),
        "--wep",
        "s:9999999999999",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(tshark_udp(&plain, "wep", "0000000000"), n as usize);
}

#[test]
fn overhead_runs_reproducibly_from_a_calibration_file() {
    let dir = tempfile::tempdir().unwrap();
    let cal = dir.path().join("cal.json");
    let o = wisec(&[
        "lab",
        "calibrate",
        "--nominal",
        "--out",
        cal.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let run = |out: &str, seed: &str| {
        let out = dir.path().join(out);
        let o = wisec(&[
            "lab",
            "run",
            "overhead",
            "--quick",
            "--seed",
            seed,
            "--set",
            "suites=open,ccmp128",
            "--set",
            "measures=tcp,ping",
            "--calibration",
            cal.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let stdout = String::from_utf8(o.stdout).unwrap();
        assert!(stdout.contains("TCP throughput"), "{stdout}");
        assert!(out.join("report.md").exists());
        assert!(out
            .join("trials/enterprise-ccmp128-tcp-11mbps-t00.json")
            .exists());
        std::fs::read_to_string(out.join("results.json")).unwrap()
    };
    let a = run("a", "3");
    assert_eq!(a, run("b", "3"));
    assert_ne!(a, run("c", "4"));
    // A bad calibration file is refused with its name.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"version\": 1,").unwrap();
    let o = wisec(&[
        "lab",
        "run",
        "overhead",
        "--quick",
        "--calibration",
        bad.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad.json"));
}
