//! Management frame protection, IEEE 802.11w (PMF), as merged into IEEE
//! Std 802.11-2020: MFPC/MFPR negotiation in the RSNE (12.6.3), CCMP
//! protection of individually addressed robust management frames with the
//! PTK (12.5.3), BIP with the IGTK for group-addressed ones (12.5.4), the
//! SA Query procedure with the association comeback time (11.13), and the
//! rule that unprotected Deauthentication and Disassociation frames are
//! dropped once PMF is in use (12.6.19).
//!
//! - [`negotiate`] / [`MfpPolicy`]: which MFPC/MFPR combinations associate.
//! - [`protect`]: the keys of one association ([`Pairwise`], [`GroupTx`],
//!   [`GroupRx`]) with their packet numbers and replay counters.
//! - [`sa_query`]: the SA Query Action frame and the procedure's timers.
//! - [`Ap`] and [`Sta`]: sans-I/O access point and station that
//!   authenticate (open system), associate with or without an RSNE, carry
//!   EAPOL frames for the 4-way handshake of [`crate::fourway`] and apply
//!   every rule above once the caller installs the keys the handshake
//!   produced ([`Ap::install_ptk`], [`Ap::set_igtk`], [`Sta::install_ptk`],
//!   [`Sta::install_igtk`]).
//!
//! # Choices where the standard leaves room
//!
//! * EAPOL frames travel unprotected and are accepted unprotected: the
//!   EAPOL-Key MIC protects them, and the initial handshake runs before any
//!   key exists. Other data frames of an RSN association need the PTK.
//! * A non-AP STA that receives an unprotected Deauthentication or
//!   Disassociation frame from its AP with reason 6 or 7 (a class 2 or 3
//!   frame from a STA the AP does not know) starts an SA Query (11.13);
//!   other reasons are dropped silently. Without an answer before
//!   dot11AssociationSAQueryMaximumTimeout the STA concludes that the AP
//!   lost the association and disconnects.
//! * An Authentication frame from a STA whose PMF association is in use is
//!   answered but changes nothing (otherwise a forged one would tear the
//!   association down); the STA has to associate anew, which goes through
//!   the comeback and SA Query path.
#![deny(missing_docs)]

mod ap;
mod frames;
pub mod protect;
pub mod sa_query;
mod sta;

pub use ap::{Ap, ApConfig, ApEvent, ApStats, RsnConfig};
pub use frames::{Rx, MAX_FRAME};
pub use protect::{GroupRx, GroupTx, Pairwise};
pub use sa_query::{SaQueryAction, SaQueryFrame, SaQueryTimers};
pub use sta::{Sta, StaConfig, StaEvent, StaState, StaStats};

use core::fmt;
use wisec_wire::element::{CipherSuite, RsnCapabilities, Rsne, OUI_IEEE80211};
use wisec_wire::{ReasonCode, StatusCode};

/// A node's management frame protection policy, as its RSN Capabilities
/// advertise it (9.4.2.24.4: bit 7 MFPC, bit 6 MFPR).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MfpPolicy {
    /// MFPC 0, MFPR 0: no management frame protection.
    Disabled,
    /// MFPC 1, MFPR 0: protection with peers that support it.
    Capable,
    /// MFPC 1, MFPR 1: only peers with protection.
    Required,
}

impl MfpPolicy {
    /// `caps` with MFPC and MFPR set for this policy.
    pub const fn apply(self, caps: RsnCapabilities) -> RsnCapabilities {
        let (c, r) = match self {
            MfpPolicy::Disabled => (false, false),
            MfpPolicy::Capable => (true, false),
            MfpPolicy::Required => (true, true),
        };
        caps.with_mfpc(c).with_mfpr(r)
    }

    /// The policy `caps` advertise. MFPR without MFPC is invalid
    /// (12.6.3: a STA sets MFPR only when it sets MFPC).
    pub const fn from_capabilities(caps: RsnCapabilities) -> Result<MfpPolicy, NegotiationError> {
        match (caps.mfpc(), caps.mfpr()) {
            (false, false) => Ok(MfpPolicy::Disabled),
            (true, false) => Ok(MfpPolicy::Capable),
            (true, true) => Ok(MfpPolicy::Required),
            (false, true) => Err(NegotiationError::InvalidCapabilities),
        }
    }
}

