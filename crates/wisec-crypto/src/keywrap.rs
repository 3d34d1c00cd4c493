//! Protection of the EAPOL-Key Key Data field (IEEE Std 802.11-2020,
//! 12.7.2) and the group keys it carries.
//!
//! - Key descriptor versions 2 and up: NIST AES Key Wrap (RFC 3394) with
//!   the KEK, on Key Data padded to a multiple of 8 octets (12.7.2 j). The
//!   wrap itself is the RustCrypto `aes-kw` crate.
//! - Key descriptor version 1 (WPA/TKIP): RC4 keyed with the EAPOL-Key IV
//!   followed by the KEK, the first 256 keystream octets discarded. RC4 is
//!   broken: this exists only to read legacy networks, hence `danger_`.
//! - The GTK, IGTK and BIGTK KDEs (12.7.2, Figure 12-35 and 12-37) found in
//!   decrypted Key Data, as borrowed slices.

use crate::rc4::Rc4;
use crate::{Error, Result};
use aes_kw::{KeyInit, KwAes128, KwAes192, KwAes256};
use wisec_wire::eapol::{KdeType, KeyDataItem, KeyDataIter};
use zeroize::Zeroize;

/// Octets AES key wrap adds (the integrity check value A).
pub const WRAP_OVERHEAD: usize = 8;

/// Shortest plaintext AES key wrap takes (two 64-bit blocks, RFC 3394
/// 2.2.1).
pub const WRAP_MIN_LEN: usize = 16;

enum Kw {
    A128(KwAes128),
    A192(KwAes192),
    A256(KwAes256),
}

impl Kw {
    fn new(kek: &[u8]) -> Result<Kw> {
        let bad = |_| Error::InvalidParameter;
        Ok(match kek.len() {
            16 => Kw::A128(KwAes128::new_from_slice(kek).map_err(bad)?),
            24 => Kw::A192(KwAes192::new_from_slice(kek).map_err(bad)?),
            32 => Kw::A256(KwAes256::new_from_slice(kek).map_err(bad)?),
            _ => return Err(Error::InvalidParameter),
        })
    }
}

/// Wraps `plaintext` (a multiple of 8 octets, at least 16) under a 16-,
/// 24- or 32-octet KEK with the default IV of RFC 3394 (2.2.3.1), writing
/// `plaintext.len() + 8` octets into `out`. Returns the wrapped length.
pub fn aes_wrap(kek: &[u8], plaintext: &[u8], out: &mut [u8]) -> Result<usize> {
    if plaintext.len() < WRAP_MIN_LEN || !plaintext.len().is_multiple_of(8) {
        return Err(Error::InvalidParameter);
    }
    let n = plaintext.len() + WRAP_OVERHEAD;
    let out = out.get_mut(..n).ok_or(Error::BufferTooSmall)?;
    let r = match Kw::new(kek)? {
        Kw::A128(k) => k.wrap_key(plaintext, out).map(|_| ()),
        Kw::A192(k) => k.wrap_key(plaintext, out).map(|_| ()),
        Kw::A256(k) => k.wrap_key(plaintext, out).map(|_| ()),
    };
    match r {
        Ok(()) => Ok(n),
        Err(_) => {
            out.zeroize();
            Err(Error::InvalidParameter)
        }
    }
}

/// Unwraps `wrapped` (a multiple of 8 octets, at least 24) under the KEK
/// into `out`, returning the plaintext length (`wrapped.len() - 8`).
/// `Integrity` when the recovered IV is not the default IV; `out` is wiped
/// then and on every other failure.
pub fn aes_unwrap(kek: &[u8], wrapped: &[u8], out: &mut [u8]) -> Result<usize> {
    if wrapped.len() < WRAP_MIN_LEN + WRAP_OVERHEAD || !wrapped.len().is_multiple_of(8) {
        return Err(Error::Malformed);
    }
    let n = wrapped.len() - WRAP_OVERHEAD;
    let out = out.get_mut(..n).ok_or(Error::BufferTooSmall)?;
    let kw = match Kw::new(kek) {
        Ok(k) => k,
        Err(e) => {
            out.zeroize();
            return Err(e);
        }
    };
    let r = match kw {
        Kw::A128(k) => k.unwrap_key(wrapped, out).map(|_| ()),
        Kw::A192(k) => k.unwrap_key(wrapped, out).map(|_| ()),
        Kw::A256(k) => k.unwrap_key(wrapped, out).map(|_| ()),
    };
    match r {
        Ok(()) => Ok(n),
        Err(e) => {
            out.zeroize();
            Err(match e {
                aes_kw::Error::IntegrityCheckFailed => Error::Integrity,
                _ => Error::Malformed,
            })
        }
    }
}

