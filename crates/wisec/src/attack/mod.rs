//! `wisec attack run`: one AP, N legitimate stations and an attacker
//! exchanging real frames through the protocol cores of `wisec-proto`
//! over a lossless virtual channel with a virtual clock.
//!
//! Protections:
//!
//! - `none`: an open network (the `wisec_proto::pmf` cores without RSN);
//! - `pmf`: RSN with MFPR (802.11w); every station runs the 4-way
//!   handshake of `wisec_proto::fourway` over EAPOL data frames and
//!   installs its PTK and the IGTK of message 3 into the PMF core;
//! - `discosec-fast`, `discosec-full`: DiscoSec (seed 003) in `fast_auth`
//!   or `full_auth` mode, with the association-token DoS protection unless
//!   `--no-token-protection`.
//!
//! The run: the stations associate (warm-up, not counted); each sends
//! three data frames, leaves on purpose and associates again (so that the
//! attacker has old authenticated frames to replay); then the attack runs
//! for `--duration` seconds at `--rate` frames per second, and halfway a
//! late station starts to associate. Stations that lose their association
//! associate again, as a real client does.
//!
//! Attacks:
//!
//! - `deauth` / `disassoc`: forged frames alternately to each station in
//!   the AP's name (reason 7) and to the AP in the station's name;
//! - `authflood`: authentication requests from random addresses; against
//!   DiscoSec they are complete requests with valid public keys (from a
//!   pool of 64 attacker key pairs, more than the AP's key cache) and the
//!   tokens the attacker reads in the beacons (each published token is
//!   spent as soon as the AP accepts it), then random tokens;
//! - `replay`: every frame the attacker recorded during the warm-up that
//!   the protection claims to cover (Deauthentication, Disassociation,
//!   Action and data frames; with DiscoSec also Authentication and
//!   Association frames), sent again to its original receiver;
//! - `assoc-spoof`: each station's recorded Association Request, sent
//!   again in its name.
//!
//! Nothing here is timed: every figure is a count on the virtual clock.

pub mod cli;
pub mod nodes;

use nodes::{ApNode, DsAp, DsSta, PmfAp, PmfParams, PmfSta, StaNode};
use rand::rngs::StdRng;
use rand::{Rng, RngExt, SeedableRng};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::time::Duration;
use wisec_proto::discosec as ds;
use wisec_proto::time::Instant;
use wisec_wire::discosec::{AuthMode, DiscoElement, DiscoInfo, PublicKeyElement};
use wisec_wire::frame_control::{FrameControl, FrameType};
use wisec_wire::mac_header::Header;
use wisec_wire::mgmt::{MgmtFrame, MgmtSubtype};
use wisec_wire::{ElementWriter, HeaderRepr, MacAddr};

/// The AP's address.
pub const BSSID: MacAddr = MacAddr([0x02, 0x00, 0x00, 0x00, 0x00, 0x01]);
const SSID: &[u8] = b"wisec-lab";
/// The virtual clock's step.
const STEP: Duration = Duration::from_millis(1);
/// Attacker key pairs for DiscoSec floods (more than the AP's MK cache).
const ATTACKER_KEYS: usize = 64;

/// The attack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AttackKind {
    /// Forged Deauthentication frames.
    Deauth,
    /// Forged Disassociation frames.
    Disassoc,
    /// Authentication requests from random addresses.
    Authflood,
    /// Recorded protected frames sent again.
    Replay,
    /// Recorded association requests sent again in the stations' names.
    AssocSpoof,
}

/// The protection the network runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protection {
    /// Open network.
    None,
    /// RSN with management frame protection required.
    Pmf,
    /// DiscoSec, fast_auth.
    DiscosecFast,
    /// DiscoSec, full_auth.
    DiscosecFull,
}

impl AttackKind {
    /// The name the command line and the JSON report use.
    pub const fn name(self) -> &'static str {
        match self {
            AttackKind::Deauth => "deauth",
            AttackKind::Disassoc => "disassoc",
            AttackKind::Authflood => "authflood",
            AttackKind::Replay => "replay",
            AttackKind::AssocSpoof => "assoc-spoof",
        }
    }
}

