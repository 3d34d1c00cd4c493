//! Handshakes composed frame by frame with the wire `Repr`s and the key
//! hierarchy of `wisec-crypto` (itself checked against IEEE Std 802.11
//! Annex J and the RFC vectors), fed to the tracker in the orders and
//! shapes captures hold.

extern crate std;

use super::*;
use alloc::vec;
use wisec_crypto::FrameProtector;
use wisec_wire::eapol::{KeyDescriptor, KeyFrameRepr, KeyInfo};
use wisec_wire::{Addressing, DataFrameRepr};

const AP: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0xaa]);
const STA: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);
const STA2: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x02]);
const PASS: &[u8] = b"correct horse battery";
const SSID: &[u8] = b"wisec-lab";
const GTK: [u8; 16] = [0x47; 16];
const IGTK: [u8; 16] = [0x49; 16];

fn rsne_bytes(akm: u8, cipher: u8, mfp: bool) -> Vec<u8> {
    let mut d = vec![
        1, 0, 0x00, 0x0f, 0xac, cipher, 1, 0, 0x00, 0x0f, 0xac, cipher,
    ];
    d.extend_from_slice(&[1, 0, 0x00, 0x0f, 0xac, akm]);
    d.extend_from_slice(&[if mfp { 0x80 } else { 0 }, 0]);
    d
}

fn wpa_ie() -> Vec<u8> {
    // WPA element: OUI 00-50-F2 type 1, version 1, TKIP group and
    // pairwise, PSK.
    vec![
        0x00, 0x50, 0xf2, 1, 1, 0, 0x00, 0x50, 0xf2, 2, 1, 0, 0x00, 0x50, 0xf2, 2, 1, 0, 0x00,
        0x50, 0xf2, 2,
    ]
}

fn element(id: u8, data: &[u8]) -> Vec<u8> {
    let mut v = vec![id, data.len() as u8];
    v.extend_from_slice(data);
    v
}

fn mgmt(subtype: u8, a1: MacAddr, a2: MacAddr, a3: MacAddr, body: &[u8]) -> Vec<u8> {
    let mut f = vec![subtype << 4, 0, 0, 0];
    f.extend_from_slice(&a1.0);
    f.extend_from_slice(&a2.0);
    f.extend_from_slice(&a3.0);
    f.extend_from_slice(&[0x10, 0]);
    f.extend_from_slice(body);
    f
}

fn beacon(rsn: Option<&[u8]>, wpa: Option<&[u8]>) -> Vec<u8> {
    let mut body = vec![0u8; 8];
    body.extend_from_slice(&[0x64, 0, 0x11, 0x04]);
    body.extend(element(0, SSID));
    if let Some(r) = rsn {
        body.extend(element(48, r));
    }
    if let Some(w) = wpa {
        body.extend(element(221, w));
    }
    mgmt(8, MacAddr([0xff; 6]), AP, AP, &body)
}

fn eapol_mpdu(from_ap: bool, sta: MacAddr, pdu: &[u8]) -> Vec<u8> {
    let addr = if from_ap {
        Addressing::FromAp {
            da: sta,
            bssid: AP,
            sa: AP,
        }
    } else {
        Addressing::ToAp {
            bssid: AP,
            sa: sta,
            da: AP,
        }
    };
    let r = DataFrameRepr::msdu(addr.header(Some(0), 0), EtherType::EAPOL, pdu);
    let mut buf = vec![0u8; r.buffer_len().unwrap()];
    let n = r.emit(&mut buf).unwrap();
    buf.truncate(n);
    buf
}

/// One side-by-side run of a handshake: both ends' secrets are known here.
struct Hs {
    sta: MacAddr,
    akm: Akm,
    cipher: CipherSuite,
    wpa: bool,
    version: u8,
    mic: MicAlgorithm,
    anonce: [u8; 32],
    snonce: [u8; 32],
    ptk: Ptk,
    rsne: Vec<u8>,
}

impl Hs {
    fn new(pmk: &[u8], akm: Akm, cipher: CipherSuite, sta: MacAddr, n: u8) -> Hs {
        let wpa = akm.oui == OUI_MICROSOFT;
        let anonce = [0xa0 ^ n; 32];
        let snonce = [0x50 ^ n; 32];
        let ptk = Ptk::derive(akm, cipher, pmk, AP, sta, &anonce, &snonce).unwrap();
        let h = KeyHierarchy::for_akm(akm, cipher, pmk.len()).unwrap();
        let version = match h.mic {
            MicAlgorithm::HmacMd5 => 1,
            MicAlgorithm::HmacSha1_128 => 2,
            MicAlgorithm::AesCmac128 if akm.suite_type != 8 => 3,
            _ => 0,
        };
        let rsne = if wpa {
            wpa_ie()
        } else {
            rsne_bytes(akm.suite_type, cipher.suite_type, false)
        };
        Hs {
            sta,
            akm,
            cipher,
            wpa,
            version,
            mic: h.mic,
            anonce,
            snonce,
            ptk,
            rsne,
        }
    }

