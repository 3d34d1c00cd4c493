//! The `saturation` experiment: n saturated stations send UDP datagrams to
//! one access point; the simulated throughput is set beside Bianchi's model
//! computed for the same PHY, frame size and contention window.

use super::params::{num, text};
use super::{
    Experiment, ExperimentError, Param, Plot, PlotKind, Report, RunOptions, Series, Table,
    TrialEnv, TrialResult, TrialSpec, Value,
};
use crate::bianchi::{self, ModelResult, ModelTiming};
use crate::phy::{PhyProfile, PhyStandard, PhyTiming, Rate, FCS_LEN};
use crate::rng::derive_seed;
use crate::sim::{MacConfig, Simulator};
use crate::time::Time;
use crate::traffic::{SaturatedSource, Sink};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use wisec_wire::MacAddr;

/// Octets of the LLC/SNAP header in front of each IPv4 packet.
const SNAP: usize = 8;
/// Octets of a To-DS data header.
const DATA_HEADER: usize = 24;

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaturationConfig {
    /// PHY family (b, a or g; g without non-ERP stations).
    pub phy: PhyStandard,
    /// Short preamble for 802.11b.
    pub short_preamble: bool,
    /// Data rate; `None` for the PHY's highest.
    pub rate: Option<Rate>,
    /// Station counts.
    pub stations: Vec<u32>,
    /// Access methods to run: false = basic access, true = RTS/CTS.
    pub access: Vec<bool>,
    /// Virtual seconds measured per run (after the warm-up).
    pub seconds: f64,
    /// Virtual seconds simulated before measuring.
    pub warmup: f64,
    /// The seed every run's seed derives from.
    pub seed: u64,
    /// Runs per point, each with its own derived seed.
    pub trials: u32,
    /// IPv4 packet length (the MSDU is this plus 8 octets of LLC/SNAP,
    /// the UDP payload this minus 28 octets of IPv4 and UDP headers).
    pub ip_len: usize,
    /// The BSSBasicRateSet; `None` for the PHY profile's ({1, 2} Mb/s for
    /// 802.11b). It decides the rate of Ack, CTS and RTS frames
    /// (IEEE Std 802.11-2020, 10.6.6.5.2 and 10.6.6.2): the highest basic
    /// rate of the data rate's modulation class not above the data rate.
    #[serde(default)]
    pub basic_rates: Option<Vec<Rate>>,
    /// dot11ShortRetryLimit; `None`: no limit, as Bianchi's model assumes.
    #[serde(default)]
    pub short_retry_limit: Option<u32>,
    /// dot11LongRetryLimit; `None`: no limit.
    #[serde(default)]
    pub long_retry_limit: Option<u32>,
    /// What the stations that saw a collision wait before they count down
    /// again: DIFS as the model assumes, or EIFS as the standard says after
    /// an erroneous reception (10.3.2.3.7). The model's Tc uses the same.
    #[serde(default)]
    pub collision_ifs: CollisionIfs,
    /// What the throughput counts, in the simulation and in the model.
    #[serde(default)]
    pub throughput: Counted,
}

/// The interframe space after a collision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CollisionIfs {
    /// DIFS (Bianchi's assumption).
    #[default]
    Difs,
    /// EIFS = SIFS + DIFS + an Ack at the PHY's lowest mandatory rate.
    Eifs,
}

impl CollisionIfs {
    /// The parameter's value as written.
    pub fn name(self) -> &'static str {
        match self {
            CollisionIfs::Difs => "difs",
            CollisionIfs::Eifs => "eifs",
        }
    }
}

/// The octets a throughput figure counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Counted {
    /// The MSDU: the IP packet with its 8-octet LLC/SNAP header.
    #[default]
    Msdu,
    /// The UDP payload: the IP packet less 28 octets of IPv4 and UDP
    /// headers.
    Udp,
}

impl Counted {
    /// The parameter's value as written.
    pub fn name(self) -> &'static str {
        match self {
            Counted::Msdu => "msdu",
            Counted::Udp => "udp",
        }
    }

    /// How a report names it.
    pub fn describe(self) -> &'static str {
        match self {
            Counted::Msdu => "MSDU octets (IP packet + 8-octet LLC/SNAP header)",
            Counted::Udp => "UDP payload octets (IP packet − 28 octets of IPv4/UDP headers)",
        }
    }

    /// The octets counted of one frame carrying an `ip_len`-octet packet.
    pub fn octets(self, ip_len: usize) -> usize {
        match self {
            Counted::Msdu => ip_len + SNAP,
            Counted::Udp => ip_len.saturating_sub(28),
        }
    }
}