impl Protection {
    /// The name the command line and the JSON report use.
    pub const fn name(self) -> &'static str {
        match self {
            Protection::None => "none",
            Protection::Pmf => "pmf",
            Protection::DiscosecFast => "discosec-fast",
            Protection::DiscosecFull => "discosec-full",
        }
    }

    fn discosec(self) -> Option<AuthMode> {
        match self {
            Protection::DiscosecFast => Some(AuthMode::Fast),
            Protection::DiscosecFull => Some(AuthMode::Full),
            _ => None,
        }
    }
}

/// One run's parameters.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The attack.
    pub attack: AttackKind,
    /// The protection.
    pub protection: Protection,
    /// Legitimate stations (besides the late one).
    pub stations: usize,
    /// Attacker frames per second.
    pub rate: f64,
    /// Length of the attack.
    pub duration: Duration,
    /// Seed of every random choice.
    pub seed: u64,
    /// DiscoSec's association-token DoS protection.
    pub token_protection: bool,
    /// DiscoSec tokens per interval.
    pub tokens_per_interval: usize,
}

impl Scenario {
    /// Defaults: 5 stations, 100 frames/s, 10 s, seed 1, token
    /// protection with 10 tokens per interval (the paper's setting).
    pub fn new(attack: AttackKind, protection: Protection) -> Scenario {
        Scenario {
            attack,
            protection,
            stations: 5,
            rate: 100.0,
            duration: Duration::from_secs(10),
            seed: 1,
            token_protection: true,
            tokens_per_interval: 10,
        }
    }
}

/// The attacker's frames and what became of them.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AttackerOut {
    /// Frames sent.
    pub sent: u64,
    /// Frames a receiver acted upon.
    pub accepted: u64,
    /// Frames refused, by reason.
    pub rejected: BTreeMap<String, u64>,
}

/// The AP's load.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ApOut {
    /// Station entries at the end.
    pub entries_end: usize,
    /// The most station entries held during the attack.
    pub entries_peak: usize,
    /// The AP's capacity.
    pub capacity: usize,
    /// ECDH operations during the attack.
    pub ecdh_ops: u64,
    /// ECDH operations per second of attack.
    pub ecdh_per_second: f64,
    /// The most ECDH operations in one token interval (DiscoSec).
    pub ecdh_max_per_interval: Option<u64>,
    /// Length of a token interval in seconds (DiscoSec).
    pub token_interval_s: Option<f64>,
    /// SA Query procedures the AP started (PMF).
    pub sa_queries: u64,
}

/// The late station.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LateOut {
    /// When it started, in seconds after the attack began.
    pub started_at_s: f64,
    /// How long it took to associate, `null` if it did not before the
    /// end.
    pub joined_after_ms: Option<f64>,
}

/// One sample per second of attack.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    /// Seconds since the attack began.
    pub t_s: f64,
    /// AP station entries.
    pub entries: usize,
    /// ECDH operations since the attack began.
    pub ecdh_ops: u64,
    /// Legitimate stations associated.
    pub associated: usize,
}

/// What one run showed.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The attack.
    pub attack: AttackKind,
    /// The protection.
    pub protection: Protection,
    /// Legitimate stations.
    pub stations: usize,
    /// Attacker frames per second.
    pub rate: f64,
    /// Attack length in seconds.
    pub duration_s: f64,
    /// The seed.
    pub seed: u64,
    /// DiscoSec token protection (`null` for other protections).
    pub token_protection: Option<bool>,
    /// DiscoSec tokens per interval.
    pub tokens_per_interval: Option<usize>,
    /// How keys were established.
    pub keys: &'static str,
    /// Stations associated after the warm-up.
    pub associated_before: usize,
    /// Stations associated at the end.
    pub associated_end: usize,
    /// Times a legitimate station lost its association during the attack.
    pub disconnections: u64,
    /// Distinct stations that lost their association.
    pub stations_disconnected: usize,
    /// AP-side (re)associations of legitimate addresses the stations did
    /// not ask for.
    pub forced_reassociations: u64,
    /// The attacker's frames.
    pub attacker: AttackerOut,
    /// The AP's load.
    pub ap: ApOut,
    /// The late station.
    pub late_station: LateOut,
    /// One sample per second.
    pub timeline: Vec<Sample>,
}

fn sta_addr(i: usize) -> MacAddr {
    MacAddr([0x02, 0x00, 0x00, 0x00, 0x01, i as u8])
}

