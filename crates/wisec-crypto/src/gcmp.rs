//! GCMP-128 and GCMP-256 (IEEE Std 802.11-2020, 12.5.5).
//!
//! AES-GCM over the MPDU body with a 16-byte MIC. The AAD is the CCMP AAD
//! (12.5.5.3.3 refers to 12.5.3.3.3: [`crate::ccmp::aad`]); the 12-byte
//! nonce is A2 || PN5..PN0 (12.5.5.3.4, [`nonce`]). The GCM is wisec's own
//! engine ([`crate::gcm`]), on the fastest code path of the CPU; it moves
//! the body by the 8 octets of the GCMP header as it encrypts or decrypts
//! (protect and unprotect in place), or reads and writes two buffers
//! (`protect`, `unprotect`), so the body is touched once.

use wisec_wire::mac_header::Header;
use wisec_wire::security::{CcmpHeader, GCMP_HEADER_LEN, PN_MAX};
use wisec_wire::FrameControl;
use zeroize::Zeroize;

use crate::batch::Path;
use crate::ccmp::{a2_pn_word, pn_be, rx_layout, tx_layout, MpduAead};
use crate::gcm::Gcm;
use crate::{Error, FrameProtector, Overhead, Result, Unprotected};

/// Length of the GCM nonce of GCMP.
pub const NONCE_LEN: usize = 12;
/// MIC length of GCMP-128 and GCMP-256.
pub const MIC_LEN: usize = 16;

/// Builds the 12-byte GCMP nonce of an MPDU (IEEE Std 802.11-2020,
/// 12.5.5.3.4): A2 || PN5..PN0.
///
/// Errors: [`Error::Unsupported`] for control and extension frames,
/// [`Error::InvalidParameter`] for a PN above 2^48 - 1.
#[inline(always)]
pub fn nonce<T: AsRef<[u8]>>(header: &Header<T>, pn: u64) -> Result<[u8; NONCE_LEN]> {
    let fc = header.frame_control();
    if !(fc.is_data() || fc.is_mgmt()) {
        return Err(Error::Unsupported);
    }
    if pn > PN_MAX {
        return Err(Error::InvalidParameter);
    }
    let mut n = [0u8; NONCE_LEN];
    n[..6].copy_from_slice(&header.addr2().ok_or(Error::Malformed)?.0);
    n[6..].copy_from_slice(&pn_be(pn));
    Ok(n)
}

/// Writes the MIC and the GCMP header (12.5.5.2) around the encrypted body
/// of a protected MPDU in `out` (the MAC header is in place).
fn finish_tx(
    out: &mut [u8],
    hlen: usize,
    body_len: usize,
    pn: u64,
    key_id: u8,
    mic: &mut [u8; 16],
) -> Result<()> {
    let at = hlen + GCMP_HEADER_LEN + body_len;
    let slot = out.get_mut(at..at + MIC_LEN).ok_or(Error::BufferTooSmall)?;
    // The MIC goes out in the clear: there is nothing to wipe.
    slot.copy_from_slice(mic);
    CcmpHeader { pn, key_id }.emit(&mut out[hlen..hlen + GCMP_HEADER_LEN])?;
    Ok(())
}

/// Copies the MAC header, `hlen` octets, from `frame` to `out`. Where both
/// hold 32 octets, all 32 are copied (a fixed-size move, no call): a
/// header is at least 24 octets, so what lies past it up to octet 32
/// falls within the 8-octet GCMP header, which the caller writes after.
#[inline(always)]
fn copy_header(out: &mut [u8], frame: &[u8], hlen: usize) {
    match (out.first_chunk_mut::<32>(), frame.first_chunk::<32>()) {
        (Some(o), Some(f)) if hlen <= 32 => *o = *f,
        _ => out[..hlen].copy_from_slice(&frame[..hlen]),
    }
}

