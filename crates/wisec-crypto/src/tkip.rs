//! TKIP, the Temporal Key Integrity Protocol (IEEE Std 802.11-2020,
//! 12.5.2): WEP's RC4 and ICV with a per-frame RC4 key from two-phase key
//! mixing (12.5.2.5), a 48-bit TKIP sequence counter (TSC) in an extended
//! IV header (12.5.2.2), and the Michael MIC over the MSDU (12.5.2.3).
//!
//! TKIP is deprecated and weak (Michael can be forged with about 2^20
//! work; Beck–Tews and Ohigashi–Morii attacks recover keystream); it exists
//! here to read old captures and to measure old networks. The type is named
//! [`DangerTkip`] so nobody picks it by accident.
//!
//! # Keys and directions
//!
//! [`DangerTkip::new`] takes the 32-byte TKIP temporal key: octets 0..16
//! are the encryption key, 16..24 the Michael key for frames sent by the
//! Authenticator, 24..32 the Michael key for frames sent by the Supplicant
//! (12.7.1.3, 12.8). By default ([`MichaelKeySelect::ByFrame`]) the Michael
//! key is chosen per frame from its header: From DS set (and To DS clear) or
//! a group-addressed Address 1 means "from the Authenticator", To DS set
//! (and From DS clear) means "from the Supplicant". Other individually
//! addressed frames (IBSS, four-address frames) have no direction in their
//! header; give one with [`DangerTkip::with_key_select`].
//!
//! # Fragmentation
//!
//! The Michael MIC covers the whole MSDU and is sent in its last fragment.
//! [`FrameProtector::protect_in_place`] and
//! [`FrameProtector::unprotect_in_place`] handle unfragmented MSDUs only: an
//! MPDU with More Fragments set or a non-zero fragment number gets
//! [`Error::Unsupported`]. Callers that fragment or reassemble use the
//! MPDU layer ([`DangerTkip::protect_mpdu_in_place`],
//! [`DangerTkip::unprotect_mpdu_in_place`], which apply key mixing, RC4 and
//! the ICV but no MIC) and the MSDU layer ([`DangerTkip::msdu_mic`],
//! [`DangerTkip::verify_msdu_mic`]).
//!
//! # Michael failures
//!
//! [`FrameProtector::unprotect_in_place`] returns [`Error::Integrity`] when
//! either the ICV or the Michael MIC fails. The countermeasures of 12.5.2.4
//! need to know which: [`DangerTkip::unprotect_in_place_detailed`] returns
//! [`TkipRxError::MichaelFailure`] for a frame whose ICV verified but whose
//! MIC did not. Check the TSC for replay *before* counting a Michael
//! failure (12.5.2.4.4): a replayed frame is discarded without a MIC check.

use crate::crc32::Crc32;
use crate::michael::{self, Michael};
use crate::rc4::Rc4;
use crate::wep::{mpdu_layout, open_with_icv, seal_with_icv, wipe_on_error, write_fc, ICV_LEN};
use crate::{ct_eq, Error, FrameProtector, Overhead, Result, Unprotected};
use core::sync::atomic::{fence, AtomicU32, Ordering};
use wisec_wire::mac_header::Header;
use wisec_wire::security::{TkipHeader, PN_MAX, TKIP_HEADER_LEN};
use wisec_wire::MacAddr;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Length of the TKIP temporal key (encryption key and two Michael keys).
pub const TK_LEN: usize = 32;
/// Length of the Michael MIC.
pub const MIC_LEN: usize = michael::MIC_LEN;

// ---------------------------------------------------------------------------
// Key mixing (12.5.2.5).

/// Multiplication by x in GF(2^8) with the AES polynomial x^8+x^4+x^3+x+1.
const fn xtime(a: u8) -> u8 {
    (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 }
}

const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        a = xtime(a);
        b >>= 1;
    }
    p
}

/// The AES S-box value of `x` (FIPS 197, 5.1.1): the multiplicative
/// inverse in GF(2^8) (0 for 0) followed by the affine transformation.
const fn aes_sbox(x: u8) -> u8 {
    // x^254 is the inverse of x (and maps 0 to 0).
    let mut inv = 1u8;
    let mut k = 0;
    while k < 254 {
        inv = gf_mul(inv, x);
        k += 1;
    }
    inv ^ inv.rotate_left(1) ^ inv.rotate_left(2) ^ inv.rotate_left(3) ^ inv.rotate_left(4) ^ 0x63
}

/// The first half of the TKIP S-box table (12.5.2.5.1): each entry is the
/// AES S-box output times 2 (high octet) and times 3 (low octet) in
/// GF(2^8), i.e. the first column of AES's MixColumns applied to it. The
/// second half of the standard's table is this one with its octets swapped.
const fn make_tkip_sbox() -> [u16; 256] {
    let mut t = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        let s = aes_sbox(i as u8);
        t[i] = ((xtime(s) as u16) << 8) | (xtime(s) ^ s) as u16;
        i += 1;
    }
    t
}

static TKIP_SBOX: [u16; 256] = make_tkip_sbox();

/// The second half of the standard's table: [`TKIP_SBOX`] with the
/// octets of every entry swapped (one operation fewer in the chain of
/// key mixing than swapping at each use).
static TKIP_SBOX_HI: [u16; 256] = {
    let lo = make_tkip_sbox();
    let mut t = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = lo[i].swap_bytes();
        i += 1;
    }
    t
};

