//! RADIUS packets (RFC 2865, 3): a view that checks the header and every
//! attribute's length, an iterator over the attributes and the
//! vendor-specific sub-attributes (5.26), and a writer that appends
//! attributes and splits long values (EAP-Message, RFC 3579, 3.1) over
//! several attributes.
//!
//! ```text
//! Code (1) | Identifier (1) | Length (2) | Authenticator (16) | Attributes
//! Attribute: Type (1) | Length (1, type and length included) | Value
//! ```

use crate::bytes;
use crate::{Error, Result};

/// Length of the header (Code, Identifier, Length, Authenticator).
pub const HEADER_LEN: usize = 20;
/// Longest packet (RFC 2865, 3).
pub const MAX_LEN: usize = 4096;
/// Longest attribute value (an attribute is at most 255 octets).
pub const MAX_VALUE_LEN: usize = 253;
/// The standard RADIUS authentication port (RFC 2865, 3).
pub const AUTH_PORT: u16 = 1812;

/// The packet Code (RFC 2865, 3; RFC 5997 for Status-Server).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// 1.
    AccessRequest,
    /// 2.
    AccessAccept,
    /// 3.
    AccessReject,
    /// 4.
    AccountingRequest,
    /// 5.
    AccountingResponse,
    /// 11.
    AccessChallenge,
    /// 12.
    StatusServer,
    /// Another value.
    Unknown(u8),
}

impl Code {
    /// From the field value.
    pub const fn from_u8(v: u8) -> Code {
        match v {
            1 => Code::AccessRequest,
            2 => Code::AccessAccept,
            3 => Code::AccessReject,
            4 => Code::AccountingRequest,
            5 => Code::AccountingResponse,
            11 => Code::AccessChallenge,
            12 => Code::StatusServer,
            v => Code::Unknown(v),
        }
    }

    /// The field value.
    pub const fn to_u8(self) -> u8 {
        match self {
            Code::AccessRequest => 1,
            Code::AccessAccept => 2,
            Code::AccessReject => 3,
            Code::AccountingRequest => 4,
            Code::AccountingResponse => 5,
            Code::AccessChallenge => 11,
            Code::StatusServer => 12,
            Code::Unknown(v) => v,
        }
    }
}

/// An attribute Type (RFC 2865, 5, and later RFCs), an open registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AttrType(pub u8);

impl AttrType {
    /// 1 (RFC 2865, 5.1).
    pub const USER_NAME: AttrType = AttrType(1);
    /// 2 (RFC 2865, 5.2).
    pub const USER_PASSWORD: AttrType = AttrType(2);
    /// 4 (RFC 2865, 5.4).
    pub const NAS_IP_ADDRESS: AttrType = AttrType(4);
    /// 5 (RFC 2865, 5.5).
    pub const NAS_PORT: AttrType = AttrType(5);
    /// 6 (RFC 2865, 5.6).
    pub const SERVICE_TYPE: AttrType = AttrType(6);
    /// 12 (RFC 2865, 5.12).
    pub const FRAMED_MTU: AttrType = AttrType(12);
    /// 18 (RFC 2865, 5.18).
    pub const REPLY_MESSAGE: AttrType = AttrType(18);
    /// 24 (RFC 2865, 5.24).
    pub const STATE: AttrType = AttrType(24);
    /// 25 (RFC 2865, 5.25).
    pub const CLASS: AttrType = AttrType(25);
    /// 26 (RFC 2865, 5.26).
    pub const VENDOR_SPECIFIC: AttrType = AttrType(26);
    /// 27 (RFC 2865, 5.27).
    pub const SESSION_TIMEOUT: AttrType = AttrType(27);
    /// 30 (RFC 2865, 5.30).
    pub const CALLED_STATION_ID: AttrType = AttrType(30);
    /// 31 (RFC 2865, 5.31).
    pub const CALLING_STATION_ID: AttrType = AttrType(31);
    /// 32 (RFC 2865, 5.32).
    pub const NAS_IDENTIFIER: AttrType = AttrType(32);
    /// 61 (RFC 2865, 5.41).
    pub const NAS_PORT_TYPE: AttrType = AttrType(61);
    /// 77 (RFC 2869, 5.11).
    pub const CONNECT_INFO: AttrType = AttrType(77);
    /// 79 (RFC 3579, 3.1).
    pub const EAP_MESSAGE: AttrType = AttrType(79);
    /// 80 (RFC 3579, 3.2).
    pub const MESSAGE_AUTHENTICATOR: AttrType = AttrType(80);
}

