//! Helpers shared by the CCMP and GCMP integration tests.
#![allow(dead_code)]

use wisec_crypto::{Error, FrameProtector};
use wisec_wire::mac_header::Header;

/// Loads a JSON vector file from `tests/vectors/`.
pub fn load(name: &str) -> serde_json::Value {
    let path = format!("{}/tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Hex string field of a JSON object.
pub fn hx(v: &serde_json::Value, field: &str) -> Vec<u8> {
    hex::decode(v[field].as_str().unwrap()).unwrap()
}

/// Protects `plain` and checks the result equals `expected`, then
/// unprotects it back and runs the tamper checks.
pub fn known_answer(s: &dyn FrameProtector, plain: &[u8], pn: u64, key_id: u8, expected: &[u8]) {
    let mut out = vec![0u8; plain.len() + s.overhead().total()];
    let n = s.protect(plain, pn, key_id, &mut out).unwrap();
    assert_eq!(hex::encode(&out[..n]), hex::encode(expected));
    let mut back = vec![0u8; n];
    let u = s.unprotect(expected, &mut back).unwrap();
    assert_eq!(u.len(), plain.len());
    assert_eq!(u.pn(), pn);
    assert_eq!(u.key_id(), key_id);
    assert_eq!(&back[..u.len()], plain);
    tamper(s, expected);
}

/// Expects `Error::Integrity` for `frame` and checks that the buffer was
/// handed back unchanged (in place) and wiped (into a buffer).
pub fn expect_reject(s: &dyn FrameProtector, frame: &[u8], what: &str) {
    let mut b = frame.to_vec();
    assert_eq!(
        s.unprotect_in_place(&mut b),
        Err(Error::Integrity),
        "{what}"
    );
    assert_eq!(b, frame, "{what}: buffer not restored");
    let mut out = vec![0xa5u8; frame.len()];
    assert_eq!(
        s.unprotect(frame, &mut out),
        Err(Error::Integrity),
        "{what}"
    );
    assert!(out.iter().all(|&x| x == 0), "{what}: output not wiped");
}

fn expect_accept(s: &dyn FrameProtector, frame: &[u8], what: &str) {
    let mut b = frame.to_vec();
    assert!(s.unprotect_in_place(&mut b).is_ok(), "{what}");
}

/// Flips one byte of the body, the MIC, AAD-covered header fields and the
/// PN (each rejected), and changes fields the AAD masks (each accepted).
pub fn tamper(s: &dyn FrameProtector, frame: &[u8]) {
    let h = Header::new_checked(frame).unwrap();
    let hlen = h.header_len();
    let fc = h.frame_control();
    let mic = s.overhead().trailer;
    let flip = |i: usize, mask: u8| {
        let mut f = frame.to_vec();
        f[i] ^= mask;
        f
    };
    let body_len = frame.len() - hlen - 8 - mic;
    if body_len > 0 {
        expect_reject(s, &flip(hlen + 8, 0x01), "first body byte");
        expect_reject(s, &flip(frame.len() - mic - 1, 0x80), "last body byte");
    }
    expect_reject(s, &flip(frame.len() - 1, 0x01), "last MIC byte");
    expect_reject(s, &flip(frame.len() - mic, 0x40), "first MIC byte");
    expect_reject(s, &flip(hlen, 0x01), "PN0");
    expect_reject(s, &flip(hlen + 7, 0x80), "PN5");
    expect_reject(s, &flip(4, 0x02), "A1");
    expect_reject(s, &flip(15, 0x10), "A2");
    expect_reject(s, &flip(21, 0x01), "A3");
    expect_reject(s, &flip(22, 0x01), "fragment number");
    expect_reject(s, &flip(1, 0x04), "More Fragments bit");
    if fc.is_mgmt() {
        // Management subtype bits are not masked.
        expect_reject(s, &flip(0, 0x10), "management subtype");
    } else {
        // Data subtype bits 4..=6 are masked: the subtype may change
        // between data subtypes of the same header layout (QoS bit kept,
        // no Null subtype). Data <-> Data+CF-Ack.
        expect_accept(s, &flip(0, 0x10), "masked data subtype bit");
    }
    if let Some(qc_off) = h
        .qos_control()
        .map(|_| if fc.has_addr4() { 30 } else { 24 })
    {
        expect_reject(s, &flip(qc_off, 0x01), "TID");
        expect_accept(s, &flip(qc_off, 0x80), "QoS A-MSDU bit (masked)");
        expect_accept(s, &flip(qc_off + 1, 0xff), "QoS TXOP octet (masked)");
    }
    if fc.has_addr4() {
        expect_reject(s, &flip(24, 0x01), "A4");
    }
    if fc.has_ht_control() {
        expect_accept(s, &flip(hlen - 4, 0xff), "HT Control (not in AAD)");
    }
    // Masked fields: Retry, Power Management, More Data, sequence number,
    // Duration. Changing them must not break verification.
    expect_accept(s, &flip(1, 0x08), "Retry");
    expect_accept(s, &flip(1, 0x10), "Power Management");
    expect_accept(s, &flip(1, 0x20), "More Data");
    expect_accept(s, &flip(22, 0x50), "sequence number low bits");
    expect_accept(s, &flip(23, 0xff), "sequence number high bits");
    expect_accept(s, &flip(2, 0xff), "Duration");
    // The reserved octet of the security header is not authenticated
    // either (12.5.3.2 asks receivers to ignore it).
    expect_accept(s, &flip(hlen + 2, 0xff), "reserved octet");
    // ExtIV cleared: malformed, buffer untouched.
    let bad = flip(hlen + 3, 0x20);
    let mut b = bad.clone();
    assert_eq!(s.unprotect_in_place(&mut b), Err(Error::Malformed));
    assert_eq!(b, bad);
}
