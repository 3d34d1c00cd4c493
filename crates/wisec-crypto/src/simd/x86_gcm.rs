//! x86-64 GCM kernels: AES-CTR stitched with GHASH, on xmm (AES-NI +
//! PCLMULQDQ, 1 block per register), ymm (VAES + VPCLMULQDQ, 2 blocks)
//! and zmm (4 blocks), with aggregated reduction (see `super::gcm`).
//!
//! A kernel works in groups of `G` registers (`W = G * B` blocks): per
//! group it runs the AES rounds of `W` counter blocks and, between the
//! rounds, multiplies `W` ciphertext blocks by powers of `H` (three
//! carry-less multiplications per register, Karatsuba) and adds the
//! products unreduced. Encryption hashes the previous group's ciphertext
//! beside the current group's rounds; decryption hashes the group it
//! decrypts. The first group takes `H^W .. H^1` and is reduced alone
//! (with the AAD's last blocks above it). The groups after it go in
//! pairs: the first of a pair takes `H^2W .. H^(W + 1)`, the second
//! `H^W .. H^1`, and the pair is reduced once (the power table holds
//! `2W` powers on every path). The running hash enters the first block
//! of each reduced span. The last partial group, the lengths block and
//! the hash so far are multiplied by the powers that fit their places
//! and reduced once; when the last whole group is left without a partner
//! and fits the power table beside them, its products join that sum, so
//! the tag waits for one reduction, not two.
//!
//! Per-message work is kept off the tag's critical path: `J_0` is built
//! in a register from the nonce (not loaded from a block just stored in
//! pieces, which would wait for the stores to retire), and `E(J_0)` and
//! the keystream of the last partial group are computed before the bulk
//! loop (see `early`).
//!
//! A message of at most two registers of data and AAD (112 and 128
//! octets on zmm) takes `short_g` instead: straight-line code with one
//! aggregated product and one reduction, and none of the group set-up.
//!
//! The wrappers are reached only after [`available`] reported the
//! instructions; a [`RoundKeys`] exists only when AES-NI was found.

#![allow(clippy::needless_range_loop)]

use core::arch::x86_64::*;

use super::gcm::{lengths, CheckedPath, GhashKey, Io, POWERS};
use super::x86::{
    aes, features, round_keys, Vector, AESNI, AVX2_VAES, AVX512_VAES, PCLMUL, REV, VPCLMUL, X, Y, Z,
};
use super::{Blk, RoundKeys};
use crate::batch::Path;

/// Most registers per group of any kernel.
const MAX_G: usize = 8;

/// Room for the input of a last partial group. Its alignment to a cache
/// line is what makes the compiler realign the kernels' stack frame to 64
/// octets; without it their zmm spill slots sit wherever the caller's
/// stack happens to end, and most spills then cross a cache line.
#[repr(C, align(64))]
struct Aside([Blk; MAX_G * 4]);

/// True when this CPU runs the GCM kernel of `path`.
#[inline]
pub(super) fn available(path: Path) -> bool {
    let need = match path {
        Path::Portable => return true,
        Path::AesNi => AESNI | PCLMUL,
        Path::Avx2 => AESNI | PCLMUL | AVX2_VAES | VPCLMUL,
        Path::Avx512 => AESNI | PCLMUL | AVX2_VAES | AVX512_VAES | VPCLMUL,
    };
    features() & need == need
}

