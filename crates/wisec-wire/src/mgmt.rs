//! Management frames (IEEE Std 802.11-2020, 9.3.3): the fixed fields of each
//! subtype and the elements that follow them.
//!
//! | subtype | fixed fields (9.3.3.x) |
//! |---|---|
//! | Beacon, Probe Response | Timestamp (8), Beacon Interval (2), Capability Information (2) |
//! | Probe Request, ATIM | none |
//! | Authentication | Algorithm (2), Transaction Sequence (2), Status Code (2) |
//! | Association Request | Capability (2), Listen Interval (2) |
//! | Reassociation Request | Capability (2), Listen Interval (2), Current AP Address (6) |
//! | (Re)Association Response | Capability (2), Status Code (2), AID (2) |
//! | Disassociation, Deauthentication | Reason Code (2) |
//! | Action, Action No Ack | Category (1), then action details |
//!
//! All fixed fields are little-endian. In a protected frame (the Protected
//! Frame bit set: a robust frame under CCMP/GCMP) the body is ciphertext and
//! the views give no fixed fields or elements until it is decrypted.

use crate::bytes;
use crate::element::{Elements, Mme, MME_LEN_MIC16, MME_LEN_MIC8};
use crate::frame_control::{mgmt_subtype, FrameControl};
use crate::mac_header::{Header, HeaderRepr};
use crate::{Error, MacAddr, Result};

/// Management frame subtypes (Table 9-1), a closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MgmtSubtype {
    /// Association Request (0).
    AssocRequest,
    /// Association Response (1).
    AssocResponse,
    /// Reassociation Request (2).
    ReassocRequest,
    /// Reassociation Response (3).
    ReassocResponse,
    /// Probe Request (4).
    ProbeRequest,
    /// Probe Response (5).
    ProbeResponse,
    /// Timing Advertisement (6); its fields are not modelled.
    TimingAdvertisement,
    /// Beacon (8).
    Beacon,
    /// ATIM (9).
    Atim,
    /// Disassociation (10).
    Disassociation,
    /// Authentication (11).
    Authentication,
    /// Deauthentication (12).
    Deauthentication,
    /// Action (13).
    Action,
    /// Action No Ack (14).
    ActionNoAck,
    /// A reserved subtype (7, 15).
    Unknown(u8),
}

impl MgmtSubtype {
    /// From the 4-bit subtype value.
    pub const fn from_u8(v: u8) -> MgmtSubtype {
        use mgmt_subtype as s;
        match v & 0xf {
            s::ASSOC_REQ => MgmtSubtype::AssocRequest,
            s::ASSOC_RESP => MgmtSubtype::AssocResponse,
            s::REASSOC_REQ => MgmtSubtype::ReassocRequest,
            s::REASSOC_RESP => MgmtSubtype::ReassocResponse,
            s::PROBE_REQ => MgmtSubtype::ProbeRequest,
            s::PROBE_RESP => MgmtSubtype::ProbeResponse,
            s::TIMING_ADVERTISEMENT => MgmtSubtype::TimingAdvertisement,
            s::BEACON => MgmtSubtype::Beacon,
            s::ATIM => MgmtSubtype::Atim,
            s::DISASSOC => MgmtSubtype::Disassociation,
            s::AUTH => MgmtSubtype::Authentication,
            s::DEAUTH => MgmtSubtype::Deauthentication,
            s::ACTION => MgmtSubtype::Action,
            s::ACTION_NO_ACK => MgmtSubtype::ActionNoAck,
            other => MgmtSubtype::Unknown(other),
        }
    }

    /// The 4-bit subtype value.
    pub const fn to_u8(self) -> u8 {
        use mgmt_subtype as s;
        match self {
            MgmtSubtype::AssocRequest => s::ASSOC_REQ,
            MgmtSubtype::AssocResponse => s::ASSOC_RESP,
            MgmtSubtype::ReassocRequest => s::REASSOC_REQ,
            MgmtSubtype::ReassocResponse => s::REASSOC_RESP,
            MgmtSubtype::ProbeRequest => s::PROBE_REQ,
            MgmtSubtype::ProbeResponse => s::PROBE_RESP,
            MgmtSubtype::TimingAdvertisement => s::TIMING_ADVERTISEMENT,
            MgmtSubtype::Beacon => s::BEACON,
            MgmtSubtype::Atim => s::ATIM,
            MgmtSubtype::Disassociation => s::DISASSOC,
            MgmtSubtype::Authentication => s::AUTH,
            MgmtSubtype::Deauthentication => s::DEAUTH,
            MgmtSubtype::Action => s::ACTION,
            MgmtSubtype::ActionNoAck => s::ACTION_NO_ACK,
            MgmtSubtype::Unknown(v) => v & 0xf,
        }
    }

    /// Length of the fixed fields before the elements (see the module
    /// table); 0 for subtypes whose fields are not modelled.
    pub const fn fixed_len(self) -> usize {
        match self {
            MgmtSubtype::Beacon | MgmtSubtype::ProbeResponse => 12,
            MgmtSubtype::Authentication => 6,
            MgmtSubtype::AssocRequest => 4,
            MgmtSubtype::ReassocRequest => 10,
            MgmtSubtype::AssocResponse | MgmtSubtype::ReassocResponse => 6,
            MgmtSubtype::Disassociation | MgmtSubtype::Deauthentication => 2,
            MgmtSubtype::Action | MgmtSubtype::ActionNoAck => 1,
            _ => 0,
        }
    }
}

/// The Capability Information field (9.4.1.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CapabilityInfo(pub u16);

impl CapabilityInfo {
    /// ESS.
    pub const ESS: u16 = 1 << 0;
    /// IBSS.
    pub const IBSS: u16 = 1 << 1;
    /// Privacy: the BSS requires confidentiality (WEP or RSN).
    pub const PRIVACY: u16 = 1 << 4;
    /// Short Preamble.
    pub const SHORT_PREAMBLE: u16 = 1 << 5;
    /// Spectrum Management.
    pub const SPECTRUM_MGMT: u16 = 1 << 8;
    /// QoS.
    pub const QOS: u16 = 1 << 9;
    /// Short Slot Time.
    pub const SHORT_SLOT_TIME: u16 = 1 << 10;
    /// APSD.
    pub const APSD: u16 = 1 << 11;
    /// Radio Measurement.
    pub const RADIO_MEASUREMENT: u16 = 1 << 12;

    /// True when every bit of `mask` is set.
    pub const fn has(self, mask: u16) -> bool {
        self.0 & mask == mask
    }

    /// ESS bit.
    pub const fn ess(self) -> bool {
        self.has(Self::ESS)
    }

    /// IBSS bit.
    pub const fn ibss(self) -> bool {
        self.has(Self::IBSS)
    }

