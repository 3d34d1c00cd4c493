//! Seed 004's network, live: an ad hoc chain ([`super::adhoc`]) routed by
//! babeld ([`super::babel`]), with strongSwan on its two ends
//! ([`super::ipsec`]) and a background load on any node
//! ([`super::load`]), each node's programs on one CPU
//! ([`super::sched`]).
//!
//! The first node (`a`) initiates the secure connection to the last (`c`);
//! the nodes between relay. `a` requires protection for what it sends to
//! `c`: an nftables rule in its namespace drops every packet for `c` on
//! `wlan0` that is not charon's own (marked) IKE or ESP, so data waiting
//! for the connection never crosses the air in the clear.
//!
//! # What a shared kernel means here
//!
//! The nodes are namespaces of one Linux kernel. Their programs (babeld,
//! charon, the load) are processes that can be pinned to a CPU and given
//! nice levels as on the seed's laptops, but the kernel's packet work is
//! not theirs: a frame the medium delivers to a node is written into its
//! TAP device by the medium's thread, and the kernel receives it, routes
//! it and (on a relay) forwards it out of the relay's TAP in softirq
//! context on the CPU of that write, not on the relay's CPU. A relay's
//! forwarding therefore never competes with a load pinned to the relay,
//! much as on the seed's relay, where forwarding ran in interrupt context
//! above every process priority. What does compete with a node's load is
//! what runs as the node's processes: charon (IKE and, with
//! kernel-libipsec, the ESP processing too) and babeld.

use super::adhoc::{AdhocConfig, AdhocOutcome, LiveAdhoc, Reach};
use super::babel::{self, BabelSettings};
use super::ipsec::{self, Charon, IkeSuite, KeyType, Mode, FWMARK};
use super::load::{self, LoadKind, Probe, ProbeResult, StreamSettings, UdpSink};
use super::net::{LiveNet, Netns, ProcId};
use super::sched::{self, CpuGroups, SchedStat};
use super::sys::{find_program, LiveError, Result};
use crate::ipsec_trace::End;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};
use wisec_wire::MacAddr;

/// The UDP port of the data that waits for the secure connection.
pub const PROBE_PORT: u16 = 7777;

/// How the chain is built and run.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainSettings {
    /// Nodes in the chain (at least 3: two ends and a relay).
    pub nodes: usize,
    /// How the ends are kept apart.
    pub reach: Reach,
    /// 802.11b data rate, Mb/s.
    pub mbps: f64,
    /// RTS/CTS before every data frame.
    pub rts: bool,
    /// IBSS beacons.
    pub beacons: bool,
    /// babeld's settings.
    pub babel: BabelSettings,
    /// The certificates' keys.
    pub key: KeyType,
    /// charon's nice level (seed 004's pluto ran at 10).
    pub charon_nice: i32,
    /// Pin each node's programs to one CPU.
    pub pin: bool,
    /// The medium's seed.
    pub seed: u64,
    /// How long babeld may take to converge.
    pub converge_timeout: Duration,
    /// The medium's thread under SCHED_FIFO ([`LiveAdhoc::set_realtime`]).
    pub medium_realtime: bool,
}

impl Default for ChainSettings {
    /// Three nodes out of each other's range at 11 Mb/s, beacons, Babel
    /// hellos every second, RSA-2048 certificates, charon at nice 10,
    /// pinned.
    fn default() -> ChainSettings {
        ChainSettings {
            nodes: 3,
            reach: Reach::Range,
            mbps: 11.0,
            rts: false,
            beacons: true,
            babel: BabelSettings { hello_s: 1.0 },
            key: KeyType::Rsa2048,
            charon_nice: 10,
            pin: true,
            seed: 1,
            converge_timeout: Duration::from_secs(60),
            medium_realtime: true,
        }
    }
}

/// The programs a chain runs, checked before anything starts.
pub fn required_programs(loads: &[LoadKind]) -> Vec<&'static str> {
    let mut v = vec![
        "ip", "babeld", "charon", "swanctl", "openssl", "unshare", "mount", "sh", "nft", "taskset",
        "nice",
    ];
    for l in loads {
        for p in l.programs() {
            if !v.contains(p) {
                v.push(p);
            }
        }
    }
    v
}

