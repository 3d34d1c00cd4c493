//! The pairwise key hierarchy (IEEE Std 802.11-2020, 12.7.1.3): PMK,
//! PMKID and the PTK with its KCK, KEK and TK.
//!
//! `PTK = PRF-Length(PMK, "Pairwise key expansion", Min(AA, SPA) ||
//! Max(AA, SPA) || Min(ANonce, SNonce) || Max(ANonce, SNonce))` with the
//! SHA-1 PRF for the SHA-1 AKMs, and the same inputs through
//! `KDF-Hash-Length` for the SHA-2 AKMs. The AKM and the pairwise cipher
//! fix the hash and the KCK/KEK/TK lengths (Table 12-8, Table 12-11,
//! Table 12-4).
//!
//! The FT AKMs derive their PTK from PMK-R1 instead: see [`crate::ft`].
//!
//! Every key type here is wiped on drop and prints no key material.

use crate::eapol_mic::MicAlgorithm;
use crate::kdf::{self, KdfHash};
use crate::{Error, Result};
use core::fmt;
use wisec_wire::element::{Akm, CipherSuite, OUI_IEEE80211, OUI_MICROSOFT};
use wisec_wire::MacAddr;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Longest PMK (OWE with group 21: 512 bits).
pub const PMK_MAX_LEN: usize = 64;

/// A pairwise master key (or a PSK used as one): 32, 48 or 64 octets.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Pmk {
    bytes: [u8; PMK_MAX_LEN],
    len: usize,
}

impl Pmk {
    /// A PMK of 32, 48 or 64 octets.
    pub fn new(key: &[u8]) -> Result<Pmk> {
        if !matches!(key.len(), 32 | 48 | 64) {
            return Err(Error::InvalidParameter);
        }
        let mut bytes = [0u8; PMK_MAX_LEN];
        bytes[..key.len()].copy_from_slice(key);
        Ok(Pmk {
            bytes,
            len: key.len(),
        })
    }

    /// The key.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&[])
    }

    /// Length in octets.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true for a constructed PMK.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl fmt::Debug for Pmk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pmk {{ len: {}, .. }}", self.len)
    }
}

/// The function a PTK is expanded with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PtkKdf {
    /// The SHA-1 PRF (12.7.1.2).
    PrfSha1,
    /// The SHA-2 KDF (12.7.1.7.2).
    Kdf(KdfHash),
}

/// What an AKM fixes about its keys: derivation function, KCK and KEK
/// lengths and the EAPOL-Key MIC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyHierarchy {
    /// The PTK derivation function.
    pub kdf: PtkKdf,
    /// KCK length in octets.
    pub kck_len: usize,
    /// KEK length in octets.
    pub kek_len: usize,
    /// The EAPOL-Key MIC algorithm.
    pub mic: MicAlgorithm,
    /// True for the FT AKMs, whose PTK comes from PMK-R1 ([`crate::ft`]).
    pub ft: bool,
}

impl KeyHierarchy {
    const fn new(kdf: PtkKdf, kck_len: usize, kek_len: usize, mic: MicAlgorithm) -> Self {
        KeyHierarchy {
            kdf,
            kck_len,
            kek_len,
            mic,
            ft: false,
        }
    }

    const fn ft(mut self) -> Self {
        self.ft = true;
        self
    }

