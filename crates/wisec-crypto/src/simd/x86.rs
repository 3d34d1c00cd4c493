//! x86-64 engines: AES-NI on xmm (1 block per register), VAES + AVX2 on
//! ymm (2 blocks), VAES + AVX-512 on zmm (4 blocks).
//!
//! One generic kernel per phase is written against the small [`Vector`]
//! trait and instantiated inside `#[target_feature]` wrappers, so each
//! instantiation is compiled for its instruction set. The wrappers are
//! only reached after [`features`] reported the instructions (a
//! [`RoundKeys`] exists only when AES-NI was found, and the path checks
//! are in [`super::available`]).

// Kernels index several per-register arrays with one counter; that reads
// better than zipped iterators.
#![allow(clippy::needless_range_loop)]

use core::arch::x86_64::*;
use core::sync::atomic::{AtomicU8, Ordering};

use super::{moved, Blk, Chunk, Lanes, RoundKeys, CHUNK, MAX_LANES, MOVE};
use crate::batch::Path;

/// AES-NI and SSSE3.
pub(super) const AESNI: u8 = 1 << 0;
/// AVX2 and VAES, with the OS saving ymm state.
pub(super) const AVX2_VAES: u8 = 1 << 1;
/// AVX-512 F/BW/VL and VAES, with the OS saving zmm state.
pub(super) const AVX512_VAES: u8 = 1 << 2;
/// PCLMULQDQ: carry-less multiplication on xmm (GHASH).
pub(super) const PCLMUL: u8 = 1 << 3;
/// VPCLMULQDQ: carry-less multiplication on ymm and zmm (with the
/// register state of [`AVX2_VAES`] or [`AVX512_VAES`]).
pub(super) const VPCLMUL: u8 = 1 << 4;
const PROBED: u8 = 1 << 7;

static FEATURES: AtomicU8 = AtomicU8::new(0);

/// The instruction sets of this CPU, probed once with CPUID/XGETBV.
pub(super) fn features() -> u8 {
    let f = FEATURES.load(Ordering::Relaxed);
    if f & PROBED != 0 {
        return f;
    }
    let f = probe() | PROBED;
    FEATURES.store(f, Ordering::Relaxed);
    f
}

#[allow(unused_unsafe)]
fn probe() -> u8 {
    // SAFETY: CPUID exists on every x86-64 CPU; leaf 7 is read only when
    // leaf 0 reports it.
    let l0 = unsafe { __cpuid(0) };
    // SAFETY: as above.
    let l1 = unsafe { __cpuid(1) };
    let bit = |r: u32, b: u32| r & (1 << b) != 0;
    let (aes, ssse3, osxsave, avx) = (
        bit(l1.ecx, 25),
        bit(l1.ecx, 9),
        bit(l1.ecx, 27),
        bit(l1.ecx, 28),
    );
    // SAFETY: XGETBV is executed only when CPUID.1:ECX.OSXSAVE says the
    // OS enabled it.
    let xcr0 = if osxsave { unsafe { xcr0() } } else { 0 };
    let (ebx7, ecx7) = if l0.eax >= 7 {
        // SAFETY: leaf 7 exists (checked above).
        let l7 = unsafe { __cpuid_count(7, 0) };
        (l7.ebx, l7.ecx)
    } else {
        (0, 0)
    };
    let mut f = 0;
    // A software-AES build (`--cfg aes_backend="soft"`) runs no AES
    // instruction at all: every engine that needs AES-NI stays off.
    if aes && ssse3 && !cfg!(aes_backend = "soft") {
        f |= AESNI;
    }
    let ymm_os = xcr0 & 0x6 == 0x6;
    let zmm_os = xcr0 & 0xe6 == 0xe6;
    let vaes = bit(ecx7, 9);
    if f & AESNI != 0 && avx && ymm_os && vaes && bit(ebx7, 5) {
        f |= AVX2_VAES;
    }
    if f & AVX2_VAES != 0 && zmm_os && bit(ebx7, 16) && bit(ebx7, 30) && bit(ebx7, 31) {
        f |= AVX512_VAES;
    }
    // CPUID.1:ECX bit 1 (PCLMULQDQ), CPUID.(7,0):ECX bit 10 (VPCLMULQDQ);
    // GCM uses them beside AES-NI only.
    if bit(l1.ecx, 1) && f & AESNI != 0 {
        f |= PCLMUL;
    }
    if f & PCLMUL != 0 && f & AVX2_VAES != 0 && bit(ecx7, 10) {
        f |= VPCLMUL;
    }
    f
}

#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    _xgetbv(0)
}

// ---------------------------------------------------------------- keys

/// `k xor k<<32 xor k<<64 xor k<<96`, the word chaining of the AES key
/// schedule (FIPS 197, 5.2), then xor `t`.
#[inline(always)]
unsafe fn mix(k: __m128i, t: __m128i) -> __m128i {
    let s1 = _mm_slli_si128::<4>(k);
    let s2 = _mm_slli_si128::<4>(s1);
    let s3 = _mm_slli_si128::<4>(s2);
    _mm_xor_si128(
        _mm_xor_si128(k, s1),
        _mm_xor_si128(_mm_xor_si128(s2, s3), t),
    )
}

#[inline(always)]
unsafe fn put(rk: &mut Blk, v: __m128i) {
    _mm_storeu_si128(rk.as_mut_ptr().cast(), v);
}

#[inline(always)]
unsafe fn get(b: &Blk) -> __m128i {
    _mm_loadu_si128(b.as_ptr().cast())
}

/// AES-128 key expansion (FIPS 197, 5.2) with AESKEYGENASSIST.
#[target_feature(enable = "aes,ssse3")]
unsafe fn expand128(key: &Blk, rk: &mut [Blk; 15]) {
    let mut k = get(key);
    put(&mut rk[0], k);
    macro_rules! round {
        ($i:expr, $rcon:expr) => {
            let t = _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>(k));
            k = mix(k, t);
            put(&mut rk[$i], k);
        };
    }
    round!(1, 0x01);
    round!(2, 0x02);
    round!(3, 0x04);
    round!(4, 0x08);
    round!(5, 0x10);
    round!(6, 0x20);
    round!(7, 0x40);
    round!(8, 0x80);
    round!(9, 0x1b);
    round!(10, 0x36);
}

