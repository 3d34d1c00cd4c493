//! The x86-64 machine: everything that touches hardware, and the only
//! module of this crate with `unsafe` code.
//!
//! - [`cpu`]: port I/O, the TSC, CPUID, the IDT, halting, QEMU's exit port;
//! - [`serial`]: the COM1 console;
//! - [`pit`]: the TSC rate, measured against the 8254 PIT;
//! - [`fwcfg`]: the configuration file QEMU hands over (fw_cfg);
//! - [`pci`]: configuration space;
//! - [`e1000`]: the polled 82540EM driver and its DMA rings;
//! - [`pic`]: the 8259A interrupt controllers, for the idle loop's wake-up;
//! - `boot` (image builds only): the Multiboot entry, long mode, the
//!   exception stubs, the memory routines, the panic handler.
//!
//! Each `unsafe` block carries a `SAFETY:` argument. Port I/O is wrapped
//! in functions private to this module: they are sound because only the
//! drivers here call them, each on its own device's ports. [`run`] is the
//! program: it boots, checks itself, and answers the CCM-UDP exchange
//! until the machine is switched off.

pub mod cpu;
pub mod e1000;
pub mod fwcfg;
pub mod pci;
pub mod pic;
pub mod pit;
pub mod serial;

#[cfg(wisec_bare_image)]
mod boot;

use crate::config::Config;
use crate::net::{self, Iface, Ignore, Input, Peer};
use crate::responder::{Link, Responder};
use crate::selftest;
use crate::wire::Reject;
use core::fmt::Write;
use e1000::{Polled, Rx, Tx};
use serial::Serial;
use zeroize::Zeroize;

/// The name the machine gives itself in reports.
pub const PLATFORM: &str = "bare-x86_64";
/// The fw_cfg file that holds the configuration.
pub const CONFIG_FILE: &[u8] = b"opt/wisec/config";

/// Counters of the network stack below the responder.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NetStats {
    /// Frames received.
    pub rx: u64,
    /// ARP requests answered.
    pub arp: u64,
    /// Frames for another host, or of another protocol.
    pub ignored: u64,
    /// Malformed Ethernet, ARP, IPv4 or UDP headers.
    pub malformed: u64,
    /// IPv4 or UDP checksums that did not add up.
    pub bad_checksum: u64,
    /// IPv4 fragments (never reassembled).
    pub fragments: u64,
    /// UDP datagrams to another port.
    pub other_port: u64,
    /// Frames the controller missed (MPC), summed.
    pub missed: u64,
}

/// The responder's link: the e1000 transmitter, the TSC, and the stack's
/// counters for reports.
struct GuestLink<'a> {
    tx: &'a mut Tx,
    iface: Iface,
    port: u16,
    ident: &'a mut u16,
    stats: &'a NetStats,
    aes_ni: bool,
    bad_rx: u64,
    tx_limit: u64,
}

impl Link<Peer> for GuestLink<'_> {
    fn now(&mut self) -> u64 {
        cpu::rdtsc()
    }

    fn send(&mut self, to: &Peer, fill: &mut dyn FnMut(&mut [u8]) -> usize) -> bool {
        let (iface, port) = (self.iface, self.port);
        *self.ident = self.ident.wrapping_add(1);
        let ident = *self.ident;
        self.tx.send(self.tx_limit, |frame| {
            let room = frame.len().min(net::MAX_FRAME);
            let Some(payload) = frame.get_mut(net::UDP_OFFSET..room) else {
                return 0;
            };
            match fill(payload) {
                0 => 0,
                n => net::finish_udp(frame, &iface, port, to, n, ident),
            }
        })
    }

    fn report_extra(&mut self, out: &mut dyn Write) -> core::fmt::Result {
        let s = self.stats;
        writeln!(out, "aes_ni {}", u8::from(self.aes_ni))?;
        writeln!(out, "clock tsc-pit")?;
        writeln!(out, "frames_rx {}", s.rx)?;
        writeln!(out, "frames_tx {}", self.tx.sent)?;
        writeln!(out, "arp_answered {}", s.arp)?;
        writeln!(out, "frames_ignored {}", s.ignored)?;
        writeln!(out, "frames_malformed {}", s.malformed)?;
        writeln!(out, "bad_checksum {}", s.bad_checksum)?;
        writeln!(out, "ip_fragments {}", s.fragments)?;
        writeln!(out, "udp_other_port {}", s.other_port)?;
        writeln!(out, "nic_rx_errors {}", self.bad_rx)?;
        writeln!(out, "nic_missed {}", s.missed)
    }
}

