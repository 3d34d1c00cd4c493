//! TKIP against IEEE 802.11 vectors: the TGi key-mixing vectors, the
//! Michael vectors and the M.6.3 MPDU (see tests/vectors/tkip_vectors.json
//! and ieee80211_vectors.json for the sources).

mod legacy_util;

use legacy_util::{hex, ieee, load, s, Rng};
use wisec_crypto::michael::{michael, michael_mic};
use wisec_crypto::tkip::{
    phase1, phase2, DangerTkip, MichaelKey, MichaelKeySelect, Role, TkipRxError,
};
use wisec_crypto::{Error, FrameProtector};
use wisec_wire::MacAddr;

fn arr16(v: &[u8]) -> [u8; 16] {
    v.try_into().unwrap()
}

#[test]
fn tgi_key_mixing_vectors() {
    let v = load("tkip_vectors.json");
    let cases = v["mixing"].as_array().unwrap();
    assert_eq!(cases.len(), 8);
    for c in cases {
        let tk = arr16(&hex(s(c, "tk")));
        let ta = MacAddr::from_bytes(&hex(s(c, "ta"))).unwrap();
        let iv32 = u32::from_str_radix(s(c, "iv32"), 16).unwrap();
        let iv16 = u16::from_str_radix(s(c, "iv16"), 16).unwrap();
        let want_p1k: Vec<u16> = c["p1k_words"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| u16::from_str_radix(w.as_str().unwrap(), 16).unwrap())
            .collect();
        let p1k = phase1(&tk, &ta, iv32);
        assert_eq!(p1k.to_vec(), want_p1k, "{}", s(c, "name"));
        let key = phase2(&tk, &p1k, iv16);
        assert_eq!(key.to_vec(), hex(s(c, "rc4_key")), "{}", s(c, "name"));
        // A different IV16 or TA gives a different key.
        assert_ne!(phase2(&tk, &p1k, iv16 ^ 1).to_vec(), hex(s(c, "rc4_key")));
        let mut other = *ta.as_bytes();
        other[5] ^= 1;
        assert_ne!(phase1(&tk, &MacAddr(other), iv32).to_vec(), want_p1k);
    }
}

#[test]
fn michael_chained_vectors() {
    let v = ieee();
    for row in v["michael"]["vectors"].as_array().unwrap() {
        let key: [u8; 8] = hex(row[0].as_str().unwrap()).try_into().unwrap();
        let msg = row[1].as_str().unwrap().as_bytes();
        let want = hex(row[2].as_str().unwrap());
        assert_eq!(michael(&key, msg).to_vec(), want);
        let mut k2 = key;
        k2[0] ^= 1;
        assert_ne!(michael(&k2, msg).to_vec(), want);
    }
}

struct M63 {
    tk: Vec<u8>,
    plain: Vec<u8>,
    protected: Vec<u8>,
}

fn m63() -> M63 {
    let v = load("tkip_vectors.json");
    let m = &v["m63"];
    let j = ieee();
    // The two sources agree on the input.
    assert_eq!(
        s(m, "plaintext_mpdu"),
        s(&j["tkip_M63_input"], "plaintext_mpdu")
    );
    assert_eq!(s(m, "tk"), s(&j["tkip_M63_input"], "tk"));
    M63 {
        tk: hex(s(m, "tk")),
        plain: hex(s(m, "plaintext_mpdu")),
        protected: hex(s(m, "protected_mpdu")),
    }
}

