//! The messages of the CCM-UDP exchange (seed 000, section 5.4, Figure 12),
//! as UDP payloads.
//!
//! Every message is a 16-octet header followed by a body; a protected
//! message's body is AES-CCM ciphertext (RFC 3610) followed by an 8-octet
//! tag. README.md ("The CCM-UDP wire format") is the normative text; this
//! module implements it for both ends:
//!
//! ```text
//! octet  0      version = 1
//! octet  1      kind (Kind)
//! octet  2      flags: bit 0 = protected; the other bits are 0
//! octet  3      sender: 0 = initiator, 1 = responder
//! octets 4..8   session, big-endian (chosen by the initiator)
//! octets 8..16  PN, big-endian: 1, 2, 3, ... per sender and key when
//!               protected; 0 in a plain message
//! ```
//!
//! CCM parameters: AES-128, M = 8 (tag octets), L = 2 (so 13-octet
//! nonces), as CCMP-128 uses (IEEE Std 802.11-2020, 12.5.3.3.1). The nonce
//! is header octets 3..16 (sender ‖ session ‖ PN); the AAD is the whole
//! 16-octet header. Both directions share one key: the sender octet keeps
//! their nonces apart, and each sender's PN never repeats under a key.
//!
//! Replay rule (as CCMP's, 12.5.3.4.4): a receiver keeps the highest PN it
//! accepted from the other sender; a protected message is accepted only
//! when its tag verifies and its PN is greater, and only then does the
//! counter advance.

use wisec_crypto::ccm::Ccm;

/// Protocol version, octet 0 of every message.
pub const VERSION: u8 = 1;
/// Header length.
pub const HEADER_LEN: usize = 16;
/// CCM tag length M.
pub const TAG_LEN: usize = 8;
/// CCM length-field size L.
pub const CCM_L: usize = 2;
/// CCM nonce length, 15 − L.
pub const NONCE_LEN: usize = 15 - CCM_L;
/// AES-128 key length.
pub const KEY_LEN: usize = 16;
/// The most data octets (n) a message carries.
pub const MAX_DATA: usize = 1400;
/// The most octets of fixed fields a body has before its data.
pub const MAX_FIELDS: usize = 8;
/// The longest valid UDP payload: it fits one 1500-octet IPv4 packet.
pub const MAX_PAYLOAD: usize = HEADER_LEN + MAX_FIELDS + MAX_DATA + TAG_LEN;
/// The most datagrams (m) a STREAM or SINK asks for.
pub const MAX_COUNT: u32 = 1_000_000;
/// The responder's UDP port unless configured otherwise.
pub const DEFAULT_PORT: u16 = 7000;

/// Octet 1 of the header: what a message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Kind {
    /// Initiator → responder: answer with an [`Kind::EchoReply`] carrying
    /// the same data. Body: data.
    Echo = 1,
    /// Responder → initiator: the answer to an [`Kind::Echo`]. Body: data.
    EchoReply = 2,
    /// Either direction: "send me m [`Kind::Data`] messages of n octets"
    /// (Figure 12's request). Body: m (u32) ‖ data (n octets).
    Stream = 3,
    /// One datagram of a stream. Body: index (u32, from 0) ‖ m (u32) ‖
    /// data, where data octet k is (index + k) mod 256.
    Data = 4,
    /// Initiator → responder: "be Figure 12's client": the responder
    /// answers with a plain [`Kind::Stream`] request for m datagrams of n
    /// octets, and after the m-th plain datagram with a protected one.
    /// Body: m (u32) ‖ data (n octets).
    Sink = 5,
    /// Initiator → responder: answer with a [`Kind::Report`]. Body: empty.
    ReportRequest = 6,
    /// Responder → initiator: counters and timings as ASCII lines
    /// `name value\n`. Body: the text.
    Report = 7,
}

impl Kind {
    /// The kind with code `b`.
    pub const fn from_u8(b: u8) -> Option<Kind> {
        Some(match b {
            1 => Kind::Echo,
            2 => Kind::EchoReply,
            3 => Kind::Stream,
            4 => Kind::Data,
            5 => Kind::Sink,
            6 => Kind::ReportRequest,
            7 => Kind::Report,
            _ => return None,
        })
    }

