//! The `wisec` binary end to end: round trips for every suite and
//! capture flavour, replays and tampering, and the error paths.

mod common;

use common::*;
use wisec::capture::Format;
use wisec::decrypt::link::fcs_ok;

/// Offset of the MPDU: the radiotap length for link type 127.
fn mpdu_start(link_type: u16, data: &[u8]) -> usize {
    if link_type == 127 {
        usize::from(u16::from_le_bytes([data[2], data[3]]))
    } else {
        0
    }
}

#[test]
fn round_trip_every_suite_and_capture_flavour() {
    let dir = tempfile::tempdir().unwrap();
    let flavours = [
        ("plain.pcapng", opts(Format::Pcapng, 105, false)),
        ("fcs.pcapng", opts(Format::Pcapng, 105, true)),
        ("fcs.pcap", opts(Format::Pcap, 105, true)),
        (
            "fcs-auto.pcapng",
            wisec::sample::SampleOptions {
                announce_fcs: false,
                ..opts(Format::Pcapng, 105, true)
            },
        ),
        ("rt.pcap", opts(Format::Pcap, 127, false)),
        ("rt-fcs.pcapng", opts(Format::Pcapng, 127, true)),
        ("rt-fcs.pcap.gz", opts(Format::Pcap, 127, true)),
    ];
    for (name, o) in flavours {
        let input = sample(dir.path(), name, o);
        let (in_ifaces, in_pkts) = read(&input);
        for (suite, key, pmf) in SUITES {
            let enc = dir.path().join(format!("{suite}-{name}"));
            let dec = dir.path().join(format!("{suite}-dec-{name}"));
            let (igtk, igtk_len) = if key.len() == 32 {
                (IGTK16, 16)
            } else {
                (IGTK32, 32)
            };
            let mut args = vec![
                "encrypt",
                p(&input),
                p(&enc),
                "--suite",
                suite,
                "--key",
                key,
            ];
            if pmf {
                args.extend(["--mgmt", "--igtk", igtk]);
            }
            let s = json(&args);
            let ctx = format!("{suite} {name}");
            assert_eq!(s["frames"], 15, "{ctx}");
            assert_eq!(s["data_protected"], 9, "{ctx}");
            assert_eq!(s["mgmt_protected"], if pmf { 2 } else { 0 }, "{ctx}");
            assert_eq!(s["mgmt_bip"], if pmf { 1 } else { 0 }, "{ctx}");
            assert_eq!(s["passed_through"], if pmf { 3 } else { 6 }, "{ctx}");
            let _ = igtk_len;

            let (enc_ifaces, enc_pkts) = read(&enc);
            assert_eq!(enc_ifaces.len(), in_ifaces.len());
            assert_eq!(enc_ifaces[0].link_type, in_ifaces[0].link_type);
            assert_eq!(enc_ifaces[0].fcslen, in_ifaces[0].fcslen, "{ctx}");
            assert_eq!(enc_pkts.len(), in_pkts.len());
            let mut changed = 0;
            for (a, b) in in_pkts.iter().zip(&enc_pkts) {
                assert_eq!(a.timestamp, b.timestamp);
                let sa = mpdu_start(o.link_type, &a.data);
                let sb = mpdu_start(o.link_type, &b.data);
                // The radiotap header is kept as it was.
                assert_eq!(a.data[..sa], b.data[..sb], "{ctx}");
                if o.fcs {
                    assert!(fcs_ok(&b.data[sb..]), "{ctx}: FCS not recomputed");
                }
                if a.data != b.data {
                    changed += 1;
                    assert!(b.data.len() > a.data.len());
                    assert_eq!(b.orig_len as usize, b.data.len());
                }
            }
            assert_eq!(changed, if pmf { 12 } else { 9 }, "{ctx}");

            let mut args = vec!["decrypt", p(&enc), p(&dec)];
            match suite {
                "wep40" | "wep104" => args.extend(["--wep", key]),
                _ => args.extend(["--tk", key, "--gtk", key]),
            }
            if pmf {
                args.extend(["--igtk", igtk]);
            }
            let s = json(&args);
            let protected = if pmf { 11 } else { 9 };
            assert_eq!(s["protected"], protected, "{ctx}");
            assert_eq!(s["decrypted"], protected, "{ctx}");
            let row = s["suites"].as_object().unwrap();
            let want = match suite {
                "ccmp" => "ccmp128",
                "gcmp" => "gcmp128",
                other => other,
            };
            assert_eq!(row[want]["decrypted"], protected, "{ctx}: {s}");
            assert_eq!(row[want]["integrity_failures"], 0);
            if pmf {
                let bip = row
                    .iter()
                    .find(|(k, _)| k.starts_with("bip"))
                    .expect("a BIP row")
                    .1;
                assert_eq!(bip["decrypted"], 1, "{ctx}: {s}");
            }
            let (_, dec_pkts) = read(&dec);
            for (i, (a, b)) in in_pkts.iter().zip(&dec_pkts).enumerate() {
                if pmf && i == 13 {
                    // The group-addressed action frame keeps its MME.
                    let n = a.data.len() - if o.fcs { 4 } else { 0 };
                    assert_eq!(a.data[..n], b.data[..n], "{ctx}");
                    continue;
                }
                assert_eq!(a, b, "{ctx}: frame {i} differs after the round trip");
            }
            if !pmf {
                // Byte for byte: the same file as the plaintext, once
                // written by the same writer.
                assert_eq!(in_pkts, dec_pkts);
            }
        }
    }
}

