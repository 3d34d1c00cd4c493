//! A live BSS: an access point, wireless stations and wired hosts, each in
//! a network namespace of its own, joined by the simulator's medium in
//! real time.
//!
//! ```text
//!   wisec-TAG-sta1            wisec-TAG-ap                       wisec-TAG-server
//!   wlan0 (TAP) ~~~ medium ~~~ [AP node] -- wired -- ds0 (TAP)     eth0 (veth)
//!     10.99.0.11                                  br0 --- server ---- 10.99.0.1
//!                                              10.99.0.254
//! ```
//!
//! Each station's `wlan0` is a TAP device whose hardware address is the
//! station's 802.11 address; the wisec process reads its Ethernet frames
//! and the station node ([`StaNode`]) carries them over the air in real,
//! protected 802.11 frames after a real association and 4-way handshake.
//! The AP node bridges them to its wired port, a simulated gigabit link to
//! the TAP `ds0` in the AP's namespace, where a Linux bridge `br0` joins it
//! to one veth pair per wired host (the bridge port in the AP's namespace
//! is named after the host). Addresses come from 10.99.0.0/24 by default,
//! inside the namespaces only.

use super::medium::{
    self, Datagram, Device, Endpoint, LiveCapture, MediumOptions, MediumReport, Snapshot,
};
use super::net::{LiveNet, Netns};
use super::sys::{LiveError, Result};
use crate::bss::{ApNode, LinkStats, StaNode, StaPhase, BSSID};
use crate::cost::{Calibration, DeviceProfile, Security};
use crate::net::Traffic;
use crate::pcap::RadioChannel;
use crate::phy::{PhyProfile, Rate};
use crate::port::{PortStats, TapBridge, TapPort};
use crate::rng::derive_seed;
use crate::sim::{BlockAckConfig, ChannelStats, MacConfig, MacStats, Simulator};
use crate::time::Time;
use crate::wired::WiredConfig;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::net::Ipv4Addr;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use wisec_wire::MacAddr;

/// The AP's node name (and namespace suffix).
pub const AP_NAME: &str = "ap";
/// The hardware address of the AP's distribution-system TAP.
pub const DS_MAC: MacAddr = MacAddr([0x02, 0x1a, 0xb0, 0x00, 0x00, 0xfe]);

/// A wireless station.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StationDef {
    /// Node name.
    pub name: String,
    /// Its 802.11 (and `wlan0`) address.
    pub addr: MacAddr,
    /// Its IPv4 address.
    pub ip: Ipv4Addr,
}

/// A wired host behind the AP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostDef {
    /// Node name.
    pub name: String,
    /// Its `eth0` address.
    pub mac: MacAddr,
    /// Its IPv4 address.
    pub ip: Ipv4Addr,
}

/// Everything that defines a live BSS.
#[derive(Debug, Clone, PartialEq)]
pub struct BssConfig {
    /// The link's security.
    pub security: Security,
    /// The channel's PHY.
    pub phy: PhyProfile,
    /// The data rate of every frame.
    pub rate: Rate,
    /// A-MPDU under BlockAck on every interface (HT PHY only).
    pub block_ack: Option<BlockAckConfig>,
    /// dot11RTSThreshold of every interface; `None`: no RTS/CTS.
    pub rts_threshold: Option<usize>,
    /// The stations.
    pub stations: Vec<StationDef>,
    /// The wired hosts.
    pub hosts: Vec<HostDef>,
    /// Pairs of nodes (by name; the AP is [`AP_NAME`]) that do not hear
    /// each other.
    pub hidden: Vec<(String, String)>,
    /// Frame loss from one node to another (by name), 0 to 1.
    pub loss: Vec<(String, String, f64)>,
    /// The AP's device profile (crypto cost).
    pub ap_profile: DeviceProfile,
    /// The stations' device profile.
    pub sta_profile: DeviceProfile,
    /// The AP's address on the wired side (on `br0`).
    pub ap_ip: Ipv4Addr,
    /// Prefix length of the lab's subnet.
    pub prefix_len: u8,
    /// The AP's wired link to the distribution system.
    pub wired: WiredConfig,
    /// Seed of the handshakes' nonces and the medium's random draws.
    pub seed: u64,
    /// WPA2-Enterprise (IEEE 802.1X with a RADIUS server) instead of a
    /// passphrase; `None`: PSK (or no keys at all).
    pub enterprise: Option<EnterpriseConfig>,
}

