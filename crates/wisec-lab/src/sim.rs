//! The discrete-event simulator: channels with the DCF (IEEE Std
//! 802.11-2020, 10.3), wired links, and the nodes attached to them.
//!
//! Time is virtual ([`Time`], integer nanoseconds). Events sit in one queue
//! ordered by time and then by insertion order, so equal-time events run in
//! the order they were scheduled and a seed fixes the whole run. The medium
//! carries real MPDUs; the MAC builds its own Ack, RTS and CTS frames,
//! writes Duration/ID, and reads only header fields from what it receives.
//!
//! # Model
//!
//! - Carrier sense: a station sees the medium busy while any transmission
//!   it hears is on the air (physical CS) or its NAV is set (virtual CS,
//!   10.3.2.4). A transmission is noticed [`PhyTiming::cca_delay`] after it
//!   started: a station whose backoff ends within that window transmits too,
//!   and the frames collide. Stations whose backoffs end in the same slot
//!   collide exactly so.
//! - Backoff (10.3.3, 10.3.4.3): after the medium has been idle for DIFS
//!   (or AIFS, or EIFS after an erroneous reception) the counter decrements
//!   once per idle slot at slot boundaries counted from the end of that
//!   IFS; it freezes while the medium is busy. CW starts at CWmin, becomes
//!   2·CW+1 (capped at CWmax) after each failure and returns to CWmin after
//!   a success or a discard. A new backoff is drawn after every transmission
//!   (post-backoff) even when the queue is empty.
//! - Ack (10.3.2.11), RTS/CTS (10.3.2.7-10.3.2.9): a response goes SIFS
//!   after the frame that elicits it; the sender waits the sum of
//!   aSIFSTime, aSlotTime and aRxPHYStartDelay, and if a reception started
//!   in that window, for its end. Short and long retry counters with dot11ShortRetryLimit and
//!   dot11LongRetryLimit.
//! - Reception: a frame is received when the receiver heard the whole of it
//!   while not transmitting and while hearing no other transmission, and the
//!   per-link loss draw passes. Hidden stations follow the channel's
//!   connectivity matrix; there is no capture effect.
//! - Protection for ERP (10.27): a CTS-to-self or an RTS/CTS at a DSSS/CCK
//!   rate before each OFDM frame when the PHY asks for it.
//!
//! # Real time
//!
//! [`Simulator::next_event_time`], [`Simulator::step`] and
//! [`Simulator::run_until`] let a driver advance virtual time in step with
//! a wall clock; [`Simulator::schedule_input`] lets it hand a node the
//! frames that arrived from TAP devices, at the virtual time they arrived
//! (the live lab, [`crate::live`]).

use crate::frames::{self, FrameInfo};
use crate::node::{
    Action, AnyNode, ChannelId, Ctx, IfaceId, LinkId, Node, NodeId, PortId, RxInfo, TxOutcome,
    TxRequest, TxStatus,
};
use crate::phy::{PhyTiming, Ppdu, Protection, Rate, ACK_LEN, BLOCK_ACK_LEN, FCS_LEN, RTS_LEN};
use crate::rng::{derive_seed, SimRng};
use crate::time::Time;
use crate::wired::{Direction, WiredConfig, WiredStats};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::sync::Arc;
use wisec_wire::frame_control::ctrl_subtype;
use wisec_wire::MacAddr;

/// The EDCA access categories (10.22.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AccessCategory {
    /// Background.
    Background,
    /// Best effort.
    BestEffort,
    /// Video.
    Video,
    /// Voice.
    Voice,
}

/// A MAC entity's configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct MacConfig {
    /// The interface's MAC address.
    pub addr: MacAddr,
    /// Data rate of frames whose request names none.
    pub data_rate: Rate,
    /// dot11RTSThreshold: an RTS/CTS exchange precedes individually
    /// addressed frames whose PSDU is longer than this; `None` never.
    pub rts_threshold: Option<usize>,
    /// dot11ShortRetryLimit (default 7).
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit (default 4).
    pub long_retry_limit: u32,
    /// CWmin; `None` for the PHY's aCWmin.
    pub cw_min: Option<u32>,
    /// CWmax; `None` for the PHY's aCWmax.
    pub cw_max: Option<u32>,
    /// AIFSN: 2 gives DIFS (the DCF).
    pub aifsn: u32,
    /// Wait EIFS instead of DIFS/AIFS after an erroneous reception
    /// (10.3.2.3.7). Bianchi's model assumes DIFS after a collision.
    pub eifs: bool,
    /// HT aggregation with BlockAck (10.25); `None` sends every frame alone
    /// with an Ack and declines BlockAck agreements.
    pub block_ack: Option<BlockAckConfig>,
}

/// How an HT MAC aggregates (A-MPDU, 10.12) under BlockAck agreements
/// (10.25).
///
/// With it, the MAC sets up an agreement (ADDBA Request/Response action
/// frames, 9.6.4) with each peer it sends QoS Data to, then sends those
/// frames in A-MPDUs of up to `max_mpdus` MPDUs and `max_ampdu_bytes`
/// octets (and the PHY's longest PPDU), each answered by a compressed
/// BlockAck; MPDUs the bitmap does not acknowledge go again in a later
/// A-MPDU, up to `mpdu_retry_limit` transmissions, after which a
/// BlockAckReq moves the recipient's window. A peer with aggregation
/// configured accepts agreements and keeps a reordering buffer per
/// originator. Only QoS Data frames are aggregated; other frames go alone
/// with an Ack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockAckConfig {
    /// Maximum A-MPDU length in octets (HT: 2^(13 + k) − 1, at most 65535,
    /// 9.4.2.55.3).
    pub max_ampdu_bytes: usize,
    /// Maximum MPDUs per A-MPDU (at most 64, the compressed bitmap).
    pub max_mpdus: usize,
    /// An RTS/CTS exchange before every A-MPDU, as seed 000's iPhone did.
    pub rts: bool,
    /// Transmissions of one MPDU before it is discarded.
    pub mpdu_retry_limit: u32,
}

impl Default for BlockAckConfig {
    /// 65535 octets, 64 MPDUs, no RTS, 7 transmissions per MPDU.
    fn default() -> BlockAckConfig {
        BlockAckConfig {
            max_ampdu_bytes: 65_535,
            max_mpdus: 64,
            rts: false,
            mpdu_retry_limit: 7,
        }
    }
}

impl MacConfig {
    /// The DCF with the standard's defaults (10.3, Annex C MIB defaults).
    pub fn dcf(addr: MacAddr, data_rate: Rate) -> MacConfig {
        MacConfig {
            addr,
            data_rate,
            rts_threshold: None,
            short_retry_limit: 7,
            long_retry_limit: 4,
            cw_min: None,
            cw_max: None,
            aifsn: 2,
            eifs: true,
            block_ack: None,
        }
    }

    /// An HT MAC: the DCF with A-MPDU aggregation under BlockAck
    /// agreements as `ba` says.
    pub fn ht(addr: MacAddr, data_rate: Rate, ba: BlockAckConfig) -> MacConfig {
        MacConfig {
            block_ack: Some(ba),
            ..MacConfig::dcf(addr, data_rate)
        }
    }

    /// EDCA with the default parameters of `ac` for a PHY with `phy`'s
    /// aCWmin and aCWmax (9.4.2.28, Table 9-155).
    pub fn edca(
        addr: MacAddr,
        data_rate: Rate,
        ac: AccessCategory,
        phy: &dyn PhyTiming,
    ) -> MacConfig {
        let (cmin, cmax) = (phy.cw_min(), phy.cw_max());
        let (aifsn, lo, hi) = match ac {
            AccessCategory::Background => (7, cmin, cmax),
            AccessCategory::BestEffort => (3, cmin, cmax),
            AccessCategory::Video => (2, cmin.div_ceil(2) - 1, cmin),
            AccessCategory::Voice => (2, (cmin + 1) / 4 - 1, cmin.div_ceil(2) - 1),
        };
        MacConfig {
            cw_min: Some(lo),
            cw_max: Some(hi),
            aifsn,
            ..MacConfig::dcf(addr, data_rate)
        }
    }
}

/// Counters of one MAC entity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MacStats {
    /// Data/management frames put on the air (first attempts and retries).
    pub data_attempts: u64,
    /// RTS frames put on the air.
    pub rts_attempts: u64,
    /// Attempts (data or RTS) that failed: no Ack or CTS came back.
    pub failures: u64,
    /// Frames acknowledged.
    pub acked: u64,
    /// Group-addressed frames sent.
    pub group_sent: u64,
    /// Frames discarded at the retry limit.
    pub dropped: u64,
    /// Acks sent.
    pub acks_sent: u64,
    /// CTS frames sent (answers and CTS-to-self).
    pub cts_sent: u64,
    /// Frames received without error (any kind, any address).
    pub rx_ok: u64,
    /// Receptions lost to a collision, to own transmission or to link loss.
    pub rx_errors: u64,
    /// Duplicate frames detected and not delivered (10.3.2.14).
    pub duplicates: u64,
    /// A-MPDUs put on the air (first attempts and retries).
    pub ampdus: u64,
    /// MPDUs sent inside A-MPDUs.
    pub ampdu_mpdus: u64,
    /// MPDUs of A-MPDUs sent again because a BlockAck did not acknowledge
    /// them (or none came).
    pub mpdu_retries: u64,
    /// BlockAcks sent.
    pub block_acks_sent: u64,
    /// BlockAckReqs sent.
    pub bars_sent: u64,
}

