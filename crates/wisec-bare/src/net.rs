//! Just enough of Ethernet (IEEE Std 802.3), ARP (RFC 826), IPv4
//! (RFC 791) and UDP (RFC 768) for a host that answers datagrams: frames
//! are classified in place and answers are written into the transmit
//! buffer with their checksums (RFC 1071). No fragments are reassembled and
//! no IP options are sent; received options are skipped.

use core::ops::Range;

/// An Ethernet (MAC) address.
pub type Mac = [u8; 6];
/// An IPv4 address.
pub type Ipv4 = [u8; 4];

/// Ethernet header length (no VLAN tag).
pub const ETH_LEN: usize = 14;
/// IPv4 header length without options.
pub const IPV4_LEN: usize = 20;
/// UDP header length.
pub const UDP_LEN: usize = 8;
/// Octets before a UDP payload in a frame this stack sends.
pub const UDP_OFFSET: usize = ETH_LEN + IPV4_LEN + UDP_LEN;
/// The largest frame (without FCS) a 1500-octet MTU allows.
pub const MAX_FRAME: usize = ETH_LEN + 1500;
/// The Ethernet broadcast address.
pub const BROADCAST: Mac = [0xff; 6];

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_ARP: u16 = 0x0806;
const PROTO_UDP: u8 = 17;

/// This host's addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Iface {
    /// Its MAC address.
    pub mac: Mac,
    /// Its IPv4 address.
    pub ip: Ipv4,
}

/// Where a datagram came from (and where its answer goes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Peer {
    /// Source MAC of the frame (the next hop back).
    pub mac: Mac,
    /// Source IPv4 address.
    pub ip: Ipv4,
    /// Source UDP port.
    pub port: u16,
}

/// What a received frame is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// An ARP request for this host's address.
    ArpRequest {
        /// Who asks.
        mac: Mac,
        /// Its IPv4 address.
        ip: Ipv4,
    },
    /// An ARP reply to this host.
    ArpReply {
        /// The address resolved.
        mac: Mac,
        /// For this IPv4 address.
        ip: Ipv4,
    },
    /// A UDP datagram for this host.
    Udp {
        /// Its source.
        from: Peer,
        /// Its destination port.
        port: u16,
        /// Where its payload lies in the frame.
        payload: Range<usize>,
    },
    /// Something this host does not take.
    Ignored(Ignore),
}

/// Why a frame was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ignore {
    /// Another host's unicast, or ARP/IP for another address.
    NotForUs,
    /// Neither IPv4 nor ARP, or an ARP other than Ethernet/IPv4.
    OtherProtocol,
    /// Shorter than its headers, or a header that does not add up.
    Malformed,
    /// IPv4 header checksum wrong.
    BadIpChecksum,
    /// A fragment of a larger datagram (never reassembled here).
    Fragment,
    /// Not UDP.
    NotUdp,
    /// UDP checksum wrong.
    BadUdpChecksum,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn addr<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[at..at + N]);
    a
}

/// The one's-complement sum of `data` (RFC 1071), folded, added to `sum`.
///
/// Summed four octets at a time into 64 bits: the one's-complement sum
/// is the same whatever the word size, as long as the carries are folded
/// back in at the end (RFC 1071, 2.(B) and 2.(C)); the lab checksums
/// every packet it makes, so this is on its hot path.
pub fn ones_sum(sum: u32, data: &[u8]) -> u32 {
    let mut acc = u64::from(sum);
    let mut words = data.chunks_exact(4);
    for w in &mut words {
        acc += u64::from(u32::from_be_bytes([w[0], w[1], w[2], w[3]]));
    }
    // The odd octets as if zeros followed them (RFC 1071, 4.1).
    let rest = words.remainder();
    let mut last = [0u8; 4];
    last[..rest.len()].copy_from_slice(rest);
    acc += u64::from(u32::from_be_bytes(last));
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u32
}

/// The Internet checksum of `data` (RFC 1071).
pub fn checksum(data: &[u8]) -> u16 {
    !(ones_sum(0, data) as u16)
}