/// Why an association cannot be made with management frame protection
/// as the two sides advertise it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NegotiationError {
    /// MFPR set without MFPC.
    InvalidCapabilities,
    /// The AP requires protection and the STA is not capable of it
    /// (status 31, "robust management frame policy violation").
    PolicyViolation,
    /// The STA requires protection and the AP is not capable of it: the
    /// STA does not associate.
    PeerNotCapable,
    /// The STA asks for another group management cipher than the AP's.
    GroupMgmtCipher,
    /// A group management cipher wisec does not implement.
    UnsupportedCipher,
}

impl NegotiationError {
    /// The status code of the Association Response that refuses the
    /// request (Table 9-50).
    pub const fn status_code(self) -> StatusCode {
        match self {
            NegotiationError::InvalidCapabilities => StatusCode::INVALID_RSNE_CAPABILITIES,
            NegotiationError::PolicyViolation | NegotiationError::PeerNotCapable => {
                StatusCode::ROBUST_MGMT_POLICY_VIOLATION
            }
            NegotiationError::GroupMgmtCipher | NegotiationError::UnsupportedCipher => {
                StatusCode::CIPHER_OUT_OF_POLICY
            }
        }
    }
}

impl fmt::Display for NegotiationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NegotiationError::InvalidCapabilities => "MFPR set without MFPC",
            NegotiationError::PolicyViolation => "AP requires management frame protection",
            NegotiationError::PeerNotCapable => "STA requires management frame protection",
            NegotiationError::GroupMgmtCipher => "group management cipher mismatch",
            NegotiationError::UnsupportedCipher => "unsupported group management cipher",
        })
    }
}

impl core::error::Error for NegotiationError {}

/// Decides, from the RSN Capabilities of the AP (Beacon, Probe Response)
/// and of the STA (Association Request), whether the association uses
/// management frame protection: `Ok(true)` with protection, `Ok(false)`
/// without, an error when the pair does not associate. This is the table
/// of IEEE Std 802.11-2020, 12.6.3 (Table 12-5):
///
/// | STA MFPC | STA MFPR | AP MFPC | AP MFPR | result |
/// |---|---|---|---|---|
/// | 0 | 0 | 0 | x | associate, no protection |
/// | 0 | 0 | 1 | 0 | associate, no protection |
/// | 0 | 0 | 1 | 1 | AP refuses: status 31 |
/// | 1 | 0 | 0 | x | associate, no protection |
/// | 1 | x | 1 | x | associate, protection |
/// | 1 | 1 | 0 | x | STA does not associate |
/// | 0 | 1 | x | x | invalid (either side) |
pub fn negotiate(ap: RsnCapabilities, sta: RsnCapabilities) -> Result<bool, NegotiationError> {
    let ap = MfpPolicy::from_capabilities(ap)?;
    let sta = MfpPolicy::from_capabilities(sta)?;
    use MfpPolicy as P;
    match (sta, ap) {
        (P::Disabled, P::Required) => Err(NegotiationError::PolicyViolation),
        (P::Required, P::Disabled) => Err(NegotiationError::PeerNotCapable),
        (P::Disabled, _) | (_, P::Disabled) => Ok(false),
        _ => Ok(true),
    }
}

/// The group management cipher of a protected association: the AP's
/// (BIP-CMAC-128 when its RSNE omits the field, 9.4.2.24.1), which the
/// STA's RSNE must repeat when it carries the field (12.6.3).
pub fn group_mgmt_cipher(ap: &Rsne<'_>, sta: &Rsne<'_>) -> Result<CipherSuite, NegotiationError> {
    let c = ap.group_mgmt_cipher_or_default();
    if let Some(s) = sta.group_mgmt_cipher {
        if s != c {
            return Err(NegotiationError::GroupMgmtCipher);
        }
    }
    bip_suite(c).ok_or(NegotiationError::UnsupportedCipher)?;
    Ok(c)
}

