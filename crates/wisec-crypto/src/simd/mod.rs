//! AES engines of the batch CCMP path: the portable engine on the
//! RustCrypto block cipher, and the x86-64 vector engines (AES-NI on xmm,
//! VAES on ymm and zmm) with their key schedule and CPU detection; the GCM
//! engine of GCMP and BIP-GMAC ([`gcm`], kernels in `x86_gcm`); CRC-32 by
//! carry-less folding (kernels in `x86_crc`).
//!
//! This is the only module of the crate that contains `unsafe` code, all of
//! it in the x86 modules and the few volatile wipes here: calls to
//! `core::arch` intrinsics behind a run-time CPU check, and loads/stores
//! through pointers derived from slices whose bounds and disjointness are
//! checked in safe code before the vector kernels run.
//!
//! The CCM work of a frame (RFC 3610, 2.2 and 2.3; IEEE Std 802.11-2020,
//! 12.5.3.3) is cut into three phases that every engine implements:
//!
//! - prefix: the CBC-MAC over `B_0` and the two AAD blocks (the CCMP AAD is
//!   22 to 30 bytes, so with its 2-byte length prefix always two blocks),
//!   with `S_0 = E(A_0)` and `E(A_1)` interleaved;
//! - body: the full 16-byte body blocks; each step absorbs one plaintext
//!   block into the MAC chain and encrypts the next counter block, for many
//!   frames (lanes) at once;
//! - tail: one more MAC block for a partial last block.
#![allow(unsafe_code)]

use aes::Block;
use zeroize::Zeroize;

use crate::batch::Path;
use crate::ccm::AesCipher;

pub(crate) mod gcm;
#[cfg(target_arch = "x86_64")]
mod x86;
#[cfg(target_arch = "x86_64")]
mod x86_crc;
#[cfg(target_arch = "x86_64")]
mod x86_gcm;

/// The CRC-32 register after `data` from `crc`, folded (see
/// [`crate::crc32`]) on the widest path this CPU runs; `None` (no folding
/// path, or `data` under 16 bytes) leaves `data` to the tables.
pub(crate) fn crc32_fold(crc: u32, data: &[u8]) -> Option<u32> {
    [Path::Avx512, Path::Avx2, Path::AesNi]
        .into_iter()
        .find_map(|p| crc32_fold_path(p, crc, data))
}

/// CRC-32 folding on one path: the register after `data` from `crc`
/// (`None`: the CPU lacks the path, or `data` is shorter than 16 bytes).
pub(crate) fn crc32_fold_path(path: Path, crc: u32, data: &[u8]) -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    {
        x86_crc::fold_path(path, crc, data)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (path, crc, data);
        None
    }
}

/// True when this CPU runs the CRC-32 folding kernel of `path`.
pub(crate) fn crc32_available(path: Path) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        x86_crc::available(path)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        path == Path::Portable
    }
}

/// One AES block.
pub(crate) type Blk = [u8; 16];

/// Capacity of the lane arrays: the most frames any path keeps in flight
/// (8 registers of 4 blocks).
pub(crate) const MAX_LANES: usize = 32;

/// Frames prepared, MACed and finished together.
pub(crate) const CHUNK: usize = 64;

/// How far the body pass moves a frame body: the CCMP header's 8 octets,
/// up when protecting and down when unprotecting.
pub(crate) const MOVE: usize = wisec_wire::security::CCMP_HEADER_LEN;

/// True when a lane's write offset `wr` is its read offset `rd` moved by
/// [`MOVE`] (down when `dec`, up otherwise): the layout the body pass
/// takes (the vector kernels write through the read pointers so moved).
pub(crate) fn moved(rd: usize, wr: usize, dec: bool) -> bool {
    if dec {
        wr.checked_add(MOVE) == Some(rd)
    } else {
        rd.checked_add(MOVE) == Some(wr)
    }
}

/// Expanded AES-128 or AES-256 encryption key for the vector engines.
///
/// Only built when the CPU has AES-NI (checked in [`RoundKeys::new`]):
/// holding one is the proof the x86 kernels rely on. Wiped on drop.
#[derive(Clone)]
pub(crate) struct RoundKeys {
    rk: [Blk; 15],
    nr: usize,
}

impl core::fmt::Debug for RoundKeys {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("RoundKeys(..)")
    }
}

impl Drop for RoundKeys {
    fn drop(&mut self) {
        self.rk.zeroize();
    }
}

