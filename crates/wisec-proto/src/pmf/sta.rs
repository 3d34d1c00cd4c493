//! The station: scan, open-system authentication, association with an
//! optional RSNE, and management frame protection once keys are in.

use super::ap::RsnConfig;
use super::frames::{self, copy_in, EventQueue, Rx, TxQueue, MAX_FRAME};
use super::protect::{GroupRx, Pairwise};
use super::sa_query::{self, SaQuery, SaQueryAction, SaQueryFrame, SaQueryPoll, SaQueryTimers};
use super::{negotiate, Error};
use crate::discosec::Ssid;
use crate::rsn::ElementBuf;
use crate::time::Instant;
use core::time::Duration;
use rand_core::CryptoRng;
use wisec_wire::data::{Addressing, DataFrame};
use wisec_wire::element::{CipherSuite, List, RsnCapabilities, Rsne};
use wisec_wire::llc::EtherType;
use wisec_wire::mac_header::Header;
use wisec_wire::mgmt::{ActionCategory, AuthAlgorithm, CapabilityInfo, MgmtFrame, MgmtSubtype};
use wisec_wire::{ElementId, MacAddr, ReasonCode, StatusCode};

const TX_QUEUE: usize = 8;
const EVENTS: usize = 16;
const RATES: [u8; 8] = [0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24];

/// Station configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaConfig {
    /// The station's address.
    pub addr: MacAddr,
    /// The SSID to join.
    pub ssid: Ssid,
    /// The RSN to ask for (its `mfp` is the station's policy; the AP's
    /// group ciphers are taken from its RSNE); `None` for an open network.
    pub rsn: Option<RsnConfig>,
    /// The SA Query timers.
    pub sa_query: SaQueryTimers,
    /// How long to wait for a response before retrying (default 200 ms).
    pub response_timeout: Duration,
    /// Attempts before giving up (default 8).
    pub max_attempts: u8,
}

impl StaConfig {
    /// An open-network station with defaults; `None` for an SSID over 32
    /// octets.
    pub fn new(addr: MacAddr, ssid: &[u8]) -> Option<StaConfig> {
        Some(StaConfig {
            addr,
            ssid: Ssid::new(ssid)?,
            rsn: None,
            sa_query: SaQueryTimers::default(),
            response_timeout: Duration::from_millis(200),
            max_attempts: 8,
        })
    }
}

/// Where the station is (11.3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaState {
    /// Not connected, not trying.
    Idle,
    /// Probe Request sent, waiting for the AP.
    Scanning,
    /// Authentication Request sent.
    Authenticating,
    /// Association Request sent (or waiting for the comeback time).
    Associating,
    /// Associated.
    Associated,
}

/// What happened at the station.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StaEvent {
    /// Associated. With an RSN, run the 4-way handshake (the AP's RSNE is
    /// [`Sta::ap_rsne`], ours [`Sta::own_rsne`]) and install the keys.
    Associated {
        /// The AP.
        bssid: MacAddr,
        /// AID.
        aid: u16,
        /// Management frame protection negotiated.
        pmf: bool,
    },
    /// The AP refused with status 30: retry after the comeback time.
    RejectedTemporarily {
        /// The comeback time, in TU.
        comeback_tu: u32,
    },
    /// The AP deauthenticated the station (a frame that passed every
    /// check).
    Deauthenticated {
        /// Its reason.
        reason: ReasonCode,
    },
    /// The AP disassociated the station.
    Disassociated {
        /// Its reason.
        reason: ReasonCode,
    },
    /// An unprotected Deauthentication or Disassociation (reason 6 or 7)
    /// made the station ask the AP (11.13).
    SaQueryStarted,
    /// The AP answered: the association stands.
    SaQueryConfirmed,
    /// The AP did not answer: the station considers itself disconnected.
    SaQueryTimedOut,
    /// One attempt failed (refusal with its status, or a timeout).
    AttemptFailed {
        /// The refusal's status, `None` for a timeout.
        status: Option<StatusCode>,
    },
    /// The station gave up, or the AP's policy does not fit its own.
    Failed,
}

/// Counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StaStats {
    /// Frames refused by `handle_rx`.
    pub rejected: u64,
    /// Unprotected robust frames dropped because PMF is in use.
    pub unprotected_dropped: u64,
    /// SA Query procedures started.
    pub sa_queries: u64,
}

/// A PMF-capable station. Randomness (SA Query transaction identifiers)
/// comes from `R`, time from the caller.
pub struct Sta<R> {
    cfg: StaConfig,
    rng: R,
    state: StaState,
    bssid: MacAddr,
    ap_rsne: Option<ElementBuf>,
    own_rsne: Option<ElementBuf>,
    group_mgmt: Option<CipherSuite>,
    aid: u16,
    pmf: bool,
    keys: Option<Pairwise>,
    igtk: Option<GroupRx>,
    sa_query: Option<SaQuery>,
    deadline: Option<Instant>,
    attempts: u8,
    seq: u16,
    txq: TxQueue<TX_QUEUE>,
    events: EventQueue<StaEvent, EVENTS>,
    stats: StaStats,
    scratch: [u8; MAX_FRAME],
}

impl<R> core::fmt::Debug for Sta<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sta")
            .field("cfg", &self.cfg)
            .field("state", &self.state)
            .field("pmf", &self.pmf)
            .finish_non_exhaustive()
    }
}

impl<R: CryptoRng> Sta<R> {
    /// A station, idle.
    pub fn new(cfg: StaConfig, rng: R) -> Sta<R> {
        Sta {
            cfg,
            rng,
            state: StaState::Idle,
            bssid: MacAddr::BROADCAST,
            ap_rsne: None,
            own_rsne: None,
            group_mgmt: None,
            aid: 0,
            pmf: false,
            keys: None,
            igtk: None,
            sa_query: None,
            deadline: None,
            attempts: 0,
            seq: 0,
            txq: TxQueue::new(),
            events: EventQueue::new(),
            stats: StaStats::default(),
            scratch: [0; MAX_FRAME],
        }
    }

    /// The configuration.
    pub fn config(&self) -> &StaConfig {
        &self.cfg
    }

    /// The state.
    pub fn state(&self) -> StaState {
        self.state
    }

    /// Counters.
    pub fn stats(&self) -> &StaStats {
        &self.stats
    }

    /// The AID while associated.
    pub fn aid(&self) -> Option<u16> {
        (self.state == StaState::Associated).then_some(self.aid)
    }

    /// True when management frame protection is in use: negotiated, and
    /// the PTK installed.
    pub fn pmf_in_use(&self) -> bool {
        self.state == StaState::Associated && self.pmf && self.keys.is_some()
    }

    /// The RSNE of the AP's Beacon or Probe Response.
    pub fn ap_rsne(&self) -> Option<&ElementBuf> {
        self.ap_rsne.as_ref()
    }

    /// The RSNE this station sent in its Association Request.
    pub fn own_rsne(&self) -> Option<&ElementBuf> {
        self.own_rsne.as_ref()
    }

