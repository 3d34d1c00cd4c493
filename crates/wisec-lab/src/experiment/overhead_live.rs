//! `overhead --live`: the same points measured with the kernel's TCP/IP,
//! iperf3 and ping in network namespaces, over the simulator's medium in
//! real time ([`crate::live`]).
//!
//! One live BSS (a station `sta1`, the AP, a wired `server`) serves the
//! whole run; each trial reconfigures its link (suite, rate, device
//! profiles, seed), starts a new medium — so the station authenticates,
//! associates and runs the 4-way handshake again — measures, and stops
//! it. The measures map onto real programs:
//!
//! - `tcp`, `udp`: Qcheck's throughput tests: BYTES over one TCP
//!   connection, or as 1472-octet UDP datagrams sent as fast as the socket
//!   takes them, on the kernel's sockets in the namespaces, timed from the
//!   sender's first packet to the receiver's last octet
//!   ([`crate::live::transfer`]; `iperf3 -n` ends its test when the sender
//!   has written the octets, not when they arrived);
//! - `ping`: `ping -c COUNT -i 0.1 -s 32` (Qcheck's response time);
//! - `iperf-tcp`, `iperf-udp`: seed 001's Iperf tests (Tables 6-1, 6-2,
//!   6-5, 6-6): ten seconds of TCP with a 128 KB window, and UDP offered
//!   at 1 Mb/s (Iperf's "1M": 1048576 b/s).
//!
//! Every trial also runs in the simulator, so the report sets the
//! simulator's figure beside the live one. A trial whose medium lag (p99)
//! exceeded the bound is marked invalid and left out of the means.

use super::overhead::{build as build_sim, run as run_sim, LinkScenario, Measure, IPERF_UDP_BPS};
use super::{ChannelInfo, ExperimentError, TrialEnv, TrialResult, TrialSpec, Value};
use crate::cost::{DeviceProfile, Security};
use crate::live::bss::{BssConfig, BssOutcome, LiveBss};
use crate::live::tools::{self, IperfSpec};
use crate::live::transfer;
use crate::live::LiveError;
use crate::net::Traffic;
use crate::net::{SINK_PORT, UDP_SINK_PORT};
use crate::phy::{PhyProfile, PhyTiming, Rate};
use crate::time::Time;
use std::cell::RefCell;
use std::time::Duration;

/// Iperf's TCP window in the seed's tests: 128 KB.
pub const IPERF_WINDOW: u32 = 131_072;

/// The live BSS kept across the trials of a run.
#[derive(Debug, Default)]
pub struct LiveState {
    bss: RefCell<Option<LiveBss>>,
}

/// What one live trial measures and how.
#[derive(Debug, Clone)]
pub struct LivePoint {
    /// Security.
    pub security: Security,
    /// Link rate, Mb/s.
    pub mbps: f64,
    /// The measure.
    pub measure: Measure,
    /// The AP's device.
    pub ap: DeviceProfile,
    /// The station's device.
    pub sta: DeviceProfile,
    /// Octets of the Qcheck-style tests.
    pub bytes: u64,
    /// UDP payload of the Qcheck-style test.
    pub udp_payload: usize,
    /// Echo requests.
    pub ping_count: u32,
    /// Length of the Iperf tests, seconds.
    pub iperf_seconds: f64,
    /// The lag bound as a fraction of one 1500-octet frame's airtime.
    pub lag_bound_fraction: f64,
}

/// The PHY of a live link at `rate` (802.11g for OFDM rates, 802.11b
/// otherwise) and the lag bound of its trials: `fraction` of one
/// 1500-octet frame's airtime.
pub fn link_phy_and_bound(rate: Rate, fraction: f64) -> (PhyProfile, Time) {
    let phy = if rate.is_ofdm() {
        PhyProfile::g()
    } else {
        PhyProfile::b()
    };
    let bound = Time::from_ns((frame_airtime(&phy, rate).as_ns() as f64 * fraction).round() as u64);
    (phy, bound)
}

/// The airtime of a data frame carrying a 1500-octet IP packet (MAC
/// header, LLC/SNAP, FCS) at `rate` on `phy`.
pub fn frame_airtime(phy: &PhyProfile, rate: Rate) -> Time {
    phy.ppdu_duration(24 + 8 + 1500 + 4, rate)
}

/// A live error as an experiment's: an interrupt stays an interrupt.
pub(crate) fn live_err(e: LiveError) -> ExperimentError {
    match e {
        LiveError::Interrupted => ExperimentError::interrupted(),
        e => ExperimentError(format!("live: {e}")),
    }
}

