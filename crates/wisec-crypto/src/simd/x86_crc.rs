//! CRC-32 folding kernels (see `crate::crc32`): `G` registers of `B`
//! 16-byte blocks each are multiplied by `x^(16 * G * B * 8) mod P` and
//! added to the blocks that far ahead, then folded into one block.
//!
//! The wrappers are reached only after [`available`] reported the
//! instructions.

use core::arch::x86_64::*;

use super::x86::{features, Vector, AVX2_VAES, AVX512_VAES, PCLMUL, VPCLMUL, X, Y, Z};
use crate::batch::Path;
use crate::crc32::{FOLD, REDUCE};

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

/// The folding constants for `d` blocks (1..=16) in an xmm register:
/// `FOLD[d - 1]` loaded as it is laid out, the first half's constant in
/// the low quadword.
#[inline(always)]
unsafe fn constants(d: usize) -> X {
    X(_mm_loadu_si128(FOLD[d - 1].as_ptr().cast()))
}

/// `a` moved forward by the distance of `k`.
#[inline(always)]
unsafe fn fold<T: Vector>(a: T, k: T) -> T {
    a.clmul::<0x00>(k).xor(a.clmul::<0x11>(k))
}

/// Folds `len` bytes at `p` (at least `16 * G * B`, valid for reads) with
/// the CRC register `crc` in their first four bytes. Returns the register
/// after all of them.
#[inline(always)]
unsafe fn fold_g<T: Vector, const G: usize>(crc: u32, p: *const u8, len: usize) -> u32 {
    let n = G * T::B;
    let zero = T::splat(&[0; 16]);
    let mut acc = [zero; G];
    for (g, a) in acc.iter_mut().enumerate() {
        *a = T::load(p.add(16 * T::B * g).cast());
    }
    acc[0] = acc[0].xor(T::lane0(_mm_cvtsi32_si128(crc as i32)));
    let k = T::splat_reg(constants(n).0);
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
        r = r.xor(fold(*a, T::splat_reg(constants((G - 1 - g) * T::B).0)));
    }
    let mut lanes = [[0u8; 16]; 4];
    r.store(lanes.as_mut_ptr());
    let mut x = X::load(&lanes[T::B - 1]);
    for (l, lane) in lanes.iter().enumerate().take(T::B - 1) {
        x = x.xor(fold(X::load(lane), constants(T::B - 1 - l)));
    }
    super::wipe(&mut lanes);
    finish(x, p, off, len)
}

/// The register after the block `x` (standing for the `off` bytes at `p`
/// before it) and the rest of `p[..len]` (fewer than 16 whole blocks;
/// `len >= 16`, `p` valid for `len` reads): every whole block moved to
/// the last at once (independent products), the bytes after them added
/// by [`absorb_tail`], the block reduced.
#[inline(always)]
unsafe fn finish(mut x: X, p: *const u8, mut off: usize, len: usize) -> u32 {
    let t = (len - off) / 16;
    if t > 0 {
        x = fold(x, constants(t));
        for b in 0..t - 1 {
            let blk = X::load(p.add(off + 16 * b).cast());
            x = x.xor(fold(blk, constants(t - 1 - b)));
        }
        x = x.xor(X::load(p.add(off + 16 * (t - 1)).cast()));
        off += 16 * t;
    }
    if off < len {
        x = absorb_tail(x, p, len, len - off);
    }
    reduce(x)
}

/// Shuffle controls for [`absorb_tail`]: 16 zeroing indexes (bit 7 set),
/// the identity, 16 zeroing indexes again; the 16 bytes from offset `k`
/// move each byte `k - 16` places up (down when negative).
static SHIFTS: [u8; 48] = {
    let mut t = [0x80u8; 48];
    let mut i = 0;
    while i < 16 {
        t[16 + i] = i as u8;
        i += 1;
    }
    t
};

/// The block that stands for `x` followed by the last `r` bytes of
/// `p[..len]` (`1 <= r <= 15`, `len >= 16`, `p` valid for `len` reads).
///
/// From a zero register, `x || T` (`T` the `r` bytes) has the CRC of
/// `A || B` with `A = 0^(16-r) || x[..r]` (leading zeros leave a zero
/// register as it is) and `B = x[r..] || T`; `A` folded one block forward
/// and added to `B` is the block. `T` is read as the end of the last 16
/// bytes, so nothing is read outside the data.
#[inline(always)]
unsafe fn absorb_tail(x: X, p: *const u8, len: usize, r: usize) -> X {
    let x = x.0;
    let to_a = _mm_loadu_si128(SHIFTS.as_ptr().add(r).cast());
    let to_b = _mm_loadu_si128(SHIFTS.as_ptr().add(16 + r).cast());
    let a = _mm_shuffle_epi8(x, to_a);
    // Where `to_b` zeroes a byte of `x`, the byte of `T` goes.
    let of_t = _mm_cmplt_epi8(to_b, _mm_setzero_si128());
    let last = _mm_loadu_si128(p.add(len - 16).cast());
    let b = _mm_or_si128(_mm_shuffle_epi8(x, to_b), _mm_and_si128(last, of_t));
    fold(X(a), constants(1)).xor(X(b))
}

