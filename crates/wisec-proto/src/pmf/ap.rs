//! The access point: open-system authentication, association with an
//! optional RSNE, and management frame protection once keys are in.

use super::frames::{self, copy_in, EventQueue, Rx, TxQueue, MAX_FRAME};
use super::protect::{GroupTx, Pairwise};
use super::sa_query::{self, SaQuery, SaQueryAction, SaQueryFrame, SaQueryPoll, SaQueryTimers};
use super::{group_mgmt_cipher, negotiate, Error, MfpPolicy, NegotiationError};
use crate::discosec::Ssid;
use crate::rsn::ElementBuf;
use crate::time::Instant;
use core::time::Duration;
use rand_core::CryptoRng;
use wisec_wire::data::{Addressing, DataFrame};
use wisec_wire::element::{Akm, CipherSuite, List, RsnCapabilities, Rsne};
use wisec_wire::llc::EtherType;
use wisec_wire::mac_header::Header;
use wisec_wire::mgmt::{ActionCategory, AuthAlgorithm, CapabilityInfo, MgmtFrame, MgmtSubtype};
use wisec_wire::{ElementId, MacAddr, ReasonCode, StatusCode};

const TX_QUEUE: usize = 32;
const EVENTS: usize = 64;
const RATES: [u8; 8] = [0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24];
/// Highest AID (9.4.1.8).
const MAX_AID: u16 = 2007;

/// The RSN an AP offers: one AKM, one pairwise cipher, the group ciphers
/// and the management frame protection policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RsnConfig {
    /// MFPC/MFPR.
    pub mfp: MfpPolicy,
    /// The AKM.
    pub akm: Akm,
    /// The pairwise cipher.
    pub pairwise: CipherSuite,
    /// The group data cipher.
    pub group: CipherSuite,
    /// The group management cipher (used when `mfp` is not `Disabled`).
    pub group_mgmt: CipherSuite,
}

impl RsnConfig {
    /// PSK with CCMP-128 and BIP-CMAC-128 under `mfp`.
    pub const fn psk(mfp: MfpPolicy) -> RsnConfig {
        RsnConfig {
            mfp,
            akm: Akm::PSK,
            pairwise: CipherSuite::CCMP_128,
            group: CipherSuite::CCMP_128,
            group_mgmt: CipherSuite::BIP_CMAC_128,
        }
    }

    /// Writes the RSNE this configuration advertises (9.4.2.24) and
    /// returns its length. The Group Management Cipher Suite field is
    /// present only with MFPC.
    pub fn emit_rsne(&self, buf: &mut [u8]) -> Result<usize, Error> {
        let pairwise = [self.pairwise];
        let akms = [self.akm];
        let mfpc = !matches!(self.mfp, MfpPolicy::Disabled);
        Rsne {
            group_data_cipher: Some(self.group),
            pairwise: Some(List::Items(&pairwise)),
            akms: Some(List::Items(&akms)),
            capabilities: Some(self.mfp.apply(RsnCapabilities(0))),
            group_mgmt_cipher: mfpc.then_some(self.group_mgmt),
            ..Rsne::default()
        }
        .emit(buf)
        .map_err(|_| Error::BufferTooSmall)
    }

    /// The RSNE as an [`ElementBuf`] (for the handshake's
    /// [`crate::fourway::Association`]).
    pub fn rsne(&self) -> Result<ElementBuf, Error> {
        let mut b = [0u8; 64];
        let n = self.emit_rsne(&mut b)?;
        ElementBuf::new(b.get(..n).unwrap_or(&[])).map_err(|_| Error::BufferTooSmall)
    }
}

/// AP configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApConfig {
    /// The BSSID.
    pub bssid: MacAddr,
    /// The SSID.
    pub ssid: Ssid,
    /// The RSN offered; `None` for an open network.
    pub rsn: Option<RsnConfig>,
    /// The SA Query timers.
    pub sa_query: SaQueryTimers,
    /// Beacon interval in TU; 0 sends no beacons (stations probe).
    pub beacon_interval_tu: u16,
    /// How long an authenticated station that has not associated keeps
    /// its entry (default 5 s).
    pub auth_timeout: Duration,
}

impl ApConfig {
    /// An open network with defaults; `None` for an SSID over 32 octets.
    pub fn new(bssid: MacAddr, ssid: &[u8]) -> Option<ApConfig> {
        Some(ApConfig {
            bssid,
            ssid: Ssid::new(ssid)?,
            rsn: None,
            sa_query: SaQueryTimers::default(),
            beacon_interval_tu: 100,
            auth_timeout: Duration::from_secs(5),
        })
    }

    fn pmf_capable(&self) -> bool {
        self.rsn.is_some_and(|r| r.mfp != MfpPolicy::Disabled)
    }
}

