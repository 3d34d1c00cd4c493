//! The protocol cores behind one interface for the runner: the 802.11w
//! access point and station of `wisec_proto::pmf` (with the 4-way
//! handshake of `wisec_proto::fourway` running over EAPOL data frames),
//! and the DiscoSec access point and station of `wisec_proto::discosec`.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use wisec_crypto::ptk::Pmk;
use wisec_proto::discosec as ds;
use wisec_proto::fourway::{Association, Authenticator, Event, Supplicant, Timing};
use wisec_proto::pmf;
use wisec_proto::rsn::{self, GroupKey, GroupKeys, Negotiated};
use wisec_proto::time::Instant;
use wisec_wire::data::Addressing;
use wisec_wire::element::{Akm, CipherSuite};
use wisec_wire::llc::{EtherType, SnapRepr};
use wisec_wire::mac_header::Header;
use wisec_wire::{MacAddr, ReasonCode};

/// Station entries an AP holds at most.
pub const AP_CAPACITY: usize = 256;

/// The handshake's randomness from the run's seeded generator.
pub struct HsRng(pub StdRng);

impl rsn::Random for HsRng {
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.0.fill_bytes(dest);
    }
}

fn is_data(f: &[u8]) -> bool {
    Header::new_checked(f).is_ok_and(|h| h.frame_control().is_data())
}

/// A stable kebab-case name for an error's variant (for counts by
/// reason).
pub fn reason_name(debug: &str) -> String {
    let head = debug.split(['(', ' ', '{']).next().unwrap_or(debug);
    let mut out = String::new();
    for (i, c) in head.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The access point side.
pub trait ApNode {
    /// Handles a received frame; `Err` names why it was refused.
    fn rx(&mut self, now: Instant, f: &[u8]) -> Result<(), String>;
    /// Runs timers.
    fn timeout(&mut self, now: Instant);
    /// The next frame to send.
    fn tx(&mut self) -> Option<Vec<u8>>;
    /// True when `sta` is associated (and, with PMF, keyed).
    fn associated(&self, sta: MacAddr) -> bool;
    /// Station entries held.
    fn entries(&self) -> usize;
    /// ECDH operations performed so far.
    fn ecdh_ops(&self) -> u64;
    /// SA Query procedures started.
    fn sa_queries(&self) -> u64;
    /// Stations that (re)associated since the last call.
    fn take_associations(&mut self) -> Vec<MacAddr>;
    /// ECDH counts at each token interval start since the last call.
    fn take_interval_marks(&mut self) -> Vec<u64>;
    /// The AP's public key and curve (DiscoSec only).
    fn discosec_key(&self) -> Option<ds::PublicPoint>;
}

/// The station side.
pub trait StaNode {
    /// Handles a received frame.
    fn rx(&mut self, now: Instant, f: &[u8]) -> Result<(), String>;
    /// Runs timers.
    fn timeout(&mut self, now: Instant);
    /// The next frame to send.
    fn tx(&mut self) -> Option<Vec<u8>>;
    /// Starts joining the AP.
    fn connect(&mut self, now: Instant);
    /// Associated (and keyed where keys apply).
    fn associated(&self) -> bool;
    /// Neither associated nor trying.
    fn idle(&self) -> bool;
    /// Queues one (protected where keys apply) data frame to the AP.
    fn send_data(&mut self, payload: &[u8]);
    /// Leaves on purpose: a (protected where keys apply)
    /// Deauthentication.
    fn leave(&mut self);
}

// ---------------------------------------------------------------------
// 802.11w

/// PMF network parameters shared by the AP and its stations.
#[derive(Clone)]
pub struct PmfParams {
    /// RSN with PMF (else an open network).
    pub rsn: bool,
    /// The PMK (PSK) of the RSN.
    pub pmk: [u8; 32],
}

fn negotiated() -> Negotiated {
    Negotiated::rsn(
        Akm::PSK,
        CipherSuite::CCMP_128,
        CipherSuite::CCMP_128,
        Some(CipherSuite::BIP_CMAC_128),
    )
}

/// The 802.11w AP with an authenticator per associated station.
pub struct PmfAp {
    ap: Box<pmf::Ap<StdRng, AP_CAPACITY>>,
    params: PmfParams,
    auths: HashMap<MacAddr, Authenticator>,
    rng: HsRng,
    gtk: [u8; 16],
    igtk: [u8; 16],
    assoc: Vec<MacAddr>,
    now: Instant,
}

impl PmfAp {
    /// An AP for `bssid`.
    pub fn new(now: Instant, bssid: MacAddr, ssid: &[u8], params: PmfParams, seed: u64) -> PmfAp {
        let mut cfg = pmf::ApConfig::new(bssid, ssid).expect("short SSID");
        if params.rsn {
            cfg.rsn = Some(pmf::RsnConfig::psk(pmf::MfpPolicy::Required));
        }
        let mut rng = StdRng::seed_from_u64(seed);
        let mut gtk = [0u8; 16];
        let mut igtk = [0u8; 16];
        rng.fill_bytes(&mut gtk);
        rng.fill_bytes(&mut igtk);
        let mut ap = Box::new(pmf::Ap::new(now, cfg, StdRng::seed_from_u64(seed ^ 1)));
        if params.rsn {
            ap.set_igtk(4, &igtk, 0).expect("IGTK");
        }
        PmfAp {
            ap,
            params,
            auths: HashMap::new(),
            rng: HsRng(rng),
            gtk,
            igtk,
            assoc: vec![],
            now,
        }
    }

    fn pump(&mut self) {
        while let Some(e) = self.ap.poll_event() {
            match e {
                pmf::ApEvent::Associated { sta, .. } => {
                    self.assoc.push(sta);
                    self.auths.remove(&sta);
                    if !self.params.rsn {
                        continue;
                    }
                    let Some(sta_rsne) = self.ap.sta_rsne(sta).copied() else {
                        continue;
                    };
                    let Some(rsn) = self.ap.config().rsn else {
                        continue;
                    };
                    let Ok(ap_rsne) = rsn.rsne() else { continue };
                    let assoc = Association {
                        negotiated: negotiated(),
                        aa: self.ap.config().bssid,
                        spa: sta,
                        ap_rsne,
                        sta_rsne,
                    };
                    // The IGTK KDE carries the IPN in force (12.7.2).
                    let ipn = self.ap.igtk().map_or(0, |(_, p)| p);
                    let keys = GroupKeys {
                        gtk: GroupKey::new(&self.gtk, 1, 0).expect("GTK"),
                        igtk: Some(GroupKey::new(&self.igtk, 4, ipn).expect("IGTK")),
                    };
                    let Ok(pmk) = Pmk::new(&self.params.pmk) else {
                        continue;
                    };
                    if let Ok(mut a) = Authenticator::new(assoc, pmk, keys, Timing::default()) {
                        if a.start(self.now, &mut self.rng).is_ok() {
                            self.auths.insert(sta, a);
                        }
                    }
                }
                pmf::ApEvent::Deauthenticated { sta, .. }
                | pmf::ApEvent::Disassociated { sta, .. }
                | pmf::ApEvent::SaQueryTimedOut { sta }
                | pmf::ApEvent::Expired { sta } => {
                    self.auths.remove(&sta);
                }
                _ => {}
            }
        }
        let addrs: Vec<MacAddr> = self.auths.keys().copied().collect();
        for sta in addrs {
            let Some(a) = self.auths.get_mut(&sta) else {
                continue;
            };
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
                let _ = self.ap.send_eapol(sta, &p);
            }
            if let Some(tk) = tk {
                let _ = self.ap.install_ptk(sta, &tk);
            }
        }
    }
}

