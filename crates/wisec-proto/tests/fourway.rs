//! Protocol tests of the 4-way and group key handshakes: frames scripted
//! into the state machines, and a `Pair` with a virtual clock driving an
//! authenticator and a supplicant against each other.
//!
//! Expected Key Information values are those of IEEE Std 802.11-2020,
//! 12.7.6.2 to 12.7.6.5 and 12.7.7.2 to 12.7.7.3; expected PTKs come from
//! `wisec_crypto::ptk` (checked against Annex J there).

use wisec_crypto::kdf;
use wisec_crypto::ptk::{Pmk, Ptk};
use wisec_proto::fourway::{
    Association, Authenticator, AuthenticatorState, Event, Supplicant, SupplicantState, Timing,
};
use wisec_proto::rsn::{
    ElementBuf, GroupKey, GroupKeys, HandshakeError, Instant, KeyDataInfo, MessageKind, Negotiated,
    Random, UnverifiedKeyFrame,
};
use wisec_wire::eapol::KeyFrame;
use wisec_wire::element::{Akm, CipherSuite, List, RsnCapabilities, Rsne};
use wisec_wire::MacAddr;

const AA: MacAddr = MacAddr([0x02, 0, 0, 0, 0x01, 0x00]);
const SPA: MacAddr = MacAddr([0x02, 0, 0, 0, 0x02, 0x01]);

/// A deterministic generator (xorshift64*), for tests only.
struct TestRng(u64);

impl Random for TestRng {
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for b in dest {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            *b = (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8;
        }
    }
}

fn rsne(neg: &Negotiated, extra_cap: u16) -> ElementBuf {
    let pairwise = [neg.pairwise];
    let akms = [neg.akm];
    let mut caps = RsnCapabilities(extra_cap);
    if neg.group_mgmt.is_some() {
        caps = caps.with_mfpc(true).with_mfpr(true);
    }
    let r = Rsne {
        group_data_cipher: Some(neg.group),
        pairwise: Some(List::Items(&pairwise)),
        akms: Some(List::Items(&akms)),
        capabilities: Some(caps),
        pmkids: neg.group_mgmt.map(|_| List::Items(&[])),
        group_mgmt_cipher: neg.group_mgmt,
        ..Rsne::default()
    };
    let mut buf = [0u8; 64];
    let n = r.emit(&mut buf).unwrap();
    ElementBuf::new(&buf[..n]).unwrap()
}

fn assoc(neg: Negotiated) -> Association {
    Association {
        negotiated: neg,
        aa: AA,
        spa: SPA,
        ap_rsne: rsne(&neg, 0),
        sta_rsne: rsne(&neg, 0),
    }
}

fn psk() -> Pmk {
    // PBKDF2 is slow in debug builds: derive once.
    static PSK: std::sync::OnceLock<Pmk> = std::sync::OnceLock::new();
    PSK.get_or_init(|| kdf::psk(b"correct horse battery", b"wisec-test").unwrap())
        .clone()
}

fn group_keys(neg: &Negotiated, id: u16, fill: u8) -> GroupKeys {
    let len = neg.group.key_len().unwrap();
    GroupKeys {
        gtk: GroupKey::new(&[fill; 32][..len], id, 0x42).unwrap(),
        igtk: neg
            .group_mgmt
            .map(|s| GroupKey::new(&[fill ^ 0xff; 32][..s.key_len().unwrap()], 4, 7).unwrap()),
    }
}

fn ccmp() -> Negotiated {
    Negotiated::rsn(Akm::PSK, CipherSuite::CCMP_128, CipherSuite::CCMP_128, None)
}

/// Authenticator and supplicant against each other on a virtual clock.
struct Pair {
    auth: Authenticator,
    supp: Supplicant,
    now: Instant,
    rng: TestRng,
    /// Every PDU the authenticator sent, with the time.
    from_auth: Vec<(Instant, Vec<u8>)>,
    from_supp: Vec<(Instant, Vec<u8>)>,
    auth_events: Vec<Event>,
    supp_events: Vec<Event>,
}

impl Pair {
    fn new(a: Association, pmk: Pmk) -> Pair {
        let keys = group_keys(&a.negotiated, 1, 0x5a);
        Pair::with(a, a, pmk.clone(), pmk, keys)
    }

