//! wisec's GCM engine on every code path this CPU runs (avx512, avx2,
//! aesni, portable): the test cases of the GCM specification (McGrew and
//! Viega, "The Galois/Counter Mode of Operation", Appendix B, as NIST
//! published it), every data length 0..=2400 on random keys, nonces and
//! AADs against the portable path and RustCrypto `aes-gcm`, in place and
//! out of place, and a flipped byte rejected with the data restored.

mod batch_common;

use aes_gcm::aead::array::Array;
use aes_gcm::{AeadInOut, Aes128Gcm, Aes256Gcm, KeyInit};
use batch_common::Rng;
use wisec_crypto::batch::Path;
use wisec_crypto::gcm::Gcm;
use wisec_crypto::{Error, FrameProtector};

fn gcm_paths() -> Vec<Path> {
    Path::ALL
        .into_iter()
        .filter(|&p| {
            let ok = Gcm::path_available(p);
            if !ok {
                println!("note: this CPU lacks the {} GCM path; not tested", p.name());
            }
            ok
        })
        .collect()
}

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

/// Test cases 1, 2, 4 (AES-128) and 13, 14, 16 (AES-256) of the GCM
/// specification, Appendix B: key, plaintext, IV, AAD, ciphertext, tag.
const SPEC: [[&str; 6]; 6] = [
    [
        "00000000000000000000000000000000",
        "",
        "000000000000000000000000",
        "",
        "",
        "58e2fccefa7e3061367f1d57a4e7455a",
    ],
    [
        "00000000000000000000000000000000",
        "00000000000000000000000000000000",
        "000000000000000000000000",
        "",
        "0388dace60b6a392f328c2b971b2fe78",
        "ab6e47d42cec13bdf53a67b21257bddf",
    ],
    [
        "feffe9928665731c6d6a8f9467308308",
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
         1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
        "cafebabefacedbaddecaf888",
        "feedfacedeadbeeffeedfacedeadbeefabaddad2",
        "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e\
         21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
        "5bc94fbc3221a5db94fae95ae7121a47",
    ],
    [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "",
        "000000000000000000000000",
        "",
        "",
        "530f8afbc74536b9a963b4f1c4cb738b",
    ],
    [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "00000000000000000000000000000000",
        "000000000000000000000000",
        "",
        "cea7403d4d606b6e074ec5d3baf39d18",
        "d0d1c8a799996bf0265b98b5d48ab919",
    ],
    [
        "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
         1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
        "cafebabefacedbaddecaf888",
        "feedfacedeadbeeffeedfacedeadbeefabaddad2",
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa\
         8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
        "76fc6ece0f4e1768cddf8853bb2d551b",
    ],
];

#[test]
fn gcm_specification_test_cases() {
    for path in gcm_paths() {
        for [k, p, iv, a, c, t] in SPEC {
            let g = Gcm::with_path(&h(k), path).unwrap();
            let nonce: [u8; 12] = h(iv).try_into().unwrap();
            let (aad, want_c, want_t) = (h(a), h(c), h(t));
            let mut data = h(p);
            let tag = g.seal_in_place(&nonce, &aad, &mut data).unwrap();
            assert_eq!(data, want_c, "{} {k}", path.name());
            assert_eq!(tag[..], want_t[..], "{} {k}", path.name());
            g.open_in_place(&nonce, &aad, &mut data, &tag).unwrap();
            assert_eq!(data, h(p));
            // A flipped ciphertext, tag, AAD or nonce byte is rejected and
            // the ciphertext handed back unchanged.
            let mut ct = want_c.clone();
            let mut bad_t = want_t.clone();
            bad_t[15] ^= 0x80;
            assert_eq!(
                g.open_in_place(&nonce, &aad, &mut ct, &bad_t),
                Err(Error::Integrity)
            );
            assert_eq!(ct, want_c);
            if !ct.is_empty() {
                ct[0] ^= 1;
                assert_eq!(
                    g.open_in_place(&nonce, &aad, &mut ct, &want_t),
                    Err(Error::Integrity)
                );
                ct[0] ^= 1;
                assert_eq!(ct, want_c);
            }
            let mut bad_n = nonce;
            bad_n[11] ^= 1;
            assert!(g.open_in_place(&bad_n, &aad, &mut ct, &want_t).is_err());
            if !aad.is_empty() {
                let mut bad_a = aad.clone();
                bad_a[0] ^= 1;
                assert!(g.open_in_place(&nonce, &bad_a, &mut ct, &want_t).is_err());
            }
            assert_eq!(ct, want_c);
        }
    }
}

