//! Sans-I/O IEEE 802.11 security state machines.
//!
//! Nothing here reads a clock, draws randomness or does I/O: time comes in
//! as an argument, randomness through a trait the caller implements, frames
//! as byte slices.
//!
//! With the `alloc` feature, [`tracker`] follows the RSN handshakes of a
//! capture passively and derives the keys of every station it can.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

pub use wisec_crypto::replay;

#[cfg(feature = "alloc")]
pub mod tracker;
