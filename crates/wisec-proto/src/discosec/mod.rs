//! DiscoSec (seed 003): a one-round-trip ECDH key exchange carried in
//! information elements, AES-CMAC authentication of management (and
//! optionally data) frames, a 32-bit SEQ replay window and association
//! tokens against authentication floods, as sans-I/O state machines for
//! the access point ([`Ap`]) and the station ([`Sta`]).
//!
//! The byte layout of every element is documented in
//! [`wisec_wire::discosec`]; the MAC inputs of `full_auth` and `fast_auth`
//! in [`session`]; the key derivation in [`keys`]; the token sets in
//! [`tokens`].
//!
//! # The exchange
//!
//! ```text
//! AP  -> *   : Beacon / Probe Response { PK_AP, EC_Param, Θ_t + counter }
//! STA -> AP  : Authentication(1) { PK_STA, AT, SEQ, MAC_SK }
//! AP  -> STA : Authentication(2) { SEQ, MAC_SK }
//! STA -> AP  : Association Request { SEQ, MAC_SK }
//! AP  -> STA : Association Response { SEQ, MAC_SK }
//! either     : Deauthentication / Disassociation { SEQ, MAC_SK }
//! ```
//!
//! MK = ECDH(PK_AP, PK_STA); SK = low 128 bits of SHA-256(MK ‖ AT).
//!
//! # Which frames are authenticated
//!
//! The bold marks of the paper's Table 1 did not survive in the seed; the
//! text (section 2.1) says that after the key exchange "all subsequent
//! unicast frames" are provably from the two peers. wisec authenticates
//! every frame sent once SK exists: Authentication (both transactions),
//! (Re)Association Request and Response, Disassociation,
//! Deauthentication, and, through [`Ap::seal_data`] / [`Sta::seal_data`],
//! data frames. Beacons, probes and ATIM cannot be: no key exists yet.
//!
//! # Choices where the paper is silent
//!
//! * Curves: P-256 (default), P-224, P-384. The paper's 128-bit curve
//!   (about 64-bit security) is below any modern security level and is not
//!   offered.
//! * A received authenticated frame with a missing trailer
//!   ([`Error::LegacyFrame`]), a bad tag ([`Error::BadMac`]) or a SEQ
//!   outside the window ([`Error::SeqOutOfWindow`]) is dropped with that
//!   reason and changes nothing.
//! * Legacy stations (no DiscoSec elements): with DoS protection off they
//!   authenticate and associate as if DiscoSec were absent (their frames
//!   are not authenticated); with it on they are refused, as the paper
//!   says: "only stations supporting the token mechanism can associate". A
//!   frame without DiscoSec elements never acts on a station that has a
//!   DiscoSec session.
//! * With DoS protection on, the AP checks the token before any ECDH and
//!   answers no request it could not verify (no reflection). With it off
//!   the AP performs the ECDH for every request, as the unprotected scheme
//!   does; the token is then still required to be fresh (an unused token of
//!   Θ_{t-1} or Θ_t) when a request would replace a live session, so that a
//!   replayed old authentication request cannot bring back an old SK.
//! * A request that would replace a live session must come from the same
//!   PK_STA: an attacker's own key pair cannot take over a station's
//!   address while its session lives (anonymous DH binds the link-layer
//!   address for the session, section 2).
#![deny(missing_docs)]

mod ap;
mod frames;
pub mod keys;
pub mod session;
mod sta;
pub mod tokens;

pub use ap::{Ap, ApConfig, ApEvent, ApStats, StaInfo};
pub use frames::{Ssid, MAX_FRAME};
pub use keys::{Curve, KeyPair, MasterKey, PublicPoint, SessionKey};
pub use session::{SeqWindow, Session, Verified, DEFAULT_WINDOW};
pub use sta::{Sta, StaConfig, StaEvent, StaState, StaStats};
pub use tokens::ObservedTokens;
pub use wisec_wire::discosec::AuthMode;

use core::fmt;
use wisec_wire::{ReasonCode, StatusCode};