    /// The group management cipher negotiated (PMF only).
    pub fn group_mgmt_cipher(&self) -> Option<CipherSuite> {
        self.group_mgmt
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
        let q = self.sa_query.map(|q| q.next_event(&self.cfg.sa_query));
        match (self.deadline, q) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn next_seq(&mut self) -> u16 {
        self.seq = (self.seq + 1) & 0x0fff;
        self.seq
    }

    /// Starts joining `bssid`: sends a Probe Request.
    pub fn connect(&mut self, now: Instant, bssid: MacAddr) {
        self.reset();
        self.bssid = bssid;
        self.attempts = 1;
        self.state = StaState::Scanning;
        self.send_probe(now);
    }

    fn reset(&mut self) {
        self.state = StaState::Idle;
        self.keys = None;
        self.igtk = None;
        self.sa_query = None;
        self.deadline = None;
        self.pmf = false;
        self.aid = 0;
    }

    /// Installs the PTK's temporal key (from the 4-way handshake). With
    /// PMF negotiated, protection is in use from now on.
    pub fn install_ptk(&mut self, tk: &[u8]) -> Result<(), Error> {
        if self.state != StaState::Associated {
            return Err(Error::NotAssociated);
        }
        let cipher = self.cfg.rsn.ok_or(Error::UnexpectedFrame)?.pairwise;
        self.keys = Some(Pairwise::new(cipher, tk)?);
        Ok(())
    }

    /// Installs the IGTK from the IGTK KDE of message 3 or of a group key
    /// handshake: its Key ID, key and IPN.
    pub fn install_igtk(&mut self, key_id: u16, key: &[u8], ipn: u64) -> Result<(), Error> {
        let c = self.group_mgmt.ok_or(Error::UnexpectedFrame)?;
        self.igtk = Some(GroupRx::new(c, key, key_id, ipn)?);
        Ok(())
    }

    /// Leaves: sends a Deauthentication (protected when PMF is in use)
    /// and goes idle.
    pub fn deauthenticate(&mut self, reason: ReasonCode) -> Result<(), Error> {
        let r = self.send_robust(MgmtSubtype::Deauthentication, &reason.0.to_le_bytes());
        self.reset();
        r
    }

    /// Starts an SA Query with the AP (needs PMF in use).
    pub fn start_sa_query(&mut self, now: Instant) -> Result<(), Error> {
        if !self.pmf_in_use() {
            return Err(Error::NoKey);
        }
        if self.sa_query.is_none() {
            let id = (self.rng.next_u32() & 0xffff) as u16;
            self.sa_query = Some(SaQuery::start(now, &self.cfg.sa_query, id));
            self.stats.sa_queries += 1;
            self.events.push(StaEvent::SaQueryStarted);
            self.send_sa_query(SaQueryAction::Request, id)?;
        }
        Ok(())
    }

    /// Queues an EAPOL PDU for the AP (unprotected: its MIC protects it).
    pub fn send_eapol(&mut self, pdu: &[u8]) -> Result<(), Error> {
        if self.state != StaState::Associated {
            return Err(Error::NotAssociated);
        }
        let (bssid, sa) = (self.bssid, self.cfg.addr);
        let seq = self.next_seq();
        self.txq.push(|b| {
            frames::data_frame(
                b,
                Addressing::ToAp {
                    bssid,
                    sa,
                    da: bssid,
                },
                seq,
                EtherType::EAPOL,
                pdu,
            )
        })
    }

    /// Queues an MSDU for the AP, protected with the PTK on an RSN
    /// association (refused before the PTK is installed).
    pub fn send_data(&mut self, ethertype: EtherType, payload: &[u8]) -> Result<(), Error> {
        if self.state != StaState::Associated {
            return Err(Error::NotAssociated);
        }
        if self.cfg.rsn.is_some() && self.keys.is_none() {
            return Err(Error::NoKey);
        }
        let (bssid, sa) = (self.bssid, self.cfg.addr);
        let seq = self.next_seq();
        let keys = &mut self.keys;
        self.txq.push(|b| {
            let n = frames::data_frame(
                b,
                Addressing::ToAp {
                    bssid,
                    sa,
                    da: bssid,
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

    /// Retries, comeback and SA Query timers.
    pub fn handle_timeout(&mut self, now: Instant) {
        if let Some(q) = self.sa_query.as_mut() {
            let id = (self.rng.next_u32() & 0xffff) as u16;
            match q.poll(now, &self.cfg.sa_query, || id) {
                SaQueryPoll::Wait => {}
                SaQueryPoll::Retry(id) => {
                    let _ = self.send_sa_query(SaQueryAction::Request, id);
                }
                SaQueryPoll::TimedOut => {
                    // 11.13: no protected answer: the AP lost the
                    // association; so does the station.
                    self.reset();
                    self.events.push(StaEvent::SaQueryTimedOut);
                }
            }
        }
        let Some(d) = self.deadline else {
            return;
        };
        if d > now {
            return;
        }
        if matches!(self.state, StaState::Idle | StaState::Associated) {
            self.deadline = None;
            return;
        }
        // A comeback deadline is not a failed attempt: the AP asked for
        // the wait.
        let comeback = self.state == StaState::Associating && self.attempts == 0;
        if !comeback {
            self.events.push(StaEvent::AttemptFailed { status: None });
            if self.attempts >= self.cfg.max_attempts {
                self.reset();
                self.events.push(StaEvent::Failed);
                return;
            }
        }
        self.attempts = self.attempts.max(1) + u8::from(!comeback);
        match self.state {
            StaState::Scanning => self.send_probe(now),
            // A lost association response may mean the AP forgot us:
            // start again from authentication, which an AP always answers.
            StaState::Authenticating => self.send_auth(now),
            StaState::Associating if !comeback => self.send_auth(now),
            StaState::Associating => self.send_assoc(now),
            StaState::Idle | StaState::Associated => {}
        }
    }

    /// Handles one received frame (MAC header and body, no FCS).
    pub fn handle_rx(&mut self, now: Instant, frame: &[u8]) -> Result<Rx<'_>, Error> {
        let r = match Header::new_checked(frame) {
            Ok(h) if h.frame_control().is_mgmt() => self.rx_mgmt(now, frame).map(|()| None),
            Ok(h) if h.frame_control().is_data() => self.rx_data(frame).map(Some),
            Ok(_) => Err(Error::UnexpectedFrame),
            Err(e) => Err(Error::Malformed(e)),
        };
        match r {
            Err(e) => {
                self.stats.rejected += 1;
                if e == Error::Unprotected {
                    self.stats.unprotected_dropped += 1;
                }
                Err(e)
            }
            Ok(None) => Ok(Rx::Handled),
            Ok(Some(n)) => frames::delivered(&self.scratch, n),
        }
    }

    fn rx_data(&mut self, frame: &[u8]) -> Result<usize, Error> {
        let h = Header::new_checked(frame)?;
        let fc = h.frame_control();
        if !fc.from_ds()
            || fc.to_ds()
            || h.addr1() != self.cfg.addr
            || h.addr2() != Some(self.bssid)
        {
            return Err(Error::NotForUs);
        }
        if self.state != StaState::Associated {
            return Err(Error::NotAssociated);
        }
        let plain = copy_in(&mut self.scratch, frame)?;
        if fc.protected() {
            let k = self.keys.as_mut().ok_or(Error::NoKey)?;
            return k.unprotect(plain);
        }
        let eapol = DataFrame::new_checked(&*plain)?.ethertype() == Some(EtherType::EAPOL);
        if self.cfg.rsn.is_some() && !eapol {
            return Err(Error::Unprotected);
        }
        Ok(frame.len())
    }

    fn rx_mgmt(&mut self, now: Instant, frame: &[u8]) -> Result<(), Error> {
        let f = MgmtFrame::new_checked(frame)?;
        let h = f.header();
        let a1 = h.addr1();
        if h.addr2() != Some(self.bssid) && self.state != StaState::Idle {
            return Err(Error::NotForUs);
        }
        if a1 != self.cfg.addr && !a1.is_group() {
            return Err(Error::NotForUs);
        }
        let protected = f.frame_control().protected();
        let mut local = [0u8; MAX_FRAME];
        let plain_len = if protected {
            if a1.is_group() {
                return Err(Error::UnexpectedFrame);
            }
            let k = self.keys.as_mut().ok_or(Error::NoKey)?;
            let b = copy_in(&mut self.scratch, frame)?;
            k.unprotect(b)?
        } else {
            frame.len()
        };
        let src = if protected { &self.scratch[..] } else { frame };
        let n = plain_len.min(MAX_FRAME);
        local[..n].copy_from_slice(src.get(..n).unwrap_or(&[]));
        let mut f = MgmtFrame::new_checked(&local[..n])?;
        let robust = f.is_robust();
        if self.pmf_in_use() && robust {
            if a1.is_group() {
                // 12.5.4.5: group-addressed robust frames need a valid MME
                // with a fresh IPN under the IGTK.
                let g = self.igtk.as_mut().ok_or(Error::MissingMme)?;
                let stripped = g.verify(&local[..n])?;
                f = MgmtFrame::new_checked(&local[..stripped])?;
            } else if !protected {
                // 12.6.19: dropped. 11.13: an unprotected Deauthentication
                // or Disassociation with reason 6 or 7 may mean the AP lost
                // our association: ask it, protected.
                let sub = f.subtype();
                let reason = f.reason_code();
                let asks = matches!(
                    sub,
                    MgmtSubtype::Deauthentication | MgmtSubtype::Disassociation
                ) && matches!(
                    reason,
                    Some(ReasonCode::CLASS2_FRAME_FROM_NONAUTH_STA)
                        | Some(ReasonCode::CLASS3_FRAME_FROM_NONASSOC_STA)
                );
                if asks {
                    let _ = self.start_sa_query(now);
                }
                return Err(Error::Unprotected);
            }
        } else if protected && !robust {
            return Err(Error::UnexpectedFrame);
        }
        match f.subtype() {
            MgmtSubtype::Beacon | MgmtSubtype::ProbeResponse => self.rx_beacon(now, &f),
            MgmtSubtype::Authentication => {
                if self.state != StaState::Authenticating
                    || f.auth_algorithm() != Some(AuthAlgorithm::OpenSystem)
                    || f.auth_seq() != Some(2)
                {
                    return Err(Error::UnexpectedFrame);
                }
                let status = f.status_code().ok_or(Error::UnexpectedFrame)?;
                if !status.is_success() {
                    self.events.push(StaEvent::AttemptFailed {
                        status: Some(status),
                    });
                    return Ok(());
                }
                self.attempts = 1;
                self.send_assoc(now);
                Ok(())
            }
            MgmtSubtype::AssocResponse | MgmtSubtype::ReassocResponse => {
                self.rx_assoc_response(now, &f)
            }
            MgmtSubtype::Deauthentication | MgmtSubtype::Disassociation => {
                if self.state == StaState::Idle || self.state == StaState::Scanning {
                    return Err(Error::UnexpectedFrame);
                }
                let reason = f.reason_code().ok_or(Error::UnexpectedFrame)?;
                let deauth = f.subtype() == MgmtSubtype::Deauthentication;
                if self.state != StaState::Associated {
                    // Refused while joining (the AP does not know us):
                    // one failed attempt; start again from authentication.
                    self.events.push(StaEvent::AttemptFailed { status: None });
                    if self.attempts >= self.cfg.max_attempts {
                        self.reset();
                        self.events.push(StaEvent::Failed);
                    } else {
                        self.attempts += 1;
                        self.send_auth(now);
                    }
                    return Ok(());
                }
                self.reset();
                self.events.push(if deauth {
                    StaEvent::Deauthenticated { reason }
                } else {
                    StaEvent::Disassociated { reason }
                });
                Ok(())
            }
            MgmtSubtype::Action => {
                if f.category() != Some(ActionCategory::SaQuery) || a1.is_group() {
                    return Err(Error::UnexpectedFrame);
                }
                if self.state != StaState::Associated {
                    return Err(Error::NotAssociated);
                }
                let q = SaQueryFrame::parse(f.body())?;
                match q.action {
                    SaQueryAction::Request => {
                        self.send_sa_query(SaQueryAction::Response, q.transaction_id)
                    }
                    SaQueryAction::Response => {
                        if !self.sa_query.is_some_and(|s| s.matches(q.transaction_id)) {
                            return Err(Error::UnexpectedFrame);
                        }
                        self.sa_query = None;
                        self.events.push(StaEvent::SaQueryConfirmed);
                        Ok(())
                    }
                }
            }
            _ => Err(Error::UnexpectedFrame),
        }
    }

    fn rx_beacon(&mut self, now: Instant, f: &MgmtFrame<&[u8]>) -> Result<(), Error> {
        if self.state != StaState::Scanning {
            return Err(Error::UnexpectedFrame);
        }
        if f.elements().ssid() != Some(self.cfg.ssid.as_bytes()) {
            return Err(Error::NotForUs);
        }
        let rsne = f.elements().find_id(ElementId::RSN);
        match (self.cfg.rsn, rsne) {
            (None, _) => {
                self.ap_rsne = None;
                self.group_mgmt = None;
            }
            (Some(_), None) => {
                self.reset();
                self.events.push(StaEvent::Failed);
                return Err(Error::Refused(StatusCode::INVALID_ELEMENT));
            }
            (Some(own), Some(el)) => {
                let ap = Rsne::from_element(el)?;
                let fits = ap.pairwise_or_default().contains(own.pairwise)
                    && ap.akms_or_default().contains(own.akm);
                // 12.6.3: a STA that requires protection does not join an
                // AP that is not capable of it (and MFPR without MFPC is
                // invalid).
                let pmf = negotiate(
                    ap.capabilities_or_default(),
                    own.mfp.apply(RsnCapabilities(0)),
                );
                let pmf = match pmf {
                    Ok(p) if fits => p,
                    Ok(_) => {
                        self.reset();
                        self.events.push(StaEvent::Failed);
                        return Err(Error::Refused(StatusCode::INVALID_PAIRWISE_CIPHER));
                    }
                    Err(e) => {
                        self.reset();
                        self.events.push(StaEvent::Failed);
                        return Err(Error::Negotiation(e));
                    }
                };
                self.group_mgmt = pmf.then(|| ap.group_mgmt_cipher_or_default());
                self.ap_rsne =
                    Some(ElementBuf::from_element(el).map_err(|_| Error::BufferTooSmall)?);
                self.own_rsne = Some(self.build_rsne(own, ap.group_data_cipher_or_default())?);
            }
        }
        self.attempts = 1;
        self.send_auth(now);
        Ok(())
    }

    fn build_rsne(&self, own: RsnConfig, group: CipherSuite) -> Result<ElementBuf, Error> {
        let pairwise = [own.pairwise];
        let akms = [own.akm];
        let mut b = [0u8; 64];
        let n = Rsne {
            group_data_cipher: Some(group),
            pairwise: Some(List::Items(&pairwise)),
            akms: Some(List::Items(&akms)),
            capabilities: Some(own.mfp.apply(RsnCapabilities(0))),
            group_mgmt_cipher: self.group_mgmt,
            ..Rsne::default()
        }
        .emit(&mut b)
        .map_err(|_| Error::BufferTooSmall)?;
        ElementBuf::new(b.get(..n).unwrap_or(&[])).map_err(|_| Error::BufferTooSmall)
    }

    fn rx_assoc_response(&mut self, now: Instant, f: &MgmtFrame<&[u8]>) -> Result<(), Error> {
        // Only the answer to our own request counts: a response to a
        // request an attacker sent in our name finds us in another state.
        if self.state != StaState::Associating || self.deadline.is_none() {
            return Err(Error::UnexpectedFrame);
        }
        let status = f.status_code().ok_or(Error::UnexpectedFrame)?;
        if status == StatusCode::ASSOC_REJECTED_TEMPORARILY {
            let tu = f
                .elements()
                .find_id(ElementId::TIMEOUT_INTERVAL)
                .and_then(|e| sa_query::parse_comeback(e.data))
                .unwrap_or(1000)
                .max(1);
            // 11.3.5.3: retry after the comeback time.
            self.deadline = Some(now + sa_query::tu(tu));
            self.attempts = 0;
            self.events
                .push(StaEvent::RejectedTemporarily { comeback_tu: tu });
            return Ok(());
        }
        if !status.is_success() {
            self.events.push(StaEvent::AttemptFailed {
                status: Some(status),
            });
            return Ok(());
        }
        self.aid = f.aid().map_or(0, |a| a & 0x3fff);
        self.pmf = self.group_mgmt.is_some();
        self.state = StaState::Associated;
        self.deadline = None;
        self.keys = None;
        self.igtk = None;
        self.events.push(StaEvent::Associated {
            bssid: self.bssid,
            aid: self.aid,
            pmf: self.pmf,
        });
        Ok(())
    }

    fn send_probe(&mut self, now: Instant) {
        self.deadline = Some(now + self.cfg.response_timeout);
        let (a1, sa) = (self.bssid, self.cfg.addr);
        let ssid = self.cfg.ssid;
        let seq = self.next_seq();
        let _ = self.txq.push(|b| {
            let n = frames::mgmt_header(b, MgmtSubtype::ProbeRequest, a1, sa, a1, seq)?;
            let s = ssid.as_bytes();
            let n = frames::put(b, n, &[ElementId::SSID.0, s.len() as u8])?;
            let n = frames::put(b, n, s)?;
            let n = frames::put(b, n, &[ElementId::SUPPORTED_RATES.0, RATES.len() as u8])?;
            frames::put(b, n, &RATES)
        });
    }

    fn send_auth(&mut self, now: Instant) {
        self.state = StaState::Authenticating;
        self.deadline = Some(now + self.cfg.response_timeout);
        let (bssid, sa) = (self.bssid, self.cfg.addr);
        let seq = self.next_seq();
        let _ = self.txq.push(|b| {
            let n = frames::mgmt_header(b, MgmtSubtype::Authentication, bssid, sa, bssid, seq)?;
            let n = frames::put(b, n, &AuthAlgorithm::OpenSystem.to_u16().to_le_bytes())?;
            let n = frames::put(b, n, &1u16.to_le_bytes())?;
            frames::put(b, n, &0u16.to_le_bytes())
        });
    }

    fn send_assoc(&mut self, now: Instant) {
        self.state = StaState::Associating;
        self.deadline = Some(now + self.cfg.response_timeout);
        let (bssid, sa) = (self.bssid, self.cfg.addr);
        let ssid = self.cfg.ssid;
        let rsne = self.own_rsne;
        let mut cap = CapabilityInfo::ESS;
        if self.cfg.rsn.is_some() {
            cap |= CapabilityInfo::PRIVACY;
        }
        let seq = self.next_seq();
        let _ = self.txq.push(|b| {
            let n = frames::mgmt_header(b, MgmtSubtype::AssocRequest, bssid, sa, bssid, seq)?;
            let n = frames::put(b, n, &cap.to_le_bytes())?;
            let n = frames::put(b, n, &10u16.to_le_bytes())?;
            let s = ssid.as_bytes();
            let n = frames::put(b, n, &[ElementId::SSID.0, s.len() as u8])?;
            let n = frames::put(b, n, s)?;
            let n = frames::put(b, n, &[ElementId::SUPPORTED_RATES.0, RATES.len() as u8])?;
            let n = frames::put(b, n, &RATES)?;
            match &rsne {
                Some(r) => frames::put(b, n, r.as_bytes()),
                None => Ok(n),
            }
        });
    }

    fn send_sa_query(&mut self, action: SaQueryAction, id: u16) -> Result<(), Error> {
        let mut d = [0u8; sa_query::LEN];
        SaQueryFrame {
            action,
            transaction_id: id,
        }
        .emit(&mut d)?;
        self.send_robust(MgmtSubtype::Action, &d)
    }

    fn send_robust(&mut self, subtype: MgmtSubtype, body: &[u8]) -> Result<(), Error> {
        let (bssid, sa) = (self.bssid, self.cfg.addr);
        let seq = self.next_seq();
        let keys = if self.pmf_in_use() {
            self.keys.as_mut()
        } else {
            None
        };
        self.txq.push(|b| {
            let n = frames::mgmt_header(b, subtype, bssid, sa, bssid, seq)?;
            let n = frames::put(b, n, body)?;
            match keys {
                Some(k) => k.protect(b, n),
                None => Ok(n),
            }
        })
    }
}
