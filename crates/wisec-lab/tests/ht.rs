//! 802.11n in the simulator: BlockAck agreement, A-MPDUs with RTS/CTS and
//! compressed BlockAcks on the air, per-MPDU retransmission with in-order
//! delivery, and single-station saturation throughput against the value
//! computed here from the timing of IEEE Std 802.11-2020 clauses 19 and 10.

use std::cell::RefCell;
use std::rc::Rc;
use wisec_lab::frames::{self, FrameInfo};
use wisec_lab::node::{Ctx, IfaceId, Node, RxInfo, TxRequest};
use wisec_lab::sim::{BlockAckConfig, MacConfig, Simulator};
use wisec_lab::traffic::SaturatedSource;
use wisec_lab::{Band, HtParams, PhyProfile, Rate, Time};
use wisec_wire::frame_control::ctrl_subtype;
use wisec_wire::MacAddr;

const STA: MacAddr = MacAddr([2, 0, 0, 0, 0, 1]);
const AP: MacAddr = MacAddr([2, 0, 0, 0, 0, 2]);
const IP_LEN: usize = 1500;

/// Records the sequence numbers and UDP payload octets delivered to it.
#[derive(Default)]
struct Rx {
    sns: Vec<u16>,
    octets: u64,
}

impl Node for Rx {
    fn on_frame(&mut self, _: Time, f: &[u8], _: &RxInfo, _: &mut Ctx<'_>) {
        if let Some((_, sn)) = frames::qos_data(f) {
            self.sns.push(sn);
            // QoS Data header 26 + LLC/SNAP 8 + IPv4 20 + UDP 8.
            self.octets += f.len().saturating_sub(26 + 8 + 28) as u64;
        }
    }
    fn poll_transmit(&mut self, _: Time, _: IfaceId, _: &mut Ctx<'_>) -> Option<TxRequest> {
        None
    }
}

#[derive(Debug, Clone)]
struct Air {
    start: Time,
    end: Time,
    mpdus: Vec<Vec<u8>>,
    aggregate: bool,
}

struct Setup {
    sim: Simulator,
    rx: wisec_lab::NodeId,
    sta: IfaceId,
    log: Rc<RefCell<Vec<Air>>>,
}

fn setup(ht: HtParams, mcs: u8, ba: BlockAckConfig, loss: f64, seed: u64) -> Setup {
    let mut sim = Simulator::new(seed);
    let ch = sim.add_channel(PhyProfile::n(ht));
    let mut src = SaturatedSource::new(STA, AP, IP_LEN);
    src.tid = Some(0);
    let tx = sim.add_node(src);
    let rx = sim.add_node(Rx::default());
    let sta = sim.attach(tx, ch, MacConfig::ht(STA, Rate::ht(mcs), ba));
    let ap = sim.attach(
        rx,
        ch,
        MacConfig::ht(AP, Rate::ht(mcs), BlockAckConfig::default()),
    );
    sim.set_loss(sta, ap, loss);
    let log = Rc::new(RefCell::new(Vec::new()));
    let l = log.clone();
    sim.set_observer(
        ch,
        Box::new(move |f| {
            l.borrow_mut().push(Air {
                start: f.start,
                end: f.end,
                mpdus: f.mpdus.iter().map(|m| m.to_vec()).collect(),
                aggregate: f.mpdus.len() > 1
                    || FrameInfo::parse(&f.mpdus[0]).is_some_and(|i| i.fc.is_data()),
            })
        }),
    );
    Setup { sim, rx, sta, log }
}

// ---- The analytical value, from the standard's equations ----

/// N_DBPS, one stream (Tables 19-27, 19-28).
fn ndbps(mcs: u8, wide: bool) -> u64 {
    let per20 = [26, 52, 78, 104, 156, 208, 234, 260];
    let per40 = [54, 108, 162, 216, 324, 432, 486, 540];
    if wide {
        per40[mcs as usize]
    } else {
        per20[mcs as usize]
    }
}

/// HT-mixed TXTIME in ns (19.4.3).
fn ht_txtime(len: usize, mcs: u8, ht: HtParams) -> u64 {
    let nsym = (16 + 8 * len as u64 + 6).div_ceil(ndbps(mcs, ht.wide));
    let data = if ht.short_gi {
        (36 * nsym).div_ceil(40) * 4000
    } else {
        4000 * nsym
    };
    let ext = if ht.band == Band::Ghz2_4 { 6000 } else { 0 };
    36_000 + data + ext
}

