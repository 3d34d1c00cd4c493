//! Helpers shared by the peer tests.
#![allow(dead_code)]

use wisec_peers::{AeadMsg, PeerError};

/// The IEEE 802.11 vectors of wisec-crypto.
pub fn vectors() -> serde_json::Value {
    serde_json::from_str(include_str!(
        "../../../wisec-crypto/tests/vectors/ieee80211_vectors.json"
    ))
    .unwrap()
}

pub fn hexv(v: &serde_json::Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

/// What was flipped, then ciphertext, AAD, nonce and MIC to open.
type Tamper<'a, const N: usize> = (&'a str, &'a [u8], &'a [u8], &'a [u8; N], &'a [u8]);

/// Checks that `open` (peer `name`) refuses the message `ct` with its
/// MIC, nonce and AAD when one of them has a flipped bit: the MIC's last
/// octet, the ciphertext's last, AAD octet `aad_at` and nonce octet
/// `nonce_at`; and that it wipes the output of the refused message.
#[allow(clippy::too_many_arguments)]
pub fn refuses_tampering<const N: usize>(
    name: &str,
    mut open: impl FnMut(&mut [AeadMsg<'_, N>]) -> Result<(), PeerError>,
    nonce: &[u8; N],
    aad: &[u8],
    ct: &[u8],
    mic: &[u8],
    aad_at: usize,
    nonce_at: usize,
) {
    let mut bad_ct = ct.to_vec();
    if let Some(b) = bad_ct.last_mut() {
        *b ^= 0x01;
    }
    let mut bad_aad = aad.to_vec();
    bad_aad[aad_at] ^= 0x01;
    let mut bad_nonce = *nonce;
    bad_nonce[nonce_at] ^= 0x01;
    let mut bad_tag = mic.to_vec();
    if let Some(b) = bad_tag.last_mut() {
        *b ^= 0x80;
    }
    let cases: [Tamper<'_, N>; 4] = [
        ("mic", ct, aad, nonce, &bad_tag),
        ("ciphertext", &bad_ct, aad, nonce, mic),
        ("aad", ct, &bad_aad, nonce, mic),
        ("nonce", ct, aad, &bad_nonce, mic),
    ];
    for (what, input, a, n, t) in cases {
        if what == "ciphertext" && ct.is_empty() {
            continue;
        }
        let mut out = vec![0xaau8; ct.len()];
        let mut t = t.to_vec();
        let r = open(&mut [AeadMsg {
            nonce: n,
            aad: a,
            input,
            output: &mut out,
            tag: &mut t,
        }]);
        assert_eq!(
            r,
            Err(PeerError::Integrity { index: 0 }),
            "{name} accepted a flipped {what}"
        );
        assert!(out.iter().all(|&b| b == 0), "{name} left output");
    }
}

/// Checks that peer `name` seals `body` under `nonce` and `aad` to exactly
/// `want_ct` and `want_mic`, and opens that back to `body`; `run` seals
/// (true) or opens (false) a batch.
#[allow(clippy::too_many_arguments)]
pub fn seals_and_opens_like_wisec<const N: usize>(
    name: &str,
    mut run: impl FnMut(&mut [AeadMsg<'_, N>], bool) -> Result<(), PeerError>,
    nonce: &[u8; N],
    aad: &[u8],
    body: &[u8],
    want_ct: &[u8],
    want_mic: &[u8],
) {
    let mut ct = vec![0u8; body.len()];
    let mut tag = vec![0u8; want_mic.len()];
    run(
        &mut [AeadMsg {
            nonce,
            aad,
            input: body,
            output: &mut ct,
            tag: &mut tag,
        }],
        true,
    )
    .unwrap();
    assert_eq!(ct, want_ct, "{name} ciphertext, body {}", body.len());
    assert_eq!(tag, want_mic, "{name} MIC, body {}", body.len());
    let mut pt = vec![0u8; body.len()];
    let mut rx_tag = want_mic.to_vec();
    run(
        &mut [AeadMsg {
            nonce,
            aad,
            input: want_ct,
            output: &mut pt,
            tag: &mut rx_tag,
        }],
        false,
    )
    .unwrap();
    assert_eq!(pt, body, "{name} plaintext");
}
