//! A small plaintext 802.11 capture for demonstrations and tests: data
//! frames in both directions carrying IPv4/UDP, group-addressed data, a
//! QoS data frame, null and control frames, a beacon and robust
//! management frames.

use crate::capture::{CaptureWriter, Format, Interface, Packet, Record};
use std::io::{self, Write};

/// The access point of the sample network.
pub const AP: [u8; 6] = [0x02, 0x00, 0x00, 0x00, 0x01, 0x00];
/// The station of the sample network.
pub const STA: [u8; 6] = [0x02, 0x00, 0x00, 0x00, 0x02, 0x00];
/// UDP destination port of every sample datagram.
pub const UDP_PORT: u16 = 5000;

/// What a sample capture looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleOptions {
    /// pcap or pcapng.
    pub format: Format,
    /// 105 (802.11) or 127 (radiotap).
    pub link_type: u16,
    /// Append an FCS to every frame (radiotap Flags say so; for link type
    /// 105 pcapng says so with if_fcslen).
    pub fcs: bool,
    /// For link type 105 with `fcs`: say so in the capture (pcapng
    /// if_fcslen, pcap FCS bits); when false a reader has to detect it.
    pub announce_fcs: bool,
    /// Number of unicast data frames (half uplink, half downlink).
    pub data_frames: usize,
}

impl Default for SampleOptions {
    fn default() -> SampleOptions {
        SampleOptions {
            format: Format::Pcapng,
            link_type: 105,
            fcs: false,
            announce_fcs: true,
            data_frames: 8,
        }
    }
}

/// The UDP payload of sample datagram `n`.
pub fn payload(n: usize) -> Vec<u8> {
    format!("wisec sample datagram {n:04}").into_bytes()
}

fn ipv4_udp(n: usize, src: [u8; 4], dst: [u8; 4]) -> Vec<u8> {
    let data = payload(n);
    let udp_len = 8 + data.len();
    let total = 20 + udp_len;
    let mut ip = vec![
        0x45,
        0,
        (total >> 8) as u8,
        total as u8,
        0,
        n as u8,
        0x40,
        0,
        64,
        17,
        0,
        0,
    ];
    ip.extend(src);
    ip.extend(dst);
    // RFC 791 header checksum.
    let mut sum: u32 = ip
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    let ck = !(sum as u16);
    ip[10..12].copy_from_slice(&ck.to_be_bytes());
    ip.extend(40000u16.to_be_bytes());
    ip.extend(UDP_PORT.to_be_bytes());
    ip.extend((udp_len as u16).to_be_bytes());
    ip.extend([0, 0]); // no UDP checksum (RFC 768 allows it over IPv4)
    ip.extend(data);
    ip
}

fn llc_snap_ipv4(ip: Vec<u8>) -> Vec<u8> {
    let mut b = vec![0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00];
    b.extend(ip);
    b
}

fn header(fc: [u8; 2], a1: [u8; 6], a2: [u8; 6], a3: [u8; 6], seq: u16) -> Vec<u8> {
    let mut h = Vec::with_capacity(26);
    h.extend(fc);
    h.extend([0x3a, 0x01]);
    h.extend(a1);
    h.extend(a2);
    h.extend(a3);
    h.extend((seq << 4).to_le_bytes());
    h
}

const GROUP: [u8; 6] = [0xff; 6];
const STA_IP: [u8; 4] = [192, 168, 7, 2];
const SERVER_IP: [u8; 4] = [192, 168, 7, 1];

