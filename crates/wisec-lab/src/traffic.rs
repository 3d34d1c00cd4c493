//! Traffic nodes: a saturated UDP source (a frame always waiting at its
//! MAC) and a sink that counts what arrives. Frames are real: 802.11 data
//! frames built with `wisec-wire`, LLC/SNAP, IPv4 and UDP headers with
//! valid checksums.

use crate::node::{Ctx, IfaceId, Node, RxInfo, TxOutcome, TxRequest, TxStatus};
use crate::time::Time;
use wisec_wire::{Addressing, DataFrame, DataFrameRepr, EtherType, MacAddr};

/// IPv4 + UDP header octets.
pub const IP_UDP_HEADERS: usize = 28;
/// UDP port of the lab's datagrams (the discard service, RFC 863).
pub const DISCARD_PORT: u16 = 9;

/// RFC 1071 Internet checksum of `data` with `initial` already summed.
///
/// The one's complement sum is taken over 32-bit big-endian words in a
/// 64-bit accumulator and folded to 16 bits at the end (RFC 1071, 2(B):
/// the sum may be computed in any word size and folded), the last one to
/// three octets zero padded.
fn internet_checksum(data: &[u8], initial: u32) -> u16 {
    !(wisec_bare::net::ones_sum(initial, data) as u16)
}

/// An IPv4 packet of `ip_len` octets (at least 28) carrying a UDP datagram
/// from `src` to `dst`; the payload starts with `seq` and repeats it.
pub fn ipv4_udp(ip_len: usize, src: [u8; 4], dst: [u8; 4], ident: u16, seq: u64) -> Vec<u8> {
    let mut p = vec![0u8; ip_len.clamp(IP_UDP_HEADERS, 65_535)];
    write_ipv4_udp(&mut p, src, dst, ident, seq);
    p
}