/// AES-256 key expansion (FIPS 197, 5.2: SubWord without RotWord every
/// fourth word) with AESKEYGENASSIST.
#[target_feature(enable = "aes,ssse3")]
unsafe fn expand256(k0: &Blk, k1: &Blk, rk: &mut [Blk; 15]) {
    let mut a = get(k0);
    let mut b = get(k1);
    put(&mut rk[0], a);
    put(&mut rk[1], b);
    macro_rules! pair {
        ($i:expr, $rcon:expr) => {
            let t = _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>(b));
            a = mix(a, t);
            put(&mut rk[$i], a);
            let t = _mm_shuffle_epi32::<0xaa>(_mm_aeskeygenassist_si128::<0>(a));
            b = mix(b, t);
            put(&mut rk[$i + 1], b);
        };
    }
    pair!(2, 0x01);
    pair!(4, 0x02);
    pair!(6, 0x04);
    pair!(8, 0x08);
    pair!(10, 0x10);
    pair!(12, 0x20);
    let t = _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<0x40>(b));
    a = mix(a, t);
    put(&mut rk[14], a);
}

/// Expands `key` into `rk`, returning the number of rounds; `None` for a
/// key that is neither 16 nor 32 bytes. The caller checked AES-NI.
pub(super) fn expand_key(key: &[u8], rk: &mut [Blk; 15]) -> Option<usize> {
    debug_assert!(features() & AESNI != 0);
    if features() & AESNI == 0 {
        return None;
    }
    match key.len() {
        16 => {
            let mut k = [0u8; 16];
            k.copy_from_slice(key);
            // SAFETY: AES-NI and SSSE3 are present (checked above); the
            // function only reads and writes the references it is given.
            unsafe { expand128(&k, rk) };
            zeroize::Zeroize::zeroize(&mut k);
            Some(10)
        }
        32 => {
            let mut k0 = [0u8; 16];
            let mut k1 = [0u8; 16];
            k0.copy_from_slice(&key[..16]);
            k1.copy_from_slice(&key[16..]);
            // SAFETY: as above.
            unsafe { expand256(&k0, &k1, rk) };
            zeroize::Zeroize::zeroize(&mut k0);
            zeroize::Zeroize::zeroize(&mut k1);
            Some(14)
        }
        _ => None,
    }
}

// ------------------------------------------------------------- vectors

/// Byte order reversal within each 128-bit lane (GHASH's bit order).
pub(super) static REV: Blk = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0];
/// The last byte = 1: `A_0 xor E15 = A_1` (the counter of `A_0` is 0).
/// As 16-bit words (`add16`), word 7 = 0x0100: it adds one to the
/// counter's low octet, and a carry out of that octet is lost.
static E15: Blk = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];

/// `B` AES blocks in one register. Every method is `unsafe`: it may only
/// run inside a function compiled for the instruction set (the kernels
/// below are called from `#[target_feature]` wrappers), and pointer
/// arguments must be valid for the access described.
pub(super) trait Vector: Copy {
    /// Blocks per register.
    const B: usize;
    /// One block repeated.
    #[inline(always)]
    unsafe fn splat(b: &Blk) -> Self {
        Self::splat_reg(get(b))
    }
    /// The block in `x` repeated (from a register, no memory access).
    unsafe fn splat_reg(x: __m128i) -> Self;
    /// Block 0 (a cast: no instruction).
    unsafe fn low(self) -> __m128i;
    /// `B` consecutive blocks from `p` (valid for `16 * B` bytes read).
    unsafe fn load(p: *const Blk) -> Self;
    /// Stores to `B` consecutive blocks at `p` (valid for writes).
    unsafe fn store(self, p: *mut Blk);
    /// One block from each `p[i] + off`, `i < B` (each valid for 16 bytes
    /// read).
    unsafe fn gather(p: &[*mut u8], off: usize) -> Self;
    /// Block `i` to `p[i] + off` for `i < n` (each valid for 16 bytes
    /// written); `n <= B`.
    unsafe fn scatter(self, p: &[*mut u8], off: isize, n: usize);
    unsafe fn xor(self, o: Self) -> Self;
    unsafe fn enc(self, k: Self) -> Self;
    unsafe fn enclast(self, k: Self) -> Self;
    /// The last decryption round (InvShiftRows, InvSubBytes, xor `k`).
    unsafe fn declast(self, k: Self) -> Self;
    /// Byte reversal per block.
    unsafe fn rev(self, ctl: Self) -> Self;
    /// 16-bit add per block.
    unsafe fn add16(self, o: Self) -> Self;
    /// 32-bit add per 32-bit word.
    unsafe fn add32(self, o: Self) -> Self;
    /// Carry-less product per block of the 64-bit halves `IMM` picks
    /// (bit 0: high half of `self`, bit 4: high half of `o`).
    unsafe fn clmul<const IMM: i32>(self, o: Self) -> Self;
    /// The two 64-bit halves of each block swapped.
    unsafe fn swap64(self) -> Self;
    /// The xor of all blocks of the register.
    unsafe fn fold(self) -> __m128i;
    /// `x` in block 0, zeros in the others.
    unsafe fn lane0(x: __m128i) -> Self;
    /// `x` xored into block `lane < B`.
    unsafe fn xor_lane(self, x: __m128i, lane: usize) -> Self;
    unsafe fn and(self, o: Self) -> Self;
    /// The first `n < 16 * B` bytes at `p` (valid for `n` bytes read),
    /// zeros after them.
    unsafe fn load_partial(p: *const u8, n: usize) -> Self;
    /// Stores the first `n < 16 * B` bytes to `p` (valid for `n` bytes
    /// written).
    unsafe fn store_partial(self, p: *mut u8, n: usize);
}

/// Partial loads and stores through a zeroed stack block, for the widths
/// without byte-masked moves. The block is wiped after use.
#[inline(always)]
unsafe fn load_via_stack<T: Vector>(p: *const u8, n: usize) -> T {
    let mut b = [[0u8; 16]; 4];
    core::ptr::copy_nonoverlapping(p, b.as_mut_ptr().cast::<u8>(), n);
    let v = T::load(b.as_ptr());
    super::wipe(&mut b);
    v
}

#[inline(always)]
unsafe fn store_via_stack<T: Vector>(v: T, p: *mut u8, n: usize) {
    let mut b = [[0u8; 16]; 4];
    v.store(b.as_mut_ptr());
    core::ptr::copy_nonoverlapping(b.as_ptr().cast::<u8>(), p, n);
    super::wipe(&mut b);
}

