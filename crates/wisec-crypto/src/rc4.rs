//! The RC4 stream cipher, as WEP and TKIP use it (IEEE Std 802.11-2020,
//! 12.3.2.2 and 12.5.2.1). RC4 is broken; it exists here only for the
//! legacy suites [`crate::wep`] and [`crate::tkip`].
//!
//! The key-scheduling and output algorithms follow the public description
//! of RC4 (the one RFC 6229 gives test vectors for). The state is wiped on
//! drop.
//!
//! Each entry of the state, a value below 256, is held in a 32-bit cell
//! (as OpenSSL's x86-64 RC4 holds it): the loops then load and store whole
//! words. On an AMD EPYC without AVX-512 (family 19h model 01h, Zen 3) the
//! output loop took 1.95 ns a byte with byte cells against 1.40 with word
//! cells (1504 octets), and the key schedule of a 16-octet key about 540
//! ns against 490.
//!
//! Both loops are one long dependency chain through the index `j` and the
//! state entries it swaps. They are written so that the state entry the
//! next step needs (`S[i + 1]`) is read before this step's swap stores, and
//! taken from the swap instead when the swap just wrote it (`j == i + 1`):
//! the next step then never waits for a store to be forwarded to a load,
//! which is most of what a plain byte-at-a-time loop waits for. The rare
//! `j == i + 1` case is a branch, not a conditional move, so the common
//! case does not wait for the comparison either.
//!
//! The output loop runs in blocks of four or eight bytes (gathered into
//! words, so the data is read and written a word at a time). Within a
//! block whose indices `i + 1 ..= i + N + 1` do not wrap, the state is
//! indexed at constant offsets from the block's base, with no reduction
//! modulo 256; the state array has a tail beyond `S[255]`, never used,
//! that lets the compiler see those indices in bounds. The one block of
//! every 256 bytes that crosses the wrap runs a byte at a time.

use crate::{Error, Result};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// The state array, one 32-bit cell per entry: `S[0..256]`, then a tail
/// that is never written (it stays zero). With it, `S[b + k]` for any `b`
/// below 256 and `k` up to 16 is in bounds, so the output loop's block
/// indices need no check; the loop only takes that path when `b + k` is
/// below 256. The unrolled key schedule's last step reads `S[256]` ahead
/// and never uses it.
const STATE_LEN: usize = 256 + 16;

type State = [u32; STATE_LEN];

/// `S[k] = k`: the state before the key schedule.
const IDENTITY: State = {
    let mut s = [0u32; STATE_LEN];
    let mut k = 0;
    while k < 256 {
        s[k] = k as u32;
        k += 1;
    }
    s
};

/// An RC4 keystream generator.
#[derive(Clone)]
pub struct Rc4 {
    s: State,
    i: u8,
    j: u8,
}

// The state is wiped 16 octets per store (`simd::wipe_words`): WEP and
// TKIP drop one state per frame, and a byte at a time the wipe took about
// a fifth as long as the key schedule.
impl Zeroize for Rc4 {
    fn zeroize(&mut self) {
        crate::simd::wipe_words(&mut self.s);
        self.i.zeroize();
        self.j.zeroize();
    }
}

impl Drop for Rc4 {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for Rc4 {}

impl core::fmt::Debug for Rc4 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Rc4 { .. }")
    }
}

impl Rc4 {
    /// Runs the key schedule for a key of 1 to 256 bytes.
    pub fn new(key: &[u8]) -> Result<Rc4> {
        if key.is_empty() || key.len() > 256 {
            return Err(Error::InvalidParameter);
        }
        // 802.11 keys (WEP seeds, TKIP per-packet keys) are 8 or 16 octets:
        // their schedules are unrolled by the key's length.
        let s = if let Ok(k) = <&[u8; 16]>::try_from(key) {
            ksa_unrolled(k)
        } else if let Ok(k) = <&[u8; 8]>::try_from(key) {
            ksa_unrolled(k)
        } else {
            ksa(|n| key[n % key.len()])
        };
        Ok(Rc4 { s, i: 0, j: 0 })
    }

