//! Helpers of the batch tests: random MPDUs and an independent
//! single-frame CCMP reference built from the portable `Ccm` (RustCrypto
//! `aes`) and the AAD/nonce builders that the Annex M tests pin down.
#![allow(dead_code)]

use wisec_crypto::batch::Path;
use wisec_crypto::ccm::Ccm;
use wisec_crypto::ccmp;
use wisec_wire::frame_control::{data_subtype, mgmt_subtype};
use wisec_wire::{FrameControl, FrameType, Header, HeaderRepr, MacAddr};

/// SplitMix64: a small deterministic generator, so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn fill(&mut self, b: &mut [u8]) {
        for c in b.chunks_mut(8) {
            let v = self.next().to_le_bytes();
            c.copy_from_slice(&v[..c.len()]);
        }
    }
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut b = [0u8; N];
        self.fill(&mut b);
        b
    }
}

/// A random unprotected MPDU with a body of `body_len` bytes: data, QoS
/// data, with A4 and/or +HTC, or a robust management frame.
pub fn random_frame(rng: &mut Rng, body_len: usize) -> Vec<u8> {
    let kind = rng.below(8);
    let flags = rng.next() as u8;
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
    }
    fc.set_order(matches!(kind, 3 | 4 | 7));
    fc.set_retry(flags & 0x10 != 0);
    fc.set_power_management(flags & 0x20 != 0);
    fc.set_more_data(flags & 0x40 != 0);
    fc.set_more_fragments(flags & 0x80 != 0);
    let repr = HeaderRepr {
        frame_control: fc,
        duration: rng.next() as u16,
        addr1: MacAddr(rng.bytes()),
        addr2: Some(MacAddr(rng.bytes())),
        addr3: Some(MacAddr(rng.bytes())),
        sequence_control: Some(rng.next() as u16),
        addr4: fc.has_addr4().then(|| MacAddr(rng.bytes())),
        qos_control: fc.is_qos_data().then(|| rng.next() as u16),
        ht_control: fc.has_ht_control().then(|| rng.next() as u32),
    };
    let hlen = repr.buffer_len().unwrap();
    let mut f = vec![0u8; hlen + body_len];
    repr.emit(&mut f).unwrap();
    rng.fill(&mut f[hlen..]);
    f
}

/// CCMP protect, written out from 12.5.3.2 and 12.5.3.3 on top of the
/// portable CCM: MAC header with Protected set, the 8-octet CCMP header
/// (PN0, PN1, reserved, ExtIV | KeyID << 6, PN2..PN5), encrypted body,
/// MIC.
pub fn reference_protect(key: &[u8], plain: &[u8], pn: u64, key_id: u8) -> Vec<u8> {
    let mic_len = if key.len() == 16 { 8 } else { 16 };
    let ccm = Ccm::new(key, mic_len, 2).unwrap();
    let h = Header::new_checked(plain).unwrap();
    let hlen = h.header_len();
    let aad = ccmp::aad(&h).unwrap();
    let nonce = ccmp::nonce(&h, pn).unwrap();
    let p = pn.to_le_bytes();
    let mut out = plain[..hlen].to_vec();
    out[1] |= 0x40;
    out.extend_from_slice(&[p[0], p[1], 0, 0x20 | (key_id << 6), p[2], p[3], p[4], p[5]]);
    let mut body = plain[hlen..].to_vec();
    let mut tag = vec![0u8; mic_len];
    ccm.encrypt_in_place_detached(&nonce, aad.as_bytes(), &mut body, &mut tag)
        .unwrap();
    out.extend_from_slice(&body);
    out.extend_from_slice(&tag);
    out
}

/// The paths this CPU runs; prints a note for each one it lacks.
pub fn paths() -> Vec<Path> {
    Path::ALL
        .into_iter()
        .filter(|p| {
            let ok = p.is_available();
            if !ok {
                println!("note: this CPU lacks the {} path; skipped", p.name());
            }
            ok
        })
        .collect()
}