    /// The hierarchy of `akm` with pairwise cipher `cipher` and a PMK of
    /// `pmk_len` octets (IEEE Std 802.11-2020, Table 12-8 and 12-11).
    ///
    /// The cipher matters only to the SHA-1 AKMs (TKIP uses key descriptor
    /// version 1, HMAC-MD5); the PMK length only to OWE, whose hash follows
    /// the Diffie-Hellman group (12.7.1.3: SHA-256 for group 19 with a
    /// 32-octet PMK, SHA-384 for group 20 with 48, SHA-512 for group 21
    /// with 64). `Unsupported` for AKMs this crate does not derive keys
    /// for (TDLS, APPeerKey, FILS, PASN, the SAE/802.1X AKMs of later
    /// amendments).
    pub fn for_akm(akm: Akm, cipher: CipherSuite, pmk_len: usize) -> Result<KeyHierarchy> {
        use MicAlgorithm as M;
        let sha1_mic = if is_tkip(cipher) {
            M::HmacMd5
        } else {
            M::HmacSha1_128
        };
        let sha256 = PtkKdf::Kdf(KdfHash::Sha256);
        let sha384 = PtkKdf::Kdf(KdfHash::Sha384);
        if akm.oui == OUI_MICROSOFT {
            // WPA (00-50-F2:1 and :2) uses the 802.11i derivation.
            return match akm.suite_type {
                1 | 2 => Ok(Self::new(PtkKdf::PrfSha1, 16, 16, sha1_mic)),
                _ => Err(Error::Unsupported),
            };
        }
        if akm.oui != OUI_IEEE80211 {
            return Err(Error::Unsupported);
        }
        Ok(match akm.suite_type {
            1 | 2 => Self::new(PtkKdf::PrfSha1, 16, 16, sha1_mic),
            // FT over 802.1X, FT-PSK, FT-SAE (12.7.1.7).
            3 | 4 | 9 => Self::new(sha256, 16, 16, M::AesCmac128).ft(),
            5 | 6 | 8 => Self::new(sha256, 16, 16, M::AesCmac128),
            11 => Self::new(sha256, 16, 16, M::HmacSha256_128),
            12 | 20 => Self::new(sha384, 24, 32, M::HmacSha384_192),
            13 | 19 => Self::new(sha384, 24, 32, M::HmacSha384_192).ft(),
            18 => match pmk_len {
                32 => Self::new(sha256, 16, 16, M::HmacSha256_128),
                48 => Self::new(sha384, 24, 32, M::HmacSha384_192),
                64 => Self::new(PtkKdf::Kdf(KdfHash::Sha512), 32, 32, M::HmacSha512_256),
                _ => return Err(Error::InvalidParameter),
            },
            _ => return Err(Error::Unsupported),
        })
    }
}

fn is_tkip(c: CipherSuite) -> bool {
    c == CipherSuite::TKIP || c == CipherSuite::WPA_TKIP
}

/// Length of the TK of a pairwise cipher (Table 12-8; Table 12-4): 16 for
/// CCMP-128 and GCMP-128, 32 for CCMP-256, GCMP-256 and TKIP (whose TK
/// holds the two Michael keys). `Unsupported` for WEP, BIP and other
/// suites that are no pairwise ciphers.
pub fn tk_len(cipher: CipherSuite) -> Result<usize> {
    if cipher == CipherSuite::WPA_TKIP {
        return Ok(32);
    }
    if cipher == CipherSuite::WPA_CCMP {
        return Ok(16);
    }
    if cipher.oui != OUI_IEEE80211 {
        return Err(Error::Unsupported);
    }
    match cipher.suite_type {
        2 | 9 | 10 => Ok(32),
        4 | 8 => Ok(16),
        _ => Err(Error::Unsupported),
    }
}

/// Longest PTK this crate derives: KCK 32 + KEK 32 + TK 32.
pub const PTK_MAX_LEN: usize = 96;

/// A pairwise transient key: KCK || KEK || TK.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Ptk {
    bytes: [u8; PTK_MAX_LEN],
    kck_len: usize,
    kek_len: usize,
    tk_len: usize,
}

impl fmt::Debug for Ptk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Ptk {{ kck_len: {}, kek_len: {}, tk_len: {}, .. }}",
            self.kck_len, self.kek_len, self.tk_len
        )
    }
}

/// `Min(a, b) || Max(a, b)` as two slices (octet strings compared as
/// unsigned big-endian integers, 12.7.1.3).
fn ordered<'a>(a: &'a [u8], b: &'a [u8]) -> (&'a [u8], &'a [u8]) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

impl Ptk {
    /// An empty PTK of the given split, to be filled by a derivation.
    pub(crate) fn zeroed(kck_len: usize, kek_len: usize, tk_len: usize) -> Result<Ptk> {
        if kck_len + kek_len + tk_len > PTK_MAX_LEN {
            return Err(Error::InvalidParameter);
        }
        Ok(Ptk {
            bytes: [0; PTK_MAX_LEN],
            kck_len,
            kek_len,
            tk_len,
        })
    }

    /// The whole PTK, mutable (for derivations in this crate).
    pub(crate) fn as_mut_bytes(&mut self) -> &mut [u8] {
        let n = self.len();
        self.bytes.get_mut(..n).unwrap_or(&mut [])
    }