    /// Privacy bit.
    pub const fn privacy(self) -> bool {
        self.has(Self::PRIVACY)
    }
}

/// Authentication algorithm numbers (9.4.1.1), a closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthAlgorithm {
    /// 0: Open System.
    OpenSystem,
    /// 1: Shared Key (WEP).
    SharedKey,
    /// 2: Fast BSS Transition.
    FastBssTransition,
    /// 3: SAE.
    Sae,
    /// 4: FILS Shared Key authentication without PFS.
    FilsSharedKey,
    /// 5: FILS Shared Key authentication with PFS.
    FilsSharedKeyPfs,
    /// 6: FILS Public Key authentication.
    FilsPublicKey,
    /// 65535: vendor specific.
    VendorSpecific,
    /// Another value.
    Unknown(u16),
}

impl AuthAlgorithm {
    /// From the field value.
    pub const fn from_u16(v: u16) -> AuthAlgorithm {
        match v {
            0 => AuthAlgorithm::OpenSystem,
            1 => AuthAlgorithm::SharedKey,
            2 => AuthAlgorithm::FastBssTransition,
            3 => AuthAlgorithm::Sae,
            4 => AuthAlgorithm::FilsSharedKey,
            5 => AuthAlgorithm::FilsSharedKeyPfs,
            6 => AuthAlgorithm::FilsPublicKey,
            0xffff => AuthAlgorithm::VendorSpecific,
            v => AuthAlgorithm::Unknown(v),
        }
    }

    /// The field value.
    pub const fn to_u16(self) -> u16 {
        match self {
            AuthAlgorithm::OpenSystem => 0,
            AuthAlgorithm::SharedKey => 1,
            AuthAlgorithm::FastBssTransition => 2,
            AuthAlgorithm::Sae => 3,
            AuthAlgorithm::FilsSharedKey => 4,
            AuthAlgorithm::FilsSharedKeyPfs => 5,
            AuthAlgorithm::FilsPublicKey => 6,
            AuthAlgorithm::VendorSpecific => 0xffff,
            AuthAlgorithm::Unknown(v) => v,
        }
    }
}

/// Status codes (9.4.1.9, Table 9-50), an open registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct StatusCode(pub u16);

impl StatusCode {
    /// 0: successful.
    pub const SUCCESS: StatusCode = StatusCode(0);
    /// 1: unspecified failure.
    pub const UNSPECIFIED_FAILURE: StatusCode = StatusCode(1);
    /// 10: cannot support all requested capabilities.
    pub const CAPS_UNSUPPORTED: StatusCode = StatusCode(10);
    /// 11: reassociation denied, no association exists.
    pub const REASSOC_NO_ASSOC: StatusCode = StatusCode(11);
    /// 12: association denied for an unspecified reason.
    pub const ASSOC_DENIED_UNSPEC: StatusCode = StatusCode(12);
    /// 13: authentication algorithm not supported.
    pub const NOT_SUPPORTED_AUTH_ALG: StatusCode = StatusCode(13);
    /// 14: authentication transaction sequence number out of sequence.
    pub const UNKNOWN_AUTH_TRANSACTION: StatusCode = StatusCode(14);
    /// 15: challenge failure.
    pub const CHALLENGE_FAIL: StatusCode = StatusCode(15);
    /// 16: authentication timeout.
    pub const AUTH_TIMEOUT: StatusCode = StatusCode(16);
    /// 17: AP unable to handle additional associated STAs.
    pub const AP_UNABLE_TO_HANDLE_NEW_STA: StatusCode = StatusCode(17);
    /// 18: basic rates not supported.
    pub const ASSOC_DENIED_RATES: StatusCode = StatusCode(18);
    /// 30: association rejected temporarily; try again later.
    pub const ASSOC_REJECTED_TEMPORARILY: StatusCode = StatusCode(30);
    /// 31: robust management frame policy violation.
    pub const ROBUST_MGMT_POLICY_VIOLATION: StatusCode = StatusCode(31);
    /// 40: invalid element.
    pub const INVALID_ELEMENT: StatusCode = StatusCode(40);
    /// 41: invalid group cipher.
    pub const INVALID_GROUP_CIPHER: StatusCode = StatusCode(41);
    /// 42: invalid pairwise cipher.
    pub const INVALID_PAIRWISE_CIPHER: StatusCode = StatusCode(42);
    /// 43: invalid AKMP.
    pub const INVALID_AKMP: StatusCode = StatusCode(43);
    /// 44: unsupported RSNE version.
    pub const UNSUPPORTED_RSNE_VERSION: StatusCode = StatusCode(44);
    /// 45: invalid RSNE capabilities.
    pub const INVALID_RSNE_CAPABILITIES: StatusCode = StatusCode(45);
    /// 46: cipher suite rejected because of security policy.
    pub const CIPHER_OUT_OF_POLICY: StatusCode = StatusCode(46);
    /// 53: invalid PMKID.
    pub const INVALID_PMKID: StatusCode = StatusCode(53);
    /// 76: anti-clogging token required (SAE).
    pub const ANTI_CLOGGING_TOKEN_REQUIRED: StatusCode = StatusCode(76);
    /// 77: finite cyclic group not supported (SAE).
    pub const UNSUPPORTED_FINITE_CYCLIC_GROUP: StatusCode = StatusCode(77);

    /// True for `SUCCESS`.
    pub const fn is_success(self) -> bool {
        self.0 == 0
    }
}

/// Reason codes (9.4.1.7, Table 9-49), an open registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ReasonCode(pub u16);

