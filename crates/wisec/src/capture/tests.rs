//! Reader and writer tests on captures assembled byte by byte here, in
//! both byte orders, following the layouts of draft-ietf-opsawg-pcap and
//! draft-ietf-opsawg-pcapng.

use super::*;
use std::io::Write;

fn read_all(name: &str, bytes: Vec<u8>) -> Result<(CaptureReader, Vec<Record>), CaptureError> {
    let mut r = CaptureReader::from_reader(name, Box::new(std::io::Cursor::new(bytes)))?;
    let mut out = Vec::new();
    while let Some(rec) = r.next_record()? {
        out.push(rec);
    }
    Ok((r, out))
}

fn err_of(bytes: Vec<u8>) -> String {
    match read_all("t.cap", bytes) {
        Ok(_) => panic!("accepted a defective capture"),
        Err(e) => e.to_string(),
    }
}

fn w32(be: bool, v: u32) -> [u8; 4] {
    if be {
        v.to_be_bytes()
    } else {
        v.to_le_bytes()
    }
}

fn w16(be: bool, v: u16) -> [u8; 2] {
    if be {
        v.to_be_bytes()
    } else {
        v.to_le_bytes()
    }
}

fn pcap_file(be: bool, nanos: bool, link: u32, packets: &[(u32, u32, &[u8])]) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend(w32(be, if nanos { 0xa1b23c4d } else { 0xa1b2c3d4 }));
    f.extend(w16(be, 2));
    f.extend(w16(be, 4));
    f.extend(w32(be, 0));
    f.extend(w32(be, 0));
    f.extend(w32(be, 65535));
    f.extend(w32(be, link));
    for (sec, frac, data) in packets {
        f.extend(w32(be, *sec));
        f.extend(w32(be, *frac));
        f.extend(w32(be, data.len() as u32));
        f.extend(w32(be, data.len() as u32));
        f.extend_from_slice(data);
    }
    f
}

fn block(be: bool, t: u32, body: &[u8]) -> Vec<u8> {
    let padded = body.len().div_ceil(4) * 4;
    let len = 12 + padded as u32;
    let mut b = Vec::new();
    b.extend(w32(be, t));
    b.extend(w32(be, len));
    b.extend_from_slice(body);
    b.resize(8 + padded, 0);
    b.extend(w32(be, len));
    b
}

fn shb(be: bool) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend(w32(be, 0x1a2b3c4d));
    body.extend(w16(be, 1));
    body.extend(w16(be, 0));
    body.extend_from_slice(&[0xff; 8]);
    block(be, 0x0a0d0d0a, &body)
}