macro_rules! gcmp_suite {
    ($(#[$m:meta])* $name:ident, $key_len:expr) => {
        $(#[$m])*
        #[derive(Clone)]
        pub struct $name {
            // Key schedule and hash key table, wiped on drop.
            gcm: Gcm,
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(concat!(stringify!($name), "(..)"))
            }
        }

        impl $name {
            /// Key length in bytes.
            pub const KEY_LEN: usize = $key_len;
            /// MIC length in bytes.
            pub const MIC_LEN: usize = MIC_LEN;

            /// A suite for the temporal key `key` (exactly
            /// [`Self::KEY_LEN`] bytes, else [`Error::InvalidParameter`]),
            /// on the fastest GCM path of this CPU.
            pub fn new(key: &[u8]) -> Result<Self> {
                Self::with_path(key, Gcm::best_path())
            }

            /// The suite on a chosen GCM code path ([`Gcm::with_path`]);
            /// [`Error::Unsupported`] when this CPU lacks it.
            pub fn with_path(key: &[u8], path: Path) -> Result<Self> {
                if key.len() != Self::KEY_LEN {
                    return Err(Error::InvalidParameter);
                }
                Ok($name {
                    gcm: Gcm::with_path(key, path)?,
                })
            }

            /// The GCM code path of this key.
            pub fn path(&self) -> Path {
                self.gcm.path()
            }
        }

        impl MpduAead for $name {
            const MIC_LEN: usize = MIC_LEN;
            // Far below the GCM limit of 2^36 - 32 bytes and above any
            // MPDU body.
            const MAX_BODY: usize = 0xffff;
            type Nonce = [u8; NONCE_LEN];

            #[inline(always)]
            fn nonce_from(_: FrameControl, h0: u128, _: u128, pn: u64) -> Self::Nonce {
                // 12.5.5.3.4: A2 || PN5..PN0.
                let mut n = [0u8; NONCE_LEN];
                n.copy_from_slice(&a2_pn_word(h0, pn).to_le_bytes()[..NONCE_LEN]);
                n
            }

            fn seal(
                &self,
                n: &Self::Nonce,
                aad: &[u8],
                body: &mut [u8],
                mic: &mut [u8],
            ) -> Result<()> {
                let tag = self.gcm.seal_in_place(n, aad, body)?;
                // The MIC goes out in the clear: there is nothing to wipe.
                mic.get_mut(..MIC_LEN)
                    .ok_or(Error::BufferTooSmall)?
                    .copy_from_slice(&tag);
                Ok(())
            }

            fn open(&self, n: &Self::Nonce, aad: &[u8], body: &mut [u8], mic: &[u8]) -> Result<()> {
                // The tag is compared in constant time; on failure the
                // ciphertext is restored.
                self.gcm.open_in_place(n, aad, body, mic)
            }
        }

        impl FrameProtector for $name {
            fn overhead(&self) -> Overhead {
                Overhead {
                    header: GCMP_HEADER_LEN,
                    trailer: MIC_LEN,
                }
            }

            fn protect_in_place(&self, buf: &mut [u8], len: usize, pn: u64, key_id: u8) -> Result<usize> {
                let frame = buf.get(..len).ok_or(Error::BufferTooSmall)?;
                let l = tx_layout::<Self>(frame, buf.len(), pn, key_id)?;
                let (hlen, body_len) = (l.hlen, l.body_len);
                buf[..2].copy_from_slice(&l.fc.to_bytes());
                // The body moves 8 octets up as it is encrypted; the GCMP
                // header then goes over its old first octets.
                let r = self
                    .gcm
                    .seal_moved(&l.nonce, l.aad.as_bytes(), buf, hlen, hlen + GCMP_HEADER_LEN, body_len)
                    .and_then(|mut mic| finish_tx(buf, hlen, body_len, pn, key_id, &mut mic));
                if let Err(e) = r {
                    buf[..l.total].zeroize();
                    return Err(e);
                }
                Ok(l.total)
            }

            fn protect(&self, frame: &[u8], pn: u64, key_id: u8, out: &mut [u8]) -> Result<usize> {
                let l = tx_layout::<Self>(frame, out.len(), pn, key_id)?;
                let (hlen, body_len) = (l.hlen, l.body_len);
                // Before the GCMP header and the body are written.
                copy_header(out, frame, hlen);
                out[..2].copy_from_slice(&l.fc.to_bytes());
                let body_at = hlen + GCMP_HEADER_LEN;
                let r = self
                    .gcm
                    .seal(&l.nonce, l.aad.as_bytes(), &frame[hlen..], &mut out[body_at..body_at + body_len])
                    .and_then(|mut mic| finish_tx(out, hlen, body_len, pn, key_id, &mut mic));
                if let Err(e) = r {
                    out[..l.total].zeroize();
                    return Err(e);
                }
                Ok(l.total)
            }

            fn unprotect_in_place(&self, buf: &mut [u8]) -> Result<Unprotected> {
                let n = buf.len();
                let l = rx_layout::<Self>(buf)?;
                let (hlen, body_start, body_len) = (l.hlen, l.body_start, l.body_len);
                let mut mic = [0u8; MIC_LEN];
                mic.copy_from_slice(&buf[body_start + body_len..]);
                // Decrypts while moving the body over the GCMP header; on
                // failure the frame is put back as it was.
                self.gcm
                    .open_moved(&l.nonce, l.aad.as_bytes(), buf, body_start, hlen, body_len, &mic)?;
                let mut fc = l.fc;
                fc.set_protected(false);
                buf[..2].copy_from_slice(&fc.to_bytes());
                let plain_len = hlen + body_len;
                buf[plain_len..n].zeroize();
                Ok(Unprotected::new(plain_len, l.sec.pn, l.sec.key_id))
            }

            fn unprotect(&self, frame: &[u8], out: &mut [u8]) -> Result<Unprotected> {
                let out = out.get_mut(..frame.len()).ok_or(Error::BufferTooSmall)?;
                let l = match rx_layout::<Self>(frame) {
                    Ok(l) => l,
                    Err(e) => {
                        out.zeroize();
                        return Err(e);
                    }
                };
                let (hlen, body_start, body_len) = (l.hlen, l.body_start, l.body_len);
                let body = &frame[body_start..body_start + body_len];
                let mic = &frame[body_start + body_len..];
                // Before the plaintext, which goes over what the copy
                // takes past the MAC header; the rest is wiped below.
                copy_header(out, frame, hlen);
                if let Err(e) = self
                    .gcm
                    .open(&l.nonce, l.aad.as_bytes(), body, &mut out[hlen..hlen + body_len], mic)
                {
                    out.zeroize();
                    return Err(e);
                }
                let mut fc = l.fc;
                fc.set_protected(false);
                out[..2].copy_from_slice(&fc.to_bytes());
                out[hlen + body_len..].zeroize();
                Ok(Unprotected::new(hlen + body_len, l.sec.pn, l.sec.key_id))
            }
        }
    };
}

gcmp_suite!(
    /// GCMP-128: AES-128 GCM with a 16-byte MIC (12.5.5; cipher suite
    /// 00-0F-AC:8).
    Gcmp128,
    16
);

gcmp_suite!(
    /// GCMP-256: AES-256 GCM with a 16-byte MIC (12.5.5; cipher suite
    /// 00-0F-AC:9).
    Gcmp256,
    32
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_lengths() {
        assert!(Gcmp128::new(&[0u8; 16]).is_ok());
        assert_eq!(
            Gcmp128::new(&[0u8; 32]).unwrap_err(),
            Error::InvalidParameter
        );
        assert!(Gcmp256::new(&[0u8; 32]).is_ok());
        assert_eq!(
            Gcmp256::new(&[0u8; 16]).unwrap_err(),
            Error::InvalidParameter
        );
    }

    #[test]
    fn nonce_layout() {
        // P802.11ac/D7.0 M.11.1 header: A2 = 50:30:f1:84:44:08, PN
        // 0x00895F5F2B08.
        let f = [
            0x88, 0x48, 0x0b, 0x00, 0x0f, 0xd2, 0xe1, 0x28, 0xa5, 0x7c, 0x50, 0x30, 0xf1, 0x84,
            0x44, 0x08, 0x50, 0x30, 0xf1, 0x84, 0x44, 0x08, 0x80, 0x33, 0x03, 0x00,
        ];
        let h = Header::new_checked(&f[..]).unwrap();
        assert_eq!(
            nonce(&h, 0x0089_5f5f_2b08).unwrap(),
            [0x50, 0x30, 0xf1, 0x84, 0x44, 0x08, 0x00, 0x89, 0x5f, 0x5f, 0x2b, 0x08]
        );
        assert_eq!(nonce(&h, PN_MAX + 1), Err(Error::InvalidParameter));
    }
}
