//! Frame authentication with SK (seed 003, sections 3.4 and 3.5).
//!
//! An authenticated frame ends with the 33-octet trailer of
//! [`wisec_wire::discosec::Trailer`]: the SEQ element, then the MAC element
//! whose tag is AES-CMAC (RFC 4493) under SK over
//!
//! * `full_auth`: the whole frame up to the MAC element, that is the MAC
//!   header, the frame body and the SEQ element. In the MAC header the
//!   fields a retransmission or the hardware may change are masked, as CCMP
//!   masks them in its AAD (IEEE Std 802.11-2020, 12.5.3.3.3): the Retry,
//!   Power Management and More Data bits of Frame Control are cleared, and
//!   Duration/ID and Sequence Control are replaced by zeros. Every other
//!   header octet (addresses, QoS and HT Control) is covered as sent.
//! * `fast_auth`: one 16-octet block (one AES call after the subkey XOR):
//!
//!   | octets | field |
//!   |---|---|
//!   | 0..2 | Frame Control, masked as above, little-endian |
//!   | 2..8 | Address 2 (the transmitter) |
//!   | 8..12 | AT, little-endian |
//!   | 12..16 | SEQ, little-endian |
//!
//!   The paper's Figure 2 (lost in the copy of the seed) fixes this block
//!   at 128 bits of header fields, AT and SEQ. The receiver address is
//!   bound by SK itself, which only this station and this AP hold; Frame
//!   Control binds the frame's type and subtype, Address 2 its direction.
//!   The body (a reason code, a status) is *not* covered: that is the
//!   trade-off the paper describes.
//!
//! SEQ is an independent 32-bit counter per direction. A receiver accepts
//! seq_prev < seq < seq_prev + window + 1 (section 3.5) and moves seq_prev
//! only after the tag verified.

use super::keys::SessionKey;
use super::Error;
use wisec_crypto::cmac::AesCmac;
use wisec_wire::discosec::{AuthMode, Trailer};
use wisec_wire::frame_control::FrameControl;
use wisec_wire::mac_header::header_len;
use wisec_wire::MacAddr;

/// The Frame Control bits left out of the MAC: Retry, Power Management,
/// More Data.
pub const FC_MUTABLE_BITS: u16 = (1 << 11) | (1 << 12) | (1 << 13);

/// The default SEQ window (seed 003, section 3.5: "usually selected around
/// 10").
pub const DEFAULT_WINDOW: u32 = 10;

/// The receive side of the 32-bit SEQ counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeqWindow {
    prev: u32,
    window: u32,
}

impl SeqWindow {
    /// A window with seq_prev = 0: the first frame may carry 1..=window.
    pub const fn new(window: u32) -> SeqWindow {
        SeqWindow { prev: 0, window }
    }

    /// The last accepted SEQ.
    pub const fn prev(&self) -> u32 {
        self.prev
    }

    /// Whether `seq` lies in seq_prev < seq < seq_prev + window + 1.
    pub fn check(&self, seq: u32) -> Result<(), Error> {
        let (s, p) = (u64::from(seq), u64::from(self.prev));
        if s > p && s <= p + u64::from(self.window) {
            Ok(())
        } else {
            Err(Error::SeqOutOfWindow)
        }
    }

    fn accept(&mut self, seq: u32) {
        self.prev = seq;
    }
}

/// Proof that a frame's MAC and SEQ verified: only [`Session::open`]
/// creates it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verified {
    len: usize,
    seq: u32,
}

impl Verified {
    /// Length of the frame without the trailer.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// True when nothing precedes the trailer (never for a valid frame).
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The frame's SEQ.
    pub const fn seq(&self) -> u32 {
        self.seq
    }
}

/// One side of a DiscoSec session: SK as a keyed AES-CMAC, AT, the mode,
/// the transmit SEQ and the receive window. The key schedule is wiped on
/// drop.
#[derive(Clone)]
pub struct Session {
    cmac: AesCmac,
    at: u32,
    mode: AuthMode,
    tx_seq: u32,
    rx: SeqWindow,
}

impl core::fmt::Debug for Session {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Session")
            .field("mode", &self.mode)
            .field("tx_seq", &self.tx_seq)
            .field("rx", &self.rx)
            .finish_non_exhaustive()
    }
}

fn masked_fc(frame: &[u8]) -> Result<(FrameControl, usize), Error> {
    let fc = match frame {
        [a, b, ..] => FrameControl::from_bytes([*a, *b]),
        _ => return Err(Error::Malformed(wisec_wire::Error::Truncated)),
    };
    let hl = header_len(fc).map_err(Error::Malformed)?;
    if frame.len() < hl || hl < 24 {
        return Err(Error::Malformed(wisec_wire::Error::Truncated));
    }
    Ok((FrameControl(fc.0 & !FC_MUTABLE_BITS), hl))
}