/// The UDP checksum over the pseudo-header and `udp` (header and payload,
/// with the checksum field as it is), RFC 768.
fn udp_sum(src: &Ipv4, dst: &Ipv4, udp: &[u8]) -> u16 {
    let mut pseudo = [0u8; 12];
    pseudo[..4].copy_from_slice(src);
    pseudo[4..8].copy_from_slice(dst);
    pseudo[9] = PROTO_UDP;
    pseudo[10..12].copy_from_slice(&(udp.len() as u16).to_be_bytes());
    !(ones_sum(ones_sum(0, &pseudo), udp) as u16)
}

/// Classifies a received frame (without FCS).
pub fn parse(frame: &[u8], me: &Iface) -> Input {
    if frame.len() < ETH_LEN {
        return Input::Ignored(Ignore::Malformed);
    }
    let dst: Mac = addr(frame, 0);
    if dst != me.mac && dst != BROADCAST {
        return Input::Ignored(Ignore::NotForUs);
    }
    let src: Mac = addr(frame, 6);
    match be16(frame, 12) {
        ETHERTYPE_ARP => parse_arp(&frame[ETH_LEN..], me),
        ETHERTYPE_IPV4 if dst == me.mac => parse_ipv4(frame, src, me),
        ETHERTYPE_IPV4 => Input::Ignored(Ignore::NotForUs),
        _ => Input::Ignored(Ignore::OtherProtocol),
    }
}

fn parse_arp(a: &[u8], me: &Iface) -> Input {
    if a.len() < 28 {
        return Input::Ignored(Ignore::Malformed);
    }
    // RFC 826: hardware type 1 (Ethernet), protocol 0x0800, lengths 6 and 4.
    if be16(a, 0) != 1 || be16(a, 2) != ETHERTYPE_IPV4 || a[4] != 6 || a[5] != 4 {
        return Input::Ignored(Ignore::OtherProtocol);
    }
    let (mac, ip, target): (Mac, Ipv4, Ipv4) = (addr(a, 8), addr(a, 14), addr(a, 24));
    if target != me.ip {
        return Input::Ignored(Ignore::NotForUs);
    }
    match be16(a, 6) {
        1 => Input::ArpRequest { mac, ip },
        2 => Input::ArpReply { mac, ip },
        _ => Input::Ignored(Ignore::Malformed),
    }
}

fn parse_ipv4(frame: &[u8], src_mac: Mac, me: &Iface) -> Input {
    let ip = &frame[ETH_LEN..];
    if ip.len() < IPV4_LEN || ip[0] >> 4 != 4 {
        return Input::Ignored(Ignore::Malformed);
    }
    let ihl = usize::from(ip[0] & 0x0f) * 4;
    let total = usize::from(be16(ip, 2));
    // Ethernet pads short frames: the IP total length says where it ends.
    if ihl < IPV4_LEN || total < ihl || total > ip.len() {
        return Input::Ignored(Ignore::Malformed);
    }
    if checksum(&ip[..ihl]) != 0 {
        return Input::Ignored(Ignore::BadIpChecksum);
    }
    let dst: Ipv4 = addr(ip, 16);
    if dst != me.ip {
        return Input::Ignored(Ignore::NotForUs);
    }
    // More Fragments set, or a fragment offset: part of a larger datagram.
    if be16(ip, 6) & 0x3fff != 0 {
        return Input::Ignored(Ignore::Fragment);
    }
    if ip[9] != PROTO_UDP {
        return Input::Ignored(Ignore::NotUdp);
    }
    let src: Ipv4 = addr(ip, 12);
    let udp = &ip[ihl..total];
    if udp.len() < UDP_LEN {
        return Input::Ignored(Ignore::Malformed);
    }
    let ulen = usize::from(be16(udp, 4));
    if ulen < UDP_LEN || ulen > udp.len() {
        return Input::Ignored(Ignore::Malformed);
    }
    let udp = &udp[..ulen];
    // A zero checksum means none was computed (RFC 768).
    if be16(udp, 6) != 0 && udp_sum(&src, &dst, udp) != 0 {
        return Input::Ignored(Ignore::BadUdpChecksum);
    }
    let start = ETH_LEN + ihl + UDP_LEN;
    Input::Udp {
        from: Peer {
            mac: src_mac,
            ip: src,
            port: be16(udp, 0),
        },
        port: be16(udp, 2),
        payload: start..start + ulen - UDP_LEN,
    }
}

