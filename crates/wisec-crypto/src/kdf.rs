//! Key derivation of the RSN key hierarchy (IEEE Std 802.11-2020, 12.7.1):
//! the passphrase-to-PSK mapping (PBKDF2-HMAC-SHA1, J.4), the SHA-1 based
//! PRF (12.7.1.2) and the SHA-2 based KDF (12.7.1.7.2).
//!
//! Every function writes into a caller-supplied `&mut [u8]`: nothing
//! allocates, and the output length is the slice length. Inputs that the
//! standard splits into concatenated fields are passed as a list of slices
//! and fed to the MAC one after another, so no concatenation buffer is
//! needed.

use crate::ptk::Pmk;
use crate::{Error, Result};
use core::fmt;
use hmac::{Hmac, KeyInit, Mac};
use zeroize::Zeroize;

/// Number of PBKDF2 iterations of the passphrase mapping (J.4.1).
pub const PSK_ITERATIONS: u32 = 4096;
/// Length of the PSK derived from a passphrase (J.4.1).
pub const PSK_LEN: usize = 32;
/// Shortest passphrase (J.4.1).
pub const PASSPHRASE_MIN_LEN: usize = 8;
/// Longest passphrase (J.4.1).
pub const PASSPHRASE_MAX_LEN: usize = 63;
/// Longest SSID (9.4.2.2).
pub const SSID_MAX_LEN: usize = 32;

/// Why a passphrase or SSID cannot be mapped to a PSK.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PassphraseError {
    /// Fewer than 8 characters.
    TooShort,
    /// More than 63 characters (64 hexadecimal digits are a raw PSK, not a
    /// passphrase).
    TooLong,
    /// A character outside printable ASCII (codes 32 to 126).
    NotPrintableAscii,
    /// An SSID longer than 32 octets.
    SsidTooLong,
}

impl fmt::Display for PassphraseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PassphraseError::TooShort => "passphrase shorter than 8 characters",
            PassphraseError::TooLong => "passphrase longer than 63 characters",
            PassphraseError::NotPrintableAscii => {
                "passphrase has a character outside printable ASCII (32..=126)"
            }
            PassphraseError::SsidTooLong => "SSID longer than 32 octets",
        })
    }
}

impl core::error::Error for PassphraseError {}

impl From<PassphraseError> for Error {
    fn from(_: PassphraseError) -> Error {
        Error::InvalidParameter
    }
}

/// Checks a passphrase and SSID against the rules of J.4.1.
pub fn check_passphrase(
    passphrase: &[u8],
    ssid: &[u8],
) -> core::result::Result<(), PassphraseError> {
    if passphrase.len() < PASSPHRASE_MIN_LEN {
        return Err(PassphraseError::TooShort);
    }
    if passphrase.len() > PASSPHRASE_MAX_LEN {
        return Err(PassphraseError::TooLong);
    }
    if !passphrase.iter().all(|&c| (32..=126).contains(&c)) {
        return Err(PassphraseError::NotPrintableAscii);
    }
    if ssid.len() > SSID_MAX_LEN {
        return Err(PassphraseError::SsidTooLong);
    }
    Ok(())
}

/// Maps an ASCII passphrase and an SSID to the 256-bit PSK, which is the
/// PMK of the PSK AKMs: `PSK = PBKDF2(HMAC-SHA1, passphrase, ssid, 4096,
/// 256)` (IEEE Std 802.11-2020, J.4.1; 12.7.1.3).
///
/// The passphrase must be 8 to 63 printable ASCII characters and the SSID
/// at most 32 octets.
pub fn psk(passphrase: &[u8], ssid: &[u8]) -> core::result::Result<Pmk, PassphraseError> {
    check_passphrase(passphrase, ssid)?;
    let mut out = [0u8; PSK_LEN];
    // Neither call can fail for these lengths; the error arms are still
    // handled rather than unwrapped.
    let pmk = match pbkdf2_hmac_sha1(passphrase, ssid, PSK_ITERATIONS, &mut out) {
        Ok(()) => Pmk::new(&out).map_err(|_| PassphraseError::TooLong),
        Err(_) => Err(PassphraseError::TooLong),
    };
    out.zeroize();
    pmk
}

/// PBKDF2 (RFC 8018, 5.2) with HMAC-SHA1 as PRF, filling `out`; the
/// primitive under [`psk`], for any password, salt and iteration count
/// (at least 1).
pub fn pbkdf2_hmac_sha1(
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    out: &mut [u8],
) -> Result<()> {
    if iterations == 0 || out.is_empty() {
        return Err(Error::InvalidParameter);
    }
    pbkdf2::pbkdf2::<Hmac<sha1::Sha1>>(password, salt, iterations, out)
        .map_err(|_| Error::InvalidParameter)
}

