//! Replay detection (IEEE Std 802.11-2020, 12.5.2.4.4 for TKIP, 12.5.3.4.4
//! for CCMP, 12.5.5.4.4 for GCMP, 12.5.4.5 for BIP).
//!
//! A receiver keeps one counter per TID of a temporal key (and one for
//! individually addressed robust management frames); a frame whose PN is
//! not greater than the counter is a replay. A counter advances only through
//! [`ReplayCounter::accept`], which takes the [`Unprotected`] proof that the
//! frame's MIC verified: a forged frame with a huge PN can never move the
//! window and lock out the genuine sender (the KRACK lesson).

use crate::Unprotected;
use core::fmt;

/// A frame's packet number was not greater than the highest accepted one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replayed {
    /// The PN of the rejected frame.
    pub pn: u64,
    /// The highest PN accepted so far.
    pub highest: u64,
}

impl fmt::Display for Replayed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "replayed PN {} (highest accepted {})",
            self.pn, self.highest
        )
    }
}

impl core::error::Error for Replayed {}

/// One monotonically increasing receive counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReplayCounter {
    highest: Option<u64>,
}

impl ReplayCounter {
    /// A counter that accepts any first PN (including 0).
    pub const fn new() -> ReplayCounter {
        ReplayCounter { highest: None }
    }

    /// A counter that accepts only PNs greater than `pn`, as when a key is
    /// installed with a receive sequence counter (Key RSC, 12.7.2).
    pub const fn starting_after(pn: u64) -> ReplayCounter {
        ReplayCounter { highest: Some(pn) }
    }

    /// The highest PN accepted so far.
    pub const fn highest(&self) -> Option<u64> {
        self.highest
    }

    /// True when a frame with this PN would not be a replay. A cheap test
    /// before the MIC is computed; it changes nothing.
    pub fn is_fresh(&self, pn: u64) -> bool {
        self.highest.is_none_or(|h| pn > h)
    }

    /// Accepts a verified frame: fails if its PN is a replay, otherwise
    /// advances the counter to it.
    pub fn accept(&mut self, verified: &Unprotected) -> Result<(), Replayed> {
        let pn = verified.pn();
        match self.highest {
            Some(h) if pn <= h => Err(Replayed { pn, highest: h }),
            _ => {
                self.highest = Some(pn);
                Ok(())
            }
        }
    }
}

/// Which counter of a key a frame belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReplaySlot {
    /// Data frames of this TID (0..=15); non-QoS data frames use TID 0.
    Tid(u8),
    /// Individually addressed robust management frames (12.5.3.4.4).
    Management,
}

/// The receive counters of one temporal key: one per TID and one for robust
/// management frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReplayCounters {
    tids: [ReplayCounter; 16],
    mgmt: ReplayCounter,
}

impl ReplayCounters {
    /// Counters that accept any first PN.
    pub const fn new() -> ReplayCounters {
        ReplayCounters {
            tids: [ReplayCounter::new(); 16],
            mgmt: ReplayCounter::new(),
        }
    }

    /// Counters that all start after `pn` (the Key RSC of a GTK or PTK).
    pub const fn starting_after(pn: u64) -> ReplayCounters {
        ReplayCounters {
            tids: [ReplayCounter::starting_after(pn); 16],
            mgmt: ReplayCounter::starting_after(pn),
        }
    }

    /// The counter of a slot. TIDs above 15 cannot occur in a 4-bit field;
    /// they share the counter of TID `tid & 15`.
    pub fn counter(&self, slot: ReplaySlot) -> &ReplayCounter {
        match slot {
            ReplaySlot::Tid(t) => &self.tids[usize::from(t & 0x0f)],
            ReplaySlot::Management => &self.mgmt,
        }
    }

    /// The counter of a slot, mutable.
    pub fn counter_mut(&mut self, slot: ReplaySlot) -> &mut ReplayCounter {
        match slot {
            ReplaySlot::Tid(t) => &mut self.tids[usize::from(t & 0x0f)],
            ReplaySlot::Management => &mut self.mgmt,
        }
    }

    /// [`ReplayCounter::is_fresh`] for a slot.
    pub fn is_fresh(&self, slot: ReplaySlot, pn: u64) -> bool {
        self.counter(slot).is_fresh(pn)
    }

    /// [`ReplayCounter::accept`] for a slot.
    pub fn accept(&mut self, slot: ReplaySlot, verified: &Unprotected) -> Result<(), Replayed> {
        self.counter_mut(slot).accept(verified)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(pn: u64) -> Unprotected {
        Unprotected::new(30, pn, 0)
    }

    #[test]
    fn counter_accepts_only_increasing() {
        let mut c = ReplayCounter::new();
        assert!(c.is_fresh(0));
        c.accept(&ok(0)).unwrap();
        assert!(!c.is_fresh(0));
        assert_eq!(c.accept(&ok(0)), Err(Replayed { pn: 0, highest: 0 }));
        c.accept(&ok(5)).unwrap();
        assert_eq!(c.accept(&ok(4)), Err(Replayed { pn: 4, highest: 5 }));
        c.accept(&ok(6)).unwrap();
        assert_eq!(c.highest(), Some(6));
    }

    #[test]
    fn starting_after_rejects_the_rsc_itself() {
        let mut c = ReplayCounter::starting_after(10);
        assert!(c.accept(&ok(10)).is_err());
        assert!(c.accept(&ok(11)).is_ok());
    }

    #[test]
    fn slots_are_independent() {
        let mut r = ReplayCounters::new();
        r.accept(ReplaySlot::Tid(3), &ok(100)).unwrap();
        r.accept(ReplaySlot::Tid(0), &ok(1)).unwrap();
        r.accept(ReplaySlot::Management, &ok(1)).unwrap();
        assert!(r.accept(ReplaySlot::Tid(3), &ok(99)).is_err());
        assert!(r.accept(ReplaySlot::Tid(4), &ok(99)).is_ok());
        assert!(r.is_fresh(ReplaySlot::Tid(19), 101));
        assert!(!r.is_fresh(ReplaySlot::Tid(19), 100));
    }
}
