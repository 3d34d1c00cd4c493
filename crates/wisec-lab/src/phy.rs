//! PHY timing: data rates, PPDU durations and the MAC timing parameters of
//! each PHY (slot, SIFS, contention window bounds, response timeouts).
//!
//! The profiles cover clause 15 (DSSS, 1 and 2 Mb/s), clause 16 (HR/DSSS,
//! 5.5 and 11 Mb/s), clause 17 (OFDM, 802.11a) and clause 18 (ERP,
//! 802.11g) and clause 19 (HT, 802.11n: single-stream MCS 0 to 7, 20/40 MHz,
//! long/short guard interval, HT-mixed format) of IEEE Std 802.11-2020.
//! The MAC only talks to a PHY through the
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
    /// HT (clause 19): an MCS whose rate depends on the channel width and
    /// guard interval of the [`PhyProfile`].
    Ht,
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

    /// Values from this one up encode HT MCS indices 0 to 7 (`0x80 | MCS`);
    /// Supported Rates values never exceed 127 (9.4.2.3).
    const HT_BASE: u8 = 0x80;

    /// HT MCS `mcs` (0 to 7, one spatial stream; clamped to 7). Its rate
    /// in Mb/s depends on the PHY's channel width and guard interval
    /// ([`PhyProfile::rate_mbps`]).
    pub const fn ht(mcs: u8) -> Rate {
        Rate(Rate::HT_BASE | if mcs > 7 { 7 } else { mcs })
    }

    /// The HT MCS index, for an HT rate.
    pub fn mcs(self) -> Option<u8> {
        (self.0 & Rate::HT_BASE != 0 && self.0 & 0x7f <= 7).then_some(self.0 & 0x7f)
    }

    /// The rate in Mb/s; for an HT MCS, its 20 MHz long-GI rate (see
    /// [`PhyProfile::rate_mbps`] for the PHY's actual one).
    pub fn mbps(self) -> f64 {
        match self.mcs() {
            Some(m) => ht_ndbps(m, false) as f64 / 4.0,
            None => f64::from(self.0) / 2.0,
        }
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
            0x80..=0x87 => Some(Modulation::Ht),
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
        if let Some(m) = self.mcs() {
            write!(f, "HT MCS {m}")
        } else if self.0 % 2 == 0 {
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
    /// The PSDU is an A-MPDU (HT-SIG Aggregation bit, 19.3.9.4.3), even
    /// when it carries one MPDU: each MPDU follows a delimiter and a QoS
    /// Data MPDU with Normal Ack policy asks for a BlockAck (10.25.2).
    pub aggregate: bool,
}

impl Ppdu {
    /// A PPDU carrying one MPDU.
    pub fn single(rate: Rate, mpdu: std::sync::Arc<[u8]>) -> Ppdu {
        Ppdu {
            rate,
            mpdus: vec![mpdu],
            aggregate: false,
        }
    }

    /// An A-MPDU carrying `mpdus`.
    pub fn ampdu(rate: Rate, mpdus: Vec<std::sync::Arc<[u8]>>) -> Ppdu {
        Ppdu {
            rate,
            mpdus,
            aggregate: true,
        }
    }

    /// The PSDU length in octets: one MPDU with its FCS, or the A-MPDU with
    /// a delimiter before each MPDU and each subframe but the last padded to
    /// a multiple of 4 octets (9.7.1).
    pub fn psdu_len(&self) -> usize {
        match self.mpdus.as_slice() {
            [one] if !self.aggregate => one.len() + FCS_LEN,
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
    /// The longest PPDU the PHY can send at `rate`, if it limits it (an
    /// A-MPDU is cut to fit).
    fn max_ppdu_duration(&self, rate: Rate) -> Option<Time> {
        let _ = rate;
        None
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
    /// 802.11n: HT, clause 19 (plus the rates of the band's legacy PHY);
    /// the options are in [`PhyProfile::ht`].
    N,
}

/// The band of an HT PHY.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Band {
    /// 2.4 GHz: ERP alongside, 10 µs SIFS, a 6 µs signal extension after
    /// every OFDM and HT PPDU (19.4.4, Table 19-25).
    Ghz2_4,
    /// 5 GHz: 16 µs SIFS, no signal extension.
    Ghz5,
}

/// The options of an HT PHY (clause 19), one spatial stream, HT-mixed
/// format (19.1.4), BCC coding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HtParams {
    /// The band.
    pub band: Band,
    /// A 40 MHz channel (108 data subcarriers instead of 52, 19.3.5).
    pub wide: bool,
    /// The 400 ns short guard interval (3.6 µs symbols instead of 4 µs,
    /// 19.3.2 and Table 19-6).
    pub short_gi: bool,
}

impl Default for HtParams {
    /// 2.4 GHz, 20 MHz, long GI: the seed 000 network.
    fn default() -> HtParams {
        HtParams {
            band: Band::Ghz2_4,
            wide: false,
            short_gi: false,
        }
    }
}

/// N_DBPS of HT MCS `mcs` (0 to 7) with one spatial stream (Tables 19-27
/// and 19-28): data bits per OFDM symbol at 20 MHz (52 data subcarriers) or
/// 40 MHz (108).
pub fn ht_ndbps(mcs: u8, wide: bool) -> u64 {
    // N_BPSCS × R per subcarrier, in 1/4 bits: BPSK 1/2, QPSK 1/2, QPSK
    // 3/4, 16-QAM 1/2, 16-QAM 3/4, 64-QAM 2/3, 64-QAM 3/4, 64-QAM 5/6.
    const QUARTER_BITS: [u64; 8] = [2, 4, 6, 8, 12, 16, 18, 20];
    let q = QUARTER_BITS.get(usize::from(mcs)).copied().unwrap_or(20);
    let nsd = if wide { 108 } else { 52 };
    nsd * q / 4
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
    /// HT options, for [`PhyStandard::N`].
    #[serde(default)]
    pub ht: HtParams,
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
            ht: HtParams::default(),
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
            ht: HtParams::default(),
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
            ht: HtParams::default(),
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
            ht: HtParams::default(),
        }
    }

    /// 802.11n (HT-mixed format, one spatial stream) with `ht`'s band,
    /// width and guard interval. The basic rates are 802.11g's in 2.4 GHz
    /// (an ERP-only BSS: short slot) and 802.11a's in 5 GHz.
    pub fn n(ht: HtParams) -> PhyProfile {
        let legacy = match ht.band {
            Band::Ghz2_4 => PhyProfile::g(),
            Band::Ghz5 => PhyProfile::a(),
        };
        PhyProfile {
            standard: PhyStandard::N,
            ht,
            ..legacy
        }
    }

    /// The rate in Mb/s on this PHY: for an HT MCS, N_DBPS over the symbol
    /// time (4 µs, or 3.6 µs with the short GI; Table 19-27).
    pub fn rate_mbps(&self, rate: Rate) -> f64 {
        match rate.mcs() {
            Some(m) => {
                let sym = if self.ht.short_gi { 3.6 } else { 4.0 };
                ht_ndbps(m, self.ht.wide) as f64 / sym
            }
            None => rate.mbps(),
        }
    }

    /// True when `rate` can be sent on this PHY.
    pub fn supports(&self, rate: Rate) -> bool {
        matches!(
            (self.standard, rate.modulation()),
            (PhyStandard::B, Some(Modulation::Dsss | Modulation::HrDsss))
                | (PhyStandard::A, Some(Modulation::Ofdm))
                | (
                    PhyStandard::G,
                    Some(Modulation::Dsss | Modulation::HrDsss | Modulation::Ofdm)
                )
                | (PhyStandard::N, Some(Modulation::Ht | Modulation::Ofdm))
        ) || (self.standard == PhyStandard::N && self.ht.band == Band::Ghz2_4 && rate.is_dsss())
    }

    /// The highest rate of this PHY.
    pub fn max_rate(&self) -> Rate {
        match self.standard {
            PhyStandard::B => Rate::CCK_11,
            PhyStandard::A | PhyStandard::G => Rate::OFDM_54,
            PhyStandard::N => Rate::ht(7),
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

    /// True on a PHY whose OFDM and HT PPDUs end with the 6 µs signal
    /// extension: ERP (18.3.2.4) and HT in 2.4 GHz (19.3.2, Table 19-25).
    fn signal_extension(&self) -> bool {
        match self.standard {
            PhyStandard::G => true,
            PhyStandard::N => self.ht.band == Band::Ghz2_4,
            PhyStandard::A | PhyStandard::B => false,
        }
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
            PhyStandard::G | PhyStandard::N if self.non_erp_present => Time::from_us(20),
            PhyStandard::G => Time::from_us(9),
            // Table 19-25: 9 µs (2.4 GHz in a BSS without non-ERP
            // stations, and 5 GHz).
            PhyStandard::N => Time::from_us(9),
        }
    }

    fn sifs(&self) -> Time {
        match self.standard {
            // 802.11a 16 µs (Table 17-21); DSSS and ERP 10 µs, ERP-OFDM
            // frames followed by a 6 µs signal extension (18.3.2.4).
            PhyStandard::A => Time::from_us(16),
            PhyStandard::B | PhyStandard::G => Time::from_us(10),
            // Table 19-25: 10 µs in 2.4 GHz, 16 µs in 5 GHz.
            PhyStandard::N => match self.ht.band {
                Band::Ghz2_4 => Time::from_us(10),
                Band::Ghz5 => Time::from_us(16),
            },
        }
    }

    fn cw_min(&self) -> u32 {
        match self.standard {
            PhyStandard::B => 31,
            PhyStandard::A => 15,
            // Table 18-5: aCWmin 15 in an ERP-only BSS, 31 otherwise.
            PhyStandard::G | PhyStandard::N if self.non_erp_present => 31,
            // Table 19-25: aCWmin 15.
            PhyStandard::G | PhyStandard::N => 15,
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
                let ext = if self.signal_extension() {
                    Time::from_us(6)
                } else {
                    Time::ZERO
                };
                Time::from_us(20 + 4 * symbols) + ext
            }
            // 19.4.3, Equation (19-91), HT-mixed format: TXTIME =
            // T_LEG_PREAMBLE (L-STF 8 + L-LTF 8 µs) + T_L-SIG (4) +
            // T_HT-SIG (8) + T_HT_PREAMBLE (HT-STF 4 + one HT-LTF 4 for one
            // stream) = 36 µs, + T_SYM × N_SYM with the long GI, or
            // T_SYM × ceiling(T_SYMS × N_SYM / T_SYM) with the short GI
            // (T_SYMS = 3.6 µs), + the signal extension in 2.4 GHz.
            // Equation (19-32), BCC, one encoder, no STBC: N_SYM =
            // ceiling((8 × LENGTH + 16 + 6) / N_DBPS).
            Some(Modulation::Ht) => {
                let ndbps = ht_ndbps(rate.mcs().unwrap_or(0), self.ht.wide);
                let nsym = (16 + bits + 6).div_ceil(ndbps);
                let data_ns = if self.ht.short_gi {
                    (3600 * nsym).div_ceil(4000) * 4000
                } else {
                    4000 * nsym
                };
                let ext = if self.signal_extension() { 6 } else { 0 };
                Time::from_us(36 + ext) + Time::from_ns(data_ns)
            }
        }
    }

    fn rx_start_delay(&self, rate: Rate) -> Time {
        if rate.mcs().is_some() {
            // Table 19-25: aRxPHYStartDelay 33 µs for the HT-mixed format.
            Time::from_us(33)
        } else if rate.is_ofdm() {
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
            PhyStandard::G | PhyStandard::N if self.non_erp_present => 15,
            _ => 4,
        };
        Time::from_us(cca + 1)
    }

    fn response_rate(&self, rate: Rate) -> Rate {
        // 10.6.6.5.2: the highest rate of the BSSBasicRateSet that is not
        // above the eliciting frame's rate and of the same modulation class;
        // failing that, the highest mandatory rate of that class not above
        // it; failing that, the lowest rate of the class. An HT PPDU is
        // answered in a non-HT OFDM PPDU; the comparison uses the MCS's
        // non-HT reference rate (Table 10-10).
        let rate = match rate.mcs() {
            Some(m) => [
                Rate::OFDM_6,
                Rate::OFDM_12,
                Rate::OFDM_18,
                Rate::OFDM_24,
                Rate::OFDM_36,
                Rate::OFDM_48,
                Rate::OFDM_54,
                Rate::OFDM_54,
            ]
            .get(usize::from(m))
            .copied()
            .unwrap_or(Rate::OFDM_6),
            None => rate,
        };
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
            PhyStandard::G | PhyStandard::N if self.non_erp_present => Rate::DSSS_1,
            _ => Rate::OFDM_6,
        };
        self.ppdu_duration(ACK_LEN, lowest)
    }

    fn max_mpdus_per_ppdu(&self) -> usize {
        // A compressed BlockAck bitmap covers 64 MPDUs (9.3.1.9.3).
        if self.standard == PhyStandard::N {
            64
        } else {
            1
        }
    }

    fn max_ppdu_duration(&self, rate: Rate) -> Option<Time> {
        // 19.3.9.3.5: in the HT-mixed format the L-SIG LENGTH (at most
        // 4095) spoofs the duration at 6 Mb/s: TXTIME ≤ 20 µs +
        // 4 µs × (4095 + 3) / 3 = 5484 µs (aPPDUMaxTime for HT-MF).
        rate.mcs().map(|_| Time::from_us(5484))
    }
}

