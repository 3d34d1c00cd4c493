//! From a captured packet to the 802.11 MPDU inside it and back.
//!
//! Link type 105 packets are the MPDU, possibly followed by the FCS; link
//! type 127 packets start with a radiotap header (radiotap.org, "Radiotap
//! header") whose Flags field tells whether an FCS follows.

use crate::capture::{Interface, LINKTYPE_IEEE802_11, LINKTYPE_RADIOTAP};

/// How to tell whether link-type 105 frames end with an FCS when the
/// capture does not say (pcapng `if_fcslen`, pcap FCS bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FcsMode {
    /// A frame has an FCS when its last four bytes are the CRC-32 of the
    /// rest.
    #[default]
    Auto,
    /// Every frame ends with an FCS.
    Yes,
    /// No frame has an FCS.
    No,
}

/// Where the MPDU sits in a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Framing {
    /// Bytes before the MPDU (the radiotap header).
    pub prefix: usize,
    /// Length of the MPDU (without FCS).
    pub mpdu_len: usize,
    /// True when a 4-byte FCS follows the MPDU.
    pub fcs: bool,
}

/// Why a packet's MPDU cannot be located or should not be changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unusable {
    /// The radiotap header is malformed or longer than the packet.
    BadRadiotap,
    /// Radiotap says the MAC header is padded to 32 bits (Flags 0x20).
    Padded,
    /// Radiotap says the FCS is wrong (Flags 0x40), or the capture says an
    /// FCS is present and it does not match.
    BadFcs,
    /// The packet is too short to hold what its framing announces.
    Short,
    /// The link type carries no 802.11 frames this module knows.
    LinkType,
}

// Radiotap Flags field bits (radiotap.org, "Flags").
const RT_FLAG_FCS: u8 = 0x10;
const RT_FLAG_DATAPAD: u8 = 0x20;
const RT_FLAG_BADFCS: u8 = 0x40;

/// The radiotap header length and its Flags field, if present.
fn radiotap(data: &[u8]) -> Result<(usize, Option<u8>), Unusable> {
    let version = *data.first().ok_or(Unusable::BadRadiotap)?;
    let len = data
        .get(2..4)
        .map(|b| usize::from(u16::from_le_bytes([b[0], b[1]])))
        .ok_or(Unusable::BadRadiotap)?;
    if version != 0 || len < 8 || len > data.len() {
        return Err(Unusable::BadRadiotap);
    }
    let hdr = &data[..len];
    // The present bitmaps: bit 31 of each says another word follows.
    let mut words = 0usize;
    loop {
        let at = 4 + 4 * words;
        let w = hdr
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or(Unusable::BadRadiotap)?;
        words += 1;
        if w & (1 << 31) == 0 {
            break;
        }
    }
    let first = u32::from_le_bytes([hdr[4], hdr[5], hdr[6], hdr[7]]);
    if first & (1 << 1) == 0 {
        return Ok((len, None));
    }
    // Fields follow the bitmaps, each aligned to its natural size. TSFT
    // (bit 0, u64, aligned to 8) is the only field before Flags (bit 1).
    let mut off = 4 + 4 * words;
    if first & 1 != 0 {
        off = off.div_ceil(8) * 8 + 8;
    }
    let flags = *hdr.get(off).ok_or(Unusable::BadRadiotap)?;
    Ok((len, Some(flags)))
}

/// Locates the MPDU of a packet of `iface`.
pub fn locate(iface: &Interface, mode: FcsMode, data: &[u8]) -> Result<Framing, Unusable> {
    let (prefix, fcs) = match iface.link_type {
        LINKTYPE_RADIOTAP => {
            let (len, flags) = radiotap(data)?;
            let flags = flags.unwrap_or(0);
            if flags & RT_FLAG_DATAPAD != 0 {
                return Err(Unusable::Padded);
            }
            if flags & RT_FLAG_BADFCS != 0 {
                return Err(Unusable::BadFcs);
            }
            (len, flags & RT_FLAG_FCS != 0)
        }
        LINKTYPE_IEEE802_11 => {
            let fcs = match (iface.fcslen, mode) {
                (Some(n), _) => n == 4,
                (None, FcsMode::Yes) => true,
                (None, FcsMode::No) => false,
                (None, FcsMode::Auto) => fcs_ok(data),
            };
            (0, fcs)
        }
        _ => return Err(Unusable::LinkType),
    };
    let rest = data.len() - prefix;
    let mpdu_len = if fcs {
        if rest < 4 {
            return Err(Unusable::Short);
        }
        if !fcs_ok(&data[prefix..]) {
            return Err(Unusable::BadFcs);
        }
        rest - 4
    } else {
        rest
    };
    Ok(Framing {
        prefix,
        mpdu_len,
        fcs,
    })
}

/// The MPDU of a packet located by [`locate`].
pub fn mpdu<'a>(data: &'a [u8], f: &Framing) -> &'a [u8] {
    data.get(f.prefix..f.prefix + f.mpdu_len)
        .unwrap_or_default()
}

