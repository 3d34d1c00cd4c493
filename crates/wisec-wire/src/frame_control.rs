//! The Frame Control field (IEEE Std 802.11-2020, 9.2.4.1).

/// The Type subfield (9.2.4.1.3, Table 9-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameType {
    /// Type 0.
    Management,
    /// Type 1.
    Control,
    /// Type 2.
    Data,
    /// Type 3.
    Extension,
}

impl FrameType {
    /// The two-bit value of the Type subfield.
    pub const fn bits(self) -> u8 {
        match self {
            FrameType::Management => 0,
            FrameType::Control => 1,
            FrameType::Data => 2,
            FrameType::Extension => 3,
        }
    }

    /// The type from the low two bits of `bits`.
    pub const fn from_bits(bits: u8) -> FrameType {
        match bits & 0x3 {
            0 => FrameType::Management,
            1 => FrameType::Control,
            2 => FrameType::Data,
            _ => FrameType::Extension,
        }
    }
}

/// Management frame subtypes (Table 9-1).
pub mod mgmt_subtype {
    /// Association Request.
    pub const ASSOC_REQ: u8 = 0;
    /// Association Response.
    pub const ASSOC_RESP: u8 = 1;
    /// Reassociation Request.
    pub const REASSOC_REQ: u8 = 2;
    /// Reassociation Response.
    pub const REASSOC_RESP: u8 = 3;
    /// Probe Request.
    pub const PROBE_REQ: u8 = 4;
    /// Probe Response.
    pub const PROBE_RESP: u8 = 5;
    /// Timing Advertisement.
    pub const TIMING_ADVERTISEMENT: u8 = 6;
    /// Beacon.
    pub const BEACON: u8 = 8;
    /// ATIM.
    pub const ATIM: u8 = 9;
    /// Disassociation.
    pub const DISASSOC: u8 = 10;
    /// Authentication.
    pub const AUTH: u8 = 11;
    /// Deauthentication.
    pub const DEAUTH: u8 = 12;
    /// Action.
    pub const ACTION: u8 = 13;
    /// Action No Ack.
    pub const ACTION_NO_ACK: u8 = 14;
}

/// Control frame subtypes (Table 9-1).
pub mod ctrl_subtype {
    /// Trigger.
    pub const TRIGGER: u8 = 2;
    /// Beamforming Report Poll.
    pub const BEAMFORMING_REPORT_POLL: u8 = 4;
    /// VHT/HE NDP Announcement.
    pub const NDP_ANNOUNCEMENT: u8 = 5;
    /// Control Frame Extension.
    pub const CONTROL_FRAME_EXTENSION: u8 = 6;
    /// Control Wrapper.
    pub const CONTROL_WRAPPER: u8 = 7;
    /// Block Ack Request.
    pub const BLOCK_ACK_REQ: u8 = 8;
    /// Block Ack.
    pub const BLOCK_ACK: u8 = 9;
    /// PS-Poll.
    pub const PS_POLL: u8 = 10;
    /// RTS.
    pub const RTS: u8 = 11;
    /// CTS.
    pub const CTS: u8 = 12;
    /// Ack.
    pub const ACK: u8 = 13;
    /// CF-End.
    pub const CF_END: u8 = 14;
    /// CF-End +CF-Ack.
    pub const CF_END_ACK: u8 = 15;
}

/// Data frame subtypes (Table 9-1). Bit 3 (value 8) marks QoS, bit 2
/// (value 4) marks a frame without a Frame Body (Null).
pub mod data_subtype {
    /// Data.
    pub const DATA: u8 = 0;
    /// Null (no data).
    pub const NULL: u8 = 4;
    /// QoS Data.
    pub const QOS_DATA: u8 = 8;
    /// QoS Data +CF-Ack.
    pub const QOS_DATA_CF_ACK: u8 = 9;
    /// QoS Data +CF-Poll.
    pub const QOS_DATA_CF_POLL: u8 = 10;
    /// QoS Data +CF-Ack +CF-Poll.
    pub const QOS_DATA_CF_ACK_CF_POLL: u8 = 11;
    /// QoS Null (no data).
    pub const QOS_NULL: u8 = 12;
    /// QoS CF-Poll (no data).
    pub const QOS_CF_POLL: u8 = 14;
    /// QoS CF-Ack +CF-Poll (no data).
    pub const QOS_CF_ACK_CF_POLL: u8 = 15;
}

/// The 16-bit Frame Control field, in host order (transmitted little-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FrameControl(pub u16);