impl ChainSettings {
    /// Checks the settings (before anything is created).
    pub fn validate(&self) -> Result<()> {
        if self.nodes < 3 {
            return Err(LiveError::Config(format!(
                "nodes: {}; a multi-hop chain needs at least 3 (two ends and a relay)",
                self.nodes
            )));
        }
        if !sched::NICE_RANGE.contains(&self.charon_nice) {
            return Err(LiveError::Config(format!(
                "charon_nice: {}; Linux has -20 to 19",
                self.charon_nice
            )));
        }
        self.babel.validate()?;
        AdhocConfig::chain(self.nodes, self.mbps)?;
        Ok(())
    }
}

/// A running load.
#[derive(Debug, Clone)]
pub struct RunningLoad {
    /// The loaded node's position.
    pub node: usize,
    /// What it runs.
    pub kind: LoadKind,
    /// Its nice level.
    pub nice: i32,
    /// The process.
    pub proc: ProcId,
    /// Its process id.
    pub pid: u32,
}

/// What one establishment of the secure connection saw, apart from the
/// capture.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Establishment {
    /// swanctl reported the CHILD_SA established.
    pub established: bool,
    /// From just before `swanctl --initiate` to its return, ms.
    pub initiate_ms: f64,
    /// From the same start to the first data datagram at the responder.
    pub first_data_ms: Option<f64>,
    /// swanctl's last lines, or its error.
    pub output: String,
    /// Data datagrams sent while waiting (most dropped before the
    /// connection existed).
    pub probes_sent: u64,
}

/// Seed 004's network, live.
pub struct SecureChain {
    // Dropped in this order: the sink's socket, the network (which stops
    // every program), then the programs' control groups.
    sink: Option<UdpSink>,
    adhoc: LiveAdhoc,
    settings: ChainSettings,
    babeld: Vec<(ProcId, u32)>,
    charons: Vec<Charon>,
    convergence: Duration,
    load: Option<RunningLoad>,
    stream: StreamSettings,
    cpus: Vec<Option<usize>>,
    medium_cpu: Option<usize>,
    suite: Option<(IkeSuite, Mode)>,
    /// Each node's control group (its `cgroup.procs`), if the machine
    /// lets the run make them.
    node_groups: Vec<Option<PathBuf>>,
    groups: CpuGroups,
}

impl std::fmt::Debug for SecureChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecureChain")
            .field("adhoc", &self.adhoc)
            .field("convergence", &self.convergence)
            .field("load", &self.load)
            .field("cpus", &self.cpus)
            .finish_non_exhaustive()
    }
}

impl SecureChain {
    /// Builds the chain, starts the medium (its capture in `pcap`), starts
    /// babeld everywhere and waits until the ends have routes to each
    /// other, makes the certificates, and starts charon on the two ends
    /// with no connection loaded yet. `interrupt` ends waits early.
    pub fn create(
        settings: ChainSettings,
        run_dir: Option<&Path>,
        pcap: Option<&Path>,
        interrupt: Option<Arc<AtomicBool>>,
    ) -> Result<SecureChain> {
        settings.validate()?;
        super::sys::require_privileges()?;
        super::sys::require_programs(&required_programs(&[]))?;
        let mut cfg = AdhocConfig::chain(settings.nodes, settings.mbps)?;
        cfg.reach = settings.reach;
        cfg.beacons = settings.beacons;
        cfg.rts_threshold = settings.rts.then_some(0);
        cfg.seed = settings.seed;
        let mut adhoc = LiveAdhoc::create(cfg, run_dir)?;
        if let Some(f) = interrupt {
            adhoc.net_mut().set_interrupt(f);
        }
        sched::remove_leftover_groups();
        let mut groups = CpuGroups::new();
        let mut node_groups = Vec::new();
        for n in &adhoc.config().nodes {
            let ns = adhoc
                .netns(&n.name)
                .ok_or_else(|| LiveError::Config(format!("no namespace for {}", n.name)))?;
            node_groups.push(groups.create(&ns.name)?);
        }
        adhoc.set_realtime(settings.medium_realtime);
        let n = settings.nodes;
        let mut chain = SecureChain {
            sink: None,
            adhoc,
            settings,
            babeld: Vec::new(),
            charons: Vec::new(),
            convergence: Duration::ZERO,
            load: None,
            stream: StreamSettings::default(),
            cpus: vec![None; n],
            medium_cpu: None,
            suite: None,
            node_groups,
            groups,
        };
        chain.cpus = chain.placement(Some(n - 1));
        chain.medium_cpu = chain.cpus[0];
        chain.adhoc.start(pcap, chain.medium_cpu)?;
        chain.start_babel()?;
        chain.start_ipsec()?;
        Ok(chain)
    }

