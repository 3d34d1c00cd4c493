//! DiscoSec elements (seed 003: Martinovic et al., "Design, Implementation,
//! and Performance Analysis of DiscoSec – Service Pack for Securing WLANs").
//!
//! DiscoSec carries everything it needs as information elements appended to
//! ordinary management frames, so that a legacy station simply skips them
//! (seed 003, section 2: "All required information is embedded within the
//! existing frames as Information Elements"). The paper gives no element
//! IDs or byte layouts; wisec uses Vendor Specific elements (IEEE Std
//! 802.11-2020, 9.4.2.25), which every 802.11 implementation must ignore
//! when it does not know the OUI.
//!
//! # Layout
//!
//! Every DiscoSec element is
//!
//! | octets | field |
//! |---|---|
//! | 1 | Element ID 221 (Vendor Specific) |
//! | 1 | Length (3 + 1 + body length) |
//! | 3 | OUI [`OUI_WISEC`] = `7a-15-ec` |
//! | 1 | vendor type ([`VendorType`]) |
//! | n | body, below |
//!
//! `7a-15-ec` is not an IEEE registration: it is a value in the Company ID
//! format (the low nibble `0xA` of the first octet puts it in the locally
//! administered quadrant that no OUI assignment uses), so it cannot collide
//! with a registered vendor's elements. All integers are little-endian, as
//! everywhere in 802.11.
//!
//! | type | name | body | carried in |
//! |---|---|---|---|
//! | 1 | PK_AP + EC_Param | group (2) ‖ point (SEC1 uncompressed: `04` ‖ X ‖ Y) | Beacon, Probe Response |
//! | 2 | PK_STA | group (2) ‖ point, same layout | Authentication (transaction 1) |
//! | 3 | AT, association token | token (4) | Authentication (transaction 1) |
//! | 4 | SEQ | sequence number (4) | every authenticated frame |
//! | 5 | MAC | mode (1: 1 = full_auth, 2 = fast_auth) ‖ AES-CMAC tag (16) | every authenticated frame, always last |
//! | 6 | token set Θ_t | flags (1) ‖ interval (1) ‖ counter (1) ‖ n × token (4), n ≤ 62 | Beacon, Probe Response |
//!
//! * EC_Param is the group number of the IANA "IKEv2 Diffie-Hellman Group
//!   Transform IDs" registry, the registry 802.11 itself uses for the
//!   Finite Cyclic Group field of SAE (9.4.1.42): 19 = NIST P-256 (the
//!   default), 20 = NIST P-384, 26 = NIST P-224. The paper's 128-bit curve
//!   gives about 64-bit security, far below any modern level, and has no
//!   number here: it is not offered. The point is exactly `1 + 2 × field
//!   length` octets (57, 65, 97); compressed and infinity encodings are
//!   refused as malformed. Whether the point lies on the curve is checked
//!   where the key is used (`wisec-proto`).
//! * Token set: flags bit 0 ([`TokenSet::FLAG_DOS_PROTECTION`]) says that
//!   the AP enforces tokens (only unused tokens of the previous set are
//!   accepted, seed 003 section 4.1); bit 1 ([`TokenSet::FLAG_FULL_AUTH`])
//!   announces the AP's authentication mode (set: `full_auth`, clear:
//!   `fast_auth`); other bits are reserved (sent as 0, ignored). `interval` is the index t of the set modulo 256. `counter` is
//!   the paper's Counter Field: the number of beacons that will still carry
//!   this set after the current one (0 in the last beacon of the interval).
//! * The SEQ element followed directly by the MAC element form the 33-octet
//!   authentication [`Trailer`] that ends every authenticated frame; a data
//!   frame carries the same 33 octets after its MSDU.

use crate::bytes;
use crate::element::{Element, ElementId, Elements, VendorElement};
use crate::{Error, Result};

/// The OUI of wisec's DiscoSec vendor elements (Company ID format, not an
/// IEEE registration; see the module documentation).
pub const OUI_WISEC: [u8; 3] = [0x7a, 0x15, 0xec];

/// The vendor type octet of a DiscoSec element, an open registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VendorType(pub u8);