/// Vendor-Id of Microsoft (RFC 2548).
pub const VENDOR_MICROSOFT: u32 = 311;
/// Vendor-Id of Cisco.
pub const VENDOR_CISCO: u32 = 9;
/// MS-MPPE-Send-Key (RFC 2548, 2.4.2).
pub const MS_MPPE_SEND_KEY: u8 = 16;
/// MS-MPPE-Recv-Key (RFC 2548, 2.4.3).
pub const MS_MPPE_RECV_KEY: u8 = 17;
/// Cisco-AVPair.
pub const CISCO_AVPAIR: u8 = 1;
/// NAS-Port-Type Wireless - IEEE 802.11 (RFC 2865, 5.41).
pub const NAS_PORT_TYPE_80211: u32 = 19;
/// Service-Type Framed (RFC 2865, 5.6).
pub const SERVICE_TYPE_FRAMED: u32 = 2;

/// One attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attribute<'a> {
    /// Its Type.
    pub attr_type: AttrType,
    /// Its Value.
    pub value: &'a [u8],
    /// Where its Value starts in the packet.
    pub value_offset: usize,
}

impl<'a> Attribute<'a> {
    /// The Vendor-Id and the rest of a Vendor-Specific attribute.
    pub fn vendor_specific(&self) -> Option<(u32, &'a [u8])> {
        if self.attr_type != AttrType::VENDOR_SPECIFIC {
            return None;
        }
        let id = bytes::u32_be(self.value, 0)?;
        Some((id, self.value.get(4..)?))
    }
}

/// The attributes of a packet, in order. Stops at the first one whose
/// length is wrong (a checked packet has none).
#[derive(Debug, Clone)]
pub struct Attributes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Attributes<'a> {
    type Item = Attribute<'a>;

    fn next(&mut self) -> Option<Attribute<'a>> {
        let t = *self.data.get(self.pos)?;
        let l = usize::from(*self.data.get(self.pos + 1)?);
        if l < 2 {
            return None;
        }
        let value = self.data.get(self.pos + 2..self.pos + l)?;
        let a = Attribute {
            attr_type: AttrType(t),
            value,
            value_offset: self.pos + 2,
        };
        self.pos += l;
        Some(a)
    }
}

/// The sub-attributes of a Vendor-Specific value (after the Vendor-Id) in
/// the format RFC 2865, 5.26 recommends: Vendor type (1), Vendor length
/// (1, both included), value. (vendor type, value) pairs; stops at the
/// first malformed one.
pub fn vendor_attributes(data: &[u8]) -> impl Iterator<Item = (u8, &[u8])> {
    let mut pos = 0usize;
    core::iter::from_fn(move || {
        let t = *data.get(pos)?;
        let l = usize::from(*data.get(pos + 1)?);
        if l < 2 {
            return None;
        }
        let v = data.get(pos + 2..pos + l)?;
        pos += l;
        Some((t, v))
    })
}

/// A view over a RADIUS packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Wraps a buffer without checking it; accessors never panic.
    pub const fn new_unchecked(buffer: T) -> Packet<T> {
        Packet { buffer }
    }

    /// Wraps a buffer after [`Packet::check_len`].
    pub fn new_checked(buffer: T) -> Result<Packet<T>> {
        let p = Packet::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks the header, that Length is 20 to 4096 and present in the
    /// buffer (octets after it are padding and ignored, RFC 2865, 3), and
    /// that the attributes fill it exactly, each at least 2 octets long.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let len = usize::from(self.length());
        if !(HEADER_LEN..=MAX_LEN).contains(&len) {
            return Err(Error::Malformed);
        }
        if b.len() < len {
            return Err(Error::Truncated);
        }
        let mut pos = HEADER_LEN;
        while pos < len {
            let l = usize::from(*b.get(pos + 1).ok_or(Error::Malformed)?);
            if l < 2 || pos + l > len {
                return Err(Error::Malformed);
            }
            pos += l;
        }
        Ok(())
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Code.
    pub fn code(&self) -> Code {
        Code::from_u8(bytes::u8_at(self.buffer.as_ref(), 0).unwrap_or(0))
    }

    /// Identifier.
    pub fn identifier(&self) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), 1).unwrap_or(0)
    }

    /// Length.
    pub fn length(&self) -> u16 {
        bytes::u16_be(self.buffer.as_ref(), 2).unwrap_or(0)
    }

    /// Authenticator (zeros if the buffer is too short).
    pub fn authenticator(&self) -> [u8; 16] {
        let mut a = [0u8; 16];
        if let Some(s) = self.buffer.as_ref().get(4..HEADER_LEN) {
            a.copy_from_slice(s);
        }
        a
    }

    /// The packet itself (Length octets).
    pub fn as_bytes(&self) -> &[u8] {
        let end = usize::from(self.length());
        self.buffer.as_ref().get(..end).unwrap_or(&[])
    }

    /// The attributes, in order.
    pub fn attributes(&self) -> Attributes<'_> {
        Attributes {
            data: self.as_bytes(),
            pos: HEADER_LEN,
        }
    }

    /// The first attribute of type `t`.
    pub fn attribute(&self, t: AttrType) -> Option<Attribute<'_>> {
        self.attributes().find(|a| a.attr_type == t)
    }

    /// The value of the first vendor sub-attribute `vendor_type` of
    /// `vendor`.
    pub fn vendor_attribute(&self, vendor: u32, vendor_type: u8) -> Option<&[u8]> {
        self.attributes()
            .filter_map(|a| a.vendor_specific())
            .filter(|(v, _)| *v == vendor)
            .find_map(|(_, rest)| {
                vendor_attributes(rest)
                    .find(|(t, _)| *t == vendor_type)
                    .map(|(_, v)| v)
            })
    }
}

