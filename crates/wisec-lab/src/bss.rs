//! A BSS of real frames: an access point that beacons, stations that scan,
//! authenticate, associate and run the real 4-way handshake
//! ([`wisec_proto::fourway`]) or DiscoSec ([`wisec_proto::discosec`]),
//! wired hosts behind the AP, and an injector node for attacks. Every data
//! frame carries an Ethernet frame of a smoltcp host ([`crate::net`])
//! behind LLC/SNAP, and is protected with `wisec-crypto` under the link's
//! suite; each protect and unprotect is charged to the node's processor
//! ([`crate::cost`]).
//!
//! Security settings ([`Security`]): open; WEP-40/104 with a static key
//! (the seed 001 testers' key of '9' characters, key ID 0); TKIP, CCMP-128/256,
//! GCMP-128/256 with WPA2-PSK (PMK from [`PASSPHRASE`] and [`SSID`]) and a
//! GTK for group-addressed frames; DiscoSec fast/full data authentication
//! without encryption (seed 003).

use crate::cost::{Calibration, Cpu, DeviceProfile, Op, Security};
use crate::net::{Stack, Traffic};
use crate::node::{Ctx, IfaceId, Node, PortId, RxInfo, TxRequest};
use crate::port::SharedPort;
use crate::time::Time;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use wisec_crypto::kdf;
use wisec_crypto::ptk::Pmk;
use wisec_crypto::suite::DataKey;
use wisec_crypto::FrameProtector;
use wisec_proto::discosec;
use wisec_proto::fourway::{Association, Authenticator, Supplicant, Timing};
use wisec_proto::pmf::Pairwise;
use wisec_proto::rsn::{ElementBuf, GroupKey, GroupKeys, Negotiated, Random};
use wisec_proto::time::Instant;
use wisec_wire::element::{Akm, CipherSuite, List, RsnCapabilities, Rsne};
use wisec_wire::frame_control::{FrameControl, FrameType};
use wisec_wire::mgmt::{MgmtFrame, MgmtSubtype};
mod enterprise;
pub use enterprise::{Dot1xOutcome, Dot1xRecord};

use wisec_wire::{
    Addressing, AuthAlgorithm, BeaconFields, CapabilityInfo, DataFrame, DataFrameRepr, ElementId,
    Elements, EtherType, HeaderRepr, MacAddr, MgmtBody, MgmtFrameRepr, StatusCode,
};

/// The lab's BSSID.
pub const BSSID: MacAddr = MacAddr([0x02, 0x1a, 0xb0, 0x00, 0x00, 0x01]);
/// The lab's SSID.
pub const SSID: &str = "wisec-lab";
/// The lab's WPA2 passphrase (not a secret: it lets tshark and `wisec
/// decrypt` read the channel pcap).
pub const PASSPHRASE: &str = "wisec lab passphrase";
/// WEP-40 key: five '9' characters, as the seed 001 testers typed it.
pub const WEP40_KEY: &[u8; 5] = b"99999";
/// WEP-104 key: thirteen '9' characters.
pub const WEP104_KEY: &[u8; 13] = b"9999999999999";
/// The beacon interval: 100 TU.
pub const BEACON_INTERVAL: Time = Time::from_us(102_400);

const EAPOL: EtherType = EtherType(0x888e);
const T_STACK: u64 = 1;
const T_TX: u64 = 2;
const T_RX: u64 = 3;
const T_MGMT: u64 = 4;
const T_BEACON: u64 = 5;
const T_INJECT: u64 = 6;
const T_REJOIN: u64 = 7;
const TIMERS: usize = 8;
const MGMT_TIMEOUT: Time = Time::from_ms(100);
/// Frames a node's driver queue holds before it drops.
const TXQ_LIMIT: usize = 256;

/// A deterministic generator for the handshakes' nonces and DiscoSec keys:
/// SplitMix64, NOT cryptographically secure. The lab's keys exist to make
/// runs reproducible and captures decryptable, never to protect anything.
#[derive(Debug, Clone)]
pub struct LabRng(u64);

impl LabRng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> LabRng {
        LabRng(seed ^ 0x6c61_625f_726e_6721)
    }

    fn next(&mut self) -> u64 {
        crate::rng::splitmix64(&mut self.0)
    }
}

impl Random for LabRng {
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for c in dest.chunks_mut(8) {
            let v = self.next().to_le_bytes();
            c.copy_from_slice(&v[..c.len()]);
        }
    }
}

impl rand_core::TryRng for LabRng {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.next() as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.next())
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        Random::fill_bytes(self, dst);
        Ok(())
    }
}
impl rand_core::TryCryptoRng for LabRng {}

fn now_instant(t: Time) -> Instant {
    Instant::from_micros(t.as_ns() / 1000)
}

fn instant_time(i: Instant) -> Time {
    Time::from_us(i.as_micros())
}

/// What a node's link layer counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LinkStats {
    /// Data frames queued for the air.
    pub data_tx: u64,
    /// Data frames accepted from the air (after their check).
    pub data_rx: u64,
    /// Protected frames whose MIC/ICV/tag failed.
    pub integrity_failures: u64,
    /// Replayed frames dropped.
    pub replays: u64,
    /// Frames dropped at a full driver queue.
    pub queue_drops: u64,
    /// Frames that could not be built or protected.
    pub tx_errors: u64,
    /// Deauthentication/Disassociation frames dropped because management
    /// frame protection is in use and they failed its check (12.6.19).
    pub mgmt_dropped: u64,
    /// Deauthentication/Disassociation frames that ended an association.
    pub mgmt_disconnects: u64,
}

/// The per-node part every radio node shares: the driver queue with its
/// crypto completion times, the processor, the timers.
#[derive(Debug)]
struct Radio {
    iface: Option<IfaceId>,
    profile: DeviceProfile,
    cal: Rc<Calibration>,
    cpu: Cpu,
    txq: VecDeque<(Time, Vec<u8>)>,
    timers: [Option<Time>; TIMERS],
    seq: u16,
    qos_seq: BTreeMap<(MacAddr, u8), u16>,
    stats: LinkStats,
    /// Inside `poll_transmit`: the MAC is taking a frame and asks again
    /// when it is done, so no wake (a wake now would re-enter it).
    in_poll: bool,
}

impl Radio {
    fn new(profile: DeviceProfile, cal: Rc<Calibration>) -> Radio {
        Radio {
            iface: None,
            profile,
            cal,
            cpu: Cpu::default(),
            txq: VecDeque::new(),
            timers: [None; TIMERS],
            seq: 0,
            qos_seq: BTreeMap::new(),
            stats: LinkStats::default(),
            in_poll: false,
        }
    }

    /// The next Sequence Control value (9.2.4.4.2: modulo-4096 counter).
    fn next_seq(&mut self) -> u16 {
        let s = self.seq;
        self.seq = (self.seq + 1) & 0x0fff;
        s << 4
    }

    /// The Sequence Control of the next QoS Data frame to `ra` on TID
    /// `tid`: QoS Data takes its numbers from a counter per receiver and
    /// TID (IEEE Std 802.11-2020, 10.3.2.14.2), so that the recipient of a
    /// BlockAck agreement sees no gaps left by other frames.
    fn next_qos_seq(&mut self, ra: MacAddr, tid: u8) -> u16 {
        let c = self.qos_seq.entry((ra, tid)).or_insert(0);
        let s = *c;
        *c = (*c + 1) & 0x0fff;
        s << 4
    }

    /// Charges `op` of an `octets` MPDU under `sec` to the processor.
    fn charge(&mut self, now: Time, sec: Security, op: Op, octets: usize) -> Time {
        let cost = self.profile.time(&self.cal, sec, op, octets);
        self.cpu.run(now, cost)
    }

    fn timer(&mut self, ctx: &mut Ctx<'_>, token: u64, at: Time) {
        let Some(slot) = self.timers.get_mut(token as usize) else {
            return;
        };
        let at = at.max(ctx.now());
        if slot.is_some_and(|t| t <= at && t >= ctx.now()) {
            return;
        }
        *slot = Some(at);
        ctx.set_timer(at, token);
    }

    fn fired(&mut self, token: u64, now: Time) {
        if let Some(slot) = self.timers.get_mut(token as usize) {
            if slot.is_some_and(|t| t <= now) {
                *slot = None;
            }
        }
    }

    /// The driver queue is full: a data frame is dropped (and counted)
    /// before it takes a sequence number, so that the numbers the MAC sends
    /// have no gaps for a BlockAck recipient to wait on (10.25.4).
    fn full(&mut self) -> bool {
        let full = self.txq.len() >= TXQ_LIMIT;
        if full {
            self.stats.queue_drops += 1;
        }
        full
    }

    /// Queues an MPDU that is ready at `ready`.
    fn queue(&mut self, ctx: &mut Ctx<'_>, ready: Time, mpdu: Vec<u8>) {
        if self.txq.len() >= TXQ_LIMIT {
            self.stats.queue_drops += 1;
            return;
        }
        self.txq.push_back((ready, mpdu));
        self.kick(ctx);
    }

    /// Wakes the MAC if the head frame is ready, or sets a timer for it.
    fn kick(&mut self, ctx: &mut Ctx<'_>) {
        let Some(&(ready, _)) = self.txq.front() else {
            return;
        };
        if ready <= ctx.now() {
            if let (Some(i), false) = (self.iface, self.in_poll) {
                ctx.wake(i);
            }
        } else {
            self.timer(ctx, T_TX, ready);
        }
    }

    fn pop_ready(&mut self, now: Time) -> Option<Vec<u8>> {
        match self.txq.front() {
            Some(&(ready, _)) if ready <= now => self.txq.pop_front().map(|(_, f)| f),
            _ => None,
        }
    }

