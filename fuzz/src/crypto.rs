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

/// GCM (any key size, nonce, AAD and data) on every code path this CPU
/// runs against the portable path: the same ciphertext and tag out of
/// place and in place, the data back from `open`, a flipped tag bit
/// refused with the ciphertext left as it was, and the same GMAC. The
/// vector kernels aggregate the GHASH of the AAD and data over blocks in
/// groups, so the edges of those groups are where they can disagree.
pub fn gcm_paths(data: &[u8]) {
    use wisec_crypto::batch::Path;
    use wisec_crypto::gcm::Gcm;

    let mut i = Input::new(data);
    let sel = i.u8();
    let key_len = if sel & 1 == 0 { 16 } else { 32 };
    let mut key = i.bytes(key_len).to_vec();
    key.resize(key_len, 0);
    let mut nonce = [0u8; 12];
    let n = i.bytes(12);
    nonce[..n.len()].copy_from_slice(n);
    let aad = i.chunk(1200);
    let plain = i.rest();
    let portable = Gcm::with_path(&key, Path::Portable).expect("a 16- or 32-octet key");
    let mut want = vec![0u8; plain.len()];
    let want_tag = portable
        .seal(&nonce, aad, plain, &mut want)
        .expect("lengths far below GCM's limits");
    let mut back = want.clone();
    portable
        .open_in_place(&nonce, aad, &mut back, &want_tag)
        .expect("the portable path opens what it sealed");
    assert_eq!(back, plain, "portable open");
    for path in Path::ALL
        .into_iter()
        .filter(|&p| p != Path::Portable && Gcm::path_available(p))
    {
        let name = path.name();
        let g = Gcm::with_path(&key, path).expect("an available path");
        let mut ct = vec![0u8; plain.len()];
        let tag = g.seal(&nonce, aad, plain, &mut ct).expect("seal");
        assert_eq!((&ct, tag), (&want, want_tag), "{name}: seal differs");
        let mut inplace = plain.to_vec();
        let tag = g.seal_in_place(&nonce, aad, &mut inplace).expect("seal");
        assert_eq!((&inplace, tag), (&want, want_tag), "{name}: in place");
        g.open_in_place(&nonce, aad, &mut inplace, &want_tag)
            .expect("opens the portable path's output");
        assert_eq!(inplace, plain, "{name}: open");
        let mut bad = want_tag;
        bad[usize::from(sel >> 4)] ^= 1 << ((sel >> 1) & 7);
        let mut b = want.clone();
        assert!(
            g.open_in_place(&nonce, aad, &mut b, &bad).is_err(),
            "{name}: a flipped tag bit accepted"
        );
        assert_eq!(b, want, "{name}: a refused open changed the data");
        assert_eq!(
            g.gmac(&nonce, plain).ok(),
            portable.gmac(&nonce, plain).ok(),
            "{name}: GMAC differs"
        );
    }
}
