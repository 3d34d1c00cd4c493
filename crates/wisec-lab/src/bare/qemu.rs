//! Booting the bare machine under QEMU.
//!
//! The guest runs with TCG (`-accel tcg -cpu max`; KVM is not used), an
//! e1000 on QEMU's user-mode network, its console on standard output
//! (read here line by line) and its configuration (key, address, port) in
//! the fw_cfg file `opt/wisec/config`, written to a file readable by its
//! owner only and removed once the guest is up, so the key is never on a
//! command line. The only forwarding rule is
//! `udp:127.0.0.1:PORT-:GUEST_PORT`: the peer talks to the guest through
//! the host's loopback, and the guest only ever answers the source of a
//! datagram (which QEMU maps back to that loopback socket), so no traffic
//! leaves the machine.
//!
//! Every QEMU this process starts is named `wisec-bare-TAG` (the process
//! id and start time) and killed when its [`Guest`] is dropped; a new run
//! first kills the guests of runs that died without cleaning up.

use super::BareError;
use crate::live::sys;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wisec_bare::wire::{DEFAULT_PORT, KEY_LEN};
use zeroize::Zeroizing;

/// The prefix of every guest's QEMU name.
pub const NAME_PREFIX: &str = "wisec-bare-";

static COUNTER: AtomicU32 = AtomicU32::new(0);
/// Process ids of the guests that run now, for [`kill_all`].
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// How to boot a guest.
#[derive(Debug, Clone)]
pub struct GuestOptions {
    /// The ELF32 image.
    pub image: PathBuf,
    /// QEMU's CPU model: `max` (AES-NI) or e.g. `qemu64` (none).
    pub cpu: String,
    /// Memory, MiB.
    pub memory_mb: u32,
    /// The guest's UDP port.
    pub guest_port: u16,
    /// The loopback port forwarded to it (0: a free one).
    pub host_port: u16,
    /// How long to wait for the guest to say it is ready.
    pub boot_timeout: Duration,
    /// Where to copy the console, line by line.
    pub console_log: Option<PathBuf>,
}

impl GuestOptions {
    /// Defaults for `image`.
    pub fn new(image: &Path) -> GuestOptions {
        GuestOptions {
            image: image.to_path_buf(),
            cpu: "max".into(),
            memory_mb: 64,
            guest_port: DEFAULT_PORT,
            host_port: 0,
            boot_timeout: Duration::from_secs(20),
            console_log: None,
        }
    }
}

/// What the guest said while booting.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Boot {
    /// Its console lines up to `ready:`.
    pub console: Vec<String>,
    /// The TSC rate it measured, Hz.
    pub tsc_hz: u64,
    /// Whether its CPU has AES-NI.
    pub aes_ni: bool,
    /// The self-test line.
    pub selftest: String,
    /// Wall-clock time from starting QEMU to the `ready:` line, ms.
    pub host_ms: f64,
    /// The guest's own time from machine reset to ready (TSC), ms.
    pub guest_ms: f64,
    /// Wall-clock time from starting QEMU to the guest's first answer, ms.
    /// QEMU's e1000 model holds received frames for one second after the
    /// driver enables its receiver (RCTL), so this is about a second more
    /// than `host_ms`.
    pub answering_ms: f64,
}

/// A running guest.
#[derive(Debug)]
pub struct Guest {
    child: Child,
    /// Where the peer sends (127.0.0.1 and the forwarded port).
    pub addr: SocketAddr,
    /// What it said while booting.
    pub boot: Boot,
    console: Arc<Mutex<Vec<String>>>,
    /// The QEMU name (`wisec-bare-TAG`).
    pub name: String,
}

fn free_udp_port() -> Result<u16, BareError> {
    let s = UdpSocket::bind("127.0.0.1:0")
        .map_err(|e| BareError::Io("finding a free UDP port on 127.0.0.1".into(), e))?;
    s.local_addr()
        .map(|a| a.port())
        .map_err(|e| BareError::Io("finding a free UDP port".into(), e))
}

