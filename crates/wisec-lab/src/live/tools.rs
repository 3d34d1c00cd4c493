//! Traffic from real programs in the namespaces: iperf3 (its JSON output
//! read) and ping (its summary read).

use super::net::{in_netns, LiveNet, Netns, ProcId};
use super::sys::{LiveError, Result};
use serde::{Deserialize, Serialize};
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

/// iperf3's default port.
pub const IPERF_PORT: u16 = 5201;

/// One iperf3 test.
#[derive(Debug, Clone, PartialEq)]
pub struct IperfSpec {
    /// UDP instead of TCP.
    pub udp: bool,
    /// Send this many octets (`-n`); else for `seconds`.
    pub bytes: Option<u64>,
    /// Test length (`-t`), when no byte count is given.
    pub seconds: f64,
    /// UDP: the offered rate (`-b`), bits per second.
    pub udp_rate_bps: u64,
    /// Payload octets per write (`-l`): the UDP datagram size.
    pub len: Option<u32>,
    /// TCP window (`-w`), octets.
    pub window: Option<u32>,
    /// The server's port (`-p`).
    pub port: u16,
}

impl IperfSpec {
    /// TCP for `seconds`.
    pub fn tcp_for(seconds: f64) -> IperfSpec {
        IperfSpec {
            udp: false,
            bytes: None,
            seconds,
            udp_rate_bps: 0,
            len: None,
            window: None,
            port: IPERF_PORT,
        }
    }

    /// UDP at `rate_bps` for `seconds`, datagrams of `len` octets.
    pub fn udp_for(seconds: f64, rate_bps: u64, len: u32) -> IperfSpec {
        IperfSpec {
            udp: true,
            bytes: None,
            seconds,
            udp_rate_bps: rate_bps,
            len: Some(len),
            window: None,
            port: IPERF_PORT,
        }
    }

    /// The client's arguments for a server at `server`.
    pub fn args(&self, server: Ipv4Addr) -> Vec<String> {
        let mut v = vec!["-c".to_string(), server.to_string(), "-J".into()];
        if self.port != IPERF_PORT {
            v.extend(["-p".into(), self.port.to_string()]);
        }
        match self.bytes {
            Some(b) => v.extend(["-n".into(), b.to_string()]),
            None => v.extend(["-t".into(), format!("{}", self.seconds)]),
        }
        if self.udp {
            v.extend(["-u".into(), "-b".into(), self.udp_rate_bps.to_string()]);
        }
        if let Some(l) = self.len {
            v.extend(["-l".into(), l.to_string()]);
        }
        if let Some(w) = self.window {
            v.extend(["-w".into(), w.to_string()]);
        }
        v
    }
}

/// What an iperf3 test measured (from the client's JSON).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct IperfResult {
    /// Payload octets sent.
    pub sent_bytes: u64,
    /// Payload octets the receiver got.
    pub received_bytes: u64,
    /// The receiver's measuring time, seconds.
    pub received_seconds: f64,
    /// Receiver throughput, bits per second (what the tables show).
    pub receiver_bps: f64,
    /// Sender throughput, bits per second.
    pub sender_bps: f64,
    /// TCP retransmissions (sender).
    pub retransmits: Option<u64>,
    /// UDP datagrams lost.
    pub lost_packets: Option<u64>,
    /// UDP datagrams sent.
    pub packets: Option<u64>,
    /// UDP jitter, ms.
    pub jitter_ms: Option<f64>,
}

fn field<'a>(v: &'a serde_json::Value, path: &[&str]) -> Option<&'a serde_json::Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

/// Reads iperf3's `-J` output.
pub fn parse_iperf3(json: &str) -> Result<IperfResult> {
    let v: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| LiveError::Config(format!("iperf3 output is not JSON: {e}")))?;
    if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
        return Err(LiveError::Config(format!("iperf3: {e}")));
    }
    let num = |p: &[&str]| field(&v, p).and_then(serde_json::Value::as_f64);
    let int = |p: &[&str]| field(&v, p).and_then(serde_json::Value::as_u64);
    let missing = |what: &str| LiveError::Config(format!("iperf3 output has no {what}"));
    let udp =
        field(&v, &["start", "test_start", "protocol"]).and_then(|p| p.as_str()) == Some("UDP");
    Ok(IperfResult {
        sent_bytes: int(&["end", "sum_sent", "bytes"]).ok_or_else(|| missing("end.sum_sent"))?,
        received_bytes: int(&["end", "sum_received", "bytes"])
            .ok_or_else(|| missing("end.sum_received"))?,
        received_seconds: num(&["end", "sum_received", "seconds"]).unwrap_or(0.0),
        receiver_bps: num(&["end", "sum_received", "bits_per_second"])
            .ok_or_else(|| missing("end.sum_received.bits_per_second"))?,
        sender_bps: num(&["end", "sum_sent", "bits_per_second"]).unwrap_or(0.0),
        retransmits: if udp {
            None
        } else {
            int(&["end", "sum_sent", "retransmits"])
        },
        lost_packets: if udp {
            int(&["end", "sum_received", "lost_packets"])
        } else {
            None
        },
        packets: if udp {
            int(&["end", "sum_sent", "packets"])
        } else {
            None
        },
        jitter_ms: if udp {
            num(&["end", "sum_received", "jitter_ms"])
        } else {
            None
        },
    })
}

