//! Seed 004's experiment, live: how long an end-to-end IPsec connection
//! takes to come up over a two-hop ad hoc network when the relay or the
//! receiver carries a CPU-heavy load at nice levels from −20 to 19.
//!
//! The network is [`crate::live::secure_chain`]: nodes A, B, C (or a
//! longer chain) on an 802.11b IBSS of the lab's medium, A and C out of
//! each other's range (or in range behind a firewall rule, as the seed
//! did), routed by babeld; charon (strongSwan) on A and C at nice 10, as
//! the seed's pluto. Each point starts its load — ffmpeg encoding a test
//! pattern live and streaming it as RTP to A, or a busy loop — on the
//! relay or the receiver at its nice level, pinned to one CPU with that
//! node's daemons, and lets it run `warmup` seconds. Each trial then
//! starts the medium with a new channel capture, sends data from A to C
//! (dropped until the connection exists), runs `swanctl --initiate` on A,
//! waits for the data to arrive at C (under the stream, also until a
//! second has passed since the stream's first datagram reached A: the
//! stream's rate at A is taken over that time), closes the connection, and
//! reads the setup time from the capture: from A's first IKE packet to A's
//! first ESP packet, as the seed read its tcpdump.

use super::params::{bad_params, list, mean_sd, num, text};
use super::{
    ChannelInfo, Experiment, ExperimentError, Param, Plot, PlotKind, Report, RunOptions, Series,
    Table, TrialEnv, TrialResult, TrialSpec, Value,
};
use crate::ipsec_trace;
use crate::live::adhoc::Reach;
use crate::live::babel::BabelSettings;
use crate::live::ipsec::{IkeSuite, KeyType, Mode};
use crate::live::load::{LoadKind, StreamSettings};
use crate::live::sched::{SchedStat, NICE_RANGE};
use crate::live::secure_chain::{required_programs, ChainSettings, SecureChain};
use crate::live::sys::{self, LiveError};
use crate::pcap::read_radiotap;
use crate::phy::{PhyProfile, PhyStandard, Rate};
use crate::rng::derive_seed;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// Which node carries the load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The relay next to the initiator (B): seed 004's Figure 8.
    Relay,
    /// The receiver, the responder of the connection (C): Figure 9.
    Receiver,
}

impl Target {
    /// Its name in parameters.
    pub fn name(self) -> &'static str {
        match self {
            Target::Relay => "relay",
            Target::Receiver => "receiver",
        }
    }

    fn from_name(s: &str) -> Option<Target> {
        match s {
            "relay" => Some(Target::Relay),
            "receiver" => Some(Target::Receiver),
            _ => None,
        }
    }

    /// The loaded node's position in a chain of `n`.
    pub fn node(self, n: usize) -> usize {
        match self {
            Target::Relay => 1,
            Target::Receiver => n - 1,
        }
    }

    fn figure(self) -> u32 {
        match self {
            Target::Relay => 8,
            Target::Receiver => 9,
        }
    }
}

/// One point of a figure: where the load goes (and so which node has CPU
/// 1 to itself) and its nice level, `None` for the no-load reference of
/// that figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadPoint {
    /// The figure's loaded node.
    pub target: Target,
    /// The load's nice level; `None`: no load.
    pub nice: Option<i32>,
}

/// The mode of the CHILD_SA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ModeChoice {
    /// Transport where kernel-libipsec allows it, else tunnel.
    Auto,
    /// This one.
    Fixed(Mode),
}

/// The experiment.
#[derive(Debug)]
pub struct Multihop {
    chain: ChainSettings,
    ikes: Vec<IkeSuite>,
    mode: ModeChoice,
    load: LoadKind,
    stream: StreamSettings,
    targets: Vec<Target>,
    nices: Vec<i32>,
    baseline: bool,
    trials: u32,
    seed: u64,
    warmup_s: f64,
    timeout_s: f64,
    probe_ms: f64,
    lag_bound_fraction: f64,
    state: LiveState,
}

/// The live network kept across the trials of a run.
#[derive(Debug, Default)]
struct LiveState {
    chain: RefCell<Option<SecureChain>>,
    /// The load point that runs (`None` before the first trial).
    load_point: RefCell<Option<LoadPoint>>,
    /// When the running stream's first datagram reached the initiator,
    /// and the octets counted then.
    stream_since: RefCell<Option<(Instant, u64)>>,
    /// Per IKE suite: the mode, and why not transport.
    modes: RefCell<BTreeMap<&'static str, (Mode, Option<String>)>>,
    /// Per IKE suite: why charon cannot run it (`None`: it can).
    unavailable: RefCell<BTreeMap<&'static str, Option<String>>>,
}

fn parse<T: std::str::FromStr>(
    k: &str,
    v: &str,
    ok: impl Fn(&T) -> bool,
    what: &str,
) -> Result<T, ExperimentError> {
    v.trim_matches('"')
        .parse::<T>()
        .ok()
        .filter(|x| ok(x))
        .ok_or_else(|| ExperimentError(format!("{k}: '{v}'; {what}")))
}

fn live_err(e: LiveError) -> ExperimentError {
    match e {
        LiveError::Interrupted => ExperimentError::interrupted(),
        e => ExperimentError(format!("live: {e}")),
    }
}

