//! PHY timing: data rates, PPDU durations and the MAC timing parameters of
//! each PHY (slot, SIFS, contention window bounds, response timeouts).
//!
//! The profiles cover clause 15 (DSSS, 1 and 2 Mb/s), clause 16 (HR/DSSS,
//! 5.5 and 11 Mb/s), clause 17 (OFDM, 802.11a) and clause 18 (ERP,
//! 802.11g) of IEEE Std 802.11-2020. The MAC only talks to a PHY through the
//! [`PhyTiming`] trait and measures what it sends as a [`Ppdu`] that may
//! carry several MPDUs, so an HT PHY with A-MPDU aggregation plugs in as one
//! more implementation.

use crate::time::Time;
use serde::{Deserialize, Serialize};

/// Length of the FCS that ends every MPDU on the air (9.2.4.8). The medium
/// carries MPDUs without it; airtime counts it.
pub const FCS_LEN: usize = 4;

/// A data rate, in units of 500 kb/s (the encoding of the Supported Rates
/// element, 9.4.2.3): 2 = 1 Mb/s, 11 = 5.5 Mb/s, 108 = 54 Mb/s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Rate(pub u8);

/// Modulation class of a rate, which fixes its PPDU format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Modulation {
    /// DSSS (clause 15): 1 and 2 Mb/s.
    Dsss,
    /// HR/DSSS with CCK (clause 16): 5.5 and 11 Mb/s.
    HrDsss,
    /// OFDM (clause 17, or ERP-OFDM in clause 18): 6 to 54 Mb/s.
    Ofdm,
}

impl Rate {
    /// 1 Mb/s DSSS.
    pub const DSSS_1: Rate = Rate(2);
    /// 2 Mb/s DSSS.
    pub const DSSS_2: Rate = Rate(4);
    /// 5.5 Mb/s CCK.
    pub const CCK_5_5: Rate = Rate(11);
    /// 11 Mb/s CCK.
    pub const CCK_11: Rate = Rate(22);
    /// 6 Mb/s OFDM.
    pub const OFDM_6: Rate = Rate(12);
    /// 9 Mb/s OFDM.
    pub const OFDM_9: Rate = Rate(18);
    /// 12 Mb/s OFDM.
    pub const OFDM_12: Rate = Rate(24);
    /// 18 Mb/s OFDM.
    pub const OFDM_18: Rate = Rate(36);
    /// 24 Mb/s OFDM.
    pub const OFDM_24: Rate = Rate(48);
    /// 36 Mb/s OFDM.
    pub const OFDM_36: Rate = Rate(72);
    /// 48 Mb/s OFDM.
    pub const OFDM_48: Rate = Rate(96);
    /// 54 Mb/s OFDM.
    pub const OFDM_54: Rate = Rate(108);

    /// The rates of clauses 15 and 16.
    pub const DSSS_RATES: [Rate; 4] = [Rate::DSSS_1, Rate::DSSS_2, Rate::CCK_5_5, Rate::CCK_11];
    /// The rates of clause 17.
    pub const OFDM_RATES: [Rate; 8] = [
        Rate::OFDM_6,
        Rate::OFDM_9,
        Rate::OFDM_12,
        Rate::OFDM_18,
        Rate::OFDM_24,
        Rate::OFDM_36,
        Rate::OFDM_48,
        Rate::OFDM_54,
    ];

    /// The rate in Mb/s.
    pub fn mbps(self) -> f64 {
        f64::from(self.0) / 2.0
    }

    /// The rate from Mb/s (1, 2, 5.5, 11, 6, 9, ..., 54), if it is one of
    /// the rates of clauses 15 to 18.
    pub fn from_mbps(mbps: f64) -> Option<Rate> {
        let units = (mbps * 2.0).round();
        if (units - mbps * 2.0).abs() > 1e-9 || !(0.0..=255.0).contains(&units) {
            return None;
        }
        let r = Rate(units as u8);
        r.modulation().map(|_| r)
    }

    /// The modulation class, or `None` for a value that is not a rate of
    /// clauses 15 to 18.
    pub fn modulation(self) -> Option<Modulation> {
        match self.0 {
            2 | 4 => Some(Modulation::Dsss),
            11 | 22 => Some(Modulation::HrDsss),
            12 | 18 | 24 | 36 | 48 | 72 | 96 | 108 => Some(Modulation::Ofdm),
            _ => None,
        }
    }