/// The CRC register of the block `b` from a zero register, `b(x) * x^32
/// mod P`, with carry-less products only (Barrett reduction; constants
/// in [`REDUCE`]).
///
/// A product of two reflected 64-bit operands is the reflected product
/// times `x`, which the constants absorb:
/// 1. the first half `h` times `x^95 mod P` stands for `h * x^96`; the
///    second half, moved to bits 32..95, for itself times `x^32`: their
///    sum `s` is congruent to the result and of degree below 96;
/// 2. its part of degree 64 and up (bits 32..63) times `x^63 mod P`
///    stands for that part: `u`, the upper half of the sum, is congruent
///    and of degree below 64;
/// 3. `q = floor(floor(u / x^32) * mu / x^32)` is `floor(u / P)`, exact
///    for a `u` of degree below 64, and `u + q * P` is the remainder: the
///    upper 32 bits of `u` with those of `q * P` that stand for degrees
///    0..31.
#[inline(always)]
unsafe fn reduce(b: X) -> u32 {
    let k = _mm_set_epi64x(REDUCE[1] as i64, REDUCE[0] as i64);
    let b = b.0;
    let s = _mm_xor_si128(
        _mm_clmulepi64_si128::<0x00>(b, k),
        _mm_slli_si128::<4>(_mm_srli_si128::<8>(b)),
    );
    let u = _mm_xor_si128(_mm_clmulepi64_si128::<0x10>(s, k), s);
    // floor(u / z^32): bits 0..31 of `u`'s qword.
    let t = _mm_and_si128(_mm_srli_si128::<8>(u), _mm_set_epi64x(0, 0xffff_ffff));
    let m = _mm_set_epi64x(REDUCE[3] as i64, REDUCE[2] as i64);
    // `q` at bits 31..62 of the low qword.
    let q = _mm_and_si128(
        _mm_clmulepi64_si128::<0x00>(t, m),
        _mm_set_epi64x(0, 0x7fff_ffff_8000_0000),
    );
    let qp = _mm_clmulepi64_si128::<0x10>(q, m);
    // Dword 3 of `u`, dword 2 of `q * P`.
    let (hi_u, hi_qp) = (_mm_srli_si128::<12>(u), _mm_srli_si128::<8>(qp));
    (_mm_cvtsi128_si32(hi_u) ^ _mm_cvtsi128_si32(hi_qp)) as u32
}

/// The register after `len` bytes at `p` (16 to 271, valid for reads),
/// from `crc`: the first block with the register in it, and [`finish`]
/// for the rest.
#[target_feature(enable = "sse2,ssse3,pclmulqdq")]
unsafe fn fold_short(crc: u32, p: *const u8, len: usize) -> u32 {
    let x = X::load(p.cast()).xor(X(_mm_cvtsi32_si128(crc as i32)));
    finish(x, p, 16, len)
}

#[target_feature(enable = "sse2,ssse3,pclmulqdq")]
unsafe fn fold_x(crc: u32, p: *const u8, len: usize) -> u32 {
    fold_g::<X, 4>(crc, p, len)
}

#[target_feature(enable = "sse2,ssse3,pclmulqdq,avx,avx2,vpclmulqdq")]
unsafe fn fold_y(crc: u32, p: *const u8, len: usize) -> u32 {
    fold_g::<Y, 4>(crc, p, len)
}

#[target_feature(enable = "sse2,ssse3,pclmulqdq,avx,avx2,vpclmulqdq,avx512f,avx512bw,avx512vl")]
unsafe fn fold_z(crc: u32, p: *const u8, len: usize) -> u32 {
    fold_g::<Z, 4>(crc, p, len)
}

/// Data of 16 to 271 bytes is folded by `fold_short` on every path (one
/// register, every block moved to the last at once); longer data by
/// `fold_g`, whose group of registers is then at most 256 bytes.
const SHORT_MIN: usize = 16;
const SHORT_MAX: usize = 16 * 17 - 1;

/// The register after `data` from `crc`, folded on `path` (see
/// `fold_short` and `fold_g`); `None` when the CPU lacks the path or
/// `data` is shorter than 16 bytes.
pub(super) fn fold_path(path: Path, crc: u32, data: &[u8]) -> Option<u32> {
    if path == Path::Portable || !available(path) || data.len() < SHORT_MIN {
        return None;
    }
    let (p, len) = (data.as_ptr(), data.len());
    // SAFETY: every path but the portable one (gone above) has PCLMULQDQ
    // (and SSSE3), and the path's instruction set was detected
    // (`available`); `p` is valid for `len` reads. `len` is within what
    // `fold_short` takes, or longer than one group of any path's
    // registers, which is what `fold_g` reads first; neither reads past
    // `len`.
    Some(unsafe {
        match path {
            _ if len <= SHORT_MAX => fold_short(crc, p, len),
            Path::Avx512 => fold_z(crc, p, len),
            Path::Avx2 => fold_y(crc, p, len),
            _ => fold_x(crc, p, len),
        }
    })
}