impl ApNode for PmfAp {
    fn rx(&mut self, now: Instant, f: &[u8]) -> Result<(), String> {
        self.now = now;
        let r = match self.ap.handle_rx(now, f) {
            Ok(pmf::Rx::Eapol { peer, pdu }) => {
                let pdu = pdu.to_vec();
                match self.auths.get_mut(&peer) {
                    Some(a) => a
                        .handle_rx(now, &pdu, &mut self.rng)
                        .map_err(|e| format!("eapol-{}", reason_name(&format!("{e:?}")))),
                    None => Err("eapol-no-handshake".into()),
                }
            }
            Ok(_) => Ok(()),
            Err(e) => Err(e.name().to_string()),
        };
        self.pump();
        r
    }

    fn timeout(&mut self, now: Instant) {
        self.now = now;
        self.ap.handle_timeout(now);
        for a in self.auths.values_mut() {
            let _ = a.handle_timeout(now);
        }
        self.pump();
    }

    fn tx(&mut self) -> Option<Vec<u8>> {
        self.ap.poll_transmit().map(<[u8]>::to_vec)
    }

    fn associated(&self, sta: MacAddr) -> bool {
        self.ap
            .station(sta)
            .is_some_and(|s| s.associated && (!self.params.rsn || s.keyed))
    }

    fn entries(&self) -> usize {
        self.ap.entries()
    }

    fn ecdh_ops(&self) -> u64 {
        0
    }

    fn sa_queries(&self) -> u64 {
        self.ap.stats().sa_queries
    }

    fn take_associations(&mut self) -> Vec<MacAddr> {
        std::mem::take(&mut self.assoc)
    }

