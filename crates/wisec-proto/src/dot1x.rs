//! The IEEE 802.1X authenticator of an access point in pass-through mode
//! (IEEE Std 802.1X-2020, 8 and 12; RFC 3748, 2.3; RFC 3579): it asks a
//! station for its identity, relays the EAP conversation between the
//! station (EAPOL) and a RADIUS authentication server, and reports the
//! server's verdict with the MSK of an Access-Accept, from which the
//! 4-way handshake takes the PMK (IEEE Std 802.11-2020, 12.7.1.3).
//!
//! One [`Authenticator`] per station, driven like the other machines of
//! this crate: `handle_*` take what arrives (an EAPOL PDU from the
//! station, a RADIUS packet from the server, the time), and
//! [`Authenticator::poll_eapol`], [`Authenticator::poll_radius`],
//! [`Authenticator::poll_event`] and [`Authenticator::poll_timeout`] hand
//! out what to send and what happened. Each call produces at most one
//! EAPOL PDU and one RADIUS packet; the caller takes them after every
//! call. The RADIUS Identifiers come from an [`IdPool`] the caller shares
//! between the stations of one server socket.
//!
//! The authenticator starts the conversation itself after association
//! with an EAP-Request/Identity, as access points do, and restarts it on
//! EAPOL-Start. It relays what the server sends whatever its EAP Code:
//! LEAP puts an EAP-Success in an Access-Challenge and an EAP-Response in
//! the Access-Accept, and takes an EAP-Request from the station.

use crate::radius::{
    self, AccessRequest, IdPool, Msk, Nas, RadiusError, Secret, MAX_LEN, STATE_MAX,
};
use crate::rsn::Random;
use crate::time::Instant;
use wisec_wire::eap::{self, Code as EapCode, EapPacket, EapType};
use wisec_wire::eapol::{EapolFrame, PacketType};
use wisec_wire::radius::{AttrType, Code};
use wisec_wire::MacAddr;

/// The EAPOL Protocol Version the authenticator sends (802.1X-2004).
pub const EAPOL_VERSION: u8 = 2;
/// Longest EAP packet relayed (it must fit one 802.11 MSDU; FreeRADIUS
/// fragments TLS records to 1024 octets by default).
pub const EAP_MAX: usize = 2048;
/// Longest NAS-Identifier kept.
pub const NAS_ID_MAX: usize = 64;

/// How the authenticator is set up: the server's shared secret, what it
/// tells the server about itself, and its timers.
#[derive(Debug, Clone)]
pub struct Config {
    /// The RADIUS shared secret.
    pub secret: Secret,
    /// NAS-IP-Address.
    pub nas_ip: [u8; 4],
    nas_id: [u8; NAS_ID_MAX],
    nas_id_len: usize,
    /// The BSSID (Called-Station-Id).
    pub bssid: MacAddr,
    ssid: [u8; 32],
    ssid_len: usize,
    /// How long to wait for the station's answer to an EAP-Request before
    /// sending it again (IEEE Std 802.1X-2020, 8.2.2.1: suppTimeout).
    pub supplicant_timeout_ms: u64,
    /// Transmissions of an EAP-Request before giving up.
    pub supplicant_tries: u8,
    /// How long to wait for the server before sending an Access-Request
    /// again (hostapd's first RADIUS retransmission: 3 s).
    pub server_timeout_ms: u64,
    /// Transmissions of an Access-Request before giving up.
    pub server_tries: u8,
}

impl Config {
    /// A configuration with hostapd's timers: EAP-Requests every 3 s, 4
    /// times; Access-Requests every 3 s, 3 times. `None` if the secret is
    /// empty or longer than 128 octets, the NAS-Identifier longer than 64
    /// or the SSID longer than 32.
    pub fn new(
        secret: &[u8],
        nas_ip: [u8; 4],
        nas_identifier: &[u8],
        bssid: MacAddr,
        ssid: &[u8],
    ) -> Option<Config> {
        if nas_identifier.len() > NAS_ID_MAX || ssid.len() > 32 {
            return None;
        }
        let mut nas_id = [0u8; NAS_ID_MAX];
        nas_id[..nas_identifier.len()].copy_from_slice(nas_identifier);
        let mut s = [0u8; 32];
        s[..ssid.len()].copy_from_slice(ssid);
        Some(Config {
            secret: Secret::new(secret)?,
            nas_ip,
            nas_id,
            nas_id_len: nas_identifier.len(),
            bssid,
            ssid: s,
            ssid_len: ssid.len(),
            supplicant_timeout_ms: 3000,
            supplicant_tries: 4,
            server_timeout_ms: 3000,
            server_tries: 3,
        })
    }

