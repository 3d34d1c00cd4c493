//! AES-CMAC (RFC 4493; NIST SP 800-38B) with 128- and 256-bit keys, the
//! MAC of BIP-CMAC (IEEE Std 802.11-2020, 12.5.4) and of the KCK-based
//! key derivation and MIC functions.
//!
//! The block cipher is wisec's AES-NI code when the CPU has it (the key
//! schedule is 240 octets, so a keyed instance is cheap to clone for each
//! message), the RustCrypto `aes` crate otherwise. Key schedule, subkeys
//! and chaining state are wiped on drop.

use crate::ccm::AesCipher;
#[cfg(target_arch = "x86_64")]
use crate::simd::RoundKeys;
use crate::{ct_eq, Error, Result};

/// Length of a full CMAC tag.
pub const TAG_LEN: usize = 16;

type Blk = [u8; 16];

/// The forward cipher under the CMAC key. (Both variants are large;
/// without an allocator neither can be boxed.)
#[derive(Clone)]
#[allow(clippy::large_enum_variant)]
enum Cipher {
    /// AES-NI round keys (held only on a CPU that has AES-NI).
    #[cfg(target_arch = "x86_64")]
    Ni(RoundKeys),
    /// The `aes` crate's cipher.
    Soft(AesCipher),
}

impl Cipher {
    fn new(key: &[u8]) -> Result<Cipher> {
        if key.len() != 16 && key.len() != 32 {
            return Err(Error::InvalidParameter);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(k) = RoundKeys::new(key) {
            return Ok(Cipher::Ni(k));
        }
        Ok(Cipher::Soft(AesCipher::new(key)?))
    }

    fn encrypt(&self, b: &Blk) -> Blk {
        match self {
            #[cfg(target_arch = "x86_64")]
            Cipher::Ni(k) => crate::simd::encrypt_block(k, b),
            Cipher::Soft(c) => {
                let mut x = aes::Block::from(*b);
                c.encrypt_block(&mut x);
                x.into()
            }
        }
    }

    /// `x = E(x xor B_i)` over `head`, then the whole blocks of `data`.
    fn chain(&self, x: &Blk, head: &Blk, data: &[u8]) -> Blk {
        match self {
            #[cfg(target_arch = "x86_64")]
            Cipher::Ni(k) => crate::simd::cbc_chain(k, x, head, data),
            Cipher::Soft(_) => {
                let mut v = self.encrypt(&xor(x, head));
                for b in data.chunks_exact(16) {
                    let mut m = [0u8; 16];
                    m.copy_from_slice(b);
                    v = self.encrypt(&xor(&v, &m));
                }
                v
            }
        }
    }

    fn key_len(&self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Cipher::Ni(k) => k.key_len(),
            Cipher::Soft(c) => c.key_len(),
        }
    }
}

/// Doubling in GF(2^128) as SP 800-38B, 6.1 defines it for the subkeys:
/// a left shift by one bit, and `R_128 = 0^120 || 10000111` xored in
/// when the bit shifted out was 1.
fn dbl(b: &Blk) -> Blk {
    let x = u128::from_be_bytes(*b);
    ((x << 1) ^ (0x87 * (x >> 127))).to_be_bytes()
}

fn xor(a: &Blk, b: &Blk) -> Blk {
    (u128::from_ne_bytes(*a) ^ u128::from_ne_bytes(*b)).to_ne_bytes()
}

/// A streaming AES-CMAC computation. Clone a keyed instance to reuse its
/// key schedule and subkeys for several messages.
#[derive(Clone)]
pub struct AesCmac {
    cipher: Cipher,
    /// Subkeys K1 and K2 (SP 800-38B, 6.1).
    k1: Blk,
    k2: Blk,
    /// The chaining value over the blocks processed so far.
    x: Blk,
    /// The message's last `n` octets, held back: whether they end the
    /// message decides how the last block is treated (SP 800-38B, 6.2).
    last: Blk,
    n: usize,
}

impl Drop for AesCmac {
    fn drop(&mut self) {
        for b in [&mut self.k1, &mut self.k2, &mut self.x, &mut self.last] {
            crate::simd::wipe(core::slice::from_mut(b));
        }
    }
}

impl core::fmt::Debug for AesCmac {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("AesCmac { .. }")
    }
}

