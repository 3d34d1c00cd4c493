//! EAP packets (RFC 3748, 4) and the EAPOL-EAP PDU that carries them
//! between a supplicant and an authenticator (IEEE Std 802.1X-2020, 11.3).
//!
//! ```text
//! Code (1) | Identifier (1) | Length (2, big-endian) | Type (1) | Type-Data
//! ```
//!
//! Request and Response packets carry a Type; Success and Failure are the
//! four header octets only. Length covers the whole packet; octets after
//! it (link padding) are not part of it.

use crate::bytes;
use crate::eapol::{PacketType, EAPOL_HEADER_LEN};
use crate::{Error, Result};

/// Length of the EAP header (Code, Identifier, Length).
pub const HEADER_LEN: usize = 4;

/// The EAP Code (RFC 3748, 4), a closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// 1.
    Request,
    /// 2.
    Response,
    /// 3.
    Success,
    /// 4.
    Failure,
    /// Another value (5 and 6 are ERP's Initiate and Finish, RFC 6696).
    Unknown(u8),
}

impl Code {
    /// From the field value.
    pub const fn from_u8(v: u8) -> Code {
        match v {
            1 => Code::Request,
            2 => Code::Response,
            3 => Code::Success,
            4 => Code::Failure,
            v => Code::Unknown(v),
        }
    }

    /// The field value.
    pub const fn to_u8(self) -> u8 {
        match self {
            Code::Request => 1,
            Code::Response => 2,
            Code::Success => 3,
            Code::Failure => 4,
            Code::Unknown(v) => v,
        }
    }

    /// Request and Response carry a Type.
    pub const fn has_type(self) -> bool {
        matches!(self, Code::Request | Code::Response)
    }
}

/// An EAP method Type (IANA "Method Types"), an open registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EapType(pub u8);

impl EapType {
    /// 1: Identity (RFC 3748, 5.1).
    pub const IDENTITY: EapType = EapType(1);
    /// 2: Notification (RFC 3748, 5.2).
    pub const NOTIFICATION: EapType = EapType(2);
    /// 3: Legacy Nak (RFC 3748, 5.3.1).
    pub const NAK: EapType = EapType(3);
    /// 4: MD5-Challenge (RFC 3748, 5.4).
    pub const MD5: EapType = EapType(4);
    /// 13: EAP-TLS (RFC 5216).
    pub const TLS: EapType = EapType(13);
    /// 17: Cisco LEAP.
    pub const LEAP: EapType = EapType(17);
    /// 21: EAP-TTLS (RFC 5281).
    pub const TTLS: EapType = EapType(21);
    /// 25: PEAP.
    pub const PEAP: EapType = EapType(25);
    /// 26: EAP-MSCHAPv2.
    pub const MSCHAPV2: EapType = EapType(26);

    /// The method's usual name, for reports.
    pub const fn name(self) -> &'static str {
        match self.0 {
            1 => "Identity",
            2 => "Notification",
            3 => "Nak",
            4 => "MD5",
            13 => "TLS",
            17 => "LEAP",
            21 => "TTLS",
            25 => "PEAP",
            26 => "MSCHAPv2",
            _ => "unknown",
        }
    }
}

/// A view over an EAP packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EapPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> EapPacket<T> {
    /// Wraps a buffer without checking it; accessors never panic.
    pub const fn new_unchecked(buffer: T) -> EapPacket<T> {
        EapPacket { buffer }
    }

    /// Wraps a buffer after [`EapPacket::check_len`].
    pub fn new_checked(buffer: T) -> Result<EapPacket<T>> {
        let p = EapPacket::new_unchecked(buffer);
        p.check_len()?;
        Ok(p)
    }

    /// Checks that the header is present, that Length covers at least the
    /// header (and the Type of a Request or Response) and that the buffer
    /// holds Length octets.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let len = usize::from(self.length());
        let min = if self.code().has_type() {
            HEADER_LEN + 1
        } else {
            HEADER_LEN
        };
        if len < min {
            return Err(Error::Malformed);
        }
        if b.len() < len {
            return Err(Error::Truncated);
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

    /// Length (of the whole packet).
    pub fn length(&self) -> u16 {
        bytes::u16_be(self.buffer.as_ref(), 2).unwrap_or(0)
    }

    /// The Type of a Request or Response.
    pub fn eap_type(&self) -> Option<EapType> {
        if !self.code().has_type() {
            return None;
        }
        bytes::u8_at(self.buffer.as_ref(), HEADER_LEN).map(EapType)
    }

    /// The Type-Data of a Request or Response (empty otherwise).
    pub fn type_data(&self) -> &[u8] {
        if !self.code().has_type() {
            return &[];
        }
        let end = usize::from(self.length());
        self.buffer.as_ref().get(HEADER_LEN + 1..end).unwrap_or(&[])
    }

    /// The packet itself (Length octets).
    pub fn as_bytes(&self) -> &[u8] {
        let end = usize::from(self.length());
        self.buffer.as_ref().get(..end).unwrap_or(&[])
    }
}

