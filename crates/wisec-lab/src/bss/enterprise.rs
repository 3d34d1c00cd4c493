//! WPA2-Enterprise in the BSS nodes: the AP's IEEE 802.1X authenticator
//! ([`wisec_proto::dot1x`]) relaying EAP between a station and a RADIUS
//! server, and the station's port control.
//!
//! The AP starts EAP right after a station associates (EAP-Request/
//! Identity), sends what the authenticator has for the station as EAPOL
//! frames, and puts its RADIUS packets in a port ([`SharedPort`]) that a
//! live driver connects to a UDP socket; the server's answers come back
//! through the same port. On Access-Accept the PMK — the first 256 bits
//! of the MSK (IEEE Std 802.11-2020, 12.7.1.3) — starts the 4-way
//! handshake with AKM 00-0F-AC:1. On a failure the AP deauthenticates the
//! station (reason 23, IEEE 802.1X authentication failed).
//!
//! The station is IEEE 802.1X port control on a TAP device (IEEE Std
//! 802.1X-2020, 6.4): until its keys are installed only EAPOL crosses the
//! uncontrolled port between the TAP's supplicant (wpa_supplicant) and
//! the AP; EAPOL-Key frames go to the station's own 4-way supplicant,
//! which waits for the MSK that the EAP peer derived: it arrives as a
//! datagram on the station's key port.

use super::{
    association, negotiated_for, rsne, rsne_for, ApNode, StaNode, StaPhase, BSSID, EAPOL, T_MGMT,
    T_RX,
};
use crate::node::Ctx;
use crate::port::SharedPort;
use crate::time::Time;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use wisec_crypto::ptk::Pmk;
use wisec_proto::dot1x::{self, Authenticator as EapAuthenticator, Event, Failure};
use wisec_proto::fourway::{Authenticator, Supplicant, Timing};
use wisec_proto::radius::{IdPool, Msk};
use wisec_wire::element::Akm;
use wisec_wire::{Addressing, DataFrameRepr, MacAddr, MgmtBody, ReasonCode};
use zeroize::{Zeroize, Zeroizing};

/// Whether an EAPOL PDU is an EAPOL-Key frame (which belongs to the 4-way
/// handshake, not to EAP).
pub(super) fn is_eapol_key(pdu: &[u8]) -> bool {
    pdu.get(1) == Some(&3)
}

/// How an authentication ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dot1xOutcome {
    /// Access-Accept with an MSK: the 4-way handshake follows.
    Accepted,
    /// Access-Accept without keys (EAP-MD5): the station cannot be keyed.
    AcceptedWithoutKeys,
    /// Access-Reject.
    Rejected,
    /// The RADIUS server did not answer.
    ServerTimeout,
    /// The station did not answer.
    SupplicantTimeout,
    /// EAPOL-Logoff.
    Logoff,
    /// The AP could not build a request.
    Internal,
}

impl Dot1xOutcome {
    fn of(f: Failure) -> Dot1xOutcome {
        match f {
            Failure::Rejected => Dot1xOutcome::Rejected,
            Failure::ServerTimeout => Dot1xOutcome::ServerTimeout,
            Failure::SupplicantTimeout => Dot1xOutcome::SupplicantTimeout,
            Failure::Logoff => Dot1xOutcome::Logoff,
            Failure::Internal => Dot1xOutcome::Internal,
        }
    }

    /// What it means, for reports.
    pub fn describe(self) -> String {
        let f = match self {
            Dot1xOutcome::Accepted => return "accepted".into(),
            Dot1xOutcome::AcceptedWithoutKeys => return "accepted without keys".into(),
            Dot1xOutcome::Rejected => Failure::Rejected,
            Dot1xOutcome::ServerTimeout => Failure::ServerTimeout,
            Dot1xOutcome::SupplicantTimeout => Failure::SupplicantTimeout,
            Dot1xOutcome::Logoff => Failure::Logoff,
            Dot1xOutcome::Internal => Failure::Internal,
        };
        f.to_string()
    }
}

