//! Counter with CBC-MAC (CCM) on AES: RFC 3610 and NIST SP 800-38C.
//!
//! [`Ccm`] is the whole mode for one key, tag length `M` and length-field
//! size `L`. The building blocks it is made of are public so that other
//! engines (a multi-frame CCMP engine that interleaves many CBC-MAC chains,
//! BIP tooling) can reuse them without re-deriving the formatting rules:
//!
//! - [`AesCipher`]: AES-128/192/256 forward cipher, keys wiped on drop;
//! - [`b0`], [`encode_aad_len`]: the first CBC-MAC block and the AAD length
//!   prefix (RFC 3610, 2.2; SP 800-38C, A.2.1 and A.2.2);
//! - [`CbcMac`]: the CBC-MAC chain over the formatted blocks;
//! - [`ctr_block`], [`apply_ctr`]: the counter blocks and CTR keystream
//!   (RFC 3610, 2.3; SP 800-38C, A.3).

use aes::cipher::{BlockCipherEncrypt, KeyInit};
use aes::{Aes128, Aes192, Aes256, Block};
use zeroize::Zeroize;

use crate::{ct_eq, Error, Result};

/// The AES block size.
pub const BLOCK_LEN: usize = 16;

/// The AES forward cipher for a 128-, 192- or 256-bit key.
///
/// The expanded key is wiped when the value is dropped (the `aes` crate's
/// `zeroize` feature).
#[derive(Clone)]
pub enum AesCipher {
    /// AES-128.
    Aes128(Aes128),
    /// AES-192.
    Aes192(Aes192),
    /// AES-256.
    Aes256(Aes256),
}

impl core::fmt::Debug for AesCipher {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Never print key material.
        f.write_str(match self {
            AesCipher::Aes128(_) => "AesCipher::Aes128(..)",
            AesCipher::Aes192(_) => "AesCipher::Aes192(..)",
            AesCipher::Aes256(_) => "AesCipher::Aes256(..)",
        })
    }
}

impl AesCipher {
    /// Expands a 16-, 24- or 32-byte key; other lengths are
    /// [`Error::InvalidParameter`].
    pub fn new(key: &[u8]) -> Result<AesCipher> {
        let bad = |_| Error::InvalidParameter;
        Ok(match key.len() {
            16 => AesCipher::Aes128(Aes128::new_from_slice(key).map_err(bad)?),
            24 => AesCipher::Aes192(Aes192::new_from_slice(key).map_err(bad)?),
            32 => AesCipher::Aes256(Aes256::new_from_slice(key).map_err(bad)?),
            _ => return Err(Error::InvalidParameter),
        })
    }

    /// Key length in bytes.
    pub const fn key_len(&self) -> usize {
        match self {
            AesCipher::Aes128(_) => 16,
            AesCipher::Aes192(_) => 24,
            AesCipher::Aes256(_) => 32,
        }
    }

    /// Encrypts one block in place.
    pub fn encrypt_block(&self, block: &mut Block) {
        match self {
            AesCipher::Aes128(c) => c.encrypt_block(block),
            AesCipher::Aes192(c) => c.encrypt_block(block),
            AesCipher::Aes256(c) => c.encrypt_block(block),
        }
    }

    /// Encrypts independent blocks in place; the backend may process
    /// several at once.
    pub fn encrypt_blocks(&self, blocks: &mut [Block]) {
        match self {
            AesCipher::Aes128(c) => c.encrypt_blocks(blocks),
            AesCipher::Aes192(c) => c.encrypt_blocks(blocks),
            AesCipher::Aes256(c) => c.encrypt_blocks(blocks),
        }
    }
}

/// Checks the CCM parameters: `M` in {4, 6, ..., 16} and `L` in 2..=8
/// (RFC 3610, 2; SP 800-38C, A.1).
pub const fn check_params(tag_len: usize, l: usize) -> Result<()> {
    if tag_len < 4 || tag_len > 16 || !tag_len.is_multiple_of(2) || l < 2 || l > 8 {
        return Err(Error::InvalidParameter);
    }
    Ok(())
}