/// Non-HT OFDM TXTIME in ns (17.4.3; + the 2.4 GHz signal extension).
fn ofdm_txtime(len: usize, mbps: u64, ht: HtParams) -> u64 {
    let ext = if ht.band == Band::Ghz2_4 { 6000 } else { 0 };
    20_000 + 4000 * (16 + 8 * len as u64 + 6).div_ceil(4 * mbps) + ext
}

/// The control response rate: the highest basic rate (6, 12, 24) not
/// above the MCS's non-HT reference rate (Table 10-10).
fn resp_mbps(mcs: u8) -> u64 {
    let reference = [6, 12, 18, 24, 36, 48, 54, 54][mcs as usize];
    [24, 12, 6].into_iter().find(|r| *r <= reference).unwrap()
}

fn ampdu_len(mpdu: usize, n: usize) -> usize {
    // 9.7.1: delimiter + MPDU + FCS, padded to 4 octets but the last.
    (n - 1) * (4 + mpdu + 4).div_ceil(4) * 4 + 4 + mpdu + 4
}

/// Expected saturation throughput (UDP payload, Mb/s) and MPDUs per A-MPDU.
fn analytical(mcs: u8, ht: HtParams, ba: BlockAckConfig, mpdu: usize) -> (f64, usize) {
    let mut n = 1;
    while n < ba.max_mpdus
        && ampdu_len(mpdu, n + 1) <= ba.max_ampdu_bytes
        && ht_txtime(ampdu_len(mpdu, n + 1), mcs, ht) <= 5_484_000
    {
        n += 1;
    }
    let (slot, sifs) = (
        9_000u64,
        if ht.band == Band::Ghz2_4 {
            10_000
        } else {
            16_000
        },
    );
    let difs = sifs + 2 * slot;
    let backoff = 15 * slot / 2; // mean of U{0..15} slots
    let r = resp_mbps(mcs);
    let rts = if ba.rts {
        ofdm_txtime(20, r, ht) + sifs + ofdm_txtime(14, r, ht) + sifs
    } else {
        0
    };
    let cycle = difs
        + backoff
        + rts
        + ht_txtime(ampdu_len(mpdu, n), mcs, ht)
        + sifs
        + ofdm_txtime(32, r, ht);
    let bits = (n * (IP_LEN - 28) * 8) as f64;
    (bits / cycle as f64 * 1000.0, n)
}

fn measured(ht: HtParams, mcs: u8, ba: BlockAckConfig) -> (f64, f64) {
    let mut s = setup(ht, mcs, ba, 0.0, 11 + u64::from(mcs));
    s.sim.run_until(Time::from_ms(50));
    let before = s.sim.node::<Rx>(s.rx).unwrap().octets;
    let secs = 1.0;
    s.sim.run_until(Time::from_ms(1050));
    let after = s.sim.node::<Rx>(s.rx).unwrap().octets;
    let st = s.sim.mac_stats(s.sta).unwrap();
    let per = st.ampdu_mpdus as f64 / st.ampdus.max(1) as f64;
    ((after - before) as f64 * 8.0 / secs / 1e6, per)
}

#[test]
fn saturation_throughput_per_mcs_matches_the_analytical_value() {
    let mpdu = SaturatedSource::new(STA, AP, IP_LEN).frame(0).len() + 2; // QoS Control
    let configs = [
        (
            HtParams::default(),
            BlockAckConfig {
                rts: true,
                ..BlockAckConfig::default()
            },
        ),
        (
            HtParams {
                band: Band::Ghz5,
                wide: true,
                short_gi: true,
            },
            BlockAckConfig {
                max_mpdus: 8,
                ..BlockAckConfig::default()
            },
        ),
    ];
    for (ht, ba) in configs {
        for mcs in 0..8u8 {
            let (want, n) = analytical(mcs, ht, ba, mpdu);
            let (got, per) = measured(ht, mcs, ba);
            let err = (got - want).abs() / want;
            eprintln!("MCS {mcs}: sim {got:.2} Mb/s ({per:.1} MPDUs), model {want:.2} ({n})");
            assert!(
                err < 0.05,
                "MCS {mcs} {ht:?}: {got:.2} Mb/s, analytical {want:.2} ({n} MPDUs, sim {per:.1})"
            );
            assert!(
                (per - n as f64).abs() < 0.5,
                "MCS {mcs}: {per} MPDUs per A-MPDU, want {n}"
            );
        }
    }
}