/// The AES-CMAC tag of `covered` (a frame up to, not including, its MAC
/// element) in `mode`, under the keyed `cmac`, with association token `at`
/// and sequence number `seq`.
pub fn compute_tag(
    cmac: &AesCmac,
    mode: AuthMode,
    at: u32,
    seq: u32,
    covered: &[u8],
) -> Result<[u8; 16], Error> {
    let (fc, hl) = masked_fc(covered)?;
    let mut m = cmac.clone();
    match mode {
        AuthMode::Full => {
            let mut hdr = [0u8; 40];
            let h = hdr.get_mut(..hl).ok_or(Error::WrongMode)?;
            h.copy_from_slice(covered.get(..hl).ok_or(Error::WrongMode)?);
            h[..2].copy_from_slice(&fc.to_bytes());
            h[2..4].fill(0); // Duration/ID
            h[22..24].fill(0); // Sequence Control
            m.update(h);
            m.update(covered.get(hl..).unwrap_or(&[]));
        }
        AuthMode::Fast => {
            let mut block = [0u8; 16];
            block[..2].copy_from_slice(&fc.to_bytes());
            block[2..8].copy_from_slice(covered.get(10..16).ok_or(Error::WrongMode)?);
            block[8..12].copy_from_slice(&at.to_le_bytes());
            block[12..16].copy_from_slice(&seq.to_le_bytes());
            m.update(&block);
        }
        AuthMode::Unknown(_) => return Err(Error::WrongMode),
    }
    Ok(m.finalize())
}

impl Session {
    /// A session keyed with SK for association token `at`, in `mode`, with
    /// a receive window of `window`.
    pub fn new(sk: &SessionKey, at: u32, mode: AuthMode, window: u32) -> Result<Session, Error> {
        if matches!(mode, AuthMode::Unknown(_)) {
            return Err(Error::WrongMode);
        }
        let cmac = AesCmac::new(sk.as_bytes()).map_err(|_| Error::InvalidKey)?;
        Ok(Session {
            cmac,
            at,
            mode,
            tx_seq: 0,
            rx: SeqWindow::new(window),
        })
    }

    /// The association token.
    pub const fn at(&self) -> u32 {
        self.at
    }

    /// The mode.
    pub const fn mode(&self) -> AuthMode {
        self.mode
    }

    /// The SEQ of the last sealed frame.
    pub const fn tx_seq(&self) -> u32 {
        self.tx_seq
    }

    /// The receive window.
    pub const fn rx_window(&self) -> SeqWindow {
        self.rx
    }

    /// Appends the SEQ+MAC trailer to the frame `buf[..len]` (MAC header
    /// and body). `buf` needs `len + 33` octets. Returns the new length.
    pub fn seal(&mut self, buf: &mut [u8], len: usize) -> Result<usize, Error> {
        let seq = self.tx_seq.checked_add(1).ok_or(Error::SeqExhausted)?;
        let total = len.checked_add(Trailer::LEN).ok_or(Error::BufferTooSmall)?;
        let b = buf.get_mut(..total).ok_or(Error::BufferTooSmall)?;
        let mut t = Trailer {
            seq,
            mode: self.mode,
            tag: [0; 16],
        };
        t.emit(&mut b[len..]).map_err(|_| Error::BufferTooSmall)?;
        let covered = &b[..len + Trailer::MAC_OFFSET];
        t.tag = compute_tag(&self.cmac, self.mode, self.at, seq, covered)?;
        t.emit(&mut b[len..]).map_err(|_| Error::BufferTooSmall)?;
        self.tx_seq = seq;
        Ok(total)
    }

    /// Checks the trailer of `frame` without changing the session: the
    /// trailer is present (`LegacyFrame` otherwise), in this session's mode
    /// (`WrongMode`), the tag verifies in constant time (`BadMac`) and SEQ
    /// lies in the window (`SeqOutOfWindow`).
    pub fn verify(&self, frame: &[u8]) -> Result<Verified, Error> {
        let (start, t) = match Trailer::parse(frame) {
            None => return Err(Error::LegacyFrame),
            Some(r) => r.map_err(Error::Malformed)?,
        };
        if t.mode != self.mode {
            return Err(Error::WrongMode);
        }
        let covered = frame
            .get(..start + Trailer::MAC_OFFSET)
            .ok_or(Error::LegacyFrame)?;
        let tag = compute_tag(&self.cmac, self.mode, self.at, t.seq, covered)?;
        if !ct_eq(&tag, &t.tag) {
            return Err(Error::BadMac);
        }
        self.rx.check(t.seq)?;
        Ok(Verified {
            len: start,
            seq: t.seq,
        })
    }

