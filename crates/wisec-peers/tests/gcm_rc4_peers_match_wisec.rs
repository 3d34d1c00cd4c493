//! The GCM peers (OpenSSL EVP AES-GCM, Intel ipsec-mb best path and AVX2)
//! produce wisec's GCMP ciphertext and MIC, open wisec's frames and reject
//! tampered ones; the RC4 peer (OpenSSL's legacy provider) reproduces RFC
//! 6229 and the RC4 part of wisec's WEP and TKIP frames. The Annex vectors
//! tie both to the standard.
//!
//! A peer missing from this build fails the test unless
//! `WISEC_ALLOW_MISSING_PEERS` is set.

mod common;

use common::{hexv, vectors};
use wisec_crypto::gcmp::{self, Gcmp128, Gcmp256};
use wisec_crypto::tkip::{phase1, phase2, DangerTkip};
use wisec_crypto::wep::DangerWep;
use wisec_crypto::{ccmp, FrameProtector};
use wisec_peers::{gcm_peers, rc4_peer, GcmMsg, GcmPeer, PeerError, Rc4Msg, Rc4Peer};
use wisec_wire::mac_header::Header;
use wisec_wire::MacAddr;

fn allow_missing() -> bool {
    std::env::var_os("WISEC_ALLOW_MISSING_PEERS").is_some()
}

fn peers(key: &[u8]) -> Vec<Box<dyn GcmPeer>> {
    let mut v = Vec::new();
    for (name, p) in gcm_peers(key) {
        match p {
            Ok(p) => v.push(p),
            Err(reason) if allow_missing() => eprintln!("peer {name} missing: {reason}"),
            Err(reason) => {
                panic!("peer {name} missing: {reason} (set WISEC_ALLOW_MISSING_PEERS=1 to accept)")
            }
        }
    }
    v
}

/// Nonce, AAD and body of a plaintext MPDU, as GCMP builds them.
fn parts(plain: &[u8], pn: u64) -> ([u8; 12], Vec<u8>, Vec<u8>) {
    let h = Header::new_checked(plain).unwrap();
    let nonce = gcmp::nonce(&h, pn).unwrap();
    let aad = ccmp::aad(&h).unwrap().as_bytes().to_vec();
    (nonce, aad, plain[h.header_len()..].to_vec())
}

/// Checks every GCM peer against `protected`, wisec's GCMP MPDU of `plain`.
fn check_frame(peers: &mut [Box<dyn GcmPeer>], plain: &[u8], pn: u64, protected: &[u8]) {
    let (nonce, aad, body) = parts(plain, pn);
    let start = plain.len() - body.len() + 8;
    let want_ct = &protected[start..start + body.len()];
    let want_mic = &protected[start + body.len()..];
    assert_eq!(want_mic.len(), 16);
    for p in peers.iter_mut() {
        let name = p.name();
        common::seals_and_opens_like_wisec(
            name,
            |m, seal| if seal { p.seal(m) } else { p.open(m) },
            &nonce,
            &aad,
            &body,
            want_ct,
            want_mic,
        );

        // A flipped MIC, ciphertext, AAD (A2) or nonce (PN0) byte is
        // rejected, and the output is wiped.
        common::refuses_tampering(name, |m| p.open(m), &nonce, &aad, want_ct, want_mic, 10, 11);
    }
}

#[test]
fn gcmp_annex_vectors() {
    // IEEE P802.11ac/D7.0 M.11.1 (GCMP-256), from the vectors file: wisec
    // reproduces the standard's protected MPDU, and so do the peers.
    let t = &vectors()["gcmp256"];
    let tk = hexv(&t["tk"]);
    let mut plain = hexv(&t["plaintext_mpdu"]);
    plain[1] &= !0x40;
    let expected = hexv(&t["expected_mpdu_no_fcs"]);
    let pn = u64::from_str_radix(t["pn_be"].as_str().unwrap(), 16).unwrap();
    let mut out = vec![0u8; expected.len()];
    let n = Gcmp256::new(&tk)
        .unwrap()
        .protect(&plain, pn, 0, &mut out)
        .unwrap();
    assert_eq!(&out[..n], &expected[..]);
    let mut ps = peers(&tk);
    check_frame(&mut ps, &plain, pn, &expected);
}