/// WPA2-Enterprise: the AP's RADIUS server and authenticator timers. The
/// stations' EAP peer is a program on their TAP (wpa_supplicant's wired
/// driver); the MSK it derives reaches the station's 4-way supplicant
/// through [`LiveBss::msk_sender`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnterpriseConfig {
    /// The RADIUS authentication server (a wired host's address).
    pub server: std::net::SocketAddrV4,
    /// The shared secret between the AP and the server.
    pub secret: String,
    /// How long the AP waits for the server before sending an
    /// Access-Request again, ms.
    pub server_timeout_ms: u64,
    /// Transmissions of an Access-Request before the AP gives up.
    pub server_tries: u8,
}

impl EnterpriseConfig {
    /// A server at `server` with `secret` and hostapd's RADIUS timers
    /// (3 s, 3 transmissions).
    pub fn new(server: std::net::SocketAddrV4, secret: &str) -> EnterpriseConfig {
        EnterpriseConfig {
            server,
            secret: secret.to_string(),
            server_timeout_ms: 3000,
            server_tries: 3,
        }
    }
}

/// The station addresses of the lab: 02:1a:b0:00:01:NN.
pub fn station_addr(i: usize) -> MacAddr {
    MacAddr([0x02, 0x1a, 0xb0, 0x00, 0x01, (i + 1) as u8])
}

/// The wired hosts' addresses: 02:1a:b0:00:02:NN.
pub fn host_mac(i: usize) -> MacAddr {
    MacAddr([0x02, 0x1a, 0xb0, 0x00, 0x02, (i + 1) as u8])
}

impl BssConfig {
    /// `stations` stations (`sta1`…) and one wired host `server`, on
    /// 10.99.0.0/24 (server .1, stations .11…, AP .254), with `security`
    /// on 802.11g at 54 Mb/s (802.11b at 1, 2, 5.5 and 11 Mb/s).
    pub fn new(security: Security, mbps: f64, stations: usize) -> Result<BssConfig> {
        let rate = Rate::from_mbps(mbps)
            .ok_or_else(|| LiveError::Config(format!("no 802.11a/b/g rate of {mbps} Mb/s")))?;
        if stations == 0 || stations > 200 {
            return Err(LiveError::Config(format!(
                "stations: {stations}; a live BSS has 1 to 200"
            )));
        }
        let phy = if rate.is_ofdm() {
            PhyProfile::g()
        } else {
            PhyProfile::b()
        };
        Ok(BssConfig {
            security,
            phy,
            rate,
            block_ack: None,
            rts_threshold: None,
            stations: (0..stations)
                .map(|i| StationDef {
                    name: format!("sta{}", i + 1),
                    addr: station_addr(i),
                    ip: Ipv4Addr::new(10, 99, 0, 11 + i as u8),
                })
                .collect(),
            hosts: vec![HostDef {
                name: "server".into(),
                mac: host_mac(0),
                ip: Ipv4Addr::new(10, 99, 0, 1),
            }],
            hidden: Vec::new(),
            loss: Vec::new(),
            ap_profile: DeviceProfile::host(),
            sta_profile: DeviceProfile::host(),
            ap_ip: Ipv4Addr::new(10, 99, 0, 254),
            prefix_len: 24,
            wired: WiredConfig::gigabit(),
            seed: 1,
            enterprise: None,
        })
    }

    /// Every node name: the AP, the stations, the hosts.
    fn names(&self) -> Vec<&str> {
        std::iter::once(AP_NAME)
            .chain(self.stations.iter().map(|s| s.name.as_str()))
            .chain(self.hosts.iter().map(|h| h.name.as_str()))
            .collect()
    }