/// True when a message of `len` bytes fits the `L`-byte length field:
/// `len < 2^(8L)` (RFC 3610, 2).
pub const fn msg_len_fits(len: usize, l: usize) -> bool {
    if l >= 8 {
        return true;
    }
    (len as u64) < (1u64 << (8 * l))
}

/// The first CBC-MAC block B_0 (RFC 3610, 2.2; SP 800-38C, A.2.1):
/// flags `64*Adata + 8*M' + L'` with `M' = (M-2)/2`, `L' = L-1`, then the
/// nonce, then the message length in `L` big-endian bytes.
///
/// The caller has checked the parameters ([`check_params`]), the nonce
/// length (`15 - L`) and the message length ([`msg_len_fits`]); a nonce of
/// another length is truncated or zero-padded.
pub fn b0(nonce: &[u8], aad_len: usize, msg_len: usize, tag_len: usize, l: usize) -> Block {
    let mut b = Block::default();
    let adata = if aad_len > 0 { 0x40 } else { 0 };
    let m_enc = ((tag_len.saturating_sub(2) / 2) & 0x7) as u8;
    let l_enc = (l.saturating_sub(1) & 0x7) as u8;
    b[0] = adata | (m_enc << 3) | l_enc;
    let n_len = 15usize.saturating_sub(l);
    for (dst, src) in b[1..1 + n_len.min(15)].iter_mut().zip(nonce) {
        *dst = *src;
    }
    let len = (msg_len as u64).to_be_bytes();
    for i in 0..l.min(8) {
        // The last `l` bytes of the block take the last `l` bytes of the
        // 64-bit length.
        b[15 - i] = len[7 - i];
    }
    b
}

/// The AAD length prefix (RFC 3610, 2.2; SP 800-38C, A.2.2): two bytes for
/// `0 < a < 2^16 - 2^8`, `0xFF 0xFE` and four bytes for `a < 2^32`,
/// `0xFF 0xFF` and eight bytes otherwise. Returns the buffer and how many
/// of its bytes are used (0 for empty AAD).
pub fn encode_aad_len(aad_len: usize) -> ([u8; 10], usize) {
    let mut out = [0u8; 10];
    let a = aad_len as u64;
    if a == 0 {
        (out, 0)
    } else if a < 0xff00 {
        out[..2].copy_from_slice(&(a as u16).to_be_bytes());
        (out, 2)
    } else if a <= u64::from(u32::MAX) {
        out[0] = 0xff;
        out[1] = 0xfe;
        out[2..6].copy_from_slice(&(a as u32).to_be_bytes());
        (out, 6)
    } else {
        out[0] = 0xff;
        out[1] = 0xff;
        out[2..10].copy_from_slice(&a.to_be_bytes());
        (out, 10)
    }
}

/// Counter block A_i (RFC 3610, 2.3; SP 800-38C, A.3): flags `L-1`, the
/// nonce, and `i` in `L` big-endian bytes.
pub fn ctr_block(nonce: &[u8], l: usize, counter: u64) -> Block {
    let mut a = Block::default();
    a[0] = (l.saturating_sub(1) & 0x7) as u8;
    let n_len = 15usize.saturating_sub(l);
    for (dst, src) in a[1..1 + n_len.min(15)].iter_mut().zip(nonce) {
        *dst = *src;
    }
    let c = counter.to_be_bytes();
    for i in 0..l.min(8) {
        a[15 - i] = c[7 - i];
    }
    a
}

/// Blocks of keystream computed per call to the cipher backend.
const CTR_BATCH: usize = 8;

/// XORs `data` with the CTR keystream `E(A_first) || E(A_first+1) || ...`
/// (RFC 3610, 2.3). The caller keeps the counter within `L` bytes, which
/// [`msg_len_fits`] guarantees for counters starting at 1.
pub fn apply_ctr(cipher: &AesCipher, nonce: &[u8], l: usize, first: u64, data: &mut [u8]) {
    let mut ks = [Block::default(); CTR_BATCH];
    let mut counter = first;
    for chunk in data.chunks_mut(BLOCK_LEN * CTR_BATCH) {
        let blocks = chunk.len().div_ceil(BLOCK_LEN);
        for k in ks.iter_mut().take(blocks) {
            *k = ctr_block(nonce, l, counter);
            counter = counter.wrapping_add(1);
        }
        cipher.encrypt_blocks(&mut ks[..blocks]);
        for (d, k) in chunk.iter_mut().zip(ks.iter().flat_map(|b| b.iter())) {
            *d ^= *k;
        }
    }
    for k in ks.iter_mut() {
        k.as_mut_slice().zeroize();
    }
}