    fn start_babel(&mut self) -> Result<()> {
        let nodes = self.adhoc.config().nodes.clone();
        let t0 = Instant::now();
        for (i, node) in nodes.iter().enumerate() {
            let ns = self.ns(i)?;
            let prefix = sched::wrap(self.cpus[i], None)?;
            let id = babel::start(
                self.adhoc.net_mut(),
                &ns,
                &node.name,
                &self.settings.babel,
                &prefix,
            )?;
            let pid = self.adhoc.net().pid(id).unwrap_or(0);
            self.adopt(i, pid)?;
            self.babeld.push((id, pid));
        }
        // Every node has a route to every node it cannot hear.
        let mut wanted = Vec::new();
        for i in 0..nodes.len() {
            let dsts = (0..nodes.len())
                .filter(|j| *j != i && !self.adhoc.config().neighbours(i, *j))
                .map(|j| nodes[j].ip)
                .collect();
            wanted.push((self.ns(i)?, dsts));
        }
        babel::wait_converged(self.adhoc.net(), &wanted, self.settings.converge_timeout)?;
        self.convergence = t0.elapsed();
        Ok(())
    }

    fn start_ipsec(&mut self) -> Result<()> {
        let n = self.settings.nodes;
        let (a, c) = (self.node(0).clone(), self.node(n - 1).clone());
        let dir = self.adhoc.net().run_dir().to_path_buf();
        let pki = dir.join("ipsec-pki");
        ipsec::make_pki(&pki, &[(&a.name, a.ip), (&c.name, c.ip)], self.settings.key)?;
        for (i, me, peer) in [(0, &a, &c), (n - 1, &c, &a)] {
            let ns = self.ns(i)?;
            let prefix = sched::wrap(self.cpus[i], Some(self.settings.charon_nice))?;
            let home = dir.join(format!("ipsec-{}", me.name));
            let ch = Charon::start(
                self.adhoc.net_mut(),
                &ns,
                &me.name,
                &home,
                me.ip,
                peer.ip,
                &pki,
                &prefix,
            )?;
            self.adopt(i, ch.pid)?;
            self.charons.push(ch);
        }
        // The initiator sends nothing to the responder in the clear.
        let rules = format!(
            "# {a} requires protection for its traffic to {c}: only charon's own\n\
# (marked) IKE and ESP leave for it on wlan0.\n\
table inet wisec_ipsec {{\n\
\tchain out {{\n\
\t\ttype filter hook output priority 0; policy accept;\n\
\t\toifname \"wlan0\" ip daddr {cip} meta mark != {FWMARK:#x} drop\n\
\t}}\n\
}}\n",
            a = a.name,
            c = c.name,
            cip = c.ip
        );
        let file = dir.join(format!("nft-ipsec-{}.conf", a.name));
        std::fs::write(&file, rules)
            .map_err(|e| LiveError::io(format!("writing {}", file.display()), e))?;
        let ns = self.ns(0)?;
        self.adhoc.net_mut().exec(
            &ns,
            "nft",
            &["-f".to_string(), file.display().to_string()],
            &format!("nft-ipsec-{}", a.name),
            Duration::from_secs(10),
        )?;
        Ok(())
    }

    /// Moves a program just started on node `i` into the node's control
    /// group, if there are node groups.
    fn adopt(&self, i: usize, pid: u32) -> Result<()> {
        match self.node_groups.get(i).and_then(Option::as_deref) {
            Some(procs) if pid != 0 => CpuGroups::adopt(procs, pid),
            _ => Ok(()),
        }
    }

    /// Where each node's programs run when node `busy` (if any) carries
    /// the load: the busy node alone on CPU 1, every other node and the
    /// medium on CPU 0; everything on CPU 0 on a one-CPU machine; nowhere
    /// in particular when pinning is off.
    pub fn placement(&self, busy: Option<usize>) -> Vec<Option<usize>> {
        let n = self.settings.nodes;
        if !self.settings.pin {
            return vec![None; n];
        }
        let two = sched::online_cpus() >= 2;
        (0..n)
            .map(|i| Some(usize::from(two && busy == Some(i))))
            .collect()
    }