impl Default for SaturationConfig {
    fn default() -> SaturationConfig {
        SaturationConfig {
            phy: PhyStandard::B,
            short_preamble: false,
            rate: None,
            stations: vec![1, 5, 10, 20, 50],
            access: vec![false, true],
            seconds: 10.0,
            warmup: 0.5,
            seed: 1,
            trials: 1,
            ip_len: 1500,
            basic_rates: None,
            short_retry_limit: None,
            long_retry_limit: None,
            collision_ifs: CollisionIfs::Difs,
            throughput: Counted::Msdu,
        }
    }
}

impl SaturationConfig {
    /// The PHY profile of the channel.
    pub fn profile(&self) -> PhyProfile {
        let mut p = match (self.phy, self.short_preamble) {
            (PhyStandard::B, false) => PhyProfile::b(),
            (PhyStandard::B, true) => PhyProfile::b_short(),
            (PhyStandard::A, _) => PhyProfile::a(),
            (PhyStandard::G, _) => PhyProfile::g(),
            (PhyStandard::N, _) => PhyProfile::n(crate::phy::HtParams::default()),
        };
        if let Some(b) = &self.basic_rates {
            p.basic_rates.clone_from(b);
        }
        p
    }

    /// The MAC as Bianchi's model assumes it (no retry limit, DIFS after
    /// a collision), or with the standard's defaults (retry limits 7 and
    /// 4, EIFS): the preset `model_assumptions` sets these three.
    pub fn set_model_assumptions(&mut self, on: bool) {
        if on {
            self.short_retry_limit = None;
            self.long_retry_limit = None;
            self.collision_ifs = CollisionIfs::Difs;
        } else {
            self.short_retry_limit = Some(7);
            self.long_retry_limit = Some(4);
            self.collision_ifs = CollisionIfs::Eifs;
        }
    }

    /// True when the MAC is configured as the model assumes.
    pub fn model_assumptions(&self) -> bool {
        self.short_retry_limit.is_none()
            && self.long_retry_limit.is_none()
            && self.collision_ifs == CollisionIfs::Difs
    }

    /// The data rate used.
    pub fn data_rate(&self) -> Rate {
        self.rate.unwrap_or_else(|| self.profile().max_rate())
    }
}

/// One simulated run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaturationRun {
    /// Stations.
    pub stations: u32,
    /// "basic" or "rts".
    pub access: String,
    /// Trial number.
    pub trial: u32,
    /// The run's seed.
    pub seed: u64,
    /// Simulated MSDU throughput, Mb/s.
    pub sim_mbps: f64,
    /// Bianchi's model, Mb/s.
    pub model_mbps: f64,
    /// (sim − model) / model.
    pub rel_error: f64,
    /// Measured conditional collision probability: failed attempts over
    /// attempts (data frames, or RTS frames with RTS/CTS).
    pub sim_p: f64,
    /// The model's p.
    pub model_p: f64,
    /// Attempts in the measured interval.
    pub attempts: u64,
    /// Failed attempts in the measured interval.
    pub failures: u64,
    /// Frames discarded at the retry limit in the measured interval.
    pub dropped: u64,
    /// Events processed by the simulator (whole run).
    pub events: u64,
}

/// The mean over trials of one point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaturationPoint {
    /// Stations.
    pub stations: u32,
    /// "basic" or "rts".
    pub access: String,
    /// Trials.
    pub trials: u32,
    /// Mean simulated throughput, Mb/s.
    pub sim_mbps: f64,
    /// Sample standard deviation over trials (0 for one trial).
    pub sim_sd_mbps: f64,
    /// Bianchi's model, Mb/s.
    pub model_mbps: f64,
    /// (mean − model) / model.
    pub rel_error: f64,
    /// Mean measured collision probability.
    pub sim_p: f64,
    /// Model collision probability.
    pub model_p: f64,
    /// Model transmission probability per slot.
    pub model_tau: f64,
}

/// The model's inputs, for the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInputs {
    /// W = CWmin + 1.
    pub w: f64,
    /// m: CWmax + 1 = 2^m W.
    pub m: u32,
    /// σ, µs.
    pub slot_us: f64,
    /// Ts and Tc for basic access, µs.
    pub basic_ts_tc_us: (f64, f64),
    /// Ts and Tc for RTS/CTS, µs.
    pub rts_ts_tc_us: (f64, f64),
    /// Octets counted per frame (MSDU or UDP payload, as configured).
    pub payload_octets: usize,
    /// PSDU octets of a data frame (header, MSDU, FCS).
    pub psdu_octets: usize,
}

