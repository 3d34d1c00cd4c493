//! Sans-I/O IEEE 802.11 security state machines.
//!
//! Nothing here reads a clock, draws randomness or does I/O: time comes in
//! as an argument, randomness through a trait the caller implements, frames
//! as byte slices.
#![no_std]
#![forbid(unsafe_code)]

#[cfg(feature = "alloc")]
extern crate alloc;

pub mod discosec;
pub mod time;

pub use wisec_crypto::replay;