    /// [`Session::verify`], then moves the receive window to the frame's
    /// SEQ.
    pub fn open(&mut self, frame: &[u8]) -> Result<Verified, Error> {
        let v = self.verify(frame)?;
        self.rx.accept(v.seq);
        Ok(v)
    }

    /// Moves the receive window for a frame verified by [`Session::verify`].
    pub fn accept(&mut self, v: Verified) {
        if v.seq > self.rx.prev {
            self.rx.accept(v.seq);
        }
    }
}

/// The transmitter address of a frame (Address 2), if it has one.
pub(crate) fn addr2(frame: &[u8]) -> Option<MacAddr> {
    MacAddr::from_bytes(frame.get(10..16)?)
}

fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discosec::keys::MasterKey;

    fn session(mode: AuthMode) -> Session {
        let mk = MasterKey::from_slice(&[7; 32]).unwrap();
        Session::new(&mk.session_key(0x01020304), 0x01020304, mode, 10).unwrap()
    }

    fn deauth() -> [u8; 26] {
        let mut f = [0u8; 26];
        f[0] = 0xc0;
        f[4..10].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
        f[10..16].copy_from_slice(&[2, 0, 0, 0, 0, 2]);
        f[16..22].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
        f[24] = 3;
        f
    }

    #[test]
    fn window() {
        let mut w = SeqWindow::new(10);
        assert_eq!(w.check(0), Err(Error::SeqOutOfWindow));
        assert!(w.check(1).is_ok() && w.check(10).is_ok());
        assert_eq!(w.check(11), Err(Error::SeqOutOfWindow));
        w.accept(u32::MAX - 3);
        assert!(w.check(u32::MAX).is_ok());
        assert_eq!(w.check(3), Err(Error::SeqOutOfWindow));
    }

    #[test]
    fn seal_open_both_modes_and_masking() {
        for mode in [AuthMode::Full, AuthMode::Fast] {
            let mut tx = session(mode);
            let mut rx = session(mode);
            let mut buf = [0u8; 64];
            buf[..26].copy_from_slice(&deauth());
            let n = tx.seal(&mut buf, 26).unwrap();
            assert_eq!(n, 59);
            // Retry bit, Duration and Sequence Control are not covered.
            let mut retried = buf;
            retried[1] |= 0x08;
            retried[2] = 0x3a;
            retried[22] = 0x10;
            let v = rx.verify(&retried[..n]).unwrap();
            assert_eq!((v.len(), v.seq()), (26, 1));
            assert_eq!(rx.open(&buf[..n]).unwrap().seq(), 1);
            // Replay.
            assert_eq!(rx.open(&buf[..n]), Err(Error::SeqOutOfWindow));
            // Address 2 and the subtype are covered in both modes.
            let mut other = buf;
            other[15] ^= 1;
            assert_eq!(rx.verify(&other[..n]), Err(Error::BadMac));
            let mut disassoc = buf;
            disassoc[0] = 0xa0;
            assert_eq!(rx.verify(&disassoc[..n]), Err(Error::BadMac));
            // The body is covered only by full_auth.
            let mut reason = buf;
            reason[24] = 7;
            let r = rx.verify(&reason[..n]);
            if mode == AuthMode::Full {
                assert_eq!(r, Err(Error::BadMac));
            } else {
                assert_eq!(r, Err(Error::SeqOutOfWindow));
            }
            assert_eq!(rx.verify(&buf[..26]), Err(Error::LegacyFrame));
        }
    }

    #[test]
    fn mode_mismatch_and_exhaustion() {
        let mut full = session(AuthMode::Full);
        let fast = session(AuthMode::Fast);
        let mut buf = [0u8; 64];
        buf[..26].copy_from_slice(&deauth());
        let n = full.seal(&mut buf, 26).unwrap();
        assert_eq!(fast.verify(&buf[..n]), Err(Error::WrongMode));
        full.tx_seq = u32::MAX;
        assert_eq!(full.seal(&mut buf, 26), Err(Error::SeqExhausted));
        assert_eq!(
            session(AuthMode::Full).seal(&mut buf[..50], 26),
            Err(Error::BufferTooSmall)
        );
        assert!(Session::new(
            &MasterKey::from_slice(&[1; 28]).unwrap().session_key(1),
            1,
            AuthMode::Unknown(3),
            10
        )
        .is_err());
    }
}