/// Counters of a channel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelStats {
    /// PPDUs put on the air.
    pub ppdus: u64,
    /// Total time any transmission was on the air, counted per PPDU.
    pub airtime_ns: u64,
}

/// One PPDU on the air, as a channel observer sees it (for captures).
#[derive(Debug, Clone, Copy)]
pub struct AirFrame<'a> {
    /// The channel.
    pub channel: ChannelId,
    /// The sending interface.
    pub transmitter: IfaceId,
    /// Start of the PPDU.
    pub start: Time,
    /// End of the PPDU.
    pub end: Time,
    /// Its rate.
    pub rate: Rate,
    /// Its MPDUs, without FCS.
    pub mpdus: &'a [Arc<[u8]>],
}

/// A channel observer, called as each PPDU starts.
pub type Observer = Box<dyn FnMut(&AirFrame<'_>)>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TxKind {
    /// Individually addressed data/management: an Ack is due.
    Data,
    /// Group-addressed: no Ack.
    Group,
    Rts,
    CtsToSelf,
    /// An Ack or a CTS answering a frame.
    Response,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Awaited {
    Ack,
    Cts,
    BlockAck,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MacState {
    /// Contending or idle.
    Idle,
    /// On the air.
    Transmitting(TxKind),
    /// Waiting for an Ack or a CTS; `expired` once the timeout passed with
    /// a reception in progress.
    Waiting { awaited: Awaited, expired: bool },
    /// The data frame goes SIFS after a CTS or a CTS-to-self.
    DataAfterSifs,
}

#[derive(Debug, Clone)]
struct Pending {
    mpdu: Vec<u8>,
    ra: MacAddr,
    group: bool,
    rate: Rate,
    token: u64,
    src: u32,
    lrc: u32,
    attempts: u32,
    /// Times the frame itself went on the air.
    data_sent: u32,
    /// The current attempt began with an RTS.
    with_rts: bool,
    /// The MPDUs of an A-MPDU (then `mpdu` is empty), answered by a
    /// BlockAck.
    subs: Vec<Queued>,
    /// A BlockAckReq, answered by a BlockAck.
    bar: bool,
    /// A frame the MAC made itself (ADDBA, BlockAckReq): no status to the
    /// node.
    internal: bool,
}

/// A frame taken from the node and waiting in an HT MAC's queue.
#[derive(Debug, Clone)]
struct Queued {
    mpdu: Vec<u8>,
    ra: MacAddr,
    token: u64,
    /// TID and sequence number of an individually addressed QoS Data frame.
    qos: Option<(u8, u16)>,
    /// Transmissions so far.
    tries: u32,
}

/// The originator's side of a BlockAck agreement (10.25.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BaOut {
    Requested,
    Established,
    Declined,
}

/// The recipient's side of a BlockAck agreement: the scoreboard
/// (10.25.6.3) and the reordering buffer (10.25.4).
#[derive(Debug, Default)]
struct BaIn {
    win_start: u16,
    bitmap: u64,
    next: u16,
    buffer: BTreeMap<u16, (Arc<[u8]>, RxInfo)>,
}

/// Sequence-number distance from `a` forward to `b`, modulo 4096.
fn sn_after(a: u16, b: u16) -> u16 {
    b.wrapping_sub(a) & 0x0fff
}

#[derive(Debug)]
struct Sta {
    node: NodeId,
    channel: ChannelId,
    member: usize,
    cfg: MacConfig,
    cw_min: u32,
    cw_max: u32,
    rng: SimRng,
    cur: Option<Pending>,
    cw: u32,
    /// Remaining backoff slots, counted from `countdown` when it is set.
    backoff: Option<u32>,
    /// Slot boundary from which `backoff` slots run (an expiry event is
    /// scheduled at `countdown + backoff × slot`).
    countdown: Option<Time>,
    /// The backoff expiry event in the queue (time and tag), if any. A
    /// countdown that freezes and restarts keeps it: it can only have
    /// moved later, and the event moves itself there when it fires,
    /// instead of a dead event per freeze piling up in the queue (with
    /// many stations those were most of the events).
    backoff_event: Option<(Time, u64)>,
    /// `gen` when the current countdown started: the countdown is live
    /// while `gen` still has that value.
    countdown_gen: u64,
    /// The queue sequence number taken when the current countdown started:
    /// its expiry event is queued with it, wherever it is scheduled from,
    /// so events at the same instant run in the order they always did.
    countdown_seq: u64,
    gen: u64,
    state: MacState,
    /// Transmissions this station hears that are on the air.
    busy: u32,
    last_busy_end: Time,
    nav_until: Time,
    use_eifs: bool,
    response: Option<(Vec<u8>, Rate)>,
    dedup: BTreeMap<MacAddr, u16>,
    stats: MacStats,
    /// Inside the node's `poll_transmit`: a wake from there must not pull
    /// again before the frame returned is stored.
    pulling: bool,
    /// HT: frames taken from the node, in order.
    queue: VecDeque<Queued>,
    /// HT: frames the MAC made (ADDBA, BlockAckReq), sent before the queue.
    mac_frames: VecDeque<(Vec<u8>, bool)>,
    mac_seq: u16,
    ba_out: BTreeMap<(MacAddr, u8), BaOut>,
    ba_in: BTreeMap<(MacAddr, u8), BaIn>,
}

#[derive(Debug)]
struct OnAir {
    id: u64,
    sender: usize,
    start: Time,
    end: Time,
    ppdu: Ppdu,
    kind: TxKind,
    /// Per member: heard the whole PPDU so far without interference.
    clean: Vec<bool>,
    /// Per member: hears the sender.
    audible: Vec<bool>,
}

struct Channel {
    phy: Box<dyn PhyTiming>,
    members: Vec<usize>,
    /// hears[r * n + s]: member r hears member s.
    hears: Vec<bool>,
    /// loss[s * n + r]: probability that a frame from s is lost at r.
    loss: Vec<f64>,
    /// (s, r): the level at which r receives s, dBm; frames on such a
    /// link are also lost as [`crate::signal::frame_error_rate`] says.
    rssi: BTreeMap<(usize, usize), f64>,
    on_air: Vec<OnAir>,
    next_id: u64,
    rng: SimRng,
    observer: Option<Observer>,
    stats: ChannelStats,
}

impl Channel {
    fn n(&self) -> usize {
        self.members.len()
    }
    fn hears(&self, r: usize, s: usize) -> bool {
        self.hears.get(r * self.n() + s).copied().unwrap_or(false)
    }
    fn loss(&self, s: usize, r: usize) -> f64 {
        self.loss.get(s * self.n() + r).copied().unwrap_or(0.0)
    }
    /// The loss of one PSDU of `len` octets at `rate` from s at r: the
    /// link's fixed loss and its signal's frame errors, independent.
    fn psdu_loss(&self, s: usize, r: usize, len: usize, rate: Rate) -> f64 {
        let p = self.loss(s, r);
        match self.rssi.get(&(s, r)) {
            Some(&dbm) => {
                let q = crate::signal::frame_error_rate(dbm, len, rate);
                1.0 - (1.0 - p) * (1.0 - q)
            }
            None => p,
        }
    }
}

struct NodeSlot {
    node: Box<dyn AnyNode>,
    rng: SimRng,
    ports: Vec<(LinkId, usize)>,
}

struct Link {
    cfg: WiredConfig,
    ends: [(NodeId, PortId); 2],
    dirs: [Direction; 2],
}

#[derive(Debug)]
enum Event {
    TxEnd {
        channel: usize,
        id: u64,
    },
    Backoff {
        sta: usize,
        gen: u64,
    },
    Timeout {
        sta: usize,
        gen: u64,
    },
    DataAfterSifs {
        sta: usize,
        gen: u64,
    },
    Response {
        sta: usize,
    },
    NavEnd {
        sta: usize,
    },
    Timer {
        node: usize,
        token: u64,
    },
    /// Boxed: the queue moves events around, and this one would make
    /// every event twice as large.
    Wired(Box<WiredDelivery>),
    Input {
        node: usize,
    },
}

#[derive(Debug)]
struct WiredDelivery {
    link: usize,
    to: usize,
    packet: Vec<u8>,
}

struct Entry {
    at: Time,
    seq: u64,
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Entry) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Entry) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap, the earliest event (and among
    // equal times the first scheduled) must come out first.
    fn cmp(&self, o: &Entry) -> Ordering {
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

/// The simulator.
pub struct Simulator {
    now: Time,
    seed: u64,
    seq: u64,
    events: BinaryHeap<Entry>,
    nodes: Vec<NodeSlot>,
    stas: Vec<Sta>,
    channels: Vec<Channel>,
    links: Vec<Link>,
    started: bool,
    processed: u64,
    tick: Option<Tick>,
}

/// Called every [`TICK_EVENTS`] events with the virtual time: how a long
/// run shows its progress.
pub type Tick = Box<dyn FnMut(Time)>;

/// Events between two calls of the [`Tick`].
pub const TICK_EVENTS: u64 = 1 << 14;

impl core::fmt::Debug for Simulator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Simulator")
            .field("now", &self.now)
            .field("seed", &self.seed)
            .field("nodes", &self.nodes.len())
            .field("ifaces", &self.stas.len())
            .field("channels", &self.channels.len())
            .field("links", &self.links.len())
            .finish()
    }
}