    fn take_interval_marks(&mut self) -> Vec<u64> {
        vec![]
    }

    fn discosec_key(&self) -> Option<ds::PublicPoint> {
        None
    }
}

/// The 802.11w station with its supplicant.
pub struct PmfSta {
    sta: Box<pmf::Sta<StdRng>>,
    params: PmfParams,
    supp: Option<Supplicant>,
    rng: HsRng,
    bssid: MacAddr,
    now: Instant,
}

impl PmfSta {
    /// A station `addr` for the network `bssid`.
    pub fn new(addr: MacAddr, bssid: MacAddr, ssid: &[u8], params: PmfParams, seed: u64) -> PmfSta {
        let mut cfg = pmf::StaConfig::new(addr, ssid).expect("short SSID");
        if params.rsn {
            cfg.rsn = Some(pmf::RsnConfig::psk(pmf::MfpPolicy::Required));
        }
        cfg.max_attempts = 50;
        PmfSta {
            sta: Box::new(pmf::Sta::new(cfg, StdRng::seed_from_u64(seed))),
            params,
            supp: None,
            rng: HsRng(StdRng::seed_from_u64(seed ^ 0x55)),
            bssid,
            now: Instant::ZERO,
        }
    }

    fn pump(&mut self) {
        while let Some(e) = self.sta.poll_event() {
            if let pmf::StaEvent::Associated { pmf, .. } = e {
                self.supp = None;
                if !self.params.rsn || !pmf {
                    continue;
                }
                let (Some(ap_rsne), Some(sta_rsne)) =
                    (self.sta.ap_rsne().copied(), self.sta.own_rsne().copied())
                else {
                    continue;
                };
                let assoc = Association {
                    negotiated: negotiated(),
                    aa: self.bssid,
                    spa: self.sta.config().addr,
                    ap_rsne,
                    sta_rsne,
                };
                if let Ok(pmk) = Pmk::new(&self.params.pmk) {
                    self.supp = Supplicant::new(assoc, pmk).ok();
                }
            }
        }
        let Some(s) = self.supp.as_mut() else {
            return;
        };
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
                        .map(|k| (k.key_id, k.key().to_vec(), k.pn));
                }
                _ => {}
            }
        }
        for p in out {
            let _ = self.sta.send_eapol(&p);
        }
        if let Some(tk) = tk {
            let _ = self.sta.install_ptk(&tk);
        }
        if let Some((id, k, pn)) = igtk {
            let _ = self.sta.install_igtk(id, &k, pn);
        }
    }
}

impl StaNode for PmfSta {
    fn rx(&mut self, now: Instant, f: &[u8]) -> Result<(), String> {
        self.now = now;
        let r = match self.sta.handle_rx(now, f) {
            Ok(pmf::Rx::Eapol { pdu, .. }) => {
                let pdu = pdu.to_vec();
                // The supplicant starts on association: events first.
                self.pump();
                match self.supp.as_mut() {
                    Some(s) => s
                        .handle_rx(now, &pdu, &mut self.rng)
                        .map_err(|e| format!("eapol-{}", reason_name(&format!("{e:?}")))),
                    None => Err("eapol-no-handshake".into()),
                }
            }
            Ok(_) => Ok(()),
            Err(e) => Err(e.name().to_string()),
        };
        self.pump();
        r
    }

    fn timeout(&mut self, now: Instant) {
        self.now = now;
        self.sta.handle_timeout(now);
        self.pump();
    }

    fn tx(&mut self) -> Option<Vec<u8>> {
        self.sta.poll_transmit().map(<[u8]>::to_vec)
    }

    fn connect(&mut self, now: Instant) {
        self.supp = None;
        self.sta.connect(now, self.bssid);
    }

    fn associated(&self) -> bool {
        self.sta.state() == pmf::StaState::Associated && (!self.params.rsn || self.sta.pmf_in_use())
    }

    fn idle(&self) -> bool {
        self.sta.state() == pmf::StaState::Idle
    }

    fn send_data(&mut self, payload: &[u8]) {
        let _ = self.sta.send_data(EtherType::IPV4, payload);
    }

    fn leave(&mut self) {
        let _ = self.sta.deauthenticate(ReasonCode::DEAUTH_LEAVING);
        self.supp = None;
    }
}

// ---------------------------------------------------------------------
// DiscoSec

/// The DiscoSec AP.
pub struct DsAp {
    ap: Box<ds::Ap<StdRng, AP_CAPACITY, 16>>,
    assoc: Vec<MacAddr>,
    marks: Vec<u64>,
}

impl DsAp {
    /// An AP with this configuration.
    pub fn new(now: Instant, cfg: ds::ApConfig, seed: u64) -> DsAp {
        DsAp {
            ap: Box::new(ds::Ap::new(now, cfg, StdRng::seed_from_u64(seed))),
            assoc: vec![],
            marks: vec![],
        }
    }

