//! The measurement of `wisec bare run`: for each message size n, a fresh
//! responder (a freshly booted guest, or a fresh Linux responder in its
//! namespace) with a fresh key, then
//!
//! 1. `echoes` plain and `echoes` protected round trips, every answer
//!    verified;
//! 2. Figure 12 with the responder as the server (a STREAM): D2, D3 in the
//!    responder, D0, D1, D5 at the Linux client;
//! 3. Figure 12 with the responder as the client (a SINK): D0, D1 in the
//!    responder, D2, D3, D5 at the Linux server;
//! 4. the responder's report (its timings in its own clock ticks and its
//!    counters), protected.
//!
//! [`report`] puts the results beside the simulated `ccm-udp` model and
//! seed 000's published figures.

use super::peer::{report_u64, ClientRun, EchoRun, Peer, ReportMap, ServerRun};
use super::qemu::{Boot, Guest, GuestOptions};
use super::{linux, BareError};
use crate::cost::Calibration;
use crate::experiment::ccm_udp::{self, Endpoint};
use crate::experiment::{Param, Report, Table, Value};
use crate::live::net::{in_netns, LiveNet};
use serde::Serialize;
use std::collections::BTreeMap;
use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What to measure.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Message sizes n (data octets).
    pub sizes: Vec<usize>,
    /// Datagrams per Figure 12 phase (m).
    pub m: u32,
    /// Echo round trips per size and protection.
    pub echoes: u32,
    /// The Linux sender's line rate, Mb/s (0: unpaced).
    pub line_mbps: f64,
    /// Per-phase timeout.
    pub timeout: Duration,
}

/// Summary of one echo run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EchoSummary {
    /// Echoes sent, verified, lost.
    pub sent: u32,
    /// Verified answers.
    pub verified: u32,
    /// Lost echoes.
    pub lost: u32,
    /// Round-trip time at the Linux peer: median, 10th and 90th
    /// percentile, µs.
    pub rtt_us: [f64; 3],
    /// In the responder, per echo: frame seen → body verified and
    /// decrypted, → answer handed on, and total, µs (means).
    pub responder_us: [f64; 3],
}

/// One message size against one responder.
#[derive(Debug, Clone, Serialize)]
pub struct SizeRun {
    /// Data octets per message.
    pub n: usize,
    /// Datagrams per phase.
    pub m: u32,
    /// The responder's platform (`bare-x86_64` or `linux`).
    pub responder: String,
    /// The guest's boot, for the bare machine.
    pub boot: Option<Boot>,
    /// Plain and protected echoes.
    pub echo: [EchoSummary; 2],
    /// Responder as server: D2, D3 in the responder, ms.
    pub server_d2_d3_ms: [Option<f64>; 2],
    /// The Linux client of that run.
    pub linux_client: ClientRun,
    /// Responder as client: D0, D1 in the responder, ms.
    pub client_d0_d1_ms: [Option<f64>; 2],
    /// DATA the responder received as client, plain and protected, and
    /// how many were wrong.
    pub client_received: [u64; 3],
    /// The Linux server of that run.
    pub linux_server: ServerRun,
    /// The responder's final report.
    pub report: ReportMap,
    /// Answers the Linux peer rejected (by reason) or found stray.
    pub peer_rejected: BTreeMap<String, u64>,
}

impl SizeRun {
    /// True when every message arrived and verified both ways, and nothing
    /// was rejected on either side.
    pub fn clean(&self) -> bool {
        let m = self.m;
        let r = |k: &str| report_u64(&self.report, k, 0).unwrap_or(1);
        self.echo
            .iter()
            .all(|e| e.lost == 0 && e.verified == e.sent)
            && self.linux_client.received == [m, m]
            && self.linux_client.wrong == 0
            && self.client_received == [u64::from(m), u64::from(m), 0]
            && self.peer_rejected.is_empty()
            && wisec_bare::wire::Reject::ALL
                .iter()
                .all(|x| r(x.name()) == 0)
    }
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)] as f64 / 1e3
}

fn echo_summary(e: &EchoRun, report: &ReportMap, key: &str, hz: f64) -> EchoSummary {
    let mut rtt = e.rtt_ns.clone();
    rtt.sort_unstable();
    let count = report_u64(report, key, 0).unwrap_or(0).max(1) as f64;
    let us = |i: usize| report_u64(report, key, i).unwrap_or(0) as f64 / count / hz * 1e6;
    EchoSummary {
        sent: e.sent,
        verified: e.verified,
        lost: e.lost,
        rtt_us: [
            percentile(&rtt, 0.5),
            percentile(&rtt, 0.1),
            percentile(&rtt, 0.9),
        ],
        responder_us: [us(1), us(2), us(3)],
    }
}

