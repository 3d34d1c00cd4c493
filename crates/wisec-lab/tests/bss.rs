//! The BSS of real frames end to end: every security setting connects
//! and carries TCP, UDP and ping through smoltcp.

use wisec_lab::cost::{Calibration, Security};
use wisec_lab::experiment::overhead::{build, run, LinkScenario};
use wisec_lab::net::Traffic;

#[test]
fn every_suite_connects_and_carries_tcp() {
    let cal = Calibration::nominal();
    for sec in Security::ALL {
        let s = LinkScenario::new(sec, 11.0, Traffic::TcpBulk { bytes: 50_000 }, 3).unwrap();
        let mut b = build(&s, &cal);
        let o = run(&mut b, &s);
        eprintln!("{sec:?}: {o:?}");
        assert!(o.connected, "{sec:?}");
        assert_eq!(o.delivered, 50_000, "{sec:?}");
        assert_eq!(o.integrity_failures, 0, "{sec:?}");
    }
}
