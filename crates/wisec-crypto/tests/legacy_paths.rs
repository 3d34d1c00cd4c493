//! WEP and TKIP through every entry point (protect in place and into a
//! buffer, unprotect both ways) at every body length 0..=2400, against a
//! reference assembled from the standard's parts: the key mixing
//! (12.5.2.5), Michael over DA || SA || priority || 0 0 0 || MSDU
//! (12.5.2.3.3), the CRC-32 ICV and a plain byte-at-a-time RC4
//! (12.3.2.2). Tampered frames are
//! refused and handed back unchanged; a TKIP frame whose ICV is right and
//! MIC wrong is a Michael failure.

mod legacy_util;

use legacy_util::{rc4_plain, Rng};
use wisec_crypto::crc32::crc32;
use wisec_crypto::michael::michael_mic;
use wisec_crypto::tkip::{phase1, phase2, DangerTkip, TkipRxError};
use wisec_crypto::wep::DangerWep;
use wisec_crypto::{Error, FrameProtector};
use wisec_wire::MacAddr;

/// A data frame, To DS (STA to AP): A1 = BSSID, A2 = SA, A3 = DA.
fn frame(body: &[u8], qos: Option<u8>) -> Vec<u8> {
    let mut f = vec![if qos.is_some() { 0x88 } else { 0x08 }, 0x01, 0, 0];
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x01]);
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x02]);
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x03]);
    f.extend_from_slice(&[0x40, 0x12]);
    if let Some(tid) = qos {
        f.extend_from_slice(&[tid, 0]);
    }
    f.extend_from_slice(body);
    f
}

fn check_paths<P: FrameProtector>(
    name: &str,
    p: &P,
    plain: &[u8],
    pn: u64,
    want: &[u8],
    flip_at: usize,
) {
    let over = p.overhead().total();
    let mut out = vec![0xcc; plain.len() + over];
    let n = p.protect(plain, pn, 1, &mut out).unwrap();
    assert_eq!(&out[..n], want, "{name} protect");
    let mut buf = plain.to_vec();
    buf.resize(plain.len() + over, 0x33);
    let n = p.protect_in_place(&mut buf, plain.len(), pn, 1).unwrap();
    assert_eq!(&buf[..n], want, "{name} protect_in_place");
    let mut rx = want.to_vec();
    let u = p.unprotect_in_place(&mut rx).unwrap();
    assert_eq!((&rx[..u.len()], u.pn()), (plain, pn), "{name}");
    let mut o = vec![0x11; want.len()];
    let u = p.unprotect(want, &mut o).unwrap();
    assert_eq!(&o[..u.len()], plain, "{name} unprotect");
    assert!(o[u.len()..].iter().all(|&b| b == 0), "{name} trailer left");
    // A flipped bit of the encrypted part is refused, the frame unchanged.
    let mut bad = want.to_vec();
    bad[flip_at] ^= 0x04;
    let before = bad.clone();
    assert!(
        p.unprotect_in_place(&mut bad).is_err(),
        "{name} flip {flip_at}"
    );
    assert_eq!(bad, before, "{name} changed a refused frame");
    let mut o = vec![0x11; want.len()];
    assert!(p.unprotect(&before, &mut o).is_err());
    assert!(o.iter().all(|&b| b == 0), "{name} left output");
}

#[test]
fn wep_every_length_against_the_reference() {
    let mut rng = Rng(0x7765_7031);
    for len in 0..=2400usize {
        let key13: Vec<u8> = (0..if len % 2 == 0 { 13 } else { 5 })
            .map(|_| rng.next() as u8)
            .collect();
        let wep = DangerWep::new(&key13).unwrap();
        let mut body = vec![0u8; len];
        rng.fill(&mut body);
        let plain = frame(&body, None);
        let iv = rng.below(1 << 24) as u64;
        // 12.3.2.2: IV || Key ID octet, then RC4(IV || key) over body || ICV.
        let ivb = [(iv >> 16) as u8, (iv >> 8) as u8, iv as u8];
        let mut want = plain[..24].to_vec();
        want[1] |= 0x40;
        want.extend_from_slice(&ivb);
        want.push(1 << 6);
        let mut enc = body.clone();
        enc.extend_from_slice(&crc32(&body).to_le_bytes());
        rc4_plain(&[&ivb[..], &key13[..]].concat(), &mut enc);
        want.extend_from_slice(&enc);
        let flip = 28 + rng.below(len + 4);
        check_paths("WEP", &wep, &plain, iv, &want, flip);
    }
}

