//! AES-CMAC against RFC 4493 section 4 (examples 1-4, AES-128) and NIST
//! SP 800-38B appendix D.3 (examples 9-12, AES-256).

mod legacy_util;

use legacy_util::hex;
use wisec_crypto::cmac::{aes_cmac, AesCmac};
use wisec_crypto::Error;

const MSG: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";

fn cases() -> Vec<(&'static str, usize, &'static str)> {
    let k128 = "2b7e151628aed2a6abf7158809cf4f3c";
    let k256 = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
    vec![
        // RFC 4493, section 4, examples 1-4.
        (k128, 0, "bb1d6929e95937287fa37d129b756746"),
        (k128, 16, "070a16b46b4d4144f79bdd9dd04a287c"),
        (k128, 40, "dfa66747de9ae63030ca32611497c827"),
        (k128, 64, "51f0bebf7e3b9d92fc49741779363cfe"),
        // NIST SP 800-38B, D.3, examples 9-12.
        (k256, 0, "028962f61b7bf89efc6b551f4667d983"),
        (k256, 16, "28a7023f452e8f82bd4bf28d8c37c35c"),
        (k256, 40, "aaf3d8f1de5640c232f5b169b9c911e6"),
        (k256, 64, "e1992190549f6ed5696a2c056c315410"),
    ]
}

#[test]
fn rfc4493_and_sp800_38b_examples() {
    let msg = hex(MSG);
    for (key, len, tag) in cases() {
        let key = hex(key);
        let want = hex(tag);
        assert_eq!(aes_cmac(&key, &msg[..len]).unwrap().to_vec(), want);
        // Streaming in uneven pieces gives the same tag.
        let mut m = AesCmac::new(&key).unwrap();
        for chunk in msg[..len].chunks(7) {
            m.update(chunk);
        }
        assert_eq!(m.clone().finalize().to_vec(), want);
        m.clone().verify(&want).unwrap();
        m.clone().verify(&want[..8]).unwrap();
        // Flips: tag, message, key.
        let mut bad = want.clone();
        bad[15] ^= 1;
        assert_eq!(m.clone().verify(&bad), Err(Error::Integrity));
        if len > 0 {
            let mut bad_msg = msg[..len].to_vec();
            bad_msg[len / 2] ^= 0x80;
            assert_ne!(aes_cmac(&key, &bad_msg).unwrap().to_vec(), want);
        }
        let mut bad_key = key.clone();
        bad_key[0] ^= 1;
        assert_ne!(aes_cmac(&bad_key, &msg[..len]).unwrap().to_vec(), want);
    }
}

#[test]
fn key_and_tag_lengths() {
    for l in [0, 15, 17, 24, 31, 33] {
        assert_eq!(
            AesCmac::new(&vec![0; l]).unwrap_err(),
            Error::InvalidParameter
        );
    }
    assert_eq!(AesCmac::new(&[0; 16]).unwrap().key_len(), 16);
    assert_eq!(AesCmac::new(&[0; 32]).unwrap().key_len(), 32);
    let m = AesCmac::new(&[0; 16]).unwrap();
    assert_eq!(m.clone().verify(&[0; 7]), Err(Error::InvalidParameter));
    assert_eq!(m.verify(&[0; 17]), Err(Error::InvalidParameter));
}

/// Every message length 0..=300 (whole and partial last blocks, the
/// empty message), both key sizes, fed whole and in random pieces,
/// against RustCrypto's `cmac` (an independent implementation).
#[test]
fn every_length_matches_rustcrypto_cmac() {
    use cmac::{KeyInit, Mac};
    let mut seed = 0x636d_6163_u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for len in 0..=300usize {
        for key_len in [16, 32] {
            let key: Vec<u8> = (0..key_len).map(|_| next() as u8).collect();
            let msg: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let want: Vec<u8> = if key_len == 16 {
                let mut r = <cmac::Cmac<aes::Aes128> as KeyInit>::new_from_slice(&key).unwrap();
                r.update(&msg);
                r.finalize().into_bytes().to_vec()
            } else {
                let mut r = <cmac::Cmac<aes::Aes256> as KeyInit>::new_from_slice(&key).unwrap();
                r.update(&msg);
                r.finalize().into_bytes().to_vec()
            };
            assert_eq!(aes_cmac(&key, &msg).unwrap().to_vec(), want, "len {len}");
            let mut m = AesCmac::new(&key).unwrap();
            let mut at = 0;
            while at < len {
                let n = (next() % 40).min(len - at);
                m.update(&msg[at..at + n]);
                at += n;
            }
            assert_eq!(m.finalize().to_vec(), want, "len {len} in pieces");
        }
    }
}