    /// True for an OFDM rate.
    pub fn is_ofdm(self) -> bool {
        self.modulation() == Some(Modulation::Ofdm)
    }

    /// True for a DSSS or HR/DSSS rate.
    pub fn is_dsss(self) -> bool {
        matches!(
            self.modulation(),
            Some(Modulation::Dsss | Modulation::HrDsss)
        )
    }
}

impl core::fmt::Display for Rate {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.0 % 2 == 0 {
            write!(f, "{} Mb/s", self.0 / 2)
        } else {
            write!(f, "{}.5 Mb/s", self.0 / 2)
        }
    }
}

/// Length of an A-MPDU subframe's MPDU delimiter (9.7.1).
pub const AMPDU_DELIMITER_LEN: usize = 4;

/// What one transmission puts on the air: the PSDU made of one MPDU, or of
/// several MPDUs in an A-MPDU (9.7), sent at one rate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ppdu {
    /// The data rate of the PSDU.
    pub rate: Rate,
    /// The MPDUs carried (without FCS); more than one only where the PHY
    /// allows A-MPDUs ([`PhyTiming::max_mpdus_per_ppdu`]).
    pub mpdus: Vec<std::sync::Arc<[u8]>>,
}

impl Ppdu {
    /// A PPDU carrying one MPDU.
    pub fn single(rate: Rate, mpdu: std::sync::Arc<[u8]>) -> Ppdu {
        Ppdu {
            rate,
            mpdus: vec![mpdu],
        }
    }

    /// The PSDU length in octets: one MPDU with its FCS, or the A-MPDU with
    /// a delimiter before each MPDU and each subframe but the last padded to
    /// a multiple of 4 octets (9.7.1).
    pub fn psdu_len(&self) -> usize {
        match self.mpdus.as_slice() {
            [one] => one.len() + FCS_LEN,
            many => {
                let n = many.len();
                many.iter()
                    .enumerate()
                    .map(|(i, m)| {
                        let sub = AMPDU_DELIMITER_LEN + m.len() + FCS_LEN;
                        if i + 1 < n {
                            sub.div_ceil(4) * 4
                        } else {
                            sub
                        }
                    })
                    .sum()
            }
        }
    }
}

/// The timing a PHY gives the MAC. Every duration is virtual time.
pub trait PhyTiming {
    /// aSlotTime.
    fn slot(&self) -> Time;
    /// aSIFSTime.
    fn sifs(&self) -> Time;
    /// aCWmin.
    fn cw_min(&self) -> u32;
    /// aCWmax.
    fn cw_max(&self) -> u32;
    /// Time on the air of a PSDU of `psdu_len` octets at `rate`.
    fn ppdu_duration(&self, psdu_len: usize, rate: Rate) -> Time;
    /// aRxPHYStartDelay for a PPDU at `rate`: from the start of the PPDU to
    /// the PHY-RXSTART.indication.
    fn rx_start_delay(&self, rate: Rate) -> Time;
    /// How long after another station starts transmitting a station still
    /// sees the medium idle: aCCATime + aAirPropagationTime. Two stations
    /// that start within this window collide.
    fn cca_delay(&self) -> Time;
    /// The rate of the Ack or CTS that answers a frame sent at `rate`.
    fn response_rate(&self, rate: Rate) -> Rate;
    /// The Ack transmission time used in EIFS: an Ack at the PHY's lowest
    /// mandatory rate.
    fn eifs_ack_time(&self) -> Time;
    /// How many MPDUs one PPDU may carry (1 without A-MPDU).
    fn max_mpdus_per_ppdu(&self) -> usize {
        1
    }
    /// Whether a frame at `rate` must be protected, and how and at which
    /// rate the protecting frames go (ERP with non-ERP stations, 10.27).
    fn protection(&self, rate: Rate) -> Option<(Protection, Rate)> {
        let _ = rate;
        None
    }

