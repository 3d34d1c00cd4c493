//! Known-answer tests the bare machine runs at boot, before it serves:
//! CCM vectors of RFC 3610 (section 8) and NIST SP 800-38C (Appendix C)
//! through [`wisec_crypto::ccm::Ccm`], and the CCMP-128 vector of IEEE Std
//! 802.11-2012 M.6.4 through [`wisec_crypto::ccmp::Ccmp128`]. Each vector
//! is encrypted and compared, decrypted and compared, and once more with a
//! flipped ciphertext octet, which must be refused.
//!
//! The vectors are copies of entries of
//! `crates/wisec-crypto/tests/vectors/` (checked by a test below).

use crate::wire::parse_hex;
use wisec_crypto::ccm::Ccm;
use wisec_crypto::ccmp::Ccmp128;
use wisec_crypto::FrameProtector;

/// A CCM vector: name, key, nonce, AAD, plaintext, ciphertext ‖ tag (hex),
/// tag length M, length-field size L.
pub type CcmVector = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    usize,
    usize,
);

/// The CCM vectors.
pub const CCM_VECTORS: [CcmVector; 8] = [
    (
        "RFC 3610 Packet Vector #1",
        "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf",
        "00000003020100a0a1a2a3a4a5",
        "0001020304050607",
        "08090a0b0c0d0e0f101112131415161718191a1b1c1d1e",
        "588c979a61c663d2f066d0c2c0f989806d5f6b61dac38417e8d12cfdf926e0",
        8,
        2,
    ),
    (
        "RFC 3610 Packet Vector #2",
        "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf",
        "00000004030201a0a1a2a3a4a5",
        "0001020304050607",
        "08090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "72c91a36e135f8cf291ca894085c87e3cc15c439c9e43a3ba091d56e10400916",
        8,
        2,
    ),
    (
        "RFC 3610 Packet Vector #7",
        "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf",
        "00000009080706a0a1a2a3a4a5",
        "0001020304050607",
        "08090a0b0c0d0e0f101112131415161718191a1b1c1d1e",
        "0135d1b2c95f41d5d1d4fec185d166b8094e999dfed96c048c56602c97acbb7490",
        10,
        2,
    ),
    (
        "RFC 3610 Packet Vector #13",
        "d7828d13b2b0bdc325a76236df93cc6b",
        "00412b4ea9cdbe3c9696766cfa",
        "0be1a88bace018b1",
        "08e8cf97d820ea258460e96ad9cf5289054d895ceac47c",
        "4cb97f86a2a4689a877947ab8091ef5386a6ffbdd080f8e78cf7cb0cddd7b3",
        8,
        2,
    ),
    (
        "RFC 3610 Packet Vector #24",
        "d7828d13b2b0bdc325a76236df93cc6b",
        "008d493b30ae8b3c9696766cfa",
        "6e37a6ef546d955d34ab6059",
        "abf21c0b02feb88f856df4a37381bce3cc128517d4",
        "f32905b88a641b04b9c9ffb58cc390900f3da12ab16dce9e82efa16da62059",
        10,
        2,
    ),
    (
        "SP 800-38C C.1 Example 1",
        "404142434445464748494a4b4c4d4e4f",
        "10111213141516",
        "0001020304050607",
        "20212223",
        "7162015b4dac255d",
        4,
        8,
    ),
    (
        "SP 800-38C C.2 Example 2",
        "404142434445464748494a4b4c4d4e4f",
        "1011121314151617",
        "000102030405060708090a0b0c0d0e0f",
        "202122232425262728292a2b2c2d2e2f",
        "d2a1f0e051ea5f62081a7792073d593d1fc64fbfaccd",
        6,
        7,
    ),
    (
        "SP 800-38C C.3 Example 3",
        "404142434445464748494a4b4c4d4e4f",
        "101112131415161718191a1b",
        "000102030405060708090a0b0c0d0e0f10111213",
        "202122232425262728292a2b2c2d2e2f3031323334353637",
        "e3b201a9f5b71a7a9b1ceaeccd97e70b6176aad9a4428aa5484392fbc1b09951",
        8,
        3,
    ),
];

/// The CCMP-128 vector (IEEE Std 802.11-2012 M.6.4): TK, PN (big-endian
/// hex), plaintext MPDU, protected MPDU without FCS.
pub const CCMP_VECTOR: (&str, &str, &str, &str, &str) = (
    "IEEE 802.11 CCMP-128 (M.6.4)",
    "c97c1f67ce371185514a8a19f2bdd52f",
    "b5039776e70c",
    "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050",
    "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b5f3d0a2fe9a3dbf2342a643e43246e80c3c04d0197845ce0b16f97623",
);

/// Decodes hex of any length up to 96 octets into a buffer.
fn unhex(s: &str, out: &mut [u8; 96]) -> Option<usize> {
    let n = s.len() / 2;
    if !s.len().is_multiple_of(2) || n > out.len() {
        return None;
    }
    for (i, o) in out.iter_mut().take(n).enumerate() {
        *o = parse_hex::<1>(s.get(2 * i..2 * i + 2)?)?[0];
    }
    Some(n)
}