/// A packet with the same framing around a new MPDU: the radiotap header
/// as it was, and a recomputed FCS when the original had one.
pub fn rebuild(data: &[u8], f: &Framing, mpdu: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(f.prefix + mpdu.len() + 4);
    out.extend_from_slice(data.get(..f.prefix).unwrap_or_default());
    out.extend_from_slice(mpdu);
    if f.fcs {
        out.extend_from_slice(&fcs(mpdu).to_le_bytes());
    }
    out
}

/// The FCS of an MPDU: the CRC-32 of IEEE Std 802.11-2020, 9.2.4.8,
/// transmitted least significant byte first.
pub fn fcs(mpdu: &[u8]) -> u32 {
    // crc32fast computes the same CRC-32 as wisec_crypto::crc32 (checked
    // in the tests below), with carry-less multiplication where the CPU
    // has it: the FCS check runs on every frame of a capture.
    crc32fast::hash(mpdu)
}

/// True when the last four bytes are the FCS of the bytes before them.
/// Frames shorter than an Ack (10 bytes) plus FCS never qualify.
pub fn fcs_ok(frame: &[u8]) -> bool {
    if frame.len() < 14 {
        return false;
    }
    let (body, tail) = frame.split_at(frame.len() - 4);
    fcs(body).to_le_bytes() == tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fcs_of_a_known_frame() {
        // CRC-32 check value of IEEE 802.3 (and so of the 802.11 FCS):
        // CRC-32("123456789") = 0xCBF43926.
        assert_eq!(fcs(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn radiotap_flags_with_and_without_tsft() {
        // Present: TSFT + Flags; TSFT aligned to 8 at offset 8; Flags at 16.
        let mut rt = vec![0u8, 0, 18, 0, 0x03, 0, 0, 0];
        rt.extend([1, 2, 3, 4, 5, 6, 7, 8]);
        rt.extend([0x10, 0]);
        assert_eq!(radiotap(&rt), Ok((18, Some(0x10))));
        // Two present words (bit 31 set in the first): Flags after both, at
        // offset 12; the second word is a vendor namespace word.
        let rt = [0u8, 0, 14, 0, 0x02, 0, 0, 0x80, 0, 0, 0, 0, 0x50, 0];
        assert_eq!(radiotap(&rt), Ok((14, Some(0x50))));
        // No Flags field.
        let rt = [0u8, 0, 8, 0, 0, 0, 0, 0];
        assert_eq!(radiotap(&rt), Ok((8, None)));
        // Length beyond the packet, bad version, bitmap chain running off.
        assert!(radiotap(&[0u8, 0, 40, 0, 0, 0, 0, 0]).is_err());
        assert!(radiotap(&[1u8, 0, 8, 0, 0, 0, 0, 0]).is_err());
        assert!(radiotap(&[0u8, 0, 8, 0, 0, 0, 0, 0x80]).is_err());
        assert!(radiotap(&[0u8, 0, 9, 0, 2, 0, 0, 0]).is_err());
    }

    #[test]
    fn fcs_matches_the_no_std_crc32() {
        let mut data = Vec::new();
        for n in 0..300usize {
            assert_eq!(fcs(&data), wisec_crypto::crc32::crc32(&data), "{n}");
            data.push((n * 7 + 3) as u8);
        }
        // IEEE 802.3 check value of "123456789".
        assert_eq!(fcs(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn locate_and_rebuild() {
        let mpdu_bytes = [0xd4u8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 0xaa, 0xbb];
        let mut with_fcs = mpdu_bytes.to_vec();
        with_fcs.extend(fcs(&mpdu_bytes).to_le_bytes());
        let iface = Interface::new(105, 0);
        let f = locate(&iface, FcsMode::Auto, &with_fcs).unwrap();
        assert_eq!(
            f,
            Framing {
                prefix: 0,
                mpdu_len: 12,
                fcs: true
            }
        );
        let f2 = locate(&iface, FcsMode::Auto, &mpdu_bytes).unwrap();
        assert!(!f2.fcs);
        assert_eq!(rebuild(&with_fcs, &f, mpdu(&with_fcs, &f)), with_fcs);
        let mut bad = with_fcs.clone();
        bad[11] ^= 1;
        assert_eq!(locate(&iface, FcsMode::Yes, &bad), Err(Unusable::BadFcs));

        let mut rt = vec![0u8, 0, 9, 0, 0x02, 0, 0, 0, 0x10];
        rt.extend(&with_fcs);
        let iface = Interface::new(127, 0);
        let f = locate(&iface, FcsMode::No, &rt).unwrap();
        assert_eq!(
            f,
            Framing {
                prefix: 9,
                mpdu_len: 12,
                fcs: true
            }
        );
        assert_eq!(mpdu(&rt, &f), mpdu_bytes);
        let changed = rebuild(&rt, &f, &mpdu_bytes[..10]);
        assert_eq!(&changed[..9], &rt[..9]);
        assert!(fcs_ok(&changed[9..]));
        assert_eq!(
            locate(&Interface::new(1, 0), FcsMode::No, &rt),
            Err(Unusable::LinkType)
        );
    }
}