/// The 16-bit S-box `S[x] = Sbox[0][Lo8(x)] ^ Sbox[1][Hi8(x)]`.
#[inline]
fn s16(x: u16) -> u16 {
    TKIP_SBOX[usize::from(x & 0xff)] ^ TKIP_SBOX_HI[usize::from(x >> 8)]
}

#[inline]
fn mk16(hi: u8, lo: u8) -> u16 {
    u16::from_le_bytes([lo, hi])
}

/// Phase 1 key mixing (12.5.2.5.2): TTAK from the temporal key, the
/// transmitter address and the high 32 bits of the TSC.
pub fn phase1(tk: &[u8; 16], ta: &MacAddr, iv32: u32) -> [u16; 5] {
    let a = ta.as_bytes();
    let mut p = [
        iv32 as u16,
        (iv32 >> 16) as u16,
        mk16(a[1], a[0]),
        mk16(a[3], a[2]),
        mk16(a[5], a[4]),
    ];
    for i in 0..8u16 {
        let j = 2 * usize::from(i & 1);
        p[0] = p[0].wrapping_add(s16(p[4] ^ mk16(tk[1 + j], tk[j])));
        p[1] = p[1].wrapping_add(s16(p[0] ^ mk16(tk[5 + j], tk[4 + j])));
        p[2] = p[2].wrapping_add(s16(p[1] ^ mk16(tk[9 + j], tk[8 + j])));
        p[3] = p[3].wrapping_add(s16(p[2] ^ mk16(tk[13 + j], tk[12 + j])));
        p[4] = p[4]
            .wrapping_add(s16(p[3] ^ mk16(tk[1 + j], tk[j])))
            .wrapping_add(i);
    }
    p
}

/// Phase 2 key mixing (12.5.2.5.3): the 16-octet RC4 key ("WEP seed") for
/// one MPDU from the TTAK and the low 16 bits of the TSC.
pub fn phase2(tk: &[u8; 16], ttak: &[u16; 5], iv16: u16) -> [u8; 16] {
    let mut ppk = [ttak[0], ttak[1], ttak[2], ttak[3], ttak[4], 0u16];
    ppk[5] = ttak[4].wrapping_add(iv16);
    ppk[0] = ppk[0].wrapping_add(s16(ppk[5] ^ mk16(tk[1], tk[0])));
    ppk[1] = ppk[1].wrapping_add(s16(ppk[0] ^ mk16(tk[3], tk[2])));
    ppk[2] = ppk[2].wrapping_add(s16(ppk[1] ^ mk16(tk[5], tk[4])));
    ppk[3] = ppk[3].wrapping_add(s16(ppk[2] ^ mk16(tk[7], tk[6])));
    ppk[4] = ppk[4].wrapping_add(s16(ppk[3] ^ mk16(tk[9], tk[8])));
    ppk[5] = ppk[5].wrapping_add(s16(ppk[4] ^ mk16(tk[11], tk[10])));
    ppk[0] = ppk[0].wrapping_add((ppk[5] ^ mk16(tk[13], tk[12])).rotate_right(1));
    ppk[1] = ppk[1].wrapping_add((ppk[0] ^ mk16(tk[15], tk[14])).rotate_right(1));
    ppk[2] = ppk[2].wrapping_add(ppk[1].rotate_right(1));
    ppk[3] = ppk[3].wrapping_add(ppk[2].rotate_right(1));
    ppk[4] = ppk[4].wrapping_add(ppk[3].rotate_right(1));
    ppk[5] = ppk[5].wrapping_add(ppk[4].rotate_right(1));
    let [iv_lo, iv_hi] = iv16.to_le_bytes();
    let mut seed = [0u8; 16];
    seed[0] = iv_hi;
    seed[1] = (iv_hi | 0x20) & 0x7f;
    seed[2] = iv_lo;
    seed[3] = ((ppk[5] ^ mk16(tk[1], tk[0])) >> 1) as u8;
    for (i, w) in ppk.iter().enumerate() {
        seed[4 + 2 * i..6 + 2 * i].copy_from_slice(&w.to_le_bytes());
    }
    ppk.zeroize();
    seed
}

// ---------------------------------------------------------------------------
// Directions.

/// Which of the two Michael keys of a temporal key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MichaelKey {
    /// Octets 16..24: frames sent by the Authenticator (the AP in an
    /// infrastructure BSS; every group-addressed frame).
    FromAuthenticator,
    /// Octets 24..32: frames sent by the Supplicant.
    FromSupplicant,
}

/// The role of this end of a link, for [`MichaelKeySelect::Local`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// This station is the Authenticator of the PTKSA.
    Authenticator,
    /// This station is the Supplicant of the PTKSA.
    Supplicant,
}

/// How a [`DangerTkip`] picks the Michael key of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MichaelKeySelect {
    /// From the frame header (infrastructure BSS, passive decryption):
    /// From DS only or a group Address 1 is from the Authenticator, To DS
    /// only is from the Supplicant; anything else is
    /// [`Error::Unsupported`].
    #[default]
    ByFrame,
    /// Always this key, whatever the frame says.
    Fixed(MichaelKey),
    /// This station has this role on the link (an IBSS pair, a mesh link):
    /// protected frames use its own key, unprotected ones its peer's.
    Local(Role),
}

// ---------------------------------------------------------------------------
// The phase-1 cache.