    /// Derives the PTK of a 4-way handshake (IEEE Std 802.11-2020,
    /// 12.7.1.3) for `akm` and `pairwise` cipher from the PMK, the
    /// authenticator address `aa`, the supplicant address `spa` and both
    /// nonces.
    ///
    /// `Unsupported` for the FT AKMs (their PTK comes from PMK-R1, see
    /// [`crate::ft::PmkR1::ptk`]) and for suites without a key hierarchy here.
    pub fn derive(
        akm: Akm,
        pairwise: CipherSuite,
        pmk: &[u8],
        aa: MacAddr,
        spa: MacAddr,
        anonce: &[u8; 32],
        snonce: &[u8; 32],
    ) -> Result<Ptk> {
        let h = KeyHierarchy::for_akm(akm, pairwise, pmk.len())?;
        if h.ft {
            return Err(Error::Unsupported);
        }
        Ptk::derive_with(h, pairwise, pmk, aa, spa, anonce, snonce)
    }

    /// [`Ptk::derive`] with an explicit key hierarchy.
    pub fn derive_with(
        h: KeyHierarchy,
        pairwise: CipherSuite,
        pmk: &[u8],
        aa: MacAddr,
        spa: MacAddr,
        anonce: &[u8; 32],
        snonce: &[u8; 32],
    ) -> Result<Ptk> {
        if pmk.is_empty() {
            return Err(Error::InvalidParameter);
        }
        let mut ptk = Ptk::zeroed(h.kck_len, h.kek_len, tk_len(pairwise)?)?;
        let (a1, a2) = ordered(&aa.0, &spa.0);
        let (n1, n2) = ordered(anonce, snonce);
        let data: [&[u8]; 4] = [a1, a2, n1, n2];
        const LABEL: &[u8] = b"Pairwise key expansion";
        match h.kdf {
            PtkKdf::PrfSha1 => kdf::prf_sha1(pmk, LABEL, &data, ptk.as_mut_bytes())?,
            PtkKdf::Kdf(hash) => kdf::kdf(hash, pmk, LABEL, &data, ptk.as_mut_bytes())?,
        }
        Ok(ptk)
    }

    /// Total length (KCK + KEK + TK).
    pub fn len(&self) -> usize {
        self.kck_len + self.kek_len + self.tk_len
    }

    /// Never true for a derived PTK.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The whole PTK.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len()).unwrap_or(&[])
    }

    /// The key confirmation key (EAPOL-Key MIC).
    pub fn kck(&self) -> &[u8] {
        self.bytes.get(..self.kck_len).unwrap_or(&[])
    }

    /// The key encryption key (EAPOL-Key Key Data).
    pub fn kek(&self) -> &[u8] {
        self.bytes
            .get(self.kck_len..self.kck_len + self.kek_len)
            .unwrap_or(&[])
    }

    /// The temporal key of the pairwise cipher. For TKIP: the 16-octet
    /// encryption key, then the Michael key from the authenticator and the
    /// Michael key from the supplicant (12.8.1).
    pub fn tk(&self) -> &[u8] {
        let s = self.kck_len + self.kek_len;
        self.bytes.get(s..s + self.tk_len).unwrap_or(&[])
    }
}

