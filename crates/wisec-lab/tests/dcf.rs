//! The DCF's frame exchanges as they appear on the air: byte-exact control
//! frames and Duration values, SIFS spacing, retries and the retry limit,
//! duplicate detection, hidden stations, ERP protection, group frames,
//! wired links, and properties over random topologies.

use proptest::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;
use wisec_lab::frames::FrameInfo;
use wisec_lab::node::{Ctx, IfaceId, Node, PortId, RxInfo, TxOutcome, TxRequest, TxStatus};
use wisec_lab::sim::{MacConfig, Simulator};
use wisec_lab::traffic::{SaturatedSource, Sink};
use wisec_lab::wired::WiredConfig;
use wisec_lab::{PhyProfile, Protection, Rate, Time};
use wisec_wire::frame_control::ctrl_subtype;
use wisec_wire::MacAddr;

fn addr(i: u8) -> MacAddr {
    MacAddr([2, 0, 0, 0, 0, i])
}

#[derive(Debug, Clone)]
struct Seen {
    start: Time,
    end: Time,
    rate: Rate,
    bytes: Vec<u8>,
}

fn record(sim: &mut Simulator, ch: wisec_lab::ChannelId) -> Rc<RefCell<Vec<Seen>>> {
    let log = Rc::new(RefCell::new(Vec::new()));
    let l = log.clone();
    sim.set_observer(
        ch,
        Box::new(move |f| {
            l.borrow_mut().push(Seen {
                start: f.start,
                end: f.end,
                rate: f.rate,
                bytes: f.mpdus[0].to_vec(),
            })
        }),
    );
    log
}

/// A node that sends a fixed list of frames, the first when a timer fires.
#[derive(Debug, Default)]
struct Sender {
    iface: Option<IfaceId>,
    at: Time,
    frames: Vec<Vec<u8>>,
    statuses: Vec<TxStatus>,
    received: Vec<Vec<u8>>,
}

impl Node for Sender {
    fn start(&mut self, _now: Time, ctx: &mut Ctx<'_>) {
        ctx.set_timer(self.at, 1);
    }
    fn on_timer(&mut self, _now: Time, _token: u64, ctx: &mut Ctx<'_>) {
        if let Some(i) = self.iface {
            ctx.wake(i);
        }
    }
    fn on_frame(&mut self, _now: Time, frame: &[u8], _info: &RxInfo, _ctx: &mut Ctx<'_>) {
        self.received.push(frame.to_vec());
    }
    fn poll_transmit(
        &mut self,
        now: Time,
        _iface: IfaceId,
        _ctx: &mut Ctx<'_>,
    ) -> Option<TxRequest> {
        if now < self.at || self.frames.is_empty() {
            return None;
        }
        let f = self.frames.remove(0);
        Some(TxRequest {
            mpdu: f,
            rate: None,
            token: self.statuses.len() as u64 + 100,
        })
    }
    fn on_tx_status(&mut self, _now: Time, status: &TxStatus, _ctx: &mut Ctx<'_>) {
        self.statuses.push(*status);
    }
}

fn data_frame(from: u8, to: MacAddr, seq: u64) -> Vec<u8> {
    let mut s = SaturatedSource::new(addr(from), to, 200);
    s.da = to;
    s.frame(seq)
}

/// One station, one frame to the AP at 1 ms, 802.11b at 11 Mb/s.
fn one_frame(
    cfg: impl Fn(MacConfig) -> MacConfig,
) -> (
    Simulator,
    Rc<RefCell<Vec<Seen>>>,
    wisec_lab::NodeId,
    wisec_lab::NodeId,
) {
    let mut sim = Simulator::new(5);
    let ch = sim.add_channel(PhyProfile::b());
    let log = record(&mut sim, ch);
    let ap = sim.add_node(Sink::new());
    sim.attach(ap, ch, cfg(MacConfig::dcf(addr(1), Rate::CCK_11)));
    let sta = sim.add_node(Sender {
        at: Time::from_ms(1),
        frames: vec![data_frame(2, addr(1), 7)],
        ..Default::default()
    });
    let i = sim.attach(sta, ch, cfg(MacConfig::dcf(addr(2), Rate::CCK_11)));
    sim.node_mut::<Sender>(sta).unwrap().iface = Some(i);
    (sim, log, ap, sta)
}

