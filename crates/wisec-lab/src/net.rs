//! A real TCP/IP stack on every lab host: smoltcp driven with the
//! simulator's virtual time, over a queue device whose frames the node
//! carries over its 802.11 link (LLC/SNAP conversion in [`crate::bss`]) or
//! its wired port, and the traffic generators that run on it.
//!
//! The device is Ethernet-framed: the node turns each Ethernet frame into
//! an 802.11 data frame behind an RFC 1042 LLC/SNAP header and back, as
//! an 802.11 bridge or driver does. Its
//! transmit queue is bounded, which gives smoltcp the backpressure of a
//! real driver queue: a saturating UDP sender is paced by the MAC.

use crate::time::Time;
use serde::{Deserialize, Serialize};
use smoltcp::iface::{Config, Interface, SocketHandle, SocketSet};
use smoltcp::phy::{Device, DeviceCapabilities, Medium, RxToken, TxToken};
use smoltcp::socket::{icmp, tcp, udp};
use smoltcp::wire::{
    EthernetAddress, HardwareAddress, Icmpv4Packet, Icmpv4Repr, IpAddress, IpCidr, Ipv4Address,
};
use std::collections::VecDeque;

/// The largest Ethernet frame the device carries (1500 octets of IP plus
/// the 14-octet Ethernet header).
pub const ETH_MTU: usize = 1514;

/// smoltcp's instant for a virtual time (microsecond resolution).
pub fn instant(t: Time) -> smoltcp::time::Instant {
    smoltcp::time::Instant::from_micros(i64::try_from(t.as_ns() / 1000).unwrap_or(i64::MAX))
}

/// The virtual time of a smoltcp instant (negative ones are zero).
pub fn from_instant(i: smoltcp::time::Instant) -> Time {
    Time::from_us(u64::try_from(i.total_micros()).unwrap_or(0))
}

/// A device of two frame queues.
#[derive(Debug, Default)]
pub struct QueueDevice {
    /// Frames waiting for the stack.
    pub rx: VecDeque<Vec<u8>>,
    /// Frames the stack sent, waiting for the link.
    pub tx: VecDeque<Vec<u8>>,
    /// The transmit queue's capacity.
    pub tx_limit: usize,
}

/// A received frame.
#[derive(Debug)]
pub struct QueueRx(Vec<u8>);

/// Room for one frame in the transmit queue.
#[derive(Debug)]
pub struct QueueTx<'a>(&'a mut VecDeque<Vec<u8>>);

impl RxToken for QueueRx {
    fn consume<R, F: FnOnce(&[u8]) -> R>(self, f: F) -> R {
        f(&self.0)
    }
}

impl TxToken for QueueTx<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        let mut buf = vec![0u8; len];
        let r = f(&mut buf);
        self.0.push_back(buf);
        r
    }
}

impl Device for QueueDevice {
    type RxToken<'a> = QueueRx;
    type TxToken<'a> = QueueTx<'a>;

    fn receive(&mut self, _timestamp: smoltcp::time::Instant) -> Option<(QueueRx, QueueTx<'_>)> {
        // An answer may be generated while the queue is full: smoltcp then
        // drops it, as a full driver queue would.
        let f = self.rx.pop_front()?;
        Some((QueueRx(f), QueueTx(&mut self.tx)))
    }

    fn transmit(&mut self, _timestamp: smoltcp::time::Instant) -> Option<QueueTx<'_>> {
        if self.tx.len() >= self.tx_limit {
            return None;
        }
        Some(QueueTx(&mut self.tx))
    }

    fn capabilities(&self) -> DeviceCapabilities {
        let mut c = DeviceCapabilities::default();
        c.medium = Medium::Ethernet;
        c.max_transmission_unit = ETH_MTU;
        c
    }
}

