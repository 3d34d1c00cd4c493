//! The DiscoSec access point.

use super::frames::{self, EventQueue, Ssid, TxQueue, MAX_FRAME};
use super::keys::{Curve, KeyPair, MasterKey, PublicPoint};
use super::session::{self, Session, Verified, DEFAULT_WINDOW};
use super::tokens::{TokenSchedule, MAX_TOKENS};
use super::Error;
use crate::time::Instant;
use core::time::Duration;
use rand_core::CryptoRng;
use wisec_wire::discosec::{
    AuthMode, DiscoElement, DiscoInfo, PublicKeyElement, TokenSet, TokenSetRepr,
};
use wisec_wire::mgmt::{AuthAlgorithm, CapabilityInfo, MgmtFrame, MgmtSubtype};
use wisec_wire::{MacAddr, ReasonCode, StatusCode};

const TX_QUEUE: usize = 16;
const EVENTS: usize = 32;
/// One time unit (IEEE Std 802.11-2020, 3.1: 1024 µs).
const TU_US: u64 = 1024;

/// AP configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApConfig {
    /// The BSSID (the AP's address).
    pub bssid: MacAddr,
    /// The SSID.
    pub ssid: Ssid,
    /// The curve of the AP's key pair (EC_Param).
    pub curve: Curve,
    /// `full_auth` or `fast_auth`.
    pub mode: AuthMode,
    /// SEQ window (default 10).
    pub window: u32,
    /// Advertise and run DiscoSec; when false the AP is a plain open AP
    /// and every station is legacy.
    pub discosec: bool,
    /// DoS protection: accept authentication only with an unused token of
    /// Θ_{t-1}, checked before any ECDH; refuse legacy stations.
    pub dos_protection: bool,
    /// Tokens per interval (at most 62; default 10).
    pub tokens_per_interval: usize,
    /// Beacons per token interval (default 10: with 100 TU beacons, about
    /// one interval per second, the paper's setting).
    pub beacons_per_interval: u8,
    /// Beacon interval in TU (default 100).
    pub beacon_interval_tu: u16,
    /// How long an authenticated station that has not associated keeps its
    /// entry (default 5 s).
    pub auth_timeout: Duration,
    /// How long an associated station may stay silent (no verified frame)
    /// before its entry is dropped (default 300 s). Until then a request
    /// with another key for its address is refused.
    pub inactivity_timeout: Duration,
    /// Cache MK per PK_STA so a returning station with a static key costs
    /// one hash instead of an ECDH (default on).
    pub key_cache: bool,
}

impl ApConfig {
    /// Defaults for this BSSID and SSID; `None` for an SSID longer than 32
    /// octets.
    pub fn new(bssid: MacAddr, ssid: &[u8]) -> Option<ApConfig> {
        Some(ApConfig {
            bssid,
            ssid: Ssid::new(ssid)?,
            curve: Curve::P256,
            mode: AuthMode::Fast,
            window: DEFAULT_WINDOW,
            discosec: true,
            dos_protection: true,
            tokens_per_interval: 10,
            beacons_per_interval: 10,
            beacon_interval_tu: 100,
            auth_timeout: Duration::from_secs(5),
            inactivity_timeout: Duration::from_secs(300),
            key_cache: true,
        })
    }

    /// The beacon interval.
    pub fn beacon_interval(&self) -> Duration {
        Duration::from_micros(u64::from(self.beacon_interval_tu.max(1)) * TU_US)
    }

    /// The length of one token interval.
    pub fn token_interval(&self) -> Duration {
        self.beacon_interval() * u32::from(self.beacons_per_interval.max(1))
    }
}

