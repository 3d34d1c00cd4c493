//! Association token sets Θ_t (seed 003, section 4.1).
//!
//! The AP draws a set of 32-bit random tokens per interval t and publishes
//! it in every beacon of [t, t+1[ (publication phase P_t). During the same
//! interval it accepts authentication requests carrying an unused token of
//! Θ_{t-1} (acceptance phase A_t), each token once. Only Θ_{t-1} and Θ_t are
//! needed for that; Θ_{t-2} is also kept so a late token can be reported as
//! "from the wrong interval" rather than "unknown".

use super::Error;
use rand_core::CryptoRng;
use wisec_wire::discosec::TokenSet as WireTokenSet;

/// The most tokens per interval (what one element carries).
pub const MAX_TOKENS: usize = WireTokenSet::MAX_TOKENS;

/// One published set of tokens, with a used flag per token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenSet {
    tokens: [u32; MAX_TOKENS],
    len: usize,
    used: u64,
}

impl TokenSet {
    /// The empty set (before the first interval).
    pub const EMPTY: TokenSet = TokenSet {
        tokens: [0; MAX_TOKENS],
        len: 0,
        used: 0,
    };

    fn draw<R: CryptoRng + ?Sized>(n: usize, rng: &mut R) -> TokenSet {
        let mut s = TokenSet::EMPTY;
        let n = n.min(MAX_TOKENS);
        // Distinct tokens; a generator that keeps repeating itself yields a
        // smaller set instead of a hang.
        for _ in 0..n.saturating_mul(4) {
            if s.len == n {
                break;
            }
            let t = rng.next_u32();
            if !s.as_slice().contains(&t) {
                s.tokens[s.len] = t;
                s.len += 1;
            }
        }
        s
    }

    /// The tokens.
    pub fn as_slice(&self) -> &[u32] {
        self.tokens.get(..self.len).unwrap_or(&[])
    }

    fn position(&self, token: u32) -> Option<usize> {
        self.as_slice().iter().position(|&t| t == token)
    }

    /// Number of tokens not yet used.
    pub fn unused(&self) -> usize {
        self.len - (self.used.count_ones() as usize).min(self.len)
    }
}

/// Θ_t, Θ_{t-1} and Θ_{t-2} with the interval index t.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenSchedule {
    per_interval: usize,
    interval: u32,
    current: TokenSet,
    previous: TokenSet,
    older: TokenSet,
}

impl TokenSchedule {
    /// Starts interval 0 with a fresh Θ_0 of `per_interval` tokens (at most
    /// [`MAX_TOKENS`]).
    pub fn new<R: CryptoRng + ?Sized>(per_interval: usize, rng: &mut R) -> TokenSchedule {
        let per_interval = per_interval.min(MAX_TOKENS);
        TokenSchedule {
            per_interval,
            interval: 0,
            current: TokenSet::draw(per_interval, rng),
            previous: TokenSet::EMPTY,
            older: TokenSet::EMPTY,
        }
    }

    /// Moves to interval t+1 with a fresh set.
    pub fn rotate<R: CryptoRng + ?Sized>(&mut self, rng: &mut R) {
        self.older = self.previous;
        self.previous = self.current;
        self.current = TokenSet::draw(self.per_interval, rng);
        self.interval = self.interval.wrapping_add(1);
    }

    /// The interval index t.
    pub const fn interval(&self) -> u32 {
        self.interval
    }

    /// Θ_t, being published.
    pub const fn current(&self) -> &TokenSet {
        &self.current
    }

    /// Θ_{t-1}, being accepted.
    pub const fn previous(&self) -> &TokenSet {
        &self.previous
    }

    fn classify(&self, token: u32) -> Error {
        if self.current.position(token).is_some() || self.older.position(token).is_some() {
            Error::TokenWrongInterval
        } else {
            Error::UnknownToken
        }
    }

    /// The DoS-protection rule: `token` must be an unused token of Θ_{t-1};
    /// it is marked used.
    pub fn redeem(&mut self, token: u32) -> Result<(), Error> {
        match self.previous.position(token) {
            Some(i) => take(&mut self.previous, i),
            None => Err(self.classify(token)),
        }
    }

    /// The freshness rule for re-keying a live session without DoS
    /// protection: an unused token of Θ_{t-1} or Θ_t; it is marked used.
    pub fn redeem_recent(&mut self, token: u32) -> Result<(), Error> {
        if let Some(i) = self.previous.position(token) {
            take(&mut self.previous, i)
        } else if let Some(i) = self.current.position(token) {
            take(&mut self.current, i)
        } else if self.older.position(token).is_some() {
            Err(Error::TokenWrongInterval)
        } else {
            Err(Error::UnknownToken)
        }
    }
}

fn take(set: &mut TokenSet, i: usize) -> Result<(), Error> {
    let bit = 1u64 << i;
    if set.used & bit != 0 {
        return Err(Error::ReusedToken);
    }
    set.used |= bit;
    Ok(())
}

/// The token sets a station (or an attacker playing one) has read in the
/// AP's beacons: the last three intervals, with the tokens not yet spent.
/// A request must carry an unspent token of Θ_{t-1} while Θ_t is being
/// published (seed 003, 4.1), which [`ObservedTokens::take`] hands out.
#[derive(Debug, Clone)]
pub struct ObservedTokens {
    /// (interval counter, tokens, how many of them are unspent), oldest
    /// first; `len` entries are in use.
    sets: [(u8, [u32; WireTokenSet::MAX_TOKENS], usize); 3],
    len: usize,
}