/// Everything one `saturation` run produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaturationReport {
    /// The configuration.
    pub config: SaturationConfig,
    /// The model's inputs.
    pub model: ModelInputs,
    /// Per point, mean over trials.
    pub points: Vec<SaturationPoint>,
    /// Every run.
    pub runs: Vec<SaturationRun>,
}

fn access_name(rts: bool) -> &'static str {
    if rts {
        "rts"
    } else {
        "basic"
    }
}

fn addr(i: u32) -> MacAddr {
    let b = i.to_be_bytes();
    MacAddr([0x02, 0x1a, b[0], b[1], b[2], b[3]])
}

/// The model's answer for `n` stations with `cfg`.
pub fn model(cfg: &SaturationConfig, n: u32, rts: bool) -> (ModelResult, ModelTiming) {
    let phy = cfg.profile();
    let psdu = DATA_HEADER + cfg.ip_len + SNAP + FCS_LEN;
    let timing = ModelTiming::dcf(
        &phy,
        psdu,
        cfg.throughput.octets(cfg.ip_len),
        cfg.data_rate(),
        rts,
        cfg.collision_ifs == CollisionIfs::Eifs,
    );
    let (w, m) = bianchi::window(phy.cw_min(), phy.cw_max());
    (bianchi::throughput(n, w, m, &timing), timing)
}

/// Runs one point: `n` stations, one trial.
pub fn run_one(cfg: &SaturationConfig, n: u32, rts: bool, trial: u32) -> SaturationRun {
    run_observed(cfg, n, rts, trial, None)
}

/// The seed of one run.
pub fn run_seed(cfg: &SaturationConfig, n: u32, rts: bool, trial: u32) -> u64 {
    derive_seed(cfg.seed, &[u64::from(n), u64::from(rts), u64::from(trial)])
}

/// [`run_one`], with the channel handed to `env`'s observer.
pub fn run_observed(
    cfg: &SaturationConfig,
    n: u32,
    rts: bool,
    trial: u32,
    env: Option<&TrialEnv<'_>>,
) -> SaturationRun {
    let seed = run_seed(cfg, n, rts, trial);
    let phy = cfg.profile();
    let rate = cfg.data_rate();
    let mut sim = Simulator::new(seed);
    let ch = sim.add_channel(phy);
    if let Some(env) = env {
        env.observe(&mut sim, ch);
    }
    let ap_addr = addr(0);
    let ap = sim.add_node(Sink::new());
    let mut mac = MacConfig::dcf(ap_addr, rate);
    mac.eifs = cfg.collision_ifs == CollisionIfs::Eifs;
    mac.short_retry_limit = cfg.short_retry_limit.unwrap_or(u32::MAX);
    mac.long_retry_limit = cfg.long_retry_limit.unwrap_or(u32::MAX);
    if rts {
        mac.rts_threshold = Some(0);
    }
    sim.attach(ap, ch, mac.clone());
    let mut ifaces = Vec::new();
    for i in 1..=n {
        let a = addr(i);
        let node = sim.add_node(SaturatedSource::new(a, ap_addr, cfg.ip_len));
        ifaces.push(sim.attach(
            node,
            ch,
            MacConfig {
                addr: a,
                ..mac.clone()
            },
        ));
    }
    let count = |sim: &Simulator| {
        let mut t = (0u64, 0u64, 0u64);
        for &i in &ifaces {
            if let Some(s) = sim.mac_stats(i) {
                t.0 += if rts { s.rts_attempts } else { s.data_attempts };
                t.1 += s.failures;
                t.2 += s.dropped;
            }
        }
        t
    };
    let warm = Time::from_secs_f64(cfg.warmup);
    let end = warm + Time::from_secs_f64(cfg.seconds);
    sim.run_until(warm);
    let rx0 = sim.node::<Sink>(ap).map(|s| s.counters).unwrap_or_default();
    let c0 = count(&sim);
    sim.run_until(end);
    let rx1 = sim.node::<Sink>(ap).map(|s| s.counters).unwrap_or_default();
    let c1 = count(&sim);
    let secs = (end - warm).as_secs_f64().max(1e-12);
    let octets = match cfg.throughput {
        Counted::Msdu => rx1.msdu_octets - rx0.msdu_octets,
        Counted::Udp => rx1.udp_payload_octets - rx0.udp_payload_octets,
    };
    let sim_mbps = octets as f64 * 8.0 / secs / 1e6;
    let (attempts, failures, dropped) = (c1.0 - c0.0, c1.1 - c0.1, c1.2 - c0.2);
    let (m, _) = model(cfg, n, rts);
    let model_mbps = m.throughput_bps / 1e6;
    SaturationRun {
        stations: n,
        access: access_name(rts).to_string(),
        trial,
        seed,
        sim_mbps,
        model_mbps,
        rel_error: (sim_mbps - model_mbps) / model_mbps,
        sim_p: if attempts > 0 {
            failures as f64 / attempts as f64
        } else {
            0.0
        },
        model_p: m.p,
        attempts,
        failures,
        dropped,
        events: sim.events_processed(),
    }
}