    fn frame(
        &self,
        ki: KeyInfo,
        rc: u64,
        nonce: [u8; 32],
        key_data: &[u8],
        key_len: u16,
    ) -> Vec<u8> {
        let ki = KeyInfo(ki.0 | u16::from(self.version));
        let mic = [0u8; 32];
        let r = KeyFrameRepr {
            eapol_version: 2,
            descriptor_type: if self.wpa {
                KeyDescriptor::Wpa
            } else {
                KeyDescriptor::Rsn
            },
            key_info: ki,
            key_length: key_len,
            replay_counter: rc,
            key_nonce: nonce,
            key_iv: [0; 16],
            key_rsc: [0; 8],
            reserved: [0; 8],
            mic: &mic[..self.mic.mic_len()],
            key_data,
        };
        let mut buf = vec![0u8; r.buffer_len()];
        r.emit(&mut buf).unwrap();
        if ki.key_mic() {
            eapol_mic::sign_pdu(self.mic, self.ptk.kck(), &mut buf).unwrap();
        }
        buf
    }

    fn wrap(&self, plain: &[u8]) -> Vec<u8> {
        let mut p = plain.to_vec();
        p.resize(keywrap::padded_len(plain.len()), 0);
        let n = keywrap::pad_key_data(&mut p, plain.len()).unwrap();
        let mut out = vec![0u8; n + 8];
        keywrap::wrap_key_data(self.ptk.kek(), &p[..n], &mut out).unwrap();
        out
    }

    fn m1(&self, rc: u64) -> Vec<u8> {
        let ki = KeyInfo(0).with_pairwise(true).with_key_ack(true);
        eapol_mpdu(true, self.sta, &self.frame(ki, rc, self.anonce, &[], 16))
    }

    fn m2(&self, rc: u64) -> Vec<u8> {
        let ki = KeyInfo(0).with_pairwise(true).with_key_mic(true);
        let kd = if self.wpa {
            element(221, &self.rsne)
        } else {
            element(48, &self.rsne)
        };
        eapol_mpdu(false, self.sta, &self.frame(ki, rc, self.snonce, &kd, 0))
    }

    fn m3_data(&self, rsne: &[u8], gtk_id: u8, igtk: bool, key_id: Option<u8>) -> Vec<u8> {
        let mut kd = element(48, rsne);
        let mut g = vec![gtk_id, 0];
        g.extend_from_slice(&GTK);
        kd.extend(kde(1, &g));
        if igtk {
            let mut i = vec![4, 0, 0, 0, 0, 0, 0, 0];
            i.extend_from_slice(&IGTK);
            kd.extend(kde(9, &i));
        }
        if let Some(id) = key_id {
            kd.extend(kde(10, &[id, 0]));
        }
        kd
    }

    fn m3_with(&self, rc: u64, plain_kd: &[u8]) -> Vec<u8> {
        let ki = KeyInfo(0)
            .with_pairwise(true)
            .with_install(true)
            .with_key_ack(true)
            .with_key_mic(true);
        let pdu = if self.wpa {
            self.frame(ki, rc, self.anonce, &element(221, &self.rsne), 32)
        } else {
            let ki = ki.with_secure(true).with_encrypted_key_data(true);
            self.frame(ki, rc, self.anonce, &self.wrap(plain_kd), 16)
        };
        eapol_mpdu(true, self.sta, &pdu)
    }

    fn m3(&self, rc: u64) -> Vec<u8> {
        self.m3_with(rc, &self.m3_data(&self.rsne, 1, false, None))
    }

    fn m4(&self, rc: u64) -> Vec<u8> {
        let ki = KeyInfo(0)
            .with_pairwise(true)
            .with_key_mic(true)
            .with_secure(!self.wpa);
        eapol_mpdu(false, self.sta, &self.frame(ki, rc, [0; 32], &[], 0))
    }

    fn g1(&self, rc: u64, gtk_id: u8, gtk: &[u8]) -> Vec<u8> {
        let ki = KeyInfo(0)
            .with_key_ack(true)
            .with_key_mic(true)
            .with_secure(true);
        let pdu = if self.wpa {
            // WPA: RC4 over the bare GTK (key descriptor version 1),
            // Key Index in Key Information.
            let ki = KeyInfo(ki.0 | (u16::from(gtk_id) << 4));
            let mut kd = gtk.to_vec();
            keywrap::danger_rc4_key_data(self.ptk.kek(), &[0; 16], &mut kd).unwrap();
            self.frame(ki, rc, [0; 32], &kd, gtk.len() as u16)
        } else {
            let mut g = vec![gtk_id, 0];
            g.extend_from_slice(gtk);
            let ki = ki.with_encrypted_key_data(true);
            self.frame(ki, rc, [0; 32], &self.wrap(&kde(1, &g)), 0)
        };
        eapol_mpdu(true, self.sta, &pdu)
    }

    fn tk(&self) -> &[u8] {
        self.ptk.tk()
    }
}

