//! The `attacks` experiment: the in-process attack runner's attacks
//! (`wisec attack run`) on the lab's medium, so that every forged frame
//! takes real airtime and the legitimate stations' traffic shows what the
//! attack costs them.
//!
//! A trial builds one AP, `stations` stations that join with the real
//! handshake (open, WPA2-PSK CCMP-128 with management frame protection,
//! or DiscoSec fast/full) and send UDP at `offered` Mb/s each through
//! smoltcp to a server behind the AP, and an attacker radio
//! ([`Injector`]). After `warmup` seconds the attacker runs for `attack`
//! seconds, then the trial goes on for `tail` seconds:
//!
//! - `deauth` / `disassoc`: forged frames at `forge_rate` per second,
//!   alternately to each station in the AP's name (reason 7) and to the AP
//!   in the station's name (reason 3);
//! - `authflood100` / `authflood1000`: Open System Authentication frames
//!   from random addresses at 100 or 1000 per second; against DiscoSec
//!   they are complete requests with valid public keys (a pool larger than
//!   the AP's key cache) and the tokens the attacker reads in the beacons
//!   (seed 003, 4.1), then guessed tokens;
//! - `replay`: the individually addressed data frames the attacker heard
//!   during the warm-up, sent again to their receivers at `forge_rate`
//!   per second.
//!
//! Every `sample` seconds the trial records the server's received
//! throughput, the stations in the Connected phase, the AP's state entries
//! and its ECDH operations.

use super::params::{bad_params, text};
use super::{
    ChannelInfo, Experiment, ExperimentError, Param, Plot, PlotKind, Report, RunOptions, Series,
    Table, TrialEnv, TrialResult, TrialSpec, Value,
};
use crate::bss::{ApNode, ApResources, HostNode, Injector, StaNode, StaPhase, BSSID};
use crate::cost::{DeviceProfile, Security};
use crate::net::Traffic;
use crate::phy::{PhyProfile, Rate};
use crate::rng::{derive_seed, splitmix64};
use crate::sim::{MacConfig, Simulator};
use crate::time::Time;
use crate::wired::WiredConfig;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use wisec_proto::discosec as ds;
use wisec_wire::discosec::{DiscoElement, DiscoInfo, PublicKeyElement};
use wisec_wire::frame_control::{FrameControl, FrameType};
use wisec_wire::mgmt::{MgmtFrame, MgmtSubtype};
use wisec_wire::{ElementWriter, HeaderRepr, MacAddr};

/// The protections, as named in the report and the overrides.
pub const PROTECTIONS: [&str; 4] = ["none", "pmf", "discosec-fast", "discosec-full"];
/// The attacks.
pub const ATTACKS: [&str; 5] = [
    "deauth",
    "disassoc",
    "authflood100",
    "authflood1000",
    "replay",
];
/// Attacker key pairs for DiscoSec floods: more than the AP's key cache
/// (16), so that cached agreements do not hide the work.
const FLOOD_KEYS: usize = 64;
const SERVER_ADDR: MacAddr = MacAddr([0x02, 0x1a, 0xb0, 0x00, 0x00, 0xfe]);
const SERVER_IP: [u8; 4] = [10, 0, 0, 254];
const ATTACKER: MacAddr = MacAddr([0x02, 0xba, 0xd0, 0x00, 0x00, 0x01]);

fn security(p: &str) -> Option<Security> {
    Some(match p {
        "none" => Security::Open,
        "pmf" => Security::Ccmp128,
        "discosec-fast" => Security::DiscosecFast,
        "discosec-full" => Security::DiscosecFull,
        _ => return None,
    })
}

fn sta_addr(i: usize) -> MacAddr {
    MacAddr([0x02, 0x1a, 0xb0, 0x00, 0x01, i as u8])
}

fn sta_ip(i: usize) -> [u8; 4] {
    [10, 0, 0, 10 + i as u8]
}

/// The experiment.
#[derive(Debug, Clone)]
pub struct Attacks {
    protections: Vec<String>,
    attacks: Vec<String>,
    stations: usize,
    offered: f64,
    rate: f64,
    warmup: f64,
    attack: f64,
    tail: f64,
    sample: f64,
    forge_rate: f64,
    ap_table: usize,
    ap_frame_us: f64,
    ap_stall: f64,
    trials: u32,
    seed: u64,
}

/// The default AP platform: a Linksys WRT54G-class SOHO AP (Broadcom
/// BCM5352, MIPS32 at 200 MHz, 16 MB RAM, Broadcom `wl` driver). Its
/// station table holds 128 entries: the firmware's NVRAM default
/// `wl_maxassoc=128` ("max associations driver could support").
pub const AP_TABLE: usize = 128;
/// Processor time per received frame on that AP: 4000 cycles at 200 MHz
/// (an assumed driver-and-bridge receive path; no measurement of the
/// device is available).
pub const AP_FRAME_US: f64 = 20.0;
/// How long a memory exhaustion freezes it (assumed: seed 003 gives no
/// figure in its text; its Figure 3 shows the AP not responding for
/// "longer periods of time").
pub const AP_STALL_S: f64 = 2.0;
/// Frames of work its receive ring holds (assumed).
pub const AP_RX_RING: usize = 256;