#[test]
fn data_and_ack_on_the_air() {
    let (mut sim, log, ap, sta) = one_frame(|c| c);
    sim.run_until(Time::from_ms(20));
    let log = log.borrow();
    assert_eq!(log.len(), 2, "{log:?}");
    let (data, ack) = (&log[0], &log[1]);
    // The medium was idle for more than DIFS: the frame goes at once.
    assert_eq!(data.start, Time::from_ms(1));
    // 24 + 8 + 200 + 4 = 236 octets at 11 Mb/s: 192 + ceil(1888 / 11).
    assert_eq!(data.end - data.start, Time::from_us(192 + 172));
    assert_eq!(data.rate, Rate::CCK_11);
    // Duration = SIFS + Ack at 2 Mb/s = 10 + 248 (9.2.5.2).
    assert_eq!(&data.bytes[2..4], &258u16.to_le_bytes());
    // Not a retry.
    assert_eq!(data.bytes[1] & 0x08, 0);
    // The Ack: SIFS later, at 2 Mb/s, 0xd4 to the sender, Duration 0.
    assert_eq!(ack.start, data.end + Time::from_us(10));
    assert_eq!(ack.rate, Rate::DSSS_2);
    assert_eq!(ack.bytes, vec![0xd4, 0, 0, 0, 2, 0, 0, 0, 0, 2]);
    assert_eq!(ack.end - ack.start, Time::from_us(248));
    let s = sim.node::<Sender>(sta).unwrap();
    assert_eq!(s.statuses.len(), 1);
    assert_eq!(s.statuses[0].outcome, TxOutcome::Acked);
    assert_eq!(s.statuses[0].attempts, 1);
    assert_eq!(s.statuses[0].token, 100);
    let c = sim.node::<Sink>(ap).unwrap().counters;
    assert_eq!((c.frames, c.udp_payload_octets), (1, 200 - 28));
}

#[test]
fn rts_cts_exchange_on_the_air() {
    let (mut sim, log, _, sta) = one_frame(|c| MacConfig {
        rts_threshold: Some(100),
        ..c
    });
    sim.run_until(Time::from_ms(20));
    let log = log.borrow();
    assert_eq!(log.len(), 4, "{log:?}");
    let kinds: Vec<u8> = log.iter().map(|s| s.bytes[0]).collect();
    // RTS, CTS, data, Ack.
    assert_eq!(kinds, vec![0xb4, 0xc4, 0x08, 0xd4]);
    let t = |i: usize| &log[i];
    for i in 1..4 {
        assert_eq!(
            t(i).start,
            t(i - 1).end + Time::from_us(10),
            "gap before {i}"
        );
    }
    // RTS: 20 octets at 2 Mb/s = 192 + 80; Duration = 3 SIFS + CTS (248) +
    // data (364) + Ack (248) = 890.
    assert_eq!(t(0).end - t(0).start, Time::from_us(272));
    assert_eq!(&t(0).bytes[2..4], &890u16.to_le_bytes());
    assert_eq!(&t(0).bytes[4..10], &addr(1).0);
    assert_eq!(&t(0).bytes[10..16], &addr(2).0);
    // CTS: Duration = 890 - SIFS - CTS = 632, RA = the RTS's TA.
    assert_eq!(&t(1).bytes[2..4], &632u16.to_le_bytes());
    assert_eq!(&t(1).bytes[4..10], &addr(2).0);
    let s = sim.node::<Sender>(sta).unwrap();
    assert_eq!(s.statuses[0].outcome, TxOutcome::Acked);
    let rx = FrameInfo::parse(&t(1).bytes).unwrap();
    assert!(rx.is_ctrl(ctrl_subtype::CTS));
}