#[derive(Clone, Copy)]
pub(super) struct X(pub(super) __m128i);
#[derive(Clone, Copy)]
pub(super) struct Y(pub(super) __m256i);
#[derive(Clone, Copy)]
pub(super) struct Z(pub(super) __m512i);

impl Vector for X {
    const B: usize = 1;
    #[inline(always)]
    unsafe fn splat_reg(x: __m128i) -> X {
        X(x)
    }
    #[inline(always)]
    unsafe fn low(self) -> __m128i {
        self.0
    }
    #[inline(always)]
    unsafe fn load(p: *const Blk) -> X {
        X(_mm_loadu_si128(p.cast()))
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut Blk) {
        _mm_storeu_si128(p.cast(), self.0)
    }
    #[inline(always)]
    unsafe fn gather(p: &[*mut u8], off: usize) -> X {
        X(_mm_loadu_si128(p[0].add(off).cast()))
    }
    #[inline(always)]
    unsafe fn scatter(self, p: &[*mut u8], off: isize, n: usize) {
        if n > 0 {
            _mm_storeu_si128(p[0].offset(off).cast(), self.0)
        }
    }
    #[inline(always)]
    unsafe fn xor(self, o: X) -> X {
        X(_mm_xor_si128(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn enc(self, k: X) -> X {
        X(_mm_aesenc_si128(self.0, k.0))
    }
    #[inline(always)]
    unsafe fn enclast(self, k: X) -> X {
        X(_mm_aesenclast_si128(self.0, k.0))
    }
    #[inline(always)]
    unsafe fn declast(self, k: X) -> X {
        X(_mm_aesdeclast_si128(self.0, k.0))
    }
    #[inline(always)]
    unsafe fn rev(self, ctl: X) -> X {
        X(_mm_shuffle_epi8(self.0, ctl.0))
    }
    #[inline(always)]
    unsafe fn add16(self, o: X) -> X {
        X(_mm_add_epi16(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn add32(self, o: X) -> X {
        X(_mm_add_epi32(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn clmul<const IMM: i32>(self, o: X) -> X {
        X(_mm_clmulepi64_si128::<IMM>(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn swap64(self) -> X {
        X(_mm_shuffle_epi32::<0x4e>(self.0))
    }
    #[inline(always)]
    unsafe fn fold(self) -> __m128i {
        self.0
    }
    #[inline(always)]
    unsafe fn lane0(x: __m128i) -> X {
        X(x)
    }
    #[inline(always)]
    unsafe fn xor_lane(self, x: __m128i, _lane: usize) -> X {
        X(_mm_xor_si128(self.0, x))
    }
    #[inline(always)]
    unsafe fn and(self, o: X) -> X {
        X(_mm_and_si128(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> X {
        load_via_stack(p, n)
    }
    #[inline(always)]
    unsafe fn store_partial(self, p: *mut u8, n: usize) {
        store_via_stack(self, p, n)
    }
}

impl Vector for Y {
    const B: usize = 2;
    #[inline(always)]
    unsafe fn splat_reg(x: __m128i) -> Y {
        Y(_mm256_broadcastsi128_si256(x))
    }
    #[inline(always)]
    unsafe fn low(self) -> __m128i {
        _mm256_castsi256_si128(self.0)
    }
    #[inline(always)]
    unsafe fn load(p: *const Blk) -> Y {
        Y(_mm256_loadu_si256(p.cast()))
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut Blk) {
        _mm256_storeu_si256(p.cast(), self.0)
    }
    #[inline(always)]
    unsafe fn gather(p: &[*mut u8], off: usize) -> Y {
        Y(_mm256_loadu2_m128i(
            p[1].add(off).cast_const().cast(),
            p[0].add(off).cast_const().cast(),
        ))
    }
    #[inline(always)]
    unsafe fn scatter(self, p: &[*mut u8], off: isize, n: usize) {
        if n >= 2 {
            _mm256_storeu2_m128i(p[1].offset(off).cast(), p[0].offset(off).cast(), self.0);
        } else if n == 1 {
            _mm_storeu_si128(p[0].offset(off).cast(), _mm256_castsi256_si128(self.0));
        }
    }
    #[inline(always)]
    unsafe fn xor(self, o: Y) -> Y {
        Y(_mm256_xor_si256(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn enc(self, k: Y) -> Y {
        Y(_mm256_aesenc_epi128(self.0, k.0))
    }
    #[inline(always)]
    unsafe fn enclast(self, k: Y) -> Y {
        Y(_mm256_aesenclast_epi128(self.0, k.0))
    }
    #[inline(always)]
    unsafe fn declast(self, k: Y) -> Y {
        Y(_mm256_aesdeclast_epi128(self.0, k.0))
    }
    #[inline(always)]
    unsafe fn rev(self, ctl: Y) -> Y {
        Y(_mm256_shuffle_epi8(self.0, ctl.0))
    }
    #[inline(always)]
    unsafe fn add16(self, o: Y) -> Y {
        Y(_mm256_add_epi16(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn add32(self, o: Y) -> Y {
        Y(_mm256_add_epi32(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn clmul<const IMM: i32>(self, o: Y) -> Y {
        Y(_mm256_clmulepi64_epi128::<IMM>(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn swap64(self) -> Y {
        Y(_mm256_shuffle_epi32::<0x4e>(self.0))
    }
    #[inline(always)]
    unsafe fn fold(self) -> __m128i {
        _mm_xor_si128(
            _mm256_castsi256_si128(self.0),
            _mm256_extracti128_si256::<1>(self.0),
        )
    }
    #[inline(always)]
    unsafe fn lane0(x: __m128i) -> Y {
        Y(_mm256_zextsi128_si256(x))
    }
    #[inline(always)]
    unsafe fn xor_lane(self, x: __m128i, lane: usize) -> Y {
        let v = _mm256_zextsi128_si256(x);
        let v = if lane == 0 {
            v
        } else {
            _mm256_permute2x128_si256::<0x08>(v, v)
        };
        Y(_mm256_xor_si256(self.0, v))
    }
    #[inline(always)]
    unsafe fn and(self, o: Y) -> Y {
        Y(_mm256_and_si256(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> Y {
        load_via_stack(p, n)
    }
    #[inline(always)]
    unsafe fn store_partial(self, p: *mut u8, n: usize) {
        store_via_stack(self, p, n)
    }
}

impl Vector for Z {
    const B: usize = 4;
    #[inline(always)]
    unsafe fn splat_reg(x: __m128i) -> Z {
        Z(_mm512_broadcast_i32x4(x))
    }
    #[inline(always)]
    unsafe fn low(self) -> __m128i {
        _mm512_castsi512_si128(self.0)
    }
    #[inline(always)]
    unsafe fn load(p: *const Blk) -> Z {
        Z(_mm512_loadu_si512(p.cast()))
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut Blk) {
        _mm512_storeu_si512(p.cast(), self.0)
    }
    #[inline(always)]
    unsafe fn gather(p: &[*mut u8], off: usize) -> Z {
        let v = _mm512_castsi128_si512(_mm_loadu_si128(p[0].add(off).cast()));
        let v = _mm512_inserti32x4::<1>(v, _mm_loadu_si128(p[1].add(off).cast()));
        let v = _mm512_inserti32x4::<2>(v, _mm_loadu_si128(p[2].add(off).cast()));
        Z(_mm512_inserti32x4::<3>(
            v,
            _mm_loadu_si128(p[3].add(off).cast()),
        ))
    }
    #[inline(always)]
    unsafe fn scatter(self, p: &[*mut u8], off: isize, n: usize) {
        // Blocks 1..3 go out by masked stores of the whole register, its
        // base placed so that only block i's 16 octets (the mask) land, at
        // `p[i] + off`: no lane extraction, which competes with `vaesenc`
        // for the same execution ports. A masked store touches only the
        // octets its mask enables, so the base (a wrapping offset, never
        // dereferenced) may lie outside the frame.
        let v = self.0;
        if n > 0 {
            _mm_storeu_si128(p[0].offset(off).cast(), _mm512_castsi512_si128(v));
        }
        if n > 1 {
            _mm512_mask_storeu_epi32(p[1].offset(off).wrapping_sub(16).cast(), 0x00f0, v);
        }
        if n > 2 {
            _mm512_mask_storeu_epi32(p[2].offset(off).wrapping_sub(32).cast(), 0x0f00, v);
        }
        if n > 3 {
            _mm512_mask_storeu_epi32(p[3].offset(off).wrapping_sub(48).cast(), 0xf000, v);
        }
    }
    #[inline(always)]
    unsafe fn xor(self, o: Z) -> Z {
        Z(_mm512_xor_si512(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn enc(self, k: Z) -> Z {
        Z(_mm512_aesenc_epi128(self.0, k.0))
    }
    #[inline(always)]
    unsafe fn enclast(self, k: Z) -> Z {
        Z(_mm512_aesenclast_epi128(self.0, k.0))
    }
    #[inline(always)]
    unsafe fn declast(self, k: Z) -> Z {
        Z(_mm512_aesdeclast_epi128(self.0, k.0))
    }
    #[inline(always)]
    unsafe fn rev(self, ctl: Z) -> Z {
        Z(_mm512_shuffle_epi8(self.0, ctl.0))
    }
    #[inline(always)]
    unsafe fn add16(self, o: Z) -> Z {
        Z(_mm512_add_epi16(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn add32(self, o: Z) -> Z {
        Z(_mm512_add_epi32(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn clmul<const IMM: i32>(self, o: Z) -> Z {
        Z(_mm512_clmulepi64_epi128::<IMM>(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn swap64(self) -> Z {
        Z(_mm512_shuffle_epi32::<0x4e>(self.0))
    }
    #[inline(always)]
    unsafe fn fold(self) -> __m128i {
        let h = _mm256_xor_si256(
            _mm512_castsi512_si256(self.0),
            _mm512_extracti64x4_epi64::<1>(self.0),
        );
        _mm_xor_si128(_mm256_castsi256_si128(h), _mm256_extracti128_si256::<1>(h))
    }
    #[inline(always)]
    unsafe fn lane0(x: __m128i) -> Z {
        Z(_mm512_zextsi128_si512(x))
    }
    #[inline(always)]
    unsafe fn xor_lane(self, x: __m128i, lane: usize) -> Z {
        // The four 32-bit words of block `lane`.
        let m = (0xf_u16 << (4 * (lane & 3))) as __mmask16;
        Z(_mm512_xor_si512(self.0, _mm512_maskz_broadcast_i32x4(m, x)))
    }
    #[inline(always)]
    unsafe fn and(self, o: Z) -> Z {
        Z(_mm512_and_si512(self.0, o.0))
    }
    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> Z {
        // AVX-512BW byte-masked load: bytes past `n` are neither read
        // (masked-off lanes do not fault) nor kept.
        Z(_mm512_maskz_loadu_epi8(byte_mask(n), p.cast()))
    }
    #[inline(always)]
    unsafe fn store_partial(self, p: *mut u8, n: usize) {
        _mm512_mask_storeu_epi8(p.cast(), byte_mask(n), self.0)
    }
}

/// The mask of the first `n` of 64 bytes.
#[inline(always)]
fn byte_mask(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

// ------------------------------------------------------------- kernels

/// The round keys of AES with `NR` rounds, each repeated in every block.
#[inline(always)]
pub(super) unsafe fn round_keys<T: Vector, const NR: usize>(rk: &[Blk; 15]) -> [T; 15] {
    // An index loop: the iterator form of it (`iter_mut().enumerate()
    // .take().skip()`) was not flattened as well, and cost the short GCM
    // kernel twice its time.
    let mut k = [T::splat(&rk[0]); 15];
    let mut r = 1;
    while r <= NR {
        k[r] = T::splat(&rk[r]);
        r += 1;
    }
    k
}

/// One register through the AES rounds (FIPS 197, 5.1).
#[inline(always)]
pub(super) unsafe fn aes<T: Vector, const NR: usize>(k: &[T; 15], x: T) -> T {
    let mut x = x.xor(k[0]);
    for kr in &k[1..NR] {
        x = x.enc(*kr);
    }
    x.enclast(k[NR])
}

/// The prefix phase (see the module docs of `simd`) for `n` frames:
/// `G` registers of `B` frames per pass. Reads and writes the arrays of
/// `ch` in whole passes of `G * B` frames, which divides [`CHUNK`].
#[inline(always)]
unsafe fn prefix_g<T: Vector, const G: usize, const NR: usize>(
    rk: &[Blk; 15],
    ch: &mut Chunk,
    n: usize,
) {
    let k = round_keys::<T, NR>(rk);
    let e15 = T::splat(&E15);
    let w = G * T::B;
    let mut base = 0;
    while base < n && base + w <= CHUNK {
        let mut x = [k[0]; G];
        let mut c = [k[0]; G];
        let mut a0 = [k[0]; G];
        for g in 0..G {
            let i = base + g * T::B;
            a0[g] = T::load(ch.a0.as_ptr().add(i));
            x[g] = T::load(ch.b0.as_ptr().add(i)).xor(k[0]);
            c[g] = a0[g].xor(k[0]);
        }
        // E(B_0) beside S_0 = E(A_0).
        for kr in &k[1..NR] {
            for g in 0..G {
                x[g] = x[g].enc(*kr);
                c[g] = c[g].enc(*kr);
            }
        }
        for g in 0..G {
            let i = base + g * T::B;
            x[g] = x[g].enclast(k[NR]);
            c[g].enclast(k[NR]).store(ch.s0.as_mut_ptr().add(i));
            x[g] = x[g].xor(T::load(ch.aad1.as_ptr().add(i))).xor(k[0]);
            c[g] = a0[g].xor(e15).xor(k[0]);
        }
        // AAD block 1 beside E(A_1).
        for kr in &k[1..NR] {
            for g in 0..G {
                x[g] = x[g].enc(*kr);
                c[g] = c[g].enc(*kr);
            }
        }
        for g in 0..G {
            let i = base + g * T::B;
            x[g] = x[g].enclast(k[NR]);
            c[g].enclast(k[NR]).store(ch.ks.as_mut_ptr().add(i));
            x[g] = x[g].xor(T::load(ch.aad2.as_ptr().add(i))).xor(k[0]);
        }
        // AAD block 2.
        for kr in &k[1..NR] {
            for g in 0..G {
                x[g] = x[g].enc(*kr);
            }
        }
        for g in 0..G {
            let i = base + g * T::B;
            x[g].enclast(k[NR]).store(ch.mac.as_mut_ptr().add(i));
        }
        base += w;
    }
}

/// The tail phase: `tail = E(mac xor tail)` for `n` frames.
#[inline(always)]
unsafe fn tail_g<T: Vector, const G: usize, const NR: usize>(
    rk: &[Blk; 15],
    ch: &mut Chunk,
    n: usize,
) {
    let k = round_keys::<T, NR>(rk);
    let w = G * T::B;
    let mut base = 0;
    while base < n && base + w <= CHUNK {
        let mut x = [k[0]; G];
        for (g, xg) in x.iter_mut().enumerate() {
            let i = base + g * T::B;
            *xg = T::load(ch.mac.as_ptr().add(i))
                .xor(T::load(ch.tail.as_ptr().add(i)))
                .xor(k[0]);
        }
        for kr in &k[1..NR] {
            for xg in x.iter_mut() {
                *xg = xg.enc(*kr);
            }
        }
        for (g, xg) in x.iter().enumerate() {
            xg.enclast(k[NR])
                .store(ch.tail.as_mut_ptr().add(base + g * T::B));
        }
        base += w;
    }
}

/// The body pipeline: `steps` steps on `G * B` lanes (lanes at and
/// beyond `active` compute on lane 0's data and store nothing). Per lane
/// and step: `o = d xor ks` is stored in place of the block `d`, the MAC
/// absorbs the plaintext (`d` when encrypting, `o` when decrypting), and
/// `ks = E(ctr++)`. The MAC and counter blocks of all lanes go through
/// each round together.
///
/// The counter is stepped in its big-endian form by one add to its low
/// octet (no byte reversal per step): the caller runs only as many steps
/// as leave every lane's low octet short of wrapping (the last step may
/// take it to 0, and the caller then carries).
///
/// With `AHEAD` (protect with the body moved 8 octets up), the block
/// processed in a step is the one read a step earlier (`pend`), and the
/// step reads the block after it before storing its output, which
/// overlaps that next block.
///
/// The output block of lane `j` goes to `rp[j] + D` (the body moved by
/// `D` octets), so one pointer per lane serves both streams. With `FULL`
/// every lane of the `G` registers is active (`active == G * B`) and the
/// stores test no lane.
///
/// `mac`, `ks`, `ctr` (and with `AHEAD`, `pend`) hold at least `G * B`
/// blocks; `rp` holds `G * B` pointers; `rp[j]` is valid for `16 * steps`
/// bytes of reads (`16 * (steps + 1)` with `AHEAD`), and `rp[j] + D` for
/// lanes below `active` for `16 * steps` bytes of writes; the regions of
/// different lanes do not overlap.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn body_g<
    T: Vector,
    const G: usize,
    const NR: usize,
    const DEC: bool,
    const AHEAD: bool,
    const FULL: bool,
    const D: isize,
>(
    rk: &[Blk; 15],
    mac_s: *mut Blk,
    ks_s: *mut Blk,
    ctr_s: *mut Blk,
    pend_s: *mut Blk,
    rp: &[*mut u8],
    active: usize,
    steps: usize,
) {
    let k = round_keys::<T, NR>(rk);
    let one = T::splat(&E15);
    // The MAC chain keeps each lane one round short: `x` is the state
    // before the last round, and the last round of block s is done with
    // the key `k[NR] ^ k[0] ^ P_{s+1}`, which yields `MAC_s ^ P_{s+1}`
    // already whitened with round key 0: the xors leave the chain, whose
    // latency is then the AES rounds alone. `declast(mac ^ k[NR], 0)`
    // inverts the last round's ShiftRows and SubBytes (FIPS 197, 5.3), so
    // that the first step starts from the MAC value handed in.
    let kx = k[NR].xor(k[0]);
    let zero = T::splat(&[0; 16]);
    let mut x = [k[0]; G];
    let mut ks = [k[0]; G];
    let mut ctr = [k[0]; G];
    let mut pend = [k[0]; G];
    let mut n = [0usize; G];
    for g in 0..G {
        x[g] = T::load(mac_s.add(g * T::B)).xor(k[NR]).declast(zero);
        ks[g] = T::load(ks_s.add(g * T::B));
        if AHEAD {
            pend[g] = T::load(pend_s.add(g * T::B));
        }
        ctr[g] = T::load(ctr_s.add(g * T::B));
        n[g] = active.saturating_sub(g * T::B).min(T::B);
    }
    for s in 0..steps {
        let off = 16 * s;
        let mut c = [k[0]; G];
        for g in 0..G {
            let r = &rp[g * T::B..];
            let d = if AHEAD {
                let d = pend[g];
                pend[g] = T::gather(r, off + 16);
                d
            } else {
                T::gather(r, off)
            };
            let o = d.xor(ks[g]);
            o.scatter(
                &rp[g * T::B..],
                off as isize + D,
                if FULL { T::B } else { n[g] },
            );
            let pt = if DEC { o } else { d };
            x[g] = x[g].enclast(kx.xor(pt));
            c[g] = ctr[g].xor(k[0]);
            ctr[g] = ctr[g].add16(one);
        }
        for kr in &k[1..NR] {
            for g in 0..G {
                x[g] = x[g].enc(*kr);
                c[g] = c[g].enc(*kr);
            }
        }
        for g in 0..G {
            ks[g] = c[g].enclast(k[NR]);
        }
    }
    for g in 0..G {
        x[g].enclast(k[NR]).store(mac_s.add(g * T::B));
        ks[g].store(ks_s.add(g * T::B));
        ctr[g].store(ctr_s.add(g * T::B));
        if AHEAD {
            pend[g].store(pend_s.add(g * T::B));
        }
    }
}

macro_rules! wrappers {
    ($feat:literal, $T:ty, $G:literal, $prefix:ident, $tail:ident, $body:ident) => {
        #[target_feature(enable = $feat)]
        unsafe fn $prefix<const NR: usize>(rk: &[Blk; 15], ch: &mut Chunk, n: usize) {
            prefix_g::<$T, $G, NR>(rk, ch, n)
        }
        #[target_feature(enable = $feat)]
        unsafe fn $tail<const NR: usize>(rk: &[Blk; 15], ch: &mut Chunk, n: usize) {
            tail_g::<$T, $G, NR>(rk, ch, n)
        }
        #[target_feature(enable = $feat)]
        unsafe fn $body<const G: usize, const NR: usize, const DEC: bool>(
            rk: &[Blk; 15],
            st: &mut Lanes,
            rp: &[*mut u8; MAX_LANES],
            steps: usize,
        ) {
            // Protect reads ahead (the output moves 8 octets up);
            // unprotect's output moves down and needs no look-ahead.
            let (mac, ks, ctr, pend, active) = (
                st.mac.as_mut_ptr(),
                st.ks.as_mut_ptr(),
                st.ctr.as_mut_ptr(),
                st.pend.as_mut_ptr(),
                st.active,
            );
            // Every lane of every register active (the common case): the
            // stores need no per-lane test.
            match (DEC, active == G * <$T as Vector>::B) {
                (true, true) => body_g::<$T, G, NR, true, false, true, { -(MOVE as isize) }>(
                    rk, mac, ks, ctr, pend, rp, active, steps,
                ),
                (true, false) => body_g::<$T, G, NR, true, false, false, { -(MOVE as isize) }>(
                    rk, mac, ks, ctr, pend, rp, active, steps,
                ),
                (false, true) => body_g::<$T, G, NR, false, true, true, { MOVE as isize }>(
                    rk, mac, ks, ctr, pend, rp, active, steps,
                ),
                (false, false) => body_g::<$T, G, NR, false, true, false, { MOVE as isize }>(
                    rk, mac, ks, ctr, pend, rp, active, steps,
                ),
            }
        }
    };
}

wrappers!("aes,ssse3", X, 8, prefix_x, tail_x, body_x);
wrappers!("aes,ssse3,avx,avx2,vaes", Y, 8, prefix_y, tail_y, body_y);
wrappers!(
    "aes,ssse3,avx,avx2,vaes,avx512f,avx512bw,avx512vl",
    Z,
    8,
    prefix_z,
    tail_z,
    body_z
);

/// Picks the const instantiation: `G` registers per pass, AES-128 or
/// AES-256 rounds, encrypt or decrypt.
macro_rules! pick {
    ($f:ident, $g:expr, $nr:expr, $dec:expr, $($a:expr),*) => {
        match ($nr == 14, $dec) {
            (false, false) => pick!(@g $f, $g, 10, false, $($a),*),
            (false, true) => pick!(@g $f, $g, 10, true, $($a),*),
            (true, false) => pick!(@g $f, $g, 14, false, $($a),*),
            (true, true) => pick!(@g $f, $g, 14, true, $($a),*),
        }
    };
    (@g $f:ident, $g:expr, $nr:literal, $dec:literal, $($a:expr),*) => {
        match $g {
            0 | 1 => $f::<1, $nr, $dec>($($a),*),
            2 => $f::<2, $nr, $dec>($($a),*),
            3 => $f::<3, $nr, $dec>($($a),*),
            4 => $f::<4, $nr, $dec>($($a),*),
            5 => $f::<5, $nr, $dec>($($a),*),
            6 => $f::<6, $nr, $dec>($($a),*),
            7 => $f::<7, $nr, $dec>($($a),*),
            _ => $f::<8, $nr, $dec>($($a),*),
        }
    };
}

fn has(path: Path) -> bool {
    let f = features();
    match path {
        Path::AesNi => f & AESNI != 0,
        Path::Avx2 => f & AESNI != 0 && f & AVX2_VAES != 0,
        Path::Avx512 => f & AESNI != 0 && f & AVX512_VAES != 0,
        Path::Portable => false,
    }
}

/// Prefix phase on a vector path (the caller picked a vector path).
pub(super) fn prefix(path: Path, k: &RoundKeys, ch: &mut Chunk, n: usize) {
    if !has(path) {
        return;
    }
    let nr14 = k.nr == 14;
    // SAFETY: the instruction set of the chosen wrapper was detected
    // (`has`); the kernels only touch `ch` through its own arrays, in
    // passes that end at or before CHUNK (8 registers * B blocks divides
    // 64).
    unsafe {
        match (path, nr14) {
            (Path::Avx512, false) => prefix_z::<10>(&k.rk, ch, n),
            (Path::Avx512, true) => prefix_z::<14>(&k.rk, ch, n),
            (Path::Avx2, false) => prefix_y::<10>(&k.rk, ch, n),
            (Path::Avx2, true) => prefix_y::<14>(&k.rk, ch, n),
            (_, false) => prefix_x::<10>(&k.rk, ch, n),
            (_, true) => prefix_x::<14>(&k.rk, ch, n),
        }
    }
}

/// Tail phase on a vector path.
pub(super) fn tail(path: Path, k: &RoundKeys, ch: &mut Chunk, n: usize) {
    if !has(path) {
        return;
    }
    let nr14 = k.nr == 14;
    // SAFETY: as in `prefix`.
    unsafe {
        match (path, nr14) {
            (Path::Avx512, false) => tail_z::<10>(&k.rk, ch, n),
            (Path::Avx512, true) => tail_z::<14>(&k.rk, ch, n),
            (Path::Avx2, false) => tail_y::<10>(&k.rk, ch, n),
            (Path::Avx2, true) => tail_y::<14>(&k.rk, ch, n),
            (_, false) => tail_x::<10>(&k.rk, ch, n),
            (_, true) => tail_x::<14>(&k.rk, ch, n),
        }
    }
}

/// Body steps on a vector path. The caller (`Engine::body`) checked that
/// `1 <= lanes.active <= MAX_LANES`, that the lanes name distinct frames
/// of `bufs`, and that each has `16 * steps` bytes from its offset.
pub(super) fn body(
    path: Path,
    k: &RoundKeys,
    lanes: &mut Lanes,
    bufs: &mut [&mut [u8]],
    steps: usize,
    dec: bool,
) {
    let active = lanes.active;
    if !has(path) || active == 0 || active > MAX_LANES {
        return;
    }
    let mut rp = [core::ptr::null_mut::<u8>(); MAX_LANES];
    let rspan = if dec { 16 * steps } else { 16 * (steps + 1) };
    for j in 0..active {
        let (job, rd, wr) = (lanes.job[j], lanes.rd[j], lanes.wr[j]);
        let Some(b) = bufs.get_mut(job) else {
            return;
        };
        // The kernels write each lane's output at its read pointer moved
        // by `MOVE` (`body_g`).
        if !moved(rd, wr, dec)
            || rd.checked_add(rspan).is_none_or(|e| e > b.len())
            || wr.checked_add(16 * steps).is_none_or(|e| e > b.len())
        {
            return;
        }
        // SAFETY: `rd` is at most `b.len()` (checked just above), so the
        // offset stays inside (or one past) the slice.
        rp[j] = unsafe { b.as_mut_ptr().add(rd) };
    }
    for j in active..MAX_LANES {
        rp[j] = rp[0];
    }
    let nr = k.nr;
    let rk = &k.rk;
    let mut left = steps;
    while left > 0 {
        // The kernels step only the counter's low octet (`body_g`): run
        // as many steps as no active lane's low octet wraps in (at least
        // one, as the octet is at most 255), then carry by hand. Without
        // `wraps` (bodies under 254 full blocks: counters 2 to 255) no
        // lane can wrap, and all steps run at once.
        let n = if lanes.wraps {
            lanes.ctr[..active]
                .iter()
                .map(|c| 256 - usize::from(c[15]))
                .fold(left, usize::min)
        } else {
            left
        };
        // SAFETY: the instruction set of each wrapper was detected
        // (`has`). Each `rp[j]` of an active lane points into its own
        // frame buffer (distinct `&mut` slices of `bufs`, checked distinct
        // by the caller), with the bytes the kernel reads (`16 * n`, one
        // block more when protecting) after it, and the `16 * n` bytes it
        // writes after `rp[j]` moved by `MOVE` (the write offset checked
        // above to be the read offset so moved): `n <= left`, and the
        // pointers have moved `16 * (steps - left)` into spans checked
        // above for `steps` steps, so every access is in bounds and lanes
        // never alias each other. Within a lane, reads and writes overlap
        // only as the kernel orders them (a block is read before the store
        // over it). Lanes from `active` on repeat lane 0's pointer and are
        // only read through, never written (the kernel stores `min(B,
        // active - g*B)` blocks per register; all `B` only in its `FULL`
        // form, which the wrapper picks when `active == G * B`). `G * B <=
        // MAX_LANES` for every G picked below, so the state arrays of
        // `lanes` cover every register loaded.
        unsafe {
            match path {
                Path::Avx512 => pick!(body_z, active.div_ceil(4), nr, dec, rk, lanes, &rp, n),
                Path::Avx2 => pick!(body_y, active.div_ceil(2), nr, dec, rk, lanes, &rp, n),
                _ => pick!(body_x, active, nr, dec, rk, lanes, &rp, n),
            }
        }
        if lanes.wraps {
            for c in &mut lanes.ctr[..active] {
                // After n >= 1 steps from a low octet of at most 256 - n,
                // the octet is 0 only where it wrapped.
                if c[15] == 0 {
                    c[14] = c[14].wrapping_add(1);
                }
            }
        }
        left -= n;
        if left == 0 {
            break;
        }
        for r in rp.iter_mut() {
            // SAFETY: after this move each pointer is `16 * (steps -
            // left)` bytes, with `left >= 1` steps still to run, into a
            // span checked above for all `steps`: it stays inside its
            // frame.
            *r = unsafe { r.add(16 * n) };
        }
    }
}

/// One-frame fused CCM on xmm: prefix (MAC over `B_0`, AAD1, AAD2 with
/// `S_0` and `E(A_1)` beside it), then the body's full blocks with each
/// MAC block and counter block in the same rounds. Returns the MAC value,
/// the keystream for the block after `body`, and `S_0`.
#[target_feature(enable = "aes,ssse3")]
unsafe fn fused_x<const NR: usize, const DEC: bool>(
    rk: &[Blk; 15],
    b0: &Blk,
    aad1: &Blk,
    aad2: &Blk,
    a0: &Blk,
    body: &mut [u8],
) -> (Blk, Blk, Blk) {
    let k = round_keys::<X, NR>(rk);
    let mut x = X::load(b0).xor(k[0]);
    let mut c = X::load(a0).xor(k[0]);
    for kr in &k[1..NR] {
        x = x.enc(*kr);
        c = c.enc(*kr);
    }
    let s0 = c.enclast(k[NR]);
    x = x.enclast(k[NR]).xor(X::load(aad1)).xor(k[0]);
    c = X::load(a0).xor(X::splat(&E15)).xor(k[0]);
    for kr in &k[1..NR] {
        x = x.enc(*kr);
        c = c.enc(*kr);
    }
    let mut st_mac = [[0u8; 16]; 1];
    let mut st_ks = [[0u8; 16]; 1];
    let mut st_ctr = [super::ctr_add(a0, 2); 1];
    x.enclast(k[NR]).xor(X::load(aad2)).store(&mut st_mac[0]);
    c.enclast(k[NR]).store(&mut st_ks[0]);
    // AAD block 2 runs as the first half of a body-less step: finish it
    // alone, then stream the body.
    let mut m = X::load(&st_mac[0]).xor(k[0]);
    for kr in &k[1..NR] {
        m = m.enc(*kr);
    }
    m.enclast(k[NR]).store(&mut st_mac[0]);
    let steps = body.len() / 16;
    if steps > 0 {
        let p = [body.as_mut_ptr()];
        body_g::<X, 1, NR, DEC, false, true, 0>(
            rk,
            st_mac.as_mut_ptr(),
            st_ks.as_mut_ptr(),
            st_ctr.as_mut_ptr(),
            st_ctr.as_mut_ptr(),
            &p,
            1,
            steps,
        );
    }
    let mut s = [0u8; 16];
    s0.store(&mut s);
    (st_mac[0], st_ks[0], s)
}

/// Safe entry of the fused single-frame path: processes the full blocks
/// of `body` (its length is rounded down to whole blocks).
pub(super) fn fused(
    k: &RoundKeys,
    b0: &Blk,
    aad1: &Blk,
    aad2: &Blk,
    a0: &Blk,
    body: &mut [u8],
    dec: bool,
) -> (Blk, Blk, Blk) {
    let full = body.len() / 16 * 16;
    let body = &mut body[..full];
    if !has(Path::AesNi) {
        return ([0; 16], [0; 16], [0; 16]);
    }
    // SAFETY: AES-NI and SSSE3 were detected. The kernel reads and writes
    // `body` through one pointer for `body.len() / 16` whole blocks, which
    // is in bounds; every other access is to the references passed.
    unsafe {
        match (k.nr == 14, dec) {
            (false, false) => fused_x::<10, false>(&k.rk, b0, aad1, aad2, a0, body),
            (false, true) => fused_x::<10, true>(&k.rk, b0, aad1, aad2, a0, body),
            (true, false) => fused_x::<14, false>(&k.rk, b0, aad1, aad2, a0, body),
            (true, true) => fused_x::<14, true>(&k.rk, b0, aad1, aad2, a0, body),
        }
    }
}

/// The CBC-MAC chain over `head` and then the whole blocks of `data`
/// (whose length is a multiple of 16): `x = E(x xor B_i)` for each block,
/// the chaining value kept in a register from block to block.
pub(super) fn cbc_chain(k: &RoundKeys, x: &Blk, head: &Blk, data: &[u8]) -> Blk {
    #[target_feature(enable = "aes,ssse3")]
    unsafe fn chain<const NR: usize>(rk: &[Blk; 15], x: &Blk, head: &Blk, data: &[u8]) -> Blk {
        let k = round_keys::<X, NR>(rk);
        let mut v = aes::<X, NR>(&k, X::load(x).xor(X::load(head)));
        for b in data.chunks_exact(16) {
            v = aes::<X, NR>(&k, v.xor(X(_mm_loadu_si128(b.as_ptr().cast()))));
        }
        let mut o = [0u8; 16];
        v.store(&mut o);
        o
    }
    if !has(Path::AesNi) {
        return [0; 16];
    }
    // SAFETY: AES-NI detected; the loads read whole 16-octet chunks of
    // `data` (`chunks_exact`), the rest are the given references.
    unsafe {
        if k.nr == 14 {
            chain::<14>(&k.rk, x, head, data)
        } else {
            chain::<10>(&k.rk, x, head, data)
        }
    }
}

/// One block through AES with the vector key schedule.
pub(super) fn encrypt1(k: &RoundKeys, b: &Blk) -> Blk {
    #[target_feature(enable = "aes,ssse3")]
    unsafe fn enc<const NR: usize>(rk: &[Blk; 15], b: &Blk) -> Blk {
        let mut o = [0u8; 16];
        aes::<X, NR>(&round_keys::<X, NR>(rk), X::load(b)).store(&mut o);
        o
    }
    if !has(Path::AesNi) {
        return [0; 16];
    }
    // SAFETY: AES-NI detected; only the given references are accessed.
    unsafe {
        if k.nr == 14 {
            enc::<14>(&k.rk, b)
        } else {
            enc::<10>(&k.rk, b)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h16(s: &str) -> Blk {
        let v = hex::decode(s).unwrap();
        let mut b = [0u8; 16];
        b.copy_from_slice(&v);
        b
    }

    // FIPS 197, Appendix C.1 (AES-128) and C.3 (AES-256).
    #[test]
    fn key_schedule_fips197_c1_c3() {
        if features() & AESNI == 0 {
            extern crate std;
            std::println!("note: no AES-NI, x86 key schedule not tested");
            return;
        }
        let pt = h16("00112233445566778899aabbccddeeff");
        let k128 = hex::decode("000102030405060708090a0b0c0d0e0f").unwrap();
        let rk = RoundKeys::new(&k128).unwrap();
        assert_eq!(encrypt1(&rk, &pt), h16("69c4e0d86a7b0430d8cdb78070b4c55a"));
        // FIPS 197, A.1: the last round key of the A.1 key.
        let a1 = hex::decode("2b7e151628aed2a6abf7158809cf4f3c").unwrap();
        assert_eq!(
            RoundKeys::new(&a1).unwrap().rk[10],
            h16("d014f9a8c9ee2589e13f0cc8b6630ca6")
        );
        let k256 = hex::decode("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
            .unwrap();
        let rk = RoundKeys::new(&k256).unwrap();
        assert_eq!(encrypt1(&rk, &pt), h16("8ea2b7ca516745bfeafc49904b496089"));
        let mut flipped = pt;
        flipped[0] ^= 1;
        assert_ne!(
            encrypt1(&rk, &flipped),
            h16("8ea2b7ca516745bfeafc49904b496089")
        );
        assert!(RoundKeys::new(&[0u8; 24]).is_none());
    }
}
