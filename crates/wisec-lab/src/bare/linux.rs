//! The responder on a Linux UDP socket: the same [`Responder`] as the
//! bare machine's, with the monotonic clock (ns) instead of the TSC, and
//! the kernel's UDP/IP stack instead of the e1000 driver. A frame is "seen"
//! when `recv_from` returns.

use super::BareError;
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use wisec_bare::responder::{Link, Responder};
use wisec_bare::wire::KEY_LEN;

/// The platform name in the Linux responder's reports.
pub const PLATFORM: &str = "linux";

struct SocketLink<'a> {
    sock: &'a UdpSocket,
    start: Instant,
    buf: Vec<u8>,
    failed: u64,
}

impl Link<SocketAddr> for SocketLink<'_> {
    fn now(&mut self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }

    fn send(&mut self, to: &SocketAddr, fill: &mut dyn FnMut(&mut [u8]) -> usize) -> bool {
        let n = fill(&mut self.buf);
        if n == 0 {
            return false;
        }
        loop {
            match self.sock.send_to(&self.buf[..n], to) {
                Ok(_) => return true,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => {
                    self.failed += 1;
                    return false;
                }
            }
        }
    }

    fn report_extra(&mut self, out: &mut dyn std::fmt::Write) -> std::fmt::Result {
        writeln!(out, "clock monotonic-ns")?;
        writeln!(out, "send_errors {}", self.failed)
    }
}

/// Serves on `sock` until `stop` is set; returns the responder with its
/// counters.
pub fn serve(
    sock: &UdpSocket,
    key: Option<&[u8; KEY_LEN]>,
    stop: &AtomicBool,
) -> Result<Responder<SocketAddr>, BareError> {
    let start = Instant::now();
    let mut link = SocketLink {
        sock,
        start,
        buf: vec![0u8; 2048],
        failed: 0,
    };
    let mut r = Responder::new(key, 1_000_000_000, 0, PLATFORM);
    // A large receive buffer, as the initiator's: a busy host must not
    // drop a stream while this thread waits for a core.
    let _ = nix::sys::socket::setsockopt(sock, nix::sys::socket::sockopt::RcvBufForce, &(8 << 20))
        .or_else(|_| {
            nix::sys::socket::setsockopt(sock, nix::sys::socket::sockopt::RcvBuf, &(8 << 20))
        });
    sock.set_read_timeout(Some(Duration::from_millis(50)))
        .map_err(|e| BareError::Io("setting a socket timeout".into(), e))?;
    let mut buf = vec![0u8; 65536];
    while !stop.load(Ordering::SeqCst) {
        match sock.recv_from(&mut buf) {
            Ok((n, from)) => {
                let arrived = start.elapsed().as_nanos() as u64;
                r.handle(arrived, from, &mut buf[..n], &mut link);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(BareError::Io("receiving".into(), e)),
        }
    }
    Ok(r)
}