    /// The end of a `poll_transmit`: with a frame taken the MAC polls
    /// again by itself; without one, a timer waits for the next frame's
    /// crypto to finish.
    fn after_poll(&mut self, ctx: &mut Ctx<'_>, took: bool) {
        self.in_poll = took;
        self.kick(ctx);
        self.in_poll = false;
    }
}

/// Link-layer keys of one association (or the static WEP key).
struct Keys {
    sec: Security,
    pairwise: Option<DataKey>,
    group: Option<(DataKey, u8)>,
    /// Last packet number accepted per key (pairwise, group), 12.5.3.4.4.
    rx_pn: [Option<u64>; 2],
    /// WEP IV counter.
    iv: u64,
}

impl Keys {
    fn none(sec: Security) -> Keys {
        Keys {
            sec,
            pairwise: None,
            group: None,
            rx_pn: [None; 2],
            iv: 0,
        }
    }

    fn wep(sec: Security) -> Option<Keys> {
        let key: &[u8] = match sec {
            Security::Wep40 => WEP40_KEY,
            Security::Wep104 => WEP104_KEY,
            _ => return None,
        };
        let suite = sec.suite()?;
        let mut k = Keys::none(sec);
        k.pairwise = DataKey::new(suite, key).ok();
        k.group = DataKey::new(suite, key).ok().map(|g| (g, 0));
        Some(k)
    }
}

/// Protects `frame` (an MPDU) under `key` with `pn`.
fn protect(key: &DataKey, frame: &[u8], pn: u64, key_id: u8) -> Option<Vec<u8>> {
    let mut out = vec![0u8; frame.len() + key.overhead().total()];
    let n = key.protect(frame, pn, key_id, &mut out).ok()?;
    out.truncate(n);
    Some(out)
}

/// Builds a data MPDU carrying the Ethernet frame `eth` behind an RFC 1042
/// LLC/SNAP header (the EtherType kept, the addresses moved into the MAC
/// header per Table 9-30).
/// With `tid` it is a QoS Data frame of that TID (9.2.4.5), the only
/// kind an HT MAC aggregates.
fn data_from_eth(addressing: Addressing, tid: Option<u8>, seq: u16, eth: &[u8]) -> Option<Vec<u8>> {
    let ethertype = EtherType(u16::from_be_bytes([*eth.get(12)?, *eth.get(13)?]));
    let payload = eth.get(14..)?;
    let repr = DataFrameRepr::msdu(addressing.header(tid, seq), ethertype, payload);
    let mut buf = vec![0u8; repr.buffer_len().ok()?];
    repr.emit(&mut buf).ok()?;
    Some(buf)
}

/// The Ethernet frame a plaintext data MPDU carries: (DA, SA, frame).
fn eth_from_data(mpdu: &[u8]) -> Option<(MacAddr, MacAddr, Vec<u8>)> {
    let f = DataFrame::new_checked(mpdu).ok()?;
    let h = f.header();
    let fc = f.frame_control();
    let (da, sa) = match (fc.to_ds(), fc.from_ds()) {
        (true, false) => (h.addr3()?, h.addr2()?),
        (false, true) => (h.addr1(), h.addr3()?),
        (false, false) => (h.addr1(), h.addr2()?),
        (true, true) => return None,
    };
    let et = f.ethertype()?;
    let payload = f.msdu_payload();
    let mut eth = Vec::with_capacity(14 + payload.len());
    eth.extend_from_slice(&da.0);
    eth.extend_from_slice(&sa.0);
    eth.extend_from_slice(&et.0.to_be_bytes());
    eth.extend_from_slice(payload);
    Some((da, sa, eth))
}

fn eth_addrs(eth: &[u8]) -> Option<(MacAddr, MacAddr)> {
    let mut d = [0u8; 6];
    let mut s = [0u8; 6];
    d.copy_from_slice(eth.get(0..6)?);
    s.copy_from_slice(eth.get(6..12)?);
    Some((MacAddr(d), MacAddr(s)))
}

fn mgmt_frame(
    subtype: MgmtSubtype,
    da: MacAddr,
    sa: MacAddr,
    bssid: MacAddr,
    seq: u16,
    body: MgmtBody,
    variable: &[u8],
) -> Option<Vec<u8>> {
    let repr = MgmtFrameRepr {
        header: HeaderRepr {
            frame_control: FrameControl::new(FrameType::Management, subtype.to_u8()),
            duration: 0,
            addr1: da,
            addr2: Some(sa),
            addr3: Some(bssid),
            sequence_control: Some(seq),
            addr4: None,
            qos_control: None,
            ht_control: None,
        },
        body,
        variable,
    };
    let mut buf = vec![0u8; repr.buffer_len().ok()?];
    repr.emit(&mut buf).ok()?;
    Some(buf)
}

/// Supported Rates (9.4.2.3) and Extended Supported Rates (9.4.2.12) of
/// an ERP BSS: 1, 2, 5.5, 11 (basic), 6, 9, 12, 18; 24, 36, 48, 54.
const RATES: [u8; 10] = [1, 8, 0x82, 0x84, 0x8b, 0x96, 0x0c, 0x12, 0x18, 0x24];
const EXT_RATES: [u8; 6] = [50, 4, 0x30, 0x48, 0x60, 0x6c];

/// The RSNE of the lab's BSS for `sec` (9.4.2.24): PSK, the suite as
/// pairwise and group cipher.
pub fn rsne(sec: Security) -> Option<Vec<u8>> {
    rsne_for(sec, Akm::PSK)
}

/// The RSNE of the lab's BSS for `sec` with the AKM `akm` (PSK, or 802.1X
/// for WPA2-Enterprise).
pub fn rsne_for(sec: Security, akm: Akm) -> Option<Vec<u8>> {
    let cs = cipher_suite(sec)?;
    let pairwise = [cs];
    let akms = [akm];
    let r = Rsne {
        group_data_cipher: Some(cs),
        pairwise: Some(List::Items(&pairwise)),
        akms: Some(List::Items(&akms)),
        capabilities: Some(RsnCapabilities(0)),
        ..Rsne::default()
    };
    let mut b = vec![0u8; r.buffer_len()];
    r.emit(&mut b).ok()?;
    Some(b)
}

fn cipher_suite(sec: Security) -> Option<CipherSuite> {
    Some(match sec {
        Security::Tkip => CipherSuite::TKIP,
        Security::Ccmp128 => CipherSuite::CCMP_128,
        Security::Ccmp256 => CipherSuite::CCMP_256,
        Security::Gcmp128 => CipherSuite::GCMP_128,
        Security::Gcmp256 => CipherSuite::GCMP_256,
        _ => return None,
    })
}

fn negotiated(sec: Security) -> Option<Negotiated> {
    negotiated_for(sec, Akm::PSK)
}

fn negotiated_for(sec: Security, akm: Akm) -> Option<Negotiated> {
    let cs = cipher_suite(sec)?;
    Some(Negotiated::rsn(akm, cs, cs, None))
}

/// What both ends of an association with `spa` agreed on before a 4-way
/// handshake: `neg`, and the same RSNE `rsne` in the AP's beacons and the
/// station's request (the lab's stations copy the AP's).
fn association(neg: Negotiated, rsne: &[u8], spa: MacAddr) -> Option<Association> {
    Some(Association {
        negotiated: neg,
        aa: BSSID,
        spa,
        ap_rsne: ElementBuf::new(rsne).ok()?,
        sta_rsne: ElementBuf::new(rsne).ok()?,
    })
}

/// The PMK of the lab's passphrase and SSID (IEEE Std 802.11-2020,
/// J.4.1), derived once per process: 4096 PBKDF2 iterations are a pause a
/// real station takes when it is configured, not at every association, and
/// a live medium must not stall on them.
fn pmk() -> Option<Pmk> {
    static PMK: std::sync::OnceLock<Option<Pmk>> = std::sync::OnceLock::new();
    PMK.get_or_init(|| kdf::psk(PASSPHRASE.as_bytes(), SSID.as_bytes()).ok())
        .clone()
}

/// Derives, ahead of time, what nodes compute once per process (the
/// PMK of the lab's passphrase), so that a live medium does not pause on
/// it at the first association.
pub fn prepare() {
    let _ = pmk();
}

/// The body after the fixed fields of a Beacon, Association Request or
/// Response: SSID (requests/beacons), rates, DS Parameter Set, RSNE.
fn elements(ssid: bool, rsne: Option<&[u8]>, ds: bool) -> Vec<u8> {
    let mut v = Vec::new();
    if ssid {
        v.push(ElementId::SSID.0);
        v.push(SSID.len() as u8);
        v.extend_from_slice(SSID.as_bytes());
    }
    v.extend_from_slice(&RATES);
    if ds {
        v.extend_from_slice(&[3, 1, 6]);
    }
    if let Some(r) = rsne {
        v.extend_from_slice(r);
    }
    v.extend_from_slice(&EXT_RATES);
    v
}

fn eapol_pdu(mpdu: &[u8]) -> Option<Vec<u8>> {
    let f = DataFrame::new_checked(mpdu).ok()?;
    if f.is_protected() || f.ethertype()? != EAPOL {
        return None;
    }
    Some(f.msdu_payload().to_vec())
}

/// Per-station state at the AP.
struct Client {
    aid: u16,
    associated: bool,
    auth: Option<Box<Authenticator>>,
    keys: Keys,
    /// The PTK's management-frame key, once PMF is in use (12.6.19).
    mgmt: Option<Box<Pairwise>>,
    /// The 802.1X authenticator of a WPA2-Enterprise BSS.
    eap: Option<Box<wisec_proto::dot1x::Authenticator>>,
}