    fn with(a: Association, s: Association, pa: Pmk, ps: Pmk, keys: GroupKeys) -> Pair {
        Pair {
            auth: Authenticator::new(a, pa, keys, Timing::default()).unwrap(),
            supp: Supplicant::new(s, ps).unwrap(),
            now: Instant::ZERO,
            rng: TestRng(0x1234_5678_9abc_def1),
            from_auth: vec![],
            from_supp: vec![],
            auth_events: vec![],
            supp_events: vec![],
        }
    }

    fn drain_events(&mut self) {
        while let Some(e) = self.auth.poll_event() {
            self.auth_events.push(e);
        }
        while let Some(e) = self.supp.poll_event() {
            self.supp_events.push(e);
        }
    }

    /// Delivers frames both ways, dropping those `drop` selects (by
    /// direction and index among the frames of that direction), advancing
    /// the clock to the authenticator's deadlines, until nothing moves.
    fn run(&mut self, mut drop: impl FnMut(bool, usize) -> bool) {
        for _ in 0..100 {
            let mut moved = false;
            if let Some(p) = self.auth.poll_transmit().map(<[u8]>::to_vec) {
                moved = true;
                let i = self.from_auth.len();
                self.from_auth.push((self.now, p.clone()));
                if !drop(true, i) {
                    let _ = self.supp.handle_rx(self.now, &p, &mut self.rng);
                }
            }
            if let Some(p) = self.supp.poll_transmit().map(<[u8]>::to_vec) {
                moved = true;
                let i = self.from_supp.len();
                self.from_supp.push((self.now, p.clone()));
                if !drop(false, i) {
                    let _ = self.auth.handle_rx(self.now, &p, &mut self.rng);
                }
            }
            self.drain_events();
            if !moved {
                match self.auth.poll_timeout() {
                    Some(t) => {
                        self.now = t;
                        let _ = self.auth.handle_timeout(self.now);
                        self.drain_events();
                    }
                    None => return,
                }
            }
        }
        panic!("the pair did not settle");
    }

    fn start(&mut self) {
        self.auth.start(self.now, &mut self.rng).unwrap();
    }
}

fn key_info(pdu: &[u8], mic_len: usize) -> u16 {
    KeyFrame::new_checked(pdu, mic_len).unwrap().key_info().0
}

fn replay_counter(pdu: &[u8], mic_len: usize) -> u64 {
    KeyFrame::new_checked(pdu, mic_len)
        .unwrap()
        .replay_counter()
}