impl Multihop {
    /// The experiment configured by `opts` (every parameter checked; the
    /// programs are checked before the first trial creates anything, see
    /// [`Multihop::check_programs`]).
    pub fn new(opts: &RunOptions) -> Result<Multihop, ExperimentError> {
        if !opts.live {
            return Err(ExperimentError(
                "multihop runs only live: real babeld and strongSwan in network namespaces over \
the lab's medium (root needed); run it with --live (its built-in scenario sets live = true)"
                    .into(),
            ));
        }
        let mut m = Multihop {
            chain: ChainSettings::default(),
            ikes: vec![IkeSuite::ikev1_3des(), IkeSuite::ikev2_gcm()],
            mode: ModeChoice::Auto,
            load: LoadKind::Stream,
            stream: StreamSettings::default(),
            targets: vec![Target::Relay, Target::Receiver],
            nices: vec![-20, -10, 0, 10, 19],
            baseline: true,
            trials: opts.trials.unwrap_or(10),
            seed: opts.seed,
            warmup_s: 2.0,
            timeout_s: 60.0,
            probe_ms: 2.0,
            lag_bound_fraction: 0.25,
            state: LiveState::default(),
        };
        m.chain.seed = opts.seed;
        if opts.quick {
            m.ikes = vec![IkeSuite::ikev2_gcm()];
            m.targets = vec![Target::Receiver];
            m.nices = vec![-20, 19];
            m.trials = opts.trials.unwrap_or(2);
            m.warmup_s = 1.0;
        }
        for (k, v) in &opts.overrides {
            let v = v.trim();
            let b = |x: &str| parse::<bool>(k, x, |_| true, "give true or false");
            match k.as_str() {
                "chain" => {
                    m.chain.nodes = parse(
                        k,
                        v,
                        |n: &usize| (3..=50).contains(n),
                        "a multi-hop chain needs 3 to 50 nodes (two ends and at least one relay)",
                    )?
                }
                "reach" => {
                    m.chain.reach = Reach::from_name(v.trim_matches('"')).ok_or_else(|| {
                        ExperimentError(format!(
                            "reach: '{v}'; give range (out of radio range) or firewall (in range, \
dropped by nftables as seed 004 did with iptables)"
                        ))
                    })?
                }
                "rate" => {
                    m.chain.mbps = parse(
                        k,
                        v,
                        |r: &f64| Rate::from_mbps(*r).is_some_and(Rate::is_dsss),
                        "give an 802.11b rate: 1, 2, 5.5 or 11",
                    )?
                }
                "rts" => m.chain.rts = b(v)?,
                "beacons" => m.chain.beacons = b(v)?,
                "pin" => m.chain.pin = b(v)?,
                "baseline" => m.baseline = b(v)?,
                "hello" => {
                    m.chain.babel = BabelSettings {
                        hello_s: parse(
                            k,
                            v,
                            |h: &f64| (0.1..=600.0).contains(h),
                            "give 0.1 to 600 seconds",
                        )?,
                    }
                }
                "ike" => m.ikes = list(v, "ike", IkeSuite::from_name)?,
                "mode" => {
                    m.mode = match v.trim_matches('"') {
                        "auto" => ModeChoice::Auto,
                        "tunnel" => ModeChoice::Fixed(Mode::Tunnel),
                        "transport" => ModeChoice::Fixed(Mode::Transport),
                        _ => {
                            return Err(ExperimentError(format!(
                                "mode: '{v}'; give auto, tunnel or transport"
                            )))
                        }
                    }
                }
                "key" => {
                    m.chain.key = KeyType::from_name(v.trim_matches('"')).ok_or_else(|| {
                        ExperimentError(format!("key: '{v}'; give rsa2048 or ecdsa256"))
                    })?
                }
                "load" => {
                    m.load = LoadKind::from_name(v.trim_matches('"')).ok_or_else(|| {
                        ExperimentError(format!("load: '{v}'; give stream or cpu"))
                    })?
                }
                "load_on" => m.targets = list(v, "load_on", Target::from_name)?,
                "nice" => {
                    m.nices = list(v, "nice", |x| x.parse::<i32>().ok())?;
                    if let Some(bad) = m.nices.iter().find(|n| !NICE_RANGE.contains(n)) {
                        return Err(ExperimentError(format!(
                            "nice: {bad} is not a nice level; Linux has -20 (highest priority) \
to 19 (lowest)"
                        )));
                    }
                }
                "charon_nice" => {
                    m.chain.charon_nice = parse(
                        k,
                        v,
                        |n: &i32| NICE_RANGE.contains(n),
                        "Linux has nice levels -20 to 19",
                    )?
                }
                "stream_size" => m.stream.size = v.trim_matches('"').to_string(),
                "stream_fps" => {
                    m.stream.fps = parse(k, v, |_: &u32| true, "give frames per second")?
                }
                "stream_preset" => m.stream.preset = v.trim_matches('"').to_string(),
                "stream_kbps" => m.stream.kbps = parse(k, v, |_: &u32| true, "give kb/s")?,
                "warmup" => {
                    m.warmup_s =
                        parse(k, v, |s: &f64| (0.0..=600.0).contains(s), "give 0 to 600 s")?
                }
                "timeout" => {
                    m.timeout_s = parse(
                        k,
                        v,
                        |s: &f64| (1.0..=3600.0).contains(s),
                        "give 1 to 3600 s",
                    )?
                }
                "probe_ms" => {
                    m.probe_ms = parse(
                        k,
                        v,
                        |s: &f64| (0.1..=1000.0).contains(s),
                        "give 0.1 to 1000 ms",
                    )?
                }
                "lag_bound" => {
                    m.lag_bound_fraction = parse(
                        k,
                        v,
                        |s: &f64| *s > 0.0 && *s <= 100.0,
                        "a fraction of one 1500-octet frame's airtime, above 0",
                    )?
                }
                _ => {
                    return Err(ExperimentError(format!(
                        "{k}: multihop has no such parameter (it has chain, reach, rate, rts, \
beacons, hello, ike, mode, key, load, load_on, nice, baseline, charon_nice, pin, stream_size, \
stream_fps, stream_preset, stream_kbps, warmup, timeout, probe_ms, lag_bound)"
                    )))
                }
            }
        }
        if m.ikes.is_empty() || (m.targets.is_empty() && !m.baseline) {
            return Err(ExperimentError(
                "nothing to measure: give at least one ike suite and a load_on or baseline".into(),
            ));
        }
        if !m.targets.is_empty() && m.nices.is_empty() {
            return Err(ExperimentError("nice: give at least one nice level".into()));
        }
        m.stream
            .validate()
            .map_err(|e| ExperimentError(e.to_string()))?;
        m.chain
            .validate()
            .map_err(|e| ExperimentError(e.to_string()))?;
        Ok(m)
    }

    /// Checks with `find` that every program the run needs is installed;
    /// the first missing one is the error, with its Debian package.
    pub fn check_programs(
        &self,
        find: &dyn Fn(&str) -> Result<(), LiveError>,
    ) -> Result<(), ExperimentError> {
        for p in self.live_programs() {
            find(p).map_err(|e| ExperimentError(e.to_string()))?;
        }
        Ok(())
    }

    /// The load points: each figure's no-load reference (if `baseline`),
    /// then its nice levels. Without figures, the reference alone, with
    /// the receiver's placement.
    fn points(&self) -> Vec<LoadPoint> {
        let mut v = Vec::new();
        let targets = if self.targets.is_empty() {
            vec![Target::Receiver]
        } else {
            self.targets.clone()
        };
        for target in targets {
            if self.baseline {
                v.push(LoadPoint { target, nice: None });
            }
            if self.targets.contains(&target) {
                for n in &self.nices {
                    v.push(LoadPoint {
                        target,
                        nice: Some(*n),
                    });
                }
            }
        }
        v
    }

    fn lag_bound_us(&self) -> f64 {
        let phy = PhyProfile::b();
        let rate = Rate::from_mbps(self.chain.mbps).unwrap_or(Rate::CCK_11);
        super::overhead_live::frame_airtime(&phy, rate).as_ns() as f64 / 1000.0
            * self.lag_bound_fraction
    }

    /// Creates the chain on the first trial.
    fn ensure_chain(&self, env: &TrialEnv<'_>) -> Result<(), ExperimentError> {
        let mut g = self.state.chain.borrow_mut();
        if g.is_some() {
            return Ok(());
        }
        self.check_programs(&|p| sys::find_program(p).map(drop))?;
        let setup_pcap = env.work_dir.as_ref().map(|d| d.join("setup-channel.pcap"));
        if let Some(d) = &env.work_dir {
            std::fs::create_dir_all(d)
                .map_err(|e| ExperimentError(format!("creating {}: {e}", d.display())))?;
        }
        let chain = SecureChain::create(
            self.chain.clone(),
            env.work_dir.as_deref(),
            setup_pcap.as_deref(),
            env.interrupt.clone(),
        )
        .map_err(live_err)?;
        *g = Some(chain);
        Ok(())
    }

