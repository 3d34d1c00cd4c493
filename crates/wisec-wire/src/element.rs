//! Elements (IEEE Std 802.11-2020, 9.4.2): the ID/Length/Data triples that
//! follow the fixed fields of management frames and fill EAPOL-Key data.
//!
//! [`Elements`] walks a buffer of elements and never panics: on a truncated
//! element it yields one `Err` item and stops, and [`Elements::error`] tells
//! afterwards whether the walk ended early. Typed access: SSID, (Extended)
//! Supported Rates, the RSNE ([`Rsne`], parse and emit), vendor-specific
//! elements ([`VendorElement`]) including the WPA element ([`WpaElement`]),
//! and the Management MIC element ([`Mme`]).

use crate::bytes;
use crate::{Error, Result};

/// Element IDs (Table 9-92), an open registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ElementId(pub u8);

impl ElementId {
    /// SSID (9.4.2.2).
    pub const SSID: ElementId = ElementId(0);
    /// Supported Rates and BSS Membership Selectors (9.4.2.3).
    pub const SUPPORTED_RATES: ElementId = ElementId(1);
    /// DSSS Parameter Set (9.4.2.4).
    pub const DSSS_PARAMETER_SET: ElementId = ElementId(3);
    /// TIM (9.4.2.5).
    pub const TIM: ElementId = ElementId(5);
    /// IBSS Parameter Set (9.4.2.7): the ATIM Window of an IBSS.
    pub const IBSS_PARAMETER_SET: ElementId = ElementId(6);
    /// Country (9.4.2.8).
    pub const COUNTRY: ElementId = ElementId(7);
    /// BSS Load (9.4.2.26).
    pub const BSS_LOAD: ElementId = ElementId(11);
    /// Challenge text (9.4.2.8 of shared key authentication).
    pub const CHALLENGE_TEXT: ElementId = ElementId(16);
    /// Power Constraint.
    pub const POWER_CONSTRAINT: ElementId = ElementId(32);
    /// HT Capabilities (9.4.2.55).
    pub const HT_CAPABILITIES: ElementId = ElementId(45);
    /// RSN element (9.4.2.24).
    pub const RSN: ElementId = ElementId(48);
    /// Extended Supported Rates and BSS Membership Selectors (9.4.2.12).
    pub const EXTENDED_SUPPORTED_RATES: ElementId = ElementId(50);
    /// Mobility Domain (9.4.2.46).
    pub const MOBILITY_DOMAIN: ElementId = ElementId(54);
    /// Fast BSS Transition (9.4.2.47).
    pub const FAST_BSS_TRANSITION: ElementId = ElementId(55);
    /// Timeout Interval (9.4.2.48).
    pub const TIMEOUT_INTERVAL: ElementId = ElementId(56);
    /// HT Operation (9.4.2.56).
    pub const HT_OPERATION: ElementId = ElementId(61);
    /// Management MIC element (9.4.2.53).
    pub const MANAGEMENT_MIC: ElementId = ElementId(76);
    /// Extended Capabilities (9.4.2.26).
    pub const EXTENDED_CAPABILITIES: ElementId = ElementId(127);
    /// VHT Capabilities (9.4.2.157).
    pub const VHT_CAPABILITIES: ElementId = ElementId(191);
    /// VHT Operation (9.4.2.158).
    pub const VHT_OPERATION: ElementId = ElementId(192);
    /// RSN Extension element (9.4.2.241).
    pub const RSNX: ElementId = ElementId(244);
    /// Vendor Specific (9.4.2.25).
    pub const VENDOR_SPECIFIC: ElementId = ElementId(221);
    /// Element ID Extension: the first data octet is the extension ID.
    pub const EXTENSION: ElementId = ElementId(255);
}

/// The IEEE 802.11 OUI of cipher and AKM suite selectors.
pub const OUI_IEEE80211: [u8; 3] = [0x00, 0x0f, 0xac];
/// The Microsoft OUI of the WPA (pre-RSN) element and its selectors.
pub const OUI_MICROSOFT: [u8; 3] = [0x00, 0x50, 0xf2];
/// The Wi-Fi Alliance OUI.
pub const OUI_WFA: [u8; 3] = [0x50, 0x6f, 0x9a];

/// One element: its ID and the data after the Length octet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Element<'a> {
    /// Element ID.
    pub id: u8,
    /// The `Length` octets of data.
    pub data: &'a [u8],
}

impl<'a> Element<'a> {
    /// The Element ID Extension of an extension element (ID 255).
    pub fn ext_id(&self) -> Option<u8> {
        if self.id == ElementId::EXTENSION.0 {
            self.data.first().copied()
        } else {
            None
        }
    }

    /// The data of an extension element after its extension ID; the whole
    /// data for other elements.
    pub fn ext_data(&self) -> &'a [u8] {
        if self.id == ElementId::EXTENSION.0 {
            self.data.get(1..).unwrap_or(&[])
        } else {
            self.data
        }
    }

    /// Length of the element on the wire.
    pub fn buffer_len(&self) -> usize {
        2 + self.data.len()
    }

    /// Writes the element; `Malformed` if the data exceeds 255 octets.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let len = u8::try_from(self.data.len()).map_err(|_| Error::Malformed)?;
        let end = bytes::put(buf, 0, &[self.id, len])?;
        bytes::put(buf, end, self.data)
    }
}

/// An iterator over the elements in a buffer.
#[derive(Debug, Clone)]
pub struct Elements<'a> {
    rest: &'a [u8],
    error: Option<Error>,
}

impl<'a> Elements<'a> {
    /// Walks `buf`, which should hold whole elements back to back.
    pub const fn new(buf: &'a [u8]) -> Elements<'a> {
        Elements {
            rest: buf,
            error: None,
        }
    }

    /// The error that ended the walk early, if any.
    pub fn error(&self) -> Option<Error> {
        self.error
    }

    /// The bytes not yet walked.
    pub fn remaining(&self) -> &'a [u8] {
        self.rest
    }

    /// Walks everything, returning the first error.
    pub fn validate(self) -> Result<()> {
        for e in self {
            e?;
        }
        Ok(())
    }

    /// The first element with this ID (stops at a truncated element).
    pub fn find_id(self, id: ElementId) -> Option<Element<'a>> {
        self.map_while(|e| e.ok()).find(|e| e.id == id.0)
    }

    /// The first extension element with this extension ID.
    pub fn find_ext(self, ext_id: u8) -> Option<Element<'a>> {
        self.map_while(|e| e.ok())
            .find(|e| e.ext_id() == Some(ext_id))
    }

    /// The SSID, if present and at most 32 octets.
    pub fn ssid(self) -> Option<&'a [u8]> {
        self.find_id(ElementId::SSID)
            .and_then(|e| ssid(e.data).ok())
    }

    /// The first RSNE, parsed.
    pub fn rsne(self) -> Option<Result<Rsne<'a>>> {
        self.find_id(ElementId::RSN).map(|e| Rsne::parse(e.data))
    }

    /// The first WPA (vendor 00-50-F2 type 1) element, parsed.
    pub fn wpa(self) -> Option<Result<WpaElement<'a>>> {
        self.map_while(|e| e.ok())
            .filter_map(|e| VendorElement::from_element(e).ok())
            .find(|v| v.oui == OUI_MICROSOFT && v.vendor_type() == Some(WpaElement::VENDOR_TYPE))
            .map(|v| WpaElement::parse(v.data.get(1..).unwrap_or(&[])))
    }

    /// Every rate of the Supported Rates and Extended Supported Rates
    /// elements, in order.
    pub fn rates(self) -> impl Iterator<Item = Rate> + 'a {
        self.map_while(|e| e.ok())
            .filter(|e| {
                e.id == ElementId::SUPPORTED_RATES.0
                    || e.id == ElementId::EXTENDED_SUPPORTED_RATES.0
            })
            .flat_map(|e| e.data.iter().map(|&r| Rate(r)))
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = Result<Element<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() || self.error.is_some() {
            return None;
        }
        let fail = |s: &mut Self, e: Error| {
            s.rest = &[];
            s.error = Some(e);
            Some(Err(e))
        };
        let (id, len) = match self.rest {
            [id, len, ..] => (*id, usize::from(*len)),
            _ => return fail(self, Error::Truncated),
        };
        let Some(data) = self.rest.get(2..2 + len) else {
            return fail(self, Error::Truncated);
        };
        // 9.4.2.1: an element with ID 255 carries the Element ID Extension
        // in its first data octet, so it cannot be empty.
        if id == ElementId::EXTENSION.0 && data.is_empty() {
            return fail(self, Error::Malformed);
        }
        self.rest = self.rest.get(2 + len..).unwrap_or(&[]);
        Some(Ok(Element { id, data }))
    }
}

