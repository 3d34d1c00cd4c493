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
use aes::cipher::consts::U16;
use aes::cipher::typenum::Unsigned;
use aes::cipher::{
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, KeyInit,
    ParBlocks,
};
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
    /// AES runs in software (bit-sliced): a parallel call costs what one
    /// block does (see [`ExperimentalIcbcCcmp128::enc2`]).
    soft: bool,
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
        Ok(ExperimentalIcbcCcmp128 {
            aes,
            soft: !aes::hardware_accelerated(),
        })
    }

    fn enc(&self, b: &mut [u8; 16]) {
        let mut blk = aes::Block::from(*b);
        self.aes.encrypt_block(&mut blk);
        b.copy_from_slice(&blk);
    }

    /// Encrypts two independent blocks, the two chains' next blocks: this
    /// is where the interleaved MAC saves time. With AES instructions the
    /// aes crate pipelines the blocks of one multi-block call (two
    /// single-block calls measured slower: each is dispatched on its own);
    /// a bit-sliced software AES computes all the blocks of its parallel
    /// width in one pass, costing what one block does, but a call shorter
    /// than that width goes block by block, so both go into one full
    /// parallel pass.
    fn enc2(&self, a: &mut [u8; 16], b: &mut [u8; 16]) {
        if self.soft {
            self.aes.encrypt_with_backend(Pair { a, b });
        } else {
            let mut blks = [aes::Block::from(*a), aes::Block::from(*b)];
            self.aes.encrypt_blocks(&mut blks);
            a.copy_from_slice(&blks[0]);
            b.copy_from_slice(&blks[1]);
        }
    }

    /// Seed 002's header work for the frame whose MAC header starts
    /// `frame` (the body is `frame[hl..len]`, `len` octets in all): the
    /// AAD and nonce (12.5.3.3.3, 12.5.3.3.4), and from them `B_0`, the two
    /// AAD blocks and the counter preload `A_0`, without any AES call (the
    /// seed's construct_mic_iv, construct_mic_header1/2 and
    /// construct_ctr_preload).
    pub fn phase_header(&self, frame: &[u8], len: usize, pn: u64) -> Result<FramePrep> {
        let p = params(frame.get(..len).ok_or(Error::BufferTooSmall)?, pn)?;
        let dlen = len - p.hl;
        // The MIC covers at most 2^16 - 1 octets (L = 2).
        let dlen = u16::try_from(dlen).map_err(|_| Error::Unsupported)?;
        let mut b0 = [0u8; 16];
        b0[0] = 0x59;
        b0[1..14].copy_from_slice(&p.nonce);
        b0[14..].copy_from_slice(&dlen.to_be_bytes());
        // AAD: 2-octet length then the AAD, zero-padded. CCMP's AAD is 22
        // to 30 octets, so this is always two blocks.
        let mut aad = [[0u8; 16]; 2];
        let mut a = [0u8; 32];
        a[..2].copy_from_slice(&(p.aad_len as u16).to_be_bytes());
        a[2..2 + p.aad_len].copy_from_slice(&p.aad[..p.aad_len]);
        aad[0].copy_from_slice(&a[..16]);
        aad[1].copy_from_slice(&a[16..]);
        let mut a0 = [0u8; 16];
        a0[0] = 0x01;
        a0[1..14].copy_from_slice(&p.nonce);
        Ok(FramePrep {
            hl: p.hl,
            b0,
            aad,
            a0,
        })
    }

    /// Seed 002's MIC calculation: the raw tag T over `data` (before its
    /// encryption with `A_0`). With `interleaved` false this is CCM's
    /// CBC-MAC (the tests show that everything but the interleaving is
    /// CCMP); with it true, the two chains of the module documentation,
    /// whose AES calls go to the cipher in pairs.
    pub fn phase_mic(&self, prep: &FramePrep, data: &[u8], interleaved: bool) -> [u8; 16] {
        let mut x = prep.b0;
        let mut y = prep.b0;
        y[0] |= 0x80;
        if interleaved {
            self.enc2(&mut x, &mut y);
        } else {
            self.enc(&mut x);
        }
        for blk in &prep.aad {
            xor_into(&mut x, blk);
            self.enc(&mut x);
        }
        if interleaved {
            // Blocks 1, 3, 5, ... to chain 1 and 2, 4, 6, ... to chain 2.
            for pair in data.chunks(32) {
                let (p1, p2) = pair.split_at(pair.len().min(16));
                xor_into(&mut x, p1);
                if p2.is_empty() {
                    self.enc(&mut x);
                } else {
                    xor_into(&mut y, p2);
                    self.enc2(&mut x, &mut y);
                }
            }
            xor_into(&mut x, &y);
        } else {
            for chunk in data.chunks(16) {
                xor_into(&mut x, chunk);
                self.enc(&mut x);
            }
        }
        x
    }

    /// Seed 002's counter mode: XORs the keystream `E(A_1), E(A_2), ...`
    /// into `data` and returns `S_0 = E(A_0)`, which encrypts the MIC. The
    /// counter blocks are independent and go to the cipher eight at a time
    /// (in whole parallel passes of a software AES), the same for the
    /// standard and the interleaved MAC.
    pub fn phase_ctr(&self, prep: &FramePrep, data: &mut [u8]) -> [u8; 16] {
        const BATCH: usize = 8;
        let mut s0 = [0u8; 16];
        let mut blks = [aes::Block::default(); BATCH];
        // Counter i for i = 0 (S_0) then one per 16-octet block of data.
        let nblocks = data.len().div_ceil(16);
        let mut next = 0usize;
        while next <= nblocks {
            let take = (nblocks + 1 - next).min(BATCH);
            // A bit-sliced AES computes four blocks in one pass and a
            // shorter call block by block: fill its passes with counters
            // past the end, whose keystream is not used.
            let run = if self.soft {
                take.next_multiple_of(4).min(BATCH)
            } else {
                take
            };
            for (j, b) in blks[..run].iter_mut().enumerate() {
                let mut a = prep.a0;
                a[14..].copy_from_slice(&((next + j) as u16).to_be_bytes());
                *b = aes::Block::from(a);
            }
            self.aes.encrypt_blocks(&mut blks[..run]);
            for (j, k) in blks[..take].iter().enumerate() {
                let i = next + j;
                if i == 0 {
                    s0.copy_from_slice(k);
                } else {
                    let off = (i - 1) * 16;
                    let end = (off + 16).min(data.len());
                    for (d, kk) in data[off..end].iter_mut().zip(k.iter()) {
                        *d ^= kk;
                    }
                }
            }
            next += take;
        }
        for b in blks.iter_mut() {
            zeroize::Zeroize::zeroize(b.as_mut_slice());
        }
        s0
    }

    /// Protects the plaintext MPDU `buf[..len]` in place as
    /// [`FrameProtector::protect_in_place`] does, with the interleaved MAC
    /// (`interleaved` true: this module's frames) or with CCM's CBC-MAC
    /// (false: then the frame is standard CCMP-128, IEEE Std 802.11-2020,
    /// 12.5.3). For timing the two MACs on the same code.
    pub fn protect_in_place_with(
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
        let prep = self.phase_header(buf, len, pn)?;
        let hl = prep.hl;
        let total = len + CCMP_HEADER_LEN + MIC_LEN;
        let out = buf.get_mut(..total).ok_or(Error::BufferTooSmall)?;
        let dlen = len - hl;
        let t = self.phase_mic(&prep, &out[hl..len], interleaved);
        out.copy_within(hl..len, hl + CCMP_HEADER_LEN);
        CcmpHeader { pn, key_id }.emit(&mut out[hl..])?;
        let start = hl + CCMP_HEADER_LEN;
        let s0 = self.phase_ctr(&prep, &mut out[start..start + dlen]);
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
        let start = hl + CCMP_HEADER_LEN;
        let end = n - MIC_LEN;
        // The nonce and AAD come from the MAC header only; the body length
        // that goes into B_0 is the plaintext's, end - start.
        let mut prep = self.phase_header(&buf[..hl], hl, h.pn)?;
        let dlen = u16::try_from(end - start).map_err(|_| Error::Unsupported)?;
        prep.b0[14..].copy_from_slice(&dlen.to_be_bytes());
        let s0 = self.phase_ctr(&prep, &mut buf[start..end]);
        let t = self.phase_mic(&prep, &buf[start..end], interleaved);
        let mut want = [0u8; MIC_LEN];
        for (i, w) in want.iter_mut().enumerate() {
            *w = t[i] ^ s0[i];
        }
        if !ct_eq(&want, &buf[end..]) {
            // Restore the ciphertext: no plaintext is left behind.
            self.phase_ctr(&prep, &mut buf[start..end]);
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

/// Two blocks for one parallel pass of the cipher's backend.
struct Pair<'a> {
    a: &'a mut [u8; 16],
    b: &'a mut [u8; 16],
}

impl BlockSizeUser for Pair<'_> {
    type BlockSize = U16;
}