/// The access point: beacons, answers authentication and association,
/// runs the authenticator of the 4-way handshake (or DiscoSec), and
/// bridges between its stations and the wired port 0.
pub struct ApNode {
    sec: Security,
    radio: Radio,
    clients: BTreeMap<MacAddr, Client>,
    group: Keys,
    group_keys: Option<GroupKeys>,
    gtk_pn: u64,
    rsne: Option<Vec<u8>>,
    disco: Option<Box<discosec::Ap<LabRng, 8>>>,
    rng: LabRng,
    /// Frames decrypted and waiting for their processing time, then
    /// bridged.
    rxq: VecDeque<(Time, Vec<u8>)>,
    next_aid: u16,
    /// Send data as QoS Data of this TID (set it when the MAC aggregates);
    /// `None` sends plain Data.
    pub qos_tid: Option<u8>,
    pmf: bool,
    /// When a Deauthentication for a class 3 frame last went to a station.
    class3: BTreeMap<MacAddr, Time>,
    /// WPA2-Enterprise: the 802.1X authenticator's setup and RADIUS port.
    dot1x: Option<Box<enterprise::ApDot1x>>,
    /// DiscoSec: the AP caches each station's master key (seed 003, 3.3).
    key_caching: bool,
    /// DiscoSec key agreements already charged to the processor.
    ecdh_charged: u64,
    /// The platform's limits (station table, per-frame processing), when
    /// modelled.
    resources: Option<ApResources>,
    /// The AP answers nothing before this time (its memory ran out).
    frozen_until: Time,
    /// What the limits did.
    limits: ApLimitStats,
}

/// The limits of an AP's platform: the station table its memory holds and
/// the processor time each received frame costs.
///
/// Every frame the AP receives first costs `frame_cost` on its processor
/// (one job at a time, as the crypto work); frames that find more than
/// `rx_ring` frames' work waiting are dropped, as a full receive ring
/// drops them. A station entry is allocated for every Authentication from
/// an unknown address (or, with DiscoSec, every request the core accepts);
/// when one more entry than `table` would be needed the memory is
/// exhausted and the AP freezes for `stall`: it takes no frame and sends
/// nothing of its own (no beacon, no response, no forwarding; its radio
/// still acknowledges, as radio firmware does), then frees the entries of
/// stations that never associated and goes on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApResources {
    /// Station entries the memory holds.
    pub table: usize,
    /// Processor time per received frame.
    pub frame_cost: Time,
    /// Frames of work the receive ring holds.
    pub rx_ring: usize,
    /// How long an exhaustion freezes the AP.
    pub stall: Time,
}

/// What an AP's platform limits did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ApLimitStats {
    /// Times the station table overflowed (each one a freeze).
    pub exhaustions: u64,
    /// Frames that arrived while the AP was frozen.
    pub frozen_drops: u64,
    /// Frames dropped at a full receive ring.
    pub ring_drops: u64,
    /// Total time frozen.
    pub frozen: Time,
}

impl core::fmt::Debug for ApNode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ApNode")
            .field("sec", &self.sec)
            .field("clients", &self.clients.len())
            .field("stats", &self.radio.stats)
            .finish_non_exhaustive()
    }
}

impl ApNode {
    /// An AP with security `sec` on a device `profile`.
    pub fn new(sec: Security, profile: DeviceProfile, cal: Rc<Calibration>, seed: u64) -> ApNode {
        let mut rng = LabRng::new(seed);
        let mut group = Keys::wep(sec).unwrap_or_else(|| Keys::none(sec));
        let mut group_keys = None;
        if let Some(s) = sec.suite().filter(|_| sec.is_rsn()) {
            let mut k = [0u8; 32];
            rng.fill_bytes(&mut k);
            if let Ok(gtk) = GroupKey::new(&k[..s.key_len()], 1, 0) {
                group.group = DataKey::new(s, gtk.key()).ok().map(|d| (d, 1));
                group_keys = Some(GroupKeys { gtk, igtk: None });
            }
            zeroize::Zeroize::zeroize(&mut k);
        }
        ApNode {
            sec,
            radio: Radio::new(profile, cal),
            clients: BTreeMap::new(),
            group,
            group_keys,
            gtk_pn: 0,
            rsne: rsne(sec),
            disco: None,
            rng,
            rxq: VecDeque::new(),
            next_aid: 1,
            qos_tid: None,
            pmf: false,
            class3: BTreeMap::new(),
            dot1x: None,
            key_caching: true,
            ecdh_charged: 0,
            resources: None,
            frozen_until: Time::ZERO,
            limits: ApLimitStats::default(),
        }
    }

    /// DiscoSec: whether the AP keeps each station's master key so that
    /// the station's next association needs no ECDH (on by default; set
    /// before the simulation starts).
    pub fn set_key_caching(&mut self, on: bool) {
        self.key_caching = on;
    }

    /// Sets the share of the AP's processor (0 to 0.95) a background load
    /// takes: every crypto job, the ECDH included, then takes its cost ÷
    /// (1 − load).
    pub fn set_background_load(&mut self, load: f64) {
        self.radio.cpu.set_load(load);
    }

    /// Models the platform's limits (`None`: unbounded memory, frames
    /// cost nothing but their crypto).
    pub fn set_resources(&mut self, r: Option<ApResources>) {
        self.resources = r;
    }

    /// What the platform limits did so far.
    pub fn limit_stats(&self) -> ApLimitStats {
        self.limits
    }

    /// Whether the AP is frozen at `now` (its memory ran out).
    pub fn frozen(&self, now: Time) -> bool {
        now < self.frozen_until
    }

    /// Charges a received frame to the processor; false when the receive
    /// ring is full or the AP is frozen (the frame is lost).
    fn admit(&mut self, now: Time) -> bool {
        let Some(r) = self.resources else {
            return true;
        };
        if now < self.frozen_until {
            self.limits.frozen_drops += 1;
            return false;
        }
        let backlog = self.radio.cpu.free_at().as_ns().saturating_sub(now.as_ns());
        let ring = r.frame_cost.as_ns().saturating_mul(r.rx_ring as u64);
        if r.frame_cost > Time::ZERO && backlog >= ring {
            self.limits.ring_drops += 1;
            return false;
        }
        self.radio.cpu.run(now, r.frame_cost);
        true
    }

    /// After a frame that may have allocated an entry: past the table, the
    /// memory is exhausted and the AP freezes, then frees the entries of
    /// stations that never associated.
    fn check_memory(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        let Some(r) = self.resources else {
            return;
        };
        if self.entries() <= r.table {
            return;
        }
        self.limits.exhaustions += 1;
        self.limits.frozen += r.stall;
        self.frozen_until = now + r.stall;
        // DiscoSec's core expires its own unassociated entries.
        self.clients.retain(|_, c| c.associated);
        self.radio.timer(ctx, T_TX, self.frozen_until);
    }

    /// Requires management frame protection (802.11w) of every station
    /// (RSN suites with CCMP or GCMP only): once a station's PTK is
    /// installed, Deauthentication and Disassociation frames in its name
    /// must be CCMP-protected with that PTK (12.6.19), and an
    /// Authentication frame from it does not reset its association
    /// (11.13: a forged one must not tear the association down).
    pub fn set_pmf(&mut self, on: bool) {
        self.pmf = on;
    }

    /// State entries the AP keeps for stations (authenticated, associated
    /// or keyed; with DiscoSec, the core's entries).
    pub fn entries(&self) -> usize {
        match self.disco.as_ref() {
            Some(d) => d.entries(),
            None => self.clients.len(),
        }
    }

    /// Key agreements (ECDH) the AP has computed (DiscoSec; 0 otherwise:
    /// the PSK handshake has none).
    pub fn ecdh_ops(&self) -> u64 {
        self.disco.as_ref().map_or(0, |d| d.stats().ecdh_ops)
    }

    /// The DiscoSec core's public key and token interval, for an attacker
    /// that reads them from the beacons.
    pub fn discosec_public(&self) -> Option<(discosec::PublicPoint, discosec::Curve, Time)> {
        let d = self.disco.as_ref()?;
        let i = d.config().token_interval();
        Some((
            *d.public_key(),
            d.config().curve,
            Time::from_ns(u64::try_from(i.as_nanos()).unwrap_or(u64::MAX)),
        ))
    }

    /// The DiscoSec tokens per interval, when token protection is on.
    pub fn discosec_tokens(&self) -> Option<usize> {
        let d = self.disco.as_ref()?;
        d.config()
            .dos_protection
            .then_some(d.config().tokens_per_interval)
    }

    /// Sets the interface the simulator gave the AP.
    pub fn set_iface(&mut self, iface: IfaceId) {
        self.radio.iface = Some(iface);
    }

    /// Stations associated (and keyed, with RSN).
    pub fn associated(&self) -> usize {
        self.clients.values().filter(|c| c.associated).count()
    }

    /// Link-layer counters.
    pub fn stats(&self) -> LinkStats {
        self.radio.stats
    }

    /// Processor time spent on crypto.
    pub fn cpu_busy(&self) -> Time {
        self.radio.cpu.busy()
    }

    /// The group key, when the BSS has one (for tests).
    pub fn group_key(&self) -> Option<&[u8]> {
        self.group_keys.as_ref().map(|g| g.gtk.key())
    }

    fn pump_disco(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        let Some(ap) = self.disco.as_mut() else {
            return;
        };
        // The key agreements the core computed for these frames run on
        // the AP's processor before their answers can go out.
        let ops = ap.stats().ecdh_ops;
        let new = ops.saturating_sub(self.ecdh_charged);
        self.ecdh_charged = ops;
        let ready = if new > 0 {
            let cost = self
                .radio
                .profile
                .ecdh_time(&self.radio.cal, ap.config().curve, new, 0);
            self.radio.cpu.run(now, cost)
        } else {
            now
        };
        let mut out = Vec::new();
        while let Some(f) = ap.poll_transmit() {
            out.push(f.to_vec());
        }
        while let Some(e) = ap.poll_event() {
            match e {
                discosec::ApEvent::Associated { sta, aid } => {
                    let c = self.clients.entry(sta).or_insert_with(|| Client {
                        aid,
                        associated: false,
                        auth: None,
                        keys: Keys::none(self.sec),
                        mgmt: None,
                        eap: None,
                    });
                    c.associated = true;
                }
                discosec::ApEvent::Deauthenticated { sta, .. }
                | discosec::ApEvent::Disassociated { sta, .. }
                | discosec::ApEvent::Expired { sta } => {
                    self.clients.remove(&sta);
                }
                _ => {}
            }
        }
        let next = ap.poll_timeout().map(instant_time);
        for f in out {
            self.radio.queue(ctx, ready, f);
        }
        if let Some(t) = next {
            self.radio.timer(ctx, T_MGMT, t);
        }
    }

