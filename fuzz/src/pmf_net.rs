//! The AP and station machines of 802.11w (with the 4-way handshake that
//! keys them) and of DiscoSec, one AP and one station on a medium the
//! input drives: the frames each side sent are delivered in order,
//! dropped, replayed or mutated, any bytes are injected, the clock moves.

use crate::proto::lab_psk;
use crate::{Input, Rng};
use std::collections::HashSet;
use std::time::Duration;
use wisec_proto::discosec;
use wisec_proto::fourway::{Association, Authenticator, Event, Supplicant, Timing};
use wisec_proto::pmf::sa_query::{SaQuery, SaQueryFrame, SaQueryPoll, SaQueryTimers};
use wisec_proto::pmf::{self, MfpPolicy, RsnConfig, Rx};
use wisec_proto::rsn::{self, GroupKey, GroupKeys, Negotiated};
use wisec_proto::time::Instant;
use wisec_wire::element::{Akm, CipherSuite};
use wisec_wire::{MacAddr, ReasonCode};

const BSSID: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
const STA: MacAddr = MacAddr([0x02, 0, 0, 0, 1, 0]);
const SSID: &[u8] = b"lab";
const IGTK: [u8; 16] = [0x49; 16];

/// What the input does next, common to both networks.
enum Op {
    /// Deliver the next frame the AP sent to the station.
    ApToSta,
    /// Deliver the next frame the station sent to the AP.
    StaToAp,
    /// Skip the next frame in one direction.
    Drop(bool),
    /// Deliver again a frame sent before (index), to the AP when true.
    Replay(bool, usize),
    /// Deliver a frame sent before with bytes changed.
    Mutate(bool, usize, Vec<(usize, u8)>),
    /// Deliver these bytes.
    Inject(bool, Vec<u8>),
    /// Move the clock (ms) and fire the timers.
    Wait(u64),
    /// Something the protocol's user does (connect, SA Query, deauth...).
    Act(u8),
}

fn op(i: &mut Input<'_>) -> Op {
    let o = i.u8();
    let to_ap = o & 0x80 != 0;
    match o % 12 {
        0..=2 => Op::ApToSta,
        3..=5 => Op::StaToAp,
        6 => Op::Drop(to_ap),
        7 => Op::Replay(to_ap, usize::from(i.u8())),
        8 => {
            let k = usize::from(i.u8());
            let n = 1 + i.u8() % 4;
            Op::Mutate(
                to_ap,
                k,
                (0..n).map(|_| (usize::from(i.u16()), i.u8() | 1)).collect(),
            )
        }
        9 => Op::Inject(to_ap, i.chunk(400).to_vec()),
        10 => Op::Wait(u64::from(i.u16() % 2048)),
        _ => Op::Act(i.u8()),
    }
}

/// Frames each side sent, and how far delivery got.
#[derive(Default)]
struct Air {
    from_ap: Vec<Vec<u8>>,
    from_sta: Vec<Vec<u8>>,
    next_ap: usize,
    next_sta: usize,
}

impl Air {
    fn pick(&self, to_ap: bool, k: usize) -> Option<Vec<u8>> {
        let v = if to_ap { &self.from_sta } else { &self.from_ap };
        (!v.is_empty()).then(|| v[k % v.len()].clone())
    }

    /// Bounds the run: a chatty machine cannot make the input slow.
    fn bound(&mut self) {
        self.from_ap.truncate(4096);
        self.from_sta.truncate(4096);
    }
}

/// One AP and one station on the [`Air`]: what the medium's operations
/// need of either network.
trait Net {
    fn air(&mut self) -> &mut Air;
    fn to_ap(&mut self, f: &[u8]);
    fn to_sta(&mut self, f: &[u8]);

    fn deliver(&mut self, to_ap: bool, f: &[u8]) {
        if to_ap {
            self.to_ap(f)
        } else {
            self.to_sta(f)
        }
    }