    /// Moves the nodes' daemons to the CPUs of [`SecureChain::placement`]
    /// for `busy`.
    pub fn place(&mut self, busy: Option<usize>) -> Result<()> {
        let cpus = self.placement(busy);
        for (i, cpu) in cpus.iter().enumerate() {
            let Some(cpu) = *cpu else { continue };
            if let Some((_, pid)) = self.babeld.get(i) {
                sched::pin_process(*pid, cpu)?;
            }
            for ch in self.charons.iter().filter(|c| c.node == self.node(i).name) {
                sched::pin_process(ch.pid, cpu)?;
            }
        }
        self.cpus = cpus;
        Ok(())
    }

    /// The CPU of each node's programs now.
    pub fn cpus(&self) -> &[Option<usize>] {
        &self.cpus
    }

    /// The medium's CPU.
    pub fn medium_cpu(&self) -> Option<usize> {
        self.medium_cpu
    }

    /// How long babeld took to give every node its routes.
    pub fn convergence(&self) -> Duration {
        self.convergence
    }

    /// The settings.
    pub fn settings(&self) -> &ChainSettings {
        &self.settings
    }

    /// Node `i` of the chain.
    pub fn node(&self, i: usize) -> &super::adhoc::AdhocNode {
        &self.adhoc.config().nodes[i]
    }

    /// The namespace of node `i`.
    pub fn ns(&self, i: usize) -> Result<Netns> {
        let name = &self.node(i).name;
        self.adhoc
            .netns(name)
            .cloned()
            .ok_or_else(|| LiveError::Config(format!("no namespace for {name}")))
    }

    /// The run's network.
    pub fn net(&self) -> &LiveNet {
        self.adhoc.net()
    }

    /// The run's network, to start programs in it.
    pub fn net_mut(&mut self) -> &mut LiveNet {
        self.adhoc.net_mut()
    }

    /// The initiator's end.
    pub fn initiator(&self) -> End {
        let n = self.node(0);
        End {
            ip: n.ip,
            mac: n.addr,
        }
    }

    /// The responder's end.
    pub fn responder(&self) -> End {
        let n = self.node(self.settings.nodes - 1);
        End {
            ip: n.ip,
            mac: n.addr,
        }
    }

    /// The responder's neighbour on the path.
    pub fn last_hop(&self) -> MacAddr {
        self.node(self.settings.nodes - 2).addr
    }

    /// The two charons: initiator, responder.
    pub fn charons(&self) -> (&Charon, &Charon) {
        (&self.charons[0], &self.charons[1])
    }

    /// charon's process id on node `i`, if it runs one.
    pub fn charon_pid(&self, i: usize) -> Option<u32> {
        let name = &self.node(i).name;
        self.charons.iter().find(|c| &c.node == name).map(|c| c.pid)
    }

    /// Why charon cannot run `suite`: the algorithms it lacks (from the
    /// initiator's `swanctl --list-algs`), or `None`.
    pub fn suite_unavailable(&mut self, suite: &IkeSuite) -> Result<Option<String>> {
        let c = self.charons[0].clone();
        let algs = c.algorithms(self.adhoc.net_mut())?;
        Ok(ipsec::missing_algorithms(suite, &algs))
    }

    /// Loads `suite` in `mode` on both ends.
    pub fn use_suite(&mut self, suite: &IkeSuite, mode: Mode) -> Result<()> {
        if self.suite.as_ref() == Some(&(suite.clone(), mode)) {
            return Ok(());
        }
        self.teardown(Duration::from_secs(60))?;
        for c in self.charons.clone() {
            c.load(self.adhoc.net_mut(), suite, mode)?;
        }
        self.suite = Some((suite.clone(), mode));
        Ok(())
    }

    /// The suite and mode loaded.
    pub fn suite(&self) -> Option<&(IkeSuite, Mode)> {
        self.suite.as_ref()
    }