/// The PMKID of a PMKSA (IEEE Std 802.11-2020, 12.7.1.3):
/// `Truncate-128(HMAC-Hash(PMK, "PMK Name" || AA || SPA))` with SHA-1 for
/// AKMs 1 and 2 (and WPA), SHA-256 for AKMs 5, 6 and 11, SHA-384 for AKM
/// 12. Other AKMs name their PMK differently (SAE from the commit scalars,
/// OWE from the public keys, FT with PMK-R0Name): `Unsupported`.
pub fn pmkid(akm: Akm, pmk: &[u8], aa: MacAddr, spa: MacAddr) -> Result<[u8; 16]> {
    let parts: [&[u8]; 3] = [b"PMK Name", &aa.0, &spa.0];
    let mut out = [0u8; 16];
    let sha1_akm =
        (akm.oui == OUI_IEEE80211 || akm.oui == OUI_MICROSOFT) && matches!(akm.suite_type, 1 | 2);
    if sha1_akm {
        kdf::hmac_parts::<sha1::Sha1>(pmk, &parts, &mut out)?;
        return Ok(out);
    }
    if akm.oui != OUI_IEEE80211 {
        return Err(Error::Unsupported);
    }
    match akm.suite_type {
        5 | 6 | 11 => KdfHash::Sha256.hmac(pmk, &parts, &mut out)?,
        12 => KdfHash::Sha384.hmac(pmk, &parts, &mut out)?,
        _ => return Err(Error::Unsupported),
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const AA: MacAddr = MacAddr([2, 0, 0, 0, 0, 1]);
    const SPA: MacAddr = MacAddr([2, 0, 0, 0, 0, 2]);

    #[test]
    fn splits_per_akm_and_cipher() {
        let pmk = [1u8; 32];
        let cases = [
            (Akm::PSK, CipherSuite::CCMP_128, 16, 16, 16),
            (Akm::PSK, CipherSuite::TKIP, 16, 16, 32),
            (Akm::WPA_PSK, CipherSuite::WPA_TKIP, 16, 16, 32),
            (Akm::PSK_SHA256, CipherSuite::GCMP_256, 16, 16, 32),
            (Akm::SAE, CipherSuite::CCMP_256, 16, 16, 32),
            (
                Akm::IEEE8021X_SUITE_B_192,
                CipherSuite::GCMP_256,
                24,
                32,
                32,
            ),
            (Akm::OWE, CipherSuite::CCMP_128, 16, 16, 16),
        ];
        for (akm, c, kck, kek, tk) in cases {
            let p = Ptk::derive(akm, c, &pmk, AA, SPA, &[3; 32], &[4; 32]).unwrap();
            assert_eq!((p.kck().len(), p.kek().len(), p.tk().len()), (kck, kek, tk));
            assert_eq!(p.as_bytes().len(), kck + kek + tk);
        }
        let p = Ptk::derive(
            Akm::OWE,
            CipherSuite::GCMP_256,
            &[1; 64],
            AA,
            SPA,
            &[3; 32],
            &[4; 32],
        )
        .unwrap();
        assert_eq!((p.kck().len(), p.kek().len()), (32, 32));
    }

    #[test]
    fn refusals() {
        let n = [0u8; 32];
        let d = |akm, c, pmk: &[u8]| Ptk::derive(akm, c, pmk, AA, SPA, &n, &n).err();
        assert_eq!(
            d(Akm::FT_PSK, CipherSuite::CCMP_128, &[0; 32]),
            Some(Error::Unsupported)
        );
        assert_eq!(
            d(Akm::TDLS, CipherSuite::CCMP_128, &[0; 32]),
            Some(Error::Unsupported)
        );
        assert_eq!(
            d(Akm::PSK, CipherSuite::WEP104, &[0; 32]),
            Some(Error::Unsupported)
        );
        assert_eq!(
            d(Akm::PSK, CipherSuite::BIP_CMAC_128, &[0; 32]),
            Some(Error::Unsupported)
        );
        assert_eq!(
            d(Akm::OWE, CipherSuite::CCMP_128, &[0; 40]),
            Some(Error::InvalidParameter)
        );
        assert_eq!(
            d(Akm::PSK, CipherSuite::CCMP_128, &[]),
            Some(Error::InvalidParameter)
        );
        assert!(Pmk::new(&[0; 31]).is_err());
        assert!(pmkid(Akm::SAE, &[0; 32], AA, SPA).is_err());
    }

    #[test]
    fn roles_are_symmetric_and_inputs_matter() {
        // Min/Max ordering: swapping the roles gives the same PTK.
        let pmk = [9u8; 32];
        let a = Ptk::derive(
            Akm::PSK,
            CipherSuite::CCMP_128,
            &pmk,
            AA,
            SPA,
            &[1; 32],
            &[2; 32],
        )
        .unwrap();
        let b = Ptk::derive(
            Akm::PSK,
            CipherSuite::CCMP_128,
            &pmk,
            SPA,
            AA,
            &[2; 32],
            &[1; 32],
        )
        .unwrap();
        assert_eq!(a.as_bytes(), b.as_bytes());
        let c = Ptk::derive(
            Akm::PSK,
            CipherSuite::CCMP_128,
            &pmk,
            AA,
            SPA,
            &[1; 32],
            &[3; 32],
        )
        .unwrap();
        assert_ne!(a.as_bytes(), c.as_bytes());
    }

    #[test]
    fn debug_hides_keys() {
        extern crate std;
        use std::format;
        let pmk = Pmk::new(&[0xab; 32]).unwrap();
        assert_eq!(format!("{pmk:?}"), "Pmk { len: 32, .. }");
        let p = Ptk::derive(
            Akm::PSK,
            CipherSuite::CCMP_128,
            pmk.as_bytes(),
            AA,
            SPA,
            &[1; 32],
            &[2; 32],
        )
        .unwrap();
        assert_eq!(
            format!("{p:?}"),
            "Ptk { kck_len: 16, kek_len: 16, tk_len: 16, .. }"
        );
    }
}
