//! The situations of real captures, written by `wisec synth` (or from its
//! frames), decrypted by wisec and cross-checked against the peers:
//! tshark (decrypting the input itself, compared with how it reads wisec's
//! plaintext output, frame by frame) and airdecap-ng (its Ethernet output
//! byte for byte against `--ethernet`, where it decrypts).
//!
//! Situations: a reassociation whose new handshake restarts the key
//! replay counter, MAC retransmissions and capture duplicates, WDS
//! (4-address) links with `--bssid`, TKIP from the bare 16-byte TK, the
//! Prism, AVS and PPI link types, radiotap with padding, a pcapng with an
//! Ethernet interface beside the 802.11 one, a capture cut short.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use wisec::capture::{CaptureWriter, Format, Interface, Packet, Record};

const PASS: &str = "correct horse";
const SSID: &str = "lab";
const BSSID: &str = "02:57:53:00:00:01";

fn synth(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    synth_capture(dir, name, PASS, SSID, extra)
}

/// tshark's view of every frame of `file`: the listed fields, one line a
/// frame; with `decrypt`, tshark decrypts from the passphrase itself.
fn tshark(file: &Path, decrypt: bool, fields: &[&str]) -> Vec<String> {
    let key = format!("\"wpa-pwd\",\"{PASS}:{SSID}\"");
    tshark_with(file, decrypt.then_some(key.as_str()), fields)
}

