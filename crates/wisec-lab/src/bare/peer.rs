//! The initiator of the CCM-UDP exchange on a Linux UDP socket: the Linux
//! side of seed 000's Figure 12 against a responder (the bare machine, or
//! the same responder on Linux).
//!
//! Times are taken with the monotonic clock right after `send_to` returns
//! and right after `recv_from` returns.

use super::BareError;
use serde::Serialize;
use std::collections::BTreeMap;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};
use wisec_bare::wire::{
    self, Channel, Kind, Message, Reject, Sender, HEADER_LEN, KEY_LEN, MAX_PAYLOAD,
};

/// The initiator.
#[derive(Debug)]
pub struct Peer {
    sock: UdpSocket,
    to: SocketAddr,
    ch: Channel,
    session: u32,
    buf: Vec<u8>,
    /// Datagrams received that were not accepted, by reason.
    pub rejected: BTreeMap<&'static str, u64>,
    /// Accepted datagrams of another session or kind than expected.
    pub stray: u64,
    /// Line rate the sender paces its streams to, Mb/s (0: no pacing).
    pub line_mbps: f64,
}

/// A report, as `name → values`.
pub type ReportMap = BTreeMap<String, Vec<String>>;

/// Parses a report's text.
pub fn parse_report(text: &str) -> ReportMap {
    text.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let k = it.next()?;
            Some((k.to_string(), it.map(str::to_string).collect()))
        })
        .collect()
}

/// Value `i` of report line `name` as an integer.
pub fn report_u64(r: &ReportMap, name: &str, i: usize) -> Option<u64> {
    r.get(name)?.get(i)?.parse().ok()
}

/// Round trips of one echo run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EchoRun {
    /// Echoes sent.
    pub sent: u32,
    /// Answers whose tag, PN, session and data verified.
    pub verified: u32,
    /// Echoes with no verified answer in time.
    pub lost: u32,
    /// Round-trip times of the verified echoes, ns.
    pub rtt_ns: Vec<u64>,
}

/// Figure 12 with this end as the client (the responder serves a stream).
#[derive(Debug, Clone, Default, Serialize)]
pub struct ClientRun {
    /// DATA received, plain and protected (each verified).
    pub received: [u32; 2],
    /// DATA with a wrong index, count, length or content.
    pub wrong: u32,
    /// D0 = CT1 − CT0, ms (plain).
    pub d0_ms: Option<f64>,
    /// D1 = CT3 − CT2, ms (protected).
    pub d1_ms: Option<f64>,
    /// D5 = WT3 − WT2: protected request sent to last protected DATA
    /// received, ms.
    pub d5_ms: Option<f64>,
}

/// Figure 12 with this end as the server (the responder is the client).
#[derive(Debug, Clone, Default, Serialize)]
pub struct ServerRun {
    /// DATA sent, plain and protected.
    pub sent: [u32; 2],
    /// D2 = ST1 − ST0, ms: plain request received to m-th DATA sent.
    pub d2_ms: Option<f64>,
    /// D3 = ST3 − ST2, ms: protected request received to m-th DATA sent.
    pub d3_ms: Option<f64>,
    /// D5 = WT3 − WT2 seen at this end: protected request received to the
    /// last protected DATA sent, ms.
    pub d5_ms: Option<f64>,
}

/// One received phase: DATA counted and wrong, the first arrival (CT0 or
/// CT2), the m-th processed (CT1 or CT3), the last arrival (WT3).
struct Phase {
    count: u32,
    wrong: u32,
    first: Option<Instant>,
    done: Option<Instant>,
    last: Option<Instant>,
}

fn ms(a: Option<Instant>, b: Option<Instant>) -> Option<f64> {
    Some(b?.checked_duration_since(a?)?.as_secs_f64() * 1e3)
}

