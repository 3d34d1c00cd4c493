//! A secure connection's setup read from a channel capture, as seed 004
//! read it with tcpdump: from the initiator's first IKE packet to its
//! first ESP packet carrying data.
//!
//! Every 802.11 data frame of the capture is unwrapped (LLC/SNAP, IPv4)
//! and sorted: IKE (UDP 500, or UDP 4500 with the four zero octets of the
//! non-ESP marker, RFC 3948 section 2.2), ESP (IP protocol 50, or UDP 4500
//! with a non-zero SPI), NAT keepalives (UDP 4500, one octet 0xff) and
//! anything else in the clear. IP fragments after the first take the kind
//! of their first fragment. A frame is on the air once per hop and again
//! per MAC retry; the setup is timed on the frames the initiator itself
//! transmitted (its Address 2), first attempts or not, as a capture on the
//! initiator would see them.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;
use wisec_wire::{DataFrame, MacAddr};

use crate::pcap::PcapRecord;

/// What an IPv4 packet on the air is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    /// An IKE message (or a fragment of one).
    Ike,
    /// ESP (raw or UDP-encapsulated).
    Esp,
    /// A NAT keepalive.
    Keepalive,
    /// Anything else, in the clear: its IP protocol.
    Clear(u8),
}

/// One IPv4 packet in one data frame on the air.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AirPacket {
    /// When the frame went on the air, ns.
    pub ns: u64,
    /// The transmitter (Address 2).
    pub ta: MacAddr,
    /// The frame was a MAC retry.
    pub retry: bool,
    /// IPv4 source.
    pub src: Ipv4Addr,
    /// IPv4 destination.
    pub dst: Ipv4Addr,
    /// What it is.
    pub kind: Kind,
    /// A fragment after the first.
    pub later_fragment: bool,
    /// The UDP (or IP, for raw ESP) payload of a first fragment, to tell a
    /// retransmitted IKE message from a new one.
    pub payload: Vec<u8>,
}

const UDP: u8 = 17;
const ESP: u8 = 50;
const IKE_PORT: u16 = 500;
const NATT_PORT: u16 = 4500;

/// The IPv4 packets of the data frames of `records`, in order.
pub fn packets(records: &[PcapRecord]) -> Vec<AirPacket> {
    let mut first_kind: BTreeMap<(Ipv4Addr, u16), Kind> = BTreeMap::new();
    let mut out = Vec::new();
    for r in records {
        let Ok(f) = DataFrame::new_checked(&r.mpdu[..]) else {
            continue;
        };
        if f.is_protected() || f.ethertype().map(|e| e.0) != Some(0x0800) {
            continue;
        }
        let Some(ta) = f.header().addr2() else {
            continue;
        };
        let retry = f.frame_control().retry();
        let ip = f.msdu_payload();
        let Some(p) = ipv4(ip) else {
            continue;
        };
        let kind = if p.offset > 0 {
            first_kind
                .get(&(p.src, p.id))
                .copied()
                .unwrap_or(Kind::Clear(p.proto))
        } else {
            let k = classify(p.proto, p.body);
            if p.more_fragments {
                first_kind.insert((p.src, p.id), k);
            }
            k
        };
        out.push(AirPacket {
            ns: r.ns,
            ta,
            retry,
            src: p.src,
            dst: p.dst,
            kind,
            later_fragment: p.offset > 0,
            payload: if p.offset == 0 {
                udp_payload(p.proto, p.body).to_vec()
            } else {
                Vec::new()
            },
        });
    }
    out
}

struct Ipv4<'a> {
    src: Ipv4Addr,
    dst: Ipv4Addr,
    proto: u8,
    id: u16,
    offset: u16,
    more_fragments: bool,
    body: &'a [u8],
}

/// RFC 791's header, checked for length.
fn ipv4(b: &[u8]) -> Option<Ipv4<'_>> {
    let vihl = *b.first()?;
    let ihl = usize::from(vihl & 0x0f) * 4;
    if vihl >> 4 != 4 || ihl < 20 {
        return None;
    }
    let total = usize::from(u16::from_be_bytes([*b.get(2)?, *b.get(3)?]));
    let flags_off = u16::from_be_bytes([*b.get(6)?, *b.get(7)?]);
    let addr = |o: usize| -> Option<Ipv4Addr> {
        let x: [u8; 4] = b.get(o..o + 4)?.try_into().ok()?;
        Some(Ipv4Addr::from(x))
    };
    Some(Ipv4 {
        src: addr(12)?,
        dst: addr(16)?,
        proto: *b.get(9)?,
        id: u16::from_be_bytes([*b.get(4)?, *b.get(5)?]),
        offset: flags_off & 0x1fff,
        more_fragments: flags_off & 0x2000 != 0,
        body: b.get(ihl..total.max(ihl).min(b.len()))?,
    })
}