/// Length of Key Data of `len` octets once padded for key wrap (12.7.2
/// j): unchanged when it is a multiple of 8 and at least 16, else rounded
/// up to a multiple of 8 and to at least 16.
pub const fn padded_len(len: usize) -> usize {
    let l = if len < WRAP_MIN_LEN {
        WRAP_MIN_LEN
    } else {
        len
    };
    l.div_ceil(8) * 8
}

/// Pads the Key Data `buf[..len]` in place for key wrap (12.7.2 j): when
/// padding is needed, one octet 0xdd and then zero octets up to
/// [`padded_len`]. Returns the padded length.
pub fn pad_key_data(buf: &mut [u8], len: usize) -> Result<usize> {
    let p = padded_len(len);
    let pad = buf.get_mut(len..p).ok_or(Error::BufferTooSmall)?;
    if let Some((first, rest)) = pad.split_first_mut() {
        *first = 0xdd;
        rest.fill(0);
    }
    Ok(p)
}

/// Wraps Key Data that is already padded (see [`pad_key_data`]) for an
/// EAPOL-Key frame of key descriptor version 2 or up; an alias of
/// [`aes_wrap`] named for the authenticator side.
pub fn wrap_key_data(kek: &[u8], padded: &[u8], out: &mut [u8]) -> Result<usize> {
    aes_wrap(kek, padded, out)
}

/// Decrypts version 1 Key Data in place: RC4 with the key `key_iv ||
/// kek`, the first 256 keystream octets discarded (IEEE Std 802.11-2020,
/// 12.7.2; IEEE Std 802.11i-2004, 8.5.2). The same call encrypts.
pub fn danger_rc4_key_data(kek: &[u8], key_iv: &[u8; 16], data: &mut [u8]) -> Result<()> {
    if kek.len() != 16 {
        return Err(Error::InvalidParameter);
    }
    let mut key = [0u8; 32];
    key[..16].copy_from_slice(key_iv);
    key[16..].copy_from_slice(kek);
    let rc4 = Rc4::new(&key);
    key.zeroize();
    let mut rc4 = rc4?;
    rc4.skip(256);
    rc4.apply_keystream(data);
    Ok(())
}

/// Decrypts the Key Data of an EAPOL-Key frame with key descriptor
/// `version` into `out`, returning the plaintext length: version 1 by RC4
/// (same length), versions 0, 2 and 3 by AES key unwrap (8 octets
/// shorter). On failure `out` is wiped and nothing is returned.
///
/// Version 1 has no integrity check of its own: only the Key MIC, checked
/// first, vouches for the result.
pub fn decrypt_key_data(
    version: u8,
    kek: &[u8],
    key_iv: &[u8; 16],
    data: &[u8],
    out: &mut [u8],
) -> Result<usize> {
    match version {
        1 => {
            let out = out.get_mut(..data.len()).ok_or(Error::BufferTooSmall)?;
            out.copy_from_slice(data);
            if let Err(e) = danger_rc4_key_data(kek, key_iv, out) {
                out.zeroize();
                return Err(e);
            }
            Ok(data.len())
        }
        0 | 2 | 3 => aes_unwrap(kek, data, out),
        _ => Err(Error::Unsupported),
    }
}

