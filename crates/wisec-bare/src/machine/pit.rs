//! The TSC's rate, measured against the 8254 programmable interval timer
//! (PIT), whose input clock is 1.193182 MHz on every PC.
//!
//! Channel 2 is used as a one-shot (mode 0) gated by port 0x61 bit 0; its
//! output is read at port 0x61 bit 5. The TSC is read when the gate opens
//! and when the output goes high; the median of several 10 ms windows is
//! taken. Under QEMU's TCG both the PIT and the guest's TSC follow the
//! host's clock, so the guest measures real (host) time.

use super::cpu::{inb, outb, rdtsc};

/// The PIT's input clock, Hz.
pub const PIT_HZ: u64 = 1_193_182;
/// PIT counts per window (10 ms).
const COUNT: u16 = 11_932;
/// Windows measured.
const WINDOWS: usize = 5;

/// The measured TSC rate and the spread of the windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Calibration {
    /// Median TSC ticks per second.
    pub hz: u64,
    /// Lowest and highest window's rate.
    pub range: (u64, u64),
}

fn window() -> u64 {
    let gate = inb(0x61);
    // Gate low, speaker off, while the counter is loaded.
    outb(0x61, gate & !0x03);
    // Channel 2, low then high octet, mode 0, binary.
    outb(0x43, 0b1011_0000);
    outb(0x42, COUNT as u8);
    outb(0x42, (COUNT >> 8) as u8);
    // Open the gate: counting starts.
    outb(0x61, (gate & !0x02) | 0x01);
    let t0 = rdtsc();
    while inb(0x61) & 0x20 == 0 {}
    let t1 = rdtsc();
    outb(0x61, gate & !0x03);
    t1.wrapping_sub(t0)
}

/// Measures the TSC rate.
pub fn calibrate() -> Calibration {
    let mut hz = [0u64; WINDOWS];
    for h in &mut hz {
        *h = window() * PIT_HZ / u64::from(COUNT);
    }
    hz.sort_unstable();
    Calibration {
        hz: hz[WINDOWS / 2],
        range: (hz[0], hz[WINDOWS - 1]),
    }
}

/// Starts channel 0 as a rate generator (mode 2) interrupting `hz` times
/// a second on IRQ 0: the idle loop's halts never last longer than a
/// tick, whatever happens to the NIC's interrupt.
pub fn start_tick(hz: u32) {
    let divisor = (PIT_HZ / u64::from(hz.max(19))).min(0xffff) as u16;
    // Channel 0, low then high octet, mode 2, binary.
    outb(0x43, 0b0011_0100);
    outb(0x40, divisor as u8);
    outb(0x40, (divisor >> 8) as u8);
}