fn list(v: &str, what: &str, allowed: &[&str]) -> Result<Vec<String>, ExperimentError> {
    v.trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(|x| {
            let x = x.trim().trim_matches('"');
            allowed
                .iter()
                .find(|a| **a == x)
                .map(|a| a.to_string())
                .ok_or_else(|| ExperimentError(format!("{what}: '{x}' is not valid")))
        })
        .collect()
}

fn number(k: &str, v: &str, lo: f64, hi: f64) -> Result<f64, ExperimentError> {
    v.parse()
        .ok()
        .filter(|x: &f64| (lo..=hi).contains(x))
        .ok_or_else(|| ExperimentError(format!("{k}: '{v}' (from {lo} to {hi})")))
}

/// The parameters of `attacks` and the values each accepts.
pub const PARAMS: &[super::params::ParamRange] = &[
    (
        "protections",
        "list of none, pmf, discosec-fast, discosec-full",
    ),
    (
        "attacks",
        "list of deauth, disassoc, authflood100, authflood1000, replay",
    ),
    ("stations", "1 to 20"),
    ("offered", "Mb/s per station, 0.01 to 50"),
    ("rate", "an OFDM rate in Mb/s, 6 to 54"),
    ("warmup", "seconds, 0.5 to 60"),
    ("attack", "seconds, 0.1 to 60"),
    ("tail", "seconds, 0 to 60"),
    ("sample", "seconds, 0.01 to 1"),
    ("forge_rate", "frames per second, 1 to 5000"),
    (
        "ap_table",
        "station entries the AP's memory holds, 0 (unbounded) to 4096",
    ),
    (
        "ap_frame_us",
        "AP processor µs per received frame, 0 to 10000",
    ),
    ("ap_stall", "seconds an exhausted AP freezes, 0 to 60"),
];

impl Attacks {
    /// The experiment with `opts` applied. Overrides:
    /// `protections=none,pmf,discosec-fast,discosec-full`,
    /// `attacks=deauth,disassoc,authflood100,authflood1000,replay`,
    /// `stations=N`, `offered=Mb/s per station`, `rate=54`, `warmup=s`,
    /// `attack=s`, `tail=s`, `sample=s`, `forge_rate=frames/s` (deauth,
    /// disassoc, replay), `ap_table=128`, `ap_frame_us=20`, `ap_stall=2`
    /// (the AP platform's limits, [`crate::bss::ApResources`]).
    pub fn new(opts: &RunOptions) -> Result<Attacks, ExperimentError> {
        let mut a = Attacks {
            protections: PROTECTIONS.map(String::from).to_vec(),
            attacks: ATTACKS.map(String::from).to_vec(),
            stations: 3,
            offered: 2.0,
            rate: 54.0,
            warmup: 3.0,
            attack: 3.0,
            tail: 1.0,
            sample: 0.1,
            forge_rate: 100.0,
            ap_table: AP_TABLE,
            ap_frame_us: AP_FRAME_US,
            ap_stall: AP_STALL_S,
            trials: opts.trials.unwrap_or(1),
            seed: opts.seed,
        };
        if opts.quick {
            a.stations = 2;
            a.warmup = 2.0;
            a.attack = 1.0;
            a.tail = 0.3;
        }
        for (k, v) in &opts.overrides {
            match k.as_str() {
                "protections" => a.protections = list(v, k, &PROTECTIONS)?,
                "attacks" => a.attacks = list(v, k, &ATTACKS)?,
                "stations" => a.stations = number(k, v, 1.0, 20.0)? as usize,
                "offered" => a.offered = number(k, v, 0.01, 50.0)?,
                "rate" => {
                    a.rate = number(k, v, 1.0, 54.0)?;
                    if Rate::from_mbps(a.rate).is_none_or(|r| !r.is_ofdm()) {
                        return Err(super::params::invalid(k, v, PARAMS));
                    }
                }
                "warmup" => a.warmup = number(k, v, 0.5, 60.0)?,
                "attack" => a.attack = number(k, v, 0.1, 60.0)?,
                "tail" => a.tail = number(k, v, 0.0, 60.0)?,
                "sample" => a.sample = number(k, v, 0.01, 1.0)?,
                "forge_rate" => a.forge_rate = number(k, v, 1.0, 5000.0)?,
                "ap_table" => {
                    a.ap_table = v
                        .parse()
                        .ok()
                        .filter(|n: &usize| *n <= 4096)
                        .ok_or_else(|| super::params::invalid(k, v, PARAMS))?
                }
                "ap_frame_us" => a.ap_frame_us = number(k, v, 0.0, 10_000.0)?,
                "ap_stall" => a.ap_stall = number(k, v, 0.0, 60.0)?,
                _ => return Err(super::params::no_such("attacks", k, PARAMS)),
            }
        }
        if a.trials == 0 {
            return Err(ExperimentError("trials: at least 1".into()));
        }
        Ok(a)
    }
}

/// A forged management frame from `a2` to `a1` in the BSS.
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
    if h.emit(&mut b).is_err() {
        return Vec::new();
    }
    b.extend_from_slice(body);
    b
}