impl ReasonCode {
    /// 1: unspecified reason.
    pub const UNSPECIFIED: ReasonCode = ReasonCode(1);
    /// 2: previous authentication no longer valid.
    pub const PREV_AUTH_NOT_VALID: ReasonCode = ReasonCode(2);
    /// 3: deauthenticated because the sender is leaving (or has left).
    pub const DEAUTH_LEAVING: ReasonCode = ReasonCode(3);
    /// 4: disassociated due to inactivity.
    pub const DISASSOC_DUE_TO_INACTIVITY: ReasonCode = ReasonCode(4);
    /// 5: disassociated because the AP is unable to handle all STAs.
    pub const DISASSOC_AP_BUSY: ReasonCode = ReasonCode(5);
    /// 6: class 2 frame received from a nonauthenticated STA.
    pub const CLASS2_FRAME_FROM_NONAUTH_STA: ReasonCode = ReasonCode(6);
    /// 7: class 3 frame received from a nonassociated STA.
    pub const CLASS3_FRAME_FROM_NONASSOC_STA: ReasonCode = ReasonCode(7);
    /// 8: disassociated because the sender is leaving the BSS.
    pub const DISASSOC_STA_HAS_LEFT: ReasonCode = ReasonCode(8);
    /// 9: STA requesting (re)association is not authenticated.
    pub const STA_REQ_ASSOC_WITHOUT_AUTH: ReasonCode = ReasonCode(9);
    /// 13: invalid element.
    pub const INVALID_ELEMENT: ReasonCode = ReasonCode(13);
    /// 14: message integrity code (MIC) failure.
    pub const MICHAEL_MIC_FAILURE: ReasonCode = ReasonCode(14);
    /// 15: 4-way handshake timeout.
    pub const FOURWAY_HANDSHAKE_TIMEOUT: ReasonCode = ReasonCode(15);
    /// 16: group key handshake timeout.
    pub const GROUP_KEY_HANDSHAKE_TIMEOUT: ReasonCode = ReasonCode(16);
    /// 17: element in 4-way handshake different from the (Re)Association
    /// Request/Probe Response/Beacon frame.
    pub const ELEMENT_IN_4WAY_DIFFERS: ReasonCode = ReasonCode(17);
    /// 18: invalid group cipher.
    pub const INVALID_GROUP_CIPHER: ReasonCode = ReasonCode(18);
    /// 19: invalid pairwise cipher.
    pub const INVALID_PAIRWISE_CIPHER: ReasonCode = ReasonCode(19);
    /// 20: invalid AKMP.
    pub const INVALID_AKMP: ReasonCode = ReasonCode(20);
    /// 21: unsupported RSNE version.
    pub const UNSUPPORTED_RSNE_VERSION: ReasonCode = ReasonCode(21);
    /// 22: invalid RSNE capabilities.
    pub const INVALID_RSNE_CAPABILITIES: ReasonCode = ReasonCode(22);
    /// 23: IEEE 802.1X authentication failed.
    pub const IEEE8021X_AUTH_FAILED: ReasonCode = ReasonCode(23);
    /// 24: cipher suite rejected because of the security policy.
    pub const CIPHER_SUITE_REJECTED: ReasonCode = ReasonCode(24);
    /// 34: disassociated because of excessive unacknowledged frames.
    pub const DISASSOC_LOW_ACK: ReasonCode = ReasonCode(34);
    /// 36: requesting STA is leaving the BSS (or resetting).
    pub const STA_LEAVING: ReasonCode = ReasonCode(36);
    /// 49: invalid PMKID.
    pub const INVALID_PMKID: ReasonCode = ReasonCode(49);
}

/// Action frame categories (9.4.1.11, Table 9-51), a closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionCategory {
    /// 0: Spectrum management.
    SpectrumManagement,
    /// 1: QoS.
    Qos,
    /// 2: DLS.
    Dls,
    /// 3: Block Ack.
    BlockAck,
    /// 4: Public.
    Public,
    /// 5: Radio Measurement.
    RadioMeasurement,
    /// 6: Fast BSS Transition.
    FastBssTransition,
    /// 7: HT.
    Ht,
    /// 8: SA Query.
    SaQuery,
    /// 9: Protected Dual of Public Action.
    ProtectedDualOfPublic,
    /// 10: WNM.
    Wnm,
    /// 11: Unprotected WNM.
    UnprotectedWnm,
    /// 12: TDLS.
    Tdls,
    /// 13: Mesh.
    Mesh,
    /// 14: Multihop.
    Multihop,
    /// 15: Self-protected.
    SelfProtected,
    /// 16: DMG.
    Dmg,
    /// 18: Fast Session Transfer.
    FastSessionTransfer,
    /// 19: Robust AV Streaming.
    RobustAvStreaming,
    /// 20: Unprotected DMG.
    UnprotectedDmg,
    /// 21: VHT.
    Vht,
    /// 22: Unprotected S1G.
    UnprotectedS1g,
    /// 23: S1G.
    S1g,
    /// 24: Flow Control.
    FlowControl,
    /// 25: Control Response MCS Negotiation.
    ControlResponseMcsNegotiation,
    /// 26: FILS.
    Fils,
    /// 27: CDMG.
    Cdmg,
    /// 28: CMMG.
    Cmmg,
    /// 29: GLK.
    Glk,
    /// 126: Vendor-specific Protected.
    VendorSpecificProtected,
    /// 127: Vendor-specific.
    VendorSpecific,
    /// A reserved value, or an error return (the high bit set, 9.4.1.11).
    Unknown(u8),
}

impl ActionCategory {
    /// From the Category field.
    pub const fn from_u8(v: u8) -> ActionCategory {
        use ActionCategory as C;
        match v {
            0 => C::SpectrumManagement,
            1 => C::Qos,
            2 => C::Dls,
            3 => C::BlockAck,
            4 => C::Public,
            5 => C::RadioMeasurement,
            6 => C::FastBssTransition,
            7 => C::Ht,
            8 => C::SaQuery,
            9 => C::ProtectedDualOfPublic,
            10 => C::Wnm,
            11 => C::UnprotectedWnm,
            12 => C::Tdls,
            13 => C::Mesh,
            14 => C::Multihop,
            15 => C::SelfProtected,
            16 => C::Dmg,
            18 => C::FastSessionTransfer,
            19 => C::RobustAvStreaming,
            20 => C::UnprotectedDmg,
            21 => C::Vht,
            22 => C::UnprotectedS1g,
            23 => C::S1g,
            24 => C::FlowControl,
            25 => C::ControlResponseMcsNegotiation,
            26 => C::Fils,
            27 => C::Cdmg,
            28 => C::Cmmg,
            29 => C::Glk,
            126 => C::VendorSpecificProtected,
            127 => C::VendorSpecific,
            v => C::Unknown(v),
        }
    }

    /// The Category field value.
    pub const fn to_u8(self) -> u8 {
        use ActionCategory as C;
        match self {
            C::SpectrumManagement => 0,
            C::Qos => 1,
            C::Dls => 2,
            C::BlockAck => 3,
            C::Public => 4,
            C::RadioMeasurement => 5,
            C::FastBssTransition => 6,
            C::Ht => 7,
            C::SaQuery => 8,
            C::ProtectedDualOfPublic => 9,
            C::Wnm => 10,
            C::UnprotectedWnm => 11,
            C::Tdls => 12,
            C::Mesh => 13,
            C::Multihop => 14,
            C::SelfProtected => 15,
            C::Dmg => 16,
            C::FastSessionTransfer => 18,
            C::RobustAvStreaming => 19,
            C::UnprotectedDmg => 20,
            C::Vht => 21,
            C::UnprotectedS1g => 22,
            C::S1g => 23,
            C::FlowControl => 24,
            C::ControlResponseMcsNegotiation => 25,
            C::Fils => 26,
            C::Cdmg => 27,
            C::Cmmg => 28,
            C::Glk => 29,
            C::VendorSpecificProtected => 126,
            C::VendorSpecific => 127,
            C::Unknown(v) => v,
        }
    }