struct Net {
    now: Instant,
    ap: Box<dyn ApNode>,
    stas: Vec<Box<dyn StaNode>>,
    addrs: Vec<MacAddr>,
    /// Stations that may join (the late one only once started).
    active: Vec<bool>,
    /// Every frame on the air during recording: (sender, bytes).
    recorded: Vec<(MacAddr, Vec<u8>)>,
    recording: bool,
    /// Frames the stations sent to associate (counted for forced
    /// reassociations).
    own_assoc_requests: Vec<u64>,
    beacons: Vec<Vec<u8>>,
}

impl Net {
    fn index(&self, a: MacAddr) -> Option<usize> {
        self.addrs.iter().position(|x| *x == a)
    }

    /// Delivers one frame to its receivers; returns their verdicts.
    fn deliver(&mut self, from: MacAddr, f: &[u8]) -> Vec<Result<(), String>> {
        let Ok(h) = Header::new_checked(f) else {
            return vec![];
        };
        let a1 = h.addr1();
        let mut out = vec![];
        if from == BSSID {
            let fc = h.frame_control();
            if fc.is_mgmt() && fc.subtype() == MgmtSubtype::Beacon.to_u8() {
                if self.beacons.len() > 4 {
                    self.beacons.remove(0);
                }
                self.beacons.push(f.to_vec());
            }
        }
        if self.recording {
            self.recorded.push((from, f.to_vec()));
        }
        if a1 == BSSID || (a1.is_broadcast() && from != BSSID) {
            out.push(self.ap.rx(self.now, f));
        }
        for i in 0..self.stas.len() {
            let to_me = a1 == self.addrs[i] || (a1.is_group() && from == BSSID);
            if to_me && self.active[i] {
                out.push(self.stas[i].rx(self.now, f));
            }
        }
        out
    }

    fn settle(&mut self) {
        for _ in 0..10_000 {
            let mut moved = false;
            while let Some(f) = self.ap.tx() {
                moved = true;
                self.deliver(BSSID, &f);
            }
            for i in 0..self.stas.len() {
                while let Some(f) = self.stas[i].tx() {
                    moved = true;
                    if MgmtFrame::new_checked(&f[..])
                        .is_ok_and(|m| m.subtype() == MgmtSubtype::AssocRequest)
                    {
                        self.own_assoc_requests[i] += 1;
                    }
                    let from = self.addrs[i];
                    self.deliver(from, &f);
                }
            }
            if !moved {
                return;
            }
        }
    }

    fn tick(&mut self) {
        self.now = self.now + STEP;
        self.ap.timeout(self.now);
        for i in 0..self.stas.len() {
            if self.active[i] {
                self.stas[i].timeout(self.now);
            }
        }
        self.settle();
    }

    fn all_associated(&self, n: usize) -> bool {
        (0..n).all(|i| self.connected(i))
    }

    fn connected(&self, i: usize) -> bool {
        self.stas[i].associated() && self.ap.associated(self.addrs[i])
    }

    /// Reconnects the active stations that are idle (a real client
    /// associates again when it loses its association).
    fn reconnect_idle(&mut self) {
        for i in 0..self.stas.len() {
            if self.active[i] && self.stas[i].idle() {
                let now = self.now;
                self.stas[i].connect(now);
            }
        }
    }

    fn run_until(&mut self, limit: Duration, n: usize) -> bool {
        let end = self.now + limit;
        while self.now < end {
            self.tick();
            self.reconnect_idle();
            if self.all_associated(n) {
                return true;
            }
        }
        false
    }
}