#[test]
fn m63_mixing_and_michael() {
    let v = load("tkip_vectors.json");
    let m = &v["m63"];
    let tk = hex(s(m, "tk"));
    let ta = MacAddr::from_bytes(&hex(s(m, "ta"))).unwrap();
    let p1k = phase1(&arr16(&tk[..16]), &ta, 0);
    let mut be = Vec::new();
    for w in p1k {
        be.extend_from_slice(&w.to_be_bytes());
    }
    assert_eq!(be, hex(s(m, "ttak_words_be")));
    assert_eq!(
        phase2(&arr16(&tk[..16]), &p1k, 1).to_vec(),
        hex(s(m, "rc4_key"))
    );

    // Michael over DA || SA || 0 || 0 0 0 || MSDU with the Authenticator's
    // key (From DS frame): the value of the 802.11 vector.
    let j = ieee();
    let want = hex(s(&j["tkip_M63_input"], "msdu_michael_mic_from_comment"));
    assert_eq!(want, hex(s(m, "michael_mic")));
    let plain = hex(s(m, "plaintext_mpdu"));
    let da = MacAddr::from_bytes(&plain[4..10]).unwrap();
    let sa = MacAddr::from_bytes(&plain[16..22]).unwrap();
    let key: [u8; 8] = tk[16..24].try_into().unwrap();
    assert_eq!(michael_mic(&key, &da, &sa, 0, &plain[24..]).to_vec(), want);
    let tkip = DangerTkip::new(&tk).unwrap();
    assert_eq!(
        tkip.msdu_mic(MichaelKey::FromAuthenticator, &da, &sa, 0, &plain[24..])
            .to_vec(),
        want
    );
    assert_ne!(
        tkip.msdu_mic(MichaelKey::FromSupplicant, &da, &sa, 0, &plain[24..])
            .to_vec(),
        want
    );
}

#[test]
fn m63_protect_gives_the_standard_mpdu() {
    let v = m63();
    let tkip = DangerTkip::new(&v.tk).unwrap();
    let mut buf = vec![0u8; v.plain.len() + 20];
    let n = tkip.protect(&v.plain, 1, 0, &mut buf).unwrap();
    assert_eq!(n, v.protected.len());
    assert_eq!(hex::encode(&buf[..n]), hex::encode(&v.protected));
}

#[test]
fn m63_unprotect_and_flips() {
    let v = m63();
    let tkip = DangerTkip::new(&v.tk).unwrap();
    let mut buf = v.protected.clone();
    let u = tkip.unprotect_in_place(&mut buf).unwrap();
    assert_eq!(u.pn(), 1);
    assert_eq!(u.key_id(), 0);
    // The vector's plaintext carries the Protected Frame bit; unprotect
    // clears it.
    assert_eq!(buf[1], v.plain[1] & !0x40);
    buf[1] |= 0x40;
    assert_eq!(&buf[..u.len()], &v.plain[..]);
    assert!(buf[u.len()..].iter().all(|&b| b == 0), "tail wiped");

    // Ciphertext, MIC, ICV, TSC and the transmitter address each matter.
    for (pos, what) in [
        (40, "ciphertext"),
        (v.protected.len() - 10, "encrypted MIC"),
        (v.protected.len() - 1, "encrypted ICV"),
        (24, "TSC1"),
        (26, "TSC0"),
        (29, "TSC3"),
        (15, "Address 2 (TA)"),
    ] {
        let mut bad = v.protected.clone();
        bad[pos] ^= 0x01;
        let copy = bad.clone();
        assert_eq!(
            tkip.unprotect_in_place(&mut bad),
            Err(Error::Integrity),
            "{what}"
        );
        assert_eq!(bad, copy, "{what}: frame left as given");
    }
    // A Michael-only failure: change DA (covered by Michael, not the ICV).
    let mut bad = v.protected.clone();
    bad[5] ^= 0x40;
    let copy = bad.clone();
    match tkip.unprotect_in_place_detailed(&mut bad) {
        Err(TkipRxError::MichaelFailure { tsc: 1, key_id: 0 }) => {}
        other => panic!("expected a Michael failure, got {other:?}"),
    }
    assert_eq!(bad, copy);
    // The wrong Michael key is a Michael failure too.
    let mut bad = v.protected.clone();
    let sup = DangerTkip::new(&v.tk)
        .unwrap()
        .with_key_select(MichaelKeySelect::Fixed(MichaelKey::FromSupplicant));
    assert!(matches!(
        sup.unprotect_in_place_detailed(&mut bad),
        Err(TkipRxError::MichaelFailure { .. })
    ));
    // An ICV failure is not.
    let mut bad = v.protected.clone();
    bad[50] ^= 0x80;
    assert_eq!(
        tkip.unprotect_in_place_detailed(&mut bad),
        Err(TkipRxError::Rejected(Error::Integrity))
    );
}