/// The attacker's logic; its radio is the [`Injector`].
struct Attacker {
    kind: String,
    rng: u64,
    counter: u64,
    targets: Vec<MacAddr>,
    /// Data frames heard during the warm-up, to replay.
    recorded: Vec<Vec<u8>>,
    keys: Vec<(ds::KeyPair, Option<ds::MasterKey>)>,
    mode: Option<ds::AuthMode>,
    ap_key: Option<ds::PublicPoint>,
    /// Token sets read in beacons.
    tokens: ds::ObservedTokens,
}

impl Attacker {
    fn next_u64(&mut self) -> u64 {
        splitmix64(&mut self.rng)
    }

    fn hear(&mut self, frames: Vec<Vec<u8>>, record: bool) {
        for f in frames {
            let fc = match f.as_slice() {
                [a, b, ..] => FrameControl::from_bytes([*a, *b]),
                _ => continue,
            };
            if fc.is_data() && record && self.recorded.len() < 4096 {
                // Individually addressed frames only: DiscoSec leaves
                // group-addressed data unauthenticated (seed 003), so
                // their replay says nothing about the protections.
                let to = f.get(4..10).and_then(|a| <[u8; 6]>::try_from(a).ok());
                if to.is_some_and(|a| !MacAddr(a).is_group()) {
                    self.recorded.push(f);
                }
            } else if fc.is_mgmt() && self.mode.is_some() {
                let Ok(m) = MgmtFrame::new_checked(&f[..]) else {
                    continue;
                };
                let Ok(info) = DiscoInfo::parse(m.variable()) else {
                    continue;
                };
                if let Some(ts) = info.token_set {
                    self.tokens.observe(&ts);
                }
            }
        }
    }

    /// A token the AP accepts now: an unspent one of the previous set
    /// (seed 003, 4.1: Θ_{t-1} during A_t), else a guess.
    fn token(&mut self) -> u32 {
        let r = self.next_u64();
        self.tokens.take(|n| r as usize % n).unwrap_or(r as u32)
    }

    fn frame(&mut self) -> Option<Vec<u8>> {
        let k = self.counter;
        self.counter += 1;
        let seq = (k & 0x0fff) as u16;
        match self.kind.as_str() {
            "deauth" | "disassoc" => {
                let st = if self.kind == "deauth" {
                    MgmtSubtype::Deauthentication
                } else {
                    MgmtSubtype::Disassociation
                };
                let t = *self
                    .targets
                    .get((k / 2) as usize % self.targets.len().max(1))?;
                Some(if k % 2 == 0 {
                    forge(st, t, BSSID, seq, &7u16.to_le_bytes())
                } else {
                    forge(st, BSSID, t, seq, &3u16.to_le_bytes())
                })
            }
            "replay" => {
                let n = self.recorded.len();
                (n > 0).then(|| self.recorded.get(k as usize % n).cloned())?
            }
            _ => {
                let mut a = self.next_u64().to_le_bytes();
                a[0] = (a[0] & 0xfc) | 0x02;
                let from = MacAddr([a[0], a[1], a[2], a[3], a[4], a[5]]);
                let mut f = forge(
                    MgmtSubtype::Authentication,
                    BSSID,
                    from,
                    seq,
                    &[0, 0, 1, 0, 0, 0],
                );
                let (Some(mode), Some(pk)) = (self.mode, self.ap_key) else {
                    return Some(f);
                };
                let token = self.token();
                let i = self.next_u64() as usize % self.keys.len().max(1);
                let (key, mk) = self.keys.get_mut(i)?;
                if mk.is_none() {
                    *mk = key.agree(pk.as_bytes()).ok();
                }
                let mk = mk.as_ref()?;
                let mut s =
                    ds::Session::new(&mk.session_key(token), token, mode, ds::DEFAULT_WINDOW)
                        .ok()?;
                let mut els = [0u8; 200];
                let mut w = ElementWriter::new(&mut els);
                let pke = DiscoElement::PkSta(PublicKeyElement {
                    group: key.curve().group(),
                    point: key.public().as_bytes(),
                });
                w.push_with(|b| pke.emit(b)).ok()?;
                w.push_with(|b| DiscoElement::Token(token).emit(b)).ok()?;
                f.extend_from_slice(w.finish());
                let n = f.len();
                f.resize(n + 64, 0);
                let m = s.seal(&mut f, n).ok()?;
                f.truncate(m);
                Some(f)
            }
        }
    }

    /// Frames per second of the attack.
    fn rate(&self, forge_rate: f64) -> f64 {
        match self.kind.as_str() {
            "authflood100" => 100.0,
            "authflood1000" => 1000.0,
            _ => forge_rate,
        }
    }
}

/// One sample of a trial's time series.
#[derive(Debug, Clone, Copy, Default)]
struct Sample {
    t: f64,
    mbps: f64,
    connected: usize,
    entries: usize,
    ecdh: u64,
    frozen: bool,
}

impl Experiment for Attacks {
    fn name(&self) -> &str {
        "attacks"
    }

    fn description(&self) -> String {
        format!(
            "{} stations join an AP (802.11g, {} Mb/s) and each sends {} Mb/s of UDP to a server \
behind it; after {} s an attacker radio on the same channel runs the attack for {} s, then the \
trial goes on for {} s. Attacks: {}; protections: {}. Forged frames and replays take real \
airtime; the stations react as real clients do (a station that loses its association scans \
and joins again).",
            self.stations,
            self.rate,
            self.offered,
            self.warmup,
            self.attack,
            self.tail,
            self.attacks.join(", "),
            self.protections.join(", ")
        )
    }