    /// Checks names, addresses and pairs before anything is created.
    pub fn validate(&self) -> Result<()> {
        let mut names = BTreeSet::new();
        for n in self.names() {
            super::net::check_node_name(n)?;
            if !names.insert(n) {
                return Err(LiveError::Config(format!("two nodes are called '{n}'")));
            }
        }
        let mut ips = BTreeSet::new();
        let all_ips = std::iter::once((AP_NAME, self.ap_ip))
            .chain(self.stations.iter().map(|s| (s.name.as_str(), s.ip)))
            .chain(self.hosts.iter().map(|h| (h.name.as_str(), h.ip)));
        let mask = u32::MAX
            .checked_shl(32 - u32::from(self.prefix_len))
            .unwrap_or(0);
        let net = u32::from(self.ap_ip) & mask;
        for (n, ip) in all_ips {
            if !ips.insert(ip) {
                return Err(LiveError::Config(format!(
                    "address clash: {ip} is given to '{n}' and to another node"
                )));
            }
            if u32::from(ip) & mask != net {
                return Err(LiveError::Config(format!(
                    "{n}: {ip} is not in the lab's subnet {}/{}",
                    Ipv4Addr::from(net),
                    self.prefix_len
                )));
            }
            if !ip.is_private() {
                return Err(LiveError::Config(format!(
                    "{n}: {ip} is not a private address; the live lab uses private test ranges only"
                )));
            }
        }
        let mut macs = BTreeSet::new();
        for m in self
            .stations
            .iter()
            .map(|s| s.addr)
            .chain(self.hosts.iter().map(|h| h.mac))
            .chain([BSSID, DS_MAC])
        {
            if !macs.insert(m.0) {
                return Err(LiveError::Config(format!(
                    "address clash: {m} is used twice"
                )));
            }
            if m.is_group() {
                return Err(LiveError::Config(format!("{m} is a group address")));
            }
        }
        let known = |n: &str| names.contains(n);
        for (a, b) in &self.hidden {
            for x in [a, b] {
                if !known(x) {
                    return Err(LiveError::Config(format!("hidden: no node '{x}'")));
                }
            }
        }
        for (a, b, p) in &self.loss {
            for x in [a, b] {
                if !known(x) {
                    return Err(LiveError::Config(format!("loss: no node '{x}'")));
                }
            }
            if !(0.0..=1.0).contains(p) {
                return Err(LiveError::Config(format!(
                    "loss {a}->{b}: {p} is not 0 to 1"
                )));
            }
        }
        if self.block_ack.is_some() && self.rate.mcs().is_none() {
            return Err(LiveError::Config(
                "A-MPDU aggregation needs an HT (802.11n) rate".into(),
            ));
        }
        if let Some(e) = &self.enterprise {
            if !self.security.is_rsn() || self.security.discosec_mode().is_some() {
                return Err(LiveError::Config(format!(
                    "WPA2-Enterprise needs an RSN suite (TKIP, CCMP or GCMP), not {}",
                    self.security.name()
                )));
            }
            if e.secret.is_empty() || e.secret.len() > 128 {
                return Err(LiveError::Config(
                    "the RADIUS shared secret must have 1 to 128 characters".into(),
                ));
            }
            if e.server_tries == 0 || e.server_timeout_ms == 0 {
                return Err(LiveError::Config(
                    "the RADIUS timeout and tries must be positive".into(),
                ));
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

    fn cidr(&self, ip: Ipv4Addr) -> String {
        format!("{ip}/{}", self.prefix_len)
    }
}

/// Where a live BSS is, as the medium last published it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BssStatus {
    /// Virtual seconds since the medium started.
    pub virtual_s: f64,
    /// Each station's phase.
    pub phases: Vec<Option<StaPhase>>,
    /// When each station's link came up (virtual seconds).
    pub connected_s: Vec<Option<f64>>,
    /// The medium has ended.
    pub ended: bool,
    /// WPA2-Enterprise: the AP's authentications so far.
    #[serde(default)]
    pub dot1x: Vec<crate::bss::Dot1xRecord>,
    /// The medium's counters and lag so far.
    pub medium: Snapshot,
}

impl BssStatus {
    /// Every station has its keys (or needs none).
    pub fn all_connected(&self) -> bool {
        !self.phases.is_empty() && self.phases.iter().all(|p| *p == Some(StaPhase::Connected))
    }
}

/// What one medium run of a BSS produced.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BssOutcome {
    /// The medium's own measurements (lag, CPU, frames).
    pub medium: MediumReport,
    /// The last status.
    pub status: BssStatus,
    /// The AP's link-layer counters.
    pub ap: LinkStats,
    /// Each station's link-layer counters.
    pub stations: Vec<LinkStats>,
    /// The AP's MAC counters.
    pub ap_mac: MacStats,
    /// Each station's MAC counters.
    pub station_mac: Vec<MacStats>,
    /// The channel's counters.
    pub channel: ChannelStats,
    /// Each station's TAP port.
    pub station_ports: Vec<PortStats>,
    /// The distribution-system TAP port.
    pub ds_port: PortStats,
    /// The channel capture, if one was written.
    pub pcap: Option<PathBuf>,
    /// WPA2-Enterprise: every authentication the AP ran.
    #[serde(default)]
    pub dot1x: Vec<crate::bss::Dot1xRecord>,
    /// WPA2-Enterprise: the MSK each station's 4-way supplicant got from
    /// its EAP peer (hex), and when (virtual seconds).
    #[serde(default)]
    pub station_msk: Vec<Option<(String, f64)>>,
}

/// The TAP devices of a BSS, between medium runs.
struct Taps {
    ds: tappers::linux::Tap,
    stations: Vec<tappers::linux::Tap>,
}

/// The sockets of a WPA2-Enterprise medium run: the AP's RADIUS socket
/// and each station's key port.
struct Sockets {
    radius: std::net::UdpSocket,
    keys: Vec<UnixDatagram>,
}

/// What the medium's thread returns: the outcome and the devices, or the
/// error and whatever devices it could give back.
type MediumResult = std::result::Result<(BssOutcome, Taps), (LiveError, Option<Taps>)>;

struct Running {
    stop: Arc<AtomicBool>,
    status: Arc<Mutex<BssStatus>>,
    thread: JoinHandle<MediumResult>,
}

/// A live BSS: its namespaces and devices, and the medium when it runs.
pub struct LiveBss {
    net: LiveNet,
    config: BssConfig,
    taps: Option<Taps>,
    running: Option<Running>,
    /// The sending ends of the stations' key ports (WPA2-Enterprise).
    key_senders: Vec<UnixDatagram>,
}

impl std::fmt::Debug for LiveBss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveBss")
            .field("tag", &self.net.tag())
            .field("config", &self.config)
            .field("running", &self.running.is_some())
            .finish()
    }
}

