//! The stations' EAP peer: wpa_supplicant (Debian `wpasupplicant`) with
//! its `wired` driver on the station's TAP `wlan0` (`ap_scan=0`,
//! `eapol_version=2`, `key_mgmt=IEEE8021X`): it sends EAPOL to the PAE
//! group address 01:80:c2:00:00:03 on `wlan0` and answers what the AP
//! relays from the RADIUS server.
//!
//! wpa_supplicant's wired driver runs EAP but no 4-way handshake, and no
//! interface of it hands the MSK to another program. Its debug log does:
//! started with `-d -K -t -f FILE`, it writes the key each EAP method
//! derives (`EAP-PEAP: Derived key - hexdump(len=64): …`,
//! `EAP-LEAP: master key - hexdump(len=16): …`) to FILE. A reader thread
//! follows FILE as it grows and sends the MSK of the configured method —
//! the outer method's line, never the inner MSCHAPv2's — as one datagram
//! to the station's key port ([`super::bss::LiveBss::msk_sender`]), where
//! the station's 4-way supplicant takes it. That is how the key the real
//! peer derived reaches the station node.

use super::net::{LiveNet, Netns, ProcId};
use super::radius::Pki;
use super::sys::{LiveError, Result};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// An EAP method of the lab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum EapMethod {
    /// PEAP (version 0) with EAP-MSCHAPv2 inside.
    Peap,
    /// EAP-TLS with a client certificate.
    Tls,
    /// EAP-TTLS with PAP inside.
    Ttls,
    /// EAP-MD5-Challenge: no keys (timing only).
    Md5,
    /// Cisco LEAP, served by wisec's own RADIUS server.
    Leap,
}

impl EapMethod {
    /// Every method, in the report's order.
    pub const ALL: [EapMethod; 5] = [
        EapMethod::Peap,
        EapMethod::Leap,
        EapMethod::Tls,
        EapMethod::Ttls,
        EapMethod::Md5,
    ];

    /// The short name (`peap`, `tls`, …).
    pub const fn name(self) -> &'static str {
        match self {
            EapMethod::Peap => "peap",
            EapMethod::Tls => "tls",
            EapMethod::Ttls => "ttls",
            EapMethod::Md5 => "md5",
            EapMethod::Leap => "leap",
        }
    }

    /// The name in reports.
    pub const fn label(self) -> &'static str {
        match self {
            EapMethod::Peap => "PEAP/MSCHAPv2",
            EapMethod::Tls => "EAP-TLS",
            EapMethod::Ttls => "EAP-TTLS/PAP",
            EapMethod::Md5 => "EAP-MD5",
            EapMethod::Leap => "LEAP",
        }
    }

    /// The method from its short name.
    pub fn parse(s: &str) -> Option<EapMethod> {
        EapMethod::ALL.into_iter().find(|m| m.name() == s)
    }

    /// Whether it derives an MSK (MD5 does not).
    pub const fn derives_keys(self) -> bool {
        !matches!(self, EapMethod::Md5)
    }

    /// The start of wpa_supplicant's debug line with the method's MSK.
    pub const fn key_line(self) -> Option<&'static str> {
        match self {
            EapMethod::Peap => Some("EAP-PEAP: Derived key - hexdump("),
            EapMethod::Tls => Some("EAP-TLS: Derived key - hexdump("),
            EapMethod::Ttls => Some("EAP-TTLS: Derived key - hexdump("),
            EapMethod::Leap => Some("EAP-LEAP: master key - hexdump("),
            EapMethod::Md5 => None,
        }
    }
}

/// What the station presents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerConfig {
    /// The method.
    pub method: EapMethod,
    /// The identity.
    pub identity: String,
    /// The password (all but EAP-TLS).
    pub password: String,
    /// The CA that must have signed the server's certificate (TLS-based
    /// methods).
    pub ca_cert: Option<PathBuf>,
    /// The client certificate and key (EAP-TLS).
    pub client: Option<(PathBuf, PathBuf)>,
}

impl PeerConfig {
    /// The lab's user with `password` (and the client certificate `cert`
    /// for EAP-TLS) for `method`, trusting the run's CA.
    pub fn new(method: EapMethod, password: &str, pki: &Pki, cert: &Path) -> PeerConfig {
        PeerConfig {
            method,
            identity: super::radius::USER.into(),
            password: password.into(),
            ca_cert: Some(pki.ca_cert.clone()),
            client: (method == EapMethod::Tls)
                .then(|| (cert.to_path_buf(), pki.client_key.clone())),
        }
    }
}

/// Quotes a string for wpa_supplicant's configuration file.
fn quoted(s: &str) -> Result<String> {
    if s.chars().any(|c| c == '"' || c == '\\' || c.is_control()) {
        return Err(LiveError::Config(format!(
            "'{s}' cannot go into wpa_supplicant's configuration"
        )));
    }
    Ok(format!("\"{s}\""))
}