impl RoundKeys {
    /// Expands a 16- or 32-byte key when the CPU has AES-NI; `None`
    /// otherwise (the portable engine is used then).
    pub(crate) fn new(key: &[u8]) -> Option<RoundKeys> {
        #[cfg(target_arch = "x86_64")]
        {
            if x86::features() & x86::AESNI != 0 {
                let mut rk = RoundKeys {
                    rk: [[0; 16]; 15],
                    nr: 0,
                };
                rk.nr = x86::expand_key(key, &mut rk.rk)?;
                return Some(rk);
            }
        }
        let _ = key;
        None
    }

    /// Length of the key in bytes (16 or 32).
    pub(crate) fn key_len(&self) -> usize {
        if self.nr == 14 {
            32
        } else {
            16
        }
    }
}

/// One block through AES under `k` (a [`RoundKeys`] exists only on a CPU
/// with AES-NI).
#[cfg(target_arch = "x86_64")]
pub(crate) fn encrypt_block(k: &RoundKeys, b: &Blk) -> Blk {
    x86::encrypt1(k, b)
}

/// The CBC-MAC chain `x = E(x xor B_i)` over `head` and then the whole
/// blocks of `data` (a multiple of 16 octets) under `k`.
#[cfg(target_arch = "x86_64")]
pub(crate) fn cbc_chain(k: &RoundKeys, x: &Blk, head: &Blk, data: &[u8]) -> Blk {
    x86::cbc_chain(k, x, head, data)
}

/// True when this CPU can run `path`.
pub(crate) fn available(path: Path) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let f = x86::features();
        match path {
            Path::Portable => true,
            Path::AesNi => f & x86::AESNI != 0,
            Path::Avx2 => f & x86::AESNI != 0 && f & x86::AVX2_VAES != 0,
            Path::Avx512 => f & x86::AESNI != 0 && f & x86::AVX512_VAES != 0,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        path == Path::Portable
    }
}

/// The per-frame CCM state of one chunk of frames, structure of arrays so
/// the vector engines load four frames' blocks with one instruction.
pub(crate) struct Chunk {
    /// `B_0`.
    pub b0: [Blk; CHUNK],
    /// First AAD block: length prefix and AAD bytes 0..14.
    pub aad1: [Blk; CHUNK],
    /// Second AAD block: AAD bytes 14.. zero padded.
    pub aad2: [Blk; CHUNK],
    /// Counter block `A_0`.
    pub a0: [Blk; CHUNK],
    /// The running CBC-MAC value.
    pub mac: [Blk; CHUNK],
    /// Keystream of the next body block not yet processed.
    pub ks: [Blk; CHUNK],
    /// `S_0 = E(A_0)`, which masks the tag.
    pub s0: [Blk; CHUNK],
    /// The zero-padded plaintext of a partial last block; after
    /// [`Engine::tail`], the MAC value over it.
    pub tail: [Blk; CHUNK],
    /// Protect only: the block after the last full body block, read
    /// before the shifted output overwrote its first octets (it starts
    /// with the plaintext of a partial last block).
    pub pend: [Blk; CHUNK],
    /// Entries that may hold secrets (wiped on drop): the most frames
    /// the chunk was used for.
    pub used: usize,
}

impl Chunk {
    pub(crate) const fn new() -> Chunk {
        Chunk {
            b0: [[0; 16]; CHUNK],
            aad1: [[0; 16]; CHUNK],
            aad2: [[0; 16]; CHUNK],
            a0: [[0; 16]; CHUNK],
            mac: [[0; 16]; CHUNK],
            ks: [[0; 16]; CHUNK],
            s0: [[0; 16]; CHUNK],
            tail: [[0; 16]; CHUNK],
            pend: [[0; 16]; CHUNK],
            used: 0,
        }
    }
}

impl Drop for Chunk {
    fn drop(&mut self) {
        // Keystream, MAC values and plaintext tails.
        let n = self.used.min(CHUNK);
        wipe(&mut self.mac[..n]);
        wipe(&mut self.ks[..n]);
        wipe(&mut self.s0[..n]);
        wipe(&mut self.tail[..n]);
        wipe(&mut self.pend[..n]);
    }
}