impl LiveBss {
    /// Creates the namespaces, devices, bridge and addresses of `config`
    /// (checked first; nothing is created if it is wrong). Logs and
    /// captures go to `run_dir` (a temporary directory if `None`).
    pub fn create(config: BssConfig, run_dir: Option<&Path>) -> Result<LiveBss> {
        config.validate()?;
        let mut net = LiveNet::new(run_dir)?;
        let taps = build(&mut net, &config)?;
        Ok(LiveBss {
            net,
            config,
            taps: Some(taps),
            running: None,
            key_senders: Vec::new(),
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
    pub fn config(&self) -> &BssConfig {
        &self.config
    }

    /// Changes the link (security, PHY, rate, seed, profiles, hidden pairs,
    /// loss) for the next [`LiveBss::start`]; the nodes and addresses stay.
    pub fn reconfigure(&mut self, f: impl FnOnce(&mut BssConfig)) -> Result<()> {
        if self.running.is_some() {
            return Err(LiveError::Config(
                "stop the medium before changing the link".into(),
            ));
        }
        let mut c = self.config.clone();
        f(&mut c);
        if c.stations != self.config.stations || c.hosts != self.config.hosts {
            return Err(LiveError::Config(
                "the nodes of a live BSS cannot change while it exists".into(),
            ));
        }
        c.validate()?;
        self.config = c;
        Ok(())
    }

    /// The namespace of node `name`.
    pub fn netns(&self, name: &str) -> Option<&Netns> {
        self.net.netns(name)
    }

    /// Starts the medium: a new simulator (new association and handshake
    /// for every station), with the channel capture in `pcap` if given.
    pub fn start(&mut self, cal: &Calibration, pcap: Option<&Path>) -> Result<()> {
        if self.running.is_some() {
            return Err(LiveError::Config("the medium already runs".into()));
        }
        let taps = self
            .taps
            .take()
            .ok_or_else(|| LiveError::Config("the BSS lost its devices".into()))?;
        let stop = Arc::new(AtomicBool::new(false));
        let status = Arc::new(Mutex::new(BssStatus {
            phases: vec![None; self.config.stations.len()],
            connected_s: vec![None; self.config.stations.len()],
            ..BssStatus::default()
        }));
        let sockets = match self.enterprise_sockets() {
            Ok(s) => s,
            Err(e) => {
                self.taps = Some(taps);
                return Err(e);
            }
        };
        let (cfg, cal) = (self.config.clone(), cal.clone());
        let (st, s2) = (Arc::clone(&stop), Arc::clone(&status));
        let pcap = pcap.map(Path::to_path_buf);
        let thread = std::thread::Builder::new()
            .name("wisec-medium".into())
            .spawn(move || run_bss(&cfg, cal, taps, sockets, pcap, &st, &s2))
            .map_err(|e| LiveError::io("starting the medium's thread", e))?;
        self.running = Some(Running {
            stop,
            status,
            thread,
        });
        Ok(())
    }

    /// WPA2-Enterprise: the AP's RADIUS socket, created in the AP's
    /// namespace and connected to the server, and a key port per station
    /// (the medium keeps one end, [`LiveBss::msk_sender`] hands out the
    /// other).
    fn enterprise_sockets(&mut self) -> Result<Option<Sockets>> {
        self.key_senders.clear();
        let Some(e) = self.config.enterprise.clone() else {
            return Ok(None);
        };
        let ap = self
            .net
            .netns(AP_NAME)
            .cloned()
            .ok_or_else(|| LiveError::Config("the AP has no namespace".into()))?;
        let ap_ip = self.config.ap_ip;
        let radius = super::net::in_netns(&ap, move || {
            let s = std::net::UdpSocket::bind((ap_ip, 0))
                .map_err(|err| LiveError::io(format!("binding a RADIUS socket to {ap_ip}"), err))?;
            s.connect(e.server)
                .map_err(|err| LiveError::io(format!("connecting to {}", e.server), err))?;
            s.set_nonblocking(true)
                .map_err(|err| LiveError::io("making the RADIUS socket non-blocking", err))?;
            Ok::<_, LiveError>(s)
        })??;
        let mut keys = Vec::new();
        for _ in &self.config.stations {
            let (a, b) =
                UnixDatagram::pair().map_err(|err| LiveError::io("creating a key port", err))?;
            a.set_nonblocking(true)
                .map_err(|err| LiveError::io("making a key port non-blocking", err))?;
            keys.push(a);
            self.key_senders.push(b);
        }
        Ok(Some(Sockets { radius, keys }))
    }

    /// WPA2-Enterprise: where the EAP peer's reader sends the MSK of
    /// station `index` (one datagram of the MSK's octets), for the medium
    /// run that [`LiveBss::start`] began.
    pub fn msk_sender(&self, index: usize) -> Result<UnixDatagram> {
        self.key_senders
            .get(index)
            .ok_or_else(|| LiveError::Config(format!("no key port for station {index}")))?
            .try_clone()
            .map_err(|e| LiveError::io("duplicating a key port", e))
    }

    /// Waits until every station has its keys, or an authentication
    /// failed, or the medium ended, or `timeout`; the status then (check
    /// [`BssStatus::all_connected`] and [`BssStatus::dot1x`]).
    pub fn wait_authenticated(&self, timeout: Duration) -> Result<BssStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            let s = self.status();
            let failed = s.dot1x.iter().any(|r| {
                r.outcome
                    .is_some_and(|o| o != crate::bss::Dot1xOutcome::Accepted)
            });
            if s.all_connected() || failed || s.ended || Instant::now() >= deadline {
                return Ok(s);
            }
            if self.net.interrupted() {
                return Err(LiveError::Interrupted);
            }
            if self.running.is_none() {
                return Err(LiveError::Config("the medium stopped".into()));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// The medium's latest status.
    pub fn status(&self) -> BssStatus {
        self.running.as_ref().map_or_else(BssStatus::default, |r| {
            r.status
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone()
        })
    }

    /// Waits until every station has its keys; an error after `timeout`
    /// (with the phases reached), if the medium ended, or on interrupt.
    pub fn wait_connected(&self, timeout: Duration) -> Result<BssStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            let s = self.status();
            if s.all_connected() {
                return Ok(s);
            }
            if self.net.interrupted() {
                return Err(LiveError::Interrupted);
            }
            if s.ended || self.running.is_none() {
                return Err(LiveError::Config("the medium stopped".into()));
            }
            if Instant::now() >= deadline {
                return Err(LiveError::Config(format!(
                    "the stations did not connect within {} s (phases: {:?})",
                    timeout.as_secs_f64(),
                    s.phases
                )));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Stops the medium; what it measured. The devices stay, for the next
    /// [`LiveBss::start`].
    pub fn stop(&mut self) -> Result<BssOutcome> {
        let r = self
            .running
            .take()
            .ok_or_else(|| LiveError::Config("the medium does not run".into()))?;
        r.stop.store(true, Ordering::SeqCst);
        match r.thread.join() {
            Ok(Ok((outcome, taps))) => {
                self.taps = Some(taps);
                Ok(outcome)
            }
            Ok(Err((e, taps))) => {
                self.taps = taps;
                Err(e)
            }
            Err(_) => Err(LiveError::Config("the medium's thread panicked".into())),
        }
    }

    /// Stops the medium if it runs, then removes everything the BSS
    /// created.
    pub fn close(mut self) -> super::net::CleanupReport {
        if self.running.is_some() {
            let _ = self.stop();
        }
        self.taps = None;
        self.net.cleanup()
    }
}

impl Drop for LiveBss {
    fn drop(&mut self) {
        if let Some(r) = self.running.take() {
            r.stop.store(true, Ordering::SeqCst);
            let _ = r.thread.join();
        }
    }
}

/// Creates the namespaces and devices of `c`.
fn build(net: &mut LiveNet, c: &BssConfig) -> Result<Taps> {
    let ap = net.add_namespace(AP_NAME)?;
    let ds = net.tap(&ap, "ds0", DS_MAC)?;
    let mut ports = vec!["ds0".to_string()];
    for h in &c.hosts {
        let ns = net.add_namespace(&h.name)?;
        net.veth(&ap, &h.name, &ns, "eth0")?;
        net.ip_in(&ns, &["link", "set", "eth0", "address", &h.mac.to_string()])?;
        net.add_addr(&ns, "eth0", &c.cidr(h.ip))?;
        ports.push(h.name.clone());
    }
    let refs: Vec<&str> = ports.iter().map(String::as_str).collect();
    net.bridge(&ap, "br0", &refs)?;
    net.add_addr(&ap, "br0", &c.cidr(c.ap_ip))?;
    let mut stations = Vec::new();
    for s in &c.stations {
        let ns = net.add_namespace(&s.name)?;
        let tap = net.tap(&ns, "wlan0", s.addr)?;
        net.add_addr(&ns, "wlan0", &c.cidr(s.ip))?;
        stations.push(tap);
    }
    Ok(Taps { ds, stations })
}

/// The medium thread: builds the simulator, runs it, and reads the results.
fn run_bss(
    c: &BssConfig,
    cal: Calibration,
    taps: Taps,
    sockets: Option<Sockets>,
    pcap: Option<PathBuf>,
    stop: &Arc<AtomicBool>,
    status: &Arc<Mutex<BssStatus>>,
) -> MediumResult {
    crate::bss::prepare();
    let cal = Rc::new(cal);
    let mut sim = Simulator::new(c.seed);
    let channel = sim.add_channel(c.phy.clone());
    let tid = c.block_ack.map(|_| 0);
    let mac = |addr: MacAddr| {
        let mut m = match c.block_ack {
            Some(ba) => MacConfig::ht(addr, c.rate, ba),
            None => MacConfig::dcf(addr, c.rate),
        };
        m.rts_threshold = c.rts_threshold;
        m
    };
    let ap = sim.add_node(ApNode::new(
        c.security,
        c.ap_profile.clone(),
        Rc::clone(&cal),
        derive_seed(c.seed, &[10]),
    ));
    let ap_iface = sim.attach(ap, channel, mac(BSSID));
    if let Some(n) = sim.node_mut::<ApNode>(ap) {
        n.set_iface(ap_iface);
        n.qos_tid = tid;
    }
    let mut endpoints = Vec::new();
    let (radius, mut key_sockets) = match sockets {
        Some(s) => (Some(s.radius), s.keys.into_iter()),
        None => (None, Vec::new().into_iter()),
    };
    if let (Some(e), Some(sock)) = (&c.enterprise, radius) {
        let port = TapPort::shared();
        let cfg = wisec_proto::dot1x::Config::new(
            e.secret.as_bytes(),
            c.ap_ip.octets(),
            b"wisec-ap",
            BSSID,
            crate::bss::SSID.as_bytes(),
        )
        .map(|mut cfg| {
            cfg.server_timeout_ms = e.server_timeout_ms;
            cfg.server_tries = e.server_tries;
            cfg
        });
        if let (Some(n), Some(cfg)) = (sim.node_mut::<ApNode>(ap), cfg) {
            n.set_dot1x(cfg, Rc::clone(&port));
        }
        endpoints.push(Endpoint {
            name: format!("{AP_NAME}/radius"),
            node: ap,
            port,
            socket: Datagram::Udp(sock),
        });
    }
    let ds_port = TapPort::shared();
    let bridge = sim.add_node(TapBridge::new(Rc::clone(&ds_port)));
    sim.connect(ap, bridge, c.wired);
    let Taps {
        ds,
        stations: sta_taps,
    } = taps;
    let mut devices = vec![Device {
        name: format!("{AP_NAME}/ds0"),
        node: bridge,
        port: Rc::clone(&ds_port),
        tap: ds,
    }];
    let mut sta_nodes = Vec::new();
    let mut ifaces = vec![(AP_NAME.to_string(), ap_iface)];
    for ((i, s), tap) in c.stations.iter().enumerate().zip(sta_taps) {
        let port = TapPort::shared();
        let mut node = StaNode::new(
            s.addr,
            s.ip.octets(),
            c.ap_ip.octets(),
            Traffic::None,
            c.security,
            c.sta_profile.clone(),
            Rc::clone(&cal),
            derive_seed(c.seed, &[11, i as u64]),
        );
        node.set_tap(Rc::clone(&port));
        node.qos_tid = tid;
        let key = key_sockets.next().map(|k| (k, TapPort::shared()));
        if let Some((_, kp)) = &key {
            node.set_dot1x(Rc::clone(kp));
        }
        let id = sim.add_node(node);
        if let Some((k, kp)) = key {
            endpoints.push(Endpoint {
                name: format!("{}/msk", s.name),
                node: id,
                port: kp,
                socket: Datagram::Unix(k),
            });
        }
        let iface = sim.attach(id, channel, mac(s.addr));
        if let Some(n) = sim.node_mut::<StaNode>(id) {
            n.set_iface(iface);
        }
        ifaces.push((s.name.clone(), iface));
        sta_nodes.push((id, iface, Rc::clone(&port)));
        devices.push(Device {
            name: format!("{}/wlan0", s.name),
            node: id,
            port,
            tap,
        });
    }
    let iface_of = |n: &str| ifaces.iter().find(|(m, _)| m == n).map(|(_, i)| *i);
    for (a, b) in &c.hidden {
        if let (Some(x), Some(y)) = (iface_of(a), iface_of(b)) {
            sim.set_hidden(x, y, true);
        }
    }
    for (a, b, p) in &c.loss {
        if let (Some(x), Some(y)) = (iface_of(a), iface_of(b)) {
            sim.set_loss(x, y, *p);
        }
    }
    let give_back = |devices: Vec<Device>| {
        let mut it = devices.into_iter();
        let ds = it.next().map(|d| d.tap);
        let stations: Vec<_> = it.map(|d| d.tap).collect();
        ds.map(|ds| Taps { ds, stations })
    };
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
    let publish = |sim: &Simulator, snap: &Snapshot, ended: bool| {
        let mut st = status
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        st.virtual_s = snap.virtual_s;
        st.medium = *snap;
        for (k, (id, _, _)) in sta_nodes.iter().enumerate() {
            if let Some(n) = sim.node::<StaNode>(*id) {
                st.phases[k] = Some(n.phase());
                st.connected_s[k] = n.connected_at.map(Time::as_secs_f64);
            }
        }
        st.ended = ended;
        if let Some(n) = sim.node::<ApNode>(ap) {
            st.dot1x = n.dot1x_log();
        }
    };
    let mut last = Snapshot::default();
    let mut report = medium::run_with_endpoints(
        &mut sim,
        &mut devices,
        &mut endpoints,
        &opts,
        &mut |s, snap| {
            last = *snap;
            publish(s, snap, false);
        },
    );
    publish(&sim, &last, true);
    if let Some(cap) = capture {
        match cap.finish() {
            Ok(n) => report.pcap_records = n,
            Err(e) => return Err((e, give_back(devices))),
        }
    }
    let outcome = BssOutcome {
        status: status
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone(),
        ap: sim
            .node::<ApNode>(ap)
            .map(ApNode::stats)
            .unwrap_or_default(),
        stations: sta_nodes
            .iter()
            .map(|(id, _, _)| {
                sim.node::<StaNode>(*id)
                    .map(StaNode::stats)
                    .unwrap_or_default()
            })
            .collect(),
        ap_mac: sim.mac_stats(ap_iface).unwrap_or_default(),
        station_mac: sta_nodes
            .iter()
            .map(|(_, i, _)| sim.mac_stats(*i).unwrap_or_default())
            .collect(),
        channel: sim.channel_stats(channel).unwrap_or_default(),
        station_ports: sta_nodes.iter().map(|(_, _, p)| p.borrow().stats).collect(),
        ds_port: ds_port.borrow().stats,
        pcap,
        medium: report,
        dot1x: sim
            .node::<ApNode>(ap)
            .map(ApNode::dot1x_log)
            .unwrap_or_default(),
        station_msk: sta_nodes
            .iter()
            .map(|(id, _, _)| {
                let n = sim.node::<StaNode>(*id)?;
                let m = n.msk()?;
                let hex: String = m.iter().map(|b| format!("{b:02x}")).collect();
                Some((hex, n.msk_at().map_or(0.0, Time::as_secs_f64)))
            })
            .collect(),
    };
    match (outcome.medium.device_error.clone(), give_back(devices)) {
        (Some(e), taps) => Err((LiveError::Config(e), taps)),
        (None, Some(taps)) => Ok((outcome, taps)),
        (None, None) => Err((LiveError::Config("lost the devices".into()), None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> BssConfig {
        BssConfig::new(Security::Ccmp128, 54.0, 2).unwrap()
    }

    #[test]
    fn a_valid_bss_passes_and_bad_ones_say_what_is_wrong() {
        assert!(cfg().validate().is_ok());
        let err = |f: &dyn Fn(&mut BssConfig)| {
            let mut c = cfg();
            f(&mut c);
            c.validate().unwrap_err().to_string()
        };
        let e = err(&|c| c.stations[0].name = "a-station-with-a-long-name".into());
        assert!(e.contains("at most 15"), "{e}");
        let e = err(&|c| c.stations[1].ip = c.stations[0].ip);
        assert!(e.contains("address clash: 10.99.0.11"), "{e}");
        let e = err(&|c| c.hosts[0].ip = c.ap_ip);
        assert!(e.contains("address clash"), "{e}");
        let e = err(&|c| c.stations[1].addr = c.stations[0].addr);
        assert!(e.contains("address clash: 02:1a:b0:00:01:01"), "{e}");
        let e = err(&|c| c.stations[1].name = "server".into());
        assert!(e.contains("two nodes are called 'server'"), "{e}");
        let e = err(&|c| c.stations[0].ip = Ipv4Addr::new(10, 98, 0, 1));
        assert!(e.contains("not in the lab's subnet"), "{e}");
        let e = err(&|c| {
            c.ap_ip = Ipv4Addr::new(8, 8, 8, 254);
            c.stations[0].ip = Ipv4Addr::new(8, 8, 8, 11);
            c.stations[1].ip = Ipv4Addr::new(8, 8, 8, 12);
            c.hosts[0].ip = Ipv4Addr::new(8, 8, 8, 1);
        });
        assert!(e.contains("not a private address"), "{e}");
        let e = err(&|c| c.hidden.push(("sta1".into(), "sta9".into())));
        assert!(e.contains("hidden: no node 'sta9'"), "{e}");
        let e = err(&|c| c.loss.push(("sta1".into(), "ap".into(), 1.5)));
        assert!(e.contains("is not 0 to 1"), "{e}");
        let e = err(&|c| c.block_ack = Some(BlockAckConfig::default()));
        assert!(e.contains("needs an HT"), "{e}");
        assert!(BssConfig::new(Security::Open, 7.0, 1).is_err());
        assert!(BssConfig::new(Security::Open, 11.0, 0).is_err());
    }
}