    /// Transport mode where kernel-libipsec allows it, tunnel mode
    /// otherwise: tries a transport-mode CHILD_SA of `suite` once and
    /// falls back. The mode to use, and why transport did not work (from
    /// charon's logs) if it did not.
    pub fn choose_mode(&mut self, suite: &IkeSuite) -> Result<(Mode, Option<String>)> {
        self.use_suite(suite, Mode::Transport)?;
        let before: Vec<usize> = self
            .charons
            .iter()
            .map(|c| c.log(self.net()).len())
            .collect();
        let e = self.establish(Duration::from_millis(20), Duration::from_secs(20))?;
        self.teardown(Duration::from_secs(60))?;
        if e.established {
            return Ok((Mode::Transport, None));
        }
        let mut why: Vec<String> = Vec::new();
        for (c, from) in self.charons.iter().zip(before) {
            let log = c.log(self.net());
            let new = log.get(from..).unwrap_or("");
            // The most telling line first: kernel-libipsec's own word.
            let line = [
                "unsupported mode",
                "failed to create SAD entry",
                "unable to install",
            ]
            .iter()
            .find_map(|k| new.lines().find(|l| l.contains(k)));
            if let Some(l) = line {
                why.push(format!("{}: {}", c.node, l.trim()));
            }
        }
        let why = if why.is_empty() {
            format!("swanctl --initiate: {}", e.output)
        } else {
            why.join("; ")
        };
        self.use_suite(suite, Mode::Tunnel)?;
        Ok((Mode::Tunnel, Some(why)))
    }

    /// Opens the secure connection with data waiting for it: starts
    /// datagrams from the initiator to the responder every `probe_every`
    /// (dropped until the connection exists), runs `swanctl --initiate` on
    /// the initiator, and waits for the first datagram at the responder.
    /// The connection stays up; [`SecureChain::teardown`] closes it.
    pub fn establish(&mut self, probe_every: Duration, timeout: Duration) -> Result<Establishment> {
        let (from, to) = (self.ns(0)?, self.ns(self.settings.nodes - 1)?);
        let to_ip = self.responder().ip;
        let probe = Probe::start(
            &from,
            &to,
            to_ip,
            PROBE_PORT,
            probe_every,
            timeout + Duration::from_secs(5),
        )?;
        let t0 = probe.started();
        let c = self.charons[0].clone();
        let r = c.initiate(self.adhoc.net_mut(), timeout);
        let initiate_ms = t0.elapsed().as_secs_f64() * 1e3;
        let (established, output) = match &r {
            Ok(out) => (
                out.contains("initiate completed successfully"),
                out.lines().rev().take(2).collect::<Vec<_>>().join(" | "),
            ),
            Err(LiveError::Interrupted) => {
                let _ = probe.finish(true);
                return Err(LiveError::Interrupted);
            }
            Err(e) => (false, e.to_string()),
        };
        let p: ProbeResult = probe.finish(!established)?;
        Ok(Establishment {
            established,
            initiate_ms,
            first_data_ms: p.first_arrival.map(|d| d.as_secs_f64() * 1e3),
            output,
            probes_sent: p.sent,
        })
    }

