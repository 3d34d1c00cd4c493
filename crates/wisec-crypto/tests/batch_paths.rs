//! Every batch path (avx512, avx2, aesni, portable) and the fused
//! single-frame path against an independent single-frame CCMP reference
//! (`batch_common::reference_protect`, portable CCM): every body length
//! 0..=2400, random keys, PNs and header kinds, batches of mixed lengths
//! and sizes 1..=64, tampered frames in the middle of a batch.

mod batch_common;

use batch_common::{paths, random_frame, reference_protect, Rng};
use wisec_crypto::batch::{FrameBuf, Path, Status};
use wisec_crypto::ccmp::{Ccmp128, Ccmp256};
use wisec_crypto::{Error, FrameProtector};

/// One suite, seen through the batch API.
trait Batch: FrameProtector {
    fn protect_with(&self, p: Path, f: &mut [FrameBuf<'_>]) -> usize;
    fn unprotect_with(&self, p: Path, f: &mut [FrameBuf<'_>]) -> usize;
}

macro_rules! batch {
    ($t:ty) => {
        impl Batch for $t {
            fn protect_with(&self, p: Path, f: &mut [FrameBuf<'_>]) -> usize {
                self.protect_batch_with(p, f).unwrap()
            }
            fn unprotect_with(&self, p: Path, f: &mut [FrameBuf<'_>]) -> usize {
                self.unprotect_batch_with(p, f).unwrap()
            }
        }
    };
}
batch!(Ccmp128);
batch!(Ccmp256);

struct Case {
    plain: Vec<u8>,
    pn: u64,
    key_id: u8,
    expected: Vec<u8>,
}

fn cases(rng: &mut Rng, key: &[u8], lens: &[usize]) -> Vec<Case> {
    lens.iter()
        .map(|&n| {
            let plain = random_frame(rng, n);
            let pn = rng.below(1 << 48);
            let key_id = rng.below(4) as u8;
            let expected = reference_protect(key, &plain, pn, key_id);
            Case {
                plain,
                pn,
                key_id,
                expected,
            }
        })
        .collect()
}

/// Protects `cases` as one batch on `path`, checks every frame against
/// the reference, unprotects the batch with the frames listed in `tamper`
/// modified and checks that exactly those fail, unchanged.
fn check_batch(s: &dyn Batch, path: Path, cases: &[Case], tamper: &[(usize, usize, u8)]) {
    let mic = s.overhead().trailer;
    let mut bufs: Vec<Vec<u8>> = cases
        .iter()
        .map(|c| {
            let mut b = c.plain.clone();
            b.resize(c.plain.len() + 8 + mic, 0xee);
            b
        })
        .collect();
    let mut frames: Vec<FrameBuf<'_>> = bufs
        .iter_mut()
        .zip(cases)
        .map(|(b, c)| FrameBuf::to_protect(b, c.plain.len(), c.pn, c.key_id))
        .collect();
    assert_eq!(s.protect_with(path, &mut frames), cases.len(), "{path:?}");
    for (f, c) in frames.iter().zip(cases) {
        assert_eq!(f.status(), Status::Protected(c.expected.len()));
        assert_eq!(
            f.frame(),
            &c.expected[..],
            "{path:?}: body {} of a batch of {}",
            c.plain.len(),
            cases.len()
        );
    }
    drop(frames);

    // Unprotect, some frames tampered with.
    let mut given: Vec<Vec<u8>> = cases.iter().map(|c| c.expected.clone()).collect();
    for &(i, at, mask) in tamper {
        let n = given[i].len();
        given[i][at % n] ^= mask;
    }
    let mut bufs = given.clone();
    let mut frames: Vec<FrameBuf<'_>> =
        bufs.iter_mut().map(|b| FrameBuf::to_unprotect(b)).collect();
    let ok = s.unprotect_with(path, &mut frames);
    let mut bad = 0;
    for (i, (f, c)) in frames.iter().zip(cases).enumerate() {
        if tamper.iter().any(|t| t.0 == i) && given[i] != c.expected {
            bad += 1;
            assert_eq!(
                f.status(),
                Status::Failed(Error::Integrity),
                "{path:?} frame {i}"
            );
            assert_eq!(f.frame(), &given[i][..], "{path:?}: frame {i} not restored");
            // The single-frame path agrees.
            let mut one = given[i].clone();
            assert_eq!(s.unprotect_in_place(&mut one), Err(Error::Integrity));
        } else {
            let u = f.unprotected().unwrap();
            assert_eq!(
                (u.len(), u.pn(), u.key_id()),
                (c.plain.len(), c.pn, c.key_id)
            );
            // Only Protected differs from the plaintext given (it was
            // clear); the removed header and MIC are wiped.
            assert_eq!(f.frame(), &c.plain[..], "{path:?} frame {i}");
            assert!(f.buffer()[c.plain.len()..].iter().all(|&x| x == 0));
        }
    }
    assert_eq!(ok, cases.len() - bad);
}

fn suites(rng: &mut Rng) -> Vec<(Vec<u8>, Box<dyn Batch>)> {
    let k128: [u8; 16] = rng.bytes();
    let k256: [u8; 32] = rng.bytes();
    vec![
        (k128.to_vec(), Box::new(Ccmp128::new(&k128).unwrap())),
        (k256.to_vec(), Box::new(Ccmp256::new(&k256).unwrap())),
    ]
}

#[test]
fn every_length_0_to_2400_on_every_path() {
    let mut rng = Rng(0x5eed_0001);
    let lens: Vec<usize> = (0..=2400).collect();
    for path in paths() {
        for (key, s) in suites(&mut rng) {
            let all = cases(&mut rng, &key, &lens);
            // Batches of every size 1..=64 in turn, over all lengths.
            let mut at = 0;
            let mut size = 1;
            while at < all.len() {
                let end = (at + size).min(all.len());
                check_batch(s.as_ref(), path, &all[at..end], &[]);
                at = end;
                size = size % 64 + 1;
            }
        }
    }
}

/// Bodies of more than 255 blocks: the vector kernels step only the low
/// octet of the CCM counter and end a run where a lane's octet wraps, then
/// carry into the next octet. Lanes of one batch wrap at different steps
/// (bodies of different lengths, refilled as short frames end), some twice
/// or more in one run of the body pass; the longest body the engine takes
/// (65535 octets) wraps 16 times. A tampered long frame must still fail.
#[test]
fn long_bodies_carry_the_counter_across_octets() {
    let mut rng = Rng(0x5eed_0005);
    // Around one wrap (block 254 uses counter 255), two, and the limit.
    let mut lens: Vec<usize> = (4040..=4120).step_by(5).collect();
    lens.extend([0, 15, 16, 100, 1500, 2304, 8150, 8168, 8192, 12001]);
    lens.extend([30000, 65519, 65535]);
    for path in paths() {
        for (key, s) in suites(&mut rng) {
            // A different order per suite and path, so that different
            // lanes hold the long bodies.
            for i in (1..lens.len()).rev() {
                lens.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let all = cases(&mut rng, &key, &lens);
            let long = lens.iter().position(|&n| n == 65535).unwrap();
            // A body octet (past any header and the CCMP header).
            let tamper = [(long, 64 + rng.below(65000) as usize, 0x10)];
            check_batch(s.as_ref(), path, &all, &tamper);
            // Batches whose longest body sits at the edge: 254 full
            // blocks end on counter 255, 255 take counter 256.
            for edge in [4063, 4064, 4079, 4080, 4095, 4096] {
                let all = cases(&mut rng, &key, &[100, edge, 17, edge, 2304]);
                check_batch(s.as_ref(), path, &all, &[]);
            }
        }
    }
}

#[test]
fn mixed_batches_with_tampered_frames_in_the_middle() {
    let mut rng = Rng(0x5eed_0002);
    for path in paths() {
        for (key, s) in suites(&mut rng) {
            for round in 0..12 {
                let n = 1 + rng.below(if round < 6 { 64 } else { 200 }) as usize;
                let lens: Vec<usize> = (0..n)
                    .map(|_| match rng.below(4) {
                        0 => rng.below(48) as usize,
                        1 => 1500,
                        _ => rng.below(2401) as usize,
                    })
                    .collect();
                let all = cases(&mut rng, &key, &lens);
                let mut tamper = Vec::new();
                for _ in 0..1 + n / 8 {
                    let i = rng.below(n as u64) as usize;
                    // Fields the MIC covers: MIC, body, PN, A1..A3.
                    let len = all[i].expected.len();
                    let hlen = Header::new_checked(&all[i].expected[..])
                        .unwrap()
                        .header_len();
                    let at = match rng.below(4) {
                        0 => len - 1,
                        1 => hlen + 8 + rng.below((len - hlen - 8) as u64) as usize,
                        2 => 4 + rng.below(18) as usize,
                        _ => [hlen, hlen + 1, hlen + 4, hlen + 7][rng.below(4) as usize],
                    };
                    tamper.push((i, at, 1u8 << rng.below(8)));
                }
                check_batch(s.as_ref(), path, &all, &tamper);
            }
        }
    }
}

#[test]
fn fused_single_frame_every_length() {
    // Ccmp128/256's FrameProtector runs the fused path when the CPU has
    // AES-NI (the portable CCM otherwise): same output either way.
    if !Path::AesNi.is_available() {
        println!("note: no AES-NI, the fused path is not in use");
    }
    let mut rng = Rng(0x5eed_0003);
    for (key, s) in suites(&mut rng) {
        let mic = s.overhead().trailer;
        for body in 0..=2400usize {
            let plain = random_frame(&mut rng, body);
            let pn = rng.below(1 << 48);
            let expected = reference_protect(&key, &plain, pn, 1);
            let mut out = vec![0u8; plain.len() + 8 + mic];
            let n = s.protect(&plain, pn, 1, &mut out).unwrap();
            assert_eq!(&out[..n], &expected[..], "body {body}");
            let u = s.unprotect_in_place(&mut out).unwrap();
            assert_eq!(&out[..u.len()], &plain[..]);
            // Flip a body or MIC byte: rejected, frame handed back as is.
            let mut bad = expected.clone();
            let i = bad.len() - 1 - rng.below((body + mic) as u64) as usize;
            bad[i] ^= 0x10;
            let mut b = bad.clone();
            assert_eq!(s.unprotect_in_place(&mut b), Err(Error::Integrity));
            assert_eq!(b, bad);
        }
    }
}

#[test]
fn invalid_frames_fail_like_the_single_frame_path() {
    let mut rng = Rng(0x5eed_0004);
    let key: [u8; 16] = rng.bytes();
    let s = Ccmp128::new(&key).unwrap();
    for path in paths() {
        let good = random_frame(&mut rng, 100);
        let ack = vec![0xd4, 0, 0, 0, 1, 2, 3, 4, 5, 6];
        let mut protected_already = good.clone();
        protected_already[1] |= 0x40;
        let inputs: Vec<(Vec<u8>, usize, u64, u8)> = vec![
            (good.clone(), good.len() + 16, 1, 0),
            (ack.clone(), ack.len() + 16, 1, 0),
            (good.clone(), good.len() + 15, 1, 0),
            (good.clone(), good.len() + 16, 1 << 48, 0),
            (good.clone(), good.len() + 16, 1, 4),
            (protected_already.clone(), good.len() + 16, 1, 0),
            (good[..10].to_vec(), 26, 1, 0),
            (good.clone(), good.len() + 16, 7, 3),
        ];
        let mut bufs: Vec<Vec<u8>> = inputs
            .iter()
            .map(|(f, room, _, _)| {
                let mut b = f.clone();
                b.resize(*room, 0);
                b
            })
            .collect();
        let mut frames: Vec<FrameBuf<'_>> = bufs
            .iter_mut()
            .zip(&inputs)
            .map(|(b, (f, _, pn, kid))| FrameBuf::to_protect(b, f.len(), *pn, *kid))
            .collect();
        assert_eq!(s.protect_batch_with(path, &mut frames).unwrap(), 2);
        for (f, (plain, room, pn, kid)) in frames.iter().zip(&inputs) {
            let mut one = plain.clone();
            one.resize(*room, 0);
            let single = s.protect_in_place(&mut one, plain.len(), *pn, *kid);
            assert_eq!(f.protected_len(), single, "{path:?}");
            match single {
                Ok(n) => assert_eq!(f.frame(), &one[..n]),
                // Untouched on failure.
                Err(_) => assert_eq!(f.buffer(), &one[..]),
            }
        }
        // Unprotect side: not protected, truncated, ExtIV clear, control.
        let prot = reference_protect(&key, &good, 9, 2);
        let mut no_extiv = prot.clone();
        let hlen = Header::new_checked(&prot[..]).unwrap().header_len();
        no_extiv[hlen + 3] &= !0x20;
        let inputs = [
            prot.clone(),
            good.clone(),
            prot[..hlen + 8 + 7].to_vec(),
            no_extiv,
            ack.clone(),
            prot.clone(),
        ];
        let mut bufs = inputs.to_vec();
        let mut frames: Vec<FrameBuf<'_>> =
            bufs.iter_mut().map(|b| FrameBuf::to_unprotect(b)).collect();
        assert_eq!(s.unprotect_batch_with(path, &mut frames).unwrap(), 2);
        for (f, given) in frames.iter().zip(&inputs) {
            let mut one = given.clone();
            let single = s.unprotect_in_place(&mut one);
            assert_eq!(f.unprotected(), single, "{path:?}");
            if single.is_err() {
                assert_eq!(f.frame(), &given[..]);
            }
        }
    }
}

use wisec_wire::Header;

#[test]
fn unavailable_paths_are_refused() {
    let s = Ccmp128::new(&[1u8; 16]).unwrap();
    for p in Path::ALL {
        let r = s.protect_batch_with(p, &mut []);
        assert_eq!(r.is_ok(), p.is_available(), "{p:?}");
    }
    assert!(Path::Portable.is_available());
    assert!(Path::best().is_available());
}