/// What happened at the AP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApEvent {
    /// A station authenticated (open system).
    Authenticated {
        /// The station.
        sta: MacAddr,
    },
    /// A station associated. With an RSN, run the 4-way handshake (the
    /// STA's RSNE is [`Ap::sta_rsne`]) and install its PTK with
    /// [`Ap::install_ptk`].
    Associated {
        /// The station.
        sta: MacAddr,
        /// Its AID.
        aid: u16,
        /// Management frame protection negotiated.
        pmf: bool,
    },
    /// An association request was refused (negotiation).
    Refused {
        /// The station.
        sta: MacAddr,
        /// The status sent.
        status: StatusCode,
    },
    /// An association request from a station with a protected association
    /// in use was refused with status 30 and a comeback time (11.13).
    RejectedTemporarily {
        /// The station.
        sta: MacAddr,
        /// The comeback time announced, in TU.
        comeback_tu: u32,
    },
    /// An SA Query procedure started.
    SaQueryStarted {
        /// The station queried.
        sta: MacAddr,
    },
    /// The station answered: its association stands.
    SaQueryConfirmed {
        /// The station.
        sta: MacAddr,
    },
    /// No answer in time: the association was deleted.
    SaQueryTimedOut {
        /// The station.
        sta: MacAddr,
    },
    /// A station deauthenticated itself.
    Deauthenticated {
        /// The station.
        sta: MacAddr,
        /// Its reason.
        reason: ReasonCode,
    },
    /// A station disassociated itself.
    Disassociated {
        /// The station.
        sta: MacAddr,
        /// Its reason.
        reason: ReasonCode,
    },
    /// An authenticated station did not associate in time.
    Expired {
        /// The station.
        sta: MacAddr,
    },
}

/// Counters for experiments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApStats {
    /// Successful authentications.
    pub authenticated: u64,
    /// Successful associations.
    pub associated: u64,
    /// Frames refused by `handle_rx`.
    pub rejected: u64,
    /// Association requests answered with status 30.
    pub rejected_temporarily: u64,
    /// SA Query procedures started.
    pub sa_queries: u64,
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
    /// AID when associated.
    pub aid: u16,
    /// Management frame protection negotiated.
    pub pmf: bool,
    /// A PTK is installed.
    pub keyed: bool,
    /// An SA Query runs.
    pub sa_query: bool,
}

struct Entry {
    addr: MacAddr,
    associated: bool,
    aid: u16,
    pmf: bool,
    rsn: bool,
    sta_rsne: Option<ElementBuf>,
    keys: Option<Pairwise>,
    sa_query: Option<SaQuery>,
    last_seen: Instant,
}

impl Entry {
    fn new(addr: MacAddr, now: Instant) -> Entry {
        Entry {
            addr,
            associated: false,
            aid: 0,
            pmf: false,
            rsn: false,
            sta_rsne: None,
            keys: None,
            sa_query: None,
            last_seen: now,
        }
    }

    /// 12.6.19: protection applies once the PTK of a PMF association is
    /// installed.
    fn protected(&self) -> bool {
        self.associated && self.pmf && self.keys.is_some()
    }
}

/// A PMF-capable access point with room for `N` stations. Randomness
/// (SA Query transaction identifiers) comes from `R`, time from the
/// caller.
pub struct Ap<R, const N: usize> {
    cfg: ApConfig,
    rng: R,
    stations: [Option<Entry>; N],
    igtk: Option<GroupTx>,
    next_beacon: Instant,
    seq: u16,
    txq: TxQueue<TX_QUEUE>,
    events: EventQueue<ApEvent, EVENTS>,
    stats: ApStats,
    scratch: [u8; MAX_FRAME],
}

impl<R, const N: usize> core::fmt::Debug for Ap<R, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ap")
            .field("cfg", &self.cfg)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

type Handled<'a> = Result<Rx<'a>, Error>;