    /// Octets of fixed fields at the start of the body.
    pub const fn fields_len(self) -> usize {
        match self {
            Kind::Echo | Kind::EchoReply | Kind::ReportRequest | Kind::Report => 0,
            Kind::Stream | Kind::Sink => 4,
            Kind::Data => 8,
        }
    }

    /// True for the kinds only the initiator sends.
    pub const fn from_initiator_only(self) -> bool {
        matches!(self, Kind::Echo | Kind::Sink | Kind::ReportRequest)
    }

    /// True for the kinds only the responder sends.
    pub const fn from_responder_only(self) -> bool {
        matches!(self, Kind::EchoReply | Kind::Report)
    }
}

/// Octet 3 of the header: who sent a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Sender {
    /// The end that sends to the responder's port first (the Linux peer).
    Initiator = 0,
    /// The end that listens on a port and only answers (the bare machine).
    Responder = 1,
}

impl Sender {
    /// The other end.
    pub const fn other(self) -> Sender {
        match self {
            Sender::Initiator => Sender::Responder,
            Sender::Responder => Sender::Initiator,
        }
    }
}

/// Why a received message was not accepted. Every rejection is silent on
/// the wire (no answer) and counted by the receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reject {
    /// Shorter than the header, the tag, or its kind's fixed fields.
    Truncated,
    /// Longer than [`MAX_PAYLOAD`], data longer than [`MAX_DATA`], or an
    /// IPv4 fragment (the stack does not reassemble).
    Oversized,
    /// Unknown version or kind, reserved flag bits set, the wrong sender
    /// for its kind or direction, or a field out of range.
    Malformed,
    /// Protected, and the tag did not verify: tampered, or made with
    /// another key or another nonce.
    Integrity,
    /// Protected, the tag verified, but the PN was not greater than the
    /// highest accepted one.
    Replay,
    /// Protected, but this end has no key.
    NoKey,
}

impl Reject {
    /// The counter name a report uses for this rejection.
    pub const fn name(self) -> &'static str {
        match self {
            Reject::Truncated => "rejected_truncated",
            Reject::Oversized => "rejected_oversized",
            Reject::Malformed => "rejected_malformed",
            Reject::Integrity => "rejected_integrity",
            Reject::Replay => "rejected_replay",
            Reject::NoKey => "rejected_no_key",
        }
    }

    /// Every rejection, in report order.
    pub const ALL: [Reject; 6] = [
        Reject::Truncated,
        Reject::Oversized,
        Reject::Malformed,
        Reject::Integrity,
        Reject::Replay,
        Reject::NoKey,
    ];
}

/// A message header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// What the message is.
    pub kind: Kind,
    /// The body is CCM ciphertext followed by the tag.
    pub protected: bool,
    /// Who sent it.
    pub sender: Sender,
    /// The initiator's session number, echoed by the responder.
    pub session: u32,
    /// Packet number (0 in plain messages).
    pub pn: u64,
}

impl Header {
    /// The 16 header octets.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0] = VERSION;
        h[1] = self.kind as u8;
        h[2] = u8::from(self.protected);
        h[3] = self.sender as u8;
        h[4..8].copy_from_slice(&self.session.to_be_bytes());
        h[8..16].copy_from_slice(&self.pn.to_be_bytes());
        h
    }

    /// Parses the header of `payload` and checks the lengths: at least the
    /// header (and the tag, when protected) and the kind's fixed fields, at
    /// most [`MAX_PAYLOAD`].
    pub fn parse(payload: &[u8]) -> Result<Header, Reject> {
        if payload.len() > MAX_PAYLOAD {
            return Err(Reject::Oversized);
        }
        let h = payload.get(..HEADER_LEN).ok_or(Reject::Truncated)?;
        if h[0] != VERSION || h[2] & !1 != 0 {
            return Err(Reject::Malformed);
        }
        let kind = Kind::from_u8(h[1]).ok_or(Reject::Malformed)?;
        let sender = match h[3] {
            0 => Sender::Initiator,
            1 => Sender::Responder,
            _ => return Err(Reject::Malformed),
        };
        if (sender == Sender::Responder && kind.from_initiator_only())
            || (sender == Sender::Initiator && kind.from_responder_only())
        {
            return Err(Reject::Malformed);
        }
        let protected = h[2] & 1 == 1;
        let overhead = HEADER_LEN + if protected { TAG_LEN } else { 0 };
        if payload.len() < overhead + kind.fields_len() {
            return Err(Reject::Truncated);
        }
        let data = payload.len() - overhead - kind.fields_len();
        if kind != Kind::Report && data > MAX_DATA {
            return Err(Reject::Oversized);
        }
        let mut session = [0u8; 4];
        session.copy_from_slice(&h[4..8]);
        let mut pn = [0u8; 8];
        pn.copy_from_slice(&h[8..16]);
        Ok(Header {
            kind,
            protected,
            sender,
            session: u32::from_be_bytes(session),
            pn: u64::from_be_bytes(pn),
        })
    }
}

