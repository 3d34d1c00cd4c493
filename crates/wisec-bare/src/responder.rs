//! The responder of the CCM-UDP exchange, sans I/O: the bare machine's
//! application, and the same code on a Linux socket for the Linux-to-Linux
//! runs.
//!
//! [`Responder::handle`] takes one received UDP payload, the time its
//! frame was seen, and a [`Link`] that gives the clock and sends answers.
//! It verifies and decrypts, answers, and keeps the counters and the
//! timings of seed 000's Figure 12, measured on the link's clock (the TSC
//! on the bare machine):
//!
//! - as the server of a stream (a STREAM request from the initiator):
//!   ST0/ST2 when the plain/protected request's frame was seen, ST1/ST3
//!   when the m-th DATA message was handed to the NIC; D2 = ST1 − ST0 and
//!   D3 = ST3 − ST2 ("process and send m datagrams", protected: "encrypt,
//!   process and send");
//! - as the client (after a SINK): CT0/CT2 when the first plain/protected
//!   DATA frame was seen, CT1/CT3 when the m-th was processed (verified and
//!   decrypted); D0 = CT1 − CT0 and D1 = CT3 − CT2;
//! - per ECHO: from the frame seen to the body verified and decrypted
//!   (open), from there to the answer handed to the NIC (reply), and the
//!   sum (total), summed over the echoes, plain and protected apart.

use crate::wire::{self, Channel, Kind, Reject, Sender, HEADER_LEN, KEY_LEN, MAX_COUNT};
use core::fmt::Write;

/// What the responder needs from its platform.
pub trait Link<A> {
    /// The clock, in ticks of the rate given to [`Responder::new`].
    fn now(&mut self) -> u64;

    /// Sends one datagram to `to`: `fill` writes the UDP payload at the
    /// start of the buffer it is given and returns its length (0: nothing
    /// to send). Returns false when nothing was sent.
    fn send(&mut self, to: &A, fill: &mut dyn FnMut(&mut [u8]) -> usize) -> bool;

    /// Extra `name value` lines for a report (the platform's own counters).
    fn report_extra(&mut self, out: &mut dyn Write) -> core::fmt::Result {
        let _ = out;
        Ok(())
    }
}

/// Summed times of a kind of echo, in ticks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EchoTally {
    /// Echoes answered.
    pub count: u64,
    /// Frame seen → body verified and decrypted.
    pub open: u64,
    /// Body verified → answer encrypted and handed to the NIC.
    pub reply: u64,
    /// Frame seen → answer handed to the NIC.
    pub total: u64,
    /// The shortest and the longest echo (frame seen → answer handed on).
    pub min_max: Option<(u64, u64)>,
}

/// The last stream this end served (Figure 12's server side).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamSide {
    /// The initiator's session.
    pub session: u32,
    /// Datagrams per phase.
    pub m: u32,
    /// Data octets per datagram.
    pub n: u32,
    /// ST0..ST3.
    pub st: [Option<u64>; 4],
    /// DATA messages handed to the NIC, plain and protected.
    pub sent: [u32; 2],
}

/// The last sink this end ran (Figure 12's client side).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SinkSide<A> {
    /// Where the DATA comes from and the requests go.
    pub peer: A,
    /// The initiator's session.
    pub session: u32,
    /// Datagrams per phase.
    pub m: u32,
    /// Data octets per datagram.
    pub n: u32,
    /// CT0..CT3.
    pub ct: [Option<u64>; 4],
    /// DATA messages received, plain and protected.
    pub received: [u32; 2],
    /// DATA messages whose index, count, length or content was wrong.
    pub wrong: u32,
    /// Whether each phase ended (the m-th DATA, or the one with index
    /// m - 1, arrived).
    pub done: [bool; 2],
}

/// Counters of everything handed to [`Responder::handle`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Messages accepted, plain and protected.
    pub accepted: [u64; 2],
    /// Rejections, in the order of [`Reject::ALL`].
    pub rejected: [u64; 6],
    /// Accepted messages that fit no exchange in progress (DATA without a
    /// sink, a zero or too large count).
    pub unexpected: u64,
    /// Answers the link could not send.
    pub tx_failed: u64,
}