#[test]
fn handshake_completes_for_every_supported_akm_and_cipher() {
    let p256 = [0x33u8; 32];
    let p384 = [0x44u8; 48];
    let cases: [(Negotiated, Pmk, u16, usize); 8] = [
        // (negotiated, PMK, key descriptor version, MIC length)
        (ccmp(), psk(), 2, 16),
        (
            Negotiated::rsn(Akm::PSK, CipherSuite::TKIP, CipherSuite::TKIP, None),
            psk(),
            1,
            16,
        ),
        (
            Negotiated::rsn(
                Akm::PSK,
                CipherSuite::GCMP_256,
                CipherSuite::GCMP_256,
                Some(CipherSuite::BIP_GMAC_256),
            ),
            psk(),
            2,
            16,
        ),
        (
            Negotiated::rsn(
                Akm::PSK_SHA256,
                CipherSuite::CCMP_128,
                CipherSuite::CCMP_128,
                Some(CipherSuite::BIP_CMAC_128),
            ),
            psk(),
            3,
            16,
        ),
        (
            Negotiated::rsn(
                Akm::SAE,
                CipherSuite::CCMP_256,
                CipherSuite::CCMP_256,
                Some(CipherSuite::BIP_CMAC_256),
            ),
            Pmk::new(&p256).unwrap(),
            0,
            16,
        ),
        (
            Negotiated::rsn(
                Akm::OWE,
                CipherSuite::GCMP_128,
                CipherSuite::GCMP_128,
                Some(CipherSuite::BIP_GMAC_128),
            ),
            Pmk::new(&p256).unwrap(),
            0,
            16,
        ),
        (
            Negotiated::rsn(
                Akm::OWE,
                CipherSuite::GCMP_256,
                CipherSuite::GCMP_256,
                Some(CipherSuite::BIP_GMAC_256),
            ),
            Pmk::new(&p384).unwrap(),
            0,
            24,
        ),
        (
            Negotiated::rsn(Akm::PSK, CipherSuite::CCMP_128, CipherSuite::TKIP, None),
            psk(),
            2,
            16,
        ),
    ];
    for (neg, pmk, version, mic_len) in cases {
        let mut pair = Pair::new(assoc(neg), pmk.clone());
        pair.start();
        pair.run(|_, _| false);
        assert_eq!(
            pair.auth.state(),
            AuthenticatorState::Established,
            "{neg:?}"
        );
        assert_eq!(pair.supp.state(), SupplicantState::Established);
        // Both ends hold the PTK of 12.7.1.3 for the nonces on the air.
        let m1 = &pair.from_auth[0].1;
        let m2 = &pair.from_supp[0].1;
        let anonce = KeyFrame::new_checked(&m1[..], mic_len).unwrap().key_nonce();
        let snonce = KeyFrame::new_checked(&m2[..], mic_len).unwrap().key_nonce();
        let expect = Ptk::derive(
            neg.akm,
            neg.pairwise,
            pmk.as_bytes(),
            AA,
            SPA,
            &anonce,
            &snonce,
        )
        .unwrap();
        assert_eq!(pair.auth.ptk().unwrap().as_bytes(), expect.as_bytes());
        assert_eq!(pair.supp.ptk().unwrap().as_bytes(), expect.as_bytes());
        // Key Information of messages 1 to 4 (12.7.6.2 to 12.7.6.5).
        let v = version;
        assert_eq!(key_info(m1, mic_len), 0x0088 | v);
        assert_eq!(key_info(m2, mic_len), 0x0108 | v);
        assert_eq!(key_info(&pair.from_auth[1].1, mic_len), 0x13c8 | v);
        assert_eq!(key_info(&pair.from_supp[1].1, mic_len), 0x0308 | v);
        assert_eq!(
            (pair.from_auth.len(), pair.from_supp.len()),
            (2, 2),
            "no retransmission"
        );
        // The group keys arrived intact.
        let sent = pair.auth.group_keys();
        let got = pair.supp.group_keys().unwrap();
        assert_eq!(got.gtk.key(), sent.gtk.key());
        assert_eq!((got.gtk.key_id, got.gtk.pn), (1, 0x42));
        assert_eq!(
            got.igtk
                .as_ref()
                .map(|k| (k.key().to_vec(), k.key_id, k.pn)),
            sent.igtk
                .as_ref()
                .map(|k| (k.key().to_vec(), k.key_id, k.pn))
        );
        assert_eq!(
            pair.auth_events,
            [Event::PtkInstalled, Event::FourWayComplete]
        );
        assert_eq!(pair.supp_events[0], Event::PtkInstalled);
        assert!(pair
            .supp_events
            .contains(&Event::GtkInstalled { key_id: 1 }));
        assert_eq!(
            pair.supp_events
                .contains(&Event::IgtkInstalled { key_id: 4 }),
            neg.group_mgmt.is_some()
        );
        assert_eq!(pair.supp_events.last(), Some(&Event::FourWayComplete));
    }
}

#[test]
fn lost_messages_1_and_3_are_retransmitted_with_incremented_counters() {
    let mut pair = Pair::new(assoc(ccmp()), psk());
    pair.start();
    // Lose the first two messages 1 and the first message 3.
    pair.run(|from_auth, i| from_auth && (i == 0 || i == 1 || i == 3));
    assert_eq!(pair.supp.state(), SupplicantState::Established);
    assert_eq!(pair.auth.state(), AuthenticatorState::Established);
    let counters: Vec<u64> = pair
        .from_auth
        .iter()
        .map(|(_, p)| replay_counter(p, 16))
        .collect();
    let kinds: Vec<MessageKind> = pair
        .from_auth
        .iter()
        .map(|(_, p)| UnverifiedKeyFrame::parse(p, 16).unwrap().kind())
        .collect();
    use MessageKind::*;
    assert_eq!(kinds, [FourWay1, FourWay1, FourWay1, FourWay3, FourWay3]);
    assert_eq!(counters, [1, 2, 3, 4, 5]);
    let times: Vec<u64> = pair.from_auth.iter().map(|(t, _)| t.as_millis()).collect();
    assert_eq!(times, [0, 1000, 2000, 2000, 3000]);
    // Messages 2 and 4 echo the counter of the message they answer.
    let echoed: Vec<u64> = pair
        .from_supp
        .iter()
        .map(|(_, p)| replay_counter(p, 16))
        .collect();
    assert_eq!(echoed, [3, 5]);
    // Retransmitted message 1 kept the ANonce.
    let a: Vec<[u8; 32]> = pair.from_auth[..3]
        .iter()
        .map(|(_, p)| KeyFrame::new_checked(&p[..], 16).unwrap().key_nonce())
        .collect();
    assert!(a[0] == a[1] && a[1] == a[2]);
}

