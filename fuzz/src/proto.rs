//! Targets of wisec-proto's state machines, driven by sequences of frames
//! and timeouts that the input chooses: frames the peer really sent,
//! delivered in order, dropped, replayed, mutated, or replaced by any
//! bytes, with the clock moved between them.

use crate::{Input, Rng};
use std::collections::HashSet;
use std::sync::OnceLock;
use std::time::Duration;
use wisec_crypto::kdf;
use wisec_crypto::ptk::Pmk;
use wisec_proto::fourway::{Association, Authenticator, Event, Supplicant, Timing};
use wisec_proto::rsn::{self, ElementBuf, GroupKey, GroupKeys, Negotiated};
use wisec_proto::tracker::{self, Tracker};
use wisec_wire::element::{Akm, CipherSuite, List, RsnCapabilities, Rsne};
use wisec_wire::MacAddr;

const AA: MacAddr = MacAddr([0x02, 0x57, 0x53, 0, 0, 0x10]);
const SPA: MacAddr = MacAddr([0x02, 0x57, 0x53, 0, 0, 0x01]);

impl rand_core::TryRng for Rng {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.next_u64() as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.next_u64())
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        self.fill(dst);
        Ok(())
    }
}
// Deterministic on purpose: the fuzzer must replay what it found.
impl rand_core::TryCryptoRng for Rng {}

/// The PSK of passphrase "correct horse" on SSID "lab", the credentials of
/// the `wisec synth` captures in the corpus (PBKDF2 once per process).
pub fn lab_psk() -> &'static Pmk {
    static PSK: OnceLock<Pmk> = OnceLock::new();
    PSK.get_or_init(|| kdf::psk(b"correct horse", b"lab").expect("valid passphrase"))
}

fn negotiated(sel: u8) -> Negotiated {
    match sel % 4 {
        0 => Negotiated::rsn(Akm::PSK, CipherSuite::CCMP_128, CipherSuite::CCMP_128, None),
        1 => Negotiated::rsn(
            Akm::PSK_SHA256,
            CipherSuite::CCMP_128,
            CipherSuite::CCMP_128,
            Some(CipherSuite::BIP_CMAC_128),
        ),
        2 => Negotiated::rsn(Akm::PSK, CipherSuite::GCMP_256, CipherSuite::GCMP_256, None),
        _ => Negotiated::rsn(Akm::PSK, CipherSuite::TKIP, CipherSuite::TKIP, None),
    }
}

fn rsne(neg: &Negotiated) -> ElementBuf {
    let pairwise = [neg.pairwise];
    let akms = [neg.akm];
    let mut caps = RsnCapabilities(0);
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
    let n = r.emit(&mut buf).expect("an RSNE fits 64 octets");
    ElementBuf::new(&buf[..n]).expect("a valid RSNE")
}

fn association(neg: Negotiated) -> Association {
    Association {
        negotiated: neg,
        aa: AA,
        spa: SPA,
        ap_rsne: rsne(&neg),
        sta_rsne: rsne(&neg),
    }
}

fn group_keys(neg: &Negotiated, rng: &mut Rng, id: u16) -> GroupKeys {
    let mut g = [0u8; 32];
    rng.fill(&mut g);
    let len = neg
        .group
        .key_len()
        .expect("a group cipher with a key length");
    let mut ig = [0u8; 32];
    rng.fill(&mut ig);
    GroupKeys {
        gtk: GroupKey::new(&g[..len], id, 0).expect("a group key"),
        igtk: neg.group_mgmt.map(|s| {
            GroupKey::new(&ig[..s.key_len().expect("BIP key length")], 4 + (id & 1), 0)
                .expect("an IGTK")
        }),
    }
}

/// Keys a side installed, to tell a reinstallation.
#[derive(Default)]
struct Installed {
    ptks: HashSet<Vec<u8>>,
    gtks: HashSet<(u16, Vec<u8>)>,
    igtks: HashSet<(u16, Vec<u8>)>,
}

impl Installed {
    fn ptk(&mut self, who: &str, tk: &[u8]) {
        assert!(self.ptks.insert(tk.to_vec()), "{who}: PTK installed twice");
    }
    fn gtk(&mut self, who: &str, id: u16, k: &[u8]) {
        assert!(
            self.gtks.insert((id, k.to_vec())),
            "{who}: GTK installed twice"
        );
    }
    fn igtk(&mut self, who: &str, id: u16, k: &[u8]) {
        assert!(
            self.igtks.insert((id, k.to_vec())),
            "{who}: IGTK installed twice"
        );
    }
}

