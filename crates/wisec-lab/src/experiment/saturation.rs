//! The `saturation` experiment: n saturated stations send UDP datagrams to
//! one access point; the simulated throughput is set beside Bianchi's model
//! computed for the same PHY, frame size and contention window.

use crate::bianchi::{self, ModelResult, ModelTiming};
use crate::phy::{PhyProfile, PhyStandard, PhyTiming, Rate, FCS_LEN};
use crate::rng::derive_seed;
use crate::sim::{MacConfig, Simulator};
use crate::time::Time;
use crate::traffic::{SaturatedSource, Sink};
use serde::{Deserialize, Serialize};
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
    /// IPv4 packet length (the MSDU is this plus 8 octets of LLC/SNAP).
    pub ip_len: usize,
    /// Configure the MAC as Bianchi's model assumes: no retry limit and
    /// DIFS (not EIFS) after a collision. Off: the standard's retry limits
    /// and EIFS, and the model's Tc then uses EIFS.
    pub model_assumptions: bool,
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
            model_assumptions: true,
        }
    }
}

impl SaturationConfig {
    /// The PHY profile of the channel.
    pub fn profile(&self) -> PhyProfile {
        match (self.phy, self.short_preamble) {
            (PhyStandard::B, false) => PhyProfile::b(),
            (PhyStandard::B, true) => PhyProfile::b_short(),
            (PhyStandard::A, _) => PhyProfile::a(),
            (PhyStandard::G, _) => PhyProfile::g(),
        }
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
    /// Payload octets per frame (the MSDU with LLC/SNAP).
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
    let payload = cfg.ip_len + SNAP;
    let psdu = DATA_HEADER + payload + FCS_LEN;
    let timing = ModelTiming::dcf(
        &phy,
        psdu,
        payload,
        cfg.data_rate(),
        rts,
        !cfg.model_assumptions,
    );
    let (w, m) = bianchi::window(phy.cw_min(), phy.cw_max());
    (bianchi::throughput(n, w, m, &timing), timing)
}

/// Runs one point: `n` stations, one trial.
pub fn run_one(cfg: &SaturationConfig, n: u32, rts: bool, trial: u32) -> SaturationRun {
    let seed = derive_seed(cfg.seed, &[u64::from(n), u64::from(rts), u64::from(trial)]);
    let phy = cfg.profile();
    let rate = cfg.data_rate();
    let mut sim = Simulator::new(seed);
    let ch = sim.add_channel(phy);
    let ap_addr = addr(0);
    let ap = sim.add_node(Sink::new());
    let mut mac = MacConfig::dcf(ap_addr, rate);
    if cfg.model_assumptions {
        mac.eifs = false;
        mac.short_retry_limit = u32::MAX;
        mac.long_retry_limit = u32::MAX;
    }
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
    let sim_mbps = (rx1.msdu_octets - rx0.msdu_octets) as f64 * 8.0 / secs / 1e6;
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
    let payload = cfg.ip_len + SNAP;
    let inputs = ModelInputs {
        w,
        m,
        slot_us: us(tb.slot),
        basic_ts_tc_us: (us(tb.ts), us(tb.tc)),
        rts_ts_tc_us: (us(tr.ts), us(tr.tc)),
        payload_octets: payload,
        psdu_octets: DATA_HEADER + payload + FCS_LEN,
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
