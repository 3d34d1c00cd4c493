//! WPA2-Enterprise in the simulator's nodes, without root or real
//! programs: the AP's 802.1X authenticator and the station's port control
//! in virtual time, with the RADIUS server (wisec's LEAP server behind
//! RADIUS) and the station's EAP peer (a LEAP peer written from the
//! method's description) scripted at the two ports a live run connects
//! to a UDP socket and a TAP. The live tests (`tests/eap.rs`) run the same
//! nodes against FreeRADIUS and wpa_supplicant.

use std::cell::RefCell;
use std::rc::Rc;
use wisec_crypto::mschap::{
    danger_challenge_response, danger_hash_nt_password_hash, danger_leap_session_key,
    danger_nt_challenge_response, danger_nt_password_hash,
};
use wisec_lab::bss::{ApNode, Dot1xOutcome, StaNode, StaPhase, BSSID};
use wisec_lab::cost::{Calibration, DeviceProfile, Security};
use wisec_lab::net::Traffic;
use wisec_lab::phy::{PhyProfile, Rate};
use wisec_lab::port::{SharedPort, TapPort};
use wisec_lab::sim::{MacConfig, Simulator};
use wisec_lab::Time;
use wisec_proto::leap::{LeapServer, Step};
use wisec_proto::radius::{self, add_leap_session_key, eap_message, Secret};
use wisec_proto::rsn::Random;
use wisec_wire::eap::{self, Code, EapPacket, EapType};
use wisec_wire::eapol::PacketType;
use wisec_wire::radius::{AttrType, Code as RadiusCode};
use wisec_wire::MacAddr;

const STA: MacAddr = MacAddr([0x02, 0x1a, 0xb0, 0, 1, 1]);
const SECRET: &[u8] = b"lab secret";

struct Fixed(u8);
impl Random for Fixed {
    fn fill_bytes(&mut self, d: &mut [u8]) {
        for b in d {
            self.0 = self.0.wrapping_mul(13).wrapping_add(1);
            *b = self.0;
        }
    }
}

/// The LEAP peer on the station's TAP: what wpa_supplicant's `eap_leap.c`
/// does, step by step.
struct Peer {
    password: &'static str,
    peer_challenge: [u8; 8],
    peer_response: [u8; 24],
    ap_challenge: [u8; 8],
    msk: Option<[u8; 16]>,
}

impl Peer {
    /// The answer to an EAP packet from the AP, if any.
    fn answer(&mut self, p: &EapPacket<&[u8]>) -> Option<Vec<u8>> {
        let leap = |code: Code, id: u8, value: &[u8]| {
            let mut d = vec![1, 0, value.len() as u8];
            d.extend_from_slice(value);
            d.extend_from_slice(b"alice");
            let mut out = vec![0u8; 64];
            let n = eap::emit(code, id, Some(EapType::LEAP), &d, &mut out).unwrap();
            out.truncate(n);
            out
        };
        match (p.code(), p.eap_type()) {
            (Code::Request, Some(EapType::IDENTITY)) => {
                let mut out = vec![0u8; 32];
                let n = eap::emit(
                    Code::Response,
                    p.identifier(),
                    Some(EapType::IDENTITY),
                    b"alice",
                    &mut out,
                )
                .unwrap();
                out.truncate(n);
                Some(out)
            }
            (Code::Request, Some(EapType::LEAP)) => {
                self.peer_challenge.copy_from_slice(&p.type_data()[3..11]);
                self.peer_response =
                    danger_nt_challenge_response(&self.peer_challenge, self.password);
                Some(leap(Code::Response, p.identifier(), &self.peer_response))
            }
            (Code::Success, _) => {
                self.ap_challenge = [0x5c; 8];
                Some(leap(Code::Request, p.identifier(), &self.ap_challenge))
            }
            (Code::Response, Some(EapType::LEAP)) => {
                let apr: [u8; 24] = p.type_data()[3..27].try_into().unwrap();
                let hh = danger_hash_nt_password_hash(&danger_nt_password_hash(self.password));
                assert_eq!(apr, danger_challenge_response(&self.ap_challenge, &hh));
                self.msk = Some(danger_leap_session_key(
                    &hh,
                    &self.ap_challenge,
                    &apr,
                    &self.peer_challenge,
                    &self.peer_response,
                ));
                None
            }
            _ => None,
        }
    }
}