/// The Montgomery constant 0xC200000000000000 in both halves.
static Q: Blk = [0, 0, 0, 0, 0, 0, 0, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0xc2];
/// Word 0 of block `i` = `i`: the counter offsets of a register's lanes.
static LANES: [Blk; 4] = [
    [0; 16],
    [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
];
/// 64 bytes of ones, then 64 of zeros: loaded at `64 - n`, the mask of
/// the first `n` bytes of a register.
static KEEP: [u8; 128] = {
    let mut k = [0u8; 128];
    let mut i = 0;
    while i < 64 {
        k[i] = 0xff;
        i += 1;
    }
    k
};

/// A block whose 32-bit word 0 is `v` (a counter increment in the
/// byte-reversed counter block).
#[inline(always)]
fn word0(v: usize) -> Blk {
    let mut b = [0u8; 16];
    b[..4].copy_from_slice(&(v as u32).to_le_bytes());
    b
}

/// A block whose last octet is `v` (a counter increment in a counter
/// block as it is, while the counter's last octet does not carry).
#[inline(always)]
fn last_octet(v: usize) -> Blk {
    let mut b = [0u8; 16];
    b[15] = v as u8;
    b
}

/// Unreduced Karatsuba products: low halves, high halves, middle terms.
#[derive(Clone, Copy)]
struct Acc<T: Vector> {
    lo: T,
    hi: T,
    mid: T,
}

impl<T: Vector> Acc<T> {
    #[inline(always)]
    unsafe fn new() -> Acc<T> {
        let z = T::splat(&[0; 16]);
        Acc {
            lo: z,
            hi: z,
            mid: z,
        }
    }

    /// Adds `d * p` per block; `k` holds the xor of `p`'s halves.
    #[inline(always)]
    unsafe fn mul(&mut self, d: T, p: T, k: T) {
        self.lo = self.lo.xor(d.clmul::<0x00>(p));
        self.hi = self.hi.xor(d.clmul::<0x11>(p));
        self.mid = self.mid.xor(d.xor(d.swap64()).clmul::<0x00>(k));
    }

    /// The sums over the register's blocks, plus `x`'s.
    #[inline(always)]
    unsafe fn fold_with(self, x: Acc<X>) -> Acc<X> {
        Acc {
            lo: X(_mm_xor_si128(self.lo.fold(), x.lo.0)),
            hi: X(_mm_xor_si128(self.hi.fold(), x.hi.0)),
            mid: X(_mm_xor_si128(self.mid.fold(), x.mid.0)),
        }
    }
}

/// Montgomery reduction of the 256-bit `hi:lo` (see `super::gcm::mont`).
#[inline(always)]
unsafe fn mont(lo: __m128i, hi: __m128i) -> __m128i {
    let q = _mm_loadu_si128(Q.as_ptr().cast());
    let r1 = _mm_clmulepi64_si128::<0x00>(lo, q);
    let t = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), r1);
    let r2 = _mm_clmulepi64_si128::<0x00>(t, q);
    let u = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(t), r2);
    _mm_xor_si128(hi, u)
}

/// Combines the Karatsuba terms and reduces: the field element of the sum.
#[inline(always)]
unsafe fn reduce(a: Acc<X>) -> __m128i {
    let mid = _mm_xor_si128(a.mid.0, _mm_xor_si128(a.lo.0, a.hi.0));
    let lo = _mm_xor_si128(a.lo.0, _mm_slli_si128::<8>(mid));
    let hi = _mm_xor_si128(a.hi.0, _mm_srli_si128::<8>(mid));
    mont(lo, hi)
}

/// One block through the AES rounds, with block 0 of each of the round
/// key registers `k` (taken as it is in the register: no load of its own).
#[inline(always)]
unsafe fn aes_lane0<T: Vector, const NR: usize>(k: &[T; 15], x: __m128i) -> __m128i {
    let mut x = _mm_xor_si128(x, k[0].low());
    for kr in &k[1..NR] {
        x = _mm_aesenc_si128(x, kr.low());
    }
    _mm_aesenclast_si128(x, k[NR].low())
}

/// Loads the `B` powers (or Karatsuba halves) from entry `i`.
#[inline(always)]
unsafe fn tab<T: Vector>(t: &[Blk; POWERS + 4], i: usize) -> T {
    T::load(t.as_ptr().add(i))
}

/// `x`, computed here: an empty `asm!` that takes `x` in a register
/// keeps the compiler from sinking the work that makes `x` to its first
/// use (after the bulk loop, where its latency would be on the critical
/// path of the tag).
#[inline(always)]
unsafe fn early(x: __m128i) -> __m128i {
    // SAFETY: the asm has no instructions (a comment); it only names the
    // register holding `x`, and touches no memory, stack or flags.
    core::arch::asm!("/* {0} */", in(xmm_reg) x, options(nomem, nostack, preserves_flags));
    x
}

/// As [`early`] for a vector of any width.
#[inline(always)]
unsafe fn early_v<T: Vector>(x: T) {
    early(x.low());
}

/// Loads `bytes <= 16 * B` bytes at `p` (zero padded).
#[inline(always)]
unsafe fn load_upto<T: Vector>(p: *const u8, bytes: usize) -> T {
    if bytes == 16 * T::B {
        T::load(p.cast())
    } else {
        T::load_partial(p, bytes)
    }
}