impl Peer {
    /// An initiator on `sock` talking to `to` with `key` (none: plain
    /// messages only). The socket's receive buffer is enlarged so that a
    /// stream of datagrams is not dropped while the peer is busy.
    pub fn new(sock: UdpSocket, to: SocketAddr, key: Option<&[u8; KEY_LEN]>) -> Peer {
        let _ =
            nix::sys::socket::setsockopt(&sock, nix::sys::socket::sockopt::RcvBufForce, &(8 << 20))
                .or_else(|_| {
                    nix::sys::socket::setsockopt(
                        &sock,
                        nix::sys::socket::sockopt::RcvBuf,
                        &(8 << 20),
                    )
                });
        Peer {
            sock,
            to,
            ch: Channel::new(key, Sender::Initiator),
            session: std::process::id().rotate_left(16) ^ 0x5eed,
            buf: vec![0u8; 65536],
            rejected: BTreeMap::new(),
            stray: 0,
            line_mbps: 0.0,
        }
    }

    /// A peer on a fresh loopback socket.
    pub fn connect(to: SocketAddr, key: Option<&[u8; KEY_LEN]>) -> Result<Peer, BareError> {
        let bind = if to.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" };
        let sock =
            UdpSocket::bind(bind).map_err(|e| BareError::Io("binding a UDP socket".into(), e))?;
        Ok(Peer::new(sock, to, key))
    }

    /// The responder's address.
    pub fn to(&self) -> SocketAddr {
        self.to
    }

    /// Starts a new session number.
    pub fn next_session(&mut self) -> u32 {
        self.session = self.session.wrapping_add(1);
        self.session
    }

    /// Builds a message (header, body, tag) without sending it.
    pub fn build(
        &mut self,
        kind: Kind,
        protected: bool,
        body: &[u8],
    ) -> Result<Vec<u8>, BareError> {
        let mut b = vec![0u8; HEADER_LEN + body.len() + wire::TAG_LEN];
        b[HEADER_LEN..HEADER_LEN + body.len()].copy_from_slice(body);
        let n = self
            .ch
            .finish(&mut b, kind, protected, self.session, body.len())
            .ok_or_else(|| {
                BareError::Usage(format!(
                    "cannot build a {kind:?} of {} octets{}",
                    body.len(),
                    if protected && !self.ch.keyed() {
                        " protected without a key"
                    } else {
                        ""
                    }
                ))
            })?;
        b.truncate(n);
        Ok(b)
    }

    /// Sends raw octets to the responder; returns the time taken just
    /// before the send (a reply can arrive before `send_to` returns when
    /// this thread is descheduled).
    pub fn send_raw(&self, payload: &[u8]) -> Result<Instant, BareError> {
        let t = Instant::now();
        self.sock
            .send_to(payload, self.to)
            .map_err(|e| BareError::Io(format!("sending to {}", self.to), e))?;
        Ok(t)
    }

    fn send(&mut self, kind: Kind, protected: bool, body: &[u8]) -> Result<Instant, BareError> {
        let m = self.build(kind, protected, body)?;
        self.send_raw(&m)
    }