#[test]
fn silent_supplicant_times_out_with_reason_15() {
    let mut pair = Pair::new(assoc(ccmp()), psk());
    pair.start();
    pair.run(|from_auth, _| from_auth);
    assert_eq!(
        pair.auth.state(),
        AuthenticatorState::Failed(HandshakeError::FourWayTimeout)
    );
    assert_eq!(
        pair.from_auth.len(),
        4,
        "dot11RSNAConfigPairwiseUpdateCount"
    );
    assert_eq!(pair.now, Instant::from_millis(4000));
    assert_eq!(
        pair.auth_events.last().map(|e| match e {
            Event::Deauthenticate(r) => r.0,
            _ => 0,
        }),
        Some(15)
    );
    // Message 4 lost every time: message 3 retried, then the same.
    let mut pair = Pair::new(assoc(ccmp()), psk());
    pair.start();
    pair.run(|from_auth, i| !from_auth && i >= 1);
    assert_eq!(
        pair.auth.state(),
        AuthenticatorState::Failed(HandshakeError::FourWayTimeout)
    );
    assert_eq!(pair.from_auth.len(), 5);
    // The supplicant answered each retransmitted message 3 without
    // installing the key again.
    assert_eq!(pair.supp.ptk_installs(), 1);
    assert_eq!(pair.from_supp.len(), 5);
}

/// Runs messages 1 and 2 by hand and returns the pair with message 3
/// pending at the authenticator.
fn up_to_message_3(pair: &mut Pair) -> Vec<u8> {
    pair.start();
    let m1 = pair.auth.poll_transmit().unwrap().to_vec();
    pair.supp.handle_rx(pair.now, &m1, &mut pair.rng).unwrap();
    let m2 = pair.supp.poll_transmit().unwrap().to_vec();
    pair.from_supp.push((pair.now, m2.clone()));
    pair.auth.handle_rx(pair.now, &m2, &mut pair.rng).unwrap();
    pair.auth.poll_transmit().unwrap().to_vec()
}

#[test]
fn message_3_with_a_wrong_mic_is_discarded() {
    let mut pair = Pair::new(assoc(ccmp()), psk());
    let m3 = up_to_message_3(&mut pair);
    // Flip a MIC octet, a Key Data octet, the Install bit, the replay
    // counter: each is discarded without a state change.
    for i in [81, 98, 100, 6, 16] {
        let mut bad = m3.clone();
        bad[i] ^= 0x40;
        let r = pair.supp.handle_rx(pair.now, &bad, &mut pair.rng);
        assert!(
            matches!(
                r,
                Err(HandshakeError::InvalidMic
                    | HandshakeError::UnexpectedMessage
                    | HandshakeError::Malformed)
            ),
            "octet {i}: {r:?}"
        );
        assert_eq!(pair.supp.state(), SupplicantState::AwaitingMessage3);
        assert_eq!(pair.supp.replay_counter(), None, "counter unchanged");
        assert!(pair.supp.poll_transmit().is_none());
        assert!(pair.supp.ptk().is_none());
    }
    let mut bad = m3.clone();
    bad[81] ^= 1;
    assert_eq!(
        pair.supp.handle_rx(pair.now, &bad, &mut pair.rng),
        Err(HandshakeError::InvalidMic)
    );
    assert_eq!(HandshakeError::InvalidMic.reason_code().0, 14);
    // The genuine message 3 still completes the handshake.
    pair.supp.handle_rx(pair.now, &m3, &mut pair.rng).unwrap();
    assert_eq!(pair.supp.state(), SupplicantState::Established);
}

