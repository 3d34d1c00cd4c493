//! Pieces shared by the RSN handshakes (IEEE Std 802.11-2020, 12.7) and
//! by anything that reads them from the air: the negotiated suites and the
//! key descriptor they imply, errors with their reason codes, time,
//! randomness, and (in [`message`]) EAPOL-Key message classification, MIC
//! verification, Key Data decryption and KDE extraction.

pub mod message;

use core::fmt;
use wisec_crypto::eapol_mic::MicAlgorithm;
use wisec_crypto::ptk::{tk_len, KeyHierarchy};
use wisec_wire::eapol::{KeyDescriptor, KeyDescriptorVersion};
use wisec_wire::element::{Akm, CipherSuite, Element, OUI_IEEE80211, OUI_MICROSOFT};
use wisec_wire::mgmt::ReasonCode;
use zeroize::{Zeroize, ZeroizeOnDrop};

pub use message::{
    classify, emit_gtk_kde, emit_igtk_kde, seal_key_data, KeyDataInfo, KeyFrameSpec, MessageKind,
    UnverifiedKeyFrame, VerifiedKeyFrame,
};

/// A point in time, in milliseconds from an origin the caller chooses.
/// The state machines never read a clock: every call takes `now`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Instant(pub u64);

impl Instant {
    /// The origin.
    pub const ZERO: Instant = Instant(0);

    /// `ms` milliseconds after the origin.
    pub const fn from_millis(ms: u64) -> Instant {
        Instant(ms)
    }

    /// Milliseconds after the origin.
    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// This instant plus `ms` milliseconds (saturating).
    #[must_use]
    pub const fn plus_millis(self, ms: u64) -> Instant {
        Instant(self.0.saturating_add(ms))
    }
}

/// Randomness for nonces, key IVs and group keys, implemented by the
/// caller (an OS generator, a DRBG, or a seeded generator in tests).
pub trait Random {
    /// Fills `dest` with random octets.
    fn fill_bytes(&mut self, dest: &mut [u8]);
}

/// What went wrong in a handshake: what the peer did (or failed to do),
/// each mapping to the reason code a deauthentication would carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HandshakeError {
    /// The frame is not a well-formed EAPOL-Key frame.
    Malformed,
    /// A well-formed EAPOL-Key frame that is not the message this state
    /// expects (wrong flags, wrong descriptor version, unsolicited).
    UnexpectedMessage,
    /// The Key Replay Counter is not the one expected: a replayed or
    /// stale message.
    Replayed,
    /// The Key MIC did not verify (the frame was discarded).
    InvalidMic,
    /// The Key Data could not be decrypted (AES key unwrap integrity
    /// check failed, or a length no key wrap can have).
    KeyDataUnwrap,
    /// The (decrypted) Key Data does not parse, or lacks a KDE this
    /// message must carry (GTK, IGTK with PMF).
    InvalidKeyData,
    /// The RSNE (or WPA element) in the message differs from the one of
    /// the Beacon/Probe Response or (Re)Association Request.
    RsneMismatch,
    /// The suites of the message are not the negotiated ones.
    CipherMismatch,
    /// The peer did not answer message 1 or 3 after the last retry.
    FourWayTimeout,
    /// The peer did not answer group message 1 after the last retry.
    GroupKeyTimeout,
    /// The AKM or cipher has no key hierarchy here.
    Unsupported,
    /// The handshake already failed; nothing more is processed.
    Failed,
}

impl HandshakeError {
    /// The reason code of a deauthentication for this error (9.4.1.7,
    /// Table 9-49).
    pub const fn reason_code(self) -> ReasonCode {
        match self {
            HandshakeError::InvalidMic | HandshakeError::KeyDataUnwrap => {
                ReasonCode::MICHAEL_MIC_FAILURE
            }
            HandshakeError::FourWayTimeout => ReasonCode::FOURWAY_HANDSHAKE_TIMEOUT,
            HandshakeError::GroupKeyTimeout => ReasonCode::GROUP_KEY_HANDSHAKE_TIMEOUT,
            HandshakeError::RsneMismatch => ReasonCode::ELEMENT_IN_4WAY_DIFFERS,
            HandshakeError::CipherMismatch => ReasonCode::INVALID_PAIRWISE_CIPHER,
            HandshakeError::InvalidKeyData | HandshakeError::Malformed => {
                ReasonCode::INVALID_ELEMENT
            }
            HandshakeError::Unsupported => ReasonCode::INVALID_AKMP,
            HandshakeError::UnexpectedMessage
            | HandshakeError::Replayed
            | HandshakeError::Failed => ReasonCode::UNSPECIFIED,
        }
    }
}