/// A GTK from a GTK KDE (12.7.2, Figure 12-35).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Gtk<'a> {
    /// Key ID (0 to 3).
    pub key_id: u8,
    /// The Tx bit: the GTK is also used for transmission by the
    /// supplicant.
    pub tx: bool,
    /// The key.
    pub key: &'a [u8],
}

/// An IGTK or BIGTK from its KDE (12.7.2, Figure 12-37 and Figure 12-39).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Igtk<'a> {
    /// Key ID (4 or 5 for IGTK, 6 or 7 for BIGTK).
    pub key_id: u16,
    /// The 48-bit IPN (BIPN for BIGTK) to start from.
    pub ipn: u64,
    /// The key.
    pub key: &'a [u8],
}

impl core::fmt::Debug for Gtk<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "Gtk {{ key_id: {}, tx: {}, len: {}, .. }}",
            self.key_id,
            self.tx,
            self.key.len()
        )
    }
}

impl core::fmt::Debug for Igtk<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "Igtk {{ key_id: {}, ipn: {}, len: {}, .. }}",
            self.key_id,
            self.ipn,
            self.key.len()
        )
    }
}

/// Finds the one KDE of type `t` in plaintext Key Data: `Ok(None)` when
/// absent, `Malformed` when the Key Data does not parse or holds it twice.
fn find_kde(key_data: &[u8], t: KdeType) -> Result<Option<&[u8]>> {
    let mut found = None;
    for item in KeyDataIter::new(key_data) {
        if let KeyDataItem::Kde(k) = item? {
            if k.kde_type == t {
                if found.is_some() {
                    return Err(Error::Malformed);
                }
                found = Some(k.data);
            }
        }
    }
    Ok(found)
}

/// The GTK KDE of plaintext Key Data (padding after it is ignored). The
/// key must be 5 to 32 octets (WEP-40 to GCMP-256/TKIP).
pub fn find_gtk(key_data: &[u8]) -> Result<Option<Gtk<'_>>> {
    let Some(d) = find_kde(key_data, KdeType::GTK)? else {
        return Ok(None);
    };
    // Octet 0: Key ID (bits 0-1), Tx (bit 2); octet 1 reserved.
    let (&flags, rest) = d.split_first().ok_or(Error::Malformed)?;
    let key = rest.get(1..).ok_or(Error::Malformed)?;
    if !(5..=32).contains(&key.len()) {
        return Err(Error::Malformed);
    }
    Ok(Some(Gtk {
        key_id: flags & 0x03,
        tx: flags & 0x04 != 0,
        key,
    }))
}

fn find_igtk_like(key_data: &[u8], t: KdeType) -> Result<Option<Igtk<'_>>> {
    let Some(d) = find_kde(key_data, t)? else {
        return Ok(None);
    };
    // Key ID (2 octets LE), IPN (6 octets LE), key (16 or 32 octets).
    if d.len() != 8 + 16 && d.len() != 8 + 32 {
        return Err(Error::Malformed);
    }
    let (head, key) = d.split_at(8);
    let key_id = u16::from_le_bytes([head[0], head[1]]);
    let mut ipn = [0u8; 8];
    ipn[..6].copy_from_slice(&head[2..8]);
    Ok(Some(Igtk {
        key_id,
        ipn: u64::from_le_bytes(ipn),
        key,
    }))
}

/// The IGTK KDE of plaintext Key Data (key of 16 or 32 octets).
pub fn find_igtk(key_data: &[u8]) -> Result<Option<Igtk<'_>>> {
    find_igtk_like(key_data, KdeType::IGTK)
}

