//! The exchange-group breakdown of seed 000's Table 3 ("Actual Packet
//! Delays"), from the frames of any 802.11 capture, in one pass and in
//! bounded memory.
//!
//! Frames are grouped as they share one access to the medium: an optional
//! RTS/CTS, then the data (or management) frames one station sends back to
//! back (one A-MPDU, or one frame), closed by the Ack or BlockAck that
//! answers them. As in the seed, a group's delay is the time from the end
//! of the previous group (its last frame) to the last frame of this one:
//! the access delay before its first frame plus the gaps inside it.
//!
//! Each group is then given the component of what its frames carry, read
//! through LLC/SNAP, IPv4 and TCP when the frames are not protected, with
//! the state of each TCP connection (RFC 9293, 3.5 and 3.6): the handshake
//! is the SYN, the SYN/ACK and the one ACK that completes it; the close is
//! every FIN and the pure ACKs after the first FIN; in between, the HTTP
//! GET and its response, data groups of k segments and groups of k pure
//! TCP acks. Protected frames, whose content cannot be read, are a
//! component of their own, as are management frames and everything else
//! (EAPOL, other protocols, control frames alone).
//!
//! Nothing grows with the capture: the first [`GROUPS_LISTED`] groups are
//! kept for listing, the rows are sums, a group closes after
//! [`MAX_GROUP_FRAMES`] frames, and at most [`MAX_CONNECTIONS`] TCP
//! connections are followed (the oldest forgotten first).

use crate::frames::FrameInfo;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, VecDeque};
use wisec_wire::frame_control::ctrl_subtype;
use wisec_wire::{DataFrame, EtherType, MacAddr};

/// One captured frame: its MPDU (without FCS) and when it was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AirRecord {
    /// Packet number in the capture (1-based, as Wireshark counts).
    pub number: u64,
    /// Time in nanoseconds (any origin).
    pub time_ns: u64,
    /// The MPDU.
    pub mpdu: Vec<u8>,
}

/// What a frame is, in the seed's abbreviations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Label {
    /// RTS.
    Rts,
    /// CTS.
    Cts,
    /// 802.11 Ack ("A").
    Ack,
    /// BlockAck ("BA").
    BlockAck,
    /// BlockAckReq.
    BlockAckReq,
    /// TCP SYN.
    Syn,
    /// TCP SYN/ACK.
    SynAck,
    /// HTTP GET.
    Get,
    /// HTTP response ("OK").
    Ok,
    /// TCP segment with a FIN.
    Fin,
    /// TCP segment carrying data.
    Data,
    /// TCP ack without data ("TA").
    TcpAck,
    /// A protected data frame (its content unknown).
    Protected,
    /// A management frame.
    Mgmt,
    /// Any other data or control frame.
    Other,
}

impl Label {
    /// The seed's abbreviation.
    pub fn short(self) -> &'static str {
        match self {
            Label::Rts => "RTS",
            Label::Cts => "CTS",
            Label::Ack => "A",
            Label::BlockAck => "BA",
            Label::BlockAckReq => "BAR",
            Label::Syn => "SYN",
            Label::SynAck => "SYN/ACK",
            Label::Get => "Get",
            Label::Ok => "OK",
            Label::Fin => "FIN",
            Label::Data => "data",
            Label::TcpAck => "TA",
            Label::Protected => "protected",
            Label::Mgmt => "mgmt",
            Label::Other => "other",
        }
    }

    fn is_payload(self) -> bool {
        !matches!(self, Label::Rts | Label::Cts | Label::Ack | Label::BlockAck)
    }
}

/// The component of the exchange a group belongs to (Table 3's rows, and
/// the groups outside a TCP exchange).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Component {
    /// Frames outside a TCP exchange that are neither management nor
    /// protected: EAPOL, other protocols, control frames alone.
    Other,
    /// TCP handshake: SYN, SYN/ACK and the ACK that completes it.
    Handshake,
    /// HTTP GET and 200 OK.
    GetOk,
    /// Groups of data segments.
    Data,
    /// Groups of TCP acks.
    TcpAcks,
    /// TCP close: the FINs and the acks after the first FIN.
    Close,
    /// Protected data frames (content unknown).
    Protected,
    /// Management frames.
    Management,
}