impl LiveState {
    /// Runs one live trial of `p`, and the same point in the simulator.
    pub fn run_trial(
        &self,
        spec: &TrialSpec,
        env: &mut TrialEnv<'_>,
        p: &LivePoint,
        sim_traffic: Traffic,
    ) -> Result<TrialResult, ExperimentError> {
        if env.interrupted() {
            return Err(ExperimentError::interrupted());
        }
        let rate = Rate::from_mbps(p.mbps)
            .ok_or_else(|| ExperimentError(format!("no rate of {} Mb/s", p.mbps)))?;
        let (phy, bound) = link_phy_and_bound(rate, p.lag_bound_fraction);
        let mut guard = self.bss.borrow_mut();
        if guard.is_none() {
            let mut cfg = BssConfig::new(p.security, p.mbps, 1).map_err(live_err)?;
            cfg.stations[0].name = "sta1".into();
            let mut bss = LiveBss::create(cfg, env.work_dir.as_deref()).map_err(live_err)?;
            if let Some(f) = &env.interrupt {
                bss.net_mut().set_interrupt(std::sync::Arc::clone(f));
            }
            *guard = Some(bss);
        }
        let bss = guard
            .as_mut()
            .ok_or_else(|| ExperimentError("live: no BSS".into()))?;
        bss.reconfigure(|c| {
            c.security = p.security;
            c.phy = phy.clone();
            c.rate = rate;
            c.ap_profile = p.ap.clone();
            c.sta_profile = p.sta.clone();
            c.seed = spec.seed;
        })
        .map_err(live_err)?;
        // Every trial starts from nothing learnt: a new association, and no
        // neighbour (ARP) entries, as a simulated trial starts.
        for n in ["sta1", "server"] {
            if let Some(ns) = bss.netns(n).cloned() {
                bss.net()
                    .ip_in(&ns, &["neigh", "flush", "all"])
                    .map_err(live_err)?;
            }
        }
        bss.start(env.calibration, env.capture_file.as_deref())
            .map_err(live_err)?;
        let measured = measure(bss, spec, p);
        // Let the last segments (FIN, final Acks) cross before the medium
        // stops, so that no peer is left waiting for them.
        std::thread::sleep(Duration::from_millis(200));
        let outcome = bss.stop().map_err(live_err);
        let (m, outcome) = match (measured, outcome) {
            (Ok(m), Ok(o)) => (m, o),
            (Err(e), _) | (_, Err(e)) => return Err(e),
        };
        let mut r = TrialResult::new(spec);
        let lag_ok = outcome.medium.lag.p99_us <= bound.as_ns() as f64 / 1000.0;
        record(&mut r, &m, &outcome, bound, lag_ok);
        // The same point in the simulator.
        let mut s = LinkScenario::new(p.security, p.mbps, sim_traffic, spec.seed)
            .ok_or_else(|| ExperimentError(format!("no rate of {} Mb/s", p.mbps)))?;
        s.ap_profile = p.ap.clone();
        s.sta_profile = p.sta.clone();
        let mut sim = build_sim(&s, env.calibration);
        let o = run_sim(&mut sim, &s);
        if p.measure == Measure::Ping {
            r.metrics.insert("sim_ping_ms".into(), o.ping_ms.into());
        } else {
            r.metrics.insert(
                "sim_throughput_kbps".into(),
                (o.throughput_mbps * 1000.0).into(),
            );
        }
        r.channels.push(ChannelInfo {
            id: 0,
            phy: phy.standard,
            freq_mhz: 2412,
        });
        r.sim_time_ns = (outcome.medium.virtual_s * 1e9) as u64;
        r.events = outcome.medium.events;
        Ok(r)
    }
}

/// What the programs measured.
#[derive(Debug, Clone, Copy, Default)]
struct Measured {
    throughput_kbps: Option<f64>,
    ping: Option<tools::PingResult>,
    iperf: Option<tools::IperfResult>,
    transfer: Option<transfer::Transfer>,
    connected_ms: f64,
}

