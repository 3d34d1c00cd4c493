//! `wisec decrypt` from a passphrase, end to end: round trips on session
//! captures with a handshake, airdecap-ng's Ethernet output frame for
//! frame, tshark with the keys wisec writes, and clear reasons (never a
//! panic) for corrupt handshakes and captures without one. airdecap-ng
//! and tshark are required: these tests fail when they are missing.

mod common;

use common::*;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::Command;
use wisec::capture::Format;
use wisec::decrypt::pipeline::to_ethernet;
use wisec::session::{self, SessionOptions};

fn write(dir: &Path, name: &str, frames: &[Vec<u8>], format: Format) -> PathBuf {
    let path = dir.join(name);
    let f = BufWriter::new(File::create(&path).unwrap());
    session::write_frames(f, format, frames).unwrap();
    path
}

fn opts(tkip: bool) -> SessionOptions {
    SessionOptions {
        stations: 3,
        data_frames: 60,
        group_frames: 5,
        tkip,
        ..SessionOptions::default()
    }
}

#[test]
fn passphrase_round_trip_recovers_every_plaintext_frame() {
    for tkip in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let o = opts(tkip);
        let (frames, plain) = session::build(&o).unwrap();
        let input = write(dir.path(), "s.pcapng", &frames, Format::Pcapng);
        let out = dir.path().join("d.pcapng");
        let s = json(&["decrypt", p(&input), p(&out), "--passphrase", &o.passphrase]);
        let protected = plain.iter().filter(|x| x.is_some()).count() as u64;
        assert_eq!(s["protected"], protected, "{s}");
        assert_eq!(s["decrypted"], protected, "{s}");
        let (_, packets) = read(&out);
        assert_eq!(packets.len(), frames.len());
        for (i, (pk, expect)) in packets.iter().zip(&plain).enumerate() {
            match expect {
                Some(m) => assert_eq!(&pk.data, m, "frame {i} (tkip {tkip})"),
                None => assert_eq!(pk.data, frames[i], "frame {i} changed"),
            }
        }
        // Per BSS and station: one complete handshake each, frames
        // decrypted per key.
        let ap = session::AP.to_string();
        for st in 0..o.stations {
            let l = &s["links"][format!("{ap} {}", session::station(st))];
            assert_eq!(l["handshakes_complete"], 1, "{l}");
            assert_eq!(l["ptks"], 1, "{l}");
            assert_eq!(l["msg4"], 1, "{l}");
            assert_eq!(l["rejected"], serde_json::json!({}), "{l}");
            let n: u64 = l["decrypted"]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_u64().unwrap())
                .sum();
            assert!(n >= 20, "{l}");
        }
        assert_eq!(
            s["links"][format!("{ap} group")]["decrypted"]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_u64().unwrap())
                .sum::<u64>(),
            o.group_frames as u64
        );
    }
}

#[test]
fn psk_and_ssid_options_and_filters() {
    let dir = tempfile::tempdir().unwrap();
    let o = opts(false);
    let (frames, _) = session::build(&o).unwrap();
    let input = write(dir.path(), "s.pcap", &frames, Format::Pcap);
    // --psk: PBKDF2 by Python's hashlib would be the independent check;
    // the PSK here comes from IEEE 802.11 Annex J's mapping, whose vectors
    // wisec-crypto checks.
    let psk = wisec_crypto::kdf::psk(o.passphrase.as_bytes(), o.ssid.as_bytes()).unwrap();
    let out = dir.path().join("a.pcap");
    let s = json(&[
        "decrypt",
        p(&input),
        p(&out),
        "--psk",
        &hex::encode(psk.as_bytes()),
    ]);
    assert_eq!(s["decrypted"], s["protected"]);
    // A wrong SSID: every message 2 is refused with a reason.
    let out = dir.path().join("b.pcap");
    let s = json(&[
        "decrypt",
        p(&input),
        p(&out),
        "--passphrase",
        &o.passphrase,
        "--ssid",
        "other",
    ]);
    assert_eq!(s["decrypted"], 0);
    let l = &s["links"][format!("{} {}", session::AP, session::station(0))];
    assert_eq!(
        l["rejected"]["message 2: no credential matched (wrong passphrase or PSK?)"], 1,
        "{l}"
    );
    assert_eq!(
        l["rejected"]["message 3: no credential matched (wrong passphrase or PSK?)"], 1,
        "{l}"
    );
    assert!(l["left_encrypted"]
        .as_object()
        .unwrap()
        .keys()
        .any(|k| k.contains("no PTK verified")));
    // --station: only that station's frames are decrypted.
    let out = dir.path().join("c.pcap");
    let st = session::station(1).to_string();
    let s = json(&[
        "decrypt",
        p(&input),
        p(&out),
        "--passphrase",
        &o.passphrase,
        "--station",
        &st,
    ]);
    assert_eq!(s["decrypted"], 20);
    assert!(s["filtered_out"].as_u64().unwrap() > 0);
}

