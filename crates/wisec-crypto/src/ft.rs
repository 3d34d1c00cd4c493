//! The fast BSS transition (FT) key hierarchy (IEEE Std 802.11-2020,
//! 12.7.1.7): PMK-R0 and PMKR0Name at the R0 key holder, PMK-R1 and
//! PMKR1Name at each R1 key holder, and the PTK with its PTKName.
//!
//! The SHA-256 AKMs (00-0F-AC:3 FT over 802.1X, :4 FT-PSK, :9 FT-SAE) use
//! KDF-SHA-256 and a 256-bit PMK-R0/PMK-R1; the SHA-384 AKMs (:13 FT over
//! 802.1X SHA-384, :19 FT-PSK SHA-384) KDF-SHA-384 and 384 bits.
//!
//! XXKey, the input of PMK-R0, is chosen by the AKM (12.7.1.7.3): the PSK
//! for FT-PSK, the PMK for FT-SAE, the second 256 bits of the MSK for FT
//! over 802.1X and its first 384 bits for FT over 802.1X SHA-384. The
//! caller passes it.

use crate::kdf::{self, KdfHash};
use crate::ptk::{tk_len, KeyHierarchy, Ptk, PtkKdf};
use crate::{Error, Result};
use core::fmt;
use wisec_wire::element::{Akm, CipherSuite};
use wisec_wire::MacAddr;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Longest R0KH-ID (9.4.2.46: 1 to 48 octets).
pub const R0KH_ID_MAX_LEN: usize = 48;

/// The hash of an FT AKM, `Unsupported` for non-FT AKMs.
fn ft_hash(akm: Akm) -> Result<KdfHash> {
    let h = KeyHierarchy::for_akm(akm, CipherSuite::CCMP_128, 32)?;
    match (h.ft, h.kdf) {
        (true, PtkKdf::Kdf(hash)) => Ok(hash),
        _ => Err(Error::Unsupported),
    }
}

/// A 128-bit key name (PMKR0Name, PMKR1Name, PTKName).
pub type KeyName = [u8; 16];

/// A PMK-R0 and its name.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct PmkR0 {
    key: [u8; 48],
    #[zeroize(skip)]
    hash: KdfHash,
    name: KeyName,
}

/// A PMK-R1 and its name.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct PmkR1 {
    key: [u8; 48],
    #[zeroize(skip)]
    hash: KdfHash,
    name: KeyName,
}

macro_rules! key_accessors {
    ($t:ident) => {
        impl $t {
            /// The key (32 octets for the SHA-256 AKMs, 48 for SHA-384).
            pub fn key(&self) -> &[u8] {
                self.key.get(..self.hash.output_len()).unwrap_or(&[])
            }

            /// The key name.
            pub fn name(&self) -> &KeyName {
                &self.name
            }

            /// The hash of the KDF this key belongs to.
            pub fn hash(&self) -> KdfHash {
                self.hash
            }
        }

        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    concat!(stringify!($t), " {{ hash: {:?}, .. }}"),
                    self.hash
                )
            }
        }
    };
}

key_accessors!(PmkR0);
key_accessors!(PmkR1);