impl<R: CryptoRng, const N: usize> Ap<R, N> {
    /// Starts an AP; the first beacon is due at `now`.
    pub fn new(now: Instant, cfg: ApConfig, rng: R) -> Ap<R, N> {
        Ap {
            cfg,
            rng,
            stations: core::array::from_fn(|_| None),
            igtk: None,
            next_beacon: now,
            seq: 0,
            txq: TxQueue::new(),
            events: EventQueue::new(),
            stats: ApStats::default(),
            scratch: [0; MAX_FRAME],
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ApConfig {
        &self.cfg
    }

    /// Counters.
    pub fn stats(&self) -> &ApStats {
        &self.stats
    }

    /// Station entries held now.
    pub fn entries(&self) -> usize {
        self.stations.iter().flatten().count()
    }

    /// What the AP knows about `addr`.
    pub fn station(&self, addr: MacAddr) -> Option<StaInfo> {
        self.find(addr).map(|e| StaInfo {
            addr: e.addr,
            associated: e.associated,
            aid: e.aid,
            pmf: e.pmf,
            keyed: e.keys.is_some(),
            sa_query: e.sa_query.is_some(),
        })
    }

    /// The RSNE the station sent in its association request.
    pub fn sta_rsne(&self, addr: MacAddr) -> Option<&ElementBuf> {
        self.find(addr).and_then(|e| e.sta_rsne.as_ref())
    }

    /// The next frame to send.
    pub fn poll_transmit(&mut self) -> Option<&[u8]> {
        self.txq.pop()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<ApEvent> {
        self.events.pop()
    }

    fn find(&self, addr: MacAddr) -> Option<&Entry> {
        self.stations.iter().flatten().find(|e| e.addr == addr)
    }

    fn find_mut(&mut self, addr: MacAddr) -> Option<&mut Entry> {
        self.stations.iter_mut().flatten().find(|e| e.addr == addr)
    }

    fn remove(&mut self, addr: MacAddr) {
        for slot in self.stations.iter_mut() {
            if slot.as_ref().is_some_and(|e| e.addr == addr) {
                *slot = None;
            }
        }
    }

    fn next_seq(&mut self) -> u16 {
        self.seq = (self.seq + 1) & 0x0fff;
        self.seq
    }

    fn transaction_id(&mut self) -> u16 {
        (self.rng.next_u32() & 0xffff) as u16
    }

    /// Installs the PTK's temporal key for `sta` (from the 4-way
    /// handshake). From now on, with PMF negotiated, its robust management
    /// frames are protected both ways and unprotected ones dropped.
    pub fn install_ptk(&mut self, sta: MacAddr, tk: &[u8]) -> Result<(), Error> {
        let cipher = self.cfg.rsn.ok_or(Error::UnexpectedFrame)?.pairwise;
        let keys = Pairwise::new(cipher, tk)?;
        let e = self.find_mut(sta).ok_or(Error::NotAssociated)?;
        if !e.associated {
            return Err(Error::NotAssociated);
        }
        e.keys = Some(keys);
        Ok(())
    }

    /// Sets the IGTK that protects group-addressed robust management
    /// frames (the one the handshake's IGTK KDE hands out, with its IPN).
    pub fn set_igtk(&mut self, key_id: u16, key: &[u8], ipn: u64) -> Result<(), Error> {
        let rsn = self.cfg.rsn.ok_or(Error::UnexpectedFrame)?;
        self.igtk = Some(GroupTx::new(rsn.group_mgmt, key, key_id, ipn)?);
        Ok(())
    }

    /// The IGTK's Key ID and last IPN: what an IGTK KDE handed out now
    /// carries (12.7.2), so that a station does not accept frames sent
    /// before it joined.
    pub fn igtk(&self) -> Option<(u8, u64)> {
        self.igtk.as_ref().map(|g| (g.key_id(), g.ipn()))
    }

    /// When [`Ap::handle_timeout`] must be called next.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let t = &self.cfg.sa_query;
        let mut next = (self.cfg.beacon_interval_tu > 0).then_some(self.next_beacon);
        for e in self.stations.iter().flatten() {
            let mut cand = if e.associated {
                None
            } else {
                Some(e.last_seen + self.cfg.auth_timeout)
            };
            if let Some(q) = &e.sa_query {
                let n = q.next_event(t);
                cand = Some(cand.map_or(n, |c| c.min(n)));
            }
            if let Some(c) = cand {
                next = Some(next.map_or(c, |x| x.min(c)));
            }
        }
        next
    }

    /// Sends due beacons, runs the SA Query procedures and expires
    /// stations that authenticated but did not associate.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.cfg.beacon_interval_tu > 0 && self.next_beacon <= now {
            let _ = self.queue_beacon(MgmtSubtype::Beacon, MacAddr::BROADCAST);
            let bi = sa_query::tu(u32::from(self.cfg.beacon_interval_tu));
            self.next_beacon = self.next_beacon + bi;
            if self.next_beacon <= now {
                self.next_beacon = now + bi;
            }
        }
        let timers = self.cfg.sa_query;
        for i in 0..N {
            let Some(e) = self.stations.get_mut(i).and_then(|s| s.as_mut()) else {
                continue;
            };
            let addr = e.addr;
            if !e.associated && e.last_seen + self.cfg.auth_timeout <= now {
                self.events.push(ApEvent::Expired { sta: addr });
                self.stations[i] = None;
                continue;
            }
            let Some(q) = e.sa_query.as_mut() else {
                continue;
            };
            let id = (self.rng.next_u32() & 0xffff) as u16;
            match q.poll(now, &timers, || id) {
                SaQueryPoll::Wait => {}
                SaQueryPoll::Retry(id) => {
                    let _ = self.send_sa_query(addr, SaQueryAction::Request, id);
                }
                SaQueryPoll::TimedOut => {
                    // 11.13: no protected answer before the maximum
                    // timeout: the STA lost the association; delete it so
                    // that the STA can associate anew.
                    self.stations[i] = None;
                    self.events.push(ApEvent::SaQueryTimedOut { sta: addr });
                }
            }
        }
        self.stats.tx_dropped = self.txq.dropped;
    }

