//! Other implementations of the ciphers of wisec's suites, which wisec is
//! measured and cross-checked against:
//!
//! - AES-CCM with CCMP's framing ([`CcmPeer`]): OpenSSL's EVP AES-CCM
//!   (feature `openssl`), Intel's ipsec-mb multi-buffer job manager (when
//!   `libipsec-mb-dev` was installed at build time; its best code path
//!   and, forced, its AVX2 path) and RustCrypto's `ccm` crate;
//! - AES-GCM with GCMP's framing ([`GcmPeer`]): OpenSSL's EVP AES-GCM and
//!   ipsec-mb's AES-GCM (best path and AVX2);
//! - RC4 as WEP and TKIP use it ([`Rc4Peer`]): OpenSSL's RC4 from its
//!   legacy provider.
//!
//! The CCM peers take CCMP's framing (IEEE Std 802.11-2020, 12.5.3.3): a
//! 13-octet nonce, the AAD built from the MAC header, `L = 2` and a MIC of
//! 8 octets (CCMP-128, 16-octet key) or 16 octets (CCMP-256, 32-octet key).
//! The GCM peers take GCMP's (12.5.5.3): a 12-octet nonce, the same AAD,
//! a 16-octet MIC. The caller builds nonce and AAD (wisec uses
//! `wisec_crypto::ccmp::nonce`, `wisec_crypto::gcmp::nonce` and
//! `wisec_crypto::ccmp::aad`); a peer only runs the AEAD on a batch of
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
#[cfg(feature = "openssl")]
pub mod openssl_cmac;
#[cfg(feature = "openssl")]
pub mod openssl_gcm;
#[cfg(feature = "openssl")]
pub mod openssl_rc4;
pub mod rustcrypto;
pub mod tsc;

use std::fmt;

/// Length of CCMP's CCM nonce (12.5.3.3.4).
pub const NONCE_LEN: usize = 13;
/// Length of GCMP's GCM nonce (12.5.5.3.4).
pub const GCM_NONCE_LEN: usize = 12;
/// Length of GCMP's MIC.
pub const GCM_TAG_LEN: usize = 16;

/// One CCM message of a batch (13-octet nonce).
pub type CcmMsg<'a> = AeadMsg<'a, NONCE_LEN>;
/// One GCM message of a batch (12-octet nonce, 16-octet tag).
pub type GcmMsg<'a> = AeadMsg<'a, GCM_NONCE_LEN>;

/// One AEAD message of a batch, with an `N`-octet nonce.
///
/// Sealing reads `input` (plaintext), writes `output` (ciphertext, as long
/// as `input`) and writes the MIC to `tag`. Opening reads `input`
/// (ciphertext) and the received MIC from `tag`, and writes the plaintext
/// to `output` only if the MIC verified (else `output` is wiped).
#[derive(Debug)]
pub struct AeadMsg<'a, const N: usize> {
    /// The nonce.
    pub nonce: &'a [u8; N],
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

/// AES-GCM with GCMP's framing (12-octet nonce, 16-octet MIC), keyed once
/// with a 16- or 32-octet key.
pub trait GcmPeer {
    /// Short name: `openssl-gcm`, `ipsec-mb-gcm`, ...
    fn name(&self) -> &'static str;

