//! BIP, the Broadcast/Multicast Integrity Protocol (IEEE Std 802.11-2020,
//! 12.5.4): integrity for group-addressed robust management frames (IGTK,
//! Key ID 4 or 5) and for Beacon frames (beacon protection with the BIGTK,
//! Key ID 6 or 7).
//!
//! The sender appends a Management MIC element (MME, 9.4.2.54: Element ID
//! 76, Length, Key ID (2 octets), IPN (6 octets, little-endian), MIC) as
//! the last element of the frame body. The MIC is computed over
//! (12.5.4.3.3–12.5.4.3.4, 12.5.4.4):
//!
//! - AAD = Frame Control with Retry, Power Management and More Data masked
//!   to 0 || Address 1 || Address 2 || Address 3 (no Sequence Control);
//! - the frame body including the MME, with the MME's MIC field set to 0
//!   and, in a Beacon frame, the Timestamp field set to 0 (beacon
//!   protection, 12.5.4.4 of 802.11-2020).
//!
//! | suite | key | MIC | algorithm |
//! |---|---|---|---|
//! | [`BipCmac128`] | 16 | 8 | AES-128-CMAC truncated to 64 bits |
//! | [`BipCmac256`] | 32 | 16 | AES-256-CMAC |
//! | [`BipGmac128`] | 16 | 16 | AES-128-GMAC, nonce = A2 \|\| IPN (IPN5 first) |
//! | [`BipGmac256`] | 32 | 16 | AES-256-GMAC, nonce = A2 \|\| IPN (IPN5 first) |
//!
//! The frame body is whatever follows the MAC header as
//! [`wisec_wire::mac_header::header_len`] delimits it (an HT Control field
//! belongs to the header). BIP-GMAC processes AAD and body as one message;
//! without an allocator it copies them to a stack buffer, so it accepts
//! bodies up to [`MAX_BODY_LEN`] octets (the largest MMPDU) and answers
//! [`Error::Unsupported`] beyond.
//!
//! Verification does not check the IPN for replay: the returned
//! [`Unprotected`] carries the IPN for a [`crate::replay::ReplayCounter`].

use crate::cmac::AesCmac;
use crate::gcm::Gcm;
use crate::{ct_eq, Error, Result, Unprotected};
use wisec_wire::frame_control::{mgmt_subtype, FrameControl};
use wisec_wire::mac_header::header_len;
use wisec_wire::security::PN_MAX;

/// Element ID of the Management MIC element.
pub const MME_ELEMENT_ID: u8 = 76;
/// Largest frame body (MMPDU) BIP-GMAC accepts, MME included.
pub const MAX_BODY_LEN: usize = 2304;
/// Length of the Timestamp field that opens a Beacon frame body.
const TIMESTAMP_LEN: usize = 8;
const AAD_LEN: usize = 20;

/// The MIC primitive of one BIP suite.
trait BipMic {
    const MIC_LEN: usize;
    /// The MIC over AAD || body where the last `MIC_LEN` body octets (the
    /// MME's MIC field) count as zero, and the first eight as zero if
    /// `mask_timestamp`.
    fn mic(
        &self,
        aad: &[u8; AAD_LEN],
        a2: &[u8],
        ipn: u64,
        body: &[u8],
        mask_timestamp: bool,
    ) -> Result<[u8; 16]>;
}

struct Cmac(AesCmac);

impl Cmac {
    fn mic(&self, aad: &[u8; AAD_LEN], body: &[u8], mic_len: usize, mask: bool) -> [u8; 16] {
        let mut m = self.0.clone();
        m.update(aad);
        let covered = body.len() - mic_len;
        let start = if mask {
            m.update(&[0u8; TIMESTAMP_LEN]);
            TIMESTAMP_LEN
        } else {
            0
        };
        m.update(body.get(start..covered).unwrap_or(&[]));
        m.update(&[0u8; 16][..mic_len]);
        m.finalize()
    }
}

/// Copies AAD || masked body to `scratch` and returns its used part;
/// [`Error::Unsupported`] when it does not fit.
fn gmac_message<'a>(
    scratch: &'a mut [u8],
    aad: &[u8; AAD_LEN],
    body: &[u8],
    mic_len: usize,
    mask: bool,
) -> Result<&'a [u8]> {
    let total = AAD_LEN + body.len();
    if body.len() > MAX_BODY_LEN || total > scratch.len() {
        return Err(Error::Unsupported);
    }
    scratch[..AAD_LEN].copy_from_slice(aad);
    scratch[AAD_LEN..total].copy_from_slice(body);
    scratch[total - mic_len..total].fill(0);
    if mask {
        scratch[AAD_LEN..AAD_LEN + TIMESTAMP_LEN].fill(0);
    }
    Ok(&scratch[..total])
}