    /// True for the categories Table 9-51 marks robust: Action frames of
    /// these categories are protected when management frame protection is
    /// negotiated (12.2.8). An error return (high bit set) is as robust as
    /// the category it returns. Reserved values count as robust, so that a
    /// receiver applying this test drops, rather than accepts, unprotected
    /// frames of categories it does not know.
    pub const fn is_robust(self) -> bool {
        use ActionCategory as C;
        match self {
            C::Public
            | C::Ht
            | C::UnprotectedWnm
            | C::Tdls
            | C::SelfProtected
            | C::UnprotectedDmg
            | C::Vht
            | C::UnprotectedS1g
            | C::Fils
            | C::VendorSpecific => false,
            C::Unknown(v) if v & 0x80 != 0 => ActionCategory::from_u8(v & 0x7f).is_robust(),
            _ => true,
        }
    }
}

mod field {
    pub const TIMESTAMP: usize = 0;
    pub const BEACON_INTERVAL: usize = 8;
    pub const BEACON_CAPABILITY: usize = 10;
    pub const AUTH_ALGORITHM: usize = 0;
    pub const AUTH_SEQ: usize = 2;
    pub const AUTH_STATUS: usize = 4;
    pub const CAPABILITY: usize = 0;
    pub const LISTEN_INTERVAL: usize = 2;
    pub const CURRENT_AP: usize = 4;
    pub const RESP_STATUS: usize = 2;
    pub const AID: usize = 4;
    pub const REASON: usize = 0;
    pub const CATEGORY: usize = 0;
    pub const ACTION: usize = 1;
}