impl Simulator {
    /// An empty simulation whose randomness all derives from `seed`.
    pub fn new(seed: u64) -> Simulator {
        Simulator {
            now: Time::ZERO,
            seed,
            seq: 0,
            events: BinaryHeap::new(),
            nodes: Vec::new(),
            stas: Vec::new(),
            channels: Vec::new(),
            links: Vec::new(),
            started: false,
            processed: 0,
            tick: None,
        }
    }

    /// Adds a channel with this PHY.
    pub fn add_channel(&mut self, phy: impl PhyTiming + 'static) -> ChannelId {
        let id = self.channels.len();
        self.channels.push(Channel {
            phy: Box::new(phy),
            members: Vec::new(),
            hears: Vec::new(),
            loss: Vec::new(),
            rssi: BTreeMap::new(),
            on_air: Vec::new(),
            next_id: 0,
            rng: SimRng::new(derive_seed(self.seed, &[1, id as u64])),
            observer: None,
            stats: ChannelStats::default(),
        });
        ChannelId(id)
    }

    /// Adds a node.
    pub fn add_node(&mut self, node: impl Node) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(NodeSlot {
            node: Box::new(node),
            rng: SimRng::new(derive_seed(self.seed, &[2, id as u64])),
            ports: Vec::new(),
        });
        NodeId(id)
    }

    /// Gives `node` a wireless interface on `channel`. Every interface of
    /// the channel hears the new one and is heard by it, without loss.
    ///
    /// # Panics
    /// If `node` or `channel` does not exist (a setup error).
    pub fn attach(&mut self, node: NodeId, channel: ChannelId, cfg: MacConfig) -> IfaceId {
        assert!(node.0 < self.nodes.len(), "no node {node:?}");
        let ch = &mut self.channels[channel.0];
        let id = self.stas.len();
        let old = ch.n();
        let n = old + 1;
        let mut hears = vec![true; n * n];
        let mut loss = vec![0.0; n * n];
        for r in 0..old {
            for s in 0..old {
                hears[r * n + s] = ch.hears[r * old + s];
                loss[r * n + s] = ch.loss[r * old + s];
            }
        }
        ch.hears = hears;
        ch.loss = loss;
        ch.members.push(id);
        let cw_min = cfg.cw_min.unwrap_or_else(|| ch.phy.cw_min());
        let cw_max = cfg.cw_max.unwrap_or_else(|| ch.phy.cw_max()).max(cw_min);
        let mut rng = SimRng::new(derive_seed(self.seed, &[3, id as u64]));
        // Stations start as if a transmission had just ended: with a
        // backoff drawn, so that they do not all start in the same slot.
        let backoff = Some(rng.up_to(cw_min));
        self.stas.push(Sta {
            node,
            channel,
            member: old,
            cfg,
            cw_min,
            cw_max,
            rng,
            cur: None,
            cw: cw_min,
            backoff,
            countdown: None,
            backoff_event: None,
            countdown_gen: 0,
            countdown_seq: 0,
            gen: 0,
            state: MacState::Idle,
            busy: 0,
            last_busy_end: Time::ZERO,
            nav_until: Time::ZERO,
            use_eifs: false,
            response: None,
            dedup: BTreeMap::new(),
            stats: MacStats::default(),
            pulling: false,
            queue: VecDeque::new(),
            mac_frames: VecDeque::new(),
            mac_seq: 0x0f00,
            ba_out: BTreeMap::new(),
            ba_in: BTreeMap::new(),
        });
        IfaceId(id)
    }

    fn member(&self, iface: IfaceId) -> Option<(usize, usize)> {
        self.stas.get(iface.0).map(|s| (s.channel.0, s.member))
    }

    /// Whether `receiver` hears `sender` (both on the same channel); by
    /// default every pair does. Returns false if they are not on one
    /// channel.
    pub fn set_hears(&mut self, receiver: IfaceId, sender: IfaceId, hears: bool) -> bool {
        match (self.member(receiver), self.member(sender)) {
            (Some((c1, r)), Some((c2, s))) if c1 == c2 => {
                let ch = &mut self.channels[c1];
                let n = ch.n();
                ch.hears[r * n + s] = hears;
                true
            }
            _ => false,
        }
    }

    /// Makes `a` and `b` hidden from each other (or not).
    pub fn set_hidden(&mut self, a: IfaceId, b: IfaceId, hidden: bool) -> bool {
        self.set_hears(a, b, !hidden) && self.set_hears(b, a, !hidden)
    }

    /// The probability that a frame from `sender` is lost at `receiver`.
    pub fn set_loss(&mut self, sender: IfaceId, receiver: IfaceId, p: f64) -> bool {
        match (self.member(sender), self.member(receiver)) {
            (Some((c1, s)), Some((c2, r))) if c1 == c2 => {
                let ch = &mut self.channels[c1];
                let n = ch.n();
                ch.loss[s * n + r] = p.clamp(0.0, 1.0);
                true
            }
            _ => false,
        }
    }

    /// The level at which `receiver` gets what `sender` sends, dBm: from
    /// then on a frame on that link is also lost with the probability
    /// [`crate::signal::frame_error_rate`] gives for its length and rate
    /// (independently of [`Simulator::set_loss`]). Returns false if the
    /// two are not on one channel.
    pub fn set_rssi(&mut self, sender: IfaceId, receiver: IfaceId, dbm: f64) -> bool {
        match (self.member(sender), self.member(receiver)) {
            (Some((c1, s)), Some((c2, r))) if c1 == c2 => {
                self.channels[c1].rssi.insert((s, r), dbm);
                true
            }
            _ => false,
        }
    }

    /// Connects two nodes with a wired link; returns the link and the port
    /// each end got.
    ///
    /// # Panics
    /// If a node does not exist (a setup error).
    pub fn connect(&mut self, a: NodeId, b: NodeId, cfg: WiredConfig) -> (LinkId, PortId, PortId) {
        let id = self.links.len();
        let pa = PortId(self.nodes[a.0].ports.len());
        self.nodes[a.0].ports.push((LinkId(id), 0));
        let pb = PortId(self.nodes[b.0].ports.len());
        self.nodes[b.0].ports.push((LinkId(id), 1));
        self.links.push(Link {
            cfg,
            ends: [(a, pa), (b, pb)],
            dirs: [Direction::default(), Direction::default()],
        });
        (LinkId(id), pa, pb)
    }

    /// Calls `f` for every PPDU put on `channel`.
    pub fn set_observer(&mut self, channel: ChannelId, f: Observer) {
        if let Some(c) = self.channels.get_mut(channel.0) {
            c.observer = Some(f);
        }
    }

    /// The current virtual time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.processed
    }

    /// The node `id` as a `T`, if it is one.
    pub fn node<T: Node>(&self, id: NodeId) -> Option<&T> {
        self.nodes.get(id.0)?.node.as_any().downcast_ref()
    }

    /// The node `id` as a mutable `T`, if it is one. A driver that changes a
    /// node's state this way calls [`Simulator::wake`] afterwards if the
    /// node now has frames to send.
    pub fn node_mut<T: Node>(&mut self, id: NodeId) -> Option<&mut T> {
        self.nodes.get_mut(id.0)?.node.as_any_mut().downcast_mut()
    }

    /// The counters of an interface.
    pub fn mac_stats(&self, iface: IfaceId) -> Option<MacStats> {
        self.stas.get(iface.0).map(|s| s.stats)
    }

    /// The configuration of an interface.
    pub fn mac_config(&self, iface: IfaceId) -> Option<&MacConfig> {
        self.stas.get(iface.0).map(|s| &s.cfg)
    }

    /// The counters of a channel.
    pub fn channel_stats(&self, channel: ChannelId) -> Option<ChannelStats> {
        self.channels.get(channel.0).map(|c| c.stats)
    }

    /// The counters of one direction of a wired link (0: first end to
    /// second).
    pub fn wired_stats(&self, link: LinkId, direction: usize) -> Option<WiredStats> {
        self.links.get(link.0)?.dirs.get(direction).map(|d| d.stats)
    }

    /// Tells the MAC of `iface` that its node has frames.
    pub fn wake(&mut self, iface: IfaceId) {
        if iface.0 < self.stas.len() {
            self.try_access(iface.0);
        }
    }

    /// Calls [`Node::on_input`] of `node` at `at` (or now, if `at` is
    /// past): a real-time driver that has put a frame from a TAP device
    /// into the node's input queue, stamped with the virtual time it
    /// arrived, asks the node to take it at that time. Nothing happens if
    /// the node does not exist.
    pub fn schedule_input(&mut self, node: NodeId, at: Time) {
        if node.0 < self.nodes.len() {
            self.schedule(at, Event::Input { node: node.0 });
        }
    }

    /// The time of the next event, if any.
    pub fn next_event_time(&mut self) -> Option<Time> {
        self.ensure_started();
        self.events.peek().map(|e| e.at)
    }

    /// Runs the next event; false when there is none.
    pub fn step(&mut self) -> bool {
        self.ensure_started();
        let Some(e) = self.events.pop() else {
            return false;
        };
        self.now = self.now.max(e.at);
        self.processed += 1;
        self.dispatch(e.ev);
        if self.processed % TICK_EVENTS == 0 {
            if let Some(t) = self.tick.as_mut() {
                t(self.now);
            }
        }
        true
    }

    /// Calls `f` with the virtual time every [`TICK_EVENTS`] events (a
    /// progress display; it must not touch the simulation).
    pub fn set_tick(&mut self, f: Tick) {
        self.tick = Some(f);
    }

    /// Runs every event up to and including `until`, then sets the clock to
    /// `until`.
    pub fn run_until(&mut self, until: Time) {
        self.ensure_started();
        while self.events.peek().is_some_and(|e| e.at <= until) {
            self.step();
        }
        self.now = self.now.max(until);
    }

    fn ensure_started(&mut self) {
        if self.started {
            return;
        }
        self.started = true;
        for n in 0..self.nodes.len() {
            self.call_node(n, |node, now, ctx| node.start(now, ctx));
        }
        for s in 0..self.stas.len() {
            self.try_access(s);
        }
    }

    fn schedule(&mut self, at: Time, ev: Event) {
        self.seq += 1;
        self.events.push(Entry {
            at: at.max(self.now),
            seq: self.seq,
            ev,
        });
    }

    fn call_node<R>(
        &mut self,
        n: usize,
        f: impl FnOnce(&mut dyn AnyNode, Time, &mut Ctx<'_>) -> R,
    ) -> Option<R> {
        let now = self.now;
        let slot = self.nodes.get_mut(n)?;
        let mut ctx = Ctx::new(now, NodeId(n), &mut slot.rng);
        let r = f(slot.node.as_mut(), now, &mut ctx);
        let actions = core::mem::take(&mut ctx.actions);
        for a in actions {
            match a {
                Action::Timer(at, token) => self.schedule(at, Event::Timer { node: n, token }),
                Action::Wired(port, packet) => self.send_wired(n, port, packet),
                Action::Wake(iface) => {
                    if self.stas.get(iface.0).is_some_and(|s| s.node.0 == n) {
                        self.try_access(iface.0);
                    }
                }
            }
        }
        Some(r)
    }

    fn send_wired(&mut self, n: usize, port: PortId, packet: Vec<u8>) {
        let Some(&(link, end)) = self.nodes.get(n).and_then(|s| s.ports.get(port.0)) else {
            return;
        };
        let now = self.now;
        let l = &mut self.links[link.0];
        let cfg = l.cfg;
        if let Some(at) = l.dirs[end].enqueue(&cfg, now, packet.len()) {
            self.schedule(
                at,
                Event::Wired(Box::new(WiredDelivery {
                    link: link.0,
                    to: 1 - end,
                    packet,
                })),
            );
        }
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::TxEnd { channel, id } => self.tx_end(channel, id),
            Event::Backoff { sta, gen: tag } => {
                let s = &mut self.stas[sta];
                if s.backoff_event.map(|(_, t)| t) != Some(tag) {
                    return;
                }
                s.backoff_event = None;
                if s.gen != s.countdown_gen {
                    return;
                }
                if let (Some(origin), Some(b), own) = (s.countdown, s.backoff, s.countdown_seq) {
                    let expiry = origin + self.phy(sta).slot().mul(u64::from(b));
                    if expiry > self.now || tag != own {
                        // The countdown froze and resumed since this was
                        // scheduled: follow it.
                        self.schedule_backoff(sta, expiry);
                    } else {
                        self.backoff_done(sta);
                    }
                }
            }
            Event::Timeout { sta, gen } => {
                if self.stas[sta].gen == gen {
                    self.timeout(sta);
                }
            }
            Event::DataAfterSifs { sta, gen } => {
                let s = &self.stas[sta];
                if s.gen == gen && s.state == MacState::DataAfterSifs {
                    self.send_data(sta);
                }
            }
            Event::Response { sta } => self.send_response(sta),
            Event::NavEnd { sta } => {
                if self.stas[sta].nav_until <= self.now {
                    self.try_access(sta);
                }
            }
            Event::Timer { node, token } => {
                self.call_node(node, |n, now, ctx| n.on_timer(now, token, ctx));
            }
            Event::Wired(w) => {
                let (node, port) = self.links[w.link].ends[w.to];
                self.call_node(node.0, |n, now, ctx| n.on_wired(now, port, &w.packet, ctx));
            }
            Event::Input { node } => {
                self.call_node(node, |n, now, ctx| n.on_input(now, ctx));
            }
        }
    }

    // ---- DCF ----

    fn phy(&self, sta: usize) -> &dyn PhyTiming {
        self.channels[self.stas[sta].channel.0].phy.as_ref()
    }

    fn medium_busy(&self, sta: usize) -> bool {
        let s = &self.stas[sta];
        s.busy > 0 || s.nav_until > self.now
    }

    /// Moves a station forward when it may contend: pulls a frame from its
    /// node, draws or resumes a backoff, schedules the countdown's end.
    fn try_access(&mut self, sta: usize) {
        if self.stas[sta].state != MacState::Idle || self.stas[sta].pulling {
            return;
        }
        if self.stas[sta].cur.is_none() {
            self.pull(sta);
        }
        let s = &self.stas[sta];
        if s.cur.is_none() && s.backoff.is_none() {
            return;
        }
        if s.countdown.is_some() {
            return;
        }
        if self.medium_busy(sta) {
            if self.stas[sta].backoff.is_none() {
                // 10.3.4.2: a frame that finds the medium busy waits a
                // random backoff.
                self.draw_backoff(sta);
            }
            return;
        }
        let phy = self.phy(sta);
        let slot = phy.slot();
        let s = &self.stas[sta];
        let ifs = if s.use_eifs && s.cfg.eifs {
            phy.eifs()
        } else {
            phy.aifs(s.cfg.aifsn)
        };
        let idle_from = s.last_busy_end.max(s.nav_until) + ifs;
        let now = self.now;
        let Some(b) = s.backoff else {
            // A new frame and an idle medium: send once the IFS has passed
            // (at once if it already has).
            if now >= idle_from {
                self.begin_access(sta);
            } else {
                self.stas[sta].backoff = Some(0);
                self.start_countdown(sta, idle_from, 0);
            }
            return;
        };
        // Slot boundaries run from the end of the IFS.
        let origin = if now <= idle_from {
            idle_from
        } else {
            let k = (now - idle_from).as_ns().div_ceil(slot.as_ns().max(1));
            idle_from + slot.mul(k)
        };
        self.start_countdown(sta, origin, b);
    }

    fn start_countdown(&mut self, sta: usize, origin: Time, slots: u32) {
        let slot = self.phy(sta).slot();
        let s = &mut self.stas[sta];
        s.countdown = Some(origin);
        s.gen += 1;
        s.countdown_gen = s.gen;
        self.seq += 1;
        let s = &mut self.stas[sta];
        s.countdown_seq = self.seq;
        let expiry = origin + slot.mul(u64::from(slots));
        // An expiry event still queued for no later than this one moves
        // itself here when it fires.
        if s.backoff_event.is_none_or(|(at, _)| at > expiry) {
            self.schedule_backoff(sta, expiry);
        }
    }

    /// Queues the expiry event of the current countdown of `sta` at `at`
    /// (superseding any), with the countdown's sequence number, which is
    /// also its tag.
    fn schedule_backoff(&mut self, sta: usize, at: Time) {
        let seq = self.stas[sta].countdown_seq;
        self.stas[sta].backoff_event = Some((at, seq));
        self.events.push(Entry {
            at: at.max(self.now),
            seq,
            ev: Event::Backoff { sta, gen: seq },
        });
    }

    fn draw_backoff(&mut self, sta: usize) {
        let s = &mut self.stas[sta];
        let cw = s.cw;
        s.backoff = Some(s.rng.up_to(cw));
    }

    /// The medium became busy for `sta` at `now`: freeze its countdown,
    /// keeping the slots that passed, unless its backoff ends before it can
    /// notice.
    fn freeze(&mut self, sta: usize, slot: Time, cca: Time) {
        let now = self.now;
        let s = &mut self.stas[sta];
        let (Some(origin), Some(b)) = (s.countdown, s.backoff) else {
            return;
        };
        let expiry = origin + slot.mul(u64::from(b));
        if expiry <= now + cca && expiry >= now {
            return;
        }
        let elapsed = if now > origin {
            ((now - origin).as_ns() / slot.as_ns().max(1)).min(u64::from(b)) as u32
        } else {
            0
        };
        s.backoff = Some(b - elapsed);
        s.countdown = None;
        s.gen += 1;
    }

    fn pull(&mut self, sta: usize) {
        if self.stas[sta].cfg.block_ack.is_some() {
            self.pull_ht(sta);
            return;
        }
        let node = self.stas[sta].node.0;
        let iface = IfaceId(sta);
        // A node may wake its own interface from poll_transmit (it has more
        // frames): the wake is absorbed here, the frame returned is stored
        // below and the MAC pulls again when it is done with it.
        self.stas[sta].pulling = true;
        let r = self.call_node(node, |n, now, ctx| n.poll_transmit(now, iface, ctx));
        self.stas[sta].pulling = false;
        let Some(Some(req)) = r else {
            return;
        };
        let TxRequest { mpdu, rate, token } = req;
        let Some(info) = FrameInfo::parse(&mpdu) else {
            let status = TxStatus {
                iface,
                token,
                outcome: TxOutcome::Invalid,
                attempts: 0,
            };
            self.call_node(node, |n, now, ctx| n.on_tx_status(now, &status, ctx));
            return;
        };
        let rate = rate.unwrap_or(self.stas[sta].cfg.data_rate);
        self.stas[sta].cur = Some(Pending {
            mpdu,
            ra: info.ra,
            group: info.ra.is_group(),
            rate,
            token,
            src: 0,
            lrc: 0,
            attempts: 0,
            data_sent: 0,
            with_rts: false,
            subs: Vec::new(),
            bar: false,
            internal: false,
        });
    }

    fn backoff_done(&mut self, sta: usize) {
        let s = &mut self.stas[sta];
        s.countdown = None;
        s.backoff = None;
        if s.cur.is_none() {
            // Post-backoff over; a frame that is waiting goes at once.
            self.pull(sta);
        }
        if self.stas[sta].cur.is_some() {
            self.begin_access(sta);
        }
    }

    fn airtime(&self, sta: usize, octets: usize, rate: Rate) -> Time {
        self.phy(sta).ppdu_duration(octets, rate)
    }

    /// The station won the medium: RTS, CTS-to-self or the frame itself.
    fn begin_access(&mut self, sta: usize) {
        let Some(p) = self.stas[sta].cur.as_ref() else {
            return;
        };
        let (rate, group) = (p.rate, p.group);
        let aggregate = !p.subs.is_empty();
        let resp_len = if aggregate || p.bar {
            BLOCK_ACK_LEN
        } else {
            ACK_LEN
        };
        let len = pending_ppdu(p).psdu_len();
        let phy = self.phy(sta);
        let sifs = phy.sifs();
        let resp = phy.response_rate(rate);
        let data_t = phy.ppdu_duration(len, rate);
        let ack_t = phy.ppdu_duration(resp_len, resp);
        let protection = if group { None } else { phy.protection(rate) };
        let threshold = self.stas[sta].cfg.rts_threshold;
        let ampdu_rts = aggregate && self.stas[sta].cfg.block_ack.is_some_and(|b| b.rts);
        let use_rts = !group
            && (matches!(protection, Some((Protection::RtsCts, _)))
                || ampdu_rts
                || threshold.is_some_and(|t| len > t));
        if let Some(p) = self.stas[sta].cur.as_mut() {
            p.with_rts = use_rts;
        }
        if use_rts {
            // RTS at a basic rate (10.6.6.2), or the protection rate.
            let rts_rate = protection.map_or(resp, |(_, r)| r);
            let cts_rate = self.phy(sta).response_rate(rts_rate);
            let cts_t = self.airtime(sta, ACK_LEN, cts_rate);
            // 9.2.5.2: RTS Duration = 3 × SIFS + CTS + data + Ack.
            let dur = frames::duration_field(sifs.mul(3) + cts_t + data_t + ack_t);
            let ra = self.stas[sta]
                .cur
                .as_ref()
                .map_or(MacAddr::BROADCAST, |p| p.ra);
            let f = frames::rts(ra, self.stas[sta].cfg.addr, dur);
            self.stas[sta].stats.rts_attempts += 1;
            self.start_tx(sta, Ppdu::single(rts_rate, f.into()), TxKind::Rts);
        } else if let Some((Protection::CtsToSelf, prate)) = protection {
            // 9.2.5.2: CTS-to-self Duration = 2 × SIFS + data + Ack.
            let dur = frames::duration_field(sifs.mul(2) + data_t + ack_t);
            let f = frames::cts(self.stas[sta].cfg.addr, dur);
            self.stas[sta].stats.cts_sent += 1;
            self.start_tx(sta, Ppdu::single(prate, f.into()), TxKind::CtsToSelf);
        } else {
            self.send_data(sta);
        }
    }

    fn send_data(&mut self, sta: usize) {
        let Some(p) = self.stas[sta].cur.as_ref() else {
            self.stas[sta].state = MacState::Idle;
            return;
        };
        let (rate, group) = (p.rate, p.group);
        let block = p.bar || !p.subs.is_empty();
        let phy = self.phy(sta);
        let dur = if group {
            0
        } else {
            // 9.2.5.2: SIFS + Ack (or BlockAck) for an individually
            // addressed frame.
            let resp = phy.response_rate(rate);
            let len = if block { BLOCK_ACK_LEN } else { ACK_LEN };
            frames::duration_field(phy.sifs() + phy.ppdu_duration(len, resp))
        };
        let s = &mut self.stas[sta];
        let Some(p) = s.cur.as_mut() else {
            return;
        };
        if !p.subs.is_empty() {
            for q in p.subs.iter_mut() {
                frames::set_duration(&mut q.mpdu, dur);
                if q.tries > 0 {
                    frames::set_retry(&mut q.mpdu);
                }
                q.tries += 1;
            }
            p.data_sent += 1;
            if !p.with_rts {
                p.attempts += 1;
            }
            s.stats.data_attempts += 1;
            s.stats.ampdus += 1;
            s.stats.ampdu_mpdus += p.subs.len() as u64;
            let ppdu = pending_ppdu(p);
            self.start_tx(sta, ppdu, TxKind::Data);
            return;
        }
        if p.bar {
            s.stats.bars_sent += 1;
        }
        frames::set_duration(&mut p.mpdu, dur);
        if p.data_sent > 0 {
            frames::set_retry(&mut p.mpdu);
        }
        p.data_sent += 1;
        if !p.with_rts {
            p.attempts += 1;
        }
        s.stats.data_attempts += 1;
        let bytes: Arc<[u8]> = p.mpdu.as_slice().into();
        let kind = if group { TxKind::Group } else { TxKind::Data };
        self.start_tx(sta, Ppdu::single(rate, bytes), kind);
    }

    fn start_tx(&mut self, sta: usize, ppdu: Ppdu, kind: TxKind) {
        let now = self.now;
        // Own transmission: stop counting, stop receiving.
        self.freeze_own(sta);
        self.stas[sta].state = MacState::Transmitting(kind);
        if kind == TxKind::Rts {
            if let Some(p) = self.stas[sta].cur.as_mut() {
                p.attempts += 1;
            }
        }
        let c = self.stas[sta].channel.0;
        let me = self.stas[sta].member;
        let dur = self.channels[c]
            .phy
            .ppdu_duration(ppdu.psdu_len(), ppdu.rate);
        let end = now + dur;
        let n = self.channels[c].n();
        let mut clean = vec![false; n];
        let mut audible = vec![false; n];
        // Every receiver shares the channel's PHY (and its slot and CCA
        // time, asked once rather than per receiver).
        let (slot, cca) = (
            self.channels[c].phy.slot(),
            self.channels[c].phy.cca_delay(),
        );
        {
            let ch = &mut self.channels[c];
            for t in ch.on_air.iter_mut() {
                if let Some(x) = t.clean.get_mut(me) {
                    *x = false;
                }
            }
        }
        for r in 0..n {
            if r == me || !self.channels[c].hears(r, me) {
                continue;
            }
            audible[r] = true;
            let rs = self.channels[c].members[r];
            let receiving_already = self.stas[rs].busy > 0;
            let transmitting = matches!(self.stas[rs].state, MacState::Transmitting(_));
            clean[r] = !receiving_already && !transmitting;
            if receiving_already {
                for t in self.channels[c].on_air.iter_mut() {
                    if t.audible.get(r).copied().unwrap_or(false) {
                        t.clean[r] = false;
                    }
                }
            }
            self.stas[rs].busy += 1;
            if !transmitting {
                self.freeze(rs, slot, cca);
            }
        }
        let ch = &mut self.channels[c];
        let id = ch.next_id;
        ch.next_id += 1;
        ch.stats.ppdus += 1;
        ch.stats.airtime_ns += dur.as_ns();
        if let Some(obs) = ch.observer.as_mut() {
            obs(&AirFrame {
                channel: ChannelId(c),
                transmitter: IfaceId(sta),
                start: now,
                end,
                rate: ppdu.rate,
                mpdus: &ppdu.mpdus,
            });
        }
        ch.on_air.push(OnAir {
            id,
            sender: me,
            start: now,
            end,
            ppdu,
            kind,
            clean,
            audible,
        });
        self.schedule(end, Event::TxEnd { channel: c, id });
    }

    fn freeze_own(&mut self, sta: usize) {
        let now = self.now;
        let slot = self.phy(sta).slot();
        let s = &mut self.stas[sta];
        if let (Some(origin), Some(b)) = (s.countdown, s.backoff) {
            let elapsed = if now > origin {
                ((now - origin).as_ns() / slot.as_ns().max(1)).min(u64::from(b)) as u32
            } else {
                0
            };
            s.backoff = Some(b - elapsed);
        }
        s.countdown = None;
        s.gen += 1;
    }

    fn tx_end(&mut self, c: usize, id: u64) {
        let Some(pos) = self.channels[c].on_air.iter().position(|t| t.id == id) else {
            return;
        };
        let t = self.channels[c].on_air.swap_remove(pos);
        let now = self.now;
        let sender = self.channels[c].members[t.sender];
        // The sender's side.
        {
            let s = &mut self.stas[sender];
            s.last_busy_end = s.last_busy_end.max(now);
        }
        match t.kind {
            TxKind::Data | TxKind::Rts => {
                let block = self.stas[sender]
                    .cur
                    .as_ref()
                    .is_some_and(|p| p.bar || !p.subs.is_empty());
                let awaited = match (t.kind, block) {
                    (TxKind::Rts, _) => Awaited::Cts,
                    (_, true) => Awaited::BlockAck,
                    (_, false) => Awaited::Ack,
                };
                let resp = self.phy(sender).response_rate(t.ppdu.rate);
                let timeout = self.phy(sender).response_timeout(resp);
                let s = &mut self.stas[sender];
                s.state = MacState::Waiting {
                    awaited,
                    expired: false,
                };
                s.gen += 1;
                let gen = s.gen;
                self.schedule(now + timeout, Event::Timeout { sta: sender, gen });
            }
            TxKind::CtsToSelf => {
                let sifs = self.phy(sender).sifs();
                let s = &mut self.stas[sender];
                s.state = MacState::DataAfterSifs;
                s.gen += 1;
                let gen = s.gen;
                self.schedule(now + sifs, Event::DataAfterSifs { sta: sender, gen });
            }
            TxKind::Group => {
                self.stas[sender].stats.group_sent += 1;
                self.stas[sender].state = MacState::Idle;
                self.finish(sender, TxOutcome::Sent);
            }
            TxKind::Response => {
                self.stas[sender].state = MacState::Idle;
            }
        }
        // The receivers' side, in member order.
        let n = self.channels[c].n();
        let mut touched = Vec::with_capacity(n);
        for r in 0..n {
            if !t.audible.get(r).copied().unwrap_or(false) {
                continue;
            }
            let rs = self.channels[c].members[r];
            touched.push(rs);
            let mut ok = t.clean.get(r).copied().unwrap_or(false)
                && !matches!(self.stas[rs].state, MacState::Transmitting(_));
            if ok && !t.ppdu.aggregate {
                let p = self.channels[c].psdu_loss(t.sender, r, t.ppdu.psdu_len(), t.ppdu.rate);
                if p > 0.0 && self.channels[c].rng.chance(p) {
                    ok = false;
                }
            }
            {
                let s = &mut self.stas[rs];
                s.busy = s.busy.saturating_sub(1);
                if s.busy == 0 {
                    s.last_busy_end = s.last_busy_end.max(now);
                }
            }
            if ok && t.ppdu.aggregate {
                self.receive_ampdu(rs, &t, c, sender);
            } else if ok {
                self.stas[rs].stats.rx_ok += 1;
                self.stas[rs].use_eifs = false;
                for m in &t.ppdu.mpdus {
                    self.receive(rs, m, &t, c, sender);
                }
            } else {
                self.stas[rs].stats.rx_errors += 1;
                self.stas[rs].use_eifs = true;
            }
            let s = &self.stas[rs];
            if s.busy == 0 && matches!(s.state, MacState::Waiting { expired: true, .. }) {
                self.failure(rs);
            }
        }
        if self.stas[sender].state == MacState::Idle {
            self.try_access(sender);
        }
        for rs in touched {
            self.try_access(rs);
        }
    }

    fn receive(&mut self, rs: usize, mpdu: &Arc<[u8]>, t: &OnAir, c: usize, sender: usize) {
        let Some(info) = FrameInfo::parse(mpdu) else {
            return;
        };
        let now = self.now;
        let me = self.stas[rs].cfg.addr;
        let waiting = match self.stas[rs].state {
            MacState::Waiting { awaited, .. } => Some(awaited),
            _ => None,
        };
        if info.ra == me {
            if info.is_ctrl(ctrl_subtype::ACK) && waiting == Some(Awaited::Ack) {
                self.success(rs);
                return;
            }
            if info.is_ctrl(ctrl_subtype::BLOCK_ACK) && waiting == Some(Awaited::BlockAck) {
                if let Some((tid, ssn, bitmap)) = frames::parse_block_ack(mpdu) {
                    self.block_ack_received(rs, tid, ssn, bitmap);
                    return;
                }
            }
            if info.is_ctrl(ctrl_subtype::CTS) && waiting == Some(Awaited::Cts) {
                let sifs = self.phy(rs).sifs();
                let s = &mut self.stas[rs];
                s.state = MacState::DataAfterSifs;
                s.gen += 1;
                let gen = s.gen;
                self.schedule(now + sifs, Event::DataAfterSifs { sta: rs, gen });
                return;
            }
        }
        if waiting.is_some() {
            // 10.3.2.11: any other valid frame means the exchange failed.
            self.failure(rs);
        }
        if info.ra != me {
            // 10.3.2.4: frames for others update the NAV.
            if info.duration_us > 0 {
                let until = now + Time::from_us(u64::from(info.duration_us));
                if until > self.stas[rs].nav_until {
                    self.stas[rs].nav_until = until;
                    self.schedule(until, Event::NavEnd { sta: rs });
                }
            }
            if info.ra.is_group() && (info.fc.is_data() || info.fc.is_mgmt()) && info.ta != Some(me)
            {
                self.deliver(rs, mpdu, t, c, sender);
            }
            return;
        }
        if info.is_ctrl(ctrl_subtype::BLOCK_ACK_REQ) {
            // 10.25.6.4: a BlockAckReq moves the window, answered by a
            // BlockAck SIFS later.
            if let (Some(ta), Some((tid, ssn))) = (info.ta, frames::parse_bar(mpdu)) {
                self.bar_received(rs, ta, tid, ssn);
                self.send_block_ack(rs, ta, tid, t.ppdu.rate);
            }
            return;
        }
        if info.is_ctrl(ctrl_subtype::RTS) {
            // 10.3.2.8: answer with a CTS if the NAV is idle.
            if self.stas[rs].nav_until <= now {
                if let Some(ta) = info.ta {
                    let phy = self.phy(rs);
                    let cts_rate = phy.response_rate(t.ppdu.rate);
                    let cts_t = phy.ppdu_duration(ACK_LEN, cts_rate);
                    let left = Time::from_us(u64::from(info.duration_us))
                        .saturating_sub(phy.sifs() + cts_t);
                    let f = frames::cts(ta, frames::duration_field(left));
                    self.queue_response(rs, f, cts_rate);
                }
            }
            return;
        }
        if info.wants_ack() {
            if let Some(ta) = info.ta {
                let rate = self.phy(rs).response_rate(t.ppdu.rate);
                // 9.2.5.7: Duration 0 when no fragments follow.
                self.queue_response(rs, frames::ack(ta, 0), rate);
                // 10.3.2.14: drop a retry with the same sequence control.
                if let Some(sc) = info.sequence_control {
                    let dup = info.fc.retry() && self.stas[rs].dedup.get(&ta) == Some(&sc);
                    self.stas[rs].dedup.insert(ta, sc);
                    if dup {
                        self.stas[rs].stats.duplicates += 1;
                        return;
                    }
                }
                if let Some(addba) = frames::parse_addba(mpdu) {
                    self.addba_received(rs, ta, addba);
                    return;
                }
                // 10.25.4: QoS Data under an agreement goes through the
                // reordering buffer even when it came alone with an Ack.
                if let Some((tid, sn)) = frames::qos_data(mpdu) {
                    if self.stas[rs].ba_in.contains_key(&(ta, tid)) {
                        let rx = rx_info(rs, t, c, sender);
                        self.ba_in_frame(rs, ta, tid, sn, mpdu, rx);
                        return;
                    }
                }
                self.deliver(rs, mpdu, t, c, sender);
            }
        }
    }

    fn deliver(&mut self, rs: usize, mpdu: &Arc<[u8]>, t: &OnAir, c: usize, sender: usize) {
        let info = rx_info(rs, t, c, sender);
        self.deliver_info(rs, mpdu, info);
    }

    fn deliver_info(&mut self, rs: usize, mpdu: &Arc<[u8]>, info: RxInfo) {
        let node = self.stas[rs].node.0;
        let frame = mpdu.clone();
        self.call_node(node, |n, now, ctx| n.on_frame(now, &frame, &info, ctx));
    }

    fn queue_response(&mut self, rs: usize, frame: Vec<u8>, rate: Rate) {
        let sifs = self.phy(rs).sifs();
        self.stas[rs].response = Some((frame, rate));
        self.schedule(self.now + sifs, Event::Response { sta: rs });
    }

    fn send_response(&mut self, sta: usize) {
        let Some((f, rate)) = self.stas[sta].response.take() else {
            return;
        };
        if self.stas[sta].state != MacState::Idle {
            return;
        }
        if f.first() == Some(&0xd4) {
            self.stas[sta].stats.acks_sent += 1;
        } else if f.first() == Some(&0x94) {
            self.stas[sta].stats.block_acks_sent += 1;
        } else {
            self.stas[sta].stats.cts_sent += 1;
        }
        self.start_tx(sta, Ppdu::single(rate, f.into()), TxKind::Response);
    }

    fn timeout(&mut self, sta: usize) {
        let s = &mut self.stas[sta];
        let MacState::Waiting { awaited, .. } = s.state else {
            return;
        };
        if s.busy > 0 {
            // A reception started within the timeout: its end decides.
            s.state = MacState::Waiting {
                awaited,
                expired: true,
            };
        } else {
            self.failure(sta);
            self.try_access(sta);
        }
    }

    fn success(&mut self, sta: usize) {
        let s = &mut self.stas[sta];
        s.state = MacState::Idle;
        s.stats.acked += 1;
        self.finish(sta, TxOutcome::Acked);
    }

    /// Ends the current frame: status to the node, CW reset, post-backoff.
    fn finish(&mut self, sta: usize, outcome: TxOutcome) {
        let s = &mut self.stas[sta];
        s.gen += 1;
        let Some(p) = s.cur.take() else {
            return;
        };
        s.cw = s.cw_min;
        self.draw_backoff(sta);
        if p.internal {
            return;
        }
        let statuses: Vec<TxStatus> = if p.subs.is_empty() {
            vec![TxStatus {
                iface: IfaceId(sta),
                token: p.token,
                outcome,
                attempts: p.attempts,
            }]
        } else {
            p.subs
                .iter()
                .map(|q| TxStatus {
                    iface: IfaceId(sta),
                    token: q.token,
                    outcome,
                    attempts: q.tries,
                })
                .collect()
        };
        let node = self.stas[sta].node.0;
        for status in statuses {
            self.call_node(node, |n, now, ctx| n.on_tx_status(now, &status, ctx));
        }
    }

    fn failure(&mut self, sta: usize) {
        let s = &mut self.stas[sta];
        let awaited = match s.state {
            MacState::Waiting { awaited, .. } => Some(awaited),
            _ => None,
        };
        s.state = MacState::Idle;
        s.gen += 1;
        s.stats.failures += 1;
        let (short_limit, long_limit) = (s.cfg.short_retry_limit, s.cfg.long_retry_limit);
        let threshold = s.cfg.rts_threshold;
        let Some(p) = s.cur.as_mut() else {
            return;
        };
        // 10.3.4.4: the short retry count for an RTS and for frames not
        // longer than dot11RTSThreshold, the long count for the others.
        let long =
            awaited == Some(Awaited::Ack) && threshold.is_some_and(|t| p.mpdu.len() + FCS_LEN > t);
        if awaited == Some(Awaited::BlockAck) {
            s.stats.mpdu_retries += p.subs.len() as u64;
        }
        if long {
            p.lrc += 1;
        } else {
            p.src += 1;
        }
        let give_up = p.src >= short_limit || p.lrc >= long_limit;
        if give_up {
            s.stats.dropped += 1;
            self.finish(sta, TxOutcome::Dropped);
        } else {
            s.cw = (2 * s.cw + 1).min(s.cw_max);
            self.draw_backoff(sta);
        }
    }
}

