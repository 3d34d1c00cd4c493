//! wisec against independent references: tshark decrypts what wisec
//! protected, and wisec unprotects the frames of the standard's test
//! vectors. tshark is required: these tests fail when it is missing.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;
use wisec::capture::{CaptureWriter, Format, Interface, Packet, Record};

/// Runs tshark with one decryption key and returns, per frame, whether
/// the Protected bit is set and the dissected payload (`data.data`).
fn tshark(file: &Path, key_type: &str, key: &str, extra: &[&str]) -> Vec<(String, String, String)> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-r").arg(file).args([
        "-o",
        "wlan.enable_decryption:TRUE",
        "-o",
        &format!("uat:80211_keys:\"{key_type}\",\"{key}\""),
        "-o",
        "wlan.check_checksum:TRUE",
        "-T",
        "fields",
        "-E",
        "occurrence=f",
        "-e",
        "wlan.fc.protected",
        "-e",
        "data.data",
        "-e",
        "wlan.fcs.status",
    ]);
    cmd.args(extra);
    let out = cmd
        .output()
        .expect("tshark is required for the interoperability tests (apt-get install tshark)");
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let mut f = l.split('\t').map(str::to_string);
            (
                f.next().unwrap_or_default(),
                f.next().unwrap_or_default(),
                f.next().unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn tshark_decrypts_every_suite() {
    let dir = tempfile::tempdir().unwrap();
    for (name, o) in [
        ("plain.pcapng", opts(Format::Pcapng, 105, false)),
        ("rt-fcs.pcap", opts(Format::Pcap, 127, true)),
    ] {
        let input = sample(dir.path(), name, o);
        // What tshark sees in the plaintext: the UDP payload of every data
        // frame (frames without one have an empty field).
        let plain = tshark(&input, "wep", WEP40, &[]);
        let payloads: Vec<&String> = plain
            .iter()
            .map(|f| &f.1)
            .filter(|d| !d.is_empty())
            .collect();
        assert_eq!(payloads.len(), 9, "{name}: {plain:?}");
        for (i, d) in payloads.iter().enumerate() {
            assert_eq!(**d, hex::encode(wisec::sample::payload(i)));
        }
        for (suite, key, _) in SUITES {
            let enc = dir.path().join(format!("{suite}-{name}"));
            ok(&[
                "encrypt",
                p(&input),
                p(&enc),
                "--suite",
                suite,
                "--key",
                key,
            ]);
            let (key_type, tshark_key) = match suite {
                "wep40" | "wep104" => ("wep", key),
                // Wireshark's TK mode takes TKIP's 16-byte encryption key
                // (the Michael keys are not needed to decrypt).
                "tkip" => ("tk", &key[..32]),
                _ => ("tk", key),
            };
            let ctx = format!("{suite} {name}");
            // Without the key tshark sees ciphertext only.
            let locked = tshark(&enc, "wep", "ffffffffff", &[]);
            assert_eq!(locked.iter().filter(|f| f.0 == "1").count(), 9, "{ctx}");
            assert!(
                locked
                    .iter()
                    .all(|f| f.1.is_empty() || !payloads.contains(&&f.1)),
                "{ctx}"
            );
            // With it, every frame carries the original payload.
            let seen = tshark(&enc, key_type, tshark_key, &[]);
            assert_eq!(seen.len(), plain.len(), "{ctx}");
            for (i, (a, b)) in plain.iter().zip(&seen).enumerate() {
                assert_eq!(a.1, b.1, "{ctx}: frame {} payload", i + 1);
                if o.fcs {
                    // 1: tshark verified the recomputed FCS.
                    assert_eq!(b.2, "1", "{ctx}: frame {} FCS", i + 1);
                }
            }
            // The frames were protected on the air.
            let protected = seen.iter().filter(|f| f.0 == "1").count();
            assert_eq!(protected, 9, "{ctx}");
        }
    }
}

fn vectors() -> serde_json::Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../wisec-crypto/tests/vectors/ieee80211_vectors.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn one_frame_capture(path: &Path, mpdu: &[u8]) {
    let mut w = CaptureWriter::new(std::fs::File::create(path).unwrap(), Format::Pcap);
    w.write_record(&Record::Section).unwrap();
    w.write_record(&Record::Interface(Interface::new(105, 65535)))
        .unwrap();
    w.write_record(&Record::Packet(Packet {
        interface: 0,
        timestamp: 0,
        orig_len: mpdu.len() as u32,
        data: mpdu.to_vec(),
    }))
    .unwrap();
    w.into_inner().unwrap();
}

#[test]
fn standard_vectors_decrypt_through_the_cli() {
    // IEEE 802.11-2012 M.6.4 (CCMP-128), IEEE P802.11ac/D7.0 M.6.4
    // (CCMP-256) and M.11.1 (GCMP-256): the protected MPDU of the vector
    // in a capture, decrypted by `wisec decrypt --suite auto`, gives the
    // vector's plaintext with the Protected bit cleared; tshark agrees.
    let dir = tempfile::tempdir().unwrap();
    let v = vectors();
    for (name, row) in [
        ("ccmp128_M64", "ccmp128"),
        ("ccmp256", "ccmp256"),
        ("gcmp256", "gcmp256"),
    ] {
        let t = &v[name];
        let tk = t["tk"].as_str().unwrap();
        let protected = hex::decode(t["expected_mpdu_no_fcs"].as_str().unwrap()).unwrap();
        let mut plain = hex::decode(t["plaintext_mpdu"].as_str().unwrap()).unwrap();
        plain[1] &= !0x40;
        let input = dir.path().join(format!("{name}.pcap"));
        one_frame_capture(&input, &protected);
        let out = dir.path().join(format!("{name}-dec.pcap"));
        let s = json(&[
            "decrypt",
            p(&input),
            p(&out),
            "--tk",
            tk,
            "--gtk",
            tk,
            "--fcs",
            "no",
        ]);
        assert_eq!(s["suites"][row]["decrypted"], 1, "{name}: {s}");
        assert_eq!(read(&out).1[0].data, plain, "{name}");
        // The same frame with one ciphertext byte flipped is rejected and
        // written unchanged.
        let mut bad = protected.clone();
        let at = bad.len() - 20;
        bad[at] ^= 0x10;
        let input2 = dir.path().join(format!("{name}-bad.pcap"));
        one_frame_capture(&input2, &bad);
        let out2 = dir.path().join(format!("{name}-bad-dec.pcap"));
        let s = json(&[
            "decrypt",
            p(&input2),
            p(&out2),
            "--tk",
            tk,
            "--gtk",
            tk,
            "--fcs",
            "no",
        ]);
        assert_eq!(s["decrypted"], 0, "{name}: {s}");
        // Which suite a frame that verifies under none belongs to is a
        // guess (the first one tried); the failure is counted once.
        let failures: u64 = s["suites"]
            .as_object()
            .unwrap()
            .values()
            .map(|r| r["integrity_failures"].as_u64().unwrap())
            .sum();
        assert_eq!(failures, 1, "{name}: {s}");
        assert_eq!(read(&out2).1[0].data, bad);
        // tshark decrypts the vector's frame to the same plaintext body
        // (it dissects the body's first bytes as an LLC header and shows
        // the rest as data).
        let hdr_len = t["hdr_len"].as_u64().unwrap_or(24) as usize;
        let seen = tshark(&input, "tk", tk, &[]);
        let body = hex::encode(&plain[hdr_len..]);
        assert!(
            seen[0].1.len() >= 16 && body.ends_with(&seen[0].1),
            "{name}: tshark saw {:?}",
            seen[0]
        );
    }
}

#[test]
fn standard_bip_vectors_verify_through_the_cli() {
    // IEEE 802.11-2012 M.9.1 (BIP-CMAC-128) and IEEE P802.11ac/D7.0 M.9.1
    // (BIP-GMAC-128/256): a group-addressed Deauthentication with its MME.
    let dir = tempfile::tempdir().unwrap();
    let v = vectors();
    for (name, row) in [
        ("bip_cmac128_M91", "bip-cmac128"),
        ("bip_gmac128", "bip-gmac128"),
        ("bip_gmac256", "bip-gmac256"),
    ] {
        let t = &v[name];
        let igtk = t["igtk"].as_str().unwrap();
        let frame = hex::decode(t["expected_protected_frame"].as_str().unwrap()).unwrap();
        for (tag, flip) in [
            ("good", None),
            ("bad", Some(frame.len() - 1)),
            ("bad-addr", Some(5)),
        ] {
            let mut f = frame.clone();
            if let Some(at) = flip {
                f[at] ^= 0x01;
            }
            let input = dir.path().join(format!("{name}-{tag}.pcap"));
            one_frame_capture(&input, &f);
            let out = dir.path().join(format!("{name}-{tag}-out.pcap"));
            let s = json(&["decrypt", p(&input), p(&out), "--igtk", igtk, "--fcs", "no"]);
            let r = &s["suites"][row];
            let ctx = format!("{name} {tag}: {s}");
            if flip.is_none() {
                assert_eq!(r["decrypted"], 1, "{ctx}");
            } else {
                let fails: u64 = s["suites"]
                    .as_object()
                    .unwrap()
                    .values()
                    .map(|r| r["integrity_failures"].as_u64().unwrap())
                    .sum();
                assert_eq!(fails, 1, "{ctx}");
            }
            // BIP frames are written as they came, MME included.
            assert_eq!(read(&out).1[0].data, f);
        }
    }
}