impl Component {
    /// The row name of Table 3.
    pub fn name(self) -> &'static str {
        match self {
            Component::Other => "Other",
            Component::Handshake => "TCP handshake",
            Component::GetOk => "HTTP Get and 200 OK",
            Component::Data => "Data packets",
            Component::TcpAcks => "TCP acks",
            Component::Close => "TCP close",
            Component::Protected => "Protected frames",
            Component::Management => "Management",
        }
    }

    /// The components in the table's order.
    pub const ALL: [Component; 8] = [
        Component::Handshake,
        Component::GetOk,
        Component::Data,
        Component::TcpAcks,
        Component::Close,
        Component::Protected,
        Component::Management,
        Component::Other,
    ];

    /// Rows of this component are per k (mean delay per group), not one
    /// sum.
    fn per_k(self) -> bool {
        matches!(
            self,
            Component::Data | Component::TcpAcks | Component::Protected
        )
    }
}

/// One exchange group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// Packet number of its first frame.
    pub first: u64,
    /// Packet number of its last frame.
    pub last: u64,
    /// Its frames, in the seed's abbreviations.
    pub labels: Vec<Label>,
    /// Data or management frames in it (k).
    pub k: usize,
    /// Its component.
    pub component: Component,
    /// From the previous group's last frame to its first frame, µs (0 for
    /// the first group of the capture).
    pub access_delay_us: f64,
    /// From the previous group's last frame to its own last frame, µs.
    pub delay_us: f64,
    /// Frames in it with the Retry bit.
    pub retries: usize,
    /// It began with an RTS/CTS exchange.
    pub rts_cts: bool,
    /// It ended with a BlockAck.
    pub block_ack: bool,
}

impl Group {
    /// The frames as the seed writes them ("RTS/CTS, 2 TA, BA").
    pub fn packets(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        let mut i = 0;
        while i < self.labels.len() {
            let l = self.labels[i];
            if l == Label::Rts && self.labels.get(i + 1) == Some(&Label::Cts) {
                out.push("RTS/CTS".into());
                i += 2;
                continue;
            }
            let mut n = 1;
            while self.labels.get(i + n) == Some(&l) {
                n += 1;
            }
            if n > 1 {
                out.push(format!("{n} {}", l.short()));
            } else {
                out.push(l.short().into());
            }
            i += n;
        }
        out.join(", ")
    }
}

/// One row of the breakdown: a component, or a k of the data, TCP ack and
/// protected groups.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The component.
    pub component: Component,
    /// k, for data, TCP ack and protected groups.
    pub k: Option<usize>,
    /// The frames: of the first group of the row for k rows; of the first
    /// [`ROW_GROUPS_SHOWN`] groups of the component for the others, then
    /// "…" when it has more.
    pub packets: String,
    /// Groups in the row.
    pub groups: u64,
    /// Delay: the sum over the component, or the mean per group for k
    /// rows, µs.
    pub delay_us: f64,
}

/// The whole analysis.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// Frames read.
    pub frames: u64,
    /// Frames that could not be read, with their packet number and why:
    /// the first [`MALFORMED_LISTED`] of each reason (a capture of millions
    /// of damaged records is summarised, not listed).
    pub malformed: Vec<(u64, String)>,
    /// How many frames could not be read, for each reason.
    #[serde(default)]
    pub malformed_counts: BTreeMap<String, u64>,
    /// Exchange groups in the capture.
    #[serde(default)]
    pub groups_total: u64,
    /// The first [`GROUPS_LISTED`] exchange groups, in capture order (the
    /// rows and counts cover all of them).
    pub groups: Vec<Group>,
    /// Frames with the Retry bit (802.11 retransmissions).
    pub retransmissions: u64,
    /// RTS frames.
    pub rts: u64,
    /// CTS frames.
    pub cts: u64,
    /// Acks.
    pub acks: u64,
    /// BlockAcks.
    pub block_acks: u64,
    /// Groups closed by a BlockAck.
    #[serde(default)]
    pub block_ack_groups: u64,
    /// TCP connections forgotten because more than [`MAX_CONNECTIONS`]
    /// were open at once (their later segments are read without their
    /// earlier state).
    #[serde(default)]
    pub connections_forgotten: u64,
    /// Table 3: the rows in the seed's order, then the groups outside a
    /// TCP exchange. Every group is counted in exactly one row.
    pub rows: Vec<Row>,
}