/// A view over a management MMPDU (without FCS).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MgmtFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> MgmtFrame<T> {
    /// Wraps a buffer without checking it; accessors never panic.
    pub const fn new_unchecked(buffer: T) -> MgmtFrame<T> {
        MgmtFrame { buffer }
    }

    /// Wraps a buffer after [`MgmtFrame::check_len`].
    pub fn new_checked(buffer: T) -> Result<MgmtFrame<T>> {
        let f = MgmtFrame::new_unchecked(buffer);
        f.check_len()?;
        Ok(f)
    }

    /// Checks the header, that the frame is a management frame
    /// (`Malformed` otherwise) and, unless it is protected, that the body
    /// holds the subtype's fixed fields.
    pub fn check_len(&self) -> Result<()> {
        let h = Header::new_checked(self.buffer.as_ref())?;
        let fc = h.frame_control();
        if !fc.is_mgmt() {
            return Err(Error::Malformed);
        }
        if !fc.protected() && h.payload().len() < self.subtype().fixed_len() {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The whole frame.
    pub fn as_bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// The MAC header view.
    pub fn header(&self) -> Header<&[u8]> {
        Header::new_unchecked(self.buffer.as_ref())
    }

    /// Frame Control (zero if the buffer is too short).
    pub fn frame_control(&self) -> FrameControl {
        match self.buffer.as_ref() {
            [a, b, ..] => FrameControl::from_bytes([*a, *b]),
            _ => FrameControl(0),
        }
    }

    /// The subtype.
    pub fn subtype(&self) -> MgmtSubtype {
        MgmtSubtype::from_u8(self.frame_control().subtype())
    }

    /// Length of the MAC header (24, or 28 with HT Control).
    pub fn header_len(&self) -> usize {
        crate::mac_header::header_len(self.frame_control())
            .unwrap_or(0)
            .min(self.buffer.as_ref().len())
    }

    /// The frame body.
    pub fn body(&self) -> &[u8] {
        self.buffer.as_ref().get(self.header_len()..).unwrap_or(&[])
    }

    /// The fixed fields of an unprotected frame, `None` when protected.
    fn fixed(&self) -> Option<&[u8]> {
        if self.frame_control().protected() {
            None
        } else {
            self.body().get(..self.subtype().fixed_len())
        }
    }

    fn u16_if(&self, ok: bool, off: usize) -> Option<u16> {
        if ok {
            bytes::u16_le(self.fixed()?, off)
        } else {
            None
        }
    }

    fn is(&self, list: &[MgmtSubtype]) -> bool {
        list.contains(&self.subtype())
    }

    /// The bytes after the fixed fields: elements for most subtypes, the
    /// action details after the Category for Action frames. Empty for a
    /// protected frame.
    pub fn variable(&self) -> &[u8] {
        match self.fixed() {
            Some(f) => self.body().get(f.len()..).unwrap_or(&[]),
            None => &[],
        }
    }

    /// The elements after the fixed fields (not meaningful for Action
    /// frames, whose details are category-specific).
    pub fn elements(&self) -> Elements<'_> {
        Elements::new(self.variable())
    }

    /// Timestamp of a Beacon or Probe Response (µs, 9.4.1.10).
    pub fn timestamp(&self) -> Option<u64> {
        if self.is(&[MgmtSubtype::Beacon, MgmtSubtype::ProbeResponse]) {
            bytes::u64_le(self.fixed()?, field::TIMESTAMP)
        } else {
            None
        }
    }

    /// Beacon Interval in TU (9.4.1.3).
    pub fn beacon_interval(&self) -> Option<u16> {
        let ok = self.is(&[MgmtSubtype::Beacon, MgmtSubtype::ProbeResponse]);
        self.u16_if(ok, field::BEACON_INTERVAL)
    }

    /// Capability Information, in Beacon, Probe Response and
    /// (Re)Association Request/Response frames.
    pub fn capability(&self) -> Option<CapabilityInfo> {
        use MgmtSubtype as S;
        let off = match self.subtype() {
            S::Beacon | S::ProbeResponse => field::BEACON_CAPABILITY,
            S::AssocRequest | S::AssocResponse | S::ReassocRequest | S::ReassocResponse => {
                field::CAPABILITY
            }
            _ => return None,
        };
        self.u16_if(true, off).map(CapabilityInfo)
    }

    /// Listen Interval of a (Re)Association Request (9.4.1.6).
    pub fn listen_interval(&self) -> Option<u16> {
        let ok = self.is(&[MgmtSubtype::AssocRequest, MgmtSubtype::ReassocRequest]);
        self.u16_if(ok, field::LISTEN_INTERVAL)
    }

    /// Current AP Address of a Reassociation Request (9.4.1.5).
    pub fn current_ap(&self) -> Option<MacAddr> {
        if self.subtype() == MgmtSubtype::ReassocRequest {
            MacAddr::from_bytes(self.fixed()?.get(field::CURRENT_AP..)?)
        } else {
            None
        }
    }

    /// Status Code of an Authentication or (Re)Association Response.
    pub fn status_code(&self) -> Option<StatusCode> {
        use MgmtSubtype as S;
        let off = match self.subtype() {
            S::Authentication => field::AUTH_STATUS,
            S::AssocResponse | S::ReassocResponse => field::RESP_STATUS,
            _ => return None,
        };
        self.u16_if(true, off).map(StatusCode)
    }

    /// The AID field of a (Re)Association Response as transmitted (9.4.1.8;
    /// senders set the two high bits, see [`aid_value`]).
    pub fn aid(&self) -> Option<u16> {
        let ok = self.is(&[MgmtSubtype::AssocResponse, MgmtSubtype::ReassocResponse]);
        self.u16_if(ok, field::AID)
    }

    /// Authentication Algorithm Number.
    pub fn auth_algorithm(&self) -> Option<AuthAlgorithm> {
        let ok = self.subtype() == MgmtSubtype::Authentication;
        self.u16_if(ok, field::AUTH_ALGORITHM)
            .map(AuthAlgorithm::from_u16)
    }

    /// Authentication Transaction Sequence Number.
    pub fn auth_seq(&self) -> Option<u16> {
        let ok = self.subtype() == MgmtSubtype::Authentication;
        self.u16_if(ok, field::AUTH_SEQ)
    }

    /// Reason Code of a Deauthentication or Disassociation frame.
    pub fn reason_code(&self) -> Option<ReasonCode> {
        let ok = self.is(&[MgmtSubtype::Deauthentication, MgmtSubtype::Disassociation]);
        self.u16_if(ok, field::REASON).map(ReasonCode)
    }

    /// Category of an Action or Action No Ack frame.
    pub fn category(&self) -> Option<ActionCategory> {
        if self.is(&[MgmtSubtype::Action, MgmtSubtype::ActionNoAck]) {
            bytes::u8_at(self.fixed()?, field::CATEGORY).map(ActionCategory::from_u8)
        } else {
            None
        }
    }

    /// The octet after the Category (the Action field of most categories).
    pub fn action_code(&self) -> Option<u8> {
        self.category()?;
        bytes::u8_at(self.body(), field::ACTION)
    }

    /// True for a robust management frame (12.2.8): Disassociation,
    /// Deauthentication, and Action frames of a robust category. The
    /// category of a protected frame is encrypted, so a protected Action
    /// frame counts as robust.
    pub fn is_robust(&self) -> bool {
        match self.subtype() {
            MgmtSubtype::Disassociation | MgmtSubtype::Deauthentication => true,
            MgmtSubtype::Action | MgmtSubtype::ActionNoAck => {
                self.frame_control().protected()
                    || self.category().is_some_and(ActionCategory::is_robust)
            }
            _ => false,
        }
    }

    /// The Management MIC element that ends a BIP-protected group addressed
    /// frame (12.5.4.5), if the body ends with one (16-octet MIC tried
    /// first, then 8).
    pub fn mme(&self) -> Option<Mme<&[u8]>> {
        let body = self.body();
        [(MME_LEN_MIC16, 24u8), (MME_LEN_MIC8, 16u8)]
            .into_iter()
            .find_map(|(total, len)| {
                let start = body.len().checked_sub(total)?;
                let tail = body.get(start..)?;
                if tail.first() == Some(&76) && tail.get(1) == Some(&len) {
                    Mme::new_checked(tail).ok()
                } else {
                    None
                }
            })
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> MgmtFrame<T> {
    /// The frame body, mutable.
    pub fn body_mut(&mut self) -> &mut [u8] {
        let start = self.header_len();
        self.buffer.as_mut().get_mut(start..).unwrap_or(&mut [])
    }
}

/// The AID value (bits 0..=13) of an AID field.
pub const fn aid_value(field: u16) -> u16 {
    field & 0x3fff
}

/// The fixed fields of Beacon and Probe Response frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BeaconFields {
    /// Timestamp (µs).
    pub timestamp: u64,
    /// Beacon Interval (TU).
    pub beacon_interval: u16,
    /// Capability Information.
    pub capability: CapabilityInfo,
}

/// The fixed fields of a management frame, by subtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MgmtBody {
    /// Beacon.
    Beacon(BeaconFields),
    /// Probe Response.
    ProbeResponse(BeaconFields),
    /// Probe Request (no fixed fields).
    ProbeRequest,
    /// Authentication.
    Authentication {
        /// Algorithm.
        algorithm: AuthAlgorithm,
        /// Transaction sequence number.
        seq: u16,
        /// Status.
        status: StatusCode,
    },
    /// Association Request.
    AssocRequest {
        /// Capability Information.
        capability: CapabilityInfo,
        /// Listen Interval.
        listen_interval: u16,
    },
    /// Association Response.
    AssocResponse {
        /// Capability Information.
        capability: CapabilityInfo,
        /// Status.
        status: StatusCode,
        /// AID field as transmitted.
        aid: u16,
    },
    /// Reassociation Request.
    ReassocRequest {
        /// Capability Information.
        capability: CapabilityInfo,
        /// Listen Interval.
        listen_interval: u16,
        /// Current AP Address.
        current_ap: MacAddr,
    },
    /// Reassociation Response.
    ReassocResponse {
        /// Capability Information.
        capability: CapabilityInfo,
        /// Status.
        status: StatusCode,
        /// AID field as transmitted.
        aid: u16,
    },
    /// Disassociation.
    Disassociation {
        /// Reason.
        reason: ReasonCode,
    },
    /// Deauthentication.
    Deauthentication {
        /// Reason.
        reason: ReasonCode,
    },
    /// Action.
    Action {
        /// Category.
        category: ActionCategory,
    },
    /// Action No Ack.
    ActionNoAck {
        /// Category.
        category: ActionCategory,
    },
    /// A subtype without modelled fixed fields (ATIM, Timing
    /// Advertisement, reserved); the whole body is in `variable`.
    Other,
    /// A protected frame: the whole (encrypted) body is in `variable`.
    Protected,
}

/// An owned management frame: header, fixed fields and the bytes that
/// follow them (elements, or action details).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MgmtFrameRepr<'a> {
    /// The MAC header.
    pub header: HeaderRepr,
    /// The fixed fields.
    pub body: MgmtBody,
    /// Everything after the fixed fields.
    pub variable: &'a [u8],
}

