//! DiscoSec protocol tests: beacon -> authentication with PK_STA and AT ->
//! association between the real AP and station state machines on a
//! virtual medium, and every rejection path with a forger in the middle.

mod common;

use common::*;
use std::time::Duration;
use wisec_proto::discosec::*;
use wisec_wire::mgmt::MgmtSubtype;
use wisec_wire::ReasonCode;

const SEC: Duration = Duration::from_secs(1);

fn net(cfg: ApConfig, n: usize) -> Net {
    Net::new(cfg, (0..n).map(sta_config).collect())
}

#[test]
fn association_every_curve_and_mode_with_token_protection() {
    for curve in Curve::ALL {
        for mode in [AuthMode::Full, AuthMode::Fast] {
            let mut cfg = ap_config();
            cfg.curve = curve;
            cfg.mode = mode;
            let mut n = net(cfg, 1);
            assert!(n.associate(0, 5 * SEC), "{curve:?} {mode:?}");
            // The exchange of seed 003, 3.3, frame by frame.
            let order: Vec<_> = n
                .capture
                .iter()
                .filter(|c| c.subtype() != MgmtSubtype::Beacon)
                .map(|c| (c.from == BSSID, c.subtype()))
                .collect();
            assert_eq!(
                order,
                [
                    (false, MgmtSubtype::ProbeRequest),
                    (true, MgmtSubtype::ProbeResponse),
                    (false, MgmtSubtype::Authentication),
                    (true, MgmtSubtype::Authentication),
                    (false, MgmtSubtype::AssocRequest),
                    (true, MgmtSubtype::AssocResponse),
                ],
                "{curve:?} {mode:?}"
            );
            // The station waited for the next interval: its token came from
            // the set the AP was accepting.
            let info = n.ap.station(sta_addr(0)).unwrap();
            assert!(info.associated && info.protected && info.aid == 1);
            assert_eq!(n.ap.stats().ecdh_ops, 1);
            assert_eq!(n.stas[0].stats().ecdh_ops, 1);
            assert_eq!(n.stas[0].session().unwrap().mode(), mode);
            assert!(n.ap_errors.is_empty(), "{:?}", n.ap_errors);
            assert!(n.sta_events.contains(&(
                0,
                StaEvent::Associated {
                    bssid: BSSID,
                    aid: 1
                }
            )));
            assert!(n.ap_events.contains(&ApEvent::Authenticated {
                sta: sta_addr(0),
                protected: true
            }));
        }
    }
}

#[test]
fn several_stations_and_authenticated_data() {
    let mut n = net(ap_config(), 4);
    for i in 0..4 {
        assert!(n.associate(i, 5 * SEC));
    }
    assert_eq!(n.ap.entries(), 4);
    // Data frames in both directions carry the same trailer.
    let mut data = vec![0x08, 0x01, 0, 0];
    data.extend_from_slice(&BSSID.0);
    data.extend_from_slice(&sta_addr(2).0);
    data.extend_from_slice(&BSSID.0);
    data.extend_from_slice(&[0, 0]);
    data.extend_from_slice(b"payload");
    let len = data.len();
    data.resize(len + 33, 0);
    let m = n.stas[2].seal_data(&mut data, len).unwrap();
    // A changed SEQ breaks the tag (fast_auth, the default, covers SEQ but
    // not the payload).
    let mut forged = data.clone();
    forged[len + 6] ^= 1;
    assert_eq!(
        n.ap.open_data(n.now, &forged[..m]).unwrap_err(),
        Error::BadMac
    );
    assert_eq!(n.ap.open_data(n.now, &data[..m]).unwrap().len(), len);
    assert_eq!(
        n.ap.open_data(n.now, &data[..m]).unwrap_err(),
        Error::SeqOutOfWindow
    );
    let mut down = data[..len].to_vec();
    down[1] = 0x02; // From DS
    down[4..10].copy_from_slice(&sta_addr(2).0);
    down[10..16].copy_from_slice(&BSSID.0);
    down.resize(len + 33, 0);
    let m = n.ap.seal_data(sta_addr(2), &mut down, len).unwrap();
    assert!(n.stas[2].open_data(&down[..m]).is_ok());
    // Another station's session does not verify it.
    assert_eq!(n.stas[1].open_data(&down[..m]).unwrap_err(), Error::BadMac);
}

