//! The DiscoSec station.

use super::frames::{self, EventQueue, Ssid, TxQueue};
use super::keys::{KeyPair, MasterKey, PublicPoint};
use super::session::{Session, Verified, DEFAULT_WINDOW};
use super::tokens::MAX_TOKENS;
use super::{Curve, Error};
use crate::time::Instant;
use core::time::Duration;
use rand_core::CryptoRng;
use wisec_wire::discosec::{AuthMode, DiscoElement, DiscoInfo, PublicKeyElement};
use wisec_wire::mgmt::{AuthAlgorithm, CapabilityInfo, MgmtFrame, MgmtSubtype};
use wisec_wire::{MacAddr, ReasonCode, StatusCode};

const TX_QUEUE: usize = 4;
const EVENTS: usize = 16;
const CACHE: usize = 4;

/// Station configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaConfig {
    /// The station's address.
    pub addr: MacAddr,
    /// The SSID to ask for.
    pub ssid: Ssid,
    /// Behave as a legacy station: no DiscoSec elements, no MAC.
    pub legacy: bool,
    /// Refuse an AP that does not advertise DiscoSec (default on: a forged
    /// beacon without the elements must not downgrade the station).
    pub require_discosec: bool,
    /// Keep a static key pair and cache MK per AP, so that re-associating
    /// costs one hash instead of an ECDH (seed 003, 3.3; default on).
    pub key_caching: bool,
    /// SEQ window (default 10).
    pub window: u32,
    /// How long to wait for a probe, authentication or association
    /// response before retrying (default 200 ms).
    pub response_timeout: Duration,
    /// Attempts before giving up (default 8).
    pub max_attempts: u8,
}

impl StaConfig {
    /// Defaults for this address and SSID; `None` for an SSID longer than
    /// 32 octets.
    pub fn new(addr: MacAddr, ssid: &[u8]) -> Option<StaConfig> {
        Some(StaConfig {
            addr,
            ssid: Ssid::new(ssid)?,
            legacy: false,
            require_discosec: true,
            key_caching: true,
            window: DEFAULT_WINDOW,
            response_timeout: Duration::from_millis(200),
            max_attempts: 8,
        })
    }
}

/// Where the station is (IEEE Std 802.11-2020, 11.3.1 states, with the
/// DiscoSec waiting step).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaState {
    /// Not connected, not trying.
    Idle,
    /// Waiting for a beacon or probe response of the target AP.
    Scanning,
    /// Holding a token of Θ_t, waiting for interval t+1 (seed 003, 4.1).
    WaitingInterval,
    /// Authentication request sent.
    Authenticating,
    /// Authenticated (state 2), association request not yet sent.
    Authenticated,
    /// Association request sent.
    Associating,
    /// Associated (state 3).
    Associated,
}

/// What happened at the station.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaEvent {
    /// Authenticated with the AP.
    Authenticated {
        /// The AP.
        bssid: MacAddr,
        /// With a DiscoSec session.
        protected: bool,
    },
    /// Associated.
    Associated {
        /// The AP.
        bssid: MacAddr,
        /// AID.
        aid: u16,
    },
    /// The AP deauthenticated the station (verified, or legacy).
    Deauthenticated {
        /// The AP.
        bssid: MacAddr,
        /// Its reason.
        reason: ReasonCode,
    },
    /// The AP disassociated the station.
    Disassociated {
        /// The AP.
        bssid: MacAddr,
        /// Its reason.
        reason: ReasonCode,
    },
    /// One attempt failed (a refusal, with its status, or a timeout); the
    /// station retries.
    AttemptFailed {
        /// The refusal's status, `None` for a timeout.
        status: Option<StatusCode>,
    },
    /// The station gave up after `max_attempts`, or the AP does not offer
    /// DiscoSec and the configuration requires it.
    Failed,
}

/// Counters for experiments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StaStats {
    /// ECDH operations performed.
    pub ecdh_ops: u64,
    /// Key exchanges served from the MK cache.
    pub key_cache_hits: u64,
    /// Authentication attempts started.
    pub attempts: u64,
    /// Frames refused by `handle_rx`.
    pub rejected: u64,
}

struct ApInfo {
    pk: Option<PublicPoint>,
    dos: bool,
    mode: AuthMode,
    tokens: [u32; MAX_TOKENS],
    ntokens: usize,
    interval: u8,
    counter: u8,
    beacon_interval: Duration,
}

