//! The MAC's own frames (Ack, RTS, CTS, BlockAck, BlockAckReq, ADDBA
//! Request/Response), built byte for byte with `wisec-wire`, and the few
//! header fields the MAC reads from any frame.

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

/// The TID and sequence number of an individually addressed QoS Data
/// frame (9.2.4.4, 9.2.4.5.2), which an HT MAC may aggregate.
pub fn qos_data(frame: &[u8]) -> Option<(u8, u16)> {
    let h = Header::new_checked(frame).ok()?;
    let fc = h.frame_control();
    // Subtypes 8 to 11: QoS Data (with or without CF-Ack/Poll); QoS Null
    // (12) carries nothing to aggregate.
    if !fc.is_data() || !(8..12).contains(&fc.subtype()) || h.ra().is_group() {
        return None;
    }
    h.qos_control()?;
    Some((h.tid(), h.sequence_number()?))
}

/// BA Control / BAR Control for a compressed bitmap (9.3.1.8.1,
/// 9.3.1.7.1): Ack Policy 0, type 2 (compressed) in B1-B4, the TID in
/// B12-B15.
fn ba_control(tid: u8) -> u16 {
    (2 << 1) | (u16::from(tid & 0x0f) << 12)
}

/// A compressed BlockAck from `ta` to `ra` (9.3.1.8.2), without FCS:
/// `bitmap` bit i acknowledges sequence number `ssn + i`.
pub fn block_ack(ra: MacAddr, ta: MacAddr, tid: u8, ssn: u16, bitmap: u64) -> Vec<u8> {
    let mut f = control(ctrl_subtype::BLOCK_ACK, 0, ra, Some(ta));
    f.extend(ba_control(tid).to_le_bytes());
    f.extend(((ssn & 0x0fff) << 4).to_le_bytes());
    f.extend(bitmap.to_le_bytes());
    f
}

/// A compressed BlockAckReq from `ta` to `ra` (9.3.1.7), without FCS.
pub fn block_ack_req(ra: MacAddr, ta: MacAddr, tid: u8, ssn: u16) -> Vec<u8> {
    let mut f = control(ctrl_subtype::BLOCK_ACK_REQ, 0, ra, Some(ta));
    f.extend(ba_control(tid).to_le_bytes());
    f.extend(((ssn & 0x0fff) << 4).to_le_bytes());
    f
}

fn le16(b: &[u8], at: usize) -> Option<u16> {
    let x = b.get(at..at + 2)?;
    Some(u16::from_le_bytes([x[0], x[1]]))
}

/// TID, starting sequence number and bitmap of a compressed BlockAck.
pub fn parse_block_ack(frame: &[u8]) -> Option<(u8, u16, u64)> {
    let ctl = le16(frame, 16)?;
    if (ctl >> 1) & 0x0f != 2 {
        return None;
    }
    let ssn = le16(frame, 18)? >> 4;
    let b = frame.get(20..28)?;
    let mut bitmap = [0u8; 8];
    bitmap.copy_from_slice(b);
    Some(((ctl >> 12) as u8, ssn, u64::from_le_bytes(bitmap)))
}

/// TID and starting sequence number of a compressed BlockAckReq.
pub fn parse_bar(frame: &[u8]) -> Option<(u8, u16)> {
    let ctl = le16(frame, 16)?;
    if (ctl >> 1) & 0x0f != 2 {
        return None;
    }
    Some(((ctl >> 12) as u8, le16(frame, 18)? >> 4))
}

/// Category Block Ack (Table 9-51) and its actions (Table 9-420).
const CATEGORY_BLOCK_ACK: u8 = 3;
const ADDBA_REQUEST: u8 = 0;
const ADDBA_RESPONSE: u8 = 1;

/// An ADDBA Request or Response, as the MAC reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Addba {
    /// A request (9.6.4.2) for `tid` starting at `ssn`.
    Request {
        /// Dialog token.
        token: u8,
        /// TID.
        tid: u8,
        /// Buffer size the originator proposes.
        buffer: u16,
        /// Starting sequence number.
        ssn: u16,
    },
    /// A response (9.6.4.3).
    Response {
        /// Dialog token.
        token: u8,
        /// Status code (0: success, 37: request declined).
        status: u16,
        /// TID.
        tid: u8,
    },
}

fn action(ra: MacAddr, ta: MacAddr, bssid: MacAddr, seq: u16, body: &[u8]) -> Vec<u8> {
    let repr = HeaderRepr {
        frame_control: FrameControl::new(
            FrameType::Management,
            wisec_wire::frame_control::mgmt_subtype::ACTION,
        ),
        duration: 0,
        addr1: ra,
        addr2: Some(ta),
        addr3: Some(bssid),
        sequence_control: Some((seq & 0x0fff) << 4),
        addr4: None,
        qos_control: None,
        ht_control: None,
    };
    let len = repr.buffer_len().unwrap_or(0);
    let mut buf = vec![0u8; len];
    // A management header with three addresses always emits.
    let _ = repr.emit(&mut buf);
    buf.extend_from_slice(body);
    buf
}

/// Block Ack Parameter Set (9.4.1.13): A-MSDU not supported, immediate
/// policy (B1), TID (B2-B5), buffer size (B6-B15).
fn ba_params(tid: u8, buffer: u16) -> u16 {
    (1 << 1) | (u16::from(tid & 0x0f) << 2) | ((buffer & 0x03ff) << 6)
}