    fn beacon(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        let mut cap = CapabilityInfo::ESS | CapabilityInfo::SHORT_SLOT_TIME;
        if self.sec != Security::Open {
            cap |= CapabilityInfo::PRIVACY;
        }
        let var = elements(true, self.rsne.as_deref(), true);
        let seq = self.radio.next_seq();
        let body = MgmtBody::Beacon(BeaconFields {
            timestamp: now.as_ns() / 1000,
            beacon_interval: 100,
            capability: CapabilityInfo(cap),
        });
        if let Some(f) = mgmt_frame(
            MgmtSubtype::Beacon,
            MacAddr::BROADCAST,
            BSSID,
            BSSID,
            seq,
            body,
            &var,
        ) {
            self.radio.queue(ctx, now, f);
        }
        self.radio.timer(ctx, T_BEACON, now + BEACON_INTERVAL);
    }

    fn send_mgmt(
        &mut self,
        ctx: &mut Ctx<'_>,
        sub: MgmtSubtype,
        to: MacAddr,
        body: MgmtBody,
        var: &[u8],
    ) {
        let seq = self.radio.next_seq();
        if let Some(f) = mgmt_frame(sub, to, BSSID, BSSID, seq, body, var) {
            self.radio.queue(ctx, ctx.now(), f);
        }
    }

    fn on_mgmt(&mut self, now: Time, frame: &[u8], ctx: &mut Ctx<'_>) {
        let Ok(m) = MgmtFrame::new_checked(frame) else {
            return;
        };
        let Ok(repr) = MgmtFrameRepr::parse(&m) else {
            return;
        };
        let Some(sta) = repr.header.addr2 else {
            return;
        };
        if repr.header.addr1 != BSSID {
            return;
        }
        match repr.body {
            MgmtBody::Authentication {
                algorithm: AuthAlgorithm::OpenSystem,
                seq: 1,
                ..
            } => {
                // 11.13: a station whose PMF association is in use keeps
                // it; an unprotected Authentication frame in its name
                // changes nothing.
                if self.clients.get(&sta).is_some_and(|c| c.mgmt.is_some()) {
                    return;
                }
                // 12.3.3.2: Open System authentication always succeeds.
                self.clients.insert(
                    sta,
                    Client {
                        aid: 0,
                        associated: false,
                        auth: None,
                        keys: Keys::wep(self.sec).unwrap_or_else(|| Keys::none(self.sec)),
                        mgmt: None,
                        eap: None,
                    },
                );
                let body = MgmtBody::Authentication {
                    algorithm: AuthAlgorithm::OpenSystem,
                    seq: 2,
                    status: StatusCode::SUCCESS,
                };
                self.send_mgmt(ctx, MgmtSubtype::Authentication, sta, body, &[]);
            }
            MgmtBody::AssocRequest { .. } => {
                let sta_rsne = Elements::new(repr.variable)
                    .find_id(ElementId::RSN)
                    .map(|e| {
                        let mut v = vec![ElementId::RSN.0, e.data.len() as u8];
                        v.extend_from_slice(e.data);
                        v
                    });
                let next_aid = self.next_aid;
                let Some(c) = self.clients.get_mut(&sta) else {
                    return;
                };
                if c.aid == 0 {
                    c.aid = next_aid;
                    self.next_aid += 1;
                }
                let aid = c.aid;
                let mut status = StatusCode::SUCCESS;
                let enterprise = self.dot1x.is_some();
                let mut start_eap = false;
                if let (Some(neg), Some(ap_rsne)) = (negotiated(self.sec), self.rsne.as_ref()) {
                    let ok = sta_rsne.as_deref() == Some(ap_rsne.as_slice());
                    // The passphrase's PMK only for PSK: its 4096 PBKDF2
                    // rounds are no part of an 802.1X association.
                    let psk = if enterprise { None } else { pmk() };
                    match (ok, psk, self.group_keys.clone()) {
                        // 802.1X: the PMK comes from the authentication
                        // server after association (12.7.1.3).
                        (true, _, Some(_)) if enterprise => start_eap = true,
                        (true, Some(pmk), Some(gk)) => {
                            let Some(assoc) = association(neg, ap_rsne, sta) else {
                                return;
                            };
                            c.auth = Authenticator::new(assoc, pmk, gk, Timing::default())
                                .ok()
                                .map(Box::new);
                        }
                        _ => status = StatusCode::INVALID_ELEMENT,
                    }
                } else {
                    c.associated = true;
                }
                let body = MgmtBody::AssocResponse {
                    capability: CapabilityInfo(CapabilityInfo::ESS),
                    status,
                    aid: aid | 0xc000,
                };
                let var = elements(false, None, false);
                self.send_mgmt(ctx, MgmtSubtype::AssocResponse, sta, body, &var);
                if start_eap {
                    self.dot1x_start(now, sta, ctx);
                    return;
                }
                // 12.7.6.2: the authenticator starts with message 1.
                if let Some(c) = self.clients.get_mut(&sta) {
                    if let Some(a) = c.auth.as_mut() {
                        let _ = a.start(now_instant(now), &mut self.rng);
                    }
                }
                self.pump_eapol(now, sta, ctx);
            }
            MgmtBody::Deauthentication { .. } | MgmtBody::Disassociation { .. } => {
                if let Some(Some(k)) = self.clients.get_mut(&sta).map(|c| c.mgmt.as_mut()) {
                    if !accept_protected_mgmt(k, frame) {
                        self.radio.stats.mgmt_dropped += 1;
                        return;
                    }
                }
                if self.clients.remove(&sta).is_some() {
                    self.radio.stats.mgmt_disconnects += 1;
                }
            }
            _ => {}
        }
    }

    /// 11.3.3: a class 3 frame from a station that is not associated is
    /// answered with a Deauthentication, reason 7 (at most every 100 ms per
    /// station), so that the station learns it has to join again.
    fn class3_reject(&mut self, now: Time, sta: MacAddr, ctx: &mut Ctx<'_>) {
        if self
            .class3
            .get(&sta)
            .is_some_and(|t| now < *t + Time::from_ms(100))
        {
            return;
        }
        self.class3.insert(sta, now);
        let body = MgmtBody::Deauthentication {
            reason: wisec_wire::ReasonCode(7),
        };
        self.send_mgmt(ctx, MgmtSubtype::Deauthentication, sta, body, &[]);
    }

    /// Sends what the authenticator of `sta` has and installs its PTK.
    fn pump_eapol(&mut self, now: Time, sta: MacAddr, ctx: &mut Ctx<'_>) {
        let mut out = Vec::new();
        let mut next = None;
        if let Some(c) = self.clients.get_mut(&sta) {
            if let Some(a) = c.auth.as_mut() {
                while let Some(p) = a.poll_transmit() {
                    out.push(p.to_vec());
                }
                while let Some(e) = a.poll_event() {
                    if e == wisec_proto::fourway::Event::FourWayComplete {
                        let key = a.ptk().and_then(|p| {
                            self.sec.suite().and_then(|s| DataKey::new(s, p.tk()).ok())
                        });
                        c.keys.pairwise = key;
                        c.keys.rx_pn = [None; 2];
                        c.associated = c.keys.pairwise.is_some();
                        if self.pmf {
                            c.mgmt = a
                                .ptk()
                                .zip(cipher_suite(self.sec))
                                .and_then(|(p, cs)| Pairwise::new(cs, p.tk()).ok())
                                .map(Box::new);
                        }
                    }
                }
                next = a.poll_timeout().map(instant_time);
            }
        }
        for pdu in out {
            let seq = self.radio.next_seq();
            let a = Addressing::FromAp {
                da: sta,
                bssid: BSSID,
                sa: BSSID,
            };
            let repr = DataFrameRepr::msdu(a.header(None, seq), EAPOL, &pdu);
            let mut buf = vec![0u8; repr.buffer_len().unwrap_or(0)];
            if repr.emit(&mut buf).is_ok() {
                self.radio.queue(ctx, now, buf);
            }
        }
        if let Some(t) = next {
            self.radio.timer(ctx, T_MGMT, t);
        }
    }

