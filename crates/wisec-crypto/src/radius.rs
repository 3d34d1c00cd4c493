//! The MD5 constructions of RADIUS that carry 802.1X keys and protect EAP:
//! the Response Authenticator (RFC 2865, 3), the Message-Authenticator
//! (RFC 2869, 5.14; RFC 3579, 3.2) and the encryption of the
//! MS-MPPE-Send-Key and MS-MPPE-Recv-Key attributes (RFC 2548, 2.4.2 and
//! 2.4.3), which is also how Cisco's `leap:session-key` is hidden.
//!
//! A packet is passed as its bytes (header, authenticator, attributes);
//! nothing is concatenated into a temporary buffer: the parts are fed to
//! the hash one after another.

use crate::{Error, Result};
use hmac::{Hmac, KeyInit, Mac};
use md5::{Digest, Md5};
use zeroize::Zeroize;

/// Length of the Request and Response Authenticators and of the
/// Message-Authenticator value.
pub const AUTH_LEN: usize = 16;
/// Offset of the Authenticator field in a packet.
pub const AUTH_OFFSET: usize = 4;
/// Length of a packet's header and authenticator.
pub const HEADER_LEN: usize = 20;

/// The Response Authenticator of a response `packet` to the request whose
/// Request Authenticator was `request_auth` (RFC 2865, 3):
/// MD5(Code + Identifier + Length + RequestAuth + Attributes + Secret).
/// The packet's own Authenticator field is not read.
pub fn response_authenticator(
    packet: &[u8],
    request_auth: &[u8; AUTH_LEN],
    secret: &[u8],
) -> Result<[u8; AUTH_LEN]> {
    if packet.len() < HEADER_LEN {
        return Err(Error::Malformed);
    }
    let mut h = Md5::new();
    h.update(&packet[..AUTH_OFFSET]);
    h.update(request_auth);
    h.update(&packet[HEADER_LEN..]);
    h.update(secret);
    Ok(h.finalize().into())
}

/// The Message-Authenticator of `packet` (RFC 3579, 3.2): HMAC-MD5 keyed
/// with the shared secret over the whole packet, with the Authenticator
/// field taken as `authenticator` (the packet's own Request Authenticator
/// for an Access-Request; the request's for a response) and the 16 octets
/// of the Message-Authenticator value at `ma_value_offset` taken as zero.
pub fn message_authenticator(
    packet: &[u8],
    authenticator: &[u8; AUTH_LEN],
    ma_value_offset: usize,
    secret: &[u8],
) -> Result<[u8; AUTH_LEN]> {
    let end = ma_value_offset
        .checked_add(AUTH_LEN)
        .ok_or(Error::Malformed)?;
    if packet.len() < HEADER_LEN || ma_value_offset < HEADER_LEN || end > packet.len() {
        return Err(Error::Malformed);
    }
    let mut m =
        <Hmac<Md5> as KeyInit>::new_from_slice(secret).map_err(|_| Error::InvalidParameter)?;
    m.update(&packet[..AUTH_OFFSET]);
    m.update(authenticator);
    m.update(&packet[HEADER_LEN..ma_value_offset]);
    m.update(&[0u8; AUTH_LEN]);
    m.update(&packet[end..]);
    Ok(m.finalize().into_bytes().into())
}

/// Whether two 16-octet values are equal, in constant time.
pub fn authenticators_equal(a: &[u8; AUTH_LEN], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    b.len() == AUTH_LEN && bool::from(a.ct_eq(b))
}

/// The largest key [`mppe_encrypt`] takes: the plaintext (length octet,
/// key, padding) fits a 253-octet vendor attribute.
pub const MPPE_KEY_MAX: usize = 223;

/// The length of the attribute value [`mppe_encrypt`] writes for a key of
/// `key_len` octets: salt (2) and the length octet and key padded to a
/// multiple of 16.
pub const fn mppe_value_len(key_len: usize) -> usize {
    2 + (1 + key_len).div_ceil(16) * 16
}

/// The 16-octet pad b(i) of RFC 2548, 2.4.2: MD5(S + R + A) for the first
/// block, MD5(S + c(i-1)) after.
fn mppe_pad(secret: &[u8], first: Option<(&[u8; AUTH_LEN], [u8; 2])>, prev: &[u8]) -> [u8; 16] {
    let mut h = Md5::new();
    h.update(secret);
    match first {
        Some((r, salt)) => {
            h.update(r);
            h.update(salt);
        }
        None => h.update(prev),
    }
    h.finalize().into()
}

/// Encrypts `key` as the value of an MS-MPPE-Send-Key or -Recv-Key
/// attribute (RFC 2548, 2.4.2): `salt` (its top bit is set here, as the
/// RFC requires), then the length octet, the key and zero padding to a
/// multiple of 16, each 16-octet block XORed with b(i). `request_auth` is
/// the Request Authenticator of the Access-Request being answered. The
/// value's length, [`mppe_value_len`].
pub fn mppe_encrypt(
    key: &[u8],
    salt: [u8; 2],
    request_auth: &[u8; AUTH_LEN],
    secret: &[u8],
    out: &mut [u8],
) -> Result<usize> {
    if key.len() > MPPE_KEY_MAX {
        return Err(Error::InvalidParameter);
    }
    let n = mppe_value_len(key.len());
    let out = out.get_mut(..n).ok_or(Error::BufferTooSmall)?;
    let salt = [salt[0] | 0x80, salt[1]];
    out[..2].copy_from_slice(&salt);
    let body = &mut out[2..];
    body.fill(0);
    body[0] = key.len() as u8;
    body[1..=key.len()].copy_from_slice(key);
    let mut prev = [0u8; 16];
    for (i, block) in body.chunks_exact_mut(16).enumerate() {
        let mut b = if i == 0 {
            mppe_pad(secret, Some((request_auth, salt)), &[])
        } else {
            mppe_pad(secret, None, &prev)
        };
        for (x, y) in block.iter_mut().zip(b.iter()) {
            *x ^= y;
        }
        prev.copy_from_slice(block);
        b.zeroize();
    }
    Ok(n)
}

