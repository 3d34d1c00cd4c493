//! DiscoSec key material (seed 003, section 3.3): ECDH key pairs on the
//! offered curves, the master key MK (the ECDH shared secret) and the
//! session key SK = the 128 least-significant bits of SHA-256(MK ‖ AT).
//!
//! * MK is the x-coordinate of the shared point, as a big-endian field
//!   element of the curve's length (28, 32 or 48 octets: the SEC 1, 3.3.1
//!   ECDH primitive, what OpenSSL's `ECDH_compute_key` returns).
//! * AT enters the hash as its 4 transmitted octets (little-endian).
//! * "The 128 least-significant bits" of the digest read as a big-endian
//!   integer are its last 16 octets: SK = SHA-256(MK ‖ AT)[16..32].
//!
//! Secret scalars, MK and SK are wiped when dropped.

use super::Error;
use rand_core::CryptoRng;
use sha2::{Digest, Sha256};
use wisec_wire::discosec::{Group, MAX_POINT_LEN};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// A curve DiscoSec offers. The paper's 128-bit curve (about 64-bit
/// security) is below any modern security level and is not offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Curve {
    /// NIST P-224 (secp224r1).
    P224,
    /// NIST P-256 (secp256r1), the default.
    #[default]
    P256,
    /// NIST P-384 (secp384r1).
    P384,
}

impl Curve {
    /// Every offered curve.
    pub const ALL: [Curve; 3] = [Curve::P224, Curve::P256, Curve::P384];

    /// EC_Param on the wire.
    pub const fn group(self) -> Group {
        match self {
            Curve::P224 => Group::P224,
            Curve::P256 => Group::P256,
            Curve::P384 => Group::P384,
        }
    }

    /// The curve of an EC_Param value, `None` when not offered.
    pub fn from_group(g: Group) -> Option<Curve> {
        Curve::ALL.into_iter().find(|c| c.group() == g)
    }

    /// Length of a field element and of MK.
    pub const fn field_len(self) -> usize {
        match self {
            Curve::P224 => 28,
            Curve::P256 => 32,
            Curve::P384 => 48,
        }
    }

    /// Length of an uncompressed point.
    pub const fn point_len(self) -> usize {
        1 + 2 * self.field_len()
    }
}

/// A public key: a SEC1 uncompressed point of a known curve, owned.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicPoint {
    curve: Curve,
    bytes: [u8; MAX_POINT_LEN],
}

impl core::fmt::Debug for PublicPoint {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PublicPoint({:?}, ", self.curve)?;
        for b in self.as_bytes().iter().take(9) {
            write!(f, "{b:02x}")?;
        }
        f.write_str("..)")
    }
}

impl PublicPoint {
    /// Copies an encoded point after checking that it is a valid point of
    /// `curve` (on the curve, not the identity): `BadPoint` otherwise.
    pub fn from_sec1(curve: Curve, bytes: &[u8]) -> Result<PublicPoint, Error> {
        if bytes.len() != curve.point_len() || bytes.first() != Some(&4) {
            return Err(Error::BadPoint);
        }
        let ok = match curve {
            Curve::P224 => p224::PublicKey::from_sec1_bytes(bytes).is_ok(),
            Curve::P256 => p256::PublicKey::from_sec1_bytes(bytes).is_ok(),
            Curve::P384 => p384::PublicKey::from_sec1_bytes(bytes).is_ok(),
        };
        if !ok {
            return Err(Error::BadPoint);
        }
        let mut out = [0u8; MAX_POINT_LEN];
        out.get_mut(..bytes.len())
            .ok_or(Error::BadPoint)?
            .copy_from_slice(bytes);
        Ok(PublicPoint { curve, bytes: out })
    }

    /// The curve.
    pub const fn curve(&self) -> Curve {
        self.curve
    }

    /// The SEC1 uncompressed encoding.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes
            .get(..self.curve.point_len())
            .unwrap_or(&self.bytes)
    }
}

enum Secret {
    P224(p224::SecretKey),
    P256(p256::SecretKey),
    P384(p384::SecretKey),
}

/// An ECDH key pair. The secret scalar is wiped on drop (the RustCrypto
/// `SecretKey` zeroizes itself).
pub struct KeyPair {
    secret: Secret,
    public: PublicPoint,
}

impl core::fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyPair")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

macro_rules! encode {
    ($pk:expr) => {{
        use p256::elliptic_curve::sec1::ToSec1Point;
        let enc = $pk.to_sec1_point(false);
        let mut out = [0u8; MAX_POINT_LEN];
        let b = enc.as_bytes();
        if let Some(dst) = out.get_mut(..b.len()) {
            dst.copy_from_slice(b);
        }
        out
    }};
}

impl KeyPair {
    /// Draws a fresh key pair from `rng`.
    pub fn generate<R: CryptoRng + ?Sized>(curve: Curve, rng: &mut R) -> KeyPair {
        use p256::elliptic_curve::Generate;
        let secret = match curve {
            Curve::P224 => Secret::P224(p224::SecretKey::generate_from_rng(rng)),
            Curve::P256 => Secret::P256(p256::SecretKey::generate_from_rng(rng)),
            Curve::P384 => Secret::P384(p384::SecretKey::generate_from_rng(rng)),
        };
        Self::from_secret(curve, secret)
    }