fn data_frame(to_ds: bool, from_ds: bool, body: &[u8]) -> Vec<u8> {
    let mut f = vec![0x08, (to_ds as u8) | ((from_ds as u8) << 1), 0, 0];
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 1]);
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 2]);
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 3]);
    f.extend_from_slice(&[0x30, 0x00]);
    if to_ds && from_ds {
        f.extend_from_slice(&[0x02, 0, 0, 0, 0, 4]);
    }
    f.extend_from_slice(body);
    f
}

#[test]
fn direction_selection() {
    let tk: Vec<u8> = (0u8..32).collect();
    let by_frame = DangerTkip::new(&tk).unwrap();
    let mut out = [0u8; 128];
    // IBSS and four-address frames have no direction in their header.
    for (t, f) in [(false, false), (true, true)] {
        let frame = data_frame(t, f, b"hello");
        assert_eq!(
            by_frame.protect(&frame, 1, 0, &mut out),
            Err(Error::Unsupported)
        );
    }
    // IBSS with roles: what one end protects, the other unprotects.
    let a = DangerTkip::new(&tk)
        .unwrap()
        .with_key_select(MichaelKeySelect::Local(Role::Authenticator));
    let b = DangerTkip::new(&tk)
        .unwrap()
        .with_key_select(MichaelKeySelect::Local(Role::Supplicant));
    let frame = data_frame(false, false, b"ibss payload");
    let n = a.protect(&frame, 7, 1, &mut out).unwrap();
    let mut rx = out[..n].to_vec();
    let mut rx2 = rx.clone();
    assert_eq!(a.unprotect_in_place(&mut rx2), Err(Error::Integrity));
    let u = b.unprotect_in_place(&mut rx).unwrap();
    assert_eq!(&rx[..u.len()], &frame[..]);
    // A group-addressed IBSS frame uses the Authenticator's key by frame.
    let mut g = data_frame(false, false, b"group");
    g[4] = 0xff;
    let n = by_frame.protect(&g, 9, 0, &mut out).unwrap();
    let fixed = DangerTkip::new(&tk)
        .unwrap()
        .with_key_select(MichaelKeySelect::Fixed(MichaelKey::FromAuthenticator));
    let u = fixed.unprotect_in_place(&mut out[..n]).unwrap();
    assert_eq!(&out[..u.len()], &g[..]);
}

#[test]
fn fragments_are_unsupported_but_the_mpdu_layer_handles_them() {
    let tk: Vec<u8> = (0u8..32).collect();
    let tkip = DangerTkip::new(&tk).unwrap();
    let mut out = [0u8; 128];
    let mut more = data_frame(true, false, b"first part");
    more[1] |= 0x04; // More Fragments
    assert_eq!(tkip.protect(&more, 1, 0, &mut out), Err(Error::Unsupported));
    let mut second = data_frame(true, false, b"second");
    second[22] |= 0x01; // fragment number 1
    assert_eq!(
        tkip.protect(&second, 2, 0, &mut out),
        Err(Error::Unsupported)
    );

    // MSDU-level MIC, then two MPDUs with consecutive TSCs.
    let msdu = b"first partsecond";
    let da = MacAddr([0x02, 0, 0, 0, 0, 3]);
    let sa = MacAddr([0x02, 0, 0, 0, 0, 2]);
    let mic = tkip.msdu_mic(MichaelKey::FromSupplicant, &da, &sa, 0, msdu);
    let mut f1 = data_frame(true, false, &msdu[..10]);
    f1[1] |= 0x04;
    let mut body2 = msdu[10..].to_vec();
    body2.extend_from_slice(&mic);
    let mut f2 = data_frame(true, false, &body2);
    f2[22] |= 0x01;
    let mut p1 = vec![0u8; f1.len() + 12];
    p1[..f1.len()].copy_from_slice(&f1);
    let n1 = tkip
        .protect_mpdu_in_place(&mut p1, f1.len(), 10, 0)
        .unwrap();
    let mut p2 = vec![0u8; f2.len() + 12];
    p2[..f2.len()].copy_from_slice(&f2);
    let n2 = tkip
        .protect_mpdu_in_place(&mut p2, f2.len(), 11, 0)
        .unwrap();
    // Whole-MSDU unprotect refuses fragments.
    assert_eq!(
        tkip.unprotect_in_place(&mut p1[..n1].to_vec()),
        Err(Error::Unsupported)
    );
    let u1 = tkip.unprotect_mpdu_in_place(&mut p1[..n1]).unwrap();
    let u2 = tkip.unprotect_mpdu_in_place(&mut p2[..n2]).unwrap();
    assert_eq!((u1.pn(), u2.pn()), (10, 11));
    let mut reassembled = p1[24..u1.len()].to_vec();
    reassembled.extend_from_slice(&p2[24..u2.len()]);
    tkip.verify_msdu_mic(MichaelKey::FromSupplicant, &da, &sa, 0, &reassembled)
        .unwrap();
    let last = reassembled.len() - 1;
    reassembled[last] ^= 1;
    assert_eq!(
        tkip.verify_msdu_mic(MichaelKey::FromSupplicant, &da, &sa, 0, &reassembled),
        Err(Error::Integrity)
    );
}