/// What a host's traffic generator does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Traffic {
    /// Nothing (a server, or an idle station).
    None,
    /// Sends `bytes` over one TCP connection, then closes it (Qcheck's
    /// throughput test sends 1000 KB).
    TcpBulk {
        /// Octets to send.
        bytes: u64,
    },
    /// Sends over TCP for a duration (iperf).
    TcpFor {
        /// How long, ns.
        duration: Time,
    },
    /// Sends `bytes` as UDP datagrams of `payload` octets as fast as the
    /// link takes them (Qcheck's UDP throughput test).
    UdpBulk {
        /// Octets to send.
        bytes: u64,
        /// UDP payload per datagram.
        payload: usize,
    },
    /// Sends UDP datagrams as fast as the link takes them for a duration
    /// (iperf -u with a rate above the link's).
    UdpFor {
        /// How long, ns.
        duration: Time,
        /// UDP payload per datagram.
        payload: usize,
    },
    /// Sends UDP datagrams at a constant bit rate.
    UdpRate {
        /// Payload bits per second.
        rate_bps: u64,
        /// UDP payload per datagram.
        payload: usize,
        /// How long, ns.
        duration: Time,
    },
    /// An HTTP-like fetch: opens one TCP connection to the peer's sink,
    /// sends a `request` of that many octets beginning `GET `, and reads
    /// the response until `bytes` octets have arrived (the peer runs
    /// [`Traffic::Serve`]).
    Fetch {
        /// Request octets.
        request: usize,
        /// Response octets expected.
        bytes: u64,
    },
    /// The server side of [`Traffic::Fetch`]: the TCP sink answers each
    /// request with a response of `bytes` octets beginning `HTTP/1.1 200
    /// OK`, then closes the connection. Nothing is started.
    Serve {
        /// Response octets.
        bytes: u64,
    },
    /// ICMP echo requests (ping).
    Ping {
        /// Requests.
        count: u32,
        /// Between requests, ns.
        interval: Time,
        /// ICMP data octets (Qcheck's response time test uses small ones).
        size: usize,
    },
}

/// The TCP port of the lab's traffic sinks (iperf's).
pub const SINK_PORT: u16 = 5001;
/// The UDP port of the lab's traffic sinks.
pub const UDP_SINK_PORT: u16 = 5001;
const CLIENT_PORT: u16 = 40_000;
const ICMP_IDENT: u16 = 0x5753;
/// TCP socket buffers (64 KiB: the window without scaling).
pub const TCP_BUFFER: usize = 65_535;

/// What a generator or a sink measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct AppStats {
    /// When the generator started (connect, first datagram, first ping).
    pub started: Option<Time>,
    /// When the sender finished (last byte queued and acknowledged, or
    /// last datagram handed to the stack).
    pub finished: Option<Time>,
    /// Octets sent (payload).
    pub sent_bytes: u64,
    /// Octets received by the sink (payload).
    pub recv_bytes: u64,
    /// Datagrams received.
    pub recv_datagrams: u64,
    /// First payload received.
    pub first_rx: Option<Time>,
    /// Last payload received.
    pub last_rx: Option<Time>,
    /// Echo replies received.
    pub ping_replies: u32,
    /// Sum of round-trip times, ns.
    pub rtt_sum_ns: u64,
    /// Smallest round-trip time, ns.
    pub rtt_min_ns: Option<u64>,
    /// Largest round-trip time, ns.
    pub rtt_max_ns: Option<u64>,
}

impl AppStats {
    /// `n` payload octets reached the sink at `now`.
    fn received(&mut self, n: u64, now: Time) {
        self.recv_bytes += n;
        self.first_rx.get_or_insert(now);
        self.last_rx = Some(now);
    }
}