struct CacheEntry {
    bssid: MacAddr,
    pk_ap: PublicPoint,
    mk: MasterKey,
}

/// A DiscoSec station. Randomness comes from `R`, time from the caller.
pub struct Sta<R> {
    cfg: StaConfig,
    rng: R,
    state: StaState,
    bssid: Option<MacAddr>,
    ap: Option<ApInfo>,
    static_key: Option<KeyPair>,
    cache: [Option<CacheEntry>; CACHE],
    cache_next: usize,
    session: Option<Session>,
    token: u32,
    token_interval: u8,
    deadline: Option<Instant>,
    attempts: u8,
    seq_num: u16,
    txq: TxQueue<TX_QUEUE>,
    events: EventQueue<StaEvent, EVENTS>,
    stats: StaStats,
}

impl<R> core::fmt::Debug for Sta<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sta")
            .field("cfg", &self.cfg)
            .field("state", &self.state)
            .field("bssid", &self.bssid)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

type FrameResult = Result<(), Error>;

impl<R: CryptoRng> Sta<R> {
    /// A station in state Idle.
    pub fn new(cfg: StaConfig, rng: R) -> Sta<R> {
        Sta {
            cfg,
            rng,
            state: StaState::Idle,
            bssid: None,
            ap: None,
            static_key: None,
            cache: core::array::from_fn(|_| None),
            cache_next: 0,
            session: None,
            token: 0,
            token_interval: 0,
            deadline: None,
            attempts: 0,
            seq_num: 0,
            txq: TxQueue::new(),
            events: EventQueue::new(),
            stats: StaStats::default(),
        }
    }

    /// A station with a static key pair loaded from storage (implies key
    /// caching for that key's curve).
    pub fn with_static_key(mut cfg: StaConfig, key: KeyPair, rng: R) -> Sta<R> {
        cfg.key_caching = true;
        let mut s = Sta::new(cfg, rng);
        s.static_key = Some(key);
        s
    }

    /// The state.
    pub fn state(&self) -> StaState {
        self.state
    }

    /// Counters.
    pub fn stats(&self) -> &StaStats {
        &self.stats
    }

    /// The configuration.
    pub fn config(&self) -> &StaConfig {
        &self.cfg
    }

    /// The session, when authenticated with DiscoSec.
    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// The static public key, if any.
    pub fn static_public_key(&self) -> Option<&PublicPoint> {
        self.static_key.as_ref().map(|k| k.public())
    }

    /// The next frame to send.
    pub fn poll_transmit(&mut self) -> Option<&[u8]> {
        self.txq.pop()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<StaEvent> {
        self.events.pop()
    }

    /// When [`Sta::handle_timeout`] must be called next.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.deadline
    }

    /// Starts connecting to `bssid` (from Idle or after a failure).
    pub fn connect(&mut self, now: Instant, bssid: MacAddr) {
        if self.bssid != Some(bssid) {
            self.ap = None;
        }
        self.bssid = Some(bssid);
        self.session = None;
        self.attempts = 0;
        self.start_attempt(now);
    }

    /// Sends an authenticated Deauthentication to the AP and returns to
    /// Idle.
    pub fn disconnect(&mut self, reason: ReasonCode) -> FrameResult {
        let bssid = self.bssid.ok_or(Error::NotAuthenticated)?;
        if !matches!(
            self.state,
            StaState::Authenticated | StaState::Associating | StaState::Associated
        ) {
            return Err(Error::NotAuthenticated);
        }
        let r = self.queue(
            MgmtSubtype::Deauthentication,
            bssid,
            &reason.0.to_le_bytes(),
            false,
        );
        self.state = StaState::Idle;
        self.session = None;
        self.deadline = None;
        r
    }

    fn fail(&mut self) {
        self.state = StaState::Idle;
        self.session = None;
        self.deadline = None;
        self.events.push(StaEvent::Failed);
    }

    fn start_attempt(&mut self, now: Instant) {
        self.session = None;
        if self.attempts >= self.cfg.max_attempts {
            self.fail();
            return;
        }
        self.attempts += 1;
        self.stats.attempts += 1;
        self.state = StaState::Scanning;
        self.deadline = Some(now + self.cfg.response_timeout);
        if self.ap.is_some() {
            self.begin(now);
        } else if let Some(bssid) = self.bssid {
            let _ = self.queue(MgmtSubtype::ProbeRequest, bssid, &[], true);
        }
    }