#[test]
fn retry_limit_and_retry_bit() {
    let (mut sim, log, ap, sta) = one_frame(|c| c);
    // Every frame from the station is lost at the AP.
    sim.set_loss(IfaceId(1), IfaceId(0), 1.0);
    sim.run_until(Time::from_ms(100));
    let log = log.borrow();
    // dot11ShortRetryLimit = 7 attempts, no Ack ever.
    assert_eq!(log.len(), 7);
    assert_eq!(log[0].bytes[1] & 0x08, 0);
    for s in &log[1..] {
        assert_eq!(s.bytes[1] & 0x08, 0x08, "Retry bit");
        // Apart from the Retry bit and the header, the bytes are the same.
        assert_eq!(&s.bytes[2..], &log[0].bytes[2..]);
    }
    // Between attempts: AckTimeout (10 + 20 + 192 µs), then DIFS and a
    // backoff, so at least 222 + 50 µs.
    for w in log.windows(2) {
        assert!(w[1].start >= w[0].end + Time::from_us(272));
    }
    let s = sim.node::<Sender>(sta).unwrap();
    assert_eq!(s.statuses.len(), 1);
    assert_eq!(s.statuses[0].outcome, TxOutcome::Dropped);
    assert_eq!(s.statuses[0].attempts, 7);
    assert_eq!(sim.node::<Sink>(ap).unwrap().counters.frames, 0);
    let m = sim.mac_stats(IfaceId(1)).unwrap();
    assert_eq!((m.failures, m.dropped, m.acked), (7, 1, 0));
}

#[test]
fn lost_acks_cause_retries_that_are_delivered_once() {
    let (mut sim, log, ap, sta) = one_frame(|c| c);
    // The AP's Acks never arrive.
    sim.set_loss(IfaceId(0), IfaceId(1), 1.0);
    sim.run_until(Time::from_ms(100));
    // 7 data frames and 7 Acks on the air; one delivery.
    assert_eq!(log.borrow().len(), 14);
    assert_eq!(sim.node::<Sink>(ap).unwrap().counters.frames, 1);
    assert_eq!(sim.mac_stats(IfaceId(0)).unwrap().duplicates, 6);
    assert_eq!(
        sim.node::<Sender>(sta).unwrap().statuses[0].outcome,
        TxOutcome::Dropped
    );
}

#[test]
fn group_frames_are_not_acknowledged_and_reach_everyone() {
    let mut sim = Simulator::new(1);
    let ch = sim.add_channel(PhyProfile::a());
    let log = record(&mut sim, ch);
    let mut ids = Vec::new();
    for i in 1..=3 {
        let n = sim.add_node(Sender::default());
        sim.attach(n, ch, MacConfig::dcf(addr(i), Rate::OFDM_24));
        ids.push(n);
    }
    let tx = sim.add_node(Sender {
        at: Time::from_us(500),
        frames: vec![data_frame(9, MacAddr::BROADCAST, 1)],
        ..Default::default()
    });
    let i = sim.attach(tx, ch, MacConfig::dcf(addr(9), Rate::OFDM_24));
    sim.node_mut::<Sender>(tx).unwrap().iface = Some(i);
    sim.run_until(Time::from_ms(5));
    assert_eq!(log.borrow().len(), 1);
    // Duration 0 for a group-addressed frame.
    assert_eq!(&log.borrow()[0].bytes[2..4], &[0, 0]);
    for n in ids {
        assert_eq!(sim.node::<Sender>(n).unwrap().received.len(), 1);
    }
    let s = sim.node::<Sender>(tx).unwrap();
    assert_eq!(s.statuses[0].outcome, TxOutcome::Sent);
    assert!(s.received.is_empty());
}

#[test]
fn erp_protection_sends_cts_to_self_at_a_dsss_rate() {
    let mut sim = Simulator::new(3);
    let ch = sim.add_channel(PhyProfile::g_mixed(Protection::CtsToSelf));
    let log = record(&mut sim, ch);
    let ap = sim.add_node(Sink::new());
    sim.attach(ap, ch, MacConfig::dcf(addr(1), Rate::OFDM_54));
    let sta = sim.add_node(Sender {
        at: Time::from_ms(1),
        frames: vec![data_frame(2, addr(1), 1)],
        ..Default::default()
    });
    let i = sim.attach(sta, ch, MacConfig::dcf(addr(2), Rate::OFDM_54));
    sim.node_mut::<Sender>(sta).unwrap().iface = Some(i);
    sim.run_until(Time::from_ms(10));
    let log = log.borrow();
    assert_eq!(log.len(), 3, "{log:?}");
    // CTS to itself at 11 Mb/s (long preamble: 192 + ceil(112 / 11) = 203).
    assert_eq!(log[0].bytes[0], 0xc4);
    assert_eq!(&log[0].bytes[4..10], &addr(2).0);
    assert_eq!(log[0].rate, Rate::CCK_11);
    assert_eq!(log[0].end - log[0].start, Time::from_us(203));
    // Data at 54 Mb/s SIFS later, then an Ack at 24 Mb/s (mandatory OFDM
    // rate: the basic set has no OFDM rate).
    assert_eq!(log[1].rate, Rate::OFDM_54);
    assert_eq!(log[1].start, log[0].end + Time::from_us(10));
    assert_eq!(log[2].rate, Rate::OFDM_24);
    // CTS Duration = 2 SIFS + data + Ack: 236 octets at 54 Mb/s = 20 + 4 ×
    // ceil(1910 / 216) + 6 = 62; Ack 20 + 8 + 6 = 34; total 116.
    assert_eq!(&log[0].bytes[2..4], &116u16.to_le_bytes());
    assert_eq!(
        sim.node::<Sender>(sta).unwrap().statuses[0].outcome,
        TxOutcome::Acked
    );
}

