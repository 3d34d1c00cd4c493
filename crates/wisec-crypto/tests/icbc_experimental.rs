//! Seed 002's interleaved-CBC CCMP: frames computed by an independent
//! Python implementation (tests/vectors/icbc_reference.*), round trips,
//! tamper rejection, and proof that its MIC is not CCMP's.
#![cfg(feature = "experimental-icbc")]

mod legacy_util;

use legacy_util::{hex, ieee, load, s, Rng};
use proptest::prelude::*;
use wisec_crypto::icbc::ExperimentalIcbcCcmp128;
use wisec_crypto::{Error, FrameProtector};

#[test]
fn python_reference_frames() {
    let v = load("icbc_reference.json");
    for c in v["cases"].as_array().unwrap() {
        let icbc = ExperimentalIcbcCcmp128::new(&hex(s(c, "key"))).unwrap();
        let plain = hex(s(c, "plain"));
        let want = hex(s(c, "protected"));
        let pn = c["pn"].as_u64().unwrap();
        let kid = c["key_id"].as_u64().unwrap() as u8;
        let mut out = vec![0u8; plain.len() + 16];
        let n = icbc.protect(&plain, pn, kid, &mut out).unwrap();
        assert_eq!(
            hex::encode(&out[..n]),
            hex::encode(&want),
            "{}",
            s(c, "name")
        );
        let mut rx = want.clone();
        let u = icbc.unprotect_in_place(&mut rx).unwrap();
        assert_eq!((u.pn(), u.key_id()), (pn, kid));
        assert_eq!(rx[1] & 0x40, 0);
        assert_eq!(&rx[2..u.len()], &plain[2..]);
        // Flip the MIC, the PN and AAD-covered addresses (and the last
        // ciphertext octet where there is a body).
        let fc = wisec_wire::FrameControl::from_bytes([plain[0], plain[1]]);
        let hl = wisec_wire::mac_header::header_len(fc).unwrap();
        let mut positions = vec![want.len() - 1, want.len() - 8, hl, hl + 7, 10, 4];
        if plain.len() > hl {
            positions.push(want.len() - 9);
        }
        for pos in positions {
            let mut bad = want.clone();
            bad[pos] ^= 0x02;
            let copy = bad.clone();
            assert_eq!(icbc.unprotect_in_place(&mut bad), Err(Error::Integrity));
            assert_eq!(bad, copy, "frame left as given");
        }
    }
}

#[test]
fn mic_differs_from_standard_ccmp_but_ciphertext_does_not() {
    // On the CCMP-128 vector of IEEE 802.11-2012 M.6.4 the CTR part must
    // be byte-identical to the standard (the seed leaves it unchanged),
    // while the 8-octet MIC must differ.
    let v = ieee();
    let c = &v["ccmp128_M64"];
    let icbc = ExperimentalIcbcCcmp128::new(&hex(s(c, "tk"))).unwrap();
    let plain = hex(s(c, "plaintext_mpdu"));
    let standard = hex(s(c, "expected_mpdu_no_fcs"));
    let pn = u64::from_str_radix(s(c, "pn_be"), 16).unwrap();
    let mut out = vec![0u8; plain.len() + 16];
    let n = icbc.protect(&plain, pn, 0, &mut out).unwrap();
    assert_eq!(n, standard.len());
    assert_eq!(out[..n - 8], standard[..n - 8], "header and ciphertext");
    assert_ne!(out[n - 8..n], standard[n - 8..], "MIC");
    // And a standard CCMP frame does not verify here.
    let mut std_frame = standard.clone();
    assert_eq!(
        icbc.unprotect_in_place(&mut std_frame),
        Err(Error::Integrity)
    );
}

#[test]
fn every_bit_flip_of_a_small_frame_is_rejected() {
    let icbc = ExperimentalIcbcCcmp128::new(&[9; 16]).unwrap();
    let mut f = hex("0801000002000000000102000000000202000000000310002a");
    f.extend_from_slice(b"0123456789abcdefXYZ");
    let mut out = vec![0u8; f.len() + 16];
    let n = icbc.protect(&f, 0x0102_0304_0506, 1, &mut out).unwrap();
    for byte in 0..n {
        for bit in 0..8 {
            let mut bad = out[..n].to_vec();
            bad[byte] ^= 1 << bit;
            let ignored = match byte {
                1 => matches!(bit, 3..=5), // Retry, PwrMgt, MoreData
                0 => matches!(bit, 4..=6), // data subtype bits
                2 | 3 | 23 => true,        // Duration, Sequence Number
                22 => bit >= 4,            // Sequence Number low bits
                26 => true,                // CCMP reserved octet
                27 => bit != 5,            // Key ID octet bar ExtIV
                _ => false,
            };
            let r = icbc.unprotect_in_place(&mut bad);
            if ignored {
                // Masked by the (CCMP) AAD rules; the body is still intact.
                let u = r.unwrap_or_else(|e| panic!("{byte}:{bit} {e:?}"));
                assert_eq!(&bad[24..u.len()], &f[24..]);
            } else {
                assert!(r.is_err(), "flip of byte {byte} bit {bit} accepted");
            }
        }
    }
}