    /// Carries out `o` when it is the medium's (delivery, loss, replay,
    /// mutation, injection); gives back the clock and user operations.
    fn medium(&mut self, o: Op) -> Option<Op> {
        match o {
            Op::ApToSta => {
                let air = self.air();
                if let Some(f) = air.from_ap.get(air.next_ap).cloned() {
                    air.next_ap += 1;
                    self.to_sta(&f);
                }
            }
            Op::StaToAp => {
                let air = self.air();
                if let Some(f) = air.from_sta.get(air.next_sta).cloned() {
                    air.next_sta += 1;
                    self.to_ap(&f);
                }
            }
            Op::Drop(to_ap) => {
                let air = self.air();
                if to_ap {
                    air.next_sta += 1;
                } else {
                    air.next_ap += 1;
                }
            }
            Op::Replay(to_ap, k) => {
                if let Some(f) = self.air().pick(to_ap, k) {
                    self.deliver(to_ap, &f);
                }
            }
            Op::Mutate(to_ap, k, flips) => {
                if let Some(f) = self.air().pick(to_ap, k) {
                    self.deliver(to_ap, &mutate(f, &flips));
                }
            }
            Op::Inject(to_ap, f) => self.deliver(to_ap, &f),
            o @ (Op::Wait(_) | Op::Act(_)) => return Some(o),
        }
        None
    }
}

fn mutate(mut f: Vec<u8>, flips: &[(usize, u8)]) -> Vec<u8> {
    for &(at, x) in flips {
        let n = f.len().max(1);
        if let Some(b) = f.get_mut(at % n) {
            *b ^= x;
        }
    }
    f
}

fn hs(now: Instant) -> rsn::Instant {
    rsn::Instant::from_millis(now.as_micros() / 1000)
}

fn neg(pmf: bool) -> Negotiated {
    Negotiated::rsn(
        Akm::PSK,
        CipherSuite::CCMP_128,
        CipherSuite::CCMP_128,
        pmf.then_some(CipherSuite::BIP_CMAC_128),
    )
}

struct PmfNet {
    ap: pmf::Ap<Rng, 8>,
    sta: pmf::Sta<Rng>,
    auth: Option<Authenticator>,
    supp: Option<Supplicant>,
    rng: Rng,
    now: Instant,
    air: Air,
    ptks: HashSet<Vec<u8>>,
    rc: Option<u64>,
}

impl PmfNet {
    fn new(i: &mut Input<'_>) -> PmfNet {
        let policy = |b: u8| match b % 3 {
            0 => MfpPolicy::Capable,
            1 => MfpPolicy::Required,
            _ => MfpPolicy::Disabled,
        };
        let b = i.u8();
        let mut cfg = pmf::ApConfig::new(BSSID, SSID).expect("a short SSID");
        cfg.rsn = Some(RsnConfig::psk(policy(b)));
        cfg.beacon_interval_tu = 0;
        let mut ap = pmf::Ap::new(Instant::ZERO, cfg, Rng(1));
        let _ = ap.set_igtk(4, &IGTK, 0);
        let mut sc = pmf::StaConfig::new(STA, SSID).expect("a short SSID");
        sc.rsn = Some(RsnConfig::psk(policy(b >> 2)));
        let mut sta = pmf::Sta::new(sc, Rng(2));
        sta.connect(Instant::ZERO, BSSID);
        PmfNet {
            ap,
            sta,
            auth: None,
            supp: None,
            rng: Rng(3),
            now: Instant::ZERO,
            air: Air::default(),
            ptks: HashSet::new(),
            rc: None,
        }
    }

