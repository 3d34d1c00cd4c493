//! An ad hoc network (IBSS) station: the node of a multi-hop network whose
//! Ethernet frames come from a TAP device (the live lab's `wlan0`) and go
//! on the air as 802.11 data frames addressed station to station, with no
//! access point in between.
//!
//! Data frames (IEEE Std 802.11-2020, Table 9-30) have To DS = 0 and From
//! DS = 0, Address 1 = DA, Address 2 = SA, Address 3 = the BSSID of the
//! IBSS, and carry the Ethernet payload behind an RFC 1042 LLC/SNAP header
//! (the EtherType kept). Frames to a group address (ARP, the routing
//! daemon's multicast hellos) go to the broadcast or multicast DA and are
//! sent at the lowest basic rate, as group-addressed frames in a BSS are
//! (10.6.6.2). A receiver keeps data frames of its own IBSS (Address 3) and
//! hands their Ethernet frames to its device.
//!
//! Security: none at the link (Open System, no Privacy bit). Seed 004 ran
//! its IBSS without link security and protected the traffic end to end
//! with IPsec; so does the multi-hop experiment. The MAC and PHY are the
//! simulator's ([`crate::sim`]): DCF with its backoff, Acks and retries.
//!
//! Beacons (11.1.3.3): every station takes part in beacon generation. At
//! each TBTT (a multiple of the beacon interval from time zero) a station
//! draws a delay uniformly from 0 to 2·aCWmin slots; if no Beacon frame of
//! its IBSS arrived before the delay ran out, it sends one. Two
//! simplifications: the delay runs on the node's timer, which does not
//! freeze while the medium is busy as the standard's does, and the beacon
//! then goes through the MAC's ordinary DCF access (DIFS and a backoff,
//! behind a frame the MAC already holds), where the standard suspends the
//! other frames' backoff and counts the delay in its place. So a station
//! whose delay ran out while another's beacon was still on its way also
//! sends one, and a TBTT sees two beacons more often than the standard's
//! same-slot collisions would give. The timestamp is the simulator's clock
//! in microseconds; every station shares that clock, so TSF
//! synchronisation (adopting a later timestamp, 11.1.3.4) never changes
//! anything and is left out.

use crate::node::{Ctx, IfaceId, Node, RxInfo, TxOutcome, TxRequest, TxStatus};
use crate::phy::Rate;
use crate::port::SharedPort;
use crate::time::Time;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use wisec_wire::frame_control::{FrameControl, FrameType};
use wisec_wire::mgmt::{MgmtFrame, MgmtSubtype};
use wisec_wire::{
    Addressing, BeaconFields, CapabilityInfo, DataFrame, DataFrameRepr, ElementId, EtherType,
    HeaderRepr, MacAddr, MgmtBody, MgmtFrameRepr,
};

/// The BSSID of the lab's IBSS: an individual, locally administered
/// address (11.1.3.2 asks for 46 random bits; a fixed one keeps captures
/// comparable).
pub const IBSS_BSSID: MacAddr = MacAddr([0x02, 0x1a, 0xb0, 0x00, 0x00, 0x0b]);
/// The lab's IBSS SSID.
pub const IBSS_SSID: &str = "wisec-adhoc";
/// The beacon period: 100 TU.
pub const BEACON_PERIOD: Time = Time::from_us(102_400);
/// Frames a station's driver queue holds before its device is left unread.
const TXQ_LIMIT: usize = 256;
const T_TBTT: u64 = 1;
const T_BEACON: u64 = 2;

/// What an IBSS station counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IbssStats {
    /// Data frames queued for the air.
    pub data_tx: u64,
    /// Individually addressed data frames handed to the device.
    pub data_rx: u64,
    /// Group-addressed data frames handed to the device.
    pub group_rx: u64,
    /// Data frames of another BSS, or with DS bits set, left out.
    pub foreign: u64,
    /// Frames from the device dropped at a full driver queue.
    pub queue_drops: u64,
    /// Frames from the device that could not be carried (too short).
    pub tx_errors: u64,
    /// Frames the MAC discarded at its retry limit.
    pub retry_drops: u64,
    /// Beacons sent.
    pub beacons_tx: u64,
    /// Beacons of the IBSS received.
    pub beacons_rx: u64,
    /// Beacons not sent because another station's came first.
    pub beacons_cancelled: u64,
}

