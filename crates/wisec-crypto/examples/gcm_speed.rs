//! `gcm_speed [size] [path]`: GCM seal and open time per message on every
//! path this CPU runs (best of many runs), for tuning the kernels.
//!
//! `gcm_speed ceiling` measures what bounds any AES-GCM on this core: the
//! throughput of `vaesenc` and `vpclmulqdq` on zmm alone and mixed in
//! GCM's proportion (per four blocks of AES-128: ten rounds, and three
//! carry-less products for the Karatsuba GHASH), and prints the bound per
//! block and for a 1500-octet message.
use std::hint::black_box;
use std::time::Instant;
use wisec_crypto::batch::Path;
use wisec_crypto::gcm::Gcm;

#[cfg(target_arch = "x86_64")]
mod ceiling {
    use std::arch::x86_64::*;
    use std::time::Instant;

    const N: u64 = 100_000;

    /// Seconds per iteration of `f`, best of 100 runs.
    fn best(f: impl Fn() -> f64) -> f64 {
        (0..100).map(|_| f()).fold(f64::MAX, f64::min)
    }

    /// Per iteration: `A` independent `vaesenc` and `C` independent
    /// `vpclmulqdq` on zmm registers.
    #[target_feature(enable = "avx512f,vaes,vpclmulqdq")]
    unsafe fn mix<const A: usize, const C: usize>() -> f64 {
        let k = _mm512_set1_epi32(0x5a5a_5a5a);
        best(|| {
            let mut a: [__m512i; A] = core::array::from_fn(|i| _mm512_set1_epi32(i as i32));
            let mut c: [__m512i; C] = core::array::from_fn(|i| _mm512_set1_epi32(i as i32 + 99));
            let t = Instant::now();
            for _ in 0..N {
                for x in a.iter_mut() {
                    *x = _mm512_aesenc_epi128(*x, k);
                }
                for x in c.iter_mut() {
                    *x = _mm512_clmulepi64_epi128::<0x11>(*x, k);
                }
            }
            std::hint::black_box((a, c));
            t.elapsed().as_secs_f64() / N as f64
        })
    }

    pub fn run() {
        if !(std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("vaes")
            && std::is_x86_feature_detected!("vpclmulqdq"))
        {
            println!("this CPU lacks VAES/VPCLMULQDQ on zmm; nothing to measure");
            return;
        }
        // SAFETY: the features were detected just above.
        let (aes, clmul, both) = unsafe { (mix::<10, 0>(), mix::<0, 3>(), mix::<10, 3>()) };
        println!(
            "per 4 blocks: 10 vaesenc zmm {:.2} ns, 3 vpclmulqdq zmm {:.2} ns, both together \
             {:.2} ns (the sum would be {:.2} ns: {})",
            aes * 1e9,
            clmul * 1e9,
            both * 1e9,
            (aes + clmul) * 1e9,
            if both > 0.9 * (aes + clmul) {
                "they share execution units"
            } else {
                "they overlap"
            }
        );
        println!("AES-128-GCM bound: {:.3} ns per block", both / 4.0 * 1e9);
        println!(
            "bound for a 1500-octet message (94 blocks): {:.0} ns, before any per-message work",
            both / 4.0 * 94.0 * 1e9
        );
    }
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("ceiling") {
        #[cfg(target_arch = "x86_64")]
        ceiling::run();
        return;
    }
    let size: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1500);
    let only = std::env::args().nth(2);
    let n = 64;
    // One allocation, messages at least 2400 octets apart and outputs 64
    // strides after their inputs (no 4 KiB aliasing between them).
    let stride = size.max(2400);
    let mut arena = vec![0u8; 2 * n * stride];
    for (i, b) in arena[..n * stride].chunks_mut(stride).enumerate() {
        b.fill(i as u8);
    }
    let (src_all, dst_all) = arena.split_at_mut(n * stride);
    let src: Vec<&[u8]> = src_all.chunks(stride).map(|c| &c[..size]).collect();
    let mut dst: Vec<&mut [u8]> = dst_all.chunks_mut(stride).map(|c| &mut c[..size]).collect();
    let aad = [3u8; 22];
    for key_len in [16, 32] {
        for path in Path::ALL
            .into_iter()
            .filter(|p| Gcm::path_available(*p))
            .filter(|p| only.as_deref().is_none_or(|o| o == p.name()))
        {
            let g = Gcm::with_path(&vec![1u8; key_len], path).unwrap();
            let mut best = f64::MAX;
            let mut best_open = f64::MAX;
            let mut tags = vec![[0u8; 16]; n];
            let mut out = vec![0u8; stride];
            let reps: usize = std::env::var("GCM_SPEED_REPS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(200);
            for _ in 0..reps {
                let t = Instant::now();
                for i in 0..n {
                    let mut nonce = [0u8; 12];
                    nonce[0] = i as u8;
                    tags[i] = g.seal(&nonce, &aad, src[i], dst[i]).unwrap();
                }
                best = best.min(t.elapsed().as_secs_f64() / n as f64);
                let t = Instant::now();
                for i in 0..n {
                    let mut nonce = [0u8; 12];
                    nonce[0] = i as u8;
                    g.open(&nonce, &aad, dst[i], &mut out[..size], &tags[i])
                        .unwrap();
                    black_box(&out);
                }
                best_open = best_open.min(t.elapsed().as_secs_f64() / n as f64);
            }
            println!(
                "AES-{} GCM {:>8} {size}: seal {:7.1} ns {:6.2} GB/s, open {:7.1} ns {:6.2} GB/s",
                key_len * 8,
                path.name(),
                best * 1e9,
                size as f64 / best / 1e9,
                best_open * 1e9,
                size as f64 / best_open / 1e9
            );
        }
    }
}