    /// Whether the suite can run, and its mode (found out once per suite).
    fn prepare_suite(
        &self,
        chain: &mut SecureChain,
        suite: &IkeSuite,
    ) -> Result<Option<(Mode, Option<String>)>, ExperimentError> {
        let name = suite.name();
        let known = self.state.unavailable.borrow().get(name).cloned();
        let why = match known {
            Some(w) => w,
            None => {
                let w = chain.suite_unavailable(suite).map_err(live_err)?;
                self.state.unavailable.borrow_mut().insert(name, w.clone());
                w
            }
        };
        if why.is_some() {
            return Ok(None);
        }
        let known = self.state.modes.borrow().get(name).cloned();
        let mode = match known {
            Some(m) => m,
            None => {
                let m = match self.mode {
                    ModeChoice::Auto => chain.choose_mode(suite).map_err(live_err)?,
                    ModeChoice::Fixed(m) => (m, None),
                };
                self.state.modes.borrow_mut().insert(name, m.clone());
                m
            }
        };
        chain.use_suite(suite, mode.0).map_err(live_err)?;
        Ok(Some(mode))
    }

    /// Places the nodes and starts the load of `point`, unless that point
    /// runs already.
    fn ensure_load(
        &self,
        chain: &mut SecureChain,
        point: LoadPoint,
        env: &TrialEnv<'_>,
    ) -> Result<(), ExperimentError> {
        let n = self.chain.nodes;
        if *self.state.load_point.borrow() == Some(point) {
            if !chain.load_running() {
                return Err(ExperimentError(format!(
                    "the load ended early: {}",
                    last_lines(&chain.load_log(), 3)
                )));
            }
            return Ok(());
        }
        chain.stop_load();
        // The figure's loaded node alone on one CPU, with or without load.
        let busy = point.target.node(n);
        chain.place(Some(busy)).map_err(live_err)?;
        if let Some(nice) = point.nice {
            chain
                .start_load(busy, self.load, nice, &self.stream)
                .map_err(live_err)?;
            if !wait_until(Instant::now() + Duration::from_secs_f64(self.warmup_s), env) {
                return Err(ExperimentError::interrupted());
            }
            if !chain.load_running() {
                return Err(ExperimentError(format!(
                    "the load ({}) ended at start: {}",
                    self.load.name(),
                    last_lines(&chain.load_log(), 3)
                )));
            }
            if self.load == LoadKind::Stream {
                let since = self.await_stream(chain, env)?;
                *self.state.stream_since.borrow_mut() = Some(since);
            }
        }
        *self.state.load_point.borrow_mut() = Some(point);
        Ok(())
    }