/// The GMAC nonce A2 || IPN with IPN5 first (12.5.4.3.2 for BIP-GMAC).
fn gmac_nonce(a2: &[u8], ipn: u64) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[..6].copy_from_slice(a2.get(..6).unwrap_or(&[0; 6]));
    n[6..].copy_from_slice(&ipn.to_be_bytes()[2..]);
    n
}

/// The BIP-GMAC MIC: GMAC (wisec's GCM engine, [`crate::gcm`]) over
/// AAD || masked body, nonce A2 || IPN. The message is put together in a
/// stack buffer: a small one for the common short frame (zeroing the
/// largest MMPDU's buffer cost more than the GMAC of a short frame), the
/// largest for the rest.
fn gmac_mic(
    gcm: &Gcm,
    aad: &[u8; AAD_LEN],
    a2: &[u8],
    ipn: u64,
    body: &[u8],
    mask: bool,
) -> Result<[u8; 16]> {
    let mic = |scratch: &mut [u8]| {
        let total = (AAD_LEN + body.len()).min(scratch.len());
        let r = gmac_message(scratch, aad, body, 16, mask)
            .and_then(|msg| gcm.gmac(&gmac_nonce(a2, ipn), msg));
        crate::simd::wipe_bytes(&mut scratch[..total]);
        r
    };
    if AAD_LEN + body.len() <= SHORT_SCRATCH {
        mic(&mut [0u8; SHORT_SCRATCH])
    } else {
        mic(&mut [0u8; AAD_LEN + MAX_BODY_LEN])
    }
}

/// Stack buffer for AAD || body of the frames most BIP-GMAC traffic
/// carries (action and deauthentication frames, short beacons).
const SHORT_SCRATCH: usize = 256;

/// What protect and verify learnt about a frame's header.
struct Layout {
    hl: usize,
    aad: [u8; AAD_LEN],
    beacon: bool,
}

fn layout(frame: &[u8]) -> Result<Layout> {
    let fcb = frame.get(..2).ok_or(Error::Malformed)?;
    let fc = FrameControl::from_bytes([fcb[0], fcb[1]]);
    if !fc.is_mgmt() {
        return Err(Error::Unsupported);
    }
    let hl = header_len(fc)?;
    let hdr = frame.get(..hl).ok_or(Error::Malformed)?;
    // BIP protects group-addressed frames only: Address 1 has the I/G bit.
    if hdr[4] & 0x01 == 0 {
        return Err(Error::Unsupported);
    }
    let mut masked = fc;
    masked.set_retry(false);
    masked.set_power_management(false);
    masked.set_more_data(false);
    let mut aad = [0u8; AAD_LEN];
    aad[..2].copy_from_slice(&masked.to_bytes());
    aad[2..].copy_from_slice(&hdr[4..22]);
    Ok(Layout {
        hl,
        aad,
        beacon: fc.subtype() == mgmt_subtype::BEACON,
    })
}

/// IGTK Key IDs 4 and 5 protect group-addressed robust management frames;
/// BIGTK Key IDs 6 and 7 protect Beacon frames (12.5.4, 12.6.1.1.11).
fn key_id_fits(key_id: u16, beacon: bool) -> bool {
    if beacon {
        matches!(key_id, 6 | 7)
    } else {
        matches!(key_id, 4 | 5)
    }
}

fn protect<M: BipMic>(m: &M, buf: &mut [u8], len: usize, ipn: u64, key_id: u8) -> Result<usize> {
    if ipn > PN_MAX {
        return Err(Error::InvalidParameter);
    }
    let l = layout(buf.get(..len).ok_or(Error::BufferTooSmall)?)?;
    if !key_id_fits(u16::from(key_id), l.beacon) {
        return Err(Error::InvalidParameter);
    }
    let mme_len = 2 + 2 + 6 + M::MIC_LEN;
    let total = len + mme_len;
    let out = buf.get_mut(..total).ok_or(Error::BufferTooSmall)?;
    if l.beacon && len - l.hl < TIMESTAMP_LEN {
        return Err(Error::Malformed);
    }
    if total - l.hl > MAX_BODY_LEN {
        return Err(Error::Unsupported);
    }
    let mme = &mut out[len..];
    mme[0] = MME_ELEMENT_ID;
    // mme_len - 2 <= 24: the cast is exact.
    mme[1] = (mme_len - 2) as u8;
    mme[2..4].copy_from_slice(&u16::from(key_id).to_le_bytes());
    mme[4..10].copy_from_slice(&ipn.to_le_bytes()[..6]);
    mme[10..].fill(0);
    let a2 = [0u8; 6];
    let a2 = out.get(10..16).unwrap_or(&a2);
    let mic = m.mic(&l.aad, a2, ipn, &out[l.hl..], l.beacon)?;
    out[total - M::MIC_LEN..].copy_from_slice(&mic[..M::MIC_LEN]);
    Ok(total)
}

