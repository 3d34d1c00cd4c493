//! Multi-frame CCMP: many MPDUs of one temporal key protected or
//! unprotected together, with output bit-identical to
//! [`FrameProtector`](crate::FrameProtector) one frame at a time.
//!
//! One CBC-MAC chain is bound by the latency of the AES round instruction:
//! every block waits for the previous one. The frames of one link share a
//! key, so the chains of many frames can go through the AES unit side by
//! side, each MIC still computed exactly as IEEE Std 802.11-2020, 12.5.3
//! specifies (unlike the 2-way interleaved MAC of seed 002, which changes
//! the MIC). Per step, every lane (one frame) absorbs one body block into
//! its MAC chain and encrypts its next counter block; lanes whose frame
//! ends are refilled from the queue, so frames of any mix of lengths keep
//! the pipeline full.
//!
//! The code path is chosen at run time ([`Path::best`]): VAES with
//! AVX-512 (4 blocks per instruction, 16 frames in flight), VAES with
//! AVX2, AES-NI, or the portable path on the RustCrypto `aes` cipher,
//! which also runs on other architectures.
//!
//! ```
//! use wisec_crypto::batch::{FrameBuf, Status};
//! use wisec_crypto::ccmp::Ccmp128;
//! # let key = [7u8; 16];
//! # let mut a = [0u8; 24 + 100 + 16];
//! # a[0] = 0x08; // data frame
//! # let mut b = a;
//! let ccmp = Ccmp128::new(&key)?;
//! let mut frames = [
//!     FrameBuf::to_protect(&mut a, 24 + 100, 1, 0),
//!     FrameBuf::to_protect(&mut b, 24 + 100, 2, 0),
//! ];
//! assert_eq!(ccmp.protect_batch(&mut frames), 2);
//! assert_eq!(frames[0].status(), Status::Protected(24 + 8 + 100 + 8));
//! // The same buffers unprotect again.
//! assert_eq!(ccmp.unprotect_batch(&mut frames), 2);
//! assert_eq!(frames[1].frame().len(), 24 + 100);
//! # Ok::<(), wisec_crypto::Error>(())
//! ```

use wisec_wire::mac_header::Header;
use wisec_wire::security::{CcmpHeader, CCMP_HEADER_LEN, PN_MAX};
use wisec_wire::FrameControl;
use zeroize::Zeroize;

use crate::ccm::{self, Ccm};
use crate::ccmp::{self, Ccmp128, Ccmp256, CCM_L, NONCE_LEN};
use crate::simd::{self, Chunk, Engine, Lanes, RoundKeys, CHUNK};
use crate::{ct_eq, Error, Result, Unprotected};

/// A code path of the batch engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Path {
    /// RustCrypto `aes` block cipher (its own backend choice), on any
    /// target.
    Portable,
    /// AES-NI on 128-bit registers (x86-64).
    AesNi,
    /// VAES + AVX2 on 256-bit registers (x86-64).
    Avx2,
    /// VAES + AVX-512 on 512-bit registers (x86-64).
    Avx512,
}

impl Path {
    /// Every path, fastest last.
    pub const ALL: [Path; 4] = [Path::Portable, Path::AesNi, Path::Avx2, Path::Avx512];

    /// True when this CPU can run the path (detected once, then cached).
    pub fn is_available(self) -> bool {
        simd::available(self)
    }

    /// The fastest path this CPU runs.
    pub fn best() -> Path {
        Path::ALL
            .iter()
            .rev()
            .copied()
            .find(|p| p.is_available())
            .unwrap_or(Path::Portable)
    }

    /// A short name (`portable`, `aesni`, `avx2`, `avx512`).
    pub const fn name(self) -> &'static str {
        match self {
            Path::Portable => "portable",
            Path::AesNi => "aesni",
            Path::Avx2 => "avx2",
            Path::Avx512 => "avx512",
        }
    }
}