/// The BIGTK KDE of plaintext Key Data (key of 16 or 32 octets).
pub fn find_bigtk(key_data: &[u8]) -> Result<Option<Igtk<'_>>> {
    find_igtk_like(key_data, KdeType::BIGTK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_rule() {
        assert_eq!(padded_len(0), 16);
        assert_eq!(padded_len(15), 16);
        assert_eq!(padded_len(16), 16);
        assert_eq!(padded_len(17), 24);
        assert_eq!(padded_len(24), 24);
        let mut b = [0xaau8; 24];
        assert_eq!(pad_key_data(&mut b, 18), Ok(24));
        assert_eq!(b[18..], [0xdd, 0, 0, 0, 0, 0]);
        let mut b = [0xaau8; 24];
        assert_eq!(pad_key_data(&mut b, 24), Ok(24));
        assert_eq!(b, [0xaa; 24]);
        assert_eq!(pad_key_data(&mut b[..20], 17), Err(Error::BufferTooSmall));
    }

    #[test]
    fn wrap_rejects_bad_sizes() {
        let mut out = [0u8; 64];
        assert_eq!(
            aes_wrap(&[0; 16], &[0; 8], &mut out),
            Err(Error::InvalidParameter)
        );
        assert_eq!(
            aes_wrap(&[0; 16], &[0; 17], &mut out),
            Err(Error::InvalidParameter)
        );
        assert_eq!(
            aes_wrap(&[0; 15], &[0; 16], &mut out),
            Err(Error::InvalidParameter)
        );
        assert_eq!(
            aes_wrap(&[0; 16], &[0; 16], &mut out[..23]),
            Err(Error::BufferTooSmall)
        );
        assert_eq!(
            aes_unwrap(&[0; 16], &[0; 16], &mut out),
            Err(Error::Malformed)
        );
        assert_eq!(
            aes_unwrap(&[0; 16], &[0; 25], &mut out),
            Err(Error::Malformed)
        );
        assert_eq!(
            decrypt_key_data(4, &[0; 16], &[0; 16], &[0; 24], &mut out),
            Err(Error::Unsupported)
        );
    }

    #[test]
    fn unwrap_failure_wipes_output() {
        let mut wrapped = [0u8; 32];
        aes_wrap(&[1; 16], &[2; 24], &mut wrapped).unwrap();
        wrapped[31] ^= 1;
        let mut out = [0x55u8; 24];
        assert_eq!(
            aes_unwrap(&[1; 16], &wrapped, &mut out),
            Err(Error::Integrity)
        );
        assert_eq!(out, [0; 24]);
    }

    #[test]
    fn kde_lookup() {
        // RSNE-like element, GTK KDE (key ID 1, Tx), IGTK KDE, padding.
        let mut kd = [0u8; 80];
        let mut n = 0;
        let mut put = |b: &[u8]| {
            kd[n..n + b.len()].copy_from_slice(b);
            n += b.len();
        };
        put(&[0x30, 2, 1, 0]);
        put(&[0xdd, 22, 0x00, 0x0f, 0xac, 1, 0x05, 0]);
        put(&[0x11; 16]);
        put(&[0xdd, 28, 0x00, 0x0f, 0xac, 9, 4, 0, 1, 2, 3, 4, 5, 6]);
        put(&[0x22; 16]);
        let len = n;
        let total = pad_key_data(&mut kd, len).unwrap();
        let kd = &kd[..total];
        let g = find_gtk(kd).unwrap().unwrap();
        assert_eq!((g.key_id, g.tx, g.key), (1, true, &[0x11; 16][..]));
        let i = find_igtk(kd).unwrap().unwrap();
        assert_eq!(
            (i.key_id, i.ipn, i.key),
            (4, 0x060504030201, &[0x22; 16][..])
        );
        assert_eq!(find_bigtk(kd), Ok(None));
        // A truncated element is an error, not a panic.
        assert!(find_gtk(&kd[..20]).is_err());
        // A GTK KDE twice is refused.
        let mut twice = [0u8; 48];
        twice[..24].copy_from_slice(&kd[4..28]);
        twice[24..].copy_from_slice(&kd[4..28]);
        assert_eq!(find_gtk(&twice), Err(Error::Malformed));
        // An IGTK of a bad length is refused.
        let mut short = [0u8; 30];
        short[..30].copy_from_slice(&kd[28..58]);
        short[1] = 27;
        assert_eq!(find_igtk(&short[..29]), Err(Error::Malformed));
    }
}