/// Builds a packet in a caller's buffer: the header first, then
/// attributes one after another; [`PacketWriter::finish`] writes Length.
#[derive(Debug)]
pub struct PacketWriter<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl<'a> PacketWriter<'a> {
    /// Starts a packet of `code` and `identifier` with `authenticator`
    /// (a Request Authenticator, or zeros to be filled in later).
    pub fn new(
        code: Code,
        identifier: u8,
        authenticator: &[u8; 16],
        buf: &'a mut [u8],
    ) -> Result<PacketWriter<'a>> {
        let h = buf.get_mut(..HEADER_LEN).ok_or(Error::Truncated)?;
        h[0] = code.to_u8();
        h[1] = identifier;
        h[2..4].copy_from_slice(&(HEADER_LEN as u16).to_be_bytes());
        h[4..HEADER_LEN].copy_from_slice(authenticator);
        Ok(PacketWriter {
            buf,
            len: HEADER_LEN,
        })
    }

    /// Appends an attribute; the offset of its value in the packet.
    pub fn add(&mut self, t: AttrType, value: &[u8]) -> Result<usize> {
        if value.len() > MAX_VALUE_LEN {
            return Err(Error::Malformed);
        }
        let end = self.len + 2 + value.len();
        if end > MAX_LEN {
            return Err(Error::Malformed);
        }
        let out = self.buf.get_mut(self.len..end).ok_or(Error::Truncated)?;
        out[0] = t.0;
        out[1] = (2 + value.len()) as u8;
        out[2..].copy_from_slice(value);
        let at = self.len + 2;
        self.len = end;
        Ok(at)
    }

    /// Appends a 32-bit integer attribute.
    pub fn add_u32(&mut self, t: AttrType, v: u32) -> Result<usize> {
        self.add(t, &v.to_be_bytes())
    }

    /// Appends `value` as consecutive attributes of type `t` of at most
    /// 253 octets each, in order (EAP-Message, RFC 3579, 3.1).
    pub fn add_split(&mut self, t: AttrType, value: &[u8]) -> Result<()> {
        for chunk in value.chunks(MAX_VALUE_LEN) {
            self.add(t, chunk)?;
        }
        Ok(())
    }

    /// Appends a Vendor-Specific attribute with one sub-attribute; the
    /// offset of the sub-attribute's value.
    pub fn add_vendor(&mut self, vendor: u32, vendor_type: u8, value: &[u8]) -> Result<usize> {
        if value.len() > MAX_VALUE_LEN - 6 {
            return Err(Error::Malformed);
        }
        let mut v = [0u8; MAX_VALUE_LEN];
        v[..4].copy_from_slice(&vendor.to_be_bytes());
        v[4] = vendor_type;
        v[5] = (2 + value.len()) as u8;
        v[6..6 + value.len()].copy_from_slice(value);
        let at = self.add(AttrType::VENDOR_SPECIFIC, &v[..6 + value.len()])?;
        Ok(at + 6)
    }

    /// The packet so far (Length not yet written).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.buf[..self.len]
    }

    /// Writes Length; the packet's length.
    pub fn finish(self) -> usize {
        self.buf[2..4].copy_from_slice(&(self.len as u16).to_be_bytes());
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 2865, 7.1: the example Access-Request (User-Name "nemo",
    /// User-Password, NAS-IP-Address 192.168.1.16, NAS-Port 3).
    const REQUEST: [u8; 56] = [
        0x01, 0x00, 0x00, 0x38, 0x0f, 0x40, 0x3f, 0x94, 0x73, 0x97, 0x80, 0x57, 0xbd, 0x83, 0xd5,
        0xcb, 0x98, 0xf4, 0x22, 0x7a, 0x01, 0x06, 0x6e, 0x65, 0x6d, 0x6f, 0x02, 0x12, 0x0d, 0xbe,
        0x70, 0x8d, 0x93, 0xd4, 0x13, 0xce, 0x31, 0x96, 0xe4, 0x3f, 0x78, 0x2a, 0x0a, 0xee, 0x04,
        0x06, 0xc0, 0xa8, 0x01, 0x10, 0x05, 0x06, 0x00, 0x00, 0x00, 0x03,
    ];

    #[test]
    fn rfc2865_example_parses_and_rebuilds() {
        let p = Packet::new_checked(&REQUEST[..]).unwrap();
        assert_eq!(p.code(), Code::AccessRequest);
        assert_eq!(p.identifier(), 0);
        assert_eq!(p.attribute(AttrType::USER_NAME).unwrap().value, b"nemo");
        assert_eq!(
            p.attribute(AttrType::NAS_IP_ADDRESS).unwrap().value,
            &[192, 168, 1, 16]
        );
        assert_eq!(p.attributes().count(), 4);
        let mut buf = [0u8; 128];
        let mut w =
            PacketWriter::new(Code::AccessRequest, 0, &p.authenticator(), &mut buf).unwrap();
        w.add(AttrType::USER_NAME, b"nemo").unwrap();
        w.add(AttrType::USER_PASSWORD, &REQUEST[28..44]).unwrap();
        w.add(AttrType::NAS_IP_ADDRESS, &[192, 168, 1, 16]).unwrap();
        w.add_u32(AttrType::NAS_PORT, 3).unwrap();
        let n = w.finish();
        assert_eq!(&buf[..n], &REQUEST[..]);
    }

    #[test]
    fn malformed_attributes_are_rejected() {
        let mut b = REQUEST;
        b[21] = 1; // an attribute of length 1
        assert_eq!(Packet::new_checked(&b[..]).err(), Some(Error::Malformed));
        let mut b = REQUEST;
        b[21] = 60; // runs past Length
        assert_eq!(Packet::new_checked(&b[..]).err(), Some(Error::Malformed));
        let mut b = REQUEST;
        b[3] = 0x39; // Length past the buffer
        assert_eq!(Packet::new_checked(&b[..]).err(), Some(Error::Truncated));
        let mut b = REQUEST;
        b[3] = 19;
        assert_eq!(Packet::new_checked(&b[..]).err(), Some(Error::Malformed));
    }

    #[test]
    fn long_values_split_and_vendor_attributes_nest() {
        let mut buf = [0u8; 1024];
        let mut w = PacketWriter::new(Code::AccessAccept, 5, &[0; 16], &mut buf).unwrap();
        let eap = [0xabu8; 600];
        w.add_split(AttrType::EAP_MESSAGE, &eap).unwrap();
        let at = w
            .add_vendor(VENDOR_MICROSOFT, MS_MPPE_RECV_KEY, &[1, 2, 3])
            .unwrap();
        let n = w.finish();
        let p = Packet::new_checked(&buf[..n]).unwrap();
        let parts: usize = p
            .attributes()
            .filter(|a| a.attr_type == AttrType::EAP_MESSAGE)
            .map(|a| a.value.len())
            .sum();
        assert_eq!(parts, 600);
        assert_eq!(
            p.vendor_attribute(VENDOR_MICROSOFT, MS_MPPE_RECV_KEY),
            Some(&[1u8, 2, 3][..])
        );
        assert_eq!(&buf[at..at + 3], &[1, 2, 3]);
        assert_eq!(p.vendor_attribute(VENDOR_CISCO, MS_MPPE_RECV_KEY), None);
        let mut w = PacketWriter::new(Code::AccessAccept, 5, &[0; 16], &mut buf).unwrap();
        assert!(w.add(AttrType::STATE, &[0; 254]).is_err());
    }
}
