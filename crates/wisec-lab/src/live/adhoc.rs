//! A live ad hoc network: N nodes in a chain, each in a network namespace
//! of its own with a TAP device `wlan0`, joined by the simulator's 802.11
//! medium in real time as stations of one IBSS ([`crate::adhoc`]).
//!
//! ```text
//!   wisec-TAG-a          wisec-TAG-b          wisec-TAG-c
//!   wlan0 10.98.0.1 ~~~~ wlan0 10.98.0.2 ~~~~ wlan0 10.98.0.3
//!            <- in range ->       <- in range ->
//!            <-------- out of range (A, C) -------->
//! ```
//!
//! Two ways to keep the ends apart ([`Reach`]):
//!
//! - [`Reach::Range`]: the medium's who-hears-whom matrix; a node hears its
//!   neighbours in the chain and no one else, so frames between nodes two
//!   hops apart never arrive (and their transmissions are hidden from each
//!   other, as out-of-range stations are).
//! - [`Reach::Firewall`]: seed 004's own arrangement. Every node hears
//!   every other on the air, and a firewall rule inside each namespace
//!   drops what arrives from a node that is not a neighbour. The seed
//!   dropped the other end's IP packets with iptables (its OLSR ran over
//!   IPv4); Babel speaks IPv6 link-local, so the rule here matches the
//!   Ethernet source address in an nftables `netdev` ingress chain on
//!   `wlan0`, which drops IPv4, IPv6 and ARP alike.
//!
//! Every node has an address from 10.98.0.0/24 on `wlan0`, IPv4 forwarding
//! on, ICMP redirects off (a relay forwards out of the interface a packet
//! came in on, and must not tell the sender to go direct), and IPv6 on
//! `wlan0` only for the link-local address Babel runs over (no duplicate
//! address detection, no router solicitations). All of it is set inside
//! the namespaces; the host's own is never touched.

use super::medium::{
    self, Device, LiveCapture, MediumOptions, MediumReport, MediumThread, ThreadResult,
};
use super::net::{LiveNet, Netns};
use super::sys::{LiveError, Result};
use crate::adhoc::{IbssConfig, IbssNode, IbssStats};
use crate::pcap::RadioChannel;
use crate::phy::{PhyProfile, PhyTiming, Rate};
use crate::port::TapPort;
use crate::sim::{ChannelStats, MacConfig, MacStats, Simulator};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use wisec_wire::MacAddr;

/// How the nodes that are not neighbours are kept apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reach {
    /// Out of radio range: the medium does not carry their frames.
    Range,
    /// In range, with a firewall rule in each namespace (seed 004).
    Firewall,
}

impl Reach {
    /// The name used in parameters.
    pub fn name(self) -> &'static str {
        match self {
            Reach::Range => "range",
            Reach::Firewall => "firewall",
        }
    }

    /// The reach called `s`.
    pub fn from_name(s: &str) -> Option<Reach> {
        match s {
            "range" => Some(Reach::Range),
            "firewall" => Some(Reach::Firewall),
            _ => None,
        }
    }
}

/// A node of the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdhocNode {
    /// Node name (and namespace suffix).
    pub name: String,
    /// Its 802.11 (and `wlan0`) address.
    pub addr: MacAddr,
    /// Its IPv4 address.
    pub ip: Ipv4Addr,
}

/// Everything that defines a live ad hoc chain.
#[derive(Debug, Clone, PartialEq)]
pub struct AdhocConfig {
    /// The nodes, in chain order: the first and the last are the ends.
    pub nodes: Vec<AdhocNode>,
    /// How non-neighbours are kept apart.
    pub reach: Reach,
    /// The channel's PHY.
    pub phy: PhyProfile,
    /// The data rate of individually addressed frames.
    pub rate: Rate,
    /// dot11RTSThreshold of every station; `None`: no RTS/CTS.
    pub rts_threshold: Option<usize>,
    /// The stations send IBSS beacons.
    pub beacons: bool,
    /// Prefix length of the subnet on `wlan0`.
    pub prefix_len: u8,
    /// Seed of the medium's random draws.
    pub seed: u64,
}

/// The lab's ad hoc addresses: 02:1a:b0:00:04:NN.
pub fn node_addr(i: usize) -> MacAddr {
    MacAddr([0x02, 0x1a, 0xb0, 0x00, 0x04, (i + 1) as u8])
}

