//! Every command that reads captures streams them: `analyze`, `decrypt`
//! (with the handshake tracker and `--keys-out`, on one thread and on
//! eight) and `encrypt` each read a capture of about 330 MB with a peak
//! resident set under 128 MB, and their counts are those of the records
//! the test wrote. `dd` with a buffer the size of the capture peaks above
//! the capture's size, which shows that the measure sees a command that
//! holds it.
//!
//! The measure is the peak resident set of the children (getrusage,
//! RUSAGE_CHILDREN, whose `ru_maxrss` is the largest of any child waited
//! for), read after each command: memory really used. An address-space
//! limit (RLIMIT_AS) would count what glibc reserves for each thread's
//! malloc arena (64 MiB apiece) and so fail by the host's core count.

mod common;

use common::p;
use nix::sys::resource::{getrusage, UsageWho};
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// The bound on the peak resident set of every run.
const LIMIT: u64 = 128 << 20;
/// Tail records: a protected data frame and its Ack, each pair one
/// exchange.
const PAIRS: u32 = 220_000;
/// Octets of each tail data frame's CCMP body (plaintext length + MIC).
const BODY: usize = 1400 + 8;

/// A station of the tail: a new one for every frame, so the links
/// outnumber what decrypt counts apart.
fn tail_sta(i: u32) -> [u8; 6] {
    let b = i.to_be_bytes();
    [0x02, 0x0b, b[0], b[1], b[2], b[3]]
}

const TAIL_BSS: [u8; 6] = [0x02, 0x0b, 0xff, 0xff, 0xff, 0x01];

fn record(w: &mut impl Write, t: u32, usec: u32, frame: &[u8]) {
    let len = frame.len() as u32;
    for v in [t, usec, len, len] {
        w.write_all(&v.to_le_bytes()).unwrap();
    }
    w.write_all(frame).unwrap();
}

/// IEEE Std 802.11-2020, 9.3.2.1 and 12.5.3.2: a QoS Data frame from the
/// AP with the Protected bit, a CCMP header with an extended IV, and a
/// body no key in the test can open.
fn protected_frame(i: u32, body: &[u8]) -> Vec<u8> {
    let mut f = vec![0x88, 0x42, 0, 0];
    f.extend_from_slice(&tail_sta(i));
    f.extend_from_slice(&TAIL_BSS);
    f.extend_from_slice(&TAIL_BSS);
    f.extend_from_slice(&(((i % 4096) as u16) << 4).to_le_bytes());
    f.extend_from_slice(&[0, 0]);
    let pn = u64::from(i) + 1;
    let b = pn.to_le_bytes();
    f.extend_from_slice(&[b[0], b[1], 0, 0x20, b[2], b[3], b[4], b[5]]);
    f.extend_from_slice(body);
    f
}

/// Frames of a pcap (link type 105, no radiotap) by what their Frame
/// Control says: (all, protected, unprotected data that is not null).
fn census(bytes: &[u8]) -> (u64, u64, u64) {
    let mut at = 24;
    let (mut all, mut prot, mut data) = (0, 0, 0);
    while at + 16 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        let f = &bytes[at + 16..at + 16 + len];
        all += 1;
        let (ty, sub, protected) = ((f[0] >> 2) & 3, f[0] >> 4, f[1] & 0x40 != 0);
        if protected {
            prot += 1;
        } else if ty == 2 && sub & 0x4 == 0 {
            data += 1;
        }
        at += 16 + len;
    }
    (all, prot, data)
}

/// Counts the records of a pcap stream without holding it.
fn count_records(mut r: impl Read) -> u64 {
    let mut h = [0u8; 24];
    r.read_exact(&mut h).unwrap();
    let mut n = 0;
    let mut rec = [0u8; 16];
    let mut skip = vec![0u8; 65_536];
    while r.read_exact(&mut rec).is_ok() {
        let mut len = u32::from_le_bytes(rec[8..12].try_into().unwrap()) as usize;
        while len > 0 {
            let k = len.min(skip.len());
            r.read_exact(&mut skip[..k]).unwrap();
            len -= k;
        }
        n += 1;
    }
    n
}

/// The largest peak resident set, in octets, of the children this
/// process has waited for.
fn children_peak_rss() -> u64 {
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    // Linux reports ru_maxrss in KiB.
    u64::try_from(usage.max_rss()).unwrap() * 1024
}

/// Asserts that no child so far peaked at LIMIT or above.
fn assert_under_limit(what: &str) {
    let peak = children_peak_rss();
    eprintln!("{what}: peak resident set so far {} KiB", peak / 1024);
    assert!(
        peak < LIMIT,
        "{what}: peak resident set {peak} B, limit {LIMIT} B"
    );
}

