//! Time as the caller gives it: nothing in this crate reads a clock.

use core::ops::{Add, Sub};
use core::time::Duration;

/// A point in time, in microseconds since an epoch the caller chooses (a
/// virtual clock in a simulator, a monotonic clock in a daemon). It never
/// wraps in practice (584 000 years) and saturates instead of overflowing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Instant(pub u64);

impl Instant {
    /// The epoch.
    pub const ZERO: Instant = Instant(0);

    /// From microseconds since the epoch.
    pub const fn from_micros(us: u64) -> Instant {
        Instant(us)
    }

    /// From milliseconds since the epoch (saturating).
    pub const fn from_millis(ms: u64) -> Instant {
        Instant(ms.saturating_mul(1000))
    }

    /// Microseconds since the epoch.
    pub const fn as_micros(self) -> u64 {
        self.0
    }

    /// Whole milliseconds since the epoch.
    pub const fn as_millis(self) -> u64 {
        self.0 / 1000
    }

    /// This instant plus `ms` milliseconds (saturating).
    #[must_use]
    pub const fn plus_millis(self, ms: u64) -> Instant {
        Instant(self.0.saturating_add(ms.saturating_mul(1000)))
    }

    /// The time elapsed since `earlier`, zero if `earlier` is later.
    pub fn saturating_duration_since(self, earlier: Instant) -> Duration {
        Duration::from_micros(self.0.saturating_sub(earlier.0))
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

impl Add<Duration> for Instant {
    type Output = Instant;

    fn add(self, d: Duration) -> Instant {
        Instant(self.0.saturating_add(micros(d)))
    }
}

impl Sub<Duration> for Instant {
    type Output = Instant;

    fn sub(self, d: Duration) -> Instant {
        Instant(self.0.saturating_sub(micros(d)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_saturates() {
        let t = Instant::from_millis(5);
        assert_eq!((t + Duration::from_micros(7)).as_micros(), 5007);
        assert_eq!(t - Duration::from_secs(1), Instant::ZERO);
        assert_eq!(
            Instant(u64::MAX) + Duration::from_secs(1),
            Instant(u64::MAX)
        );
        assert_eq!(
            t.saturating_duration_since(Instant::from_millis(7)),
            Duration::ZERO
        );
        assert_eq!(
            Instant::from_millis(7).saturating_duration_since(t),
            Duration::from_millis(2)
        );
    }
}