#[test]
fn message_2_with_a_wrong_mic_is_discarded() {
    let mut pair = Pair::new(assoc(ccmp()), psk());
    pair.start();
    let m1 = pair.auth.poll_transmit().unwrap().to_vec();
    pair.supp.handle_rx(pair.now, &m1, &mut pair.rng).unwrap();
    let m2 = pair.supp.poll_transmit().unwrap().to_vec();
    let mut bad = m2.clone();
    bad[90] ^= 1;
    assert_eq!(
        pair.auth.handle_rx(pair.now, &bad, &mut pair.rng),
        Err(HandshakeError::InvalidMic)
    );
    assert_eq!(pair.auth.state(), AuthenticatorState::AwaitingMessage2);
    assert!(pair.auth.poll_transmit().is_none());
    // A different passphrase at the supplicant: MIC failure again.
    let mut other = Pair::with(
        assoc(ccmp()),
        assoc(ccmp()),
        psk(),
        kdf::psk(b"wrong passphrase", b"wisec-test").unwrap(),
        group_keys(&ccmp(), 1, 1),
    );
    other.start();
    other.run(|_, _| false);
    assert_eq!(
        other.auth.state(),
        AuthenticatorState::Failed(HandshakeError::FourWayTimeout)
    );
    assert_eq!(other.supp.state(), SupplicantState::AwaitingMessage3);
    pair.auth.handle_rx(pair.now, &m2, &mut pair.rng).unwrap();
    assert_eq!(pair.auth.state(), AuthenticatorState::AwaitingMessage4);
}

#[test]
fn replayed_message_3_is_rejected() {
    let mut pair = Pair::new(assoc(ccmp()), psk());
    let m3 = up_to_message_3(&mut pair);
    pair.supp.handle_rx(pair.now, &m3, &mut pair.rng).unwrap();
    let m4 = pair.supp.poll_transmit().unwrap().to_vec();
    pair.auth.handle_rx(pair.now, &m4, &mut pair.rng).unwrap();
    pair.drain_events();
    // The same message 3 again (same Key Replay Counter): a replay.
    assert_eq!(
        pair.supp.handle_rx(pair.now, &m3, &mut pair.rng),
        Err(HandshakeError::Replayed)
    );
    assert!(pair.supp.poll_transmit().is_none());
    assert!(pair.supp.poll_event().is_none());
    assert_eq!(pair.supp.state(), SupplicantState::Established);
    // A replayed message 4 at the authenticator, likewise.
    assert_eq!(
        pair.auth.handle_rx(pair.now, &m4, &mut pair.rng),
        Err(HandshakeError::Replayed)
    );
    assert!(pair.auth.poll_event().is_none());
}

#[test]
fn retransmitted_message_3_does_not_reinstall_the_key() {
    // KRACK (CVE-2017-13077): message 4 is lost, the authenticator
    // retransmits message 3 with a larger counter while the supplicant
    // already protects frames under the PTK.
    let mut pair = Pair::new(assoc(ccmp()), psk());
    let m3 = up_to_message_3(&mut pair);
    pair.supp.handle_rx(pair.now, &m3, &mut pair.rng).unwrap();
    let _lost_m4 = pair.supp.poll_transmit().unwrap().to_vec();
    pair.drain_events();
    let installed = pair.supp.ptk().unwrap().as_bytes().to_vec();
    let gtk = pair.supp.group_keys().unwrap().gtk.clone();
    for pn in 1..=5 {
        assert_eq!(pair.supp.next_pn(), Some(pn));
    }
    pair.now = Instant::from_millis(1000);
    pair.auth.handle_timeout(pair.now).unwrap();
    let m3b = pair.auth.poll_transmit().unwrap().to_vec();
    assert_eq!(replay_counter(&m3b, 16), replay_counter(&m3, 16) + 1);
    pair.supp_events.clear();
    pair.supp.handle_rx(pair.now, &m3b, &mut pair.rng).unwrap();
    pair.drain_events();
    // Answered with message 4, but no installation and no PN reset.
    let m4b = pair.supp.poll_transmit().unwrap().to_vec();
    assert_eq!(replay_counter(&m4b, 16), replay_counter(&m3b, 16));
    assert!(pair.supp_events.is_empty(), "{:?}", pair.supp_events);
    assert_eq!(pair.supp.ptk_installs(), 1);
    assert_eq!(pair.supp.ptk().unwrap().as_bytes(), &installed[..]);
    assert_eq!(pair.supp.next_pn(), Some(6));
    assert_eq!(pair.supp.group_keys().unwrap().gtk, gtk);
    pair.auth.handle_rx(pair.now, &m4b, &mut pair.rng).unwrap();
    assert_eq!(pair.auth.state(), AuthenticatorState::Established);
    // The first message 3 replayed now: rejected.
    assert_eq!(
        pair.supp.handle_rx(pair.now, &m3, &mut pair.rng),
        Err(HandshakeError::Replayed)
    );
}

