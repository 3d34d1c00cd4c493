//! Property tests of the batch engine: random batches agree with the
//! independent single-frame reference on every path; arbitrary bytes
//! never make a batch panic and are handed back unchanged when refused.

mod batch_common;

use batch_common::{random_frame, reference_protect, Rng};
use proptest::prelude::*;
use wisec_crypto::batch::{FrameBuf, Path, Status};
use wisec_crypto::ccmp::{Ccmp128, Ccmp256};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_batches_match_reference(
        seed in any::<u64>(),
        lens in prop::collection::vec(0usize..=2400, 1..=64),
        wide in any::<bool>(),
    ) {
        let mut rng = Rng(seed);
        let key: Vec<u8> = if wide { rng.bytes::<32>().to_vec() } else { rng.bytes::<16>().to_vec() };
        let over = if wide { 24 } else { 16 };
        let plains: Vec<Vec<u8>> = lens.iter().map(|&n| random_frame(&mut rng, n)).collect();
        let pns: Vec<u64> = lens.iter().map(|_| rng.below(1 << 48)).collect();
        for path in Path::ALL.into_iter().filter(|p| p.is_available()) {
            let mut bufs: Vec<Vec<u8>> = plains.iter().map(|p| {
                let mut b = p.clone();
                b.resize(p.len() + over, 0);
                b
            }).collect();
            let mut frames: Vec<FrameBuf<'_>> = bufs.iter_mut().zip(&plains).zip(&pns)
                .map(|((b, p), &pn)| FrameBuf::to_protect(b, p.len(), pn, 1))
                .collect();
            let ok = if wide {
                Ccmp256::new(&key).unwrap().protect_batch_with(path, &mut frames).unwrap()
            } else {
                Ccmp128::new(&key).unwrap().protect_batch_with(path, &mut frames).unwrap()
            };
            prop_assert_eq!(ok, lens.len());
            for ((f, p), &pn) in frames.iter().zip(&plains).zip(&pns) {
                prop_assert_eq!(f.frame(), &reference_protect(&key, p, pn, 1)[..], "{:?}", path);
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(
        frames in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..120), 1..40),
        key in any::<[u8; 16]>(),
    ) {
        let s = Ccmp128::new(&key).unwrap();
        for path in Path::ALL.into_iter().filter(|p| p.is_available()) {
            let mut bufs = frames.clone();
            let mut fb: Vec<FrameBuf<'_>> = bufs.iter_mut().map(|b| FrameBuf::to_unprotect(b)).collect();
            let ok = s.unprotect_batch_with(path, &mut fb).unwrap();
            prop_assert_eq!(ok, 0);
            for (f, given) in fb.iter().zip(&frames) {
                prop_assert!(matches!(f.status(), Status::Failed(_)));
                prop_assert_eq!(f.frame(), &given[..]);
            }
            // Protect with lengths beyond the buffers, too.
            let mut bufs = frames.clone();
            let mut fb: Vec<FrameBuf<'_>> = bufs.iter_mut().map(|b| {
                let n = b.len();
                FrameBuf::to_protect(b, n.saturating_sub(10) + (n % 3) * 10, 5, 0)
            }).collect();
            s.protect_batch_with(path, &mut fb).unwrap();
        }
    }
}
