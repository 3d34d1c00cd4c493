//! A portable, table-driven software AES (FIPS 197) with the AES-CMAC
//! (RFC 4493) and AES-CCM (RFC 3610) built on it, for one purpose: to
//! measure on the host what the lab's AES work costs on a processor
//! without AES instructions.
//!
//! The devices of the seeds had none: the Cube, the Routerboard and the
//! laptop of seed 003, the WRT54G of seed 001 and the Dell GX 960 of seed
//! 000 ran AES in software, as a byte-oriented lookup-table cipher (the
//! Linux kernel's generic AES and OpenSSL's C AES of that time both use
//! four 256-entry 32-bit tables per direction, the construction of the
//! Rijndael proposal, section 5.2.1). This module is that construction, so
//! [`crate::cost::Calibration::measure`] can time the same number of block
//! operations the lab's real CMAC and CCM perform, on the kind of code the
//! seeds' devices ran, on this host. The host's own crypto
//! (`wisec-crypto`, with AES instructions when the CPU has them) still
//! computes every frame the lab sends: nothing here protects data.
//!
//! Lookup tables indexed by secret bytes leak through the cache timing of
//! the machine that runs them; this code is never used on keys that
//! protect anything (the measurement uses a fixed key).

use zeroize::Zeroize;

/// Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (FIPS 197,
/// 4.2).
const fn gmul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        let hi = a & 0x80;
        a <<= 1;
        if hi != 0 {
            a ^= 0x1b;
        }
        b >>= 1;
    }
    p
}

/// The S-box (FIPS 197, 5.1.1): the multiplicative inverse (a^254)
/// followed by the affine transformation.
const fn sbox() -> [u8; 256] {
    let mut s = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let a = i as u8;
        // a^254 = a^-1 (0 maps to 0).
        let mut inv = 1u8;
        let mut k = 0;
        while k < 254 {
            inv = gmul(inv, a);
            k += 1;
        }
        if a == 0 {
            inv = 0;
        }
        let b = inv;
        s[i] = b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63;
        i += 1;
    }
    s
}

const SBOX: [u8; 256] = sbox();

/// The round table: SubBytes and MixColumns of one byte in one column,
/// (2·s, s, s, 3·s) as a big-endian word; the other three tables are its
/// byte rotations.
const fn te(rot: u32) -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let s = SBOX[i];
        let w = (gmul(s, 2) as u32) << 24 | (s as u32) << 16 | (s as u32) << 8 | gmul(s, 3) as u32;
        t[i] = w.rotate_right(8 * rot);
        i += 1;
    }
    t
}

const TE0: [u32; 256] = te(0);
const TE1: [u32; 256] = te(1);
const TE2: [u32; 256] = te(2);
const TE3: [u32; 256] = te(3);

/// An AES-128 or AES-256 encryption key schedule (FIPS 197, 5.2), wiped
/// on drop.
pub struct SoftAes {
    rk: [u32; 60],
    rounds: usize,
}

impl core::fmt::Debug for SoftAes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SoftAes({} rounds)", self.rounds)
    }
}

impl Drop for SoftAes {
    fn drop(&mut self) {
        self.rk.zeroize();
    }
}

fn sub_word(w: u32) -> u32 {
    let b = w.to_be_bytes();
    u32::from_be_bytes([
        SBOX[usize::from(b[0])],
        SBOX[usize::from(b[1])],
        SBOX[usize::from(b[2])],
        SBOX[usize::from(b[3])],
    ])
}