#[test]
fn mismatched_rsne_in_message_3_fails_with_reason_17() {
    let neg = ccmp();
    let a = assoc(neg);
    // The supplicant saw another RSNE in the Beacon (a downgrade attempt:
    // here the AP's differs in its capabilities).
    let mut s = a;
    s.ap_rsne = rsne(&neg, 0x000c);
    let mut pair = Pair::with(a, s, psk(), psk(), group_keys(&neg, 1, 2));
    pair.start();
    pair.run(|_, _| false);
    assert_eq!(
        pair.supp.state(),
        SupplicantState::Failed(HandshakeError::RsneMismatch)
    );
    assert!(pair.supp.ptk().is_none());
    assert_eq!(pair.from_supp.len(), 1, "no message 4");
    assert_eq!(
        pair.supp_events,
        [Event::Deauthenticate(
            wisec_wire::mgmt::ReasonCode::ELEMENT_IN_4WAY_DIFFERS
        )]
    );
    // Nothing more is processed.
    let m1 = pair.from_auth[0].1.clone();
    assert_eq!(
        pair.supp.handle_rx(pair.now, &m1, &mut pair.rng),
        Err(HandshakeError::Failed)
    );
}

#[test]
fn mismatched_rsne_in_message_2_fails_with_reason_17() {
    let neg = ccmp();
    let a = assoc(neg);
    let mut s = a;
    s.sta_rsne = rsne(&neg, 0x0001);
    let mut pair = Pair::with(a, s, psk(), psk(), group_keys(&neg, 1, 2));
    pair.start();
    pair.run(|_, _| false);
    assert_eq!(
        pair.auth.state(),
        AuthenticatorState::Failed(HandshakeError::RsneMismatch)
    );
    assert_eq!(
        pair.auth_events.last(),
        Some(&Event::Deauthenticate(wisec_wire::mgmt::ReasonCode(17)))
    );
    assert!(pair.auth.ptk().is_none());
}

#[test]
fn message_1_with_a_new_anonce_restarts_the_handshake() {
    let mut pair = Pair::new(assoc(ccmp()), psk());
    let m3a = up_to_message_3(&mut pair);
    let m2a = pair.from_supp.last().unwrap().1.clone();
    // The authenticator restarts: a new ANonce with a larger counter.
    pair.auth.start(pair.now, &mut pair.rng).unwrap();
    let m1b = pair.auth.poll_transmit().unwrap().to_vec();
    pair.supp.handle_rx(pair.now, &m1b, &mut pair.rng).unwrap();
    let m2b = pair.supp.poll_transmit().unwrap().to_vec();
    let nonce = |p: &[u8]| KeyFrame::new_checked(p, 16).unwrap().key_nonce();
    assert_ne!(nonce(&m2a), nonce(&m2b), "a new SNonce");
    assert_eq!(pair.supp.state(), SupplicantState::AwaitingMessage3);
    // Message 3 of the abandoned exchange: its ANonce is not the current one.
    assert_eq!(
        pair.supp.handle_rx(pair.now, &m3a, &mut pair.rng),
        Err(HandshakeError::UnexpectedMessage)
    );
    assert_eq!(pair.supp.state(), SupplicantState::AwaitingMessage3);
    assert!(pair.supp.ptk().is_none());
    // The authenticator takes message 2 of the new exchange only.
    assert_eq!(
        pair.auth.handle_rx(pair.now, &m2a, &mut pair.rng),
        Err(HandshakeError::Replayed)
    );
    pair.auth.handle_rx(pair.now, &m2b, &mut pair.rng).unwrap();
    let m3b = pair.auth.poll_transmit().unwrap().to_vec();
    pair.supp.handle_rx(pair.now, &m3b, &mut pair.rng).unwrap();
    let m4 = pair.supp.poll_transmit().unwrap().to_vec();
    pair.auth.handle_rx(pair.now, &m4, &mut pair.rng).unwrap();
    assert_eq!(pair.auth.state(), AuthenticatorState::Established);
    assert_eq!(pair.supp.state(), SupplicantState::Established);
    assert_eq!(
        pair.auth.ptk().unwrap().as_bytes(),
        pair.supp.ptk().unwrap().as_bytes()
    );
    // A retransmitted message 1 with the same ANonce gets the same SNonce.
    let mut pair = Pair::new(assoc(ccmp()), psk());
    pair.start();
    let m1 = pair.auth.poll_transmit().unwrap().to_vec();
    pair.supp.handle_rx(pair.now, &m1, &mut pair.rng).unwrap();
    let first = pair.supp.poll_transmit().unwrap().to_vec();
    pair.now = Instant::from_millis(1000);
    pair.auth.handle_timeout(pair.now).unwrap();
    let m1r = pair.auth.poll_transmit().unwrap().to_vec();
    pair.supp.handle_rx(pair.now, &m1r, &mut pair.rng).unwrap();
    let second = pair.supp.poll_transmit().unwrap().to_vec();
    assert_eq!(nonce(&first), nonce(&second));
}