    /// DIFS = aSIFSTime + 2 × aSlotTime (IEEE Std 802.11-2020, 10.3.2.3.5).
    fn difs(&self) -> Time {
        self.sifs() + self.slot().mul(2)
    }
    /// AIFS\[AC\] = AIFSN\[AC\] × aSlotTime + aSIFSTime (10.3.2.3.6); DIFS is
    /// AIFSN 2.
    fn aifs(&self, aifsn: u32) -> Time {
        self.sifs() + self.slot().mul(u64::from(aifsn))
    }
    /// EIFS = aSIFSTime + DIFS + AckTxTime (10.3.2.3.7).
    fn eifs(&self) -> Time {
        self.sifs() + self.difs() + self.eifs_ack_time()
    }
    /// AckTimeout and CTSTimeout: aSIFSTime + aSlotTime + aRxPHYStartDelay
    /// from the end of the transmission (10.3.2.7 and 10.3.2.9) for a
    /// response at `response_rate`.
    fn response_timeout(&self, response_rate: Rate) -> Time {
        self.sifs() + self.slot() + self.rx_start_delay(response_rate)
    }
}

/// The PHY families of this module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PhyStandard {
    /// 802.11b: DSSS and HR/DSSS, clauses 15 and 16.
    B,
    /// 802.11a: OFDM in 5 GHz, clause 17.
    A,
    /// 802.11g: ERP, clause 18 (ERP-OFDM plus the DSSS/CCK rates).
    G,
}

/// How ERP stations keep non-ERP (802.11b) stations off the medium while
/// they send OFDM frames (IEEE Std 802.11-2020, 10.27 protection
/// mechanisms): the protecting frames go at a DSSS/CCK rate that every
/// station decodes, and set their NAV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Protection {
    /// No protection (no non-ERP station in the BSS).
    None,
    /// A CTS addressed to the sender itself before each OFDM frame.
    CtsToSelf,
    /// An RTS/CTS exchange before each OFDM frame.
    RtsCts,
}

/// A PHY profile: the family and its options. Implements [`PhyTiming`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhyProfile {
    /// The family.
    pub standard: PhyStandard,
    /// Short PLCP preamble for the DSSS/CCK rates above 1 Mb/s (16.2.2.3).
    pub short_preamble: bool,
    /// ERP: non-ERP stations are present, so the slot is the long 20 µs
    /// one and aCWmin is 31 (18.4.5, Table 18-5).
    pub non_erp_present: bool,
    /// ERP: how OFDM frames are protected when non-ERP stations are present.
    pub protection: Protection,
    /// The BSSBasicRateSet, from which Ack and CTS rates are chosen.
    pub basic_rates: Vec<Rate>,
}

impl PhyProfile {
    /// 802.11b with the long preamble and basic rates 1 and 2 Mb/s.
    pub fn b() -> PhyProfile {
        PhyProfile {
            standard: PhyStandard::B,
            short_preamble: false,
            non_erp_present: false,
            protection: Protection::None,
            basic_rates: vec![Rate::DSSS_1, Rate::DSSS_2],
        }
    }

    /// 802.11b with the short preamble.
    pub fn b_short() -> PhyProfile {
        PhyProfile {
            short_preamble: true,
            ..PhyProfile::b()
        }
    }

    /// 802.11a with the mandatory rates 6, 12 and 24 Mb/s as basic rates.
    pub fn a() -> PhyProfile {
        PhyProfile {
            standard: PhyStandard::A,
            short_preamble: false,
            non_erp_present: false,
            protection: Protection::None,
            basic_rates: vec![Rate::OFDM_6, Rate::OFDM_12, Rate::OFDM_24],
        }
    }

    /// 802.11g with ERP stations only: short slot, basic rates 1, 2, 5.5,
    /// 11, 6, 12, 24 Mb/s.
    pub fn g() -> PhyProfile {
        PhyProfile {
            standard: PhyStandard::G,
            short_preamble: true,
            non_erp_present: false,
            protection: Protection::None,
            basic_rates: vec![
                Rate::DSSS_1,
                Rate::DSSS_2,
                Rate::CCK_5_5,
                Rate::CCK_11,
                Rate::OFDM_6,
                Rate::OFDM_12,
                Rate::OFDM_24,
            ],
        }
    }

    /// 802.11g with 802.11b stations present: long slot, long preamble,
    /// basic rates 1, 2, 5.5 and 11 Mb/s, and OFDM frames protected.
    pub fn g_mixed(protection: Protection) -> PhyProfile {
        PhyProfile {
            standard: PhyStandard::G,
            short_preamble: false,
            non_erp_present: true,
            protection,
            basic_rates: vec![Rate::DSSS_1, Rate::DSSS_2, Rate::CCK_5_5, Rate::CCK_11],
        }
    }

