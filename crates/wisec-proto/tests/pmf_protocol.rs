//! Protocol tests of 802.11w: one AP and stations on a lossless virtual
//! medium with a virtual clock, associating and running the real 4-way
//! handshake of `wisec_proto::fourway` (its PTK and the IGTK of message 3
//! installed into the PMF cores), then forged, replayed and lost frames.

mod common;

use common::{sta_addr, TestRng, BSSID};
use std::collections::HashMap;
use std::time::Duration;
use wisec_crypto::ptk::Pmk;
use wisec_proto::fourway::{Association, Authenticator, Event, Supplicant, Timing};
use wisec_proto::pmf::{
    sa_query, Ap, ApConfig, ApEvent, Error, MfpPolicy, RsnConfig, Rx, Sta, StaConfig, StaEvent,
    StaState,
};
use wisec_proto::rsn::{self, GroupKey, GroupKeys, Negotiated};
use wisec_proto::time::Instant;
use wisec_wire::element::{Akm, CipherSuite};
use wisec_wire::frame_control::{FrameControl, FrameType};
use wisec_wire::llc::EtherType;
use wisec_wire::mgmt::{MgmtFrame, MgmtSubtype};
use wisec_wire::{ElementId, HeaderRepr, MacAddr, ReasonCode, StatusCode};

impl rsn::Random for TestRng {
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        rand_core::TryRng::try_fill_bytes(self, dest).unwrap();
    }
}

const SSID: &[u8] = b"wisec-pmf";
const IGTK: [u8; 16] = [0x49; 16];

fn pmk() -> Pmk {
    // A PMK as SAE or 802.1X would deliver it (PBKDF2 is slow in debug).
    Pmk::new(&[0x5a; 32]).unwrap()
}

fn neg(pmf: bool) -> Negotiated {
    Negotiated::rsn(
        Akm::PSK,
        CipherSuite::CCMP_128,
        CipherSuite::CCMP_128,
        pmf.then_some(CipherSuite::BIP_CMAC_128),
    )
}

struct Node {
    sta: Sta<TestRng>,
    supp: Option<Supplicant>,
    events: Vec<StaEvent>,
    /// Deliver frames to this station.
    online: bool,
}

struct Net {
    ap: Ap<TestRng, 32>,
    auths: HashMap<MacAddr, Authenticator>,
    stas: Vec<Node>,
    now: Instant,
    rng: TestRng,
    ap_events: Vec<ApEvent>,
    /// Every frame sent, in order: (sender, bytes).
    air: Vec<(MacAddr, Vec<u8>)>,
    /// Results of the last frames delivered to the AP and to stations.
    ap_rx: Vec<Result<(), Error>>,
    sta_rx: Vec<(usize, Result<(), Error>)>,
}

fn hs_now(now: Instant) -> rsn::Instant {
    rsn::Instant::from_millis(now.as_micros() / 1000)
}