/// RustCrypto `aes-gcm`: an independent implementation.
fn rustcrypto(key: &[u8], nonce: &[u8; 12], aad: &[u8], data: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut out = data.to_vec();
    let n = Array::from(*nonce);
    let tag = if key.len() == 16 {
        Aes128Gcm::new_from_slice(key)
            .unwrap()
            .encrypt_inout_detached(&n, aad, (&mut out[..]).into())
            .unwrap()
            .to_vec()
    } else {
        Aes256Gcm::new_from_slice(key)
            .unwrap()
            .encrypt_inout_detached(&n, aad, (&mut out[..]).into())
            .unwrap()
            .to_vec()
    };
    (out, tag)
}

/// The portable path's ciphertext and tag, checked against RustCrypto
/// `aes-gcm` when `check` is set.
fn reference(
    key: &[u8],
    nonce: &[u8; 12],
    aad: &[u8],
    plain: &[u8],
    check: bool,
) -> (Vec<u8>, [u8; 16]) {
    let portable = Gcm::with_path(key, Path::Portable).unwrap();
    let mut want = vec![0u8; plain.len()];
    let want_tag = portable.seal(nonce, aad, plain, &mut want).unwrap();
    if check {
        let (rc, rt) = rustcrypto(key, nonce, aad, plain);
        assert_eq!(
            (&rc, &rt[..]),
            (&want, &want_tag[..]),
            "len {}",
            plain.len()
        );
    }
    (want, want_tag)
}

#[test]
fn every_length_every_path_matches_portable_and_rustcrypto() {
    let paths = gcm_paths();
    let mut rng = Rng(0x6763_6d5f_7061_7468);
    for len in 0..=2400usize {
        let wide = !len.is_multiple_of(2);
        let key: Vec<u8> = (0..if wide { 32 } else { 16 })
            .map(|_| rng.next() as u8)
            .collect();
        let nonce: [u8; 12] = rng.bytes();
        // GCMP's AAD is 22 to 30 octets; other lengths cover the general
        // mode (and BIP-GMAC's long AAD).
        let aad_len = match rng.below(4) {
            0 => 22 + rng.below(9) as usize,
            1 => rng.below(16) as usize,
            _ => rng.below(300) as usize,
        };
        let mut aad = vec![0u8; aad_len];
        rng.fill(&mut aad);
        let mut plain = vec![0u8; len];
        rng.fill(&mut plain);

        let portable = Gcm::with_path(&key, Path::Portable).unwrap();
        let (want, want_tag) = reference(&key, &nonce, &aad, &plain, len <= 600 || len % 7 == 0);
        for &path in &paths {
            let g = Gcm::with_path(&key, path).unwrap();
            let name = path.name();
            // Out of place and in place.
            let what = format!("{name} seal, len {len}");
            let (ct, _) = seal_matches(&g, &nonce, &aad, &plain, (&want, &want_tag), &what);
            let mut inplace = plain.clone();
            let tag = g.seal_in_place(&nonce, &aad, &mut inplace).unwrap();
            assert_eq!(
                (&inplace, tag),
                (&want, want_tag),
                "{name} in place, len {len}"
            );
            let mut pt = vec![0u8; len];
            g.open(&nonce, &aad, &ct, &mut pt, &tag).unwrap();
            assert_eq!(pt, plain, "{name} open, len {len}");
            g.open_in_place(&nonce, &aad, &mut inplace, &tag).unwrap();
            assert_eq!(inplace, plain, "{name} open in place, len {len}");
            // One flipped bit anywhere in ciphertext or tag.
            let mut bad = want.clone();
            let mut bad_tag = want_tag;
            let at = rng.below(len as u64 + 16) as usize;
            let bit = 1u8 << rng.below(8);
            if at < len {
                bad[at] ^= bit;
            } else {
                bad_tag[at - len] ^= bit;
            }
            let before = bad.clone();
            assert_eq!(
                g.open_in_place(&nonce, &aad, &mut bad, &bad_tag),
                Err(Error::Integrity),
                "{name} accepted a flipped bit at {at}, len {len}"
            );
            assert_eq!(bad, before, "{name} did not restore, len {len}");
            let mut out = vec![0xa5u8; len];
            assert_eq!(
                g.open(&nonce, &aad, &before, &mut out, &bad_tag),
                Err(Error::Integrity)
            );
            assert!(out.iter().all(|&b| b == 0), "{name} left output");
            // GMAC over the same bytes.
            assert_eq!(
                g.gmac(&nonce, &plain).unwrap(),
                portable.gmac(&nonce, &plain).unwrap(),
                "{name} gmac, len {len}"
            );
        }
    }
}