/// What happened at the AP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApEvent {
    /// A station authenticated (`protected`: with a DiscoSec session).
    Authenticated {
        /// The station.
        sta: MacAddr,
        /// True with DiscoSec, false for a legacy station.
        protected: bool,
    },
    /// A station associated.
    Associated {
        /// The station.
        sta: MacAddr,
        /// Its AID.
        aid: u16,
    },
    /// A station deauthenticated itself (its frame verified, or it is
    /// legacy).
    Deauthenticated {
        /// The station.
        sta: MacAddr,
        /// Reason it gave.
        reason: ReasonCode,
    },
    /// A station disassociated itself.
    Disassociated {
        /// The station.
        sta: MacAddr,
        /// Reason it gave.
        reason: ReasonCode,
    },
    /// A station's entry timed out: authenticated but not associated
    /// within `auth_timeout`, or silent for `inactivity_timeout`.
    Expired {
        /// The station.
        sta: MacAddr,
    },
    /// A new token interval began.
    IntervalStarted {
        /// The interval index t.
        interval: u32,
    },
}

/// Counters for experiments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApStats {
    /// ECDH operations performed.
    pub ecdh_ops: u64,
    /// Requests served from the MK cache.
    pub key_cache_hits: u64,
    /// Beacons built.
    pub beacons: u64,
    /// Successful authentications.
    pub authenticated: u64,
    /// Successful associations.
    pub associated: u64,
    /// Frames refused by `handle_rx`.
    pub rejected: u64,
    /// Frames dropped because the transmit queue was full.
    pub tx_dropped: u64,
    /// The most station entries held at once.
    pub peak_entries: usize,
}

/// What the AP knows about one station.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaInfo {
    /// Address.
    pub addr: MacAddr,
    /// Associated (else only authenticated).
    pub associated: bool,
    /// With a DiscoSec session (else legacy).
    pub protected: bool,
    /// AID when associated.
    pub aid: u16,
}

struct Entry {
    addr: MacAddr,
    associated: bool,
    aid: u16,
    session: Option<Session>,
    pk: Option<PublicPoint>,
    last_seen: Instant,
}

impl Entry {
    fn expires(&self, cfg: &ApConfig) -> Instant {
        self.last_seen
            + if self.associated {
                cfg.inactivity_timeout
            } else {
                cfg.auth_timeout
            }
    }
}

struct CacheEntry {
    pk: PublicPoint,
    mk: MasterKey,
    last_used: Instant,
}

/// A DiscoSec access point with room for `N` stations and `K` cached
/// master keys. Randomness comes from `R`, time from the caller.
pub struct Ap<R, const N: usize, const K: usize = 16> {
    cfg: ApConfig,
    rng: R,
    key: KeyPair,
    tokens: TokenSchedule,
    stations: [Option<Entry>; N],
    cache: [Option<CacheEntry>; K],
    next_beacon: Instant,
    beacon_idx: u8,
    seq_num: u16,
    txq: TxQueue<TX_QUEUE>,
    events: EventQueue<ApEvent, EVENTS>,
    stats: ApStats,
}

impl<R, const N: usize, const K: usize> core::fmt::Debug for Ap<R, N, K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ap")
            .field("cfg", &self.cfg)
            .field("public", self.key.public())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

type FrameResult = Result<(), Error>;

impl<R: CryptoRng, const N: usize, const K: usize> Ap<R, N, K> {
    /// Starts an AP with a fresh key pair on `cfg.curve`; the first beacon
    /// is due at `now`.
    pub fn new(now: Instant, cfg: ApConfig, mut rng: R) -> Ap<R, N, K> {
        let key = KeyPair::generate(cfg.curve, &mut rng);
        Self::with_key(now, cfg, key, rng)
    }