#[test]
fn key_caching_skips_ecdh_and_gives_a_fresh_session_key() {
    let mut n = net(ap_config(), 1);
    assert!(n.associate(0, 5 * SEC));
    let at1 = n.stas[0].session().unwrap().at();
    n.stas[0].disconnect(ReasonCode::DEAUTH_LEAVING).unwrap();
    n.deliver();
    assert!(n.ap.station(sta_addr(0)).is_none());
    assert!(n.associate(0, 5 * SEC));
    let at2 = n.stas[0].session().unwrap().at();
    assert_ne!(at1, at2);
    assert_eq!(n.ap.stats().ecdh_ops, 1);
    assert_eq!(n.ap.stats().key_cache_hits, 1);
    assert_eq!(n.stas[0].stats().ecdh_ops, 1);
    assert_eq!(n.stas[0].stats().key_cache_hits, 1);

    // Without caching every association costs an ECDH on both sides.
    let mut cfg = ap_config();
    cfg.key_cache = false;
    let mut sc = sta_config(0);
    sc.key_caching = false;
    let mut n = Net::new(cfg, vec![sc]);
    assert!(n.associate(0, 5 * SEC));
    n.stas[0].disconnect(ReasonCode::DEAUTH_LEAVING).unwrap();
    n.deliver();
    assert!(n.associate(0, 5 * SEC));
    assert_eq!(n.ap.stats().ecdh_ops, 2);
    assert_eq!(n.stas[0].stats().ecdh_ops, 2);
}

#[test]
fn wrong_mac_is_rejected_and_changes_nothing() {
    for mode in [AuthMode::Full, AuthMode::Fast] {
        let mut cfg = ap_config();
        cfg.mode = mode;
        let mut n = net(cfg, 1);
        assert!(n.associate(0, 5 * SEC));
        // A spoofed deauthentication claiming to come from the station,
        // with a trailer under a key the attacker made up.
        let mut rng = TestRng(77);
        let pk = *n.ap.public_key();
        let (_, mut fake) = forge_auth(&pk, sta_addr(0), 1, mode, &mut rng);
        let deauth = plain(MgmtSubtype::Deauthentication, BSSID, sta_addr(0), &[3, 0]);
        assert_eq!(n.inject_ap(&seal(&mut fake, deauth)), Err(Error::BadMac));
        // The same toward the station, claiming to come from the AP.
        let deauth = plain(MgmtSubtype::Deauthentication, sta_addr(0), BSSID, &[3, 0]);
        assert_eq!(
            n.inject_sta(0, &seal(&mut fake, deauth)),
            Err(Error::BadMac)
        );
        // A genuine frame with a flipped tag.
        let mut req = n.last_from(sta_addr(0), MgmtSubtype::AssocRequest).unwrap();
        let last = req.len() - 1;
        req[last] ^= 0x80;
        assert_eq!(n.inject_ap(&req), Err(Error::BadMac));
        assert_eq!(n.stas[0].state(), StaState::Associated);
        assert!(n.ap.station(sta_addr(0)).unwrap().associated);
        // A trailer in the other mode is refused before any MAC work.
        let other = if mode == AuthMode::Full {
            AuthMode::Fast
        } else {
            AuthMode::Full
        };
        let (_, mut wrong) = forge_auth(&pk, sta_addr(0), 1, other, &mut rng);
        let d = plain(MgmtSubtype::Disassociation, BSSID, sta_addr(0), &[8, 0]);
        assert_eq!(n.inject_ap(&seal(&mut wrong, d)), Err(Error::WrongMode));
    }
}

#[test]
fn seq_outside_the_window_is_rejected() {
    let mut n = net(ap_config(), 1);
    assert!(n.associate(0, 5 * SEC));
    // The station's own stack: a copy of its session seals frames the AP
    // has not seen. The AP has accepted SEQ 1 (authentication) and 2
    // (association); the window is 10.
    let mut s = n.stas[0].session().unwrap().clone();
    let disassoc = |r: u8| plain(MgmtSubtype::Disassociation, BSSID, sta_addr(0), &[r, 0]);
    let frames: Vec<_> = (0..11).map(|_| seal(&mut s, disassoc(8))).collect();
    // SEQ 13 > 2 + 10.
    assert_eq!(n.inject_ap(&frames[10]), Err(Error::SeqOutOfWindow));
    assert!(n.ap.station(sta_addr(0)).unwrap().associated);
    // SEQ 12 = 2 + 10 is the last inside.
    assert_eq!(n.inject_ap(&frames[9]), Ok(()));
    assert!(!n.ap.station(sta_addr(0)).unwrap().associated);
    // Older frames, and the same one again, are now replays.
    assert_eq!(n.inject_ap(&frames[3]), Err(Error::SeqOutOfWindow));
    assert_eq!(n.inject_ap(&frames[9]), Err(Error::SeqOutOfWindow));
    // Configurable window.
    let mut cfg = ap_config();
    cfg.window = 1;
    let mut n = net(cfg, 1);
    assert!(n.associate(0, 5 * SEC));
    let mut s = n.stas[0].session().unwrap().clone();
    let _skipped = seal(&mut s, disassoc(8));
    assert_eq!(
        n.inject_ap(&seal(&mut s, disassoc(8))),
        Err(Error::SeqOutOfWindow)
    );
}