fn build(s: &Scenario) -> Net {
    let now = Instant::from_millis(1);
    let total = s.stations + 1;
    let addrs: Vec<MacAddr> = (0..total).map(sta_addr).collect();
    let (ap, stas): (Box<dyn ApNode>, Vec<Box<dyn StaNode>>) = match s.protection.discosec() {
        None => {
            let mut pmk = [0u8; 32];
            StdRng::seed_from_u64(s.seed ^ 0x504d4b).fill_bytes(&mut pmk);
            let params = PmfParams {
                rsn: s.protection == Protection::Pmf,
                pmk,
            };
            let ap = PmfAp::new(now, BSSID, SSID, params.clone(), s.seed);
            let stas = addrs
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    Box::new(PmfSta::new(
                        *a,
                        BSSID,
                        SSID,
                        params.clone(),
                        s.seed + 1000 + i as u64,
                    )) as Box<dyn StaNode>
                })
                .collect();
            (Box::new(ap), stas)
        }
        Some(mode) => {
            let mut cfg = ds::ApConfig::new(BSSID, SSID).expect("short SSID");
            cfg.mode = mode;
            cfg.dos_protection = s.token_protection;
            cfg.tokens_per_interval = s.tokens_per_interval;
            let ap = DsAp::new(now, cfg, s.seed);
            let stas = addrs
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    let mut c = ds::StaConfig::new(*a, SSID).expect("short SSID");
                    c.max_attempts = 50;
                    Box::new(DsSta::new(c, BSSID, s.seed + 1000 + i as u64)) as Box<dyn StaNode>
                })
                .collect();
            (Box::new(ap), stas)
        }
    };
    let mut active = vec![true; total];
    active[s.stations] = false;
    Net {
        now,
        ap,
        stas,
        addrs,
        active,
        recorded: vec![],
        recording: false,
        own_assoc_requests: vec![0; total],
        beacons: vec![],
    }
}

/// A forged management frame.
fn forge(subtype: MgmtSubtype, a1: MacAddr, a2: MacAddr, seq: u16, body: &[u8]) -> Vec<u8> {
    let h = HeaderRepr {
        frame_control: FrameControl::new(FrameType::Management, subtype.to_u8()),
        duration: 0,
        addr1: a1,
        addr2: Some(a2),
        addr3: Some(BSSID),
        sequence_control: Some((seq & 0x0fff) << 4),
        addr4: None,
        qos_control: None,
        ht_control: None,
    };
    let mut b = vec![0u8; 24];
    let _ = h.emit(&mut b);
    b.extend_from_slice(body);
    b
}

struct FloodKey {
    key: ds::KeyPair,
    mk: Option<ds::MasterKey>,
}

struct Attacker {
    rng: StdRng,
    kind: AttackKind,
    mode: Option<AuthMode>,
    targets: Vec<MacAddr>,
    counter: u64,
    script: Vec<(MacAddr, Vec<u8>)>,
    keys: Vec<FloodKey>,
    /// Token sets read in beacons.
    tokens: ds::ObservedTokens,
    out: AttackerOut,
}

impl Attacker {
    fn read_beacons(&mut self, beacons: &[Vec<u8>]) {
        for b in beacons {
            let Ok(f) = MgmtFrame::new_checked(&b[..]) else {
                continue;
            };
            let Ok(info) = DiscoInfo::parse(f.variable()) else {
                continue;
            };
            if let Some(ts) = info.token_set {
                self.tokens.observe(&ts);
            }
        }
    }

    /// A token the AP accepts now: an unspent one of the previous set
    /// (seed 003, 4.1: Θ_{t-1} during A_t), else a guess.
    fn token(&mut self) -> u32 {
        let rng = &mut self.rng;
        match self.tokens.take(|n| rng.random_range(0..n)) {
            Some(t) => t,
            None => rng.next_u32(),
        }
    }

    fn random_addr(&mut self) -> MacAddr {
        let mut a = [0u8; 6];
        self.rng.fill_bytes(&mut a);
        a[0] = (a[0] & 0xfc) | 0x02;
        MacAddr(a)
    }