/// The last TTAK computed with a key, for the transmitter address and
/// IV32 it was computed for. Phase 1 depends only on TK, TA and the high
/// 32 bits of the TSC, so its output serves 65,536 consecutive MPDUs
/// (12.5.2.5: "the phase 1 output can be cached"). A sequence lock makes
/// it safe to share between threads that use the same key (`&self`): a
/// reader that races a writer misses and computes phase 1 itself; of two
/// writers one stores and the other leaves the cache as it is. Wiped by
/// [`Zeroize`] and when dropped.
struct Phase1Cache {
    /// Even: stable; odd: a write in progress; 0: empty.
    seq: AtomicU32,
    /// IV32; TA octets 0..4; TA octets 4..6 and TTAK0; TTAK1 and TTAK2;
    /// TTAK3 and TTAK4.
    words: [AtomicU32; 5],
}

impl Phase1Cache {
    const fn new() -> Phase1Cache {
        Phase1Cache {
            seq: AtomicU32::new(0),
            words: [const { AtomicU32::new(0) }; 5],
        }
    }

    fn tag(ta: &MacAddr, iv32: u32) -> [u32; 3] {
        let a = ta.as_bytes();
        [
            iv32,
            u32::from_le_bytes([a[0], a[1], a[2], a[3]]),
            u32::from(u16::from_le_bytes([a[4], a[5]])),
        ]
    }

    /// The cached TTAK for `ta` and `iv32`, if the cache holds it.
    fn get(&self, ta: &MacAddr, iv32: u32) -> Option<[u16; 5]> {
        let s1 = self.seq.load(Ordering::Acquire);
        if s1 == 0 || s1 & 1 == 1 {
            return None;
        }
        let mut w: [u32; 5] = core::array::from_fn(|i| self.words[i].load(Ordering::Relaxed));
        fence(Ordering::Acquire);
        let [iv, a0, a1] = Self::tag(ta, iv32);
        // Not secret: the tag is the TSC and an address, both on the air.
        let hit = self.seq.load(Ordering::Relaxed) == s1
            && w[0] == iv
            && w[1] == a0
            && w[2] & 0xffff == a1;
        let ttak = hit.then(|| {
            [
                (w[2] >> 16) as u16,
                w[3] as u16,
                (w[3] >> 16) as u16,
                w[4] as u16,
                (w[4] >> 16) as u16,
            ]
        });
        w.zeroize();
        ttak
    }

    /// Stores `ttak` for `ta` and `iv32`, unless another thread is storing.
    fn put(&self, ta: &MacAddr, iv32: u32, ttak: &[u16; 5]) {
        let s = self.seq.load(Ordering::Relaxed);
        if s & 1 == 1
            || self
                .seq
                .compare_exchange(s, s | 1, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        fence(Ordering::Release);
        let [iv, a0, a1] = Self::tag(ta, iv32);
        let t = |i: usize| u32::from(ttak[i]);
        let mut w = [
            iv,
            a0,
            a1 | t(0) << 16,
            t(1) | t(2) << 16,
            t(3) | t(4) << 16,
        ];
        for (slot, v) in self.words.iter().zip(w) {
            slot.store(v, Ordering::Relaxed);
        }
        w.zeroize();
        // Even again, never 0 (0 means empty).
        let next = match (s | 1).wrapping_add(1) {
            0 => 2,
            n => n,
        };
        self.seq.store(next, Ordering::Release);
    }
}

impl Zeroize for Phase1Cache {
    fn zeroize(&mut self) {
        self.seq.get_mut().zeroize();
        for w in &mut self.words {
            w.get_mut().zeroize();
        }
    }
}

impl Drop for Phase1Cache {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl Clone for Phase1Cache {
    /// An empty cache: the copy computes its own.
    fn clone(&self) -> Phase1Cache {
        Phase1Cache::new()
    }
}

// ---------------------------------------------------------------------------
// The suite.

/// A TKIP temporal key. Insecure: see the module documentation.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct DangerTkip {
    tk: [u8; 16],
    mic_from_authenticator: [u8; 8],
    mic_from_supplicant: [u8; 8],
    #[zeroize(skip)]
    select: MichaelKeySelect,
    ttak: Phase1Cache,
}

impl core::fmt::Debug for DangerTkip {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "DangerTkip {{ select: {:?}, .. }}", self.select)
    }
}

/// Why [`DangerTkip::unprotect_in_place_detailed`] rejected a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TkipRxError {
    /// The frame was malformed, unsupported, or its ICV failed.
    Rejected(Error),
    /// The ICV verified but the Michael MIC did not: a countermeasure
    /// event (12.5.2.4) once the TSC has been checked for replay.
    MichaelFailure {
        /// The TSC of the frame.
        tsc: u64,
        /// Its Key ID.
        key_id: u8,
    },
}

impl From<Error> for TkipRxError {
    fn from(e: Error) -> TkipRxError {
        TkipRxError::Rejected(e)
    }
}