impl core::iter::FusedIterator for Elements<'_> {}

/// Writes elements one after another into a buffer.
#[derive(Debug)]
pub struct ElementWriter<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl<'b> ElementWriter<'b> {
    /// Starts writing at the beginning of `buf`.
    pub fn new(buf: &'b mut [u8]) -> ElementWriter<'b> {
        ElementWriter { buf, len: 0 }
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends an element with this ID and data.
    pub fn push(&mut self, id: ElementId, data: &[u8]) -> Result<&mut Self> {
        self.push_with(|b| Element { id: id.0, data }.emit(b))
    }

    /// Appends an extension element (ID 255) with this extension ID.
    pub fn push_ext(&mut self, ext_id: u8, data: &[u8]) -> Result<&mut Self> {
        let len = data
            .len()
            .checked_add(1)
            .and_then(|l| u8::try_from(l).ok())
            .ok_or(Error::Malformed)?;
        self.push_with(|b| {
            let o = bytes::put(b, 0, &[ElementId::EXTENSION.0, len, ext_id])?;
            bytes::put(b, o, data)
        })
    }

    /// Appends whatever `emit` writes to the start of the free space; it
    /// returns the number of bytes written.
    pub fn push_with(
        &mut self,
        emit: impl FnOnce(&mut [u8]) -> Result<usize>,
    ) -> Result<&mut Self> {
        let free = self.buf.get_mut(self.len..).ok_or(Error::Truncated)?;
        let n = emit(free)?;
        self.len += n;
        Ok(self)
    }

    /// The written bytes.
    pub fn finish(self) -> &'b mut [u8] {
        let len = self.len;
        let buf = self.buf;
        buf.get_mut(..len).unwrap_or(&mut [])
    }
}

/// Checks an SSID element body: 0..=32 octets (9.4.2.2).
pub fn ssid(data: &[u8]) -> Result<&[u8]> {
    if data.len() > 32 {
        Err(Error::Malformed)
    } else {
        Ok(data)
    }
}

/// One octet of a (Extended) Supported Rates element (9.4.2.3): bit 7
/// marks a basic rate (or a BSS membership selector), bits 0..=6 give the
/// rate in units of 500 kb/s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rate(pub u8);

impl Rate {
    /// Selector: HT PHY required (Table 9-80).
    pub const SELECTOR_HT_PHY: u8 = 127;
    /// Selector: VHT PHY required.
    pub const SELECTOR_VHT_PHY: u8 = 126;
    /// Selector: SAE hash-to-element only.
    pub const SELECTOR_SAE_H2E: u8 = 123;

    /// True for a basic rate (or a membership selector, which also sets
    /// bit 7).
    pub const fn is_basic(self) -> bool {
        self.0 & 0x80 != 0
    }

    /// The low 7 bits: the rate in 500 kb/s units, or a selector value.
    pub const fn value(self) -> u8 {
        self.0 & 0x7f
    }

    /// The rate in kb/s.
    pub const fn kbps(self) -> u32 {
        self.value() as u32 * 500
    }