/// The `wisec_crypto` suite of an IEEE cipher suite selector.
pub fn suite_of(c: CipherSuite) -> Option<wisec_crypto::suite::Suite> {
    if c.oui != OUI_IEEE80211 {
        return None;
    }
    wisec_crypto::suite::Suite::from_selector(c.suite_type)
}

fn bip_suite(c: CipherSuite) -> Option<wisec_crypto::suite::Suite> {
    suite_of(c).filter(|s| s.is_bip())
}

/// What a peer (or a forger) did wrong, or why a local request failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// A frame or element that does not parse.
    Malformed(wisec_wire::Error),
    /// Not addressed to this node, or not from its BSS.
    NotForUs,
    /// A frame not expected in this state.
    UnexpectedFrame,
    /// A robust management frame (or data frame) without protection where
    /// protection is in use (12.6.19): dropped.
    Unprotected,
    /// A protected frame where no key is installed.
    NoKey,
    /// The MIC (CCMP) or MME (BIP) did not verify.
    Integrity,
    /// The PN or IPN was not greater than the last accepted one.
    Replayed,
    /// A group-addressed robust management frame without a Management
    /// MIC element of the IGTK's suite and Key ID.
    MissingMme,
    /// The association request was refused; the response carried this
    /// status.
    Refused(StatusCode),
    /// The MFPC/MFPR combination does not associate.
    Negotiation(NegotiationError),
    /// A class 2 or 3 frame from a STA that is not authenticated or
    /// associated.
    NotAssociated,
    /// The station table is full.
    TableFull,
    /// An output buffer or queue is too small.
    BufferTooSmall,
    /// A key of the wrong length or suite (local configuration).
    InvalidKey,
    /// The transmit packet number is exhausted: re-key.
    PnExhausted,
}

impl Error {
    /// The reason code of a Deauthentication sent because of this error.
    pub const fn reason_code(&self) -> ReasonCode {
        match self {
            Error::Malformed(_) => ReasonCode::INVALID_ELEMENT,
            Error::NotAssociated => ReasonCode::CLASS3_FRAME_FROM_NONASSOC_STA,
            Error::TableFull => ReasonCode::DISASSOC_AP_BUSY,
            Error::Negotiation(_) => ReasonCode::INVALID_RSNE_CAPABILITIES,
            _ => ReasonCode::UNSPECIFIED,
        }
    }

    /// A short stable name, for reports that count rejections by reason.
    pub const fn name(&self) -> &'static str {
        match self {
            Error::Malformed(_) => "malformed",
            Error::NotForUs => "not-for-us",
            Error::UnexpectedFrame => "unexpected",
            Error::Unprotected => "unprotected",
            Error::NoKey => "no-key",
            Error::Integrity => "bad-mic",
            Error::Replayed => "replayed",
            Error::MissingMme => "missing-mme",
            Error::Refused(s) if s.0 == 30 => "rejected-temporarily",
            Error::Refused(_) => "refused",
            Error::Negotiation(_) => "negotiation",
            Error::NotAssociated => "not-associated",
            Error::TableFull => "table-full",
            Error::BufferTooSmall => "buffer-too-small",
            Error::InvalidKey => "invalid-key",
            Error::PnExhausted => "pn-exhausted",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Malformed(e) => write!(f, "malformed frame ({e})"),
            Error::Refused(s) => write!(f, "association refused with status {}", s.0),
            Error::Negotiation(e) => write!(f, "{e}"),
            other => f.write_str(match other {
                Error::NotForUs => "frame not addressed to this node",
                Error::UnexpectedFrame => "frame not expected in this state",
                Error::Unprotected => "unprotected frame where protection is in use",
                Error::NoKey => "protected frame without an installed key",
                Error::Integrity => "integrity check failed",
                Error::Replayed => "replayed packet number",
                Error::MissingMme => "group-addressed frame without a valid MME",
                Error::NotAssociated => "frame from a station that is not associated",
                Error::TableFull => "station table full",
                Error::BufferTooSmall => "buffer too small",
                Error::InvalidKey => "invalid key",
                _ => "packet number exhausted",
            }),
        }
    }
}

impl core::error::Error for Error {}

impl From<wisec_wire::Error> for Error {
    fn from(e: wisec_wire::Error) -> Error {
        Error::Malformed(e)
    }
}