/// Runs the experiment, calling `progress` after each run.
pub fn run(cfg: &SaturationConfig, progress: &mut dyn FnMut(&SaturationRun)) -> SaturationReport {
    let phy = cfg.profile();
    let (w, m) = bianchi::window(phy.cw_min(), phy.cw_max());
    let (_, tb) = model(cfg, 1, false);
    let (_, tr) = model(cfg, 1, true);
    let us = |s: f64| s * 1e6;
    let payload = cfg.throughput.octets(cfg.ip_len);
    let inputs = ModelInputs {
        w,
        m,
        slot_us: us(tb.slot),
        basic_ts_tc_us: (us(tb.ts), us(tb.tc)),
        rts_ts_tc_us: (us(tr.ts), us(tr.tc)),
        payload_octets: payload,
        psdu_octets: DATA_HEADER + cfg.ip_len + SNAP + FCS_LEN,
    };
    let mut runs = Vec::new();
    let mut points = Vec::new();
    for &rts in &cfg.access {
        for &n in &cfg.stations {
            let mut these = Vec::new();
            for trial in 0..cfg.trials.max(1) {
                let r = run_one(cfg, n, rts, trial);
                progress(&r);
                these.push(r);
            }
            let k = these.len() as f64;
            let mean = these.iter().map(|r| r.sim_mbps).sum::<f64>() / k;
            let sd = if these.len() > 1 {
                (these
                    .iter()
                    .map(|r| (r.sim_mbps - mean).powi(2))
                    .sum::<f64>()
                    / (k - 1.0))
                    .sqrt()
            } else {
                0.0
            };
            let (mr, _) = model(cfg, n, rts);
            let model_mbps = mr.throughput_bps / 1e6;
            points.push(SaturationPoint {
                stations: n,
                access: access_name(rts).to_string(),
                trials: these.len() as u32,
                sim_mbps: mean,
                sim_sd_mbps: sd,
                model_mbps,
                rel_error: (mean - model_mbps) / model_mbps,
                sim_p: these.iter().map(|r| r.sim_p).sum::<f64>() / k,
                model_p: mr.p,
                model_tau: mr.tau,
            });
            runs.extend(these);
        }
    }
    SaturationReport {
        config: cfg.clone(),
        model: inputs,
        points,
        runs,
    }
}

impl SaturationReport {
    /// The per-point table as text.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:>8}  {:<6} {:>12} {:>9} {:>13} {:>8} {:>7} {:>7}",
            "stations", "access", "sim Mb/s", "sd", "Bianchi Mb/s", "error", "sim p", "model p"
        );
        for p in &self.points {
            let _ = writeln!(
                s,
                "{:>8}  {:<6} {:>12.3} {:>9.3} {:>13.3} {:>7.2}% {:>7.4} {:>7.4}",
                p.stations,
                p.access,
                p.sim_mbps,
                p.sim_sd_mbps,
                p.model_mbps,
                100.0 * p.rel_error,
                p.sim_p,
                p.model_p
            );
        }
        s
    }

    /// Every run as CSV, with a header line.
    pub fn runs_csv(&self) -> String {
        let mut s = String::from(
            "stations,access,trial,seed,sim_mbps,model_mbps,rel_error,sim_p,model_p,attempts,failures,dropped,events\n",
        );
        for r in &self.runs {
            let _ = writeln!(
                s,
                "{},{},{},{},{:.6},{:.6},{:.6},{:.6},{:.6},{},{},{},{}",
                r.stations,
                r.access,
                r.trial,
                r.seed,
                r.sim_mbps,
                r.model_mbps,
                r.rel_error,
                r.sim_p,
                r.model_p,
                r.attempts,
                r.failures,
                r.dropped,
                r.events
            );
        }
        s
    }

    /// The per-point summary as CSV, with a header line.
    pub fn points_csv(&self) -> String {
        let mut s = String::from(
            "stations,access,trials,sim_mbps,sim_sd_mbps,model_mbps,rel_error,sim_p,model_p,model_tau\n",
        );
        for p in &self.points {
            let _ = writeln!(
                s,
                "{},{},{},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6}",
                p.stations,
                p.access,
                p.trials,
                p.sim_mbps,
                p.sim_sd_mbps,
                p.model_mbps,
                p.rel_error,
                p.sim_p,
                p.model_p,
                p.model_tau
            );
        }
        s
    }
}