#[test]
fn auto_suite_finds_the_suite_by_key_length() {
    let dir = tempfile::tempdir().unwrap();
    let input = sample(dir.path(), "in.pcapng", opts(Format::Pcapng, 105, false));
    for (suite, key, _) in &SUITES[2..] {
        let enc = dir.path().join(format!("{suite}.pcapng"));
        let dec = dir.path().join(format!("{suite}-dec.pcapng"));
        ok(&[
            "encrypt",
            p(&input),
            p(&enc),
            "--suite",
            suite,
            "--key",
            key,
        ]);
        let s = json(&[
            "decrypt",
            p(&enc),
            p(&dec),
            "--tk",
            key,
            "--gtk",
            key,
            "--suite",
            "auto",
        ]);
        assert_eq!(s["decrypted"], 9, "{suite}: {s}");
        // The wrong explicit suite decrypts nothing and says so.
        let other = match *suite {
            "tkip" => "ccmp256",
            "ccmp" => "gcmp128",
            "ccmp256" => "gcmp256",
            "gcmp" => "ccmp128",
            _ => "tkip",
        };
        let dec2 = dir.path().join(format!("{suite}-wrong.pcapng"));
        let s = json(&[
            "decrypt",
            p(&enc),
            p(&dec2),
            "--tk",
            key,
            "--gtk",
            key,
            "--suite",
            other,
        ]);
        assert_eq!(s["decrypted"], 0, "{suite} as {other}: {s}");
        if *suite == "tkip" {
            // TKIP frames (by their IV) tried under no TKIP key: no key,
            // not an integrity failure of the other suite.
            assert_eq!(s["suites"]["tkip"]["no_key"], 9, "{s}");
        } else {
            assert_eq!(
                s["suites"][other]["integrity_failures"], 9,
                "{suite} as {other}: {s}"
            );
        }
    }
}

