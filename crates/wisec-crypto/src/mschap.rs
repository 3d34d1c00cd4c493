//! The MS-CHAP primitives that Cisco's LEAP is built from (RFC 2759,
//! section 8, and RFC 2433, appendix A): the NT password hash, its hash,
//! and the DES challenge response; and LEAP's session key.
//!
//! These are weak by design — a 24-octet response reveals the password
//! hash to an offline dictionary search, and DES with 56-bit keys is
//! broken — which is why their only use here is the legacy LEAP method of
//! seed 001 (`danger_` in every name says so).

use des::cipher::{BlockCipherEncrypt, KeyInit};
use des::Des;
use md4::{Digest, Md4};
use zeroize::Zeroize;

/// Length of a password hash (an MD4 digest).
pub const HASH_LEN: usize = 16;
/// Length of a challenge.
pub const CHALLENGE_LEN: usize = 8;
/// Length of a challenge response.
pub const RESPONSE_LEN: usize = 24;

/// NtPasswordHash (RFC 2759, 8.3): MD4 of the password in UTF-16LE
/// ("Unicode"), without a terminating zero.
pub fn danger_nt_password_hash(password: &str) -> [u8; HASH_LEN] {
    let mut h = Md4::new();
    for unit in password.encode_utf16() {
        h.update(unit.to_le_bytes());
    }
    h.finalize().into()
}

/// HashNtPasswordHash (RFC 2759, 8.4): MD4 of the password hash.
pub fn danger_hash_nt_password_hash(hash: &[u8; HASH_LEN]) -> [u8; HASH_LEN] {
    Md4::digest(hash).into()
}

/// Spreads a 7-octet DES key over 8 octets, 7 bits in each (the low bit
/// of every octet is the parity bit, which DES ignores): DesEncrypt of
/// RFC 2759, 8.6.
fn des_key(k7: &[u8]) -> [u8; 8] {
    let mut bits = 0u64;
    for &b in k7.iter().take(7) {
        bits = (bits << 8) | u64::from(b);
    }
    let mut k = [0u8; 8];
    for (i, o) in k.iter_mut().enumerate() {
        *o = (((bits >> (49 - 7 * i)) & 0x7f) as u8) << 1;
    }
    bits.zeroize();
    k
}

/// ChallengeResponse (RFC 2759, 8.5): the 16-octet hash padded with five
/// zero octets to 21 and cut into three 7-octet DES keys, each of which
/// encrypts the 8-octet challenge.
pub fn danger_challenge_response(
    challenge: &[u8; CHALLENGE_LEN],
    hash: &[u8; HASH_LEN],
) -> [u8; RESPONSE_LEN] {
    let mut z = [0u8; 21];
    z[..HASH_LEN].copy_from_slice(hash);
    let mut out = [0u8; RESPONSE_LEN];
    for (i, chunk) in out.chunks_exact_mut(8).enumerate() {
        let mut k = des_key(&z[7 * i..7 * i + 7]);
        let cipher = Des::new(&k.into());
        let mut block = (*challenge).into();
        cipher.encrypt_block(&mut block);
        chunk.copy_from_slice(&block);
        k.zeroize();
    }
    z.zeroize();
    out
}

/// NtChallengeResponse: the response of a peer that knows the password
/// (the NT-Response of MS-CHAP, and LEAP's peer response).
pub fn danger_nt_challenge_response(
    challenge: &[u8; CHALLENGE_LEN],
    password: &str,
) -> [u8; RESPONSE_LEN] {
    let mut h = danger_nt_password_hash(password);
    let r = danger_challenge_response(challenge, &h);
    h.zeroize();
    r
}

/// The LEAP session key (Cisco; wpa_supplicant's `eap_leap_getKey`):
/// MD5(HashNtPasswordHash | AP challenge | AP response | peer challenge |
/// peer response), 16 octets.
pub fn danger_leap_session_key(
    hash_hash: &[u8; HASH_LEN],
    ap_challenge: &[u8; CHALLENGE_LEN],
    ap_response: &[u8; RESPONSE_LEN],
    peer_challenge: &[u8; CHALLENGE_LEN],
    peer_response: &[u8; RESPONSE_LEN],
) -> [u8; 16] {
    use md5::Md5;
    let mut h = Md5::new();
    h.update(hash_hash);
    h.update(ap_challenge);
    h.update(ap_response);
    h.update(peer_challenge);
    h.update(peer_response);
    h.finalize().into()
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    fn hex(s: &str) -> std::vec::Vec<u8> {
        ::hex::decode(s).unwrap()
    }

    /// RFC 2759, 9.2: the worked example ("clientPass").
    #[test]
    fn rfc2759_vectors() {
        let h = danger_nt_password_hash("clientPass");
        assert_eq!(h.to_vec(), hex("44EBBA8D5312B8D611474411F56989AE"));
        let hh = danger_hash_nt_password_hash(&h);
        assert_eq!(hh.to_vec(), hex("41C00C584BD2D91C4017A2A12FA59F3F"));
        let c: [u8; 8] = hex("D02E4386BCE91226").try_into().unwrap();
        let r = danger_challenge_response(&c, &h);
        assert_eq!(
            r.to_vec(),
            hex("82309ECD8D708B5EA08FAA3981CD83544233114A3D85D6DF")
        );
        assert_eq!(danger_nt_challenge_response(&c, "clientPass"), r);
        // Another password, another challenge: another response.
        assert_ne!(danger_nt_challenge_response(&c, "clientPasz"), r);
        let mut c2 = c;
        c2[7] ^= 1;
        assert_ne!(danger_challenge_response(&c2, &h), r);
    }

    #[test]
    fn des_keys_carry_seven_bits_per_octet() {
        assert_eq!(des_key(&[0xff; 7]), [0xfe; 8]);
        assert_eq!(des_key(&[0; 7]), [0; 8]);
        // The first bit of the key is the top bit of the first octet.
        assert_eq!(des_key(&[0x80, 0, 0, 0, 0, 0, 0])[0], 0x80);
        assert_eq!(des_key(&[0, 0, 0, 0, 0, 0, 1])[7], 0x02);
    }
}