impl fmt::Display for HandshakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HandshakeError::Malformed => "malformed EAPOL-Key frame",
            HandshakeError::UnexpectedMessage => "unexpected EAPOL-Key message",
            HandshakeError::Replayed => "replayed or stale Key Replay Counter",
            HandshakeError::InvalidMic => "Key MIC did not verify",
            HandshakeError::KeyDataUnwrap => "Key Data did not decrypt",
            HandshakeError::InvalidKeyData => "Key Data malformed or missing a required KDE",
            HandshakeError::RsneMismatch => "RSNE differs from the advertised one",
            HandshakeError::CipherMismatch => "cipher suite differs from the negotiated one",
            HandshakeError::FourWayTimeout => "4-way handshake timeout",
            HandshakeError::GroupKeyTimeout => "group key handshake timeout",
            HandshakeError::Unsupported => "AKM or cipher not supported",
            HandshakeError::Failed => "handshake already failed",
        })
    }
}

impl core::error::Error for HandshakeError {}

impl From<wisec_wire::Error> for HandshakeError {
    fn from(_: wisec_wire::Error) -> HandshakeError {
        HandshakeError::Malformed
    }
}

/// The suites an association negotiated: what the EAPOL-Key frames of its
/// handshakes look like and which keys they carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Negotiated {
    /// The AKM.
    pub akm: Akm,
    /// The pairwise cipher.
    pub pairwise: CipherSuite,
    /// The group data cipher.
    pub group: CipherSuite,
    /// The group management cipher when management frame protection was
    /// negotiated (MFPC on both sides, 12.6.3).
    pub group_mgmt: Option<CipherSuite>,
    /// RSN (descriptor type 2) or WPA (254, the pre-RSN vendor element).
    pub descriptor: KeyDescriptor,
}

impl Negotiated {
    /// An RSN association.
    pub const fn rsn(
        akm: Akm,
        pairwise: CipherSuite,
        group: CipherSuite,
        group_mgmt: Option<CipherSuite>,
    ) -> Negotiated {
        Negotiated {
            akm,
            pairwise,
            group,
            group_mgmt,
            descriptor: KeyDescriptor::Rsn,
        }
    }

    /// True when the pairwise cipher is TKIP (RSN or WPA selector).
    pub fn pairwise_is_tkip(&self) -> bool {
        self.pairwise == CipherSuite::TKIP || self.pairwise == CipherSuite::WPA_TKIP
    }

    /// The Key Descriptor Version of this association's EAPOL-Key frames
    /// (12.7.2 b.1): 1 for TKIP with the SHA-1 AKMs, 2 for the SHA-1 AKMs
    /// with another cipher, 3 for AKMs 3 to 6, 0 (AKM-defined) otherwise.
    pub fn descriptor_version(&self) -> KeyDescriptorVersion {
        let sha1 = (self.akm.oui == OUI_IEEE80211 || self.akm.oui == OUI_MICROSOFT)
            && matches!(self.akm.suite_type, 1 | 2);
        if sha1 {
            if self.pairwise_is_tkip() {
                KeyDescriptorVersion::HmacMd5Rc4
            } else {
                KeyDescriptorVersion::HmacSha1Aes
            }
        } else if self.akm.oui == OUI_IEEE80211 && matches!(self.akm.suite_type, 3..=6) {
            KeyDescriptorVersion::AesCmacAes
        } else {
            KeyDescriptorVersion::AkmDefined
        }
    }

    /// The key hierarchy for a PMK of `pmk_len` octets.
    pub fn hierarchy(&self, pmk_len: usize) -> Result<KeyHierarchy, HandshakeError> {
        let h = KeyHierarchy::for_akm(self.akm, self.pairwise, pmk_len)
            .map_err(|_| HandshakeError::Unsupported)?;
        if h.ft {
            // FT derives the PTK from PMK-R1 during the FT protocol, not in
            // a 4-way handshake started from a PMK.
            return Err(HandshakeError::Unsupported);
        }
        Ok(h)
    }

