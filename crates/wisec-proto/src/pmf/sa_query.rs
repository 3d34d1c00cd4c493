//! The SA Query procedure (IEEE Std 802.11-2020, 11.13) and its frames.
//!
//! An SA Query Request or Response is an Action frame of category 8 (SA
//! Query, a robust category: it travels protected with the PTK) whose
//! details are (9.6.9.2, 9.6.9.3):
//!
//! | octets | field |
//! |---|---|
//! | 1 | Category = 8 |
//! | 1 | SA Query Action: 0 Request, 1 Response |
//! | 2 | Transaction Identifier |
//!
//! A node that doubts its peer still holds the association sends
//! Requests, a new Transaction Identifier each dot11AssociationSAQuery-
//! RetryTimeout (default 201 TU), until a protected Response echoes one of
//! them or dot11AssociationSAQueryMaximumTimeout (default 1000 TU) passes.
//! The AP also tells a STA that asks to associate again while the query
//! runs when to come back: status 30 with a Timeout Interval element of
//! type 3 (association comeback time, in TU; 9.4.2.49).

use super::Error;
use crate::time::Instant;
use core::time::Duration;
use wisec_wire::ElementId;

/// The SA Query Action category (Table 9-51).
pub const CATEGORY: u8 = 8;
/// Length of the SA Query details (category included).
pub const LEN: usize = 4;
/// One TU in microseconds (3.1).
pub const TU_US: u64 = 1024;
/// Default dot11AssociationSAQueryMaximumTimeout, in TU.
pub const DEFAULT_MAX_TIMEOUT_TU: u32 = 1000;
/// Default dot11AssociationSAQueryRetryTimeout, in TU.
pub const DEFAULT_RETRY_TIMEOUT_TU: u32 = 201;
/// Timeout Interval Type of the association comeback time (Table 9-250).
pub const TIMEOUT_ASSOC_COMEBACK: u8 = 3;
/// Transaction identifiers remembered per procedure: a Response to any
/// Request sent (a late Response to an earlier retry) is accepted.
pub const MAX_TRANSACTIONS: usize = 8;

/// Request or Response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SaQueryAction {
    /// 0: SA Query Request.
    Request,
    /// 1: SA Query Response.
    Response,
}

/// The details of an SA Query Action frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SaQueryFrame {
    /// Request or Response.
    pub action: SaQueryAction,
    /// The Transaction Identifier.
    pub transaction_id: u16,
}

impl SaQueryFrame {
    /// Parses the body of an (unprotected or already decrypted) Action
    /// frame. Extra octets after the identifier (an OCI element) are
    /// ignored. Another category is `Unsupported`, another action
    /// `Malformed`.
    pub fn parse(body: &[u8]) -> Result<SaQueryFrame, Error> {
        match body {
            [CATEGORY, a, id0, id1, ..] => Ok(SaQueryFrame {
                action: match a {
                    0 => SaQueryAction::Request,
                    1 => SaQueryAction::Response,
                    _ => return Err(Error::Malformed(wisec_wire::Error::Malformed)),
                },
                transaction_id: u16::from_le_bytes([*id0, *id1]),
            }),
            [c, ..] if *c != CATEGORY => Err(Error::Malformed(wisec_wire::Error::Unsupported)),
            _ => Err(Error::Malformed(wisec_wire::Error::Truncated)),
        }
    }

    /// Writes the details to `buf`, returning [`LEN`].
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, Error> {
        let b = buf.get_mut(..LEN).ok_or(Error::BufferTooSmall)?;
        b[0] = CATEGORY;
        b[1] = match self.action {
            SaQueryAction::Request => 0,
            SaQueryAction::Response => 1,
        };
        b[2..4].copy_from_slice(&self.transaction_id.to_le_bytes());
        Ok(LEN)
    }
}

/// The Timeout Interval element (9.4.2.49) carrying an association
/// comeback time of `tu` time units.
pub fn comeback_element(tu: u32) -> [u8; 7] {
    let v = tu.to_le_bytes();
    [
        ElementId::TIMEOUT_INTERVAL.0,
        5,
        TIMEOUT_ASSOC_COMEBACK,
        v[0],
        v[1],
        v[2],
        v[3],
    ]
}

/// The association comeback time (TU) of a Timeout Interval element's
/// data, `None` for another type or a wrong length.
pub fn parse_comeback(data: &[u8]) -> Option<u32> {
    match data {
        [TIMEOUT_ASSOC_COMEBACK, a, b, c, d] => Some(u32::from_le_bytes([*a, *b, *c, *d])),
        _ => None,
    }
}

/// The two MIB timers of the procedure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaQueryTimers {
    /// dot11AssociationSAQueryMaximumTimeout.
    pub max_timeout: Duration,
    /// dot11AssociationSAQueryRetryTimeout.
    pub retry_timeout: Duration,
}

impl Default for SaQueryTimers {
    fn default() -> SaQueryTimers {
        SaQueryTimers {
            max_timeout: tu(DEFAULT_MAX_TIMEOUT_TU),
            retry_timeout: tu(DEFAULT_RETRY_TIMEOUT_TU),
        }
    }
}

/// `n` time units.
pub fn tu(n: u32) -> Duration {
    Duration::from_micros(u64::from(n) * TU_US)
}

/// What a running procedure wants at `now`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaQueryPoll {
    /// Nothing yet.
    Wait,
    /// Send another Request with this new Transaction Identifier.
    Retry(u16),
    /// No Response arrived in time: the peer has lost the association.
    TimedOut,
}

