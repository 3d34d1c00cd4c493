//! A polled driver for the Intel 82540EM Gigabit Ethernet controller
//! (QEMU's `-device e1000`), after Intel's "PCI/PCI-X Family of Gigabit
//! Ethernet Controllers Software Developer's Manual" (8254x SDM): legacy
//! receive and transmit descriptors (3.2.3, 3.3.3), no interrupts.
//!
//! The descriptor rings and packet buffers are one static DMA area, which
//! the driver hands out once. Memory is identity-mapped (the boot code maps
//! the first 4 GiB 1:1), so a buffer's address is its bus address. Every
//! access to memory the device also writes (descriptors) is volatile; a
//! buffer is turned into a Rust slice only while the device does not own
//! it.

use super::pci;
use crate::net::Mac;
use core::ptr::{read_volatile, write_volatile};
use core::sync::atomic::{fence, AtomicBool, Ordering};

/// Receive descriptors (and 2 KiB buffers).
pub const RX_RING: usize = 2048;
/// Transmit descriptors (and 2 KiB buffers).
pub const TX_RING: usize = 64;
/// Buffer size; RCTL.BSIZE = 2048.
pub const BUF: usize = 2048;

// Register offsets (8254x SDM, 13.4).
const CTRL: usize = 0x0000;
const STATUS: usize = 0x0008;
const EERD: usize = 0x0014;
const ICR: usize = 0x00c0;
const IMS: usize = 0x00d0;
const IMC: usize = 0x00d8;
const RCTL: usize = 0x0100;
const TCTL: usize = 0x0400;
const TIPG: usize = 0x0410;
const RDBAL: usize = 0x2800;
const RDBAH: usize = 0x2804;
const RDLEN: usize = 0x2808;
const RDH: usize = 0x2810;
const RDT: usize = 0x2818;
const RDTR: usize = 0x2820;
const TDBAL: usize = 0x3800;
const TDBAH: usize = 0x3804;
const TDLEN: usize = 0x3808;
const TDH: usize = 0x3810;
const TDT: usize = 0x3818;
const MPC: usize = 0x4010;
const MTA: usize = 0x5200;
const RAL0: usize = 0x5400;
const RAH0: usize = 0x5404;

const CTRL_ASDE: u32 = 1 << 5;
const CTRL_SLU: u32 = 1 << 6;
const CTRL_LRST: u32 = 1 << 3;
const CTRL_ILOS: u32 = 1 << 7;
const CTRL_RST: u32 = 1 << 26;
const CTRL_VME: u32 = 1 << 30;
const CTRL_PHY_RST: u32 = 1 << 31;
const STATUS_LU: u32 = 1 << 1;
const RCTL_EN: u32 = 1 << 1;
const RCTL_BAM: u32 = 1 << 15;
const RCTL_SECRC: u32 = 1 << 26;
const TCTL_EN: u32 = 1 << 1;
const TCTL_PSP: u32 = 1 << 3;
const DESC_DD: u8 = 1 << 0;
const DESC_EOP: u8 = 1 << 1;
const CMD_EOP: u8 = 1 << 0;
const CMD_IFCS: u8 = 1 << 1;
const CMD_RS: u8 = 1 << 3;

/// PCI device IDs this driver takes (82540EM, 82545EM).
pub const DEVICE_IDS: [u16; 2] = [0x100e, 0x100f];

#[derive(Clone, Copy)]
#[repr(C)]
struct RxDesc {
    addr: u64,
    len: u16,
    csum: u16,
    status: u8,
    errors: u8,
    special: u16,
}

#[derive(Clone, Copy)]
#[repr(C)]
struct TxDesc {
    addr: u64,
    len: u16,
    cso: u8,
    cmd: u8,
    status: u8,
    css: u8,
    special: u16,
}

#[repr(C, align(4096))]
struct Dma {
    rx: [RxDesc; RX_RING],
    tx: [TxDesc; TX_RING],
    rx_buf: [[u8; BUF]; RX_RING],
    tx_buf: [[u8; BUF]; TX_RING],
}

const RX0: RxDesc = RxDesc {
    addr: 0,
    len: 0,
    csum: 0,
    status: 0,
    errors: 0,
    special: 0,
};
const TX0: TxDesc = TxDesc {
    addr: 0,
    len: 0,
    cso: 0,
    cmd: 0,
    status: 0,
    css: 0,
    special: 0,
};