    /// Closes the secure connection, if any: the initiator sends its
    /// DELETE and forgets the SA; the responder gets a moment to act on
    /// the DELETE, then is told to forget the SA too. Waits up to
    /// `timeout` until the responder has none (a responder starved by a
    /// load takes long); an error after that.
    pub fn teardown(&mut self, timeout: Duration) -> Result<()> {
        let (a, c) = (self.charons[0].clone(), self.charons[1].clone());
        a.terminate(self.adhoc.net_mut(), true)?;
        let t0 = Instant::now();
        let mut forced = false;
        while !c.list_sas(self.adhoc.net_mut())?.trim().is_empty() {
            if self.net().interrupted() {
                return Err(LiveError::Interrupted);
            }
            if !forced && t0.elapsed() >= Duration::from_secs(2) {
                c.terminate(self.adhoc.net_mut(), true)?;
                forced = true;
            }
            if t0.elapsed() >= timeout {
                return Err(LiveError::Config(format!(
                    "the responder {} still holds the IKE SA {} s after the initiator closed it",
                    c.node,
                    timeout.as_secs_f64()
                )));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// Starts a load of `kind` at nice `nice` on node `node` (pinned to its
    /// CPU), streaming to the initiator; stops any load before it.
    pub fn start_load(
        &mut self,
        node: usize,
        kind: LoadKind,
        nice: i32,
        stream: &StreamSettings,
    ) -> Result<()> {
        self.stop_load();
        for p in kind.programs() {
            find_program(p)?;
        }
        self.stream = stream.clone();
        let ns = self.ns(node)?;
        let name = self.node(node).name.clone();
        let dest = self.initiator().ip;
        if kind == LoadKind::Stream && self.sink.is_none() {
            let a = self.ns(0)?;
            self.sink = Some(UdpSink::start(&a, dest, stream.port)?);
        }
        let prefix = sched::wrap(self.cpus[node], Some(nice))?;
        let proc = load::start(
            self.adhoc.net_mut(),
            &ns,
            &name,
            kind,
            stream,
            dest,
            &prefix,
        )?;
        let pid = self.adhoc.net().pid(proc).unwrap_or(0);
        self.adopt(node, pid)?;
        self.load = Some(RunningLoad {
            node,
            kind,
            nice,
            proc,
            pid,
        });
        Ok(())
    }

    /// The running load.
    pub fn load(&self) -> Option<&RunningLoad> {
        self.load.as_ref()
    }

    /// Whether the load still runs (a load that ended early is an error
    /// its log explains).
    pub fn load_running(&mut self) -> bool {
        match self.load.as_ref().map(|l| l.proc) {
            Some(p) => self.adhoc.net_mut().running(p),
            None => true,
        }
    }

    /// The load's log so far.
    pub fn load_log(&self) -> String {
        self.load
            .as_ref()
            .and_then(|l| self.net().log_path(l.proc))
            .and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_default()
    }

    /// Stops the load, if one runs.
    pub fn stop_load(&mut self) {
        if let Some(l) = self.load.take() {
            self.adhoc.net_mut().stop(l.proc);
        }
    }

    /// Datagrams and octets of the stream the initiator received so far.
    pub fn stream_received(&self) -> (u64, u64) {
        self.sink.as_ref().map_or((0, 0), UdpSink::counts)
    }

    /// The CPU seconds the load has used so far (its process group, with
    /// the programs of it that have ended).
    pub fn load_cpu_s(&self) -> Option<f64> {
        self.load.as_ref().map(|l| sched::group_cpu_s(l.pid))
    }

    /// What the scheduler gave the load's leader and each charon so far.
    pub fn sched(&self) -> (Option<SchedStat>, SchedStat, SchedStat) {
        (
            self.load.as_ref().map(|l| SchedStat::of(l.pid)),
            SchedStat::of(self.charons[0].pid),
            SchedStat::of(self.charons[1].pid),
        )
    }

    /// Starts the medium anew with its channel capture in `pcap` (or
    /// none); what the previous medium run measured. The medium stops for
    /// the moment it takes to start the next simulator: frames that arrive
    /// from the nodes meanwhile wait in their TAP devices, and only what
    /// was inside the old simulator (a frame or two in a MAC) is lost, so
    /// routing and neighbour entries live on as with a continuous channel.
    pub fn switch_medium(&mut self, pcap: Option<&Path>) -> Result<Option<AdhocOutcome>> {
        let before = if self.adhoc.running() {
            Some(self.adhoc.stop()?)
        } else {
            None
        };
        self.adhoc.start(pcap, self.medium_cpu)?;
        Ok(before)
    }

    /// The run directory.
    pub fn run_dir(&self) -> PathBuf {
        self.net().run_dir().to_path_buf()
    }

    /// Pings `dest` from node `from`: `count` echo requests 0.2 s apart.
    pub fn ping(
        &mut self,
        from: usize,
        dest: Ipv4Addr,
        count: u32,
        log: &str,
    ) -> Result<super::tools::PingResult> {
        let ns = self.ns(from)?;
        super::tools::ping(
            self.adhoc.net_mut(),
            &ns,
            dest,
            count,
            Duration::from_millis(200),
            56,
            log,
        )
    }

    /// Whether babeld has given node `from` a route to `dest` (now).
    pub fn has_route(&self, from: usize, dest: Ipv4Addr) -> Result<bool> {
        let ns = self.ns(from)?;
        Ok(babel::routes(self.net(), &ns)?
            .iter()
            .any(|r| r.dst == dest))
    }

    /// Whether each node's programs run in a control group of their own.
    pub fn node_groups(&self) -> bool {
        self.groups.available()
    }

    /// Stops everything and removes what the run created.
    pub fn close(mut self) -> super::net::CleanupReport {
        self.stop_load();
        self.sink = None;
        let mut r = self.adhoc.close();
        r.failures.extend(self.groups.remove_all());
        r
    }
}