/// The CCM nonce of a message: header octets 3..16, sender ‖ session ‖ PN.
pub fn nonce(header: &[u8; HEADER_LEN]) -> [u8; NONCE_LEN] {
    let mut n = [0u8; NONCE_LEN];
    n.copy_from_slice(&header[3..]);
    n
}

/// Octet `k` of the data of DATA message `index`.
pub const fn pattern_octet(index: u32, k: usize) -> u8 {
    (index as usize).wrapping_add(k) as u8
}

/// Fills `data` with the pattern of DATA message `index`.
pub fn fill_pattern(index: u32, data: &mut [u8]) {
    for (k, d) in data.iter_mut().enumerate() {
        *d = pattern_octet(index, k);
    }
}

/// True when `data` is the pattern of DATA message `index`.
pub fn is_pattern(index: u32, data: &[u8]) -> bool {
    data.iter()
        .enumerate()
        .all(|(k, d)| *d == pattern_octet(index, k))
}

/// A received message that was accepted: its header and where its
/// (plaintext) body lies in the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message {
    /// The header.
    pub header: Header,
    /// Start of the body in the payload.
    pub body_start: usize,
    /// End of the body (before the tag, when protected).
    pub body_end: usize,
}

impl Message {
    /// The body of this message in `payload` (the buffer it was read from).
    pub fn body<'a>(&self, payload: &'a [u8]) -> &'a [u8] {
        payload.get(self.body_start..self.body_end).unwrap_or(&[])
    }

    /// The u32 field at `offset` of the body.
    pub fn field(&self, payload: &[u8], offset: usize) -> Option<u32> {
        let b = self.body(payload).get(offset..offset + 4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The data after the kind's fixed fields.
    pub fn data<'a>(&self, payload: &'a [u8]) -> &'a [u8] {
        self.body(payload)
            .get(self.header.kind.fields_len()..)
            .unwrap_or(&[])
    }
}

/// One end of the exchange: its key, its own PN counter and the replay
/// counter of the other end's messages.
pub struct Channel {
    ccm: Option<Ccm>,
    me: Sender,
    next_pn: u64,
    highest_peer: u64,
}

impl core::fmt::Debug for Channel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Never print key material.
        f.debug_struct("Channel")
            .field("keyed", &self.ccm.is_some())
            .field("me", &self.me)
            .field("next_pn", &self.next_pn)
            .field("highest_peer", &self.highest_peer)
            .finish()
    }
}

impl Channel {
    /// The end `me`, with a 16-octet AES key or none (then only plain
    /// messages can be sent and received). The CCM key schedule wipes
    /// itself when the channel is dropped.
    pub fn new(key: Option<&[u8; KEY_LEN]>, me: Sender) -> Channel {
        Channel {
            ccm: key.and_then(|k| Ccm::new(k, TAG_LEN, CCM_L).ok()),
            me,
            next_pn: 1,
            highest_peer: 0,
        }
    }

    /// True when this end has a key.
    pub const fn keyed(&self) -> bool {
        self.ccm.is_some()
    }

    /// Which end this is.
    pub const fn me(&self) -> Sender {
        self.me
    }

    /// The PN the next protected message will carry.
    pub const fn next_pn(&self) -> u64 {
        self.next_pn
    }

    /// The highest PN accepted from the other end (0: none yet).
    pub const fn highest_peer(&self) -> u64 {
        self.highest_peer
    }