fn airdecap(input: &Path, out: &Path, o: &SessionOptions) -> String {
    let r = Command::new("airdecap-ng")
        .arg("-e")
        .arg(&o.ssid)
        .arg("-p")
        .arg(&o.passphrase)
        .arg("-o")
        .arg(out)
        .arg(input)
        .output()
        .expect("airdecap-ng is required (apt-get install aircrack-ng)");
    assert!(r.status.success(), "airdecap-ng failed");
    String::from_utf8_lossy(&r.stdout).to_string()
}

#[test]
fn ethernet_output_matches_airdecap_ng_frame_for_frame() {
    for tkip in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let o = opts(tkip);
        let (frames, plain) = session::build(&o).unwrap();
        let input = write(dir.path(), "s.pcap", &frames, Format::Pcap);
        let ours = dir.path().join("ours.pcap");
        let theirs = dir.path().join("theirs.pcap");
        let s = json(&[
            "decrypt",
            p(&input),
            p(&ours),
            "--passphrase",
            &o.passphrase,
            "--ethernet",
        ]);
        let report = airdecap(&input, &theirs, &o);
        let (oi, op) = read(&ours);
        let (ti, tp) = read(&theirs);
        assert_eq!(oi[0].link_type, 1);
        assert_eq!(ti[0].link_type, 1);
        // airdecap-ng decrypts unicast frames with the PTK only; wisec
        // also decrypts group frames with the GTK.
        let unicast: Vec<&Vec<u8>> = op
            .iter()
            .map(|p| &p.data)
            .filter(|d| d[0] & 1 == 0)
            .collect();
        let theirs: Vec<&Vec<u8>> = tp.iter().map(|p| &p.data).collect();
        assert_eq!(unicast.len(), theirs.len(), "tkip {tkip}: {report}");
        for (i, (a, b)) in unicast.iter().zip(&theirs).enumerate() {
            assert_eq!(a, b, "frame {i} (tkip {tkip})");
        }
        assert!(report.contains(&format!(
            "Number of decrypted WPA  packets  {:>8}",
            theirs.len()
        )));
        // And every Ethernet frame is the plaintext MSDU.
        let expect: Vec<Vec<u8>> = plain
            .iter()
            .flatten()
            .filter_map(|m| to_ethernet(m))
            .collect();
        assert_eq!(op.len(), expect.len());
        assert_eq!(s["decrypted"].as_u64().unwrap() as usize, expect.len());
        for (a, b) in op.iter().zip(&expect) {
            assert_eq!(&a.data, b);
        }
    }
}