    /// Protects and queues the Ethernet frame `eth` for station `da` (or
    /// the whole BSS when `da` is a group address).
    fn forward(&mut self, now: Time, eth: &[u8], ctx: &mut Ctx<'_>) {
        let Some((da, sa)) = eth_addrs(eth) else {
            return;
        };
        let group = da.is_group();
        if !group && !self.clients.get(&da).is_some_and(|c| c.associated) {
            return;
        }
        if self.radio.full() {
            return;
        }
        let tid = self.qos_tid.filter(|_| !group);
        let seq = match tid {
            Some(tid) => self.radio.next_qos_seq(da, tid),
            None => self.radio.next_seq(),
        };
        let a = Addressing::FromAp {
            da,
            bssid: BSSID,
            sa,
        };
        let Some(plain) = data_from_eth(a, tid, seq, eth) else {
            self.radio.stats.tx_errors += 1;
            return;
        };
        let sec = self.sec;
        let plain_len = plain.len();
        let out = if sec.discosec_mode().is_some() {
            match (group, self.disco.as_mut()) {
                (false, Some(ap)) => {
                    let mut buf = plain.clone();
                    buf.resize(plain.len() + sec.overhead(), 0);
                    match ap.seal_data(da, &mut buf, plain.len()) {
                        Ok(n) => {
                            buf.truncate(n);
                            Some(buf)
                        }
                        Err(_) => None,
                    }
                }
                _ => Some(plain),
            }
        } else if sec == Security::Open {
            Some(plain)
        } else if group {
            let pn = if sec.is_rsn() {
                self.gtk_pn += 1;
                self.gtk_pn
            } else {
                self.group.iv += 1;
                self.group.iv & 0xff_ffff
            };
            self.group
                .group
                .as_ref()
                .and_then(|(k, id)| protect(k, &plain, pn, *id))
        } else {
            let Some(c) = self.clients.get_mut(&da) else {
                return;
            };
            let pn = if sec.is_rsn() {
                c.auth.as_mut().and_then(|a| a.next_pn())
            } else {
                c.keys.iv += 1;
                Some(c.keys.iv & 0xff_ffff)
            };
            match (c.keys.pairwise.as_ref(), pn) {
                (Some(k), Some(pn)) => protect(k, &plain, pn, 0),
                _ => None,
            }
        };
        let Some(f) = out else {
            self.radio.stats.tx_errors += 1;
            return;
        };
        // Group frames under DiscoSec are not authenticated: no cost.
        let cost_sec = if group && sec.discosec_mode().is_some() {
            Security::Open
        } else {
            sec
        };
        let ready = self.radio.charge(now, cost_sec, Op::Protect, plain_len);
        self.radio.stats.data_tx += 1;
        self.radio.queue(ctx, ready, f);
    }

    fn on_data(&mut self, now: Time, frame: &[u8], ctx: &mut Ctx<'_>) {
        let Ok(f) = DataFrame::new_checked(frame) else {
            return;
        };
        let fc = f.frame_control();
        let h = f.header();
        if !fc.to_ds() || fc.from_ds() || h.addr1() != BSSID {
            return;
        }
        let Some(sta) = h.addr2() else {
            return;
        };
        if let Some(pdu) = eapol_pdu(frame) {
            if self.dot1x.is_some() && !enterprise::is_eapol_key(&pdu) {
                self.dot1x_eapol(now, sta, &pdu, ctx);
                return;
            }
            if let Some(a) = self.clients.get_mut(&sta).and_then(|c| c.auth.as_mut()) {
                let _ = a.handle_rx(now_instant(now), &pdu, &mut self.rng);
            }
            self.pump_eapol(now, sta, ctx);
            return;
        }
        let sec = self.sec;
        let plain = if let Some(ap) = self.disco.as_mut() {
            match ap.open_data(now_instant(now), frame) {
                Ok(v) => frame.get(..v.len()).map(<[u8]>::to_vec),
                Err(_) => {
                    self.radio.stats.integrity_failures += 1;
                    None
                }
            }
        } else if sec == Security::Open {
            if fc.protected() {
                None
            } else {
                Some(frame.to_vec())
            }
        } else {
            let Some(c) = self.clients.get_mut(&sta).filter(|c| c.associated) else {
                self.class3_reject(now, sta, ctx);
                return;
            };
            unprotect(&mut c.keys, frame, false, &mut self.radio.stats)
        };
        let Some(plain) = plain else {
            return;
        };
        if !self.clients.get(&sta).is_some_and(|c| c.associated) {
            if self.disco.is_none() {
                self.class3_reject(now, sta, ctx);
            }
            return;
        }
        let ready = self.radio.charge(now, sec, Op::Unprotect, frame.len());
        if let Some((_, _, eth)) = eth_from_data(&plain) {
            self.radio.stats.data_rx += 1;
            // A protected EAPOL frame (a station authenticating again)
            // belongs to the authenticator, not to the wired side.
            if self.dot1x.is_some() && eth.get(12..14) == Some(&EAPOL.0.to_be_bytes()[..]) {
                self.dot1x_eapol(now, sta, &eth[14..], ctx);
                return;
            }
            self.rxq.push_back((ready, eth));
            self.radio.timer(ctx, T_RX, ready);
        }
    }

    fn bridge_ready(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        while let Some(&(t, _)) = self.rxq.front() {
            if t > now {
                self.radio.timer(ctx, T_RX, t);
                break;
            }
            let Some((_, eth)) = self.rxq.pop_front() else {
                break;
            };
            let Some((da, _)) = eth_addrs(&eth) else {
                continue;
            };
            if da.is_group() {
                ctx.send_wired(PortId(0), eth.clone());
                self.forward(now, &eth, ctx);
            } else if self.clients.contains_key(&da) {
                self.forward(now, &eth, ctx);
            } else {
                ctx.send_wired(PortId(0), eth);
            }
        }
    }

    /// Enables DiscoSec (called by the builder for DiscoSec settings).
    fn enable_discosec(&mut self, now: Time) {
        let Some(mode) = self.sec.discosec_mode() else {
            return;
        };
        let Some(mut cfg) = discosec::ApConfig::new(BSSID, SSID.as_bytes()) else {
            return;
        };
        cfg.mode = mode;
        cfg.key_cache = self.key_caching;
        let rng = LabRng::new(self.rng.next());
        self.disco = Some(Box::new(discosec::Ap::new(now_instant(now), cfg, rng)));
    }
}

/// Unprotects a received data frame under `keys`, checking the replay
/// counter (advanced only after the integrity check passed, 12.5.3.4.4).
fn unprotect(keys: &mut Keys, frame: &[u8], group: bool, stats: &mut LinkStats) -> Option<Vec<u8>> {
    let fc = FrameControl::from_bytes([*frame.first()?, *frame.get(1)?]);
    if !fc.protected() {
        return None;
    }
    let (key, slot) = if group {
        (keys.group.as_ref().map(|(k, _)| k), 1)
    } else {
        (keys.pairwise.as_ref(), 0)
    };
    let key = key?;
    let mut buf = frame.to_vec();
    match key.unprotect_in_place(&mut buf) {
        Ok(u) => {
            // WEP has no replay protection (12.3.2); the others accept
            // only increasing packet numbers.
            if keys.sec.is_rsn() {
                if keys.rx_pn[slot].is_some_and(|p| u.pn() <= p) {
                    stats.replays += 1;
                    return None;
                }
                keys.rx_pn[slot] = Some(u.pn());
            }
            buf.truncate(u.len());
            Some(buf)
        }
        Err(_) => {
            stats.integrity_failures += 1;
            None
        }
    }
}

/// Whether a Deauthentication or Disassociation frame passes management
/// frame protection under the PTK's key `k`: it must be protected and its
/// CCMP MIC and management replay counter must check (12.6.19, 12.5.3).
fn accept_protected_mgmt(k: &mut Pairwise, frame: &[u8]) -> bool {
    let fc = match frame {
        [a, b, ..] => FrameControl::from_bytes([*a, *b]),
        _ => return false,
    };
    if !fc.protected() {
        return false;
    }
    let mut buf = frame.to_vec();
    k.unprotect(&mut buf).is_ok()
}

impl Node for ApNode {
    fn start(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        if self.sec.discosec_mode().is_some() {
            self.enable_discosec(now);
            if let Some(ap) = self.disco.as_mut() {
                ap.handle_timeout(now_instant(now));
            }
            self.pump_disco(now, ctx);
        } else {
            self.beacon(now, ctx);
        }
    }

    fn on_frame(&mut self, now: Time, frame: &[u8], _info: &RxInfo, ctx: &mut Ctx<'_>) {
        let fc = match frame {
            [a, b, ..] => FrameControl::from_bytes([*a, *b]),
            _ => return,
        };
        if !self.admit(now) {
            return;
        }
        if fc.is_mgmt() {
            if let Some(ap) = self.disco.as_mut() {
                let _ = ap.handle_rx(now_instant(now), frame);
                self.pump_disco(now, ctx);
            } else {
                self.on_mgmt(now, frame, ctx);
            }
            self.check_memory(now, ctx);
        } else if fc.is_data() {
            self.on_data(now, frame, ctx);
        }
    }

    fn poll_transmit(
        &mut self,
        now: Time,
        _iface: IfaceId,
        ctx: &mut Ctx<'_>,
    ) -> Option<TxRequest> {
        if now < self.frozen_until {
            self.radio.timer(ctx, T_TX, self.frozen_until);
            return None;
        }
        let f = self.radio.pop_ready(now);
        self.radio.after_poll(ctx, f.is_some());
        f.map(TxRequest::new)
    }

    fn on_timer(&mut self, now: Time, token: u64, ctx: &mut Ctx<'_>) {
        self.radio.fired(token, now);
        if now < self.frozen_until && token != T_TX {
            // Frozen: nothing runs; beacons resume afterwards.
            if token == T_BEACON {
                self.radio.timer(ctx, T_BEACON, now + BEACON_INTERVAL);
            } else {
                self.radio.timer(ctx, token, self.frozen_until);
            }
            return;
        }
        match token {
            T_TX => self.radio.kick(ctx),
            T_RX => self.bridge_ready(now, ctx),
            T_BEACON => self.beacon(now, ctx),
            T_MGMT => {
                if let Some(ap) = self.disco.as_mut() {
                    ap.handle_timeout(now_instant(now));
                    self.pump_disco(now, ctx);
                } else {
                    self.dot1x_timeouts(now, ctx);
                    let stas: Vec<MacAddr> = self.clients.keys().copied().collect();
                    for s in stas {
                        if let Some(a) = self.clients.get_mut(&s).and_then(|c| c.auth.as_mut()) {
                            if a.poll_timeout().is_some_and(|t| instant_time(t) <= now) {
                                let _ = a.handle_timeout(now_instant(now));
                            }
                        }
                        self.pump_eapol(now, s, ctx);
                    }
                }
            }
            _ => {}
        }
    }

