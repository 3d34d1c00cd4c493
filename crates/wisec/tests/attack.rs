//! The attack runner's claims (issue 5): what each protection stops, on
//! the virtual channel, with the real protocol cores. Counts only; no
//! timing is asserted.

use std::time::Duration;
use wisec::attack::{run, AttackKind, Protection, Report, Scenario};

const PROTECTED: [Protection; 3] = [
    Protection::Pmf,
    Protection::DiscosecFast,
    Protection::DiscosecFull,
];

fn scenario(attack: AttackKind, protection: Protection) -> Scenario {
    let mut s = Scenario::new(attack, protection);
    s.stations = 4;
    s.rate = 100.0;
    s.duration = Duration::from_secs(2);
    s.seed = 7;
    s
}

fn go(attack: AttackKind, protection: Protection) -> Report {
    let r = run(&scenario(attack, protection));
    assert_eq!(
        r.associated_before, r.stations,
        "{attack:?} {protection:?}: warm-up"
    );
    assert!(
        r.attacker.sent >= 190,
        "{attack:?} {protection:?}: the attacker sent"
    );
    r
}

#[test]
fn forged_deauth_and_disassoc_disconnect_every_station_without_protection() {
    for attack in [AttackKind::Deauth, AttackKind::Disassoc] {
        let r = go(attack, Protection::None);
        assert_eq!(r.stations_disconnected, r.stations, "{attack:?}");
        assert!(r.disconnections >= r.stations as u64);
        assert!(r.attacker.accepted > 0);
    }
}

#[test]
fn forged_deauth_and_disassoc_disconnect_nobody_with_pmf_or_discosec() {
    for attack in [AttackKind::Deauth, AttackKind::Disassoc] {
        for p in PROTECTED {
            let r = go(attack, p);
            assert_eq!(r.disconnections, 0, "{attack:?} {p:?}");
            assert_eq!(r.attacker.accepted, 0, "{attack:?} {p:?}");
            assert_eq!(
                r.attacker.rejected.values().sum::<u64>(),
                r.attacker.sent,
                "{attack:?} {p:?}: every forged frame refused"
            );
            assert_eq!(r.associated_end, r.stations);
        }
        // PMF names the reason: unprotected robust frames are dropped.
        let r = go(attack, Protection::Pmf);
        assert_eq!(
            r.attacker.rejected.get("unprotected"),
            Some(&r.attacker.sent)
        );
    }
}

#[test]
fn replays_are_rejected_with_protection_and_accepted_without() {
    let r = go(AttackKind::Replay, Protection::None);
    assert!(r.attacker.accepted > 0);
    assert!(r.disconnections > 0, "the old Deauthentication works again");
    for p in PROTECTED {
        let r = go(AttackKind::Replay, p);
        assert_eq!(r.attacker.accepted, 0, "{p:?}: {:?}", r.attacker.rejected);
        assert_eq!(r.disconnections, 0, "{p:?}");
        assert!(r.attacker.sent > 0);
    }
    // Under PMF the replayed frames fail the PN check (same key) or the
    // MIC (an earlier key).
    let r = go(AttackKind::Replay, Protection::Pmf);
    assert!(
        r.attacker.rejected.contains_key("replayed"),
        "{:?}",
        r.attacker.rejected
    );
    assert!(
        r.attacker.rejected.contains_key("bad-mic"),
        "{:?}",
        r.attacker.rejected
    );
    let r = go(AttackKind::Replay, Protection::DiscosecFast);
    assert!(
        r.attacker.rejected.contains_key("seq-out-of-window"),
        "{:?}",
        r.attacker.rejected
    );
}

#[test]
fn spoofed_association_under_pmf_meets_the_sa_query() {
    let r = go(AttackKind::AssocSpoof, Protection::Pmf);
    assert_eq!(r.disconnections, 0);
    assert_eq!(r.forced_reassociations, 0);
    assert_eq!(r.attacker.accepted, 0);
    assert_eq!(
        r.attacker.rejected.get("rejected-temporarily"),
        Some(&r.attacker.sent)
    );
    assert!(r.ap.sa_queries > 0);
    // Without protection the AP re-associates whoever asks.
    let r = go(AttackKind::AssocSpoof, Protection::None);
    assert!(r.forced_reassociations > 0);
}

#[test]
fn token_protection_bounds_ecdh_and_state_and_lets_a_station_in() {
    for p in [Protection::DiscosecFast, Protection::DiscosecFull] {
        for rate in [100.0, 400.0] {
            let mut s = scenario(AttackKind::Authflood, p);
            s.rate = rate;
            s.duration = Duration::from_secs(3);
            let r = run(&s);
            let per = r.ap.ecdh_max_per_interval.unwrap();
            assert!(
                per <= s.tokens_per_interval as u64,
                "{p:?} {rate}: {per} ECDH in one interval"
            );
            // State: the stations, the late one and at most one entry per
            // token over the authentication timeout (5 s) plus the
            // current interval.
            let bound = s.stations + 1 + s.tokens_per_interval * 7;
            assert!(
                r.ap.entries_peak <= bound,
                "{p:?} {rate}: {} entries",
                r.ap.entries_peak
            );
            assert!(
                r.late_station.joined_after_ms.is_some(),
                "{p:?} {rate}: late station"
            );
            assert_eq!(r.disconnections, 0);
        }
    }
}

#[test]
fn without_token_protection_ecdh_and_state_grow_with_the_flood() {
    let at = |rate: f64| {
        let mut s = scenario(AttackKind::Authflood, Protection::DiscosecFast);
        s.token_protection = false;
        s.rate = rate;
        s.duration = Duration::from_secs(1);
        run(&s)
    };
    let slow = at(50.0);
    let fast = at(200.0);
    assert!(
        fast.ap.ecdh_ops > 2 * slow.ap.ecdh_ops,
        "{} vs {}",
        fast.ap.ecdh_ops,
        slow.ap.ecdh_ops
    );
    assert!(fast.ap.ecdh_ops as f64 > 0.5 * 200.0);
    assert!(fast.ap.entries_peak > 2 * slow.ap.entries_peak - 8);
    assert!(fast.ap.entries_peak > 150);
    // The same flood against token protection costs a bounded amount.
    let mut s = scenario(AttackKind::Authflood, Protection::DiscosecFast);
    s.rate = 200.0;
    s.duration = Duration::from_secs(1);
    let guarded = run(&s);
    assert!(guarded.ap.ecdh_ops <= 2 * s.tokens_per_interval as u64);
    assert!(guarded.ap.entries_peak < fast.ap.entries_peak / 4);
}

#[test]
fn open_network_flood_fills_the_table() {
    let mut s = scenario(AttackKind::Authflood, Protection::None);
    s.rate = 300.0;
    let r = run(&s);
    assert_eq!(r.ap.entries_peak, r.ap.capacity);
    assert!(r.attacker.rejected.contains_key("table-full"));
    assert_eq!(r.ap.ecdh_ops, 0);
}

#[test]
fn runs_are_reproducible() {
    let s = scenario(AttackKind::Authflood, Protection::DiscosecFast);
    let a = serde_json::to_string(&run(&s)).unwrap();
    let b = serde_json::to_string(&run(&s)).unwrap();
    assert_eq!(a, b);
}
