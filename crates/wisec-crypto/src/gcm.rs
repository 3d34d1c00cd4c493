//! AES-GCM with a 96-bit nonce and a 16-byte tag (NIST SP 800-38D) on
//! wisec's own engine: what GCMP ([`crate::gcmp`], IEEE Std 802.11-2020,
//! 12.5.5) and BIP-GMAC ([`crate::bip`], 12.5.4) are built on.
//!
//! The code path is chosen once per key by CPU detection, as the CCMP
//! batch engine's is ([`crate::batch::Path`]): on x86-64, AES-CTR
//! stitched with GHASH on zmm registers (VAES + VPCLMULQDQ with AVX-512,
//! four blocks per instruction), on ymm (the same with AVX2), on xmm
//! (AES-NI + PCLMULQDQ), or the portable path (RustCrypto `aes` and a
//! constant-time software GHASH) everywhere else. Every path gives the
//! same bytes; [`Gcm::with_path`] picks one for tests and benchmarks.
//!
//! Decryption checks the tag in constant time and, when it fails, leaves
//! the data as it was given (the ciphertext is restored), so no
//! unverified plaintext is returned.
//!
//! ```
//! use wisec_crypto::gcm::Gcm;
//! let gcm = Gcm::new(&[7u8; 16])?;
//! let nonce = [1u8; 12];
//! let mut data = *b"attack at dawn";
//! let tag = gcm.seal_in_place(&nonce, b"header", &mut data)?;
//! gcm.open_in_place(&nonce, b"header", &mut data, &tag)?;
//! assert_eq!(&data, b"attack at dawn");
//! # Ok::<(), wisec_crypto::Error>(())
//! ```

use crate::batch::Path;
use crate::simd::gcm::{self as engine, CheckedPath, GcmKeys, Io};
use crate::{ct_eq, Error, Result};

/// Length of the nonce (IV) this GCM takes.
pub const NONCE_LEN: usize = 12;
/// Length of the tag.
pub const TAG_LEN: usize = 16;

/// An AES-128 or AES-256 GCM key. Keys, key schedules and the hash
/// subkey table are wiped when dropped.
#[derive(Clone)]
pub struct Gcm {
    keys: GcmKeys,
    path: CheckedPath,
}

impl core::fmt::Debug for Gcm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Gcm")
            .field("path", &self.path.path())
            .finish_non_exhaustive()
    }
}

impl Gcm {
    /// The fastest GCM path this CPU runs.
    pub fn best_path() -> Path {
        Path::ALL
            .iter()
            .rev()
            .copied()
            .find(|p| Gcm::path_available(*p))
            .unwrap_or(Path::Portable)
    }

    /// True when this CPU runs the GCM code of `path` (for the vector
    /// paths the carry-less multiply of the same width is needed beside
    /// the AES instructions).
    pub fn path_available(path: Path) -> bool {
        engine::available(path)
    }

    /// A key of 16 (AES-128) or 32 (AES-256) bytes on the fastest path;
    /// other lengths are [`Error::InvalidParameter`].
    pub fn new(key: &[u8]) -> Result<Gcm> {
        Gcm::with_path(key, Gcm::best_path())
    }

    /// A key on a chosen path; [`Error::Unsupported`] when this CPU lacks
    /// it.
    pub fn with_path(key: &[u8], path: Path) -> Result<Gcm> {
        let checked = CheckedPath::new(path).ok_or(Error::Unsupported)?;
        let keys = GcmKeys::new(key).ok_or(Error::InvalidParameter)?;
        if path != Path::Portable && keys.rk.is_none() {
            return Err(Error::Unsupported);
        }
        Ok(Gcm {
            keys,
            path: checked,
        })
    }

    /// The code path of this key.
    pub fn path(&self) -> Path {
        self.path.path()
    }

