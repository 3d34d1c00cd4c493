//! The MAC header of every frame (IEEE Std 802.11-2020, 9.2.3 and 9.2.4).
//!
//! [`Header`] is a view over a buffer that starts with a MAC header and may
//! continue with the frame body (the whole MPDU without FCS). Every offset
//! that depends on the frame control field comes from [`Header::header_len`].

use crate::frame_control::{ctrl_subtype, FrameControl, FrameType};
use crate::{Error, MacAddr, Result};

mod field {
    use core::ops::Range;
    pub const FRAME_CONTROL: Range<usize> = 0..2;
    pub const DURATION: Range<usize> = 2..4;
    pub const ADDR1: Range<usize> = 4..10;
    pub const ADDR2: Range<usize> = 10..16;
    pub const ADDR3: Range<usize> = 16..22;
    pub const SEQ_CTRL: Range<usize> = 22..24;
    pub const ADDR4: Range<usize> = 24..30;
}

/// Length of the header of a frame with this frame control field, or an
/// error for frames whose header this crate cannot delimit (protocol version
/// other than 0, the Extension type, reserved control subtypes).
///
/// - Management: 24 bytes, +4 with HT Control (9.3.3.2).
/// - Data: 24, +6 with Address 4, +2 with QoS Control, +4 with HT Control
///   (9.3.2.1).
/// - Control: 10 for CTS and Ack, 16 for the others with a TA or BSSID
///   (9.3.1); a Control Wrapper carries Address 1, the carried frame control
///   and HT Control (9.3.1.9): 16.
#[inline]
pub fn header_len(fc: FrameControl) -> Result<usize> {
    if fc.protocol_version() != 0 {
        return Err(Error::Unsupported);
    }
    match fc.frame_type() {
        FrameType::Management => Ok(24 + if fc.has_ht_control() { 4 } else { 0 }),
        FrameType::Data => {
            let mut len = 24;
            if fc.has_addr4() {
                len += 6;
            }
            if fc.is_qos_data() {
                len += 2;
            }
            if fc.has_ht_control() {
                len += 4;
            }
            Ok(len)
        }
        FrameType::Control => match fc.subtype() {
            ctrl_subtype::CTS | ctrl_subtype::ACK => Ok(10),
            ctrl_subtype::TRIGGER..=ctrl_subtype::CF_END_ACK => Ok(16),
            _ => Err(Error::Unsupported),
        },
        FrameType::Extension => Err(Error::Unsupported),
    }
}