/// What a pending transmission puts on the air.
fn pending_ppdu(p: &Pending) -> Ppdu {
    if p.subs.is_empty() {
        Ppdu::single(p.rate, p.mpdu.as_slice().into())
    } else {
        Ppdu::ampdu(
            p.rate,
            p.subs.iter().map(|q| q.mpdu.as_slice().into()).collect(),
        )
    }
}

fn rx_info(rs: usize, t: &OnAir, c: usize, sender: usize) -> RxInfo {
    RxInfo {
        iface: IfaceId(rs),
        channel: ChannelId(c),
        rate: t.ppdu.rate,
        start: t.start,
        end: t.end,
        transmitter: IfaceId(sender),
    }
}

/// The BSSID of a data frame's header (9.3.2.1, Table 9-30).
fn bssid_of(frame: &[u8]) -> Option<MacAddr> {
    wisec_wire::Header::new_checked(frame).ok()?.bssid()
}

// ---- HT: A-MPDU aggregation and BlockAck (10.12, 10.25) ----
impl Simulator {
    fn pending_from(q: Queued, rate: Rate) -> Pending {
        Pending {
            ra: q.ra,
            group: q.ra.is_group(),
            rate,
            token: q.token,
            src: 0,
            lrc: 0,
            attempts: q.tries,
            data_sent: q.tries,
            with_rts: false,
            mpdu: q.mpdu,
            subs: Vec::new(),
            bar: false,
            internal: false,
        }
    }