/// A running CBC-MAC chain `X_{i+1} = E(X_i xor B_i)` over a byte stream
/// that is cut into 16-byte blocks, with zero padding at [`CbcMac::pad`]
/// (RFC 3610, 2.2).
#[derive(Clone)]
pub struct CbcMac {
    x: Block,
    pos: usize,
}

impl core::fmt::Debug for CbcMac {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("CbcMac(..)")
    }
}

impl CbcMac {
    /// Starts a chain with `X_1 = E(B_0)`.
    pub fn new(cipher: &AesCipher, b0: &Block) -> CbcMac {
        let mut x = *b0;
        cipher.encrypt_block(&mut x);
        CbcMac { x, pos: 0 }
    }

    /// Absorbs bytes; a block is encrypted each time 16 bytes are complete.
    pub fn update(&mut self, cipher: &AesCipher, mut data: &[u8]) {
        while !data.is_empty() {
            let take = (BLOCK_LEN - self.pos).min(data.len());
            let (head, rest) = data.split_at(take);
            for (x, d) in self.x[self.pos..self.pos + take].iter_mut().zip(head) {
                *x ^= *d;
            }
            self.pos += take;
            data = rest;
            if self.pos == BLOCK_LEN {
                cipher.encrypt_block(&mut self.x);
                self.pos = 0;
            }
        }
    }

    /// Completes a partial block with zero bytes (XOR with zero changes
    /// nothing, so only the encryption is left to do).
    pub fn pad(&mut self, cipher: &AesCipher) {
        if self.pos != 0 {
            cipher.encrypt_block(&mut self.x);
            self.pos = 0;
        }
    }

    /// The chain value `T` after padding.
    pub fn finalize(mut self, cipher: &AesCipher) -> Block {
        self.pad(cipher);
        let t = self.x;
        self.x.as_mut_slice().zeroize();
        t
    }
}

impl Drop for CbcMac {
    fn drop(&mut self) {
        self.x.as_mut_slice().zeroize();
    }
}

/// CCM with one AES key, tag length `M` and length-field size `L`.
#[derive(Clone)]
pub struct Ccm {
    cipher: AesCipher,
    tag_len: usize,
    l: usize,
}

impl core::fmt::Debug for Ccm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ccm")
            .field("key_len", &self.cipher.key_len())
            .field("tag_len", &self.tag_len)
            .field("l", &self.l)
            .finish_non_exhaustive()
    }
}

impl Ccm {
    /// A CCM instance for a 16-, 24- or 32-byte AES key, a tag of
    /// `tag_len` bytes (4, 6, ..., 16) and a length field of `l` bytes
    /// (2..=8, so nonces of `15 - l` bytes).
    pub fn new(key: &[u8], tag_len: usize, l: usize) -> Result<Ccm> {
        check_params(tag_len, l)?;
        Ok(Ccm {
            cipher: AesCipher::new(key)?,
            tag_len,
            l,
        })
    }

    /// The tag length `M`.
    pub const fn tag_len(&self) -> usize {
        self.tag_len
    }

    /// The length-field size `L`.
    pub const fn l(&self) -> usize {
        self.l
    }

    /// The nonce length `15 - L`.
    pub const fn nonce_len(&self) -> usize {
        15 - self.l
    }

    /// The block cipher, for engines built from the public building blocks.
    pub const fn cipher(&self) -> &AesCipher {
        &self.cipher
    }

    fn check(&self, nonce: &[u8], len: usize) -> Result<()> {
        if nonce.len() != self.nonce_len() || !msg_len_fits(len, self.l) {
            return Err(Error::InvalidParameter);
        }
        Ok(())
    }