    /// With the AP's parameters known: pick a token and send (or wait for
    /// the next interval when the AP enforces tokens).
    fn begin(&mut self, now: Instant) {
        let Some(ap) = self.ap.as_ref() else { return };
        let Some(bssid) = self.bssid else { return };
        if self.cfg.legacy || ap.pk.is_none() {
            if !self.cfg.legacy && self.cfg.require_discosec {
                self.fail();
                return;
            }
            let fixed = auth_fixed(1, StatusCode::SUCCESS);
            let _ = self.queue(MgmtSubtype::Authentication, bssid, &fixed, false);
            self.state = StaState::Authenticating;
            self.deadline = Some(now + self.cfg.response_timeout);
            return;
        }
        if ap.ntokens == 0 {
            // No token published yet: wait for the next beacon.
            self.state = StaState::Scanning;
            return;
        }
        let i = (self.rng.next_u32() as usize) % ap.ntokens;
        self.token = ap.tokens.get(i).copied().unwrap_or(0);
        self.token_interval = ap.interval;
        if ap.dos {
            // Seed 003, 4.1: wait until the beacons signal t+1; the timer
            // is only a fallback for a missed beacon.
            self.state = StaState::WaitingInterval;
            let wait = ap.beacon_interval * (u32::from(ap.counter) + 2);
            self.deadline = Some(now + wait);
        } else {
            self.send_auth(now);
        }
    }

    fn send_auth(&mut self, now: Instant) {
        if let Err(e) = self.try_send_auth(now) {
            self.stats.rejected += 1;
            self.events.push(StaEvent::AttemptFailed { status: None });
            // A key the AP advertised that cannot be used: forget it and
            // scan again.
            let _ = e;
            self.ap = None;
            self.start_attempt(now);
        }
    }

    fn try_send_auth(&mut self, now: Instant) -> FrameResult {
        let bssid = self.bssid.ok_or(Error::NotAuthenticated)?;
        let pk_ap = self
            .ap
            .as_ref()
            .and_then(|a| a.pk)
            .ok_or(Error::MissingElement)?;
        let curve = pk_ap.curve();
        let ephemeral;
        let key = if self.cfg.key_caching {
            if self.static_key.as_ref().map(|k| k.curve()) != Some(curve) {
                self.static_key = Some(KeyPair::generate(curve, &mut self.rng));
                self.cache = core::array::from_fn(|_| None);
            }
            self.static_key.as_ref().ok_or(Error::InvalidKey)?
        } else {
            ephemeral = KeyPair::generate(curve, &mut self.rng);
            &ephemeral
        };
        let cached = self
            .cache
            .iter()
            .flatten()
            .find(|c| c.bssid == bssid && c.pk_ap == pk_ap)
            .map(|c| c.mk.clone());
        let mk = match cached {
            Some(mk) if self.cfg.key_caching => {
                self.stats.key_cache_hits += 1;
                mk
            }
            _ => {
                self.stats.ecdh_ops += 1;
                let mk = key.agree(pk_ap.as_bytes())?;
                if self.cfg.key_caching {
                    let slot = self.cache_next % CACHE;
                    self.cache_next = self.cache_next.wrapping_add(1);
                    self.cache[slot] = Some(CacheEntry {
                        bssid,
                        pk_ap,
                        mk: mk.clone(),
                    });
                }
                mk
            }
        };
        let sk = mk.session_key(self.token);
        drop(mk);
        // The AP chooses the mode and announces it in its token set.
        let mode = self.ap.as_ref().map_or(AuthMode::Fast, |a| a.mode);
        let mut session = Session::new(&sk, self.token, mode, self.cfg.window)?;
        let pk = *key.public();
        let token = self.token;
        let fixed = auth_fixed(1, StatusCode::SUCCESS);
        let seq = self.next_seq();
        let own = self.cfg.addr;
        self.txq.push(|b| {
            let n = frames::mgmt_header(
                b,
                MgmtSubtype::Authentication,
                bssid,
                own,
                bssid,
                seq,
                &fixed,
            )?;
            let e = DiscoElement::PkSta(PublicKeyElement {
                group: curve.group(),
                point: pk.as_bytes(),
            });
            let n = frames::push(b, n, |b| e.emit(b))?;
            let n = frames::push(b, n, |b| DiscoElement::Token(token).emit(b))?;
            session.seal(b, n)
        })?;
        self.session = Some(session);
        self.state = StaState::Authenticating;
        self.deadline = Some(now + self.cfg.response_timeout);
        Ok(())
    }

