//! `wisec analyze` on a channel capture the lab wrote: the exchange groups
//! it finds are the frame exchanges the simulator put on the air (read
//! from the simulator's own observer, not from the capture), with their
//! delays; damaged packets are reported and skipped; a file that is not a
//! capture is an error.

mod common;

use std::cell::RefCell;
use std::rc::Rc;
use wisec::analyze::analyze_file;
use wisec_lab::analyze::{Component, Label};
use wisec_lab::pcap::{PcapWriter, RadioChannel};
use wisec_lab::sim::{BlockAckConfig, MacConfig, Simulator};
use wisec_lab::traffic::{SaturatedSource, Sink};
use wisec_lab::{HtParams, PhyProfile, Rate, Time};
use wisec_wire::MacAddr;

const STA: MacAddr = MacAddr([2, 0, 0, 0, 0, 1]);
const AP: MacAddr = MacAddr([2, 0, 0, 0, 0, 2]);

/// PPDUs as the simulator saw them: start (ns), MPDU count, first octet.
type Log = Rc<RefCell<Vec<(u64, usize, u8)>>>;

fn lab_capture(dir: &std::path::Path, loss: f64) -> (std::path::PathBuf, Log) {
    let phy = PhyProfile::n(HtParams::default());
    let radio = RadioChannel::for_profile(&phy);
    let mut sim = Simulator::new(21);
    let ch = sim.add_channel(phy);
    let mut src = SaturatedSource::new(STA, AP, 1500);
    src.tid = Some(0);
    let tx = sim.add_node(src);
    let rx = sim.add_node(Sink::new());
    let ba = BlockAckConfig {
        rts: true,
        max_mpdus: 8,
        ..BlockAckConfig::default()
    };
    let s = sim.attach(tx, ch, MacConfig::ht(STA, Rate::ht(5), ba));
    let a = sim.attach(rx, ch, MacConfig::ht(AP, Rate::ht(5), ba));
    sim.set_loss(s, a, loss);
    let path = dir.join("channel.pcap");
    let w = Rc::new(RefCell::new(Some(
        PcapWriter::new(std::fs::File::create(&path).unwrap()).unwrap(),
    )));
    let log: Log = Rc::new(RefCell::new(Vec::new()));
    let (w2, l2) = (w.clone(), log.clone());
    sim.set_observer(
        ch,
        Box::new(move |f| {
            l2.borrow_mut()
                .push((f.start.as_ns(), f.mpdus.len(), f.mpdus[0][0]));
            if let Some(w) = w2.borrow_mut().as_mut() {
                for m in f.mpdus {
                    w.write(f.start.as_ns(), &radio.radiotap(f.rate), m)
                        .unwrap();
                }
            }
        }),
    );
    sim.run_until(Time::from_ms(80));
    w.borrow_mut().take().unwrap().finish().unwrap();
    (path, log)
}

#[test]
fn groups_are_the_exchanges_the_simulator_logged() {
    let dir = tempfile::tempdir().unwrap();
    let (path, log) = lab_capture(dir.path(), 0.0);
    let a = analyze_file(&path).unwrap();
    assert!(a.malformed.is_empty(), "{:?}", a.malformed);
    let log = log.borrow();
    // The simulator's exchanges: each RTS (0xb4) opens one, each BlockAck
    // (0x94) closes one; the data PPDU between them holds k MPDUs.
    let mut expected = Vec::new();
    let mut prev_end: Option<u64> = None;
    let mut i = 0;
    while i + 3 < log.len() {
        if log[i].2 == 0xb4 && log[i + 1].2 == 0xc4 && log[i + 3].2 == 0x94 {
            let delay = prev_end.map(|p| log[i + 3].0 - p);
            expected.push((log[i + 2].1, delay));
            prev_end = Some(log[i + 3].0);
            i += 4;
        } else {
            prev_end = Some(log[i].0);
            i += 1;
        }
    }
    let got: Vec<_> = a
        .groups
        .iter()
        .filter(|g| g.rts_cts && g.block_ack)
        .collect();
    assert!(expected.len() > 20);
    assert_eq!(got.len(), expected.len());
    for (g, (k, delay)) in got.iter().zip(&expected).skip(1) {
        assert_eq!(g.k, *k);
        assert_eq!(g.labels.first(), Some(&Label::Rts));
        assert_eq!(g.labels.last(), Some(&Label::BlockAck));
        if let Some(d) = delay {
            assert_eq!(g.delay_us, *d as f64 / 1000.0);
        }
    }
    // UDP datagrams are not TCP: the groups stay outside TCP phases (the
    // BlockAck agreement's action frames are management).
    assert!(a.groups.iter().all(|g| match g.component {
        Component::Management => g.labels.contains(&Label::Mgmt),
        c => c == Component::Other,
    }));
    assert_eq!(a.rts as usize, log.iter().filter(|x| x.2 == 0xb4).count());
    assert_eq!(
        a.block_acks as usize,
        log.iter().filter(|x| x.2 == 0x94).count()
    );
}