#[test]
fn keys_out_lets_tshark_decrypt() {
    let dir = tempfile::tempdir().unwrap();

    let o = SessionOptions {
        stations: 1,
        ..opts(false)
    };
    let (frames, plain) = session::build(&o).unwrap();
    let input = write(dir.path(), "s.pcap", &frames, Format::Pcap);
    let keys = dir.path().join("keys.txt");
    ok(&[
        "decrypt",
        p(&input),
        p(&dir.path().join("o.pcap")),
        "--passphrase",
        &o.passphrase,
        "--keys-out",
        p(&keys),
    ]);
    let text = std::fs::read_to_string(&keys).unwrap();
    let psk = wisec_crypto::kdf::psk(o.passphrase.as_bytes(), o.ssid.as_bytes()).unwrap();
    assert!(text.contains(&format!("\"wpa-psk\",\"{}\"", hex::encode(psk.as_bytes()))));
    assert_eq!(text.lines().filter(|l| l.starts_with("\"tk\"")).count(), 2);
    // tshark reads the file's TK lines alone (the PSK line would let it
    // derive the keys from the handshake itself) as its 80211_keys table
    // and decrypts every protected frame with them.
    let tk_lines: Vec<&str> = text.lines().filter(|l| l.starts_with("\"tk\"")).collect();
    let llc_frames = |table: &str| {
        let conf = tempfile::tempdir().unwrap();
        std::fs::write(conf.path().join("80211_keys"), table).unwrap();
        let out = Command::new("tshark")
            .env("WIRESHARK_CONFIG_DIR", conf.path())
            .arg("-r")
            .arg(&input)
            .args([
                "-o",
                "wlan.enable_decryption:TRUE",
                "-Y",
                "llc",
                "-T",
                "fields",
                "-e",
                "frame.number",
            ])
            .output()
            .expect("tshark is required (apt-get install tshark)");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).lines().count()
    };
    let n = llc_frames(&(tk_lines.join("\n") + "\n"));
    let protected = plain.iter().filter(|x| x.is_some()).count();
    // Decrypted frames and the four plaintext EAPOL frames show LLC.
    assert_eq!(n, protected + 4, "tshark saw {n} frames with LLC");
    // The control: the same lines with each key changed decrypt nothing.
    let wrong: String = tk_lines
        .iter()
        .map(|l| {
            let (head, hex) = l.split_at(6);
            let mut k = hex.to_string();
            let c = if k.starts_with('0') { "1" } else { "0" };
            k.replace_range(0..1, c);
            format!("{head}{k}\n")
        })
        .collect();
    assert_eq!(llc_frames(&wrong), 4, "{wrong}");
}

#[test]
fn corrupt_handshakes_and_no_handshake_give_reasons_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let o = SessionOptions {
        stations: 2,
        ..opts(false)
    };
    let (frames, _) = session::build(&o).unwrap();
    // Station 0: message 2 truncated in its Key Data, message 3's wrapped
    // key data corrupted (its MIC then fails too). Station 1: intact.
    let mut bad = frames.clone();
    let m2 = &mut bad[2];
    m2.truncate(m2.len() - 5);
    let m3 = &mut bad[3];
    let last = m3.len() - 3;
    m3[last] ^= 0xff;
    let input = write(dir.path(), "bad.pcap", &bad, Format::Pcap);
    let out = dir.path().join("o.pcap");
    let s = json(&["decrypt", p(&input), p(&out), "--passphrase", &o.passphrase]);
    let l0 = &s["links"][format!("{} {}", session::AP, session::station(0))];
    let rej = l0["rejected"].as_object().unwrap();
    assert!(
        rej.contains_key("message 2: EAPOL-Key frame truncated or malformed"),
        "{l0}"
    );
    assert!(
        rej.contains_key("message 3: no PTK derived for this link yet"),
        "{l0}"
    );
    assert!(
        l0["left_encrypted"]
            .as_object()
            .unwrap()
            .keys()
            .any(|k| k.contains("no PTK")),
        "{l0}"
    );
    let l1 = &s["links"][format!("{} {}", session::AP, session::station(1))];
    assert_eq!(l1["handshakes_complete"], 1, "{l1}");

    // No handshake at all: every protected frame says so.
    let data_only: Vec<Vec<u8>> = frames.iter().skip(1 + 4 * o.stations).cloned().collect();
    let input = write(dir.path(), "none.pcap", &data_only, Format::Pcap);
    let out = dir.path().join("n.pcap");
    let s = json(&["decrypt", p(&input), p(&out), "--passphrase", &o.passphrase]);
    assert_eq!(s["decrypted"], 0);
    let l = &s["links"][format!("{} {}", session::AP, session::station(0))];
    assert_eq!(
        l["left_encrypted"]["no handshake seen for this station"], 30,
        "{l}"
    );
    let text = ok(&[
        "decrypt",
        p(&input),
        p(&dir.path().join("t.pcap")),
        "--passphrase",
        &o.passphrase,
    ]);
    assert!(
        text.contains("no handshake seen for this station"),
        "{text}"
    );

    // Truncated copies of every handshake frame, in one capture.
    let mut cut = vec![frames[0].clone()];
    for f in &frames[1..1 + 4 * o.stations] {
        for n in (24..f.len()).step_by(7) {
            cut.push(f[..n].to_vec());
        }
    }
    let input = write(dir.path(), "cut.pcap", &cut, Format::Pcap);
    let s = json(&[
        "decrypt",
        p(&input),
        p(&dir.path().join("c.pcap")),
        "--passphrase",
        &o.passphrase,
    ]);
    assert_eq!(s["frames"], cut.len());
}