    /// True for the BSS membership selectors this crate knows (which the
    /// element encodes like a basic rate).
    pub const fn is_membership_selector(self) -> bool {
        self.is_basic()
            && matches!(
                self.value(),
                Self::SELECTOR_HT_PHY | Self::SELECTOR_VHT_PHY | Self::SELECTOR_SAE_H2E
            )
    }
}

/// Defines a suite selector type (OUI + suite type, 9.4.2.24.2) with its
/// byte conversions and its encoding as an RSNE list item.
macro_rules! suite_selector {
    ($(#[$m:meta])* $ty:ident) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $ty {
            /// The OUI or CID.
            pub oui: [u8; 3],
            /// The suite type.
            pub suite_type: u8,
        }

        impl $ty {
            /// A suite from its four transmitted octets.
            pub const fn from_bytes(b: [u8; 4]) -> $ty {
                $ty {
                    oui: [b[0], b[1], b[2]],
                    suite_type: b[3],
                }
            }

            /// The four transmitted octets.
            pub const fn to_bytes(self) -> [u8; 4] {
                [self.oui[0], self.oui[1], self.oui[2], self.suite_type]
            }
        }

        impl From<([u8; 3], u8)> for $ty {
            fn from((oui, suite_type): ([u8; 3], u8)) -> $ty {
                $ty { oui, suite_type }
            }
        }

        impl ListItem for $ty {
            const LEN: usize = 4;
            fn read(b: &[u8]) -> Option<Self> {
                bytes::array(b, 0).map($ty::from_bytes)
            }
            fn write(&self, b: &mut [u8]) {
                b.copy_from_slice(&self.to_bytes());
            }
        }
    };
}

suite_selector!(
    /// A cipher suite selector (9.4.2.24.2, Table 9-149): OUI and suite type.
    CipherSuite
);

macro_rules! suite_consts {
    ($ty:ident, $oui:expr; $($(#[$m:meta])* $name:ident = $v:expr;)*) => {
        impl $ty {
            $($(#[$m])* pub const $name: $ty = $ty { oui: $oui, suite_type: $v };)*
        }
    };
}

suite_consts!(CipherSuite, OUI_IEEE80211;
    /// 00-0F-AC:0, use the group cipher suite.
    USE_GROUP = 0;
    /// 00-0F-AC:1, WEP-40.
    WEP40 = 1;
    /// 00-0F-AC:2, TKIP.
    TKIP = 2;
    /// 00-0F-AC:4, CCMP-128.
    CCMP_128 = 4;
    /// 00-0F-AC:5, WEP-104.
    WEP104 = 5;
    /// 00-0F-AC:6, BIP-CMAC-128.
    BIP_CMAC_128 = 6;
    /// 00-0F-AC:7, group addressed traffic not allowed.
    GROUP_ADDRESSED_TRAFFIC_NOT_ALLOWED = 7;
    /// 00-0F-AC:8, GCMP-128.
    GCMP_128 = 8;
    /// 00-0F-AC:9, GCMP-256.
    GCMP_256 = 9;
    /// 00-0F-AC:10, CCMP-256.
    CCMP_256 = 10;
    /// 00-0F-AC:11, BIP-GMAC-128.
    BIP_GMAC_128 = 11;
    /// 00-0F-AC:12, BIP-GMAC-256.
    BIP_GMAC_256 = 12;
    /// 00-0F-AC:13, BIP-CMAC-256.
    BIP_CMAC_256 = 13;
);

suite_consts!(CipherSuite, OUI_MICROSOFT;
    /// 00-50-F2:1, WEP-40 in the WPA element.
    WPA_WEP40 = 1;
    /// 00-50-F2:2, TKIP in the WPA element.
    WPA_TKIP = 2;
    /// 00-50-F2:4, CCMP in the WPA element.
    WPA_CCMP = 4;
    /// 00-50-F2:5, WEP-104 in the WPA element.
    WPA_WEP104 = 5;
);

impl CipherSuite {
    /// Key length in octets of the 00-0F-AC suites (Table 12-4), `None`
    /// for others.
    pub fn key_len(self) -> Option<usize> {
        if self.oui != OUI_IEEE80211 {
            return None;
        }
        Some(match self.suite_type {
            1 => 5,
            5 => 13,
            2 | 9 | 10 | 12 | 13 => 32,
            4 | 6 | 8 | 11 => 16,
            _ => return None,
        })
    }

    /// True for the group management (BIP) suites.
    pub fn is_bip(self) -> bool {
        self.oui == OUI_IEEE80211 && matches!(self.suite_type, 6 | 11 | 12 | 13)
    }
}

suite_selector!(
    /// An AKM suite selector (9.4.2.24.3, Table 9-151): OUI and suite type.
    Akm
);

suite_consts!(Akm, OUI_IEEE80211;
    /// 00-0F-AC:1, IEEE 802.1X with PMKSA caching (SHA-1).
    IEEE8021X = 1;
    /// 00-0F-AC:2, PSK (SHA-1).
    PSK = 2;
    /// 00-0F-AC:3, FT over IEEE 802.1X (SHA-256).
    FT_IEEE8021X = 3;
    /// 00-0F-AC:4, FT with PSK (SHA-256).
    FT_PSK = 4;
    /// 00-0F-AC:5, IEEE 802.1X with SHA-256.
    IEEE8021X_SHA256 = 5;
    /// 00-0F-AC:6, PSK with SHA-256.
    PSK_SHA256 = 6;
    /// 00-0F-AC:7, TDLS (TPK handshake).
    TDLS = 7;
    /// 00-0F-AC:8, SAE.
    SAE = 8;
    /// 00-0F-AC:9, FT over SAE.
    FT_SAE = 9;
    /// 00-0F-AC:10, APPeerKey.
    AP_PEERKEY = 10;
    /// 00-0F-AC:11, IEEE 802.1X Suite B (SHA-256).
    IEEE8021X_SUITE_B = 11;
    /// 00-0F-AC:12, IEEE 802.1X CNSA Suite B 192 (SHA-384).
    IEEE8021X_SUITE_B_192 = 12;
    /// 00-0F-AC:13, FT over IEEE 802.1X (SHA-384).
    FT_IEEE8021X_SHA384 = 13;
    /// 00-0F-AC:14, FILS with SHA-256.
    FILS_SHA256 = 14;
    /// 00-0F-AC:15, FILS with SHA-384.
    FILS_SHA384 = 15;
    /// 00-0F-AC:16, FT over FILS with SHA-256.
    FT_FILS_SHA256 = 16;
    /// 00-0F-AC:17, FT over FILS with SHA-384.
    FT_FILS_SHA384 = 17;
    /// 00-0F-AC:18, opportunistic wireless encryption (OWE).
    OWE = 18;
    /// 00-0F-AC:19, FT with PSK (SHA-384).
    FT_PSK_SHA384 = 19;
    /// 00-0F-AC:20, PSK with SHA-384.
    PSK_SHA384 = 20;
    /// 00-0F-AC:21, PASN (IEEE Std 802.11az, after 802.11-2020).
    PASN = 21;
    /// 00-0F-AC:22, FT over 802.1X SHA-384 (later amendment).
    FT_IEEE8021X_SHA384_UNRESTRICTED = 22;
    /// 00-0F-AC:23, 802.1X with SHA-384 (later amendment).
    IEEE8021X_SHA384 = 23;
    /// 00-0F-AC:24, SAE with group-dependent hash (later amendment).
    SAE_EXT_KEY = 24;
    /// 00-0F-AC:25, FT over SAE with group-dependent hash (later amendment).
    FT_SAE_EXT_KEY = 25;
);

suite_consts!(Akm, OUI_MICROSOFT;
    /// 00-50-F2:1, WPA with IEEE 802.1X.
    WPA_IEEE8021X = 1;
    /// 00-50-F2:2, WPA with PSK.
    WPA_PSK = 2;
);

impl Akm {
    /// Length of the EAPOL-Key MIC this AKM uses (12.7.3, Table 12-11):
    /// 24 for the SHA-384 AKMs, 0 for FILS (which protects EAPOL-Key
    /// frames with AEAD), 16 for the other known suites (and both WPA
    /// suites). `None` when the length depends on more than the AKM (SAE
    /// with group-dependent hash) or the AKM is unknown.
    pub fn mic_len(self) -> Option<usize> {
        if self.oui == OUI_MICROSOFT && matches!(self.suite_type, 1 | 2) {
            return Some(16);
        }
        if self.oui != OUI_IEEE80211 {
            return None;
        }
        match self.suite_type {
            12 | 13 | 19 | 20 | 22 | 23 => Some(24),
            14..=17 => Some(0),
            1..=11 | 18 | 21 => Some(16),
            _ => None,
        }
    }

    /// True for the FT AKMs.
    pub fn is_ft(self) -> bool {
        self.oui == OUI_IEEE80211
            && matches!(self.suite_type, 3 | 4 | 9 | 13 | 16 | 17 | 19 | 22 | 25)
    }
}

/// A PMKID (16 octets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Pmkid(pub [u8; 16]);

/// An item of a counted list in an RSNE or WPA element.
pub trait ListItem: Copy {
    /// Encoded length.
    const LEN: usize;
    /// Decodes from exactly `LEN` bytes; `None` on a length mismatch.
    fn read(b: &[u8]) -> Option<Self>;
    /// Encodes into exactly `LEN` bytes.
    fn write(&self, b: &mut [u8]);
}

impl ListItem for Pmkid {
    const LEN: usize = 16;
    fn read(b: &[u8]) -> Option<Self> {
        bytes::array(b, 0).map(Pmkid)
    }
    fn write(&self, b: &mut [u8]) {
        b.copy_from_slice(&self.0);
    }
}

/// A counted list of suites or PMKIDs: either the raw bytes of a parsed
/// element (any length, no allocation) or a slice the caller built.
#[derive(Debug, Clone, Copy)]
pub enum List<'a, T: ListItem> {
    /// Encoded items, `T::LEN` bytes each.
    Raw(&'a [u8]),
    /// Decoded items.
    Items(&'a [T]),
}

impl<'a, T: ListItem> List<'a, T> {
    /// Number of items.
    pub fn len(&self) -> usize {
        match self {
            List::Raw(b) => b.len() / T::LEN,
            List::Items(s) => s.len(),
        }
    }

    /// True for an empty list.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The item at `i`.
    pub fn get(&self, i: usize) -> Option<T> {
        match self {
            List::Raw(b) => {
                let start = i.checked_mul(T::LEN)?;
                T::read(b.get(start..start.checked_add(T::LEN)?)?)
            }
            List::Items(s) => s.get(i).copied(),
        }
    }

    /// The first item.
    pub fn first(&self) -> Option<T> {
        self.get(0)
    }

    /// Iterates over the items.
    pub fn iter(&self) -> impl Iterator<Item = T> + 'a {
        let l = *self;
        (0..l.len()).filter_map(move |i| l.get(i))
    }

    /// Encoded length: the two-octet count and the items.
    pub fn buffer_len(&self) -> usize {
        2 + self.len() * T::LEN
    }

    fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let count = u16::try_from(self.len()).map_err(|_| Error::Malformed)?;
        let mut off = bytes::put(buf, 0, &count.to_le_bytes())?;
        for item in self.iter() {
            let end = off + T::LEN;
            item.write(buf.get_mut(off..end).ok_or(Error::Truncated)?);
            off = end;
        }
        Ok(off)
    }
}

impl<T: ListItem + PartialEq> List<'_, T> {
    /// True when the list holds `item`.
    pub fn contains(&self, item: T) -> bool {
        self.iter().any(|x| x == item)
    }
}

impl<T: ListItem + PartialEq> PartialEq for List<'_, T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a == b)
    }
}

impl<T: ListItem + Eq> Eq for List<'_, T> {}

/// Reads a counted list (2-octet little-endian count, then items).
fn read_list<'a, T: ListItem>(rest: &mut &'a [u8]) -> Result<List<'a, T>> {
    let count = usize::from(bytes::u16_le(rest, 0).ok_or(Error::Malformed)?);
    let end = 2 + count * T::LEN;
    let items = rest.get(2..end).ok_or(Error::Malformed)?;
    *rest = rest.get(end..).unwrap_or(&[]);
    Ok(List::Raw(items))
}