    fn on_wired(&mut self, now: Time, _port: PortId, packet: &[u8], ctx: &mut Ctx<'_>) {
        if now < self.frozen_until {
            self.limits.frozen_drops += 1;
            return;
        }
        self.forward(now, packet, ctx);
    }

    fn on_input(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        self.dot1x_input(now, ctx);
    }
}

/// Where a station is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum StaPhase {
    /// Waiting for a beacon of the lab's SSID.
    Scanning,
    /// Authentication request sent.
    Authenticating,
    /// Association request sent.
    Associating,
    /// Associated, 4-way handshake running.
    Handshake,
    /// Keys installed (or none needed): data flows.
    Connected,
}

/// A station: scans, joins the lab's BSS and runs a smoltcp host.
pub struct StaNode {
    addr: MacAddr,
    sec: Security,
    radio: Radio,
    phase: StaPhase,
    tries: u32,
    keys: Keys,
    supp: Option<Box<Supplicant>>,
    disco: Option<Box<discosec::Sta<LabRng>>>,
    rng: LabRng,
    /// The IP stack.
    pub stack: Stack,
    rxq: VecDeque<(Time, Vec<u8>)>,
    /// When the link came up.
    pub connected_at: Option<Time>,
    /// Start the traffic this long after the link came up.
    pub traffic_delay: Time,
    /// Send data as QoS Data of this TID (set it when the MAC aggregates);
    /// `None` sends plain Data.
    pub qos_tid: Option<u8>,
    /// Start the traffic at this time (or when the link comes up, if
    /// later) instead of `traffic_delay` after the link came up: several
    /// stations starting together.
    pub traffic_at: Option<Time>,
    pmf: bool,
    mgmt: Option<Box<Pairwise>>,
    /// Times the station lost its association to a Deauthentication or
    /// Disassociation frame.
    pub disconnects: u32,
    /// Host processing (driver, IP stack, application) per octet of every
    /// data MSDU the station sends or receives, ns; it runs on the same
    /// processor as the crypto. 0: none.
    pub host_ns_per_octet: f64,
    /// A device outside the simulation (the live lab's TAP) that sends and
    /// receives the station's Ethernet frames instead of [`Self::stack`].
    tap: Option<SharedPort>,
    /// WPA2-Enterprise: EAP goes to and from the TAP's supplicant, the
    /// MSK comes in through a port of its own.
    dot1x: Option<Box<enterprise::StaDot1x>>,
    /// DiscoSec: keep the key pair and master keys for the next
    /// association (seed 003, 3.3).
    key_caching: bool,
    /// DiscoSec key agreements already charged to the processor.
    ecdh_charged: u64,
    /// DiscoSec: associate again this long after the first association.
    rejoin_after: Option<Time>,
    /// When the station started its latest key exchange: the first frame
    /// it sent towards the AP after deciding to join.
    pub exchange_started_at: Option<Time>,
    /// Associations completed.
    pub associations: u32,
}

impl core::fmt::Debug for StaNode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StaNode")
            .field("addr", &self.addr)
            .field("phase", &self.phase)
            .field("stats", &self.radio.stats)
            .finish_non_exhaustive()
    }
}

