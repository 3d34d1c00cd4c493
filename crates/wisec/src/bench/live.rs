//! `wisec bench live`: does the live medium keep real time on a saturated
//! link? A live BSS (one station, a wired server) carries iperf3 UDP
//! offered above the link's capacity and a TCP test; the report gives the
//! throughput beside the simulator's for the same link (the peer measured
//! in the same run), the medium's lag (p50, p99, max) and the CPU time of
//! its thread.

use crate::error::Failure;
use crate::lab::live::{print_outcome, rate_text, LinkArgs, LivePhy};
use anyhow::{anyhow, Context as _};
use clap::Args;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use wisec_lab::cost::Calibration;
use wisec_lab::experiment::overhead::{build, run as run_sim, LinkScenario};
use wisec_lab::live::bss::{BssConfig, BssOutcome, LiveBss};
use wisec_lab::live::medium::LagStats;
use wisec_lab::live::tools::{self, IperfSpec};
use wisec_lab::live::LiveError;
use wisec_lab::net::Traffic;
use wisec_lab::time::Time;

const HELP: &str = "\
The links (--links, comma-separated):
  g54   802.11g, 54 Mb/s, UDP offered at 40 Mb/s
  n40   802.11n MCS 7, 40 MHz, long GI, A-MPDU, UDP offered at 150 Mb/s
  b11   802.11b, 11 Mb/s, UDP offered at 10 Mb/s

Examples (as root, on a release build):
  cargo build --release -p wisec && sudo target/release/wisec bench live
  wisec bench live --links n40 --seconds 5 --runs 1 --json
  wisec bench live --links b11 --seconds 2 --runs 1 --csv > live.csv";

/// Options of `wisec bench live`.
#[derive(Debug, Args)]
#[command(after_help = HELP)]
pub struct LiveBenchArgs {
    /// Links to measure, comma-separated: g54, n40, b11
    #[arg(
        long,
        value_name = "LINKS",
        value_delimiter = ',',
        default_value = "g54,n40"
    )]
    links: Vec<String>,
    /// Security of every link
    #[arg(long, value_name = "SUITE", default_value = "ccmp128")]
    suite: String,
    /// Seconds of each iperf3 test
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    seconds: f64,
    /// Runs of each test; the report gives each run and the median
    #[arg(long, value_name = "N", default_value_t = 3)]
    runs: u32,
    #[command(flatten)]
    out: crate::tabular::TableFormat,
}

/// The columns of `--csv`: the fields of the JSON's rows (`lag` becomes
/// one column per statistic).
pub const CSV_COLUMNS: [&str; 15] = [
    "link",
    "rate",
    "traffic",
    "offered_mbps",
    "run",
    "live_mbps",
    "simulated_mbps",
    "live_over_simulated",
    "lag",
    "medium_cpu_share",
    "medium_wall_s",
    "events",
    "frames",
    "udp_lost",
    "tcp_retransmits",
];

/// One link of the bench.
struct Link {
    name: &'static str,
    args: LinkArgs,
    offered_bps: u64,
}

fn link(name: &str, suite: &str) -> Option<Link> {
    let base = LinkArgs {
        suite: suite.to_string(),
        phy: LivePhy::G,
        rate: None,
        mcs: None,
        width: 20,
        short_gi: false,
        no_ampdu: false,
        rts_threshold: None,
        seed: 1,
        ap_profile: "host".into(),
        sta_profile: "host".into(),
    };
    Some(match name {
        "g54" => Link {
            name: "g54",
            args: base,
            offered_bps: 40_000_000,
        },
        "b11" => Link {
            name: "b11",
            args: LinkArgs {
                phy: LivePhy::B,
                ..base
            },
            offered_bps: 10_000_000,
        },
        "n40" => Link {
            name: "n40",
            args: LinkArgs {
                phy: LivePhy::N,
                mcs: Some(7),
                width: 40,
                ..base
            },
            offered_bps: 150_000_000,
        },
        _ => return None,
    })
}

/// One measured test.
#[derive(Debug, Clone, serde::Serialize)]
struct Row {
    link: String,
    rate: String,
    traffic: String,
    offered_mbps: Option<f64>,
    run: u32,
    live_mbps: f64,
    simulated_mbps: f64,
    live_over_simulated: f64,
    lag: LagStats,
    medium_cpu_share: f64,
    medium_wall_s: f64,
    events: u64,
    frames: u64,
    udp_lost: Option<u64>,
    tcp_retransmits: Option<u64>,
}

fn live_err(e: LiveError) -> Failure {
    match e {
        LiveError::Config(m) => Failure::Usage(m),
        e => Failure::Runtime(anyhow!("{e}")),
    }
}

/// The simulator's throughput for the same link and traffic (Mb/s).
fn simulate(cfg: &BssConfig, traffic: Traffic, seconds: f64, cal: &Calibration) -> f64 {
    let mut s = match LinkScenario::new(cfg.security, 54.0, traffic, cfg.seed) {
        Some(s) => s,
        None => return f64::NAN,
    };
    s.phy = cfg.phy.clone();
    s.rate = cfg.rate;
    s.block_ack = cfg.block_ack;
    s.ap_profile = cfg.ap_profile.clone();
    s.sta_profile = cfg.sta_profile.clone();
    s.limit = Time::from_secs_f64(seconds + 5.0);
    let mut bss = build(&s, cal);
    run_sim(&mut bss, &s).throughput_mbps
}