    /// The next keystream byte.
    #[inline]
    pub fn next_byte(&mut self) -> u8 {
        let mut b = [0u8];
        self.apply_keystream(&mut b);
        b[0]
    }

    /// XORs the keystream into `data` (encrypts or decrypts).
    pub fn apply_keystream(&mut self, data: &mut [u8]) {
        let mut g = Gen::start(self);
        let (words, rest) = data.as_chunks_mut::<8>();
        g.blocks::<8, _>(&mut self.s, words.iter_mut(), |w, k| {
            *w = (u64::from_ne_bytes(*w) ^ u64::from_ne_bytes(k)).to_ne_bytes();
        });
        for b in rest {
            *b ^= g.byte(&mut self.s);
        }
        g.finish(self);
    }

    /// XORs the keystream into `src` and writes the result to `dst` (which
    /// must be as long; else nothing is written and the result is
    /// [`Error::BufferTooSmall`]).
    pub fn apply_keystream_to(&mut self, src: &[u8], dst: &mut [u8]) -> Result<()> {
        if src.len() != dst.len() {
            return Err(Error::BufferTooSmall);
        }
        let mut g = Gen::start(self);
        let (dw, drest) = dst.as_chunks_mut::<8>();
        let (sw, srest) = src.as_chunks::<8>();
        g.blocks::<8, _>(&mut self.s, dw.iter_mut().zip(sw), |(d, s), k| {
            *d = (u64::from_ne_bytes(*s) ^ u64::from_ne_bytes(k)).to_ne_bytes();
        });
        for (d, s) in drest.iter_mut().zip(srest) {
            *d = *s ^ g.byte(&mut self.s);
        }
        g.finish(self);
        Ok(())
    }

    /// Runs `f` with a keystream source over this state; the source
    /// hands out bytes in keystream order and the state continues after
    /// the bytes it handed out.
    #[inline]
    pub(crate) fn with_stream<R>(&mut self, f: impl FnOnce(&mut Stream<'_>) -> R) -> R {
        let g = Gen::start(self);
        let mut st = Stream { g, s: &mut self.s };
        let r = f(&mut st);
        let (i, j) = (st.g.i, st.g.j);
        self.i = i;
        self.j = j;
        r
    }

    /// Discards `n` keystream bytes.
    pub fn skip(&mut self, n: usize) {
        let mut g = Gen::start(self);
        for _ in 0..n {
            g.byte(&mut self.s);
        }
        g.finish(self);
    }
}

/// The key schedule (KSA) with `key(n)` the key byte for step `n`.
#[inline(always)]
fn ksa(key: impl Fn(usize) -> u8) -> State {
    let mut s = IDENTITY;
    let mut j: u8 = 0;
    let mut x = s[0];
    for n in 0..256 {
        j = j.wrapping_add(x as u8).wrapping_add(key(n));
        (_, x) = swap(&mut s, n, (n + 1) & 255, j, x);
    }
    s
}

/// [`ksa`] for a key of `L` octets (8 or 16: WEP seeds and TKIP
/// per-packet keys), unrolled by the key's length: the key octets stay in
/// registers, each step's at a constant place, and there is no reduction
/// modulo 256 of the read-ahead index: the last step reads ahead `S[256]`,
/// in the state's tail, a value never used. About 10 instructions a step
/// instead of 16.
#[inline(always)]
fn ksa_unrolled<const L: usize>(key: &[u8; L]) -> State {
    const { assert!(256 % L == 0) };
    let mut s = IDENTITY;
    let mut j: u8 = 0;
    let mut x = s[0];
    for b in 0..256 / L {
        for (k, &kb) in key.iter().enumerate() {
            let n = b * L + k;
            j = j.wrapping_add((x as u8).wrapping_add(kb));
            (_, x) = swap(&mut s, n, n + 1, j, x);
        }
    }
    s
}

/// One step's swap of `S[i]` (which holds `x`) with `S[j]`, and the read
/// ahead of `S[m]` (`m = i + 1`, the next step's `S[i]`) before the
/// stores: returns `y`, the old `S[j]` (now in `S[i]`), and the next
/// step's `x`, which is `x` itself when the swap just wrote it to `S[m]`.
#[inline(always)]
fn swap(s: &mut State, i: usize, m: usize, j: u8, x: u32) -> (u32, u32) {
    let y = s[usize::from(j)];
    let next = s[m];
    s[i] = y;
    s[usize::from(j)] = x;
    let x = if usize::from(j) == m {
        unchanged(x)
    } else {
        next
    };
    (y, x)
}

/// `x` itself, on a path taken about once in 256 steps: a call the
/// compiler does not turn into a conditional move, so the next step's
/// `j` does not wait for the comparison.
#[cold]
#[inline(never)]
fn unchanged(x: u32) -> u32 {
    x
}

/// The output loop (PRGA) between two calls: `x` is `S[i + 1]`, read
/// ahead.
struct Gen {
    i: u8,
    j: u8,
    x: u32,
}

impl Gen {
    #[inline(always)]
    fn start(r: &Rc4) -> Gen {
        Gen {
            i: r.i,
            j: r.j,
            x: r.s[usize::from(r.i.wrapping_add(1))],
        }
    }