fn fatal(con: &mut Serial, code: u8, what: core::fmt::Arguments<'_>) -> ! {
    let _ = writeln!(con, "fatal: {what}");
    cpu::exit(code)
}

/// The machine's program: console, clock, configuration, self-test, NIC,
/// then the responder's loop. Exit codes through QEMU's isa-debug-exit:
/// 2 self-test failed, 3 panic, 4 CPU exception, 5 configuration, 6 NIC.
pub fn run(magic: u32, _info: u32) -> ! {
    let mut con = Serial::init();
    #[cfg(wisec_bare_image)]
    boot::install_idt();
    let _ = writeln!(
        con,
        "wisec-bare {}: running with no operating system (Multiboot magic {magic:#x})",
        env!("CARGO_PKG_VERSION")
    );
    let feat = cpu::features();
    let _ = writeln!(
        con,
        "cpu: {} aes-ni {} hypervisor {}",
        core::str::from_utf8(&feat.vendor).unwrap_or("?"),
        if feat.aes_ni { "yes" } else { "no" },
        if feat.hypervisor { "yes" } else { "no" },
    );
    let cal = pit::calibrate();
    let hz = cal.hz;
    let _ = write!(
        con,
        "tsc: {hz} Hz, measured against the PIT ({} of {} windows of 10 ms clean: {} to {} Hz)",
        cal.windows.1, cal.windows.0, cal.range.0, cal.range.1
    );
    match feat.tsc_leaf_hz {
        Some(h) => {
            let _ = writeln!(con, "; CPUID 15H says {h} Hz");
        }
        None => {
            let _ = writeln!(con);
        }
    }

    // The NIC first: QEMU's e1000 holds received frames for a second
    // after its receiver is enabled, which the rest of the boot overlaps.
    let (info, mut rx, mut tx) = match e1000::init(hz) {
        Ok(x) => x,
        Err(e) => fatal(&mut con, 6, format_args!("{e}")),
    };
    let m = info.mac;
    let _ = writeln!(
        con,
        "e1000: device {:04x}, registers at {:#x}, irq {}, mac {:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}, link {}",
        info.device,
        info.bar0,
        info.irq.unwrap_or(0),
        m[0],
        m[1],
        m[2],
        m[3],
        m[4],
        m[5],
        if info.link_up { "up" } else { "down" }
    );
    let mut text = [0u8; 1024];
    let cfg = match fwcfg::read_file(CONFIG_FILE, &mut text) {
        None => Config::default(),
        Some(n) if n > text.len() => fatal(
            &mut con,
            5,
            format_args!("config: longer than {} octets", text.len()),
        ),
        Some(n) => match Config::parse(&text[..n]) {
            Ok(c) => c,
            Err(e) => fatal(
                &mut con,
                5,
                format_args!("config line {}: {}", e.line, e.why),
            ),
        },
    };
    text.zeroize();
    let _ = writeln!(
        con,
        "config: ip {}.{}.{}.{} port {} key {}",
        cfg.ip[0],
        cfg.ip[1],
        cfg.ip[2],
        cfg.ip[3],
        cfg.port,
        if cfg.key.is_some() {
            "given"
        } else {
            "none (plain messages only)"
        }
    );

    let t = cpu::rdtsc();
    let st = selftest::run();
    let took_us = (cpu::rdtsc() - t) * 1_000_000 / hz.max(1);
    let engine = if feat.aes_ni {
        "AES-NI"
    } else {
        "portable AES"
    };
    if !st.ok() {
        fatal(
            &mut con,
            2,
            format_args!(
                "selftest: {}/{} vectors passed; {} FAILED",
                st.passed,
                st.run,
                st.first_failure.unwrap_or("?")
            ),
        );
    }
    let _ = writeln!(
        con,
        "selftest: {}/{} CCM and CCMP known-answer vectors passed ({engine}, {took_us} us): OK",
        st.passed, st.run
    );

    let iface = Iface {
        mac: info.mac,
        ip: cfg.ip,
    };
    let port = cfg.port;
    // An ARP announcement (RFC 5227, 2.3): the network learns this
    // machine's address before its first datagram, instead of holding
    // that datagram while it asks.
    let announced = tx.send(hz / 10, |b| net::arp(b, &iface, 1, &[0; 6], &iface.ip));
    let mut responder: Responder<Peer> =
        Responder::new(cfg.key.as_ref(), hz, cpu::rdtsc(), PLATFORM);
    drop(cfg);
    let ready = cpu::rdtsc();
    let _ = writeln!(
        con,
        "ready: udp {}.{}.{}.{}:{port}{}, {} since reset ({} ms)",
        iface.ip[0],
        iface.ip[1],
        iface.ip[2],
        iface.ip[3],
        if announced { " (announced)" } else { "" },
        ready,
        ready * 1000 / hz.max(1)
    );
    serve(
        &mut rx,
        &mut tx,
        iface,
        port,
        &mut responder,
        hz,
        feat.aes_ni,
        info.irq,
    )
}