    /// Waits until the stream's datagrams reach the initiator (its encoder
    /// may take longer to start than the warm-up on a busy host), at most
    /// [`STREAM_START_S`]; when, and the octets received by then.
    fn await_stream(
        &self,
        chain: &mut SecureChain,
        env: &TrialEnv<'_>,
    ) -> Result<(Instant, u64), ExperimentError> {
        let t0 = Instant::now();
        let (p0, _) = chain.stream_received();
        loop {
            let (p, o) = chain.stream_received();
            if p > p0 {
                return Ok((Instant::now(), o));
            }
            if env.interrupted() {
                return Err(ExperimentError::interrupted());
            }
            if !chain.load_running() || t0.elapsed().as_secs_f64() >= STREAM_START_S {
                return Err(ExperimentError(format!(
                    "the stream did not reach the initiator within {STREAM_START_S} s after the \
                     warm-up: {}",
                    last_lines(&chain.load_log(), 3)
                )));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn measure(
        &self,
        chain: &mut SecureChain,
        env: &TrialEnv<'_>,
        r: &mut TrialResult,
    ) -> Result<(), ExperimentError> {
        let own_pcap;
        let pcap: &Path = match &env.capture_file {
            Some(p) => p,
            None => {
                own_pcap = chain.run_dir().join("trial-channel.pcap");
                &own_pcap
            }
        };
        let ins = |r: &mut TrialResult, k: &str, v: Value| {
            r.metrics.insert(k.to_string(), v);
        };
        chain.switch_medium(Some(pcap)).map_err(live_err)?;
        let t0 = Instant::now();
        let (_, init0, resp0) = chain.sched();
        let load0 = chain.load_cpu_s();
        let stream0 = chain.stream_received();
        let est = chain.establish(
            Duration::from_secs_f64(self.probe_ms / 1e3),
            Duration::from_secs_f64(self.timeout_s),
        );
        let wall = t0.elapsed().as_secs_f64();
        let (_, init1, resp1) = chain.sched();
        let load1 = chain.load_cpu_s();
        let stream1 = chain.stream_received();
        // The stream's rate is taken over at least STREAM_RATE_S after its
        // first datagram: a point's first trial may end as soon after it as
        // the setup takes, too soon to say anything of the rate. An
        // interrupt ends the wait; the trial then tears down what it set up
        // and says it was interrupted.
        let since = *self.state.stream_since.borrow();
        let mut cut = false;
        let (streamed, at1) = match since {
            Some((t, _)) if chain.load().is_some_and(|l| l.kind == LoadKind::Stream) => {
                cut = !wait_until(t + Duration::from_secs_f64(STREAM_RATE_S), env);
                (chain.stream_received(), Instant::now())
            }
            _ => (stream1, Instant::now()),
        };
        let routed = chain
            .has_route(self.chain.nodes - 1, chain.initiator().ip)
            .map_err(live_err)?;
        let down = chain.teardown(Duration::from_secs_f64(self.timeout_s));
        let outcome = chain
            .switch_medium(None)
            .map_err(live_err)?
            .ok_or_else(|| ExperimentError("live: the medium did not run".into()))?;
        let est = est.map_err(live_err)?;
        down.map_err(live_err)?;
        if cut {
            return Err(ExperimentError::interrupted());
        }
        let records = read_radiotap(pcap).map_err(|e| ExperimentError(e.to_string()))?;
        if env.capture_file.is_none() {
            let _ = std::fs::remove_file(pcap);
        }
        let packets = ipsec_trace::packets(&records);
        let setup = ipsec_trace::setup(
            &packets,
            chain.initiator(),
            chain.responder(),
            chain.last_hop(),
        );
        let lag_ok = outcome.medium.lag.p99_us <= self.lag_bound_us();
        ins(r, "established", est.established.into());
        ins(r, "responder_routed", routed.into());
        ins(r, "initiate_ms", est.initiate_ms.into());
        ins(r, "first_data_ms", est.first_data_ms.into());
        ins(r, "probes_sent", est.probes_sent.into());
        if !est.established {
            ins(r, "swanctl", est.output.clone().into());
        }
        let setup_ms = setup.and_then(|s| s.setup_ms).filter(|_| est.established);
        ins(r, "setup_ms", setup_ms.into());
        if let Some(s) = setup {
            ins(r, "ike_ms", s.ike_ms.into());
            ins(r, "ike_sent", s.ike_sent.into());
            ins(r, "ike_retransmits", s.ike_retransmits.into());
            ins(r, "mac_retries", s.mac_retries.into());
            ins(
                r,
                "esp_at_responder_ms",
                s.esp_delivered_ns
                    .map(|t| t.saturating_sub(s.first_ike_ns) as f64 / 1e6)
                    .into(),
            );
        }
        let cleartext =
            ipsec_trace::cleartext_between(&packets, chain.initiator().ip, chain.responder().ip)
                .iter()
                .filter(|p| p.src == chain.initiator().ip)
                .count();
        ins(r, "cleartext_from_initiator", cleartext.into());
        let ms = |s: SchedStat| (s.run_ns as f64 / 1e6, s.wait_ns as f64 / 1e6);
        let (run, wait) = ms(resp1.since(resp0));
        ins(r, "responder_charon_run_ms", run.into());
        ins(r, "responder_charon_wait_ms", wait.into());
        let (run, wait) = ms(init1.since(init0));
        ins(r, "initiator_charon_run_ms", run.into());
        ins(r, "initiator_charon_wait_ms", wait.into());
        if let (Some(a), Some(b)) = (load0, load1) {
            ins(r, "load_cpu_share", ((b - a).max(0.0) / wall).into());
        }
        if chain.load().is_some_and(|l| l.kind == LoadKind::Stream) {
            // The datagrams that arrived while the connection was set up (a
            // frame every 1/fps s: few, or none, in a short setup), and the
            // stream's mean rate since its first datagram arrived.
            ins(
                r,
                "stream_datagrams_during_setup",
                (stream1.0 - stream0.0).into(),
            );
            if let Some((t, o)) = since {
                let s = at1.duration_since(t).as_secs_f64();
                let kbps = streamed.1.saturating_sub(o) as f64 * 8.0 / 1e3 / s;
                ins(r, "stream_kbps_at_initiator", kbps.into());
            }
        }
        let cpus = chain.cpus();
        let cpu = |i: usize| cpus.get(i).copied().flatten().map(|c| c as i64);
        ins(r, "cpu_responder", cpu(self.chain.nodes - 1).into());
        if let Some(l) = chain.load() {
            ins(r, "cpu_load", cpu(l.node).into());
        }
        ins(r, "cpu_medium", chain.medium_cpu().map(|c| c as i64).into());
        ins(r, "convergence_s", chain.convergence().as_secs_f64().into());
        let md = &outcome.medium;
        ins(r, "lag_p50_us", md.lag.p50_us.into());
        ins(r, "lag_p99_us", md.lag.p99_us.into());
        ins(r, "lag_max_us", md.lag.max_us.into());
        ins(r, "lag_bound_us", self.lag_bound_us().into());
        ins(r, "valid", lag_ok.into());
        ins(r, "medium_cpu_share", md.cpu_share.into());
        ins(r, "medium_realtime", outcome.realtime.into());
        ins(r, "host_load_1m", host_load().into());
        ins(r, "used", (lag_ok && setup_ms.is_some()).into());
        r.sim_time_ns = (md.virtual_s * 1e9) as u64;
        r.events = md.events;
        Ok(())
    }

    fn figure(&self, results: &[TrialResult], target: Target) -> (Table, Plot) {
        let fig = target.figure();
        let who = match target {
            Target::Relay => "the relay B",
            Target::Receiver => "the receiver C",
        };
        let mut t = Table::new(
            &format!("figure_{fig}"),
            &format!(
                "Figure {fig}: secure-connection setup time with the {} load on {who} (trials \
used)",
                self.load.name()
            ),
        )
        .column("ike", None)
        .column("load nice", None)
        .column("trials", None)
        .column("not established", None)
        .column("used", None)
        .column("setup", Some("ms"))
        .column("sd", Some("ms"))
        .column("median", Some("ms"))
        .column("min", Some("ms"))
        .column("max", Some("ms"))
        .column("IKE exchange", Some("ms"))
        .column("C charon waiting", Some("ms"))
        .column("load CPU", Some("%"))
        .column("x no load", None)
        .column("lab", None)
        .column(&format!("seed 004 (Fig. {fig})"), None);
        let mut plot = Plot {
            name: format!("figure_{fig}"),
            title: format!("Setup time, {} load on {who}", self.load.name()),
            x_label: "nice level of the load".into(),
            y_label: "setup time (ms)".into(),
            kind: PlotKind::Line,
            categories: Vec::new(),
            series: Vec::new(),
        };
        for suite in &self.ikes {
            let ike = suite.name();
            let at = |nice| Point::gather(results, ike, LoadPoint { target, nice });
            let base = at(None);
            let base_mean = mean_sd(&base.setup).0;
            let base_median = median_of(&base.setup);
            let mut series = Series {
                label: label(suite),
                points: Vec::new(),
                errors: Some(Vec::new()),
            };
            let nices = std::iter::once(None)
                .filter(|_| self.baseline)
                .chain(self.nices.iter().map(|n| Some(*n)));
            for nice in nices {
                let p = at(nice);
                let (mean, sd) = mean_sd(&p.setup);
                // Medians: one trial slowed by the rest of the machine
                // must not move a point's verdict.
                let ratio = match (nice, median_of(&p.setup), base_median) {
                    (Some(_), Some(m), Some(b)) => Some(m / b),
                    _ => None,
                };
                if let (Some(n), true) = (nice, p.used() > 0) {
                    series.points.push((f64::from(n), mean));
                    if let Some(e) = series.errors.as_mut() {
                        e.push(sd);
                    }
                }
                let fin = |x: f64| x.is_finite().then_some(x);
                let mut sorted = p.setup.clone();
                sorted.sort_by(f64::total_cmp);
                t.push(vec![
                    ike.into(),
                    nice.map_or(Value::from("no load"), |n| Value::from(i64::from(n))),
                    p.trials.into(),
                    p.failed.into(),
                    p.used().into(),
                    fin(mean).into(),
                    fin(sd).filter(|_| p.used() > 1).into(),
                    median(&sorted).into(),
                    sorted.first().copied().into(),
                    sorted.last().copied().into(),
                    fin(mean_sd(&p.ike).0).into(),
                    fin(mean_sd(&p.wait).0).into(),
                    fin(mean_sd(&p.load_cpu).0 * 100.0).into(),
                    ratio.into(),
                    ratio.map(class).into(),
                    seed_observation(target, nice).into(),
                ]);
            }
            if base.used() > 0 && !series.points.is_empty() {
                let lo = self.nices.iter().min().copied().unwrap_or(-20);
                let hi = self.nices.iter().max().copied().unwrap_or(19);
                plot.series.push(Series {
                    label: format!("{}, no load", label(suite)),
                    points: vec![(f64::from(lo), base_mean), (f64::from(hi), base_mean)],
                    errors: None,
                });
            }
            if !series.points.is_empty() {
                plot.series.push(series);
            }
        }
        t.notes.push(format!(
            "Trials are used when the CHILD_SA was established within the timeout and the medium's \
lag stayed within its bound; a point with trials not established took longer than its mean \
says. \"x no load\": the median over the median of this figure's no-load trials (the same \
placement of the nodes on the CPUs, without the load). \"lab\" puts that in the seed's words: \
about the same below {ABOUT_THE_SAME}x, longer up to {LONG}x, long from {LONG}x."
        ));
        (t, plot)
    }

    /// Whether the seed's conclusions hold, figure by figure, in words,
    /// judged on the median setup times:
    /// Figure 8's if no relay load takes the setup to twice its no-load
    /// time or more; Figure 9's if every receiver load of higher priority
    /// than charon's (a lower nice level) takes it there, and longer than
    /// every load of lower priority, which stays below.
    fn verdicts(&self, results: &[TrialResult]) -> Vec<String> {
        let mut out = Vec::new();
        for suite in &self.ikes {
            let ike = suite.name();
            for target in [Target::Relay, Target::Receiver] {
                if !self.targets.contains(&target) {
                    continue;
                }
                let at = |nice| Point::gather(results, ike, LoadPoint { target, nice });
                let base = at(None);
                let Some(b) = median_of(&base.setup) else {
                    continue;
                };
                let pts: Vec<(i32, f64)> = self
                    .nices
                    .iter()
                    .filter_map(|n| Some((*n, median_of(&at(Some(*n)).setup)?)))
                    .collect();
                if pts.is_empty() {
                    continue;
                }
                let fmt = |v: &[&(i32, f64)]| {
                    v.iter()
                        .map(|(n, m)| format!("nice {n}: {m:.1} ms (x{:.1})", m / b))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let all: Vec<&(i32, f64)> = pts.iter().collect();
                match target {
                    Target::Relay => {
                        let holds = pts.iter().all(|(_, m)| m / b < ABOUT_THE_SAME);
                        out.push(format!(
                            "{}: Figure 8's conclusion {} here: with the load on the relay, median \
setup times {} against {b:.1} ms without it.",
                            label(suite),
                            if holds { "holds" } else { "does not hold" },
                            fmt(&all)
                        ));
                    }
                    Target::Receiver => {
                        let cn = self.chain.charon_nice;
                        let above: Vec<&(i32, f64)> = pts.iter().filter(|p| p.0 < cn).collect();
                        let below: Vec<&(i32, f64)> = pts.iter().filter(|p| p.0 > cn).collect();
                        let slowest_below = below.iter().map(|p| p.1).fold(0.0, f64::max);
                        let longer = above
                            .iter()
                            .all(|p| p.1 / b >= ABOUT_THE_SAME && p.1 > slowest_below);
                        let same = below.iter().all(|p| p.1 / b < ABOUT_THE_SAME);
                        let verdict = if above.is_empty() || below.is_empty() {
                            "cannot be judged (it needs loads above and below charon's priority)"
                        } else if longer && same {
                            "holds here"
                        } else {
                            "does not hold here"
                        };
                        out.push(format!(
                            "{}: Figure 9's conclusion {verdict}: median setup times against {b:.1} ms \
without load: {}.",
                            label(suite),
                            fmt(&all)
                        ));
                    }
                }
            }
        }
        out
    }
}

/// Below this multiple of the no-load setup time, a point is "about the
/// same"; from [`LONG`] on, "long"; between, "longer".
const ABOUT_THE_SAME: f64 = 2.0;

/// See [`ABOUT_THE_SAME`].
const LONG: f64 = 10.0;

/// How long after the warm-up the stream's first datagram may take to
/// reach the initiator, s.
const STREAM_START_S: f64 = 15.0;

/// The shortest time after the stream's first datagram over which its
/// rate at the initiator is taken, s (25 frames at the default 25
/// frames/s).
const STREAM_RATE_S: f64 = 1.0;

/// Sleeps until `until`, in steps short enough to notice an interrupt;
/// false when it stopped early for one.
fn wait_until(until: Instant, env: &TrialEnv<'_>) -> bool {
    while Instant::now() < until {
        if env.interrupted() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// A multiple of the no-load setup time in the seed's words.
fn class(ratio: f64) -> &'static str {
    if ratio < ABOUT_THE_SAME {
        "about the same"
    } else if ratio < LONG {
        "longer"
    } else {
        "long"
    }
}

/// The median of `values`, in any order.
fn median_of(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    median(&sorted)
}

/// The median of sorted values.
fn median(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

fn label(s: &IkeSuite) -> String {
    match s.version {
        crate::live::ipsec::IkeVersion::V1 => "IKEv1 3DES".into(),
        crate::live::ipsec::IkeVersion::V2 => "IKEv2 AES-GCM".into(),
    }
}

/// What seed 004 observed at this point (Section 7.2).
fn seed_observation(target: Target, nice: Option<i32>) -> &'static str {
    match (target, nice) {
        (_, None) => "reference (no load)",
        (Target::Relay, Some(_)) => "no influence",
        (Target::Receiver, Some(n)) if n < 0 => "long",
        (Target::Receiver, Some(0)) => "slightly longer",
        (Target::Receiver, Some(n)) if n < 10 => "longer (priority above pluto's 10)",
        (Target::Receiver, Some(_)) => "about the same as without load",
    }
}

fn last_lines(s: &str, n: usize) -> String {
    let v: Vec<&str> = s.lines().collect();
    v[v.len().saturating_sub(n)..].join(" | ")
}

/// The 1-minute load average of the machine.
fn host_load() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The used trials of one point.
#[derive(Debug, Clone, Default)]
struct Point {
    trials: usize,
    /// Trials whose CHILD_SA was not established within the timeout.
    failed: usize,
    setup: Vec<f64>,
    ike: Vec<f64>,
    wait: Vec<f64>,
    load_cpu: Vec<f64>,
}

impl Point {
    fn used(&self) -> usize {
        self.setup.len()
    }

    fn gather(results: &[TrialResult], ike: &str, point: LoadPoint) -> Point {
        let mut p = Point::default();
        for r in results {
            let here = text(&r.spec, "ike") == Some(ike)
                && text(&r.spec, "load_on") == Some(point.target.name())
                && num(&r.spec, "nice") == point.nice.map(f64::from);
            if !here {
                continue;
            }
            p.trials += 1;
            if r.metrics.get("established") == Some(&Value::Bool(false)) {
                p.failed += 1;
            }
            if r.metrics.get("used") != Some(&Value::Bool(true)) {
                continue;
            }
            if let Some(s) = r.metric("setup_ms") {
                p.setup.push(s);
            }
            if let Some(s) = r.metric("ike_ms") {
                p.ike.push(s);
            }
            if let Some(s) = r.metric("responder_charon_wait_ms") {
                p.wait.push(s);
            }
            if let Some(s) = r.metric("load_cpu_share") {
                p.load_cpu.push(s);
            }
        }
        p
    }
}

impl Experiment for Multihop {
    fn name(&self) -> &str {
        "multihop"
    }

    fn live_programs(&self) -> Vec<&'static str> {
        required_programs(&[self.load])
    }

    fn description(&self) -> String {
        format!(
            "Seed 004 live: a {n}-node 802.11b ad hoc chain ({rate} Mb/s, {reach}) of network \
namespaces over the lab's medium, routed by babeld; strongSwan's charon on the two ends at nice \
{cn}, ESP by kernel-libipsec; A initiates an end-to-end IPsec connection to C while a {load} \
load runs on the relay or the receiver at nice levels {nices:?}{base}. The setup time runs from \
A's first IKE packet to A's first ESP packet on the channel capture; {trials} trials per point.",
            n = self.chain.nodes,
            rate = self.chain.mbps,
            reach = match self.chain.reach {
                Reach::Range => "ends out of radio range",
                Reach::Firewall => "all in range, non-neighbours dropped by nftables",
            },
            cn = self.chain.charon_nice,
            load = self.load.name(),
            nices = self.nices,
            base = if self.baseline {
                " and without load"
            } else {
                ""
            },
            trials = self.trials,
        )
    }

    fn parameters(&self) -> Vec<Param> {
        let joined = |v: Vec<String>| Value::from(v.join(","));
        vec![
            Param::new("chain", self.chain.nodes, "nodes in the chain (A, relays, C)"),
            Param::new("reach", self.chain.reach.name(), "range: non-neighbours out of radio range; firewall: in range, dropped by nftables"),
            Param::new("rate", self.chain.mbps, "802.11b data rate, Mb/s"),
            Param::new("rts", self.chain.rts, "RTS/CTS before every data frame"),
            Param::new("beacons", self.chain.beacons, "IBSS beacons"),
            Param::new("hello", self.chain.babel.hello_s, "babeld's hello interval on the wireless interface, s"),
            Param {
                name: "ike".into(),
                value: joined(self.ikes.iter().map(|s| s.name().to_string()).collect()),
                description: "IKE suites: ikev1 (main + quick mode, 3DES, SHA-1, MODP-1024), ikev2 (AES-GCM, ECP-256)".into(),
            },
            Param::new(
                "mode",
                match self.mode {
                    ModeChoice::Auto => "auto",
                    ModeChoice::Fixed(m) => m.name(),
                },
                "IPsec mode: auto tries transport and falls back to tunnel",
            ),
            Param::new("key", self.chain.key.name(), "certificate keys"),
            Param::new("load", self.load.name(), "stream (ffmpeg RTP) or cpu (busy loop)"),
            Param {
                name: "load_on".into(),
                value: joined(self.targets.iter().map(|t| t.name().to_string()).collect()),
                description: "loaded node: relay (Figure 8), receiver (Figure 9)".into(),
            },
            Param {
                name: "nice".into(),
                value: joined(self.nices.iter().map(i32::to_string).collect()),
                description: "nice levels of the load".into(),
            },
            Param::new("baseline", self.baseline, "measure without load too"),
            Param::new("charon_nice", i64::from(self.chain.charon_nice), "charon's nice level (seed: pluto at 10)"),
            Param::new("pin", self.chain.pin, "each node's programs pinned to one CPU"),
            Param::new("stream_size", self.stream.size.as_str(), "test pattern size"),
            Param::new("stream_fps", self.stream.fps, "frames per second"),
            Param::new("stream_preset", self.stream.preset.as_str(), "x264 preset"),
            Param::new("stream_kbps", self.stream.kbps, "video bit rate, kb/s"),
            Param::new("warmup", self.warmup_s, "seconds a load runs before its point's first trial"),
            Param::new("timeout", self.timeout_s, "longest wait for a CHILD_SA, s"),
            Param::new("probe_ms", self.probe_ms, "interval of the data waiting for the connection, ms"),
            Param::new("lag_bound", self.lag_bound_fraction, "largest medium lag p99 of a valid trial, as a fraction of one 1500-octet frame's airtime"),
            Param::new("lag_bound_us", self.lag_bound_us(), "that bound, µs"),
            Param::new("trials", self.trials, "trials per point"),
        ]
    }

    fn plan(&self) -> Vec<TrialSpec> {
        let mut v = Vec::new();
        for (pi, point) in self.points().into_iter().enumerate() {
            for suite in &self.ikes {
                for t in 0..self.trials {
                    let ike = suite.name();
                    let on = point.target.name();
                    let label = match point.nice {
                        None => format!("{ike}-{on}-noload-t{t:02}"),
                        Some(n) => format!("{ike}-{on}-n{n}-t{t:02}"),
                    };
                    let mut params = BTreeMap::new();
                    params.insert("ike".to_string(), Value::from(ike));
                    params.insert("load_on".to_string(), Value::from(on));
                    params.insert(
                        "nice".to_string(),
                        point
                            .nice
                            .map_or(Value::Null, |n| Value::from(i64::from(n))),
                    );
                    params.insert("trial".to_string(), Value::from(t));
                    v.push(TrialSpec {
                        index: v.len(),
                        label,
                        seed: derive_seed(self.seed, &[pi as u64, u64::from(t)]),
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
        if env.interrupted() {
            return Err(ExperimentError::interrupted());
        }
        let suite = text(spec, "ike")
            .and_then(IkeSuite::from_name)
            .ok_or_else(|| bad_params(spec))?;
        let point = LoadPoint {
            target: text(spec, "load_on")
                .and_then(Target::from_name)
                .ok_or_else(|| bad_params(spec))?,
            nice: num(spec, "nice").map(|n| n as i32),
        };
        self.ensure_chain(env)?;
        let mut g = self.state.chain.borrow_mut();
        let chain = g
            .as_mut()
            .ok_or_else(|| ExperimentError("live: no chain".into()))?;
        let mut r = TrialResult::new(spec);
        r.channels.push(ChannelInfo {
            id: 0,
            phy: PhyStandard::B,
            freq_mhz: 2412,
        });
        r.metrics.insert("live".into(), true.into());
        // The suite's availability and mode, found without load.
        let Some((mode, why)) = self.prepare_suite(chain, &suite)? else {
            let why = self
                .state
                .unavailable
                .borrow()
                .get(suite.name())
                .cloned()
                .flatten()
                .unwrap_or_default();
            r.metrics.insert("available".into(), false.into());
            r.metrics.insert("unavailable".into(), why.into());
            r.metrics.insert("used".into(), false.into());
            return Ok(r);
        };
        r.metrics.insert("available".into(), true.into());
        r.metrics.insert("mode".into(), mode.name().into());
        if let Some(w) = why {
            r.metrics.insert("transport_refused".into(), w.into());
        }
        self.ensure_load(chain, point, env)?;
        self.measure(chain, env, &mut r)?;
        Ok(r)
    }

    fn fitted(&self) -> Option<Vec<super::Fitted>> {
        // No parameter of this experiment was set from a seed's results.
        Some(Vec::new())
    }

    fn summarize(&self, results: &[TrialResult]) -> Report {
        let mut tables = Vec::new();
        let mut plots = Vec::new();
        for t in [Target::Relay, Target::Receiver] {
            if self.targets.contains(&t) {
                let (table, plot) = self.figure(results, t);
                tables.push(table);
                plots.push(plot);
            }
        }
        tables.push(self.connection_table(results));
        let mut notes = self.verdicts(results);
        notes.extend(self.notes(results));
        Report {
            experiment: "multihop".into(),
            description: self.description(),
            parameters: self.parameters(),
            tables,
            plots,
            notes,
        }
    }
}

impl Multihop {
    /// What ran: per suite, availability, mode, and the network.
    fn connection_table(&self, results: &[TrialResult]) -> Table {
        let mut t = Table::new("connection", "What ran: IKE, IPsec mode, routing")
            .column("ike", None)
            .column("suite", None)
            .column("available", None)
            .column("mode", None)
            .column("why", None)
            .column("trials", None)
            .column("established", None)
            .column("invalid (lag)", None)
            .column("babel convergence", Some("s"));
        for suite in &self.ikes {
            let mine: Vec<&TrialResult> = results
                .iter()
                .filter(|r| text(&r.spec, "ike") == Some(suite.name()))
                .collect();
            let first = mine.first();
            let get = |k: &str| first.and_then(|r| r.metrics.get(k)).cloned();
            let available = get("available").unwrap_or(Value::Null);
            let why = get("unavailable")
                .or_else(|| {
                    get("transport_refused").map(|w| {
                        Value::from(format!(
                            "transport refused: {}",
                            w.as_str().unwrap_or_default()
                        ))
                    })
                })
                .unwrap_or(Value::Null);
            let count = |k: &str, v: bool| {
                mine.iter()
                    .filter(|r| r.metrics.get(k) == Some(&Value::Bool(v)))
                    .count()
            };
            t.push(vec![
                suite.name().into(),
                suite.describe().into(),
                available,
                get("mode").unwrap_or(Value::Null),
                why,
                mine.len().into(),
                count("established", true).into(),
                count("valid", false).into(),
                results
                    .iter()
                    .find_map(|r| r.metric("convergence_s"))
                    .into(),
            ]);
        }
        t
    }

    fn notes(&self, results: &[TrialResult]) -> Vec<String> {
        let mut v = vec![
            "Seed 004's Figures 8 and 9 survive only as the text's observations (Section 7.2): \
with the streaming load on the relay the setup time did not change; with it on the receiver the \
setup time was about the same as without load at low priority, slightly longer at nice 0, and \
long at high priority, because the receiver's IKE daemon (pluto, nice 10) lost the CPU to a \
load of higher priority. The tables set those observations beside the lab's figures; the \
seed's own numbers are not available to compare with."
                .to_string(),
            "Why a load of lower priority still costs something: charon wakes for each IKE \
message, and a load of lower priority that holds the CPU keeps it for the rest of its time \
slice before charon runs (the scheduler preempts on weight, not at once), so each of the \
exchange's steps on the receiver can wait a few milliseconds. A load of higher priority leaves \
charon a share of the CPU in the ratio of their weights (nice 10 against nice -20 is about 1 \
to 800), and the exchange's few milliseconds of computing stretch to seconds; once a message \
waits longer than the initiator's retransmission timeout (4 s), IKE retransmits it."
                .to_string(),
            "Routing: babeld (RFC 8966) instead of the seed's olsrd, which has no Debian package. \
Both are proactive and keep routes to every node before any traffic needs them. OLSR is \
link-state: hellos find neighbours, multipoint relays (MPRs) flood topology control messages, \
and every node computes shortest paths over the whole topology. Babel is a distance vector: \
a node hears from its neighbours only their metrics to each destination, with sequence numbers \
and a feasibility condition against loops. babeld runs on wlan0 as a wireless interface over \
IPv6 link-local multicast and installs IPv4 host routes; the convergence time is from babeld's \
start to every node having a route to every node out of its range."
                .to_string(),
            "IPsec: strongSwan 5.9 with kernel-libipsec, because the lab's kernels have no ESP \
transforms: charon does ESP itself, at its own nice level, through a TUN device and routes in \
table 220, always in UDP encapsulation (port 4500). kernel-libipsec has no transport mode \
(its CHILD_SA fails with 'IPsec SA: unsupported mode'), so the connection is a host-to-host \
tunnel (traffic selectors A/32 and C/32), where the seed used transport mode; and it starts no \
IKE on traffic (no acquires), so A initiates with swanctl while its data waits. The seed's \
routing problem (IPsec rewriting the table OLSR managed) does not arise: kernel-libipsec \
routes in its own table 220, and charon's own IKE and ESP carry a firewall mark the table's \
rule skips. A requires protection for its traffic to C: an nftables rule in A's namespace \
drops everything for C that is not charon's marked IKE or ESP."
                .to_string(),
            "A shared kernel: the nodes are network namespaces of one Linux kernel on this machine. \
Their programs (charon, babeld, the load) run at their nice levels, pinned to one CPU per node \
and in a CPU control group per node, like the seed's single-core laptops: the loaded node alone \
on CPU 1, every other node on CPU 0 (without load the receiver stays on CPU 1). In its group a \
node competes with the rest of the machine as one more machine would, and its programs' nice \
levels compare with each other only; without node groups, Linux would schedule them all in the \
wisec process's session group, whose share a nice -20 load on one CPU would draw nearly all to \
that CPU. The kernel's packet work is not a node's process: a frame arriving at a node is \
written into its TAP device by the medium's thread, and the kernel receives it, routes it and, \
on a relay, forwards it in softirq context on that thread's CPU, not on the relay's. So a \
relay's forwarding cannot lose the CPU to a load on the relay, as on the seed's relay, where \
forwarding ran in interrupt context above every process. What competes with a receiver's load \
is charon: IKE and, with kernel-libipsec, ESP too; the scheduler's own accounting (schedstat) \
gives the responder's charon's time waiting for the CPU per trial."
                .to_string(),
            format!(
                "The lab's medium: the ends are kept apart by {}; 802.11b DCF at {} Mb/s, \
group-addressed frames and IBSS beacons at 1 Mb/s. {} A trial is left out of the means when the \
medium's lag (p99) exceeded {:.0} µs ({} of one 1500-octet frame's airtime).",
                match self.chain.reach {
                    Reach::Range => "the medium's hears matrix (out of radio range)",
                    Reach::Firewall =>
                        "an nftables rule on each node dropping frames from non-neighbours \
(seed 004's iptables arrangement)",
                },
                self.chain.mbps,
                {
                    let rt = results
                        .iter()
                        .filter(|r| r.metrics.contains_key("medium_realtime"))
                        .all(|r| r.metrics.get("medium_realtime") == Some(&Value::Bool(true)));
                    if rt {
                        "The medium's thread ran on CPU 0 under SCHED_FIFO (the air is not a \
program of any node), so it kept real time on a busy machine."
                    } else {
                        "The medium's thread could not run under SCHED_FIFO in some trials \
(see medium_realtime) and ran as an ordinary thread on CPU 0."
                    }
                },
                self.lag_bound_us(),
                self.lag_bound_fraction
            ),
        ];
        let loads: Vec<f64> = results
            .iter()
            .filter_map(|r| r.metric("host_load_1m"))
            .collect();
        if !loads.is_empty() {
            let (lo, hi) = loads
                .iter()
                .fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(*x), b.max(*x)));
            v.push(format!(
                "The machine's 1-minute load average during the trials: {lo:.2} to {hi:.2} on {} \
CPUs. Other programs on the machine take CPU time from the nodes' programs too, and make the \
trials vary.",
                crate::live::sched::online_cpus()
            ));
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(overrides: &[(&str, &str)]) -> RunOptions {
        RunOptions {
            live: true,
            overrides: overrides
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..RunOptions::default()
        }
    }

    fn all_installed(_: &str) -> Result<(), LiveError> {
        Ok(())
    }

    #[test]
    fn waiting_stops_at_an_interrupt_and_otherwise_runs_to_its_end() {
        let cal = crate::cost::Calibration::nominal();
        let mut env = TrialEnv::new(&cal);
        let t0 = Instant::now();
        assert!(wait_until(t0 + Duration::from_millis(60), &env));
        assert!(t0.elapsed() >= Duration::from_millis(60));
        env.interrupt = Some(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(
            true,
        )));
        let t1 = Instant::now();
        assert!(!wait_until(t1 + Duration::from_secs(30), &env));
        assert!(t1.elapsed() < Duration::from_secs(30));
    }

    #[test]
    fn the_plan_covers_baseline_and_both_figures() {
        let m = Multihop::new(&opts(&[])).unwrap();
        let plan = m.plan();
        // 2 figures × (1 + 5) points × 2 suites × 10 trials.
        assert_eq!(plan.len(), 240);
        assert_eq!(plan[0].label, "ikev1-relay-noload-t00");
        assert_eq!(plan[10].label, "ikev2-relay-noload-t00");
        assert!(plan.iter().any(|s| s.label == "ikev2-receiver-n-20-t09"));
        let labels: std::collections::BTreeSet<&str> =
            plan.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels.len(), plan.len());
        let q = Multihop::new(&RunOptions {
            quick: true,
            ..opts(&[])
        })
        .unwrap();
        assert_eq!(q.plan().len(), 6);
    }

    #[test]
    fn bad_input_is_refused_before_anything_starts() {
        let e = |o: &[(&str, &str)]| Multihop::new(&opts(o)).unwrap_err().0;
        assert!(e(&[("nice", "-21,0")]).contains("-21 is not a nice level"));
        assert!(e(&[("nice", "20")]).contains("-20 (highest priority) to 19"));
        assert!(e(&[("chain", "2")]).contains("3 to 50 nodes"));
        assert!(e(&[("load_on", "sender")]).contains("load_on"));
        assert!(e(&[("ike", "ikev3")]).contains("ike"));
        assert!(e(&[("hello", "0")]).contains("hello"));
        assert!(e(&[("colour", "blue")]).contains("no such parameter"));
        assert!(e(&[("stream_preset", "fastest")]).contains("x264 has"));
        let not_live = Multihop::new(&RunOptions::default()).unwrap_err().0;
        assert!(not_live.contains("runs only live"), "{not_live}");
        // A missing daemon is named with its Debian package.
        let no_babeld = |p: &str| -> Result<(), LiveError> {
            if p == "babeld" {
                Err(LiveError::MissingProgram {
                    program: p.into(),
                    package: sys::debian_package(p).into(),
                })
            } else {
                Ok(())
            }
        };
        let m = Multihop::new(&opts(&[])).unwrap();
        assert!(m.check_programs(&all_installed).is_ok());
        let e = m.check_programs(&no_babeld).unwrap_err().0;
        assert!(
            e.contains("babeld is not installed (Debian package: babeld"),
            "{e}"
        );
        let no_ffmpeg = |p: &str| -> Result<(), LiveError> {
            if p == "ffmpeg" {
                Err(LiveError::MissingProgram {
                    program: p.into(),
                    package: sys::debian_package(p).into(),
                })
            } else {
                Ok(())
            }
        };
        assert!(m.check_programs(&no_ffmpeg).is_err());
        // The busy loop needs no ffmpeg.
        let cpu = Multihop::new(&opts(&[("load", "cpu")])).unwrap();
        assert!(cpu.check_programs(&no_ffmpeg).is_ok());
    }

    fn result(label: &str, ike: &str, on: &str, nice: Option<i64>, setup: f64) -> TrialResult {
        let mut params = BTreeMap::new();
        params.insert("ike".to_string(), Value::from(ike));
        params.insert("load_on".to_string(), Value::from(on));
        params.insert("nice".to_string(), nice.map_or(Value::Null, Value::from));
        let mut r = TrialResult::new(&TrialSpec {
            index: 0,
            label: label.into(),
            seed: 0,
            params,
        });
        r.metrics.insert("used".into(), true.into());
        r.metrics.insert("established".into(), true.into());
        r.metrics.insert("valid".into(), true.into());
        r.metrics.insert("available".into(), true.into());
        r.metrics.insert("mode".into(), "tunnel".into());
        r.metrics.insert("setup_ms".into(), setup.into());
        r
    }

    /// The verdicts follow the figures: a receiver load above charon's
    /// priority that lengthens the setup and one below that does not make
    /// Figure 9's conclusion hold; a relay load that lengthens it makes
    /// Figure 8's fail.
    #[test]
    fn verdicts_follow_the_measured_medians() {
        let m = Multihop::new(&opts(&[("ike", "ikev2"), ("nice", "-20,19")])).unwrap();
        let mut rs = Vec::new();
        for (i, x) in [50.0, 52.0, 48.0].iter().enumerate() {
            rs.push(result(&format!("b{i}"), "ikev2", "relay", None, *x));
            rs.push(result(&format!("cb{i}"), "ikev2", "receiver", None, *x));
            rs.push(result(
                &format!("r{i}"),
                "ikev2",
                "relay",
                Some(-20),
                x + 1.0,
            ));
            rs.push(result(
                &format!("r19{i}"),
                "ikev2",
                "relay",
                Some(19),
                x - 1.0,
            ));
            rs.push(result(
                &format!("c{i}"),
                "ikev2",
                "receiver",
                Some(-20),
                x * 10.0,
            ));
            rs.push(result(
                &format!("c19{i}"),
                "ikev2",
                "receiver",
                Some(19),
                x + 2.0,
            ));
        }
        let v = m.verdicts(&rs);
        assert!(v[0].contains("Figure 8's conclusion holds"), "{v:?}");
        assert!(v[1].contains("Figure 9's conclusion holds"), "{v:?}");
        for r in rs.iter_mut().filter(|r| r.spec.label.starts_with('r')) {
            r.metrics.insert("setup_ms".into(), 200.0.into());
        }
        let v = m.verdicts(&rs);
        assert!(
            v[0].contains("Figure 8's conclusion does not hold"),
            "{v:?}"
        );
        assert!(v[0].contains("nice -20: 200.0 ms (x4.0)"), "{v:?}");
        let report = m.summarize(&rs);
        let fig9 = report.tables.iter().find(|t| t.name == "figure_9").unwrap();
        assert_eq!(fig9.rows.len(), 3);
        let col = |name: &str| fig9.column_index(name).unwrap();
        assert_eq!(fig9.rows[1][col("setup")], Value::Num(500.0));
        assert_eq!(fig9.rows[1][col("median")], Value::Num(500.0));
        assert_eq!(fig9.rows[1][col("lab")], Value::from("long"));
        assert_eq!(fig9.rows[2][col("lab")], Value::from("about the same"));
        assert_eq!(fig9.rows[1][col("seed 004 (Fig. 9)")], Value::from("long"));
        let plot = report.plots.iter().find(|p| p.name == "figure_9").unwrap();
        assert_eq!(plot.series.len(), 2);
        assert_eq!(class(1.9), "about the same");
        assert_eq!(class(2.0), "longer");
        assert_eq!(class(10.0), "long");
        assert_eq!(median(&[1.0, 2.0, 10.0]), Some(2.0));
        assert_eq!(median(&[1.0, 3.0]), Some(2.0));
        assert_eq!(median(&[]), None);
    }

    /// One trial slowed by something else on the machine (here 2 s
    /// among 50 ms) moves the mean but neither the ratio to the no-load
    /// time nor the verdict, which are taken on medians.
    #[test]
    fn one_slow_trial_does_not_move_a_verdict() {
        let m = Multihop::new(&opts(&[
            ("ike", "ikev2"),
            ("nice", "-20"),
            ("load_on", "relay"),
        ]))
        .unwrap();
        let mut rs = Vec::new();
        for (i, (base, loaded)) in [(50.0, 51.0), (52.0, 53.0), (48.0, 2000.0)]
            .into_iter()
            .enumerate()
        {
            rs.push(result(&format!("b{i}"), "ikev2", "relay", None, base));
            rs.push(result(
                &format!("r{i}"),
                "ikev2",
                "relay",
                Some(-20),
                loaded,
            ));
        }
        let v = m.verdicts(&rs);
        assert!(v[0].contains("Figure 8's conclusion holds"), "{v:?}");
        assert!(v[0].contains("nice -20: 53.0 ms (x1.1)"), "{v:?}");
        let report = m.summarize(&rs);
        let fig8 = report.tables.iter().find(|t| t.name == "figure_8").unwrap();
        let col = |name: &str| fig8.column_index(name).unwrap();
        assert_eq!(fig8.rows[1][col("setup")], Value::Num(2104.0 / 3.0));
        assert_eq!(fig8.rows[1][col("x no load")], Value::Num(53.0 / 50.0));
        assert_eq!(fig8.rows[1][col("lab")], Value::from("about the same"));
    }
}
