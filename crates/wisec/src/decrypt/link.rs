//! From a captured packet to the 802.11 MPDU inside it and back.
//!
//! Link type 105 packets are the MPDU, possibly followed by the FCS. The
//! others put a radio header before it, kept as it was on output:
//!
//! - 127, radiotap (radiotap.org, "Radiotap header"): its Flags field
//!   tells whether an FCS follows, whether it is bad, and whether the MAC
//!   header is padded to 32 bits ([`unpad`]);
//! - 119, Prism (the linux-wlan-ng monitor header): a 144-octet header
//!   whose `msglen` gives its length, in host byte order; some drivers
//!   put an AVS header under this link type instead;
//! - 163, AVS (the wlan-ng "p80211 capture header"): big-endian, version
//!   0x80211001 or 0x80211002 and the header length in its second word;
//! - 192, PPI (CACE Technologies, "Per-Packet Information Header
//!   Specification" 1.0.1): little-endian, `pph_len` the header length,
//!   `pph_dlt` the link type behind it (105 here); the flags of its
//!   802.11-Common field (type 2) tell whether an FCS follows and whether
//!   it is bad.
//!
//! Prism and AVS say nothing about an FCS: `--fcs` decides, as for 105.

use crate::capture::{Interface, LINKTYPE_IEEE802_11, LINKTYPE_RADIOTAP};

/// LINKTYPE_IEEE802_11_PRISM.
pub const LINKTYPE_PRISM: u16 = 119;
/// LINKTYPE_IEEE802_11_AVS.
pub const LINKTYPE_AVS: u16 = 163;
/// LINKTYPE_PPI.
pub const LINKTYPE_PPI: u16 = 192;

/// True for the link types whose packets carry 802.11 frames here.
pub fn is_80211(link_type: u16) -> bool {
    matches!(
        link_type,
        LINKTYPE_IEEE802_11 | LINKTYPE_RADIOTAP | LINKTYPE_PRISM | LINKTYPE_AVS | LINKTYPE_PPI
    )
}

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
    /// The Prism, AVS or PPI header is malformed or longer than the
    /// packet, or (PPI) announces another link type behind it.
    BadHeader,
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