/// Overwrites `blocks` with zeros, one 16-byte volatile store per block
/// (`Zeroize` on byte arrays stores one byte at a time, which cost more
/// than the AES work of a batch of small frames), then fences so the
/// stores are not moved past what follows.
pub(crate) fn wipe(blocks: &mut [Blk]) {
    for b in blocks.iter_mut() {
        let p: *mut Blk = b;
        // SAFETY: `p` comes from a live `&mut Blk`, so it is valid, aligned
        // and not aliased for this write of one `Blk`.
        unsafe { core::ptr::write_volatile(p, [0u8; 16]) };
    }
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// The frames in flight in the body pipeline. Lane `j < active` works on
/// frame `job[j]` of the chunk, reading its next body block at byte
/// offset `rd[j]` and writing the result at `wr[j]`, with `left[j]` full
/// blocks to go.
///
/// The two offsets fold the 8-octet move of the body into the body pass
/// (IEEE Std 802.11-2020, 12.5.3.2: the CCMP header goes between MAC
/// header and body): protect writes 8 octets after it reads, so each
/// block's write would clobber the start of the next block; the lane
/// therefore reads one block ahead, keeping it in `pend`. Unprotect writes
/// 8 octets before it reads and needs no look-ahead.
pub(crate) struct Lanes {
    /// Running CBC-MAC values.
    pub mac: [Blk; MAX_LANES],
    /// Keystream for the block at `off`.
    pub ks: [Blk; MAX_LANES],
    /// The counter block after the one `ks` came from.
    pub ctr: [Blk; MAX_LANES],
    /// Chunk index of the frame in the lane.
    pub job: [usize; MAX_LANES],
    /// Offset of the next body block to read in the frame buffer.
    pub rd: [usize; MAX_LANES],
    /// Offset where the next output block goes.
    pub wr: [usize; MAX_LANES],
    /// Protect only: the next body block, read ahead of the write that
    /// overlaps it.
    pub pend: [Blk; MAX_LANES],
    /// Full blocks left.
    pub left: [usize; MAX_LANES],
    /// Lanes in use (the first `active`).
    pub active: usize,
    /// Some lane may hold a frame of 254 full body blocks or more, whose
    /// counter's low octet can wrap in the body pass: the vector kernels,
    /// which step that octet alone, then end their runs where it wraps.
    pub wraps: bool,
}

impl Lanes {
    pub(crate) const fn new() -> Lanes {
        Lanes {
            mac: [[0; 16]; MAX_LANES],
            ks: [[0; 16]; MAX_LANES],
            ctr: [[0; 16]; MAX_LANES],
            job: [0; MAX_LANES],
            rd: [0; MAX_LANES],
            wr: [0; MAX_LANES],
            pend: [[0; 16]; MAX_LANES],
            left: [0; MAX_LANES],
            active: 0,
            wraps: false,
        }
    }
}

/// [`wipe`] for a byte slice: 16 bytes per volatile store, then the
/// remaining bytes one by one.
pub(crate) fn wipe_bytes(bytes: &mut [u8]) {
    wipe_16::<u8, 16>(bytes);
}

/// [`wipe`] for a slice of 32-bit words: four words per 16-byte volatile
/// store, then the remaining words one by one.
pub(crate) fn wipe_words(words: &mut [u32]) {
    wipe_16::<u32, 4>(words);
}

/// Zeros `s` with one volatile store of `[T; N]` (16 bytes) per `N`
/// elements, then the remaining elements one by one, then fences so the
/// stores are not moved past what follows.
fn wipe_16<T: zeroize::DefaultIsZeroes, const N: usize>(s: &mut [T]) {
    const { assert!(N * core::mem::size_of::<T>() == 16) };
    let mut chunks = s.chunks_exact_mut(N);
    for c in &mut chunks {
        let p: *mut [T; N] = c.as_mut_ptr().cast();
        // SAFETY: `c` is a live, exclusive slice of `N` elements of `T`,
        // so `p` is valid for a write of one `[T; N]` and aligned for it
        // (an array has its element's alignment).
        unsafe { core::ptr::write_volatile(p, [T::default(); N]) };
    }
    chunks.into_remainder().zeroize();
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

impl Drop for Lanes {
    fn drop(&mut self) {
        wipe(&mut self.mac);
        wipe(&mut self.ks);
        wipe(&mut self.ctr);
        wipe(&mut self.pend);
    }
}

/// The counter block one after `a` (the CCMP counter is the last two
/// octets, big endian, and never wraps: a body has at most 4096 blocks).
pub(crate) fn ctr_add(a: &Blk, n: u16) -> Blk {
    let mut b = *a;
    let c = u16::from_be_bytes([a[14], a[15]]).wrapping_add(n);
    b[14..].copy_from_slice(&c.to_be_bytes());
    b
}

fn xor(a: &Blk, b: &Blk) -> Blk {
    let mut o = *a;
    for (x, y) in o.iter_mut().zip(b) {
        *x ^= *y;
    }
    o
}

/// An engine: one code path with the keys it needs.
pub(crate) struct Engine<'k> {
    path: Path,
    keys: Option<&'k RoundKeys>,
    cipher: &'k AesCipher,
}

impl<'k> Engine<'k> {
    /// The engine for `path`, or `None` when the CPU lacks it (or the
    /// vector key schedule is missing).
    pub(crate) fn new(
        path: Path,
        keys: Option<&'k RoundKeys>,
        cipher: &'k AesCipher,
    ) -> Option<Engine<'k>> {
        if !available(path) {
            return None;
        }
        if path != Path::Portable && keys.is_none() {
            return None;
        }
        Some(Engine { path, keys, cipher })
    }

    /// The path this engine runs.
    #[allow(dead_code)]
    pub(crate) fn path(&self) -> Path {
        self.path
    }

    /// The portable block cipher of the same key.
    pub(crate) fn cipher(&self) -> &'k AesCipher {
        self.cipher
    }

    /// How many frames the body pipeline keeps in flight: enough
    /// independent AES streams to cover the `aesenc` latency, few enough
    /// that state and round keys stay in registers. Measured with
    /// `examples/batch_speed` on a Rocket Lake Xeon: 16 zmm lanes (4
    /// registers of MAC and 4 of counter blocks per round) beat 32, which
    /// spill; likewise 8 ymm and 4 xmm lanes. With the body move folded
    /// into the body pass, 16 ymm lanes (the same blocks per round as 16
    /// zmm lanes, at two ymm rounds per cycle) were measured again and
    /// lose to 8 (6.5 against 7.5 GB/s at 1500 octets): without AVX-512
    /// there are only 16 ymm registers, too few for 16 lanes of MAC,
    /// counter and look-ahead blocks plus the round keys.
    pub(crate) fn max_lanes(&self) -> usize {
        match self.path {
            Path::Avx512 => 16,
            Path::Avx2 => 8,
            Path::AesNi => 4,
            Path::Portable => 16,
        }
    }

    /// The prefix phase for frames `0..n` of the chunk: `mac` = the
    /// CBC-MAC over `B_0`, AAD block 1 and 2; `s0 = E(A_0)`;
    /// `ks = E(A_1)`.
    pub(crate) fn prefix(&self, ch: &mut Chunk, n: usize) {
        let n = n.min(CHUNK);
        #[cfg(target_arch = "x86_64")]
        if let (Some(k), Path::AesNi | Path::Avx2 | Path::Avx512) = (self.keys, self.path) {
            x86::prefix(self.path, k, ch, n);
            return;
        }
        self.prefix_portable(ch, n);
    }

    /// The tail phase for frames `0..n`: `tail = E(mac xor tail)`.
    pub(crate) fn tail(&self, ch: &mut Chunk, n: usize) {
        let n = n.min(CHUNK);
        #[cfg(target_arch = "x86_64")]
        if let (Some(k), Path::AesNi | Path::Avx2 | Path::Avx512) = (self.keys, self.path) {
            x86::tail(self.path, k, ch, n);
            return;
        }
        let c = self.cipher;
        for i in 0..n {
            let mut b = Block::from(xor(&ch.mac[i], &ch.tail[i]));
            c.encrypt_block(&mut b);
            ch.tail[i] = b.into();
        }
    }

    /// Runs `steps` body steps on the active lanes, over the frame buffers
    /// `bufs` (indexed by `lanes.job`). Each step XORs the lane keystream
    /// into the block read at `rd` (for protect: the block `pend` read
    /// one step earlier, while the block after it is read into `pend`),
    /// writes the result at `wr`, absorbs the block's plaintext into the
    /// lane's MAC and encrypts the next counter block. Returns false (and
    /// does nothing) when the lanes do not describe distinct frames with
    /// room for `steps` blocks each (one more read for protect); the
    /// scheduler never asks for that.
    pub(crate) fn body(
        &self,
        lanes: &mut Lanes,
        bufs: &mut [&mut [u8]],
        steps: usize,
        dec: bool,
    ) -> bool {
        let active = lanes.active;
        if active == 0 || steps == 0 {
            return true;
        }
        if active > self.max_lanes() || active > MAX_LANES {
            return false;
        }
        // Every lane needs its own frame, with room for `steps` blocks.
        let Some(span) = steps.checked_mul(16) else {
            return false;
        };
        let rspan = if dec { span } else { span + 16 };
        let mut seen = 0u64;
        for j in 0..active {
            let (job, rd, wr) = (lanes.job[j], lanes.rd[j], lanes.wr[j]);
            if job >= 64 || seen & (1 << job) != 0 {
                return false;
            }
            seen |= 1 << job;
            let Some(buf) = bufs.get(job) else {
                return false;
            };
            if !moved(rd, wr, dec)
                || rd.checked_add(rspan).is_none_or(|end| end > buf.len())
                || wr.checked_add(span).is_none_or(|end| end > buf.len())
            {
                return false;
            }
        }
        #[cfg(target_arch = "x86_64")]
        if let (Some(k), Path::AesNi | Path::Avx2 | Path::Avx512) = (self.keys, self.path) {
            x86::body(self.path, k, lanes, bufs, steps, dec);
            return true;
        }
        self.body_portable(lanes, bufs, steps, dec);
        true
    }

    #[allow(clippy::needless_range_loop)]
    fn prefix_portable(&self, ch: &mut Chunk, n: usize) {
        const W: usize = 16;
        let c = self.cipher;
        let mut blk = [Block::default(); 2 * W];
        let mut base = 0;
        while base < n {
            let m = (n - base).min(W);
            // Step 1: E(B_0) beside S_0 = E(A_0).
            for i in 0..m {
                blk[i] = Block::from(ch.b0[base + i]);
                blk[m + i] = Block::from(ch.a0[base + i]);
            }
            c.encrypt_blocks(&mut blk[..2 * m]);
            for i in 0..m {
                ch.mac[base + i] = blk[i].into();
                ch.s0[base + i] = blk[m + i].into();
            }
            // Step 2: AAD block 1 beside E(A_1).
            for i in 0..m {
                blk[i] = Block::from(xor(&ch.mac[base + i], &ch.aad1[base + i]));
                blk[m + i] = Block::from(ctr_add(&ch.a0[base + i], 1));
            }
            c.encrypt_blocks(&mut blk[..2 * m]);
            for i in 0..m {
                ch.mac[base + i] = blk[i].into();
                ch.ks[base + i] = blk[m + i].into();
            }
            // Step 3: AAD block 2.
            for i in 0..m {
                blk[i] = Block::from(xor(&ch.mac[base + i], &ch.aad2[base + i]));
            }
            c.encrypt_blocks(&mut blk[..m]);
            for i in 0..m {
                ch.mac[base + i] = blk[i].into();
            }
            base += m;
        }
        for b in blk.iter_mut() {
            b.as_mut_slice().zeroize();
        }
    }

    fn body_portable(&self, lanes: &mut Lanes, bufs: &mut [&mut [u8]], steps: usize, dec: bool) {
        let c = self.cipher;
        let a = lanes.active;
        let mut blk = [Block::default(); 2 * MAX_LANES];
        for s in 0..steps {
            for j in 0..a {
                let (rd, wr) = (lanes.rd[j] + 16 * s, lanes.wr[j] + 16 * s);
                let Some(b) = bufs.get_mut(lanes.job[j]) else {
                    continue;
                };
                let mut d = [0u8; 16];
                if dec {
                    let Some(src) = b.get(rd..rd + 16) else {
                        continue;
                    };
                    d.copy_from_slice(src);
                } else {
                    // Read the next block before the write that overlaps it.
                    let Some(next) = b.get(rd + 16..rd + 32) else {
                        continue;
                    };
                    d = lanes.pend[j];
                    lanes.pend[j].copy_from_slice(next);
                }
                let Some(out) = b.get_mut(wr..wr + 16) else {
                    continue;
                };
                let mut p = [0u8; 16];
                for (((o, x), k), p) in out.iter_mut().zip(&d).zip(&lanes.ks[j]).zip(p.iter_mut()) {
                    *o = *x ^ *k;
                    *p = if dec { *o } else { *x };
                }
                d.zeroize();
                blk[j] = Block::from(xor(&lanes.mac[j], &p));
                blk[a + j] = Block::from(lanes.ctr[j]);
                lanes.ctr[j] = ctr_add(&lanes.ctr[j], 1);
                p.zeroize();
            }
            c.encrypt_blocks(&mut blk[..2 * a]);
            for j in 0..a {
                lanes.mac[j] = blk[j].into();
                lanes.ks[j] = blk[a + j].into();
            }
        }
        for b in blk.iter_mut() {
            b.as_mut_slice().zeroize();
        }
    }
}

