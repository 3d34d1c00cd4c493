//! The MAC's own frames (Ack, RTS, CTS), built byte for byte with
//! `wisec-wire`, and the few header fields the MAC reads from any frame.

use crate::time::Time;
use wisec_wire::frame_control::{ctrl_subtype, FrameType};
use wisec_wire::{FrameControl, Header, HeaderRepr, MacAddr};

/// What the MAC needs from a received frame's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameInfo {
    /// Frame Control.
    pub fc: FrameControl,
    /// Duration/ID in µs (0 when the field holds an AID, bit 15 set).
    pub duration_us: u16,
    /// Receiver address.
    pub ra: MacAddr,
    /// Transmitter address, where the frame has one.
    pub ta: Option<MacAddr>,
    /// Sequence Control, for management and data frames.
    pub sequence_control: Option<u16>,
}

impl FrameInfo {
    /// Reads the header of `frame`; `None` when it is too short or of a kind
    /// `wisec-wire` cannot delimit.
    pub fn parse(frame: &[u8]) -> Option<FrameInfo> {
        let h = Header::new_checked(frame).ok()?;
        let d = h.duration();
        Some(FrameInfo {
            fc: h.frame_control(),
            // 9.2.4.2: bit 15 clear = a duration in µs.
            duration_us: if d & 0x8000 == 0 { d } else { 0 },
            ra: h.addr1(),
            ta: h.ta(),
            sequence_control: h.sequence_control(),
        })
    }

    /// True for a control frame of `subtype`.
    pub fn is_ctrl(&self, subtype: u8) -> bool {
        self.fc.is_ctrl() && self.fc.subtype() == subtype
    }

    /// True for a frame the receiver acknowledges: an individually
    /// addressed data or management frame (10.3.2.11; QoS data with the
    /// Normal Ack policy).
    pub fn wants_ack(&self) -> bool {
        (self.fc.is_data() || self.fc.is_mgmt()) && !self.ra.is_group()
    }
}

/// A Duration/ID value in µs for an interval, rounded up and capped at
/// 32767 (9.2.5).
pub fn duration_field(t: Time) -> u16 {
    t.as_us_ceil().min(32_767) as u16
}

fn control(subtype: u8, duration: u16, ra: MacAddr, ta: Option<MacAddr>) -> Vec<u8> {
    let repr = HeaderRepr {
        frame_control: FrameControl::new(FrameType::Control, subtype),
        duration,
        addr1: ra,
        addr2: ta,
        addr3: None,
        sequence_control: None,
        addr4: None,
        qos_control: None,
        ht_control: None,
    };
    let len = repr.buffer_len().unwrap_or(0);
    let mut buf = vec![0u8; len];
    // The representation above is always a valid Ack, CTS or RTS header.
    let _ = repr.emit(&mut buf);
    buf
}

/// An Ack to `ra` (9.3.1.4), without FCS.
pub fn ack(ra: MacAddr, duration: u16) -> Vec<u8> {
    control(ctrl_subtype::ACK, duration, ra, None)
}

/// A CTS to `ra` (9.3.1.3), without FCS.
pub fn cts(ra: MacAddr, duration: u16) -> Vec<u8> {
    control(ctrl_subtype::CTS, duration, ra, None)
}

/// An RTS from `ta` to `ra` (9.3.1.2), without FCS.
pub fn rts(ra: MacAddr, ta: MacAddr, duration: u16) -> Vec<u8> {
    control(ctrl_subtype::RTS, duration, ra, Some(ta))
}

/// Writes the Duration/ID field of a frame (no-op on a frame too short to
/// have one).
pub fn set_duration(frame: &mut [u8], duration: u16) {
    if let Some(d) = frame.get_mut(2..4) {
        d.copy_from_slice(&duration.to_le_bytes());
    }
}

/// Sets the Retry bit of a frame (9.2.4.1.5).
pub fn set_retry(frame: &mut [u8]) {
    if let Some(b) = frame.get_mut(1) {
        *b |= (FrameControl::RETRY >> 8) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: MacAddr = MacAddr([2, 0, 0, 0, 0, 1]);
    const B: MacAddr = MacAddr([2, 0, 0, 0, 0, 2]);

    #[test]
    fn control_frames_are_byte_exact() {
        // 9.3.1.4: Frame Control 0xd4 0x00 (type 1, subtype 13), Duration,
        // RA.
        assert_eq!(ack(A, 0), [0xd4, 0, 0, 0, 2, 0, 0, 0, 0, 1]);
        // 9.3.1.3: CTS 0xc4.
        assert_eq!(cts(B, 0x0102), [0xc4, 0, 2, 1, 2, 0, 0, 0, 0, 2]);
        // 9.3.1.2: RTS 0xb4, RA then TA.
        let r = rts(A, B, 300);
        assert_eq!(r.len(), 16);
        assert_eq!(&r[..4], &[0xb4, 0, 0x2c, 0x01]);
        assert_eq!(&r[4..10], &A.0);
        assert_eq!(&r[10..], &B.0);
        let i = FrameInfo::parse(&r).unwrap();
        assert!(i.is_ctrl(ctrl_subtype::RTS));
        assert_eq!((i.ra, i.ta, i.duration_us), (A, Some(B), 300));
        assert!(!i.wants_ack());
    }

    #[test]
    fn header_edits_and_parsing() {
        let mut f = ack(A, 0);
        set_duration(&mut f, 44);
        set_retry(&mut f);
        assert_eq!(&f[..4], &[0xd4, 0x08, 44, 0]);
        assert_eq!(FrameInfo::parse(&f[..5]), None);
        assert_eq!(FrameInfo::parse(&[]), None);
        set_duration(&mut [0u8; 1], 3);
        set_retry(&mut []);
        // An AID in the Duration/ID field is not a duration.
        let mut f = ack(A, 0x8001);
        assert_eq!(FrameInfo::parse(&f).unwrap().duration_us, 0);
        set_duration(&mut f, 7);
        assert_eq!(FrameInfo::parse(&f).unwrap().duration_us, 7);
        assert_eq!(duration_field(Time::from_ns(10_001)), 11);
        assert_eq!(duration_field(Time::from_secs(1)), 32_767);
    }
}