impl PmkR0 {
    /// Derives PMK-R0 and PMKR0Name (IEEE Std 802.11-2020, 12.7.1.7.3):
    ///
    /// `R0-Key-Data = KDF-Hash-Length(XXKey, "FT-R0", SSIDlength || SSID ||
    /// MDID || R0KHlength || R0KH-ID || S0KH-ID)` with `Length = Q + 128`,
    /// `PMK-R0 = L(R0-Key-Data, 0, Q)`, `PMK-R0Name-Salt =
    /// L(R0-Key-Data, Q, 128)` and `PMKR0Name = Truncate-128(Hash("FT-R0N"
    /// || PMK-R0Name-Salt))`, where Q is 256 or 384 by AKM.
    ///
    /// `ssid` is at most 32 octets, `r0kh_id` 1 to 48, `s0kh_id` the
    /// station's MAC address.
    pub fn derive(
        akm: Akm,
        xxkey: &[u8],
        ssid: &[u8],
        mdid: [u8; 2],
        r0kh_id: &[u8],
        s0kh_id: MacAddr,
    ) -> Result<PmkR0> {
        let hash = ft_hash(akm)?;
        if xxkey.is_empty()
            || ssid.len() > 32
            || r0kh_id.is_empty()
            || r0kh_id.len() > R0KH_ID_MAX_LEN
        {
            return Err(Error::InvalidParameter);
        }
        let q = hash.output_len();
        // Both lengths are at most 48: the casts are exact.
        let ssid_len = [ssid.len() as u8];
        let r0kh_len = [r0kh_id.len() as u8];
        let context: [&[u8]; 6] = [&ssid_len, ssid, &mdid, &r0kh_len, r0kh_id, &s0kh_id.0];
        let mut data = [0u8; 48 + 16];
        let r = kdf::kdf(hash, xxkey, b"FT-R0", &context, &mut data[..q + 16]);
        if let Err(e) = r {
            data.zeroize();
            return Err(e);
        }
        let mut out = PmkR0 {
            key: [0; 48],
            hash,
            name: [0; 16],
        };
        out.key[..q].copy_from_slice(&data[..q]);
        out.name = hash.hash_128(&[b"FT-R0N", &data[q..q + 16]]);
        data.zeroize();
        Ok(out)
    }

    /// Derives the PMK-R1 for the R1 key holder `r1kh_id` and the station
    /// `s1kh_id` (IEEE Std 802.11-2020, 12.7.1.7.4):
    ///
    /// `PMK-R1 = KDF-Hash-Length(PMK-R0, "FT-R1", R1KH-ID || S1KH-ID)` and
    /// `PMKR1Name = Truncate-128(Hash("FT-R1N" || PMKR0Name || R1KH-ID ||
    /// S1KH-ID))`.
    pub fn pmk_r1(&self, r1kh_id: MacAddr, s1kh_id: MacAddr) -> Result<PmkR1> {
        let hash = self.hash;
        let q = hash.output_len();
        let mut out = PmkR1 {
            key: [0; 48],
            hash,
            name: [0; 16],
        };
        kdf::kdf(
            hash,
            self.key(),
            b"FT-R1",
            &[&r1kh_id.0, &s1kh_id.0],
            &mut out.key[..q],
        )?;
        out.name = hash.hash_128(&[b"FT-R1N", &self.name, &r1kh_id.0, &s1kh_id.0]);
        Ok(out)
    }
}

impl PmkR1 {
    /// A PMK-R1 received from an R0 key holder, with its name; `hash` is
    /// the AKM's (`key` must be as long as its output).
    pub fn from_parts(hash: KdfHash, key: &[u8], name: KeyName) -> Result<PmkR1> {
        let q = hash.output_len();
        if key.len() != q || q > 48 {
            return Err(Error::InvalidParameter);
        }
        let mut out = PmkR1 {
            key: [0; 48],
            hash,
            name,
        };
        out.key[..q].copy_from_slice(key);
        Ok(out)
    }

