//! The radiotap capture header (<https://www.radiotap.org>, the de facto
//! standard of Linux and libpcap link type 127).
//!
//! Layout: version (1, = 0), pad (1), length (2, little-endian, the whole
//! header), one or more 32-bit present bitmaps (bit 31 says another bitmap
//! follows; bit 29 switches the next bitmap to the radiotap namespace, bit
//! 30 to a vendor namespace), then the fields of the set bits in bit order,
//! each aligned to its natural alignment counted from the start of the
//! header. Fields up to bit 27 have known sizes here; an unknown bit ends
//! the walk cleanly, since the fields after it cannot be located. Vendor
//! namespaces are skipped with the skip length their header carries.

use crate::bytes;
use crate::{Error, Result};

/// Field numbers of the radiotap namespace.
pub mod field_index {
    /// TSFT (u64, µs).
    pub const TSFT: u32 = 0;
    /// Flags (u8).
    pub const FLAGS: u32 = 1;
    /// Rate (u8, 500 kb/s).
    pub const RATE: u32 = 2;
    /// Channel (u16 frequency MHz, u16 flags).
    pub const CHANNEL: u32 = 3;
    /// FHSS (u8 hop set, u8 hop pattern).
    pub const FHSS: u32 = 4;
    /// Antenna signal (s8, dBm).
    pub const DBM_ANTSIGNAL: u32 = 5;
    /// Antenna noise (s8, dBm).
    pub const DBM_ANTNOISE: u32 = 6;
    /// Lock quality (u16).
    pub const LOCK_QUALITY: u32 = 7;
    /// TX attenuation (u16).
    pub const TX_ATTENUATION: u32 = 8;
    /// dB TX attenuation (u16).
    pub const DB_TX_ATTENUATION: u32 = 9;
    /// dBm TX power (s8).
    pub const DBM_TX_POWER: u32 = 10;
    /// Antenna index (u8).
    pub const ANTENNA: u32 = 11;
    /// dB antenna signal (u8).
    pub const DB_ANTSIGNAL: u32 = 12;
    /// dB antenna noise (u8).
    pub const DB_ANTNOISE: u32 = 13;
    /// RX flags (u16).
    pub const RX_FLAGS: u32 = 14;
    /// TX flags (u16).
    pub const TX_FLAGS: u32 = 15;
    /// RTS retries (u8).
    pub const RTS_RETRIES: u32 = 16;
    /// Data retries (u8).
    pub const DATA_RETRIES: u32 = 17;
    /// XChannel (u32 flags, u16 freq, u8 channel, u8 max power).
    pub const XCHANNEL: u32 = 18;
    /// MCS (u8 known, u8 flags, u8 mcs).
    pub const MCS: u32 = 19;
    /// A-MPDU status (u32 reference, u16 flags, u8 delimiter CRC, u8).
    pub const AMPDU_STATUS: u32 = 20;
    /// VHT (12 octets).
    pub const VHT: u32 = 21;
    /// Timestamp (u64, u16, u8, u8).
    pub const TIMESTAMP: u32 = 22;
    /// HE (6 × u16).
    pub const HE: u32 = 23;
    /// HE-MU (12 octets).
    pub const HE_MU: u32 = 24;
    /// HE-MU other user (6 octets).
    pub const HE_MU_OTHER_USER: u32 = 25;
    /// Zero-length PSDU (u8).
    pub const ZERO_LEN_PSDU: u32 = 26;
    /// L-SIG (2 × u16).
    pub const L_SIG: u32 = 27;
}

/// (alignment, size) of fields 0..=27.
const FIELDS: [(u8, u8); 28] = [
    (8, 8),  // 0 TSFT
    (1, 1),  // 1 Flags
    (1, 1),  // 2 Rate
    (2, 4),  // 3 Channel
    (2, 2),  // 4 FHSS
    (1, 1),  // 5 dBm antenna signal
    (1, 1),  // 6 dBm antenna noise
    (2, 2),  // 7 Lock quality
    (2, 2),  // 8 TX attenuation
    (2, 2),  // 9 dB TX attenuation
    (1, 1),  // 10 dBm TX power
    (1, 1),  // 11 Antenna
    (1, 1),  // 12 dB antenna signal
    (1, 1),  // 13 dB antenna noise
    (2, 2),  // 14 RX flags
    (2, 2),  // 15 TX flags
    (1, 1),  // 16 RTS retries
    (1, 1),  // 17 data retries
    (4, 8),  // 18 XChannel
    (1, 3),  // 19 MCS
    (4, 8),  // 20 A-MPDU status
    (2, 12), // 21 VHT
    (8, 12), // 22 timestamp
    (2, 12), // 23 HE
    (2, 12), // 24 HE-MU
    (2, 6),  // 25 HE-MU other user
    (1, 1),  // 26 zero-length PSDU
    (2, 4),  // 27 L-SIG
];

