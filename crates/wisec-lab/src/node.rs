//! The interface between the simulator and the nodes that live in it.
//!
//! A node is sans-I/O: it never sees the event queue. The simulator calls
//! it when a frame arrives ([`Node::on_frame`]), when its MAC can take a
//! frame ([`Node::poll_transmit`]), when a timer it set fires and when a
//! wired packet arrives; the node answers through a [`Ctx`] (set a timer,
//! send on a wired port, tell a MAC it has frames). The same node runs
//! unchanged when a real-time driver moves the simulator's clock with the
//! wall clock and bridges frames to TAP devices.

use crate::phy::Rate;
use crate::rng::SimRng;
use crate::time::Time;
use std::any::Any;

/// A node of the simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub usize);

/// A wireless interface (one MAC entity on one channel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IfaceId(pub usize);

/// A channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChannelId(pub usize);

/// A node's wired port, numbered per node in the order links were added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PortId(pub usize);

/// A wired link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkId(pub usize);

/// How a frame arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxInfo {
    /// The receiving interface.
    pub iface: IfaceId,
    /// Its channel.
    pub channel: ChannelId,
    /// The rate the frame was sent at.
    pub rate: Rate,
    /// When the PPDU started.
    pub start: Time,
    /// When it ended (the reception time).
    pub end: Time,
    /// The interface that sent it (for logs and captures; a node reads the
    /// transmitter from the frame, like a real one).
    pub transmitter: IfaceId,
}

/// A frame a node hands to its MAC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxRequest {
    /// The MPDU without FCS. The MAC writes its Duration/ID field and sets
    /// the Retry bit on retransmissions (both outside the CCMP/GCMP AAD's
    /// protected bits, 12.5.3.3.3), nothing else.
    pub mpdu: Vec<u8>,
    /// The data rate; `None` for the interface's configured rate.
    pub rate: Option<Rate>,
    /// An opaque value echoed in the [`TxStatus`].
    pub token: u64,
}

impl TxRequest {
    /// A frame at the interface's rate.
    pub fn new(mpdu: Vec<u8>) -> TxRequest {
        TxRequest {
            mpdu,
            rate: None,
            token: 0,
        }
    }
}

/// What became of a [`TxRequest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxOutcome {
    /// An individually addressed frame was acknowledged.
    Acked,
    /// A group-addressed frame was sent (no acknowledgement exists).
    Sent,
    /// The retry limit was reached and the frame discarded.
    Dropped,
    /// The MAC could not read the frame's header; nothing was sent.
    Invalid,
}

/// The status of a frame the MAC finished with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxStatus {
    /// The interface.
    pub iface: IfaceId,
    /// The request's token.
    pub token: u64,
    /// The outcome.
    pub outcome: TxOutcome,
    /// Transmission attempts of the frame (data or RTS), at least 1 unless
    /// invalid.
    pub attempts: u32,
}

/// Something a node asked for during a callback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    Timer(Time, u64),
    Wired(PortId, Vec<u8>),
    Wake(IfaceId),
}

/// A node's handle on the simulator during a callback.
#[derive(Debug)]
pub struct Ctx<'a> {
    now: Time,
    node: NodeId,
    rng: &'a mut SimRng,
    pub(crate) actions: Vec<Action>,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(now: Time, node: NodeId, rng: &'a mut SimRng) -> Ctx<'a> {
        Ctx {
            now,
            node,
            rng,
            actions: Vec::new(),
        }
    }

    /// The current virtual time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// The node being called.
    pub fn node(&self) -> NodeId {
        self.node
    }

    /// The node's own deterministic random stream.
    pub fn rng(&mut self) -> &mut SimRng {
        self.rng
    }

    /// Calls [`Node::on_timer`] with `token` at `at` (now, if `at` is past).
    pub fn set_timer(&mut self, at: Time, token: u64) {
        self.actions.push(Action::Timer(at.max(self.now), token));
    }

    /// Sends a packet on a wired port (dropped if the port does not exist
    /// or its queue is full).
    pub fn send_wired(&mut self, port: PortId, packet: Vec<u8>) {
        self.actions.push(Action::Wired(port, packet));
    }

    /// Tells the MAC of `iface` that the node has frames: it will call
    /// [`Node::poll_transmit`] as soon as it can take one.
    pub fn wake(&mut self, iface: IfaceId) {
        self.actions.push(Action::Wake(iface));
    }
}

/// A node: an access point, a station, a wired host, an attacker, a bridge
/// to a TAP device. Every method but [`Node::on_frame`] and
/// [`Node::poll_transmit`] has a default that does nothing.
pub trait Node: Any {
    /// Called once, at time zero, before any other event.
    fn start(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        let _ = (now, ctx);
    }

    /// A frame was received without error on `info.iface`: an individually
    /// addressed data or management frame for this interface (already
    /// acknowledged, duplicates removed), or a group-addressed one.
    fn on_frame(&mut self, now: Time, frame: &[u8], info: &RxInfo, ctx: &mut Ctx<'_>);

    /// The MAC of `iface` can take a frame: return the next one, if any. A
    /// node that returns `None` calls [`Ctx::wake`] when it has one.
    fn poll_transmit(&mut self, now: Time, iface: IfaceId, ctx: &mut Ctx<'_>) -> Option<TxRequest>;

    /// The MAC finished with a frame.
    fn on_tx_status(&mut self, now: Time, status: &TxStatus, ctx: &mut Ctx<'_>) {
        let _ = (now, status, ctx);
    }

    /// A timer set with [`Ctx::set_timer`] fired.
    fn on_timer(&mut self, now: Time, token: u64, ctx: &mut Ctx<'_>) {
        let _ = (now, token, ctx);
    }

    /// A packet arrived on a wired port.
    fn on_wired(&mut self, now: Time, port: PortId, packet: &[u8], ctx: &mut Ctx<'_>) {
        let _ = (now, port, packet, ctx);
    }

    /// Input from outside the simulation is due (see
    /// [`crate::Simulator::schedule_input`]): a live driver put frames read
    /// from a TAP device into the node's input queue.
    fn on_input(&mut self, now: Time, ctx: &mut Ctx<'_>) {
        let _ = (now, ctx);
    }
}

/// Object-safe access to a node as [`Any`], for reading results back.
pub(crate) trait AnyNode: Node {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Node> AnyNode for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
