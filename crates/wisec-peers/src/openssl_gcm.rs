//! OpenSSL's EVP AES-128-GCM / AES-256-GCM through the `openssl` crate,
//! with GCMP's 12-octet nonce and 16-octet MIC.
//!
//! One encryption and one decryption context are keyed once; every message
//! re-initialises only the nonce, as an OpenSSL user with one key would.

use crate::{check_msg, Availability, GcmMsg, GcmPeer, PeerError, GCM_TAG_LEN};
use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::CipherCtx;

/// Name of this peer.
pub const NAME: &str = "openssl-gcm";

fn lib(e: openssl::error::ErrorStack) -> PeerError {
    PeerError::Library(e.to_string())
}

/// The linked OpenSSL and its version.
pub fn availability() -> Availability {
    Availability::Available {
        version: openssl::version::version().to_string(),
        detail: "EVP AES-GCM (the provider picks AES-NI/PCLMULQDQ code when the CPU has it)"
            .to_string(),
    }
}

/// OpenSSL EVP AES-GCM, keyed.
pub struct OpensslGcm {
    enc: CipherCtx,
    dec: CipherCtx,
}

impl OpensslGcm {
    /// Keys the peer with a 16- or 32-octet key.
    pub fn new(key: &[u8]) -> Result<OpensslGcm, PeerError> {
        let cipher: &CipherRef = match key.len() {
            16 => Cipher::aes_128_gcm(),
            32 => Cipher::aes_256_gcm(),
            _ => return Err(PeerError::InvalidParameter("key must be 16 or 32 octets")),
        };
        // The default IV length of EVP AES-GCM is GCMP's 12 octets.
        let mut enc = CipherCtx::new().map_err(lib)?;
        enc.encrypt_init(Some(cipher), Some(key), None)
            .map_err(lib)?;
        let mut dec = CipherCtx::new().map_err(lib)?;
        dec.decrypt_init(Some(cipher), Some(key), None)
            .map_err(lib)?;
        Ok(OpensslGcm { enc, dec })
    }
}

impl GcmPeer for OpensslGcm {
    fn name(&self) -> &'static str {
        NAME
    }

    fn seal(&mut self, msgs: &mut [GcmMsg<'_>]) -> Result<(), PeerError> {
        for m in msgs.iter_mut() {
            check_msg(m, GCM_TAG_LEN)?;
            let c = &mut self.enc;
            c.encrypt_init(None, None, Some(m.nonce)).map_err(lib)?;
            if !m.aad.is_empty() {
                c.cipher_update(m.aad, None).map_err(lib)?;
            }
            c.cipher_update(m.input, Some(m.output)).map_err(lib)?;
            c.cipher_final(&mut []).map_err(lib)?;
            c.tag(m.tag).map_err(lib)?;
        }
        Ok(())
    }

    fn open(&mut self, msgs: &mut [GcmMsg<'_>]) -> Result<(), PeerError> {
        let mut first_bad = None;
        for (i, m) in msgs.iter_mut().enumerate() {
            check_msg(m, GCM_TAG_LEN)?;
            let c = &mut self.dec;
            c.decrypt_init(None, None, Some(m.nonce)).map_err(lib)?;
            if !m.aad.is_empty() {
                c.cipher_update(m.aad, None).map_err(lib)?;
            }
            c.cipher_update(m.input, Some(m.output)).map_err(lib)?;
            c.set_tag(m.tag).map_err(lib)?;
            // OpenSSL's GCM checks the tag in the final call.
            if c.cipher_final(&mut []).is_err() {
                m.output.fill(0);
                first_bad.get_or_insert(i);
            }
        }
        match first_bad {
            Some(index) => Err(PeerError::Integrity { index }),
            None => Ok(()),
        }
    }
}