impl Net {
    fn new(ap_mfp: Option<MfpPolicy>, sta_mfp: &[Option<MfpPolicy>]) -> Net {
        let mut cfg = ApConfig::new(BSSID, SSID).unwrap();
        cfg.rsn = ap_mfp.map(RsnConfig::psk);
        cfg.beacon_interval_tu = 0;
        let mut ap = Ap::new(Instant::ZERO, cfg, TestRng(1));
        if ap_mfp.is_some_and(|m| m != MfpPolicy::Disabled) {
            ap.set_igtk(4, &IGTK, 0).unwrap();
        }
        let stas = sta_mfp
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let mut c = StaConfig::new(sta_addr(i), SSID).unwrap();
                c.rsn = m.map(RsnConfig::psk);
                Node {
                    sta: Sta::new(c, TestRng(100 + i as u64)),
                    supp: None,
                    events: vec![],
                    online: true,
                }
            })
            .collect();
        Net {
            ap,
            auths: HashMap::new(),
            stas,
            now: Instant::ZERO,
            rng: TestRng(7),
            ap_events: vec![],
            air: vec![],
            ap_rx: vec![],
            sta_rx: vec![],
        }
    }

    fn pmf_net(n: usize) -> Net {
        Net::new(Some(MfpPolicy::Capable), &vec![Some(MfpPolicy::Capable); n])
    }

    fn connect_all(&mut self) {
        for i in 0..self.stas.len() {
            self.stas[i].sta.connect(self.now, BSSID);
        }
        self.settle();
    }

    /// Delivers a frame from `from` to whoever it is for.
    fn deliver(&mut self, from: MacAddr, f: &[u8]) {
        self.air.push((from, f.to_vec()));
        let h = wisec_wire::mac_header::Header::new_checked(f).unwrap();
        let a1 = h.addr1();
        if a1 == BSSID || (a1.is_broadcast() && from != BSSID) {
            let r = self.ap.handle_rx(self.now, f).map(|rx| match rx {
                Rx::Eapol { peer, pdu } => Some((peer, pdu.to_vec())),
                _ => None,
            });
            self.ap_rx.push(r.as_ref().map(|_| ()).map_err(|e| *e));
            if let Ok(Some((peer, pdu))) = r {
                if let Some(a) = self.auths.get_mut(&peer) {
                    let _ = a.handle_rx(hs_now(self.now), &pdu, &mut self.rng);
                }
            }
        }
        for i in 0..self.stas.len() {
            if !(a1 == sta_addr(i) || (a1.is_group() && from == BSSID)) || !self.stas[i].online {
                continue;
            }
            let node = &mut self.stas[i];
            let r = node.sta.handle_rx(self.now, f).map(|rx| match rx {
                Rx::Eapol { pdu, .. } => Some(pdu.to_vec()),
                _ => None,
            });
            self.sta_rx
                .push((i, r.as_ref().map(|_| ()).map_err(|e| *e)));
            // The station's events (its supplicant starts on association)
            // come before the next frame.
            self.sta_events(i);
            let node = &mut self.stas[i];
            if let (Ok(Some(pdu)), Some(s)) = (r, node.supp.as_mut()) {
                let _ = s.handle_rx(hs_now(self.now), &pdu, &mut self.rng);
            }
        }
    }

    /// Moves frames and handshake messages until nothing moves.
    fn settle(&mut self) {
        for _ in 0..10_000 {
            let mut moved = false;
            while let Some(f) = self.ap.poll_transmit().map(<[u8]>::to_vec) {
                moved = true;
                self.deliver(BSSID, &f);
            }
            for i in 0..self.stas.len() {
                while let Some(f) = self.stas[i].sta.poll_transmit().map(<[u8]>::to_vec) {
                    moved = true;
                    if self.stas[i].online {
                        self.deliver(sta_addr(i), &f);
                    }
                }
            }
            moved |= self.events();
            if !moved {
                return;
            }
        }
        panic!("the network never settled");
    }

    fn events(&mut self) -> bool {
        let mut moved = false;
        while let Some(e) = self.ap.poll_event() {
            moved = true;
            self.ap_events.push(e);
            if let ApEvent::Associated { sta, pmf, .. } = e {
                let Some(sta_rsne) = self.ap.sta_rsne(sta).copied() else {
                    continue;
                };
                let rsn = self.ap.config().rsn.unwrap();
                let assoc = Association {
                    negotiated: neg(pmf),
                    aa: BSSID,
                    spa: sta,
                    ap_rsne: rsn.rsne().unwrap(),
                    sta_rsne,
                };
                let keys = GroupKeys {
                    gtk: GroupKey::new(&[0x47; 16], 1, 0).unwrap(),
                    igtk: self
                        .ap
                        .igtk()
                        .filter(|_| pmf)
                        .map(|(id, ipn)| GroupKey::new(&IGTK, u16::from(id), ipn).unwrap()),
                };
                let mut a = Authenticator::new(assoc, pmk(), keys, Timing::default()).unwrap();
                a.start(hs_now(self.now), &mut self.rng).unwrap();
                self.auths.insert(sta, a);
            }
        }
        let addrs: Vec<MacAddr> = self.auths.keys().copied().collect();
        for a in addrs {
            let auth = self.auths.get_mut(&a).unwrap();
            let mut out = vec![];
            while let Some(p) = auth.poll_transmit() {
                out.push(p.to_vec());
            }
            let mut install = None;
            while let Some(e) = auth.poll_event() {
                if e == Event::PtkInstalled {
                    install = auth.ptk().map(|p| p.tk().to_vec());
                }
            }
            for p in out {
                moved = true;
                let _ = self.ap.send_eapol(a, &p);
            }
            if let Some(tk) = install {
                self.ap.install_ptk(a, &tk).unwrap();
            }
        }
        for i in 0..self.stas.len() {
            moved |= self.sta_events(i);
        }
        moved
    }

    fn sta_events(&mut self, i: usize) -> bool {
        let mut moved = false;
        {
            let node = &mut self.stas[i];
            while let Some(e) = node.sta.poll_event() {
                moved = true;
                node.events.push(e);
                if let StaEvent::Associated { pmf, .. } = e {
                    if node.sta.config().rsn.is_some() {
                        let assoc = Association {
                            negotiated: neg(pmf),
                            aa: BSSID,
                            spa: sta_addr(i),
                            ap_rsne: *node.sta.ap_rsne().unwrap(),
                            sta_rsne: *node.sta.own_rsne().unwrap(),
                        };
                        node.supp = Some(Supplicant::new(assoc, pmk()).unwrap());
                    }
                }
            }
            if let Some(s) = node.supp.as_mut() {
                let mut out = vec![];
                while let Some(p) = s.poll_transmit() {
                    out.push(p.to_vec());
                }
                let mut ptk = None;
                let mut igtk = None;
                while let Some(e) = s.poll_event() {
                    match e {
                        Event::PtkInstalled => ptk = s.ptk().map(|p| p.tk().to_vec()),
                        Event::IgtkInstalled { .. } => {
                            igtk = s
                                .group_keys()
                                .and_then(|g| g.igtk.clone())
                                .map(|k| (k.key_id, k.key().to_vec(), k.pn))
                        }
                        _ => {}
                    }
                }
                for p in out {
                    moved = true;
                    node.sta.send_eapol(&p).unwrap();
                }
                if let Some(tk) = ptk {
                    node.sta.install_ptk(&tk).unwrap();
                }
                if let Some((id, k, pn)) = igtk {
                    node.sta.install_igtk(id, &k, pn).unwrap();
                }
            }
        }
        moved
    }

    /// Advances the clock in steps of `step`, firing timers and settling.
    fn run_for(&mut self, d: Duration, step: Duration) {
        let end = self.now + d;
        while self.now < end {
            self.now = (self.now + step).min(end);
            self.ap.handle_timeout(self.now);
            for n in self.stas.iter_mut() {
                n.sta.handle_timeout(self.now);
            }
            self.settle();
        }
    }

    fn inject(&mut self, from: MacAddr, f: &[u8]) {
        self.ap_rx.clear();
        self.sta_rx.clear();
        self.deliver(from, f);
        self.settle();
    }
}