/// The names of a chain of `n`: `a`, then the relays (`b` when there is
/// one, else `b1`, `b2`, …), then `c`.
pub fn chain_names(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| match i {
            0 => "a".to_string(),
            _ if i + 1 == n => "c".to_string(),
            _ if n == 3 => "b".to_string(),
            _ => format!("b{i}"),
        })
        .collect()
}

impl AdhocConfig {
    /// A chain of `n` nodes (2 to 200) on 802.11b at `mbps` (1, 2, 5.5 or
    /// 11), out of range beyond their neighbours, on 10.98.0.0/24 (node i
    /// at .i+1), beaconing.
    pub fn chain(n: usize, mbps: f64) -> Result<AdhocConfig> {
        if !(2..=200).contains(&n) {
            return Err(LiveError::Config(format!(
                "nodes: {n}; a live ad hoc chain has 2 to 200"
            )));
        }
        let rate = Rate::from_mbps(mbps)
            .filter(|r| r.is_dsss())
            .ok_or_else(|| {
                LiveError::Config(format!("no 802.11b rate of {mbps} Mb/s (1, 2, 5.5 or 11)"))
            })?;
        Ok(AdhocConfig {
            nodes: chain_names(n)
                .into_iter()
                .enumerate()
                .map(|(i, name)| AdhocNode {
                    name,
                    addr: node_addr(i),
                    ip: Ipv4Addr::new(10, 98, 0, (i + 1) as u8),
                })
                .collect(),
            reach: Reach::Range,
            phy: PhyProfile::b(),
            rate,
            rts_threshold: None,
            beacons: true,
            prefix_len: 24,
            seed: 1,
        })
    }

    /// Whether nodes `i` and `j` (chain positions) are neighbours.
    pub fn neighbours(&self, i: usize, j: usize) -> bool {
        i.abs_diff(j) == 1
    }

    /// The position of node `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }

    /// Checks names and addresses before anything is created.
    pub fn validate(&self) -> Result<()> {
        if self.nodes.len() < 2 {
            return Err(LiveError::Config(
                "an ad hoc chain needs at least two nodes".into(),
            ));
        }
        let mut names = BTreeSet::new();
        let mut ips = BTreeSet::new();
        let mut macs = BTreeSet::new();
        let mask = u32::MAX
            .checked_shl(32 - u32::from(self.prefix_len.clamp(1, 32)))
            .unwrap_or(0);
        let net = u32::from(self.nodes[0].ip) & mask;
        for n in &self.nodes {
            super::net::check_node_name(&n.name)?;
            if !names.insert(n.name.as_str()) {
                return Err(LiveError::Config(format!(
                    "two nodes are called '{}'",
                    n.name
                )));
            }
            if !ips.insert(n.ip) {
                return Err(LiveError::Config(format!(
                    "address clash: {} is given to '{}' and to another node",
                    n.ip, n.name
                )));
            }
            if !n.ip.is_private() {
                return Err(LiveError::Config(format!(
                    "{}: {} is not a private address; the live lab uses private test ranges only",
                    n.name, n.ip
                )));
            }
            if u32::from(n.ip) & mask != net {
                return Err(LiveError::Config(format!(
                    "{}: {} is not in the chain's subnet {}/{}",
                    n.name,
                    n.ip,
                    Ipv4Addr::from(net),
                    self.prefix_len
                )));
            }
            if n.addr.is_group() || !macs.insert(n.addr.0) {
                return Err(LiveError::Config(format!(
                    "{}: {} is a group address or used twice",
                    n.name, n.addr
                )));
            }
        }
        if !self.phy.supports(self.rate) {
            return Err(LiveError::Config(format!(
                "the PHY does not have the rate {} Mb/s",
                self.phy.rate_mbps(self.rate)
            )));
        }
        Ok(())
    }

    /// The nftables ruleset of node `i` in [`Reach::Firewall`]: drop every
    /// frame whose Ethernet source is a node that is not a neighbour.
    pub fn firewall_rules(&self, i: usize) -> String {
        let others: Vec<String> = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i && !self.neighbours(i, *j))
            .map(|(_, n)| n.addr.to_string())
            .collect();
        let mut s = String::from(
            "# Seed 004: every node is in radio range of every other; what comes\n\
# from a node that is not a neighbour in the chain is dropped here.\n\
table netdev wisec_reach {\n\
\tchain wlan0_in {\n\
\t\ttype filter hook ingress device \"wlan0\" priority 0; policy accept;\n",
        );
        if !others.is_empty() {
            s.push_str(&format!(
                "\t\tether saddr {{ {} }} drop\n",
                others.join(", ")
            ));
        }
        s.push_str("\t}\n}\n");
        s
    }
}