/// Seals `plain` out of place with `g` and checks the ciphertext and tag
/// against `want`; `what` names the case in a failure.
fn seal_matches(
    g: &Gcm,
    nonce: &[u8; 12],
    aad: &[u8],
    plain: &[u8],
    want: (&[u8], &[u8]),
    what: &str,
) -> (Vec<u8>, [u8; 16]) {
    let mut ct = vec![0u8; plain.len()];
    let tag = g.seal(nonce, aad, plain, &mut ct).unwrap();
    assert_eq!((&ct[..], &tag[..]), want, "{what}");
    (ct, tag)
}

/// Every AAD length from 0 to 300 (and around 512) against data lengths
/// at the edges of the kernels' register groups: a GHASH aggregate holds
/// at most as many blocks as the power table, and an AAD rest and a data
/// tail of almost a whole group each (241..=255 octets of both on the
/// 16-block avx512 path) once needed one more. Each path's ciphertext
/// and tag against RustCrypto `aes-gcm`, and opened again.
#[test]
fn every_aad_length_beside_group_edge_data_lengths() {
    let paths = gcm_paths();
    let mut rng = Rng(0x6161_645f_6c65_6e73);
    // Around one and two groups of every kernel: 128 and 256 octets on
    // xmm (eight registers), 192 and 384 on ymm (six), 256 and 512 on zmm
    // (four).
    let lens = [
        0usize, 1, 15, 16, 17, 127, 128, 129, 191, 192, 193, 200, 240, 241, 248, 255, 256, 257,
        300, 383, 384, 385, 497, 511, 512, 513,
    ];
    for aad_len in (0..=300usize).chain(497..=513) {
        let key: Vec<u8> = (0..if aad_len % 2 == 1 { 32 } else { 16 })
            .map(|_| rng.next() as u8)
            .collect();
        let nonce: [u8; 12] = rng.bytes();
        let mut aad = vec![0u8; aad_len];
        rng.fill(&mut aad);
        for &len in &lens {
            let mut plain = vec![0u8; len];
            rng.fill(&mut plain);
            let (want, want_tag) = rustcrypto(&key, &nonce, &aad, &plain);
            for &path in &paths {
                let g = Gcm::with_path(&key, path).unwrap();
                let name = path.name();
                let what = format!("{name} seal, AAD {aad_len}, data {len}");
                let (ct, tag) = seal_matches(&g, &nonce, &aad, &plain, (&want, &want_tag), &what);
                let mut pt = vec![0u8; len];
                g.open(&nonce, &aad, &ct, &mut pt, &tag).unwrap();
                assert_eq!(pt, plain, "{name} open, AAD {aad_len}, data {len}");
            }
        }
    }
}