macro_rules! flag {
    ($(#[$m:meta])* $get:ident, $set:ident, $bit:expr) => {
        $(#[$m])*
        pub const fn $get(self) -> bool {
            self.0 & (1 << $bit) != 0
        }

        #[doc = concat!("Sets or clears the flag read by [`Self::", stringify!($get), "`].")]
        pub fn $set(&mut self, value: bool) {
            if value {
                self.0 |= 1 << $bit;
            } else {
                self.0 &= !(1 << $bit);
            }
        }
    };
}

impl FrameControl {
    /// Bit mask of the Retry, Power Management and More Data bits.
    pub const RETRY: u16 = 1 << 11;
    /// Bit mask of the Protected Frame bit.
    pub const PROTECTED: u16 = 1 << 14;
    /// Bit mask of the +HTC/Order bit.
    pub const ORDER: u16 = 1 << 15;

    /// Builds a frame control field of protocol version 0 with no flags set.
    pub const fn new(frame_type: FrameType, subtype: u8) -> FrameControl {
        FrameControl(((frame_type.bits() as u16) << 2) | (((subtype & 0xf) as u16) << 4))
    }

    /// Reads the field from its two transmitted bytes.
    pub const fn from_bytes(bytes: [u8; 2]) -> FrameControl {
        FrameControl(u16::from_le_bytes(bytes))
    }

    /// The two bytes as transmitted.
    pub const fn to_bytes(self) -> [u8; 2] {
        self.0.to_le_bytes()
    }

    /// Protocol Version subfield (0 for every frame this crate handles).
    pub const fn protocol_version(self) -> u8 {
        (self.0 & 0x3) as u8
    }

    /// Type subfield.
    pub const fn frame_type(self) -> FrameType {
        FrameType::from_bits((self.0 >> 2) as u8)
    }

    /// Subtype subfield (0..=15).
    pub const fn subtype(self) -> u8 {
        ((self.0 >> 4) & 0xf) as u8
    }

    /// Replaces the Subtype subfield.
    pub fn set_subtype(&mut self, subtype: u8) {
        self.0 = (self.0 & !0x00f0) | (((subtype & 0xf) as u16) << 4);
    }

    /// True for a management frame.
    pub const fn is_mgmt(self) -> bool {
        matches!(self.frame_type(), FrameType::Management)
    }

    /// True for a control frame.
    pub const fn is_ctrl(self) -> bool {
        matches!(self.frame_type(), FrameType::Control)
    }

    /// True for a data frame of any subtype.
    pub const fn is_data(self) -> bool {
        matches!(self.frame_type(), FrameType::Data)
    }

    /// True for a QoS data subtype (bit 3 of the subtype set), 9.2.4.1.3.
    pub const fn is_qos_data(self) -> bool {
        self.is_data() && self.subtype() & 0x8 != 0
    }

    /// True for a data subtype that carries no Frame Body (Null, QoS Null,
    /// CF-Poll, ...): bit 2 of the subtype set.
    pub const fn is_null_data(self) -> bool {
        self.is_data() && self.subtype() & 0x4 != 0
    }

    flag!(
        /// To DS.
        to_ds, set_to_ds, 8
    );
    flag!(
        /// From DS.
        from_ds, set_from_ds, 9
    );
    flag!(
        /// More Fragments.
        more_fragments, set_more_fragments, 10
    );
    flag!(
        /// Retry.
        retry, set_retry, 11
    );
    flag!(
        /// Power Management.
        power_management, set_power_management, 12
    );
    flag!(
        /// More Data.
        more_data, set_more_data, 13
    );
    flag!(
        /// Protected Frame (9.2.4.1.9).
        protected, set_protected, 14
    );
    flag!(
        /// +HTC/Order (9.2.4.1.10).
        order, set_order, 15
    );

    /// True when the header carries a 4-byte HT Control field: the +HTC bit
    /// is set in a QoS Data or Management frame (9.2.4.1.10). In non-QoS
    /// data frames the bit keeps its legacy meaning (strictly ordered) and
    /// no HT Control field is present.
    pub const fn has_ht_control(self) -> bool {
        self.order() && (self.is_mgmt() || self.is_qos_data())
    }

    /// True when the header carries Address 4: a data frame with both To DS
    /// and From DS set (9.3.2.1, Table 9-30).
    pub const fn has_addr4(self) -> bool {
        self.is_data() && self.to_ds() && self.from_ds()
    }

    /// True for management frames that are robust when management frame
    /// protection is in use (12.2.8 and Table 9-52): Disassociation,
    /// Deauthentication and Action frames of a robust category. The category
    /// lives in the body, so for Action frames this answers "may be robust";
    /// callers check the category with the action frame view.
    pub const fn is_robust_mgmt_candidate(self) -> bool {
        self.is_mgmt()
            && matches!(
                self.subtype(),
                mgmt_subtype::DISASSOC | mgmt_subtype::DEAUTH | mgmt_subtype::ACTION
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_flags() {
        // QoS data, To DS, Protected: 0x88 0x41
        let fc = FrameControl::from_bytes([0x88, 0x41]);
        assert_eq!(fc.frame_type(), FrameType::Data);
        assert_eq!(fc.subtype(), data_subtype::QOS_DATA);
        assert!(fc.is_qos_data());
        assert!(fc.to_ds());
        assert!(!fc.from_ds());
        assert!(fc.protected());
        assert!(!fc.has_addr4());
        assert!(!fc.has_ht_control());
        assert_eq!(fc.to_bytes(), [0x88, 0x41]);

        let mut fc = FrameControl::new(FrameType::Management, mgmt_subtype::BEACON);
        assert_eq!(fc.to_bytes(), [0x80, 0x00]);
        fc.set_order(true);
        assert!(fc.has_ht_control());
        fc.set_order(false);
        fc.set_retry(true);
        fc.set_more_data(true);
        fc.set_power_management(true);
        fc.set_more_fragments(true);
        assert_eq!(fc.0, 0x80 | (1 << 10) | (1 << 11) | (1 << 12) | (1 << 13));
        fc.set_retry(false);
        assert!(!fc.retry());
        fc.set_subtype(mgmt_subtype::DEAUTH);
        assert_eq!(fc.subtype(), 12);
        assert!(fc.is_robust_mgmt_candidate());
    }

    #[test]
    fn order_in_non_qos_data_is_not_htc() {
        let mut fc = FrameControl::new(FrameType::Data, data_subtype::DATA);
        fc.set_order(true);
        assert!(!fc.has_ht_control());
        fc.set_subtype(data_subtype::QOS_NULL);
        assert!(fc.has_ht_control());
        assert!(fc.is_null_data());
    }
}
