//! wisec's CCM with no operating system underneath: the CCM-UDP exchange
//! of seed 000 (section 5.4, Figure 12) and the x86-64 machine that runs
//! it.
//!
//! - [`wire`]: the exchange's messages — header, CCM sealing and opening
//!   with [`wisec_crypto::ccm::Ccm`], the replay rule;
//! - [`responder`]: the answering end, sans I/O, with the timings D0–D3
//!   of Figure 12 on the platform's clock;
//! - [`net`]: Ethernet, ARP, IPv4 and UDP, just enough to answer;
//! - [`config`]: the machine's `name=value` configuration;
//! - [`selftest`]: the known-answer vectors the machine runs at boot;
//! - [`machine`] (x86-64): the hardware — console, PIT-calibrated TSC,
//!   fw_cfg, PCI, the polled e1000 driver — and the program ([`machine::run`]).
//!
//! Everything but [`machine`] is safe code that builds and is tested on
//! any host. `wisec bare build` compiles this crate a second time as a
//! `staticlib` for the host target with `--cfg wisec_bare_image` and
//! `-C panic=abort` (no nightly toolchain, no rebuilt `core`), which adds
//! the Multiboot entry, long-mode switch, exception stubs, memory routines
//! and panic handler, and links it with `ld` into a freestanding ELF that
//! QEMU boots with `-kernel`.
//!
//! `unsafe` code (port I/O, MMIO, DMA descriptors, the IDT, the boot
//! assembly) lives only in [`machine`], each block with a `SAFETY:`
//! argument; the rest of the crate denies it.
#![no_std]
#![deny(unsafe_code)]
#![deny(missing_docs)]

#[cfg(test)]
extern crate std;

pub mod config;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub mod machine;
pub mod net;
pub mod responder;
pub mod selftest;
pub mod wire;
