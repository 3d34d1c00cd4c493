//! Background load on a node, and small traffic endpoints of the wisec
//! process inside the namespaces.
//!
//! Seed 004 loaded its relay or its receiver with a live-streaming
//! pipeline (RealProducer encoding, Helix Server sending, RealPlayer at
//! the other end) under nice levels from −20 to 19. The lab's streaming
//! load is ffmpeg (Debian `ffmpeg`) encoding a generated test pattern
//! with x264 in real time (`-re`) and sending it as RTP over UDP to the
//! initiator through the network, single-threaded: when the encoder needs
//! more than its CPU gives it, it falls behind real time and keeps that
//! CPU busy, as a live encoder on a single-core laptop does. The plain
//! load is a shell busy loop. A load runs in a process group of its own
//! (the streaming one as a shell that starts ffmpeg again if it ends);
//! what it got from the scheduler is summed over the group
//! ([`super::sched::group_cpu_s`]). The RTP stream is received by a socket of
//! the wisec process in the destination's namespace ([`UdpSink`]), so
//! that it ends at a real socket and no ICMP port-unreachable answers it.

use super::net::{spawn_in_netns, LiveNet, Netns, ProcId};
use super::sys::{find_program, LiveError, Result};
use serde::{Deserialize, Serialize};
use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What loads a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoadKind {
    /// ffmpeg encoding and streaming RTP over UDP.
    Stream,
    /// A busy loop.
    Cpu,
}

impl LoadKind {
    /// Its name in parameters.
    pub fn name(self) -> &'static str {
        match self {
            LoadKind::Stream => "stream",
            LoadKind::Cpu => "cpu",
        }
    }

    /// The kind called `s`.
    pub fn from_name(s: &str) -> Option<LoadKind> {
        match s {
            "stream" => Some(LoadKind::Stream),
            "cpu" => Some(LoadKind::Cpu),
            _ => None,
        }
    }

    /// The programs it runs.
    pub fn programs(self) -> &'static [&'static str] {
        match self {
            LoadKind::Stream => &["ffmpeg", "sh"],
            LoadKind::Cpu => &["sh"],
        }
    }
}

/// x264's presets, fastest first.
pub const X264_PRESETS: &[&str] = &[
    "ultrafast",
    "superfast",
    "veryfast",
    "faster",
    "fast",
    "medium",
    "slow",
    "slower",
    "veryslow",
];

/// The streaming load's encoder settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamSettings {
    /// Picture size, `WxH`.
    pub size: String,
    /// Frames per second.
    pub fps: u32,
    /// x264 preset.
    pub preset: String,
    /// Video bit rate, kb/s.
    pub kbps: u32,
    /// The receiver's UDP port.
    pub port: u16,
}

impl Default for StreamSettings {
    /// 1280x720 at 25 frames/s, preset `slow`, 1000 kb/s to port 5004:
    /// more encoding than one core of this machine does in real time.
    fn default() -> StreamSettings {
        StreamSettings {
            size: "1280x720".into(),
            fps: 25,
            preset: "slow".into(),
            kbps: 1000,
            port: 5004,
        }
    }
}

impl StreamSettings {
    /// Checks every field.
    pub fn validate(&self) -> Result<()> {
        let dims: Vec<&str> = self.size.split('x').collect();
        let ok = dims.len() == 2
            && dims.iter().all(|d| {
                d.parse::<u32>()
                    .is_ok_and(|v| (16..=7680).contains(&v) && v % 2 == 0)
            });
        if !ok {
            return Err(LiveError::Config(format!(
                "stream_size: '{}'; give WIDTHxHEIGHT, even numbers from 16 to 7680",
                self.size
            )));
        }
        if !(1..=120).contains(&self.fps) {
            return Err(LiveError::Config(format!(
                "stream_fps: {}; give 1 to 120",
                self.fps
            )));
        }
        if !X264_PRESETS.contains(&self.preset.as_str()) {
            return Err(LiveError::Config(format!(
                "stream_preset: '{}'; x264 has {}",
                self.preset,
                X264_PRESETS.join(", ")
            )));
        }
        if !(16..=20_000).contains(&self.kbps) {
            return Err(LiveError::Config(format!(
                "stream_kbps: {}; give 16 to 20000",
                self.kbps
            )));
        }
        Ok(())
    }