const BIT_RADIOTAP_NS: u32 = 29;
const BIT_VENDOR_NS: u32 = 30;
const BIT_EXT: u32 = 31;

/// The Flags field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RadiotapFlags(pub u8);

impl RadiotapFlags {
    /// Sent/received during CFP.
    pub const CFP: u8 = 0x01;
    /// Short preamble.
    pub const SHORT_PREAMBLE: u8 = 0x02;
    /// Sent/received with WEP encryption.
    pub const WEP: u8 = 0x04;
    /// Sent/received with fragmentation.
    pub const FRAGMENTATION: u8 = 0x08;
    /// The frame includes the FCS at its end.
    pub const FCS_AT_END: u8 = 0x10;
    /// Padding between the 802.11 header and payload (to 32 bits).
    pub const DATA_PAD: u8 = 0x20;
    /// The frame failed the FCS check.
    pub const BAD_FCS: u8 = 0x40;
    /// Short guard interval (HT).
    pub const SHORT_GI: u8 = 0x80;

    /// True when the FCS ends the frame.
    pub const fn fcs_at_end(self) -> bool {
        self.0 & Self::FCS_AT_END != 0
    }

    /// True when the FCS check failed.
    pub const fn bad_fcs(self) -> bool {
        self.0 & Self::BAD_FCS != 0
    }

    /// True when the header is padded to 32 bits.
    pub const fn data_pad(self) -> bool {
        self.0 & Self::DATA_PAD != 0
    }
}

/// The Channel field: frequency and flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Channel {
    /// Centre frequency in MHz.
    pub freq: u16,
    /// Channel flags.
    pub flags: u16,
}

impl Channel {
    /// CCK channel.
    pub const CCK: u16 = 0x0020;
    /// OFDM channel.
    pub const OFDM: u16 = 0x0040;
    /// 2 GHz spectrum.
    pub const GHZ2: u16 = 0x0080;
    /// 5 GHz spectrum.
    pub const GHZ5: u16 = 0x0100;
}

/// One radiotap field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field<'a> {
    /// A field of the radiotap namespace, by field number.
    Standard {
        /// Field number (bit index; +32 per extended bitmap).
        index: u32,
        /// The field's octets.
        data: &'a [u8],
    },
    /// A vendor namespace: its header and the data it skips over.
    Vendor {
        /// OUI.
        oui: [u8; 3],
        /// Sub-namespace.
        sub_namespace: u8,
        /// The vendor data (skip length octets).
        data: &'a [u8],
    },
}

/// An iterator over the fields of a radiotap header.
#[derive(Debug, Clone)]
pub struct Fields<'a> {
    hdr: &'a [u8],
    word_off: usize,
    bit: u32,
    ns_index: u32,
    vendor: bool,
    cursor: usize,
    done: bool,
    unknown: Option<u32>,
}

impl<'a> Fields<'a> {
    /// The field number of the unknown field that ended the walk, if any.
    pub fn stopped_at_unknown(&self) -> Option<u32> {
        self.unknown
    }

    fn align(&mut self, a: usize) {
        self.cursor = (self.cursor + a - 1) & !(a - 1);
    }