#[test]
fn agreement_then_rts_cts_ampdu_and_block_ack_on_the_air() {
    let ht = HtParams::default();
    let ba = BlockAckConfig {
        rts: true,
        max_mpdus: 8,
        ..BlockAckConfig::default()
    };
    let mut s = setup(ht, 7, ba, 0.0, 3);
    s.sim.run_until(Time::from_ms(20));
    let log = s.log.borrow();
    // ADDBA Request (action, category 3, action 0) from the station, Ack,
    // ADDBA Response (status 0) from the AP, Ack.
    let addba: Vec<_> = log
        .iter()
        .filter_map(|a| frames::parse_addba(&a.mpdus[0]))
        .collect();
    assert!(matches!(
        addba.first(),
        Some(frames::Addba::Request {
            tid: 0,
            buffer: 8,
            ..
        })
    ));
    assert!(matches!(
        addba.get(1),
        Some(frames::Addba::Response {
            status: 0,
            tid: 0,
            ..
        })
    ));
    // Every A-MPDU: RTS, SIFS, CTS, SIFS, A-MPDU, SIFS, BlockAck
    // acknowledging all its sequence numbers.
    let sifs = Time::from_us(10);
    let mut checked = 0;
    for w in log.windows(4) {
        let info = |a: &Air| FrameInfo::parse(&a.mpdus[0]).unwrap();
        if !(w[2].aggregate && w[2].mpdus.len() > 1) {
            continue;
        }
        assert!(info(&w[0]).is_ctrl(ctrl_subtype::RTS));
        assert!(info(&w[1]).is_ctrl(ctrl_subtype::CTS));
        assert!(info(&w[3]).is_ctrl(ctrl_subtype::BLOCK_ACK));
        assert_eq!(w[1].start, w[0].end + sifs);
        assert_eq!(w[2].start, w[1].end + sifs);
        assert_eq!(w[3].start, w[2].end + sifs);
        let (_, ssn, bitmap) = frames::parse_block_ack(&w[3].mpdus[0]).unwrap();
        for m in &w[2].mpdus {
            let (_, sn) = frames::qos_data(m).unwrap();
            let d = sn.wrapping_sub(ssn) & 0xfff;
            assert!(d < 64 && bitmap & (1 << d) != 0);
        }
        assert!(w[2].mpdus.len() <= 8);
        checked += 1;
    }
    assert!(checked > 5, "{checked} A-MPDUs");
}

#[test]
fn only_mpdus_missing_from_the_bitmap_are_sent_again_and_delivery_stays_in_order() {
    let ht = HtParams::default();
    let ba = BlockAckConfig {
        max_mpdus: 16,
        ..BlockAckConfig::default()
    };
    let mut s = setup(ht, 4, ba, 0.2, 5);
    s.sim.run_until(Time::from_ms(300));
    let st = s.sim.mac_stats(s.sta).unwrap();
    assert!(st.mpdu_retries > 20, "{st:?}");
    // In order, each once, no gap.
    let rx = s.sim.node::<Rx>(s.rx).unwrap();
    assert!(rx.sns.len() > 500);
    for w in rx.sns.windows(2) {
        assert_eq!(w[1], (w[0] + 1) & 0xfff);
    }
    // After each BlockAck, the next A-MPDU's retries are exactly the
    // previous A-MPDU's MPDUs the bitmap left out.
    let log = s.log.borrow();
    let ampdus: Vec<(usize, &Air)> = log
        .iter()
        .enumerate()
        .filter(|(_, a)| a.mpdus.len() > 1 || frames::qos_data(&a.mpdus[0]).is_some())
        .collect();
    let mut compared = 0;
    for pair in ampdus.windows(2) {
        let (i, a) = pair[0];
        let (_, b) = pair[1];
        let Some(ba) = log
            .get(i + 1)
            .and_then(|x| frames::parse_block_ack(&x.mpdus[0]))
        else {
            continue;
        };
        let (_, ssn, bitmap) = ba;
        let mut missing: Vec<u16> = a
            .mpdus
            .iter()
            .filter_map(|m| frames::qos_data(m).map(|q| q.1))
            .filter(|sn| {
                let d = sn.wrapping_sub(ssn) & 0xfff;
                !(d < 64 && bitmap & (1 << d) != 0)
            })
            .collect();
        let mut retried: Vec<u16> = b
            .mpdus
            .iter()
            .filter(|m| m[1] & 0x08 != 0)
            .filter_map(|m| frames::qos_data(m).map(|q| q.1))
            .collect();
        missing.sort();
        retried.sort();
        assert_eq!(missing, retried);
        compared += 1;
    }
    assert!(compared > 20);
}
