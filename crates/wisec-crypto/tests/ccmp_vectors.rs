//! CCMP-128 and CCMP-256 against IEEE 802.11 Annex M vectors
//! (`vectors/ieee80211_vectors.json`) and Python `cryptography`
//! cross-checks (`vectors/ccmp_gcmp_crosscheck.json`).

mod ccmp_common;

use ccmp_common::{hx, known_answer, load, tamper};
use wisec_crypto::ccmp::{Ccmp128, Ccmp256};
use wisec_crypto::{Error, FrameProtector};

fn pn_be(v: &serde_json::Value) -> u64 {
    u64::from_str_radix(v["pn_be"].as_str().unwrap(), 16).unwrap()
}

#[test]
fn ccmp128_annex_m64() {
    let v = &load("ieee80211_vectors.json")["ccmp128_M64"];
    let s = Ccmp128::new(&hx(v, "tk")).unwrap();
    // The M.6.4 plaintext MPDU has Protected and Retry already set (it is
    // the header as transmitted); protect takes an unprotected frame.
    let mut plain = hx(v, "plaintext_mpdu");
    plain[1] &= !0x40;
    let mut expected = hx(v, "expected_mpdu_no_fcs");
    assert_eq!(
        s.protect(&hx(v, "plaintext_mpdu"), pn_be(v), 0, &mut [0u8; 128]),
        Err(Error::Unsupported),
        "an already protected frame is refused"
    );
    known_answer(&s, &plain, pn_be(v), 0, &expected);
    // Retry is masked: the frame verifies with Retry cleared too.
    expected[1] &= !0x08;
    let mut b = expected.clone();
    assert!(s.unprotect_in_place(&mut b).is_ok());
}

#[test]
fn ccmp256_annex_m64_80211ac() {
    let v = &load("ieee80211_vectors.json")["ccmp256"];
    let s = Ccmp256::new(&hx(v, "tk")).unwrap();
    let mut plain = hx(v, "plaintext_mpdu");
    plain[1] &= !0x40;
    known_answer(&s, &plain, pn_be(v), 0, &hx(v, "expected_mpdu_no_fcs"));
}

fn crosscheck(suite: &str) -> usize {
    let all = load("ccmp_gcmp_crosscheck.json");
    let mut n = 0;
    for v in all["vectors"].as_array().unwrap() {
        if v["suite"] != suite {
            continue;
        }
        let tk = hx(v, "tk");
        let s: Box<dyn FrameProtector> = match suite {
            "ccmp128" => Box::new(Ccmp128::new(&tk).unwrap()),
            "ccmp256" => Box::new(Ccmp256::new(&tk).unwrap()),
            "gcmp128" => Box::new(wisec_crypto::gcmp::Gcmp128::new(&tk).unwrap()),
            _ => Box::new(wisec_crypto::gcmp::Gcmp256::new(&tk).unwrap()),
        };
        let pn = v["pn"].as_u64().unwrap();
        let key_id = v["key_id"].as_u64().unwrap() as u8;
        known_answer(
            s.as_ref(),
            &hx(v, "plaintext_mpdu"),
            pn,
            key_id,
            &hx(v, "protected_mpdu"),
        );
        n += 1;
    }
    n
}

#[test]
fn ccmp128_management_frame_m92_and_crosschecks() {
    // Includes the M.9.2 unicast Deauthentication (management bit in the
    // nonce, subtype not masked in the AAD).
    assert_eq!(crosscheck("ccmp128"), 9);
}

#[test]
fn ccmp256_crosschecks() {
    assert_eq!(crosscheck("ccmp256"), 8);
}

#[test]
fn gcmp_crosschecks() {
    assert_eq!(crosscheck("gcmp128"), 9);
    assert_eq!(crosscheck("gcmp256"), 8);
}

#[test]
fn a_ccmp128_frame_does_not_open_under_ccmp256_or_another_key() {
    let v = &load("ieee80211_vectors.json")["ccmp128_M64"];
    let f = hx(v, "expected_mpdu_no_fcs");
    let other = Ccmp128::new(&[0u8; 16]).unwrap();
    ccmp_common::expect_reject(&other, &f, "wrong key");
    let mut tk = hx(v, "tk");
    tk.extend_from_slice(&[0u8; 16]);
    let wide = Ccmp256::new(&tk).unwrap();
    // 8-byte MIC read as 16: fails one way or another, never succeeds.
    let mut b = f.clone();
    assert!(wide.unprotect_in_place(&mut b).is_err());
    assert_eq!(b, f);
    tamper(&Ccmp128::new(&hx(v, "tk")).unwrap(), &f);
}

#[test]
fn refusals() {
    let s = Ccmp128::new(&[7u8; 16]).unwrap();
    let data = {
        let mut f = vec![0x08, 0x01, 0, 0];
        f.extend_from_slice(&[1; 18]);
        f.extend_from_slice(&[0x10, 0]);
        f.extend_from_slice(b"payload");
        f
    };
    let mut out = [0u8; 128];
    assert_eq!(
        s.protect(&data, 1 << 48, 0, &mut out),
        Err(Error::InvalidParameter)
    );
    assert_eq!(
        s.protect(&data, 1, 4, &mut out),
        Err(Error::InvalidParameter)
    );
    assert!(s.protect(&data, (1 << 48) - 1, 3, &mut out).is_ok());
    assert_eq!(
        s.protect(&data, 1, 0, &mut out[..data.len() + 15]),
        Err(Error::BufferTooSmall)
    );
    // Null data (subtype 4) and QoS Null (12) carry no body.
    for st in [0x48u8, 0xc8] {
        let mut f = data.clone();
        f[0] = st;
        if st == 0xc8 {
            f.splice(24..24, [0, 0]);
        }
        assert_eq!(s.protect(&f, 1, 0, &mut out), Err(Error::Unsupported));
    }
    // Control frame (RTS), extension type.
    let rts = [0xb4, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    assert_eq!(s.protect(&rts, 1, 0, &mut out), Err(Error::Unsupported));
    let mut b = rts;
    b[1] |= 0x40;
    assert!(s.unprotect_in_place(&mut b).is_err());
    // Truncated header.
    assert_eq!(
        s.protect(&data[..20], 1, 0, &mut out),
        Err(Error::Malformed)
    );
    // Unprotect of an unprotected frame, and of a frame too short for the
    // CCMP header and MIC.
    let mut b = data.clone();
    assert_eq!(s.unprotect_in_place(&mut b), Err(Error::Malformed));
    let n = s.protect(&data, 9, 1, &mut out).unwrap();
    for cut in 0..n {
        let mut b = out[..cut].to_vec();
        assert!(s.unprotect_in_place(&mut b).is_err(), "cut at {cut}");
        assert_eq!(b, &out[..cut]);
    }
    let mut b = out[..n].to_vec();
    let u = s.unprotect_in_place(&mut b).unwrap();
    assert_eq!((u.pn(), u.key_id(), u.len()), (9, 1, data.len()));
    assert_eq!(&b[..u.len()], &data[..]);
    // Nothing of the removed trailer stays behind.
    assert!(b[u.len()..].iter().all(|&x| x == 0));
}