    fn pump(&mut self) {
        while let Some(e) = self.ap.poll_event() {
            match e {
                ds::ApEvent::Associated { sta, .. } => self.assoc.push(sta),
                ds::ApEvent::IntervalStarted { .. } => self.marks.push(self.ap.stats().ecdh_ops),
                _ => {}
            }
        }
    }
}

impl ApNode for DsAp {
    fn rx(&mut self, now: Instant, f: &[u8]) -> Result<(), String> {
        let r = if is_data(f) {
            self.ap.open_data(now, f).map(|_| ())
        } else {
            self.ap.handle_rx(now, f)
        };
        self.pump();
        r.map_err(|e| reason_name(&format!("{e:?}")))
    }

    fn timeout(&mut self, now: Instant) {
        self.ap.handle_timeout(now);
        self.pump();
    }

    fn tx(&mut self) -> Option<Vec<u8>> {
        self.ap.poll_transmit().map(<[u8]>::to_vec)
    }

    fn associated(&self, sta: MacAddr) -> bool {
        self.ap.station(sta).is_some_and(|s| s.associated)
    }

    fn entries(&self) -> usize {
        self.ap.entries()
    }

    fn ecdh_ops(&self) -> u64 {
        self.ap.stats().ecdh_ops
    }

    fn sa_queries(&self) -> u64 {
        0
    }

    fn take_associations(&mut self) -> Vec<MacAddr> {
        std::mem::take(&mut self.assoc)
    }

    fn take_interval_marks(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.marks)
    }

    fn discosec_key(&self) -> Option<ds::PublicPoint> {
        Some(*self.ap.public_key())
    }
}

/// The DiscoSec station.
pub struct DsSta {
    sta: Box<ds::Sta<StdRng>>,
    bssid: MacAddr,
    addr: MacAddr,
    pending: Vec<Vec<u8>>,
}

impl DsSta {
    /// A station with this configuration.
    pub fn new(cfg: ds::StaConfig, bssid: MacAddr, seed: u64) -> DsSta {
        DsSta {
            addr: cfg.addr,
            sta: Box::new(ds::Sta::new(cfg, StdRng::seed_from_u64(seed))),
            bssid,
            pending: vec![],
        }
    }
}

/// A plain data frame from `sa` to the AP `bssid` carrying `payload`
/// behind LLC/SNAP, with `spare` free bytes after it.
pub fn data_to_ap(bssid: MacAddr, sa: MacAddr, payload: &[u8], spare: usize) -> (Vec<u8>, usize) {
    let h = Addressing::ToAp {
        bssid,
        sa,
        da: bssid,
    }
    .header(None, 0);
    let mut b = vec![0u8; 64 + payload.len() + spare];
    let n = h.emit(&mut b).unwrap_or(0);
    let m = SnapRepr::for_ethertype(EtherType::IPV4)
        .emit(&mut b[n..])
        .unwrap_or(0);
    b[n + m..n + m + payload.len()].copy_from_slice(payload);
    (b, n + m + payload.len())
}

impl StaNode for DsSta {
    fn rx(&mut self, now: Instant, f: &[u8]) -> Result<(), String> {
        let r = if is_data(f) {
            self.sta.open_data(f).map(|_| ())
        } else {
            self.sta.handle_rx(now, f)
        };
        while self.sta.poll_event().is_some() {}
        r.map_err(|e| reason_name(&format!("{e:?}")))
    }

    fn timeout(&mut self, now: Instant) {
        self.sta.handle_timeout(now);
        while self.sta.poll_event().is_some() {}
    }

    fn tx(&mut self) -> Option<Vec<u8>> {
        if !self.pending.is_empty() {
            return Some(self.pending.remove(0));
        }
        self.sta.poll_transmit().map(<[u8]>::to_vec)
    }

    fn connect(&mut self, now: Instant) {
        self.sta.connect(now, self.bssid);
    }

    fn associated(&self) -> bool {
        self.sta.state() == ds::StaState::Associated
    }

    fn idle(&self) -> bool {
        self.sta.state() == ds::StaState::Idle
    }

    fn send_data(&mut self, payload: &[u8]) {
        if !self.associated() {
            return;
        }
        let (mut b, n) = data_to_ap(self.bssid, self.addr, payload, 64);
        if let Ok(m) = self.sta.seal_data(&mut b, n) {
            b.truncate(m);
            self.pending.push(b);
        }
    }

    fn leave(&mut self) {
        let _ = self.sta.disconnect(ReasonCode::DEAUTH_LEAVING);
    }
}