    /// The EAPOL-Key MIC algorithm for a PMK of `pmk_len` octets.
    pub fn mic_algorithm(&self, pmk_len: usize) -> Result<MicAlgorithm, HandshakeError> {
        Ok(self.hierarchy(pmk_len)?.mic)
    }

    /// Length of the pairwise temporal key (the Key Length field of
    /// messages 1 and 3).
    pub fn pairwise_key_len(&self) -> Result<u16, HandshakeError> {
        tk_len(self.pairwise)
            .ok()
            .and_then(|l| u16::try_from(l).ok())
            .ok_or(HandshakeError::Unsupported)
    }
}

/// Longest element: ID, Length and 255 octets.
pub const ELEMENT_MAX_LEN: usize = 257;

/// A whole element (ID, Length, data) kept by value, such as the RSNE an
/// AP advertised or the one a STA sent in its association request.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ElementBuf {
    bytes: [u8; ELEMENT_MAX_LEN],
    len: usize,
}

impl ElementBuf {
    /// Copies a whole encoded element. `Malformed` unless `encoded` is
    /// exactly one element.
    pub fn new(encoded: &[u8]) -> Result<ElementBuf, HandshakeError> {
        match encoded {
            [_, len, rest @ ..] if usize::from(*len) == rest.len() => {
                let mut bytes = [0u8; ELEMENT_MAX_LEN];
                bytes[..encoded.len()].copy_from_slice(encoded);
                Ok(ElementBuf {
                    bytes,
                    len: encoded.len(),
                })
            }
            _ => Err(HandshakeError::Malformed),
        }
    }

    /// Copies an element from an element walk.
    pub fn from_element(e: Element<'_>) -> Result<ElementBuf, HandshakeError> {
        let len = u8::try_from(e.data.len()).map_err(|_| HandshakeError::Malformed)?;
        let mut bytes = [0u8; ELEMENT_MAX_LEN];
        bytes[0] = e.id;
        bytes[1] = len;
        bytes[2..2 + e.data.len()].copy_from_slice(e.data);
        Ok(ElementBuf {
            bytes,
            len: 2 + e.data.len(),
        })
    }

    /// The encoded element.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&[])
    }

    /// True when `e` is bitwise this element (12.7.6.3, 12.7.6.4).
    pub fn matches(&self, e: Element<'_>) -> bool {
        element_matches(self.as_bytes(), e)
    }
}

impl fmt::Debug for ElementBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ElementBuf({:02x?})", self.as_bytes())
    }
}

/// True when the element `e` (from a walk) is bitwise the encoded element
/// `encoded`: the comparison of RSNEs in messages 2 and 3 (IEEE Std
/// 802.11-2020, 12.7.6.3 and 12.7.6.4).
pub fn element_matches(encoded: &[u8], e: Element<'_>) -> bool {
    match encoded {
        [id, len, data @ ..] => *id == e.id && usize::from(*len) == data.len() && data == e.data,
        _ => false,
    }
}

/// Longest group key (GTK of GCMP-256, CCMP-256 or TKIP; IGTK of
/// BIP-*-256).
pub const GROUP_KEY_MAX_LEN: usize = 32;

/// A group key with its Key ID and packet number: a GTK (Key ID 1..=3,
/// RSC), an IGTK (Key ID 4 or 5, IPN) or a BIGTK (6 or 7, BIPN).
#[derive(Clone, PartialEq, Eq, Zeroize, ZeroizeOnDrop)]
pub struct GroupKey {
    key: [u8; GROUP_KEY_MAX_LEN],
    len: usize,
    /// The Key ID.
    pub key_id: u16,
    /// The packet number the key continues from: the RSC of a GTK (the
    /// next PN its sender will use minus one, 12.7.2 e), the IPN of an
    /// IGTK.
    pub pn: u64,
}

impl GroupKey {
    /// A group key of 5 to 32 octets.
    pub fn new(key: &[u8], key_id: u16, pn: u64) -> Result<GroupKey, HandshakeError> {
        if !(5..=GROUP_KEY_MAX_LEN).contains(&key.len()) {
            return Err(HandshakeError::InvalidKeyData);
        }
        let mut k = [0u8; GROUP_KEY_MAX_LEN];
        k[..key.len()].copy_from_slice(key);
        Ok(GroupKey {
            key: k,
            len: key.len(),
            key_id,
            pn,
        })
    }

