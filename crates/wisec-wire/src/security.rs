//! Security headers between the MAC header and the encrypted body.
//!
//! - WEP: IV (3 bytes) and Key ID octet (IEEE Std 802.11-2020, 12.3.2.2,
//!   Figure 12-3).
//! - TKIP: TSC1, WEP Seed, TSC0, Key ID octet with ExtIV, TSC2..TSC5
//!   (12.5.2.2, Figure 12-15).
//! - CCMP and GCMP: PN0, PN1, reserved, Key ID octet with ExtIV, PN2..PN5
//!   (12.5.3.2, Figure 12-16; 12.5.5.2, Figure 12-23).
//!
//! In the Key ID octet bits 6..=7 carry the Key ID and bit 5 the ExtIV flag.

use crate::{Error, Result};

/// Length of the WEP IV header.
pub const WEP_HEADER_LEN: usize = 4;
/// Length of the TKIP IV/Extended IV header.
pub const TKIP_HEADER_LEN: usize = 8;
/// Length of the CCMP header.
pub const CCMP_HEADER_LEN: usize = 8;
/// Length of the GCMP header.
pub const GCMP_HEADER_LEN: usize = 8;
/// Largest value of a 48-bit packet number.
pub const PN_MAX: u64 = (1 << 48) - 1;

const EXT_IV: u8 = 0x20;

fn key_id_octet(key_id: u8, ext_iv: bool) -> u8 {
    ((key_id & 0x3) << 6) | if ext_iv { EXT_IV } else { 0 }
}

/// The kind of security header a protected frame starts with, as far as
/// the header itself tells: WEP has no ExtIV; TKIP, CCMP and GCMP set it
/// and cannot be told apart from the header alone except through TKIP's WEP
/// Seed octet, which is only a hint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HeaderKind {
    /// ExtIV clear: WEP.
    Wep,
    /// ExtIV set: TKIP, CCMP or GCMP.
    Extended,
}

/// Reads the Key ID octet at byte 3 of a security header.
pub fn classify(body: &[u8]) -> Result<(HeaderKind, u8)> {
    let b = *body.get(3).ok_or(Error::Truncated)?;
    let kind = if b & EXT_IV != 0 {
        HeaderKind::Extended
    } else {
        HeaderKind::Wep
    };
    Ok((kind, b >> 6))
}

/// The WEP IV header: a 24-bit IV and a Key ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WepHeader {
    /// The 24-bit initialization vector, IV\[0\] first as transmitted.
    pub iv: [u8; 3],
    /// Key ID 0..=3.
    pub key_id: u8,
}

impl WepHeader {
    /// Parses the first four bytes of a WEP-protected body. A set ExtIV bit
    /// is malformed for WEP.
    pub fn parse(body: &[u8]) -> Result<WepHeader> {
        let b = body.get(..WEP_HEADER_LEN).ok_or(Error::Truncated)?;
        if b[3] & EXT_IV != 0 {
            return Err(Error::Malformed);
        }
        Ok(WepHeader {
            iv: [b[0], b[1], b[2]],
            key_id: b[3] >> 6,
        })
    }

    /// The IV as a number (IV\[0\] most significant), as a packet number.
    pub fn iv_u32(&self) -> u32 {
        (u32::from(self.iv[0]) << 16) | (u32::from(self.iv[1]) << 8) | u32::from(self.iv[2])
    }

    /// Writes the header to `buf[..4]`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let b = buf.get_mut(..WEP_HEADER_LEN).ok_or(Error::Truncated)?;
        b[..3].copy_from_slice(&self.iv);
        b[3] = key_id_octet(self.key_id, false);
        Ok(())
    }
}

/// The TKIP IV/Extended IV header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TkipHeader {
    /// The 48-bit TKIP sequence counter.
    pub tsc: u64,
    /// Key ID 0..=3.
    pub key_id: u8,
}

impl TkipHeader {
    /// Parses the first eight bytes of a TKIP-protected body. ExtIV must be
    /// set. The WEP Seed octet is not checked: receivers ignore it.
    pub fn parse(body: &[u8]) -> Result<TkipHeader> {
        let b = body.get(..TKIP_HEADER_LEN).ok_or(Error::Truncated)?;
        if b[3] & EXT_IV == 0 {
            return Err(Error::Malformed);
        }
        let tsc = u64::from(b[2])
            | (u64::from(b[0]) << 8)
            | (u64::from(b[4]) << 16)
            | (u64::from(b[5]) << 24)
            | (u64::from(b[6]) << 32)
            | (u64::from(b[7]) << 40);
        Ok(TkipHeader {
            tsc,
            key_id: b[3] >> 6,
        })
    }

    /// Writes the header to `buf[..8]`, with WEP Seed = (TSC1 | 0x20) & 0x7f
    /// (12.5.2.2).
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        if self.tsc > PN_MAX {
            return Err(Error::Malformed);
        }
        let b = buf.get_mut(..TKIP_HEADER_LEN).ok_or(Error::Truncated)?;
        let t = self.tsc.to_le_bytes();
        b[0] = t[1];
        b[1] = (t[1] | 0x20) & 0x7f;
        b[2] = t[0];
        b[3] = key_id_octet(self.key_id, true);
        b[4..8].copy_from_slice(&t[2..6]);
        Ok(())
    }
}

