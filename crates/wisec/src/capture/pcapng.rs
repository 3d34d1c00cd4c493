//! pcapng blocks (draft-ietf-opsawg-pcapng): every block is type, total
//! length, body, total length again, in the byte order of its section.

use super::Interface;

/// Section Header Block (4.1); its type reads the same in both orders.
pub const SHB: u32 = 0x0a0d_0d0a;
/// Interface Description Block (4.2).
pub const IDB: u32 = 0x0000_0001;
/// Obsolete Packet Block (Appendix A).
pub const PB: u32 = 0x0000_0002;
/// Simple Packet Block (4.4).
pub const SPB: u32 = 0x0000_0003;
/// Enhanced Packet Block (4.3).
pub const EPB: u32 = 0x0000_0006;
/// The byte-order magic of a section header.
pub const BYTE_ORDER_MAGIC: u32 = 0x1a2b_3c4d;

/// if_tsresol (4.2, option code 9).
const IF_TSRESOL: u16 = 9;
/// if_fcslen (4.2, option code 13).
const IF_FCSLEN: u16 = 13;
/// if_tsoffset (4.2, option code 14).
const IF_TSOFFSET: u16 = 14;

/// The byte order of a section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Order {
    pub big_endian: bool,
}

impl Order {
    pub fn u16(&self, b: &[u8], at: usize) -> Option<u16> {
        let a: [u8; 2] = b.get(at..at + 2)?.try_into().ok()?;
        Some(if self.big_endian {
            u16::from_be_bytes(a)
        } else {
            u16::from_le_bytes(a)
        })
    }

    pub fn u32(&self, b: &[u8], at: usize) -> Option<u32> {
        let a: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
        Some(if self.big_endian {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        })
    }

    pub fn u64(&self, b: &[u8], at: usize) -> Option<u64> {
        let a: [u8; 8] = b.get(at..at + 8)?.try_into().ok()?;
        Some(if self.big_endian {
            u64::from_be_bytes(a)
        } else {
            u64::from_le_bytes(a)
        })
    }
}

/// A readable name of a block type for error messages.
pub fn block_name(t: u32) -> &'static str {
    match t {
        SHB => "section header block",
        IDB => "interface description block",
        PB => "packet block",
        SPB => "simple packet block",
        EPB => "enhanced packet block",
        _ => "block",
    }
}

/// The smallest total length of a block of this type: the 12 bytes of
/// framing plus the fixed part of its body.
pub fn min_len(t: u32) -> u32 {
    12 + match t {
        SHB => 16,
        IDB => 8,
        PB => 20,
        SPB => 4,
        EPB => 20,
        _ => 0,
    }
}

/// Parses an IDB body. Options that are cut short end the option list
/// (readers are told to be lenient about options); the error is for
/// values that cannot be right.
pub fn parse_idb(order: Order, body: &[u8]) -> Result<Interface, String> {
    let link_type = order.u16(body, 0).ok_or("truncated")?;
    let snaplen = order.u32(body, 4).ok_or("truncated")?;
    let mut iface = Interface::new(link_type, snaplen);
    let mut at = 8;
    while let (Some(code), Some(len)) = (order.u16(body, at), order.u16(body, at + 2)) {
        let len = usize::from(len);
        let Some(value) = body.get(at + 4..at + 4 + len) else {
            return Err(format!(
                "interface option {code} of length {len} runs past the end of the block"
            ));
        };
        match (code, value) {
            (0, _) => break,
            (IF_TSRESOL, [r]) => {
                let exp = r & 0x7f;
                if (r & 0x80 == 0 && exp > 19) || (r & 0x80 != 0 && exp > 63) {
                    return Err(format!("if_tsresol {r:#04x} is out of range"));
                }
                iface.tsresol = *r;
                iface.tsresol_explicit = true;
            }
            (IF_FCSLEN, [n]) => iface.fcslen = Some(*n),
            (IF_TSOFFSET, v) if v.len() == 8 => {
                iface.tsoffset = order.u64(v, 0).map(|x| x as i64);
            }
            _ => {}
        }
        at += 4 + len.div_ceil(4) * 4;
    }
    Ok(iface)
}

/// Appends one block (type, body padded to 32 bits) in little-endian order.
pub fn push_block(out: &mut Vec<u8>, block_type: u32, body: &[u8]) {
    let padded = body.len().div_ceil(4) * 4;
    let total = (12 + padded) as u32;
    out.extend_from_slice(&block_type.to_le_bytes());
    out.extend_from_slice(&total.to_le_bytes());
    out.extend_from_slice(body);
    out.resize(out.len() + (padded - body.len()), 0);
    out.extend_from_slice(&total.to_le_bytes());
}

/// A little-endian section header body with unknown section length.
pub fn shb_body() -> Vec<u8> {
    let mut b = Vec::with_capacity(16);
    b.extend_from_slice(&BYTE_ORDER_MAGIC.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    b.extend_from_slice(&(-1i64).to_le_bytes());
    b
}

fn push_option(b: &mut Vec<u8>, code: u16, value: &[u8]) {
    b.extend_from_slice(&code.to_le_bytes());
    b.extend_from_slice(&(value.len() as u16).to_le_bytes());
    b.extend_from_slice(value);
    b.resize(b.len().div_ceil(4) * 4, 0);
}

/// A little-endian IDB body for `iface`. The snap length is written as 0
/// (no limit): a protected frame is longer than the plaintext it came from.
pub fn idb_body(iface: &Interface) -> Vec<u8> {
    let mut b = Vec::with_capacity(32);
    b.extend_from_slice(&iface.link_type.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    let mut any = false;
    if iface.tsresol_explicit {
        push_option(&mut b, IF_TSRESOL, &[iface.tsresol]);
        any = true;
    }
    if let Some(n) = iface.fcslen {
        push_option(&mut b, IF_FCSLEN, &[n]);
        any = true;
    }
    if let Some(o) = iface.tsoffset {
        push_option(&mut b, IF_TSOFFSET, &o.to_le_bytes());
        any = true;
    }
    if any {
        push_option(&mut b, 0, &[]);
    }
    b
}
