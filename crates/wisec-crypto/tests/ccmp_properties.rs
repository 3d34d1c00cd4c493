//! Property tests for CCMP-128/256 and GCMP-128/256: random frames of
//! every protectable kind round-trip; every single-bit flip of a protected
//! frame outside the fields the AAD masks is rejected with the buffer left
//! as given; no input makes `unprotect` panic.

use proptest::prelude::*;
use wisec_crypto::ccmp::{Ccmp128, Ccmp256};
use wisec_crypto::gcmp::{Gcmp128, Gcmp256};
use wisec_crypto::FrameProtector;
use wisec_wire::frame_control::{data_subtype, mgmt_subtype};
use wisec_wire::{FrameControl, FrameType, Header, HeaderRepr, MacAddr};

fn suite(i: u8, key: &[u8; 32]) -> Box<dyn FrameProtector> {
    match i % 4 {
        0 => Box::new(Ccmp128::new(&key[..16]).unwrap()),
        1 => Box::new(Ccmp256::new(key).unwrap()),
        2 => Box::new(Gcmp128::new(&key[..16]).unwrap()),
        _ => Box::new(Gcmp256::new(key).unwrap()),
    }
}

#[derive(Debug, Clone)]
struct Frame {
    bytes: Vec<u8>,
}

/// Frame kinds: 0 data, 1 QoS data, 2 QoS data with A4, 3 QoS data +HTC,
/// 4 QoS data with A4 and +HTC, 5 data with A4, 6 management, 7
/// management +HTC.
fn frame(max_body: usize) -> impl Strategy<Value = Frame> {
    (
        0u8..8,
        any::<[u8; 6]>(),
        any::<[u8; 6]>(),
        any::<[u8; 6]>(),
        any::<[u8; 6]>(),
        any::<u16>(),
        any::<u16>(),
        any::<u16>(),
        any::<u32>(),
        any::<u8>(),
        prop::collection::vec(any::<u8>(), 0..=max_body),
    )
        .prop_map(|(kind, a1, a2, a3, a4, dur, sc, qc, htc, flags, body)| {
            let mut fc = match kind {
                0 | 5 => FrameControl::new(FrameType::Data, data_subtype::DATA),
                1..=4 => FrameControl::new(FrameType::Data, data_subtype::QOS_DATA),
                _ => FrameControl::new(
                    FrameType::Management,
                    [
                        mgmt_subtype::ACTION,
                        mgmt_subtype::DEAUTH,
                        mgmt_subtype::DISASSOC,
                    ][usize::from(flags % 3)],
                ),
            };
            if matches!(kind, 2 | 4 | 5) {
                fc.set_to_ds(true);
                fc.set_from_ds(true);
            } else if fc.is_data() {
                fc.set_to_ds(flags & 1 != 0);
                fc.set_from_ds(flags & 1 == 0 && flags & 2 != 0);
            }
            fc.set_order(matches!(kind, 3 | 4 | 7));
            fc.set_retry(flags & 0x10 != 0);
            fc.set_power_management(flags & 0x20 != 0);
            fc.set_more_data(flags & 0x40 != 0);
            fc.set_more_fragments(flags & 0x80 != 0);
            let repr = HeaderRepr {
                frame_control: fc,
                duration: dur,
                addr1: MacAddr(a1),
                addr2: Some(MacAddr(a2)),
                addr3: Some(MacAddr(a3)),
                sequence_control: Some(sc),
                addr4: fc.has_addr4().then_some(MacAddr(a4)),
                qos_control: fc.is_qos_data().then_some(qc),
                ht_control: fc.has_ht_control().then_some(htc),
            };
            let mut bytes = vec![0u8; repr.buffer_len().unwrap()];
            repr.emit(&mut bytes).unwrap();
            bytes.extend_from_slice(&body);
            Frame { bytes }
        })
}

/// True for a bit the receiver may accept flipped: fields outside the AAD
/// or masked in it (IEEE Std 802.11-2020, 12.5.3.3.3), and the parts of
/// the security header that are not authenticated. Every other flip must
/// be rejected.
fn may_pass(frame: &[u8], byte: usize, bit: u8) -> bool {
    let h = Header::new_checked(frame).unwrap();
    let fc = h.frame_control();
    let hlen = h.header_len();
    let m = 1u8 << bit;
    let qc = fc
        .is_qos_data()
        .then(|| if fc.has_addr4() { 30 } else { 24 });
    match byte {
        // Duration/ID.
        2 | 3 => true,
        // Data subtype bits 4..=6 (bit 6 turns the frame into a Null
        // subtype: refused, which is fine too).
        0 => fc.is_data() && m & 0x70 != 0,
        // Retry, Power Management, More Data; +HTC/Order in QoS data.
        1 => m & 0x38 != 0 || (fc.is_qos_data() && m == 0x80),
        // Sequence number.
        22 => m & 0xf0 != 0,
        23 => true,
        b if Some(b) == qc => m & 0xf0 != 0,
        b if qc.map(|q| q + 1) == Some(b) => true,
        b if fc.has_ht_control() && (hlen - 4..hlen).contains(&b) => true,
        // Reserved octet; Key ID octet except ExtIV.
        b if b == hlen + 2 => true,
        b if b == hlen + 3 => m != 0x20,
        _ => false,
    }
}