#[test]
fn gmac_is_gcm_with_empty_plaintext() {
    // SP 800-38D, 3: GMAC is GCM whose input is only AAD.
    let mut rng = Rng(7);
    for len in [0usize, 1, 15, 16, 17, 20 + 2304, 511] {
        let key: [u8; 16] = rng.bytes();
        let nonce: [u8; 12] = rng.bytes();
        let mut data = vec![0u8; len];
        rng.fill(&mut data);
        let (_, t) = rustcrypto(&key, &nonce, &data, &[]);
        for path in gcm_paths() {
            let g = Gcm::with_path(&key, path).unwrap();
            assert_eq!(g.gmac(&nonce, &data).unwrap()[..], t[..], "{}", path.name());
        }
    }
}

/// GCMP frames on one path: protect in place and out of place,
/// unprotect both ways, and a flipped bit rejected with the frame handed
/// back unchanged.
fn gcmp_frame_case<S: FrameProtector>(
    name: &str,
    s: &S,
    plain: &[u8],
    pn: u64,
    key_id: u8,
    want: &[u8],
    flip: usize,
) {
    let over = s.overhead().total();
    let mut buf = plain.to_vec();
    buf.resize(plain.len() + over, 0xee);
    let n = s
        .protect_in_place(&mut buf, plain.len(), pn, key_id)
        .unwrap();
    assert_eq!(&buf[..n], want, "{name} protect_in_place");
    let mut out = vec![0x77u8; plain.len() + over + 3];
    let n = s.protect(plain, pn, key_id, &mut out).unwrap();
    assert_eq!(&out[..n], want, "{name} protect");
    let mut rx = want.to_vec();
    let u = s.unprotect_in_place(&mut rx).unwrap();
    assert_eq!(
        (&rx[..u.len()], u.pn(), u.key_id()),
        (plain, pn, key_id),
        "{name}"
    );
    assert!(rx[u.len()..].iter().all(|&b| b == 0), "{name} left the MIC");
    let mut out = vec![0x55u8; want.len()];
    let u = s.unprotect(want, &mut out).unwrap();
    assert_eq!(&out[..u.len()], plain, "{name} unprotect");
    // A flipped bit of the ciphertext or MIC, or of an address (all of
    // which GCMP authenticates; Duration, the sequence number and some
    // frame control bits it does not, 12.5.3.3.3).
    let hlen = wisec_wire::Header::new_checked(plain).unwrap().header_len();
    let mut bad = want.to_vec();
    let at = if flip.is_multiple_of(2) {
        hlen + 8 + (flip / 2) % (want.len() - hlen - 8)
    } else {
        4 + (flip / 2) % 18
    };
    bad[at] ^= 0x10;
    {
        let before = bad.clone();
        assert!(
            s.unprotect_in_place(&mut bad).is_err(),
            "{name} flip {flip}"
        );
        assert_eq!(bad, before, "{name} changed a rejected frame");
        let mut out = vec![0x55u8; want.len()];
        assert!(s.unprotect(&before, &mut out).is_err());
        assert!(out.iter().all(|&b| b == 0), "{name} left output");
    }
}

