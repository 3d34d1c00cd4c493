//! The server side of Cisco's LEAP (EAP type 17), as Cisco deployed it and
//! as wpa_supplicant's peer (`eap_leap.c`) and FreeRADIUS 2's
//! `rlm_eap_leap` implement it. LEAP is broken — an eavesdropper who saw
//! one exchange can test passwords offline against the peer's MS-CHAP
//! response — and is here to measure seed 001's Security Level 6, never
//! to protect anything.
//!
//! The exchange, after EAP-Response/Identity:
//!
//! 1. server → peer: EAP-Request/LEAP with an 8-octet peer challenge;
//! 2. peer → server: EAP-Response/LEAP with the 24-octet response
//!    ChallengeResponse(peer challenge, NtPasswordHash(password));
//! 3. server → peer: EAP-Success (with the Response's Identifier), in the
//!    middle of the method;
//! 4. peer → server: EAP-*Request*/LEAP with an 8-octet AP challenge;
//! 5. server → peer: EAP-Response/LEAP with ChallengeResponse(AP
//!    challenge, HashNtPasswordHash), which proves the server knows the
//!    password hash too; the RADIUS Access-Accept carries it.
//!
//! The session key, 16 octets: MD5(HashNtPasswordHash | AP challenge |
//! AP response | peer challenge | peer response).
//!
//! The LEAP Type-Data is Version (1), Unused (0), Count (the challenge or
//! response length), the challenge or response, then the user name.

use crate::rsn::Random;
use wisec_crypto::mschap::{
    danger_challenge_response, danger_hash_nt_password_hash,
    danger_leap_session_key as session_key, CHALLENGE_LEN, HASH_LEN, RESPONSE_LEN,
};
use wisec_wire::eap::{self, Code, EapPacket, EapType};
use zeroize::Zeroize;

/// LEAP's version number.
pub const VERSION: u8 = 1;
/// Length of a LEAP session key.
pub const KEY_LEN: usize = 16;
/// Longest user name kept.
pub const NAME_MAX: usize = 128;

/// Why the server ends a LEAP exchange with a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LeapError {
    /// A packet that is not LEAP, or a LEAP packet of the wrong shape or
    /// version (silently discarded by a real server).
    Malformed,
    /// A packet that does not fit where the exchange is.
    UnexpectedPacket,
    /// The peer's response does not match the password: the wrong
    /// password.
    WrongResponse,
}

impl core::fmt::Display for LeapError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            LeapError::Malformed => "malformed LEAP packet",
            LeapError::UnexpectedPacket => "LEAP packet out of sequence",
            LeapError::WrongResponse => "the peer's LEAP response does not match the password",
        })
    }
}

impl core::error::Error for LeapError {}

/// What the server sends next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// An EAP packet inside an Access-Challenge: the peer challenge, or
    /// the EAP-Success after a right peer response. Its length in the
    /// output buffer.
    Challenge(usize),
    /// The EAP-Response with the AP response, inside an Access-Accept with
    /// the session key ([`LeapServer::session_key`]). Its length.
    Accept(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    WaitPeerResponse,
    WaitApChallenge,
    Done,
}

/// A LEAP server for one peer whose password hash it knows.
pub struct LeapServer {
    state: State,
    name: [u8; NAME_MAX],
    name_len: usize,
    nt_hash: [u8; HASH_LEN],
    peer_challenge: [u8; CHALLENGE_LEN],
    peer_response: [u8; RESPONSE_LEN],
    key: [u8; KEY_LEN],
}

impl core::fmt::Debug for LeapServer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LeapServer")
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl Drop for LeapServer {
    fn drop(&mut self) {
        self.nt_hash.zeroize();
        self.key.zeroize();
    }
}

/// The LEAP Type-Data: Version, Unused, Count, `value`, name.
fn type_data(value: &[u8], name: &[u8], out: &mut [u8]) -> Option<usize> {
    let n = 3 + value.len() + name.len();
    let o = out.get_mut(..n)?;
    o[0] = VERSION;
    o[1] = 0;
    o[2] = value.len() as u8;
    o[3..3 + value.len()].copy_from_slice(value);
    o[3 + value.len()..].copy_from_slice(name);
    Some(n)
}