impl Default for ObservedTokens {
    fn default() -> Self {
        Self::new()
    }
}

impl ObservedTokens {
    /// No token set seen yet.
    pub const fn new() -> ObservedTokens {
        ObservedTokens {
            sets: [(0, [0; WireTokenSet::MAX_TOKENS], 0); 3],
            len: 0,
        }
    }

    /// Records a published set unless its interval was already seen; the
    /// oldest of three is forgotten.
    pub fn observe(&mut self, set: &WireTokenSet<'_>) {
        if self.sets[..self.len]
            .iter()
            .any(|(i, _, _)| *i == set.interval)
        {
            return;
        }
        if self.len == self.sets.len() {
            self.sets.rotate_left(1);
            self.len -= 1;
        }
        let (interval, tokens, n) = &mut self.sets[self.len];
        *interval = set.interval;
        *n = 0;
        for (slot, t) in tokens.iter_mut().zip(set.iter()) {
            *slot = t;
            *n += 1;
        }
        self.len += 1;
    }

    /// Spends an unspent token of the previous set (Θ_{t-1}, the set the
    /// AP accepts now), the one at `choose(count)` among them (the
    /// caller's randomness). `None` while fewer than two sets were seen or
    /// the previous set is used up.
    pub fn take(&mut self, choose: impl FnOnce(usize) -> usize) -> Option<u32> {
        let (_, tokens, n) = self.sets[..self.len].iter_mut().rev().nth(1)?;
        if *n == 0 {
            return None;
        }
        // Remove by moving the last unspent token into the hole.
        let i = choose(*n) % *n;
        let t = tokens[i];
        tokens[i] = tokens[*n - 1];
        *n -= 1;
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counter(u32);
    impl rand_core::TryRng for Counter {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            self.0 = self.0.wrapping_mul(747796405).wrapping_add(2891336453);
            Ok(self.0)
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            Ok(u64::from(self.try_next_u32()?) << 32 | u64::from(self.try_next_u32()?))
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
            for b in dst {
                *b = self.try_next_u32()? as u8;
            }
            Ok(())
        }
    }
    impl rand_core::TryCryptoRng for Counter {}

    struct Stuck;
    impl rand_core::TryRng for Stuck {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Ok(7)
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            Ok(7)
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
            dst.fill(7);
            Ok(())
        }
    }
    impl rand_core::TryCryptoRng for Stuck {}

    #[test]
    fn acceptance_phase_rules() {
        let mut rng = Counter(1);
        let mut s = TokenSchedule::new(10, &mut rng);
        let t0 = s.current().as_slice()[3];
        // Θ_0 is being published: too early.
        assert_eq!(s.redeem(t0), Err(Error::TokenWrongInterval));
        s.rotate(&mut rng);
        assert_eq!(s.interval(), 1);
        assert_eq!(s.redeem(t0), Ok(()));
        assert_eq!(s.redeem(t0), Err(Error::ReusedToken));
        assert_eq!(s.previous().unused(), 9);
        let t0b = s.previous().as_slice()[4];
        s.rotate(&mut rng);
        // Θ_0 is now Θ_{t-2}: too late.
        assert_eq!(s.redeem(t0b), Err(Error::TokenWrongInterval));
        s.rotate(&mut rng);
        assert_eq!(s.redeem(t0b), Err(Error::UnknownToken));
        assert_eq!(s.redeem(0x1234_5678), Err(Error::UnknownToken));
    }

    #[test]
    fn recent_rule_and_sizes() {
        let mut rng = Counter(9);
        let mut s = TokenSchedule::new(100, &mut rng);
        assert_eq!(s.current().as_slice().len(), MAX_TOKENS);
        let cur = s.current().as_slice()[61];
        assert_eq!(s.redeem_recent(cur), Ok(()));
        assert_eq!(s.redeem_recent(cur), Err(Error::ReusedToken));
        s.rotate(&mut rng);
        assert_eq!(s.redeem(cur), Err(Error::ReusedToken));
        let s1 = TokenSchedule::new(5, &mut Stuck);
        assert_eq!(s1.current().as_slice(), &[7]);
    }

    #[test]
    fn observed_tokens_hand_out_the_previous_set_once() {
        use wisec_wire::discosec::TokenSetRepr;
        let emit = |interval: u8, tokens: &[u32]| {
            let mut buf = [0u8; 300];
            let n = TokenSetRepr {
                flags: 0,
                interval,
                counter: 0,
                tokens,
            }
            .emit(&mut buf)
            .unwrap();
            (buf, n)
        };
        let mut o = ObservedTokens::new();
        let (b1, n1) = emit(1, &[10, 11, 12]);
        o.observe(&WireTokenSet::parse(&b1[6..n1]).unwrap());
        assert_eq!(o.take(|_| 0), None, "only one set seen");
        let (b2, n2) = emit(2, &[20]);
        let s2 = WireTokenSet::parse(&b2[6..n2]).unwrap();
        o.observe(&s2);
        o.observe(&s2);
        assert_eq!(o.take(|n| n - 1), Some(12));
        assert_eq!(o.take(|_| 0), Some(10));
        assert_eq!(o.take(|_| 0), Some(11));
        assert_eq!(o.take(|_| 0), None, "set 1 used up");
        let (b3, n3) = emit(3, &[30]);
        let (b4, n4) = emit(4, &[40]);
        o.observe(&WireTokenSet::parse(&b3[6..n3]).unwrap());
        o.observe(&WireTokenSet::parse(&b4[6..n4]).unwrap());
        assert_eq!(o.take(|_| 0), Some(30));
    }
}