    /// True when `rate` can be sent on this PHY.
    pub fn supports(&self, rate: Rate) -> bool {
        matches!(
            (self.standard, rate.modulation()),
            (PhyStandard::B, Some(Modulation::Dsss | Modulation::HrDsss))
                | (PhyStandard::A, Some(Modulation::Ofdm))
                | (PhyStandard::G, Some(_))
        )
    }

    /// The highest rate of this PHY.
    pub fn max_rate(&self) -> Rate {
        match self.standard {
            PhyStandard::B => Rate::CCK_11,
            PhyStandard::A | PhyStandard::G => Rate::OFDM_54,
        }
    }

    /// The rate of protection frames (CTS-to-self, RTS/CTS before OFDM
    /// frames): the highest basic rate every station decodes, a DSSS/CCK
    /// one (10.27.2); 1 Mb/s when the basic set has none.
    pub fn protection_rate(&self) -> Rate {
        self.basic_rates
            .iter()
            .copied()
            .filter(|r| r.is_dsss())
            .max()
            .unwrap_or(Rate::DSSS_1)
    }

    /// True when a frame at `rate` needs protection in this BSS.
    pub fn needs_protection(&self, rate: Rate) -> bool {
        self.standard == PhyStandard::G
            && self.non_erp_present
            && self.protection != Protection::None
            && rate.is_ofdm()
    }

    fn dsss_preamble(&self, rate: Rate) -> Time {
        // Long PPDU: 144 µs SYNC+SFD and a 48 µs PLCP header at 1 Mb/s;
        // short: 72 µs and 24 µs. 1 Mb/s always uses the long one
        // (15.3.3, 16.2.2.2, 16.2.2.3).
        if self.short_preamble && rate != Rate::DSSS_1 {
            Time::from_us(96)
        } else {
            Time::from_us(192)
        }
    }
}

impl PhyTiming for PhyProfile {
    fn slot(&self) -> Time {
        match self.standard {
            // Table 15-5 / 16-4: 20 µs.
            PhyStandard::B => Time::from_us(20),
            // Table 17-21: 9 µs at 20 MHz.
            PhyStandard::A => Time::from_us(9),
            // 18.4.5: 20 µs, or 9 µs when the BSS has ERP stations only.
            PhyStandard::G if self.non_erp_present => Time::from_us(20),
            PhyStandard::G => Time::from_us(9),
        }
    }

    fn sifs(&self) -> Time {
        match self.standard {
            // 802.11a 16 µs (Table 17-21); DSSS and ERP 10 µs, ERP-OFDM
            // frames followed by a 6 µs signal extension (18.3.2.4).
            PhyStandard::A => Time::from_us(16),
            PhyStandard::B | PhyStandard::G => Time::from_us(10),
        }
    }

    fn cw_min(&self) -> u32 {
        match self.standard {
            PhyStandard::B => 31,
            PhyStandard::A => 15,
            // Table 18-5: aCWmin 15 in an ERP-only BSS, 31 otherwise.
            PhyStandard::G if self.non_erp_present => 31,
            PhyStandard::G => 15,
        }
    }

    fn cw_max(&self) -> u32 {
        1023
    }

    fn ppdu_duration(&self, psdu_len: usize, rate: Rate) -> Time {
        let bits = 8 * psdu_len as u64;
        match rate.modulation() {
            // 15.3.5 / 16.3.4: TXTIME = preamble + PLCP header +
            // ceiling(LENGTH × 8 / data rate) µs. Rate(units) is in
            // 500 kb/s, so bits / rate = 2 × bits / units µs.
            Some(Modulation::Dsss | Modulation::HrDsss) | None => {
                let units = u64::from(rate.0.max(1));
                self.dsss_preamble(rate) + Time::from_us((2 * bits).div_ceil(units))
            }
            // 17.4.3: TXTIME = TPREAMBLE (16 µs) + TSIGNAL (4 µs) + TSYM
            // (4 µs) × ceiling((16 + 8 × LENGTH + 6) / NDBPS), NDBPS = 4 ×
            // rate in Mb/s = 2 × units. ERP-OFDM (18.5.3) adds the 6 µs
            // aSignalExtension.
            Some(Modulation::Ofdm) => {
                let ndbps = 2 * u64::from(rate.0);
                let symbols = (16 + bits + 6).div_ceil(ndbps);
                let ext = if self.standard == PhyStandard::G {
                    Time::from_us(6)
                } else {
                    Time::ZERO
                };
                Time::from_us(20 + 4 * symbols) + ext
            }
        }
    }