/// `saturation` behind the generic [`Experiment`] interface: one trial per
/// (access method, station count, trial number).
#[derive(Debug, Clone)]
pub struct Saturation {
    /// The configuration after the options and overrides.
    pub cfg: SaturationConfig,
}

fn list(v: &str) -> Vec<String> {
    v.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .map(|s| s.trim().trim_matches('"').trim_matches('\'').to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn bad(key: &str, v: &str, want: &str) -> ExperimentError {
    ExperimentError(format!("{key}: `{v}` is not {want}"))
}

/// The parameters of `saturation` and the values each accepts.
pub const PARAMS: &[super::params::ParamRange] = &[
    ("phy", "b, g, a or n"),
    ("short_preamble", "true or false; 802.11b"),
    ("rate", "data rate in Mb/s, one of the PHY's"),
    (
        "basic_rates",
        "list of Mb/s, rates of the PHY, e.g. [1] or [1, 2, 5.5, 11]",
    ),
    ("stations", "list of station counts, 1 to 1000"),
    ("access", "list of basic, rts"),
    ("seconds", "above 0, at most 3600"),
    ("warmup", "0 to 3600"),
    ("ip_len", "IP packet octets, 28 to 2296"),
    (
        "udp_len",
        "UDP payload octets, 0 to 2268 (sets ip_len to it + 28)",
    ),
    ("short_retry_limit", "1 to 255 or none (no limit)"),
    ("long_retry_limit", "1 to 255 or none (no limit)"),
    ("collision_ifs", "difs or eifs"),
    ("throughput", "msdu or udp: the octets counted"),
    (
        "model_assumptions",
        "true: no retry limits and DIFS; false: limits 7 and 4 and EIFS",
    ),
];

fn limit_text(l: Option<u32>) -> String {
    l.map_or_else(|| "none".to_string(), |n| n.to_string())
}

fn retry_limit(v: &str) -> Option<Option<u32>> {
    match v.trim().trim_matches('"') {
        "none" | "unlimited" => Some(None),
        x => x
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=255).contains(n))
            .map(Some),
    }
}