/// Bits of a protected TKIP MPDU that TKIP does not authenticate: Duration,
/// the Retry/Power Management/More Data/Order flags, the Sequence Number,
/// the WEP Seed octet (receivers ignore it), the reserved bits and Key ID
/// of the Key ID octet (the caller picks the key by Key ID), and Address 1
/// when it is not the DA, and the non-QoS subtype bits. Every other single-bit flip must be rejected.
fn tkip_uncovered(byte: usize, bit: u8, to_ds: bool) -> bool {
    let fc1_flags = 0x08 | 0x10 | 0x20 | 0x80; // retry, pwr mgmt, more data, order
    match byte {
        0 => (4..=6).contains(&bit), // Subtype (non-QoS data kinds)
        1 => fc1_flags & (1 << bit) != 0,
        2 | 3 => true,  // Duration
        4..=9 => to_ds, // Address 1 is the BSSID in To DS frames
        22 => bit >= 4, // Sequence Number low bits
        23 => true,     // Sequence Number high bits
        25 => true,     // WEP Seed
        27 => bit != 5, // Key ID octet except ExtIV
        _ => false,
    }
}

#[test]
fn every_single_bit_flip_is_rejected_or_harmless() {
    let tk: Vec<u8> = (100u8..132).collect();
    let tkip = DangerTkip::new(&tk).unwrap();
    for to_ds in [true, false] {
        let frame = data_frame(to_ds, !to_ds, b"abcd");
        let mut out = [0u8; 64];
        let n = tkip.protect(&frame, 0x0102_0304_0506, 1, &mut out).unwrap();
        for byte in 0..n {
            for bit in 0..8u8 {
                let mut bad = out[..n].to_vec();
                bad[byte] ^= 1 << bit;
                let copy = bad.clone();
                match tkip.unprotect_in_place(&mut bad) {
                    Ok(u) => {
                        assert!(
                            tkip_uncovered(byte, bit, to_ds),
                            "flip of byte {byte} bit {bit} accepted"
                        );
                        // The body is still the genuine one.
                        assert_eq!(&bad[24..u.len()], b"abcd");
                    }
                    Err(_) => assert_eq!(bad, copy, "frame left as given"),
                }
            }
        }
    }
}

#[test]
fn random_input_never_panics() {
    let tk: Vec<u8> = (0u8..32).collect();
    let tkip = DangerTkip::new(&tk).unwrap();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for i in 0..20_000 {
        let len = rng.below(80);
        let mut buf = vec![0u8; len];
        rng.fill(&mut buf);
        if i % 2 == 0 && len >= 2 {
            // Mostly protected data frames, so parsing gets further.
            buf[0] = 0x08 | (buf[0] & 0xf0);
            buf[1] |= 0x40;
        }
        let _ = tkip.unprotect_in_place(&mut buf.clone());
        let _ = tkip.unprotect_mpdu_in_place(&mut buf.clone());
        let mut big = buf.clone();
        big.resize(len + 20, 0);
        let _ = tkip.protect_in_place(&mut big, len, rng.next() & 0xffff_ffff_ffff, 0);
        let _ = tkip.protect_in_place(&mut big, len + 30, 0, 0);
    }
}