#[test]
fn replayed_old_authenticated_deauthentication_is_rejected() {
    let mut n = net(ap_config(), 1);
    assert!(n.associate(0, 5 * SEC));
    // Session 1 ends with the station's authenticated deauthentication.
    n.stas[0].disconnect(ReasonCode::DEAUTH_LEAVING).unwrap();
    n.deliver();
    let old = n
        .last_from(sta_addr(0), MgmtSubtype::Deauthentication)
        .unwrap();
    assert!(n.ap.station(sta_addr(0)).is_none());
    // Session 2 (same cached MK, new AT: a new SK).
    assert!(n.associate(0, 5 * SEC));
    assert_eq!(n.inject_ap(&old), Err(Error::BadMac));
    assert!(n.ap.station(sta_addr(0)).unwrap().associated);

    // Within one session: the AP disassociates the station with an
    // authenticated frame; replaying it later is out of the window.
    n.ap.disassociate(sta_addr(0), ReasonCode::DISASSOC_AP_BUSY)
        .unwrap();
    n.deliver();
    assert_eq!(n.stas[0].state(), StaState::Authenticated);
    let dis = n.last_from(BSSID, MgmtSubtype::Disassociation).unwrap();
    assert_eq!(n.inject_sta(0, &dis), Err(Error::SeqOutOfWindow));
    // And the old session-1 deauthentication replayed at the station.
    n.ap.deauthenticate(sta_addr(0), ReasonCode::UNSPECIFIED)
        .unwrap();
    let ap_deauth = n.ap.poll_transmit().unwrap().to_vec();
    assert!(n.stas[0].handle_rx(n.now, &ap_deauth).is_ok());
    assert_eq!(n.stas[0].state(), StaState::Idle);
    assert_eq!(
        n.stas[0].handle_rx(n.now, &ap_deauth),
        Err(Error::NotAuthenticated)
    );
}

#[test]
fn reused_unknown_and_wrong_interval_tokens() {
    let mut n = net(ap_config(), 1);
    assert!(n.associate(0, 5 * SEC));
    let pk = *n.ap.public_key();
    let mut rng = TestRng(5);
    let ecdh = n.ap.stats().ecdh_ops;

    // The station's accepted request, replayed: its token is spent.
    let req = n
        .last_from(sta_addr(0), MgmtSubtype::Authentication)
        .unwrap();
    assert_eq!(n.inject_ap(&req), Err(Error::ReusedToken));

    // A token the AP never published.
    let (f, _) = forge_auth(&pk, sta_addr(9), 0x1bad_cafe, AuthMode::Fast, &mut rng);
    assert_eq!(n.inject_ap(&f), Err(Error::UnknownToken));

    // A token of the set being published (Θ_t): too early.
    let (_, current) = beacon_tokens(&n.last_beacon());
    let (f, _) = forge_auth(&pk, sta_addr(9), current[0], AuthMode::Fast, &mut rng);
    assert_eq!(n.inject_ap(&f), Err(Error::TokenWrongInterval));

    // Two intervals later the same token is too late.
    n.run_for(2 * SEC + Duration::from_millis(100));
    let (f, _) = forge_auth(&pk, sta_addr(9), current[1], AuthMode::Fast, &mut rng);
    assert_eq!(n.inject_ap(&f), Err(Error::TokenWrongInterval));

    // None of these cost an ECDH or a station entry.
    assert_eq!(n.ap.stats().ecdh_ops, ecdh);
    assert_eq!(n.ap.entries(), 1);

    // A valid token of Θ_{t-1}, once.
    let t = n.ap.tokens().previous().as_slice()[2];
    let (f, _) = forge_auth(&pk, sta_addr(9), t, AuthMode::Fast, &mut rng);
    assert_eq!(n.inject_ap(&f), Ok(()));
    let (g, _) = forge_auth(&pk, sta_addr(10), t, AuthMode::Fast, &mut rng);
    assert_eq!(n.inject_ap(&g), Err(Error::ReusedToken));
    assert_eq!(n.ap.stats().ecdh_ops, ecdh + 1);
}