/// A plaintext QoS data MPDU with a `body`.
fn frame(tid: u8, body: &[u8]) -> Vec<u8> {
    let mut f = vec![0x88, 0x01, 0x2c, 0x00];
    f.extend_from_slice(&[0x02, 0x11, 0x22, 0x33, 0x44, 0x55]);
    f.extend_from_slice(&[0x02, 0x66, 0x77, 0x88, 0x99, 0xaa]);
    f.extend_from_slice(&[0x02, 0xbb, 0xcc, 0xdd, 0xee, 0xff]);
    f.extend_from_slice(&[0x30, 0x12, tid & 0x0f, 0x00]);
    f.extend_from_slice(body);
    f
}

#[test]
fn gcmp_every_length_both_key_sizes() {
    for key in [vec![0x5au8; 16], vec![0xa5u8; 32]] {
        let mut ps = peers(&key);
        let sizes = (0..=80).chain([250, 500, 750, 1000, 1500, 2304]);
        for len in sizes {
            let body: Vec<u8> = (0..len).map(|i| (i * 13 + 1) as u8).collect();
            let plain = frame(3, &body);
            let pn = 7 + len as u64;
            let mut out = vec![0u8; plain.len() + 24];
            let n = if key.len() == 16 {
                Gcmp128::new(&key).unwrap().protect(&plain, pn, 1, &mut out)
            } else {
                Gcmp256::new(&key).unwrap().protect(&plain, pn, 1, &mut out)
            }
            .unwrap();
            check_frame(&mut ps, &plain, pn, &out[..n]);
        }
    }
}

#[test]
fn gcm_batches_keep_messages_apart() {
    let key = [0x17u8; 16];
    let wisec = Gcmp128::new(&key).unwrap();
    for mut p in peers(&key) {
        let frames: Vec<(Vec<u8>, u64)> = (0..37usize)
            .map(|i| {
                let body: Vec<u8> = (0..(i * 53) % 1700).map(|j| (i ^ j) as u8).collect();
                (frame(i as u8, &body), 100 + i as u64)
            })
            .collect();
        let parts: Vec<_> = frames.iter().map(|(f, pn)| parts(f, *pn)).collect();
        let mut cts: Vec<Vec<u8>> = parts.iter().map(|p| vec![0; p.2.len()]).collect();
        let mut tags: Vec<Vec<u8>> = parts.iter().map(|_| vec![0; 16]).collect();
        let mut msgs: Vec<GcmMsg<'_>> = parts
            .iter()
            .zip(cts.iter_mut())
            .zip(tags.iter_mut())
            .map(|((p, ct), tag)| GcmMsg {
                nonce: &p.0,
                aad: &p.1,
                input: &p.2,
                output: ct,
                tag,
            })
            .collect();
        p.seal(&mut msgs).unwrap();
        drop(msgs);
        for (i, (f, pn)) in frames.iter().enumerate() {
            let mut out = vec![0u8; f.len() + 24];
            let n = wisec.protect(f, *pn, 0, &mut out).unwrap();
            let at = f.len() - parts[i].2.len() + 8;
            assert_eq!(cts[i], &out[at..n - 16], "{} frame {i}", p.name());
            assert_eq!(tags[i], &out[n - 16..n], "{} frame {i}", p.name());
        }
        tags[20][3] ^= 1;
        let mut pts: Vec<Vec<u8>> = parts.iter().map(|p| vec![0xee; p.2.len()]).collect();
        let mut msgs: Vec<GcmMsg<'_>> = parts
            .iter()
            .zip(cts.iter())
            .zip(pts.iter_mut())
            .zip(tags.iter_mut())
            .map(|(((p, ct), pt), tag)| GcmMsg {
                nonce: &p.0,
                aad: &p.1,
                input: ct,
                output: pt,
                tag,
            })
            .collect();
        assert_eq!(p.open(&mut msgs), Err(PeerError::Integrity { index: 20 }));
        drop(msgs);
        for (i, pt) in pts.iter().enumerate() {
            if i == 20 {
                assert!(pt.iter().all(|&b| b == 0), "{}", p.name());
            } else {
                assert_eq!(pt, &parts[i].2, "{} frame {i}", p.name());
            }
        }
    }
}

fn rc4() -> Option<Box<dyn Rc4Peer>> {
    match rc4_peer() {
        Ok(p) => Some(p),
        Err(reason) if allow_missing() => {
            eprintln!("peer openssl-rc4 missing: {reason}");
            None
        }
        Err(reason) => {
            panic!("peer openssl-rc4 missing: {reason} (set WISEC_ALLOW_MISSING_PEERS=1 to accept)")
        }
    }
}