impl StaNode {
    /// A station `addr` with IPv4 address `ip` running `traffic` towards
    /// `peer`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        addr: MacAddr,
        ip: [u8; 4],
        peer: [u8; 4],
        traffic: Traffic,
        sec: Security,
        profile: DeviceProfile,
        cal: Rc<Calibration>,
        seed: u64,
    ) -> StaNode {
        let mut rng = LabRng::new(seed);
        let stack = Stack::new(addr.0, ip, peer, traffic, rng.next(), Time::ZERO);
        StaNode {
            addr,
            sec,
            radio: Radio::new(profile, cal),
            phase: StaPhase::Scanning,
            tries: 0,
            keys: Keys::wep(sec).unwrap_or_else(|| Keys::none(sec)),
            supp: None,
            disco: None,
            rng,
            stack,
            rxq: VecDeque::new(),
            connected_at: None,
            traffic_delay: Time::from_ms(100),
            qos_tid: None,
            traffic_at: None,
            pmf: false,
            mgmt: None,
            disconnects: 0,
            host_ns_per_octet: 0.0,
            tap: None,
            dot1x: None,
            key_caching: true,
            ecdh_charged: 0,
            rejoin_after: None,
            exchange_started_at: None,
            associations: 0,
        }
    }

    /// Takes the station's Ethernet frames from `port` and delivers what
    /// it receives there, instead of running [`Self::stack`] (which then
    /// stays idle): the live lab's TAP device. Frames that arrive before
    /// the link is up are dropped and counted, as a driver without an
    /// association does.
    pub fn set_tap(&mut self, port: SharedPort) {
        self.tap = Some(port);
    }

    /// Whether the driver queue has room, told to the TAP's driver.
    fn update_accepting(&self) {
        if let Some(p) = &self.tap {
            p.borrow_mut().accepting = self.radio.txq.len() < TXQ_LIMIT;
        }
    }

    /// Uses management frame protection once the PTK is installed (see
    /// [`ApNode::set_pmf`]).
    pub fn set_pmf(&mut self, on: bool) {
        self.pmf = on;
    }

    /// 11.3.3, 12.6.19: the association (and its keys) is gone; the
    /// station scans and joins again.
    fn drop_association(&mut self) {
        if self.phase == StaPhase::Connected {
            self.disconnects += 1;
        }
        self.radio.stats.mgmt_disconnects += 1;
        self.phase = StaPhase::Scanning;
        self.tries = 0;
        self.keys.pairwise = None;
        self.keys.group = None;
        self.keys.rx_pn = [None; 2];
        self.supp = None;
        self.mgmt = None;
        if let Some(d) = self.dot1x.as_mut() {
            d.reset();
        }
    }

    /// DiscoSec: whether the station keeps its key pair and master keys
    /// for its next association (on by default; set before the
    /// simulation starts).
    pub fn set_key_caching(&mut self, on: bool) {
        self.key_caching = on;
    }

    /// DiscoSec: `after` its first association, the station leaves and
    /// associates again (with key caching, without ECDH).
    pub fn set_rejoin(&mut self, after: Time) {
        self.rejoin_after = Some(after);
    }

    /// Sets the interface the simulator gave the station.
    pub fn set_iface(&mut self, iface: IfaceId) {
        self.radio.iface = Some(iface);
    }

    /// Where the station is.
    pub fn phase(&self) -> StaPhase {
        self.phase
    }

    /// Link-layer counters.
    pub fn stats(&self) -> LinkStats {
        self.radio.stats
    }

    /// Processor time spent on crypto.
    pub fn cpu_busy(&self) -> Time {
        self.radio.cpu.busy()
    }

    /// The pairwise temporal key in use, for tests that decrypt the
    /// channel independently.
    pub fn installed_tk(&self) -> Option<Vec<u8>> {
        self.supp.as_ref()?.ptk().map(|p| p.tk().to_vec())
    }

    fn send_mgmt(&mut self, ctx: &mut Ctx<'_>, sub: MgmtSubtype, body: MgmtBody, var: &[u8]) {
        let seq = self.radio.next_seq();
        if let Some(f) = mgmt_frame(sub, BSSID, self.addr, BSSID, seq, body, var) {
            self.radio.queue(ctx, ctx.now(), f);
        }
    }

    fn authenticate(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        self.phase = StaPhase::Authenticating;
        let body = MgmtBody::Authentication {
            algorithm: AuthAlgorithm::OpenSystem,
            seq: 1,
            status: StatusCode::SUCCESS,
        };
        self.send_mgmt(ctx, MgmtSubtype::Authentication, body, &[]);
        self.radio.timer(ctx, T_MGMT, now + MGMT_TIMEOUT);
    }

    fn associate(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        self.phase = StaPhase::Associating;
        let r = self.own_rsne();
        let var = elements(true, r.as_deref(), false);
        let body = MgmtBody::AssocRequest {
            capability: CapabilityInfo(CapabilityInfo::ESS | CapabilityInfo::SHORT_SLOT_TIME),
            listen_interval: 10,
        };
        self.send_mgmt(ctx, MgmtSubtype::AssocRequest, body, &var);
        self.radio.timer(ctx, T_MGMT, now + MGMT_TIMEOUT);
    }

    /// DiscoSec: leaves the AP (an authenticated Deauthentication) and
    /// joins it again at once.
    fn rejoin(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        let Some(s) = self.disco.as_mut() else {
            return;
        };
        let _ = s.disconnect(wisec_wire::mgmt::ReasonCode::DEAUTH_LEAVING);
        let mut out = Vec::new();
        while let Some(f) = s.poll_transmit() {
            out.push(f.to_vec());
        }
        while s.poll_event().is_some() {}
        for f in out {
            self.radio.queue(ctx, now, f);
        }
        self.phase = StaPhase::Scanning;
        self.exchange_started_at = None;
        s.connect(now_instant(now), BSSID);
        self.pump_disco(now, ctx);
    }

    fn connected(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        if self.phase == StaPhase::Connected {
            return;
        }
        self.phase = StaPhase::Connected;
        self.connected_at = Some(now);
        let start = self.traffic_at.unwrap_or(now + self.traffic_delay).max(now);
        self.radio.timer(ctx, T_STACK, start);
    }

    fn on_mgmt(&mut self, now: Time, frame: &[u8], ctx: &mut Ctx<'_>) {
        let Ok(m) = MgmtFrame::new_checked(frame) else {
            return;
        };
        let Ok(repr) = MgmtFrameRepr::parse(&m) else {
            return;
        };
        if repr.header.addr3 != Some(BSSID) {
            return;
        }
        match (self.phase, repr.body) {
            (StaPhase::Scanning, MgmtBody::Beacon(_)) => {
                let els = Elements::new(repr.variable);
                if els.clone().ssid() != Some(SSID.as_bytes()) {
                    return;
                }
                // The AP must offer what the station is configured for.
                let offered = els.find_id(ElementId::RSN).map(|e| e.data.to_vec());
                let wanted = self.own_rsne().map(|r| r[2..].to_vec());
                if offered == wanted {
                    self.authenticate(now, ctx);
                }
            }
            (StaPhase::Authenticating, MgmtBody::Authentication { seq: 2, status, .. })
                if repr.header.addr1 == self.addr && status.is_success() =>
            {
                self.tries = 0;
                self.associate(now, ctx);
            }
            (StaPhase::Associating, MgmtBody::AssocResponse { status, .. })
                if repr.header.addr1 == self.addr && status.is_success() =>
            {
                self.tries = 0;
                if self.dot1x.is_some() {
                    self.dot1x_associated();
                } else if let (Some(neg), Some(r), Some(pmk)) =
                    (negotiated(self.sec), rsne(self.sec), pmk())
                {
                    let Some(assoc) = association(neg, &r, self.addr) else {
                        return;
                    };
                    self.supp = Supplicant::new(assoc, pmk).ok().map(Box::new);
                    self.phase = StaPhase::Handshake;
                } else {
                    self.connected(now, ctx);
                }
            }
            (_, MgmtBody::Deauthentication { .. } | MgmtBody::Disassociation { .. })
                if repr.header.addr1 == self.addr && repr.header.addr2 == Some(BSSID) =>
            {
                if let Some(k) = self.mgmt.as_mut() {
                    if !accept_protected_mgmt(k, frame) {
                        self.radio.stats.mgmt_dropped += 1;
                        return;
                    }
                }
                self.drop_association();
            }
            _ => {}
        }
    }

    fn pump_disco(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        let Some(s) = self.disco.as_mut() else {
            return;
        };
        // Its key agreements (and the key pair each needs: a fresh one
        // per exchange without caching, the static one once with it) run
        // on the station's processor before its frames go out.
        let ops = s.stats().ecdh_ops;
        let new = ops.saturating_sub(self.ecdh_charged);
        let keygens = if self.key_caching {
            u64::from(self.ecdh_charged == 0 && new > 0)
        } else {
            new
        };
        self.ecdh_charged = ops;
        let mut ready = now;
        if new > 0 {
            let cost = self.radio.profile.ecdh_time(
                &self.radio.cal,
                discosec::Curve::default(),
                new,
                keygens,
            );
            ready = self.radio.cpu.run(now, cost);
        }
        let mut out = Vec::new();
        while let Some(f) = s.poll_transmit() {
            out.push(f.to_vec());
        }
        if !out.is_empty()
            && self.phase != StaPhase::Connected
            && self.exchange_started_at.is_none()
        {
            self.exchange_started_at = Some(now);
        }
        let mut up = false;
        let mut down = false;
        while let Some(e) = s.poll_event() {
            match e {
                discosec::StaEvent::Associated { .. } => up = true,
                discosec::StaEvent::Deauthenticated { .. }
                | discosec::StaEvent::Disassociated { .. } => down = true,
                _ => {}
            }
        }
        if down {
            // The core verified the frame (or the BSS runs without
            // DiscoSec): the association is gone; join again.
            if self.phase == StaPhase::Connected {
                self.disconnects += 1;
            }
            self.radio.stats.mgmt_disconnects += 1;
            self.phase = StaPhase::Scanning;
            s.connect(now_instant(now), BSSID);
            while let Some(f) = s.poll_transmit() {
                out.push(f.to_vec());
            }
        }
        let next = s.poll_timeout().map(instant_time);
        for f in out {
            self.radio.queue(ctx, ready, f);
        }
        if let Some(t) = next {
            self.radio.timer(ctx, T_MGMT, t);
        }
        if up {
            self.associations += 1;
            if self.associations == 1 {
                if let Some(after) = self.rejoin_after {
                    self.radio.timer(ctx, T_REJOIN, now + after);
                }
            }
            self.connected(now, ctx);
        }
    }

    fn on_eapol(&mut self, now: Time, pdu: &[u8], ctx: &mut Ctx<'_>) {
        let Some(s) = self.supp.as_mut() else {
            return;
        };
        let _ = s.handle_rx(now_instant(now), pdu, &mut self.rng);
        let mut out = Vec::new();
        while let Some(p) = s.poll_transmit() {
            out.push(p.to_vec());
        }
        let mut done = false;
        while let Some(e) = s.poll_event() {
            if e == wisec_proto::fourway::Event::FourWayComplete {
                done = true;
            }
        }
        // Message 4 goes out before the keys are used (12.7.6.5).
        for pdu in out {
            let seq = self.radio.next_seq();
            let a = Addressing::ToAp {
                bssid: BSSID,
                sa: self.addr,
                da: BSSID,
            };
            let repr = DataFrameRepr::msdu(a.header(None, seq), EAPOL, &pdu);
            let mut buf = vec![0u8; repr.buffer_len().unwrap_or(0)];
            if repr.emit(&mut buf).is_ok() {
                self.radio.queue(ctx, now, buf);
            }
        }
        if done {
            let suite = self.sec.suite();
            let s = self.supp.as_ref();
            let ptk = s
                .and_then(|s| s.ptk())
                .and_then(|p| DataKey::new(suite?, p.tk()).ok());
            let gtk = s.and_then(|s| s.group_keys()).and_then(|g| {
                let k = DataKey::new(suite?, g.gtk.key()).ok()?;
                Some((k, g.gtk.key_id as u8))
            });
            if ptk.is_some() && gtk.is_some() {
                if self.pmf {
                    self.mgmt = s
                        .and_then(|s| s.ptk())
                        .zip(cipher_suite(self.sec))
                        .and_then(|(p, cs)| Pairwise::new(cs, p.tk()).ok())
                        .map(Box::new);
                }
                self.keys.pairwise = ptk;
                self.keys.group = gtk;
                self.keys.rx_pn = [None; 2];
                self.connected(now, ctx);
            }
        }
    }

    fn on_data(&mut self, now: Time, frame: &[u8], ctx: &mut Ctx<'_>) {
        let Ok(f) = DataFrame::new_checked(frame) else {
            return;
        };
        let fc = f.frame_control();
        let h = f.header();
        if fc.to_ds() || !fc.from_ds() || h.addr2() != Some(BSSID) {
            return;
        }
        let group = h.addr1().is_group();
        if !group && h.addr1() != self.addr {
            return;
        }
        // Our own broadcasts relayed back by the AP (the SA is ours).
        if h.addr3() == Some(self.addr) {
            return;
        }
        if let Some(pdu) = eapol_pdu(frame) {
            if self.dot1x.is_some() {
                self.dot1x_eapol_from_ap(now, pdu, ctx);
            } else {
                self.on_eapol(now, &pdu, ctx);
            }
            return;
        }
        if self.phase != StaPhase::Connected {
            return;
        }
        let sec = self.sec;
        let plain = if let Some(d) = self.disco.as_mut() {
            if group {
                Some(frame.to_vec())
            } else {
                match d.open_data(frame) {
                    Ok(v) => frame.get(..v.len()).map(<[u8]>::to_vec),
                    Err(_) => {
                        self.radio.stats.integrity_failures += 1;
                        None
                    }
                }
            }
        } else if sec == Security::Open {
            (!fc.protected()).then(|| frame.to_vec())
        } else {
            unprotect(&mut self.keys, frame, group, &mut self.radio.stats)
        };
        let Some(plain) = plain else {
            return;
        };
        let cost_sec = if group && sec.discosec_mode().is_some() {
            Security::Open
        } else {
            sec
        };
        let ready = self.radio.charge(now, cost_sec, Op::Unprotect, frame.len());
        if let Some((_, _, eth)) = eth_from_data(&plain) {
            self.radio.stats.data_rx += 1;
            let ready = self.host_work(ready, eth.len());
            self.rxq.push_back((ready, eth));
            self.radio.timer(ctx, T_RX, ready);
        }
    }

    /// Delivers ready frames to the stack (or the TAP), runs it and sends
    /// what it produced.
    fn run_stack(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        while let Some(&(t, _)) = self.rxq.front() {
            if t > now {
                self.radio.timer(ctx, T_RX, t);
                break;
            }
            if let Some((_, eth)) = self.rxq.pop_front() {
                match &self.tap {
                    Some(p) => p.borrow_mut().deliver(now, eth),
                    None => self.stack.dev.rx.push_back(eth),
                }
            }
        }
        if self.phase != StaPhase::Connected || self.tap.is_some() {
            return;
        }
        if let Some(c) = self.connected_at {
            if now >= self.traffic_at.unwrap_or(c + self.traffic_delay) {
                self.stack.start_traffic(now);
            }
        }
        let wake = self.stack.poll(now);
        let out: Vec<Vec<u8>> = self.stack.dev.tx.drain(..).collect();
        for eth in out {
            self.send_eth(now, &eth, ctx);
        }
        if let Some(w) = wake {
            self.radio.timer(ctx, T_STACK, w);
        }
    }

    fn send_eth(&mut self, now: Time, eth: &[u8], ctx: &mut Ctx<'_>) {
        let Some((da, _)) = eth_addrs(eth) else {
            return;
        };
        if self.radio.full() {
            return;
        }
        let tid = self.qos_tid;
        let seq = match tid {
            Some(tid) => self.radio.next_qos_seq(BSSID, tid),
            None => self.radio.next_seq(),
        };
        let a = Addressing::ToAp {
            bssid: BSSID,
            sa: self.addr,
            da,
        };
        let Some(plain) = data_from_eth(a, tid, seq, eth) else {
            self.radio.stats.tx_errors += 1;
            return;
        };
        let sec = self.sec;
        let out = if let Some(d) = self.disco.as_mut() {
            let mut buf = plain.clone();
            buf.resize(plain.len() + sec.overhead(), 0);
            d.seal_data(&mut buf, plain.len()).ok().map(|n| {
                buf.truncate(n);
                buf
            })
        } else if sec == Security::Open {
            Some(plain.clone())
        } else {
            let pn = if sec.is_rsn() {
                self.supp.as_mut().and_then(|s| s.next_pn())
            } else {
                self.keys.iv += 1;
                Some(self.keys.iv & 0xff_ffff)
            };
            match (self.keys.pairwise.as_ref(), pn) {
                (Some(k), Some(pn)) => protect(k, &plain, pn, 0),
                _ => None,
            }
        };
        let Some(f) = out else {
            self.radio.stats.tx_errors += 1;
            return;
        };
        let ready = self.radio.charge(now, sec, Op::Protect, plain.len());
        let ready = self.host_work(ready, plain.len());
        self.radio.stats.data_tx += 1;
        self.radio.queue(ctx, ready, f);
    }

    /// Runs the host's processing of an MSDU of `octets` on the processor
    /// once it is free after `at`; returns when it ends.
    fn host_work(&mut self, at: Time, octets: usize) -> Time {
        if self.host_ns_per_octet <= 0.0 {
            return at;
        }
        let cost = Time::from_ns((self.host_ns_per_octet * octets as f64).round() as u64);
        self.radio.cpu.run(at, cost)
    }
}