/// Whether something listens on TCP port `port` in `ns` (its
/// `/proc/thread-self/net/tcp`, read from inside the namespace).
pub fn listening(ns: &Netns, port: u16) -> Result<bool> {
    let text = in_netns(ns, || std::fs::read_to_string("/proc/thread-self/net/tcp"))?
        .map_err(|e| LiveError::io("reading /proc/net/tcp", e))?;
    let want = format!(":{port:04X}");
    Ok(text.lines().skip(1).any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        // local_address is field 1, st is field 3; 0A is LISTEN.
        f.get(1).is_some_and(|a| a.ends_with(&want)) && f.get(3) == Some(&"0A")
    }))
}

/// Starts a one-off iperf3 server (`-s -1`: it serves one test, then
/// ends) bound to `ip` in `ns`, and waits until it listens.
pub fn iperf3_server(net: &mut LiveNet, ns: &Netns, ip: Ipv4Addr, log: &str) -> Result<ProcId> {
    iperf3_server_on(net, ns, ip, IPERF_PORT, log)
}

/// [`iperf3_server`] on `port`.
pub fn iperf3_server_on(
    net: &mut LiveNet,
    ns: &Netns,
    ip: Ipv4Addr,
    port: u16,
    log: &str,
) -> Result<ProcId> {
    let args = vec![
        "-s".to_string(),
        "-1".into(),
        "-B".into(),
        ip.to_string(),
        "-p".into(),
        port.to_string(),
    ];
    let id = net.spawn(ns, "iperf3", &args, log)?;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if listening(ns, port)? {
            return Ok(id);
        }
        if !net.running(id) {
            let log = net
                .log_path(id)
                .and_then(|p| std::fs::read_to_string(p).ok())
                .unwrap_or_default();
            return Err(LiveError::Command {
                command: format!("iperf3 -s -B {ip} in {}", ns.name),
                message: format!("exited: {}", log.trim()),
            });
        }
        if Instant::now() >= deadline {
            return Err(LiveError::Command {
                command: format!("iperf3 -s -B {ip} in {}", ns.name),
                message: "did not listen within 5 s".into(),
            });
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs an iperf3 client in `ns` against `server`; its result.
pub fn iperf3_client(
    net: &mut LiveNet,
    ns: &Netns,
    server: Ipv4Addr,
    spec: &IperfSpec,
    log: &str,
    timeout: Duration,
) -> Result<IperfResult> {
    let out = net.exec(ns, "iperf3", &spec.args(server), log, timeout)?;
    parse_iperf3(&out)
}

/// Starts an iperf3 client in `ns` against `server` without waiting; see
/// [`iperf3_result`].
pub fn iperf3_start(
    net: &mut LiveNet,
    ns: &Netns,
    server: Ipv4Addr,
    spec: &IperfSpec,
    log: &str,
) -> Result<ProcId> {
    net.start(ns, "iperf3", &spec.args(server), log)
}

/// Waits for a client from [`iperf3_start`]; its result.
pub fn iperf3_result(net: &mut LiveNet, id: ProcId, timeout: Duration) -> Result<IperfResult> {
    parse_iperf3(&net.finish(id, timeout)?)
}

/// What ping measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PingResult {
    /// Echo requests sent.
    pub sent: u32,
    /// Replies received.
    pub received: u32,
    /// Smallest round-trip time, ms.
    pub min_ms: f64,
    /// Mean round-trip time, ms.
    pub avg_ms: f64,
    /// Largest round-trip time, ms.
    pub max_ms: f64,
    /// Mean deviation, ms.
    pub mdev_ms: f64,
}

/// Reads iputils ping's summary lines.
pub fn parse_ping(text: &str) -> Result<PingResult> {
    let mut r = PingResult::default();
    let bad = || LiveError::Config(format!("cannot read ping's summary: {}", text.trim()));
    let stats = text
        .lines()
        .find(|l| l.contains("packets transmitted"))
        .ok_or_else(bad)?;
    let nums: Vec<u32> = stats
        .split(',')
        .filter_map(|p| p.split_whitespace().next()?.parse().ok())
        .collect();
    r.sent = *nums.first().ok_or_else(bad)?;
    r.received = *nums.get(1).ok_or_else(bad)?;
    if let Some(l) = text
        .lines()
        .find(|l| l.starts_with("rtt") || l.starts_with("round-trip"))
    {
        let v: Vec<f64> = l
            .split('=')
            .nth(1)
            .ok_or_else(bad)?
            .trim()
            .trim_end_matches("ms")
            .trim()
            .split('/')
            .filter_map(|x| x.trim().parse().ok())
            .collect();
        if v.len() != 4 {
            return Err(bad());
        }
        (r.min_ms, r.avg_ms, r.max_ms, r.mdev_ms) = (v[0], v[1], v[2], v[3]);
    }
    Ok(r)
}

/// Pings `dest` from `ns`: `count` requests `interval` apart with `size`
/// octets of data. A run with no reply is a result (received 0), not an
/// error.
pub fn ping(
    net: &mut LiveNet,
    ns: &Netns,
    dest: Ipv4Addr,
    count: u32,
    interval: Duration,
    size: u32,
    log: &str,
) -> Result<PingResult> {
    let args = vec![
        "-n".to_string(),
        "-c".into(),
        count.to_string(),
        "-i".into(),
        format!("{:.3}", interval.as_secs_f64()),
        "-s".into(),
        size.to_string(),
        "-W".into(),
        "2".into(),
        dest.to_string(),
    ];
    let timeout = interval * count + Duration::from_secs(10);
    match net.exec(ns, "ping", &args, log, timeout) {
        Ok(out) => parse_ping(&out),
        // ping exits 1 when no reply came: still a summary to read.
        Err(LiveError::Command { .. }) => {
            let out = std::fs::read_to_string(net.run_dir().join(format!("{log}.out")))
                .unwrap_or_default();
            parse_ping(&out)
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Abridged from iperf3 3.12's own `-J` output for a UDP test.
    const UDP: &str = r#"{"start":{"test_start":{"protocol":"UDP","num_streams":1}},
      "end":{"sum":{"bytes":131072},
        "sum_sent":{"seconds":0.079,"bytes":131072,"bits_per_second":13252145.3,"packets":4,"lost_packets":0},
        "sum_received":{"seconds":0.0793,"bytes":98304,"bits_per_second":9910176.9,"jitter_ms":0.0049,"lost_packets":1,"packets":3}}}"#;
    const TCP: &str = r#"{"start":{"test_start":{"protocol":"TCP"}},
      "end":{"sum_sent":{"seconds":10.0,"bytes":1048576,"bits_per_second":838860.8,"retransmits":2},
        "sum_received":{"seconds":10.1,"bytes":1048576,"bits_per_second":830555.2}}}"#;

    #[test]
    fn iperf3_json_is_read() {
        let u = parse_iperf3(UDP).unwrap();
        assert_eq!(u.sent_bytes, 131_072);
        assert_eq!(u.received_bytes, 98_304);
        assert_eq!(u.lost_packets, Some(1));
        assert_eq!(u.packets, Some(4));
        assert_eq!(u.retransmits, None);
        assert!((u.receiver_bps - 9_910_176.9).abs() < 1e-3);
        let t = parse_iperf3(TCP).unwrap();
        assert_eq!(t.retransmits, Some(2));
        assert_eq!(t.lost_packets, None);
        assert!((t.received_seconds - 10.1).abs() < 1e-9);
        let e = parse_iperf3(r#"{"start":{},"end":{},"error":"unable to connect to server"}"#)
            .unwrap_err();
        assert!(e.to_string().contains("unable to connect"), "{e}");
        assert!(parse_iperf3("not json").is_err());
        assert!(parse_iperf3(r#"{"end":{}}"#).is_err());
    }

    #[test]
    fn ping_summaries_are_read() {
        let out = "PING 10.99.0.1 (10.99.0.1) 32(60) bytes of data.\n\
40 bytes from 10.99.0.1: icmp_seq=1 ttl=64 time=1.91 ms\n\n\
--- 10.99.0.1 ping statistics ---\n\
3 packets transmitted, 3 received, 0% packet loss, time 402ms\n\
rtt min/avg/max/mdev = 1.802/1.870/1.912/0.048 ms\n";
        let p = parse_ping(out).unwrap();
        assert_eq!((p.sent, p.received), (3, 3));
        assert_eq!(
            (p.min_ms, p.avg_ms, p.max_ms, p.mdev_ms),
            (1.802, 1.870, 1.912, 0.048)
        );
        let lost = "--- x ping statistics ---\n3 packets transmitted, 0 received, 100% packet loss, time 2043ms\n";
        let p = parse_ping(lost).unwrap();
        assert_eq!((p.sent, p.received, p.avg_ms), (3, 0, 0.0));
        assert!(parse_ping("garbage").is_err());
    }

    #[test]
    fn client_arguments_follow_the_spec() {
        let mut s = IperfSpec::udp_for(10.0, 1_000_000, 1470);
        s.window = Some(131_072);
        let a = s.args(Ipv4Addr::new(10, 99, 0, 1));
        assert_eq!(
            a.join(" "),
            "-c 10.99.0.1 -J -t 10 -u -b 1000000 -l 1470 -w 131072"
        );
        let mut t = IperfSpec::tcp_for(5.0);
        t.bytes = Some(1_024_000);
        assert_eq!(
            t.args(Ipv4Addr::new(10, 99, 0, 1)).join(" "),
            "-c 10.99.0.1 -J -n 1024000"
        );
    }
}