    /// Receives the next accepted message of the current session until
    /// `deadline`: the message, a copy of its payload and when it arrived.
    /// Datagrams that are not accepted are counted in `rejected`.
    pub fn recv(
        &mut self,
        deadline: Instant,
    ) -> Result<Option<(Message, Vec<u8>, Instant)>, BareError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            self.sock
                .set_read_timeout(Some(left.max(Duration::from_micros(100))))
                .map_err(|e| BareError::Io("setting a socket timeout".into(), e))?;
            let (n, from) = match self.sock.recv_from(&mut self.buf) {
                Ok(x) => x,
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return Ok(None)
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(BareError::Io(format!("receiving from {}", self.to), e)),
            };
            let at = Instant::now();
            if from != self.to {
                self.stray += 1;
                continue;
            }
            let mut payload = self.buf[..n].to_vec();
            match self.ch.read(&mut payload) {
                Ok(m) if m.header.session == self.session => return Ok(Some((m, payload, at))),
                Ok(_) => self.stray += 1,
                Err(r) => *self.rejected.entry(r.name()).or_default() += 1,
            }
        }
    }

    /// `m` echoes of `n` octets, one at a time, each answer verified (tag,
    /// PN, session, kind and data); `timeout` per echo.
    pub fn echo(
        &mut self,
        m: u32,
        n: usize,
        protected: bool,
        timeout: Duration,
    ) -> Result<EchoRun, BareError> {
        self.next_session();
        let mut r = EchoRun::default();
        let mut data = vec![0u8; n];
        for i in 0..m {
            wire::fill_pattern(i, &mut data);
            let t0 = self.send(Kind::Echo, protected, &data)?;
            r.sent += 1;
            let deadline = t0 + timeout;
            let mut ok = false;
            while let Some((msg, p, at)) = self.recv(deadline)? {
                if msg.header.kind == Kind::EchoReply
                    && msg.header.protected == protected
                    && msg.data(&p) == data.as_slice()
                {
                    r.rtt_ns.push(at.duration_since(t0).as_nanos() as u64);
                    ok = true;
                    break;
                }
                self.stray += 1;
            }
            if ok {
                r.verified += 1;
            } else {
                r.lost += 1;
            }
        }
        Ok(r)
    }

    fn body(m: u32, n: usize, fields: &[u32]) -> Vec<u8> {
        let mut b: Vec<u8> = fields.iter().flat_map(|f| f.to_be_bytes()).collect();
        b.extend(std::iter::repeat_n(0u8, n));
        let _ = m;
        b
    }

    /// Receives the `m` DATA of one phase.
    fn receive_phase(
        &mut self,
        m: u32,
        n: usize,
        protected: bool,
        deadline: Instant,
    ) -> Result<Phase, BareError> {
        let (mut count, mut wrong) = (0u32, 0u32);
        let (mut first, mut done, mut last) = (None, None, None);
        while count < m {
            let Some((msg, p, at)) = self.recv(deadline)? else {
                break;
            };
            if msg.header.kind != Kind::Data || msg.header.protected != protected {
                self.stray += 1;
                continue;
            }
            first.get_or_insert(at);
            last = Some(at);
            let index = msg.field(&p, 0).unwrap_or(u32::MAX);
            let mm = msg.field(&p, 4).unwrap_or(0);
            let d = msg.data(&p);
            if index >= m || mm != m || d.len() != n || !wire::is_pattern(index, d) {
                wrong += 1;
            }
            count += 1;
            // The m-th datagram, or the last one when some were lost.
            if count == m || index == m - 1 {
                done = Some(Instant::now());
                break;
            }
        }
        Ok(Phase {
            count,
            wrong,
            first,
            done,
            last,
        })
    }

    /// Figure 12 as the client: a plain STREAM request, m plain DATA, a
    /// protected request, m protected DATA. `timeout` per phase.
    pub fn stream(&mut self, m: u32, n: usize, timeout: Duration) -> Result<ClientRun, BareError> {
        self.next_session();
        let mut r = ClientRun::default();
        let body = Self::body(m, n, &[m]);
        let t = self.send(Kind::Stream, false, &body)?;
        let p = self.receive_phase(m, n, false, t + timeout)?;
        r.received[0] = p.count;
        r.wrong += p.wrong;
        r.d0_ms = ms(p.first, p.done);
        if !self.ch.keyed() {
            return Ok(r);
        }
        let wt2 = self.send(Kind::Stream, true, &body)?;
        let p = self.receive_phase(m, n, true, wt2 + timeout)?;
        r.received[1] = p.count;
        r.wrong += p.wrong;
        r.d1_ms = ms(p.first, p.done);
        if p.done.is_some() {
            r.d5_ms = ms(Some(wt2), p.last);
        }
        Ok(r)
    }

    fn pace(&self, next: &mut Instant, frame_octets: usize) {
        if self.line_mbps <= 0.0 {
            return;
        }
        // Yield rather than spin: on a small machine the responder (QEMU's
        // threads) needs the cores this thread would burn.
        while Instant::now() < *next {
            std::thread::yield_now();
        }
        // The line time of the frame: Ethernet, IPv4, UDP headers, FCS,
        // preamble and inter-frame gap (24 octets; IEEE Std 802.3, 4.4.2).
        let bits = (frame_octets + 14 + 20 + 8 + 24) as f64 * 8.0;
        *next += Duration::from_secs_f64(bits / (self.line_mbps * 1e6));
    }

    fn send_phase(
        &mut self,
        m: u32,
        n: usize,
        protected: bool,
    ) -> Result<(u32, Instant), BareError> {
        let mut data = vec![0u8; 8 + n];
        let mut next = Instant::now();
        let mut sent = 0;
        for i in 0..m {
            data[..4].copy_from_slice(&i.to_be_bytes());
            data[4..8].copy_from_slice(&m.to_be_bytes());
            wire::fill_pattern(i, &mut data[8..]);
            let msg = self.build(Kind::Data, protected, &data)?;
            self.pace(&mut next, msg.len());
            self.send_raw(&msg)?;
            sent += 1;
        }
        Ok((sent, Instant::now()))
    }

    fn wait_request(
        &mut self,
        protected: bool,
        deadline: Instant,
    ) -> Result<Option<(u32, usize, Instant)>, BareError> {
        while let Some((msg, p, at)) = self.recv(deadline)? {
            if msg.header.kind == Kind::Stream && msg.header.protected == protected {
                let m = msg.field(&p, 0).unwrap_or(0);
                return Ok(Some((m, msg.data(&p).len(), at)));
            }
            self.stray += 1;
        }
        Ok(None)
    }

    /// Figure 12 as the server: a SINK makes the responder the client; its
    /// plain request is answered with m plain DATA, its protected one with
    /// m protected DATA. `timeout` per phase.
    pub fn sink(&mut self, m: u32, n: usize, timeout: Duration) -> Result<ServerRun, BareError> {
        self.next_session();
        let mut r = ServerRun::default();
        let body = Self::body(m, n, &[m]);
        let t = self.send(Kind::Sink, false, &body)?;
        let Some((rm, rn, st0)) = self.wait_request(false, t + timeout)? else {
            return Err(BareError::Guest(
                "the responder did not send its plain request".into(),
            ));
        };
        if rm != m || rn != n {
            return Err(BareError::Guest(format!(
                "the responder asked for {rm} datagrams of {rn} octets, not {m} of {n}"
            )));
        }
        let (sent, st1) = self.send_phase(m, n, false)?;
        r.sent[0] = sent;
        r.d2_ms = ms(Some(st0), Some(st1));
        if !self.ch.keyed() {
            return Ok(r);
        }
        let Some((_, _, st2)) = self.wait_request(true, st1 + timeout)? else {
            return Ok(r);
        };
        let (sent, st3) = self.send_phase(m, n, true)?;
        r.sent[1] = sent;
        r.d3_ms = ms(Some(st2), Some(st3));
        r.d5_ms = r.d3_ms;
        Ok(r)
    }

    /// Asks for the responder's report (up to three times, each waiting a
    /// third of `timeout`: a request or its answer may be lost on a busy
    /// host, and asking again changes nothing but the counters).
    pub fn report(&mut self, protected: bool, timeout: Duration) -> Result<ReportMap, BareError> {
        self.next_session();
        for _ in 0..3 {
            let t = self.send(Kind::ReportRequest, protected, &[])?;
            while let Some((msg, p, _)) = self.recv(t + timeout / 3)? {
                if msg.header.kind == Kind::Report {
                    return Ok(parse_report(&String::from_utf8_lossy(msg.body(&p))));
                }
                self.stray += 1;
            }
        }
        Err(BareError::Guest(format!(
            "no report from {} within {} s",
            self.to,
            timeout.as_secs_f64()
        )))
    }

    /// Rejections of `r` counted so far.
    pub fn rejected(&self, r: Reject) -> u64 {
        self.rejected.get(r.name()).copied().unwrap_or(0)
    }

    /// The largest valid payload, for tests of oversized messages.
    pub const MAX_PAYLOAD: usize = MAX_PAYLOAD;
}