fn kde(t: u8, data: &[u8]) -> Vec<u8> {
    let mut v = vec![0xdd, (4 + data.len()) as u8, 0x00, 0x0f, 0xac, t];
    v.extend_from_slice(data);
    v
}

fn psk() -> Pmk {
    kdf::psk(PASS, SSID).unwrap()
}

fn tracker() -> Tracker {
    let mut t = Tracker::new();
    t.add_passphrase(PASS, None).unwrap();
    t
}

fn feed(t: &mut Tracker, frames: &[&[u8]]) -> Vec<Event> {
    for f in frames {
        t.observe(f);
    }
    core::iter::from_fn(|| t.poll_event()).collect()
}

fn ptk_events(ev: &[Event]) -> Vec<Vec<u8>> {
    ev.iter()
        .filter_map(|e| match e {
            Event::PairwiseKey { ptk, .. } => Some(ptk.tk().to_vec()),
            _ => None,
        })
        .collect()
}

fn rejections(ev: &[Event]) -> Vec<(KeyMessage, Reject)> {
    ev.iter()
        .filter_map(|e| match e {
            Event::Rejected {
                message, reason, ..
            } => Some((*message, *reason)),
            _ => None,
        })
        .collect()
}

fn stats(t: &Tracker, sta: MacAddr) -> LinkStats {
    t.links()
        .find(|(a, s, _)| *a == AP && *s == sta)
        .map(|(_, _, s)| s.clone())
        .unwrap()
}

/// A data frame protected with `tk` by the suite itself, unprotected with
/// whatever key the tracker offers.
fn tracker_decrypts(t: &Tracker, suite: Suite, tk: &[u8], key_id: u8) -> bool {
    let k = DataKey::new(suite, tk).unwrap();
    let plain = eapol_mpdu(true, STA, b"\x01\x02hello");
    let mut buf = vec![0u8; plain.len() + 32];
    let n = k.protect(&plain, 7, key_id, &mut buf).unwrap();
    t.pairwise_keys(AP, STA, key_id).any(|(_, dk)| {
        let mut b = buf[..n].to_vec();
        dk.unprotect_in_place(&mut b).is_ok()
    })
}

#[test]
fn psk_ccmp_handshake_yields_ptk_gtk_and_igtk() {
    let hs = Hs::new(psk().as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 1);
    let mut rsne = hs.rsne.clone();
    rsne[18] = 0x80; // MFP capable
    let mut t = tracker();
    let b = beacon(Some(&rsne), None);
    let m3 = hs.m3_with(2, &hs.m3_data(&rsne, 1, true, None));
    let ev = feed(&mut t, &[&b, &hs.m1(1), &hs.m2(1), &m3, &hs.m4(2)]);
    assert_eq!(rejections(&ev), vec![]);
    assert_eq!(ptk_events(&ev), vec![hs.tk().to_vec()]);
    assert!(ev.iter().any(|e| matches!(e, Event::GroupKey { key_id: 1, key, suite: Suite::Ccmp128, .. } if key.as_slice() == GTK)));
    assert!(ev.iter().any(
        |e| matches!(e, Event::IntegrityGroupKey { key_id: 4, key, .. } if key.as_slice() == IGTK)
    ));
    let s = stats(&t, STA);
    assert_eq!(
        (s.handshakes_seen, s.ptks, s.handshakes_complete, s.msg4),
        (1, 1, 1, 1)
    );
    assert!(tracker_decrypts(&t, Suite::Ccmp128, hs.tk(), 0));
    assert_eq!(t.group_keys(AP, 1).count(), 1);
    assert_eq!(t.integrity_keys(AP, 4).count(), 1);
    assert_eq!(t.ssid(AP), Some(SSID));
}

#[test]
fn wrong_passphrase_and_flipped_mics_are_rejected() {
    let hs = Hs::new(psk().as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 1);
    let b = beacon(Some(&hs.rsne), None);
    let mut t = Tracker::new();
    t.add_passphrase(b"not the passphrase", None).unwrap();
    let ev = feed(&mut t, &[&b, &hs.m1(1), &hs.m2(1)]);
    assert_eq!(
        rejections(&ev),
        vec![(KeyMessage::M2, Reject::NoPmkMatched)]
    );
    assert!(ptk_events(&ev).is_empty());

    // Message 2 with one MIC bit flipped: no PTK.
    let mut t = tracker();
    let mut m2 = hs.m2(1);
    let mic_at = 26 + 8 + 81;
    m2[mic_at] ^= 1;
    let ev = feed(&mut t, &[&b, &hs.m1(1), &m2]);
    assert_eq!(
        rejections(&ev),
        vec![(KeyMessage::M2, Reject::NoPmkMatched)]
    );

    // Message 3 with a flipped Key Data byte (MIC-covered): refused, the
    // handshake is not complete and no GTK is taken.
    let mut t = tracker();
    let mut m3 = hs.m3(2);
    let last = m3.len() - 1;
    m3[last] ^= 0x80;
    let ev = feed(&mut t, &[&b, &hs.m1(1), &hs.m2(1), &m3]);
    assert_eq!(rejections(&ev), vec![(KeyMessage::M3, Reject::MicFailure)]);
    assert_eq!(stats(&t, STA).handshakes_complete, 0);
    assert_eq!(t.group_keys(AP, 1).count(), 0);
}