fn read_suite(rest: &mut &[u8]) -> Result<[u8; 4]> {
    let s = bytes::array(rest, 0).ok_or(Error::Malformed)?;
    *rest = rest.get(4..).unwrap_or(&[]);
    Ok(s)
}

fn read_u16(rest: &mut &[u8]) -> Result<u16> {
    let v = bytes::u16_le(rest, 0).ok_or(Error::Malformed)?;
    *rest = rest.get(2..).unwrap_or(&[]);
    Ok(v)
}

/// The RSN Capabilities field (9.4.2.24.4, Figure 9-257).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RsnCapabilities(pub u16);

macro_rules! cap_flag {
    ($(#[$m:meta])* $get:ident, $with:ident, $bit:expr) => {
        $(#[$m])*
        pub const fn $get(self) -> bool {
            self.0 & (1 << $bit) != 0
        }

        #[doc = concat!("This value with [`Self::", stringify!($get), "`] set to `on`.")]
        #[must_use]
        pub const fn $with(self, on: bool) -> Self {
            if on {
                Self(self.0 | (1 << $bit))
            } else {
                Self(self.0 & !(1 << $bit))
            }
        }
    };
}

impl RsnCapabilities {
    cap_flag!(
        /// Bit 0: Preauthentication.
        preauth, with_preauth, 0
    );
    cap_flag!(
        /// Bit 1: No Pairwise.
        no_pairwise, with_no_pairwise, 1
    );
    cap_flag!(
        /// Bit 6: Management Frame Protection Required (MFPR).
        mfpr, with_mfpr, 6
    );
    cap_flag!(
        /// Bit 7: Management Frame Protection Capable (MFPC).
        mfpc, with_mfpc, 7
    );
    cap_flag!(
        /// Bit 8: Joint Multi-Band RSNA.
        joint_multiband_rsna, with_joint_multiband_rsna, 8
    );
    cap_flag!(
        /// Bit 9: PeerKey Enabled.
        peerkey_enabled, with_peerkey_enabled, 9
    );
    cap_flag!(
        /// Bit 10: SPP A-MSDU Capable.
        spp_amsdu_capable, with_spp_amsdu_capable, 10
    );
    cap_flag!(
        /// Bit 11: SPP A-MSDU Required.
        spp_amsdu_required, with_spp_amsdu_required, 11
    );
    cap_flag!(
        /// Bit 12: PBAC (protected block ack agreement capable).
        pbac, with_pbac, 12
    );
    cap_flag!(
        /// Bit 13: Extended Key ID for Individually Addressed Frames.
        extended_key_id, with_extended_key_id, 13
    );
    cap_flag!(
        /// Bit 14: Operating Channel Validation Capable (OCVC).
        ocvc, with_ocvc, 14
    );

    /// Bits 2..=3: the PTKSA Replay Counter subfield (0..=3).
    pub const fn ptksa_replay_counter(self) -> u8 {
        ((self.0 >> 2) & 0x3) as u8
    }

    /// Bits 4..=5: the GTKSA Replay Counter subfield (0..=3).
    pub const fn gtksa_replay_counter(self) -> u8 {
        ((self.0 >> 4) & 0x3) as u8
    }

    /// Number of PTKSA replay counters the subfield announces: 1, 2, 4 or
    /// 16 (9.4.2.24.4).
    pub const fn ptksa_replay_counters(self) -> u8 {
        Self::counters(self.ptksa_replay_counter())
    }

    /// Number of GTKSA replay counters: 1, 2, 4 or 16.
    pub const fn gtksa_replay_counters(self) -> u8 {
        Self::counters(self.gtksa_replay_counter())
    }

    const fn counters(v: u8) -> u8 {
        match v & 3 {
            0 => 1,
            1 => 2,
            2 => 4,
            _ => 16,
        }
    }

    /// This value with the PTKSA Replay Counter subfield set (low two bits
    /// of `v`).
    #[must_use]
    pub const fn with_ptksa_replay_counter(self, v: u8) -> Self {
        Self((self.0 & !0x000c) | (((v & 3) as u16) << 2))
    }

    /// This value with the GTKSA Replay Counter subfield set.
    #[must_use]
    pub const fn with_gtksa_replay_counter(self, v: u8) -> Self {
        Self((self.0 & !0x0030) | (((v & 3) as u16) << 4))
    }
}

/// The RSN element (9.4.2.24), borrowed from the element data.
///
/// Optional fields follow the rule of 9.4.2.24.1: a field is present only
/// when every field before it is present, so a parsed RSNE has `None` only
/// at its tail. When emitting an RSNE whose early field is `None` but a
/// later one is set, the early field is written with its default value
/// (group and pairwise CCMP-128, AKM 00-0F-AC:1, capabilities 0, no
/// PMKIDs), which is what a receiver would assume for the missing field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rsne<'a> {
    /// Version (1).
    pub version: u16,
    /// Group Data Cipher Suite.
    pub group_data_cipher: Option<CipherSuite>,
    /// Pairwise Cipher Suite list.
    pub pairwise: Option<List<'a, CipherSuite>>,
    /// AKM Suite list.
    pub akms: Option<List<'a, Akm>>,
    /// RSN Capabilities.
    pub capabilities: Option<RsnCapabilities>,
    /// PMKID list.
    pub pmkids: Option<List<'a, Pmkid>>,
    /// Group Management Cipher Suite.
    pub group_mgmt_cipher: Option<CipherSuite>,
    /// Octets after the last known field (the element is extensible,
    /// 9.4.2.1: receivers ignore what they do not understand).
    pub extension: &'a [u8],
}

impl Default for Rsne<'_> {
    fn default() -> Self {
        Rsne {
            version: Rsne::VERSION,
            group_data_cipher: None,
            pairwise: None,
            akms: None,
            capabilities: None,
            pmkids: None,
            group_mgmt_cipher: None,
            extension: &[],
        }
    }
}

static DEFAULT_PAIRWISE: [CipherSuite; 1] = [CipherSuite::CCMP_128];
static DEFAULT_AKM: [Akm; 1] = [Akm::IEEE8021X];

impl<'a> Rsne<'a> {
    /// The only defined RSN version.
    pub const VERSION: u16 = 1;

    /// Parses the data of an RSN element (without ID and Length). A version
    /// other than 1 is `Unsupported`; a field cut in the middle or a count
    /// larger than the data is `Malformed`.
    pub fn parse(data: &'a [u8]) -> Result<Rsne<'a>> {
        let mut rest = data;
        let version = read_u16(&mut rest).map_err(|_| Error::Truncated)?;
        if version != Self::VERSION {
            return Err(Error::Unsupported);
        }
        let mut r = Rsne {
            version,
            ..Rsne::default()
        };
        if rest.is_empty() {
            return Ok(r);
        }
        r.group_data_cipher = Some(CipherSuite::from_bytes(read_suite(&mut rest)?));
        if rest.is_empty() {
            return Ok(r);
        }
        r.pairwise = Some(read_list(&mut rest)?);
        if rest.is_empty() {
            return Ok(r);
        }
        r.akms = Some(read_list(&mut rest)?);
        if rest.is_empty() {
            return Ok(r);
        }
        r.capabilities = Some(RsnCapabilities(read_u16(&mut rest)?));
        if rest.is_empty() {
            return Ok(r);
        }
        r.pmkids = Some(read_list(&mut rest)?);
        if rest.is_empty() {
            return Ok(r);
        }
        r.group_mgmt_cipher = Some(CipherSuite::from_bytes(read_suite(&mut rest)?));
        r.extension = rest;
        Ok(r)
    }

    /// Parses an element that must be an RSNE.
    pub fn from_element(e: Element<'a>) -> Result<Rsne<'a>> {
        if e.id != ElementId::RSN.0 {
            return Err(Error::Malformed);
        }
        Rsne::parse(e.data)
    }

    /// The group data cipher, CCMP-128 when absent (9.4.2.24.1).
    pub fn group_data_cipher_or_default(&self) -> CipherSuite {
        self.group_data_cipher.unwrap_or(CipherSuite::CCMP_128)
    }

    /// The pairwise list, `[CCMP-128]` when absent.
    pub fn pairwise_or_default(&self) -> List<'a, CipherSuite> {
        self.pairwise.unwrap_or(List::Items(&DEFAULT_PAIRWISE))
    }

    /// The AKM list, `[00-0F-AC:1]` when absent.
    pub fn akms_or_default(&self) -> List<'a, Akm> {
        self.akms.unwrap_or(List::Items(&DEFAULT_AKM))
    }