/// The outcome of one frame of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Not processed by a batch call yet.
    Pending,
    /// Protected; the MPDU is now this many bytes.
    Protected(usize),
    /// The MIC verified; the frame is decrypted.
    Unprotected(Unprotected),
    /// Failed with the error the single-frame path returns; the buffer is
    /// as it was given.
    Failed(Error),
}

/// One MPDU of a batch: a buffer, the length of the MPDU in it, and the PN
/// and key ID to protect it with. After a batch call it carries the
/// frame's [`Status`] and the MPDU's new length.
#[derive(Debug)]
pub struct FrameBuf<'a> {
    buf: &'a mut [u8],
    len: usize,
    pn: u64,
    key_id: u8,
    status: Status,
}

impl<'a> FrameBuf<'a> {
    /// A plaintext MPDU `buf[..len]` to protect with `pn` and `key_id`;
    /// `buf` needs room for the 16 (CCMP-128) or 24 (CCMP-256) bytes the
    /// suite adds.
    pub fn to_protect(buf: &'a mut [u8], len: usize, pn: u64, key_id: u8) -> FrameBuf<'a> {
        FrameBuf {
            buf,
            len,
            pn,
            key_id,
            status: Status::Pending,
        }
    }

    /// A protected MPDU filling all of `buf`, to unprotect.
    pub fn to_unprotect(buf: &'a mut [u8]) -> FrameBuf<'a> {
        let len = buf.len();
        FrameBuf {
            buf,
            len,
            pn: 0,
            key_id: 0,
            status: Status::Pending,
        }
    }

    /// The outcome of the last batch call.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The last protect result as [`FrameProtector::protect_in_place`]
    /// returns it (`Pending` reads as [`Error::InvalidParameter`]).
    ///
    /// [`FrameProtector::protect_in_place`]: crate::FrameProtector::protect_in_place
    pub fn protected_len(&self) -> Result<usize> {
        match self.status {
            Status::Protected(n) => Ok(n),
            Status::Failed(e) => Err(e),
            _ => Err(Error::InvalidParameter),
        }
    }

    /// The last unprotect result as
    /// [`FrameProtector::unprotect_in_place`] returns it (`Pending` reads
    /// as [`Error::InvalidParameter`]).
    ///
    /// [`FrameProtector::unprotect_in_place`]: crate::FrameProtector::unprotect_in_place
    pub fn unprotected(&self) -> Result<Unprotected> {
        match self.status {
            Status::Unprotected(u) => Ok(u),
            Status::Failed(e) => Err(e),
            _ => Err(Error::InvalidParameter),
        }
    }

    /// The MPDU: `buf[..len]` (after a successful call, the protected or
    /// the plaintext frame).
    pub fn frame(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    /// The whole buffer.
    pub fn buffer(&self) -> &[u8] {
        self.buf
    }

    /// Length of the MPDU in the buffer.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an empty MPDU.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The PN: the one to protect with, or the received one after a
    /// successful unprotect.
    pub fn pn(&self) -> u64 {
        self.pn
    }

    /// The key ID (as for [`FrameBuf::pn`]).
    pub fn key_id(&self) -> u8 {
        self.key_id
    }

    /// Gives the buffer back.
    pub fn into_inner(self) -> &'a mut [u8] {
        self.buf
    }
}

macro_rules! batch_api {
    ($name:ident) => {
        impl $name {
            /// Protects every frame of `frames` (see [`FrameBuf`]) with the
            /// fastest path this CPU has, exactly as
            /// [`FrameProtector::protect_in_place`] would one by one.
            /// Returns how many succeeded; each frame's [`Status`] says how
            /// it went.
            ///
            /// [`FrameProtector::protect_in_place`]: crate::FrameProtector::protect_in_place
            pub fn protect_batch(&self, frames: &mut [FrameBuf<'_>]) -> usize {
                self.protect_batch_with(Path::best(), frames)
                    .unwrap_or_default()
            }

            /// Verifies and decrypts every frame of `frames` in place, as
            /// [`FrameProtector::unprotect_in_place`] would one by one:
            /// tags compared in constant time, a frame that fails is left
            /// as it was given. Returns how many verified.
            ///
            /// [`FrameProtector::unprotect_in_place`]: crate::FrameProtector::unprotect_in_place
            pub fn unprotect_batch(&self, frames: &mut [FrameBuf<'_>]) -> usize {
                self.unprotect_batch_with(Path::best(), frames)
                    .unwrap_or_default()
            }

            /// [`Self::protect_batch`] on a chosen path;
            /// [`Error::Unsupported`] when this CPU lacks it.
            pub fn protect_batch_with(
                &self,
                path: Path,
                frames: &mut [FrameBuf<'_>],
            ) -> Result<usize> {
                let eng = Engine::new(path, self.round_keys(), self.ccm().cipher())
                    .ok_or(Error::Unsupported)?;
                Ok(run::<{ $name::MIC_LEN }, false>(&eng, frames))
            }

            /// [`Self::unprotect_batch`] on a chosen path;
            /// [`Error::Unsupported`] when this CPU lacks it.
            pub fn unprotect_batch_with(
                &self,
                path: Path,
                frames: &mut [FrameBuf<'_>],
            ) -> Result<usize> {
                let eng = Engine::new(path, self.round_keys(), self.ccm().cipher())
                    .ok_or(Error::Unsupported)?;
                Ok(run::<{ $name::MIC_LEN }, true>(&eng, frames))
            }
        }
    };
}

batch_api!(Ccmp128);
batch_api!(Ccmp256);

/// Where a prepared frame's parts are. The nonce is not kept: it is
/// octets 1..14 of the frame's `A_0` in the chunk.
#[derive(Clone, Copy)]
struct Meta {
    ok: bool,
    key_id: u8,
    hlen: usize,
    /// Where the input body is: right after the MAC header when
    /// protecting, after the CCMP header when unprotecting.
    src: usize,
    /// Where the output body goes (8 octets after `src` when protecting,
    /// 8 before when unprotecting): the body pass moves it.
    dst: usize,
    body_len: usize,
    /// Protected MPDU length.
    total: usize,
    pn: u64,
    /// Unprotect: the CCMP header as received, put back if the MIC fails.
    sec: [u8; CCMP_HEADER_LEN],
}

const NO_META: Meta = Meta {
    ok: false,
    key_id: 0,
    hlen: 0,
    src: 0,
    dst: 0,
    body_len: 0,
    total: 0,
    pn: 0,
    sec: [0; CCMP_HEADER_LEN],
};

/// The CCM nonce of frame `i`, as [`fill`] put it into `A_0`.
fn nonce_of(ch: &Chunk, i: usize) -> [u8; NONCE_LEN] {
    let mut n = [0u8; NONCE_LEN];
    if let Some(a0) = ch.a0.get(i) {
        n.copy_from_slice(&a0[1..1 + NONCE_LEN]);
    }
    n
}

/// Fills the CCM blocks of frame `i` straight from the octets of its MAC
/// header at the start of `buf` (already checked to hold the `fc` header
/// of a data or management frame; `buf` has at least 32 octets, which
/// every frame with room for a CCMP header and MIC has): `B_0`, `A_0`, and
/// the two AAD blocks (2-octet length prefix, AAD, zero padding: RFC
/// 3610, 2.2). The AAD and nonce are those of [`ccmp::aad`] and
/// [`ccmp::nonce`], built with whole-block masks instead of octet copies
/// (the per-frame work that dominates small frames);
/// `tests/batch_paths.rs` checks every header kind against the
/// reference built on those functions.
fn fill(
    ch: &mut Chunk,
    i: usize,
    buf: &[u8],
    fc: FrameControl,
    pn: u64,
    body_len: usize,
    tag_len: usize,
) -> Result<()> {
    if buf.len() < 32 {
        return Err(Error::Malformed);
    }
    let (h0, h1) = ccmp::header_words(buf);
    // 12.5.3.3.3: FC (masked) || A1 || A2 || A3 || SC (sequence number
    // masked) || A4 if present || QC (TID only) if present, after the
    // 2-octet big-endian length (RFC 3610, 2.2). FC replaces octets 0..2
    // of the header, the length goes in front: the rest of block 1 is
    // header octets 4..16 as they are.
    let (aad2, aad_len) = ccmp::aad_tail(fc, h1);
    let fcm = ccmp::aad_frame_control(fc).0;
    let aad1 = (h0 & !0xffff_ffff) | ((aad_len as u128) << 8) | (u128::from(fcm) << 16);
    // 12.5.3.3.4: Nonce Flags (priority = TID, Management bit) || A2
    // (header octets 10..16) || PN5..PN0; then the 2-octet counter.
    let a0 = (CCM_L as u128 - 1) | (ccmp::nonce_word(fc, h0, h1, pn) << 8);
    // RFC 3610, 2.2: B_0 flags = Adata || M' || L', and l(m) big endian
    // in the counter octets.
    let b0_flags = 0x40 | ((((tag_len - 2) / 2) as u8 & 7) << 3) | (CCM_L - 1) as u8;
    let b0 =
        (a0 & !0xff) | u128::from(b0_flags) | (u128::from((body_len as u16).swap_bytes()) << 112);
    let (Some(cb0), Some(ca0), Some(c1), Some(c2)) = (
        ch.b0.get_mut(i),
        ch.a0.get_mut(i),
        ch.aad1.get_mut(i),
        ch.aad2.get_mut(i),
    ) else {
        return Err(Error::InvalidParameter);
    };
    *cb0 = b0.to_le_bytes();
    *ca0 = a0.to_le_bytes();
    *c1 = aad1.to_le_bytes();
    *c2 = aad2.to_le_bytes();
    Ok(())
}

/// The checks and frame layout of the single-frame protect
/// (`ccmp::protect_mpdu`, IEEE Std 802.11-2020, 12.5.3.2), in the same
/// order so the same error comes back; on success the MAC header has
/// Protected set. The body stays where it is: the body pass moves it 8
/// octets up as it encrypts, and the CCMP header is written over its
/// old first octets once they have been read (in the finish step).
///
/// The layout goes straight into `m` (a returned `Meta` copied into the
/// array is read back wider than it was written, which stalls once per
/// frame).
#[inline(always)]
fn prepare_protect(
    ch: &mut Chunk,
    i: usize,
    fb: &mut FrameBuf<'_>,
    tag_len: usize,
    m: &mut Meta,
) -> Result<()> {
    let (len, pn, key_id) = (fb.len, fb.pn, fb.key_id);
    if pn > PN_MAX || key_id > 3 {
        return Err(Error::InvalidParameter);
    }
    let buf = &mut *fb.buf;
    let frame = buf.get(..len).ok_or(Error::BufferTooSmall)?;
    let header = Header::new_checked(frame)?;
    let fc = header.frame_control();
    // Control and extension frames are refused (Unsupported) first, as
    // `ccmp::aad` does.
    if !(fc.is_data() || fc.is_mgmt()) {
        return Err(Error::Unsupported);
    }
    if fc.protected() || fc.is_null_data() {
        return Err(Error::Unsupported);
    }
    let hlen = header.header_len();
    let body_len = len.checked_sub(hlen).ok_or(Error::Malformed)?;
    if body_len > 0xffff {
        return Err(Error::InvalidParameter);
    }
    let total = len + CCMP_HEADER_LEN + tag_len;
    if buf.len() < total {
        return Err(Error::BufferTooSmall);
    }
    fill(ch, i, buf, fc, pn, body_len, tag_len)?;
    let mut new_fc = fc;
    new_fc.set_protected(true);
    buf[..2].copy_from_slice(&new_fc.to_bytes());
    m.ok = true;
    m.hlen = hlen;
    m.src = hlen;
    m.dst = hlen + CCMP_HEADER_LEN;
    m.body_len = body_len;
    m.total = total;
    m.pn = pn;
    m.key_id = key_id;
    Ok(())
}

/// The checks of the single-frame unprotect (`ccmp::unprotect_mpdu`,
/// 12.5.3.4), in the same order; nothing is written but the layout in
/// `m` (as for [`prepare_protect`]).
#[inline(always)]
fn prepare_unprotect(
    ch: &mut Chunk,
    i: usize,
    fb: &FrameBuf<'_>,
    tag_len: usize,
    m: &mut Meta,
) -> Result<()> {
    let frame = fb.buf.get(..fb.len).ok_or(Error::BufferTooSmall)?;
    let n = frame.len();
    let header = Header::new_checked(frame)?;
    let fc = header.frame_control();
    if !(fc.is_data() || fc.is_mgmt()) {
        return Err(Error::Unsupported);
    }
    if !fc.protected() || fc.is_null_data() {
        return Err(Error::Malformed);
    }
    let hlen = header.header_len();
    let body_start = hlen + CCMP_HEADER_LEN;
    let body_len = n
        .checked_sub(body_start + tag_len)
        .ok_or(Error::Malformed)?;
    if body_len > 0xffff {
        return Err(Error::Malformed);
    }
    // 12.5.3.4.4: ExtIV must be set.
    let sec = CcmpHeader::parse(header.payload())?;
    fill(ch, i, frame, fc, sec.pn, body_len, tag_len)?;
    m.sec
        .copy_from_slice(frame.get(hlen..body_start).ok_or(Error::Malformed)?);
    m.ok = true;
    m.hlen = hlen;
    m.src = body_start;
    m.dst = hlen;
    m.body_len = body_len;
    m.total = n;
    m.pn = sec.pn;
    m.key_id = sec.key_id;
    Ok(())
}

/// Runs a whole batch, one chunk of [`CHUNK`] frames after the other.
/// `TAG` is the MIC length, `DEC` chooses unprotect; both are constants so
/// the per-frame code is compiled for each case.
fn run<const TAG: usize, const DEC: bool>(eng: &Engine<'_>, frames: &mut [FrameBuf<'_>]) -> usize {
    let mut ch = Chunk::new();
    let mut lanes = Lanes::new();
    let mut done = 0;
    for chunk in frames.chunks_mut(CHUNK) {
        done += run_chunk::<TAG, DEC>(eng, chunk, &mut ch, &mut lanes);
    }
    done
}

fn run_chunk<const TAG: usize, const DEC: bool>(
    eng: &Engine<'_>,
    chunk: &mut [FrameBuf<'_>],
    ch: &mut Chunk,
    lanes: &mut Lanes,
) -> usize {
    let (tag_len, dec) = (TAG, DEC);
    let n = chunk.len().min(CHUNK);
    ch.used = ch.used.max(n);
    let mut meta = [NO_META; CHUNK];
    let mut status = [Status::Pending; CHUNK];
    for (i, fb) in chunk.iter_mut().enumerate().take(n) {
        let m = &mut meta[i];
        let r = if dec {
            prepare_unprotect(ch, i, fb, tag_len, m)
        } else {
            prepare_protect(ch, i, fb, tag_len, m)
        };
        if let Err(e) = r {
            m.ok = false;
            status[i] = Status::Failed(e);
        }
    }
    // Phase 1: B_0 and the AAD through the MAC, S_0 and E(A_1).
    eng.prefix(ch, n);

    let mut bufs: [&mut [u8]; CHUNK] = core::array::from_fn(|_| Default::default());
    for (b, fb) in bufs.iter_mut().zip(chunk.iter_mut()) {
        *b = &mut *fb.buf;
    }
    // Phase 2: the full body blocks, lanes refilled as frames end.
    let max = eng.max_lanes();
    lanes.active = 0;
    lanes.wraps = meta[..n].iter().any(|m| m.ok && m.body_len >= 254 * 16);
    let mut next = 0;
    loop {
        while lanes.active < max && next < n {
            let i = next;
            next += 1;
            let m = &meta[i];
            if !m.ok || m.body_len < 16 {
                continue;
            }
            let j = lanes.active;
            if !dec {
                // The first block, read before any output overlaps it.
                let Some(first) = bufs[i].get(m.src..m.src + 16) else {
                    continue;
                };
                lanes.pend[j].copy_from_slice(first);
            }
            lanes.job[j] = i;
            lanes.rd[j] = m.src;
            lanes.wr[j] = m.dst;
            lanes.left[j] = m.body_len / 16;
            lanes.mac[j] = ch.mac[i];
            lanes.ks[j] = ch.ks[i];
            lanes.ctr[j] = simd::ctr_add(&ch.a0[i], 2);
            lanes.active += 1;
        }
        if lanes.active == 0 {
            break;
        }
        let steps = lanes.left[..lanes.active]
            .iter()
            .copied()
            .min()
            .unwrap_or(0);
        if !eng.body(lanes, &mut bufs, steps, dec) {
            // Unreachable by construction (distinct frames, checked
            // bounds); fail the lanes' frames rather than panic.
            for j in 0..lanes.active {
                let i = lanes.job[j];
                if let Some(m) = meta.get_mut(i) {
                    m.ok = false;
                    fail_wipe(bufs[i], m);
                    status[i] = Status::Failed(Error::InvalidParameter);
                }
            }
            lanes.active = 0;
            continue;
        }
        // Lanes whose frame ended hand their state to the chunk; the
        // others move down in order (none move when frames of one length
        // end together). Only what a partial last block needs is copied
        // out: reading a lane right after the kernel's wide store of it is
        // slow (the store cannot be forwarded to a narrower load).
        let mut w = 0;
        for j in 0..lanes.active {
            lanes.rd[j] += 16 * steps;
            lanes.wr[j] += 16 * steps;
            lanes.left[j] -= steps;
            if lanes.left[j] == 0 {
                let i = lanes.job[j];
                ch.mac[i] = lanes.mac[j];
                if meta[i].body_len % 16 != 0 {
                    ch.ks[i] = lanes.ks[j];
                    if !dec {
                        ch.pend[i] = lanes.pend[j];
                    }
                }
            } else {
                if w != j {
                    lanes.mac[w] = lanes.mac[j];
                    lanes.ks[w] = lanes.ks[j];
                    lanes.ctr[w] = lanes.ctr[j];
                    lanes.pend[w] = lanes.pend[j];
                    lanes.job[w] = lanes.job[j];
                    lanes.rd[w] = lanes.rd[j];
                    lanes.wr[w] = lanes.wr[j];
                    lanes.left[w] = lanes.left[j];
                }
                w += 1;
            }
        }
        lanes.active = w;
    }
    // Phase 3: the partial last block (RFC 3610, 2.2: zero padded for the
    // MAC; CTR over its bytes only), moved like the rest of the body.
    for i in 0..n {
        let m = &meta[i];
        ch.tail[i] = [0; 16];
        let r = m.body_len % 16;
        if !m.ok || r == 0 {
            continue;
        }
        let full = m.body_len - r;
        // Protect after full blocks: the body pass read this block ahead
        // (its first octets are overwritten by now). Otherwise it is
        // still in place.
        let x = if !dec && full > 0 {
            u128::from_le_bytes(ch.pend[i])
        } else {
            bufs[i]
                .get(m.src + full..m.src + m.body_len)
                .map_or(0, load_partial)
        };
        // The low `r` octets (1 <= r <= 15) of a little-endian block.
        let keep = u128::MAX >> (8 * (16 - r));
        let x = x & keep;
        let o = x ^ (u128::from_le_bytes(ch.ks[i]) & keep);
        ch.tail[i] = if dec { o } else { x }.to_le_bytes();
        if let Some(t) = bufs[i].get_mut(m.dst + full..m.dst + m.body_len) {
            store_partial(t, o);
        }
    }
    eng.tail(ch, n);

    // Finish: U = T xor S_0, the first M octets are the MIC (12.5.3.3.6).
    let mut ok = 0;
    for i in 0..n {
        let m = &meta[i];
        if !m.ok {
            continue;
        }
        let t = if m.body_len % 16 != 0 {
            ch.tail[i]
        } else {
            ch.mac[i]
        };
        let mut u = [(u128::from_le_bytes(t) ^ u128::from_le_bytes(ch.s0[i])).to_le_bytes()];
        // The MIC follows the ciphertext: the output body when protecting,
        // the input body when unprotecting.
        let mic_at = if dec { m.src } else { m.dst } + m.body_len;
        let plain_end = m.hlen + m.body_len;
        let buf = &mut *bufs[i];
        let (Some(tag), Some(mic)) = (u[0].get(..tag_len), buf.get(mic_at..mic_at + tag_len))
        else {
            simd::wipe(&mut u);
            continue;
        };
        if !dec {
            store_partial(
                &mut buf[mic_at..mic_at + tag_len],
                u128::from_le_bytes(u[0]),
            );
            // 12.5.3.2: the CCMP header, over the body's old first octets.
            let hdr = CcmpHeader {
                pn: m.pn,
                key_id: m.key_id,
            };
            if hdr.emit(&mut buf[m.hlen..m.hlen + CCMP_HEADER_LEN]).is_ok() {
                status[i] = Status::Protected(m.total);
                ok += 1;
            } else {
                fail_wipe(buf, m);
                status[i] = Status::Failed(Error::InvalidParameter);
            }
        } else if ct_eq(tag, mic) {
            // Verified: the body is already where the CCMP header was;
            // drop the MIC and clear Protected (as the single-frame path
            // does).
            buf[1] &= !0x40;
            simd::wipe_bytes(&mut buf[plain_end..m.total]);
            status[i] = Status::Unprotected(Unprotected::new(plain_end, m.pn, m.key_id));
            ok += 1;
        } else {
            // Put the ciphertext and CCMP header back: the frame is handed
            // back as given, with no plaintext left in it.
            ccm::apply_ctr(
                eng.cipher(),
                &nonce_of(ch, i),
                CCM_L,
                1,
                &mut buf[m.hlen..plain_end],
            );
            buf.copy_within(m.hlen..plain_end, m.src);
            buf[m.hlen..m.src].copy_from_slice(&m.sec);
            status[i] = Status::Failed(Error::Integrity);
        }
        simd::wipe(&mut u);
    }
    let _ = &bufs;

    for (fb, st) in chunk.iter_mut().zip(status.iter()) {
        fb.status = *st;
        match *st {
            Status::Protected(len) => fb.len = len,
            Status::Unprotected(u) => {
                fb.len = u.len();
                fb.pn = u.pn();
                fb.key_id = u.key_id();
            }
            _ => {}
        }
    }
    ok
}

/// The octets of `s` (at most 16) as the low octets of a little-endian
/// block, read with at most two overlapping loads of the widest fitting
/// size: an octet-wise copy into a block followed by a block load is
/// stalled by the failed store forwarding, once per frame.
fn load_partial(s: &[u8]) -> u128 {
    let r = s.len();
    macro_rules! two {
        ($t:ty, $w:literal) => {{
            let (Some(a), Some(b)) = (s.first_chunk::<$w>(), s.last_chunk::<$w>()) else {
                return 0;
            };
            u128::from(<$t>::from_le_bytes(*a))
                | u128::from(<$t>::from_le_bytes(*b)) << (8 * (r - $w))
        }};
    }
    match r {
        16.. => s.first_chunk::<16>().map_or(0, |b| u128::from_le_bytes(*b)),
        8..=15 => two!(u64, 8),
        4..=7 => two!(u32, 4),
        2..=3 => two!(u16, 2),
        1 => u128::from(s[0]),
        0 => 0,
    }
}

/// Writes the low `d.len()` octets (at most 16) of the little-endian block
/// `v` to `d`, with at most two overlapping stores (see [`load_partial`]).
fn store_partial(d: &mut [u8], v: u128) {
    let r = d.len();
    macro_rules! two {
        ($t:ty, $w:literal) => {{
            if let Some(b) = d.last_chunk_mut::<$w>() {
                *b = ((v >> (8 * (r - $w))) as $t).to_le_bytes();
            }
            if let Some(a) = d.first_chunk_mut::<$w>() {
                *a = (v as $t).to_le_bytes();
            }
        }};
    }
    match r {
        16.. => {
            if let Some(a) = d.first_chunk_mut::<16>() {
                *a = v.to_le_bytes();
            }
        }
        8..=15 => two!(u64, 8),
        4..=7 => two!(u32, 4),
        2..=3 => two!(u16, 2),
        1 => d[0] = v as u8,
        0 => {}
    }
}

/// Leaves no half-processed frame behind on the (unreachable) engine
/// refusal: the frame is wiped.
fn fail_wipe(buf: &mut [u8], m: &Meta) {
    if let Some(b) = buf.get_mut(..m.total) {
        b.zeroize();
    }
}

/// The fused single-frame seal behind `Ccmp128`/`Ccmp256`'s
/// [`FrameProtector`](crate::FrameProtector) when the CPU has AES-NI;
/// identical to [`Ccm::encrypt_in_place_detached`].
pub(crate) fn fused_seal(
    ccm: &Ccm,
    keys: &RoundKeys,
    nonce: &[u8; NONCE_LEN],
    aad: &[u8],
    body: &mut [u8],
    mic: &mut [u8],
) -> Result<()> {
    let tag_len = ccm.tag_len();
    let Some(mic) = mic.get_mut(..tag_len) else {
        return Err(Error::BufferTooSmall);
    };
    match simd::fused_ccm(keys, nonce, aad, body, tag_len, false) {
        Some(mut u) => {
            mic.copy_from_slice(&u[..tag_len]);
            u.zeroize();
            Ok(())
        }
        None => ccm.encrypt_in_place_detached(nonce, aad, body, mic),
    }
}

/// The fused single-frame open: verifies in constant time; on failure
/// `body` holds the ciphertext it was given and the error is `Integrity`
/// (as [`Ccm::decrypt_in_place_detached_or_restore`] mapped by CCMP).
pub(crate) fn fused_open(
    ccm: &Ccm,
    keys: &RoundKeys,
    nonce: &[u8; NONCE_LEN],
    aad: &[u8],
    body: &mut [u8],
    mic: &[u8],
) -> Result<()> {
    let tag_len = ccm.tag_len();
    if mic.len() != tag_len {
        return Err(Error::Integrity);
    }
    match simd::fused_ccm(keys, nonce, aad, body, tag_len, true) {
        Some(mut u) => {
            let ok = ct_eq(&u[..tag_len], mic);
            u.zeroize();
            if ok {
                Ok(())
            } else {
                ccm::apply_ctr(ccm.cipher(), nonce, CCM_L, 1, body);
                Err(Error::Integrity)
            }
        }
        None => ccm
            .decrypt_in_place_detached_or_restore(nonce, aad, body, mic)
            .map_err(|_| Error::Integrity),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_loads_and_stores_move_exactly_the_octets() {
        let src: [u8; 16] = core::array::from_fn(|k| 0xa0 ^ (k as u8 * 17));
        for r in 0..=16 {
            let v = load_partial(&src[..r]);
            let mut expect = [0u8; 16];
            expect[..r].copy_from_slice(&src[..r]);
            assert_eq!(v.to_le_bytes(), expect, "load of {r} octets");

            // A store writes its `r` octets and nothing around them.
            let mut dst = [0x55u8; 20];
            store_partial(&mut dst[2..2 + r], u128::from_le_bytes(src));
            assert_eq!(&dst[2..2 + r], &src[..r], "store of {r} octets");
            assert!(dst[..2].iter().chain(&dst[2 + r..]).all(|&b| b == 0x55));
        }
    }
}