static mut DMA: Dma = Dma {
    rx: [RX0; RX_RING],
    tx: [TX0; TX_RING],
    rx_buf: [[0; BUF]; RX_RING],
    tx_buf: [[0; BUF]; TX_RING],
};
static DMA_TAKEN: AtomicBool = AtomicBool::new(false);

/// The controller's registers.
#[derive(Debug, Clone, Copy)]
struct Regs(*mut u32);

impl Regs {
    fn read(&self, off: usize) -> u32 {
        // SAFETY: `self.0` is the controller's 128 KiB register window
        // (BAR0, identity-mapped and uncached), `off` one of the register
        // offsets above, all 4-aligned and inside the window.
        unsafe { read_volatile(self.0.add(off / 4)) }
    }

    fn write(&self, off: usize, v: u32) {
        // SAFETY: as for `read`.
        unsafe { write_volatile(self.0.add(off / 4), v) }
    }
}

/// What [`init`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Info {
    /// PCI device ID.
    pub device: u16,
    /// Register window address.
    pub bar0: u64,
    /// The MAC address.
    pub mac: Mac,
    /// Link up when initialised.
    pub link_up: bool,
    /// The legacy interrupt line the firmware routed the controller to
    /// (PCI configuration offset 0x3c), if any.
    pub irq: Option<u8>,
}

/// The receive half.
#[derive(Debug)]
pub struct Rx {
    regs: Regs,
    dma: *mut Dma,
    next: usize,
    /// Frames the controller flagged with errors or split over buffers.
    pub bad: u64,
}

/// The transmit half.
#[derive(Debug)]
pub struct Tx {
    regs: Regs,
    dma: *mut Dma,
    next: usize,
    /// Frames handed to the controller.
    pub sent: u64,
}

/// What [`Rx::poll`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Polled<R> {
    /// No frame has arrived.
    Empty,
    /// A frame, and what the handler made of it.
    Frame(R),
    /// A frame with receive errors, dropped.
    Bad,
}

fn spin_until(mut cond: impl FnMut() -> bool, limit: u64) -> bool {
    let start = super::cpu::rdtsc();
    while !cond() {
        if super::cpu::rdtsc().wrapping_sub(start) > limit {
            return false;
        }
        core::hint::spin_loop();
    }
    true
}

