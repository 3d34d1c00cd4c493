//! DiscoSec key exchange and frame authentication against an independent
//! computation: `tests/vectors/discosec_crosscheck.json`, produced by
//! `discosec_crosscheck.py` with Python's `cryptography` package (OpenSSL's
//! ECDH and AES-CMAC) and hashlib, for P-224, P-256 and P-384. AES-CMAC
//! itself is checked against RFC 4493 in wisec-crypto.

use serde::Deserialize;
use wisec_proto::discosec::*;

#[derive(Deserialize)]
struct File {
    curves: Vec<CurveVec>,
}

#[derive(Deserialize)]
struct CurveVec {
    curve: String,
    group: u16,
    ap_scalar: String,
    sta_scalar: String,
    ap_public: String,
    sta_public: String,
    mk: String,
    sessions: Vec<SessionVec>,
    frames: Vec<FrameVec>,
}

#[derive(Deserialize)]
struct SessionVec {
    at: u32,
    sk: String,
}

#[derive(Deserialize)]
struct FrameVec {
    mode: u8,
    at: u32,
    seq: u32,
    frame: String,
    sealed: String,
}

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

fn vectors() -> File {
    serde_json::from_str(include_str!("vectors/discosec_crosscheck.json")).unwrap()
}

fn curve(name: &str) -> Curve {
    match name {
        "P-224" => Curve::P224,
        "P-256" => Curve::P256,
        "P-384" => Curve::P384,
        _ => panic!("unknown curve {name}"),
    }
}

#[test]
fn every_curve_is_covered() {
    let names: Vec<_> = vectors().curves.into_iter().map(|c| c.curve).collect();
    assert_eq!(names, ["P-224", "P-256", "P-384"]);
}

#[test]
fn ecdh_and_session_keys() {
    for v in vectors().curves {
        let c = curve(&v.curve);
        assert_eq!(c.group().0, v.group);
        let ap = KeyPair::from_secret_bytes(c, &h(&v.ap_scalar)).unwrap();
        let sta = KeyPair::from_secret_bytes(c, &h(&v.sta_scalar)).unwrap();
        assert_eq!(ap.public().as_bytes(), &h(&v.ap_public)[..], "{}", v.curve);
        assert_eq!(
            sta.public().as_bytes(),
            &h(&v.sta_public)[..],
            "{}",
            v.curve
        );
        let mk_ap = ap.agree(&h(&v.sta_public)).unwrap();
        let mk_sta = sta.agree(&h(&v.ap_public)).unwrap();
        assert_eq!(mk_ap.as_bytes(), &h(&v.mk)[..], "{}", v.curve);
        assert_eq!(mk_sta.as_bytes(), &h(&v.mk)[..], "{}", v.curve);
        for s in &v.sessions {
            assert_eq!(
                &mk_ap.session_key(s.at).as_bytes()[..],
                &h(&s.sk)[..],
                "{} AT {:#x}",
                v.curve,
                s.at
            );
            // A flipped AT gives another key.
            assert_ne!(&mk_ap.session_key(s.at ^ 1).as_bytes()[..], &h(&s.sk)[..]);
        }
        // A flipped MK octet gives another key.
        let mut mk = h(&v.mk);
        mk[0] ^= 1;
        let other = MasterKey::from_slice(&mk).unwrap();
        assert_ne!(
            &other.session_key(v.sessions[0].at).as_bytes()[..],
            &h(&v.sessions[0].sk)[..]
        );
        // A corrupted peer point is refused, never used.
        let mut bad = h(&v.sta_public);
        let last = bad.len() - 1;
        bad[last] ^= 1;
        assert_eq!(ap.agree(&bad).unwrap_err(), Error::BadPoint);
        assert_eq!(
            PublicPoint::from_sec1(c, &bad).unwrap_err(),
            Error::BadPoint
        );
    }
}

#[test]
fn full_and_fast_auth_tags() {
    for v in vectors().curves {
        let mk = MasterKey::from_slice(&h(&v.mk)).unwrap();
        for fv in &v.frames {
            let mode = match fv.mode {
                1 => AuthMode::Full,
                2 => AuthMode::Fast,
                m => panic!("mode {m}"),
            };
            assert_eq!(fv.seq, 1);
            let sk = mk.session_key(fv.at);
            let mut tx = Session::new(&sk, fv.at, mode, DEFAULT_WINDOW).unwrap();
            let frame = h(&fv.frame);
            let want = h(&fv.sealed);
            let mut buf = frame.clone();
            buf.resize(frame.len() + 33, 0);
            let n = tx.seal(&mut buf, frame.len()).unwrap();
            assert_eq!(&buf[..n], &want[..], "{} mode {}", v.curve, fv.mode);

            let mut rx = Session::new(&sk, fv.at, mode, DEFAULT_WINDOW).unwrap();
            assert!(rx.verify(&want).is_ok());
            // The tag, the SEQ, the transmitter address and the subtype are
            // covered in both modes.
            for (pos, what) in [
                (want.len() - 1, "tag"),
                (want.len() - 33 + 6, "SEQ"),
                (12, "Address 2"),
                (0, "Frame Control subtype"),
            ] {
                let mut bad = want.clone();
                bad[pos] ^= if pos == 0 { 0x10 } else { 0x01 };
                assert!(
                    rx.verify(&bad).is_err(),
                    "{} mode {}: flipped {what} accepted",
                    v.curve,
                    fv.mode
                );
            }
            // The body (right after the header) is covered in full_auth only.
            let mut body = want.clone();
            body[24] ^= 1;
            let r = rx.verify(&body);
            if mode == AuthMode::Full {
                assert_eq!(r.unwrap_err(), Error::BadMac);
            } else {
                assert!(r.is_ok());
            }
            // A wrong key (another AT) is refused.
            let other = Session::new(&mk.session_key(fv.at ^ 1), fv.at ^ 1, mode, 10).unwrap();
            assert_eq!(other.verify(&want).unwrap_err(), Error::BadMac);
            assert_eq!(rx.open(&want).unwrap().seq(), 1);
            assert_eq!(rx.open(&want).unwrap_err(), Error::SeqOutOfWindow);
        }
    }
}