#[test]
fn replays_tampering_and_missing_keys_are_counted() {
    use wisec::capture::{CaptureWriter, Record};
    let dir = tempfile::tempdir().unwrap();
    let input = sample(dir.path(), "in.pcapng", opts(Format::Pcapng, 105, false));
    let enc = dir.path().join("enc.pcapng");
    ok(&[
        "encrypt",
        p(&input),
        p(&enc),
        "--suite",
        "ccmp",
        "--key",
        K16,
        "--pn",
        "100",
    ]);
    let (ifaces, pkts) = read(&enc);
    // Frame 1 (first uplink data) replayed at the end with another
    // sequence number (outside the AAD: the MIC verifies, the PN repeats);
    // frame 5 with one ciphertext byte flipped; frame 6 with its PN (in
    // the CCMP header) changed, which the MIC covers through the nonce;
    // frame 2 again as it was (a capture duplicate, decrypted).
    let mut edited = pkts.clone();
    edited[5].data[40] ^= 0x01;
    edited[6].data[24] ^= 0x01;
    let mut replay = pkts[1].clone();
    replay.data[22] ^= 0x10;
    edited.push(replay);
    edited.push(pkts[2].clone());
    let tampered = dir.path().join("tampered.pcapng");
    let mut w = CaptureWriter::new(std::fs::File::create(&tampered).unwrap(), Format::Pcapng);
    w.write_record(&Record::Section).unwrap();
    w.write_record(&Record::Interface(ifaces[0].clone()))
        .unwrap();
    for pk in &edited {
        w.write_record(&Record::Packet(pk.clone())).unwrap();
    }
    w.into_inner().unwrap();

    let out = dir.path().join("out.pcapng");
    let s = json(&["decrypt", p(&tampered), p(&out), "--tk", K16]);
    let c = &s["suites"]["ccmp128"];
    assert_eq!(c["integrity_failures"], 2, "{s}");
    assert_eq!(c["replays"], 1, "{s}");
    assert_eq!(c["duplicates"], 1, "{s}");
    assert_eq!(c["decrypted"], 7, "{s}");
    assert_eq!(c["no_key"], 0, "{s}");
    // The group frame has no GTK; its suite cannot be told without a key.
    assert_eq!(s["suites"]["ccmp/gcmp"]["no_key"], 1, "{s}");
    let (_, outp) = read(&out);
    // Rejected frames are written unchanged.
    assert_eq!(outp[5], edited[5]);
    assert_eq!(outp[6], edited[6]);
    assert_eq!(outp[15], edited[15]);
    // The genuine first copy was decrypted, and the duplicate too.
    let (_, plain) = read(&input);
    assert_eq!(outp[1], plain[1]);
    assert_eq!(outp[16].data, plain[2].data);

    // A wrong key: every frame fails integrity, nothing is decrypted.
    let out2 = dir.path().join("out2.pcapng");
    let s = json(&[
        "decrypt",
        p(&enc),
        p(&out2),
        "--tk",
        "ff0102030405060708090a0b0c0d0e0f",
    ]);
    assert_eq!(s["decrypted"], 0);
    assert_eq!(s["suites"]["ccmp128"]["integrity_failures"], 8, "{s}");
    assert_eq!(read(&out2).1, pkts);
}

fn one_line_error(args: &[&str], code: i32, needle: &str) -> String {
    let out = wisec(args);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err}");
    assert!(err.starts_with("wisec: error: "), "{err}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    err
}