impl Saturation {
    /// The experiment with `opts`: seed, trials, `quick` (the first two
    /// station counts, at most one virtual second per run) and the
    /// overrides of [`PARAMS`]. The preset `model_assumptions` is applied
    /// first, so `short_retry_limit`, `long_retry_limit` and
    /// `collision_ifs` given with it win.
    pub fn new(opts: &RunOptions) -> Result<Saturation, ExperimentError> {
        let mut cfg = SaturationConfig {
            seed: opts.seed,
            ..SaturationConfig::default()
        };
        let mut rate = None;
        let mut basic: Option<Vec<f64>> = None;
        let preset = opts
            .overrides
            .iter()
            .filter(|(k, _)| k == "model_assumptions");
        for (k, v) in preset {
            let on = v
                .trim()
                .parse::<bool>()
                .map_err(|_| bad(k, v, "true or false"))?;
            cfg.set_model_assumptions(on);
        }
        for (k, v) in &opts.overrides {
            let f = |want: &str| bad(k, v, want);
            let num = || v.trim().parse::<f64>().map_err(|_| f("a number"));
            let flag = || v.trim().parse::<bool>().map_err(|_| f("true or false"));
            match k.as_str() {
                "phy" => {
                    cfg.phy = match v.trim().trim_matches('"') {
                        "b" => PhyStandard::B,
                        "g" => PhyStandard::G,
                        "a" => PhyStandard::A,
                        "n" => PhyStandard::N,
                        _ => return Err(f("one of b, g, a, n")),
                    }
                }
                "short_preamble" => cfg.short_preamble = flag()?,
                "rate" => rate = Some(num()?),
                "basic_rates" => {
                    basic = Some(
                        list(v)
                            .iter()
                            .map(|s| s.parse::<f64>().ok())
                            .collect::<Option<Vec<f64>>>()
                            .filter(|l| !l.is_empty())
                            .ok_or_else(|| f("a list of rates in Mb/s"))?,
                    );
                }
                "stations" => {
                    cfg.stations = list(v)
                        .iter()
                        .map(|s| s.parse::<u32>().ok().filter(|n| (1..=1000).contains(n)))
                        .collect::<Option<Vec<u32>>>()
                        .filter(|l| !l.is_empty())
                        .ok_or_else(|| f("a list of station counts from 1 to 1000"))?;
                }
                "access" => {
                    let mut a = Vec::new();
                    for x in list(v) {
                        a.push(match x.as_str() {
                            "basic" => false,
                            "rts" => true,
                            _ => return Err(f("a list of basic, rts")),
                        });
                    }
                    if a.is_empty() {
                        return Err(f("a list of basic, rts"));
                    }
                    cfg.access = a;
                }
                "seconds" => {
                    cfg.seconds = num()?;
                    if !(cfg.seconds > 0.0 && cfg.seconds <= 3600.0) {
                        return Err(f("a duration above 0 and at most 3600 s"));
                    }
                }
                "warmup" => {
                    cfg.warmup = num()?;
                    if !(0.0..=3600.0).contains(&cfg.warmup) {
                        return Err(f("a duration from 0 to 3600 s"));
                    }
                }
                "ip_len" => {
                    cfg.ip_len = v
                        .trim()
                        .parse::<usize>()
                        .ok()
                        .filter(|n| (28..=2296).contains(n))
                        .ok_or_else(|| f("an IP packet length from 28 to 2296"))?;
                }
                "udp_len" => {
                    cfg.ip_len = v
                        .trim()
                        .parse::<usize>()
                        .ok()
                        .filter(|n| *n <= 2268)
                        .ok_or_else(|| f("a UDP payload length from 0 to 2268"))?
                        + 28;
                }
                "short_retry_limit" => {
                    cfg.short_retry_limit = retry_limit(v).ok_or_else(|| f("1 to 255 or none"))?;
                }
                "long_retry_limit" => {
                    cfg.long_retry_limit = retry_limit(v).ok_or_else(|| f("1 to 255 or none"))?;
                }
                "collision_ifs" => {
                    cfg.collision_ifs = match v.trim().trim_matches('"') {
                        "difs" => CollisionIfs::Difs,
                        "eifs" => CollisionIfs::Eifs,
                        _ => return Err(f("difs or eifs")),
                    }
                }
                "throughput" => {
                    cfg.throughput = match v.trim().trim_matches('"') {
                        "msdu" => Counted::Msdu,
                        "udp" => Counted::Udp,
                        _ => return Err(f("msdu or udp")),
                    }
                }
                "model_assumptions" => {}
                _ => return Err(super::params::no_such("saturation", k, PARAMS)),
            }
        }
        if opts.quick {
            // The reduced version wins over the scenario's sweep.
            cfg.stations.truncate(2);
            cfg.seconds = cfg.seconds.min(1.0);
            cfg.warmup = cfg.warmup.min(0.2);
        }
        if let Some(mbps) = rate {
            cfg.rate = Some(
                Rate::from_mbps(mbps)
                    .filter(|r| cfg.profile().supports(*r))
                    .ok_or_else(|| {
                        ExperimentError(format!("rate: {mbps} Mb/s is not a rate of this PHY"))
                    })?,
            );
        }
        if let Some(list) = basic {
            let phy = cfg.profile();
            let mut rates = Vec::new();
            for mbps in list {
                let r = Rate::from_mbps(mbps)
                    .filter(|r| phy.supports(*r) && r.mcs().is_none())
                    .ok_or_else(|| {
                        ExperimentError(format!(
                            "basic_rates: {mbps} Mb/s is not a rate of this PHY"
                        ))
                    })?;
                if !rates.contains(&r) {
                    rates.push(r);
                }
            }
            rates.sort();
            cfg.basic_rates = Some(rates);
        }
        if let Some(t) = opts.trials {
            if t == 0 {
                return Err(ExperimentError("trials: give at least 1".into()));
            }
            cfg.trials = t;
        }
        Ok(Saturation { cfg })
    }

    fn mac_text(&self) -> String {
        let c = &self.cfg;
        if c.model_assumptions() {
            "follows the model's assumptions (no retry limit, DIFS after a collision)".into()
        } else {
            format!(
                "has short/long retry limits {}/{} and {} after a collision; the model's Tc uses \
the same IFS, but the model has no retry limit",
                limit_text(c.short_retry_limit),
                limit_text(c.long_retry_limit),
                c.collision_ifs.name().to_uppercase()
            )
        }
    }

    fn basic_rates_text(&self) -> String {
        let b: Vec<String> = self
            .cfg
            .profile()
            .basic_rates
            .iter()
            .map(|r| format!("{}", r.mbps()))
            .collect();
        b.join(",")
    }

    fn phy_name(&self) -> &'static str {
        match self.cfg.phy {
            PhyStandard::B => "802.11b",
            PhyStandard::G => "802.11g",
            PhyStandard::A => "802.11a",
            PhyStandard::N => "802.11n",
        }
    }
}

impl Experiment for Saturation {
    fn name(&self) -> &str {
        "saturation"
    }