    fn nas(&self) -> Nas<'_> {
        Nas {
            ip: self.nas_ip,
            identifier: &self.nas_id[..self.nas_id_len],
            bssid: self.bssid,
            ssid: &self.ssid[..self.ssid_len],
        }
    }
}

/// Why an authentication ended without success.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Failure {
    /// The server sent an Access-Reject.
    Rejected,
    /// The server did not answer any of the Access-Requests.
    ServerTimeout,
    /// The station did not answer any of the EAP-Requests.
    SupplicantTimeout,
    /// The station sent EAPOL-Logoff.
    Logoff,
    /// No RADIUS Identifier was free, or a packet could not be built.
    Internal,
}

impl core::fmt::Display for Failure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Failure::Rejected => "the RADIUS server rejected the station (Access-Reject)",
            Failure::ServerTimeout => "the RADIUS server did not answer",
            Failure::SupplicantTimeout => "the station did not answer the EAP requests",
            Failure::Logoff => "the station logged off (EAPOL-Logoff)",
            Failure::Internal => "the authenticator could not build a RADIUS request",
        })
    }
}

/// What the authenticator reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The server accepted the station; with `keys`, the Access-Accept
    /// carried an MSK ([`Authenticator::msk`]).
    Accepted {
        /// Whether an MSK came with it.
        keys: bool,
    },
    /// The authentication failed.
    Failed(Failure),
}

/// Where the conversation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Not started.
    Idle,
    /// Waiting for the station's answer to an EAP-Request.
    WaitStation,
    /// Waiting for the server's answer to an Access-Request.
    WaitServer,
    /// Accepted.
    Authenticated,
    /// Failed.
    Failed(Failure),
}

/// Counters and times of one authentication.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// EAP-Requests (and other EAP packets) sent to the station, first
    /// transmissions: the EAP round trips on the air.
    pub eap_to_station: u32,
    /// EAP packets relayed from the station.
    pub eap_from_station: u32,
    /// Access-Requests sent, first transmissions: the RADIUS round trips.
    pub radius_requests: u32,
    /// Access-Requests sent again after a timeout.
    pub radius_retransmissions: u32,
    /// EAP-Requests sent again after a timeout.
    pub eap_retransmissions: u32,
    /// RADIUS packets discarded (bad authenticator, unknown identifier).
    pub radius_discarded: u32,
    /// When the first Access-Request went out.
    pub first_request_at: Option<Instant>,
    /// When the final Access-Accept or -Reject arrived.
    pub verdict_at: Option<Instant>,
    /// Time spent waiting for the server, summed over the exchanges
    /// (microseconds).
    pub server_wait_us: u64,
}

/// An Access-Request waiting for its answer.
#[derive(Debug, Clone, Copy)]
struct Outstanding {
    id: u8,
    authenticator: [u8; 16],
    len: usize,
    tries: u8,
    first_sent: Instant,
    deadline: Instant,
}

/// The 802.1X authenticator for one station.
pub struct Authenticator {
    sta: MacAddr,
    state: State,
    /// Identifier of the last EAP packet sent to the station.
    eap_id: u8,
    identity: [u8; 253],
    identity_len: usize,
    radius_state: [u8; STATE_MAX],
    radius_state_len: Option<usize>,
    /// The last EAP packet for the station, for retransmission.
    to_station: [u8; EAP_MAX],
    to_station_len: usize,
    station_tries: u8,
    station_deadline: Option<Instant>,
    eapol_out: [u8; EAP_MAX + 4],
    eapol_len: Option<usize>,
    radius_out: [u8; MAX_LEN],
    radius_pending: bool,
    outstanding: Option<Outstanding>,
    event: Option<Event>,
    msk: Option<Msk>,
    stats: Stats,
}