    /// Events to handshakes and keys to the PMF cores, as a driver does.
    fn glue(&mut self) {
        while let Some(e) = self.ap.poll_event() {
            if let pmf::ApEvent::Associated { sta, pmf, .. } = e {
                let (Some(sta_rsne), Some(rsn)) =
                    (self.ap.sta_rsne(sta).copied(), self.ap.config().rsn)
                else {
                    continue;
                };
                let Ok(ap_rsne) = rsn.rsne() else { continue };
                let assoc = Association {
                    negotiated: neg(pmf),
                    aa: BSSID,
                    spa: sta,
                    ap_rsne,
                    sta_rsne,
                };
                let keys = GroupKeys {
                    gtk: GroupKey::new(&[0x47; 16], 1, 0).expect("a GTK"),
                    igtk: pmf.then(|| GroupKey::new(&IGTK, 4, 0).expect("an IGTK")),
                };
                if let Ok(mut a) =
                    Authenticator::new(assoc, lab_psk().clone(), keys, Timing::default())
                {
                    let _ = a.start(hs(self.now), &mut self.rng);
                    self.auth = Some(a);
                }
            }
        }
        while let Some(e) = self.sta.poll_event() {
            if let pmf::StaEvent::Associated { pmf, .. } = e {
                if let (Some(ap_rsne), Some(sta_rsne)) = (self.sta.ap_rsne(), self.sta.own_rsne()) {
                    let assoc = Association {
                        negotiated: neg(pmf),
                        aa: BSSID,
                        spa: STA,
                        ap_rsne: *ap_rsne,
                        sta_rsne: *sta_rsne,
                    };
                    self.supp = Supplicant::new(assoc, lab_psk().clone()).ok();
                    self.rc = None;
                }
            }
        }
        if let Some(a) = self.auth.as_mut() {
            let mut out = vec![];
            while let Some(p) = a.poll_transmit() {
                out.push(p.to_vec());
            }
            let mut tk = None;
            while let Some(e) = a.poll_event() {
                if e == Event::PtkInstalled {
                    tk = a.ptk().map(|p| p.tk().to_vec());
                }
            }
            for p in out {
                let _ = self.ap.send_eapol(STA, &p);
            }
            if let Some(tk) = tk {
                let _ = self.ap.install_ptk(STA, &tk);
            }
        }
        if let Some(s) = self.supp.as_mut() {
            let mut out = vec![];
            while let Some(p) = s.poll_transmit() {
                out.push(p.to_vec());
            }
            let (mut tk, mut igtk) = (None, None);
            while let Some(e) = s.poll_event() {
                match e {
                    Event::PtkInstalled => tk = s.ptk().map(|p| p.tk().to_vec()),
                    Event::IgtkInstalled { .. } => {
                        igtk = s
                            .group_keys()
                            .and_then(|g| g.igtk.clone())
                            .map(|k| (k.key_id, k.key().to_vec(), k.pn))
                    }
                    _ => {}
                }
            }
            // The supplicant's replay counter only moves forward.
            let rc = s.replay_counter();
            assert!(rc >= self.rc, "supplicant replay counter moved back");
            self.rc = rc;
            for p in out {
                let _ = self.sta.send_eapol(&p);
            }
            if let Some(tk) = tk {
                assert!(self.ptks.insert(tk.clone()), "station: PTK installed twice");
                let _ = self.sta.install_ptk(&tk);
            }
            if let Some((id, k, pn)) = igtk {
                let _ = self.sta.install_igtk(id, &k, pn);
            }
        }
    }

    fn collect(&mut self) {
        self.glue();
        while let Some(f) = self.ap.poll_transmit() {
            self.air.from_ap.push(f.to_vec());
        }
        while let Some(f) = self.sta.poll_transmit() {
            self.air.from_sta.push(f.to_vec());
        }
        self.air.bound();
    }

    fn step(&mut self, o: Op) {
        match self.medium(o) {
            None => {}
            Some(Op::Wait(ms)) => {
                self.now = self.now + Duration::from_millis(ms);
                self.ap.handle_timeout(self.now);
                self.sta.handle_timeout(self.now);
                if let Some(a) = self.auth.as_mut() {
                    let _ = a.handle_timeout(hs(self.now));
                }
            }
            Some(Op::Act(a)) => match a % 6 {
                0 => self.sta.connect(self.now, BSSID),
                1 => {
                    let _ = self.sta.start_sa_query(self.now);
                }
                2 => {
                    let _ = self.ap.start_sa_query(self.now, STA);
                }
                3 => {
                    let _ = self.ap.deauthenticate(STA, ReasonCode(3));
                }
                4 => {
                    let _ = self.sta.deauthenticate(ReasonCode(3));
                }
                _ => {
                    let _ = self.ap.disassociate(STA, ReasonCode(8));
                }
            },
            Some(_) => {}
        }
        self.collect();
    }
}

impl Net for PmfNet {
    fn air(&mut self) -> &mut Air {
        &mut self.air
    }

    fn to_ap(&mut self, f: &[u8]) {
        let pdu = match self.ap.handle_rx(self.now, f) {
            Ok(Rx::Eapol { pdu, .. }) => pdu.to_vec(),
            _ => return,
        };
        if let Some(a) = self.auth.as_mut() {
            let _ = a.handle_rx(hs(self.now), &pdu, &mut self.rng);
        }
    }