/// A view over a frame that starts with an 802.11 MAC header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Header<T> {
    /// Wraps a buffer without checking it. Accessors may panic on a short
    /// buffer; use [`Header::new_checked`] for untrusted input.
    pub const fn new_unchecked(buffer: T) -> Header<T> {
        Header { buffer }
    }

    /// Wraps a buffer after [`Header::check_len`].
    pub fn new_checked(buffer: T) -> Result<Header<T>> {
        let h = Header::new_unchecked(buffer);
        h.check_len()?;
        Ok(h)
    }

    /// Checks that the buffer holds the whole header that its frame control
    /// field announces.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < field::FRAME_CONTROL.end {
            return Err(Error::Truncated);
        }
        let len = header_len(self.frame_control())?;
        if b.len() < len {
            return Err(Error::Truncated);
        }
        Ok(())
    }

    /// Returns the underlying buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The underlying buffer.
    pub fn as_bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// Frame Control.
    #[inline]
    pub fn frame_control(&self) -> FrameControl {
        let b = self.buffer.as_ref();
        FrameControl::from_bytes([b[0], b[1]])
    }

    /// Length of the MAC header (see [`header_len`]).
    #[inline]
    pub fn header_len(&self) -> usize {
        // check_len has verified that header_len succeeds.
        header_len(self.frame_control()).unwrap_or(self.buffer.as_ref().len())
    }

    /// Duration/ID field.
    pub fn duration(&self) -> u16 {
        let b = self.buffer.as_ref();
        u16::from_le_bytes([b[field::DURATION.start], b[field::DURATION.start + 1]])
    }

    #[inline(always)]
    fn addr_at(&self, start: usize) -> Option<MacAddr> {
        if start + 6 > self.header_len() {
            return None;
        }
        MacAddr::from_bytes(&self.buffer.as_ref()[start..])
    }

    /// Address 1 (always present).
    #[inline]
    pub fn addr1(&self) -> MacAddr {
        MacAddr::from_bytes(&self.buffer.as_ref()[field::ADDR1]).unwrap_or_default()
    }

    /// Address 2, absent in CTS and Ack frames. In a Control Wrapper the
    /// bytes after Address 1 are not an address and this returns `None`.
    #[inline]
    pub fn addr2(&self) -> Option<MacAddr> {
        let fc = self.frame_control();
        if fc.is_ctrl() && fc.subtype() == ctrl_subtype::CONTROL_WRAPPER {
            return None;
        }
        self.addr_at(field::ADDR2.start)
    }

    /// Address 3, present in management and data frames.
    #[inline]
    pub fn addr3(&self) -> Option<MacAddr> {
        if self.frame_control().is_ctrl() {
            return None;
        }
        self.addr_at(field::ADDR3.start)
    }

    /// Address 4, present in data frames with To DS and From DS set.
    #[inline]
    pub fn addr4(&self) -> Option<MacAddr> {
        if !self.frame_control().has_addr4() {
            return None;
        }
        self.addr_at(field::ADDR4.start)
    }

    /// Sequence Control, present in management and data frames.
    #[inline]
    pub fn sequence_control(&self) -> Option<u16> {
        if self.frame_control().is_ctrl() {
            return None;
        }
        let b = self.buffer.as_ref();
        Some(u16::from_le_bytes([
            b[field::SEQ_CTRL.start],
            b[field::SEQ_CTRL.start + 1],
        ]))
    }

    /// Sequence Number (the 12 high bits of Sequence Control).
    pub fn sequence_number(&self) -> Option<u16> {
        self.sequence_control().map(|s| s >> 4)
    }

    /// Fragment Number (the 4 low bits of Sequence Control).
    pub fn fragment_number(&self) -> Option<u8> {
        self.sequence_control().map(|s| (s & 0xf) as u8)
    }

    fn qos_offset(&self) -> Option<usize> {
        let fc = self.frame_control();
        if !fc.is_qos_data() {
            return None;
        }
        Some(if fc.has_addr4() { 30 } else { 24 })
    }

    /// QoS Control, present in QoS data frames (9.2.4.5).
    #[inline]
    pub fn qos_control(&self) -> Option<u16> {
        let off = self.qos_offset()?;
        let b = self.buffer.as_ref();
        Some(u16::from_le_bytes([b[off], b[off + 1]]))
    }

    /// The TID of a QoS data frame (bits 0..=3 of QoS Control), 0 for
    /// non-QoS frames.
    #[inline]
    pub fn tid(&self) -> u8 {
        self.qos_control().map_or(0, |q| (q & 0x0f) as u8)
    }

    /// HT Control (9.2.4.6), present when [`FrameControl::has_ht_control`].
    pub fn ht_control(&self) -> Option<u32> {
        let fc = self.frame_control();
        if !fc.has_ht_control() {
            return None;
        }
        let off = self.header_len() - 4;
        let b = self.buffer.as_ref();
        Some(u32::from_le_bytes([
            b[off],
            b[off + 1],
            b[off + 2],
            b[off + 3],
        ]))
    }

    /// Receiver address: Address 1.
    #[inline]
    pub fn ra(&self) -> MacAddr {
        self.addr1()
    }

    /// Transmitter address: Address 2 where present.
    #[inline]
    pub fn ta(&self) -> Option<MacAddr> {
        self.addr2()
    }

    /// The BSSID, by frame type and the To DS/From DS bits (Table 9-30):
    /// Address 3 in management frames and IBSS data, Address 2 in data from
    /// the DS, Address 1 in data to the DS; none for a four-address frame.
    /// For PS-Poll and CF-End the BSSID is in Address 1 or 2 as 9.3.1 shows.
    #[inline]
    pub fn bssid(&self) -> Option<MacAddr> {
        let fc = self.frame_control();
        match fc.frame_type() {
            FrameType::Management => self.addr3(),
            FrameType::Data => match (fc.to_ds(), fc.from_ds()) {
                (false, false) => self.addr3(),
                (false, true) => self.addr2(),
                (true, false) => Some(self.addr1()),
                (true, true) => None,
            },
            FrameType::Control => match fc.subtype() {
                ctrl_subtype::PS_POLL => Some(self.addr1()),
                ctrl_subtype::CF_END | ctrl_subtype::CF_END_ACK => self.addr2(),
                _ => None,
            },
            FrameType::Extension => None,
        }
    }

    /// The destination address of the MSDU or MMPDU (Table 9-30).
    pub fn da(&self) -> Option<MacAddr> {
        let fc = self.frame_control();
        match fc.frame_type() {
            FrameType::Management => Some(self.addr1()),
            FrameType::Data => match (fc.to_ds(), fc.from_ds()) {
                (false, _) => Some(self.addr1()),
                (true, _) => self.addr3(),
            },
            _ => None,
        }
    }

    /// The source address of the MSDU or MMPDU (Table 9-30).
    pub fn sa(&self) -> Option<MacAddr> {
        let fc = self.frame_control();
        match fc.frame_type() {
            FrameType::Management => self.addr2(),
            FrameType::Data => match (fc.to_ds(), fc.from_ds()) {
                (_, false) => self.addr2(),
                (false, true) => self.addr3(),
                (true, true) => self.addr4(),
            },
            _ => None,
        }
    }

    /// The bytes after the MAC header (frame body, and FCS if the buffer
    /// holds one).
    #[inline]
    pub fn payload(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        &b[self.header_len().min(b.len())..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Header<T> {
    /// Writes Frame Control.
    pub fn set_frame_control(&mut self, fc: FrameControl) {
        self.buffer.as_mut()[field::FRAME_CONTROL].copy_from_slice(&fc.to_bytes());
    }

    /// Writes Duration/ID.
    pub fn set_duration(&mut self, duration: u16) {
        self.buffer.as_mut()[field::DURATION].copy_from_slice(&duration.to_le_bytes());
    }

    /// Writes Address 1.
    pub fn set_addr1(&mut self, a: MacAddr) {
        self.buffer.as_mut()[field::ADDR1].copy_from_slice(&a.0);
    }

    /// Writes Sequence Control (management and data frames only; ignored
    /// for control frames, which have none).
    pub fn set_sequence_control(&mut self, sc: u16) {
        if !self.frame_control().is_ctrl() {
            self.buffer.as_mut()[field::SEQ_CTRL].copy_from_slice(&sc.to_le_bytes());
        }
    }

    /// The bytes after the MAC header, mutable.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let start = self.header_len();
        let b = self.buffer.as_mut();
        let start = start.min(b.len());
        &mut b[start..]
    }
}

/// An owned, parsed MAC header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeaderRepr {
    /// Frame Control.
    pub frame_control: FrameControl,
    /// Duration/ID.
    pub duration: u16,
    /// Address 1.
    pub addr1: MacAddr,
    /// Address 2 (absent in CTS/Ack; for a Control Wrapper: the carried
    /// frame control and HT Control are not modelled and it is `None`).
    pub addr2: Option<MacAddr>,
    /// Address 3 (management and data).
    pub addr3: Option<MacAddr>,
    /// Sequence Control (management and data).
    pub sequence_control: Option<u16>,
    /// Address 4 (data with To DS and From DS).
    pub addr4: Option<MacAddr>,
    /// QoS Control (QoS data).
    pub qos_control: Option<u16>,
    /// HT Control (QoS data or management with +HTC).
    pub ht_control: Option<u32>,
}