#[test]
fn malformed_inputs_fail_with_file_and_offset_and_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let good = sample(dir.path(), "good.pcapng", opts(Format::Pcapng, 105, false));
    let bytes = std::fs::read(&good).unwrap();
    let out = dir.path().join("out.pcapng");

    let cases: Vec<(&str, Vec<u8>, String)> = vec![
        (
            "short.pcap",
            std::fs::read(sample(dir.path(), "x.pcap", opts(Format::Pcap, 105, false))).unwrap()[..10].to_vec(),
            "short.pcap: offset 0: truncated pcap file header (10 of 24 bytes)".into(),
        ),
        (
            "badlen.pcapng",
            {
                // The first block after the SHB (the IDB at offset 28) gets
                // a length that is not a multiple of 4.
                let mut b = bytes.clone();
                b[32..36].copy_from_slice(&13u32.to_le_bytes());
                b
            },
            "badlen.pcapng: offset 28: interface description block length 13 is shorter than its header".into(),
        ),
        (
            "random.bin",
            (0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect(),
            "random.bin: offset 0: not a pcap or pcapng file".into(),
        ),
    ];
    for (name, data, needle) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &data).unwrap();
        let needle = needle.replace(name, &path.display().to_string());
        one_line_error(&["decrypt", p(&path), p(&out), "--tk", K16], 1, &needle);
        one_line_error(
            &[
                "encrypt",
                p(&path),
                p(&out),
                "--suite",
                "ccmp",
                "--key",
                K16,
            ],
            1,
            &needle,
        );
        assert!(!out.exists(), "{name}: output left behind");
    }
    // A capture cut in its last block: everything before the damage is
    // processed and written, a warning names the offset, the exit status
    // is 3.
    let n = bytes.len();
    let last_len = u32::from_le_bytes(bytes[n - 4..].try_into().unwrap()) as usize;
    let cut = dir.path().join("cut.pcapng");
    std::fs::write(&cut, &bytes[..n - 7]).unwrap();
    let (_, all) = read(&good);
    for cmd in [
        vec!["decrypt", p(&cut), p(&out), "--tk", K16],
        vec!["encrypt", p(&cut), p(&out), "--suite", "ccmp", "--key", K16],
    ] {
        let r = wisec(&cmd);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(3), "{cmd:?}: {err}");
        assert!(
            err.contains(&format!(
                "warning: {}: offset {}: truncated enhanced packet block",
                cut.display(),
                n - last_len
            )),
            "{err}"
        );
        let (_, got) = read(&out);
        assert_eq!(got.len(), all.len() - 1, "{cmd:?}");
        std::fs::remove_file(&out).unwrap();
    }
    let keep: Vec<std::path::PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(
        keep.iter()
            .all(|p| !p.display().to_string().contains(".wisec-")),
        "{keep:?}"
    );
}

#[test]
fn unknown_link_type_is_named() {
    use wisec::capture::{CaptureWriter, Interface, Record};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("eth.pcap");
    let mut w = CaptureWriter::new(std::fs::File::create(&path).unwrap(), Format::Pcap);
    w.write_record(&Record::Section).unwrap();
    w.write_record(&Record::Interface(Interface::new(1, 65535)))
        .unwrap();
    w.into_inner().unwrap();
    let out = dir.path().join("o.pcap");
    one_line_error(
        &["decrypt", p(&path), p(&out), "--tk", K16],
        1,
        "has link type 1 (Ethernet); wisec reads IEEE 802.11 (105), radiotap (127), Prism (119), AVS (163) and PPI (192) captures",
    );
    assert!(!out.exists());
    assert_eq!(leftovers(dir.path(), &[&path]), Vec::<String>::new());
}

#[test]
fn usage_errors_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = sample(dir.path(), "in.pcapng", opts(Format::Pcapng, 105, false));
    let out = dir.path().join("out.pcapng");
    let i = p(&input);
    let o = p(&out);
    one_line_error(
        &["decrypt", i, o, "--tk", "000102030405060g"],
        2,
        "--tk: invalid hex at character 16",
    );
    one_line_error(
        &["decrypt", i, o, "--gtk", "0001020"],
        2,
        "--gtk: odd number of hex digits (7)",
    );
    one_line_error(
        &["decrypt", i, o, "--tk", "000102030405"],
        2,
        "--tk: a key of 6 bytes fits no suite",
    );
    one_line_error(
        &["decrypt", i, o, "--wep", "s:abc"],
        2,
        "--wep: an s: WEP key has 5 or 13 characters",
    );
    one_line_error(&["decrypt", i, o], 2, "no key given");
    one_line_error(
        &["decrypt", i, o, "--tk", K16, "--suite", "ccmp256"],
        2,
        "--tk: a CCMP-256 key has 32 bytes",
    );
    one_line_error(
        &["encrypt", i, o, "--suite", "ccmp", "--key", K32],
        2,
        "--key: a CCMP-128 key has 16 bytes, this one has 32",
    );
    one_line_error(
        &["encrypt", i, o, "--suite", "rot13", "--key", K16],
        2,
        "--suite: 'rot13': unknown cipher suite",
    );
    one_line_error(
        &["encrypt", i, o, "--suite", "tkip", "--key", K32, "--mgmt"],
        2,
        "--mgmt: management frame protection needs CCMP or GCMP",
    );
    one_line_error(
        &[
            "encrypt", i, o, "--suite", "ccmp", "--key", K16, "--key-id", "4",
        ],
        2,
        "--key-id",
    );
    one_line_error(
        &[
            "encrypt",
            i,
            o,
            "--suite",
            "ccmp",
            "--key",
            K16,
            "--pn",
            "281474976710656",
        ],
        2,
        "--pn",
    );
    one_line_error(
        &["encrypt", i, o, "--suite", "ccmp", "--key", K16, "--bogus"],
        2,
        "--bogus",
    );
    one_line_error(&["encrypt", i, o], 2, "--suite");
    one_line_error(
        &["decrypt", i, i, "--tk", K16, "--force"],
        2,
        "is the input file",
    );
    assert!(!out.exists());
    assert_eq!(leftovers(dir.path(), &[&input]), Vec::<String>::new());
}