impl SoftAes {
    /// The schedule of a 16- or 32-octet key; `None` for other lengths.
    pub fn new(key: &[u8]) -> Option<SoftAes> {
        let nk = match key.len() {
            16 => 4,
            32 => 8,
            _ => return None,
        };
        let rounds = nk + 6;
        let mut rk = [0u32; 60];
        for (w, c) in rk.iter_mut().zip(key.chunks_exact(4)) {
            *w = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        let mut rcon = 1u8;
        for i in nk..4 * (rounds + 1) {
            let mut t = rk[i - 1];
            if i % nk == 0 {
                t = sub_word(t.rotate_left(8)) ^ (u32::from(rcon) << 24);
                rcon = gmul(rcon, 2);
            } else if nk > 6 && i % nk == 4 {
                t = sub_word(t);
            }
            rk[i] = rk[i - nk] ^ t;
        }
        Some(SoftAes { rk, rounds })
    }

    /// Encrypts one block in place (FIPS 197, 5.1).
    pub fn encrypt(&self, block: &mut [u8; 16]) {
        let rk = &self.rk;
        let word =
            |i: usize| u32::from_be_bytes([block[i], block[i + 1], block[i + 2], block[i + 3]]);
        let mut s = [
            word(0) ^ rk[0],
            word(4) ^ rk[1],
            word(8) ^ rk[2],
            word(12) ^ rk[3],
        ];
        let b = |w: u32, n: u32| ((w >> (24 - 8 * n)) & 0xff) as usize;
        for r in 1..self.rounds {
            let k = &rk[4 * r..4 * r + 4];
            let mut t = [0u32; 4];
            for (c, out) in t.iter_mut().enumerate() {
                *out = TE0[b(s[c], 0)]
                    ^ TE1[b(s[(c + 1) % 4], 1)]
                    ^ TE2[b(s[(c + 2) % 4], 2)]
                    ^ TE3[b(s[(c + 3) % 4], 3)]
                    ^ k[c];
            }
            s = t;
        }
        let k = &rk[4 * self.rounds..4 * self.rounds + 4];
        for c in 0..4 {
            let w = u32::from_be_bytes([
                SBOX[b(s[c], 0)],
                SBOX[b(s[(c + 1) % 4], 1)],
                SBOX[b(s[(c + 2) % 4], 2)],
                SBOX[b(s[(c + 3) % 4], 3)],
            ]) ^ k[c];
            block[4 * c..4 * c + 4].copy_from_slice(&w.to_be_bytes());
        }
        s.zeroize();
    }
}

fn xor_into(a: &mut [u8; 16], b: &[u8]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x ^= y;
    }
}

/// Doubling in GF(2^128) for the CMAC subkeys (RFC 4493, 2.3).
fn dbl(b: &[u8; 16]) -> [u8; 16] {
    let mut o = [0u8; 16];
    let mut carry = 0u8;
    for i in (0..16).rev() {
        o[i] = (b[i] << 1) | carry;
        carry = b[i] >> 7;
    }
    if carry != 0 {
        o[15] ^= 0x87;
    }
    o
}

/// An AES-CMAC key (RFC 4493, 2.3): the cipher and its two subkeys,
/// derived once per key as the lab's keyed CMAC does.
#[derive(Debug)]
pub struct CmacKey {
    aes: SoftAes,
    k1: [u8; 16],
    k2: [u8; 16],
}

impl Drop for CmacKey {
    fn drop(&mut self) {
        self.k1.zeroize();
        self.k2.zeroize();
    }
}

impl CmacKey {
    /// The CMAC key of a 16- or 32-octet AES key.
    pub fn new(key: &[u8]) -> Option<CmacKey> {
        let aes = SoftAes::new(key)?;
        let mut l = [0u8; 16];
        aes.encrypt(&mut l);
        let k1 = dbl(&l);
        let k2 = dbl(&k1);
        l.zeroize();
        Some(CmacKey { aes, k1, k2 })
    }

    /// AES-CMAC (RFC 4493, 2.4) of `data`.
    pub fn mac(&self, data: &[u8]) -> [u8; 16] {
        let n = data.len().div_ceil(16).max(1);
        let mut x = [0u8; 16];
        for chunk in data.chunks(16).take(n - 1) {
            xor_into(&mut x, chunk);
            self.aes.encrypt(&mut x);
        }
        let last = data.get((n - 1) * 16..).unwrap_or(&[]);
        let mut m = [0u8; 16];
        if last.len() == 16 {
            m.copy_from_slice(last);
            xor_into(&mut m, &self.k1);
        } else {
            m[..last.len()].copy_from_slice(last);
            m[last.len()] = 0x80;
            xor_into(&mut m, &self.k2);
        }
        xor_into(&mut x, &m);
        self.aes.encrypt(&mut x);
        x
    }
}

