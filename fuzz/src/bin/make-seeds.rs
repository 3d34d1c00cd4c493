//! Writes the seed corpus of every fuzz target into DIR (default
//! `fuzz/corpus`): frames, elements, EAPOL-Key PDUs and whole captures of
//! `wisec synth` sessions, the sample captures, the built-in scenarios,
//! and operation sequences that walk each state machine through its
//! normal exchange. Run by `scripts/fuzz seeds`.

// Linked for the coverage callbacks of the instrumented build.
extern crate libfuzzer_sys;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use wisec::capture::{CaptureWriter, Format, Interface, Packet, Record};
use wisec::synth::{self, SynthAkm, SynthCipher, SynthConfig};

#[derive(Default)]
struct Seeds(BTreeMap<&'static str, Vec<Vec<u8>>>);

impl Seeds {
    fn add(&mut self, target: &'static str, bytes: &[u8]) {
        let v = self.0.entry(target).or_default();
        if !v.iter().any(|b| b == bytes) {
            v.push(bytes.to_vec());
        }
    }

    fn write(&self, dir: &Path, per_target: usize) -> std::io::Result<()> {
        for (t, seeds) in &self.0 {
            let d = dir.join(t);
            std::fs::create_dir_all(&d)?;
            // Spread the choice over the whole list.
            let step = seeds.len().div_ceil(per_target).max(1);
            for s in seeds.iter().step_by(step) {
                std::fs::write(d.join(format!("seed-{:016x}", fnv(s))), s)?;
            }
        }
        Ok(())
    }
}

fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Length-prefixed chunk in the encoding of `wisec_fuzz::Input::chunk`.
fn chunk(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u16).to_le_bytes());
    out.extend_from_slice(b);
}

/// A synth frame: its timestamp (µs), the MPDU, and the plaintext when it
/// was protected.
type Frame = (u64, Vec<u8>, Option<Vec<u8>>);