impl From<NegotiationError> for Error {
    fn from(e: NegotiationError) -> Error {
        Error::Negotiation(e)
    }
}

impl From<wisec_crypto::Error> for Error {
    fn from(e: wisec_crypto::Error) -> Error {
        match e {
            wisec_crypto::Error::Integrity => Error::Integrity,
            wisec_crypto::Error::BufferTooSmall => Error::BufferTooSmall,
            wisec_crypto::Error::InvalidParameter => Error::InvalidKey,
            wisec_crypto::Error::Malformed => Error::Malformed(wisec_wire::Error::Malformed),
            wisec_crypto::Error::Unsupported => Error::Malformed(wisec_wire::Error::Unsupported),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(c: bool, r: bool) -> RsnCapabilities {
        RsnCapabilities(0).with_mfpc(c).with_mfpr(r)
    }

    #[test]
    fn table_12_5() {
        // Every row of the table, both MFPR values where it says "x".
        let cases = [
            // (sta c, sta r, ap c, ap r, expected)
            ((false, false), (false, false), Ok(false)),
            ((false, false), (true, false), Ok(false)),
            (
                (false, false),
                (true, true),
                Err(NegotiationError::PolicyViolation),
            ),
            ((true, false), (false, false), Ok(false)),
            ((true, false), (true, false), Ok(true)),
            ((true, false), (true, true), Ok(true)),
            (
                (true, true),
                (false, false),
                Err(NegotiationError::PeerNotCapable),
            ),
            ((true, true), (true, false), Ok(true)),
            ((true, true), (true, true), Ok(true)),
            (
                (false, true),
                (true, true),
                Err(NegotiationError::InvalidCapabilities),
            ),
            (
                (true, true),
                (false, true),
                Err(NegotiationError::InvalidCapabilities),
            ),
        ];
        for ((sc, sr), (ac, ar), want) in cases {
            assert_eq!(
                negotiate(caps(ac, ar), caps(sc, sr)),
                want,
                "sta {sc}/{sr} ap {ac}/{ar}"
            );
        }
        assert_eq!(
            NegotiationError::PolicyViolation.status_code(),
            StatusCode(31)
        );
        assert_eq!(
            NegotiationError::InvalidCapabilities.status_code(),
            StatusCode(45)
        );
    }

    #[test]
    fn policy_bits_are_6_and_7() {
        // 9.4.2.24.4, Figure 9-257: MFPR is bit 6, MFPC bit 7.
        assert_eq!(MfpPolicy::Required.apply(RsnCapabilities(0)).0, 0x00c0);
        assert_eq!(MfpPolicy::Capable.apply(RsnCapabilities(0xffff)).0, 0xffbf);
        assert_eq!(MfpPolicy::Disabled.apply(RsnCapabilities(0xffff)).0, 0xff3f);
        for p in [MfpPolicy::Disabled, MfpPolicy::Capable, MfpPolicy::Required] {
            assert_eq!(
                MfpPolicy::from_capabilities(p.apply(RsnCapabilities(0x000c))),
                Ok(p)
            );
        }
    }

    #[test]
    fn group_mgmt_cipher_defaults_and_must_match() {
        let ap = Rsne::default();
        let mut sta = Rsne::default();
        assert_eq!(group_mgmt_cipher(&ap, &sta), Ok(CipherSuite::BIP_CMAC_128));
        sta.group_mgmt_cipher = Some(CipherSuite::BIP_GMAC_256);
        assert_eq!(
            group_mgmt_cipher(&ap, &sta),
            Err(NegotiationError::GroupMgmtCipher)
        );
        let ap2 = Rsne {
            group_mgmt_cipher: Some(CipherSuite::BIP_GMAC_256),
            ..Rsne::default()
        };
        assert_eq!(group_mgmt_cipher(&ap2, &sta), Ok(CipherSuite::BIP_GMAC_256));
        let ap3 = Rsne {
            group_mgmt_cipher: Some(CipherSuite::CCMP_128),
            ..Rsne::default()
        };
        assert_eq!(
            group_mgmt_cipher(&ap3, &Rsne::default()),
            Err(NegotiationError::UnsupportedCipher)
        );
    }
}