impl VendorType {
    /// PK_AP and EC_Param.
    pub const PK_AP: VendorType = VendorType(1);
    /// PK_STA.
    pub const PK_STA: VendorType = VendorType(2);
    /// Association token AT.
    pub const TOKEN: VendorType = VendorType(3);
    /// 32-bit sequence number SEQ.
    pub const SEQ: VendorType = VendorType(4);
    /// MAC element (mode and AES-CMAC tag).
    pub const MAC: VendorType = VendorType(5);
    /// Token set Θ_t with the counter field.
    pub const TOKEN_SET: VendorType = VendorType(6);
}

/// An elliptic-curve group (EC_Param), numbered as in the IANA IKEv2
/// Diffie-Hellman group registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Group(pub u16);

impl Group {
    /// NIST P-256 (secp256r1), group 19: the default.
    pub const P256: Group = Group(19);
    /// NIST P-384 (secp384r1), group 20.
    pub const P384: Group = Group(20);
    /// NIST P-224 (secp224r1), group 26.
    pub const P224: Group = Group(26);

    /// Length of a field element (and of the ECDH shared secret) in octets,
    /// `None` for a group DiscoSec does not offer.
    pub const fn field_len(self) -> Option<usize> {
        match self.0 {
            26 => Some(28),
            19 => Some(32),
            20 => Some(48),
            _ => None,
        }
    }

    /// Length of an uncompressed SEC1 point of this group.
    pub const fn point_len(self) -> Option<usize> {
        match self.field_len() {
            Some(n) => Some(1 + 2 * n),
            None => None,
        }
    }
}

/// The longest point this module accepts (P-384, 97 octets).
pub const MAX_POINT_LEN: usize = 97;

/// The authentication mode of a MAC element (seed 003, section 3.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthMode {
    /// `full_auth`: the whole frame is authenticated.
    Full,
    /// `fast_auth`: one 16-octet block of header fields, AT and SEQ.
    Fast,
    /// Another value.
    Unknown(u8),
}

impl AuthMode {
    /// From the mode octet.
    pub const fn from_u8(v: u8) -> AuthMode {
        match v {
            1 => AuthMode::Full,
            2 => AuthMode::Fast,
            v => AuthMode::Unknown(v),
        }
    }

    /// The mode octet.
    pub const fn to_u8(self) -> u8 {
        match self {
            AuthMode::Full => 1,
            AuthMode::Fast => 2,
            AuthMode::Unknown(v) => v,
        }
    }
}

/// A public key element: PK_AP with EC_Param, or PK_STA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublicKeyElement<'a> {
    /// EC_Param.
    pub group: Group,
    /// The SEC1 uncompressed point.
    pub point: &'a [u8],
}

impl<'a> PublicKeyElement<'a> {
    /// Parses an element body (after the vendor type). `Unsupported` for an
    /// unknown group, `Malformed` for a point of the wrong length or
    /// encoding.
    pub fn parse(body: &'a [u8]) -> Result<PublicKeyElement<'a>> {
        let group = Group(bytes::u16_le(body, 0).ok_or(Error::Truncated)?);
        let point = body.get(2..).unwrap_or(&[]);
        let want = group.point_len().ok_or(Error::Unsupported)?;
        if point.len() != want {
            return Err(if point.len() < want {
                Error::Truncated
            } else {
                Error::Malformed
            });
        }
        if point.first() != Some(&0x04) {
            return Err(Error::Malformed);
        }
        Ok(PublicKeyElement { group, point })
    }

    fn body_len(&self) -> usize {
        2 + self.point.len()
    }

    fn emit_body(&self, b: &mut [u8]) -> Result<usize> {
        let o = bytes::put(b, 0, &self.group.0.to_le_bytes())?;
        bytes::put(b, o, self.point)
    }
}

/// The MAC element: authentication mode and the 16-octet AES-CMAC tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MacElement {
    /// Mode.
    pub mode: AuthMode,
    /// AES-CMAC tag.
    pub tag: [u8; 16],
}

impl MacElement {
    /// Length of the body after the vendor type.
    pub const BODY_LEN: usize = 17;

    /// Parses the body after the vendor type.
    pub fn parse(body: &[u8]) -> Result<MacElement> {
        if body.len() != Self::BODY_LEN {
            return Err(if body.len() < Self::BODY_LEN {
                Error::Truncated
            } else {
                Error::Malformed
            });
        }
        let mode = AuthMode::from_u8(bytes::u8_at(body, 0).ok_or(Error::Truncated)?);
        let tag = bytes::array(body, 1).ok_or(Error::Truncated)?;
        Ok(MacElement { mode, tag })
    }
}

