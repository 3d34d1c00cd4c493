//! `wisec lab live`: a live BSS that stays up until Ctrl-C (or
//! `--duration`), so that real programs can run in its namespaces over the
//! lab's medium.

use crate::error::Failure;
use anyhow::{anyhow, Context as _};
use clap::{Args, ValueEnum};
use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wisec_lab::cost::{Calibration, DeviceProfile, Security};
use wisec_lab::live::bss::{BssConfig, BssOutcome, LiveBss, AP_NAME};
use wisec_lab::live::LiveError;
use wisec_lab::phy::{Band, HtParams, PhyProfile, Rate};
use wisec_lab::sim::BlockAckConfig;

const LIVE_EXAMPLES: &str = "\
Examples (as root):
  # two stations and a wired server, CCMP-128 at 54 Mb/s, until Ctrl-C
  wisec lab live
  # then, in another terminal:
  ip netns exec wisec-TAG-sta1 ping 10.99.0.1
  ip netns exec wisec-TAG-server iperf3 -s &
  ip netns exec wisec-TAG-sta1 iperf3 -c 10.99.0.1

  # 802.11b at 11 Mb/s with TKIP, 30 seconds, logs and channel capture in run/
  wisec lab live --phy b --suite tkip --duration 30 --out run

  # hidden stations without and with RTS/CTS
  wisec lab live --hidden sta1,sta2
  wisec lab live --hidden sta1,sta2 --rts-threshold 0

  # 802.11n MCS 7 on 40 MHz with A-MPDU
  wisec lab live --phy n --mcs 7 --width 40

Every namespace, interface and process the run creates is removed when it ends
(Ctrl-C, SIGTERM, an error, --duration).";

/// The PHY of a live BSS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LivePhy {
    /// 802.11b (DSSS/CCK, long preamble; 11 Mb/s unless --rate)
    B,
    /// 802.11g, ERP stations only (OFDM; 54 Mb/s unless --rate)
    G,
    /// 802.11a (OFDM, 5 GHz; 54 Mb/s unless --rate)
    A,
    /// 802.11n HT (--mcs, --width, --short-gi; A-MPDU with BlockAck)
    N,
}

/// The link options shared by `lab live` and `bench live`.
#[derive(Debug, Clone, Args)]
pub struct LinkArgs {
    /// Security of the link: open, wep40, wep104, tkip, ccmp128, ccmp256, gcmp128,
    /// gcmp256, discosec-fast, discosec-full
    #[arg(long, value_name = "SUITE", default_value = "ccmp128")]
    pub suite: String,
    /// PHY
    #[arg(long, value_enum, default_value = "g")]
    pub phy: LivePhy,
    /// Data rate in Mb/s (802.11a/b/g)
    #[arg(long, value_name = "MBPS")]
    pub rate: Option<f64>,
    /// 802.11n: MCS 0 to 7
    #[arg(long, value_name = "N")]
    pub mcs: Option<u8>,
    /// 802.11n: channel width in MHz, 20 or 40
    #[arg(long, value_name = "MHZ", default_value_t = 20)]
    pub width: u32,
    /// 802.11n: the 400 ns short guard interval
    #[arg(long)]
    pub short_gi: bool,
    /// 802.11n: send every frame alone (no A-MPDU)
    #[arg(long)]
    pub no_ampdu: bool,
    /// RTS/CTS before frames longer than this many octets (0: every frame)
    #[arg(long, value_name = "OCTETS")]
    pub rts_threshold: Option<usize>,
    /// Seed of the handshakes' nonces and the medium's random draws
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Device profile of the AP (its crypto cost): host, cube, routerboard,
    /// laptop, wrt54g, pentium4
    #[arg(long, value_name = "PROFILE", default_value = "host")]
    pub ap_profile: String,
    /// Device profile of the stations
    #[arg(long, value_name = "PROFILE", default_value = "host")]
    pub sta_profile: String,
}

