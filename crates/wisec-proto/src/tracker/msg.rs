//! Recognising EAPOL-Key messages and the fast-transition elements a
//! passive observer needs.

use wisec_wire::eapol::KeyInfo;
use wisec_wire::MacAddr;

/// Which message of which handshake an EAPOL-Key frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyMessage {
    /// 4-way handshake message 1 (Key Ack, no MIC; 12.7.6.2).
    M1,
    /// Message 2 (MIC, SNonce, the supplicant's RSNE; 12.7.6.3).
    M2,
    /// Message 3 (Key Ack and MIC; 12.7.6.4).
    M3,
    /// Message 4 (MIC, no nonce, no Key Data; 12.7.6.5).
    M4,
    /// Group key handshake message 1 (12.7.7.2).
    Group1,
    /// Group key handshake message 2 (12.7.7.3).
    Group2,
    /// An EAPOL-Key request from the supplicant (Request bit).
    Request,
}

impl KeyMessage {
    /// Short name for reports.
    pub const fn name(self) -> &'static str {
        match self {
            KeyMessage::M1 => "message 1",
            KeyMessage::M2 => "message 2",
            KeyMessage::M3 => "message 3",
            KeyMessage::M4 => "message 4",
            KeyMessage::Group1 => "group message 1",
            KeyMessage::Group2 => "group message 2",
            KeyMessage::Request => "request",
        }
    }

    /// Classifies a frame by its Key Information, Key Nonce and Key Data
    /// length (IEEE Std 802.11-2020, 12.7.6 and 12.7.7).
    ///
    /// Message 2 and message 4 differ in neither Key Ack nor MIC, and
    /// Secure is set in both during a rekey (and clear in both with WPA):
    /// message 4 is the one without a nonce and without Key Data. (The
    /// endpoint state machines may use [`crate::rsn::message::classify`],
    /// which reads Secure as message 4: an endpoint knows which message it
    /// waits for, an observer of a rekey does not.)
    pub fn classify(ki: KeyInfo, nonce: &[u8; 32], key_data_len: usize) -> KeyMessage {
        if ki.request() {
            return KeyMessage::Request;
        }
        match (ki.pairwise(), ki.key_ack(), ki.key_mic()) {
            (true, true, false) => KeyMessage::M1,
            (true, true, true) => KeyMessage::M3,
            (true, false, _) => {
                if key_data_len == 0 && nonce.iter().all(|&b| b == 0) {
                    KeyMessage::M4
                } else {
                    KeyMessage::M2
                }
            }
            (false, true, _) => KeyMessage::Group1,
            (false, false, _) => KeyMessage::Group2,
        }
    }

    /// True for the messages the authenticator sends.
    pub const fn from_authenticator(self) -> bool {
        matches!(self, KeyMessage::M1 | KeyMessage::M3 | KeyMessage::Group1)
    }
}

/// The fields of a Fast BSS Transition element (IEEE Std 802.11-2020,
/// 9.4.2.47, Figure 9-463) a passive observer uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fte<'a> {
    /// MIC Control (element count in the second octet).
    pub mic_control: [u8; 2],
    /// The MIC.
    pub mic: &'a [u8],
    /// ANonce.
    pub anonce: [u8; 32],
    /// SNonce.
    pub snonce: [u8; 32],
    /// R1KH-ID subelement (ID 1).
    pub r1kh_id: Option<MacAddr>,
    /// R0KH-ID subelement (ID 3), 1 to 48 octets.
    pub r0kh_id: Option<&'a [u8]>,
    /// GTK subelement (ID 2): Key Info (2), Key Length (1), RSC (8),
    /// wrapped key.
    pub gtk: Option<&'a [u8]>,
    /// IGTK subelement (ID 4): Key ID (2), IPN (6), Key Length (1),
    /// wrapped key.
    pub igtk: Option<&'a [u8]>,
}

