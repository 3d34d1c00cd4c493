//! RustCrypto's `ccm` crate (0.6, over `aes` 0.9) with CCMP's parameters:
//! `Ccm<Aes128, U8, U13>` for CCMP-128 and `Ccm<Aes256, U16, U13>` for
//! CCMP-256.

use crate::{ccmp_tag_len, check_msg, Availability, CcmMsg, CcmPeer, PeerError};
use aes::{Aes128, Aes256};
use ccm::aead::array::Array;
use ccm::aead::inout::InOutBuf;
use ccm::consts::{U13, U16, U8};
use ccm::{AeadInOut, Ccm, KeyInit};

/// Name of this peer.
pub const NAME: &str = "rustcrypto-ccm";

enum Inner {
    A128(Box<Ccm<Aes128, U8, U13>>),
    A256(Box<Ccm<Aes256, U16, U13>>),
}

/// RustCrypto `ccm`, keyed.
pub struct RustCryptoCcm {
    inner: Inner,
}

/// Always available: it is a Rust dependency.
pub fn availability() -> Availability {
    Availability::Available {
        version: "ccm 0.6 / aes 0.9 (RustCrypto)".to_string(),
        detail: "aes picks AES-NI at run time when the CPU has it".to_string(),
    }
}

impl RustCryptoCcm {
    /// Keys the peer with a 16- or 32-octet key.
    pub fn new(key: &[u8]) -> Result<RustCryptoCcm, PeerError> {
        let bad = |_| PeerError::InvalidParameter("key");
        let inner = match ccmp_tag_len(key.len())? {
            8 => Inner::A128(Box::new(Ccm::new_from_slice(key).map_err(bad)?)),
            _ => Inner::A256(Box::new(Ccm::new_from_slice(key).map_err(bad)?)),
        };
        Ok(RustCryptoCcm { inner })
    }
}

impl CcmPeer for RustCryptoCcm {
    fn name(&self) -> &'static str {
        NAME
    }

    fn tag_len(&self) -> usize {
        match self.inner {
            Inner::A128(_) => 8,
            Inner::A256(_) => 16,
        }
    }

    fn seal(&mut self, msgs: &mut [CcmMsg<'_>]) -> Result<(), PeerError> {
        let tag_len = self.tag_len();
        for m in msgs.iter_mut() {
            check_msg(m, tag_len)?;
            let nonce = Array::from(*m.nonce);
            let buf = InOutBuf::new(m.input, m.output)
                .map_err(|_| PeerError::InvalidParameter("buffer lengths"))?;
            let lib = |_| PeerError::Library("ccm refused the message".to_string());
            match &self.inner {
                Inner::A128(c) => {
                    let t = c.encrypt_inout_detached(&nonce, m.aad, buf).map_err(lib)?;
                    m.tag.copy_from_slice(&t);
                }
                Inner::A256(c) => {
                    let t = c.encrypt_inout_detached(&nonce, m.aad, buf).map_err(lib)?;
                    m.tag.copy_from_slice(&t);
                }
            }
        }
        Ok(())
    }

    fn open(&mut self, msgs: &mut [CcmMsg<'_>]) -> Result<(), PeerError> {
        let tag_len = self.tag_len();
        let mut first_bad = None;
        for (i, m) in msgs.iter_mut().enumerate() {
            check_msg(m, tag_len)?;
            let nonce = Array::from(*m.nonce);
            let buf = InOutBuf::new(m.input, m.output)
                .map_err(|_| PeerError::InvalidParameter("buffer lengths"))?;
            let ok = match &self.inner {
                Inner::A128(c) => {
                    let tag = Array::try_from(&m.tag[..])
                        .map_err(|_| PeerError::InvalidParameter("tag length"))?;
                    c.decrypt_inout_detached(&nonce, m.aad, buf, &tag).is_ok()
                }
                Inner::A256(c) => {
                    let tag = Array::try_from(&m.tag[..])
                        .map_err(|_| PeerError::InvalidParameter("tag length"))?;
                    c.decrypt_inout_detached(&nonce, m.aad, buf, &tag).is_ok()
                }
            };
            if !ok {
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