/// Runs one CCM vector: encrypt, decrypt, and a flipped octet refused.
pub fn check_ccm(v: &CcmVector) -> bool {
    let (_, key, nonce, aad, pt, ct, m, l) = *v;
    let (mut kb, mut nb, mut ab, mut pb, mut cb) =
        ([0u8; 96], [0u8; 96], [0u8; 96], [0u8; 96], [0u8; 96]);
    let (Some(kl), Some(nl), Some(al), Some(pl), Some(cl)) = (
        unhex(key, &mut kb),
        unhex(nonce, &mut nb),
        unhex(aad, &mut ab),
        unhex(pt, &mut pb),
        unhex(ct, &mut cb),
    ) else {
        return false;
    };
    let Ok(ccm) = Ccm::new(&kb[..kl], m, l) else {
        return false;
    };
    if cl != pl + m {
        return false;
    }
    let mut data = pb;
    let mut tag = [0u8; 16];
    if ccm
        .encrypt_in_place_detached(&nb[..nl], &ab[..al], &mut data[..pl], &mut tag)
        .is_err()
        || data[..pl] != cb[..pl]
        || tag[..m] != cb[pl..cl]
    {
        return false;
    }
    if ccm
        .decrypt_in_place_detached(&nb[..nl], &ab[..al], &mut data[..pl], &cb[pl..cl])
        .is_err()
        || data[..pl] != pb[..pl]
    {
        return false;
    }
    let mut bad = cb;
    bad[0] ^= 1;
    ccm.decrypt_in_place_detached(&nb[..nl], &ab[..al], &mut bad[..pl], &cb[pl..cl])
        .is_err()
}

/// Runs the CCMP vector: protect, unprotect, and a flipped octet refused.
pub fn check_ccmp() -> bool {
    let (_, tk, pn, plain, protected) = CCMP_VECTOR;
    let (mut kb, mut pb, mut eb) = ([0u8; 96], [0u8; 96], [0u8; 96]);
    let (Some(16), Some(pl), Some(el), Some(pn)) = (
        unhex(tk, &mut kb),
        unhex(plain, &mut pb),
        unhex(protected, &mut eb),
        parse_hex::<6>(pn),
    ) else {
        return false;
    };
    let pn = pn.iter().fold(0u64, |a, b| a << 8 | u64::from(*b));
    // M.6.4 gives the header as transmitted, Protected Frame bit set:
    // the unprotected frame has it clear.
    pb[1] &= !0x40;
    let Ok(ccmp) = Ccmp128::new(&kb[..16]) else {
        return false;
    };
    let mut buf = [0u8; 96];
    if ccmp.protect(&pb[..pl], pn, 0, &mut buf) != Ok(el) || buf[..el] != eb[..el] {
        return false;
    }
    let mut rx = eb;
    match ccmp.unprotect_in_place(&mut rx[..el]) {
        Ok(u) if u.len() == pl && u.pn() == pn && rx[..pl] == pb[..pl] => {}
        _ => return false,
    }
    let mut bad = eb;
    bad[el - 9] ^= 0x80;
    ccmp.unprotect_in_place(&mut bad[..el]).is_err()
}

/// The outcome of the self-test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Vectors run.
    pub run: usize,
    /// Vectors passed.
    pub passed: usize,
    /// The first vector that failed.
    pub first_failure: Option<&'static str>,
}

impl Outcome {
    /// True when every vector passed.
    pub const fn ok(&self) -> bool {
        self.passed == self.run && self.run > 0
    }
}

/// Runs every vector.
pub fn run() -> Outcome {
    let mut o = Outcome {
        run: 0,
        passed: 0,
        first_failure: None,
    };
    let mut note = |name: &'static str, ok: bool| {
        o.run += 1;
        if ok {
            o.passed += 1;
        } else if o.first_failure.is_none() {
            o.first_failure = Some(name);
        }
    };
    for v in &CCM_VECTORS {
        note(v.0, check_ccm(v));
    }
    note(CCMP_VECTOR.0, check_ccmp());
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(name: &str) -> serde_json::Value {
        let path = std::format!(
            "{}/../wisec-crypto/tests/vectors/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn the_embedded_vectors_are_the_published_ones() {
        let all = json("ccm_rfc3610_sp800_38c.json");
        for v in &CCM_VECTORS {
            let j = all["vectors"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["name"] == v.0)
                .unwrap_or_else(|| panic!("{} not in the vector file", v.0));
            assert_eq!(j["key"], v.1, "{}", v.0);
            assert_eq!(j["nonce"], v.2, "{}", v.0);
            assert_eq!(j["aad"], v.3, "{}", v.0);
            assert_eq!(j["plaintext"], v.4, "{}", v.0);
            let ct = std::format!(
                "{}{}",
                j["ciphertext"].as_str().unwrap(),
                j["tag"].as_str().unwrap()
            );
            assert_eq!(ct, v.5, "{}", v.0);
            assert_eq!(j["tag_len"], v.6, "{}", v.0);
            assert_eq!(j["l"], v.7, "{}", v.0);
        }
        let ieee = json("ieee80211_vectors.json");
        let c = &ieee["ccmp128_M64"];
        assert_eq!(c["tk"], CCMP_VECTOR.1);
        assert_eq!(c["pn_be"], CCMP_VECTOR.2);
        assert_eq!(c["plaintext_mpdu"], CCMP_VECTOR.3);
        assert_eq!(c["expected_mpdu_no_fcs"], CCMP_VECTOR.4);
    }

    #[test]
    fn every_vector_passes_and_a_wrong_one_fails() {
        let o = run();
        assert_eq!((o.run, o.passed, o.first_failure), (9, 9, None));
        assert!(o.ok());
        let mut wrong = CCM_VECTORS[0];
        wrong.5 = "688c979a61c663d2f066d0c2c0f989806d5f6b61dac38417e8d12cfdf926e0";
        assert!(!check_ccm(&wrong));
    }
}