    /// The CBC-MAC value `T` over `B_0`, the AAD and the plaintext.
    fn mac(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> Block {
        let c = &self.cipher;
        let mut mac = CbcMac::new(
            c,
            &b0(nonce, aad.len(), plaintext.len(), self.tag_len, self.l),
        );
        if !aad.is_empty() {
            let (prefix, n) = encode_aad_len(aad.len());
            mac.update(c, &prefix[..n]);
            mac.update(c, aad);
            mac.pad(c);
        }
        mac.update(c, plaintext);
        mac.finalize(c)
    }

    /// `U = T xor E(A_0)`, the first `M` bytes are the tag.
    fn tag(&self, nonce: &[u8], mut t: Block) -> Block {
        let mut s0 = ctr_block(nonce, self.l, 0);
        self.cipher.encrypt_block(&mut s0);
        for (a, b) in t.iter_mut().zip(s0.iter()) {
            *a ^= *b;
        }
        s0.as_mut_slice().zeroize();
        t
    }

    /// Encrypts `data` in place and writes the `M`-byte tag to
    /// `tag_out[..M]` (RFC 3610, 2.2 and 2.3).
    ///
    /// Errors: [`Error::InvalidParameter`] for a nonce that is not
    /// `15 - L` bytes or a message too long for `L`;
    /// [`Error::BufferTooSmall`] when `tag_out` is shorter than `M`.
    pub fn encrypt_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
        tag_out: &mut [u8],
    ) -> Result<()> {
        self.check(nonce, data.len())?;
        let tag_out = tag_out
            .get_mut(..self.tag_len)
            .ok_or(Error::BufferTooSmall)?;
        let t = self.mac(nonce, aad, data);
        let mut u = self.tag(nonce, t);
        tag_out.copy_from_slice(&u[..self.tag_len]);
        u.as_mut_slice().zeroize();
        apply_ctr(&self.cipher, nonce, self.l, 1, data);
        Ok(())
    }