    /// A key pair from a big-endian secret scalar (a key loaded at start-up,
    /// seed 003 section 3.3, or a test vector). `InvalidKey` when the
    /// scalar is zero, not below the group order, or of the wrong length.
    pub fn from_secret_bytes(curve: Curve, scalar: &[u8]) -> Result<KeyPair, Error> {
        if scalar.len() != curve.field_len() {
            return Err(Error::InvalidKey);
        }
        let secret = match curve {
            Curve::P224 => {
                Secret::P224(p224::SecretKey::from_slice(scalar).map_err(|_| Error::InvalidKey)?)
            }
            Curve::P256 => {
                Secret::P256(p256::SecretKey::from_slice(scalar).map_err(|_| Error::InvalidKey)?)
            }
            Curve::P384 => {
                Secret::P384(p384::SecretKey::from_slice(scalar).map_err(|_| Error::InvalidKey)?)
            }
        };
        Ok(Self::from_secret(curve, secret))
    }

    fn from_secret(curve: Curve, secret: Secret) -> KeyPair {
        let bytes = match &secret {
            Secret::P224(s) => encode!(s.public_key()),
            Secret::P256(s) => encode!(s.public_key()),
            Secret::P384(s) => encode!(s.public_key()),
        };
        KeyPair {
            secret,
            public: PublicPoint { curve, bytes },
        }
    }

    /// The curve.
    pub fn curve(&self) -> Curve {
        self.public.curve
    }

    /// The public key.
    pub fn public(&self) -> &PublicPoint {
        &self.public
    }

    /// ECDH with the peer's public key: MK. The peer key must be of this
    /// key pair's curve (`CurveMismatch`) and a valid point (`BadPoint`).
    pub fn agree(&self, peer: &[u8]) -> Result<MasterKey, Error> {
        macro_rules! dh {
            ($c:ident, $s:expr) => {{
                let pk = $c::PublicKey::from_sec1_bytes(peer).map_err(|_| Error::BadPoint)?;
                let shared = $s.diffie_hellman(&pk);
                MasterKey::from_slice(shared.raw_secret_bytes())
            }};
        }
        if peer.len() != self.curve().point_len() {
            return Err(Error::CurveMismatch);
        }
        if peer.first() != Some(&4) {
            return Err(Error::BadPoint);
        }
        match &self.secret {
            Secret::P224(s) => dh!(p224, s),
            Secret::P256(s) => dh!(p256, s),
            Secret::P384(s) => dh!(p384, s),
        }
    }
}

/// The master key MK: the ECDH shared secret. Wiped on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct MasterKey {
    bytes: [u8; 48],
    len: u8,
}

impl core::fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("MasterKey(..)")
    }
}

impl MasterKey {
    /// From the shared-secret octets (28, 32 or 48 of them).
    pub fn from_slice(mk: &[u8]) -> Result<MasterKey, Error> {
        if !matches!(mk.len(), 28 | 32 | 48) {
            return Err(Error::InvalidKey);
        }
        let mut bytes = [0u8; 48];
        bytes
            .get_mut(..mk.len())
            .ok_or(Error::InvalidKey)?
            .copy_from_slice(mk);
        Ok(MasterKey {
            bytes,
            len: mk.len() as u8,
        })
    }

    /// The octets of MK.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes
            .get(..usize::from(self.len))
            .unwrap_or(&self.bytes)
    }

    /// SK for association token `at`: the 128 least-significant bits of
    /// SHA-256(MK ‖ AT) (seed 003, section 3.3).
    pub fn session_key(&self, at: u32) -> SessionKey {
        let mut h = Sha256::new();
        h.update(self.as_bytes());
        h.update(at.to_le_bytes());
        let mut digest: [u8; 32] = h.finalize().into();
        let mut sk = [0u8; 16];
        sk.copy_from_slice(&digest[16..]);
        digest.zeroize();
        SessionKey(sk)
    }
}

/// The session key SK, keying AES-CMAC. Wiped on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct SessionKey([u8; 16]);

impl core::fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SessionKey(..)")
    }
}

impl SessionKey {
    /// The 16 octets of SK.
    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_invalid_scalars_and_points() {
        assert_eq!(
            KeyPair::from_secret_bytes(Curve::P256, &[0; 32]).unwrap_err(),
            Error::InvalidKey
        );
        assert_eq!(
            KeyPair::from_secret_bytes(Curve::P256, &[0xff; 32]).unwrap_err(),
            Error::InvalidKey
        );
        assert_eq!(
            KeyPair::from_secret_bytes(Curve::P256, &[1; 31]).unwrap_err(),
            Error::InvalidKey
        );
        let kp = KeyPair::from_secret_bytes(Curve::P256, &[1; 32]).unwrap();
        // Off the curve: flip the last octet of Y.
        let mut bad = [0u8; 65];
        bad.copy_from_slice(kp.public().as_bytes());
        bad[64] ^= 1;
        assert_eq!(kp.agree(&bad).unwrap_err(), Error::BadPoint);
        assert_eq!(
            PublicPoint::from_sec1(Curve::P256, &bad).unwrap_err(),
            Error::BadPoint
        );
        let mut zero = [0u8; 65];
        zero[0] = 4;
        assert_eq!(kp.agree(&zero).unwrap_err(), Error::BadPoint);
        assert_eq!(kp.agree(&[4; 97]).unwrap_err(), Error::CurveMismatch);
        bad[0] = 2;
        assert_eq!(kp.agree(&bad).unwrap_err(), Error::BadPoint);
        assert!(PublicPoint::from_sec1(Curve::P256, kp.public().as_bytes()).is_ok());
        assert_eq!(
            PublicPoint::from_sec1(Curve::P384, kp.public().as_bytes()).unwrap_err(),
            Error::BadPoint
        );
    }

    #[test]
    fn curves_and_groups() {
        for c in Curve::ALL {
            assert_eq!(Curve::from_group(c.group()), Some(c));
            assert_eq!(c.group().point_len(), Some(c.point_len()));
        }
        assert_eq!(Curve::from_group(Group(21)), None);
        assert_eq!(Curve::default(), Curve::P256);
    }
}