/// The length of an AVS header at the start of `data`, if one is there.
fn avs(data: &[u8]) -> Option<usize> {
    let w = |i: usize| {
        data.get(i..i + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    if !matches!(w(0)?, 0x8021_1001 | 0x8021_1002) {
        return None;
    }
    let len = usize::try_from(w(4)?).ok()?;
    (8..=data.len()).contains(&len).then_some(len)
}

/// The length of a Prism header (its `msglen`, in either byte order).
fn prism(data: &[u8]) -> Option<usize> {
    let b = data.get(4..8)?;
    let le = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let be = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    // The header is 144 octets: 8 of code and length, 16 of device name,
    // 10 items of 12 octets. Take whichever order gives a sane length.
    let len = [le, be].into_iter().find(|&l| (24..=1024).contains(&l))?;
    let len = usize::try_from(len).ok()?;
    (len <= data.len()).then_some(len)
}

/// PPI 802.11-Common flags (CACE PPI 1.0.1, 4.1.2).
const PPI_FCS: u16 = 0x0001;
const PPI_BADFCS: u16 = 0x0004;
const PPI_PHY_ERROR: u16 = 0x0008;

/// The length of a PPI header and the flags of its 802.11-Common field.
fn ppi(data: &[u8]) -> Result<(usize, Option<u16>), Unusable> {
    let h = data.get(..8).ok_or(Unusable::BadHeader)?;
    let len = usize::from(u16::from_le_bytes([h[2], h[3]]));
    let dlt = u32::from_le_bytes([h[4], h[5], h[6], h[7]]);
    if h[0] != 0 || len < 8 || len > data.len() || dlt != u32::from(LINKTYPE_IEEE802_11) {
        return Err(Unusable::BadHeader);
    }
    let aligned = h[1] & 1 != 0;
    let mut at = 8;
    let mut flags = None;
    while at + 4 <= len {
        let t = u16::from_le_bytes([data[at], data[at + 1]]);
        let n = usize::from(u16::from_le_bytes([data[at + 2], data[at + 3]]));
        let body = data.get(at + 4..at + 4 + n).ok_or(Unusable::BadHeader)?;
        if at + 4 + n > len {
            return Err(Unusable::BadHeader);
        }
        // 802.11-Common: TSFT (8), Flags (2), rate, channel, FHSS, dBm.
        if t == 2 && n >= 10 {
            flags = Some(u16::from_le_bytes([body[8], body[9]]));
        }
        at += 4 + n;
        if aligned {
            at = at.div_ceil(4) * 4;
        }
    }
    Ok((len, flags))
}

/// The MAC header length of the frame starting `mpdu` (IEEE Std
/// 802.11-2020, 9.2.3): Address 4 with both DS bits, QoS Control for QoS
/// data, HT Control with the +HTC/Order bit on QoS data and management.
fn mac_header_len(mpdu: &[u8]) -> Option<usize> {
    let fc = u16::from_le_bytes([*mpdu.first()?, *mpdu.get(1)?]);
    let ftype = (fc >> 2) & 3;
    let subtype = (fc >> 4) & 0xf;
    let order = fc & 0x8000 != 0;
    match ftype {
        0 => Some(if order { 28 } else { 24 }),
        2 => {
            let mut n = 24;
            if fc & 0x0300 == 0x0300 {
                n += 6;
            }
            if subtype & 8 != 0 {
                n += 2;
                if order {
                    n += 4;
                }
            }
            Some(n)
        }
        _ => None,
    }
}

/// The radiotap padding (Flags 0x20) of a packet, taken out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pad {
    /// Where the pad went, in the packet as it was: the radiotap header
    /// and the MAC header are before it.
    pub at: usize,
    /// Its octets, as captured.
    pub bytes: [u8; 3],
    /// How many (1 to 3).
    pub len: usize,
}

impl Pad {
    /// The pad octets.
    pub fn octets(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }
}

/// Takes the padding that a radiotap header with the DATAPAD flag
/// announces (radiotap.org, "Flags": "the frame has padding between the
/// 802.11 header and the payload (to 32-bit boundary)") out of `data`:
/// the radiotap and MAC headers move forward over it, so the packet
/// becomes `data[pad.len..]` with the MPDU contiguous. `None` when the
/// packet has no padding (nothing moved).
pub fn unpad(iface: &Interface, data: &mut [u8]) -> Option<Pad> {
    if iface.link_type != LINKTYPE_RADIOTAP {
        return None;
    }
    let (rt, flags) = radiotap(data).ok()?;
    if flags? & RT_FLAG_DATAPAD == 0 {
        return None;
    }
    let hdr = mac_header_len(data.get(rt..)?)?;
    let len = hdr.div_ceil(4) * 4 - hdr;
    let at = rt + hdr;
    if len == 0 || data.len() < at + len {
        return None;
    }
    let mut bytes = [0u8; 3];
    bytes[..len].copy_from_slice(&data[at..at + len]);
    data.copy_within(..at, len);
    Some(Pad { at, bytes, len })
}

/// Locates the MPDU of a packet of `iface`.
pub fn locate(iface: &Interface, mode: FcsMode, data: &[u8]) -> Result<Framing, Unusable> {
    locate_inner(iface, mode, data, false)
}

/// [`locate`] for a packet whose radiotap padding [`unpad`] took out.
pub fn locate_unpadded(iface: &Interface, mode: FcsMode, data: &[u8]) -> Result<Framing, Unusable> {
    locate_inner(iface, mode, data, true)
}

fn locate_inner(
    iface: &Interface,
    mode: FcsMode,
    data: &[u8],
    unpadded: bool,
) -> Result<Framing, Unusable> {
    // Whether an FCS follows, and whether the guess already found it to
    // match (the CRC is then not computed a second time below).
    let guess = |prefix: usize| match (iface.fcslen, mode) {
        (Some(n), _) => (n == 4, false),
        (None, FcsMode::Yes) => (true, false),
        (None, FcsMode::No) => (false, false),
        (None, FcsMode::Auto) => {
            let ok = fcs_ok(data.get(prefix..).unwrap_or_default());
            (ok, ok)
        }
    };
    let (prefix, (fcs, verified)) = match iface.link_type {
        LINKTYPE_RADIOTAP => {
            let (len, flags) = radiotap(data)?;
            let flags = flags.unwrap_or(0);
            if flags & RT_FLAG_DATAPAD != 0 && !unpadded {
                return Err(Unusable::Padded);
            }
            if flags & RT_FLAG_BADFCS != 0 {
                return Err(Unusable::BadFcs);
            }
            (len, (flags & RT_FLAG_FCS != 0, false))
        }
        LINKTYPE_IEEE802_11 => (0, guess(0)),
        LINKTYPE_AVS => {
            let len = avs(data).ok_or(Unusable::BadHeader)?;
            (len, guess(len))
        }
        LINKTYPE_PRISM => {
            // Some drivers write an AVS header under the Prism link type.
            let len = avs(data)
                .or_else(|| prism(data))
                .ok_or(Unusable::BadHeader)?;
            (len, guess(len))
        }
        LINKTYPE_PPI => {
            let (len, flags) = ppi(data)?;
            match flags {
                Some(f) if f & (PPI_BADFCS | PPI_PHY_ERROR) != 0 => return Err(Unusable::BadFcs),
                Some(f) => (len, (f & PPI_FCS != 0, false)),
                None => (len, guess(len)),
            }
        }
        _ => return Err(Unusable::LinkType),
    };
    let rest = data.len() - prefix;
    let mpdu_len = if fcs {
        if rest < 4 {
            return Err(Unusable::Short);
        }
        if !verified && !fcs_ok(&data[prefix..]) {
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

/// A packet with the same framing around a new MPDU: the radio header
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

/// Puts radiotap padding back into a packet: the pad octets after the
/// MAC header of the MPDU at `f.prefix` (as [`unpad`] found them).
pub fn repad(packet: &[u8], pad: &Pad) -> Vec<u8> {
    let at = pad.at.min(packet.len());
    let mut out = Vec::with_capacity(packet.len() + pad.len);
    out.extend_from_slice(&packet[..at]);
    out.extend_from_slice(pad.octets());
    out.extend_from_slice(&packet[at..]);
    out
}

/// The FCS of an MPDU: the CRC-32 of IEEE Std 802.11-2020, 9.2.4.8,
/// transmitted least significant byte first.
pub fn fcs(mpdu: &[u8]) -> u32 {
    wisec_crypto::crc32::crc32(mpdu)
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
    fn fcs_matches_an_independent_crc32() {
        // crc32fast is another implementation of the same CRC-32 (its own
        // tables and folding): every length across the folding kernels'
        // thresholds, and frames of random bytes.
        let mut data = Vec::new();
        for n in 0..600usize {
            assert_eq!(fcs(&data), crc32fast::hash(&data), "{n}");
            data.push((n * 7 + 3) as u8);
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for len in (0..3000).step_by(37) {
            let frame: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            assert_eq!(fcs(&frame), crc32fast::hash(&frame), "random, {len} bytes");
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