/// Every `wisec synth` session (each AKM and cipher synth writes, with and
/// without PMF and a group rekey) decrypts back to every plaintext frame,
/// from the passphrase or the PMK alone.
#[test]
fn synth_round_trip_every_akm_and_cipher() {
    use wisec::synth::{generate, FrameKind, SynthAkm, SynthCipher, SynthConfig};
    let pmk = "7b".repeat(32);
    let mut cases = Vec::new();
    for akm in [
        SynthAkm::Psk,
        SynthAkm::PskSha256,
        SynthAkm::Sae,
        SynthAkm::Owe,
    ] {
        for cipher in [
            SynthCipher::Ccmp128,
            SynthCipher::Ccmp256,
            SynthCipher::Gcmp128,
            SynthCipher::Gcmp256,
            SynthCipher::Tkip,
        ] {
            if cipher == SynthCipher::Tkip && akm != SynthAkm::Psk {
                continue;
            }
            let pmfs: &[bool] = if cipher == SynthCipher::Tkip {
                &[false]
            } else {
                &[false, true]
            };
            for &pmf in pmfs {
                cases.push((akm, cipher, pmf));
            }
        }
    }
    for (akm, cipher, pmf) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = SynthConfig::new("synth passphrase", "wisec-synth");
        cfg.akm = akm;
        cfg.cipher = cipher;
        cfg.pmf = pmf;
        cfg.stations = 2;
        cfg.frames = 6;
        cfg.group_rekey = true;
        if !akm.uses_passphrase() {
            cfg.pmk = Some(zeroize::Zeroizing::new(hex::decode(&pmk).unwrap()));
        }
        let mut frames = Vec::new();
        let mut expect = Vec::new();
        let mut bip = 0u64;
        generate(&cfg, &mut |f| {
            frames.push(f.mpdu.to_vec());
            if f.kind == FrameKind::BipMgmt {
                bip += 1;
                expect.push(f.mpdu.to_vec());
            } else {
                expect.push(f.plaintext.unwrap_or(f.mpdu).to_vec());
            }
            Ok(())
        })
        .unwrap();
        let input = write(dir.path(), "s.pcapng", &frames, Format::Pcapng);
        let out = dir.path().join("d.pcapng");
        let cred: [&str; 2] = if akm.uses_passphrase() {
            ["--passphrase", "synth passphrase"]
        } else {
            ["--pmk", &pmk]
        };
        let s = json(&["decrypt", p(&input), p(&out), cred[0], cred[1]]);
        let what = format!("{akm:?} {cipher:?} pmf {pmf}");
        assert_eq!(s["decrypted"], s["protected"], "{what}: {s}");
        let (_, packets) = read(&out);
        assert_eq!(packets.len(), expect.len(), "{what}");
        for (i, (pk, e)) in packets.iter().zip(&expect).enumerate() {
            assert_eq!(&pk.data, e, "{what}: frame {i}");
        }
        // Every BIP frame verified under the IGTK from message 3.
        let verified: u64 = s["suites"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| k.starts_with("bip"))
            .map(|(_, v)| v["decrypted"].as_u64().unwrap())
            .sum();
        assert_eq!(verified, bip, "{what}: {s}");
        for l in s["links"].as_object().unwrap().values() {
            assert_eq!(l["rejected"], serde_json::json!({}), "{what}: {l}");
            assert_eq!(l["integrity_failures"], 0, "{what}: {l}");
        }
    }
}

