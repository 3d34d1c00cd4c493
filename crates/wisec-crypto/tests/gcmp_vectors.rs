//! GCMP-128 and GCMP-256 against the 802.11ac and 802.11ad Annex M vectors
//! in `vectors/ieee80211_vectors.json`.

mod ccmp_common;

use ccmp_common::{hx, known_answer, load};
use wisec_crypto::gcmp::{Gcmp128, Gcmp256};
use wisec_crypto::{Error, FrameProtector};

fn pn_be(v: &serde_json::Value) -> u64 {
    u64::from_str_radix(v["pn_be"].as_str().unwrap(), 16).unwrap()
}

#[test]
fn gcmp256_80211ac_m111() {
    let v = &load("ieee80211_vectors.json")["gcmp256"];
    let s = Gcmp256::new(&hx(v, "tk")).unwrap();
    let mut plain = hx(v, "plaintext_mpdu");
    assert_eq!(v["hdr_len"], 26);
    plain[1] &= !0x40;
    known_answer(&s, &plain, pn_be(v), 0, &hx(v, "expected_mpdu_no_fcs"));
}

/// Builds the expected MPDU of an 802.11ad M.11.1 entry from its fields:
/// header (Protected set) || GCMP header || encrypted payload || MIC.
fn ad_expected(v: &serde_json::Value, plain: &[u8]) -> Vec<u8> {
    let hlen = v["hdr_len"].as_u64().unwrap() as usize;
    let pn = pn_be(v).to_le_bytes();
    let mut e = plain[..hlen].to_vec();
    e[1] |= 0x40;
    e.extend_from_slice(&[pn[0], pn[1], 0, 0x20, pn[2], pn[3], pn[4], pn[5]]);
    e.extend_from_slice(&hx(v, "expected_encrypted_payload"));
    e.extend_from_slice(&hx(v, "expected_mic"));
    e
}

#[test]
fn gcmp128_80211ad_m111_data_frame() {
    let v = &load("ieee80211_vectors.json")["gcmp128_80211ad_M111"][1];
    let s = Gcmp128::new(&hx(v, "tk")).unwrap();
    let mut plain = hx(v, "plaintext_mpdu");
    plain[1] &= !0x40;
    assert_eq!(
        plain.len() - 26,
        v["payload_len"].as_u64().unwrap() as usize
    );
    known_answer(&s, &plain, pn_be(v), 0, &ad_expected(v, &plain));
}

#[test]
fn gcmp128_80211ad_m111_first_vector() {
    // This entry's header (FC 20 02: a management frame with the Protected
    // bit clear) was used verbatim as the AAD; a GCMP AAD always has
    // Protected set (12.5.3.3.3 a) 5)), so the published MIC cannot come
    // out of frame-level GCMP. The encrypted payload depends only on key,
    // nonce (A2 || PN) and payload and must match exactly; the MIC is
    // checked against the published value with the verbatim AAD through
    // the GCM layer, and against the Python `cryptography` cross-check
    // (ccmp_gcmp_crosscheck.json) at frame level.
    use aes_gcm::aead::array::Array;
    use aes_gcm::{AeadInOut, Aes128Gcm, KeyInit};

    let v = &load("ieee80211_vectors.json")["gcmp128_80211ad_M111"][0];
    let plain = hx(v, "plaintext_mpdu");
    let hlen = 24;
    let s = Gcmp128::new(&hx(v, "tk")).unwrap();
    let mut out = vec![0u8; plain.len() + 24];
    let n = s.protect(&plain, pn_be(v), 0, &mut out).unwrap();
    assert_eq!(n, plain.len() + 24);
    assert_eq!(
        hex::encode(&out[hlen + 8..n - 16]),
        v["expected_encrypted_payload"].as_str().unwrap()
    );

    // The published MIC with the header used as the AAD verbatim
    // (FC || A1 || A2 || A3 || SC).
    let mut aad = plain[..2].to_vec();
    aad.extend_from_slice(&plain[4..24]);
    let mut nonce = plain[10..16].to_vec();
    nonce.extend_from_slice(&hex::decode(v["pn_be"].as_str().unwrap()).unwrap());
    let gcm = Aes128Gcm::new_from_slice(&hx(v, "tk")).unwrap();
    let mut body = plain[hlen..].to_vec();
    let nonce: [u8; 12] = nonce.try_into().unwrap();
    let tag = gcm
        .encrypt_inout_detached(&Array::from(nonce), &aad, body.as_mut_slice().into())
        .unwrap();
    assert_eq!(hex::encode(tag), v["expected_mic"].as_str().unwrap());
    // And our frame-level AAD differs from it only by the Protected bit.
    let h = wisec_wire::Header::new_checked(&plain[..]).unwrap();
    let ours = wisec_crypto::ccmp::aad(&h).unwrap();
    let mut expected_aad = aad.clone();
    expected_aad[1] |= 0x40;
    assert_eq!(ours.as_bytes(), &expected_aad[..]);

    // The frame-level result is the cross-checked one.
    let all = load("ccmp_gcmp_crosscheck.json");
    let x = all["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["suite"] == "gcmp128" && x["plaintext_mpdu"] == v["plaintext_mpdu"])
        .unwrap();
    assert_eq!(
        hex::encode(&out[..n]),
        x["protected_mpdu"].as_str().unwrap()
    );
}

#[test]
fn gcmp_refuses_like_ccmp() {
    let s = Gcmp256::new(&[1u8; 32]).unwrap();
    let mut f = vec![0x08, 0x00, 0, 0];
    f.extend_from_slice(&[3; 18]);
    f.extend_from_slice(&[0, 0]);
    f.extend_from_slice(b"abc");
    let mut out = [0u8; 64];
    assert_eq!(
        s.protect(&f, 1 << 48, 0, &mut out),
        Err(Error::InvalidParameter)
    );
    assert_eq!(s.protect(&f, 0, 4, &mut out), Err(Error::InvalidParameter));
    let n = s.protect(&f, 5, 2, &mut out).unwrap();
    assert_eq!(n, f.len() + 24);
    let mut again = [0u8; 96];
    assert_eq!(
        s.protect(&out[..n], 6, 2, &mut again),
        Err(Error::Unsupported)
    );
    let mut b = out[..n].to_vec();
    let u = s.unprotect_in_place(&mut b).unwrap();
    assert_eq!((u.pn(), u.key_id()), (5, 2));
    assert_eq!(&b[..u.len()], &f[..]);
    assert_eq!(Gcmp128::new(&[0u8; 16]).unwrap().overhead().total(), 24);
}