/// A forged management frame: what an attacker with a radio sends.
fn forge(subtype: MgmtSubtype, a1: MacAddr, a2: MacAddr, body: &[u8]) -> Vec<u8> {
    let h = HeaderRepr {
        frame_control: FrameControl::new(FrameType::Management, subtype.to_u8()),
        duration: 0,
        addr1: a1,
        addr2: Some(a2),
        addr3: Some(BSSID),
        sequence_control: Some(0x0990),
        addr4: None,
        qos_control: None,
        ht_control: None,
    };
    let mut b = vec![0u8; 24];
    h.emit(&mut b).unwrap();
    b.extend_from_slice(body);
    b
}

fn protected_association(net: &Net, i: usize) -> bool {
    let info = net.ap.station(sta_addr(i));
    net.stas[i].sta.pmf_in_use()
        && info.is_some_and(|s| s.associated && s.pmf && s.keyed)
        && net.stas[i].sta.state() == StaState::Associated
}

#[test]
fn pmf_association_runs_the_handshake_and_delivers_the_igtk() {
    let mut net = Net::pmf_net(3);
    net.connect_all();
    for i in 0..3 {
        assert!(protected_association(&net, i), "station {i}");
        assert_eq!(
            net.stas[i].sta.group_mgmt_cipher(),
            Some(CipherSuite::BIP_CMAC_128)
        );
    }
    // The AP's RSNE advertises MFPC (bit 7) and the BIP suite.
    let beacon_rsne = net.stas[0].sta.ap_rsne().unwrap().as_bytes().to_vec();
    assert_eq!(
        &beacon_rsne[beacon_rsne.len() - 4..],
        &[0x00, 0x0f, 0xac, 6]
    );
    // Data flows protected both ways.
    net.stas[1]
        .sta
        .send_data(EtherType::IPV4, b"hello")
        .unwrap();
    let before = net.air.len();
    net.settle();
    let (_, f) = &net.air[before];
    assert!(FrameControl::from_bytes([f[0], f[1]]).protected());
    assert_eq!(net.ap_rx.last(), Some(&Ok(())));
}

