//! CCMP-128 and CCMP-256 (IEEE Std 802.11-2020, 12.5.3).
//!
//! CCM with `L = 2` and a 13-byte nonce over the MPDU body; the MAC header
//! is authenticated through the additional authentication data (AAD) built
//! by [`aad`], and the nonce by [`nonce`]. Both builders are public so that
//! GCMP ([`crate::gcmp`]), BIP tooling and batch engines share one
//! implementation of the masking rules.
//!
//! The frame-level work (inserting the CCMP header, moving the body,
//! restoring the frame after a failed check) is shared with GCMP through
//! a crate-private trait.

use wisec_wire::mac_header::Header;
use wisec_wire::security::{CcmpHeader, CCMP_HEADER_LEN, PN_MAX};
use wisec_wire::FrameControl;
use zeroize::Zeroize;

use crate::ccm::Ccm;
use crate::{Error, Result, Unprotected};

/// Longest AAD: FC (2), A1..A3 (18), SC (2), A4 (6), QC (2).
pub const AAD_MAX_LEN: usize = 30;
/// Length of the CCM nonce of CCMP (12.5.3.3.4).
pub const NONCE_LEN: usize = 13;
/// MIC length of CCMP-128.
pub const MIC_LEN_128: usize = 8;
/// MIC length of CCMP-256.
pub const MIC_LEN_256: usize = 16;
/// The CCM length-field size used by CCMP.
pub const CCM_L: usize = 2;

/// The additional authentication data of a CCMP or GCMP MPDU: up to
/// [`AAD_MAX_LEN`] bytes.
///
/// Octets past the length are zero (two more than [`AAD_MAX_LEN`] are
/// kept, so that the protect and unprotect paths write two whole 16-octet
/// words).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Aad {
    bytes: [u8; 32],
    len: usize,
}

impl Aad {
    /// The AAD bytes.
    pub fn as_bytes(&self) -> &[u8] {
        // len never exceeds AAD_MAX_LEN; `get` keeps this panic-free anyway.
        self.bytes.get(..self.len).unwrap_or(&self.bytes)
    }

