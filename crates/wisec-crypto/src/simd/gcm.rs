//! The GCM engine (NIST SP 800-38D): AES-CTR and GHASH for a 96-bit IV,
//! on the portable path (RustCrypto `aes` and a constant-time software
//! GHASH) or the x86-64 kernels of `x86_gcm` (AES-NI + PCLMULQDQ on xmm,
//! VAES + VPCLMULQDQ on ymm and zmm), chosen per call by [`Path`].
//!
//! GHASH is computed in the POLYVAL representation (RFC 8452, Appendix
//! A): a block `X` enters as the little-endian integer of its reversed
//! bytes (`u128::from_be_bytes(X)`), the key as `mulX(H)`, and
//! multiplication is `dot(a, b) = a * b * x^-128 mod P` with
//! `P = x^128 + x^127 + x^126 + x^121 + 1`; the result, read back as big
//! endian, is GHASH's. In that form the product of two blocks is one
//! carry-less 128 x 128-bit multiplication followed by a Montgomery
//! reduction of two 64 x 64-bit multiplications by the constant
//! `0xC200000000000000`, and a sum of products needs only one reduction
//! (aggregated reduction). [`GhashKey`] keeps `H, dot(H, H), ...` (the
//! powers the vector kernels multiply up to 32 blocks by at once).

use zeroize::Zeroize;

use super::{Blk, RoundKeys};
use crate::batch::Path;
use crate::ccm::AesCipher;

/// Powers of the hash key kept per key: a kernel aggregates up to this
/// many blocks before it reduces.
pub(crate) const POWERS: usize = 32;

/// `H`, its powers and their Karatsuba halves, in the POLYVAL form.
///
/// `pow[i]` is the power for the `32 - i`-th last block of a group
/// (`pow[31] = H`, `pow[30] = dot(H, H)`, ...), `kar[i]` holds the xor
/// of `pow[i]`'s two 64-bit halves in its low half. Four zero entries
/// follow, so a kernel may load whole registers past the last power
/// (for lanes whose data is zero). Wiped on drop.
///
/// Not over-aligned: keys live inside objects whose memory other
/// allocators provide (Python objects holding a suite are aligned to 16
/// octets only), and the kernels load the table unaligned.
#[derive(Clone)]
pub(crate) struct GhashKey {
    pub(crate) pow: [Blk; POWERS + 4],
    pub(crate) kar: [Blk; POWERS + 4],
    /// `H` in the POLYVAL form (`pow[31]`), for the portable path.
    h: u128,
}

impl Drop for GhashKey {
    fn drop(&mut self) {
        super::wipe(&mut self.pow);
        super::wipe(&mut self.kar);
        self.h.zeroize();
    }
}

impl GhashKey {
    /// The table for the hash subkey `h_block = E_K(0^128)`.
    pub(crate) fn new(h_block: &Blk) -> GhashKey {
        // RFC 8452, Appendix A: POLYVAL's key is mulX_POLYVAL(ByteReverse(H)).
        let h = mul_x(u128::from_be_bytes(*h_block));
        let mut t = GhashKey {
            pow: [[0; 16]; POWERS + 4],
            kar: [[0; 16]; POWERS + 4],
            h,
        };
        let mut p = h;
        for i in (0..POWERS).rev() {
            t.pow[i] = p.to_le_bytes();
            let k = (p as u64 ^ (p >> 64) as u64) as u128;
            t.kar[i] = (k | k << 64).to_le_bytes();
            p = dot(p, h);
        }
        p.zeroize();
        t
    }
}

/// `v * x` in POLYVAL's field.
fn mul_x(v: u128) -> u128 {
    // x^128 = x^127 + x^126 + x^121 + 1 (mod P).
    let carry = 0u128.wrapping_sub(v >> 127);
    (v << 1) ^ (carry & 0xc200_0000_0000_0000_0000_0000_0000_0001)
}