impl From<TkipRxError> for Error {
    fn from(e: TkipRxError) -> Error {
        match e {
            TkipRxError::Rejected(e) => e,
            TkipRxError::MichaelFailure { .. } => Error::Integrity,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    Tx,
    Rx,
}

/// What the MPDU layer learnt about a frame.
struct Mpdu {
    hl: usize,
    tsc: u64,
    key_id: u8,
}

/// What the checks of a TKIP MPDU to unprotect found: its header length
/// and TKIP header, the transmitter, and the RC4 and Michael states that
/// open it.
struct RxStart {
    hl: usize,
    th: TkipHeader,
    ta: MacAddr,
    rc4: Rc4,
    mic: Michael,
}

impl DangerTkip {
    /// The 32-byte TKIP temporal key; other lengths are
    /// [`Error::InvalidParameter`]. Michael keys are chosen
    /// [`MichaelKeySelect::ByFrame`].
    pub fn new(tk: &[u8]) -> Result<DangerTkip> {
        let tk: &[u8; TK_LEN] = tk.try_into().map_err(|_| Error::InvalidParameter)?;
        let mut t = [0u8; 16];
        let mut a = [0u8; 8];
        let mut s = [0u8; 8];
        t.copy_from_slice(&tk[..16]);
        a.copy_from_slice(&tk[16..24]);
        s.copy_from_slice(&tk[24..32]);
        Ok(DangerTkip {
            tk: t,
            mic_from_authenticator: a,
            mic_from_supplicant: s,
            select: MichaelKeySelect::ByFrame,
            ttak: Phase1Cache::new(),
        })
    }

    /// The same key with another Michael key selection (IBSS, mesh).
    pub fn with_key_select(mut self, select: MichaelKeySelect) -> DangerTkip {
        self.select = select;
        self
    }

    /// The current Michael key selection.
    pub fn key_select(&self) -> MichaelKeySelect {
        self.select
    }

    fn michael_key(&self, which: MichaelKey) -> &[u8; 8] {
        match which {
            MichaelKey::FromAuthenticator => &self.mic_from_authenticator,
            MichaelKey::FromSupplicant => &self.mic_from_supplicant,
        }
    }

    /// The Michael key for a frame with this header, sent (`Tx`) or
    /// received (`Rx`) by this station.
    fn select_key<T: AsRef<[u8]>>(&self, h: &Header<T>, dir: Dir) -> Result<MichaelKey> {
        match self.select {
            MichaelKeySelect::Fixed(k) => Ok(k),
            MichaelKeySelect::Local(role) => Ok(match (role, dir) {
                (Role::Authenticator, Dir::Tx) | (Role::Supplicant, Dir::Rx) => {
                    MichaelKey::FromAuthenticator
                }
                _ => MichaelKey::FromSupplicant,
            }),
            MichaelKeySelect::ByFrame => {
                let fc = h.frame_control();
                match (fc.to_ds(), fc.from_ds()) {
                    (false, true) => Ok(MichaelKey::FromAuthenticator),
                    (true, false) => Ok(MichaelKey::FromSupplicant),
                    _ if h.addr1().is_group() => Ok(MichaelKey::FromAuthenticator),
                    _ => Err(Error::Unsupported),
                }
            }
        }
    }

    /// The Michael MIC of an MSDU (12.5.2.3.3): Michael over
    /// DA || SA || priority || 0 0 0 || MSDU with the chosen key. Callers
    /// that fragment append it to the MSDU before fragmenting.
    pub fn msdu_mic(
        &self,
        key: MichaelKey,
        da: &MacAddr,
        sa: &MacAddr,
        priority: u8,
        msdu: &[u8],
    ) -> [u8; MIC_LEN] {
        michael::michael_mic(self.michael_key(key), da, sa, priority, msdu)
    }

    /// Checks the MIC at the end of a reassembled `msdu_and_mic` (MSDU
    /// followed by its 8-octet MIC) in constant time. A failure is a
    /// Michael failure for the countermeasures of 12.5.2.4.
    pub fn verify_msdu_mic(
        &self,
        key: MichaelKey,
        da: &MacAddr,
        sa: &MacAddr,
        priority: u8,
        msdu_and_mic: &[u8],
    ) -> Result<()> {
        let split = msdu_and_mic
            .len()
            .checked_sub(MIC_LEN)
            .ok_or(Error::Malformed)?;
        let (msdu, mic) = msdu_and_mic.split_at(split);
        let want = self.msdu_mic(key, da, sa, priority, msdu);
        if ct_eq(&want, mic) {
            Ok(())
        } else {
            Err(Error::Integrity)
        }
    }

    /// The RC4 state for an MPDU with transmitter address `ta` and `tsc`.
    fn cipher(&self, ta: &MacAddr, tsc: u64) -> Result<Rc4> {
        let iv32 = (tsc >> 16) as u32;
        let mut ttak = match self.ttak.get(ta, iv32) {
            Some(t) => t,
            None => {
                let t = phase1(&self.tk, ta, iv32);
                self.ttak.put(ta, iv32, &t);
                t
            }
        };
        let mut seed = phase2(&self.tk, &ttak, tsc as u16);
        let r = Rc4::new(&seed);
        seed.zeroize();
        ttak.zeroize();
        r
    }

    /// Checks an MPDU to protect and returns its header length.
    fn check_tx(buf: &[u8], len: usize, tsc: u64, key_id: u8) -> Result<usize> {
        if tsc > PN_MAX || key_id > 3 {
            return Err(Error::InvalidParameter);
        }
        let frame = buf.get(..len).ok_or(Error::BufferTooSmall)?;
        let (fc, hl) = mpdu_layout(frame)?;
        if !fc.is_data() {
            return Err(Error::Unsupported);
        }
        Ok(hl)
    }

    /// Protects one MPDU (a whole MSDU or one fragment of it) without
    /// adding a MIC: TKIP header with `tsc` and `key_id`, RC4 with the
    /// mixed key, encrypted ICV (12.5.2.2). The frame body must already
    /// carry the MIC if this is the last fragment. `buf` needs room for
    /// `len + 12` bytes. Returns the new length.
    pub fn protect_mpdu_in_place(
        &self,
        buf: &mut [u8],
        len: usize,
        tsc: u64,
        key_id: u8,
    ) -> Result<usize> {
        let hl = Self::check_tx(buf, len, tsc, key_id)?;
        self.seal(buf, len, hl, tsc, key_id)
    }

    /// Writes the TKIP header (12.5.2.2) and sets the Protected Frame bit.
    fn finish_tx(&self, out: &mut [u8], hl: usize, tsc: u64, key_id: u8) -> Result<()> {
        TkipHeader { tsc, key_id }.emit(&mut out[hl..])?;
        let (mut fc, _) = mpdu_layout(out)?;
        fc.set_protected(true);
        write_fc(out, fc);
        Ok(())
    }

    fn seal(&self, buf: &mut [u8], len: usize, hl: usize, tsc: u64, key_id: u8) -> Result<usize> {
        let total = len + TKIP_HEADER_LEN + ICV_LEN;
        let out = buf.get_mut(..total).ok_or(Error::BufferTooSmall)?;
        let ta = Header::new_unchecked(&*out)
            .addr2()
            .ok_or(Error::Malformed)?;
        let rc4 = self.cipher(&ta, tsc)?;
        out.copy_within(hl..len, hl + TKIP_HEADER_LEN);
        TkipHeader { tsc, key_id }.emit(&mut out[hl..])?;
        seal_with_icv(rc4, &mut out[hl + TKIP_HEADER_LEN..])?;
        let (mut fc, _) = mpdu_layout(out)?;
        fc.set_protected(true);
        write_fc(out, fc);
        Ok(total)
    }

    /// Decrypts one MPDU in place and checks its ICV, leaving the
    /// plaintext between the TKIP header and the ICV. On failure the
    /// ciphertext is restored.
    fn open(&self, buf: &mut [u8]) -> Result<Mpdu> {
        let (fc, hl) = mpdu_layout(buf)?;
        if !fc.is_data() {
            return Err(Error::Unsupported);
        }
        if !fc.protected() {
            return Err(Error::Malformed);
        }
        if buf.len() < hl + TKIP_HEADER_LEN + ICV_LEN {
            return Err(Error::Malformed);
        }
        let h = TkipHeader::parse(&buf[hl..])?;
        let ta = Header::new_unchecked(&*buf)
            .addr2()
            .ok_or(Error::Malformed)?;
        let rc4 = self.cipher(&ta, h.tsc)?;
        open_with_icv(&rc4, &mut buf[hl + TKIP_HEADER_LEN..])?;
        Ok(Mpdu {
            hl,
            tsc: h.tsc,
            key_id: h.key_id,
        })
    }

    /// Removes the TKIP header and `trailer` bytes after a successful
    /// check, clears the Protected Frame bit and wipes the freed tail.
    fn strip(buf: &mut [u8], hl: usize, trailer: usize) -> usize {
        let n = buf.len();
        let body_end = n - trailer;
        buf.copy_within(hl + TKIP_HEADER_LEN..body_end, hl);
        let new_len = body_end - TKIP_HEADER_LEN;
        Self::end_plaintext(buf, new_len);
        new_len
    }

    /// Ends a plaintext MPDU of `len` octets at the start of `buf`: wipes
    /// what follows it and clears the Protected Frame bit.
    fn end_plaintext(buf: &mut [u8], len: usize) {
        buf[len..].zeroize();
        if let Ok((mut fc, _)) = mpdu_layout(buf) {
            fc.set_protected(false);
            write_fc(buf, fc);
        }
    }

    /// Unprotects one MPDU (a whole MSDU or a fragment) checking only the
    /// ICV: no Michael MIC is checked or removed. The caller reassembles
    /// the fragments and checks the MIC with [`DangerTkip::verify_msdu_mic`].
    /// On failure `buf` holds the frame as it was given.
    pub fn unprotect_mpdu_in_place(&self, buf: &mut [u8]) -> Result<Unprotected> {
        let m = self.open(buf)?;
        let len = Self::strip(buf, m.hl, ICV_LEN);
        Ok(Unprotected::new(len, m.tsc, m.key_id))
    }

    fn reject_fragments(h: &Header<&[u8]>) -> Result<()> {
        let frag = h.fragment_number().unwrap_or(0);
        if h.frame_control().more_fragments() || frag != 0 {
            return Err(Error::Unsupported);
        }
        Ok(())
    }

    /// Encrypts an MSDU in `region` (the MSDU, then 12 spare octets for
    /// its MIC and ICV) with Michael computed in the same pass as the RC4
    /// keystream: the two dependency chains run side by side (12.5.2.3,
    /// 12.5.2.2). `mic` has absorbed DA || SA || priority || 0 0 0.
    fn seal_msdu(mut rc4: Rc4, mut mic: Michael, region: &mut [u8]) -> Result<()> {
        let msdu_len = region
            .len()
            .checked_sub(MIC_LEN + ICV_LEN)
            .ok_or(Error::BufferTooSmall)?;
        let (msdu, tail) = region.split_at_mut(msdu_len);
        let mut crc = Crc32::new();
        crc.update(msdu);
        rc4.with_stream(|st| {
            let (words, rest) = msdu.as_chunks_mut::<4>();
            let lr = st.fold_then_xor(words, mic.state(), |(l, r), p| michael::absorb(l, r, p));
            mic.set_state(lr);
            mic.update(rest);
            for b in rest {
                *b ^= st.byte();
            }
            let mut m = mic.finalize();
            crc.update(&m);
            tail[..MIC_LEN].copy_from_slice(&m);
            tail[MIC_LEN..].copy_from_slice(&crc.to_le_bytes());
            for b in tail.iter_mut() {
                *b ^= st.byte();
            }
            m.zeroize();
        });
        Ok(())
    }

    /// Michael over DA || SA || priority || 0 0 0 (12.5.2.3.3, Figure
    /// 12-13), ready for the MSDU.
    fn michael_start(&self, key: MichaelKey, da: &MacAddr, sa: &MacAddr, tid: u8) -> Michael {
        Michael::with_header(self.michael_key(key), da, sa, tid)
    }

    /// Like [`FrameProtector::unprotect_in_place`], but tells a Michael
    /// failure (ICV good, MIC bad) apart from every other rejection. On
    /// failure `buf` holds the frame as it was given.
    pub fn unprotect_in_place_detailed(
        &self,
        buf: &mut [u8],
    ) -> core::result::Result<Unprotected, TkipRxError> {
        let rx = self.rx_start(buf)?;
        let (hl, th) = (rx.hl, rx.th);
        let region = &mut buf[hl + TKIP_HEADER_LEN..];
        let Some(msdu_len) = region.len().checked_sub(MIC_LEN + ICV_LEN) else {
            // Too short to carry a MIC: the ICV decides how it is refused.
            open_with_icv(&rx.rc4, region)?;
            rx.rc4.clone().apply_keystream(region);
            return Err(Self::rx_failure(true, &th));
        };
        let (icv_ok, mic_ok) = Self::open_msdu(rx.rc4, rx.mic, region, msdu_len);
        if !(icv_ok && mic_ok) {
            // Restore the ciphertext: no plaintext is left behind. The
            // keystream is derived again rather than kept in a copy of the
            // RC4 state on the path of every good frame.
            self.cipher(&rx.ta, th.tsc)?.apply_keystream(region);
            return Err(Self::rx_failure(icv_ok, &th));
        }
        let len = Self::strip(buf, hl, MIC_LEN + ICV_LEN);
        Ok(Unprotected::new(len, th.tsc, th.key_id))
    }

    /// The checks of an unfragmented TKIP MPDU to unprotect, in the order
    /// every unprotect path reports them, and what decrypting it takes.
    fn rx_start(&self, frame: &[u8]) -> core::result::Result<RxStart, TkipRxError> {
        let (fc, hl) = mpdu_layout(frame)?;
        let header = Header::new_checked(frame).map_err(Error::from)?;
        Self::reject_fragments(&header)?;
        let key = self.select_key(&header, Dir::Rx)?;
        if !fc.is_data() {
            return Err(Error::Unsupported.into());
        }
        if !fc.protected() {
            return Err(Error::Malformed.into());
        }
        if frame.len() < hl + TKIP_HEADER_LEN + ICV_LEN {
            return Err(Error::Malformed.into());
        }
        let th = TkipHeader::parse(&frame[hl..]).map_err(Error::from)?;
        let h = Header::new_unchecked(&frame[..hl]);
        let ta = h.addr2().ok_or(Error::Malformed)?;
        let (da, sa) = match (h.da(), h.sa()) {
            (Some(d), Some(s)) => (d, s),
            _ => (MacAddr::default(), MacAddr::default()),
        };
        let rc4 = self.cipher(&ta, th.tsc)?;
        let mic = self.michael_start(key, &da, &sa, h.tid());
        Ok(RxStart {
            hl,
            th,
            ta,
            rc4,
            mic,
        })
    }

    /// A frame whose ICV (`icv_ok`) or MIC failed: a bad ICV is not a
    /// Michael failure (12.5.2.4.4).
    fn rx_failure(icv_ok: bool, th: &TkipHeader) -> TkipRxError {
        if icv_ok {
            TkipRxError::MichaelFailure {
                tsc: th.tsc,
                key_id: th.key_id,
            }
        } else {
            Error::Integrity.into()
        }
    }

    /// Decrypts in place the MSDU, MIC and ICV in `region` (`msdu_len`
    /// octets of MSDU, then the MIC and the ICV) with Michael over the
    /// plaintext in the same pass, and checks the ICV and the MIC, both in
    /// constant time. Returns whether the ICV and the MIC verified; the
    /// caller removes the plaintext when either did not.
    fn open_msdu(
        mut rc4: Rc4,
        mut mic: Michael,
        region: &mut [u8],
        msdu_len: usize,
    ) -> (bool, bool) {
        // RC4 and Michael side by side, in one pass (the words through
        // the RC4 stream's own loop; see `seal_msdu`).
        rc4.with_stream(|st| {
            let (msdu, tail) = region.split_at_mut(msdu_len);
            let (words, rest) = msdu.as_chunks_mut::<4>();
            let lr = st.xor_then_fold(words, mic.state(), |(l, r), p| michael::absorb(l, r, p));
            mic.set_state(lr);
            for b in rest.iter_mut() {
                *b ^= st.byte();
            }
            mic.update(rest);
            for b in tail.iter_mut() {
                *b ^= st.byte();
            }
        });
        let mut crc = Crc32::new();
        crc.update(&region[..msdu_len + MIC_LEN]);
        let icv_ok = ct_eq(&crc.to_le_bytes(), &region[msdu_len + MIC_LEN..]);
        let mut want = mic.finalize();
        let mic_ok = ct_eq(&want, &region[msdu_len..msdu_len + MIC_LEN]);
        want.zeroize();
        (icv_ok, mic_ok)
    }

    /// The checks of protecting the unfragmented MSDU `frame` into `room`
    /// bytes: header length, and the Michael state and RC4 of the frame.
    fn tx_start(
        &self,
        frame: &[u8],
        room: usize,
        tsc: u64,
        key_id: u8,
    ) -> Result<(usize, Michael, Rc4)> {
        let hl = Self::check_tx(frame, frame.len(), tsc, key_id)?;
        if room < frame.len() + self.overhead().total() {
            return Err(Error::BufferTooSmall);
        }
        let h = Header::new_checked(frame)?;
        Self::reject_fragments(&h)?;
        let key = self.select_key(&h, Dir::Tx)?;
        let da = h.da().ok_or(Error::Malformed)?;
        let sa = h.sa().ok_or(Error::Malformed)?;
        let ta = h.addr2().ok_or(Error::Malformed)?;
        let mic = self.michael_start(key, &da, &sa, h.tid());
        Ok((hl, mic, self.cipher(&ta, tsc)?))
    }
}

/// A TKIP temporal key without its Michael MIC keys: the 16-octet
/// Temporal Encryption Key alone, as key tables of capture tools often
/// hold it. Frames can be decrypted and their ICV (a CRC, not a MIC)
/// checked, but their Michael MIC cannot: what this key unprotects is of
/// UNVERIFIED integrity. For reading old captures only.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct DangerTkipTkOnly {
    inner: DangerTkip,
}

impl core::fmt::Debug for DangerTkipTkOnly {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("DangerTkipTkOnly { .. }")
    }
}