#[test]
fn rc4_rfc6229() {
    // RFC 6229, section 2: key 0x0102030405 at offsets 0 and 4096, and the
    // 256-bit key 0x0102..20 at offset 0, per message and as a stream.
    let Some(mut p) = rc4() else { return };
    let k40 = [1u8, 2, 3, 4, 5];
    let zeros = vec![0u8; 4112];
    let mut ks = vec![0u8; 4112];
    p.apply(&mut [Rc4Msg {
        key: &k40,
        input: &zeros,
        output: &mut ks,
    }])
    .unwrap();
    assert_eq!(hex::encode(&ks[..16]), "b2396305f03dc027ccc3524a0a1118a8");
    assert_eq!(hex::encode(&ks[4096..]), "ff25b58995996707e51fbdf08b34d875");
    let k256: Vec<u8> = (1..=32).collect();
    let mut ks = [0u8; 16];
    p.apply(&mut [Rc4Msg {
        key: &k256,
        input: &[0u8; 16],
        output: &mut ks,
    }])
    .unwrap();
    assert_eq!(hex::encode(ks), "eaa6bd25880bf93d3f5d1e4ca2611d91");
    // The stream continues across calls.
    p.set_stream_key(&k40).unwrap();
    let mut a = [0u8; 4096];
    p.stream(&[0u8; 4096], &mut a).unwrap();
    let mut b = [0u8; 16];
    p.stream(&[0u8; 16], &mut b).unwrap();
    assert_eq!(hex::encode(b), "ff25b58995996707e51fbdf08b34d875");
}

#[test]
fn rc4_reproduces_wep_and_tkip_frames() {
    let Some(mut p) = rc4() else { return };
    // WEP-104: the RC4 key is IV || key (12.3.2.2); RC4 covers body || ICV.
    let key13: Vec<u8> = (0..13).map(|i| 0x40 + i as u8).collect();
    let wep = DangerWep::new(&key13).unwrap();
    // TKIP: the per-frame key from the two key-mixing phases (12.5.2.5);
    // RC4 covers body || MIC || ICV.
    let tk: Vec<u8> = (0..32).map(|i| 0x90 ^ i as u8).collect();
    let tkip = DangerTkip::new(&tk).unwrap();
    for len in [0usize, 1, 16, 64, 250, 1500, 2304] {
        let body: Vec<u8> = (0..len).map(|i| (i * 31) as u8).collect();
        let mut plain = frame(0, &body);
        plain[0] = 0x08; // plain data: TKIP's Michael key follows To DS
        plain.drain(24..26);
        let iv = 0x0a0b0c + len as u64;
        let mut out = vec![0u8; plain.len() + 8];
        let n = wep.protect(&plain, iv, 1, &mut out).unwrap();
        let seed: Vec<u8> = [&out[24..27], &key13[..]].concat();
        let mut icv_plain = body.clone();
        icv_plain.extend_from_slice(&wisec_crypto::crc32::crc32(&body).to_le_bytes());
        let mut got = vec![0u8; icv_plain.len()];
        p.apply(&mut [Rc4Msg {
            key: &seed,
            input: &icv_plain,
            output: &mut got,
        }])
        .unwrap();
        assert_eq!(&got[..], &out[28..n], "WEP-104, body {len}");

        let tsc = 0x0102_0304_0506 + len as u64;
        let mut out = vec![0u8; plain.len() + 20];
        let n = tkip.protect(&plain, tsc, 0, &mut out).unwrap();
        let mut tk16 = [0u8; 16];
        tk16.copy_from_slice(&tk[..16]);
        let ta = MacAddr([0x02, 0x66, 0x77, 0x88, 0x99, 0xaa]);
        let ttak = phase1(&tk16, &ta, (tsc >> 16) as u32);
        let seed = phase2(&tk16, &ttak, tsc as u16);
        // Decrypt the frame's RC4 region with the peer: body || MIC, then
        // an ICV over both.
        let region = &out[24 + 8..n];
        let mut clear = vec![0u8; region.len()];
        p.apply(&mut [Rc4Msg {
            key: &seed,
            input: region,
            output: &mut clear,
        }])
        .unwrap();
        assert_eq!(&clear[..len], &body[..], "TKIP body, {len}");
        let (msdu_mic, icv) = clear.split_at(clear.len() - 4);
        assert_eq!(
            icv,
            &wisec_crypto::crc32::crc32(msdu_mic).to_le_bytes(),
            "TKIP ICV, {len}"
        );
    }
}