fn field(line: &str, after: &str) -> Option<u64> {
    let rest = &line[line.find(after)? + after.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Kills every guest this process started (for a second Ctrl-C, which
/// does not wait for the run to unwind).
pub fn kill_all() {
    let pids = RUNNING.lock().map(|g| g.clone()).unwrap_or_default();
    for pid in pids {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// Kills the guests of earlier runs of wisec that ended without stopping
/// them: QEMU processes named `wisec-bare-PID-START-N` whose PID no longer
/// runs with that start time. Returns their names.
pub fn remove_leftovers() -> Vec<String> {
    let mut killed = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return killed;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<&[u8]> = cmd.split(|b| *b == 0).collect();
        let Some(i) = args.iter().position(|a| *a == b"-name") else {
            continue;
        };
        let Some(name) = args.get(i + 1).and_then(|a| std::str::from_utf8(a).ok()) else {
            continue;
        };
        let Some(tag) = name.strip_prefix(NAME_PREFIX) else {
            continue;
        };
        let mut parts = tag.split('-');
        let (Some(owner), Some(start)) = (
            parts.next().and_then(|p| p.parse::<u32>().ok()),
            parts.next().and_then(|s| u64::from_str_radix(s, 16).ok()),
        ) else {
            continue;
        };
        let alive = sys::process_start(owner).is_some_and(|s| s & 0xffff == start);
        if !alive {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
            killed.push(name.to_string());
        }
    }
    killed
}

impl Guest {
    /// Boots a guest with `key` (none: it serves plain messages only) and
    /// waits until it is ready.
    pub fn boot(opts: &GuestOptions, key: Option<&[u8; KEY_LEN]>) -> Result<Guest, BareError> {
        let qemu =
            sys::find_program("qemu-system-x86_64").map_err(|e| BareError::Tool(e.to_string()))?;
        if !opts.image.is_file() {
            return Err(BareError::Tool(format!(
                "{}: no such image (run 'wisec bare build')",
                opts.image.display()
            )));
        }
        let mut config = tempfile::Builder::new()
            .prefix(".wisec-bare-config-")
            .tempfile()
            .map_err(|e| BareError::Io("creating the guest's configuration file".into(), e))?;
        let mut text = Zeroizing::new(format!("port={}\n", opts.guest_port));
        if let Some(k) = key {
            text.push_str("key=");
            for b in k {
                text.push_str(&format!("{b:02x}"));
            }
            text.push('\n');
        }
        config
            .write_all(text.as_bytes())
            .and_then(|()| config.flush())
            .map_err(|e| BareError::Io("writing the guest's configuration file".into(), e))?;
        let pid = std::process::id();
        let start = sys::process_start(pid).unwrap_or(0) & 0xffff;
        let name = format!(
            "{NAME_PREFIX}{pid}-{start:04x}-{}",
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let mut last = None;
        for _ in 0..3 {
            let port = if opts.host_port == 0 {
                free_udp_port()?
            } else {
                opts.host_port
            };
            match Self::start(&qemu, opts, config.path(), &name, port) {
                Ok(g) => return Ok(g),
                Err(BareError::PortTaken(p)) if opts.host_port == 0 => {
                    last = Some(BareError::PortTaken(p));
                }
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or(BareError::Tool("QEMU did not start".into())))
    }

    fn start(
        qemu: &Path,
        opts: &GuestOptions,
        config: &Path,
        name: &str,
        port: u16,
    ) -> Result<Guest, BareError> {
        let mut cmd = Command::new(qemu);
        cmd.args(["-name", name, "-accel", "tcg", "-cpu", &opts.cpu])
            .args(["-m", &opts.memory_mb.to_string()])
            .args(["-nodefaults", "-display", "none", "-no-reboot"])
            .args(["-serial", "stdio", "-monitor", "none"])
            .args(["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"])
            .arg("-kernel")
            .arg(&opts.image)
            .arg("-fw_cfg")
            .arg(format!("name=opt/wisec/config,file={}", config.display()))
            .arg("-netdev")
            .arg(format!(
                "user,id=n0,hostfwd=udp:127.0.0.1:{port}-:{}",
                opts.guest_port
            ))
            .args(["-device", "e1000,netdev=n0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let line = sys::command_line(&cmd);
        let t0 = Instant::now();
        let mut child = cmd
            .spawn()
            .map_err(|e| BareError::Tool(format!("starting {line}: {e}")))?;
        if let Ok(mut g) = RUNNING.lock() {
            g.push(child.id());
        }
        let console = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel::<(String, Instant)>();
        let stdout = child.stdout.take();
        let c2 = Arc::clone(&console);
        let mut log = match &opts.console_log {
            Some(p) => Some(
                std::fs::File::create(p)
                    .map_err(|e| BareError::Io(format!("creating {}", p.display()), e))?,
            ),
            None => None,
        };
        std::thread::spawn(move || {
            let Some(out) = stdout else { return };
            for l in BufReader::new(out).lines() {
                let Ok(l) = l else { break };
                let l = l.trim_end_matches('\r').to_string();
                if let Some(f) = log.as_mut() {
                    let _ = writeln!(f, "{l}");
                }
                if let Ok(mut g) = c2.lock() {
                    g.push(l.clone());
                }
                let _ = tx.send((l, Instant::now()));
            }
        });
        let stderr = child.stderr.take();
        let err_text = Arc::new(Mutex::new(String::new()));
        let e2 = Arc::clone(&err_text);
        std::thread::spawn(move || {
            let Some(err) = stderr else { return };
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                if let Ok(mut g) = e2.lock() {
                    g.push_str(&l);
                    g.push('\n');
                }
            }
        });
        let mut guest = Guest {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            boot: Boot::default(),
            console,
            name: name.to_string(),
        };
        let deadline = t0 + opts.boot_timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left.min(Duration::from_millis(50))) {
                Ok((l, at)) => {
                    guest.boot.console.push(l.clone());
                    if l.starts_with("tsc: ") {
                        guest.boot.tsc_hz = field(&l, "tsc: ").unwrap_or(0);
                    } else if l.starts_with("cpu: ") {
                        guest.boot.aes_ni = l.contains("aes-ni yes");
                    } else if l.starts_with("selftest: ") {
                        guest.boot.selftest = l.clone();
                    } else if l.starts_with("ready: ") {
                        guest.boot.host_ms = at.duration_since(t0).as_secs_f64() * 1e3;
                        let ticks = field(&l, ", ").unwrap_or(0);
                        if guest.boot.tsc_hz > 0 {
                            guest.boot.guest_ms = ticks as f64 / guest.boot.tsc_hz as f64 * 1e3;
                        }
                        guest.probe(deadline)?;
                        guest.boot.answering_ms = t0.elapsed().as_secs_f64() * 1e3;
                        return Ok(guest);
                    } else if l.starts_with("fatal: ") {
                        return Err(BareError::Guest(format!(
                            "the guest stopped: {}",
                            guest.boot.console.join("\n")
                        )));
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
            if let Ok(Some(st)) = guest.child.try_wait() {
                std::thread::sleep(Duration::from_millis(20));
                let err = err_text.lock().map(|g| g.clone()).unwrap_or_default();
                if err.contains("Could not set up host forwarding rule") {
                    return Err(BareError::PortTaken(port));
                }
                return Err(BareError::Guest(format!(
                    "QEMU exited ({st}) before the guest was ready: {}{}",
                    err.trim(),
                    if guest.boot.console.is_empty() {
                        String::new()
                    } else {
                        format!("\nconsole:\n{}", guest.boot.console.join("\n"))
                    }
                )));
            }
            if Instant::now() >= deadline {
                return Err(BareError::Guest(format!(
                    "the guest was not ready within {} s; console so far:\n{}",
                    opts.boot_timeout.as_secs_f64(),
                    guest.boot.console.join("\n")
                )));
            }
        }
    }

    /// Sends plain REPORT_REQUESTs every 25 ms until one is answered: the
    /// guest is ready for a peer only once its NIC takes frames.
    fn probe(&mut self, deadline: Instant) -> Result<(), BareError> {
        let sock = UdpSocket::bind("127.0.0.1:0")
            .map_err(|e| BareError::Io("binding a UDP socket".into(), e))?;
        sock.set_read_timeout(Some(Duration::from_millis(25)))
            .map_err(|e| BareError::Io("setting a socket timeout".into(), e))?;
        let probe = wisec_bare::wire::Header {
            kind: wisec_bare::wire::Kind::ReportRequest,
            protected: false,
            sender: wisec_bare::wire::Sender::Initiator,
            session: 0,
            pn: 0,
        }
        .to_bytes();
        let mut buf = [0u8; 2048];
        while Instant::now() < deadline {
            sock.send_to(&probe, self.addr)
                .map_err(|e| BareError::Io(format!("sending to {}", self.addr), e))?;
            if let Ok((_, from)) = sock.recv_from(&mut buf) {
                if from == self.addr {
                    return Ok(());
                }
            }
            if !self.running() {
                break;
            }
        }
        Err(BareError::Guest(format!(
            "the guest said it was ready but did not answer on {}; console:\n{}",
            self.addr,
            self.console().join("\n")
        )))
    }

    /// Every console line so far.
    pub fn console(&self) -> Vec<String> {
        self.console.lock().map(|g| g.clone()).unwrap_or_default()
    }

    /// The QEMU process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether QEMU still runs.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Guest {
    fn drop(&mut self) {
        let pid = self.child.id();
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Ok(mut g) = RUNNING.lock() {
            g.retain(|p| *p != pid);
        }
    }
}