#[test]
fn forged_deauth_and_disassoc_are_dropped_and_sa_query_confirms() {
    let mut net = Net::pmf_net(2);
    net.connect_all();
    let reason7 = ReasonCode::CLASS3_FRAME_FROM_NONASSOC_STA.0.to_le_bytes();
    // To the station, in the AP's name.
    let f = forge(MgmtSubtype::Deauthentication, sta_addr(0), BSSID, &reason7);
    net.inject(BSSID, &f);
    assert_eq!(net.sta_rx[0], (0, Err(Error::Unprotected)));
    // 11.13: reason 7 made the station ask the AP, which answered.
    assert!(net.stas[0].events.contains(&StaEvent::SaQueryStarted));
    assert!(net.stas[0].events.contains(&StaEvent::SaQueryConfirmed));
    assert!(protected_association(&net, 0));
    // The query and its answer travelled protected.
    let sa_frames: Vec<_> = net
        .air
        .iter()
        .filter(|(_, f)| {
            MgmtFrame::new_checked(&f[..]).is_ok_and(|m| m.subtype() == MgmtSubtype::Action)
        })
        .collect();
    assert_eq!(sa_frames.len(), 2);
    assert!(sa_frames.iter().all(|(_, f)| f[1] & 0x40 != 0));
    // To the AP, in the station's name: dropped, the association stays.
    for st in [MgmtSubtype::Deauthentication, MgmtSubtype::Disassociation] {
        let f = forge(st, BSSID, sta_addr(1), &3u16.to_le_bytes());
        net.inject(sta_addr(1), &f);
        assert_eq!(net.ap_rx, vec![Err(Error::Unprotected)]);
        assert!(protected_association(&net, 1));
    }
    // Another reason: dropped without a query.
    let n = net.stas[1].events.len();
    let f = forge(
        MgmtSubtype::Disassociation,
        sta_addr(1),
        BSSID,
        &3u16.to_le_bytes(),
    );
    net.inject(BSSID, &f);
    assert_eq!(net.sta_rx[0], (1, Err(Error::Unprotected)));
    assert_eq!(net.stas[1].events.len(), n);
    // A forged "protected" frame (Protected bit, garbage) fails the MIC.
    let mut f = forge(
        MgmtSubtype::Deauthentication,
        sta_addr(1),
        BSSID,
        &[0u8; 18],
    );
    f[1] |= 0x40;
    f[24 + 3] = 0x20;
    f[24] = 0xff;
    net.inject(BSSID, &f);
    assert_eq!(net.sta_rx[0], (1, Err(Error::Integrity)));
    assert!(protected_association(&net, 1));
}

