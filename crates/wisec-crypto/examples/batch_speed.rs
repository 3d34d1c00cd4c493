//! Throughput of CCMP-128/256 one frame at a time against the batch
//! engine on each path this CPU has: GB/s of frame body for 64-, 512- and
//! 1500-byte bodies, the best of repeated runs (on a shared machine the
//! fastest run is the one least disturbed; `wisec bench crypto` reports
//! medians beside the peers).
//!
//! `cargo run --release -p wisec-crypto --example batch_speed [frames] [repeats] [path|all] [body,...]`
//!
//! With `path` (`portable`, `aesni`, `avx2`, `avx512`) only that batch
//! path runs (for profiling); `body` lists the sizes.

use std::hint::black_box;
use std::time::Instant;

use wisec_crypto::batch::{FrameBuf, Path};
use wisec_crypto::ccm::Ccm;
use wisec_crypto::ccmp::{self, Ccmp128, Ccmp256};
use wisec_crypto::FrameProtector;
use wisec_wire::frame_control::data_subtype;
use wisec_wire::{FrameControl, FrameType, Header, HeaderRepr, MacAddr};

fn frame(body: usize, seed: u8) -> Vec<u8> {
    let fc = FrameControl::new(FrameType::Data, data_subtype::QOS_DATA);
    let repr = HeaderRepr {
        frame_control: fc,
        duration: 0,
        addr1: MacAddr([1, 2, 3, 4, 5, seed]),
        addr2: Some(MacAddr([6, 7, 8, 9, 10, 11])),
        addr3: Some(MacAddr([12; 6])),
        sequence_control: Some(0x10),
        addr4: None,
        qos_control: Some(u16::from(seed & 7)),
        ht_control: None,
    };
    let hlen = repr.buffer_len().unwrap();
    let mut f = vec![0u8; hlen + body];
    repr.emit(&mut f).unwrap();
    for (i, b) in f[hlen..].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(31) ^ seed;
    }
    f
}

/// Runs `f` `reps` times after a warm-up; `f` resets its buffers and
/// returns the seconds of its timed part. Returns GB/s for `bytes` per
/// run, of the fastest run.
fn measure(reps: usize, bytes: usize, mut f: impl FnMut() -> f64) -> f64 {
    f();
    (0..reps)
        .map(|_| bytes as f64 / f() / 1e9)
        .fold(0.0, f64::max)
}

fn timed(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

macro_rules! suite {
    ($name:literal, $t:ty, $key:expr, $n:expr, $reps:expr) => {{
        let s = <$t>::new(&$key).unwrap();
        let over = s.overhead().total();
        let mic = s.overhead().trailer;
        for body in ONLY_BODY.with(|b| b.borrow().clone()) {
            let plains: Vec<Vec<u8>> = (0..$n).map(|i| frame(body, i as u8)).collect();
            let bytes = body * $n;
            let mut bufs: Vec<Vec<u8>> = plains.iter().map(|p| vec![0u8; p.len() + over]).collect();
            let reset = |bufs: &mut Vec<Vec<u8>>| {
                for (b, p) in bufs.iter_mut().zip(&plains) {
                    b[..p.len()].copy_from_slice(p);
                }
            };
            let mut row = format!("{:<9} {:>5} B", $name, body);

            if ONLY_PATH.with(|o| o.get().is_none()) {
                // Portable single frame: the RustCrypto-based CCM per frame.
                let ccm = Ccm::new(&$key, mic, 2).unwrap();
                let gbs = {
                    let mut work: Vec<(Vec<u8>, [u8; 13], ccmp::Aad)> = plains
                        .iter()
                        .enumerate()
                        .map(|(i, p)| {
                            let h = Header::new_checked(&p[..]).unwrap();
                            (
                                p[26..].to_vec(),
                                ccmp::nonce(&h, i as u64 + 1).unwrap(),
                                ccmp::aad(&h).unwrap(),
                            )
                        })
                        .collect();
                    measure($reps, bytes, || {
                        timed(|| {
                            for (b, n, a) in work.iter_mut() {
                                let mut tag = [0u8; 16];
                                ccm.encrypt_in_place_detached(n, a.as_bytes(), b, &mut tag[..mic])
                                    .unwrap();
                                black_box(&tag);
                            }
                        })
                    })
                };
                row += &format!("  single-portable {gbs:6.2}");

                // FrameProtector (fused CTR+MAC when the CPU has AES-NI).
                let gbs = measure($reps, bytes, || {
                    reset(&mut bufs);
                    timed(|| {
                        for (i, (b, p)) in bufs.iter_mut().zip(&plains).enumerate() {
                            black_box(s.protect_in_place(b, p.len(), i as u64 + 1, 0).unwrap());
                        }
                    })
                });
                row += &format!("  single-fused {gbs:6.2}");
            }
            for path in Path::ALL.into_iter().filter(|p| p.is_available()) {
                if ONLY_PATH.with(|o| o.get().is_some_and(|o| o != path)) {
                    continue;
                }
                let enc = measure($reps, bytes, || {
                    reset(&mut bufs);
                    let mut frames: Vec<FrameBuf<'_>> = bufs
                        .iter_mut()
                        .zip(&plains)
                        .enumerate()
                        .map(|(i, (b, p))| FrameBuf::to_protect(b, p.len(), i as u64 + 1, 0))
                        .collect();
                    timed(|| assert_eq!(s.protect_batch_with(path, &mut frames).unwrap(), $n))
                });
                // Protected copies to unprotect from.
                reset(&mut bufs);
                {
                    let mut frames: Vec<FrameBuf<'_>> = bufs
                        .iter_mut()
                        .zip(&plains)
                        .enumerate()
                        .map(|(i, (b, p))| FrameBuf::to_protect(b, p.len(), i as u64 + 1, 0))
                        .collect();
                    s.protect_batch_with(path, &mut frames).unwrap();
                }
                let protected = bufs.clone();
                let dec = measure($reps, bytes, || {
                    bufs.clone_from(&protected);
                    let mut frames: Vec<FrameBuf<'_>> =
                        bufs.iter_mut().map(|b| FrameBuf::to_unprotect(b)).collect();
                    timed(|| assert_eq!(s.unprotect_batch_with(path, &mut frames).unwrap(), $n))
                });
                row += &format!("  {} {enc:6.2}/{dec:6.2}", path.name());
            }
            println!("{row}");
        }
    }};
}

thread_local! {
    static ONLY_PATH: std::cell::Cell<Option<Path>> = const { std::cell::Cell::new(None) };
    static ONLY_BODY: std::cell::RefCell<Vec<usize>> = std::cell::RefCell::new(vec![64, 512, 1500]);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1024);
    let reps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(21);
    if let Some(p) = args.next() {
        let path = Path::ALL.into_iter().find(|x| x.name() == p);
        ONLY_PATH.with(|o| o.set(path));
    }
    if let Some(b) = args.next() {
        let sizes: Vec<usize> = b.split(',').filter_map(|x| x.parse().ok()).collect();
        ONLY_BODY.with(|o| *o.borrow_mut() = sizes);
    }
    println!("GB/s of body, best of {reps} runs of {n} frames; batch paths as protect/unprotect");
    suite!("CCMP-128", Ccmp128, [0x42u8; 16], n, reps);
    suite!("CCMP-256", Ccmp256, [0x24u8; 32], n, reps);
}
