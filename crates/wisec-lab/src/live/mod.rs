//! The live lab: real Linux network stacks and real programs in network
//! namespaces, joined by the simulator's 802.11 medium in real time.
//!
//! A live run gives every node a network namespace ([`net`]); a wireless
//! node gets a TAP device whose Ethernet frames the wisec process reads
//! and writes. The medium ([`medium`]) is the simulator itself —
//! [`crate::sim::Simulator`] with the same MAC, PHY, loss, hidden-node,
//! RTS/CTS and A-MPDU code and the same nodes ([`crate::bss`]) — driven by
//! a clock paced to the wall clock: a frame read from a station's TAP
//! becomes an 802.11 data frame protected with the keys of a real
//! association and 4-way handshake, contends, and is delivered to the
//! receiver's TAP at the end of its airtime. Lag (how far events ran
//! behind their virtual time) is measured and reported. [`bss`] builds a
//! BSS of stations, an AP and wired hosts; [`tools`] runs iperf3 and ping
//! in the namespaces and reads their results.
//!
//! Everything a run creates carries the run's tag and is removed when it
//! ends, on error, Ctrl-C or SIGTERM; the host's own namespace is never
//! changed. Creating namespaces and TAP devices needs root
//! (CAP_NET_ADMIN and CAP_SYS_ADMIN); without it a run stops with
//! [`LiveError::Privileges`] before it creates anything.

pub mod adhoc;
pub mod babel;
pub mod bss;
pub mod ipsec;
pub mod load;
pub mod medium;
pub mod net;
pub mod sched;
pub mod secure_chain;
pub mod sys;
pub mod tools;
pub mod transfer;

pub use sys::{LiveError, Result};
