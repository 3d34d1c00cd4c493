//! `wisec analyze` checked against tshark's own dissection of the same
//! capture: every frame's label agrees with the TCP flags and length and
//! the 802.11 type tshark reads; the handshake groups hold the SYN, the
//! SYN/ACK and the ACK that completes them and nothing else; the close
//! holds the FINs and the pure ACKs after the first; and the table counts
//! every group in exactly one row. On the lab's overhead channel (a TCP
//! transfer) and on a `wisec synth` capture (protected data, no TCP in
//! clear).

mod common;

use common::{ok, p};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// One frame as tshark dissects it.
#[derive(Debug, Default, Clone)]
struct Dissected {
    fc_type: u8,
    subtype: u16,
    protected: bool,
    tcp: Option<Tcp>,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Tcp {
    syn: bool,
    ack: bool,
    fin: bool,
    len: u64,
    sport: u16,
    seq: u64,
    ackno: u64,
}

fn flag(s: &str) -> bool {
    s == "1" || s.eq_ignore_ascii_case("true")
}

/// tshark's view of every frame, by frame number.
fn dissect(capture: &Path) -> BTreeMap<u64, Dissected> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(capture)
        .args(["-T", "fields", "-E", "separator=,"])
        .args(["-e", "frame.number", "-e", "wlan.fc.type"])
        .args(["-e", "wlan.fc.type_subtype", "-e", "wlan.fc.protected"])
        .args(["-e", "tcp.flags.syn", "-e", "tcp.flags.ack"])
        .args(["-e", "tcp.flags.fin", "-e", "tcp.len", "-e", "tcp.srcport"])
        .args(["-e", "tcp.seq_raw", "-e", "tcp.ack_raw"])
        .output()
        .expect("tshark");
    assert!(out.status.success(), "{:?}", out);
    let mut m = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 11, "{line}");
        let num = |s: &str| -> u64 {
            let s = s.trim_start_matches("0x");
            u64::from_str_radix(s, if f[2].starts_with("0x") { 16 } else { 10 }).unwrap()
        };
        let tcp = (!f[4].is_empty()).then(|| Tcp {
            syn: flag(f[4]),
            ack: flag(f[5]),
            fin: flag(f[6]),
            len: f[7].parse().unwrap(),
            sport: f[8].parse().unwrap(),
            seq: f[9].parse().unwrap(),
            ackno: f[10].parse().unwrap(),
        });
        m.insert(
            f[0].parse().unwrap(),
            Dissected {
                fc_type: f[1].parse().unwrap(),
                subtype: num(f[2]) as u16,
                protected: flag(f[3]),
                tcp,
            },
        );
    }
    m
}

/// The label a frame must have from tshark's dissection.
fn expected_label(d: &Dissected) -> &'static str {
    if d.fc_type == 0 {
        return "Mgmt";
    }
    if d.fc_type == 1 {
        return match d.subtype {
            0x1b => "Rts",
            0x1c => "Cts",
            0x1d => "Ack",
            0x19 => "BlockAck",
            0x18 => "BlockAckReq",
            _ => "Other",
        };
    }
    if d.protected {
        return "Protected";
    }
    match &d.tcp {
        Some(t) if t.syn && t.ack => "SynAck",
        Some(t) if t.syn => "Syn",
        Some(t) if t.fin => "Fin",
        Some(t) if t.len == 0 => "TcpAck",
        Some(_) => "Data",
        None => "Other",
    }
}

/// Frame number → (label, component) from the analysis (every group is
/// listed: the captures are small).
fn frames_of(a: &Value) -> BTreeMap<u64, (String, String)> {
    let groups = a["groups"].as_array().unwrap();
    assert_eq!(groups.len() as u64, a["groups_total"].as_u64().unwrap());
    let mut m = BTreeMap::new();
    for g in groups {
        let first = g["first"].as_u64().unwrap();
        let last = g["last"].as_u64().unwrap();
        let labels = g["labels"].as_array().unwrap();
        assert_eq!(labels.len() as u64, last - first + 1, "{g}");
        for (i, l) in labels.iter().enumerate() {
            m.insert(
                first + i as u64,
                (
                    l.as_str().unwrap().to_string(),
                    g["component"].as_str().unwrap().to_string(),
                ),
            );
        }
    }
    m
}

