//! Property tests: random frames of every kind round-trip through their
//! Reprs (emit, view, parse, emit again gives the same bytes and value).

use proptest::prelude::*;
use wisec_wire::element::List;
use wisec_wire::frame_control::{data_subtype, mgmt_subtype};
use wisec_wire::*;

fn mac() -> impl Strategy<Value = MacAddr> {
    any::<[u8; 6]>().prop_map(MacAddr)
}

fn addressing() -> impl Strategy<Value = Addressing> {
    prop_oneof![
        (mac(), mac(), mac()).prop_map(|(da, sa, bssid)| Addressing::Direct { da, sa, bssid }),
        (mac(), mac(), mac()).prop_map(|(bssid, sa, da)| Addressing::ToAp { bssid, sa, da }),
        (mac(), mac(), mac()).prop_map(|(da, bssid, sa)| Addressing::FromAp { da, bssid, sa }),
        (mac(), mac(), mac(), mac()).prop_map(|(ra, ta, da, sa)| Addressing::FourAddress {
            ra,
            ta,
            da,
            sa
        }),
    ]
}

fn data_header() -> impl Strategy<Value = HeaderRepr> {
    (
        addressing(),
        prop::option::of(0u8..16),
        any::<u16>(),
        any::<u16>(),
        any::<bool>(),
        any::<bool>(),
        any::<u32>(),
        any::<bool>(),
    )
        .prop_map(|(a, tid, seq, dur, protected, htc, ht, null)| {
            let mut h = a.header(tid, seq);
            h.duration = dur;
            h.frame_control.set_protected(protected);
            if null {
                let st = if tid.is_some() {
                    data_subtype::QOS_NULL
                } else {
                    data_subtype::NULL
                };
                h.frame_control.set_subtype(st);
            }
            if htc && tid.is_some() {
                h.frame_control.set_order(true);
                h.ht_control = Some(ht);
            }
            h
        })
}

fn mgmt_body() -> impl Strategy<Value = (u8, MgmtBody)> {
    let cap = any::<u16>().prop_map(CapabilityInfo);
    let beacon = (any::<u64>(), any::<u16>(), cap.clone()).prop_map(|(t, i, c)| BeaconFields {
        timestamp: t,
        beacon_interval: i,
        capability: c,
    });
    prop_oneof![
        beacon
            .clone()
            .prop_map(|b| (mgmt_subtype::BEACON, MgmtBody::Beacon(b))),
        beacon.prop_map(|b| (mgmt_subtype::PROBE_RESP, MgmtBody::ProbeResponse(b))),
        Just((mgmt_subtype::PROBE_REQ, MgmtBody::ProbeRequest)),
        (any::<u16>(), any::<u16>(), any::<u16>()).prop_map(|(a, s, st)| (
            mgmt_subtype::AUTH,
            MgmtBody::Authentication {
                algorithm: AuthAlgorithm::from_u16(a),
                seq: s,
                status: StatusCode(st)
            }
        )),
        (cap.clone(), any::<u16>()).prop_map(|(c, l)| (
            mgmt_subtype::ASSOC_REQ,
            MgmtBody::AssocRequest {
                capability: c,
                listen_interval: l
            }
        )),
        (cap.clone(), any::<u16>(), any::<u16>()).prop_map(|(c, s, a)| (
            mgmt_subtype::ASSOC_RESP,
            MgmtBody::AssocResponse {
                capability: c,
                status: StatusCode(s),
                aid: a
            }
        )),
        (cap.clone(), any::<u16>(), mac()).prop_map(|(c, l, ap)| (
            mgmt_subtype::REASSOC_REQ,
            MgmtBody::ReassocRequest {
                capability: c,
                listen_interval: l,
                current_ap: ap
            }
        )),
        (cap, any::<u16>(), any::<u16>()).prop_map(|(c, s, a)| (
            mgmt_subtype::REASSOC_RESP,
            MgmtBody::ReassocResponse {
                capability: c,
                status: StatusCode(s),
                aid: a
            }
        )),
        any::<u16>().prop_map(|r| (
            mgmt_subtype::DISASSOC,
            MgmtBody::Disassociation {
                reason: ReasonCode(r)
            }
        )),
        any::<u16>().prop_map(|r| (
            mgmt_subtype::DEAUTH,
            MgmtBody::Deauthentication {
                reason: ReasonCode(r)
            }
        )),
        any::<u8>().prop_map(|c| (
            mgmt_subtype::ACTION,
            MgmtBody::Action {
                category: ActionCategory::from_u8(c)
            }
        )),
        any::<u8>().prop_map(|c| (
            mgmt_subtype::ACTION_NO_ACK,
            MgmtBody::ActionNoAck {
                category: ActionCategory::from_u8(c)
            }
        )),
        Just((mgmt_subtype::ATIM, MgmtBody::Other)),
        Just((7, MgmtBody::Other)),
    ]
}