    fn take(&mut self, size: usize) -> Option<&'a [u8]> {
        let end = self.cursor.checked_add(size)?;
        let d = self.hdr.get(self.cursor..end)?;
        self.cursor = end;
        Some(d)
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.done {
                return None;
            }
            let Some(word) = bytes::u32_le(self.hdr, self.word_off) else {
                self.done = true;
                return None;
            };
            if self.bit == 32 {
                if word & (1 << BIT_EXT) == 0 {
                    self.done = true;
                    return None;
                }
                let next_vendor = if word & (1 << BIT_VENDOR_NS) != 0 {
                    true
                } else if word & (1 << BIT_RADIOTAP_NS) != 0 {
                    false
                } else {
                    self.vendor
                };
                let switched = word & (3 << BIT_RADIOTAP_NS) != 0;
                self.ns_index = if switched { 0 } else { self.ns_index + 1 };
                self.vendor = next_vendor;
                self.word_off += 4;
                self.bit = 0;
                continue;
            }
            let b = self.bit;
            self.bit += 1;
            if word & (1 << b) == 0 || b == BIT_EXT || b == BIT_RADIOTAP_NS {
                continue;
            }
            if b == BIT_VENDOR_NS {
                // Vendor namespace header: OUI, sub-namespace, skip length
                // (u16), aligned to 2; the skipped data follows it.
                self.align(2);
                let Some(h) = self.take(6) else {
                    self.done = true;
                    return Some(Err(Error::Truncated));
                };
                let skip = usize::from(u16::from_le_bytes([h[4], h[5]]));
                let Some(data) = self.take(skip) else {
                    self.done = true;
                    return Some(Err(Error::Truncated));
                };
                return Some(Ok(Field::Vendor {
                    oui: [h[0], h[1], h[2]],
                    sub_namespace: h[3],
                    data,
                }));
            }
            if self.vendor {
                // Covered by the vendor namespace's skip length.
                continue;
            }
            let index = self.ns_index * 32 + b;
            let Some(&(align, size)) = FIELDS.get(index as usize) else {
                self.done = true;
                self.unknown = Some(index);
                return None;
            };
            self.align(usize::from(align));
            let Some(data) = self.take(usize::from(size)) else {
                self.done = true;
                return Some(Err(Error::Truncated));
            };
            return Some(Ok(Field::Standard { index, data }));
        }
    }
}

impl core::iter::FusedIterator for Fields<'_> {}

/// A view over a buffer that starts with a radiotap header and continues
/// with the 802.11 frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Radiotap<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Radiotap<T> {
    /// Wraps a buffer without checking it; accessors never panic.
    pub const fn new_unchecked(buffer: T) -> Radiotap<T> {
        Radiotap { buffer }
    }

    /// Wraps a buffer after [`Radiotap::check_len`].
    pub fn new_checked(buffer: T) -> Result<Radiotap<T>> {
        let r = Radiotap::new_unchecked(buffer);
        r.check_len()?;
        Ok(r)
    }

    /// Checks: 8 octets present (`Truncated`), version 0 (`Unsupported`),
    /// a length of at least 8 that the buffer holds, and present bitmaps
    /// that end inside the header (`Malformed`).
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < 8 {
            return Err(Error::Truncated);
        }
        if self.version() != 0 {
            return Err(Error::Unsupported);
        }
        let len = self.header_len();
        if len < 8 {
            return Err(Error::Malformed);
        }
        if b.len() < len {
            return Err(Error::Truncated);
        }
        self.data_start().map(|_| ())
    }

    /// Offset just after the last present bitmap.
    fn data_start(&self) -> Result<usize> {
        let hdr = self.header();
        let mut off = 4;
        loop {
            let w = bytes::u32_le(hdr, off).ok_or(Error::Malformed)?;
            off += 4;
            if w & (1 << BIT_EXT) == 0 {
                return Ok(off);
            }
        }
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Version (0).
    pub fn version(&self) -> u8 {
        bytes::u8_at(self.buffer.as_ref(), 0).unwrap_or(0)
    }

    /// Length of the radiotap header.
    pub fn header_len(&self) -> usize {
        usize::from(bytes::u16_le(self.buffer.as_ref(), 2).unwrap_or(0))
    }

    fn header(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        b.get(..self.header_len()).unwrap_or(b)
    }

    /// The first present bitmap.
    pub fn present(&self) -> u32 {
        bytes::u32_le(self.buffer.as_ref(), 4).unwrap_or(0)
    }

    /// Iterates over the fields.
    pub fn fields(&self) -> Fields<'_> {
        let hdr = self.header();
        let start = self.data_start();
        Fields {
            hdr,
            word_off: 4,
            bit: 0,
            ns_index: 0,
            vendor: false,
            cursor: start.unwrap_or(hdr.len()),
            done: start.is_err(),
            unknown: None,
        }
    }

    /// The data of the first radiotap-namespace field with this number.
    pub fn field(&self, index: u32) -> Option<&[u8]> {
        self.fields().map_while(|f| f.ok()).find_map(|f| match f {
            Field::Standard { index: i, data } if i == index => Some(data),
            _ => None,
        })
    }

    /// TSFT.
    pub fn tsft(&self) -> Option<u64> {
        bytes::u64_le(self.field(field_index::TSFT)?, 0)
    }

    /// Flags.
    pub fn flags(&self) -> Option<RadiotapFlags> {
        self.field(field_index::FLAGS)?
            .first()
            .map(|&f| RadiotapFlags(f))
    }

    /// Rate in 500 kb/s units.
    pub fn rate(&self) -> Option<u8> {
        self.field(field_index::RATE)?.first().copied()
    }

    /// Channel.
    pub fn channel(&self) -> Option<Channel> {
        let d = self.field(field_index::CHANNEL)?;
        Some(Channel {
            freq: bytes::u16_le(d, 0)?,
            flags: bytes::u16_le(d, 2)?,
        })
    }

    /// Antenna signal in dBm (the first occurrence).
    pub fn dbm_antenna_signal(&self) -> Option<i8> {
        self.field(field_index::DBM_ANTSIGNAL)?
            .first()
            .map(|&v| v as i8)
    }

    /// TX flags.
    pub fn tx_flags(&self) -> Option<u16> {
        bytes::u16_le(self.field(field_index::TX_FLAGS)?, 0)
    }

    /// True when the Flags field says the frame ends with its FCS.
    pub fn has_fcs(&self) -> bool {
        self.flags().is_some_and(RadiotapFlags::fcs_at_end)
    }

    /// True when the Flags field says the FCS check failed.
    pub fn bad_fcs(&self) -> bool {
        self.flags().is_some_and(RadiotapFlags::bad_fcs)
    }

    /// Everything after the radiotap header: the 802.11 frame, with its FCS
    /// when [`Radiotap::has_fcs`].
    pub fn payload(&self) -> &[u8] {
        self.buffer.as_ref().get(self.header_len()..).unwrap_or(&[])
    }

    /// The 802.11 frame without the FCS.
    pub fn frame(&self) -> &[u8] {
        let p = self.payload();
        if self.has_fcs() {
            p.get(..p.len().saturating_sub(4)).unwrap_or(&[])
        } else {
            p
        }
    }

    /// The FCS (little-endian CRC-32 as transmitted), when present.
    pub fn fcs(&self) -> Option<u32> {
        if !self.has_fcs() {
            return None;
        }
        let p = self.payload();
        bytes::u32_le(p, p.len().checked_sub(4)?)
    }
}

