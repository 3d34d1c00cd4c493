//! Fuzz-style tests: truncated and random bytes fed to every view and
//! iterator, checked and unchecked. Nothing may panic, and whatever parses
//! must re-emit to the same bytes.

use proptest::prelude::*;
use wisec_wire::eapol::KeyDataIter;
use wisec_wire::element::VendorElement;
use wisec_wire::*;

fn walk_elements(b: &[u8]) {
    let mut it = Elements::new(b);
    for e in it.by_ref() {
        let Ok(e) = e else { break };
        let _ = (e.ext_id(), e.ext_data(), e.buffer_len());
        let _ = Rsne::from_element(e).map(|r| {
            let _ = (
                r.pairwise_or_default().iter().count(),
                r.akms_or_default().len(),
            );
            let mut out = [0u8; 300];
            if let Ok(n) = r.emit(&mut out) {
                // The RSNE as parsed re-emits to the element's own bytes
                // (ID, Length, data).
                assert_eq!(&out[2..n], e.data);
            }
        });
        let _ = WpaElement::from_element(e);
        let _ = VendorElement::from_element(e).map(|v| v.vendor_type());
        let _ = kde_and_mme(e);
    }
    let _ = it.error();
    let _ = Elements::new(b).ssid();
    let _ = Elements::new(b).rsne();
    let _ = Elements::new(b).wpa();
    let _ = Elements::new(b).rates().count();
    let _ = Elements::new(b).validate();
    for item in KeyDataIter::new(b) {
        if let Ok(KeyDataItem::Kde(k)) = item {
            let _ = (k.gtk(), k.igtk());
        }
    }
}

fn kde_and_mme(e: Element<'_>) -> Option<()> {
    let k = Kde::from_element(e)?;
    let _ = (k.gtk(), k.igtk());
    Some(())
}

fn exercise(b: &[u8]) {
    // MAC header and data frames.
    if let Ok(f) = DataFrame::new_checked(b) {
        let _ = (
            f.tid(),
            f.amsdu_present(),
            f.is_null(),
            f.snap(),
            f.msdu_payload(),
        );
        let h = f.header();
        let _ = (
            h.addr1(),
            h.addr2(),
            h.addr3(),
            h.addr4(),
            h.bssid(),
            h.sa(),
            h.da(),
        );
        if let Ok(r) = DataFrameRepr::parse(&f) {
            let mut out = vec![0u8; r.buffer_len().unwrap()];
            r.emit(&mut out).unwrap();
            assert_eq!(&out[..], b);
        }
    }
    let u = DataFrame::new_unchecked(b);
    let _ = (u.tid(), u.body(), u.snap(), u.qos_control());

    // Management frames.
    if let Ok(f) = MgmtFrame::new_checked(b) {
        let _ = (
            f.timestamp(),
            f.beacon_interval(),
            f.capability(),
            f.listen_interval(),
            f.current_ap(),
            f.status_code(),
            f.aid(),
            f.auth_algorithm(),
            f.auth_seq(),
            f.reason_code(),
            f.category(),
            f.action_code(),
            f.is_robust(),
        );
        if let Some(m) = f.mme() {
            let _ = (m.key_id(), m.ipn(), m.mic());
        }
        walk_elements(f.variable());
        if let Ok(r) = MgmtFrameRepr::parse(&f) {
            let mut out = vec![0u8; r.buffer_len().unwrap()];
            r.emit(&mut out).unwrap();
            assert_eq!(&out[..], b);
        }
    }
    let u = MgmtFrame::new_unchecked(b);
    let _ = (
        u.timestamp(),
        u.capability(),
        u.current_ap(),
        u.mme().is_some(),
        u.variable(),
    );

    // Elements, LLC, security headers.
    walk_elements(b);
    if let Ok(s) = SnapHeader::new_checked(b) {
        let _ = (SnapRepr::parse(&s), s.payload());
    }
    let _ = (
        WepHeader::parse(b),
        TkipHeader::parse(b),
        CcmpHeader::parse(b),
    );
    if let Ok(m) = Mme::new_checked(b) {
        let _ = MmeRepr::parse(&m);
    }
    let m = Mme::new_unchecked(b);
    let _ = (m.key_id(), m.ipn(), m.mic());

    // EAPOL.
    if let Ok(e) = EapolFrame::new_checked(b) {
        let _ = (e.version(), e.packet_type(), e.body());
    }
    for mic in [0, 16, 24, 32, 40, usize::MAX] {
        if let Ok(k) = KeyFrame::new_checked(b, mic) {
            let r = KeyFrameRepr::parse(&k).unwrap();
            let mut out = vec![0u8; r.buffer_len()];
            r.emit(&mut out).unwrap();
            assert_eq!(&out[..], k.pdu());
            walk_elements(k.key_data());
        }
        let u = KeyFrame::new_unchecked(b, mic);
        let _ = (
            u.mic(),
            u.key_data(),
            u.key_nonce(),
            u.key_rsc_u64(),
            u.pdu(),
        );
    }

    // Radiotap.
    if let Ok(r) = Radiotap::new_checked(b) {
        let mut it = r.fields();
        for _ in it.by_ref() {}
        let _ = it.stopped_at_unknown();
        let _ = (
            r.flags(),
            r.rate(),
            r.channel(),
            r.tsft(),
            r.dbm_antenna_signal(),
        );
        let _ = (r.has_fcs(), r.fcs(), r.frame(), r.payload(), r.tx_flags());
        let _ = RadiotapRepr::parse(&r);
        exercise_inner(r.frame());
    }
    let u = Radiotap::new_unchecked(b);
    let _ = (u.fields().count(), u.frame(), u.fcs());
}