/// Runs wisec with OUT `-`: the records written on standard output, and
/// the JSON summary (standard error); its peak resident set stays under
/// the limit.
fn limited(dir: &Path, args: &[&str]) -> (u64, serde_json::Value) {
    let err_path = dir.join("stderr.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let records = count_records(child.stdout.take().unwrap());
    let status = child.wait().unwrap();
    let err = std::fs::read_to_string(&err_path).unwrap();
    assert!(status.success(), "wisec {args:?}: {err}");
    assert_under_limit(&format!("wisec {args:?}"));
    (records, serde_json::from_str(&err).expect("JSON summary"))
}

#[test]
fn capture_commands_stream_a_capture_larger_than_their_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    // The head: a whole session (beacon, association, 4-way handshake,
    // protected data) that decrypt opens from the passphrase.
    let head = common::synth_capture(
        dir.path(),
        "head.pcap",
        "correct horse",
        "wisec",
        &["--frames", "40"],
    );
    let head_bytes = std::fs::read(&head).unwrap();
    let (head_frames, head_protected, head_data) = census(&head_bytes);
    assert!(head_protected >= 40 && head_data >= 4);
    let big = dir.path().join("big.pcap");
    {
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&big).unwrap());
        w.write_all(&head_bytes).unwrap();
        let body = vec![0u8; BODY];
        let mut ack = vec![0xd4, 0, 0, 0];
        ack.extend_from_slice(&TAIL_BSS);
        for i in 0..PAIRS {
            let t = 1_000 + i / 1000;
            record(&mut w, t, (i % 1000) * 1000, &protected_frame(i, &body));
            record(&mut w, t, (i % 1000) * 1000 + 10, &ack);
        }
        w.flush().unwrap();
    }
    let size = std::fs::metadata(&big).unwrap().len();
    assert!(size > 2 * LIMIT, "{size}");
    let total = head_frames + 2 * u64::from(PAIRS);

    // The capture written by this process, not a child: nothing peaked
    // yet but the small synth run.
    assert_under_limit("synth");

    // analyze: every frame, one group per tail exchange; the rows count
    // every group.
    let err_path = dir.path().join("analyze.err");
    let out = Command::new(env!("CARGO_BIN_EXE_wisec"))
        .args(["analyze", "--json", p(&big)])
        .stderr(File::create(&err_path).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        std::fs::read_to_string(&err_path).unwrap()
    );
    assert_under_limit("wisec analyze");
    let a: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(a["frames"], total);
    assert_eq!(a["acks"], PAIRS);
    let groups = a["groups_total"].as_u64().unwrap();
    assert!(groups > u64::from(PAIRS), "{groups}");
    let rows: u64 = a["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["groups"].as_u64().unwrap())
        .sum();
    assert_eq!(rows, groups);
    let prot_k1 = a["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["component"] == "Protected" && r["k"] == 1)
        .expect("protected k=1 row");
    assert!(prot_k1["groups"].as_u64().unwrap() >= u64::from(PAIRS));
    assert_eq!(a["groups"].as_array().unwrap().len(), 10_000);

    // decrypt with the tracker and --keys-out: the head's protected frames
    // decrypted, every tail frame left encrypted, all written; the tail's
    // links beyond 4,096 counted together.
    // On one thread and on eight: the unprotecting threads do not change
    // what is held.
    for threads in ["1", "8"] {
        let keys = dir.path().join(format!("keys-{threads}.txt"));
        let (written, s) = limited(
            dir.path(),
            &[
                "decrypt",
                p(&big),
                "-",
                "--passphrase",
                "correct horse",
                "--ssid",
                "wisec",
                "--keys-out",
                p(&keys),
                "--threads",
                threads,
                "--json",
            ],
        );
        assert_eq!(written, total);
        assert_eq!(s["frames"], total);
        assert_eq!(s["protected"], head_protected + u64::from(PAIRS));
        assert_eq!(s["decrypted"], head_protected);
        let links = s["links"].as_object().unwrap();
        assert_eq!(links.len(), 4097, "4,096 links and the others");
        let left: u64 = links
            .values()
            .flat_map(|l| l["left_encrypted"].as_object().unwrap().values())
            .map(|n| n.as_u64().unwrap())
            .sum();
        assert_eq!(left, u64::from(PAIRS));
        assert!(links.contains_key("other links"));
        let k = std::fs::read_to_string(&keys).unwrap();
        assert!(k.lines().any(|l| l.starts_with("\"tk\"")), "{k}");
    }

    // encrypt: the head's unprotected data frames protected, everything
    // else passed through, every frame written.
    let (written, s) = limited(
        dir.path(),
        &[
            "encrypt",
            p(&big),
            "-",
            "--suite",
            "ccmp",
            "--key",
            common::K16,
            "--json",
        ],
    );
    assert_eq!(written, total);
    assert_eq!(s["frames"], total);
    assert_eq!(s["data_protected"], head_data);
    assert_eq!(s["passed_through"], total - head_data);

    // Holding the capture shows in the measure: dd with a buffer the size
    // of the capture peaks above it.
    let dd = Command::new("dd")
        .args([&format!("if={}", p(&big)), "of=/dev/null"])
        .arg(format!("bs={size}"))
        .arg("count=1")
        .output()
        .unwrap();
    assert!(
        dd.status.success(),
        "{}",
        String::from_utf8_lossy(&dd.stderr)
    );
    let peak = children_peak_rss();
    assert!(peak >= size, "dd held {size} B, peak {peak} B");
}
