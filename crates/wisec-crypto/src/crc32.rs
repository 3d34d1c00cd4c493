//! The IEEE 802.3 CRC-32, as the WEP and TKIP ICV (IEEE Std 802.11-2020,
//! 12.3.2.2) and the 802.11 FCS (9.2.4.8) use it: reflected polynomial
//! 0xEDB88320, initial value 0xFFFFFFFF, final complement. The ICV and FCS
//! are transmitted least significant byte first.
//!
//! Inputs of 16 bytes and more are folded with carry-less multiplication
//! where the CPU has it (PCLMULQDQ on xmm, VPCLMULQDQ on ymm and zmm: the
//! SIMD module), after the method of Gopal et al., "Fast CRC Computation
//! for Generic Polynomials Using PCLMULQDQ Instruction" (Intel, 2009):
//! 16-byte blocks far apart are multiplied by `x^distance mod P` and added
//! to the blocks they land on, until one block is left (the bytes after
//! the last whole block are shifted into it), which a Barrett reduction
//! takes to the register. The portable path, and inputs under 16 bytes,
//! use slicing-by-8 tables (eight 256-entry tables: eight bytes per step).
//! All tables and constants are computed at compile time from the
//! polynomial.

/// The reflected generator polynomial x^32 + x^26 + ... + 1.
pub const POLY: u32 = 0xedb8_8320;

/// The same polynomial in normal bit order (bit `d` is the coefficient of
/// `x^d`, `x^32` implied).
const POLY_NORMAL: u32 = 0x04c1_1db7;

const fn make_tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut n = 0;
    while n < 256 {
        let mut c = n as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { POLY ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[0][n] = c;
        n += 1;
    }
    let mut k = 1;
    while k < 8 {
        let mut n = 0;
        while n < 256 {
            let prev = t[k - 1][n];
            t[k][n] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            n += 1;
        }
        k += 1;
    }
    t
}

/// `T[0]` is the byte-at-a-time table; `T[k]` advances a byte that is `k`
/// bytes further from the end.
static TABLES: [[u32; 256]; 8] = make_tables();

/// `x^e mod P` in normal bit order.
const fn x_pow_mod(e: u32) -> u32 {
    // x^0 .. x^31 are themselves; each further power shifts and reduces.
    let mut r: u32 = 1;
    let mut k = 0;
    while k < e {
        let carry = r & 0x8000_0000 != 0;
        r <<= 1;
        if carry {
            r ^= POLY_NORMAL;
        }
        k += 1;
    }
    r
}

/// A polynomial of degree below 32 as the 64-bit reflected operand of a
/// carry-less multiplication: the coefficient of `x^d` at bit `63 - d`.
const fn reflected64(p: u32) -> u64 {
    (p.reverse_bits() as u64) << 32
}

/// The folding constants for moving a 16-byte block `d * 16` bytes
/// forward, `d` = 1..=16: `x^(128d + 63) mod P` for the block's first
/// (higher-degree) half and `x^(128d - 1) mod P` for its second half (the
/// extra `x^-1` undoes the one-bit shift of a reflected carry-less
/// product). `FOLD[d - 1]` holds both as the two halves of a block.
pub(crate) static FOLD: [[u64; 2]; 16] = {
    let mut f = [[0u64; 2]; 16];
    let mut d = 1;
    while d <= 16 {
        let bits = 128 * d as u32;
        f[d - 1] = [
            reflected64(x_pow_mod(bits + 63)),
            reflected64(x_pow_mod(bits - 1)),
        ];
        d += 1;
    }
    f
};

/// The constants that take one folded block to the CRC register without a
/// table (Barrett reduction), each placed for the carry-less product it
/// enters (see `simd::x86_crc::reduce`):
/// - `[0]`: `x^95 mod P` and `[1]`: `x^63 mod P`, reflected (the
///   coefficient of `x^d` at bit `63 - d`), fold the block's first half
///   and then its third quarter onto the rest;
/// - `[2]`: `mu = floor(x^64 / P)`, degree 32, the coefficient of `x^d`
///   at bit `63 - d`;
/// - `[3]`: `P` itself, degree 32, the coefficient of `x^d` at bit
///   `33 - d`.
pub(crate) static REDUCE: [u64; 4] = {
    // x^64 divided by P, in normal order (bit d: x^d).
    let p: u128 = (1 << 32) | POLY_NORMAL as u128;
    let mut rem: u128 = 1 << 64;
    let mut mu: u64 = 0;
    let mut d = 64;
    while d >= 32 {
        if rem & (1 << d) != 0 {
            mu |= 1 << (d - 32);
            rem ^= p << (d - 32);
        }
        d -= 1;
    }
    let mut mu_r = 0u64;
    let mut p_r = 0u64;
    let mut d = 0;
    while d <= 32 {
        if mu & (1 << d) != 0 {
            mu_r |= 1 << (63 - d);
        }
        if p & (1 << d) != 0 {
            p_r |= 1 << (33 - d);
        }
        d += 1;
    }
    [
        reflected64(x_pow_mod(95)),
        reflected64(x_pow_mod(63)),
        mu_r,
        p_r,
    ]
};