    fn parameters(&self) -> Vec<Param> {
        vec![
            Param::new("seed", self.seed, "the run's seed"),
            Param::new("trials", self.trials, "trials per point"),
            Param::new("protections", self.protections.join(","), "protections"),
            Param::new("attacks", self.attacks.join(","), "attacks"),
            Param::new("stations", self.stations, "legitimate stations"),
            Param::new("offered", self.offered, "UDP offered per station, Mb/s"),
            Param::new("rate", self.rate, "802.11g data rate, Mb/s"),
            Param::new("warmup", self.warmup, "seconds before the attack"),
            Param::new("attack", self.attack, "seconds of attack"),
            Param::new("tail", self.tail, "seconds after the attack"),
            Param::new("sample", self.sample, "sampling period, s"),
            Param::new(
                "forge_rate",
                self.forge_rate,
                "deauth/disassoc/replay frames per second",
            ),
            Param::new(
                "ap_table",
                self.ap_table,
                "station entries the AP's memory holds (0: unbounded)",
            ),
            Param::new(
                "ap_frame_us",
                self.ap_frame_us,
                "AP processor time per received frame, µs",
            ),
            Param::new(
                "ap_stall",
                self.ap_stall,
                "seconds an AP whose memory ran out freezes",
            ),
        ]
    }

    fn plan(&self) -> Vec<TrialSpec> {
        let mut out = Vec::new();
        for (ai, a) in self.attacks.iter().enumerate() {
            for (pi, p) in self.protections.iter().enumerate() {
                for t in 0..self.trials {
                    let mut params = BTreeMap::new();
                    params.insert("attack".into(), Value::from(a.as_str()));
                    params.insert("protection".into(), Value::from(p.as_str()));
                    params.insert("trial".into(), Value::from(t));
                    out.push(TrialSpec {
                        index: out.len(),
                        label: format!("{a}-{p}-t{t:02}"),
                        seed: derive_seed(self.seed, &[7, ai as u64, pi as u64, u64::from(t)]),
                        params,
                    });
                }
            }
        }
        out
    }