/// Writes the packet of [`ipv4_udp`] over all of `p` (whose length is the
/// IP length, 28 to 65535 octets).
fn write_ipv4_udp(p: &mut [u8], src: [u8; 4], dst: [u8; 4], ident: u16, seq: u64) {
    let ip_len = p.len();
    let udp_len = ip_len - 20;
    // RFC 791 header: version 4, IHL 5, total length, identification,
    // DF, TTL 64, protocol 17.
    p[..2].copy_from_slice(&[0x45, 0]);
    p[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
    p[4..6].copy_from_slice(&ident.to_be_bytes());
    p[6..12].copy_from_slice(&[0x40, 0, 64, 17, 0, 0]);
    p[12..16].copy_from_slice(&src);
    p[16..20].copy_from_slice(&dst);
    let ck = internet_checksum(&p[..20], 0);
    p[10..12].copy_from_slice(&ck.to_be_bytes());
    // RFC 768 header.
    p[20..22].copy_from_slice(&40_000u16.to_be_bytes());
    p[22..24].copy_from_slice(&DISCARD_PORT.to_be_bytes());
    p[24..26].copy_from_slice(&(udp_len as u16).to_be_bytes());
    p[26..28].copy_from_slice(&[0, 0]);
    let s = seq.to_be_bytes();
    for c in p[IP_UDP_HEADERS..].chunks_mut(8) {
        c.copy_from_slice(&s[..c.len()]);
    }
    // Checksum over the pseudo-header and the datagram.
    let mut pseudo = 0u32;
    for w in [&src[..], &dst[..]] {
        pseudo += u32::from(u16::from_be_bytes([w[0], w[1]]));
        pseudo += u32::from(u16::from_be_bytes([w[2], w[3]]));
    }
    pseudo += 17 + udp_len as u32;
    let ck = match internet_checksum(&p[20..], pseudo) {
        0 => 0xffff,
        c => c,
    };
    p[26..28].copy_from_slice(&ck.to_be_bytes());
}

/// A station that always has a UDP datagram for the AP: every poll gets a
/// new frame.
#[derive(Debug, Clone)]
pub struct SaturatedSource {
    /// The station's address.
    pub addr: MacAddr,
    /// The AP (BSSID) it sends through.
    pub bssid: MacAddr,
    /// Where the datagrams go (Address 3).
    pub da: MacAddr,
    /// IPv4 packet length.
    pub ip_len: usize,
    /// Send QoS Data frames with this TID (which an HT MAC aggregates);
    /// `None` for plain Data frames.
    pub tid: Option<u8>,
    seq: u64,
    /// Frames acknowledged.
    pub acked: u64,
    /// Frames dropped at the retry limit.
    pub dropped: u64,
}

impl SaturatedSource {
    /// A source sending `ip_len`-octet IPv4 packets through `bssid`.
    pub fn new(addr: MacAddr, bssid: MacAddr, ip_len: usize) -> SaturatedSource {
        SaturatedSource {
            addr,
            bssid,
            da: bssid,
            ip_len,
            tid: None,
            seq: 0,
            acked: 0,
            dropped: 0,
        }
    }

    /// The MPDU of datagram `seq`.
    pub fn frame(&self, seq: u64) -> Vec<u8> {
        let a = self.addr.0;
        let addressing = Addressing::ToAp {
            bssid: self.bssid,
            sa: self.addr,
            da: self.da,
        };
        // 9.2.4.4: sequence number in bits 4..16.
        let header = addressing.header(self.tid, ((seq as u16) & 0x0fff) << 4);
        // The header and LLC/SNAP, then the packet built in its place
        // (neither carries the MSDU's length).
        let repr = DataFrameRepr::msdu(header, EtherType::IPV4, &[]);
        let head = repr.buffer_len().unwrap_or(0);
        let ip_len = self.ip_len.clamp(IP_UDP_HEADERS, 65_535);
        let mut buf = vec![0u8; head + ip_len];
        // A To-DS data header with an MSDU always emits.
        let _ = repr.emit(&mut buf[..head]);
        write_ipv4_udp(
            &mut buf[head..],
            [10, 0, a[4], a[5]],
            [10, 0, 0, 1],
            seq as u16,
            seq,
        );
        buf
    }
}

impl Node for SaturatedSource {
    fn on_frame(&mut self, _now: Time, _frame: &[u8], _info: &RxInfo, _ctx: &mut Ctx<'_>) {}

    fn poll_transmit(
        &mut self,
        _now: Time,
        _iface: IfaceId,
        _ctx: &mut Ctx<'_>,
    ) -> Option<TxRequest> {
        let f = self.frame(self.seq);
        let token = self.seq;
        self.seq += 1;
        Some(TxRequest {
            mpdu: f,
            rate: None,
            token,
        })
    }

    fn on_tx_status(&mut self, _now: Time, status: &TxStatus, _ctx: &mut Ctx<'_>) {
        match status.outcome {
            TxOutcome::Acked | TxOutcome::Sent => self.acked += 1,
            TxOutcome::Dropped | TxOutcome::Invalid => self.dropped += 1,
        }
    }
}

/// Counters of a [`Sink`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SinkCounters {
    /// Data frames with an MSDU received.
    pub frames: u64,
    /// Frame body octets (the MSDU with its LLC/SNAP header).
    pub msdu_octets: u64,
    /// UDP payload octets of well-formed IPv4/UDP datagrams.
    pub udp_payload_octets: u64,
}

/// A node that receives data frames (an AP or a host) and counts them.
#[derive(Debug, Clone, Default)]
pub struct Sink {
    /// Counters since the start.
    pub counters: SinkCounters,
    /// Time of the last reception.
    pub last_rx: Time,
}

impl Sink {
    /// A sink with zero counters.
    pub fn new() -> Sink {
        Sink::default()
    }

    /// The UDP payload length of an IPv4/UDP packet, if it is one.
    fn udp_payload(ip: &[u8]) -> Option<usize> {
        let vihl = *ip.first()?;
        let ihl = usize::from(vihl & 0xf) * 4;
        if vihl >> 4 != 4 || ihl < 20 || *ip.get(9)? != 17 {
            return None;
        }
        let udp = ip.get(ihl..)?;
        let ulen = usize::from(u16::from_be_bytes([*udp.get(4)?, *udp.get(5)?]));
        if ulen < 8 || ulen > udp.len() {
            return None;
        }
        Some(ulen - 8)
    }
}

impl Node for Sink {
    fn on_frame(&mut self, now: Time, frame: &[u8], _info: &RxInfo, _ctx: &mut Ctx<'_>) {
        let Ok(f) = DataFrame::new_checked(frame) else {
            return;
        };
        if f.is_null() || f.is_protected() {
            return;
        }
        self.counters.frames += 1;
        self.counters.msdu_octets += f.body().len() as u64;
        self.last_rx = now;
        if f.ethertype() == Some(EtherType::IPV4) {
            if let Some(n) = Sink::udp_payload(f.msdu_payload()) {
                self.counters.udp_payload_octets += n as u64;
            }
        }
    }

    fn poll_transmit(
        &mut self,
        _now: Time,
        _iface: IfaceId,
        _ctx: &mut Ctx<'_>,
    ) -> Option<TxRequest> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_over_wide_words_equals_rfc_1071s_16_bit_sum() {
        // The 16-bit definition (RFC 1071, 4.1), the odd octet padded.
        fn reference(data: &[u8], initial: u32) -> u16 {
            let mut sum = initial;
            for c in data.chunks(2) {
                sum += u32::from(c[0]) << 8 | u32::from(*c.get(1).unwrap_or(&0));
            }
            while sum > 0xffff {
                sum = (sum & 0xffff) + (sum >> 16);
            }
            !(sum as u16)
        }
        let data: Vec<u8> = (0..300u32).map(|i| (i * 89 + 7) as u8).collect();
        for len in 0..data.len() {
            for initial in [0, 17, 0x1_fffe] {
                assert_eq!(
                    internet_checksum(&data[..len], initial),
                    reference(&data[..len], initial),
                    "len {len}"
                );
            }
        }
        assert_eq!(internet_checksum(&[0xff; 64], 0), reference(&[0xff; 64], 0));
    }

    #[test]
    fn ipv4_udp_checksums_verify() {
        let p = ipv4_udp(1500, [10, 0, 0, 2], [10, 0, 0, 1], 7, 0x0102030405060708);
        assert_eq!(p.len(), 1500);
        // A correct header sums to 0xffff (RFC 1071), so its checksum of
        // itself is 0.
        assert_eq!(internet_checksum(&p[..20], 0), 0);
        let mut pseudo = 0u32;
        pseudo += 0x0a00 + 0x0002 + 0x0a00 + 0x0001 + 17 + 1480;
        assert_eq!(internet_checksum(&p[20..], pseudo), 0);
        assert_eq!(Sink::udp_payload(&p), Some(1472));
        // A flipped byte breaks the UDP checksum.
        let mut q = p.clone();
        q[100] ^= 1;
        assert_ne!(internet_checksum(&q[20..], pseudo), 0);
        assert_eq!(Sink::udp_payload(&p[..30]), None);
        assert_eq!(Sink::udp_payload(&[]), None);
        assert_eq!(ipv4_udp(3, [0; 4], [0; 4], 0, 0).len(), 28);
    }

    #[test]
    fn source_frames_are_to_ds_data_with_the_packet() {
        let src = SaturatedSource::new(
            MacAddr([2, 0, 0, 0, 0, 5]),
            MacAddr([2, 0, 0, 0, 0, 1]),
            1500,
        );
        let f = src.frame(3);
        assert_eq!(f.len(), 24 + 8 + 1500);
        let d = DataFrame::new_checked(&f[..]).unwrap();
        assert!(d.frame_control().to_ds());
        assert_eq!(d.ethertype(), Some(EtherType::IPV4));
        assert_eq!(d.header().sequence_number(), Some(3));
        assert_eq!(d.header().addr1(), MacAddr([2, 0, 0, 0, 0, 1]));
        assert_eq!(Sink::udp_payload(d.msdu_payload()), Some(1472));
    }
}