    fn rx_start_delay(&self, rate: Rate) -> Time {
        if rate.is_ofdm() {
            // Table 17-21 (and Table 18-5 for ERP-OFDM): 20 µs.
            Time::from_us(20)
        } else {
            // The preamble and PLCP header (Table 15-5, 16.3.4).
            self.dsss_preamble(rate)
        }
    }

    fn cca_delay(&self) -> Time {
        // aCCATime (DSSS ≤ 15 µs, OFDM < 4 µs) + aAirPropagationTime (1 µs).
        let cca = match self.standard {
            PhyStandard::B => 15,
            PhyStandard::G if self.non_erp_present => 15,
            _ => 4,
        };
        Time::from_us(cca + 1)
    }

    fn response_rate(&self, rate: Rate) -> Rate {
        // 10.6.6.5.2: the highest rate of the BSSBasicRateSet that is not
        // above the eliciting frame's rate and of the same modulation class;
        // failing that, the highest mandatory rate of that class not above
        // it; failing that, the lowest rate of the class.
        let ofdm = rate.is_ofdm();
        let same_class = |r: &Rate| r.is_ofdm() == ofdm;
        if let Some(r) = self
            .basic_rates
            .iter()
            .copied()
            .filter(|r| same_class(r) && *r <= rate)
            .max()
        {
            return r;
        }
        let mandatory: &[Rate] = if ofdm {
            &[Rate::OFDM_6, Rate::OFDM_12, Rate::OFDM_24]
        } else {
            &[Rate::DSSS_1, Rate::DSSS_2, Rate::CCK_5_5, Rate::CCK_11]
        };
        mandatory
            .iter()
            .copied()
            .filter(|r| *r <= rate)
            .max()
            .unwrap_or(mandatory[0])
    }

    fn protection(&self, rate: Rate) -> Option<(Protection, Rate)> {
        if self.needs_protection(rate) {
            Some((self.protection, self.protection_rate()))
        } else {
            None
        }
    }

    fn eifs_ack_time(&self) -> Time {
        // An Ack (14 octets with FCS) at the lowest mandatory rate: 1 Mb/s
        // DSSS for 802.11b and ERP with non-ERP stations, 6 Mb/s otherwise.
        let lowest = match self.standard {
            PhyStandard::B => Rate::DSSS_1,
            PhyStandard::G if self.non_erp_present => Rate::DSSS_1,
            _ => Rate::OFDM_6,
        };
        self.ppdu_duration(ACK_LEN, lowest)
    }
}

/// Length of an Ack or a CTS with its FCS (9.3.1.3, 9.3.1.4).
pub const ACK_LEN: usize = 14;
/// Length of an RTS with its FCS (9.3.1.2).
pub const RTS_LEN: usize = 20;

#[cfg(test)]
mod tests {
    use super::*;

    fn us(t: Time) -> f64 {
        t.as_ns() as f64 / 1000.0
    }

    // Expected values below are computed by hand from the TXTIME equations
    // and the constants printed in the standard (the literals are the
    // standard's numbers, not this module's functions).

    #[test]
    fn dsss_durations() {
        let b = PhyProfile::b();
        // Ack at 1 Mb/s: 192 + 14 × 8 = 304 µs; at 2 Mb/s: 192 + 56.
        assert_eq!(us(b.ppdu_duration(14, Rate::DSSS_1)), 304.0);
        assert_eq!(us(b.ppdu_duration(14, Rate::DSSS_2)), 248.0);
        // 1536 octets at 11 Mb/s: 192 + ceil(12288 / 11) = 192 + 1118.
        assert_eq!(us(b.ppdu_duration(1536, Rate::CCK_11)), 1310.0);
        // At 5.5 Mb/s: ceil(12288 / 5.5) = 2235 (2234.18...).
        assert_eq!(us(b.ppdu_duration(1536, Rate::CCK_5_5)), 192.0 + 2235.0);
        let s = PhyProfile::b_short();
        assert_eq!(us(s.ppdu_duration(1536, Rate::CCK_11)), 96.0 + 1118.0);
        // 1 Mb/s keeps the long preamble.
        assert_eq!(us(s.ppdu_duration(14, Rate::DSSS_1)), 304.0);
        assert_eq!(us(b.difs()), 50.0);
        assert_eq!(us(b.eifs()), 10.0 + 50.0 + 304.0);
        assert_eq!(us(b.response_timeout(Rate::DSSS_2)), 10.0 + 20.0 + 192.0);
        assert_ne!(us(b.ppdu_duration(1536, Rate::CCK_11)), 1309.0);
    }