impl BlockCipherEncClosure for Pair<'_> {
    fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, backend: &B) {
        if B::ParBlocksSize::USIZE >= 2 {
            let mut par = ParBlocks::<B>::default();
            par[0] = aes::Block::from(*self.a);
            par[1] = aes::Block::from(*self.b);
            backend.encrypt_par_blocks_inplace(&mut par);
            self.a.copy_from_slice(&par[0]);
            self.b.copy_from_slice(&par[1]);
            for blk in par.iter_mut() {
                zeroize::Zeroize::zeroize(blk.as_mut_slice());
            }
        } else {
            for x in [self.a, self.b] {
                let mut blk = aes::Block::from(*x);
                backend.encrypt_block_inplace(&mut blk);
                x.copy_from_slice(&blk);
            }
        }
    }
}

/// XORs `src` into the front of `dst` (a short last block XORs fewer
/// octets: CCM's zero padding).
fn xor_into(dst: &mut [u8; 16], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}

/// What [`ExperimentalIcbcCcmp128::phase_header`] builds for one frame:
/// the MAC header length, `B_0`, the two AAD blocks and the counter
/// preload `A_0` (no key material).
#[derive(Debug, Clone)]
pub struct FramePrep {
    hl: usize,
    b0: [u8; 16],
    aad: [[u8; 16]; 2],
    a0: [u8; 16],
}

impl FramePrep {
    /// Length of the MAC header: the body starts there.
    pub fn header_len(&self) -> usize {
        self.hl
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
        self.protect_in_place_with(buf, len, pn, key_id, true)
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
            .protect_in_place_with(&mut buf, plain.len(), 0xb503_9776_e70c, 0, false)
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