    /// Encrypts and authenticates every message of `msgs`.
    fn seal(&mut self, msgs: &mut [GcmMsg<'_>]) -> Result<(), PeerError>;

    /// Verifies and decrypts every message of `msgs`; the first message
    /// whose MIC fails is reported as [`PeerError::Integrity`] and the
    /// outputs of every failed message are wiped.
    fn open(&mut self, msgs: &mut [GcmMsg<'_>]) -> Result<(), PeerError>;
}

/// One RC4 message: the per-frame RC4 key (WEP's IV || key, TKIP's
/// per-packet key) and the data to XOR with its keystream from offset 0.
#[derive(Debug)]
pub struct Rc4Msg<'a> {
    /// The RC4 key of this message.
    pub key: &'a [u8],
    /// Plaintext or ciphertext.
    pub input: &'a [u8],
    /// The other one; as long as `input`.
    pub output: &'a mut [u8],
}

/// RC4 as WEP and TKIP use it: a key schedule per frame, then the
/// keystream.
pub trait Rc4Peer {
    /// Short name: `openssl-rc4`.
    fn name(&self) -> &'static str;

    /// Keys RC4 with each message's key and XORs the keystream into it.
    fn apply(&mut self, msgs: &mut [Rc4Msg<'_>]) -> Result<(), PeerError>;

    /// XORs the continuing keystream of one key, set up once by
    /// [`Rc4Peer::set_stream_key`], into `output` (the cipher alone, no
    /// key schedule per message).
    fn stream(&mut self, input: &[u8], output: &mut [u8]) -> Result<(), PeerError>;

    /// Keys the stream of [`Rc4Peer::stream`].
    fn set_stream_key(&mut self, key: &[u8]) -> Result<(), PeerError>;
}

/// Checks the lengths of one message against a peer's MIC length.
pub(crate) fn check_msg<const N: usize>(
    m: &AeadMsg<'_, N>,
    tag_len: usize,
) -> Result<(), PeerError> {
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

/// A keyed GCM peer, or why it cannot be had.
pub type GcmPeerResult = Result<Box<dyn GcmPeer>, String>;

/// Every CCM peer this build knows about, keyed with `key`, or why it is
/// missing: OpenSSL, ipsec-mb (best path), ipsec-mb forced to AVX2,
/// RustCrypto `ccm`, in that order.
pub fn all_peers(key: &[u8]) -> Vec<(&'static str, PeerResult)> {
    vec![
        ("openssl", openssl_peer(key)),
        (ipsec_mb::NAME, ipsec_mb_peer(key, ipsec_mb::Arch::Best)),
        (
            ipsec_mb::NAME_AVX2,
            ipsec_mb_peer(key, ipsec_mb::Arch::Avx2),
        ),
        (
            rustcrypto::NAME,
            rustcrypto::RustCryptoCcm::new(key)
                .map(|p| Box::new(p) as Box<dyn CcmPeer>)
                .map_err(|e| e.to_string()),
        ),
    ]
}

fn ipsec_mb_peer(key: &[u8], arch: ipsec_mb::Arch) -> PeerResult {
    match ipsec_mb::availability_of(arch) {
        Availability::Missing { reason } => Err(reason),
        Availability::Available { .. } => ipsec_mb::IpsecMbCcm::with_arch(key, arch)
            .map(|p| Box::new(p) as Box<dyn CcmPeer>)
            .map_err(|e| e.to_string()),
    }
}

/// Every GCM peer, keyed with `key` (16 or 32 octets), or why it is
/// missing: OpenSSL, ipsec-mb (best path), ipsec-mb forced to AVX2.
pub fn gcm_peers(key: &[u8]) -> Vec<(&'static str, GcmPeerResult)> {
    let imb = |arch: ipsec_mb::Arch| match ipsec_mb::availability_of(arch) {
        Availability::Missing { reason } => Err(reason),
        Availability::Available { .. } => ipsec_mb::IpsecMbGcm::with_arch(key, arch)
            .map(|p| Box::new(p) as Box<dyn GcmPeer>)
            .map_err(|e| e.to_string()),
    };
    vec![
        ("openssl-gcm", openssl_gcm_peer(key)),
        (ipsec_mb::GCM_NAME, imb(ipsec_mb::Arch::Best)),
        (ipsec_mb::GCM_NAME_AVX2, imb(ipsec_mb::Arch::Avx2)),
    ]
}

/// The RC4 peer (OpenSSL's legacy provider), or why it is missing.
pub fn rc4_peer() -> Result<Box<dyn Rc4Peer>, String> {
    #[cfg(feature = "openssl")]
    {
        openssl_rc4::OpensslRc4::new()
            .map(|p| Box::new(p) as Box<dyn Rc4Peer>)
            .map_err(|e| e.to_string())
    }
    #[cfg(not(feature = "openssl"))]
    {
        Err("built without the `openssl` feature of wisec-peers".to_string())
    }
}

#[cfg(feature = "openssl")]
fn openssl_gcm_peer(key: &[u8]) -> GcmPeerResult {
    openssl_gcm::OpensslGcm::new(key)
        .map(|p| Box::new(p) as Box<dyn GcmPeer>)
        .map_err(|e| e.to_string())
}

#[cfg(not(feature = "openssl"))]
fn openssl_gcm_peer(_key: &[u8]) -> GcmPeerResult {
    Err("built without the `openssl` feature of wisec-peers".to_string())
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

/// The availability of every peer: the CCM peers in the order of
/// [`all_peers`], then the GCM peers of [`gcm_peers`] and the RC4 peer.
pub fn availability() -> Vec<(&'static str, Availability)> {
    vec![
        ("openssl", openssl_availability(OpensslKind::Ccm)),
        (ipsec_mb::NAME, ipsec_mb::availability()),
        (
            ipsec_mb::NAME_AVX2,
            ipsec_mb::availability_of(ipsec_mb::Arch::Avx2),
        ),
        (rustcrypto::NAME, rustcrypto::availability()),
        ("openssl-gcm", openssl_availability(OpensslKind::Gcm)),
        (ipsec_mb::GCM_NAME, ipsec_mb::availability()),
        (
            ipsec_mb::GCM_NAME_AVX2,
            ipsec_mb::availability_of(ipsec_mb::Arch::Avx2),
        ),
        ("openssl-rc4", openssl_availability(OpensslKind::Rc4)),
    ]
}

enum OpensslKind {
    Ccm,
    Gcm,
    Rc4,
}

#[cfg(feature = "openssl")]
fn openssl_availability(kind: OpensslKind) -> Availability {
    match kind {
        OpensslKind::Ccm => openssl_ccm::availability(),
        OpensslKind::Gcm => openssl_gcm::availability(),
        OpensslKind::Rc4 => openssl_rc4::availability(),
    }
}

#[cfg(not(feature = "openssl"))]
fn openssl_availability(_kind: OpensslKind) -> Availability {
    Availability::Missing {
        reason: "built without the `openssl` feature of wisec-peers".to_string(),
    }
}