#[test]
fn genuine_protected_deauth_works_and_its_replay_is_rejected() {
    let mut net = Net::pmf_net(2);
    net.connect_all();
    // The station leaves for real: a protected Deauthentication.
    let start = net.air.len();
    net.stas[0]
        .sta
        .deauthenticate(ReasonCode::DEAUTH_LEAVING)
        .unwrap();
    net.settle();
    let (_, leave) = net.air[start].clone();
    assert!(leave[1] & 0x40 != 0);
    assert!(net.ap_events.contains(&ApEvent::Deauthenticated {
        sta: sta_addr(0),
        reason: ReasonCode::DEAUTH_LEAVING
    }));
    // The AP sends a protected SA Query to station 1; record it.
    net.ap.start_sa_query(net.now, sta_addr(1)).unwrap();
    let start = net.air.len();
    net.settle();
    let (_, query) = net.air[start].clone();
    assert!(net
        .ap_events
        .contains(&ApEvent::SaQueryConfirmed { sta: sta_addr(1) }));
    // Replayed: same PN under the same key.
    net.inject(BSSID, &query);
    assert_eq!(net.sta_rx[0], (1, Err(Error::Replayed)));
    // A flipped byte anywhere under the MIC.
    for i in [16, 24, query.len() - 1] {
        let mut q = query.clone();
        q[i] ^= 1;
        net.inject(BSSID, &q);
        assert!(net.sta_rx[0].1.is_err(), "byte {i}");
    }
    // Station 0 comes back with a new PTK; its old Deauthentication,
    // replayed, fails under the new key.
    net.stas[0].sta.connect(net.now, BSSID);
    net.auths.remove(&sta_addr(0));
    net.settle();
    assert!(protected_association(&net, 0));
    net.inject(sta_addr(0), &leave);
    assert_eq!(net.ap_rx, vec![Err(Error::Integrity)]);
    assert!(protected_association(&net, 0));
}

#[test]
fn spoofed_association_gets_comeback_and_sa_query() {
    let mut net = Net::pmf_net(1);
    net.connect_all();
    let mut body = vec![0x11, 0x00, 10, 0];
    body.extend_from_slice(&[ElementId::SSID.0, SSID.len() as u8]);
    body.extend_from_slice(SSID);
    body.extend_from_slice(net.stas[0].sta.own_rsne().unwrap().as_bytes());
    let f = forge(MgmtSubtype::AssocRequest, BSSID, sta_addr(0), &body);
    let start = net.air.len();
    net.inject(sta_addr(0), &f);
    assert_eq!(
        net.ap_rx[0],
        Err(Error::Refused(StatusCode::ASSOC_REJECTED_TEMPORARILY))
    );
    // The answer: status 30 with a Timeout Interval element, type 3.
    let resp = net.air[start + 1].1.clone();
    let m = MgmtFrame::new_checked(&resp[..]).unwrap();
    assert_eq!(m.subtype(), MgmtSubtype::AssocResponse);
    assert_eq!(
        m.status_code(),
        Some(StatusCode::ASSOC_REJECTED_TEMPORARILY)
    );
    let ti = m.elements().find_id(ElementId::TIMEOUT_INTERVAL).unwrap();
    assert_eq!(sa_query::parse_comeback(ti.data), Some(1000));
    // The real station ignored the unsolicited response and answered the
    // AP's protected query: nothing changed.
    assert!(net
        .ap_events
        .contains(&ApEvent::SaQueryConfirmed { sta: sta_addr(0) }));
    assert!(protected_association(&net, 0));
    assert_eq!(net.ap.stats().rejected_temporarily, 1);
}

