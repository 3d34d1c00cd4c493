//! Properties of the key hierarchy: key wrap round trips and rejects any
//! flipped bit, padding keeps Key Data parseable, nothing panics on
//! arbitrary input, PTKs do not depend on which side is which.

use proptest::prelude::*;
use wisec_crypto::eapol_mic::{self, MicAlgorithm};
use wisec_crypto::kdf;
use wisec_crypto::keywrap;
use wisec_crypto::ptk::Ptk;
use wisec_crypto::Error;
use wisec_wire::element::{Akm, CipherSuite};
use wisec_wire::MacAddr;

const ALGS: [MicAlgorithm; 6] = [
    MicAlgorithm::HmacMd5,
    MicAlgorithm::HmacSha1_128,
    MicAlgorithm::AesCmac128,
    MicAlgorithm::HmacSha256_128,
    MicAlgorithm::HmacSha384_192,
    MicAlgorithm::HmacSha512_256,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn wrap_round_trip_and_bit_flips(
        kek_len in prop::sample::select(vec![16usize, 24, 32]),
        kek in prop::collection::vec(any::<u8>(), 32),
        blocks in 2usize..20,
        seed in any::<u8>(),
        flip in any::<usize>(),
    ) {
        let kek = &kek[..kek_len];
        let pt: Vec<u8> = (0..blocks * 8).map(|i| (i as u8).wrapping_mul(seed)).collect();
        let mut wrapped = vec![0u8; pt.len() + 8];
        prop_assert_eq!(keywrap::aes_wrap(kek, &pt, &mut wrapped), Ok(pt.len() + 8));
        let mut out = vec![0u8; pt.len()];
        prop_assert_eq!(keywrap::aes_unwrap(kek, &wrapped, &mut out), Ok(pt.len()));
        prop_assert_eq!(&out, &pt);
        let bit = flip % (wrapped.len() * 8);
        wrapped[bit / 8] ^= 1 << (bit % 8);
        prop_assert_eq!(keywrap::aes_unwrap(kek, &wrapped, &mut out), Err(Error::Integrity));
        prop_assert!(out.iter().all(|&b| b == 0));
    }

    #[test]
    fn padded_key_data_still_parses(
        gtk_len in 5usize..=32,
        key_id in 0u8..4,
        extra in prop::collection::vec(any::<u8>(), 0..20),
    ) {
        // An RSNE-like element carrying `extra`, then a GTK KDE.
        let mut kd = vec![0x30, extra.len() as u8];
        kd.extend_from_slice(&extra);
        kd.extend_from_slice(&[0xdd, (6 + gtk_len) as u8, 0x00, 0x0f, 0xac, 1, key_id, 0]);
        kd.extend((0..gtk_len).map(|i| i as u8));
        let len = kd.len();
        kd.resize(keywrap::padded_len(len), 0xaa);
        let n = keywrap::pad_key_data(&mut kd, len).unwrap();
        prop_assert!(n.is_multiple_of(8) && n >= 16 && n - len < 16);
        let g = keywrap::find_gtk(&kd[..n]).unwrap().unwrap();
        prop_assert_eq!(g.key_id, key_id);
        prop_assert_eq!(g.key.len(), gtk_len);
    }

    #[test]
    fn arbitrary_input_never_panics(
        bytes in prop::collection::vec(any::<u8>(), 0..200),
        version in 0u8..5,
        alg in 0usize..6,
    ) {
        let alg = ALGS[alg];
        let kck = [1u8; 32];
        let _ = eapol_mic::verify_pdu(alg, &kck[..alg.kck_len()], &bytes);
        let mut copy = bytes.clone();
        let _ = eapol_mic::sign_pdu(alg, &kck[..alg.kck_len()], &mut copy);
        let mut out = [0u8; 256];
        let r = keywrap::decrypt_key_data(version, &[2; 16], &[3; 16], &bytes, &mut out);
        if version != 1 {
            prop_assert!(r.is_err(), "random key data unwrapped");
        }
        let _ = keywrap::find_gtk(&bytes);
        let _ = keywrap::find_igtk(&bytes);
        let _ = keywrap::find_bigtk(&bytes);
        let _ = keywrap::pad_key_data(&mut copy, bytes.len() / 2);
    }

    #[test]
    fn ptk_independent_of_roles(
        a in any::<[u8; 6]>(),
        b in any::<[u8; 6]>(),
        n1 in any::<[u8; 32]>(),
        n2 in any::<[u8; 32]>(),
        sha256 in any::<bool>(),
    ) {
        let akm = if sha256 { Akm::PSK_SHA256 } else { Akm::PSK };
        let pmk = [7u8; 32];
        let x = Ptk::derive(akm, CipherSuite::CCMP_128, &pmk, MacAddr(a), MacAddr(b), &n1, &n2).unwrap();
        let y = Ptk::derive(akm, CipherSuite::CCMP_128, &pmk, MacAddr(b), MacAddr(a), &n2, &n1).unwrap();
        prop_assert_eq!(x.as_bytes(), y.as_bytes());
    }

    #[test]
    fn prf_shorter_is_prefix(len in 1usize..200, data in prop::collection::vec(any::<u8>(), 0..40)) {
        let mut long = [0u8; 200];
        let mut short = vec![0u8; len];
        kdf::prf_sha1(b"key", b"label", &[&data], &mut long).unwrap();
        kdf::prf_sha1(b"key", b"label", &[&data], &mut short).unwrap();
        prop_assert_eq!(&long[..len], &short[..]);
    }
}