#[test]
fn group_key_handshake_installs_a_new_gtk_once() {
    let neg = Negotiated::rsn(
        Akm::PSK_SHA256,
        CipherSuite::CCMP_128,
        CipherSuite::CCMP_128,
        Some(CipherSuite::BIP_CMAC_128),
    );
    let mut pair = Pair::new(assoc(neg), psk());
    pair.start();
    pair.run(|_, _| false);
    pair.auth_events.clear();
    pair.supp_events.clear();
    let new = group_keys(&neg, 2, 0x77);
    pair.auth
        .start_group_rekey(pair.now, new.clone(), &mut pair.rng)
        .unwrap();
    pair.run(|_, _| false);
    let g1 = pair.from_auth.last().unwrap().1.clone();
    let g2 = pair.from_supp.last().unwrap().1.clone();
    // Group messages 1 and 2 (12.7.7.2, 12.7.7.3), descriptor version 3.
    assert_eq!(key_info(&g1, 16), 0x1383);
    assert_eq!(key_info(&g2, 16), 0x0303);
    assert_eq!(pair.auth_events, [Event::GroupKeyComplete]);
    assert_eq!(
        pair.supp_events,
        [
            Event::GtkInstalled { key_id: 2 },
            Event::IgtkInstalled { key_id: 4 },
            Event::GroupKeyComplete
        ]
    );
    assert_eq!(pair.supp.group_keys().unwrap().gtk.key(), new.gtk.key());
    assert_eq!(pair.auth.group_keys().gtk.key(), new.gtk.key());
    // The same group message 1 again: replayed.
    assert_eq!(
        pair.supp.handle_rx(pair.now, &g1, &mut pair.rng),
        Err(HandshakeError::Replayed)
    );
    // The same keys handed out again (new counter): answered, not
    // reinstalled.
    pair.supp_events.clear();
    pair.auth
        .start_group_rekey(pair.now, new, &mut pair.rng)
        .unwrap();
    pair.run(|_, _| false);
    assert_eq!(pair.supp_events, [Event::GroupKeyComplete]);
    // Group message 2 never arrives: reason 16 after the retries.
    pair.auth
        .start_group_rekey(pair.now, group_keys(&neg, 1, 0x99), &mut pair.rng)
        .unwrap();
    let before = pair.from_auth.len();
    pair.run(|from_auth, _| !from_auth);
    assert_eq!(pair.from_auth.len() - before, 4);
    assert_eq!(
        pair.auth.state(),
        AuthenticatorState::Failed(HandshakeError::GroupKeyTimeout)
    );
    assert_eq!(
        pair.auth_events.last(),
        Some(&Event::Deauthenticate(wisec_wire::mgmt::ReasonCode(16)))
    );
}

/// The GTK KDE of message 3 (12.7.6.4), decrypted with the KEK of the
/// PTK that handshake installed.
fn message_3_gtk(m3: &[u8], neg: &Negotiated, ptk: &Ptk) -> (u8, Vec<u8>) {
    let alg = neg.mic_algorithm(32).unwrap();
    let f = UnverifiedKeyFrame::parse(m3, alg.mic_len()).unwrap();
    assert_eq!(f.kind(), MessageKind::FourWay3);
    let v = f.verify_mic(alg, ptk.kck()).unwrap();
    let mut kd = [0u8; 512];
    let data = v.key_data(ptk.kek(), &mut kd).unwrap();
    let gtk = KeyDataInfo::parse(data).unwrap().gtk.unwrap();
    (gtk.key_id, gtk.key.to_vec())
}