    /// The capabilities, 0 when absent.
    pub fn capabilities_or_default(&self) -> RsnCapabilities {
        self.capabilities.unwrap_or_default()
    }

    /// The group management cipher, BIP-CMAC-128 when absent (the default
    /// when management frame protection is negotiated).
    pub fn group_mgmt_cipher_or_default(&self) -> CipherSuite {
        self.group_mgmt_cipher.unwrap_or(CipherSuite::BIP_CMAC_128)
    }

    /// Index of the last field to write: 0 version only, 1 group, 2
    /// pairwise, 3 AKM, 4 capabilities, 5 PMKIDs, 6 group management,
    /// 7 with extension octets.
    fn last_field(&self) -> u8 {
        if !self.extension.is_empty() {
            7
        } else if self.group_mgmt_cipher.is_some() {
            6
        } else if self.pmkids.is_some() {
            5
        } else if self.capabilities.is_some() {
            4
        } else if self.akms.is_some() {
            3
        } else if self.pairwise.is_some() {
            2
        } else if self.group_data_cipher.is_some() {
            1
        } else {
            0
        }
    }

    /// Length of the element data (without ID and Length).
    pub fn data_len(&self) -> usize {
        let last = self.last_field();
        let mut n = 2;
        if last >= 1 {
            n += 4;
        }
        if last >= 2 {
            n += self.pairwise_or_default().buffer_len();
        }
        if last >= 3 {
            n += self.akms_or_default().buffer_len();
        }
        if last >= 4 {
            n += 2;
        }
        if last >= 5 {
            n += self.pmkids.map_or(2, |l| l.buffer_len());
        }
        if last >= 6 {
            n += 4;
        }
        n + self.extension.len()
    }

    /// Length of the whole element.
    pub fn buffer_len(&self) -> usize {
        2 + self.data_len()
    }

    /// Writes the whole element (ID 48, Length, data). `Malformed` when the
    /// data would exceed 255 octets.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let len = u8::try_from(self.data_len()).map_err(|_| Error::Malformed)?;
        let total = 2 + usize::from(len);
        let b = buf.get_mut(..total).ok_or(Error::Truncated)?;
        let last = self.last_field();
        let mut off = bytes::put(b, 0, &[ElementId::RSN.0, len])?;
        off = bytes::put(b, off, &self.version.to_le_bytes())?;
        if last >= 1 {
            off = bytes::put(b, off, &self.group_data_cipher_or_default().to_bytes())?;
        }
        if last >= 2 {
            off += self.pairwise_or_default().emit(&mut b[off..])?;
        }
        if last >= 3 {
            off += self.akms_or_default().emit(&mut b[off..])?;
        }
        if last >= 4 {
            off = bytes::put(b, off, &self.capabilities_or_default().0.to_le_bytes())?;
        }
        if last >= 5 {
            let pmkids = self.pmkids.unwrap_or(List::Items(&[]));
            off += pmkids.emit(&mut b[off..])?;
        }
        if last >= 6 {
            off = bytes::put(b, off, &self.group_mgmt_cipher_or_default().to_bytes())?;
        }
        bytes::put(b, off, self.extension)
    }
}

/// A vendor-specific element (9.4.2.25): an OUI and vendor data. The first
/// data octet is, by the convention of the OUI owners this crate knows, a
/// vendor type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VendorElement<'a> {
    /// The 24-bit OUI.
    pub oui: [u8; 3],
    /// The octets after the OUI.
    pub data: &'a [u8],
}

impl<'a> VendorElement<'a> {
    /// Reads a vendor-specific element; `Malformed` if it is another ID or
    /// shorter than an OUI.
    pub fn from_element(e: Element<'a>) -> Result<VendorElement<'a>> {
        if e.id != ElementId::VENDOR_SPECIFIC.0 {
            return Err(Error::Malformed);
        }
        let oui = bytes::array(e.data, 0).ok_or(Error::Malformed)?;
        Ok(VendorElement {
            oui,
            data: e.data.get(3..).unwrap_or(&[]),
        })
    }

    /// The vendor type: the first octet after the OUI.
    pub fn vendor_type(&self) -> Option<u8> {
        self.data.first().copied()
    }

    /// Length of the whole element.
    pub fn buffer_len(&self) -> usize {
        5 + self.data.len()
    }

    /// Writes the whole element.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let len = u8::try_from(3 + self.data.len()).map_err(|_| Error::Malformed)?;
        let o = bytes::put(buf, 0, &[ElementId::VENDOR_SPECIFIC.0, len])?;
        let o = bytes::put(buf, o, &self.oui)?;
        bytes::put(buf, o, self.data)
    }
}

/// The WPA element of Wi-Fi Protected Access (before RSN): a vendor element
/// with OUI 00-50-F2 and type 1, laid out like an RSNE up to the
/// capabilities and with 00-50-F2 selectors. Absent trailing fields follow
/// the RSNE rule; the defaults are TKIP and 00-50-F2:1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WpaElement<'a> {
    /// Version (1).
    pub version: u16,
    /// Group (multicast) cipher.
    pub group_cipher: Option<CipherSuite>,
    /// Pairwise (unicast) cipher list.
    pub pairwise: Option<List<'a, CipherSuite>>,
    /// AKM list.
    pub akms: Option<List<'a, Akm>>,
    /// Capabilities (same bits as the RSNE's first byte).
    pub capabilities: Option<u16>,
}

impl<'a> WpaElement<'a> {
    /// The vendor type of the WPA element.
    pub const VENDOR_TYPE: u8 = 1;

    /// Parses the vendor data after OUI 00-50-F2 and type 1.
    pub fn parse(data: &'a [u8]) -> Result<WpaElement<'a>> {
        let mut rest = data;
        let version = read_u16(&mut rest).map_err(|_| Error::Truncated)?;
        if version != 1 {
            return Err(Error::Unsupported);
        }
        let mut w = WpaElement {
            version,
            group_cipher: None,
            pairwise: None,
            akms: None,
            capabilities: None,
        };
        if rest.is_empty() {
            return Ok(w);
        }
        w.group_cipher = Some(CipherSuite::from_bytes(read_suite(&mut rest)?));
        if rest.is_empty() {
            return Ok(w);
        }
        w.pairwise = Some(read_list(&mut rest)?);
        if rest.is_empty() {
            return Ok(w);
        }
        w.akms = Some(read_list(&mut rest)?);
        if rest.is_empty() {
            return Ok(w);
        }
        w.capabilities = Some(read_u16(&mut rest)?);
        // Octets after the capabilities are ignored, as by WPA receivers.
        Ok(w)
    }

    /// Parses a vendor element that must be the WPA element.
    pub fn from_element(e: Element<'a>) -> Result<WpaElement<'a>> {
        let v = VendorElement::from_element(e)?;
        if v.oui != OUI_MICROSOFT || v.vendor_type() != Some(Self::VENDOR_TYPE) {
            return Err(Error::Malformed);
        }
        WpaElement::parse(v.data.get(1..).unwrap_or(&[]))
    }

    fn last_field(&self) -> u8 {
        if self.capabilities.is_some() {
            4
        } else if self.akms.is_some() {
            3
        } else if self.pairwise.is_some() {
            2
        } else if self.group_cipher.is_some() {
            1
        } else {
            0
        }
    }

    fn pairwise_or_default(&self) -> List<'a, CipherSuite> {
        self.pairwise
            .unwrap_or(List::Items(&[CipherSuite::WPA_TKIP]))
    }

    fn akms_or_default(&self) -> List<'a, Akm> {
        self.akms.unwrap_or(List::Items(&[Akm::WPA_IEEE8021X]))
    }

