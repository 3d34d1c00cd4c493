//! Targets of the lab: the scenario loader on any text, and the live
//! lab's inputs — the Ethernet frames a TAP device hands the station and
//! distribution-system nodes — run through the simulated BSS.

use crate::Input;
use std::rc::Rc;
use wisec_lab::bss::{ApNode, StaNode, BSSID};
use wisec_lab::cost::{Calibration, DeviceProfile, Security};
use wisec_lab::net::Traffic;
use wisec_lab::phy::{PhyProfile, Rate};
use wisec_lab::port::{TapBridge, TapPort};
use wisec_lab::scenario::Scenario;
use wisec_lab::sim::{MacConfig, Simulator};
use wisec_lab::time::Time;
use wisec_lab::wired::WiredConfig;

/// A scenario file: what loads writes out as TOML that loads to the same
/// scenario, and builds its experiment without panicking.
pub fn scenario(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(s) = Scenario::parse("fuzz.toml", text) else {
        return;
    };
    let toml = s.to_toml();
    let again = Scenario::parse("again.toml", &toml)
        .unwrap_or_else(|e| panic!("a loaded scenario written out does not load: {e}\n{toml}"));
    assert_eq!(again.to_toml(), toml, "scenario -> TOML -> scenario");
    let _ = s.create_experiment();
    let _ = s.run_options();
}

/// One AP with its distribution-system bridge and one station with a TAP
/// port, as the live lab builds them; the input is the frames the two
/// devices deliver (any bytes, at any virtual time). The simulation runs
/// through them and what the devices get back stays bounded.
pub fn live_input(data: &[u8]) {
    let mut i = Input::new(data);
    let sec = Security::ALL[usize::from(i.u8()) % Security::ALL.len()];
    let cal = Rc::new(Calibration::nominal());
    let mut sim = Simulator::new(u64::from(i.u8()));
    let channel = sim.add_channel(PhyProfile::g());
    let rate = Rate::from_mbps(54.0).expect("an 802.11g rate");
    let ap = sim.add_node(ApNode::new(sec, DeviceProfile::host(), Rc::clone(&cal), 10));
    let ap_iface = sim.attach(ap, channel, MacConfig::dcf(BSSID, rate));
    if let Some(n) = sim.node_mut::<ApNode>(ap) {
        n.set_iface(ap_iface);
    }
    let ds = TapPort::shared();
    let bridge = sim.add_node(TapBridge::new(Rc::clone(&ds)));
    sim.connect(ap, bridge, WiredConfig::gigabit());
    let sta_addr = wisec_lab::live::bss::station_addr(0);
    let port = TapPort::shared();
    let mut node = StaNode::new(
        sta_addr,
        [10, 99, 0, 11],
        [10, 99, 0, 254],
        Traffic::None,
        sec,
        DeviceProfile::host(),
        Rc::clone(&cal),
        11,
    );
    node.set_tap(Rc::clone(&port));
    let sta = sim.add_node(node);
    let sta_iface = sim.attach(sta, channel, MacConfig::dcf(sta_addr, rate));
    if let Some(n) = sim.node_mut::<StaNode>(sta) {
        n.set_iface(sta_iface);
    }
    let mut t = Time::from_ms(0);
    let mut frames = 0;
    while !i.is_empty() && frames < 64 {
        frames += 1;
        t += Time::from_us(u64::from(i.u16()) * 16);
        let to_ds = i.u8() & 1 == 0;
        let f = i.chunk(1600).to_vec();
        let (p, node) = if to_ds { (&ds, bridge) } else { (&port, sta) };
        p.borrow_mut().inbox.push_back((t, f));
        sim.schedule_input(node, t);
    }
    sim.run_until(t + Time::from_ms(300));
    let (a, b) = (port.borrow(), ds.borrow());
    assert!(
        a.inbox.is_empty() && b.inbox.is_empty(),
        "frames left unread"
    );
    assert!(
        a.outbox.len() + b.outbox.len() <= 4 * 64 + 64,
        "more frames out than in"
    );
}