/// How many unreadable frames of one reason [`Analysis::malformed`] lists.
pub const MALFORMED_LISTED: u64 = 10;
/// How many groups [`Analysis::groups`] lists.
pub const GROUPS_LISTED: usize = 10_000;
/// A group closes after this many frames even without an Ack (a capture
/// without acknowledgements, say): the largest A-MPDU of IEEE Std
/// 802.11be (1024 MPDUs, 35.3.6).
pub const MAX_GROUP_FRAMES: usize = 1024;
/// TCP connections followed at once.
pub const MAX_CONNECTIONS: usize = 4096;
/// Groups whose frames a summed row shows.
pub const ROW_GROUPS_SHOWN: u64 = 32;

/// A TCP connection, the same key both ways: (address, port) of each end,
/// the lower first.
type ConnKey = ([u8; 6], [u8; 6]);

/// What a TCP segment is to its connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Handshake,
    Transfer,
    Close,
}

#[derive(Debug, Default)]
struct Conn {
    /// The SYN/ACK was sent by the lower end (key.0).
    synack_from_low: Option<bool>,
    /// The ACK completing the handshake: (seq, ack).
    handshake_ack: Option<(u32, u32)>,
    /// Data flowed, or the handshake completed.
    established: bool,
    /// A FIN was seen.
    fin: bool,
}

/// The TCP connections seen, the oldest forgotten first.
#[derive(Debug, Default)]
struct Conns {
    map: HashMap<ConnKey, Conn>,
    order: VecDeque<ConnKey>,
    forgotten: u64,
}

impl Conns {
    fn get(&mut self, key: ConnKey) -> &mut Conn {
        if !self.map.contains_key(&key) {
            if self.map.len() >= MAX_CONNECTIONS {
                if let Some(old) = self.order.pop_front() {
                    self.map.remove(&old);
                    self.forgotten += 1;
                }
            }
            self.order.push_back(key);
        }
        self.map.entry(key).or_default()
    }
}

/// A TCP segment read from an unprotected data frame.
struct Segment {
    key: ConnKey,
    from_low: bool,
    seq: u32,
    ack: u32,
}

/// Reads IPv4/TCP from an unprotected data frame: its label, and the
/// segment for TCP.
fn tcp_label(mpdu: &[u8]) -> Option<(Label, Option<Segment>)> {
    let d = DataFrame::new_checked(mpdu).ok()?;
    if d.is_protected() {
        return Some((Label::Protected, None));
    }
    if d.is_null() {
        return None;
    }
    if d.ethertype()? != EtherType::IPV4 {
        return Some((Label::Other, None));
    }
    let ip = d.msdu_payload();
    let ihl = usize::from(ip.first()? & 0x0f) * 4;
    if *ip.get(9)? != 6 {
        return Some((Label::Other, None));
    }
    let total = usize::from(u16::from_be_bytes([*ip.get(2)?, *ip.get(3)?]));
    let tcp = ip.get(ihl..total.min(ip.len()))?;
    let off = usize::from(tcp.get(12)? >> 4) * 4;
    let flags = *tcp.get(13)?;
    let payload = tcp.get(off..).unwrap_or(&[]);
    let (syn, ack, fin) = (flags & 0x02 != 0, flags & 0x10 != 0, flags & 0x01 != 0);
    let label = if syn && ack {
        Label::SynAck
    } else if syn {
        Label::Syn
    } else if fin {
        Label::Fin
    } else if payload.starts_with(b"GET ") {
        Label::Get
    } else if payload.starts_with(b"HTTP/") {
        Label::Ok
    } else if payload.is_empty() {
        Label::TcpAck
    } else {
        Label::Data
    };
    let end = |a: usize, p: usize| -> Option<[u8; 6]> {
        let mut e = [0u8; 6];
        e[..4].copy_from_slice(ip.get(a..a + 4)?);
        e[4..].copy_from_slice(tcp.get(p..p + 2)?);
        Some(e)
    };
    let (src, dst) = (end(12, 0)?, end(16, 2)?);
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(tcp.get(at..at + 4)?.try_into().ok()?))
    };
    let seg = Segment {
        key: if src <= dst { (src, dst) } else { (dst, src) },
        from_low: src <= dst,
        seq: word(4)?,
        ack: word(8)?,
    };
    Some((label, Some(seg)))
}

