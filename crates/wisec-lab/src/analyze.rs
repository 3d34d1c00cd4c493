//! The exchange-group breakdown of seed 000's Table 3 ("Actual Packet
//! Delays"), from the frames of any 802.11 capture.
//!
//! Frames are grouped as they share one access to the medium: an optional
//! RTS/CTS, then the data (or management) frames one station sends back to
//! back (one A-MPDU, or one frame), closed by the Ack or BlockAck that
//! answers them. As in the seed, a group's delay is the time from the end
//! of the previous group (its last frame) to the last frame of this one:
//! the access delay before its first frame plus the gaps inside it.
//!
//! Each group is then placed in the TCP connection's phases by what its
//! data frames carry (read through LLC/SNAP, IPv4 and TCP when the frames
//! are not protected): the handshake (SYN, SYN/ACK and the ACK after
//! them), the HTTP GET and the 200 OK, data groups of k segments, groups of
//! k TCP acks, and the close from the first FIN. Protected frames are
//! labelled by size (data above 400 octets, TCP ack below).

use crate::frames::FrameInfo;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
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
            Label::Mgmt => "mgmt",
            Label::Other => "other",
        }
    }

    fn is_payload(self) -> bool {
        !matches!(self, Label::Rts | Label::Cts | Label::Ack | Label::BlockAck)
    }
}

/// The phase of the exchange a group belongs to (Table 3's components).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Component {
    /// Management and other frames outside a TCP exchange.
    Other,
    /// TCP handshake.
    Handshake,
    /// HTTP GET and 200 OK.
    GetOk,
    /// Groups of data segments.
    Data,
    /// Groups of TCP acks.
    TcpAcks,
    /// TCP close.
    Close,
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
        }
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
    /// Its phase.
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

/// One row of the breakdown: a component, or a k of the data and TCP ack
/// groups.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The component.
    pub component: Component,
    /// k, for data and TCP ack groups.
    pub k: Option<usize>,
    /// The frames (of the first group of the row for k rows; all groups
    /// of the phase for the others).
    pub packets: String,
    /// Groups in the row.
    pub groups: usize,
    /// Delay: the sum over the phase, or the mean per group for k rows, µs.
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
    pub malformed_counts: std::collections::BTreeMap<String, u64>,
    /// The exchange groups in capture order.
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
    /// Table 3: the rows in the seed's order.
    pub rows: Vec<Row>,
}

/// Reads IPv4/TCP from an unprotected data frame.
fn tcp_label(mpdu: &[u8]) -> Option<Label> {
    let d = DataFrame::new_checked(mpdu).ok()?;
    if d.is_protected() || d.is_null() {
        return None;
    }
    if d.ethertype()? != EtherType::IPV4 {
        return Some(Label::Other);
    }
    let ip = d.msdu_payload();
    let ihl = usize::from(ip.first()? & 0x0f) * 4;
    if *ip.get(9)? != 6 {
        return Some(Label::Other);
    }
    let total = usize::from(u16::from_be_bytes([*ip.get(2)?, *ip.get(3)?]));
    let tcp = ip.get(ihl..total.min(ip.len()))?;
    let off = usize::from(tcp.get(12)? >> 4) * 4;
    let flags = *tcp.get(13)?;
    let payload = tcp.get(off..).unwrap_or(&[]);
    let (syn, ack, fin) = (flags & 0x02 != 0, flags & 0x10 != 0, flags & 0x01 != 0);
    Some(if syn && ack {
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
    })
}

fn classify(mpdu: &[u8], info: &FrameInfo) -> Label {
    if info.fc.is_ctrl() {
        return match info.fc.subtype() {
            ctrl_subtype::RTS => Label::Rts,
            ctrl_subtype::CTS => Label::Cts,
            ctrl_subtype::ACK => Label::Ack,
            ctrl_subtype::BLOCK_ACK => Label::BlockAck,
            ctrl_subtype::BLOCK_ACK_REQ => Label::BlockAckReq,
            _ => Label::Other,
        };
    }
    if info.fc.is_mgmt() {
        return Label::Mgmt;
    }
    match tcp_label(mpdu) {
        Some(l) => l,
        None if info.fc.protected() => {
            if mpdu.len() > 400 {
                Label::Data
            } else {
                Label::TcpAck
            }
        }
        None => Label::Other,
    }
}

struct Open {
    group: Group,
    sender: Option<MacAddr>,
    start_ns: u64,
    last_ns: u64,
}

/// How many unreadable frames of one reason [`Analysis::malformed`] lists.
pub const MALFORMED_LISTED: u64 = 10;

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