/// Stores the first `bytes <= 16 * B` bytes of `v` at `p`.
#[inline(always)]
unsafe fn store_upto<T: Vector>(v: T, p: *mut u8, bytes: usize) {
    if bytes == 16 * T::B {
        v.store(p.cast())
    } else {
        v.store_partial(p, bytes)
    }
}

/// Adds the blocks of the `len` bytes at `p` (zero padded to whole
/// blocks), block `i` times the power at table entry `first + i`, and
/// `s` into the first block. `len` is at most `16 * POWERS - 16 * first`.
#[inline(always)]
unsafe fn acc_bytes<T: Vector>(
    acc: &mut Acc<T>,
    t: &GhashKey,
    s: Option<__m128i>,
    p: *const u8,
    len: usize,
    first: usize,
) {
    let rev = T::splat(&REV);
    let w = 16 * T::B;
    let mut off = 0;
    while off < len {
        let mut d = load_upto::<T>(p.add(off), (len - off).min(w)).rev(rev);
        if off == 0 {
            if let Some(s) = s {
                d = d.xor(T::lane0(s));
            }
        }
        let i = first + off / 16;
        acc.mul(d, tab(&t.pow, i), tab(&t.kar, i));
        off += w;
    }
}

/// Adds the products of one group of `G` registers of ciphertext blocks
/// (as they are in memory) by the powers from table entry `base` on
/// (`H^W .. H^1` for `base = POWERS - W`) to `acc`, with the running
/// hash `s` in the first block; register 0 last, so that the chain
/// through `s` is as short as it can be.
#[inline(always)]
unsafe fn hash_group<T: Vector, const G: usize>(
    t: &GhashKey,
    acc: &mut Acc<T>,
    regs: &[T; G],
    s: Option<__m128i>,
    base: usize,
) {
    let rev = T::splat(&REV);
    for g in (0..G).rev() {
        let mut d = regs[g].rev(rev);
        if g == 0 {
            if let Some(s) = s {
                d = d.xor(T::lane0(s));
            }
        }
        let i = base + g * T::B;
        acc.mul(d, tab(&t.pow, i), tab(&t.kar, i));
    }
}

/// GHASH of the whole groups of `len` bytes at `p` after `s`: per group of
/// `W` blocks one aggregated product and one reduction. Returns the hash
/// and how many bytes it took (the rest, fewer than a group, is left for
/// the caller to aggregate with what follows).
#[inline(always)]
unsafe fn hash_groups<T: Vector, const G: usize>(
    t: &GhashKey,
    mut s: __m128i,
    p: *const u8,
    len: usize,
) -> (__m128i, usize) {
    let w = G * T::B;
    let mut off = 0;
    while len - off >= 16 * w {
        let mut regs = [T::splat(&[0; 16]); G];
        for (g, r) in regs.iter_mut().enumerate() {
            *r = T::load(p.add(off + 16 * g * T::B).cast());
        }
        let mut acc = Acc::<T>::new();
        hash_group(t, &mut acc, &regs, Some(s), POWERS - w);
        s = reduce(acc.fold_with(Acc::new()));
        off += 16 * w;
    }
    (s, off)
}

/// `J_0 = IV || 0^31 || 1` (SP 800-38D, 7.1 step 2), built in a
/// register: a 16-byte load of a block just written in pieces would
/// wait for the stores to retire (no store forwarding).
#[inline(always)]
unsafe fn j0_reg(nonce: &[u8; 12]) -> __m128i {
    let iv_lo = u64::from_le_bytes([
        nonce[0], nonce[1], nonce[2], nonce[3], nonce[4], nonce[5], nonce[6], nonce[7],
    ]);
    let iv_hi = u32::from_le_bytes([nonce[8], nonce[9], nonce[10], nonce[11]]);
    _mm_set_epi64x((u64::from(iv_hi) | 1 << 56) as i64, iv_lo as i64)
}

/// The tag: the hash `s` back in byte order, xor `E(J_0)` (SP 800-38D,
/// 7.1 step 6).
#[inline(always)]
unsafe fn tag_of(s: __m128i, ej0: __m128i) -> Blk {
    let tag = _mm_xor_si128(
        _mm_shuffle_epi8(s, _mm_loadu_si128(REV.as_ptr().cast())),
        ej0,
    );
    let mut out = [0u8; 16];
    _mm_storeu_si128(out.as_mut_ptr().cast(), tag);
    out
}