/// A token set Θ_t with its counter field, as published in beacons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenSet<'a> {
    /// Flags; see [`TokenSet::FLAG_DOS_PROTECTION`].
    pub flags: u8,
    /// The interval index t, modulo 256.
    pub interval: u8,
    /// Beacons still carrying this set after the current one.
    pub counter: u8,
    /// The tokens, 4 octets each, little-endian.
    pub tokens: &'a [u8],
}

impl<'a> TokenSet<'a> {
    /// Flag: the AP enforces association tokens (DoS protection on).
    pub const FLAG_DOS_PROTECTION: u8 = 0x01;
    /// Flag: the AP authenticates frames in `full_auth` mode (else
    /// `fast_auth`).
    pub const FLAG_FULL_AUTH: u8 = 0x02;
    /// The most tokens one element can carry.
    pub const MAX_TOKENS: usize = 62;

    /// Parses the body after the vendor type.
    pub fn parse(body: &'a [u8]) -> Result<TokenSet<'a>> {
        let [flags, interval, counter, tokens @ ..] = body else {
            return Err(Error::Truncated);
        };
        if tokens.len() % 4 != 0 || tokens.len() / 4 > Self::MAX_TOKENS {
            return Err(Error::Malformed);
        }
        Ok(TokenSet {
            flags: *flags,
            interval: *interval,
            counter: *counter,
            tokens,
        })
    }

    /// True when the AP enforces tokens.
    pub const fn dos_protection(&self) -> bool {
        self.flags & Self::FLAG_DOS_PROTECTION != 0
    }

    /// The AP's authentication mode.
    pub const fn mode(&self) -> AuthMode {
        if self.flags & Self::FLAG_FULL_AUTH != 0 {
            AuthMode::Full
        } else {
            AuthMode::Fast
        }
    }

    /// Number of tokens.
    pub const fn len(&self) -> usize {
        self.tokens.len() / 4
    }

    /// True when the set is empty.
    pub const fn is_empty(&self) -> bool {
        self.tokens.len() < 4
    }

    /// The `i`th token.
    pub fn get(&self, i: usize) -> Option<u32> {
        bytes::u32_le(self.tokens, i.checked_mul(4)?)
    }

    /// The tokens in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + 'a {
        self.tokens
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
    }

    /// True when `token` is in the set.
    pub fn contains(&self, token: u32) -> bool {
        self.iter().any(|t| t == token)
    }
}

/// An owned token set for emitting (the publisher keeps the tokens).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenSetRepr<'a> {
    /// Flags.
    pub flags: u8,
    /// Interval index modulo 256.
    pub interval: u8,
    /// Counter field.
    pub counter: u8,
    /// The tokens (at most [`TokenSet::MAX_TOKENS`]).
    pub tokens: &'a [u32],
}