/// What a peer (or a forger) did wrong, or why a local request failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Error {
    /// A frame or element that does not parse.
    Malformed(wisec_wire::Error),
    /// The frame is not addressed to this node (or not in this BSS).
    NotForUs,
    /// A frame DiscoSec does not expect here (subtype, transaction,
    /// algorithm, state).
    UnexpectedFrame,
    /// A DiscoSec request lacks PK_STA, AT, SEQ or MAC.
    MissingElement,
    /// A frame without DiscoSec elements where DiscoSec is required.
    LegacyFrame,
    /// A public key that is not a valid point of its curve.
    BadPoint,
    /// A public key of another curve than the AP's.
    CurveMismatch,
    /// EC_Param names a group DiscoSec does not offer.
    UnsupportedGroup,
    /// A secret scalar or key of the wrong form (local configuration).
    InvalidKey,
    /// The AES-CMAC tag did not verify.
    BadMac,
    /// The MAC element's mode is not the session's.
    WrongMode,
    /// SEQ outside seq_prev < seq < seq_prev + window + 1.
    SeqOutOfWindow,
    /// The local SEQ counter is exhausted: the session must be re-keyed.
    SeqExhausted,
    /// AT is in no token set the AP knows.
    UnknownToken,
    /// AT was already redeemed.
    ReusedToken,
    /// AT belongs to another interval than the one being accepted.
    TokenWrongInterval,
    /// A request to replace a live session with another PK_STA.
    KeyMismatch,
    /// A class 2 frame from a station that is not authenticated.
    NotAuthenticated,
    /// The station table is full.
    TableFull,
    /// An output buffer or queue is too small.
    BufferTooSmall,
}

impl Error {
    /// The 802.11 reason code that describes this error (Table 9-49), for
    /// a Deauthentication or Disassociation sent because of it.
    pub fn reason_code(&self) -> ReasonCode {
        match self {
            Error::Malformed(_)
            | Error::MissingElement
            | Error::BadPoint
            | Error::CurveMismatch
            | Error::UnsupportedGroup => ReasonCode::INVALID_ELEMENT,
            Error::NotAuthenticated | Error::LegacyFrame => {
                ReasonCode::CLASS2_FRAME_FROM_NONAUTH_STA
            }
            Error::TableFull
            | Error::UnknownToken
            | Error::ReusedToken
            | Error::TokenWrongInterval => ReasonCode::DISASSOC_AP_BUSY,
            Error::BadMac | Error::WrongMode | Error::KeyMismatch => {
                ReasonCode::PREV_AUTH_NOT_VALID
            }
            _ => ReasonCode::UNSPECIFIED,
        }
    }

    /// The 802.11 status code that describes this error (Table 9-50), for
    /// an Authentication or Association Response refusing a request.
    pub fn status_code(&self) -> StatusCode {
        match self {
            Error::Malformed(_) | Error::MissingElement | Error::BadPoint => {
                StatusCode::INVALID_ELEMENT
            }
            Error::CurveMismatch | Error::UnsupportedGroup => {
                StatusCode::UNSUPPORTED_FINITE_CYCLIC_GROUP
            }
            Error::LegacyFrame
            | Error::UnknownToken
            | Error::ReusedToken
            | Error::TokenWrongInterval => StatusCode::ANTI_CLOGGING_TOKEN_REQUIRED,
            Error::BadMac | Error::WrongMode | Error::KeyMismatch => StatusCode::CHALLENGE_FAIL,
            Error::TableFull => StatusCode::AP_UNABLE_TO_HANDLE_NEW_STA,
            Error::NotAuthenticated => StatusCode::UNKNOWN_AUTH_TRANSACTION,
            _ => StatusCode::UNSPECIFIED_FAILURE,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Error::Malformed(e) => return write!(f, "malformed frame or element ({e})"),
            Error::NotForUs => "frame not addressed to this node",
            Error::UnexpectedFrame => "frame not expected in this state",
            Error::MissingElement => "DiscoSec element missing",
            Error::LegacyFrame => "frame without DiscoSec authentication",
            Error::BadPoint => "public key is not a valid curve point",
            Error::CurveMismatch => "public key of another curve",
            Error::UnsupportedGroup => "elliptic curve group not offered",
            Error::InvalidKey => "invalid key",
            Error::BadMac => "MAC did not verify",
            Error::WrongMode => "authentication mode differs from the session's",
            Error::SeqOutOfWindow => "SEQ outside the replay window",
            Error::SeqExhausted => "SEQ counter exhausted",
            Error::UnknownToken => "unknown association token",
            Error::ReusedToken => "association token already used",
            Error::TokenWrongInterval => "association token from the wrong interval",
            Error::KeyMismatch => "request to replace a session with another key",
            Error::NotAuthenticated => "station not authenticated",
            Error::TableFull => "station table full",
            Error::BufferTooSmall => "buffer too small",
        };
        f.write_str(s)
    }
}

impl core::error::Error for Error {}

impl From<wisec_wire::Error> for Error {
    fn from(e: wisec_wire::Error) -> Error {
        Error::Malformed(e)
    }
}