/// The Count-long value of a LEAP packet of `code` whose Count must be
/// `count`.
fn leap_value(eap_packet: &[u8], code: Code, count: usize) -> Result<(u8, &[u8]), LeapError> {
    let p = EapPacket::new_checked(eap_packet).map_err(|_| LeapError::Malformed)?;
    if p.code() != code || p.eap_type() != Some(EapType::LEAP) {
        return Err(LeapError::UnexpectedPacket);
    }
    let id = p.identifier();
    let d = eap_packet
        .get(eap::HEADER_LEN + 1..usize::from(p.length()))
        .unwrap_or(&[]);
    if d.len() < 3 + count || d[0] != VERSION || usize::from(d[2]) != count {
        return Err(LeapError::Malformed);
    }
    Ok((id, &d[3..3 + count]))
}

impl LeapServer {
    /// A server for the user `name` whose NtPasswordHash is `nt_hash`.
    pub fn new(name: &[u8], nt_hash: [u8; HASH_LEN]) -> LeapServer {
        let mut n = [0u8; NAME_MAX];
        let len = name.len().min(NAME_MAX);
        n[..len].copy_from_slice(&name[..len]);
        LeapServer {
            state: State::Start,
            name: n,
            name_len: len,
            nt_hash,
            peer_challenge: [0; CHALLENGE_LEN],
            peer_response: [0; RESPONSE_LEN],
            key: [0; KEY_LEN],
        }
    }

    fn name(&self) -> &[u8] {
        &self.name[..self.name_len]
    }

    /// The first LEAP request, with a fresh peer challenge, answering the
    /// EAP-Response/Identity whose Identifier was `identity_id`; written
    /// to `out`, its length.
    pub fn start(
        &mut self,
        identity_id: u8,
        rng: &mut dyn Random,
        out: &mut [u8],
    ) -> Result<usize, LeapError> {
        if self.state != State::Start {
            return Err(LeapError::UnexpectedPacket);
        }
        rng.fill_bytes(&mut self.peer_challenge);
        let mut data = [0u8; 3 + CHALLENGE_LEN + NAME_MAX];
        let n =
            type_data(&self.peer_challenge, self.name(), &mut data).ok_or(LeapError::Malformed)?;
        let len = eap::emit(
            Code::Request,
            identity_id.wrapping_add(1),
            Some(EapType::LEAP),
            &data[..n],
            out,
        )
        .map_err(|_| LeapError::Malformed)?;
        self.state = State::WaitPeerResponse;
        Ok(len)
    }

    /// Takes the peer's next EAP packet; what to send back, written to
    /// `out`. An error ends the exchange: the server answers with
    /// Access-Reject and EAP-Failure.
    pub fn handle(&mut self, eap_packet: &[u8], out: &mut [u8]) -> Result<Step, LeapError> {
        match self.state {
            State::WaitPeerResponse => {
                let (id, resp) = leap_value(eap_packet, Code::Response, RESPONSE_LEN)?;
                let want = danger_challenge_response(&self.peer_challenge, &self.nt_hash);
                if !crate::rsn::ct_eq(&want, resp) {
                    self.state = State::Done;
                    return Err(LeapError::WrongResponse);
                }
                self.peer_response = want;
                self.state = State::WaitApChallenge;
                // RFC 3748, 4.2: the Success carries the Response's
                // Identifier.
                let n = eap::emit(Code::Success, id, None, &[], out)
                    .map_err(|_| LeapError::Malformed)?;
                Ok(Step::Challenge(n))
            }
            State::WaitApChallenge => {
                let (id, ap_challenge) = leap_value(eap_packet, Code::Request, CHALLENGE_LEN)?;
                let mut apc = [0u8; CHALLENGE_LEN];
                apc.copy_from_slice(ap_challenge);
                let mut hh = danger_hash_nt_password_hash(&self.nt_hash);
                let ap_response = danger_challenge_response(&apc, &hh);
                self.key = session_key(
                    &hh,
                    &apc,
                    &ap_response,
                    &self.peer_challenge,
                    &self.peer_response,
                );
                hh.zeroize();
                let mut data = [0u8; 3 + RESPONSE_LEN + NAME_MAX];
                let n =
                    type_data(&ap_response, self.name(), &mut data).ok_or(LeapError::Malformed)?;
                let len = eap::emit(Code::Response, id, Some(EapType::LEAP), &data[..n], out)
                    .map_err(|_| LeapError::Malformed)?;
                self.state = State::Done;
                Ok(Step::Accept(len))
            }
            State::Start | State::Done => Err(LeapError::UnexpectedPacket),
        }
    }