fn idb(be: bool, link: u16, snaplen: u32, opts: &[(u16, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend(w16(be, link));
    body.extend(w16(be, 0));
    body.extend(w32(be, snaplen));
    for (code, v) in opts {
        body.extend(w16(be, *code));
        body.extend(w16(be, v.len() as u16));
        body.extend_from_slice(v);
        body.resize(body.len().div_ceil(4) * 4, 0);
    }
    if !opts.is_empty() {
        body.extend([0; 4]);
    }
    block(be, 1, &body)
}

fn epb(be: bool, iface: u32, ts: u64, data: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend(w32(be, iface));
    body.extend(w32(be, (ts >> 32) as u32));
    body.extend(w32(be, ts as u32));
    body.extend(w32(be, data.len() as u32));
    body.extend(w32(be, data.len() as u32 + 7));
    body.extend_from_slice(data);
    block(be, 6, &body)
}

fn packets(recs: &[Record]) -> Vec<&Packet> {
    recs.iter()
        .filter_map(|r| match r {
            Record::Packet(p) => Some(p),
            _ => None,
        })
        .collect()
}

#[test]
fn pcap_both_orders_and_resolutions() {
    for be in [false, true] {
        for nanos in [false, true] {
            let f = pcap_file(be, nanos, 127, &[(10, 5, b"abc"), (11, 999, b"")]);
            let (r, recs) = read_all("x.pcap", f).unwrap();
            assert_eq!(r.format(), Format::Pcap);
            assert_eq!(recs[0], Record::Section);
            let Record::Interface(i) = &recs[1] else {
                panic!()
            };
            assert_eq!(i.link_type, 127);
            assert_eq!(i.tsresol, if nanos { 9 } else { 6 });
            let p = packets(&recs);
            assert_eq!(p.len(), 2);
            let units = if nanos { 1_000_000_000 } else { 1_000_000 };
            assert_eq!(p[0].timestamp, 10 * units + 5);
            assert_eq!(p[0].data, b"abc");
            assert_eq!(p[1].timestamp, 11 * units + 999);
        }
    }
}

#[test]
fn pcapng_interfaces_of_other_resolutions_become_nanoseconds_in_pcap() {
    // Milliseconds with a 5-second offset; 2^-10 seconds.
    for (tsresol, offset, ts, want) in [
        (3u8, Some(5i64), 1_234u64, 6_234_000_000u64),
        (0x80 | 10, None, 3 * 1024 + 512, 3_500_000_000),
        (6, None, 7, 7_000),
    ] {
        let mut iface = Interface::new(105, 0);
        iface.tsresol = tsresol;
        iface.tsoffset = offset;
        let mut w = CaptureWriter::new(Vec::new(), Format::Pcap);
        w.write_interface(&iface).unwrap();
        w.write_packet(&Packet {
            interface: 0,
            timestamp: ts,
            orig_len: 2,
            data: vec![1, 2],
        })
        .unwrap();
        let (r, recs) = read_all("c.pcap", w.into_inner().unwrap()).unwrap();
        let p = packets(&recs);
        let res = r.interfaces()[0].tsresol;
        let units: u64 = if res == 9 { 1 } else { 1000 };
        assert_eq!(p[0].timestamp * units, want, "{tsresol:#x}");
    }
}

#[test]
fn pcap_fcs_bits_of_the_link_type_field() {
    // Bit 26 set, FCS length 2 sixteen-bit words in bits 28..31.
    let f = pcap_file(false, false, 105 | (1 << 26) | (2 << 28), &[]);
    let (r, _) = read_all("x.pcap", f).unwrap();
    assert_eq!(r.interfaces()[0].link_type, 105);
    assert_eq!(r.interfaces()[0].fcslen, Some(4));
}

#[test]
fn pcapng_sections_orders_and_block_kinds() {
    let mut f = shb(true);
    f.extend(idb(true, 105, 0, &[(9, &[9]), (13, &[4]), (2, b"wlan0")]));
    f.extend(epb(true, 0, 0x1_0000_0002, b"first"));
    // An unknown block (custom, 0x00000bad) is skipped.
    f.extend(block(true, 0xbad, b"whatever"));
    // Second section in little-endian order with two interfaces.
    f.extend(shb(false));
    f.extend(idb(false, 127, 0, &[]));
    f.extend(idb(false, 105, 4, &[]));
    f.extend(epb(false, 1, 7, b"second"));
    // Simple packet block: original length 6, interface 0 (snaplen 0).
    let mut spb = Vec::new();
    spb.extend(w32(false, 6));
    spb.extend_from_slice(b"simple");
    f.extend(block(false, 3, &spb));
    // Obsolete packet block on interface 1 (snaplen 4 does not apply to it).
    let mut pb = Vec::new();
    pb.extend(w16(false, 1));
    pb.extend(w16(false, 0));
    pb.extend(w32(false, 0));
    pb.extend(w32(false, 9));
    pb.extend(w32(false, 3));
    pb.extend(w32(false, 3));
    pb.extend_from_slice(b"old");
    f.extend(block(false, 2, &pb));

    let (r, recs) = read_all("x.pcapng", f).unwrap();
    assert_eq!(r.format(), Format::Pcapng);
    let kinds: Vec<&str> = recs
        .iter()
        .map(|r| match r {
            Record::Section => "S",
            Record::Interface(_) => "I",
            Record::Packet(_) => "P",
        })
        .collect();
    assert_eq!(kinds.concat(), "SIPSIIPPP");
    let Record::Interface(i0) = &recs[1] else {
        panic!()
    };
    assert_eq!((i0.link_type, i0.tsresol, i0.fcslen), (105, 9, Some(4)));
    assert!(i0.tsresol_explicit);
    let p = packets(&recs);
    assert_eq!(p[0].timestamp, 0x1_0000_0002);
    assert_eq!(p[0].data, b"first");
    assert_eq!(p[0].orig_len, 12);
    assert_eq!((p[1].interface, p[1].data.as_slice()), (1, &b"second"[..]));
    assert_eq!(p[2].data, b"simple");
    assert_eq!((p[3].interface, p[3].data.as_slice()), (1, &b"old"[..]));
    assert_eq!(r.interfaces().len(), 2);
}

#[test]
fn gzip_is_detected() {
    let plain = pcap_file(false, false, 105, &[(1, 2, b"gz")]);
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&plain).unwrap();
    let gz = enc.finish().unwrap();
    let (r, recs) = read_all("x.pcap.gz", gz).unwrap();
    assert!(r.is_gzip());
    assert_eq!(packets(&recs)[0].data, b"gz");
}

#[test]
fn progress_counts_the_bytes_of_the_file_as_stored() {
    let payloads: Vec<Vec<u8>> = (0..300u32)
        .map(|i| vec![i as u8; 40 + (i as usize % 90)])
        .collect();
    let recs: Vec<(u32, u32, &[u8])> = payloads.iter().map(|p| (1, 2, p.as_slice())).collect();
    let plain = pcap_file(false, false, 105, &recs);
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&plain).unwrap();
    let gz = enc.finish().unwrap();
    // Record by record (pcapng-style reads) and in stretches (pcap's).
    let (r, _) = read_all("x.pcap", plain.clone()).unwrap();
    assert_eq!(r.progress().bytes_read(), plain.len() as u64);
    let (r, _) = read_all("x.pcap.gz", gz.clone()).unwrap();
    assert_eq!(r.progress().bytes_read(), gz.len() as u64);
    for bytes in [plain, gz] {
        let len = bytes.len() as u64;
        let mut r = CaptureReader::from_reader("x", Box::new(std::io::Cursor::new(bytes))).unwrap();
        let progress = r.progress();
        let (mut arena, mut metas) = (Vec::new(), Vec::new());
        let mut seen = 0;
        loop {
            arena.clear();
            let stop = r.read_packets(&mut arena, &mut metas, 1000).unwrap();
            // Never more than the file, never going back.
            assert!(progress.bytes_read() >= seen && progress.bytes_read() <= len);
            seen = progress.bytes_read();
            if stop == Stop::End {
                break;
            }
        }
        assert_eq!(metas.len(), 300);
        assert_eq!(progress.bytes_read(), len);
    }
}