/// The 4-way and group key handshakes: an authenticator and a supplicant
/// on a channel the input controls. Neither side installs a key twice;
/// neither replay counter moves backwards; the supplicant's keys are the
/// authenticator's.
pub fn fourway(data: &[u8]) {
    let mut i = Input::new(data);
    let neg = negotiated(i.u8());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ u64::from(i.u16()));
    let mut key_id = 1u16;
    let keys = group_keys(&neg, &mut rng, key_id);
    let pmk = lab_psk().clone();
    let timing = Timing {
        timeout_ms: 100,
        max_tries: 3,
    };
    let Ok(mut auth) = Authenticator::new(association(neg), pmk.clone(), keys, timing) else {
        return;
    };
    let Ok(mut supp) = Supplicant::new(association(neg), pmk) else {
        return;
    };
    let mut now = rsn::Instant::from_millis(0);
    let _ = auth.start(now, &mut rng);
    let (mut to_supp, mut to_auth): (Vec<Vec<u8>>, Vec<Vec<u8>>) = (vec![], vec![]);
    let (mut next_supp, mut next_auth) = (0usize, 0usize);
    let (mut inst_auth, mut inst_supp) = (Installed::default(), Installed::default());
    let (mut rc_auth, mut rc_supp) = (auth.replay_counter(), supp.replay_counter());
    let mut steps = 0;
    while !i.is_empty() && steps < 64 {
        steps += 1;
        // Collect what each side sent and what it did.
        while let Some(p) = auth.poll_transmit() {
            to_supp.push(p.to_vec());
        }
        while let Some(p) = supp.poll_transmit() {
            to_auth.push(p.to_vec());
        }
        let mut deauth = false;
        while let Some(e) = auth.poll_event() {
            deauth |= matches!(e, Event::Deauthenticate(_));
            if e == Event::FourWayComplete {
                // Message 3 handed out the group keys in force, also
                // when a group rekey was under way (its keys, not the
                // retired ones): the two sides hold the same GTK.
                assert_eq!(
                    supp.group_keys().map(|g| g.gtk.key()),
                    Some(auth.group_keys().gtk.key()),
                    "the supplicant's GTK is not the authenticator's"
                );
            }
            if e == Event::PtkInstalled {
                let tk = auth.ptk().expect("a PTK after PtkInstalled").tk().to_vec();
                inst_auth.ptk("authenticator", &tk);
                // The authenticator installs on message 4, after the
                // supplicant did on message 3: the same key.
                assert_eq!(
                    supp.ptk().map(|p| p.tk()),
                    Some(&tk[..]),
                    "the two sides installed different PTKs"
                );
            }
        }
        while let Some(e) = supp.poll_event() {
            match e {
                Event::PtkInstalled => {
                    let tk = supp.ptk().expect("a PTK after PtkInstalled").tk().to_vec();
                    inst_supp.ptk("supplicant", &tk);
                }
                Event::GtkInstalled { key_id } => {
                    let g = supp.group_keys().expect("group keys after GtkInstalled");
                    inst_supp.gtk("supplicant", key_id, g.gtk.key());
                }
                Event::IgtkInstalled { key_id } => {
                    let g = supp.group_keys().expect("group keys after IgtkInstalled");
                    let k = g.igtk.as_ref().expect("an IGTK after IgtkInstalled");
                    inst_supp.igtk("supplicant", key_id, k.key());
                }
                Event::Deauthenticate(_) => deauth = true,
                _ => {}
            }
        }
        if deauth {
            // A failed handshake ends the association (12.7.6.1): both
            // sides start again from a new association, with new keys.
            key_id = 1;
            let keys = group_keys(&neg, &mut rng, key_id);
            let Ok(a) = Authenticator::new(association(neg), lab_psk().clone(), keys, timing)
            else {
                return;
            };
            let Ok(s) = Supplicant::new(association(neg), lab_psk().clone()) else {
                return;
            };
            (auth, supp) = (a, s);
            let _ = auth.start(now, &mut rng);
            (to_supp, to_auth, next_supp, next_auth) = (vec![], vec![], 0, 0);
            (inst_auth, inst_supp) = (Installed::default(), Installed::default());
            (rc_auth, rc_supp) = (auth.replay_counter(), supp.replay_counter());
            continue;
        }
        assert!(
            auth.replay_counter() >= rc_auth,
            "authenticator counter moved back"
        );
        assert!(
            supp.replay_counter() >= rc_supp,
            "supplicant counter moved back"
        );
        rc_auth = auth.replay_counter();
        rc_supp = supp.replay_counter();
        let op = i.u8();
        match op % 10 {
            0..=2 => {
                if let Some(p) = to_supp.get(next_supp) {
                    next_supp += 1;
                    let _ = supp.handle_rx(now, p, &mut rng);
                }
            }
            3..=4 => {
                if let Some(p) = to_auth.get(next_auth) {
                    next_auth += 1;
                    let _ = auth.handle_rx(now, p, &mut rng);
                }
            }
            5 => {
                // A replay (or reordering) of anything sent so far.
                let k = usize::from(i.u8());
                if op & 0x10 == 0 && !to_supp.is_empty() {
                    let p = to_supp[k % to_supp.len()].clone();
                    let _ = supp.handle_rx(now, &p, &mut rng);
                } else if !to_auth.is_empty() {
                    let p = to_auth[k % to_auth.len()].clone();
                    let _ = auth.handle_rx(now, &p, &mut rng);
                }
            }
            6 => {
                // A frame sent so far with some bytes changed.
                let all: Vec<&Vec<u8>> = to_supp.iter().chain(&to_auth).collect();
                if all.is_empty() {
                    continue;
                }
                let mut p = all[usize::from(i.u8()) % all.len()].clone();
                for _ in 0..1 + i.u8() % 4 {
                    let at = usize::from(i.u16()) % p.len().max(1);
                    if let Some(b) = p.get_mut(at) {
                        *b ^= i.u8() | 1;
                    }
                }
                if op & 0x10 == 0 {
                    let _ = supp.handle_rx(now, &p, &mut rng);
                } else {
                    let _ = auth.handle_rx(now, &p, &mut rng);
                }
            }
            7 => {
                let p = i.chunk(300);
                if op & 0x10 == 0 {
                    let _ = supp.handle_rx(now, p, &mut rng);
                } else {
                    let _ = auth.handle_rx(now, p, &mut rng);
                }
            }
            8 => {
                now = now + Duration::from_millis(u64::from(i.u8()) * 4);
                let _ = auth.handle_timeout(now);
            }
            _ => {
                if op & 0x10 == 0 {
                    key_id = 3 - key_id;
                    let keys = group_keys(&neg, &mut rng, key_id);
                    let _ = auth.start_group_rekey(now, keys, &mut rng);
                } else {
                    let _ = auth.start(now, &mut rng);
                }
            }
        }
    }
}

