//! OpenSSL's EVP AES-128-CCM / AES-256-CCM through the `openssl` crate,
//! with the 13-octet nonce (`L = 2`) and MIC length of CCMP.
//!
//! One encryption and one decryption context are keyed once; every message
//! re-initialises only the nonce, as an OpenSSL user with one key would.

use crate::{ccmp_tag_len, check_msg, Availability, CcmMsg, CcmPeer, PeerError, NONCE_LEN};
use openssl::cipher::{Cipher, CipherRef};
use openssl::cipher_ctx::CipherCtx;

/// Name of this peer.
pub const NAME: &str = "openssl";

fn lib(e: openssl::error::ErrorStack) -> PeerError {
    PeerError::Library(e.to_string())
}

/// The linked OpenSSL and its version.
pub fn availability() -> Availability {
    Availability::Available {
        version: openssl::version::version().to_string(),
        detail: "EVP AES-CCM (the provider picks AES-NI when the CPU has it)".to_string(),
    }
}

/// OpenSSL EVP AES-CCM, keyed.
pub struct OpensslCcm {
    enc: CipherCtx,
    dec: CipherCtx,
    tag_len: usize,
}

impl OpensslCcm {
    /// Keys the peer with a 16- or 32-octet key (MIC 8 or 16 octets).
    pub fn new(key: &[u8]) -> Result<OpensslCcm, PeerError> {
        let tag_len = ccmp_tag_len(key.len())?;
        let cipher: &CipherRef = if key.len() == 16 {
            Cipher::aes_128_ccm()
        } else {
            Cipher::aes_256_ccm()
        };
        let mut enc = CipherCtx::new().map_err(lib)?;
        enc.encrypt_init(Some(cipher), None, None).map_err(lib)?;
        enc.set_iv_length(NONCE_LEN).map_err(lib)?;
        enc.set_tag_length(tag_len).map_err(lib)?;
        enc.encrypt_init(None, Some(key), None).map_err(lib)?;
        let mut dec = CipherCtx::new().map_err(lib)?;
        dec.decrypt_init(Some(cipher), None, None).map_err(lib)?;
        dec.set_iv_length(NONCE_LEN).map_err(lib)?;
        dec.set_tag_length(tag_len).map_err(lib)?;
        dec.decrypt_init(None, Some(key), None).map_err(lib)?;
        Ok(OpensslCcm { enc, dec, tag_len })
    }
}

impl CcmPeer for OpensslCcm {
    fn name(&self) -> &'static str {
        NAME
    }

    fn tag_len(&self) -> usize {
        self.tag_len
    }

    fn seal(&mut self, msgs: &mut [CcmMsg<'_>]) -> Result<(), PeerError> {
        for m in msgs.iter_mut() {
            check_msg(m, self.tag_len)?;
            let c = &mut self.enc;
            c.encrypt_init(None, None, Some(m.nonce)).map_err(lib)?;
            // CCM needs the message length before the AAD.
            c.set_data_len(m.input.len()).map_err(lib)?;
            if !m.aad.is_empty() {
                c.cipher_update(m.aad, None).map_err(lib)?;
            }
            c.cipher_update(m.input, Some(m.output)).map_err(lib)?;
            c.cipher_final(&mut []).map_err(lib)?;
            c.tag(m.tag).map_err(lib)?;
        }
        Ok(())
    }

    fn open(&mut self, msgs: &mut [CcmMsg<'_>]) -> Result<(), PeerError> {
        let mut first_bad = None;
        for (i, m) in msgs.iter_mut().enumerate() {
            check_msg(m, self.tag_len)?;
            let c = &mut self.dec;
            c.decrypt_init(None, None, Some(m.nonce)).map_err(lib)?;
            c.set_tag(m.tag).map_err(lib)?;
            c.set_data_len(m.input.len()).map_err(lib)?;
            if !m.aad.is_empty() {
                c.cipher_update(m.aad, None).map_err(lib)?;
            }
            // OpenSSL's CCM checks the MIC inside this update and fails it.
            if c.cipher_update(m.input, Some(m.output)).is_err() {
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
