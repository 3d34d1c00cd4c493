//! The LLC/SNAP header that starts the body of an 802.11 data frame.
//!
//! 802.11 carries an MSDU behind an IEEE 802.2 LLC header with DSAP = SSAP =
//! 0xAA and Control = 0x03 (unnumbered information), followed by the SNAP
//! header: a 3-byte OUI and the 2-byte EtherType (IEEE Std 802-2014, 10.3;
//! IETF RFC 1042). The OUI is 00-00-00 (RFC 1042) except for the EtherTypes
//! that IEEE Std 802.1H bridges translate, which use 00-00-F8.

use crate::bytes;
use crate::{Error, Result};

/// Length of the LLC/SNAP header.
pub const SNAP_HEADER_LEN: usize = 8;

/// The DSAP and SSAP value of a SNAP header.
pub const SNAP_SAP: u8 = 0xaa;
/// The LLC Control value of a SNAP header (UI).
pub const LLC_UI: u8 = 0x03;
/// The RFC 1042 encapsulation OUI.
pub const OUI_RFC1042: [u8; 3] = [0x00, 0x00, 0x00];
/// The IEEE 802.1H bridge-tunnel encapsulation OUI.
pub const OUI_BRIDGE_TUNNEL: [u8; 3] = [0x00, 0x00, 0xf8];

/// An EtherType (an open registry, so a newtype with constants).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct EtherType(pub u16);

impl EtherType {
    /// Internet Protocol version 4.
    pub const IPV4: EtherType = EtherType(0x0800);
    /// Address Resolution Protocol.
    pub const ARP: EtherType = EtherType(0x0806);
    /// AppleTalk ARP (sent with the bridge-tunnel OUI).
    pub const AARP: EtherType = EtherType(0x80f3);
    /// IEEE 802.1Q VLAN tag.
    pub const VLAN: EtherType = EtherType(0x8100);
    /// Novell IPX (sent with the bridge-tunnel OUI).
    pub const IPX: EtherType = EtherType(0x8137);
    /// Internet Protocol version 6.
    pub const IPV6: EtherType = EtherType(0x86dd);
    /// EAP over LAN (IEEE Std 802.1X).
    pub const EAPOL: EtherType = EtherType(0x888e);
    /// RSN pre-authentication (IEEE Std 802.11-2020, 12.6.10.2).
    pub const PREAUTH: EtherType = EtherType(0x88c7);
    /// TDLS and other 802.11 frames encapsulated in data frames
    /// (IEEE Std 802.11-2020, Annex D / 9.3.2.1, "89-0d").
    pub const TDLS: EtherType = EtherType(0x890d);

    /// The OUI an RFC 1042 / 802.1H sender puts in front of this EtherType.
    pub fn snap_oui(self) -> [u8; 3] {
        if self == EtherType::AARP || self == EtherType::IPX {
            OUI_BRIDGE_TUNNEL
        } else {
            OUI_RFC1042
        }
    }
}

mod field {
    pub const DSAP: usize = 0;
    pub const SSAP: usize = 1;
    pub const CONTROL: usize = 2;
    pub const OUI: usize = 3;
    pub const ETHERTYPE: usize = 6;
    pub const PAYLOAD: usize = 8;
}

/// A view over a buffer that starts with an LLC/SNAP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> SnapHeader<T> {
    /// Wraps a buffer without checking it. Accessors return zeroes for
    /// missing bytes rather than panicking.
    pub const fn new_unchecked(buffer: T) -> SnapHeader<T> {
        SnapHeader { buffer }
    }

    /// Wraps a buffer after [`SnapHeader::check_len`].
    pub fn new_checked(buffer: T) -> Result<SnapHeader<T>> {
        let s = SnapHeader::new_unchecked(buffer);
        s.check_len()?;
        Ok(s)
    }

    /// Checks that the buffer holds the eight header bytes.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < SNAP_HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn byte(&self, i: usize) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), i).unwrap_or(0)
    }

    /// DSAP.
    pub fn dsap(&self) -> u8 {
        self.byte(field::DSAP)
    }

    /// SSAP.
    pub fn ssap(&self) -> u8 {
        self.byte(field::SSAP)
    }

    /// LLC Control.
    pub fn control(&self) -> u8 {
        self.byte(field::CONTROL)
    }

    /// True when DSAP, SSAP and Control announce a SNAP header.
    pub fn is_snap(&self) -> bool {
        self.dsap() == SNAP_SAP && self.ssap() == SNAP_SAP && self.control() == LLC_UI
    }

    /// The SNAP OUI.
    pub fn oui(&self) -> [u8; 3] {
        bytes::array(self.buffer.as_ref(), field::OUI).unwrap_or([0; 3])
    }

    /// The EtherType (transmitted big-endian).
    pub fn ethertype(&self) -> EtherType {
        EtherType(bytes::u16_be(self.buffer.as_ref(), field::ETHERTYPE).unwrap_or(0))
    }

    /// The bytes after the header.
    pub fn payload(&self) -> &[u8] {
        self.buffer.as_ref().get(field::PAYLOAD..).unwrap_or(&[])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> SnapHeader<T> {
    /// The bytes after the header, mutable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        self.buffer
            .as_mut()
            .get_mut(field::PAYLOAD..)
            .unwrap_or(&mut [])
    }
}