/// CPU seconds of this process's children waited for so far.
fn children_cpu_s() -> f64 {
    use nix::sys::resource::{getrusage, UsageWho};
    let u = getrusage(UsageWho::RUSAGE_CHILDREN).unwrap();
    let s = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    s(u.user_time()) + s(u.system_time())
}

/// `wisec bench decrypt --quick` runs wisec (this binary, as a
/// subprocess, with every core and with one thread), airdecap-ng and
/// tshark on synth captures of every suite it covers and each decrypts
/// what it should.
#[test]
fn bench_decrypt_quick_smoke() {
    let r = json(&[
        "bench",
        "decrypt",
        "--quick",
        "--frames",
        "400",
        "--stations",
        "2",
    ]);
    let caps = r["captures"].as_array().unwrap();
    let names: Vec<&str> = caps
        .iter()
        .map(|c| c["capture"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ccmp", "tkip", "wep", "gcmp"], "{r}");
    for c in caps {
        let res = c["results"].as_array().unwrap();
        let tools: Vec<&str> = res.iter().map(|m| m["name"].as_str().unwrap()).collect();
        let protected = c["protected"].as_u64().unwrap();
        let unicast = c["unicast_data"].as_u64().unwrap();
        // wisec (both ways) and tshark decrypt every protected frame;
        // airdecap-ng the unicast ones of a WPA capture (it has no group
        // keys), every one of the WEP capture; the copy none.
        let copy = "dd conv=fdatasync (no decrypting)";
        let want = |tool: &str| -> u64 {
            match (tool, c["capture"].as_str().unwrap()) {
                ("airdecap-ng", "wep") => protected,
                ("airdecap-ng", _) => unicast,
                (t, _) if t == copy => 0,
                _ => protected,
            }
        };
        match c["capture"].as_str().unwrap() {
            "ccmp" => {
                assert_eq!(
                    tools[2..],
                    ["airdecap-ng", "tshark -o wlan.enable_decryption:TRUE", copy]
                );
                assert_eq!(unicast, 400, "{r}");
            }
            "tkip" | "wep" => assert_eq!(tools[2..], ["airdecap-ng", copy]),
            _ => {
                assert_eq!(tools[2..], ["tshark -o wlan.enable_decryption:TRUE", copy]);
                assert_eq!(unicast, 40, "{r}");
            }
        }
        assert_eq!(tools[..2], ["wisec decrypt", "wisec decrypt --threads 1"]);
        assert!(protected >= unicast && unicast > 0, "{r}");
        for m in res {
            let name = m["name"].as_str().unwrap();
            assert_eq!(m["decrypted"], want(name), "{name}: {r}");
            assert!(m["frames_per_s"].as_f64().unwrap() > 0.0, "{r}");
            assert_eq!(m["decrypted"], m["expected"], "{r}");
            assert!(!m["does"].as_str().unwrap().is_empty(), "{r}");
            let f = |k: &str| m[k].as_f64().unwrap();
            assert!(
                f("seconds_min") <= f("seconds") && f("seconds") <= f("seconds_max"),
                "{r}"
            );
            // Every program takes some CPU time to start and read the
            // capture, and what one run takes cannot be more than all the
            // children waited for so far.
            assert!(f("cpu_seconds") > 0.0, "{r}");
            assert!(f("cpu_seconds") < children_cpu_s(), "{r}");
            assert!(
                f("wisec_speedup_min") <= f("wisec_speedup") + 1e-9
                    && f("wisec_speedup") <= f("wisec_speedup_max") + 1e-9,
                "{r}"
            );
        }
        // wisec against itself, round by round.
        assert_eq!(res[0]["wisec_speedup"], 1.0, "{r}");
    }
}
