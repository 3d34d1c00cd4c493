//! The Key MIC of EAPOL-Key frames (IEEE Std 802.11-2020, 12.7.2 and
//! Table 12-11): computed with the KCK over the whole EAPOL PDU (from the
//! EAPOL protocol version to the end of Key Data) with the Key MIC field
//! set to zero.
//!
//! Key descriptor version 1 uses HMAC-MD5, version 2 HMAC-SHA1-128,
//! version 3 AES-128-CMAC; with version 0 the AKM selects the algorithm
//! (AES-128-CMAC for SAE, HMAC-SHA-256-128, HMAC-SHA-384-192 for the
//! SHA-384 AKMs, HMAC-SHA-512-256 for OWE with group 21).
//!
//! MICs are compared in constant time.

use crate::cmac::AesCmac;
use crate::kdf::hmac_parts;
use crate::{ct_eq, Error, Result};
use zeroize::Zeroize;

/// Offset of the Key MIC field in an EAPOL PDU that starts with the
/// 4-octet EAPOL header (12.7.2, Figure 12-32).
pub const MIC_OFFSET: usize = 81;

/// Longest Key MIC of any algorithm.
pub const MAX_MIC_LEN: usize = 32;

/// An EAPOL-Key MIC algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MicAlgorithm {
    /// HMAC-MD5, key descriptor version 1 (TKIP; insecure, for reading
    /// legacy networks).
    HmacMd5,
    /// HMAC-SHA-1 truncated to 128 bits, key descriptor version 2.
    HmacSha1_128,
    /// AES-128-CMAC, key descriptor version 3 and the SAE AKMs.
    AesCmac128,
    /// HMAC-SHA-256 truncated to 128 bits (AKM 11, OWE group 19).
    HmacSha256_128,
    /// HMAC-SHA-384 truncated to 192 bits (AKMs 12, 13, 19, 20, OWE group
    /// 20).
    HmacSha384_192,
    /// HMAC-SHA-512 truncated to 256 bits (OWE group 21).
    HmacSha512_256,
}

impl MicAlgorithm {
    /// The algorithm of key descriptor versions 1, 2 and 3; `None` for
    /// version 0 (AKM-defined) and reserved values.
    pub const fn from_descriptor_version(version: u8) -> Option<MicAlgorithm> {
        match version {
            1 => Some(MicAlgorithm::HmacMd5),
            2 => Some(MicAlgorithm::HmacSha1_128),
            3 => Some(MicAlgorithm::AesCmac128),
            _ => None,
        }
    }

    /// Length of the Key MIC field in octets.
    pub const fn mic_len(self) -> usize {
        match self {
            MicAlgorithm::HmacSha384_192 => 24,
            MicAlgorithm::HmacSha512_256 => 32,
            _ => 16,
        }
    }

    /// Length of the KCK this algorithm is keyed with (Table 12-8).
    pub const fn kck_len(self) -> usize {
        self.mic_len()
    }

    /// Feeds `parts` to the MIC function and writes the MIC (of
    /// [`MicAlgorithm::mic_len`] octets) into `out`.
    fn mac(self, kck: &[u8], parts: &[&[u8]], out: &mut [u8]) -> Result<()> {
        if kck.len() != self.kck_len() || out.len() != self.mic_len() {
            return Err(Error::InvalidParameter);
        }
        match self {
            MicAlgorithm::HmacMd5 => hmac_parts::<md5::Md5>(kck, parts, out),
            MicAlgorithm::HmacSha1_128 => hmac_parts::<sha1::Sha1>(kck, parts, out),
            MicAlgorithm::HmacSha256_128 => hmac_parts::<sha2::Sha256>(kck, parts, out),
            MicAlgorithm::HmacSha384_192 => hmac_parts::<sha2::Sha384>(kck, parts, out),
            MicAlgorithm::HmacSha512_256 => hmac_parts::<sha2::Sha512>(kck, parts, out),
            MicAlgorithm::AesCmac128 => {
                let mut m = AesCmac::new(kck)?;
                for p in parts {
                    m.update(p);
                }
                let mut tag = m.finalize();
                out.copy_from_slice(&tag);
                tag.zeroize();
                Ok(())
            }
        }
    }
}

/// Computes the MIC of `frame`, an EAPOL PDU whose Key MIC field is
/// already zero (12.7.2), into `mic` (exactly `alg.mic_len()` octets).
pub fn compute(alg: MicAlgorithm, kck: &[u8], frame: &[u8], mic: &mut [u8]) -> Result<()> {
    alg.mac(kck, &[frame], mic)
}

/// Checks `mic` against `frame`, an EAPOL PDU whose Key MIC field is zero,
/// in constant time. `Integrity` when it does not match.
pub fn verify(alg: MicAlgorithm, kck: &[u8], frame: &[u8], mic: &[u8]) -> Result<()> {
    let mut expect = [0u8; MAX_MIC_LEN];
    let n = alg.mic_len();
    if mic.len() != n {
        return Err(Error::Integrity);
    }
    alg.mac(kck, &[frame], &mut expect[..n])?;
    let ok = ct_eq(&expect[..n], mic);
    expect.zeroize();
    if ok {
        Ok(())
    } else {
        Err(Error::Integrity)
    }
}