impl DangerTkipTkOnly {
    /// The 16-octet Temporal Encryption Key (12.5.2.1); other lengths are
    /// [`Error::InvalidParameter`].
    pub fn new(tk: &[u8]) -> Result<DangerTkipTkOnly> {
        let tk: &[u8; 16] = tk.try_into().map_err(|_| Error::InvalidParameter)?;
        Ok(DangerTkipTkOnly {
            inner: DangerTkip {
                tk: *tk,
                mic_from_authenticator: [0; 8],
                mic_from_supplicant: [0; 8],
                select: MichaelKeySelect::ByFrame,
                ttak: Phase1Cache::new(),
            },
        })
    }

    /// Decrypts an unfragmented TKIP MPDU in place, checks its ICV
    /// (12.5.2.3) and removes the TKIP header, the 8-octet Michael MIC
    /// and the ICV, WITHOUT checking the MIC (its keys are unknown). The
    /// result proves the frame was encrypted with this key, not that it
    /// was not altered: the ICV is linear and can be fixed up by anyone
    /// who flips bits. On failure `buf` holds the frame as it was given.
    pub fn danger_unprotect_unverified_in_place(&self, buf: &mut [u8]) -> Result<Unprotected> {
        mpdu_layout(buf)?;
        DangerTkip::reject_fragments(&Header::new_checked(&*buf)?)?;
        let m = self.inner.open(buf)?;
        let n = buf.len();
        if n < m.hl + TKIP_HEADER_LEN + MIC_LEN + ICV_LEN {
            // No room for a MIC: not a TKIP MSDU. Restore the ciphertext.
            let ta = Header::new_unchecked(&*buf)
                .addr2()
                .ok_or(Error::Malformed)?;
            let mut rc4 = self.inner.cipher(&ta, m.tsc)?;
            rc4.apply_keystream(&mut buf[m.hl + TKIP_HEADER_LEN..]);
            return Err(Error::Integrity);
        }
        let len = DangerTkip::strip(buf, m.hl, MIC_LEN + ICV_LEN);
        Ok(Unprotected::new(len, m.tsc, m.key_id))
    }
}