#[test]
fn lost_station_reassociates_after_the_sa_query_times_out() {
    let mut net = Net::pmf_net(1);
    net.connect_all();
    // The station reboots: its state is gone, the AP's is not.
    net.stas[0].online = false;
    let mut c = *net.stas[0].sta.config();
    c.max_attempts = 20;
    net.stas.push(Node {
        sta: Sta::new(c, TestRng(999)),
        supp: None,
        events: vec![],
        online: true,
    });
    // Deliver to the new node as station 0's address.
    net.stas.swap(0, 1);
    net.stas.truncate(1);
    net.auths.remove(&sta_addr(0));
    let t0 = net.now;
    net.stas[0].sta.connect(net.now, BSSID);
    net.settle();
    assert!(matches!(
        net.stas[0].events.last(),
        Some(StaEvent::RejectedTemporarily { comeback_tu: 1000 })
    ));
    net.run_for(Duration::from_millis(1500), Duration::from_millis(10));
    assert!(net
        .ap_events
        .contains(&ApEvent::SaQueryTimedOut { sta: sta_addr(0) }));
    assert!(protected_association(&net, 0));
    let assoc_at = net.now;
    assert!(assoc_at.saturating_duration_since(t0) >= sa_query::tu(1000));
    // The AP retried its query every 201 TU: 5 requests in 1000 TU.
    let queries = net
        .air
        .iter()
        .filter(|(from, f)| {
            *from == BSSID
                && MgmtFrame::new_checked(&f[..]).is_ok_and(|m| m.subtype() == MgmtSubtype::Action)
        })
        .count();
    assert_eq!(queries, 5);
}

#[test]
fn broadcast_deauth_needs_bip() {
    let mut net = Net::pmf_net(2);
    net.connect_all();
    // Forged, unprotected: no MME, dropped by both.
    let f = forge(
        MgmtSubtype::Deauthentication,
        MacAddr::BROADCAST,
        BSSID,
        &7u16.to_le_bytes(),
    );
    net.inject(BSSID, &f);
    assert!(net.sta_rx.iter().all(|(_, r)| *r == Err(Error::MissingMme)));
    assert!(protected_association(&net, 0) && protected_association(&net, 1));
    // The AP's own, with BIP: accepted by both; the replay is not.
    let start = net.air.len();
    net.ap.deauthenticate_all(ReasonCode::UNSPECIFIED).unwrap();
    net.settle();
    let genuine = net.air[start].1.clone();
    assert!(net.stas.iter().all(|n| n.sta.state() == StaState::Idle));
    for i in 0..2 {
        assert!(net.stas[i].events.contains(&StaEvent::Deauthenticated {
            reason: ReasonCode::UNSPECIFIED
        }));
    }
    net.stas[0].sta.connect(net.now, BSSID);
    net.auths.clear();
    net.settle();
    assert!(protected_association(&net, 0));
    // After reconnecting, the IGTK's IPN continues: the old frame is a
    // replay.
    net.inject(BSSID, &genuine);
    assert_eq!(net.sta_rx[0], (0, Err(Error::Replayed)));
    let mut t = genuine.clone();
    *t.last_mut().unwrap() ^= 1;
    net.inject(BSSID, &t);
    assert!(net.sta_rx[0].1.is_err());
    assert!(protected_association(&net, 0));
}

#[test]
fn without_pmf_forged_frames_disconnect() {
    // Open network, and RSN without PMF: the forged frames work.
    for rsn in [None, Some(MfpPolicy::Disabled)] {
        let mut net = Net::new(rsn, &[rsn, rsn]);
        net.connect_all();
        assert!(net
            .stas
            .iter()
            .all(|n| n.sta.state() == StaState::Associated));
        let f = forge(
            MgmtSubtype::Deauthentication,
            sta_addr(0),
            BSSID,
            &7u16.to_le_bytes(),
        );
        net.inject(BSSID, &f);
        assert_eq!(net.stas[0].sta.state(), StaState::Idle);
        let f = forge(
            MgmtSubtype::Disassociation,
            BSSID,
            sta_addr(1),
            &8u16.to_le_bytes(),
        );
        net.inject(sta_addr(1), &f);
        assert!(!net.ap.station(sta_addr(1)).unwrap().associated);
    }
}