    fn to_sta(&mut self, f: &[u8]) {
        let pdu = match self.sta.handle_rx(self.now, f) {
            Ok(Rx::Eapol { pdu, .. }) => pdu.to_vec(),
            _ => return,
        };
        self.glue();
        if let Some(s) = self.supp.as_mut() {
            let _ = s.handle_rx(hs(self.now), &pdu, &mut self.rng);
        }
    }
}

/// 802.11w: the PMF AP and station with the 4-way handshake that keys
/// them. The station never installs a PTK twice, and the supplicant's
/// replay counter never goes back.
pub fn pmf(data: &[u8]) {
    let mut i = Input::new(data);
    let mut n = PmfNet::new(&mut i);
    n.collect();
    let mut steps = 0;
    while !i.is_empty() && steps < 256 {
        steps += 1;
        let o = op(&mut i);
        n.step(o);
    }
}

/// SA Query: the procedure's timers and identifiers on their own, the
/// frame's parse and emit, then the PMF network with SA Queries started
/// and answered as the input says.
pub fn sa_query(data: &[u8]) {
    let mut i = Input::new(data);
    if let Ok(f) = SaQueryFrame::parse(i.bytes(4)) {
        let mut b = [0u8; 4];
        let n = f.emit(&mut b).expect("four octets");
        assert_eq!(SaQueryFrame::parse(&b[..n]), Ok(f), "SA Query round trip");
    }
    let timers = SaQueryTimers {
        max_timeout: Duration::from_millis(u64::from(i.u16())),
        retry_timeout: Duration::from_millis(1 + u64::from(i.u8())),
    };
    let mut now = Instant::from_millis(u64::from(i.u16()));
    let first = i.u16();
    let mut q = SaQuery::start(now, &timers, first);
    assert!(q.matches(first), "the first identifier matches");
    let deadline = q.deadline(&timers);
    let mut last = first;
    for _ in 0..usize::from(i.u8() % 64) {
        now = now + Duration::from_millis(u64::from(i.u8()) * 8);
        let id = i.u16();
        match q.poll(now, &timers, || id) {
            SaQueryPoll::Wait => assert!(now < q.next_event(&timers) || now >= deadline),
            SaQueryPoll::Retry(x) => {
                assert!(now < deadline, "a retry after the deadline");
                assert!(q.matches(x), "a retry's identifier does not match");
                last = x;
            }
            SaQueryPoll::TimedOut => {
                assert!(now >= deadline, "timed out early");
                break;
            }
        }
        assert_eq!(q.last_id(), last, "last identifier");
        assert_eq!(q.deadline(&timers), deadline, "the deadline moved");
        assert!(q.comeback_tu(now, &timers) >= 1);
    }
    // The network: connect, then SA Queries the input asks for.
    let mut n = PmfNet::new(&mut i);
    n.collect();
    for _ in 0..64 {
        n.step(Op::ApToSta);
        n.step(Op::StaToAp);
        n.step(Op::Wait(5));
    }
    let mut steps = 0;
    while !i.is_empty() && steps < 128 {
        steps += 1;
        let o = match i.u8() % 4 {
            0 => Op::Act(1 + i.u8() % 2),
            1 => {
                // A forged SA Query Action frame with any identifier.
                let mut f = vec![0xd0, 0, 0, 0];
                let to_ap = i.u8() & 1 == 0;
                let (a1, a2) = if to_ap { (BSSID, STA) } else { (STA, BSSID) };
                f.extend_from_slice(&a1.0);
                f.extend_from_slice(&a2.0);
                f.extend_from_slice(&BSSID.0);
                f.extend_from_slice(&[0, 0, 8, i.u8() & 1]);
                f.extend_from_slice(&i.u16().to_le_bytes());
                Op::Inject(to_ap, f)
            }
            _ => op(&mut i),
        };
        n.step(o);
    }
}

struct DiscoNet {
    ap: discosec::Ap<Rng, 8, 8>,
    sta: discosec::Sta<Rng>,
    now: Instant,
    air: Air,
}

impl Net for DiscoNet {
    fn air(&mut self) -> &mut Air {
        &mut self.air
    }

    fn to_ap(&mut self, f: &[u8]) {
        let _ = self.ap.handle_rx(self.now, f);
        let _ = self.ap.open_data(self.now, f);
    }

