//! Michael, the TKIP message integrity code (IEEE Std 802.11-2020,
//! 12.5.2.3).
//!
//! Michael keeps two 32-bit words (L, R) initialised from the 64-bit key,
//! absorbs the message as little-endian 32-bit words through the block
//! function `b`, and pads the message with 0x5a and four to seven zero
//! octets so its length is a multiple of four (12.5.2.3.3). The MIC is
//! L || R, little-endian. Michael is weak by design (about 20 bits of
//! forgery resistance); it is here only for [`crate::tkip`].

use wisec_wire::MacAddr;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Length of a Michael key.
pub const KEY_LEN: usize = 8;
/// Length of a Michael MIC.
pub const MIC_LEN: usize = 8;

/// The Michael block function `b(L, R)` (12.5.2.3.3, Figure 12-14).
///
/// Every step depends on the one before (about 14 single-cycle operations
/// per word), so Michael runs best beside other work: TKIP interleaves it
/// with the RC4 keystream ([`crate::tkip`]).
#[inline(always)]
fn block(mut l: u32, mut r: u32) -> (u32, u32) {
    r ^= l.rotate_left(17);
    l = l.wrapping_add(r);
    // XSWAP exchanges the two bytes of each 16-bit half: a byte swap of
    // the word followed by swapping its halves, two operations deep.
    r ^= l.swap_bytes().rotate_left(16);
    l = l.wrapping_add(r);
    r ^= l.rotate_left(3);
    l = l.wrapping_add(r);
    r ^= l.rotate_right(2);
    l = l.wrapping_add(r);
    (l, r)
}

/// The state (L, R) after absorbing the little-endian message word `w`.
#[inline(always)]
pub(crate) fn absorb(l: u32, r: u32, w: u32) -> (u32, u32) {
    block(l ^ w, r)
}

/// A streaming Michael computation.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Michael {
    l: u32,
    r: u32,
    pending: [u8; 4],
    npending: usize,
}

impl core::fmt::Debug for Michael {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Michael { .. }")
    }
}

impl Michael {
    /// Starts a computation with a 64-bit key.
    pub fn new(key: &[u8; KEY_LEN]) -> Michael {
        Michael {
            l: u32::from_le_bytes([key[0], key[1], key[2], key[3]]),
            r: u32::from_le_bytes([key[4], key[5], key[6], key[7]]),
            pending: [0; 4],
            npending: 0,
        }
    }

    /// Starts a TKIP MSDU MIC: the key, then DA || SA || Priority || 0 0 0
    /// (12.5.2.3.3, Figure 12-13), four whole words absorbed as words (the
    /// byte-wise [`Michael::update`] took about 300 instructions for them).
    /// Only the low four bits of `priority` are used.
    pub fn with_header(key: &[u8; KEY_LEN], da: &MacAddr, sa: &MacAddr, priority: u8) -> Michael {
        let mut m = Michael::new(key);
        let mut hdr = [0u8; 16];
        hdr[..6].copy_from_slice(da.as_bytes());
        hdr[6..12].copy_from_slice(sa.as_bytes());
        hdr[12] = priority & 0x0f;
        for w in hdr.as_chunks::<4>().0 {
            m.word(u32::from_le_bytes(*w));
        }
        m
    }

    /// Absorbs one little-endian message word; only valid between whole
    /// words (no octets pending from [`Michael::update`]).
    #[inline(always)]
    pub(crate) fn word(&mut self, w: u32) {
        (self.l, self.r) = absorb(self.l, self.r, w);
    }

    /// The state (L, R) between whole words (no octets pending), for a
    /// loop that keeps it in registers: memory would put a store and a
    /// load into every step of the chain.
    #[inline(always)]
    pub(crate) fn state(&self) -> (u32, u32) {
        (self.l, self.r)
    }

    /// Sets the state taken with [`Michael::state`] after the loop.
    #[inline(always)]
    pub(crate) fn set_state(&mut self, (l, r): (u32, u32)) {
        self.l = l;
        self.r = r;
    }

    /// Feeds message bytes.
    pub fn update(&mut self, mut data: &[u8]) {
        while self.npending != 0 {
            let Some((&b, rest)) = data.split_first() else {
                return;
            };
            if let Some(p) = self.pending.get_mut(self.npending) {
                *p = b;
            }
            self.npending += 1;
            data = rest;
            if self.npending == 4 {
                self.npending = 0;
                self.word(u32::from_le_bytes(self.pending));
            }
        }
        let mut chunks = data.chunks_exact(4);
        for c in &mut chunks {
            self.word(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        }
        let rest = chunks.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.npending = rest.len();
    }

    /// Pads the message and returns the MIC.
    pub fn finalize(mut self) -> [u8; MIC_LEN] {
        // 0x5a, then zeros up to the end of this word, then one more zero
        // word: four to seven zero octets in all (12.5.2.3.3).
        let mut last = [0u8; 4];
        last[..self.npending].copy_from_slice(&self.pending[..self.npending]);
        if let Some(p) = last.get_mut(self.npending) {
            *p = 0x5a;
        }
        self.word(u32::from_le_bytes(last));
        self.word(0);
        let mut out = [0u8; MIC_LEN];
        out[..4].copy_from_slice(&self.l.to_le_bytes());
        out[4..].copy_from_slice(&self.r.to_le_bytes());
        out
    }
}

/// Michael over raw bytes.
pub fn michael(key: &[u8; KEY_LEN], data: &[u8]) -> [u8; MIC_LEN] {
    let mut m = Michael::new(key);
    m.update(data);
    m.finalize()
}

/// The TKIP MSDU MIC: Michael over DA || SA || Priority || 0 0 0 || MSDU
/// (12.5.2.3.3, Figure 12-13). `priority` is the TID of a QoS data frame
/// and 0 otherwise; only its low four bits are used.
pub fn michael_mic(
    key: &[u8; KEY_LEN],
    da: &MacAddr,
    sa: &MacAddr,
    priority: u8,
    msdu: &[u8],
) -> [u8; MIC_LEN] {
    let mut m = Michael::with_header(key, da, sa, priority);
    m.update(msdu);
    m.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xswap_swaps_the_bytes_of_each_half() {
        // 12.5.2.3.3: XSWAP(L) = ((L & 0xff00ff00) >> 8) | ((L & 0x00ff00ff) << 8).
        for l in [0x0102_0304u32, 0xdead_beef, 0, u32::MAX, 0x8000_0001] {
            let want = ((l & 0xff00_ff00) >> 8) | ((l & 0x00ff_00ff) << 8);
            assert_eq!(l.swap_bytes().rotate_left(16), want);
        }
    }

    #[test]
    fn streaming_in_any_split_matches() {
        let key = [1, 2, 3, 4, 5, 6, 7, 8];
        let data = b"Michael is the TKIP MIC, absorbed word by word";
        let whole = michael(&key, data);
        for a in 0..data.len() {
            for b in a..data.len() {
                let mut m = Michael::new(&key);
                m.update(&data[..a]);
                m.update(&data[a..b]);
                m.update(&data[b..]);
                assert_eq!(m.finalize(), whole, "split {a} {b}");
            }
        }
        let mut other = *data;
        other[5] ^= 1;
        assert_ne!(michael(&key, &other), whole);
    }
}