    /// ffmpeg's arguments for a stream to `dest`, with its SDP in
    /// `sdp` (for a player).
    pub fn ffmpeg_args(&self, dest: Ipv4Addr, sdp: &str) -> Vec<String> {
        let k = self.kbps;
        [
            "-hide_banner",
            "-nostdin",
            "-loglevel",
            "warning",
            "-re",
            "-f",
            "lavfi",
            "-i",
            &format!("testsrc2=size={}:rate={}", self.size, self.fps),
            "-c:v",
            "libx264",
            "-preset",
            &self.preset,
            "-tune",
            "zerolatency",
            "-threads",
            "1",
            "-b:v",
            &format!("{k}k"),
            "-maxrate",
            &format!("{k}k"),
            "-bufsize",
            &format!("{}k", k / 2),
            "-g",
            &(self.fps * 2).to_string(),
            "-sdp_file",
            sdp,
            "-f",
            "rtp",
            &format!("rtp://{dest}:{}", self.port),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }
}

/// The busy loop of [`LoadKind::Cpu`].
const BUSY_LOOP: &str = "while :; do :; done";
/// Runs the streaming pipeline (`$@`) again whenever it ends: ffmpeg
/// gives up on a send error (a relay's or the receiver's route gone for a
/// moment, as when a load starves the node's routing daemon), where a
/// streaming server would go on sending.
const KEEP_STREAMING: &str = "while :; do \"$@\"; sleep 0.2; done";

/// Starts a load of `kind` on `node` (in `ns`) behind `prefix` (CPU pin
/// and nice level, [`super::sched::wrap`]); a stream goes to `dest`. Its
/// log is `RUN_DIR/load-NODE.log`.
pub fn start(
    net: &mut LiveNet,
    ns: &Netns,
    node: &str,
    kind: LoadKind,
    stream: &StreamSettings,
    dest: Ipv4Addr,
    prefix: &[String],
) -> Result<ProcId> {
    let (program, args) = match kind {
        LoadKind::Stream => {
            stream.validate()?;
            let sdp = net.run_dir().join(format!("stream-{node}.sdp"));
            let mut args = vec![
                "-c".to_string(),
                KEEP_STREAMING.to_string(),
                "sh".to_string(),
                find_program("ffmpeg")?.display().to_string(),
            ];
            args.extend(stream.ffmpeg_args(dest, &sdp.display().to_string()));
            (find_program("sh")?, args)
        }
        LoadKind::Cpu => (
            find_program("sh")?,
            vec!["-c".to_string(), BUSY_LOOP.to_string()],
        ),
    };
    let (program, argv) = super::sched::command(prefix, &program, &args)?;
    net.spawn(ns, &program, &argv, &format!("load-{node}"))
}

/// A UDP socket of the wisec process in a namespace that reads and
/// counts what arrives.
#[derive(Debug)]
pub struct UdpSink {
    stop: Arc<AtomicBool>,
    packets: Arc<AtomicU64>,
    octets: Arc<AtomicU64>,
    thread: Option<JoinHandle<Result<Result<()>>>>,
}

impl UdpSink {
    /// Binds `ip:port` in `ns` and reads until stopped.
    pub fn start(ns: &Netns, ip: Ipv4Addr, port: u16) -> Result<UdpSink> {
        let stop = Arc::new(AtomicBool::new(false));
        let packets = Arc::new(AtomicU64::new(0));
        let octets = Arc::new(AtomicU64::new(0));
        let (s, p, o) = (Arc::clone(&stop), Arc::clone(&packets), Arc::clone(&octets));
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let thread = spawn_in_netns(ns, move || -> Result<()> {
            let sock = UdpSocket::bind(SocketAddrV4::new(ip, port));
            let sock = match sock {
                Ok(x) => {
                    let _ = ready_tx.send(Ok(()));
                    x
                }
                Err(e) => {
                    let msg = format!("binding {ip}:{port}: {e}");
                    let _ = ready_tx.send(Err(msg.clone()));
                    return Err(LiveError::Config(msg));
                }
            };
            sock.set_read_timeout(Some(Duration::from_millis(50)))
                .map_err(|e| LiveError::io("set_read_timeout", e))?;
            let mut buf = vec![0u8; 65_536];
            while !s.load(Ordering::Relaxed) {
                if let Ok(n) = sock.recv(&mut buf) {
                    p.fetch_add(1, Ordering::Relaxed);
                    o.fetch_add(n as u64, Ordering::Relaxed);
                }
            }
            Ok(())
        })?;
        match ready_rx.recv_timeout(Duration::from_secs(5)) {
            Ok(Ok(())) => {}
            Ok(Err(m)) => return Err(LiveError::Config(m)),
            Err(_) => return Err(LiveError::Config("the UDP sink did not start".into())),
        }
        Ok(UdpSink {
            stop,
            packets,
            octets,
            thread: Some(thread),
        })
    }

    /// Datagrams and octets received so far.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.packets.load(Ordering::Relaxed),
            self.octets.load(Ordering::Relaxed),
        )
    }

    /// Stops reading; the final counts.
    pub fn stop(mut self) -> (u64, u64) {
        self.halt();
        self.counts()
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for UdpSink {
    fn drop(&mut self) {
        self.halt();
    }
}

/// What a probe saw.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ProbeResult {
    /// Datagrams sent (or refused by the sender's kernel).
    pub sent: u64,
    /// When the first datagram arrived, after the probe started.
    pub first_arrival: Option<Duration>,
}

