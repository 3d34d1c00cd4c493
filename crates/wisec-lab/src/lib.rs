//! wisec-lab: the lab's simulator core.
//!
//! A deterministic discrete-event simulator ([`sim::Simulator`]) of one or
//! more IEEE 802.11 channels, with the DCF of IEEE Std 802.11-2020 clause
//! 10.3 over the PHY timing of clauses 15 to 18 ([`phy`]), wired links
//! ([`wired`]) and nodes that exchange real MPDUs ([`node::Node`]).
//! Experiments live in [`experiment`]; Bianchi's analytical model of the
//! DCF in [`bianchi`].
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod adhoc;
pub mod analyze;
pub mod bare;
pub mod bianchi;
pub mod bss;
pub mod cost;
pub mod experiment;
pub mod frames;
pub mod ipsec_trace;
#[cfg(target_os = "linux")]
pub mod live;
pub mod net;
pub mod node;
pub mod output;
pub mod pcap;
pub mod phy;
pub mod port;
pub mod progress;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod signal;
pub mod sim;
pub mod softaes;
pub mod switch;
pub mod time;
pub mod traffic;
pub mod wired;

pub use node::{
    ChannelId, Ctx, IfaceId, LinkId, Node, NodeId, PortId, RxInfo, TxOutcome, TxRequest, TxStatus,
};
pub use phy::{Band, HtParams, PhyProfile, PhyStandard, PhyTiming, Ppdu, Protection, Rate};
pub use sim::{BlockAckConfig, MacConfig, MacStats, Simulator};
pub use time::Time;