/// How an IBSS station is set up.
#[derive(Debug, Clone, PartialEq)]
pub struct IbssConfig {
    /// The station's address (its TAP's hardware address).
    pub addr: MacAddr,
    /// The IBSS's BSSID.
    pub bssid: MacAddr,
    /// The IBSS's SSID.
    pub ssid: String,
    /// The DSSS channel number for the DSSS Parameter Set (9.4.2.4).
    pub channel: u8,
    /// Take part in beacon generation.
    pub beacons: bool,
    /// The rate of group-addressed frames and beacons: the lowest basic
    /// rate of the PHY.
    pub group_rate: Rate,
    /// aCWmin of the PHY, for the beacon's random delay.
    pub cw_min: u32,
    /// aSlotTime of the PHY.
    pub slot: Time,
}

impl IbssConfig {
    /// A station `addr` of the lab's IBSS on 802.11b channel 1 (aCWmin 31,
    /// 20 µs slots, group frames at 1 Mb/s), beaconing.
    pub fn dsss(addr: MacAddr) -> IbssConfig {
        IbssConfig {
            addr,
            bssid: IBSS_BSSID,
            ssid: IBSS_SSID.to_string(),
            channel: 1,
            beacons: true,
            group_rate: Rate::DSSS_1,
            cw_min: 31,
            slot: Time::from_us(20),
        }
    }
}

/// An IBSS station carrying the Ethernet frames of a device.
#[derive(Debug)]
pub struct IbssNode {
    cfg: IbssConfig,
    iface: Option<IfaceId>,
    port: SharedPort,
    txq: VecDeque<(Vec<u8>, Option<Rate>)>,
    seq: u16,
    /// The MAC asked for a frame and got none: it waits for a wake.
    mac_waiting: bool,
    /// The TBTT whose beacon contention is running.
    tbtt: Option<Time>,
    /// A beacon of the IBSS arrived since that TBTT.
    beacon_heard: bool,
    stats: IbssStats,
}

impl IbssNode {
    /// A station set up by `cfg` whose device is `port`.
    pub fn new(cfg: IbssConfig, port: SharedPort) -> IbssNode {
        IbssNode {
            cfg,
            iface: None,
            port,
            txq: VecDeque::new(),
            seq: 0,
            mac_waiting: true,
            tbtt: None,
            beacon_heard: false,
            stats: IbssStats::default(),
        }
    }

    /// Sets the interface the simulator gave the station.
    pub fn set_iface(&mut self, iface: IfaceId) {
        self.iface = Some(iface);
    }

    /// The station's counters.
    pub fn stats(&self) -> IbssStats {
        self.stats
    }

    /// The station's address.
    pub fn addr(&self) -> MacAddr {
        self.cfg.addr
    }

    /// The next Sequence Control value (9.2.4.4.2: a modulo-4096 counter).
    fn next_seq(&mut self) -> u16 {
        let s = self.seq;
        self.seq = (self.seq + 1) & 0x0fff;
        s << 4
    }

    fn update_accepting(&self) {
        self.port.borrow_mut().accepting = self.txq.len() < TXQ_LIMIT;
    }

    /// Queues an MPDU (at the front for a beacon) and wakes the MAC if it
    /// waits for one.
    fn queue(&mut self, ctx: &mut Ctx<'_>, mpdu: Vec<u8>, rate: Option<Rate>, front: bool) {
        if front {
            self.txq.push_front((mpdu, rate));
        } else {
            self.txq.push_back((mpdu, rate));
        }
        if self.mac_waiting {
            if let Some(i) = self.iface {
                self.mac_waiting = false;
                ctx.wake(i);
            }
        }
    }