/// Sends small UDP datagrams from `from` to `to_ip:port` every `interval`
/// until the first one arrives at a socket in `to` (or `timeout`): data
/// waiting for a secure connection, whose first packet to get through
/// marks the connection's use. Runs on two threads of the wisec process;
/// [`Probe::finish`] waits for them.
#[derive(Debug)]
pub struct Probe {
    started: Instant,
    arrived: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    sender: JoinHandle<Result<Result<u64>>>,
    receiver: JoinHandle<Result<Result<Option<Duration>>>>,
}

impl Probe {
    /// Starts the receiver, then the sender.
    pub fn start(
        from: &Netns,
        to: &Netns,
        to_ip: Ipv4Addr,
        port: u16,
        interval: Duration,
        timeout: Duration,
    ) -> Result<Probe> {
        let started = Instant::now();
        let arrived = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (a, s) = (Arc::clone(&arrived), Arc::clone(&stop));
        let receiver = spawn_in_netns(to, move || -> Result<Option<Duration>> {
            let sock = UdpSocket::bind(SocketAddrV4::new(to_ip, port))
                .map_err(|e| LiveError::io(format!("binding {to_ip}:{port}"), e))?;
            sock.set_read_timeout(Some(Duration::from_millis(20)))
                .map_err(|e| LiveError::io("set_read_timeout", e))?;
            let _ = ready_tx.send(());
            let mut buf = [0u8; 2048];
            while !s.load(Ordering::Relaxed) && started.elapsed() < timeout {
                if sock.recv(&mut buf).is_ok() {
                    a.store(true, Ordering::SeqCst);
                    return Ok(Some(started.elapsed()));
                }
            }
            Ok(None)
        })?;
        if ready_rx.recv_timeout(Duration::from_secs(5)).is_err() {
            stop.store(true, Ordering::SeqCst);
            let _ = receiver.join();
            return Err(LiveError::Config(
                "the probe's receiver did not start".into(),
            ));
        }
        let (a, s) = (Arc::clone(&arrived), Arc::clone(&stop));
        let sender = spawn_in_netns(from, move || -> Result<u64> {
            let sock = UdpSocket::bind("0.0.0.0:0")
                .map_err(|e| LiveError::io("binding the probe's sender", e))?;
            let mut sent = 0u64;
            let payload = [0x5au8; 32];
            while !a.load(Ordering::SeqCst)
                && !s.load(Ordering::Relaxed)
                && started.elapsed() < timeout
            {
                // Refused while no secure connection exists (a firewall
                // rule drops cleartext to the peer): counted all the same.
                let _ = sock.send_to(&payload, SocketAddrV4::new(to_ip, port));
                sent += 1;
                std::thread::sleep(interval);
            }
            Ok(sent)
        })?;
        Ok(Probe {
            started,
            arrived,
            stop,
            sender,
            receiver,
        })
    }

    /// Whether a datagram has arrived.
    pub fn arrived(&self) -> bool {
        self.arrived.load(Ordering::SeqCst)
    }

    /// When the probe started.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Stops both threads (at once if `now`, else when the first datagram
    /// arrived or the timeout passed); what they saw.
    pub fn finish(self, now: bool) -> Result<ProbeResult> {
        if now {
            self.stop.store(true, Ordering::SeqCst);
        }
        let first = self
            .receiver
            .join()
            .map_err(|_| LiveError::Config("the probe's receiver panicked".into()))???;
        self.stop.store(true, Ordering::SeqCst);
        let sent = self
            .sender
            .join()
            .map_err(|_| LiveError::Config("the probe's sender panicked".into()))???;
        Ok(ProbeResult {
            sent,
            first_arrival: first,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_settings_are_checked() {
        let s = StreamSettings::default();
        assert!(s.validate().is_ok());
        let a = s.ffmpeg_args(Ipv4Addr::new(10, 98, 0, 1), "/x.sdp");
        let joined = a.join(" ");
        assert!(
            joined.contains("-re -f lavfi -i testsrc2=size=1280x720:rate=25"),
            "{joined}"
        );
        assert!(joined.contains("-c:v libx264 -preset slow"), "{joined}");
        assert!(joined.ends_with("-f rtp rtp://10.98.0.1:5004"), "{joined}");
        for bad in [
            StreamSettings {
                size: "1280".into(),
                ..s.clone()
            },
            StreamSettings {
                size: "1281x720".into(),
                ..s.clone()
            },
            StreamSettings {
                fps: 0,
                ..s.clone()
            },
            StreamSettings {
                preset: "placebo2".into(),
                ..s.clone()
            },
            StreamSettings {
                kbps: 1,
                ..s.clone()
            },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
        assert_eq!(LoadKind::from_name("stream"), Some(LoadKind::Stream));
        assert_eq!(LoadKind::from_name("cpu").map(LoadKind::name), Some("cpu"));
        assert!(LoadKind::from_name("disk").is_none());
    }
}