fn eth_header(out: &mut [u8], dst: &Mac, src: &Mac, ethertype: u16) {
    out[0..6].copy_from_slice(dst);
    out[6..12].copy_from_slice(src);
    out[12..14].copy_from_slice(&ethertype.to_be_bytes());
}

/// Writes an ARP packet (`op` 1 request, 2 reply) into `out`; returns the
/// frame length, or 0 when `out` is too small.
pub fn arp(out: &mut [u8], me: &Iface, op: u16, to_mac: &Mac, to_ip: &Ipv4) -> usize {
    let Some(out) = out.get_mut(..ETH_LEN + 28) else {
        return 0;
    };
    let eth_dst = if op == 1 { BROADCAST } else { *to_mac };
    eth_header(out, &eth_dst, &me.mac, ETHERTYPE_ARP);
    let a = &mut out[ETH_LEN..];
    a[0..2].copy_from_slice(&1u16.to_be_bytes());
    a[2..4].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
    a[4] = 6;
    a[5] = 4;
    a[6..8].copy_from_slice(&op.to_be_bytes());
    a[8..14].copy_from_slice(&me.mac);
    a[14..18].copy_from_slice(&me.ip);
    a[18..24].copy_from_slice(if op == 1 { &[0; 6] } else { to_mac });
    a[24..28].copy_from_slice(to_ip);
    ETH_LEN + 28
}