impl Node for StaNode {
    fn start(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        if let Some(mode) = self.sec.discosec_mode() {
            let _ = mode;
            if let Some(mut cfg) = discosec::StaConfig::new(self.addr, SSID.as_bytes()) {
                cfg.key_caching = self.key_caching;
                let rng = LabRng::new(self.rng.next());
                let mut s = discosec::Sta::new(cfg, rng);
                s.connect(now_instant(now), BSSID);
                self.disco = Some(Box::new(s));
                self.pump_disco(now, ctx);
            }
        }
    }

    fn on_frame(&mut self, now: Time, frame: &[u8], _info: &RxInfo, ctx: &mut Ctx<'_>) {
        let fc = match frame {
            [a, b, ..] => FrameControl::from_bytes([*a, *b]),
            _ => return,
        };
        if fc.is_mgmt() {
            if let Some(d) = self.disco.as_mut() {
                let _ = d.handle_rx(now_instant(now), frame);
                self.pump_disco(now, ctx);
            } else {
                self.on_mgmt(now, frame, ctx);
            }
        } else if fc.is_data() {
            self.on_data(now, frame, ctx);
        }
    }

    fn poll_transmit(
        &mut self,
        now: Time,
        _iface: IfaceId,
        ctx: &mut Ctx<'_>,
    ) -> Option<TxRequest> {
        let f = self.radio.pop_ready(now);
        self.radio.in_poll = f.is_some();
        // Room in the driver queue: let the stack send more.
        if f.is_some() && self.phase == StaPhase::Connected && self.stack.traffic_started() {
            self.run_stack(now, ctx);
        }
        self.radio.after_poll(ctx, f.is_some());
        self.update_accepting();
        f.map(TxRequest::new)
    }

    fn on_input(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        let Some(port) = self.tap.clone() else {
            return;
        };
        self.dot1x_keys(now, ctx);
        let frames = port.borrow_mut().take_due(now);
        for eth in frames {
            if self.phase != StaPhase::Connected && self.dot1x_uncontrolled(now, &eth, ctx) {
                continue;
            }
            if self.phase != StaPhase::Connected || eth.len() < 14 {
                port.borrow_mut().stats.dropped += 1;
                continue;
            }
            let before = self.radio.stats.queue_drops + self.radio.stats.tx_errors;
            self.send_eth(now, &eth, ctx);
            if self.radio.stats.queue_drops + self.radio.stats.tx_errors > before {
                port.borrow_mut().stats.dropped += 1;
            }
        }
        self.update_accepting();
    }

    fn on_timer(&mut self, now: Time, token: u64, ctx: &mut Ctx<'_>) {
        self.radio.fired(token, now);
        match token {
            T_TX => self.radio.kick(ctx),
            T_RX | T_STACK => self.run_stack(now, ctx),
            T_REJOIN => self.rejoin(now, ctx),
            T_MGMT => {
                if let Some(d) = self.disco.as_mut() {
                    d.handle_timeout(now_instant(now));
                    self.pump_disco(now, ctx);
                    return;
                }
                self.tries += 1;
                match self.phase {
                    StaPhase::Authenticating if self.tries < 8 => self.authenticate(now, ctx),
                    StaPhase::Associating if self.tries < 8 => self.associate(now, ctx),
                    StaPhase::Authenticating | StaPhase::Associating => {
                        self.phase = StaPhase::Scanning;
                        self.tries = 0;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

/// A wired host running a smoltcp stack on port 0.
#[derive(Debug)]
pub struct HostNode {
    /// The IP stack.
    pub stack: Stack,
    /// Start the traffic at this time.
    pub traffic_at: Option<Time>,
    timer_at: Option<Time>,
}

impl HostNode {
    /// A host `mac`/`ip` running `traffic` towards `peer`.
    pub fn new(mac: MacAddr, ip: [u8; 4], peer: [u8; 4], traffic: Traffic, seed: u64) -> HostNode {
        HostNode {
            stack: Stack::new(mac.0, ip, peer, traffic, seed, Time::ZERO),
            traffic_at: None,
            timer_at: None,
        }
    }

    fn run(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        if self.traffic_at.is_some_and(|t| now >= t) {
            self.stack.start_traffic(now);
        }
        let mut wake = self.stack.poll(now);
        for f in self.stack.dev.tx.drain(..) {
            ctx.send_wired(PortId(0), f);
        }
        if let Some(t) = self.traffic_at.filter(|t| *t > now) {
            wake = Some(wake.map_or(t, |w| w.min(t)));
        }
        if let Some(w) = wake {
            let w = w.max(now);
            if self.timer_at.is_none_or(|t| t < now || w < t) {
                self.timer_at = Some(w);
                ctx.set_timer(w, T_STACK);
            }
        }
    }
}

impl Node for HostNode {
    fn start(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        self.run(now, ctx);
    }
    fn on_frame(&mut self, _: Time, _: &[u8], _: &RxInfo, _: &mut Ctx<'_>) {}
    fn poll_transmit(&mut self, _: Time, _: IfaceId, _: &mut Ctx<'_>) -> Option<TxRequest> {
        None
    }
    fn on_timer(&mut self, now: Time, _token: u64, ctx: &mut Ctx<'_>) {
        if self.timer_at.is_some_and(|t| t <= now) {
            self.timer_at = None;
        }
        self.run(now, ctx);
    }
    fn on_wired(&mut self, now: Time, _port: PortId, packet: &[u8], ctx: &mut Ctx<'_>) {
        self.stack.dev.rx.push_back(packet.to_vec());
        self.run(now, ctx);
    }
}

/// An attacker's radio: puts the MPDUs of its schedule on the air at their
/// times (forged deauthentications, replays, floods) and counts what it
/// hears. Its schedule can be extended while the simulation runs
/// ([`crate::sim::Simulator::node_mut`], then [`crate::sim::Simulator::wake`]).
#[derive(Debug, Default)]
pub struct Injector {
    iface: Option<IfaceId>,
    /// Frames to send, by time (sorted by the node).
    pub schedule: VecDeque<(Time, Vec<u8>)>,
    /// Frames heard.
    pub heard: Vec<(Time, Vec<u8>)>,
    /// Keep at most this many heard frames.
    pub keep: usize,
    /// Frames sent.
    pub sent: u64,
}

impl Injector {
    /// An injector that sends `schedule` and keeps up to `keep` frames it
    /// hears.
    pub fn new(mut schedule: Vec<(Time, Vec<u8>)>, keep: usize) -> Injector {
        schedule.sort_by_key(|(t, _)| *t);
        Injector {
            iface: None,
            schedule: schedule.into(),
            heard: Vec::new(),
            keep,
            sent: 0,
        }
    }

    /// Sets the interface the simulator gave the injector.
    pub fn set_iface(&mut self, iface: IfaceId) {
        self.iface = Some(iface);
    }

    fn arm(&mut self, ctx: &mut Ctx<'_>) {
        if let Some(&(t, _)) = self.schedule.front() {
            if t <= ctx.now() {
                if let Some(i) = self.iface {
                    ctx.wake(i);
                }
            } else {
                ctx.set_timer(t, T_INJECT);
            }
        }
    }
}

impl Node for Injector {
    fn start(&mut self, _now: Time, ctx: &mut Ctx<'_>) {
        self.arm(ctx);
    }
    fn on_frame(&mut self, now: Time, frame: &[u8], _info: &RxInfo, _ctx: &mut Ctx<'_>) {
        if self.heard.len() < self.keep {
            self.heard.push((now, frame.to_vec()));
        }
    }
    fn poll_transmit(
        &mut self,
        now: Time,
        _iface: IfaceId,
        ctx: &mut Ctx<'_>,
    ) -> Option<TxRequest> {
        let f = match self.schedule.front() {
            Some(&(t, _)) if t <= now => self.schedule.pop_front().map(|(_, f)| f),
            _ => None,
        };
        if f.is_some() {
            self.sent += 1;
            // The MAC polls again when it is done with this one; waking
            // it from inside its poll would re-enter it.
            if let Some(&(t, _)) = self.schedule.front() {
                if t > now {
                    ctx.set_timer(t, T_INJECT);
                }
            }
        } else {
            self.arm(ctx);
        }
        f.map(TxRequest::new)
    }
    fn on_timer(&mut self, _now: Time, _token: u64, ctx: &mut Ctx<'_>) {
        self.arm(ctx);
    }
}
