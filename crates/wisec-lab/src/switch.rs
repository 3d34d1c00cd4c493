//! A store-and-forward Ethernet switch: the lab's stand-in for the routers
//! of a wired path. It learns which port each source address came in on
//! (IEEE Std 802.1Q-2018, 8.7 learning process) and forwards a frame to
//! the port its destination was learnt on, or floods it to every other
//! port (group addresses, unknown destinations). Queueing, serialisation
//! and drop-tail loss are the links' ([`crate::wired`]): the queue of the
//! link a switch sends on is the router's output queue.

use crate::node::{Ctx, IfaceId, Node, PortId, RxInfo, TxRequest};
use crate::time::Time;
use std::collections::BTreeMap;

/// The switch node.
#[derive(Debug, Clone, Default)]
pub struct Switch {
    ports: usize,
    table: BTreeMap<[u8; 6], usize>,
    /// Frames forwarded (flooded ones once per port).
    pub forwarded: u64,
}

impl Switch {
    /// A switch with `ports` wired ports (numbered in the order the links
    /// are connected).
    pub fn new(ports: usize) -> Switch {
        Switch {
            ports,
            ..Switch::default()
        }
    }

    /// The port `frame` goes out on, or `None` to flood it; learns the
    /// source's port on the way.
    fn route(&mut self, port: usize, frame: &[u8]) -> Option<Option<usize>> {
        let mut dst = [0u8; 6];
        let mut src = [0u8; 6];
        dst.copy_from_slice(frame.get(0..6)?);
        src.copy_from_slice(frame.get(6..12)?);
        if src[0] & 1 == 0 {
            self.table.insert(src, port);
        }
        if dst[0] & 1 != 0 {
            return Some(None);
        }
        Some(self.table.get(&dst).copied())
    }
}

impl Node for Switch {
    fn on_frame(&mut self, _: Time, _: &[u8], _: &RxInfo, _: &mut Ctx<'_>) {}

    fn poll_transmit(&mut self, _: Time, _: IfaceId, _: &mut Ctx<'_>) -> Option<TxRequest> {
        None
    }

    fn on_wired(&mut self, _now: Time, port: PortId, packet: &[u8], ctx: &mut Ctx<'_>) {
        match self.route(port.0, packet) {
            None => {}
            Some(Some(out)) if out == port.0 => {}
            Some(Some(out)) => {
                self.forwarded += 1;
                ctx.send_wired(PortId(out), packet.to_vec());
            }
            Some(None) => {
                for out in (0..self.ports).filter(|p| *p != port.0) {
                    self.forwarded += 1;
                    ctx.send_wired(PortId(out), packet.to_vec());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(dst: u8, src: u8) -> Vec<u8> {
        let mut f = vec![0u8; 60];
        f[0..6].copy_from_slice(&[2, 0, 0, 0, 0, dst]);
        f[6..12].copy_from_slice(&[2, 0, 0, 0, 0, src]);
        f
    }

    #[test]
    fn learns_sources_and_floods_unknown_and_group_destinations() {
        let mut s = Switch::new(3);
        // Unknown destination: flood.
        assert_eq!(s.route(0, &frame(2, 1)), Some(None));
        // The reply goes to the learnt port.
        assert_eq!(s.route(2, &frame(1, 2)), Some(Some(0)));
        assert_eq!(s.route(0, &frame(2, 1)), Some(Some(2)));
        // Broadcast floods.
        let mut b = frame(0, 1);
        b[0..6].copy_from_slice(&[0xff; 6]);
        assert_eq!(s.route(0, &b), Some(None));
        // A runt is dropped.
        assert_eq!(s.route(0, &[1, 2, 3]), None);
    }
}