/// The passive tracker on a sequence of MPDUs and EAPOL PDUs (the
/// corpus holds `wisec synth` sessions, split into frames): it never
/// reports a key twice, its key generation never goes back, and it stays
/// within its limits.
pub fn tracker(data: &[u8]) {
    let mut i = Input::new(data);
    let mut t = Tracker::new();
    t.add_pmk(lab_psk().as_bytes()).expect("a 32-octet PMK");
    t.set_limits(tracker::Limits {
        links: 16,
        bsses: 16,
    });
    let mut seen = Seen::default();
    let mut generation = t.key_generation();
    while !i.is_empty() {
        let op = i.u8();
        let frame = i.chunk(2400);
        if op & 0x80 == 0 {
            t.observe(frame);
        } else {
            let (ta, ra) = if op & 1 == 0 { (AA, SPA) } else { (SPA, AA) };
            t.observe_eapol(ta, ra, frame);
        }
        seen.drain(&mut t);
        assert!(t.key_generation() >= generation, "key generation went back");
        generation = t.key_generation();
        assert!(t.links().count() <= 16, "more links than the limit");
    }
}

#[derive(Default)]
struct Seen {
    ptks: HashSet<(MacAddr, MacAddr, Vec<u8>)>,
    gtks: HashSet<(MacAddr, u8, Vec<u8>)>,
    igtks: HashSet<(MacAddr, u16, Vec<u8>)>,
}