/// What one medium run of the chain produced.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AdhocOutcome {
    /// The medium's own measurements (lag, CPU, frames).
    pub medium: MediumReport,
    /// Each node's link-layer counters, in chain order.
    pub nodes: Vec<IbssStats>,
    /// Each node's MAC counters.
    pub macs: Vec<MacStats>,
    /// The channel's counters.
    pub channel: ChannelStats,
    /// The channel capture, if one was written.
    pub pcap: Option<PathBuf>,
    /// The medium's thread ran under SCHED_FIFO.
    pub realtime: bool,
}

type Taps = Vec<tappers::linux::Tap>;
type MediumResult = ThreadResult<AdhocOutcome, Taps>;

/// A live ad hoc chain: its namespaces and devices, and the medium when it
/// runs.
pub struct LiveAdhoc {
    // Dropped in this order: the medium (stopped and joined), the
    // devices, then the network.
    running: Option<MediumThread<AdhocOutcome, Taps>>,
    taps: Option<Taps>,
    net: LiveNet,
    config: AdhocConfig,
    realtime: bool,
}

impl std::fmt::Debug for LiveAdhoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveAdhoc")
            .field("tag", &self.net.tag())
            .field("config", &self.config)
            .field("running", &self.running.is_some())
            .finish()
    }
}

impl LiveAdhoc {
    /// Creates the namespaces, devices, addresses and (for
    /// [`Reach::Firewall`]) the firewall rules of `config`, checked first;
    /// nothing is created if it is wrong. Logs and captures go to
    /// `run_dir` (a temporary directory if `None`).
    pub fn create(config: AdhocConfig, run_dir: Option<&Path>) -> Result<LiveAdhoc> {
        config.validate()?;
        if config.reach == Reach::Firewall {
            super::sys::find_program("nft")?;
        }
        let mut net = LiveNet::new(run_dir)?;
        let taps = build(&mut net, &config)?;
        Ok(LiveAdhoc {
            net,
            config,
            taps: Some(taps),
            running: None,
            realtime: false,
        })
    }

    /// The run's network (namespaces, processes).
    pub fn net(&self) -> &LiveNet {
        &self.net
    }

    /// The run's network, to start programs in it.
    pub fn net_mut(&mut self) -> &mut LiveNet {
        &mut self.net
    }

    /// The configuration.
    pub fn config(&self) -> &AdhocConfig {
        &self.config
    }

    /// The namespace of node `name`.
    pub fn netns(&self, name: &str) -> Option<&Netns> {
        self.net.netns(name)
    }

    /// Runs the medium's thread, whenever it starts, under the real-time
    /// scheduling policy SCHED_FIFO at the lowest priority (`chrt -f -p
    /// 1`), ahead of every ordinary process: the medium is the air, not a
    /// program of any node, and keeps real time on a busy machine. It needs
    /// a small part of one CPU; the kernel's real-time throttling keeps a
    /// share for everything else in any case. Where the policy cannot be
    /// set, the medium runs as an ordinary thread
    /// ([`AdhocOutcome::realtime`] says which).
    pub fn set_realtime(&mut self, on: bool) {
        self.realtime = on;
    }

    /// Whether the medium runs.
    pub fn running(&self) -> bool {
        self.running.is_some()
    }

    /// Starts the medium (new IBSS stations, new MAC state), with the
    /// channel capture in `pcap` if given, its thread on CPU `cpu` if
    /// given.
    pub fn start(&mut self, pcap: Option<&Path>, cpu: Option<usize>) -> Result<()> {
        if self.running.is_some() {
            return Err(LiveError::Config("the medium already runs".into()));
        }
        let taps = self
            .taps
            .take()
            .ok_or_else(|| LiveError::Config("the chain lost its devices".into()))?;
        let cfg = self.config.clone();
        let pcap = pcap.map(Path::to_path_buf);
        let realtime = self.realtime;
        self.running = Some(MediumThread::spawn(move |stop| {
            if let Some(c) = cpu {
                // Best effort: a machine with fewer CPUs runs it anywhere.
                let _ = pin_thread(c);
            }
            let rt = realtime && make_realtime().is_ok();
            run_chain(&cfg, taps, pcap, &stop).map(|(mut o, t)| {
                o.realtime = rt;
                (o, t)
            })
        })?);
        Ok(())
    }