impl FrameProtector for DangerTkip {
    fn overhead(&self) -> Overhead {
        Overhead {
            header: TKIP_HEADER_LEN,
            trailer: MIC_LEN + ICV_LEN,
        }
    }

    /// Protects an unfragmented data MPDU: Michael MIC over the MSDU, then
    /// [`DangerTkip::protect_mpdu_in_place`] (computed in one pass). `pn`
    /// is the 48-bit TSC, `key_id` 0..=3. Fragments are
    /// [`Error::Unsupported`].
    fn protect_in_place(&self, buf: &mut [u8], len: usize, pn: u64, key_id: u8) -> Result<usize> {
        let frame = buf.get(..len).ok_or(Error::BufferTooSmall)?;
        let (hl, mic, rc4) = self.tx_start(frame, buf.len(), pn, key_id)?;
        let total = len + self.overhead().total();
        buf.copy_within(hl..len, hl + TKIP_HEADER_LEN);
        Self::seal_msdu(rc4, mic, &mut buf[hl + TKIP_HEADER_LEN..total])?;
        self.finish_tx(buf, hl, pn, key_id)?;
        Ok(total)
    }

    /// As [`FrameProtector::protect_in_place`], with the plaintext read
    /// from `frame` into its place in `out`.
    fn protect(&self, frame: &[u8], pn: u64, key_id: u8, out: &mut [u8]) -> Result<usize> {
        let (hl, mic, rc4) = self.tx_start(frame, out.len(), pn, key_id)?;
        let total = frame.len() + self.overhead().total();
        out[..hl].copy_from_slice(&frame[..hl]);
        out[hl + TKIP_HEADER_LEN..hl + TKIP_HEADER_LEN + frame.len() - hl]
            .copy_from_slice(&frame[hl..]);
        Self::seal_msdu(rc4, mic, &mut out[hl + TKIP_HEADER_LEN..total])?;
        self.finish_tx(out, hl, pn, key_id)?;
        Ok(total)
    }