/// The RADIUS server: one LEAP exchange for "alice".
struct Server {
    secret: Secret,
    leap: Option<LeapServer>,
    keys: Vec<[u8; 16]>,
}

impl Server {
    fn answer(&mut self, req: &[u8]) -> Option<Vec<u8>> {
        let p = radius::verify_request(req, &self.secret).ok()?;
        let mut e = [0u8; 1024];
        let n = eap_message(&p, &mut e).ok()?;
        let mut out = vec![0u8; 4096];
        let mut lo = [0u8; 256];
        let (code, k) = match self.leap.as_mut() {
            None => {
                let pw = danger_nt_password_hash("correct horse");
                let mut l = LeapServer::new(b"alice", pw);
                let k = l.start(e[1], &mut Fixed(3), &mut lo).ok()?;
                self.leap = Some(l);
                (RadiusCode::AccessChallenge, k)
            }
            Some(l) => match l.handle(&e[..n], &mut lo) {
                Ok(Step::Challenge(k)) => (RadiusCode::AccessChallenge, k),
                Ok(Step::Accept(k)) => (RadiusCode::AccessAccept, k),
                Err(_) => {
                    let k = eap::emit(Code::Failure, e[1], None, &[], &mut lo).ok()?;
                    (RadiusCode::AccessReject, k)
                }
            },
        };
        let key = self.leap.as_ref().and_then(|l| l.session_key().copied());
        let ra = p.authenticator();
        let secret = self.secret.clone();
        let m = radius::build_response(code, &p, Some(&lo[..k]), &self.secret, &mut out, |w| {
            if code == RadiusCode::AccessChallenge {
                w.add(AttrType::STATE, b"st")?;
            }
            match (code, key) {
                (RadiusCode::AccessAccept, Some(key)) => {
                    add_leap_session_key(w, &key, [1, 2], &ra, &secret)
                }
                _ => Ok(()),
            }
        })
        .ok()?;
        if let (RadiusCode::AccessAccept, Some(k)) = (code, key) {
            self.keys.push(k);
        }
        out.truncate(m);
        Some(out)
    }
}

/// Puts `data` in `port`'s inbox at `t` and has the node take it.
fn input(
    sim: &mut Simulator,
    node: wisec_lab::node::NodeId,
    port: &SharedPort,
    t: Time,
    data: Vec<u8>,
) {
    port.borrow_mut().inbox.push_back((t, data));
    sim.schedule_input(node, t);
}

/// What one association left: the AP's records, the station's phase and
/// MSK, the peer's MSK, the server's session keys.
type Outcome = (
    Vec<wisec_lab::bss::Dot1xRecord>,
    StaPhase,
    Option<Vec<u8>>,
    Option<[u8; 16]>,
    Vec<[u8; 16]>,
);