    #[inline(always)]
    fn finish(self, r: &mut Rc4) {
        r.i = self.i;
        r.j = self.j;
    }

    /// One output byte of the state `s`.
    #[inline(always)]
    fn byte(&mut self, s: &mut State) -> u8 {
        let i = self.i.wrapping_add(1);
        let x = self.x;
        let j = self.j.wrapping_add(x as u8);
        let y = s[usize::from(j)];
        let m = i.wrapping_add(1);
        let next = s[usize::from(m)];
        s[usize::from(i)] = y;
        s[usize::from(j)] = x;
        self.x = if j == m { x } else { next };
        self.i = i;
        self.j = j;
        s[usize::from(x.wrapping_add(y) as u8)] as u8
    }
}

/// A keystream source for a suite's own loop (see [`Rc4::with_stream`]).
pub(crate) struct Stream<'a> {
    g: Gen,
    s: &'a mut State,
}

impl Stream<'_> {
    /// The next keystream byte.
    #[inline(always)]
    pub(crate) fn byte(&mut self) -> u8 {
        self.g.byte(self.s)
    }

    /// XORs the next four keystream bytes into each word of `words`, then
    /// folds the result into `acc` with `f` as a little-endian `u32` (a
    /// MIC over the plaintext while decrypting; see [`Gen::fold_words`]).
    #[inline(always)]
    pub(crate) fn xor_then_fold<A: Copy>(
        &mut self,
        words: &mut [[u8; 4]],
        acc: A,
        f: impl Fn(A, u32) -> A,
    ) -> A {
        self.g.fold_words::<true, A>(self.s, words, acc, f)
    }

    /// For each word of `words`: folds it into `acc` with `f` as a
    /// little-endian `u32`, then XORs the next four keystream bytes into
    /// it (a MIC over the plaintext while encrypting; see
    /// [`Gen::fold_words`]).
    #[inline(always)]
    pub(crate) fn fold_then_xor<A: Copy>(
        &mut self,
        words: &mut [[u8; 4]],
        acc: A,
        f: impl Fn(A, u32) -> A,
    ) -> A {
        self.g.fold_words::<false, A>(self.s, words, acc, f)
    }
}