/// Reads everything the TCP socket holds; the octets read.
fn drain(s: &mut tcp::Socket) -> usize {
    let mut got = 0usize;
    while s.can_recv() {
        match s.recv(|b| (b.len(), b.len())) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    got
}

#[derive(Debug)]
enum App {
    Idle,
    Tcp {
        handle: SocketHandle,
        limit: Option<u64>,
        until: Option<Time>,
        closing: bool,
    },
    Fetch {
        handle: SocketHandle,
        request: usize,
        bytes: u64,
        sent_request: bool,
    },
    Udp {
        handle: SocketHandle,
        payload: usize,
        limit: Option<u64>,
        until: Option<Time>,
        /// Constant rate: time of the next datagram and the gap.
        pace: Option<(Time, Time)>,
    },
    Ping {
        handle: SocketHandle,
        count: u32,
        sent: u32,
        next: Time,
        interval: Time,
        size: usize,
        sent_at: Vec<Time>,
    },
}

/// A host's IP stack and its traffic.
pub struct Stack {
    iface: Interface,
    sockets: SocketSet<'static>,
    /// The device (the node moves frames in and out of its queues).
    pub dev: QueueDevice,
    app: App,
    traffic: Traffic,
    peer: Ipv4Address,
    tcp_sink: Option<SocketHandle>,
    udp_sink: Option<SocketHandle>,
    /// Response octets still to send on the sink's connection (Serve).
    serving: Option<u64>,
    started: bool,
    /// Socket buffer octets of the bulk TCP sender and of the sink.
    tcp_buffer: usize,
    /// What was measured.
    pub stats: AppStats,
}

impl core::fmt::Debug for Stack {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Stack")
            .field("traffic", &self.traffic)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Stack {
    /// A host with Ethernet address `mac`, IPv4 address `ip`/24, a TCP and
    /// a UDP sink on [`SINK_PORT`], and `traffic` towards `peer` (started
    /// by [`Stack::start_traffic`]). `seed` seeds smoltcp's generator
    /// (ports, initial sequence numbers).
    pub fn new(
        mac: [u8; 6],
        ip: [u8; 4],
        peer: [u8; 4],
        traffic: Traffic,
        seed: u64,
        now: Time,
    ) -> Stack {
        let mut dev = QueueDevice {
            tx_limit: 16,
            ..QueueDevice::default()
        };
        let mut cfg = Config::new(HardwareAddress::Ethernet(EthernetAddress(mac)));
        cfg.random_seed = seed;
        let mut iface = Interface::new(cfg, &mut dev, instant(now));
        iface.update_ip_addrs(|a| {
            let _ = a.push(IpCidr::new(IpAddress::v4(ip[0], ip[1], ip[2], ip[3]), 24));
        });
        let mut sockets = SocketSet::new(Vec::new());
        let sink_tx = if matches!(traffic, Traffic::Serve { .. }) {
            TCP_BUFFER
        } else {
            1024
        };
        let mut sink = tcp::Socket::new(
            tcp::SocketBuffer::new(vec![0; TCP_BUFFER]),
            tcp::SocketBuffer::new(vec![0; sink_tx]),
        );
        let _ = sink.listen(SINK_PORT);
        let tcp_sink = Some(sockets.add(sink));
        let mut usink = udp::Socket::new(
            udp::PacketBuffer::new(vec![udp::PacketMetadata::EMPTY; 64], vec![0; 65_536]),
            udp::PacketBuffer::new(vec![udp::PacketMetadata::EMPTY; 1], vec![0; 16]),
        );
        let _ = usink.bind(UDP_SINK_PORT);
        let udp_sink = Some(sockets.add(usink));
        Stack {
            iface,
            sockets,
            dev,
            app: App::Idle,
            traffic,
            peer: Ipv4Address::new(peer[0], peer[1], peer[2], peer[3]),
            tcp_sink,
            udp_sink,
            serving: None,
            started: false,
            tcp_buffer: TCP_BUFFER,
            stats: AppStats::default(),
        }
    }

    /// Gives the bulk TCP sender ([`Traffic::TcpBulk`], [`Traffic::TcpFor`])
    /// and the TCP sink socket buffers of `octets` (at least 64 KiB; above
    /// it the window is scaled, RFC 7323), as a kernel's socket buffer
    /// limits do (Linux: `net.ipv4.tcp_wmem`/`tcp_rmem`). Call it before
    /// any connection exists: the listening sink is set up again.
    pub fn set_tcp_buffer(&mut self, octets: usize) {
        let octets = octets.clamp(TCP_BUFFER, 1 << 28);
        self.tcp_buffer = octets;
        if matches!(self.traffic, Traffic::Serve { .. }) {
            return;
        }
        if let Some(h) = self.tcp_sink.take() {
            self.sockets.remove(h);
        }
        let mut sink = tcp::Socket::new(
            tcp::SocketBuffer::new(vec![0; octets]),
            tcp::SocketBuffer::new(vec![0; 1024]),
        );
        let _ = sink.listen(SINK_PORT);
        self.tcp_sink = Some(self.sockets.add(sink));
    }

    /// The configured traffic.
    pub fn traffic(&self) -> &Traffic {
        &self.traffic
    }

    /// True once the traffic generator has been started.
    pub fn traffic_started(&self) -> bool {
        self.started
    }

    /// Starts the traffic generator (once).
    pub fn start_traffic(&mut self, now: Time) {
        if self.started {
            return;
        }
        self.started = true;
        self.stats.started = Some(now);
        let peer = IpAddress::Ipv4(self.peer);
        self.app = match self.traffic.clone() {
            Traffic::None | Traffic::Serve { .. } => App::Idle,
            Traffic::Fetch { request, bytes } => {
                let mut s = tcp::Socket::new(
                    tcp::SocketBuffer::new(vec![0; TCP_BUFFER]),
                    tcp::SocketBuffer::new(vec![0; request.clamp(16, 4096)]),
                );
                s.set_nagle_enabled(true);
                let cx = self.iface.context();
                let _ = s.connect(cx, (peer, SINK_PORT), CLIENT_PORT);
                App::Fetch {
                    handle: self.sockets.add(s),
                    request: request.clamp(16, 4096),
                    bytes,
                    sent_request: false,
                }
            }
            Traffic::TcpBulk { .. } | Traffic::TcpFor { .. } => {
                let mut s = tcp::Socket::new(
                    tcp::SocketBuffer::new(vec![0; TCP_BUFFER]),
                    tcp::SocketBuffer::new(vec![0; self.tcp_buffer]),
                );
                s.set_nagle_enabled(true);
                let (limit, until) = match self.traffic {
                    Traffic::TcpBulk { bytes } => (Some(bytes), None),
                    Traffic::TcpFor { duration } => (None, Some(now + duration)),
                    _ => (None, None),
                };
                let cx = self.iface.context();
                let _ = s.connect(cx, (peer, SINK_PORT), CLIENT_PORT);
                App::Tcp {
                    handle: self.sockets.add(s),
                    limit,
                    until,
                    closing: false,
                }
            }
            Traffic::UdpBulk { payload, .. }
            | Traffic::UdpFor { payload, .. }
            | Traffic::UdpRate { payload, .. } => {
                let payload = payload.clamp(1, 1472);
                let mut s = udp::Socket::new(
                    udp::PacketBuffer::new(vec![udp::PacketMetadata::EMPTY; 1], vec![0; 16]),
                    udp::PacketBuffer::new(vec![udp::PacketMetadata::EMPTY; 8], vec![0; 8 * 1472]),
                );
                let _ = s.bind(CLIENT_PORT);
                let (limit, until, pace) = match self.traffic {
                    Traffic::UdpBulk { bytes, .. } => (Some(bytes), None, None),
                    Traffic::UdpFor { duration, .. } => (None, Some(now + duration), None),
                    Traffic::UdpRate {
                        rate_bps, duration, ..
                    } => {
                        let gap_ns =
                            (payload as u128 * 8 * 1_000_000_000) / u128::from(rate_bps.max(1));
                        let gap = Time::from_ns(u64::try_from(gap_ns).unwrap_or(u64::MAX));
                        (None, Some(now + duration), Some((now, gap)))
                    }
                    _ => (None, None, None),
                };
                App::Udp {
                    handle: self.sockets.add(s),
                    payload,
                    limit,
                    until,
                    pace,
                }
            }
            Traffic::Ping {
                count,
                interval,
                size,
            } => {
                let mut s = icmp::Socket::new(
                    icmp::PacketBuffer::new(vec![icmp::PacketMetadata::EMPTY; 8], vec![0; 8192]),
                    icmp::PacketBuffer::new(vec![icmp::PacketMetadata::EMPTY; 8], vec![0; 8192]),
                );
                let _ = s.bind(icmp::Endpoint::Ident(ICMP_IDENT));
                App::Ping {
                    handle: self.sockets.add(s),
                    count,
                    sent: 0,
                    next: now,
                    interval,
                    size: size.min(1400),
                    sent_at: Vec::new(),
                }
            }
        };
    }

    /// True when the generator has nothing more to do.
    pub fn traffic_done(&self) -> bool {
        match &self.app {
            App::Idle => self.started,
            App::Tcp { .. } | App::Udp { .. } | App::Fetch { .. } => self.stats.finished.is_some(),
            App::Ping { count, sent, .. } => *sent >= *count,
        }
    }

    /// Runs the stack and the applications at `now`; returns when it wants
    /// to run again.
    pub fn poll(&mut self, now: Time) -> Option<Time> {
        let t = instant(now);
        self.iface.poll(t, &mut self.dev, &mut self.sockets);
        let app_wake = self.run_apps(now);
        self.iface.poll(t, &mut self.dev, &mut self.sockets);
        let stack_wake = self.iface.poll_at(t, &self.sockets).map(from_instant);
        match (stack_wake, app_wake) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn run_apps(&mut self, now: Time) -> Option<Time> {
        // Sinks.
        if let Some(h) = self.tcp_sink {
            let s = self.sockets.get_mut::<tcp::Socket>(h);
            let got = drain(s);
            if got > 0 {
                self.stats.received(got as u64, now);
                if let (Traffic::Serve { bytes }, None) = (&self.traffic, self.serving) {
                    self.serving = Some(*bytes);
                    self.stats.started.get_or_insert(now);
                }
            }
            if let Some(left) = self.serving {
                let sent = serve_response(s, left, self.stats.sent_bytes);
                self.stats.sent_bytes += sent;
                let left = left - sent.min(left);
                if left == 0 {
                    s.close();
                    self.serving = None;
                    self.stats.finished = Some(now);
                } else {
                    self.serving = Some(left);
                }
            }
            if !s.is_active() || s.state() == tcp::State::CloseWait {
                // Closed by the peer: close our side and listen again.
                if s.state() == tcp::State::CloseWait {
                    s.close();
                } else if !s.is_open() {
                    let _ = s.listen(SINK_PORT);
                }
            }
        }
        if let Some(h) = self.udp_sink {
            let s = self.sockets.get_mut::<udp::Socket>(h);
            while let Ok((b, _)) = s.recv() {
                self.stats.received(b.len() as u64, now);
                self.stats.recv_datagrams += 1;
            }
        }
        // Generators.
        let peer = self.peer;
        match &mut self.app {
            App::Idle => None,
            App::Tcp {
                handle,
                limit,
                until,
                closing,
            } => {
                let s = self.sockets.get_mut::<tcp::Socket>(*handle);
                if !*closing && s.may_send() {
                    let budget = match (*limit, *until) {
                        (Some(l), _) => l.saturating_sub(self.stats.sent_bytes),
                        (None, Some(u)) if now < u => u64::MAX,
                        _ => 0,
                    };
                    let mut left = budget;
                    while left > 0 && s.can_send() {
                        let chunk = usize::try_from(left.min(16_384)).unwrap_or(16_384);
                        let data = [0x5au8; 16_384];
                        match s.send_slice(&data[..chunk]) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => {
                                left -= n as u64;
                                self.stats.sent_bytes += n as u64;
                            }
                        }
                    }
                    if left == 0 {
                        s.close();
                        *closing = true;
                    }
                }
                if *closing && self.stats.finished.is_none() && s.send_queue() == 0 {
                    self.stats.finished = Some(now);
                }
                match until {
                    Some(u) if now < *u => Some(*u),
                    _ => None,
                }
            }
            App::Fetch {
                handle,
                request,
                bytes,
                sent_request,
            } => {
                let s = self.sockets.get_mut::<tcp::Socket>(*handle);
                if !*sent_request && s.may_send() && s.send_capacity() >= *request {
                    let mut req = vec![b' '; *request];
                    let head = b"GET /object HTTP/1.1\r\nHost: server\r\n";
                    let n = head.len().min(req.len());
                    req[..n].copy_from_slice(&head[..n]);
                    if let Some(tail) = req.len().checked_sub(4).and_then(|i| req.get_mut(i..)) {
                        tail.copy_from_slice(b"\r\n\r\n");
                    }
                    if s.send_slice(&req).is_ok() {
                        *sent_request = true;
                        self.stats.sent_bytes += *request as u64;
                    }
                }
                let got = drain(s);
                if got > 0 {
                    self.stats.received(got as u64, now);
                }
                if self.stats.finished.is_none() && self.stats.recv_bytes >= *bytes {
                    self.stats.finished = Some(now);
                    s.close();
                }
                None
            }
            App::Udp {
                handle,
                payload,
                limit,
                until,
                pace,
            } => {
                if self.stats.finished.is_some() {
                    return None;
                }
                let s = self.sockets.get_mut::<udp::Socket>(*handle);
                let data = [0x5au8; 1472];
                let mut wake = None;
                loop {
                    let more = match (*limit, *until) {
                        (Some(l), _) => self.stats.sent_bytes < l,
                        (None, Some(u)) => now < u,
                        _ => false,
                    };
                    if !more {
                        self.stats.finished = Some(now);
                        break;
                    }
                    if let Some((next, gap)) = pace {
                        if *next > now {
                            wake = Some(*next);
                            break;
                        }
                        *next += *gap;
                    }
                    let n = match *limit {
                        Some(l) => {
                            usize::try_from((l - self.stats.sent_bytes).min(*payload as u64))
                                .unwrap_or(*payload)
                        }
                        None => *payload,
                    };
                    if !s.can_send() {
                        break;
                    }
                    let ep = (IpAddress::Ipv4(peer), UDP_SINK_PORT);
                    if s.send_slice(&data[..n], ep).is_err() {
                        break;
                    }
                    self.stats.sent_bytes += n as u64;
                }
                if self.stats.finished.is_none() {
                    if let (None, Some(u)) = (wake, *until) {
                        wake = Some(u);
                    }
                }
                wake
            }
            App::Ping {
                handle,
                count,
                sent,
                next,
                interval,
                size,
                sent_at,
            } => {
                let s = self.sockets.get_mut::<icmp::Socket>(*handle);
                let caps = smoltcp::phy::ChecksumCapabilities::default();
                while let Ok((b, _)) = s.recv() {
                    let Ok(p) = Icmpv4Packet::new_checked(b) else {
                        continue;
                    };
                    if let Ok(Icmpv4Repr::EchoReply { ident, seq_no, .. }) =
                        Icmpv4Repr::parse(&p, &caps)
                    {
                        if ident != ICMP_IDENT {
                            continue;
                        }
                        if let Some(t0) = sent_at.get(usize::from(seq_no)) {
                            let rtt = (now - *t0).as_ns();
                            self.stats.ping_replies += 1;
                            self.stats.rtt_sum_ns += rtt;
                            self.stats.rtt_min_ns =
                                Some(self.stats.rtt_min_ns.map_or(rtt, |m| m.min(rtt)));
                            self.stats.rtt_max_ns =
                                Some(self.stats.rtt_max_ns.map_or(rtt, |m| m.max(rtt)));
                            self.stats.last_rx = Some(now);
                        }
                    }
                }
                if *sent < *count && now >= *next && s.can_send() {
                    let data = vec![0x5au8; *size];
                    let repr = Icmpv4Repr::EchoRequest {
                        ident: ICMP_IDENT,
                        seq_no: u16::try_from(*sent).unwrap_or(u16::MAX),
                        data: &data,
                    };
                    if let Ok(buf) = s.send(repr.buffer_len(), IpAddress::Ipv4(peer)) {
                        let mut p = Icmpv4Packet::new_unchecked(buf);
                        repr.emit(&mut p, &caps);
                        sent_at.push(now);
                        *sent += 1;
                        self.stats.sent_bytes += *size as u64;
                        *next = now + *interval;
                    }
                }
                if *sent < *count {
                    Some(*next)
                } else {
                    None
                }
            }
        }
    }
}

/// Queues as much of a response as `s` takes: `left` octets remain of a
/// response of which `done` went already; the first octets are the status
/// line. Returns the octets queued.
fn serve_response(s: &mut tcp::Socket<'_>, left: u64, done: u64) -> u64 {
    const HEAD: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n";
    let mut queued = 0u64;
    while queued < left && s.can_send() {
        let mut chunk = [0x5au8; 16_384];
        let at = done + queued;
        if at == 0 {
            chunk[..HEAD.len()].copy_from_slice(HEAD);
        }
        let n = usize::try_from((left - queued).min(16_384)).unwrap_or(16_384);
        match s.send_slice(&chunk[..n]) {
            Ok(0) | Err(_) => break,
            Ok(k) => queued += k as u64,
        }
    }
    queued
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two stacks wired back to back with a fixed one-way delay: TCP
    /// delivers every byte, UDP every datagram, ping measures twice the
    /// delay.
    fn run_pair(traffic: Traffic, delay: Time, until: Time) -> (AppStats, AppStats) {
        let (a, b, _) = run_pair_with(traffic, Traffic::None, delay, until);
        (a, b)
    }

    /// The TCP payload of an Ethernet/IPv4 frame, if any.
    fn tcp_payload(f: &[u8]) -> Option<&[u8]> {
        let ip = f.get(14..)?;
        if f.get(12..14)? != [0x08, 0x00] || *ip.get(9)? != 6 {
            return None;
        }
        let ihl = usize::from(ip.first()? & 0x0f) * 4;
        let total = usize::from(u16::from_be_bytes([*ip.get(2)?, *ip.get(3)?]));
        let tcp = ip.get(ihl..total)?;
        let off = usize::from(tcp.get(12)? >> 4) * 4;
        tcp.get(off..).filter(|p| !p.is_empty())
    }

    /// Two stacks back to back; also returns the TCP payloads seen, in
    /// order, with their direction (true: a to b).
    fn run_pair_with(
        traffic: Traffic,
        server: Traffic,
        delay: Time,
        until: Time,
    ) -> (AppStats, AppStats, Vec<(bool, Vec<u8>)>) {
        let mut seen = Vec::new();
        let mut a = Stack::new(
            [2, 0, 0, 0, 0, 1],
            [10, 0, 0, 2],
            [10, 0, 0, 1],
            traffic,
            1,
            Time::ZERO,
        );
        let mut b = Stack::new(
            [2, 0, 0, 0, 0, 2],
            [10, 0, 0, 1],
            [10, 0, 0, 2],
            server,
            2,
            Time::ZERO,
        );
        a.start_traffic(Time::ZERO);
        let mut now = Time::ZERO;
        let mut wire: Vec<(Time, bool, Vec<u8>)> = Vec::new();
        while now < until {
            a.poll(now);
            b.poll(now);
            for f in a.dev.tx.drain(..) {
                if let Some(p) = tcp_payload(&f) {
                    seen.push((true, p.to_vec()));
                }
                wire.push((now + delay, true, f));
            }
            for f in b.dev.tx.drain(..) {
                if let Some(p) = tcp_payload(&f) {
                    seen.push((false, p.to_vec()));
                }
                wire.push((now + delay, false, f));
            }
            let mut keep = Vec::new();
            for (t, to_b, f) in wire.drain(..) {
                if t <= now {
                    if to_b {
                        b.dev.rx.push_back(f);
                    } else {
                        a.dev.rx.push_back(f);
                    }
                } else {
                    keep.push((t, to_b, f));
                }
            }
            wire = keep;
            now += Time::from_us(100);
        }
        (a.stats, b.stats, seen)
    }

    #[test]
    fn fetch_sends_a_get_and_the_server_answers_with_the_object() {
        let (c, s, seen) = run_pair_with(
            Traffic::Fetch {
                request: 300,
                bytes: 100_000,
            },
            Traffic::Serve { bytes: 100_000 },
            Time::from_ms(1),
            Time::from_secs(2),
        );
        // The client sent exactly its request and got every octet of the
        // response; the server got the request and sent the response.
        assert_eq!(c.sent_bytes, 300);
        assert_eq!(c.recv_bytes, 100_000);
        assert!(c.finished.is_some());
        assert_eq!(s.recv_bytes, 300);
        assert_eq!(s.sent_bytes, 100_000);
        // On the wire: the first payload is the GET from the client, the
        // first from the server a 200 OK status line.
        let first_c = seen.iter().find(|(d, _)| *d).unwrap();
        let first_s = seen.iter().find(|(d, _)| !*d).unwrap();
        assert!(first_c.1.starts_with(b"GET /object HTTP/1.1\r\n"));
        assert!(first_s.1.starts_with(b"HTTP/1.1 200 OK\r\n"));
        let up: usize = seen.iter().filter(|(d, _)| *d).map(|(_, p)| p.len()).sum();
        let down: usize = seen.iter().filter(|(d, _)| !*d).map(|(_, p)| p.len()).sum();
        assert_eq!((up, down), (300, 100_000));
    }

    #[test]
    fn tcp_bulk_delivers_every_byte() {
        let (a, b) = run_pair(
            Traffic::TcpBulk { bytes: 200_000 },
            Time::from_us(500),
            Time::from_secs(2),
        );
        assert_eq!(a.sent_bytes, 200_000);
        assert_eq!(b.recv_bytes, 200_000);
        assert!(a.finished.is_some());
    }

    #[test]
    fn udp_bulk_and_ping() {
        let (a, b) = run_pair(
            Traffic::UdpBulk {
                bytes: 14_720,
                payload: 1472,
            },
            Time::from_us(500),
            Time::from_ms(200),
        );
        assert_eq!(a.sent_bytes, 14_720);
        assert_eq!((b.recv_bytes, b.recv_datagrams), (14_720, 10));
        let (a, _) = run_pair(
            Traffic::Ping {
                count: 3,
                interval: Time::from_ms(10),
                size: 32,
            },
            Time::from_ms(1),
            Time::from_ms(100),
        );
        assert_eq!(a.ping_replies, 3);
        // The first echo waits for ARP; later ones take 2 ms (polled every
        // 100 µs).
        assert!(a.rtt_min_ns.unwrap() >= 2_000_000, "{a:?}");
        assert!(a.rtt_min_ns.unwrap() <= 2_200_000, "{a:?}");
    }
}