/// Splits an EAPOL PDU around its Key MIC field.
fn split(alg: MicAlgorithm, pdu: &[u8]) -> Result<(&[u8], &[u8], &[u8])> {
    let end = MIC_OFFSET + alg.mic_len();
    // The PDU must reach at least the Key Data Length field after the MIC.
    if pdu.len() < end + 2 {
        return Err(Error::Malformed);
    }
    let (head, rest) = pdu.split_at(MIC_OFFSET);
    let (mic, tail) = rest.split_at(alg.mic_len());
    Ok((head, mic, tail))
}

/// Checks the Key MIC carried in `pdu`, a whole EAPOL PDU (EAPOL header
/// first), as received: the MIC is computed as if its field were zero,
/// without copying the frame, and compared in constant time.
pub fn verify_pdu(alg: MicAlgorithm, kck: &[u8], pdu: &[u8]) -> Result<()> {
    let (head, mic, tail) = split(alg, pdu)?;
    let zeros = [0u8; MAX_MIC_LEN];
    let n = alg.mic_len();
    let mut expect = [0u8; MAX_MIC_LEN];
    alg.mac(kck, &[head, &zeros[..n], tail], &mut expect[..n])?;
    let ok = ct_eq(&expect[..n], mic);
    expect.zeroize();
    if ok {
        Ok(())
    } else {
        Err(Error::Integrity)
    }
}

/// Computes the Key MIC of `pdu`, a whole EAPOL PDU, and writes it into
/// its Key MIC field (whatever the field held before is ignored).
pub fn sign_pdu(alg: MicAlgorithm, kck: &[u8], pdu: &mut [u8]) -> Result<()> {
    let n = alg.mic_len();
    let mut mic = [0u8; MAX_MIC_LEN];
    {
        let (head, _, tail) = split(alg, pdu)?;
        let zeros = [0u8; MAX_MIC_LEN];
        alg.mac(kck, &[head, &zeros[..n], tail], &mut mic[..n])?;
    }
    let r = match pdu.get_mut(MIC_OFFSET..MIC_OFFSET + n) {
        Some(field) => {
            field.copy_from_slice(&mic[..n]);
            Ok(())
        }
        None => Err(Error::Malformed),
    };
    mic.zeroize();
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_and_versions() {
        assert_eq!(
            MicAlgorithm::from_descriptor_version(1),
            Some(MicAlgorithm::HmacMd5)
        );
        assert_eq!(
            MicAlgorithm::from_descriptor_version(2),
            Some(MicAlgorithm::HmacSha1_128)
        );
        assert_eq!(
            MicAlgorithm::from_descriptor_version(3),
            Some(MicAlgorithm::AesCmac128)
        );
        assert_eq!(MicAlgorithm::from_descriptor_version(0), None);
        assert_eq!(MicAlgorithm::from_descriptor_version(4), None);
        assert_eq!(MicAlgorithm::HmacSha384_192.mic_len(), 24);
        assert_eq!(MicAlgorithm::HmacSha512_256.mic_len(), 32);
    }

    #[test]
    fn wrong_kck_and_short_frames_are_errors() {
        let mut pdu = [0u8; 99];
        let alg = MicAlgorithm::HmacSha1_128;
        assert_eq!(
            sign_pdu(alg, &[0; 24], &mut pdu),
            Err(Error::InvalidParameter)
        );
        assert_eq!(
            sign_pdu(alg, &[0; 16], &mut pdu[..98]),
            Err(Error::Malformed)
        );
        assert!(sign_pdu(alg, &[0; 16], &mut pdu).is_ok());
        assert!(verify_pdu(alg, &[0; 16], &pdu).is_ok());
        // The same frame under the 24-octet MIC is too short.
        assert_eq!(
            verify_pdu(MicAlgorithm::HmacSha384_192, &[0; 24], &pdu),
            Err(Error::Malformed)
        );
        assert_eq!(verify(alg, &[0; 16], &pdu, &[0; 15]), Err(Error::Integrity));
    }

    #[test]
    fn sign_then_verify_and_flip() {
        for alg in [
            MicAlgorithm::HmacMd5,
            MicAlgorithm::HmacSha1_128,
            MicAlgorithm::AesCmac128,
            MicAlgorithm::HmacSha256_128,
            MicAlgorithm::HmacSha384_192,
            MicAlgorithm::HmacSha512_256,
        ] {
            let kck = [7u8; 32];
            let kck = &kck[..alg.kck_len()];
            let mut pdu = [0x5au8; 140];
            sign_pdu(alg, kck, &mut pdu).unwrap();
            verify_pdu(alg, kck, &pdu).unwrap();
            // verify() over the zeroed frame agrees with verify_pdu().
            let mut mic = [0u8; MAX_MIC_LEN];
            mic[..alg.mic_len()].copy_from_slice(&pdu[MIC_OFFSET..MIC_OFFSET + alg.mic_len()]);
            let mut zeroed = pdu;
            zeroed[MIC_OFFSET..MIC_OFFSET + alg.mic_len()].fill(0);
            verify(alg, kck, &zeroed, &mic[..alg.mic_len()]).unwrap();
            for i in [0, 5, MIC_OFFSET, MIC_OFFSET + alg.mic_len(), 139] {
                let mut bad = pdu;
                bad[i] ^= 1;
                assert_eq!(
                    verify_pdu(alg, kck, &bad),
                    Err(Error::Integrity),
                    "{alg:?} {i}"
                );
            }
        }
    }
}