/// How long the loop keeps polling an empty ring before it halts until
/// the NIC's interrupt: 20 us.
const SPIN_US: u64 = 20;

#[allow(clippy::too_many_arguments)]
fn serve(
    rx: &mut Rx,
    tx: &mut Tx,
    iface: Iface,
    port: u16,
    responder: &mut Responder<Peer>,
    hz: u64,
    aes_ni: bool,
    irq: Option<u8>,
) -> ! {
    let mut stats = NetStats::default();
    let mut ident = 0u16;
    let mut idle = 0u32;
    // Frames are taken by polling; when the ring stays empty the machine
    // halts until the NIC's receive interrupt or the PIT's 1 ms tick,
    // whichever comes first, instead of spinning (under an emulator a
    // spinning CPU takes a host core from the network). Without an
    // interrupt line it polls all the time.
    let halt = cfg!(wisec_bare_image) && irq.is_some();
    if let (true, Some(line)) = (halt, irq) {
        pic::init(line);
        pit::start_tick(1000);
        rx.enable_interrupt();
    }
    let spin = hz / 1_000_000 * SPIN_US;
    let mut empty_since = cpu::rdtsc();
    loop {
        let bad_rx = rx.bad;
        let polled = rx.poll(|frame| {
            let arrived = cpu::rdtsc();
            stats.rx += 1;
            match net::parse(frame, &iface) {
                Input::ArpRequest { mac, ip } => {
                    if tx.send(hz / 10, |b| net::arp(b, &iface, 2, &mac, &ip)) {
                        stats.arp += 1;
                    }
                }
                Input::ArpReply { .. } => {}
                Input::Udp {
                    from,
                    port: p,
                    payload,
                } if p == port => {
                    let snapshot = stats;
                    let mut link = GuestLink {
                        tx,
                        iface,
                        port,
                        ident: &mut ident,
                        stats: &snapshot,
                        aes_ni,
                        bad_rx,
                        tx_limit: hz / 10,
                    };
                    responder.handle(arrived, from, &mut frame[payload], &mut link);
                }
                Input::Udp { .. } => stats.other_port += 1,
                Input::Ignored(Ignore::Fragment) => {
                    stats.fragments += 1;
                    responder.reject(Reject::Oversized);
                }
                Input::Ignored(Ignore::BadIpChecksum | Ignore::BadUdpChecksum) => {
                    stats.bad_checksum += 1
                }
                Input::Ignored(Ignore::Malformed) => stats.malformed += 1,
                Input::Ignored(_) => stats.ignored += 1,
            }
        });
        if polled != Polled::Empty {
            empty_since = cpu::rdtsc();
            continue;
        }
        idle = idle.wrapping_add(1);
        // Now and then, fold the controller's missed-frame count in.
        if idle.is_multiple_of(65_536) {
            stats.missed += u64::from(rx.missed());
        }
        if halt && cpu::rdtsc().wrapping_sub(empty_since) > spin {
            // Clear the causes (lowering the line), then look once more: a
            // frame that came before the clear is in the ring; one after it
            // raises the line again and wakes the HLT.
            rx.clear_interrupt();
            if rx.peek_empty() {
                cpu::halt_until_interrupt();
            }
            empty_since = cpu::rdtsc();
        } else {
            core::hint::spin_loop();
        }
    }
}
