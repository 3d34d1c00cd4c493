//! The RC4 stream cipher, as WEP and TKIP use it (IEEE Std 802.11-2020,
//! 12.3.2.2 and 12.5.2.1). RC4 is broken; it exists here only for the
//! legacy suites [`crate::wep`] and [`crate::tkip`].
//!
//! The key-scheduling and output algorithms follow the public description
//! of RC4 (the one RFC 6229 gives test vectors for). The state is wiped on
//! drop.

use crate::{Error, Result};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// An RC4 keystream generator.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Rc4 {
    s: [u8; 256],
    i: u8,
    j: u8,
}

impl core::fmt::Debug for Rc4 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Rc4 { .. }")
    }
}

impl Rc4 {
    /// Runs the key schedule for a key of 1 to 256 bytes.
    pub fn new(key: &[u8]) -> Result<Rc4> {
        if key.is_empty() || key.len() > 256 {
            return Err(Error::InvalidParameter);
        }
        let mut s = [0u8; 256];
        for (n, v) in s.iter_mut().enumerate() {
            // n < 256: the cast is exact.
            *v = n as u8;
        }
        let mut j: u8 = 0;
        for n in 0..256 {
            let k = key[n % key.len()];
            j = j.wrapping_add(s[n]).wrapping_add(k);
            s.swap(n, usize::from(j));
        }
        Ok(Rc4 { s, i: 0, j: 0 })
    }

    /// The next keystream byte.
    #[inline]
    pub fn next_byte(&mut self) -> u8 {
        self.i = self.i.wrapping_add(1);
        let si = self.s[usize::from(self.i)];
        self.j = self.j.wrapping_add(si);
        self.s.swap(usize::from(self.i), usize::from(self.j));
        let t = self.s[usize::from(self.i)].wrapping_add(self.s[usize::from(self.j)]);
        self.s[usize::from(t)]
    }

    /// XORs the keystream into `data` (encrypts or decrypts).
    pub fn apply_keystream(&mut self, data: &mut [u8]) {
        for b in data {
            *b ^= self.next_byte();
        }
    }

    /// Discards `n` keystream bytes.
    pub fn skip(&mut self, n: usize) {
        for _ in 0..n {
            self.next_byte();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_key_lengths() {
        assert!(Rc4::new(&[]).is_err());
        assert!(Rc4::new(&[0u8; 257]).is_err());
        assert!(Rc4::new(&[0u8; 256]).is_ok());
        assert!(Rc4::new(&[7]).is_ok());
    }

    #[test]
    fn rfc6229_first_block_and_skip() {
        // RFC 6229, section 2, key 0x0102030405: offsets 0 and 4096.
        let mut r = Rc4::new(&[1, 2, 3, 4, 5]).unwrap();
        let mut b = [0u8; 16];
        r.apply_keystream(&mut b);
        assert_eq!(
            b,
            [
                0xb2, 0x39, 0x63, 0x05, 0xf0, 0x3d, 0xc0, 0x27, 0xcc, 0xc3, 0x52, 0x4a, 0x0a, 0x11,
                0x18, 0xa8
            ]
        );
        let mut r = Rc4::new(&[1, 2, 3, 4, 5]).unwrap();
        r.skip(4096);
        let mut b = [0u8; 4];
        r.apply_keystream(&mut b);
        assert_eq!(b, [0xff, 0x25, 0xb5, 0x89]);
    }

    #[test]
    fn decrypt_is_encrypt() {
        let mut data = *b"attack at dawn";
        Rc4::new(b"Key").unwrap().apply_keystream(&mut data);
        assert_ne!(&data, b"attack at dawn");
        Rc4::new(b"Key").unwrap().apply_keystream(&mut data);
        assert_eq!(&data, b"attack at dawn");
    }
}