/// Groups `frames` and computes the breakdown. Frames that cannot be read
/// are listed in [`Analysis::malformed`] and skipped.
pub fn analyze(frames: impl IntoIterator<Item = AirRecord>) -> Analysis {
    let mut a = Analysis::default();
    let mut open: Option<Open> = None;
    let mut prev_end: Option<u64> = None;
    let mut closed: Vec<(Group, u64, u64)> = Vec::new();
    let close = |o: Open, closed: &mut Vec<(Group, u64, u64)>| {
        closed.push((o.group, o.start_ns, o.last_ns));
    };
    for r in frames {
        a.frames += 1;
        let Some(info) = FrameInfo::parse(&r.mpdu) else {
            a.note_malformed(
                r.number,
                format!(
                    "{} octets: too short or not a frame an 802.11 header delimits",
                    r.mpdu.len()
                ),
            );
            continue;
        };
        let label = classify(&r.mpdu, &info);
        let retry = info.fc.retry();
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
        let continues = match (&open, label) {
            (None, _) => false,
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
            if let Some(o) = open.take() {
                close(o, &mut closed);
            }
            open = Some(Open {
                group: Group {
                    first: r.number,
                    last: r.number,
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
                start_ns: r.time_ns,
                last_ns: r.time_ns,
            });
        }
        if let Some(o) = open.as_mut() {
            o.group.labels.push(label);
            o.group.last = r.number;
            o.last_ns = r.time_ns;
            if retry {
                o.group.retries += 1;
            }
            if label.is_payload() {
                o.group.k += 1;
                o.sender = info.ta;
            }
            if matches!(label, Label::Ack | Label::BlockAck) {
                o.group.block_ack = label == Label::BlockAck;
                if let Some(o) = open.take() {
                    close(o, &mut closed);
                }
            }
        }
    }
    if let Some(o) = open.take() {
        close(o, &mut closed);
    }
    // Delays and phases.
    let mut phase = Component::Other;
    for (mut g, start, last) in closed {
        if let Some(p) = prev_end {
            g.access_delay_us = start.saturating_sub(p) as f64 / 1000.0;
            g.delay_us = last.saturating_sub(p) as f64 / 1000.0;
        } else {
            g.delay_us = last.saturating_sub(start) as f64 / 1000.0;
        }
        prev_end = Some(last);
        let has = |l: Label| g.labels.contains(&l);
        if has(Label::Fin) {
            phase = Component::Close;
        } else if has(Label::Syn) || has(Label::SynAck) {
            phase = Component::Handshake;
        } else if has(Label::Get) || has(Label::Ok) {
            phase = Component::GetOk;
        } else if phase == Component::GetOk && !has(Label::TcpAck) && g.k > 0 && !has(Label::Mgmt) {
            // The first data group after the 200 OK.
            phase = Component::Data;
        }
        g.component = match phase {
            Component::Data | Component::TcpAcks if g.k > 0 => {
                if has(Label::Data) {
                    Component::Data
                } else {
                    Component::TcpAcks
                }
            }
            Component::Data | Component::TcpAcks => Component::Other,
            p if g.k == 0 && g.labels.iter().all(|l| !l.is_payload()) => {
                let _ = p;
                Component::Other
            }
            p => p,
        };
        if has(Label::Mgmt) {
            g.component = Component::Other;
        }
        if phase == Component::GetOk && has(Label::Ok) {
            phase = Component::Data;
        }
        a.groups.push(g);
    }
    a.rows = rows(&a.groups);
    a
}

/// One row for all of `c`'s groups, their delays summed; `None` when there
/// is none.
fn summed_row(groups: &[Group], c: Component) -> Option<Row> {
    let gs: Vec<&Group> = groups.iter().filter(|g| g.component == c).collect();
    if gs.is_empty() {
        return None;
    }
    Some(Row {
        component: c,
        k: None,
        packets: gs
            .iter()
            .map(|g| g.packets())
            .collect::<Vec<_>>()
            .join(", "),
        groups: gs.len(),
        delay_us: gs.iter().map(|g| g.delay_us).sum(),
    })
}

fn rows(groups: &[Group]) -> Vec<Row> {
    let mut out = Vec::new();
    for c in [Component::Handshake, Component::GetOk] {
        out.extend(summed_row(groups, c));
    }
    for c in [Component::Data, Component::TcpAcks] {
        let mut by_k: BTreeMap<usize, Vec<&Group>> = BTreeMap::new();
        for g in groups.iter().filter(|g| g.component == c) {
            by_k.entry(g.k).or_default().push(g);
        }
        for (k, gs) in by_k.into_iter().rev() {
            out.push(Row {
                component: c,
                k: Some(k),
                packets: gs[0].packets(),
                groups: gs.len(),
                delay_us: gs.iter().map(|g| g.delay_us).sum::<f64>() / gs.len() as f64,
            });
        }
    }
    out.extend(summed_row(groups, Component::Close));
    out
}

impl Analysis {
    /// The breakdown as text: Table 3's columns, then the totals.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        s.push_str("Component\tPackets\tDelay (µs)\n");
        for r in &self.rows {
            let name = match r.k {
                Some(k) => format!("{} (k={k}, {} groups, mean)", r.component.name(), r.groups),
                None => r.component.name().to_string(),
            };
            s.push_str(&format!("{name}\t{}\t{:.0}\n", r.packets, r.delay_us));
        }
        s.push_str(&format!(
            "\n{} frames, {} exchange groups, {} retransmissions, {} RTS, {} CTS, {} Acks, {} BlockAcks, {} BlockAck groups, {} malformed\n",
            self.frames,
            self.groups.len(),
            self.retransmissions,
            self.rts,
            self.cts,
            self.acks,
            self.block_acks,
            self.groups.iter().filter(|g| g.block_ack).count(),
            self.malformed_total()
        ));
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
        let mut ip = vec![0x45, 0];
        ip.extend(((40 + payload.len()) as u16).to_be_bytes());
        ip.extend([0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]);
        ip.extend([
            0x1f, 0x90, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 1, 0x50, flags, 0xff, 0xff, 0, 0, 0, 0,
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
        assert!(a
            .to_text()
            .contains("TCP acks (k=2, 1 groups, mean)\tRTS/CTS, 2 TA, BA\t130"));
    }
}