/// GCM encryption (`DEC == false`) or decryption of `len` bytes from
/// `src` to `dst` with AAD `aad`, returning the tag `E(J_0) xor GHASH`.
///
/// The GHASH input (SP 800-38D, 7.1 step 5: AAD zero padded, ciphertext
/// zero padded, `[len(A)]_64 || [len(C)]_64`) is cut so that every
/// reduction covers as many blocks as the power table allows: the AAD's
/// last partial group rides with the first group of ciphertext (or, for
/// a short message, everything is one aggregate), and the ciphertext's
/// last partial group with the lengths block.
///
/// `src` is valid for `len` bytes of reads, `dst` for `len` bytes of
/// writes, `aad` for `aad_len` reads; `dst` is `src`, `src + 8`,
/// `src - 8`, or does not overlap `src`. Each group is loaded before the
/// previous group's output is stored, and when output and input overlap
/// but differ, the input of the last partial group is copied aside
/// before the first store: no input byte is read after an output store
/// may have covered it.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn crypt_g<T: Vector, const G: usize, const NR: usize, const DEC: bool>(
    rk: &[Blk; 15],
    t: &GhashKey,
    nonce: &[u8; 12],
    aad: *const u8,
    aad_len: usize,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    lens: u128,
) -> Blk {
    let k = round_keys::<T, NR>(rk);
    let rev = T::splat(&REV);
    let w = G * T::B;
    let zt = T::splat(&[0; 16]);
    let j = j0_reg(nonce);
    // E(J_0) masks the tag (SP 800-38D, 7.1 step 6). Its ten or fourteen
    // dependent rounds start now, beside everything else, rather than
    // where the tag needs them (see `early`).
    let ej0 = early(aes_lane0::<T, NR>(&k, j));

    let groups = len / (16 * w);
    let tail_at = groups * 16 * w;
    let rem = len - tail_at;
    let nb = rem.div_ceil(16);

    // The AAD: whole groups first (only for AAD longer than a group),
    // the rest aggregated with what follows it.
    let (s_aad, aad_done) = hash_groups::<T, G>(t, _mm_setzero_si128(), aad, aad_len);
    let s_aad = (aad_done > 0).then_some(s_aad);
    let aad_rest = aad_len - aad_done;
    let rab = aad_rest.div_ceil(16);
    let mut pre = Acc::<T>::new();
    // With no whole group of data, the AAD's rest, the data and the
    // lengths block share one aggregate when the power table has a power
    // for each of their blocks; otherwise (`rab + nb + 1` can reach
    // `2 * w + 1`, one more than the table when `w` is half of it) the
    // AAD's rest is reduced on its own first.
    let alone = groups == 0 && rab + nb + 1 > POWERS;
    // The last whole group and the tail share one reduction when their
    // blocks and the lengths block fit the power table: the group's
    // blocks then take the powers above the tail's. With one group, the
    // AAD's rest is hashed with it, so it must fit as well (above the
    // group); with more, it rides with the first group at `base`.
    // `w + nb + 1 <= POWERS`: the group, the tail and the lengths block.
    // Groups after the first are hashed in pairs with one reduction (see
    // the bulk loop), so with more than one group only an even count
    // leaves the last group unpaired, free to merge.
    let merge = match groups {
        0 => false,
        1 => w + nb + 1 + rab <= POWERS,
        g => g % 2 == 0 && w + nb < POWERS,
    };
    let merged_base = POWERS - w - (nb + 1).min(POWERS - w);
    let aad_first = if groups == 1 && merge {
        merged_base - rab
    } else if groups > 0 {
        POWERS - w - rab
    } else if alone {
        POWERS - rab
    } else {
        POWERS - (rab + nb + 1)
    };
    acc_bytes::<T>(&mut pre, t, s_aad, aad.add(aad_done), aad_rest, aad_first);
    // Whatever hash precedes the first group of ciphertext that is not in
    // `pre` yet: only an AAD of whole groups leaves one, or an AAD
    // reduced alone.
    let mut s = if alone {
        let h = reduce(pre.fold_with(Acc::new()));
        pre = Acc::new();
        Some(h)
    } else if rab == 0 {
        s_aad
    } else {
        None
    };

    // Counter blocks byte-reversed: the 32-bit counter is word 0, and
    // a 32-bit add is inc32 (SP 800-38D, 6.2). Lane l of register g of
    // the first group holds J_0 + 1 + g * B + l.
    let c0 = T::splat_reg(j)
        .rev(rev)
        .add32(T::load(LANES.as_ptr()))
        .add32(T::splat(&word0(1)));
    let mut ctr = [c0; G];
    for g in 0..G {
        ctr[g] = c0.add32(T::splat(&word0(g * T::B)));
    }
    // The bulk loop's counter blocks in byte order, as AES takes them,
    // stepped by adding `w` to their last octet alone (one add, no byte
    // reversal per register): exact while no lane's last octet passes
    // 255. A group whose lanes' last octets `lo .. lo + w` pass 255, and
    // a group reached by a step that passed 255, are built from `c0`
    // instead (inc32 exactly). Block 0 of the data takes counter 2 (the
    // nonce is 96 bits: J_0 ends in 1), so messages under 254 blocks
    // never carry.
    // The first group's are built here, before the loop, rather than by
    // the loop's rebuild: left to the loop, decryption of 1500 octets
    // took about 30% longer (`gcm_speed 1500 avx512`).
    let mut cbe = [zt; G];
    for g in 0..G {
        cbe[g] = ctr[g].rev(rev);
    }
    let step_be = T::splat(&last_octet(w));
    let mut resync = false;
    // The keystream of the last partial group, early: its counters are
    // known, and at the end only the xor and the hash are left to wait
    // for.
    let mut tail_ks = [zt; G];
    for r in 0..G {
        if r * T::B < nb {
            let c = ctr[r].add32(T::splat(&word0(groups * w)));
            tail_ks[r] = aes::<T, NR>(&k, c.rev(rev));
            early_v(tail_ks[r]);
        }
    }

    let mut aside = core::mem::MaybeUninit::<Aside>::uninit();
    let overlap = (dst as usize) < src as usize + len && (src as usize) < dst as usize + len;
    let moved = overlap && dst.cast_const() != src;
    let tail_src = if moved {
        // `rem` is below `16 * W`, the size of `aside`.
        let a = aside.as_mut_ptr().cast::<u8>();
        core::ptr::copy_nonoverlapping(src.add(tail_at), a, rem);
        a.cast_const()
    } else {
        src.add(tail_at)
    };

    let base = POWERS - w;
    // The first group of a pair: its blocks take the powers above the
    // second's, `H^2W .. H^(W + 1)`, and the pair is reduced once.
    const { assert!(2 * G * T::B <= POWERS) };
    let pair_base = POWERS - 2 * w;
    let mut carry = Acc::<T>::new();
    let mut next = [zt; G];
    if groups > 0 {
        for g in 0..G {
            next[g] = T::load(src.add(16 * g * T::B).cast());
        }
    }
    let mut prev = [zt; G];
    for i in 0..groups {
        let cur = next;
        // The last octet of the group's first counter.
        let lo = (2 + i * w) % 256;
        if resync || lo + w > 256 {
            for g in 0..G {
                cbe[g] = c0.add32(T::splat(&word0(i * w + g * T::B))).rev(rev);
            }
        }
        // The step below takes some lane past 255.
        resync = lo + w >= 256;
        let mut x = [zt; G];
        for g in 0..G {
            x[g] = cbe[g].xor(k[0]);
            cbe[g] = cbe[g].add32(step_be);
        }
        let hashing = DEC || i > 0;
        // The group hashed now: this one when decrypting, the one before
        // when encrypting. The first group is reduced alone (with the
        // AAD's rest); after it, groups 1 and 2, 3 and 4, ... share one
        // reduction, the first of a pair carried to the second in `pre`
        // unreduced. A last group left without a partner is reduced
        // alone or merged with the tail.
        let hg = if DEC { i } else { i.wrapping_sub(1) };
        let first_of_pair = hashing && hg % 2 == 1 && hg + 1 < groups;
        let last_merged = DEC && merge && i + 1 == groups;
        let gb = if last_merged {
            merged_base
        } else if first_of_pair {
            pair_base
        } else {
            base
        };
        let h = if DEC { cur } else { prev };
        // The AAD's rest before the first reduction, the first of a
        // pair, or nothing.
        let mut acc = pre;
        for r in 1..NR {
            for g in 0..G {
                x[g] = x[g].enc(k[r]);
            }
            // One register's products between rounds; register 0, which
            // takes the running hash, last.
            if hashing && r <= G {
                let g = G - r;
                let mut d = h[g].rev(rev);
                if g == 0 {
                    if let Some(s) = s {
                        d = d.xor(T::lane0(s));
                    }
                }
                let ti = gb + g * T::B;
                acc.mul(d, tab(&t.pow, ti), tab(&t.kar, ti));
            }
        }
        if i + 1 < groups {
            for g in 0..G {
                next[g] = T::load(src.add(16 * ((i + 1) * w + g * T::B)).cast());
            }
        }
        for g in 0..G {
            let o = x[g].enclast(k[NR]).xor(cur[g]);
            o.store(dst.add(16 * (i * w + g * T::B)).cast());
            prev[g] = o;
        }
        if last_merged {
            // Its running hash went into its first block.
            carry = acc;
            s = None;
        } else if first_of_pair {
            // Likewise; the second of the pair adds to it.
            pre = acc;
            s = None;
        } else if hashing {
            s = Some(reduce(acc.fold_with(Acc::new())));
            pre = Acc::new();
        }
    }
    // Encrypting, the last group is hashed here: with one group, the
    // AAD's rest in `pre` comes along (aligned above it when merged);
    // as the second of a pair, the first is in `pre`; unpaired, `pre`
    // is empty.
    if !DEC && merge {
        carry = pre;
        hash_group(t, &mut carry, &prev, s, merged_base);
        s = None;
    } else if !DEC && groups > 0 {
        let mut acc = pre;
        hash_group(t, &mut acc, &prev, s, base);
        s = Some(reduce(acc.fold_with(Acc::new())));
    }

    // The last partial group and the lengths block (SP 800-38D, 7.1
    // step 5), with the running hash in the first block: the ciphertext
    // block `i` of the tail times `H^(nb + 1 - i)`, the lengths times `H`.
    let mut acc = if groups == 0 { pre } else { carry };
    let first = POWERS - (nb + 1);
    let lens = _mm_set_epi64x((lens >> 64) as i64, lens as i64);
    let rw = 16 * T::B;
    let out = dst.add(tail_at);
    let mut r = 0;
    while r * T::B <= nb {
        let off = r * rw;
        let mut c = zt;
        if off < rem {
            let bytes = (rem - off).min(rw);
            let d = load_upto::<T>(tail_src.add(off), bytes);
            let o = tail_ks[r].xor(d);
            store_upto(o, out.add(off), bytes);
            c = if DEC { d } else { keep_first(o, bytes) };
        }
        let mut c = c.rev(rev);
        if r == 0 {
            if let Some(s) = s {
                c = c.xor(T::lane0(s));
            }
        }
        if nb / T::B == r {
            c = c.xor_lane(lens, nb % T::B);
        }
        let ti = first + r * T::B;
        acc.mul(c, tab(&t.pow, ti), tab(&t.kar, ti));
        r += 1;
    }
    if moved {
        // Only the `rem` bytes copied in were ever written.
        super::wipe_bytes(core::slice::from_raw_parts_mut(
            aside.as_mut_ptr().cast::<u8>(),
            rem,
        ));
    }
    tag_of(reduce(acc.fold_with(Acc::new())), ej0)
}