    /// A frame the MAC made itself, not yet tried.
    fn fresh_pending(mpdu: Vec<u8>, ra: MacAddr, rate: Rate) -> Pending {
        Self::pending_from(
            Queued {
                mpdu,
                ra,
                token: 0,
                qos: None,
                tries: 0,
            },
            rate,
        )
    }

    /// The HT MAC's next transmission: a frame the MAC made, an A-MPDU of
    /// QoS Data under an agreement, or a single frame.
    fn pull_ht(&mut self, sta: usize) {
        let Some(ba) = self.stas[sta].cfg.block_ack else {
            return;
        };
        let rate = self.stas[sta].cfg.data_rate;
        if let Some((f, bar)) = self.stas[sta].mac_frames.pop_front() {
            let ra = FrameInfo::parse(&f).map_or(MacAddr::BROADCAST, |i| i.ra);
            let mut p = Self::fresh_pending(f, ra, rate);
            p.internal = true;
            p.bar = bar;
            self.stas[sta].cur = Some(p);
            return;
        }
        let max_mpdus = ba
            .max_mpdus
            .clamp(1, 64)
            .min(self.phy(sta).max_mpdus_per_ppdu().max(1));
        // Fill the queue from the node.
        let node = self.stas[sta].node.0;
        let iface = IfaceId(sta);
        while self.stas[sta].queue.len() < max_mpdus {
            self.stas[sta].pulling = true;
            let r = self.call_node(node, |n, now, ctx| n.poll_transmit(now, iface, ctx));
            self.stas[sta].pulling = false;
            let Some(Some(req)) = r else {
                break;
            };
            let TxRequest {
                mpdu,
                rate: _,
                token,
            } = req;
            let Some(info) = FrameInfo::parse(&mpdu) else {
                let status = TxStatus {
                    iface,
                    token,
                    outcome: TxOutcome::Invalid,
                    attempts: 0,
                };
                self.call_node(node, |n, now, ctx| n.on_tx_status(now, &status, ctx));
                continue;
            };
            let qos = frames::qos_data(&mpdu);
            self.stas[sta].queue.push_back(Queued {
                mpdu,
                ra: info.ra,
                token,
                qos,
                tries: 0,
            });
        }
        let Some(head) = self.stas[sta].queue.front() else {
            return;
        };
        let Some((tid, ssn)) = head.qos else {
            let q = self.stas[sta].queue.pop_front();
            if let Some(q) = q {
                self.stas[sta].cur = Some(Self::pending_from(q, rate));
            }
            return;
        };
        let ra = head.ra;
        match self.stas[sta].ba_out.get(&(ra, tid)).copied() {
            None => {
                // 10.25.2: set up the agreement first; frames go singly
                // until the response comes.
                let me = self.stas[sta].cfg.addr;
                let bssid = bssid_of(&head.mpdu).unwrap_or(ra);
                let s = &mut self.stas[sta];
                s.mac_seq = s.mac_seq.wrapping_add(1) & 0x0fff;
                let f = frames::addba_request(
                    ra,
                    me,
                    bssid,
                    s.mac_seq,
                    tid.wrapping_add(1),
                    tid,
                    max_mpdus as u16,
                    ssn,
                );
                s.ba_out.insert((ra, tid), BaOut::Requested);
                let mut p = Self::fresh_pending(f, ra, rate);
                p.internal = true;
                s.cur = Some(p);
            }
            Some(BaOut::Established) => {
                let phy = self.phy(sta);
                let limit_t = phy.max_ppdu_duration(rate);
                let mut subs: Vec<Queued> = Vec::new();
                let mut probe = Ppdu::ampdu(rate, Vec::new());
                let queue = &self.stas[sta].queue;
                for q in queue.iter() {
                    let same = q.ra == ra
                        && q.qos
                            .is_some_and(|(t, sn)| t == tid && sn_after(ssn, sn) < 64);
                    if !same || subs.len() >= max_mpdus {
                        break;
                    }
                    probe.mpdus.push(q.mpdu.as_slice().into());
                    let len = probe.psdu_len();
                    let fits_t = limit_t.is_none_or(|l| phy.ppdu_duration(len, rate) <= l);
                    if !subs.is_empty() && (len > ba.max_ampdu_bytes || !fits_t) {
                        break;
                    }
                    subs.push(q.clone());
                }
                let n = subs.len().max(1);
                let s = &mut self.stas[sta];
                let taken: Vec<Queued> = s.queue.drain(..n.min(s.queue.len())).collect();
                let mut p = Self::fresh_pending(Vec::new(), ra, rate);
                p.attempts = 0;
                p.data_sent = 0;
                p.subs = taken;
                s.cur = Some(p);
            }
            Some(BaOut::Requested | BaOut::Declined) => {
                let q = self.stas[sta].queue.pop_front();
                if let Some(q) = q {
                    self.stas[sta].cur = Some(Self::pending_from(q, rate));
                }
            }
        }
    }