    /// The next frame and the node it goes to (`None`: the AP).
    fn next(&mut self, ap_key: Option<&ds::PublicPoint>) -> Option<(MacAddr, Vec<u8>)> {
        let k = self.counter;
        self.counter += 1;
        let seq = (k & 0x0fff) as u16;
        match self.kind {
            AttackKind::Deauth | AttackKind::Disassoc => {
                let st = if self.kind == AttackKind::Deauth {
                    MgmtSubtype::Deauthentication
                } else {
                    MgmtSubtype::Disassociation
                };
                let t = self.targets[(k / 2) as usize % self.targets.len()];
                if k % 2 == 0 {
                    Some((BSSID, forge(st, t, BSSID, seq, &7u16.to_le_bytes())))
                } else {
                    Some((t, forge(st, BSSID, t, seq, &3u16.to_le_bytes())))
                }
            }
            AttackKind::Replay | AttackKind::AssocSpoof => {
                if self.script.is_empty() {
                    return None;
                }
                let (from, f) = self.script[k as usize % self.script.len()].clone();
                Some((from, f))
            }
            AttackKind::Authflood => {
                let from = self.random_addr();
                let mut f = forge(
                    MgmtSubtype::Authentication,
                    BSSID,
                    from,
                    seq,
                    &[0, 0, 1, 0, 0, 0],
                );
                let (Some(mode), Some(pk)) = (self.mode, ap_key) else {
                    return Some((from, f));
                };
                let token = self.token();
                let i = self.rng.random_range(0..self.keys.len());
                let fk = &mut self.keys[i];
                if fk.mk.is_none() {
                    fk.mk = fk.key.agree(pk.as_bytes()).ok();
                }
                let mk = fk.mk.as_ref()?;
                let mut s =
                    ds::Session::new(&mk.session_key(token), token, mode, ds::DEFAULT_WINDOW)
                        .ok()?;
                let mut els = [0u8; 200];
                let mut w = ElementWriter::new(&mut els);
                let pke = DiscoElement::PkSta(PublicKeyElement {
                    group: fk.key.curve().group(),
                    point: fk.key.public().as_bytes(),
                });
                w.push_with(|b| pke.emit(b)).ok()?;
                w.push_with(|b| DiscoElement::Token(token).emit(b)).ok()?;
                f.extend_from_slice(w.finish());
                let n = f.len();
                f.resize(n + 64, 0);
                let m = s.seal(&mut f, n).ok()?;
                f.truncate(m);
                Some((from, f))
            }
        }
    }
}

fn replayable(f: &[u8], discosec: bool) -> bool {
    let Ok(h) = Header::new_checked(f) else {
        return false;
    };
    let fc = h.frame_control();
    if fc.is_data() {
        return true;
    }
    if !fc.is_mgmt() {
        return false;
    }
    use MgmtSubtype as S;
    match MgmtSubtype::from_u8(fc.subtype()) {
        S::Deauthentication | S::Disassociation | S::Action => true,
        S::Authentication | S::AssocRequest | S::AssocResponse | S::ReassocRequest => discosec,
        _ => false,
    }
}