#[test]
fn missing_message_1_and_message_4_are_tolerated() {
    let hs = Hs::new(psk().as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 3);
    let mut t = tracker();
    let ev = feed(
        &mut t,
        &[&beacon(Some(&hs.rsne), None), &hs.m2(1), &hs.m3(2)],
    );
    assert_eq!(rejections(&ev), vec![]);
    assert_eq!(ptk_events(&ev), vec![hs.tk().to_vec()]);
    assert_eq!(stats(&t, STA).handshakes_complete, 1);
    assert_eq!(stats(&t, STA).msg4, 0);
    assert!(tracker_decrypts(&t, Suite::Ccmp128, hs.tk(), 0));
}

#[test]
fn rekey_with_messages_1_and_2_only_adds_a_newer_ptk() {
    let pmk = psk();
    let a = Hs::new(pmk.as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 1);
    let b = Hs::new(pmk.as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 2);
    let mut t = tracker();
    let ev = feed(
        &mut t,
        &[
            &beacon(Some(&a.rsne), None),
            &a.m1(1),
            &a.m2(1),
            &a.m3(2),
            &a.m4(2),
            &b.m1(3),
            &b.m2(3),
        ],
    );
    assert_eq!(ptk_events(&ev), vec![a.tk().to_vec(), b.tk().to_vec()]);
    // Both keys decrypt; the newest is offered first.
    assert!(tracker_decrypts(&t, Suite::Ccmp128, a.tk(), 0));
    assert!(tracker_decrypts(&t, Suite::Ccmp128, b.tk(), 0));
    let first = t.pairwise_keys(AP, STA, 0).next().unwrap().0;
    let handles: Vec<KeyHandle> = ev
        .iter()
        .filter_map(|e| match e {
            Event::PairwiseKey { handle, .. } => Some(*handle),
            _ => None,
        })
        .collect();
    assert_eq!(first, handles[1]);
}

#[test]
fn message_3_retransmission_does_not_reinstall_and_stale_is_rejected() {
    let hs = Hs::new(psk().as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 1);
    let mut t = tracker();
    let b = beacon(Some(&hs.rsne), None);
    let ev = feed(&mut t, &[&b, &hs.m1(1), &hs.m2(1), &hs.m3(2)]);
    assert_eq!(ptk_events(&ev).len(), 1);
    // The same frame again (MAC retry), then a retransmission with a new
    // counter (what a KRACK attacker forwards): keys stay, nothing new.
    let ev = feed(&mut t, &[&hs.m3(2), &hs.m3(3)]);
    assert!(ev.is_empty(), "{ev:?}");
    assert_eq!(stats(&t, STA).retransmissions, 2);
    assert_eq!(stats(&t, STA).handshakes_complete, 1);
    assert_eq!(t.pairwise_keys(AP, STA, 0).count(), 1);
    // An old message 3 (counter below the last verified): stale.
    let ev = feed(&mut t, &[&hs.m3(1)]);
    assert_eq!(rejections(&ev), vec![(KeyMessage::M3, Reject::Stale)]);
    // A message 3 of the same counter but other content: replayed.
    let other = hs.m3_with(3, &hs.m3_data(&hs.rsne, 2, false, None));
    let ev = feed(&mut t, &[&other]);
    assert_eq!(rejections(&ev), vec![(KeyMessage::M3, Reject::Replayed)]);
}

#[test]
fn mismatched_rsne_in_message_3_is_rejected() {
    let hs = Hs::new(psk().as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 1);
    let mut t = tracker();
    let mut other = hs.rsne.clone();
    other[18] = 0x0c; // different RSN capabilities
    let m3 = hs.m3_with(2, &hs.m3_data(&other, 1, false, None));
    let ev = feed(
        &mut t,
        &[&beacon(Some(&hs.rsne), None), &hs.m1(1), &hs.m2(1), &m3],
    );
    assert_eq!(
        rejections(&ev),
        vec![(KeyMessage::M3, Reject::RsneMismatch)]
    );
    assert_eq!(stats(&t, STA).handshakes_complete, 0);
    assert_eq!(t.group_keys(AP, 1).count(), 0);
}

#[test]
fn new_anonce_mid_handshake_pairs_message_2_with_its_message_1() {
    let pmk = psk();
    let a = Hs::new(pmk.as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 1);
    let b = Hs::new(pmk.as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 2);
    let mut t = tracker();
    let ev = feed(
        &mut t,
        &[
            &beacon(Some(&a.rsne), None),
            &a.m1(1),
            &b.m1(2),
            &b.m2(2),
            &b.m3(3),
        ],
    );
    assert_eq!(rejections(&ev), vec![]);
    assert_eq!(ptk_events(&ev), vec![b.tk().to_vec()]);
    assert_eq!(stats(&t, STA).handshakes_seen, 2);
    assert_eq!(stats(&t, STA).handshakes_complete, 1);
}