/// Two saturated stations hidden from each other: basic access collides
/// at the AP most of the time; RTS/CTS (the CTS sets the hidden station's
/// NAV) collides less and carries more.
#[test]
fn hidden_stations_and_rts_cts() {
    let run = |rts: bool| {
        let mut sim = Simulator::new(11);
        let ch = sim.add_channel(PhyProfile::b());
        let ap = sim.add_node(Sink::new());
        let mut cfg = MacConfig::dcf(addr(1), Rate::CCK_11);
        if rts {
            cfg.rts_threshold = Some(0);
        }
        sim.attach(ap, ch, cfg.clone());
        let mut ifs = Vec::new();
        for i in 2..=3 {
            let n = sim.add_node(SaturatedSource::new(addr(i), addr(1), 1500));
            ifs.push(sim.attach(
                n,
                ch,
                MacConfig {
                    addr: addr(i),
                    ..cfg.clone()
                },
            ));
        }
        assert!(sim.set_hidden(ifs[0], ifs[1], true));
        sim.run_until(Time::from_secs(2));
        let c = sim.node::<Sink>(ap).unwrap().counters;
        let m0 = sim.mac_stats(ifs[0]).unwrap();
        let m1 = sim.mac_stats(ifs[1]).unwrap();
        let attempts = if rts {
            m0.rts_attempts + m1.rts_attempts
        } else {
            m0.data_attempts + m1.data_attempts
        };
        (
            c.msdu_octets as f64 * 8.0 / 2.0 / 1e6,
            (m0.failures + m1.failures) as f64 / attempts as f64,
        )
    };
    let (basic, basic_p) = run(false);
    let (rts, rts_p) = run(true);
    assert!(basic_p > 0.4, "basic failure ratio {basic_p}");
    assert!(rts_p < 0.75 * basic_p, "{rts_p} vs {basic_p}");
    assert!(
        rts > 1.15 * basic,
        "rts {rts} Mb/s, basic {basic} Mb/s, p {rts_p} {basic_p}"
    );
}

/// A host behind a wired link: serialisation, delay, and drop-tail.
#[derive(Debug, Default)]
struct Host {
    burst: usize,
    got: Vec<(Time, usize)>,
}