/// AES-CCM generation-encryption (RFC 3610, 2.2 and 2.3) with a 13-octet
/// nonce (L = 2) and a `tag_len`-octet tag: encrypts `data` in place and
/// returns the tag (its first `tag_len` octets meaningful). `aad` up to
/// 65279 octets, `data` up to 65535.
pub fn ccm_seal(
    aes: &SoftAes,
    nonce: &[u8; 13],
    aad: &[u8],
    data: &mut [u8],
    tag_len: usize,
) -> [u8; 16] {
    // B_0: flags, nonce, l(m) (RFC 3610, 2.2).
    let mut x = [0u8; 16];
    let adata = if aad.is_empty() { 0 } else { 0x40 };
    x[0] = adata | ((((tag_len.max(4) - 2) / 2) as u8) << 3) | 1;
    x[1..14].copy_from_slice(nonce);
    x[14..16].copy_from_slice(&(data.len() as u16).to_be_bytes());
    aes.encrypt(&mut x);
    if !aad.is_empty() {
        // l(a) in two octets, then a, padded to blocks.
        let mut first = [0u8; 16];
        first[..2].copy_from_slice(&(aad.len() as u16).to_be_bytes());
        let head = aad.len().min(14);
        first[2..2 + head].copy_from_slice(&aad[..head]);
        xor_into(&mut x, &first);
        aes.encrypt(&mut x);
        for chunk in aad[head..].chunks(16) {
            xor_into(&mut x, chunk);
            aes.encrypt(&mut x);
        }
    }
    for chunk in data.chunks(16) {
        xor_into(&mut x, chunk);
        aes.encrypt(&mut x);
    }
    // CTR (RFC 3610, 2.3): A_i = flags L-1, nonce, i.
    let mut a = [0u8; 16];
    a[0] = 1;
    a[1..14].copy_from_slice(nonce);
    let mut s0 = a;
    aes.encrypt(&mut s0);
    for (i, chunk) in data.chunks_mut(16).enumerate() {
        let mut s = a;
        s[14..16].copy_from_slice(&((i + 1) as u16).to_be_bytes());
        aes.encrypt(&mut s);
        for (d, k) in chunk.iter_mut().zip(s) {
            *d ^= k;
        }
    }
    xor_into(&mut x, &s0);
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn fips_197_appendix_c_vectors() {
        // FIPS 197, C.1 (AES-128) and C.3 (AES-256).
        let pt: [u8; 16] = hex("00112233445566778899aabbccddeeff").try_into().unwrap();
        let k128 = hex("000102030405060708090a0b0c0d0e0f");
        let mut b = pt;
        SoftAes::new(&k128).unwrap().encrypt(&mut b);
        assert_eq!(b.to_vec(), hex("69c4e0d86a7b0430d8cdb78070b4c55a"));
        let k256 = hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
        let mut b = pt;
        SoftAes::new(&k256).unwrap().encrypt(&mut b);
        assert_eq!(b.to_vec(), hex("8ea2b7ca516745bfeafc49904b496089"));
        assert!(SoftAes::new(&[0; 24]).is_none());
    }

    #[test]
    fn rfc_4493_cmac_examples() {
        // RFC 4493, 4: examples 1 to 4.
        let aes = CmacKey::new(&hex("2b7e151628aed2a6abf7158809cf4f3c")).unwrap();
        let m = hex(
            "6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
             30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710",
        );
        assert_eq!(
            aes.mac(&[]).to_vec(),
            hex("bb1d6929e95937287fa37d129b756746")
        );
        assert_eq!(
            aes.mac(&m[..16]).to_vec(),
            hex("070a16b46b4d4144f79bdd9dd04a287c")
        );
        assert_eq!(
            aes.mac(&m[..40]).to_vec(),
            hex("dfa66747de9ae63030ca32611497c827")
        );
        assert_eq!(
            aes.mac(&m).to_vec(),
            hex("51f0bebf7e3b9d92fc49741779363cfe")
        );
    }

    #[test]
    fn rfc_3610_packet_vector_1() {
        // RFC 3610, 8: packet vector #1 (M = 8, L = 2, 8 octets of AAD).
        let aes = SoftAes::new(&hex("c0c1c2c3c4c5c6c7c8c9cacbcccdcecf")).unwrap();
        let nonce: [u8; 13] = hex("00000003020100a0a1a2a3a4a5").try_into().unwrap();
        let pkt = hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e");
        let (aad, msg) = pkt.split_at(8);
        let mut data = msg.to_vec();
        let tag = ccm_seal(&aes, &nonce, aad, &mut data, 8);
        assert_eq!(data, hex("588c979a61c663d2f066d0c2c0f989806d5f6b61dac384"));
        assert_eq!(tag[..8].to_vec(), hex("17e8d12cfdf926e0"));
    }
}