    fn description(&self) -> String {
        format!(
            "n saturated stations send {}-octet IP packets to one access point over {} at {}, \
with basic access and with RTS/CTS; the throughput ({}) measured over {} virtual seconds \
(after {} s of warm-up) is set beside Bianchi's analytical model of the DCF (G. Bianchi, \
IEEE JSAC 18(3), 2000) computed for the same PHY timing, frame size and contention window.",
            self.cfg.ip_len,
            self.phy_name(),
            self.cfg.data_rate(),
            self.cfg.throughput.describe(),
            self.cfg.seconds,
            self.cfg.warmup
        )
    }

    fn parameters(&self) -> Vec<Param> {
        let c = &self.cfg;
        let st: Vec<String> = c.stations.iter().map(u32::to_string).collect();
        let ac: Vec<&str> = c.access.iter().map(|&r| access_name(r)).collect();
        vec![
            Param::new("phy", self.phy_name(), "PHY family"),
            Param::new(
                "short_preamble",
                c.short_preamble,
                "short PLCP preamble (802.11b)",
            ),
            Param::new("rate_mbps", c.data_rate().mbps(), "data rate"),
            Param::new("stations", st.join(","), "station counts"),
            Param::new("access", ac.join(","), "access methods"),
            Param::new("seconds", c.seconds, "virtual seconds measured per run"),
            Param::new("warmup", c.warmup, "virtual seconds before measuring"),
            Param::new("ip_len", c.ip_len, "IP packet length, octets"),
            Param::new(
                "basic_rates",
                self.basic_rates_text(),
                "BSSBasicRateSet, Mb/s",
            ),
            Param::new(
                "control_rate_mbps",
                self.cfg.profile().response_rate(c.data_rate()).mbps(),
                "rate of Ack, CTS and RTS (10.6.6)",
            ),
            Param::new(
                "short_retry_limit",
                limit_text(c.short_retry_limit),
                "dot11ShortRetryLimit",
            ),
            Param::new(
                "long_retry_limit",
                limit_text(c.long_retry_limit),
                "dot11LongRetryLimit",
            ),
            Param::new(
                "collision_ifs",
                c.collision_ifs.name(),
                "interframe space after a collision",
            ),
            Param::new(
                "throughput",
                c.throughput.describe(),
                "what throughput counts",
            ),
            Param::new("seed", c.seed, "seed of every run's seed"),
            Param::new("trials", c.trials, "runs per point"),
        ]
    }

    fn plan(&self) -> Vec<TrialSpec> {
        let mut v = Vec::new();
        for &rts in &self.cfg.access {
            for &n in &self.cfg.stations {
                for trial in 0..self.cfg.trials.max(1) {
                    let mut params = BTreeMap::new();
                    params.insert("stations".to_string(), Value::from(n));
                    params.insert("access".to_string(), Value::from(access_name(rts)));
                    params.insert("trial".to_string(), Value::from(trial));
                    v.push(TrialSpec {
                        index: v.len(),
                        label: format!("{}-n{n:03}-t{trial:02}", access_name(rts)),
                        seed: run_seed(&self.cfg, n, rts, trial),
                        params,
                    });
                }
            }
        }
        v
    }

    fn run_trial(
        &self,
        spec: &TrialSpec,
        env: &mut TrialEnv<'_>,
    ) -> Result<TrialResult, ExperimentError> {
        let p = |k: &str| spec.params.get(k).cloned().unwrap_or(Value::Null);
        let n = p("stations")
            .as_f64()
            .map(|x| x as u32)
            .ok_or_else(|| ExperimentError("trial without a station count".into()))?;
        let rts = p("access").as_str() == Some("rts");
        let trial = p("trial").as_f64().map_or(0, |x| x as u32);
        let r = run_observed(&self.cfg, n, rts, trial, Some(env));
        let mut out = TrialResult::new(spec);
        let m = &mut out.metrics;
        m.insert("sim_mbps".into(), r.sim_mbps.into());
        m.insert("model_mbps".into(), r.model_mbps.into());
        m.insert("rel_error".into(), r.rel_error.into());
        m.insert("sim_p".into(), r.sim_p.into());
        m.insert("model_p".into(), r.model_p.into());
        m.insert("attempts".into(), r.attempts.into());
        m.insert("failures".into(), r.failures.into());
        m.insert("dropped".into(), r.dropped.into());
        out.channels.push(super::ChannelInfo {
            id: 0,
            phy: self.cfg.phy,
            freq_mhz: if self.cfg.phy == PhyStandard::A {
                5180
            } else {
                2412
            },
        });
        out.sim_time_ns = Time::from_secs_f64(self.cfg.warmup + self.cfg.seconds).0;
        out.events = r.events;
        Ok(out)
    }

    fn fitted(&self) -> Option<Vec<super::Fitted>> {
        // No parameter of this experiment was set from a seed's results.
        Some(Vec::new())
    }

