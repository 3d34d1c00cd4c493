//! Sans-I/O IEEE 802.11 security state machines.
//!
//! Nothing here reads a clock, draws randomness or does I/O: time comes in
//! as an argument, randomness through a trait the caller implements, frames
//! as byte slices.
//!
//! - [`rsn`]: what the RSN handshakes share with anything that reads them
//!   (message classification, MIC verification, Key Data, KDEs, RSNE
//!   comparison, reason codes).
//! - [`fourway`]: the 4-way handshake authenticator and supplicant, which
//!   also run the group key handshake of [`group_key`].
//! - `tracker` (with the `alloc` feature): follows the RSN handshakes of a
//!   capture passively and derives the keys of every station it can.
//! - [`pmf`]: 802.11w management frame protection: MFPC/MFPR
//!   negotiation, protected robust management frames, SA Query.
//! - [`discosec`]: DiscoSec access point and station (seed 003).
//! - [`dot1x`]: the IEEE 802.1X authenticator of an access point, which
//!   relays EAP between its stations and a RADIUS server ([`radius`]).
//! - [`leap`]: the server side of Cisco's LEAP (seed 001).
//! - [`time`]: the caller's clock as an opaque instant.
//!
//! Clause numbers refer to IEEE Std 802.11-2020.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

pub mod discosec;
pub mod dot1x;
pub mod fourway;
pub mod group_key;
pub mod leap;
mod mgmt;
pub mod pmf;
mod queue;
pub mod radius;
pub mod rsn;
pub mod time;

pub use wisec_crypto::replay;

#[cfg(feature = "alloc")]
pub mod tracker;