/// Finds, resets and starts the controller; `tsc_hz` bounds the waits.
pub fn init(tsc_hz: u64) -> Result<(Info, Rx, Tx), &'static str> {
    let (f, device) =
        pci::find(0x8086, &DEVICE_IDS).ok_or("no 82540EM/82545EM (e1000) on PCI bus 0")?;
    // Memory space and bus mastering on (PCI 3.0, 6.2.2).
    f.write(0x04, f.read(0x04) | 0x6);
    let bar0 = f.read(0x10);
    if bar0 & 1 != 0 {
        return Err("e1000 BAR0 is an I/O BAR");
    }
    let mut base = u64::from(bar0 & !0xf);
    if (bar0 >> 1) & 3 == 2 {
        base |= u64::from(f.read(0x14)) << 32;
    }
    if base == 0 || base >= 1 << 32 {
        return Err("e1000 BAR0 is not below 4 GiB");
    }
    if DMA_TAKEN.swap(true, Ordering::AcqRel) {
        return Err("e1000 already initialised");
    }
    let regs = Regs(base as *mut u32);
    let dma = &raw mut DMA;

    // Reset (8254x SDM 14.1, 13.4.1), interrupts masked: this driver polls.
    regs.write(CTRL, regs.read(CTRL) | CTRL_RST);
    if !spin_until(|| regs.read(CTRL) & CTRL_RST == 0, tsc_hz / 10) {
        return Err("e1000 did not come out of reset");
    }
    regs.write(IMC, 0xffff_ffff);
    let _ = regs.read(ICR);
    let ctrl = regs.read(CTRL);
    regs.write(
        CTRL,
        (ctrl | CTRL_SLU | CTRL_ASDE) & !(CTRL_LRST | CTRL_PHY_RST | CTRL_ILOS | CTRL_VME),
    );

    let mac = read_mac(regs, tsc_hz)?;
    for i in 0..128 {
        regs.write(MTA + 4 * i, 0);
    }

    // SAFETY: `dma` points to the static DMA area, which this function
    // owns alone from here on (DMA_TAKEN). The device is reset and its
    // receiver and transmitter are off, so nothing else touches the area
    // while the descriptors are written.
    unsafe {
        for i in 0..RX_RING {
            let d = &raw mut (*dma).rx[i];
            write_volatile(
                d,
                RxDesc {
                    addr: (&raw const (*dma).rx_buf[i]) as u64,
                    ..RX0
                },
            );
        }
        for i in 0..TX_RING {
            let d = &raw mut (*dma).tx[i];
            // Marked done, so that the first use of each finds it free.
            write_volatile(
                d,
                TxDesc {
                    addr: (&raw const (*dma).tx_buf[i]) as u64,
                    status: DESC_DD,
                    ..TX0
                },
            );
        }
    }
    fence(Ordering::SeqCst);
    let rx_ring = dma as u64 + core::mem::offset_of!(Dma, rx) as u64;
    let tx_ring = dma as u64 + core::mem::offset_of!(Dma, tx) as u64;
    regs.write(RDBAL, rx_ring as u32);
    regs.write(RDBAH, (rx_ring >> 32) as u32);
    regs.write(RDLEN, (RX_RING * 16) as u32);
    regs.write(RDH, 0);
    regs.write(RDT, (RX_RING - 1) as u32);
    // Broadcast accepted (ARP), CRC stripped, 2048-octet buffers.
    regs.write(RCTL, RCTL_EN | RCTL_BAM | RCTL_SECRC);
    regs.write(TDBAL, tx_ring as u32);
    regs.write(TDBAH, (tx_ring >> 32) as u32);
    regs.write(TDLEN, (TX_RING * 16) as u32);
    regs.write(TDH, 0);
    regs.write(TDT, 0);
    // Short frames padded, collision threshold 0x10, full-duplex
    // collision distance 0x40 (13.4.33); IPG 10/8/6 for copper (13.4.34).
    regs.write(TCTL, TCTL_EN | TCTL_PSP | (0x10 << 4) | (0x40 << 12));
    regs.write(TIPG, 10 | (8 << 10) | (6 << 20));
    let link_up = spin_until(|| regs.read(STATUS) & STATUS_LU != 0, tsc_hz / 20);
    let line = (f.read(0x3c) & 0xff) as u8;
    let irq = (1..16).contains(&line).then_some(line);
    Ok((
        Info {
            device,
            bar0: base,
            mac,
            link_up,
            irq,
        },
        Rx {
            regs,
            dma,
            next: 0,
            bad: 0,
        },
        Tx {
            regs,
            dma,
            next: 0,
            sent: 0,
        },
    ))
}

fn read_mac(regs: Regs, tsc_hz: u64) -> Result<Mac, &'static str> {
    let (ral, rah) = (regs.read(RAL0), regs.read(RAH0));
    let mut mac = [0u8; 6];
    if rah & (1 << 31) != 0 {
        mac[..4].copy_from_slice(&ral.to_le_bytes());
        mac[4..].copy_from_slice(&rah.to_le_bytes()[..2]);
        return Ok(mac);
    }
    // EEPROM words 0..3 through EERD (13.4.4), then the receive address.
    for w in 0..3u32 {
        regs.write(EERD, 1 | (w << 8));
        if !spin_until(|| regs.read(EERD) & (1 << 4) != 0, tsc_hz / 100) {
            return Err("e1000 EEPROM read timed out");
        }
        let v = (regs.read(EERD) >> 16) as u16;
        mac[2 * w as usize..2 * w as usize + 2].copy_from_slice(&v.to_le_bytes());
    }
    regs.write(RAL0, u32::from_le_bytes([mac[0], mac[1], mac[2], mac[3]]));
    regs.write(
        RAH0,
        u32::from(u16::from_le_bytes([mac[4], mac[5]])) | (1 << 31),
    );
    Ok(mac)
}

