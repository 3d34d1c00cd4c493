//! A node that wakes its own interface from inside `poll_transmit` (it has
//! more frames queued) loses none of them.

use std::cell::RefCell;
use std::rc::Rc;
use wisec_lab::node::{Ctx, IfaceId, Node, RxInfo, TxRequest};
use wisec_lab::sim::{MacConfig, Simulator};
use wisec_lab::traffic::SaturatedSource;
use wisec_lab::{PhyProfile, Rate, Time};
use wisec_wire::MacAddr;

/// Sends `left` frames and wakes its interface whenever frames remain
/// after the one it returns.
struct Eager {
    src: SaturatedSource,
    iface: Option<IfaceId>,
    left: u64,
    next: u64,
}

impl Node for Eager {
    fn start(&mut self, _now: Time, ctx: &mut Ctx<'_>) {
        if let Some(i) = self.iface {
            ctx.wake(i);
        }
    }
    fn on_frame(&mut self, _: Time, _: &[u8], _: &RxInfo, _: &mut Ctx<'_>) {}
    fn poll_transmit(&mut self, _: Time, iface: IfaceId, ctx: &mut Ctx<'_>) -> Option<TxRequest> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let f = self.src.frame(self.next);
        self.next += 1;
        if self.left > 0 {
            ctx.wake(iface);
        }
        Some(TxRequest::new(f))
    }
}

struct Count(Rc<RefCell<Vec<u16>>>);

impl Node for Count {
    fn on_frame(&mut self, _: Time, f: &[u8], _: &RxInfo, _: &mut Ctx<'_>) {
        if let Some(sc) = f.get(22..24) {
            self.0
                .borrow_mut()
                .push(u16::from_le_bytes([sc[0], sc[1]]) >> 4);
        }
    }
    fn poll_transmit(&mut self, _: Time, _: IfaceId, _: &mut Ctx<'_>) -> Option<TxRequest> {
        None
    }
}

#[test]
fn wake_inside_poll_transmit_loses_no_frame() {
    let a = MacAddr([2, 0, 0, 0, 0, 1]);
    let b = MacAddr([2, 0, 0, 0, 0, 2]);
    let mut sim = Simulator::new(7);
    let ch = sim.add_channel(PhyProfile::b());
    let got = Rc::new(RefCell::new(Vec::new()));
    let tx = sim.add_node(Eager {
        src: SaturatedSource::new(a, b, 200),
        iface: None,
        left: 20,
        next: 0,
    });
    let rx = sim.add_node(Count(got.clone()));
    let i = sim.attach(tx, ch, MacConfig::dcf(a, Rate::CCK_11));
    sim.attach(rx, ch, MacConfig::dcf(b, Rate::CCK_11));
    sim.node_mut::<Eager>(tx).unwrap().iface = Some(i);
    sim.run_until(Time::from_secs(1));
    let got = got.borrow();
    assert_eq!(*got, (0..20).collect::<Vec<u16>>());
}
