//! Targets of wisec-crypto: every suite's unprotect on any frame and key,
//! and protect followed by unprotect giving the frame back.

use crate::Input;
use wisec_crypto::batch::FrameBuf;
use wisec_crypto::ccmp::{Ccmp128, Ccmp256};
use wisec_crypto::keywrap;
use wisec_crypto::replay::ReplayCounter;
use wisec_crypto::suite::{BipKey, DataKey, Suite};
use wisec_crypto::tkip::DangerTkipTkOnly;
use wisec_crypto::FrameProtector;

fn suite(i: &mut Input<'_>) -> Suite {
    Suite::ALL[usize::from(i.u8()) % Suite::ALL.len()]
}

fn key<'a>(i: &mut Input<'a>, s: Suite) -> Vec<u8> {
    let mut k = i.bytes(s.key_len()).to_vec();
    k.resize(s.key_len(), 0);
    k
}

/// Unprotects any frame under any suite and key. A failure leaves the
/// frame as it was (no plaintext behind); a success shortens it by the
/// suite's overhead at least and clears the Protected bit; the replay
/// counter never moves backwards.
pub fn unprotect(data: &[u8]) {
    let mut i = Input::new(data);
    let s = suite(&mut i);
    let k = key(&mut i, s);
    let frame = i.rest();
    let mut buf = frame.to_vec();
    let mut counter = ReplayCounter::new();
    let result = if s.is_bip() {
        let key = BipKey::new(s, &k).expect("a key of the suite's length");
        key.verify(frame)
    } else {
        let key = DataKey::new(s, &k).expect("a key of the suite's length");
        key.unprotect_in_place(&mut buf)
    };
    match result {
        Err(_) => assert_eq!(buf, frame, "{s:?}: a failed unprotect changed the frame"),
        Ok(u) => {
            assert!(u.len() <= frame.len(), "{s:?}: longer after unprotect");
            if !s.is_bip() {
                assert!(
                    u.len() + s.overhead().total() <= frame.len(),
                    "{s:?}: overhead not removed"
                );
                assert_eq!(buf[1] & 0x40, 0, "{s:?}: Protected bit left set");
            }
            counter.accept(&u).expect("a fresh counter accepts any PN");
            assert!(counter.accept(&u).is_err(), "the same PN accepted twice");
            assert_eq!(counter.highest(), Some(u.pn()), "replay counter");
        }
    }
    // The TK-only TKIP path and the CCMP batch engine on the same frame.
    if s == Suite::Tkip || k.len() == 16 {
        let tk = DangerTkipTkOnly::new(&k[..16]).expect("16 octets");
        let mut b = frame.to_vec();
        if tk.danger_unprotect_unverified_in_place(&mut b).is_err() {
            assert_eq!(b, frame, "TK-only TKIP changed a frame it refused");
        }
    }
    batch_unprotect(&k, frame);
    let _ = keywrap::aes_unwrap(&k[..16.min(k.len())], frame, &mut vec![0u8; frame.len()]);
}

fn batch_unprotect(k: &[u8], frame: &[u8]) {
    let mut one = frame.to_vec();
    let mut many = vec![frame.to_vec(); 3];
    let single;
    {
        let mut frames: Vec<FrameBuf<'_>> =
            many.iter_mut().map(|b| FrameBuf::to_unprotect(b)).collect();
        if k.len() == 16 {
            let key = Ccmp128::new(k).expect("16 octets");
            single = key.unprotect_in_place(&mut one).ok();
            key.unprotect_batch(&mut frames);
        } else if k.len() == 32 {
            let key = Ccmp256::new(k).expect("32 octets");
            single = key.unprotect_in_place(&mut one).ok();
            key.unprotect_batch(&mut frames);
        } else {
            return;
        }
        for f in &frames {
            assert_eq!(
                f.unprotected().ok(),
                single,
                "batch and single-frame CCMP disagree"
            );
        }
    }
    if single.is_some() {
        for b in &many {
            assert_eq!(b[..one.len()], one[..], "batch plaintext differs");
        }
    } else {
        for b in &many {
            assert_eq!(b, frame, "batch changed a frame it refused");
        }
    }
}

/// Protects a data (or, for BIP, management) frame and unprotects it
/// again: the result is the frame, the packet number and Key ID are the
/// ones given, and any byte flipped in the protected part is refused.
pub fn roundtrip(data: &[u8]) {
    let mut i = Input::new(data);
    let s = suite(&mut i);
    let k = key(&mut i, s);
    let pn = i.u64() & 0xffff_ffff_ffff;
    let key_id = i.u8();
    let flip = usize::from(i.u16());
    let mut frame = i.chunk(2400).to_vec();
    if frame.len() < 2 {
        return;
    }
    // A data frame for the data suites, a management frame for BIP; the
    // Protected bit clear.
    frame[0] = (frame[0] & 0xf0) | if s.is_bip() { 0x00 } else { 0x08 };
    frame[1] &= !0x40;
    let mut buf = frame.clone();
    buf.resize(frame.len() + s.overhead().total(), 0);
    if s.is_bip() {
        let key = BipKey::new(s, &k).expect("a key of the suite's length");
        let Ok(n) = key.protect_in_place(&mut buf, frame.len(), pn, key_id) else {
            return;
        };
        let u = key.verify(&buf[..n]).expect("BIP verifies its own frame");
        assert_eq!(u.pn(), pn, "BIP IPN");
        assert_eq!(buf[..frame.len()], frame[..], "BIP changed the body");
        let at = frame.len() + flip % (n - frame.len());
        buf[at] ^= 1;
        // The MME's Element ID and Length are not covered by the MIC.
        if at >= frame.len() + 2 {
            assert!(
                key.verify(&buf[..n]).is_err(),
                "BIP accepted a flipped byte"
            );
        }
        return;
    }
    let key = DataKey::new(s, &k).expect("a key of the suite's length");
    let Ok(n) = key.protect_in_place(&mut buf, frame.len(), pn, key_id) else {
        return;
    };
    let protected = buf[..n].to_vec();
    let mut out = protected.clone();
    let u = key
        .unprotect_in_place(&mut out)
        .unwrap_or_else(|e| panic!("{s:?}: unprotect(protect(x)) failed: {e:?}"));
    assert_eq!(
        out[..u.len()],
        frame[..],
        "{s:?}: unprotect(protect(x)) != x"
    );
    if matches!(s, Suite::Wep40 | Suite::Wep104) {
        assert_eq!(u.pn(), pn & 0xff_ffff, "WEP IV");
    } else {
        assert_eq!(u.pn(), pn, "{s:?}: packet number");
    }
    // A flipped byte of the encrypted body or trailer is refused.
    let hl = frame.len() - body_len(&frame);
    let start = hl + s.overhead().header;
    if start < n {
        let at = start + flip % (n - start);
        let mut bad = protected.clone();
        bad[at] ^= 0x01;
        let before = bad.clone();
        assert!(
            key.unprotect_in_place(&mut bad).is_err(),
            "{s:?}: accepted a frame with byte {at} flipped"
        );
        assert_eq!(bad, before, "{s:?}: a refused frame was changed");
    }
}

fn body_len(frame: &[u8]) -> usize {
    let fc = wisec_wire::FrameControl(u16::from_le_bytes([frame[0], frame[1]]));
    let hl = wisec_wire::mac_header::header_len(fc).unwrap_or(frame.len());
    frame.len().saturating_sub(hl)
}