impl Rx {
    /// Hands the next received frame (without FCS) to `f`, then gives its
    /// buffer back to the controller.
    pub fn poll<R>(&mut self, f: impl FnOnce(&mut [u8]) -> R) -> Polled<R> {
        let i = self.next;
        // SAFETY: `self.dma` is the static DMA area owned by this driver;
        // descriptor `i` is read volatilely because the device writes it.
        let d = unsafe { &raw mut (*self.dma).rx[i] };
        // SAFETY: `d` points to a valid, aligned descriptor.
        let status = unsafe { read_volatile(&raw const (*d).status) };
        if status & DESC_DD == 0 {
            return Polled::Empty;
        }
        // The descriptor's other fields and the buffer were written before
        // DD (8254x SDM 3.2.3): read them after it.
        fence(Ordering::Acquire);
        // SAFETY: as above.
        let (len, errors) = unsafe {
            (
                read_volatile(&raw const (*d).len),
                read_volatile(&raw const (*d).errors),
            )
        };
        let out = if status & DESC_EOP != 0 && errors == 0 {
            // SAFETY: DD is set, so the device has finished with buffer
            // `i` and will not write it again until RDT passes it, which
            // happens below, after `f` returns and the slice is gone. The
            // length is clamped to the buffer.
            let buf = unsafe {
                core::slice::from_raw_parts_mut(
                    (&raw mut (*self.dma).rx_buf[i]).cast::<u8>(),
                    usize::from(len).min(BUF),
                )
            };
            Polled::Frame(f(buf))
        } else {
            self.bad += 1;
            Polled::Bad
        };
        // SAFETY: `d` is valid; the device does not own the descriptor
        // until RDT moves past it.
        unsafe { write_volatile(&raw mut (*d).status, 0) };
        fence(Ordering::Release);
        self.regs.write(RDT, i as u32);
        self.next = (i + 1) % RX_RING;
        out
    }

    /// True when no received frame waits in the ring.
    pub fn peek_empty(&self) -> bool {
        // SAFETY: as in `poll`: a volatile read of a descriptor of the
        // static DMA area this driver owns.
        let status = unsafe { read_volatile(&raw const (*self.dma).rx[self.next].status) };
        status & DESC_DD == 0
    }

    /// Lets a received frame raise the controller's interrupt (receive
    /// timer with no delay, RXT0; 13.4.20), so an idle machine can halt
    /// until a frame comes. The frames are still taken by polling.
    pub fn enable_interrupt(&self) {
        self.regs.write(RDTR, 0);
        self.regs.write(IMS, 1 << 7);
    }

    /// Reads (and so clears) the interrupt causes, which lowers the
    /// interrupt line.
    pub fn clear_interrupt(&self) -> u32 {
        self.regs.read(ICR)
    }

    /// Frames the controller missed for want of a free descriptor (MPC,
    /// cleared by reading).
    pub fn missed(&self) -> u32 {
        self.regs.read(MPC)
    }
}

impl Tx {
    /// Has `fill` write a frame (without FCS) into the next transmit
    /// buffer and return its length, and hands it to the controller.
    /// False when `fill` wrote nothing or no descriptor came free within
    /// `limit` TSC ticks.
    pub fn send(&mut self, limit: u64, fill: impl FnOnce(&mut [u8]) -> usize) -> bool {
        let i = self.next;
        // SAFETY: `self.dma` is the static DMA area owned by this driver.
        let d = unsafe { &raw mut (*self.dma).tx[i] };
        // SAFETY: `d` points to a valid, aligned descriptor that the device
        // writes (DD), hence the volatile read.
        let free = || unsafe { read_volatile(&raw const (*d).status) } & DESC_DD != 0;
        if !spin_until(free, limit) {
            return false;
        }
        fence(Ordering::Acquire);
        // SAFETY: DD is set: the device is done with buffer `i` and reads
        // it again only after TDT moves past it, below, once the slice is
        // gone.
        let buf = unsafe {
            core::slice::from_raw_parts_mut((&raw mut (*self.dma).tx_buf[i]).cast::<u8>(), BUF)
        };
        let len = fill(buf).min(BUF);
        if len == 0 {
            return false;
        }
        // SAFETY: the descriptor is the driver's until TDT moves.
        unsafe {
            write_volatile(&raw mut (*d).len, len as u16);
            write_volatile(&raw mut (*d).cmd, CMD_EOP | CMD_IFCS | CMD_RS);
            write_volatile(&raw mut (*d).status, 0);
        }
        fence(Ordering::Release);
        self.next = (i + 1) % TX_RING;
        self.regs.write(TDT, self.next as u32);
        self.sent += 1;
        true
    }
}