#[test]
fn key_length_and_parameters() {
    assert_eq!(
        DangerTkip::new(&[0; 16]).unwrap_err(),
        Error::InvalidParameter
    );
    assert_eq!(
        DangerTkip::new(&[0; 33]).unwrap_err(),
        Error::InvalidParameter
    );
    let tkip = DangerTkip::new(&[0; 32]).unwrap();
    let frame = data_frame(true, false, b"x");
    let mut out = [0u8; 64];
    assert_eq!(
        tkip.protect(&frame, 1 << 48, 0, &mut out),
        Err(Error::InvalidParameter)
    );
    assert_eq!(
        tkip.protect(&frame, 1, 4, &mut out),
        Err(Error::InvalidParameter)
    );
    assert_eq!(
        tkip.protect(&frame, 1, 0, &mut out[..frame.len() + 19]),
        Err(Error::BufferTooSmall)
    );
    // Management frames are not TKIP frames.
    let mut mgmt = frame.clone();
    mgmt[0] = 0xc0;
    mgmt[1] = 0;
    assert_eq!(tkip.protect(&mgmt, 1, 0, &mut out), Err(Error::Unsupported));
}

/// The key keeps its last phase-1 output (TTAK) for the next frames with
/// the same TA and IV32 (12.5.2.5). Frames whose TSC crosses IV32
/// boundaries, from alternating transmitters, and from two threads at
/// once on one key, are sealed exactly as a key that has never computed
/// phase 1 before seals them, and the M.6.3 MPDU comes out right again
/// after other frames went through the cache.
#[test]
fn the_phase_1_cache_follows_tsc_and_transmitter() {
    let v = m63();
    let shared = DangerTkip::new(&v.tk).unwrap();
    let body = [0x5au8; 64];
    let frame = |ta: u8| {
        let mut f = data_frame(false, true, &body);
        f[10 + 5] = ta;
        f
    };
    let seal = |key: &DangerTkip, f: &[u8], tsc: u64| {
        let mut out = vec![0u8; f.len() + 20];
        let n = key.protect(f, tsc, 0, &mut out).unwrap();
        out.truncate(n);
        out
    };
    let tscs = [
        0xfffe,
        0xffff,
        0x1_0000,
        0x1_0001,
        0xffff,
        0x2_0000,
        0x1_0000,
        0xffff_ffff_ffff,
    ];
    for (i, &tsc) in tscs.iter().enumerate() {
        for ta in [1u8, 2, 1] {
            let f = frame(ta);
            let fresh = DangerTkip::new(&v.tk).unwrap();
            let want = seal(&fresh, &f, tsc);
            assert_eq!(seal(&shared, &f, tsc), want, "frame {i}, TA {ta}");
            let mut b = want.clone();
            let u = shared.unprotect_in_place(&mut b).unwrap();
            assert_eq!(&b[2..u.len()], &f[2..]);
        }
    }
    std::thread::scope(|s| {
        for t in 0..2u8 {
            let (shared, tk) = (&shared, &v.tk);
            s.spawn(move || {
                for k in 0..3000u64 {
                    let ta = t + 1 + (k % 2) as u8;
                    let tsc = (k / 7) << 16 | k & 0xffff;
                    let f = frame(ta);
                    let fresh = DangerTkip::new(tk).unwrap();
                    assert_eq!(seal(shared, &f, tsc), seal(&fresh, &f, tsc));
                }
            });
        }
    });
    let mut buf = vec![0u8; v.plain.len() + 20];
    let n = shared.protect(&v.plain, 1, 0, &mut buf).unwrap();
    assert_eq!(hex::encode(&buf[..n]), hex::encode(&v.protected));
    // A clone starts with an empty cache and seals the same.
    let n = shared.clone().protect(&v.plain, 1, 0, &mut buf).unwrap();
    assert_eq!(hex::encode(&buf[..n]), hex::encode(&v.protected));
}