/// The low 64 bits of the carry-less product of `x` and `y`, in constant
/// time with integer multiplications: each operand is split into the bits
/// of each residue class mod 4, so an integer product of two such parts
/// sums at most 15 terms in a 4-bit field below bit 60 (16 at bit 60,
/// whose carry leaves the word) and its parity bits are exact.
fn bmul64(x: u64, y: u64) -> u64 {
    const M: [u64; 4] = [
        0x1111_1111_1111_1111,
        0x2222_2222_2222_2222,
        0x4444_4444_4444_4444,
        0x8888_8888_8888_8888,
    ];
    let xs = M.map(|m| x & m);
    let ys = M.map(|m| y & m);
    let mut z = 0u64;
    for (k, m) in M.iter().enumerate() {
        // Class k collects the products of classes (i, k - i mod 4).
        let mut acc = 0u64;
        for (i, xi) in xs.iter().enumerate() {
            acc ^= xi.wrapping_mul(ys[(k + 4 - i) % 4]);
        }
        z |= acc & m;
    }
    z
}

/// The 128-bit carry-less product of `x` and `y` (constant time).
fn clmul64(x: u64, y: u64) -> u128 {
    let lo = bmul64(x, y);
    // Reversed operands put the high half, reversed, in the low word
    // (shifted by one: the product has 127 bits).
    let hi = bmul64(x.reverse_bits(), y.reverse_bits()).reverse_bits() >> 1;
    u128::from(hi) << 64 | u128::from(lo)
}

/// `x * 0xC200000000000000` carry-less: the constant has three bits.
fn clmul_q(x: u64) -> u128 {
    let x = u128::from(x);
    (x << 63) ^ (x << 62) ^ (x << 57)
}

/// Montgomery reduction: `(c3 c2 c1 c0) * x^-128 mod P` for the 256-bit
/// product of two field elements (64-bit words, `c0` lowest). Adding
/// `c0 * P` clears word 0 (P = 1 + x^64 * 0xC2.. + x^128 in its low
/// terms), adding `c1' * x^64 * P` clears word 1; the high half is left.
fn mont(c0: u64, c1: u64, c2: u64, c3: u64) -> u128 {
    let r1 = clmul_q(c0);
    let c1 = c1 ^ r1 as u64;
    let r2 = clmul_q(c1);
    let lo = c2 ^ c0 ^ (r1 >> 64) as u64 ^ r2 as u64;
    let hi = c3 ^ c1 ^ (r2 >> 64) as u64;
    u128::from(hi) << 64 | u128::from(lo)
}

/// POLYVAL's multiplication `a * b * x^-128 mod P` (RFC 8452, 3).
fn dot(a: u128, b: u128) -> u128 {
    let (a0, a1) = (a as u64, (a >> 64) as u64);
    let (b0, b1) = (b as u64, (b >> 64) as u64);
    let lo = clmul64(a0, b0);
    let hi = clmul64(a1, b1);
    let mid = clmul64(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    mont(
        lo as u64,
        (lo >> 64) as u64 ^ mid as u64,
        hi as u64 ^ (mid >> 64) as u64,
        (hi >> 64) as u64,
    )
}

/// GHASH state in the POLYVAL form.
pub(crate) type Ghash = u128;

/// Absorbs `data`, zero padded to whole blocks, into `s` (portable).
fn ghash_portable(key: &GhashKey, mut s: Ghash, data: &[u8]) -> Ghash {
    let (blocks, rest) = data.as_chunks::<16>();
    for b in blocks {
        s = dot(s ^ u128::from_be_bytes(*b), key.h);
    }
    if !rest.is_empty() {
        let mut b = [0u8; 16];
        b[..rest.len()].copy_from_slice(rest);
        s = dot(s ^ u128::from_be_bytes(b), key.h);
        b.zeroize();
    }
    s
}

/// The GHASH lengths block of SP 800-38D, 7.1 step 5, in the POLYVAL
/// form: `[len(A)]_64 || [len(C)]_64` in bits, big endian, read reversed.
pub(crate) fn lengths(aad_len: usize, data_len: usize) -> Ghash {
    (u128::from(aad_len as u64 * 8) << 64) | u128::from(data_len as u64 * 8)
}

/// `J_0 = IV || 0^31 || 1` for a 96-bit IV (SP 800-38D, 7.1 step 2).
pub(crate) fn j0(nonce: &[u8; 12]) -> Blk {
    let mut j = [0u8; 16];
    j[..12].copy_from_slice(nonce);
    j[15] = 1;
    j
}

/// The keys of one GCM instance: the AES key schedule for the vector
/// kernels (when the CPU has AES-NI), the portable cipher, and the GHASH
/// table.
pub(crate) struct GcmKeys {
    pub(crate) cipher: AesCipher,
    pub(crate) rk: Option<RoundKeys>,
    pub(crate) ghash: GhashKey,
}

impl GcmKeys {
    /// Expands a 16- or 32-byte key; `None` for other lengths.
    pub(crate) fn new(key: &[u8]) -> Option<GcmKeys> {
        if key.len() != 16 && key.len() != 32 {
            return None;
        }
        let cipher = AesCipher::new(key).ok()?;
        let mut h = aes::Block::default();
        cipher.encrypt_block(&mut h);
        let mut hb: Blk = h.into();
        let ghash = GhashKey::new(&hb);
        hb.zeroize();
        h.as_mut_slice().zeroize();
        Some(GcmKeys {
            cipher,
            rk: RoundKeys::new(key),
            ghash,
        })
    }
}

impl Clone for GcmKeys {
    fn clone(&self) -> GcmKeys {
        GcmKeys {
            cipher: self.cipher.clone(),
            rk: self.rk.clone(),
            ghash: self.ghash.clone(),
        }
    }
}

/// A GCM code path this CPU was found to run ([`available`]): what the
/// kernels take instead of probing the CPU on every message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CheckedPath(Path);

impl CheckedPath {
    /// `path`, when this CPU runs its kernel.
    pub(crate) fn new(path: Path) -> Option<CheckedPath> {
        available(path).then_some(CheckedPath(path))
    }

    /// The path.
    pub(crate) fn path(self) -> Path {
        self.0
    }
}

/// True when this CPU runs the GCM kernel of `path`.
#[inline]
pub(crate) fn available(path: Path) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        super::x86_gcm::available(path)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        path == Path::Portable
    }
}