    /// Handles one received frame (MAC header and body, no FCS). `Ok`
    /// tells what it was; an error why it was dropped or refused. A
    /// dropped frame changes no state; a refused association request is
    /// answered (and status 30 starts an SA Query).
    pub fn handle_rx(&mut self, now: Instant, frame: &[u8]) -> Handled<'_> {
        let r = match Header::new_checked(frame) {
            Ok(h) if h.frame_control().is_mgmt() => self.rx_mgmt(now, frame).map(|()| None),
            Ok(h) if h.frame_control().is_data() => self.rx_data(now, frame).map(Some),
            Ok(_) => Err(Error::UnexpectedFrame),
            Err(e) => Err(Error::Malformed(e)),
        };
        self.stats.tx_dropped = self.txq.dropped;
        match r {
            Err(e) => {
                self.stats.rejected += 1;
                Err(e)
            }
            Ok(None) => Ok(Rx::Handled),
            Ok(Some(n)) => frames::delivered(&self.scratch, n),
        }
    }

    fn rx_data(&mut self, now: Instant, frame: &[u8]) -> Result<usize, Error> {
        let h = Header::new_checked(frame)?;
        let fc = h.frame_control();
        let sta = h
            .addr2()
            .ok_or(Error::Malformed(wisec_wire::Error::Truncated))?;
        if !fc.to_ds() || fc.from_ds() || h.addr1() != self.cfg.bssid {
            return Err(Error::NotForUs);
        }
        let Some(e) = self
            .stations
            .iter_mut()
            .flatten()
            .find(|e| e.addr == sta && e.associated)
        else {
            // 11.3.3: a class 3 frame from a STA that is not associated
            // is answered with a Deauthentication, reason 7 (unprotected:
            // there is no key). With PMF this is what tells a STA whose
            // association the AP lost to run its SA Query.
            self.queue_mgmt_plain(
                sta,
                MgmtSubtype::Deauthentication,
                &ReasonCode::CLASS3_FRAME_FROM_NONASSOC_STA.0.to_le_bytes(),
            );
            return Err(Error::NotAssociated);
        };
        let plain = copy_in(&mut self.scratch, frame)?;
        let mut len = frame.len();
        if fc.protected() {
            let k = e.keys.as_mut().ok_or(Error::NoKey)?;
            len = k.unprotect(plain)?;
        } else {
            let f = DataFrame::new_checked(&*plain)?;
            let eapol = f.ethertype() == Some(EtherType::EAPOL);
            // Before its PTK only EAPOL passes on an RSN association; after
            // it every data frame but EAPOL must be protected.
            if e.rsn && !eapol {
                return Err(Error::Unprotected);
            }
        }
        e.last_seen = now;
        Ok(len)
    }

    fn rx_mgmt(&mut self, now: Instant, frame: &[u8]) -> Result<(), Error> {
        let f = MgmtFrame::new_checked(frame)?;
        let h = f.header();
        let sta = h
            .addr2()
            .ok_or(Error::Malformed(wisec_wire::Error::Truncated))?;
        if sta.is_group() || sta == self.cfg.bssid {
            return Err(Error::Malformed(wisec_wire::Error::Malformed));
        }
        let bssid = self.cfg.bssid;
        let subtype = f.subtype();
        if subtype == MgmtSubtype::ProbeRequest {
            if !(h.addr1() == bssid || h.addr1().is_broadcast()) {
                return Err(Error::NotForUs);
            }
            let ssid = f.elements().ssid().unwrap_or(&[]);
            if !ssid.is_empty() && ssid != self.cfg.ssid.as_bytes() {
                return Err(Error::NotForUs);
            }
            return self.queue_beacon(MgmtSubtype::ProbeResponse, sta);
        }
        if h.addr1() != bssid || h.addr3() != Some(bssid) {
            return Err(Error::NotForUs);
        }
        let protected = f.frame_control().protected();
        let plain: &[u8] = if protected {
            let e = self.stations.iter_mut().flatten().find(|e| e.addr == sta);
            let k = e.and_then(|e| e.keys.as_mut()).ok_or(Error::NoKey)?;
            let b = copy_in(&mut self.scratch, frame)?;
            let n = k.unprotect(b)?;
            self.scratch.get(..n).unwrap_or(&[])
        } else {
            frame
        };
        // Work on a copy so that the scratch buffer is free for replies.
        let mut local = [0u8; MAX_FRAME];
        let n = plain.len().min(MAX_FRAME);
        local[..n].copy_from_slice(plain.get(..n).unwrap_or(&[]));
        let f = MgmtFrame::new_checked(&local[..n])?;
        let prot_in_use = self.find(sta).is_some_and(|e| e.protected());
        // 12.6.19: once PMF is in use, a robust management frame that
        // arrives unprotected is discarded.
        if prot_in_use && f.is_robust() && !protected {
            return Err(Error::Unprotected);
        }
        if protected && !f.is_robust() {
            return Err(Error::UnexpectedFrame);
        }
        match f.subtype() {
            MgmtSubtype::Authentication => self.rx_auth(now, sta, &f),
            MgmtSubtype::AssocRequest | MgmtSubtype::ReassocRequest => self.rx_assoc(now, sta, &f),
            MgmtSubtype::Deauthentication | MgmtSubtype::Disassociation => {
                let reason = f
                    .reason_code()
                    .ok_or(Error::Malformed(wisec_wire::Error::Truncated))?;
                let e = self.find_mut(sta).ok_or(Error::NotAssociated)?;
                if f.subtype() == MgmtSubtype::Deauthentication {
                    self.remove(sta);
                    self.events.push(ApEvent::Deauthenticated { sta, reason });
                } else {
                    if !e.associated {
                        return Err(Error::NotAssociated);
                    }
                    e.associated = false;
                    e.keys = None;
                    e.sa_query = None;
                    e.last_seen = now;
                    self.events.push(ApEvent::Disassociated { sta, reason });
                }
                Ok(())
            }
            MgmtSubtype::Action => self.rx_action(now, sta, &f),
            _ => Err(Error::UnexpectedFrame),
        }
    }

    fn rx_action(&mut self, now: Instant, sta: MacAddr, f: &MgmtFrame<&[u8]>) -> Result<(), Error> {
        if f.category() != Some(ActionCategory::SaQuery) {
            return Err(Error::UnexpectedFrame);
        }
        let q = SaQueryFrame::parse(f.variable_with_category())?;
        let e = self.find_mut(sta).ok_or(Error::NotAssociated)?;
        if !e.associated {
            return Err(Error::NotAssociated);
        }
        match q.action {
            SaQueryAction::Request => {
                e.last_seen = now;
                // 11.13: answer with the same identifier, protected.
                self.send_sa_query(sta, SaQueryAction::Response, q.transaction_id)
            }
            SaQueryAction::Response => {
                let running = e.sa_query.as_ref().ok_or(Error::UnexpectedFrame)?;
                if !running.matches(q.transaction_id) {
                    return Err(Error::UnexpectedFrame);
                }
                e.sa_query = None;
                e.last_seen = now;
                self.events.push(ApEvent::SaQueryConfirmed { sta });
                Ok(())
            }
        }
    }

    fn rx_auth(&mut self, now: Instant, sta: MacAddr, f: &MgmtFrame<&[u8]>) -> Result<(), Error> {
        if f.auth_algorithm() != Some(AuthAlgorithm::OpenSystem) || f.auth_seq() != Some(1) {
            return Err(Error::UnexpectedFrame);
        }
        if let Some(e) = self.find_mut(sta) {
            if e.protected() {
                // Answered, but the protected association stays (see the
                // module documentation): a forged Authentication frame
                // must not tear it down.
                e.last_seen = e.last_seen.max(now);
                return self.queue_auth_response(sta, StatusCode::SUCCESS);
            }
            *e = Entry::new(sta, now);
        } else {
            let slot = self
                .stations
                .iter_mut()
                .find(|s| s.is_none())
                .ok_or(Error::TableFull)?;
            *slot = Some(Entry::new(sta, now));
        }
        let n = self.entries();
        self.stats.peak_entries = self.stats.peak_entries.max(n);
        self.stats.authenticated += 1;
        self.events.push(ApEvent::Authenticated { sta });
        self.queue_auth_response(sta, StatusCode::SUCCESS)
    }

    fn rx_assoc(&mut self, now: Instant, sta: MacAddr, f: &MgmtFrame<&[u8]>) -> Result<(), Error> {
        let subtype = if f.subtype() == MgmtSubtype::ReassocRequest {
            MgmtSubtype::ReassocResponse
        } else {
            MgmtSubtype::AssocResponse
        };
        let timers = self.cfg.sa_query;
        let first_id = self.transaction_id();
        let Some(e) = self.stations.iter_mut().flatten().find(|e| e.addr == sta) else {
            // 11.3.3: a class 2 frame from a STA that is not authenticated
            // is answered with a Deauthentication, reason 6.
            self.queue_mgmt_plain(
                sta,
                MgmtSubtype::Deauthentication,
                &ReasonCode::CLASS2_FRAME_FROM_NONAUTH_STA.0.to_le_bytes(),
            );
            return Err(Error::NotAssociated);
        };
        if e.protected() {
            // 11.3.5.3 / 11.13: a STA with a protected association in use
            // asks to associate again. Refuse with status 30 and the
            // comeback time, and ask the STA (protected) whether it still
            // holds the association.
            let started = e.sa_query.is_none();
            let q = *e
                .sa_query
                .get_or_insert_with(|| SaQuery::start(now, &timers, first_id));
            let tu = q.comeback_tu(now, &timers);
            let aid = e.aid;
            self.stats.rejected_temporarily += 1;
            self.events.push(ApEvent::RejectedTemporarily {
                sta,
                comeback_tu: tu,
            });
            let ti = sa_query::comeback_element(tu);
            self.queue_assoc_response(
                sta,
                subtype,
                StatusCode::ASSOC_REJECTED_TEMPORARILY,
                aid,
                &ti,
            )?;
            if started {
                self.stats.sa_queries += 1;
                self.events.push(ApEvent::SaQueryStarted { sta });
                self.send_sa_query(sta, SaQueryAction::Request, first_id)?;
            }
            return Err(Error::Refused(StatusCode::ASSOC_REJECTED_TEMPORARILY));
        }
        let ssid = f.elements().ssid();
        if ssid != Some(self.cfg.ssid.as_bytes()) {
            return Err(Error::NotForUs);
        }
        let negotiated = match self.cfg.rsn {
            None => Ok((false, None)),
            Some(rsn) => self.negotiate(rsn, f),
        };
        let (pmf, sta_rsne) = match negotiated {
            Ok(x) => x,
            Err(e) => {
                let status = match e {
                    Error::Negotiation(n) => n.status_code(),
                    Error::Refused(s) => s,
                    _ => StatusCode::INVALID_ELEMENT,
                };
                self.events.push(ApEvent::Refused { sta, status });
                self.queue_assoc_response(sta, subtype, status, 0, &[])?;
                return Err(e);
            }
        };
        let aid = self.free_aid(sta).ok_or(Error::TableFull)?;
        let rsn = self.cfg.rsn.is_some();
        let e = self.find_mut(sta).ok_or(Error::NotAssociated)?;
        e.associated = true;
        e.aid = aid;
        e.pmf = pmf;
        e.rsn = rsn;
        e.sta_rsne = sta_rsne;
        e.keys = None;
        e.sa_query = None;
        e.last_seen = now;
        self.stats.associated += 1;
        self.events.push(ApEvent::Associated { sta, aid, pmf });
        self.queue_assoc_response(sta, subtype, StatusCode::SUCCESS, aid, &[])
    }

    fn negotiate(
        &self,
        rsn: RsnConfig,
        f: &MgmtFrame<&[u8]>,
    ) -> Result<(bool, Option<ElementBuf>), Error> {
        let el = f
            .elements()
            .find_id(ElementId::RSN)
            .ok_or(Error::Refused(StatusCode::INVALID_ELEMENT))?;
        let sta = Rsne::from_element(el).map_err(|e| match e {
            wisec_wire::Error::Unsupported => Error::Refused(StatusCode::UNSUPPORTED_RSNE_VERSION),
            _ => Error::Refused(StatusCode::INVALID_ELEMENT),
        })?;
        // 12.6.3: the STA picks one pairwise cipher and one AKM the AP
        // offers, and the AP's group cipher.
        if sta.group_data_cipher_or_default() != rsn.group {
            return Err(Error::Refused(StatusCode::INVALID_GROUP_CIPHER));
        }
        let pw = sta.pairwise_or_default();
        if pw.len() != 1 || pw.first() != Some(rsn.pairwise) {
            return Err(Error::Refused(StatusCode::INVALID_PAIRWISE_CIPHER));
        }
        let akms = sta.akms_or_default();
        if akms.len() != 1 || akms.first() != Some(rsn.akm) {
            return Err(Error::Refused(StatusCode::INVALID_AKMP));
        }
        let ap_caps = rsn.mfp.apply(RsnCapabilities(0));
        let pmf = negotiate(ap_caps, sta.capabilities_or_default())?;
        if pmf {
            let mut b = [0u8; 64];
            let n = rsn.emit_rsne(&mut b)?;
            let ap = Rsne::parse(b.get(2..n).unwrap_or(&[]))?;
            group_mgmt_cipher(&ap, &sta)?;
        }
        let buf = ElementBuf::from_element(el)
            .map_err(|_| Error::Negotiation(NegotiationError::InvalidCapabilities))?;
        Ok((pmf, Some(buf)))
    }

    fn free_aid(&self, sta: MacAddr) -> Option<u16> {
        if let Some(e) = self.find(sta).filter(|e| e.associated && e.aid > 0) {
            return Some(e.aid);
        }
        (1..=MAX_AID).find(|a| {
            !self
                .stations
                .iter()
                .flatten()
                .any(|e| e.associated && e.aid == *a)
        })
    }

    /// Starts an SA Query with `sta` (for instance when the AP doubts the
    /// station is still there). Needs a protected association.
    pub fn start_sa_query(&mut self, now: Instant, sta: MacAddr) -> Result<(), Error> {
        let timers = self.cfg.sa_query;
        let id = self.transaction_id();
        let e = self.find_mut(sta).ok_or(Error::NotAssociated)?;
        if !e.protected() {
            return Err(Error::NoKey);
        }
        if e.sa_query.is_some() {
            return Ok(());
        }
        e.sa_query = Some(SaQuery::start(now, &timers, id));
        self.stats.sa_queries += 1;
        self.events.push(ApEvent::SaQueryStarted { sta });
        self.send_sa_query(sta, SaQueryAction::Request, id)
    }

    /// Deauthenticates `sta` (protected when its PMF association is in
    /// use) and forgets it.
    pub fn deauthenticate(&mut self, sta: MacAddr, reason: ReasonCode) -> Result<(), Error> {
        self.send_robust(sta, MgmtSubtype::Deauthentication, &reason.0.to_le_bytes())?;
        self.remove(sta);
        Ok(())
    }

    /// Disassociates `sta` (protected when its PMF association is in use).
    pub fn disassociate(&mut self, sta: MacAddr, reason: ReasonCode) -> Result<(), Error> {
        self.send_robust(sta, MgmtSubtype::Disassociation, &reason.0.to_le_bytes())?;
        if let Some(e) = self.find_mut(sta) {
            e.associated = false;
            e.keys = None;
            e.sa_query = None;
        }
        Ok(())
    }

    /// Sends a Deauthentication to every station (group addressed). With
    /// an IGTK it carries a BIP MME (12.5.4) and protected stations accept
    /// it; without one, they drop it. Every entry is forgotten.
    pub fn deauthenticate_all(&mut self, reason: ReasonCode) -> Result<(), Error> {
        let bssid = self.cfg.bssid;
        let seq = self.next_seq();
        let igtk = &mut self.igtk;
        self.txq.push(|b| {
            let n = frames::mgmt_header(
                b,
                MgmtSubtype::Deauthentication,
                MacAddr::BROADCAST,
                bssid,
                bssid,
                seq,
            )?;
            let n = frames::put(b, n, &reason.0.to_le_bytes())?;
            match igtk.as_mut() {
                Some(k) => k.protect(b, n),
                None => Ok(n),
            }
        })?;
        for s in self.stations.iter_mut() {
            *s = None;
        }
        Ok(())
    }

    /// Queues an EAPOL PDU for `sta` (a 4-way or group key handshake
    /// message), in a data frame. EAPOL travels unprotected: its own MIC
    /// protects it.
    pub fn send_eapol(&mut self, sta: MacAddr, pdu: &[u8]) -> Result<(), Error> {
        if !self.find(sta).is_some_and(|e| e.associated) {
            return Err(Error::NotAssociated);
        }
        let bssid = self.cfg.bssid;
        let seq = self.next_seq();
        self.txq.push(|b| {
            frames::data_frame(
                b,
                Addressing::FromAp {
                    da: sta,
                    bssid,
                    sa: bssid,
                },
                seq,
                EtherType::EAPOL,
                pdu,
            )
        })
    }

    /// Queues an MSDU for `sta`, protected with its PTK on an RSN
    /// association (refused before the PTK is installed).
    pub fn send_data(
        &mut self,
        sta: MacAddr,
        ethertype: EtherType,
        payload: &[u8],
    ) -> Result<(), Error> {
        let bssid = self.cfg.bssid;
        let seq = self.next_seq();
        let e = self
            .stations
            .iter_mut()
            .flatten()
            .find(|e| e.addr == sta && e.associated)
            .ok_or(Error::NotAssociated)?;
        let rsn = e.rsn;
        let keys = &mut e.keys;
        if rsn && keys.is_none() {
            return Err(Error::NoKey);
        }
        self.txq.push(|b| {
            let n = frames::data_frame(
                b,
                Addressing::FromAp {
                    da: sta,
                    bssid,
                    sa: bssid,
                },
                seq,
                ethertype,
                payload,
            )?;
            match keys.as_mut() {
                Some(k) => k.protect(b, n),
                None => Ok(n),
            }
        })
    }

    fn send_sa_query(&mut self, sta: MacAddr, action: SaQueryAction, id: u16) -> Result<(), Error> {
        let mut d = [0u8; sa_query::LEN];
        SaQueryFrame {
            action,
            transaction_id: id,
        }
        .emit(&mut d)?;
        self.send_robust(sta, MgmtSubtype::Action, &d)
    }

    /// Queues a robust management frame for `sta`, protected with its PTK
    /// when its PMF association is in use.
    fn send_robust(
        &mut self,
        sta: MacAddr,
        subtype: MgmtSubtype,
        body: &[u8],
    ) -> Result<(), Error> {
        let bssid = self.cfg.bssid;
        let seq = self.next_seq();
        let e = self.stations.iter_mut().flatten().find(|e| e.addr == sta);
        let keys = match e {
            Some(e) if e.protected() => e.keys.as_mut(),
            _ => None,
        };
        self.txq.push(|b| {
            let n = frames::mgmt_header(b, subtype, sta, bssid, bssid, seq)?;
            let n = frames::put(b, n, body)?;
            match keys {
                Some(k) => k.protect(b, n),
                None => Ok(n),
            }
        })
    }

    fn queue_mgmt_plain(&mut self, to: MacAddr, subtype: MgmtSubtype, body: &[u8]) {
        let bssid = self.cfg.bssid;
        let seq = self.next_seq();
        let _ = self.txq.push(|b| {
            let n = frames::mgmt_header(b, subtype, to, bssid, bssid, seq)?;
            frames::put(b, n, body)
        });
    }

    fn queue_auth_response(&mut self, sta: MacAddr, status: StatusCode) -> Result<(), Error> {
        let mut body = [0u8; 6];
        body[0..2].copy_from_slice(&AuthAlgorithm::OpenSystem.to_u16().to_le_bytes());
        body[2..4].copy_from_slice(&2u16.to_le_bytes());
        body[4..6].copy_from_slice(&status.0.to_le_bytes());
        self.queue_mgmt_plain(sta, MgmtSubtype::Authentication, &body);
        Ok(())
    }

    fn capability(&self) -> u16 {
        let mut c = CapabilityInfo::ESS;
        if self.cfg.rsn.is_some() {
            c |= CapabilityInfo::PRIVACY;
        }
        c
    }

    fn queue_assoc_response(
        &mut self,
        sta: MacAddr,
        subtype: MgmtSubtype,
        status: StatusCode,
        aid: u16,
        extra: &[u8],
    ) -> Result<(), Error> {
        let bssid = self.cfg.bssid;
        let seq = self.next_seq();
        let cap = self.capability();
        // 9.4.1.8: the AID field carries the AID with bits 14 and 15 set.
        let aid_field = if status.is_success() { aid | 0xc000 } else { 0 };
        self.txq.push(|b| {
            let n = frames::mgmt_header(b, subtype, sta, bssid, bssid, seq)?;
            let n = frames::put(b, n, &cap.to_le_bytes())?;
            let n = frames::put(b, n, &status.0.to_le_bytes())?;
            let n = frames::put(b, n, &aid_field.to_le_bytes())?;
            let n = frames::put(b, n, &[ElementId::SUPPORTED_RATES.0, RATES.len() as u8])?;
            let n = frames::put(b, n, &RATES)?;
            frames::put(b, n, extra)
        })
    }

    fn queue_beacon(&mut self, subtype: MgmtSubtype, to: MacAddr) -> Result<(), Error> {
        let bssid = self.cfg.bssid;
        let seq = self.next_seq();
        let cap = self.capability();
        let ssid = self.cfg.ssid;
        let rsn = self.cfg.rsn;
        let bi = self.cfg.beacon_interval_tu.max(1);
        self.txq.push(|b| {
            let n = frames::mgmt_header(b, subtype, to, bssid, bssid, seq)?;
            let n = frames::put(b, n, &[0u8; 8])?;
            let n = frames::put(b, n, &bi.to_le_bytes())?;
            let n = frames::put(b, n, &cap.to_le_bytes())?;
            let s = ssid.as_bytes();
            let n = frames::put(b, n, &[ElementId::SSID.0, s.len() as u8])?;
            let n = frames::put(b, n, s)?;
            let n = frames::put(b, n, &[ElementId::SUPPORTED_RATES.0, RATES.len() as u8])?;
            let n = frames::put(b, n, &RATES)?;
            match rsn {
                Some(r) => Ok(n + r.emit_rsne(b.get_mut(n..).ok_or(Error::BufferTooSmall)?)?),
                None => Ok(n),
            }
        })
    }

    /// True when the AP offers management frame protection.
    pub fn pmf_capable(&self) -> bool {
        self.cfg.pmf_capable()
    }
}

/// The Action frame body from the Category on.
trait ActionBody {
    fn variable_with_category(&self) -> &[u8];
}

impl ActionBody for MgmtFrame<&[u8]> {
    fn variable_with_category(&self) -> &[u8] {
        // Action frames have no fixed fields before the Category.
        self.body()
    }
}