    /// Length of the whole vendor element.
    pub fn buffer_len(&self) -> usize {
        let last = self.last_field();
        let mut n = 2 + 4 + 2;
        if last >= 1 {
            n += 4;
        }
        if last >= 2 {
            n += self.pairwise_or_default().buffer_len();
        }
        if last >= 3 {
            n += self.akms_or_default().buffer_len();
        }
        if last >= 4 {
            n += 2;
        }
        n
    }

    /// Writes the whole vendor element.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let total = self.buffer_len();
        let len = u8::try_from(total - 2).map_err(|_| Error::Malformed)?;
        let b = buf.get_mut(..total).ok_or(Error::Truncated)?;
        let last = self.last_field();
        let mut off = bytes::put(b, 0, &[ElementId::VENDOR_SPECIFIC.0, len])?;
        off = bytes::put(b, off, &OUI_MICROSOFT)?;
        off = bytes::put(b, off, &[Self::VENDOR_TYPE])?;
        off = bytes::put(b, off, &self.version.to_le_bytes())?;
        if last >= 1 {
            let g = self.group_cipher.unwrap_or(CipherSuite::WPA_TKIP);
            off = bytes::put(b, off, &g.to_bytes())?;
        }
        if last >= 2 {
            off += self.pairwise_or_default().emit(&mut b[off..])?;
        }
        if last >= 3 {
            off += self.akms_or_default().emit(&mut b[off..])?;
        }
        if last >= 4 {
            off = bytes::put(b, off, &self.capabilities.unwrap_or(0).to_le_bytes())?;
        }
        Ok(off)
    }
}

mod mme_field {
    pub const ID: usize = 0;
    pub const LEN: usize = 1;
    pub const KEY_ID: usize = 2;
    pub const IPN: usize = 4;
    pub const MIC: usize = 10;
}

/// A view over a Management MIC element (9.4.2.53, Figure 9-343): Element
/// ID 76, Length 16 or 24, Key ID (2), IPN (6, little-endian), MIC (8 for
/// BIP-CMAC-128, 16 for BIP-CMAC-256 and BIP-GMAC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mme<T: AsRef<[u8]>> {
    buffer: T,
}

/// Length of an MME with an 8-octet MIC.
pub const MME_LEN_MIC8: usize = 18;
/// Length of an MME with a 16-octet MIC.
pub const MME_LEN_MIC16: usize = 26;

impl<T: AsRef<[u8]>> Mme<T> {
    /// Wraps a buffer that starts with the Element ID, without checks.
    pub const fn new_unchecked(buffer: T) -> Mme<T> {
        Mme { buffer }
    }

    /// Wraps a buffer after [`Mme::check_len`].
    pub fn new_checked(buffer: T) -> Result<Mme<T>> {
        let m = Mme::new_unchecked(buffer);
        m.check_len()?;
        Ok(m)
    }