/// The text of the station's wpa_supplicant configuration.
pub fn wpa_conf(p: &PeerConfig) -> Result<String> {
    let mut s = String::from(
        "# Generated by wisec for one live trial\nap_scan=0\neapol_version=2\nfast_reauth=0\nnetwork={\n\tkey_mgmt=IEEE8021X\n\teapol_flags=0\n",
    );
    let eap = match p.method {
        EapMethod::Peap => "PEAP",
        EapMethod::Tls => "TLS",
        EapMethod::Ttls => "TTLS",
        EapMethod::Md5 => "MD5",
        EapMethod::Leap => "LEAP",
    };
    let _ = writeln!(s, "\teap={eap}");
    let _ = writeln!(s, "\tidentity={}", quoted(&p.identity)?);
    if p.method != EapMethod::Tls {
        let _ = writeln!(s, "\tpassword={}", quoted(&p.password)?);
    }
    if matches!(p.method, EapMethod::Peap | EapMethod::Tls | EapMethod::Ttls) {
        if let Some(ca) = &p.ca_cert {
            let _ = writeln!(s, "\tca_cert={}", quoted(&ca.display().to_string())?);
        }
    }
    match p.method {
        EapMethod::Peap => s.push_str("\tphase2=\"auth=MSCHAPV2\"\n"),
        EapMethod::Ttls => s.push_str("\tphase2=\"auth=PAP\"\n"),
        EapMethod::Tls => {
            if let Some((cert, key)) = &p.client {
                let _ = writeln!(s, "\tclient_cert={}", quoted(&cert.display().to_string())?);
                let _ = writeln!(s, "\tprivate_key={}", quoted(&key.display().to_string())?);
            }
        }
        _ => {}
    }
    s.push_str("}\n");
    Ok(s)
}

/// The MSK in one of wpa_supplicant's hexdump lines (`… hexdump(len=N):
/// xx xx …`), checked against the announced length.
pub fn parse_hexdump(line: &str) -> Option<Vec<u8>> {
    let (head, hex) = line.split_once("):")?;
    let len: usize = head.rsplit_once("len=")?.1.trim().parse().ok()?;
    let bytes: Option<Vec<u8>> = hex
        .split_whitespace()
        .map(|h| u8::from_str_radix(h, 16).ok())
        .collect();
    bytes.filter(|b| b.len() == len && len > 0)
}

/// What the reader saw in the debug log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PeerLog {
    /// The MSK the method derived (hex).
    pub msk_hex: Option<String>,
    /// When the reader sent it to the station (wall clock since the
    /// reader started).
    pub sent_after: Option<Duration>,
    /// wpa_supplicant reported EAP success.
    pub success: bool,
    /// wpa_supplicant reported EAP failure.
    pub failure: bool,
    /// Its last lines about a TLS or certificate problem, if any.
    pub tls_error: Option<String>,
}

/// A running wpa_supplicant and the reader of its debug log.
#[derive(Debug)]
pub struct Supplicant {
    /// Its process.
    pub proc: ProcId,
    /// Its debug log.
    pub debug_log: PathBuf,
    sink: Arc<Mutex<Option<UnixDatagram>>>,
    stop: Arc<AtomicBool>,
    state: Arc<Mutex<PeerLog>>,
    reader: Option<JoinHandle<()>>,
}

impl Supplicant {
    /// Starts wpa_supplicant for `peer` on `wlan0` in `ns` (its
    /// configuration and debug log `RUN_DIR/NAME.conf`, `NAME-debug.log`)
    /// and waits until its EAPOL state machine has started on the
    /// interface, so that the AP's first EAP-Request finds it listening.
    pub fn start(
        net: &mut LiveNet,
        ns: &Netns,
        peer: &PeerConfig,
        name: &str,
    ) -> Result<Supplicant> {
        let conf = net.run_dir().join(format!("{name}.conf"));
        std::fs::write(&conf, wpa_conf(peer)?)
            .map_err(|e| LiveError::io(format!("writing {}", conf.display()), e))?;
        let debug_log = net.run_dir().join(format!("{name}-debug.log"));
        let _ = std::fs::remove_file(&debug_log);
        let args = vec![
            "-D".to_string(),
            "wired".into(),
            "-i".into(),
            "wlan0".into(),
            "-c".into(),
            conf.display().to_string(),
            "-d".into(),
            "-K".into(),
            "-t".into(),
            "-f".into(),
            debug_log.display().to_string(),
        ];
        let proc = net.spawn(ns, "wpa_supplicant", &args, name)?;
        // The wired driver reports itself associated with the PAE group
        // address and enters CONNECTING: from then on it answers.
        super::radius::wait_for_log(
            net,
            proc,
            &debug_log,
            "SUPP_PAE entering state CONNECTING",
            &format!("wpa_supplicant -D wired -i wlan0 in {}", ns.name),
            Duration::from_secs(10),
        )?;
        let sink = Arc::new(Mutex::new(None));
        let stop = Arc::new(AtomicBool::new(false));
        let state = Arc::new(Mutex::new(PeerLog::default()));
        let reader = {
            let (sink, stop, state) = (Arc::clone(&sink), Arc::clone(&stop), Arc::clone(&state));
            let (path, method) = (debug_log.clone(), peer.method);
            std::thread::Builder::new()
                .name(format!("{name}-log"))
                .spawn(move || follow(&path, method, &sink, &stop, &state))
                .map_err(|e| LiveError::io("starting the supplicant's log reader", e))?
        };
        Ok(Supplicant {
            proc,
            debug_log,
            sink,
            stop,
            state,
            reader: Some(reader),
        })
    }