    /// The session key, once the exchange has reached [`Step::Accept`].
    pub fn session_key(&self) -> Option<&[u8; KEY_LEN]> {
        (self.state == State::Done && self.key != [0; KEY_LEN]).then_some(&self.key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wisec_crypto::mschap::{danger_nt_challenge_response, danger_nt_password_hash};

    struct Fixed(u8);
    impl Random for Fixed {
        fn fill_bytes(&mut self, d: &mut [u8]) {
            d.fill(self.0);
        }
    }

    /// A peer written from the description in this module's header,
    /// against the server: the right password succeeds and both sides get
    /// the same key; a wrong one fails at the peer response.
    #[test]
    fn a_scripted_peer_completes_or_fails() {
        for (password, ok) in [("correct horse", true), ("wrong horse", false)] {
            let mut s = LeapServer::new(b"alice", danger_nt_password_hash("correct horse"));
            let mut out = [0u8; 256];
            let n = s.start(4, &mut Fixed(0x11), &mut out).unwrap();
            let req = EapPacket::new_checked(&out[..n]).unwrap();
            assert_eq!((req.code(), req.identifier()), (Code::Request, 5));
            let d = req.type_data();
            assert_eq!(&d[..3], &[1, 0, 8]);
            assert_eq!(&d[11..], b"alice");
            let pc: [u8; 8] = d[3..11].try_into().unwrap();
            let pr = danger_nt_challenge_response(&pc, password);
            let mut rd = [0u8; 64];
            let k = type_data(&pr, b"alice", &mut rd).unwrap();
            let mut resp = [0u8; 128];
            let m = eap::emit(Code::Response, 5, Some(EapType::LEAP), &rd[..k], &mut resp).unwrap();
            let r = s.handle(&resp[..m], &mut out);
            if !ok {
                assert_eq!(r, Err(LeapError::WrongResponse));
                assert!(s.session_key().is_none());
                continue;
            }
            let Ok(Step::Challenge(n)) = r else {
                panic!("{r:?}")
            };
            assert_eq!(&out[..n], &[3, 5, 0, 4]);
            let apc = [0x22u8; 8];
            let k = type_data(&apc, b"alice", &mut rd).unwrap();
            let m = eap::emit(Code::Request, 5, Some(EapType::LEAP), &rd[..k], &mut resp).unwrap();
            let Ok(Step::Accept(n)) = s.handle(&resp[..m], &mut out) else {
                panic!()
            };
            let ar = EapPacket::new_checked(&out[..n]).unwrap();
            assert_eq!(ar.code(), Code::Response);
            let apr: [u8; 24] = ar.type_data()[3..27].try_into().unwrap();
            // The peer checks the AP response and derives the same key.
            let hh = danger_hash_nt_password_hash(&danger_nt_password_hash(password));
            assert_eq!(apr, danger_challenge_response(&apc, &hh));
            let key = session_key(&hh, &apc, &apr, &pc, &pr);
            assert_eq!(s.session_key(), Some(&key));
            // Nothing more is taken.
            assert_eq!(
                s.handle(&resp[..m], &mut out),
                Err(LeapError::UnexpectedPacket)
            );
        }
    }

    #[test]
    fn malformed_and_foreign_packets_are_refused() {
        let mut s = LeapServer::new(b"u", [0; 16]);
        let mut out = [0u8; 128];
        s.start(0, &mut Fixed(1), &mut out).unwrap();
        // An MD5 response, a LEAP response of the wrong count, a short one.
        assert_eq!(
            s.handle(&[2, 1, 0, 6, 4, 0], &mut out),
            Err(LeapError::UnexpectedPacket)
        );
        let mut bad = [2u8, 1, 0, 32, 17, 1, 0, 23];
        bad[3] = 8;
        assert_eq!(s.handle(&bad, &mut out), Err(LeapError::Malformed));
        assert_eq!(s.handle(&[2, 1], &mut out), Err(LeapError::Malformed));
    }
}