/// Decrypts the value of an MS-MPPE-Send-Key or -Recv-Key attribute
/// (RFC 2548, 2.4.3): the key, written to `out`, and its length. A value
/// that is not a salt and whole 16-octet blocks, or whose length octet
/// does not fit them, is malformed (with a wrong shared secret the length
/// octet is noise and is usually caught here).
pub fn mppe_decrypt(
    value: &[u8],
    request_auth: &[u8; AUTH_LEN],
    secret: &[u8],
    out: &mut [u8],
) -> Result<usize> {
    if value.len() < 2 + 16 || !(value.len() - 2).is_multiple_of(16) {
        return Err(Error::Malformed);
    }
    let salt = [value[0], value[1]];
    let cipher = &value[2..];
    let mut plain = [0u8; 256];
    let plain = plain.get_mut(..cipher.len()).ok_or(Error::Malformed)?;
    for (i, (c, p)) in cipher
        .chunks_exact(16)
        .zip(plain.chunks_exact_mut(16))
        .enumerate()
    {
        let mut b = if i == 0 {
            mppe_pad(secret, Some((request_auth, salt)), &[])
        } else {
            mppe_pad(secret, None, &cipher[16 * (i - 1)..16 * i])
        };
        for ((p, c), b) in p.iter_mut().zip(c).zip(b.iter()) {
            *p = c ^ b;
        }
        b.zeroize();
    }
    let len = usize::from(plain[0]);
    let result = if len + 1 > plain.len() {
        Err(Error::Malformed)
    } else if let Some(o) = out.get_mut(..len) {
        o.copy_from_slice(&plain[1..=len]);
        Ok(len)
    } else {
        Err(Error::BufferTooSmall)
    };
    plain.zeroize();
    result
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    fn hex(s: &str) -> std::vec::Vec<u8> {
        ::hex::decode(s.replace(' ', "")).unwrap()
    }

    /// RFC 2865, 7.1: an Access-Accept for the example's Access-Request,
    /// shared secret "xyzzy5461".
    #[test]
    fn rfc2865_response_authenticator() {
        let request = hex("01 00 00 38 0f 40 3f 94 73 97 80 57 bd 83 d5 cb \
             98 f4 22 7a 01 06 6e 65 6d 6f 02 12 0d be 70 8d \
             93 d4 13 ce 31 96 e4 3f 78 2a 0a ee 04 06 c0 a8 \
             01 10 05 06 00 00 00 03");
        let accept = hex("02 00 00 26 86 fe 22 0e 76 24 ba 2a 10 05 f6 bf \
             9b 55 e0 b2 06 06 00 00 00 01 0f 06 00 00 00 00 \
             0e 06 c0 a8 01 03");
        let ra: [u8; 16] = request[4..20].try_into().unwrap();
        let got = response_authenticator(&accept, &ra, b"xyzzy5461").unwrap();
        assert!(authenticators_equal(&got, &accept[4..20]));
        assert!(!authenticators_equal(
            &response_authenticator(&accept, &ra, b"xyzzy5462").unwrap(),
            &accept[4..20]
        ));
        let mut bad = accept.clone();
        bad[25] ^= 1;
        assert!(!authenticators_equal(
            &response_authenticator(&bad, &ra, b"xyzzy5461").unwrap(),
            &accept[4..20]
        ));
    }

    #[test]
    fn mppe_keys_round_trip_and_depend_on_every_input() {
        let ra = [7u8; 16];
        for len in [16usize, 32, 64] {
            let key: std::vec::Vec<u8> = (0..len as u8).collect();
            let mut v = [0u8; 256];
            let n = mppe_encrypt(&key, [0x12, 0x34], &ra, b"s3cret", &mut v).unwrap();
            assert_eq!(n, mppe_value_len(len));
            assert_eq!(v[0] & 0x80, 0x80, "the salt's top bit is set");
            let mut out = [0u8; 64];
            let k = mppe_decrypt(&v[..n], &ra, b"s3cret", &mut out).unwrap();
            assert_eq!(&out[..k], &key[..]);
            // Another request authenticator or secret: another key.
            let mut ra2 = ra;
            ra2[0] ^= 1;
            let w = mppe_decrypt(&v[..n], &ra2, b"s3cret", &mut out);
            assert!(w.is_err() || out[..w.unwrap()] != key[..]);
        }
        assert!(mppe_decrypt(&[0x80, 0, 1, 2], &ra, b"s", &mut [0u8; 32]).is_err());
    }

    #[test]
    fn message_authenticator_checks_its_bounds() {
        let p = [0u8; 38];
        assert!(message_authenticator(&p, &[0; 16], 22, b"k").is_ok());
        assert!(message_authenticator(&p, &[0; 16], 23, b"k").is_err());
        assert!(message_authenticator(&p, &[0; 16], 4, b"k").is_err());
    }
}