    /// Checks the ID (76), the Length (16 or 24) and that the buffer holds
    /// the element.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        let (id, len) = match b {
            [id, len, ..] => (*id, usize::from(*len)),
            _ => return Err(Error::Truncated),
        };
        if id != ElementId::MANAGEMENT_MIC.0 || !(len == 16 || len == 24) {
            return Err(Error::Malformed);
        }
        if b.len() < 2 + len {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Length of the element (18 or 26 after `new_checked`).
    pub fn total_len(&self) -> usize {
        2 + usize::from(bytes::u8_at(self.buffer.as_ref(), mme_field::LEN).unwrap_or(0))
    }

    /// Key ID (4 or 5 for an IGTK, 6 or 7 for a BIGTK).
    pub fn key_id(&self) -> u16 {
        bytes::u16_le(self.buffer.as_ref(), mme_field::KEY_ID).unwrap_or(0)
    }

    /// The 48-bit IGTK packet number.
    pub fn ipn(&self) -> u64 {
        bytes::array::<6>(self.buffer.as_ref(), mme_field::IPN).map_or(0, |p| {
            let mut v = [0u8; 8];
            v[..6].copy_from_slice(&p);
            u64::from_le_bytes(v)
        })
    }

    /// The MIC.
    pub fn mic(&self) -> &[u8] {
        let end = self.total_len();
        self.buffer.as_ref().get(mme_field::MIC..end).unwrap_or(&[])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Mme<T> {
    /// The MIC, mutable.
    pub fn mic_mut(&mut self) -> &mut [u8] {
        let end = self.total_len();
        self.buffer
            .as_mut()
            .get_mut(mme_field::MIC..end)
            .unwrap_or(&mut [])
    }

    /// Writes the MIC; `Malformed` if its length differs from the field's.
    pub fn set_mic(&mut self, mic: &[u8]) -> Result<()> {
        let field = self.mic_mut();
        if field.len() != mic.len() {
            return Err(Error::Malformed);
        }
        field.copy_from_slice(mic);
        Ok(())
    }
}

/// An owned Management MIC element; the MIC is borrowed (8 or 16 octets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmeRepr<'a> {
    /// Key ID.
    pub key_id: u16,
    /// 48-bit IPN.
    pub ipn: u64,
    /// MIC, 8 or 16 octets.
    pub mic: &'a [u8],
}

impl<'a> MmeRepr<'a> {
    /// Parses a checked view.
    pub fn parse<T: AsRef<[u8]>>(m: &'a Mme<T>) -> Result<MmeRepr<'a>> {
        m.check_len()?;
        Ok(MmeRepr {
            key_id: m.key_id(),
            ipn: m.ipn(),
            mic: m.mic(),
        })
    }

    /// Length of the element.
    pub fn buffer_len(&self) -> usize {
        mme_field::MIC + self.mic.len()
    }

    /// Writes the element; `Malformed` for a MIC length other than 8 or 16
    /// or an IPN beyond 48 bits.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        if !(self.mic.len() == 8 || self.mic.len() == 16) || self.ipn > crate::security::PN_MAX {
            return Err(Error::Malformed);
        }
        let total = self.buffer_len();
        let b = buf.get_mut(..total).ok_or(Error::Truncated)?;
        b[mme_field::ID] = ElementId::MANAGEMENT_MIC.0;
        b[mme_field::LEN] = (total - 2) as u8;
        b[mme_field::KEY_ID..mme_field::IPN].copy_from_slice(&self.key_id.to_le_bytes());
        b[mme_field::IPN..mme_field::MIC].copy_from_slice(&self.ipn.to_le_bytes()[..6]);
        b[mme_field::MIC..].copy_from_slice(self.mic);
        Ok(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // A WPA2-Personal RSNE built from the layout of 9.4.2.24.1: version 1,
    // group CCMP-128, one pairwise CCMP-128, one AKM PSK, capabilities 0x000c
    // (PTKSA Replay Counter subfield 3: 16 counters).
    const RSNE_PSK: [u8; 22] = [
        0x30, 0x14, 0x01, 0x00, 0x00, 0x0f, 0xac, 0x04, 0x01, 0x00, 0x00, 0x0f, 0xac, 0x04, 0x01,
        0x00, 0x00, 0x0f, 0xac, 0x02, 0x0c, 0x00,
    ];

    #[test]
    fn rsne_psk_parse_emit() {
        let e = Elements::new(&RSNE_PSK).next().unwrap().unwrap();
        assert_eq!(e.id, 48);
        let r = Rsne::from_element(e).unwrap();
        assert_eq!(r.version, 1);
        assert_eq!(r.group_data_cipher, Some(CipherSuite::CCMP_128));
        let pw = r.pairwise.unwrap();
        assert_eq!(pw.len(), 1);
        assert_eq!(pw.first(), Some(CipherSuite::CCMP_128));
        assert!(r.akms.unwrap().contains(Akm::PSK));
        let caps = r.capabilities.unwrap();
        assert_eq!(caps.ptksa_replay_counter(), 3);
        assert_eq!(caps.ptksa_replay_counters(), 16);
        assert_eq!(caps.gtksa_replay_counters(), 1);
        assert!(!caps.mfpc() && !caps.mfpr());
        assert_eq!(r.pmkids, None);
        assert_eq!(r.group_mgmt_cipher, None);
        assert_eq!(r.group_mgmt_cipher_or_default(), CipherSuite::BIP_CMAC_128);
        let mut out = [0u8; 64];
        assert_eq!(r.buffer_len(), RSNE_PSK.len());
        let n = r.emit(&mut out).unwrap();
        assert_eq!(&out[..n], &RSNE_PSK);

        // The same RSNE built from typed values emits the same bytes.
        let built = Rsne {
            group_data_cipher: Some(CipherSuite::CCMP_128),
            pairwise: Some(List::Items(&[CipherSuite::CCMP_128])),
            akms: Some(List::Items(&[Akm::PSK])),
            capabilities: Some(RsnCapabilities::default().with_ptksa_replay_counter(3)),
            ..Rsne::default()
        };
        assert_eq!(built, r);
        let n = built.emit(&mut out).unwrap();
        assert_eq!(&out[..n], &RSNE_PSK);
        assert_eq!(built.emit(&mut out[..21]), Err(Error::Truncated));
    }

    #[test]
    fn rsne_wpa3_with_pmkid_and_group_mgmt() {
        // SAE + FT-SAE, MFPC|MFPR, one PMKID, group management BIP-CMAC-256.
        let pmkid = Pmkid([0x11; 16]);
        let r = Rsne {
            group_data_cipher: Some(CipherSuite::CCMP_128),
            pairwise: Some(List::Items(&[CipherSuite::CCMP_128, CipherSuite::GCMP_256])),
            akms: Some(List::Items(&[Akm::SAE, Akm::FT_SAE])),
            capabilities: Some(
                RsnCapabilities::default()
                    .with_mfpc(true)
                    .with_mfpr(true)
                    .with_extended_key_id(true)
                    .with_ocvc(true)
                    .with_gtksa_replay_counter(2),
            ),
            pmkids: Some(List::Items(&[pmkid])),
            group_mgmt_cipher: Some(CipherSuite::BIP_CMAC_256),
            ..Rsne::default()
        };
        let mut out = [0u8; 80];
        let n = r.emit(&mut out).unwrap();
        let mut expect = [0u8; 52];
        let hand: &[&[u8]] = &[
            &[0x30, 50, 0x01, 0x00],
            &[0x00, 0x0f, 0xac, 0x04],
            &[0x02, 0x00, 0x00, 0x0f, 0xac, 0x04, 0x00, 0x0f, 0xac, 0x09],
            &[0x02, 0x00, 0x00, 0x0f, 0xac, 0x08, 0x00, 0x0f, 0xac, 0x09],
            // MFPR bit 6, MFPC bit 7, GTKSA = 2 (bits 4-5), Ext Key ID bit
            // 13, OCVC bit 14: 0x60e0.
            &[0xe0, 0x60],
            &[0x01, 0x00],
            &[0x11; 16],
            &[0x00, 0x0f, 0xac, 0x0d],
        ];
        let mut o = 0;
        for h in hand {
            expect[o..o + h.len()].copy_from_slice(h);
            o += h.len();
        }
        assert_eq!(o, expect.len());
        assert_eq!(&out[..n], &expect[..]);
        let p = Rsne::parse(&out[2..n]).unwrap();
        assert_eq!(p, r);
        let c = p.capabilities.unwrap();
        assert!(c.mfpr() && c.mfpc() && c.extended_key_id() && c.ocvc());
        assert_eq!(c.gtksa_replay_counters(), 4);
        assert!(!c.preauth() && !c.no_pairwise() && !c.pbac());
        assert_eq!(p.pmkids.unwrap().get(0), Some(pmkid));
        assert_eq!(p.pmkids.unwrap().get(1), None);
    }

    #[test]
    fn rsne_truncation_rules() {
        // Version only: every other field takes its default.
        let r = Rsne::parse(&[1, 0]).unwrap();
        assert_eq!(r.group_data_cipher_or_default(), CipherSuite::CCMP_128);
        assert_eq!(r.pairwise_or_default().first(), Some(CipherSuite::CCMP_128));
        assert_eq!(r.akms_or_default().first(), Some(Akm::IEEE8021X));
        // A field cut in the middle is malformed, at every cut point.
        for cut in 3..RSNE_PSK.len() - 2 {
            let d = &RSNE_PSK[2..2 + cut];
            let full_field_ends = [2usize, 6, 12, 18, 20];
            let res = Rsne::parse(d);
            if full_field_ends.contains(&cut) {
                assert!(res.is_ok(), "cut {cut}");
            } else {
                assert_eq!(res, Err(Error::Malformed), "cut {cut}");
            }
        }
        // A count larger than the data.
        let mut bad = RSNE_PSK;
        bad[8] = 2;
        assert_eq!(Rsne::parse(&bad[2..]), Err(Error::Malformed));
        // Version 2 is not defined.
        let mut v2 = RSNE_PSK;
        v2[2] = 2;
        assert_eq!(Rsne::parse(&v2[2..]), Err(Error::Unsupported));
        assert_eq!(Rsne::parse(&[1]), Err(Error::Truncated));
        // A later field without the earlier ones is written with defaults.
        let only_caps = Rsne {
            capabilities: Some(RsnCapabilities(0x0080)),
            ..Rsne::default()
        };
        let mut out = [0u8; 40];
        let n = only_caps.emit(&mut out).unwrap();
        assert_eq!(
            &out[..n],
            &[
                0x30, 0x14, 1, 0, 0x00, 0x0f, 0xac, 4, 1, 0, 0x00, 0x0f, 0xac, 4, 1, 0, 0x00, 0x0f,
                0xac, 1, 0x80, 0
            ]
        );
        // Extension octets round-trip.
        let mut ext = [0u8; 40];
        let hand = [
            0x30, 0x1a, 1, 0, 0, 0x0f, 0xac, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0f, 0xac, 6, 0xaa,
            0xbb,
        ];
        ext[..hand.len()].copy_from_slice(&hand);
        ext[1] = (hand.len() - 2) as u8;
        let p = Rsne::parse(&ext[2..hand.len()]).unwrap();
        assert_eq!(p.pairwise.unwrap().len(), 0);
        assert_eq!(p.extension, &[0xaa, 0xbb]);
        let n = p.emit(&mut out).unwrap();
        assert_eq!(&out[..n], &ext[..hand.len()]);
    }

    #[test]
    fn wpa1_element() {
        // WPA-PSK with TKIP (Wi-Fi WPA 1.0 layout): dd 16 00 50 f2 01 01 00
        // 00 50 f2 02 01 00 00 50 f2 02 01 00 00 50 f2 02.
        let ie = [
            0xdd, 0x16, 0x00, 0x50, 0xf2, 0x01, 0x01, 0x00, 0x00, 0x50, 0xf2, 0x02, 0x01, 0x00,
            0x00, 0x50, 0xf2, 0x02, 0x01, 0x00, 0x00, 0x50, 0xf2, 0x02,
        ];
        let w = Elements::new(&ie).wpa().unwrap().unwrap();
        assert_eq!(w.group_cipher, Some(CipherSuite::WPA_TKIP));
        assert_eq!(w.pairwise.unwrap().first(), Some(CipherSuite::WPA_TKIP));
        assert_eq!(w.akms.unwrap().first(), Some(Akm::WPA_PSK));
        assert_eq!(w.capabilities, None);
        let mut out = [0u8; 40];
        let n = w.emit(&mut out).unwrap();
        assert_eq!(&out[..n], &ie);
        let v = VendorElement::from_element(Elements::new(&ie).next().unwrap().unwrap()).unwrap();
        assert_eq!(v.oui, OUI_MICROSOFT);
        assert_eq!(v.vendor_type(), Some(1));
        let n = v.emit(&mut out).unwrap();
        assert_eq!(&out[..n], &ie);
        // WMM (type 2) is not WPA.
        let mut wmm = ie;
        wmm[5] = 2;
        assert!(Elements::new(&wmm).wpa().is_none());
        assert_eq!(
            WpaElement::from_element(Element {
                id: 221,
                data: &wmm[2..]
            }),
            Err(Error::Malformed)
        );
    }

    #[test]
    fn mme_from_bip_vectors() {
        // IEEE 802.11-2012 M.9.1 BIP-CMAC-128: the protected deauth ends with
        // the MME 4c 10 0400 040000000000 48dfbfa7b8278872.
        let m = hex::decode("4c10040004000000000048dfbfa7b8278872").unwrap();
        let v = Mme::new_checked(&m[..]).unwrap();
        assert_eq!(v.key_id(), 4);
        assert_eq!(v.ipn(), 4);
        assert_eq!(v.mic(), &hex::decode("48dfbfa7b8278872").unwrap()[..]);
        let r = MmeRepr::parse(&v).unwrap();
        let mut out = [0u8; 26];
        assert_eq!(r.emit(&mut out), Ok(18));
        assert_eq!(&out[..18], &m[..]);
        // P802.11ac M.9.1 BIP-GMAC-128: Length 24, 16-octet MIC.
        let g = hex::decode("4c1804000400000000003ed862fb0f3338dd3386c897e2ed053d").unwrap();
        let mut gv = Mme::new_checked(g.clone()).unwrap();
        assert_eq!(gv.mic().len(), 16);
        assert_eq!(gv.total_len(), MME_LEN_MIC16);
        assert_eq!(gv.set_mic(&[0; 8]), Err(Error::Malformed));
        gv.set_mic(&[0; 16]).unwrap();
        assert_eq!(gv.mic(), &[0; 16]);
        // Wrong length, wrong ID, truncated.
        let mut bad = m.clone();
        bad[1] = 17;
        assert_eq!(Mme::new_checked(&bad[..]).unwrap_err(), Error::Malformed);
        bad[1] = 16;
        bad[0] = 77;
        assert_eq!(Mme::new_checked(&bad[..]).unwrap_err(), Error::Malformed);
        assert_eq!(Mme::new_checked(&m[..17]).unwrap_err(), Error::Truncated);
        let bad_mic = MmeRepr { mic: &[0; 12], ..r };
        assert_eq!(bad_mic.emit(&mut out), Err(Error::Malformed));
    }

    #[test]
    fn element_walk_and_typed_access() {
        // SSID "wisec", Supported Rates 1(B) 2(B) 5.5 11, DS param channel 6,
        // Extended Supported Rates 6 9, an extension element (ext 35, HE
        // capabilities) with one data byte.
        let buf = [
            0x00, 0x05, b'w', b'i', b's', b'e', b'c', 0x01, 0x04, 0x82, 0x84, 0x0b, 0x16, 0x03,
            0x01, 0x06, 0x32, 0x02, 0x0c, 0x12, 0xff, 0x02, 35, 0xab,
        ];
        let mut it = Elements::new(&buf);
        assert_eq!(it.clone().ssid(), Some(&b"wisec"[..]));
        let kbps: [u32; 6] = [1000, 2000, 5500, 11000, 6000, 9000];
        assert!(it
            .clone()
            .rates()
            .map(|r| r.kbps())
            .eq(kbps.iter().copied()));
        assert!(it.clone().rates().take(2).all(|r| r.is_basic()));
        let ext = it.clone().find_ext(35).unwrap();
        assert_eq!(ext.ext_data(), &[0xab]);
        assert_eq!(it.clone().count(), 5);
        assert!(it.by_ref().all(|e| e.is_ok()));
        assert_eq!(it.error(), None);

        // Round trip through the writer.
        let mut out = [0u8; 64];
        let mut w = ElementWriter::new(&mut out);
        w.push(ElementId::SSID, b"wisec").unwrap();
        w.push(ElementId::SUPPORTED_RATES, &[0x82, 0x84, 0x0b, 0x16])
            .unwrap()
            .push(ElementId::DSSS_PARAMETER_SET, &[6])
            .unwrap()
            .push(ElementId::EXTENDED_SUPPORTED_RATES, &[0x0c, 0x12])
            .unwrap()
            .push_ext(35, &[0xab])
            .unwrap();
        assert_eq!(w.finish(), &buf[..]);

        // Every truncation yields exactly one error and stops.
        for cut in 0..buf.len() {
            let mut it = Elements::new(&buf[..cut]);
            let boundaries = [0usize, 7, 13, 16, 20];
            let items: usize = it.by_ref().count();
            if boundaries.contains(&cut) {
                assert_eq!(it.error(), None);
            } else {
                assert_eq!(it.error(), Some(Error::Truncated), "cut {cut}");
                assert!(items >= 1);
                assert_eq!(Elements::new(&buf[..cut]).validate(), Err(Error::Truncated));
            }
        }
        // Extension element with no extension ID.
        let mut it = Elements::new(&[0xff, 0x00]);
        assert_eq!(it.next(), Some(Err(Error::Malformed)));
        assert_eq!(it.next(), None);
        // Oversized SSID.
        assert_eq!(ssid(&[0; 33]), Err(Error::Malformed));
        let mut tiny = [0u8; 4];
        let mut w = ElementWriter::new(&mut tiny);
        assert_eq!(
            w.push(ElementId::SSID, b"abc").err(),
            Some(Error::Truncated)
        );
        assert_eq!(
            Element {
                id: 0,
                data: &[0; 256]
            }
            .emit(&mut [0u8; 300]),
            Err(Error::Malformed)
        );
    }

    #[test]
    fn suite_helpers() {
        assert_eq!(CipherSuite::CCMP_128.to_bytes(), [0x00, 0x0f, 0xac, 0x04]);
        assert_eq!(CipherSuite::GCMP_256.key_len(), Some(32));
        assert_eq!(CipherSuite::TKIP.key_len(), Some(32));
        assert_eq!(CipherSuite::WEP104.key_len(), Some(13));
        assert_eq!(CipherSuite::WPA_CCMP.key_len(), None);
        assert!(CipherSuite::BIP_GMAC_256.is_bip());
        assert!(!CipherSuite::CCMP_256.is_bip());
        assert_eq!(Akm::PSK.mic_len(), Some(16));
        assert_eq!(Akm::IEEE8021X_SUITE_B_192.mic_len(), Some(24));
        assert_eq!(Akm::FT_IEEE8021X_SHA384.mic_len(), Some(24));
        assert_eq!(Akm::FILS_SHA256.mic_len(), Some(0));
        assert_eq!(Akm::SAE_EXT_KEY.mic_len(), None);
        assert_eq!(Akm::WPA_PSK.mic_len(), Some(16));
        assert!(Akm::FT_SAE.is_ft() && !Akm::SAE.is_ft());
        assert_eq!(Akm::from_bytes([0, 0x0f, 0xac, 8]), Akm::SAE);
    }
}
