//! Targets of wisec-wire: every checked view must read any input without
//! panicking, and what parses into a `Repr` must emit the bytes it came
//! from (or, where a `Repr` keeps only some fields, parse again to itself).

use wisec_wire::discosec::{DiscoElement, DiscoInfo, Trailer};
use wisec_wire::eapol::{KeyDataItem, KeyDataIter, KeyFrame, KeyFrameRepr};
use wisec_wire::element::{Elements, Mme, MmeRepr, Rsne, VendorElement, WpaElement};
use wisec_wire::llc::{SnapHeader, SnapRepr};
use wisec_wire::mac_header::{Header, HeaderRepr};
use wisec_wire::mgmt::{MgmtFrame, MgmtFrameRepr};
use wisec_wire::radiotap::{Radiotap, RadiotapRepr};
use wisec_wire::security::{CcmpHeader, TkipHeader, WepHeader};
use wisec_wire::{DataFrame, DataFrameRepr, Kde};

/// The MAC header view and `HeaderRepr`.
pub fn header(data: &[u8]) {
    let Ok(h) = Header::new_checked(data) else {
        return;
    };
    let _ = (h.addr1(), h.addr2(), h.addr3(), h.addr4(), h.payload());
    let _ = (
        h.sequence_number(),
        h.fragment_number(),
        h.tid(),
        h.ht_control(),
    );
    let _ = (h.ra(), h.ta(), h.bssid(), h.da(), h.sa());
    let Ok(r) = HeaderRepr::parse(&h) else {
        return;
    };
    let len = r.buffer_len().expect("a parsed header has a length");
    assert_eq!(len, h.header_len(), "HeaderRepr length");
    let mut buf = vec![0u8; len];
    assert_eq!(r.emit(&mut buf), Ok(len));
    assert_eq!(buf, data[..len], "header parse -> emit round trip");
}

/// Management frames: the view's accessors, its elements, the MME and
/// `MgmtFrameRepr`'s round trip.
pub fn mgmt(data: &[u8]) {
    let Ok(f) = MgmtFrame::new_checked(data) else {
        return;
    };
    let _ = (f.timestamp(), f.beacon_interval(), f.capability());
    let _ = (
        f.listen_interval(),
        f.current_ap(),
        f.status_code(),
        f.aid(),
    );
    let _ = (f.auth_algorithm(), f.auth_seq(), f.reason_code());
    let _ = (f.category(), f.action_code(), f.is_robust());
    if let Some(m) = f.mme() {
        mme(m.into_inner());
    }
    walk_elements(f.variable());
    let Ok(r) = MgmtFrameRepr::parse(&f) else {
        return;
    };
    let len = r.buffer_len().expect("a parsed frame has a length");
    assert_eq!(len, data.len(), "MgmtFrameRepr covers the frame");
    let mut buf = vec![0u8; len];
    assert_eq!(r.emit(&mut buf), Ok(len));
    assert_eq!(buf, data, "management frame parse -> emit round trip");
}

fn mme(bytes: &[u8]) {
    let Ok(m) = Mme::new_checked(bytes) else {
        return;
    };
    let Ok(r) = MmeRepr::parse(&m) else {
        return;
    };
    let mut buf = vec![0u8; r.buffer_len()];
    let n = r.emit(&mut buf).expect("a parsed MME emits");
    assert_eq!(buf[..n], bytes[..n], "MME round trip");
}

/// Data frames, LLC/SNAP and the security headers.
pub fn data(data: &[u8]) {
    let Ok(f) = DataFrame::new_checked(data) else {
        return;
    };
    let _ = (f.qos_control(), f.tid(), f.amsdu_present(), f.is_null());
    let _ = (f.snap(), f.ethertype(), f.msdu_payload());
    let body = f.body();
    let _ = (
        WepHeader::parse(body),
        TkipHeader::parse(body),
        CcmpHeader::parse(body),
    );
    if let Ok(s) = SnapHeader::new_checked(body) {
        if let Ok(r) = SnapRepr::parse(&s) {
            let mut b = [0u8; 8];
            let n = r.emit(&mut b).expect("a parsed SNAP header emits");
            assert_eq!(b[..n], body[..n], "SNAP round trip");
        }
    }
    let Ok(r) = DataFrameRepr::parse(&f) else {
        return;
    };
    let len = r.buffer_len().expect("a parsed data frame has a length");
    assert_eq!(len, data.len(), "DataFrameRepr covers the frame");
    let mut buf = vec![0u8; len];
    assert_eq!(r.emit(&mut buf), Ok(len));
    assert_eq!(buf, data, "data frame parse -> emit round trip");
}

/// A list of elements, each read by every parser that takes it.
pub fn elements(data: &[u8]) {
    walk_elements(data);
    let _ = Elements::new(data).validate();
    let _ = Elements::new(data).ssid();
    let _ = Elements::new(data).rates().count();
}