    /// Carries one Ethernet frame from the device.
    fn send_eth(&mut self, eth: &[u8], ctx: &mut Ctx<'_>) {
        if self.txq.len() >= TXQ_LIMIT {
            self.stats.queue_drops += 1;
            self.port.borrow_mut().stats.dropped += 1;
            return;
        }
        let seq = self.next_seq();
        let Some((mpdu, da)) = data_from_eth(self.cfg.addr, self.cfg.bssid, seq, eth) else {
            self.stats.tx_errors += 1;
            self.port.borrow_mut().stats.dropped += 1;
            return;
        };
        let rate = da.is_group().then_some(self.cfg.group_rate);
        self.stats.data_tx += 1;
        self.queue(ctx, mpdu, rate, false);
    }

    /// 11.1.3.3 (b), (c): a TBTT; the random delay before this station's
    /// beacon.
    fn on_tbtt(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        self.tbtt = Some(now);
        self.beacon_heard = false;
        let slots = ctx.rng().up_to(2 * self.cfg.cw_min);
        ctx.set_timer(now + self.cfg.slot.mul(u64::from(slots)), T_BEACON);
        ctx.set_timer(now + BEACON_PERIOD, T_TBTT);
    }

    /// 11.1.3.3 (d), (e): the delay ran out; send a beacon unless one of
    /// the IBSS arrived meanwhile.
    fn beacon_delay_over(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        if self.beacon_heard {
            self.stats.beacons_cancelled += 1;
            return;
        }
        let seq = self.next_seq();
        if let Some(b) = beacon(&self.cfg, now, seq) {
            self.stats.beacons_tx += 1;
            let rate = Some(self.cfg.group_rate);
            self.queue(ctx, b, rate, true);
        }
    }

    fn on_mgmt(&mut self, now: Time, frame: &[u8]) {
        let Ok(m) = MgmtFrame::new_checked(frame) else {
            return;
        };
        if m.subtype() != MgmtSubtype::Beacon || m.header().addr3() != Some(self.cfg.bssid) {
            return;
        }
        if m.capability().is_some_and(CapabilityInfo::ibss) {
            self.stats.beacons_rx += 1;
            if self.tbtt.is_some_and(|t| now >= t) {
                self.beacon_heard = true;
            }
        }
    }
}

/// A data MPDU of the IBSS `bssid` from `sa` carrying the Ethernet frame
/// `eth` behind LLC/SNAP (Table 9-30, To DS 0 From DS 0: A1 = DA, A2 = SA,
/// A3 = BSSID), and its DA. The Ethernet source address is the station's
/// own: an IBSS station does not bridge.
pub fn data_from_eth(
    sa: MacAddr,
    bssid: MacAddr,
    seq: u16,
    eth: &[u8],
) -> Option<(Vec<u8>, MacAddr)> {
    let da = MacAddr::from_bytes(eth.get(0..6)?)?;
    let ethertype = EtherType(u16::from_be_bytes([*eth.get(12)?, *eth.get(13)?]));
    let payload = eth.get(14..)?;
    let header = Addressing::Direct { da, sa, bssid }.header(None, seq);
    let repr = DataFrameRepr::msdu(header, ethertype, payload);
    let mut buf = vec![0u8; repr.buffer_len().ok()?];
    repr.emit(&mut buf).ok()?;
    Some((buf, da))
}

/// The Ethernet frame an unprotected IBSS data MPDU of `bssid` carries
/// (DA from A1, SA from A2); `None` for frames with DS bits, of another
/// BSS, protected, or without LLC/SNAP.
pub fn eth_from_data(mpdu: &[u8], bssid: MacAddr) -> Option<Vec<u8>> {
    let f = DataFrame::new_checked(mpdu).ok()?;
    let fc = f.frame_control();
    let h = f.header();
    if fc.to_ds() || fc.from_ds() || f.is_protected() || h.addr3()? != bssid {
        return None;
    }
    let et = f.ethertype()?;
    let payload = f.msdu_payload();
    let mut eth = Vec::with_capacity(14 + payload.len());
    eth.extend_from_slice(&h.addr1().0);
    eth.extend_from_slice(&h.addr2()?.0);
    eth.extend_from_slice(&et.0.to_be_bytes());
    eth.extend_from_slice(payload);
    Some(eth)
}