    /// Stops the medium; what it measured. The devices stay, for the next
    /// [`LiveAdhoc::start`].
    pub fn stop(&mut self) -> Result<AdhocOutcome> {
        let r = self
            .running
            .take()
            .ok_or_else(|| LiveError::Config("the medium does not run".into()))?;
        match r.stop() {
            Ok((outcome, taps)) => {
                self.taps = Some(taps);
                Ok(outcome)
            }
            Err((e, taps)) => {
                self.taps = taps;
                Err(e)
            }
        }
    }

    /// Stops the medium if it runs, then removes everything the chain
    /// created.
    pub fn close(mut self) -> super::net::CleanupReport {
        if self.running.is_some() {
            let _ = self.stop();
        }
        self.taps = None;
        self.net.cleanup()
    }
}

/// Puts the calling thread under SCHED_FIFO at priority 1 (`chrt`).
fn make_realtime() -> Result<()> {
    let chrt = super::sys::find_program("chrt")?;
    let tid = nix::unistd::gettid().to_string();
    super::sys::run(std::process::Command::new(chrt).args(["-f", "-p", "1", &tid])).map(drop)
}

/// Pins the calling thread to CPU `cpu`.
pub fn pin_thread(cpu: usize) -> Result<()> {
    let mut set = nix::sched::CpuSet::new();
    set.set(cpu)
        .map_err(|e| LiveError::io(format!("CPU {cpu}"), std::io::Error::from(e)))?;
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set)
        .map_err(|e| LiveError::io(format!("pinning to CPU {cpu}"), std::io::Error::from(e)))
}

/// Creates the namespaces and devices of `c`.
fn build(net: &mut LiveNet, c: &AdhocConfig) -> Result<Vec<tappers::linux::Tap>> {
    let mut taps = Vec::new();
    for (i, n) in c.nodes.iter().enumerate() {
        let ns = net.add_namespace(&n.name)?;
        let tap = net.tap(&ns, "wlan0", n.addr)?;
        for (k, v) in [
            // A link-local address at once, and nothing else of IPv6's
            // start-up on the air.
            ("net/ipv6/conf/wlan0/accept_dad", "0"),
            ("net/ipv6/conf/wlan0/router_solicitations", "0"),
            ("net/ipv6/conf/wlan0/disable_ipv6", "0"),
            ("net/ipv4/ip_forward", "1"),
            ("net/ipv4/conf/all/send_redirects", "0"),
            ("net/ipv4/conf/wlan0/send_redirects", "0"),
            ("net/ipv4/conf/all/accept_redirects", "0"),
            ("net/ipv4/conf/wlan0/accept_redirects", "0"),
            ("net/ipv4/conf/all/rp_filter", "0"),
            ("net/ipv4/conf/wlan0/rp_filter", "0"),
        ] {
            net.sysctl(&ns, k, v)?;
        }
        net.add_addr(&ns, "wlan0", &format!("{}/{}", n.ip, c.prefix_len))?;
        if c.reach == Reach::Firewall {
            let file = net.run_dir().join(format!("nft-{}.conf", n.name));
            std::fs::write(&file, c.firewall_rules(i))
                .map_err(|e| LiveError::io(format!("writing {}", file.display()), e))?;
            net.exec(
                &ns,
                "nft",
                &["-f".to_string(), file.display().to_string()],
                &format!("nft-{}", n.name),
                Duration::from_secs(10),
            )?;
        }
        taps.push(tap);
    }
    Ok(taps)
}