    /// A BlockAck answered the A-MPDU (or the BlockAckReq) in flight.
    fn block_ack_received(&mut self, sta: usize, tid: u8, ssn: u16, bitmap: u64) {
        let limit = self.stas[sta]
            .cfg
            .block_ack
            .map_or(7, |b| b.mpdu_retry_limit);
        let s = &mut self.stas[sta];
        s.state = MacState::Idle;
        s.gen += 1;
        let Some(mut p) = s.cur.take() else {
            return;
        };
        s.cw = s.cw_min;
        s.stats.acked += 1;
        let acked = |sn: u16| {
            let d = sn_after(ssn, sn);
            d < 64 && bitmap & (1u64 << d) != 0
        };
        let mut statuses = Vec::new();
        let mut again = Vec::new();
        let mut bar_ssn: Option<u16> = None;
        for q in p.subs.drain(..) {
            let Some((_, sn)) = q.qos else {
                continue;
            };
            if acked(sn) {
                statuses.push((q.token, TxOutcome::Acked, q.tries));
            } else if q.tries >= limit {
                // 10.25.3: the MPDU is discarded; a BlockAckReq moves the
                // recipient's window past it.
                s.stats.dropped += 1;
                statuses.push((q.token, TxOutcome::Dropped, q.tries));
                let next = (sn + 1) & 0x0fff;
                bar_ssn = Some(match bar_ssn {
                    Some(b) if sn_after(b, next) >= 2048 => b,
                    _ => next,
                });
            } else {
                s.stats.mpdu_retries += 1;
                again.push(q);
            }
        }
        for q in again.into_iter().rev() {
            s.queue.push_front(q);
        }
        if let Some(ssn) = bar_ssn {
            let me = s.cfg.addr;
            s.mac_frames
                .push_back((frames::block_ack_req(p.ra, me, tid, ssn), true));
        }
        self.draw_backoff(sta);
        if p.internal {
            return;
        }
        let node = self.stas[sta].node.0;
        for (token, outcome, attempts) in statuses {
            let status = TxStatus {
                iface: IfaceId(sta),
                token,
                outcome,
                attempts,
            };
            self.call_node(node, |n, now, ctx| n.on_tx_status(now, &status, ctx));
        }
    }