/// Where the data of one GCM operation is and where it goes.
pub(crate) enum Io<'a> {
    /// In one buffer: `len` octets at `src` go to `dst`, where
    /// `dst` is `src`, `src + 8` or `src - 8` (the 802.11 security
    /// header is inserted or removed as the body is processed).
    Shift {
        buf: &'a mut [u8],
        src: usize,
        dst: usize,
        len: usize,
    },
    /// From one buffer to another of the same length.
    Split { src: &'a [u8], dst: &'a mut [u8] },
}

impl Io<'_> {
    fn len(&self) -> usize {
        match self {
            Io::Shift { len, .. } => *len,
            Io::Split { src, .. } => src.len(),
        }
    }

    /// Checks the bounds and the offsets the kernels accept.
    fn valid(&self) -> bool {
        match self {
            Io::Shift { buf, src, dst, len } => {
                (*dst == *src || *dst == src.wrapping_add(8) || *dst == src.wrapping_sub(8))
                    && src.checked_add(*len).is_some_and(|e| e <= buf.len())
                    && dst.checked_add(*len).is_some_and(|e| e <= buf.len())
            }
            Io::Split { src, dst } => src.len() == dst.len(),
        }
    }
}

/// Encrypts (`dec == false`) or decrypts the data of `io` under the
/// 96-bit `nonce` and returns the tag over `aad` and the ciphertext
/// (SP 800-38D, 7.1 and 7.2: for decryption, the tag the sender should
/// have sent; the caller compares). `None`, before anything is written,
/// when `io` is out of bounds.
#[inline]
pub(crate) fn crypt(
    path: CheckedPath,
    keys: &GcmKeys,
    nonce: &[u8; 12],
    aad: &[u8],
    io: Io<'_>,
    dec: bool,
) -> Option<Blk> {
    if !io.valid() {
        return None;
    }
    // SP 800-38D, 5.2.1.1: len(P) <= 2^39 - 256 bits, len(A) < 2^64 bits.
    if io.len() as u64 > (1u64 << 36) - 32 || aad.len() as u64 >= 1u64 << 61 {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    if path.path() != Path::Portable {
        let rk = keys.rk.as_ref()?;
        return super::x86_gcm::crypt(path, rk, &keys.ghash, nonce, aad, io, dec);
    }
    Some(crypt_portable(keys, nonce, aad, io, dec))
}

/// The GHASH-based tag of `data` alone as AAD (GMAC, SP 800-38D, 3):
/// `E(J_0) xor GHASH(A || len)` with empty ciphertext.
pub(crate) fn gmac(
    path: CheckedPath,
    keys: &GcmKeys,
    nonce: &[u8; 12],
    data: &[u8],
) -> Option<Blk> {
    crypt(
        path,
        keys,
        nonce,
        data,
        Io::Split {
            src: &[],
            dst: &mut [],
        },
        false,
    )
}

fn crypt_portable(keys: &GcmKeys, nonce: &[u8; 12], aad: &[u8], io: Io<'_>, dec: bool) -> Blk {
    let len = io.len();
    let data: &mut [u8] = match io {
        Io::Shift { buf, src, dst, len } => {
            buf.copy_within(src..src + len, dst);
            &mut buf[dst..dst + len]
        }
        Io::Split { src, dst } => {
            dst.copy_from_slice(src);
            dst
        }
    };
    let j = j0(nonce);
    let mut s = ghash_portable(&keys.ghash, 0, aad);
    if dec {
        s = ghash_portable(&keys.ghash, s, data);
    }
    ctr_portable(&keys.cipher, &j, data);
    if !dec {
        s = ghash_portable(&keys.ghash, s, data);
    }
    s = dot(s ^ lengths(aad.len(), len), keys.ghash.h);
    let mut e = aes::Block::from(j);
    keys.cipher.encrypt_block(&mut e);
    let tag = (s ^ u128::from_be_bytes(e.into())).to_be_bytes();
    e.as_mut_slice().zeroize();
    s.zeroize();
    tag
}

/// XORs `data` with the GCTR keystream `E(inc32(J_0)) || E(inc32^2(J_0))
/// || ...` (SP 800-38D, 6.5 and 7.1 step 3).
pub(crate) fn ctr_portable(cipher: &AesCipher, j0: &Blk, data: &mut [u8]) {
    const BATCH: usize = 8;
    let mut ks = [aes::Block::default(); BATCH];
    let mut c = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]);
    for chunk in data.chunks_mut(16 * BATCH) {
        let n = chunk.len().div_ceil(16);
        for k in ks.iter_mut().take(n) {
            c = c.wrapping_add(1);
            k[..12].copy_from_slice(&j0[..12]);
            k[12..].copy_from_slice(&c.to_be_bytes());
        }
        cipher.encrypt_blocks(&mut ks[..n]);
        for (d, k) in chunk.iter_mut().zip(ks.iter().flat_map(|b| b.iter())) {
            *d ^= *k;
        }
    }
    for k in ks.iter_mut() {
        k.as_mut_slice().zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clmul64_matches_a_shift_and_add_reference() {
        fn slow(x: u64, y: u64) -> u128 {
            (0..64)
                .filter(|i| y >> i & 1 == 1)
                .fold(0u128, |acc, i| acc ^ (u128::from(x) << i))
        }
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let x = s;
            let y = s.rotate_left(29) ^ 0x5555;
            assert_eq!(clmul64(x, y), slow(x, y));
        }
        assert_eq!(clmul64(u64::MAX, u64::MAX), slow(u64::MAX, u64::MAX));
        assert_eq!(clmul_q(u64::MAX), slow(u64::MAX, 0xc200_0000_0000_0000));
    }

    #[test]
    fn polyval_rfc8452_example() {
        // RFC 8452, Appendix A: POLYVAL(H, X_1, X_2) with
        // H = 25629347589242761d31f826ba4b757b,
        // X_1 = 4f4f95668c83dfb6401762bb2d01a262,
        // X_2 = d1a24ddd2721d006bbe45f20d3c9f362,
        // result f7a3b47b846119fae5b7866cf5e5b77e.
        let le = |s: &str| {
            let mut b = [0u8; 16];
            for (i, v) in b.iter_mut().enumerate() {
                *v = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
            }
            u128::from_le_bytes(b)
        };
        let h = le("25629347589242761d31f826ba4b757b");
        let x1 = le("4f4f95668c83dfb6401762bb2d01a262");
        let x2 = le("d1a24ddd2721d006bbe45f20d3c9f362");
        let s = dot(dot(x1, h) ^ x2, h);
        assert_eq!(s, le("f7a3b47b846119fae5b7866cf5e5b77e"));
        assert_ne!(dot(dot(x2, h) ^ x1, h), s);
    }
}