fn walk_elements(data: &[u8]) {
    let mut consumed = 0;
    for e in Elements::new(data) {
        let Ok(e) = e else {
            break;
        };
        let mut buf = vec![0u8; e.buffer_len()];
        assert_eq!(e.emit(&mut buf), Ok(e.buffer_len()));
        assert_eq!(
            buf,
            data[consumed..consumed + e.buffer_len()],
            "element round trip"
        );
        consumed += e.buffer_len();
        let _ = (e.ext_id(), e.ext_data());
        if let Ok(r) = Rsne::from_element(e) {
            rsne_round_trip(&r, e.data);
        }
        if let Ok(w) = WpaElement::from_element(e) {
            let mut b = vec![0u8; w.buffer_len()];
            let n = w.emit(&mut b).expect("a parsed WPA element emits");
            let again = WpaElement::from_element(
                Elements::new(&b[..n])
                    .next()
                    .expect("one element")
                    .expect("well formed"),
            )
            .expect("the emitted WPA element parses");
            assert_eq!(again, w, "WPA element parse -> emit -> parse");
        }
        if let Ok(v) = VendorElement::from_element(e) {
            let mut b = vec![0u8; v.buffer_len()];
            let n = v.emit(&mut b).expect("a parsed vendor element emits");
            assert_eq!(b[..n], data[consumed - e.buffer_len()..consumed]);
        }
        if let Some(k) = Kde::from_element(e) {
            let mut b = vec![0u8; k.buffer_len()];
            let n = k.emit(&mut b).expect("a parsed KDE emits");
            assert_eq!(b[..n], data[consumed - e.buffer_len()..consumed], "KDE");
            let _ = (k.gtk(), k.igtk());
        }
        if let Some(Ok(d)) = DiscoElement::from_element(e) {
            disco_round_trip(&d, &data[consumed - e.buffer_len()..consumed]);
        }
        if e.id == 76 {
            // The Management MIC element starts with its ID.
            mme(&data[consumed - e.buffer_len()..consumed]);
        }
    }
}

fn rsne_round_trip(r: &Rsne<'_>, body: &[u8]) {
    let _ = (
        r.group_data_cipher_or_default(),
        r.pairwise_or_default().iter().count(),
        r.akms_or_default().iter().count(),
        r.capabilities_or_default(),
        r.group_mgmt_cipher_or_default(),
    );
    let mut b = vec![0u8; r.buffer_len()];
    let n = r.emit(&mut b).expect("a parsed RSNE emits");
    assert_eq!(n, 2 + body.len(), "RSNE length");
    assert_eq!(b[2..n], *body, "RSNE parse -> emit round trip");
}

/// The RSN element's data (without ID and Length).
pub fn rsne(data: &[u8]) {
    if let Ok(r) = Rsne::parse(data) {
        if data.len() <= 255 {
            rsne_round_trip(&r, data);
        }
    }
    if let Ok(w) = WpaElement::parse(data) {
        let mut b = vec![0u8; w.buffer_len()];
        let _ = w.emit(&mut b);
    }
}

/// An EAPOL-Key PDU under each MIC length, with its Key Data.
pub fn eapol_key(data: &[u8]) {
    for mic_len in [0, 16, 24, 32] {
        let Ok(f) = KeyFrame::new_checked(data, mic_len) else {
            continue;
        };
        let _ = (f.key_info(), f.key_rsc_u64(), f.key_data_len());
        for item in KeyDataIter::new(f.key_data()) {
            match item {
                Ok(KeyDataItem::Kde(k)) => {
                    let _ = (k.gtk(), k.igtk());
                }
                Ok(KeyDataItem::Element(e)) => {
                    let _ = Rsne::from_element(e);
                }
                Err(_) => break,
            }
        }
        let Ok(r) = KeyFrameRepr::parse(&f) else {
            continue;
        };
        let mut b = vec![0u8; r.buffer_len()];
        if let Ok(n) = r.emit(&mut b) {
            assert_eq!(b[..n], data[..n], "EAPOL-Key parse -> emit round trip");
        }
    }
}

/// A radiotap header and every field it names.
pub fn radiotap(data: &[u8]) {
    let Ok(r) = Radiotap::new_checked(data) else {
        return;
    };
    let _ = r.fields().count();
    let _ = (r.tsft(), r.flags(), r.rate(), r.header_len());
    let Ok(repr) = RadiotapRepr::parse(&r) else {
        return;
    };
    let mut b = vec![0u8; repr.buffer_len()];
    let n = repr.emit(&mut b).expect("a parsed radiotap repr emits");
    let again = Radiotap::new_checked(&b[..n]).expect("the emitted header is valid");
    assert_eq!(
        RadiotapRepr::parse(&again),
        Ok(repr),
        "radiotap parse -> emit -> parse"
    );
}

/// DiscoSec elements, their collection in a frame and the trailer.
pub fn discosec(data: &[u8]) {
    let _ = DiscoInfo::parse(data);
    for e in Elements::new(data).flatten() {
        if let Some(Ok(d)) = DiscoElement::from_element(e) {
            let mut b = vec![0u8; 2 + e.data.len()];
            b[0] = e.id;
            b[1] = e.data.len() as u8;
            b[2..].copy_from_slice(e.data);
            disco_round_trip(&d, &b);
        }
    }
    if let Some(Ok((start, t))) = Trailer::parse(data) {
        let mut b = [0u8; Trailer::LEN];
        let n = t.emit(&mut b).expect("a parsed trailer emits");
        assert_eq!(b[..n], data[start..start + n], "trailer round trip");
    }
}

fn disco_round_trip(d: &DiscoElement<'_>, element: &[u8]) {
    if matches!(d, DiscoElement::Unknown(_)) {
        return;
    }
    let mut b = vec![0u8; d.buffer_len()];
    let n = d.emit(&mut b).expect("a parsed DiscoSec element emits");
    assert_eq!(b[..n], *element, "DiscoSec element round trip");
}
