//! The RSN key hierarchy against published vectors:
//! - PSK mapping (IEEE 802.11 Annex J.4, `psk_pbkdf2_sha1_4096_32` of
//!   ieee80211_vectors.json) and PRF-SHA1 (802.11i PRF test cases,
//!   `prf_sha1_80211i`);
//! - RFC 6070 PBKDF2-HMAC-SHA1, RFC 3394 AES key wrap (all six vectors,
//!   both directions), RFC 4231 HMAC-SHA-256/384/512 (keys_crosscheck.json,
//!   where the generator re-checks them against Python's libraries);
//!
//! Every vector is also negated: a flipped byte must change the result or
//! be rejected.

mod legacy_util;

use legacy_util::{hex, ieee, load, s};
use wisec_crypto::kdf::{self, KdfHash};
use wisec_crypto::keywrap;
use wisec_crypto::Error;

#[test]
fn annex_j4_psk_vectors() {
    let v = &ieee()["psk_pbkdf2_sha1_4096_32"];
    let list = v["vectors"].as_array().unwrap();
    assert_eq!(list.len(), 3);
    for t in list {
        let pass = s(t, "passphrase").as_bytes();
        let ssid = s(t, "ssid").as_bytes();
        let pmk = kdf::psk(pass, ssid).unwrap();
        assert_eq!(
            pmk.as_bytes(),
            &hex(s(t, "psk"))[..],
            "{}",
            s(t, "passphrase")
        );
        // Negation: one changed character of the SSID or passphrase.
        let mut bad_ssid = ssid.to_vec();
        bad_ssid[0] ^= 1;
        assert_ne!(
            kdf::psk(pass, &bad_ssid).unwrap().as_bytes(),
            pmk.as_bytes()
        );
        let mut bad_pass = pass.to_vec();
        bad_pass[0] ^= 1;
        assert_ne!(
            kdf::psk(&bad_pass, ssid).unwrap().as_bytes(),
            pmk.as_bytes()
        );
    }
}

#[test]
fn prf_sha1_80211i_vectors() {
    let v = &ieee()["prf_sha1_80211i"];
    for t in v["vectors"].as_array().unwrap() {
        let key = hex(s(t, "key"));
        let data = hex(s(t, "data"));
        let want = hex(s(t, "out"));
        assert_eq!(want.len(), 64);
        let label = s(t, "label").as_bytes();
        // PRF-512 and the shorter PRFs, which are prefixes of it.
        for n in [16, 24, 32, 48, 64] {
            let mut out = vec![0u8; n];
            kdf::prf_sha1(&key, label, &[&data], &mut out).unwrap();
            assert_eq!(out, want[..n]);
        }
        let mut out = [0u8; 64];
        let mut bad = data.clone();
        bad[0] ^= 0x80;
        kdf::prf_sha1(&key, label, &[&bad], &mut out).unwrap();
        assert_ne!(&out[..], &want[..]);
        kdf::prf_sha1(&key, b"prefiX", &[&data], &mut out).unwrap();
        assert_ne!(&out[..], &want[..]);
    }
}

#[test]
fn rfc6070_pbkdf2_hmac_sha1() {
    let v = &load("keys_crosscheck.json")["rfc6070"];
    let list = v["vectors"].as_array().unwrap();
    assert_eq!(list.len(), 5);
    for t in list {
        let want = hex(s(t, "dk"));
        let iters = t["iterations"].as_u64().unwrap() as u32;
        let mut out = vec![0u8; want.len()];
        let pw = s(t, "password").as_bytes();
        let salt = s(t, "salt").as_bytes();
        kdf::pbkdf2_hmac_sha1(pw, salt, iters, &mut out).unwrap();
        assert_eq!(out, want);
        kdf::pbkdf2_hmac_sha1(pw, salt, iters + 1, &mut out).unwrap();
        assert_ne!(out, want);
    }
    assert_eq!(
        kdf::pbkdf2_hmac_sha1(b"p", b"s", 0, &mut [0; 4]),
        Err(Error::InvalidParameter)
    );
}

#[test]
fn rfc3394_key_wrap_both_directions() {
    let v = &load("keys_crosscheck.json")["rfc3394"];
    let list = v["vectors"].as_array().unwrap();
    assert_eq!(list.len(), 6);
    for t in list {
        let kek = hex(s(t, "kek"));
        let pt = hex(s(t, "key_data"));
        let ct = hex(s(t, "wrapped"));
        let mut out = [0u8; 64];
        let n = keywrap::aes_wrap(&kek, &pt, &mut out).unwrap();
        assert_eq!(out[..n], ct[..]);
        let n = keywrap::aes_unwrap(&kek, &ct, &mut out).unwrap();
        assert_eq!(out[..n], pt[..]);
        // Integrity failure: any flipped bit of the wrapped key, or the
        // wrong KEK, is rejected and leaves no plaintext behind.
        for i in [0, 7, 8, ct.len() - 1] {
            let mut bad = ct.clone();
            bad[i] ^= 0x01;
            out.fill(0xee);
            assert_eq!(
                keywrap::aes_unwrap(&kek, &bad, &mut out),
                Err(Error::Integrity)
            );
            assert!(out[..pt.len()].iter().all(|&b| b == 0));
        }
        let mut bad_kek = kek.clone();
        bad_kek[0] ^= 1;
        assert_eq!(
            keywrap::aes_unwrap(&bad_kek, &ct, &mut out),
            Err(Error::Integrity)
        );
    }
}

#[test]
fn rfc4231_hmac_sha2() {
    let v = &load("keys_crosscheck.json")["rfc4231"];
    for t in v["vectors"].as_array().unwrap() {
        let key = hex(s(t, "key"));
        let data = hex(s(t, "data"));
        for (hash, name) in [
            (KdfHash::Sha256, "sha256"),
            (KdfHash::Sha384, "sha384"),
            (KdfHash::Sha512, "sha512"),
        ] {
            let want = hex(s(t, name));
            let mut out = vec![0u8; hash.output_len()];
            // Fed in two parts, as the KDFs do.
            let (a, b) = data.split_at(data.len() / 2);
            hash.hmac(&key, &[a, b], &mut out).unwrap();
            assert_eq!(out, want, "{name}");
            let mut bad = data.clone();
            bad[0] ^= 1;
            hash.hmac(&key, &[&bad], &mut out).unwrap();
            assert_ne!(out, want);
        }
    }
}
