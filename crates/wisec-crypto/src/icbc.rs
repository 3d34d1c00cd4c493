//! **Experimental, NOT IEEE 802.11, NOT interoperable**: the AES-CCMP
//! variant of seed 002 whose CBC-MAC is split into two interleaved chains
//! ("2-way interleaved CBC", ICBC) so that two AES calls of the MIC can run
//! in parallel. No standard receiver accepts its frames: the MIC differs
//! from CCMP's for every frame. It exists to reproduce the seed's
//! encryption-time experiment and is compiled only with the
//! `experimental-icbc` feature.
//!
//! # Construction
//!
//! Everything except the MIC computation is CCMP-128 (IEEE Std
//! 802.11-2020, 12.5.3): the CCMP header (12.5.3.2), the AAD (12.5.3.3.3),
//! the 13-octet nonce Flags || A2 || PN5..PN0 (12.5.3.3.4), the counter
//! blocks A_i = 0x01 || nonce || i and the CTR encryption of the data with
//! A_1, A_2, … and of the MIC with A_0 (RFC 3610, M = 8, L = 2). The seed
//! says: "the Counter mode is unchanged"; "the encryption time for the IV
//! and headers will remain similar"; "the first, third and every two block
//! thereafter is encrypted in CBC mode. The second, fourth and every two
//! block thereafter is encrypted as another stream"; "2 IVs are required";
//! "the multiple results will be XORed to produce a single MIC". Read most
//! naturally, with P_1 … P_n the zero-padded plaintext blocks:
//!
//! ```text
//! B0  = 0x59 || nonce || l(m)            (CCM's first block, as in CCMP)
//! B0' = B0 with bit 7 of its Flags octet set (0xD9 || nonce || l(m))
//! chain 1: X = E(B0); X = E(X ^ A) for each AAD block (2-octet length ||
//!          AAD, zero-padded, as in CCM); X = E(X ^ P_k) for k = 1, 3, 5, …
//! chain 2: Y = E(B0');                    Y = E(Y ^ P_k) for k = 2, 4, 6, …
//! T   = first 8 octets of (X ^ Y)
//! MIC = T ^ first 8 octets of E(A_0)
//! ```
//!
//! The second chain's IV (the seed's second "IV") is the encryption of
//! B0'. Bit 7 of the CCM Flags octet is reserved and always 0 in CCM, so
//! B0' never equals any CCM B0 and the two chains start from independent
//! values; both start from the nonce, so they can run from the first AES
//! call. The header blocks stay in chain 1 only ("headers remain similar").
//! With one data block, chain 2 is just E(B0'); with none, T is
//! E(…AAD…) ^ E(B0').

use crate::{ct_eq, Error, FrameProtector, Overhead, Result, Unprotected};
use aes::cipher::{BlockCipherEncrypt, KeyInit};
use aes::Aes128;
use wisec_wire::frame_control::FrameControl;
use wisec_wire::mac_header::{header_len, Header};
use wisec_wire::security::{CcmpHeader, CCMP_HEADER_LEN, PN_MAX};

/// Length of the (non-standard) MIC.
pub const MIC_LEN: usize = 8;
const NONCE_LEN: usize = 13;
const MAX_AAD: usize = 30;

/// The seed-002 2-way interleaved CBC-MAC CCMP-128. **NOT IEEE 802.11.**
pub struct ExperimentalIcbcCcmp128 {
    aes: Aes128,
}

impl core::fmt::Debug for ExperimentalIcbcCcmp128 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("ExperimentalIcbcCcmp128 { .. }")
    }
}

/// AAD and nonce of one frame.
struct Params {
    hl: usize,
    aad: [u8; MAX_AAD],
    aad_len: usize,
    nonce: [u8; NONCE_LEN],
}