    fn run(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], io: Io<'_>, dec: bool) -> Result<[u8; 16]> {
        engine::crypt(self.path, &self.keys, nonce, aad, io, dec).ok_or(Error::InvalidParameter)
    }

    /// Encrypts `data` in place and returns the tag over `aad` and the
    /// ciphertext (SP 800-38D, 7.1).
    pub fn seal_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        data: &mut [u8],
    ) -> Result<[u8; TAG_LEN]> {
        self.run(nonce, aad, in_place(data), false)
    }

    /// Encrypts `src` into `dst` (of the same length) and returns the tag.
    pub fn seal(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        src: &[u8],
        dst: &mut [u8],
    ) -> Result<[u8; TAG_LEN]> {
        if src.len() != dst.len() {
            return Err(Error::BufferTooSmall);
        }
        self.run(nonce, aad, Io::Split { src, dst }, false)
    }

    /// Verifies `tag` (in constant time) and decrypts `data` in place
    /// (SP 800-38D, 7.2). On failure `data` holds the ciphertext it was
    /// given and the error is [`Error::Integrity`].
    pub fn open_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        data: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        let ok = tag_ok(self.run(nonce, aad, in_place(&mut *data), true)?, tag);
        if ok {
            return Ok(());
        }
        // Encrypting the plaintext again gives the ciphertext back.
        self.run(nonce, aad, in_place(data), false)?;
        Err(Error::Integrity)
    }

    /// Verifies `tag` and decrypts `src` into `dst` (of the same length).
    /// On failure `dst` is wiped and the error is [`Error::Integrity`].
    pub fn open(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        src: &[u8],
        dst: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        if src.len() != dst.len() {
            return Err(Error::BufferTooSmall);
        }
        let io = Io::Split {
            src,
            dst: &mut *dst,
        };
        if tag_ok(self.run(nonce, aad, io, true)?, tag) {
            Ok(())
        } else {
            crate::simd::wipe_bytes(dst);
            Err(Error::Integrity)
        }
    }

    /// Encrypts the `len` bytes at `buf[src..]` into `buf[dst..]`, where
    /// `dst` is `src + 8` (the 802.11 security header goes where the body
    /// began), and returns the tag.
    pub(crate) fn seal_moved(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buf: &mut [u8],
        src: usize,
        dst: usize,
        len: usize,
    ) -> Result<[u8; TAG_LEN]> {
        self.run(nonce, aad, Io::Shift { buf, src, dst, len }, false)
    }

    /// Verifies `tag` and decrypts the `len` bytes at `buf[src..]` into
    /// `buf[dst..]` (`dst` is `src - 8`: the security header is dropped).
    /// On failure the ciphertext is back at `src` and the 8 octets before
    /// it are as they were.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn open_moved(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buf: &mut [u8],
        src: usize,
        dst: usize,
        len: usize,
        tag: &[u8],
    ) -> Result<()> {
        let gap = src
            .checked_sub(dst)
            .filter(|&g| g <= 8)
            .ok_or(Error::InvalidParameter)?;
        let mut saved = [0u8; 8];
        saved[..gap].copy_from_slice(buf.get(dst..src).ok_or(Error::BufferTooSmall)?);
        let ok = tag_ok(
            self.run(nonce, aad, Io::Shift { buf, src, dst, len }, true)?,
            tag,
        );
        if ok {
            return Ok(());
        }
        self.run(
            nonce,
            aad,
            Io::Shift {
                buf,
                src: dst,
                dst: src,
                len,
            },
            false,
        )?;
        buf[dst..src].copy_from_slice(&saved[..gap]);
        Err(Error::Integrity)
    }

    /// GMAC: the tag of `data` authenticated alone (as AAD, with no
    /// ciphertext; SP 800-38D, 3).
    pub fn gmac(&self, nonce: &[u8; NONCE_LEN], data: &[u8]) -> Result<[u8; TAG_LEN]> {
        engine::gmac(self.path, &self.keys, nonce, data).ok_or(Error::InvalidParameter)
    }
}

/// Compares the computed tag `want` with the received `tag` in constant
/// time, and wipes `want` (one 16-octet store): when they differ, `want`
/// is the tag a forger would need.
fn tag_ok(mut want: [u8; TAG_LEN], tag: &[u8]) -> bool {
    let ok = ct_eq(&want, tag);
    crate::simd::wipe(core::slice::from_mut(&mut want));
    ok
}

/// `data` processed where it is.
fn in_place(data: &mut [u8]) -> Io<'_> {
    let len = data.len();
    Io::Shift {
        buf: data,
        src: 0,
        dst: 0,
        len,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_lengths_and_paths() {
        assert!(Gcm::new(&[0; 16]).is_ok());
        assert!(Gcm::new(&[0; 32]).is_ok());
        assert_eq!(Gcm::new(&[0; 24]).unwrap_err(), Error::InvalidParameter);
        assert_eq!(Gcm::new(&[0; 16]).unwrap().path(), Gcm::best_path());
        assert!(Gcm::path_available(Path::Portable));
        for p in Path::ALL {
            assert_eq!(Gcm::with_path(&[0; 16], p).is_ok(), Gcm::path_available(p));
        }
    }
}