fn measure(
    bss: &mut LiveBss,
    spec: &TrialSpec,
    p: &LivePoint,
) -> Result<Measured, ExperimentError> {
    let st = bss
        .wait_connected(Duration::from_secs(15))
        .map_err(live_err)?;
    let mut m = Measured {
        connected_ms: st.connected_s.first().copied().flatten().unwrap_or(0.0) * 1e3,
        ..Measured::default()
    };
    let server = bss.config().hosts[0].ip;
    let ns = bss
        .netns("sta1")
        .cloned()
        .ok_or_else(|| ExperimentError("live: no station namespace".into()))?;
    let log = format!("{}-{}", spec.label, p.measure.name());
    let server_ns = bss
        .netns("server")
        .cloned()
        .ok_or_else(|| ExperimentError("live: no server namespace".into()))?;
    // A fresh one-off server per trial: a test cut short with the previous
    // medium leaves nothing behind to make this one's server busy.
    let iperf = |spec: IperfSpec, secs: f64, bss: &mut LiveBss| {
        let timeout = Duration::from_secs_f64(secs.max(1.0) * 4.0 + 20.0);
        let srv = tools::iperf3_server(bss.net_mut(), &server_ns, server, &format!("{log}-server"))
            .map_err(live_err)?;
        let r = tools::iperf3_client(bss.net_mut(), &ns, server, &spec, &log, timeout)
            .map_err(live_err);
        bss.net_mut().stop(srv);
        r
    };
    // The longest a Qcheck-style transfer should take at this rate (a
    // generous bound on its timeout).
    let bulk_secs = p.bytes as f64 * 8.0 / (p.mbps * 1e6 * 0.3);
    let timeout = Duration::from_secs_f64(bulk_secs + 20.0);
    let res = match p.measure {
        Measure::Tcp => {
            let t = transfer::tcp(&ns, &server_ns, server, SINK_PORT, p.bytes, timeout)
                .map_err(live_err)?;
            m.transfer = Some(t);
            None
        }
        Measure::Udp => {
            let t = transfer::udp(
                &ns,
                &server_ns,
                server,
                UDP_SINK_PORT,
                p.bytes,
                p.udp_payload,
                Duration::from_millis(500),
                timeout,
            )
            .map_err(live_err)?;
            m.transfer = Some(t);
            None
        }
        Measure::IperfTcp => {
            let mut s = IperfSpec::tcp_for(p.iperf_seconds);
            s.window = Some(IPERF_WINDOW);
            Some(iperf(s, p.iperf_seconds, bss)?)
        }
        Measure::IperfUdp => {
            let s = IperfSpec::udp_for(p.iperf_seconds, IPERF_UDP_BPS, 1470);
            Some(iperf(s, p.iperf_seconds, bss)?)
        }
        Measure::Ping => {
            m.ping = Some(
                tools::ping(
                    bss.net_mut(),
                    &ns,
                    server,
                    p.ping_count,
                    Duration::from_millis(100),
                    32,
                    &log,
                )
                .map_err(live_err)?,
            );
            None
        }
    };
    if let Some(r) = res {
        m.throughput_kbps = Some(r.receiver_bps / 1e3);
        m.iperf = Some(r);
    }
    if let Some(t) = m.transfer {
        m.throughput_kbps = Some(t.bps / 1e3);
    }
    Ok(m)
}

fn record(r: &mut TrialResult, m: &Measured, o: &BssOutcome, bound: Time, lag_ok: bool) {
    let ins = |r: &mut TrialResult, k: &str, v: Value| {
        r.metrics.insert(k.to_string(), v);
    };
    ins(r, "live", true.into());
    ins(r, "connected_ms", m.connected_ms.into());
    if let Some(t) = m.throughput_kbps {
        ins(r, "throughput_kbps", t.into());
        ins(r, "throughput_mbps", (t / 1e3).into());
    }
    if let Some(t) = &m.transfer {
        ins(r, "sent_bytes", t.sent.into());
        ins(r, "delivered_bytes", t.received.into());
        ins(r, "transfer_s", t.seconds.into());
    }
    if let Some(i) = &m.iperf {
        ins(r, "sent_bytes", i.sent_bytes.into());
        ins(r, "delivered_bytes", i.received_bytes.into());
        ins(r, "tcp_retransmits", i.retransmits.into());
        ins(r, "udp_lost", i.lost_packets.into());
    }
    if let Some(p) = &m.ping {
        ins(
            r,
            "ping_ms",
            if p.received > 0 {
                Value::from(p.avg_ms)
            } else {
                Value::Null
            },
        );
        ins(r, "ping_replies", p.received.into());
    }
    let md = &o.medium;
    ins(r, "lag_p50_us", md.lag.p50_us.into());
    ins(r, "lag_p99_us", md.lag.p99_us.into());
    ins(r, "lag_max_us", md.lag.max_us.into());
    ins(r, "lag_bound_us", (bound.as_ns() as f64 / 1000.0).into());
    ins(r, "valid", lag_ok.into());
    ins(r, "medium_cpu_share", md.cpu_share.into());
    ins(r, "medium_wall_s", md.wall_s.into());
    ins(r, "frames_in", md.frames_in.into());
    ins(r, "frames_out", md.frames_out.into());
    ins(
        r,
        "integrity_failures",
        (o.ap.integrity_failures + o.stations.iter().map(|s| s.integrity_failures).sum::<u64>())
            .into(),
    );
    ins(
        r,
        "mac_retries",
        o.station_mac.iter().map(|s| s.failures).sum::<u64>().into(),
    );
    ins(
        r,
        "queue_drops",
        o.stations.iter().map(|s| s.queue_drops).sum::<u64>().into(),
    );
}