fn session(cfg: &SynthConfig) -> (Vec<u8>, Vec<Frame>) {
    let mut frames = vec![];
    synth::generate(cfg, &mut |f| {
        frames.push((
            f.timestamp_us,
            f.mpdu.to_vec(),
            f.plaintext.map(<[u8]>::to_vec),
        ));
        Ok(())
    })
    .expect("a valid session");
    let iface = Interface::new(105, 65535);
    let mut w = CaptureWriter::new(Vec::new(), Format::Pcapng);
    w.write_record(&Record::Section).expect("in memory");
    w.write_record(&Record::Interface(iface))
        .expect("in memory");
    for (ts, mpdu, _) in frames.iter().take(40) {
        let p = Packet {
            interface: 0,
            timestamp: *ts,
            orig_len: mpdu.len() as u32,
            data: mpdu.clone(),
        };
        w.write_record(&Record::Packet(p)).expect("in memory");
    }
    (w.into_inner().expect("in memory"), frames)
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("fuzz/corpus"));
    let mut s = Seeds::default();
    let mut configs = vec![];
    for (cipher, pmf) in [
        (SynthCipher::Ccmp128, true),
        (SynthCipher::Tkip, false),
        (SynthCipher::Gcmp256, true),
    ] {
        let mut c = SynthConfig::new("correct horse", "lab");
        c.cipher = cipher;
        c.pmf = pmf;
        c.group_rekey = true;
        c.frames = 4;
        configs.push(c);
    }
    let mut c = SynthConfig::new("correct horse", "lab");
    c.akm = SynthAkm::FtPsk;
    configs.push(c);
    let mut c = SynthConfig::new("correct horse", "lab");
    c.wds = true;
    c.retries = true;
    c.reassociate = true;
    configs.push(c);
    for cfg in &configs {
        let (pcapng, frames) = session(cfg);
        s.add("capture_reader", &pcapng);
        s.add("capture_decrypt", &pcapng);
        let mut seq = vec![];
        for (_, mpdu, plain) in &frames {
            let fc = mpdu[0];
            s.add("wire_header", &mpdu[..mpdu.len().min(40)]);
            match fc & 0x0c {
                0x00 => {
                    s.add("wire_mgmt", mpdu);
                    let fixed = match fc >> 4 {
                        8 | 5 => 12,
                        0 => 4,
                        1 | 3 => 6,
                        2 => 10,
                        _ => 0,
                    };
                    if mpdu.len() > 24 + fixed {
                        let els = &mpdu[24 + fixed..];
                        s.add("wire_elements", els);
                        s.add("wire_discosec", els);
                        let mut at = 0;
                        while at + 2 <= els.len() {
                            let l = usize::from(els[at + 1]);
                            if els[at] == 48 && at + 2 + l <= els.len() {
                                s.add("wire_rsne", &els[at + 2..at + 2 + l]);
                            }
                            at += 2 + l;
                        }
                    }
                }
                0x08 => s.add("wire_data", plain.as_deref().unwrap_or(mpdu)),
                _ => {}
            }
            let plain = plain.as_deref().unwrap_or(mpdu);
            if let Some(p) = plain
                .windows(8)
                .position(|w| w == [0xaa, 0xaa, 3, 0, 0, 0, 0x88, 0x8e])
            {
                let pdu = &plain[p + 8..];
                s.add("wire_eapol_key", pdu);
                let mut one = vec![0x80 | u8::from(pdu[6] & 0x80 == 0)];
                chunk(&mut one, pdu);
                s.add("proto_tracker", &one);
            }
            seq.push(0u8);
            chunk(&mut seq, plain);
            for (k, b) in [0u8, 1, 2, 3].iter().zip(plain.chunks(64)) {
                let mut d = vec![*k];
                d.extend_from_slice(&[0x5a; 16]);
                d.extend_from_slice(b);
                s.add(
                    "crypto_unprotect",
                    &[&[3u8][..], &[0x5a; 16], mpdu].concat(),
                );
                s.add("crypto_roundtrip", &d);
            }
        }
        s.add("proto_tracker", &seq);
    }
    for f in [
        "examples/sample.pcapng",
        "examples/sample-radiotap-fcs.pcap",
    ] {
        if let Ok(b) = std::fs::read(f) {
            s.add("capture_reader", &b);
            s.add("capture_decrypt", &b);
            // Radiotap headers of the sample (pcap records start at 24,
            // each after a 16-octet record header).
            let mut at = 24;
            while at + 16 <= b.len() && f.ends_with(".pcap") {
                let n = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
                let rec = &b[(at + 16).min(b.len())..(at + 16 + n).min(b.len())];
                s.add("wire_radiotap", rec);
                at += 16 + n;
            }
        }
    }
    for name in ["overhead", "congestion", "saturation", "ccm-udp"] {
        if let Some(b) = wisec_lab::scenario::builtin(name) {
            s.add("lab_scenario", b.text.as_bytes());
        }
    }
    // State machines: their normal exchange (deliver both ways, in turn),
    // with the clock moving, under each selector byte.
    for sel in 0..4u8 {
        let mut fourway = vec![sel, 0, 0];
        let mut pmf = vec![sel];
        let mut disco = vec![sel * 0x11];
        for k in 0..48u8 {
            fourway.push(if k % 2 == 0 { 0 } else { 3 });
            pmf.extend_from_slice(&[0, 3, 10, 40, 0]);
            disco.extend_from_slice(&[0, 3, 10, 120, 0]);
        }
        fourway.extend_from_slice(&[9, 0, 3, 0, 3]);
        s.add("proto_fourway", &fourway);
        s.add("proto_pmf", &pmf);
        s.add("proto_sa_query", &[&[0u8; 12][..], &pmf].concat());
        s.add("proto_discosec", &disco);
        s.add("proto_tracker_flood", &[sel, sel, 0, 2, 0, 1, 0, 2]);
        let mut live = vec![sel * 3, 1];
        for k in 0..8u8 {
            live.extend_from_slice(&[0, 4, k & 1]);
            let mut eth = vec![];
            eth.extend_from_slice(&[0xff; 6]);
            eth.extend_from_slice(&[0x02, 0x1a, 0xb0, 0, 2, 1]);
            eth.extend_from_slice(&[0x08, 0x06]);
            eth.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
            eth.extend_from_slice(&[0x02, 0x1a, 0xb0, 0, 2, 1, 10, 99, 0, 1]);
            eth.extend_from_slice(&[0; 6]);
            eth.extend_from_slice(&[10, 99, 0, 11]);
            chunk(&mut live, &eth);
        }
        s.add("lab_live_input", &live);
    }
    // GCM on every path: GCMP's AAD lengths and bodies, BIP-GMAC's long
    // AAD with no data, and lengths at the edges of the kernels' groups.
    for (k, (aad_len, len)) in [
        (22usize, 0usize),
        (22, 100),
        (30, 1500),
        (0, 16),
        (245, 245),
        (300, 0),
        (511, 513),
    ]
    .into_iter()
    .enumerate()
    {
        let key_len = if k % 2 == 0 { 16 } else { 32 };
        let mut d = vec![(k % 2) as u8 | (k as u8) << 4];
        d.extend((0..key_len + 12).map(|b| b as u8 ^ 0x5a));
        chunk(&mut d, &vec![0xa5; aad_len]);
        d.extend((0..len).map(|b| (b * 7) as u8));
        s.add("crypto_gcm_paths", &d);
    }
    s.write(&dir, 48).expect("writes the corpus");
    for (t, v) in &s.0 {
        eprintln!("{t}: {} seeds", v.len().min(48));
    }
}