/// Single-frame CCM with CTR fused into the MAC chain (AES-NI): the
/// frame's CBC-MAC block and counter block go through the rounds
/// together, so one frame runs near the latency bound of one chain.
///
/// `data` is encrypted (`dec == false`) or decrypted in place; `aad` is at
/// most 30 bytes (the CCMP AAD). Returns `T xor S_0` (the tag before
/// truncation), or `None` when the inputs do not fit, before touching
/// `data`.
pub(crate) fn fused_ccm(
    keys: &RoundKeys,
    nonce: &[u8; 13],
    aad: &[u8],
    data: &mut [u8],
    tag_len: usize,
    dec: bool,
) -> Option<Blk> {
    if aad.is_empty() || aad.len() > 30 || data.len() > 0xffff {
        return None;
    }
    let b0: Blk = crate::ccm::b0(nonce, aad.len(), data.len(), tag_len, 2).into();
    let a0: Blk = crate::ccm::ctr_block(nonce, 2, 0).into();
    let mut ab = [0u8; 32];
    ab[..2].copy_from_slice(&(aad.len() as u16).to_be_bytes());
    ab.get_mut(2..2 + aad.len())?.copy_from_slice(aad);
    let mut aad1 = [0u8; 16];
    let mut aad2 = [0u8; 16];
    aad1.copy_from_slice(&ab[..16]);
    aad2.copy_from_slice(&ab[16..]);
    #[cfg(target_arch = "x86_64")]
    {
        let full = data.len() / 16 * 16;
        let (body, rest) = data.split_at_mut(full);
        let (mut mac, mut ks, s0) = x86::fused(keys, &b0, &aad1, &aad2, &a0, body, dec);
        if !rest.is_empty() {
            // 12.5.3.3.5 / RFC 3610, 2.2: the last partial block is zero
            // padded for the MAC; CTR covers only its bytes.
            let mut p = [0u8; 16];
            for ((x, k), p) in rest.iter_mut().zip(&ks).zip(p.iter_mut()) {
                let o = *x ^ *k;
                *p = if dec { o } else { *x };
                *x = o;
            }
            mac = x86::encrypt1(keys, &xor(&mac, &p));
            p.zeroize();
        }
        ks.zeroize();
        let u = xor(&mac, &s0);
        mac.zeroize();
        Some(u)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (keys, b0, a0, aad1, aad2, dec);
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body pass refuses lanes whose output is not the input moved by
    /// the CCMP header's 8 octets (up when protecting, down when
    /// unprotecting), on every path this CPU runs, and leaves the frame
    /// as it was.
    #[test]
    fn body_refuses_a_layout_not_moved_by_the_header() {
        let key = [0x42u8; 16];
        let cipher = AesCipher::new(&key).unwrap();
        let rk = RoundKeys::new(&key);
        for path in [Path::Portable, Path::AesNi, Path::Avx2, Path::Avx512] {
            let Some(eng) = Engine::new(path, rk.as_ref(), &cipher) else {
                continue;
            };
            for (dec, rd, wr, ok) in [
                (false, 24, 32, true),
                (false, 24, 24, false),
                (false, 24, 40, false),
                (true, 32, 24, true),
                (true, 24, 32, false),
                (true, 32, 32, false),
            ] {
                let mut frame = [0x5au8; 128];
                let mut lanes = Lanes::new();
                lanes.active = 1;
                lanes.job[0] = 0;
                lanes.rd[0] = rd;
                lanes.wr[0] = wr;
                lanes.left[0] = 2;
                let mut bufs: [&mut [u8]; 1] = [&mut frame];
                let done = eng.body(&mut lanes, &mut bufs, 2, dec);
                assert_eq!(done, ok, "{} dec {dec} rd {rd} wr {wr}", path.name());
                if !ok {
                    assert!(frame.iter().all(|&b| b == 0x5a), "{}", path.name());
                }
            }
        }
    }
}