fn ticks_ms(r: &ReportMap, key: &str, hz: f64) -> Option<f64> {
    report_u64(r, key, 0).map(|t| t as f64 / hz * 1e3)
}

/// Runs the measurement for one size against the responder `peer` talks
/// to. `stop` ends it early.
pub fn measure(
    peer: &mut Peer,
    cfg: &RunConfig,
    n: usize,
    stop: &AtomicBool,
) -> Result<SizeRun, BareError> {
    let t = cfg.timeout;
    let check = || {
        if stop.load(Ordering::SeqCst) {
            Err(BareError::Interrupted)
        } else {
            Ok(())
        }
    };
    let plain = peer.echo(cfg.echoes, n, false, t)?;
    check()?;
    let protected = peer.echo(cfg.echoes, n, true, t)?;
    check()?;
    let client = peer.stream(cfg.m, n, t)?;
    check()?;
    let after_stream = peer.report(true, t)?;
    check()?;
    let server = peer.sink(cfg.m, n, t)?;
    check()?;
    let report = peer.report(true, t)?;
    let hz = report_u64(&report, "hz", 0).unwrap_or(1) as f64;
    Ok(SizeRun {
        n,
        m: cfg.m,
        responder: report
            .get("platform")
            .and_then(|v| v.first())
            .cloned()
            .unwrap_or_default(),
        boot: None,
        echo: [
            echo_summary(&plain, &report, "echo_plain", hz),
            echo_summary(&protected, &report, "echo_protected", hz),
        ],
        server_d2_d3_ms: [
            ticks_ms(&after_stream, "d2_ticks", hz),
            ticks_ms(&after_stream, "d3_ticks", hz),
        ],
        linux_client: client,
        client_d0_d1_ms: [
            ticks_ms(&report, "d0_ticks", hz),
            ticks_ms(&report, "d1_ticks", hz),
        ],
        client_received: [
            report_u64(&report, "sink_received", 0).unwrap_or(0),
            report_u64(&report, "sink_received", 1).unwrap_or(0),
            report_u64(&report, "sink_wrong", 0).unwrap_or(0),
        ],
        linux_server: server,
        report,
        peer_rejected: peer
            .rejected
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .chain((peer.stray > 0).then(|| ("stray".to_string(), peer.stray)))
            .collect(),
    })
}

/// The bare machine: one fresh guest and key per size.
pub fn run_guest(
    opts: &GuestOptions,
    cfg: &RunConfig,
    stop: &AtomicBool,
    mut progress: impl FnMut(&str),
) -> Result<Vec<SizeRun>, BareError> {
    let mut out = Vec::new();
    for &n in &cfg.sizes {
        if stop.load(Ordering::SeqCst) {
            return Err(BareError::Interrupted);
        }
        progress(&format!("bare machine (QEMU): booting for n = {n}"));
        let key = super::random_key()?;
        let guest = Guest::boot(opts, Some(&key))?;
        let mut peer = Peer::connect(guest.addr, Some(&key))?;
        peer.line_mbps = cfg.line_mbps;
        progress(&format!("bare machine (QEMU): n = {n}, m = {}", cfg.m));
        let mut r = measure(&mut peer, cfg, n, stop)?;
        r.boot = Some(guest.boot.clone());
        out.push(r);
    }
    Ok(out)
}