#[test]
fn gcmp_frames_every_length_every_path() {
    use batch_common::random_frame;
    use wisec_crypto::gcmp::{Gcmp128, Gcmp256};
    let paths = gcm_paths();
    let mut rng = Rng(0x6763_6d70);
    for len in 0..=2400usize {
        let plain = random_frame(&mut rng, len);
        let pn = rng.below(1 << 48);
        let key_id = rng.below(4) as u8;
        let flip = rng.next() as usize;
        if len.is_multiple_of(2) {
            let key: [u8; 16] = rng.bytes();
            let reference = Gcmp128::with_path(&key, Path::Portable).unwrap();
            let mut want = vec![0u8; plain.len() + 24];
            let n = reference.protect(&plain, pn, key_id, &mut want).unwrap();
            want.truncate(n);
            for &p in &paths {
                let s = Gcmp128::with_path(&key, p).unwrap();
                gcmp_frame_case(p.name(), &s, &plain, pn, key_id, &want, flip);
            }
        } else {
            let key: [u8; 32] = rng.bytes();
            let reference = Gcmp256::with_path(&key, Path::Portable).unwrap();
            let mut want = vec![0u8; plain.len() + 24];
            let n = reference.protect(&plain, pn, key_id, &mut want).unwrap();
            want.truncate(n);
            for &p in &paths {
                let s = Gcmp256::with_path(&key, p).unwrap();
                gcmp_frame_case(p.name(), &s, &plain, pn, key_id, &want, flip);
            }
        }
    }
}

/// Both key sizes at every data length 0..=2400 with GCMP's AAD lengths
/// (22..=30 octets): each vector path against the portable one, and a
/// third of the lengths also against RustCrypto `aes-gcm`. The kernels
/// cut a message into whole groups, a tail and the lengths block, and
/// share reductions between them where the power table allows, so every
/// length of both key schedules (10 and 14 rounds) is a distinct case.
#[test]
fn both_key_sizes_every_length_gcmp_aad() {
    let paths = gcm_paths();
    let mut rng = Rng(0x6763_6d70_5f32_3536);
    for len in 0..=2400usize {
        let mut plain = vec![0u8; len];
        rng.fill(&mut plain);
        let nonce: [u8; 12] = rng.bytes();
        let mut aad = vec![0u8; 22 + rng.below(9) as usize];
        rng.fill(&mut aad);
        for key_len in [16usize, 32] {
            let mut key = vec![0u8; key_len];
            rng.fill(&mut key);
            let (want, want_tag) = reference(&key, &nonce, &aad, &plain, len % 3 == 0);
            for &path in &paths {
                let g = Gcm::with_path(&key, path).unwrap();
                let name = path.name();
                let what = format!("{name} AES-{} seal, len {len}", key_len * 8);
                let (ct, tag) = seal_matches(&g, &nonce, &aad, &plain, (&want, &want_tag), &what);
                let mut back = ct.clone();
                g.open_in_place(&nonce, &aad, &mut back, &tag).unwrap();
                assert_eq!(back, plain, "{name} AES-{} open, len {len}", key_len * 8);
            }
        }
    }
}

/// Data past the 2400 octets above, where the 32-bit counter (inc32,
/// SP 800-38D, 6.2) carries out of its low octet: around the first carry
/// (block 254 takes counter 255), and long messages through many carries,
/// against RustCrypto.
#[test]
fn long_messages_carry_the_counter_out_of_its_low_octet() {
    let paths = gcm_paths();
    let mut rng = Rng(0x6c6f_6e67_5f67_636d);
    let lens = (4030..=4100usize).chain([5000, 8191, 8192, 65536 + 13, 100_000]);
    for len in lens {
        let key: Vec<u8> = (0..if len % 2 == 1 { 32 } else { 16 })
            .map(|_| rng.next() as u8)
            .collect();
        let nonce: [u8; 12] = rng.bytes();
        let mut aad = vec![0u8; 22 + rng.below(9) as usize];
        rng.fill(&mut aad);
        let mut plain = vec![0u8; len];
        rng.fill(&mut plain);
        let (want, want_tag) = rustcrypto(&key, &nonce, &aad, &plain);
        for &path in &paths {
            let g = Gcm::with_path(&key, path).unwrap();
            let what = format!("{} seal, len {len}", path.name());
            let (ct, tag) = seal_matches(&g, &nonce, &aad, &plain, (&want, &want_tag), &what);
            let mut pt = vec![0u8; len];
            g.open(&nonce, &aad, &ct, &mut pt, &tag).unwrap();
            assert_eq!(pt, plain, "{} open, len {len}", path.name());
        }
    }
}
