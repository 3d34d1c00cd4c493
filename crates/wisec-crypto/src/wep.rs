//! WEP (IEEE Std 802.11-2020, 12.3.2): RC4 under the seed IV || key, with
//! a CRC-32 integrity check value (ICV).
//!
//! WEP is broken beyond repair: the 24-bit IV repeats, related RC4 keys
//! leak the key (FMS, PTW), and the ICV is a linear CRC, so an attacker who
//! flips bits of the ciphertext can fix up the encrypted ICV to match (the
//! ICV detects random corruption, not deliberate modification). It is here
//! to read old captures and to measure old networks, nothing else; the type
//! is named [`DangerWep`] so nobody picks it by accident.
//!
//! MPDU format (12.3.2.2, Figure 12-3): MAC header, IV (3 octets), Key ID
//! octet (Key ID in bits 6..=7, ExtIV clear), encrypted frame body,
//! encrypted ICV (4 octets, CRC-32 of the plaintext body, least significant
//! octet first). The packet number of [`FrameProtector`] is the 24-bit IV
//! with IV\[0\] most significant ([`WepHeader::iv_u32`]).

use crate::crc32::Crc32;
use crate::rc4::Rc4;
use crate::{ct_eq, Error, FrameProtector, Overhead, Result, Unprotected};
use wisec_wire::frame_control::FrameControl;
use wisec_wire::mac_header::header_len;
use wisec_wire::security::{WepHeader, WEP_HEADER_LEN};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Length of the WEP ICV.
pub const ICV_LEN: usize = 4;
/// Length of a WEP-40 key.
pub const WEP40_KEY_LEN: usize = 5;
/// Length of a WEP-104 key.
pub const WEP104_KEY_LEN: usize = 13;
/// Largest 24-bit IV.
pub const IV_MAX: u64 = 0x00ff_ffff;

/// Reads the frame control field and MAC header length of an MPDU that a
/// WEP-family suite may carry (management or data; control frames carry no
/// body). `len` bytes of `buf` are the frame.
pub(crate) fn mpdu_layout(frame: &[u8]) -> Result<(FrameControl, usize)> {
    let fc_bytes = frame.get(..2).ok_or(Error::Malformed)?;
    let fc = FrameControl::from_bytes([fc_bytes[0], fc_bytes[1]]);
    let hl = header_len(fc)?;
    if fc.is_ctrl() {
        return Err(Error::Unsupported);
    }
    if frame.len() < hl {
        return Err(Error::Malformed);
    }
    Ok((fc, hl))
}

/// Writes a frame control field back to the first two bytes.
pub(crate) fn write_fc(buf: &mut [u8], fc: FrameControl) {
    if let Some(b) = buf.get_mut(..2) {
        b.copy_from_slice(&fc.to_bytes());
    }
}

/// A WEP-40 or WEP-104 key. Insecure: see the module documentation.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct DangerWep {
    key: [u8; WEP104_KEY_LEN],
    key_len: usize,
}

impl core::fmt::Debug for DangerWep {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "DangerWep {{ {} bits, .. }}", self.key_len * 8)
    }
}

impl DangerWep {
    /// A 5-byte (WEP-40) or 13-byte (WEP-104) key; other lengths are
    /// [`Error::InvalidParameter`].
    pub fn new(key: &[u8]) -> Result<DangerWep> {
        if key.len() != WEP40_KEY_LEN && key.len() != WEP104_KEY_LEN {
            return Err(Error::InvalidParameter);
        }
        let mut k = [0u8; WEP104_KEY_LEN];
        k[..key.len()].copy_from_slice(key);
        Ok(DangerWep {
            key: k,
            key_len: key.len(),
        })
    }

    /// The RC4 state for one IV: seed = IV || key (12.3.2.2).
    fn cipher(&self, iv: [u8; 3]) -> Result<Rc4> {
        let mut seed = [0u8; 3 + WEP104_KEY_LEN];
        seed[..3].copy_from_slice(&iv);
        seed[3..3 + self.key_len].copy_from_slice(&self.key[..self.key_len]);
        let r = Rc4::new(&seed[..3 + self.key_len]);
        seed.zeroize();
        r
    }
}

/// Encrypts `body || ICV(body)` in place where `region` = body followed by
/// four spare bytes for the ICV.
pub(crate) fn seal_with_icv(mut rc4: Rc4, region: &mut [u8]) -> Result<()> {
    let body_len = region.len().checked_sub(ICV_LEN).ok_or(Error::Malformed)?;
    let mut crc = Crc32::new();
    crc.update(&region[..body_len]);
    region[body_len..].copy_from_slice(&crc.to_le_bytes());
    rc4.apply_keystream(region);
    Ok(())
}