/// A Beacon frame of the IBSS (9.3.3.2): Timestamp, Beacon Interval, the
/// Capability Information with the IBSS bit, SSID, Supported Rates, DSSS
/// Parameter Set and IBSS Parameter Set (ATIM Window 0: no power save).
fn beacon(cfg: &IbssConfig, now: Time, seq: u16) -> Option<Vec<u8>> {
    let mut var = Vec::with_capacity(32 + cfg.ssid.len());
    let ssid = cfg.ssid.as_bytes();
    var.push(ElementId::SSID.0);
    var.push(u8::try_from(ssid.len()).ok().filter(|n| *n <= 32)?);
    var.extend_from_slice(ssid);
    // 1 and 2 Mb/s basic, 5.5 and 11 Mb/s (9.4.2.3).
    var.extend_from_slice(&[ElementId::SUPPORTED_RATES.0, 4, 0x82, 0x84, 0x0b, 0x16]);
    var.extend_from_slice(&[ElementId::DSSS_PARAMETER_SET.0, 1, cfg.channel]);
    var.extend_from_slice(&[ElementId::IBSS_PARAMETER_SET.0, 2, 0, 0]);
    let repr = MgmtFrameRepr {
        header: HeaderRepr {
            frame_control: FrameControl::new(FrameType::Management, MgmtSubtype::Beacon.to_u8()),
            duration: 0,
            addr1: MacAddr::BROADCAST,
            addr2: Some(cfg.addr),
            addr3: Some(cfg.bssid),
            sequence_control: Some(seq),
            addr4: None,
            qos_control: None,
            ht_control: None,
        },
        body: MgmtBody::Beacon(BeaconFields {
            timestamp: now.as_ns() / 1000,
            beacon_interval: 100,
            capability: CapabilityInfo(CapabilityInfo::IBSS),
        }),
        variable: &var,
    };
    let mut buf = vec![0u8; repr.buffer_len().ok()?];
    repr.emit(&mut buf).ok()?;
    Some(buf)
}

impl Node for IbssNode {
    fn start(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        if self.cfg.beacons {
            // Time zero is a TBTT (11.1.3.3).
            ctx.set_timer(now, T_TBTT);
        }
    }

    fn on_frame(&mut self, now: Time, frame: &[u8], _info: &RxInfo, _ctx: &mut Ctx<'_>) {
        let fc = match frame {
            [a, b, ..] => FrameControl::from_bytes([*a, *b]),
            _ => return,
        };
        if fc.is_mgmt() {
            self.on_mgmt(now, frame);
            return;
        }
        if !fc.is_data() {
            return;
        }
        match eth_from_data(frame, self.cfg.bssid) {
            Some(eth) => {
                if eth[0] & 1 == 1 {
                    self.stats.group_rx += 1;
                } else {
                    self.stats.data_rx += 1;
                }
                self.port.borrow_mut().deliver(now, eth);
            }
            None => self.stats.foreign += 1,
        }
    }

    fn poll_transmit(
        &mut self,
        _now: Time,
        _iface: IfaceId,
        _ctx: &mut Ctx<'_>,
    ) -> Option<TxRequest> {
        let next = self.txq.pop_front();
        self.mac_waiting = next.is_none();
        self.update_accepting();
        next.map(|(mpdu, rate)| TxRequest {
            mpdu,
            rate,
            token: 0,
        })
    }

    fn on_tx_status(&mut self, _now: Time, status: &TxStatus, _ctx: &mut Ctx<'_>) {
        if status.outcome == TxOutcome::Dropped {
            self.stats.retry_drops += 1;
        }
    }

    fn on_timer(&mut self, now: Time, token: u64, ctx: &mut Ctx<'_>) {
        match token {
            T_TBTT => self.on_tbtt(now, ctx),
            T_BEACON => self.beacon_delay_over(now, ctx),
            _ => {}
        }
    }