#[test]
fn legacy_stations_follow_the_protection_setting() {
    // Protection off: a legacy station associates as if DiscoSec were
    // absent, beside a DiscoSec station.
    let mut cfg = ap_config();
    cfg.dos_protection = false;
    let mut legacy = sta_config(1);
    legacy.legacy = true;
    let mut n = Net::new(cfg, vec![sta_config(0), legacy]);
    assert!(n.associate(0, 5 * SEC));
    assert!(n.associate(1, 5 * SEC));
    let info = n.ap.station(sta_addr(1)).unwrap();
    assert!(info.associated && !info.protected);
    assert!(n.stas[1].session().is_none());
    // Its frames are plain; a plain deauthentication is honoured for it...
    let d = plain(MgmtSubtype::Deauthentication, BSSID, sta_addr(1), &[3, 0]);
    assert_eq!(n.inject_ap(&d), Ok(()));
    assert!(n.ap.station(sta_addr(1)).is_none());
    // ...but never for the protected station, in either direction.
    let d = plain(MgmtSubtype::Deauthentication, BSSID, sta_addr(0), &[3, 0]);
    assert_eq!(n.inject_ap(&d), Err(Error::LegacyFrame));
    let d = plain(MgmtSubtype::Deauthentication, sta_addr(0), BSSID, &[7, 0]);
    assert_eq!(n.inject_sta(0, &d), Err(Error::LegacyFrame));
    let d = plain(MgmtSubtype::Disassociation, sta_addr(0), BSSID, &[7, 0]);
    assert_eq!(n.inject_sta(0, &d), Err(Error::LegacyFrame));
    // A legacy authentication request may not reset its session either.
    assert_eq!(
        n.inject_ap(&auth_request(sta_addr(0))),
        Err(Error::LegacyFrame)
    );
    assert!(n.ap.station(sta_addr(0)).unwrap().associated);
    assert_eq!(n.stas[0].state(), StaState::Associated);

    // Protection on: the legacy station is refused and never gets in.
    let mut legacy = sta_config(1);
    legacy.legacy = true;
    let mut n = Net::new(ap_config(), vec![legacy]);
    assert!(!n.associate(0, 3 * SEC));
    assert!(n.ap_errors.iter().all(|e| *e == Error::LegacyFrame));
    assert!(!n.ap_errors.is_empty());
    assert!(n.ap.station(sta_addr(1)).is_none());
    assert_eq!(
        n.inject_ap(&auth_request(sta_addr(3))),
        Err(Error::LegacyFrame)
    );
}

#[test]
fn ap_without_discosec_and_downgrade_refusal() {
    let mut cfg = ap_config();
    cfg.discosec = false;
    let mut legacy = sta_config(0);
    legacy.legacy = true;
    let mut n = Net::new(cfg, vec![legacy, sta_config(1)]);
    assert!(n.associate(0, 2 * SEC));
    // A DiscoSec station that requires DiscoSec refuses the plain AP.
    assert!(!n.associate(1, 2 * SEC));
    assert!(n.sta_events.contains(&(1, StaEvent::Failed)));
    // Unless told to accept it.
    let mut cfg = ap_config();
    cfg.discosec = false;
    let mut relaxed = sta_config(0);
    relaxed.require_discosec = false;
    let mut n = Net::new(cfg, vec![relaxed]);
    assert!(n.associate(0, 2 * SEC));
    assert!(n.stas[0].session().is_none());
}

#[test]
fn an_attacker_key_cannot_take_over_a_live_address() {
    let mut cfg = ap_config();
    cfg.dos_protection = false;
    let mut n = net(cfg, 1);
    assert!(n.associate(0, 5 * SEC));
    let pk = *n.ap.public_key();
    let t = n.ap.tokens().current().as_slice()[0];
    let (f, _) = forge_auth(&pk, sta_addr(0), t, AuthMode::Fast, &mut TestRng(3));
    assert_eq!(n.inject_ap(&f), Err(Error::KeyMismatch));
    assert!(n.ap.station(sta_addr(0)).unwrap().associated);
    // The station's own old request, replayed without DoS protection: the
    // AP still requires a fresh, unused token to replace the live session.
    let old = n
        .last_from(sta_addr(0), MgmtSubtype::Authentication)
        .unwrap();
    assert_eq!(n.inject_ap(&old), Err(Error::ReusedToken));
    n.run_for(5 * SEC);
    assert_eq!(n.inject_ap(&old), Err(Error::UnknownToken));
    assert!(n.ap.station(sta_addr(0)).unwrap().associated);
}