fn exercise_inner(b: &[u8]) {
    if let Ok(f) = MgmtFrame::new_checked(b) {
        walk_elements(f.variable());
    }
    let _ = DataFrame::new_checked(b).map(|f| f.snap());
}

// Valid frames to cut and mutate: the vectors-file MPDUs and hand-built
// frames of the other kinds.
const SEEDS: &[&str] = &[
    "08422c00020304050608020304050607020304050607d002aaaa03000000080045000054000040004001a555c0a80a02c0a80a0108003ab000000000cd4c05000000000008090a0b0c0d0e0f",
    "88480b000fd2e128a57c5030f18444085030f184440880330300000102030405060708090a0b0c0d0e0f",
    "c000000002000000010002000000000002000000000060000200",
    "c0000000ffffffffffff020000000000020000000000090002004c10040004000000000048dfbfa7b8278872",
    "80000000ffffffffffff0200000000010200000000010000080706050403020164001100000377697301048284" ,
    "0103007502010a0000000000000000000103864225e34350a84df0061bb6ae60da4c0600879d50ec1ea4f47ee29da4b5da0000000000000000000000000000000000000000000000000000000000000000584c33e052eb53dd19001a339b42eefe001630140100000fac040100000fac040100000fac020000",
    "000012002e4800001002 6c09a000c5010000d40000000102030405 06aabbccdd",
    "30140100000fac040100000fac040100000fac020c00dd160050f20101000050f20201000050f20201000050f202",
];

fn seed(i: usize) -> Vec<u8> {
    let s: String = SEEDS[i].chars().filter(|c| !c.is_whitespace()).collect();
    hex::decode(s).unwrap()
}

#[test]
fn every_truncation_and_byte_flip_of_valid_frames() {
    for i in 0..SEEDS.len() {
        let b = seed(i);
        for cut in 0..=b.len() {
            exercise(&b[..cut]);
        }
        for pos in 0..b.len() {
            for v in [0x00, 0xff, 0x80, b[pos] ^ 0x01] {
                let mut m = b.clone();
                m[pos] = v;
                exercise(&m);
            }
        }
    }
}

#[test]
fn random_bytes_deterministic() {
    let mut state = 0x9e37_79b9u32;
    let mut buf = [0u8; 160];
    for _ in 0..4000 {
        for x in buf.iter_mut() {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            *x = state as u8;
        }
        let len = (state >> 8) as usize % buf.len();
        // Bias towards plausible starts: frame control of each type, radiotap
        // version 0, EAPOL-Key.
        match state % 5 {
            0 => buf[0] = 0x80,
            1 => buf[0] = 0x88,
            2 => {
                buf[0] = 0;
                buf[2] = (len as u8).max(8);
                buf[3] = 0;
            }
            3 => {
                buf[1] = 3;
                buf[4] = 2;
            }
            _ => {}
        }
        exercise(&buf[..len]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_never_panic(b in prop::collection::vec(any::<u8>(), 0..200)) {
        exercise(&b);
    }
}
