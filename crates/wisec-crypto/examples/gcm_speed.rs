//! `gcm_speed [size]`: GCM seal and open time per message on every path
//! this CPU runs (best of many runs), for tuning the kernels.
use std::hint::black_box;
use std::time::Instant;
use wisec_crypto::batch::Path;
use wisec_crypto::gcm::Gcm;

fn main() {
    let size: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1500);
    let only = std::env::args().nth(2);
    let n = 64;
    // One allocation, messages 2400 octets apart and outputs 64 * 2400
    // octets after their inputs (no 4 KiB aliasing between them).
    let stride = 2400;
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
                    let mut out = [0u8; 2400];
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