impl Node for Host {
    fn start(&mut self, _now: Time, ctx: &mut Ctx<'_>) {
        for i in 0..self.burst {
            ctx.send_wired(PortId(0), vec![i as u8; 1250]);
        }
    }
    fn on_frame(&mut self, _: Time, _: &[u8], _: &RxInfo, _: &mut Ctx<'_>) {}
    fn poll_transmit(&mut self, _: Time, _: IfaceId, _: &mut Ctx<'_>) -> Option<TxRequest> {
        None
    }
    fn on_wired(&mut self, now: Time, _port: PortId, packet: &[u8], _ctx: &mut Ctx<'_>) {
        self.got.push((now, packet.len()));
    }
}

#[test]
fn wired_link_serialises_delays_and_drops_tail() {
    let mut sim = Simulator::new(0);
    let a = sim.add_node(Host {
        burst: 6,
        ..Default::default()
    });
    let b = sim.add_node(Host::default());
    let (link, pa, pb) = sim.connect(
        a,
        b,
        WiredConfig {
            rate_bps: 10_000_000,
            delay: Time::from_ms(2),
            queue_limit: 3,
        },
    );
    assert_eq!((pa, pb), (PortId(0), PortId(0)));
    sim.run_until(Time::from_secs(1));
    let got = &sim.node::<Host>(b).unwrap().got;
    // 1250 octets at 10 Mb/s = 1 ms each; one on the wire, three queued,
    // two dropped.
    let times: Vec<Time> = got.iter().map(|g| g.0).collect();
    assert_eq!(
        times,
        vec![
            Time::from_ms(3),
            Time::from_ms(4),
            Time::from_ms(5),
            Time::from_ms(6)
        ]
    );
    let st = sim.wired_stats(link, 0).unwrap();
    assert_eq!((st.sent, st.dropped), (4, 2));
    assert!(sim.node::<Host>(a).unwrap().got.is_empty());
}

#[test]
fn invalid_frames_are_refused() {
    let mut sim = Simulator::new(0);
    let ch = sim.add_channel(PhyProfile::b());
    let log = record(&mut sim, ch);
    let n = sim.add_node(Sender {
        at: Time::from_ms(1),
        frames: vec![vec![0x08], vec![]],
        ..Default::default()
    });
    let i = sim.attach(n, ch, MacConfig::dcf(addr(1), Rate::CCK_11));
    sim.node_mut::<Sender>(n).unwrap().iface = Some(i);
    sim.run_until(Time::from_ms(3));
    sim.wake(i);
    sim.run_until(Time::from_ms(5));
    assert!(log.borrow().is_empty());
    let s = sim.node::<Sender>(n).unwrap();
    assert_eq!(s.statuses.len(), 2);
    assert!(s.statuses.iter().all(|s| s.outcome == TxOutcome::Invalid));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random small networks (hidden pairs, lossy links, RTS or not, b or
    /// g): no panic, and every acknowledged frame was delivered once:
    /// acked ≤ delivered ≤ acked + dropped + stations (frames in flight at
    /// the end, or delivered but whose Acks were all lost).
    #[test]
    fn random_networks_keep_delivery_invariants(
        n in 1usize..6,
        hidden in proptest::collection::vec((0usize..6, 0usize..6), 0..4),
        loss in proptest::collection::vec((0usize..6, 0usize..6, 0.0f64..0.6), 0..4),
        rts in any::<bool>(),
        g in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut sim = Simulator::new(seed);
        let (phy, rate) = if g {
            (PhyProfile::g(), Rate::OFDM_54)
        } else {
            (PhyProfile::b(), Rate::CCK_11)
        };
        let ch = sim.add_channel(phy);
        let ap = sim.add_node(Sink::new());
        let mut cfg = MacConfig::dcf(addr(0), rate);
        if rts {
            cfg.rts_threshold = Some(500);
        }
        let ap_if = sim.attach(ap, ch, cfg.clone());
        let mut ifs = vec![ap_if];
        let mut nodes = Vec::new();
        for i in 0..n {
            let a = addr(i as u8 + 1);
            let node = sim.add_node(SaturatedSource::new(a, addr(0), 100 + 300 * i));
            nodes.push(node);
            ifs.push(sim.attach(node, ch, MacConfig { addr: a, ..cfg.clone() }));
        }
        for (x, y) in hidden {
            if x < ifs.len() && y < ifs.len() && x != y && x != 0 && y != 0 {
                sim.set_hidden(ifs[x], ifs[y], true);
            }
        }
        for (x, y, p) in loss {
            if x < ifs.len() && y < ifs.len() && x != y {
                sim.set_loss(ifs[x], ifs[y], p);
            }
        }
        sim.run_until(Time::from_ms(150));
        let delivered = sim.node::<Sink>(ap).unwrap().counters.frames;
        let (mut acked, mut dropped) = (0, 0);
        for node in nodes {
            let s = sim.node::<SaturatedSource>(node).unwrap();
            acked += s.acked;
            dropped += s.dropped;
        }
        prop_assert!(acked <= delivered, "acked {} delivered {}", acked, delivered);
        prop_assert!(delivered <= acked + dropped + n as u64);
        if n >= 1 {
            prop_assert!(delivered > 0);
        }
    }
}