impl AesCmac {
    /// Keys a computation with a 16-byte (AES-128) or 32-byte (AES-256) key.
    pub fn new(key: &[u8]) -> Result<AesCmac> {
        Ok(AesCmac::keyed(Cipher::new(key)?))
    }

    fn keyed(cipher: Cipher) -> AesCmac {
        // SP 800-38B, 6.1: L = CIPH_K(0^128), K1 = dbl(L), K2 = dbl(K1).
        let mut l = cipher.encrypt(&[0; 16]);
        let k1 = dbl(&l);
        let k2 = dbl(&k1);
        crate::simd::wipe(core::slice::from_mut(&mut l));
        AesCmac {
            cipher,
            k1,
            k2,
            x: [0; 16],
            last: [0; 16],
            n: 0,
        }
    }

    /// Length of the key in bytes (16 or 32).
    pub fn key_len(&self) -> usize {
        self.cipher.key_len()
    }

    /// Feeds message bytes.
    pub fn update(&mut self, data: &[u8]) {
        // SP 800-38B, 6.2 step 6: every block but the last goes through
        // the chain as it is. The message's last (up to 16) octets are
        // held back until more data shows they are not its end.
        let take = (16 - self.n).min(data.len());
        self.last[self.n..self.n + take].copy_from_slice(&data[..take]);
        self.n += take;
        let data = &data[take..];
        if data.is_empty() {
            return;
        }
        // More follows: the held-back block is full and not the last; it
        // goes through the chain with the whole blocks of `data` but the
        // one that may end the message.
        let whole = (data.len() - 1) / 16 * 16;
        self.x = self.cipher.chain(&self.x, &self.last, &data[..whole]);
        let rest = &data[whole..];
        self.last[..rest.len()].copy_from_slice(rest);
        self.n = rest.len();
    }

    /// The 16-byte tag.
    pub fn finalize(self) -> [u8; TAG_LEN] {
        // SP 800-38B, 6.2 steps 4 and 6: a complete last block is xored
        // with K1; an incomplete one (or the empty message) is padded
        // with 10* and xored with K2.
        let mut m = if self.n == 16 {
            xor(&self.last, &self.k1)
        } else {
            let mut p = [0u8; 16];
            p[..self.n].copy_from_slice(&self.last[..self.n]);
            p[self.n] = 0x80;
            xor(&p, &self.k2)
        };
        let t = self.cipher.encrypt(&xor(&self.x, &m));
        crate::simd::wipe(core::slice::from_mut(&mut m));
        t
    }

    /// Checks `tag`, which may be the tag truncated to its first 8 to 16
    /// bytes (BIP-CMAC-128 uses 8), in constant time.
    pub fn verify(self, tag: &[u8]) -> Result<()> {
        if tag.len() < 8 || tag.len() > TAG_LEN {
            return Err(Error::InvalidParameter);
        }
        let full = self.finalize();
        if ct_eq(&full[..tag.len()], tag) {
            Ok(())
        } else {
            Err(Error::Integrity)
        }
    }
}

/// One-shot AES-CMAC of `data` under a 16- or 32-byte key.
pub fn aes_cmac(key: &[u8], data: &[u8]) -> Result<[u8; TAG_LEN]> {
    let mut m = AesCmac::new(key)?;
    m.update(data);
    Ok(m.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `aes` crate's cipher (what a CPU without AES-NI runs) gives the
    /// tags the AES-NI chain gives, for every length 0..=100 and both key
    /// sizes, fed whole and split.
    #[test]
    fn soft_cipher_matches_the_default_one() {
        for key_len in [16usize, 32] {
            let key: [u8; 32] = core::array::from_fn(|i| (i * 29 + 3) as u8);
            let key = &key[..key_len];
            for len in 0..=100usize {
                let all: [u8; 100] = core::array::from_fn(|i| (i * 7 + len) as u8);
                let msg = &all[..len];
                let want = aes_cmac(key, msg).unwrap();
                let soft = AesCmac::keyed(Cipher::Soft(AesCipher::new(key).unwrap()));
                let mut a = soft.clone();
                a.update(msg);
                assert_eq!(a.finalize(), want, "len {len}");
                let mut b = soft;
                for piece in msg.chunks(13) {
                    b.update(piece);
                }
                assert_eq!(b.finalize(), want, "len {len} split");
            }
        }
    }
}
