//! Other implementations of CCMP's AES-CCM that wisec is measured and
//! cross-checked against: OpenSSL's EVP AES-CCM (feature `openssl`),
//! Intel's ipsec-mb multi-buffer job manager (when `libipsec-mb-dev` was
//! installed at build time) and RustCrypto's `ccm` crate.
//!
//! Every peer takes CCMP's framing (IEEE Std 802.11-2020, 12.5.3.3): a
//! 13-octet nonce, the AAD built from the MAC header, `L = 2` and a MIC of
//! 8 octets (CCMP-128, 16-octet key) or 16 octets (CCMP-256, 32-octet key).
//! The caller builds nonce and AAD (wisec uses `wisec_crypto::ccmp::nonce`
//! and `wisec_crypto::ccmp::aad`); a peer only runs the AEAD on a batch of
//! messages, so that a multi-buffer engine can fill its lanes.
//!
//! A peer that is not available is reported by [`Availability::Missing`]
//! with the reason, never silently left out.
//!
//! This crate talks to C libraries: it is the one place of the workspace,
//! besides the SIMD engine, with `unsafe` code, each block with its safety
//! argument.
#![deny(missing_docs)]

pub mod ipsec_mb;
#[cfg(feature = "openssl")]
pub mod openssl_ccm;
pub mod rustcrypto;
pub mod tsc;

use std::fmt;

/// Length of CCMP's CCM nonce (12.5.3.3.4).
pub const NONCE_LEN: usize = 13;

/// One CCM message of a batch.
///
/// Sealing reads `input` (plaintext), writes `output` (ciphertext, as long
/// as `input`) and writes the MIC to `tag`. Opening reads `input`
/// (ciphertext) and the received MIC from `tag`, and writes the plaintext
/// to `output` only if the MIC verified (else `output` is wiped).
#[derive(Debug)]
pub struct CcmMsg<'a> {
    /// The 13-octet CCM nonce.
    pub nonce: &'a [u8; NONCE_LEN],
    /// Additional authentication data.
    pub aad: &'a [u8],
    /// Plaintext (seal) or ciphertext (open).
    pub input: &'a [u8],
    /// Ciphertext (seal) or plaintext (open); as long as `input`.
    pub output: &'a mut [u8],
    /// The MIC: written on seal, read on open. Exactly the peer's MIC length.
    pub tag: &'a mut [u8],
}

/// Why a peer could not run a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerError {
    /// A key, MIC, nonce or buffer length the peer does not take.
    InvalidParameter(&'static str),
    /// The MIC of message `index` did not verify (open only).
    Integrity {
        /// Position of the message in the batch.
        index: usize,
    },
    /// The library reported a failure.
    Library(String),
}

impl fmt::Display for PeerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeerError::InvalidParameter(what) => write!(f, "invalid parameter: {what}"),
            PeerError::Integrity { index } => write!(f, "MIC of message {index} did not verify"),
            PeerError::Library(m) => write!(f, "library error: {m}"),
        }
    }
}

impl std::error::Error for PeerError {}

/// Whether a peer can be used in this build on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    /// Usable.
    Available {
        /// The library and its version, e.g. `OpenSSL 3.0.19 ...`.
        version: String,
        /// Which code path it uses, when the library says.
        detail: String,
    },
    /// Not usable, and why (not installed, disabled at build time, ...).
    Missing {
        /// What is missing and how to get it.
        reason: String,
    },
}

/// An AES-CCM implementation with CCMP's framing, keyed once.
pub trait CcmPeer {
    /// Short name: `openssl`, `ipsec-mb`, `rustcrypto-ccm`.
    fn name(&self) -> &'static str;

    /// MIC length in octets: 8 for a 16-octet key, 16 for a 32-octet key.
    fn tag_len(&self) -> usize;

    /// Encrypts and authenticates every message of `msgs`.
    fn seal(&mut self, msgs: &mut [CcmMsg<'_>]) -> Result<(), PeerError>;

    /// Verifies and decrypts every message of `msgs`; the first message
    /// whose MIC fails is reported as [`PeerError::Integrity`] and the
    /// outputs of every failed message are wiped.
    fn open(&mut self, msgs: &mut [CcmMsg<'_>]) -> Result<(), PeerError>;
}

/// CCMP's MIC length for a temporal key of `key_len` octets (12.5.3.2):
/// 8 for CCMP-128, 16 for CCMP-256.
pub fn ccmp_tag_len(key_len: usize) -> Result<usize, PeerError> {
    match key_len {
        16 => Ok(8),
        32 => Ok(16),
        _ => Err(PeerError::InvalidParameter("key must be 16 or 32 octets")),
    }
}

/// Checks the lengths of one message against a peer's MIC length.
pub(crate) fn check_msg(m: &CcmMsg<'_>, tag_len: usize) -> Result<(), PeerError> {
    if m.output.len() != m.input.len() {
        return Err(PeerError::InvalidParameter(
            "output and input lengths differ",
        ));
    }
    if m.tag.len() != tag_len {
        return Err(PeerError::InvalidParameter("tag length"));
    }
    // CCMP: L = 2, so at most 2^16 - 1 octets of message (12.5.3.3.1).
    if m.input.len() > 0xffff {
        return Err(PeerError::InvalidParameter(
            "message longer than 65535 octets",
        ));
    }
    Ok(())
}

/// A keyed peer, or why it cannot be had.
pub type PeerResult = Result<Box<dyn CcmPeer>, String>;

/// Every peer this build knows about, keyed with `key`, or why it is
/// missing: OpenSSL, ipsec-mb, RustCrypto `ccm`, in that order.
pub fn all_peers(key: &[u8]) -> Vec<(&'static str, PeerResult)> {
    vec![
        ("openssl", openssl_peer(key)),
        (ipsec_mb::NAME, ipsec_mb_peer(key)),
        (
            rustcrypto::NAME,
            rustcrypto::RustCryptoCcm::new(key)
                .map(|p| Box::new(p) as Box<dyn CcmPeer>)
                .map_err(|e| e.to_string()),
        ),
    ]
}

fn ipsec_mb_peer(key: &[u8]) -> PeerResult {
    match ipsec_mb::availability() {
        Availability::Missing { reason } => Err(reason),
        Availability::Available { .. } => ipsec_mb::IpsecMbCcm::new(key)
            .map(|p| Box::new(p) as Box<dyn CcmPeer>)
            .map_err(|e| e.to_string()),
    }
}

#[cfg(feature = "openssl")]
fn openssl_peer(key: &[u8]) -> PeerResult {
    openssl_ccm::OpensslCcm::new(key)
        .map(|p| Box::new(p) as Box<dyn CcmPeer>)
        .map_err(|e| e.to_string())
}

#[cfg(not(feature = "openssl"))]
fn openssl_peer(_key: &[u8]) -> PeerResult {
    Err("built without the `openssl` feature of wisec-peers".to_string())
}

/// The availability of every peer, in the order of [`all_peers`].
pub fn availability() -> Vec<(&'static str, Availability)> {
    vec![
        ("openssl", openssl_availability()),
        (ipsec_mb::NAME, ipsec_mb::availability()),
        (rustcrypto::NAME, rustcrypto::availability()),
    ]
}

#[cfg(feature = "openssl")]
fn openssl_availability() -> Availability {
    openssl_ccm::availability()
}

#[cfg(not(feature = "openssl"))]
fn openssl_availability() -> Availability {
    Availability::Missing {
        reason: "built without the `openssl` feature of wisec-peers".to_string(),
    }
}