/// Every group in exactly one row: per (component, k) the groups listed
/// are the row's count.
fn table_agrees_with_groups(a: &Value) {
    let mut by: BTreeMap<(String, Option<u64>), u64> = BTreeMap::new();
    for g in a["groups"].as_array().unwrap() {
        let c = g["component"].as_str().unwrap().to_string();
        let k = matches!(c.as_str(), "Data" | "TcpAcks" | "Protected")
            .then(|| g["k"].as_u64().unwrap());
        *by.entry((c, k)).or_default() += 1;
    }
    let rows: BTreeMap<(String, Option<u64>), u64> = a["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                (
                    r["component"].as_str().unwrap().to_string(),
                    r["k"].as_u64(),
                ),
                r["groups"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(rows, by);
}

fn analyze(capture: &Path) -> Value {
    serde_json::from_str(&ok(&["analyze", "--json", p(capture)])).unwrap()
}

/// tshark's dissection of `capture`, the analysis, and its frames, whose
/// every label is checked against the dissection.
#[allow(clippy::type_complexity)]
fn labelled_as_tshark_reads(
    capture: &Path,
) -> (
    BTreeMap<u64, Dissected>,
    Value,
    BTreeMap<u64, (String, String)>,
) {
    let t = dissect(capture);
    let a = analyze(capture);
    let ours = frames_of(&a);
    assert_eq!(ours.len(), t.len());
    for (n, d) in &t {
        assert_eq!(ours[n].0, expected_label(d), "frame {n}: {d:?}");
    }
    (t, a, ours)
}

#[test]
fn the_lab_overhead_transfer_is_handshake_data_and_close_as_tshark_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ov");
    ok(&[
        "lab",
        "run",
        "overhead",
        "--quick",
        "--pcap",
        "first",
        "--calibration",
        "nominal",
        "--no-plots",
        "-q",
        "--out",
        p(&out),
    ]);
    let pcap = std::fs::read_dir(out.join("channels"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("-open-tcp-"))
        .expect("the open TCP trial's channel pcap");
    let (t, a, ours) = labelled_as_tshark_reads(&pcap);
    // The handshake from tshark: the SYN and SYN/ACK, and the client's
    // first pure ACK after the SYN/ACK (and its 802.11 retransmissions).
    let tcp: Vec<(u64, &Tcp)> = t
        .iter()
        .filter_map(|(n, d)| d.tcp.as_ref().map(|x| (*n, x)))
        .collect();
    let syn = tcp.iter().find(|(_, x)| x.syn && !x.ack).unwrap();
    let synack = tcp.iter().find(|(_, x)| x.syn && x.ack).unwrap();
    let third = tcp
        .iter()
        .find(|(n, x)| *n > synack.0 && x.sport == syn.1.sport && x.len == 0 && !x.syn && !x.fin)
        .unwrap();
    let handshake: BTreeSet<u64> = tcp
        .iter()
        .filter(|(_, x)| {
            x.syn
                || (x.sport == third.1.sport
                    && x.seq == third.1.seq
                    && x.ackno == third.1.ackno
                    && x.len == 0
                    && !x.fin)
        })
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(handshake.len(), 3, "{handshake:?}");
    let first_fin = tcp.iter().find(|(_, x)| x.fin).unwrap().0;
    let close: BTreeSet<u64> = tcp
        .iter()
        .filter(|(n, x)| *n >= first_fin && (x.fin || x.len == 0))
        .map(|(n, _)| *n)
        .collect();
    let in_component = |c: &str| -> BTreeSet<u64> {
        ours.iter()
            .filter(|(n, (_, comp))| comp == c && t[*n].tcp.is_some())
            .map(|(n, _)| *n)
            .collect()
    };
    assert_eq!(in_component("Handshake"), handshake);
    assert_eq!(in_component("Close"), close);
    // Between them: data groups carry segments with data, ack groups pure
    // acks; together with the handshake and close, every TCP frame.
    let data = in_component("Data");
    let acks = in_component("TcpAcks");
    assert!(data.iter().all(|n| t[n].tcp.as_ref().unwrap().len > 0));
    assert!(acks.iter().all(|n| t[n].tcp.as_ref().unwrap().len == 0));
    assert!(
        data.len() > 20 && acks.len() > 10,
        "{} {}",
        data.len(),
        acks.len()
    );
    assert_eq!(
        handshake.len() + close.len() + data.len() + acks.len(),
        tcp.len()
    );
    table_agrees_with_groups(&a);
}

#[test]
fn a_synth_capture_has_protected_and_management_rows_and_no_tcp() {
    let dir = tempfile::tempdir().unwrap();
    let cap = common::synth_capture(
        dir.path(),
        "s.pcapng",
        "correct horse",
        "wisec",
        &["--stations", "3", "--frames", "20", "--retries"],
    );
    let (t, a, ours) = labelled_as_tshark_reads(&cap);
    // tshark reads no TCP in clear: no group is in a TCP component.
    assert!(t.values().all(|d| d.tcp.is_none()));
    let comps: BTreeSet<&str> = ours.values().map(|(_, c)| c.as_str()).collect();
    assert_eq!(
        comps,
        BTreeSet::from(["Management", "Other", "Protected"]),
        "{comps:?}"
    );
    let protected = t.values().filter(|d| d.protected).count() as u64;
    let in_rows: u64 = a["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["component"] == "Protected")
        .map(|r| r["k"].as_u64().unwrap() * r["groups"].as_u64().unwrap())
        .sum();
    assert_eq!(in_rows, protected);
    table_agrees_with_groups(&a);
    // The text table is not empty either.
    let text = ok(&["analyze", p(&cap)]);
    assert!(text.contains("Protected frames (k="), "{text}");
    assert!(text.contains("Management ("), "{text}");
}