    /// Starts an AP with a key pair computed offline (seed 003, 3.3: "the
    /// AP's key pair can also be precomputed and loaded during start-up").
    /// `cfg.curve` is set to the key's curve.
    pub fn with_key(now: Instant, mut cfg: ApConfig, key: KeyPair, mut rng: R) -> Ap<R, N, K> {
        cfg.curve = key.curve();
        cfg.tokens_per_interval = cfg.tokens_per_interval.min(MAX_TOKENS);
        cfg.beacons_per_interval = cfg.beacons_per_interval.max(1);
        let tokens = TokenSchedule::new(cfg.tokens_per_interval, &mut rng);
        Ap {
            cfg,
            rng,
            key,
            tokens,
            stations: core::array::from_fn(|_| None),
            cache: core::array::from_fn(|_| None),
            next_beacon: now,
            beacon_idx: 0,
            seq_num: 0,
            txq: TxQueue::new(),
            events: EventQueue::new(),
            stats: ApStats::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ApConfig {
        &self.cfg
    }

    /// PK_AP.
    pub fn public_key(&self) -> &PublicPoint {
        self.key.public()
    }

    /// Counters.
    pub fn stats(&self) -> &ApStats {
        &self.stats
    }

    /// The token sets.
    pub fn tokens(&self) -> &TokenSchedule {
        &self.tokens
    }

    /// Station entries held now.
    pub fn entries(&self) -> usize {
        self.stations.iter().flatten().count()
    }

    /// What the AP knows about `addr`.
    pub fn station(&self, addr: MacAddr) -> Option<StaInfo> {
        self.stations
            .iter()
            .flatten()
            .find(|e| e.addr == addr)
            .map(|e| StaInfo {
                addr: e.addr,
                associated: e.associated,
                protected: e.session.is_some(),
                aid: e.aid,
            })
    }

    /// The next frame to send.
    pub fn poll_transmit(&mut self) -> Option<&[u8]> {
        self.txq.pop()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<ApEvent> {
        self.events.pop()
    }

    /// When [`Ap::handle_timeout`] must be called next.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let expiry = self
            .stations
            .iter()
            .flatten()
            .map(|e| e.expires(&self.cfg))
            .min();
        Some(match expiry {
            Some(t) => t.min(self.next_beacon),
            None => self.next_beacon,
        })
    }

    /// Sends due beacons (rotating the token sets at interval boundaries)
    /// and expires stations that authenticated but did not associate.
    pub fn handle_timeout(&mut self, now: Instant) {
        let bi = self.cfg.beacon_interval();
        // A caller that slept for long gets the rotations it missed (at
        // most three intervals' worth) and one beacon, not a burst.
        let max_slots = 3 * u32::from(self.cfg.beacons_per_interval) + 1;
        let mut slots = 0;
        while self.next_beacon <= now && slots < max_slots {
            if self.beacon_idx >= self.cfg.beacons_per_interval {
                self.tokens.rotate(&mut self.rng);
                self.beacon_idx = 0;
                self.events.push(ApEvent::IntervalStarted {
                    interval: self.tokens.interval(),
                });
            }
            if self.next_beacon + bi > now {
                let _ = self.queue_beacon(now, None);
            }
            self.beacon_idx += 1;
            self.next_beacon = self.next_beacon + bi;
            slots += 1;
        }
        if self.next_beacon <= now {
            self.next_beacon = now + bi;
        }
        for slot in self.stations.iter_mut() {
            if let Some(e) = slot {
                if e.expires(&self.cfg) <= now {
                    self.events.push(ApEvent::Expired { sta: e.addr });
                    *slot = None;
                }
            }
        }
    }

    /// Handles one received management frame (MAC header and body, no
    /// FCS). `Ok` when it was acted upon; otherwise what was wrong with
    /// it. A refused frame changes no state (other than marking a redeemed
    /// token used).
    pub fn handle_rx(&mut self, now: Instant, frame: &[u8]) -> FrameResult {
        let r = self.rx(now, frame);
        if r.is_err() {
            self.stats.rejected += 1;
        }
        self.stats.tx_dropped = self.txq.dropped;
        r
    }

    fn rx(&mut self, now: Instant, frame: &[u8]) -> FrameResult {
        let f = MgmtFrame::new_checked(frame)?;
        let h = f.header();
        let bssid = self.cfg.bssid;
        let sta = h
            .addr2()
            .ok_or(Error::Malformed(wisec_wire::Error::Truncated))?;
        if sta.is_group() || sta == bssid {
            return Err(Error::Malformed(wisec_wire::Error::Malformed));
        }
        if f.frame_control().protected() {
            return Err(Error::UnexpectedFrame);
        }
        match f.subtype() {
            MgmtSubtype::ProbeRequest => {
                let a1 = h.addr1();
                if a1 != bssid && !a1.is_broadcast() {
                    return Err(Error::NotForUs);
                }
                let ssid = f.elements().ssid().unwrap_or(&[]);
                if !ssid.is_empty() && ssid != self.cfg.ssid.as_bytes() {
                    return Err(Error::NotForUs);
                }
                self.queue_beacon(now, Some(sta))
            }
            st => {
                if h.addr1() != bssid || h.addr3() != Some(bssid) {
                    return Err(Error::NotForUs);
                }
                match st {
                    MgmtSubtype::Authentication => self.rx_auth(now, &f, sta),
                    MgmtSubtype::AssocRequest | MgmtSubtype::ReassocRequest => {
                        self.rx_assoc(now, &f, sta, st == MgmtSubtype::ReassocRequest)
                    }
                    MgmtSubtype::Deauthentication | MgmtSubtype::Disassociation => {
                        self.rx_leave(now, &f, sta, st == MgmtSubtype::Deauthentication)
                    }
                    _ => Err(Error::UnexpectedFrame),
                }
            }
        }
    }

    fn find(&self, sta: MacAddr) -> Option<usize> {
        self.stations
            .iter()
            .position(|e| e.as_ref().is_some_and(|e| e.addr == sta))
    }

    fn rx_auth(&mut self, now: Instant, f: &MgmtFrame<&[u8]>, sta: MacAddr) -> FrameResult {
        if f.auth_algorithm() != Some(AuthAlgorithm::OpenSystem) || f.auth_seq() != Some(1) {
            return Err(Error::UnexpectedFrame);
        }
        let existing = self.find(sta);
        let live = existing
            .and_then(|i| self.stations[i].as_ref())
            .is_some_and(|e| e.session.is_some());
        let info = if self.cfg.discosec {
            DiscoInfo::parse(f.variable())?
        } else {
            DiscoInfo::default()
        };
        if info.is_empty() {
            // A legacy station (IEEE Std 802.11-2020, 11.3.4.2 open system).
            if self.cfg.discosec && (self.cfg.dos_protection || live) {
                return Err(Error::LegacyFrame);
            }
            let i = self.slot_for(existing)?;
            self.stations[i] = Some(Entry {
                addr: sta,
                associated: false,
                aid: 0,
                session: None,
                pk: None,
                last_seen: now,
            });
            self.note_entries();
            self.stats.authenticated += 1;
            self.events.push(ApEvent::Authenticated {
                sta,
                protected: false,
            });
            return self.queue_auth_response(sta, None);
        }
        let (Some(pk), Some(at), Some(_), Some(_)) = (info.pk_sta, info.token, info.seq, info.mac)
        else {
            return Err(Error::MissingElement);
        };
        if pk.group != self.cfg.curve.group() {
            return Err(if Curve::from_group(pk.group).is_some() {
                Error::CurveMismatch
            } else {
                Error::UnsupportedGroup
            });
        }
        if live {
            let e = existing.and_then(|i| self.stations[i].as_ref());
            if e.and_then(|e| e.pk.as_ref()).map(|p| p.as_bytes()) != Some(pk.point) {
                return Err(Error::KeyMismatch);
            }
        }
        // Seed 003, 4.1: with DoS protection the token is checked, and
        // spent, before the AP does any expensive work.
        let slot = self.slot_for(existing)?;
        if self.cfg.dos_protection {
            self.tokens.redeem(at)?;
        }
        let mk = self.master_key(now, pk)?;
        let sk = mk.session_key(at);
        let mut session = Session::new(&sk, at, self.cfg.mode, self.cfg.window)?;
        let v = session.verify(f.as_bytes())?;
        if !self.cfg.dos_protection {
            // Without DoS protection the token is not checked before the
            // ECDH, but a token of a recent set is spent once used, and a
            // request that would replace a live session needs a fresh one:
            // otherwise a replayed request would bring its SK back with
            // SEQ reset.
            let r = self.tokens.redeem_recent(at);
            if live {
                r?;
            }
        }
        let point = PublicPoint::from_sec1(self.cfg.curve, pk.point)?;
        if self.cfg.key_cache {
            self.cache_insert(now, point, mk);
        }
        session.accept(v);
        self.stations[slot] = Some(Entry {
            addr: sta,
            associated: false,
            aid: 0,
            session: Some(session),
            pk: Some(point),
            last_seen: now,
        });
        self.note_entries();
        self.stats.authenticated += 1;
        self.events.push(ApEvent::Authenticated {
            sta,
            protected: true,
        });
        self.queue_auth_response(sta, Some(slot))
    }

    /// A free slot, or the station's own; `TableFull` otherwise.
    fn slot_for(&self, existing: Option<usize>) -> Result<usize, Error> {
        existing
            .or_else(|| self.stations.iter().position(|e| e.is_none()))
            .ok_or(Error::TableFull)
    }

    fn note_entries(&mut self) {
        let n = self.entries();
        self.stats.peak_entries = self.stats.peak_entries.max(n);
    }

    fn master_key(&mut self, now: Instant, pk: PublicKeyElement<'_>) -> Result<MasterKey, Error> {
        if self.cfg.key_cache {
            if let Some(c) = self
                .cache
                .iter_mut()
                .flatten()
                .find(|c| c.pk.as_bytes() == pk.point)
            {
                c.last_used = now;
                self.stats.key_cache_hits += 1;
                return Ok(c.mk.clone());
            }
        }
        self.stats.ecdh_ops += 1;
        self.key.agree(pk.point)
    }

    fn cache_insert(&mut self, now: Instant, pk: PublicPoint, mk: MasterKey) {
        if K == 0 {
            return;
        }
        if let Some(c) = self.cache.iter_mut().flatten().find(|c| c.pk == pk) {
            c.last_used = now;
            return;
        }
        let slot = self
            .cache
            .iter()
            .position(|c| c.is_none())
            .or_else(|| {
                self.cache
                    .iter()
                    .enumerate()
                    .filter_map(|(i, c)| c.as_ref().map(|c| (i, c.last_used)))
                    .min_by_key(|&(_, t)| t)
                    .map(|(i, _)| i)
            })
            .unwrap_or(0);
        if let Some(c) = self.cache.get_mut(slot) {
            *c = Some(CacheEntry {
                pk,
                mk,
                last_used: now,
            });
        }
    }

    /// The table index of `sta` once its frame `f` verified under the
    /// station's session (a legacy station has none to check).
    fn verified_station(&mut self, f: &MgmtFrame<&[u8]>, sta: MacAddr) -> Result<usize, Error> {
        let i = self.find(sta).ok_or(Error::NotAuthenticated)?;
        let Some(e) = self.stations[i].as_mut() else {
            return Err(Error::NotAuthenticated);
        };
        if let Some(s) = e.session.as_mut() {
            s.open(f.as_bytes())?;
        }
        Ok(i)
    }

    fn rx_assoc(
        &mut self,
        now: Instant,
        f: &MgmtFrame<&[u8]>,
        sta: MacAddr,
        reassoc: bool,
    ) -> FrameResult {
        let i = self.verified_station(f, sta)?;
        if self.stations[i].as_ref().is_some_and(|e| e.aid == 0) {
            let aid = (1..=2007u16)
                .find(|a| !self.stations.iter().flatten().any(|e| e.aid == *a))
                .ok_or(Error::TableFull)?;
            if let Some(e) = self.stations[i].as_mut() {
                e.aid = aid;
            }
        }
        let Some(e) = self.stations[i].as_mut() else {
            return Err(Error::NotAuthenticated);
        };
        e.associated = true;
        e.last_seen = now;
        let aid = e.aid;
        self.stats.associated += 1;
        self.events.push(ApEvent::Associated { sta, aid });
        let subtype = if reassoc {
            MgmtSubtype::ReassocResponse
        } else {
            MgmtSubtype::AssocResponse
        };
        let mut fixed = [0u8; 6];
        fixed[..2].copy_from_slice(&CapabilityInfo::ESS.to_le_bytes());
        fixed[2..4].copy_from_slice(&StatusCode::SUCCESS.0.to_le_bytes());
        fixed[4..6].copy_from_slice(&(aid | 0xc000).to_le_bytes());
        self.queue_to(i, subtype, &fixed, true)
    }

    fn rx_leave(
        &mut self,
        now: Instant,
        f: &MgmtFrame<&[u8]>,
        sta: MacAddr,
        deauth: bool,
    ) -> FrameResult {
        let i = self.verified_station(f, sta)?;
        let reason = f.reason_code().unwrap_or(ReasonCode::UNSPECIFIED);
        if deauth {
            self.stations[i] = None;
            self.events.push(ApEvent::Deauthenticated { sta, reason });
        } else {
            if let Some(e) = self.stations[i].as_mut() {
                e.associated = false;
                e.aid = 0;
                e.last_seen = now;
            }
            self.events.push(ApEvent::Disassociated { sta, reason });
        }
        Ok(())
    }

    fn queue_auth_response(&mut self, sta: MacAddr, slot: Option<usize>) -> FrameResult {
        let mut fixed = [0u8; 6];
        fixed[..2].copy_from_slice(&AuthAlgorithm::OpenSystem.to_u16().to_le_bytes());
        fixed[2..4].copy_from_slice(&2u16.to_le_bytes());
        fixed[4..6].copy_from_slice(&StatusCode::SUCCESS.0.to_le_bytes());
        match slot {
            Some(i) => self.queue_to(i, MgmtSubtype::Authentication, &fixed, false),
            None => {
                let (bssid, seq) = (self.cfg.bssid, self.next_seq());
                self.txq.push(|b| {
                    frames::mgmt_header(
                        b,
                        MgmtSubtype::Authentication,
                        sta,
                        bssid,
                        bssid,
                        seq,
                        &fixed,
                    )
                })
            }
        }
    }

    fn next_seq(&mut self) -> u16 {
        let s = self.seq_num;
        self.seq_num = (self.seq_num + 1) & 0x0fff;
        s
    }

    /// Queues a frame to station entry `i`, sealed with its session if it
    /// has one; `ssid_rates` adds the SSID and rates elements.
    fn queue_to(
        &mut self,
        i: usize,
        subtype: MgmtSubtype,
        fixed: &[u8],
        ssid_rates: bool,
    ) -> FrameResult {
        let seq = self.next_seq();
        let bssid = self.cfg.bssid;
        let ssid = self.cfg.ssid;
        let Some(e) = self.stations.get_mut(i).and_then(|e| e.as_mut()) else {
            return Err(Error::NotAuthenticated);
        };
        let to = e.addr;
        let session = e.session.as_mut();
        self.txq.push(|b| {
            let mut n = frames::mgmt_header(b, subtype, to, bssid, bssid, seq, fixed)?;
            if ssid_rates {
                n = frames::ssid_rates(b, n, ssid.as_bytes())?;
            }
            match session {
                Some(s) => s.seal(b, n),
                None => Ok(n),
            }
        })
    }

    /// Builds a beacon (`to` = None) or a probe response to `to`.
    fn queue_beacon(&mut self, now: Instant, to: Option<MacAddr>) -> FrameResult {
        let seq = self.next_seq();
        let cfg = self.cfg;
        let counter = cfg
            .beacons_per_interval
            .saturating_sub(1)
            .saturating_sub(self.beacon_idx.min(cfg.beacons_per_interval - 1));
        let interval = self.tokens.interval() as u8;
        let tokens = self.tokens.current().as_slice();
        let pk = self.key.public();
        let (subtype, addr1) = match to {
            None => (MgmtSubtype::Beacon, MacAddr::BROADCAST),
            Some(a) => (MgmtSubtype::ProbeResponse, a),
        };
        let mut fixed = [0u8; 12];
        fixed[..8].copy_from_slice(&now.as_micros().to_le_bytes());
        fixed[8..10].copy_from_slice(&cfg.beacon_interval_tu.to_le_bytes());
        fixed[10..12].copy_from_slice(&CapabilityInfo::ESS.to_le_bytes());
        let r = self.txq.push(|b| {
            let n = frames::mgmt_header(b, subtype, addr1, cfg.bssid, cfg.bssid, seq, &fixed)?;
            let mut n = frames::ssid_rates(b, n, cfg.ssid.as_bytes())?;
            if cfg.discosec {
                let e = DiscoElement::PkAp(PublicKeyElement {
                    group: cfg.curve.group(),
                    point: pk.as_bytes(),
                });
                n = frames::push(b, n, |b| e.emit(b))?;
                let ts = TokenSetRepr {
                    flags: if cfg.dos_protection {
                        TokenSet::FLAG_DOS_PROTECTION
                    } else {
                        0
                    } | if cfg.mode == AuthMode::Full {
                        TokenSet::FLAG_FULL_AUTH
                    } else {
                        0
                    },
                    interval,
                    counter,
                    tokens,
                };
                n = frames::push(b, n, |b| ts.emit(b))?;
            }
            Ok(n)
        });
        if r.is_ok() && to.is_none() {
            self.stats.beacons += 1;
        }
        self.stats.tx_dropped = self.txq.dropped;
        r
    }

    /// Sends an authenticated Deauthentication to `sta` and forgets it.
    pub fn deauthenticate(&mut self, sta: MacAddr, reason: ReasonCode) -> FrameResult {
        let i = self.find(sta).ok_or(Error::NotAuthenticated)?;
        let r = self.queue_to(
            i,
            MgmtSubtype::Deauthentication,
            &reason.0.to_le_bytes(),
            false,
        );
        self.stations[i] = None;
        r
    }

    /// Sends an authenticated Disassociation to `sta`; it stays
    /// authenticated.
    pub fn disassociate(&mut self, sta: MacAddr, reason: ReasonCode) -> FrameResult {
        let i = self.find(sta).ok_or(Error::NotAuthenticated)?;
        let r = self.queue_to(
            i,
            MgmtSubtype::Disassociation,
            &reason.0.to_le_bytes(),
            false,
        );
        if let Some(e) = self.stations[i].as_mut() {
            e.associated = false;
            e.aid = 0;
        }
        r
    }

    /// Appends the SEQ+MAC trailer to the data frame `buf[..len]` for
    /// `sta` (optional data-frame authentication, seed 003 section 2.1).
    pub fn seal_data(&mut self, sta: MacAddr, buf: &mut [u8], len: usize) -> Result<usize, Error> {
        let i = self.find(sta).ok_or(Error::NotAuthenticated)?;
        let s = self.stations[i]
            .as_mut()
            .and_then(|e| e.session.as_mut())
            .ok_or(Error::LegacyFrame)?;
        s.seal(buf, len)
    }

    /// Verifies the trailer of a data frame from a station with a session.
    pub fn open_data(&mut self, now: Instant, frame: &[u8]) -> Result<Verified, Error> {
        let sta = session::addr2(frame).ok_or(Error::Malformed(wisec_wire::Error::Truncated))?;
        let i = self.find(sta).ok_or(Error::NotAuthenticated)?;
        let e = self.stations[i].as_mut().ok_or(Error::NotAuthenticated)?;
        let s = e.session.as_mut().ok_or(Error::LegacyFrame)?;
        let v = s.open(frame)?;
        e.last_seen = now;
        Ok(v)
    }

    /// Drops every queued frame (for a caller that will not send them).
    pub fn clear_transmit(&mut self) {
        self.txq.clear();
    }
}

const _: () = assert!(MAX_FRAME >= 24 + 12 + 34 + 10 + 105 + 9 + 4 * MAX_TOKENS);