/// The first `bytes <= 16 * B` bytes of `v`, zeros after them.
#[inline(always)]
unsafe fn keep_first<T: Vector>(v: T, bytes: usize) -> T {
    if bytes == 16 * T::B {
        v
    } else {
        v.and(T::load(KEEP.as_ptr().add(64 - bytes).cast()))
    }
}

/// The most data octets [`short_g`] takes on `T`: two registers of
/// blocks, the last holding at least the lengths block.
const fn short_max<T: Vector>() -> usize {
    16 * (2 * T::B - 1)
}

/// [`crypt_g`] for a short message, in straight-line code: data of at
/// most [`short_max`] octets (one or two registers of counter blocks)
/// and AAD of at most two registers. With no whole group there is no
/// bulk loop; what is left of `crypt_g`'s set-up (the group and merge
/// arithmetic, the look-ahead, the copy aside) costs more than the work
/// itself on a frame this size. The whole input is loaded before the
/// first store, so `dst` may be `src`, `src + 8`, `src - 8` or apart.
/// GHASH (SP 800-38D, 6.4 and 7.1 step 5) aggregates the AAD blocks,
/// the ciphertext blocks and the lengths block, `n` in all, with the
/// powers `H^n .. H^1`, and reduces once.
///
/// `src` is valid for `len <= short_max::<T>()` bytes of reads, `dst`
/// for `len` bytes of writes, `aad` for `aad_len <= 32 * B` reads.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn short_g<T: Vector, const NR: usize, const DEC: bool>(
    rk: &[Blk; 15],
    t: &GhashKey,
    nonce: &[u8; 12],
    aad: *const u8,
    aad_len: usize,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    lens: u128,
) -> Blk {
    let k = round_keys::<T, NR>(rk);
    let rev = T::splat(&REV);
    let w = 16 * T::B;
    // E(J_0) masks the tag (SP 800-38D, 7.1 step 6).
    let j = j0_reg(nonce);
    let ej0 = aes_lane0::<T, NR>(&k, j);
    // Counter blocks J_0 + 1 .. (inc32, SP 800-38D, 6.2) in the
    // byte-reversed form, where the 32-bit counter is word 0.
    let c0 = T::splat_reg(j)
        .rev(rev)
        .add32(T::load(LANES.as_ptr()))
        .add32(T::splat(&word0(1)));
    let two = len > w;
    let ks0 = aes::<T, NR>(&k, c0.rev(rev));
    let ks1 = if two {
        aes::<T, NR>(&k, c0.add32(T::splat(&word0(T::B))).rev(rev))
    } else {
        ks0
    };
    // Every input byte is in registers before the first store.
    let n0 = len.min(w);
    let n1 = len - n0;
    let d0 = if n0 > 0 {
        load_upto::<T>(src, n0)
    } else {
        T::splat(&[0; 16])
    };
    let d1 = if two {
        load_upto::<T>(src.add(w), n1)
    } else {
        d0
    };
    // The ciphertext, zero padded, for the hash.
    let o0 = ks0.xor(d0);
    let o1 = ks1.xor(d1);
    let h0 = if DEC { d0 } else { keep_first(o0, n0) };
    let h1 = if DEC { d1 } else { keep_first(o1, n1) };
    if n0 > 0 {
        store_upto(o0, dst, n0);
    }
    if two {
        store_upto(o1, dst.add(w), n1);
    }

    let nb = len.div_ceil(16);
    let first = POWERS - (aad_len.div_ceil(16) + nb + 1);
    let mut acc = Acc::<T>::new();
    acc_bytes::<T>(&mut acc, t, None, aad, aad_len, first);
    let lens = _mm_set_epi64x((lens >> 64) as i64, lens as i64);
    // Ciphertext blocks from entry `cf` on, the lengths block after them:
    // in lane `nb % B` of register `nb / B` (0 or 1).
    let cf = first + aad_len.div_ceil(16);
    let mut c = h0.rev(rev);
    if nb < T::B {
        c = c.xor_lane(lens, nb);
    }
    acc.mul(c, tab(&t.pow, cf), tab(&t.kar, cf));
    if nb >= T::B {
        let c = if two { h1.rev(rev) } else { T::splat(&[0; 16]) };
        let c = c.xor_lane(lens, nb - T::B);
        acc.mul(c, tab(&t.pow, cf + T::B), tab(&t.kar, cf + T::B));
    }
    tag_of(reduce(acc.fold_with(Acc::new())), ej0)
}