/// Length of an Ack or a CTS with its FCS (9.3.1.3, 9.3.1.4).
pub const ACK_LEN: usize = 14;
/// Length of an RTS with its FCS (9.3.1.2).
pub const RTS_LEN: usize = 20;
/// Length of a compressed BlockAck with its FCS (9.3.1.8): Frame Control,
/// Duration, RA, TA, BA Control, Starting Sequence Control, the 8-octet
/// bitmap, FCS.
pub const BLOCK_ACK_LEN: usize = 32;
/// Length of a compressed BlockAckReq with its FCS (9.3.1.7).
pub const BLOCK_ACK_REQ_LEN: usize = 24;

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
    fn ht_rates_follow_table_19_27() {
        let n20 = PhyProfile::n(HtParams::default());
        let sgi = PhyProfile::n(HtParams {
            short_gi: true,
            ..HtParams::default()
        });
        let w40 = PhyProfile::n(HtParams {
            wide: true,
            ..HtParams::default()
        });
        let w40s = PhyProfile::n(HtParams {
            wide: true,
            short_gi: true,
            ..HtParams::default()
        });
        // The printed rates of Table 19-27 (20 MHz) and 19-28 (40 MHz).
        let lgi20 = [6.5, 13.0, 19.5, 26.0, 39.0, 52.0, 58.5, 65.0];
        let sgi20 = [7.2, 14.4, 21.7, 28.9, 43.3, 57.8, 65.0, 72.2];
        let lgi40 = [13.5, 27.0, 40.5, 54.0, 81.0, 108.0, 121.5, 135.0];
        let sgi40 = [15.0, 30.0, 45.0, 60.0, 90.0, 120.0, 135.0, 150.0];
        for m in 0..8u8 {
            let r = Rate::ht(m);
            assert_eq!(r.mcs(), Some(m));
            assert!(n20.supports(r) && !PhyProfile::g().supports(r));
            let i = usize::from(m);
            assert!((n20.rate_mbps(r) - lgi20[i]).abs() < 0.05);
            assert!((sgi.rate_mbps(r) - sgi20[i]).abs() < 0.05, "{m}");
            assert!((w40.rate_mbps(r) - lgi40[i]).abs() < 0.05);
            assert!((w40s.rate_mbps(r) - sgi40[i]).abs() < 0.05);
        }
        assert_eq!(Rate::OFDM_54.mcs(), None);
        assert_eq!(Rate::ht(7).to_string(), "HT MCS 7");
        assert_eq!(n20.max_rate(), Rate::ht(7));
        assert!(n20.supports(Rate::CCK_11));
    }

    #[test]
    fn ht_durations() {
        let n24 = PhyProfile::n(HtParams::default());
        let n5 = PhyProfile::n(HtParams {
            band: Band::Ghz5,
            ..HtParams::default()
        });
        // 1504 octets at MCS 7, 20 MHz: N_SYM = ceil((16 + 12032 + 6) /
        // 260) = 47; 36 µs of HT-mixed preamble + 188 µs, + 6 µs signal
        // extension in 2.4 GHz.
        assert_eq!(us(n5.ppdu_duration(1504, Rate::ht(7))), 224.0);
        assert_eq!(us(n24.ppdu_duration(1504, Rate::ht(7))), 230.0);
        // Short GI: 47 × 3.6 = 169.2 µs, rounded up to whole 4 µs: 172.
        let s5 = PhyProfile::n(HtParams {
            band: Band::Ghz5,
            short_gi: true,
            ..HtParams::default()
        });
        assert_eq!(us(s5.ppdu_duration(1504, Rate::ht(7))), 208.0);
        // 100 octets at MCS 0, 40 MHz: ceil(822 / 54) = 16 symbols.
        let w5 = PhyProfile::n(HtParams {
            band: Band::Ghz5,
            wide: true,
            short_gi: false,
        });
        assert_eq!(us(w5.ppdu_duration(100, Rate::ht(0))), 100.0);
        // Legacy OFDM responses keep the ERP signal extension in 2.4 GHz.
        assert_eq!(us(n24.ppdu_duration(14, Rate::OFDM_24)), 34.0);
        assert_eq!(us(n5.ppdu_duration(14, Rate::OFDM_24)), 28.0);
        assert_eq!(us(n24.sifs()), 10.0);
        assert_eq!(us(n5.sifs()), 16.0);
        assert_eq!(us(n24.slot()), 9.0);
        assert_eq!(us(n24.difs()), 28.0);
        assert_eq!(n24.cw_min(), 15);
        assert_eq!(us(n24.rx_start_delay(Rate::ht(3))), 33.0);
        assert_eq!(n24.max_mpdus_per_ppdu(), 64);
        assert_eq!(
            n24.max_ppdu_duration(Rate::ht(0)),
            Some(Time::from_us(5484))
        );
        assert_eq!(n24.max_ppdu_duration(Rate::OFDM_6), None);
        // Responses at the basic rate at or below the non-HT reference
        // rate (Table 10-10): MCS 7 → 54 → 24 Mb/s, MCS 1 → 12 → 12.
        assert_eq!(n24.response_rate(Rate::ht(7)), Rate::OFDM_24);
        assert_eq!(n24.response_rate(Rate::ht(1)), Rate::OFDM_12);
        assert_eq!(n24.response_rate(Rate::ht(2)), Rate::OFDM_12);
        assert_ne!(us(n24.ppdu_duration(1504, Rate::ht(7))), 224.0);
    }

    #[test]
    fn ampdu_psdu_length() {
        let m: std::sync::Arc<[u8]> = vec![0u8; 101].into();
        let one = Ppdu::single(Rate::OFDM_6, m.clone());
        assert_eq!(one.psdu_len(), 105);
        let two = Ppdu {
            rate: Rate::OFDM_6,
            mpdus: vec![m.clone(), m.clone()],
            aggregate: true,
        };
        // (4 + 101 + 4 = 109, padded to 112) + 109.
        assert_eq!(two.psdu_len(), 221);
        // One MPDU in an A-MPDU still has its delimiter.
        assert_eq!(Ppdu::ampdu(Rate::ht(0), vec![m]).psdu_len(), 109);
    }
}