/// One authentication of a station at the AP.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Dot1xRecord {
    /// The station.
    pub station: String,
    /// The identity it gave.
    pub identity: String,
    /// How it ended (`None` while it runs).
    pub outcome: Option<Dot1xOutcome>,
    /// When the AP sent EAP-Request/Identity (virtual seconds).
    pub started_s: f64,
    /// When the first Access-Request went out.
    pub first_request_s: Option<f64>,
    /// When the Access-Accept or -Reject arrived.
    pub verdict_s: Option<f64>,
    /// EAP packets sent to the station (first transmissions).
    pub eap_to_station: u32,
    /// EAP packets relayed from the station.
    pub eap_from_station: u32,
    /// Access-Requests (first transmissions): the RADIUS round trips.
    pub radius_requests: u32,
    /// Access-Requests sent again.
    pub radius_retransmissions: u32,
    /// EAP-Requests sent again.
    pub eap_retransmissions: u32,
    /// RADIUS packets discarded (bad authenticator, unknown identifier).
    pub radius_discarded: u32,
    /// Time spent waiting for the server, ms.
    pub server_wait_ms: f64,
    /// The MSK of the Access-Accept, hex (the lab's keys are not secret:
    /// they let tshark and `wisec decrypt` read the capture).
    pub msk_hex: Option<String>,
}

/// The AP's 802.1X state.
pub(super) struct ApDot1x {
    cfg: dot1x::Config,
    port: SharedPort,
    ids: IdPool,
    /// RADIUS Identifier of an outstanding request → its station.
    route: BTreeMap<u8, MacAddr>,
    log: Vec<Dot1xRecord>,
    /// The station's record in `log`.
    current: BTreeMap<MacAddr, usize>,
}