impl<'a> Fte<'a> {
    /// Parses the data of an FTE whose MIC has `mic_len` octets (16, or
    /// 24 for the SHA-384 AKMs).
    pub fn parse(data: &'a [u8], mic_len: usize) -> Option<Fte<'a>> {
        let mic_control = [*data.first()?, *data.get(1)?];
        let mic = data.get(2..2 + mic_len)?;
        let at = 2 + mic_len;
        let anonce: [u8; 32] = data.get(at..at + 32)?.try_into().ok()?;
        let snonce: [u8; 32] = data.get(at + 32..at + 64)?.try_into().ok()?;
        let mut rest = data.get(at + 64..)?;
        let mut f = Fte {
            mic_control,
            mic,
            anonce,
            snonce,
            r1kh_id: None,
            r0kh_id: None,
            gtk: None,
            igtk: None,
        };
        while let [id, len, tail @ ..] = rest {
            let n = usize::from(*len);
            let body = tail.get(..n)?;
            match id {
                1 => f.r1kh_id = Some(MacAddr(body.try_into().ok()?)),
                2 => f.gtk = Some(body),
                3 if (1..=48).contains(&n) => f.r0kh_id = Some(body),
                4 => f.igtk = Some(body),
                _ => {}
            }
            rest = tail.get(n..)?;
        }
        if !rest.is_empty() {
            return None;
        }
        Some(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_follows_key_information() {
        let z = [0u8; 32];
        let n = [1u8; 32];
        let p = KeyInfo(0).with_pairwise(true);
        assert_eq!(
            KeyMessage::classify(p.with_key_ack(true), &n, 0),
            KeyMessage::M1
        );
        assert_eq!(
            KeyMessage::classify(p.with_key_ack(true).with_key_mic(true), &n, 56),
            KeyMessage::M3
        );
        assert_eq!(
            KeyMessage::classify(p.with_key_mic(true), &n, 22),
            KeyMessage::M2
        );
        // A rekey message 2 has Secure set, like message 4.
        assert_eq!(
            KeyMessage::classify(p.with_key_mic(true).with_secure(true), &n, 22),
            KeyMessage::M2
        );
        assert_eq!(
            KeyMessage::classify(p.with_key_mic(true).with_secure(true), &z, 0),
            KeyMessage::M4
        );
        // WPA message 4: Secure clear.
        assert_eq!(
            KeyMessage::classify(p.with_key_mic(true), &z, 0),
            KeyMessage::M4
        );
        let g = KeyInfo(0).with_key_mic(true).with_secure(true);
        assert_eq!(
            KeyMessage::classify(g.with_key_ack(true), &z, 32),
            KeyMessage::Group1
        );
        assert_eq!(KeyMessage::classify(g, &z, 0), KeyMessage::Group2);
        assert_eq!(
            KeyMessage::classify(g.with_request(true), &z, 0),
            KeyMessage::Request
        );
    }

    #[test]
    fn fte_parse_and_truncation() {
        use alloc::vec::Vec;
        let mut v: Vec<u8> = Vec::new();
        v.extend_from_slice(&[0u8; 2 + 16 + 64]);
        let fixed = v.len();
        v[18] = 0xaa; // ANonce first octet
        v[50] = 0xbb; // SNonce first octet
        v.extend_from_slice(&[1, 6, 1, 2, 3, 4, 5, 6, 3, 4, b'r', b'0', b'k', b'h']);
        let f = Fte::parse(&v, 16).unwrap();
        assert_eq!(f.anonce[0], 0xaa);
        assert_eq!(f.snonce[0], 0xbb);
        assert_eq!(f.r1kh_id, Some(MacAddr([1, 2, 3, 4, 5, 6])));
        assert_eq!(f.r0kh_id, Some(&b"r0kh"[..]));
        for cut in 0..v.len() {
            if cut == fixed || cut == fixed + 8 {
                continue; // ends between subelements: valid
            }
            assert!(Fte::parse(&v[..cut], 16).is_none(), "{cut}");
        }
    }
}