impl LinkArgs {
    /// The BSS these options describe, with `stations` stations.
    pub fn config(&self, stations: usize) -> Result<BssConfig, Failure> {
        let sec = Security::from_name(&self.suite).ok_or_else(|| {
            let names: Vec<&str> = Security::ALL.iter().map(|s| s.name()).collect();
            Failure::Usage(format!(
                "--suite {}: not a suite (one of {})",
                self.suite,
                names.join(", ")
            ))
        })?;
        if !(1..=200).contains(&stations) {
            return Err(Failure::Usage(format!("--stations {stations}: 1 to 200")));
        }
        let mut c =
            BssConfig::new(sec, 54.0, stations).map_err(|e| Failure::Usage(e.to_string()))?;
        let legacy = |phy: PhyProfile, default: f64| -> Result<(PhyProfile, Rate), Failure> {
            let mbps = self.rate.unwrap_or(default);
            let rate = Rate::from_mbps(mbps)
                .filter(|r| phy.supports(*r))
                .ok_or_else(|| Failure::Usage(format!("--rate {mbps}: not a rate of this PHY")))?;
            Ok((phy, rate))
        };
        if self.phy != LivePhy::N && (self.mcs.is_some() || self.short_gi || self.no_ampdu) {
            return Err(Failure::Usage(
                "--mcs, --short-gi and --no-ampdu go with --phy n".into(),
            ));
        }
        let (phy, rate) = match self.phy {
            LivePhy::B => legacy(PhyProfile::b(), 11.0)?,
            LivePhy::G => legacy(PhyProfile::g(), 54.0)?,
            LivePhy::A => legacy(PhyProfile::a(), 54.0)?,
            LivePhy::N => {
                if self.rate.is_some() {
                    return Err(Failure::Usage("--phy n takes --mcs, not --rate".into()));
                }
                let mcs = self.mcs.unwrap_or(7);
                if mcs > 7 {
                    return Err(Failure::Usage(format!("--mcs {mcs}: 0 to 7 (one stream)")));
                }
                let wide = match self.width {
                    20 => false,
                    40 => true,
                    w => return Err(Failure::Usage(format!("--width {w}: 20 or 40"))),
                };
                let phy = PhyProfile::n(HtParams {
                    band: Band::Ghz5,
                    wide,
                    short_gi: self.short_gi,
                });
                if !self.no_ampdu {
                    c.block_ack = Some(BlockAckConfig::default());
                }
                (phy, Rate::ht(mcs))
            }
        };
        c.phy = phy;
        c.rate = rate;
        c.rts_threshold = self.rts_threshold;
        c.seed = self.seed;
        let profile = |opt: &str, v: &str| {
            DeviceProfile::by_name(v)
                .ok_or_else(|| Failure::Usage(format!("{opt} {v}: no such device profile")))
        };
        c.ap_profile = profile("--ap-profile", &self.ap_profile)?;
        c.sta_profile = profile("--sta-profile", &self.sta_profile)?;
        Ok(c)
    }
}

/// Arguments of `wisec lab live`.
#[derive(Debug, Args)]
#[command(after_help = LIVE_EXAMPLES)]
pub struct LiveArgs {
    #[command(flatten)]
    link: LinkArgs,
    /// Wireless stations (sta1, sta2, ...)
    #[arg(long, value_name = "N", default_value_t = 2)]
    stations: usize,
    /// Two nodes that do not hear each other (sta1,sta2 or ap,sta1); repeatable
    #[arg(long, value_name = "A,B")]
    hidden: Vec<String>,
    /// Frame loss from one node to another: FROM,TO,P with P from 0 to 1; repeatable
    #[arg(long, value_name = "FROM,TO,P")]
    loss: Vec<String>,
    /// Stop after this many seconds (default: at Ctrl-C)
    #[arg(long, value_name = "S")]
    duration: Option<f64>,
    /// Directory for the programs' logs, the channel capture and live.json
    /// (default: a temporary directory, removed at the end)
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The channel capture (radiotap pcap); default DIR/channel.pcap with --out
    #[arg(long, value_name = "FILE")]
    pcap: Option<PathBuf>,
    /// Print the summary as JSON
    #[arg(long)]
    json: bool,
    /// No status line
    #[arg(long, short)]
    quiet: bool,
}