#[test]
fn defects_name_file_and_offset() {
    assert_eq!(
        err_of(Vec::new()),
        "t.cap: offset 0: the file is empty, not a pcap or pcapng capture"
    );
    let e = err_of(pcap_file(false, false, 105, &[])[..20].to_vec());
    assert_eq!(
        e,
        "t.cap: offset 0: truncated pcap file header (20 of 24 bytes)"
    );
    let mut f = pcap_file(false, false, 105, &[(1, 1, b"abcdef")]);
    f.truncate(f.len() - 2);
    assert_eq!(
        err_of(f),
        "t.cap: offset 24: truncated packet record: its header announces 6 bytes, the file ends after 4"
    );
    let e = err_of(b"GIF89a\0\0".to_vec());
    assert!(
        e.starts_with("t.cap: offset 0: not a pcap or pcapng file"),
        "{e}"
    );

    // An EPB whose length is shorter than its fixed fields.
    let mut f = shb(false);
    f.extend(idb(false, 105, 0, &[]));
    let at = f.len();
    f.extend(w32(false, 6));
    f.extend(w32(false, 12));
    f.extend(w32(false, 12));
    assert_eq!(
        err_of(f),
        format!("t.cap: offset {at}: enhanced packet block length 12 is shorter than its header")
    );
    // A length that is not a multiple of 4.
    let mut f = shb(false);
    let at = f.len();
    f.extend(w32(false, 1));
    f.extend(w32(false, 21));
    f.extend([0; 13]);
    assert_eq!(
        err_of(f),
        format!("t.cap: offset {at}: interface description block length 21 is not a multiple of 4")
    );
    // Leading and trailing lengths disagree.
    let mut f = shb(false);
    let at = f.len();
    let mut b = idb(false, 105, 0, &[]);
    let n = b.len();
    b[n - 4] ^= 4;
    f.extend(b);
    let e = err_of(f);
    assert!(
        e.starts_with(&format!(
            "t.cap: offset {at}: interface description block length 20 does not match"
        )),
        "{e}"
    );
    // A packet of an undescribed interface.
    let mut f = shb(false);
    f.extend(idb(false, 105, 0, &[]));
    let at = f.len();
    f.extend(epb(false, 3, 0, b"x"));
    assert_eq!(
        err_of(f),
        format!("t.cap: offset {at}: enhanced packet block refers to interface 3, but the section describes only 1")
    );
    // Captured length larger than the block.
    let mut f = shb(false);
    f.extend(idb(false, 105, 0, &[]));
    let at = f.len();
    let mut b = epb(false, 0, 0, b"abcd");
    b[20] = 200;
    f.extend(b);
    let e = err_of(f);
    assert!(
        e.starts_with(&format!(
            "t.cap: offset {at}: enhanced packet block: captured length 200"
        )),
        "{e}"
    );
    // A bad byte-order magic.
    let mut f = shb(false);
    f[8] = 0;
    let e = err_of(f);
    assert!(e.contains("invalid byte-order magic"), "{e}");
}