    fn on_input(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        let frames = self.port.borrow_mut().take_due(now);
        for eth in frames {
            self.send_eth(&eth, ctx);
        }
        self.update_accepting();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::PhyProfile;
    use crate::port::TapPort;
    use crate::sim::{MacConfig, Simulator};
    use std::rc::Rc;

    fn eth(da: MacAddr, sa: MacAddr, ethertype: u16, payload: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&da.0);
        v.extend_from_slice(&sa.0);
        v.extend_from_slice(&ethertype.to_be_bytes());
        v.extend_from_slice(payload);
        v
    }

    fn mac(i: u8) -> MacAddr {
        MacAddr([0x02, 0, 0, 0, 0, i])
    }

    /// The MPDU's header by the bytes of Table 9-30 and 9.2.4.1: a Data
    /// frame (type 2 subtype 0), no DS bits, A1 DA, A2 SA, A3 BSSID, then
    /// the RFC 1042 header AA-AA-03-00-00-00 and the EtherType.
    #[test]
    fn data_frames_use_ibss_addressing() {
        let (a, b) = (mac(1), mac(2));
        let e = eth(b, a, 0x0800, b"payload");
        let (mpdu, da) = data_from_eth(a, IBSS_BSSID, 5 << 4, &e).unwrap();
        assert_eq!(da, b);
        assert_eq!(mpdu[0], 0x08, "Data, version 0");
        assert_eq!(mpdu[1], 0x00, "To DS 0, From DS 0, unprotected");
        assert_eq!(&mpdu[4..10], &b.0);
        assert_eq!(&mpdu[10..16], &a.0);
        assert_eq!(&mpdu[16..22], &IBSS_BSSID.0);
        assert_eq!(u16::from_le_bytes([mpdu[22], mpdu[23]]), 5 << 4);
        assert_eq!(&mpdu[24..32], &[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]);
        assert_eq!(&mpdu[32..], b"payload");
        assert_eq!(eth_from_data(&mpdu, IBSS_BSSID).unwrap(), e);
        // Another IBSS, or a frame towards an AP, is not ours.
        assert!(eth_from_data(&mpdu, mac(9)).is_none());
        let mut to_ds = mpdu.clone();
        to_ds[1] |= 0x01;
        assert!(eth_from_data(&to_ds, IBSS_BSSID).is_none());
        assert!(data_from_eth(a, IBSS_BSSID, 0, &e[..13]).is_none());
    }

    fn chain(n: usize, beacons: bool) -> (Simulator, Vec<crate::NodeId>, Vec<SharedPort>) {
        let mut sim = Simulator::new(7);
        let ch = sim.add_channel(PhyProfile::b());
        let mut ids = Vec::new();
        let mut ports = Vec::new();
        let mut ifaces = Vec::new();
        for i in 0..n {
            let port = TapPort::shared();
            let mut cfg = IbssConfig::dsss(mac(i as u8 + 1));
            cfg.beacons = beacons;
            let id = sim.add_node(IbssNode::new(cfg, Rc::clone(&port)));
            let iface = sim.attach(id, ch, MacConfig::dcf(mac(i as u8 + 1), Rate::CCK_11));
            sim.node_mut::<IbssNode>(id).unwrap().set_iface(iface);
            ids.push(id);
            ports.push(port);
            ifaces.push(iface);
        }
        // Only neighbours hear each other.
        for i in 0..n {
            for j in i + 2..n {
                sim.set_hidden(ifaces[i], ifaces[j], true);
            }
        }
        (sim, ids, ports)
    }