#[test]
fn flood_with_and_without_token_protection() {
    // 100 spoofed requests per second with random tokens and fresh keys.
    let flood = |n: &mut Net, per_second: u32, secs: u32| {
        let pk = *n.ap.public_key();
        let mut rng = TestRng(99);
        let mut accepted = 0;
        for i in 0..per_second * secs {
            n.run_for(SEC / per_second);
            let mut addr = sta_addr(200);
            addr.0[3] = (i >> 8) as u8;
            addr.0[4] = i as u8;
            let token = rand_core::Rng::next_u32(&mut rng);
            let (f, _) = forge_auth(&pk, addr, token, AuthMode::Fast, &mut rng);
            if n.inject_ap(&f).is_ok() {
                accepted += 1;
            }
        }
        accepted
    };
    let mut n = net(ap_config(), 1);
    n.stas[0].connect(n.now, BSSID);
    let accepted = flood(&mut n, 100, 3);
    assert_eq!(accepted, 0);
    assert_eq!(n.ap.stats().ecdh_ops, 1, "only the legitimate station");
    assert_eq!(n.stas[0].state(), StaState::Associated);
    assert_eq!(n.ap.entries(), 1);

    let mut cfg = ap_config();
    cfg.dos_protection = false;
    let mut n = net(cfg, 1);
    let accepted = flood(&mut n, 100, 1);
    assert_eq!(accepted, 64, "until the table of 64 is full");
    // Every request cost an ECDH until no entry was left to give.
    assert_eq!(n.ap.stats().ecdh_ops, 64);
    assert_eq!(n.ap.stats().peak_entries, 64);
    assert_eq!(n.ap.entries(), 64);
    // The legitimate station now finds no room.
    assert!(!n.associate(0, Duration::from_millis(500)));
    assert!(n.ap_errors.contains(&Error::TableFull));
    // Unassociated entries expire after auth_timeout, and it gets in.
    n.run_for(5 * SEC);
    assert!(n.associate(0, 5 * SEC));
}

#[test]
fn entries_expire_and_class2_frames_need_authentication() {
    let mut cfg = ap_config();
    cfg.dos_protection = false;
    cfg.auth_timeout = Duration::from_millis(300);
    let mut n = net(cfg, 0);
    let pk = *n.ap.public_key();
    let (f, _) = forge_auth(&pk, sta_addr(5), 42, AuthMode::Fast, &mut TestRng(8));
    assert_eq!(n.inject_ap(&f), Ok(()));
    assert_eq!(n.ap.entries(), 1);
    n.run_for(Duration::from_millis(400));
    assert_eq!(n.ap.entries(), 0);
    assert!(n.ap_events.contains(&ApEvent::Expired { sta: sta_addr(5) }));
    let a = plain(
        MgmtSubtype::AssocRequest,
        BSSID,
        sta_addr(6),
        &[1, 0, 10, 0],
    );
    assert_eq!(n.inject_ap(&a), Err(Error::NotAuthenticated));
    assert_eq!(
        Error::NotAuthenticated.reason_code(),
        ReasonCode::CLASS2_FRAME_FROM_NONAUTH_STA
    );
    // Frames for another BSS are not ours.
    let mut other = a.clone();
    other[4] ^= 2;
    assert_eq!(n.inject_ap(&other), Err(Error::NotForUs));
}

#[test]
fn beacons_publish_key_tokens_and_counter() {
    let mut n = net(ap_config(), 0);
    n.run_for(Duration::from_millis(2100));
    let beacons: Vec<_> = n
        .capture
        .iter()
        .filter(|c| c.subtype() == MgmtSubtype::Beacon)
        .map(|c| c.frame.clone())
        .collect();
    assert!(beacons.len() >= 20);
    assert!(has_ssid(&beacons[0]));
    for (k, b) in beacons.iter().enumerate() {
        let f = wisec_wire::MgmtFrame::new_checked(&b[..]).unwrap();
        let info = wisec_wire::discosec::DiscoInfo::parse(f.variable()).unwrap();
        let pk = info.pk_ap.unwrap();
        assert_eq!(pk.group, Curve::P256.group());
        assert_eq!(pk.point, n.ap.public_key().as_bytes());
        let ts = info.token_set.unwrap();
        assert!(ts.dos_protection());
        assert_eq!(ts.len(), 10);
        // 10 beacons per interval, counter 9 down to 0.
        assert_eq!(usize::from(ts.counter), 9 - k % 10);
        assert_eq!(usize::from(ts.interval), k / 10);
    }
    // Consecutive intervals publish different sets.
    assert_ne!(beacon_tokens(&beacons[0]).1, beacon_tokens(&beacons[10]).1);
    assert_eq!(beacon_tokens(&beacons[0]).1, beacon_tokens(&beacons[9]).1);
}