    fn run_trial(
        &self,
        spec: &TrialSpec,
        env: &mut TrialEnv<'_>,
    ) -> Result<TrialResult, ExperimentError> {
        let bad = || bad_params(spec);
        let attack = text(spec, "attack").ok_or_else(bad)?.to_string();
        let protection = text(spec, "protection").ok_or_else(bad)?;
        let sec = security(protection).ok_or_else(bad)?;
        let rate = Rate::from_mbps(self.rate).ok_or_else(bad)?;
        let cal = Rc::new(env.calibration.clone());
        let mut sim = Simulator::new(spec.seed);
        env.watch(&mut sim);
        let channel = sim.add_channel(PhyProfile::g());
        let mut apn = ApNode::new(
            sec,
            DeviceProfile::host(),
            Rc::clone(&cal),
            derive_seed(spec.seed, &[10]),
        );
        apn.set_pmf(protection == "pmf");
        apn.set_resources((self.ap_table > 0).then(|| ApResources {
            table: self.ap_table,
            frame_cost: Time::from_secs_f64(self.ap_frame_us * 1e-6),
            rx_ring: AP_RX_RING,
            stall: Time::from_secs_f64(self.ap_stall),
        }));
        let ap = sim.add_node(apn);
        let ap_iface = sim.attach(ap, channel, MacConfig::dcf(BSSID, rate));
        if let Some(n) = sim.node_mut::<ApNode>(ap) {
            n.set_iface(ap_iface);
        }
        let mut stas = Vec::new();
        for i in 0..self.stations {
            let mut s = StaNode::new(
                sta_addr(i),
                sta_ip(i),
                SERVER_IP,
                Traffic::UdpRate {
                    rate_bps: (self.offered * 1e6) as u64,
                    payload: 1000,
                    duration: Time::from_secs_f64(self.warmup + self.attack + self.tail + 1.0),
                },
                sec,
                DeviceProfile::host(),
                Rc::clone(&cal),
                derive_seed(spec.seed, &[11, i as u64]),
            );
            s.set_pmf(protection == "pmf");
            let id = sim.add_node(s);
            let iface = sim.attach(id, channel, MacConfig::dcf(sta_addr(i), rate));
            if let Some(n) = sim.node_mut::<StaNode>(id) {
                n.set_iface(iface);
            }
            stas.push(id);
        }
        let server = sim.add_node(HostNode::new(
            SERVER_ADDR,
            SERVER_IP,
            sta_ip(0),
            Traffic::None,
            derive_seed(spec.seed, &[12]),
        ));
        sim.connect(ap, server, WiredConfig::gigabit());
        let inj = sim.add_node(Injector::new(Vec::new(), 0));
        // An injecting radio sends each frame once: the acknowledgement of
        // a forged frame goes to the address it forged, never to it.
        let mut inj_mac = MacConfig::dcf(ATTACKER, rate);
        inj_mac.short_retry_limit = 1;
        inj_mac.long_retry_limit = 1;
        let inj_iface = sim.attach(inj, channel, inj_mac);
        if let Some(n) = sim.node_mut::<Injector>(inj) {
            n.set_iface(inj_iface);
        }
        // The attacker's radio listens in monitor mode: every MPDU on the
        // channel but its own (the runner's pcap observer still sees all).
        let monitor: Rc<RefCell<Vec<Vec<u8>>>> = Rc::default();
        {
            let mon = Rc::clone(&monitor);
            let outer = env.observer.clone();
            sim.set_observer(
                channel,
                Box::new(move |f| {
                    if f.transmitter != inj_iface {
                        let mut m = mon.borrow_mut();
                        for p in f.mpdus {
                            if m.len() < 65_536 {
                                m.push(p.to_vec());
                            }
                        }
                    }
                    if let Some(o) = &outer {
                        (o.borrow_mut())(f);
                    }
                }),
            );
        }
        // The nodes start (the DiscoSec AP sets up its keys and tokens).
        sim.run_until(Time::from_us(1));

        let mut atk = Attacker {
            kind: attack.clone(),
            rng: derive_seed(spec.seed, &[13]),
            counter: 0,
            targets: (0..self.stations).map(sta_addr).collect(),
            recorded: Vec::new(),
            keys: Vec::new(),
            mode: sec.discosec_mode(),
            ap_key: None,
            tokens: ds::ObservedTokens::new(),
        };
        let mut token_interval = None;
        let mut tokens_per_interval = None;
        if attack.starts_with("authflood") {
            if let Some((pk, curve, ti)) = sim.node::<ApNode>(ap).and_then(ApNode::discosec_public)
            {
                let mut krng = crate::bss::LabRng::new(derive_seed(spec.seed, &[14]));
                atk.keys = (0..FLOOD_KEYS)
                    .map(|_| (ds::KeyPair::generate(curve, &mut krng), None))
                    .collect();
                atk.ap_key = Some(pk);
                token_interval = Some(ti);
            }
            tokens_per_interval = sim.node::<ApNode>(ap).and_then(ApNode::discosec_tokens);
        }
        if token_interval.is_none() {
            token_interval = sim
                .node::<ApNode>(ap)
                .and_then(ApNode::discosec_public)
                .map(|(_, _, t)| t);
        }

        let step = Time::from_secs_f64(self.sample);
        let warm = Time::from_secs_f64(self.warmup);
        let half_warm = Time::from_secs_f64(self.warmup / 2.0);
        let att_end = warm + Time::from_secs_f64(self.attack);
        let end = att_end + Time::from_secs_f64(self.tail);
        let period = Time::from_secs_f64(1.0 / atk.rate(self.forge_rate));
        let mut next_frame = warm;
        let mut t = Time::ZERO;
        let mut samples = Vec::new();
        let (mut last_rx, mut last_ecdh) = (0u64, 0u64);
        let mut ecdh_marks = Vec::new();
        let mut next_mark = Time::ZERO;
        let (mut before_bytes, mut during_bytes) = (0u64, 0u64);
        let mut min_connected = usize::MAX;
        let mut peak_entries = 0usize;
        let mut rejected0 = 0u64;
        let mut injected = 0u64;
        let rejected = |sim: &Simulator| -> u64 {
            let mut r = sim
                .node::<ApNode>(ap)
                .map_or(0, |n| n.stats().replays + n.stats().integrity_failures);
            for s in &stas {
                if let Some(n) = sim.node::<StaNode>(*s) {
                    r += n.stats().replays + n.stats().integrity_failures;
                }
            }
            r
        };
        while t < end {
            // Schedule this slice's frames on the attacker's radio.
            let slice_end = t + step;
            if t >= warm && t < att_end {
                if injected == 0 {
                    rejected0 = rejected(&sim);
                }
                let mut frames = Vec::new();
                while next_frame < slice_end && next_frame < att_end {
                    if let Some(f) = atk.frame() {
                        frames.push((next_frame, f));
                    }
                    next_frame += period;
                }
                injected += frames.len() as u64;
                if let Some(n) = sim.node_mut::<Injector>(inj) {
                    n.schedule.extend(frames);
                }
                sim.wake(inj_iface);
            }
            if let Some(ti) = token_interval {
                while next_mark <= t {
                    ecdh_marks.push(sim.node::<ApNode>(ap).map_or(0, ApNode::ecdh_ops));
                    next_mark += ti;
                }
            }
            sim.run_until(slice_end);
            t = slice_end;
            let heard = std::mem::take(&mut *monitor.borrow_mut());
            // Record data frames once the traffic runs, before the attack.
            atk.hear(heard, t > half_warm && t <= warm);
            let rx = sim
                .node::<HostNode>(server)
                .map_or(0, |h| h.stack.stats.recv_bytes);
            let connected = stas
                .iter()
                .filter(|s| {
                    sim.node::<StaNode>(**s)
                        .is_some_and(|n| n.phase() == StaPhase::Connected)
                })
                .count();
            let (entries, ecdh, frozen) = sim
                .node::<ApNode>(ap)
                .map_or((0, 0, false), |n| (n.entries(), n.ecdh_ops(), n.frozen(t)));
            let d = rx.saturating_sub(last_rx);
            if t > half_warm && t <= warm {
                before_bytes += d;
            } else if t > warm && t <= att_end {
                during_bytes += d;
                min_connected = min_connected.min(connected);
                peak_entries = peak_entries.max(entries);
            }
            samples.push(Sample {
                t: t.as_secs_f64(),
                mbps: d as f64 * 8.0 / step.as_secs_f64() / 1e6,
                connected,
                entries,
                ecdh: ecdh - last_ecdh,
                frozen,
            });
            last_rx = rx;
            last_ecdh = ecdh;
        }
        if token_interval.is_some() {
            ecdh_marks.push(last_ecdh);
        }
        let disconnects: u32 = stas
            .iter()
            .filter_map(|s| sim.node::<StaNode>(*s).map(|n| n.disconnects))
            .sum();
        let stas_hit = stas
            .iter()
            .filter(|s| sim.node::<StaNode>(**s).is_some_and(|n| n.disconnects > 0))
            .count();
        let ap_drops = sim
            .node::<ApNode>(ap)
            .map_or(0, |n| n.stats().mgmt_disconnects);
        let dropped: u64 = sim.node::<ApNode>(ap).map_or(0, |n| n.stats().mgmt_dropped)
            + stas
                .iter()
                .filter_map(|s| sim.node::<StaNode>(*s).map(|n| n.stats().mgmt_dropped))
                .sum::<u64>();
        let mut r = TrialResult::new(spec);
        let m = &mut r.metrics;
        let half = (self.warmup / 2.0).max(1e-9);
        m.insert(
            "mbps_before".into(),
            (before_bytes as f64 * 8.0 / half / 1e6).into(),
        );
        m.insert(
            "mbps_during".into(),
            (during_bytes as f64 * 8.0 / self.attack / 1e6).into(),
        );
        m.insert("disconnects".into(), disconnects.into());
        m.insert("stations_disconnected".into(), stas_hit.into());
        m.insert(
            "min_connected".into(),
            (if min_connected == usize::MAX {
                0
            } else {
                min_connected
            })
            .into(),
        );
        m.insert("ap_lost_associations".into(), ap_drops.into());
        m.insert("mgmt_dropped".into(), dropped.into());
        m.insert("injected".into(), injected.into());
        let lim = sim
            .node::<ApNode>(ap)
            .map(ApNode::limit_stats)
            .unwrap_or_default();
        m.insert("ap_exhaustions".into(), lim.exhaustions.into());
        m.insert("ap_frozen_s".into(), lim.frozen.as_secs_f64().into());
        // Sampled: the share of the attack's samples that found the AP
        // frozen.
        let during: Vec<&Sample> = samples
            .iter()
            .filter(|s| s.t > self.warmup + 1e-9 && s.t <= self.warmup + self.attack + 1e-9)
            .collect();
        m.insert(
            "ap_frozen_share".into(),
            (during.iter().filter(|s| s.frozen).count() as f64 / during.len().max(1) as f64).into(),
        );
        m.insert("ap_frozen_drops".into(), lim.frozen_drops.into());
        m.insert("ap_ring_drops".into(), lim.ring_drops.into());
        m.insert(
            "ap_cpu_load".into(),
            sim.node::<ApNode>(ap)
                .map_or(0.0, |n| {
                    n.cpu_busy().as_secs_f64() / sim.now().as_secs_f64().max(1e-9)
                })
                .into(),
        );
        m.insert("peak_entries".into(), peak_entries.into());
        m.insert(
            "ecdh_per_s".into(),
            (samples
                .iter()
                .filter(|s| s.t > self.warmup && s.t <= self.warmup + self.attack)
                .map(|s| s.ecdh)
                .sum::<u64>() as f64
                / self.attack)
                .into(),
        );
        if attack == "replay" {
            let rej = rejected(&sim).saturating_sub(rejected0);
            m.insert("replays_rejected".into(), rej.into());
            // Injected frames are sent once; one that collided never
            // reached its receiver, so this counts accepted plus lost.
            m.insert(
                "replays_not_rejected".into(),
                injected.saturating_sub(rej).into(),
            );
            m.insert("replays_recorded".into(), atk.recorded.len().into());
        }
        if let Some(ti) = token_interval {
            let max = ecdh_marks
                .windows(2)
                .map(|w| w[1].saturating_sub(w[0]))
                .max()
                .unwrap_or(0);
            m.insert("ecdh_max_per_interval".into(), max.into());
            m.insert("token_interval_s".into(), ti.as_secs_f64().into());
        }
        m.insert("tokens_per_interval".into(), tokens_per_interval.into());
        let mut ts = Table::new(&format!("series_{}", spec.label), "time series")
            .column("t", Some("s"))
            .column("throughput", Some("Mb/s"))
            .column("connected", None)
            .column("ap_entries", None)
            .column("ecdh", None)
            .column("ap_frozen", None);
        for s in &samples {
            ts.push(vec![
                s.t.into(),
                s.mbps.into(),
                s.connected.into(),
                s.entries.into(),
                s.ecdh.into(),
                u32::from(s.frozen).into(),
            ]);
        }
        r.tables.push(ts);
        r.channels.push(ChannelInfo {
            id: channel.0,
            phy: PhyProfile::g().standard,
            freq_mhz: 2437,
        });
        r.secrets = Some(super::Secrets {
            suite: sec.name().into(),
            ssid: crate::bss::SSID.into(),
            passphrase: sec.is_rsn().then(|| crate::bss::PASSPHRASE.into()),
            wep_key_hex: None,
            msk_hex: None,
        });
        r.sim_time_ns = sim.now().as_ns();
        r.events = sim.events_processed();
        Ok(r)
    }