impl Gen {
    /// XORs the next four keystream bytes into each word of `words` and
    /// folds a word into `acc` with `f` (as a little-endian `u32`): the
    /// word as it was when `AFTER` is false (encryption, a MIC over the
    /// plaintext), the word as it becomes when true (decryption).
    ///
    /// The four keystream bytes of a word are gathered into one register
    /// and XORed into the word at once: against XORing and storing each
    /// byte as it comes, that is fewer operations beside Michael's chain.
    /// In a one-core loop on the CPU named in the module doc, TKIP's
    /// 1500-octet decryption went from about 3.51 to 3.39 us and its
    /// encryption from 3.29 to 3.21 (see the README).
    ///
    /// A function of its own, walking the words and the state with one
    /// induction variable: inlined into TKIP's encryption, or with a
    /// separate counter, the compiler ran short of registers and kept the
    /// accumulator (Michael's R) or the RC4 index on the stack, on the
    /// chain of every word.
    #[inline(never)]
    fn fold_words<const AFTER: bool, A: Copy>(
        &mut self,
        s: &mut State,
        words: &mut [[u8; 4]],
        mut acc: A,
        f: impl Fn(A, u32) -> A,
    ) -> A {
        let mut done = 0;
        while done < words.len() {
            let (mut x, mut j) = (self.x, self.j);
            let at = usize::from(self.i);
            // Words whose read-ahead index at + 5 is at most 255.
            let c = ((254 - at.min(254)) / 4).min(words.len() - done);
            for (n, w) in words[done..done + c].iter_mut().enumerate() {
                // Decrypting, the word is read only once its keystream is
                // ready: read first, it held a register through the four
                // steps, and the decryption took 2% longer.
                let mut p = 0;
                if !AFTER {
                    p = u32::from_le_bytes(*w);
                    acc = f(acc, p);
                }
                // Masked, so that the compiler sees `b + 5` within the
                // state's tail and checks no bound.
                let b = (at + 4 * n) & 255;
                let mut ks = 0u32;
                for q in 0..4 {
                    let i = b + 1 + q;
                    j = j.wrapping_add(x as u8);
                    let (y, next) = swap(s, i, i + 1, j, x);
                    // Every cell holds a value below 256: no mask needed.
                    ks |= s[usize::from(x.wrapping_add(y) as u8)] << (8 * q);
                    x = next;
                }
                if AFTER {
                    p = u32::from_le_bytes(*w);
                }
                let out = p ^ ks;
                *w = out.to_le_bytes();
                if AFTER {
                    acc = f(acc, out);
                }
            }
            done += c;
            self.x = x;
            self.j = j;
            self.i = (at + 4 * c) as u8;
            // The word across the wrap, a byte at a time.
            if let Some(w) = words.get_mut(done) {
                if !AFTER {
                    acc = f(acc, u32::from_le_bytes(*w));
                }
                for o in w.iter_mut() {
                    *o ^= self.byte(s);
                }
                if AFTER {
                    acc = f(acc, u32::from_le_bytes(*w));
                }
                done += 1;
            }
        }
        acc
    }