    /// Completes a message in `buf` whose body (fields and data) the caller
    /// wrote at `buf[HEADER_LEN..HEADER_LEN + body_len]`: writes the header
    /// and, when `protected`, takes the next PN, encrypts the body in place
    /// and appends the tag. Returns the payload length, or `None` when
    /// `buf` is too small, the body too long, or `protected` without a key.
    pub fn finish(
        &mut self,
        buf: &mut [u8],
        kind: Kind,
        protected: bool,
        session: u32,
        body_len: usize,
    ) -> Option<usize> {
        let total = HEADER_LEN + body_len + if protected { TAG_LEN } else { 0 };
        if total > buf.len() || (kind != Kind::Report && total > MAX_PAYLOAD) {
            return None;
        }
        let pn = if protected {
            self.ccm.as_ref()?;
            let pn = self.next_pn;
            self.next_pn = pn.checked_add(1)?;
            pn
        } else {
            0
        };
        let header = Header {
            kind,
            protected,
            sender: self.me,
            session,
            pn,
        }
        .to_bytes();
        buf[..HEADER_LEN].copy_from_slice(&header);
        if let (true, Some(ccm)) = (protected, self.ccm.as_ref()) {
            let (body, tag) = buf[HEADER_LEN..total].split_at_mut(body_len);
            ccm.encrypt_in_place_detached(&nonce(&header), &header, body, tag)
                .ok()?;
        }
        Some(total)
    }

    /// Reads a received payload in place: checks the header and lengths,
    /// verifies and decrypts a protected body (RFC 3610, 2.5: the tag is
    /// compared in constant time; on failure the body is wiped), and
    /// applies the replay rule after the tag verified.
    pub fn read(&mut self, payload: &mut [u8]) -> Result<Message, Reject> {
        let header = Header::parse(payload)?;
        if header.sender != self.me.other() {
            return Err(Reject::Malformed);
        }
        let body_start = HEADER_LEN;
        if !header.protected {
            return Ok(Message {
                header,
                body_start,
                body_end: payload.len(),
            });
        }
        let ccm = self.ccm.as_ref().ok_or(Reject::NoKey)?;
        let body_end = payload.len() - TAG_LEN;
        let mut h = [0u8; HEADER_LEN];
        h.copy_from_slice(&payload[..HEADER_LEN]);
        let (body, tag) = payload[body_start..].split_at_mut(body_end - body_start);
        ccm.decrypt_in_place_detached(&nonce(&h), &h, body, tag)
            .map_err(|_| Reject::Integrity)?;
        // IEEE Std 802.11-2020, 12.5.3.4.4: the counter moves only for a
        // frame whose MIC verified, and only forwards.
        if header.pn <= self.highest_peer {
            return Err(Reject::Replay);
        }
        self.highest_peer = header.pn;
        Ok(Message {
            header,
            body_start,
            body_end,
        })
    }
}