/// Runs one scenario. The protocol cores are fixed-size (no allocation in
/// `no_std`); the run gets a thread with a stack that holds them even in
/// debug builds.
pub fn run(s: &Scenario) -> Report {
    let s = s.clone();
    std::thread::Builder::new()
        .name("wisec-attack".into())
        .stack_size(256 << 20)
        .spawn(move || run_here(&s))
        .expect("spawn the attack runner")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

fn run_here(s: &Scenario) -> Report {
    let n = s.stations.max(1);
    let s = &Scenario {
        stations: n.min(200),
        ..s.clone()
    };
    let n = s.stations;
    let mut net = build(s);
    let discosec = s.protection.discosec().is_some();

    // Warm-up: associate, exchange data, leave on purpose, come back. The
    // attacker records everything.
    for i in 0..n {
        let now = net.now;
        net.stas[i].connect(now);
    }
    net.run_until(Duration::from_secs(60), n);
    net.recording = true;
    for _ in 0..3 {
        for i in 0..n {
            net.stas[i].send_data(b"wisec warm-up data");
        }
        for _ in 0..20 {
            net.tick();
        }
    }
    for i in 0..n {
        net.stas[i].leave();
    }
    net.settle();
    for _ in 0..50 {
        net.tick();
    }
    net.run_until(Duration::from_secs(60), n);
    for i in 0..n {
        net.stas[i].send_data(b"wisec data after rejoining");
    }
    for _ in 0..20 {
        net.tick();
    }
    net.recording = false;
    let associated_before = (0..n).filter(|&i| net.connected(i)).count();

    let mut attacker = Attacker {
        rng: StdRng::seed_from_u64(s.seed ^ 0xa77a),
        kind: s.attack,
        mode: s.protection.discosec(),
        targets: net.addrs[..n].to_vec(),
        counter: 0,
        script: vec![],
        keys: vec![],
        tokens: ds::ObservedTokens::new(),
        out: AttackerOut::default(),
    };
    match s.attack {
        AttackKind::Replay => {
            attacker.script = net
                .recorded
                .iter()
                .filter(|(from, _)| net.index(*from).is_some_and(|i| i < n) || *from == BSSID)
                .filter(|(_, f)| replayable(f, discosec))
                .cloned()
                .collect();
        }
        AttackKind::AssocSpoof => {
            for i in 0..n {
                let last = net.recorded.iter().rev().find(|(from, f)| {
                    *from == net.addrs[i]
                        && MgmtFrame::new_checked(&f[..])
                            .is_ok_and(|m| m.subtype() == MgmtSubtype::AssocRequest)
                });
                if let Some(x) = last {
                    attacker.script.push(x.clone());
                }
            }
        }
        AttackKind::Authflood if discosec => {
            let curve = net.ap.discosec_key().map_or(ds::Curve::P256, |k| k.curve());
            for _ in 0..ATTACKER_KEYS {
                attacker.keys.push(FloodKey {
                    key: ds::KeyPair::generate(curve, &mut attacker.rng),
                    mk: None,
                });
            }
        }
        _ => {}
    }

    // The attack.
    let start = net.now;
    let ecdh0 = net.ap.ecdh_ops();
    let sa0 = net.ap.sa_queries();
    net.ap.take_interval_marks();
    net.ap.take_associations();
    let own0 = net.own_assoc_requests.clone();
    let late = n;
    let late_start = start + s.duration / 2;
    let mut late_joined: Option<Instant> = None;
    let mut connected: Vec<bool> = (0..n).map(|i| net.connected(i)).collect();
    let mut disconnections = 0u64;
    let mut lost: HashSet<usize> = HashSet::new();
    let mut forced = 0u64;
    let mut marks = vec![ecdh0];
    let mut entries_peak = net.ap.entries();
    let mut timeline = vec![];
    // Frames sent so far; by virtual time t the attacker has sent
    // floor(rate × t) (exact at whole frames: 100/s for 10 s is 1000).
    let mut sent_so_far = 0u64;
    let ap_key = net.ap.discosec_key();
    let end = start + s.duration;
    let mut next_sample = start + Duration::from_secs(1);
    while net.now < end {
        net.tick();
        attacker.read_beacons(&std::mem::take(&mut net.beacons));
        let elapsed_us = net.now.saturating_duration_since(start).as_micros() as f64;
        let due = (s.rate * elapsed_us / 1e6 + 1e-9).floor() as u64;
        while sent_so_far < due {
            sent_so_far += 1;
            let Some((from, f)) = attacker.next(ap_key.as_ref()) else {
                break;
            };
            attacker.out.sent += 1;
            for r in net.deliver(from, &f) {
                match r {
                    Ok(()) => attacker.out.accepted += 1,
                    Err(e) => *attacker.out.rejected.entry(e).or_default() += 1,
                }
            }
            net.settle();
        }
        if net.now >= late_start && !net.active[late] {
            net.active[late] = true;
            let now = net.now;
            net.stas[late].connect(now);
            net.settle();
        }
        if late_joined.is_none() && net.active[late] && net.connected(late) {
            late_joined = Some(net.now);
        }
        for (i, c) in connected.iter_mut().enumerate() {
            let now_c = net.connected(i);
            if *c && !now_c {
                disconnections += 1;
                lost.insert(i);
            }
            *c = now_c;
        }
        for a in net.ap.take_associations() {
            if let Some(i) = net.index(a).filter(|&i| i < n) {
                if net.own_assoc_requests[i] == own0[i] {
                    forced += 1;
                }
            }
        }
        marks.extend(net.ap.take_interval_marks());
        entries_peak = entries_peak.max(net.ap.entries());
        net.reconnect_idle();
        if net.now >= next_sample {
            timeline.push(Sample {
                t_s: net.now.saturating_duration_since(start).as_secs_f64(),
                entries: net.ap.entries(),
                ecdh_ops: net.ap.ecdh_ops() - ecdh0,
                associated: (0..n).filter(|&i| net.connected(i)).count(),
            });
            next_sample = next_sample + Duration::from_secs(1);
        }
    }
    let ecdh = net.ap.ecdh_ops() - ecdh0;
    marks.push(net.ap.ecdh_ops());
    let (ecdh_max_per_interval, token_interval_s) = if discosec {
        let max = marks.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        let cfg = ds::ApConfig::new(BSSID, SSID).expect("short SSID");
        (Some(max), Some(cfg.token_interval().as_secs_f64()))
    } else {
        (None, None)
    };
    let secs = s.duration.as_secs_f64().max(1e-9);
    Report {
        attack: s.attack,
        protection: s.protection,
        stations: n,
        rate: s.rate,
        duration_s: s.duration.as_secs_f64(),
        seed: s.seed,
        token_protection: discosec.then_some(s.token_protection),
        tokens_per_interval: (discosec && s.token_protection).then_some(s.tokens_per_interval),
        keys: match s.protection {
            Protection::None => "none (open system)",
            Protection::Pmf => "4-way handshake (PTK and IGTK from wisec_proto::fourway)",
            _ => "DiscoSec ECDH in the authentication exchange",
        },
        associated_before,
        associated_end: (0..n).filter(|&i| net.connected(i)).count(),
        disconnections,
        stations_disconnected: lost.len(),
        forced_reassociations: forced,
        attacker: attacker.out,
        ap: ApOut {
            entries_end: net.ap.entries(),
            entries_peak,
            capacity: nodes::AP_CAPACITY,
            ecdh_ops: ecdh,
            ecdh_per_second: ecdh as f64 / secs,
            ecdh_max_per_interval,
            token_interval_s,
            sa_queries: net.ap.sa_queries() - sa0,
        },
        late_station: LateOut {
            started_at_s: (s.duration / 2).as_secs_f64(),
            joined_after_ms: late_joined
                .map(|t| t.saturating_duration_since(late_start).as_secs_f64() * 1000.0),
        },
        timeline,
    }
}

/// The human-readable table of one or more reports.
pub fn render(reports: &[Report]) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    for r in reports {
        let _ = writeln!(
            o,
            "attack {} against {}: {} stations, {} frames/s for {} s, seed {} (keys: {})",
            r.attack.name(),
            r.protection.name(),
            r.stations,
            r.rate,
            r.duration_s,
            r.seed,
            r.keys
        );
        if let Some(tp) = r.token_protection {
            let _ = writeln!(
                o,
                "  token protection        {}",
                if tp {
                    format!(
                        "on, {} tokens per interval",
                        r.tokens_per_interval.unwrap_or(0)
                    )
                } else {
                    "off".into()
                }
            );
        }
        let rows: Vec<(&str, String)> = vec![
            (
                "associated before",
                format!("{}/{}", r.associated_before, r.stations),
            ),
            (
                "associated at the end",
                format!("{}/{}", r.associated_end, r.stations),
            ),
            (
                "disconnections",
                format!(
                    "{} ({} stations)",
                    r.disconnections, r.stations_disconnected
                ),
            ),
            ("forced reassociations", r.forced_reassociations.to_string()),
            ("attacker frames sent", r.attacker.sent.to_string()),
            ("  accepted", r.attacker.accepted.to_string()),
            (
                "  rejected",
                if r.attacker.rejected.is_empty() {
                    "0".into()
                } else {
                    r.attacker
                        .rejected
                        .iter()
                        .map(|(k, v)| format!("{k} {v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            ),
            (
                "AP entries peak / end",
                format!(
                    "{} / {} (capacity {})",
                    r.ap.entries_peak, r.ap.entries_end, r.ap.capacity
                ),
            ),
            (
                "AP ECDH operations",
                format!("{} ({:.1}/s)", r.ap.ecdh_ops, r.ap.ecdh_per_second),
            ),
            (
                "  most in one interval",
                r.ap.ecdh_max_per_interval.map_or("-".into(), |m| {
                    format!(
                        "{m} (interval {:.3} s)",
                        r.ap.token_interval_s.unwrap_or(0.0)
                    )
                }),
            ),
            ("AP SA Queries", r.ap.sa_queries.to_string()),
            (
                "late station joined",
                r.late_station.joined_after_ms.map_or("no".into(), |ms| {
                    if ms < STEP.as_secs_f64() * 1000.0 {
                        // Frames cross the virtual channel at once: an
                        // association that nothing delays takes no time.
                        format!(
                            "at once, within the {} ms step (started at {} s)",
                            STEP.as_millis(),
                            r.late_station.started_at_s
                        )
                    } else {
                        format!(
                            "after {ms:.0} ms (started at {} s)",
                            r.late_station.started_at_s
                        )
                    }
                }),
            ),
        ];
        for (k, v) in rows {
            let _ = writeln!(o, "  {k:<24}{v}");
        }
    }
    o
}