fn suites<T: std::fmt::Debug + Clone + 'static>(
    s: impl Strategy<Value = T> + 'static,
) -> impl Strategy<Value = Vec<T>> {
    prop::collection::vec(s, 0..5)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn data_frames_round_trip(
        h in data_header(),
        ethertype in any::<u16>(),
        payload in prop::collection::vec(any::<u8>(), 0..64),
        raw in any::<bool>(),
    ) {
        let body = if h.frame_control.is_null_data() {
            DataBody::None
        } else if raw || h.frame_control.protected() {
            DataBody::Raw(&payload)
        } else {
            DataBody::Msdu { snap: SnapRepr::for_ethertype(EtherType(ethertype)), payload: &payload }
        };
        let r = DataFrameRepr { header: h, body };
        let mut buf = vec![0u8; r.buffer_len().unwrap()];
        let n = r.emit(&mut buf).unwrap();
        prop_assert_eq!(n, buf.len());
        let f = DataFrame::new_checked(&buf[..]).unwrap();
        let p = DataFrameRepr::parse(&f).unwrap();
        prop_assert_eq!(p.header, h);
        // A raw body that happens to start with AA-AA-03 parses as an MSDU;
        // the bytes are the same either way.
        if !matches!(body, DataBody::Raw(_)) || f.snap().is_none() {
            prop_assert_eq!(p, r);
        }
        let mut again = vec![0u8; n];
        prop_assert_eq!(p.emit(&mut again), Ok(n));
        prop_assert_eq!(&again, &buf);
        prop_assert_eq!(f.tid(), h.qos_control.map_or(0, |q| (q & 0xf) as u8));
        prop_assert_eq!(f.header().addr4(), h.addr4);
    }

    #[test]
    fn mgmt_frames_round_trip(
        (st, body) in mgmt_body(),
        a1 in mac(), a2 in mac(), a3 in mac(),
        seq in any::<u16>(),
        htc in prop::option::of(any::<u32>()),
        variable in prop::collection::vec(any::<u8>(), 0..64),
        protected in any::<bool>(),
    ) {
        let mut fc = FrameControl::new(FrameType::Management, st);
        fc.set_order(htc.is_some());
        fc.set_protected(protected);
        let header = HeaderRepr {
            frame_control: fc, duration: 0, addr1: a1, addr2: Some(a2), addr3: Some(a3),
            sequence_control: Some(seq), addr4: None, qos_control: None, ht_control: htc,
        };
        let body = if protected { MgmtBody::Protected } else { body };
        let r = MgmtFrameRepr { header, body, variable: &variable };
        let mut buf = vec![0u8; r.buffer_len().unwrap()];
        let n = r.emit(&mut buf).unwrap();
        let f = MgmtFrame::new_checked(&buf[..n]).unwrap();
        prop_assert_eq!(f.header_len(), if htc.is_some() { 28 } else { 24 });
        let p = MgmtFrameRepr::parse(&f).unwrap();
        prop_assert_eq!(p, r);
        let mut again = vec![0u8; n];
        p.emit(&mut again).unwrap();
        prop_assert_eq!(again, buf);
    }

    #[test]
    fn rsne_round_trip(
        group in any::<[u8; 4]>(),
        pairwise in suites(any::<[u8; 4]>().prop_map(CipherSuite::from_bytes)),
        akms in suites(any::<[u8; 4]>().prop_map(Akm::from_bytes)),
        caps in any::<u16>(),
        pmkids in suites(any::<[u8; 16]>().prop_map(Pmkid)),
        gm in any::<[u8; 4]>(),
        last in 0u8..=6,
        ext in prop::collection::vec(any::<u8>(), 0..4),
    ) {
        let r = Rsne {
            version: 1,
            group_data_cipher: (last >= 1).then_some(CipherSuite::from_bytes(group)),
            pairwise: (last >= 2).then_some(List::Items(&pairwise)),
            akms: (last >= 3).then_some(List::Items(&akms)),
            capabilities: (last >= 4).then_some(RsnCapabilities(caps)),
            pmkids: (last >= 5).then_some(List::Items(&pmkids)),
            group_mgmt_cipher: (last >= 6).then_some(CipherSuite::from_bytes(gm)),
            extension: if last == 6 { &ext } else { &[] },
        };
        let mut buf = vec![0u8; r.buffer_len()];
        match r.emit(&mut buf) {
            Ok(n) => {
                let e = Elements::new(&buf[..n]).next().unwrap().unwrap();
                let p = Rsne::from_element(e).unwrap();
                prop_assert_eq!(p, r);
                let mut again = vec![0u8; n];
                p.emit(&mut again).unwrap();
                prop_assert_eq!(again, buf);
            }
            // Only an element longer than 255 octets may fail.
            Err(e) => {
                prop_assert_eq!(e, Error::Malformed);
                prop_assert!(r.data_len() > 255);
            }
        }
    }

    #[test]
    fn wpa_round_trip(
        pairwise in suites(any::<[u8; 4]>().prop_map(CipherSuite::from_bytes)),
        akms in suites(any::<[u8; 4]>().prop_map(Akm::from_bytes)),
        caps in any::<u16>(),
        last in 0u8..=4,
    ) {
        let w = WpaElement {
            version: 1,
            group_cipher: (last >= 1).then_some(CipherSuite::WPA_TKIP),
            pairwise: (last >= 2).then_some(List::Items(&pairwise)),
            akms: (last >= 3).then_some(List::Items(&akms)),
            capabilities: (last >= 4).then_some(caps),
        };
        let mut buf = vec![0u8; w.buffer_len()];
        let n = w.emit(&mut buf).unwrap();
        let p = Elements::new(&buf[..n]).wpa().unwrap().unwrap();
        prop_assert_eq!(p, w);
    }

    #[test]
    fn eapol_key_round_trip(
        version in 1u8..=3,
        wpa in any::<bool>(),
        ki in any::<u16>(),
        key_length in any::<u16>(),
        rc in any::<u64>(),
        nonce in any::<[u8; 32]>(),
        iv in any::<[u8; 16]>(),
        rsc in any::<[u8; 8]>(),
        reserved in any::<[u8; 8]>(),
        mic_len in prop::sample::select(vec![0usize, 16, 24, 32]),
        mic in any::<[u8; 32]>(),
        key_data in prop::collection::vec(any::<u8>(), 0..80),
        padding in 0usize..8,
    ) {
        let r = KeyFrameRepr {
            eapol_version: version,
            descriptor_type: if wpa { KeyDescriptor::Wpa } else { KeyDescriptor::Rsn },
            key_info: KeyInfo(ki),
            key_length,
            replay_counter: rc,
            key_nonce: nonce,
            key_iv: iv,
            key_rsc: rsc,
            reserved,
            mic: &mic[..mic_len],
            key_data: &key_data,
        };
        // Bytes after the PDU (Ethernet padding) are allowed and ignored.
        let mut buf = vec![0xeeu8; r.buffer_len() + padding];
        let n = r.emit(&mut buf).unwrap();
        let k = KeyFrame::new_checked(&buf[..], mic_len).unwrap();
        prop_assert_eq!(k.pdu().len(), n);
        let p = KeyFrameRepr::parse(&k).unwrap();
        prop_assert_eq!(p, r);
        prop_assert_eq!(k.key_info().descriptor_version().to_u8(), (ki & 7) as u8);
    }

    #[test]
    fn radiotap_round_trip(
        flags in prop::option::of(any::<u8>()),
        rate in prop::option::of(any::<u8>()),
        chan in prop::option::of((any::<u16>(), any::<u16>())),
        sig in prop::option::of(any::<i8>()),
        tx in prop::option::of(any::<u16>()),
        frame in prop::collection::vec(any::<u8>(), 0..40),
    ) {
        let r = RadiotapRepr {
            flags: flags.map(RadiotapFlags),
            rate,
            channel: chan.map(|(freq, flags)| RadiotapChannel { freq, flags }),
            dbm_antenna_signal: sig,
            tx_flags: tx,
        };
        let mut buf = vec![0u8; r.buffer_len() + frame.len()];
        let n = r.emit(&mut buf).unwrap();
        buf[n..].copy_from_slice(&frame);
        let v = Radiotap::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(RadiotapRepr::parse(&v), Ok(r));
        prop_assert_eq!(v.payload(), &frame[..]);
        prop_assert!(v.fields().all(|f| f.is_ok()));
        let fcs = flags.is_some_and(|f| f & 0x10 != 0);
        prop_assert_eq!(v.has_fcs(), fcs);
        prop_assert_eq!(v.frame().len(), if fcs { frame.len().saturating_sub(4) } else { frame.len() });
    }
}
