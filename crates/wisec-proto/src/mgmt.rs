//! Management frame building shared by the PMF and DiscoSec machines.

use wisec_wire::frame_control::{FrameControl, FrameType};
use wisec_wire::mgmt::MgmtSubtype;
use wisec_wire::{HeaderRepr, MacAddr};

/// Writes the MAC header of a management frame (IEEE Std 802.11-2020,
/// 9.3.3.2) with sequence number `seq` and returns its length.
pub(crate) fn emit_header(
    buf: &mut [u8],
    subtype: MgmtSubtype,
    addr1: MacAddr,
    addr2: MacAddr,
    addr3: MacAddr,
    seq: u16,
) -> wisec_wire::Result<usize> {
    HeaderRepr {
        frame_control: FrameControl::new(FrameType::Management, subtype.to_u8()),
        duration: 0,
        addr1,
        addr2: Some(addr2),
        addr3: Some(addr3),
        sequence_control: Some((seq & 0x0fff) << 4),
        addr4: None,
        qos_control: None,
        ht_control: None,
    }
    .emit(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_layout() {
        // 9.3.3.2: FC (type 0, subtype 12 = Deauthentication), Duration,
        // A1, A2, A3, Sequence Control (fragment 0, number in bits 4..16).
        let mut b = [0u8; 24];
        let n = emit_header(
            &mut b,
            MgmtSubtype::Deauthentication,
            MacAddr([1; 6]),
            MacAddr([2; 6]),
            MacAddr([3; 6]),
            0x1234,
        )
        .unwrap();
        assert_eq!(n, 24);
        assert_eq!(b[..4], [0xc0, 0x00, 0x00, 0x00]);
        assert_eq!(b[4..10], [1; 6]);
        assert_eq!(b[10..16], [2; 6]);
        assert_eq!(b[16..22], [3; 6]);
        assert_eq!(b[22..24], [0x40, 0x23]);
        assert!(emit_header(
            &mut b[..23],
            MgmtSubtype::Deauthentication,
            MacAddr([1; 6]),
            MacAddr([2; 6]),
            MacAddr([3; 6]),
            0,
        )
        .is_err());
    }
}