/// An ADDBA Request action frame (9.6.4.2), without FCS: immediate
/// BlockAck for `tid`, `buffer` MPDUs, no timeout, starting at `ssn`.
#[allow(clippy::too_many_arguments)]
pub fn addba_request(
    ra: MacAddr,
    ta: MacAddr,
    bssid: MacAddr,
    seq: u16,
    token: u8,
    tid: u8,
    buffer: u16,
    ssn: u16,
) -> Vec<u8> {
    let mut body = vec![CATEGORY_BLOCK_ACK, ADDBA_REQUEST, token];
    body.extend(ba_params(tid, buffer).to_le_bytes());
    body.extend(0u16.to_le_bytes());
    body.extend(((ssn & 0x0fff) << 4).to_le_bytes());
    action(ra, ta, bssid, seq, &body)
}

/// An ADDBA Response action frame (9.6.4.3), without FCS.
#[allow(clippy::too_many_arguments)]
pub fn addba_response(
    ra: MacAddr,
    ta: MacAddr,
    bssid: MacAddr,
    seq: u16,
    token: u8,
    status: u16,
    tid: u8,
    buffer: u16,
) -> Vec<u8> {
    let mut body = vec![CATEGORY_BLOCK_ACK, ADDBA_RESPONSE, token];
    body.extend(status.to_le_bytes());
    body.extend(ba_params(tid, buffer).to_le_bytes());
    body.extend(0u16.to_le_bytes());
    action(ra, ta, bssid, seq, &body)
}

/// Reads an ADDBA Request or Response action frame.
pub fn parse_addba(frame: &[u8]) -> Option<Addba> {
    let h = Header::new_checked(frame).ok()?;
    let fc = h.frame_control();
    if !fc.is_mgmt() || fc.subtype() != wisec_wire::frame_control::mgmt_subtype::ACTION {
        return None;
    }
    let b = frame.get(h.header_len()..)?;
    if b.first() != Some(&CATEGORY_BLOCK_ACK) {
        return None;
    }
    let token = *b.get(2)?;
    match *b.get(1)? {
        ADDBA_REQUEST => {
            let params = le16(b, 3)?;
            Some(Addba::Request {
                token,
                tid: ((params >> 2) & 0x0f) as u8,
                buffer: params >> 6,
                ssn: le16(b, 7)? >> 4,
            })
        }
        ADDBA_RESPONSE => {
            let status = le16(b, 3)?;
            let params = le16(b, 5)?;
            Some(Addba::Response {
                token,
                status,
                tid: ((params >> 2) & 0x0f) as u8,
            })
        }
        _ => None,
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
    fn block_ack_frames_are_byte_exact() {
        // 9.3.1.8: Frame Control 0x94 0x00 (type 1, subtype 9), Duration,
        // RA, TA, BA Control 0x0004 (compressed, TID 0), SSC (SSN << 4),
        // 8-octet bitmap: 28 octets + FCS.
        let ba = block_ack(A, B, 0, 0x123, 0xff);
        assert_eq!(ba.len() + 4, crate::phy::BLOCK_ACK_LEN);
        assert_eq!(&ba[..4], &[0x94, 0, 0, 0]);
        assert_eq!(&ba[16..20], &[0x04, 0x00, 0x30, 0x12]);
        assert_eq!(&ba[20..], &[0xff, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(parse_block_ack(&ba), Some((0, 0x123, 0xff)));
        let i = FrameInfo::parse(&ba).unwrap();
        assert!(i.is_ctrl(ctrl_subtype::BLOCK_ACK));
        assert_eq!((i.ra, i.ta), (A, Some(B)));
        // 9.3.1.7: BlockAckReq 0x84, TID 5 in B12-B15.
        let bar = block_ack_req(A, B, 5, 7);
        assert_eq!(bar.len() + 4, crate::phy::BLOCK_ACK_REQ_LEN);
        assert_eq!(&bar[..2], &[0x84, 0]);
        assert_eq!(&bar[16..], &[0x04, 0x50, 0x70, 0x00]);
        assert_eq!(parse_bar(&bar), Some((5, 7)));
        // A basic (type 0) BlockAck is not read as compressed.
        let mut basic = ba.clone();
        basic[16] = 0;
        assert_eq!(parse_block_ack(&basic), None);
        assert_eq!(parse_block_ack(&ba[..27]), None);
    }

    #[test]
    fn addba_frames_are_byte_exact() {
        let r = addba_request(A, B, A, 1, 9, 0, 64, 0x10);
        // Action frame 0xd0, then after the 24-octet header: category 3,
        // action 0, token, parameters 0x1002 (immediate, TID 0, 64
        // buffers), timeout 0, SSC 0x0100.
        assert_eq!(&r[..2], &[0xd0, 0]);
        assert_eq!(&r[24..], &[3, 0, 9, 0x02, 0x10, 0, 0, 0x00, 0x01]);
        assert_eq!(
            parse_addba(&r),
            Some(Addba::Request {
                token: 9,
                tid: 0,
                buffer: 64,
                ssn: 0x10
            })
        );
        let p = addba_response(B, A, A, 2, 9, 0, 6, 64);
        assert_eq!(&p[24..], &[3, 1, 9, 0, 0, 0x1a, 0x10, 0, 0]);
        assert_eq!(
            parse_addba(&p),
            Some(Addba::Response {
                token: 9,
                status: 0,
                tid: 6
            })
        );
        assert_eq!(parse_addba(&p[..26]), None);
        assert_eq!(parse_addba(&ack(A, 0)), None);
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