    #[test]
    fn ofdm_durations() {
        let a = PhyProfile::a();
        // Ack (14 octets) at 6 Mb/s: 16 + 4 + 4 × ceil(134 / 24) = 44 µs;
        // at 24 Mb/s: 20 + 4 × ceil(134 / 96) = 28 µs.
        assert_eq!(us(a.ppdu_duration(14, Rate::OFDM_6)), 44.0);
        assert_eq!(us(a.ppdu_duration(14, Rate::OFDM_24)), 28.0);
        // 1536 octets at 54 Mb/s: 20 + 4 × ceil(12310 / 216) = 20 + 228.
        assert_eq!(us(a.ppdu_duration(1536, Rate::OFDM_54)), 248.0);
        assert_eq!(us(a.difs()), 34.0);
        assert_eq!(us(a.eifs()), 16.0 + 34.0 + 44.0);
        let g = PhyProfile::g();
        assert_eq!(us(g.ppdu_duration(1536, Rate::OFDM_54)), 254.0);
        assert_eq!(us(g.difs()), 28.0);
        assert_eq!(us(g.slot()), 9.0);
        let gm = PhyProfile::g_mixed(Protection::CtsToSelf);
        assert_eq!(us(gm.slot()), 20.0);
        assert_eq!(us(gm.difs()), 50.0);
        assert_eq!(gm.cw_min(), 31);
        assert_eq!(g.cw_min(), 15);
    }

    #[test]
    fn response_rates_follow_the_basic_rate_set() {
        let b = PhyProfile::b();
        assert_eq!(b.response_rate(Rate::CCK_11), Rate::DSSS_2);
        assert_eq!(b.response_rate(Rate::DSSS_1), Rate::DSSS_1);
        let g = PhyProfile::g();
        assert_eq!(g.response_rate(Rate::OFDM_54), Rate::OFDM_24);
        assert_eq!(g.response_rate(Rate::OFDM_18), Rate::OFDM_12);
        assert_eq!(g.response_rate(Rate::OFDM_9), Rate::OFDM_6);
        assert_eq!(g.response_rate(Rate::CCK_11), Rate::CCK_11);
        let gm = PhyProfile::g_mixed(Protection::CtsToSelf);
        // No OFDM basic rate: the mandatory ones.
        assert_eq!(gm.response_rate(Rate::OFDM_54), Rate::OFDM_24);
        assert_eq!(gm.protection_rate(), Rate::CCK_11);
        assert!(gm.needs_protection(Rate::OFDM_54));
        assert!(!gm.needs_protection(Rate::CCK_11));
        assert!(!g.needs_protection(Rate::OFDM_54));
    }

    #[test]
    fn rates() {
        assert_eq!(Rate::from_mbps(5.5), Some(Rate::CCK_5_5));
        assert_eq!(Rate::from_mbps(54.0), Some(Rate::OFDM_54));
        assert_eq!(Rate::from_mbps(7.0), None);
        assert_eq!(Rate::from_mbps(1.25), None);
        assert_eq!(Rate::CCK_5_5.to_string(), "5.5 Mb/s");
        assert!(PhyProfile::b().supports(Rate::CCK_11));
        assert!(!PhyProfile::b().supports(Rate::OFDM_6));
        assert!(!PhyProfile::a().supports(Rate::DSSS_1));
    }

    #[test]
    fn ampdu_psdu_length() {
        let m: std::sync::Arc<[u8]> = vec![0u8; 101].into();
        let one = Ppdu::single(Rate::OFDM_6, m.clone());
        assert_eq!(one.psdu_len(), 105);
        let two = Ppdu {
            rate: Rate::OFDM_6,
            mpdus: vec![m.clone(), m],
        };
        // (4 + 101 + 4 = 109, padded to 112) + 109.
        assert_eq!(two.psdu_len(), 221);
    }
}