impl HeaderRepr {
    /// Parses a checked header.
    pub fn parse<T: AsRef<[u8]>>(h: &Header<T>) -> Result<HeaderRepr> {
        h.check_len()?;
        let fc = h.frame_control();
        if fc.is_ctrl() && fc.subtype() == ctrl_subtype::CONTROL_WRAPPER {
            return Err(Error::Unsupported);
        }
        Ok(HeaderRepr {
            frame_control: fc,
            duration: h.duration(),
            addr1: h.addr1(),
            addr2: h.addr2(),
            addr3: h.addr3(),
            sequence_control: h.sequence_control(),
            addr4: h.addr4(),
            qos_control: h.qos_control(),
            ht_control: h.ht_control(),
        })
    }

    /// Length of the emitted header; an error when the frame control field
    /// is of an unsupported kind or when an optional field's presence
    /// disagrees with it.
    pub fn buffer_len(&self) -> Result<usize> {
        let fc = self.frame_control;
        let len = header_len(fc)?;
        let ctrl = fc.is_ctrl();
        let want_addr2 = !(ctrl && matches!(fc.subtype(), ctrl_subtype::CTS | ctrl_subtype::ACK));
        let ok = self.addr2.is_some() == want_addr2
            && self.addr3.is_some() != ctrl
            && self.sequence_control.is_some() != ctrl
            && self.addr4.is_some() == fc.has_addr4()
            && self.qos_control.is_some() == fc.is_qos_data()
            && self.ht_control.is_some() == fc.has_ht_control()
            && !(ctrl && fc.subtype() == ctrl_subtype::CONTROL_WRAPPER);
        if ok {
            Ok(len)
        } else {
            Err(Error::Malformed)
        }
    }