    fn to_sta(&mut self, f: &[u8]) {
        let _ = self.sta.handle_rx(self.now, f);
        let _ = self.sta.open_data(f);
    }
}

impl DiscoNet {
    fn collect(&mut self) {
        while self.ap.poll_event().is_some() {}
        while self.sta.poll_event().is_some() {}
        while let Some(f) = self.ap.poll_transmit() {
            self.air.from_ap.push(f.to_vec());
        }
        while let Some(f) = self.sta.poll_transmit() {
            self.air.from_sta.push(f.to_vec());
        }
        self.air.bound();
    }
}

/// DiscoSec: the AP (with association tokens) and a station, under the
/// input's medium, and data frames sealed by one side opened by the other
/// exactly once.
pub fn discosec(data: &[u8]) {
    let mut i = Input::new(data);
    let mut cfg = discosec::ApConfig::new(BSSID, SSID).expect("a short SSID");
    let b = i.u8();
    cfg.curve = discosec::Curve::ALL[usize::from(b) % discosec::Curve::ALL.len()];
    cfg.mode = if b & 0x10 == 0 {
        wisec_wire::discosec::AuthMode::Fast
    } else {
        wisec_wire::discosec::AuthMode::Full
    };
    let mut n = DiscoNet {
        ap: discosec::Ap::new(Instant::from_millis(1), cfg, Rng(1)),
        sta: discosec::Sta::new(
            discosec::StaConfig::new(STA, SSID).expect("a short SSID"),
            Rng(2),
        ),
        now: Instant::from_millis(1),
        air: Air::default(),
    };
    n.sta.connect(n.now, BSSID);
    n.collect();
    let mut steps = 0;
    while !i.is_empty() && steps < 256 {
        steps += 1;
        match n.medium(op(&mut i)) {
            None => {}
            Some(Op::Wait(ms)) => {
                n.now = n.now + Duration::from_millis(ms * 8);
                n.ap.handle_timeout(n.now);
                n.sta.handle_timeout(n.now);
            }
            Some(Op::Act(a)) => match a % 4 {
                0 => n.sta.connect(n.now, BSSID),
                1 => {
                    let _ = n.sta.disconnect(ReasonCode(3));
                }
                2 => {
                    let _ = n.ap.deauthenticate(STA, ReasonCode(3));
                }
                _ => data_exchange(&mut n, i.u8()),
            },
            Some(_) => {}
        }
        n.collect();
    }
}

/// A data frame sealed by the station opens once at the AP (a second
/// time is a replay), and the other way round.
fn data_exchange(n: &mut DiscoNet, len: u8) {
    let (mut f, l) = data_frame(true, 0x5a, len);
    if let Ok(m) = n.sta.seal_data(&mut f, l) {
        if n.ap.open_data(n.now, &f[..m]).is_ok() {
            assert!(
                n.ap.open_data(n.now, &f[..m]).is_err(),
                "DiscoSec accepted a data frame twice"
            );
        }
    }
    let (mut d, l) = data_frame(false, 0xa5, len);
    if let Ok(m) = n.ap.seal_data(STA, &mut d, l) {
        if n.sta.open_data(&d[..m]).is_ok() {
            assert!(
                n.sta.open_data(&d[..m]).is_err(),
                "DiscoSec accepted a data frame twice"
            );
        }
    }
}

/// A Data frame between the station and the AP (To DS when `to_ap`, From
/// DS otherwise) with `len` octets of `fill`, and 64 octets of room for
/// DiscoSec's trailer: the buffer and the frame's length.
fn data_frame(to_ap: bool, fill: u8, len: u8) -> (Vec<u8>, usize) {
    let (flags, a1, a2) = if to_ap {
        (0x01, BSSID, STA)
    } else {
        (0x02, STA, BSSID)
    };
    let mut f = vec![0x08, flags, 0, 0];
    f.extend_from_slice(&a1.0);
    f.extend_from_slice(&a2.0);
    f.extend_from_slice(&BSSID.0);
    f.extend_from_slice(&[0, 0]);
    f.extend(std::iter::repeat_n(fill, usize::from(len)));
    let l = f.len();
    f.resize(l + 64, 0);
    (f, l)
}
