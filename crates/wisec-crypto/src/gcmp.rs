//! GCMP-128 and GCMP-256 (IEEE Std 802.11-2020, 12.5.5).
//!
//! AES-GCM over the MPDU body with a 16-byte MIC. The AAD is the CCMP AAD
//! (12.5.5.3.3 refers to 12.5.3.3.3: [`crate::ccmp::aad`]); the 12-byte
//! nonce is A2 || PN5..PN0 (12.5.5.3.4, [`nonce`]). The GCM itself is the
//! `aes-gcm` crate's detached in-place API, without allocation.

use aes_gcm::aead::array::Array;
use aes_gcm::{AeadInOut, Aes128Gcm, Aes256Gcm, KeyInit};
use wisec_wire::mac_header::Header;
use wisec_wire::security::{GCMP_HEADER_LEN, PN_MAX};

use crate::ccmp::{mpdu_frame_protector, pn_be, MpduAead};
use crate::{Error, Result};

/// Length of the GCM nonce of GCMP.
pub const NONCE_LEN: usize = 12;
/// MIC length of GCMP-128 and GCMP-256.
pub const MIC_LEN: usize = 16;

/// Builds the 12-byte GCMP nonce of an MPDU (IEEE Std 802.11-2020,
/// 12.5.5.3.4): A2 || PN5..PN0.
///
/// Errors: [`Error::Unsupported`] for control and extension frames,
/// [`Error::InvalidParameter`] for a PN above 2^48 - 1.
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

macro_rules! gcmp_suite {
    ($(#[$m:meta])* $name:ident, $gcm:ty, $key_len:expr) => {
        $(#[$m])*
        #[derive(Clone)]
        pub struct $name {
            // Wiped on drop: the aes-gcm `zeroize` feature.
            gcm: $gcm,
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
            /// [`Self::KEY_LEN`] bytes, else [`Error::InvalidParameter`]).
            pub fn new(key: &[u8]) -> Result<Self> {
                let gcm = <$gcm>::new_from_slice(key).map_err(|_| Error::InvalidParameter)?;
                Ok($name { gcm })
            }
        }

        impl MpduAead for $name {
            const MIC_LEN: usize = MIC_LEN;
            // Far below the GCM limit of 2^36 - 32 bytes and above any
            // MPDU body.
            const MAX_BODY: usize = 0xffff;
            type Nonce = [u8; NONCE_LEN];

            fn nonce(header: &Header<&[u8]>, pn: u64) -> Result<Self::Nonce> {
                nonce(header, pn)
            }

            fn seal(
                &self,
                n: &Self::Nonce,
                aad: &[u8],
                body: &mut [u8],
                mic: &mut [u8],
            ) -> Result<()> {
                let tag = self
                    .gcm
                    .encrypt_inout_detached(&Array::from(*n), aad, body.into())
                    .map_err(|_| Error::InvalidParameter)?;
                mic.get_mut(..MIC_LEN)
                    .ok_or(Error::BufferTooSmall)?
                    .copy_from_slice(&tag);
                Ok(())
            }

            fn open(&self, n: &Self::Nonce, aad: &[u8], body: &mut [u8], mic: &[u8]) -> Result<()> {
                let tag = Array::try_from(mic).map_err(|_| Error::Malformed)?;
                // aes-gcm compares the tag in constant time and decrypts
                // only after it verified, so a failure leaves `body` as it
                // was given.
                self.gcm
                    .decrypt_inout_detached(&Array::from(*n), aad, body.into(), &tag)
                    .map_err(|_| Error::Integrity)
            }
        }

        mpdu_frame_protector!($name, GCMP_HEADER_LEN);
    };
}

gcmp_suite!(
    /// GCMP-128: AES-128 GCM with a 16-byte MIC (12.5.5; cipher suite
    /// 00-0F-AC:8).
    Gcmp128,
    Aes128Gcm,
    16
);

gcmp_suite!(
    /// GCMP-256: AES-256 GCM with a 16-byte MIC (12.5.5; cipher suite
    /// 00-0F-AC:9).
    Gcmp256,
    Aes256Gcm,
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