#[test]
fn extended_key_id_keeps_two_ptks_by_key_id() {
    let pmk = psk();
    let a = Hs::new(pmk.as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 1);
    let b = Hs::new(pmk.as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 2);
    let mut t = tracker();
    let m3a = a.m3_with(2, &a.m3_data(&a.rsne, 1, false, Some(0)));
    let m3b = b.m3_with(4, &b.m3_data(&b.rsne, 1, false, Some(1)));
    feed(
        &mut t,
        &[
            &beacon(Some(&a.rsne), None),
            &a.m1(1),
            &a.m2(1),
            &m3a,
            &b.m1(3),
            &b.m2(3),
            &m3b,
        ],
    );
    assert!(tracker_decrypts(&t, Suite::Ccmp128, a.tk(), 0));
    assert!(tracker_decrypts(&t, Suite::Ccmp128, b.tk(), 1));
    assert!(!tracker_decrypts(&t, Suite::Ccmp128, a.tk(), 1));
    assert!(!tracker_decrypts(&t, Suite::Ccmp128, b.tk(), 0));
}

#[test]
fn group_rekey_replay_and_bad_key_data() {
    let hs = Hs::new(psk().as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 1);
    let mut t = tracker();
    feed(
        &mut t,
        &[
            &beacon(Some(&hs.rsne), None),
            &hs.m1(1),
            &hs.m2(1),
            &hs.m3(2),
            &hs.m4(2),
        ],
    );
    let new_gtk = [0x77u8; 16];
    let ev = feed(&mut t, &[&hs.g1(3, 2, &new_gtk)]);
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::GroupKey { key_id: 2, key, .. } if key.as_slice() == new_gtk)));
    assert_eq!(stats(&t, STA).group_rekeys, 1);
    // MAC retransmission: counted, not reinstalled.
    let ev = feed(&mut t, &[&hs.g1(3, 2, &new_gtk)]);
    assert!(ev.is_empty());
    // An older group message: stale.
    let ev = feed(&mut t, &[&hs.g1(2, 3, &[0x11; 16])]);
    assert_eq!(rejections(&ev), vec![(KeyMessage::Group1, Reject::Stale)]);
    // Key Data that does not unwrap, under a valid MIC.
    let ki = KeyInfo(0)
        .with_key_ack(true)
        .with_key_mic(true)
        .with_secure(true)
        .with_encrypted_key_data(true);
    let mut kd = hs.wrap(&kde(
        1,
        &[1, 0, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9],
    ));
    kd[0] ^= 1;
    let bad = eapol_mpdu(true, STA, &hs.frame(ki, 9, [0; 32], &kd, 0));
    let ev = feed(&mut t, &[&bad]);
    assert_eq!(
        rejections(&ev),
        vec![(KeyMessage::Group1, Reject::KeyDataUnwrap)]
    );
    assert_eq!(t.group_keys(AP, 2).count(), 1);
}

#[test]
fn wpa1_tkip_with_hmac_md5_and_rc4_group_key() {
    let hs = Hs::new(
        psk().as_bytes(),
        Akm::WPA_PSK,
        CipherSuite::WPA_TKIP,
        STA,
        1,
    );
    assert_eq!(hs.version, 1);
    let mut t = tracker();
    let gtk = [0x33u8; 32];
    let ev = feed(
        &mut t,
        &[
            &beacon(None, Some(&wpa_ie())),
            &hs.m1(1),
            &hs.m2(1),
            &hs.m3(2),
            &hs.m4(2),
            &hs.g1(3, 1, &gtk),
        ],
    );
    assert_eq!(rejections(&ev), vec![]);
    assert_eq!(ptk_events(&ev), vec![hs.tk().to_vec()]);
    assert!(ev.iter().any(|e| matches!(e, Event::GroupKey { key_id: 1, suite: Suite::Tkip, key, .. } if key.as_slice() == gtk)));
    let s = stats(&t, STA);
    assert_eq!((s.handshakes_complete, s.msg4, s.group_rekeys), (1, 1, 1));
    assert!(tracker_decrypts(&t, Suite::Tkip, hs.tk(), 0));
}

#[test]
fn sha256_and_pmk_credentials_and_many_stations() {
    let pmk = [0x5au8; 32];
    let a = Hs::new(&pmk, Akm::PSK_SHA256, CipherSuite::CCMP_128, STA, 1);
    let b = Hs::new(&pmk, Akm::SAE, CipherSuite::GCMP_256, STA2, 2);
    assert_eq!((a.version, b.version), (3, 0));
    let mut t = Tracker::new();
    t.add_pmk(&pmk).unwrap();
    let ev = feed(
        &mut t,
        &[&a.m1(1), &b.m1(1), &a.m2(1), &b.m2(1), &b.m3(2), &a.m3(2)],
    );
    assert_eq!(rejections(&ev), vec![]);
    assert_eq!(ptk_events(&ev), vec![a.tk().to_vec(), b.tk().to_vec()]);
    assert_eq!(stats(&t, STA).handshakes_complete, 1);
    assert_eq!(stats(&t, STA2).handshakes_complete, 1);
    // The group suite follows the RSNE of message 2: GCMP-256 needs a
    // 32-octet GTK, so the 16-octet test GTK is taken as CCMP-128 for
    // station 1 only.
    assert!(t
        .pairwise_keys(AP, STA2, 0)
        .all(|(_, k)| k.suite() == Suite::Gcmp256));
}