/// Runs one association of a station whose peer knows `password`.
fn associate(password: &'static str) -> Outcome {
    let cal = Rc::new(Calibration::nominal());
    let mut sim = Simulator::new(7);
    let ch = sim.add_channel(PhyProfile::b());
    let rate = Rate::from_mbps(2.0).unwrap();
    let (radius_port, tap, keys) = (TapPort::shared(), TapPort::shared(), TapPort::shared());
    let mut ap = ApNode::new(Security::Ccmp128, DeviceProfile::host(), Rc::clone(&cal), 1);
    let cfg = wisec_proto::dot1x::Config::new(SECRET, [10, 99, 0, 254], b"ap", BSSID, b"wisec-lab")
        .unwrap();
    ap.set_dot1x(cfg, Rc::clone(&radius_port));
    let ap_id = sim.add_node(ap);
    let ap_if = sim.attach(ap_id, ch, MacConfig::dcf(BSSID, rate));
    sim.node_mut::<ApNode>(ap_id).unwrap().set_iface(ap_if);
    let mut sta = StaNode::new(
        STA,
        [10, 99, 0, 11],
        [10, 99, 0, 254],
        Traffic::None,
        Security::Ccmp128,
        DeviceProfile::host(),
        Rc::clone(&cal),
        2,
    );
    sta.set_tap(Rc::clone(&tap));
    sta.set_dot1x(Rc::clone(&keys));
    let sta_id = sim.add_node(sta);
    let sta_if = sim.attach(sta_id, ch, MacConfig::dcf(STA, rate));
    sim.node_mut::<StaNode>(sta_id).unwrap().set_iface(sta_if);
    let peer = RefCell::new(Peer {
        password,
        peer_challenge: [0; 8],
        peer_response: [0; 24],
        ap_challenge: [0; 8],
        msk: None,
    });
    let mut server = Server {
        secret: Secret::new(SECRET).unwrap(),
        leap: None,
        keys: Vec::new(),
    };
    let mut t = Time::ZERO;
    let mut sent_key = false;
    while t < Time::from_secs(2) {
        t += Time::from_us(500);
        sim.run_until(t);
        // The EAP peer on the TAP: EAPOL frames from the AP, answered with
        // EAPOL to the PAE group address (as wpa_supplicant's wired driver).
        let frames = std::mem::take(&mut tap.borrow_mut().outbox);
        for (_, eth) in frames {
            assert_eq!(
                &eth[12..14],
                &[0x88, 0x8e],
                "only EAPOL crosses before the keys"
            );
            assert_eq!(eth[15], PacketType::Eap.to_u8());
            let p = EapPacket::new_checked(&eth[18..]).unwrap();
            if let Some(resp) = peer.borrow_mut().answer(&p) {
                let mut f = vec![0x01, 0x80, 0xc2, 0, 0, 3];
                f.extend_from_slice(&STA.0);
                f.extend_from_slice(&[0x88, 0x8e, 2, 0]);
                f.extend_from_slice(&(resp.len() as u16).to_be_bytes());
                f.extend_from_slice(&resp);
                input(&mut sim, sta_id, &tap, t, f);
            }
        }
        if let (false, Some(k)) = (sent_key, peer.borrow().msk) {
            input(&mut sim, sta_id, &keys, t, k.to_vec());
            sent_key = true;
        }
        // The RADIUS server, one millisecond away.
        let reqs = std::mem::take(&mut radius_port.borrow_mut().outbox);
        for (_, r) in reqs {
            if let Some(a) = server.answer(&r) {
                input(&mut sim, ap_id, &radius_port, t + Time::from_ms(1), a);
            }
        }
        let phase = sim.node::<StaNode>(sta_id).unwrap().phase();
        let log = sim.node::<ApNode>(ap_id).unwrap().dot1x_log();
        if phase == StaPhase::Connected
            || log
                .iter()
                .any(|r| r.outcome == Some(Dot1xOutcome::Rejected))
        {
            break;
        }
    }
    let n = sim.node::<StaNode>(sta_id).unwrap();
    let peer_msk = peer.borrow().msk;
    (
        sim.node::<ApNode>(ap_id).unwrap().dot1x_log(),
        n.phase(),
        n.msk().map(<[u8]>::to_vec),
        peer_msk,
        server.keys,
    )
}

#[test]
fn a_leap_association_keys_the_station_with_the_peers_msk() {
    let (log, phase, sta_msk, peer_msk, server_keys) = associate("correct horse");
    assert_eq!(phase, StaPhase::Connected, "{log:?}");
    let r = &log[0];
    assert_eq!(r.outcome, Some(Dot1xOutcome::Accepted));
    assert_eq!(r.identity, "alice");
    // Identity, LEAP challenge, LEAP AP challenge: three RADIUS round trips.
    assert_eq!(r.radius_requests, 3);
    let peer = peer_msk.unwrap();
    assert_eq!(sta_msk.as_deref(), Some(&peer[..]));
    assert_eq!(server_keys, vec![peer]);
    let hex: String = peer.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(r.msk_hex.as_deref(), Some(hex.as_str()));
    // RADIUS answers came one millisecond after each request.
    assert!(r.server_wait_ms >= 3.0 && r.server_wait_ms < 4.0, "{r:?}");
}

#[test]
fn a_wrong_password_is_rejected_and_never_keyed() {
    let (log, phase, sta_msk, peer_msk, server_keys) = associate("wrong horse");
    assert_eq!(log[0].outcome, Some(Dot1xOutcome::Rejected), "{log:?}");
    assert_ne!(phase, StaPhase::Connected);
    assert!(sta_msk.is_none() && peer_msk.is_none() && server_keys.is_empty());
    assert!(log[0].msk_hex.is_none());
}