    /// Writes the header to the start of `buf`, returning its length.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let len = self.buffer_len()?;
        let b = buf.get_mut(..len).ok_or(Error::Truncated)?;
        b[field::FRAME_CONTROL].copy_from_slice(&self.frame_control.to_bytes());
        b[field::DURATION].copy_from_slice(&self.duration.to_le_bytes());
        b[field::ADDR1].copy_from_slice(&self.addr1.0);
        if let Some(a) = self.addr2 {
            b[field::ADDR2].copy_from_slice(&a.0);
        }
        if let Some(a) = self.addr3 {
            b[field::ADDR3].copy_from_slice(&a.0);
        }
        if let Some(s) = self.sequence_control {
            b[field::SEQ_CTRL].copy_from_slice(&s.to_le_bytes());
        }
        let mut off = 24;
        if let Some(a) = self.addr4 {
            b[off..off + 6].copy_from_slice(&a.0);
            off += 6;
        }
        if let Some(q) = self.qos_control {
            b[off..off + 2].copy_from_slice(&q.to_le_bytes());
            off += 2;
        }
        if let Some(h) = self.ht_control {
            b[off..off + 4].copy_from_slice(&h.to_le_bytes());
        }
        Ok(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame_control::{data_subtype, mgmt_subtype};

    // The plaintext MPDU of the CCMP test vector of IEEE 802.11-2012 M.6.4:
    // a data frame with neither To DS nor From DS (IBSS addressing).
    const CCMP_M64: &str =
        "0848c32c0fd2e128a57c5030f1844408abaea5b8fcba8033f8ba1a55d02f85ae967bb62fb6cda8eb7e78a050";

    /// `header_len` for every one of the 65536 frame control values
    /// against the tables read field by field: 9.3.3.2 (management: 24
    /// octets, HT Control with +HTC), 9.3.2.1 (data: Address 4 with To DS
    /// and From DS, QoS Control in QoS subtypes, HT Control with +HTC in QoS
    /// subtypes only), 9.3.1 (control: 10 octets for CTS and Ack, 16 for the
    /// subtypes with a TA, Trigger to CF-End +CF-Ack; reserved subtypes
    /// refused), and no length for another protocol version or the
    /// Extension type.
    #[test]
    fn header_len_matches_the_tables_for_every_frame_control() {
        for raw in 0..=u16::MAX {
            let version = raw & 3;
            let kind = (raw >> 2) & 3;
            let subtype = ((raw >> 4) & 0xf) as u8;
            let (to_ds, from_ds, order) = (raw & 0x100 != 0, raw & 0x200 != 0, raw & 0x8000 != 0);
            let want = match (version, kind) {
                (0, 0) => Some(if order { 28 } else { 24 }),
                (0, 2) => {
                    let qos = subtype >= 8;
                    let mut n = 24;
                    if to_ds && from_ds {
                        n += 6;
                    }
                    if qos {
                        n += 2;
                        if order {
                            n += 4;
                        }
                    }
                    Some(n)
                }
                (0, 1) => match subtype {
                    12 | 13 => Some(10),
                    2..=11 | 14 | 15 => Some(16),
                    _ => None,
                },
                _ => None,
            };
            let got = header_len(FrameControl(raw)).ok();
            assert_eq!(got, want, "frame control {raw:#06x}");
        }
    }

    #[test]
    fn data_header_fields() {
        let bytes = hex::decode(CCMP_M64).unwrap();
        let h = Header::new_checked(&bytes[..]).unwrap();
        let fc = h.frame_control();
        assert!(fc.is_data());
        assert!(!fc.to_ds() && !fc.from_ds());
        assert!(fc.protected() && fc.retry());
        assert_eq!(h.header_len(), 24);
        assert_eq!(h.duration(), 0x2cc3);
        assert_eq!(h.addr1().0, [0x0f, 0xd2, 0xe1, 0x28, 0xa5, 0x7c]);
        assert_eq!(h.addr2().unwrap().0, [0x50, 0x30, 0xf1, 0x84, 0x44, 0x08]);
        assert_eq!(h.bssid(), h.addr3());
        assert_eq!(h.da(), Some(h.addr1()));
        assert_eq!(h.sa(), h.addr2());
        assert_eq!(h.sequence_number(), Some(0x3380 >> 4));
        assert_eq!(h.fragment_number(), Some(0));
        assert_eq!(h.payload().len(), bytes.len() - 24);
        let repr = HeaderRepr::parse(&h).unwrap();
        let mut out = [0u8; 40];
        let n = repr.emit(&mut out).unwrap();
        assert_eq!(&out[..n], &bytes[..24]);
    }

    #[test]
    fn four_address_qos_htc() {
        let mut fc = FrameControl::new(FrameType::Data, data_subtype::QOS_DATA);
        fc.set_to_ds(true);
        fc.set_from_ds(true);
        fc.set_order(true);
        let repr = HeaderRepr {
            frame_control: fc,
            duration: 0,
            addr1: MacAddr([1; 6]),
            addr2: Some(MacAddr([2; 6])),
            addr3: Some(MacAddr([3; 6])),
            sequence_control: Some(0x1234),
            addr4: Some(MacAddr([4; 6])),
            qos_control: Some(0x0005),
            ht_control: Some(0xdeadbeef),
        };
        assert_eq!(repr.buffer_len(), Ok(36));
        let mut buf = [0u8; 36];
        repr.emit(&mut buf).unwrap();
        let h = Header::new_checked(&buf[..]).unwrap();
        assert_eq!(h.tid(), 5);
        assert_eq!(h.ht_control(), Some(0xdeadbeef));
        assert_eq!(h.bssid(), None);
        assert_eq!(h.sa(), Some(MacAddr([4; 6])));
        assert_eq!(h.da(), Some(MacAddr([3; 6])));
        assert_eq!(h.ra(), MacAddr([1; 6]));
        assert_eq!(h.ta(), Some(MacAddr([2; 6])));
        assert_eq!(HeaderRepr::parse(&h), Ok(repr));
        assert_eq!(
            Header::new_checked(&buf[..35]).unwrap_err(),
            Error::Truncated
        );
    }

    #[test]
    fn from_ds_and_mgmt() {
        let mut fc = FrameControl::new(FrameType::Data, data_subtype::DATA);
        fc.set_from_ds(true);
        let mut buf = [0u8; 24];
        buf[..2].copy_from_slice(&fc.to_bytes());
        buf[4..10].copy_from_slice(&[1; 6]);
        buf[10..16].copy_from_slice(&[2; 6]);
        buf[16..22].copy_from_slice(&[3; 6]);
        let h = Header::new_checked(&buf[..]).unwrap();
        assert_eq!(h.bssid(), Some(MacAddr([2; 6])));
        assert_eq!(h.sa(), Some(MacAddr([3; 6])));
        assert_eq!(h.da(), Some(MacAddr([1; 6])));

        let fc = FrameControl::new(FrameType::Management, mgmt_subtype::BEACON);
        buf[..2].copy_from_slice(&fc.to_bytes());
        let h = Header::new_checked(&buf[..]).unwrap();
        assert_eq!(h.bssid(), Some(MacAddr([3; 6])));
        assert_eq!(h.sa(), Some(MacAddr([2; 6])));
        assert_eq!(h.da(), Some(MacAddr([1; 6])));
    }

    #[test]
    fn control_frames() {
        let ack = [0xd4, 0x00, 0x00, 0x00, 1, 2, 3, 4, 5, 6];
        let h = Header::new_checked(&ack[..]).unwrap();
        assert_eq!(h.header_len(), 10);
        assert_eq!(h.addr2(), None);
        assert_eq!(h.addr3(), None);
        assert_eq!(h.sequence_control(), None);
        assert_eq!(h.ra(), MacAddr([1, 2, 3, 4, 5, 6]));
        let repr = HeaderRepr::parse(&h).unwrap();
        let mut out = [0u8; 10];
        assert_eq!(repr.emit(&mut out), Ok(10));
        assert_eq!(out, ack);
        // RTS is 16 bytes: a 10-byte buffer is truncated.
        assert_eq!(
            Header::new_checked(&[0xb4, 0, 0, 0, 1, 2, 3, 4, 5, 6][..]).unwrap_err(),
            Error::Truncated
        );
        // Reserved control subtype and the extension type are unsupported.
        assert_eq!(
            Header::new_checked(&[0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0][..])
                .unwrap_err(),
            Error::Unsupported
        );
        assert_eq!(
            Header::new_checked(&[0x0c, 0, 0, 0][..]).unwrap_err(),
            Error::Unsupported
        );
        // Protocol version 1 is unsupported.
        assert_eq!(
            Header::new_checked(&[0x81, 0, 0, 0][..]).unwrap_err(),
            Error::Unsupported
        );
    }

    #[test]
    fn no_accessor_panics_on_short_or_random_input() {
        let mut state = 0x1234_5678u32;
        let mut buf = [0u8; 40];
        for _ in 0..20_000 {
            for b in buf.iter_mut() {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                *b = state as u8;
            }
            let len = (state >> 8) as usize % 41;
            if let Ok(h) = Header::new_checked(&buf[..len]) {
                let _ = (h.addr1(), h.addr2(), h.addr3(), h.addr4(), h.duration());
                let _ = (
                    h.sequence_control(),
                    h.qos_control(),
                    h.ht_control(),
                    h.tid(),
                );
                let _ = (h.bssid(), h.sa(), h.da(), h.ta(), h.ra(), h.payload());
                if let Ok(r) = HeaderRepr::parse(&h) {
                    let mut out = [0u8; 40];
                    let n = r.emit(&mut out).unwrap();
                    assert_eq!(&out[..n], &buf[..n]);
                }
            }
        }
    }
}