    /// The key.
    pub fn key(&self) -> &[u8] {
        self.key.get(..self.len).unwrap_or(&[])
    }

    /// True when both hold the same key under the same Key ID (the
    /// reinstallation check of 12.7.7.3: a key already installed is not
    /// installed again and its replay counter is not reset).
    pub fn same_key(&self, other: &GroupKey) -> bool {
        self.key_id == other.key_id && self.len == other.len && ct_eq(self.key(), other.key())
    }
}

impl fmt::Debug for GroupKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GroupKey {{ key_id: {}, pn: {}, len: {}, .. }}",
            self.key_id, self.pn, self.len
        )
    }
}

/// The group keys an authenticator hands out: the GTK and, with
/// management frame protection, the IGTK.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupKeys {
    /// The GTK.
    pub gtk: GroupKey,
    /// The IGTK (PMF only).
    pub igtk: Option<GroupKey>,
}

/// Constant-time comparison of key material or tags (equal lengths).
pub(crate) fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_versions_follow_12_7_2() {
        let n = |akm, p| Negotiated::rsn(akm, p, CipherSuite::CCMP_128, None);
        use KeyDescriptorVersion as V;
        assert_eq!(
            n(Akm::PSK, CipherSuite::TKIP).descriptor_version(),
            V::HmacMd5Rc4
        );
        assert_eq!(
            n(Akm::PSK, CipherSuite::CCMP_128).descriptor_version(),
            V::HmacSha1Aes
        );
        assert_eq!(
            n(Akm::PSK, CipherSuite::GCMP_256).descriptor_version(),
            V::HmacSha1Aes
        );
        assert_eq!(
            n(Akm::PSK_SHA256, CipherSuite::CCMP_128).descriptor_version(),
            V::AesCmacAes
        );
        assert_eq!(
            n(Akm::SAE, CipherSuite::CCMP_128).descriptor_version(),
            V::AkmDefined
        );
        assert_eq!(
            n(Akm::OWE, CipherSuite::GCMP_256).descriptor_version(),
            V::AkmDefined
        );
        assert_eq!(
            n(Akm::FT_PSK, CipherSuite::CCMP_128).hierarchy(32),
            Err(HandshakeError::Unsupported)
        );
        assert_eq!(
            n(Akm::PSK, CipherSuite::GCMP_256).pairwise_key_len(),
            Ok(32)
        );
    }

    #[test]
    fn reason_codes() {
        assert_eq!(HandshakeError::InvalidMic.reason_code().0, 14);
        assert_eq!(HandshakeError::FourWayTimeout.reason_code().0, 15);
        assert_eq!(HandshakeError::GroupKeyTimeout.reason_code().0, 16);
        assert_eq!(HandshakeError::RsneMismatch.reason_code().0, 17);
    }

    #[test]
    fn element_buf_and_matching() {
        let rsne = [48u8, 2, 1, 0];
        let b = ElementBuf::new(&rsne).unwrap();
        assert!(b.matches(Element {
            id: 48,
            data: &[1, 0]
        }));
        assert!(!b.matches(Element {
            id: 48,
            data: &[1, 1]
        }));
        assert!(!b.matches(Element {
            id: 221,
            data: &[1, 0]
        }));
        assert!(!b.matches(Element {
            id: 48,
            data: &[1, 0, 0]
        }));
        assert!(ElementBuf::new(&[48, 3, 1, 0]).is_err());
        assert!(ElementBuf::new(&[48]).is_err());
        let c = ElementBuf::from_element(Element {
            id: 48,
            data: &[1, 0],
        })
        .unwrap();
        assert_eq!(c.as_bytes(), &rsne);
    }

    #[test]
    fn group_key_comparison() {
        let a = GroupKey::new(&[1; 16], 1, 0).unwrap();
        let b = GroupKey::new(&[1; 16], 1, 9).unwrap();
        let c = GroupKey::new(&[1; 16], 2, 0).unwrap();
        let d = GroupKey::new(&[2; 16], 1, 0).unwrap();
        assert!(a.same_key(&b));
        assert!(!a.same_key(&c));
        assert!(!a.same_key(&d));
        assert!(GroupKey::new(&[0; 4], 1, 0).is_err());
        assert!(GroupKey::new(&[0; 33], 1, 0).is_err());
    }
}