fn verify<M: BipMic>(m: &M, frame: &[u8]) -> Result<Unprotected> {
    let l = layout(frame)?;
    let mme_len = 2 + 2 + 6 + M::MIC_LEN;
    let start = frame
        .len()
        .checked_sub(mme_len)
        .filter(|&s| s >= l.hl)
        .ok_or(Error::Malformed)?;
    let mme = &frame[start..];
    if mme[0] != MME_ELEMENT_ID || usize::from(mme[1]) != mme_len - 2 {
        return Err(Error::Malformed);
    }
    let key_id = u16::from_le_bytes([mme[2], mme[3]]);
    if !key_id_fits(key_id, l.beacon) {
        return Err(Error::Malformed);
    }
    if l.beacon && start - l.hl < TIMESTAMP_LEN {
        return Err(Error::Malformed);
    }
    let mut ipn_bytes = [0u8; 8];
    ipn_bytes[..6].copy_from_slice(&mme[4..10]);
    let ipn = u64::from_le_bytes(ipn_bytes);
    let mic = m.mic(&l.aad, &frame[10..16], ipn, &frame[l.hl..], l.beacon)?;
    if !ct_eq(&mic[..M::MIC_LEN], &mme[10..]) {
        return Err(Error::Integrity);
    }
    // key_id is 4..=7 here.
    Ok(Unprotected::new(start, ipn, key_id as u8))
}

macro_rules! bip_suite {
    ($(#[$doc:meta])* $name:ident, $key_len:expr, $mic_len:expr, $inner:ty,
     |$s:ident, $aad:ident, $a2:ident, $ipn:ident, $body:ident, $mask:ident| $mic:expr,
     $new:expr) => {
        $(#[$doc])*
        pub struct $name {
            inner: $inner,
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(concat!(stringify!($name), " { .. }"))
            }
        }

        impl BipMic for $name {
            const MIC_LEN: usize = $mic_len;
            fn mic(
                &self,
                $aad: &[u8; AAD_LEN],
                $a2: &[u8],
                $ipn: u64,
                $body: &[u8],
                $mask: bool,
            ) -> Result<[u8; 16]> {
                let $s = &self.inner;
                $mic
            }
        }

        impl $name {
            /// Length of the MIC in the MME.
            pub const MIC_LEN: usize = $mic_len;
            /// Length of the whole MME (element header included).
            pub const MME_LEN: usize = 2 + 2 + 6 + $mic_len;

            /// Keys the suite with an IGTK or BIGTK of the suite's length;
            /// other lengths are [`Error::InvalidParameter`].
            pub fn new(key: &[u8]) -> Result<$name> {
                if key.len() != $key_len {
                    return Err(Error::InvalidParameter);
                }
                let make: fn(&[u8]) -> Result<$inner> = $new;
                Ok($name { inner: make(key)? })
            }

            /// Appends an MME with `ipn` and `key_id` (4 or 5; 6 or 7 for a
            /// Beacon frame) to the group-addressed management frame
            /// `buf[..len]` and fills in its MIC. `buf` needs room for
            /// `len + MME_LEN` bytes. Returns the new length. Individually
            /// addressed and non-management frames are
            /// [`Error::Unsupported`].
            pub fn protect_in_place(
                &self,
                buf: &mut [u8],
                len: usize,
                ipn: u64,
                key_id: u8,
            ) -> Result<usize> {
                protect(self, buf, len, ipn, key_id)
            }

            /// Checks that the last element of `frame` is an MME of this
            /// suite's length with a fitting Key ID, and verifies its MIC.
            /// The proof's length is the frame length without the MME and
            /// its packet number is the IPN.
            pub fn verify(&self, frame: &[u8]) -> Result<Unprotected> {
                verify(self, frame)
            }
        }
    };
}

bip_suite!(
    /// BIP-CMAC-128: AES-128-CMAC, 64-bit MIC (12.5.4.3).
    BipCmac128, 16, 8, Cmac,
    |s, aad, _a2, _ipn, body, mask| Ok(s.mic(aad, body, 8, mask)),
    |k| Ok(Cmac(AesCmac::new(k)?))
);

bip_suite!(
    /// BIP-CMAC-256: AES-256-CMAC, 128-bit MIC (12.5.4.3).
    BipCmac256, 32, 16, Cmac,
    |s, aad, _a2, _ipn, body, mask| Ok(s.mic(aad, body, 16, mask)),
    |k| Ok(Cmac(AesCmac::new(k)?))
);

bip_suite!(
    /// BIP-GMAC-128: AES-128-GMAC, 128-bit MIC (12.5.4.3).
    BipGmac128, 16, 16, Gcm,
    |s, aad, a2, ipn, body, mask| gmac_mic(s, aad, a2, ipn, body, mask),
    Gcm::new
);

bip_suite!(
    /// BIP-GMAC-256: AES-256-GMAC, 128-bit MIC (12.5.4.3).
    BipGmac256, 32, 16, Gcm,
    |s, aad, a2, ipn, body, mask| gmac_mic(s, aad, a2, ipn, body, mask),
    Gcm::new
);