#[test]
fn a_4way_started_during_a_group_rekey_hands_out_the_new_keys() {
    // Group message 1 reached the supplicant, which installed the new GTK
    // (Key ID 2); its group message 2 was lost, and the authenticator then
    // starts a PTK rekey. Message 3 must carry the keys group message 1
    // already handed out, not the retired GTK of Key ID 1: the
    // supplicant installs nothing again (12.7.7.3) and both sides hold
    // the same GTK afterwards.
    let neg = ccmp();
    let mut pair = Pair::new(assoc(neg), psk());
    pair.start();
    pair.run(|_, _| false);
    assert_eq!(pair.auth.state(), AuthenticatorState::Established);
    let old = pair.auth.group_keys().gtk.key().to_vec();
    let new = group_keys(&neg, 2, 0x77);
    pair.auth
        .start_group_rekey(pair.now, new.clone(), &mut pair.rng)
        .unwrap();
    let g1 = pair.auth.poll_transmit().unwrap().to_vec();
    pair.supp.handle_rx(pair.now, &g1, &mut pair.rng).unwrap();
    let g2 = pair.supp.poll_transmit().unwrap().to_vec();
    pair.drain_events();
    assert!(pair
        .supp_events
        .contains(&Event::GtkInstalled { key_id: 2 }));
    pair.supp_events.clear();
    pair.auth_events.clear();
    let sent = pair.from_auth.len();
    pair.start();
    pair.run(|_, _| false);
    assert_eq!(pair.auth.state(), AuthenticatorState::Established);
    assert_eq!(pair.supp.state(), SupplicantState::Established);
    // Messages 1 and 3 of the new handshake.
    assert_eq!(pair.from_auth.len() - sent, 2);
    let m3 = pair.from_auth.last().unwrap().1.clone();
    let (key_id, gtk) = message_3_gtk(&m3, &neg, pair.supp.ptk().unwrap());
    assert_eq!((key_id, &gtk[..]), (2, new.gtk.key()));
    assert_ne!(gtk, old);
    assert_eq!(pair.auth.group_keys().gtk.key(), new.gtk.key());
    assert_eq!(pair.supp.group_keys().unwrap().gtk.key(), new.gtk.key());
    assert_eq!(
        pair.supp_events,
        [Event::PtkInstalled, Event::FourWayComplete]
    );
    // The late group message 2 of the abandoned rekey is refused.
    assert_eq!(key_info(&g2, 16), 0x0302);
    assert_eq!(
        pair.auth.handle_rx(pair.now, &g2, &mut pair.rng),
        Err(HandshakeError::Replayed)
    );

    // Group message 1 lost instead: message 3 installs the new GTK once.
    let mut pair = Pair::new(assoc(neg), psk());
    pair.start();
    pair.run(|_, _| false);
    pair.auth
        .start_group_rekey(pair.now, new.clone(), &mut pair.rng)
        .unwrap();
    let _lost_group_1 = pair.auth.poll_transmit().unwrap();
    pair.supp_events.clear();
    pair.start();
    pair.run(|_, _| false);
    assert_eq!(pair.supp.group_keys().unwrap().gtk.key(), new.gtk.key());
    assert_eq!(
        pair.supp_events,
        [
            Event::PtkInstalled,
            Event::GtkInstalled { key_id: 2 },
            Event::FourWayComplete
        ]
    );
}

#[test]
fn garbage_and_truncations_never_panic_nor_establish() {
    let mut pair = Pair::new(assoc(ccmp()), psk());
    let m3 = up_to_message_3(&mut pair);
    for len in 0..m3.len() {
        assert!(pair
            .supp
            .handle_rx(pair.now, &m3[..len], &mut pair.rng)
            .is_err());
        assert!(pair
            .auth
            .handle_rx(pair.now, &m3[..len], &mut pair.rng)
            .is_err());
    }
    assert_eq!(pair.supp.state(), SupplicantState::AwaitingMessage3);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn mutated_frames_never_panic_and_never_install(
            idx in 0usize..4, pos in any::<prop::sample::Index>(), val in any::<u8>(),
            junk in prop::collection::vec(any::<u8>(), 0..200),
        ) {
            let mut pair = Pair::new(assoc(ccmp()), psk());
            let m3 = up_to_message_3(&mut pair);
            let mut f = match idx {
                0 => m3.clone(),
                1 => junk.clone(),
                _ => { let mut j = m3[..99].to_vec(); j.extend(&junk); j }
            };
            if !f.is_empty() {
                let i = pos.index(f.len());
                if f[i] != val { f[i] = val; } else { f[i] ^= 0x80; }
            }
            let r = pair.supp.handle_rx(pair.now, &f, &mut pair.rng);
            prop_assert!(r.is_err());
            prop_assert!(pair.supp.ptk().is_none());
            let r = pair.auth.handle_rx(pair.now, &f, &mut pair.rng);
            prop_assert!(r.is_err());
            prop_assert_eq!(pair.auth.state(), AuthenticatorState::AwaitingMessage4);
        }
    }
}