/// A minimal radiotap header for frames wisec writes: Flags, and
/// optionally Rate, Channel, antenna signal and TX flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RadiotapRepr {
    /// Flags.
    pub flags: Option<RadiotapFlags>,
    /// Rate (500 kb/s).
    pub rate: Option<u8>,
    /// Channel.
    pub channel: Option<Channel>,
    /// Antenna signal (dBm).
    pub dbm_antenna_signal: Option<i8>,
    /// TX flags (0x0008: no ACK expected).
    pub tx_flags: Option<u16>,
}

impl RadiotapRepr {
    /// Reads the fields this repr models; other fields are ignored.
    pub fn parse<T: AsRef<[u8]>>(r: &Radiotap<T>) -> Result<RadiotapRepr> {
        r.check_len()?;
        Ok(RadiotapRepr {
            flags: r.flags(),
            rate: r.rate(),
            channel: r.channel(),
            dbm_antenna_signal: r.dbm_antenna_signal(),
            tx_flags: r.tx_flags(),
        })
    }

    fn layout(&self, mut f: impl FnMut(u32, usize, &[u8])) -> usize {
        let mut off = 8usize;
        let mut put = |index: u32, data: &[u8]| {
            let (align, _) = FIELDS[index as usize];
            let a = usize::from(align);
            off = (off + a - 1) & !(a - 1);
            f(index, off, data);
            off += data.len();
        };
        if let Some(fl) = self.flags {
            put(field_index::FLAGS, &[fl.0]);
        }
        if let Some(r) = self.rate {
            put(field_index::RATE, &[r]);
        }
        if let Some(c) = self.channel {
            let mut d = [0u8; 4];
            d[..2].copy_from_slice(&c.freq.to_le_bytes());
            d[2..].copy_from_slice(&c.flags.to_le_bytes());
            put(field_index::CHANNEL, &d);
        }
        if let Some(s) = self.dbm_antenna_signal {
            put(field_index::DBM_ANTSIGNAL, &[s as u8]);
        }
        if let Some(t) = self.tx_flags {
            put(field_index::TX_FLAGS, &t.to_le_bytes());
        }
        off
    }

    /// Length of the emitted header.
    pub fn buffer_len(&self) -> usize {
        self.layout(|_, _, _| {})
    }