/// An owned LLC/SNAP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SnapRepr {
    /// The SNAP OUI.
    pub oui: [u8; 3],
    /// The EtherType.
    pub ethertype: EtherType,
}

impl SnapRepr {
    /// The header a sender puts in front of an Ethernet payload: RFC 1042,
    /// or the 802.1H bridge-tunnel OUI for AARP and IPX.
    pub fn for_ethertype(ethertype: EtherType) -> SnapRepr {
        SnapRepr {
            oui: ethertype.snap_oui(),
            ethertype,
        }
    }

    /// Parses a checked header; anything but AA-AA-03 is `Malformed`.
    pub fn parse<T: AsRef<[u8]>>(h: &SnapHeader<T>) -> Result<SnapRepr> {
        h.check_len()?;
        if !h.is_snap() {
            return Err(Error::Malformed);
        }
        Ok(SnapRepr {
            oui: h.oui(),
            ethertype: h.ethertype(),
        })
    }

    /// Length of the emitted header.
    pub const fn buffer_len(&self) -> usize {
        SNAP_HEADER_LEN
    }

    /// Writes the header to the start of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let b = buf.get_mut(..SNAP_HEADER_LEN).ok_or(Error::Truncated)?;
        b[field::DSAP] = SNAP_SAP;
        b[field::SSAP] = SNAP_SAP;
        b[field::CONTROL] = LLC_UI;
        b[field::OUI..field::ETHERTYPE].copy_from_slice(&self.oui);
        b[field::ETHERTYPE..field::PAYLOAD].copy_from_slice(&self.ethertype.0.to_be_bytes());
        Ok(SNAP_HEADER_LEN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1042_ipv4_from_tkip_vector_body() {
        // Body of the IEEE 802.11-2012 M.6.3 TKIP plaintext MPDU, after its
        // 24-byte header: aa aa 03 00 00 00 08 00, then IPv4 (45 ...).
        let body = [0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00, 0x45, 0x00];
        let h = SnapHeader::new_checked(&body[..]).unwrap();
        assert!(h.is_snap());
        assert_eq!(h.ethertype(), EtherType::IPV4);
        assert_eq!(h.payload(), &[0x45, 0x00]);
        let r = SnapRepr::parse(&h).unwrap();
        assert_eq!(r, SnapRepr::for_ethertype(EtherType::IPV4));
        let mut out = [0u8; 8];
        r.emit(&mut out).unwrap();
        assert_eq!(out, body[..8]);
        // A flipped DSAP is not SNAP.
        let mut bad = body;
        bad[0] = 0x42;
        assert_eq!(
            SnapRepr::parse(&SnapHeader::new_unchecked(&bad[..])),
            Err(Error::Malformed)
        );
        assert_eq!(
            SnapHeader::new_checked(&body[..7]).unwrap_err(),
            Error::Truncated
        );
        assert_eq!(r.emit(&mut out[..7]), Err(Error::Truncated));
    }

    #[test]
    fn eapol_and_bridge_tunnel() {
        let mut out = [0u8; 8];
        SnapRepr::for_ethertype(EtherType::EAPOL)
            .emit(&mut out)
            .unwrap();
        assert_eq!(out, [0xaa, 0xaa, 0x03, 0, 0, 0, 0x88, 0x8e]);
        SnapRepr::for_ethertype(EtherType::IPX)
            .emit(&mut out)
            .unwrap();
        assert_eq!(out, [0xaa, 0xaa, 0x03, 0, 0, 0xf8, 0x81, 0x37]);
    }

    #[test]
    fn unchecked_short_buffer_does_not_panic() {
        let h = SnapHeader::new_unchecked(&[0xaa][..]);
        assert!(!h.is_snap());
        assert_eq!(h.ethertype(), EtherType(0));
        assert!(h.payload().is_empty());
    }
}