    fn addba_received(&mut self, rs: usize, ta: MacAddr, addba: frames::Addba) {
        match addba {
            frames::Addba::Request {
                token,
                tid,
                buffer,
                ssn,
            } => {
                let accept = self.stas[rs].cfg.block_ack.is_some();
                let s = &mut self.stas[rs];
                if accept {
                    s.ba_in.insert(
                        (ta, tid),
                        BaIn {
                            win_start: ssn,
                            bitmap: 0,
                            next: ssn,
                            buffer: BTreeMap::new(),
                        },
                    );
                }
                s.mac_seq = s.mac_seq.wrapping_add(1) & 0x0fff;
                let me = s.cfg.addr;
                // 9.4.1.9: 0 success, 37 request declined.
                let status = if accept { 0 } else { 37 };
                let f = frames::addba_response(
                    ta,
                    me,
                    ta,
                    s.mac_seq,
                    token,
                    status,
                    tid,
                    buffer.min(64),
                );
                // A MAC without aggregation sends nothing of its own: the
                // originator never sees a response and sends single
                // frames, as with a declined request.
                if accept {
                    s.mac_frames.push_back((f, false));
                }
            }
            frames::Addba::Response { status, tid, .. } => {
                let st = if status == 0 {
                    BaOut::Established
                } else {
                    BaOut::Declined
                };
                self.stas[rs].ba_out.insert((ta, tid), st);
            }
        }
    }

