//! The decrypt pipeline's multi-frame path against its frame-by-frame
//! path: the same output bytes and the same summary, on `wisec synth`
//! sessions with interleaved stations, key installs in the middle of a
//! stretch (group rekeys under the PTK, handshakes followed at once by
//! data), replays, tampered and truncated frames, typed keys beside
//! derived ones, and both container formats; and with one engine thread
//! against several. Decrypted frames are also
//! compared with the plaintext the session generator recorded.

use std::io::Cursor;
use wisec::capture::{CaptureReader, CaptureWriter, Format, Interface, Packet, Record};
use wisec::decrypt::keys::{BatchKey, KeyId, KeyQuery, KeyRole, KeyStore, StaticKeys};
use wisec::decrypt::pipeline::{decrypt, DecryptConfig, DecryptSummary};
use wisec::decrypt::tracked::TrackedKeys;
use wisec::synth::{self, FrameKind, SynthCipher, SynthConfig};
use wisec_crypto::suite::{BipKey, DataKey};
use wisec_proto::tracker::Tracker;

const PASS: &str = "batched passphrase";
const SSID: &str = "batched";

/// A store that hides everything the multi-frame path needs, so the
/// pipeline takes the frame-by-frame path for every frame.
struct OneByOne(TrackedKeys);

impl KeyStore for OneByOne {
    fn data_keys(&self, q: &KeyQuery<'_>) -> Vec<(KeyId, &DataKey)> {
        self.0.data_keys(q)
    }
    fn bip_keys(&self, q: &KeyQuery<'_>) -> Vec<(KeyId, &BipKey)> {
        self.0.bip_keys(q)
    }
    fn observe(&mut self, mpdu: &[u8]) {
        self.0.observe(mpdu)
    }
    fn no_key_reason(&self, q: &KeyQuery<'_>) -> &'static str {
        self.0.no_key_reason(q)
    }
    fn key_name(&self, id: KeyId) -> Option<String> {
        self.0.key_name(id)
    }
}

/// A store that counts how many frames went through the multi-frame
/// engine lookups (to show the fast path was taken at all).
struct Counting(TrackedKeys, std::cell::Cell<u64>);

impl KeyStore for Counting {
    fn data_keys(&self, q: &KeyQuery<'_>) -> Vec<(KeyId, &DataKey)> {
        self.0.data_keys(q)
    }
    fn bip_keys(&self, q: &KeyQuery<'_>) -> Vec<(KeyId, &BipKey)> {
        self.0.bip_keys(q)
    }
    fn observe(&mut self, mpdu: &[u8]) {
        self.0.observe(mpdu)
    }
    fn no_key_reason(&self, q: &KeyQuery<'_>) -> &'static str {
        self.0.no_key_reason(q)
    }
    fn key_name(&self, id: KeyId) -> Option<String> {
        self.0.key_name(id)
    }
    fn key_generation(&self) -> Option<u64> {
        self.0.key_generation()
    }
    fn batch_key(&self, id: KeyId) -> Option<&BatchKey> {
        self.1.set(self.1.get() + 1);
        self.0.batch_key(id)
    }
}

fn store(given: &[(KeyRole, Vec<u8>)]) -> TrackedKeys {
    let mut t = Tracker::new();
    t.add_passphrase(PASS.as_bytes(), None).unwrap();
    let mut s = StaticKeys::new();
    for (role, k) in given {
        s.add_temporal(*role, None, k).unwrap();
    }
    TrackedKeys::new(s, t, true)
}

fn run<K: KeyStore>(capture: &[u8], keys: &mut K, cfg: DecryptConfig) -> (Vec<u8>, DecryptSummary) {
    let mut r = CaptureReader::from_reader("t", Box::new(Cursor::new(capture.to_vec()))).unwrap();
    let mut w = CaptureWriter::new(Vec::new(), r.format());
    let s = decrypt(&mut r, &mut w, keys, cfg, &mut |_| {}).unwrap();
    (w.into_inner().unwrap(), s)
}

/// A session, tampered: every 7th intact unicast data frame is sent
/// again a few frames later (a replay inside the stretch), every 11th
/// has a ciphertext byte flipped, every 13th is captured short (its
/// original length is longer), and every 17th loses its security
/// header's ExtIV bit. Returns the capture and, per packet, the packet
/// and the plaintext a correct decryption gives (`None`: must stay as it
/// is).
///
/// With `again`, a second session of the same stations follows (a new
/// association and 4-way handshake: a new PTK for the same links, so the
/// frames after it have a new first candidate).
#[allow(clippy::type_complexity)]
fn session(cfg: &SynthConfig, format: Format) -> (Vec<u8>, Vec<(Vec<u8>, Option<Vec<u8>>)>) {
    sessions(cfg, format, false)
}

#[allow(clippy::type_complexity)]
fn sessions(
    cfg: &SynthConfig,
    format: Format,
    again: bool,
) -> (Vec<u8>, Vec<(Vec<u8>, Option<Vec<u8>>)>) {
    let mut frames: Vec<(Vec<u8>, Option<Vec<u8>>, FrameKind)> = Vec::new();
    let mut second = cfg.clone();
    second.seed ^= 0x5eed;
    let runs = if again { vec![cfg, &second] } else { vec![cfg] };
    for c in runs {
        synth::generate(c, &mut |f| {
            frames.push((f.packet.to_vec(), f.plaintext.map(<[u8]>::to_vec), f.kind));
            Ok(())
        })
        .unwrap();
    }
    let mut out: Vec<(Vec<u8>, u32, Option<Vec<u8>>)> = Vec::new();
    // Copies to insert later: (where, packet, its expected plaintext).
    let mut replays: Vec<(usize, Vec<u8>, Option<Vec<u8>>)> = Vec::new();
    let mut n = 0usize;
    for (i, (pkt, plain, kind)) in frames.into_iter().enumerate() {
        let len = pkt.len() as u32;
        if kind == FrameKind::Data {
            n += 1;
            let prefix = if cfg.radiotap {
                usize::from(u16::from_le_bytes([pkt[2], pkt[3]]))
            } else {
                0
            };
            let hlen = wisec_wire::Header::new_checked(&pkt[prefix..])
                .unwrap()
                .header_len();
            if n % 11 == 0 {
                let mut p = pkt.clone();
                let at = p.len() - 12;
                p[at] ^= 0x40;
                out.push((p, len, None));
            } else if n % 13 == 0 {
                out.push((pkt, len + 3, None));
            } else if n % 17 == 0 {
                // The Key ID octet: without ExtIV the header reads as WEP's.
                let mut p = pkt.clone();
                p[prefix + hlen + 3] &= !0x20;
                out.push((p, len, None));
            } else {
                if n % 7 == 0 {
                    // The same packet number in a frame with another
                    // sequence number (outside the AAD, so the MIC still
                    // verifies): a replay, left as it is.
                    let mut p = pkt.clone();
                    p[prefix + 22] = p[prefix + 22].wrapping_add(0x10);
                    replays.push((i + 5, p, None));
                } else if n % 19 == 0 {
                    // An exact copy: a capture duplicate, decrypted.
                    replays.push((i + 3, pkt.clone(), plain.clone()));
                }
                out.push((pkt, len, plain));
            }
        } else {
            out.push((pkt, len, plain));
        }
        while let Some(pos) = replays.iter().position(|(at, _, _)| *at == i) {
            let (_, p, plain) = replays.remove(pos);
            let len = p.len() as u32;
            out.push((p, len, plain));
        }
    }
    let mut w = CaptureWriter::new(Vec::new(), format);
    w.write_record(&Record::Section).unwrap();
    let iface = Interface::new(if cfg.radiotap { 127 } else { 105 }, 65535);
    w.write_record(&Record::Interface(iface)).unwrap();
    for (k, (p, orig_len, _)) in out.iter().enumerate() {
        w.write_record(&Record::Packet(Packet {
            interface: 0,
            timestamp: k as u64,
            orig_len: *orig_len,
            data: p.clone(),
        }))
        .unwrap();
    }
    let expected = out.into_iter().map(|(p, _, plain)| (p, plain)).collect();
    (w.into_inner().unwrap(), expected)
}

fn packets(capture: &[u8]) -> Vec<Vec<u8>> {
    let r = CaptureReader::from_reader("o", Box::new(Cursor::new(capture.to_vec()))).unwrap();
    r.filter_map(|rec| match rec.unwrap() {
        Record::Packet(p) => Some(p.data),
        _ => None,
    })
    .collect()
}

fn check(cfg: &SynthConfig, format: Format, given: &[(KeyRole, Vec<u8>)]) -> DecryptSummary {
    check_sessions(cfg, format, given, false)
}

fn check_sessions(
    cfg: &SynthConfig,
    format: Format,
    given: &[(KeyRole, Vec<u8>)],
    again: bool,
) -> DecryptSummary {
    let (cap, expected) = sessions(cfg, format, again);
    let mut batched = Counting(store(given), std::cell::Cell::new(0));
    let (out_b, sum_b) = run(&cap, &mut batched, DecryptConfig::default());
    let mut one = OneByOne(store(given));
    let (out_1, sum_1) = run(&cap, &mut one, DecryptConfig::default());
    assert_eq!(sum_b, sum_1, "summaries differ");
    assert!(out_b == out_1, "outputs differ");
    assert_eq!(batched.0.keys_out(), one.0.keys_out());
    // One engine thread or several: the same bytes out, the same summary
    // (the frames of a stretch split among them, handled in order after).
    for threads in [1, 3] {
        let c = DecryptConfig {
            threads: std::num::NonZeroUsize::new(threads),
            ..DecryptConfig::default()
        };
        let (out_t, sum_t) = run(&cap, &mut store(given), c);
        assert_eq!(sum_t, sum_1, "summary with {threads} threads");
        assert!(out_t == out_1, "output with {threads} threads differs");
    }
    // Against the generator's plaintext.
    let got = packets(&out_b);
    assert_eq!(got.len(), expected.len());
    let mut checked = 0u64;
    for (g, (orig, plain)) in got.iter().zip(&expected) {
        match plain {
            // A protected frame: its plaintext (the generator's is the
            // MPDU: compared without a radiotap header), unless it is a
            // BIP frame, written as it was.
            Some(p) if p != orig && !cfg.radiotap => {
                assert!(g == p || g == orig);
                checked += u64::from(g == p);
            }
            Some(_) => {}
            None => assert_eq!(g, orig, "a frame that must not decrypt changed"),
        }
    }
    assert!(checked > 0 || cfg.radiotap);
    // Ethernet output agrees as well.
    let eth = DecryptConfig {
        ethernet: true,
        ..DecryptConfig::default()
    };
    let (e_b, s_b) = run(&cap, &mut OneByOne(store(given)), eth);
    let (e_1, s_1) = run(&cap, &mut store(given), eth);
    assert_eq!(s_b, s_1);
    assert!(e_b == e_1);
    if matches!(cfg.cipher, SynthCipher::Ccmp128 | SynthCipher::Ccmp256) {
        assert!(batched.1.get() > 0, "the multi-frame path was not taken");
    }
    sum_b
}

fn cfg(cipher: SynthCipher, stations: usize, frames: usize) -> SynthConfig {
    let mut c = SynthConfig::new(PASS, SSID);
    c.cipher = cipher;
    c.stations = stations;
    c.frames = frames;
    c.group_rekey = true;
    c
}

#[test]
fn ccmp_sessions_match_frame_by_frame() {
    // Several stretches (the pipeline reads 512 KiB at a time).
    let c = cfg(SynthCipher::Ccmp128, 5, 1200);
    let s = check(&c, Format::Pcap, &[]);
    assert!(s.decrypted > 5000, "{s:?}");
    let st = &s.suites["ccmp128"];
    assert!(st.replays > 0 && st.integrity_failures > 0, "{st:?}");
    assert!(st.duplicates > 0 && st.duplicates == s.duplicates, "{st:?}");
    assert!(s.unparsable > 0);
    check(&c, Format::Pcapng, &[]);
}

#[test]
fn a_new_ptk_in_the_middle_of_a_stretch() {
    // The second handshake installs a PTK for links whose frames are
    // already queued under the first: those frames must be tried again
    // under the new keys, frame by frame.
    let c = cfg(SynthCipher::Ccmp128, 4, 600);
    let s = check_sessions(&c, Format::Pcap, &[], true);
    let ptks: u64 = s.links.values().map(|l| l.decrypted.len() as u64).sum();
    assert!(ptks >= 8, "{s:?}");
}

#[test]
fn pmf_radiotap_and_ccmp256_match_frame_by_frame() {
    let mut c = cfg(SynthCipher::Ccmp256, 3, 200);
    c.pmf = true;
    c.radiotap = true;
    check(&c, Format::Pcapng, &[]);
    let mut c = cfg(SynthCipher::Ccmp128, 2, 300);
    c.pmf = true;
    check(&c, Format::Pcap, &[]);
}

#[test]
fn gcmp_and_tkip_on_the_engine_threads_match_frame_by_frame() {
    for cipher in [SynthCipher::Gcmp128, SynthCipher::Tkip] {
        check(&cfg(cipher, 2, 100), Format::Pcap, &[]);
    }
}

#[test]
fn typed_keys_beside_derived_ones_match_frame_by_frame() {
    // A wrong TK and GTK typed: every frame has more candidates, and the
    // ones that verify come second or later.
    let given = [
        (KeyRole::Pairwise, vec![0x11; 16]),
        (KeyRole::Group, vec![0x22; 16]),
        (KeyRole::Pairwise, vec![0x33; 32]),
    ];
    check(&cfg(SynthCipher::Ccmp128, 3, 150), Format::Pcap, &given);
    // The right TK typed as well: frames verify under the derived PTK
    // first, before the typed copy (same key, another name).
    let (cap, _) = session(&cfg(SynthCipher::Ccmp128, 1, 40), Format::Pcap);
    let mut k = store(&[]);
    run(&cap, &mut k, DecryptConfig::default());
    let tk = k
        .keys_out()
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("\"tk\",\""))
        .map(|l| hex::decode(l.trim_end_matches('"')).unwrap())
        .unwrap();
    let s = check(
        &cfg(SynthCipher::Ccmp128, 1, 40),
        Format::Pcap,
        &[(KeyRole::Pairwise, tk)],
    );
    assert!(s
        .links
        .values()
        .any(|l| l.decrypted.keys().any(|k| k.starts_with("PTK#"))));
}

/// WEP frames go through the engine threads too: a session decrypted,
/// every data frame encrypted again with WEP-104 (some tampered), then
/// decrypted on 1 and 3 threads against the frame-by-frame path.
#[test]
fn wep_on_the_engine_threads_matches_frame_by_frame() {
    use wisec::decrypt::link::FcsMode;
    use wisec::decrypt::pipeline::{encrypt, EncryptConfig};
    use wisec_crypto::suite::Suite;
    let (cap, _) = session(&cfg(SynthCipher::Ccmp128, 3, 400), Format::Pcap);
    let (plain, _) = run(&cap, &mut store(&[]), DecryptConfig::default());
    let key = [0x5au8; 13];
    let ecfg = EncryptConfig {
        key: DataKey::new(Suite::Wep104, &key).unwrap(),
        first_pn: 1000,
        key_id: 0,
        mgmt: false,
        igtk: None,
        igtk_id: 4,
        fcs: FcsMode::Auto,
    };
    let mut r = CaptureReader::from_reader("t", Box::new(Cursor::new(plain))).unwrap();
    let mut w = CaptureWriter::new(Vec::new(), r.format());
    let e = encrypt(&mut r, &mut w, &ecfg, &mut |_| {}).unwrap();
    assert!(e.data_protected > 1000, "{e:?}");
    // Every 9th packet has its last octet (the encrypted ICV) flipped.
    let mut frames = packets(&w.into_inner().unwrap());
    for f in frames.iter_mut().step_by(9) {
        if let Some(b) = f.last_mut() {
            *b ^= 0x80;
        }
    }
    let mut out = CaptureWriter::new(Vec::new(), Format::Pcap);
    out.write_record(&Record::Section).unwrap();
    out.write_record(&Record::Interface(Interface::new(105, 65535)))
        .unwrap();
    for f in &frames {
        out.write_record(&Record::Packet(Packet {
            interface: 0,
            timestamp: 0,
            orig_len: f.len() as u32,
            data: f.clone(),
        }))
        .unwrap();
    }
    let wep_cap = out.into_inner().unwrap();
    let keys = || {
        let mut s = StaticKeys::new();
        s.add_wep(&key).unwrap();
        TrackedKeys::new(s, Tracker::new(), false)
    };
    let (out_1, sum_1) = run(&wep_cap, &mut OneByOne(keys()), DecryptConfig::default());
    assert!(sum_1.decrypted > 900, "{sum_1:?}");
    assert!(sum_1.suites["wep104"].integrity_failures > 50, "{sum_1:?}");
    for threads in [1, 3] {
        let c = DecryptConfig {
            threads: std::num::NonZeroUsize::new(threads),
            ..DecryptConfig::default()
        };
        let mut k = Counting(keys(), std::cell::Cell::new(0));
        let (out_t, sum_t) = run(&wep_cap, &mut k, c);
        assert!(k.1.get() > 0, "the engine threads were not used");
        assert_eq!(sum_t, sum_1, "summary with {threads} threads");
        assert!(out_t == out_1, "output with {threads} threads differs");
    }
}
