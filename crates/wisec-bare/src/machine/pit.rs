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

/// The measured TSC rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Calibration {
    /// Median TSC ticks per second over the clean windows.
    pub hz: u64,
    /// Lowest and highest clean window's rate.
    pub range: (u64, u64),
    /// Windows measured, and how many of them were clean.
    pub windows: (usize, usize),
}

/// One window: its length in TSC ticks and how uncertain its two ends
/// are (the TSC read before and after the gate opened; before the last
/// read that saw the output low and after the first that saw it high).
fn window() -> (u64, u64) {
    let gate = inb(0x61);
    // Gate low, speaker off, while the counter is loaded.
    outb(0x61, gate & !0x03);
    // Channel 2, low then high octet, mode 0, binary.
    outb(0x43, 0b1011_0000);
    outb(0x42, COUNT as u8);
    outb(0x42, (COUNT >> 8) as u8);
    // Open the gate: counting starts.
    let a = rdtsc();
    outb(0x61, (gate & !0x02) | 0x01);
    let b = rdtsc();
    // The output went high after the last read that saw it low began,
    // and before the first read that saw it high ended: TSC before and
    // after each read bracket the end, however long the CPU was away.
    let mut low = b;
    let high = loop {
        let before = rdtsc();
        let out = inb(0x61) & 0x20 != 0;
        let after = rdtsc();
        if out {
            break after;
        }
        low = before;
    };
    outb(0x61, gate & !0x03);
    let length = (high / 2 + low / 2).wrapping_sub(a / 2 + b / 2);
    let uncertainty = b.wrapping_sub(a) + high.wrapping_sub(low);
    (length, uncertainty)
}

/// Measures the TSC rate. A window counts only when both of its ends are
/// known to 1/4000 of it: under an emulator on a busy host the CPU may be
/// descheduled between a port access and the TSC read, which would
/// stretch or shrink that window. The median of up to five clean windows
/// of 10 ms (of at most 40 tried) is taken; if none is clean, the median
/// of the three least uncertain ones.
pub fn calibrate() -> Calibration {
    let mut all = [(0u64, u64::MAX); 40];
    let (mut tried, mut good) = (0, 0);
    while tried < all.len() && good < 5 {
        let w = window();
        if w.1.saturating_mul(4000) < w.0 {
            good += 1;
        }
        all[tried] = w;
        tried += 1;
    }
    // The clean windows (the least uncertain), or if none is clean the
    // three least uncertain ones.
    let windows = &mut all[..tried];
    windows.sort_unstable_by_key(|w| w.1);
    let used = &mut windows[..if good > 0 { good } else { 3.min(tried) }];
    used.sort_unstable_by_key(|w| w.0);
    let hz_of = |len: u64| len * PIT_HZ / u64::from(COUNT);
    Calibration {
        hz: hz_of(used[used.len() / 2].0),
        range: (hz_of(used[0].0), hz_of(used[used.len() - 1].0)),
        windows: (tried, good),
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