/// Bits that must verify flipped: masked fields that do not change the
/// frame's layout or meaning.
fn must_pass(frame: &[u8], byte: usize, bit: u8) -> bool {
    let hlen = Header::new_checked(frame).unwrap().header_len();
    let m = 1u8 << bit;
    matches!(byte, 2 | 3 | 23) || (byte == 1 && m & 0x38 != 0) || byte == hlen + 2
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn round_trip(
        f in frame(400),
        key in any::<[u8; 32]>(),
        s in 0u8..4,
        pn in 0u64..(1 << 48),
        key_id in 0u8..4,
    ) {
        let s = suite(s, &key);
        let mut buf = f.bytes.clone();
        buf.resize(f.bytes.len() + s.overhead().total(), 0);
        let n = s.protect_in_place(&mut buf, f.bytes.len(), pn, key_id).unwrap();
        prop_assert_eq!(n, buf.len());
        let h = Header::new_checked(&buf[..]).unwrap();
        prop_assert!(h.frame_control().protected());
        let hlen = h.header_len();
        // The body is encrypted (for bodies long enough to tell).
        if f.bytes.len() - hlen >= 8 {
            prop_assert_ne!(&buf[hlen + 8..hlen + 16], &f.bytes[hlen..hlen + 8]);
        }
        let u = s.unprotect_in_place(&mut buf).unwrap();
        prop_assert_eq!(u.pn(), pn);
        prop_assert_eq!(u.key_id(), key_id);
        prop_assert_eq!(&buf[..u.len()], &f.bytes[..]);
    }

    #[test]
    fn every_covered_bit_flip_is_rejected(
        f in frame(6),
        key in any::<[u8; 32]>(),
        s in 0u8..4,
        pn in 0u64..(1 << 48),
    ) {
        let s = suite(s, &key);
        let mut p = vec![0u8; f.bytes.len() + s.overhead().total()];
        let n = s.protect(&f.bytes, pn, 1, &mut p).unwrap();
        p.truncate(n);
        for byte in 0..n {
            for bit in 0..8u8 {
                let mut t = p.clone();
                t[byte] ^= 1 << bit;
                let given = t.clone();
                let r = s.unprotect_in_place(&mut t);
                if r.is_err() {
                    prop_assert_eq!(&t, &given, "buffer not restored");
                }
                if !may_pass(&p, byte, bit) {
                    prop_assert!(r.is_err(), "byte {} bit {} accepted", byte, bit);
                }
                if must_pass(&p, byte, bit) {
                    prop_assert!(r.is_ok(), "masked byte {} bit {} rejected", byte, bit);
                }
            }
        }
    }
}

/// A fast xorshift: the fuzz loop needs volume, not quality.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn no_panic_on_random_or_truncated_input() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let suites: Vec<Box<dyn FrameProtector>> = (0..4).map(|i| suite(i, &[0x42; 32])).collect();
    let mut buf = [0u8; 96];
    for round in 0..6000u32 {
        for b in buf.iter_mut() {
            *b = rng.next() as u8;
        }
        let len = (rng.next() % 97) as usize;
        // Mostly frames that pass the first checks: data or management,
        // protocol version 0, Protected set, ExtIV set where it would be.
        if round % 4 != 0 && len >= 2 {
            buf[0] &= 0xfc;
            buf[0] = (buf[0] & !0x0c) | if rng.next() & 1 == 0 { 0x08 } else { 0x00 };
            buf[1] |= 0x40;
            for off in [27usize, 29, 33, 35, 39] {
                if off < len {
                    buf[off] |= 0x20;
                }
            }
        }
        for s in &suites {
            let mut b = buf[..len].to_vec();
            if s.unprotect_in_place(&mut b).is_err() {
                assert_eq!(&b[..], &buf[..len]);
            }
            let mut out = [0u8; 96];
            let _ = s.unprotect(&buf[..len], &mut out[..(rng.next() % 97) as usize]);
            let mut p = buf;
            let plen = (rng.next() % 97) as usize;
            let _ = s.protect_in_place(&mut p, plen, rng.next() >> 15, (rng.next() % 5) as u8);
        }
    }
}
