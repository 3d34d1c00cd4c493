//! Received signal strength and frame errors: what a weaker signal (walls
//! between a station and its AP, seed 001's Configurations 3 and 4) does to
//! a link, as the probability that a frame is lost and as the highest rate
//! that still carries it.
//!
//! # The mapping
//!
//! The anchor of every rate is the standard's receiver minimum input
//! sensitivity: the input level at which a compliant receiver still gets
//! frames of a reference length through with a stated error ratio —
//! IEEE Std 802.11-2020, 15.4.6.2 (DSSS 1 and 2 Mb/s: −80 dBm, 8% of
//! 1024-octet frames), 16.3.8.2 (HR/DSSS 5.5 and 11 Mb/s: −76 dBm, 8% of
//! 1024 octets) and Table 17-18 (OFDM: −82, −81, −79, −77, −74, −70, −66
//! and −65 dBm from 6 to 54 Mb/s, 10% of 1000 octets).
//!
//! Around the anchor the bit error ratio falls as an uncoded
//! differential-PSK receiver's does, BER = exp(−γ)/2, with γ proportional
//! to the received power (γ = γ₀·10^(margin/10), γ₀ set so that the
//! reference frame fails at the reference ratio at the sensitivity), and a
//! frame of `L` octets fails with 1 − (1 − BER)^(8·L). The model is the
//! lab's assumption, not a measurement, and no parameter of it is fitted
//! to a seed figure; it gives no loss at all at seed 001's −43 to −60 dBm
//! at 2 Mb/s (20 dB and more above the sensitivity).

use crate::phy::{PhyProfile, Rate};

/// The anchor of `rate`: (sensitivity in dBm, frame error ratio there,
/// reference PSDU length in octets). `None` for an HT rate (not
/// modelled).
pub fn sensitivity(rate: Rate) -> Option<(f64, f64, usize)> {
    let ofdm = |dbm| Some((dbm, 0.10, 1000));
    match rate {
        Rate::DSSS_1 | Rate::DSSS_2 => Some((-80.0, 0.08, 1024)),
        Rate::CCK_5_5 | Rate::CCK_11 => Some((-76.0, 0.08, 1024)),
        Rate::OFDM_6 => ofdm(-82.0),
        Rate::OFDM_9 => ofdm(-81.0),
        Rate::OFDM_12 => ofdm(-79.0),
        Rate::OFDM_18 => ofdm(-77.0),
        Rate::OFDM_24 => ofdm(-74.0),
        Rate::OFDM_36 => ofdm(-70.0),
        Rate::OFDM_48 => ofdm(-66.0),
        Rate::OFDM_54 => ofdm(-65.0),
        _ => None,
    }
}

/// The bit error ratio at `rate` received at `rssi_dbm` (`None` for a
/// rate the model does not cover).
pub fn bit_error_rate(rssi_dbm: f64, rate: Rate) -> Option<f64> {
    let (sens, fer0, octets) = sensitivity(rate)?;
    let bits = (8 * octets) as f64;
    let ber0 = 1.0 - (1.0 - fer0).powf(1.0 / bits);
    let gamma0 = -(2.0 * ber0).ln();
    let gamma = gamma0 * 10f64.powf((rssi_dbm - sens) / 10.0);
    Some((0.5 * (-gamma).exp()).clamp(0.0, 0.5))
}

/// The probability that a PSDU of `psdu_len` octets sent at `rate` is
/// lost at a receiver that gets it at `rssi_dbm` (0 for a rate the model
/// does not cover).
pub fn frame_error_rate(rssi_dbm: f64, psdu_len: usize, rate: Rate) -> f64 {
    let Some(ber) = bit_error_rate(rssi_dbm, rate) else {
        return 0.0;
    };
    (1.0 - (1.0 - ber).powf(8.0 * psdu_len as f64)).clamp(0.0, 1.0)
}

/// The highest rate of `phy` whose frames of `psdu_len` octets get
/// through at `rssi_dbm` with an error ratio of at most `max_fer`, as an
/// ideal rate control that knows the signal would pick; the PHY's lowest
/// rate when none does.
pub fn best_rate(phy: &PhyProfile, rssi_dbm: f64, psdu_len: usize, max_fer: f64) -> Rate {
    let candidates: Vec<Rate> = Rate::DSSS_RATES
        .iter()
        .chain(Rate::OFDM_RATES.iter())
        .copied()
        .filter(|r| phy.supports(*r))
        .collect();
    let mut best: Option<Rate> = None;
    for r in &candidates {
        if frame_error_rate(rssi_dbm, psdu_len, *r) <= max_fer
            && best.is_none_or(|b| phy.rate_mbps(*r) > phy.rate_mbps(b))
        {
            best = Some(*r);
        }
    }
    best.or_else(|| {
        candidates
            .iter()
            .copied()
            .min_by(|a, b| phy.rate_mbps(*a).total_cmp(&phy.rate_mbps(*b)))
    })
    .unwrap_or(Rate::DSSS_1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_anchor_and_the_slope() {
        // At the sensitivity, a reference-length frame fails at the
        // standard's ratio.
        let at = frame_error_rate(-76.0, 1024, Rate::CCK_11);
        assert!((at - 0.08).abs() < 1e-9, "{at}");
        let at = frame_error_rate(-65.0, 1000, Rate::OFDM_54);
        assert!((at - 0.10).abs() < 1e-9, "{at}");
        // Steeply down above it, up below it.
        assert!(frame_error_rate(-75.0, 1024, Rate::CCK_11) < 0.01);
        assert!(frame_error_rate(-77.0, 1024, Rate::CCK_11) > 0.3);
        // Longer frames fail more often, shorter ones less.
        let ber = bit_error_rate(-76.0, Rate::CCK_11).unwrap();
        let long = frame_error_rate(-76.0, 1536, Rate::CCK_11);
        assert!((long - (1.0 - (1.0 - ber).powf(8.0 * 1536.0))).abs() < 1e-12);
        assert!(long > 0.08 && frame_error_rate(-76.0, 14, Rate::CCK_11) < 0.002);
        // Far above every threshold: nothing lost.
        assert!(frame_error_rate(-43.0, 1536, Rate::OFDM_54) < 1e-9);
        assert!(frame_error_rate(-60.0, 1536, Rate::DSSS_2) < 1e-12);
    }

    #[test]
    fn rate_control_steps_down_as_the_signal_weakens() {
        let b = PhyProfile::b();
        assert_eq!(best_rate(&b, -50.0, 1536, 0.1), Rate::CCK_11);
        assert_eq!(best_rate(&b, -77.0, 1536, 0.1), Rate::DSSS_2);
        assert_eq!(best_rate(&b, -95.0, 1536, 0.1), Rate::DSSS_1);
        let g = PhyProfile::g();
        assert_eq!(best_rate(&g, -60.0, 1536, 0.1), Rate::OFDM_54);
        assert_eq!(best_rate(&g, -72.0, 1536, 0.1), Rate::OFDM_24);
    }
}