/// Parses a hex string of exactly `N` octets (either case, no separators).
pub fn parse_hex<const N: usize>(s: &str) -> Option<[u8; N]> {
    let b = s.as_bytes();
    if b.len() != 2 * N {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    };
    let mut out = [0u8; N];
    for (o, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
        *o = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{vec, vec::Vec};

    const KEY: [u8; 16] = [7; 16];

    fn pair() -> (Channel, Channel) {
        (
            Channel::new(Some(&KEY), Sender::Initiator),
            Channel::new(Some(&KEY), Sender::Responder),
        )
    }

    fn message(ch: &mut Channel, kind: Kind, protected: bool, body: &[u8]) -> Vec<u8> {
        let mut buf = vec![0u8; 2048];
        buf[HEADER_LEN..HEADER_LEN + body.len()].copy_from_slice(body);
        let n = ch.finish(&mut buf, kind, protected, 9, body.len()).unwrap();
        buf.truncate(n);
        buf
    }

    #[test]
    fn a_protected_echo_is_rfc3610_ccm_over_the_documented_nonce_and_aad() {
        let (mut i, mut r) = pair();
        let m = message(&mut i, Kind::Echo, true, b"hello bare machine");
        assert_eq!(m.len(), 16 + 18 + 8);
        assert_eq!(&m[..4], &[1, 1, 1, 0]);
        assert_eq!(&m[4..8], &9u32.to_be_bytes());
        assert_eq!(&m[8..16], &1u64.to_be_bytes());
        // An independent CCM computation of the same message.
        let ccm = Ccm::new(&KEY, 8, 2).unwrap();
        let mut body = b"hello bare machine".to_vec();
        let mut tag = [0u8; 8];
        let mut nonce = vec![0u8];
        nonce.extend_from_slice(&9u32.to_be_bytes());
        nonce.extend_from_slice(&1u64.to_be_bytes());
        ccm.encrypt_in_place_detached(&nonce, &m[..16], &mut body, &mut tag)
            .unwrap();
        assert_eq!(&m[16..34], &body[..]);
        assert_eq!(&m[34..], &tag);
        let mut rx = m.clone();
        let msg = r.read(&mut rx).unwrap();
        assert_eq!(msg.data(&rx), b"hello bare machine");
        assert_eq!(r.highest_peer(), 1);
    }

    #[test]
    fn tampering_anywhere_and_replays_are_rejected_without_moving_the_counter() {
        let (mut i, mut r) = pair();
        let m = message(&mut i, Kind::Echo, true, &[5u8; 40]);
        for k in 0..m.len() {
            let mut bad = m.clone();
            bad[k] ^= 0x10;
            let e = r.read(&mut bad).unwrap_err();
            // Octets 0..4 are checked before the tag (version, kind,
            // flags, sender), the rest by it.
            assert!(
                matches!(e, Reject::Integrity | Reject::Malformed | Reject::Truncated),
                "octet {k}: {e:?}"
            );
            assert_eq!(r.highest_peer(), 0, "octet {k}");
        }
        let mut ok = m.clone();
        r.read(&mut ok).unwrap();
        let mut again = m.clone();
        assert_eq!(r.read(&mut again), Err(Reject::Replay));
        // A later message still passes.
        let mut m2 = message(&mut i, Kind::Echo, true, &[6u8; 3]);
        assert!(r.read(&mut m2).is_ok());
        assert_eq!(r.highest_peer(), 2);
    }

    #[test]
    fn wrong_key_wrong_nonce_truncated_and_oversized_are_told_apart() {
        let (mut i, _) = pair();
        let mut r = Channel::new(Some(&[8u8; 16]), Sender::Responder);
        let mut m = message(&mut i, Kind::Echo, true, &[1u8; 20]);
        assert_eq!(r.read(&mut m.clone()), Err(Reject::Integrity));
        // A message from the responder's own direction is malformed.
        let mut own = Channel::new(Some(&KEY), Sender::Responder);
        let mut reflected = message(&mut own, Kind::Stream, true, &[0u8; 4]);
        let mut r2 = Channel::new(Some(&KEY), Sender::Responder);
        assert_eq!(r2.read(&mut reflected), Err(Reject::Malformed));
        assert_eq!(r2.read(&mut m[..10].to_vec()), Err(Reject::Truncated));
        assert_eq!(r2.read(&mut m[..20].to_vec()), Err(Reject::Truncated));
        let mut big = vec![0u8; MAX_PAYLOAD + 1];
        big[..16].copy_from_slice(&m[..16]);
        assert_eq!(r2.read(&mut big), Err(Reject::Oversized));
        // No key: plain messages pass, protected ones are NoKey.
        let mut nokey = Channel::new(None, Sender::Responder);
        assert_eq!(nokey.read(&mut m), Err(Reject::NoKey));
        let mut p = message(&mut i, Kind::Echo, false, b"x");
        assert_eq!(nokey.read(&mut p).unwrap().data(&p), b"x");
        // A STREAM without its count field is truncated.
        let mut s = message(&mut i, Kind::Stream, false, &[0u8; 3]);
        assert_eq!(nokey.read(&mut s), Err(Reject::Truncated));
    }

    #[test]
    fn parse_hex_takes_exact_lengths() {
        assert_eq!(parse_hex::<2>("0aFf"), Some([0x0a, 0xff]));
        assert_eq!(parse_hex::<2>("0aF"), None);
        assert_eq!(parse_hex::<2>("0aFg"), None);
    }
}