impl Counters {
    /// The count of one kind of rejection.
    pub fn rejected(&self, r: Reject) -> u64 {
        Reject::ALL
            .iter()
            .position(|x| *x == r)
            .map_or(0, |i| self.rejected[i])
    }

    fn reject(&mut self, r: Reject) {
        if let Some(i) = Reject::ALL.iter().position(|x| *x == r) {
            self.rejected[i] += 1;
        }
    }
}

/// The responder.
#[derive(Debug)]
pub struct Responder<A> {
    ch: Channel,
    hz: u64,
    platform: &'static str,
    started: u64,
    /// Message counters.
    pub counters: Counters,
    /// Echo timings, plain (0) and protected (1).
    pub echo: [EchoTally; 2],
    /// The last stream served.
    pub stream: StreamSide,
    /// The last sink run.
    pub sink: Option<SinkSide<A>>,
}

/// Writes into a byte buffer, failing when it is full.
pub struct ByteWriter<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl<'a> ByteWriter<'a> {
    /// A writer at the start of `buf`.
    pub fn new(buf: &'a mut [u8]) -> ByteWriter<'a> {
        ByteWriter { buf, len: 0 }
    }

    /// Octets written.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// True when nothing was written.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Write for ByteWriter<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len + s.len();
        let dst = self.buf.get_mut(self.len..end).ok_or(core::fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

fn span(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    b?.checked_sub(a?)
}

impl<A: Copy> Responder<A> {
    /// A responder with a 16-octet key (or none: plain messages only), a
    /// clock of `hz` ticks per second that reads `now` at start, and a
    /// platform name for its reports.
    pub fn new(key: Option<&[u8; KEY_LEN]>, hz: u64, now: u64, platform: &'static str) -> Self {
        Responder {
            ch: Channel::new(key, Sender::Responder),
            hz,
            platform,
            started: now,
            counters: Counters::default(),
            echo: [EchoTally::default(); 2],
            stream: StreamSide::default(),
            sink: None,
        }
    }

    /// The clock rate.
    pub const fn hz(&self) -> u64 {
        self.hz
    }

    /// True when the responder has a key.
    pub const fn keyed(&self) -> bool {
        self.ch.keyed()
    }

    /// Counts a rejection found below the responder (an IPv4 fragment is
    /// an oversized message).
    pub fn reject(&mut self, r: Reject) {
        self.counters.reject(r);
    }

    /// Handles the UDP payload of a frame seen at `arrived` from `from`.
    /// The payload is decrypted in place.
    pub fn handle<L: Link<A>>(&mut self, arrived: u64, from: A, payload: &mut [u8], link: &mut L) {
        let msg = match self.ch.read(payload) {
            Ok(m) => m,
            Err(r) => {
                self.counters.reject(r);
                return;
            }
        };
        let p = usize::from(msg.header.protected);
        self.counters.accepted[p] += 1;
        let session = msg.header.session;
        let protected = msg.header.protected;
        match msg.header.kind {
            Kind::Echo => {
                let opened = link.now();
                let data = msg.data(payload);
                let ch = &mut self.ch;
                let sent = link.send(&from, &mut |buf| {
                    let Some(dst) = buf.get_mut(HEADER_LEN..HEADER_LEN + data.len()) else {
                        return 0;
                    };
                    dst.copy_from_slice(data);
                    ch.finish(buf, Kind::EchoReply, protected, session, data.len())
                        .unwrap_or(0)
                });
                let done = link.now();
                if !sent {
                    self.counters.tx_failed += 1;
                    return;
                }
                let t = &mut self.echo[p];
                t.count += 1;
                t.open += opened.saturating_sub(arrived);
                t.reply += done.saturating_sub(opened);
                let one = done.saturating_sub(arrived);
                t.total += one;
                t.min_max = Some(
                    t.min_max
                        .map_or((one, one), |(a, b)| (a.min(one), b.max(one))),
                );
            }
            Kind::Stream => {
                let Some(m) = msg
                    .field(payload, 0)
                    .filter(|m| (1..=MAX_COUNT).contains(m))
                else {
                    self.counters.unexpected += 1;
                    return;
                };
                let n = msg.data(payload).len();
                if self.stream.session != session || self.stream.m != m || self.stream.n != n as u32
                {
                    self.stream = StreamSide {
                        session,
                        m,
                        n: n as u32,
                        ..StreamSide::default()
                    };
                }
                self.stream.st[2 * p] = Some(arrived);
                self.stream.st[2 * p + 1] = None;
                self.stream.sent[p] = 0;
                for i in 0..m {
                    if self.send_data(link, &from, session, protected, i, m, n) {
                        self.stream.sent[p] += 1;
                    } else {
                        self.counters.tx_failed += 1;
                    }
                }
                self.stream.st[2 * p + 1] = Some(link.now());
            }
            Kind::Sink => {
                let Some(m) = msg
                    .field(payload, 0)
                    .filter(|m| (1..=MAX_COUNT).contains(m))
                else {
                    self.counters.unexpected += 1;
                    return;
                };
                let n = msg.data(payload).len() as u32;
                self.sink = Some(SinkSide {
                    peer: from,
                    session,
                    m,
                    n,
                    ct: [None; 4],
                    received: [0; 2],
                    wrong: 0,
                    done: [false; 2],
                });
                // Figure 12: the client's first request is plain.
                self.request(link, false);
            }
            Kind::Data => self.data(arrived, &msg, payload, link),
            Kind::ReportRequest => {
                let sent = self.report(link, &from, session, protected);
                if !sent {
                    self.counters.tx_failed += 1;
                }
            }
            // Header::parse refuses these from an initiator.
            Kind::EchoReply | Kind::Report => self.counters.unexpected += 1,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn send_data<L: Link<A>>(
        &mut self,
        link: &mut L,
        to: &A,
        session: u32,
        protected: bool,
        index: u32,
        m: u32,
        n: usize,
    ) -> bool {
        let ch = &mut self.ch;
        link.send(to, &mut |buf| {
            let Some(body) = buf.get_mut(HEADER_LEN..HEADER_LEN + 8 + n) else {
                return 0;
            };
            body[..4].copy_from_slice(&index.to_be_bytes());
            body[4..8].copy_from_slice(&m.to_be_bytes());
            wire::fill_pattern(index, &mut body[8..]);
            ch.finish(buf, Kind::Data, protected, session, 8 + n)
                .unwrap_or(0)
        })
    }

    /// Sends the sink's STREAM request, plain or protected.
    fn request<L: Link<A>>(&mut self, link: &mut L, protected: bool) {
        let Some(s) = self.sink else {
            return;
        };
        let ch = &mut self.ch;
        let sent = link.send(&s.peer, &mut |buf| {
            let n = s.n as usize;
            let Some(body) = buf.get_mut(HEADER_LEN..HEADER_LEN + 4 + n) else {
                return 0;
            };
            body[..4].copy_from_slice(&s.m.to_be_bytes());
            wire::fill_pattern(0, &mut body[4..]);
            ch.finish(buf, Kind::Stream, protected, s.session, 4 + n)
                .unwrap_or(0)
        });
        if !sent {
            self.counters.tx_failed += 1;
        }
    }

    fn data<L: Link<A>>(
        &mut self,
        arrived: u64,
        msg: &wire::Message,
        payload: &[u8],
        link: &mut L,
    ) {
        let p = usize::from(msg.header.protected);
        let Some(s) = self
            .sink
            .as_mut()
            .filter(|s| s.session == msg.header.session)
        else {
            self.counters.unexpected += 1;
            return;
        };
        if s.received[p] >= s.m {
            self.counters.unexpected += 1;
            return;
        }
        if s.ct[2 * p].is_none() {
            s.ct[2 * p] = Some(arrived);
        }
        let index = msg.field(payload, 0).unwrap_or(u32::MAX);
        let m = msg.field(payload, 4).unwrap_or(0);
        let data = msg.data(payload);
        if index >= s.m || m != s.m || data.len() != s.n as usize || !wire::is_pattern(index, data)
        {
            s.wrong += 1;
        }
        s.received[p] += 1;
        // A phase ends with its m-th datagram, or with the last one (index
        // m - 1) when some were lost on the way.
        if !s.done[p] && (s.received[p] == s.m || index == s.m - 1) {
            s.done[p] = true;
            s.ct[2 * p + 1] = Some(link.now());
            if p == 0 && self.ch.keyed() {
                // The plain phase processed: the protected request.
                self.request(link, true);
            }
        }
    }

    /// Sends a REPORT to `to`.
    fn report<L: Link<A>>(&mut self, link: &mut L, to: &A, session: u32, protected: bool) -> bool {
        let snap = Snapshot {
            platform: self.platform,
            hz: self.hz,
            keyed: self.ch.keyed(),
            uptime: link.now().saturating_sub(self.started),
            pn_out: self.ch.next_pn() - 1,
            pn_in: self.ch.highest_peer(),
            counters: self.counters,
            echo: self.echo,
            stream: self.stream,
            sink: self
                .sink
                .map(|s| (s.session, s.m, s.n, s.ct, s.received, s.wrong)),
        };
        // The platform's lines follow the responder's.
        let mut extra = [0u8; 512];
        let mut w = ByteWriter::new(&mut extra);
        let _ = link.report_extra(&mut w);
        let extra_len = w.len();
        let ch = &mut self.ch;
        link.send(to, &mut |buf| {
            let cap = buf.len().saturating_sub(HEADER_LEN + wire::TAG_LEN);
            let Some(dst) = buf.get_mut(HEADER_LEN..HEADER_LEN + cap) else {
                return 0;
            };
            let mut w = ByteWriter::new(dst);
            if snap.write(&mut w).is_err() {
                return 0;
            }
            let mut len = w.len();
            if let Some(d) = dst.get_mut(len..len + extra_len) {
                d.copy_from_slice(&extra[..extra_len]);
                len += extra_len;
            }
            ch.finish(buf, Kind::Report, protected, session, len)
                .unwrap_or(0)
        })
    }
}

type SinkSnap = (u32, u32, u32, [Option<u64>; 4], [u32; 2], u32);

struct Snapshot {
    platform: &'static str,
    hz: u64,
    keyed: bool,
    uptime: u64,
    pn_out: u64,
    pn_in: u64,
    counters: Counters,
    echo: [EchoTally; 2],
    stream: StreamSide,
    sink: Option<SinkSnap>,
}

impl Snapshot {
    fn write(&self, w: &mut dyn Write) -> core::fmt::Result {
        writeln!(w, "wisec-bare {}", wire::VERSION)?;
        writeln!(w, "platform {}", self.platform)?;
        writeln!(w, "hz {}", self.hz)?;
        writeln!(w, "uptime_ticks {}", self.uptime)?;
        writeln!(w, "keyed {}", u8::from(self.keyed))?;
        writeln!(w, "pn_sent {}", self.pn_out)?;
        writeln!(w, "pn_accepted {}", self.pn_in)?;
        let c = &self.counters;
        writeln!(w, "accepted_plain {}", c.accepted[0])?;
        writeln!(w, "accepted_protected {}", c.accepted[1])?;
        for (r, n) in Reject::ALL.iter().zip(c.rejected) {
            writeln!(w, "{} {n}", r.name())?;
        }
        writeln!(w, "unexpected {}", c.unexpected)?;
        writeln!(w, "tx_failed {}", c.tx_failed)?;
        for (name, t) in ["plain", "protected"].iter().zip(&self.echo) {
            let (min, max) = t.min_max.unwrap_or((0, 0));
            writeln!(
                w,
                "echo_{name} {} {} {} {} {min} {max}",
                t.count, t.open, t.reply, t.total
            )?;
        }
        let s = &self.stream;
        if s.m > 0 {
            writeln!(w, "stream {} {} {}", s.session, s.m, s.n)?;
            writeln!(w, "stream_sent {} {}", s.sent[0], s.sent[1])?;
            if let Some(d) = span(s.st[0], s.st[1]) {
                writeln!(w, "d2_ticks {d}")?;
            }
            if let Some(d) = span(s.st[2], s.st[3]) {
                writeln!(w, "d3_ticks {d}")?;
            }
        }
        if let Some((session, m, n, ct, received, wrong)) = self.sink {
            writeln!(w, "sink {session} {m} {n}")?;
            writeln!(w, "sink_received {} {}", received[0], received[1])?;
            writeln!(w, "sink_wrong {wrong}")?;
            if let Some(d) = span(ct[0], ct[1]) {
                writeln!(w, "d0_ticks {d}")?;
            }
            if let Some(d) = span(ct[2], ct[3]) {
                writeln!(w, "d1_ticks {d}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{vec, vec::Vec};

    /// A link that keeps what was sent and a clock that ticks by 10 per
    /// reading.
    struct Loop {
        t: u64,
        sent: Vec<(u8, Vec<u8>)>,
    }

    impl Link<u8> for Loop {
        fn now(&mut self) -> u64 {
            self.t += 10;
            self.t
        }
        fn send(&mut self, to: &u8, fill: &mut dyn FnMut(&mut [u8]) -> usize) -> bool {
            let mut buf = vec![0u8; 1458];
            let n = fill(&mut buf);
            if n == 0 {
                return false;
            }
            buf.truncate(n);
            self.sent.push((*to, buf));
            true
        }
        fn report_extra(&mut self, out: &mut dyn Write) -> core::fmt::Result {
            writeln!(out, "frames_rx 42")
        }
    }

    const KEY: [u8; 16] = [0x42; 16];

    fn msg(ch: &mut Channel, kind: Kind, protected: bool, session: u32, body: &[u8]) -> Vec<u8> {
        let mut buf = vec![0u8; 1600];
        buf[HEADER_LEN..HEADER_LEN + body.len()].copy_from_slice(body);
        let n = ch
            .finish(&mut buf, kind, protected, session, body.len())
            .unwrap();
        buf.truncate(n);
        buf
    }

    fn report(r: &mut Responder<u8>, ini: &mut Channel, link: &mut Loop) -> std::string::String {
        let mut m = msg(ini, Kind::ReportRequest, true, 5, &[]);
        r.handle(0, 1, &mut m, link);
        let (_, mut rep) = link.sent.pop().unwrap();
        let got = ini.read(&mut rep).unwrap();
        assert_eq!(got.header.kind, Kind::Report);
        std::string::String::from_utf8(got.body(&rep).to_vec()).unwrap()
    }

    #[test]
    fn echoes_are_answered_under_the_responders_own_pns_and_timed() {
        let mut ini = Channel::new(Some(&KEY), Sender::Initiator);
        let mut r = Responder::new(Some(&KEY), 1000, 0, "test");
        let mut link = Loop {
            t: 0,
            sent: Vec::new(),
        };
        for i in 0..3u8 {
            let mut m = msg(&mut ini, Kind::Echo, true, 5, &[i; 33]);
            r.handle(link.t, 9, &mut m, &mut link);
        }
        assert_eq!(link.sent.len(), 3);
        for (i, (to, reply)) in link.sent.iter().enumerate() {
            assert_eq!(*to, 9);
            let mut reply = reply.clone();
            let got = ini.read(&mut reply).unwrap();
            assert_eq!(got.header.kind, Kind::EchoReply);
            assert_eq!(got.header.pn, i as u64 + 1);
            assert_eq!(got.data(&reply), &[i as u8; 33]);
        }
        assert_eq!(r.echo[1].count, 3);
        assert_eq!(r.echo[1].open, 30);
        assert_eq!(r.echo[1].total, 60);
        // A replayed echo is counted and not answered.
        let mut again = msg(&mut ini, Kind::Echo, true, 5, b"x");
        let copy = again.clone();
        r.handle(0, 9, &mut again, &mut link);
        r.handle(0, 9, &mut copy.clone(), &mut link);
        assert_eq!(r.counters.rejected(Reject::Replay), 1);
        assert_eq!(link.sent.len(), 4);
        link.sent.clear();
        let text = report(&mut r, &mut ini, &mut link);
        assert!(text.contains("echo_protected 4 "), "{text}");
        assert!(text.contains("rejected_replay 1\n"), "{text}");
        assert!(text.ends_with("frames_rx 42\n"), "{text}");
    }

    #[test]
    fn a_stream_sends_m_patterned_datagrams_and_times_d2_d3() {
        let mut ini = Channel::new(Some(&KEY), Sender::Initiator);
        let mut r = Responder::new(Some(&KEY), 1000, 0, "test");
        let mut link = Loop {
            t: 100,
            sent: Vec::new(),
        };
        let mut body = 5u32.to_be_bytes().to_vec();
        body.extend_from_slice(&[0; 50]);
        let mut req = msg(&mut ini, Kind::Stream, false, 7, &body);
        r.handle(100, 3, &mut req, &mut link);
        let mut preq = msg(&mut ini, Kind::Stream, true, 7, &body);
        r.handle(200, 3, &mut preq, &mut link);
        assert_eq!(link.sent.len(), 10);
        for (k, (_, d)) in link.sent.iter().enumerate() {
            let mut d = d.clone();
            let got = ini.read(&mut d).unwrap();
            assert_eq!(got.header.protected, k >= 5);
            let i = (k % 5) as u32;
            assert_eq!(got.field(&d, 0), Some(i));
            assert_eq!(got.field(&d, 4), Some(5));
            assert!(wire::is_pattern(i, got.data(&d)));
            assert_eq!(got.data(&d).len(), 50);
        }
        // ST1 is the clock after the 5th send (the Loop link's clock moved
        // once, by 10, per stream).
        assert_eq!(r.stream.st, [Some(100), Some(110), Some(200), Some(120)]);
        link.sent.clear();
        let text = report(&mut r, &mut ini, &mut link);
        assert!(text.contains("stream 7 5 50\n"), "{text}");
        assert!(text.contains("d2_ticks 10\n"), "{text}");
        assert!(!text.contains("d3_ticks"), "ST3 < ST2 is no span: {text}");
    }

    #[test]
    fn a_sink_requests_plain_then_protected_data_and_times_d0_d1() {
        let mut ini = Channel::new(Some(&KEY), Sender::Initiator);
        let mut r = Responder::new(Some(&KEY), 1000, 0, "test");
        let mut link = Loop {
            t: 0,
            sent: Vec::new(),
        };
        let mut body = 3u32.to_be_bytes().to_vec();
        body.extend_from_slice(&[0; 20]);
        let mut sink = msg(&mut ini, Kind::Sink, false, 11, &body);
        r.handle(0, 4, &mut sink, &mut link);
        let (to, mut req) = link.sent.pop().unwrap();
        assert_eq!(to, 4);
        let got = ini.read(&mut req).unwrap();
        assert_eq!(
            (got.header.kind, got.header.protected),
            (Kind::Stream, false)
        );
        assert_eq!(got.field(&req, 0), Some(3));
        link.t = 5000;
        for protected in [false, true] {
            for i in 0..3u32 {
                let mut b = i.to_be_bytes().to_vec();
                b.extend_from_slice(&3u32.to_be_bytes());
                let mut data = [0u8; 20];
                wire::fill_pattern(i, &mut data);
                b.extend_from_slice(&data);
                let mut d = msg(&mut ini, Kind::Data, protected, 11, &b);
                r.handle(1000 + u64::from(i), 4, &mut d, &mut link);
            }
            if !protected {
                let (_, mut req) = link.sent.pop().unwrap();
                let got = ini.read(&mut req).unwrap();
                assert_eq!(
                    (got.header.kind, got.header.protected),
                    (Kind::Stream, true)
                );
            }
        }
        let s = r.sink.unwrap();
        assert_eq!((s.received, s.wrong), ([3, 3], 0));
        assert_eq!(s.ct[0], Some(1000));
        assert_eq!(s.ct[2], Some(1000));
        let text = report(&mut r, &mut ini, &mut link);
        assert!(text.contains("sink_received 3 3\n"), "{text}");
        assert!(text.contains("d0_ticks "), "{text}");
        assert!(text.contains("d1_ticks "), "{text}");
        // A fourth DATA is unexpected.
        let mut extra = msg(&mut ini, Kind::Data, true, 11, &[0; 8]);
        r.handle(0, 4, &mut extra, &mut link);
        assert_eq!(r.counters.unexpected, 1);
    }
}