impl<'a> MgmtFrameRepr<'a> {
    /// Parses a checked frame.
    pub fn parse<T: AsRef<[u8]>>(f: &'a MgmtFrame<T>) -> Result<MgmtFrameRepr<'a>> {
        f.check_len()?;
        let header = HeaderRepr::parse(&f.header())?;
        if f.frame_control().protected() {
            return Ok(MgmtFrameRepr {
                header,
                body: MgmtBody::Protected,
                variable: f.body(),
            });
        }
        let t = Truncated;
        let u16f = |off| f.fixed().and_then(|x| bytes::u16_le(x, off)).ok_or(t);
        let beacon = || -> Result<BeaconFields> {
            Ok(BeaconFields {
                timestamp: f.timestamp().ok_or(t)?,
                beacon_interval: f.beacon_interval().ok_or(t)?,
                capability: f.capability().ok_or(t)?,
            })
        };
        use MgmtSubtype as S;
        let body = match f.subtype() {
            S::Beacon => MgmtBody::Beacon(beacon()?),
            S::ProbeResponse => MgmtBody::ProbeResponse(beacon()?),
            S::ProbeRequest => MgmtBody::ProbeRequest,
            S::Authentication => MgmtBody::Authentication {
                algorithm: AuthAlgorithm::from_u16(u16f(field::AUTH_ALGORITHM)?),
                seq: u16f(field::AUTH_SEQ)?,
                status: StatusCode(u16f(field::AUTH_STATUS)?),
            },
            S::AssocRequest => MgmtBody::AssocRequest {
                capability: CapabilityInfo(u16f(field::CAPABILITY)?),
                listen_interval: u16f(field::LISTEN_INTERVAL)?,
            },
            S::ReassocRequest => MgmtBody::ReassocRequest {
                capability: CapabilityInfo(u16f(field::CAPABILITY)?),
                listen_interval: u16f(field::LISTEN_INTERVAL)?,
                current_ap: f.current_ap().ok_or(t)?,
            },
            S::AssocResponse => MgmtBody::AssocResponse {
                capability: CapabilityInfo(u16f(field::CAPABILITY)?),
                status: StatusCode(u16f(field::RESP_STATUS)?),
                aid: u16f(field::AID)?,
            },
            S::ReassocResponse => MgmtBody::ReassocResponse {
                capability: CapabilityInfo(u16f(field::CAPABILITY)?),
                status: StatusCode(u16f(field::RESP_STATUS)?),
                aid: u16f(field::AID)?,
            },
            S::Disassociation => MgmtBody::Disassociation {
                reason: ReasonCode(u16f(field::REASON)?),
            },
            S::Deauthentication => MgmtBody::Deauthentication {
                reason: ReasonCode(u16f(field::REASON)?),
            },
            S::Action => MgmtBody::Action {
                category: f.category().ok_or(t)?,
            },
            S::ActionNoAck => MgmtBody::ActionNoAck {
                category: f.category().ok_or(t)?,
            },
            S::Atim | S::TimingAdvertisement | S::Unknown(_) => MgmtBody::Other,
        };
        Ok(MgmtFrameRepr {
            header,
            body,
            variable: f.variable(),
        })
    }

    fn body_matches(&self) -> bool {
        let fc = self.header.frame_control;
        let st = MgmtSubtype::from_u8(fc.subtype());
        use MgmtSubtype as S;
        match self.body {
            MgmtBody::Protected => fc.protected(),
            _ if fc.protected() => false,
            MgmtBody::Beacon(_) => st == S::Beacon,
            MgmtBody::ProbeResponse(_) => st == S::ProbeResponse,
            MgmtBody::ProbeRequest => st == S::ProbeRequest,
            MgmtBody::Authentication { .. } => st == S::Authentication,
            MgmtBody::AssocRequest { .. } => st == S::AssocRequest,
            MgmtBody::AssocResponse { .. } => st == S::AssocResponse,
            MgmtBody::ReassocRequest { .. } => st == S::ReassocRequest,
            MgmtBody::ReassocResponse { .. } => st == S::ReassocResponse,
            MgmtBody::Disassociation { .. } => st == S::Disassociation,
            MgmtBody::Deauthentication { .. } => st == S::Deauthentication,
            MgmtBody::Action { .. } => st == S::Action,
            MgmtBody::ActionNoAck { .. } => st == S::ActionNoAck,
            MgmtBody::Other => matches!(st, S::Atim | S::TimingAdvertisement | S::Unknown(_)),
        }
    }

    fn fixed_len(&self) -> usize {
        match self.body {
            MgmtBody::Protected | MgmtBody::Other => 0,
            _ => MgmtSubtype::from_u8(self.header.frame_control.subtype()).fixed_len(),
        }
    }

    /// Length of the emitted frame (without FCS); `Malformed` when the
    /// header is not a management header or its subtype (or Protected bit)
    /// disagrees with `body`.
    pub fn buffer_len(&self) -> Result<usize> {
        if !self.header.frame_control.is_mgmt() || !self.body_matches() {
            return Err(Error::Malformed);
        }
        Ok(self.header.buffer_len()? + self.fixed_len() + self.variable.len())
    }

    /// Writes the frame to the start of `buf`, returning its length.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let len = self.buffer_len()?;
        let b = buf.get_mut(..len).ok_or(Error::Truncated)?;
        let h = self.header.emit(b)?;
        let mut fixed = [0u8; 12];
        let put16 = |f: &mut [u8; 12], off: usize, v: u16| {
            f[off..off + 2].copy_from_slice(&v.to_le_bytes());
        };
        match self.body {
            MgmtBody::Beacon(bf) | MgmtBody::ProbeResponse(bf) => {
                fixed[..8].copy_from_slice(&bf.timestamp.to_le_bytes());
                put16(&mut fixed, field::BEACON_INTERVAL, bf.beacon_interval);
                put16(&mut fixed, field::BEACON_CAPABILITY, bf.capability.0);
            }
            MgmtBody::Authentication {
                algorithm,
                seq,
                status,
            } => {
                put16(&mut fixed, field::AUTH_ALGORITHM, algorithm.to_u16());
                put16(&mut fixed, field::AUTH_SEQ, seq);
                put16(&mut fixed, field::AUTH_STATUS, status.0);
            }
            MgmtBody::AssocRequest {
                capability,
                listen_interval,
            } => {
                put16(&mut fixed, field::CAPABILITY, capability.0);
                put16(&mut fixed, field::LISTEN_INTERVAL, listen_interval);
            }
            MgmtBody::ReassocRequest {
                capability,
                listen_interval,
                current_ap,
            } => {
                put16(&mut fixed, field::CAPABILITY, capability.0);
                put16(&mut fixed, field::LISTEN_INTERVAL, listen_interval);
                fixed[field::CURRENT_AP..field::CURRENT_AP + 6].copy_from_slice(&current_ap.0);
            }
            MgmtBody::AssocResponse {
                capability,
                status,
                aid,
            }
            | MgmtBody::ReassocResponse {
                capability,
                status,
                aid,
            } => {
                put16(&mut fixed, field::CAPABILITY, capability.0);
                put16(&mut fixed, field::RESP_STATUS, status.0);
                put16(&mut fixed, field::AID, aid);
            }
            MgmtBody::Disassociation { reason } | MgmtBody::Deauthentication { reason } => {
                put16(&mut fixed, field::REASON, reason.0);
            }
            MgmtBody::Action { category } | MgmtBody::ActionNoAck { category } => {
                fixed[field::CATEGORY] = category.to_u8();
            }
            MgmtBody::ProbeRequest | MgmtBody::Other | MgmtBody::Protected => {}
        }
        let fl = self.fixed_len();
        let o = bytes::put(b, h, fixed.get(..fl).ok_or(Error::Malformed)?)?;
        bytes::put(b, o, self.variable)?;
        Ok(len)
    }
}