/// The medium thread: builds the simulator, runs it, reads the results.
fn run_chain(
    c: &AdhocConfig,
    taps: Taps,
    pcap: Option<PathBuf>,
    stop: &Arc<AtomicBool>,
) -> MediumResult {
    let mut sim = Simulator::new(c.seed);
    let channel = sim.add_channel(c.phy.clone());
    let group_rate = c.phy.basic_rates.first().copied().unwrap_or(Rate::DSSS_1);
    let mut devices = Vec::new();
    let mut ids = Vec::new();
    for (n, tap) in c.nodes.iter().zip(taps) {
        let port = TapPort::shared();
        let mut cfg = IbssConfig::dsss(n.addr);
        cfg.beacons = c.beacons;
        cfg.group_rate = group_rate;
        cfg.cw_min = c.phy.cw_min();
        cfg.slot = c.phy.slot();
        let id = sim.add_node(IbssNode::new(cfg, Rc::clone(&port)));
        let mut mac = MacConfig::dcf(n.addr, c.rate);
        mac.rts_threshold = c.rts_threshold;
        let iface = sim.attach(id, channel, mac);
        if let Some(node) = sim.node_mut::<IbssNode>(id) {
            node.set_iface(iface);
        }
        ids.push((id, iface));
        devices.push(Device {
            name: format!("{}/wlan0", n.name),
            node: id,
            port,
            tap,
        });
    }
    if c.reach == Reach::Range {
        for i in 0..ids.len() {
            for j in i + 1..ids.len() {
                if !c.neighbours(i, j) {
                    sim.set_hidden(ids[i].1, ids[j].1, true);
                }
            }
        }
    }
    let give_back = |devices: Vec<Device>| devices.into_iter().map(|d| d.tap).collect::<Vec<_>>();
    let capture = match &pcap {
        Some(p) => match LiveCapture::create(p, RadioChannel::for_profile(&c.phy)) {
            Ok((cap, obs)) => {
                sim.set_observer(channel, obs);
                Some(cap)
            }
            Err(e) => return Err((e, give_back(devices))),
        },
        None => None,
    };
    let opts = MediumOptions {
        stop: Arc::clone(stop),
        ..MediumOptions::default()
    };
    let mut report = medium::run(&mut sim, &mut devices, &opts, &mut |_, _| {});
    if let Some(cap) = capture {
        match cap.finish() {
            Ok(n) => report.pcap_records = n,
            Err(e) => return Err((e, give_back(devices))),
        }
    }
    let outcome = AdhocOutcome {
        nodes: ids
            .iter()
            .map(|(id, _)| {
                sim.node::<IbssNode>(*id)
                    .map(IbssNode::stats)
                    .unwrap_or_default()
            })
            .collect(),
        macs: ids
            .iter()
            .map(|(_, i)| sim.mac_stats(*i).unwrap_or_default())
            .collect(),
        channel: sim.channel_stats(channel).unwrap_or_default(),
        pcap,
        medium: report,
        realtime: false,
    };
    match outcome.medium.device_error.clone() {
        Some(e) => Err((LiveError::Config(e), give_back(devices))),
        None => Ok((outcome, give_back(devices))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_are_named_and_addressed() {
        assert_eq!(chain_names(3), ["a", "b", "c"]);
        assert_eq!(chain_names(5), ["a", "b1", "b2", "b3", "c"]);
        let c = AdhocConfig::chain(4, 11.0).unwrap();
        assert_eq!(c.nodes[3].ip, Ipv4Addr::new(10, 98, 0, 4));
        assert!(c.neighbours(1, 2) && !c.neighbours(0, 2) && !c.neighbours(1, 1));
        assert!(c.validate().is_ok());
        assert!(AdhocConfig::chain(1, 11.0).is_err());
        let e = AdhocConfig::chain(3, 54.0).unwrap_err().to_string();
        assert!(e.contains("802.11b"), "{e}");
        let mut bad = c.clone();
        bad.nodes[2].ip = bad.nodes[0].ip;
        assert!(bad.validate().unwrap_err().to_string().contains("clash"));
        let mut public = c.clone();
        public.nodes[1].ip = Ipv4Addr::new(8, 8, 8, 8);
        assert!(public.validate().is_err());
    }

    #[test]
    fn the_firewall_drops_only_non_neighbours() {
        let c = AdhocConfig::chain(4, 11.0).unwrap();
        let a = c.firewall_rules(0);
        assert!(
            a.contains(&format!("{{ {}, {} }} drop", node_addr(2), node_addr(3))),
            "{a}"
        );
        assert!(!a.contains(&node_addr(1).to_string()));
        let b = c.firewall_rules(1);
        assert!(b.contains(&format!("{{ {} }} drop", node_addr(3))), "{b}");
        assert!(b.contains("hook ingress device \"wlan0\""));
    }
}