    /// Decrypts `data` in place and verifies `tag` (which must be exactly
    /// `M` bytes) in constant time (RFC 3610, 2.5). On failure `data` is
    /// wiped to zeros and [`Error::Integrity`] returned.
    pub fn decrypt_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        let r = self.open(nonce, aad, data, tag);
        if r == Err(Error::Integrity) {
            data.zeroize();
        }
        r
    }

    /// Like [`Ccm::decrypt_in_place_detached`], but on a failed check
    /// `data` is put back to the ciphertext it held (re-applying the
    /// keystream), so a caller can hand the frame on unchanged.
    pub fn decrypt_in_place_detached_or_restore(
        &self,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        let r = self.open(nonce, aad, data, tag);
        if r == Err(Error::Integrity) {
            apply_ctr(&self.cipher, nonce, self.l, 1, data);
        }
        r
    }

    /// Decrypts and verifies. Returns `Integrity` with `data` decrypted
    /// (the callers decide what to leave behind), any other error with
    /// `data` untouched.
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        self.check(nonce, data.len())?;
        if tag.len() != self.tag_len {
            return Err(Error::InvalidParameter);
        }
        apply_ctr(&self.cipher, nonce, self.l, 1, data);
        let t = self.mac(nonce, aad, data);
        let mut u = self.tag(nonce, t);
        let ok = ct_eq(&u[..self.tag_len], tag);
        u.as_mut_slice().zeroize();
        if ok {
            Ok(())
        } else {
            Err(Error::Integrity)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    extern crate std;
    use std::vec::Vec;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    // RFC 3610, section 8, Packet Vector #1.
    #[test]
    fn rfc3610_packet_vector_1() {
        let key = h("C0C1C2C3C4C5C6C7C8C9CACBCCCDCECF");
        let nonce = h("00000003020100A0A1A2A3A4A5");
        let aad = h("0001020304050607");
        let pt = h("08090A0B0C0D0E0F101112131415161718191A1B1C1D1E");
        let ct = h("588C979A61C663D2F066D0C2C0F989806D5F6B61DAC38417E8D12CFDF926E0");
        let ccm = Ccm::new(&key, 8, 2).unwrap();
        let mut data = pt.clone();
        let mut tag = [0u8; 8];
        ccm.encrypt_in_place_detached(&nonce, &aad, &mut data, &mut tag)
            .unwrap();
        assert_eq!(&data[..], &ct[..23]);
        assert_eq!(&tag[..], &ct[23..]);
        ccm.decrypt_in_place_detached(&nonce, &aad, &mut data, &tag)
            .unwrap();
        assert_eq!(data, pt);
        // Tampered tag: rejected, plaintext wiped.
        ccm.encrypt_in_place_detached(&nonce, &aad, &mut data, &mut tag)
            .unwrap();
        tag[0] ^= 1;
        assert_eq!(
            ccm.decrypt_in_place_detached(&nonce, &aad, &mut data, &tag),
            Err(Error::Integrity)
        );
        assert_eq!(data, [0u8; 23]);
        // The restoring variant gives back the ciphertext instead.
        let mut data = ct[..23].to_vec();
        assert_eq!(
            ccm.decrypt_in_place_detached_or_restore(&nonce, &aad, &mut data, &tag),
            Err(Error::Integrity)
        );
        assert_eq!(&data[..], &ct[..23]);
    }

    #[test]
    fn parameters() {
        let k = [0u8; 16];
        for m in [4, 6, 8, 10, 12, 14, 16] {
            for l in 2..=8 {
                assert!(Ccm::new(&k, m, l).is_ok());
            }
        }
        for (m, l) in [(0, 2), (2, 2), (5, 2), (18, 2), (8, 1), (8, 9), (8, 0)] {
            assert_eq!(Ccm::new(&k, m, l).unwrap_err(), Error::InvalidParameter);
        }
        for len in [0, 15, 17, 33] {
            assert_eq!(
                Ccm::new(&[0u8; 64][..len], 8, 2).unwrap_err(),
                Error::InvalidParameter
            );
        }
        let ccm = Ccm::new(&k, 8, 2).unwrap();
        let mut tag = [0u8; 8];
        // Wrong nonce length.
        assert_eq!(
            ccm.encrypt_in_place_detached(&[0; 12], &[], &mut [0; 4], &mut tag),
            Err(Error::InvalidParameter)
        );
        // Tag buffer too small.
        assert_eq!(
            ccm.encrypt_in_place_detached(&[0; 13], &[], &mut [0; 4], &mut tag[..7]),
            Err(Error::BufferTooSmall)
        );
        // Wrong tag length on decryption leaves data untouched.
        let mut d = [7u8; 4];
        assert_eq!(
            ccm.decrypt_in_place_detached(&[0; 13], &[], &mut d, &tag[..7]),
            Err(Error::InvalidParameter)
        );
        assert_eq!(d, [7u8; 4]);
    }

    #[test]
    fn message_length_bound() {
        assert!(msg_len_fits(65535, 2));
        assert!(!msg_len_fits(65536, 2));
        assert!(msg_len_fits(usize::MAX, 8));
        let ccm = Ccm::new(&[0u8; 16], 4, 2).unwrap();
        let mut big = [0u8; 65536];
        let mut tag = [0u8; 4];
        assert_eq!(
            ccm.encrypt_in_place_detached(&[0; 13], &[], &mut big, &mut tag),
            Err(Error::InvalidParameter)
        );
        assert!(ccm
            .encrypt_in_place_detached(&[0; 13], &[], &mut big[..65535], &mut tag)
            .is_ok());
    }

    #[test]
    fn aad_length_encodings() {
        assert_eq!(encode_aad_len(0).1, 0);
        assert_eq!(encode_aad_len(1), ([0, 1, 0, 0, 0, 0, 0, 0, 0, 0], 2));
        assert_eq!(
            encode_aad_len(0xfeff),
            ([0xfe, 0xff, 0, 0, 0, 0, 0, 0, 0, 0], 2)
        );
        assert_eq!(
            encode_aad_len(0xff00),
            ([0xff, 0xfe, 0, 0, 0xff, 0, 0, 0, 0, 0], 6)
        );
        #[cfg(target_pointer_width = "64")]
        assert_eq!(
            encode_aad_len(0x1_0000_0000),
            ([0xff, 0xff, 0, 0, 0, 1, 0, 0, 0, 0], 10)
        );
    }
}