    /// Length of the AAD: 22, 24, 28 or 30 bytes.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Never true: every AAD holds at least FC, A1..A3 and SC.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The frame control field as it enters the AAD (12.5.3.3.3 a)):
/// subtype bits 4..=6 masked to 0 in data frames (not in management
/// frames), Retry, Power Management and More Data masked to 0, Protected
/// set to 1, +HTC/Order masked to 0 in QoS data frames.
pub fn aad_frame_control(fc: FrameControl) -> FrameControl {
    let mut m = fc.0;
    if fc.is_data() {
        m &= !0x0070;
    }
    m &= !(FrameControl::RETRY | (1 << 12) | (1 << 13));
    m |= FrameControl::PROTECTED;
    if fc.is_qos_data() {
        m &= !FrameControl::ORDER;
    }
    FrameControl(m)
}

fn check_protectable_type(fc: FrameControl) -> Result<()> {
    // CCMP and GCMP protect data frames and individually addressed robust
    // management frames; control and extension frames are never protected.
    if fc.is_data() || fc.is_mgmt() {
        Ok(())
    } else {
        Err(Error::Unsupported)
    }
}

/// Builds the AAD of an MPDU whose MAC header `header` shows
/// (IEEE Std 802.11-2020, 12.5.3.3.3; GCMP reuses it, 12.5.5.3.3):
///
/// FC (masked by [`aad_frame_control`]) || A1 || A2 || A3 || SC with the
/// sequence number masked to 0 and the fragment number kept || A4 when
/// present || QC with only the TID kept when present. HT Control is never
/// part of the AAD.
///
/// Errors: [`Error::Unsupported`] for control and extension frames.
#[inline(always)]
pub fn aad<T: AsRef<[u8]>>(header: &Header<T>) -> Result<Aad> {
    let fc = header.frame_control();
    check_protectable_type(fc)?;
    let mut a = Aad {
        bytes: [0; 32],
        len: 0,
    };
    let mut put = |bytes: &[u8]| {
        let end = a.len + bytes.len();
        if let Some(dst) = a.bytes.get_mut(a.len..end) {
            dst.copy_from_slice(bytes);
            a.len = end;
        }
    };
    put(&aad_frame_control(fc).to_bytes());
    put(&header.addr1().0);
    put(&header.addr2().ok_or(Error::Malformed)?.0);
    put(&header.addr3().ok_or(Error::Malformed)?.0);
    // 12.5.3.3.3 c): SC with bits 4..=15 (the sequence number) masked.
    let sc = header.sequence_control().ok_or(Error::Malformed)?;
    put(&(sc & 0x000f).to_le_bytes());
    if let Some(a4) = header.addr4() {
        put(&a4.0);
    }
    // 12.5.3.3.3 e): QC with every bit but the TID (bits 0..=3) masked.
    if let Some(qc) = header.qos_control() {
        put(&(qc & 0x000f).to_le_bytes());
    }
    Ok(a)
}

/// The first 32 octets of a MAC header as two little-endian words, zero
/// past the end of `frame`.
#[inline(always)]
pub(crate) fn header_words(frame: &[u8]) -> (u128, u128) {
    let mut h = [0u8; 32];
    match frame.first_chunk::<32>() {
        Some(c) => h = *c,
        None => h[..frame.len()].copy_from_slice(frame),
    }
    let (lo, hi) = h.split_at(16);
    let word = |b: &[u8]| {
        let mut w = [0u8; 16];
        w.copy_from_slice(b);
        u128::from_le_bytes(w)
    };
    (word(lo), word(hi))
}

/// The octets of MAC header octets 16..32 that the AAD keeps, by
/// (Address 4 present, QoS Control present), as a little-endian mask
/// (IEEE Std 802.11-2020, 12.5.3.3.3): the end of A3 (16..22), the
/// Sequence Control field with the sequence number masked (the fragment
/// number, the low nibble of octet 22, stays), A4 (24..30) when present,
/// and of the QoS Control field only the TID (its first octet's low
/// nibble; the second octet is 0). HT Control is not in the AAD.
const fn aad2_mask(a4: bool, qos: bool) -> u128 {
    let mut m = [0u8; 16];
    let mut k = 0;
    while k < 6 {
        m[k] = 0xff;
        k += 1;
    }
    m[6] = 0x0f;
    if a4 {
        let mut k = 8;
        while k < 14 {
            m[k] = 0xff;
            k += 1;
        }
    }
    if qos {
        m[if a4 { 14 } else { 8 }] = 0x0f;
    }
    u128::from_le_bytes(m)
}

const AAD2_MASK: [u128; 4] = [
    aad2_mask(false, false),
    aad2_mask(false, true),
    aad2_mask(true, false),
    aad2_mask(true, true),
];

/// Header octets 16..32 of `h1` as they enter the AAD (see
/// [`aad2_mask`]), and the AAD's length, for the header of a data or
/// management frame with frame control `fc`.
#[inline(always)]
pub(crate) fn aad_tail(fc: FrameControl, h1: u128) -> (u128, usize) {
    let (a4, qos) = (fc.has_addr4(), fc.is_qos_data());
    let len = 22 + if a4 { 6 } else { 0 } + if qos { 2 } else { 0 };
    (h1 & AAD2_MASK[usize::from(a4) * 2 + usize::from(qos)], len)
}

/// [`aad`] built with whole-word masks from the header words of
/// [`header_words`]: the same octets for the whole header of a data or
/// management frame with frame control `fc` (the caller has checked
/// both), without re-reading the header field by field. FC (masked)
/// takes octets 0..2, header octets 4..16 follow as they are, then the
/// masked octets 16..32.
#[inline(always)]
pub(crate) fn aad_from_words(fc: FrameControl, h0: u128, h1: u128) -> Aad {
    let (tail, len) = aad_tail(fc, h1);
    let fcm = u128::from(aad_frame_control(fc).0);
    let lo = fcm | ((h0 >> 32) << 16) | (tail << 112);
    let hi = tail >> 16;
    let mut bytes = [0u8; 32];
    bytes[..16].copy_from_slice(&lo.to_le_bytes());
    bytes[16..].copy_from_slice(&hi.to_le_bytes());
    Aad { bytes, len }
}

/// A2 (header octets 10..16) in the low 48 bits, then PN5..PN0: the GCMP
/// nonce (12.5.5.3.4) in the low 12 octets, and the CCMP nonce
/// (12.5.3.3.4) after its flags octet. `pn` is at most [`PN_MAX`].
#[inline(always)]
pub(crate) fn a2_pn_word(h0: u128, pn: u64) -> u128 {
    let a2 = (h0 >> 80) & 0xffff_ffff_ffff;
    // (pn << 16) byte-swapped is PN5..PN0, 0, 0 in memory order.
    a2 | u128::from((pn << 16).swap_bytes()) << 48
}

/// The CCMP nonce (12.5.3.3.4) of a data or management frame in the low
/// 13 octets, from its frame control and header words: the Nonce Flags
/// octet (the TID of a QoS data frame in bits 0..=3, bit 4 set for
/// management frames), then A2, then PN5..PN0 (`pn` at most
/// [`PN_MAX`]).
#[inline(always)]
pub(crate) fn nonce_word(fc: FrameControl, h0: u128, h1: u128, pn: u64) -> u128 {
    let tid = if fc.is_qos_data() {
        (h1 >> if fc.has_addr4() { 112 } else { 64 }) as u8 & 0x0f
    } else {
        0
    };
    let flags = tid | if fc.is_mgmt() { 0x10 } else { 0 };
    u128::from(flags) | a2_pn_word(h0, pn) << 8
}

/// The PN as PN5..PN0, most significant octet first.
pub fn pn_be(pn: u64) -> [u8; 6] {
    let b = pn.to_be_bytes();
    [b[2], b[3], b[4], b[5], b[6], b[7]]
}

/// Builds the 13-byte CCM nonce of an MPDU (IEEE Std 802.11-2020,
/// 12.5.3.3.4): the Nonce Flags octet (bits 0..=3 priority: the TID of a
/// QoS data frame, 0 otherwise; bit 4 Management: set for management
/// frames; bits 5..=7 reserved, 0), then A2, then PN5..PN0.
///
/// Errors: [`Error::Unsupported`] for control and extension frames,
/// [`Error::InvalidParameter`] for a PN above 2^48 - 1.
pub fn nonce<T: AsRef<[u8]>>(header: &Header<T>, pn: u64) -> Result<[u8; NONCE_LEN]> {
    let fc = header.frame_control();
    check_protectable_type(fc)?;
    if pn > PN_MAX {
        return Err(Error::InvalidParameter);
    }
    let mut n = [0u8; NONCE_LEN];
    let priority = if fc.is_qos_data() {
        header.tid() & 0x0f
    } else {
        0
    };
    let mgmt = if fc.is_mgmt() { 0x10 } else { 0 };
    n[0] = priority | mgmt;
    n[1..7].copy_from_slice(&header.addr2().ok_or(Error::Malformed)?.0);
    n[7..13].copy_from_slice(&pn_be(pn));
    Ok(n)
}

/// The AEAD step of an MPDU suite: what differs between CCMP and GCMP.
pub(crate) trait MpduAead {
    /// MIC length.
    const MIC_LEN: usize;
    /// Longest frame body the mode accepts.
    const MAX_BODY: usize;
    /// The nonce type.
    type Nonce;