/// Decrypts `region` (ciphertext body || encrypted ICV) in place with a
/// clone of `rc4` and checks the ICV. On a mismatch the region is
/// re-encrypted, so it holds the ciphertext again, and the result is
/// [`Error::Integrity`].
pub(crate) fn open_with_icv(rc4: &Rc4, region: &mut [u8]) -> Result<()> {
    let body_len = region.len().checked_sub(ICV_LEN).ok_or(Error::Malformed)?;
    rc4.clone().apply_keystream(region);
    let mut crc = Crc32::new();
    crc.update(&region[..body_len]);
    if ct_eq(&crc.to_le_bytes(), &region[body_len..]) {
        Ok(())
    } else {
        rc4.clone().apply_keystream(region);
        Err(Error::Integrity)
    }
}

/// Runs the out-of-place form `f` of an unprotect; on any failure `out`
/// (as far as the frame reaches) is wiped, as the in-place form's default
/// wrapper does.
pub(crate) fn wipe_on_error<T>(
    out: &mut [u8],
    len: usize,
    f: impl FnOnce(&mut [u8]) -> Result<T>,
) -> Result<T> {
    let out = out.get_mut(..len).ok_or(Error::BufferTooSmall)?;
    let r = f(out);
    if r.is_err() {
        out.zeroize();
    }
    r
}

impl FrameProtector for DangerWep {
    fn overhead(&self) -> Overhead {
        Overhead {
            header: WEP_HEADER_LEN,
            trailer: ICV_LEN,
        }
    }

    /// As [`FrameProtector::protect_in_place`], reading the plaintext
    /// from `frame`: the body is encrypted straight into its place in
    /// `out`.
    fn protect(&self, frame: &[u8], pn: u64, key_id: u8, out: &mut [u8]) -> Result<usize> {
        if pn > IV_MAX || key_id > 3 {
            return Err(Error::InvalidParameter);
        }
        let (mut fc, hl) = mpdu_layout(frame)?;
        let total = frame.len() + self.overhead().total();
        let out = out.get_mut(..total).ok_or(Error::BufferTooSmall)?;
        let iv = [(pn >> 16) as u8, (pn >> 8) as u8, pn as u8];
        let mut rc4 = self.cipher(iv)?;
        out[..hl].copy_from_slice(&frame[..hl]);
        WepHeader { iv, key_id }.emit(&mut out[hl..])?;
        let body = &frame[hl..];
        let mut crc = Crc32::new();
        crc.update(body);
        let (enc_body, icv) = out[hl + WEP_HEADER_LEN..].split_at_mut(body.len());
        rc4.apply_keystream_to(body, enc_body)?;
        rc4.apply_keystream_to(&crc.to_le_bytes(), icv)?;
        fc.set_protected(true);
        write_fc(out, fc);
        Ok(total)
    }

    /// As [`FrameProtector::unprotect_in_place`], decrypting straight from
    /// `frame` to the plaintext's place in `out`. On failure `out` is
    /// wiped.
    fn unprotect(&self, frame: &[u8], out: &mut [u8]) -> Result<Unprotected> {
        wipe_on_error(out, frame.len(), |out| {
            let (mut fc, hl) = mpdu_layout(frame)?;
            if !fc.protected() {
                return Err(Error::Malformed);
            }
            let n = frame.len();
            if n < hl + WEP_HEADER_LEN + ICV_LEN {
                return Err(Error::Malformed);
            }
            let h = WepHeader::parse(&frame[hl..])?;
            let mut rc4 = self.cipher(h.iv)?;
            let body_len = n - hl - WEP_HEADER_LEN - ICV_LEN;
            let enc = &frame[hl + WEP_HEADER_LEN..];
            rc4.apply_keystream_to(&enc[..body_len], &mut out[hl..hl + body_len])?;
            let mut icv = [0u8; ICV_LEN];
            rc4.apply_keystream_to(&enc[body_len..], &mut icv)?;
            let mut crc = Crc32::new();
            crc.update(&out[hl..hl + body_len]);
            if !ct_eq(&crc.to_le_bytes(), &icv) {
                return Err(Error::Integrity);
            }
            out[..hl].copy_from_slice(&frame[..hl]);
            out[hl + body_len..].zeroize();
            fc.set_protected(false);
            write_fc(out, fc);
            Ok(Unprotected::new(
                hl + body_len,
                u64::from(h.iv_u32()),
                h.key_id,
            ))
        })
    }