/// Builds the CCMP AAD (12.5.3.3.3) and nonce (12.5.3.3.4) of the MPDU
/// whose MAC header starts `frame`.
fn params(frame: &[u8], pn: u64) -> Result<Params> {
    let fcb = frame.get(..2).ok_or(Error::Malformed)?;
    let fc = FrameControl::from_bytes([fcb[0], fcb[1]]);
    if !(fc.is_data() || fc.is_mgmt()) {
        return Err(Error::Unsupported);
    }
    let hl = header_len(fc)?;
    let h = Header::new_checked(frame.get(..hl).ok_or(Error::Malformed)?)?;
    let mut m = fc;
    if fc.is_data() {
        // Subtype bits 4, 5 and 6 masked to 0 in data frames.
        m.0 &= !0x0070;
    }
    m.set_retry(false);
    m.set_power_management(false);
    m.set_more_data(false);
    m.set_protected(true);
    if fc.is_qos_data() {
        m.set_order(false);
    }
    let mut aad = [0u8; MAX_AAD];
    aad[..2].copy_from_slice(&m.to_bytes());
    aad[2..20].copy_from_slice(&frame[4..22]);
    // Sequence Control with the Sequence Number masked to 0.
    let sc = h.sequence_control().unwrap_or(0) & 0x000f;
    aad[20..22].copy_from_slice(&sc.to_le_bytes());
    let mut n = 22;
    if let Some(a4) = h.addr4() {
        aad[n..n + 6].copy_from_slice(a4.as_bytes());
        n += 6;
    }
    if h.qos_control().is_some() {
        // QoS Control: TID only (bits 4..15 masked).
        aad[n] = h.tid();
        aad[n + 1] = 0;
        n += 2;
    }
    let mut nonce = [0u8; NONCE_LEN];
    nonce[0] = h.tid() | if fc.is_mgmt() { 0x10 } else { 0 };
    nonce[1..7].copy_from_slice(&frame[10..16]);
    nonce[7..].copy_from_slice(&pn.to_be_bytes()[2..]);
    Ok(Params {
        hl,
        aad,
        aad_len: n,
        nonce,
    })
}

impl ExperimentalIcbcCcmp128 {
    /// A 16-byte key; other lengths are [`Error::InvalidParameter`].
    pub fn new(key: &[u8]) -> Result<ExperimentalIcbcCcmp128> {
        let aes = Aes128::new_from_slice(key).map_err(|_| Error::InvalidParameter)?;
        Ok(ExperimentalIcbcCcmp128 { aes })
    }

    fn enc(&self, b: &mut [u8; 16]) {
        let mut blk = aes::Block::from(*b);
        self.aes.encrypt_block(&mut blk);
        b.copy_from_slice(&blk);
    }

    /// The raw tag T over `data` (before encryption with A_0). With
    /// `interleaved` false this is CCM's CBC-MAC, which the tests use to
    /// show that everything but the interleaving is CCMP.
    fn tag(&self, p: &Params, data: &[u8], interleaved: bool) -> [u8; 16] {
        let len = data.len() as u16;
        let mut b0 = [0u8; 16];
        b0[0] = 0x59;
        b0[1..14].copy_from_slice(&p.nonce);
        b0[14..].copy_from_slice(&len.to_be_bytes());
        let mut y = b0;
        y[0] |= 0x80;
        let mut x = b0;
        self.enc(&mut x);
        self.enc(&mut y);
        // AAD: 2-octet length then the AAD, zero-padded: at most 32 octets.
        let mut a = [0u8; 32];
        a[..2].copy_from_slice(&(p.aad_len as u16).to_be_bytes());
        a[2..2 + p.aad_len].copy_from_slice(&p.aad[..p.aad_len]);
        let ablocks = (2 + p.aad_len).div_ceil(16);
        for blk in a.chunks_exact(16).take(ablocks) {
            for (xi, ai) in x.iter_mut().zip(blk) {
                *xi ^= ai;
            }
            self.enc(&mut x);
        }
        for (k, chunk) in data.chunks(16).enumerate() {
            // k is 0-based: even k is the seed's first, third, … block.
            let chain = if interleaved && k % 2 == 1 {
                &mut y
            } else {
                &mut x
            };
            for (ci, di) in chain.iter_mut().zip(chunk) {
                *ci ^= di;
            }
            self.enc(chain);
        }
        if interleaved {
            for (xi, yi) in x.iter_mut().zip(&y) {
                *xi ^= yi;
            }
        }
        x
    }

    /// XORs the CTR keystream A_1, A_2, … into `data` and returns S_0.
    fn ctr(&self, nonce: &[u8; NONCE_LEN], data: &mut [u8]) -> [u8; 16] {
        let mut a = [0u8; 16];
        a[0] = 0x01;
        a[1..14].copy_from_slice(nonce);
        let mut s0 = a;
        self.enc(&mut s0);
        for (i, chunk) in data.chunks_mut(16).enumerate() {
            let mut s = a;
            s[14..].copy_from_slice(&((i + 1) as u16).to_be_bytes());
            self.enc(&mut s);
            for (d, k) in chunk.iter_mut().zip(&s) {
                *d ^= k;
            }
        }
        s0
    }