/// HMAC over the concatenation of `parts`, truncated (or not) to
/// `out.len()` octets; `out` must not be longer than the hash output.
pub(crate) fn hmac_parts<D>(key: &[u8], parts: &[&[u8]], out: &mut [u8]) -> Result<()>
where
    D: hmac::EagerHash,
    Hmac<D>: KeyInit + Mac,
{
    let mut mac = <Hmac<D> as KeyInit>::new_from_slice(key).map_err(|_| Error::InvalidParameter)?;
    for p in parts {
        mac.update(p);
    }
    let mut tag = mac.finalize().into_bytes();
    let r = match tag.get(..out.len()) {
        Some(t) => {
            out.copy_from_slice(t);
            Ok(())
        }
        None => Err(Error::InvalidParameter),
    };
    tag.as_mut_slice().zeroize();
    r
}

/// The SHA-1 based PRF of IEEE Std 802.11-2020, 12.7.1.2:
///
/// `PRF(K, A, B, Len)`: for i in 0..(Len + 159) / 160,
/// `R = R || HMAC-SHA-1(K, A || Y || B || X)` with `Y` a single zero
/// octet and `X` the single octet `i`; the result is truncated to `Len`.
///
/// `label` is `A` without its terminating zero (the PRF inserts `Y`),
/// `data` the parts of `B`, and `Len` is `8 * out.len()` (PRF-128 to
/// PRF-512 and any other whole number of octets up to 255 blocks).
pub fn prf_sha1(key: &[u8], label: &[u8], data: &[&[u8]], out: &mut [u8]) -> Result<()> {
    const H: usize = 20;
    if out.is_empty() || out.len() > H * 255 {
        return Err(Error::InvalidParameter);
    }
    let mut block = [0u8; H];
    let mut r = Ok(());
    for (i, chunk) in out.chunks_mut(H).enumerate() {
        // At most 255 chunks (checked above): the cast is exact.
        let x = [i as u8];
        let mut mac = match <Hmac<sha1::Sha1> as KeyInit>::new_from_slice(key) {
            Ok(m) => m,
            Err(_) => {
                r = Err(Error::InvalidParameter);
                break;
            }
        };
        mac.update(label);
        mac.update(&[0]);
        for d in data {
            mac.update(d);
        }
        mac.update(&x);
        let mut tag = mac.finalize().into_bytes();
        block.copy_from_slice(&tag);
        tag.as_mut_slice().zeroize();
        chunk.copy_from_slice(&block[..chunk.len()]);
    }
    block.zeroize();
    if r.is_err() {
        out.zeroize();
    }
    r
}

/// The hash function of a SHA-2 based KDF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KdfHash {
    /// SHA-256 (KDF-SHA-256).
    Sha256,
    /// SHA-384 (KDF-SHA-384).
    Sha384,
    /// SHA-512 (KDF-SHA-512, OWE with group 21).
    Sha512,
}

impl KdfHash {
    /// Output length of the hash in octets.
    pub const fn output_len(self) -> usize {
        match self {
            KdfHash::Sha256 => 32,
            KdfHash::Sha384 => 48,
            KdfHash::Sha512 => 64,
        }
    }

    /// Truncate-128(Hash(parts)): the first 16 octets of the hash of the
    /// concatenated parts, as the FT key names use (12.7.1.7.3).
    pub fn hash_128(self, parts: &[&[u8]]) -> [u8; 16] {
        use sha2::Digest;
        fn run<D: Digest>(parts: &[&[u8]]) -> [u8; 16] {
            let mut h = D::new();
            for p in parts {
                h.update(p);
            }
            let d = h.finalize();
            let mut out = [0u8; 16];
            // Every SHA-2 output is longer than 16 octets.
            for (o, b) in out.iter_mut().zip(d.iter()) {
                *o = *b;
            }
            out
        }
        match self {
            KdfHash::Sha256 => run::<sha2::Sha256>(parts),
            KdfHash::Sha384 => run::<sha2::Sha384>(parts),
            KdfHash::Sha512 => run::<sha2::Sha512>(parts),
        }
    }

    /// HMAC with this hash over the concatenated parts, truncated to
    /// `out.len()` octets (at most the hash output).
    pub fn hmac(self, key: &[u8], parts: &[&[u8]], out: &mut [u8]) -> Result<()> {
        match self {
            KdfHash::Sha256 => hmac_parts::<sha2::Sha256>(key, parts, out),
            KdfHash::Sha384 => hmac_parts::<sha2::Sha384>(key, parts, out),
            KdfHash::Sha512 => hmac_parts::<sha2::Sha512>(key, parts, out),
        }
    }
}