/// The role of a segment labelled `label` in its connection, which it
/// advances (RFC 9293, 3.5: the handshake; 3.6: closing).
fn role(conns: &mut Conns, label: Label, s: &Segment) -> Role {
    let c = conns.get(s.key);
    match label {
        Label::Syn => {
            *c = Conn::default();
            Role::Handshake
        }
        Label::SynAck => {
            *c = Conn {
                synack_from_low: Some(s.from_low),
                ..Conn::default()
            };
            Role::Handshake
        }
        Label::Fin => {
            c.fin = true;
            Role::Close
        }
        Label::TcpAck => {
            if c.handshake_ack == Some((s.seq, s.ack)) {
                // The completing ACK again (a retransmission).
                Role::Handshake
            } else if !c.established && c.synack_from_low == Some(!s.from_low) {
                c.handshake_ack = Some((s.seq, s.ack));
                c.established = true;
                Role::Handshake
            } else if c.fin {
                Role::Close
            } else {
                c.established = true;
                Role::Transfer
            }
        }
        _ => {
            c.established = true;
            Role::Transfer
        }
    }
}

fn classify(mpdu: &[u8], info: &FrameInfo, conns: &mut Conns) -> (Label, Option<Role>) {
    if info.fc.is_ctrl() {
        let l = match info.fc.subtype() {
            ctrl_subtype::RTS => Label::Rts,
            ctrl_subtype::CTS => Label::Cts,
            ctrl_subtype::ACK => Label::Ack,
            ctrl_subtype::BLOCK_ACK => Label::BlockAck,
            ctrl_subtype::BLOCK_ACK_REQ => Label::BlockAckReq,
            _ => Label::Other,
        };
        return (l, None);
    }
    if info.fc.is_mgmt() {
        return (Label::Mgmt, None);
    }
    match tcp_label(mpdu) {
        Some((l, Some(seg))) => (l, Some(role(conns, l, &seg))),
        Some((l, None)) => (l, None),
        None if info.fc.protected() => (Label::Protected, None),
        None => (Label::Other, None),
    }
}

/// The group being built.
struct Open {
    group: Group,
    sender: Option<MacAddr>,
    start_ns: u64,
    last_ns: u64,
    handshake: bool,
    close: bool,
}

/// A row being summed.
#[derive(Debug, Default)]
struct RowSum {
    groups: u64,
    delay_us: f64,
    packets: String,
}

impl Analysis {
    /// Notes the unreadable frame `number`: counted under `why`, and listed
    /// while fewer than [`MALFORMED_LISTED`] of that reason were.
    pub fn note_malformed(&mut self, number: u64, why: String) {
        let n = self.malformed_counts.entry(why.clone()).or_insert(0);
        *n += 1;
        if *n <= MALFORMED_LISTED {
            self.malformed.push((number, why));
        }
    }

    /// How many frames could not be read.
    pub fn malformed_total(&self) -> u64 {
        self.malformed_counts.values().sum()
    }