#[test]
fn policies_that_do_not_associate() {
    // STA requires, AP not capable: the STA does not try.
    let mut net = Net::new(Some(MfpPolicy::Disabled), &[Some(MfpPolicy::Required)]);
    net.connect_all();
    assert_eq!(net.stas[0].events, vec![StaEvent::Failed]);
    assert_eq!(net.ap.stats().associated, 0);
    // AP requires, STA not capable: the STA sees it in the beacon and
    // does not try; one that asks anyway is refused with status 31.
    let mut net = Net::new(Some(MfpPolicy::Required), &[Some(MfpPolicy::Disabled)]);
    net.connect_all();
    assert_eq!(net.stas[0].events, vec![StaEvent::Failed]);
    let auth = forge(
        MgmtSubtype::Authentication,
        BSSID,
        sta_addr(0),
        &[0, 0, 1, 0, 0, 0],
    );
    net.inject(sta_addr(0), &auth);
    let rsne = RsnConfig::psk(MfpPolicy::Disabled).rsne().unwrap();
    let mut body = vec![0x11, 0x00, 10, 0];
    body.extend_from_slice(&[ElementId::SSID.0, SSID.len() as u8]);
    body.extend_from_slice(SSID);
    body.extend_from_slice(rsne.as_bytes());
    let start = net.air.len();
    net.inject(
        sta_addr(0),
        &forge(MgmtSubtype::AssocRequest, BSSID, sta_addr(0), &body),
    );
    assert!(net.ap_events.contains(&ApEvent::Refused {
        sta: sta_addr(0),
        status: StatusCode::ROBUST_MGMT_POLICY_VIOLATION
    }));
    let resp = MgmtFrame::new_checked(&net.air[start + 1].1[..]).unwrap();
    assert_eq!(
        resp.status_code(),
        Some(StatusCode::ROBUST_MGMT_POLICY_VIOLATION)
    );
    // Both required, or capable and required: protected.
    let mut net = Net::new(
        Some(MfpPolicy::Required),
        &[Some(MfpPolicy::Capable), Some(MfpPolicy::Required)],
    );
    net.connect_all();
    assert!(protected_association(&net, 0) && protected_association(&net, 1));
    // Capable AP, STA without PMF: associated, unprotected.
    let mut net = Net::new(Some(MfpPolicy::Capable), &[Some(MfpPolicy::Disabled)]);
    net.connect_all();
    assert_eq!(net.stas[0].sta.state(), StaState::Associated);
    assert!(!net.stas[0].sta.pmf_in_use());
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Arbitrary bytes, and mutations of real frames, never panic
        /// either machine and never break a protected association.
        #[test]
        fn arbitrary_frames(frames in proptest::collection::vec(
            (proptest::collection::vec(any::<u8>(), 0..300), any::<usize>(), any::<u8>()), 1..8)
        ) {
            let mut net = Net::pmf_net(1);
            net.connect_all();
            let recorded: Vec<Vec<u8>> = net.air.iter().map(|(_, f)| f.clone()).collect();
            for (bytes, pick, flip) in frames {
                let mut f = if pick % 2 == 0 { bytes } else { recorded[pick % recorded.len()].clone() };
                if !f.is_empty() {
                    let i = pick % f.len();
                    f[i] ^= flip;
                }
                let _ = net.ap.handle_rx(net.now, &f);
                let _ = net.stas[0].sta.handle_rx(net.now, &f);
            }
            net.settle();
            net.run_for(Duration::from_millis(1200), Duration::from_millis(100));
            // Whatever happened, the pair ends associated (a query
            // confirmed, or the station reconnects when asked).
            prop_assert!(net.ap.entries() <= 32);
        }
    }
}