/// Completes a UDP frame whose `payload_len` payload octets the caller
/// wrote at `frame[UDP_OFFSET..]`: writes the Ethernet, IPv4 (with
/// identification `ident`, DF set, TTL 64) and UDP headers with both
/// checksums. Returns the frame length, or 0 when it does not fit.
pub fn finish_udp(
    frame: &mut [u8],
    me: &Iface,
    src_port: u16,
    to: &Peer,
    payload_len: usize,
    ident: u16,
) -> usize {
    let total = UDP_OFFSET + payload_len;
    if total > frame.len() || total > MAX_FRAME {
        return 0;
    }
    eth_header(frame, &to.mac, &me.mac, ETHERTYPE_IPV4);
    let ip_len = (IPV4_LEN + UDP_LEN + payload_len) as u16;
    {
        let ip = &mut frame[ETH_LEN..ETH_LEN + IPV4_LEN];
        ip[0] = 0x45;
        ip[1] = 0;
        ip[2..4].copy_from_slice(&ip_len.to_be_bytes());
        ip[4..6].copy_from_slice(&ident.to_be_bytes());
        ip[6..8].copy_from_slice(&0x4000u16.to_be_bytes());
        ip[8] = 64;
        ip[9] = PROTO_UDP;
        ip[10..12].copy_from_slice(&[0, 0]);
        ip[12..16].copy_from_slice(&me.ip);
        ip[16..20].copy_from_slice(&to.ip);
        let c = checksum(ip);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
    }
    let udp = &mut frame[ETH_LEN + IPV4_LEN..total];
    udp[0..2].copy_from_slice(&src_port.to_be_bytes());
    udp[2..4].copy_from_slice(&to.port.to_be_bytes());
    udp[4..6].copy_from_slice(&((UDP_LEN + payload_len) as u16).to_be_bytes());
    udp[6..8].copy_from_slice(&[0, 0]);
    let c = match udp_sum(&me.ip, &to.ip, udp) {
        // RFC 768: a computed zero is sent as all ones.
        0 => 0xffff,
        c => c,
    };
    udp[6..8].copy_from_slice(&c.to_be_bytes());
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    const ME: Iface = Iface {
        mac: [0x52, 0x54, 0, 0x12, 0x34, 0x56],
        ip: [10, 0, 2, 15],
    };
    const HOST: Peer = Peer {
        mac: [0x52, 0x55, 10, 0, 2, 2],
        ip: [10, 0, 2, 2],
        port: 40000,
    };

    #[test]
    fn rfc1071_example_sum() {
        // RFC 1071, 3: the sum of 0001 f203 f4f5 f6f7 is ddf2.
        assert_eq!(
            ones_sum(0, &[0, 1, 0xf2, 3, 0xf4, 0xf5, 0xf6, 0xf7]),
            0xddf2
        );
    }

    #[test]
    fn word_sum_equals_the_sixteen_bit_definition_at_every_length() {
        // RFC 1071, 1: 16-bit big-endian words, an odd last octet padded
        // with a zero, carries added back in.
        fn by_halfwords(mut sum: u32, data: &[u8]) -> u32 {
            for c in data.chunks(2) {
                sum += u32::from(c[0]) << 8 | u32::from(*c.get(1).unwrap_or(&0));
                sum = (sum & 0xffff) + (sum >> 16);
            }
            sum
        }
        let data: [u8; 70] = core::array::from_fn(|i| (i as u8).wrapping_mul(151) ^ 0xa5);
        for len in 0..=data.len() {
            for initial in [0, 0xffff, 0x1_2345] {
                let want = by_halfwords(initial, &data[..len]);
                let want = (want & 0xffff) + (want >> 16);
                assert_eq!(
                    ones_sum(initial, &data[..len]),
                    want,
                    "len {len} initial {initial:#x}"
                );
            }
        }
    }

    #[test]
    fn a_udp_frame_we_send_parses_back_with_valid_checksums() {
        let mut f = [0u8; 200];
        f[UDP_OFFSET..UDP_OFFSET + 5].copy_from_slice(b"hello");
        let me_as_peer = Peer {
            mac: ME.mac,
            ip: ME.ip,
            port: 7000,
        };
        let n = finish_udp(&mut f, &ME, 7000, &HOST, 5, 1);
        assert_eq!(n, 47);
        assert_eq!(checksum(&f[ETH_LEN..ETH_LEN + IPV4_LEN]), 0);
        // Seen from the host: swap the roles.
        let host = Iface {
            mac: HOST.mac,
            ip: HOST.ip,
        };
        match parse(&f[..n], &host) {
            Input::Udp {
                from,
                port,
                payload,
            } => {
                assert_eq!(from, me_as_peer);
                assert_eq!(port, 40000);
                assert_eq!(&f[payload], b"hello");
            }
            other => panic!("{other:?}"),
        }
        let mut bad = f;
        bad[UDP_OFFSET] ^= 1;
        assert_eq!(
            parse(&bad[..n], &host),
            Input::Ignored(Ignore::BadUdpChecksum)
        );
        let mut frag = f;
        frag[ETH_LEN + 6] = 0x20; // More Fragments
        let c = {
            frag[ETH_LEN + 10] = 0;
            frag[ETH_LEN + 11] = 0;
            checksum(&frag[ETH_LEN..ETH_LEN + IPV4_LEN])
        };
        frag[ETH_LEN + 10..ETH_LEN + 12].copy_from_slice(&c.to_be_bytes());
        assert_eq!(parse(&frag[..n], &host), Input::Ignored(Ignore::Fragment));
        assert_eq!(parse(&f[..n], &ME), Input::Ignored(Ignore::NotForUs));
        assert_eq!(parse(&f[..30], &host), Input::Ignored(Ignore::Malformed));
    }

    #[test]
    fn arp_requests_for_us_are_seen_and_answered() {
        let host = Iface {
            mac: HOST.mac,
            ip: HOST.ip,
        };
        let mut f = [0u8; 64];
        let n = arp(&mut f, &host, 1, &[0; 6], &ME.ip);
        assert_eq!(&f[..6], &BROADCAST);
        assert_eq!(
            parse(&f[..n], &ME),
            Input::ArpRequest {
                mac: HOST.mac,
                ip: HOST.ip
            }
        );
        let mut r = [0u8; 64];
        let n = arp(&mut r, &ME, 2, &HOST.mac, &HOST.ip);
        assert_eq!(
            parse(&r[..n], &host),
            Input::ArpReply {
                mac: ME.mac,
                ip: ME.ip
            }
        );
        // A request for someone else's address is not ours to answer.
        let n = arp(&mut f, &host, 1, &[0; 6], &[10, 0, 2, 99]);
        assert_eq!(parse(&f[..n], &ME), Input::Ignored(Ignore::NotForUs));
    }
}