    /// Derives the FT PTK and PTKName (IEEE Std 802.11-2020, 12.7.1.7.5):
    ///
    /// `PTK = KDF-Hash-Length(PMK-R1, "FT-PTK", SNonce || ANonce || BSSID
    /// || STA-ADDR)` with the KCK/KEK lengths of `akm` and the TK length of
    /// `pairwise`, and `PTKName = Truncate-128(Hash(PMKR1Name || "FT-PTKN"
    /// || SNonce || ANonce || BSSID || STA-ADDR))`.
    ///
    /// `akm` must be an FT AKM of the same hash as this PMK-R1.
    pub fn ptk(
        &self,
        akm: Akm,
        pairwise: CipherSuite,
        snonce: &[u8; 32],
        anonce: &[u8; 32],
        bssid: MacAddr,
        sta_addr: MacAddr,
    ) -> Result<(Ptk, KeyName)> {
        let h = KeyHierarchy::for_akm(akm, pairwise, self.key().len())?;
        if !h.ft || h.kdf != PtkKdf::Kdf(self.hash) {
            return Err(Error::InvalidParameter);
        }
        let mut ptk = Ptk::zeroed(h.kck_len, h.kek_len, tk_len(pairwise)?)?;
        let ctx: [&[u8]; 4] = [snonce, anonce, &bssid.0, &sta_addr.0];
        kdf::kdf(self.hash, self.key(), b"FT-PTK", &ctx, ptk.as_mut_bytes())?;
        let name = self.hash.hash_128(&[
            &self.name,
            b"FT-PTKN",
            snonce,
            anonce,
            &bssid.0,
            &sta_addr.0,
        ]);
        Ok((ptk, name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STA: MacAddr = MacAddr([2, 0, 0, 0, 0, 1]);
    const AP: MacAddr = MacAddr([2, 0, 0, 0, 0, 2]);

    #[test]
    fn lengths_and_refusals() {
        let r0 = PmkR0::derive(Akm::FT_PSK, &[1; 32], b"ssid", [0xa1, 0xb2], b"r0kh", STA).unwrap();
        assert_eq!(r0.key().len(), 32);
        let r1 = r0.pmk_r1(AP, STA).unwrap();
        let (ptk, _) = r1
            .ptk(
                Akm::FT_PSK,
                CipherSuite::CCMP_128,
                &[1; 32],
                &[2; 32],
                AP,
                STA,
            )
            .unwrap();
        assert_eq!(
            (ptk.kck().len(), ptk.kek().len(), ptk.tk().len()),
            (16, 16, 16)
        );
        // A SHA-384 AKM with a SHA-256 PMK-R1 is refused.
        assert_eq!(
            r1.ptk(
                Akm::FT_PSK_SHA384,
                CipherSuite::CCMP_128,
                &[1; 32],
                &[2; 32],
                AP,
                STA
            )
            .err(),
            Some(Error::InvalidParameter)
        );
        let r0 = PmkR0::derive(Akm::FT_PSK_SHA384, &[1; 48], b"", [0, 0], b"x", STA).unwrap();
        assert_eq!(r0.key().len(), 48);
        let (ptk, _) = r0
            .pmk_r1(AP, STA)
            .unwrap()
            .ptk(
                Akm::FT_PSK_SHA384,
                CipherSuite::GCMP_256,
                &[1; 32],
                &[2; 32],
                AP,
                STA,
            )
            .unwrap();
        assert_eq!(
            (ptk.kck().len(), ptk.kek().len(), ptk.tk().len()),
            (24, 32, 32)
        );
        let d = |akm, ssid: &[u8], r0kh: &[u8]| {
            PmkR0::derive(akm, &[1; 32], ssid, [0, 0], r0kh, STA).err()
        };
        assert_eq!(d(Akm::PSK, b"s", b"r"), Some(Error::Unsupported));
        assert_eq!(
            d(Akm::FT_PSK, &[0; 33], b"r"),
            Some(Error::InvalidParameter)
        );
        assert_eq!(d(Akm::FT_PSK, b"s", b""), Some(Error::InvalidParameter));
        assert_eq!(
            d(Akm::FT_PSK, b"s", &[0; 49]),
            Some(Error::InvalidParameter)
        );
        assert!(PmkR1::from_parts(KdfHash::Sha256, &[0; 48], [0; 16]).is_err());
    }

    #[test]
    fn debug_hides_keys() {
        extern crate std;
        let r0 = PmkR0::derive(Akm::FT_PSK, &[1; 32], b"s", [0, 0], b"r", STA).unwrap();
        assert_eq!(std::format!("{r0:?}"), "PmkR0 { hash: Sha256, .. }");
    }
}