fn udp_payload(proto: u8, body: &[u8]) -> &[u8] {
    if proto == UDP {
        body.get(8..).unwrap_or_default()
    } else {
        body
    }
}

/// IKE, ESP or keepalive by ports and marker (RFC 3948, 2.1 and 2.2).
fn classify(proto: u8, body: &[u8]) -> Kind {
    if proto == ESP {
        return Kind::Esp;
    }
    if proto != UDP || body.len() < 8 {
        return Kind::Clear(proto);
    }
    let sport = u16::from_be_bytes([body[0], body[1]]);
    let dport = u16::from_be_bytes([body[2], body[3]]);
    let payload = &body[8..];
    if sport == IKE_PORT || dport == IKE_PORT {
        Kind::Ike
    } else if sport == NATT_PORT || dport == NATT_PORT {
        match payload {
            [0xff] => Kind::Keepalive,
            [0, 0, 0, 0, ..] => Kind::Ike,
            [_, _, _, _, ..] => Kind::Esp,
            _ => Kind::Clear(proto),
        }
    } else {
        Kind::Clear(proto)
    }
}

/// An end of the secure connection: its address and its radio's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct End {
    /// IPv4 address.
    pub ip: Ipv4Addr,
    /// 802.11 address.
    pub mac: MacAddr,
}

/// The setup of one secure connection, from the capture.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Setup {
    /// The initiator's first IKE packet, ns.
    pub first_ike_ns: u64,
    /// The last IKE packet between the ends before the first ESP, ns.
    pub last_ike_ns: u64,
    /// The initiator's first ESP packet to the responder, ns.
    pub first_esp_ns: Option<u64>,
    /// That ESP's first transmission to the responder by its last hop, ns.
    pub esp_delivered_ns: Option<u64>,
    /// From the first IKE packet to the first ESP, ms: the setup time.
    pub setup_ms: Option<f64>,
    /// From the first IKE packet to the last IKE packet before the first
    /// ESP, ms.
    pub ike_ms: f64,
    /// IKE datagrams the two ends sent (first hop, first attempts).
    pub ike_sent: u32,
    /// Of those, copies of one already sent (IKE retransmissions).
    pub ike_retransmits: u32,
    /// Frames of the initiator's IKE and ESP that were MAC retries.
    pub mac_retries: u32,
}

/// The setup of the connection that `initiator` opened to `responder`:
/// `None` when the initiator sent no IKE at all. `last_hop` is the
/// responder's neighbour on the path (the initiator itself when they are
/// neighbours).
pub fn setup(
    packets: &[AirPacket],
    initiator: End,
    responder: End,
    last_hop: MacAddr,
) -> Option<Setup> {
    let between = |p: &AirPacket| {
        (p.src == initiator.ip && p.dst == responder.ip)
            || (p.src == responder.ip && p.dst == initiator.ip)
    };
    let from_init =
        |p: &AirPacket| p.src == initiator.ip && p.dst == responder.ip && p.ta == initiator.mac;
    let first_ike = packets
        .iter()
        .find(|p| from_init(p) && p.kind == Kind::Ike)?
        .ns;
    let first_esp = packets
        .iter()
        .find(|p| from_init(p) && p.kind == Kind::Esp && p.ns >= first_ike)
        .map(|p| p.ns);
    let end = first_esp.unwrap_or(u64::MAX);
    let last_ike = packets
        .iter()
        .filter(|p| between(p) && p.kind == Kind::Ike && p.ns >= first_ike && p.ns < end)
        .map(|p| p.ns)
        .max()
        .unwrap_or(first_ike);
    let esp_delivered = first_esp.and_then(|t| {
        packets
            .iter()
            .find(|p| {
                p.ns >= t
                    && p.kind == Kind::Esp
                    && p.src == initiator.ip
                    && p.dst == responder.ip
                    && p.ta == last_hop
            })
            .map(|p| p.ns)
    });
    let mut seen: BTreeSet<&[u8]> = BTreeSet::new();
    let (mut sent, mut again, mut retries) = (0u32, 0u32, 0u32);
    for p in packets
        .iter()
        .filter(|p| between(p) && p.ns >= first_ike && p.ns < end)
    {
        let own_hop = (p.src == initiator.ip && p.ta == initiator.mac)
            || (p.src == responder.ip && p.ta == responder.mac);
        if !own_hop || !matches!(p.kind, Kind::Ike | Kind::Esp) {
            continue;
        }
        if p.retry {
            retries += 1;
            continue;
        }
        if p.kind == Kind::Ike && !p.later_fragment {
            sent += 1;
            if !seen.insert(&p.payload) {
                again += 1;
            }
        }
    }
    let ms = |a: u64, b: u64| b.saturating_sub(a) as f64 / 1e6;
    Some(Setup {
        first_ike_ns: first_ike,
        last_ike_ns: last_ike,
        first_esp_ns: first_esp,
        esp_delivered_ns: esp_delivered,
        setup_ms: first_esp.map(|t| ms(first_ike, t)),
        ike_ms: ms(first_ike, last_ike),
        ike_sent: sent,
        ike_retransmits: again,
        mac_retries: retries,
    })
}

