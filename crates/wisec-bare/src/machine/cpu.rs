//! x86-64 instructions the machine needs: port I/O, the TSC, CPUID, the
//! interrupt descriptor table, halting, and QEMU's isa-debug-exit port.

use core::arch::asm;
use core::arch::x86_64::{__cpuid, __cpuid_count, _rdtsc};

/// Reads an octet from an I/O port.
pub(super) fn inb(port: u16) -> u8 {
    let v: u8;
    // SAFETY: `in` reads a device register; it touches no memory. The ports
    // this module reads (COM1, the PIT, PCI configuration, fw_cfg) belong to
    // the platform devices this program drives and to nothing else.
    unsafe {
        asm!("in al, dx", out("al") v, in("dx") port, options(nomem, nostack, preserves_flags))
    };
    v
}

/// Writes an octet to an I/O port.
pub(super) fn outb(port: u16, v: u8) {
    // SAFETY: as for `inb`: a device register write, no memory access. The
    // callers only write the registers of the devices they drive.
    unsafe {
        asm!("out dx, al", in("dx") port, in("al") v, options(nomem, nostack, preserves_flags))
    };
}

/// Writes a 16-bit word to an I/O port.
pub(super) fn outw(port: u16, v: u16) {
    // SAFETY: as for `outb`.
    unsafe {
        asm!("out dx, ax", in("dx") port, in("ax") v, options(nomem, nostack, preserves_flags))
    };
}

/// Reads a 32-bit word from an I/O port.
pub(super) fn inl(port: u16) -> u32 {
    let v: u32;
    // SAFETY: as for `inb`.
    unsafe {
        asm!("in eax, dx", out("eax") v, in("dx") port, options(nomem, nostack, preserves_flags))
    };
    v
}

/// Writes a 32-bit word to an I/O port.
pub(super) fn outl(port: u16, v: u32) {
    // SAFETY: as for `outb`.
    unsafe {
        asm!("out dx, eax", in("dx") port, in("eax") v, options(nomem, nostack, preserves_flags))
    };
}

/// The time-stamp counter.
pub fn rdtsc() -> u64 {
    // SAFETY: RDTSC exists on every x86-64 CPU and reads a counter only.
    unsafe { _rdtsc() }
}

/// CPUID leaf `leaf`, subleaf 0: (eax, ebx, ecx, edx).
pub fn cpuid(leaf: u32) -> (u32, u32, u32, u32) {
    // CPUID exists on every x86-64 CPU; an unsupported leaf returns the
    // highest basic leaf's values, it does not fault.
    let r = __cpuid_count(leaf, 0);
    (r.eax, r.ebx, r.ecx, r.edx)
}

/// What the processor offers, as far as this program cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Features {
    /// AES-NI (CPUID.1:ECX bit 25).
    pub aes_ni: bool,
    /// Running under a hypervisor (CPUID.1:ECX bit 31).
    pub hypervisor: bool,
    /// CPUID leaf 0x15: TSC/crystal ratio and crystal frequency, when given.
    pub tsc_leaf_hz: Option<u64>,
    /// The vendor string.
    pub vendor: [u8; 12],
}

/// Reads the features.
pub fn features() -> Features {
    let l0 = __cpuid(0);
    let mut vendor = [0u8; 12];
    vendor[..4].copy_from_slice(&l0.ebx.to_le_bytes());
    vendor[4..8].copy_from_slice(&l0.edx.to_le_bytes());
    vendor[8..].copy_from_slice(&l0.ecx.to_le_bytes());
    let (_, _, ecx1, _) = cpuid(1);
    let tsc_leaf_hz = if l0.eax >= 0x15 {
        // Intel SDM vol. 2A, CPUID leaf 15H: TSC = crystal * EBX / EAX.
        let (den, num, crystal, _) = cpuid(0x15);
        (den != 0 && num != 0 && crystal != 0)
            .then(|| u64::from(crystal) * u64::from(num) / u64::from(den))
    } else {
        None
    };
    Features {
        aes_ni: ecx1 & (1 << 25) != 0,
        hypervisor: ecx1 & (1u32 << 31) != 0,
        tsc_leaf_hz,
        vendor,
    }
}

/// Halts the processor for good (interrupts are never enabled).
pub fn halt() -> ! {
    loop {
        // SAFETY: with interrupts disabled, HLT stops the CPU; it touches
        // no memory.
        unsafe { asm!("cli; hlt", options(nomem, nostack)) };
    }
}

/// Sleeps until an interrupt: enables interrupts for exactly one HLT
/// (STI's one-instruction shadow makes the pair race-free: an interrupt
/// pending at STI wakes the HLT) and returns with them disabled again (the
/// interrupt stub clears IF in the frame it returns through).
pub(super) fn halt_until_interrupt() {
    // SAFETY: the stack pointer is moved 128 octets down first, so the
    // interrupt frame the CPU pushes cannot overwrite the System V red
    // zone of the code around this block, and moved back after. The IDT
    // holds gates for the PIC's vectors (installed at boot) whose stub
    // sends EOI, clears IF in the saved RFLAGS and returns; no register
    // or memory of this program is changed by it.
    unsafe { asm!("sub rsp, 128", "sti", "hlt", "cli", "add rsp, 128",) };
}

/// Asks QEMU to exit with status `(code << 1) | 1` through its
/// isa-debug-exit device at port 0xf4 (`-device
/// isa-debug-exit,iobase=0xf4,iosize=4`), then halts (on a machine without
/// that device the write does nothing).
pub(super) fn exit(code: u8) -> ! {
    outl(0xf4, u32::from(code));
    halt()
}

/// One 64-bit interrupt gate (Intel SDM vol. 3A, 6.14.1).
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
pub struct Gate {
    offset_low: u16,
    selector: u16,
    ist: u8,
    attributes: u8,
    offset_mid: u16,
    offset_high: u32,
    reserved: u32,
}

impl Gate {
    /// A gate that is not present.
    pub const ZERO: Gate = Gate {
        offset_low: 0,
        selector: 0,
        ist: 0,
        attributes: 0,
        offset_mid: 0,
        offset_high: 0,
        reserved: 0,
    };

    /// A present interrupt gate to `handler` in the code segment 0x08.
    pub fn new(handler: u64) -> Gate {
        Gate {
            offset_low: handler as u16,
            selector: 0x08,
            ist: 0,
            attributes: 0x8e,
            offset_mid: (handler >> 16) as u16,
            offset_high: (handler >> 32) as u32,
            reserved: 0,
        }
    }
}

#[cfg_attr(not(wisec_bare_image), allow(dead_code))]
/// Loads the IDT `idt`, which lives for the rest of the program.
pub(super) fn load_idt(idt: &'static [Gate; 48]) {
    #[repr(C, packed)]
    struct Pointer {
        limit: u16,
        base: u64,
    }
    let p = Pointer {
        limit: (core::mem::size_of::<[Gate; 48]>() - 1) as u16,
        base: idt.as_ptr() as u64,
    };
    // SAFETY: `p` describes a valid, 'static table of 48 present gates to
    // handlers in this program's code segment; LIDT reads the 10-octet
    // pointer only.
    unsafe { asm!("lidt [{}]", in(reg) &p, options(readonly, nostack, preserves_flags)) };
}