    /// Where the MSK goes (the station's key port of the medium run that
    /// just started).
    pub fn set_sink(&self, sink: UnixDatagram) {
        *self
            .sink
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(sink);
    }

    /// What the reader saw so far.
    pub fn log(&self) -> PeerLog {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Stops wpa_supplicant and the reader; what the reader saw.
    pub fn stop(mut self, net: &mut LiveNet) -> PeerLog {
        net.stop(self.proc);
        self.stop.store(true, Ordering::SeqCst);
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        self.log()
    }
}

impl Drop for Supplicant {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

/// Follows `path` from its start: each complete line is read once; the
/// MSK line of `method` is sent to the sink (waiting for the sink if it
/// is not set yet).
fn follow(
    path: &Path,
    method: EapMethod,
    sink: &Mutex<Option<UnixDatagram>>,
    stop: &AtomicBool,
    state: &Mutex<PeerLog>,
) {
    let t0 = Instant::now();
    let mut file = None;
    let mut pos = 0u64;
    let mut partial = String::new();
    let mut pending: Option<Vec<u8>> = None;
    let mut buf = vec![0u8; 64 * 1024];
    while !stop.load(Ordering::Relaxed) {
        if file.is_none() {
            file = std::fs::File::open(path).ok();
        }
        let mut got = 0;
        if let Some(f) = file.as_mut() {
            if f.seek(SeekFrom::Start(pos)).is_ok() {
                if let Ok(n) = f.read(&mut buf) {
                    got = n;
                    pos += n as u64;
                    partial.push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            }
        }
        while let Some(i) = partial.find('\n') {
            let line: String = partial.drain(..=i).collect();
            let mut st = state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(prefix) = method.key_line() {
                if let Some(at) = line.find(prefix) {
                    if let Some(k) = parse_hexdump(&line[at..]) {
                        st.msk_hex = Some(k.iter().map(|b| format!("{b:02x}")).collect());
                        pending = Some(k);
                    }
                }
            }
            if line.contains("CTRL-EVENT-EAP-SUCCESS") {
                st.success = true;
            }
            if line.contains("CTRL-EVENT-EAP-FAILURE") {
                st.failure = true;
            }
            if line.contains("TLS: Certificate verification failed")
                || line.contains("CTRL-EVENT-EAP-TLS-CERT-ERROR")
                || line.contains("OpenSSL: tls_connection_handshake")
            {
                st.tls_error = Some(line.trim().to_string());
            }
        }
        if let Some(k) = pending.as_ref() {
            let g = sink
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(s) = g.as_ref() {
                if s.send(k).is_ok() {
                    state
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .sent_after = Some(t0.elapsed());
                    if let Some(mut k) = pending.take() {
                        zeroize::Zeroize::zeroize(&mut k);
                    }
                }
            }
        }
        if got == 0 {
            std::thread::sleep(Duration::from_micros(500));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_lines_parse_and_lengths_are_checked() {
        let l = "1795617631.634761: EAP-PEAP: Derived key - hexdump(len=4): 82 27 f3 f6";
        let at = l.find(EapMethod::Peap.key_line().unwrap()).unwrap();
        assert_eq!(parse_hexdump(&l[at..]), Some(vec![0x82, 0x27, 0xf3, 0xf6]));
        assert_eq!(
            parse_hexdump("EAP-LEAP: master key - hexdump(len=3): 01 02"),
            None
        );
        assert_eq!(parse_hexdump("x - hexdump(len=1): zz"), None);
        // The inner method's key is another line.
        assert!(!"EAP-MSCHAPV2: Derived key - hexdump(len=4): 00 00 00 00"
            .contains(EapMethod::Peap.key_line().unwrap()));
    }

    #[test]
    fn configurations_name_the_method_and_its_credentials() {
        let p = PeerConfig {
            method: EapMethod::Tls,
            identity: "alice".into(),
            password: "pw".into(),
            ca_cert: Some("/r/ca.pem".into()),
            client: Some(("/r/c.pem".into(), "/r/c.key".into())),
        };
        let t = wpa_conf(&p).unwrap();
        assert!(
            t.contains("eap=TLS\n") && t.contains("client_cert=\"/r/c.pem\""),
            "{t}"
        );
        assert!(!t.contains("password"));
        let mut q = p.clone();
        q.method = EapMethod::Leap;
        let t = wpa_conf(&q).unwrap();
        assert!(t.contains("eap=LEAP") && t.contains("password=\"pw\"") && !t.contains("ca_cert"));
        q.password = "a\"b".into();
        assert!(wpa_conf(&q).is_err());
        assert_eq!(EapMethod::parse("ttls"), Some(EapMethod::Ttls));
        assert_eq!(EapMethod::parse("eke"), None);
    }
}