/// One DiscoSec element, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscoElement<'a> {
    /// PK_AP with EC_Param.
    PkAp(PublicKeyElement<'a>),
    /// PK_STA.
    PkSta(PublicKeyElement<'a>),
    /// Association token AT.
    Token(u32),
    /// Sequence number SEQ.
    Seq(u32),
    /// Mode and MAC.
    Mac(MacElement),
    /// Token set Θ_t (parse only; emit with [`TokenSetRepr`]).
    TokenSet(TokenSet<'a>),
    /// A wisec element of a type this version does not know.
    Unknown(VendorType),
}

fn u32_body(body: &[u8]) -> Result<u32> {
    match body.len() {
        4 => bytes::u32_le(body, 0).ok_or(Error::Truncated),
        n if n < 4 => Err(Error::Truncated),
        _ => Err(Error::Malformed),
    }
}

impl<'a> DiscoElement<'a> {
    /// `None` for an element that is not a wisec DiscoSec element; else the
    /// element parsed, or why it could not be.
    pub fn from_element(e: Element<'a>) -> Option<Result<DiscoElement<'a>>> {
        let v = VendorElement::from_element(e).ok()?;
        if v.oui != OUI_WISEC {
            return None;
        }
        Some(Self::parse_vendor(v.data))
    }

    fn parse_vendor(data: &'a [u8]) -> Result<DiscoElement<'a>> {
        let (&ty, body) = data.split_first().ok_or(Error::Truncated)?;
        Ok(match VendorType(ty) {
            VendorType::PK_AP => DiscoElement::PkAp(PublicKeyElement::parse(body)?),
            VendorType::PK_STA => DiscoElement::PkSta(PublicKeyElement::parse(body)?),
            VendorType::TOKEN => DiscoElement::Token(u32_body(body)?),
            VendorType::SEQ => DiscoElement::Seq(u32_body(body)?),
            VendorType::MAC => DiscoElement::Mac(MacElement::parse(body)?),
            VendorType::TOKEN_SET => DiscoElement::TokenSet(TokenSet::parse(body)?),
            other => DiscoElement::Unknown(other),
        })
    }

    fn vendor_type(&self) -> VendorType {
        match self {
            DiscoElement::PkAp(_) => VendorType::PK_AP,
            DiscoElement::PkSta(_) => VendorType::PK_STA,
            DiscoElement::Token(_) => VendorType::TOKEN,
            DiscoElement::Seq(_) => VendorType::SEQ,
            DiscoElement::Mac(_) => VendorType::MAC,
            DiscoElement::TokenSet(_) => VendorType::TOKEN_SET,
            DiscoElement::Unknown(t) => *t,
        }
    }

    fn body_len(&self) -> usize {
        match self {
            DiscoElement::PkAp(k) | DiscoElement::PkSta(k) => k.body_len(),
            DiscoElement::Token(_) | DiscoElement::Seq(_) => 4,
            DiscoElement::Mac(_) => MacElement::BODY_LEN,
            DiscoElement::TokenSet(s) => 3 + s.tokens.len(),
            DiscoElement::Unknown(_) => 0,
        }
    }

    /// Length of the whole element on the wire.
    pub fn buffer_len(&self) -> usize {
        6 + self.body_len()
    }

    /// Writes the whole element; `Malformed` when it would exceed 255
    /// octets of data.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let len = u8::try_from(4 + self.body_len()).map_err(|_| Error::Malformed)?;
        let o = bytes::put(buf, 0, &[ElementId::VENDOR_SPECIFIC.0, len])?;
        let o = bytes::put(buf, o, &OUI_WISEC)?;
        let o = bytes::put(buf, o, &[self.vendor_type().0])?;
        let b = buf.get_mut(o..).ok_or(Error::Truncated)?;
        let n = match self {
            DiscoElement::PkAp(k) | DiscoElement::PkSta(k) => k.emit_body(b)?,
            DiscoElement::Token(v) | DiscoElement::Seq(v) => bytes::put(b, 0, &v.to_le_bytes())?,
            DiscoElement::Mac(m) => {
                let o = bytes::put(b, 0, &[m.mode.to_u8()])?;
                bytes::put(b, o, &m.tag)?
            }
            DiscoElement::TokenSet(s) => {
                let o = bytes::put(b, 0, &[s.flags, s.interval, s.counter])?;
                bytes::put(b, o, s.tokens)?
            }
            DiscoElement::Unknown(_) => 0,
        };
        Ok(o + n)
    }
}

impl TokenSetRepr<'_> {
    /// Length of the whole element.
    pub fn buffer_len(&self) -> usize {
        9 + 4 * self.tokens.len()
    }

    /// Writes the whole element; `Malformed` with more than
    /// [`TokenSet::MAX_TOKENS`] tokens.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        if self.tokens.len() > TokenSet::MAX_TOKENS {
            return Err(Error::Malformed);
        }
        let len = u8::try_from(7 + 4 * self.tokens.len()).map_err(|_| Error::Malformed)?;
        let o = bytes::put(buf, 0, &[ElementId::VENDOR_SPECIFIC.0, len])?;
        let o = bytes::put(buf, o, &OUI_WISEC)?;
        let mut o = bytes::put(
            buf,
            o,
            &[
                VendorType::TOKEN_SET.0,
                self.flags,
                self.interval,
                self.counter,
            ],
        )?;
        for t in self.tokens {
            o = bytes::put(buf, o, &t.to_le_bytes())?;
        }
        Ok(o)
    }
}

/// The DiscoSec elements of one frame, collected. At most one of each
/// type; a repeated element or an invalid one makes the whole frame
/// malformed (an attacker must not be able to make two receivers read
/// different values).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiscoInfo<'a> {
    /// PK_AP and EC_Param.
    pub pk_ap: Option<PublicKeyElement<'a>>,
    /// PK_STA.
    pub pk_sta: Option<PublicKeyElement<'a>>,
    /// AT.
    pub token: Option<u32>,
    /// SEQ.
    pub seq: Option<u32>,
    /// MAC.
    pub mac: Option<MacElement>,
    /// Θ_t.
    pub token_set: Option<TokenSet<'a>>,
}