/// The CRC register after `data`, from register `crc` (not complemented),
/// eight bytes per step.
fn slice8(mut crc: u32, data: &[u8]) -> u32 {
    let t = &TABLES;
    let (words, rest) = data.as_chunks::<8>();
    for w in words {
        let v = u64::from_le_bytes(*w) ^ u64::from(crc);
        let b = v.to_le_bytes();
        crc = t[7][usize::from(b[0])]
            ^ t[6][usize::from(b[1])]
            ^ t[5][usize::from(b[2])]
            ^ t[4][usize::from(b[3])]
            ^ t[3][usize::from(b[4])]
            ^ t[2][usize::from(b[5])]
            ^ t[1][usize::from(b[6])]
            ^ t[0][usize::from(b[7])];
    }
    for &b in rest {
        crc = t[0][usize::from((crc as u8) ^ b)] ^ (crc >> 8);
    }
    crc
}

/// The CRC register after `data` from `crc`, on the fastest path.
#[inline]
fn update(crc: u32, data: &[u8]) -> u32 {
    // The folding kernels take the register in the first four bytes and
    // return the register after every byte.
    crate::simd::crc32_fold(crc, data).unwrap_or_else(|| slice8(crc, data))
}

/// A streaming CRC-32 computation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crc32 {
    state: u32,
}

impl Default for Crc32 {
    fn default() -> Crc32 {
        Crc32::new()
    }
}

impl Crc32 {
    /// A computation over no bytes yet.
    pub const fn new() -> Crc32 {
        Crc32 { state: 0xffff_ffff }
    }

    /// Feeds `data`.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.state = update(self.state, data);
    }

    /// The CRC of everything fed so far (the computation may continue).
    pub const fn value(&self) -> u32 {
        !self.state
    }

    /// The CRC as transmitted (little-endian), as ICV or FCS.
    pub const fn to_le_bytes(&self) -> [u8; 4] {
        self.value().to_le_bytes()
    }
}

/// The CRC-32 of `data`.
pub fn crc32(data: &[u8]) -> u32 {
    !update(0xffff_ffff, data)
}

/// True when this CPU runs the folding kernel of `path` (the portable
/// path, slicing-by-8, always runs).
pub fn path_available(path: crate::batch::Path) -> bool {
    crate::simd::crc32_available(path)
}

/// The CRC-32 of `data` on the portable path only (slicing-by-8), for
/// tests and for measuring the folding path against.
pub fn crc32_portable(data: &[u8]) -> u32 {
    !slice8(0xffff_ffff, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit-at-a-time definition: the reference for every other path.
    fn bitwise(mut crc: u32, data: &[u8]) -> u32 {
        for &b in data {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    POLY ^ (crc >> 1)
                } else {
                    crc >> 1
                };
            }
        }
        crc
    }

    #[test]
    fn check_value() {
        // The standard check value of CRC-32/ISO-HDLC.
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32_portable(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b""), 0);
        assert_ne!(crc32(b"123456788"), 0xcbf4_3926);
        // x^32 mod P is the polynomial itself.
        assert_eq!(x_pow_mod(32), POLY_NORMAL);
        assert_eq!(x_pow_mod(31), 0x8000_0000);
    }

    #[test]
    fn every_length_and_register_matches_the_bitwise_definition() {
        // Lengths across every folding width's thresholds (64, 128, 256
        // bytes and their multiples) and a running register.
        let mut data = [0u8; 1200];
        let mut x = 0x9e37_79b9u32;
        for b in data.iter_mut() {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *b = x as u8;
        }
        for len in 0..=data.len() {
            for start in [0xffff_ffffu32, 0, 0x1234_5678] {
                let want = bitwise(start, &data[..len]);
                assert_eq!(update(start, &data[..len]), want, "len {len}");
                assert_eq!(slice8(start, &data[..len]), want, "len {len}");
            }
        }
    }

    #[test]
    fn every_folding_path_matches_the_bitwise_definition() {
        use crate::batch::Path;
        let mut data = [0u8; 1100];
        for (i, b) in data.iter_mut().enumerate() {
            *b = (i as u32).wrapping_mul(2_654_435_761).rotate_left(7) as u8;
        }
        for path in [Path::AesNi, Path::Avx2, Path::Avx512] {
            if !crate::simd::crc32_available(path) {
                extern crate std;
                std::println!(
                    "note: this CPU lacks the {} CRC-32 path; not tested",
                    path.name()
                );
                continue;
            }
            let mut folded = 0;
            for len in 0..=data.len() {
                for start in [0x89ab_cdefu32, 0, 0xffff_ffff] {
                    let want = bitwise(start, &data[..len]);
                    let Some(got) = crate::simd::crc32_fold_path(path, start, &data[..len]) else {
                        assert!(len < 16, "{} len {len} not folded", path.name());
                        continue;
                    };
                    folded += 1;
                    assert_eq!(got, want, "{} len {len} from {start:#x}", path.name());
                }
            }
            assert_eq!(folded, 3 * (data.len() + 1 - 16), "{}", path.name());
        }
    }

    #[test]
    fn streaming_equals_one_shot() {
        let data = b"The quick brown fox jumps over the lazy dog";
        // Well-known CRC-32 of this pangram.
        assert_eq!(crc32(data), 0x414f_a339);
        for split in 0..data.len() {
            let mut c = Crc32::new();
            c.update(&data[..split]);
            c.update(&data[split..]);
            assert_eq!(c.value(), 0x414f_a339);
        }
    }

    #[test]
    fn residue_of_message_with_crc_appended() {
        // Appending the little-endian CRC yields the constant residue
        // 0x2144DF1C (complemented 0xDEBB20E3), the property FCS checkers use.
        let mut c = Crc32::new();
        c.update(b"123456789");
        let fcs = c.to_le_bytes();
        c.update(&fcs);
        assert_eq!(c.value(), 0x2144_df1c);
    }
}