    /// A unicast frame reaches the neighbour it is addressed to (and no
    /// one else); a broadcast reaches every station in range.
    #[test]
    fn frames_reach_neighbours_only() {
        let (mut sim, ids, ports) = chain(3, false);
        let (a, b, c) = (mac(1), mac(2), mac(3));
        let to_b = eth(b, a, 0x0800, &[1; 100]);
        let bcast = eth(MacAddr::BROADCAST, b, 0x0806, &[2; 28]);
        let to_c = eth(c, a, 0x0800, &[3; 100]);
        ports[0]
            .borrow_mut()
            .inbox
            .push_back((Time::from_us(10), to_b.clone()));
        ports[0]
            .borrow_mut()
            .inbox
            .push_back((Time::from_us(10), to_c));
        sim.schedule_input(ids[0], Time::from_us(10));
        ports[1]
            .borrow_mut()
            .inbox
            .push_back((Time::from_ms(5), bcast.clone()));
        sim.schedule_input(ids[1], Time::from_ms(5));
        sim.run_until(Time::from_ms(50));
        let got = |i: usize| -> Vec<Vec<u8>> {
            ports[i]
                .borrow()
                .outbox
                .iter()
                .map(|(_, f)| f.clone())
                .collect()
        };
        assert_eq!(got(1), vec![to_b]);
        assert_eq!(got(0), vec![bcast.clone()]);
        assert_eq!(got(2), vec![bcast]);
        // A's frame to C: C is out of range, the MAC gives up.
        let sa = sim.node::<IbssNode>(ids[0]).unwrap().stats();
        assert_eq!(sa.data_tx, 2);
        assert_eq!(sa.retry_drops, 1);
    }

    /// 11.1.3.3: every TBTT has a beacon of the IBSS, sent within the
    /// random delay after it, with the IBSS bit set and the BSSID in
    /// Address 3; a station that heard another's beacon during its delay
    /// sends none.
    #[test]
    fn stations_in_range_share_beacon_generation() {
        let (mut sim, ids, _) = chain(2, true);
        let frames = Rc::new(std::cell::RefCell::new(Vec::new()));
        let f2 = Rc::clone(&frames);
        sim.set_observer(
            crate::ChannelId(0),
            Box::new(move |f| {
                for m in f.mpdus {
                    f2.borrow_mut().push((f.start, m.to_vec()));
                }
            }),
        );
        let periods = 50u64;
        sim.run_until(BEACON_PERIOD.mul(periods) - Time::from_us(1));
        let mut per_tbtt = vec![0u32; periods as usize];
        for (t, m) in frames.borrow().iter().filter(|(_, m)| m[0] == 0x80) {
            let f = MgmtFrame::new_checked(&m[..]).unwrap();
            assert!(f.capability().unwrap().ibss());
            assert!(!f.capability().unwrap().ess());
            assert_eq!(f.header().addr3(), Some(IBSS_BSSID));
            assert_eq!(f.header().addr1(), MacAddr::BROADCAST);
            // The delay (at most 62 slots of 20 µs), DIFS, one backoff
            // (at most 31 slots) and another beacon's airtime (1 Mb/s).
            let into = t.as_ns() % BEACON_PERIOD.as_ns();
            assert!(into < Time::from_ms(4).as_ns(), "{into} ns after the TBTT");
            per_tbtt[(t.as_ns() / BEACON_PERIOD.as_ns()) as usize] += 1;
        }
        assert!(per_tbtt.iter().all(|n| (1..=2).contains(n)), "{per_tbtt:?}");
        let s: Vec<IbssStats> = ids
            .iter()
            .map(|i| sim.node::<IbssNode>(*i).unwrap().stats())
            .collect();
        let sent = s[0].beacons_tx + s[1].beacons_tx;
        assert_eq!(sent, per_tbtt.iter().map(|n| u64::from(*n)).sum::<u64>());
        assert_eq!(
            sent + s[0].beacons_cancelled + s[1].beacons_cancelled,
            2 * periods
        );
        // Some TBTTs see one beacon only (see the module's note on why
        // not most); both stations send some.
        assert!(sent < 2 * periods, "{s:?}");
        assert!(s[0].beacons_tx > 0 && s[1].beacons_tx > 0, "{s:?}");
        assert_eq!(s[0].beacons_rx, s[1].beacons_tx);
    }
}