    fn next_seq(&mut self) -> u16 {
        let s = self.seq_num;
        self.seq_num = (self.seq_num + 1) & 0x0fff;
        s
    }

    fn queue(
        &mut self,
        subtype: MgmtSubtype,
        bssid: MacAddr,
        fixed: &[u8],
        ssid_rates: bool,
    ) -> FrameResult {
        let seq = self.next_seq();
        let own = self.cfg.addr;
        let ssid = self.cfg.ssid;
        let session = self.session.as_mut();
        self.txq.push(|b| {
            let mut n = frames::mgmt_header(b, subtype, bssid, own, bssid, seq, fixed)?;
            if ssid_rates {
                n = frames::ssid_rates(b, n, ssid.as_bytes())?;
            }
            match session {
                Some(s) if subtype != MgmtSubtype::ProbeRequest => s.seal(b, n),
                _ => Ok(n),
            }
        })
    }

    /// Handles one received management frame.
    pub fn handle_rx(&mut self, now: Instant, frame: &[u8]) -> FrameResult {
        let r = self.rx(now, frame);
        if r.is_err() {
            self.stats.rejected += 1;
        }
        r
    }

    fn rx(&mut self, now: Instant, frame: &[u8]) -> FrameResult {
        let f = MgmtFrame::new_checked(frame)?;
        let h = f.header();
        let Some(bssid) = self.bssid else {
            return Err(Error::NotForUs);
        };
        let a1 = h.addr1();
        if h.addr2() != Some(bssid) || (a1 != self.cfg.addr && !a1.is_broadcast()) {
            return Err(Error::NotForUs);
        }
        if f.frame_control().protected() {
            return Err(Error::UnexpectedFrame);
        }
        match f.subtype() {
            MgmtSubtype::Beacon | MgmtSubtype::ProbeResponse => self.rx_beacon(now, &f),
            _ if a1 != self.cfg.addr => Err(Error::NotForUs),
            MgmtSubtype::Authentication => self.rx_auth(now, &f, bssid),
            MgmtSubtype::AssocResponse | MgmtSubtype::ReassocResponse => {
                self.rx_assoc(now, &f, bssid)
            }
            MgmtSubtype::Deauthentication | MgmtSubtype::Disassociation => {
                self.rx_leave(&f, bssid, f.subtype() == MgmtSubtype::Deauthentication)
            }
            _ => Err(Error::UnexpectedFrame),
        }
    }

    fn rx_beacon(&mut self, now: Instant, f: &MgmtFrame<&[u8]>) -> FrameResult {
        let info = DiscoInfo::parse(f.variable())?;
        let pk = match info.pk_ap {
            Some(k) => {
                let curve = Curve::from_group(k.group).ok_or(Error::UnsupportedGroup)?;
                Some(PublicPoint::from_sec1(curve, k.point)?)
            }
            None => None,
        };
        let mut ap = ApInfo {
            pk,
            dos: false,
            mode: AuthMode::Fast,
            tokens: [0; MAX_TOKENS],
            ntokens: 0,
            interval: 0,
            counter: 0,
            beacon_interval: Duration::from_micros(
                u64::from(f.beacon_interval().unwrap_or(100).max(1)) * 1024,
            ),
        };
        if let Some(ts) = info.token_set {
            ap.dos = ts.dos_protection();
            ap.mode = ts.mode();
            ap.interval = ts.interval;
            ap.counter = ts.counter;
            for (slot, t) in ap.tokens.iter_mut().zip(ts.iter()) {
                *slot = t;
                ap.ntokens += 1;
            }
        }
        let new_interval = ap.interval != self.token_interval;
        self.ap = Some(ap);
        match self.state {
            StaState::Scanning => self.begin(now),
            StaState::WaitingInterval if new_interval => self.send_auth(now),
            _ => {}
        }
        Ok(())
    }