/// Two Linux endpoints in network namespaces joined by a veth pair: the
/// responder in one, the initiator in the other, one fresh responder and
/// key per size. Needs root; the namespaces are removed on every exit.
pub fn run_netns(
    cfg: &RunConfig,
    run_dir: Option<&Path>,
    stop: &Arc<AtomicBool>,
    mut progress: impl FnMut(&str),
) -> Result<Vec<SizeRun>, BareError> {
    let mut net = LiveNet::new(run_dir)?;
    net.set_interrupt(Arc::clone(stop));
    let srv = net.add_namespace("ccm-srv")?;
    let cli = net.add_namespace("ccm-cli")?;
    net.veth(&srv, "ccm0", &cli, "ccm1")?;
    net.add_addr(&srv, "ccm0", "10.77.0.1/24")?;
    net.add_addr(&cli, "ccm1", "10.77.0.2/24")?;
    let mut out = Vec::new();
    for &n in &cfg.sizes {
        if stop.load(Ordering::SeqCst) {
            return Err(BareError::Interrupted);
        }
        progress(&format!("Linux-Linux (namespaces): n = {n}, m = {}", cfg.m));
        let key = super::random_key()?;
        let ssock = in_netns(&srv, || UdpSocket::bind("10.77.0.1:7000"))?.map_err(|e| {
            BareError::Io("binding 10.77.0.1:7000 in the server namespace".into(), e)
        })?;
        let csock = in_netns(&cli, || UdpSocket::bind("10.77.0.2:0"))?
            .map_err(|e| BareError::Io("binding 10.77.0.2 in the client namespace".into(), e))?;
        let done = AtomicBool::new(false);
        let result = std::thread::scope(|s| {
            let (k, ssock, done) = (&key, &ssock, &done);
            let responder = s.spawn(move || linux::serve(ssock, Some(k), done));
            let mut peer = Peer::new(csock, SocketAddr::from(([10, 77, 0, 1], 7000)), Some(&key));
            peer.line_mbps = cfg.line_mbps;
            let r = measure(&mut peer, cfg, n, stop);
            done.store(true, Ordering::SeqCst);
            let served = responder
                .join()
                .map_err(|_| BareError::Guest("the Linux responder panicked".into()))?;
            served?;
            r
        })?;
        out.push(result);
    }
    let _ = net.cleanup();
    Ok(out)
}

/// Datagrams received of m, plain and protected: `1000+1000` or
/// `998+0 of 1000`.
fn rx(plain: u64, protected: u64, m: u32) -> Value {
    let m = u64::from(m);
    if plain == m && protected == m {
        format!("{plain}+{protected}").into()
    } else {
        format!("{plain}+{protected} of {m}").into()
    }
}

fn opt(v: Option<f64>) -> Value {
    v.map_or(Value::Null, Value::from)
}

