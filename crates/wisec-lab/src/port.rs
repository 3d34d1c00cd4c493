//! Where a node meets a device outside the simulation: the queues between
//! a node and the TAP device a live driver ([`crate::live`]) reads and
//! writes for it.
//!
//! The driver reads an Ethernet frame from the device, stamps it with the
//! virtual time it arrived, puts it in the port's inbox and asks the
//! simulator to call the node's [`Node::on_input`] at that time
//! ([`crate::Simulator::schedule_input`]). The node takes the frames whose
//! time has come and sends them (on the air, or on a wired link); frames
//! it delivers go to the outbox with the virtual time of their delivery,
//! and the driver writes them to the device. Nothing here does I/O: the
//! port is plain queues, so the same nodes run in tests without a device.

use crate::node::{Ctx, IfaceId, Node, PortId, RxInfo, TxRequest};
use crate::time::Time;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// What crossed a port.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortStats {
    /// Frames taken from the device.
    pub from_device: u64,
    /// Frames handed to the device.
    pub to_device: u64,
    /// Frames from the device the node could not send (no association
    /// yet, a full queue, a frame too short to be Ethernet).
    pub dropped: u64,
}

/// The queues between a node and its device.
#[derive(Debug)]
pub struct TapPort {
    /// Frames from the device with the virtual time each arrived, oldest
    /// first.
    pub inbox: VecDeque<(Time, Vec<u8>)>,
    /// Frames for the device with the virtual time each was delivered.
    pub outbox: Vec<(Time, Vec<u8>)>,
    /// Whether the node takes more frames now. A driver stops reading the
    /// device while it is false, so that the device's own queue fills and
    /// the sender's kernel sees a full driver queue, as with a real
    /// wireless interface.
    pub accepting: bool,
    /// Counters.
    pub stats: PortStats,
}

impl Default for TapPort {
    fn default() -> TapPort {
        TapPort {
            inbox: VecDeque::new(),
            outbox: Vec::new(),
            accepting: true,
            stats: PortStats::default(),
        }
    }
}

/// A port shared between a node and its driver (both live on the thread
/// that runs the simulation).
pub type SharedPort = Rc<RefCell<TapPort>>;

impl TapPort {
    /// A new, empty port.
    pub fn shared() -> SharedPort {
        Rc::new(RefCell::new(TapPort::default()))
    }

    /// Removes and returns the frames that arrived at or before `now`.
    pub fn take_due(&mut self, now: Time) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while self.inbox.front().is_some_and(|(t, _)| *t <= now) {
            if let Some((_, f)) = self.inbox.pop_front() {
                self.stats.from_device += 1;
                out.push(f);
            }
        }
        out
    }

    /// Hands `frame` to the device, delivered at `now`.
    pub fn deliver(&mut self, now: Time, frame: Vec<u8>) {
        self.stats.to_device += 1;
        self.outbox.push((now, frame));
    }
}

/// A wired host that is a device outside the simulation: what arrives on
/// its wired port 0 goes to the device, what the device sends goes out on
/// port 0. In the live lab it is the access point's distribution-system
/// port, a TAP device bridged to the wired hosts' namespaces.
#[derive(Debug)]
pub struct TapBridge {
    port: SharedPort,
}

impl TapBridge {
    /// A bridge to `port`.
    pub fn new(port: SharedPort) -> TapBridge {
        TapBridge { port }
    }
}

impl Node for TapBridge {
    fn on_frame(&mut self, _: Time, _: &[u8], _: &RxInfo, _: &mut Ctx<'_>) {}

    fn poll_transmit(&mut self, _: Time, _: IfaceId, _: &mut Ctx<'_>) -> Option<TxRequest> {
        None
    }

    fn on_wired(&mut self, now: Time, _port: PortId, packet: &[u8], _ctx: &mut Ctx<'_>) {
        self.port.borrow_mut().deliver(now, packet.to_vec());
    }

    fn on_input(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        let frames = self.port.borrow_mut().take_due(now);
        for f in frames {
            ctx.send_wired(PortId(0), f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Simulator;
    use crate::wired::WiredConfig;

    /// Two bridges joined by a wired link: a frame put in one inbox comes
    /// out of the other's outbox after the link's serialisation and delay,
    /// and not before its arrival time.
    #[test]
    fn bridges_carry_input_over_a_wired_link() {
        let mut sim = Simulator::new(1);
        let (pa, pb) = (TapPort::shared(), TapPort::shared());
        let a = sim.add_node(TapBridge::new(Rc::clone(&pa)));
        let b = sim.add_node(TapBridge::new(Rc::clone(&pb)));
        sim.connect(a, b, WiredConfig::gigabit());
        let at = Time::from_us(500);
        pa.borrow_mut().inbox.push_back((at, vec![7u8; 1000]));
        sim.schedule_input(a, at);
        sim.run_until(Time::from_us(499));
        assert!(pb.borrow().outbox.is_empty());
        sim.run_until(Time::from_ms(1));
        let out = &pb.borrow().outbox;
        assert_eq!(out.len(), 1);
        // 1000 octets at 1 Gb/s: 8 µs, plus 10 µs of delay.
        assert_eq!(out[0].0, at + Time::from_us(18));
        assert_eq!(out[0].1, vec![7u8; 1000]);
        assert_eq!(pa.borrow().stats.from_device, 1);
        assert_eq!(pb.borrow().stats.to_device, 1);
    }
}