#[test]
fn passphrase_without_ssid_says_so() {
    let hs = Hs::new(psk().as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 1);
    let mut t = tracker();
    let ev = feed(&mut t, &[&hs.m1(1), &hs.m2(1)]);
    assert_eq!(rejections(&ev), vec![(KeyMessage::M2, Reject::NoSsid)]);
    // With the SSID given, no beacon is needed.
    let mut t = Tracker::new();
    t.add_passphrase(PASS, Some(SSID)).unwrap();
    let ev = feed(&mut t, &[&hs.m1(1), &hs.m2(1)]);
    assert_eq!(ptk_events(&ev), vec![hs.tk().to_vec()]);
}

#[test]
fn truncated_and_corrupt_eapol_frames_are_malformed_never_a_panic() {
    let hs = Hs::new(psk().as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 1);
    let full = hs.m2(1);
    let mut t = tracker();
    t.observe(&beacon(Some(&hs.rsne), None));
    t.observe(&hs.m1(1));
    // Cut the EAPOL PDU at every length: each is refused as malformed
    // (or as an EAPOL header that does not fit), none panics.
    let hdr = 26 + 8;
    for cut in hdr..full.len() {
        t.observe(&full[..cut]);
    }
    let ev: Vec<Event> = core::iter::from_fn(|| t.poll_event()).collect();
    assert!(ptk_events(&ev).is_empty());
    assert!(rejections(&ev).iter().all(|(_, r)| *r == Reject::Malformed));
    assert!(rejections(&ev).len() >= full.len() - hdr - 4);
    // A Key Data Length that overruns the body.
    let mut bad = full.clone();
    bad[hdr + 97] = 0xff;
    t.observe(&bad);
    assert_eq!(
        rejections(&[t.poll_event().unwrap()]),
        vec![(KeyMessage::M2, Reject::Malformed)]
    );
}

/// An FT-PSK initial mobility domain association with AP: the
/// handshake under PMK-R1, the association response with the key
/// holders, the beacon with the MDE.
struct FtFixture {
    hs: Hs,
    r1: wisec_crypto::ft::PmkR1,
    assoc_resp: Vec<u8>,
    bcn: Vec<u8>,
}

fn ft_fixture() -> FtFixture {
    let psk = psk();
    let akm = Akm::FT_PSK;
    let cipher = CipherSuite::CCMP_128;
    let mdid = [0x34, 0x12];
    let r0kh = b"ap.wisec.example";
    let r1 = PmkR0::derive(akm, psk.as_bytes(), SSID, mdid, r0kh, STA)
        .unwrap()
        .pmk_r1(AP, STA)
        .unwrap();
    let mut hs = Hs::new(&[1; 32], Akm::PSK_SHA256, cipher, STA, 1);
    hs.akm = akm;
    hs.rsne = rsne_bytes(4, 4, false);
    hs.ptk = r1
        .ptk(akm, cipher, &hs.snonce, &hs.anonce, AP, STA)
        .unwrap()
        .0;
    let mut body = vec![0x11, 0x04, 0, 0, 1, 0];
    body.extend(element(54, &[mdid[0], mdid[1], 1]));
    let mut fte = vec![0u8; 2 + 16 + 64];
    fte.extend(element(1, &AP.0));
    fte.extend(element(3, r0kh));
    body.extend(element(55, &fte));
    let assoc_resp = mgmt(1, STA, AP, AP, &body);
    let mut bcn = beacon(Some(&hs.rsne), None);
    bcn.extend(element(54, &[mdid[0], mdid[1], 1]));
    FtFixture {
        hs,
        r1,
        assoc_resp,
        bcn,
    }
}

#[test]
fn ft_psk_initial_association_uses_the_ft_ptk() {
    let FtFixture {
        hs,
        assoc_resp,
        bcn,
        ..
    } = ft_fixture();
    let mut t = tracker();
    // (Message 3 of FT names the PMKR1Name: see the next test.)
    let ev = feed(&mut t, &[&bcn, &assoc_resp, &hs.m1(1), &hs.m2(1)]);
    assert_eq!(rejections(&ev), vec![]);
    assert_eq!(ptk_events(&ev), vec![hs.tk().to_vec()]);
    // Without the association response the FT context is missing.
    let mut t = tracker();
    let ev = feed(&mut t, &[&bcn, &hs.m1(1), &hs.m2(1)]);
    assert_eq!(
        rejections(&ev),
        vec![(KeyMessage::M2, Reject::FtContextMissing)]
    );
    let _ = hs.cipher;
}

