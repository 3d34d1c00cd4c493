//! IEEE 802.11 cipher suites on whole MPDUs, with no operating system below.
//!
//! Every data-frame suite implements [`FrameProtector`]: protect a plaintext
//! MPDU (MAC header + body, no FCS) in place or into a buffer, and unprotect
//! it again. Unprotecting checks integrity only; replay protection is the
//! job of [`replay`], which accepts a packet number only through the
//! [`Unprotected`] proof that the MIC verified.
//!
//! The RSN key hierarchy sits beside the suites: the passphrase-to-PSK
//! mapping and the PRF/KDF ([`kdf`]), the PTK and PMKID ([`ptk`]), the
//! EAPOL-Key MIC ([`eapol_mic`]), Key Data wrap, unwrap and group-key KDEs
//! ([`keywrap`]) and the fast BSS transition keys ([`ft`]).
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
pub mod eapol_mic;
pub mod ft;
pub mod gcm;
pub mod gcmp;
#[cfg(feature = "experimental-icbc")]
pub mod icbc;
pub mod kdf;
pub mod keywrap;
pub mod michael;
pub mod mschap;
pub mod ptk;
pub mod radius;
pub mod rc4;
pub mod replay;
mod simd;
pub mod suite;
pub mod tkip;
pub mod wep;

use core::fmt;

/// True when AES runs on the CPU's AES instructions in this build; false in
/// a software-AES build (`--cfg aes_backend="soft"`) or on a CPU without
/// them, where every AES call of the crate is the bit-sliced software AES.
pub fn hardware_aes() -> bool {
    aes::hardware_accelerated()
}

/// True in a software-AES build (`RUSTFLAGS='--cfg aes_backend="soft"'`):
/// no AES instruction runs, whatever the CPU has.
pub fn software_aes_build() -> bool {
    cfg!(aes_backend = "soft")
}

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
///
/// The differences of all bytes are OR-ed together eight at a time with no
/// data-dependent branch, and only the accumulated word goes through
/// `subtle`'s constant-time comparison: the time depends on the length
/// alone, and a 16-byte MIC costs two word operations instead of sixteen
/// byte comparisons.
pub(crate) fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    if a.len() != b.len() {
        return false;
    }
    let mut diff = 0u64;
    let (ca, ra) = a.as_chunks::<8>();
    let (cb, rb) = b.as_chunks::<8>();
    for (x, y) in ca.iter().zip(cb) {
        diff |= u64::from_ne_bytes(*x) ^ u64::from_ne_bytes(*y);
    }
    for (x, y) in ra.iter().zip(rb) {
        diff |= u64::from(x ^ y);
    }
    bool::from(diff.ct_eq(&0))
}

#[cfg(test)]
mod tests {
    use super::ct_eq;

    #[test]
    fn ct_eq_finds_any_difference() {
        let a: [u8; 19] = core::array::from_fn(|i| i as u8 * 7);
        assert!(ct_eq(&a, &a));
        assert!(ct_eq(&[], &[]));
        assert!(!ct_eq(&a, &a[..18]));
        for i in 0..a.len() {
            for bit in 0..8 {
                let mut b = a;
                b[i] ^= 1 << bit;
                assert!(!ct_eq(&a, &b), "byte {i} bit {bit}");
            }
        }
    }
}