/// The MPDUs (without FCS) of the sample, in capture order.
pub fn frames(data_frames: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut seq = 1u16;
    let mut next = || {
        seq += 1;
        seq
    };
    // Beacon (not robust: always passes through).
    let mut beacon = header([0x80, 0x00], GROUP, AP, AP, next());
    beacon.extend([0u8; 8]);
    beacon.extend([0x64, 0x00, 0x11, 0x04]);
    beacon.extend([0, 5]);
    beacon.extend(b"wisec");
    out.push(beacon);
    for n in 0..data_frames {
        let frame = if n % 2 == 0 {
            // Uplink, To DS: addr1 BSSID, addr2 SA, addr3 DA.
            let mut f = header([0x08, 0x01], AP, STA, AP, next());
            f.extend(llc_snap_ipv4(ipv4_udp(n, STA_IP, SERVER_IP)));
            f
        } else if n % 3 == 1 {
            // Downlink QoS data, From DS, TID 5.
            let mut f = header([0x88, 0x02], STA, AP, AP, next());
            f.extend([0x05, 0x00]);
            f.extend(llc_snap_ipv4(ipv4_udp(n, SERVER_IP, STA_IP)));
            f
        } else {
            // Downlink data, From DS.
            let mut f = header([0x08, 0x02], STA, AP, AP, next());
            f.extend(llc_snap_ipv4(ipv4_udp(n, SERVER_IP, STA_IP)));
            f
        };
        out.push(frame);
        if n == 1 {
            // A null data frame (no body: never protected) and an Ack.
            out.push(header([0x48, 0x11], AP, STA, AP, next()));
            let mut ack = vec![0xd4, 0x00, 0x00, 0x00];
            ack.extend(STA);
            out.push(ack);
        }
    }
    // Group-addressed data from the AP.
    let mut f = header([0x08, 0x02], GROUP, AP, AP, next());
    f.extend(llc_snap_ipv4(ipv4_udp(
        data_frames,
        SERVER_IP,
        [192, 168, 7, 255],
    )));
    out.push(f);
    // Robust management: SA Query request (category 8) to the station, a
    // group-addressed Spectrum Management action (category 0, Channel
    // Switch Announcement), and a deauthentication to the station.
    let mut sa = header([0xd0, 0x00], STA, AP, AP, next());
    sa.extend([8, 0, 0x12, 0x34]);
    out.push(sa);
    let mut csa = header([0xd0, 0x00], GROUP, AP, AP, next());
    csa.extend([0, 4, 37, 3, 1, 11, 5]);
    out.push(csa);
    let mut deauth = header([0xc0, 0x00], STA, AP, AP, next());
    deauth.extend(7u16.to_le_bytes());
    out.push(deauth);
    out
}

/// A minimal radiotap header: Flags (0x10 when an FCS follows) and Rate.
fn radiotap(fcs: bool) -> Vec<u8> {
    vec![0, 0, 10, 0, 0x06, 0, 0, 0, if fcs { 0x10 } else { 0 }, 12]
}

/// Writes a sample capture.
pub fn write_sample<W: Write>(out: W, opts: SampleOptions) -> io::Result<W> {
    let mut w = CaptureWriter::new(out, opts.format);
    let mut iface = Interface::new(opts.link_type, 65535);
    if opts.link_type == 105 && opts.fcs && opts.announce_fcs {
        match opts.format {
            Format::Pcapng => iface.fcslen = Some(4),
            // Link-type field: F bit and an FCS of two 16-bit words.
            Format::Pcap => iface.pcap_link_flags = (1 << 26) | (2 << 28),
        }
    }
    w.write_record(&Record::Section)?;
    w.write_record(&Record::Interface(iface))?;
    for (i, mpdu) in frames(opts.data_frames).into_iter().enumerate() {
        let mut data = if opts.link_type == 127 {
            radiotap(opts.fcs)
        } else {
            Vec::new()
        };
        data.extend(&mpdu);
        if opts.fcs {
            data.extend(crate::decrypt::link::fcs(&mpdu).to_le_bytes());
        }
        let p = Packet {
            interface: 0,
            timestamp: 1_700_000_000_000_000 + 1000 * i as u64,
            orig_len: data.len() as u32,
            data,
        };
        w.write_record(&Record::Packet(p))?;
    }
    w.into_inner()
}