/// The GTKs the tracker holds for the BSS, Key ID 1.
fn gtks(t: &Tracker) -> usize {
    t.group_keys(AP, 1).count()
}

/// An FT initial mobility domain association (12.7.1.7, 13.4.2): message
/// 3's RSNE names the PMKR1Name in its PMKID list. It is accepted (and
/// the GTK learnt) when that name is the one derived, refused otherwise.
#[test]
fn ft_message_3_names_the_pmkr1name_and_installs_the_gtk() {
    let FtFixture {
        hs,
        r1,
        assoc_resp,
        bcn,
    } = ft_fixture();
    let with_name = |name: &[u8; 16]| {
        let mut r = hs.rsne.clone();
        r.extend_from_slice(&[1, 0]);
        r.extend_from_slice(name);
        r
    };
    // The PMKR1Name derived (12.7.1.7.4).
    let m3 = hs.m3_with(2, &hs.m3_data(&with_name(r1.name()), 1, false, None));
    let mut t = tracker();
    let ev = feed(&mut t, &[&bcn, &assoc_resp, &hs.m1(1), &hs.m2(1), &m3]);
    assert_eq!(rejections(&ev), vec![]);
    assert_eq!(stats(&t, STA).handshakes_complete, 1);
    assert_eq!(gtks(&t), 1);
    // Another name, or none, is refused.
    let mut wrong = *r1.name();
    wrong[0] ^= 1;
    for rsne in [with_name(&wrong), hs.rsne.clone()] {
        let m3 = hs.m3_with(2, &hs.m3_data(&rsne, 1, false, None));
        let mut t = tracker();
        let ev = feed(&mut t, &[&bcn, &assoc_resp, &hs.m1(1), &hs.m2(1), &m3]);
        assert_eq!(
            rejections(&ev),
            vec![(KeyMessage::M3, Reject::RsneMismatch)]
        );
        assert_eq!(gtks(&t), 0);
    }
}

/// After a deauthentication and a new association the authenticator
/// starts its key replay counter again: the new handshake completes and
/// its GTK is learnt. Without the association in between, the same
/// messages stay stale.
#[test]
fn a_new_association_starts_a_new_replay_counter() {
    let first = Hs::new(psk().as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 1);
    let second = Hs::new(psk().as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 2);
    let mut body = vec![0x11, 0x04, 10, 0];
    body.extend(element(0, SSID));
    body.extend(element(48, &first.rsne));
    let assoc = mgmt(0, AP, STA, AP, &body);
    let bcn = beacon(Some(&first.rsne), None);
    let gtk2 = [0x48u8; 16];
    let m3b = second.m3_with(6, &{
        let mut kd = element(48, &second.rsne);
        let mut g = vec![1, 0];
        g.extend_from_slice(&gtk2);
        kd.extend(kde(1, &g));
        kd
    });
    let run = |with_assoc: bool| {
        let mut t = tracker();
        let mut frames: Vec<&[u8]> = vec![&bcn];
        let (a1, a2, a3, a4) = (first.m1(9), first.m2(9), first.m3(10), first.m4(10));
        frames.extend([&a1[..], &a2, &a3, &a4]);
        if with_assoc {
            frames.push(&assoc);
        }
        let (b1, b2, b4) = (second.m1(5), second.m2(5), second.m4(6));
        frames.extend([&b1[..], &b2, &m3b, &b4]);
        let ev = feed(&mut t, &frames);
        (t, ev)
    };
    let (t, ev) = run(true);
    assert_eq!(rejections(&ev), vec![]);
    assert_eq!(stats(&t, STA).handshakes_complete, 2);
    assert_eq!(t.group_keys(AP, 1).count(), 2, "the new GTK is learnt");
    let (t, ev) = run(false);
    assert_eq!(rejections(&ev), vec![(KeyMessage::M3, Reject::Stale)]);
    assert_eq!(stats(&t, STA).handshakes_complete, 1);
}