    /// `pn` is the 24-bit IV (at most [`IV_MAX`]), `key_id` 0..=3. The
    /// caller must never repeat an IV under one key (WEP cannot prevent it).
    fn protect_in_place(&self, buf: &mut [u8], len: usize, pn: u64, key_id: u8) -> Result<usize> {
        if pn > IV_MAX || key_id > 3 {
            return Err(Error::InvalidParameter);
        }
        let frame = buf.get(..len).ok_or(Error::BufferTooSmall)?;
        // A Protected Frame bit that is already set is accepted (the 802.11
        // test vectors give their plaintext MPDUs that way) and kept.
        let (mut fc, hl) = mpdu_layout(frame)?;
        let total = len + self.overhead().total();
        let out = buf.get_mut(..total).ok_or(Error::BufferTooSmall)?;
        let iv = [(pn >> 16) as u8, (pn >> 8) as u8, pn as u8];
        let rc4 = self.cipher(iv)?;
        out.copy_within(hl..len, hl + WEP_HEADER_LEN);
        WepHeader { iv, key_id }.emit(&mut out[hl..])?;
        seal_with_icv(rc4, &mut out[hl + WEP_HEADER_LEN..])?;
        fc.set_protected(true);
        write_fc(out, fc);
        Ok(total)
    }

    fn unprotect_in_place(&self, buf: &mut [u8]) -> Result<Unprotected> {
        let (mut fc, hl) = mpdu_layout(buf)?;
        if !fc.protected() {
            return Err(Error::Malformed);
        }
        let n = buf.len();
        if n < hl + WEP_HEADER_LEN + ICV_LEN {
            return Err(Error::Malformed);
        }
        let h = WepHeader::parse(&buf[hl..])?;
        let rc4 = self.cipher(h.iv)?;
        open_with_icv(&rc4, &mut buf[hl + WEP_HEADER_LEN..])?;
        let body_end = n - ICV_LEN;
        buf.copy_within(hl + WEP_HEADER_LEN..body_end, hl);
        let new_len = body_end - WEP_HEADER_LEN;
        buf[new_len..].zeroize();
        fc.set_protected(false);
        write_fc(buf, fc);
        Ok(Unprotected::new(new_len, u64::from(h.iv_u32()), h.key_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: [u8; 30] = [
        0x08, 0x01, 0x00, 0x00, 0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 3,
        0x10, 0x00, 0xaa, 0xaa, 0x03, 0, 0, 0,
    ];

    #[test]
    fn key_lengths() {
        assert!(DangerWep::new(&[0; 5]).is_ok());
        assert!(DangerWep::new(&[0; 13]).is_ok());
        for l in [0, 4, 6, 12, 14, 16, 32] {
            assert_eq!(
                DangerWep::new(&[0u8; 32][..l]).unwrap_err(),
                Error::InvalidParameter
            );
        }
    }

    #[test]
    fn round_trip_and_layout() {
        let wep = DangerWep::new(b"Fobar").unwrap();
        let mut buf = [0u8; 64];
        buf[..FRAME.len()].copy_from_slice(&FRAME);
        let n = wep
            .protect_in_place(&mut buf, FRAME.len(), 0x0a0b0c, 2)
            .unwrap();
        assert_eq!(n, FRAME.len() + 8);
        assert_eq!(buf[1], 0x41, "Protected Frame bit set");
        assert_eq!(&buf[24..28], &[0x0a, 0x0b, 0x0c, 0x80]);
        let u = wep.unprotect_in_place(&mut buf[..n]).unwrap();
        assert_eq!(u.len(), FRAME.len());
        assert_eq!(u.pn(), 0x0a0b0c);
        assert_eq!(u.key_id(), 2);
        assert_eq!(&buf[..FRAME.len()], &FRAME);
    }

    #[test]
    fn bad_parameters() {
        let wep = DangerWep::new(b"Fobar").unwrap();
        let mut buf = [0u8; 64];
        buf[..FRAME.len()].copy_from_slice(&FRAME);
        assert_eq!(
            wep.protect_in_place(&mut buf, FRAME.len(), IV_MAX + 1, 0),
            Err(Error::InvalidParameter)
        );
        assert_eq!(
            wep.protect_in_place(&mut buf, FRAME.len(), 0, 4),
            Err(Error::InvalidParameter)
        );
        assert_eq!(
            wep.protect_in_place(&mut buf[..FRAME.len() + 7], FRAME.len(), 0, 0),
            Err(Error::BufferTooSmall)
        );
        assert_eq!(
            wep.protect_in_place(&mut buf, 100, 0, 0),
            Err(Error::BufferTooSmall)
        );
        // An unprotected frame is not WEP.
        assert_eq!(
            wep.unprotect_in_place(&mut buf[..FRAME.len()]),
            Err(Error::Malformed)
        );
    }
}