    fn unprotect_in_place(&self, buf: &mut [u8]) -> Result<Unprotected> {
        self.unprotect_in_place_detailed(buf).map_err(Error::from)
    }

    /// As [`FrameProtector::unprotect_in_place`], with the ciphertext
    /// copied from `frame` straight to the plaintext's place in `out` and
    /// decrypted there: no copy of the whole frame first, and no move of
    /// the plaintext over the TKIP header after. On failure `out` is
    /// wiped.
    fn unprotect(&self, frame: &[u8], out: &mut [u8]) -> Result<Unprotected> {
        wipe_on_error(out, frame.len(), |out| {
            let rx = self.rx_start(frame)?;
            let (hl, th) = (rx.hl, rx.th);
            let src = &frame[hl + TKIP_HEADER_LEN..];
            // The plaintext goes where the in-place form leaves it: after
            // the MAC header, the TKIP header removed.
            let region = &mut out[hl..hl + src.len()];
            region.copy_from_slice(src);
            let Some(msdu_len) = src.len().checked_sub(MIC_LEN + ICV_LEN) else {
                // Too short to carry a MIC, refused as in place (`out` is
                // wiped on the way out).
                open_with_icv(&rx.rc4, region)?;
                return Err(Self::rx_failure(true, &th).into());
            };
            let (icv_ok, mic_ok) = Self::open_msdu(rx.rc4, rx.mic, region, msdu_len);
            if !(icv_ok && mic_ok) {
                return Err(Self::rx_failure(icv_ok, &th).into());
            }
            out[..hl].copy_from_slice(&frame[..hl]);
            let len = hl + msdu_len;
            Self::end_plaintext(out, len);
            Ok(Unprotected::new(len, th.tsc, th.key_id))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tk_only_opens_what_the_full_key_sealed_and_says_nothing_of_the_mic() {
        let key: [u8; 32] = core::array::from_fn(|i| i as u8 + 1);
        let full = DangerTkip::new(&key).unwrap();
        let tk_only = DangerTkipTkOnly::new(&key[..16]).unwrap();
        // A data frame To DS (from the supplicant), LLC/SNAP and a body.
        let mut plain = [0u8; 24 + 20];
        plain[0] = 0x08;
        plain[1] = 0x01;
        plain[4..10].copy_from_slice(&[2, 0, 0, 0, 0, 0xaa]);
        plain[10..16].copy_from_slice(&[2, 0, 0, 0, 0, 1]);
        plain[16..22].copy_from_slice(&[2, 0, 0, 0, 0, 0xaa]);
        plain[24..].copy_from_slice(b"\xaa\xaa\x03\0\0\0\x08\x00hello tkip!!");
        let mut buf = [0u8; 24 + 20 + 20];
        buf[..plain.len()].copy_from_slice(&plain);
        let n = full
            .protect_in_place(&mut buf, plain.len(), 0x1234, 1)
            .unwrap();
        let sealed = buf[..n].to_vec();
        let mut b = sealed.clone();
        let u = tk_only
            .danger_unprotect_unverified_in_place(&mut b)
            .unwrap();
        assert_eq!(&b[..u.len()][2..], &plain[2..]);
        assert_eq!(b[1] & 0x40, 0);
        assert_eq!(u.pn(), 0x1234);
        // A flipped ciphertext octet fails the ICV; the frame is restored.
        let mut b = sealed.clone();
        b[24 + 8 + 3] ^= 0x10;
        let before = b.clone();
        assert!(tk_only
            .danger_unprotect_unverified_in_place(&mut b)
            .is_err());
        assert_eq!(b, before);
        // Another TK fails too.
        let other = DangerTkipTkOnly::new(&[9; 16]).unwrap();
        let mut b = sealed.clone();
        assert!(other.danger_unprotect_unverified_in_place(&mut b).is_err());
        assert!(DangerTkipTkOnly::new(&key).is_err());
    }

    #[test]
    fn sbox_is_the_aes_sbox() {
        // FIPS 197 Figure 7: S(0x00) = 0x63, S(0x01) = 0x7c, S(0x53) = 0xed,
        // S(0xff) = 0x16.
        assert_eq!(aes_sbox(0x00), 0x63);
        assert_eq!(aes_sbox(0x01), 0x7c);
        assert_eq!(aes_sbox(0x53), 0xed);
        assert_eq!(aes_sbox(0xff), 0x16);
        // The first entries of the 802.11 TKIP S-box table: C6A5, F884.
        assert_eq!(TKIP_SBOX[0], 0xc6a5);
        assert_eq!(TKIP_SBOX[1], 0xf884);
        // A bijection, as an S-box must be.
        let mut seen = [false; 256];
        for x in 0..=255u8 {
            seen[usize::from(aes_sbox(x))] = true;
        }
        assert!(seen.iter().all(|&b| b));
    }
}