impl core::fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Authenticator")
            .field("sta", &self.sta)
            .field("state", &self.state)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Authenticator {
    /// An authenticator for station `sta`.
    pub fn new(sta: MacAddr) -> Authenticator {
        Authenticator {
            sta,
            state: State::Idle,
            eap_id: 0,
            identity: [0; 253],
            identity_len: 0,
            radius_state: [0; STATE_MAX],
            radius_state_len: None,
            to_station: [0; EAP_MAX],
            to_station_len: 0,
            station_tries: 0,
            station_deadline: None,
            eapol_out: [0; EAP_MAX + 4],
            eapol_len: None,
            radius_out: [0; MAX_LEN],
            radius_pending: false,
            outstanding: None,
            event: None,
            msk: None,
            stats: Stats::default(),
        }
    }

    /// The station.
    pub fn station(&self) -> MacAddr {
        self.sta
    }

    /// Where the conversation is.
    pub fn state(&self) -> State {
        self.state
    }

    /// Counters and times.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The MSK of the Access-Accept, once accepted.
    pub fn msk(&self) -> Option<&Msk> {
        self.msk.as_ref()
    }

    /// The identity the station gave.
    pub fn identity(&self) -> &[u8] {
        &self.identity[..self.identity_len]
    }

    /// The Identifier of the Access-Request waiting for an answer, to
    /// route the server's packets to this station.
    pub fn radius_id(&self) -> Option<u8> {
        self.outstanding.map(|o| o.id)
    }

    /// The EAPOL PDU to send to the station, if any.
    pub fn poll_eapol(&mut self) -> Option<&[u8]> {
        let n = self.eapol_len.take()?;
        self.eapol_out.get(..n)
    }

    /// The RADIUS packet to send to the server, if any.
    pub fn poll_radius(&mut self) -> Option<&[u8]> {
        if !self.radius_pending {
            return None;
        }
        self.radius_pending = false;
        let n = self.outstanding.map_or(0, |o| o.len);
        self.radius_out.get(..n)
    }

    /// What happened, if anything.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.event.take()
    }

    /// When [`Authenticator::handle_timeout`] is due.
    pub fn poll_timeout(&self) -> Option<Instant> {
        match (self.station_deadline, self.outstanding.map(|o| o.deadline)) {
            (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
            (a, b) => a.or(b),
        }
    }

    /// Starts (or restarts) the conversation: EAP-Request/Identity
    /// (RFC 3748, 5.1) with a fresh Identifier, and forgets any exchange
    /// in progress.
    pub fn start(&mut self, now: Instant, cfg: &Config, ids: &mut IdPool, rng: &mut dyn Random) {
        self.abandon_request(ids);
        self.radius_state_len = None;
        self.msk = None;
        let mut b = [0u8; 1];
        rng.fill_bytes(&mut b);
        // A new conversation starts from an Identifier unrelated to the
        // previous one.
        self.eap_id = b[0];
        let mut req = [0u8; 8];
        match eap::emit(
            EapCode::Request,
            self.eap_id,
            Some(EapType::IDENTITY),
            &[],
            &mut req,
        ) {
            Ok(n) => self.send_to_station(now, cfg, &req[..n], true),
            Err(_) => self.fail(Failure::Internal),
        }
    }

    fn abandon_request(&mut self, ids: &mut IdPool) {
        if let Some(o) = self.outstanding.take() {
            ids.release(o.id);
        }
        self.radius_pending = false;
    }

    fn fail(&mut self, why: Failure) {
        self.state = State::Failed(why);
        self.station_deadline = None;
        self.event = Some(Event::Failed(why));
    }

    /// Queues `packet` (an EAP packet) for the station in an EAPOL-EAP
    /// PDU; `fresh` counts it as a new request and arms the station timer.
    fn send_to_station(&mut self, now: Instant, cfg: &Config, packet: &[u8], expect_answer: bool) {
        let Some(dst) = self.to_station.get_mut(..packet.len()) else {
            self.fail(Failure::Internal);
            return;
        };
        dst.copy_from_slice(packet);
        self.to_station_len = packet.len();
        self.eap_id = packet.get(1).copied().unwrap_or(self.eap_id);
        self.stats.eap_to_station += 1;
        self.station_tries = 1;
        self.emit_to_station();
        if expect_answer {
            self.state = State::WaitStation;
            self.station_deadline = Some(now.plus_millis(cfg.supplicant_timeout_ms));
        } else {
            self.station_deadline = None;
        }
    }

    fn emit_to_station(&mut self) {
        let body = &self.to_station[..self.to_station_len];
        self.eapol_len =
            eap::emit_eapol(EAPOL_VERSION, PacketType::Eap, body, &mut self.eapol_out).ok();
    }

    /// Takes an EAPOL PDU (from the EAPOL header on) from the station.
    /// EAPOL-Start restarts the conversation, EAPOL-Logoff ends it, EAP
    /// packets that answer the last request go to the server; anything
    /// else (EAPOL-Key belongs to the 4-way handshake) is ignored.
    pub fn handle_eapol(
        &mut self,
        now: Instant,
        pdu: &[u8],
        cfg: &Config,
        ids: &mut IdPool,
        rng: &mut dyn Random,
    ) {
        let Ok(f) = EapolFrame::new_checked(pdu) else {
            return;
        };
        match f.packet_type() {
            PacketType::Start => self.start(now, cfg, ids, rng),
            PacketType::Logoff => {
                self.abandon_request(ids);
                if !matches!(self.state, State::Failed(_)) {
                    self.fail(Failure::Logoff);
                }
            }
            PacketType::Eap => self.eap_from_station(now, f.body(), cfg, ids, rng),
            _ => {}
        }
    }

    fn eap_from_station(
        &mut self,
        now: Instant,
        body: &[u8],
        cfg: &Config,
        ids: &mut IdPool,
        rng: &mut dyn Random,
    ) {
        if self.state != State::WaitStation {
            return;
        }
        let Ok(p) = EapPacket::new_checked(body) else {
            return;
        };
        // RFC 3748, 2.3 and 4.1: a pass-through authenticator checks the
        // Identifier against its last request and drops what does not
        // answer it. (LEAP's station sends a Request with the Identifier of
        // the Success it got.)
        if !matches!(p.code(), EapCode::Response | EapCode::Request)
            || p.identifier() != self.eap_id
        {
            return;
        }
        if p.code() == EapCode::Response && p.eap_type() == Some(EapType::IDENTITY) {
            let id = p.type_data();
            let n = id.len().min(self.identity.len());
            self.identity[..n].copy_from_slice(&id[..n]);
            self.identity_len = n;
        }
        self.stats.eap_from_station += 1;
        self.station_deadline = None;
        let Some(id) = ids.allocate() else {
            self.fail(Failure::Internal);
            return;
        };
        let authenticator = radius::request_authenticator(rng);
        let state = self.radius_state_len.map(|n| &self.radius_state[..n]);
        let req = AccessRequest {
            identifier: id,
            authenticator,
            user_name: &self.identity[..self.identity_len],
            eap: p.as_bytes(),
            state,
            station: self.sta,
        };
        match radius::build_access_request(&cfg.nas(), &req, &cfg.secret, &mut self.radius_out) {
            Ok(len) => {
                self.outstanding = Some(Outstanding {
                    id,
                    authenticator,
                    len,
                    tries: 1,
                    first_sent: now,
                    deadline: now.plus_millis(cfg.server_timeout_ms),
                });
                self.radius_pending = true;
                self.stats.radius_requests += 1;
                self.stats.first_request_at.get_or_insert(now);
                self.state = State::WaitServer;
            }
            Err(_) => {
                ids.release(id);
                self.fail(Failure::Internal);
            }
        }
    }

    /// Takes a RADIUS packet from the server. One that does not answer the
    /// outstanding request or does not verify is discarded (the error
    /// says why) and the authenticator keeps waiting.
    pub fn handle_radius(
        &mut self,
        now: Instant,
        packet: &[u8],
        cfg: &Config,
        ids: &mut IdPool,
    ) -> Result<(), RadiusError> {
        let Some(o) = self.outstanding else {
            return Err(RadiusError::UnknownIdentifier);
        };
        let p = match radius::verify_response(packet, o.id, &o.authenticator, &cfg.secret) {
            Ok(p) => p,
            Err(e) => {
                self.stats.radius_discarded += 1;
                return Err(e);
            }
        };
        self.outstanding = None;
        self.radius_pending = false;
        ids.release(o.id);
        self.stats.server_wait_us += now.saturating_duration_since(o.first_sent).as_micros() as u64;
        let mut eap_buf = [0u8; EAP_MAX];
        let eap_len = radius::eap_message(&p, &mut eap_buf).unwrap_or(0);
        let eap = eap_buf
            .get(..eap_len)
            .filter(|e| EapPacket::new_checked(*e).is_ok());
        match p.code() {
            Code::AccessChallenge => {
                match p.attribute(AttrType::STATE) {
                    Some(s) if s.value.len() <= STATE_MAX => {
                        self.radius_state[..s.value.len()].copy_from_slice(s.value);
                        self.radius_state_len = Some(s.value.len());
                    }
                    _ => self.radius_state_len = None,
                }
                match eap {
                    Some(e) => self.send_to_station(now, cfg, e, true),
                    // RFC 3579, 2.6.3: a Challenge without EAP is
                    // malformed; the exchange cannot go on.
                    None => self.fail(Failure::Rejected),
                }
            }
            Code::AccessAccept => {
                self.stats.verdict_at = Some(now);
                self.msk = radius::accept_msk(&p, &o.authenticator, &cfg.secret);
                if let Some(e) = eap {
                    self.send_to_station(now, cfg, e, false);
                }
                self.state = State::Authenticated;
                self.event = Some(Event::Accepted {
                    keys: self.msk.is_some(),
                });
            }
            _ => {
                self.stats.verdict_at = Some(now);
                match eap {
                    Some(e) => self.send_to_station(now, cfg, e, false),
                    None => {
                        // RFC 3579, 2.6.3: without an EAP-Message the
                        // authenticator sends an EAP-Failure itself.
                        let mut b = [0u8; 4];
                        if let Ok(n) = eap::emit(EapCode::Failure, self.eap_id, None, &[], &mut b) {
                            self.send_to_station(now, cfg, &b[..n], false);
                        }
                    }
                }
                self.fail(Failure::Rejected);
            }
        }
        Ok(())
    }

    /// Retransmits what is due, or gives up.
    pub fn handle_timeout(&mut self, now: Instant, cfg: &Config, ids: &mut IdPool) {
        if let Some(mut o) = self.outstanding {
            if now.0 >= o.deadline.0 {
                if o.tries >= cfg.server_tries {
                    self.abandon_request(ids);
                    self.fail(Failure::ServerTimeout);
                    return;
                }
                // RFC 2865, 3: a retransmission keeps the Identifier and
                // the Request Authenticator.
                o.tries += 1;
                o.deadline = now.plus_millis(cfg.server_timeout_ms);
                self.outstanding = Some(o);
                self.radius_pending = true;
                self.stats.radius_retransmissions += 1;
            }
        }
        if let Some(d) = self.station_deadline {
            if now.0 >= d.0 {
                if self.station_tries >= cfg.supplicant_tries {
                    self.fail(Failure::SupplicantTimeout);
                    return;
                }
                self.station_tries += 1;
                self.station_deadline = Some(now.plus_millis(cfg.supplicant_timeout_ms));
                self.stats.eap_retransmissions += 1;
                self.emit_to_station();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radius::{add_mppe_key, build_response, verify_request};
    use wisec_wire::radius::{Packet, MS_MPPE_RECV_KEY, MS_MPPE_SEND_KEY};

    struct Rng(u8);
    impl Random for Rng {
        fn fill_bytes(&mut self, d: &mut [u8]) {
            for b in d {
                self.0 = self.0.wrapping_mul(31).wrapping_add(7);
                *b = self.0;
            }
        }
    }

    const STA: MacAddr = MacAddr([2, 0x1a, 0xb0, 0, 1, 1]);

    fn cfg() -> Config {
        Config::new(
            b"secret",
            [10, 99, 0, 254],
            b"ap",
            MacAddr([2, 0x1a, 0xb0, 0, 0, 1]),
            b"wisec-lab",
        )
        .unwrap()
    }

    fn eapol(eap: &[u8]) -> std::vec::Vec<u8> {
        let mut b = std::vec![0u8; eap.len() + 4];
        let n = eap::emit_eapol(2, PacketType::Eap, eap, &mut b).unwrap();
        b.truncate(n);
        b
    }

    extern crate std;

    /// An authenticator that sent EAP-Request/Identity and relayed the
    /// station's answer (identity "u"); its first Identifier.
    fn identified(c: &Config, ids: &mut IdPool, rng: &mut Rng) -> (Authenticator, u8) {
        let mut a = Authenticator::new(STA);
        a.start(Instant::ZERO, c, ids, rng);
        let id0 = a.poll_eapol().unwrap()[5];
        a.handle_eapol(Instant::ZERO, &eapol(&[2, id0, 0, 6, 1, b'u']), c, ids, rng);
        (a, id0)
    }

    /// A whole EAP-MD5-like exchange against a scripted server: identity,
    /// one challenge with State, an Access-Accept with keys; the MSK is
    /// Recv-Key then Send-Key.
    #[test]
    fn relays_a_conversation_and_takes_the_msk() {
        let c = cfg();
        let mut ids = IdPool::new(0);
        let mut rng = Rng(1);
        let mut a = Authenticator::new(STA);
        let t0 = Instant::from_millis(10);
        a.start(t0, &c, &mut ids, &mut rng);
        let req = a.poll_eapol().unwrap().to_vec();
        let f = EapolFrame::new_checked(&req[..]).unwrap();
        let p = EapPacket::new_checked(f.body()).unwrap();
        assert_eq!(p.eap_type(), Some(EapType::IDENTITY));
        let id0 = p.identifier();
        // A response with another Identifier is not an answer.
        a.handle_eapol(
            t0,
            &eapol(&[2, id0.wrapping_add(1), 0, 6, 1, b'x']),
            &c,
            &mut ids,
            &mut rng,
        );
        assert!(a.poll_radius().is_none());
        a.handle_eapol(
            t0,
            &eapol(&[2, id0, 0, 10, 1, b'a', b'l', b'i', b'c', b'e']),
            &c,
            &mut ids,
            &mut rng,
        );
        let r1 = a.poll_radius().unwrap().to_vec();
        let q = verify_request(&r1, &c.secret).unwrap();
        assert_eq!(q.attribute(AttrType::USER_NAME).unwrap().value, b"alice");
        assert!(q.attribute(AttrType::STATE).is_none());
        assert_eq!(a.state(), State::WaitServer);
        // The server's challenge, with State.
        let mut out = [0u8; 512];
        let n = build_response(
            Code::AccessChallenge,
            &q,
            Some(&[1, id0.wrapping_add(1), 0, 6, 4, 0]),
            &c.secret,
            &mut out,
            |w| w.add(AttrType::STATE, b"S1").map(drop).map_err(Into::into),
        )
        .unwrap();
        // A forged copy (one octet changed) is discarded.
        let mut forged = out;
        forged[n - 1] ^= 1;
        assert!(a.handle_radius(t0, &forged[..n], &c, &mut ids).is_err());
        a.handle_radius(Instant::from_millis(12), &out[..n], &c, &mut ids)
            .unwrap();
        let e = a.poll_eapol().unwrap().to_vec();
        assert_eq!(&e[4..], &[1, id0.wrapping_add(1), 0, 6, 4, 0]);
        a.handle_eapol(
            t0,
            &eapol(&[2, id0.wrapping_add(1), 0, 6, 4, 0]),
            &c,
            &mut ids,
            &mut rng,
        );
        let r2 = a.poll_radius().unwrap().to_vec();
        let q2 = Packet::new_checked(&r2[..]).unwrap();
        assert_eq!(q2.attribute(AttrType::STATE).unwrap().value, b"S1");
        assert_ne!(q2.identifier(), q.identifier());
        let ra = q2.authenticator();
        let msk: std::vec::Vec<u8> = (100..164).collect();
        let n = build_response(
            Code::AccessAccept,
            &q2,
            Some(&[3, id0.wrapping_add(1), 0, 4]),
            &c.secret,
            &mut out,
            |w| {
                add_mppe_key(w, MS_MPPE_SEND_KEY, &msk[32..], [0, 1], &ra, &c.secret)?;
                add_mppe_key(w, MS_MPPE_RECV_KEY, &msk[..32], [0, 2], &ra, &c.secret)
            },
        )
        .unwrap();
        a.handle_radius(Instant::from_millis(15), &out[..n], &c, &mut ids)
            .unwrap();
        assert_eq!(a.poll_event(), Some(Event::Accepted { keys: true }));
        assert_eq!(
            &a.poll_eapol().unwrap()[4..],
            &[3, id0.wrapping_add(1), 0, 4]
        );
        assert_eq!(a.msk().unwrap().as_bytes(), &msk[..]);
        assert_eq!(a.state(), State::Authenticated);
        let s = a.stats();
        assert_eq!(
            (s.radius_requests, s.eap_to_station, s.radius_discarded),
            (2, 3, 1)
        );
        // 10 -> 12 ms and 10 -> 15 ms.
        assert_eq!(s.server_wait_us, 7000);
        assert!(!ids.in_use(q.identifier()) && !ids.in_use(q2.identifier()));
    }

    #[test]
    fn a_silent_server_is_given_up_after_its_tries() {
        let c = cfg();
        let mut ids = IdPool::new(0);
        let mut rng = Rng(3);
        let (mut a, _) = identified(&c, &mut ids, &mut rng);
        let first = a.poll_radius().unwrap().to_vec();
        let mut sent = 1;
        let mut t = Instant::ZERO;
        while let Some(d) = a.poll_timeout() {
            t = d;
            a.handle_timeout(t, &c, &mut ids);
            if let Some(p) = a.poll_radius() {
                // The same packet: Identifier and authenticator kept.
                assert_eq!(p, &first[..]);
                sent += 1;
            }
            if a.poll_event().is_some() {
                break;
            }
        }
        assert_eq!(sent, 3);
        assert_eq!(t, Instant::from_millis(9000));
        assert_eq!(a.state(), State::Failed(Failure::ServerTimeout));
        assert!(!ids.in_use(first[1]));
    }

    #[test]
    fn reject_without_eap_sends_a_failure_and_start_restarts() {
        let c = cfg();
        let mut ids = IdPool::new(0);
        let mut rng = Rng(5);
        let (mut a, id0) = identified(&c, &mut ids, &mut rng);
        let r = a.poll_radius().unwrap().to_vec();
        let q = Packet::new_checked(&r[..]).unwrap();
        let mut out = [0u8; 128];
        let n = build_response(
            Code::AccessReject,
            &q,
            None,
            &c.secret,
            &mut out,
            |_| Ok(()),
        )
        .unwrap();
        a.handle_radius(Instant::ZERO, &out[..n], &c, &mut ids)
            .unwrap();
        assert_eq!(a.poll_event(), Some(Event::Failed(Failure::Rejected)));
        assert_eq!(&a.poll_eapol().unwrap()[4..], &[4, id0, 0, 4]);
        // EAPOL-Start: a new conversation.
        a.handle_eapol(Instant::ZERO, &[2, 1, 0, 0], &c, &mut ids, &mut rng);
        assert_eq!(a.state(), State::WaitStation);
        let p = a.poll_eapol().unwrap();
        assert_eq!((p[4], p[8]), (1, 1));
    }
}