    /// Receives an A-MPDU whose preamble was heard cleanly: each MPDU
    /// passes or fails its own loss draw (its own FCS).
    fn receive_ampdu(&mut self, rs: usize, t: &OnAir, c: usize, sender: usize) {
        let me = self.stas[rs].cfg.addr;
        let r = self.stas[rs].member;
        let mut any = false;
        let mut reply: Option<(MacAddr, u8)> = None;
        for m in &t.ppdu.mpdus {
            let p = self.channels[c].psdu_loss(t.sender, r, m.len() + FCS_LEN, t.ppdu.rate);
            if p > 0.0 && self.channels[c].rng.chance(p) {
                continue;
            }
            let Some(info) = FrameInfo::parse(m) else {
                continue;
            };
            if !any {
                any = true;
                self.stas[rs].stats.rx_ok += 1;
                self.stas[rs].use_eifs = false;
                if matches!(self.stas[rs].state, MacState::Waiting { .. }) {
                    self.failure(rs);
                }
            }
            if info.ra != me {
                if info.duration_us > 0 {
                    let until = self.now + Time::from_us(u64::from(info.duration_us));
                    if until > self.stas[rs].nav_until {
                        self.stas[rs].nav_until = until;
                        self.schedule(until, Event::NavEnd { sta: rs });
                    }
                }
                continue;
            }
            let (Some(ta), Some((tid, sn))) = (info.ta, frames::qos_data(m)) else {
                continue;
            };
            reply = Some((ta, tid));
            let rx = rx_info(rs, t, c, sender);
            self.ba_in_frame(rs, ta, tid, sn, m, rx);
        }
        if !any {
            self.stas[rs].stats.rx_errors += 1;
            self.stas[rs].use_eifs = true;
        }
        if let Some((ta, tid)) = reply {
            self.send_block_ack(rs, ta, tid, t.ppdu.rate);
        }
    }

    /// Scoreboard (10.25.6.3) and reordering buffer (10.25.4) for an MPDU
    /// received under an agreement; delivers what is in order.
    fn ba_in_frame(&mut self, rs: usize, ta: MacAddr, tid: u8, sn: u16, m: &Arc<[u8]>, rx: RxInfo) {
        let s = &mut self.stas[rs];
        let b = s.ba_in.entry((ta, tid)).or_insert_with(|| BaIn {
            win_start: sn,
            bitmap: 0,
            next: sn,
            buffer: BTreeMap::new(),
        });
        // Scoreboard.
        let d = sn_after(b.win_start, sn);
        if d < 64 {
            b.bitmap |= 1 << d;
        } else if d < 2048 {
            let shift = d - 63;
            b.bitmap = if shift >= 64 { 0 } else { b.bitmap >> shift };
            b.win_start = (b.win_start + shift) & 0x0fff;
            b.bitmap |= 1 << 63;
        }
        // Reordering.
        let d = sn_after(b.next, sn);
        let mut out = Vec::new();
        if d >= 2048 || b.buffer.contains_key(&sn) {
            s.stats.duplicates += 1;
        } else {
            if d >= 64 {
                // Beyond the window: release everything before sn - 63.
                let new_next = sn.wrapping_sub(63) & 0x0fff;
                Self::release_until(b, new_next, &mut out);
            }
            b.buffer.insert(sn, (m.clone(), rx));
            Self::release_in_order(b, &mut out);
        }
        for (f, info) in out {
            self.deliver_info(rs, &f, info);
        }
    }

    fn release_until(b: &mut BaIn, until: u16, out: &mut Vec<(Arc<[u8]>, RxInfo)>) {
        let n = sn_after(b.next, until);
        if n >= 2048 {
            return;
        }
        for _ in 0..n {
            if let Some(x) = b.buffer.remove(&b.next) {
                out.push(x);
            }
            b.next = (b.next + 1) & 0x0fff;
        }
    }

    fn release_in_order(b: &mut BaIn, out: &mut Vec<(Arc<[u8]>, RxInfo)>) {
        while let Some(x) = b.buffer.remove(&b.next) {
            out.push(x);
            b.next = (b.next + 1) & 0x0fff;
        }
    }

    fn bar_received(&mut self, rs: usize, ta: MacAddr, tid: u8, ssn: u16) {
        let mut out = Vec::new();
        if let Some(b) = self.stas[rs].ba_in.get_mut(&(ta, tid)) {
            let d = sn_after(b.win_start, ssn);
            if d > 0 && d < 2048 {
                b.bitmap = if d >= 64 { 0 } else { b.bitmap >> d };
                b.win_start = ssn;
            }
            Self::release_until(b, ssn, &mut out);
            Self::release_in_order(b, &mut out);
        }
        for (f, info) in out {
            self.deliver_info(rs, &f, info);
        }
    }

    fn send_block_ack(&mut self, rs: usize, ta: MacAddr, tid: u8, rate: Rate) {
        let me = self.stas[rs].cfg.addr;
        let (ssn, bitmap) = self.stas[rs]
            .ba_in
            .get(&(ta, tid))
            .map_or((0, 0), |b| (b.win_start, b.bitmap));
        let resp = self.phy(rs).response_rate(rate);
        self.queue_response(rs, frames::block_ack(ta, me, tid, ssn, bitmap), resp);
    }
}

/// The frame exchange of one successful individually addressed frame of
/// `psdu_len` octets at `rate` on `phy`, from the start of the frame to
/// the end of its Ack (or, with `rts`, from the start of the RTS).
pub fn exchange_time(phy: &dyn PhyTiming, psdu_len: usize, rate: Rate, rts: bool) -> Time {
    let resp = phy.response_rate(rate);
    let data = phy.ppdu_duration(psdu_len, rate) + phy.sifs() + phy.ppdu_duration(ACK_LEN, resp);
    if rts {
        let cts_rate = phy.response_rate(resp);
        phy.ppdu_duration(RTS_LEN, resp)
            + phy.sifs()
            + phy.ppdu_duration(ACK_LEN, cts_rate)
            + phy.sifs()
            + data
    } else {
        data
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::PhyProfile;

    #[test]
    fn edca_defaults_follow_table_9_155() {
        let a = MacAddr([2, 0, 0, 0, 0, 1]);
        let b = PhyProfile::b();
        let vo = MacConfig::edca(a, Rate::CCK_11, AccessCategory::Voice, &b);
        assert_eq!((vo.aifsn, vo.cw_min, vo.cw_max), (2, Some(7), Some(15)));
        let vi = MacConfig::edca(a, Rate::CCK_11, AccessCategory::Video, &b);
        assert_eq!((vi.aifsn, vi.cw_min, vi.cw_max), (2, Some(15), Some(31)));
        let be = MacConfig::edca(a, Rate::CCK_11, AccessCategory::BestEffort, &b);
        assert_eq!((be.aifsn, be.cw_min, be.cw_max), (3, Some(31), Some(1023)));
        let bk = MacConfig::edca(a, Rate::CCK_11, AccessCategory::Background, &b);
        assert_eq!((bk.aifsn, bk.cw_min, bk.cw_max), (7, Some(31), Some(1023)));
        // AIFS[BE] on 802.11a: 16 + 3 × 9 = 43 µs; DIFS 34 µs.
        assert_eq!(PhyProfile::a().aifs(3), Time::from_us(43));
    }

    #[test]
    fn equal_time_events_run_in_scheduling_order() {
        let mut heap = BinaryHeap::new();
        for (seq, at) in [(1u64, 5u64), (2, 3), (3, 5), (4, 3)] {
            heap.push(Entry {
                at: Time(at),
                seq,
                ev: Event::NavEnd { sta: seq as usize },
            });
        }
        let order: Vec<u64> = std::iter::from_fn(|| heap.pop().map(|e| e.seq)).collect();
        assert_eq!(order, vec![2, 4, 1, 3]);
    }
}