/// The EAPOL data frame for `sta` (from the AP, not protected).
fn eapol_frame(seq: u16, da: MacAddr, sa: MacAddr, to_ap: bool, pdu: &[u8]) -> Option<Vec<u8>> {
    let a = if to_ap {
        Addressing::ToAp {
            bssid: BSSID,
            sa,
            da,
        }
    } else {
        Addressing::FromAp {
            da,
            bssid: BSSID,
            sa,
        }
    };
    let repr = DataFrameRepr::msdu(a.header(None, seq), EAPOL, pdu);
    let mut buf = vec![0u8; repr.buffer_len().ok()?];
    repr.emit(&mut buf).ok()?;
    Some(buf)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl ApNode {
    /// Makes the BSS WPA2-Enterprise: AKM 00-0F-AC:1 in the RSNE, an
    /// 802.1X authenticator configured by `cfg` for every station, its
    /// RADIUS packets through `radius` (see the module's documentation).
    /// RSN suites only.
    pub fn set_dot1x(&mut self, cfg: dot1x::Config, radius: SharedPort) {
        self.rsne = rsne_for(self.sec, Akm::IEEE8021X);
        self.dot1x = Some(Box::new(ApDot1x {
            cfg,
            port: radius,
            ids: IdPool::new(0),
            route: BTreeMap::new(),
            log: Vec::new(),
            current: BTreeMap::new(),
        }));
    }

    /// Every authentication the AP ran, in order.
    pub fn dot1x_log(&self) -> Vec<Dot1xRecord> {
        self.dot1x.as_ref().map_or_else(Vec::new, |d| d.log.clone())
    }

    /// Starts EAP with `sta`, which has just associated.
    pub(super) fn dot1x_start(&mut self, now: Time, sta: MacAddr, ctx: &mut Ctx<'_>) {
        let Some(d) = self.dot1x.as_mut() else {
            return;
        };
        let Some(c) = self.clients.get_mut(&sta) else {
            return;
        };
        let mut a = Box::new(EapAuthenticator::new(sta));
        a.start(super::now_instant(now), &d.cfg, &mut d.ids, &mut self.rng);
        c.eap = Some(a);
        d.log.push(Dot1xRecord {
            station: sta.to_string(),
            started_s: now.as_secs_f64(),
            ..Dot1xRecord::default()
        });
        d.current.insert(sta, d.log.len() - 1);
        self.dot1x_pump(now, sta, ctx);
    }

    /// An EAPOL PDU other than EAPOL-Key from `sta`.
    pub(super) fn dot1x_eapol(&mut self, now: Time, sta: MacAddr, pdu: &[u8], ctx: &mut Ctx<'_>) {
        let Some(d) = self.dot1x.as_mut() else {
            return;
        };
        let Some(a) = self.clients.get_mut(&sta).and_then(|c| c.eap.as_mut()) else {
            return;
        };
        a.handle_eapol(
            super::now_instant(now),
            pdu,
            &d.cfg,
            &mut d.ids,
            &mut self.rng,
        );
        self.dot1x_pump(now, sta, ctx);
    }

    /// RADIUS packets from the server, routed to their station by their
    /// Identifier.
    pub(super) fn dot1x_input(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        let Some(d) = self.dot1x.as_mut() else {
            return;
        };
        let packets = d.port.borrow_mut().take_due(now);
        for p in packets {
            let Some(d) = self.dot1x.as_mut() else {
                return;
            };
            let Some(&sta) = p.get(1).and_then(|id| d.route.get(id)) else {
                continue;
            };
            let Some(a) = self.clients.get_mut(&sta).and_then(|c| c.eap.as_mut()) else {
                continue;
            };
            let before = a.radius_id();
            if a.handle_radius(super::now_instant(now), &p, &d.cfg, &mut d.ids)
                .is_ok()
            {
                if let Some(id) = before {
                    d.route.remove(&id);
                }
            }
            self.dot1x_pump(now, sta, ctx);
        }
    }

    /// Retransmissions and give-ups that are due.
    pub(super) fn dot1x_timeouts(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        let Some(d) = self.dot1x.as_mut() else {
            return;
        };
        let mut due = Vec::new();
        for (sta, c) in &mut self.clients {
            if let Some(a) = c.eap.as_mut() {
                if a.poll_timeout()
                    .is_some_and(|t| super::instant_time(t) <= now)
                {
                    let before = a.radius_id();
                    a.handle_timeout(super::now_instant(now), &d.cfg, &mut d.ids);
                    if before.is_some() && a.radius_id().is_none() {
                        if let Some(id) = before {
                            d.route.remove(&id);
                        }
                    }
                    due.push(*sta);
                }
            }
        }
        for sta in due {
            self.dot1x_pump(now, sta, ctx);
        }
    }

    /// Sends what the authenticator of `sta` has (EAPOL to the station,
    /// RADIUS to the server) and acts on its verdict.
    fn dot1x_pump(&mut self, now: Time, sta: MacAddr, ctx: &mut Ctx<'_>) {
        let Some(d) = self.dot1x.as_mut() else {
            return;
        };
        let Some(c) = self.clients.get_mut(&sta) else {
            return;
        };
        let Some(a) = c.eap.as_mut() else {
            return;
        };
        let keyed = c.keys.pairwise.is_some();
        let eapol = a.poll_eapol().map(<[u8]>::to_vec);
        if let Some(p) = a.poll_radius() {
            if let Some(&id) = p.get(1) {
                d.route.insert(id, sta);
            }
            d.port.borrow_mut().deliver(now, p.to_vec());
        }
        let event = a.poll_event();
        let timeout = a.poll_timeout();
        let stats = a.stats();
        let identity = String::from_utf8_lossy(a.identity()).into_owned();
        let msk = a.msk().cloned();
        if let Some(r) = d.current.get(&sta).and_then(|&i| d.log.get_mut(i)) {
            let at = |t: Option<wisec_proto::time::Instant>| {
                t.map(|t| super::instant_time(t).as_secs_f64())
            };
            r.identity = identity;
            r.first_request_s = at(stats.first_request_at);
            r.verdict_s = at(stats.verdict_at);
            r.eap_to_station = stats.eap_to_station;
            r.eap_from_station = stats.eap_from_station;
            r.radius_requests = stats.radius_requests;
            r.radius_retransmissions = stats.radius_retransmissions;
            r.eap_retransmissions = stats.eap_retransmissions;
            r.radius_discarded = stats.radius_discarded;
            r.server_wait_ms = stats.server_wait_us as f64 / 1000.0;
            match event {
                Some(Event::Accepted { keys: true }) => {
                    r.outcome = Some(Dot1xOutcome::Accepted);
                    r.msk_hex = msk.as_ref().map(|m| hex(m.as_bytes()));
                }
                Some(Event::Accepted { keys: false }) => {
                    r.outcome = Some(Dot1xOutcome::AcceptedWithoutKeys);
                }
                Some(Event::Failed(f)) => r.outcome = Some(Dot1xOutcome::of(f)),
                None => {}
            }
        }
        if let Some(pdu) = eapol {
            if keyed {
                // A station that re-authenticates has keys: protect it.
                let mut eth = Vec::with_capacity(14 + pdu.len());
                eth.extend_from_slice(&sta.0);
                eth.extend_from_slice(&BSSID.0);
                eth.extend_from_slice(&EAPOL.0.to_be_bytes());
                eth.extend_from_slice(&pdu);
                self.forward(now, &eth, ctx);
            } else {
                let seq = self.radio.next_seq();
                if let Some(f) = eapol_frame(seq, sta, BSSID, false, &pdu) {
                    self.radio.queue(ctx, now, f);
                }
            }
        }
        if let Some(t) = timeout {
            self.radio.timer(ctx, T_MGMT, super::instant_time(t));
        }
        match event {
            Some(Event::Accepted { keys: true }) => {
                if let Some(m) = msk {
                    self.dot1x_keys(now, sta, &m, ctx);
                }
            }
            Some(Event::Failed(_)) => {
                // 12.7.10 / IEEE 802.1X: the port stays unauthorized; the
                // station learns it with a Deauthentication, reason 23.
                self.clients.remove(&sta);
                let body = MgmtBody::Deauthentication {
                    reason: ReasonCode(23),
                };
                self.send_mgmt(
                    ctx,
                    wisec_wire::mgmt::MgmtSubtype::Deauthentication,
                    sta,
                    body,
                    &[],
                );
            }
            _ => {}
        }
    }

    /// The PMK from `msk` starts the 4-way handshake with `sta`.
    fn dot1x_keys(&mut self, now: Time, sta: MacAddr, msk: &Msk, ctx: &mut Ctx<'_>) {
        let pmk_bytes = Zeroizing::new(msk.pmk());
        let (Some(neg), Some(r), Some(gk), Ok(pmk)) = (
            negotiated_for(self.sec, Akm::IEEE8021X),
            self.rsne.clone(),
            self.group_keys.clone(),
            Pmk::new(&pmk_bytes[..]),
        ) else {
            return;
        };
        let Some(assoc) = association(neg, &r, sta) else {
            return;
        };
        let Some(c) = self.clients.get_mut(&sta) else {
            return;
        };
        c.auth = Authenticator::new(assoc, pmk, gk, Timing::default())
            .ok()
            .map(Box::new);
        if let Some(a) = c.auth.as_mut() {
            // 12.7.6.2: the authenticator starts with message 1.
            let _ = a.start(super::now_instant(now), &mut self.rng);
        }
        self.pump_eapol(now, sta, ctx);
    }
}

/// A station's 802.1X state.
pub(super) struct StaDot1x {
    keys: SharedPort,
    /// EAPOL-Key frames that came before the MSK.
    pending: VecDeque<Vec<u8>>,
    msk: Option<Msk>,
    msk_at: Option<Time>,
}

impl StaDot1x {
    /// A new association: nothing learnt.
    pub(super) fn reset(&mut self) {
        self.pending.clear();
        self.msk = None;
        self.msk_at = None;
    }
}

impl StaNode {
    /// Makes the station a WPA2-Enterprise station: AKM 00-0F-AC:1, EAPOL
    /// between the air and its TAP's supplicant before its keys are
    /// installed, and the MSK of each authentication read from `keys` (a
    /// datagram of the MSK's octets; see the module's documentation).
    pub fn set_dot1x(&mut self, keys: SharedPort) {
        self.dot1x = Some(Box::new(StaDot1x {
            keys,
            pending: VecDeque::new(),
            msk: None,
            msk_at: None,
        }));
    }

    /// The MSK of the current association, once the supplicant gave it.
    pub fn msk(&self) -> Option<&[u8]> {
        self.dot1x.as_ref()?.msk.as_ref().map(Msk::as_bytes)
    }

    /// When the MSK arrived (virtual time).
    pub fn msk_at(&self) -> Option<Time> {
        self.dot1x.as_ref()?.msk_at
    }

    /// The RSNE the station sends and expects.
    pub(super) fn own_rsne(&self) -> Option<Vec<u8>> {
        if self.dot1x.is_some() {
            rsne_for(self.sec, Akm::IEEE8021X)
        } else {
            rsne(self.sec)
        }
    }

    /// Associated: EAP comes next; keys wait for the MSK.
    pub(super) fn dot1x_associated(&mut self) {
        if let Some(d) = self.dot1x.as_mut() {
            d.reset();
        }
        self.supp = None;
        self.phase = StaPhase::Handshake;
    }

    /// Creates the 4-way supplicant once associated and the MSK is known.
    fn dot1x_supplicant(&mut self) {
        if self.supp.is_some() || self.phase != StaPhase::Handshake {
            return;
        }
        let Some(m) = self.dot1x.as_ref().and_then(|d| d.msk.clone()) else {
            return;
        };
        let pmk_bytes = Zeroizing::new(m.pmk());
        let (Some(neg), Some(r), Ok(pmk)) = (
            negotiated_for(self.sec, Akm::IEEE8021X),
            self.own_rsne(),
            Pmk::new(&pmk_bytes[..]),
        ) else {
            return;
        };
        let Some(assoc) = association(neg, &r, self.addr) else {
            return;
        };
        self.supp = Supplicant::new(assoc, pmk).ok().map(Box::new);
    }

    /// An EAPOL PDU from the AP: EAPOL-Key to the 4-way supplicant (held
    /// until the MSK is there), EAP to the TAP's supplicant.
    pub(super) fn dot1x_eapol_from_ap(&mut self, now: Time, pdu: Vec<u8>, ctx: &mut Ctx<'_>) {
        if is_eapol_key(&pdu) {
            self.dot1x_supplicant();
            if self.supp.is_some() {
                self.on_eapol(now, &pdu, ctx);
            } else if let Some(d) = self.dot1x.as_mut() {
                if d.pending.len() < 8 {
                    d.pending.push_back(pdu);
                }
            }
            return;
        }
        let mut eth = Vec::with_capacity(14 + pdu.len());
        eth.extend_from_slice(&self.addr.0);
        eth.extend_from_slice(&BSSID.0);
        eth.extend_from_slice(&EAPOL.0.to_be_bytes());
        eth.extend_from_slice(&pdu);
        self.rxq.push_back((now, eth));
        self.radio.timer(ctx, T_RX, now);
    }

    /// MSKs from the key port: the 4-way supplicant starts, and takes the
    /// EAPOL-Key frames that waited for it.
    pub(super) fn dot1x_keys(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        let Some(d) = self.dot1x.as_mut() else {
            return;
        };
        let keys = d.keys.borrow_mut().take_due(now);
        let mut keys = keys;
        let m = keys.last().and_then(|k| Msk::new(k));
        keys.zeroize();
        let Some(m) = m else {
            return;
        };
        d.msk = Some(m);
        d.msk_at = Some(now);
        self.dot1x_supplicant();
        if self.supp.is_none() {
            return;
        }
        let pending: Vec<Vec<u8>> = self
            .dot1x
            .as_mut()
            .map(|d| d.pending.drain(..).collect())
            .unwrap_or_default();
        for p in pending {
            self.on_eapol(now, &p, ctx);
        }
    }

    /// The uncontrolled port: before the keys are installed an EAPOL frame
    /// from the TAP goes to the AP unprotected (true: taken); anything
    /// else is for the caller to drop.
    pub(super) fn dot1x_uncontrolled(&mut self, now: Time, eth: &[u8], ctx: &mut Ctx<'_>) -> bool {
        if self.dot1x.is_none()
            || self.phase != StaPhase::Handshake
            || eth.get(12..14) != Some(&EAPOL.0.to_be_bytes()[..])
        {
            return false;
        }
        let mut da = [0u8; 6];
        da.copy_from_slice(&eth[..6]);
        let seq = self.radio.next_seq();
        match eapol_frame(seq, MacAddr(da), self.addr, true, &eth[14..]) {
            Some(f) => {
                self.radio.stats.data_tx += 1;
                self.radio.queue(ctx, now, f);
            }
            None => self.radio.stats.tx_errors += 1,
        }
        true
    }
}
