//! The IEEE 802.11 Annex M CCMP vectors (M.6.4 CCMP-128, the CCMP-256
//! vector of `ieee80211_vectors.json`) and the Python `cryptography`
//! cross-checks of `ccmp_gcmp_crosscheck.json`, through the batch API on
//! every path, with a byte of each frame flipped afterwards (rejected,
//! frame handed back unchanged).

mod batch_common;
mod ccmp_common;

use batch_common::paths;
use ccmp_common::{hx, load};
use wisec_crypto::batch::{FrameBuf, Path, Status};
use wisec_crypto::ccmp::{Ccmp128, Ccmp256};
use wisec_crypto::Error;

struct Vector {
    tk: Vec<u8>,
    plain: Vec<u8>,
    pn: u64,
    key_id: u8,
    protected: Vec<u8>,
}

fn vectors(suite: &str) -> Vec<Vector> {
    let mut out = Vec::new();
    let annex = load("ieee80211_vectors.json");
    let name = if suite == "ccmp128" {
        "ccmp128_M64"
    } else {
        "ccmp256"
    };
    let v = &annex[name];
    let mut plain = hx(v, "plaintext_mpdu");
    // The Annex M plaintext MPDU shows the header as transmitted
    // (Protected set); protect takes it clear.
    plain[1] &= !0x40;
    out.push(Vector {
        tk: hx(v, "tk"),
        plain,
        pn: u64::from_str_radix(v["pn_be"].as_str().unwrap(), 16).unwrap(),
        key_id: 0,
        protected: hx(v, "expected_mpdu_no_fcs"),
    });
    for v in load("ccmp_gcmp_crosscheck.json")["vectors"]
        .as_array()
        .unwrap()
    {
        if v["suite"] == suite {
            out.push(Vector {
                tk: hx(v, "tk"),
                plain: hx(v, "plaintext_mpdu"),
                pn: v["pn"].as_u64().unwrap(),
                key_id: v["key_id"].as_u64().unwrap() as u8,
                protected: hx(v, "protected_mpdu"),
            });
        }
    }
    out
}

/// A batch call with a key.
type BatchFn = dyn Fn(&[u8], Path, &mut [FrameBuf<'_>]) -> usize;

fn run(suite: &str, protect: &BatchFn, unprotect: &BatchFn) {
    let vs = vectors(suite);
    assert!(vs.len() >= 2);
    for path in paths() {
        for v in &vs {
            // The vector in the middle of a batch of copies of itself with
            // other PNs, so it runs in a lane beside others.
            let room = v.protected.len();
            let mut bufs: Vec<Vec<u8>> = (0..5)
                .map(|_| {
                    let mut b = v.plain.clone();
                    b.resize(room, 0);
                    b
                })
                .collect();
            let mut frames: Vec<FrameBuf<'_>> = bufs
                .iter_mut()
                .enumerate()
                .map(|(i, b)| {
                    let pn = if i == 2 { v.pn } else { v.pn ^ (i as u64 + 1) };
                    FrameBuf::to_protect(b, v.plain.len(), pn, v.key_id)
                })
                .collect();
            assert_eq!(protect(&v.tk, path, &mut frames), 5);
            assert_eq!(frames[2].frame(), &v.protected[..], "{suite} {path:?}");
            assert_ne!(frames[1].frame(), &v.protected[..]);

            // Unprotect the vector and flipped copies: MIC, body, PN0, A2.
            let hlen = wisec_wire::Header::new_checked(&v.protected[..])
                .unwrap()
                .header_len();
            let n = v.protected.len();
            // Last MIC byte, last body byte (CCMP-128) or a MIC byte
            // (CCMP-256), first body byte, PN0, A2.
            let flips = [n - 1, n - 9, hlen + 8, hlen, 10];
            let mut given: Vec<Vec<u8>> = vec![v.protected.clone()];
            for &at in &flips {
                let mut f = v.protected.clone();
                f[at] ^= 0x01;
                given.push(f);
            }
            given.push(v.protected.clone());
            let mut bufs = given.clone();
            let mut frames: Vec<FrameBuf<'_>> =
                bufs.iter_mut().map(|b| FrameBuf::to_unprotect(b)).collect();
            assert_eq!(unprotect(&v.tk, path, &mut frames), 2, "{suite} {path:?}");
            for (i, f) in frames.iter().enumerate() {
                if i == 0 || i == given.len() - 1 {
                    let u = f.unprotected().unwrap();
                    assert_eq!((u.pn(), u.key_id()), (v.pn, v.key_id));
                    assert_eq!(f.frame(), &v.plain[..]);
                } else {
                    assert_eq!(f.status(), Status::Failed(Error::Integrity), "flip {i}");
                    assert_eq!(f.frame(), &given[i][..]);
                }
            }
        }
    }
}

#[test]
fn ccmp128_annex_m_and_crosschecks_through_batches() {
    run(
        "ccmp128",
        &|k, p, f| Ccmp128::new(k).unwrap().protect_batch_with(p, f).unwrap(),
        &|k, p, f| Ccmp128::new(k).unwrap().unprotect_batch_with(p, f).unwrap(),
    );
}

#[test]
fn ccmp256_annex_m_and_crosschecks_through_batches() {
    run(
        "ccmp256",
        &|k, p, f| Ccmp256::new(k).unwrap().protect_batch_with(p, f).unwrap(),
        &|k, p, f| Ccmp256::new(k).unwrap().unprotect_batch_with(p, f).unwrap(),
    );
}