/// The report: measured tables beside the `ccm-udp` model (nominal
/// calibration, the seed's 100 Mb/s link) and seed 000's figures.
pub fn report(
    cfg: &RunConfig,
    guest: &[SizeRun],
    netns: &[SizeRun],
    image: Option<&super::image::Image>,
    netns_note: Option<&str>,
) -> Report {
    let cal = Calibration::nominal();
    let (bare, lin) = (Endpoint::bare(), Endpoint::linux());
    let model =
        |s: &Endpoint, c: &Endpoint, n: usize| ccm_udp::exchange(s, c, cfg.m, n, 100.0, 1, &cal).d;
    let mut tables = Vec::new();
    let mut t = Table::new(
        "bare_server_linux_client",
        &format!(
            "Bare server (QEMU guest) and Linux client, m = {}: D2, D3 in the guest (TSC), D0, D1, D5 at the Linux client; seed 000 Figures 13, 16, 19 (bare server, Linux client)",
            cfg.m
        ),
    );
    for (c, u) in [
        ("n", Some("octets")),
        ("guest D2", Some("ms")),
        ("guest D3", Some("ms")),
        ("Linux D0", Some("ms")),
        ("Linux D1", Some("ms")),
        ("D5", Some("ms")),
        ("Linux rx", None),
        ("model D2", Some("ms")),
        ("model D3", Some("ms")),
        ("model D5", Some("ms")),
        ("seed D2", Some("ms")),
        ("seed D3", Some("ms")),
        ("seed D0", Some("ms")),
        ("seed D1", Some("ms")),
    ] {
        t = t.column(c, u);
    }
    for r in guest {
        let md = model(&bare, &lin, r.n);
        let seed = ccm_udp::published("bare", "linux", r.n);
        t.push(vec![
            r.n.into(),
            opt(r.server_d2_d3_ms[0]),
            opt(r.server_d2_d3_ms[1]),
            opt(r.linux_client.d0_ms),
            opt(r.linux_client.d1_ms),
            opt(r.linux_client.d5_ms),
            rx(
                r.linux_client.received[0].into(),
                r.linux_client.received[1].into(),
                r.m,
            ),
            opt(md[2]),
            opt(md[3]),
            opt(md[5]),
            opt(seed[2]),
            opt(seed[3]),
            opt(seed[0]),
            opt(seed[1]),
        ]);
    }
    tables.push(t);

    let mut t = Table::new(
        "linux_server_bare_client",
        &format!(
            "Linux server and bare client (QEMU guest), m = {}: D0, D1 in the guest (TSC), D2, D3, D5 at the Linux server (paced to {} Mb/s); seed 000 Figures 14, 15, 20",
            cfg.m, cfg.line_mbps
        ),
    );
    for (c, u) in [
        ("n", Some("octets")),
        ("guest D0", Some("ms")),
        ("guest D1", Some("ms")),
        ("guest rx", None),
        ("Linux D2", Some("ms")),
        ("Linux D3", Some("ms")),
        ("D5", Some("ms")),
        ("model D0", Some("ms")),
        ("model D1", Some("ms")),
        ("seed D0", Some("ms")),
        ("seed D1", Some("ms")),
        ("seed D2", Some("ms")),
        ("seed D3", Some("ms")),
    ] {
        t = t.column(c, u);
    }
    for r in guest {
        let md = model(&lin, &bare, r.n);
        let seed = ccm_udp::published("linux", "bare", r.n);
        t.push(vec![
            r.n.into(),
            opt(r.client_d0_d1_ms[0]),
            opt(r.client_d0_d1_ms[1]),
            rx(r.client_received[0], r.client_received[1], r.m),
            opt(r.linux_server.d2_ms),
            opt(r.linux_server.d3_ms),
            opt(r.linux_server.d5_ms),
            opt(md[0]),
            opt(md[1]),
            opt(seed[0]),
            opt(seed[1]),
            opt(seed[2]),
            opt(seed[3]),
        ]);
    }
    tables.push(t);

    if !netns.is_empty() {
        let mut t = Table::new(
            "linux_linux_netns",
            &format!(
                "Linux server and Linux client in two network namespaces joined by a veth pair, m = {}: responder's D2, D3 (as server) and D0, D1 (as client), initiator's D5; seed 000 Figures 14, 16, 18",
                cfg.m
            ),
        );
        for (c, u) in [
            ("n", Some("octets")),
            ("D0", Some("ms")),
            ("D1", Some("ms")),
            ("D2", Some("ms")),
            ("D3", Some("ms")),
            ("D5", Some("ms")),
            ("rx as client, server", None),
            ("model D2", Some("ms")),
            ("model D3", Some("ms")),
            ("seed D0", Some("ms")),
            ("seed D1", Some("ms")),
            ("seed D2", Some("ms")),
            ("seed D3", Some("ms")),
            ("seed D5", Some("ms")),
        ] {
            t = t.column(c, u);
        }
        for r in netns {
            let md = model(&lin, &lin, r.n);
            let seed = ccm_udp::published("linux", "linux", r.n);
            t.push(vec![
                r.n.into(),
                opt(r.client_d0_d1_ms[0]),
                opt(r.client_d0_d1_ms[1]),
                opt(r.server_d2_d3_ms[0]),
                opt(r.server_d2_d3_ms[1]),
                opt(r.linux_client.d5_ms),
                format!(
                    "{}; {}",
                    rx(r.client_received[0], r.client_received[1], r.m),
                    rx(
                        r.linux_client.received[0].into(),
                        r.linux_client.received[1].into(),
                        r.m
                    )
                )
                .into(),
                opt(md[2]),
                opt(md[3]),
                opt(seed[0]),
                opt(seed[1]),
                opt(seed[2]),
                opt(seed[3]),
                opt(seed[4]),
            ]);
        }
        tables.push(t);
    }

    let mut t = Table::new(
        "echo_round_trips",
        &format!(
            "{} echo round trips per size and protection, every answer verified: round-trip time at the Linux peer and time per echo inside the responder",
            cfg.echoes
        ),
    );
    for (c, u) in [
        ("responder", None),
        ("n", Some("octets")),
        ("protected", None),
        ("verified", None),
        ("RTT p50", Some("us")),
        ("RTT p10", Some("us")),
        ("RTT p90", Some("us")),
        ("in responder: open", Some("us")),
        ("reply", Some("us")),
        ("total", Some("us")),
    ] {
        t = t.column(c, u);
    }
    for r in guest.iter().chain(netns) {
        for (p, e) in r.echo.iter().enumerate() {
            t.push(vec![
                r.responder.clone().into(),
                r.n.into(),
                (p == 1).into(),
                format!("{}/{}", e.verified, e.sent).into(),
                e.rtt_us[0].into(),
                e.rtt_us[1].into(),
                e.rtt_us[2].into(),
                e.responder_us[0].into(),
                e.responder_us[1].into(),
                e.responder_us[2].into(),
            ]);
        }
    }
    tables.push(t);

    let mut notes = vec![
        "D0-D3 are seed 000's internal timings (section 5.4, Figure 12): D2 = ST1 - ST0 and D3 = ST3 - ST2 at the server (the request's frame seen to the m-th datagram handed to the NIC, plain and protected), D0 = CT1 - CT0 and D1 = CT3 - CT2 at the client (the first datagram's frame seen to the m-th processed). The guest measures them with its TSC, whose rate it measured against the PIT at boot, and sends them back in a protected REPORT; the Linux side uses the monotonic clock. D5 = WT3 - WT2 is taken at the Linux socket (the seed took it from Wireshark on the switch): at the Linux client from sending the protected request to receiving the last protected datagram, at the Linux server from receiving the protected request to sending the last protected datagram.".to_string(),
        "The guest runs under QEMU's TCG (no KVM): every guest instruction is translated, and AES-NI instructions are executed by helper functions in software, so the guest's CCM and its whole receive path are slower than the same code on the host CPU. The guest's TSC and the PIT both follow the host's clock under TCG, so the guest's timings are real elapsed time, but they are the emulated machine's, not a bare PC's. Between the guest and the Linux peer is QEMU's user-mode network (slirp) on loopback, not an Ethernet switch.".to_string(),
        format!("The Linux sender paces its datagrams to {} Mb/s (the line rate of the seed's switched Ethernet; frame plus 24 octets of preamble, FCS and gap), as the seed's blocking Linux socket was paced by its NIC; the guest sends as fast as its driver hands frames to the emulated NIC.", cfg.line_mbps),
        "Model columns: the simulated ccm-udp experiment's endpoint models (wisec lab run ccm-udp) with the nominal calibration and a 100 Mb/s link; its bare endpoint is a cost model fitted to the seed's own bare timings, so its agreement with the seed is by construction. Seed columns: the ends of the ranges the seed's text gives (n = 50 and n = 1000 only).".to_string(),
    ];
    if let Some(n) = netns_note {
        notes.push(n.to_string());
    }
    if cfg.m != 1000 {
        notes.push(format!(
            "m = {} here; the seed's figures are for m = 1000 (scale by m/1000 to compare).",
            cfg.m
        ));
    }
    let mut parameters = vec![
        Param::new(
            "host",
            format!(
                "{} cores, load average {} when the report was written",
                std::thread::available_parallelism().map_or(0, |n| n.get()),
                std::fs::read_to_string("/proc/loadavg")
                    .ok()
                    .and_then(|l| l.split_whitespace().next().map(str::to_string))
                    .unwrap_or_else(|| "?".into())
            ),
            "other work on the host competes with QEMU and the peer",
        ),
        Param::new("m", cfg.m, "datagrams per phase"),
        Param::new(
            "sizes",
            cfg.sizes
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(","),
            "data octets per message (n)",
        ),
        Param::new(
            "echoes",
            cfg.echoes,
            "echo round trips per size and protection",
        ),
        Param::new("line_mbps", cfg.line_mbps, "the Linux sender's pacing"),
    ];
    if let Some(img) = image {
        parameters.push(Param::new(
            "image",
            format!(
                "{} octets (text {}, rodata {}, data {}, bss {})",
                img.file_bytes,
                img.sections.text,
                img.sections.rodata,
                img.sections.data,
                img.sections.bss
            ),
            "the ELF32 image QEMU boots",
        ));
    }
    if let Some(b) = guest.first().and_then(|r| r.boot.as_ref()) {
        parameters.push(Param::new(
            "boot",
            format!(
                "{:.0} ms from starting QEMU to ready; {:.0} ms from reset by the guest's TSC ({} Hz); AES-NI {}",
                b.host_ms,
                b.guest_ms,
                b.tsc_hz,
                if b.aes_ni { "yes" } else { "no" }
            ),
            "the guest's boot",
        ));
        parameters.push(Param::new(
            "selftest",
            b.selftest.clone(),
            "the guest's known-answer test",
        ));
    }
    Report {
        experiment: "bare".into(),
        description: "Seed 000's CCM-UDP exchange with wisec's CCM on a machine with no operating system (an x86-64 image under QEMU) and between two Linux endpoints, beside the simulated model and the seed's figures.".into(),
        parameters,
        tables,
        plots: Vec::new(),
        notes,
    }
}