/// One running SA Query procedure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaQuery {
    started: Instant,
    next_retry: Instant,
    ids: [u16; MAX_TRANSACTIONS],
    count: usize,
}

impl SaQuery {
    /// Starts at `now` with the first Request's identifier.
    pub fn start(now: Instant, timers: &SaQueryTimers, id: u16) -> SaQuery {
        let mut ids = [0; MAX_TRANSACTIONS];
        ids[0] = id;
        SaQuery {
            started: now,
            next_retry: now + timers.retry_timeout,
            ids,
            count: 1,
        }
    }

    /// The identifier of the last Request.
    pub fn last_id(&self) -> u16 {
        let i = (self.count + MAX_TRANSACTIONS - 1) % MAX_TRANSACTIONS;
        self.ids[i]
    }

    /// True when `id` is one this procedure sent (11.13: a Response with a
    /// matching identifier ends the procedure).
    pub fn matches(&self, id: u16) -> bool {
        self.ids
            .iter()
            .take(self.count.min(MAX_TRANSACTIONS))
            .any(|&x| x == id)
    }

    /// When the procedure fails.
    pub fn deadline(&self, timers: &SaQueryTimers) -> Instant {
        self.started + timers.max_timeout
    }

    /// When [`SaQuery::poll`] has something to do next.
    pub fn next_event(&self, timers: &SaQueryTimers) -> Instant {
        self.next_retry.min(self.deadline(timers))
    }

    /// The comeback time to announce at `now`: what is left of the
    /// procedure, in TU, at least 1.
    pub fn comeback_tu(&self, now: Instant, timers: &SaQueryTimers) -> u32 {
        let left = self.deadline(timers).saturating_duration_since(now);
        let t = u64::try_from(left.as_micros()).unwrap_or(u64::MAX);
        u32::try_from(t.div_ceil(TU_US)).unwrap_or(u32::MAX).max(1)
    }

    /// Advances the procedure to `now`; `new_id` draws the identifier of
    /// a retry.
    pub fn poll(
        &mut self,
        now: Instant,
        timers: &SaQueryTimers,
        new_id: impl FnOnce() -> u16,
    ) -> SaQueryPoll {
        if now >= self.deadline(timers) {
            return SaQueryPoll::TimedOut;
        }
        if now < self.next_retry {
            return SaQueryPoll::Wait;
        }
        let id = new_id();
        self.ids[self.count % MAX_TRANSACTIONS] = id;
        self.count += 1;
        self.next_retry = now + timers.retry_timeout;
        SaQueryPoll::Retry(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_layout() {
        let f = SaQueryFrame {
            action: SaQueryAction::Response,
            transaction_id: 0x1234,
        };
        let mut b = [0u8; 4];
        assert_eq!(f.emit(&mut b), Ok(4));
        // 9.6.9.3: category 8, action 1, identifier little-endian.
        assert_eq!(b, [8, 1, 0x34, 0x12]);
        assert_eq!(SaQueryFrame::parse(&b), Ok(f));
        assert_eq!(
            SaQueryFrame::parse(&[8, 0, 1, 0, 0xc3, 3, 81, 1, 0])
                .unwrap()
                .action,
            SaQueryAction::Request
        );
        assert!(SaQueryFrame::parse(&[8, 2, 0, 0]).is_err());
        assert!(SaQueryFrame::parse(&[9, 0, 0, 0]).is_err());
        assert!(SaQueryFrame::parse(&[8, 0, 0]).is_err());
        assert!(SaQueryFrame::parse(&[]).is_err());
        assert!(f.emit(&mut [0u8; 3]).is_err());
    }

    #[test]
    fn comeback_element_layout() {
        // 9.4.2.49: ID 56, Length 5, Type 3, Value in TU little-endian.
        assert_eq!(comeback_element(0x0102_0304), [56, 5, 3, 4, 3, 2, 1]);
        assert_eq!(parse_comeback(&[3, 0xe8, 3, 0, 0]), Some(1000));
        assert_eq!(parse_comeback(&[2, 0xe8, 3, 0, 0]), None);
        assert_eq!(parse_comeback(&[3, 0xe8, 3, 0]), None);
    }

    #[test]
    fn procedure_retries_then_times_out() {
        let t = SaQueryTimers::default();
        assert_eq!(t.max_timeout, Duration::from_micros(1_024_000));
        assert_eq!(t.retry_timeout, Duration::from_micros(205_824));
        let t0 = Instant::from_millis(10);
        let mut q = SaQuery::start(t0, &t, 7);
        assert!(q.matches(7) && !q.matches(8));
        assert_eq!(q.comeback_tu(t0, &t), 1000);
        assert_eq!(q.poll(t0 + tu(200), &t, || 99), SaQueryPoll::Wait);
        let mut next = 100;
        let mut retries = 0;
        let mut now = t0;
        loop {
            now = now + tu(1);
            match q.poll(now, &t, || {
                next += 1;
                next
            }) {
                SaQueryPoll::Wait => {}
                SaQueryPoll::Retry(id) => {
                    retries += 1;
                    assert_eq!(q.last_id(), id);
                    assert!(q.matches(id) && q.matches(7));
                }
                SaQueryPoll::TimedOut => break,
            }
        }
        // Retries at 201, 402, 603, 804 TU; failure at 1000 TU.
        assert_eq!(retries, 4);
        assert_eq!(now, t0 + tu(1000));
        assert_eq!(q.comeback_tu(now, &t), 1);
    }
}