/// What `wisec lab live` prints at the end (`--json`).
#[derive(Debug, serde::Serialize)]
struct Summary<'a> {
    tag: &'a str,
    namespaces: Vec<(String, String)>,
    outcome: &'a BssOutcome,
}

/// The wisec process's interrupt flag (first Ctrl-C or SIGTERM).
pub fn interrupted(flag: &Arc<AtomicBool>) -> bool {
    flag.load(Ordering::SeqCst)
}

fn live_error(e: LiveError) -> Failure {
    match e {
        LiveError::Config(m) => Failure::Usage(m),
        other => Failure::Runtime(anyhow!("{other}")),
    }
}

fn pair(opt: &str, v: &str) -> Result<(String, String), Failure> {
    match v.split(',').collect::<Vec<_>>()[..] {
        [a, b] if !a.is_empty() && !b.is_empty() => Ok((a.to_string(), b.to_string())),
        _ => Err(Failure::Usage(format!(
            "{opt} {v}: give two node names, A,B"
        ))),
    }
}

/// Runs `wisec lab live`.
pub fn run(a: LiveArgs, interrupt: Arc<AtomicBool>, cal: &Calibration) -> Result<(), Failure> {
    let mut cfg = a.link.config(a.stations)?;
    for h in &a.hidden {
        cfg.hidden.push(pair("--hidden", h)?);
    }
    for l in &a.loss {
        let v: Vec<&str> = l.split(',').collect();
        let p = v
            .get(2)
            .and_then(|p| p.parse::<f64>().ok())
            .filter(|p| (0.0..=1.0).contains(p));
        match (v.len(), p) {
            (3, Some(p)) => cfg.loss.push((v[0].to_string(), v[1].to_string(), p)),
            _ => {
                return Err(Failure::Usage(format!(
                    "--loss {l}: give FROM,TO,P with P from 0 to 1"
                )))
            }
        }
    }
    if let Some(d) = a.duration {
        if !(d > 0.0 && d <= 86_400.0) {
            return Err(Failure::Usage(format!(
                "--duration {d}: 0 to 86400 seconds"
            )));
        }
    }
    cfg.validate().map_err(live_error)?;
    let pcap = a
        .pcap
        .clone()
        .or_else(|| a.out.as_ref().map(|d| d.join("channel.pcap")));
    if let Some(p) = &pcap {
        if p.exists() && a.pcap.is_some() {
            return Err(Failure::Usage(format!(
                "{} exists; give another --pcap (the live lab does not overwrite captures)",
                p.display()
            )));
        }
    }
    let mut bss = LiveBss::create(cfg, a.out.as_deref()).map_err(live_error)?;
    bss.net_mut().set_interrupt(Arc::clone(&interrupt));
    bss.start(cal, pcap.as_deref()).map_err(live_error)?;
    let st = match bss.wait_connected(Duration::from_secs(15)) {
        Ok(s) => s,
        Err(LiveError::Interrupted) => {
            let _ = bss.stop();
            drop(bss);
            eprintln!("wisec: interrupted; everything the run created was removed");
            std::process::exit(130);
        }
        Err(e) => return Err(live_error(e)),
    };
    let tag = bss.net().tag().to_string();
    let c = bss.config().clone();
    if !a.json {
        crate::outln!(
            "live BSS up (run {tag}): {} on {}, {} station(s) joined in {:.0} ms",
            c.security.label(),
            rate_text(&c),
            c.stations.len(),
            st.connected_s
                .iter()
                .flatten()
                .fold(0.0f64, |m, s| m.max(*s))
                * 1e3
        );
        crate::outln!("  node     namespace                         interface  address");
        for s in &c.stations {
            let ns = bss.netns(&s.name).map_or("", |n| n.name.as_str());
            crate::outln!("  {:<8} {ns:<33} wlan0      {}", s.name, s.ip);
        }
        let ns = bss.netns(AP_NAME).map_or("", |n| n.name.as_str());
        crate::outln!("  {AP_NAME:<8} {ns:<33} br0        {}", c.ap_ip);
        for h in &c.hosts {
            let ns = bss.netns(&h.name).map_or("", |n| n.name.as_str());
            crate::outln!("  {:<8} {ns:<33} eth0       {}", h.name, h.ip);
        }
        if let (Some(s), Some(h)) = (c.stations.first(), c.hosts.first()) {
            let ns = bss.netns(&s.name).map_or("", |n| n.name.as_str());
            crate::outln!("try: ip netns exec {ns} ping {}", h.ip);
        }
        crate::outln!(
            "{}",
            match a.duration {
                Some(d) => format!("stopping after {d} s (or at Ctrl-C)"),
                None => "Ctrl-C stops and removes everything".into(),
            }
        );
    }
    let start = Instant::now();
    let tty = !a.quiet && !a.json && std::io::stderr().is_terminal();
    loop {
        if interrupted(&interrupt) {
            break;
        }
        if a.duration
            .is_some_and(|d| start.elapsed().as_secs_f64() >= d)
        {
            break;
        }
        let s = bss.status();
        if s.ended {
            break;
        }
        if tty {
            eprint!(
                "\r  {:>8.1} s  frames in {:>8} out {:>8}  lag p99 {:>6.0} us  max {:>8.0} us ",
                s.virtual_s,
                s.medium.frames_in,
                s.medium.frames_out,
                s.medium.lag.p99_us,
                s.medium.lag.max_us
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    if tty {
        eprintln!();
    }
    let outcome = bss.stop().map_err(live_error)?;
    let namespaces: Vec<(String, String)> = bss
        .net()
        .namespaces()
        .iter()
        .map(|n| (n.node.clone(), n.name.clone()))
        .collect();
    if let Some(dir) = &a.out {
        let text = serde_json::to_string_pretty(&Summary {
            tag: &tag,
            namespaces: namespaces.clone(),
            outcome: &outcome,
        })
        .context("encoding the summary")?;
        std::fs::write(dir.join("live.json"), text + "\n")
            .with_context(|| format!("writing {}", dir.join("live.json").display()))?;
    }
    let cleanup = bss.close();
    if a.json {
        let v = serde_json::to_string_pretty(&Summary {
            tag: &tag,
            namespaces,
            outcome: &outcome,
        })
        .context("encoding the summary")?;
        crate::outln!("{v}");
    } else {
        print_outcome(&outcome);
        crate::outln!(
            "removed {} namespace(s) and {} process(es)",
            cleanup.namespaces,
            cleanup.processes
        );
    }
    if !cleanup.failures.is_empty() {
        return Err(Failure::Runtime(anyhow!(
            "cleanup left: {}",
            cleanup.failures.join("; ")
        )));
    }
    if interrupted(&interrupt) {
        std::process::exit(130);
    }
    Ok(())
}

/// The link's rate as text.
pub fn rate_text(c: &BssConfig) -> String {
    match c.rate.mcs() {
        Some(m) => format!(
            "802.11n MCS {m} ({:.1} Mb/s{})",
            c.phy.rate_mbps(c.rate),
            if c.block_ack.is_some() {
                ", A-MPDU"
            } else {
                ""
            }
        ),
        None => format!("{} Mb/s", c.phy.rate_mbps(c.rate)),
    }
}

/// The medium's summary lines.
pub fn print_outcome(o: &BssOutcome) {
    let m = &o.medium;
    crate::outln!(
        "medium: {:.1} s, {} events, frames in {} / out {}; lag p50 {:.1} us, p99 {:.1} us, \
max {:.1} us; CPU {:.2} s ({:.0}% of a core)",
        m.wall_s,
        m.events,
        m.frames_in,
        m.frames_out,
        m.lag.p50_us,
        m.lag.p99_us,
        m.lag.max_us,
        m.cpu_s,
        m.cpu_share * 100.0
    );
    if let Some(p) = &o.pcap {
        crate::outln!(
            "channel capture: {} ({} frames)",
            p.display(),
            m.pcap_records
        );
    }
}