    /// Builds the nonce of a data or management frame with frame control
    /// `fc` from its header words ([`header_words`]) and a PN of at most
    /// [`PN_MAX`] (the same as the public `nonce` function of the suite's
    /// module, which the tests check it against).
    fn nonce_from(fc: FrameControl, h0: u128, h1: u128, pn: u64) -> Self::Nonce;

    /// Encrypts `body` in place and writes the MIC to `mic`.
    fn seal(&self, nonce: &Self::Nonce, aad: &[u8], body: &mut [u8], mic: &mut [u8]) -> Result<()>;

    /// Verifies `mic` and decrypts `body` in place; on failure `body`
    /// holds the ciphertext it was given and the error is `Integrity`.
    fn open(&self, nonce: &Self::Nonce, aad: &[u8], body: &mut [u8], mic: &[u8]) -> Result<()>;
}

/// The length of the MAC header of a data or management frame of
/// protocol version 0 whose Frame Control field is `fc` (IEEE Std
/// 802.11-2020, 9.3.2.1 and 9.3.3.2): 24 octets, 6 more for Address 4 (a
/// data frame with To DS and From DS set), 2 for QoS Control (a QoS data
/// subtype), 4 for HT Control (+HTC set in a management or QoS data
/// frame); `None` for any other type or version. The same as
/// `wisec_wire::mac_header::header_len` for those frames, from the bits
/// at once.
#[inline(always)]
fn data_or_mgmt_header_len(fc: FrameControl) -> Option<usize> {
    let v = fc.0;
    // Version (bits 0..=1) 0, and type (bits 2..=3) 0 or 2: bit 2 clear.
    if v & 0b111 != 0 {
        return None;
    }
    let data = v & 0b1000 != 0;
    let qos = data && v & 0x0080 != 0;
    let a4 = data && v & 0x0300 == 0x0300;
    let htc = v & FrameControl::ORDER != 0 && (qos || !data);
    Some(24 + 6 * usize::from(a4) + 2 * usize::from(qos) + 4 * usize::from(htc))
}

/// The Frame Control field and header length of a frame CCMP or GCMP may
/// protect, with the errors of [`Header::new_checked`] and
/// [`check_protectable_type`] in that order. Data and management frames
/// are read from the Frame Control bits alone; anything else goes the
/// long way, which only tells what is wrong with it.
#[inline(always)]
fn protectable_header(frame: &[u8]) -> Result<(FrameControl, usize)> {
    let fc = frame
        .first_chunk::<2>()
        .map(|b| FrameControl::from_bytes(*b));
    if let Some((fc, hlen)) = fc.and_then(|fc| Some((fc, data_or_mgmt_header_len(fc)?))) {
        if frame.len() < hlen {
            // A truncated header, as `Header::new_checked` reports it.
            return Err(wisec_wire::Error::Truncated.into());
        }
        return Ok((fc, hlen));
    }
    let header = Header::new_checked(frame)?;
    let fc = header.frame_control();
    check_protectable_type(fc)?;
    Ok((fc, header.header_len()))
}

/// What the checks of a frame to protect found (IEEE Std 802.11-2020,
/// 12.5.3.2, 12.5.5.2): where the body is, how long the protected MPDU
/// will be, its AAD, nonce, and the frame control with Protected set.
pub(crate) struct TxLayout<N> {
    pub(crate) hlen: usize,
    pub(crate) body_len: usize,
    pub(crate) total: usize,
    pub(crate) aad: Aad,
    pub(crate) nonce: N,
    pub(crate) fc: FrameControl,
}

/// The checks of protecting the plaintext MPDU `frame` into a buffer of
/// `room` bytes, in the order every protect path reports them.
#[inline(always)]
pub(crate) fn tx_layout<S: MpduAead>(
    frame: &[u8],
    room: usize,
    pn: u64,
    key_id: u8,
) -> Result<TxLayout<S::Nonce>> {
    if pn > PN_MAX || key_id > 3 {
        return Err(Error::InvalidParameter);
    }
    let (fc, hlen) = protectable_header(frame)?;
    if fc.protected() || fc.is_null_data() {
        // Already protected, or a data subtype without a Frame Body.
        return Err(Error::Unsupported);
    }
    let body_len = frame.len().checked_sub(hlen).ok_or(Error::Malformed)?;
    if body_len > S::MAX_BODY {
        return Err(Error::InvalidParameter);
    }
    let total = frame.len() + CCMP_HEADER_LEN + S::MIC_LEN;
    if room < total {
        return Err(Error::BufferTooSmall);
    }
    // Data or management (checked above), with its whole header.
    let (h0, h1) = header_words(frame);
    let aad = aad_from_words(fc, h0, h1);
    let nonce = S::nonce_from(fc, h0, h1, pn);
    let mut fc = fc;
    fc.set_protected(true);
    Ok(TxLayout {
        hlen,
        body_len,
        total,
        aad,
        nonce,
        fc,
    })
}

/// What the checks of a protected MPDU found (12.5.3.4, 12.5.5.4).
pub(crate) struct RxLayout<N> {
    pub(crate) hlen: usize,
    pub(crate) body_start: usize,
    pub(crate) body_len: usize,
    pub(crate) aad: Aad,
    pub(crate) nonce: N,
    pub(crate) sec: CcmpHeader,
    pub(crate) fc: FrameControl,
}

/// The checks of unprotecting the protected MPDU `frame`.
#[inline(always)]
pub(crate) fn rx_layout<S: MpduAead>(frame: &[u8]) -> Result<RxLayout<S::Nonce>> {
    let (fc, hlen) = protectable_header(frame)?;
    if !fc.protected() || fc.is_null_data() {
        return Err(Error::Malformed);
    }
    let body_start = hlen + CCMP_HEADER_LEN;
    let body_len = frame
        .len()
        .checked_sub(body_start + S::MIC_LEN)
        .ok_or(Error::Malformed)?;
    if body_len > S::MAX_BODY {
        return Err(Error::Malformed);
    }
    // 12.5.3.4.4 / 12.5.5.4.4: ExtIV must be set.
    let sec = CcmpHeader::parse(&frame[hlen..])?;
    // Data or management (checked above), with its whole header; the PN
    // has 48 bits.
    let (h0, h1) = header_words(frame);
    let aad = aad_from_words(fc, h0, h1);
    let nonce = S::nonce_from(fc, h0, h1, sec.pn);
    Ok(RxLayout {
        hlen,
        body_start,
        body_len,
        aad,
        nonce,
        sec,
        fc,
    })
}

/// Protects `buf[..len]` in place with the CCMP/GCMP header layout
/// (12.5.3.2, 12.5.5.2): MAC header (Protected set) || header || encrypted
/// body || MIC.
pub(crate) fn protect_mpdu<S: MpduAead>(
    suite: &S,
    buf: &mut [u8],
    len: usize,
    pn: u64,
    key_id: u8,
) -> Result<usize> {
    if pn > PN_MAX || key_id > 3 {
        return Err(Error::InvalidParameter);
    }
    let frame = buf.get(..len).ok_or(Error::BufferTooSmall)?;
    let l = tx_layout::<S>(frame, buf.len(), pn, key_id)?;
    let (hlen, total) = (l.hlen, l.total);

    // Every check passed: from here on nothing fails.
    buf[..2].copy_from_slice(&l.fc.to_bytes());
    buf.copy_within(hlen..len, hlen + CCMP_HEADER_LEN);
    CcmpHeader { pn, key_id }.emit(&mut buf[hlen..hlen + CCMP_HEADER_LEN])?;
    let (body, mic) = buf[hlen + CCMP_HEADER_LEN..total].split_at_mut(l.body_len);
    if let Err(e) = suite.seal(&l.nonce, l.aad.as_bytes(), body, mic) {
        buf[..total].zeroize();
        return Err(e);
    }
    Ok(total)
}

/// Verifies and decrypts the protected MPDU `buf` in place. On failure the
/// buffer is as it was given.
pub(crate) fn unprotect_mpdu<S: MpduAead>(suite: &S, buf: &mut [u8]) -> Result<Unprotected> {
    let n = buf.len();
    let l = rx_layout::<S>(buf)?;
    let (hlen, body_start, body_len) = (l.hlen, l.body_start, l.body_len);

    let (body, mic) = buf[body_start..].split_at_mut(body_len);
    suite.open(&l.nonce, l.aad.as_bytes(), body, mic)?;

    // Verified: remove the security header and MIC, clear Protected.
    buf.copy_within(body_start..body_start + body_len, hlen);
    let mut plain_fc = l.fc;
    plain_fc.set_protected(false);
    buf[..2].copy_from_slice(&plain_fc.to_bytes());
    let plain_len = hlen + body_len;
    buf[plain_len..n].zeroize();
    Ok(Unprotected::new(plain_len, l.sec.pn, l.sec.key_id))
}

/// Implements [`FrameProtector`](crate::FrameProtector) for the [`MpduAead`] suite `$name` through
/// [`protect_mpdu`] and [`unprotect_mpdu`]; `$header` is the length of its
/// security header (CCMP and GCMP headers are both 8 octets).
macro_rules! mpdu_frame_protector {
    ($name:ident, $header:expr) => {
        impl $crate::FrameProtector for $name {
            fn overhead(&self) -> $crate::Overhead {
                $crate::Overhead {
                    header: $header,
                    trailer: <Self as $crate::ccmp::MpduAead>::MIC_LEN,
                }
            }

            fn protect_in_place(
                &self,
                buf: &mut [u8],
                len: usize,
                pn: u64,
                key_id: u8,
            ) -> $crate::Result<usize> {
                $crate::ccmp::protect_mpdu(self, buf, len, pn, key_id)
            }

            fn unprotect_in_place(&self, buf: &mut [u8]) -> $crate::Result<$crate::Unprotected> {
                $crate::ccmp::unprotect_mpdu(self, buf)
            }
        }
    };
}

macro_rules! ccmp_suite {
    ($(#[$m:meta])* $name:ident, $key_len:expr, $mic:expr) => {
        $(#[$m])*
        #[derive(Clone, Debug)]
        pub struct $name {
            ccm: Ccm,
            // The AES-NI key schedule of the fused single-frame path and
            // the batch engines; `None` without AES-NI.
            fast: Option<crate::simd::RoundKeys>,
        }

        impl $name {
            /// Key length in bytes.
            pub const KEY_LEN: usize = $key_len;
            /// MIC length in bytes.
            pub const MIC_LEN: usize = $mic;

            /// A suite for the temporal key `key` (exactly
            /// [`Self::KEY_LEN`] bytes, else [`Error::InvalidParameter`]).
            pub fn new(key: &[u8]) -> Result<Self> {
                if key.len() != Self::KEY_LEN {
                    return Err(Error::InvalidParameter);
                }
                Ok($name {
                    ccm: Ccm::new(key, $mic, CCM_L)?,
                    fast: crate::simd::RoundKeys::new(key),
                })
            }

            /// The underlying CCM instance (for batch engines).
            pub const fn ccm(&self) -> &Ccm {
                &self.ccm
            }

            /// The vector key schedule, when the CPU has AES-NI.
            pub(crate) fn round_keys(&self) -> Option<&crate::simd::RoundKeys> {
                self.fast.as_ref()
            }
        }

        impl MpduAead for $name {
            const MIC_LEN: usize = $mic;
            // L = 2: the body length must fit two octets (12.5.3.3.1).
            const MAX_BODY: usize = 0xffff;
            type Nonce = [u8; NONCE_LEN];

            #[inline(always)]
            fn nonce_from(fc: FrameControl, h0: u128, h1: u128, pn: u64) -> Self::Nonce {
                let mut n = [0u8; NONCE_LEN];
                n.copy_from_slice(&nonce_word(fc, h0, h1, pn).to_le_bytes()[..NONCE_LEN]);
                n
            }

            fn seal(
                &self,
                n: &Self::Nonce,
                aad: &[u8],
                body: &mut [u8],
                mic: &mut [u8],
            ) -> Result<()> {
                if let Some(k) = &self.fast {
                    // CTR fused with the MAC chain (AES-NI); same output.
                    return crate::batch::fused_seal(&self.ccm, k, n, aad, body, mic);
                }
                self.ccm.encrypt_in_place_detached(n, aad, body, mic)
            }

            fn open(&self, n: &Self::Nonce, aad: &[u8], body: &mut [u8], mic: &[u8]) -> Result<()> {
                if let Some(k) = &self.fast {
                    return crate::batch::fused_open(&self.ccm, k, n, aad, body, mic);
                }
                // The frame must be handed back unchanged on failure
                // (FrameProtector contract), so restore rather than wipe.
                self.ccm
                    .decrypt_in_place_detached_or_restore(n, aad, body, mic)
                    .map_err(|_| Error::Integrity)
            }
        }

        mpdu_frame_protector!($name, CCMP_HEADER_LEN);
    };
}

ccmp_suite!(
    /// CCMP-128: AES-128 CCM with an 8-byte MIC (12.5.3; cipher suite
    /// 00-0F-AC:4).
    Ccmp128,
    16,
    MIC_LEN_128
);

ccmp_suite!(
    /// CCMP-256: AES-256 CCM with a 16-byte MIC (12.5.3; cipher suite
    /// 00-0F-AC:10).
    Ccmp256,
    32,
    MIC_LEN_256
);

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::FrameProtector;
    use wisec_wire::frame_control::{data_subtype, mgmt_subtype};
    use wisec_wire::{FrameType, HeaderRepr, MacAddr};

    /// Every Frame Control value: the header length from the bits is the
    /// parser's for data and management frames of version 0, and nothing
    /// else gets one; at every frame length up to 40 octets, the checks
    /// give what the parser and the type check give.
    #[test]
    fn protectable_header_agrees_with_the_parser() {
        for v in 0..=u16::MAX {
            let fc = FrameControl(v);
            let want = match fc.frame_type() {
                FrameType::Data | FrameType::Management if fc.protocol_version() == 0 => {
                    Some(wisec_wire::mac_header::header_len(fc).unwrap())
                }
                _ => None,
            };
            assert_eq!(data_or_mgmt_header_len(fc), want, "fc {v:#06x}");
            let mut frame = [0u8; 40];
            frame[..2].copy_from_slice(&v.to_le_bytes());
            for len in 0..=frame.len() {
                let f = &frame[..len];
                let long_way = || -> Result<(FrameControl, usize)> {
                    let h = Header::new_checked(f)?;
                    check_protectable_type(h.frame_control())?;
                    Ok((h.frame_control(), h.header_len()))
                };
                assert_eq!(
                    protectable_header(f),
                    long_way(),
                    "fc {v:#06x}, {len} octets"
                );
            }
        }
    }

    fn header_bytes(repr: &HeaderRepr) -> ([u8; 40], usize) {
        let mut b = [0u8; 40];
        let n = repr.emit(&mut b).unwrap();
        (b, n)
    }

    fn repr(fc: FrameControl) -> HeaderRepr {
        HeaderRepr {
            frame_control: fc,
            duration: 0x1234,
            addr1: MacAddr([1; 6]),
            addr2: Some(MacAddr([2; 6])),
            addr3: Some(MacAddr([3; 6])),
            sequence_control: Some(0xabc5),
            addr4: if fc.has_addr4() {
                Some(MacAddr([4; 6]))
            } else {
                None
            },
            qos_control: if fc.is_qos_data() { Some(0xff37) } else { None },
            ht_control: if fc.has_ht_control() {
                Some(0xdead_beef)
            } else {
                None
            },
        }
    }

    #[test]
    fn aad_masks_qos_data_with_a4_and_htc() {
        let mut fc = FrameControl::new(FrameType::Data, data_subtype::QOS_DATA_CF_ACK);
        fc.set_to_ds(true);
        fc.set_from_ds(true);
        fc.set_order(true);
        fc.set_retry(true);
        fc.set_power_management(true);
        fc.set_more_data(true);
        fc.set_more_fragments(true);
        let (b, n) = header_bytes(&repr(fc));
        assert_eq!(n, 36);
        let h = Header::new_checked(&b[..n]).unwrap();
        let a = aad(&h).unwrap();
        assert_eq!(a.len(), 30);
        // FC: type data (0x08), subtype 9 -> 8 (bits 4..6 masked, QoS bit
        // kept): 0x88; flags: To DS, From DS, More Fragments kept,
        // Protected set, Retry/PM/More Data/Order cleared: 0x47.
        assert_eq!(&a.as_bytes()[..2], &[0x88, 0x47]);
        assert_eq!(
            &a.as_bytes()[2..20],
            &[[1u8; 6], [2; 6], [3; 6]].concat()[..]
        );
        // SC 0xabc5: fragment 5 kept, sequence number masked.
        assert_eq!(&a.as_bytes()[20..22], &[0x05, 0x00]);
        assert_eq!(&a.as_bytes()[22..28], &[4u8; 6]);
        // QC 0xff37: TID 7 kept, the rest masked.
        assert_eq!(&a.as_bytes()[28..30], &[0x07, 0x00]);
        let nn = nonce(&h, 0x0102_0304_0506).unwrap();
        assert_eq!(nn[0], 0x07);
        assert_eq!(&nn[1..7], &[2u8; 6]);
        assert_eq!(&nn[7..], &[1, 2, 3, 4, 5, 6]);
        assert_eq!(nonce(&h, PN_MAX + 1), Err(Error::InvalidParameter));
    }

    #[test]
    fn aad_of_management_frames_keeps_subtype() {
        let mut fc = FrameControl::new(FrameType::Management, mgmt_subtype::ACTION);
        fc.set_order(true);
        fc.set_retry(true);
        let (b, n) = header_bytes(&repr(fc));
        let h = Header::new_checked(&b[..n]).unwrap();
        let a = aad(&h).unwrap();
        assert_eq!(a.len(), 22);
        // Subtype 13 kept (0xd0), Retry cleared, Protected set; Order is
        // masked only in QoS data frames, so it stays.
        assert_eq!(&a.as_bytes()[..2], &[0xd0, 0xc0]);
        let nn = nonce(&h, 1).unwrap();
        assert_eq!(nn[0], 0x10);
    }

    #[test]
    fn non_qos_data_keeps_order_bit() {
        let mut fc = FrameControl::new(FrameType::Data, data_subtype::DATA);
        fc.set_order(true);
        let (b, n) = header_bytes(&repr(fc));
        let h = Header::new_checked(&b[..n]).unwrap();
        assert_eq!(&aad(&h).unwrap().as_bytes()[..2], &[0x08, 0xc0]);
        assert_eq!(nonce(&h, 0).unwrap()[0], 0);
    }

    #[test]
    fn control_frames_are_refused() {
        let ack = [0xd4, 0x00, 0x00, 0x00, 1, 2, 3, 4, 5, 6];
        let h = Header::new_checked(&ack[..]).unwrap();
        assert_eq!(aad(&h), Err(Error::Unsupported));
        assert_eq!(nonce(&h, 0), Err(Error::Unsupported));
        let s = Ccmp128::new(&[0u8; 16]).unwrap();
        let mut buf = [0u8; 40];
        buf[..10].copy_from_slice(&ack);
        assert_eq!(
            s.protect_in_place(&mut buf, 10, 1, 0),
            Err(Error::Unsupported)
        );
    }

    #[test]
    fn key_lengths() {
        assert!(Ccmp128::new(&[0u8; 16]).is_ok());
        assert_eq!(
            Ccmp128::new(&[0u8; 32]).unwrap_err(),
            Error::InvalidParameter
        );
        assert!(Ccmp256::new(&[0u8; 32]).is_ok());
        assert_eq!(
            Ccmp256::new(&[0u8; 16]).unwrap_err(),
            Error::InvalidParameter
        );
        assert_eq!(
            Ccmp256::new(&[0u8; 24]).unwrap_err(),
            Error::InvalidParameter
        );
    }

    #[test]
    fn aad2_masks_keep_the_fields_of_12_5_3_3_3() {
        // No A4, no QoS: the end of A3 and the fragment number only.
        let m = AAD2_MASK[0].to_le_bytes();
        assert_eq!(
            m,
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        );
        // QoS without A4: the TID right after Sequence Control.
        assert_eq!(AAD2_MASK[1].to_le_bytes()[8], 0x0f);
        assert_eq!(AAD2_MASK[1].to_le_bytes()[9..], [0; 7]);
        // A4 with QoS: A4, then the TID.
        let m = AAD2_MASK[3].to_le_bytes();
        assert_eq!(m[8..14], [0xff; 6]);
        assert_eq!(m[14..], [0x0f, 0]);
    }

    proptest::proptest! {
        /// The word-built AAD and nonces of the protect and unprotect
        /// paths against the field-by-field builders ([`aad`], [`nonce`],
        /// [`crate::gcmp::nonce`]): every data and management header
        /// layout (A4, QoS, +HTC, Order, every flag), frames shorter and
        /// longer than 32 octets, any PN.
        #[test]
        fn word_built_aad_and_nonces_match_the_field_builders(
            fc_bits in proptest::prelude::any::<u16>(),
            rest in proptest::collection::vec(proptest::prelude::any::<u8>(), 38),
            body in 0usize..12,
            pn in 0u64..=PN_MAX,
        ) {
            // Protocol version 0, type 00 (management) or 10 (data).
            let fc = FrameControl(fc_bits & !0x0007);
            let mut frame = std::vec::Vec::from(fc.to_bytes());
            frame.extend_from_slice(&rest);
            let Ok(h) = Header::new_checked(&frame[..]) else {
                return Ok(());
            };
            let hlen = h.header_len();
            frame.truncate(hlen + body);
            let h = Header::new_checked(&frame[..]).unwrap();
            proptest::prop_assert!(fc.is_data() || fc.is_mgmt());
            let (h0, h1) = header_words(&frame);
            let ours = aad_from_words(fc, h0, h1);
            proptest::prop_assert_eq!(ours, aad(&h).unwrap());
            proptest::prop_assert_eq!(
                <Ccmp128 as MpduAead>::nonce_from(fc, h0, h1, pn),
                nonce(&h, pn).unwrap()
            );
            proptest::prop_assert_eq!(
                <crate::gcmp::Gcmp128 as MpduAead>::nonce_from(fc, h0, h1, pn),
                crate::gcmp::nonce(&h, pn).unwrap()
            );
        }
    }
}