impl<'a> DiscoInfo<'a> {
    /// Collects the DiscoSec elements from a buffer of elements. Other
    /// elements are skipped; a truncated element list is an error.
    pub fn parse(elements: &'a [u8]) -> Result<DiscoInfo<'a>> {
        let mut info = DiscoInfo::default();
        for e in Elements::new(elements) {
            let Some(d) = DiscoElement::from_element(e?) else {
                continue;
            };
            fn set<T>(slot: &mut Option<T>, v: T) -> Result<()> {
                if slot.is_some() {
                    return Err(Error::Malformed);
                }
                *slot = Some(v);
                Ok(())
            }
            match d? {
                DiscoElement::PkAp(k) => set(&mut info.pk_ap, k)?,
                DiscoElement::PkSta(k) => set(&mut info.pk_sta, k)?,
                DiscoElement::Token(t) => set(&mut info.token, t)?,
                DiscoElement::Seq(s) => set(&mut info.seq, s)?,
                DiscoElement::Mac(m) => set(&mut info.mac, m)?,
                DiscoElement::TokenSet(s) => set(&mut info.token_set, s)?,
                DiscoElement::Unknown(_) => {}
            }
        }
        Ok(info)
    }

    /// True when the frame carried no DiscoSec element at all: a legacy
    /// frame.
    pub fn is_empty(&self) -> bool {
        *self == DiscoInfo::default()
    }
}

/// The authentication trailer that ends every authenticated frame: the SEQ
/// element immediately followed by the MAC element (33 octets).
///
/// | offset from trailer start | octets | value |
/// |---|---|---|
/// | 0 | 6 | `dd 08 7a 15 ec 04` |
/// | 6 | 4 | SEQ, little-endian |
/// | 10 | 6 | `dd 15 7a 15 ec 05` |
/// | 16 | 1 | mode |
/// | 17 | 16 | AES-CMAC tag |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trailer {
    /// SEQ.
    pub seq: u32,
    /// Mode.
    pub mode: AuthMode,
    /// Tag.
    pub tag: [u8; 16],
}

const SEQ_PREFIX: [u8; 6] = [
    221,
    8,
    OUI_WISEC[0],
    OUI_WISEC[1],
    OUI_WISEC[2],
    VendorType::SEQ.0,
];
const MAC_PREFIX: [u8; 6] = [
    221,
    21,
    OUI_WISEC[0],
    OUI_WISEC[1],
    OUI_WISEC[2],
    VendorType::MAC.0,
];

impl Trailer {
    /// Length of the trailer.
    pub const LEN: usize = 33;
    /// Offset of the MAC element within the trailer.
    pub const MAC_OFFSET: usize = 10;
    /// Offset of the tag within the trailer.
    pub const TAG_OFFSET: usize = 17;

    /// Reads the trailer at the end of `frame`. `None` when the frame does
    /// not end with a MAC element (a legacy frame, or one that was
    /// truncated); `Malformed` when it ends with a MAC element that is not
    /// directly preceded by a SEQ element. On success also returns the
    /// offset at which the trailer starts.
    pub fn parse(frame: &[u8]) -> Option<Result<(usize, Trailer)>> {
        let start = frame.len().checked_sub(Self::LEN)?;
        let t = frame.get(start..)?;
        if t.get(Self::MAC_OFFSET..Self::MAC_OFFSET + 6)? != MAC_PREFIX {
            return None;
        }
        if t.get(..6)? != SEQ_PREFIX {
            return Some(Err(Error::Malformed));
        }
        let seq = bytes::u32_le(t, 6)?;
        let mode = AuthMode::from_u8(*t.get(16)?);
        let tag = bytes::array(t, Self::TAG_OFFSET)?;
        Some(Ok((start, Trailer { seq, mode, tag })))
    }

