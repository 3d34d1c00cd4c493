//! IEEE 802.11 cipher suites on whole MPDUs, with no operating system below.
//!
//! Every data-frame suite implements [`FrameProtector`]: protect a plaintext
//! MPDU (MAC header + body, no FCS) in place or into a buffer, and unprotect
//! it again. Unprotecting checks integrity only; replay protection is the
//! job of [`replay`], which accepts a packet number only through the
//! [`Unprotected`] proof that the MIC verified.
//!
//! Insecure legacy suites carry `danger` in their names ([`wep::DangerWep`],
//! [`tkip::DangerTkip`]). Clause numbers refer to IEEE Std 802.11-2020.
#![no_std]
#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod batch;
pub mod bip;
pub mod ccm;
pub mod ccmp;
pub mod cmac;
pub mod crc32;
pub mod gcmp;
#[cfg(feature = "experimental-icbc")]
pub mod icbc;
pub mod michael;
pub mod rc4;
pub mod replay;
mod simd;
pub mod suite;
pub mod tkip;
pub mod wep;

use core::fmt;

/// The error of every operation in this crate.
///
/// Authentication failures are deliberately one opaque variant: a caller
/// learns that a frame did not verify, never which part of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// The frame cannot carry this suite: too short, a header that cannot be
    /// delimited, a missing or wrong security header (ExtIV, key ID).
    Malformed,
    /// The frame is valid but this operation does not handle it (for
    /// example a fragmented MSDU where the whole MSDU is needed).
    Unsupported,
    /// The output buffer is too small.
    BufferTooSmall,
    /// A key of the wrong length, or a parameter outside its range.
    InvalidParameter,
    /// The MIC, tag or ICV did not verify.
    Integrity,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::Malformed => "malformed frame",
            Error::Unsupported => "unsupported frame",
            Error::BufferTooSmall => "buffer too small",
            Error::InvalidParameter => "invalid key or parameter",
            Error::Integrity => "integrity check failed",
        })
    }
}

impl core::error::Error for Error {}

impl From<wisec_wire::Error> for Error {
    fn from(e: wisec_wire::Error) -> Error {
        match e {
            wisec_wire::Error::Unsupported => Error::Unsupported,
            _ => Error::Malformed,
        }
    }
}

/// The result type of this crate.
pub type Result<T> = core::result::Result<T, Error>;

/// Bytes a suite adds to an MPDU: the security header after the MAC header
/// and the trailer (MIC, ICV) after the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overhead {
    /// Security header length (IV/KeyID, ExtIV, PN).
    pub header: usize,
    /// Trailer length (MIC and/or ICV).
    pub trailer: usize,
}

impl Overhead {
    /// Header plus trailer.
    pub const fn total(self) -> usize {
        self.header + self.trailer
    }
}

/// Proof that a frame's integrity check passed: created only by the suites
/// of this crate after the MIC, tag or ICV verified, and the only way to
/// advance a replay counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unprotected {
    len: usize,
    pn: u64,
    key_id: u8,
}

impl Unprotected {
    pub(crate) const fn new(len: usize, pn: u64, key_id: u8) -> Unprotected {
        Unprotected { len, pn, key_id }
    }

    /// Length of the unprotected MPDU (MAC header + plaintext body).
    pub const fn len(&self) -> usize {
        self.len
    }

    /// True when the unprotected MPDU is empty (never for a valid frame).
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The packet number of the frame: PN for CCMP/GCMP, TSC for TKIP, IPN
    /// for BIP, the 24-bit IV for WEP.
    pub const fn pn(&self) -> u64 {
        self.pn
    }

    /// The Key ID of the frame's security header.
    pub const fn key_id(&self) -> u8 {
        self.key_id
    }
}

/// A cipher suite that protects whole MPDUs.
///
/// The MPDU is the MAC header followed by the frame body, without FCS.
pub trait FrameProtector {
    /// Bytes this suite adds.
    fn overhead(&self) -> Overhead;

    /// Protects the plaintext MPDU `buf[..len]` in place: inserts the
    /// security header carrying `pn` and `key_id`, encrypts the body,
    /// appends the MIC/ICV and sets the Protected Frame bit. `buf` must have
    /// room for `len + overhead().total()` bytes. Returns the new length.
    fn protect_in_place(&self, buf: &mut [u8], len: usize, pn: u64, key_id: u8) -> Result<usize>;

    /// Unprotects the protected MPDU `buf` in place: checks integrity,
    /// decrypts, removes the security header and trailer, clears the
    /// Protected Frame bit. On failure `buf` holds the frame as it was given
    /// (no plaintext is left behind).
    fn unprotect_in_place(&self, buf: &mut [u8]) -> Result<Unprotected>;

    /// Protects `frame` into `out`, returning the protected length.
    fn protect(&self, frame: &[u8], pn: u64, key_id: u8, out: &mut [u8]) -> Result<usize> {
        let need = frame.len() + self.overhead().total();
        let out = out.get_mut(..need).ok_or(Error::BufferTooSmall)?;
        out[..frame.len()].copy_from_slice(frame);
        self.protect_in_place(out, frame.len(), pn, key_id)
    }

    /// Unprotects `frame` into `out` (which needs `frame.len()` bytes).
    /// On failure `out` is wiped.
    fn unprotect(&self, frame: &[u8], out: &mut [u8]) -> Result<Unprotected> {
        let out = out.get_mut(..frame.len()).ok_or(Error::BufferTooSmall)?;
        out.copy_from_slice(frame);
        let r = self.unprotect_in_place(out);
        if r.is_err() {
            zeroize::Zeroize::zeroize(out);
        }
        r
    }
}

/// Compares two tags in constant time (for equal lengths).
pub(crate) fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.ct_eq(b))
}