#[test]
fn random_bytes_never_panic() {
    let mut s = 0x9e37_79b9u32;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s
    };
    let base_ng = {
        let mut f = shb(false);
        f.extend(idb(false, 105, 0, &[(9, &[6])]));
        f.extend(epb(false, 0, 1, b"0123456789"));
        f
    };
    let base_pcap = pcap_file(true, false, 127, &[(1, 1, b"0123456789")]);
    for round in 0..3000 {
        let mut f = if round % 2 == 0 {
            base_ng.clone()
        } else {
            base_pcap.clone()
        };
        for _ in 0..(next() % 4 + 1) {
            let i = next() as usize % f.len();
            f[i] = next() as u8;
        }
        let cut = next() as usize % (f.len() + 1);
        f.truncate(cut.max(f.len() / 2));
        let _ = read_all("r", f);
    }
}

#[test]
fn writer_output_reads_back_the_same() {
    for format in [Format::Pcap, Format::Pcapng] {
        let mut iface = Interface::new(105, 0);
        iface.tsresol = 9;
        iface.tsresol_explicit = format == Format::Pcapng;
        iface.fcslen = Some(4);
        if format == Format::Pcap {
            iface.pcap_link_flags = (1 << 26) | (2 << 28);
        }
        let pkt = Packet {
            interface: 0,
            timestamp: 1_700_000_000_123_456_789,
            orig_len: 5,
            data: b"hello".to_vec(),
        };
        let mut w = CaptureWriter::new(Vec::new(), format);
        w.write_record(&Record::Section).unwrap();
        w.write_record(&Record::Interface(iface.clone())).unwrap();
        w.write_record(&Record::Packet(pkt.clone())).unwrap();
        let bytes = w.into_inner().unwrap();
        let (_, recs) = read_all("w", bytes).unwrap();
        let Record::Interface(back) = &recs[1] else {
            panic!()
        };
        assert_eq!(back.link_type, 105);
        assert_eq!(back.tsresol, 9);
        assert_eq!(back.fcslen, Some(4));
        assert_eq!(packets(&recs), vec![&pkt]);
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn packet() -> impl Strategy<Value = (u64, Vec<u8>)> {
        (any::<u64>(), proptest::collection::vec(any::<u8>(), 0..300))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn written_captures_read_back(
            pkts in proptest::collection::vec(packet(), 0..12),
            ng in any::<bool>(),
            nanos in any::<bool>(),
            link in prop_oneof![Just(105u16), Just(127u16)],
        ) {
            let format = if ng { Format::Pcapng } else { Format::Pcap };
            let mut iface = Interface::new(link, 0);
            iface.tsresol = if nanos { 9 } else { 6 };
            iface.tsresol_explicit = ng;
            let mut w = CaptureWriter::new(Vec::new(), format);
            w.write_record(&Record::Section).unwrap();
            w.write_record(&Record::Interface(iface)).unwrap();
            let units: u64 = if nanos { 1_000_000_000 } else { 1_000_000 };
            let mut want = Vec::new();
            for (ts, data) in pkts {
                // pcap holds 32-bit seconds.
                let ts = if ng { ts } else { ts % (u64::from(u32::MAX) * units) };
                let p = Packet { interface: 0, timestamp: ts, orig_len: data.len() as u32, data };
                w.write_record(&Record::Packet(p.clone())).unwrap();
                want.push(p);
            }
            let (_, recs) = read_all("p", w.into_inner().unwrap()).unwrap();
            let got: Vec<Packet> = packets(&recs).into_iter().cloned().collect();
            prop_assert_eq!(got, want);
        }

        /// Reading stretches of packets gives the records, the errors and
        /// the offsets of reading record by record, whatever the size of
        /// a stretch, on intact, mutated and cut captures.
        #[test]
        fn stretches_read_like_records(
            pkts in proptest::collection::vec(packet(), 0..12),
            seed in proptest::collection::vec(any::<u8>(), 0..8),
            cut in any::<usize>(),
            ng in any::<bool>(),
            be in any::<bool>(),
            max in prop_oneof![Just(1usize), 1usize..600, Just(1 << 20)],
        ) {
            let mut f = if ng {
                let mut f = shb(be);
                f.extend(idb(be, 105, 0, &[]));
                for (ts, d) in &pkts {
                    f.extend(epb(be, 0, *ts, d));
                }
                f
            } else {
                let p: Vec<(u32, u32, &[u8])> = pkts
                    .iter()
                    .map(|(ts, d)| ((*ts >> 32) as u32, (*ts as u32) % 1_000_000, d.as_slice()))
                    .collect();
                pcap_file(be, false, 105, &p)
            };
            for (i, b) in seed.iter().enumerate() {
                let at = (usize::from(*b) * 7 + i * 13) % f.len();
                f[at] ^= b.rotate_left(i as u32);
            }
            if seed.len() % 2 == 1 {
                f.truncate(cut % (f.len() + 1));
            }
            let one = read_all("m", f.clone()).map(|(_, r)| r).map_err(|e| e.to_string());
            let bulk = (|| {
                let mut r = CaptureReader::from_reader("m", Box::new(std::io::Cursor::new(f)))
                    .map_err(|e| e.to_string())?;
                let mut out = Vec::new();
                loop {
                    let mut arena = Vec::new();
                    let mut metas = Vec::new();
                    let stop = r
                        .read_packets(&mut arena, &mut metas, max)
                        .map_err(|e| e.to_string())?;
                    for m in metas {
                        out.push(Record::Packet(Packet {
                            interface: m.interface,
                            timestamp: m.timestamp,
                            orig_len: m.orig_len,
                            data: arena[m.start..m.start + m.len].to_vec(),
                        }));
                    }
                    match stop {
                        Stop::Full => {}
                        Stop::End => return Ok(out),
                        Stop::Record(rec) => out.push(rec),
                        // The packets before the damage were returned; the
                        // record reader fails at the same place.
                        Stop::Damaged(msg) => return Err(msg),
                    }
                }
            })();
            prop_assert_eq!(one, bulk);
        }

        #[test]
        fn mutated_captures_never_panic(
            seed in proptest::collection::vec(any::<u8>(), 1..64),
            cut in any::<usize>(),
            ng in any::<bool>(),
        ) {
            let mut f = if ng {
                let mut f = shb(false);
                f.extend(idb(false, 127, 0, &[(9, &[6]), (13, &[4])]));
                f.extend(epb(false, 0, 5, b"some frame bytes"));
                f
            } else {
                pcap_file(false, true, 105, &[(1, 2, b"some frame bytes")])
            };
            for (i, b) in seed.iter().enumerate() {
                let at = (usize::from(*b) * 7 + i * 13) % f.len();
                f[at] ^= b.rotate_left(i as u32);
            }
            f.truncate(cut % (f.len() + 1));
            let _ = read_all("m", f);
        }
    }
}