    fn summarize(&self, results: &[TrialResult]) -> Report {
        let mut table = Table::new(
            "saturation",
            &format!(
                "Saturation throughput ({}), {} at {}, {}-octet IP packets: simulation beside \
Bianchi's model",
                self.cfg.throughput.name(),
                self.phy_name(),
                self.cfg.data_rate(),
                self.cfg.ip_len
            ),
        )
        .column("stations", None)
        .column("access", None)
        .column("trials", None)
        .column("simulated", Some("Mb/s"))
        .column("sd", Some("Mb/s"))
        .column("Bianchi", Some("Mb/s"))
        .column("difference", Some("%"))
        .column("sim p", None)
        .column("model p", None);
        let mut plot = Plot {
            name: "saturation".into(),
            title: format!("Saturation throughput, {}", self.phy_name()),
            x_label: "stations".into(),
            y_label: format!("{} throughput (Mb/s)", self.cfg.throughput.name()),
            kind: PlotKind::Line,
            categories: Vec::new(),
            series: Vec::new(),
        };
        for &rts in &self.cfg.access {
            let name = if rts { "RTS/CTS" } else { "basic access" };
            let mut sim = Series {
                label: format!("simulated, {name}"),
                points: Vec::new(),
                errors: Some(Vec::new()),
            };
            let mut model_s = Series {
                label: format!("Bianchi, {name}"),
                points: Vec::new(),
                errors: None,
            };
            for &n in &self.cfg.stations {
                let these: Vec<&TrialResult> = results
                    .iter()
                    .filter(|r| {
                        num(&r.spec, "stations") == Some(f64::from(n))
                            && text(&r.spec, "access") == Some(access_name(rts))
                    })
                    .collect();
                let (mr, _) = model(&self.cfg, n, rts);
                let model_mbps = mr.throughput_bps / 1e6;
                model_s.points.push((f64::from(n), model_mbps));
                if these.is_empty() {
                    continue;
                }
                let xs: Vec<f64> = these.iter().filter_map(|r| r.metric("sim_mbps")).collect();
                let k = xs.len().max(1) as f64;
                let mean = xs.iter().sum::<f64>() / k;
                let sd = if xs.len() > 1 {
                    (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0)).sqrt()
                } else {
                    0.0
                };
                let p = these.iter().filter_map(|r| r.metric("sim_p")).sum::<f64>() / k;
                table.push(vec![
                    n.into(),
                    access_name(rts).into(),
                    xs.len().into(),
                    mean.into(),
                    sd.into(),
                    model_mbps.into(),
                    (100.0 * (mean - model_mbps) / model_mbps).into(),
                    p.into(),
                    mr.p.into(),
                ]);
                sim.points.push((f64::from(n), mean));
                if let Some(e) = sim.errors.as_mut() {
                    e.push(sd);
                }
            }
            plot.series.push(sim);
            plot.series.push(model_s);
        }
        let (w, m) = {
            let phy = self.cfg.profile();
            bianchi::window(phy.cw_min(), phy.cw_max())
        };
        let (_, tb) = model(&self.cfg, 1, false);
        let (_, tr) = model(&self.cfg, 1, true);
        table.notes.push(format!(
            "Model inputs: W = {w}, m = {m}, slot {:.0} µs; basic access Ts/Tc {:.0}/{:.0} µs; \
RTS/CTS Ts/Tc {:.0}/{:.0} µs. The simulation's MAC {}.",
            tb.slot * 1e6,
            tb.ts * 1e6,
            tb.tc * 1e6,
            tr.ts * 1e6,
            tr.tc * 1e6,
            self.mac_text()
        ));
        table.notes.push(format!(
            "Throughput counts {}; control frames (Ack, CTS, RTS) at {} with basic rates {{{}}} Mb/s.",
            self.cfg.throughput.describe(),
            self.cfg.profile().response_rate(self.cfg.data_rate()),
            self.basic_rates_text()
        ));
        Report {
            experiment: "saturation".into(),
            description: self.description(),
            parameters: self.parameters(),
            tables: vec![table],
            plots: vec![plot],
            notes: vec![
                "Bianchi's model is the reference here: it is computed in the same run from the \
same PHY timing (IEEE Std 802.11-2020, clauses 15-18), frame size and CWmin/CWmax, and the \
simulation is expected within 2% of it with the MAC as the model assumes (the validation tests \
check 1 to 50 stations on 802.11b and 802.11g against a model computed independently)."
                    .into(),
                "The model assumes a constant conditional collision probability and an \
infinite retry limit; with one station there is no collision and the two agree within the \
rounding of slot boundaries."
                    .into(),
            ],
        }
    }
}