    /// Adds the unreadable frames `other` noted (listed in packet order).
    pub fn merge_malformed(&mut self, other: Analysis) {
        for (number, why) in other.malformed {
            let listed = self.malformed.iter().filter(|m| m.1 == why).count() as u64;
            if listed < MALFORMED_LISTED {
                self.malformed.push((number, why));
            }
        }
        for (why, n) in other.malformed_counts {
            *self.malformed_counts.entry(why).or_insert(0) += n;
        }
        self.malformed.sort_by_key(|m| m.0);
    }
}

/// The analysis of frames fed one at a time ([`Analyzer::push`]), in
/// memory that does not grow with their number.
#[derive(Default)]
pub struct Analyzer {
    a: Analysis,
    open: Option<Open>,
    prev_end: Option<u64>,
    conns: Conns,
    sums: BTreeMap<(Component, Option<usize>), RowSum>,
}

impl Analyzer {
    /// An analysis of no frames yet.
    pub fn new() -> Analyzer {
        Analyzer::default()
    }

    /// Notes a packet of the capture that is not a frame (counted in
    /// [`Analysis::frames`], listed as malformed).
    pub fn note_malformed(&mut self, number: u64, why: String) {
        self.a.frames += 1;
        self.a.note_malformed(number, why);
    }

    /// Adds the frame `mpdu`, packet `number` of the capture, seen at
    /// `time_ns`.
    pub fn push(&mut self, number: u64, time_ns: u64, mpdu: &[u8]) {
        self.a.frames += 1;
        let Some(info) = FrameInfo::parse(mpdu) else {
            self.a.note_malformed(
                number,
                "too short, or not a frame an 802.11 header delimits".into(),
            );
            return;
        };
        let (label, role) = classify(mpdu, &info, &mut self.conns);
        let retry = info.fc.retry();
        let a = &mut self.a;
        if retry {
            a.retransmissions += 1;
        }
        match label {
            Label::Rts => a.rts += 1,
            Label::Cts => a.cts += 1,
            Label::Ack => a.acks += 1,
            Label::BlockAck => a.block_acks += 1,
            _ => {}
        }
        // Does the frame continue the open group?
        let continues = match (&self.open, label) {
            (None, _) => false,
            (Some(o), _) if o.group.labels.len() >= MAX_GROUP_FRAMES => false,
            (Some(_), Label::Rts) => false,
            (Some(o), Label::Cts) => o.group.labels.last() == Some(&Label::Rts),
            (Some(o), Label::Ack | Label::BlockAck) => {
                o.group.labels.last().is_some_and(|l| l.is_payload())
            }
            (Some(o), _) => match o.group.labels.last() {
                Some(Label::Cts) => true,
                Some(l) if l.is_payload() => o.sender == info.ta,
                _ => false,
            },
        };
        if !continues {
            if let Some(o) = self.open.take() {
                self.close(o);
            }
            self.open = Some(Open {
                group: Group {
                    first: number,
                    last: number,
                    labels: Vec::new(),
                    k: 0,
                    component: Component::Other,
                    access_delay_us: 0.0,
                    delay_us: 0.0,
                    retries: 0,
                    rts_cts: label == Label::Rts,
                    block_ack: false,
                },
                sender: None,
                start_ns: time_ns,
                last_ns: time_ns,
                handshake: false,
                close: false,
            });
        }
        let Some(o) = self.open.as_mut() else {
            return;
        };
        o.group.labels.push(label);
        o.group.last = number;
        o.last_ns = time_ns;
        o.handshake |= role == Some(Role::Handshake);
        o.close |= role == Some(Role::Close);
        if retry {
            o.group.retries += 1;
        }
        if label.is_payload() {
            o.group.k += 1;
            o.sender = info.ta;
        }
        if matches!(label, Label::Ack | Label::BlockAck) {
            o.group.block_ack = label == Label::BlockAck;
            if let Some(o) = self.open.take() {
                self.close(o);
            }
        }
    }