/// Runs `wisec bench live`.
pub fn run(a: LiveBenchArgs, interrupt: Arc<AtomicBool>) -> Result<(), Failure> {
    if !(1.0..=600.0).contains(&a.seconds) {
        return Err(Failure::Usage(format!("--seconds {}: 1 to 600", a.seconds)));
    }
    if !(1..=100).contains(&a.runs) {
        return Err(Failure::Usage(format!("--runs {}: 1 to 100", a.runs)));
    }
    let links: Vec<Link> = a
        .links
        .iter()
        .map(|n| {
            link(n, &a.suite)
                .ok_or_else(|| Failure::Usage(format!("--links: no link '{n}' (g54, n40, b11)")))
        })
        .collect::<Result<_, _>>()?;
    if cfg!(debug_assertions) {
        eprintln!(
            "warning: this is an unoptimised build; the medium is many times slower than in a \
release build (cargo build --release)"
        );
    }
    wisec_lab::live::sys::require_programs(&["ip", "iperf3"]).map_err(live_err)?;
    let cal = Calibration::nominal();
    let mut rows = Vec::new();
    for l in &links {
        let cfg = l.args.config(1)?;
        let mut bss = LiveBss::create(cfg.clone(), None).map_err(live_err)?;
        bss.net_mut().set_interrupt(Arc::clone(&interrupt));
        let server = cfg.hosts[0].ip;
        let srv_ns = bss
            .netns("server")
            .cloned()
            .context("no server namespace")?;
        let sta_ns = bss.netns("sta1").cloned().context("no station namespace")?;
        let sim_udp = simulate(
            &cfg,
            Traffic::UdpFor {
                duration: Time::from_secs_f64(a.seconds),
                payload: 1472,
            },
            a.seconds,
            &cal,
        );
        let sim_tcp = simulate(
            &cfg,
            Traffic::TcpFor {
                duration: Time::from_secs_f64(a.seconds),
            },
            a.seconds,
            &cal,
        );
        for traffic in ["udp", "tcp"] {
            for run in 1..=a.runs {
                if interrupt.load(std::sync::atomic::Ordering::SeqCst) {
                    return Err(Failure::Runtime(anyhow!("interrupted")));
                }
                bss.start(&cal, None).map_err(live_err)?;
                let measured = (|| {
                    bss.wait_connected(Duration::from_secs(15))?;
                    let srv = tools::iperf3_server(
                        bss.net_mut(),
                        &srv_ns,
                        server,
                        &format!("{}-{traffic}-{run}-server", l.name),
                    )?;
                    let spec = if traffic == "udp" {
                        IperfSpec::udp_for(a.seconds, l.offered_bps, 1472)
                    } else {
                        IperfSpec::tcp_for(a.seconds)
                    };
                    let r = tools::iperf3_client(
                        bss.net_mut(),
                        &sta_ns,
                        server,
                        &spec,
                        &format!("{}-{traffic}-{run}", l.name),
                        Duration::from_secs_f64(a.seconds * 3.0 + 30.0),
                    );
                    bss.net_mut().stop(srv);
                    r
                })();
                std::thread::sleep(Duration::from_millis(200));
                let o: BssOutcome = bss.stop().map_err(live_err)?;
                let r = measured.map_err(live_err)?;
                let sim = if traffic == "udp" { sim_udp } else { sim_tcp };
                let live = r.receiver_bps / 1e6;
                if !(a.out.json || a.out.csv) {
                    eprintln!(
                        "{} {traffic} run {run}: {live:.2} Mb/s (simulated {sim:.2})",
                        l.name
                    );
                    print_outcome(&o);
                }
                rows.push(Row {
                    link: l.name.into(),
                    rate: rate_text(&cfg),
                    traffic: traffic.into(),
                    offered_mbps: (traffic == "udp").then(|| l.offered_bps as f64 / 1e6),
                    run,
                    live_mbps: live,
                    simulated_mbps: sim,
                    live_over_simulated: live / sim,
                    lag: o.medium.lag,
                    medium_cpu_share: o.medium.cpu_share,
                    medium_wall_s: o.medium.wall_s,
                    events: o.medium.events,
                    frames: o.medium.frames_in + o.medium.frames_out,
                    udp_lost: r.lost_packets,
                    tcp_retransmits: r.retransmits,
                });
            }
        }
        let c = bss.close();
        if !c.failures.is_empty() {
            return Err(Failure::Runtime(anyhow!(
                "cleanup left: {}",
                c.failures.join("; ")
            )));
        }
    }
    let v = serde_json::json!({ "suite": a.suite, "seconds": a.seconds, "rows": rows });
    if let Some(done) = crate::tabular::print(a.out, &v, &CSV_COLUMNS, &rows) {
        return done;
    }
    print_table(&rows);
    Ok(())
}

fn print_table(rows: &[Row]) {
    crate::outln!(
        "{:<5} {:<34} {:<4} {:>3} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>8}",
        "link",
        "rate",
        "flow",
        "run",
        "offered",
        "live",
        "simulated",
        "live/sim",
        "lag p50",
        "lag p99",
        "lag max",
        "CPU"
    );
    crate::outln!(
        "{:<5} {:<34} {:<4} {:>3} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>8}",
        "",
        "",
        "",
        "",
        "Mb/s",
        "Mb/s",
        "Mb/s",
        "",
        "us",
        "us",
        "us",
        "% core"
    );
    for r in rows {
        crate::outln!(
            "{:<5} {:<34} {:<4} {:>3} {:>8} {:>9.2} {:>9.2} {:>9.3} {:>9.1} {:>9.1} {:>10.1} {:>8.1}",
            r.link,
            r.rate,
            r.traffic,
            r.run,
            r.offered_mbps.map_or(String::from("-"), |o| format!("{o:.0}")),
            r.live_mbps,
            r.simulated_mbps,
            r.live_over_simulated,
            r.lag.p50_us,
            r.lag.p99_us,
            r.lag.max_us,
            r.medium_cpu_share * 100.0
        );
    }
}