macro_rules! wrapper {
    ($feat:literal, $T:ty, $G:literal, $name:ident) => {
        #[target_feature(enable = $feat)]
        #[allow(clippy::too_many_arguments)]
        unsafe fn $name<const NR: usize, const DEC: bool>(
            rk: &[Blk; 15],
            t: &GhashKey,
            nonce: &[u8; 12],
            aad: *const u8,
            aad_len: usize,
            src: *const u8,
            dst: *mut u8,
            len: usize,
            lens: u128,
        ) -> Blk {
            if len <= short_max::<$T>() && aad_len <= 32 * <$T>::B {
                short_g::<$T, NR, DEC>(rk, t, nonce, aad, aad_len, src, dst, len, lens)
            } else {
                crypt_g::<$T, $G, NR, DEC>(rk, t, nonce, aad, aad_len, src, dst, len, lens)
            }
        }
    };
}

// Registers per group. On ymm, six: an AMD EPYC of family 19h model 01h
// (Zen 3) issues two `vaesenc` a cycle with a latency of about four, so
// a group of four registers left half its AES throughput unused; eight
// were slower than six with AES-256 (measured, the cause not looked
// into). `gcm_speed 1500 avx2` there, four against six registers:
// AES-256 sealed in 343 ns against 325 and opened in 319 against 317,
// AES-128 272 against 274 and 284 against 275; from 512 to 2304 octets
// six was faster or within 2%, and at 300 octets within 4%.
wrapper!("aes,ssse3,pclmulqdq", X, 8, crypt_x);
wrapper!(
    "aes,ssse3,pclmulqdq,avx,avx2,vaes,vpclmulqdq",
    Y,
    6,
    crypt_y
);
wrapper!(
    "aes,ssse3,pclmulqdq,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl",
    Z,
    4,
    crypt_z
);