#[test]
fn output_is_never_overwritten_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let input = sample(dir.path(), "in.pcapng", opts(Format::Pcapng, 105, false));
    let out = dir.path().join("out.pcapng");
    std::fs::write(&out, b"precious").unwrap();
    one_line_error(
        &[
            "encrypt",
            p(&input),
            p(&out),
            "--suite",
            "ccmp",
            "--key",
            K16,
        ],
        1,
        "already exists (use --force to overwrite it)",
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");
    ok(&[
        "encrypt",
        p(&input),
        p(&out),
        "--suite",
        "ccmp",
        "--key",
        K16,
        "--force",
    ]);
    assert_eq!(read(&out).1.len(), 15);
    // A failure with --force leaves the old output in place.
    let bad = dir.path().join("bad.pcapng");
    std::fs::write(&bad, b"\x0a\x0d\x0d\x0a").unwrap();
    let before = std::fs::read(&out).unwrap();
    let r = wisec(&[
        "encrypt",
        p(&bad),
        p(&out),
        "--suite",
        "ccmp",
        "--key",
        K16,
        "--force",
    ]);
    assert_eq!(r.status.code(), Some(1));
    assert_eq!(std::fs::read(&out).unwrap(), before);
    assert_eq!(
        leftovers(dir.path(), &[&input, &out, &bad]),
        Vec::<String>::new()
    );
}

#[test]
fn help_and_version() {
    let top = ok(&["--help"]);
    assert!(top.contains("encrypt") && top.contains("decrypt"));
    for cmd in ["encrypt", "decrypt"] {
        let h = ok(&[cmd, "--help"]);
        assert!(h.contains("Examples:"), "{cmd}");
        assert!(h.contains(&format!("wisec {cmd} ")), "{cmd}");
        assert!(h.contains("--force"));
    }
    assert_eq!(
        ok(&["--version"]).trim(),
        format!("wisec {}", env!("CARGO_PKG_VERSION"))
    );
    let human = ok(&["encrypt", "--help"]);
    assert!(human.contains("--pn"));
}

#[test]
fn gzip_output_when_out_ends_in_gz() {
    let dir = tempfile::tempdir().unwrap();
    let input = sample(dir.path(), "in.pcap", opts(Format::Pcap, 127, true));
    let out = dir.path().join("out.pcap.gz");
    ok(&[
        "encrypt",
        p(&input),
        p(&out),
        "--suite",
        "gcmp",
        "--key",
        K16,
    ]);
    assert_eq!(&std::fs::read(&out).unwrap()[..2], &[0x1f, 0x8b]);
    let dec = dir.path().join("dec.pcap");
    ok(&["decrypt", p(&out), p(&dec), "--tk", K16, "--gtk", K16]);
    assert_eq!(read(&dec).1, read(&input).1);
    let human = ok(&[
        "decrypt",
        p(&out),
        p(&dir.path().join("d2.pcap")),
        "--tk",
        K16,
    ]);
    assert!(human.contains("gcmp128"), "{human}");
    assert!(
        human.starts_with("frames read 15, protected 9, decrypted 8"),
        "{human}"
    );
}
