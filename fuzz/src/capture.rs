//! Targets of the `wisec` tool's inputs: the pcap/pcapng reader (whose
//! records must survive a write and a second read unchanged), the whole
//! decrypt pipeline on a capture, and `ko-deps`' module reader.

use crate::proto::lab_psk;
use std::io::Cursor;
use wisec::capture::{CaptureReader, CaptureWriter, Format, Record};
use wisec::decrypt::keys::{KeyRole, StaticKeys};
use wisec::decrypt::pipeline::{self, DecryptConfig};
use wisec::decrypt::tracked::TrackedKeys;
use wisec_proto::tracker::Tracker;

fn records(bytes: &[u8]) -> (Option<Format>, Vec<Record>) {
    let Ok(mut r) = CaptureReader::from_reader("fuzz.pcap", Box::new(Cursor::new(bytes.to_vec())))
    else {
        return (None, vec![]);
    };
    let format = r.format();
    let mut out = vec![];
    // Stop at the first damage, as the commands do.
    while let Ok(Some(rec)) = r.next_record() {
        out.push(rec);
        if out.len() > 10_000 {
            break;
        }
    }
    (Some(format), out)
}

/// The reader on any bytes (plain or gzip): what it reads, written in the
/// same format and read again, gives the same records.
pub fn reader(data: &[u8]) {
    let (Some(format), recs) = records(data) else {
        return;
    };
    let mut w = CaptureWriter::new(Vec::new(), format);
    for r in &recs {
        if w.write_record(r).is_err() {
            // A record the format cannot hold (a pcap packet of an
            // interface the writer was not told of) ends the check.
            return;
        }
    }
    let Ok(bytes) = w.into_inner() else {
        return;
    };
    // Classic pcap holds 32-bit seconds: later times are written as the
    // last representable second.
    if format == Format::Pcap
        && recs.iter().any(
            |r| matches!(r, Record::Packet(p) if p.timestamp / 1_000_000 > u64::from(u32::MAX)),
        )
    {
        return;
    }
    let (f2, again) = records(&bytes);
    // A pcap record is written with an original length of at least its
    // captured length (a capture that says less is inconsistent).
    let recs: Vec<Record> = recs
        .into_iter()
        .map(|r| match r {
            Record::Packet(mut p) if format == Format::Pcap => {
                p.orig_len = p.orig_len.max(p.data.len() as u32);
                Record::Packet(p)
            }
            r => r,
        })
        .collect();
    // The snapshot length is written as the writer's own (it captures
    // nothing): compare the rest.
    let no_snaplen = |v: Vec<Record>| -> Vec<Record> {
        v.into_iter()
            .map(|r| match r {
                Record::Interface(mut i) => {
                    i.snaplen = 0;
                    Record::Interface(i)
                }
                r => r,
            })
            .collect()
    };
    let (recs, again) = (no_snaplen(recs), no_snaplen(again));
    assert_eq!(f2, Some(format), "format after a round trip");
    assert_eq!(again, recs, "capture records after write and read");
}

/// The whole decrypt pipeline, with a TK and the corpus's passphrase PSK:
/// every frame read is written or counted as left out.
pub fn decrypt(data: &[u8]) {
    let Ok(mut r) = CaptureReader::from_reader("fuzz.pcap", Box::new(Cursor::new(data.to_vec())))
    else {
        return;
    };
    let format = r.format();
    let mut keys = StaticKeys::new();
    let _ = keys.add_temporal(KeyRole::Pairwise, None, &[0x5a; 16]);
    let _ = keys.add_wep(&[1, 2, 3, 4, 5]);
    let mut tracker = Tracker::new();
    tracker.add_pmk(lab_psk().as_bytes()).expect("a PMK");
    let mut store = TrackedKeys::new(keys, tracker, true);
    let mut w = CaptureWriter::new(Vec::new(), format);
    let Ok(s) = pipeline::decrypt(
        &mut r,
        &mut w,
        &mut store,
        DecryptConfig::default(),
        &mut |_| {},
    ) else {
        return;
    };
    assert_eq!(
        s.frames,
        s.written + s.filtered_out + s.not_written,
        "frames read = written + left out"
    );
    assert_eq!(s.frames, s.decrypted + s.unchanged, "decrypted + unchanged");
}

/// `ko-deps`' reader of kernel modules (ELF relocatables, compressed or
/// not) on any bytes.
pub fn ko_deps(data: &[u8]) {
    if let Ok(m) = wisec::ko_deps::Module::parse(data, "fuzz.ko") {
        let _ = m.functions().count();
        let _ = m.data().count();
        let _ = m.params();
        let _ = m.by_section(wisec::ko_deps::Kind::Function);
    }
    let _ = wisec::ko_deps::vmlinux::bzimage_payload(data);
    let _ = wisec::ko_deps::vmlinux::exports_of_image(data);
}