/// [`tshark`] with a key table entry (`"type","key"`) to decrypt with.
fn tshark_with(file: &Path, key: Option<&str>, fields: &[&str]) -> Vec<String> {
    let mut c = Command::new("tshark");
    c.arg("-r").arg(file);
    if let Some(k) = key {
        let key = format!("uat:80211_keys:{k}");
        c.args(["-o", "wlan.enable_decryption:TRUE", "-o", &key]);
    } else {
        c.args(["-o", "wlan.enable_decryption:FALSE"]);
    }
    c.args(["-T", "fields"]);
    for f in fields {
        c.args(["-e", f]);
    }
    let o = c
        .output()
        .expect("tshark is required (apt-get install tshark)");
    assert!(
        o.status.success(),
        "tshark: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// tshark decrypting IN sees every frame it can decrypt as it reads
/// wisec's OUT; returns how many it read as UDP, and how many protected
/// frames it could not decrypt (wisec did).
fn tshark_agrees(input: &Path, out: &Path, extra_fields: &[&str]) -> (usize, usize) {
    let key = format!("\"wpa-pwd\",\"{PASS}:{SSID}\"");
    tshark_agrees_with(input, out, &key, extra_fields)
}

/// [`tshark_agrees`] with tshark given the key table entry `key`.
fn tshark_agrees_with(
    input: &Path,
    out: &Path,
    key: &str,
    extra_fields: &[&str],
) -> (usize, usize) {
    let mut fields = vec![
        "frame.protocols",
        "wlan.sa",
        "wlan.da",
        "wlan.seq",
        "udp.payload",
    ];
    fields.extend_from_slice(extra_fields);
    let theirs = tshark_with(input, Some(key), &fields);
    let ours = tshark(out, false, &fields);
    assert_eq!(theirs.len(), ours.len());
    let mut missed = 0;
    for (i, (t, o)) in theirs.iter().zip(&ours).enumerate() {
        // A data frame tshark left encrypted ("...:wlan:data" and no
        // more): nothing to compare.
        let proto = t.split('\t').next().unwrap_or("");
        if t != o && proto.ends_with("wlan:data") && !proto.contains("llc") {
            missed += 1;
            continue;
        }
        assert_eq!(t, o, "frame {}: tshark decrypting IN vs reading OUT", i + 1);
    }
    // Frames tshark decrypted and read as UDP.
    (theirs.iter().filter(|l| l.contains(":udp")).count(), missed)
}

/// airdecap-ng's Ethernet output of `input` (with `-b bssid` when given),
/// and its report.
fn airdecap(dir: &Path, input: &Path, bssid: Option<&str>) -> (Vec<Vec<u8>>, String) {
    let out = dir.join("airdecap.pcap");
    let _ = std::fs::remove_file(&out);
    let mut c = Command::new("airdecap-ng");
    c.args(["-e", SSID, "-p", PASS]);
    if let Some(b) = bssid {
        c.args(["-b", b]);
    }
    let r = c
        .arg("-o")
        .arg(&out)
        .arg(input)
        .output()
        .expect("airdecap-ng is required (apt-get install aircrack-ng)");
    assert!(r.status.success(), "airdecap-ng failed");
    let report = String::from_utf8_lossy(&r.stdout).to_string();
    let frames = if out.exists() {
        read(&out).1.into_iter().map(|p| p.data).collect()
    } else {
        Vec::new()
    };
    (frames, report)
}

/// wisec's `--ethernet` output of `input` (unicast frames only, as
/// airdecap-ng decrypts only those) and its summary.
fn ours_ethernet(dir: &Path, input: &Path, extra: &[&str]) -> (Vec<Vec<u8>>, serde_json::Value) {
    let ext = input.extension().and_then(|e| e.to_str()).unwrap_or("pcap");
    let out = dir.join(format!("ours-eth.{ext}"));
    let mut a = vec![
        "decrypt",
        p(input),
        p(&out),
        "--passphrase",
        PASS,
        "--ethernet",
        "--force",
    ];
    a.extend_from_slice(extra);
    let s = json(&a);
    let frames = read(&out)
        .1
        .into_iter()
        .map(|p| p.data)
        .filter(|d| d[0] & 1 == 0)
        .collect();
    (frames, s)
}

fn decrypt(input: &Path, out: &Path, extra: &[&str]) -> serde_json::Value {
    let mut a = vec!["decrypt", p(input), p(out), "--passphrase", PASS, "--force"];
    a.extend_from_slice(extra);
    json(&a)
}

#[test]
fn reassociation_with_a_restarted_replay_counter() {
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(
        dir.path(),
        "r.pcap",
        &["--stations", "2", "--frames", "10", "--reassociate"],
    );
    let out = dir.path().join("d.pcap");
    let s = decrypt(&cap, &out, &[]);
    assert_eq!(s["decrypted"], s["protected"], "{s}");
    for (name, l) in s["links"].as_object().unwrap() {
        if name.ends_with("group") {
            continue;
        }
        // Both handshakes complete; both PTKs decrypted their frames.
        assert_eq!(l["handshakes_complete"], 2, "{name}: {l}");
        assert_eq!(l["rejected"], serde_json::json!({}), "{name}: {l}");
        assert_eq!(l["decrypted"].as_object().unwrap().len(), 2, "{l}");
    }
    assert_eq!(tshark_agrees(&cap, &out, &[]), (23, 0));
    let (theirs, report) = airdecap(dir.path(), &cap, None);
    let (ours, _) = ours_ethernet(dir.path(), &cap, &[]);
    assert!(!theirs.is_empty(), "{report}");
    assert_eq!(ours, theirs, "{report}");
}

#[test]
fn retransmissions_and_duplicates_decrypt_and_are_counted_apart() {
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(
        dir.path(),
        "t.pcap",
        &["--stations", "2", "--frames", "20", "--retries"],
    );
    let out = dir.path().join("d.pcap");
    let s = decrypt(&cap, &out, &[]);
    assert_eq!(s["decrypted"], s["protected"], "{s}");
    // 20 frames a station: every 5th again with Retry (4), every 7th not
    // a multiple of 5 twice (2), for 2 stations.
    assert_eq!(s["retransmissions"], 8, "{s}");
    assert_eq!(s["duplicates"], 4, "{s}");
    assert_eq!(s["suites"]["ccmp128"]["replays"], 0, "{s}");
    assert_eq!(tshark_agrees(&cap, &out, &["wlan.fc.retry"]), (57, 0));
    // As Ethernet frames, each MSDU once: the copies are left out, as
    // airdecap-ng leaves them out.
    let (theirs, report) = airdecap(dir.path(), &cap, None);
    let (ours, e) = ours_ethernet(dir.path(), &cap, &[]);
    assert_eq!(ours.len(), 40, "{e}");
    assert_eq!(ours, theirs, "{report}");
}

#[test]
fn wds_links_match_bssid_by_either_end() {
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(
        dir.path(),
        "w.pcap",
        &["--stations", "2", "--frames", "6", "--wds"],
    );
    let out = dir.path().join("d.pcap");
    let s = decrypt(&cap, &out, &["--bssid", BSSID]);
    assert_eq!(s["decrypted"], s["protected"], "{s}");
    assert_eq!(s["filtered_out"], 0, "{s}");
    // One link per peer, not one per direction.
    let links: Vec<&String> = s["links"].as_object().unwrap().keys().collect();
    assert_eq!(links.len(), 3, "{links:?}");
    // tshark (4.0) decrypts no 4-address frame: nothing of them to
    // compare, the rest agrees; airdecap-ng is the peer here.
    let (n, missed) = tshark_agrees(&cap, &out, &["wlan.ta", "wlan.ra"]);
    assert_eq!(n + missed, 14, "{n} {missed}");
    // airdecap-ng (1.7) decrypts only some of the 4-address frames (7 of
    // the 12 here, most uplink ones not): each of those is byte for byte
    // one of wisec's, in order.
    let (theirs, report) = airdecap(dir.path(), &cap, Some(BSSID));
    let (ours, _) = ours_ethernet(dir.path(), &cap, &["--bssid", BSSID]);
    assert_eq!(ours.len(), 12);
    assert!(!theirs.is_empty(), "{report}");
    let mut rest = ours.iter();
    for t in &theirs {
        assert!(
            rest.any(|o| o == t),
            "an airdecap-ng frame wisec lacks: {report}"
        );
    }
}

#[test]
fn tkip_from_the_bare_temporal_key() {
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(
        dir.path(),
        "k.pcap",
        &["--stations", "1", "--frames", "8", "--cipher", "tkip"],
    );
    // The PTK's TK as key tables print it: the 16-octet encryption key.
    let keys = dir.path().join("keys.txt");
    let full = dir.path().join("full.pcap");
    let s_full = decrypt(&cap, &full, &["--keys-out", p(&keys)]);
    let text = std::fs::read_to_string(&keys).unwrap();
    let tk32 = text
        .lines()
        .filter_map(|l| l.strip_prefix("\"tk\",\""))
        .map(|l| l.trim_end_matches('"'))
        .find(|k| k.len() == 64)
        .expect("a TKIP TK");
    let out = dir.path().join("tk.pcap");
    let r = wisec(&["decrypt", p(&cap), p(&out), "--tk", &tk32[..32], "--json"]);
    assert!(r.status.success());
    let s: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    let unicast = s_full["links"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| !k.ends_with("group"))
        .map(|(_, l)| {
            l["decrypted"]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_u64().unwrap())
                .sum::<u64>()
        })
        .sum::<u64>();
    let t = &s["suites"]["tkip"];
    // Every unicast frame, reported as ICV only, never as verified.
    assert_eq!(t["michael_unverified"].as_u64(), Some(unicast), "{s}");
    assert_eq!(t["decrypted"].as_u64(), Some(unicast), "{s}");
    assert!(err.contains("Michael MIC could not be checked"), "{err}");
    // The same plaintext as with the full key.
    let (_, a) = read(&full);
    let (_, b) = read(&out);
    let same = a.iter().zip(&b).filter(|(x, y)| x.data == y.data).count();
    assert_eq!(same, a.len() - 2, "all but the two group frames");
    // A flipped byte fails the ICV: left as it was.
    let (ifaces, mut pk) = read(&cap);
    let i = pk.iter().position(|p| p.data[1] & 0x41 == 0x41).unwrap();
    let n = pk[i].data.len();
    pk[i].data[n - 6] ^= 1;
    let bad = dir.path().join("bad.pcap");
    write_packets(&bad, Format::Pcap, &ifaces, &pk);
    let o2 = dir.path().join("bad-out.pcap");
    let r = wisec(&["decrypt", p(&bad), p(&o2), "--tk", &tk32[..32], "--json"]);
    let s: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(s["suites"]["tkip"]["decrypted"].as_u64(), Some(unicast - 1));
    assert_eq!(read(&o2).1[i], pk[i]);
}

fn write_packets(path: &Path, format: Format, ifaces: &[Interface], pk: &[Packet]) {
    let mut w = CaptureWriter::new(std::fs::File::create(path).unwrap(), format);
    w.write_record(&Record::Section).unwrap();
    for i in ifaces {
        w.write_record(&Record::Interface(i.clone())).unwrap();
    }
    for p in pk {
        w.write_record(&Record::Packet(p.clone())).unwrap();
    }
    w.into_inner().unwrap();
}

/// A Prism monitor header (linux-wlan-ng `p80211msg_lnxind_wlansniffrm`,
/// host byte order, here little-endian): code, length 144, device name,
/// then ten items of DID, status, length and a 32-bit value.
fn prism_header(frame_len: usize) -> Vec<u8> {
    let mut h = Vec::with_capacity(144);
    h.extend(0x44u32.to_le_bytes());
    h.extend(144u32.to_le_bytes());
    let mut name = [0u8; 16];
    name[..5].copy_from_slice(b"wlan0");
    h.extend(name);
    let items: [(u32, u32); 10] = [
        (0x0001_0044, 1000),
        (0x0002_0044, 2000),
        (0x0003_0044, 6),
        (0x0004_0044, 40),
        (0x0005_0044, 0),
        (0x0006_0044, 40),
        (0x0007_0044, 0),
        (0x0008_0044, 2),
        (0x0009_0044, 0),
        (0x000a_0044, frame_len as u32),
    ];
    for (did, v) in items {
        h.extend(did.to_le_bytes());
        h.extend(0u16.to_le_bytes());
        h.extend(4u16.to_le_bytes());
        h.extend(v.to_le_bytes());
    }
    h
}

/// An AVS capture header version 1 (wlan-ng `p80211_caphdr`, big-endian,
/// 64 octets).
fn avs_header() -> Vec<u8> {
    let mut h = Vec::with_capacity(64);
    h.extend(0x8021_1001u32.to_be_bytes());
    h.extend(64u32.to_be_bytes());
    h.extend(123_456u64.to_be_bytes()); // mactime
    h.extend(789u64.to_be_bytes()); // hosttime
    for v in [4u32, 6, 20, 0, 0, 2, 0xffff_ffd6, 0xffff_ffa0, 0, 1] {
        // phytype, channel, datarate, antenna, priority, ssi_type,
        // ssi_signal (-42), ssi_noise (-96), preamble, encoding
        h.extend(v.to_be_bytes());
    }
    h
}

/// A PPI header (CACE PPI 1.0.1): version 0, flags 0, its length, DLT
/// 105, and one 802.11-Common field (type 2, 20 octets) without FCS.
fn ppi_header() -> Vec<u8> {
    let mut h = Vec::with_capacity(32);
    h.extend([0u8, 0]);
    h.extend(32u16.to_le_bytes());
    h.extend(105u32.to_le_bytes());
    h.extend(2u16.to_le_bytes());
    h.extend(20u16.to_le_bytes());
    h.extend(123_456u64.to_le_bytes()); // TSFT
    h.extend(0u16.to_le_bytes()); // flags: no FCS
    h.extend(108u16.to_le_bytes()); // rate, 500 kb/s units
    h.extend(2437u16.to_le_bytes());
    h.extend(0x00c0u16.to_le_bytes()); // 2 GHz, OFDM
    h.extend([0u8, 0, 0xd6, 0xa0]);
    h
}

/// `cap` (link type 105) with every frame behind a header of `link_type`.
fn rewrap(cap: &Path, out: &Path, link_type: u16) {
    let (mut ifaces, mut pk) = read(cap);
    ifaces[0].link_type = link_type;
    for p in &mut pk {
        let h = match link_type {
            119 => prism_header(p.data.len()),
            163 => avs_header(),
            _ => ppi_header(),
        };
        let mut d = h;
        d.extend_from_slice(&p.data);
        p.orig_len = d.len() as u32;
        p.data = d;
    }
    write_packets(out, Format::Pcap, &ifaces, &pk);
}

#[test]
fn prism_avs_and_ppi_captures_keep_their_headers() {
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(
        dir.path(),
        "s.pcap",
        &["--stations", "2", "--frames", "6", "--group-rekey"],
    );
    for (lt, fields) in [
        (
            119u16,
            vec!["prism.did.frmlen", "prism.did.channel", "prism.devname"],
        ),
        (
            163,
            vec![
                "wlancap.channel",
                "wlancap.mactime",
                "wlancap.dbm_antsignal",
            ],
        ),
        (
            192,
            vec![
                "ppi.dlt",
                "ppi.80211-common.chan.freq",
                "ppi.80211-common.tsft",
            ],
        ),
    ] {
        let input = dir.path().join(format!("lt{lt}.pcap"));
        rewrap(&cap, &input, lt);
        let out = dir.path().join(format!("lt{lt}-out.pcap"));
        let s = decrypt(&input, &out, &[]);
        assert_eq!(s["decrypted"], s["protected"], "{lt}: {s}");
        assert_eq!(s["unparsable"], 0, "{lt}: {s}");
        let (oi, op) = read(&out);
        let (_, ip) = read(&input);
        assert_eq!(oi[0].link_type, lt);
        // The header of every frame as it was.
        let hl = ip[0].data.len() - read(&cap).1[0].data.len();
        for (a, b) in ip.iter().zip(&op) {
            assert_eq!(a.data[..hl], b.data[..hl], "{lt}");
        }
        // tshark reads OUT as it reads IN decrypted, header fields too.
        let (n, missed) = tshark_agrees(&input, &out, &fields);
        assert!(n >= 12 && missed == 0, "{lt}: tshark decrypted {n}");
        if lt != 163 {
            // airdecap-ng reads Prism and PPI (not AVS): the same
            // Ethernet frames.
            let (theirs, report) = airdecap(dir.path(), &input, None);
            let (ours, _) = ours_ethernet(dir.path(), &input, &[]);
            assert!(!theirs.is_empty(), "{lt}: {report}");
            assert_eq!(ours, theirs, "{lt}: {report}");
        }
    }
}

#[test]
fn radiotap_padding_is_taken_out_and_put_back() {
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(dir.path(), "s.pcap", &["--stations", "1", "--frames", "6"]);
    let (mut ifaces, mut pk) = read(&cap);
    ifaces[0].link_type = 127;
    // Radiotap: Flags (0x20, data pad); QoS data (26-octet header) gets 2
    // octets of padding after its MAC header.
    for p in &mut pk {
        let mut d = vec![0u8, 0, 9, 0, 0x02, 0, 0, 0, 0x20];
        let qos = p.data[0] & 0x8c == 0x88;
        if qos {
            d.extend_from_slice(&p.data[..26]);
            d.extend_from_slice(&[0, 0]);
            d.extend_from_slice(&p.data[26..]);
        } else {
            d.extend_from_slice(&p.data);
        }
        p.orig_len = d.len() as u32;
        p.data = d;
    }
    let input = dir.path().join("pad.pcap");
    write_packets(&input, Format::Pcap, &ifaces, &pk);
    let out = dir.path().join("pad-out.pcap");
    let s = decrypt(&input, &out, &[]);
    assert_eq!(s["decrypted"], s["protected"], "{s}");
    assert_eq!(s["unparsable"], 0, "{s}");
    let (_, op) = read(&out);
    for (a, b) in pk.iter().zip(&op) {
        // Radiotap header kept; the pad where it was.
        assert_eq!(a.data[..9], b.data[..9]);
        if a.data[10] & 0x40 != 0 {
            assert_eq!(a.data.len(), b.data.len() + 16, "CCMP overhead only");
            if a.data[9] & 0x8c == 0x88 {
                assert_eq!(b.data[9 + 26..9 + 28], [0, 0], "the pad");
            }
        } else {
            assert_eq!(a, b);
        }
    }
    let (n, missed) = tshark_agrees(&input, &out, &["radiotap.flags.datapad"]);
    assert!(n >= 6 && missed == 0, "{n} {missed}");
}

#[test]
fn a_pcapng_with_an_ethernet_interface_beside_the_radio() {
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(
        dir.path(),
        "s.pcapng",
        &["--stations", "1", "--frames", "6"],
    );
    let (mut ifaces, radio) = read(&cap);
    ifaces.push(Interface::new(1, 65535));
    let mut pk = Vec::new();
    for (i, p) in radio.iter().enumerate() {
        pk.push(p.clone());
        if i % 3 == 0 {
            let mut e = vec![0xffu8; 6];
            e.extend([2, 0, 0, 0, 0, 9, 0x08, 0x06]);
            e.extend(vec![i as u8; 28]);
            pk.push(Packet {
                interface: 1,
                timestamp: p.timestamp,
                orig_len: e.len() as u32,
                data: e,
            });
        }
    }
    let input = dir.path().join("mixed.pcapng");
    write_packets(&input, Format::Pcapng, &ifaces, &pk);
    let out = dir.path().join("mixed-out.pcapng");
    let s = decrypt(&input, &out, &[]);
    assert_eq!(s["decrypted"], s["protected"], "{s}");
    let eth = pk.iter().filter(|p| p.interface == 1).count() as u64;
    assert_eq!(s["other_link_types"].as_u64(), Some(eth), "{s}");
    let (oi, op) = read(&out);
    let types = |v: &[Interface]| v.iter().map(|i| i.link_type).collect::<Vec<_>>();
    assert_eq!(types(&oi), types(&ifaces));
    assert_eq!(op.len(), pk.len());
    for (a, b) in pk.iter().zip(&op) {
        if a.interface == 1 {
            assert_eq!(a, b, "Ethernet packets are copied unchanged");
        }
    }
    // With --ethernet the radio interface becomes Ethernet; the other one
    // already is, and its packets stay.
    let (e, _) = ours_ethernet(dir.path(), &input, &[]);
    assert!(!e.is_empty());
    let (n, missed) = tshark_agrees(&input, &out, &["eth.src"]);
    assert!(n >= 6 && missed == 0, "{n} {missed}");
}

/// An FT roam between two APs of one mobility domain, from the
/// passphrase (FT-PSK) and from the MSK (FT over 802.1X): the first AP's
/// handshake completes (message 3 names the PMKR1Name) and gives its
/// GTK, the roam gives the PTK and GTK of the second; tshark, decrypting
/// the capture itself, reads every frame as wisec writes it.
#[test]
fn ft_roam_between_two_aps() {
    let dir = tempfile::tempdir().unwrap();
    let msk = "ab".repeat(64);
    for (akm, cred, key) in [
        (
            "ft-psk",
            ["--passphrase", PASS],
            format!("\"wpa-pwd\",\"{PASS}:{SSID}\""),
        ),
        ("ft-8021x", ["--msk", &msk], format!("\"msk\",\"{msk}\"")),
    ] {
        let cap = dir.path().join(format!("{akm}.pcap"));
        let mut a = vec!["synth", p(&cap), "--ssid", SSID, "--akm", akm];
        a.extend(cred);
        a.extend(["--stations", "2", "--frames", "8"]);
        ok(&a);
        let out = dir.path().join(format!("{akm}-out.pcap"));
        let s = json(&["decrypt", p(&cap), p(&out), cred[0], cred[1]]);
        assert_eq!(s["decrypted"], s["protected"], "{akm}: {s}");
        let links = s["links"].as_object().unwrap();
        for sta in ["02:57:53:00:00:10", "02:57:53:00:00:11"] {
            let first = &links[&format!("{BSSID} {sta}")];
            assert_eq!(first["handshakes_complete"], 1, "{akm}: {first}");
            assert_eq!(first["rejected"], serde_json::json!({}), "{first}");
            let second = &links[&format!("02:57:53:00:00:02 {sta}")];
            assert_eq!(second["ft_roams"], 1, "{akm}: {second}");
            assert_eq!(second["credentials"][0], cred[0].to_string() + " #1");
        }
        // Both APs' group frames, under their own GTKs.
        for ap in [BSSID, "02:57:53:00:00:02"] {
            let g = &links[&format!("{ap} group")];
            assert_eq!(g["left_encrypted"], serde_json::json!({}), "{akm}: {g}");
            assert_eq!(g["decrypted"].as_object().unwrap().len(), 1, "{g}");
        }
        let (n, missed) = tshark_agrees_with(&cap, &out, &key, &["wlan.bssid"]);
        assert_eq!((n, missed), (18, 0), "{akm}");
    }
}

/// A capture cut in the middle of a record, and one with a corrupt block
/// in the middle: decrypted up to the damage, a warning naming the
/// offset, exit status 3; the frames before it as from the whole file.
#[test]
fn damaged_captures_are_decrypted_up_to_the_damage() {
    let dir = tempfile::tempdir().unwrap();
    let whole_ng = synth(
        dir.path(),
        "s.pcapng",
        &["--stations", "2", "--frames", "8"],
    );
    let whole = synth(dir.path(), "s.pcap", &["--stations", "2", "--frames", "8"]);
    for (cap, cut_at, corrupt) in [(&whole, 0.6f64, false), (&whole_ng, 0.5, true)] {
        let bytes = std::fs::read(cap).unwrap();
        let full_out = dir.path().join("full.out");
        let _ = std::fs::remove_file(&full_out);
        ok(&["decrypt", p(cap), p(&full_out), "--passphrase", PASS]);
        let (_, full) = read(&full_out);
        let mut damaged = bytes.clone();
        let at = (bytes.len() as f64 * cut_at) as usize;
        let at = if corrupt {
            // The block starting after `at`: its length no multiple of 4.
            let mut next = 0;
            while next < at {
                next += u32::from_le_bytes(bytes[next + 4..next + 8].try_into().unwrap()) as usize;
            }
            damaged[next + 4] = damaged[next + 4].wrapping_add(1);
            next
        } else {
            damaged.truncate(at);
            at
        };
        let input = dir.path().join("damaged");
        std::fs::write(&input, &damaged).unwrap();
        let out = dir.path().join("damaged.out");
        let _ = std::fs::remove_file(&out);
        let r = wisec(&["decrypt", p(&input), p(&out), "--passphrase", PASS]);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(3), "{err}");
        assert!(
            err.contains("wisec: warning: ") && err.contains("offset "),
            "{err}"
        );
        let (_, got) = read(&out);
        assert!(!got.is_empty() && got.len() < full.len());
        assert_eq!(got[..], full[..got.len()], "the frames before the damage");
        if corrupt {
            assert!(err.contains(&format!("offset {at}")), "{err}");
        }
    }
}

/// Several passphrases, PSKs and PMKs: each handshake is tried under
/// every one, and the summary names the one that matched.
#[test]
fn several_credentials_and_the_one_that_matched() {
    let dir = tempfile::tempdir().unwrap();
    let cap = synth(dir.path(), "s.pcap", &["--stations", "2", "--frames", "4"]);
    let out = dir.path().join("o.pcap");
    let wrong_psk = "11".repeat(32);
    let s = json(&[
        "decrypt",
        p(&cap),
        p(&out),
        "--passphrase",
        "not the passphrase",
        "--psk",
        &wrong_psk,
        "--pmk",
        &"22".repeat(48),
        "--passphrase",
        PASS,
    ]);
    assert_eq!(s["decrypted"], s["protected"], "{s}");
    for (name, l) in s["links"].as_object().unwrap() {
        if !name.ends_with("group") {
            assert_eq!(
                l["credentials"],
                serde_json::json!(["--passphrase #2"]),
                "{l}"
            );
        }
    }
}
