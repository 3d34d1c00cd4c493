//! The group key handshake (IEEE Std 802.11-2020, 12.7.7): the
//! authenticator sends a new GTK (and IGTK with management frame
//! protection) in group message 1, the supplicant installs it and answers
//! with group message 2. Both run over an established PTKSA; the state
//! lives in [`crate::fourway::Authenticator`] and
//! [`crate::fourway::Supplicant`], which call the functions here.

use crate::rsn::{
    emit_gtk_kde, emit_igtk_kde, seal_key_data, GroupKey, GroupKeys, HandshakeError, KeyDataInfo,
    KeyFrameSpec, Negotiated, VerifiedKeyFrame,
};
use wisec_crypto::eapol_mic::MicAlgorithm;
use wisec_crypto::ptk::Ptk;
use wisec_wire::eapol::{KeyDescriptorVersion, KeyInfo};

/// Largest plaintext Key Data the authenticator builds: RSNE, GTK KDE,
/// IGTK KDE and padding.
pub(crate) const KEY_DATA_MAX: usize = 384;

/// Writes the GTK KDE and, with PMF, the IGTK KDE of `keys` into `buf`
/// (12.7.6.4 message 3, 12.7.7.2 group message 1). Returns the length.
pub(crate) fn emit_group_kdes(keys: &GroupKeys, buf: &mut [u8]) -> Result<usize, HandshakeError> {
    let gtk_id = u8::try_from(keys.gtk.key_id & 3).unwrap_or(1);
    let mut n = emit_gtk_kde(gtk_id, false, keys.gtk.key(), buf)?;
    if let Some(igtk) = &keys.igtk {
        let rest = buf.get_mut(n..).ok_or(HandshakeError::InvalidKeyData)?;
        n += emit_igtk_kde(igtk.key_id, igtk.pn, igtk.key(), false, rest)?;
    }
    Ok(n)
}

/// Builds group message 1 (12.7.7.2): Key Ack, Key MIC, Secure,
/// Encrypted Key Data, group Key Type; Key RSC the GTK's sequence counter;
/// Key Data the GTK KDE (and IGTK KDE) sealed with the KEK. Returns the
/// PDU length written into `out`.
pub(crate) fn build_message_1(
    neg: &Negotiated,
    alg: MicAlgorithm,
    ptk: &Ptk,
    replay_counter: u64,
    key_iv: [u8; 16],
    keys: &GroupKeys,
    out: &mut [u8],
) -> Result<usize, HandshakeError> {
    let version = neg.descriptor_version();
    let mut plain = [0u8; KEY_DATA_MAX];
    let n = emit_group_kdes(keys, &mut plain)?;
    let mut sealed = [0u8; KEY_DATA_MAX + 8];
    let iv = if version == KeyDescriptorVersion::HmacMd5Rc4 {
        key_iv
    } else {
        [0; 16]
    };
    let m = seal_key_data(version, ptk.kek(), &iv, &mut plain, n, &mut sealed)?;
    let ki = KeyInfo::default()
        .with_descriptor_version(version)
        .with_key_ack(true)
        .with_key_mic(true)
        .with_secure(true)
        .with_encrypted_key_data(true);
    KeyFrameSpec {
        descriptor: neg.descriptor,
        key_info: ki,
        key_length: 0,
        replay_counter,
        key_nonce: [0; 32],
        key_iv: iv,
        key_rsc: keys.gtk.pn,
        key_data: sealed.get(..m).unwrap_or(&[]),
    }
    .emit(alg, ptk.kck(), out)
}

/// Builds group message 2 (12.7.7.3): Key MIC and Secure, the replay
/// counter of message 1, no Key Data.
pub(crate) fn build_message_2(
    neg: &Negotiated,
    alg: MicAlgorithm,
    ptk: &Ptk,
    replay_counter: u64,
    out: &mut [u8],
) -> Result<usize, HandshakeError> {
    let ki = KeyInfo::default()
        .with_descriptor_version(neg.descriptor_version())
        .with_key_mic(true)
        .with_secure(true);
    KeyFrameSpec {
        descriptor: neg.descriptor,
        key_info: ki,
        key_length: 0,
        replay_counter,
        key_nonce: [0; 32],
        key_iv: [0; 16],
        key_rsc: 0,
        key_data: &[],
    }
    .emit(alg, ptk.kck(), out)
}

/// The group keys a verified message (4-way message 3 or group message 1)
/// carries: the GTK (required, with the frame's Key RSC) and the IGTK
/// (required when PMF was negotiated, 12.7.6.4).
pub(crate) fn extract_group_keys(
    neg: &Negotiated,
    frame: &VerifiedKeyFrame<'_>,
    info: &KeyDataInfo<'_>,
) -> Result<GroupKeys, HandshakeError> {
    let gtk = info.gtk.ok_or(HandshakeError::InvalidKeyData)?;
    if let Some(len) = neg.group.key_len() {
        if gtk.key.len() != len {
            return Err(HandshakeError::CipherMismatch);
        }
    }
    let gtk = GroupKey::new(gtk.key, u16::from(gtk.key_id), frame.frame().key_rsc_u64())?;
    let igtk = match (neg.group_mgmt, info.igtk) {
        (Some(_), None) => return Err(HandshakeError::InvalidKeyData),
        (Some(suite), Some(i)) => {
            if suite.key_len() != Some(i.key.len()) || !matches!(i.key_id, 4 | 5) {
                return Err(HandshakeError::CipherMismatch);
            }
            Some(GroupKey::new(i.key, i.key_id, i.ipn)?)
        }
        (None, _) => None,
    };
    Ok(GroupKeys { gtk, igtk })
}