    fn rx_auth(&mut self, now: Instant, f: &MgmtFrame<&[u8]>, bssid: MacAddr) -> FrameResult {
        if self.state != StaState::Authenticating || f.auth_seq() != Some(2) {
            return Err(Error::UnexpectedFrame);
        }
        let status = f.status_code().unwrap_or(StatusCode::UNSPECIFIED_FAILURE);
        if let Some(s) = self.session.as_mut() {
            match s.open(f.as_bytes()) {
                Ok(_) => {}
                // An unauthenticated refusal cannot be told from a forged
                // one; it only ends this attempt early (the AP, when it
                // refuses for cause, is silent anyway).
                Err(Error::LegacyFrame) if !status.is_success() => {
                    self.events.push(StaEvent::AttemptFailed {
                        status: Some(status),
                    });
                    self.start_attempt(now);
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        }
        if !status.is_success() {
            self.events.push(StaEvent::AttemptFailed {
                status: Some(status),
            });
            self.start_attempt(now);
            return Ok(());
        }
        self.state = StaState::Authenticated;
        self.events.push(StaEvent::Authenticated {
            bssid,
            protected: self.session.is_some(),
        });
        let mut fixed = [0u8; 4];
        fixed[..2].copy_from_slice(&CapabilityInfo::ESS.to_le_bytes());
        fixed[2..].copy_from_slice(&10u16.to_le_bytes());
        self.queue(MgmtSubtype::AssocRequest, bssid, &fixed, true)?;
        self.state = StaState::Associating;
        self.deadline = Some(now + self.cfg.response_timeout);
        Ok(())
    }

    fn rx_assoc(&mut self, now: Instant, f: &MgmtFrame<&[u8]>, bssid: MacAddr) -> FrameResult {
        if self.state != StaState::Associating {
            return Err(Error::UnexpectedFrame);
        }
        if let Some(s) = self.session.as_mut() {
            s.open(f.as_bytes())?;
        }
        let status = f.status_code().unwrap_or(StatusCode::UNSPECIFIED_FAILURE);
        if !status.is_success() {
            self.events.push(StaEvent::AttemptFailed {
                status: Some(status),
            });
            self.start_attempt(now);
            return Ok(());
        }
        let aid = wisec_wire::mgmt::aid_value(f.aid().unwrap_or(0));
        self.state = StaState::Associated;
        self.deadline = None;
        self.events.push(StaEvent::Associated { bssid, aid });
        Ok(())
    }

    fn rx_leave(&mut self, f: &MgmtFrame<&[u8]>, bssid: MacAddr, deauth: bool) -> FrameResult {
        if !matches!(
            self.state,
            StaState::Authenticated | StaState::Associating | StaState::Associated
        ) {
            return Err(Error::NotAuthenticated);
        }
        if let Some(s) = self.session.as_mut() {
            s.open(f.as_bytes())?;
        }
        let reason = f.reason_code().unwrap_or(ReasonCode::UNSPECIFIED);
        if deauth {
            self.state = StaState::Idle;
            self.session = None;
            self.deadline = None;
            self.events
                .push(StaEvent::Deauthenticated { bssid, reason });
        } else {
            self.state = StaState::Authenticated;
            self.events.push(StaEvent::Disassociated { bssid, reason });
        }
        Ok(())
    }

    /// Retries, gives up, or sends the waiting authentication request.
    pub fn handle_timeout(&mut self, now: Instant) {
        let Some(d) = self.deadline else { return };
        if d > now {
            return;
        }
        self.deadline = None;
        match self.state {
            StaState::WaitingInterval => self.send_auth(now),
            StaState::Scanning | StaState::Authenticating | StaState::Associating => {
                if self.state != StaState::Scanning {
                    self.events.push(StaEvent::AttemptFailed { status: None });
                }
                self.start_attempt(now);
            }
            _ => {}
        }
    }

    /// Appends the SEQ+MAC trailer to the data frame `buf[..len]`.
    pub fn seal_data(&mut self, buf: &mut [u8], len: usize) -> Result<usize, Error> {
        self.session
            .as_mut()
            .ok_or(Error::NotAuthenticated)?
            .seal(buf, len)
    }

    /// Verifies the trailer of a data frame from the AP.
    pub fn open_data(&mut self, frame: &[u8]) -> Result<Verified, Error> {
        self.session
            .as_mut()
            .ok_or(Error::NotAuthenticated)?
            .open(frame)
    }
}

fn auth_fixed(seq: u16, status: StatusCode) -> [u8; 6] {
    let mut f = [0u8; 6];
    f[..2].copy_from_slice(&AuthAlgorithm::OpenSystem.to_u16().to_le_bytes());
    f[2..4].copy_from_slice(&seq.to_le_bytes());
    f[4..].copy_from_slice(&status.0.to_le_bytes());
    f
}
