//! Virtual time: integer nanoseconds since the start of a simulation.
//!
//! Nothing in the lab reads a wall clock: every instant and every interval
//! is a [`Time`], so a run is a pure function of its configuration and seed.

use core::fmt;
use core::ops::{Add, AddAssign, Sub};
use serde::{Deserialize, Serialize};

/// An instant or an interval of virtual time, in nanoseconds.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Time(pub u64);

impl Time {
    /// Time zero, the start of every simulation.
    pub const ZERO: Time = Time(0);
    /// The largest representable time (never reached in practice).
    pub const MAX: Time = Time(u64::MAX);

    /// `ns` nanoseconds.
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns)
    }

    /// `us` microseconds.
    pub const fn from_us(us: u64) -> Time {
        Time(us.saturating_mul(1_000))
    }

    /// `ms` milliseconds.
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms.saturating_mul(1_000_000))
    }

    /// `s` seconds.
    pub const fn from_secs(s: u64) -> Time {
        Time(s.saturating_mul(1_000_000_000))
    }

    /// Seconds as a float, rounded to the nearest nanosecond; negative and
    /// non-finite inputs give zero.
    pub fn from_secs_f64(s: f64) -> Time {
        if s.is_finite() && s > 0.0 {
            Time((s * 1e9).round().min(u64::MAX as f64) as u64)
        } else {
            Time::ZERO
        }
    }

    /// Nanoseconds.
    pub const fn as_ns(self) -> u64 {
        self.0
    }

    /// Microseconds, rounded up (the unit of the Duration/ID field).
    pub const fn as_us_ceil(self) -> u64 {
        self.0.div_ceil(1_000)
    }

    /// Seconds as a float.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// `self - other`, or zero when `other` is later.
    pub const fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }

    /// `self * n`, saturating.
    pub const fn mul(self, n: u64) -> Time {
        Time(self.0.saturating_mul(n))
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        Time(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for Time {
    fn add_assign(&mut self, rhs: Time) {
        *self = *self + rhs;
    }
}

impl Sub for Time {
    type Output = Time;
    /// Saturating: an interval is never negative.
    fn sub(self, rhs: Time) -> Time {
        self.saturating_sub(rhs)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{:09} s",
            self.0 / 1_000_000_000,
            self.0 % 1_000_000_000
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_rounding() {
        assert_eq!(Time::from_us(10).as_ns(), 10_000);
        assert_eq!(Time::from_ms(1), Time::from_us(1000));
        assert_eq!(Time::from_secs(2).as_secs_f64(), 2.0);
        assert_eq!(Time::from_ns(1001).as_us_ceil(), 2);
        assert_eq!(Time::from_ns(1000).as_us_ceil(), 1);
        assert_eq!(Time::from_us(3) - Time::from_us(5), Time::ZERO);
        assert_eq!(Time::from_secs_f64(-1.0), Time::ZERO);
        assert_eq!(Time::from_secs_f64(f64::NAN), Time::ZERO);
        assert_eq!(Time::from_secs_f64(1.5e-6), Time::from_ns(1500));
        assert_eq!(Time::MAX + Time::from_us(1), Time::MAX);
        assert_eq!(Time::from_ns(1_500_000_001).to_string(), "1.500000001 s");
    }
}
