//! Qcheck-style transfers on the kernel's sockets: send N octets over TCP
//! or UDP from one namespace to another and time them from the sender's
//! first packet to the receiver's last octet — what Qcheck's throughput
//! tests (seed 001) and the simulator's trials measure.
//!
//! iperf3 is not used for these: `iperf3 -n` ends its test when the
//! sender has written its octets into the socket, not when they arrived.
//! On an 11 Mb/s link it reported 127 KB sent in 22 ms and 30 KB received
//! when the test ended: a figure about the socket buffer, not the link.
//! The endpoints here are threads of the wisec process that entered the
//! namespaces; the TCP/IP is the kernel's.

use super::net::{spawn_in_netns, Netns};
use super::sys::{LiveError, Result};
use serde::{Deserialize, Serialize};
use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddrV4, TcpListener, TcpStream, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The one-octet datagram that primes a UDP transfer's path.
const PROBE: u8 = 0xa5;

/// What a transfer measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Transfer {
    /// Payload octets sent.
    pub sent: u64,
    /// Payload octets received.
    pub received: u64,
    /// From the sender's first packet to the receiver's last octet, s.
    pub seconds: f64,
    /// Received octets over that time, bits per second.
    pub bps: f64,
}

fn io(what: &str) -> impl FnOnce(std::io::Error) -> LiveError + '_ {
    move |e| LiveError::io(what, e)
}

fn join<R>(h: std::thread::JoinHandle<Result<Result<R>>>) -> Result<R> {
    h.join()
        .map_err(|_| LiveError::Config("a transfer thread panicked".into()))??
}

/// Sends `bytes` over one TCP connection from `from` to `to_ip:port` in
/// `to`, then closes it; the receiver reads to the end.
pub fn tcp(
    from: &Netns,
    to: &Netns,
    to_ip: Ipv4Addr,
    port: u16,
    bytes: u64,
    timeout: Duration,
) -> Result<Transfer> {
    let addr = SocketAddrV4::new(to_ip, port);
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let receiver = spawn_in_netns(to, move || -> Result<(u64, Instant)> {
        let l = TcpListener::bind(addr).map_err(io("binding the receiver"))?;
        l.set_nonblocking(true).map_err(io("set_nonblocking"))?;
        let _ = ready_tx.send(());
        let deadline = Instant::now() + timeout;
        let mut s = loop {
            match l.accept() {
                Ok((s, _)) => break s,
                Err(e) if e.kind() == ErrorKind::WouldBlock && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) => return Err(LiveError::io("accepting", e)),
            }
        };
        s.set_nonblocking(false).map_err(io("set_nonblocking"))?;
        s.set_read_timeout(Some(timeout))
            .map_err(io("set_read_timeout"))?;
        let mut buf = vec![0u8; 65_536];
        let (mut got, mut last) = (0u64, Instant::now());
        loop {
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    got += n as u64;
                    last = Instant::now();
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(LiveError::io("receiving", e)),
            }
        }
        Ok((got, last))
    })?;
    ready_rx
        .recv_timeout(Duration::from_secs(5))
        .map_err(|_| LiveError::Config("the TCP receiver did not start".into()))?;
    let sender = spawn_in_netns(from, move || -> Result<Instant> {
        let start = Instant::now();
        let mut s = TcpStream::connect_timeout(&addr.into(), timeout).map_err(io("connecting"))?;
        s.set_write_timeout(Some(timeout))
            .map_err(io("set_write_timeout"))?;
        let block = vec![0x5au8; 65_536];
        let mut left = bytes;
        while left > 0 {
            let n = left.min(block.len() as u64) as usize;
            s.write_all(&block[..n]).map_err(io("sending"))?;
            left -= n as u64;
        }
        s.shutdown(Shutdown::Write).map_err(io("closing"))?;
        Ok(start)
    })?;
    let start = join(sender)?;
    let (got, last) = join(receiver)?;
    Ok(summary(bytes, got, start, last))
}