    fn seal(
        &self,
        buf: &mut [u8],
        len: usize,
        pn: u64,
        key_id: u8,
        interleaved: bool,
    ) -> Result<usize> {
        if pn > PN_MAX || key_id > 3 {
            return Err(Error::InvalidParameter);
        }
        let p = params(buf.get(..len).ok_or(Error::BufferTooSmall)?, pn)?;
        let total = len + CCMP_HEADER_LEN + MIC_LEN;
        let out = buf.get_mut(..total).ok_or(Error::BufferTooSmall)?;
        // The MIC covers at most 2^16 - 1 octets (L = 2).
        let dlen = len - p.hl;
        if dlen > usize::from(u16::MAX) {
            return Err(Error::Unsupported);
        }
        let t = self.tag(&p, &out[p.hl..len], interleaved);
        out.copy_within(p.hl..len, p.hl + CCMP_HEADER_LEN);
        CcmpHeader { pn, key_id }.emit(&mut out[p.hl..])?;
        let start = p.hl + CCMP_HEADER_LEN;
        let s0 = self.ctr(&p.nonce, &mut out[start..start + dlen]);
        for (i, m) in out[start + dlen..].iter_mut().enumerate() {
            *m = t[i] ^ s0[i];
        }
        let mut fc = FrameControl::from_bytes([out[0], out[1]]);
        fc.set_protected(true);
        out[..2].copy_from_slice(&fc.to_bytes());
        Ok(total)
    }

    fn open(&self, buf: &mut [u8], interleaved: bool) -> Result<Unprotected> {
        let fcb = buf.get(..2).ok_or(Error::Malformed)?;
        let mut fc = FrameControl::from_bytes([fcb[0], fcb[1]]);
        if !fc.protected() {
            return Err(Error::Malformed);
        }
        let hl = header_len(fc)?;
        let n = buf.len();
        if n < hl + CCMP_HEADER_LEN + MIC_LEN {
            return Err(Error::Malformed);
        }
        let h = CcmpHeader::parse(&buf[hl..])?;
        let p = params(buf, h.pn)?;
        let start = hl + CCMP_HEADER_LEN;
        let end = n - MIC_LEN;
        if end - start > usize::from(u16::MAX) {
            return Err(Error::Unsupported);
        }
        let s0 = self.ctr(&p.nonce, &mut buf[start..end]);
        let t = self.tag(&p, &buf[start..end], interleaved);
        let mut want = [0u8; MIC_LEN];
        for (i, w) in want.iter_mut().enumerate() {
            *w = t[i] ^ s0[i];
        }
        if !ct_eq(&want, &buf[end..]) {
            // Restore the ciphertext: no plaintext is left behind.
            self.ctr(&p.nonce, &mut buf[start..end]);
            return Err(Error::Integrity);
        }
        buf.copy_within(start..end, hl);
        let new_len = end - CCMP_HEADER_LEN;
        zeroize::Zeroize::zeroize(&mut buf[new_len..]);
        fc.set_protected(false);
        buf[..2].copy_from_slice(&fc.to_bytes());
        Ok(Unprotected::new(new_len, h.pn, h.key_id))
    }
}

impl FrameProtector for ExperimentalIcbcCcmp128 {
    fn overhead(&self) -> Overhead {
        Overhead {
            header: CCMP_HEADER_LEN,
            trailer: MIC_LEN,
        }
    }

    fn protect_in_place(&self, buf: &mut [u8], len: usize, pn: u64, key_id: u8) -> Result<usize> {
        self.seal(buf, len, pn, key_id, true)
    }

    fn unprotect_in_place(&self, buf: &mut [u8]) -> Result<Unprotected> {
        self.open(buf, true)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// With the interleaving switched off, this module is CCMP-128: it
    /// reproduces IEEE 802.11-2012 M.6.4 (ccmp128_M64 of the vector file),
    /// which shows that the AAD, nonce and CTR parts are the standard ones.
    #[test]
    fn without_interleaving_it_is_ccmp_m64() {
        let key = unhex("c97c1f67ce371185514a8a19f2bdd52f");
        let plain = unhex("0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050");
        let want = unhex("0848c32c0fd2e128a57c5030f1844408abaea5b8fcba80330ce70020769703b5f3d0a2fe9a3dbf2342a643e43246e80c3c04d0197845ce0b16f97623");
        let c = ExperimentalIcbcCcmp128::new(&key).unwrap();
        let mut buf = plain.clone();
        buf.resize(plain.len() + 16, 0);
        let n = c
            .seal(&mut buf, plain.len(), 0xb503_9776_e70c, 0, false)
            .unwrap();
        assert_eq!(&buf[..n], &want[..]);
        let mut rx = want.clone();
        let u = c.open(&mut rx, false).unwrap();
        assert_eq!(&rx[2..u.len()], &plain[2..]);
        let mut bad = want.clone();
        bad[30] ^= 1;
        assert_eq!(c.open(&mut bad, false), Err(Error::Integrity));
        // The interleaved receiver rejects the standard frame.
        assert_eq!(c.open(&mut want.clone(), true), Err(Error::Integrity));
    }
}