/// The KDF of IEEE Std 802.11-2020, 12.7.1.7.2, `KDF-Hash-Length(K, label,
/// Context)`: for i in 1..=iterations,
/// `result = result || HMAC-Hash(K, i || label || Context || Length)`,
/// where `i` and `Length` are 16-bit little-endian integers and `Length`
/// is the output length in bits (`8 * out.len()`, at most 65535); the
/// result is truncated to `Length` bits.
///
/// `context` holds the parts of `Context`, fed in order.
pub fn kdf(
    hash: KdfHash,
    key: &[u8],
    label: &[u8],
    context: &[&[u8]],
    out: &mut [u8],
) -> Result<()> {
    let h = hash.output_len();
    if out.is_empty() || out.len() > usize::from(u16::MAX) / 8 {
        return Err(Error::InvalidParameter);
    }
    // out.len() <= 8191: the length in bits fits 16 bits.
    let length_bits = ((out.len() * 8) as u16).to_le_bytes();
    let mut block = [0u8; 64];
    let mut r = Ok(());
    for (n, chunk) in out.chunks_mut(h).enumerate() {
        // n + 1 <= 8191 / 32 + 1: the cast is exact.
        let i = ((n + 1) as u16).to_le_bytes();
        let parts: [&[u8]; 2] = [&i, label];
        let res = hash_chain(hash, key, &parts, context, &length_bits, &mut block[..h]);
        if let Err(e) = res {
            r = Err(e);
            break;
        }
        chunk.copy_from_slice(&block[..chunk.len()]);
    }
    block.zeroize();
    if r.is_err() {
        out.zeroize();
    }
    r
}

/// HMAC-Hash(K, head || context || tail) into `out` (the full output).
fn hash_chain(
    hash: KdfHash,
    key: &[u8],
    head: &[&[u8]],
    context: &[&[u8]],
    tail: &[u8],
    out: &mut [u8],
) -> Result<()> {
    fn run<D>(key: &[u8], head: &[&[u8]], ctx: &[&[u8]], tail: &[u8], out: &mut [u8]) -> Result<()>
    where
        D: hmac::EagerHash,
        Hmac<D>: KeyInit + Mac,
    {
        let mut mac =
            <Hmac<D> as KeyInit>::new_from_slice(key).map_err(|_| Error::InvalidParameter)?;
        for p in head.iter().chain(ctx.iter()) {
            mac.update(p);
        }
        mac.update(tail);
        let mut tag = mac.finalize().into_bytes();
        let r = match tag.get(..out.len()) {
            Some(t) => {
                out.copy_from_slice(t);
                Ok(())
            }
            None => Err(Error::InvalidParameter),
        };
        tag.as_mut_slice().zeroize();
        r
    }
    match hash {
        KdfHash::Sha256 => run::<sha2::Sha256>(key, head, context, tail, out),
        KdfHash::Sha384 => run::<sha2::Sha384>(key, head, context, tail, out),
        KdfHash::Sha512 => run::<sha2::Sha512>(key, head, context, tail, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passphrase_rules() {
        assert_eq!(psk(b"short", b"x").err(), Some(PassphraseError::TooShort));
        assert_eq!(psk(&[b'a'; 64], b"x").err(), Some(PassphraseError::TooLong));
        assert_eq!(
            psk(b"pass\tword", b"x").err(),
            Some(PassphraseError::NotPrintableAscii)
        );
        assert_eq!(
            psk("passw\u{f6}rd".as_bytes(), b"x").err(),
            Some(PassphraseError::NotPrintableAscii)
        );
        assert_eq!(
            psk(b"password", &[0; 33]).err(),
            Some(PassphraseError::SsidTooLong)
        );
        assert!(check_passphrase(&[b'~'; 63], &[0; 32]).is_ok());
        assert!(check_passphrase(b" 1234567", b"").is_ok());
        assert_eq!(
            Error::from(PassphraseError::TooShort),
            Error::InvalidParameter
        );
    }

    #[test]
    fn output_length_limits() {
        let mut big = [0u8; 20 * 255 + 1];
        assert_eq!(
            prf_sha1(b"k", b"l", &[], &mut big),
            Err(Error::InvalidParameter)
        );
        assert_eq!(
            prf_sha1(b"k", b"l", &[], &mut []),
            Err(Error::InvalidParameter)
        );
        assert!(prf_sha1(b"k", b"l", &[], &mut big[..20 * 255]).is_ok());
        let mut big = [0u8; 8192];
        assert_eq!(
            kdf(KdfHash::Sha256, b"k", b"l", &[], &mut big),
            Err(Error::InvalidParameter)
        );
        assert!(kdf(KdfHash::Sha384, b"k", b"l", &[], &mut big[..8191]).is_ok());
    }

    #[test]
    fn prf_prefix_property() {
        // Shorter outputs are prefixes of longer ones for both functions,
        // and the split of the data into parts does not matter.
        let mut a = [0u8; 64];
        let mut b = [0u8; 48];
        prf_sha1(b"key", b"label", &[b"da", b"ta"], &mut a).unwrap();
        prf_sha1(b"key", b"label", &[b"data"], &mut b).unwrap();
        assert_eq!(a[..48], b);
        // KDF includes the length: a shorter output is NOT a prefix.
        let mut c = [0u8; 64];
        let mut d = [0u8; 32];
        kdf(KdfHash::Sha256, b"key", b"label", &[b"data"], &mut c).unwrap();
        kdf(KdfHash::Sha256, b"key", b"label", &[b"da", b"ta"], &mut d).unwrap();
        assert_ne!(c[..32], d);
    }
}