/// Writes an EAP packet into `buf`: `Some(type)` and `data` for a Request
/// or Response, `None` and no data for Success and Failure. Its length.
pub fn emit(
    code: Code,
    identifier: u8,
    eap_type: Option<EapType>,
    data: &[u8],
    buf: &mut [u8],
) -> Result<usize> {
    if code.has_type() != eap_type.is_some() || (eap_type.is_none() && !data.is_empty()) {
        return Err(Error::Malformed);
    }
    let len = HEADER_LEN + usize::from(eap_type.is_some()) + data.len();
    let len16 = u16::try_from(len).map_err(|_| Error::Malformed)?;
    let out = buf.get_mut(..len).ok_or(Error::Truncated)?;
    out[0] = code.to_u8();
    out[1] = identifier;
    out[2..4].copy_from_slice(&len16.to_be_bytes());
    if let Some(t) = eap_type {
        out[4] = t.0;
        out[5..].copy_from_slice(data);
    }
    Ok(len)
}

/// Writes an EAPOL PDU (IEEE Std 802.1X-2020, 11.3.1) of `version` and
/// `packet_type` around `body` into `buf`. Its length.
pub fn emit_eapol(
    version: u8,
    packet_type: PacketType,
    body: &[u8],
    buf: &mut [u8],
) -> Result<usize> {
    let len = EAPOL_HEADER_LEN + body.len();
    let body_len = u16::try_from(body.len()).map_err(|_| Error::Malformed)?;
    let out = buf.get_mut(..len).ok_or(Error::Truncated)?;
    out[0] = version;
    out[1] = packet_type.to_u8();
    out[2..4].copy_from_slice(&body_len.to_be_bytes());
    out[4..].copy_from_slice(body);
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eapol::EapolFrame;

    #[test]
    fn requests_and_successes_parse_and_emit() {
        // An EAPOL-EAP PDU carrying EAP-Request/Identity, id 7 (RFC 3748,
        // 5.1: no Type-Data), as wpa_supplicant receives it.
        let pdu = [2u8, 0, 0, 5, 1, 7, 0, 5, 1];
        let f = EapolFrame::new_checked(&pdu[..]).unwrap();
        assert_eq!(f.packet_type(), PacketType::Eap);
        let p = EapPacket::new_checked(f.body()).unwrap();
        assert_eq!(p.code(), Code::Request);
        assert_eq!(p.identifier(), 7);
        assert_eq!(p.eap_type(), Some(EapType::IDENTITY));
        assert!(p.type_data().is_empty());
        let mut b = [0u8; 16];
        let n = emit(Code::Request, 7, Some(EapType::IDENTITY), &[], &mut b).unwrap();
        assert_eq!(&b[..n], &pdu[4..]);
        let mut e = [0u8; 16];
        let m = emit_eapol(2, PacketType::Eap, &b[..n], &mut e).unwrap();
        assert_eq!(&e[..m], &pdu);

        let n = emit(Code::Success, 9, None, &[], &mut b).unwrap();
        assert_eq!(&b[..n], &[3, 9, 0, 4]);
        let s = EapPacket::new_checked(&b[..n]).unwrap();
        assert_eq!(s.eap_type(), None);
        assert!(emit(Code::Success, 9, Some(EapType::MD5), &[], &mut b).is_err());
        assert!(emit(Code::Response, 9, None, &[], &mut b).is_err());
    }

    #[test]
    fn lengths_are_checked() {
        // Length larger than the buffer.
        assert_eq!(
            EapPacket::new_checked(&[2u8, 1, 0, 9, 1][..]).err(),
            Some(Error::Truncated)
        );
        // A Response without its Type.
        assert_eq!(
            EapPacket::new_checked(&[2u8, 1, 0, 4][..]).err(),
            Some(Error::Malformed)
        );
        // Padding after Length is not part of the packet.
        let p = EapPacket::new_checked(&[2u8, 1, 0, 7, 1, b'a', b'b', 0, 0][..]).unwrap();
        assert_eq!(p.type_data(), b"ab");
        assert_eq!(p.as_bytes().len(), 7);
        assert!(EapPacket::new_checked(&[1u8][..]).is_err());
    }
}