/// The CCMP header, which GCMP shares byte for byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CcmpHeader {
    /// The 48-bit packet number.
    pub pn: u64,
    /// Key ID 0..=3.
    pub key_id: u8,
}

/// The GCMP header has the CCMP layout (12.5.5.2).
pub type GcmpHeader = CcmpHeader;

impl CcmpHeader {
    /// Parses the first eight bytes of a CCMP- or GCMP-protected body.
    /// ExtIV must be set; the reserved octet is ignored as 12.5.3.2 asks.
    pub fn parse(body: &[u8]) -> Result<CcmpHeader> {
        let b = body.get(..CCMP_HEADER_LEN).ok_or(Error::Truncated)?;
        if b[3] & EXT_IV == 0 {
            return Err(Error::Malformed);
        }
        let pn = u64::from(b[0])
            | (u64::from(b[1]) << 8)
            | (u64::from(b[4]) << 16)
            | (u64::from(b[5]) << 24)
            | (u64::from(b[6]) << 32)
            | (u64::from(b[7]) << 40);
        Ok(CcmpHeader {
            pn,
            key_id: b[3] >> 6,
        })
    }

    /// Writes the header to `buf[..8]`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        if self.pn > PN_MAX {
            return Err(Error::Malformed);
        }
        let b = buf.get_mut(..CCMP_HEADER_LEN).ok_or(Error::Truncated)?;
        let p = self.pn.to_le_bytes();
        b[0] = p[0];
        b[1] = p[1];
        b[2] = 0;
        b[3] = key_id_octet(self.key_id, true);
        b[4..8].copy_from_slice(&p[2..6]);
        Ok(())
    }

    /// The PN as the six bytes PN5..PN0 (most significant first), as the
    /// CCM and GCM nonces carry it (12.5.3.3.4, 12.5.5.3.4).
    pub fn pn_be(&self) -> [u8; 6] {
        let p = self.pn.to_be_bytes();
        [p[2], p[3], p[4], p[5], p[6], p[7]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ccmp_header_byte_order() {
        // IEEE 802.11-2012 M.6.4: PN = 0xB5039776E70C, Key ID 0 gives the
        // CCMP header 0c e7 00 20 76 97 03 b5.
        let h = CcmpHeader {
            pn: 0xb503_9776_e70c,
            key_id: 0,
        };
        let mut b = [0u8; 8];
        h.emit(&mut b).unwrap();
        assert_eq!(b, [0x0c, 0xe7, 0x00, 0x20, 0x76, 0x97, 0x03, 0xb5]);
        assert_eq!(CcmpHeader::parse(&b), Ok(h));
        assert_eq!(h.pn_be(), [0xb5, 0x03, 0x97, 0x76, 0xe7, 0x0c]);
        assert_eq!(classify(&b), Ok((HeaderKind::Extended, 0)));
        b[3] = 0;
        assert_eq!(CcmpHeader::parse(&b), Err(Error::Malformed));
        assert_eq!(CcmpHeader::parse(&b[..7]), Err(Error::Truncated));
        let too_big = CcmpHeader {
            pn: PN_MAX + 1,
            key_id: 0,
        };
        assert_eq!(too_big.emit(&mut b), Err(Error::Malformed));
    }

    #[test]
    fn gcmp_header_from_80211ac_vector() {
        // P802.11ac/D7.0 M.11.1: PN 0x00895F5F2B08 gives 08 2b 00 20 5f 5f 89 00.
        let b = [0x08, 0x2b, 0x00, 0x20, 0x5f, 0x5f, 0x89, 0x00];
        let h = GcmpHeader::parse(&b).unwrap();
        assert_eq!(h.pn, 0x0089_5f5f_2b08);
        assert_eq!(h.key_id, 0);
    }

    #[test]
    fn tkip_header() {
        let h = TkipHeader {
            tsc: 0x0000_0000_0001,
            key_id: 1,
        };
        let mut b = [0u8; 8];
        h.emit(&mut b).unwrap();
        // TSC1 = 0, WEPSeed = 0x20, TSC0 = 1, KeyID 1 with ExtIV = 0x60.
        assert_eq!(b, [0x00, 0x20, 0x01, 0x60, 0, 0, 0, 0]);
        assert_eq!(TkipHeader::parse(&b), Ok(h));
        let h = TkipHeader {
            tsc: 0x0605_0403_027f,
            key_id: 3,
        };
        h.emit(&mut b).unwrap();
        assert_eq!(b, [0x02, 0x22, 0x7f, 0xe0, 0x03, 0x04, 0x05, 0x06]);
        assert_eq!(TkipHeader::parse(&b), Ok(h));
    }

    #[test]
    fn wep_header() {
        let h = WepHeader {
            iv: [1, 2, 3],
            key_id: 2,
        };
        let mut b = [0u8; 4];
        h.emit(&mut b).unwrap();
        assert_eq!(b, [1, 2, 3, 0x80]);
        assert_eq!(WepHeader::parse(&b), Ok(h));
        assert_eq!(h.iv_u32(), 0x010203);
        assert_eq!(classify(&b), Ok((HeaderKind::Wep, 2)));
        assert_eq!(WepHeader::parse(&[1, 2, 3, 0x20]), Err(Error::Malformed));
    }
}