    /// Writes the trailer.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let o = bytes::put(buf, 0, &SEQ_PREFIX)?;
        let o = bytes::put(buf, o, &self.seq.to_le_bytes())?;
        let o = bytes::put(buf, o, &MAC_PREFIX)?;
        let o = bytes::put(buf, o, &[self.mode.to_u8()])?;
        bytes::put(buf, o, &self.tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p256_point() -> [u8; 65] {
        let mut p = [0x11u8; 65];
        p[0] = 4;
        p
    }

    #[test]
    fn public_key_round_trip_and_layout() {
        let point = p256_point();
        let e = DiscoElement::PkAp(PublicKeyElement {
            group: Group::P256,
            point: &point,
        });
        let mut buf = [0u8; 80];
        let n = e.emit(&mut buf).unwrap();
        assert_eq!(n, e.buffer_len());
        assert_eq!(n, 6 + 2 + 65);
        // ID, Length, OUI, type, group 19 little-endian, point.
        assert_eq!(&buf[..9], &[221, 71, 0x7a, 0x15, 0xec, 1, 19, 0, 4]);
        let el = Elements::new(&buf[..n]).next().unwrap().unwrap();
        assert_eq!(DiscoElement::from_element(el).unwrap().unwrap(), e);
    }

    #[test]
    fn public_key_rejections() {
        let point = p256_point();
        let mut body = [0u8; 67];
        body[..2].copy_from_slice(&19u16.to_le_bytes());
        body[2..].copy_from_slice(&point);
        assert!(PublicKeyElement::parse(&body).is_ok());
        assert_eq!(PublicKeyElement::parse(&body[..66]), Err(Error::Truncated));
        assert_eq!(PublicKeyElement::parse(&body[..1]), Err(Error::Truncated));
        let mut compressed = body;
        compressed[2] = 2;
        assert_eq!(PublicKeyElement::parse(&compressed), Err(Error::Malformed));
        let mut unknown = body;
        unknown[0] = 21; // P-521 is not offered.
        assert_eq!(PublicKeyElement::parse(&unknown), Err(Error::Unsupported));
        let mut p384 = body;
        p384[0] = 20; // A P-256-sized point under the P-384 group.
        assert_eq!(PublicKeyElement::parse(&p384), Err(Error::Truncated));
        let mut p224 = body;
        p224[0] = 26;
        assert_eq!(PublicKeyElement::parse(&p224), Err(Error::Malformed));
    }

    #[test]
    fn groups() {
        assert_eq!(Group::P224.point_len(), Some(57));
        assert_eq!(Group::P256.point_len(), Some(65));
        assert_eq!(Group::P384.point_len(), Some(97));
        assert_eq!(Group(0).point_len(), None);
    }

    #[test]
    fn token_set_round_trip() {
        let tokens = [1u32, 0xdead_beef, 7];
        let r = TokenSetRepr {
            flags: TokenSet::FLAG_DOS_PROTECTION,
            interval: 9,
            counter: 3,
            tokens: &tokens,
        };
        let mut buf = [0u8; 64];
        let n = r.emit(&mut buf).unwrap();
        assert_eq!(n, r.buffer_len());
        assert_eq!(
            &buf[..13],
            &[221, 19, 0x7a, 0x15, 0xec, 6, 1, 9, 3, 1, 0, 0, 0]
        );
        let info = DiscoInfo::parse(&buf[..n]).unwrap();
        let s = info.token_set.unwrap();
        assert!(s.dos_protection());
        assert_eq!(s.mode(), AuthMode::Fast);
        assert_eq!(TokenSet::parse(&[3, 0, 0]).unwrap().mode(), AuthMode::Full);
        assert_eq!((s.interval, s.counter, s.len()), (9, 3, 3));
        assert_eq!(s.get(1), Some(0xdead_beef));
        assert_eq!(s.get(3), None);
        assert!(s.contains(7) && !s.contains(8));
        let too_many = [0u32; 63];
        let r = TokenSetRepr {
            tokens: &too_many,
            ..r
        };
        assert_eq!(r.emit(&mut [0u8; 300]), Err(Error::Malformed));
        assert_eq!(TokenSet::parse(&[0, 0]), Err(Error::Truncated));
        assert_eq!(TokenSet::parse(&[0, 0, 0, 1, 2]), Err(Error::Malformed));
        let max = [0u8; 3 + 4 * 62];
        assert_eq!(TokenSet::parse(&max).unwrap().len(), 62);
    }

    #[test]
    fn trailer_round_trip_and_legacy() {
        let t = Trailer {
            seq: 0x0102_0304,
            mode: AuthMode::Fast,
            tag: [0xaa; 16],
        };
        let mut frame = [0u8; 24 + 2 + Trailer::LEN];
        t.emit(&mut frame[26..]).unwrap();
        let (start, back) = Trailer::parse(&frame).unwrap().unwrap();
        assert_eq!((start, back), (26, t));
        // The trailer reads as two ordinary elements.
        let info = DiscoInfo::parse(&frame[26..]).unwrap();
        assert_eq!(info.seq, Some(0x0102_0304));
        assert_eq!(info.mac.map(|m| m.tag), Some([0xaa; 16]));
        // A frame without it is legacy; a MAC element without SEQ before it
        // is malformed.
        assert!(Trailer::parse(&frame[..40]).is_none());
        assert!(Trailer::parse(&[]).is_none());
        frame[26] = 0;
        assert_eq!(Trailer::parse(&frame), Some(Err(Error::Malformed)));
    }

    #[test]
    fn info_rejects_duplicates_and_bad_elements() {
        let mut buf = [0u8; 40];
        let e = DiscoElement::Seq(5);
        let n = e.emit(&mut buf).unwrap();
        let m = e.emit(&mut buf[n..]).unwrap();
        assert_eq!(DiscoInfo::parse(&buf[..n]).unwrap().seq, Some(5));
        assert_eq!(DiscoInfo::parse(&buf[..n + m]), Err(Error::Malformed));
        // A token element with 3 octets.
        let bad = [221, 7, 0x7a, 0x15, 0xec, 3, 1, 2, 3];
        assert_eq!(DiscoInfo::parse(&bad), Err(Error::Truncated));
        // Other vendors' elements and unknown wisec types are skipped.
        let other = [221, 5, 0x00, 0x50, 0xf2, 3, 1, 221, 4, 0x7a, 0x15, 0xec, 99];
        assert!(DiscoInfo::parse(&other).unwrap().is_empty());
        // A truncated element list is an error.
        assert_eq!(DiscoInfo::parse(&[221, 9, 0x7a]), Err(Error::Truncated));
    }

    #[test]
    fn token_and_mac_elements() {
        let mut buf = [0u8; 40];
        let n = DiscoElement::Token(0x1122_3344).emit(&mut buf).unwrap();
        assert_eq!(
            &buf[..n],
            &[221, 8, 0x7a, 0x15, 0xec, 3, 0x44, 0x33, 0x22, 0x11]
        );
        let mac = DiscoElement::Mac(MacElement {
            mode: AuthMode::Full,
            tag: [3; 16],
        });
        let n = mac.emit(&mut buf).unwrap();
        assert_eq!(n, 23);
        let el = Elements::new(&buf[..n]).next().unwrap().unwrap();
        assert_eq!(DiscoElement::from_element(el).unwrap().unwrap(), mac);
        assert_eq!(MacElement::parse(&[1; 16]), Err(Error::Truncated));
        assert_eq!(MacElement::parse(&[1; 18]), Err(Error::Malformed));
        assert_eq!(AuthMode::from_u8(9), AuthMode::Unknown(9));
        assert_eq!(
            DiscoElement::Token(1).emit(&mut buf[..9]),
            Err(Error::Truncated)
        );
    }

    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            /// Random and truncated element bytes never panic, and every
            /// element that parses re-emits to its own bytes.
            #[test]
            fn parsers_never_panic(b in proptest::collection::vec(any::<u8>(), 0..300)) {
                let _ = DiscoInfo::parse(&b);
                let _ = Trailer::parse(&b);
                for e in Elements::new(&b).map_while(|e| e.ok()) {
                    if let Some(Ok(d)) = DiscoElement::from_element(e) {
                        if !matches!(d, DiscoElement::Unknown(_)) {
                            let mut out = [0u8; 260];
                            let n = d.emit(&mut out).unwrap();
                            prop_assert_eq!(&out[2..n], e.data);
                        }
                    }
                }
            }

            /// Well-formed DiscoSec elements with random bodies, cut at any
            /// length, are rejected with an error and never panic.
            #[test]
            fn truncated_elements(ty in 1u8..8, body in proptest::collection::vec(any::<u8>(), 0..120), cut in 0usize..130) {
                let mut buf = [0u8; 140];
                buf[0] = 221;
                buf[1] = (4 + body.len()) as u8;
                buf[2..5].copy_from_slice(&OUI_WISEC);
                buf[5] = ty;
                buf[6..6 + body.len()].copy_from_slice(&body);
                let full = 6 + body.len();
                let _ = DiscoInfo::parse(&buf[..full]);
                let cut = cut.min(full);
                if cut < full {
                    prop_assert!(DiscoInfo::parse(&buf[..cut]).is_err() || cut == 0);
                }
            }
        }
    }
}