/// Several credentials are tried per handshake; the key says which one
/// matched, and a wrong one alone says so.
#[test]
fn the_credential_that_matched_is_named() {
    let hs = Hs::new(psk().as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 1);
    let bcn = beacon(Some(&hs.rsne), None);
    let mut t = Tracker::new();
    t.add_passphrase(b"not the passphrase", None).unwrap();
    t.add_pmk(&[7; 32]).unwrap();
    t.add_passphrase(PASS, None).unwrap();
    let ev = feed(&mut t, &[&bcn, &hs.m1(1), &hs.m2(1), &hs.m3(2)]);
    let got: Vec<usize> = ev
        .iter()
        .filter_map(|e| match e {
            Event::PairwiseKey { credential, .. } => Some(*credential),
            _ => None,
        })
        .collect();
    assert_eq!(got, vec![2]);
    let mut t = Tracker::new();
    t.add_passphrase(b"not the passphrase", None).unwrap();
    let ev = feed(&mut t, &[&bcn, &hs.m1(1), &hs.m2(1)]);
    assert_eq!(
        rejections(&ev),
        vec![(KeyMessage::M2, Reject::NoPmkMatched)]
    );
    assert_eq!(
        Reject::NoPmkMatched.reason(),
        "no credential matched (wrong passphrase or PSK?)"
    );
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Any bytes, or a real handshake frame with bytes changed, go
        /// through the tracker without a panic, and a changed frame never
        /// yields a key the real handshake would not.
        #[test]
        fn arbitrary_and_mutated_frames(
            junk in proptest::collection::vec(any::<u8>(), 0..200),
            which in 0usize..4,
            at in any::<usize>(),
            x in 1u8..=255,
        ) {
            let hs = Hs::new(psk().as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 1);
            let mut t = tracker();
            t.observe(&junk);
            t.observe(&beacon(Some(&hs.rsne), None));
            let mut frames = [hs.m1(1), hs.m2(1), hs.m3(2), hs.m4(2)];
            let f = &mut frames[which];
            let i = 26 + 8 + at % (f.len() - 34);
            f[i] ^= x;
            for f in &frames {
                t.observe(f);
            }
            let ev: Vec<Event> = core::iter::from_fn(|| t.poll_event()).collect();
            for tk in ptk_events(&ev) {
                prop_assert_eq!(tk, hs.tk().to_vec());
            }
        }

        /// The two-octet look the tracker takes first never turns away a
        /// frame the full parse finds EAPOL in, whatever the Frame Control
        /// flags (QoS, 4 addresses, +HTC, A-MSDU, Protected, Null) and the
        /// LLC header: both answers agree on every frame.
        #[test]
        fn eapol_glance_agrees_with_the_full_parse(
            subtype in 0u8..16,
            flags in any::<u8>(),
            qos_amsdu in any::<bool>(),
            llc in prop_oneof![Just([0xaau8, 0xaa, 3]), Just([0xaa, 0xaa, 0x13]), Just([0x42, 0x42, 3])],
            ethertype in prop_oneof![Just(0x888eu16), Just(0x0800), Just(0x8e88), any::<u16>()],
            pad in 0usize..12,
            rest in proptest::collection::vec(any::<u8>(), 0..40),
        ) {
            let fc = FrameControl::from_bytes([0x08 | subtype << 4, flags]);
            let mut f = fc.to_bytes().to_vec();
            f.resize(40, 0x11);
            // QoS Control wherever a QoS header puts it, A-MSDU bit as drawn.
            let qos_at = if fc.has_addr4() { 30 } else { 24 };
            f[qos_at] = if qos_amsdu { 0x80 } else { 0 };
            let body_at = DataFrame::new_unchecked(&f[..]).header_len();
            f.truncate(body_at);
            f.extend_from_slice(&llc);
            f.extend_from_slice(&[0, 0, 0]);
            f.extend_from_slice(&ethertype.to_be_bytes());
            f.extend_from_slice(&rest);
            f.truncate(f.len().saturating_sub(pad));
            if let Ok(d) = DataFrame::new_checked(&f[..]) {
                let eapol = d.ethertype() == Some(EtherType::EAPOL);
                prop_assert!(!eapol || may_carry_eapol(&d));
                // The glance alone says yes exactly when those octets are
                // EAPOL's, SNAP header or not.
                let octets = d.body().get(6..8) == Some(&[0x88, 0x8e][..]);
                prop_assert_eq!(may_carry_eapol(&d), octets);
            }
        }
    }

    /// Frames the glance turns away and frames it lets through: an EAPOL
    /// frame of a real handshake passes, the same frame with another
    /// EtherType does not, and the tracker derives the key from the first.
    #[test]
    fn eapol_glance_on_handshake_frames() {
        let hs = Hs::new(psk().as_bytes(), Akm::PSK, CipherSuite::CCMP_128, STA, 1);
        for m in [hs.m1(1), hs.m2(1), hs.m3(2), hs.m4(2)] {
            let d = DataFrame::new_checked(&m[..]).unwrap();
            assert_eq!(d.ethertype(), Some(EtherType::EAPOL));
            assert!(may_carry_eapol(&d));
            let mut other = m.clone();
            let at = d.header_len() + 6;
            other[at..at + 2].copy_from_slice(&0x0800u16.to_be_bytes());
            let d = DataFrame::new_checked(&other[..]).unwrap();
            assert!(!may_carry_eapol(&d));
            assert_ne!(d.ethertype(), Some(EtherType::EAPOL));
        }
        let mut t = tracker();
        t.observe(&beacon(Some(&hs.rsne), None));
        for m in [hs.m1(1), hs.m2(1), hs.m3(2), hs.m4(2)] {
            t.observe(&m);
        }
        let ev: Vec<Event> = core::iter::from_fn(|| t.poll_event()).collect();
        assert_eq!(ptk_events(&ev), vec![hs.tk().to_vec()]);
    }
}