    /// Hands `f` each item of `it` with the next `N` keystream bytes, in
    /// keystream order. While the indices `i + 1 ..= i + N + 1` of a
    /// block do not wrap (all but the last blocks of every 256 bytes)
    /// they are constant offsets from one base that steps by `N`: no
    /// index is reduced modulo 256, and the state's tail keeps them in
    /// bounds without a check.
    #[inline(always)]
    fn blocks<const N: usize, T>(
        &mut self,
        s: &mut State,
        mut it: impl ExactSizeIterator<Item = T>,
        mut f: impl FnMut(T, [u8; N]),
    ) {
        // The largest index of the fast path, 255 + N + 1, is in the tail.
        const { assert!(N > 0 && 256 + N < STATE_LEN) };
        while it.len() != 0 {
            let (mut x, mut j) = (self.x, self.j);
            let mut at = usize::from(self.i);
            // Blocks whose read-ahead index at + N + 1 is at most 255.
            let c = (254usize.saturating_sub(at) / N).min(it.len());
            for item in it.by_ref().take(c) {
                // The same as `at`; masked, so that the compiler sees
                // `b + N + 1` within the state's tail and checks no bound.
                let b = at & 255;
                let mut out = [0u8; N];
                for (k, o) in out.iter_mut().enumerate() {
                    let i = b + 1 + k;
                    j = j.wrapping_add(x as u8);
                    let (y, next) = swap(s, i, i + 1, j, x);
                    *o = s[usize::from(x.wrapping_add(y) as u8)] as u8;
                    x = next;
                }
                f(item, out);
                at += N;
            }
            self.x = x;
            self.j = j;
            self.i = at as u8;
            // The block across the wrap, a byte at a time.
            if let Some(item) = it.next() {
                let mut out = [0u8; N];
                for o in out.iter_mut() {
                    *o = self.byte(s);
                }
                f(item, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RC4 as its public description gives it, one byte at a time: the
    /// reference the fast loops are checked against.
    fn reference(key: &[u8], n: usize) -> alloc_free::Buf {
        // A state of its own, in bytes, apart from the implementation's.
        let mut s = [0u8; 256];
        for (k, e) in s.iter_mut().enumerate() {
            *e = k as u8;
        }
        let mut j: u8 = 0;
        for k in 0..256 {
            j = j.wrapping_add(s[k]).wrapping_add(key[k % key.len()]);
            s.swap(k, usize::from(j));
        }
        let (mut i, mut j) = (0u8, 0u8);
        let mut out = alloc_free::Buf::new(n);
        for b in out.as_mut() {
            i = i.wrapping_add(1);
            j = j.wrapping_add(s[usize::from(i)]);
            s.swap(usize::from(i), usize::from(j));
            *b = s[usize::from(s[usize::from(i)].wrapping_add(s[usize::from(j)]))];
        }
        out
    }

    mod alloc_free {
        /// A fixed-capacity byte buffer (the crate is no_std).
        pub struct Buf {
            b: [u8; 4096],
            n: usize,
        }
        impl Buf {
            pub fn new(n: usize) -> Buf {
                Buf { b: [0; 4096], n }
            }
            pub fn as_mut(&mut self) -> &mut [u8] {
                &mut self.b[..self.n]
            }
            pub fn as_ref(&self) -> &[u8] {
                &self.b[..self.n]
            }
        }
    }

    /// A fold that tells word order and count apart.
    fn mix(a: u64, w: u32) -> u64 {
        (a.rotate_left(13) ^ u64::from(w)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// Keystream into `out` (zeros) through [`Stream::fold_then_xor`]
    /// (`after` false) or [`Stream::xor_then_fold`] (true), the last
    /// octets through [`Stream::byte`]. The words go in holding a pattern,
    /// so that the fold is checked over the words as they were (before)
    /// or as they became (after), in order; the pattern is then taken out
    /// again, leaving the keystream for the caller to check.
    fn words_then_bytes(st: &mut Stream<'_>, out: &mut [u8], after: bool) {
        let pat = |n: usize| (n as u32).wrapping_mul(0x0101_0101) ^ 0xa5c3_5a3c;
        let (words, rest) = out.as_chunks_mut::<4>();
        for (n, w) in words.iter_mut().enumerate() {
            *w = pat(n).to_le_bytes();
        }
        if after {
            let got = st.xor_then_fold(words, 7u64, mix);
            let want = words
                .iter()
                .fold(7u64, |a, w| mix(a, u32::from_le_bytes(*w)));
            assert_eq!(got, want);
        } else {
            let want = (0..words.len()).fold(7u64, |a, n| mix(a, pat(n)));
            assert_eq!(st.fold_then_xor(words, 7u64, mix), want);
        }
        for (n, w) in words.iter_mut().enumerate() {
            *w = (u32::from_le_bytes(*w) ^ pat(n)).to_le_bytes();
        }
        rest.iter_mut().for_each(|g| *g = st.byte());
    }

    #[test]
    fn zeroize_wipes_the_whole_state() {
        let mut r = Rc4::new(&[0x5a; 13]).unwrap();
        r.skip(300);
        assert!(r.s.iter().any(|&b| b != 0) && (r.i, r.j) != (0, 0));
        r.zeroize();
        assert!(r.s.iter().all(|&b| b == 0));
        assert_eq!((r.i, r.j), (0, 0));
    }

    #[test]
    fn rejects_bad_key_lengths() {
        assert!(Rc4::new(&[]).is_err());
        assert!(Rc4::new(&[0u8; 257]).is_err());
        assert!(Rc4::new(&[0u8; 256]).is_ok());
        assert!(Rc4::new(&[7]).is_ok());
    }

    #[test]
    fn rfc6229_first_block_and_skip() {
        // RFC 6229, section 2, key 0x0102030405: offsets 0 and 4096.
        let mut r = Rc4::new(&[1, 2, 3, 4, 5]).unwrap();
        let mut b = [0u8; 16];
        r.apply_keystream(&mut b);
        assert_eq!(
            b,
            [
                0xb2, 0x39, 0x63, 0x05, 0xf0, 0x3d, 0xc0, 0x27, 0xcc, 0xc3, 0x52, 0x4a, 0x0a, 0x11,
                0x18, 0xa8
            ]
        );
        let mut r = Rc4::new(&[1, 2, 3, 4, 5]).unwrap();
        r.skip(4096);
        let mut b = [0u8; 4];
        r.apply_keystream(&mut b);
        assert_eq!(b, [0xff, 0x25, 0xb5, 0x89]);
    }

    #[test]
    fn every_key_length_and_split_matches_the_reference() {
        // Keys hitting the j == i + 1 case of the read-ahead often: many
        // keys, every length from 1 to 32 and the 802.11 ones, and the
        // keystream taken in pieces of every size through every API.
        let mut seed = 0x1234_5678u32;
        for len in (1..=32).chain([40, 64, 255, 256]) {
            for _ in 0..8 {
                let mut key = [0u8; 256];
                for k in key.iter_mut().take(len) {
                    seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    *k = (seed >> 24) as u8;
                }
                let key = &key[..len];
                let want = reference(key, 3000);
                let mut r = Rc4::new(key).unwrap();
                let mut got = [0u8; 3000];
                let mut at = 0;
                let mut piece = 1;
                while at < 3000 {
                    let end = (at + piece).min(3000);
                    let part = &mut got[at..end];
                    match piece % 5 {
                        0 => r.apply_keystream(part),
                        1 => r
                            .apply_keystream_to(&[0u8; 40][..part.len()], part)
                            .unwrap(),
                        2 => part.iter_mut().for_each(|g| *g = r.next_byte()),
                        3 => r.with_stream(|st| part.iter_mut().for_each(|g| *g = st.byte())),
                        _ => r.with_stream(|st| words_then_bytes(st, part, piece % 2 == 0)),
                    }
                    at = end;
                    piece = piece % 37 + 1;
                }
                assert_eq!(&got[..], want.as_ref(), "key length {len}");
                // Long runs through the block loops, starting at every
                // offset within a 256-byte cycle of the index.
                let skip = usize::from(key[0]);
                let mut r = Rc4::new(key).unwrap();
                r.skip(skip);
                let mut got = [0u8; 3000];
                r.apply_keystream(&mut got[skip..]);
                assert_eq!(&got[skip..], &want.as_ref()[skip..], "key length {len}");
                let mut r = Rc4::new(key).unwrap();
                r.skip(skip);
                let mut got = [0u8; 3000];
                let src = [0u8; 3000];
                r.apply_keystream_to(&src[skip..], &mut got[skip..])
                    .unwrap();
                assert_eq!(&got[skip..], &want.as_ref()[skip..], "key length {len}");
                for after in [false, true] {
                    let mut r = Rc4::new(key).unwrap();
                    r.skip(skip);
                    let mut got = [0u8; 3000];
                    r.with_stream(|st| words_then_bytes(st, &mut got[skip..], after));
                    assert_eq!(&got[skip..], &want.as_ref()[skip..], "key length {len}");
                }
            }
        }
    }

    #[test]
    fn decrypt_is_encrypt() {
        let mut data = *b"attack at dawn";
        Rc4::new(b"Key").unwrap().apply_keystream(&mut data);
        assert_ne!(&data, b"attack at dawn");
        Rc4::new(b"Key").unwrap().apply_keystream(&mut data);
        assert_eq!(&data, b"attack at dawn");
        let mut r = Rc4::new(b"Key").unwrap();
        assert_eq!(
            r.apply_keystream_to(&[0; 3], &mut [0; 4]),
            Err(Error::BufferTooSmall)
        );
    }
}