    /// Gives a closed group its delays and component, and counts it.
    fn close(&mut self, o: Open) {
        let mut g = o.group;
        if let Some(p) = self.prev_end {
            g.access_delay_us = o.start_ns.saturating_sub(p) as f64 / 1000.0;
            g.delay_us = o.last_ns.saturating_sub(p) as f64 / 1000.0;
        } else {
            g.delay_us = o.last_ns.saturating_sub(o.start_ns) as f64 / 1000.0;
        }
        self.prev_end = Some(o.last_ns);
        let has = |l: Label| g.labels.contains(&l);
        g.component = if has(Label::Mgmt) {
            Component::Management
        } else if o.handshake {
            Component::Handshake
        } else if o.close {
            Component::Close
        } else if has(Label::Get) || has(Label::Ok) {
            Component::GetOk
        } else if has(Label::Data) {
            Component::Data
        } else if has(Label::TcpAck) {
            Component::TcpAcks
        } else if has(Label::Protected) {
            Component::Protected
        } else {
            Component::Other
        };
        let c = g.component;
        let k = c.per_k().then_some(g.k);
        let sum = self.sums.entry((c, k)).or_default();
        if k.is_some() {
            if sum.groups == 0 {
                sum.packets = g.packets();
            }
        } else if sum.groups < ROW_GROUPS_SHOWN {
            if sum.groups > 0 {
                sum.packets.push_str(", ");
            }
            sum.packets.push_str(&g.packets());
        } else if sum.groups == ROW_GROUPS_SHOWN {
            sum.packets.push_str(", …");
        }
        sum.groups += 1;
        sum.delay_us += g.delay_us;
        self.a.groups_total += 1;
        if g.block_ack {
            self.a.block_ack_groups += 1;
        }
        if self.a.groups.len() < GROUPS_LISTED {
            self.a.groups.push(g);
        }
    }

    /// The analysis of every frame pushed.
    pub fn finish(mut self) -> Analysis {
        if let Some(o) = self.open.take() {
            self.close(o);
        }
        let mut a = self.a;
        a.connections_forgotten = self.conns.forgotten;
        for c in Component::ALL {
            // Data and ack groups: the largest k first, as the seed.
            for ((_, k), s) in self.sums.range((c, None)..=(c, Some(usize::MAX))).rev() {
                a.rows.push(Row {
                    component: c,
                    k: *k,
                    packets: s.packets.clone(),
                    groups: s.groups,
                    delay_us: match k {
                        Some(_) => s.delay_us / s.groups as f64,
                        None => s.delay_us,
                    },
                });
            }
        }
        a
    }
}

/// Groups `frames` and computes the breakdown. Frames that cannot be read
/// are listed in [`Analysis::malformed`] and skipped.
pub fn analyze(frames: impl IntoIterator<Item = AirRecord>) -> Analysis {
    let mut z = Analyzer::new();
    for r in frames {
        z.push(r.number, r.time_ns, &r.mpdu);
    }
    z.finish()
}