/// Packets between `a` and `b` (either way) that were neither IKE, ESP nor
/// keepalives: what went in the clear.
pub fn cleartext_between(packets: &[AirPacket], a: Ipv4Addr, b: Ipv4Addr) -> Vec<&AirPacket> {
    packets
        .iter()
        .filter(|p| (p.src == a && p.dst == b) || (p.src == b && p.dst == a))
        .filter(|p| matches!(p.kind, Kind::Clear(_)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adhoc::{data_from_eth, IBSS_BSSID};

    const A: Ipv4Addr = Ipv4Addr::new(10, 98, 0, 1);
    const C: Ipv4Addr = Ipv4Addr::new(10, 98, 0, 3);

    fn mac(i: u8) -> MacAddr {
        MacAddr([2, 0, 0, 0, 0, i])
    }

    /// An IPv4 packet (RFC 791) with a UDP header (RFC 768; checksum 0)
    /// or a raw body.
    fn ip(
        src: Ipv4Addr,
        dst: Ipv4Addr,
        proto: u8,
        ports: Option<(u16, u16)>,
        body: &[u8],
        id: u16,
        frag: u16,
    ) -> Vec<u8> {
        let mut l4 = Vec::new();
        if let Some((s, d)) = ports {
            l4.extend_from_slice(&s.to_be_bytes());
            l4.extend_from_slice(&d.to_be_bytes());
            l4.extend_from_slice(&((8 + body.len()) as u16).to_be_bytes());
            l4.extend_from_slice(&[0, 0]);
        }
        l4.extend_from_slice(body);
        let mut h = vec![0x45, 0];
        h.extend_from_slice(&((20 + l4.len()) as u16).to_be_bytes());
        h.extend_from_slice(&id.to_be_bytes());
        h.extend_from_slice(&frag.to_be_bytes());
        h.extend_from_slice(&[64, proto, 0, 0]);
        h.extend_from_slice(&src.octets());
        h.extend_from_slice(&dst.octets());
        h.extend_from_slice(&l4);
        h
    }

    fn frame(ns: u64, ta: MacAddr, ra: MacAddr, packet: &[u8], retry: bool) -> PcapRecord {
        let mut eth = Vec::new();
        eth.extend_from_slice(&ra.0);
        eth.extend_from_slice(&ta.0);
        eth.extend_from_slice(&[0x08, 0x00]);
        eth.extend_from_slice(packet);
        let (mut mpdu, _) = data_from_eth(ta, IBSS_BSSID, 0, &eth).unwrap();
        if retry {
            mpdu[1] |= 0x08;
        }
        PcapRecord { ns, mpdu }
    }

    #[test]
    fn kinds_follow_ports_and_the_non_esp_marker() {
        assert_eq!(classify(ESP, &[1, 2, 3, 4]), Kind::Esp);
        let udp = |s: u16, d: u16, p: &[u8]| {
            let mut v = s.to_be_bytes().to_vec();
            v.extend_from_slice(&d.to_be_bytes());
            v.extend_from_slice(&[0, 0, 0, 0]);
            v.extend_from_slice(p);
            v
        };
        assert_eq!(classify(UDP, &udp(500, 500, &[9; 28])), Kind::Ike);
        assert_eq!(classify(UDP, &udp(4500, 4500, &[0, 0, 0, 0, 9])), Kind::Ike);
        assert_eq!(
            classify(UDP, &udp(4500, 4500, &[0xc0, 1, 2, 3, 0, 0, 0, 1])),
            Kind::Esp
        );
        assert_eq!(classify(UDP, &udp(4500, 4500, &[0xff])), Kind::Keepalive);
        assert_eq!(classify(UDP, &udp(5004, 5004, &[1; 12])), Kind::Clear(UDP));
        assert_eq!(classify(1, &[8, 0]), Kind::Clear(1));
    }

    /// A two-hop setup: A's IKE_SA_INIT (sent twice, the second a MAC
    /// retry), B's relay of it, C's answer, A's IKE_AUTH in two IP
    /// fragments, A's first ESP and B's relay of it.
    #[test]
    fn the_setup_runs_from_the_first_ike_to_the_first_esp() {
        let (ma, mb, mc) = (mac(1), mac(2), mac(3));
        let init = ip(A, C, UDP, Some((500, 500)), &[7; 200], 1, 0);
        let resp = ip(C, A, UDP, Some((500, 500)), &[8; 220], 9, 0);
        let mut auth_body = vec![0, 0, 0, 0];
        auth_body.extend_from_slice(&[5; 40]);
        let auth1 = ip(A, C, UDP, Some((4500, 4500)), &auth_body, 2, 0x2000);
        let auth2 = ip(A, C, UDP, None, &[6; 64], 2, 6);
        let clear = ip(A, C, 1, None, &[8, 0, 0, 0], 3, 0);
        let esp = ip(
            A,
            C,
            UDP,
            Some((4500, 4500)),
            &[0xc0, 1, 2, 3, 0, 0, 0, 1, 9, 9],
            4,
            0,
        );
        let recs = vec![
            frame(1_000_000, ma, mb, &clear, false),
            frame(10_000_000, ma, mb, &init, false),
            frame(11_000_000, ma, mb, &init, true),
            frame(12_000_000, mb, mc, &init, false),
            frame(20_000_000, mc, mb, &resp, false),
            frame(21_000_000, mb, ma, &resp, false),
            frame(30_000_000, ma, mb, &auth1, false),
            frame(31_000_000, ma, mb, &auth2, false),
            frame(50_000_000, ma, mb, &init, false),
            frame(60_000_000, ma, mb, &esp, false),
            frame(62_000_000, mb, mc, &esp, false),
        ];
        let p = packets(&recs);
        assert_eq!(p.len(), recs.len());
        assert_eq!(
            p[7].kind,
            Kind::Ike,
            "a later fragment takes its first's kind"
        );
        assert!(p[7].later_fragment);
        let s = setup(&p, End { ip: A, mac: ma }, End { ip: C, mac: mc }, mb).unwrap();
        assert_eq!(s.first_ike_ns, 10_000_000);
        assert_eq!(s.first_esp_ns, Some(60_000_000));
        assert_eq!(s.esp_delivered_ns, Some(62_000_000));
        assert_eq!(s.setup_ms, Some(50.0));
        assert_eq!(s.last_ike_ns, 50_000_000);
        assert_eq!(s.ike_ms, 40.0);
        // init, resp, auth, init again: 4 sent, one of them a copy.
        assert_eq!(s.ike_sent, 4);
        assert_eq!(s.ike_retransmits, 1);
        assert_eq!(s.mac_retries, 1);
        let clear_pkts = cleartext_between(&p, A, C);
        assert_eq!(clear_pkts.len(), 1);
        assert_eq!(clear_pkts[0].kind, Kind::Clear(1));
        // No IKE from the initiator: no setup.
        assert!(setup(&p, End { ip: C, mac: mc }, End { ip: A, mac: ma }, ma).is_some());
        assert!(setup(&p[..1], End { ip: A, mac: ma }, End { ip: C, mac: mc }, mb).is_none());
    }
}