#[test]
fn retransmissions_are_counted_from_the_retry_bit() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = lab_capture(dir.path(), 0.3);
    let a = analyze_file(&path).unwrap();
    let retried: usize = a.groups.iter().map(|g| g.retries).sum();
    assert!(a.retransmissions > 10);
    assert_eq!(retried as u64, a.retransmissions);
}

#[test]
fn damaged_packets_are_reported_and_the_rest_analysed() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = lab_capture(dir.path(), 0.0);
    let mut bytes = std::fs::read(&path).unwrap();
    let good = analyze_file(&path).unwrap();
    // Packet 3: radiotap version 1 (the record header is 16 octets after
    // the 24-octet file header; walk the records to find it).
    let mut at = 24;
    for _ in 0..2 {
        let len = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        at += 16 + len;
    }
    bytes[at + 16] = 1;
    // And the file ends inside a record.
    bytes.truncate(bytes.len() - 7);
    let bad = dir.path().join("bad.pcap");
    std::fs::write(&bad, &bytes).unwrap();
    let a = analyze_file(&bad).unwrap();
    assert_eq!(a.malformed[0].0, 3);
    assert!(a.malformed[0].1.contains("radiotap"));
    assert!(
        a.malformed.last().unwrap().1.contains("truncated"),
        "{:?}",
        a.malformed
    );
    assert!(a.groups.len() + 2 >= good.groups.len());
    let out = common::wisec(&["analyze", bad.to_str().unwrap()]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("packet 3: malformed radiotap header"), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("BlockAck groups"), "{text}");
    let out = common::wisec(&["analyze", "--json", path.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["groups"].as_array().unwrap().len() > 20);
}

#[test]
fn a_file_that_is_not_a_capture_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.pcap");
    std::fs::write(&p, b"this is not a capture file at all").unwrap();
    let out = common::wisec(&["analyze", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("x.pcap"));
}

/// A pcap (radiotap link type) of `n` empty records.
fn empty_records(path: &std::path::Path, n: usize) {
    let mut b = Vec::with_capacity(24 + 16 * n);
    b.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    b.extend_from_slice(&[2, 0, 4, 0]);
    b.extend_from_slice(&[0; 8]);
    b.extend_from_slice(&65_535u32.to_le_bytes());
    b.extend_from_slice(&127u32.to_le_bytes());
    for i in 0..n {
        b.extend_from_slice(&(i as u32).to_le_bytes());
        b.extend_from_slice(&[0; 12]);
    }
    std::fs::write(path, b).unwrap();
}

#[test]
fn a_flood_of_unreadable_packets_is_summarised_and_decrypt_fails_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("empty.pcap");
    let n = 200_000;
    empty_records(&cap, n);
    let a = analyze_file(&cap).unwrap();
    assert_eq!(a.frames, n as u64);
    assert_eq!(a.malformed_total(), n as u64);
    assert_eq!(a.malformed.len(), 10, "the first 10 listed");
    assert_eq!(a.malformed[0].0, 1);
    let out = common::wisec(&["analyze", cap.to_str().unwrap()]);
    // No exchange in it: an input error, with one line per reason.
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.lines().count() <= 12, "{err}");
    assert!(err.contains(&format!("{} more packets: ", n - 10)), "{err}");
    // decrypt: every frame unreadable is an error, and OUT is not written.
    let out_cap = dir.path().join("out.pcap");
    let out = common::wisec(&[
        "decrypt",
        cap.to_str().unwrap(),
        out_cap.to_str().unwrap(),
        "--passphrase",
        "correct horse",
        "--ssid",
        "lab",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("none of its"), "{err}");
    assert!(!out_cap.exists());
}