    /// Writes the header, returning its length.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let len = self.buffer_len();
        let b = buf.get_mut(..len).ok_or(Error::Truncated)?;
        b.fill(0);
        let mut present = 0u32;
        self.layout(|index, off, data| {
            present |= 1 << index;
            b[off..off + data.len()].copy_from_slice(data);
        });
        b[2..4].copy_from_slice(&(len as u16).to_le_bytes());
        b[4..8].copy_from_slice(&present.to_le_bytes());
        Ok(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typical_rx_header() {
        // Present 0x0000482e: Flags, Rate, Channel, dBm signal, Antenna, RX
        // flags. Data: flags 0x10 (FCS at end), rate 2 (1 Mb/s), channel
        // 2412 MHz CCK|2GHz, -59 dBm, antenna 1, RX flags 0; then an Ack
        // frame and its FCS.
        let buf = [
            0x00, 0x00, 0x12, 0x00, 0x2e, 0x48, 0x00, 0x00, 0x10, 0x02, 0x6c, 0x09, 0xa0, 0x00,
            0xc5, 0x01, 0x00, 0x00, 0xd4, 0x00, 0x00, 0x00, 1, 2, 3, 4, 5, 6, 0xaa, 0xbb, 0xcc,
            0xdd,
        ];
        let r = Radiotap::new_checked(&buf[..]).unwrap();
        assert_eq!(r.header_len(), 18);
        assert_eq!(r.flags(), Some(RadiotapFlags(0x10)));
        assert!(r.has_fcs() && !r.bad_fcs());
        assert_eq!(r.rate(), Some(2));
        assert_eq!(
            r.channel(),
            Some(Channel {
                freq: 2412,
                flags: Channel::CCK | Channel::GHZ2
            })
        );
        assert_eq!(r.dbm_antenna_signal(), Some(-59));
        assert_eq!(r.field(field_index::ANTENNA), Some(&[1u8][..]));
        assert_eq!(r.field(field_index::RX_FLAGS), Some(&[0u8, 0][..]));
        assert_eq!(r.tsft(), None);
        assert_eq!(r.payload().len(), 14);
        assert_eq!(r.frame(), &buf[18..28]);
        assert_eq!(r.fcs(), Some(0xddccbbaa));
        let indices: [u32; 6] = [1, 2, 3, 5, 11, 14];
        assert!(r
            .fields()
            .map(|f| match f.unwrap() {
                Field::Standard { index, .. } => index,
                Field::Vendor { .. } => 99,
            })
            .eq(indices.iter().copied()));
        // Bad FCS flag.
        let mut bad = buf;
        bad[8] = 0x50;
        assert!(Radiotap::new_checked(&bad[..]).unwrap().bad_fcs());
        // Version 1, short length, length past the buffer.
        let mut v = buf;
        v[0] = 1;
        assert_eq!(
            Radiotap::new_checked(&v[..]).unwrap_err(),
            Error::Unsupported
        );
        let mut v = buf;
        v[2] = 7;
        assert_eq!(Radiotap::new_checked(&v[..]).unwrap_err(), Error::Malformed);
        assert_eq!(
            Radiotap::new_checked(&buf[..17]).unwrap_err(),
            Error::Truncated
        );
        // The length field cuts the channel field: the walk reports it.
        let mut v = buf;
        v[2] = 12;
        let r = Radiotap::new_checked(&v[..]).unwrap();
        let mut it = r.fields();
        assert!(it.next().unwrap().is_ok());
        assert!(it.next().unwrap().is_ok());
        assert_eq!(it.next(), Some(Err(Error::Truncated)));
        assert_eq!(it.next(), None);
    }

    #[test]
    fn extended_bitmaps_and_alignment() {
        // Three bitmaps as Linux writes them for per-chain signals:
        // w0 = TSFT|Flags|Rate|Channel|dBm signal|radiotap NS|ext,
        // w1 = dBm signal|Antenna|radiotap NS|ext, w2 = dBm signal|Antenna.
        let mut buf = [0u8; 35];
        buf[2] = 35;
        buf[4..8].copy_from_slice(&0xa000_002fu32.to_le_bytes());
        buf[8..12].copy_from_slice(&0xa000_0820u32.to_le_bytes());
        buf[12..16].copy_from_slice(&0x0000_0820u32.to_le_bytes());
        // TSFT aligned to 8 at 16.
        buf[16..24].copy_from_slice(&0x1122_3344_5566_7788u64.to_le_bytes());
        buf[24] = 0x00; // flags
        buf[25] = 0x0c; // 6 Mb/s
        buf[26..30].copy_from_slice(&[0x3c, 0x14, 0x40, 0x01]); // 5180 MHz OFDM|5GHz
        buf[30] = 0xd0; // -48 dBm (combined)
        buf[31] = 0xce; // chain 0: -50
        buf[32] = 0;
        buf[33] = 0xcc; // chain 1: -52
        buf[34] = 1;
        let r = Radiotap::new_checked(&buf[..]).unwrap();
        assert_eq!(r.tsft(), Some(0x1122_3344_5566_7788));
        assert_eq!(r.rate(), Some(12));
        assert_eq!(r.channel().unwrap().freq, 5180);
        assert_eq!(r.dbm_antenna_signal(), Some(-48));
        let mut all = [(0u32, 0u8); 9];
        let mut n = 0;
        for f in r.fields() {
            if let Field::Standard { index, data } = f.unwrap() {
                all[n] = (index, data[0]);
                n += 1;
            }
        }
        assert_eq!(n, 9);
        assert_eq!(&all[5..], &[(5, 0xce), (11, 0), (5, 0xcc), (11, 1)]);
        assert!(r.payload().is_empty());
        // A header whose last bitmap claims another that is not there.
        let mut v = buf;
        v[2] = 16;
        v[12..16].copy_from_slice(&0x8000_0000u32.to_le_bytes());
        assert_eq!(
            Radiotap::new_checked(&v[..16]).unwrap_err(),
            Error::Malformed
        );
    }

    #[test]
    fn vendor_namespace_and_unknown_bits() {
        // w0 = Flags | vendor NS | ext; w1 = vendor bit 0 (skipped).
        let buf = [
            0, 0, 23, 0, 0x02, 0, 0, 0xc0, 0x01, 0, 0, 0, 0x10, 0, 0x00, 0x11, 0x22, 0x07, 3, 0,
            0xa, 0xb, 0xc,
        ];
        let r = Radiotap::new_checked(&buf[..]).unwrap();
        let mut it = r.fields();
        assert_eq!(
            it.next(),
            Some(Ok(Field::Standard {
                index: 1,
                data: &[0x10]
            }))
        );
        assert_eq!(
            it.next(),
            Some(Ok(Field::Vendor {
                oui: [0x00, 0x11, 0x22],
                sub_namespace: 7,
                data: &[0xa, 0xb, 0xc]
            }))
        );
        assert_eq!(it.next(), None);
        assert!(r.has_fcs());
        // Bit 28 (TLVs) is not walked: the iterator stops and says where.
        let mut v = [0u8; 12];
        v[2] = 12;
        v[4..8].copy_from_slice(&((1u32 << 1) | (1 << 28)).to_le_bytes());
        v[8] = 0x10;
        let r = Radiotap::new_checked(&v[..]).unwrap();
        let mut it = r.fields();
        assert!(matches!(
            it.next(),
            Some(Ok(Field::Standard { index: 1, .. }))
        ));
        assert_eq!(it.next(), None);
        assert_eq!(it.stopped_at_unknown(), Some(28));
        assert!(r.has_fcs());
    }

    #[test]
    fn emit_minimal_headers() {
        let r = RadiotapRepr {
            flags: Some(RadiotapFlags(0)),
            ..Default::default()
        };
        let mut buf = [0u8; 32];
        assert_eq!(r.emit(&mut buf), Ok(9));
        assert_eq!(&buf[..9], &[0, 0, 9, 0, 0x02, 0, 0, 0, 0]);
        let r = RadiotapRepr {
            flags: Some(RadiotapFlags(RadiotapFlags::FCS_AT_END)),
            rate: Some(2),
            channel: Some(Channel {
                freq: 2412,
                flags: Channel::CCK | Channel::GHZ2,
            }),
            dbm_antenna_signal: Some(-59),
            tx_flags: Some(0x0008),
        };
        let n = r.emit(&mut buf).unwrap();
        assert_eq!(
            &buf[..n],
            &[
                0, 0, 18, 0, 0x2e, 0x80, 0, 0, 0x10, 0x02, 0x6c, 0x09, 0xa0, 0x00, 0xc5, 0x00,
                0x08, 0x00
            ]
        );
        let v = Radiotap::new_checked(&buf[..n]).unwrap();
        assert_eq!(RadiotapRepr::parse(&v), Ok(r));
        assert_eq!(r.emit(&mut buf[..17]), Err(Error::Truncated));
    }
}