#[test]
fn tkip_every_length_against_the_reference() {
    let mut rng = Rng(0x746b_6970);
    for len in 0..=2400usize {
        let mut tk = [0u8; 32];
        rng.fill(&mut tk);
        let tkip = DangerTkip::new(&tk).unwrap();
        let mut body = vec![0u8; len];
        rng.fill(&mut body);
        let qos = (len % 3 == 0).then_some((len % 16) as u8);
        let plain = frame(&body, qos);
        let hl = plain.len() - len;
        let tsc = rng.below(1 << 48) as u64;
        // To DS: from the Supplicant, Michael key at octets 24..32; DA is
        // A3, SA is A2.
        let mut mk = [0u8; 8];
        mk.copy_from_slice(&tk[24..]);
        let da = MacAddr([0x02, 0, 0, 0, 0, 0x03]);
        let sa = MacAddr([0x02, 0, 0, 0, 0, 0x02]);
        let mic = michael_mic(&mk, &da, &sa, qos.unwrap_or(0), &body);
        let mut tk16 = [0u8; 16];
        tk16.copy_from_slice(&tk[..16]);
        let ttak = phase1(&tk16, &sa, (tsc >> 16) as u32);
        let seed = phase2(&tk16, &ttak, tsc as u16);
        let mut enc = body.clone();
        enc.extend_from_slice(&mic);
        let icv = crc32(&enc);
        enc.extend_from_slice(&icv.to_le_bytes());
        rc4_plain(&seed, &mut enc);
        let mut want = plain[..hl].to_vec();
        want[1] |= 0x40;
        let t = tsc.to_le_bytes();
        // 12.5.2.2: TSC1, WEPSeed[1], TSC0, Key ID octet (ExtIV), TSC2..TSC5.
        want.extend_from_slice(&[t[1], (t[1] | 0x20) & 0x7f, t[0], 0x20 | 1 << 6]);
        want.extend_from_slice(&t[2..6]);
        want.extend_from_slice(&enc);
        let flip = hl + 8 + rng.below(len + 12);
        check_paths("TKIP", &tkip, &plain, tsc, &want, flip);
    }
}

#[test]
fn tkip_right_icv_wrong_mic_is_a_michael_failure() {
    let mut tk = [0u8; 32];
    Rng(5).fill(&mut tk);
    let tkip = DangerTkip::new(&tk).unwrap();
    for len in [0usize, 1, 3, 4, 5, 63, 1500] {
        let body: Vec<u8> = (0..len).map(|i| i as u8).collect();
        // The MSDU with a wrong MIC, sent through the MPDU layer (which
        // adds ICV and RC4 but no MIC).
        let mut f = frame(&body, None);
        f.extend_from_slice(&[0xa5; 8]);
        let n0 = f.len();
        f.resize(n0 + 12, 0);
        let n = tkip.protect_mpdu_in_place(&mut f, n0, 77, 0).unwrap();
        let mut rx = f[..n].to_vec();
        let before = rx.clone();
        assert_eq!(
            tkip.unprotect_in_place_detailed(&mut rx),
            Err(TkipRxError::MichaelFailure { tsc: 77, key_id: 0 }),
            "len {len}"
        );
        assert_eq!(rx, before, "len {len}");
        assert_eq!(tkip.unprotect_in_place(&mut rx), Err(Error::Integrity));
        // Into a second buffer: the same refusal, and nothing left there.
        let mut o = vec![0x11; before.len()];
        assert_eq!(tkip.unprotect(&before, &mut o), Err(Error::Integrity));
        assert!(o.iter().all(|&b| b == 0), "len {len}: output left");
    }
}

/// An MPDU too short to carry a Michael MIC (fewer than 8 octets between
/// the TKIP header and the ICV) is refused by every unprotect path alike:
/// a Michael failure when its ICV verifies, an ICV failure when not, and
/// the frame handed back unchanged or the output wiped.
#[test]
fn tkip_frames_too_short_for_a_mic_are_refused_alike() {
    let mut tk = [0u8; 32];
    Rng(9).fill(&mut tk);
    let tkip = DangerTkip::new(&tk).unwrap();
    for len in 0..8usize {
        for flip in [false, true] {
            let body: Vec<u8> = (0..len).map(|i| 0x30 + i as u8).collect();
            let mut f = frame(&body, Some(5));
            let n0 = f.len();
            f.resize(n0 + 12, 0);
            let n = tkip.protect_mpdu_in_place(&mut f, n0, 1234, 2).unwrap();
            let mut rx = f[..n].to_vec();
            if flip {
                // The first octet of the encrypted ICV.
                rx[n - 4] ^= 0x01;
            }
            let before = rx.clone();
            let detailed = tkip.unprotect_in_place_detailed(&mut rx);
            if flip {
                assert_eq!(
                    detailed,
                    Err(TkipRxError::Rejected(Error::Integrity)),
                    "len {len}"
                );
            } else {
                assert_eq!(
                    detailed,
                    Err(TkipRxError::MichaelFailure {
                        tsc: 1234,
                        key_id: 2
                    }),
                    "len {len}"
                );
            }
            assert_eq!(rx, before, "len {len} flip {flip}");
            let mut o = vec![0x11; before.len()];
            assert_eq!(tkip.unprotect(&before, &mut o), Err(Error::Integrity));
            assert!(
                o.iter().all(|&b| b == 0),
                "len {len} flip {flip}: output left"
            );
        }
    }
}