fn summary(sent: u64, received: u64, start: Instant, last: Instant) -> Transfer {
    let seconds = last.saturating_duration_since(start).as_secs_f64();
    Transfer {
        sent,
        received,
        seconds,
        bps: if seconds > 0.0 {
            received as f64 * 8.0 / seconds
        } else {
            0.0
        },
    }
}

/// Sends `bytes` as UDP datagrams of `payload` octets, as fast as the
/// sender's socket takes them, from `from` to `to_ip:port` in `to`; the
/// receiver stops when nothing has arrived for `quiet` after the sender
/// finished.
///
/// Before the timed datagrams the sender sends one-octet probes until the
/// receiver has seen one: a sender without a neighbour (ARP) entry would
/// otherwise lose all but the first hundred or so datagrams while the
/// kernel resolves the address (Qcheck opens a TCP control connection
/// first, which resolves it; the simulator's smoltcp holds the datagrams
/// until it is resolved).
#[allow(clippy::too_many_arguments)]
pub fn udp(
    from: &Netns,
    to: &Netns,
    to_ip: Ipv4Addr,
    port: u16,
    bytes: u64,
    payload: usize,
    quiet: Duration,
    timeout: Duration,
) -> Result<Transfer> {
    if payload == 0 || payload > 65_000 {
        return Err(LiveError::Config(format!("UDP payload {payload}")));
    }
    let addr = SocketAddrV4::new(to_ip, port);
    let done = Arc::new(AtomicBool::new(false));
    let d2 = Arc::clone(&done);
    let primed = Arc::new(AtomicBool::new(false));
    let p2 = Arc::clone(&primed);
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let receiver = spawn_in_netns(to, move || -> Result<(u64, Instant)> {
        let s = UdpSocket::bind(addr).map_err(io("binding the receiver"))?;
        s.set_read_timeout(Some(Duration::from_millis(20)))
            .map_err(io("set_read_timeout"))?;
        let _ = ready_tx.send(());
        let mut buf = vec![0u8; 65_536];
        let (mut got, mut last) = (0u64, Instant::now());
        let begun = Instant::now();
        let mut quiet_since: Option<Instant> = None;
        loop {
            match s.recv(&mut buf) {
                Ok(1) if buf[0] == PROBE => p2.store(true, Ordering::SeqCst),
                Ok(n) => {
                    got += n as u64;
                    last = Instant::now();
                    quiet_since = None;
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) =>
                {
                    if d2.load(Ordering::SeqCst) {
                        let q = *quiet_since.get_or_insert_with(Instant::now);
                        if q.elapsed() >= quiet {
                            break;
                        }
                    }
                    if begun.elapsed() > timeout {
                        break;
                    }
                }
                Err(e) => return Err(LiveError::io("receiving", e)),
            }
        }
        Ok((got, last))
    })?;
    ready_rx
        .recv_timeout(Duration::from_secs(5))
        .map_err(|_| LiveError::Config("the UDP receiver did not start".into()))?;
    let sender = spawn_in_netns(from, move || -> Result<Instant> {
        let s = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).map_err(io("binding the sender"))?;
        s.connect(addr).map_err(io("connecting"))?;
        let deadline = Instant::now() + timeout.min(Duration::from_secs(10));
        while !primed.load(Ordering::SeqCst) {
            if Instant::now() >= deadline {
                return Err(LiveError::Config(format!(
                    "no datagram reached {addr}: the link or the route is down"
                )));
            }
            let _ = s.send(&[PROBE]);
            std::thread::sleep(Duration::from_millis(20));
        }
        let block = vec![0x5au8; payload];
        let start = Instant::now();
        let mut left = bytes;
        while left > 0 {
            let n = left.min(payload as u64) as usize;
            match s.send(&block[..n]) {
                Ok(_) => left -= n as u64,
                // A full queue below the socket: the datagram is lost, as
                // it would be at a full driver queue; go on.
                Err(e) if e.raw_os_error() == Some(105) => left -= n as u64,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(LiveError::io("sending", e)),
            }
        }
        Ok(start)
    })?;
    let start = join(sender);
    done.store(true, Ordering::SeqCst);
    let start = start?;
    let (got, last) = join(receiver)?;
    Ok(summary(bytes, got, start, last))
}
