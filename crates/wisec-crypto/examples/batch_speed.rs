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
//!
//! `batch_speed ceiling` measures the AES round instruction (latency and
//! throughput on xmm, ymm, zmm) and the core clock, and prints the CCM
//! bounds they set.

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
    #[cfg(target_arch = "x86_64")]
    if std::env::args().nth(1).as_deref() == Some("ceiling") {
        ceiling::run();
        return;
    }
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

/// `batch_speed ceiling`: the AES round instruction's latency and
/// throughput at each vector width and the core clock, measured here, and
/// the CCM bounds they give (CCM-128 costs 20 AES rounds per 16-byte
/// block: 10 for the CBC-MAC, 10 for CTR).
#[cfg(target_arch = "x86_64")]
mod ceiling {
    use std::arch::x86_64::*;
    use std::time::Instant;

    const N: u64 = 200_000;

    /// Best of 200 runs of `f`, in seconds per unit `f` reports.
    fn best(f: impl Fn() -> (f64, u64)) -> f64 {
        (0..200)
            .map(|_| {
                let (s, n) = f();
                s / n as f64
            })
            .fold(f64::MAX, f64::min)
    }

    fn timed<T>(f: impl FnOnce() -> T) -> f64 {
        let t = Instant::now();
        std::hint::black_box(f());
        t.elapsed().as_secs_f64()
    }

    /// Seconds per cycle: a chain of dependent 64-bit multiplies (3 cycles
    /// each on current x86 cores).
    fn cycle() -> f64 {
        best(|| {
            let mut x: u64 = std::hint::black_box(3);
            let s = timed(|| {
                for _ in 0..N {
                    for _ in 0..8 {
                        x = std::hint::black_box(x).wrapping_mul(x);
                    }
                }
                x
            });
            (s, N * 8 * 3)
        })
    }

    macro_rules! width {
        ($name:ident, $feat:literal, $t:ty, $set:expr, $enc:ident) => {
            /// (latency, reciprocal throughput) in seconds.
            #[target_feature(enable = $feat)]
            unsafe fn $name() -> (f64, f64) {
                let k: $t = $set(7);
                let lat = best(|| {
                    let mut x: $t = $set(1);
                    let s = timed(|| {
                        for _ in 0..N {
                            for _ in 0..8 {
                                x = $enc(x, k);
                            }
                        }
                        x
                    });
                    (s, N * 8)
                });
                let tput = best(|| {
                    let mut x: [$t; 12] = core::array::from_fn(|i| $set(i as i32));
                    let s = timed(|| {
                        for _ in 0..N {
                            for v in x.iter_mut() {
                                *v = $enc(*v, k);
                            }
                        }
                        x
                    });
                    (s, N * 12)
                });
                (lat, tput)
            }
        };
    }
    width!(xmm, "aes", __m128i, _mm_set1_epi32, _mm_aesenc_si128);
    width!(
        ymm,
        "avx2,vaes",
        __m256i,
        _mm256_set1_epi32,
        _mm256_aesenc_epi128
    );
    width!(
        zmm,
        "avx512f,vaes",
        __m512i,
        _mm512_set1_epi32,
        _mm512_aesenc_epi128
    );

    pub fn run() {
        let c = cycle();
        println!("core clock (dependent imul chain): {:.2} GHz", 1e-9 / c);
        let mut best_rate = 0.0f64;
        let mut rows = vec![("xmm", 1.0, unsafe_call(xmm, "aes"))];
        if std::is_x86_feature_detected!("vaes") && std::is_x86_feature_detected!("avx2") {
            rows.push(("ymm", 2.0, unsafe_call(ymm, "vaes")));
        }
        if std::is_x86_feature_detected!("vaes") && std::is_x86_feature_detected!("avx512f") {
            rows.push(("zmm", 4.0, unsafe_call(zmm, "vaes")));
        }
        for (name, blocks, r) in rows {
            let Some((lat, tput)) = r else { continue };
            let rate = blocks * c / tput;
            best_rate = best_rate.max(rate);
            println!(
                "aesenc {name}: latency {:.2} cycles, {:.2} per cycle = {rate:.2} block-rounds per cycle",
                lat / c,
                c / tput
            );
            println!(
                "  CCM-128 bound with {name}: {:.2} cycles per block, {:.2} GB/s",
                20.0 / rate,
                16.0 * rate / 20.0 / c / 1e9
            );
        }
        println!(
            "one CBC-MAC chain (10 dependent rounds per block): {:.2} GB/s; batch ceiling {:.2} GB/s",
            16.0 / (10.0 * xmm_latency(c)) / 1e9,
            16.0 * best_rate / 20.0 / c / 1e9
        );
    }

    fn xmm_latency(c: f64) -> f64 {
        unsafe_call(xmm, "aes").map_or(3.0 * c, |(l, _)| l)
    }

    fn unsafe_call(f: unsafe fn() -> (f64, f64), feat: &str) -> Option<(f64, f64)> {
        let ok = match feat {
            "aes" => std::is_x86_feature_detected!("aes"),
            _ => std::is_x86_feature_detected!("vaes"),
        };
        // SAFETY: the instruction set of `f` was detected just above (the
        // callers check AVX2/AVX-512F beside VAES).
        ok.then(|| unsafe { f() })
    }
}