impl Seen {
    fn drain(&mut self, t: &mut Tracker) {
        while let Some(e) = t.poll_event() {
            match e {
                tracker::Event::PairwiseKey { aa, spa, ptk, .. } => assert!(
                    self.ptks.insert((aa, spa, ptk.tk().to_vec())),
                    "tracker: PTK installed twice"
                ),
                tracker::Event::GroupKey {
                    bssid, key_id, key, ..
                } => assert!(
                    self.gtks.insert((bssid, key_id, key.to_vec())),
                    "tracker: GTK installed twice"
                ),
                tracker::Event::IntegrityGroupKey {
                    bssid, key_id, key, ..
                } => assert!(
                    self.igtks.insert((bssid, key_id, key.to_vec())),
                    "tracker: IGTK installed twice"
                ),
                _ => {}
            }
        }
    }
}

/// A real handshake between AA and SPA: messages 1 to 4 as sent.
fn handshake() -> &'static [Vec<u8>] {
    static H: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    H.get_or_init(|| {
        let neg = negotiated(0);
        let mut rng = Rng(7);
        let keys = group_keys(&neg, &mut rng, 1);
        let pmk = lab_psk().clone();
        let mut a = Authenticator::new(association(neg), pmk.clone(), keys, Timing::default())
            .expect("an authenticator");
        let mut s = Supplicant::new(association(neg), pmk).expect("a supplicant");
        let now = rsn::Instant::from_millis(0);
        a.start(now, &mut rng).expect("starts");
        let mut out = vec![];
        for _ in 0..2 {
            let m = a.poll_transmit().expect("a message").to_vec();
            s.handle_rx(now, &m, &mut rng)
                .expect("the supplicant takes it");
            out.push(m);
            let r = s.poll_transmit().expect("an answer").to_vec();
            a.handle_rx(now, &r, &mut rng)
                .expect("the authenticator takes it");
            out.push(r);
        }
        out
    })
}

/// A flood of distinct stations and BSSes after a real handshake: the
/// tracker's links and BSSes stay within its limits, and the station
/// with a verified PTK keeps it (keyless entries go first).
pub fn tracker_flood(data: &[u8]) {
    let mut i = Input::new(data);
    let mut t = Tracker::new();
    t.add_pmk(lab_psk().as_bytes()).expect("a 32-octet PMK");
    let limits = tracker::Limits {
        links: 4 + usize::from(i.u8() % 32),
        bsses: 4 + usize::from(i.u8() % 32),
    };
    t.set_limits(limits);
    for m in handshake() {
        let ack = m[6] & 0x80 != 0;
        let (ta, ra) = if ack { (AA, SPA) } else { (SPA, AA) };
        t.observe_eapol(ta, ra, m);
    }
    assert!(t.has_ptk(AA, SPA), "the real handshake gave a PTK");
    let template = handshake();
    let count = 1 + usize::from(i.u16() % 512);
    let mut seen = Seen::default();
    for n in 0..count {
        let op = i.u8();
        let mut addr = [0x02, 0, 0, 0, 0, 0];
        addr[2..6].copy_from_slice(&(n as u32 ^ i.u32()).to_le_bytes());
        let other = MacAddr(addr);
        if other == AA || other == SPA {
            continue;
        }
        match op % 3 {
            0 => {
                let mut m = template[usize::from(op >> 2) % template.len()].clone();
                let at = usize::from(i.u16()) % m.len();
                m[at] ^= i.u8();
                let ack = m.get(6).is_some_and(|b| b & 0x80 != 0);
                if ack {
                    t.observe_eapol(other, SPA, &m);
                } else {
                    t.observe_eapol(other, AA, &m);
                }
            }
            1 => t.observe(&beacon(other, i.bytes(8))),
            _ => t.observe_eapol(AA, other, i.chunk(200)),
        }
        seen.drain(&mut t);
        assert!(t.links().count() <= limits.links, "links over the limit");
        assert!(t.bss_count() <= limits.bsses, "BSSes over the limit");
    }
    assert!(
        t.has_ptk(AA, SPA),
        "a flood of keyless stations evicted a PTK"
    );
}

fn beacon(bssid: MacAddr, ssid: &[u8]) -> Vec<u8> {
    let mut f = vec![0x80, 0, 0, 0];
    f.extend_from_slice(&[0xff; 6]);
    f.extend_from_slice(&bssid.0);
    f.extend_from_slice(&bssid.0);
    f.extend_from_slice(&[0, 0]);
    f.extend_from_slice(&[0; 8]);
    f.extend_from_slice(&[100, 0, 0x11, 0]);
    f.push(0);
    f.push(ssid.len() as u8);
    f.extend_from_slice(ssid);
    f
}

pub use crate::pmf_net::{discosec, pmf, sa_query};
