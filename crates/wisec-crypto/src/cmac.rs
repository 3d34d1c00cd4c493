//! AES-CMAC (RFC 4493; NIST SP 800-38B) with 128- and 256-bit keys, the
//! MAC of BIP-CMAC (IEEE Std 802.11-2020, 12.5.4) and of the KCK-based
//! key derivation and MIC functions. The block cipher and CMAC come from
//! the RustCrypto `aes` and `cmac` crates; the AES key schedule is wiped on
//! drop.

use crate::{ct_eq, Error, Result};
use aes::{Aes128, Aes256};
use cmac::{Cmac, KeyInit, Mac};

/// Length of a full CMAC tag.
pub const TAG_LEN: usize = 16;

#[derive(Clone)]
enum Inner {
    A128(Cmac<Aes128>),
    A256(Cmac<Aes256>),
}

/// A streaming AES-CMAC computation. Clone a keyed instance to reuse its
/// key schedule for several messages.
#[derive(Clone)]
pub struct AesCmac {
    inner: Inner,
}

impl core::fmt::Debug for AesCmac {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("AesCmac { .. }")
    }
}

impl AesCmac {
    /// Keys a computation with a 16-byte (AES-128) or 32-byte (AES-256) key.
    pub fn new(key: &[u8]) -> Result<AesCmac> {
        let inner = match key.len() {
            16 => Inner::A128(
                <Cmac<Aes128> as KeyInit>::new_from_slice(key)
                    .map_err(|_| Error::InvalidParameter)?,
            ),
            32 => Inner::A256(
                <Cmac<Aes256> as KeyInit>::new_from_slice(key)
                    .map_err(|_| Error::InvalidParameter)?,
            ),
            _ => return Err(Error::InvalidParameter),
        };
        Ok(AesCmac { inner })
    }

    /// Length of the key in bytes (16 or 32).
    pub fn key_len(&self) -> usize {
        match self.inner {
            Inner::A128(_) => 16,
            Inner::A256(_) => 32,
        }
    }

    /// Feeds message bytes.
    pub fn update(&mut self, data: &[u8]) {
        match &mut self.inner {
            Inner::A128(m) => m.update(data),
            Inner::A256(m) => m.update(data),
        }
    }

    /// The 16-byte tag.
    pub fn finalize(self) -> [u8; TAG_LEN] {
        let mut out = [0u8; TAG_LEN];
        match self.inner {
            Inner::A128(m) => out.copy_from_slice(&m.finalize().into_bytes()),
            Inner::A256(m) => out.copy_from_slice(&m.finalize().into_bytes()),
        }
        out
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
