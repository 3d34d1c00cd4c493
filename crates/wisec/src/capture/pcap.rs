//! Classic pcap: a 24-byte file header, then 16-byte record headers each
//! followed by the captured bytes (draft-ietf-opsawg-pcap, sections 4-5).

use super::Interface;

/// Microsecond magic as written by a little- or big-endian host.
pub const MAGIC_MICRO: u32 = 0xa1b2_c3d4;
/// Nanosecond magic.
pub const MAGIC_NANO: u32 = 0xa1b2_3c4d;
/// File header length.
pub const FILE_HEADER_LEN: usize = 24;
/// Record header length.
pub const RECORD_HEADER_LEN: usize = 16;

/// Byte order and resolution of a pcap file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// True when the file was written in big-endian order.
    pub big_endian: bool,
    /// True for nanosecond timestamps.
    pub nanos: bool,
}

impl Layout {
    pub fn u32(&self, b: &[u8; 4]) -> u32 {
        if self.big_endian {
            u32::from_be_bytes(*b)
        } else {
            u32::from_le_bytes(*b)
        }
    }

    pub fn u16(&self, b: [u8; 2]) -> u16 {
        if self.big_endian {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }
    }

    /// Units per second of the timestamps.
    pub fn units(&self) -> u64 {
        if self.nanos {
            1_000_000_000
        } else {
            1_000_000
        }
    }
}

/// Recognises the magic number at the start of a file.
pub fn layout_of(magic: [u8; 4]) -> Option<Layout> {
    let le = u32::from_le_bytes(magic);
    let be = u32::from_be_bytes(magic);
    let (big_endian, value) = match (le, be) {
        (MAGIC_MICRO | MAGIC_NANO, _) => (false, le),
        (_, MAGIC_MICRO | MAGIC_NANO) => (true, be),
        _ => return None,
    };
    Some(Layout {
        big_endian,
        nanos: value == MAGIC_NANO,
    })
}

/// Parses the file header into the file's only interface.
pub fn parse_file_header(h: &[u8; FILE_HEADER_LEN]) -> Result<(Layout, Interface), String> {
    let magic = [h[0], h[1], h[2], h[3]];
    let layout = layout_of(magic).ok_or("not a pcap file")?;
    let major = layout.u16([h[4], h[5]]);
    if major != 2 {
        return Err(format!(
            "pcap major version {major} is not supported (expected 2)"
        ));
    }
    let snaplen = layout.u32(&[h[16], h[17], h[18], h[19]]);
    let network = layout.u32(&[h[20], h[21], h[22], h[23]]);
    // The link-type field: low 16 bits the link type, bit 26 set when bits
    // 28..31 give the FCS length in 16-bit words (section 5.9).
    let mut iface = Interface::new((network & 0xffff) as u16, snaplen);
    iface.tsresol = if layout.nanos { 9 } else { 6 };
    iface.pcap_link_flags = network & 0xffff_0000;
    if network & (1 << 26) != 0 {
        iface.fcslen = Some(((network >> 28) as u8) * 2);
    }
    Ok((layout, iface))
}

/// Builds a little-endian file header for `iface`.
pub fn file_header(iface: &Interface) -> [u8; FILE_HEADER_LEN] {
    let mut h = [0u8; FILE_HEADER_LEN];
    let magic = if iface.tsresol == 9 {
        MAGIC_NANO
    } else {
        MAGIC_MICRO
    };
    h[0..4].copy_from_slice(&magic.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    // thiszone and sigfigs stay 0. A changed frame may grow past the input's
    // snap length; advertise the usual maximum.
    h[16..20].copy_from_slice(&iface.snaplen.max(262_144).to_le_bytes());
    let network = u32::from(iface.link_type) | iface.pcap_link_flags;
    h[20..24].copy_from_slice(&network.to_le_bytes());
    h
}