use Error::Truncated;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::{Akm, CipherSuite, ElementId, ElementWriter, MmeRepr};
    use crate::frame_control::FrameType;

    fn mgmt_header(subtype: u8, a1: [u8; 6], a2: [u8; 6], a3: [u8; 6]) -> HeaderRepr {
        HeaderRepr {
            frame_control: FrameControl::new(FrameType::Management, subtype),
            duration: 0,
            addr1: MacAddr(a1),
            addr2: Some(MacAddr(a2)),
            addr3: Some(MacAddr(a3)),
            sequence_control: Some(0),
            addr4: None,
            qos_control: None,
            ht_control: None,
        }
    }

    #[test]
    fn deauth_from_vectors() {
        // IEEE 802.11-2012 M.9.2 (ccmp128_M92_mgmt_input): unicast deauth,
        // reason 2.
        let b = hex::decode("c000000002000000010002000000000002000000000060000200").unwrap();
        let f = MgmtFrame::new_checked(&b[..]).unwrap();
        assert_eq!(f.subtype(), MgmtSubtype::Deauthentication);
        assert_eq!(f.reason_code(), Some(ReasonCode::PREV_AUTH_NOT_VALID));
        assert!(f.is_robust());
        assert_eq!(f.mme().map(|m| m.key_id()), None);
        assert_eq!(f.status_code(), None);
        assert_eq!(f.capability(), None);
        assert_eq!(f.header().sequence_control(), Some(0x0060));
        let r = MgmtFrameRepr::parse(&f).unwrap();
        assert_eq!(
            r.body,
            MgmtBody::Deauthentication {
                reason: ReasonCode(2)
            }
        );
        let mut out = [0u8; 64];
        let n = r.emit(&mut out).unwrap();
        assert_eq!(&out[..n], &b[..]);
        // Cut the reason code: truncated.
        assert_eq!(
            MgmtFrame::new_checked(&b[..25]).unwrap_err(),
            Error::Truncated
        );

        // IEEE 802.11-2012 M.9.1 (bip_cmac128_M91): broadcast deauth + MME.
        let p = hex::decode(
            "c0000000ffffffffffff020000000000020000000000090002004c10040004000000000048dfbfa7b8278872",
        )
        .unwrap();
        let f = MgmtFrame::new_checked(&p[..]).unwrap();
        assert!(f.header().addr1().is_broadcast());
        let m = f.mme().unwrap();
        assert_eq!((m.key_id(), m.ipn()), (4, 4));
        assert_eq!(m.mic(), &hex::decode("48dfbfa7b8278872").unwrap()[..]);
        let mut e = f.elements();
        assert_eq!(e.next().unwrap().unwrap().id, 76);
        assert!(e.next().is_none());
        // BIP-GMAC-128 (P802.11ac M.9.1): the 16-octet MIC form.
        let g = hex::decode("c0000000ffffffffffff020000000000020000000000090002004c1804000400000000003ed862fb0f3338dd3386c897e2ed053d").unwrap();
        let f = MgmtFrame::new_checked(&g[..]).unwrap();
        assert_eq!(f.mme().unwrap().mic().len(), 16);
        // Corrupt the MME length: no MME found.
        let mut bad = g.clone();
        bad[27] = 0x17;
        assert!(MgmtFrame::new_checked(&bad[..]).unwrap().mme().is_none());
    }

    #[test]
    fn beacon_with_rsne_built_and_reparsed() {
        let mut elems = [0u8; 128];
        let mut w = ElementWriter::new(&mut elems);
        w.push(ElementId::SSID, b"lab").unwrap();
        w.push(ElementId::SUPPORTED_RATES, &[0x82, 0x84, 0x8b, 0x96])
            .unwrap();
        w.push(ElementId::DSSS_PARAMETER_SET, &[1]).unwrap();
        w.push(
            ElementId::RSN,
            &[
                1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 4, 1, 0, 0, 0x0f, 0xac, 8, 0xc0, 0,
            ],
        )
        .unwrap();
        let elems = w.finish();
        let r = MgmtFrameRepr {
            header: mgmt_header(
                mgmt_subtype::BEACON,
                [0xff; 6],
                [2, 0, 0, 0, 0, 1],
                [2, 0, 0, 0, 0, 1],
            ),
            body: MgmtBody::Beacon(BeaconFields {
                timestamp: 0x0102_0304_0506_0708,
                beacon_interval: 100,
                capability: CapabilityInfo(CapabilityInfo::ESS | CapabilityInfo::PRIVACY),
            }),
            variable: elems,
        };
        let mut out = [0u8; 256];
        let n = r.emit(&mut out).unwrap();
        // Layout check, by hand: 24-byte header, timestamp LE, interval
        // 100 = 64 00, capability 0x0011 = 11 00, then the SSID element.
        assert_eq!(&out[..2], &[0x80, 0x00]);
        assert_eq!(&out[24..32], &[8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(&out[32..36], &[0x64, 0x00, 0x11, 0x00]);
        assert_eq!(&out[36..41], &[0, 3, b'l', b'a', b'b']);
        let f = MgmtFrame::new_checked(&out[..n]).unwrap();
        assert_eq!(f.timestamp(), Some(0x0102_0304_0506_0708));
        assert_eq!(f.beacon_interval(), Some(100));
        let cap = f.capability().unwrap();
        assert!(cap.ess() && cap.privacy() && !cap.ibss());
        assert_eq!(f.elements().ssid(), Some(&b"lab"[..]));
        let rsne = f.elements().rsne().unwrap().unwrap();
        assert!(rsne.akms.unwrap().contains(Akm::SAE));
        assert_eq!(rsne.pairwise.unwrap().first(), Some(CipherSuite::CCMP_128));
        assert!(rsne.capabilities.unwrap().mfpr());
        assert!(!f.is_robust());
        assert_eq!(MgmtFrameRepr::parse(&f), Ok(r));
        // The fixed fields cut: truncated.
        assert_eq!(
            MgmtFrame::new_checked(&out[..35]).unwrap_err(),
            Error::Truncated
        );
        // A subtype disagreeing with the body.
        let mut wrong = r;
        wrong
            .header
            .frame_control
            .set_subtype(mgmt_subtype::PROBE_REQ);
        assert_eq!(wrong.buffer_len(), Err(Error::Malformed));
    }

    #[test]
    fn association_and_authentication_fields() {
        let ap = [2, 0, 0, 0, 0, 1];
        let sta = [2, 0, 0, 0, 0, 2];
        let cases = [
            (
                mgmt_subtype::AUTH,
                MgmtBody::Authentication {
                    algorithm: AuthAlgorithm::Sae,
                    seq: 1,
                    status: StatusCode::SUCCESS,
                },
                &[3u8, 0, 1, 0, 0, 0][..],
            ),
            (
                mgmt_subtype::ASSOC_REQ,
                MgmtBody::AssocRequest {
                    capability: CapabilityInfo(0x0431),
                    listen_interval: 10,
                },
                &[0x31, 0x04, 10, 0][..],
            ),
            (
                mgmt_subtype::ASSOC_RESP,
                MgmtBody::AssocResponse {
                    capability: CapabilityInfo(0x0411),
                    status: StatusCode::SUCCESS,
                    aid: 0xc001,
                },
                &[0x11, 0x04, 0, 0, 0x01, 0xc0][..],
            ),
            (
                mgmt_subtype::REASSOC_REQ,
                MgmtBody::ReassocRequest {
                    capability: CapabilityInfo(0x0011),
                    listen_interval: 3,
                    current_ap: MacAddr([2, 0, 0, 0, 0, 9]),
                },
                &[0x11, 0, 3, 0, 2, 0, 0, 0, 0, 9][..],
            ),
            (
                mgmt_subtype::REASSOC_RESP,
                MgmtBody::ReassocResponse {
                    capability: CapabilityInfo(0x0011),
                    status: StatusCode::INVALID_PMKID,
                    aid: 0,
                },
                &[0x11, 0, 53, 0, 0, 0][..],
            ),
            (
                mgmt_subtype::DISASSOC,
                MgmtBody::Disassociation {
                    reason: ReasonCode::DISASSOC_STA_HAS_LEFT,
                },
                &[8, 0][..],
            ),
            (
                mgmt_subtype::ACTION,
                MgmtBody::Action {
                    category: ActionCategory::SaQuery,
                },
                &[8][..],
            ),
            (mgmt_subtype::PROBE_REQ, MgmtBody::ProbeRequest, &[][..]),
        ];
        let tail = [0u8, 1, b'x'];
        for (st, body, fixed) in cases {
            let r = MgmtFrameRepr {
                header: mgmt_header(st, ap, sta, ap),
                body,
                variable: &tail,
            };
            let mut out = [0u8; 64];
            let n = r.emit(&mut out).unwrap();
            assert_eq!(&out[24..24 + fixed.len()], fixed, "{body:?}");
            assert_eq!(&out[24 + fixed.len()..n], &tail);
            let f = MgmtFrame::new_checked(&out[..n]).unwrap();
            assert_eq!(MgmtFrameRepr::parse(&f), Ok(r));
            match body {
                MgmtBody::Authentication { .. } => {
                    assert_eq!(f.auth_algorithm(), Some(AuthAlgorithm::Sae));
                    assert_eq!(f.auth_seq(), Some(1));
                    assert_eq!(f.status_code(), Some(StatusCode::SUCCESS));
                }
                MgmtBody::AssocResponse { .. } => {
                    assert_eq!(f.aid().map(aid_value), Some(1));
                    assert!(f.status_code().unwrap().is_success());
                }
                MgmtBody::ReassocRequest { .. } => {
                    assert_eq!(f.current_ap(), Some(MacAddr([2, 0, 0, 0, 0, 9])));
                    assert_eq!(f.listen_interval(), Some(3));
                }
                MgmtBody::Action { .. } => {
                    assert_eq!(f.category(), Some(ActionCategory::SaQuery));
                    assert_eq!(f.action_code(), Some(0));
                    assert!(f.is_robust());
                }
                _ => {}
            }
            // Every shorter cut of the fixed fields is truncated.
            for cut in 24..24 + fixed.len() {
                assert_eq!(
                    MgmtFrame::new_checked(&out[..cut]).unwrap_err(),
                    Error::Truncated
                );
            }
        }
    }

    #[test]
    fn protected_frames_hide_fields() {
        let b = hex::decode("c000000002000000010002000000000002000000000060000200").unwrap();
        let mut p = b.clone();
        p[1] |= 0x40;
        let f = MgmtFrame::new_checked(&p[..]).unwrap();
        assert_eq!(f.reason_code(), None);
        assert!(f.elements().next().is_none());
        let r = MgmtFrameRepr::parse(&f).unwrap();
        assert_eq!(r.body, MgmtBody::Protected);
        assert_eq!(r.variable, &[2, 0]);
        let mut out = [0u8; 32];
        let n = r.emit(&mut out).unwrap();
        assert_eq!(&out[..n], &p[..]);
        // A protected action frame counts as robust.
        let mut a = p.clone();
        a[0] = 0xd0;
        assert!(MgmtFrame::new_checked(&a[..]).unwrap().is_robust());
        let mme = MmeRepr {
            key_id: 4,
            ipn: 1,
            mic: &[0; 8],
        };
        assert_eq!(mme.buffer_len(), 18);
    }

    #[test]
    fn robust_categories() {
        use ActionCategory as C;
        for c in [
            C::SpectrumManagement,
            C::Qos,
            C::BlockAck,
            C::RadioMeasurement,
            C::FastBssTransition,
            C::SaQuery,
            C::ProtectedDualOfPublic,
            C::Wnm,
            C::Mesh,
            C::Multihop,
            C::VendorSpecificProtected,
        ] {
            assert!(c.is_robust(), "{c:?}");
        }
        for c in [
            C::Public,
            C::Ht,
            C::UnprotectedWnm,
            C::Tdls,
            C::SelfProtected,
            C::UnprotectedDmg,
            C::Vht,
            C::Fils,
            C::VendorSpecific,
        ] {
            assert!(!c.is_robust(), "{c:?}");
        }
        // Error returns inherit the category's robustness.
        assert!(ActionCategory::from_u8(0x88).is_robust());
        assert!(!ActionCategory::from_u8(0x84).is_robust());
        for v in 0..=255u8 {
            assert_eq!(ActionCategory::from_u8(v).to_u8(), v);
        }
        for v in 0..16u8 {
            assert_eq!(MgmtSubtype::from_u8(v).to_u8(), v);
        }
        for v in [0u16, 1, 2, 3, 4, 5, 6, 7, 0xffff] {
            assert_eq!(AuthAlgorithm::from_u16(v).to_u16(), v);
        }
    }
}