    fn fitted(&self) -> Option<Vec<super::Fitted>> {
        // No parameter of this experiment was set from a seed's results.
        Some(Vec::new())
    }

    fn summarize(&self, results: &[TrialResult]) -> Report {
        let mean = |a: &str, p: &str, k: &str| -> Option<f64> {
            let v: Vec<f64> = results
                .iter()
                .filter(|r| {
                    text(&r.spec, "attack") == Some(a) && text(&r.spec, "protection") == Some(p)
                })
                .filter_map(|r| r.metric(k))
                .collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        };
        let mut t = Table::new(
            "attacks",
            "Attacks on the air: the legitimate stations' throughput and associations, the AP's \
state and key-exchange work, beside the in-process attack runner's expected outcome",
        )
        .column("attack", None)
        .column("protection", None)
        .column("before", Some("Mb/s"))
        .column("during", Some("Mb/s"))
        .column("stations disconnected", None)
        .column("disconnections", None)
        .column("forged frames dropped", None)
        .column("replays rejected", None)
        .column("replays not rejected", None)
        .column("AP peak entries", None)
        .column("ECDH", Some("1/s"))
        .column("ECDH max per interval", None)
        .column("tokens per interval", None)
        .column("runner expects", None);
        let mut plots = Vec::new();
        // Column `col` of each trial's time series against time.
        let line = |r: &TrialResult, col: usize| -> Vec<(f64, f64)> {
            r.tables.first().map_or_else(Vec::new, |ts| {
                ts.rows
                    .iter()
                    .filter_map(|row| Some((row.first()?.as_f64()?, row.get(col)?.as_f64()?)))
                    .collect()
            })
        };
        for a in &self.attacks {
            let mut series = Vec::new();
            let mut assoc = Vec::new();
            let mut entries = Vec::new();
            let mut frozen = Vec::new();
            for p in &self.protections {
                let Some(r) = results.iter().find(|r| {
                    text(&r.spec, "attack") == Some(a.as_str())
                        && text(&r.spec, "protection") == Some(p.as_str())
                }) else {
                    continue;
                };
                let g = |k: &str| mean(a, p, k);
                let expect = match (a.as_str(), p.as_str()) {
                    ("deauth" | "disassoc", "none") => "every station disconnected",
                    ("deauth" | "disassoc", _) => "no disconnection",
                    ("replay", "none") => "replays accepted (no protection)",
                    ("replay", _) => "every replay rejected",
                    (_, "discosec-fast" | "discosec-full") => "AP work bounded by the tokens",
                    _ => "AP entries grow with the flood",
                };
                t.push(vec![
                    a.as_str().into(),
                    p.as_str().into(),
                    g("mbps_before").into(),
                    g("mbps_during").into(),
                    g("stations_disconnected").into(),
                    g("disconnects").into(),
                    g("mgmt_dropped").into(),
                    g("replays_rejected").into(),
                    g("replays_not_rejected").into(),
                    g("peak_entries").into(),
                    g("ecdh_per_s").into(),
                    g("ecdh_max_per_interval").into(),
                    g("tokens_per_interval").into(),
                    expect.into(),
                ]);
                for (out, col) in [
                    (&mut series, 1),
                    (&mut assoc, 2),
                    (&mut entries, 3),
                    (&mut frozen, 5),
                ] {
                    out.push(Series {
                        label: p.clone(),
                        points: line(r, col),
                        errors: None,
                    });
                }
            }
            let window = format!(
                "attack from {} s to {} s",
                self.warmup,
                self.warmup + self.attack
            );
            plots.push(Plot {
                name: format!("attacks_{a}_associated"),
                title: format!("{a}: stations associated against time ({window})"),
                x_label: "time (s)".into(),
                y_label: "stations associated".into(),
                kind: PlotKind::Line,
                categories: Vec::new(),
                series: assoc,
            });
            if a.starts_with("authflood") {
                plots.push(Plot {
                    name: format!("attacks_{a}_entries"),
                    title: format!("{a}: the AP's station entries against time ({window})"),
                    x_label: "time (s)".into(),
                    y_label: "AP state entries".into(),
                    kind: PlotKind::Line,
                    categories: Vec::new(),
                    series: entries,
                });
                plots.push(Plot {
                    name: format!("attacks_{a}_frozen"),
                    title: format!(
                        "{a}: AP frozen (1) or serving (0) against time, seed 003 Figure 3 \
({window})"
                    ),
                    x_label: "time (s)".into(),
                    y_label: "AP frozen".into(),
                    kind: PlotKind::Line,
                    categories: Vec::new(),
                    series: frozen,
                });
            }
            plots.push(Plot {
                name: format!("attacks_{a}"),
                title: format!(
                    "{a}: UDP throughput at the server against time (attack from {} s to {} s)",
                    self.warmup,
                    self.warmup + self.attack
                ),
                x_label: "time (s)".into(),
                y_label: "throughput (Mb/s)".into(),
                kind: PlotKind::Line,
                categories: Vec::new(),
                series,
            });
        }
        let mut f3 = Table::new(
            "figure3",
            "Authentication floods against the AP's platform limits, beside seed 003 Figure 3 \
(the unprotected AP flooded with 100 requests/s 'periodically freezes')",
        )
        .column("attack", None)
        .column("protection", None)
        .column("before", Some("Mb/s"))
        .column("during", Some("Mb/s"))
        .column("AP peak entries", None)
        .column("table overflows", None)
        .column("AP frozen, in all", Some("s"))
        .column("attack samples finding it frozen", Some("%"))
        .column("frames lost while frozen", None)
        .column("AP processor load", Some("%"))
        .column("seed 003", None);
        for a in self.attacks.iter().filter(|a| a.starts_with("authflood")) {
            for p in &self.protections {
                let g = |k: &str| mean(a, p, k);
                let Some(frozen) = g("ap_frozen_s") else {
                    continue;
                };
                let seed = match (a.as_str(), p.as_str()) {
                    ("authflood100", "none") => "freezes periodically, answers no frame",
                    (_, "discosec-fast" | "discosec-full") => "AP keeps operating (tokens)",
                    _ => "",
                };
                f3.push(vec![
                    a.as_str().into(),
                    p.as_str().into(),
                    g("mbps_before").into(),
                    g("mbps_during").into(),
                    g("peak_entries").into(),
                    g("ap_exhaustions").into(),
                    frozen.into(),
                    g("ap_frozen_share").map(|x| 100.0 * x).into(),
                    g("ap_frozen_drops").into(),
                    g("ap_cpu_load").map(|x| 100.0 * x).into(),
                    seed.into(),
                ]);
            }
        }
        f3.notes.push(format!(
            "AP platform: {} station entries (0 = unbounded), {} µs of processor time per \
received frame, {} s frozen per exhaustion. Defaults stand for a Linksys WRT54G-class SOHO AP \
(Broadcom MIPS32 at 200 MHz, 16 MB RAM): the table is the Broadcom firmware's NVRAM default \
wl_maxassoc=128; the per-frame cost (4000 cycles at 200 MHz) and the freeze length are \
assumptions, not measurements. Seed 003 gives Figure 3 only as a plot, without numbers in its \
text, so nothing here is fitted to it, and only its shape (service stops soon after the flood \
starts, again and again) can be compared.",
            self.ap_table, self.ap_frame_us, self.ap_stall
        ));
        let mut tables = vec![t];
        if !f3.rows.is_empty() {
            tables.push(f3);
        }
        let notes = vec![
            "Seed 003 Figure 3 (the unprotected AP freezing under an authentication flood): the \
AP keeps one station entry per authenticated address in a table its memory bounds. A flood from \
random addresses fills it in (table − stations) / rate seconds; the next request exhausts the \
memory, the AP freezes (answers and forwards nothing, sends no beacon), then frees the entries \
of stations that never associated and serves again until the flood has refilled the table: the \
periodic freezing the seed observed. PMF does not prevent this: 802.11w protects the \
management frames of an existing association, and Open System Authentication from a new \
address stays unprotected, so a PMF AP fills its table the same way. DiscoSec's tokens admit \
at most the published tokens per interval, and its core expires entries that never associate, \
so the table does not fill at these rates. The AP's per-frame processing cost adds queueing \
only; at these rates it stays far from saturating the processor, so the collapse comes from \
memory, as the seed describes it."
                .into(),
            "PMF: the AP and the stations run WPA2-PSK with CCMP-128 and require management \
frame protection; once the PTK is installed, Deauthentication and Disassociation frames must \
be CCMP-protected with it (IEEE Std 802.11-2020, 12.6.19) and an unprotected Authentication \
frame does not reset an association in use (11.13). MFPC/MFPR are set by configuration on both \
ends rather than negotiated in the RSNE, and the SA Query procedure is not run: the forged \
frames are simply dropped, which is the outcome the procedure reaches for a live association."
                .into(),
            "Without protection, the AP answers data from a station it no longer knows with a \
Deauthentication, reason 7 (11.3.3), so a station whose association the attacker tore down at \
the AP learns it and joins again, as a real client does; its traffic stops while it does."
                .into(),
            "DiscoSec floods use complete requests with valid public keys from a pool larger than \
the AP's key cache and the tokens the attacker reads in the beacons; the AP computes at most \
one ECDH per accepted token, so the work per token interval stays at or below the tokens \
published. Without protection or with PMF an Authentication frame costs no key exchange \
(PSK), but every one leaves a state entry at the AP."
                .into(),
            "Replay counts what the receivers rejected (CCMP packet numbers, DiscoSec sequence \
windows and MACs) in the individually addressed data frames the attacker heard during the \
warm-up; group-addressed frames are not replayed, because DiscoSec does not authenticate them \
(seed 003) and replaying them would be accepted by design. The attacker sends every frame once, so 'not rejected' is the frames \
accepted plus those lost to collisions; with no protection nothing is checked, every replayed \
frame that arrives is accepted and the server receives more than the stations offer."
                .into(),
        ];
        Report {
            experiment: "attacks".into(),
            description: self.description(),
            parameters: self.parameters(),
            tables,
            plots,
            notes,
        }
    }
}