/// Runs the kernel of `path` (see `super::gcm::crypt`, which checked the
/// bounds of `io` and the lengths). `None` for the portable path.
#[inline]
pub(super) fn crypt(
    path: CheckedPath,
    rk: &RoundKeys,
    t: &GhashKey,
    nonce: &[u8; 12],
    aad: &[u8],
    io: Io<'_>,
    dec: bool,
) -> Option<Blk> {
    let path = path.path();
    if path == Path::Portable {
        return None;
    }
    let (src, dst, len): (*const u8, *mut u8, usize) = match io {
        Io::Shift { buf, src, dst, len } => {
            if src.max(dst).checked_add(len).is_none_or(|e| e > buf.len()) || src.abs_diff(dst) > 8
            {
                return None;
            }
            let p = buf.as_mut_ptr();
            // SAFETY: `src + len` and `dst + len` are at most `buf.len()`
            // (checked just above), so both offsets stay in the slice.
            unsafe { (p.add(src).cast_const(), p.add(dst), len) }
        }
        Io::Split { src, dst } => {
            if src.len() != dst.len() {
                return None;
            }
            (src.as_ptr(), dst.as_mut_ptr(), src.len())
        }
    };
    let lens = lengths(aad.len(), len);
    let (a, al) = (aad.as_ptr(), aad.len());
    let nr14 = rk.nr == 14;
    let rk = &rk.rk;
    // SAFETY: the instruction sets of each wrapper were detected: a
    // `CheckedPath` exists only for a path `available` reported. `src`
    // is valid for `len` reads and `dst` for `len` writes: both come
    // from one slice with `max(src, dst) + len` in bounds, or from two
    // slices of `len` bytes (a shared and an exclusive borrow, so they
    // do not overlap); within one slice `dst` is `src` or `src +- 8`,
    // the overlaps the kernel orders its loads and stores for. `aad` is
    // valid for `al` reads. Every other access is to the tables and keys
    // passed by reference.
    unsafe {
        Some(match (path, nr14, dec) {
            (Path::Avx512, false, false) => {
                crypt_z::<10, false>(rk, t, nonce, a, al, src, dst, len, lens)
            }
            (Path::Avx512, false, true) => {
                crypt_z::<10, true>(rk, t, nonce, a, al, src, dst, len, lens)
            }
            (Path::Avx512, true, false) => {
                crypt_z::<14, false>(rk, t, nonce, a, al, src, dst, len, lens)
            }
            (Path::Avx512, true, true) => {
                crypt_z::<14, true>(rk, t, nonce, a, al, src, dst, len, lens)
            }
            (Path::Avx2, false, false) => {
                crypt_y::<10, false>(rk, t, nonce, a, al, src, dst, len, lens)
            }
            (Path::Avx2, false, true) => {
                crypt_y::<10, true>(rk, t, nonce, a, al, src, dst, len, lens)
            }
            (Path::Avx2, true, false) => {
                crypt_y::<14, false>(rk, t, nonce, a, al, src, dst, len, lens)
            }
            (Path::Avx2, true, true) => {
                crypt_y::<14, true>(rk, t, nonce, a, al, src, dst, len, lens)
            }
            (_, false, false) => crypt_x::<10, false>(rk, t, nonce, a, al, src, dst, len, lens),
            (_, false, true) => crypt_x::<10, true>(rk, t, nonce, a, al, src, dst, len, lens),
            (_, true, false) => crypt_x::<14, false>(rk, t, nonce, a, al, src, dst, len, lens),
            (_, true, true) => crypt_x::<14, true>(rk, t, nonce, a, al, src, dst, len, lens),
        })
    }
}