impl Analysis {
    /// The breakdown as an aligned table (Table 3's columns, the long
    /// packets column last), then the totals.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let names: Vec<String> = self
            .rows
            .iter()
            .map(|r| match r.k {
                Some(k) => format!("{} (k={k}, {} groups, mean)", r.component.name(), r.groups),
                None => format!("{} ({} groups)", r.component.name(), r.groups),
            })
            .collect();
        let w = names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(0)
            .max("Component".len());
        s.push_str(&format!(
            "{:<w$}  {:>10}  Packets\n",
            "Component", "Delay (µs)"
        ));
        for (name, r) in names.iter().zip(&self.rows) {
            s.push_str(&format!(
                "{name:<w$}  {:>10.0}  {}\n",
                r.delay_us, r.packets
            ));
        }
        s.push_str(&format!(
            "\n{} frames, {} exchange groups, {} retransmissions, {} RTS, {} CTS, {} Acks, {} BlockAcks, {} BlockAck groups, {} malformed\n",
            self.frames,
            self.groups_total,
            self.retransmissions,
            self.rts,
            self.cts,
            self.acks,
            self.block_acks,
            self.block_ack_groups,
            self.malformed_total()
        ));
        if self.groups_total > self.groups.len() as u64 {
            s.push_str(&format!(
                "(the first {} groups listed in --json; the rows count all {})\n",
                self.groups.len(),
                self.groups_total
            ));
        }
        if self.connections_forgotten > 0 {
            s.push_str(&format!(
                "({} TCP connections forgotten: more than {MAX_CONNECTIONS} at once)\n",
                self.connections_forgotten
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames;

    const C: MacAddr = MacAddr([2, 0, 0, 0, 0, 1]);
    const AP: MacAddr = MacAddr([2, 0, 0, 0, 0, 2]);

    /// A QoS Data frame to the AP carrying IPv4/TCP with `flags` and
    /// `payload` (checksums are not read by the analysis).
    fn tcp(from: MacAddr, to: MacAddr, flags: u8, payload: &[u8]) -> Vec<u8> {
        tcp_port(from, to, 0x1f90, flags, payload)
    }

    /// As [`tcp`], from source port `sport`.
    fn tcp_port(from: MacAddr, to: MacAddr, sport: u16, flags: u8, payload: &[u8]) -> Vec<u8> {
        let mut ip = vec![0x45, 0];
        ip.extend(((40 + payload.len()) as u16).to_be_bytes());
        ip.extend([0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
        ip.extend(sport.to_be_bytes());
        ip.extend([
            0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 1, 0x50, flags, 0xff, 0xff, 0, 0, 0, 0,
        ]);
        ip.extend_from_slice(payload);
        let addressing = if to == AP {
            wisec_wire::Addressing::ToAp {
                bssid: AP,
                sa: from,
                da: AP,
            }
        } else {
            wisec_wire::Addressing::FromAp {
                bssid: AP,
                sa: AP,
                da: to,
            }
        };
        let repr =
            wisec_wire::DataFrameRepr::msdu(addressing.header(Some(0), 0), EtherType::IPV4, &ip);
        let mut b = vec![0u8; repr.buffer_len().unwrap()];
        repr.emit(&mut b).unwrap();
        b
    }

    #[test]
    fn groups_delays_and_phases() {
        let mut t = 0u64;
        let mut n = 0u64;
        let mut recs = Vec::new();
        let mut push = |dt_us: u64, f: Vec<u8>| {
            t += dt_us * 1000;
            n += 1;
            recs.push(AirRecord {
                number: n,
                time_ns: t,
                mpdu: f,
            });
        };
        let ba = |ra| frames::block_ack(ra, ra, 0, 0, 1);
        // Handshake: RTS/CTS, SYN, BA (client), SYN/ACK, A (AP).
        push(0, frames::rts(AP, C, 100));
        push(2, frames::cts(C, 80));
        push(1, tcp(C, AP, 0x02, b""));
        push(1, ba(C));
        push(50, tcp(AP, C, 0x12, b""));
        push(1, frames::ack(AP, 0));
        // GET, BA; OK, A.
        push(100, frames::rts(AP, C, 100));
        push(2, frames::cts(C, 80));
        push(1, tcp(C, AP, 0x18, b"GET / HTTP/1.1\r\n"));
        push(1, ba(C));
        push(70, tcp(AP, C, 0x18, b"HTTP/1.1 200 OK\r\n"));
        push(1, frames::ack(AP, 0));
        // A data group of 3 segments (an A-MPDU: same time) and its BA.
        push(200, tcp(AP, C, 0x10, &[0u8; 1000]));
        push(0, tcp(AP, C, 0x10, &[0u8; 1000]));
        let mut r = tcp(AP, C, 0x10, &[0u8; 1000]);
        frames::set_retry(&mut r);
        push(0, r);
        push(300, ba(AP));
        // A group of 2 TCP acks with RTS/CTS: 124 + 2 + 1 + 2 + 1 µs as the
        // seed's example (130 µs).
        push(124, frames::rts(AP, C, 100));
        push(2, frames::cts(C, 80));
        push(1, tcp(C, AP, 0x10, b""));
        push(2, tcp(C, AP, 0x10, b""));
        push(1, ba(C));
        // A malformed frame, then the close.
        push(5, vec![0x08, 0x01, 0]);
        push(40, tcp(AP, C, 0x11, b""));
        push(1, frames::ack(AP, 0));
        let a = analyze(recs);
        assert_eq!(a.frames, 24);
        assert_eq!(a.malformed.len(), 1);
        assert_eq!(a.malformed[0].0, 22);
        let comps: Vec<Component> = a.groups.iter().map(|g| g.component).collect();
        assert_eq!(
            comps,
            [
                Component::Handshake,
                Component::Handshake,
                Component::GetOk,
                Component::GetOk,
                Component::Data,
                Component::TcpAcks,
                Component::Close
            ]
        );
        assert_eq!(a.groups[0].packets(), "RTS/CTS, SYN, BA");
        assert_eq!(a.groups[5].packets(), "RTS/CTS, 2 TA, BA");
        assert_eq!(a.groups[5].delay_us, 130.0);
        assert_eq!(a.groups[5].access_delay_us, 124.0);
        assert_eq!(a.groups[4].k, 3);
        assert_eq!(a.groups[4].retries, 1);
        assert_eq!(a.groups[4].delay_us, 500.0);
        assert!(a.groups[4].block_ack && !a.groups[1].block_ack);
        assert_eq!(a.retransmissions, 1);
        assert_eq!((a.rts, a.cts, a.acks, a.block_acks), (3, 3, 3, 4));
        // Handshake: 4 (first group's span) + 51.
        assert_eq!(a.rows[0].component, Component::Handshake);
        assert_eq!(a.rows[0].packets, "RTS/CTS, SYN, BA, SYN/ACK, A");
        assert_eq!(a.rows[0].delay_us, 55.0);
        assert_eq!(a.rows[1].packets, "RTS/CTS, Get, BA, OK, A");
        assert_eq!(a.rows[1].delay_us, 104.0 + 71.0);
        assert_eq!(a.rows[2].k, Some(3));
        assert_eq!(a.rows[3].k, Some(2));
        // The close's delay runs from the TCP ack group, across the
        // malformed frame.
        assert_eq!(a.rows[4].delay_us, 46.0);
        let text = a.to_text();
        let line = text
            .lines()
            .find(|l| l.starts_with("TCP acks (k=2, 1 groups, mean) "))
            .unwrap();
        assert!(line.ends_with(" 130  RTS/CTS, 2 TA, BA"), "{text}");
    }

    #[test]
    fn state_stays_bounded() {
        // More connections than are followed (the oldest are forgotten),
        // more groups than are listed (the row counts them all).
        let n = GROUPS_LISTED as u64 + 100;
        let mut z = Analyzer::new();
        for i in 0..n {
            z.push(2 * i + 1, i * 1000, &tcp_port(C, AP, i as u16, 0x02, b""));
            z.push(2 * i + 2, i * 1000 + 10, &frames::ack(C, 0));
        }
        assert_eq!(z.conns.map.len(), MAX_CONNECTIONS);
        let a = z.finish();
        assert_eq!(a.connections_forgotten, n - MAX_CONNECTIONS as u64);
        assert_eq!(a.groups_total, n);
        assert_eq!(a.groups.len(), GROUPS_LISTED);
        assert_eq!(a.rows.len(), 1);
        assert_eq!(a.rows[0].groups, n);
        assert!(a.rows[0].packets.ends_with(", …"));
        // A sender that is never acknowledged: groups close at the cap.
        let recs = (0..3000u64).map(|i| AirRecord {
            number: i + 1,
            time_ns: i,
            mpdu: tcp(AP, C, 0x10, &[0u8; 100]),
        });
        let a = analyze(recs);
        assert_eq!(a.groups_total, 3);
        assert_eq!(a.groups[0].k, MAX_GROUP_FRAMES);
        assert_eq!(a.groups[2].k, 3000 - 2 * MAX_GROUP_FRAMES);
    }
}
