//! Wired links: a serialising, delaying, drop-tail queue in each direction,
//! so that hosts can sit behind the access point and wireline congestion
//! can be added.

use crate::time::Time;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// A wired link's parameters (the same in both directions).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WiredConfig {
    /// Line rate in bits per second (0 is taken as 1).
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: Time,
    /// Packets that may wait behind the one being serialised; a packet that
    /// finds the queue full is dropped (drop-tail).
    pub queue_limit: usize,
}

impl WiredConfig {
    /// Gigabit Ethernet with 10 µs of delay and a 1000-packet queue.
    pub fn gigabit() -> WiredConfig {
        WiredConfig {
            rate_bps: 1_000_000_000,
            delay: Time::from_us(10),
            queue_limit: 1000,
        }
    }

    /// Time to serialise `bytes` octets.
    pub fn serialisation(&self, bytes: usize) -> Time {
        let bits = 8 * bytes as u128;
        let rate = u128::from(self.rate_bps.max(1));
        Time::from_ns(((bits * 1_000_000_000).div_ceil(rate)).min(u128::from(u64::MAX)) as u64)
    }
}

/// Counters of one direction of a wired link.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WiredStats {
    /// Packets accepted.
    pub sent: u64,
    /// Octets accepted.
    pub bytes: u64,
    /// Packets dropped at a full queue.
    pub dropped: u64,
}

/// One direction of a link.
#[derive(Debug, Clone, Default)]
pub(crate) struct Direction {
    busy_until: Time,
    /// Serialisation start times of the packets not yet started.
    waiting: VecDeque<Time>,
    pub(crate) stats: WiredStats,
}

impl Direction {
    /// Enqueues a packet of `len` octets at `now`: the arrival time at the
    /// far end, or `None` when the queue is full.
    pub(crate) fn enqueue(&mut self, cfg: &WiredConfig, now: Time, len: usize) -> Option<Time> {
        while self.waiting.front().is_some_and(|&t| t <= now) {
            self.waiting.pop_front();
        }
        if self.waiting.len() >= cfg.queue_limit && self.busy_until > now {
            self.stats.dropped += 1;
            return None;
        }
        let start = self.busy_until.max(now);
        let end = start + cfg.serialisation(len);
        self.busy_until = end;
        if start > now {
            self.waiting.push_back(start);
        }
        self.stats.sent += 1;
        self.stats.bytes += len as u64;
        Some(end + cfg.delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialisation_delay_and_drop_tail() {
        let cfg = WiredConfig {
            rate_bps: 8_000_000, // 1 octet per µs
            delay: Time::from_us(100),
            queue_limit: 2,
        };
        assert_eq!(cfg.serialisation(1000), Time::from_us(1000));
        let mut d = Direction::default();
        let t0 = Time::ZERO;
        // The first packet is serialised at once, two wait, the fourth is
        // dropped.
        assert_eq!(d.enqueue(&cfg, t0, 1000), Some(Time::from_us(1100)));
        assert_eq!(d.enqueue(&cfg, t0, 1000), Some(Time::from_us(2100)));
        assert_eq!(d.enqueue(&cfg, t0, 1000), Some(Time::from_us(3100)));
        assert_eq!(d.enqueue(&cfg, t0, 1000), None);
        assert_eq!(d.stats.dropped, 1);
        // Once the second has started, there is room again.
        assert_eq!(
            d.enqueue(&cfg, Time::from_us(1000), 500),
            Some(Time::from_us(3600))
        );
        // An idle link serialises at once.
        assert_eq!(
            d.enqueue(&cfg, Time::from_secs(1), 10),
            Some(Time::from_secs(1) + Time::from_us(110))
        );
        assert_eq!(d.stats.sent, 5);
    }
}