#[test]
fn random_input_never_panics() {
    let icbc = ExperimentalIcbcCcmp128::new(&[3; 16]).unwrap();
    let mut rng = Rng(0x5eed_0002_0000_0001);
    for i in 0..20_000 {
        let len = rng.below(90);
        let mut f = vec![0u8; len];
        rng.fill(&mut f);
        if i % 2 == 0 && len > 2 {
            f[1] |= 0x40;
        }
        let _ = icbc.unprotect_in_place(&mut f.clone());
        let mut big = f.clone();
        big.resize(len + 16, 0);
        let _ = icbc.protect_in_place(&mut big, len, rng.next() & 0xffff_ffff_ffff, 0);
    }
    assert_eq!(
        ExperimentalIcbcCcmp128::new(&[0; 32]).unwrap_err(),
        Error::InvalidParameter
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn round_trip(
        qos in any::<bool>(),
        four in any::<bool>(),
        tid in 0u8..16,
        body in proptest::collection::vec(any::<u8>(), 0..200),
        pn in 0u64..(1 << 48),
        key in proptest::collection::vec(any::<u8>(), 16),
        flip in any::<proptest::sample::Index>(),
    ) {
        let icbc = ExperimentalIcbcCcmp128::new(&key).unwrap();
        let mut f = vec![if qos { 0x88 } else { 0x08 }, if four { 0x03 } else { 0x01 }, 0, 0];
        for a in 1..=3u8 { f.extend_from_slice(&[2, 0, 0, 0, 0, a]); }
        f.extend_from_slice(&[0x40, 0x01]);
        if four { f.extend_from_slice(&[2, 0, 0, 0, 0, 4]); }
        if qos { f.extend_from_slice(&[tid, 0]); }
        let hl = f.len();
        f.extend_from_slice(&body);
        let mut out = vec![0u8; f.len() + 16];
        let n = icbc.protect(&f, pn, 3, &mut out).unwrap();
        let mut rx = vec![0u8; n];
        let u = icbc.unprotect(&out[..n], &mut rx).unwrap();
        prop_assert_eq!(&rx[hl..u.len()], &f[hl..]);
        prop_assert_eq!(u.pn(), pn);
        let mut bad = out[..n].to_vec();
        let pos = hl + 8 + flip.index(n - hl - 8);
        bad[pos] ^= 0x80;
        prop_assert_eq!(icbc.unprotect_in_place(&mut bad), Err(Error::Integrity));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// With the standard MAC, `protect_in_place_with` is CCMP-128: the
    /// same octets as the crate's CCMP (checked against IEEE 802.11's
    /// vectors in ccmp_vectors.rs) for any body length 0..300, so the
    /// seed-002 bench times standard CCMP and the interleaved MAC on one
    /// code path. The three timed phases put together give the same frame.
    #[test]
    fn standard_mac_is_ccmp_and_the_phases_compose(
        body in proptest::collection::vec(any::<u8>(), 0..300),
        pn in 0u64..(1 << 48),
        key in proptest::collection::vec(any::<u8>(), 16),
        interleaved in any::<bool>(),
    ) {
        let icbc = ExperimentalIcbcCcmp128::new(&key).unwrap();
        let mut f = hex("08010000020000000001020000000002020000000003a000");
        let hl = f.len();
        f.extend_from_slice(&body);
        let mut out = vec![0u8; f.len() + 16];
        out[..f.len()].copy_from_slice(&f);
        let n = icbc.protect_in_place_with(&mut out, f.len(), pn, 1, interleaved).unwrap();
        if !interleaved {
            let ccmp = wisec_crypto::ccmp::Ccmp128::new(&key).unwrap();
            let mut want = vec![0u8; f.len() + 16];
            let m = ccmp.protect(&f, pn, 1, &mut want).unwrap();
            prop_assert_eq!(&out[..n], &want[..m]);
        }
        // Header work, MIC, CTR by hand: ciphertext and MIC as protect's.
        let prep = icbc.phase_header(&f, f.len(), pn).unwrap();
        prop_assert_eq!(prep.header_len(), hl);
        let t = icbc.phase_mic(&prep, &f[hl..], interleaved);
        let mut data = f[hl..].to_vec();
        let s0 = icbc.phase_ctr(&prep, &mut data);
        prop_assert_eq!(&out[hl + 8..n - 8], &data[..]);
        let mic: Vec<u8> = t[..8].iter().zip(&s0[..8]).map(|(a, b)| a ^ b).collect();
        prop_assert_eq!(&out[n - 8..n], &mic[..]);
    }
}

/// In a software-AES build (`--cfg aes_backend="soft"`, as scripts/test
/// runs this file) no AES instruction runs: the crate says so, and the
/// vectors above pass on the bit-sliced AES.
#[test]
fn the_build_says_which_aes_it_runs() {
    if wisec_crypto::software_aes_build() {
        assert!(!wisec_crypto::hardware_aes());
        for p in wisec_crypto::batch::Path::ALL {
            assert_eq!(
                p.is_available(),
                p == wisec_crypto::batch::Path::Portable,
                "{p:?} in a software-AES build"
            );
        }
    }
}
