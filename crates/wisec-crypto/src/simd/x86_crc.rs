//! CRC-32 folding kernels (see `crate::crc32`): `G` registers of `B`
//! 16-byte blocks each are multiplied by `x^(16 * G * B * 8) mod P` and
//! added to the blocks that far ahead, then folded into one block.
//!
//! The wrappers are reached only after [`available`] reported the
//! instructions.

use core::arch::x86_64::*;

use super::x86::{features, Vector, AVX2_VAES, AVX512_VAES, PCLMUL, VPCLMUL, X, Y, Z};
use super::Blk;
use crate::batch::Path;
use crate::crc32::FOLD;

/// True when this CPU runs the folding kernel of `path`.
pub(super) fn available(path: Path) -> bool {
    let need = match path {
        Path::Portable => return true,
        Path::AesNi => PCLMUL,
        Path::Avx2 => PCLMUL | AVX2_VAES | VPCLMUL,
        Path::Avx512 => PCLMUL | AVX2_VAES | AVX512_VAES | VPCLMUL,
    };
    features() & need == need
}

/// The folding constants for `d` blocks (1..=16) as one block.
#[inline(always)]
fn constants(d: usize) -> Blk {
    let [hi, lo] = FOLD[d - 1];
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&hi.to_le_bytes());
    b[8..].copy_from_slice(&lo.to_le_bytes());
    b
}

/// `a` moved forward by the distance of `k`.
#[inline(always)]
unsafe fn fold<T: Vector>(a: T, k: T) -> T {
    a.clmul::<0x00>(k).xor(a.clmul::<0x11>(k))
}

/// Folds `len` bytes at `p` (at least `16 * G * B`, valid for reads) with
/// the CRC register `crc` in their first four bytes. Returns a block
/// whose CRC from a zero register equals the register after the bytes
/// consumed, and how many bytes that is (all but fewer than 16).
#[inline(always)]
unsafe fn fold_g<T: Vector, const G: usize>(crc: u32, p: *const u8, len: usize) -> (Blk, usize) {
    let n = G * T::B;
    let zero = T::splat(&[0; 16]);
    let mut acc = [zero; G];
    for (g, a) in acc.iter_mut().enumerate() {
        *a = T::load(p.add(16 * T::B * g).cast());
    }
    acc[0] = acc[0].xor(T::lane0(_mm_cvtsi32_si128(crc as i32)));
    let k = T::splat(&constants(n));
    let mut off = 16 * n;
    while len - off >= 16 * n {
        for (g, a) in acc.iter_mut().enumerate() {
            *a = fold(*a, k).xor(T::load(p.add(off + 16 * T::B * g).cast()));
        }
        off += 16 * n;
    }
    // Every register into the last, then every block of it into its last.
    let mut r = acc[G - 1];
    for (g, a) in acc.iter().enumerate().take(G - 1) {
        r = r.xor(fold(*a, T::splat(&constants((G - 1 - g) * T::B))));
    }
    let mut lanes = [[0u8; 16]; 4];
    r.store(lanes.as_mut_ptr());
    let mut x = X::load(&lanes[T::B - 1]);
    for (l, lane) in lanes.iter().enumerate().take(T::B - 1) {
        x = x.xor(fold(X::load(lane), X::splat(&constants(T::B - 1 - l))));
    }
    // The whole blocks left (fewer than a group), each moved to the end.
    let t = (len - off) / 16;
    if t > 0 {
        x = fold(x, X::splat(&constants(t)));
        for b in 0..t - 1 {
            let blk = X::load(p.add(off + 16 * b).cast());
            x = x.xor(fold(blk, X::splat(&constants(t - 1 - b))));
        }
        x = x.xor(X::load(p.add(off + 16 * (t - 1)).cast()));
        off += 16 * t;
    }
    let mut out = [0u8; 16];
    x.store(&mut out);
    super::wipe(&mut lanes);
    (out, off)
}

#[target_feature(enable = "sse2,ssse3,pclmulqdq")]
unsafe fn fold_x(crc: u32, p: *const u8, len: usize) -> (Blk, usize) {
    fold_g::<X, 4>(crc, p, len)
}

#[target_feature(enable = "sse2,ssse3,pclmulqdq,avx,avx2,vpclmulqdq")]
unsafe fn fold_y(crc: u32, p: *const u8, len: usize) -> (Blk, usize) {
    fold_g::<Y, 4>(crc, p, len)
}

#[target_feature(enable = "sse2,ssse3,pclmulqdq,avx,avx2,vpclmulqdq,avx512f,avx512bw,avx512vl")]
unsafe fn fold_z(crc: u32, p: *const u8, len: usize) -> (Blk, usize) {
    fold_g::<Z, 4>(crc, p, len)
}

/// Folds `data` on `path` (see `fold_g`); `None` when the CPU lacks the
/// path or `data` is shorter than one group of its registers.
pub(super) fn fold_path(path: Path, crc: u32, data: &[u8]) -> Option<(Blk, usize)> {
    let group = match path {
        Path::Portable => return None,
        Path::AesNi => 64,
        Path::Avx2 => 128,
        Path::Avx512 => 256,
    };
    if data.len() < group || !available(path) {
        return None;
    }
    let (p, len) = (data.as_ptr(), data.len());
    // SAFETY: the instruction set of the wrapper was detected
    // (`available`); `p` is valid for `len` reads and `len` is at least
    // one group, which is what `fold_g` reads first; it reads no further
    // than `len` after that.
    Some(unsafe {
        match path {
            Path::Avx512 => fold_z(crc, p, len),
            Path::Avx2 => fold_y(crc, p, len),
            _ => fold_x(crc, p, len),
        }
    })
}
